//! Mia's entry in the game registry: its setup, bots and words.

use super::game::{Mia, Setup};
use crate::bots::{Bot, BotLevel};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for Mia {
    const TITLE: &'static str = "Mia";
    const SUMMARY: &'static str =
        "roll two dice under the cup, claim a value, pass it on or call the bluff";
    const SEATS: (u8, u8) = (2, 10);
    const VARIANTS: &'static [&'static str] = &super::Ranking::NAMES;
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("Mia has no variant files: name a ranking (traditional or modern)".into());
        }
        let ranking = match opts.variant.as_deref() {
            None | Some("standard") => super::Ranking::default(),
            Some(other) => super::Ranking::parse(other)?,
        };
        if opts.players != 0 && !(2..=10).contains(&opts.players) {
            return Err(format!("Mia seats 2 to 10 players, not {}", opts.players));
        }
        Ok(Setup::standard(opts.players.max(2), ranking))
    }

    /// From version 8 a challenge's batch also rolls the next round's first cup.
    fn at_version(setup: Setup, v: u8) -> Setup {
        Setup {
            rolls_with_opening: crate::games::dice::rolls_with_opening_at(v),
            ..setup
        }
    }

    fn start(setup: &Setup, players: u8) -> Result<Mia, RuleError> {
        check_players(setup.seats.len(), players)?;
        Mia::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Mia>> {
        match level {
            BotLevel::Easy => Box::new(crate::bots::RandomBot::new(rng)),
            _ => Box::new(super::bot::MiaBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "winner": self.outcome().and_then(|o| o.winners.first().copied()),
            "forfeited": self.forfeited,
            "rounds": self.round,
        })
    }
}
