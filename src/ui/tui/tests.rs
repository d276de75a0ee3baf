//! The table drawn into ratatui's `TestBackend`, phase by phase, from real engine hands.

use super::render::draw;
use super::state::{Input, Outcome, Progress, Screen, UiEvent, UiState};
use crate::cards::{CardId, PlayingCard};
use crate::engine::sim::{fulfil_all, Script};
use crate::engine::{Game, Seat, ToAct};
use crate::games::tolerance::{Action, Hand, Table, Variant};
use crate::table::{Await, HandSummary};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use ratatui::Terminal;
use std::time::Duration;

const DECK: [&str; 12] = [
    "5H", "7D", "9C", "2S", "KH", "QS", "AC", "10D", "3H", "4S", "8C", "JD",
];

/// A three-seat hand with fixed cards and dice; seat 0 (this viewer) is the Starter.
fn new_hand(variant: Variant) -> Hand {
    let seats: Vec<(Seat, Option<u64>)> = (0..3).map(|s| (s, None)).collect();
    // Dealer 2 makes seat 0 the Starter, first to act.
    let setup = Table::new(variant, &seats, 2).unwrap().next_hand().unwrap();
    Hand::new(&setup).unwrap()
}

fn script() -> Script {
    let mut deck: Vec<CardId> = DECK
        .iter()
        .map(|n| PlayingCard::parse(n).unwrap().id())
        .collect();
    // The rest of the deck, for Card Again deals.
    for i in 0..52u16 {
        if !deck.contains(&CardId(i)) {
            deck.push(CardId(i));
        }
    }
    Script::new(deck, vec![6, 2, 9, 4, 7, 3, 8, 5, 1, 10, 6, 6])
}

/// Answers chance, then plays `moves` in order (each by whoever is to act).
pub(super) fn advance<G: Game>(game: &mut G, chance: &mut Script, moves: &[G::Action]) {
    let mut moves = moves.iter();
    loop {
        match game.to_act() {
            ToAct::Chance(reqs) => {
                let outs = fulfil_all(chance, &reqs).unwrap();
                game.apply_chance(&outs).unwrap();
            }
            ToAct::Seat(s) => match moves.next() {
                Some(a) => game.apply(s, a).unwrap(),
                None => return,
            },
            _ => return,
        }
    }
}

fn names() -> Vec<String> {
    vec!["you".into(), "npub1ana…wxyz".into(), "npub1bob…qrst".into()]
}

fn state_for(hand: &Hand) -> UiState {
    let mut s = UiState::new(Some(0), names(), true);
    let view = hand.view(Some(0));
    if let ToAct::Seat(0) = hand.to_act() {
        s.apply(UiEvent::Ask(view.clone(), hand.legal_actions(0)));
    } else {
        s.apply(UiEvent::View(view));
    }
    s.apply(UiEvent::Progress(Progress {
        hand: hand.hand_no,
        awaiting: match hand.to_act() {
            ToAct::Seat(x) => Await::Move(x),
            _ => Await::Tokens(vec![1, 2]),
        },
        participants: vec![0, 1, 2],
        deadline: Duration::from_secs(30),
        relays_connected: 1,
        relays_total: 1,
    }));
    s.time_left = Some(Duration::from_secs(27));
    s
}

fn render(state: &UiState, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, state)).unwrap();
    t.backend().buffer().clone()
}

pub(super) fn text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        for x in 0..area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

pub(super) fn row(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect()
}

/// The table row of a seat (inside the table's borders, not its title).
fn seat_row(buf: &Buffer, name: &str) -> String {
    (1..buf.area.height)
        .map(|y| row(buf, y))
        .find(|r| r.starts_with('│') && r.contains(name))
        .unwrap_or_else(|| panic!("no row for {name}:\n{}", text(buf)))
}

pub(super) fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

pub(super) fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn card_names(hand: &Hand, seat: Seat) -> Vec<String> {
    hand.view(Some(seat))
        .me()
        .unwrap()
        .cards
        .iter()
        .map(|c| PlayingCard::from_id(c.unwrap()).to_string())
        .collect()
}

