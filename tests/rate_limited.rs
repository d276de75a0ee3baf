//! A relay that rate-limits each connection (a sliding window of a minute, answered
//! `rate-limited: max N events per minute`; `RATE_LIMIT`, 16 by default), on loopback so the
//! clients do not pace themselves until it says so: tables of bots (`tolerance demo`, each a separate process with four clients)
//! must end verified with every client agreeing, and a `tolerance verify` run afterwards must
//! find the same table. The 20-run, 8-hand version of this is in BENCHMARKS.md.

use crate::common::soak::env_number as env;
use crate::common::{home, run};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tables_on_a_throttling_relay_end_verified_and_agree_with_a_later_verify() {
    let runs = env("RATE_RUNS", 4) as usize;
    let hands = env("RATE_HANDS", 3);
    // Low enough that the relay must refuse: a 3-hand table of four seats has never had fewer
    // than 79 log events, so some seat signs at least 20, within the seconds an unthrottled table
    // takes. At public relays' 30, whether any seat reaches the limit depends on the deal.
    let limit = env("RATE_LIMIT", 16) as u32;
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig {
        events_per_minute: limit,
        ..EmbeddedRelayConfig::default()
    })
    .await
    .unwrap();
    let url = relay.url().to_string();
    let mut demos = Vec::new();
    for i in 0..runs {
        let h = home("rate-limited", &format!("d{i}"));
        let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"));
        c.args([
            "demo",
            "--players",
            "4",
            "--hands",
            &hands.to_string(),
            "--relay",
            &url,
            "--json",
        ])
        .env("TOLERANCE_HOME", &h)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        demos.push(c.output());
    }
    let mut summaries: Vec<Value> = Vec::new();
    for d in demos {
        let out = tokio::time::timeout(Duration::from_secs(900), d)
            .await
            .expect("a demo ends")
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let s: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
            panic!(
                "the demo printed no summary ({e}): {text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        summaries.push(s);
    }
    let throttled: u64 = summaries
        .iter()
        .flat_map(|s| s["relay_figures"].as_array().cloned().unwrap_or_default())
        .map(|r| r["rate_limited"].as_u64().unwrap_or(0))
        .sum();
    eprintln!(
        "{runs} tables of {hands} hands; the relay refused {throttled} events over the limit"
    );
    assert!(
        throttled > 0,
        "the relay never had to refuse: the test tests nothing"
    );
    // A minute later, as the reader did: verify each table from the relay alone.
    tokio::time::sleep(Duration::from_secs(env("RATE_LATER", 5))).await;
    for (i, s) in summaries.iter().enumerate() {
        assert_eq!(s["verified"], true, "table {i}: {s}");
        assert_eq!(s["clients_agree"], true, "table {i}: {s}");
        let table = s["table"].as_str().unwrap().to_string();
        let h = home("rate-limited-verify", &format!("v{i}"));
        let u = url.clone();
        let out = tokio::task::spawn_blocking(move || {
            run(&h, &["verify", &table, "--relay", &u, "--json"])
        })
        .await
        .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "verify printed no report ({e}): {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert_eq!(v["ok"], true, "table {i}: {v}");
        assert_eq!(v["finished"], true, "table {i}: {v}");
        assert_eq!(v["report"], s["report"], "table {i}: the game's result");
        assert_eq!(v["chain_events"], s["chain_events"], "table {i}: the chain");
        // The demo says its verdicts in words ("step 53: …"); verify gives them as data.
        let demo_steps: Vec<u64> = s["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| {
                t.as_str()?
                    .strip_prefix("step ")?
                    .split(':')
                    .next()?
                    .parse()
                    .ok()
            })
            .collect();
        let verify_steps: Vec<u64> = v["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|x| x["step"].as_u64())
            .collect();
        assert_eq!(
            demo_steps, verify_steps,
            "table {i}: verdicts {} against {}",
            s["verdicts"], v["verdicts"]
        );
        eprintln!(
            "table {i}: {} — {} verdicts, {} chain events, {} ms",
            s["result"], s["verdicts"], s["chain_events"], s["wall_ms"]
        );
    }
    // Every seat here is a live bot: one dealt out was held back by the relay (its deadline
    // and the relay allowance passed first), and comes back by itself when it had signed its
    // part (PROTOCOL.md §7.10). Counted for BENCHMARKS.md.
    let said = |what: &str| {
        summaries
            .iter()
            .flat_map(|s| s["verdicts"].as_array().cloned().unwrap_or_default())
            .filter(|v| v.as_str().is_some_and(|t| t.contains(what)))
            .count()
    };
    eprintln!(
        "seats dealt out: {}; dealt in again: {}",
        said("dealt out until back"),
        said("back at the table")
    );
    relay.shutdown().await;
}
