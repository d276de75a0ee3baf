//! What a person reads when something goes wrong is words, not Rust's Debug output: every error
//! path of the binary a person can reach by a typo, a bad file or a dead relay prints a sentence
//! naming the problem, and exits non-zero.

mod common;

use common::{home, player, run};
use std::path::Path;

/// Marks of Debug formatting that must never reach a person.
fn debug_marks(text: &str) -> Vec<String> {
    let mut found: Vec<String> = [
        "Some(", "None)", "Ok(", "Err(", "Seat(", "Keys(", "Roll(", "Move(", "([", "\\\"",
    ]
    .iter()
    .filter(|m| text.contains(*m))
    .map(|m| m.to_string())
    .collect();
    // A struct printed with {:?}: "Name { field: value }".
    for (i, _) in text.match_indices(" { ") {
        let rest = &text[i + 3..];
        let field: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if !field.is_empty() && rest[field.len()..].starts_with(": ") {
            found.push(format!(
                "struct debug near '{}'",
                &text[i..(i + 30).min(text.len())]
            ));
        }
    }
    found
}

#[test]
fn the_checker_sees_debug_text() {
    assert!(!debug_marks("waiting for Keys([0, 1])").is_empty());
    assert!(!debug_marks("bad seat Some(3)").is_empty());
    assert!(!debug_marks("Violation { seat: 1 }").is_empty());
    assert!(debug_marks("'nope' is not a game this program plays (games: tolerance)").is_empty());
}

fn assert_words(h: &Path, args: &[&str]) {
    let out = run(h, args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let text = format!("{err}{}", String::from_utf8_lossy(&out.stdout));
    assert!(!out.status.success(), "{args:?} should fail: {text}");
    assert!(
        err.trim_start().starts_with("tolerance: ") && err.trim().len() > "tolerance: ".len() + 10,
        "{args:?}: one sentence on standard error, got: {err}"
    );
    let marks = debug_marks(&text);
    assert!(
        marks.is_empty(),
        "{args:?} printed Debug text {marks:?}: {text}"
    );
}

#[test]
fn command_line_mistakes_are_told_in_words() {
    let h = home("words", "cli");
    player(&h);
    let dir = std::env::temp_dir().join(format!("tolerance-words-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().to_string()
    };
    let not_json = file("not-json.json", "{ this is not json");
    let unknown_game = file("unknown-game.json", r#"{"game": "chess"}"#);
    let bad_variant = file("bad.toml", "name = \"x\"\nstarting_stack = -5\n");
    let bad_cards = file("cards.toml", "[[cards]]\nsuit = \"spades\"\n");
    let hex_table = "ab".repeat(32);
    let cases: Vec<Vec<&str>> = vec![
        vec!["play", "--game", "nope"],
        vec!["demo", "--players", "1"],
        vec!["demo", "--game", "mia", "--players", "11"],
        vec!["verify", "naddr1nope"],
        vec!["watch", "npub1xyz"],
        vec!["join", "naddr1qqqqbogus"],
        vec!["history", "show", "99"],
        vec!["replay", "/nonexistent/script.json"],
        vec!["replay", &not_json],
        vec!["replay", &unknown_game],
        vec!["variant", "validate", &bad_variant],
        vec!["variant", "validate", "--game", "reformation", &bad_cards],
        vec!["demo", "--game", "reformation", "--players", "6"],
        vec!["play", "--game", "reformation", "--variant", "nosuch"],
        vec![
            "demo",
            "--game",
            "reformation",
            "--players",
            "3",
            "--hands",
            "4",
        ],
        vec!["play", "--variant", "nosuch"],
        vec![
            "host",
            "--invite",
            "npub1notakey",
            "--relay",
            "ws://127.0.0.1:9",
        ],
        vec!["demo", "--players", "2", "--relay", "ws://127.0.0.1:9"],
        vec![
            "verify",
            "--relay",
            "ws://127.0.0.1:9",
            "--table",
            &hex_table,
        ],
        vec!["feedback", "--to", "npub1notakey", "hello"],
    ];
    for args in &cases {
        assert_words(&h, args);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
