//! Heads-up matches between bots through the engine alone, for measuring bot strength.
//!
//! Hands are played in *duplicate* pairs: the same shuffled deck and die stream twice, with the
//! seats swapped, so the luck of the cards mostly cancels and fewer hands tell the bots apart.
//! Every hand starts from fresh stacks, so one hand's result does not shape the next.

use super::{Bot, BotLevel, RandomBot};
use crate::engine::sim::{play_out, Oracle};
use crate::engine::{Game, Seat};
use crate::games::tolerance::{Hand, Table, Variant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One side of a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contestant {
    Random,
    Level(BotLevel),
}

impl Contestant {
    pub fn bot(self, rng: StdRng) -> Box<dyn Bot<Hand>> {
        match self {
            Contestant::Random => Box::new(RandomBot::new(rng)),
            Contestant::Level(l) => l.bot(rng),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Contestant::Random => "random",
            Contestant::Level(l) => l.name(),
        }
    }
}

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

#[derive(Debug, Clone)]
pub struct DuelResult {
    pub a: Contestant,
    pub b: Contestant,
    pub hands: u64,
    /// Share of hands `a` won (a split counts as half).
    pub a_win_rate: MeanCi,
    /// `a`'s net chips per hand, in blinds.
    pub a_blinds_per_hand: MeanCi,
}

/// Plays `game` to its end with the chance of `chance_seed`, `a` moving for `a_seat` and `b`
/// for every other seat.
fn heads_up<G: Game>(
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

/// Plays `pairs` duplicate pairs (2 × `pairs` hands) of `a` against `b` on `variant`, heads-up.
/// Deterministic given `seed`.
pub fn duel(
    a: Contestant,
    b: Contestant,
    variant: &Variant,
    pairs: u64,
    seed: u64,
) -> Result<DuelResult, String> {
    let mut seeds = StdRng::seed_from_u64(seed);
    let mut bot_a = a.bot(StdRng::seed_from_u64(seeds.gen()));
    let mut bot_b = b.bot(StdRng::seed_from_u64(seeds.gen()));
    let seats: Vec<(Seat, Option<u64>)> = vec![(0, None), (1, None)];
    let setup = Table::new(variant.clone(), &seats, 0)
        .map_err(|e| e.to_string())?
        .next_hand()
        .map_err(|e| e.to_string())?;
    let blind = setup.rules.blind.max(1) as f64;
    let mut wins = Vec::with_capacity(pairs as usize);
    let mut chips = Vec::with_capacity(pairs as usize);
    for _ in 0..pairs {
        let chance_seed: u64 = seeds.gen();
        let (mut won, mut net) = (0.0, 0.0);
        for a_seat in [0 as Seat, 1] {
            let mut hand = Hand::new(&setup).map_err(|e| e.to_string())?;
            heads_up(
                &mut hand,
                chance_seed,
                a_seat,
                &mut *bot_a,
                &mut *bot_b,
                10_000,
            )?;
            let start = setup
                .seats
                .iter()
                .find(|(s, _)| *s == a_seat)
                .map(|(_, c)| *c)
                .unwrap_or(0);
            let end = hand
                .player(a_seat)
                .map(|p| p.stack)
                .ok_or("a seat left the hand")?;
            let d = end as f64 - start as f64;
            net += d / blind;
            won += if d > 0.0 {
                1.0
            } else if d == 0.0 {
                0.5
            } else {
                0.0
            };
        }
        wins.push(won / 2.0);
        chips.push(net / 2.0);
    }
    Ok(DuelResult {
        a,
        b,
        hands: 2 * pairs,
        a_win_rate: MeanCi::of(&wins),
        a_blinds_per_hand: MeanCi::of(&chips),
    })
}

/// One `a` against `seats − 1` copies of `b` for `hands` hands, `a` moving one seat round the
/// table each hand and every hand from fresh stacks. Fair play would net `a` zero chips and win
/// it one hand in `seats`. Deterministic given `seed`.
pub fn table_match(
    a: Contestant,
    b: Contestant,
    variant: &Variant,
    seats: u8,
    hands: u64,
    seed: u64,
) -> Result<DuelResult, String> {
    let mut seeds = StdRng::seed_from_u64(seed);
    let mut bots: Vec<Box<dyn Bot<Hand>>> = (0..seats)
        .map(|_| b.bot(StdRng::seed_from_u64(seeds.gen())))
        .collect();
    let mut bot_a = a.bot(StdRng::seed_from_u64(seeds.gen()));
    let list: Vec<(Seat, Option<u64>)> = (0..seats).map(|s| (s, None)).collect();
    let setup = Table::new(variant.clone(), &list, 0)
        .map_err(|e| e.to_string())?
        .next_hand()
        .map_err(|e| e.to_string())?;
    let blind = setup.rules.blind.max(1) as f64;
    let mut wins = Vec::with_capacity(hands as usize);
    let mut chips = Vec::with_capacity(hands as usize);
    for h in 0..hands {
        let a_seat = (h % seats as u64) as Seat;
        let mut hand = Hand::new(&setup).map_err(|e| e.to_string())?;
        let mut oracle = Oracle::new(StdRng::seed_from_u64(seeds.gen()));
        play_out(&mut hand, &mut oracle, 10_000, |g: &Hand, seat, legal| {
            let view = g.view(Some(seat));
            if seat == a_seat {
                bot_a.choose(&view, &legal)
            } else {
                bots[seat as usize].choose(&view, &legal)
            }
        })?;
        let p = hand.player(a_seat).ok_or("a seat left the hand")?;
        let d = p.stack as f64 - p.start_stack as f64;
        chips.push(d / blind);
        wins.push(if d > 0.0 { 1.0 } else { 0.0 });
    }
    Ok(DuelResult {
        a,
        b,
        hands,
        a_win_rate: MeanCi::of(&wins),
        a_blinds_per_hand: MeanCi::of(&chips),
    })
}

/// A heads-up duplicate match of any registered game between two of its bot levels.
#[derive(Debug, Clone)]
pub struct GameDuel {
    pub games: u64,
    /// `a`'s payoff minus `b`'s per game (the game's own payoff: points, or minus pips).
    pub a_margin: MeanCi,
    /// Share of games `a` won (a shared win counts half).
    pub a_win_rate: MeanCi,
}

/// Plays `pairs` duplicate pairs of games of `G` from `setup` (two seats): the same chance
/// seed twice with the seats swapped, `a`'s bot level against `b`'s, each as the registry
/// makes them. Deterministic given `seed`.
pub fn game_duel<G: crate::games::registry::TableGame>(
    setup: &G::Setup,
    a: BotLevel,
    b: BotLevel,
    pairs: u64,
    seed: u64,
) -> Result<GameDuel, String> {
    let mut seeds = StdRng::seed_from_u64(seed);
    let mut bot_a = G::bot(a, StdRng::seed_from_u64(seeds.gen()));
    let mut bot_b = G::bot(b, StdRng::seed_from_u64(seeds.gen()));
    let mut margins = Vec::with_capacity(pairs as usize);
    let mut wins = Vec::with_capacity(pairs as usize);
    for _ in 0..pairs {
        let chance_seed: u64 = seeds.gen();
        let (mut margin, mut won) = (0.0, 0.0);
        for a_seat in [0 as Seat, 1] {
            let mut game = G::start(setup, 2).map_err(|e| e.to_string())?;
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

    #[test]
    fn a_match_is_reproducible_from_its_seed() {
        let v = Variant::default();
        let ab = duel(
            Contestant::Level(BotLevel::Normal),
            Contestant::Random,
            &v,
            20,
            7,
        )
        .unwrap();
        let again = duel(
            Contestant::Level(BotLevel::Normal),
            Contestant::Random,
            &v,
            20,
            7,
        )
        .unwrap();
        assert_eq!(ab.a_blinds_per_hand, again.a_blinds_per_hand);
        assert_eq!(ab.hands, 40);
        assert!((0.0..=1.0).contains(&ab.a_win_rate.mean));
    }

    #[test]
    fn a_table_match_is_reproducible_and_counts_its_hands() {
        let v = Variant::default();
        let play = || {
            table_match(
                Contestant::Level(BotLevel::Hard),
                Contestant::Random,
                &v,
                4,
                24,
                3,
            )
            .unwrap()
        };
        let (x, y) = (play(), play());
        assert_eq!(x.hands, 24);
        assert_eq!(x.a_blinds_per_hand, y.a_blinds_per_hand);
        assert_eq!(x.a_win_rate, y.a_win_rate);
    }
}
