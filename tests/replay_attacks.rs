//! Events that never reach the engine: forged signatures, events replayed from another table or
//! an earlier hand, and oversized events. A spectator session replays a real table's log from a
//! real relay with the bad events mixed in; it must reject each with a precise reason and still
//! reach the same result as the players.

use nostr_sdk::prelude::*;
use std::time::Duration;
use tolerance::games::registry::{SetupOptions, TableGame};
use tolerance::games::tolerance::Tolerance;
use tolerance::net::pool::{PoolConfig, RelayPool};
use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use tolerance::table::demo::{run_demo, DemoOptions};
use tolerance::table::runner::{fetch_table, table_game};
use tolerance::table::{Session, Verdict, Violation};
use tolerance::wire::log::{log_event, parse_log, Body, Payload};
use tolerance::wire::{self, TableSpec};

struct Finished {
    host: PublicKey,
    table: String,
    spec: TableSpec,
    start: u64,
    events: Vec<Event>,
    keys: Vec<Keys>,
}

async fn finished_table(relay: &str, players: u8) -> Finished {
    let keys: Vec<Keys> = (0..players).map(|_| Keys::generate()).collect();
    let run = run_demo::<Tolerance>(
        DemoOptions {
            setup: SetupOptions {
                players,
                hands: Some(2),
                ..SetupOptions::default()
            },
            relays: vec![relay.to_string()],
            keys: keys.clone(),
            ..DemoOptions::default()
        },
        None,
        None,
    )
    .await
    .unwrap();
    assert!(run.summary.verified, "{:?}", run.summary);
    let pool = RelayPool::connect(Keys::generate(), [relay], PoolConfig::default())
        .await
        .unwrap();
    let (spec, start) = fetch_table(&pool, &run.host, &run.table, Duration::from_secs(5))
        .await
        .unwrap();
    let events = pool
        .fetch_all(
            wire::log_filter(&run.host, &run.table, &spec.seat_keys()),
            500,
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    pool.shutdown().await;
    Finished {
        host: run.host,
        table: run.table,
        spec,
        start,
        events,
        keys,
    }
}

fn spectator(t: &Finished) -> Session<Tolerance> {
    let (cfg, game) = table_game::<Tolerance>(&t.spec, t.start).unwrap();
    Session::new(cfg, game, None).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_replayed_and_oversized_events_are_rejected() {
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    let t = finished_table(&url, 2).await;
    let other = finished_table(&url, 2).await;

    // Honest replay first: the spectator reaches the end with no violation.
    let mut clean = spectator(&t);
    for e in &t.events {
        clean.handle(e);
    }
    assert!(
        clean.is_finished() && clean.violations.is_empty(),
        "{:?}",
        clean.violations
    );

    let mut s = spectator(&t);
    for e in &t.events {
        s.handle(e);
    }
    let seat1 = &t.keys[1];
    // 1. Forged: content changed after signing.
    let victim = t
        .events
        .iter()
        .find(|e| e.pubkey == seat1.public_key())
        .unwrap();
    let mut forged = victim.clone();
    forged.content = forged.content.replacen("\"v\":", "\"v\": ", 1);
    assert_ne!(forged.content, victim.content);
    // 2. A seated player's event written for another table, sent here.
    let first_setup = t
        .events
        .iter()
        .find(|e| e.pubkey == seat1.public_key() && e.content.contains("\"setup\""))
        .unwrap();
    let payload: Payload = parse_log(first_setup, &t.table).unwrap();
    let mut elsewhere = payload.clone();
    elsewhere.table = other.table.clone();
    let foreign = log_event(&t.host, &elsewhere)
        .sign_with_keys(seat1)
        .unwrap();
    // 3. Seat 1 re-signs its step-0 set-up after the table is over: a second event for a step
    // everyone already built on.
    let replay = log_event(&t.host, &payload)
        .custom_created_at(Timestamp::from(first_setup.created_at.as_secs() + 1))
        .sign_with_keys(seat1)
        .unwrap();
    // 4. Oversized.
    let mut big_payload = payload.clone();
    big_payload.body = Body::Evidence {
        offender: 0,
        reason: "x".repeat(70_000),
        events: vec![],
    };
    let big = log_event(&t.host, &big_payload)
        .sign_with_keys(&t.keys[0])
        .unwrap();
    // 5. A stranger's event, and one of another table's players.
    let stranger = log_event(&t.host, &payload)
        .sign_with_keys(&Keys::generate())
        .unwrap();

    let v_forged = s.handle(&forged);
    let v_foreign = s.handle(&foreign);
    let v_replay = s.handle(&replay);
    let v_big = s.handle(&big);
    let ignored = s.stats.ignored;
    let v_stranger = s.handle(&stranger);
    let v_other = s.handle(&other.events[0]);
    assert!(
        matches!(&v_foreign[..], [Violation::Wire { reason, seat: 1, .. }] if reason.contains("belongs to table")),
        "{v_foreign:?}"
    );
    assert!(
        v_replay
            .iter()
            .all(|v| matches!(v, Violation::Fork { seat: 1, .. })),
        "{v_replay:?}"
    );
    assert!(
        matches!(&v_big[..], [Violation::Wire { reason, seat: 0, .. }] if reason.contains("limit")),
        "{v_big:?}"
    );
    // Strangers are never judged or stored: they cannot make a table fail.
    assert!(v_stranger.is_empty() && v_other.is_empty());
    assert_eq!(s.stats.ignored, ignored + 2);
    // A forgery is never its claimed signer's fault: with the original's id it is a duplicate,
    // with an id of its own its signature fails, and neither is blamed on seat 1.
    let mut forged_new_id = forged.clone();
    forged_new_id.id = EventId::all_zeros();
    assert!(v_forged.is_empty(), "{v_forged:?}");
    assert!(s.handle(&forged_new_id).is_empty());
    // Nothing changed the result.
    assert!(s.is_finished());
    assert_eq!(s.game().report(), clean.game().report());
    let removed = |x: &Session<Tolerance>| {
        x.verdicts()
            .iter()
            .filter(|v| matches!(v, Verdict::Removed { .. }))
            .count()
    };
    assert_eq!(
        removed(&s),
        removed(&clean),
        "nobody is removed after the end"
    );
}
