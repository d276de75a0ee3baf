//! The lobby screens drawn into ratatui's `TestBackend`: the table list, the new-table form and
//! the feedback box, through the keys a person would press.

use super::lobby::{
    draw_lobby, Entry, FeedbackStatus, Field, LobbyChoice, LobbyEvent, LobbyMode, LobbyOutcome,
    LobbyRequest, LobbyState, NewTable,
};
use crate::table::lobby::Listing;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use ratatui::Terminal;

fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn key(c: char) -> KeyEvent {
    code(KeyCode::Char(c))
}

fn row(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect()
}

/// The screen as text, one line per row (`TUI_SHOW=1` prints it).
fn text(buf: &Buffer) -> String {
    let out: String = (0..buf.area.height).map(|y| row(buf, y) + "\n").collect();
    if std::env::var_os("TUI_SHOW").is_some() {
        println!("{out}");
    }
    out
}

/// The same words in the same cells, and no colour at all in the second.
fn assert_same_words_without_colour(coloured: &Buffer, plain: &Buffer) {
    assert_eq!(text(coloured), text(plain));
    assert!(coloured.content().iter().any(|c| c.fg != Color::Reset));
    assert!(plain
        .content()
        .iter()
        .all(|c| c.fg == Color::Reset && c.bg == Color::Reset));
}

fn render(state: &LobbyState, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw_lobby(f, state)).unwrap();
    t.backend().buffer().clone()
}

fn entry(title: &str, host: &str, invited: bool, naddr: &str) -> Entry {
    Entry {
        listing: Listing {
            naddr: naddr.into(),
            title: title.into(),
            host: "npub1hostkey".into(),
            status: "open".into(),
            players: 1,
            max_players: 4,
            game: "tolerance".into(),
            public: !invited,
            invited_by: invited.then(|| "npub1hostkey".into()),
            pace: "fast (15 s a move, 30 s time bank)".into(),
        },
        host: host.into(),
        invited,
    }
}

fn listed() -> LobbyState {
    let mut s = LobbyState::new(
        "npub1me…abcd".into(),
        vec!["ws://127.0.0.1:7447".into()],
        true,
    );
    // Out of order on purpose: invitations are drawn (and selected) first.
    let none = s.apply(LobbyEvent::Listed(Ok(vec![
        entry("", "Bob", false, "naddr1open1"),
        entry("friday", "Ana", true, "naddr1invite"),
        entry("late game", "npub1cat…wxyz", false, "naddr1open2"),
    ])));
    assert_eq!(none, None);
    s
}

fn type_text(s: &mut LobbyState, t: &str) {
    for c in t.chars() {
        assert_eq!(s.key(key(c)), LobbyOutcome::None);
    }
}

#[test]
fn the_list_waits_for_the_relays_then_shows_invitations_and_open_tables() {
    let s = LobbyState::new(
        "npub1me…abcd".into(),
        vec!["ws://127.0.0.1:7447".into()],
        true,
    );
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("looking for invitations and open tables"), "{t}");
    let s = listed();
    let buf = render(&s, 80, 24);
    let t = text(&buf);
    assert!(t.contains("lobby · you: npub1me…abcd"), "{t}");
    assert!(t.contains("Invitations (1)"), "{t}");
    assert!(
        t.contains("▶ friday from Ana — 1/4 players · fast · The Game of Tolerance"),
        "{t}"
    );
    assert!(t.contains("Open public tables (2)"), "{t}");
    assert!(t.contains("  table hosted by Bob — 1/4 players"), "{t}");
    assert!(t.contains("late game hosted by npub1cat…wxyz"), "{t}");
    assert!(row(&buf, 22).contains("relays: ws://127.0.0.1:7447"), "{t}");
    assert!(row(&buf, 23).contains("Enter join"), "{t}");
}

