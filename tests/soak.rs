//! The fault soak's short set (see `tests/common/soak.rs`): every registered game and every
//! kind of fault at least once, several tables at a time. `SOAK_SEED`, `SOAK_TABLES`,
//! `SOAK_FROM` and `SOAK_CONCURRENCY` change what it plays; a failure prints the command that
//! plays the failing table again. The long run is `cargo bench --bench soak`.

mod common;

use common::soak::{run_table, Fault, Outcome, Plan};
use std::collections::BTreeMap;
use tolerance::games::registry;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// The relays and proxies live in this process: workers to spare while tables wait on them.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn every_game_under_every_fault_reaches_one_verdict() {
    let seed = env("SOAK_SEED", 20_261_127);
    let games: Vec<(String, u8, u8)> = registry::all()
        .into_iter()
        .map(|g| (g.name.to_string(), g.min_players, g.max_players))
        .collect();
    let tables = env("SOAK_TABLES", games.len().max(Fault::ALL.len()) as u64) as usize;
    let from = env("SOAK_FROM", 0) as usize;
    let concurrency = env("SOAK_CONCURRENCY", 4) as usize;
    let plans: Vec<(usize, Plan)> = (from..from + tables)
        .map(|i| (i, Plan::new(seed, i, &games)))
        .collect();
    let mut results: Vec<(usize, Plan, Outcome)> = Vec::new();
    for chunk in plans.chunks(concurrency) {
        let mut tasks = Vec::new();
        for (i, plan) in chunk.iter().cloned() {
            tasks.push(tokio::spawn(async move {
                let out = run_table(&plan, &format!("t{i}")).await;
                (i, plan, out)
            }));
        }
        for t in tasks {
            results.push(t.await.expect("a soak table task"));
        }
    }
    let mut struck: BTreeMap<String, u64> = BTreeMap::new();
    let mut failed = Vec::new();
    for (i, plan, out) in &results {
        for (k, n) in &out.struck {
            *struck.entry(k.clone()).or_default() += n;
        }
        eprintln!(
            "soak table {i}: {} at {} seats, faults {:?}: {} s, {} chain events, {} removals{}",
            plan.game,
            plan.players,
            plan.faults.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            out.wall.as_secs(),
            out.events,
            out.removals,
            if out.failures.is_empty() {
                ""
            } else {
                " — FAILED"
            }
        );
        if !out.failures.is_empty() {
            failed.push(format!(
                "table {i} (seed {}, {} at {} seats, faults {:?}):\n  {}\n  replay: {}",
                plan.seed,
                plan.game,
                plan.players,
                plan.faults,
                out.failures.join("\n  "),
                plan.replay(seed, *i)
            ));
        }
    }
    eprintln!("faults struck: {struck:?}");
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
