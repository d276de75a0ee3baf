use super::game::{cost, double_id, halves_in, Held};
use super::*;
use crate::bots::{Bot, RandomBot};
use crate::cards::CardId;
use crate::engine::sim::{fulfil_all, play_out, simulate, Oracle, SimOptions};
use crate::engine::{ChanceOutcome, ChanceRequest, Game, ToAct};
use crate::games::registry::TableGame;
use rand::{rngs::StdRng, SeedableRng};

#[test]
fn random_games_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(7);
    for players in [2, 3, 4, 6, 9, 12] {
        let mut s = Setup::new(players);
        s.rounds = Some(2);
        let g = Chickenfoot::new(&s).unwrap();
        for _ in 0..3 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
    }
}

#[test]
fn the_set_and_hand_follow_the_draw_table() {
    let pick = |p: u8| {
        let s = Setup::new(p);
        (s.max_pip(), s.hand_size().unwrap(), s.rounds())
    };
    assert_eq!(pick(2), (9, 14, 10));
    assert_eq!(pick(3), (9, 10, 10));
    assert_eq!(pick(6), (12, 8, 13));
    assert_eq!(pick(9), (12, 5, 13));
    assert_eq!(pick(12), (15, 6, 16));
    let mut s = Setup::new(2);
    s.set = Some(12);
    assert!(s.validate().is_err(), "double-12 is not dealt to 2");
    s.set = Some(15);
    s.players = 6;
    assert_eq!(s.hand_size(), Some(12));
    assert!(Setup::new(13).validate().is_err());
}

#[test]
fn the_centerpiece_is_left_out_of_the_deck_and_lowers_each_round() {
    let spec = game::round_spec(9, 9);
    assert_eq!(spec.len(), 54);
    assert!(!spec.cards().contains(&double_id(9, 9)));
    let mut s = Setup::new(3);
    s.rounds = Some(3);
    let mut g = Chickenfoot::new(&s).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(3));
    play_out(&mut g, &mut oracle, 10_000, |g, seat, legal| {
        GreedyBot.choose(&g.view(Some(seat)), &legal)
    })
    .unwrap();
    let rounds: Vec<(u8, u8)> = g
        .log
        .iter()
        .filter_map(|e| match e {
            Entry::Round { center, first, .. } => Some((*center, *first)),
            _ => None,
        })
        .collect();
    // The first player moves one seat clockwise each round.
    let f = rounds[0].1;
    assert_eq!(rounds, vec![(9, f), (8, (f + 1) % 3), (7, (f + 2) % 3)]);
}

fn lay(l: &mut Layout, moves: &[((u8, u8), Spot)]) {
    for (t, s) in moves {
        assert!(l.fits(*t, *s), "{t:?} does not fit {s:?} on {l:?}");
        l.place(*t, *s);
    }
}

#[test]
fn the_four_sides_of_the_centerpiece_come_first() {
    let mut l = Layout::new(9);
    lay(&mut l, &[((9, 3), Spot::Center), ((9, 5), Spot::Center)]);
    // [3|4] matches the open 3 of an arm, but the centerpiece still has two free sides.
    assert_eq!(l.spots(), vec![(Spot::Center, 9)]);
    assert!(l.spots_for((3, 4)).is_empty());
    lay(&mut l, &[((9, 1), Spot::Center), ((2, 9), Spot::Center)]);
    assert!(!l.fits((9, 8), Spot::Center), "no fifth arm");
    assert_eq!(
        l.spots(),
        vec![
            (Spot::End(0), 3),
            (Spot::End(1), 5),
            (Spot::End(2), 1),
            (Spot::End(3), 2)
        ]
    );
    assert_eq!(l.spots_for((3, 4)), vec![Spot::End(0)]);
}

#[test]
fn a_double_must_be_chickenfooted_before_play_goes_elsewhere() {
    let mut l = Layout::new(9);
    for t in [(9, 3), (9, 5), (9, 1), (9, 2)] {
        lay(&mut l, &[(t, Spot::Center)]);
    }
    lay(&mut l, &[((3, 3), Spot::End(0))]);
    // The next three tiles go on the [3|3] and nowhere else: [5|6] fits line 2 but not now.
    for k in 0..3 {
        assert_eq!(l.spots(), vec![(Spot::Toe(0), 3)], "toe {k}");
        assert!(l.spots_for((5, 6)).is_empty());
        lay(&mut l, &[((3, 4 + k), Spot::Toe(0))]);
    }
    assert_eq!(l.foot, None);
    // The double's line continues only through its toes.
    let open: Vec<Spot> = l.spots().into_iter().map(|(s, _)| s).collect();
    assert_eq!(
        open,
        vec![
            Spot::End(1),
            Spot::End(2),
            Spot::End(3),
            Spot::End(4),
            Spot::End(5),
            Spot::End(6)
        ]
    );
    assert_eq!(
        l.spots_for((5, 6)),
        vec![Spot::End(1), Spot::End(5), Spot::End(6)]
    );
}

