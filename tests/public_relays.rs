//! Tables over relays that behave as public ones do: a [`RelayProxy`] in front of the embedded
//! relay rate-limits, closes subscriptions, caps queries or goes down, while a Tolerance table
//! of bots plays (each seat its own key, `RelayPool` and session, as in `every_game`). Each
//! table must finish, every client agree, and a fresh spectator reading the relays through the
//! same proxies verify it. What the proxy does mid-hand is triggered by the traffic it has
//! seen, never by a sleep.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tolerance::games::registry::SetupOptions;
use tolerance::games::tolerance::Tolerance;
use tolerance::net::harness::{ProxyStats, RateLimit, RelayProxy, Rules};
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig};
use tolerance::table::demo::{run_demo, DemoOptions, DemoRun};
use tolerance::table::verify::{verify_table, watch};
use tolerance::table::Verdict;

const TRIGGER_WAIT: Duration = Duration::from_secs(60);

async fn relay_behind(rules: Rules) -> (EmbeddedRelay, Arc<RelayProxy>) {
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .expect("embedded relay starts");
    let proxy = RelayProxy::start(relay.url(), rules)
        .await
        .expect("proxy starts");
    (relay, Arc::new(proxy))
}

fn urls(proxies: &[&Arc<RelayProxy>]) -> Vec<String> {
    proxies.iter().map(|p| p.url().to_string()).collect()
}

async fn play(relays: Vec<String>, players: u8, hands: u64, pool: PoolConfig) -> DemoRun {
    let opts = DemoOptions {
        setup: SetupOptions {
            players,
            hands: Some(hands),
            ..SetupOptions::default()
        },
        relays,
        pool,
        ..DemoOptions::default()
    };
    run_demo::<Tolerance>(opts, None, None)
        .await
        .expect("the table runs")
}

/// Finished, verified by every client and a fresh spectator, and nobody timed out or removed.
fn assert_clean(run: &DemoRun) {
    for r in &run.reports {
        if let Err(e) = r {
            panic!("a client stopped: {e}");
        }
    }
    let s = &run.summary;
    assert!(s.verified, "{s:?}");
    for r in run.reports.iter().flatten() {
        for v in &r.verdicts {
            assert!(
                !matches!(v, Verdict::TimedOut { .. } | Verdict::Removed { .. }),
                "no seat should be timed out: {:?}",
                s.verdicts
            );
        }
    }
}

