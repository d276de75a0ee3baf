//! Heads-up and table matches between Tolerance bots through the engine alone, for measuring
//! bot strength (`benches/bots.rs`, BENCHMARKS.md).
//!
//! Hands are played in *duplicate* pairs: the same shuffled deck and die stream twice, with the
//! seats swapped, so the luck of the cards mostly cancels and fewer hands tell the bots apart.
//! Every hand starts from fresh stacks, so one hand's result does not shape the next.

use super::bot::level_bot;
use super::hand::Hand;
use super::table::Table;
use super::variant::Variant;
use crate::bots::arena::{heads_up, MeanCi};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::sim::{play_out, Oracle};
use crate::engine::{Game, Seat};
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
            Contestant::Level(l) => level_bot(l, rng),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Contestant::Random => "random",
            Contestant::Level(l) => l.name(),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
