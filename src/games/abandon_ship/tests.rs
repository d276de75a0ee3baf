use super::*;
use crate::engine::sim::settle;
use crate::engine::sim::{simulate, SimOptions};
use rand::{rngs::StdRng, Rng, SeedableRng};

fn capped(players: u8, rounds: u32) -> Setup {
    Setup {
        rounds: Some(rounds),
        ..Setup::new(players)
    }
}

/// Two thousand one-round games keep every card in one place and the points to the boats.
#[test]
fn thousands_of_random_games_keep_every_card_and_point() {
    crate::engine::sim::light_games(2..=8, 300, 11, 20, |players| {
        AbandonShip::new(&capped(players, 1)).unwrap()
    });
}

#[test]
fn random_games_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut steps = 0;
    for (players, games) in [(2, 40), (3, 40), (4, 30), (5, 24), (6, 12), (7, 8), (8, 8)] {
        let g = AbandonShip::new(&capped(players, 2)).unwrap();
        for _ in 0..games {
            steps += simulate(&g, &mut rng, &SimOptions::default())
                .unwrap()
                .steps;
        }
    }
    // Whole games to 200 points.
    for players in [2, 4] {
        let g = AbandonShip::new(&Setup::new(players)).unwrap();
        for _ in 0..2 {
            let r = simulate(&g, &mut rng, &SimOptions::default()).unwrap();
            assert!(r
                .outcome
                .unwrap()
                .winners
                .iter()
                .all(|w| g.setup.players > *w));
            steps += r.steps;
        }
    }
    eprintln!("{steps} steps simulated");
    assert!(steps > 30_000, "only {steps} steps simulated");
}

use super::game::{Face, Held, HAND};
use crate::bots::{Bot, RandomBot};
use crate::cards::{CardId, PlayingCard};
use crate::engine::sim::{fulfil_all, play_out, Oracle, Script};
use crate::engine::{ChanceOutcome, ChanceRequest, ForfeitReason, Game, Seat, ToAct};

fn c(name: &str) -> CardId {
    PlayingCard::parse(name).unwrap().id()
}

fn cs(names: &str) -> Vec<CardId> {
    names.split_whitespace().map(c).collect()
}

/// A whole one-deck order: the hands (seat 0 first), then `rest`, then every other card.
fn deck(hands: &[&str], rest: &str) -> Vec<CardId> {
    let mut d: Vec<CardId> = hands.iter().flat_map(|h| cs(h)).collect();
    d.extend(cs(rest));
    let named = d.clone();
    d.extend((0..52).map(CardId).filter(|x| !named.contains(x)));
    d
}

fn pos(g: &AbandonShip, seat: Seat, card: &str) -> u16 {
    g.hands[&seat]
        .iter()
        .find(|h| h.card == Some(c(card)))
        .unwrap_or_else(|| panic!("seat {seat} holds no {card}"))
        .position
}

fn play(g: &mut AbandonShip, seat: Seat, a: Action, script: &mut Script) {
    g.apply(seat, &a).unwrap();
    settle(g, script).unwrap();
}

fn raise(g: &AbandonShip, seat: Seat, card: &str) -> Action {
    Action::Raise {
        position: pos(g, seat, card),
    }
}

fn fight(g: &AbandonShip, seat: Seat, card: &str, target: Seat) -> Action {
    Action::Fight {
        position: pos(g, seat, card),
        target,
    }
}

