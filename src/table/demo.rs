//! A table of bots over real relays: every bot is its own key, its own relay connections and its
//! own session, running the full protocol. Used by `tolerance demo`, `tolerance play` and the
//! end-to-end tests.

use super::runner::{run_client, ClientConfig, ClientReport, Decider, Tamper};
use crate::bots::BotLevel;
use crate::games::tolerance::Variant;
use crate::net::pool::{PoolConfig, RelayPool};
use crate::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use crate::wire::{self, Deadlines, TableSpec, VERSION};
use nostr_sdk::prelude::*;
use rand::rngs::{OsRng, StdRng};
use rand::{RngCore, SeedableRng};
use serde::Serialize;
use std::time::{Duration, Instant};

pub struct DemoOptions {
    pub players: u8,
    /// Hands to play; `None` plays until the variant's style ends the table.
    pub hands: Option<u64>,
    /// Relays to use; empty starts the embedded relay on loopback.
    pub relays: Vec<String>,
    pub variant: Variant,
    pub deadlines: Deadlines,
    pub idle_timeout: Duration,
    /// Per seat: a tampering hook (tests of misbehaving peers).
    pub tamper: Vec<Option<Tamper>>,
    /// Seat 0 is a person, through these channels (used by `tolerance play`).
    pub human: Option<Decider>,
    /// The players' keys by seat; empty generates fresh ones.
    pub keys: Vec<Keys>,
    /// How well the bots play.
    pub bot_level: BotLevel,
    /// Live output of seat 0's client (the person's table in `tolerance play`).
    pub seat0_view: Option<super::runner::OnView>,
    pub seat0_progress: Option<super::runner::OnProgress>,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            players: 4,
            hands: Some(1),
            relays: Vec::new(),
            variant: Variant::default(),
            deadlines: Deadlines::default(),
            idle_timeout: Duration::from_secs(120),
            tamper: Vec::new(),
            human: None,
            keys: Vec::new(),
            bot_level: BotLevel::default(),
            seat0_view: None,
            seat0_progress: None,
        }
    }
}

/// One finished hand, as `tolerance demo --json` prints it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct HandLine {
    pub table: String,
    #[serde(flatten)]
    pub hand: super::HandSummary,
}

/// The summary line of `tolerance demo --json`.
#[derive(Debug, Clone, Serialize)]
pub struct DemoSummary {
    pub players: u8,
    pub hands: u64,
    pub table: String,
    /// The table as an naddr (with relay hints), for `verify` and `watch`.
    pub naddr: String,
    pub relays: Vec<String>,
    pub chips_start_total: u64,
    pub chips_end_total: u64,
    /// Every client re-checked every signature, proof and rule, found no violation, and all
    /// clients agree on every hand.
    pub verified: bool,
    pub clients_agree: bool,
    pub violations: usize,
    pub events: u64,
    pub bytes: u64,
    /// Relay passes in sequence per hand: each protocol step (a parallel batch of key shares,
    /// tokens or dice values counts once; every shuffle and every move counts once).
    pub sequential_hops_per_hand: f64,
    pub wall_ms: u128,
    pub final_stacks: Vec<Option<u64>>,
}

pub struct DemoRun {
    pub summary: DemoSummary,
    pub reports: Vec<Result<ClientReport, String>>,
    pub host: PublicKey,
    pub table: String,
}

