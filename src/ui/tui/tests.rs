//! The terminal table drawn into ratatui's `TestBackend` at 80×24, the size README promises:
//! each game's panel, the raise editor, the roll picker, the generic panel and the notices.

use super::frame::{Frame, Key, Update};
use crate::engine::sim::{fulfil_all, Oracle};
use crate::engine::{Game, Seat, ToAct};
use crate::games::high_card::HighCard;
use crate::games::registry::{SetupOptions, TableGame};
use crate::games::tolerance::{Action, Phase, Tolerance};
use crate::games::ui::GameUi;
use crate::table::runner::RelayHealth;
use crate::table::session::Awaiting;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rand::rngs::StdRng;
use rand::SeedableRng;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn names(n: u8) -> Vec<String> {
    (0..n)
        .map(|s| {
            if s == 0 {
                "you".into()
            } else {
                format!("bot {s}")
            }
        })
        .collect()
}

fn key(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

/// A game of `G` with `players` seats played (chance by a seeded oracle, seats by `choose`)
/// until `stop` holds with seat 0 to move.
fn game_until<G: TableGame>(
    players: u8,
    seed: u64,
    mut choose: impl FnMut(&G, Seat, &[G::Action]) -> G::Action,
    stop: impl Fn(&G) -> bool,
) -> G {
    let setup = G::setup(&SetupOptions {
        players,
        ..SetupOptions::default()
    })
    .unwrap();
    let mut g = G::start(&setup, players).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed));
    for _ in 0..10_000 {
        match g.to_act() {
            ToAct::Terminal => panic!("the game ended before the wanted moment"),
            ToAct::Chance(reqs) => {
                let outs = fulfil_all(&mut oracle, &reqs).unwrap();
                g.apply_chance(&outs).unwrap();
            }
            ToAct::Seat(s) => {
                if s == 0 && stop(&g) {
                    return g;
                }
                let legal = g.legal_actions(s);
                let a = choose(&g, s, &legal);
                g.apply(s, &a).unwrap();
            }
            ToAct::Sealed(seats) => {
                if seats.contains(&0) && stop(&g) {
                    return g;
                }
                for s in seats {
                    let legal = g.legal_actions(s);
                    let a = choose(&g, s, &legal);
                    g.apply(s, &a).unwrap();
                }
            }
        }
    }
    panic!("the wanted moment never came")
}

/// Others call or check, and everyone passes the rolls.
fn calm(_: &Tolerance, _: Seat, legal: &[Action]) -> Action {
    calm_move(legal)
}

fn calm_move(legal: &[Action]) -> Action {
    for a in [Action::Check, Action::Call, Action::Pass] {
        if legal.contains(&a) {
            return a;
        }
    }
    legal[0]
}

fn phase(g: &Tolerance) -> Option<Phase> {
    g.view(Some(0)).hand.map(|h| h.phase)
}

fn update<G: TableGame>(g: &G, what: &'static str, seats: Vec<Seat>) -> Update<G> {
    Update {
        view: g.view(Some(0)),
        story: g.story(Some(0), &|s| {
            if s == 0 {
                "you".into()
            } else {
                format!("bot {s}")
            }
        }),
        verdicts: Vec::new(),
        my_timeouts: 0,
        awaiting: Awaiting {
            step: 7,
            what,
            seats,
        },
        deadline: 1_000_060,
        health: RelayHealth {
            connected: 1,
            total: 1,
            ..RelayHealth::default()
        },
        finished: None,
        banks_spent: Vec::new(),
        move_secs: 60,
    }
}

/// A frame for seat 0 that was shown `g` and asked for its move.
fn asked<G: TableGame>(g: &G, players: u8) -> Frame<G> {
    asked_with(g, players, G::panel())
}

fn asked_with<G: TableGame>(
    g: &G,
    players: u8,
    panel: Box<dyn crate::games::ui::Panel<G>>,
) -> Frame<G> {
    let mut f = Frame::<G>::new(names(players), Some(0), false);
    f.panel = panel;
    f.now = 1_000_000;
    f.update(update(g, "move", vec![0]));
    f.ask(&g.view(Some(0)), &g.legal_actions(0), false);
    f
}

