//! Machines whose clocks disagree: one seat's clock runs 30 s fast, another's 30 s slow, on
//! deadlines of a few seconds. Without the table's clock (PROTOCOL.md §4.4) the fast seat would
//! see every other seat's deadline pass half a minute early and vote it out, and the slow seat's
//! events would look signed in the past; with it, nobody is timed out or removed, every client
//! agrees and the relay's copy verifies.

use std::time::Duration;
use tolerance::games::perudo::Perudo;
use tolerance::games::registry::SetupOptions;
use tolerance::games::tolerance::Tolerance;
use tolerance::table::demo::{run_demo, DemoOptions, DemoRun};
use tolerance::table::Verdict;
use tolerance::wire::Deadlines;

fn opts(players: u8, hands: u64) -> DemoOptions {
    DemoOptions {
        setup: SetupOptions {
            players,
            hands: Some(hands),
            ..SetupOptions::default()
        },
        deadlines: Deadlines {
            move_ms: 5_000,
            crypto_ms: 5_000,
            bank_ms: 0,
            relay_ms: 2_000,
            return_ms: 0,
        },
        idle: Duration::from_secs(120),
        clock_skews: vec![30, 0, -30],
        ..DemoOptions::default()
    }
}

fn nobody_timed_out(run: &DemoRun) {
    assert!(
        run.summary.verified && run.summary.clients_agree,
        "{:?}",
        run.summary
    );
    for (i, r) in run.reports.iter().enumerate() {
        let r = r.as_ref().unwrap_or_else(|e| panic!("seat {i}: {e}"));
        assert!(r.finished && r.violations.is_empty(), "seat {i}: {r:?}");
        let removals: Vec<&Verdict> = r
            .verdicts
            .iter()
            .filter(|v| matches!(v, Verdict::TimedOut { .. } | Verdict::Removed { .. }))
            .collect();
        assert!(removals.is_empty(), "seat {i}: {removals:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clocks_half_a_minute_fast_and_slow_time_nobody_out() {
    let run = run_demo::<Tolerance>(opts(3, 2), None, None).await.unwrap();
    nobody_timed_out(&run);
    let run = run_demo::<Perudo>(opts(3, 1), None, None).await.unwrap();
    nobody_timed_out(&run);
}
