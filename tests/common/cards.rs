//! What the card games' spectator tests share: a table of bots played over an embedded relay,
//! and the cards a text names (to count what `watch` let a spectator see).

use std::collections::BTreeSet;
use tolerance::games::registry::{SetupOptions, TableGame};
use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use tolerance::table::demo::{run_demo, DemoOptions, DemoRun};

/// Every card named in `text` ("10♥", "A♠"...), distinct.
pub fn cards_named(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
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

/// A table of bots played to its end over an embedded relay, checked verified; the relay is
/// returned too since `watch` reads the table back from it.
pub async fn played<G: TableGame>(setup: SetupOptions) -> (EmbeddedRelay, DemoRun) {
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let run = run_demo::<G>(
        DemoOptions {
            setup,
            relays: vec![relay.url().to_string()],
            ..DemoOptions::default()
        },
        None,
        None,
    )
    .await
    .unwrap();
    assert!(run.summary.verified, "{:?}", run.summary);
    (relay, run)
}

/// What `watch` prints of a finished table, checked to have succeeded.
pub async fn watch(naddr: &str) -> String {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(["watch", "--table", naddr])
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
