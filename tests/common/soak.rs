//! The fault soak: tables of every registered game played by separate `tolerance` processes
//! (each seat its own key, home, journal and relay connections) over two real relays, each
//! behind a proxy that injects faults a seeded scheduler picks — relays that rate-limit per
//! connection or per address, refuse events for a while, delay, reorder or duplicate delivery,
//! drop every connection, restart mid-hand with or without their store, close subscriptions or
//! cap stored queries; clients whose clocks are 30 s off; a client killed and resumed.
//!
//! After each table every client's report (written by the process itself, `TOLERANCE_REPORT`)
//! is held against `tolerance verify` run afterwards against the relays: the same verdicts, game
//! report and chain of events; no seat named for a violation (every seat is honest here); the
//! game's invariants (chips or points conserved) hold. A failure names its seed and the command
//! that plays that table again.

use super::{home, player, Proc};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tolerance::engine::DeckId;
use tolerance::games::tolerance::game::{is_dealt_ahead, DEALT_AHEAD};
use tolerance::net::harness::{RelayProxy, Rules};
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig};

/// What can go wrong, one kind per entry; each table gets one or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fault {
    /// Both relays take at most 60 events a minute per connection.
    ConnLimit,
    /// Both relays take at most 150 events a minute from the address (every client).
    IpLimit,
    /// Both relays answer every event `OK false "error: …"` for 4 s.
    Reject,
    /// Every message waits 150 ms each way.
    Delay,
    /// Every message waits up to 400 ms more at random: delivery out of order.
    Reorder,
    /// Every event reaches the clients twice.
    Duplicate,
    /// Every connection to one relay is cut.
    DropConnections,
    /// The relay that keeps its events on disk goes down for 3 s and comes back with them.
    RestartKeeping,
    /// The relay that keeps its events in memory goes down and comes back empty.
    RestartEmpty,
    /// Every subscription on one relay is closed by the relay.
    CloseSubscriptions,
    /// Stored queries are capped at 40 events per request.
    PageCap,
    /// One client's clock is 30 s fast and another's 30 s slow.
    ClockSkew,
    /// One client is killed mid-table and resumed after a pause.
    KillResume,
}

impl Fault {
    pub const ALL: [Fault; 13] = [
        Fault::ConnLimit,
        Fault::IpLimit,
        Fault::Reject,
        Fault::Delay,
        Fault::Reorder,
        Fault::Duplicate,
        Fault::DropConnections,
        Fault::RestartKeeping,
        Fault::RestartEmpty,
        Fault::CloseSubscriptions,
        Fault::PageCap,
        Fault::ClockSkew,
        Fault::KillResume,
    ];
}

/// One table of the soak, fixed by its seed.
#[derive(Debug, Clone)]
pub struct Plan {
    pub seed: u64,
    pub game: String,
    pub players: u8,
    pub hands: u32,
    /// Each fault with the count of events forwarded by the first proxy at which it strikes,
    /// counted from the table's start, or with `at_dealt_ahead` from the first event that holds
    /// a token of a Tolerance deck dealt with a showdown (PROTOCOL §5.8).
    pub faults: Vec<(Fault, u64)>,
    pub at_dealt_ahead: bool,
}

