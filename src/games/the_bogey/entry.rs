//! The Bogey's entry in the game registry: its setup, bots and report.

use super::bot::ColumnBot;
use super::game::{card_name, level, Bogey, End, Setup, Status, TheBogey};
use crate::bots::{Bot, BotLevel};
use crate::engine::RuleError;
use crate::games::race::Solitaire;
use crate::games::race::{self, RandomPlayer};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for TheBogey {
    const TITLE: &'static str = Bogey::TITLE;
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
        race::validate::<Bogey>(&s).map_err(|e| e.to_string())?;
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
        let mut report = self.race_report(
            |e, v| {
                serde_json::json!({
                    "on_table": v.on_table,
                    "columns": v.columns,
                    "level": (e.status == Status::Ended(End::Won)).then(|| level(v.columns)),
                    "moves": e.moves.len(),
                    "turns": e.places.turn,
                })
            },
            // Each game move by move, and its columns.
            |e| {
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
                serde_json::json!({"moves": e.moves, "columns": columns})
            },
        );
        report["hand"] = serde_json::json!(self.setup.hand);
        report
    }
}