#[test]
fn a_king_cannot_be_answered_and_a_public_die_picks_the_losers_card() {
    let hands = ["KS 2C 3C 4C 5C", "6H 7H 8H 9H 10H", "2D 3D 4D 5D 6D"];
    let mut script = Script::new(deck(&hands, ""), vec![3]);
    let mut g = AbandonShip::new(&Setup::new(3)).unwrap();
    settle(&mut g, &mut script).unwrap();
    assert_eq!(g.to_act(), ToAct::Seat(0), "the dealer plays first");
    g.apply(0, &fight(&g, 0, "KS", 1)).unwrap();
    // The King is shown; nobody may answer it: the die is rolled at once, by everyone.
    let r = fulfil_all(
        &mut script,
        &match g.to_act() {
            ToAct::Chance(r) => r,
            other => panic!("{other:?}"),
        },
    )
    .unwrap();
    g.apply_chance(&r).unwrap();
    assert_eq!(
        g.to_act(),
        ToAct::Chance(vec![ChanceRequest::RollPublic {
            sides: 5,
            count: 1,
            by: Some(0)
        }])
    );
    settle(&mut g, &mut script).unwrap();
    // Die 3: the third of seat 1's cards by deck position, 8♥, face up on seat 0's board.
    assert_eq!(
        g.boards[&0],
        vec![Face {
            position: 7,
            card: c("8H")
        }]
    );
    assert_eq!(
        g.lifeboats[3].iter().map(|f| f.card).collect::<Vec<_>>(),
        cs("KS")
    );
    assert!(g.log.contains(&Entry::Unanswerable { seat: 0 }));
    // Seat 1's turn: it draws back up to five first.
    assert_eq!(g.to_act(), ToAct::Seat(1));
    assert_eq!(g.hands[&1].len(), HAND);
    assert!(g.log.contains(&Entry::Drew { seat: 1, count: 1 }));
    // Everyone sees the board card; nobody sees another's hand.
    let v = g.view(Some(2));
    assert_eq!(v.boards[0].1, cs("8H"));
    assert!(v.hands[1].1.iter().all(Option::is_none));
}

#[test]
fn a_fight_escalates_by_strictly_higher_ranks_until_a_surrender() {
    let hands = ["5S 9C 2C 3C 4C", "7H 9H 8D 2H 3H", "2D 3D 4D 5D 6D"];
    let mut script = Script::new(deck(&hands, ""), vec![1]);
    let mut g = AbandonShip::new(&Setup::new(3)).unwrap();
    settle(&mut g, &mut script).unwrap();
    {
        let a = fight(&g, 0, "5S", 1);
        play(&mut g, 0, a, &mut script);
    }
    assert_eq!(g.to_act(), ToAct::Seat(1), "the attacked player answers");
    let legal = g.legal_actions(1);
    assert!(legal.contains(&raise(&g, 1, "7H")) && legal.contains(&Action::Surrender));
    assert!(
        !legal.contains(&raise(&g, 1, "2H")),
        "a lower card does not answer"
    );
    let copy = g.clone();
    assert!(g.apply(1, &raise(&g, 1, "3H")).is_err());
    assert_eq!(g, copy, "a refusal changes nothing");
    {
        let a = raise(&g, 1, "8D");
        play(&mut g, 1, a, &mut script);
    }
    // 8 against 8 is no raise: strictly higher only.
    assert!(g
        .legal_actions(0)
        .iter()
        .all(|a| !matches!(a, Action::Raise { .. }) || *a == raise(&g, 0, "9C")));
    {
        let a = raise(&g, 0, "9C");
        play(&mut g, 0, a, &mut script);
    }
    {
        let a = Action::Surrender;
        play(&mut g, 1, a, &mut script);
    }
    // Seat 0 wins; the die (1) takes seat 1's card at the lowest position; fight cards go to
    // their lifeboats.
    assert_eq!(g.boards[&0].len(), 1);
    assert_eq!(g.lifeboat_points(), vec![9, 8, 0, 5]);
    assert_eq!(g.hands[&0].len(), 3);
    assert_eq!(g.to_act(), ToAct::Seat(1));
    assert!(
        g.log.contains(&Entry::Drew { seat: 1, count: 2 }),
        "seat 1 played one card in the fight and lost one to seat 0: it draws two"
    );
}