#[test]
fn dealing_shows_protocol_status_and_no_moves() {
    let hand = new_hand(Variant::default());
    let mut s = state_for(&hand);
    s.apply(UiEvent::Progress(Progress {
        hand: 0,
        awaiting: Await::Shuffle(2),
        participants: vec![0, 1, 2],
        deadline: Duration::from_secs(30),
        relays_connected: 1,
        relays_total: 2,
    }));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("hand 1 · dealing"), "{t}");
    assert!(t.contains("shuffling 3/3 (npub1bob…qrst)"), "{t}");
    assert!(t.contains("relays 1/2 connected"), "{t}");
    assert!(!t.contains("Your move"), "{t}");
}

#[test]
fn first_betting_round_on_my_turn() {
    let mut hand = new_hand(Variant::default());
    advance(&mut hand, &mut script(), &[]);
    let s = state_for(&hand);
    let buf = render(&s, 80, 24);
    let t = text(&buf);
    assert!(t.contains("betting round 1"), "{t}");
    assert!(t.contains("pot 10"), "{t}");
    // My cards face up, the others' face down, seats with names and markers.
    for c in card_names(&hand, 0) {
        assert!(t.contains(&c), "{c} missing:\n{t}");
    }
    assert!(t.contains("?? ??"), "{t}");
    assert!(t.contains("npub1ana…wxyz"), "{t}");
    let me_row = seat_row(&buf, " you ");
    assert!(me_row.contains('▶') && me_row.contains('S'), "{me_row}");
    let dealer_row = seat_row(&buf, "npub1bob");
    assert!(dealer_row.contains(" D "), "{dealer_row}");
    assert!(t.contains("Your move"), "{t}");
    assert!(t.contains("[c] check"), "{t}");
    assert!(t.contains("[r] raise"), "{t}");
    assert!(t.contains("your move (27s)"), "{t}");
    assert!(t.contains("you posts the blind 10"), "{t}");
}

#[test]
fn raise_editor_keys_and_limits() {
    let mut hand = new_hand(Variant::default());
    advance(&mut hand, &mut script(), &[]);
    let mut s = state_for(&hand);
    assert_eq!(s.key(key('r')), Outcome::None);
    // The window opens at the minimum raise: the blind of 10 plus one more blind.
    assert_eq!(
        s.input,
        Input::Raise {
            to: 20,
            typed: false
        }
    );
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("raise to  20"), "{t}");
    assert!(t.contains("min 20"), "{t}");
    assert!(t.contains("max 1000"), "{t}");
    s.key(code(KeyCode::Right));
    assert_eq!(
        s.input,
        Input::Raise {
            to: 30,
            typed: false
        }
    );
    s.key(code(KeyCode::Up));
    assert_eq!(
        s.input,
        Input::Raise {
            to: 130,
            typed: false
        }
    );
    s.key(key('x'));
    assert_eq!(
        s.input,
        Input::Raise {
            to: 1000,
            typed: false
        }
    );
    s.key(key('m'));
    assert_eq!(
        s.input,
        Input::Raise {
            to: 20,
            typed: false
        }
    );
    s.key(code(KeyCode::Left));
    assert_eq!(
        s.input,
        Input::Raise {
            to: 20,
            typed: false
        },
        "never below min"
    );
    let pot = s.pot_raise().unwrap();
    s.key(key('p'));
    assert_eq!(
        s.input,
        Input::Raise {
            to: pot,
            typed: false
        }
    );
    // Typing replaces the amount; an amount outside the window is refused in words.
    s.key(key('5'));
    assert_eq!(s.input, Input::Raise { to: 5, typed: true });
    assert_eq!(s.key(code(KeyCode::Enter)), Outcome::None);
    assert!(s.notice.as_deref().unwrap().contains("20..=1000"));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("a raise must be to 20..=1000"), "{t}");
    s.key(key('5'));
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        Outcome::Play(Action::Raise { to: 55 })
    );
    assert!(!s.my_turn());
    // The chosen raise is legal for the engine.
    hand.apply(0, &Action::Raise { to: 55 }).unwrap();
}

