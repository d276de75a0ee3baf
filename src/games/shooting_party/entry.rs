//! Shooting Party's entry in the game registry: its setup, bots and report.

use super::bot::{AgentBot, RandomPlayer};
use super::game::{
    card_short, communique_grade, contact_grade, Phase, Setup, ShootingParty, Verdict,
};
use crate::bots::{Bot, BotLevel};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for ShootingParty {
    const TITLE: &'static str = "Shooting Party";
    const SUMMARY: &'static str =
        "the spy's solitaire of etiquette at a hunting party, raced by npub on one deal nobody \
         could choose: contact four sources alone, with their communiques";
    const SEATS: (u8, u8) = (2, 6);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("Shooting Party has no variant files".into());
        }
        if let Some(v) = opts.variant.as_deref().filter(|v| *v != "standard") {
            return Err(format!(
                "Shooting Party has one variant, 'standard', not '{v}'"
            ));
        }
        // A race is one deal (`--hands` counts nothing here: race again for another deal).
        let s = Setup {
            players: opts.players.max(1),
        };
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<ShootingParty, RuleError> {
        check_players(setup.players.into(), players)?;
        ShootingParty::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<ShootingParty>> {
        match level {
            BotLevel::Easy => Box::new(RandomPlayer::new(rng)),
            _ => Box::new(AgentBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        let board: Vec<serde_json::Value> = self
            .standings()
            .iter()
            .map(|r| {
                let e = self.entrant(r.seat).expect("entrant");
                let (contacts, communiques) = match self.verdicts.get(&r.seat) {
                    Some(Verdict::Verified {
                        contacts,
                        communiques,
                        ..
                    }) => (*contacts, *communiques),
                    _ => (0, 0),
                };
                serde_json::json!({
                    "seat": r.seat,
                    "score": r.score,
                    "status": e.status,
                    "contacts": contacts,
                    "communiques": communiques,
                    "grade": format!(
                        "{} {}",
                        communique_grade(usize::from(communiques)),
                        contact_grade(usize::from(contacts))
                    ),
                    "moves": e.moves.len(),
                    "exhausted": e.places.exhausted,
                })
            })
            .collect();
        let refused: Vec<serde_json::Value> = self
            .verdicts
            .iter()
            .filter_map(|(seat, v)| match v {
                Verdict::Refused { reason } => {
                    Some(serde_json::json!({"seat": seat, "reason": reason}))
                }
                _ => None,
            })
            .collect();
        // Once every card drawn is shown, each entrant's game move by move and its score pile,
        // as anyone reading the relay can replay them.
        let mut games = serde_json::Map::new();
        if self.phase == Phase::Over {
            for e in &self.entrants {
                let scored: Vec<Option<String>> = e
                    .places
                    .scored
                    .iter()
                    .map(|s| self.card_seen(e.seat, None, *s).map(card_short))
                    .collect();
                games.insert(
                    e.seat.to_string(),
                    serde_json::json!({"moves": e.moves, "score_pile": scored}),
                );
            }
        }
        serde_json::json!({
            "entrants": self.entrants.len(),
            "leaderboard": board,
            "games": games,
            "refused": refused,
            "stopped_by": self.stopped_by,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