#[test]
fn the_last_card_may_be_played_only_if_it_is_a_king() {
    // Two players: seat 1 (five cards) attacks; seat 0, four cards after its discard, answers
    // three times and is left with 9♣: not a King, so it cannot be played.
    let hands = ["3C 5C 7C 9C JD", "2S 4S 6S 8S 10S"];
    let mut script = Script::new(deck(&hands, ""), vec![]);
    let mut g = AbandonShip::new(&Setup::new(2)).unwrap();
    settle(&mut g, &mut script).unwrap();
    {
        let a = Action::Discard {
            position: pos(&g, 0, "JD"),
        };
        play(&mut g, 0, a, &mut script);
    }
    // Seat 0 has not drawn yet: the other client sees four cards and a full hand for seat 1.
    {
        let a = fight(&g, 1, "2S", 0);
        play(&mut g, 1, a, &mut script);
    }
    for (s, card) in [
        (0, "3C"),
        (1, "4S"),
        (0, "5C"),
        (1, "6S"),
        (0, "7C"),
        (1, "8S"),
    ] {
        {
            let a = raise(&g, s, card);
            play(&mut g, s, a, &mut script);
        }
    }
    assert_eq!(g.hands[&0].len(), 1);
    assert_eq!(g.legal_actions(0), vec![Action::Surrender]);
    let copy = g.clone();
    let e = g.apply(0, &raise(&g, 0, "9C")).unwrap_err().to_string();
    assert!(e.contains("only if it is a King"), "{e}");
    assert_eq!(g, copy);
    // A client that cannot see 9♣ accepts the move, and removes the player when it is shown.
    let mut blind = g.clone();
    for h in blind.hands.get_mut(&0).unwrap() {
        h.card = None;
    }
    blind.apply(0, &raise(&g, 0, "9C")).unwrap();
    settle(&mut blind, &mut script).unwrap();
    assert_eq!(blind.to_act(), ToAct::Terminal);
    assert_eq!(blind.removed, vec![0]);
    assert!(blind.outcome().unwrap().winners.is_empty());
    assert!(matches!(
        blind.log.last(),
        Some(Entry::Misplayed { seat: 0, .. })
    ));
}

#[test]
fn a_king_may_be_the_last_card_and_nobody_empty_handed_can_be_attacked() {
    let hands = ["3C 5C 7C KC JD", "2S 4S 6S 8S 10S", "2D 3D 4D 5D 6D"];
    let mut script = Script::new(deck(&hands, ""), vec![]);
    let mut g = AbandonShip::new(&Setup::new(3)).unwrap();
    settle(&mut g, &mut script).unwrap();
    {
        let a = Action::Discard {
            position: pos(&g, 0, "JD"),
        };
        play(&mut g, 0, a, &mut script);
    }
    {
        let a = fight(&g, 1, "2S", 0);
        play(&mut g, 1, a, &mut script);
    }
    for (s, card) in [
        (0, "3C"),
        (1, "4S"),
        (0, "5C"),
        (1, "6S"),
        (0, "7C"),
        (1, "8S"),
    ] {
        {
            let a = raise(&g, s, card);
            play(&mut g, s, a, &mut script);
        }
    }
    assert_eq!(
        g.legal_actions(0),
        vec![raise(&g, 0, "KC"), Action::Surrender]
    );
    {
        let a = raise(&g, 0, "KC");
        play(&mut g, 0, a, &mut script);
    }
    // Seat 0, empty-handed, wins and takes seat 1's last card (one card: no die).
    assert!(g.hands[&0].is_empty());
    assert_eq!(
        g.boards[&0],
        vec![Face {
            position: 9,
            card: c("10S")
        }]
    );
    assert!(g.hands[&1].is_empty());
    // Seat 2 may fight nobody: both other hands are empty.
    assert_eq!(g.to_act(), ToAct::Seat(2));
    assert!(g
        .legal_actions(2)
        .iter()
        .all(|a| matches!(a, Action::Discard { .. })));
    let copy = g.clone();
    assert!(g.apply(2, &fight(&g, 2, "6D", 0)).is_err());
    assert_eq!(g, copy);
}