#[test]
fn facing_a_bet_offers_call_and_fold() {
    let mut hand = new_hand(Variant::default());
    let mut sc = script();
    // I check, seat 1 raises to 40, seat 2 calls: my turn facing 30 more.
    advance(
        &mut hand,
        &mut sc,
        &[Action::Check, Action::Raise { to: 40 }, Action::Call],
    );
    let mut s = state_for(&hand);
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("[c] call 30"), "{t}");
    assert!(t.contains("[f] fold"), "{t}");
    assert!(t.contains("npub1ana…wxyz raises to 40"), "{t}");
    assert_eq!(s.key(key('c')), Outcome::Play(Action::Call));
}

#[test]
fn roll_picker_shows_chance_and_expected_points() {
    let mut hand = new_hand(Variant::default());
    let mut sc = script();
    advance(
        &mut hand,
        &mut sc,
        &[Action::Check, Action::Call, Action::Call],
    );
    assert!(matches!(
        hand.phase,
        crate::games::tolerance::Phase::Roll(0)
    ));
    let mut s = state_for(&hand);
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("roll round 1"), "{t}");
    assert!(t.contains("[r] roll") && t.contains("[p] pass"), "{t}");
    s.key(key('r'));
    // The picker opens on the best expected-points number of a d10.
    assert_eq!(s.input, Input::Roll { target: 3 });
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("Tolerance 3: 80% to gain 3, else lose 3"), "{t}");
    assert!(t.contains("expected +1.8 points"), "{t}");
    assert!(t.contains(" 80 "), "{t}");
    s.key(key('0'));
    assert_eq!(s.input, Input::Roll { target: 10 });
    let t = text(&render(&s, 80, 24));
    assert!(
        t.contains("Tolerance 10: 10% to gain 10, else lose 10"),
        "{t}"
    );
    assert!(t.contains("expected -8.0 points"), "{t}");
    s.key(code(KeyCode::Left));
    s.key(code(KeyCode::Left));
    assert_eq!(s.input, Input::Roll { target: 8 });
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        Outcome::Play(Action::Roll { target: 8 })
    );
}

#[test]
fn super_ace_bonus_is_priced_in() {
    let v = Variant::builtin("super-ace").unwrap();
    let mut hand = new_hand(v);
    let mut sc = script();
    advance(
        &mut hand,
        &mut sc,
        &[Action::Check, Action::Call, Action::Call],
    );
    let holds_ace = card_names(&hand, 0).iter().any(|c| c.starts_with('A'));
    let mut s = state_for(&hand);
    s.key(key('0'));
    let (_, ev) = s.roll_odds(10);
    if holds_ace {
        assert!((ev - (0.1 * 23.0 - 0.9 * 10.0)).abs() < 1e-9);
        assert!(text(&render(&s, 80, 24)).contains("+13 Super Ace"));
    } else {
        assert!((ev - (0.1 * 10.0 - 0.9 * 10.0)).abs() < 1e-9);
    }
}

#[test]
fn waiting_for_another_player_shows_whose_turn_with_countdown() {
    let mut hand = new_hand(Variant::default());
    advance(&mut hand, &mut script(), &[Action::Check]);
    let s = state_for(&hand);
    let buf = render(&s, 80, 24);
    let t = text(&buf);
    assert!(t.contains("waiting for npub1ana…wxyz's move (27s)"), "{t}");
    assert!(t.contains("npub1ana…wxyz to act · 27s"), "{t}");
    let row1 = seat_row(&buf, "npub1ana");
    assert!(row1.contains('▶'), "{row1}");
    // Keys do nothing but explain while it is not my move.
    let mut s = s;
    assert_eq!(s.key(key('c')), Outcome::None);
}