/// Publishes a table announcement for `keys` seated in order, hosted by `host`.
pub async fn announce(
    host: &Keys,
    relays: &[String],
    seats: &[PublicKey],
    variant: Variant,
    hands: Option<u64>,
    deadlines: Deadlines,
) -> Result<String, String> {
    let mut id = [0u8; 32];
    OsRng.fill_bytes(&mut id);
    let table = hex::encode(id);
    let spec = TableSpec {
        v: VERSION,
        game: "tolerance".into(),
        table: table.clone(),
        variant,
        seats: seats.iter().map(|k| k.to_hex()).collect(),
        hands,
        deadlines,
        lobby: None,
    };
    let pool = RelayPool::connect(host.clone(), relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let ev = wire::table_event(&spec)
        .sign_with_keys(host)
        .map_err(|e| e.to_string())?;
    pool.publish(&ev).await.map_err(|e| e.to_string())?;
    pool.shutdown().await;
    Ok(table)
}

/// Runs a whole table of clients and checks that they agree.
pub async fn run_demo(
    mut opts: DemoOptions,
    mut on_hand_line: impl FnMut(String) + Send + 'static,
) -> Result<DemoRun, String> {
    let started = Instant::now();
    if !(2..=opts.variant.seats).contains(&opts.players) {
        return Err(format!(
            "a table needs 2 to {} players for this variant, not {}",
            opts.variant.seats, opts.players
        ));
    }
    if !opts.keys.is_empty() && opts.keys.len() != opts.players as usize {
        return Err("one key per player".into());
    }
    let _embedded;
    let relays = if opts.relays.is_empty() {
        let r = EmbeddedRelay::start(EmbeddedRelayConfig::default())
            .await
            .map_err(|e| e.to_string())?;
        let url = r.url().to_string();
        _embedded = Some(r);
        vec![url]
    } else {
        _embedded = None;
        opts.relays.clone()
    };
    let keys: Vec<Keys> = if opts.keys.is_empty() {
        (0..opts.players).map(|_| Keys::generate()).collect()
    } else {
        opts.keys.clone()
    };
    let seats: Vec<PublicKey> = keys.iter().map(|k| k.public_key()).collect();
    let host = keys[0].clone();
    let table = announce(
        &host,
        &relays,
        &seats,
        opts.variant.clone(),
        opts.hands,
        opts.deadlines,
    )
    .await?;
    let start_total = opts.variant.starting_stack * opts.players as u64;
    let mut tasks = Vec::new();
    let (line_tx, mut line_rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    for (i, k) in keys.iter().enumerate() {
        let decider = if i == 0 && opts.human.is_some() {
            opts.human.take().expect("checked")
        } else {
            Decider::Bot(
                opts.bot_level
                    .bot(StdRng::from_rng(OsRng).map_err(|e| e.to_string())?),
            )
        };
        let tx = line_tx.clone();
        let table_id = table.clone();
        let on_hand: Option<super::runner::OnHand> = if i == 0 {
            Some(Box::new(move |h: &super::HandSummary| {
                let line = HandLine {
                    table: table_id.clone(),
                    hand: h.clone(),
                };
                let _ = tx.send(serde_json::to_string(&line).expect("serialisable"));
            }))
        } else {
            None
        };
        let cfg = ClientConfig {
            keys: k.clone(),
            relays: relays.clone(),
            host: host.public_key(),
            table: table.clone(),
            decider,
            idle_timeout: opts.idle_timeout,
            tamper: opts.tamper.get_mut(i).and_then(Option::take),
            on_hand,
            journal: None,
            on_view: if i == 0 { opts.seat0_view.take() } else { None },
            on_progress: if i == 0 {
                opts.seat0_progress.take()
            } else {
                None
            },
        };
        tasks.push(tokio::spawn(run_client(cfg)));
    }
    drop(line_tx);
    let printer = tokio::spawn(async move {
        while let Some(l) = line_rx.recv().await {
            on_hand_line(l);
        }
    });
    let mut reports = Vec::new();
    for t in tasks {
        reports.push(t.await.map_err(|e| e.to_string())?);
    }
    let _ = printer.await;
    let ok: Vec<&ClientReport> = reports.iter().filter_map(|r| r.as_ref().ok()).collect();
    let clients_agree = ok.len() == reports.len()
        && ok
            .windows(2)
            .all(|w| w[0].hands == w[1].hands && w[0].final_stacks == w[1].final_stacks);
    let violations: usize = ok.iter().map(|r| r.violations.len()).sum();
    let first = ok.first();
    // Chips still at the table plus chips that left it with forfeiting players.
    let chips_end_total = first
        .map(|r| r.final_stacks.iter().flatten().sum::<u64>() + r.chips_out)
        .unwrap_or(0);
    let hands = first.map_or(0, |r| r.hands.len() as u64);
    let events: u64 = first.map_or(0, |r| r.stats.events);
    let bytes: u64 = first.map_or(0, |r| r.stats.bytes);
    let summary = DemoSummary {
        players: opts.players,
        hands,
        table: table.clone(),
        naddr: wire::table_naddr(&host.public_key(), &table, &relays),
        relays,
        chips_start_total: start_total,
        chips_end_total,
        verified: clients_agree
            && violations == 0
            && ok.iter().all(|r| r.finished)
            && chips_end_total == start_total,
        clients_agree,
        violations,
        events,
        bytes,
        sequential_hops_per_hand: if hands > 0 {
            (first.map_or(0, |r| r.stats.passes) as f64) / hands as f64
        } else {
            0.0
        },
        wall_ms: started.elapsed().as_millis(),
        final_stacks: first.map(|r| r.final_stacks.clone()).unwrap_or_default(),
    };
    Ok(DemoRun {
        summary,
        reports,
        host: host.public_key(),
        table,
    })
}
