//! The dice table drawn into ratatui's `TestBackend`, phase by phase, from real engine games
//! with scripted dice.

use super::render::draw;
use super::state::*;
use crate::bots::dice::{mia_reach_chance, perudo_bid_chance, PerudoBot};
use crate::bots::Bot;
use crate::engine::sim::{fulfil_all, play_out, Oracle, Script};
use crate::engine::{Game, Seat, ToAct};
use crate::games::mia::{self, Mia, Ranking, Throw};
use crate::games::perudo::{self, Bid, Perudo};
use crate::ui::tui::tests::{
    advance, assert_same_words_without_colour, code, key, resized_to_80_by_24, row, ten_names, text,
};
use crate::ui::tui::Outcome;
use crossterm::event::KeyCode;
use rand::rngs::StdRng;
use rand::SeedableRng;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;
use std::time::Duration;

fn names() -> Vec<String> {
    vec!["you".into(), "npub1ana…wxyz".into(), "npub1bob…qrst".into()]
}

fn bid(quantity: u16, face: u8) -> Bid {
    Bid { quantity, face }
}

fn dice(d: &[u8]) -> Script {
    Script::new(Vec::new(), d.to_vec())
}

/// Seat 0 opens; its cup is 3 5 1 6 2, the others' 2 2 4 4 6 and 5 5 1 3 3.
fn perudo(first: Seat) -> (Perudo, Script) {
    let g = Perudo::new(&perudo::Setup {
        seats: vec![0, 1, 2],
        dice_each: 5,
        first: Some(first),
    })
    .unwrap();
    (g, dice(&[3, 5, 1, 6, 2, 2, 2, 4, 4, 6, 5, 5, 1, 3, 3]))
}

/// The state of seat `me`, asked for its move when it is to act.
fn state_for<G: super::DiceUi>(game: &G, me: Seat, names: Vec<String>) -> DiceState {
    let mut s = DiceState::new(Some(me), names, "over 1 relay".into(), true);
    let view = G::ui_view(game.view(Some(me)));
    match game.to_act() {
        ToAct::Seat(x) => {
            s.apply(DiceUiEvent::Waiting(Waiting {
                step: DiceStep::Move,
                seats: vec![x],
                deadline: Duration::from_secs(30),
            }));
            if x == me {
                let legal = game.legal_actions(me).iter().map(G::ui_action).collect();
                s.apply(DiceUiEvent::Ask(view, legal));
            } else {
                s.apply(DiceUiEvent::View(view));
            }
        }
        _ => s.apply(DiceUiEvent::View(view)),
    }
    s.time_left = Some(Duration::from_secs(27));
    s
}

fn render(state: &DiceState, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, state)).unwrap();
    t.backend().buffer().clone()
}

fn screen(state: &DiceState) -> String {
    text(&render(state, 80, 24))
}

fn bid_input(s: &DiceState) -> (u16, u8) {
    match s.input {
        DiceInput::Bid { quantity, face, .. } => (quantity, face),
        ref other => panic!("not bidding: {other:?}"),
    }
}

#[test]
fn perudo_my_turn_shows_my_cup_only_and_edits_a_bid() {
    let (mut g, mut sc) = perudo(0);
    advance(&mut g, &mut sc, &[]);
    let mut s = state_for(&g, 0, names());
    let t = screen(&s);
    assert!(t.contains("Perudo"), "{t}");
    assert!(t.contains("round 1 · 15 dice on the table"), "{t}");
    assert!(t.contains("your cup  3 5 1 6 2"), "{t}");
    // The others' cups stay hidden: neither of their rolls is drawn anywhere.
    assert!(!t.contains("2 2 4 4 6") && !t.contains("5 5 1 3 3"), "{t}");
    assert_eq!(t.matches("hidden").count(), 2, "{t}");
    assert!(
        t.contains("Your move") && t.contains("your move (27s)"),
        "{t}"
    );
    assert!(t.contains("no bid yet this round"), "{t}");
    // The editor opens on one of the face held most (all once: the highest).
    assert_eq!(bid_input(&s), (1, 6));
    s.key(code(KeyCode::Up));
    s.key(code(KeyCode::Left));
    assert_eq!(bid_input(&s), (2, 5));
    // Opening on ones, or doubting nothing, is refused in words.
    s.key(key('o'));
    assert_eq!(
        s.notice.as_deref(),
        Some("the first bid of a round may not be ones")
    );
    assert_eq!(s.key(key('d')), Outcome::None);
    assert!(
        screen(&s).contains("nothing to doubt yet"),
        "{}",
        screen(&s)
    );
    // Typed numbers: the quantity, then Tab and the face.
    s.key(key('4'));
    s.key(code(KeyCode::Tab));
    s.key(key('3'));
    assert_eq!(bid_input(&s), (4, 3));
    let t = screen(&s);
    let p = perudo_bid_chance(bid(4, 3), false, &[3, 5, 1, 6, 2], 10);
    assert!(
        t.contains(&format!("you bid  4  ×  threes   true {:.0}%", p * 100.0)),
        "{t}"
    );
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        Outcome::Play(DiceAction::Perudo(perudo::Action::Bid(bid(4, 3))))
    );
    assert!(!s.my_turn());
    g.apply(0, &perudo::Action::Bid(bid(4, 3))).unwrap();
}

