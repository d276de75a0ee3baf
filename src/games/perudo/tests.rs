use super::game::*;
use crate::engine::sim::{simulate, SimOptions};
use crate::engine::{ChanceRequest, Game, Seat, ToAct};
use crate::games::script::run_script;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn bid(quantity: u16, face: u8) -> Bid {
    Bid { quantity, face }
}

fn legal_after(prev: Bid, new: Bid) -> bool {
    check_bid(Some(prev), new, false, 30).is_ok()
}

#[test]
fn seed_raises_after_five_threes() {
    let prev = bid(5, 3);
    // The seed's three kinds of raise.
    for q in 6..=9 {
        assert!(legal_after(prev, bid(q, 3)), "{q} threes");
    }
    for f in 4..=6 {
        assert!(legal_after(prev, bid(5, f)), "five of {f}");
        assert!(legal_after(prev, bid(6, f)), "six of {f}");
        assert!(legal_after(prev, bid(8, f)), "eight of {f}");
    }
    // Repeating or lowering either part is not a raise.
    for b in [
        bid(5, 3),
        bid(4, 3),
        bid(4, 4),
        bid(6, 2),
        bid(9, 2),
        bid(5, 2),
    ] {
        assert!(!legal_after(prev, b), "{b} must be refused after {prev}");
    }
}

#[test]
fn seed_conversion_to_ones_halves_rounding_up() {
    for prev in [bid(5, 3), bid(6, 3)] {
        assert!(legal_after(prev, bid(3, 1)), "three ones after {prev}");
        assert!(legal_after(prev, bid(4, 1)), "more ones after {prev}");
        assert!(!legal_after(prev, bid(2, 1)), "two ones after {prev}");
    }
    assert!(legal_after(bid(7, 5), bid(4, 1)));
    assert!(!legal_after(bid(7, 5), bid(3, 1)));
    assert!(legal_after(bid(1, 4), bid(1, 1)));
}

#[test]
fn seed_conversion_from_ones_doubles_plus_one() {
    let prev = bid(2, 1);
    assert!(legal_after(prev, bid(3, 1)), "three ones");
    assert!(!legal_after(prev, bid(2, 1)), "the same ones");
    for f in 2..=6 {
        assert!(legal_after(prev, bid(5, f)), "five of {f}");
        assert!(legal_after(prev, bid(6, f)), "six of {f}");
        assert!(!legal_after(prev, bid(4, f)), "four of {f}");
    }
}

#[test]
fn first_bid_of_a_round_is_not_ones_except_in_putana() {
    let err = check_bid(None, bid(2, 1), false, 10).unwrap_err();
    assert!(err.contains("first bid"), "{err}");
    assert!(check_bid(None, bid(1, 2), false, 10).is_ok());
    assert!(check_bid(None, bid(2, 1), true, 10).is_ok());
}

#[test]
fn bids_are_bounded_by_the_dice_on_the_table() {
    assert!(check_bid(None, bid(10, 6), false, 10).is_ok());
    let err = check_bid(None, bid(11, 6), false, 10).unwrap_err();
    assert!(err.contains("1..=10"), "{err}");
    assert!(check_bid(None, bid(0, 6), false, 10).is_err());
    assert!(check_bid(None, bid(1, 7), false, 10)
        .unwrap_err()
        .contains("face 7"));
}

#[test]
fn ones_are_wild_when_counting() {
    // The seed's table: five threes and two ones make seven threes.
    assert_eq!(count_for(bid(7, 3), false, [3, 3, 3, 3, 3, 1, 1, 5, 6]), 7);
    assert_eq!(count_for(bid(7, 3), true, [3, 3, 3, 3, 3, 1, 1, 5, 6]), 5);
    // Bids on ones count only ones.
    assert_eq!(count_for(bid(2, 1), false, [3, 1, 1, 5]), 2);
}

