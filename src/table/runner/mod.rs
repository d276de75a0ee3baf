//! Drives one client of a table over real relays: its own key, its own relay connections, its
//! own [`Session`]. The session is pure; this loop carries events between it and the relays,
//! keeps the journal, asks the seat's decider for moves, and tells the session the time when a
//! vote may be due. Crypto runs on blocking threads, never on the async network task, and the
//! loop never stops listening while a person thinks.

use super::drive::{
    left_words, seat_name, stall_words, with_removals, RunnerState, Start, CONGESTED,
};
pub use super::drive::{RelayHealth, HEARTBEAT};
use super::error::TableError;
use super::journal::{signed_key, Journal};
use super::session::{relay_secs, Session, SessionConfig, Stats, Turn, Verdict, Violation, Want};
use crate::bots::Bot;
use crate::engine::{Game, Seat};
use crate::games::registry::TableGame;
use crate::net::pool::{PoolConfig, RelayPool};
use crate::wire::log::log_event;
#[cfg(any(test, feature = "test-support"))]
use crate::wire::log::Payload;
use crate::wire::{self, TableSpec};
use nostr_sdk::prelude::*;
use serde::Serialize;
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
            // Only an explicit answer of no move (q, y) leaves: a screen that is gone (Ctrl-C
            // stops the program as a crash would) decides nothing, and must sign no leave.
            if sent.is_err() {
                return std::future::pending().await;
            }
            match rx.await {
                Ok(answer) => answer,
                Err(_) => std::future::pending().await,
            }
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

/// What happens to one outgoing event (tests of misbehaving peers; honest clients have none,
/// and the program is built without: the `test-support` feature).
#[cfg(any(test, feature = "test-support"))]
pub enum TamperAction {
    Send,
    Drop,
    /// Publish this extra event too (already signed), e.g. a fork.
    SendAlso(Box<Event>),
    /// Sign and apply it now but publish it only after this long (a move that arrives late).
    Delay(Duration),
}

/// Rewrites or drops this client's outgoing payloads.
#[cfg(any(test, feature = "test-support"))]
pub type Tamper = Box<dyn FnMut(&mut Payload) -> TamperAction + Send>;

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
    /// Tests of misbehaving peers: rewrites, drops, delays or doubles what this client sends.
    #[cfg(any(test, feature = "test-support"))]
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
    super::check::table_game(spec, start).map_err(TableError::Setup)
}

