//! `tolerance play --game perudo|mia --local`, driven like a person would: bots to the end, and a
//! person's typed moves (junk refused with the move syntax, illegal moves with the rule).

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    let _ = feeder.join();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bots_play_perudo_and_both_mia_rankings_to_the_end() {
    for args in [
        vec![
            "play",
            "--game",
            "perudo",
            "--local",
            "--auto",
            "--players",
            "4",
        ],
        vec![
            "play",
            "--game",
            "mia",
            "--local",
            "--auto",
            "--players",
            "3",
        ],
        vec![
            "play",
            "--game",
            "mia",
            "--local",
            "--auto",
            "--players",
            "3",
            "--variant",
            "modern",
        ],
    ] {
        let (ok, out, err) = run(&args, "");
        assert!(ok, "{args:?}: {err}");
        assert!(out.contains("LOCAL"), "{out}");
        let last = out.lines().last().unwrap_or_default();
        assert!(
            last.ends_with("wins the game") || last == "you win the game",
            "{out}"
        );
    }
}

#[test]
fn a_person_types_perudo_moves() {
    // Junk, an opening bid on ones (illegal), then doubts or safe raises until input runs out.
    let mut input = String::from("dance\nbid 2 1\nbid 1 2\n");
    for _ in 0..200 {
        input.push_str("dudo\nbid 30 6\n");
    }
    let (ok, out, err) = run(
        &["play", "--game", "perudo", "--local", "--players", "2"],
        &input,
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("'dance' is not a move: 'bid QUANTITY FACE'"),
        "{out}"
    );
    assert!(out.contains("your cup: "), "{out}");
    // "bid 30 6" is refused on every turn this person gets (ten dice at most).
    assert!(out.contains("(the dice on the table)"), "{out}");
    // A move the rules refuse is told to the person who made it, not to "seat 0".
    assert!(out.contains("that move is not allowed: "), "{out}");
    assert!(!out.contains("seat 0"), "{out}");
    assert!(out.contains("you and 1 bot on this machine"), "{out}");
}

#[test]
fn a_person_types_mia_moves_and_bad_options_are_named() {
    let mut input = String::from("claim 12\n");
    for _ in 0..100 {
        input.push_str("claim 31\nchallenge\n");
    }
    // The first claim is refused in words whoever the toss makes open; seeds until both have.
    let mut opened = [false; 2];
    for seed in 0..40u64 {
        let seed = seed.to_string();
        let args = ["play", "--game", "mia", "--local", "--players", "2"];
        let (ok, out, err) = run(&[&args[..], &["--seed", &seed]].concat(), &input);
        assert!(ok, "{err}");
        let you_open = out.contains("the toss: you open");
        assert!(you_open || out.contains("the toss: bot 1 opens"), "{out}");
        let refused = if you_open {
            "12 is not a cup value"
        } else {
            // After the bot's claim a claim is not among the moves offered, as at a
            // networked table.
            "that move is not allowed now: you may challenge, pass or reroll"
        };
        assert!(out.contains(refused), "{out}");
        opened[you_open as usize] = true;
        if opened == [true; 2] {
            break;
        }
    }
    assert_eq!(opened, [true; 2], "40 seeds gave one opener only");
    let (ok, _, err) = run(
        &["play", "--game", "mia", "--local", "--variant", "odd"],
        "",
    );
    assert!(!ok && err.contains("unknown Mia ranking 'odd'"), "{err}");
    let (ok, _, err) = run(&["play", "--game", "chess", "--local"], "");
    assert!(
        !ok && err.contains("'chess' is not a game this program plays"),
        "{err}"
    );
    let (ok, _, err) = run(
        &["play", "--game", "perudo", "--players", "1", "--local"],
        "",
    );
    assert!(!ok && err.contains("2 to 10 players"), "{err}");
}

#[test]
fn demo_plays_perudo_and_mia_over_the_embedded_relay() {
    for (game, players) in [("perudo", "4"), ("mia", "3")] {
        let (ok, out, err) = run(
            &["demo", "--game", game, "--players", players, "--json"],
            "",
        );
        assert!(ok, "{game}: {err}");
        let summary: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(summary["game"], game);
        assert_eq!(summary["verified"], true, "{summary}");
        assert_eq!(summary["violations"], 0, "{summary}");
        assert!(summary["report"]["winner"].is_u64(), "{summary}");
        assert!(
            summary["result"]
                .as_str()
                .unwrap()
                .ends_with("wins the game"),
            "{summary}"
        );
        assert!(summary["events"].as_u64().unwrap() > 0);
    }
}

/// `play --game perudo|mia` without `--local`: the session of a hosted table over the embedded
/// relay, every seat its own key and dice secret; a bot at seat 0 (`--auto`), or a person typing
/// moves there (line prompts: stdin is not a terminal).
#[test]
fn networked_dice_games_against_bots_over_the_embedded_relay() {
    let checked = |out: &str| {
        out.lines().any(|l| {
            l.starts_with("table over: ") && l.contains(" win") && l.ends_with(" 0 rejected)")
        })
    };
    for game in ["perudo", "mia"] {
        let (ok, out, err) = run(&["play", "--game", game, "--players", "3", "--auto"], "");
        assert!(ok, "{game}: {err}");
        assert!(
            out.contains(&format!(
                "{}: you and 2 bots, every seat its own key, over ws://127.0.0.1:",
                if game == "perudo" { "Perudo" } else { "Mia" }
            )),
            "{out}"
        );
        assert!(checked(&out), "{out}");
        assert!(!err.contains("bot "), "a bot seat failed: {err}");
    }
    // At the opening "dudo" is refused and "bid 1 2" taken; later "dudo" is taken.
    let input = format!("dance\n{}", "dudo\nbid 1 2\n".repeat(300));
    let (ok, out, err) = run(&["play", "--game", "perudo", "--players", "2"], &input);
    assert!(ok, "{err}");
    assert!(out.contains("'dance' is not a move"), "{out}");
    assert!(out.contains("your cup: "), "{out}");
    assert!(
        out.contains("you: dudo!") || out.contains("you bid 1 two"),
        "{out}"
    );
    assert!(checked(&out), "{out}");
}