#[test]
fn folded_and_all_in_players_are_marked() {
    let mut hand = new_hand(Variant::default());
    advance(
        &mut hand,
        &mut script(),
        &[Action::Raise { to: 1000 }, Action::Fold],
    );
    let s = state_for(&hand);
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("ALL-IN"), "{t}");
    assert!(t.contains("folded"), "{t}");
}

fn finished_hand() -> Hand {
    let mut hand = new_hand(Variant::default());
    let mut sc = script();
    advance(
        &mut hand,
        &mut sc,
        &[
            Action::Check,
            Action::Call,
            Action::Fold,
            Action::Roll { target: 3 },
            Action::Pass,
            Action::Check,
            Action::Check,
            Action::Pass,
            Action::Roll { target: 5 },
            Action::Check,
            Action::Check,
        ],
    );
    assert_eq!(hand.phase, crate::games::tolerance::Phase::Done);
    hand
}

#[test]
fn showdown_screen_shows_cards_rolls_points_and_winner() {
    let hand = finished_hand();
    let summary = HandSummary::of(&hand);
    let mut s = state_for(&hand);
    s.apply(UiEvent::HandDone(summary.clone()));
    assert_eq!(s.screen, Screen::Showdown);
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("Showdown · hand 1"), "{t}");
    let r = summary.result.as_ref().unwrap();
    for (seat, pts) in &r.points {
        let line = t
            .lines()
            .find(|l| l.contains(&s.name(*seat)) && !l.contains("wins"))
            .unwrap();
        assert!(line.contains(&pts.to_string()), "{line}");
    }
    for c in card_names(&hand, 0)
        .iter()
        .chain(card_names(&hand, 1).iter())
    {
        assert!(t.contains(c), "{c} missing:\n{t}");
    }
    assert!(t.contains("T3:"), "{t}");
    assert!(t.contains("T5:"), "{t}");
    assert!(t.contains("fold"), "{t}");
    let (winner, amount) = r.pots[0].shares[0];
    assert!(
        t.contains(&format!("pot: {} wins {amount}", s.name(winner))),
        "{t}"
    );
    // Any key goes back to the table; a move asked for goes back by itself.
    s.key(key(' '));
    assert_eq!(s.screen, Screen::Table);
    s.key(key('s'));
    assert_eq!(s.screen, Screen::Showdown);
}

#[test]
fn split_pots_are_named() {
    let hand = finished_hand();
    let mut summary = HandSummary::of(&hand);
    let r = summary.result.as_mut().unwrap();
    let amount = r.pots[0].amount;
    r.pots[0].shares = vec![(0, amount / 2), (1, amount - amount / 2)];
    let mut s = state_for(&hand);
    s.apply(UiEvent::HandDone(summary));
    let t = text(&render(&s, 80, 24));
    assert!(
        t.contains(&format!(
            "pot {amount} split: you {}, npub1ana…wxyz {}",
            amount / 2,
            amount - amount / 2
        )),
        "{t}"
    );
}

#[test]
fn table_over_screen_and_quit_confirmation() {
    let hand = finished_hand();
    let mut s = state_for(&hand);
    s.apply(UiEvent::HandDone(HandSummary::of(&hand)));
    s.key(key(' '));
    // Quitting mid-table asks first.
    assert_eq!(s.key(key('q')), Outcome::None);
    assert_eq!(s.input, Input::ConfirmQuit);
    assert!(text(&render(&s, 80, 24)).contains("Leave the table?"));
    assert_eq!(s.key(key('n')), Outcome::None);
    assert_eq!(s.input, Input::Idle);
    s.apply(UiEvent::Finished("table over after 1 hands".into()));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("Table over"), "{t}");
    assert!(t.contains("table over after 1 hands"), "{t}");
    assert!(t.contains("stacks:"), "{t}");
    assert_eq!(s.key(key('x')), Outcome::Quit);
}

#[test]
fn errors_are_shown_in_words() {
    let hand = new_hand(Variant::default());
    let mut s = state_for(&hand);
    s.apply(UiEvent::Error("no relay accepted our move event".into()));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("error: no relay accepted our move event"), "{t}");
}

