//! Rules tests: the seed's worked examples and the betting cases with exact chips.

use super::ui::replay::{HandScript, ReplayOutput};
use super::*;
use crate::engine::sim::{simulate, SimOptions};
use crate::engine::{Game, RuleError, ToAct};
use rand::{rngs::StdRng, SeedableRng};
use serde_json::json;

fn run(script: serde_json::Value) -> ReplayOutput {
    HandScript::parse(&script.to_string())
        .unwrap()
        .run()
        .unwrap()
}

fn ok(script: serde_json::Value) -> ReplayOutput {
    let out = run(script);
    assert!(
        out.ok,
        "script failed: {:?} at {:?}",
        out.error, out.at_action
    );
    out
}

fn heads_up(deck: &[&str], dice: &[u8], actions: &[&str]) -> serde_json::Value {
    json!({
        "seats": [{"seat": 0, "stack": 1000}, {"seat": 1, "stack": 1000}],
        "dealer": 1,
        "deck": deck,
        "dice": dice,
        "actions": actions,
    })
}

#[test]
fn seed_roll_examples() {
    // Seat 0 (Starter): 5H 7D = 12; seat 1: 9C 2S = 11.
    // Tolerance 5 rolled 6 → +5; Tolerance 5 rolled 3 → −5; Tolerance 10 rolled 10 → +10.
    let out = ok(heads_up(
        &["5H", "9C", "7D", "2S"],
        &[6, 3, 10],
        &[
            "0 check",
            "1 call", // blind round: the Starter's blind stands, seat 1 calls it
            "0 roll 5",
            "1 roll 5",
            "0 check",
            "1 check",
            "0 pass",
            "1 roll 10",
            "0 check",
            "1 check",
        ],
    ));
    assert_eq!(out.points[&0], 12 + 5);
    assert_eq!(out.points[&1], 11 - 5 + 10);
    assert_eq!(out.final_stacks[&0], 1010);
    assert_eq!(out.final_stacks[&1], 990);
    assert_eq!(out.payoffs[&0], 10);
}

#[test]
fn super_ace_upgrades_on_a_top_roll_only() {
    let mut s = heads_up(
        &["AS", "KC", "3D", "QS"],
        &[10],
        &[
            "0 check",
            "1 call",
            "0 roll 10",
            "1 pass",
            "0 check",
            "1 check",
            "0 pass",
            "1 pass",
            "0 check",
            "1 check",
        ],
    );
    s["variant"] = json!("super-ace");
    let out = ok(s.clone());
    assert_eq!(
        out.points[&0],
        14 + 3 + 10,
        "the Ace became 14 and the roll gained 10"
    );
    assert_eq!(out.points[&1], 25);
    // Rolled below ten: lose ten, the Ace stays 1.
    s["dice"] = json!([9]);
    let out = ok(s.clone());
    assert_eq!(out.points[&0], 1 + 3 - 10);
    // Without the variant a top roll is just +10.
    s["dice"] = json!([10]);
    s["variant"] = json!("standard");
    assert_eq!(ok(s).points[&0], 1 + 3 + 10);
}

#[test]
fn super_ace_with_two_aces_upgrades_one_per_top_roll() {
    let mut s = heads_up(
        &["AS", "KC", "AH", "QS"],
        &[10, 10],
        &[
            "0 check",
            "1 call",
            "0 roll 10",
            "1 pass",
            "0 check",
            "1 check",
            "0 roll 10",
            "1 pass",
            "0 check",
            "1 check",
        ],
    );
    s["variant"] = json!("super-ace");
    assert_eq!(ok(s.clone()).points[&0], 14 + 14 + 20);
    s["dice"] = json!([10, 4]);
    assert_eq!(ok(s).points[&0], 14 + 1 + 10 - 10);
}

#[test]
fn card_again_deals_after_each_roll_round() {
    // Positions: 0,2 → seat 0; 1,3 → seat 1; after roll round 1: 4 → 0, 5 → 1; after 2: 6, 7.
    let mut s = heads_up(
        &["2C", "3C", "4C", "5C", "6C", "7C", "AD", "9C"],
        &[],
        &[
            "0 check", "1 call", "0 pass", "1 pass", "0 check", "1 check", "0 pass", "1 pass",
            "0 check", "1 check",
        ],
    );
    s["variant"] = json!("card-again");
    let out = ok(s);
    assert_eq!(out.points[&0], 2 + 4 + 6 + 1);
    assert_eq!(out.points[&1], 3 + 5 + 7 + 9);
    assert_eq!(out.final_stacks[&1], 1010);
}

