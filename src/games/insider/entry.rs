//! Insider in the game registry: its setup, bots and words.

use super::bot::InsiderBot;
use super::game::{Insider, Said, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for Insider {
    const TITLE: &'static str = "Insider";
    const SUMMARY: &'static str =
        "20 questions with a hidden Insider who knows the word: guess it in time, then find the Insider";
    const SEATS: (u8, u8) = (4, 8);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() || opts.variant.as_deref().is_some_and(|v| v != "standard") {
            return Err("Insider has one variant, 'standard'".into());
        }
        let s = Setup::new(opts.players.max(4));
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<Insider, RuleError> {
        check_players(setup.players.into(), players)?;
        Insider::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Insider>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(InsiderBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "master": self.master,
            "insider": self.insider(),
            "word": self.shown_word,
            "questions": self.qa.iter().filter(|q| matches!(q.said, Said::Question { .. })).count(),
            "guesses": self.qa.iter().filter(|q| matches!(q.said, Said::Guess { .. })).count(),
            "guesser": self.guesser,
            "accused": self.accused,
            "end": self.end,
            "misjudged": self.misjudged,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