#[test]
fn perudo_waiting_for_another_player_shows_whose_turn_and_the_round() {
    let (mut g, mut sc) = perudo(0);
    advance(&mut g, &mut sc, &[perudo::Action::Bid(bid(4, 3))]);
    let s = state_for(&g, 0, names());
    let buf = render(&s, 80, 24);
    let t = text(&buf);
    assert!(t.contains("waiting for npub1ana…wxyz's move (27s)"), "{t}");
    assert!(t.contains("npub1ana…wxyz to act · 27s"), "{t}");
    let ana = (0..24)
        .map(|y| row(&buf, y))
        .find(|r| r.starts_with('│') && r.contains("npub1ana"))
        .unwrap();
    assert!(ana.contains('▶'), "{ana}");
    assert!(t.contains("you bid 4 threes"), "{t}");
    assert!(t.contains("bid  4 threes by you"), "{t}");
    // The chance the standing bid is true, from this seat's cup.
    let p = perudo_bid_chance(bid(4, 3), false, &[3, 5, 1, 6, 2], 10);
    assert!(
        t.contains(&format!("true {:.0}% given your cup", p * 100.0)),
        "{t}"
    );
    assert!(!t.contains("Your move"), "{t}");
}

#[test]
fn perudo_illegal_bids_are_refused_and_bids_convert_to_and_from_ones() {
    let (mut g, mut sc) = perudo(1);
    advance(
        &mut g,
        &mut sc,
        &[
            perudo::Action::Bid(bid(5, 3)),
            perudo::Action::Bid(bid(6, 3)),
        ],
    );
    let mut s = state_for(&g, 0, names());
    assert_eq!(bid_input(&s), (7, 3));
    s.key(code(KeyCode::Down));
    s.key(code(KeyCode::Down));
    assert_eq!(s.key(code(KeyCode::Enter)), Outcome::None);
    let t = screen(&s);
    assert!(t.contains("after 6 threes raise the"), "{t}");
    assert_eq!(
        s.notice.as_deref(),
        Some("after 6 threes raise the quantity, the face or both, lowering neither")
    );
    // To ones: half of six, rounded up.
    s.key(key('o'));
    assert_eq!(bid_input(&s), (3, 1));
    assert!(screen(&s).contains("[o] from ones"));
    s.key(code(KeyCode::Down));
    s.key(code(KeyCode::Enter));
    assert!(
        s.notice.as_deref().unwrap().contains("needs at least 3"),
        "{:?}",
        s.notice
    );
    s.key(code(KeyCode::Up));
    assert_eq!(
        s.key(key('d')),
        Outcome::Play(DiceAction::Perudo(perudo::Action::Dudo))
    );

    // From ones: double plus one, on the face this seat holds most of.
    let (mut g, mut sc) = perudo(1);
    advance(
        &mut g,
        &mut sc,
        &[
            perudo::Action::Bid(bid(2, 4)),
            perudo::Action::Bid(bid(2, 1)),
        ],
    );
    let mut s = state_for(&g, 0, names());
    assert_eq!(bid_input(&s), (3, 1));
    s.key(key('o'));
    assert_eq!(bid_input(&s), (5, 6));
    assert!(s.bid_problem(bid(5, 6)).is_none());
    assert!(s.bid_problem(bid(4, 6)).is_some());
}