fn id(t: (u8, u8)) -> CardId {
    let lo = (t.0.min(t.1), t.0.max(t.1));
    (0..55)
        .map(CardId)
        .find(|c| halves_in(9, *c) == lo)
        .unwrap()
}

fn resolve(g: &mut Chickenfoot, script: &mut crate::engine::sim::Script) {
    while let ToAct::Chance(reqs) = g.to_act() {
        let outs = fulfil_all(script, &reqs).unwrap();
        g.apply_chance(&outs).unwrap();
    }
}

/// A two-player round of double-nine with these hands (seat 0 first), then the yard.
fn dealt(hands: [&[(u8, u8)]; 2], yard: &[(u8, u8)]) -> (Chickenfoot, crate::engine::sim::Script) {
    let mut s = Setup::new(2);
    s.rounds = Some(1);
    let mut first: Vec<CardId> = Vec::new();
    for h in hands {
        assert!(h.len() <= 14);
        first.extend(h.iter().map(|t| id(*t)));
        // Fill the hand to 14 with tiles that are not listed anywhere.
        let fill = 14 - h.len();
        first.extend((0..fill).map(|_| CardId(u16::MAX)));
    }
    let named: Vec<CardId> = hands
        .iter()
        .flat_map(|h| h.iter().map(|t| id(*t)))
        .chain(yard.iter().map(|t| id(*t)))
        .collect();
    // Tiles without a nine fill the hands, so that nobody holds a play by accident.
    let free = |c: &CardId| !named.contains(c) && *c != id((9, 9));
    let has_nine = |c: &CardId| {
        let (a, b) = halves_in(9, *c);
        a == 9 || b == 9
    };
    let mut spare = (0..55u16)
        .map(CardId)
        .filter(|c| free(c) && !has_nine(c))
        .chain((0..55u16).map(CardId).filter(|c| free(c) && has_nine(c)));
    for c in first.iter_mut() {
        if c.0 == u16::MAX {
            *c = spare.next().unwrap();
        }
    }
    first.extend(yard.iter().map(|t| id(*t)));
    first.extend(spare);
    let mut script = crate::engine::sim::Script::new(first, vec![1]);
    let mut g = Chickenfoot::new(&s).unwrap();
    resolve(&mut g, &mut script);
    (g, script)
}

fn pos(g: &Chickenfoot, seat: u8, t: (u8, u8)) -> u16 {
    g.hands[&seat]
        .iter()
        .find(|h| h.tile == Some(id(t)))
        .unwrap_or_else(|| panic!("seat {seat} holds no {t:?}"))
        .position
}

/// A round in play with exactly these tiles held and the yard empty (full information).
fn holding(hands: [&[(u8, u8)]; 2]) -> Chickenfoot {
    let (mut g, _) = dealt([&[], &[]], &[]);
    let mut position = 0;
    for (s, h) in hands.iter().enumerate() {
        g.hands.insert(
            s as u8,
            h.iter()
                .map(|t| {
                    position += 1;
                    Held {
                        position,
                        tile: Some(id(*t)),
                    }
                })
                .collect(),
        );
    }
    g.next_position = g.deck_len();
    g
}

/// Shows every held tile from what the state knows.
fn show(g: &mut Chickenfoot) {
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("the hands are shown");
    };
    let outs: Vec<ChanceOutcome> = reqs
        .iter()
        .map(|r| {
            let ChanceRequest::Reveal { deck, position } = r else {
                panic!("{r:?}")
            };
            let card = g
                .hands
                .values()
                .flatten()
                .find(|h| h.position == *position)
                .and_then(|h| h.tile)
                .unwrap();
            ChanceOutcome::Revealed {
                deck: *deck,
                position: *position,
                card,
            }
        })
        .collect();
    g.apply_chance(&outs).unwrap();
}