fn screen<G: TableGame>(f: &Frame<G>) -> String {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|fr| f.draw(fr)).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    if std::env::var_os("TUI_SHOW").is_some() {
        println!("{out}");
    }
    out
}

fn betting(g: &Tolerance) -> bool {
    matches!(phase(g), Some(Phase::Bet(_)))
}

#[test]
fn the_tolerance_table_shows_seats_stacks_pot_your_cards_only_and_the_turn() {
    let g = game_until::<Tolerance>(3, 1, calm, betting);
    let f = asked(&g, 3);
    let s = screen(&f);
    for w in [
        "The Game of Tolerance",
        "hand 1",
        "pot ",
        "you",
        "bot 1",
        "bot 2",
        "stack",
        "Your move",
        "[c]",
        "Story",
        "relays 1/1",
        "your move",
        "(60s)",
        "q: quit",
    ] {
        assert!(s.contains(w), "{w} missing:\n{s}");
    }
    // Two cards each; only this seat's are face up, with suit symbols as in every game.
    assert_eq!(s.matches("??").count(), 4, "{s}");
    let hand = g.view(Some(0)).hand.unwrap();
    for c in hand.me().unwrap().cards.iter().flatten() {
        let name = crate::games::card_hands::card_name(*c);
        assert!(s.contains(&name), "{name} missing:\n{s}");
    }
    assert!(s.contains('▶'), "no turn arrow:\n{s}");
    assert!(!s.contains("Some(") && !s.contains("Seat("), "{s}");
}

#[test]
fn facing_a_bet_offers_the_call_with_its_amount() {
    // Seat 1 raises once; seat 0 is then to call.
    let mut raised = false;
    let g = game_until::<Tolerance>(
        2,
        2,
        |_, s, legal| {
            if s != 0 && !raised {
                if let Some(a) = legal.iter().find(|a| matches!(a, Action::Raise { .. })) {
                    raised = true;
                    return *a;
                }
            }
            calm_move(legal)
        },
        |g| g.legal_actions(0).contains(&Action::Call),
    );
    let to_call = g.view(Some(0)).hand.unwrap().to_call;
    let s = screen(&asked(&g, 2));
    assert!(s.contains(&format!("call {to_call}")), "{s}");
    assert!(s.contains(&format!("to call {to_call}")), "{s}");
    assert!(s.contains("c: call"), "{s}");
}

#[test]
fn the_raise_editor_moves_by_blinds_and_takes_typed_amounts() {
    let g = game_until::<Tolerance>(2, 3, calm, |g| {
        g.legal_actions(0)
            .iter()
            .any(|a| matches!(a, Action::Raise { .. }))
    });
    let blind = g.view(Some(0)).hand.unwrap().rules.blind;
    let (lo, hi) = crate::games::tolerance::ui::panel::raise_window(&g.legal_actions(0)).unwrap();
    let mut f = asked(&g, 2);
    assert_eq!(f.key(ch('r')), Key::None);
    let s = screen(&f);
    assert!(s.contains(&format!("raise to  {lo} ")), "{s}");
    assert!(s.contains(&format!("max {hi}")), "{s}");
    f.key(key(KeyCode::Right));
    assert!(screen(&f).contains(&format!(" {} ", lo + blind)));
    f.key(key(KeyCode::Up));
    assert!(screen(&f).contains(&format!(" {} ", (lo + 11 * blind).min(hi))));
    f.key(key(KeyCode::Down));
    f.key(key(KeyCode::Left));
    assert!(screen(&f).contains(&format!("raise to  {lo} ")));
    f.key(ch('x'));
    assert!(screen(&f).contains(&format!("raise to  {hi} ")));
    // Typing replaces the amount; an amount outside the window is refused in words.
    f.key(ch('1'));
    assert!(screen(&f).contains("raise to  1 "));
    assert_eq!(f.key(key(KeyCode::Enter)), Key::None);
    assert!(screen(&f).contains(&format!("a raise must be to {lo} up to {hi}")));
    f.key(ch('m'));
    assert_eq!(
        f.key(key(KeyCode::Enter)),
        Key::Play(Action::Raise { to: lo })
    );
    assert!(!screen(&f).contains("Your move"));
}