fn play(
    seats: u8,
    dice_each: u8,
    dice: Vec<u8>,
    moves: &[&str],
) -> (Perudo, Option<crate::games::script::ScriptFailure>) {
    // Scripted dice are each round's cups, rolled after the count (see the replay's script).
    let game = Perudo::new(&Setup {
        seats: (0..seats).collect(),
        dice_each,
        first: Some(0),
        rolls_with_opening: false,
    })
    .unwrap();
    let moves: Vec<_> = moves
        .iter()
        .map(|m| super::ui::replay::parse_action(m).unwrap())
        .collect();
    let (g, failure, _) = run_script(game, dice, &moves).unwrap();
    (g, failure)
}

#[test]
fn seed_challenge_short_count_costs_the_bidder() {
    // "Five threes" doubted; the table holds four (threes and ones together): the bidder loses.
    let dice = vec![3, 3, 2, 5, 6, 1, 3, 4, 4, 6];
    let (g, failure) = play(2, 5, dice, &["0 bid 5 3", "1 dudo"]);
    assert_eq!(failure, None);
    assert!(g.log.contains(&LogEntry::Counted {
        bid: bid(5, 3),
        count: 4,
        loser: 0
    }));
    assert_eq!(g.player(0).unwrap().dice_left, 4);
    assert_eq!(g.player(1).unwrap().dice_left, 5);
    // The loser opens the next round.
    assert_eq!(g.opener(), 0);
}

#[test]
fn seed_challenge_exact_count_costs_the_doubter() {
    // "Ten twos" doubted with exactly ten twos and ones on the table: the doubter loses.
    let dice = vec![2, 2, 1, 2, 6, 2, 1, 2, 2, 2, 2, 5];
    let (g, failure) = play(2, 6, dice, &["0 bid 10 2", "1 dudo"]);
    assert_eq!(failure, None);
    assert!(g.log.contains(&LogEntry::Counted {
        bid: bid(10, 2),
        count: 10,
        loser: 1
    }));
    assert_eq!(g.player(1).unwrap().dice_left, 5);
    assert_eq!(g.opener(), 1);
}

#[test]
fn refused_bid_names_the_rule_and_changes_nothing() {
    let (g, failure) = play(3, 5, vec![2; 15], &["0 bid 5 3", "1 bid 5 2"]);
    let (msg, at) = failure.unwrap();
    assert_eq!(at, Some(1));
    assert!(msg.contains("lowering neither"), "{msg}");
    assert_eq!(g.bid, Some(bid(5, 3)));
    let (_, failure) = play(3, 5, vec![2; 15], &["0 dudo"]);
    assert!(failure.unwrap().0.contains("nothing to doubt"));
    let (_, failure) = play(3, 5, vec![2; 15], &["1 bid 2 2"]);
    assert!(failure.unwrap().0.contains("may not act"));
}

