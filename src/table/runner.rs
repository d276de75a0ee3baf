//! Drives one client over real relays: its own key, its own relay connections, its own
//! [`Session`]. Crypto runs on blocking threads, never on the async network task.

use super::journal::{signed_key, Journal};
use super::old_session::{Await, HandSummary, Session, Stats, Violation};
use crate::bots::Bot;
use crate::engine::Seat;
use crate::games::tolerance::{Action, Hand, HandView};
use crate::net::pool::{PoolConfig, RelayPool};
use crate::wire::{self, Body, Payload, TableSpec};
use nostr_sdk::prelude::*;
use serde::Serialize;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Who makes this seat's decisions.
pub enum Decider {
    Bot(Box<dyn Bot<Hand>>),
    /// A person: the runner sends the view and legal moves, and waits for a move back.
    Human {
        ask: mpsc::UnboundedSender<(HandView, Vec<Action>)>,
        answer: mpsc::UnboundedReceiver<Action>,
    },
    /// A spectator or verifier.
    Watch,
}

/// What a client saw and checked by the end.
#[derive(Debug, Clone, Serialize)]
pub struct ClientReport {
    pub seat: Option<Seat>,
    pub pubkey: String,
    pub hands: Vec<HandSummary>,
    pub stats: Stats,
    pub violations: Vec<Violation>,
    pub final_stacks: Vec<Option<u64>>,
    /// Chips that left the table with players who forfeited (or cashed out).
    pub chips_out: u64,
    pub finished: bool,
    pub published: u64,
}

/// Optional behaviour for tests of misbehaving peers: rewrites or drops this client's outgoing
/// payloads. Honest clients use `None`.
pub type Tamper = Box<dyn FnMut(&mut Payload) -> TamperAction + Send>;

pub enum TamperAction {
    Send,
    Drop,
    /// Publish late, after this pause (a slow or stalling player).
    Delay(Duration),
    /// Publish this extra event too (already signed), e.g. a fork.
    SendAlso(Box<Event>),
}

/// Callback for each finished hand.
pub type OnHand = Box<dyn FnMut(&HandSummary) + Send>;

pub struct ClientConfig {
    pub keys: Keys,
    pub relays: Vec<String>,
    pub host: PublicKey,
    pub table: String,
    pub decider: Decider,
    /// Give up when nothing happens for this long.
    pub idle_timeout: Duration,
    pub tamper: Option<Tamper>,
    /// Called with each finished hand (for live output).
    pub on_hand: Option<OnHand>,
    /// Called with this client's view after each batch of events (spectators' live output).
    pub on_view: Option<OnView>,
    /// The local record that makes a crash resumable (secrets, own signed events, the log).
    /// With one that already holds events, the client resumes where it stopped.
    pub journal: Option<Journal>,
    /// Called whenever what the protocol waits for changes (interfaces' status lines).
    pub on_progress: Option<OnProgress>,
}

/// Callback for the current view.
pub type OnView = Box<dyn FnMut(&HandView) + Send>;

/// What the protocol is waiting for, for a person watching the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub hand: u64,
    pub awaiting: Await,
    /// Seats taking part in this hand's protocol, in protocol order (ascending seats).
    pub participants: Vec<Seat>,
    /// How long the awaited step may take before the others vote it out.
    pub deadline: Duration,
    pub relays_connected: usize,
    pub relays_total: usize,
}

/// Callback for protocol progress.
pub type OnProgress = Box<dyn FnMut(&Progress) + Send>;