fn perudo_after_dudo() -> Perudo {
    let (mut g, _) = perudo(0);
    // Round 2's cups follow round 1's.
    let mut sc = dice(&[
        3, 5, 1, 6, 2, 2, 2, 4, 4, 6, 5, 5, 1, 3, 3, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3,
    ]);
    // 4 threes: my 3 and 1, Ana's none, Bob's 1 3 3: five count, so Ana's doubt fails.
    advance(
        &mut g,
        &mut sc,
        &[perudo::Action::Bid(bid(4, 3)), perudo::Action::Dudo],
    );
    g
}

#[test]
fn perudo_challenge_opens_every_cup_and_names_the_loser() {
    let g = perudo_after_dudo();
    let mut s = state_for(&g, 0, names());
    assert_eq!(s.screen, DiceScreen::Result);
    let t = screen(&s);
    assert!(t.contains("Dudo! The cups are opened"), "{t}");
    assert!(
        t.contains("npub1ana…wxyz doubted your bid of 4 threes"),
        "{t}"
    );
    for cup in ["3 5 1 6 2", "2 2 4 4 6", "5 5 1 3 3"] {
        assert!(t.contains(cup), "{cup} missing:\n{t}");
    }
    assert!(
        t.contains("5 counted for 4 threes: the bid holds — npub1ana…wxyz loses a die"),
        "{t}"
    );
    assert!(t.contains("any key: back to the table"), "{t}");
    // Any key goes back to the table, where the next round has begun; v brings it back.
    assert_eq!(s.key(key(' ')), Outcome::None);
    assert_eq!(s.screen, DiceScreen::Table);
    let t = screen(&s);
    assert!(t.contains("round 2 · 14 dice on the table"), "{t}");
    assert!(t.contains("npub1ana…wxyz loses a die"), "{t}");
    s.key(key('v'));
    assert_eq!(s.screen, DiceScreen::Result);
}

#[test]
fn perudo_putana_round_fixes_the_face_and_ones_are_not_wild() {
    // Two dice each; my bid of four sixes fails and leaves me one die.
    let mut g = Perudo::new(&perudo::Setup {
        seats: vec![0, 1],
        dice_each: 2,
        first: Some(0),
    })
    .unwrap();
    let mut sc = dice(&[2, 3, 4, 5, 1, 1, 6]);
    advance(
        &mut g,
        &mut sc,
        &[perudo::Action::Bid(bid(4, 6)), perudo::Action::Dudo],
    );
    assert!(g.putana);
    let mut s = state_for(&g, 0, vec!["you".into(), "bot 1".into()]);
    s.key(key(' '));
    let t = screen(&s);
    assert!(t.contains("PUTANA: ones not wild"), "{t}");
    assert!(t.contains("Putana: ones not wild, the face stays"), "{t}");
    assert!(t.contains("your cup  1"), "{t}");
    s.key(key('o'));
    assert!(s
        .notice
        .as_deref()
        .unwrap()
        .contains("no conversions in a Putana round"));
    // Ones may open a Putana round, and count only as ones.
    s.key(code(KeyCode::Tab));
    s.key(key('1'));
    assert_eq!(bid_input(&s), (1, 1));
    let p = perudo_bid_chance(bid(1, 1), true, &[1], 2);
    assert!(screen(&s).contains(&format!("true {:.0}%", p * 100.0)));
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        Outcome::Play(DiceAction::Perudo(perudo::Action::Bid(bid(1, 1))))
    );
}

fn mia(first: Seat, rolls: &[u8]) -> (Mia, Script) {
    let g = Mia::new(&mia::Setup {
        seats: vec![0, 1, 2],
        lives: 3,
        ranking: Ranking::Traditional,
        first: Some(first),
    })
    .unwrap();
    (g, dice(rolls))
}

fn pick(s: &DiceState) -> Throw {
    match s.input {
        DiceInput::Pick { raise, at, .. } => s.pick_options(raise)[at],
        ref other => panic!("not picking: {other:?}"),
    }
}

