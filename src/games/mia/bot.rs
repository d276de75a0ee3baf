//! The Mia bot. It sees only its seat's view: its own cup when it rolled, the claim on the
//! table, and the public log. The chance a claim is true is the chance a fair roll reaches it
//! under the ranking. It tells the truth when the truth is a legal claim, bluffs as low as
//! allowed otherwise, and challenges claims a fair roll reaches less than half the time.

use super::game::{self as mia, Ranking, Throw};
use crate::bots::Bot;
use rand::Rng;

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
    use crate::bots::arena::wins_against_random;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn reach_chances_follow_the_ranking() {
        assert!((mia_reach_chance(Ranking::Traditional, Throw(31)) - 1.0).abs() < 1e-12);
        assert!((mia_reach_chance(Ranking::Traditional, Throw::MIA) - 2.0 / 36.0).abs() < 1e-12);
        // 66 is reached by 66, the doubles above it and Mia: 6 + 2 of 36 traditionally.
        assert!((mia_reach_chance(Ranking::Traditional, Throw(66)) - 8.0 / 36.0).abs() < 1e-12);
        assert!((mia_reach_chance(Ranking::Modern, Throw(66)) - 3.0 / 36.0).abs() < 1e-12);
    }

    #[test]
    fn mia_bot_beats_random_players() {
        for ranking in [Ranking::Traditional, Ranking::Modern] {
            let won = wins_against_random(
                400,
                |_| mia::Mia::new(&mia::Setup::standard(3, ranking)).unwrap(),
                MiaBot::new(StdRng::seed_from_u64(6)),
            );
            println!("mia bot ({ranking:?}) won {won} of 400 three-player games");
            assert!(won > 200, "{ranking:?}: won {won} of 400");
        }
    }
}