/// Fetches and checks a table announcement from the relays.
pub async fn fetch_table(
    pool: &RelayPool,
    host: &PublicKey,
    table: &str,
    timeout: Duration,
) -> Result<TableSpec, String> {
    let filter = Filter::new()
        .kind(Kind::from(wire::KIND_TABLE))
        .author(*host)
        .identifier(table);
    let deadline = Instant::now() + timeout;
    loop {
        let events = pool
            .fetch(vec![filter.clone()], Duration::from_secs(2))
            .await
            .map_err(|e| e.to_string())?;
        if let Some(ev) = latest(&events) {
            let spec = wire::parse_table(ev).map_err(|e| e.to_string())?;
            super::lobby::check_seated(pool, host, &spec).await?;
            return Ok(spec);
        }
        if Instant::now() > deadline {
            return Err(format!(
                "table {table} by {host} was not found on the relays"
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The current version of an addressable event: the newest, ties broken by the lowest id as
/// relays do.
pub fn latest(events: &[Event]) -> Option<&Event> {
    events
        .iter()
        .max_by(|a, b| a.created_at.cmp(&b.created_at).then(b.id.cmp(&a.id)))
}

/// Signs (or, for a step this client already signed before a restart, reuses) and publishes
/// one payload; the event is in the journal before any relay sees it.
async fn publish(
    pool: &RelayPool,
    keys: &Keys,
    host: &PublicKey,
    payload: &Payload,
    journal: Option<&mut Journal>,
) -> Result<Event, String> {
    let recorded = journal
        .as_ref()
        .and_then(|j| signed_key(payload).and_then(|k| j.signed(&k).cloned()));
    let event = match recorded {
        Some(ev) => ev,
        None => {
            let ev = wire::log_event(host, payload)
                .sign_with_keys(keys)
                .map_err(|e| e.to_string())?;
            if let Some(j) = journal {
                j.record(&ev)?;
            }
            ev
        }
    };
    publish_event(pool, &event, payload.body.name()).await?;
    Ok(event)
}

/// Publishes with a few retries: a relay that blinks must not cost the seat its step.
pub(crate) async fn publish_event(
    pool: &RelayPool,
    event: &Event,
    what: &str,
) -> Result<(), String> {
    let mut last = String::new();
    for attempt in 0..5 {
        match pool.publish(event).await {
            Ok(_) => return Ok(()),
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
    }
    Err(format!("no relay accepted our {what} event: {last}"))
}

/// Runs a client until the table ends (or nothing happens for `idle_timeout`).
pub async fn run_client(mut cfg: ClientConfig) -> Result<ClientReport, String> {
    let pool = RelayPool::connect(cfg.keys.clone(), &cfg.relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let spec = fetch_table(&pool, &cfg.host, &cfg.table, Duration::from_secs(10)).await?;
    if spec.game != "tolerance" {
        return Err(format!(
            "table {} is a {} table; this client follows and verifies Tolerance tables only",
            cfg.table, spec.game
        ));
    }
    let me = spec
        .seats
        .iter()
        .position(|s| *s == cfg.keys.public_key().to_hex())
        .map(|s| s as Seat);
    if me.is_none() && !matches!(cfg.decider, Decider::Watch) {
        return Err(format!(
            "{} holds no seat at table {}",
            cfg.keys.public_key().to_bech32().unwrap_or_default(),
            cfg.table
        ));
    }
    let mut sub = pool
        .subscribe(vec![wire::log_filter(&cfg.host, &cfg.table)])
        .await
        .map_err(|e| e.to_string())?;
    let host = cfg.host;
    let mut journal = cfg.journal.take();
    let restored = match &journal {
        Some(j) => j.load_secrets()?,
        None => Default::default(),
    };
    let replay: Vec<Event> = journal.as_ref().map_or(Vec::new(), |j| j.events().to_vec());
    let resuming = !replay.is_empty();
    let mut session = tokio::task::spawn_blocking(move || {
        let mut s = Session::resume(spec, host, me, restored)?;
        // Replay what this client had handled before it stopped; what it produces on the way
        // is matched against its recorded events when the outbox is sent.
        for ev in &replay {
            s.handle(ev);
        }
        Ok::<_, String>(s)
    })
    .await
    .map_err(|e| e.to_string())??;
    if resuming {
        // The crash may have come between recording an event and a relay accepting it.
        let own = journal.as_ref().map_or(Vec::new(), |j| j.own_events());
        for ev in &own {
            publish_event(&pool, ev, "recorded").await?;
        }
        if debug() {
            eprintln!(
                "[{me:?}] resumed at {:?}, republished {}",
                session.position(),
                own.len()
            );
        }
    }
    let mut published = 0u64;
    let mut last_progress = Instant::now();
    // Deadlines are local: each client times the step from when it saw it open.
    let mut position = session.position();
    let mut step_opened = Instant::now();
    let mut next_vote: Option<Instant> = None;
    // Hands finished before a restart were reported then.
    let mut hands_reported = if resuming { session.hands.len() } else { 0 };
    let mut last_progress_sent: Option<Progress> = None;
    let mut relays_checked: Option<(Instant, usize)> = None;
    loop {
        // Secrets first: the key-share event about to be sent commits to them.
        if let Some((hand, secrets)) = session.take_fresh_secrets() {
            if let Some(j) = journal.as_ref() {
                j.save_secrets(hand, &secrets)?;
            }
        }
        // Send what the session owes.
        for mut payload in session.take_outbox() {
            let extra = match cfg.tamper.as_mut().map(|t| t(&mut payload)) {
                Some(TamperAction::Drop) => continue,
                Some(TamperAction::SendAlso(ev)) => Some(ev),
                Some(TamperAction::Delay(d)) => {
                    tokio::time::sleep(d).await;
                    None
                }
                _ => None,
            };
            let ev = match publish(&pool, &cfg.keys, &host, &payload, journal.as_mut()).await {
                Ok(ev) => ev,
                // Evidence is best effort; the game goes on without it.
                Err(e) if matches!(payload.body, Body::Evidence { .. }) => {
                    eprintln!("warning: could not publish evidence: {e}");
                    continue;
                }
                Err(e) => return Err(e),
            };
            if debug() {
                eprintln!(
                    "[{me:?}] sent {} h{} s{} {}",
                    payload.body.name(),
                    payload.hand,
                    payload.step,
                    ev.id
                );
            }
            published += 1;
            if let Some(ev) = extra {
                pool.publish(&ev).await.map_err(|e| e.to_string())?;
                published += 1;
            }
        }
        if let Some(cb) = cfg.on_view.as_mut() {
            if let Some(view) = session.view() {
                cb(&view);
            }
        }
        if let Some(cb) = cfg.on_progress.as_mut() {
            // Asking the pool takes a lock in nostr-sdk: once a second is enough for a display.
            let connected = match relays_checked {
                Some((at, n)) if at.elapsed() < Duration::from_secs(1) => n,
                _ => {
                    let n = pool.connected().await.len();
                    relays_checked = Some((Instant::now(), n));
                    n
                }
            };
            let progress = Progress {
                hand: session.position().0,
                awaiting: session.awaiting(),
                participants: session.participants(),
                deadline: session.deadline(),
                relays_connected: connected,
                relays_total: cfg.relays.len(),
            };
            if last_progress_sent.as_ref() != Some(&progress) {
                cb(&progress);
                last_progress_sent = Some(progress);
            }
        }
        if let Some(cb) = cfg.on_hand.as_mut() {
            while hands_reported < session.hands.len() {
                cb(&session.hands[hands_reported]);
                hands_reported += 1;
            }
        }
        if session.is_finished() {
            break;
        }
        if let Some((view, legal)) = session.my_turn() {
            let action = match &mut cfg.decider {
                Decider::Bot(bot) => Some(bot.choose(&view, &legal)),
                Decider::Human { ask, answer } => {
                    ask.send((view, legal))
                        .map_err(|_| "the interface closed")?;
                    Some(answer.recv().await.ok_or("the interface closed")?)
                }
                Decider::Watch => None,
            };
            if let Some(a) = action {
                session.submit(a)?;
                continue;
            }
        }
        if session.position() != position {
            position = session.position();
            step_opened = Instant::now();
            next_vote = None;
        }
        let vote_at = next_vote.unwrap_or(step_opened + session.deadline());
        if Instant::now() >= vote_at {
            next_vote = Some(Instant::now() + session.deadline());
            if session.vote() {
                if debug() {
                    eprintln!(
                        "[{me:?}] voting at {:?}: {:?}",
                        session.position(),
                        session.awaiting()
                    );
                }
                continue;
            }
        }
        let idle_left = cfg.idle_timeout.saturating_sub(last_progress.elapsed());
        let wait = idle_left.min(
            vote_at
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1)),
        );
        if idle_left.is_zero() {
            return Err(format!(
                "no progress for {:?}; waiting for {:?}",
                cfg.idle_timeout,
                session.awaiting()
            ));
        }
        let ev = match tokio::time::timeout(wait, sub.recv()).await {
            Ok(Some(ev)) => ev,
            Ok(None) => return Err("the relay subscription ended".into()),
            Err(_) => continue,
        };
        // Crypto verification is CPU-heavy: keep it off the async workers.
        let mut batch = vec![ev];
        while let Some(more) = sub.try_recv() {
            batch.push(more);
        }
        if let Some(j) = journal.as_mut() {
            for ev in &batch {
                j.record(ev)?;
            }
        }
        session = tokio::task::spawn_blocking(move || {
            for ev in &batch {
                let v = session.handle(ev);
                if debug() {
                    eprintln!(
                        "[{me:?}] got {} -> {:?} now {:?} {:?}",
                        ev.id,
                        v,
                        session.position(),
                        session.awaiting()
                    );
                }
            }
            session
        })
        .await
        .map_err(|e| e.to_string())?;
        last_progress = Instant::now();
    }
    let report = ClientReport {
        seat: me,
        pubkey: cfg.keys.public_key().to_hex(),
        hands: session.hands.clone(),
        stats: session.stats.clone(),
        violations: session.violations.clone(),
        final_stacks: session.table.stacks.clone(),
        chips_out: session.table.chips_out,
        finished: session.is_finished(),
        published,
    };
    pool.shutdown().await;
    Ok(report)
}

fn debug() -> bool {
    std::env::var_os("TOLERANCE_DEBUG").is_some()
}
