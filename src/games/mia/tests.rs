use super::game::*;
use crate::engine::sim::{simulate, SimOptions};
use crate::engine::{ChanceRequest, Game, RuleError, ToAct};
use crate::games::script::run_script;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn seed_rankings_in_full_order() {
    let traditional = [
        21, 11, 22, 33, 44, 55, 66, 65, 64, 63, 62, 61, 54, 53, 52, 51, 43, 42, 41, 32, 31,
    ];
    let modern = [
        21, 66, 65, 64, 63, 62, 61, 55, 54, 53, 52, 51, 44, 43, 42, 41, 33, 32, 31, 22, 11,
    ];
    for (ranking, order) in [
        (Ranking::Traditional, traditional),
        (Ranking::Modern, modern),
    ] {
        assert_eq!(ranking.best_first().map(|t| t.0), order);
        // Every value beats every value listed after it, and nothing else.
        for (i, a) in order.iter().enumerate() {
            for (j, b) in order.iter().enumerate() {
                assert_eq!(
                    ranking.rank(Throw(*a)) > ranking.rank(Throw(*b)),
                    i < j,
                    "{ranking:?}: {a} vs {b}"
                );
            }
            assert_eq!(ranking.above(Throw(*a)).count(), i);
        }
    }
}

#[test]
fn cup_values_put_the_higher_die_first() {
    assert_eq!(Throw::of_dice(2, 3), Throw(32));
    assert_eq!(Throw::of_dice(1, 2), Throw::MIA);
    assert_eq!(Throw::of_dice(5, 5), Throw(55));
    let valid: Vec<u8> = (0..=99).filter(|&n| Throw(n).is_valid()).collect();
    assert_eq!(valid.len(), 21);
    assert!(!Throw(12).is_valid() && !Throw(70).is_valid() && !Throw(10).is_valid());
}

fn play(
    seats: u8,
    ranking: Ranking,
    dice: Vec<u8>,
    moves: &[&str],
) -> (Mia, Option<crate::games::script::ScriptFailure>) {
    // Scripted dice are each cup as it is played, rolled after the count (see the replay).
    let game = Mia::new(&Setup {
        seats: (0..seats).collect(),
        lives: 3,
        ranking,
        rolls_with_opening: false,
        first: Some(0),
    })
    .unwrap();
    let moves: Vec<_> = moves
        .iter()
        .map(|m| super::ui::replay::parse_action(m).unwrap())
        .collect();
    let (g, failure, unused) = run_script(game, dice, &moves).unwrap();
    assert_eq!(unused, 0, "script dice left over");
    (g, failure)
}

fn lives(g: &Mia) -> Vec<u8> {
    g.players.iter().map(|p| p.lives).collect()
}

#[test]
fn a_bluff_caught_costs_the_owner_a_life() {
    let (g, f) = play(
        3,
        Ranking::Traditional,
        vec![3, 1],
        &["0 claim 54", "1 challenge"],
    );
    assert_eq!(f, None);
    assert_eq!(lives(&g), vec![2, 3, 3]);
    assert!(g.log.contains(&LogEntry::Opened {
        roller: 0,
        dice: [3, 1],
        value: Throw(31),
        claim: Throw(54)
    }));
}

#[test]
fn an_equal_or_better_cup_costs_the_challenger() {
    let (g, f) = play(
        3,
        Ranking::Traditional,
        vec![4, 5],
        &["0 claim 54", "1 challenge"],
    );
    assert_eq!(f, None);
    assert_eq!(lives(&g), vec![3, 2, 3]);
    // Understating is a bluff too, and still safe.
    let (g, _) = play(
        3,
        Ranking::Traditional,
        vec![6, 6],
        &["0 claim 43", "1 challenge"],
    );
    assert_eq!(lives(&g), vec![3, 2, 3]);
}

#[test]
fn rankings_decide_challenges_differently() {
    // 11 beats 66 traditionally and loses to it in the modern order.
    let moves = ["0 claim 66", "1 challenge"];
    let (g, _) = play(2, Ranking::Traditional, vec![1, 1], &moves);
    assert_eq!(lives(&g), vec![3, 2]);
    let (g, _) = play(2, Ranking::Modern, vec![1, 1], &moves);
    assert_eq!(lives(&g), vec![2, 3]);
}

