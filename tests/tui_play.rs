//! `tolerance play` in a real pseudo-terminal: the terminal table comes up (it is the default on
//! a terminal), a person's keys play a whole networked table against bots on the embedded
//! relay, and the terminal is given back clean with a plain record of the game.
//!
//! The screen is read the way a person reads it — through a terminal emulator (`vt100`) fed
//! with everything the program writes — and every key is pressed in answer to what the screen
//! shows, never after a pause.

#![cfg(unix)]

use crate::common;

use expectrl::Session;
use std::io::ErrorKind;
use std::process::Command;
use std::time::{Duration, Instant};

/// A program running in an 80×24 pseudo-terminal, its screen kept by an emulator.
struct Pty {
    session: Session,
    screen: vt100::Parser,
    raw: Vec<u8>,
}

impl Pty {
    fn spawn(args: &[&str], home: &std::path::Path) -> Pty {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tolerance"));
        cmd.args(args)
            .env("TOLERANCE_HOME", home)
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .env_remove("TOLERANCE_PASSPHRASE");
        let mut session = Session::spawn(cmd).expect("a pseudo-terminal");
        session
            .get_process_mut()
            .set_window_size(80, 24)
            .expect("window size");
        Pty {
            session,
            screen: vt100::Parser::new(24, 80, 0),
            raw: Vec::new(),
        }
    }

    /// Reads what the program wrote so far; false when nothing came.
    fn pump(&mut self) -> bool {
        let mut buf = [0u8; 8192];
        let mut got = false;
        loop {
            match self.session.try_read(&mut buf) {
                Ok(0) => return got,
                Ok(n) => {
                    self.screen.process(&buf[..n]);
                    self.raw.extend_from_slice(&buf[..n]);
                    got = true;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return got,
                // Linux reports EIO on the pty once the child has gone and the buffer is empty.
                Err(_) => return got,
            }
        }
    }

    fn text(&self) -> String {
        self.screen.screen().contents()
    }

    /// The exit status once the program has exited.
    fn exited(&self) -> Option<String> {
        let status = format!("{:?}", self.session.get_process().status());
        (!status.contains("StillAlive")).then_some(status)
    }

    /// Answers each screen with `keys(screen)` until the program exits; each different screen
    /// is answered at most once. Returns the exit status.
    fn run(&mut self, mut keys: impl FnMut(&str) -> Option<&'static str>) -> String {
        let started = Instant::now();
        let mut answered = String::new();
        loop {
            self.pump();
            if let Some(status) = self.exited() {
                // What was written just before the exit.
                while self.pump() {}
                return status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(240),
                "no end after 4 minutes; the screen:\n{}",
                self.text()
            );
            let text = self.text();
            if text != answered {
                if let Some(k) = keys(&text) {
                    self.session.send(k).expect("a key");
                }
                answered = text;
            }
            // Polling the pseudo-terminal, not waiting for the program: the next read decides.
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What the program printed after it gave the terminal back.
    fn after(&self) -> String {
        let raw = String::from_utf8_lossy(&self.raw);
        let at = raw
            .rfind("\u{1b}[?1049l")
            .unwrap_or_else(|| panic!("the alternate screen was never left:\n{raw}"));
        strip_escapes(&raw[at..])
    }

    /// The terminal was taken and given back: alternate screen entered and left, cursor shown.
    fn assert_restored(&self) {
        let raw = String::from_utf8_lossy(&self.raw);
        assert!(raw.contains("\u{1b}[?1049h"), "no alternate screen");
        let left = raw
            .rfind("\u{1b}[?1049l")
            .expect("alternate screen not left");
        let entered = raw.rfind("\u{1b}[?1049h").unwrap();
        assert!(left > entered, "the last alternate screen was not left");
        assert!(
            raw[left..].contains("\u{1b}[?25h") || raw[..left].ends_with("\u{1b}[?25h"),
            "cursor not shown again"
        );
        assert!(
            !self.screen.screen().alternate_screen(),
            "still on the table"
        );
    }
}

/// Drops terminal escape sequences, leaving the text the program wrote.
fn strip_escapes(raw: &str) -> String {
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.next() == Some('[') {
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
    }
    out
}

/// A fresh config directory for one test.
fn temp_home(name: &str) -> std::path::PathBuf {
    let home = std::env::temp_dir().join(format!("tolerance-tui-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    home
}

fn assert_exited_ok(status: &str, pty: &Pty) {
    assert!(
        status.contains("Exited") && status.contains(", 0)"),
        "{status}\nscreen:\n{}\nafter:\n{}",
        pty.text(),
        String::from_utf8_lossy(&pty.raw)
    );
}

/// The frame's own screens answered as a player who stays to the end: the end screen (Enter),
/// the leave question (n), a screen that waits for any key (space).
fn frame_answer(screen: &str) -> Option<&'static str> {
    if screen.contains("Table over") {
        Some("\r")
    } else if screen.contains("Leave the table?") {
        Some("n")
    } else if help(screen).contains("any key: back") {
        Some(" ")
    } else {
        None
    }
}

/// What the program printed after the table, checked to hold the plain record of a table that
/// rejected nothing.
fn record(pty: &Pty) -> String {
    let after = pty.after();
    let over = after
        .lines()
        .find(|l| l.starts_with("table over: "))
        .unwrap_or_else(|| panic!("no plain record after the table:\n{after}"));
    assert!(over.contains("0 rejected"), "{over}");
    after
}

/// What a player must never read on the table (issue 30, item 9), with the line it is on: the
/// protocol's step numbers, its name for dealing ("chance"), an accusation for a crash, a
/// program's Debug text. `verify` and `--json` keep the precise terms.
fn protocol_words(screen: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in screen.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let step_n = words.windows(2).any(|w| {
            w[0].eq_ignore_ascii_case("step")
                && w[1].trim_end_matches([':', ',']).parse::<u32>().is_ok()
        });
        let debug = [
            "Some(",
            "None",
            "Seat(",
            "(chance)",
            "withheld a protocol step",
        ]
        .iter()
        .any(|d| line.contains(d));
        if step_n || debug {
            found.push(line.trim().to_string());
        }
    }
    found
}

/// The check above sees each kind of protocol word on a screen, and passes the table's words.
#[test]
fn the_protocol_words_check_sees_what_a_player_must_not_read() {
    for bad in [
        "! step 40: Ben: out of the hand, dealt out until back",
        "│ waiting for Ben (chance) (30s)",
        "Ben withheld a protocol step past its deadline",
        "to act: Some(3)",
        "Seat(1) folds",
    ] {
        assert_eq!(protocol_words(bad).len(), 1, "{bad}");
    }
    let fine = "Ben's client stopped answering: Ben sits out until back at the table\n\
                shuffling: waiting for Ben (32s) · relays 1/1\nturn 1: the pool is J♣ 8♦";
    assert!(
        protocol_words(fine).is_empty(),
        "{:?}",
        protocol_words(fine)
    );
}

/// Adds to `seen` every word of `want` that is on `screen`, once each.
fn note_seen<'a>(screen: &str, want: &[&'a str], seen: &mut Vec<&'a str>) {
    for w in want {
        if screen.contains(w) && !seen.contains(w) {
            seen.push(w);
        }
    }
}

/// A High Card player's move: keep the card, or stay in.
fn high_card_move(s: &str) -> Option<&'static str> {
    if !s.contains("Your move") {
        return None;
    }
    let keys = help(s);
    if keys.contains("k: keep") {
        return Some("k");
    }
    keys.contains("y: stay in").then_some("y")
}

/// A High Card player who stays to the end: the frame's own screens, then its moves.
fn high_card_keys(s: &str) -> Option<&'static str> {
    frame_answer(s).or_else(|| high_card_move(s))
}

/// The bottom line: the keys that work now (or a notice).
fn help(screen: &str) -> &str {
    screen.lines().last().unwrap_or("")
}