#[test]
fn mia_claim_picker_offers_the_truth_and_bluffs() {
    let (mut g, mut sc) = mia(0, &[5, 4]);
    advance(&mut g, &mut sc, &[]);
    let mut s = state_for(&g, 0, names());
    let t = screen(&s);
    assert!(t.contains("Mia"), "{t}");
    assert!(t.contains("traditional ranking"), "{t}");
    assert!(t.contains("you rolled  5 4 = 54"), "{t}");
    assert!(t.contains("no claim yet"), "{t}");
    // The picker opens on the truth.
    assert_eq!(pick(&s), Throw(54));
    assert!(t.contains("54: the truth"), "{t}");
    s.key(code(KeyCode::Right));
    assert_eq!(pick(&s), Throw(61));
    let t = screen(&s);
    let p = mia_reach_chance(Ranking::Traditional, Throw(61));
    assert!(
        t.contains(&format!(
            "61: a bluff · a fair roll reaches it {:.0}%",
            p * 100.0
        )),
        "{t}"
    );
    // Two digits in either order pick a value.
    s.key(key('5'));
    s.key(key('6'));
    assert_eq!(pick(&s), Throw(65));
    s.key(key('t'));
    assert_eq!(pick(&s), Throw(54));
    s.key(key('1'));
    s.key(key('2'));
    assert_eq!(pick(&s), Throw::MIA);
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        Outcome::Play(DiceAction::Mia(mia::Action::Claim(Throw::MIA)))
    );
}

#[test]
fn mia_responding_passes_or_rerolls_and_a_reroll_must_beat_the_claim() {
    let (mut g, mut sc) = mia(0, &[5, 4, 3, 1]);
    advance(&mut g, &mut sc, &[mia::Action::Claim(Throw(54))]);
    let names = vec!["npub1ana…wxyz".into(), "you".into(), "bot 2".into()];
    let mut s = state_for(&g, 1, names.clone());
    assert_eq!(s.input, DiceInput::Respond);
    let t = screen(&s);
    // The claim, not the dice: Ana's cup is hers.
    assert!(!t.contains("5 4"), "{t}");
    let p = mia_reach_chance(Ranking::Traditional, Throw(54));
    assert!(
        t.contains("claim  54 by npub1ana…wxyz")
            && t.contains(&format!("a fair roll reaches it {:.0}%", p * 100.0)),
        "{t}"
    );
    assert!(t.contains("[c] challenge  [p] pass  [r] reroll"), "{t}");
    s.key(key('u'));
    assert!(s
        .notice
        .as_deref()
        .unwrap()
        .contains("only the cup's roller"));
    let mut passing = s.clone();
    assert_eq!(
        passing.key(key('p')),
        Outcome::Play(DiceAction::Mia(mia::Action::Pass))
    );
    assert_eq!(
        s.key(key('r')),
        Outcome::Play(DiceAction::Mia(mia::Action::Reroll))
    );
    advance(&mut g, &mut sc, &[mia::Action::Reroll]);
    // My reroll shows 31, below the claim to beat: the truth is not open, bluffs above 54 are.
    let mut s = state_for(&g, 1, names);
    let t = screen(&s);
    assert!(t.contains("you rolled  3 1 = 31"), "{t}");
    assert!(t.contains("to beat  54 (the claim taken on)"), "{t}");
    assert_eq!(pick(&s), Throw(61));
    s.key(key('t'));
    assert_eq!(
        s.notice.as_deref(),
        Some("your roll 31 is not open: claim above 54: bluff")
    );
    s.key(key('4'));
    s.key(key('3'));
    assert_eq!(s.notice.as_deref(), Some("43 is not open: claim above 54"));
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        Outcome::Play(DiceAction::Mia(mia::Action::Claim(Throw(61))))
    );
}

#[test]
fn mia_challenge_lifts_the_cup_and_takes_lives() {
    let (mut g, mut sc) = mia(0, &[5, 4, 2, 2]);
    advance(
        &mut g,
        &mut sc,
        &[mia::Action::Claim(Throw(65)), mia::Action::Challenge],
    );
    let mut s = state_for(
        &g,
        1,
        vec!["npub1ana…wxyz".into(), "you".into(), "bot 2".into()],
    );
    assert_eq!(s.screen, DiceScreen::Result);
    let t = screen(&s);
    assert!(t.contains("Challenge! The cup is lifted"), "{t}");
    assert!(
        t.contains("you challenged npub1ana…wxyz's claim of 65"),
        "{t}"
    );
    assert!(t.contains("npub1ana…wxyz's cup shows 5 4 = 54"), "{t}");
    assert!(
        t.contains("the claim was a lie — npub1ana…wxyz loses 1 life"),
        "{t}"
    );
    s.key(key(' '));
    let t = screen(&s);
    // Lives on the table, and the loser opens the next round.
    assert!(t.contains(" 2 ♥♥ "), "{t}");
    assert!(t.contains("round 2: npub1ana…wxyz opens"), "{t}");
}

