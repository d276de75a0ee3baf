//! The fault soak's short set (see `tests/common/soak.rs`): every registered game and every
//! kind of fault at least once, several tables at a time. `SOAK_SEED`, `SOAK_TABLES`,
//! `SOAK_FROM` and `SOAK_CONCURRENCY` change what it plays; a failure prints the command that
//! plays the failing table again. The long run is `cargo bench --bench soak`.

use crate::common::soak::{at_dealt_ahead, env_number, soak, Fault};
use tolerance::games::registry;

// The relays and proxies live in this process: workers to spare while tables wait on them.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn every_game_under_every_fault_reaches_one_verdict() {
    let seed = env_number("SOAK_SEED", 20_261_127);
    let every = registry::all().len().max(Fault::ALL.len()) as u64;
    let sum = soak(
        seed,
        env_number("SOAK_FROM", 0) as usize,
        env_number("SOAK_TABLES", every) as usize,
        env_number("SOAK_CONCURRENCY", 6) as usize,
    )
    .await;
    eprintln!("faults struck: {:?}", sum.struck);
    assert!(sum.failed.is_empty(), "{}", sum.failed.join("\n"));
}

/// From version 11 a Tolerance showdown nobody can bust at deals the next hand in its own batch
/// (PROTOCOL §5.8): the reveals of that batch carry tokens of two decks. Each fault that strikes
/// mid-table strikes here within the first events of the first such showdown (a table without
/// one is played again); the checks are the soak's, so a fault there must leave every client
/// and `verify` with one verdict and every chip. `SOAK_KINDS` (names as printed, comma
/// separated) plays only those.
#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn faults_at_a_showdown_that_deals_the_next_hand_reach_one_verdict() {
    let seed = env_number("SOAK_SEED", 20_261_203);
    let only = std::env::var("SOAK_KINDS").unwrap_or_default();
    let kinds: Vec<Fault> = Fault::ALL
        .into_iter()
        // Those two hold from the table's start: they cannot strike at a given moment.
        .filter(|k| !matches!(k, Fault::PageCap | Fault::ClockSkew))
        .filter(|k| only.is_empty() || only.split(',').any(|o| o.trim() == format!("{k:?}")))
        .collect();
    assert!(!kinds.is_empty(), "SOAK_KINDS names no fault: {only}");
    let runs = at_dealt_ahead(
        seed,
        &kinds,
        env_number("SOAK_HANDS", 5) as u32,
        env_number("SOAK_TRIES", 6),
        env_number("SOAK_CONCURRENCY", 4) as usize,
    )
    .await;
    let failed: Vec<&str> = runs
        .iter()
        .flat_map(|r| &r.failures)
        .map(String::as_str)
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // Without a showdown that deals, the fault struck nowhere near one: the table proved
    // nothing about it.
    let missed: Vec<String> = runs
        .iter()
        .filter(|r| !r.struck)
        .map(|r| {
            format!(
                "{:?} ({} tables, {} decks dealt with a showdown)",
                r.kind, r.tables, r.dealt_ahead
            )
        })
        .collect();
    assert!(
        missed.is_empty(),
        "no table struck by these faults had a showdown that deals: {}",
        missed.join(", ")
    );
}
