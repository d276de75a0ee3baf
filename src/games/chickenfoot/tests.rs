use super::game::{cost, double_id, halves_in};
use super::*;
use crate::bots::{Bot, RandomBot};
use crate::cards::CardId;
use crate::engine::sim::{fulfil_all, play_out, simulate, Oracle, SimOptions};
use crate::engine::{ChanceOutcome, ChanceRequest, Game, ToAct};
use crate::games::dominoes::testing::{known_hands, shown, you_and_ann};
use crate::games::ui::GameUi;
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
    g.board.hands[&seat]
        .iter()
        .find(|h| h.tile == Some(id(t)))
        .unwrap_or_else(|| panic!("seat {seat} holds no {t:?}"))
        .position
}

/// A round in play with exactly these tiles held and the yard empty (full information).
fn holding(hands: [&[(u8, u8)]; 2]) -> Chickenfoot {
    let (mut g, _) = dealt([&[], &[]], &[]);
    g.board.hands.extend(known_hands(&hands, id));
    g.board.next_position = g.deck_len();
    g
}

/// Shows every held tile from what the state knows.
fn show(g: &mut Chickenfoot) {
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("the hands are shown");
    };
    g.apply_chance(&shown(&g.board.hands, &reqs)).unwrap();
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
    let words = g.story(Some(1), &you_and_ann);
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

/// The screen a panel draws at `w`×`h`, row by row.
fn screen(p: &ui::panel::ChickenfootPanel, names: &[String], story: &[String], me: u8) -> String {
    use crate::games::ui::{Ctx, Panel, Theme};
    use ratatui::{backend::TestBackend, Terminal};
    let theme = Theme { color: false };
    let ctx = Ctx {
        theme: &theme,
        names,
        me: Some(me),
        awaited: &[me],
        what: "move",
        secs_left: None,
        story,
        asked: true,
    };
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| p.draw(f, f.area(), &ctx)).unwrap();
    term.backend()
        .buffer()
        .content
        .chunks(80)
        .map(|row| row.iter().map(|c| c.symbol()).collect::<String>() + "\n")
        .collect()
}

#[test]
fn the_panel_shows_the_centerpiece_the_lines_the_pending_foot_and_your_tiles_at_80_by_24() {
    use crate::games::ui::{Outcome, Panel};
    use crossterm::event::{KeyCode, KeyEvent};
    let (mut g, mut script) = dealt(
        [
            &[(9, 1), (9, 3), (1, 1), (1, 6), (2, 3)],
            &[(9, 2), (9, 4), (1, 5), (1, 7), (2, 5)],
        ],
        &[],
    );
    for (seat, t, spot) in [
        (0, (9, 1), Spot::Center),
        (1, (9, 2), Spot::Center),
        (0, (9, 3), Spot::Center),
        (1, (9, 4), Spot::Center),
        (0, (1, 1), Spot::End(0)),
        (1, (1, 5), Spot::Toe(0)),
    ] {
        let position = pos(&g, seat, t);
        g.apply(seat, &Action::Play { position, spot }).unwrap();
        resolve(&mut g, &mut script);
    }
    let view = g.view(Some(0));
    let legal = g.legal_actions(0);
    let mut p = ui::panel::ChickenfootPanel::default();
    p.ask(&view, &legal);
    let names = vec!["Ann".to_string(), "Bob".to_string()];
    let story = g.story(Some(0), &|s| {
        if s == 0 {
            "you".into()
        } else {
            "Bob".into()
        }
    });
    let screen = screen(&p, &names, &story, 0);
    for want in [
        "centerpiece [9|9] · sides 4/4 · chicken yard 26 · round 1 of 1",
        "chickenfoot on line 1: 2 more toes, each a 1, before play goes on elsewhere",
        " 1 [9|1][1|1] ◆foot",
        " 2 [9|2] ▸2",
        " 4 [9|4] ▸4",
        " 5 ↳1 [1|5] ▸5",
        "▶you 11t 0p · Bob 11t 0p",
        "[1|6] [2|3]",
        "goes on a toe of line 1",
    ] {
        assert!(screen.contains(want), "{want:?} missing from\n{screen}");
    }
    // The first tile that fits is picked; Enter sets it where it goes.
    assert_eq!(
        p.key(KeyEvent::from(KeyCode::Enter)),
        Outcome::Play(Action::Play {
            position: pos(&g, 0, (1, 6)),
            spot: Spot::Toe(0)
        })
    );
}

