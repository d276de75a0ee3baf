//! A table of bots over real relays, for any game: every seat is its own key, its own relay
//! connections and its own session running the whole protocol; afterwards a fresh spectator
//! checks the relays' copy of the log. Used by `tolerance demo`, `tolerance play` (seat 0 is a
//! person) and the end-to-end tests. Every game's summary has the same fields.

use super::error::TableError;
#[cfg(any(test, feature = "test-support"))]
use super::runner::Tamper;
use super::runner::{run_client, BotDecider, ClientReport, Decider, OnUpdate, RunConfig};
use crate::bots::BotLevel;
use crate::games::registry::{SetupOptions, TableGame};
use crate::net::pool::{PoolConfig, RelayPool, RelayStats};
use crate::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use crate::wire::{self, Deadlines, TableSpec, VERSION};
use nostr_sdk::prelude::*;
use rand::rngs::{OsRng, StdRng};
use rand::{RngCore, SeedableRng};
use serde::Serialize;
use std::time::{Duration, Instant};

pub struct DemoOptions {
    pub setup: SetupOptions,
    /// Relays to use; empty starts the embedded relay on loopback.
    pub relays: Vec<String>,
    pub deadlines: Deadlines,
    pub idle: Duration,
    pub bot_level: BotLevel,
    /// The players' keys by seat; empty generates fresh ones.
    pub keys: Vec<Keys>,
    /// Per seat: a tampering hook (tests of misbehaving peers).
    #[cfg(any(test, feature = "test-support"))]
    pub tamper: Vec<Option<Tamper>>,
    /// Check the relays' copy of the log with a fresh spectator afterwards.
    pub verify_after: bool,
    /// How seat 0's client names the seats ("you", "bot 1"...); empty: "seat N".
    pub names: Vec<String>,
    /// How every client treats the relays (pacing).
    pub pool: PoolConfig,
    /// Seats make their next shuffle on a deck they are still checking (§5.10).
    pub speculate: bool,
    /// Per seat: seconds its machine's clock reads off (tests of clock skew; empty: none).
    pub clock_skews: Vec<i64>,
    /// The table's protocol version: this build's (`wire::VERSION`), or an older one it still
    /// plays, to measure one beside the other (`TABLE_BENCH_VERSION`).
    pub version: u8,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            setup: SetupOptions {
                players: 4,
                hands: Some(1),
                ..SetupOptions::default()
            },
            relays: Vec::new(),
            deadlines: Deadlines::default(),
            idle: Duration::from_secs(120),
            bot_level: BotLevel::default(),
            keys: Vec::new(),
            #[cfg(any(test, feature = "test-support"))]
            tamper: Vec::new(),
            verify_after: true,
            names: Vec::new(),
            pool: PoolConfig::default(),
            speculate: true,
            clock_skews: Vec::new(),
            version: VERSION,
        }
    }
}

/// The summary of a demo, the same fields for every game (`tolerance demo --json`).
#[derive(Debug, Clone, Serialize)]
pub struct DemoSummary {
    pub game: String,
    pub players: u8,
    pub table: String,
    /// The table as an naddr (with relay hints), for `verify` and `watch`.
    pub naddr: String,
    pub relays: Vec<String>,
    /// Every client checked every signature, proof and rule and found no violation, every
    /// client reached the end, all agree, and a fresh spectator reading the relays agrees too.
    pub verified: bool,
    pub clients_agree: bool,
    pub finished: bool,
    pub violations: usize,
    /// What the table decided: timeouts, removals, the end.
    pub verdicts: Vec<String>,
    pub result: String,
    /// Log events and their bytes, as one client received them.
    pub events: u64,
    pub bytes: u64,
    /// Events on the table's chain up to its end step: what `verify` counts as `chain_events`.
    pub chain_events: u64,
    /// Relay passes: steps completed in sequence.
    pub passes: u64,
    pub wall_ms: u128,
    /// CPU time of this whole process (every client), if the system tells.
    pub cpu_ms: Option<u64>,
    /// The game's own figures (hands, stacks, winner...).
    pub report: serde_json::Value,
    /// What each relay did with the clients' traffic, summed over every client.
    pub relay_figures: Vec<RelayStats>,
}

