//! Networked hands of Tolerance on loopback: a table of bots, each its own key, relay connection
//! and session (`tolerance::table::demo::run_demo`), playing through one relay.
//!
//! Not a criterion bench: one 10-seat hand takes several seconds, and criterion's minimum of 10
//! samples (plus warm-up) would turn a run into many minutes on a shared 2-core machine. Each
//! configuration plays tables of `TABLE_BENCH_HANDS` hands until `TABLE_BENCH_RUNS` ×
//! `TABLE_BENCH_HANDS` hands are played (a table ends early when one player takes every chip),
//! and the bench prints, per seat count:
//! - wall time per hand: the time between consecutive hand completions seen by seat 0 (setup —
//!   relay start, announcement, connections, first fetch — is only in the first hand, reported
//!   apart);
//! - events, bytes and sequential relay passes (protocol steps) per hand, from seat 0's session;
//! - the relay round trip (publish → `OK` + delivery to another subscriber + own echo, as in
//!   `benches/relay.rs`), idle before the game and sampled every 20 ms during it;
//! - hops × round trip, the part of the wall time the network alone would explain;
//! - the process CPU time per hand (all clients and the relay share this process), over all
//!   hands and over the later hands alone (from the end of each table's first hand to the end
//!   of its last: no table start, no end), and the
//!   crypto work behind it: shuffle proofs made, shuffle proofs and tokens verified by all
//!   clients together.
//!
//! - where the wall time of the hands after the first goes, by kind of step: seat 0 notes when
//!   each step closes and the type of the log events that closed it ("setup" for the keys,
//!   "shuffle", "reveal", "move"...); passes and seconds per hand of each kind.
//!
//! Run: `cargo bench --bench table` (env `TABLE_BENCH_SEATS=2,5,10`, `TABLE_BENCH_HANDS=3`,
//! `TABLE_BENCH_RUNS=1`; `TABLE_BENCH_SPECULATE=0` turns off making a seat's next shuffle on
//! a deck it is still checking, to measure what that saves; `TABLE_BENCH_VERSION=6` plays
//! version 6 tables (each shuffle of the prepared deck checked as it arrives) beside this
//! version's; `TABLE_BENCH_NOSTR_RS=5` adds that many seats on nostr-rs-relay when it
//! is installed; `TABLE_BENCH_DELAY_MS=50` puts a `DelayProxy` adding 50 ms each way between
//! every client — and the probe — and the embedded relay, as if the relay were across a WAN).
//! Figures are in BENCHMARKS.md, sections "Networked hands" and "Over a slow network".

#[path = "support/step_type.rs"]
mod step_type;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nostr_sdk::prelude::{EventBuilder, Filter, Keys, Kind};
use tokio::sync::watch;
use tolerance::games::registry::SetupOptions;
use tolerance::games::tolerance::{HandSummary, Tolerance};
use tolerance::net::delay::DelayProxy;
use tolerance::net::testing::NostrRsRelay;
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig, RelayPool, Subscription};
use tolerance::table::demo::{run_demo, DemoOptions};
use tolerance::table::runner::RelayHealth;
use tolerance::table::Session;

use step_type::step_type;

/// A kind no table subscribes to, so probes never reach the players' sessions.
const PROBE_KIND: u16 = 4_244;

struct Probe {
    publisher: RelayPool,
    echo: Subscription,
    subscription: Subscription,
    _subscriber: RelayPool,
}

impl Probe {
    async fn connect(url: &str) -> Probe {
        let publisher = RelayPool::connect(Keys::generate(), [url], PoolConfig::default())
            .await
            .expect("probe publisher connects");
        let subscriber = RelayPool::connect(Keys::generate(), [url], PoolConfig::default())
            .await
            .expect("probe subscriber connects");
        // Only this probe's own events: a relay reused for several tables still holds the
        // earlier probes' (stored) events and would replay them to a new subscription.
        let filter = Filter::new()
            .kind(Kind::Custom(PROBE_KIND))
            .author(publisher.public_key());
        let echo = publisher
            .subscribe(vec![filter.clone()])
            .await
            .expect("subscribes");
        let subscription = subscriber
            .subscribe(vec![filter])
            .await
            .expect("subscribes");
        // Let the REQs reach the relay before the first publish.
        tokio::time::sleep(Duration::from_millis(200)).await;
        Probe {
            publisher,
            echo,
            subscription,
            _subscriber: subscriber,
        }
    }