#[test]
fn the_roll_picker_shows_the_odds_and_rolls_the_chosen_number() {
    let g = game_until::<Tolerance>(2, 4, calm, |g| matches!(phase(g), Some(Phase::Roll(_))));
    let mut f = asked(&g, 2);
    let s = screen(&f);
    assert!(s.contains("[r]") && s.contains("pass"), "{s}");
    f.key(ch('3'));
    let s = screen(&f);
    for w in [
        "T ",
        "% ",
        "Tolerance 3",
        "to gain 3, else lose 3",
        "expected",
    ] {
        assert!(s.contains(w), "{w} missing:\n{s}");
    }
    f.key(key(KeyCode::Right));
    assert!(screen(&f).contains("Tolerance 4"));
    assert_eq!(
        f.key(key(KeyCode::Enter)),
        Key::Play(Action::Roll { target: 4 })
    );
}

#[test]
fn folding_when_checking_is_free_asks_first() {
    let g = game_until::<Tolerance>(2, 5, calm, |g| {
        let l = g.legal_actions(0);
        l.contains(&Action::Check) && l.contains(&Action::Fold)
    });
    let mut f = asked(&g, 2);
    assert_eq!(f.key(ch('f')), Key::None);
    assert!(screen(&f).contains("Fold anyway?"));
    assert_eq!(f.key(ch('n')), Key::None);
    assert!(!screen(&f).contains("Fold anyway?"));
    f.key(ch('f'));
    assert_eq!(f.key(ch('y')), Key::Play(Action::Fold));
}

#[test]
fn a_timed_out_turn_is_withdrawn_and_said_so() {
    let g = game_until::<Tolerance>(2, 6, calm, betting);
    let mut f = asked(&g, 2);
    let mut u = update(&g, "move", vec![1]);
    u.my_timeouts = 1;
    u.verdicts = vec!["step 7: you: timed out, the default move was played".into()];
    f.update(u);
    let s = screen(&f);
    assert!(
        s.contains("you timed out: the default move was played"),
        "{s}"
    );
    assert!(!s.contains("Your move") && !s.contains("[c]"), "{s}");
    assert_eq!(f.key(ch('c')), Key::None);
    // Asked again at once (the others moved in a few milliseconds): the notice stays until the
    // person acts, so it can be read.
    f.ask(&g.view(Some(0)), &g.legal_actions(0), false);
    assert!(screen(&f).contains("you timed out"), "{}", screen(&f));
    // A few seconds on, the keys have the line again.
    f.now += 3;
    assert!(!screen(&f).contains("you timed out"), "{}", screen(&f));
    assert!(matches!(f.key(ch('c')), Key::Play(_)), "{}", screen(&f));
}

/// A frame for seat 0 that was shown `g` (not asked).
fn shown<G: TableGame>(g: &G, players: u8) -> Frame<G> {
    let mut f = Frame::<G>::new(names(players), Some(0), false);
    f.now = 1_000_000;
    f.update(update(g, "move", vec![1]));
    f
}

/// You raise and the bot folds: the hand's end says your uncalled raise came back and you won
/// the pot without it, and the gain column shows what you gained, not the pot's share.
#[test]
fn the_end_of_a_hand_shows_the_uncalled_bet_coming_back_and_the_gain() {
    let mut raised = false;
    let g = game_until::<Tolerance>(
        2,
        4,
        |g, s, legal| {
            // Once the bot has chips in the pot, so that the raise wins something.
            let others_in = g
                .hand
                .as_ref()
                .is_some_and(|h| h.players.iter().any(|p| p.seat != 0 && p.committed > 0));
            if s == 0 && !raised && g.history.is_empty() && others_in {
                if let Some(a) = legal.iter().find(|a| matches!(a, Action::Raise { .. })) {
                    raised = true;
                    return *a;
                }
            }
            if s != 0 && raised && legal.contains(&Action::Fold) && legal.contains(&Action::Call) {
                return Action::Fold;
            }
            calm_move(legal)
        },
        |g| !g.history.is_empty(),
    );
    let h = &g.history[0];
    let chips = crate::games::tolerance::ui::chips::hand_chips(h, &g.start_stacks(0));
    let me = chips.iter().find(|c| c.seat == 0).unwrap();
    let share = h.result.as_ref().unwrap().pots[0].shares[0].1;
    assert!(
        me.uncalled > 0 && me.net > 0 && (me.net as u64) < share,
        "{chips:?}"
    );
    let s = screen(&shown(&g, 2));
    assert!(
        s.contains(&format!("your uncalled {} comes back", me.uncalled)),
        "{s}"
    );
    assert!(
        s.contains(&format!("you win the pot of {}", share - me.uncalled)),
        "{s}"
    );
    assert!(s.contains(&format!("+{}", me.net)), "{s}");
    assert!(!s.contains(&format!("+{share}")), "{s}");
}

