//! High Card's entry in the game registry: its setup, bots and words.

use super::bot::ThresholdBot;
use super::game::{HighCard, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for HighCard {
    const TITLE: &'static str = "High Card";
    const SUMMARY: &'static str =
        "the toy game: one card each, one swap, stay or fold all at once, high card wins";
    const SEATS: (u8, u8) = (2, 6);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() || opts.variant.as_deref().is_some_and(|v| v != "standard") {
            return Err("High Card has one variant, 'standard'".into());
        }
        let mut s = Setup::new(opts.players.max(2));
        if let Some(h) = opts.hands {
            s.rounds = u32::try_from(h).map_err(|_| format!("{h} rounds is too many"))?;
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<HighCard, RuleError> {
        check_players(setup.players.into(), players)?;
        HighCard::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<HighCard>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(ThresholdBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "rounds": self.round,
            "points": self.points,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