/// Fetches and checks a table announcement: the host's newest version, seated, its seating
/// re-checked against the players' nonces. Returns it with its `created_at`.
pub async fn fetch_table(
    pool: &RelayPool,
    host: &PublicKey,
    table: &str,
    timeout: Duration,
) -> Result<(TableSpec, u64), TableError> {
    let filter = wire::announcement_filter(host, table);
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
    let announcement = wire::announcement_filter(host, table);
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

/// Runs a client until the table ends (or stalls for `idle`), on a pool of its own opened on
/// `cfg.relays` with `cfg.pool`.
pub async fn run_client<G: TableGame>(cfg: RunConfig<G>) -> Result<ClientReport, TableError> {
    let pool = RelayPool::connect(cfg.keys.clone(), &cfg.relays, cfg.pool.clone()).await?;
    run_client_on(pool, cfg).await
}

/// Runs a client until the table ends (or stalls for `idle`) on `pool`, the pool the command
/// opened for its lobby and seating (one connection per relay and one NIP-11 read for the whole
/// command). The pool's keys must be `cfg.keys`: it signs this seat's events. The client closes
/// it when it stops, after handing the relays what they are owed.
pub async fn run_client_on<G: TableGame>(
    pool: RelayPool,
    mut cfg: RunConfig<G>,
) -> Result<ClientReport, TableError> {
    if pool.keys().public_key() != cfg.keys.public_key() {
        pool.shutdown().await;
        return Err(TableError::Setup(
            "the relay pool signs with another key than this seat's".into(),
        ));
    }
    let Started {
        seat,
        seat_keys,
        mut sub,
        mut session,
        mut state,
        speculating,
    } = start(&pool, &mut cfg).await?;
    let mut pending: Option<(u32, DecisionFuture<G::Action>)> = None;
    let mut quit = cfg.decider.quit();
    loop {
        let wants = state.ask_now(session.wanted(), Instant::now());
        if !wants.is_empty() {
            if let Some(found) =
                ask_again(&pool, &cfg.host, &cfg.spec.table, &seat_keys, &wants).await
            {
                session =
                    record_and_feed(session, found, cfg.journal.as_mut(), &speculating).await?;
                continue;
            }
        }
        // A seat removed for a step whose event its relays held back past the votes was here
        // all along: it comes back as a resumed one does.
        let back_now = state.looking_back(Instant::now()) || session.out_though_present();
        if back_now && session.come_back() {
            state.came_back();
        }
        if !state.learning_clock(Instant::now()) {
            sign_owed(&pool, &mut cfg, &mut session, &mut state).await?;
        }
        state.outbox.release_due(Instant::now());
        publish_round(&pool, &mut state).await;
        if let Some(told) = state.left(Instant::now(), session.owes_unsigned()) {
            pool.shutdown().await;
            let error = state.health.last_error.as_deref();
            // Whether this seat's leave leaves fewer than two players dealt in: the table ends.
            let dealt_in = session
                .game()
                .seats()
                .into_iter()
                .filter(|s| Some(*s) != session.me() && !session.sitting_out().contains(s))
                .count();
            return Err(TableError::Left {
                words: left_words(told, G::SITS_OUT, dealt_in < 2, error),
                story: session
                    .game()
                    .story(session.me(), &|s| seat_name(&cfg.names, s)),
            });
        }
        if state.beat_due(
            Instant::now(),
            session.is_finished(),
            pool.limited_within(CONGESTED),
            pool.has_room(2),
        ) {
            heartbeat(&pool, &cfg, &state);
        }
        if state.health_due(Instant::now()) {
            let connected = pool.connected().await.len();
            state.relays_read(connected, pool.notes());
        }
        if let Some(cb) = cfg.on_update.as_mut() {
            cb(&session, &state.health);
        }
        state.progress(session.position(), Instant::now());
        if session.is_finished() && state.outbox.drained() {
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
        let now = state.clock.now(now_unix());
        let relay = relay_secs(&cfg.spec.deadlines);
        let limited = pool.limited_within(CONGESTED);
        let patience = state.patience(session.step_secs(), relay, limited);
        if state.seen_for(Instant::now()) >= patience && session.vote(now) {
            continue;
        }
        // Held events whose time has come.
        let due = state.release_held(now);
        if !due.is_empty() {
            session = record_and_feed(session, due, cfg.journal.as_mut(), &speculating).await?;
            continue;
        }
        let wake = state.wake(Instant::now(), now, session.vote_due(), patience);
        if state.idle_left(Instant::now()).is_zero() {
            pool.shutdown().await;
            return Err(stalled(&session, &state, &cfg.names));
        }
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
                let batch = state.heard(batch, &seat_keys, now_unix());
                if batch.is_empty() {
                    continue;
                }
                let now_batch = state.hold(batch, state.clock.now(now_unix()));
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
                    None => leave(&pool, &mut session, &mut state, &cfg.names).await?,
                }
            }
            _ = &mut quit, if !state.is_leaving() => leave(&pool, &mut session, &mut state, &cfg.names).await?,
            _ = tokio::time::sleep(wake) => {}
        }
    }
    let me = cfg.keys.public_key();
    Ok(finish(&pool, &mut cfg, &session, &mut state, seat, &me).await)
}

/// A client that caught up: its seat, the table's seats, its subscription (log events and
/// heartbeats), its session fed what its journal and the relays hold, and the runner's state.
struct Started<G: TableGame> {
    seat: Option<Seat>,
    seat_keys: Vec<PublicKey>,
    sub: crate::net::Subscription,
    session: Session<G>,
    state: RunnerState,
    speculating: Option<Arc<AtomicBool>>,
}