/// A showdown set by hand: hands, boards and lifeboats, then the Key Cards.
fn showdown(
    players: u8,
    hands: &[&str],
    boards: &[&str],
    boats: [&str; 4],
    keys: &[&str],
) -> AbandonShip {
    let mut g = AbandonShip::new(&Setup {
        rounds: Some(1),
        ..Setup::new(players)
    })
    .unwrap();
    settle(
        &mut g,
        &mut Script::new(Setup::new(players).spec().cards(), vec![]),
    )
    .unwrap();
    let held = |s: &str| -> Vec<Held> {
        cs(s)
            .into_iter()
            .map(|card| Held {
                position: card.0,
                card: Some(card),
            })
            .collect()
    };
    let face = |s: &str| -> Vec<Face> {
        cs(s)
            .into_iter()
            .map(|card| Face {
                position: card.0,
                card,
            })
            .collect()
    };
    for (i, h) in hands.iter().enumerate() {
        g.hands.insert(i as Seat, held(h));
        g.boards.insert(i as Seat, face(boards[i]));
    }
    g.lifeboats = boats.iter().map(|b| face(b)).collect();
    g.phase = Phase::Key;
    assert_eq!(g.to_act(), ToAct::Sealed(g.key_seats()));
    for (i, k) in keys.iter().enumerate() {
        if !k.is_empty() {
            let s = i as Seat;
            g.apply(
                s,
                &Action::Key {
                    position: pos(&g, s, k),
                },
            )
            .unwrap();
        }
    }
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("the hands are shown")
    };
    let outs: Vec<ChanceOutcome> = reqs
        .iter()
        .map(|r| match r {
            ChanceRequest::Reveal { deck, position } => ChanceOutcome::Revealed {
                deck: *deck,
                position: *position,
                card: CardId(*position),
            },
            other => panic!("{other:?}"),
        })
        .collect();
    g.apply_chance(&outs).unwrap();
    g
}

