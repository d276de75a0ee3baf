//! A sensible Tolerance bot: it estimates its chance to win from what its view shows — its own
//! points, the opponents' public rolls and the number of their hidden cards, and the rolls and
//! cards still to come — and bets, calls, folds and picks Tolerance numbers by that estimate.

use super::game::{Tolerance, ToleranceView};
use super::hand::{Action, Hand, Phase};
use super::montecarlo::MonteCarloBot;
use super::view::HandView;
use crate::bots::{Bot, BotLevel};
use crate::cards::PlayingCard;
use rand::Rng;

/// A bot of `level` for one hand, drawing its randomness from `rng`: the heuristic with noise
/// and more bluffs (easy), the heuristic (normal), Monte-Carlo worlds (hard).
pub fn level_bot<R: Rng + Send + 'static>(level: BotLevel, rng: R) -> Box<dyn Bot<Hand>> {
    match level {
        BotLevel::Easy => {
            let mut b = HeuristicBot::new(rng);
            b.noise = 0.25;
            b.bluff = 0.15;
            Box::new(b)
        }
        BotLevel::Normal => Box::new(HeuristicBot::new(rng)),
        BotLevel::Hard => Box::new(MonteCarloBot::new(rng)),
    }
}

/// A hand bot playing a whole table: it decides from the hand in play.
pub struct TableBot(pub Box<dyn Bot<Hand>>);

impl Bot<Tolerance> for TableBot {
    fn choose(&mut self, view: &ToleranceView, legal: &[Action]) -> Action {
        match &view.hand {
            Some(h) => self.0.choose(h, legal),
            None => legal[0],
        }
    }
    fn name(&self) -> &str {
        self.0.name()
    }
}

/// Mean and variance of one unseen card (A..K uniformly: 1..=13).
const CARD_MEAN: f64 = 7.0;
const CARD_VAR: f64 = 14.0;

pub struct HeuristicBot<R> {
    rng: R,
    /// Chance of a small bet or raise with a weak hand when checking is free.
    pub bluff: f64,
    /// Chance of a uniformly random legal move instead of the considered one (the easy level).
    pub noise: f64,
}

impl<R: Rng> HeuristicBot<R> {
    pub fn new(rng: R) -> Self {
        HeuristicBot {
            rng,
            bluff: 0.05,
            noise: 0.0,
        }
    }
}

/// Standard normal CDF (Abramowitz–Stegun 7.1.26 via erf), plenty for a betting heuristic.
fn phi(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs() / std::f64::consts::SQRT_2);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-(x * x) / 2.0).exp();
    if x >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// Best expected gain of one roll of a d`sides` (passing is worth 0), and that roll's variance.
fn best_roll(sides: u8) -> (f64, f64) {
    let s = sides as f64;
    (1..=sides)
        .map(|t| {
            let t = t as f64;
            let p = (s - t + 1.0) / s;
            let mean = t * (2.0 * p - 1.0);
            (mean, t * t - mean * mean)
        })
        .fold((0.0, 0.0), |best, x| if x.0 > best.0 { x } else { best })
}

/// What is still to come for every live player, from the view's phase.
struct Future {
    rolls: f64,
    cards: f64,
}

fn future(view: &HandView, my_roll_done: bool) -> Future {
    let card_again = view.rules.card_again;
    let (rolls, deals) = match view.phase {
        Phase::Deal | Phase::Bet(0) => (2.0, 2.0),
        Phase::Roll(0) => (if my_roll_done { 1.0 } else { 2.0 }, 2.0),
        Phase::CardAgain(0) | Phase::Bet(1) => (1.0, 1.0),
        Phase::Roll(_) => (if my_roll_done { 0.0 } else { 1.0 }, 1.0),
        _ => (0.0, 0.0),
    };
    Future {
        rolls,
        cards: if card_again { deals } else { 0.0 },
    }
}

impl<R: Rng> HeuristicBot<R> {
    /// Chance that final points `mine` (± `my_var`) beat every live opponent.
    fn win_chance(view: &HandView, mine: f64, my_var: f64) -> f64 {
        let me = view.viewer;
        let (roll_ev, roll_var) = best_roll(view.rules.die_sides);
        let fut = future(view, true);
        let mut p = 1.0;
        for o in view.live().filter(|o| Some(o.seat) != me) {
            let hidden = o.cards.iter().filter(|c| c.is_none()).count() as f64 + fut.cards;
            let shown: f64 = o
                .cards
                .iter()
                .flatten()
                .map(|c| PlayingCard::from_id(*c).rank as f64)
                .sum();
            let mean = shown + hidden * CARD_MEAN + o.roll_delta as f64 + fut.rolls * roll_ev;
            let var = hidden * CARD_VAR + fut.rolls * roll_var;
            p *= phi((mine - mean) / (my_var + var + 1.0).sqrt());
        }
        p
    }

