//! Drives one client of a table over real relays: its own key, its own relay connections, its
//! own [`Session`]. The session is pure; this loop carries events between it and the relays,
//! keeps the journal, asks the seat's decider for moves, and tells the session the time when a
//! vote may be due. Crypto runs on blocking threads, never on the async network task, and the
//! loop never stops listening while a person thinks.

use super::clock::TableClock;
use super::error::TableError;
use super::journal::{signed_key, Journal};
use super::session::{relay_secs, Session, SessionConfig, Stats, Turn, Verdict, Violation, Want};
use crate::bots::Bot;
use crate::engine::{Game, Seat};
use crate::games::registry::TableGame;
use crate::net::pool::{PoolConfig, RelayPool};
use crate::wire::log::{log_event, Payload};
use crate::wire::{self, TableSpec};
use nostr_sdk::prelude::*;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::{mpsc, oneshot};
use zeroize::Zeroizing;

/// A decision on its way: `None` means the seat leaves.
pub type DecisionFuture<A> = Pin<Box<dyn Future<Output = Option<A>> + Send>>;

/// Who decides a seat's moves: a bot, a person through a terminal or line interface, or nobody
/// (a spectator). Asked once per turn; the runner keeps serving the table while it waits.
pub trait Decider<G: Game>: Send {
    fn decide(&mut self, turn: &Turn<G>) -> DecisionFuture<G::Action>;

    /// Resolves when the person chooses to leave between turns (a screen's q); never for
    /// bots. Taken once, before the loop.
    fn quit(&mut self) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(std::future::pending())
    }
}

/// A bot decides at once from the seat's view.
pub struct BotDecider<G: Game>(pub Box<dyn Bot<G>>);

impl<G: Game<Action: Send + 'static>> Decider<G> for BotDecider<G> {
    fn decide(&mut self, turn: &Turn<G>) -> DecisionFuture<G::Action> {
        let a = self.0.choose(&turn.view, &turn.legal);
        Box::pin(std::future::ready(Some(a)))
    }
}

/// A turn put to a person, with the slot for the answer.
pub struct Ask<G: Game> {
    pub turn: Turn<G>,
    pub answer: oneshot::Sender<Option<G::Action>>,
}

/// A person decides through an interface on the other end of a channel.
pub struct PersonDecider<G: Game> {
    pub asks: mpsc::UnboundedSender<Ask<G>>,
    /// Fired when the person leaves while no turn is asked.
    pub quit: Option<oneshot::Receiver<()>>,
}

impl<G: Game<Action: Send + 'static, View: Send + 'static> + Send + 'static> Decider<G>
    for PersonDecider<G>
{
    fn decide(&mut self, turn: &Turn<G>) -> DecisionFuture<G::Action> {
        let (tx, rx) = oneshot::channel();
        let sent = self.asks.send(Ask {
            turn: turn.clone(),
            answer: tx,
        });
        Box::pin(async move {
            if sent.is_err() {
                return None;
            }
            rx.await.ok().flatten()
        })
    }

    fn quit(&mut self) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        match self.quit.take() {
            // A dropped sender is no decision to leave.
            Some(rx) => Box::pin(async move {
                if rx.await.is_err() {
                    std::future::pending::<()>().await;
                }
            }),
            None => Box::pin(std::future::pending()),
        }
    }
}

/// Nobody decides: a spectator or a verifier.
pub struct Watch;

impl<G: Game<Action: Send + 'static>> Decider<G> for Watch {
    fn decide(&mut self, _: &Turn<G>) -> DecisionFuture<G::Action> {
        Box::pin(std::future::pending())
    }
}

/// What happens to one outgoing event (tests of misbehaving peers; honest clients have none).
pub enum TamperAction {
    Send,
    Drop,
    /// Publish this extra event too (already signed), e.g. a fork.
    SendAlso(Box<Event>),
    /// Sign and apply it now but publish it only after this long (a move that arrives late).
    Delay(Duration),
}

/// Rewrites or drops this client's outgoing payloads.
pub type Tamper = Box<dyn FnMut(&mut Payload) -> TamperAction + Send>;

/// How the relays are doing, for people and reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RelayHealth {
    pub connected: usize,
    pub total: usize,
    /// Events waiting for a relay to accept them, and the last refusal.
    pub unsent: usize,
    pub last_error: Option<String>,
    /// When each seat's client was last heard from (a log event or a heartbeat), unix
    /// seconds by seat; this client's start for a seat not heard from yet.
    pub heard: Vec<u64>,
    /// What a person should know about the relays now, in words ("relay X rate-limits us,
    /// retrying").
    pub notes: Vec<String>,
}