/// A Tolerance player at the keys: raises once, rolls, then calls or checks to the end.
fn tolerance_keys(s: &str, raised: &mut bool, rolled: &mut bool) -> Option<&'static str> {
    let keys = help(s);
    if s.contains("Table over") {
        return Some("\r");
    }
    if s.contains("Leave the table?") {
        return Some("n");
    }
    if !s.contains("Your move") {
        // A showdown or anything else that waits for a key.
        return keys.contains("any key: back").then_some(" ");
    }
    // The editors are told by their key help: the story may hold the same words.
    if keys.contains("±blind") {
        *raised = true;
        return Some("\r");
    }
    if keys.contains("Enter: roll") {
        *rolled = true;
        return Some("\r");
    }
    if keys.contains("pick a Tolerance number") {
        return Some(if *rolled { "p" } else { "r" });
    }
    if keys.contains("c: call") || keys.contains("c: check") {
        return Some(if *raised || !keys.contains("r: raise") {
            "c"
        } else {
            "r"
        });
    }
    None
}

#[test]
fn a_whole_tolerance_table_played_with_keys_in_the_terminal() {
    let home = temp_home("tolerance");
    let mut pty = Pty::spawn(
        &[
            "play",
            "--hands",
            "1",
            "--players",
            "3",
            "--bot-level",
            "hard",
        ],
        &home,
    );
    let mut seen = Vec::<&str>::new();
    let mut raised = false;
    let mut rolled = false;
    let mut jargon = Vec::new();
    let status = pty.run(|s| {
        note_seen(s, &["Story", "relays 1/1", "Your move", "stack"], &mut seen);
        jargon.extend(protocol_words(s));
        tolerance_keys(s, &mut raised, &mut rolled)
    });
    assert!(jargon.is_empty(), "{jargon:?}");
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    for w in ["Story", "relays 1/1", "Your move", "stack"] {
        assert!(seen.contains(&w), "{w} was never on the screen");
    }
    let after = record(&pty);
    assert!(
        after.contains("  · "),
        "the story was not printed:\n{after}"
    );
    // The blinds open the hand's story.
    assert!(after.contains("the blind"), "{after}");
    // The end line counts the one hand dealt and names who came out ahead (issue 30, item 10).
    let over = table_over(&pty);
    // "bot 1 finishes", "you finish", "you and bot 2 finish level" with the most chips.
    let ahead = over.contains("1 hand played; ") && over.contains(" with the most chips; ");
    let won = over.contains(" the table after 1 hand (");
    assert!(ahead || won, "{over}");
    assert!(over.contains("you "), "{over}");
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn leaving_with_q_and_y_gives_the_terminal_back() {
    let home = temp_home("leave");
    let mut pty = Pty::spawn(&["play", "--players", "2"], &home);
    let mut asked = false;
    let status = pty.run(|s| {
        if s.contains("Leave the table?") {
            return Some("y");
        }
        if s.contains("Your move") && !asked {
            asked = true;
            return Some("q");
        }
        None
    });
    // Leaving mid-table is not a finished table: the exit status says so, in words too.
    assert!(status.contains("Exited"), "{status}");
    pty.assert_restored();
    let after = pty.after();
    assert!(after.contains("you left the table"), "{after}");
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn a_whole_perudo_game_played_with_keys_in_the_terminal() {
    let home = temp_home("perudo");
    let mut pty = Pty::spawn(&["play", "--game", "perudo", "--players", "2"], &home);
    let mut seen = Vec::<&str>::new();
    let mut jargon = Vec::new();
    let status = pty.run(|s| {
        jargon.extend(protocol_words(s));
        note_seen(
            s,
            &["Perudo", "your cup", "you bid", "relays 1/1", "Dudo"],
            &mut seen,
        );
        if let Some(k) = frame_answer(s) {
            return Some(k);
        }
        if !s.contains("Your move") || !s.contains("you bid") {
            return None;
        }
        // Open with the editor's suggestion; doubt whatever the bot bids.
        Some(if s.contains("no bid yet") { "\r" } else { "d" })
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    for w in ["Perudo", "your cup", "you bid", "relays 1/1"] {
        assert!(seen.contains(&w), "{w} was never on the screen");
    }
    assert!(jargon.is_empty(), "{jargon:?}");
    record(&pty);
    let _ = std::fs::remove_dir_all(&home);
}

/// `tables` on a terminal: the lobby screen lists a public table another process hosts, Enter
/// joins it as `tolerance join` would, and the seat is played on the terminal table to the end.
/// The lobby's pool goes on to the table: the relay (a counting proxy) sees one connection and
/// one NIP-11 read for the host's command and one for the guest's.
#[test]
fn the_lobby_lists_a_stranger_s_table_and_enter_joins_and_plays_it() {
    let relay = common::relays::ServedRelay::start();
    let rt = &relay.rt;
    let proxy = rt.block_on(async {
        let served = nostr_sdk::RelayUrl::parse(&relay.url).expect("a relay url");
        tolerance::net::harness::RelayProxy::start(
            &served,
            tolerance::net::harness::Rules::default(),
        )
        .await
        .expect("the counting proxy starts")
    });
    let url = proxy.url().to_string();
    let host_home = common::home("tui-lobby", "host");
    let home = common::home("tui-lobby", "guest");
    common::player(&host_home);
    common::player(&home);
    let host = common::spawn(
        &host_home,
        &[
            "host",
            "--relay",
            &url,
            "--game",
            "high-card",
            "--seats",
            "2",
            "--hands",
            "2",
            "--title",
            "stranger",
            "--auto",
        ],
    );
    rt.block_on(host.line("table announced", Duration::from_secs(30)));
    let mut pty = Pty::spawn(&["tables", "--relay", &url], &home);
    let mut seen = Vec::<&str>::new();
    let mut joined = false;
    let status = pty.run(|s| {
        note_seen(
            s,
            &[
                "Invitations (0)",
                "Open public tables (1)",
                "High Card",
                "Your move",
            ],
            &mut seen,
        );
        if !joined {
            if s.contains("▶ stranger hosted by") && s.contains("High Card") {
                joined = true;
                return Some("\r");
            }
            // Listed before the relay had the table: list again.
            return s.contains("Open public tables (0)").then_some("r");
        }
        high_card_keys(s)
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    for w in [
        "Invitations (0)",
        "Open public tables (1)",
        "High Card",
        "Your move",
    ] {
        assert!(seen.contains(&w), "{w} was never on the screen");
    }
    let raw = strip_escapes(&String::from_utf8_lossy(&pty.raw));
    assert!(raw.contains("joining as"), "{raw}");
    record(&pty);
    let (ok, out, err) = rt.block_on(host.finish(Duration::from_secs(60)));
    assert!(ok, "the host failed:\n{out}\n{err}");
    assert!(out.contains("table over: "), "{out}");
    let stats = proxy.stats();
    assert_eq!(
        (stats.connections, stats.info_reads),
        (2, 2),
        "the host's command and the guest's (lobby and table) should each open one pool: \
         {stats:?}"
    );
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&host_home);
}

/// The lobby screen's count of a table is the host's latest, and follows it live: a stranger
/// sits down at a listed three-seat table while the screen is open, and the screen goes from
/// `1/3 players` to `2/3 players` with no key pressed (the host republishes the table for each
/// player it takes, and the screen follows table announcements).
#[test]
fn the_lobby_s_count_follows_a_player_sitting_down_without_a_key() {
    let relay = common::relays::ServedRelay::start();
    let (rt, url) = (&relay.rt, relay.url.clone());
    let host_home = common::home("tui-lobby-count", "host");
    let guest_home = common::home("tui-lobby-count", "guest");
    let home = common::home("tui-lobby-count", "me");
    for h in [&host_home, &guest_home, &home] {
        common::player(h);
    }
    let host = common::spawn(
        &host_home,
        &[
            "host",
            "--relay",
            &url,
            "--game",
            "high-card",
            "--seats",
            "3",
            "--title",
            "filling",
            "--auto",
        ],
    );
    let naddr =
        common::naddr_of(&rt.block_on(host.line("tolerance join naddr1", Duration::from_secs(30))));
    let mut pty = Pty::spawn(&["tables", "--relay", &url], &home);
    let mut guest: Option<common::Proc> = None;
    let mut counts = Vec::<&str>::new();
    let status = pty.run(|s| {
        let listed = s
            .lines()
            .find(|l| l.contains("filling hosted by"))
            .unwrap_or_default();
        note_seen(listed, &["1/3 players", "2/3 players"], &mut counts);
        if listed.contains("2/3 players") {
            return Some("q");
        }
        if listed.contains("1/3 players") {
            if guest.is_none() {
                guest = Some(common::spawn(&guest_home, &["join", &naddr, "--auto"]));
            }
            // No key from here on: the count must change by itself.
            return None;
        }
        // Listed before the relay had the table: list again.
        s.contains("Open public tables (0)").then_some("r")
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    assert_eq!(counts, ["1/3 players", "2/3 players"], "{}", pty.text());
    // The host saw the same player sit down.
    rt.block_on(host.line("joined (2/3)", Duration::from_secs(10)));
    drop(guest);
    drop(host);
    for h in [&host_home, &guest_home, &home] {
        let _ = std::fs::remove_dir_all(h);
    }
}

/// A host on a terminal starts early: at a three-seat table with one stranger seated, the host
/// is told it may start, types `start` and Enter, and the table begins with the two of them; the
/// keys of the table that follows all reach it (nothing left listening for `start` eats one).
#[test]
fn a_host_on_a_terminal_types_start_and_plays_with_the_players_there() {
    let relay = common::relays::ServedRelay::start();
    let (rt, url) = (&relay.rt, relay.url.clone());
    let home = common::home("tui-start-early", "host");
    let guest_home = common::home("tui-start-early", "guest");
    common::player(&home);
    common::player(&guest_home);
    let mut pty = Pty::spawn(
        &[
            "host",
            "--relay",
            &url,
            "--game",
            "high-card",
            "--seats",
            "3",
            "--hands",
            "1",
        ],
        &home,
    );
    let mut guest: Option<common::Proc> = None;
    let mut started = false;
    let status = pty.run(|s| {
        if guest.is_none() {
            if let Some(at) = s.find("tolerance join naddr1") {
                let naddr = common::naddr_of(&s[at..]);
                guest = Some(common::spawn(&guest_home, &["join", &naddr, "--auto"]));
                return None;
            }
        }
        if !started && s.contains("type start (then Enter) to start now with the 2 players here") {
            started = true;
            return Some("start\r");
        }
        high_card_keys(s)
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    let raw = strip_escapes(&String::from_utf8_lossy(&pty.raw));
    assert!(raw.contains("starting with 2 players"), "{raw}");
    record(&pty);
    let guest = guest.expect("the table's naddr was never printed");
    let (ok, out, err) = rt.block_on(guest.finish(Duration::from_secs(60)));
    assert!(ok, "the guest failed:\n{out}\n{err}");
    assert!(out.contains("table over: "), "{out}");
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&guest_home);
}

/// `n` on the lobby screen hosts a public table of the chosen game as `tolerance host` would;
/// a stranger joins it by the printed naddr and the host's seat is played to the end.
#[test]
fn the_lobby_hosts_a_table_of_the_chosen_game_and_plays_it_when_it_fills() {
    let relay = common::relays::ServedRelay::start();
    let (rt, url) = (&relay.rt, relay.url.clone());
    let home = common::home("tui-lobby-host", "host");
    let guest_home = common::home("tui-lobby-host", "guest");
    common::player(&home);
    common::player(&guest_home);
    let mut pty = Pty::spawn(&["tables", "--relay", &url], &home);
    let mut guest: Option<common::Proc> = None;
    let mut asked = false;
    let status = pty.run(|s| {
        if guest.is_none() {
            if let Some(at) = s.find("tolerance join naddr1") {
                let naddr = common::naddr_of(&s[at..]);
                guest = Some(common::spawn(&guest_home, &["join", &naddr, "--auto"]));
                return None;
            }
        }
        if s.contains("Open public tables (0)") && !asked {
            asked = true;
            return Some("n");
        }
        if s.contains("new table") && !s.contains("checking") {
            if !s.contains("◀ High Card ▶") {
                return Some("\x1b[C");
            }
            // To the seats: two, then host it.
            return Some("\t\t\x7f2\r");
        }
        high_card_keys(s)
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    let raw = strip_escapes(&String::from_utf8_lossy(&pty.raw));
    assert!(raw.contains("hosting high-card"), "{raw}");
    assert!(raw.contains("2 seats, public"), "{raw}");
    record(&pty);
    let guest = guest.expect("the table's naddr was never printed");
    let (ok, out, err) = rt.block_on(guest.finish(Duration::from_secs(60)));
    assert!(ok, "the guest failed:\n{out}\n{err}");
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&guest_home);
}

/// `f` on the lobby screen sends feedback as `tolerance feedback --relay URL` does and shows
/// which relays took it; `q` then leaves with the terminal given back.
#[test]
fn the_lobby_sends_feedback_and_shows_the_relays_that_took_it() {
    let relay = common::relays::ServedRelay::start();
    let url = relay.url.clone();
    let home = common::home("tui-lobby-feedback", "me");
    common::player(&home);
    let mut pty = Pty::spawn(&["tables", "--relay", &url], &home);
    let mut sent = false;
    let mut report = String::new();
    let status = pty.run(|s| {
        if s.contains("accepted by") {
            sent = true;
            report = s.to_string();
            return Some(" ");
        }
        if s.contains("Open public tables (0)") {
            return Some(if sent { "q" } else { "f" });
        }
        (s.contains("feedback to the author") && !s.contains("more dice"))
            .then_some("more dice, please\r")
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    assert!(sent, "no relay took the feedback:\n{}", pty.text());
    let at = url.trim_start_matches("ws://").trim_end_matches('/');
    assert!(report.contains("sent privately"), "{report}");
    assert!(
        report.contains(&format!("accepted by ws://{at}")),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&home);
}

/// A host who quits with q→y signs its leave: the stranger at its table goes on at once — no
/// deadline runs out (the table's pace is `normal`: a minute a move and two of bank), no vote is
/// cast — and every record names who left.
#[test]
fn quitting_with_q_and_y_forfeits_at_once_and_the_other_player_goes_on() {
    let relay = common::relays::ServedRelay::start();
    let (rt, url) = (&relay.rt, relay.url.clone());
    let home = common::home("tui-quit", "host");
    let guest_home = common::home("tui-quit", "guest");
    common::player(&home);
    common::player(&guest_home);
    let mut pty = Pty::spawn(
        &[
            "host",
            "--game",
            "high-card",
            "--seats",
            "2",
            "--public",
            "--pace",
            "normal",
            "--relay",
            &url,
        ],
        &home,
    );
    let mut guest: Option<common::Proc> = None;
    let mut naddr = String::new();
    let mut quit = false;
    let status = pty.run(|s| {
        if guest.is_none() {
            if let Some(at) = s.find("tolerance join naddr1") {
                naddr = common::naddr_of(&s[at..]);
                guest = Some(common::spawn(&guest_home, &["join", &naddr, "--auto"]));
            }
            return None;
        }
        if s.contains("Leave the table?") {
            return Some("y");
        }
        if s.contains("Your move") && !quit {
            quit = true;
            return Some("q");
        }
        None
    });
    assert!(quit, "never asked to move:\n{}", pty.text());
    assert!(status.contains("Exited"), "{status}");
    pty.assert_restored();
    let after = pty.after();
    assert!(after.contains("you left the table"), "{after}");
    // The history lists the table left, with what the seat saw until it left.
    let listed = common::run(&home, &["history"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    let line = listed
        .lines()
        .find(|l| l.contains("high-card"))
        .unwrap_or_else(|| {
            panic!("the table left is not in the history:\n{listed}\nafter the table:\n{after}")
        });
    assert!(line.contains("you left the table"), "{listed}");
    let shown = common::run(&home, &["history", "show", "1"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.lines().count() > 2, "no story kept:\n{shown}");
    let guest = guest.expect("the table's naddr was never printed");
    // Without the leave, the guest would wait out a minute and the bank before voting.
    let (ok, out, err) = rt.block_on(guest.finish(Duration::from_secs(100)));
    assert!(ok, "the guest failed:\n{out}\n{err}");
    assert!(out.contains("left the table"), "{out}");
    let over = out
        .lines()
        .find(|l| l.starts_with("table over: "))
        .unwrap_or_else(|| panic!("no end line:\n{out}"));
    assert!(over.contains("0 rejected"), "{over}");
    // The relay's copy: a removal for leaving, and not one timeout vote.
    let v = common::run(
        &guest_home,
        &["verify", "--table", &naddr, "--relay", &url, "--json"],
    );
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(v.status.success(), "{text}");
    assert!(text.contains("\"left\""), "{text}");
    assert!(!text.contains("timed_out"), "{text}");
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&guest_home);
}

/// A hosted two-seat High Card table: this identity hosts in a pseudo-terminal, a stranger's bot
/// (its own process and key) joins by naddr.
struct Hosted {
    relay: common::relays::ServedRelay,
    home: std::path::PathBuf,
    guest_home: std::path::PathBuf,
    url: String,
}

impl Hosted {
    fn new(test: &str) -> Hosted {
        let relay = common::relays::ServedRelay::start();
        let url = relay.url.clone();
        let home = common::home(test, "host");
        let guest_home = common::home(test, "guest");
        common::player(&home);
        common::player(&guest_home);
        Hosted {
            relay,
            home,
            guest_home,
            url,
        }
    }

    fn host(&self, timing: &[&str]) -> Pty {
        self.host_game("high-card", timing)
    }

    fn host_game(&self, game: &str, more: &[&str]) -> Pty {
        let mut args = vec![
            "host", "--game", game, "--seats", "2", "--public", "--relay", &self.url,
        ];
        args.extend_from_slice(more);
        Pty::spawn(&args, &self.home)
    }

    fn join(&self, screen: &str) -> Option<(String, common::Proc)> {
        let at = screen.find("tolerance join naddr1")?;
        let naddr = common::naddr_of(&screen[at..]);
        let guest = common::spawn(&self.guest_home, &["join", &naddr, "--auto"]);
        Some((naddr, guest))
    }
}

impl Drop for Hosted {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.home);
        let _ = std::fs::remove_dir_all(&self.guest_home);
    }
}

/// The seconds the status line shows for the open step: " your move (NNs) · …".
fn secs_shown(screen: &str) -> Option<u64> {
    let line = screen
        .lines()
        .find(|l| l.trim_start().starts_with("your move"))?;
    let open = line.find('(')?;
    let close = line[open..].find("s)")?;
    line[open + 1..open + close].parse().ok()
}

/// A player who lets its deadline pass is told so on its own screen, is not offered the closed
/// step any more, and plays on.
#[test]
fn a_player_who_lets_the_deadline_pass_sees_the_timeout_on_its_own_screen() {
    let t = Hosted::new("tui-timeout");
    let mut pty = t.host(&["--move-secs", "3", "--bank-secs", "0"]);
    let mut guest = None;
    let mut waited = false;
    let mut told = false;
    let mut offered_after = false;
    let status = pty.run(|s| {
        if guest.is_none() {
            guest = t.join(s);
            return None;
        }
        if s.contains("Table over") {
            return Some("\r");
        }
        if s.contains("you timed out: the default move was played") {
            told = true;
            // The closed step is withdrawn: no move is offered until the table asks again.
            if !offered_after && s.contains("Your move") && help(s).contains("k: keep") {
                offered_after = true;
            }
        }
        if !s.contains("Your move") {
            return None;
        }
        if !waited {
            // The first decision: let its three seconds run out.
            waited = true;
            return None;
        }
        let keys = help(s);
        if !told {
            return None;
        }
        if keys.contains("k: keep") {
            return Some("k");
        }
        keys.contains("y: stay in").then_some("y")
    });
    assert!(told, "never told of the timeout:\n{}", pty.text());
    assert_exited_ok(&status, &pty);
    let after = pty.after();
    assert!(after.contains("timed out"), "{after}");
    let (_, g) = guest.expect("the table's naddr was never printed");
    let (ok, out, err) = t.relay.rt.block_on(g.finish(Duration::from_secs(60)));
    assert!(ok, "the guest failed:\n{out}\n{err}");
}

/// A player killed at its move and resumed 30 s later comes back at the same step with the
/// clock the chain gives it: what it showed before, less the time it was away (±2 s).
#[test]
fn a_player_resumed_30_s_later_shows_the_same_clock_and_step() {
    let t = Hosted::new("tui-resume-clock");
    let mut pty = t.host(&["--pace", "normal"]);
    let mut guest = None;
    let first: Option<(Instant, u64)>;
    let started = Instant::now();
    loop {
        pty.pump();
        let s = pty.text();
        if guest.is_none() {
            guest = t.join(&s);
        } else if let Some(left) = secs_shown(&s) {
            first = Some((Instant::now(), left));
            break;
        }
        assert!(
            pty.exited().is_none() && started.elapsed() < Duration::from_secs(120),
            "no move came:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (seen_at, left_then) = first.unwrap();
    let pid = pty.session.get_process().pid().to_string();
    assert!(Command::new("kill")
        .args(["-9", &pid])
        .status()
        .unwrap()
        .success());
    // The scenario: the player is away for half a minute.
    std::thread::sleep(Duration::from_secs(30));
    let (naddr, g) = guest.unwrap();
    let mut back = Pty::spawn(&["resume", &naddr], &t.home);
    let started = Instant::now();
    let shown = loop {
        back.pump();
        let s = back.text();
        if let Some(left) = secs_shown(&s) {
            break left;
        }
        assert!(
            back.exited().is_none() && started.elapsed() < Duration::from_secs(60),
            "the resumed seat never showed its move:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let expected = left_then.saturating_sub(seen_at.elapsed().as_secs());
    assert!(
        shown.abs_diff(expected) <= 2,
        "showed {shown}s, the chain gives {expected}s (first {left_then}s)"
    );
    // Same step: the table never moved while the seat was away (the guest waits for it).
    let status = back.run(|s| {
        if s.contains("Table over") {
            return Some("\r");
        }
        high_card_move(s)
    });
    assert_exited_ok(&status, &back);
    let (ok, out, err) = t.relay.rt.block_on(g.finish(Duration::from_secs(60)));
    assert!(ok, "the guest failed:\n{out}\n{err}");
    assert!(!out.contains("timed out"), "{out}");
}

/// The key a domino panel's notice asks for: "it fits more than one end: press w or e" → "w".
fn pressed(screen: &str) -> Option<&'static str> {
    let at = screen.find("more than one end: press ")?;
    let key = screen[at + "more than one end: press ".len()..]
        .chars()
        .next()?;
    ["w", "e", "n", "s"]
        .into_iter()
        .find(|k| k.starts_with(key))
}

/// A domino player's key for this screen: the frame's own screens answered, then draw or pass
/// when that is all there is, otherwise the tile the panel picked (the first that fits), on the
/// end it asks for when it fits more than one.
fn domino_answer(s: &str) -> Option<&'static str> {
    if let Some(k) = frame_answer(s) {
        return Some(k);
    }
    let keys = help(s);
    if !s.contains("Your move") {
        return None;
    }
    if keys.contains("d: draw") {
        return Some("d");
    }
    if keys.contains("p: pass") {
        return Some("p");
    }
    pressed(s).or(Some("\r"))
}

/// Plays a whole two-seat domino table of `game` against a bot for one hand (or round) by keys:
/// draw or pass when that is all there is, otherwise the tile the panel picked (the first that
/// fits), on the end it asks for when it fits more than one. Every word of `want` must have been
/// on the screen; the terminal must be given back with a plain record of a table that rejected
/// nothing. Returns that record.
fn play_dominoes(game: &str, want: &[&'static str]) -> String {
    let home = temp_home(game);
    let mut pty = Pty::spawn(
        &["play", "--game", game, "--players", "2", "--hands", "1"],
        &home,
    );
    let mut seen = Vec::<&str>::new();
    let mut asked = 0;
    let status = pty.run(|s| {
        note_seen(s, want, &mut seen);
        let k = domino_answer(s);
        if k.is_some() && s.contains("Your move") {
            asked += 1;
        }
        k
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    for w in want {
        assert!(seen.contains(w), "{w} was never on the screen");
    }
    assert!(asked > 0, "never asked for a move");
    let after = record(&pty);
    let _ = std::fs::remove_dir_all(&home);
    after
}

#[test]
fn a_whole_all_fives_hand_played_with_keys_in_the_terminal() {
    let after = play_dominoes(
        "all-fives",
        &["Hand 1", "boneyard", "count", "Your move", "relays 1/1"],
    );
    // The hand was played to its end and counted: you set tiles, and the hand ended by a
    // domino or a block, its tiles shown and scored.
    assert!(
        after.contains("you lead") || after.contains("you set"),
        "{after}"
    );
    assert!(
        after.contains("the hand is over") || after.contains("the hand is blocked"),
        "{after}"
    );
    assert!(
        after.contains("points for the hand") || after.contains("nobody scores"),
        "{after}"
    );
}

#[test]
fn a_whole_chickenfoot_round_played_with_keys_in_the_terminal() {
    let after = play_dominoes(
        "chickenfoot",
        &[
            "centerpiece [9|9]",
            "chicken yard",
            "tiles/points (fewest wins)",
            "Your move",
        ],
    );
    assert!(after.contains("the round is over"), "{after}");
    assert!(
        after.contains("you set") || after.contains("you draw"),
        "{after}"
    );
}

/// A person hosts an All Fives table in the terminal and a stranger (another identity, its own
/// process and key) joins it by naddr: the hand is played with keys to its count, and both
/// sides end with the same clean table.
#[test]
fn a_person_hosts_all_fives_for_a_stranger_and_plays_the_hand_with_keys() {
    let t = Hosted::new("tui-all-fives-host");
    let mut pty = t.host_game("all-fives", &["--hands", "1"]);
    let mut guest = None;
    let mut asked = 0;
    let status = pty.run(|s| {
        if guest.is_none() {
            guest = t.join(s);
            return None;
        }
        let k = domino_answer(s);
        if k.is_some() && s.contains("Your move") {
            asked += 1;
        }
        k
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    assert!(asked > 0, "never asked for a move");
    let after = record(&pty);
    assert!(
        after.contains("the hand is over") || after.contains("the hand is blocked"),
        "{after}"
    );
    let (_, g) = guest.expect("the table's naddr was never printed");
    let (ok, out, err) = t.relay.rt.block_on(g.finish(Duration::from_secs(60)));
    assert!(ok, "the stranger's client failed:\n{out}\n{err}");
    assert!(out.contains("0 rejected"), "{out}");
}

/// The first line of the plain record printed after the table: "table over: …".
fn table_over(pty: &Pty) -> String {
    let after = pty.after();
    after
        .lines()
        .find(|l| l.starts_with("table over: "))
        .unwrap_or_else(|| panic!("no plain record after the table:\n{after}"))
        .to_string()
}

/// The cards on the first line of the " Your move " box: one's hand.
fn hand_in_box(screen: &str) -> Vec<String> {
    let mut rows = screen.lines().skip_while(|l| !l.contains("┌ Your move"));
    rows.next();
    rows.next()
        .and_then(|r| r.split('│').map(str::trim).rfind(|t| !t.is_empty()))
        .map(|t| t.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// The key that types digit `d`.
fn digit(d: char) -> &'static str {
    const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    DIGITS[d.to_digit(10).expect("a digit") as usize]
}

/// Lamarckian Poker against two bots: every turn the pool, the deck, the discards and the
/// others' card counts are on the screen, and the mark is picked from one's hand — the first
/// card on odd turns, the second (its number, 2) on even turns — until the deck runs out (or
/// this seat goes extinct and watches the end).
#[test]
fn a_whole_lamarckian_poker_game_played_with_keys_in_the_terminal() {
    let home = temp_home("lamarckian");
    let mut pty = Pty::spawn(
        &["play", "--game", "lamarckian-poker", "--players", "3"],
        &home,
    );
    const SEEN: [&str; 7] = [
        "Lamarckian Poker",
        "pool ",
        " left · ",
        " discarded",
        "your hand below",
        "[Enter] mark ",
        "relays 1/1",
    ];
    let mut seen = Vec::<&str>::new();
    let mut marks = 0;
    let mut moved = 0;
    let mut picked = false;
    let status = pty.run(|s| {
        note_seen(s, &SEEN, &mut seen);
        if let Some(k) = frame_answer(s) {
            return Some(k);
        }
        let keys = help(s);
        let at = keys.find("Enter: mark ")?;
        let card = keys[at..].split(" · ").next().unwrap().to_string();
        // Even turns: the second card, picked by its number, when the hand has more than one.
        let hand = hand_in_box(s);
        if marks % 2 == 1 && hand.len() > 1 && !picked {
            picked = true;
            return Some("2");
        }
        if picked {
            assert_eq!(card, format!("Enter: mark {}", hand[1]), "{s}");
            picked = false;
            moved += 1;
        }
        marks += 1;
        Some("\r")
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    for w in SEEN {
        assert!(seen.contains(&w), "{w} was never on the screen");
    }
    assert!(
        marks >= 2 && moved >= 1,
        "{marks} marks, {moved} moved:\n{}",
        pty.text()
    );
    let over = table_over(&pty);
    assert!(over.contains("0 rejected"), "{over}");
    let after = pty.after();
    for w in ["turn 1: the pool is", "you play", "falls into the pool"] {
        assert!(after.contains(w), "{w} not in the record:\n{after}");
    }
    assert!(
        // "bot 1 wins", "you win", or a shared win, as the words for each person read.
        after.contains(" wins") || after.contains("you win") || after.contains("share the win"),
        "{after}"
    );
    let _ = std::fs::remove_dir_all(&home);
}

/// What this seat did in a round of Abandon Ship played by [`abandon_round`].
#[derive(Default)]
struct Sailed {
    fights: usize,
    targeted: usize,
    answered: usize,
    surrendered: usize,
    /// Answers or surrenders to a fight a bot picked with this seat.
    defended: usize,
    discarded: usize,
    record: String,
}

/// Abandon Ship against two bots, one round: this seat picks a fight every other turn (f, then
/// the player's number when more than one can be attacked) and discards (d) between; a fight's
/// answer is a card that beats the last one (a) the first time, a surrender (s) from then on;
/// and it chooses its Key Card (k) when the ship sinks. Each key is read off the help line.
fn abandon_round(test: &str, bots: &str, players: &str, rounds: &str) -> Sailed {
    let home = temp_home(test);
    let mut pty = Pty::spawn(
        &[
            "play",
            "--game",
            "abandon-ship",
            "--players",
            players,
            "--hands",
            rounds,
            "--bot-level",
            bots,
        ],
        &home,
    );
    const SEEN: [&str; 5] = [
        "Abandon Ship",
        "lifeboats ♣",
        "/200  hand ",
        " left · dealer ",
        "relays 1/1",
    ];
    let mut seen = Vec::<&str>::new();
    let mut fights = 0;
    let mut targeted = 0;
    let mut answered = 0;
    let mut surrendered = 0;
    let mut defended = 0;
    let mut discarded = 0;
    let mut key = false;
    let status = pty.run(|s| {
        note_seen(s, &SEEN, &mut seen);
        if let Some(k) = frame_answer(s) {
            return Some(k);
        }
        let keys = help(s);
        if keys.contains("k: Key Card ") {
            key = true;
            return Some("k");
        }
        if keys.contains("Esc: back") {
            // Whom to fight: the first player offered.
            let at = keys.find(": fight #")?;
            targeted += 1;
            return Some(digit(keys[..at].chars().last()?));
        }
        if keys.contains("s: surrender") {
            // A fight to answer: the screen shows who attacks whom, with what.
            assert!(
                s.contains(" attacks you: ") || s.contains("you attack "),
                "no fight on the screen:\n{s}"
            );
            assert!(s.contains("(you must beat "), "{s}");
            if s.contains(" attacks you: ") {
                defended += 1;
            }
            if answered == 0 && keys.contains("a: answer with ") {
                answered += 1;
                return Some("a");
            }
            surrendered += 1;
            return Some("s");
        }
        if !keys.contains("d: discard ") {
            return None;
        }
        if (fights + discarded) % 2 == 0 && keys.contains("f: fight with ") {
            fights += 1;
            return Some("f");
        }
        discarded += 1;
        Some("d")
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    for w in SEEN {
        assert!(seen.contains(&w), "{w} was never on the screen");
    }
    let over = table_over(&pty);
    assert!(over.contains("0 rejected"), "{over}");
    let after = pty.after();
    if surrendered > 0 {
        assert!(after.contains("you surrender the fight"), "{after}");
    }
    if answered > 0 {
        assert!(after.contains("you answer with"), "{after}");
    }
    if key {
        assert!(after.contains("Key Cards: "), "{after}");
    }
    assert!(after.contains("the ship sinks"), "{after}");
    assert!(after.contains("scores: "), "{after}");
    let _ = std::fs::remove_dir_all(&home);
    Sailed {
        fights,
        targeted,
        answered,
        surrendered,
        defended,
        discarded,
        record: after,
    }
}

#[test]
fn a_round_of_abandon_ship_played_with_keys_in_the_terminal() {
    let r = abandon_round("abandon", "normal", "3", "1");
    assert!(
        r.fights > 0 && r.discarded > 0,
        "{} fights, {} discards",
        r.fights,
        r.discarded
    );
    assert!(r.targeted > 0, "never chose whom to fight");
    assert!(r.answered + r.surrendered > 0, "never answered a fight");
    assert!(r.record.contains("you pick a fight with"), "{}", r.record);
    assert!(r.record.contains("you discard "), "{}", r.record);
}

/// Random bots pick fights with this seat: each is answered or surrendered from the keys.
#[test]
fn abandon_ship_fights_the_bots_pick_are_answered_or_surrendered_with_keys() {
    // Heads-up, every fight the bot picks is with this seat (at three seats the bots once
    // fought only each other for a whole round); two rounds give it many turns to pick one.
    let r = abandon_round("abandon-attacked", "easy", "2", "2");
    assert!(
        r.defended > 0,
        "no bot picked a fight with this seat:\n{}",
        r.record
    );
    assert!(
        r.record.contains(" picks a fight with you and plays "),
        "{}",
        r.record
    );
    assert!(
        r.record.contains("you surrender the fight") || r.record.contains("you answer with"),
        "{}",
        r.record
    );
}

/// The person hosts a Lamarckian Poker table in the terminal, inviting a second identity by its
/// npub; that identity finds the invitation in its `tables --json`, joins by the naddr as its
/// own process (`join NADDR --auto`), and both play it to the end over the relay.
#[test]
fn hosting_lamarckian_poker_by_npub_a_second_identity_joins_and_both_finish() {
    let relay = common::relays::ServedRelay::start();
    let (rt, url) = (&relay.rt, relay.url.clone());
    let home = common::home("tui-invite", "host");
    let guest_home = common::home("tui-invite", "guest");
    common::player(&home);
    let npub = common::player(&guest_home);
    let mut pty = Pty::spawn(
        &[
            "host",
            "--game",
            "lamarckian-poker",
            "--seats",
            "2",
            "--invite",
            &npub,
            "--relay",
            &url,
        ],
        &home,
    );
    let mut guest: Option<common::Proc> = None;
    let mut naddr = String::new();
    let mut invitation = serde_json::Value::Null;
    let mut marks = 0;
    let status = pty.run(|s| {
        if guest.is_none() {
            // Once the relay took the invitation, the invited identity finds it in its own
            // list of tables, then joins by the naddr.
            if !s.contains("relays took the invitation") {
                return None;
            }
            let at = s.find("tolerance join naddr1")?;
            naddr = common::naddr_of(&s[at..]);
            let listed = common::run(&guest_home, &["tables", "--relay", &url, "--json"]);
            let text = String::from_utf8_lossy(&listed.stdout);
            assert!(listed.status.success(), "{text}");
            let all: serde_json::Value = serde_json::from_str(&text).expect("tables --json");
            invitation = all["invitations"]
                .as_array()
                .and_then(|v| v.iter().find(|l| l["naddr"] == naddr.as_str()))
                .cloned()
                .unwrap_or_else(|| panic!("the invitation is not listed for the guest: {text}"));
            guest = Some(common::spawn(&guest_home, &["join", &naddr, "--auto"]));
            return None;
        }
        if let Some(k) = frame_answer(s) {
            return Some(k);
        }
        if !help(s).contains("Enter: mark ") {
            return None;
        }
        marks += 1;
        Some("\r")
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    assert!(marks > 0, "never asked for a mark:\n{}", pty.text());
    let raw = strip_escapes(&String::from_utf8_lossy(&pty.raw));
    assert!(raw.contains("hosting lamarckian-poker"), "{raw}");
    assert!(raw.contains("2 seats, invite only"), "{raw}");
    // Without a profile name, the invitee is named by a short npub.
    assert!(
        raw.contains(&format!("invited {}", common::short_npub(&npub))),
        "{raw}"
    );
    assert_eq!(invitation["game"], "lamarckian-poker", "{invitation}");
    assert_eq!(invitation["public"], false, "{invitation}");
    let over = table_over(&pty);
    assert!(over.contains("0 rejected"), "{over}");
    let guest = guest.expect("the table's naddr was never printed");
    let (ok, out, err) = rt.block_on(guest.finish(Duration::from_secs(60)));
    assert!(ok, "the guest failed:\n{out}\n{err}");
    let theirs = out
        .lines()
        .find(|l| l.starts_with("table over: "))
        .unwrap_or_else(|| panic!("no end line from the guest:\n{out}"));
    assert!(theirs.contains("0 rejected"), "{theirs}");
    // The relay's copy checks out for a third party.
    let v = common::run(&guest_home, &["verify", "--table", &naddr, "--relay", &url]);
    assert!(
        v.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&v.stdout),
        String::from_utf8_lossy(&v.stderr)
    );
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&guest_home);
}

/// Tolerance: Reformation against two bots, one reign, every move made with keys: a card of the
/// hand with Enter (the cursor starts on a card that may be played), a Wild card's suit with its
/// letter, and every other choice (the first leader, an effect's target, the Royal Execution, a
/// repayment) from its list with Enter. The reign, the trick, the piles and the hand's card in
/// full are on the screen.
#[test]
fn a_reign_of_reformation_played_with_keys_in_the_terminal() {
    let home = temp_home("reformation");
    let mut pty = Pty::spawn(
        &[
            "play",
            "--game",
            "reformation",
            "--players",
            "3",
            "--hands",
            "1",
        ],
        &home,
    );
    const SEEN: [&str; 6] = [
        "Reign 1/1 · Mary I · Catholic",
        "trick (",
        "    living ",
        " · money ",
        "Enter: play it",
        "relays 1/1",
    ];
    let mut seen = Vec::<&str>::new();
    let (mut played, mut declared) = (0, 0);
    let status = pty.run(|s| {
        note_seen(s, &SEEN, &mut seen);
        if let Some(k) = frame_answer(s) {
            return Some(k);
        }
        let keys = help(s);
        if keys.contains("n: as Nobles") {
            declared += 1;
            return Some("n");
        }
        if keys.contains("Enter: play it") {
            played += 1;
            return Some("\r");
        }
        keys.contains("Enter: confirm").then_some("\r")
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    for w in SEEN {
        assert!(seen.contains(&w), "{w} was never on the screen");
    }
    let over = table_over(&pty);
    assert!(over.contains("0 rejected"), "{over}");
    let after = pty.after();
    assert!(played >= 12, "played {played} cards with keys");
    assert!(
        after.contains("you play ") || after.contains("you lead "),
        "{after}"
    );
    if declared > 0 {
        assert!(after.contains(" as Nobles"), "{after}");
    }
    assert!(after.contains("End of Round taxes: you collect"), "{after}");
    assert!(
        after.contains(" wins Tolerance: Reformation")
            || after.contains("you win Tolerance: Reformation")
            || after.contains("share the win"),
        "{after}"
    );
    let _ = std::fs::remove_dir_all(&home);
}

/// A person hosts a three-seat Tolerance: Reformation table for strangers (one reign): two other
/// identities, each its own process and key, join by the table's naddr and play with bots; the
/// host plays every move with keys, and all three end with the same clean table.
#[test]
fn a_person_hosts_reformation_for_two_strangers_and_plays_a_reign_with_keys() {
    let relay = common::relays::ServedRelay::start();
    let url = relay.url.clone();
    let homes: Vec<std::path::PathBuf> = ["host", "guest1", "guest2"]
        .iter()
        .map(|w| common::home("tui-reformation-host", w))
        .collect();
    for h in &homes {
        common::player(h);
    }
    let mut pty = Pty::spawn(
        &[
            "host",
            "--game",
            "reformation",
            "--seats",
            "3",
            "--public",
            "--relay",
            &url,
            "--hands",
            "1",
        ],
        &homes[0],
    );
    let mut guests = Vec::new();
    let mut asked = 0;
    let status = pty.run(|s| {
        if guests.is_empty() {
            let at = s.find("tolerance join naddr1")?;
            let naddr = common::naddr_of(&s[at..]);
            for h in &homes[1..] {
                guests.push(common::spawn(h, &["join", &naddr, "--auto"]));
            }
            return None;
        }
        if let Some(k) = frame_answer(s) {
            return Some(k);
        }
        let keys = help(s);
        if keys.contains("n: as Nobles") {
            return Some("n");
        }
        if keys.contains("Enter: play it") || keys.contains("Enter: confirm") {
            asked += 1;
            return Some("\r");
        }
        None
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    assert!(asked >= 12, "asked for {asked} moves");
    let after = record(&pty);
    assert!(after.contains("End of Round taxes: you collect"), "{after}");
    for g in guests {
        let (ok, out, err) = relay.rt.block_on(g.finish(Duration::from_secs(90)));
        assert!(ok, "a stranger's client failed:\n{out}\n{err}");
        assert!(out.contains("0 rejected"), "{out}");
    }
    for h in &homes {
        let _ = std::fs::remove_dir_all(h);
    }
}

/// Ctrl-C on the terminal table stops the program as a crash would (issue 30): no leave is
/// signed, the program says the seat is kept, and `resume` takes it back and plays on to the
/// end. Heads-up, so the table waits for the player (PROTOCOL §7.10) instead of ending.
#[test]
fn ctrl_c_keeps_the_seat_and_resume_takes_it_back() {
    let stopped = stop_then_resume("tui-ctrl-c", Stop::CtrlC);
    let raw = strip_escapes(&String::from_utf8_lossy(&stopped.raw));
    assert!(raw.contains("you stopped without leaving"), "{raw}");
    assert!(raw.contains("tolerance resume"), "{raw}");
    assert!(!raw.contains("left the table"), "{raw}");
}

/// A heads-up seat whose client dies (SIGKILL, mid-hand, nothing written to the terminal at the
/// end) is not the end of the table (issue 30, item 1): the other player's client sees the seat
/// sit out past its move's deadline and waits; `resume` takes the seat back, it is dealt in
/// again and plays to the end. The terminal still shows the dead client's table when `resume` starts; the
/// resumed table then looks exactly as it does in a terminal that never showed anything
/// (item 8).
#[test]
fn a_killed_heads_up_client_resumes_and_its_screen_is_as_fresh() {
    stop_then_resume("tui-killed", Stop::Kill);
}

/// A heads-up Tolerance table hosted by a bot of another identity (its own process and key) on
/// a relay the test serves, inviting this test's person; `more` adds to the host's arguments.
struct HeadsUp {
    relay: common::relays::ServedRelay,
    url: String,
    host_home: std::path::PathBuf,
    home: std::path::PathBuf,
    host: common::Proc,
    naddr: String,
}

impl HeadsUp {
    fn host(test: &str, more: &[&str]) -> HeadsUp {
        let relay = common::relays::ServedRelay::start();
        let url = relay.url.clone();
        let host_home = common::home(test, "host");
        let home = common::home(test, "guest");
        common::player(&host_home);
        let guest = common::player(&home);
        let variant = common::deep_variant(&host_home, "");
        let mut args = vec![
            "host",
            "--relay",
            &url,
            "--game",
            "tolerance",
            "--variant",
            variant.to_str().unwrap(),
            "--seats",
            "2",
            "--invite",
            &guest,
            "--auto",
        ];
        args.extend_from_slice(more);
        let host = common::spawn(&host_home, &args);
        let naddr = common::naddr_of(
            &relay
                .rt
                .block_on(host.line("tolerance join naddr1", Duration::from_secs(30))),
        );
        HeadsUp {
            relay,
            url,
            host_home,
            home,
            host,
            naddr,
        }
    }
}

/// How the seat's client stops at its first move.
#[derive(Clone, Copy, PartialEq)]
enum Stop {
    /// The person presses Ctrl-C.
    CtrlC,
    /// The process is killed outright, as by a crash or a closed laptop.
    Kill,
}

/// A heads-up Tolerance table hosted by a bot, the person's seat in a pseudo-terminal stopped
/// at its first move as `how` says, then taken back with `resume` (no argument: the one table
/// in play) and played to the end. Checks what every way of stopping must give: the resumed
/// table starts from a cleared screen, shows what a fresh terminal would, finishes, and the
/// relay's record has nobody leaving. Returns the stopped client's terminal.
fn stop_then_resume(test: &str, how: Stop) -> Pty {
    let t = HeadsUp::host(
        test,
        &[
            "--hands",
            "3",
            "--move-secs",
            "8",
            "--crypto-secs",
            "8",
            "--bank-secs",
            "0",
            "--relay-secs",
            "2",
            "--return-secs",
            "120",
        ],
    );
    let rt = &t.relay.rt;
    let mut pty = Pty::spawn(&["join", &t.naddr], &t.home);
    let pid = pty.session.get_process().pid();
    let mut stopped = false;
    let status = pty.run(|s| {
        if stopped || !s.contains("Your move") {
            return None;
        }
        stopped = true;
        match how {
            Stop::CtrlC => Some("\x03"),
            Stop::Kill => {
                let killed = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status()
                    .expect("kill runs");
                assert!(killed.success(), "the client could not be killed");
                None
            }
        }
    });
    assert!(stopped, "never reached a move:\n{}", pty.text());
    assert!(
        !status.contains(", 0)"),
        "a stopped client is not a finished table: {status}"
    );
    if how == Stop::CtrlC {
        pty.assert_restored();
    } else {
        // A crash is waited out: the move's deadline passes, the seat sits out and the
        // heads-up table waits for it rather than ending.
        rt.block_on(
            t.host
                .line("sits out until back at the table", Duration::from_secs(60)),
        );
    }
    // `resume` with no argument takes the one table in play here, on the terminal table,
    // which starts from a cleared screen (a terminal may keep an earlier program's cells).
    let mut back = Pty::spawn(&["resume"], &t.home);
    let (mut raised, mut rolled) = (false, false);
    let status = back.run(|s| tolerance_keys(s, &mut raised, &mut rolled));
    assert_exited_ok(&status, &back);
    back.assert_restored();
    let raw = String::from_utf8_lossy(&back.raw).to_string();
    let screen = &raw[raw.find("\u{1b}[?1049h").expect("the table was drawn")..];
    let first_text = screen
        .find("Tolerance")
        .expect("the table's title was drawn");
    assert!(
        screen[..first_text].contains("\u{1b}[2J"),
        "the resumed table did not clear the screen before drawing"
    );
    // The last table screen, drawn in the terminal the stopped client left as it was, and in
    // one that showed nothing before: not one cell differs.
    let find = |from: usize, what: &[u8]| {
        back.raw[from..]
            .windows(what.len())
            .position(|w| w == what)
            .map(|at| from + at)
    };
    let table_start = find(0, b"\x1b[?1049h").expect("the table screen was entered");
    let table_end = find(table_start, b"\x1b[?1049l").expect("the table screen was left");
    let mut over_old = vt100::Parser::new(24, 80, 0);
    over_old.process(&pty.raw);
    over_old.process(&back.raw[..table_end]);
    let mut fresh = vt100::Parser::new(24, 80, 0);
    fresh.process(&back.raw[..table_end]);
    assert!(fresh.screen().alternate_screen() && over_old.screen().alternate_screen());
    assert!(fresh.screen().contents().contains("Table over"));
    assert_eq!(
        over_old.screen().contents(),
        fresh.screen().contents(),
        "cells of the stopped client's table stayed on the resumed one"
    );
    let said = strip_escapes(&raw);
    assert!(said.contains("resuming your table in play: "), "{said}");
    assert!(record(&back).contains("table over: "));
    let (ok, out, err) = rt.block_on(t.host.finish(Duration::from_secs(60)));
    assert!(ok, "the host failed:\n{out}\n{err}");
    if how == Stop::Kill {
        assert!(
            out.contains("back at the table, dealt in from the next hand"),
            "{out}"
        );
    }
    // Nobody signed a leave: the verdicts name no seat that left.
    let v = common::run(
        &t.host_home,
        &["verify", "--table", &t.naddr, "--relay", &t.url, "--json"],
    );
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(text.contains("\"ok\":true"), "{text}");
    assert!(!text.contains("\"reason\":\"left\""), "{text}");
    let _ = std::fs::remove_dir_all(&t.home);
    let _ = std::fs::remove_dir_all(&t.host_home);
    pty
}

/// `watch` on a terminal draws the table as a seat sees it, with no hand and no turn of its
/// own, and `q` stops watching at once while the table goes on.
#[test]
fn watching_a_live_table_on_the_terminal_table_and_stopping() {
    let t = Hosted::new("tui-watch");
    let mut host = t.host(&["--pace", "normal"]);
    let mut guest = None;
    let started = Instant::now();
    // The host's person has the turn and does not answer: the table is live and waits.
    let naddr = loop {
        host.pump();
        let s = host.text();
        match &guest {
            None => guest = t.join(&s),
            Some((naddr, _)) if s.contains("Your move") => break naddr.clone(),
            Some(_) => {}
        }
        assert!(
            host.exited().is_none() && started.elapsed() < Duration::from_secs(120),
            "no move came:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let watcher_home = common::home("tui-watch", "watcher");
    let mut watch = Pty::spawn(&["watch", &naddr, "--relay", &t.url], &watcher_home);
    let mut seen = String::new();
    let status = watch.run(|s| {
        // Drawn once the log is read: the table waits for the host's move.
        if s.contains("q: stop watching") && s.contains("waiting for") {
            seen = s.to_string();
            return Some("q");
        }
        None
    });
    assert!(!seen.is_empty(), "the table was never drawn");
    assert!(
        !seen.contains("Your move"),
        "a spectator was asked:\n{seen}"
    );
    assert!(
        seen.contains("┌ Watching") && !seen.contains("┌ You "),
        "a spectator's box is its own:\n{seen}"
    );
    assert_exited_ok(&status, &watch);
    watch.assert_restored();
    assert!(
        watch.after().contains("you stopped watching"),
        "{}",
        watch.after()
    );
    // The table did not notice: the host still has its turn.
    host.pump();
    assert!(host.exited().is_none(), "{}", host.text());
    let _ = std::fs::remove_dir_all(&watcher_home);
}

/// The value a Mia screen says this seat rolled ("you rolled  3 1 = 31 (only you know)"), as
/// the story names a claim of it ("31", "21 (Mia)").
fn mia_rolled(screen: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains("you rolled"))?;
    let rest = line.split(" = ").nth(1)?;
    // Mia reads "21 (Mia)" on the screen as in the story; a bare "Mia" is taken alike.
    if rest.starts_with("21 (Mia)") || rest.starts_with("Mia") {
        return Some("21 (Mia)".to_string());
    }
    let value = rest.split_whitespace().next()?;
    Some(
        value
            .trim_matches(|c: char| !c.is_ascii_digit())
            .to_string(),
    )
}

/// Mia's `t` claims what the player rolled, through the keys of a whole game: at every claim
/// this player presses `t` and Enter, and the story says it claimed exactly its roll.
#[test]
fn mias_t_then_enter_claims_the_roll_in_a_whole_game() {
    let home = temp_home("mia-truth");
    let mut pty = Pty::spawn(&["play", "--game", "mia", "--players", "2"], &home);
    let mut truths = Vec::<String>::new();
    let status = pty.run(|s| {
        if let Some(k) = frame_answer(s) {
            return Some(k);
        }
        if !s.contains("Your move") {
            return None;
        }
        let keys = help(s);
        if keys.contains("t truth · Enter claim") {
            truths.push(mia_rolled(s)?);
            return Some("t\r");
        }
        // Facing a claim: always challenge, so that the game moves on.
        keys.contains("c challenge").then_some("c")
    });
    assert_exited_ok(&status, &pty);
    pty.assert_restored();
    assert!(!truths.is_empty(), "this player never claimed");
    let after = record(&pty);
    let claimed: Vec<String> = after
        .lines()
        .filter_map(|l| l.split("you claim ").nth(1))
        .map(|rest| {
            if rest.starts_with("21 (Mia)") {
                "21 (Mia)".to_string()
            } else {
                let value = rest.split_whitespace().next().unwrap_or("");
                value
                    .trim_matches(|c: char| !c.is_ascii_digit())
                    .to_string()
            }
        })
        .collect();
    assert_eq!(claimed, truths, "the claims are not the rolls:\n{after}");
    let _ = std::fs::remove_dir_all(&home);
}

/// Leaving where checking is free writes no move the player never made (issue 30, item 5): the
/// person quits with q then y at a turn whose key help offers a free check, after only ever
/// calling. Neither their own record nor the other player's story has them check or fold; both
/// say they left, and the relay's copy agrees.
#[test]
fn leaving_where_checking_is_free_writes_no_check_and_no_fold() {
    let t = HeadsUp::host("tui-no-phantom", &["--hands", "8"]);
    let rt = &t.relay.rt;
    let mut pty = Pty::spawn(&["join", &t.naddr], &t.home);
    let (mut quit, mut calls, mut rolled) = (false, 0, false);
    let status = pty.run(|s| {
        let keys = help(s);
        if s.contains("Leave the table?") {
            return Some(if quit { "y" } else { "n" });
        }
        if s.contains("Table over") {
            return Some("\r");
        }
        if !s.contains("Your move") || quit {
            return keys.contains("any key: back").then_some(" ");
        }
        if keys.contains("c: check") {
            quit = true;
            return Some("q");
        }
        if keys.contains("c: call") {
            calls += 1;
            return Some("c");
        }
        if keys.contains("Enter: roll") {
            rolled = true;
            return Some("\r");
        }
        keys.contains("pick a Tolerance number")
            .then_some(if rolled { "p" } else { "r" })
    });
    assert!(quit, "never offered a free check:\n{}", pty.text());
    assert!(status.contains("Exited"), "{status}");
    pty.assert_restored();
    let mine = strip_escapes(&String::from_utf8_lossy(&pty.raw));
    assert!(mine.contains("you left the table"), "{mine}");
    for made_up in ["you check", "you fold"] {
        assert!(
            !mine.contains(made_up),
            "{made_up} ({calls} calls):\n{mine}"
        );
    }
    let (ok, out, err) = rt.block_on(t.host.finish(Duration::from_secs(120)));
    assert!(ok, "the host failed:\n{out}\n{err}");
    // Heads-up, the only third person in the host's story is the one who left.
    assert!(out.contains("left the table"), "{out}");
    for made_up in [" checks", " folds"] {
        assert!(!out.contains(made_up), "{made_up}:\n{out}");
    }
    let v = common::run(
        &t.host_home,
        &["verify", "--table", &t.naddr, "--relay", &t.url, "--json"],
    );
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(text.contains("\"ok\":true"), "{text}");
    assert!(text.contains("\"left\""), "{text}");
    let _ = std::fs::remove_dir_all(&t.home);
    let _ = std::fs::remove_dir_all(&t.host_home);
}
