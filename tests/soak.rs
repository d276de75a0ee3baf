//! The fault soak's short set (see `tests/common/soak.rs`): every registered game and every
//! kind of fault at least once, several tables at a time. `SOAK_SEED`, `SOAK_TABLES`,
//! `SOAK_FROM` and `SOAK_CONCURRENCY` change what it plays; a failure prints the command that
//! plays the failing table again. The long run is `cargo bench --bench soak`.

use crate::common::soak::{env_number, soak, Fault};
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