#[test]
fn protocol_steps_are_named() {
    let (g, _) = perudo(0);
    let mut s = state_for(&g, 0, names());
    let mut says = |step, seats: Vec<Seat>| {
        s.apply(DiceUiEvent::Waiting(Waiting {
            step,
            seats,
            deadline: Duration::from_secs(30),
        }));
        s.status_text()
    };
    assert_eq!(
        says(DiceStep::Commit, vec![0, 1, 2]),
        "committing to the dice: waiting for npub1ana…wxyz, npub1bob…qrst"
    );
    assert_eq!(
        says(DiceStep::Reveals { opening: false }, vec![0, 2]),
        "rolling: waiting for dice reveals from npub1bob…qrst"
    );
    assert_eq!(
        says(DiceStep::Reveals { opening: true }, vec![1]),
        "opening the cups: waiting for npub1ana…wxyz's reveal"
    );
    let t = screen(&s);
    assert!(
        t.contains("waiting for npub1ana…wxyz's reveal (27s) · over 1 relay"),
        "{t}"
    );
    // Being asked opens this seat's own step: the countdown starts again.
    let (mut g, mut sc) = perudo(0);
    advance(&mut g, &mut sc, &[]);
    let before = s.steps();
    let legal = g
        .legal_actions(0)
        .iter()
        .map(|a| DiceAction::Perudo(*a))
        .collect();
    s.apply(DiceUiEvent::Ask(DiceView::Perudo(g.view(Some(0))), legal));
    assert_eq!(s.steps(), before + 1);
    assert_eq!(s.status_text(), "your move");
}

/// A whole Perudo game of bots, watched by seat 0.
fn finished_perudo(players: u8) -> Perudo {
    let mut g = Perudo::new(&perudo::Setup::standard(players)).unwrap();
    let mut bots: Vec<PerudoBot<StdRng>> = (0..players)
        .map(|i| PerudoBot::new(StdRng::seed_from_u64(i as u64)))
        .collect();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(9));
    play_out(&mut g, &mut oracle, 100_000, |g, seat, legal| {
        bots[seat as usize].choose(&g.view(Some(seat)), &legal)
    })
    .unwrap();
    g
}

#[test]
fn the_end_screen_names_the_winner() {
    let g = finished_perudo(3);
    let winner = g.outcome().unwrap().winners[0];
    let mut s = state_for(&g, 0, names());
    s.apply(DiceUiEvent::Finished("game over: checked".into()));
    assert_eq!(s.screen, DiceScreen::Over);
    let t = screen(&s);
    assert!(t.contains("Game over"), "{t}");
    if winner == 0 {
        assert!(t.contains("You win the game!"), "{t}");
    } else {
        assert!(
            t.contains(&format!("{} wins the game", names()[winner as usize])),
            "{t}"
        );
    }
    assert!(t.contains("game over: checked"), "{t}");
    assert!(t.contains("at the end: you "), "{t}");
    assert!(t.contains("last challenge:"), "{t}");
    assert!(t.contains("any key: leave"), "{t}");
    assert_eq!(s.key(key('x')), Outcome::Quit);
}

#[test]
fn a_spectator_sees_no_cup_before_it_is_opened() {
    let (mut g, mut sc) = perudo(0);
    advance(&mut g, &mut sc, &[perudo::Action::Bid(bid(4, 3))]);
    let mut s = DiceState::new(None, names(), "over 1 relay".into(), true);
    s.apply(DiceUiEvent::View(DiceView::Perudo(g.view(None))));
    let t = screen(&s);
    assert!(t.contains("Watching"), "{t}");
    assert_eq!(t.matches("hidden").count(), 3, "{t}");
    for cup in ["3 5 1 6 2", "2 2 4 4 6", "5 5 1 3 3"] {
        assert!(!t.contains(cup), "{cup} drawn:\n{t}");
    }
}

