//! The bot-against-random measurement every raced solitaire reports (`benches/solitaires.rs`,
//! BENCHMARKS.md): the game's bot and a random player race the same deals.

use super::game::{Race, RaceView};
use super::solitaire::{Solitaire, Status};
use crate::bots::Bot;
use crate::engine::sim::{play_out, Oracle};
use crate::engine::{Game, Seat};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The random player the solitaires' bots are measured against: uniform over the legal moves
/// other than giving up (one that gives up at random ends nearly every game on its first moves
/// and would flatter any bot).
pub struct RandomPlayer<R> {
    rng: R,
}

impl<R: Rng> RandomPlayer<R> {
    pub fn new(rng: R) -> Self {
        RandomPlayer { rng }
    }
}

impl<S: Solitaire, R: Rng + Send> Bot<Race<S>> for RandomPlayer<R> {
    fn choose(&mut self, _view: &RaceView<S>, legal: &[S::Action]) -> S::Action {
        let playing: Vec<&S::Action> = legal.iter().filter(|a| **a != S::GIVE_UP).collect();
        match playing.as_slice() {
            [] => legal[self.rng.gen_range(0..legal.len())].clone(),
            some => some[self.rng.gen_range(0..some.len())].clone(),
        }
    }

    fn name(&self) -> &str {
        "random"
    }
}

/// The move `judge` weighs best, one of the best at random when several weigh the same (within
/// 1e-9, so that rounding does not decide a tie).
pub fn best_judged<A: Clone>(legal: &[A], rng: &mut impl Rng, judge: impl Fn(&A) -> f64) -> A {
    let mut best: Vec<&A> = Vec::new();
    let mut top = f64::NEG_INFINITY;
    for a in legal {
        let w = judge(a);
        if w > top + 1e-9 {
            top = w;
            best = vec![a];
        } else if (w - top).abs() <= 1e-9 {
            best.push(a);
        }
    }
    best[rng.gen_range(0..best.len())].clone()
}

/// A game's bot and the random player on the same deals (a two-entrant race per deal, so both
/// play the same cards): mean scores with their standard errors, and win rates.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    pub deals: u64,
    pub bot_mean: f64,
    pub bot_se: f64,
    pub random_mean: f64,
    pub random_se: f64,
    /// Share of deals the entrant won its solitaire (escaped the dungeon, played every card).
    pub bot_wins: f64,
    pub random_wins: f64,
    /// Mean of (bot − random) per deal, and its standard error.
    pub margin: f64,
    pub margin_se: f64,
}

/// Mean and its standard error.
pub fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, (var / n).sqrt())
}

/// Plays `deals` two-entrant races of `setup`, the bot `bot` makes in seat 0 against the
/// one `random` makes in seat 1, every deal and each bot's randomness drawn from `seed`:
/// reproducible. A seat won its solitaire when its game ended as `win`.
pub fn duplicate<S: Solitaire>(
    deals: u64,
    seed: u64,
    setup: &S::Setup,
    bot: impl Fn(StdRng) -> Box<dyn Bot<Race<S>>>,
    random: impl Fn(StdRng) -> Box<dyn Bot<Race<S>>>,
    win: S::End,
) -> Duplicate {
    let won = |g: &Race<S>, seat: Seat| {
        g.entrant(seat)
            .is_some_and(|e| e.status == Status::Ended(win))
    };
    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed));
    let (mut smart_scores, mut random_scores, mut diff) = (Vec::new(), Vec::new(), Vec::new());
    let (mut smart_won, mut random_won) = (0u64, 0u64);
    for k in 0..deals {
        let mut g = Race::<S>::new(setup).expect("a race of two");
        let mut smart = bot(StdRng::seed_from_u64(seed ^ k));
        // Another stream than the bot's, the same for every bot measured.
        let mut baseline = random(StdRng::seed_from_u64(seed ^ (k + (1 << 40))));
        let (o, _) = play_out(&mut g, &mut oracle, 100_000, |g, seat, legal| {
            let v = g.view(Some(seat));
            if seat == 0 {
                smart.choose(&v, &legal)
            } else {
                baseline.choose(&v, &legal)
            }
        })
        .expect("a race ends");
        let score = |s: Seat| {
            o.payoffs
                .iter()
                .find(|(x, _)| *x == s)
                .map(|x| x.1)
                .unwrap_or(0) as f64
        };
        smart_scores.push(score(0));
        random_scores.push(score(1));
        diff.push(score(0) - score(1));
        smart_won += u64::from(won(&g, 0));
        random_won += u64::from(won(&g, 1));
    }
    let (bot_mean, bot_se) = mean_se(&smart_scores);
    let (random_mean, random_se) = mean_se(&random_scores);
    let (margin, margin_se) = mean_se(&diff);
    Duplicate {
        deals,
        bot_mean,
        bot_se,
        random_mean,
        random_se,
        bot_wins: smart_won as f64 / deals as f64,
        random_wins: random_won as f64 / deals as f64,
        margin,
        margin_se,
    }
}