/// Takes the config by `&mut` only so that its future is `Send` (the config holds the decider
/// and hooks, which are `Send` but not `Sync`).
async fn start<G: TableGame>(
    pool: &RelayPool,
    cfg: &mut RunConfig<G>,
) -> Result<Started<G>, TableError> {
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
    let filter = wire::log_filter(&cfg.host, &cfg.spec.table, &scfg.seats);
    // Heartbeats come on the same subscription; they are never stored, so history has none.
    let presence = wire::presence_filter(&cfg.host, &cfg.spec.table, &scfg.seats);
    let sub = pool.subscribe(vec![filter.clone(), presence]).await?;
    let seat_keys = scfg.seats.clone();
    carry_seating(pool, &cfg.host, &cfg.spec.table, &seat_keys);
    let session =
        Session::new(scfg, game, seat.zip(master)).map_err(|e| TableError::Setup(e.to_string()))?;
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
    let session = feed(
        session,
        recorded.into_iter().chain(history).collect(),
        &speculating,
    )
    .await?
    .0;
    let mut state = RunnerState::new(
        Start {
            seat,
            seats: seat_keys.len(),
            resuming,
            idle: cfg.idle,
            relays: cfg.relays.len(),
            clock_skew: cfg.clock_skew,
            position: session.position(),
            system: now_unix(),
        },
        Instant::now(),
    );
    if resuming {
        // The crash may have come between recording an event and a relay taking it.
        let own = cfg.journal.as_ref().map_or(Vec::new(), |j| j.own_events());
        state.outbox.extend(own);
    }
    Ok(Started {
        seat,
        seat_keys,
        sub,
        session,
        state,
        speculating,
    })
}

/// Asks the relays again for events of a step the session turned away under a flood and now
/// needs; `None` when no relay answered.
async fn ask_again(
    pool: &RelayPool,
    host: &PublicKey,
    table: &str,
    seat_keys: &[PublicKey],
    wants: &[Want],
) -> Option<Vec<Event>> {
    let filters: Vec<Filter> = wants
        .iter()
        .filter_map(|w| {
            let head = EventId::from_hex(&w.head).ok()?;
            let key = seat_keys.get(w.seat as usize)?;
            Some(wire::log_filter(host, table, &[*key]).event(head))
        })
        .collect();
    pool.fetch(filters, Duration::from_secs(3)).await.ok()
}

