//! The Perudo bot. It sees only its seat's view: its own dice, the number of dice on the table,
//! and the public log. The chance a bid is true is a binomial tail over the dice it cannot see,
//! given how many of its own dice already match. It doubts when doubting is more likely to win
//! than its best raise is to hold.

use super::game::{self as perudo, count_for, Bid};
use crate::bots::Bot;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::arena::wins_against_random;
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
    fn perudo_bot_beats_random_players() {
        let won = wins_against_random(
            400,
            |_| perudo::Perudo::new(&perudo::Setup::standard(4)).unwrap(),
            PerudoBot::new(StdRng::seed_from_u64(5)),
        );
        // A random player would win a quarter of 4-player games.
        println!("perudo bot won {won} of 400 four-player games against random players");
        assert!(won > 200, "won {won} of 400");
    }
}