/// A player removed at the table's end of a hand: the hand's screen names who forfeited, says
/// no cards were shown, and who took the forfeited chips.
#[test]
fn a_hand_ended_by_forfeit_says_who_took_the_chips_and_what_was_shown() {
    let mut g = game_until::<Tolerance>(3, 5, calm, betting);
    // A seat with chips in the pot, so that there are chips to forfeit.
    let out = g
        .hand
        .as_ref()
        .unwrap()
        .players
        .iter()
        .find(|p| p.seat != 0 && p.committed > 0);
    let out = out.expect("someone put chips in").seat;
    crate::engine::Game::forfeit(&mut g, &[out], crate::engine::ForfeitReason::Withheld).unwrap();
    let s = screen(&shown(&g, 3));
    let named = format!("bot {out} forfeited the hand");
    for w in [
        "forfeited",
        named.as_str(),
        "no cards were shown",
        "the forfeited chips went to",
        "this hand: ",
    ] {
        assert!(s.contains(w), "{w} missing:\n{s}");
    }
}

/// Your time bank runs out (the bot's too): your screen says so once, with the seconds a move
/// now has, and the story tells of the bot's.
#[test]
fn a_spent_time_bank_is_told_on_the_screen_once() {
    let g = game_until::<Tolerance>(2, 8, calm, betting);
    let mut f = shown(&g, 2);
    let mut u = update(&g, "move", vec![1]);
    u.banks_spent = vec![0, 1];
    u.move_secs = 15;
    f.update(u);
    let s = screen(&f);
    // The story box wraps the line; its words are checked whole in the story.
    assert!(s.contains("your time bank is spent"), "{s}");
    assert!(s.contains("bot 1's time bank is spent"), "{s}");
    assert!(
        f.story_lines()
            .iter()
            .any(|l| l.contains("your time bank is spent: each move now has only its 15 s")),
        "{s}"
    );
    let mut again = update(&g, "move", vec![1]);
    again.banks_spent = vec![0, 1];
    f.update(again);
    assert_eq!(
        f.story_lines()
            .iter()
            .filter(|l| l.contains("your time bank is spent"))
            .count(),
        1
    );
}

#[test]
fn a_timeout_notice_leaves_the_key_line_while_no_question_comes() {
    let g = game_until::<Tolerance>(2, 6, calm, betting);
    let mut f = asked(&g, 2);
    let timed_out = || {
        let mut u = update(&g, "move", vec![1]);
        u.my_timeouts = 1;
        u
    };
    f.update(timed_out());
    assert!(screen(&f).contains("you timed out"), "{}", screen(&f));
    // The table goes on for hands without asking this seat: the notice does not stay.
    f.now += 25;
    f.update(timed_out());
    let s = screen(&f);
    assert!(!s.contains("you timed out"), "{s}");
    // Nor does a later question bring it back.
    f.ask(&g.view(Some(0)), &g.legal_actions(0), false);
    let s = screen(&f);
    assert!(!s.contains("you timed out") && s.contains("[c]"), "{s}");
}

#[test]
fn leaving_asks_first_and_ctrl_c_stops_without_leaving() {
    let g = game_until::<Tolerance>(2, 7, calm, betting);
    let mut f = asked(&g, 2);
    assert_eq!(f.key(ch('q')), Key::None);
    assert!(screen(&f).contains("Leave the table? Your seat forfeits. y: yes"));
    assert_eq!(f.key(ch('n')), Key::None);
    assert!(screen(&f).contains("Your move"));
    f.key(ch('q'));
    assert_eq!(f.key(ch('y')), Key::Leave);
    // Ctrl-C stops the program as a crash would: the seat is kept, nothing is asked.
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(asked(&g, 2).key(ctrl_c), Key::Stop);
    let mut closed = asked(&g, 2);
    closed.close("table over".into());
    assert_eq!(
        closed.key(ctrl_c),
        Key::Leave,
        "once over, it only closes the screen"
    );
}