/// What the session owes: signed (or taken from the journal, when a crash came after signing),
/// recorded, applied here, then queued to be sent.
async fn sign_owed<G: TableGame>(
    pool: &RelayPool,
    cfg: &mut RunConfig<G>,
    session: &mut Session<G>,
    state: &mut RunnerState,
) -> Result<(), TableError> {
    for payload in session.take_outbox() {
        #[cfg(any(test, feature = "test-support"))]
        let mut payload = payload;
        #[cfg(any(test, feature = "test-support"))]
        let (extra, delay) = match cfg.tamper.as_mut().map(|t| t(&mut payload)) {
            Some(TamperAction::Drop) => continue,
            Some(TamperAction::SendAlso(ev)) => (Some(*ev), None),
            Some(TamperAction::Delay(d)) => (None, Some(Instant::now() + d)),
            _ => (None, None),
        };
        #[cfg(not(any(test, feature = "test-support")))]
        let delay: Option<Instant> = None;
        let recorded = cfg
            .journal
            .as_ref()
            .and_then(|j| signed_key(&payload).and_then(|k| j.signed(&k).cloned()));
        let ev = match recorded {
            Some(ev) => ev,
            // Signed by the pool (its keys are this seat's), mined off the runtime's threads
            // when the table carries proof of work.
            None => pool
                .sign_mined(
                    log_event(&cfg.host, &payload)
                        .custom_created_at(Timestamp::from(state.clock.now(now_unix()))),
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
        #[cfg(any(test, feature = "test-support"))]
        if let Some(e) = extra {
            // Both halves leave together, in order, so every client holds both before anyone
            // could build on one of them.
            match pool.send_together(&[ev.clone(), e.clone()]).await {
                Ok(()) => state.outbox.sent(2),
                Err(_) => state.outbox.extend([ev, e]),
            }
            continue;
        }
        state.outbox.push(ev, delay);
    }
    Ok(())
}

/// Offers what waits to the relays, in order ([`Outbox`]).
async fn publish_round(pool: &RelayPool, state: &mut RunnerState) {
    while let Some(ev) = state.outbox.take_next() {
        match pool.publish(&ev).await {
            Ok(_) => state.outbox.sent(1),
            Err(e) => {
                let transient = e.is_transient();
                if !state.refused(ev, e.to_string(), transient) {
                    break;
                }
            }
        }
    }
    state.end_round();
}

/// Sends this seat's heartbeat aside, never awaited: some relays do not answer OK to an
/// ephemeral event, and a heartbeat no relay takes is simply missed; the next one comes.
fn heartbeat<G: TableGame>(pool: &RelayPool, cfg: &RunConfig<G>, state: &RunnerState) {
    let beat = wire::presence_event(&cfg.host, &cfg.spec.table, state.clock.correction())
        .custom_created_at(Timestamp::from(state.clock.now(now_unix())));
    let pow = cfg.spec.pow;
    let pool = pool.clone();
    tokio::spawn(async move {
        let _ = tokio::time::timeout(HEARTBEAT, pool.publish_mined(beat, pow, true)).await;
    });
}

/// The seat leaves: signed and on its way when the game lets it; else it is gone at once.
async fn leave<G: TableGame>(
    pool: &RelayPool,
    session: &mut Session<G>,
    state: &mut RunnerState,
    names: &[String],
) -> Result<(), TableError> {
    if session.leave() {
        state.leave(Instant::now());
        Ok(())
    } else {
        pool.shutdown().await;
        Err(TableError::Left {
            words: "you left the table".into(),
            story: session.game().story(session.me(), &|s| seat_name(names, s)),
        })
    }
}

/// Why the client gives up on a table that has not moved for its idle wait.
fn stalled<G: TableGame>(
    session: &Session<G>,
    state: &RunnerState,
    names: &[String],
) -> TableError {
    if session.is_finished() {
        // Finished, but our last events never reached a relay.
        return TableError::Stalled(format!(
            "the table is over but no relay took our last {} event(s): {}",
            state.outbox.len(),
            state.health.last_error.clone().unwrap_or_default()
        ));
    }
    let silent = state.silent(state.clock.now(now_unix()));
    let name = |s: Seat| seat_name(names, s);
    TableError::Stalled(stall_words(
        state.idle(),
        &session.awaiting(),
        &silent,
        &name,
    ))
}

/// The report of a table played out, after the relays were handed its last events.
async fn finish<G: TableGame>(
    pool: &RelayPool,
    cfg: &mut RunConfig<G>,
    session: &Session<G>,
    state: &mut RunnerState,
    seat: Option<Seat>,
    me: &PublicKey,
) -> ClientReport {
    // The caller names the seats (its own as "you" if it wants); a bot table without names
    // reads as a spectator's would.
    let names = |s: Seat| seat_name(&cfg.names, s);
    let mut report = ClientReport {
        seat,
        pubkey: me.to_hex(),
        finished: session.is_finished(),
        verdicts: session.verdicts().to_vec(),
        violations: session.violations.clone(),
        stats: session.stats(),
        published: state.outbox.published,
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
            state.health.notes = vec![format!(
                "handing the table's last events to {} before closing (up to {} minutes while a \
                 relay that limits its rate keeps taking them)",
                owed.join(", "),
                crate::net::pool::SHUTDOWN_FLUSH_MAX.as_secs() / 60
            )];
            cb(session, &state.health);
        }
    }
    pool.shutdown().await;
    // What the relays took in the end, the last chance included.
    report.relays = pool.relay_stats();
    report
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
}