    /// One round trip, signing excluded.
    async fn round_trip(&mut self) -> Duration {
        use std::sync::atomic::{AtomicU64, Ordering};
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        // A new content each time: the relay would not forward a duplicate.
        let event = self
            .publisher
            .sign(EventBuilder::new(
                Kind::Custom(PROBE_KIND),
                format!("probe {}", SERIAL.fetch_add(1, Ordering::Relaxed)),
            ))
            .expect("signs");
        let start = Instant::now();
        let (published, received, echoed) = tokio::join!(
            self.publisher.publish(&event),
            self.subscription.recv(),
            self.echo.recv()
        );
        let rtt = start.elapsed();
        published.expect("relay accepts the probe");
        assert_eq!(received.expect("probe arrives").id, event.id);
        assert_eq!(echoed.expect("probe echo arrives").id, event.id);
        rtt
    }
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[m - 1] + v[m]) / 2.0
    } else {
        v[m]
    }
}

/// CPU seconds (user + system) this process has used: utime and stime of /proc/self/stat, in
/// USER_HZ ticks (100 per second on Linux, fixed by the user-space ABI).
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may contain spaces; fields after it are space-separated.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // Fields 14 and 15 of the file are 12 and 13 after the name's closing parenthesis.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// Busy and total CPU seconds of the whole machine (all cores) from /proc/stat: shows how much
/// of the 2 cores other processes took while a table played.
fn machine_cpu_seconds() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<f64> = line
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0.0))
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is already in user).
    let busy = v.first()? + v.get(1)? + v.get(2)? + v.get(5)? + v.get(6)? + v.get(7)?;
    let total = busy + v.get(3)? + v.get(4)?;
    Some((busy / 100.0, total / 100.0))
}

#[derive(Default)]
struct Row {
    seats: u8,
    relay: String,
    tables: u32,
    hands: u64,
    /// Seconds between consecutive hand completions (hands 2..).
    hand_walls: Vec<f64>,
    /// Seconds from the start of `run_demo` to the first completed hand.
    first_hands: Vec<f64>,
    total_wall: f64,
    cpu: f64,
    /// Process CPU seconds from the end of each table's first hand to the end of its last.
    later_cpu: f64,
    /// CPU seconds the whole machine was busy, and had, while the tables played.
    machine_busy: f64,
    machine_total: f64,
    events: u64,
    bytes: u64,
    hops: f64,
    shuffles_made: u64,
    shuffles_verified: u64,
    tokens_verified: u64,
    rtt_idle: Vec<f64>,
    rtt_load: Vec<f64>,
    /// By kind of step: passes and seconds, over the hands after each table's first.
    phases: std::collections::BTreeMap<String, (u64, f64)>,
    /// Hands those phases cover, and their wall time.
    phase_hands: u64,
    phase_wall: f64,
    /// Per hand after the first: relay passes from the step open when seat 0 saw the hand
    /// before end to the first move step of this one.
    to_decision: Vec<u32>,
    /// Process CPU seconds and count of the later hands dealt from the deck prepared during the
    /// hand before (at most 2 passes to the first decision), and of those that keyed a deck of
    /// their own after a change of players (more).
    served: (f64, u32),
    keyed: (f64, u32),
}

/// When seat 0 saw a hand end, and this process's CPU seconds then.
type HandEnd = (Instant, Option<f64>);

