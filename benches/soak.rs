//! The long fault soak (PROTOCOL.md §9(i)): by default 300 tables of every registered game,
//! each under faults the seeded plan picks, played by separate `tolerance` processes over two
//! relays behind fault-injecting proxies, each client's report held against a later `verify`.
//! Prints the counts BENCHMARKS.md quotes. `SOAK_SEED`, `SOAK_TABLES`, `SOAK_FROM` and
//! `SOAK_CONCURRENCY` as for the test (`tests/soak.rs`).
//!
//! `cargo bench --bench soak`

#[path = "../tests/common/mod.rs"]
mod common;

use common::soak::{env_number, soak};

fn main() {
    let seed = env_number("SOAK_SEED", 20_261_127);
    let tables = env_number("SOAK_TABLES", 300) as usize;
    let from = env_number("SOAK_FROM", 0) as usize;
    let concurrency = env_number("SOAK_CONCURRENCY", 4) as usize;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(8)
        .enable_all()
        .build()
        .expect("a runtime");
    let sum = rt.block_on(soak(seed, from, tables, concurrency));
    let struck: u64 = sum.struck.values().sum();
    println!("soak seed {seed}, tables {from}..{}", from + tables);
    println!("tables: {}", sum.tables);
    println!("faults injected: {struck} ({:?})", sum.struck);
    println!(
        "tables failed (disagreement, honest violation, or no end): {}",
        sum.failed.len()
    );
    println!("timeouts and removals decided: {}", sum.removals);
    println!("chain events: {}", sum.chain_events);
    println!("wall: {} s", sum.wall.as_secs());
    for f in &sum.failed {
        println!("{f}");
    }
    if !sum.failed.is_empty() {
        std::process::exit(1);
    }
}
