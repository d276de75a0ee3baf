//! The strongest Tolerance bot: it estimates everything by sampling what its view does not show.
//!
//! Each decision draws a few hundred *worlds* consistent with the view: the opponents' hidden
//! cards from the cards not seen, the Card Again cards still to come, and every roll still to be
//! made. Worlds are weighted by how likely each opponent's bets are given its cards there (a raise
//! is more likely from a strong hand), so the bot reads bets instead of ignoring them.
//!
//! - Rolls: the chance of winning at showdown for every Tolerance number (and for passing) is
//!   exact over the die and averaged over the worlds; the bot takes the best, so it gambles when
//!   behind and protects a lead when ahead.
//! - Bets: every legal move is scored by its expected chips over the worlds. A raise is answered,
//!   in each world, by each opponent calling only when its own chance (judged from what *it* can
//!   see) pays the price; so a raise earns when it is called by worse hands or folds better ones,
//!   and bluffs appear wherever folds are likely enough.

use super::hand::{Action, Hand, LogEntry, Phase};
use super::view::HandView;
use crate::bots::Bot;
use crate::cards::PlayingCard;
use rand::Rng;

pub struct MonteCarloBot<R> {
    rng: R,
    samples: usize,
}

impl<R: Rng> MonteCarloBot<R> {
    pub fn new(rng: R) -> Self {
        Self::with_samples(rng, 300)
    }
    /// More samples estimate better and cost linearly more time.
    pub fn with_samples(rng: R, samples: usize) -> Self {
        MonteCarloBot {
            rng,
            samples: samples.max(16),
        }
    }
}

/// Tolerance number with the best expected points on a d`sides` (3 on a d10).
pub fn best_ev_target(sides: u8) -> u8 {
    (1..=sides)
        .max_by_key(|&t| {
            // t·(2p−1) with p = (s−t+1)/s, scaled by s to stay in integers.
            let s = sides as i64;
            let t = t as i64;
            t * (2 * (s - t + 1) - s)
        })
        .unwrap_or(1)
}

/// Chance that a roll with Tolerance number `target` succeeds on a d`sides`.
pub fn success_chance(sides: u8, target: u8) -> f64 {
    (sides as f64 - target as f64 + 1.0) / sides as f64
}

/// Roll rounds still to come for a player, and cards still to be dealt to everyone.
fn remaining(view: &HandView, seat_index: usize, acted_index: Option<usize>) -> (u8, u8) {
    // In a roll round, players before the one to act (in hand order) have had their turn.
    let acted = |round: u8| match (view.phase, acted_index) {
        (Phase::Roll(r), Some(a)) if r == round => seat_index < a,
        _ => false,
    };
    let rolls = match view.phase {
        Phase::Deal | Phase::Bet(0) => 2,
        Phase::Roll(0) => 1 + u8::from(!acted(0)),
        Phase::CardAgain(0) | Phase::Bet(1) => 1,
        Phase::Roll(1) => u8::from(!acted(1)),
        _ => 0,
    };
    let cards = if view.rules.card_again {
        match view.phase {
            Phase::Deal | Phase::Bet(0) | Phase::Roll(0) => 2,
            Phase::CardAgain(0) | Phase::Bet(1) | Phase::Roll(1) => 1,
            _ => 0,
        }
    } else {
        0
    };
    (rolls, cards)
}

/// One opponent still in the hand, as the view shows it.
struct Opp {
    seat: u8,
    /// Chips to match a bet level, capped by the stack.
    bet: u64,
    stack: u64,
    shown_ranks: Vec<u8>,
    hidden: usize,
    roll_delta: i64,
    top_hits: usize,
    future_rolls: u8,
}

/// One sampled world.
struct World {
    weight: f64,
    /// My final points, without the roll being decided now (if any).
    me: i64,
    /// Each opponent's final points (same order as `Opp`).
    opp: Vec<i64>,
    /// Each opponent's own estimate of its chance to win, from what it can see.
    opp_equity: Vec<f64>,
}

struct Estimate {
    worlds: Vec<World>,
    opps: Vec<Opp>,
}