/// Sums the clients' figures relay by relay, in the order of `relays`.
pub fn relay_figures(relays: &[String], reports: &[&ClientReport]) -> Vec<RelayStats> {
    let mut out: Vec<RelayStats> = Vec::new();
    for r in reports {
        for s in &r.relays {
            let at = match out.iter().position(|o| o.url == s.url) {
                Some(i) => i,
                None => {
                    out.push(RelayStats {
                        url: s.url.clone(),
                        ..RelayStats::default()
                    });
                    out.len() - 1
                }
            };
            let o = &mut out[at];
            o.accepted += s.accepted;
            o.rejected += s.rejected;
            for (reason, n) in &s.reasons {
                *o.reasons.entry(reason.clone()).or_default() += n;
            }
            o.rate_limited += s.rate_limited;
            o.paced += s.paced;
            o.reconnects += s.reconnects;
            o.subscriptions_closed += s.subscriptions_closed;
            o.queued += s.queued;
            if o.info.is_none() {
                o.info = s.info.clone();
            }
        }
    }
    // Relays as given first (URLs as nostr-sdk writes them may differ by a slash).
    out.sort_by_key(|o| {
        relays
            .iter()
            .position(|r| r.trim_end_matches('/') == o.url.trim_end_matches('/'))
            .unwrap_or(usize::MAX)
    });
    out
}

pub struct DemoRun {
    pub summary: DemoSummary,
    pub reports: Vec<Result<ClientReport, TableError>>,
    pub host: PublicKey,
    pub table: String,
}

/// This process's CPU time so far (Linux), in milliseconds.
pub fn process_cpu_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks * 10)
}

/// Publishes a table announcement with `seats` seated in order, hosted by `host`. Returns the
/// table id.
pub async fn announce(
    host: &Keys,
    relays: &[String],
    game: &str,
    setup: serde_json::Value,
    seats: &[PublicKey],
    deadlines: Deadlines,
) -> Result<String, TableError> {
    let pool = RelayPool::connect(host.clone(), relays, PoolConfig::default()).await?;
    let table = announce_on(&pool, game, setup, seats, deadlines).await;
    pool.shutdown().await;
    table
}

/// Publishes a table announcement on `pool`, hosted by the pool's key; the pool stays open.
/// Returns the table id.
pub async fn announce_on(
    pool: &RelayPool,
    game: &str,
    setup: serde_json::Value,
    seats: &[PublicKey],
    deadlines: Deadlines,
) -> Result<String, TableError> {
    announce_version_on(pool, VERSION, game, setup, seats, deadlines).await
}

/// [`announce_on`] for a table of protocol `version` (one of `wire::READS`).
async fn announce_version_on(
    pool: &RelayPool,
    version: u8,
    game: &str,
    setup: serde_json::Value,
    seats: &[PublicKey],
    deadlines: Deadlines,
) -> Result<String, TableError> {
    let mut id = [0u8; 32];
    OsRng.fill_bytes(&mut id);
    let table = hex::encode(id);
    let spec = TableSpec {
        v: version,
        game: game.to_string(),
        table: table.clone(),
        setup,
        seats: seats.iter().map(|k| k.to_hex()).collect(),
        deadlines,
        lobby: None,
        pow: super::lobby::table_pow(pool)?,
    };
    pool.publish_mined(wire::table_event(&spec), spec.pow, false)
        .await?;
    Ok(table)
}

/// Announces a seated table on the host's `pool` and reads it back as the seats will (with its
/// time); on failure the pool is closed.
async fn announce_and_read(
    pool: &RelayPool,
    version: u8,
    game: &str,
    setup: serde_json::Value,
    seats: &[PublicKey],
    deadlines: Deadlines,
) -> Result<(String, TableSpec, u64), TableError> {
    let read = async {
        let table = announce_version_on(pool, version, game, setup, seats, deadlines).await?;
        let host = pool.keys().public_key();
        let (spec, start) =
            super::runner::fetch_table(pool, &host, &table, Duration::from_secs(10)).await?;
        Ok((table, spec, start))
    }
    .await;
    if read.is_err() {
        pool.shutdown().await;
    }
    read
}

