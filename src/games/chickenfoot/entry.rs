//! Chickenfoot's entry in the game registry: its setup, bots and words.

use super::bot::GreedyBot;
use super::game::{Chickenfoot, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for Chickenfoot {
    const TITLE: &'static str = "Chickenfoot";
    const SUMMARY: &'static str =
        "branching dominoes: fill the centerpiece, chickenfoot every double, keep few pips";
    const SEATS: (u8, u8) = (2, 12);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("Chickenfoot has no variant files".into());
        }
        let mut s = Setup::new(opts.players.max(2));
        match opts.variant.as_deref() {
            None | Some("standard") => {}
            Some(v) => return Err(format!("Chickenfoot has no variant '{v}': 'standard'")),
        }
        if let Some(h) = opts.hands {
            s.rounds = Some(u32::try_from(h).map_err(|_| format!("{h} rounds is too many"))?);
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<Chickenfoot, RuleError> {
        check_players(setup.players.into(), players)?;
        Chickenfoot::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Chickenfoot>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(GreedyBot),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "rounds": self.round + 1,
            "set": self.setup.max_pip(),
            "hand_size": self.setup.hand_size(),
            "scores": self.scores,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
