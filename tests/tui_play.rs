//! `tolerance play` in a real pseudo-terminal: the terminal table comes up (it is the default on
//! a terminal), a person's keys play a whole networked hand against bots on the embedded relay,
//! and the terminal is given back clean with a plain record of the hand.

#![cfg(unix)]

use expectrl::Session;
use std::io::ErrorKind;
use std::process::Command;
use std::time::{Duration, Instant};
use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};

/// Drops terminal escape sequences, leaving the text the program wrote.
fn strip_escapes(raw: &str) -> String {
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        // CSI: parameters and intermediates up to a final byte in @..~; other escapes are two
        // characters long.
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

fn read_available(session: &mut Session, into: &mut Vec<u8>) -> bool {
    let mut buf = [0u8; 8192];
    let mut got = false;
    loop {
        match session.try_read(&mut buf) {
            Ok(0) => return got,
            Ok(n) => {
                into.extend_from_slice(&buf[..n]);
                got = true;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return got,
            // Linux reports EIO on the pty once the child has gone and the buffer is empty.
            Err(_) => return got,
        }
    }
}

/// Runs `tolerance ARGS` in an 80×24 pseudo-terminal, pressing c and p until it exits.
/// Returns the exit status (as words) and everything the program wrote.
fn drive(args: &[&str], home: &std::path::Path) -> (String, String) {
    drive_with(args, home, |_, _| true)
}

/// As [`drive`], but first shows `before` the text written so far until it returns true (it may
/// press its own keys); c and p follow from then on.
fn drive_with(
    args: &[&str],
    home: &std::path::Path,
    before: impl FnMut(&str, &mut Session) -> bool,
) -> (String, String) {
    // Keys a person would press: c checks or calls, p passes a roll.
    drive_keys(args, home, &["c", "p"], before)
}

/// As [`drive_with`], pressing `keys` in turn. Keys that do not fit the moment are explained,
/// not played; once the table is over, any key leaves.
fn drive_keys(
    args: &[&str],
    home: &std::path::Path,
    keys: &[&str],
    mut before: impl FnMut(&str, &mut Session) -> bool,
) -> (String, String) {
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
    let mut raw = Vec::new();
    let started = Instant::now();
    let mut ready = false;
    let mut i = 0;
    // `status` reaps the child once it has exited: keep what it said.
    let status = loop {
        let status = format!("{:?}", session.get_process().status());
        if !status.contains("StillAlive") {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "no end after 3 minutes:\n{}",
            strip_escapes(&String::from_utf8_lossy(&raw))
        );
        read_available(&mut session, &mut raw);
        if !ready {
            ready = before(&String::from_utf8_lossy(&raw), &mut session);
        } else if started.elapsed() > Duration::from_secs(2) {
            let _ = session.send(keys[i % keys.len()]);
            i += 1;
        }
        std::thread::sleep(Duration::from_millis(150));
    };
    std::thread::sleep(Duration::from_millis(100));
    read_available(&mut session, &mut raw);
    (status, String::from_utf8_lossy(&raw).to_string())
}

/// Text without escapes and blank space: ratatui skips unchanged cells and moves the cursor
/// over blanks, so words are compared squeezed.
fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn a_whole_hand_in_the_terminal_table() {
    let home = std::env::temp_dir().join(format!("tolerance-tui-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let (status, raw) = drive(
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
    let text = strip_escapes(&raw);
    assert!(
        status.contains("Exited") && status.contains(", 0)"),
        "{status}\n{text}"
    );
    // The terminal table was drawn on the alternate screen, and the screen was given back.
    assert!(
        raw.contains("\u{1b}[?1049h"),
        "no alternate screen:\n{text}"
    );
    assert!(
        raw.contains("\u{1b}[?1049l"),
        "alternate screen not left:\n{text}"
    );
    assert!(
        raw.contains("\u{1b}[?25h"),
        "cursor not shown again:\n{text}"
    );
    // ratatui skips cells that did not change and moves the cursor over blanks, so compare
    // without spaces.
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    for word in ["Tolerance", "Last actions", "posts the blind", "relays 1/1"] {
        let w: String = word.chars().filter(|c| !c.is_whitespace()).collect();
        assert!(squeezed.contains(&w), "{word} never drawn:\n{text}");
    }
    assert!(
        squeezed.contains("[c]check") || squeezed.contains("[c]call"),
        "no move offered:\n{text}"
    );
    // After the table: a plain record in the scrollback, every proof verified.
    let after = &raw[raw.rfind("\u{1b}[?1049l").unwrap()..];
    let after = strip_escapes(after);
    assert!(after.contains("stacks:"), "{after}");
    assert!(
        after.contains("table over after 1 hands · every client verified every proof: true"),
        "{after}"
    );
    // The hand went to the person's history like any other.
    let out = Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(["history"])
        .env("TOLERANCE_HOME", &home)
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(list.contains("hand   1  3 players"), "{list}");
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn the_local_game_uses_the_terminal_table_too() {
    let home = std::env::temp_dir().join(format!("tolerance-tui-local-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let (status, raw) = drive(
        &["play", "--local", "--hands", "1", "--players", "2"],
        &home,
    );
    let text = strip_escapes(&raw);
    assert!(
        status.contains("Exited") && status.contains(", 0)"),
        "{status}\n{text}"
    );
    assert!(
        raw.contains("\u{1b}[?1049h") && raw.contains("\u{1b}[?1049l"),
        "{text}"
    );
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(squeezed.contains("localgame:norelays"), "{text}");
    let after = strip_escapes(&raw[raw.rfind("\u{1b}[?1049l").unwrap()..]);
    assert!(after.contains("after 1 hands (local game)"), "{after}");
    let _ = std::fs::remove_dir_all(&home);
}

/// The embedded relay, served from this test process until the first value is dropped.
fn relay() -> ((tokio::runtime::Runtime, EmbeddedRelay), String) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let relay = rt
        .block_on(EmbeddedRelay::start(EmbeddedRelayConfig::default()))
        .unwrap();
    let url = relay.url().to_string();
    ((rt, relay), url)
}

/// A player's config directory with a fresh unencrypted key.
fn player(name: &str) -> std::path::PathBuf {
    let home = std::env::temp_dir().join(format!("tolerance-tui-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let out = Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(["keys", "new", "--plain"])
        .env("TOLERANCE_HOME", &home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    home
}

/// A headless process whose standard output is collected as it comes.
struct Headless {
    child: std::process::Child,
    out: std::sync::Arc<std::sync::Mutex<String>>,
}

fn headless(home: &std::path::Path, args: &[&str]) -> Headless {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(args)
        .env("TOLERANCE_HOME", home)
        .env_remove("TOLERANCE_PASSPHRASE")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap();
    let out = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let mut pipe = child.stdout.take().unwrap();
    let o = out.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            o.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    Headless { child, out }
}

impl Headless {
    fn wait_for(&self, pat: &str) -> String {
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            let out = self.out.lock().unwrap().clone();
            if out.contains(pat) {
                return out;
            }
            assert!(Instant::now() < end, "no '{pat}' in:\n{out}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn finish(mut self) -> (bool, String) {
        let end = Instant::now() + Duration::from_secs(120);
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                panic!("still running:\n{}", self.out.lock().unwrap());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        std::thread::sleep(Duration::from_millis(100));
        let out = self.out.lock().unwrap().clone();
        (status.success(), out)
    }
}

/// `tables` on a terminal opens the lobby screen; Enter on a public table joins it the way
/// `join` does, and the seat is played in the terminal table to the end of the table.
#[test]
fn the_lobby_screen_joins_a_public_table_and_plays_it_in_the_terminal_table() {
    let (_relay, url) = relay();
    let (hh, hs) = (player("lobby-host"), player("lobby-stranger"));
    let host = headless(
        &hh,
        &[
            "host",
            "--relay",
            &url,
            "--seats",
            "2",
            "--hands",
            "1",
            "--auto",
            "--title",
            "open to all",
        ],
    );
    host.wait_for("tolerance join naddr1");
    let mut entered = false;
    let (status, raw) = drive_with(&["tables", "--relay", &url], &hs, |so_far, session| {
        let text = squeeze(&strip_escapes(so_far));
        if !entered && text.contains("▶opentoallhostedby") {
            session.send("\r").unwrap();
            entered = true;
        }
        // Playing starts once the table is drawn.
        entered && text.contains("Lastactions")
    });
    let text = strip_escapes(&raw);
    assert!(
        status.contains("Exited") && status.contains(", 0)"),
        "{status}\n{text}"
    );
    let squeezed = squeeze(&text);
    for words in ["Invitations (0)", "Open public tables (1)", "joining as"] {
        assert!(squeezed.contains(&squeeze(words)), "{words}:\n{text}");
    }
    // The lobby screen and then the table each had the alternate screen, and gave it back.
    assert!(raw.matches("\u{1b}[?1049h").count() >= 2, "{text}");
    let after = strip_escapes(&raw[raw.rfind("\u{1b}[?1049l").unwrap()..]);
    assert!(after.contains("stacks:"), "{after}");
    let over = after
        .lines()
        .find(|l| l.starts_with("table over: 1 hands"))
        .unwrap_or_else(|| panic!("no end line:\n{after}"));
    assert!(over.contains(" 0 violations"), "{over}");
    assert!(over.contains("chips in play 2000 of 2000"), "{over}");
    let (ok, out) = host.finish();
    assert!(ok, "host:\n{out}");
    assert!(out.contains("table over: 1 hands"), "{out}");
    let _ = std::fs::remove_dir_all(&hh);
    let _ = std::fs::remove_dir_all(&hs);
}

/// Once the host has printed its `tolerance join naddr1…` line, a stranger whose config is in
/// `home` joins the table with a bot.
fn join_when_announced(text: &str, joiner: &mut Option<Headless>, home: &std::path::Path) {
    if joiner.is_some() {
        return;
    }
    // Only a whole line: the read may have stopped inside the naddr.
    let line = text
        .split("tolerance join ")
        .nth(1)
        .and_then(|rest| rest.split_once('\n'))
        .map(|(naddr, _)| naddr.trim().to_string());
    if let Some(naddr) = line {
        *joiner = Some(headless(home, &["join", &naddr, "--auto"]));
    }
}

/// `host` on a terminal: the lobby in lines, then the person's seat in the terminal table
/// against a stranger who joined by npub.
#[test]
fn hosting_on_a_terminal_plays_the_seat_in_the_terminal_table() {
    let (_relay, url) = relay();
    let (hh, hj) = (player("host-tui"), player("host-tui-joiner"));
    let mut joiner = None;
    let (status, raw) = drive_with(
        &["host", "--relay", &url, "--seats", "2", "--hands", "1"],
        &hh,
        |so_far, _| {
            let text = strip_escapes(so_far);
            join_when_announced(&text, &mut joiner, &hj);
            squeeze(&text).contains("Lastactions")
        },
    );
    let text = strip_escapes(&raw);
    assert!(
        status.contains("Exited") && status.contains(", 0)"),
        "{status}\n{text}"
    );
    assert!(raw.contains("\u{1b}[?1049h"), "no terminal table:\n{text}");
    let after = strip_escapes(&raw[raw.rfind("\u{1b}[?1049l").unwrap()..]);
    assert!(after.contains("stacks:"), "{after}");
    assert!(
        after.contains("table over: 1 hands") && after.contains(" 0 violations"),
        "{after}"
    );
    let (ok, out) = joiner.expect("the table was announced").finish();
    assert!(ok, "joiner:\n{out}");
    assert!(out.contains("table over: 1 hands"), "{out}");
    let _ = std::fs::remove_dir_all(&hh);
    let _ = std::fs::remove_dir_all(&hj);
}

/// A fresh config directory for one test.
fn temp_home(name: &str) -> std::path::PathBuf {
    let home = std::env::temp_dir().join(format!("tolerance-tui-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    home
}

/// The program exited by itself with status 0.
fn assert_exited_ok(status: &str, text: &str) {
    assert!(
        status.contains("Exited") && status.contains(", 0)"),
        "{status}\n{text}"
    );
}

/// The dice table's end screen names the winner ("You win the game!", "Ana wins the game").
/// Only changed cells are written, so a title like "Game over" can lose a letter that the
/// frame before had in the same place; the winner's line is long enough to stand out.
fn drew_the_winner(squeezed: &str) -> bool {
    squeezed.contains("Youwinthegame!") || squeezed.contains("winsthegame")
}

/// Plays a two-seat Perudo game with `args` on a pseudo-terminal, the person's keys bidding
/// (Enter takes the editor's suggestion) and doubting (d) to the end; checks the dice table came
/// up in the alternate screen, drew each of `words` and the winner, and the program exited by
/// itself. Returns what was printed after the table gave the terminal back.
fn perudo_in_the_dice_table(home_name: &str, args: &[&str], words: &[&str]) -> String {
    let home = temp_home(home_name);
    let (status, raw) = drive_keys(args, &home, &["d", "\r"], |_, _| true);
    let text = strip_escapes(&raw);
    assert_exited_ok(&status, &text);
    assert!(
        raw.contains("\u{1b}[?1049h") && raw.contains("\u{1b}[?1049l"),
        "{text}"
    );
    let squeezed = squeeze(&text);
    for words in ["Perudo", "your cup", "Dudo! The cups are opened"]
        .iter()
        .chain(words)
    {
        assert!(
            squeezed.contains(&squeeze(words)),
            "{words} never drawn:\n{text}"
        );
    }
    assert!(drew_the_winner(&squeezed), "no end screen:\n{text}");
    let _ = std::fs::remove_dir_all(&home);
    strip_escapes(&raw[raw.rfind("\u{1b}[?1049l").unwrap()..])
}

/// `play --game perudo --local` on a terminal: the dice table comes up, the person's keys bid
/// and doubt until one player has every die left.
#[test]
fn a_local_perudo_game_in_the_terminal_table() {
    let after = perudo_in_the_dice_table(
        "perudo",
        &["play", "--game", "perudo", "--local", "--players", "2"],
        &["[Enter] bid", "local game: no relays"],
    );
    assert!(
        after.contains("wins the game") || after.contains("you win the game"),
        "{after}"
    );
    assert!(after.contains("won the game (local game)"), "{after}");
}

/// `play --game perudo` (no `--local`) on a terminal: the same dice table, now over the embedded
/// relay against a bot with its own key, the protocol's waits shown, to the end of the game.
#[test]
fn a_networked_perudo_game_in_the_terminal_table() {
    let after = perudo_in_the_dice_table(
        "perudo-net",
        &["play", "--game", "perudo", "--players", "2"],
        &["over 1 relay"],
    );
    assert!(after.contains("every reveal and move checked"), "{after}");
}

/// `host --game mia` on a terminal: the lobby in lines, then the person's seat in the dice
/// table against a stranger's bot, over the embedded relay, to the end of the game.
#[test]
fn hosting_mia_on_a_terminal_plays_the_seat_in_the_dice_table() {
    let (_relay, url) = relay();
    let (hh, hj) = (player("host-mia"), player("host-mia-joiner"));
    let mut joiner = None;
    let (status, raw) = drive_keys(
        &[
            "host",
            "--game",
            "mia",
            "--relay",
            &url,
            "--seats",
            "2",
            "--move-secs",
            "60",
        ],
        &hh,
        // Enter claims the picker's choice (the truth when it is open); c challenges.
        &["\r", "c"],
        |so_far, _| {
            let text = strip_escapes(so_far);
            join_when_announced(&text, &mut joiner, &hj);
            squeeze(&text).contains("Round")
        },
    );
    let text = strip_escapes(&raw);
    assert_exited_ok(&status, &text);
    let squeezed = squeeze(&text);
    assert!(drew_the_winner(&squeezed), "no end screen:\n{text}");
    for words in ["Mia", "over 1 relay", "Challenge! The cup is lifted"] {
        let w = squeeze(words);
        assert!(squeezed.contains(&w), "{words} never drawn:\n{text}");
    }
    let after = strip_escapes(&raw[raw.rfind("\u{1b}[?1049l").unwrap()..]);
    let over = after
        .lines()
        .find(|l| l.starts_with("game over:"))
        .unwrap_or_else(|| panic!("no end line:\n{after}"));
    assert!(over.contains("every reveal and move checked"), "{over}");
    let (ok, out) = joiner.expect("the table was announced").finish();
    assert!(ok, "joiner:\n{out}");
    // Both clients saw the same winner: one of them was told it won.
    let joiner_line = out
        .lines()
        .find(|l| l.starts_with("game over:"))
        .unwrap_or_else(|| panic!("joiner: no end line\n{out}"));
    assert_ne!(
        over.contains("you won"),
        joiner_line.contains("you won"),
        "{over}\n{joiner_line}"
    );
    let _ = std::fs::remove_dir_all(&hh);
    let _ = std::fs::remove_dir_all(&hj);
}

/// Leaving a local Mia game mid-way (q, then y) gives the terminal back and says so.
#[test]
fn leaving_a_local_mia_game_restores_the_terminal() {
    let home = temp_home("mia-quit");
    let (status, raw) = drive_keys(
        &["play", "--game", "mia", "--local", "--players", "3"],
        &home,
        &["q", "y"],
        |so_far, _| squeeze(&strip_escapes(so_far)).contains("Round"),
    );
    let text = strip_escapes(&raw);
    assert_exited_ok(&status, &text);
    assert!(squeeze(&text).contains("Leavethetable?"), "{text}");
    assert!(
        raw.contains("\u{1b}[?1049l") && raw.contains("\u{1b}[?25h"),
        "terminal not restored:\n{text}"
    );
    let after = strip_escapes(&raw[raw.rfind("\u{1b}[?1049l").unwrap()..]);
    assert!(after.contains("you left the game"), "{after}");
    let _ = std::fs::remove_dir_all(&home);
}
