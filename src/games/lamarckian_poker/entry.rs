//! Lamarckian Poker's entry in the game registry: its setup, bots and words.

use super::bot::CaptureBot;
use super::game::{Entry, LamarckianPoker, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError, Seat};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for LamarckianPoker {
    const TITLE: &'static str = "Lamarckian Poker";
    const SUMMARY: &'static str =
        "play a face-down mark to capture pool cards by suit or rank; best poker hand at the end wins";
    const SEATS: (u8, u8) = (2, 8);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() || opts.variant.as_deref().is_some_and(|v| v != "standard") {
            return Err("Lamarckian Poker has one variant, 'standard'".into());
        }
        // `--hands` does not apply: the deck decides how long a game lasts.
        let s = Setup::new(opts.players.max(2));
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<LamarckianPoker, RuleError> {
        check_players(setup.players.into(), players)?;
        LamarckianPoker::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<LamarckianPoker>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(CaptureBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        let best: Vec<(Seat, String)> = self
            .log
            .iter()
            .filter_map(|e| match e {
                Entry::Shown { seat, hand } => Some((*seat, hand.words())),
                _ => None,
            })
            .collect();
        serde_json::json!({
            "turns": self.turn,
            "survivors": self.alive,
            "cards": self.hands.iter().map(|(s, h)| (*s, h.len())).collect::<Vec<_>>(),
            "hands": best,
            "removed": self.removed,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