#[test]
fn mia_challenged_costs_two_lives_either_way() {
    let (g, _) = play(
        3,
        Ranking::Traditional,
        vec![2, 1],
        &["0 claim 21", "1 challenge"],
    );
    assert_eq!(lives(&g), vec![3, 1, 3]);
    let (g, _) = play(
        3,
        Ranking::Traditional,
        vec![6, 1],
        &["0 claim 21", "1 challenge"],
    );
    assert_eq!(lives(&g), vec![1, 3, 3]);
}

#[test]
fn a_passed_cup_is_opened_by_its_roller_and_the_passer_answers() {
    let (mut g, f) = play(
        3,
        Ranking::Traditional,
        vec![3, 2],
        &["0 claim 42", "1 pass"],
    );
    assert_eq!(f, None);
    let cup = g.cup.clone().unwrap();
    assert_eq!((cup.roller, cup.owner), (0, 1));
    g.apply(2, &Action::Challenge).unwrap();
    assert_eq!(
        g.to_act(),
        ToAct::Chance(vec![ChanceRequest::OpenPrivate { owner: 0, roll: 0 }])
    );
    let outs = vec![crate::engine::ChanceOutcome::Opened {
        owner: 0,
        roll: 0,
        values: vec![3, 2],
    }];
    g.apply_chance(&outs).unwrap();
    // 32 is below 42: the passer, who now owns the claim, pays and opens the next round.
    assert_eq!(lives(&g), vec![3, 2, 3]);
    assert_eq!(
        g.to_act(),
        ToAct::Chance(vec![ChanceRequest::RollPrivate {
            owner: 1,
            sides: 6,
            count: 2
        }])
    );
}

#[test]
fn an_opening_that_differs_from_the_roll_is_refused() {
    let (mut g, _) = play(2, Ranking::Traditional, vec![3, 2], &["0 claim 42"]);
    g.apply(1, &Action::Challenge).unwrap();
    let before = g.clone();
    let lie = vec![crate::engine::ChanceOutcome::Opened {
        owner: 0,
        roll: 0,
        values: vec![4, 2],
    }];
    let err = g.apply_chance(&lie).unwrap_err();
    assert!(
        matches!(err, RuleError::BadChance(ref m) if m.contains("rolled 3 and 2 but opened 4 and 2")),
        "{err}"
    );
    assert_eq!(g, before);
}

#[test]
fn a_reroll_must_claim_higher() {
    let (g, f) = play(
        3,
        Ranking::Traditional,
        vec![3, 2, 5, 4],
        &["0 claim 42", "1 reroll", "1 claim 41"],
    );
    let (msg, at) = f.unwrap();
    assert_eq!(at, Some(2));
    assert!(msg.contains("does not beat 42"), "{msg}");
    let legal = g.legal_actions(1);
    assert!(
        legal.contains(&Action::Claim(Throw(43))) && !legal.contains(&Action::Claim(Throw(41)))
    );
    assert_eq!(legal.len(), 17, "the values ranked above 42");
    let (g, f) = play(
        3,
        Ranking::Traditional,
        vec![3, 2, 5, 4],
        &["0 claim 42", "1 reroll", "1 claim 11"],
    );
    assert_eq!(f, None);
    assert_eq!(g.cup.as_ref().unwrap().roller, 1);
    assert_eq!(g.players[1].rolls, 1);
}

#[test]
fn nothing_beats_mia_so_only_challenge_or_pass_follow() {
    let (g, _) = play(3, Ranking::Modern, vec![2, 1], &["0 claim 21"]);
    assert_eq!(g.legal_actions(1), vec![Action::Challenge, Action::Pass]);
}

#[test]
fn pass_back_to_the_roller_forbids_a_plain_pass() {
    let (mut g, f) = play(
        3,
        Ranking::Traditional,
        vec![3, 2],
        &["0 claim 42", "1 pass", "2 pass"],
    );
    assert_eq!(f, None);
    let before = g.clone();
    let err = g.apply(0, &Action::Pass).unwrap_err().to_string();
    assert!(err.contains("came back to you"), "{err}");
    assert!(g.apply(0, &Action::Raise(Throw(41))).is_err());
    assert_eq!(g, before);
    let legal = g.legal_actions(0);
    assert!(legal.contains(&Action::Challenge) && legal.contains(&Action::Reroll));
    assert!(legal.contains(&Action::Raise(Throw(43))) && !legal.contains(&Action::Pass));
    // Raising without rolling keeps the cup's dice and roller.
    g.apply(0, &Action::Raise(Throw(43))).unwrap();
    let cup = g.cup.clone().unwrap();
    assert_eq!((cup.roller, cup.owner, cup.claim), (0, 0, Some(Throw(43))));
    assert!(g.apply(1, &Action::Raise(Throw(51))).is_err());
}

