//! Strategies that see only a seat's view and its legal moves — never the full state.
//!
//! A bot's randomness is an RNG its owner seeds (the engine layer draws no OS randomness).

pub mod dice;
pub mod tolerance;

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