fn boarded(g: &AbandonShip) -> Vec<(u8, i64, Option<Seat>)> {
    g.log
        .iter()
        .filter_map(|e| match e {
            Entry::Boarded {
                suit, points, seat, ..
            } => Some((*suit, *points, *seat)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_rule_books_scoring_example() {
    // Player 1 keys a Spade, Players 2 and 3 Hearts, Player 4 holds nothing. Player 2: 6♥ on
    // the board and Q♥ as Key (18); Player 3: 2♥ as Key with 3♥ 7♥ in hand (12).
    let g = showdown(
        4,
        &["JS 2C", "QH 4C 5D", "2H 3H 7H 9C", ""],
        &["", "6H", "", "KD"],
        ["", "", "AH 4H 5H", "10S 8S"],
        &["JS", "QH", "2H", ""],
    );
    assert_eq!(boarded(&g), vec![(2, 10, Some(1)), (3, 18, Some(0))]);
    let hearts = g.log.iter().find_map(|e| match e {
        Entry::Boarded {
            suit: 2, claims, ..
        } => Some(claims.clone()),
        _ => None,
    });
    let held: Vec<(Seat, i64)> = hearts.unwrap().iter().map(|c| (c.seat, c.held)).collect();
    assert_eq!(held, vec![(1, 18), (2, 12)]);
    assert_eq!(g.scores, vec![18, 10, 0, 0]);
    assert!(g
        .log
        .iter()
        .any(|e| matches!(e, Entry::Keys { drowned, .. } if *drowned == vec![3])));
    assert_eq!(g.to_act(), ToAct::Terminal);
    assert_eq!(g.winners, vec![0]);
}

#[test]
fn a_tie_on_suit_points_goes_to_the_highest_card_and_an_exact_tie_boards_nobody() {
    // K♥ 2♥ (15) against Q♥ 3♥ (15): the King decides.
    let g = showdown(
        2,
        &["KH 2H", "QH 3H"],
        &["", ""],
        ["", "", "9H", ""],
        &["2H", "QH"],
    );
    assert_eq!(boarded(&g), vec![(2, 9, Some(0))]);
    // Two decks: the same ranks on both sides, second-highest and on: nobody gets in.
    let q2 = PlayingCard::parse("QH#1").unwrap().id();
    let mut g = AbandonShip::new(&Setup {
        rounds: Some(1),
        ..Setup::new(6)
    })
    .unwrap();
    settle(
        &mut g,
        &mut Script::new(Setup::new(6).spec().cards(), vec![]),
    )
    .unwrap();
    let _ = (&mut g, q2);
    let g = showdown(
        6,
        &["QH 2H", "QH#1 2H#1", "3C", "3D", "3S", "4S"],
        &["", "", "", "", "", ""],
        ["", "", "9H", ""],
        &["QH", "QH#1", "3C", "3D", "3S", "4S"],
    );
    assert_eq!(boarded(&g)[2], (2, 9, None));
    assert_eq!(g.scores[0] + g.scores[1], 0);
    // Second-highest decides where the highest tie.
    let g = showdown(
        6,
        &["QH 5H", "QH#1 4H AH", "3C", "3D", "3S", "4S"],
        &["", "", "", "", "", ""],
        ["", "", "9H", ""],
        &["QH", "QH#1", "3C", "3D", "3S", "4S"],
    );
    assert_eq!(boarded(&g)[2], (2, 9, Some(0)));
}

#[test]
fn key_cards_stay_hidden_until_all_are_in() {
    let mut g = AbandonShip::new(&Setup::new(3)).unwrap();
    settle(
        &mut g,
        &mut Script::new(Setup::new(3).spec().cards(), vec![]),
    )
    .unwrap();
    g.phase = Phase::Key;
    let before: Vec<_> = [None, Some(1), Some(2)].map(|v| g.view(v)).to_vec();
    let a = g.legal_actions(0)[2];
    g.apply(0, &a).unwrap();
    let after: Vec<_> = [None, Some(1), Some(2)].map(|v| g.view(v)).to_vec();
    assert_eq!(
        before, after,
        "nobody sees a Key Card, nor that one was chosen"
    );
    assert_eq!(g.to_act(), ToAct::Sealed(vec![1, 2]));
    assert!(g.legal_actions(0).is_empty());
    let copy = g.clone();
    let other = Action::Key {
        position: g.hands[&2][0].position,
    };
    assert!(g.apply(1, &other).is_err(), "a Key Card is one's own");
    assert_eq!(g, copy);
}

#[test]
fn two_players_set_five_cards_aside_that_nobody_ever_sees() {
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..20 {
        let mut g = AbandonShip::new(&capped(2, 3)).unwrap();
        let mut oracle = Oracle::new(StdRng::seed_from_u64(rng.gen_range(0..1_000_000)));
        let mut moves = StdRng::seed_from_u64(rng.gen_range(0..1_000_000));
        while !g.is_terminal() {
            match g.to_act() {
                ToAct::Chance(reqs) => {
                    for r in &reqs {
                        if let ChanceRequest::Deal { position, .. }
                        | ChanceRequest::Reveal { position, .. } = r
                        {
                            assert!(!(10..15).contains(position), "a set-aside card: {r:?}");
                        }
                    }
                    let o = fulfil_all(&mut oracle, &reqs).unwrap();
                    g.apply_chance(&o).unwrap();
                }
                ToAct::Seat(s) => {
                    let l = g.legal_actions(s);
                    g.apply(s, &l[moves.gen_range(0..l.len())]).unwrap();
                }
                ToAct::Sealed(v) => {
                    for s in v {
                        let l = g.legal_actions(s);
                        g.apply(s, &l[moves.gen_range(0..l.len())]).unwrap();
                    }
                }
                ToAct::Terminal => {}
            }
        }
    }
}

#[test]
fn six_to_eight_players_share_two_decks_dealt_as_eight_hands() {
    let g = AbandonShip::new(&Setup::new(6)).unwrap();
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!()
    };
    assert!(matches!(&reqs[0], ChanceRequest::Shuffle { spec, .. } if spec.len() == 104));
    assert_eq!(reqs.len(), 1 + 30);
    // The two unused hands are set aside: the draw pile starts at position 40.
    assert_eq!(g.next_position, 40);
    assert_eq!(
        AbandonShip::new(&Setup::new(5)).unwrap().setup.deck_size(),
        52
    );
}

#[test]
fn the_dealer_rotates_and_the_game_ends_at_200_points() {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(21));
    let mut moves = StdRng::seed_from_u64(22);
    let mut g = AbandonShip::new(&Setup::new(3)).unwrap();
    let (o, _) = play_out(&mut g, &mut oracle, 100_000, |_, _, l| {
        l[moves.gen_range(0..l.len())]
    })
    .unwrap();
    let dealers: Vec<Seat> = g
        .log
        .iter()
        .filter_map(|e| match e {
            Entry::Round { dealer, .. } => Some(*dealer),
            _ => None,
        })
        .collect();
    assert!(dealers.len() >= 2, "{dealers:?}");
    for (i, d) in dealers.iter().enumerate() {
        assert_eq!(*d as usize, i % 3);
    }
    let top = *g.scores.iter().max().unwrap();
    assert!(top >= 200);
    assert_eq!(
        o.winners
            .iter()
            .map(|w| g.scores[*w as usize])
            .collect::<Vec<_>>(),
        vec![top; o.winners.len()]
    );
    // Before the last round nobody had reached the target.
    let last = g
        .log
        .iter()
        .rev()
        .filter_map(|e| match e {
            Entry::Scores { scores } => Some(scores.clone()),
            _ => None,
        })
        .nth(1);
    if let Some(prev) = last {
        assert!(prev.iter().all(|(_, p)| *p < 200));
    }
}

#[test]
fn a_forfeit_ends_the_game_without_a_winner() {
    let mut g = AbandonShip::new(&Setup::new(3)).unwrap();
    settle(
        &mut g,
        &mut Script::new(Setup::new(3).spec().cards(), vec![]),
    )
    .unwrap();
    g.forfeit(&[1], ForfeitReason::Absent).unwrap();
    assert_eq!(g.to_act(), ToAct::Terminal);
    assert!(g.participants().is_empty());
    let o = g.outcome().unwrap();
    assert!(o.winners.is_empty());
    assert_eq!(o.payoffs, vec![(0, 1), (1, -2), (2, 1)]);
    assert!(g.forfeit(&[0], ForfeitReason::Absent).is_err());
}

/// Games the sailor bot (seat `k % players`) wins against random bots, out of `games`.
fn sailor_wins(players: u8, games: u64, seed: u64) -> (u64, u64) {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed));
    let mut won = 0;
    for k in 0..games {
        let me = (k % u64::from(players)) as Seat;
        let mut g = AbandonShip::new(&Setup::new(players)).unwrap();
        let mut smart = SailorBot::new(StdRng::seed_from_u64(seed + k));
        let mut random = RandomBot::new(StdRng::seed_from_u64(seed + k + 100_000));
        let (o, _) = play_out(&mut g, &mut oracle, 200_000, |g, seat, legal| {
            let view = g.view(Some(seat));
            if seat == me {
                smart.choose(&view, &legal)
            } else {
                Bot::<AbandonShip>::choose(&mut random, &view, &legal)
            }
        })
        .unwrap();
        if o.winners == vec![me] {
            won += 1;
        }
    }
    (won, games)
}