/// Called after each batch of events with the session and the relays' state.
pub type OnUpdate<G> = Box<dyn FnMut(&Session<G>, &RelayHealth) + Send>;

pub struct RunConfig<G: TableGame> {
    pub keys: Keys,
    pub relays: Vec<String>,
    pub host: PublicKey,
    pub spec: TableSpec,
    /// `created_at` of the announcement that seated the players: when step 0 opened.
    pub start: u64,
    pub decider: Box<dyn Decider<G>>,
    /// The local record that makes a crash resumable; with one that already holds events, the
    /// client resumes where it stopped.
    pub journal: Option<Journal>,
    pub on_update: Option<OnUpdate<G>>,
    /// Give up when the table has not moved for this long.
    pub idle: Duration,
    pub tamper: Option<Tamper>,
    /// How the client treats relays: pacing for public ones, timeouts.
    pub pool: PoolConfig,
    /// How to name seats in the report's words (by seat number; the client's own seat is
    /// "you"); empty names them "seat N".
    pub names: Vec<String>,
    /// Make this seat's next shuffle on a deck while still checking it (PROTOCOL.md §5.10);
    /// off only to measure what it saves.
    pub speculate: bool,
    /// Seconds this machine's clock reads off (0; tests of clock skew set it): the client
    /// corrects its clock from the other seats' heartbeats ([`TableClock`]).
    pub clock_skew: i64,
}

