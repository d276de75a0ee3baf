//! Matches between bots through the engine alone, for measuring bot strength; any game.
//!
//! Games are played in *duplicate* pairs: the same chance stream twice, with the seats swapped,
//! so the luck of the cards and dice mostly cancels and fewer games tell the bots apart.
//! Tolerance's own matches (hands from fresh stacks, a seat against a full table) are in
//! `games::tolerance::arena`.

use super::{Bot, BotLevel, RandomBot};
use crate::engine::sim::{play_out, Oracle};
use crate::engine::{Game, Seat};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A mean with its 95 % confidence half-width (normal approximation over independent pairs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanCi {
    pub mean: f64,
    pub half_width: f64,
}

impl MeanCi {
    pub fn of(xs: &[f64]) -> MeanCi {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        MeanCi {
            mean,
            half_width: 1.96 * (var / n).sqrt(),
        }
    }
    pub fn low(&self) -> f64 {
        self.mean - self.half_width
    }
    pub fn high(&self) -> f64 {
        self.mean + self.half_width
    }

    /// "mean [low, high]" scaled by `scale`, signed with two decimals (a margin) or unsigned
    /// with one (a share in per cent), for the benchmark tables.
    pub fn show(&self, scale: f64, signed: bool) -> String {
        let f = |x: f64| {
            if signed {
                format!("{:+.2}", x * scale)
            } else {
                format!("{:.1}", x * scale)
            }
        };
        format!("{} [{}, {}]", f(self.mean), f(self.low()), f(self.high()))
    }
}

/// A benchmark's setting from the environment, or its default.
pub fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Plays `game` to its end with the chance of `chance_seed`, `a` moving for `a_seat` and `b`
/// for every other seat.
pub fn heads_up<G: Game>(
    game: &mut G,
    chance_seed: u64,
    a_seat: Seat,
    a: &mut dyn Bot<G>,
    b: &mut dyn Bot<G>,
    max_steps: usize,
) -> Result<crate::engine::Outcome, String> {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(chance_seed));
    let (o, _) = play_out(game, &mut oracle, max_steps, |g: &G, seat, legal| {
        let view = g.view(Some(seat));
        if seat == a_seat {
            a.choose(&view, &legal)
        } else {
            b.choose(&view, &legal)
        }
    })?;
    Ok(o)
}

/// Games won outright by seat 0, played by `bot`, against [`RandomBot`]s in every other seat,
/// over `games` games made by `new` (each with its own chance stream). Deterministic.
pub fn wins_against_random<G: Game>(
    games: u32,
    new: impl Fn(u32) -> G,
    mut bot: impl Bot<G>,
) -> u32 {
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
        .expect("a game against random players plays out");
        won += u32::from(o.winners == [0]);
    }
    won
}

/// A heads-up duplicate match of any game between two of its bot levels.
#[derive(Debug, Clone)]
pub struct GameDuel {
    pub games: u64,
    /// `a`'s payoff minus `b`'s per game (the game's own payoff: points, or minus pips).
    pub a_margin: MeanCi,
    /// Share of games `a` won (a shared win counts half).
    pub a_win_rate: MeanCi,
}

/// Plays `pairs` duplicate pairs of two-seat games of `G`, each from `start`: the same chance
/// seed twice with the seats swapped, `a`'s bot level against `b`'s, each as `bot` makes them
/// (a game's registry entry). Deterministic given `seed`.
pub fn game_duel<G: Game>(
    start: &dyn Fn() -> Result<G, String>,
    bot: &dyn Fn(BotLevel, StdRng) -> Box<dyn Bot<G>>,
    a: BotLevel,
    b: BotLevel,
    pairs: u64,
    seed: u64,
) -> Result<GameDuel, String> {
    let mut seeds = StdRng::seed_from_u64(seed);
    let mut bot_a = bot(a, StdRng::seed_from_u64(seeds.gen()));
    let mut bot_b = bot(b, StdRng::seed_from_u64(seeds.gen()));
    let mut margins = Vec::with_capacity(pairs as usize);
    let mut wins = Vec::with_capacity(pairs as usize);
    for _ in 0..pairs {
        let chance_seed: u64 = seeds.gen();
        let (mut margin, mut won) = (0.0, 0.0);
        for a_seat in [0 as Seat, 1] {
            let mut game = start()?;
            let o = heads_up(
                &mut game,
                chance_seed,
                a_seat,
                &mut *bot_a,
                &mut *bot_b,
                1_000_000,
            )?;
            let pay = |s: Seat| {
                o.payoffs
                    .iter()
                    .find(|(x, _)| *x == s)
                    .map_or(0, |(_, p)| *p)
            };
            margin += (pay(a_seat) - pay(1 - a_seat)) as f64;
            won += match (
                o.winners.contains(&a_seat),
                o.winners.contains(&(1 - a_seat)),
            ) {
                (true, false) => 1.0,
                (true, true) | (false, false) => 0.5,
                (false, true) => 0.0,
            };
        }
        margins.push(margin / 2.0);
        wins.push(won / 2.0);
    }
    Ok(GameDuel {
        games: 2 * pairs,
        a_margin: MeanCi::of(&margins),
        a_win_rate: MeanCi::of(&wins),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_ci_of_constant_has_no_width() {
        let m = MeanCi::of(&[2.0, 2.0, 2.0]);
        assert_eq!(m.mean, 2.0);
        assert_eq!(m.half_width, 0.0);
    }
}
