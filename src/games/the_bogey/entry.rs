//! The Bogey's entry in the game registry: its setup, bots and report.

use super::bot::{ColumnBot, RandomPlayer};
use super::game::{card_name, level, Phase, Setup, Status, TheBogey, Verdict};
use crate::bots::{Bot, BotLevel};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for TheBogey {
    const TITLE: &'static str = "The Bogey";
    const SUMMARY: &'static str =
        "the columns solitaire against a mischievous bogey, raced by npub on one deal nobody \
                                   could choose: columns by suit going down, at most twelve";
    const SEATS: (u8, u8) = (2, 6);
    const VARIANTS: &'static [&'static str] = &["standard", "hard"];
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("The Bogey has no variant files: name 'standard' or 'hard'".into());
        }
        let hand = match opts.variant.as_deref() {
            None | Some("standard") => 5,
            Some("hard") => 4,
            Some(v) => {
                return Err(format!(
                    "The Bogey has two variants, 'standard' (a hand of five) and 'hard' (a hand \
                     of four), not '{v}'"
                ))
            }
        };
        // A race is one deal (`--hands` counts nothing here: race again for another deal).
        let s = Setup {
            players: opts.players.max(1),
            hand,
        };
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<TheBogey, RuleError> {
        check_players(setup.players.into(), players)?;
        TheBogey::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<TheBogey>> {
        match level {
            BotLevel::Easy => Box::new(RandomPlayer::new(rng)),
            _ => Box::new(ColumnBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        let board: Vec<serde_json::Value> = self
            .standings()
            .iter()
            .map(|r| {
                let e = self.entrant(r.seat).expect("entrant");
                let (on_table, columns) = match self.verdicts.get(&r.seat) {
                    Some(Verdict::Verified {
                        on_table, columns, ..
                    }) => (*on_table, *columns),
                    _ => (0, 0),
                };
                serde_json::json!({
                    "seat": r.seat,
                    "score": r.score,
                    "status": e.status,
                    "on_table": on_table,
                    "columns": columns,
                    "level": (e.status == Status::Won).then(|| level(columns)),
                    "moves": e.moves.len(),
                    "turns": e.places.turn,
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
        // Once every card drawn is shown, each entrant's game move by move and its columns, as
        // anyone reading the relay can replay them.
        let mut games = serde_json::Map::new();
        if self.phase == Phase::Over {
            for e in &self.entrants {
                let columns: Vec<Vec<Option<String>>> = e
                    .places
                    .columns
                    .iter()
                    .map(|c| {
                        c.iter()
                            .map(|s| self.card_seen(e.seat, None, *s).map(card_name))
                            .collect()
                    })
                    .collect();
                games.insert(
                    e.seat.to_string(),
                    serde_json::json!({"moves": e.moves, "columns": columns}),
                );
            }
        }
        serde_json::json!({
            "entrants": self.entrants.len(),
            "hand": self.setup.hand,
            "leaderboard": board,
            "games": games,
            "refused": refused,
            "stopped_by": self.stopped_by,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