#[test]
fn seed_putana_round_fixes_the_face_and_ones_are_not_wild() {
    // Seat 1 has two dice; losing one leaves it one, so the next round is Putana and it opens.
    let game = Perudo::new(&Setup {
        seats: vec![0, 1, 2],
        dice_each: 2,
        first: Some(0),
        rolls_with_opening: false,
    })
    .unwrap();
    let mut dice = vec![4, 4, 2, 3, 5, 5]; // round 1: 0:[4,4] 1:[2,3] 2:[5,5]
    dice.extend([6, 1, 6, 6, 1]); // round 2: 0:[6,1] 1:[6] 2:[6,1]
    let moves: Vec<_> = [
        "0 bid 2 4",
        "1 bid 3 4",
        "2 dudo",
        "1 bid 1 6",
        "2 bid 2 6",
        "0 bid 3 6",
    ]
    .iter()
    .map(|m| super::ui::replay::parse_action(m).unwrap())
    .collect();
    let (mut g, failure, unused) = run_script(game, dice, &moves).unwrap();
    assert_eq!((failure, unused), (None, 0));
    assert!(g.putana);
    assert_eq!(g.opener(), 1);
    // After "three sixes": only more sixes, or doubt.
    for b in [bid(3, 5), bid(4, 5), bid(4, 1), bid(2, 6), bid(3, 6)] {
        let before = g.clone();
        let err = g.apply(1, &Action::Bid(b)).unwrap_err().to_string();
        assert!(
            err.contains("fixed at 6") || err.contains("above 3"),
            "{b}: {err}"
        );
        assert_eq!(g, before);
    }
    assert_eq!(
        g.legal_actions(1),
        vec![Action::Bid(bid(4, 6)), Action::Bid(bid(5, 6)), Action::Dudo]
    );
    // Three sixes are on the table; the two ones do not count in Putana, so four sixes fail.
    g.apply(1, &Action::Bid(bid(4, 6))).unwrap();
    g.apply(2, &Action::Dudo).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("cups open")
    };
    assert!(reqs
        .iter()
        .all(|r| matches!(r, ChanceRequest::OpenPrivate { .. })));
    // Open with what the full state holds (the roller's own dice).
    let outs: Vec<_> = g
        .players
        .iter()
        .map(|p| crate::engine::ChanceOutcome::Opened {
            owner: p.seat,
            roll: p.rolls - 1,
            values: p.dice.clone().unwrap(),
        })
        .collect();
    g.apply_chance(&outs).unwrap();
    assert!(g.log.contains(&LogEntry::Counted {
        bid: bid(4, 6),
        count: 3,
        loser: 1
    }));
    // Seat 1 is out; the next player with dice opens an ordinary round.
    assert_eq!(g.player(1).unwrap().dice_left, 0);
    assert!(g.log.contains(&LogEntry::Out { seat: 1 }));
    assert!(!g.putana);
    assert_eq!(g.opener(), 2);
}

#[test]
fn a_seat_state_holds_only_its_own_dice_until_the_cups_open() {
    let mut g = Perudo::new(&Setup::standard(3)).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!()
    };
    assert!(matches!(
        reqs[0],
        ChanceRequest::RollPublic { sides: 3, .. }
    ));
    let mut oracle = crate::engine::sim::Oracle::new(StdRng::seed_from_u64(1));
    let outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
    let mut mine = g.clone();
    let masked = crate::engine::sim::masked_for(&outs, &reqs, Some(1));
    mine.apply_chance(&masked).unwrap();
    g.apply_chance(&outs).unwrap();
    for p in &mine.players {
        assert_eq!(p.dice.is_some(), p.seat == 1, "seat {}", p.seat);
    }
    assert_eq!(mine.view(Some(1)), g.view(Some(1)));
    assert!(g.view(None).players.iter().all(|p| p.dice.is_none()));
}

#[test]
fn timeouts_doubt_or_open_low() {
    let mut g = Perudo::new(&Setup {
        seats: vec![0, 1],
        dice_each: 5,
        first: Some(0),
        rolls_with_opening: true,
    })
    .unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!()
    };
    let mut chance = crate::engine::sim::Script::new(Vec::new(), vec![2; 10]);
    g.apply_chance(&crate::engine::sim::fulfil_all(&mut chance, &reqs).unwrap())
        .unwrap();
    assert_eq!(g.timeout_action(0), Some(Action::Bid(bid(1, 2))));
    assert_eq!(g.timeout_action(1), None);
    let (g, _) = play(2, 5, vec![2; 10], &["0 bid 3 4"]);
    assert_eq!(g.timeout_action(1), Some(Action::Dudo));
}

