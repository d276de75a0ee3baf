//! Perudo's entry in the game registry: its setup, bots and words.

use super::game::{Perudo, Setup};
use crate::bots::{Bot, BotLevel};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for Perudo {
    const TITLE: &'static str = "Perudo";
    const SUMMARY: &'static str =
        "liar's dice: bid on every cup's dice, ones wild, dudo opens the cups";
    const SEATS: (u8, u8) = (2, 10);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        match opts.variant.as_deref() {
            None | Some("standard") => {}
            Some(other) => {
                return Err(format!("Perudo has one variant, 'standard', not '{other}'"));
            }
        }
        if opts.variant_text.is_some() {
            return Err("Perudo has no variant files".into());
        }
        if opts.players != 0 && !(2..=10).contains(&opts.players) {
            return Err(format!(
                "Perudo seats 2 to 10 players, not {}",
                opts.players
            ));
        }
        Ok(Setup::standard(opts.players.max(2)))
    }

    /// From version 8 the next round's cups are rolled with the opening of this round's.
    fn at_version(setup: Setup, v: u8) -> Setup {
        Setup {
            rolls_with_opening: crate::games::dice::rolls_with_opening_at(v),
            ..setup
        }
    }

    fn start(setup: &Setup, players: u8) -> Result<Perudo, RuleError> {
        check_players(setup.seats.len(), players)?;
        Perudo::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Perudo>> {
        match level {
            BotLevel::Easy => Box::new(crate::bots::RandomBot::new(rng)),
            _ => Box::new(super::bot::PerudoBot::new(rng)),
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
