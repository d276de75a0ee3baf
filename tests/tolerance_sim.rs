//! Engine-only stress: ≥ 100,000 random Tolerance hands over 2–20 seats and every variant axis,
//! with chips conserved at every step and across hands, plus thousands of hands under the full
//! generic harness (per-seat replicas, serde round trips, refused-move checks).

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use tolerance::bots::{Bot, RandomBot};
use tolerance::engine::sim::{fulfil_all, simulate, Oracle, SimOptions};
use tolerance::engine::{Game, Seat, ToAct};
use tolerance::games::tolerance::bot::HeuristicBot;
use tolerance::games::tolerance::variant::BlindLevel;
use tolerance::games::tolerance::{Betting, Hand, Style, Table, Variant};

fn random_variant(rng: &mut StdRng) -> Variant {
    let betting = *[
        Betting::NoLimit,
        Betting::PotLimit,
        Betting::FixedLimit { cap: 4 },
        Betting::FixedLimit { cap: 2 },
    ]
    .choose(rng)
    .unwrap();
    let style = if rng.gen_bool(0.5) {
        Style::Tournament {
            blind_schedule: if rng.gen_bool(0.5) {
                vec![
                    BlindLevel {
                        from_hand: 5,
                        blind: 40,
                    },
                    BlindLevel {
                        from_hand: 15,
                        blind: 160,
                    },
                ]
            } else {
                Vec::new()
            },
        }
    } else {
        Style::Cash {
            min_buy_in: 50,
            max_buy_in: 3000,
        }
    };
    Variant {
        name: "stress".into(),
        die_sides: *[2u8, 6, 10, 12, 20, 100].choose(rng).unwrap(),
        blind: *[1u64, 5, 10, 25].choose(rng).unwrap(),
        betting,
        super_ace: rng.gen_bool(0.5),
        card_again: rng.gen_bool(0.5),
        starting_stack: *[50u64, 300, 1000].choose(rng).unwrap(),
        seats: 20,
        players_per_deck: 5,
        style,
    }
}

#[test]
fn a_hundred_thousand_random_hands_conserve_chips() {
    let mut rng = StdRng::seed_from_u64(2026);
    let mut oracle = Oracle::new(StdRng::seed_from_u64(11));
    let target_hands = 100_000u64;
    let mut hands = 0u64;
    let mut tables = 0u64;
    let mut by_seats = [0u64; 21];
    while hands < target_hands {
        tables += 1;
        let variant = random_variant(&mut rng);
        let players = rng.gen_range(2..=20u8);
        let seats: Vec<(Seat, Option<u64>)> = (0..players)
            .map(|s| (s, Some(rng.gen_range(50..=3000))))
            .collect();
        let cash = matches!(variant.style, Style::Cash { .. });
        let mut table = Table::new(variant, &seats, rng.gen_range(0..players)).unwrap();
        let mut bots: Vec<Box<dyn Bot<Hand>>> = (0..20)
            .map(|i| -> Box<dyn Bot<Hand>> {
                let r = StdRng::seed_from_u64(rng.gen());
                if i % 2 == 0 {
                    Box::new(RandomBot::new(r))
                } else {
                    Box::new(HeuristicBot::new(r))
                }
            })
            .collect();
        let mut table_hands = 0;
        while !table.is_over() && table_hands < 60 && hands < target_hands {
            if cash && table_hands > 0 {
                // Players come and go between hands.
                let seat = rng.gen_range(0..20u8);
                let _ = match rng.gen_range(0..3) {
                    0 => table.join(seat, rng.gen_range(50..=3000)).is_ok(),
                    1 => table.leave(seat).is_ok(),
                    _ => table.top_up(seat, rng.gen_range(1..=500)).is_ok(),
                };
                if table.is_over() {
                    break;
                }
            }
            let before = table.total_chips();
            let setup = table.next_hand().unwrap();
            by_seats[setup.seats.len()] += 1;
            let mut hand = Hand::new(&setup).unwrap();
            let mut steps = 0;
            loop {
                steps += 1;
                assert!(steps < 2_000, "hand did not end");
                if let Err(e) = hand.check_invariants() {
                    panic!("table {tables} hand {table_hands}: {e}");
                }
                match hand.to_act() {
                    ToAct::Terminal => break,
                    ToAct::Chance(reqs) => {
                        let outs = fulfil_all(&mut oracle, &reqs).unwrap();
                        hand.apply_chance(&outs).unwrap();
                    }
                    ToAct::Seat(s) => {
                        let legal = hand.legal_actions(s);
                        let a = bots[s as usize].choose(&hand.view(Some(s)), &legal);
                        hand.apply(s, &a).unwrap();
                    }
                    ToAct::Sealed(_) => unreachable!(),
                }
            }
            let outcome = hand.outcome().unwrap();
            assert_eq!(outcome.payoffs.iter().map(|p| p.1).sum::<i64>(), 0);
            table.record(&hand).unwrap();
            assert_eq!(
                table.total_chips(),
                before,
                "chips conserved across the hand"
            );
            assert_eq!(
                table.chips_in - table.chips_out,
                table.total_chips(),
                "chips in = chips on the table + chips taken away"
            );
            hands += 1;
            table_hands += 1;
        }
    }
    println!("{hands} hands over {tables} tables; hands by seat count: {by_seats:?}");
    for (n, count) in by_seats.iter().enumerate().skip(2) {
        assert!(*count > 0, "no hand was played with {n} seats");
    }
}

#[test]
fn thousands_of_hands_pass_the_full_generic_harness() {
    let mut rng = StdRng::seed_from_u64(99);
    let opts = SimOptions::default();
    for i in 0..2_000u32 {
        let variant = random_variant(&mut rng);
        let players = 2 + (i % 19) as u8;
        let seats: Vec<(Seat, Option<u64>)> = (0..players)
            .map(|s| (s, Some(rng.gen_range(50..=3000))))
            .collect();
        let mut table = Table::new(variant, &seats, 0).unwrap();
        for s in table.stacks.iter_mut().flatten() {
            *s = rng.gen_range(5..=3000);
        }
        let hand = Hand::new(&table.next_hand().unwrap()).unwrap();
        simulate(&hand, &mut rng, &opts).unwrap_or_else(|e| panic!("hand {i}: {e}"));
    }
}