#[test]
fn random_games_pass_the_generic_harness() {
    let mut rng = StdRng::seed_from_u64(8);
    let mut rounds = 0;
    for i in 0..300 {
        let players = rng.gen_range(2..=6u8);
        let dice_each = rng.gen_range(1..=5u8);
        let setup = Setup {
            seats: (0..players).map(|s| s * 2 + 1).collect(),
            dice_each,
            first: if i % 2 == 0 { None } else { Some(1) },
            // Both dice flows: tables of version 8 and those before.
            rolls_with_opening: i % 4 < 2,
        };
        let g = Perudo::new(&setup).unwrap();
        let report = simulate(&g, &mut rng, &SimOptions::default())
            .unwrap_or_else(|e| panic!("game {i} ({players} players, {dice_each} dice): {e}"));
        let outcome = report.outcome.unwrap();
        assert_eq!(outcome.winners.len(), 1);
        assert_eq!(outcome.payoffs.iter().map(|p| p.1).sum::<i64>(), 0);
        // Every round but the last costs exactly one die.
        rounds += report.chance_batches;
    }
    assert!(rounds > 700, "{rounds} chance batches");
}

/// From version 8 a "dudo" opens this round's cups and rolls the next round's in one batch: the
/// loser keeps the first dice of its new roll, each seat learns only its own, a seat that went
/// out rolled for nothing, and the next round is bid at once, with no batch of its own.
#[test]
fn the_next_cups_are_rolled_with_the_opening() {
    let setup = Setup {
        seats: vec![0, 1, 2],
        dice_each: 2,
        first: Some(0),
        rolls_with_opening: true,
    };
    let mut g = Perudo::new(&setup).unwrap();
    let mut oracle = crate::engine::sim::Oracle::new(StdRng::seed_from_u64(5));
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("the first cups")
    };
    g.apply_chance(&crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap())
        .unwrap();
    let first: Vec<Vec<u8>> = g.players.iter().map(|p| p.dice.clone().unwrap()).collect();
    // A bid no table of six dice can hold: its bidder, seat 0, loses a die.
    g.apply(0, &Action::Bid(bid(6, 5))).unwrap();
    g.apply(1, &Action::Dudo).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("cups open")
    };
    assert_eq!(reqs.len(), 6, "{reqs:?}");
    assert!(reqs[..3]
        .iter()
        .all(|r| matches!(r, ChanceRequest::OpenPrivate { .. })));
    assert!(reqs[3..]
        .iter()
        .all(|r| matches!(r, ChanceRequest::RollPrivate { count: 2, .. })));
    // The full outcomes, and seat 2's copy that sees only its own new roll.
    let outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
    for (i, o) in outs[..3].iter().enumerate() {
        assert!(
            matches!(o, crate::engine::ChanceOutcome::Opened { values, .. } if *values == first[i])
        );
    }
    let mut seat2 = g.clone();
    let masked = crate::engine::sim::masked_for(&outs, &reqs, Some(2));
    seat2.apply_chance(&masked).unwrap();
    g.apply_chance(&outs).unwrap();
    let rolled = |owner: Seat| -> Vec<u8> {
        outs.iter()
            .find_map(|o| match o {
                crate::engine::ChanceOutcome::RolledPrivate {
                    owner: o,
                    values: Some(v),
                } if *o == owner => Some(v.clone()),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(g.phase, Phase::Bidding);
    assert_eq!(g.round, 2);
    assert_eq!(g.to_act(), ToAct::Seat(0), "the loser opens the next round");
    assert_eq!(g.player(0).unwrap().dice_left, 1);
    assert_eq!(g.player(0).unwrap().dice, Some(rolled(0)[..1].to_vec()));
    assert_eq!(g.player(1).unwrap().dice, Some(rolled(1)));
    for p in &seat2.players {
        assert_eq!(p.dice.is_some(), p.seat == 2, "seat {}", p.seat);
    }
    assert_eq!(seat2.view(Some(2)), g.view(Some(2)));
    // Seat 0, holding one die, loses it: it rolled with the opening for a round it is out of.
    g.apply(0, &Action::Bid(bid(5, 5))).unwrap();
    g.apply(1, &Action::Dudo).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("cups open")
    };
    assert!(matches!(
        reqs[3],
        ChanceRequest::RollPrivate {
            owner: 0,
            count: 1,
            ..
        }
    ));
    // Seat 0's opening is its whole roll of two dice, of which its cup was the first.
    let outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
    g.apply_chance(&outs).unwrap();
    assert!(g.log.contains(&LogEntry::Out { seat: 0 }));
    assert_eq!(g.player(0).unwrap().dice, None);
    assert_eq!(g.phase, Phase::Bidding);
    g.check_invariants().unwrap();
    // An opening whose cup is not the roll's first dice is refused.
    g.apply(1, &Action::Bid(bid(4, 5))).unwrap();
    g.apply(2, &Action::Dudo).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("cups open")
    };
    let mut outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
    if let crate::engine::ChanceOutcome::Opened { values, .. } = &mut outs[0] {
        values[0] = values[0] % 6 + 1;
    }
    assert!(g.clone().apply_chance(&outs).is_err());
}