fn phi(x: f64) -> f64 {
    // Abramowitz–Stegun 7.1.26: a few decimals are plenty for a price comparison.
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

fn ace_bonus(ranks: &[u8], top_hits: usize, super_ace: bool) -> i64 {
    if !super_ace {
        return 0;
    }
    let aces = ranks.iter().filter(|r| **r == 1).count();
    13 * aces.min(top_hits) as i64
}

impl<R: Rng> MonteCarloBot<R> {
    fn draw(&mut self, pool: &mut [u8], taken: &mut usize) -> u8 {
        // Partial Fisher–Yates: the first `taken` entries are the cards already drawn this world.
        if *taken >= pool.len() {
            // More cards than the deck holds cannot be dealt; the mean rank stands in.
            return 7;
        }
        let j = self.rng.gen_range(*taken..pool.len());
        pool.swap(*taken, j);
        *taken += 1;
        pool[*taken - 1]
    }

    fn roll(&mut self, sides: u8, target: u8) -> i64 {
        if self.rng.gen_range(1..=sides) >= target {
            target as i64
        } else {
            -(target as i64)
        }
    }

    /// Samples worlds consistent with `view`. `deciding_roll`: the viewer is choosing a roll now,
    /// so its own current roll is left out of `World::me`.
    fn estimate(&mut self, view: &HandView, deciding_roll: bool) -> Option<Estimate> {
        let me = view.me()?;
        let sides = view.rules.die_sides;
        let ev_target = best_ev_target(sides);
        let acted_index = view
            .to_act
            .and_then(|s| view.players.iter().position(|p| p.seat == s));
        let my_index = view.players.iter().position(|p| p.seat == me.seat)?;
        // Ranks still unseen by this viewer.
        let mut counts = [4 * view.rules.decks.max(1) as i32; 14];
        counts[0] = 0;
        for p in &view.players {
            for c in p.cards.iter().flatten() {
                counts[PlayingCard::from_id(*c).rank as usize] -= 1;
            }
        }
        let mut pool: Vec<u8> = (1..=13u8)
            .flat_map(|r| std::iter::repeat_n(r, counts[r as usize].max(0) as usize))
            .collect();
        let opps: Vec<Opp> = view
            .players
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.folded && p.seat != me.seat)
            .map(|(i, p)| Opp {
                seat: p.seat,
                bet: p.bet,
                stack: p.stack,
                shown_ranks: p
                    .cards
                    .iter()
                    .flatten()
                    .map(|c| PlayingCard::from_id(*c).rank)
                    .collect(),
                hidden: p.cards.iter().filter(|c| c.is_none()).count(),
                roll_delta: p.roll_delta,
                top_hits: p
                    .rolls
                    .iter()
                    .filter(|r| r.target == sides && r.die == sides)
                    .count(),
                future_rolls: remaining(view, i, acted_index).0,
            })
            .collect();
        let my_acted = if deciding_roll {
            // The roll being chosen is handled exactly by the caller.
            Some(my_index + 1)
        } else {
            acted_index
        };
        let (my_rolls, future_cards) = remaining(view, my_index, my_acted);
        let my_now = me.points.unwrap_or(0);
        let my_card_count = me.cards.len();
        let my_public_delta = me.roll_delta;
        // What an opponent believes about my points: my public rolls and cards of mine it cannot
        // see, drawn from the whole unseen pool. Sorted, for quick comparison.
        let reference: Vec<i64> = {
            let mut pool_for_them = pool.clone();
            for c in me.cards.iter().flatten() {
                pool_for_them.push(PlayingCard::from_id(*c).rank);
            }
            let mut v: Vec<i64> = (0..64)
                .map(|_| {
                    let mut taken = 0;
                    let sum: i64 = (0..my_card_count)
                        .map(|_| self.draw(&mut pool_for_them, &mut taken) as i64)
                        .sum();
                    sum + my_public_delta
                })
                .collect();
            v.sort_unstable();
            v
        };
        // Spread of what is still to come for one player, for the opponents' own estimates.
        let roll_var = {
            let t = ev_target as f64;
            let p = success_chance(sides, ev_target);
            let m = t * (2.0 * p - 1.0);
            t * t - m * m
        };
        let mut worlds = Vec::with_capacity(self.samples);
        for _ in 0..self.samples {
            let mut taken = 0;
            let mut opp_points = Vec::with_capacity(opps.len());
            let mut opp_equity = Vec::with_capacity(opps.len());
            for o in &opps {
                let mut ranks = o.shown_ranks.clone();
                for _ in 0..o.hidden {
                    let r = self.draw(&mut pool, &mut taken);
                    ranks.push(r);
                }
                let now: i64 = ranks.iter().map(|r| *r as i64).sum::<i64>()
                    + o.roll_delta
                    + ace_bonus(&ranks, o.top_hits, view.rules.super_ace);
                // Its own chance as it sees it: its points against my possible points, both with
                // the same kind of future still to come.
                let fut_var =
                    2.0 * (o.future_rolls as f64 * roll_var + future_cards as f64 * 14.0) + 4.0;
                let sd = fut_var.sqrt();
                let eq = reference
                    .iter()
                    .step_by(4)
                    .map(|s| phi((now - s) as f64 / sd))
                    .sum::<f64>()
                    / reference.len().div_ceil(4) as f64;
                let mut fin = now;
                for _ in 0..future_cards {
                    fin += self.draw(&mut pool, &mut taken) as i64;
                }
                for _ in 0..o.future_rolls {
                    fin += self.roll(sides, ev_target);
                }
                opp_points.push(fin);
                opp_equity.push(eq);
            }
            let mut mine = my_now;
            for _ in 0..future_cards {
                mine += self.draw(&mut pool, &mut taken) as i64;
            }
            for _ in 0..my_rolls {
                mine += self.roll(sides, ev_target);
            }
            worlds.push(World {
                weight: 1.0,
                me: mine,
                opp: opp_points,
                opp_equity,
            });
        }
        weigh_by_bets(&mut worlds, &opps, view);
        Some(Estimate { worlds, opps })
    }

    fn choose_roll(&mut self, view: &HandView, legal: &[Action]) -> Action {
        let Some(est) = self.estimate(view, true) else {
            return Action::Pass;
        };
        let sides = view.rules.die_sides;
        let me = view.me().expect("estimate needs a seat");
        let super_ace_open = view.rules.super_ace && {
            let aces = me
                .cards
                .iter()
                .flatten()
                .filter(|c| PlayingCard::from_id(**c).rank == 1)
                .count();
            let hits = me
                .rolls
                .iter()
                .filter(|r| r.target == sides && r.die == sides)
                .count();
            aces > hits
        };
        let total: f64 = est.worlds.iter().map(|w| w.weight).sum();
        // Chance to win (ties split) in a world if my points move by `d`.
        let win = |w: &World, d: i64| -> f64 {
            let mine = w.me + d;
            let mut share = 1.0;
            let mut tied = 1.0;
            for &o in &w.opp {
                if o > mine {
                    share = 0.0;
                    break;
                }
                if o == mine {
                    tied += 1.0;
                }
            }
            share / tied
        };
        let chance = |d_win: i64, d_lose: i64, p: f64| -> f64 {
            est.worlds
                .iter()
                .map(|w| w.weight * (p * win(w, d_win) + (1.0 - p) * win(w, d_lose)))
                .sum::<f64>()
                / total
        };
        let mut best = (chance(0, 0, 1.0), Action::Pass);
        for &a in legal {
            let Action::Roll { target } = a else {
                continue;
            };
            let t = target as i64;
            let bonus = if super_ace_open && target == sides {
                13
            } else {
                0
            };
            let v = chance(t + bonus, -t, success_chance(sides, target));
            // Ties in the chance go to the smaller risk: a lower number, or passing.
            if v > best.0 + 1e-9 {
                best = (v, a);
            }
        }
        best.1
    }

    fn choose_bet(&mut self, view: &HandView, legal: &[Action]) -> Action {
        let Some(est) = self.estimate(view, false) else {
            return legal[0];
        };
        let me = view.me().expect("estimate needs a seat");
        let pot = view.pot as f64;
        let total: f64 = est.worlds.iter().map(|w| w.weight).sum();
        // My share of a pot in a world against the opponents in `against`.
        let share = |w: &World, against: &dyn Fn(usize) -> bool| -> f64 {
            let mut tied = 1.0;
            for (k, &o) in w.opp.iter().enumerate() {
                if !against(k) {
                    continue;
                }
                if o > w.me {
                    return 0.0;
                }
                if o == w.me {
                    tied += 1.0;
                }
            }
            1.0 / tied
        };
        let showdown: f64 = est
            .worlds
            .iter()
            .map(|w| w.weight * share(w, &|_| true))
            .sum::<f64>()
            / total;
        let mut best: Option<(f64, Action)> = None;
        for &a in legal {
            let ev = match a {
                Action::Fold => 0.0,
                Action::Check => showdown * pot,
                Action::Call => {
                    let c = view.to_call as f64;
                    showdown * (pot + c) - c
                }
                Action::Raise { to } => {
                    let add = to.saturating_sub(me.bet).min(me.stack) as f64;
                    let after = pot + add;
                    est.worlds
                        .iter()
                        .map(|w| {
                            // Who calls in this world: those whose own chance pays the price.
                            let mut called = 0.0;
                            let calls: Vec<bool> = est
                                .opps
                                .iter()
                                .enumerate()
                                .map(|(k, o)| {
                                    let c = to.saturating_sub(o.bet).min(o.stack) as f64;
                                    // An opponent without chips to add is in regardless.
                                    if c <= 0.0 || o.stack == 0 {
                                        return true;
                                    }
                                    let yes = w.opp_equity[k] * (after + c) >= c;
                                    if yes {
                                        called += c;
                                    }
                                    yes
                                })
                                .collect();
                            let v = if calls.iter().any(|c| *c) {
                                share(w, &|k| calls[k]) * (after + called) - add
                            } else {
                                pot
                            };
                            w.weight * v
                        })
                        .sum::<f64>()
                        / total
                }
                _ => continue,
            };
            if best.is_none_or(|(b, _)| ev > b + 1e-9) {
                best = Some((ev, a));
            }
        }
        best.map(|(_, a)| a).unwrap_or(legal[0])
    }
}

