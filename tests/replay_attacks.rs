//! Events that never reach the engine: forged signatures, events replayed from another table or
//! an earlier hand, and oversized events. A spectator session replays a real table's log from a
//! real relay with the bad events mixed in; it must reject each with a precise reason and still
//! reach the same result as the players.

use nostr_sdk::prelude::*;
use std::time::Duration;
use tolerance::net::pool::{PoolConfig, RelayPool};
use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use tolerance::table::demo::{run_demo, DemoOptions};
use tolerance::table::runner::fetch_table;
use tolerance::table::{Session, Violation};
use tolerance::wire::{self, Payload};

async fn finished_table(relay: &str, players: u8) -> (PublicKey, String, Vec<Event>, Vec<Keys>) {
    let keys: Vec<Keys> = (0..players).map(|_| Keys::generate()).collect();
    let run = run_demo(
        DemoOptions {
            players,
            hands: Some(2),
            relays: vec![relay.to_string()],
            keys: keys.clone(),
            ..DemoOptions::default()
        },
        |_| {},
    )
    .await
    .unwrap();
    assert!(run.summary.verified, "{:?}", run.summary);
    let pool = RelayPool::connect(Keys::generate(), [relay], PoolConfig::default())
        .await
        .unwrap();
    let events = pool
        .fetch(
            vec![wire::log_filter(&run.host, &run.table)],
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    (run.host, run.table, events, keys)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_replayed_and_oversized_events_are_rejected() {
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    let (host, table, events, keys) = finished_table(&url, 2).await;
    let (_, other_table, other_events, _) = finished_table(&url, 2).await;
    let pool = RelayPool::connect(Keys::generate(), [&url], PoolConfig::default())
        .await
        .unwrap();
    let spec = fetch_table(&pool, &host, &table, Duration::from_secs(5))
        .await
        .unwrap();

    // Honest replay first: the spectator reaches the end with no violation.
    let mut clean = Session::new(spec.clone(), host, None).unwrap();
    for e in &events {
        clean.handle(e);
    }
    assert!(
        clean.is_finished() && clean.violations.is_empty(),
        "{:?}",
        clean.violations
    );

    let mut s = Session::new(spec, host, None).unwrap();
    let mut bad = Vec::new();
    // 1. Forged: content changed after signing.
    let mut forged = events[3].clone();
    forged.content = forged.content.replacen("\"v\":1", "\"v\": 1", 1);
    assert_ne!(forged.content, events[3].content);
    bad.push(forged);
    // 2. An event of another table by a player of that table.
    bad.push(other_events[0].clone());
    // 3. A seated player re-signs its hand-0 key share for this table after hand 0 is over.
    let first_keys = events
        .iter()
        .find(|e| e.pubkey == keys[1].public_key() && e.content.contains("\"keys\""))
        .unwrap();
    let payload: Payload = serde_json::from_str(&first_keys.content).unwrap();
    let replay = wire::log_event(&host, &payload)
        .custom_created_at(Timestamp::from(first_keys.created_at.as_secs() + 1))
        .sign_with_keys(&keys[1])
        .unwrap();
    // 4. Oversized.
    let mut big_payload = payload.clone();
    big_payload.body = wire::Body::Evidence {
        offender: 0,
        reason: "x".repeat(70_000),
        events: vec![],
    };
    let big = wire::log_event(&host, &big_payload)
        .sign_with_keys(&keys[0])
        .unwrap();
    // 5. A stranger's event.
    let stranger = wire::log_event(&host, &payload)
        .sign_with_keys(&Keys::generate())
        .unwrap();

    for e in &events {
        s.handle(e);
    }
    let v_forged = s.handle(&bad[0]);
    let v_other = s.handle(&bad[1]);
    let v_replay = s.handle(&replay);
    let v_big = s.handle(&big);
    let v_stranger = s.handle(&stranger);
    assert!(
        matches!(&v_forged[..], [Violation::Wire { reason, .. }] if reason.contains("signature")),
        "{v_forged:?}"
    );
    assert!(
        matches!(&v_other[..], [Violation::Wire { reason, .. }] if reason.contains("belongs to table")),
        "{v_other:?}"
    );
    assert!(
        v_replay
            .iter()
            .any(|v| matches!(v, Violation::Fork { seat: 1, .. } | Violation::Stale { .. })),
        "{v_replay:?}"
    );
    assert!(
        matches!(&v_big[..], [Violation::Wire { reason, .. }] if reason.contains("limit")),
        "{v_big:?}"
    );
    assert!(
        matches!(
            &v_stranger[..],
            [Violation::NotSeated { .. }] | [Violation::Wire { .. }]
        ),
        "{v_stranger:?}"
    );
    // Nothing changed the result.
    assert!(s.is_finished());
    assert_eq!(s.table.stacks, clean.table.stacks);
    assert_eq!(s.hands, clean.hands);
    let _ = other_table;
}