#[test]
fn the_sailor_bot_beats_random() {
    // Heads-up, whole games to 200: random would win about half.
    let (won, games) = sailor_wins(2, 300, 9);
    assert!(
        won * 100 > games * 65,
        "the sailor bot won {won} of {games}"
    );
}

/// The measured margin for BENCHMARKS.md:
/// `cargo test --release --lib games::abandon_ship::tests::measure_the_sailor_bot -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_the_sailor_bot() {
    for players in [2, 3, 4] {
        let (won, n) = sailor_wins(players, 1000, 77);
        let p = won as f64 / n as f64;
        let ci = 1.96 * (p * (1.0 - p) / n as f64).sqrt();
        println!(
            "{players} players: the sailor bot won {won} of {n} = {:.1}% ± {:.1}% (random's share {:.1}%)",
            100.0 * p,
            100.0 * ci,
            100.0 / f64::from(players)
        );
    }
}

/// The screen a panel draws at 80×24 for seat `me` of three (Ann, Bob, Cy).
fn panel_screen(p: &ui::panel::AbandonPanel, g: &AbandonShip, me: Seat) -> String {
    use crate::games::ui::GameUi;
    use crate::games::ui::{Ctx, Theme};
    let names = vec!["Ann".to_string(), "Bob".to_string(), "Cy".to_string()];
    let name = |s: Seat| {
        if s == me {
            "you".to_string()
        } else {
            names[s as usize].clone()
        }
    };
    let story = g.story(Some(me), &name);
    let theme = Theme { color: false };
    let ctx = Ctx {
        theme: &theme,
        names: &names,
        me: Some(me),
        awaited: &[me],
        what: "move",
        secs_left: None,
        story: &story,
        asked: true,
    };
    crate::games::ui::panel::screen_80x24::<AbandonShip>(p, &ctx)
}

