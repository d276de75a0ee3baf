//! Abandon Ship over a real relay, seen by a spectator: `watch` tells the whole game in words
//! and never names a card the rules keep hidden — with two players the five cards set aside are
//! never dealt nor opened, so of the 52 exactly 47 can ever be named.

use tolerance::games::abandon_ship::AbandonShip;
use tolerance::games::registry::SetupOptions;
use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use tolerance::table::demo::{run_demo, DemoOptions};

/// Every card named in `text` ("10♥", "A♠"...), distinct.
fn cards_named(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if !"♣♦♥♠".contains(*c) || i == 0 {
            continue;
        }
        let rank = if i >= 2 && chars[i - 2] == '1' && chars[i - 1] == '0' {
            "10".to_string()
        } else {
            chars[i - 1].to_string()
        };
        out.insert(format!("{rank}{c}"));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_sees_the_game_in_words_and_never_a_card_set_aside() {
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let run = run_demo::<AbandonShip>(
        DemoOptions {
            setup: SetupOptions {
                players: 2,
                hands: Some(1),
                ..SetupOptions::default()
            },
            relays: vec![relay.url().to_string()],
            ..DemoOptions::default()
        },
        None,
        None,
    )
    .await
    .unwrap();
    assert!(run.summary.verified, "{:?}", run.summary);
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
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
    assert!(stdout.contains("the ship sinks"), "{stdout}");
    assert!(stdout.contains("hands shown:"), "{stdout}");
    let named = cards_named(&stdout);
    assert_eq!(
        named.len(),
        47,
        "a two-player round names every card but the five set aside: {named:?}\n{stdout}"
    );
    for debug in ["Some(", "None", "Seat(", "CardId"] {
        assert!(!stdout.contains(debug), "{debug} in {stdout}");
    }
}
