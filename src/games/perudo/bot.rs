//! Bots for the private-dice bluffing games. Each sees only its seat's view: its own dice, the
//! number of dice or the claim on the table, and the public log.
//!
//! - Perudo: the chance a bid is true is a binomial tail over the dice it cannot see, given how
//!   many of its own dice already match. It doubts when doubting is more likely to win than its
//!   best raise is to hold.
//! - Mia: the chance a claim is true is the chance a fair roll reaches it under the ranking. It
//!   tells the truth when the truth is a legal claim, bluffs as low as allowed otherwise, and
//!   challenges claims a fair roll reaches less than half the time.

use super::Bot;
use crate::games::mia::{self, Ranking, Throw};
use crate::games::perudo::{self, count_for, Bid};
use rand::Rng;

/// P(X ≥ k) for X ~ Binomial(n, p).
pub fn binomial_at_least(n: u16, p: f64, k: i32) -> f64 {
    if k <= 0 {
        return 1.0;
    }
    if k as u16 > n {
        return 0.0;
    }
    let mut term = (1.0 - p).powi(n as i32); // P(X = 0)
    let mut below = 0.0;
    for i in 0..k as u16 {
        below += term;
        term *= (n - i) as f64 / (i + 1) as f64 * p / (1.0 - p);
    }
    (1.0 - below).clamp(0.0, 1.0)
}

pub struct PerudoBot<R> {
    rng: R,
    /// Bids whose chance is within this of the best are picked among at random (less readable).
    pub spread: f64,
}

impl<R: Rng> PerudoBot<R> {
    pub fn new(rng: R) -> Self {
        PerudoBot { rng, spread: 0.05 }
    }
}

/// The chance that `bid` is true, for a player who sees `own` and not `unseen` other dice.
pub fn perudo_bid_chance(bid: Bid, putana: bool, own: &[u8], unseen: u16) -> f64 {
    let known = count_for(bid, putana, own.iter().copied()) as i32;
    // An unseen die matches with its face, or as a wild one outside Putana and off-ones bids.
    let p = if putana || bid.face == 1 {
        1.0 / 6.0
    } else {
        1.0 / 3.0
    };
    binomial_at_least(unseen, p, bid.quantity as i32 - known)
}

impl<R: Rng + Send> Bot<perudo::Perudo> for PerudoBot<R> {
    fn choose(&mut self, view: &perudo::PerudoView, legal: &[perudo::Action]) -> perudo::Action {
        let own: Vec<u8> = view.me().and_then(|p| p.dice.clone()).unwrap_or_default();
        let unseen = view.total_dice - own.len() as u16;
        let chance = |b: Bid| perudo_bid_chance(b, view.putana, &own, unseen);
        let bids: Vec<(Bid, f64)> = legal
            .iter()
            .filter_map(|a| match a {
                perudo::Action::Bid(b) => Some((*b, chance(*b))),
                perudo::Action::Dudo => None,
            })
            .collect();
        let best = bids.iter().map(|b| b.1).fold(0.0, f64::max);
        if let Some(standing) = view.bid {
            if legal.contains(&perudo::Action::Dudo) && 1.0 - chance(standing) > best {
                return perudo::Action::Dudo;
            }
        }
        // Among the near-best bids, the lowest few: a big jump only helps the doubter.
        let near: Vec<Bid> = bids
            .iter()
            .filter(|b| b.1 >= best - self.spread)
            .map(|b| b.0)
            .take(3)
            .collect();
        match near.len() {
            0 => legal[legal.len() - 1],
            n => perudo::Action::Bid(near[self.rng.gen_range(0..n)]),
        }
    }
    fn name(&self) -> &str {
        "perudo-odds"
    }
}

/// The chance that two fair dice reach at least `t` under `ranking`.
pub fn mia_reach_chance(ranking: Ranking, t: Throw) -> f64 {
    let r = ranking.rank(t);
    let mut hits = 0;
    for a in 1..=6u8 {
        for b in 1..=6u8 {
            if ranking.rank(Throw::of_dice(a, b)) >= r {
                hits += 1;
            }
        }
    }
    hits as f64 / 36.0
}

pub struct MiaBot<R> {
    rng: R,
    /// Chance of passing rather than rerolling a claim it believes.
    pub pass_rate: f64,
}

impl<R: Rng> MiaBot<R> {
    pub fn new(rng: R) -> Self {
        MiaBot {
            rng,
            pass_rate: 0.3,
        }
    }
}