#[test]
fn the_panel_shows_lifeboats_boards_the_fight_and_every_move_by_key_at_80_by_24() {
    use crate::games::ui::{Outcome, Panel};
    use crossterm::event::{KeyCode, KeyEvent};
    let key = |c: char| KeyEvent::from(KeyCode::Char(c));
    let hands = ["5S 9C 2C 3C 4C", "7H 9H 8D 2H 3H", "2D 3D 4D 5D 6D"];
    let mut script = Script::new(deck(&hands, ""), vec![1]);
    let mut g = AbandonShip::new(&Setup::new(3)).unwrap();
    settle(&mut g, &mut script).unwrap();
    // Seat 0 to play: the cursor's card is discarded with d, or fights with f then whom.
    let mut p = ui::panel::AbandonPanel::default();
    p.ask(&g.view(Some(0)), &g.legal_actions(0));
    let screen = panel_screen(&p, &g, 0);
    for want in [
        "lifeboats ♣   0 pts  ♦   0 pts  ♥   0 pts  ♠   0 pts",
        "▶ #0 you            0/200  hand 5  board empty",
        "#1 Bob            0/200  hand 5  board empty",
        "5♠ 9♣ 2♣ 3♣ 4♣",
        "[d] discard 5♠",
        "[f] fight with 5♠",
    ] {
        assert!(screen.contains(want), "{want:?} missing from\n{screen}");
    }
    assert!(!screen.contains("7♥"), "another's hand shown:\n{screen}");
    assert_eq!(p.key(key('f')), Outcome::None, "two players to choose from");
    assert!(
        p.help().contains("1: fight #1 · 2: fight #2"),
        "{}",
        p.help()
    );
    assert_eq!(p.key(key('1')), Outcome::Play(fight(&g, 0, "5S", 1)));
    p.ask(&g.view(Some(0)), &g.legal_actions(0));
    p.key(KeyEvent::from(KeyCode::Right));
    assert_eq!(
        p.key(key('d')),
        Outcome::Play(Action::Discard {
            position: pos(&g, 0, "9C")
        })
    );
    // Seat 1 is attacked with 5♠: the fight is on the screen, with what beats it.
    {
        let a = fight(&g, 0, "5S", 1);
        play(&mut g, 0, a, &mut script);
    }
    let mut p = ui::panel::AbandonPanel::default();
    p.ask(&g.view(Some(1)), &g.legal_actions(1));
    let screen = panel_screen(&p, &g, 1);
    for want in [
        "fight     Ann attacks you: 5♠  (you must beat 5♠ or surrender)",
        "[a] answer with 7♥",
        "[s] surrender",
    ] {
        assert!(screen.contains(want), "{want:?} missing from\n{screen}");
    }
    // A spectator sees the fight and the boards, no hand.
    let mut watching = ui::panel::AbandonPanel::default();
    watching.see(&g.view(None));
    let seen = panel_screen(&watching, &g, 2);
    assert!(seen.contains("attacks Bob: 5♠"), "{seen}");
    for hidden in ["9♣", "7♥", "2♦", "[s]"] {
        assert!(
            !seen.contains(hidden),
            "{hidden} shown to a spectator:\n{seen}"
        );
    }
    // The cursor starts on a card that beats it; 2♥ does not.
    assert_eq!(p.key(key('a')), Outcome::Play(raise(&g, 1, "7H")));
    p.ask(&g.view(Some(1)), &g.legal_actions(1));
    p.key(KeyEvent::from(KeyCode::Char('4')));
    assert_eq!(p.key(key('a')), Outcome::None);
    assert!(panel_screen(&p, &g, 1).contains("does not beat"));
    assert_eq!(p.key(key('s')), Outcome::Play(Action::Surrender));
    // A surrender: Ann's board gets one of Bob's cards, face up for everyone.
    play(&mut g, 1, Action::Surrender, &mut script);
    let p = {
        let mut p = ui::panel::AbandonPanel::default();
        p.see(&g.view(Some(2)));
        p
    };
    let screen = panel_screen(&p, &g, 2);
    let board = game::card_name(g.boards[&0][0].card);
    assert!(
        screen.contains(&format!("#0 Ann            0/200  hand 4  board {board}")),
        "{screen}"
    );
    assert!(
        screen.contains("♠   5 pts"),
        "the fight card in its lifeboat:\n{screen}"
    );
}