/// At 80×24 with ten seats, every seat, the move panel, the status and the key help fit.
#[test]
fn ten_seats_fit_80_by_24_and_resize() {
    let mut g = Perudo::new(&perudo::Setup {
        seats: (0..10).collect(),
        dice_each: 5,
        first: Some(0),
    })
    .unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(3));
    while let ToAct::Chance(reqs) = g.to_act() {
        let outs = fulfil_all(&mut oracle, &reqs).unwrap();
        g.apply_chance(&outs).unwrap();
    }
    let names = ten_names();
    let s = state_for(&g, 0, names.clone());
    let buf = render(&s, 80, 24);
    let t = text(&buf);
    for n in &names {
        assert!(t.contains(n.as_str()), "{n} missing:\n{t}");
    }
    assert!(row(&buf, 22).contains("your move"), "{t}");
    assert!(row(&buf, 23).contains("↑/↓ quantity"), "{t}");
    assert!(t.contains("you bid"), "{t}");
    assert!(t.contains("[Enter] bid"), "{t}");
    assert!(t.lines().all(|l| l.chars().count() == 80));
    // Resized from larger to 80×24, nothing is left over from the larger frame.
    let buf = resized_to_80_by_24(|f| draw(f, &s));
    assert!(row(&buf, 23).contains("↑/↓ quantity"), "{}", text(&buf));
}

#[test]
fn monochrome_uses_no_colours() {
    let (mut g, mut sc) = mia(0, &[5, 4]);
    advance(&mut g, &mut sc, &[]);
    let mut s = state_for(&g, 0, names());
    let coloured = render(&s, 80, 24);
    s.color = false;
    assert_same_words_without_colour(&coloured, &render(&s, 80, 24));
    let g = perudo_after_dudo();
    let mut s = state_for(&g, 0, names());
    let coloured = render(&s, 80, 24);
    s.color = false;
    assert_same_words_without_colour(&coloured, &render(&s, 80, 24));
}

#[test]
fn quitting_asks_first() {
    let (mut g, mut sc) = perudo(0);
    advance(&mut g, &mut sc, &[]);
    let mut s = state_for(&g, 0, names());
    assert_eq!(s.key(key('q')), Outcome::None);
    assert!(screen(&s).contains("Leave the table? y: yes"));
    s.key(key('n'));
    assert!(matches!(s.input, DiceInput::Bid { .. }));
    s.key(key('q'));
    assert_eq!(s.key(key('y')), Outcome::Quit);
}

#[test]
fn mia_a_cup_passed_back_to_its_roller_can_be_raised_unrolled() {
    let mut g = Mia::new(&mia::Setup {
        seats: vec![0, 1],
        lives: 3,
        ranking: Ranking::Modern,
        first: Some(0),
    })
    .unwrap();
    let mut sc = dice(&[5, 4]);
    advance(
        &mut g,
        &mut sc,
        &[mia::Action::Claim(Throw(43)), mia::Action::Pass],
    );
    let mut s = state_for(&g, 0, vec!["you".into(), "bot 1".into()]);
    assert_eq!(s.input, DiceInput::Respond);
    let t = screen(&s);
    assert!(t.contains("modern ranking"), "{t}");
    assert!(t.contains("you rolled  5 4 = 54"), "{t}");
    assert!(t.contains("[u] raise"), "{t}");
    assert!(!t.contains("[p] pass"), "{t}");
    assert_eq!(s.key(key('p')), Outcome::None);
    assert!(s
        .notice
        .as_deref()
        .unwrap()
        .contains("the cup came back to you"));
    s.key(key('u'));
    assert_eq!(
        s.input,
        DiceInput::Pick {
            raise: true,
            at: s
                .pick_options(true)
                .iter()
                .position(|t| *t == Throw(54))
                .unwrap(),
            typed: None
        }
    );
    s.key(code(KeyCode::Esc));
    assert_eq!(s.input, DiceInput::Respond);
    s.key(key('u'));
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        Outcome::Play(DiceAction::Mia(mia::Action::Raise(Throw(54))))
    );
}
