//! The README's main command, driven like a person would: `tolerance play` starts the embedded
//! relay and plays a networked hand against bots, each its own key and connection. A person's
//! typed moves arrive on standard input.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn play_runs_a_networked_hand_with_typed_moves() {
    let home = std::env::temp_dir().join(format!("tolerance-play-{}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(["play", "--hands", "1", "--players", "3"])
        .env("TOLERANCE_HOME", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // More answers than needed: "c" checks or calls, "p" passes a roll; junk is refused politely.
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(b"dance\n");
        for _ in 0..40 {
            if stdin.write_all(b"c\np\n").is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    });
    let out = child.wait_with_output().unwrap();
    let _ = feeder.join();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        stdout.contains("The Game of Tolerance: you and 2 bots"),
        "{stdout}"
    );
    assert!(stdout.contains("'dance' is not a move"), "{stdout}");
    assert!(stdout.contains("your move"), "{stdout}");
    assert!(
        // "1 hand played; stacks: …" or, when one player took every chip, "… wins the table
        // after 1 hand (…)".
        stdout.lines().any(|l| l.starts_with("table over: ")
            && l.contains("1 hand")
            && l.ends_with(", 0 rejected)")),
        "{stdout}"
    );
    assert!(
        stdout.contains("verify with: tolerance verify naddr1"),
        "{stdout}"
    );
    // The hand was saved to this person's history.
    let out = Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(["history"])
        .env("TOLERANCE_HOME", &home)
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        list.contains("tolerance") && list.contains("1 hand"),
        "{list}"
    );
}

#[test]
fn local_play_says_it_is_local_and_keeps_a_history() {
    let home = std::env::temp_dir().join(format!("tolerance-local-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tolerance"))
            .args(args)
            .env("TOLERANCE_HOME", &home)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&["play", "--local", "--auto", "--hands", "2"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("LOCAL table of The Game of Tolerance"));
    let list = String::from_utf8_lossy(&run(&["history"]).stdout).to_string();
    assert_eq!(list.lines().count(), 1, "one table: {list}");
    let show = run(&["history", "show", "1"]);
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(
        shown.contains("posts the blind") && shown.contains("2 hands played"),
        "{shown}"
    );
    let export: serde_json::Value =
        serde_json::from_slice(&run(&["history", "export"]).stdout).unwrap();
    assert_eq!(export.as_array().unwrap().len(), 1);
    let missing = run(&["history", "show", "9"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no table 9"));
}

#[test]
fn a_dead_relay_gives_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args([
            "demo",
            "--players",
            "2",
            "--hands",
            "1",
            "--relay",
            "ws://127.0.0.1:9",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("127.0.0.1:9"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_replays_a_finished_table_as_a_spectator() {
    use tolerance::games::registry::SetupOptions;
    use tolerance::games::tolerance::Tolerance;
    use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
    use tolerance::table::demo::{run_demo, DemoOptions};
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    let run = run_demo::<Tolerance>(
        DemoOptions {
            setup: SetupOptions {
                players: 3,
                hands: Some(2),
                ..SetupOptions::default()
            },
            relays: vec![url.clone()],
            ..DemoOptions::default()
        },
        None,
        None,
    )
    .await
    .unwrap();
    assert!(run.summary.verified);
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
        // An naddr carries the relay: no --relay needed.
        .args(["watch", "--table", &run.summary.naddr])
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("posts the blind"), "{stdout}");
    // Two hands, unless one player took every chip in the first (the bots may go all in): the
    // spectator counts the hands the players did.
    let hands = run.summary.report["hands"].as_u64().unwrap();
    assert!((1..=2).contains(&hands), "{}", run.summary.report);
    assert!(
        stdout.contains("table over: ")
            && stdout.contains(&format!(" {hands} hand"))
            && stdout.contains(", 0 rejected)"),
        "{stdout}"
    );
    // Seats are named as people know them (short npubs here), never by number.
    let story: Vec<&str> = stdout.lines().filter(|l| l.starts_with("  · ")).collect();
    assert!(
        story.iter().all(|l| !l.contains("seat ")) && story.iter().any(|l| l.contains("npub1")),
        "{stdout}"
    );
    let _ = url;
    // A malformed table reference is a clear error.
    let bad = tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(["verify", "--table", "naddr1nope"])
        .output()
        .await
        .unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("is not a valid naddr"), "{err}");
    // One character changed in a real naddr: a bad checksum, said in words.
    let mut typo = run.summary.naddr.clone();
    let last = typo.pop().unwrap();
    typo.push(if last == 'q' { 'p' } else { 'q' });
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(["watch", &typo])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mistyped"), "{err}");
}

/// `play --local` with typed lines: what the program printed.
fn local(args: &[&str], input: &str) -> String {
    let home = std::env::temp_dir().join(format!(
        "tolerance-local-typed-{}-{}",
        args.join("-"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&home);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(["play", "--local"])
        .args(args)
        .env("TOLERANCE_HOME", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let _ = std::fs::remove_dir_all(&home);
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// A draw while a tile fits is refused at the local table as at a networked one: the rules
/// cannot refuse it (nobody else sees the hand), the player's own client must. The seeds deal a
/// hand where a tile fits at the player's first turn, after a bot's lead.
#[test]
fn local_play_refuses_a_draw_while_a_tile_fits() {
    for (game, seed) in [("all-fives", "1"), ("chickenfoot", "5")] {
        let out = local(
            &["--game", game, "--players", "2", "--seed", seed],
            "draw\nq\n",
        );
        assert!(
            out.contains("that move is not allowed now: you may ["),
            "{game}: {out}"
        );
        assert!(
            !out.contains("· you draw"),
            "{game}: the draw was taken: {out}"
        );
        // A seed plays the same game again.
        let again = local(
            &["--game", game, "--players", "2", "--seed", seed],
            "draw\nq\n",
        );
        assert_eq!(out, again, "{game}");
    }
}

/// `--hands` ends Abandon Ship after that many rounds, points or not: its header says so.
#[test]
fn a_capped_abandon_ship_says_how_many_rounds() {
    let out = local(
        &[
            "--game",
            "abandon-ship",
            "--players",
            "3",
            "--hands",
            "2",
            "--seed",
            "1",
        ],
        "q\n",
    );
    assert!(
        out.contains("── round 1 of 2 ·") && out.contains("playing to 200 or for 2 rounds ──"),
        "{out}"
    );
}

/// `variant validate FILE` names the file as it was typed.
#[test]
fn variant_validate_names_the_file_as_typed() {
    let dir = std::env::temp_dir().join(format!("tolerance-validate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tolerance"))
            .args(args)
            .current_dir(&dir)
            .env("TOLERANCE_HOME", dir.join("home"))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let new = run(&["variant", "new", "card-again"]);
    std::fs::write(dir.join("my.toml"), &new.stdout).unwrap();
    let out = run(&["variant", "validate", "my.toml"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(text.lines().next(), Some("my.toml: valid"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