#[test]
fn the_panel_stays_legible_with_twelve_seats_and_many_lines() {
    use crate::games::ui::Panel;
    let g0 = Chickenfoot::new(&Setup::new(12)).unwrap();
    let mut g = g0.clone();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(3));
    while let ToAct::Chance(reqs) = g.to_act() {
        let outs = fulfil_all(&mut oracle, &reqs).unwrap();
        g.apply_chance(&outs).unwrap();
    }
    assert_eq!(g.setup.max_pip(), 15);
    // A busy layout: four sides, a footed double, three toes, a double awaiting its foot.
    let mut l = Layout::new(15);
    lay(
        &mut l,
        &[
            ((15, 1), Spot::Center),
            ((15, 2), Spot::Center),
            ((15, 3), Spot::Center),
            ((15, 4), Spot::Center),
            ((1, 1), Spot::End(0)),
            ((1, 5), Spot::Toe(0)),
            ((1, 6), Spot::Toe(0)),
            ((1, 7), Spot::Toe(0)),
            ((2, 8), Spot::End(1)),
            ((8, 9), Spot::End(1)),
            ((9, 10), Spot::End(1)),
            ((10, 11), Spot::End(1)),
            ((11, 12), Spot::End(1)),
            ((12, 13), Spot::End(1)),
            ((13, 14), Spot::End(1)),
            ((5, 5), Spot::End(4)),
        ],
    );
    g.layout = l;
    let view = g.view(Some(0));
    let mut p = ui::panel::ChickenfootPanel::default();
    p.see(&view);
    let names: Vec<String> = [
        "Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu",
    ]
    .iter()
    .map(|n| n.to_string())
    .collect();
    let story = vec!["round 1: the [15|15] is the centerpiece".to_string()];
    let screen = screen(&p, &names, &story, 0);
    for name in names.iter().skip(1).map(String::as_str).chain(["you"]) {
        assert!(
            screen.contains(&format!("{name} 6t 0p")),
            "{name}'s tiles and points missing from\n{screen}"
        );
    }
    for want in [
        "centerpiece [15|15] · sides 4/4 · chicken yard 63",
        "chickenfoot on line 5: 3 more toes, each a 5",
        " 1 [15|1][1|1] ·",
        " 5 ↳1 [1|5][5|5] ◆foot",
        " 2 [15|2]",
        "[13|14] ▸14",
        "tiles/points (fewest wins): you 6t 0p · Bob 6t 0p",
    ] {
        assert!(screen.contains(want), "{want:?} missing from\n{screen}");
    }
    // With room for two rows only, the pending foot and the first open end stay, the rest is
    // counted.
    let rows = ui::panel::line_rows(&view, 78, 2);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows[0].contains(" 2 [15|2]") && rows[0].contains(" 5 ↳1 [1|5][5|5] ◆foot"));
    assert_eq!(rows[1], "(+5 more lines, none of them awaiting a foot)");
    // Your six tiles are all on the screen.
    for (_, t) in &view.tiles {
        assert!(
            screen.contains(&ui::words::tile(*t)),
            "{t:?} missing from\n{screen}"
        );
    }
}

#[test]
fn the_no_draw_pass_says_it_ends_the_round_for_everyone() {
    use crate::games::ui::GameUi;
    // The yard is empty and nothing fits: this pass is the No Draw.
    let g = holding([&[(1, 2), (0, 0)], &[(3, 4), (8, 8)]]);
    let v = g.view(Some(0));
    assert!(v.pass_ends_round());
    let prompt = Chickenfoot::prompt(&v, &g.legal_actions(0));
    assert!(prompt.contains("ends the round for everyone"), "{prompt}");
    let mut panel = Chickenfoot::panel();
    panel.ask(&v, &g.legal_actions(0));
    assert!(
        panel.help().contains("ends the round for everyone"),
        "{}",
        panel.help()
    );
    // A pass after a draw only ends the turn: the ordinary words.
    let (mut g, mut script) = dealt([&[(1, 2)], &[(0, 1)]], &[(3, 4), (9, 7)]);
    g.apply(0, &Action::Draw).unwrap();
    resolve(&mut g, &mut script);
    let v = g.view(Some(0));
    assert!(!v.pass_ends_round());
    assert_eq!(
        Chickenfoot::prompt(&v, &g.legal_actions(0)),
        "no tile fits: pass? > "
    );
}
