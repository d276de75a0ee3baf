//! Strategies that see only a seat's view and its legal moves — never the full state.
//!
//! Here is what every game's bots share: the [`Bot`] trait, the [`RandomBot`] baseline, the
//! [`BotLevel`]s a person picks, and the [`arena`] that measures one bot against another. A
//! game's own bots live in its folder (`games/<name>/bot.rs`), and its registry entry maps each
//! level to one of them; nothing here knows a game.
//!
//! A bot's randomness is an RNG its owner seeds (the engine layer draws no OS randomness).

pub mod arena;

use crate::engine::Game;
use rand::seq::SliceRandom;
use rand::Rng;

/// A strategy for one game.
pub trait Bot<G: Game>: Send {
    /// Picks one of `legal` (never empty) from what `view` shows.
    fn choose(&mut self, view: &G::View, legal: &[G::Action]) -> G::Action;
    fn name(&self) -> &str;
}

/// Uniformly random legal moves: the baseline every other bot must beat.
pub struct RandomBot<R> {
    rng: R,
}

impl<R: Rng> RandomBot<R> {
    pub fn new(rng: R) -> Self {
        RandomBot { rng }
    }
}

impl<G: Game, R: Rng + Send> Bot<G> for RandomBot<R> {
    fn choose(&mut self, _view: &G::View, legal: &[G::Action]) -> G::Action {
        legal
            .choose(&mut self.rng)
            .expect("a bot is only asked when it has a legal move")
            .clone()
    }
    fn name(&self) -> &str {
        "random"
    }
}

/// How well the built-in opponents play (`--bot-level`); each game maps the levels to its bots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BotLevel {
    /// Beatable: random moves, or a game's heuristic with noise (Tolerance).
    Easy,
    /// The game's own heuristic bot.
    #[default]
    Normal,
    /// The game's strongest bot (Tolerance: Monte-Carlo worlds weighted by the bets).
    Hard,
}

impl BotLevel {
    pub const ALL: [BotLevel; 3] = [BotLevel::Easy, BotLevel::Normal, BotLevel::Hard];

    pub fn name(self) -> &'static str {
        match self {
            BotLevel::Easy => "easy",
            BotLevel::Normal => "normal",
            BotLevel::Hard => "hard",
        }
    }
}

impl std::fmt::Display for BotLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for BotLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        BotLevel::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("'{s}' is not a bot level (easy, normal, hard)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_and_print() {
        for l in BotLevel::ALL {
            assert_eq!(l.name().parse::<BotLevel>(), Ok(l));
        }
        assert_eq!("HARD".parse::<BotLevel>(), Ok(BotLevel::Hard));
        assert!("expert".parse::<BotLevel>().is_err());
        assert_eq!(BotLevel::default(), BotLevel::Normal);
    }
}