#[test]
fn pass_back_of_mia_means_a_fresh_reroll() {
    let (g, f) = play(
        2,
        Ranking::Traditional,
        vec![2, 1],
        &["0 claim 21", "1 pass"],
    );
    assert_eq!(f, None);
    assert_eq!(g.legal_actions(0), vec![Action::Challenge, Action::Reroll]);
    let (g, f) = play(
        2,
        Ranking::Traditional,
        vec![2, 1, 3, 1],
        &["0 claim 21", "1 pass", "0 reroll", "0 claim 31"],
    );
    assert_eq!(f, None);
    assert_eq!(g.cup.as_ref().unwrap().claim, Some(Throw(31)));
}

#[test]
fn a_player_out_of_lives_is_skipped_and_the_last_one_wins() {
    let game = Mia::new(&Setup {
        seats: vec![0, 1, 2],
        lives: 1,
        ranking: Ranking::Traditional,
        first: Some(0),
        rolls_with_opening: false,
    })
    .unwrap();
    let moves: Vec<_> = ["0 claim 65", "1 challenge", "2 claim 32", "0 challenge"]
        .iter()
        .map(|m| super::ui::replay::parse_action(m).unwrap())
        .collect();
    let (g, f, unused) = run_script(game, vec![6, 5, 4, 1], &moves).unwrap();
    assert_eq!((f, unused), (None, 0));
    assert!(g.is_terminal());
    // Seat 1 lost and is out, so seat 2 (not seat 1) opened the second round.
    assert_eq!(g.outcome().unwrap().winners, vec![2]);
    assert!(g.log.contains(&LogEntry::Out { seat: 1 }));
    assert!(g.log.contains(&LogEntry::Out { seat: 0 }));
}

#[test]
fn timeouts_challenge_or_claim_the_weakest_allowed() {
    let (g, _) = play(3, Ranking::Traditional, vec![3, 2], &["0 claim 42"]);
    assert_eq!(g.timeout_action(1), Some(Action::Challenge));
    assert_eq!(g.timeout_action(0), None);
    let (g, _) = play(
        3,
        Ranking::Traditional,
        vec![3, 2, 6, 6],
        &["0 claim 42", "1 reroll"],
    );
    assert_eq!(g.timeout_action(1), Some(Action::Claim(Throw(43))));
}

#[test]
fn random_games_pass_the_generic_harness() {
    let mut rng = StdRng::seed_from_u64(9);
    for i in 0..400 {
        let players = rng.gen_range(2..=6u8);
        let ranking = if i % 2 == 0 {
            Ranking::Traditional
        } else {
            Ranking::Modern
        };
        let setup = Setup {
            seats: (0..players).map(|s| s + 3).collect(),
            lives: rng.gen_range(1..=3),
            ranking,
            first: if i % 3 == 0 { Some(3) } else { None },
            // Both dice flows: tables of version 8 and those before.
            rolls_with_opening: i % 4 < 2,
        };
        let g = Mia::new(&setup).unwrap();
        let report = simulate(&g, &mut rng, &SimOptions::default())
            .unwrap_or_else(|e| panic!("game {i} ({players} players, {ranking:?}): {e}"));
        let outcome = report.outcome.unwrap();
        assert_eq!(outcome.payoffs.iter().map(|p| p.1).sum::<i64>(), 0);
    }
}