impl<R: Rng + Send> Bot<mia::Mia> for MiaBot<R> {
    fn choose(&mut self, view: &mia::MiaView, legal: &[mia::Action]) -> mia::Action {
        use mia::Action as A;
        let ranking = view.ranking;
        let cup = view.cup.as_ref();
        let mine = cup.and_then(|c| c.dice).map(|d| Throw::of_dice(d[0], d[1]));
        let claims: Vec<Throw> = legal
            .iter()
            .filter_map(|a| match a {
                A::Claim(t) => Some(*t),
                _ => None,
            })
            .collect();
        if !claims.is_empty() {
            // Just rolled: the truth if it is allowed, else the weakest allowed bluff.
            if let Some(truth) = mine.map(A::Claim).filter(|a| legal.contains(a)) {
                return truth;
            }
            let weakest = claims.iter().min_by_key(|t| ranking.rank(**t));
            return A::Claim(*weakest.expect("non-empty"));
        }
        let claim = cup
            .and_then(|c| c.claim)
            .expect("a claim stands when responding");
        if let Some(actual) = mine {
            // The cup came back: this seat knows whether the claim holds.
            if ranking.rank(actual) < ranking.rank(claim) {
                return A::Challenge;
            }
            if let Some(raise) = legal.iter().find(|a| **a == A::Raise(actual)) {
                return *raise;
            }
            return A::Reroll;
        }
        let reach = mia_reach_chance(ranking, claim);
        if reach < 0.5 || !legal.contains(&A::Reroll) {
            if reach >= 0.5 && legal.contains(&A::Pass) {
                return A::Pass;
            }
            return A::Challenge;
        }
        if legal.contains(&A::Pass) && self.rng.gen_bool(self.pass_rate) {
            A::Pass
        } else {
            A::Reroll
        }
    }
    fn name(&self) -> &str {
        "mia-odds"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::RandomBot;
    use crate::engine::sim::{play_out, Oracle};
    use crate::engine::Game;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn binomial_tail_matches_hand_values() {
        assert_eq!(binomial_at_least(5, 0.5, 0), 1.0);
        assert_eq!(binomial_at_least(5, 0.5, 6), 0.0);
        assert!((binomial_at_least(2, 0.5, 1) - 0.75).abs() < 1e-12);
        assert!((binomial_at_least(3, 1.0 / 3.0, 3) - 1.0 / 27.0).abs() < 1e-12);
        assert!((binomial_at_least(10, 0.3, 4) - 0.350_389_2).abs() < 1e-6);
    }

    #[test]
    fn bid_chances_use_own_dice_and_wild_ones() {
        // Holding two threes and a one, "three threes" is certain.
        assert_eq!(
            perudo_bid_chance(
                Bid {
                    quantity: 3,
                    face: 3
                },
                false,
                &[3, 3, 1],
                10
            ),
            1.0
        );
        // In Putana the one does not help.
        let p = perudo_bid_chance(
            Bid {
                quantity: 3,
                face: 3,
            },
            true,
            &[3, 3, 1],
            10,
        );
        assert!((p - binomial_at_least(10, 1.0 / 6.0, 1)).abs() < 1e-12);
    }

    #[test]
    fn reach_chances_follow_the_ranking() {
        assert!((mia_reach_chance(Ranking::Traditional, Throw(31)) - 1.0).abs() < 1e-12);
        assert!((mia_reach_chance(Ranking::Traditional, Throw::MIA) - 2.0 / 36.0).abs() < 1e-12);
        // 66 is reached by 66, the doubles above it and Mia: 6 + 2 of 36 traditionally.
        assert!((mia_reach_chance(Ranking::Traditional, Throw(66)) - 8.0 / 36.0).abs() < 1e-12);
        assert!((mia_reach_chance(Ranking::Modern, Throw(66)) - 3.0 / 36.0).abs() < 1e-12);
    }

    /// Games won by seat 0 (the bot) against random players, over `games` games.
    fn wins<G: Game>(games: u32, new: impl Fn(u32) -> G, mut bot: impl Bot<G>) -> u32 {
        let mut random = RandomBot::new(StdRng::seed_from_u64(4));
        let mut won = 0;
        for i in 0..games {
            let mut g = new(i);
            // Private rolls are numbered per game, so each game gets its own chance source.
            let mut oracle = Oracle::new(StdRng::seed_from_u64(u64::from(i)));
            let (o, _) = play_out(&mut g, &mut oracle, 100_000, |g, seat, legal| {
                let view = g.view(Some(seat));
                if seat == 0 {
                    bot.choose(&view, &legal)
                } else {
                    Bot::<G>::choose(&mut random, &view, &legal)
                }
            })
            .unwrap();
            won += u32::from(o.winners == [0]);
        }
        won
    }

    #[test]
    fn perudo_bot_beats_random_players() {
        let won = wins(
            400,
            |_| perudo::Perudo::new(&perudo::Setup::standard(4)).unwrap(),
            PerudoBot::new(StdRng::seed_from_u64(5)),
        );
        // A random player would win a quarter of 4-player games.
        println!("perudo bot won {won} of 400 four-player games against random players");
        assert!(won > 200, "won {won} of 400");
    }

    #[test]
    fn mia_bot_beats_random_players() {
        for ranking in [Ranking::Traditional, Ranking::Modern] {
            let won = wins(
                400,
                |_| mia::Mia::new(&mia::Setup::standard(3, ranking)).unwrap(),
                MiaBot::new(StdRng::seed_from_u64(6)),
            );
            println!("mia bot ({ranking:?}) won {won} of 400 three-player games");
            assert!(won > 200, "{ranking:?}: won {won} of 400");
        }
    }
}