#[test]
fn card_again_ace_dealt_late_misses_an_earlier_top_roll() {
    let v = Variant {
        super_ace: true,
        card_again: true,
        ..Variant::default()
    };
    let mut s = heads_up(
        &["2C", "3C", "4C", "5C", "AS", "7C", "KD", "9C"],
        &[10, 10],
        &[
            "0 check",
            "1 call",
            "0 roll 10",
            "1 pass",
            "0 check",
            "1 check",
            "0 pass",
            "1 pass",
            "0 check",
            "1 check",
        ],
    );
    s["variant"] = serde_json::to_value(&v).unwrap();
    s["dice"] = json!([10]);
    // The Ace arrives after the first roll round: the round-1 top roll cannot upgrade it.
    assert_eq!(ok(s.clone()).points[&0], 2 + 4 + 1 + 13 + 10);
    s["actions"] = json!([
        "0 check",
        "1 call",
        "0 pass",
        "1 pass",
        "0 check",
        "1 check",
        "0 roll 10",
        "1 pass",
        "0 check",
        "1 check"
    ]);
    assert_eq!(ok(s).points[&0], 2 + 4 + 14 + 13 + 10);
}

#[test]
fn side_pots_pay_each_tier_to_its_best_eligible_hand() {
    // Seat 0 (100 chips) best, seat 1 (300) second, seat 2 (1000) worst.
    let out = ok(json!({
        "seats": [{"seat": 0, "stack": 100}, {"seat": 1, "stack": 300}, {"seat": 2, "stack": 1000}],
        "dealer": 2,
        "deck": ["KS", "QS", "2C", "KH", "QH", "3C"],
        "actions": ["0 raise 100", "1 raise 300", "2 call", "0 pass", "1 pass", "2 pass",
                    "0 pass", "1 pass", "2 pass"],
    }));
    assert_eq!(out.points[&0], 26);
    assert_eq!(out.points[&1], 24);
    assert_eq!(out.points[&2], 5);
    assert_eq!(out.pots.len(), 2);
    assert_eq!(out.pots[0]["amount"], 300);
    assert_eq!(out.pots[1]["amount"], 400);
    assert_eq!(out.final_stacks[&0], 300);
    assert_eq!(out.final_stacks[&1], 400);
    assert_eq!(out.final_stacks[&2], 700);
}

#[test]
fn uncalled_excess_returns_to_the_bettor() {
    // The big stack wins nothing extra from chips nobody could match.
    let out = ok(json!({
        "seats": [{"seat": 0, "stack": 1000}, {"seat": 1, "stack": 50}],
        "dealer": 1,
        "deck": ["2C", "KS", "3C", "KH"],
        "actions": ["0 raise 500", "1 call", "0 pass", "1 pass", "0 pass", "1 pass"],
    }));
    assert_eq!(out.pots.len(), 2);
    assert_eq!(out.pots[1]["amount"], 450);
    assert_eq!(out.pots[1]["winners"], json!([0]));
    assert_eq!(out.final_stacks[&0], 950);
    assert_eq!(out.final_stacks[&1], 100);
}

#[test]
fn ties_split_and_odd_chips_go_clockwise_from_the_starter() {
    let v = Variant {
        blind: 5,
        ..Variant::default()
    };
    let out = ok(json!({
        "variant": v,
        "seats": [{"seat": 0, "stack": 1000}, {"seat": 1, "stack": 1000}, {"seat": 2, "stack": 1000}],
        "dealer": 2,
        "deck": ["KS", "7H", "8S", "2C", "6D", "5C"],
        "actions": ["0 check", "1 call", "2 raise 12", "0 fold", "1 call",
                    "1 pass", "2 pass", "1 check", "2 check", "1 pass", "2 pass",
                    "1 check", "2 check"],
    }));
    assert_eq!(out.points[&1], 13);
    assert_eq!(out.points[&2], 13);
    assert_eq!(out.pots[0]["amount"], 29);
    assert_eq!(out.final_stacks[&0], 995);
    assert_eq!(out.final_stacks[&1], 1000 - 12 + 15);
    assert_eq!(out.final_stacks[&2], 1000 - 12 + 14);
}

#[test]
fn last_player_standing_wins_without_showdown() {
    let out = ok(heads_up(
        &["AS", "KC", "3D", "QS"],
        &[],
        &["0 check", "1 raise 30", "0 fold"],
    ));
    assert!(out.uncontested);
    assert!(out.points.is_empty(), "no cards are shown");
    assert_eq!(out.final_stacks[&0], 990);
    assert_eq!(out.final_stacks[&1], 1010);
}