impl Plan {
    /// The table `index` of a soak seeded `seed`: games and fault kinds in turn (so a short set
    /// has every game and every kind), one or two more faults at random.
    pub fn new(seed: u64, index: usize, games: &[(String, u8, u8)]) -> Plan {
        let table_seed = seed.wrapping_mul(1_000_003).wrapping_add(index as u64);
        let mut rng = StdRng::seed_from_u64(table_seed);
        let (game, min, max) = games[index % games.len()].clone();
        let players = rng.gen_range(min.max(2)..=max.min(4).max(min));
        let mut kinds = vec![Fault::ALL[index % Fault::ALL.len()]];
        for _ in 0..rng.gen_range(0..=2) {
            let k = *Fault::ALL.choose(&mut rng).expect("kinds");
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        let faults = kinds
            .into_iter()
            .map(|k| (k, rng.gen_range(5..40)))
            .collect();
        Plan {
            seed: table_seed,
            game,
            players,
            hands: 1,
            faults,
            at_dealt_ahead: false,
        }
    }

    /// A Tolerance table of `hands` hands at 3 seats whose one fault, `kind`, strikes within
    /// the first few events of the first showdown that deals the next hand; try `attempt` of
    /// that fault (a table with no such showdown is played again).
    pub fn at_dealt_ahead(seed: u64, kind: Fault, attempt: u64, hands: u32) -> Plan {
        let index = Fault::ALL.iter().position(|k| *k == kind).expect("a kind") as u64;
        let table_seed = seed
            .wrapping_mul(1_000_003)
            .wrapping_add(index * 1_000 + attempt);
        let mut rng = StdRng::seed_from_u64(table_seed);
        Plan {
            seed: table_seed,
            game: "tolerance".into(),
            players: 3,
            hands,
            faults: vec![(kind, rng.gen_range(0..3))],
            at_dealt_ahead: true,
        }
    }

    pub fn has(&self, f: Fault) -> bool {
        self.faults.iter().any(|(k, _)| *k == f)
    }

    /// The command that plays this table again.
    pub fn replay(&self, soak_seed: u64, index: usize) -> String {
        format!(
            "SOAK_SEED={soak_seed} SOAK_FROM={index} SOAK_TABLES=1 cargo test --release --test \
             suite -- soak::every_game --nocapture"
        )
    }
}

/// What one table showed.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    /// Faults that struck, by kind.
    pub struck: BTreeMap<String, u64>,
    /// Failures found (empty: the table passed).
    pub failures: Vec<String>,
    pub wall: Duration,
    /// Timeouts and removals the table decided (honest seats held back beyond the allowance,
    /// or killed for long): allowed, but counted.
    pub removals: usize,
    pub events: u64,
    /// With [`Plan::at_dealt_ahead`]: the first proxy's count of forwarded events when the
    /// first event holding a token of a deck dealt with a showdown passed (the faults strike
    /// from there); `None` if none did.
    pub origin: Option<u64>,
    /// With [`Plan::at_dealt_ahead`]: Tolerance decks dealt with a showdown, as the seats'
    /// journals hold them.
    pub dealt_ahead: usize,
}

/// A relay the soak can restart on the same port, with or without its store.
struct Relay {
    relay: Option<EmbeddedRelay>,
    addr: SocketAddr,
    db: Option<PathBuf>,
}

impl Relay {
    async fn start(db: Option<PathBuf>) -> Relay {
        let relay = EmbeddedRelay::start(EmbeddedRelayConfig {
            db_dir: db.clone(),
            ..EmbeddedRelayConfig::default()
        })
        .await
        .expect("the relay starts");
        let addr = SocketAddr::from(([127, 0, 0, 1], relay.port()));
        Relay {
            relay: Some(relay),
            addr,
            db,
        }
    }

    fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }

    /// Down for `pause`, then up on the same port: with its store when it has one on disk.
    async fn restart(&mut self, pause: Duration) {
        if let Some(r) = self.relay.take() {
            r.shutdown().await;
        }
        tokio::time::sleep(pause).await;
        for _ in 0..50 {
            match EmbeddedRelay::start(EmbeddedRelayConfig {
                addr: self.addr,
                db_dir: self.db.clone(),
                ..EmbeddedRelayConfig::default()
            })
            .await
            {
                Ok(r) => {
                    self.relay = Some(r);
                    return;
                }
                // The port may take a moment to be free again.
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        panic!("the relay did not come back on {}", self.addr);
    }
}

/// A seat's process and where it writes its report.
struct Seat {
    home: PathBuf,
    report: PathBuf,
    skew: i64,
    proc: Option<Proc>,
}

fn spawn_seat(seat: &Seat, args: &[&str]) -> Proc {
    let mut c = super::cmd(&seat.home, args);
    c.env("TOLERANCE_REPORT", &seat.report)
        .env("TOLERANCE_CLOCK_SKEW", seat.skew.to_string());
    spawn_cmd(c)
}

fn spawn_cmd(c: std::process::Command) -> Proc {
    super::spawn_command(c)
}

/// The deadlines of a soak table: short, so that faults cost seconds, with a relay allowance
/// above the pauses the scheduler makes.
const TIMING: [&str; 8] = [
    "--move-secs",
    "4",
    "--crypto-secs",
    "6",
    "--relay-secs",
    "8",
    "--bank-secs",
    "4",
];

/// How long a table may go without a new event in any seat's journal, and without a relay taking
/// an event (closing clients hand a throttled relay the table's end for minutes), before it
/// counts as stuck.
/// A table that keeps moving is not stuck, however long it is: a solitaire race of a thousand
/// steps under a relay's limit of 60 events a minute takes many minutes (soak tables 26 and 27
/// were still playing, at step 146 and 84, when a fixed 300 s limit stopped them).
const TABLE_STALL: Duration = Duration::from_secs(120);
/// The longest any table may take, moving or not.
const TABLE_LIMIT: Duration = Duration::from_secs(1200);

/// Plays one table of `plan` and checks it.
pub async fn run_table(plan: &Plan, tag: &str) -> Outcome {
    let started = Instant::now();
    let mut out = Outcome::default();
    let dir = std::env::temp_dir().join(format!("tolerance-soak-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a soak directory");
    // Relay A keeps its events on disk, relay B in memory.
    let mut a = Relay::start(Some(dir.join("relay-a"))).await;
    let mut b = Relay::start(None).await;
    let mut rules = Rules {
        mark: plan.at_dealt_ahead.then(dealt_ahead_mark),
        ..Rules::default()
    };
    if plan.has(Fault::PageCap) {
        rules.max_stored = Some(40);
        *out.struck.entry("page cap".into()).or_default() += 1;
    }
    let pa = RelayProxy::start(&url(&a.url()), rules.clone())
        .await
        .expect("a proxy");
    let pb = RelayProxy::start(&url(&b.url()), rules)
        .await
        .expect("a proxy");
    let relays = [pa.url().to_string(), pb.url().to_string()];

    let mut rng = StdRng::seed_from_u64(plan.seed);
    let n = plan.players as usize;
    let mut seats: Vec<Seat> = (0..n)
        .map(|i| {
            let home = home(&format!("soak-{tag}"), &format!("p{i}"));
            Seat {
                report: dir.join(format!("report-{i}.json")),
                home,
                skew: 0,
                proc: None,
            }
        })
        .collect();
    if plan.has(Fault::ClockSkew) {
        seats[0].skew = 30;
        seats[n - 1].skew = -30;
        *out.struck.entry("clock skew".into()).or_default() += 1;
    }
    let npubs: Vec<String> = seats.iter().map(|s| player(&s.home)).collect();
    let mut host_args: Vec<String> = vec![
        "host".into(),
        "--game".into(),
        plan.game.clone(),
        "--seats".into(),
        plan.players.to_string(),
        "--hands".into(),
        plan.hands.to_string(),
        "--auto".into(),
        "--plain".into(),
        "--relay".into(),
        relays[0].clone(),
        "--relay".into(),
        relays[1].clone(),
    ];
    host_args.extend(TIMING.iter().map(|s| s.to_string()));
    for npub in &npubs[1..] {
        host_args.push("--invite".into());
        host_args.push(npub.clone());
    }
    let host_refs: Vec<&str> = host_args.iter().map(String::as_str).collect();
    seats[0].proc = Some(spawn_seat(&seats[0], &host_refs));
    let line = seats[0]
        .proc
        .as_ref()
        .expect("host")
        .line("tolerance join ", Duration::from_secs(60))
        .await;
    let naddr = super::naddr_of(&line);
    for seat in seats.iter_mut().skip(1) {
        let p = spawn_seat(seat, &["join", &naddr, "--auto", "--plain"]);
        seat.proc = Some(p);
    }

    // The faults, each when the first proxy has forwarded its count of events.
    let mut pending: Vec<(Fault, u64)> = plan
        .faults
        .iter()
        .copied()
        .filter(|(k, _)| !matches!(k, Fault::PageCap | Fault::ClockSkew))
        .collect();
    pending.sort_by_key(|(_, at)| *at);
    let mut resume_at: Option<(usize, Instant)> = None;
    let mut unreject_at: Option<Instant> = None;
    let mut b_wiped = false;
    // Where the faults' counts start: the table's start, or the first event a proxy passed that
    // holds a token of a deck dealt with a showdown.
    let mut origin = (!plan.at_dealt_ahead).then_some(0u64);
    let limit = Instant::now() + TABLE_LIMIT;
    let mut journals = 0;
    let mut moved = Instant::now();
    loop {
        let (sa, sb) = (pa.stats(), pb.stats());
        let forwarded = sa.events_forwarded;
        if origin.is_none() && sa.marked + sb.marked > 0 {
            origin = Some(forwarded);
            out.origin = origin;
        }
        while let Some((kind, _)) = pending
            .first()
            .copied()
            .filter(|(_, at)| origin.is_some_and(|o| forwarded >= o + *at))
        {
            pending.remove(0);
            *out.struck.entry(format!("{kind:?}")).or_default() += 1;
            match kind {
                Fault::ConnLimit => both(&pa, &pb, |r| r.window = Some(60)),
                Fault::IpLimit => both(&pa, &pb, |r| r.ip_window = Some(150)),
                Fault::Reject => {
                    both(&pa, &pb, |r| {
                        r.reject_events = Some("error: soak says no".into())
                    });
                    unreject_at = Some(Instant::now() + Duration::from_secs(4));
                }
                Fault::Delay => both(&pa, &pb, |r| r.delay = Duration::from_millis(150)),
                Fault::Reorder => both(&pa, &pb, |r| r.jitter = Duration::from_millis(400)),
                Fault::Duplicate => both(&pa, &pb, |r| r.duplicate = true),
                Fault::DropConnections => {
                    pa.drop_connections();
                }
                Fault::RestartKeeping => a.restart(Duration::from_secs(3)).await,
                Fault::RestartEmpty => {
                    b.restart(Duration::from_secs(1)).await;
                    b_wiped = true;
                }
                Fault::CloseSubscriptions => {
                    pb.close_subscriptions("soak: closed by the relay");
                }
                Fault::KillResume => {
                    // Only a client that has written its record of the table can resume it (one
                    // killed while still joining would join again), so the fault waits for one.
                    let recorded: Vec<usize> = (0..n)
                        .filter(|&i| has_table_record(&seats[i].home))
                        .collect();
                    if recorded.is_empty() {
                        *out.struck.entry(format!("{kind:?}")).or_default() -= 1;
                        let o = origin.unwrap_or(0);
                        pending.insert(0, (kind, forwarded + 1 - o));
                        break;
                    }
                    let victim = recorded[rng.gen_range(0..recorded.len())];
                    if let Some(mut p) = seats[victim].proc.take() {
                        let _ = p.child.kill();
                        let _ = p.child.wait();
                    }
                    let pause = Duration::from_secs(rng.gen_range(1..=12));
                    resume_at = Some((victim, Instant::now() + pause));
                }
                Fault::PageCap | Fault::ClockSkew => {}
            }
        }
        if unreject_at.is_some_and(|t| Instant::now() >= t) {
            both(&pa, &pb, |r| r.reject_events = None);
            unreject_at = None;
        }
        if let Some((victim, at)) = resume_at {
            if Instant::now() >= at {
                let p = spawn_seat(&seats[victim], &["resume", &naddr]);
                seats[victim].proc = Some(p);
                resume_at = None;
            }
        }
        let mut running = 0;
        for p in seats.iter_mut().filter_map(|s| s.proc.as_mut()) {
            if matches!(p.child.try_wait(), Ok(None)) {
                running += 1;
            }
        }
        if running == 0 && resume_at.is_none() {
            break;
        }
        let now_journals: u64 = seats.iter().map(|s| journal_bytes(&s.home)).sum::<u64>()
            + pa.stats().events_forwarded
            + pb.stats().events_forwarded;
        if now_journals != journals {
            journals = now_journals;
            moved = Instant::now();
        }
        let stalled = moved.elapsed() > TABLE_STALL;
        if stalled || Instant::now() > limit {
            out.failures.push(if stalled {
                format!(
                    "the table did not move for {} s (no seat's journal grew, no relay took an \
                     event)",
                    TABLE_STALL.as_secs()
                )
            } else {
                format!("the table did not end within {} s", TABLE_LIMIT.as_secs())
            });
            for (i, s) in seats.iter_mut().enumerate() {
                if let Some(mut p) = s.proc.take() {
                    out.failures.push(format!(
                        "seat {i} said: {} / {}",
                        p.lines.lock().unwrap().join(" | "),
                        p.stderr.lock().unwrap()
                    ));
                    // Reported above: a table that hangs must not stop the soak's other tables.
                    let _ = p.child.kill();
                    let _ = p.child.wait();
                }
            }
            break;
        }
        // Waiting for a showdown that deals, the faults must strike while its batch is on the
        // wire, not a hand later.
        let tick = if origin.is_none() { 10 } else { 100 };
        tokio::time::sleep(Duration::from_millis(tick)).await;
    }
    // Faults end with the table: the checks read the relays as they are.
    both(&pa, &pb, |r| *r = Rules::default());
    for (i, s) in seats.iter_mut().enumerate() {
        if let Some(p) = s.proc.take() {
            let (ok, stdout, stderr) = p.finish(Duration::from_secs(10)).await;
            if !ok {
                out.failures
                    .push(format!("seat {i}'s client failed: {stderr} {stdout}"));
            }
        }
    }
    if out.failures.is_empty() {
        check(tag, &seats, &naddr, &a, &b, b_wiped, &mut out).await;
    }
    if plan.at_dealt_ahead {
        out.dealt_ahead = dealt_ahead_decks(&seats);
    }
    out.wall = started.elapsed();
    drop((pa, pb));
    if let Some(r) = a.relay.take() {
        r.shutdown().await;
    }
    if let Some(r) = b.relay.take() {
        r.shutdown().await;
    }
    if out.failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
        for s in &seats {
            let _ = std::fs::remove_dir_all(&s.home);
        }
    }
    out
}

fn url(u: &str) -> nostr_sdk::prelude::RelayUrl {
    nostr_sdk::prelude::RelayUrl::parse(u).expect("a relay url")
}

fn both(a: &RelayProxy, b: &RelayProxy, f: impl Fn(&mut Rules)) {
    a.update_rules(&f);
    b.update_rules(&f);
}

/// `tolerance verify` of the table against `relays` only (the table named by its id, so the
/// naddr's relay hints add none), as its JSON report.
async fn verify(naddr: &str, relays: &[String], tag: &str) -> Result<Value, String> {
    let (id, _, _) = tolerance::wire::parse_table_ref(naddr)?;
    let h = home(&format!("soak-verify-{tag}"), &format!("{}", relays.len()));
    let mut args = vec!["verify".to_string(), id, "--json".into()];
    for r in relays {
        args.push("--relay".into());
        args.push(r.clone());
    }
    let out = tokio::task::spawn_blocking(move || {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        super::run(&h, &refs)
    })
    .await
    .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).map_err(|e| {
        format!(
            "verify printed no report ({e}): {text} {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

async fn check(
    tag: &str,
    seats: &[Seat],
    naddr: &str,
    a: &Relay,
    b: &Relay,
    b_wiped: bool,
    out: &mut Outcome,
) {
    let reports: Vec<(usize, Value)> = seats
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let text = std::fs::read_to_string(&s.report).ok()?;
            Some((i, serde_json::from_str(&text).ok()?))
        })
        .collect();
    if reports.len() != seats.len() {
        out.failures.push(format!(
            "{} of {} clients wrote a report",
            reports.len(),
            seats.len()
        ));
    }
    // Against both relays together, and against each that kept its whole log (the relay that
    // came back empty holds only what came after).
    let mut sets = vec![vec![a.url(), b.url()], vec![a.url()]];
    if !b_wiped {
        sets.push(vec![b.url()]);
    }
    for relays in sets {
        let v = match verify(naddr, &relays, tag).await {
            Ok(v) => v,
            Err(e) => {
                out.failures.push(e);
                continue;
            }
        };
        let label = relays.join(" + ");
        if v["finished"] != true || v["ok"] != true {
            out.failures.push(format!(
                "verify against {label}: finished {} ok {}: {}",
                v["finished"], v["ok"], v["problems"]
            ));
        }
        if !v["invariants"].is_null() {
            out.failures.push(format!(
                "verify against {label}: the game's invariants fail: {}",
                v["invariants"]
            ));
        }
        out.removals = v["verdicts"]
            .as_array()
            .map_or(0, |a| a.iter().filter(|x| x["kind"] != "finished").count());
        out.events = v["chain_events"].as_u64().unwrap_or(0);
        for (i, r) in &reports {
            if r["finished"] != true {
                out.failures
                    .push(format!("seat {i}'s client did not see the end"));
            }
            if r["violations"].as_array().is_some_and(|x| !x.is_empty()) {
                out.failures.push(format!(
                    "seat {i}'s client blamed an honest seat: {}",
                    r["violations"]
                ));
            }
            for (what, mine, theirs) in [
                ("verdicts", &r["verdicts"], &v["verdicts"]),
                ("game report", &r["report"], &v["report"]),
                ("chain events", &r["stats"]["chain"], &v["chain_events"]),
            ] {
                if mine != theirs {
                    out.failures.push(format!(
                        "seat {i}'s {what} differ from verify against {label}: {mine} against \
                         {theirs}"
                    ));
                }
            }
        }
    }
}

/// What the content of a log event holds when it carries a token of a Tolerance deck dealt with
/// a showdown (ids `DEALT_AHEAD | hand`, 1073741824 up: hands below 176).
fn dealt_ahead_mark() -> String {
    format!("\"deck\":{}", DEALT_AHEAD / 1000)
}

/// How many Tolerance decks dealt with a showdown the seats' journals name.
fn dealt_ahead_decks(seats: &[Seat]) -> usize {
    fn decks(v: &Value, found: &mut BTreeSet<u64>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match x.as_u64() {
                        Some(d) if k == "deck" && DeckId::try_from(d).is_ok_and(is_dealt_ahead) => {
                            found.insert(d);
                        }
                        _ => decks(x, found),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| decks(x, found)),
            _ => {}
        }
    }
    let mut found = BTreeSet::new();
    for s in seats {
        let Ok(dir) = std::fs::read_dir(s.home.join("tables")) else {
            continue;
        };
        for e in dir.filter_map(Result::ok) {
            let text = std::fs::read_to_string(e.path().join("events.jsonl")).unwrap_or_default();
            for line in text.lines() {
                let content = serde_json::from_str::<Value>(line)
                    .ok()
                    .and_then(|ev| ev["content"].as_str().map(str::to_string))
                    .and_then(|c| serde_json::from_str::<Value>(&c).ok());
                if let Some(c) = content {
                    decks(&c, &mut found);
                }
            }
        }
    }
    found.len()
}

/// The bytes of every table journal in a seat's home.
fn journal_bytes(home: &std::path::Path) -> u64 {
    std::fs::read_dir(home.join("tables"))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter_map(|e| e.path().join("events.jsonl").metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Whether a client's home holds its record of a table (what `resume` reads).
fn has_table_record(home: &std::path::Path) -> bool {
    std::fs::read_dir(home.join("tables"))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .any(|e| e.path().join("meta.json").is_file())
        })
        .unwrap_or(false)
}

/// What a soak of many tables showed.
#[derive(Debug, Default)]
pub struct Summary {
    pub tables: usize,
    /// Faults that struck, by kind, over every table.
    pub struck: BTreeMap<String, u64>,
    /// Each failing table: what failed and the command that plays it again.
    pub failed: Vec<String>,
    /// Timeouts and removals decided (allowed, counted).
    pub removals: usize,
    pub chain_events: u64,
    pub wall: Duration,
}

/// Plays tables `from..from + tables` of the soak seeded `seed`, `concurrency` at a time, and
/// prints a line per table.
pub async fn soak(seed: u64, from: usize, tables: usize, concurrency: usize) -> Summary {
    let started = std::time::Instant::now();
    let games: Vec<(String, u8, u8)> = tolerance::games::registry::all()
        .into_iter()
        .map(|g| (g.name.to_string(), g.min_players, g.max_players))
        .collect();
    let plans: Vec<(usize, Plan)> = (from..from + tables)
        .map(|i| (i, Plan::new(seed, i, &games)))
        .collect();
    let mut sum = Summary {
        tables,
        ..Summary::default()
    };
    // A table starts as soon as any other finishes, so one slow table holds up only its own slot.
    let mut waiting = plans.into_iter();
    let mut running = tokio::task::JoinSet::new();
    let mut failed = Vec::new();
    loop {
        while running.len() < concurrency.max(1) {
            let Some((i, plan)) = waiting.next() else {
                break;
            };
            running.spawn(async move {
                let out = run_table(&plan, &format!("t{i}")).await;
                (i, plan, out)
            });
        }
        let Some(done) = running.join_next().await else {
            break;
        };
        let (i, plan, out) = done.expect("a soak table task");
        for (k, n) in &out.struck {
            *sum.struck.entry(k.clone()).or_default() += n;
        }
        sum.removals += out.removals;
        sum.chain_events += out.events;
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
            failed.push((
                i,
                format!(
                    "table {i} (seed {}, {} at {} seats, faults {:?}):\n  {}\n  replay: {}",
                    plan.seed,
                    plan.game,
                    plan.players,
                    plan.faults,
                    out.failures.join("\n  "),
                    plan.replay(seed, i)
                ),
            ));
        }
    }
    failed.sort_by_key(|(i, _)| *i);
    sum.failed = failed.into_iter().map(|(_, f)| f).collect();
    sum.wall = started.elapsed();
    sum
}