#[test]
fn waiting_says_for_whom_and_for_what_with_the_chain_countdown() {
    let g = game_until::<Tolerance>(3, 8, calm, betting);
    let mut f = Frame::<Tolerance>::new(names(3), Some(0), false);
    f.now = 1_000_050;
    f.update(update(&g, "shuffle", vec![2]));
    let s = screen(&f);
    assert!(s.contains("shuffling: waiting for bot 2 (10s)"), "{s}");
    f.close("table over: you win the table".into());
    let s = screen(&f);
    assert!(
        s.contains("Table over") && s.contains("you win the table"),
        "{s}"
    );
    assert!(s.contains("any key: leave"), "{s}");
    assert_eq!(f.key(ch('x')), Key::Leave);
}

#[test]
fn no_colour_means_no_colour() {
    let g = game_until::<Tolerance>(2, 9, calm, betting);
    let f = asked(&g, 2);
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|fr| f.draw(fr)).unwrap();
    let buf = t.backend().buffer();
    assert!(buf
        .content()
        .iter()
        .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset));
}

/// The panel a game without one of its own gets, here for High Card.
fn generic() -> Box<dyn crate::games::ui::Panel<HighCard>> {
    Box::<crate::games::ui::generic::GenericPanel<HighCard>>::default()
}

#[test]
fn the_high_card_panel_shows_points_your_card_and_one_key_per_move() {
    let g = game_until::<HighCard>(2, 13, |_, _, l| l[0], |_| true);
    let legal = g.legal_actions(0);
    let mut f = asked(&g, 2);
    let s = screen(&f);
    for w in ["High Card", "Round 1 of", "points", "Your move", "Story"] {
        assert!(
            s.contains(w),
            "{w} missing:
{s}"
        );
    }
    assert!(
        s.contains("??"),
        "the other card is hidden:
{s}"
    );
    let (k, a) = if legal.contains(&crate::games::high_card::game::Action::Keep) {
        ('k', crate::games::high_card::game::Action::Keep)
    } else {
        ('y', crate::games::high_card::game::Action::Stay)
    };
    assert_eq!(f.key(ch(k)), Key::Play(a));
}

#[test]
fn the_generic_panel_lists_the_moves_and_reads_typed_ones() {
    let g = game_until::<HighCard>(2, 10, |_, _, l| l[0], |_| true);
    let legal = g.legal_actions(0);
    let view = g.view(Some(0));
    assert!(legal.len() >= 2);
    let mut f = asked_with(&g, 2, generic());
    let s = screen(&f);
    assert!(s.contains("Your move") && s.contains("Table"), "{s}");
    for a in &legal {
        let t = HighCard::move_text(&view, a);
        assert!(s.contains(&t), "{t} missing:\n{s}");
    }
    f.key(key(KeyCode::Down));
    assert_eq!(f.key(key(KeyCode::Enter)), Key::Play(legal[1]));
    // Typed: the game's own words, checked against the moves open now.
    let mut f = asked_with(&g, 2, generic());
    let word = HighCard::move_text(&view, &legal[0]);
    for c in word.chars() {
        f.key(ch(c));
    }
    assert!(screen(&f).contains(&format!("type: {word}_")));
    assert_eq!(f.key(key(KeyCode::Enter)), Key::Play(legal[0]));
    // While typing, q is a letter.
    let mut f = asked_with(&g, 2, generic());
    f.key(ch('x'));
    f.key(ch('q'));
    assert!(screen(&f).contains("type: xq_"));
    assert_eq!(f.key(key(KeyCode::Enter)), Key::None);
    assert!(!screen(&f).contains("Leave the table?"));
}