async fn play(row: &mut Row, url: &str, seats: u8, hands: u64) {
    let mut probe = Probe::connect(url).await;
    for _ in 0..50 {
        row.rtt_idle.push(probe.round_trip().await.as_secs_f64());
    }
    // Probe every 20 ms while the game runs.
    let (stop, mut stopped) = watch::channel(false);
    let prober = tokio::spawn(async move {
        let mut samples = Vec::new();
        loop {
            samples.push(probe.round_trip().await.as_secs_f64());
            tokio::select! {
                _ = stopped.changed() => return samples,
                _ = tokio::time::sleep(Duration::from_millis(20)) => {}
            }
        }
    });

    let done: Arc<Mutex<Vec<HandEnd>>> = Arc::default();
    let marks = done.clone();
    // (when, open step, type of the events of the step(s) that just closed) each time seat 0's
    // open step changes.
    let steps: Arc<Mutex<Vec<(Instant, u32, String)>>> = Arc::default();
    let step_marks = steps.clone();
    let cpu_before = process_cpu_seconds();
    let machine_before = machine_cpu_seconds();
    let started = Instant::now();
    let mut seen_hands = 0usize;
    let to_decision: Arc<Mutex<Vec<u32>>> = Arc::default();
    let decisions = to_decision.clone();
    let mut ended_at: Option<u32> = None;
    let run = run_demo::<Tolerance>(
        DemoOptions {
            setup: SetupOptions {
                players: seats,
                hands: Some(hands),
                ..SetupOptions::default()
            },
            relays: vec![url.to_string()],
            speculate: std::env::var("TABLE_BENCH_SPECULATE").map_or(true, |v| v != "0"),
            version: env_or("TABLE_BENCH_VERSION", tolerance::wire::VERSION),
            ..DemoOptions::default()
        },
        None,
        // Seat 0 marks the moment each hand's record appears in its game.
        Some(Box::new(move |s: &Session<Tolerance>, _: &RelayHealth| {
            let step = s.awaiting().step;
            let mut st = step_marks.lock().expect("not poisoned");
            let last = st.last().map(|l| l.1);
            if last != Some(step) {
                let closed = last.unwrap_or(0);
                let applied = s.applied();
                let recent = &applied[applied.len().saturating_sub(64)..];
                let label = step_type(recent, closed).unwrap_or_else(|| "other".into());
                st.push((Instant::now(), step, label));
            }
            drop(st);
            let n = s.game().history.len();
            if n > seen_hands {
                seen_hands = n;
                marks
                    .lock()
                    .expect("not poisoned")
                    .push((Instant::now(), process_cpu_seconds()));
                ended_at = Some(step);
            }
            if let Some(end) = ended_at {
                if s.awaiting().what == "move" && n == seen_hands {
                    decisions.lock().expect("not poisoned").push(step - end);
                    ended_at = None;
                }
            }
        })),
    )
    .await
    .expect("the demo runs");
    let wall = started.elapsed().as_secs_f64();
    let cpu = match (cpu_before, process_cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => f64::NAN,
    };
    if let (Some(a), Some(b)) = (machine_before, machine_cpu_seconds()) {
        row.machine_busy += b.0 - a.0;
        row.machine_total += b.1 - a.1;
    }
    let _ = stop.send(true);
    row.rtt_load
        .extend(prober.await.expect("the prober does not panic"));

    let s = &run.summary;
    assert!(s.verified, "an honest table verifies: {s:?}");
    let played = s.report["hands"].as_u64().expect("a hand count");
    // A tournament table ends early when one player holds every chip.
    assert!((1..=hands).contains(&played), "{played} hands");
    let cpu_marks = done.lock().expect("not poisoned").clone();
    assert_eq!(cpu_marks.len() as u64, played, "seat 0 saw every hand end");
    // The hands after the first, in steady state: each prepares the next hand's deck, as the
    // first does, but none pays for the table's start (its keys and first deck) or the end.
    if let (Some((_, Some(a))), Some((_, Some(b)))) = (cpu_marks.first(), cpu_marks.last()) {
        row.later_cpu += b - a;
    }
    let marks: Vec<Instant> = cpu_marks.iter().map(|m| m.0).collect();
    row.first_hands
        .push(marks[0].duration_since(started).as_secs_f64());
    // Each step's time runs from when it opened to when the next one did; steps that closed
    // together in one update share that time.
    let steps = steps.lock().expect("not poisoned").clone();
    let (first_end, last_end) = (marks[0], *marks.last().expect("a hand"));
    for w in steps.windows(2) {
        let ((t0, s0, _), (t1, s1, what)) = (&w[0], &w[1]);
        if *t0 < first_end || *t1 > last_end {
            continue;
        }
        let passes = u64::from(s1.saturating_sub(*s0));
        let e = row.phases.entry(what.clone()).or_default();
        e.0 += passes;
        e.1 += t1.duration_since(*t0).as_secs_f64();
    }
    row.phase_hands += played - 1;
    let to_decision = to_decision.lock().expect("not poisoned").clone();
    // Hand i's CPU runs from the end of hand i−1 to its own; `to_decision[i−2]` is how it began.
    if to_decision.len() + 1 == cpu_marks.len() {
        for (w, passes) in cpu_marks.windows(2).zip(&to_decision) {
            if let (Some(a), Some(b)) = (w[0].1, w[1].1) {
                let slot = if *passes <= 2 {
                    &mut row.served
                } else {
                    &mut row.keyed
                };
                slot.0 += b - a;
                slot.1 += 1;
            }
        }
    }
    row.to_decision.extend(to_decision);
    row.phase_wall += last_end.duration_since(first_end).as_secs_f64();
    row.hand_walls.extend(
        marks
            .windows(2)
            .map(|w| w[1].duration_since(w[0]).as_secs_f64()),
    );
    row.total_wall += wall;
    row.cpu += cpu;
    row.hands += played;
    row.tables += 1;
    row.events += s.events;
    row.bytes += s.bytes;
    row.hops += s.passes as f64;
    for r in &run.reports {
        let r = r.as_ref().expect("every client finished");
        row.shuffles_verified += r.stats.chance.shuffles_verified;
        row.tokens_verified += r.stats.chance.tokens_verified;
    }
    let history: Vec<HandSummary> =
        serde_json::from_value(s.report["history"].clone()).expect("the hands' records");
    // One shuffle per player of each hand (every deck of the hand is in its one shuffle step).
    row.shuffles_made += history.iter().map(|h| h.players.len() as u64).sum::<u64>();
}