/// What the faults at showdowns that deal showed, for one kind of fault.
#[derive(Debug)]
pub struct AtDealtAhead {
    pub kind: Fault,
    /// Tables played: the first with such a showdown ends the kind's run.
    pub tables: u64,
    /// Whether the fault struck at such a showdown.
    pub struck: bool,
    /// Decks dealt with a showdown over those tables.
    pub dealt_ahead: usize,
    /// What failed, with the command that plays the kind again.
    pub failures: Vec<String>,
}

/// For each of `kinds`: Tolerance tables of `hands` hands (see [`Plan::at_dealt_ahead`]) until
/// one has a showdown that deals the next hand and the fault struck there, at most `tries`
/// tables; `concurrency` kinds at a time. Every table played is checked as in [`soak`].
pub async fn at_dealt_ahead(
    seed: u64,
    kinds: &[Fault],
    hands: u32,
    tries: u64,
    concurrency: usize,
) -> Vec<AtDealtAhead> {
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
    let mut running = tokio::task::JoinSet::new();
    for &kind in kinds {
        let gate = gate.clone();
        running.spawn(async move {
            let _turn = gate.acquire_owned().await.expect("the gate stays open");
            let mut sum = AtDealtAhead {
                kind,
                tables: 0,
                struck: false,
                dealt_ahead: 0,
                failures: Vec::new(),
            };
            for attempt in 0..tries {
                let plan = Plan::at_dealt_ahead(seed, kind, attempt, hands);
                let out = run_table(&plan, &format!("d{kind:?}{attempt}")).await;
                sum.tables += 1;
                sum.dealt_ahead += out.dealt_ahead;
                sum.struck = out.origin.is_some()
                    && out.struck.get(&format!("{kind:?}")).is_some_and(|n| *n > 0);
                eprintln!(
                    "dealt-ahead soak, {kind:?} try {attempt}: {} s, {} chain events, {} decks \
                     dealt with a showdown, fault {}{}",
                    out.wall.as_secs(),
                    out.events,
                    out.dealt_ahead,
                    match out.origin {
                        Some(o) => format!("struck from event {o}"),
                        None => "did not strike".into(),
                    },
                    if out.failures.is_empty() {
                        ""
                    } else {
                        " — FAILED"
                    }
                );
                if !out.failures.is_empty() {
                    sum.failures.push(format!(
                        "{kind:?} try {attempt} (seed {}):\n  {}\n  replay: SOAK_SEED={seed} \
                         SOAK_KINDS={kind:?} cargo test --release --test suite -- \
                         soak::faults_at_a_showdown --nocapture",
                        plan.seed,
                        out.failures.join("\n  ")
                    ));
                    break;
                }
                if sum.struck {
                    break;
                }
            }
            sum
        });
    }
    let mut all = Vec::new();
    while let Some(done) = running.join_next().await {
        all.push(done.expect("a dealt-ahead soak task"));
    }
    all.sort_by_key(|s| s.kind);
    all
}

/// A variable of the environment as a number.
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