#[test]
fn arrows_choose_and_enter_joins_the_chosen_table() {
    let mut s = listed();
    assert_eq!(s.key(code(KeyCode::Down)), LobbyOutcome::None);
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("▶ table hosted by Bob"), "{t}");
    assert!(!t.contains("▶ friday"), "{t}");
    // Each line says the table's pace.
    assert!(
        t.lines()
            .filter(|l| l.contains("hosted by"))
            .all(|l| l.contains(" players · fast · The Game of")),
        "{t}"
    );
    s.key(code(KeyCode::Down));
    // The last table stays chosen past the end of the list.
    s.key(code(KeyCode::Down));
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        LobbyOutcome::Done(LobbyChoice::Join("naddr1open2".into()))
    );
    s.key(code(KeyCode::Up));
    s.key(code(KeyCode::Up));
    s.key(code(KeyCode::Up));
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        LobbyOutcome::Done(LobbyChoice::Join("naddr1invite".into()))
    );
    assert_eq!(s.key(key('q')), LobbyOutcome::Done(LobbyChoice::Quit));
}

#[test]
fn an_empty_lobby_says_so_and_refresh_asks_again() {
    let mut s = LobbyState::new("me".into(), vec!["ws://r".into()], true);
    s.apply(LobbyEvent::Listed(Ok(Vec::new())));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("Invitations (0)"), "{t}");
    assert!(t.contains("(none: n hosts a new one)"), "{t}");
    assert_eq!(s.key(code(KeyCode::Enter)), LobbyOutcome::None);
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("no table to join: n hosts a new one"), "{t}");
    assert_eq!(s.key(key('r')), LobbyOutcome::Ask(LobbyRequest::Refresh));
    assert!(text(&render(&s, 80, 24)).contains("looking for invitations"));
}

#[test]
fn a_relay_failure_is_an_error_in_words() {
    let mut s = LobbyState::new("me".into(), vec!["ws://r".into()], true);
    s.apply(LobbyEvent::Listed(Err("connection refused".into())));
    let buf = render(&s, 80, 24);
    assert!(
        row(&buf, 23).contains("error: could not list the tables: connection refused"),
        "{}",
        text(&buf)
    );
}

#[test]
fn many_tables_keep_the_chosen_one_in_view_at_80_by_24() {
    let mut s = LobbyState::new("me".into(), vec!["ws://r".into()], true);
    let entries = (0..30)
        .map(|i| entry(&format!("t{i:02}"), "Bob", false, &format!("naddr1t{i}")))
        .collect();
    s.apply(LobbyEvent::Listed(Ok(entries)));
    for _ in 0..25 {
        s.key(code(KeyCode::Down));
    }
    let buf = render(&s, 80, 24);
    let t = text(&buf);
    assert!(t.contains("▶ t25 hosted by Bob"), "{t}");
    assert!(t.lines().all(|l| l.chars().count() == 80));
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        LobbyOutcome::Done(LobbyChoice::Join("naddr1t25".into()))
    );
}

#[test]
fn the_new_table_form_picks_a_builtin_or_a_typed_variant_and_checks_seats() {
    let mut s = listed();
    s.key(key('n'));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("new table"), "{t}");
    assert!(t.contains("game: ◀ The Game of Tolerance ▶"), "{t}");
    assert!(t.contains("variant: ◀ standard ▶"), "{t}");
    assert!(t.contains("seats: 4"), "{t}");
    assert!(row(&render(&s, 80, 24), 23).contains("←/→ game"), "{t}");
    s.key(code(KeyCode::Tab));
    s.key(code(KeyCode::Right));
    assert!(text(&render(&s, 80, 24)).contains("◀ super-ace ▶"));
    s.key(code(KeyCode::Left));
    s.key(code(KeyCode::Left));
    assert!(text(&render(&s, 80, 24)).contains("◀ cash ▶"));
    // Typing replaces the built-in with a path.
    type_text(&mut s, "my.toml");
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("variant: my.toml▏"), "{t}");
    s.key(code(KeyCode::Tab));
    let LobbyMode::NewTable(form) = &s.mode else {
        panic!("not the form")
    };
    assert_eq!(form.field, Field::Seats);
    s.key(code(KeyCode::Backspace));
    type_text(&mut s, "25");
    assert_eq!(s.key(code(KeyCode::Enter)), LobbyOutcome::None);
    let t = text(&render(&s, 80, 24));
    assert!(
        t.contains("error: The Game of Tolerance seats 2 to 20 players, not 25"),
        "{t}"
    );
    s.key(code(KeyCode::Backspace));
    s.key(code(KeyCode::Backspace));
    type_text(&mut s, "3");
    let asked = NewTable {
        game: "tolerance".into(),
        variant: "my.toml".into(),
        seats: 3,
        pace: "normal",
    };
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        LobbyOutcome::Ask(LobbyRequest::Check(asked.clone()))
    );
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("checking the variant…"), "{t}");
    assert!(!t.contains("error:"), "{t}");
    // The caller's check fails: the form stays, with the reason.
    let none = s.apply(LobbyEvent::Checked(Err(
        "'my.toml' is neither a built-in variant nor a readable file".into(),
    )));
    assert_eq!(none, None);
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("error: 'my.toml' is neither a built-in"), "{t}");
    s.key(code(KeyCode::Enter));
    assert_eq!(
        s.apply(LobbyEvent::Checked(Ok(asked.clone()))),
        Some(LobbyChoice::Host(asked))
    );
}

