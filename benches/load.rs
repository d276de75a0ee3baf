//! Many tables on one relay: how the relay's cost per event grows with the tables it serves.
//!
//! The relay is `tolerance relay` run as a **separate process** (the binary this package
//! builds), so its CPU time and peak memory come from `/proc/<pid>/stat` and `/proc/<pid>/status`
//! apart from the clients'. The clients all run in this process: `LOAD_BENCH_TABLES=10,25,50,100`
//! rows of that many concurrent tables of Perudo with `LOAD_BENCH_SEATS` (5)
//! bots each, every seat its own key, connection and session (`run_demo`, exactly as
//! `tolerance demo`, including the fresh spectator that re-verifies each table from the relay
//! afterwards). Each row gets a fresh relay, so its store starts empty. Per row it prints:
//! - tables that failed (a client error) or did not verify — must be 0;
//! - the log events the tables stored (the sum of each table's count as one of its clients
//!   received them; heartbeats are ephemeral and not counted, the announcements are);
//! - relay CPU (user + system) in total and per stored event; relay peak RSS (`VmHWM`);
//! - each table's wall time (median, max) and the whole row's; this process's CPU (the clients).
//!
//! Then, unless `LOAD_BENCH_CLIENT_SEATS=0`, one table of Tolerance (1 hand, 104 cards at 10
//! seats) with `LOAD_BENCH_CLIENT_SEATS` (10) seats, **each seat its own process** (this bench
//! binary re-run as one seat), to report what one client costs in memory (`VmHWM` of each).
//!
//! Two knobs isolate where the relay's time goes (see BENCHMARKS.md, "Many tables on one relay"):
//! `LOAD_BENCH_IDLE_SUBS=K` keeps K extra connections open during each row, each with a
//! subscription that matches nothing the tables publish (cost of fan-out to connections that do
//! not want the event); `LOAD_BENCH_PREFILL=E` first stores E events of another table's log
//! (cost of a relay store that holds other tables' events).
//!
//! `LOAD_BENCH_STORE_ONLY=36000` instead measures only the event store: the RSS a `tolerance
//! relay` process gains while one connection stores that many signed events of the log kind
//! with one `a` tag and `LOAD_BENCH_STORE_CONTENT` (1,200) bytes of random base64 as content
//! (it deflates worse than a game's events: to 78 % against 54 %); then, for
//! comparison, what nostr-database's in-memory store (the relay's before) gains in this process
//! holding the same events parsed from JSON.
//!
//! **Relays others run.** When nostr-rs-relay is installed (`.ci/install-nostr-rs-relay.sh`, as
//! the suite's end-to-end tests use it), every row is played twice in one run, on `tolerance
//! relay` and then on nostr-rs-relay (SQLite in a fresh directory, no rate limits), each in its
//! own process and measured the same way, so the two are side by side under the same machine
//! and the same clients. `LOAD_BENCH_RELAYS=ours`, `nostr-rs-relay` or `ours,nostr-rs-relay`
//! (the default) chooses.
//!
//! Run: `cargo bench --bench load` (the tables of one row all start at once; on the 2-core
//! machine 100 tables take a few minutes).

use std::time::{Duration, Instant};

use nostr_sdk::prelude::{EventBuilder, Filter, Keys, Kind, PublicKey, Tag};
use tokio::process::Command;
use tolerance::bots::BotLevel;
use tolerance::engine::Game;
use tolerance::games::perudo::Perudo;
use tolerance::games::registry::{SetupOptions, TableGame};
use tolerance::games::tolerance::Tolerance;
use tolerance::net::testing::{nostr_rs_relay_binary, NostrRsRelay};
use tolerance::net::{PoolConfig, RelayPool};
use tolerance::table::demo::{announce, run_demo, DemoOptions};
use tolerance::table::runner::{fetch_table, run_client_on, BotDecider, RunConfig};
use tolerance::wire::{self, Pace};

/// A `tolerance relay` child process on a free loopback port.
struct RelayProcess {
    child: tokio::process::Child,
    pid: u32,
    url: String,
}