/// Acts once the proxy has passed `events` events (the middle of a hand), in the background.
fn when_forwarded(
    proxy: &Arc<RelayProxy>,
    events: u64,
    act: impl FnOnce() + Send + 'static,
) -> tokio::task::JoinHandle<bool> {
    let proxy = Arc::clone(proxy);
    tokio::spawn(async move {
        let reached = proxy
            .wait_until(|s: &ProxyStats| s.events_forwarded >= events, TRIGGER_WAIT)
            .await;
        if reached {
            act();
        }
        reached
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn four_seats_three_hands_at_30_events_a_minute_per_connection() {
    let started = Instant::now();
    let (_relay, proxy) = relay_behind(Rules {
        rate_limit: Some(RateLimit {
            per_minute: 30,
            burst: 5,
        }),
        ..Rules::default()
    })
    .await;
    // The clients are not told the relay's limit (a loopback relay is not paced by default):
    // they learn it from its "rate-limited:" answers and back off.
    let run = play(urls(&[&proxy]), 4, 3, PoolConfig::default()).await;
    assert_clean(&run);
    let hands = run.summary.report["hands"].as_u64().unwrap_or(0);
    assert!(hands >= 2, "{:?}", run.summary.report["hands"]);
    let stats = proxy.stats();
    assert!(stats.rate_limited > 0, "the limit was met: {stats:?}");
    let figures = &run.summary.relay_figures[0];
    assert_eq!(figures.rate_limited, stats.rate_limited, "{figures:?}");
    assert!(figures
        .reasons
        .keys()
        .all(|r| r.starts_with("rate-limited:")));
    eprintln!(
        "30/min, burst 5: {hands} hands, {} events, {} rate-limited answers, {:.1} s",
        run.summary.events,
        stats.rate_limited,
        started.elapsed().as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_game_subscription_closed_mid_hand_is_sent_again() {
    let started = Instant::now();
    let (_relay, proxy) = relay_behind(Rules::default()).await;
    let p = Arc::clone(&proxy);
    let trigger = when_forwarded(&proxy, 15, move || {
        p.close_subscriptions("error: shutting down idle subscriptions");
    });
    let run = play(urls(&[&proxy]), 4, 2, PoolConfig::unpaced()).await;
    assert!(
        trigger.await.unwrap(),
        "the table reached the middle of a hand"
    );
    assert_clean(&run);
    let stats = proxy.stats();
    assert!(
        stats.closed_sent >= 4,
        "every seat's subscription: {stats:?}"
    );
    let closed: u64 = run
        .summary
        .relay_figures
        .iter()
        .map(|f| f.subscriptions_closed)
        .sum();
    assert!(closed >= 4, "{:?}", run.summary.relay_figures);
    eprintln!(
        "CLOSED mid-hand: {} subscriptions closed, {:.1} s",
        stats.closed_sent,
        started.elapsed().as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn queries_capped_at_500_a_long_table_still_verifies_and_watches() {
    let started = Instant::now();
    let (_relay, proxy) = relay_behind(Rules {
        max_stored: Some(500),
        ..Rules::default()
    })
    .await;
    let relays = urls(&[&proxy]);
    // 10 seats log about 45 events a hand (shuffles ride on moves, so a hand folded early logs
    // barely 30), so 16 hands pass 500 with room to spare, and they are all played: with
    // fixed-limit bets (at most 4 a round) and stacks of 100,000 nobody can go broke in 16 hands.
    let deep =
        "name = \"deep\"\nstarting_stack = 100000\n[betting]\nkind = \"fixed-limit\"\ncap = 4\n";
    let opts = DemoOptions {
        setup: SetupOptions {
            players: 10,
            hands: Some(16),
            variant_text: Some(("deep.toml".into(), deep.into())),
            ..SetupOptions::default()
        },
        relays: relays.clone(),
        pool: PoolConfig::unpaced(),
        ..DemoOptions::default()
    };
    let run = run_demo::<Tolerance>(opts, None, None)
        .await
        .expect("the table runs");
    assert_eq!(run.summary.report["hands"], 16, "{:?}", run.summary.report);
    assert_clean(&run);
    let events = run.summary.events;
    assert!(events > 500, "the log must pass the cap: {events} events");
    let report = verify_table(&relays, &run.summary.naddr)
        .await
        .expect("verify runs");
    assert!(report.ok && report.finished, "{:?}", report.problems);
    assert_eq!(report.events, events);
    let watched = watch(&relays, &run.summary.naddr)
        .await
        .expect("watch runs");
    assert!(
        watched.starts_with("table over: ")
            && watched.ends_with(&format!("({events} events checked, 0 rejected)")),
        "{watched}"
    );
    assert!(proxy.stats().stored_dropped > 0, "{:?}", proxy.stats());
    eprintln!(
        "capped at 500: {events} events, {} hands, verified and watched, {:.1} s",
        run.summary.report["hands"],
        started.elapsed().as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn one_of_three_relays_killed_mid_hand() {
    let started = Instant::now();
    let (_a, pa) = relay_behind(Rules::default()).await;
    let (_b, pb) = relay_behind(Rules::default()).await;
    let (_c, pc) = relay_behind(Rules::default()).await;
    let victim = Arc::clone(&pb);
    // Within the first hand or early in the second, whatever the hands hold (spare decks make
    // the second hand's deal need no setup or shuffles, so a table may log fewer than 40).
    let trigger = when_forwarded(&pb, 20, move || victim.go_down());
    let run = play(urls(&[&pa, &pb, &pc]), 4, 2, PoolConfig::unpaced()).await;
    assert!(
        trigger.await.unwrap(),
        "the table reached the middle of a hand"
    );
    assert!(pb.is_down());
    assert_clean(&run);
    // What the survivors hold is the whole table.
    for p in [&pa, &pc] {
        let report = verify_table(&[p.url().to_string()], &run.summary.naddr)
            .await
            .expect("verify runs");
        assert!(
            report.ok && report.finished,
            "{}: {:?}",
            p.url(),
            report.problems
        );
    }
    eprintln!(
        "one of three relays killed: verified, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_relay_down_for_20_seconds_mid_hand() {
    let started = Instant::now();
    let (_a, pa) = relay_behind(Rules::default()).await;
    let (_b, pb) = relay_behind(Rules::default()).await;
    let (a, b) = (Arc::clone(&pa), Arc::clone(&pb));
    let outage = Arc::new(std::sync::Mutex::new(None));
    let o = Arc::clone(&outage);
    let trigger = when_forwarded(&pa, 20, move || {
        *o.lock().unwrap() = Some(Instant::now());
        a.down_for(Duration::from_secs(20));
        b.down_for(Duration::from_secs(20));
    });
    let run = play(urls(&[&pa, &pb]), 4, 2, PoolConfig::unpaced()).await;
    assert!(
        trigger.await.unwrap(),
        "the table reached the middle of a hand"
    );
    let outage = outage.lock().unwrap().expect("the relays went down");
    assert!(
        outage.elapsed() >= Duration::from_secs(20),
        "the table cannot have finished while every relay was down"
    );
    assert!(pa.stats().refused > 0 && pb.stats().refused > 0);
    // Normal pace: 30 s for a crypto step, 60 s a move; a 20 s outage is within them.
    assert_clean(&run);
    let reconnects: u64 = run.summary.relay_figures.iter().map(|f| f.reconnects).sum();
    assert!(reconnects >= 8, "{:?}", run.summary.relay_figures);
    eprintln!(
        "every relay down 20 s: resumed without a forfeit, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_table_whose_quorum_is_gone_ends_with_words_instead_of_looping() {
    use tolerance::table::runner::{Tamper, TamperAction};
    use tolerance::table::TableError;
    use tolerance::wire::Deadlines;
    let started = Instant::now();
    let (_relay, proxy) = relay_behind(Rules::default()).await;
    // Seats 1 and 2 never send a table event (their clients run, and send heartbeats): seat 0
    // alone can never make a quorum of two against either.
    let vanish = || -> Option<Tamper> { Some(Box::new(|_: &mut _| TamperAction::Drop)) };
    let idle = Duration::from_secs(15);
    let opts = DemoOptions {
        setup: SetupOptions {
            players: 3,
            hands: Some(1),
            ..SetupOptions::default()
        },
        relays: urls(&[&proxy]),
        deadlines: Deadlines {
            move_ms: 1_000,
            crypto_ms: 1_000,
            bank_ms: 0,
            relay_ms: 2_000,
            return_ms: 0,
        },
        idle,
        tamper: vec![None, vanish(), vanish()],
        pool: PoolConfig::unpaced(),
        ..DemoOptions::default()
    };
    let run = run_demo::<Tolerance>(opts, None, None)
        .await
        .expect("the table runs");
    let forwarded = proxy.stats().events_forwarded;
    match &run.reports[0] {
        Err(TableError::Stalled(words)) => {
            assert!(words.contains("has not moved for 15 s"), "{words}");
            assert!(
                !words.contains("Some(") && !words.contains("Seat("),
                "{words}"
            );
        }
        other => panic!(
            "seat 0 should stop with words, not {:?}",
            other.as_ref().map(|r| &r.verdicts)
        ),
    }
    // One vote per step and head, not one per wake-up: the log stays small.
    assert!(
        forwarded < 60,
        "{forwarded} events for a table that stopped"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
    eprintln!(
        "quorum gone: stopped with words after {:.1} s, {forwarded} events",
        started.elapsed().as_secs_f64()
    );
}

/// BENCHMARKS.md: a hand's wall time (a table of 3 hands, divided) when every connection is limited to 30 events a minute,
/// bursts of 5, at 2, 5 and 10 seats; clients that pace themselves at that rate against clients
/// that only learn it from "rate-limited:" answers.
/// `cargo test --release --test public_relays -- --ignored --nocapture measure`
/// (`MEASURE_HANDS=5` plays 5 hands a table instead of 3.)
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement for BENCHMARKS.md (minutes)"]
async fn measure_a_hand_at_30_events_a_minute() {
    use tolerance::net::SendRate;
    let limit = Rules {
        rate_limit: Some(RateLimit {
            per_minute: 30,
            burst: 5,
        }),
        ..Rules::default()
    };
    let hands: u64 = std::env::var("MEASURE_HANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    for seats in [2u8, 5, 10] {
        for (mode, pool) in [
            (
                "paced 30/5",
                PoolConfig::paced(SendRate {
                    per_minute: 30.0,
                    burst: 5,
                }),
            ),
            ("backoff only", PoolConfig::unpaced()),
            ("unlimited relay", PoolConfig::unpaced()),
        ] {
            let rules = if mode == "unlimited relay" {
                Rules::default()
            } else {
                limit.clone()
            };
            let (_relay, proxy) = relay_behind(rules).await;
            let started = Instant::now();
            let run = play(urls(&[&proxy]), seats, hands, pool).await;
            let wall = started.elapsed();
            let verified = run.summary.verified;
            let hands = run.summary.report["hands"].as_u64().unwrap_or(1).max(1);
            eprintln!(
                "| {seats} | {mode} | {:.1} s | {hands} | {:.0} | {} | {verified} |",
                wall.as_secs_f64() / hands as f64,
                run.summary.events as f64 / hands as f64,
                proxy.stats().rate_limited,
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_relay_asking_for_proof_of_work_gets_it_on_every_event_of_the_table() {
    // The relay refuses any event under 8 bits (`pow:`) and says so in its NIP-11 document.
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig {
        min_pow_difficulty: 8,
        ..EmbeddedRelayConfig::default()
    })
    .await
    .expect("embedded relay starts");
    let started = Instant::now();
    let run = play(vec![relay.url().to_string()], 2, 1, PoolConfig::default()).await;
    assert_clean(&run);
    let figures = &run.summary.relay_figures[0];
    assert_eq!(
        figures.info.as_ref().map(|i| i.min_pow_difficulty),
        Some(8),
        "{figures:?}"
    );
    // Every event the clients signed was mined: the relay refused none, and the log it holds
    // carries the work.
    assert_eq!(figures.rejected, 0, "{figures:?}");
    let reader = tolerance::net::RelayPool::connect(
        nostr_sdk::prelude::Keys::generate(),
        [relay.url().as_str()],
        PoolConfig::default(),
    )
    .await
    .expect("reader connects");
    let log = reader
        .fetch_all(
            nostr_sdk::prelude::Filter::new()
                .kind(nostr_sdk::prelude::Kind::from(tolerance::wire::KIND_LOG)),
            500,
            Duration::from_secs(5),
        )
        .await
        .expect("the log");
    assert!(log.len() >= 4, "{} log events", log.len());
    assert!(log.iter().all(|e| e.id.check_pow(8)));
    eprintln!(
        "2 seats, 1 hand at 8 bits of work: {} events accepted in {:.1} s",
        figures.accepted,
        started.elapsed().as_secs_f64()
    );
}