#[test]
fn the_form_hosts_any_registered_game_with_its_own_variants_and_seats() {
    let mut s = listed();
    s.key(key('n'));
    // Every game of the registry comes round under ←/→, each with its built-ins.
    let mut titles = Vec::new();
    for _ in 0..s.games.len() {
        let t = text(&render(&s, 80, 24));
        let line = t
            .lines()
            .find(|l| l.contains("game: ◀"))
            .unwrap()
            .to_string();
        titles.push(line);
        s.key(code(KeyCode::Right));
    }
    for g in crate::games::registry::all() {
        assert!(
            titles.iter().any(|l| l.contains(g.title)),
            "{} never offered: {titles:?}",
            g.title
        );
    }
    // Back on Tolerance; one step left is the last game of the registry.
    assert!(text(&render(&s, 80, 24)).contains("◀ The Game of Tolerance ▶"));
    while !text(&render(&s, 80, 24)).contains("◀ Mia ▶") {
        s.key(code(KeyCode::Right));
    }
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("variant: ◀ traditional ▶"), "{t}");
    assert!(t.contains("built-ins: traditional, modern"), "{t}");
    // Mia reads no variant files: the form does not offer them.
    assert!(!t.contains("file path"), "{t}");
    // A long summary wraps under its field, not into the labels' column.
    assert!(
        t.lines()
            .skip(3)
            .take(4)
            .all(|l| !l.starts_with("│") || l[3..].starts_with("  ")),
        "{t}"
    );
    assert!(t.contains("(2–10)"), "{t}");
    s.key(code(KeyCode::Tab));
    s.key(code(KeyCode::Right));
    assert!(text(&render(&s, 80, 24)).contains("◀ modern ▶"));
    s.key(code(KeyCode::Tab));
    for _ in 0..3 {
        s.key(code(KeyCode::Left));
    }
    // The seats stop at the game's least.
    assert!(text(&render(&s, 80, 24)).contains("seats: 2"));
    // The pace comes last, normal unless chosen, its allowances in words beneath.
    s.key(code(KeyCode::Tab));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("pace: ◀ normal ▶"), "{t}");
    assert!(t.contains("normal (1 min a move, 2 min time bank)"), "{t}");
    s.key(code(KeyCode::Left));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("fast (15 s a move, 30 s time bank)"), "{t}");
    assert!(t.contains("Tab game"), "{t}");
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        LobbyOutcome::Ask(LobbyRequest::Check(NewTable {
            game: "mia".into(),
            variant: "modern".into(),
            seats: 2,
            pace: "fast",
        }))
    );
}

#[test]
fn an_empty_variant_is_refused_and_esc_goes_back() {
    let mut s = listed();
    s.key(key('n'));
    s.key(code(KeyCode::Tab));
    s.key(code(KeyCode::Backspace));
    assert_eq!(s.key(code(KeyCode::Enter)), LobbyOutcome::None);
    let t = text(&render(&s, 100, 24));
    assert!(
        t.contains("error: name a variant: a built-in (standard"),
        "{t}"
    );
    s.key(code(KeyCode::Esc));
    assert_eq!(s.mode, LobbyMode::List);
    assert!(!text(&render(&s, 80, 24)).contains("error:"));
}