#[test]
fn the_perudo_panel_shows_your_cup_and_the_bid_editor() {
    use crate::games::perudo::{Action as P, Perudo};
    // Seat 1 opens; seat 0 then faces a bid.
    let g = game_until::<Perudo>(
        3,
        11,
        |_, _, l| *l.iter().find(|a| matches!(a, P::Bid(_))).unwrap_or(&l[0]),
        |g| g.view(Some(0)).bid.is_some(),
    );
    let mut f = asked(&g, 3);
    let s = screen(&f);
    for w in [
        "Perudo",
        "dice on the table",
        "your cup",
        "bid ",
        "you bid",
        "Story",
        "(60s)",
    ] {
        assert!(s.contains(w), "{w} missing:\n{s}");
    }
    // Only this seat's cup is open.
    let cup = g.view(Some(0)).me().unwrap().dice.clone().unwrap();
    assert_eq!(cup.len(), 5);
    assert!(!s.contains("Some(") && !s.contains("Bid {"), "{s}");
    assert_eq!(f.key(ch('d')), Key::Play(P::Dudo));
    // Enter bids what the editor holds, one more of the standing face to begin with.
    let mut f = asked(&g, 3);
    let standing = g.view(Some(0)).bid.unwrap();
    match f.key(key(KeyCode::Enter)) {
        Key::Play(P::Bid(b)) => assert!(b.quantity > standing.quantity || b.face != standing.face),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_mia_panel_offers_a_claim_after_a_roll() {
    use crate::games::mia::{Action as M, Mia};
    let g = game_until::<Mia>(
        2,
        12,
        |_, _, l| l[0],
        |g| g.legal_actions(0).iter().any(|a| matches!(a, M::Claim(_))),
    );
    let mut f = asked(&g, 2);
    let s = screen(&f);
    assert!(s.contains("Mia") && s.contains("Your move"), "{s}");
    assert!(s.contains("Enter claim"), "{s}");
    match f.key(key(KeyCode::Enter)) {
        Key::Play(M::Claim(_)) => {}
        other => panic!("{other:?}"),
    }
}

/// Mia at the moment seat 0 claims after its own roll, with a challenge already settled (so the
/// help offers `v`), and the value it rolled among the claims it may make.
fn mia_claiming_its_roll() -> crate::games::mia::Mia {
    use crate::games::mia::{Action as M, LogEntry, Mia, Throw};
    game_until::<Mia>(
        2,
        21,
        |_, _, l| l[0],
        |g| {
            let v = g.view(Some(0));
            let Some(d) = v.cup.as_ref().and_then(|c| c.dice) else {
                return false;
            };
            let truth = Throw::of_dice(d[0], d[1]);
            v.log
                .iter()
                .any(|e| matches!(e, LogEntry::LostLives { .. }))
                && g.legal_actions(0).contains(&M::Claim(truth))
        },
    )
}

#[test]
fn mias_t_claims_the_value_you_rolled() {
    use crate::games::mia::{Action as M, Mia, Throw};
    let g = mia_claiming_its_roll();
    let d = g.view(Some(0)).cup.unwrap().dice.unwrap();
    let truth = Throw::of_dice(d[0], d[1]);
    // The panel as the table makes it: it learns its seat only when drawn.
    let mut f = asked_with::<Mia>(&g, 2, Mia::panel());
    // Past the last challenge's result, then away from the truth, so that `t` has to bring
    // the cursor back.
    f.key(ch(' '));
    f.key(key(KeyCode::Home));
    f.key(key(KeyCode::End));
    assert_eq!(f.key(ch('t')), Key::None);
    let s = screen(&f);
    assert!(!s.contains("have not seen"), "{s}");
    assert_eq!(f.key(key(KeyCode::Enter)), Key::Play(M::Claim(truth)));
}

#[test]
fn mias_key_help_fits_80_columns() {
    use crate::games::mia::Mia;
    let g = mia_claiming_its_roll();
    let mut f = asked_with::<Mia>(&g, 2, Mia::panel());
    // The last challenge comes up first; a key brings the table back.
    assert!(screen(&f).contains("any key: back to the table"));
    f.key(ch(' '));
    let s = screen(&f);
    let help = s.lines().last().unwrap().trim_end();
    assert!(
        help.ends_with("Enter claim · v: last challenge"),
        "the key help is cut: {help:?}"
    );
}

#[test]
fn a_seat_not_heard_from_is_shown_as_disconnected_while_the_table_waits_for_it() {
    let g = game_until::<Tolerance>(2, 6, calm, betting);
    let mut f = Frame::<Tolerance>::new(names(2), Some(0), false);
    f.now = 1_000_000;
    let mut u = update(&g, "move", vec![1]);
    // Heard from 10 s ago: a heartbeat or two may be in flight; nothing is said.
    u.health.heard = vec![1_000_000, 999_990];
    f.update(u);
    let s = screen(&f);
    assert!(s.contains("waiting for bot 1 to move"), "{s}");
    assert!(!s.contains("disconnected"), "{s}");
    // Forty seconds without a word: four heartbeats missed.
    f.now = 1_000_030;
    let s = screen(&f);
    assert!(s.contains("bot 1 (disconnected 40 s ago)"), "{s}");
    assert_eq!(f.silent_secs(0), None, "this seat's own client is here");
}

#[test]
fn a_rate_limited_relay_is_named_on_the_table() {
    let g = game_until::<Tolerance>(3, 8, calm, betting);
    let mut f = Frame::<Tolerance>::new(names(3), Some(0), false);
    f.now = 1_000_050;
    let mut u = update(&g, "shuffle", vec![2]);
    u.health.total = 2;
    u.health.connected = 2;
    u.health.unsent = 1;
    u.health.notes = vec!["relay nos.lol rate-limits us, retrying".into()];
    f.update(u);
    let s = screen(&f);
    assert!(
        s.contains("shuffling: waiting for bot 2 (10s) · relay nos.lol rate-limits us, retrying"),
        "{s}"
    );
}

#[test]
fn an_insider_asker_sees_its_role_and_types_a_question() {
    use crate::games::insider::{Action as I, Insider, Phase as P};
    let g = (0..50)
        .map(|seed| {
            game_until::<Insider>(
                5,
                seed,
                |_, _, legal| {
                    if legal.contains(&I::Pass) {
                        I::Pass
                    } else {
                        legal[0].clone()
                    }
                },
                |g| matches!(g.phase, P::Ask { .. }),
            )
        })
        .find(|g| g.master != Some(0))
        .expect("a table where seat 0 asks");
    let mut f = asked(&g, 5);
    let s = screen(&f);
    assert!(s.contains("you are") && s.contains("questions"), "{s}");
    // A Common sees no word; the Insider sees it.
    let insider = g.role_of(0) == Some(crate::games::insider::Role::Insider);
    assert_eq!(s.contains("the word:"), insider, "{s}");
    for c in "Is it alive?".chars() {
        f.key(ch(c));
    }
    assert!(screen(&f).contains("type: Is it alive?_"));
    assert_eq!(
        f.key(key(KeyCode::Enter)),
        Key::Play(I::Ask("Is it alive?".into()))
    );
    // A guess is typed as "guess WORD".
    let mut f = asked(&g, 5);
    for c in "guess apple".chars() {
        f.key(ch(c));
    }
    assert_eq!(
        f.key(key(KeyCode::Enter)),
        Key::Play(I::Guess("apple".into()))
    );
}

#[test]
fn an_art_of_facts_player_sees_its_cards_and_the_ante_and_keeps_or_declares() {
    use crate::games::art_of_facts::{Action as A, ArtOfFacts, Phase as P};
    let g = game_until::<ArtOfFacts>(
        3,
        4,
        |_, _, legal| legal[0].clone(),
        |g| matches!(g.phase, P::Swap { .. }),
    );
    let mut f = asked(&g, 3);
    let s = screen(&f);
    assert!(s.contains("ante 200") && s.contains("[face down]"), "{s}");
    let mine = g.view(Some(0)).player(0).unwrap().cards.clone();
    for c in mine.iter().flatten() {
        assert!(s.contains(&c.name()), "{} missing:\n{s}", c.name());
    }
    for c in "keep".chars() {
        f.key(ch(c));
    }
    assert_eq!(f.key(key(KeyCode::Enter)), Key::Play(A::Keep));
}

#[test]
fn a_scoundrel_entrant_sees_its_room_weapon_health_and_the_race_at_80_by_24() {
    use crate::games::scoundrel::{Action as Turn, Scoundrel};
    let g = game_until::<Scoundrel>(
        3,
        4,
        |_, _, legal| {
            legal
                .iter()
                .find(|a| matches!(a, Turn::Face { fallen: false, .. }))
                .cloned()
                .unwrap_or_else(|| legal[0].clone())
        },
        |g| g.entrants[0].moves.len() == 1,
    );
    let s = screen(&asked(&g, 3));
    assert!(
        s.contains("health") && s.contains("weapon") && s.contains("room [1]"),
        "{s}"
    );
    assert!(
        s.contains("bot 1") && s.contains("bot 2") && s.contains("turn  1"),
        "{s}"
    );
    // Its own room by card, the moves as the cards they face.
    assert!(['♣', '♦', '♥', '♠'].iter().any(|c| s.contains(*c)), "{s}");
    assert!(s.contains("face "), "{s}");
}

#[test]
fn a_bogey_entrant_sees_every_column_its_hand_and_the_bogeys_card_at_80_by_24() {
    use crate::games::the_bogey::ui::words::column_text;
    use crate::games::the_bogey::{game::Awaits, Action as B, TheBogey};
    // Random moves that never give up, until seat 0 has ten columns and the bogey's card to
    // place: the table at its most crowded short of the limit.
    let mut rng = StdRng::seed_from_u64(9);
    let g = game_until::<TheBogey>(
        2,
        6,
        |_, _, legal| {
            use rand::seq::SliceRandom;
            let playing: Vec<&B> = legal.iter().filter(|a| **a != B::GiveUp).collect();
            **playing.choose(&mut rng).unwrap()
        },
        |g| {
            let p = &g.entrants[0].places;
            p.columns.len() >= 10 && p.awaits() == Awaits::Bogey
        },
    );
    let s = screen(&asked(&g, 2));
    let me = g.view(Some(0)).entrants[0].board.clone();
    for (i, col) in me.columns.iter().enumerate() {
        let cell = format!("{:>2} {}", i + 1, column_text(col));
        assert!(s.contains(&cell), "column {} ({cell}) missing:\n{s}", i + 1);
    }
    let hand = if me.hand.is_empty() {
        "hand empty"
    } else {
        "hand [1]"
    };
    assert!(s.contains(hand) && s.contains("the bogey plays"), "{s}");
    assert!(
        s.contains(" col\n") || s.contains(" col "),
        "the other entrant's line fits:\n{s}"
    );
    assert!(s.contains("/12 columns") && s.contains("bot 1"), "{s}");
    // The moves: where the bogey's card may go, in words.
    assert!(s.contains("put the bogey's"), "{s}");
}

#[test]
fn a_shooting_party_entrant_sees_its_room_the_aces_up_and_its_score_pile_at_80_by_24() {
    use crate::games::shooting_party::ui::words::row;
    use crate::games::shooting_party::{bot::pick, game::card_short, ShootingParty};
    // The agent bot plays until seat 0 has made contact and an ace is displayed: a room, the
    // displayed row and the score pile all hold cards.
    let g = game_until::<ShootingParty>(
        3,
        4,
        |g, s, legal| pick(&g.view(Some(s)), legal).unwrap_or_else(|| legal[0].clone()),
        |g| {
            let p = &g.entrants[0].places;
            !p.scored.is_empty() && !p.aces.is_empty() && !p.searching
        },
    );
    let s = screen(&asked(&g, 3));
    let me = g.view(Some(0)).entrants[0].board.clone();
    for (i, c) in me.hand.iter().enumerate() {
        let cell = format!("[{}] {}", i + 1, card_short(c.unwrap()));
        assert!(s.contains(&cell), "room card {cell} missing:\n{s}");
    }
    assert!(
        s.contains(&format!("aces up     {}", row(&me.aces))),
        "the displayed aces:\n{s}"
    );
    assert!(
        s.contains(&format!("score pile  {}", row(&me.scored))),
        "the score pile:\n{s}"
    );
    assert!(s.contains(&format!("score {}", me.scored.len())), "{s}");
    assert!(s.contains("bot 1") && s.contains("bot 2"), "the race:\n{s}");
    // The moves, in words with the cards.
    assert!(
        s.contains("leave the room") || s.contains("goes up") || s.contains("must"),
        "{s}"
    );
}
