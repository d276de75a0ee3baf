//! Strategies that see only a seat's view and its legal moves — never the full state.
//!
//! A bot's randomness is an RNG its owner seeds (the engine layer draws no OS randomness).

pub mod arena;
pub mod dice;
pub mod montecarlo;
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

/// How well the built-in Tolerance opponents play (`--bot-level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BotLevel {
    /// The heuristic with a quarter of its moves random and more bluffs: beatable.
    Easy,
    /// The heuristic: a normal approximation of its chance, pot odds, win-chance rolls.
    #[default]
    Normal,
    /// Monte-Carlo worlds weighted by the opponents' bets; moves by expected chips.
    Hard,
}

impl BotLevel {
    pub const ALL: [BotLevel; 3] = [BotLevel::Easy, BotLevel::Normal, BotLevel::Hard];

    /// A bot of this level drawing its randomness from `rng`.
    pub fn bot<R: Rng + Send + 'static>(
        self,
        rng: R,
    ) -> Box<dyn Bot<crate::games::tolerance::Hand>> {
        match self {
            BotLevel::Easy => {
                let mut b = tolerance::HeuristicBot::new(rng);
                b.noise = 0.25;
                b.bluff = 0.15;
                Box::new(b)
            }
            BotLevel::Normal => Box::new(tolerance::HeuristicBot::new(rng)),
            BotLevel::Hard => Box::new(montecarlo::MonteCarloBot::new(rng)),
        }
    }

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
    use crate::engine::sim::{play_out, Oracle};
    use crate::engine::Seat;
    use crate::games::tolerance::{Hand, Table, Variant};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn levels_parse_and_print() {
        for l in BotLevel::ALL {
            assert_eq!(l.name().parse::<BotLevel>(), Ok(l));
        }
        assert_eq!("HARD".parse::<BotLevel>(), Ok(BotLevel::Hard));
        assert!("expert".parse::<BotLevel>().is_err());
        assert_eq!(BotLevel::default(), BotLevel::Normal);
    }

    /// Every level, on every variant axis and table size, only ever picks a legal move.
    #[test]
    fn every_level_plays_only_legal_moves() {
        let variants = ["standard", "super-ace", "card-again", "cash", "tournament"];
        let mut seed = 0u64;
        for name in variants {
            let variant = Variant::builtin(name).expect("built-in");
            for players in [2u8, 3, 6] {
                let seats: Vec<(Seat, Option<u64>)> = (0..players).map(|s| (s, None)).collect();
                let setup = Table::new(variant.clone(), &seats, 0)
                    .unwrap()
                    .next_hand()
                    .unwrap();
                let mut bots: Vec<Box<dyn Bot<Hand>>> = (0..players)
                    .map(|s| {
                        seed += 1;
                        BotLevel::ALL[s as usize % 3].bot(StdRng::seed_from_u64(seed))
                    })
                    .collect();
                for h in 0..4u64 {
                    let mut hand = Hand::new(&setup).unwrap();
                    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed * 100 + h));
                    let mut moves = 0;
                    play_out(&mut hand, &mut oracle, 10_000, |g: &Hand, seat, legal| {
                        let a = bots[seat as usize].choose(&g.view(Some(seat)), &legal);
                        assert!(legal.contains(&a), "{name}: {a:?} not in {legal:?}");
                        moves += 1;
                        a
                    })
                    .unwrap();
                    assert!(moves > 0);
                }
            }
        }
    }
}