/// "you" and nine short npubs: a full table's names.
pub(super) fn ten_names() -> Vec<String> {
    (0..10)
        .map(|i| {
            if i == 0 {
                "you".into()
            } else {
                format!("npub1pl{i}…abcd")
            }
        })
        .collect()
}

/// At 80×24 with ten seats, every seat, the move panel, the status and the key help fit.
#[test]
fn ten_seats_fit_80_by_24() {
    let seats: Vec<(Seat, Option<u64>)> = (0..10).map(|s| (s, None)).collect();
    let setup = Table::new(Variant::default(), &seats, 9)
        .unwrap()
        .next_hand()
        .unwrap();
    let mut hand = Hand::new(&setup).unwrap();
    let mut deck: Vec<CardId> = (0..52).map(CardId).collect();
    deck.reverse();
    advance(&mut hand, &mut Script::new(deck, vec![]), &[]);
    let names = ten_names();
    let mut s = UiState::new(Some(0), names.clone(), true);
    s.apply(UiEvent::Ask(hand.view(Some(0)), hand.legal_actions(0)));
    let buf = render(&s, 80, 24);
    let t = text(&buf);
    for n in &names {
        assert!(t.contains(n.as_str()), "{n} missing:\n{t}");
    }
    assert!(row(&buf, 22).contains("your move"), "{t}");
    assert!(row(&buf, 23).contains("c: check"), "{t}");
    assert!(t.contains("[c] check"), "{t}");
    // Nothing drawn past the 80 columns: each row is exactly the width.
    assert!(t.lines().all(|l| l.chars().count() == 80));
}

#[test]
fn resizing_redraws_at_the_new_size() {
    let mut hand = new_hand(Variant::default());
    advance(&mut hand, &mut script(), &[]);
    let s = state_for(&hand);
    let buf = resized_to_80_by_24(|f| draw(f, &s));
    assert!(row(&buf, 23).contains("c: check"), "{}", text(&buf));
}

#[test]
fn monochrome_uses_no_colours() {
    let mut hand = new_hand(Variant::default());
    advance(&mut hand, &mut script(), &[]);
    let mut s = state_for(&hand);
    let coloured = render(&s, 80, 24);
    s.color = false;
    assert_same_words_without_colour(&coloured, &render(&s, 80, 24));
}

/// What `draw` leaves on a terminal drawn at 120×40 and then resized to 80×24.
pub(super) fn resized_to_80_by_24(draw: impl Fn(&mut ratatui::Frame)) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| draw(f)).unwrap();
    t.backend_mut().resize(80, 24);
    t.draw(|f| draw(f)).unwrap();
    let buf = t.backend().buffer().clone();
    assert_eq!((buf.area.width, buf.area.height), (80, 24));
    buf
}

/// `coloured` has colours, `mono` none, and both say the same.
pub(super) fn assert_same_words_without_colour(coloured: &Buffer, mono: &Buffer) {
    assert!(coloured.content().iter().any(|c| c.fg != Color::Reset));
    assert!(mono
        .content()
        .iter()
        .all(|c| c.fg == Color::Reset && c.bg == Color::Reset));
    assert_eq!(text(coloured), text(mono));
}

#[test]
fn local_games_say_so_and_show_no_countdown() {
    let mut hand = new_hand(Variant::default());
    advance(&mut hand, &mut script(), &[Action::Check]);
    let mut s = state_for(&hand);
    s.apply(UiEvent::Progress(Progress {
        hand: 0,
        awaiting: Await::Move(1),
        participants: vec![0, 1, 2],
        deadline: Duration::ZERO,
        relays_connected: 0,
        relays_total: 0,
    }));
    s.time_left = None;
    let t = text(&render(&s, 80, 24));
    assert!(
        t.contains("local game: no relays, dealt by this machine"),
        "{t}"
    );
    assert!(t.contains("waiting for npub1ana…wxyz's move ·"), "{t}");
    assert!(!t.contains("s)"), "{t}");
}
