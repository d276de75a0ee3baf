//! Shooting Party's entry in the game registry: its setup, bots and report.

use super::bot::AgentBot;
use super::game::{card_short, communique_grade, contact_grade, Party, Setup, ShootingParty};
use crate::bots::{Bot, BotLevel};
use crate::engine::RuleError;
use crate::games::race::Solitaire;
use crate::games::race::{self, RandomPlayer};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for ShootingParty {
    const TITLE: &'static str = Party::TITLE;
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
        race::validate::<Party>(&s).map_err(|e| e.to_string())?;
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
        self.race_report(
            |e, v| {
                serde_json::json!({
                    "contacts": v.contacts,
                    "communiques": v.communiques,
                    "grade": format!(
                        "{} {}",
                        communique_grade(usize::from(v.communiques)),
                        contact_grade(usize::from(v.contacts))
                    ),
                    "moves": e.moves.len(),
                    "exhausted": e.places.exhausted,
                })
            },
            // Each game move by move, and its score pile.
            |e| {
                let scored: Vec<Option<String>> = e
                    .places
                    .scored
                    .iter()
                    .map(|s| self.card_seen(e.seat, None, *s).map(card_short))
                    .collect();
                serde_json::json!({"moves": e.moves, "score_pile": scored})
            },
        )
    }
}