#[test]
fn all_in_players_still_roll_and_later_rounds_skip_betting() {
    let out = ok(json!({
        "seats": [{"seat": 0, "stack": 40}, {"seat": 1, "stack": 1000}],
        "dealer": 1,
        "deck": ["2C", "KS", "3C", "KH"],
        "dice": [9, 1, 9],
        "actions": ["0 raise 40", "1 call", "0 roll 8", "1 roll 2", "0 roll 8", "1 pass"],
    }));
    assert_eq!(out.points[&0], 5 + 8 + 8);
    assert_eq!(out.points[&1], 26 - 2);
    assert_eq!(out.final_stacks[&0], 0);
    assert_eq!(out.final_stacks[&1], 1040);
}

#[test]
fn short_starter_blind_still_sets_the_full_blind() {
    let setup = HandSetup {
        hand_no: 0,
        deck: 0,
        seats: vec![(0, 5), (1, 1000)],
        dealer: 1,
        rules: Table::new(Variant::default(), &[(0, None), (1, None)], 0)
            .unwrap()
            .next_hand()
            .unwrap()
            .rules,
    };
    let mut h = Hand::new(&setup).unwrap();
    deal_fixed(&mut h);
    assert_eq!(h.to_act(), ToAct::Seat(1));
    assert_eq!(h.legal_actions(1), vec![Action::Fold, Action::Call]);
    h.apply(1, &Action::Call).unwrap();
    assert_eq!(h.player(1).unwrap().committed, 10);
}

/// Answers a pending deal with the lowest card ids in order (tests that don't care which cards).
fn deal_fixed(h: &mut Hand) {
    if let ToAct::Chance(reqs) = h.to_act() {
        let mut oracle =
            crate::engine::sim::Script::new((0..52).map(crate::cards::CardId).collect(), vec![]);
        let outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
        h.apply_chance(&outs).unwrap();
    }
}

fn three_handed(stacks: [u64; 3], betting: Betting) -> Hand {
    let v = Variant {
        betting,
        ..Variant::default()
    };
    let t = Table::new(v, &[(0, None), (1, None), (2, None)], 2).unwrap();
    let mut setup = t.next_hand().unwrap();
    setup.seats = vec![(0, stacks[0]), (1, stacks[1]), (2, stacks[2])];
    let mut h = Hand::new(&setup).unwrap();
    deal_fixed(&mut h);
    h
}

#[test]
fn incomplete_all_in_raise_does_not_reopen_betting() {
    let mut h = three_handed([1000, 1000, 45], Betting::NoLimit);
    h.apply(0, &Action::Raise { to: 30 }).unwrap(); // full raise of 20
    h.apply(1, &Action::Call).unwrap();
    h.apply(2, &Action::Raise { to: 45 }).unwrap(); // all-in, only 15 more
    assert_eq!(h.legal_actions(0), vec![Action::Fold, Action::Call]);
    assert!(matches!(
        h.apply(0, &Action::Raise { to: 100 }),
        Err(RuleError::Illegal { seat: 0, .. })
    ));
    h.apply(0, &Action::Call).unwrap();
    assert_eq!(h.legal_actions(1), vec![Action::Fold, Action::Call]);
}

#[test]
fn minimum_raise_is_the_last_full_raise() {
    let mut h = three_handed([1000, 1000, 1000], Betting::NoLimit);
    // Starter may check its blind or raise to at least two blinds.
    assert!(h
        .legal_actions(0)
        .starts_with(&[Action::Fold, Action::Check]));
    assert!(h.apply(0, &Action::Raise { to: 19 }).is_err());
    h.apply(0, &Action::Raise { to: 50 }).unwrap(); // raise of 40
    assert!(h.apply(1, &Action::Raise { to: 89 }).is_err());
    h.apply(1, &Action::Raise { to: 90 }).unwrap();
    assert_eq!(h.min_raise, 40);
}

#[test]
fn pot_limit_caps_raises_at_the_pot() {
    let mut h = three_handed([1000, 1000, 1000], Betting::PotLimit);
    // Pot 10, nothing to call: max raise-to = 10 + 10 = 20.
    let max = |h: &Hand, s| {
        h.legal_actions(s)
            .iter()
            .filter_map(|a| match a {
                Action::Raise { to } => Some(*to),
                _ => None,
            })
            .max()
    };
    assert_eq!(max(&h, 0), Some(20));
    h.apply(0, &Action::Check).unwrap();
    // Seat 1 faces 10: call 10 makes the pot 20, so max raise-to = 10 + 20 = 30.
    assert_eq!(max(&h, 1), Some(30));
    assert!(h.apply(1, &Action::Raise { to: 31 }).is_err());
}