#[test]
fn a_player_draws_one_tile_then_plays_it_or_passes() {
    // Seat 0 has no 9; the yard's first tile has none either, its second does.
    let (mut g, mut script) = dealt([&[(1, 2)], &[(0, 1)]], &[(3, 4), (9, 7)]);
    assert_eq!(g.to_act(), ToAct::Seat(0));
    assert_eq!(g.legal_actions(0), vec![Action::Draw]);
    assert!(g.apply(0, &Action::Pass).is_err(), "no pass before a draw");
    g.apply(0, &Action::Draw).unwrap();
    resolve(&mut g, &mut script);
    assert_eq!(g.legal_actions(0), vec![Action::Pass]);
    assert!(g.apply(0, &Action::Draw).is_err(), "one draw a turn");
    g.apply(0, &Action::Pass).unwrap();
    assert_eq!(g.to_act(), ToAct::Seat(1));
    // Seat 1 draws the [9|7] and may play it at once, and only it.
    g.apply(1, &Action::Draw).unwrap();
    resolve(&mut g, &mut script);
    let p = pos(&g, 1, (9, 7));
    assert_eq!(
        g.legal_actions(1),
        vec![Action::Play {
            position: p,
            spot: Spot::Center
        }]
    );
    g.apply(
        1,
        &Action::Play {
            position: p,
            spot: Spot::Center,
        },
    )
    .unwrap();
    resolve(&mut g, &mut script);
    assert_eq!(g.layout.lines[0].tiles, vec![(9, 7)]);
    assert_eq!(g.to_act(), ToAct::Seat(0));
    let words = g.story(None, &|s| format!("seat {s}"));
    assert!(words.contains(&"seat 0 draws a tile from the chicken yard".to_string()));
    assert!(words.contains(&"seat 1 sets [7|9] on the centerpiece".to_string()));
}

#[test]
fn no_draw_ends_the_round_with_tiles_in_every_hand_and_pips_score() {
    let mut g = holding([&[(1, 2), (0, 0)], &[(3, 4), (8, 8)]]);
    assert_eq!(g.legal_actions(0), vec![Action::Pass]);
    g.apply(0, &Action::Pass).unwrap();
    assert_eq!(g.ended, Some(RoundEnd::NoDraw(0)));
    show(&mut g);
    // The double blank costs 50, not 0.
    assert_eq!(g.scores, vec![53, 23]);
    assert_eq!(cost((0, 0)), 50);
    let o = g.outcome().unwrap();
    assert_eq!(o.winners, vec![1], "the fewest points win");
    let words = g.story(Some(1), &|s| {
        if s == 1 {
            "you".into()
        } else {
            "Ann".into()
        }
    });
    assert!(
        words.contains(
            &"Ann cannot play and the chicken yard is empty: no draw, the round is over"
                .to_string()
        ),
        "{words:?}"
    );
    assert!(
        words.contains(&"you show [3|4] [8|8]: 23 points".to_string()),
        "{words:?}"
    );
    assert!(!words.iter().any(|w| w.contains("Some(")), "{words:?}");
}

#[test]
fn going_out_ends_the_round_and_the_others_pay_their_pips() {
    let mut g = holding([&[(9, 2)], &[(5, 6), (1, 1)]]);
    let p = pos(&g, 0, (9, 2));
    g.apply(
        0,
        &Action::Play {
            position: p,
            spot: Spot::Center,
        },
    )
    .unwrap();
    // The played tile is shown, then the held ones.
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!()
    };
    let ChanceRequest::Reveal { deck, position } = reqs[0] else {
        panic!()
    };
    g.apply_chance(&[ChanceOutcome::Revealed {
        deck,
        position,
        card: id((9, 2)),
    }])
    .unwrap();
    assert_eq!(g.ended, Some(RoundEnd::Out(0)));
    show(&mut g);
    assert_eq!(g.scores, vec![0, 13]);
}

#[test]
fn the_greedy_bot_beats_random() {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(11));
    let (mut greedy, mut random) = (0i64, 0i64);
    for k in 0..60 {
        let mut s = Setup::new(2);
        s.rounds = Some(1);
        let mut g = Chickenfoot::new(&s).unwrap();
        let mut rnd = RandomBot::new(StdRng::seed_from_u64(k));
        let (o, _) = play_out(&mut g, &mut oracle, 10_000, |g, seat, legal| {
            let v = g.view(Some(seat));
            if seat == (k % 2) as u8 {
                GreedyBot.choose(&v, &legal)
            } else {
                Bot::<Chickenfoot>::choose(&mut rnd, &v, &legal)
            }
        })
        .unwrap();
        greedy += o.payoffs[(k % 2) as usize].1;
        random += o.payoffs[1 - (k % 2) as usize].1;
    }
    assert!(greedy > random, "greedy {greedy} vs random {random}");
}