/// Runs a whole table of `G` and checks that every client agrees. Seat 0 may be decided by
/// `seat0` (a person) and watched through `seat0_update`.
pub async fn run_demo<G: TableGame>(
    opts: DemoOptions,
    seat0: Option<Box<dyn Decider<G>>>,
    seat0_update: Option<OnUpdate<G>>,
) -> Result<DemoRun, TableError> {
    // The tampering hooks are taken out of it, one per seat.
    #[cfg(any(test, feature = "test-support"))]
    let mut opts = opts;
    let started = Instant::now();
    let players = opts.setup.players;
    let setup = G::setup(&opts.setup).map_err(TableError::Setup)?;
    let (min, max) = G::seats_for(&setup);
    if !(min..=max).contains(&players) {
        return Err(TableError::Setup(format!(
            "{} seats {min} to {max} players, not {players}",
            G::TITLE
        )));
    }
    if !opts.keys.is_empty() && opts.keys.len() != players as usize {
        return Err(TableError::Setup("one key per player".into()));
    }
    let _embedded;
    let relays = if opts.relays.is_empty() {
        let r = EmbeddedRelay::start(EmbeddedRelayConfig::default()).await?;
        let url = r.url().to_string();
        _embedded = Some(r);
        vec![url]
    } else {
        _embedded = None;
        opts.relays.clone()
    };
    let keys: Vec<Keys> = if opts.keys.is_empty() {
        (0..players).map(|_| Keys::generate()).collect()
    } else {
        opts.keys.clone()
    };
    let seats: Vec<PublicKey> = keys.iter().map(|k| k.public_key()).collect();
    let host = keys[0].clone();
    let setup_json = serde_json::to_value(&setup).map_err(|e| TableError::Setup(e.to_string()))?;
    // The host's one pool: it announces, reads the table back and plays seat 0.
    let host_pool = RelayPool::connect(host.clone(), &relays, opts.pool.clone()).await?;
    let (table, spec, start) = announce_and_read(
        &host_pool,
        opts.version,
        G::NAME,
        setup_json,
        &seats,
        opts.deadlines,
    )
    .await?;
    let mut host_pool = Some(host_pool);
    let mut seat0 = seat0;
    let mut seat0_update = seat0_update;
    let mut tasks = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let decider: Box<dyn Decider<G>> = match (i, seat0.take()) {
            (0, Some(d)) => d,
            _ => Box::new(BotDecider(G::bot(
                opts.bot_level,
                StdRng::from_rng(OsRng).map_err(|e| TableError::Setup(e.to_string()))?,
            ))),
        };
        let cfg = RunConfig::<G> {
            keys: k.clone(),
            relays: relays.clone(),
            host: host.public_key(),
            spec: spec.clone(),
            start,
            decider,
            journal: None,
            on_update: if i == 0 { seat0_update.take() } else { None },
            idle: opts.idle,
            #[cfg(any(test, feature = "test-support"))]
            tamper: opts.tamper.get_mut(i).and_then(Option::take),
            pool: opts.pool.clone(),
            speculate: opts.speculate,
            clock_skew: opts.clock_skews.get(i).copied().unwrap_or(0),
            names: if i == 0 {
                opts.names.clone()
            } else {
                Vec::new()
            },
        };
        tasks.push(match host_pool.take() {
            Some(pool) => tokio::spawn(super::runner::run_client_on(pool, cfg)),
            None => tokio::spawn(run_client(cfg)),
        });
    }
    let mut reports = Vec::new();
    for t in tasks {
        // A client task that panicked is a bug of ours; its seat's report says so.
        reports.push(t.await.unwrap_or_else(|e| {
            Err(TableError::Setup(format!(
                "the client stopped unexpectedly: {e}"
            )))
        }));
    }
    let ok: Vec<&ClientReport> = reports.iter().filter_map(|r| r.as_ref().ok()).collect();
    let clients_agree = ok.len() == reports.len()
        && ok
            .windows(2)
            .all(|w| w[0].verdicts == w[1].verdicts && w[0].public == w[1].public);
    let violations: usize = ok.iter().map(|r| r.violations.len()).sum();
    let finished = ok.len() == reports.len() && ok.iter().all(|r| r.finished);
    let naddr = wire::table_naddr(&host.public_key(), &table, &relays);
    let late_agrees = if opts.verify_after && finished {
        match super::verify::verify_table(&relays, &naddr).await {
            Ok(v) => v.ok && v.finished && ok.first().is_some_and(|r| r.verdicts == v.verdicts),
            Err(_) => false,
        }
    } else {
        !opts.verify_after
    };
    let first = ok.first();
    let figures = relay_figures(&relays, &ok);
    let summary = DemoSummary {
        game: G::NAME.to_string(),
        players,
        table: table.clone(),
        naddr,
        relays,
        verified: clients_agree && violations == 0 && finished && late_agrees,
        clients_agree,
        finished,
        violations,
        verdicts: first
            .map(|r| r.verdicts.iter().map(super::verify::verdict_text).collect())
            .unwrap_or_default(),
        result: first.map(|r| r.result.clone()).unwrap_or_default(),
        events: first.map_or(0, |r| r.stats.events),
        chain_events: first.map_or(0, |r| r.stats.chain),
        bytes: first.map_or(0, |r| r.stats.bytes),
        passes: first.map_or(0, |r| r.stats.passes),
        wall_ms: started.elapsed().as_millis(),
        cpu_ms: process_cpu_ms(),
        report: first.map(|r| r.report.clone()).unwrap_or_default(),
        relay_figures: figures,
    };
    Ok(DemoRun {
        summary,
        reports,
        host: host.public_key(),
        table,
    })
}
