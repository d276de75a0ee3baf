//! `tolerance feedback` through the real binary, against embedded relays, with a stand-in author
//! key generated here (passed with --to or in config.toml): the author's own client reads the
//! message and knows who sent it.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use nostr_sdk::prelude::*;
use tokio::io::AsyncWriteExt;
use tolerance::net::dm;
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig, RelayPool};

const WAIT: Duration = Duration::from_secs(5);

async fn relay() -> EmbeddedRelay {
    EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap()
}

async fn pool(keys: &Keys, relay: &EmbeddedRelay) -> RelayPool {
    RelayPool::connect(keys.clone(), [relay.url().as_str()], PoolConfig::default())
        .await
        .unwrap()
}

/// A config dir holding `player`'s key, encrypted with the passphrase the runs pass.
fn home(name: &str, player: &Keys) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tolerance-fb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    tolerance::identity::store(&d, player.secret_key(), Some("pw"), false).unwrap();
    d
}

async fn run(home: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"));
    c.args(args)
        .env("TOLERANCE_HOME", home)
        .env("TOLERANCE_PASSPHRASE", "pw")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = c.spawn().unwrap();
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(text.as_bytes()).await.unwrap();
    }
    child.wait_with_output().await.unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_author_reads_a_private_message_from_an_authenticated_sender() {
    let shared = relay().await;
    let inbox = relay().await;
    let author = Keys::generate();
    let player = Keys::generate();
    // The author reads private messages on `inbox` and says so on `shared`.
    dm::publish_inbox_relays(&pool(&author, &shared).await, &[inbox.url().clone()])
        .await
        .unwrap();

    let h = home("dm", &player);
    let out = run(
        &h,
        &[
            "feedback",
            "--to",
            &author.public_key().to_bech32().unwrap(),
            "--relay",
            shared.url().as_str(),
            "Card Again made the pots huge.",
            "Loved it.",
        ],
        None,
    )
    .await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("sent privately"), "{stdout}");
    assert!(
        stdout.contains(&format!("accepted by {}", inbox.url())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("accepted by {}", shared.url())),
        "{stdout}"
    );

    // The author's client, reading only its inbox relay, opens it and knows the sender.
    let got = dm::fetch_inbox(&pool(&author, &inbox).await, WAIT)
        .await
        .unwrap();
    assert!(got.refused.is_empty(), "{:?}", got.refused);
    assert_eq!(got.messages.len(), 1);
    let m = &got.messages[0];
    assert_eq!(m.sender, player.public_key());
    assert_eq!(m.content, "Card Again made the pots huge. Loved it.");
    assert_eq!(m.subject(), Some("Feedback on The Game of Tolerance"));
    // Nobody else can read it: the player's relay holds only wraps.
    let stored = pool(&Keys::generate(), &shared)
        .await
        .fetch(vec![Filter::new().kind(Kind::GiftWrap)], WAIT)
        .await
        .unwrap();
    assert!(!stored.is_empty());
    assert!(stored
        .iter()
        .all(|e| !e.content.contains("Card Again") && e.pubkey != player.public_key()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standard_input_and_the_configured_author_and_a_public_note() {
    let shared = relay().await;
    let author = Keys::generate();
    let player = Keys::generate();
    let h = home("cfg", &player);
    std::fs::write(
        h.join("config.toml"),
        format!(
            "author = \"{}\"\nrelays = [\"{}\"]\n",
            author.public_key().to_bech32().unwrap(),
            shared.url()
        ),
    )
    .unwrap();

    // No --to and no --relay: both come from config.toml; the message from standard input.
    let out = run(&h, &["feedback"], Some("a d12 variant, please\n")).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = dm::fetch_inbox(&pool(&author, &shared).await, WAIT)
        .await
        .unwrap();
    assert_eq!(got.messages.len(), 1);
    assert_eq!(got.messages[0].content, "a d12 variant, please");
    assert_eq!(got.messages[0].sender, player.public_key());

    let out = run(&h, &["feedback", "--public", "Tolerance is great"], None).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("public note"), "{stdout}");
    let notes = pool(&Keys::generate(), &shared)
        .await
        .fetch(
            vec![Filter::new()
                .kind(Kind::TextNote)
                .author(player.public_key())],
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(notes.len(), 1);
    let npub = author.public_key().to_bech32().unwrap();
    assert!(notes[0].content.contains("Tolerance is great"));
    assert!(notes[0].content.contains(&format!("nostr:{npub}")));
    assert_eq!(
        notes[0].tags.public_keys().collect::<Vec<_>>(),
        vec![&author.public_key()]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gives_clear_errors_and_sends_nothing() {
    let shared = relay().await;
    let player = Keys::generate();
    let h = home("bad", &player);
    let url = shared.url().to_string();

    let out = run(
        &h,
        &["feedback", "--to", "npub1notakey", "--relay", &url, "hi"],
        None,
    )
    .await;
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("--to") && err.contains("'npub1notakey' is not a public key"),
        "{err}"
    );

    let someone = Keys::generate().public_key().to_bech32().unwrap();
    let out = run(
        &h,
        &[
            "feedback",
            "--to",
            &someone,
            "--relay",
            "ws://127.0.0.1:9",
            "hi",
        ],
        None,
    )
    .await;
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot reach the relays") && err.contains("127.0.0.1:9"),
        "{err}"
    );

    let out = run(
        &h,
        &["feedback", "--to", &someone, "--relay", &url],
        Some("  \n"),
    )
    .await;
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("empty"), "{}", text(&out.stderr));

    // No identity stored: the person is told how to make one.
    let empty = std::env::temp_dir().join(format!("tolerance-fb-none-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&empty);
    let out = run(
        &empty,
        &["feedback", "--to", &someone, "--relay", &url, "hi"],
        None,
    )
    .await;
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("tolerance keys new"),
        "{}",
        text(&out.stderr)
    );

    // Nothing reached the relay in all of that.
    let stored = pool(&Keys::generate(), &shared)
        .await
        .fetch(
            vec![Filter::new().kinds([Kind::GiftWrap, Kind::TextNote])],
            WAIT,
        )
        .await
        .unwrap();
    assert!(stored.is_empty(), "{stored:?}");
}
