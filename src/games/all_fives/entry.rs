//! All Fives' entry in the game registry: its setup, bots and words.

use super::bot::GreedyBot;
use super::game::{AllFives, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for AllFives {
    const TITLE: &'static str = "All Fives";
    const SUMMARY: &'static str =
        "dominoes with a spinner: score when the open ends add up to a multiple of five";
    const SEATS: (u8, u8) = (2, 4);
    const VARIANTS: &'static [&'static str] = &["standard", "cutthroat"];
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("All Fives has no variant files: 'standard' or 'cutthroat'".into());
        }
        let mut s = Setup::new(opts.players.max(2));
        match opts.variant.as_deref() {
            None | Some("standard") => {}
            Some("cutthroat") => s.partnerships = false,
            Some(v) => {
                return Err(format!(
                    "All Fives has no variant '{v}': 'standard' (partners at 4) or 'cutthroat'"
                ))
            }
        }
        if let Some(h) = opts.hands {
            s.hands = Some(u32::try_from(h).map_err(|_| format!("{h} hands is too many"))?);
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<AllFives, RuleError> {
        check_players(setup.players.into(), players)?;
        AllFives::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<AllFives>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(GreedyBot),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "hands": self.hand + 1,
            "target": self.setup.target(),
            "partnerships": self.setup.partnerships,
            "teams": self.teams,
            "scores": self.scores,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
