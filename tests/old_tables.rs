//! Tables recorded by an older build still verify (issue 28: "a table played before the change
//! verifies after it"). `protocol/vectors/v4_tables.jsonl` holds every event of three tables
//! (Tolerance with a variant and a showdown, Perudo, Chickenfoot) played at protocol version 4
//! by the build before the one-core change; `v4_tables.json` holds what that build reported.
//! The events go, signed as they were, to a relay of this build, and this build's `verify`
//! must judge each table as the old build did: the same result, verdicts and game report.

use crate::common::relays::ServedRelay;
use crate::common::{home, run};
use nostr_sdk::prelude::{Event, JsonUtil, Keys};
use serde_json::Value;
use tolerance::net::RelayPool;

const EVENTS: &str = include_str!("../protocol/vectors/v4_tables.jsonl");
const EXPECTED: &str = include_str!("../protocol/vectors/v4_tables.json");

/// The recorded events, each checked (id and signature) before it is sent anywhere.
fn recorded() -> Vec<Event> {
    EVENTS
        .lines()
        .map(|l| {
            let ev = Event::from_json(l).expect("a recorded event parses");
            ev.verify().expect("a recorded event is signed as recorded");
            ev
        })
        .collect()
}

/// Serves the recorded events on a fresh relay of this build.
fn served(events: &[Event]) -> ServedRelay {
    let r = ServedRelay::start();
    let url = r.url.clone();
    r.rt.block_on(async {
        let pool = RelayPool::connect(Keys::generate(), [url], Default::default())
            .await
            .expect("the relay answers");
        for ev in events {
            pool.publish(ev)
                .await
                .expect("the relay takes a recorded event");
        }
    });
    r
}

/// `verify --json` of one table on `relay`, parsed.
fn verify(relay: &str, naddr: &str, who: &str) -> (bool, Value) {
    let out = run(
        &home("old-tables", who),
        &["verify", naddr, "--relay", relay, "--json"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "verify printed no report ({e}):\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), v)
}

/// The numbers a result line gives that are not part of a name (hands, stacks, points): the
/// old build named seats "seat 1", this one by their keys.
fn figures(result: &str) -> Vec<u64> {
    let words: Vec<&str> = result.split_whitespace().collect();
    words
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            *i == 0 || words[i - 1].trim_start_matches(|c: char| !c.is_alphabetic()) != "seat"
        })
        .filter_map(|(_, w)| w.trim_matches(|c: char| !c.is_ascii_digit()).parse().ok())
        .collect()
}

#[test]
fn tables_played_by_the_build_before_the_one_core_change_verify_alike() {
    let expected: Value = serde_json::from_str(EXPECTED).unwrap();
    let events = recorded();
    assert!(
        events
            .iter()
            .all(|e| e.content.contains("\"v\":4") || !e.content.starts_with("{\"v\":")),
        "every recorded log event is of protocol version 4"
    );
    let r = served(&events);
    let tables = expected["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 3);
    for t in tables {
        let game = t["game"].as_str().unwrap();
        // By its id, not its naddr: the naddr's relay hint names the recording's own relay.
        let (ok, v) = verify(&r.url, t["table"].as_str().unwrap(), game);
        assert!(ok, "{game}: {v}");
        assert_eq!(v["ok"], Value::Bool(true), "{game}: {v}");
        assert_eq!(v["finished"], Value::Bool(true), "{game}: {v}");
        assert_eq!(v["game"], t["game"], "{game}");
        assert_eq!(v["table"], t["table"], "{game}");
        // The judgment is the same; only its words changed since (names for "seat 1", the
        // leader named), so the result line is compared by its figures, the report exactly.
        assert_eq!(v["chain_events"], t["chain_events"], "{game}: {v}");
        let old_step: u64 = t["verdicts"][0]
            .as_str()
            .and_then(|s| s.strip_prefix("step "))
            .and_then(|s| s.split(':').next())
            .and_then(|s| s.parse().ok())
            .expect("the old verdict names its step");
        assert_eq!(
            v["verdicts"],
            serde_json::json!([{"kind": "finished", "step": old_step}]),
            "{game}"
        );
        assert_eq!(
            figures(v["result"].as_str().unwrap()),
            figures(t["result"].as_str().unwrap()),
            "{game}: {v}"
        );
        assert_eq!(v["report"], t["report"], "{game}: the game report differs");
        assert_eq!(
            v["violations"].as_array().map(Vec::len),
            Some(0),
            "{game}: {v}"
        );
    }
}

/// The same check can fail: a table missing one of its recorded moves no longer verifies as
/// the old build reported it.
#[test]
fn a_recorded_table_short_of_one_move_does_not_verify_alike() {
    let expected: Value = serde_json::from_str(EXPECTED).unwrap();
    let t = &expected["tables"][1];
    let table = t["table"].as_str().unwrap();
    let mut events = recorded();
    let a_move = events
        .iter()
        .position(|e| e.content.contains(table) && e.content.contains("\"type\":\"move\""))
        .expect("the table has a move");
    events.remove(a_move);
    let r = served(&events);
    let (ok, v) = verify(&r.url, t["table"].as_str().unwrap(), "short");
    assert_eq!(v["table"], t["table"], "{v}");
    // Every event after the hole builds on the missing move, so the log stops there: what is
    // left checks out, and the table is not finished.
    assert!(ok, "{v}");
    assert_eq!(
        v["finished"],
        Value::Bool(false),
        "a table short of a move verified as recorded: {v}"
    );
}