#[test]
fn a_bare_card_on_a_turn_asks_whether_to_discard_or_fight_and_a_capped_game_says_so() {
    use crate::games::ui::GameUi;
    let hands = ["5S 9C 2C 3C 4C", "7H 9H 8D 2H 3H", "2D 3D 4D 5D 6D"];
    let mut script = Script::new(deck(&hands, ""), vec![1]);
    let mut g = AbandonShip::new(&capped(3, 2)).unwrap();
    settle(&mut g, &mut script).unwrap();
    let name = |s: Seat| ["you", "Ann", "Bob"][s as usize].to_string();
    let v = g.view(Some(0));
    let legal = g.legal_actions(0);
    // Discarding and fighting both take a card: a card alone is neither.
    let e = AbandonShip::parse_move("5s", &v, &legal).unwrap_err();
    assert!(
        e.contains("discard 5♠ or fight with it") && e.contains("discard 5S"),
        "{e}"
    );
    assert_eq!(
        AbandonShip::parse_move("discard 5s", &v, &legal),
        Ok(Action::Discard {
            position: pos(&g, 0, "5S")
        })
    );
    // `--hands 2` ends the game after two rounds, whatever the points: the header says both.
    let table = AbandonShip::render(&v, &name);
    assert!(
        table.starts_with("── round 1 of 2 ·") && table.contains("playing to 200 or for 2 rounds"),
        "{table}"
    );
    let open = AbandonShip::render(
        &AbandonShip::new(&Setup::new(3)).unwrap().view(Some(0)),
        &name,
    );
    assert!(open.contains("playing to 200 ──"), "{open}");
    // Answering a fight, a card alone can only mean the answer.
    let a = fight(&g, 0, "5S", 1);
    play(&mut g, 0, a, &mut script);
    let e = AbandonShip::parse_move("7h", &g.view(Some(1)), &g.legal_actions(1));
    assert_eq!(e, Ok(raise(&g, 1, "7H")));
}