/// What a client saw and checked by the end.
#[derive(Debug, Clone, Serialize)]
pub struct ClientReport {
    pub seat: Option<Seat>,
    pub pubkey: String,
    pub finished: bool,
    pub verdicts: Vec<Verdict>,
    pub violations: Vec<Violation>,
    pub stats: Stats,
    pub published: u64,
    /// The game-specific report ([`TableGame::report`]).
    pub report: serde_json::Value,
    /// The game as a spectator sees it at the end: every client must agree on it.
    pub public: serde_json::Value,
    pub result: String,
    /// Everything that happened, in words, as this client saw it.
    pub story: Vec<String>,
    /// The table's chain head at the end.
    pub head: String,
    /// What each relay did with this client's traffic.
    pub relays: Vec<crate::net::pool::RelayStats>,
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The session config and initial game of a seated table.
pub fn table_game<G: TableGame>(
    spec: &TableSpec,
    start: u64,
) -> Result<(SessionConfig, G), TableError> {
    if spec.game != G::NAME {
        return Err(TableError::Setup(format!(
            "table {} is a {} table, not {}",
            spec.table,
            spec.game,
            G::TITLE
        )));
    }
    let setup: G::Setup = serde_json::from_value(spec.setup.clone()).map_err(|e| {
        TableError::Setup(format!(
            "the table's {} setup is not readable: {e}",
            G::TITLE
        ))
    })?;
    let (min, max) = G::seats_for(&setup);
    let n = spec.seats.len();
    if n < min as usize || n > max as usize {
        return Err(TableError::Setup(format!(
            "the table seats {n} players; {} with this setup seats {min} to {max}",
            G::TITLE
        )));
    }
    let game = G::start(&setup, n as u8).map_err(|e| TableError::Setup(e.to_string()))?;
    let cfg = SessionConfig {
        table: spec.id(),
        seats: spec.seat_keys(),
        deadlines: spec.deadlines,
        start,
        pow: spec.pow,
    };
    Ok((cfg, game))
}

/// Fetches and checks a table announcement: the host's newest version, seated, its seating
/// re-checked against the players' nonces. Returns it with its `created_at`.
pub async fn fetch_table(
    pool: &RelayPool,
    host: &PublicKey,
    table: &str,
    timeout: Duration,
) -> Result<(TableSpec, u64), TableError> {
    let filter = Filter::new()
        .kind(Kind::from(wire::KIND_TABLE))
        .author(*host)
        .identifier(table);
    let deadline = Instant::now() + timeout;
    loop {
        let events = pool
            .fetch(vec![filter.clone()], Duration::from_secs(2))
            .await?;
        if let Some(ev) = wire::latest(&events) {
            let spec = wire::parse_table(ev).map_err(|e| TableError::Setup(e.to_string()))?;
            super::lobby::check_seated(pool, host, &spec, super::lobby::SEATING_PATIENCE).await?;
            return Ok((spec, ev.created_at.as_secs()));
        }
        if Instant::now() > deadline {
            return Err(TableError::NotFound(format!(
                "table {table} by {} was not found on the relays",
                host.to_bech32().unwrap_or_else(|_| host.to_hex())
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Offers the table's announcement and its seating messages (by the host and the seats) to every
/// relay of this client, in the background. They were published by the commands that seated the
/// table, whose pools are closed now: a relay that was down or dropped them then would hold a
/// log nobody can check on that relay alone. Relays keep one copy of an event, and the pool keeps
/// offering it to a relay that cannot take it yet, for as long as the table runs.
fn carry_seating(pool: &RelayPool, host: &PublicKey, table: &str, seats: &[PublicKey]) {
    let announcement = Filter::new()
        .kind(Kind::from(wire::KIND_TABLE))
        .author(*host)
        .identifier(table);
    let mut authors = seats.to_vec();
    authors.push(*host);
    let seating = wire::lobby::lobby_filter(host, table).authors(authors);
    let pool = pool.clone();
    tokio::spawn(async move {
        let Ok(events) = pool
            .fetch(vec![announcement, seating], Duration::from_secs(5))
            .await
        else {
            return;
        };
        for ev in events {
            let _ = pool.publish(&ev).await;
        }
    });
}

/// How long a seat waits, before its first event, to hear the other seats' clocks.
const CLOCK_WAIT: Duration = Duration::from_secs(5);

/// How far ahead of this machine's clock an event may be dated before it is held back: a
/// vote dated in the future must not count before its time.
const CLOCK_SKEW_SECS: u64 = 5;

/// Events dated in the future kept until their time, at most, and their bytes at most.
const MAX_HELD: usize = 2_048;
const MAX_HELD_BYTES: usize = 4 << 20;

/// How long a resumed client looks for its seat sitting out, to ask to be dealt in again.
const BACK_WINDOW: Duration = Duration::from_secs(30);

/// How long a leaving seat keeps offering its signed leave to the relays before it goes.
const LEAVE_PUBLISH: Duration = Duration::from_secs(10);

/// How long after a relay's `rate-limited:` this client counts the relays as congested: a
/// minute, the window public relays count in.
const CONGESTED: Duration = Duration::from_secs(60);

/// How long before a step's events turned away under a flood are asked for again.
const ASK_AGAIN: Duration = Duration::from_secs(5);

/// How often a seated client sends its heartbeat ([`wire::KIND_PRESENCE`]).
pub const HEARTBEAT: Duration = Duration::from_secs(10);

/// Runs a client until the table ends (or stalls for `idle`).
pub async fn run_client<G: TableGame>(mut cfg: RunConfig<G>) -> Result<ClientReport, TableError> {
    let me_key = cfg.keys.public_key();
    let seat = cfg
        .spec
        .seats
        .iter()
        .position(|s| *s == me_key.to_hex())
        .map(|s| s as Seat);
    let (scfg, game) = table_game::<G>(&cfg.spec, cfg.start)?;
    let master = match (seat, cfg.journal.as_ref()) {
        (None, _) => None,
        (Some(_), Some(j)) => Some(j.master(fresh_secret)?),
        (Some(_), None) => Some(Zeroizing::new(fresh_secret())),
    };
    let me = seat.zip(master);
    let pool = RelayPool::connect(cfg.keys.clone(), &cfg.relays, cfg.pool.clone()).await?;
    let filter = wire::log_filter(&cfg.host, &cfg.spec.table, &scfg.seats);
    // Heartbeats come on the same subscription; they are never stored, so history has none.
    let presence = wire::presence_filter(&cfg.host, &cfg.spec.table, &scfg.seats);
    let mut sub = pool.subscribe(vec![filter.clone(), presence]).await?;
    let seat_keys = scfg.seats.clone();
    carry_seating(&pool, &cfg.host, &cfg.spec.table, &seat_keys);
    let mut last_beat: Option<Instant> = None;
    let clock_until = Instant::now() + CLOCK_WAIT;
    let mut session = Session::new(scfg, game, me).map_err(|e| TableError::Setup(e.to_string()))?;
    // What this client recorded before it stopped, then what the relays hold.
    let recorded: Vec<Event> = cfg
        .journal
        .as_ref()
        .map_or(Vec::new(), |j| j.events().to_vec());
    let resuming = !recorded.is_empty();
    let history = pool
        .fetch_all(filter, 500, Duration::from_secs(5))
        .await
        .unwrap_or_default();
    let speculating = cfg.speculate.then(Arc::default);
    session = feed(
        session,
        recorded.into_iter().chain(history).collect(),
        &speculating,
    )
    .await?
    .0;
    let mut unsent: VecDeque<Event> = VecDeque::new();
    if resuming {
        // The crash may have come between recording an event and a relay taking it.
        unsent.extend(cfg.journal.as_ref().map_or(Vec::new(), |j| j.own_events()));
    }
    let mut published = 0u64;
    let mut clock = TableClock::new(cfg.clock_skew);
    let mut health = RelayHealth {
        total: cfg.relays.len(),
        heard: vec![clock.now(now_unix()); seat_keys.len()],
        ..RelayHealth::default()
    };
    let mut pending: Option<(u32, DecisionFuture<G::Action>)> = None;
    let mut held: Vec<Event> = Vec::new();
    let mut delayed: Vec<(Instant, Event)> = Vec::new();
    let mut last_move = Instant::now();
    let mut last_position = session.position();
    // Since when the open step has been in every other seat's reach, as far as this client
    // knows (PROTOCOL.md §7.2: it votes no earlier than the step's allowance after that).
    let mut visible = Instant::now();
    let mut relays_checked: Option<Instant> = None;
    let mut quit = cfg.decider.quit();
    // Since when this seat's signed leave has been on its way to the relays.
    let mut leaving: Option<Instant> = None;
    // A resumed seat that sits out (it left, crashed or was timed out) asks to be dealt in
    // again; only while it catches up, so a live player gone idle is not dealt back in unasked.
    let mut back_until = resuming.then(|| Instant::now() + BACK_WINDOW);
    // Events of a step the session turned away under a flood and now needs, asked for again.
    let mut asked: HashMap<Want, Instant> = HashMap::new();
    loop {
        let wants: Vec<Want> = session
            .wanted()
            .into_iter()
            .filter(|w| asked.get(w).is_none_or(|t| t.elapsed() > ASK_AGAIN))
            .collect();
        if !wants.is_empty() {
            let filters: Vec<Filter> = wants
                .iter()
                .filter_map(|w| {
                    let head = EventId::from_hex(&w.head).ok()?;
                    let key = seat_keys.get(w.seat as usize)?;
                    Some(wire::log_filter(&cfg.host, &cfg.spec.table, &[*key]).event(head))
                })
                .collect();
            for w in wants {
                asked.insert(w, Instant::now());
            }
            if let Ok(found) = pool.fetch(filters, Duration::from_secs(3)).await {
                session =
                    record_and_feed(session, found, cfg.journal.as_mut(), &speculating).await?;
                continue;
            }
        }
        // A seat removed for a step whose event its relays held back past the votes was here
        // all along: it comes back as a resumed one does.
        let back_now =
            back_until.is_some_and(|t| Instant::now() < t) || session.out_though_present();
        if back_now && session.come_back() {
            back_until = None;
        }
        // Before its first event a seat learns the table's clock from the other seats'
        // heartbeats (each client sends one as it starts, and answers a seat it hears for the
        // first time), so it does not date that event by a machine clock that is off: the
        // others would hold it back as dated ahead and could vote it out (PROTOCOL.md §4.4).
        let learning_clock = seat.is_some()
            && !resuming
            && clock.heard() + 1 < seat_keys.len()
            && Instant::now() < clock_until;
        let outbox = if learning_clock {
            Vec::new()
        } else {
            session.take_outbox()
        };
        // What the session owes: signed, recorded, applied here, then sent.
        for mut payload in outbox {
            let mut delay = None;
            let extra = match cfg.tamper.as_mut().map(|t| t(&mut payload)) {
                Some(TamperAction::Drop) => continue,
                Some(TamperAction::SendAlso(ev)) => Some(*ev),
                Some(TamperAction::Delay(d)) => {
                    delay = Some(Instant::now() + d);
                    None
                }
                _ => None,
            };
            let recorded = cfg
                .journal
                .as_ref()
                .and_then(|j| signed_key(&payload).and_then(|k| j.signed(&k).cloned()));
            let ev = match recorded {
                Some(ev) => ev,
                // Signed by the pool (its keys are this seat's), mined off the runtime's
                // threads when the table carries proof of work.
                None => pool
                    .sign_mined(
                        log_event(&cfg.host, &payload)
                            .custom_created_at(Timestamp::from(clock.now(now_unix()))),
                        cfg.spec.pow,
                    )
                    .await
                    .map_err(|e| match e {
                        crate::net::NetError::Sign(why) => TableError::Signing(why),
                        other => TableError::Signing(other.to_string()),
                    })?,
            };
            if let Some(j) = cfg.journal.as_mut() {
                j.record(&ev)?;
            }
            session.handle(&ev);
            if let Some(e) = extra {
                // Both halves leave together, in order, so every client holds both before
                // anyone could build on one of them.
                match pool.send_together(&[ev.clone(), e.clone()]).await {
                    Ok(()) => published += 2,
                    Err(_) => unsent.extend([ev, e]),
                }
                continue;
            }
            match delay {
                Some(at) => delayed.push((at, ev)),
                None => unsent.push_back(ev),
            }
        }
        let (due, later): (Vec<_>, Vec<_>) =
            delayed.drain(..).partition(|(at, _)| *at <= Instant::now());
        delayed = later;
        unsent.extend(due.into_iter().map(|(_, ev)| ev));
        // Send what is waiting, in order. A passing refusal (rate limit, pacing, relays down)
        // keeps the event and what follows for the next round, since the rest would meet the
        // same; an event refused for good is kept aside for the next round too, and the rest
        // go on.
        let mut refused = VecDeque::new();
        while let Some(ev) = unsent.pop_front() {
            match pool.publish(&ev).await {
                Ok(_) => published += 1,
                Err(e) => {
                    health.last_error = Some(e.to_string());
                    let transient = e.is_transient();
                    refused.push_back(ev);
                    if transient {
                        break;
                    }
                }
            }
        }
        refused.append(&mut unsent);
        unsent = refused;
        health.unsent = unsent.len();
        if let Some(since) = leaving {
            if unsent.is_empty() || since.elapsed() > LEAVE_PUBLISH {
                let told = unsent.is_empty();
                pool.shutdown().await;
                return Err(TableError::Left(if told && G::SITS_OUT {
                    "you left the table: the others were told and go on without you; your \
                     chips stay and `tolerance resume` deals you in again"
                        .into()
                } else if told {
                    "you left the table: the others were told and go on without you".into()
                } else {
                    format!(
                        "you left the table, but no relay took the news ({}): the others \
                         will go on once your time runs out",
                        health.last_error.unwrap_or_default()
                    )
                }));
            }
        }
        // A seated client says it is here, while the table runs.
        // A heartbeat never takes a paced relay's last room from a move.
        if seat.is_some()
            && leaving.is_none()
            && !session.is_finished()
            && last_beat.is_none_or(|t| {
                // A throttling relay's room goes to the table's events first.
                let every = if pool.limited_within(CONGESTED) {
                    HEARTBEAT * 3
                } else {
                    HEARTBEAT
                };
                t.elapsed() >= every
            })
            && unsent.is_empty()
            && pool.has_room(2)
        {
            last_beat = Some(Instant::now());
            // Sent aside, never awaited: some relays do not answer OK to an ephemeral event,
            // and a heartbeat no relay takes is simply missed; the next one comes.
            let beat = wire::presence_event(&cfg.host, &cfg.spec.table, clock.correction())
                .custom_created_at(Timestamp::from(clock.now(now_unix())));
            let pow = cfg.spec.pow;
            let pool = pool.clone();
            tokio::spawn(async move {
                let _ = tokio::time::timeout(HEARTBEAT, pool.publish_mined(beat, pow, true)).await;
            });
        }
        if relays_checked.is_none_or(|t| t.elapsed() > Duration::from_secs(1)) {
            health.connected = pool.connected().await.len();
            health.notes = pool.notes();
            if let Some(off) = clock.off_by() {
                // Beyond the bound the client keeps its own clock: votes and deadlines then
                // disagree with the others' by that much, and the person should fix it.
                health.notes.push(format!(
                    "this computer's clock reads {} s {} the other players' clocks; set it right \
                     (deadlines and votes are judged by the time events are signed)",
                    off.unsigned_abs(),
                    if off > 0 { "behind" } else { "ahead of" }
                ));
            }
            relays_checked = Some(Instant::now());
        }
        if let Some(cb) = cfg.on_update.as_mut() {
            cb(&session, &health);
        }
        if session.position() != last_position {
            last_position = session.position();
            last_move = Instant::now();
            visible = Instant::now();
        }
        // The others see a step only once this client's own events that lead to it reached a
        // relay: until then nobody can be late for it.
        if !unsent.is_empty() {
            visible = Instant::now();
        }
        if session.is_finished() && unsent.is_empty() && delayed.is_empty() {
            break;
        }
        // A turn: ask the decider, once; a turn that closed meanwhile is dropped.
        match (session.my_turn(), &pending) {
            (Some(turn), None) => pending = Some((turn.step, cfg.decider.decide(&turn))),
            (Some(turn), Some((step, _))) if *step != turn.step => {
                pending = Some((turn.step, cfg.decider.decide(&turn)))
            }
            (None, Some(_)) => pending = None,
            _ => {}
        }
        let now = clock.now(now_unix());
        // When relays throttle this client, they likely throttle the others too: give an event
        // held back a relay's window longer before voting (PROTOCOL.md §7.2).
        let congested = pool.limited_within(CONGESTED) || !unsent.is_empty();
        let patience = Duration::from_secs(session.step_secs() + relay_secs(&cfg.spec.deadlines))
            + if congested { CONGESTED } else { Duration::ZERO };
        let seen_long_enough = visible.elapsed() >= patience;
        if seen_long_enough && session.vote(now) {
            continue;
        }
        // Held events whose time has come.
        if !held.is_empty() {
            let (due, later): (Vec<Event>, Vec<Event>) = held
                .drain(..)
                .partition(|e| e.created_at.as_secs() <= now + CLOCK_SKEW_SECS);
            held = later;
            if !due.is_empty() {
                session = record_and_feed(session, due, cfg.journal.as_mut(), &speculating).await?;
                continue;
            }
        }
        let mut wake = Duration::from_secs(3600);
        if let Some(t) = session.vote_due() {
            wake = wake.min(Duration::from_secs(t.saturating_sub(now).max(1)));
            if !seen_long_enough {
                wake = wake.min(
                    patience
                        .saturating_sub(visible.elapsed())
                        .max(Duration::from_millis(100)),
                );
            }
        }
        if let Some(t) = held.iter().map(|e| e.created_at.as_secs()).min() {
            wake = wake.min(Duration::from_secs(
                t.saturating_sub(now + CLOCK_SKEW_SECS).max(1),
            ));
        }
        if !unsent.is_empty() {
            wake = wake.min(Duration::from_millis(500));
        }
        if learning_clock {
            wake = wake.min(
                clock_until
                    .saturating_duration_since(Instant::now())
                    .max(Duration::from_millis(50)),
            );
        }
        if let Some(t) = last_beat {
            wake = wake.min(
                HEARTBEAT
                    .saturating_sub(t.elapsed())
                    .max(Duration::from_millis(100)),
            );
        }
        if let Some(at) = delayed.iter().map(|(at, _)| *at).min() {
            wake = wake.min(at.saturating_duration_since(Instant::now()));
        }
        let idle_left = cfg.idle.saturating_sub(last_move.elapsed());
        if idle_left.is_zero() {
            let a = session.awaiting();
            let finished = session.is_finished();
            pool.shutdown().await;
            if finished {
                // Finished, but our last events never reached a relay.
                return Err(TableError::Stalled(format!(
                    "the table is over but no relay took our last {} event(s): {}",
                    unsent.len(),
                    health.last_error.unwrap_or_default()
                )));
            }
            let now = clock.now(now_unix());
            let silent: Vec<Seat> = (0..seat_keys.len() as Seat)
                .filter(|s| Some(*s) != seat)
                .filter(|s| now.saturating_sub(health.heard[*s as usize]) >= cfg.idle.as_secs())
                .collect();
            let name = |s: Seat| seat_name(&cfg.names, s);
            return Err(TableError::Stalled(stall_words(
                cfg.idle, &a, &silent, &name,
            )));
        }
        wake = wake.min(idle_left);
        let decision = async {
            match pending.as_mut() {
                Some((_, f)) => f.as_mut().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            ev = sub.recv() => {
                let Some(ev) = ev else {
                    return Err(TableError::Relay(crate::net::NetError::Io {
                        context: "following the table".into(),
                        source: std::io::Error::other("the relay subscription ended"),
                    }));
                };
                let mut batch = vec![ev];
                while let Some(more) = sub.try_recv() {
                    batch.push(more);
                }
                // Anything a seat signed says its client is alive; heartbeats say only that, and
                // how their clocks read.
                let system = now_unix();
                for ev in &batch {
                    if let Some(i) = seat_keys.iter().position(|k| *k == ev.pubkey) {
                        if ev.kind == Kind::from(wire::KIND_PRESENCE) && Some(i as Seat) != seat {
                            if let Some(c) = wire::presence_clock(ev) {
                                if clock.observe(i as Seat, ev.created_at.as_secs(), c, system) {
                                    // A seat heard for the first time may have subscribed
                                    // after our last heartbeat: answer it now, so it learns
                                    // our clock before it signs its first event.
                                    last_beat = None;
                                }
                            }
                        }
                        let now = clock.now(system);
                        health.heard[i] = health.heard[i].max(ev.created_at.as_secs().min(now));
                    }
                }
                batch.retain(|e| e.kind != Kind::from(wire::KIND_PRESENCE));
                if batch.is_empty() {
                    continue;
                }
                let (now_batch, later): (Vec<Event>, Vec<Event>) = batch
                    .into_iter()
                    .partition(|e| {
                        e.created_at.as_secs() <= clock.now(now_unix()) + CLOCK_SKEW_SECS
                    });
                // Events dated ahead wait for their time, within a bound: a seated key dating
                // events far in the future must not grow this client's memory. Past the bound
                // the furthest-dated are dropped (an honest client's clock is never that far
                // off; a relay can give them again later).
                held.extend(later);
                held.sort_by_key(|e| e.created_at);
                let mut bytes = 0usize;
                let keep = held
                    .iter()
                    .take(MAX_HELD)
                    .take_while(|e| {
                        bytes += e.content.len();
                        bytes <= MAX_HELD_BYTES
                    })
                    .count();
                held.truncate(keep);
                session = record_and_feed(session, now_batch, cfg.journal.as_mut(), &speculating).await?;
            }
            d = decision => {
                let step = pending.take().map(|(s, _)| s);
                match d {
                    Some(action) => {
                        if session.my_turn().is_some_and(|t| Some(t.step) == step) {
                            // An illegal move from an interface is refused here and asked again.
                            let _ = session.submit(&action);
                        }
                    }
                    None => {
                        if session.leave() {
                            leaving = Some(Instant::now());
                        } else {
                            pool.shutdown().await;
                            return Err(TableError::Left("you left the table".into()));
                        }
                    }
                }
            }
            _ = &mut quit, if leaving.is_none() => {
                if session.leave() {
                    leaving = Some(Instant::now());
                } else {
                    pool.shutdown().await;
                    return Err(TableError::Left("you left the table".into()));
                }
            }
            _ = tokio::time::sleep(wake) => {}
        }
    }
    // The caller names the seats (its own as "you" if it wants); a bot table without names
    // reads as a spectator's would.
    let names = |s: Seat| seat_name(&cfg.names, s);
    let mut report = ClientReport {
        seat,
        pubkey: me_key.to_hex(),
        finished: session.is_finished(),
        verdicts: session.verdicts().to_vec(),
        violations: session.violations.clone(),
        stats: session.stats(),
        published,
        report: session.game().report(),
        public: serde_json::to_value(session.game().view(None)).unwrap_or_default(),
        result: with_removals(
            session.game().result_line(&names),
            session.verdicts(),
            &names,
        ),
        story: session.game().story(seat, &names),
        head: session.position().1,
        relays: pool.relay_stats(),
    };
    let owed: Vec<String> = report
        .relays
        .iter()
        .filter(|r| r.queued > 0)
        .map(|r| format!("{} ({})", r.url, r.queued))
        .collect();
    if !owed.is_empty() {
        if let Some(cb) = cfg.on_update.as_mut() {
            // The table is over; a relay that has not taken its end yet gets a last chance, and
            // the person should know why the client lingers.
            health.notes = vec![format!(
                "handing the table's last events to {} before closing (up to {} minutes while a \
                 relay that limits its rate keeps taking them)",
                owed.join(", "),
                crate::net::pool::SHUTDOWN_FLUSH_MAX.as_secs() / 60
            )];
            cb(&session, &health);
        }
    }
    pool.shutdown().await;
    // What the relays took in the end, the last chance included.
    report.relays = pool.relay_stats();
    Ok(report)
}

/// A seat as the caller names it, or "seat N" when it gave no names (a bot table reads as a
/// spectator's would).
fn seat_name(names: &[String], s: Seat) -> String {
    names
        .get(s as usize)
        .cloned()
        .unwrap_or_else(|| format!("seat {s}"))
}

/// Why the table stopped moving, in words. With two or more other seats silent, no vote can
/// remove them (a seat is timed out only when every other seat votes it out), so the table can
/// only go on when one of them is back: say so rather than suggest `resume` will do it alone.
fn stall_words(
    idle: Duration,
    a: &super::session::Awaiting,
    silent: &[Seat],
    name: &dyn Fn(Seat) -> String,
) -> String {
    let list = |v: &[Seat]| v.iter().map(|s| name(*s)).collect::<Vec<_>>().join(", ");
    let what = match a.what {
        "chance" => "their part of the cards or dice",
        "move" => "a move",
        "seal" => "sealed choices",
        "open" => "the sealed choices to be opened",
        "ack" => "acknowledgements",
        "end" => "the end to be confirmed",
        other => other,
    };
    let head = format!(
        "the table has not moved for {} s: step {} waits for {what} from {}",
        idle.as_secs(),
        a.step,
        list(&a.seats)
    );
    if silent.len() >= 2 {
        format!(
            "{head}; {} have not been heard from for as long, and a seat is timed out only when \
             every other seat votes it out, so the table cannot go on until one of them is \
             back: then `tolerance resume` picks it up again",
            list(silent)
        )
    } else {
        format!("{head}; run `tolerance resume` to pick it up again")
    }
}

/// The result line, followed by who was removed from the table and why, so every end screen
/// says it ("… — Ben stopped answering").
fn with_removals(result: String, verdicts: &[Verdict], names: &dyn Fn(Seat) -> String) -> String {
    let removed: Vec<String> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::Removed {
                seats,
                reason,
                sitting_out,
                ..
            } => Some(
                seats
                    .iter()
                    .map(|s| {
                        let out = if *sitting_out { " and sat out" } else { "" };
                        format!("{} {}{out}", names(*s), reason.describe())
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect();
    if removed.is_empty() {
        result
    } else {
        format!("{result} — {}", removed.join("; "))
    }
}

fn fresh_secret() -> [u8; 32] {
    use rand::RngCore;
    let mut s = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut s);
    s
}

/// Feeds events to the session on a blocking thread (verifying proofs is CPU work). When the
/// last one may lead to a shuffle of this seat, a speculative copy makes that shuffle on
/// another thread meanwhile, on the deck the event carries while this client still checks it
/// (PROTOCOL.md §5.10); `speculating` keeps it to one copy at a time.
/// The events come back with the session, for the journal.
async fn feed<G: TableGame>(
    mut session: Session<G>,
    mut events: Vec<Event>,
    speculating: &Option<Arc<AtomicBool>>,
) -> Result<(Session<G>, Vec<Event>), TableError> {
    let Some(last) = events.pop() else {
        return Ok((session, events));
    };
    let (speculate, speculating) = match speculating {
        Some(s) => (true, s.clone()),
        None => (false, Arc::default()),
    };
    tokio::task::spawn_blocking(move || {
        session.handle_all(&events);
        if speculate && !speculating.load(Ordering::Acquire) {
            if let Some(copy) = session.speculation(&last) {
                speculating.store(true, Ordering::Release);
                // Its own thread, not the rayon pool: a whole proof parked there would hold up
                // the verifications' parallel work behind it.
                let done = Done(speculating.clone());
                std::thread::spawn(move || {
                    let _done = done;
                    copy.run();
                });
            }
        }
        session.handle(&last);
        events.push(last);
        (session, events)
    })
    .await
    // A panic while checking events is a bug of ours, reported as such.
    .map_err(|e| TableError::Setup(format!("checking the table's events failed: {e}")))
}

/// Clears the "a copy is running" flag when the copy's thread ends, also by a panic, so one
/// failed copy does not stop the ones after it.
struct Done(Arc<AtomicBool>);

impl Drop for Done {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Feeds events to the session, then records in the journal those it kept: what a bound turned
/// away (a seated key's flood) is never written, and the relays give it again if the table
/// needs it.
async fn record_and_feed<G: TableGame>(
    session: Session<G>,
    events: Vec<Event>,
    journal: Option<&mut Journal>,
    speculating: &Option<Arc<AtomicBool>>,
) -> Result<Session<G>, TableError> {
    let (session, events) = feed(session, events, speculating).await?;
    if let Some(j) = journal {
        for ev in events.iter().filter(|e| session.holds(&e.id)) {
            j.record(ev)?;
        }
    }
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_speculative_copy_that_fails_does_not_stop_the_next_one() {
        let flag = Arc::new(AtomicBool::new(true));
        let done = Done(flag.clone());
        let ended = std::thread::spawn(move || {
            let _done = done;
            panic!("a copy failing");
        })
        .join();
        assert!(ended.is_err());
        assert!(!flag.load(Ordering::Acquire));
    }

    #[test]
    fn a_stall_with_two_silent_seats_says_the_table_needs_one_of_them_back() {
        let a = crate::table::session::Awaiting {
            step: 12,
            what: "chance",
            seats: vec![1, 2],
        };
        let names = |s: Seat| ["you", "Ann", "Ben", "Cy"][s as usize].to_string();
        let idle = Duration::from_secs(300);
        let two = stall_words(idle, &a, &[1, 2], &names);
        assert_eq!(
            two,
            "the table has not moved for 300 s: step 12 waits for their part of the \
             cards or dice from Ann, Ben; Ann, Ben \
             have not been heard from for as long, and a seat is timed out only when every other \
             seat votes it out, so the table cannot go on until one of them is back: then \
             `tolerance resume` picks it up again"
        );
        let one = stall_words(idle, &a, &[2], &names);
        assert!(
            one.ends_with("from Ann, Ben; run `tolerance resume` to pick it up again"),
            "{one}"
        );
    }
}