/// A table says which dice flow it plays by its version: from 8 with the opening, before that
/// after the count, as those tables were played.
#[test]
fn the_dice_flow_follows_the_tables_version() {
    use crate::games::registry::TableGame;
    let setup = Setup::standard(3);
    assert!(setup.rolls_with_opening);
    assert!(!Perudo::at_version(setup.clone(), 7).rolls_with_opening);
    assert!(Perudo::at_version(setup.clone(), 8).rolls_with_opening);
    // Not on the wire: an announced setup reads the same at every version.
    let json = serde_json::to_value(&setup).unwrap();
    assert!(json.get("rolls_with_opening").is_none(), "{json}");
    let read: Setup = serde_json::from_value(json).unwrap();
    assert_eq!(Perudo::at_version(read, 7), Perudo::at_version(setup, 7));
}

/// A count that may end the game (two players left, one of them down to its last die) rolls no
/// cups with the opening, so that nobody owes a part of that pass after seeing who wins; should
/// the game go on, the cups are rolled after the count, as before version 8.
#[test]
fn a_count_that_may_end_the_game_rolls_nothing_with_it() {
    let mut g = Perudo::new(&Setup {
        seats: vec![0, 1],
        dice_each: 2,
        first: Some(0),
        rolls_with_opening: true,
    })
    .unwrap();
    let mut oracle = crate::engine::sim::Oracle::new(StdRng::seed_from_u64(6));
    let mut fulfil = |g: &mut Perudo| {
        let ToAct::Chance(reqs) = g.to_act() else {
            panic!("chance is due: {:?}", g.phase)
        };
        let outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
        g.apply_chance(&outs).unwrap();
        reqs
    };
    fulfil(&mut g);
    // Four dice on the table: "four sixes" almost surely fails (two ones and two sixes hold it).
    g.apply(0, &Action::Bid(bid(4, 6))).unwrap();
    g.apply(1, &Action::Dudo).unwrap();
    let reqs = fulfil(&mut g);
    assert_eq!(
        reqs.len(),
        4,
        "neither can go out here: the next cups ride along"
    );
    let (low, high) = if g.player(0).unwrap().dice_left == 1 {
        (0, 1)
    } else {
        (1, 0)
    };
    assert_eq!(g.player(high).unwrap().dice_left, 2);
    assert_eq!(g.phase, Phase::Bidding);
    // Now the one-die player may go out: the opening carries no new cups.
    let bidder = match g.to_act() {
        ToAct::Seat(s) => s,
        other => panic!("{other:?}"),
    };
    let challenger = if bidder == low { high } else { low };
    g.apply(bidder, &Action::Bid(bid(3, 6))).unwrap();
    g.apply(challenger, &Action::Dudo).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("cups open")
    };
    assert!(
        reqs.iter()
            .all(|r| matches!(r, ChanceRequest::OpenPrivate { .. })),
        "{reqs:?}"
    );
    fulfil(&mut g);
    if g.phase != Phase::Done {
        // The game went on: its cups are rolled after the count, in a batch of their own.
        let reqs = fulfil(&mut g);
        assert!(reqs
            .iter()
            .all(|r| matches!(r, ChanceRequest::RollPrivate { .. })));
        assert_eq!(g.phase, Phase::Bidding);
    }
    g.check_invariants().unwrap();
}
