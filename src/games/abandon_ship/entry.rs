//! Abandon Ship's entry in the game registry: its setup, bots and words.

use super::bot::SailorBot;
use super::game::{AbandonShip, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for AbandonShip {
    const TITLE: &'static str = "Abandon Ship";
    const SUMMARY: &'static str =
        "discard into suit lifeboats or fight for loot; when the deck runs out, a face-down Key Card picks your lifeboat";
    const SEATS: (u8, u8) = (2, 8);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() || opts.variant.as_deref().is_some_and(|v| v != "standard") {
            return Err("Abandon Ship has one variant, 'standard'".into());
        }
        let mut s = Setup::new(opts.players.max(2));
        if let Some(h) = opts.hands {
            s.rounds = Some(u32::try_from(h).map_err(|_| format!("{h} rounds is too many"))?);
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<AbandonShip, RuleError> {
        check_players(setup.players.into(), players)?;
        AbandonShip::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<AbandonShip>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(SailorBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "rounds": self.round,
            "target": self.setup.target,
            "decks": self.setup.decks(),
            "scores": self.scores,
            "removed": self.removed,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