impl<R: Rng + Send> Bot<Hand> for MonteCarloBot<R> {
    fn choose(&mut self, view: &HandView, legal: &[Action]) -> Action {
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
        "montecarlo"
    }
}

/// Reads the opponents' bets: each world is weighted by how likely the bets each opponent made
/// are, given its hand there.
fn weigh_by_bets(worlds: &mut [World], opps: &[Opp], view: &HandView) {
    // The model is deliberately mild (a raise is a few times likelier from a strong hand than
    // a weak one) so bluffs do not fool it badly.
    for (k, o) in opps.iter().enumerate() {
        let (mut raises, mut calls, mut checks) = (0i32, 0i32, 0i32);
        for e in &view.log {
            if let LogEntry::Act { seat, action } = e {
                if *seat == o.seat {
                    match action {
                        Action::Raise { .. } => raises += 1,
                        Action::Call => calls += 1,
                        Action::Check => checks += 1,
                        _ => {}
                    }
                }
            }
        }
        if raises + calls + checks == 0 {
            continue;
        }
        for w in worlds.iter_mut() {
            let s = w.opp_equity[k];
            w.weight *= (0.25 + s).powi(raises)
                * (0.6 + 0.4 * s).powi(calls)
                * (1.2 - 0.4 * s).powi(checks);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_ev_target_on_a_d10_is_three() {
        assert_eq!(best_ev_target(10), 3);
        assert_eq!(best_ev_target(6), 2);
    }

    #[test]
    fn success_chance_counts_faces_at_or_above() {
        assert!((success_chance(10, 1) - 1.0).abs() < 1e-12);
        assert!((success_chance(10, 10) - 0.1).abs() < 1e-12);
        assert!((success_chance(6, 4) - 0.5).abs() < 1e-12);
    }
}