fn print_row(row: &mut Row) {
    let h = row.hands as f64;
    let rtt_idle = median(&mut row.rtt_idle);
    let rtt_load = median(&mut row.rtt_load);
    let hops = row.hops / h;
    let steady = median(&mut row.hand_walls);
    let first = median(&mut row.first_hands);
    println!(
        "{:>2} seats on {:<14} {:>2} hands in {} tables | wall/hand {:>6.2} s (median of later hands; first \
         incl. setup {:.2} s; total/hands {:.2} s) | CPU/hand {:>6.2} s ({:.0} % of 2 cores; other processes took {:.0} %) | \
         hops/hand {:>5.1} x rtt idle {:.2} ms = {:.3} s, x rtt in play {:.2} ms = {:.3} s | \
         events/hand {:>5.1} bytes/hand {:>8.0} | per hand: {:.1} shuffles made, {:.1} verified, \
         {:.1} tokens verified (all clients)",
        row.seats,
        row.relay,
        row.hands,
        row.tables,
        steady,
        first,
        row.total_wall / h,
        row.cpu / h,
        100.0 * row.cpu / row.total_wall / 2.0,
        100.0 * (row.machine_busy - row.cpu) / row.machine_total,
        hops,
        rtt_idle * 1e3,
        hops * rtt_idle,
        rtt_load * 1e3,
        hops * rtt_load,
        row.events as f64 / h,
        row.bytes as f64 / h,
        row.shuffles_made as f64 / h,
        row.shuffles_verified as f64 / h,
        row.tokens_verified as f64 / h,
    );
    if row.phase_hands > 0 {
        let hands = row.phase_hands as f64;
        let passes: u64 = row.phases.values().map(|p| p.0).sum();
        let passes = passes as f64 / hands;
        let wall = row.phase_wall / hands;
        let parts: Vec<String> = row
            .phases
            .iter()
            .map(|(what, (passes, secs))| {
                format!(
                    "{what} {:.1} passes {:.3} s",
                    *passes as f64 / hands,
                    secs / hands
                )
            })
            .collect();
        println!(
            "   later hands ({}): mean wall {wall:.3} s, {passes:.1} passes = {:.2} x (passes x rtt in play); \
             CPU/hand {:.2} s ({:.0} ms per client); by kind of step closed, per hand: {}",
            row.phase_hands,
            wall / (passes * rtt_load),
            row.later_cpu / hands,
            1e3 * row.later_cpu / hands / f64::from(row.seats),
            parts.join(", "),
        );
    }
    if !row.to_decision.is_empty() {
        let mut counts = std::collections::BTreeMap::new();
        for p in &row.to_decision {
            *counts.entry(*p).or_insert(0u32) += 1;
        }
        let n = row.to_decision.len();
        let within_two = row.to_decision.iter().filter(|p| **p <= 2).count();
        println!(
            "   passes from a hand's end to the next hand's first decision ({n} hands): {} \
             ({within_two} of {n} within 2)",
            counts
                .iter()
                .map(|(p, c)| format!("{p}: {c}"))
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    let per_client = |(cpu, n): (f64, u32)| 1e3 * cpu / f64::from(n.max(1)) / f64::from(row.seats);
    if row.served.1 + row.keyed.1 > 0 {
        println!(
            "   CPU per client, later hands dealt from the deck prepared during the hand before: \
             {} hands, {:.0} ms; keyed anew after a change of players: {} hands, {:.0} ms",
            row.served.1,
            per_client(row.served),
            row.keyed.1,
            per_client(row.keyed),
        );
    }
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo test --benches` runs bench targets with `--bench` absent: keep that quick.
    if !std::env::args().any(|a| a == "--bench") {
        println!("table bench: run with `cargo bench --bench table`");
        return;
    }
    let seats: Vec<u8> = std::env::var("TABLE_BENCH_SEATS")
        .unwrap_or_else(|_| "2,5,10".into())
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("TABLE_BENCH_SEATS: comma-separated seat counts")
        })
        .collect();
    let hands: u64 = env_or("TABLE_BENCH_HANDS", 3);
    let runs: u32 = env_or("TABLE_BENCH_RUNS", 1);
    let external: u8 = env_or("TABLE_BENCH_NOSTR_RS", 0);
    let delay = Duration::from_millis(env_or("TABLE_BENCH_DELAY_MS", 0));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(async {
        for &n in &seats {
            let mut row = Row {
                seats: n,
                relay: if delay.is_zero() {
                    "EmbeddedRelay".into()
                } else {
                    format!("Embedded+{}ms", delay.as_millis())
                },
                ..Row::default()
            };
            // Tables that end early (one player took every chip) are topped up with more tables.
            while row.hands < runs as u64 * hands {
                // A fresh relay per table: each table starts from an empty store.
                let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
                    .await
                    .expect("embedded relay starts");
                if delay.is_zero() {
                    play(&mut row, relay.url().as_str(), n, hands).await;
                } else {
                    let proxy = DelayProxy::start(relay.local_addr(), delay)
                        .await
                        .expect("the delay proxy starts");
                    play(&mut row, &proxy.ws_url(), n, hands).await;
                    drop(proxy);
                }
                relay.shutdown().await;
            }
            print_row(&mut row);
        }
        if external > 0 {
            match NostrRsRelay::spawn().await {
                Ok(relay) => {
                    let mut row = Row {
                        seats: external,
                        relay: "nostr-rs-relay".into(),
                        ..Row::default()
                    };
                    while row.hands < runs as u64 * hands {
                        play(&mut row, relay.url().as_str(), external, hands).await;
                    }
                    print_row(&mut row);
                }
                Err(e) => println!("skipping nostr-rs-relay: {e}"),
            }
        }
    });
}