#[test]
fn fixed_limit_has_fixed_sizes_and_a_cap() {
    let mut h = three_handed([1000, 1000, 1000], Betting::FixedLimit { cap: 3 });
    assert_eq!(
        h.legal_actions(0),
        vec![Action::Fold, Action::Check, Action::Raise { to: 20 }]
    );
    h.apply(0, &Action::Raise { to: 20 }).unwrap(); // bet 2 of 3
    h.apply(1, &Action::Raise { to: 30 }).unwrap(); // bet 3 of 3: capped now
    assert_eq!(h.legal_actions(2), vec![Action::Fold, Action::Call]);
}

#[test]
fn refused_moves_change_nothing_and_name_the_problem() {
    let mut h = three_handed([1000, 1000, 1000], Betting::NoLimit);
    let before = h.clone();
    assert!(matches!(
        h.apply(1, &Action::Check),
        Err(RuleError::OutOfTurn { seat: 1, .. })
    ));
    let e = h.apply(0, &Action::Call).unwrap_err().to_string();
    assert!(e.contains("nothing to call"), "{e}");
    // Folding when checking is free is allowed, as in Texas Hold'em.
    assert!(h.legal_actions(0).contains(&Action::Fold));
    assert!(h.clone().apply(0, &Action::Fold).is_ok());
    assert!(h.apply(0, &Action::Roll { target: 3 }).is_err());
    assert!(h.apply(0, &Action::Raise { to: u64::MAX }).is_err());
    assert_eq!(h, before);
    assert!(h.apply_chance(&[]).is_err());
    assert_eq!(h, before);
}

#[test]
fn replay_reports_rule_errors_with_the_move_index() {
    let out = run(heads_up(
        &["AS", "KC", "3D", "QS"],
        &[],
        &["0 check", "1 check"],
    ));
    assert!(!out.ok);
    assert_eq!(out.at_action, Some(1));
    assert!(out.error.unwrap().contains("to call"));
    let out = run(heads_up(&["AS", "KC", "3D", "QS"], &[], &["0 check"]));
    assert!(out.error.unwrap().contains("ended before"));
}

#[test]
fn simulation_harness_passes_for_every_variant_and_table_size() {
    let mut rng = StdRng::seed_from_u64(1);
    let betting = [
        Betting::NoLimit,
        Betting::PotLimit,
        Betting::FixedLimit { cap: 4 },
    ];
    for players in [2u8, 3, 5, 6, 11, 20] {
        for (k, b) in betting.iter().enumerate() {
            let v = Variant {
                betting: *b,
                super_ace: k != 1,
                card_again: k != 0,
                die_sides: [10, 6, 20][k],
                seats: 20,
                ..Variant::default()
            };
            let seats: Vec<_> = (0..players).map(|s| (s, None)).collect();
            let mut t = Table::new(v, &seats, 0).unwrap();
            // Uneven stacks so side pots happen.
            for (i, s) in t.stacks.iter_mut().enumerate() {
                if let Some(st) = s {
                    *st = 20 + 37 * i as u64;
                }
            }
            let hand = Hand::new(&t.next_hand().unwrap()).unwrap();
            for _ in 0..3 {
                simulate(&hand, &mut rng, &SimOptions::default())
                    .unwrap_or_else(|e| panic!("{players} players, {b:?}: {e}"));
            }
        }
    }
}

/// A seat removed before the first deal spends a hand number (the rules count it: deck ids and
/// blinds follow it) but no hand was dealt: the end line, the story and the between-hands title
/// count only hands dealt.
#[test]
fn the_words_count_hands_dealt_not_hand_numbers_spent() {
    use crate::engine::sim::{play_out, Oracle};
    use crate::engine::ForfeitReason;
    use crate::games::ui::GameUi;
    let mut t = Tolerance::new(Variant::default(), 3, Some(3)).unwrap();
    t.forfeit(&[2], ForfeitReason::Absent).unwrap();
    let calm = |_: &Tolerance, _, l: Vec<Action>| Action::calm(&l).unwrap_or(l[0]);
    play_out(
        &mut t,
        &mut Oracle::new(StdRng::seed_from_u64(3)),
        100_000,
        calm,
    )
    .unwrap();
    assert_eq!((t.table.hands_played, t.hands_dealt()), (3, 2));
    let names = |s: crate::engine::Seat| ["Ana", "Ben", "Cy"][s as usize].to_string();
    let line = t.result_line(&names);
    assert!(line.contains("2 hands"), "{line}");
    assert!(!line.contains("3 hands"), "{line}");
    let story = t.story(None, &names);
    assert_eq!(
        story[0],
        "hand 1 was never dealt: Cy forfeited before the deal, and no chips moved"
    );
    assert_eq!(story.iter().filter(|l| l.starts_with("— hand ")).count(), 2);
    assert_eq!(t.view(None).hands_dealt, 2);
}