    fn my_estimate(view: &HandView, my_roll_done: bool) -> (f64, f64) {
        let Some(me) = view.me() else {
            return (0.0, 1.0);
        };
        let (roll_ev, roll_var) = best_roll(view.rules.die_sides);
        let fut = future(view, my_roll_done);
        let known = me.points.unwrap_or(0) as f64;
        (
            known + fut.cards * CARD_MEAN + fut.rolls * roll_ev,
            fut.cards * CARD_VAR + fut.rolls * roll_var,
        )
    }

    fn choose_roll(&mut self, view: &HandView, legal: &[Action]) -> Action {
        let s = view.rules.die_sides;
        let Some(me) = view.me() else {
            return Action::Pass;
        };
        let base = me.points.unwrap_or(0) as f64;
        // The rest of the hand after this roll.
        let (after_mean, after_var) = {
            let (m, v) = Self::my_estimate(view, true);
            (m - base, v)
        };
        let aces = me
            .cards
            .iter()
            .flatten()
            .filter(|c| PlayingCard::from_id(**c).rank == 1)
            .count();
        let upgrades = me
            .rolls
            .iter()
            .filter(|r| r.target == s && r.die == s)
            .count();
        let super_ace = view.rules.super_ace && aces > upgrades;
        let score = |points: f64| Self::win_chance(view, points + after_mean, after_var);
        let mut best = (score(base), Action::Pass);
        for &a in legal {
            if let Action::Roll { target } = a {
                let t = target as f64;
                let p = (s - target + 1) as f64 / s as f64;
                let bonus = if super_ace && target == s { 13.0 } else { 0.0 };
                let v = p * score(base + t + bonus) + (1.0 - p) * score(base - t);
                if v > best.0 + 1e-9 {
                    best = (v, a);
                }
            }
        }
        best.1
    }

    fn choose_bet(&mut self, view: &HandView, legal: &[Action]) -> Action {
        let (mean, var) = Self::my_estimate(view, false);
        let p = Self::win_chance(view, mean, var);
        let to_call = view.to_call as f64;
        let pot = view.pot as f64;
        let raises: Vec<u64> = legal
            .iter()
            .filter_map(|a| match a {
                Action::Raise { to } => Some(*to),
                _ => None,
            })
            .collect();
        let pick_raise = |fraction: f64| -> Option<Action> {
            let want = view.current_bet as f64 + fraction * (pot + to_call);
            raises
                .iter()
                .min_by(|a, b| {
                    (**a as f64 - want)
                        .abs()
                        .partial_cmp(&(**b as f64 - want).abs())
                        .expect("finite")
                })
                .map(|&to| Action::Raise { to })
        };
        let live = view.live().count() as f64;
        let strong = 1.0 / live + (1.0 - 1.0 / live) * 0.55;
        if p > strong {
            if let Some(r) = pick_raise(if p > 0.85 { 1.0 } else { 0.6 }) {
                // Do not re-raise forever: once much is in, just call.
                if view.me().is_some_and(|m| (m.committed as f64) < pot * 0.6) || p > 0.9 {
                    return r;
                }
            }
        }
        if to_call == 0.0 {
            if self.rng.gen_bool(self.bluff) {
                if let Some(r) = pick_raise(0.5) {
                    return r;
                }
            }
            return Action::Check;
        }
        // Call when the chance to win beats the price (with a little optimism for future rolls).
        if p * (pot + to_call) >= to_call * 0.9 {
            Action::Call
        } else {
            Action::Fold
        }
    }
}

impl<R: Rng + Send> Bot<Hand> for HeuristicBot<R> {
    fn choose(&mut self, view: &HandView, legal: &[Action]) -> Action {
        if self.noise > 0.0 && self.rng.gen_bool(self.noise) {
            return legal[self.rng.gen_range(0..legal.len())];
        }
        let a = match view.phase {
            Phase::Roll(_) => self.choose_roll(view, legal),
            _ => self.choose_bet(view, legal),
        };
        if legal.contains(&a) {
            a
        } else {
            legal[0]
        }
    }
    fn name(&self) -> &str {
        "heuristic"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{play_out, Oracle};
    use crate::engine::{Game, Seat};
    use crate::games::tolerance::{Table, Variant};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn normal_cdf_is_sane() {
        assert!((phi(0.0) - 0.5).abs() < 1e-6);
        assert!((phi(1.96) - 0.975).abs() < 1e-3);
        assert!((phi(-1.96) - 0.025).abs() < 1e-3);
    }

    #[test]
    fn best_d10_roll_is_three() {
        let (ev, _) = best_roll(10);
        assert!((ev - 1.8).abs() < 1e-9, "{ev}");
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
                        level_bot(BotLevel::ALL[s as usize % 3], StdRng::seed_from_u64(seed))
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