impl RelayProcess {
    async fn spawn() -> RelayProcess {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        // `LOAD_BENCH_RELAY_WRAP="valgrind --tool=massif"` runs the relay under a profiler.
        let wrap = std::env::var("LOAD_BENCH_RELAY_WRAP").unwrap_or_default();
        let mut argv: Vec<String> = wrap.split_whitespace().map(str::to_owned).collect();
        argv.push(env!("CARGO_BIN_EXE_tolerance").to_owned());
        argv.extend(["relay".to_owned(), "--port".to_owned(), port.to_string()]);
        let child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("tolerance relay starts");
        let pid = child.id().expect("a running child");
        let deadline = Instant::now() + Duration::from_secs(120);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "the relay listens in time");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        RelayProcess {
            child,
            pid,
            url: format!("ws://127.0.0.1:{port}"),
        }
    }

    /// Ctrl-C first, as a person would stop it (a profiler the relay runs under writes its
    /// report then); killed if it has not ended within a minute.
    async fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.pid.to_string()])
            .status()
            .await;
        if tokio::time::timeout(Duration::from_secs(60), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

/// The relay a row runs on: ours or nostr-rs-relay, each its own process.
enum RowRelay {
    Ours(RelayProcess),
    NostrRs(NostrRsRelay),
}

impl RowRelay {
    async fn spawn(which: &str) -> RowRelay {
        match which {
            "ours" => RowRelay::Ours(RelayProcess::spawn().await),
            _ => RowRelay::NostrRs(NostrRsRelay::spawn().await.expect("nostr-rs-relay starts")),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            RowRelay::Ours(_) => "tolerance relay",
            RowRelay::NostrRs(_) => "nostr-rs-relay",
        }
    }

    fn url(&self) -> String {
        match self {
            RowRelay::Ours(r) => r.url.clone(),
            RowRelay::NostrRs(r) => r.url().to_string(),
        }
    }

    fn pid(&self) -> u32 {
        match self {
            RowRelay::Ours(r) => r.pid,
            RowRelay::NostrRs(r) => r.pid(),
        }
    }

    fn cpu_seconds(&self) -> f64 {
        cpu_seconds(&format!("/proc/{}/stat", self.pid())).expect("the relay's /proc stat")
    }

    fn peak_rss_kb(&self) -> u64 {
        status_kb(&format!("/proc/{}/status", self.pid()), "VmHWM:").expect("the relay's VmHWM")
    }

    async fn stop(self) {
        match self {
            RowRelay::Ours(r) => r.stop().await,
            // Killed, its directory removed.
            RowRelay::NostrRs(r) => drop(r),
        }
    }
}

/// utime + stime of a /proc stat file, in seconds (USER_HZ is 100 on Linux, fixed by the ABI).
fn cpu_seconds(path: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(path).ok()?;
    // The command name (field 2) may contain spaces; fields after it are space-separated.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// A `kB` line (`VmHWM:`, `VmRSS:`) of a /proc status file.
fn status_kb(path: &str, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn load_avg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Connections that subscribe to something no table publishes: they only receive the relay's
/// fan-out of events they did not ask for.
async fn idle_subscribers(url: &str, n: usize) -> Vec<(RelayPool, tolerance::net::Subscription)> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let pool = RelayPool::connect(Keys::generate(), [url], PoolConfig::default())
            .await
            .expect("idle subscriber connects");
        let sub = pool
            .subscribe(vec![Filter::new()
                .kind(Kind::Custom(4_245))
                .author(pool.public_key())])
            .await
            .expect("subscribes");
        out.push((pool, sub));
    }
    out
}

/// `len` characters of base64 of random bytes: filler that compresses about as badly as a
/// game's ciphertexts and proofs (a store that deflates must not look better than it is).
fn random_base64(len: usize) -> String {
    use base64::Engine;
    use rand::RngCore;
    let mut bytes = vec![0u8; len * 3 / 4 + 3];
    rand::thread_rng().fill_bytes(&mut bytes);
    let mut text = base64::engine::general_purpose::STANDARD.encode(bytes);
    text.truncate(len);
    text
}

/// Stores `n` log events of a table nobody plays (other authors, another coordinate), 64 at a
/// time in flight, each with `content` bytes of random base64 besides its number.
async fn prefill(url: &str, n: usize, content: usize) {
    let keys = Keys::generate();
    let pool = RelayPool::connect(keys.clone(), [url], PoolConfig::default())
        .await
        .expect("prefill connects");
    let coordinate = format!(
        "{}:{}:prefill",
        wire::KIND_TABLE,
        keys.public_key().to_hex()
    );
    let mut sent = 0;
    while sent < n {
        let batch: Vec<_> = (sent..n.min(sent + 64))
            .map(|i| {
                pool.sign(
                    EventBuilder::new(
                        Kind::from(wire::KIND_LOG),
                        format!("{{\"filler\":{i}}}{}", random_base64(content)),
                    )
                    .tags([Tag::parse(["a", &coordinate]).expect("a tag")]),
                )
                .expect("signs")
            })
            .collect();
        sent += batch.len();
        let mut publishes = tokio::task::JoinSet::new();
        for event in batch {
            let pool = pool.clone();
            publishes.spawn(async move { pool.publish(&event).await });
        }
        while let Some(r) = publishes.join_next().await {
            r.expect("publish task")
                .expect("the relay stores the filler");
        }
    }
    pool.shutdown().await;
}

async fn load_row(which: &str, tables: usize, seats: u8, idle: usize, prefill_events: usize) {
    let relay = RowRelay::spawn(which).await;
    let url = relay.url();
    if prefill_events > 0 {
        prefill(&url, prefill_events, 0).await;
    }
    let _idle = idle_subscribers(&url, idle).await;
    let load_before = load_avg();
    let relay_cpu0 = relay.cpu_seconds();
    let own_cpu0 = cpu_seconds("/proc/self/stat").unwrap_or(f64::NAN);
    let started = Instant::now();
    let runs: Vec<_> = (0..tables)
        .map(|_| {
            let opts = DemoOptions {
                setup: SetupOptions {
                    players: seats,
                    hands: Some(3),
                    ..SetupOptions::default()
                },
                relays: vec![url.clone()],
                deadlines: Pace::Fast.deadlines(),
                idle: Duration::from_secs(300),
                ..DemoOptions::default()
            };
            tokio::spawn(run_demo::<Perudo>(opts, None, None))
        })
        .collect();
    let mut failed = 0;
    let mut unverified = 0;
    let mut events = 0u64;
    let mut walls = Vec::new();
    for run in runs {
        match run.await {
            Ok(Ok(run)) => {
                let s = &run.summary;
                if !s.verified {
                    unverified += 1;
                    let errors: Vec<String> = run
                        .reports
                        .iter()
                        .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
                        .collect();
                    eprintln!(
                        "a table did not verify: finished {} clients agree {} violations {} \
                         verdicts {:?} client errors {errors:?}",
                        s.finished, s.clients_agree, s.violations, s.verdicts
                    );
                }
                // The table's log plus its announcement.
                events += run.summary.events + 1;
                walls.push(run.summary.wall_ms as f64 / 1e3);
            }
            Ok(Err(e)) => {
                eprintln!("a table failed: {e}");
                failed += 1;
            }
            Err(e) => {
                eprintln!("a table panicked: {e}");
                failed += 1;
            }
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let relay_cpu = relay.cpu_seconds() - relay_cpu0;
    let own_cpu = cpu_seconds("/proc/self/stat").unwrap_or(f64::NAN) - own_cpu0;
    let rss = relay.peak_rss_kb();
    let rss_end = status_kb(&format!("/proc/{}/status", relay.pid()), "VmRSS:").unwrap_or(0);
    let name = relay.name();
    relay.stop().await;
    walls.sort_by(|a, b| a.total_cmp(b));
    let median = walls.get(walls.len() / 2).copied().unwrap_or(f64::NAN);
    let max = walls.last().copied().unwrap_or(f64::NAN);
    println!(
        "{name:<15} {tables:>3} tables x {seats} seats{idle_note}{prefill_note} | failed {failed} unverified {unverified} | \
         {events} events stored | relay CPU {relay_cpu:.2} s = {per_event:.3} ms/event, peak RSS {rss_mb:.1} MB (at the end {rss_end_mb:.1} MB) | \
         table wall median {median:.2} s max {max:.2} s, row {wall:.1} s = {per_second:.0} events/s | clients' CPU {own_cpu:.1} s ({client_per_event:.3} ms/event) | \
         load avg before {load_before}, after {load_after}",
        idle_note = if idle > 0 { format!(" +{idle} idle subs") } else { String::new() },
        prefill_note = if prefill_events > 0 { format!(" +{prefill_events} stored before") } else { String::new() },
        per_event = 1e3 * relay_cpu / events.max(1) as f64,
        per_second = events as f64 / wall,
        rss_mb = rss as f64 / 1024.0,
        rss_end_mb = rss_end as f64 / 1024.0,
        client_per_event = 1e3 * own_cpu / events.max(1) as f64,
        load_after = load_avg(),
    );
}

/// One Tolerance table, each seat its own process; prints each seat's peak RSS.
async fn client_row(seats: u8) {
    let relay = RelayProcess::spawn().await;
    let keys: Vec<Keys> = (0..seats).map(|_| Keys::generate()).collect();
    let pubkeys: Vec<PublicKey> = keys.iter().map(|k| k.public_key()).collect();
    let setup = Tolerance::setup(&SetupOptions {
        players: seats,
        hands: Some(1),
        ..SetupOptions::default()
    })
    .expect("a Tolerance setup");
    let table = announce(
        &keys[0],
        std::slice::from_ref(&relay.url),
        Tolerance::NAME,
        serde_json::to_value(&setup).expect("setups serialise"),
        &pubkeys,
        Pace::Fast.deadlines(),
    )
    .await
    .expect("the table is announced");
    let exe = std::env::current_exe().expect("this bench's path");
    let started = Instant::now();
    let children: Vec<_> = keys
        .iter()
        .map(|k| {
            Command::new(&exe)
                .env("LOAD_BENCH_SEAT_KEY", k.secret_key().to_secret_hex())
                .env("LOAD_BENCH_SEAT_HOST", pubkeys[0].to_hex())
                .env("LOAD_BENCH_SEAT_TABLE", &table)
                .env("LOAD_BENCH_SEAT_RELAY", &relay.url)
                .stdout(std::process::Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .expect("a seat process starts")
        })
        .collect();
    let mut peaks = Vec::new();
    let mut publics = Vec::new();
    let mut ok = true;
    for child in children {
        let out = child.wait_with_output().await.expect("the seat ends");
        let line = String::from_utf8_lossy(&out.stdout);
        let report: serde_json::Value = match serde_json::from_str(line.trim()) {
            Ok(v) => v,
            Err(_) => {
                eprintln!("a seat process printed no report: {line}");
                ok = false;
                continue;
            }
        };
        ok &= report["finished"] == true && report["violations"] == 0;
        peaks.push(report["vm_hwm_kb"].as_u64().unwrap_or(0));
        publics.push(report["public"].clone());
    }
    let agree = publics.windows(2).all(|w| w[0] == w[1]);
    relay.stop().await;
    peaks.sort();
    println!(
        "Tolerance, {seats} seats, 1 hand, each seat its own process | all finished, no violation: {ok}, agree: {agree} | \
         seat peak RSS min {:.1} median {:.1} max {:.1} MB | {:.1} s | load avg {}",
        peaks.first().copied().unwrap_or(0) as f64 / 1024.0,
        peaks.get(peaks.len() / 2).copied().unwrap_or(0) as f64 / 1024.0,
        peaks.last().copied().unwrap_or(0) as f64 / 1024.0,
        started.elapsed().as_secs_f64(),
        load_avg(),
    );
}

/// The child side of [`client_row`]: play one seat, print its report and peak RSS as JSON.
async fn seat_process(secret: String) {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is set"));
    let keys = Keys::parse(&secret).expect("a secret key");
    let host = PublicKey::parse(&var("LOAD_BENCH_SEAT_HOST")).expect("the host's key");
    let table = var("LOAD_BENCH_SEAT_TABLE");
    let relays = vec![var("LOAD_BENCH_SEAT_RELAY")];
    let pool = RelayPool::connect(keys.clone(), &relays, PoolConfig::default())
        .await
        .expect("the seat connects");
    let (spec, start) = fetch_table(&pool, &host, &table, Duration::from_secs(10))
        .await
        .expect("the table is on the relay");
    let rng = rand::SeedableRng::from_rng(rand::rngs::OsRng).expect("OS randomness");
    // The seat plays on the pool that found the table, as a command does.
    let report = run_client_on::<Tolerance>(
        pool,
        RunConfig {
            keys,
            relays,
            host,
            spec,
            start,
            decider: Box::new(BotDecider(Tolerance::bot(BotLevel::Normal, rng))),
            journal: None,
            on_update: None,
            idle: Duration::from_secs(300),
            tamper: None,
            names: Vec::new(),
            pool: tolerance::net::pool::PoolConfig::default(),
            speculate: true,
            clock_skew: 0,
        },
    )
    .await
    .expect("the seat plays to the end");
    println!(
        "{}",
        serde_json::json!({
            "finished": report.finished,
            "violations": report.violations.len(),
            "public": report.public,
            "vm_hwm_kb": status_kb("/proc/self/status", "VmHWM:"),
        })
    );
}

/// RSS of this process, in kB.
fn rss_kb() -> u64 {
    status_kb("/proc/self/status", "VmRSS:").expect("our own VmRSS")
}

/// What the relay's in-memory store costs per event: the growth of a `tolerance relay`
/// process's RSS while one connection stores `n` log events of `content` bytes of content.
async fn relay_store_row(n: usize, content: usize) {
    let relay = RelayProcess::spawn().await;
    let rss =
        || status_kb(&format!("/proc/{}/status", relay.pid), "VmRSS:").expect("the relay's VmRSS");
    let before = rss();
    prefill(&relay.url, n, content).await;
    let grown = rss().saturating_sub(before);
    relay.stop().await;
    println!(
        "tolerance relay: {n} events with {content} B of content: +{:.1} MB RSS = {:.0} B per event",
        grown as f64 / 1024.0,
        grown as f64 * 1024.0 / n as f64,
    );
}

/// What nostr-database's in-memory store (the relay's before it had its own, same options)
/// costs per event, in this process.
async fn store_row(n: usize, content: usize) {
    use nostr_sdk::prelude::{
        Event, JsonUtil, MemoryDatabase, MemoryDatabaseOptions, NostrDatabase,
    };
    let keys = Keys::generate();
    let coordinate = format!("{}:{}:store", wire::KIND_TABLE, keys.public_key().to_hex());
    // Signed and kept as JSON first, so that only the store's share is counted.
    let jsons: Vec<String> = (0..n)
        .map(|i| {
            EventBuilder::new(
                Kind::from(wire::KIND_LOG),
                format!("{i}{}", random_base64(content)),
            )
            .tags([Tag::parse(["a", &coordinate]).expect("a tag")])
            .sign_with_keys(&keys)
            .expect("signs")
            .as_json()
        })
        .collect();
    let json_bytes: usize = jsons.iter().map(String::len).sum();
    let db = MemoryDatabase::with_opts(MemoryDatabaseOptions {
        events: true,
        max_events: Some(tolerance::net::relay::MEMORY_EVENTS),
    });
    let before = rss_kb();
    for json in &jsons {
        let event = Event::from_json(json).expect("our own JSON");
        db.save_event(&event).await.expect("stored");
    }
    let grown = rss_kb().saturating_sub(before);
    println!(
        "in-memory store: {n} events of {:.0} B of JSON each: +{:.1} MB RSS = {:.0} B per event",
        json_bytes as f64 / n as f64,
        grown as f64 / 1024.0,
        grown as f64 * 1024.0 / n as f64,
    );
}

fn main() {
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("tokio runtime")
    };
    if let Ok(secret) = std::env::var("LOAD_BENCH_SEAT_KEY") {
        runtime().block_on(seat_process(secret));
        return;
    }
    // `cargo test --benches` runs bench targets with `--bench` absent: keep that quick.
    if !std::env::args().any(|a| a == "--bench") {
        println!("load bench: run with `cargo bench --bench load`");
        return;
    }
    let tables: Vec<usize> = std::env::var("LOAD_BENCH_TABLES")
        .unwrap_or_else(|_| "10,25,50,100".into())
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            s.trim()
                .parse()
                .expect("LOAD_BENCH_TABLES: comma-separated counts")
        })
        .collect();
    let seats: u8 = env_or("LOAD_BENCH_SEATS", 5);
    let idle: usize = env_or("LOAD_BENCH_IDLE_SUBS", 0);
    let prefill_events: usize = env_or("LOAD_BENCH_PREFILL", 0);
    let client_seats: u8 = env_or("LOAD_BENCH_CLIENT_SEATS", 10);
    let mut relays: Vec<String> = std::env::var("LOAD_BENCH_RELAYS")
        .unwrap_or_else(|_| "ours,nostr-rs-relay".into())
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    for r in &relays {
        assert!(
            r == "ours" || r == "nostr-rs-relay",
            "LOAD_BENCH_RELAYS: ours and/or nostr-rs-relay, not {r}"
        );
    }
    if nostr_rs_relay_binary().is_none() && relays.iter().any(|r| r == "nostr-rs-relay") {
        println!(
            "nostr-rs-relay is not installed (.ci/install-nostr-rs-relay.sh): its rows are left out"
        );
        relays.retain(|r| r != "nostr-rs-relay");
    }
    let rt = runtime();
    let store_only: usize = env_or("LOAD_BENCH_STORE_ONLY", 0);
    if store_only > 0 {
        // One size per run: memory freed by an earlier measurement would be reused by a later one.
        let content = env_or("LOAD_BENCH_STORE_CONTENT", 1_200);
        rt.block_on(relay_store_row(store_only, content));
        rt.block_on(store_row(store_only, content));
        return;
    }
    rt.block_on(async {
        for &n in &tables {
            for which in &relays {
                load_row(which, n, seats, idle, prefill_events).await;
            }
        }
        if client_seats > 0 {
            client_row(client_seats).await;
        }
    });
}
