//! Every registered game plays a table of bots to the end over a real relay, each seat its own
//! key, connection and session, and a fresh spectator verifies the relay's copy: the embedded
//! relay, and nostr-rs-relay (an independent implementation; required on CI).

use tolerance::games::registry::{self, SetupOptions, TableGame, Visit};
use tolerance::net::testing::{nostr_rs_relay_binary, NostrRsRelay};
use tolerance::table::demo::{run_demo, DemoOptions, DemoSummary};

struct Demo {
    relays: Vec<String>,
}

type Fut = std::pin::Pin<Box<dyn std::future::Future<Output = Result<DemoSummary, String>> + Send>>;

impl Visit for Demo {
    type Out = Fut;
    fn visit<G: TableGame>(self) -> Fut {
        Box::pin(async move {
            let players = G::SEATS.0.max(3).min(G::SEATS.1);
            let opts = DemoOptions {
                setup: SetupOptions {
                    players,
                    hands: Some(2),
                    ..SetupOptions::default()
                },
                relays: self.relays,
                ..DemoOptions::default()
            };
            Ok(run_demo::<G>(opts, None, None).await?.summary)
        })
    }
}

async fn every_game_on(relays: Vec<String>, relay: &str) {
    let games = registry::all();
    assert!(games.len() >= 4, "{games:?}");
    for g in games {
        let s = registry::with_game(
            g.name,
            Demo {
                relays: relays.clone(),
            },
        )
        .unwrap()
        .await
        .unwrap_or_else(|e| panic!("{} on {relay}: {e}", g.name));
        assert!(s.verified, "{} on {relay}: {s:?}", g.name);
        assert_eq!(s.game, g.name);
        assert!(s.events > 0 && s.passes > 0, "{s:?}");
        eprintln!(
            "{} on {relay}: {} players, {} events, {} bytes, {} passes, {} ms",
            g.name, s.players, s.events, s.bytes, s.passes, s.wall_ms
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_game_verifies_on_the_embedded_relay() {
    every_game_on(Vec::new(), "the embedded relay").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_game_verifies_on_nostr_rs_relay() {
    if nostr_rs_relay_binary().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "nostr-rs-relay is not installed: run .ci/install-nostr-rs-relay.sh first"
        );
        eprintln!("SKIPPED: nostr-rs-relay not installed (.ci/install-nostr-rs-relay.sh)");
        return;
    }
    let relay = NostrRsRelay::spawn().await.expect("nostr-rs-relay starts");
    every_game_on(vec![relay.url().to_string()], "nostr-rs-relay").await;
}