#[test]
fn the_feedback_box_sends_and_shows_which_relays_took_it() {
    let mut s = listed();
    s.key(key('f'));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("feedback to the author"), "{t}");
    assert!(t.contains("privately to the author (NIP-17)"), "{t}");
    // Nothing typed: refused in words, nothing asked of the caller.
    assert_eq!(s.key(code(KeyCode::Enter)), LobbyOutcome::None);
    assert!(text(&render(&s, 80, 24)).contains("error: the message is empty: nothing sent"));
    type_text(&mut s, "more dice ");
    assert!(text(&render(&s, 80, 24)).contains("more dice ▏"));
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        LobbyOutcome::Ask(LobbyRequest::Feedback("more dice".into()))
    );
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("sending to the relays…"), "{t}");
    assert!(!t.contains("error:"), "{t}");
    // Keys while sending change nothing.
    s.key(key('x'));
    s.key(code(KeyCode::Esc));
    let LobbyMode::Feedback(form) = &s.mode else {
        panic!("left the feedback box: {:?}", s.mode)
    };
    assert_eq!(
        (form.text.as_str(), &form.status),
        ("more dice ", &FeedbackStatus::Sending)
    );
    s.apply(LobbyEvent::FeedbackSent(Ok(vec![
        "sent privately (NIP-17 gift wrap) to npub1author".into(),
        "  accepted by ws://127.0.0.1:7447/".into(),
    ])));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("sent privately (NIP-17 gift wrap)"), "{t}");
    assert!(t.contains("accepted by ws://127.0.0.1:7447/"), "{t}");
    assert!(t.contains("any key: back to the lobby"), "{t}");
    s.key(key(' '));
    assert_eq!(s.mode, LobbyMode::List);
}

#[test]
fn a_failed_send_keeps_the_text_to_try_again() {
    let mut s = listed();
    s.key(key('f'));
    type_text(&mut s, "hi");
    s.key(code(KeyCode::Enter));
    s.apply(LobbyEvent::FeedbackSent(Err(
        "cannot reach the relays: no relay connected".into(),
    )));
    let t = text(&render(&s, 80, 24));
    assert!(
        t.contains("error: cannot reach the relays: no relay connected"),
        "{t}"
    );
    assert!(t.contains("hi▏"), "{t}");
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        LobbyOutcome::Ask(LobbyRequest::Feedback("hi".into()))
    );
}

#[test]
fn the_lobby_in_monochrome_has_the_same_words() {
    let mut s = listed();
    let coloured = render(&s, 80, 24);
    s.color = false;
    assert_same_words_without_colour(&coloured, &render(&s, 80, 24));
}

#[test]
fn only_tables_still_taking_players_are_listed_and_chosen_first() {
    let mut s = LobbyState::new("me".into(), vec!["ws://r".into()], true);
    let mut seated = entry("friday", "Ana", true, "naddr1seated");
    seated.listing.status = "seated".into();
    let mut done = entry("last week", "Ana", true, "naddr1finished");
    done.listing.status = "finished".into();
    let mut off = entry("called off", "Ana", true, "naddr1cancelled");
    off.listing.status = "cancelled".into();
    let open = entry("tonight", "Ana", true, "naddr1tonight");
    // The same table, public and an invitation too: listed once, as the invitation.
    let public_too = entry("tonight", "Ana", false, "naddr1tonight");
    s.apply(LobbyEvent::Listed(Ok(vec![
        seated,
        done,
        off,
        entry("", "Bob", false, "naddr1open1"),
        public_too,
        open,
    ])));
    let t = text(&render(&s, 80, 24));
    assert!(t.contains("Invitations (1)"), "{t}");
    assert!(t.contains("▶ tonight from Ana"), "{t}");
    assert!(t.contains("Open public tables (1)"), "{t}");
    for gone in ["friday", "last week", "called off"] {
        assert!(!t.contains(gone), "{gone} is listed:\n{t}");
    }
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        LobbyOutcome::Done(LobbyChoice::Join("naddr1tonight".into()))
    );
}

#[test]
fn a_refresh_keeps_the_chosen_table() {
    let mut s = listed();
    s.key(code(KeyCode::Down));
    s.key(code(KeyCode::Down));
    assert_eq!(s.key(key('r')), LobbyOutcome::Ask(LobbyRequest::Refresh));
    s.apply(LobbyEvent::Listed(Ok(vec![
        entry("new one", "Dan", true, "naddr1new"),
        entry("late game", "npub1cat…wxyz", false, "naddr1open2"),
    ])));
    assert_eq!(
        s.key(code(KeyCode::Enter)),
        LobbyOutcome::Done(LobbyChoice::Join("naddr1open2".into()))
    );
}