/// From version 8 a challenge opens the cup and rolls the next round's first cup in one batch,
/// for each player who may open that round (the loser, or the next player if the loser goes
/// out): the one who opens claims at once from its roll, known only to it, and the other rolled
/// for nothing.
#[test]
fn the_next_cup_is_rolled_with_the_opening_for_whoever_may_open() {
    use crate::engine::{ChanceOutcome, Seat};
    let mut g = Mia::new(&Setup {
        seats: vec![0, 1, 2],
        lives: 1,
        ranking: Ranking::Traditional,
        first: Some(0),
        rolls_with_opening: true,
    })
    .unwrap();
    let mut oracle = crate::engine::sim::Oracle::new(StdRng::seed_from_u64(3));
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("the first cup")
    };
    g.apply_chance(&crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap())
        .unwrap();
    g.apply(0, &Action::Claim(Throw(65))).unwrap();
    g.apply(1, &Action::Challenge).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("the cup opens")
    };
    // Seat 0 (the owner) or seat 1 (the challenger) loses its only life; either way the next
    // player after the loser opens: seat 1 or seat 2.
    assert!(matches!(
        reqs[0],
        ChanceRequest::OpenPrivate { owner: 0, .. }
    ));
    let owners: Vec<Seat> = reqs[1..]
        .iter()
        .map(|r| match r {
            ChanceRequest::RollPrivate {
                owner, count: 2, ..
            } => *owner,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(owners, vec![1, 2]);
    let outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
    let mut seat2 = g.clone();
    let masked = crate::engine::sim::masked_for(&outs, &reqs, Some(2));
    seat2.apply_chance(&masked).unwrap();
    g.apply_chance(&outs).unwrap();
    let opener = g.cup.as_ref().unwrap().roller;
    let rolled = outs
        .iter()
        .find_map(|o| match o {
            ChanceOutcome::RolledPrivate {
                owner,
                values: Some(v),
            } if *owner == opener => Some([v[0], v[1]]),
            _ => None,
        })
        .unwrap();
    assert_eq!(g.round, 2);
    assert_eq!(g.phase, Phase::Claim { above: None });
    assert_eq!(g.to_act(), ToAct::Seat(opener));
    assert_eq!(g.cup.as_ref().unwrap().dice, Some(rolled));
    assert_eq!(
        seat2.cup.as_ref().unwrap().dice.is_some(),
        opener == 2,
        "only the opener knows its cup"
    );
    assert_eq!(seat2.view(Some(2)), g.view(Some(2)));
    g.check_invariants().unwrap();
    // The opener's cup opens as the roll it was: a challenge of its claim checks it.
    let claim = g.ranking.weakest();
    g.apply(opener, &Action::Claim(claim)).unwrap();
    let next = g.players.iter().position(|p| p.seat == opener).unwrap();
    let challenger = g.players[(next + 1..next + 3)
        .map(|k| k % 3)
        .find(|&j| g.players[j].lives > 0)
        .unwrap()]
    .seat;
    g.apply(challenger, &Action::Challenge).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("the cup opens")
    };
    let outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
    let ChanceOutcome::Opened { values, .. } = &outs[0] else {
        panic!("{:?}", outs[0])
    };
    assert_eq!(values[..], rolled[..]);
    g.apply_chance(&outs).unwrap();
    assert!(g.is_terminal());
}

/// A table says which dice flow it plays by its version.
#[test]
fn the_dice_flow_follows_the_tables_version() {
    use crate::games::registry::TableGame;
    let setup = Setup::standard(3, Ranking::Traditional);
    assert!(setup.rolls_with_opening);
    assert!(!Mia::at_version(setup.clone(), 7).rolls_with_opening);
    assert!(Mia::at_version(setup.clone(), 8).rolls_with_opening);
    let json = serde_json::to_value(&setup).unwrap();
    assert!(json.get("rolls_with_opening").is_none(), "{json}");
}

/// From version 8 the toss's batch rolls every player's cup too, and the player it names claims
/// from its own at once: no batch of its own for the first cup.
#[test]
fn the_first_cup_is_rolled_with_the_toss() {
    use crate::engine::ChanceOutcome;
    let mut g = Mia::new(&Setup::standard(3, Ranking::Traditional)).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("the toss")
    };
    assert!(matches!(
        reqs[0],
        ChanceRequest::RollPublic { sides: 3, .. }
    ));
    assert_eq!(reqs.len(), 4, "{reqs:?}");
    let mut oracle = crate::engine::sim::Oracle::new(StdRng::seed_from_u64(4));
    let outs = crate::engine::sim::fulfil_all(&mut oracle, &reqs).unwrap();
    let ChanceOutcome::Rolled { values } = &outs[0] else {
        panic!("{:?}", outs[0])
    };
    let first = g.players[values[0] as usize - 1].seat;
    let mut other = g.clone();
    let watcher = g
        .players
        .iter()
        .map(|p| p.seat)
        .find(|s| *s != first)
        .unwrap();
    let masked = crate::engine::sim::masked_for(&outs, &reqs, Some(watcher));
    other.apply_chance(&masked).unwrap();
    g.apply_chance(&outs).unwrap();
    assert_eq!(g.to_act(), ToAct::Seat(first));
    assert_eq!(g.phase, Phase::Claim { above: None });
    assert!(g.cup.as_ref().unwrap().dice.is_some());
    assert!(
        other.cup.as_ref().unwrap().dice.is_none(),
        "not the watcher's cup"
    );
    assert!(g.players.iter().all(|p| p.rolls == 1));
    assert_eq!(other.view(Some(watcher)), g.view(Some(watcher)));
    g.check_invariants().unwrap();
}
