//! One client's verified view of a table, for any game: signed log events in, the game's state
//! and the events this client owes out. Pure: no I/O, no clock, no OS randomness — the runner
//! carries events to and from relays, tells the session the time when it asks for a vote, and
//! hands it the seat's master secret, from which every key, seed and nonce is derived.
//!
//! Every client (each player, a spectator, `verify`) runs this same code. The state is a
//! function of the **set** of events held, whatever order they arrived in: the session keeps
//! every event of a seated key by step and derives the game from them step by step
//! ([`derive`]); when something arrives that changes an earlier step's verdict (a late vote, a
//! fork, a late move that beats a timeout), it derives again from that step.
//!
//! What a step is follows from the game: a chance batch ([`crate::table::chance`]) takes a
//! setup, shuffles and reveals; a seat's move is one sequential step; a sealed decision is a
//! commitment step and an opening step; a seat timed out with a default move confirms it is
//! still there (an acknowledgement step); a finished game collects end confirmations. Timeouts
//! take effect only through votes of every other participant, checked against the deadline
//! the log itself defines (`protocol/PROTOCOL.md` §7).

mod derive;
mod store;
#[cfg(test)]
mod tests;

use store::Log;
pub use store::Want;

use super::chance::{
    AheadPart, Chance, ChanceStats, Secrets, ShuffleCache, ShuffleDone, ShuffleJob,
};
use crate::engine::{ForfeitReason, Game, Seat, ToAct};
use crate::wire::log::{parse_log, Body, Payload, TokenMsg};
use crate::wire::Deadlines;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use nostr::prelude::{Event, EventId, JsonUtil, PublicKey};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use zeroize::Zeroizing;

/// A step's relay allowance in whole seconds (`Deadlines::relay_ms`): votes count only from its
/// deadline plus this, so an event signed in time that reaches the others within it is never
/// voided (PROTOCOL.md §7.2).
pub fn relay_secs(d: &Deadlines) -> u64 {
    d.relay_ms.div_ceil(1000)
}

/// Derived states kept for roll-backs; older verdicts are re-derived from the start.
const SNAPSHOTS_KEPT: usize = 512;

/// What the session needs to know about a table besides its game.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Table id (also the genesis of the chain).
    pub table: [u8; 32],
    /// Seat keys by seat number.
    pub seats: Vec<PublicKey>,
    pub deadlines: Deadlines,
    /// When step 0 opens, in the log's own time (unix seconds): the `created_at` of the
    /// announcement that seated the players.
    pub start: u64,
    /// NIP-13 difficulty the announcement asks of every log event (`TableSpec::pow`).
    pub pow: u8,
    /// The announcement's protocol version (`TableSpec::v`): every log event of the table
    /// carries it (PROTOCOL.md §10.1).
    pub version: u8,
}

/// Something wrong with an event, attributed to its signer where it can be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Violation {
    /// Unreadable or of another version, by a seated key.
    #[error("event {id} by {seat_name}: {reason}", seat_name = seat_word(*seat))]
    Wire {
        id: String,
        seat: Seat,
        reason: String,
    },
    /// It does not fit its step: out of turn, bad proof, illegal move, wrong opening.
    #[error("event {id} by {seat_name} at step {step}: {reason}", seat_name = seat_word(*seat))]
    Invalid {
        id: String,
        seat: Seat,
        step: u32,
        reason: String,
    },
    /// Two different events by one seat for one step and head.
    #[error("{seat_name} signed two different events for step {step} ({a} and {b})", seat_name = seat_word(*seat))]
    Fork {
        seat: Seat,
        step: u32,
        a: String,
        b: String,
    },
}

fn seat_word(seat: Seat) -> String {
    format!("seat {seat}")
}

impl Violation {
    /// The violation in words, its seat named as the reader knows it ("Ana", "you").
    pub fn text_named(&self, names: &dyn Fn(Seat) -> String) -> String {
        match self {
            Violation::Wire { id, seat, reason } => {
                format!("event {id} by {}: {reason}", names(*seat))
            }
            Violation::Invalid {
                id,
                seat,
                step,
                reason,
            } => format!("event {id} by {} at step {step}: {reason}", names(*seat)),
            Violation::Fork { seat, step, a, b } => format!(
                "{} signed two different events for step {step} ({a} and {b})",
                names(*seat)
            ),
        }
    }

    /// The seat to blame.
    pub fn culprit(&self) -> Seat {
        match self {
            Violation::Wire { seat, .. }
            | Violation::Invalid { seat, .. }
            | Violation::Fork { seat, .. } => *seat,
        }
    }
}

/// Something the table decided by its rules, the same for every client holding the same log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Verdict {
    /// Every other participant voted these seats missing at a move or sealed step: the game
    /// moved for them (its timeout move); they must confirm they are still here.
    TimedOut { step: u32, seats: Vec<Seat> },
    /// Removed from the game (withheld a step, gone after a timeout, equivocated), or in a
    /// game of many hands dealt out until they come back (`sitting_out`).
    Removed {
        step: u32,
        seats: Vec<Seat>,
        reason: ForfeitReason,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        sitting_out: bool,
    },
    /// Seats that sat out are dealt in again from the next hand: every participant's setup at
    /// this step named them.
    Back { step: u32, seats: Vec<Seat> },
    /// Fewer than two seats were dealt in, and the table waited the return allowance for these
    /// seats sitting out to come back; they did not (PROTOCOL §7.10).
    NotBack { step: u32, seats: Vec<Seat> },
    /// The game is over: every seat still at the table confirmed it, or was voted out of
    /// confirming. Who confirmed is not part of the verdict (a confirmation that arrives after
    /// the votes changes nothing, PROTOCOL.md §7.5); [`Session::unconfirmed`] tells it.
    Finished { step: u32 },
    /// The game asked for something the protocol cannot do; the table stops here (nobody is
    /// to blame).
    Broken { step: u32, reason: String },
}

/// What the open step waits for, for people and status lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Awaiting {
    pub step: u32,
    /// "chance", "move", "seal", "open", "ack", "return", "end", "over" or "nothing" (before the first
    /// step).
    pub what: &'static str,
    pub seats: Vec<Seat>,
}

/// It is this seat's turn: what it sees and may do.
#[derive(Debug, Clone)]
pub struct Turn<G: Game> {
    pub step: u32,
    pub view: G::View,
    pub legal: Vec<G::Action>,
    /// A sealed decision: the others decide at the same time and nobody sees anyone's choice
    /// before all are in.
    pub sealed: bool,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SessionError {
    #[error("the table's seats are not usable: {0}")]
    Setup(String),
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("that move is not allowed: {0}")]
    Illegal(String),
    #[error("{0}")]
    Local(String),
}

/// Counters for reports and benchmarks.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    /// Events held from seated keys (distinct).
    pub events: u64,
    pub bytes: u64,
    /// Events from keys that hold no seat: never stored, never judged.
    pub ignored: u64,
    /// Events dropped by the per-seat storage bounds (a seated key flooding).
    pub dropped: u64,
    /// Steps completed on the current branch (each is one relay pass).
    pub passes: u64,
    pub moves: u64,
    /// Derivations started again from an earlier step.
    pub rederived: u64,
    /// Events on the table's chain up to its end step (end confirmations not counted: one
    /// may arrive after the others voted its seat out of confirming). Every client that holds
    /// the table's decisive events counts the same, and so does `verify`.
    pub chain: u64,
    #[serde(flatten)]
    pub chance: ChanceStats,
}

/// A parsed event of a seated key.
#[derive(Clone)]
pub(crate) struct Held {
    pub event: Event,
    pub payload: Payload,
    pub seat: Seat,
    /// Bytes of the event as NIP-01 JSON.
    pub size: usize,
}

impl Held {
    fn id(&self) -> EventId {
        self.event.id
    }
    fn at(&self) -> u64 {
        self.event.created_at.as_secs()
    }
}

/// The state derived from the log up to the open step.
#[derive(Clone)]
pub(crate) struct Replica<G: Game> {
    pub game: G,
    pub chance: Chance,
    pub step: u32,
    pub head: String,
    /// When the open step opened, in the log's time.
    pub t_open: u64,
    pub kind: derive::Kind<G>,
    /// Who has contributed to the open parallel step, with the events' times.
    pub got: BTreeMap<Seat, u64>,
    /// The events applied at the open parallel step, by seat: the head that closes the step
    /// names them (PROTOCOL.md §4.1), so the next step's events show which ones they followed.
    pub got_ids: BTreeMap<Seat, EventId>,
    pub removed: BTreeSet<Seat>,
    pub verdicts: Vec<Verdict>,
    /// Every applied event, in log order.
    pub applied: Vec<EventId>,
    pub finished: bool,
    pub passes: u64,
    pub moves: u64,
    /// Steps settled by a verdict that a later event could still overturn (a fork that a
    /// barrier may yet protect): derivation restarts from the earliest when something arrives.
    pub provisional: BTreeSet<u32>,
    /// Steps settled by votes.
    pub timeouts: BTreeSet<u32>,
    /// Steps where a voted-out seat's event counted because the timeout was not final (an
    /// event built on the timeout may still make it final), or where a final timeout was taken
    /// while the accused's branch may still show everyone followed it (PROTOCOL.md §7.4).
    pub contested: BTreeSet<u32>,
    /// Voted-out seats whose event counts whatever arrives: every other participant followed
    /// it (PROTOCOL.md §7.4), by step and seat.
    pub stand: BTreeSet<(u32, Seat)>,
    /// Forks that a barrier showed changed nobody's view, by step and seat: recorded only.
    pub ignored_forks: BTreeSet<(u32, Seat)>,
    /// After such a fork: the seat's event that the others built on, by step and seat.
    pub prefer: BTreeMap<(u32, Seat), EventId>,
    /// The last step at which each seat showed it followed this branch: an applied event or a
    /// counting vote. A barrier after step `s` is every other participant's mark beyond `s`
    /// (or its leaving the branch there, `gone_at`).
    pub last_seen: BTreeMap<Seat, u32>,
    /// Where each seat left this branch: removed, or voted out of confirming the end.
    pub gone_at: BTreeMap<Seat, u32>,
    /// Seats voted out of confirming the end.
    pub unconfirmed: Vec<Seat>,
    /// Events applied when the end step opened.
    pub before_end: Option<usize>,
    /// Seconds of its time bank each seat has used, by the log's own times.
    pub bank_used: BTreeMap<Seat, u64>,
    /// Seats sitting out, with the step their forfeit was settled at (PROTOCOL §7.10).
    pub out_at: BTreeMap<Seat, u32>,
    /// Seats dealt back in, with the step: their leaves signed before it are spent.
    pub back_at: BTreeMap<Seat, u32>,
    /// Seats sitting out that a return step waited for in vain (PROTOCOL §7.10): the table does
    /// not wait for them again.
    pub not_back: BTreeSet<Seat>,
    /// Parts of the deck prepared ahead carried by the open step's applied events, applied
    /// when it closes (PROTOCOL §5.9).
    pub ahead_parts: Vec<AheadPart>,
}

impl<G: Game> Replica<G> {
    /// The table before its first step.
    fn new(game: G, chance: Chance, head: String, start: u64) -> Replica<G> {
        Replica {
            game,
            chance,
            step: 0,
            head,
            t_open: start,
            kind: derive::Kind::Unset,
            got: BTreeMap::new(),
            got_ids: BTreeMap::new(),
            removed: BTreeSet::new(),
            verdicts: Vec::new(),
            applied: Vec::new(),
            finished: false,
            passes: 0,
            moves: 0,
            provisional: BTreeSet::new(),
            timeouts: BTreeSet::new(),
            contested: BTreeSet::new(),
            stand: BTreeSet::new(),
            ignored_forks: BTreeSet::new(),
            prefer: BTreeMap::new(),
            last_seen: BTreeMap::new(),
            gone_at: BTreeMap::new(),
            unconfirmed: Vec::new(),
            before_end: None,
            bank_used: BTreeMap::new(),
            out_at: BTreeMap::new(),
            back_at: BTreeMap::new(),
            not_back: BTreeSet::new(),
            ahead_parts: Vec::new(),
        }
    }
}

/// A speculative copy of a client ([`Session::speculation`]), to run on another thread.
pub struct Speculation<G: Game> {
    session: Session<G>,
    event: Event,
}

impl<G: Game> Speculation<G> {
    /// Applies the event on trust and makes this seat's shuffle if it then owes one: in a
    /// shuffle step of its own, or on top of its next move (the deck prepared ahead).
    pub fn run(mut self) {
        let s = &mut self.session;
        s.handle(&self.event);
        // Producing proves a shuffle the open step asks of this seat, with the part of the deck
        // prepared ahead due on that event (the proofs are kept; the payload is dropped). A
        // seat that owes a move instead produces nothing here: its part is due on the move.
        let produced = !s.take_outbox().is_empty();
        if !produced && s.me().is_some_and(|me| s.awaited().contains(&me)) {
            let _ = s.r.chance.produce_ahead(&s.eligible());
        }
    }
}

/// A client's view of a table.
pub struct Session<G: Game> {
    cfg: SessionConfig,
    table_hex: String,
    initial: G,
    me: Option<Secrets>,
    pub(crate) log: Log,
    pub(crate) r: Replica<G>,
    snapshots: BTreeMap<u32, Replica<G>>,
    outbox: Vec<Payload>,
    /// Own contributions queued or signed, by (step, head): never two for one step and head.
    own: BTreeSet<(u32, String)>,
    /// Own votes queued, by (step, head).
    voted: BTreeSet<(u32, String)>,
    /// Sealed moves this seat chose, by the step of the seal, until opened.
    my_seals: BTreeMap<u32, G::Action>,
    rejected: HashSet<EventId>,
    /// Heads of the branch not taken at contested steps (the timeout's, or the accused's when
    /// the timeout was taken), and the ids of held events built on them: an event naming one
    /// may complete the barrier that decides the step, so it sends the derivation back there.
    watch: HashSet<String>,
    pub violations: Vec<Violation>,
    pub stats: Stats,
    cache: ShuffleCache,
}

/// The chance state a table starts from: its seats' keys, this client's secrets, and the rules
/// its version checks shuffles by (PROTOCOL.md §5.3, §5.9).
fn fresh_chance(cfg: &SessionConfig, me: Option<Secrets>) -> Chance {
    let actors: Vec<[u8; 32]> = cfg.seats.iter().map(|k| k.to_bytes()).collect();
    Chance::new(cfg.table, actors, me)
        .deferring_chain_checks(cfg.version >= 7)
        .checking_batch_chains(cfg.version >= crate::wire::SHUFFLES_CHECKED_TOGETHER_SINCE)
}

impl<G: Game> Session<G> {
    /// A client for the table `cfg` playing `game` from its start. `me` is this client's seat
    /// and master secret (`None`: a spectator or verifier).
    pub fn new(
        cfg: SessionConfig,
        game: G,
        me: Option<(Seat, Zeroizing<[u8; 32]>)>,
    ) -> Result<Session<G>, SessionError> {
        let seats = game.seats();
        if seats.len() > cfg.seats.len() || seats.iter().any(|s| *s as usize >= cfg.seats.len()) {
            return Err(SessionError::Setup(format!(
                "the game seats {} players but the table has {} keys",
                seats.len(),
                cfg.seats.len()
            )));
        }
        let distinct: HashSet<&PublicKey> = cfg.seats.iter().collect();
        if distinct.len() != cfg.seats.len() {
            return Err(SessionError::Setup("one key holds two seats".into()));
        }
        if let Some((seat, _)) = &me {
            if !seats.contains(seat) {
                return Err(SessionError::Setup(format!(
                    "seat {seat} is not in the game"
                )));
            }
        }
        let me = me.map(|(s, m)| Secrets::new(s, m));
        let chance = fresh_chance(&cfg, me.clone());
        let cache = chance.cache();
        let table_hex = hex::encode(cfg.table);
        let r = Replica::new(game.clone(), chance, table_hex.clone(), cfg.start);
        let mut s = Session {
            cfg,
            table_hex,
            initial: game,
            me,
            log: Log::default(),
            r,
            snapshots: BTreeMap::new(),
            outbox: Vec::new(),
            own: BTreeSet::new(),
            voted: BTreeSet::new(),
            my_seals: BTreeMap::new(),
            rejected: HashSet::new(),
            watch: HashSet::new(),
            violations: Vec::new(),
            stats: Stats::default(),
            cache,
        };
        s.advance();
        Ok(s)
    }

    pub fn me(&self) -> Option<Seat> {
        self.me.as_ref().map(Secrets::seat)
    }

    pub fn table_hex(&self) -> &str {
        &self.table_hex
    }

    pub fn config(&self) -> &SessionConfig {
        &self.cfg
    }

    pub fn seat_key(&self, seat: Seat) -> Option<&PublicKey> {
        self.cfg.seats.get(seat as usize)
    }

    pub fn seat_of(&self, key: &PublicKey) -> Option<Seat> {
        self.cfg
            .seats
            .iter()
            .position(|k| k == key)
            .map(|s| s as Seat)
    }

    /// The game as this client knows it now.
    pub fn game(&self) -> &G {
        &self.r.game
    }

    /// What this client may see of the game.
    pub fn view(&self) -> G::View {
        self.r.game.view(self.me())
    }

    /// The open step and the head it builds on.
    pub fn position(&self) -> (u32, String) {
        (self.r.step, self.r.head.clone())
    }

    /// How many shuffles this seat proved, and how many a speculative copy proved before this
    /// client had checked the deck they build on (§5.10).
    pub fn own_shuffles_made(&self) -> (u64, u64) {
        self.r.chance.own_shuffles_made()
    }

    /// The shuffles of this seat's that its next event needs (a shuffle step of its own, or its
    /// part of the deck prepared ahead on the event it owes) and that are not made yet, as jobs
    /// to make apart ([`ShuffleJob`]); nothing is proved here. Empty when the seat owes no
    /// event now.
    pub fn shuffle_jobs(&mut self) -> Vec<ShuffleJob> {
        let Some(me) = self.me() else {
            return Vec::new();
        };
        if self.r.finished || self.has_own() || self.has_left(me) || !self.awaited().contains(&me) {
            return Vec::new();
        }
        let jobs = std::sync::Arc::default();
        self.r
            .chance
            .collect_jobs(Some(std::sync::Arc::clone(&jobs)));
        // What producing would prove: errors here only mean a shuffle was gathered, or that the
        // seat's own step cannot be made, which producing says when it comes to it.
        if matches!(self.r.kind, derive::Kind::Chance) {
            let _ = self.own_contribution(me);
        }
        let _ = self.r.chance.produce_ahead(&self.eligible());
        self.r.chance.collect_jobs(None);
        let jobs = std::mem::take(&mut *jobs.lock().expect("jobs"));
        jobs
    }

    /// Takes a job's answer as this seat's own shuffle once its proof checks out
    /// ([`Chance::take_shuffle`]); refused in words otherwise.
    pub fn take_shuffle(&self, done: &ShuffleDone) -> Result<(), String> {
        self.r.chance.take_shuffle(done).map_err(|e| e.to_string())
    }

    /// How many of this seat's shuffles were made apart and taken.
    pub fn own_shuffles_taken(&self) -> u64 {
        self.r.chance.own_shuffles_taken()
    }

    pub fn is_finished(&self) -> bool {
        self.r.finished
    }

    /// Everything the table decided so far, in log order.
    pub fn verdicts(&self) -> &[Verdict] {
        &self.r.verdicts
    }

    /// Seats voted out of confirming the end, as this client saw it (not a verdict: a
    /// confirmation may reach one client before the votes and another after).
    pub fn unconfirmed(&self) -> &[Seat] {
        &self.r.unconfirmed
    }

    /// Seats removed from the game.
    pub fn removed(&self) -> &BTreeSet<Seat> {
        &self.r.removed
    }

    /// Every event applied on the table's chain, in order.
    pub fn applied(&self) -> Vec<&Event> {
        let mut by_id = std::collections::HashMap::new();
        for v in self.log.contributions.values() {
            for h in v {
                by_id.insert(h.id(), &h.event);
            }
        }
        self.r
            .applied
            .iter()
            .filter_map(|id| by_id.get(id).copied())
            .collect()
    }

    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.passes = self.r.passes;
        s.moves = self.r.moves;
        s.chain = self.r.before_end.unwrap_or(self.r.applied.len()) as u64;
        s.chance = self.r.chance.stats.clone();
        s
    }

    /// Deadline of the open step in the log's time (unix seconds): when the seats it awaits
    /// may be voted out.
    pub fn deadline(&self) -> u64 {
        self.r.t_open + self.step_secs()
    }

    /// The open step's time allowance: a move's includes what is left of the mover's bank.
    pub fn step_secs(&self) -> u64 {
        let base = derive::kind_secs(&self.r.kind, &self.cfg.deadlines);
        match self.r.kind {
            derive::Kind::Move(actor) => base + self.bank_left(actor),
            _ => base,
        }
    }

    /// Seconds left of `seat`'s time bank.
    pub fn bank_left(&self, seat: Seat) -> u64 {
        derive::bank_secs(&self.cfg.deadlines)
            .saturating_sub(self.r.bank_used.get(&seat).copied().unwrap_or(0))
    }

    /// Seats whose time bank is used up (by the log's times, so every client agrees): each of
    /// their moves now has only [`Session::move_secs`]. None at a table without a bank.
    pub fn banks_spent(&self) -> Vec<Seat> {
        let whole = derive::bank_secs(&self.cfg.deadlines);
        if whole == 0 {
            return Vec::new();
        }
        self.r
            .bank_used
            .iter()
            .filter(|(_, used)| **used >= whole)
            .map(|(s, _)| *s)
            .collect()
    }

    /// A move's own allowance in seconds, without the time bank.
    pub fn move_secs(&self) -> u64 {
        derive::kind_secs(&derive::Kind::<G>::Move(0), &self.cfg.deadlines)
    }

    pub fn awaiting(&self) -> Awaiting {
        Awaiting {
            step: self.r.step,
            what: self.r.kind.name(),
            seats: self.awaited(),
        }
    }

    /// Takes in one event from a relay, the journal or this client itself. Returns what was
    /// wrong with it or with what it completed.
    pub fn handle(&mut self, ev: &Event) -> Vec<Violation> {
        let before = self.violations.len();
        // Strangers first, before any expensive check: their events are never stored.
        let Some(seat) = self.seat_of(&ev.pubkey) else {
            self.stats.ignored += 1;
            return Vec::new();
        };
        if self.log.ids.contains(&ev.id) {
            return Vec::new();
        }
        let pow = self.cfg.pow;
        let mined = pow == 0 || ev.id.check_pow(pow);
        let parsed = if mined {
            parse_log(ev, &self.table_hex)
        } else {
            // Depends on the announcement alone, so every client rejects the same events.
            Err(crate::wire::WireError::Malformed {
                id: ev.id.to_hex(),
                reason: format!(
                    "it carries proof of work of {} bits and the table announced {pow} (NIP-13)",
                    nostr::prelude::nip13::get_leading_zero_bits(ev.id.as_bytes())
                ),
            })
        };
        let payload = match parsed {
            Ok(p) => p,
            Err(e) => {
                // A forgery reusing a known id never got here; a bad one is reported once.
                if ev.verify().is_ok() && self.rejected.insert(ev.id) {
                    self.violations.push(Violation::Wire {
                        id: ev.id.to_hex(),
                        seat,
                        reason: e.to_string(),
                    });
                }
                return self.since(before);
            }
        };
        if payload.v != self.cfg.version {
            if self.rejected.insert(ev.id) {
                self.violations.push(Violation::Wire {
                    id: ev.id.to_hex(),
                    seat,
                    reason: format!(
                        "an event of protocol version {} at a version {} table",
                        payload.v, self.cfg.version
                    ),
                });
            }
            return self.since(before);
        }
        let step = payload.step;
        let prev = payload.prev.clone();
        let size = ev.as_json().len();
        let held = Held {
            event: ev.clone(),
            payload,
            seat,
            size,
        };
        if let Body::Evidence { events, .. } = &held.payload.body {
            self.log.ids.insert(ev.id);
            if let Err(why) = self.check_evidence(&held) {
                self.reject(&held, format!("evidence that proves no fork: {why}"));
            }
            // The carried events prove the fork by themselves: handle them as if relayed.
            let carried: Vec<Event> = events
                .iter()
                .filter_map(|j| Event::from_json(j).ok())
                .collect();
            for e in carried {
                self.handle(&e);
            }
            return self.since(before);
        }
        if !self.store(held, size) {
            return self.since(before);
        }
        self.log.ids.insert(ev.id);
        self.stats.events += 1;
        self.stats.bytes += size as u64;
        // An event built on a head this derivation never had, after a contested step, may
        // belong to the branch not taken there (beyond a synthetic head no `prev` link leads
        // through), and may show everyone followed it: derive that step again.
        let off_branch = self.r.contested.iter().next().is_some_and(|c| step > *c)
            && prev != self.r.head
            && !self.snapshots.values().any(|r| r.head == prev);
        let watched = self.watch.contains(&prev);
        if watched {
            self.watch.insert(ev.id.to_hex());
        }
        let builds_on_contested = watched || off_branch;
        self.reconsider(step, builds_on_contested);
        self.since(before)
    }

    /// A copy of this client that takes `ev` on trust, to make this seat's next shuffle while
    /// this client is still checking the one `ev` carries (PROTOCOL.md §5.10); `None` when
    /// `ev` cannot lead to one. The copy holds only the open step's part of the log and never
    /// publishes: what it proves reaches this client through the own-shuffle cache, keyed by
    /// the exact deck it was made on, so it is used only if that deck verifies.
    pub fn speculation(&self, ev: &Event) -> Option<Speculation<G>> {
        let me = self.me()?;
        let seat = self.seat_of(&ev.pubkey)?;
        let r = &self.r;
        // Only an event that extends the open step from its head, where nothing could send
        // the derivation back to an earlier step (the copy holds no earlier steps).
        if seat == me
            || r.finished
            || !r.chance.may_owe_shuffle()
            || self.log.ids.contains(&ev.id)
            || !r.provisional.is_empty()
            || !r.contested.is_empty()
            || (r.step > 0 && r.timeouts.contains(&(r.step - 1)))
        {
            return None;
        }
        let p = parse_log(ev, &self.table_hex).ok()?;
        if p.step != r.step
            || p.prev != r.head
            || matches!(
                p.body,
                Body::Vote { .. } | Body::Leave {} | Body::Back {} | Body::Evidence { .. }
            )
        {
            return None;
        }
        // Only an event that closes the step can make something of this seat's due; and after a
        // move, only if the game then waits for this seat or for chance (whose step may carry
        // its part of the deck prepared ahead, or be a shuffle of its own). The others' copies
        // would be work for nothing.
        if self.awaited() != [seat] {
            return None;
        }
        if let (derive::Kind::Move(_), Body::Move { action, .. }) = (&r.kind, &p.body) {
            let a: G::Action = serde_json::from_value(action.clone()).ok()?;
            let mut game = r.game.clone();
            game.apply(seat, &a).ok()?;
            match game.to_act() {
                ToAct::Seat(s) if s == me => {}
                ToAct::Sealed(v) if v.contains(&me) => {}
                ToAct::Chance(_) => {}
                _ => return None,
            }
        }
        let mut copy = r.clone();
        copy.chance = r.chance.speculative();
        let log = Log {
            contributions: self
                .log
                .contributions
                .range((r.step, 0)..)
                .map(|(k, v)| (*k, v.clone()))
                .collect(),
            votes: self
                .log
                .votes
                .range(r.step.saturating_sub(1)..)
                .map(|(k, v)| (*k, v.clone()))
                .collect(),
            leaves: self.log.leaves.clone(),
            backs: self.log.backs.clone(),
            ..Log::default()
        };
        Some(Speculation {
            session: Session {
                cfg: self.cfg.clone(),
                table_hex: self.table_hex.clone(),
                initial: self.initial.clone(),
                me: self.me.clone(),
                log,
                r: copy,
                snapshots: BTreeMap::new(),
                outbox: Vec::new(),
                own: self.own.clone(),
                voted: self.voted.clone(),
                my_seals: self.my_seals.clone(),
                rejected: self.rejected.clone(),
                watch: HashSet::new(),
                violations: Vec::new(),
                stats: Stats::default(),
                cache: self.cache.clone(),
            },
            event: ev.clone(),
        })
    }

    /// Whether an `evidence` event proves what it says (PROTOCOL.md §8): two different
    /// contributions of the named seat for one step and head, both signed by its key. Evidence
    /// carrying only ids (two large events) is not judged here: the relays keep the events.
    fn check_evidence(&self, h: &Held) -> Result<(), String> {
        let Body::Evidence {
            offender, events, ..
        } = &h.payload.body
        else {
            return Ok(());
        };
        let [a, b] = events.as_slice() else {
            return Err(format!("it carries {} events, not two", events.len()));
        };
        let is_id = |x: &str| x.len() == 64 && x.bytes().all(|c| c.is_ascii_hexdigit());
        if is_id(a) && is_id(b) {
            return Ok(());
        }
        let key = self
            .seat_key(*offender)
            .ok_or_else(|| format!("it names seat {offender}, which this table does not have"))?;
        let mut parsed = Vec::new();
        for text in [a, b] {
            let ev = Event::from_json(text).map_err(|_| "an event in it is unreadable")?;
            ev.verify()
                .map_err(|_| "an event in it does not carry a valid signature")?;
            if ev.pubkey != *key {
                return Err("an event in it is not signed by the seat it names".into());
            }
            let p = parse_log(&ev, &self.table_hex)
                .map_err(|e| format!("an event in it is not of this table's log: {e}"))?;
            if matches!(
                p.body,
                Body::Vote { .. } | Body::Leave {} | Body::Back {} | Body::Evidence { .. }
            ) {
                return Err(format!("a {} is not a step's contribution", p.body.name()));
            }
            parsed.push((ev.id, p));
        }
        let ((ia, pa), (ib, pb)) = (&parsed[0], &parsed[1]);
        if ia == ib {
            return Err("it carries the same event twice".into());
        }
        if pa.step != pb.step || pa.prev != pb.prev {
            return Err("its two events are for different steps or heads".into());
        }
        Ok(())
    }

    fn since(&self, before: usize) -> Vec<Violation> {
        self.violations
            .get(before..)
            .map(<[_]>::to_vec)
            .unwrap_or_default()
    }

    /// Something arrived for `step`: derive again from the earliest step whose outcome it may
    /// change, or just carry on when it only concerns the open step.
    fn reconsider(&mut self, step: u32, builds_on_contested: bool) {
        let mut from = step;
        // A late event may protect a fork settled earlier.
        if let Some(&p) = self.r.provisional.iter().next() {
            from = from.min(p);
        }
        // An event built on the timeout of a contested step may make that timeout final.
        if builds_on_contested {
            if let Some(&c) = self.r.contested.iter().next() {
                from = from.min(c);
            }
        }
        if from < self.r.step || (from == self.r.step && self.applied_seat_named()) {
            self.rederive(from);
        } else {
            self.advance();
        }
    }

    /// Whether a vote on the open step's head names a seat whose event this derivation already
    /// applied there. Votes are judged against the seats awaited when the step opened, and
    /// whether one counts depends on events that may arrive after the accused's (its signer's
    /// own contribution): carrying on from the partial step would judge by arrival order, so the
    /// step is derived again from its opening, as by a client that held everything at once.
    fn applied_seat_named(&self) -> bool {
        let r = &self.r;
        self.log.votes_at(r.step).is_some_and(|m| {
            m.values().flatten().any(|h| {
                h.payload.prev == r.head
                    && matches!(&h.payload.body, Body::Vote { missing }
                        if missing.iter().any(|x| r.got.contains_key(x)))
            })
        })
    }

    /// Follows the timeout branch `head` of a contested step: the held events built on it, and
    /// every event that arrives on it later, send the derivation back to that step.
    pub(crate) fn watch_branch(&mut self, head: String) {
        if !self.watch.insert(head) {
            return;
        }
        loop {
            let found: Vec<String> = self
                .log
                .contributions
                .values()
                .flatten()
                .chain(self.log.votes.values().flat_map(|m| m.values().flatten()))
                .filter(|h| self.watch.contains(&h.payload.prev))
                .map(|h| h.id().to_hex())
                .filter(|id| !self.watch.contains(id))
                .collect();
            if found.is_empty() {
                return;
            }
            self.watch.extend(found);
        }
    }

    /// Derives again from the opening of `step`.
    fn rederive(&mut self, step: u32) {
        self.stats.rederived += 1;
        let snap = self
            .snapshots
            .range(..=step)
            .next_back()
            .map(|(_, r)| r.clone());
        match snap {
            Some(r) => {
                self.r = r;
            }
            None => {
                self.r = Replica::new(
                    self.initial.clone(),
                    fresh_chance(&self.cfg, self.me.clone()).with_cache(self.cache.clone()),
                    self.table_hex.clone(),
                    self.cfg.start,
                );
            }
        }
        let keep = self.r.step;
        self.snapshots.retain(|s, _| *s <= keep);
        // Rejections stand across branches: an event is judged only in the state its own `prev`
        // names, and the chain up to a head fixes that state, so a roll-back cannot make an
        // event judged invalid valid (or the reverse). Keeping them matters: on the new branch a
        // final timeout may settle the step before its accused's bad event is looked at again.
        self.advance();
    }

    /// Records the state at the opening of the current step.
    pub(crate) fn snapshot(&mut self) {
        if self.snapshots.contains_key(&self.r.step) {
            return;
        }
        self.snapshots.insert(self.r.step, self.r.clone());
        while self.snapshots.len() > SNAPSHOTS_KEPT {
            let first = *self.snapshots.keys().next().expect("non-empty");
            self.snapshots.remove(&first);
        }
    }

    pub(crate) fn reject(&mut self, h: &Held, reason: String) {
        if self.rejected.insert(h.id()) {
            self.violations.push(Violation::Invalid {
                id: h.id().to_hex(),
                seat: h.seat,
                step: h.payload.step,
                reason,
            });
        }
    }

    fn payload(&self, body: Body) -> Payload {
        Payload {
            v: self.cfg.version,
            table: self.table_hex.clone(),
            step: self.r.step,
            prev: self.r.head.clone(),
            ahead: None,
            body,
        }
    }

    /// The payload of this seat's event for the open step, with its part of the deck prepared
    /// ahead when one is due (PROTOCOL §5.9).
    fn contribution(&self, body: Body) -> Result<Payload, String> {
        let ahead = self
            .r
            .chance
            .produce_ahead(&self.eligible())
            .map_err(|e| e.to_string())?;
        Ok(Payload {
            ahead,
            ..self.payload(body)
        })
    }

    /// Whether this seat already has an event for the open step and head (signed before a
    /// restart, or queued).
    fn has_own(&self) -> bool {
        let Some(me) = self.me() else {
            return true;
        };
        let key = (self.r.step, self.r.head.clone());
        self.own.contains(&key)
            || self
                .log
                .at(self.r.step, me)
                .iter()
                .any(|h| h.payload.prev == self.r.head)
    }

    /// Queues this seat's contribution to the open step, if it owes one.
    fn produce(&mut self) {
        let Some(me) = self.me() else { return };
        // A seat sitting out contributes only to the step that waits for it to come back.
        let waited_for = matches!(self.r.kind, derive::Kind::Return(_));
        if self.r.finished || (self.r.removed.contains(&me) && !waited_for) || self.has_own() {
            return;
        }
        // A seat that signed its leave contributes nothing more, even after a `resume`.
        if !self.awaited().contains(&me) || self.has_left(me) {
            return;
        }
        let body = match self.own_contribution(me) {
            Ok(Some(Body::Setup {
                shares,
                dice,
                box_key,
                ..
            })) => Body::Setup {
                shares,
                dice,
                box_key,
                back: self.returning(),
            },
            Ok(Some(b)) => b,
            Ok(None) => return,
            Err(e) => {
                self.local_fault(me, e);
                return;
            }
        };
        let p = match self.contribution(body) {
            Ok(p) => p,
            Err(e) => {
                self.local_fault(me, e);
                return;
            }
        };
        self.own.insert((self.r.step, self.r.head.clone()));
        self.outbox.push(p);
    }

    /// Our own crypto failing is a local fault: say so rather than stall silently.
    fn local_fault(&mut self, me: Seat, e: String) {
        self.violations.push(Violation::Invalid {
            id: "local".into(),
            seat: me,
            step: self.r.step,
            reason: format!("could not produce our own step: {e}"),
        });
    }

    /// The events this client must sign and publish now.
    pub fn take_outbox(&mut self) -> Vec<Payload> {
        self.produce();
        std::mem::take(&mut self.outbox)
    }

    /// Whether payloads wait here to be signed (taken by [`Session::take_outbox`]).
    pub fn owes_unsigned(&self) -> bool {
        !self.outbox.is_empty()
    }

    /// This seat's view and legal moves when it is to decide and has not yet.
    pub fn my_turn(&self) -> Option<Turn<G>> {
        let me = self.me()?;
        if self.r.finished || self.r.removed.contains(&me) || self.has_own() || self.has_left(me) {
            return None;
        }
        let sealed = match &self.r.kind {
            derive::Kind::Move(s) if *s == me => false,
            derive::Kind::Seal(seats) if seats.contains(&me) => true,
            _ => return None,
        };
        let legal = self.r.game.legal_actions(me);
        if legal.is_empty() {
            return None;
        }
        Some(Turn {
            step: self.r.step,
            view: self.r.game.view(Some(me)),
            legal,
            sealed,
        })
    }

    /// Queues this seat's move (or sealed choice) for the open step, if the game allows it.
    pub fn submit(&mut self, action: &G::Action) -> Result<(), SessionError> {
        let me = self.me().ok_or(SessionError::NotYourTurn)?;
        let turn = self.my_turn().ok_or(SessionError::NotYourTurn)?;
        let mut after = self.r.game.clone();
        after
            .apply(me, action)
            .map_err(|e| SessionError::Illegal(e.words_for_mover()))?;
        let json = serde_json::to_value(action).map_err(|e| SessionError::Local(e.to_string()))?;
        let body = if turn.sealed {
            let salt = self.seal_salt(self.r.step);
            let commitment = seal_commitment(&self.table_hex, self.r.step, me, &json, &salt);
            self.my_seals.insert(self.r.step, action.clone());
            Body::Seal {
                commitment: hex::encode(commitment),
                mine: Some(self.seal_note(self.r.step, &json)?),
            }
        } else {
            Body::Move {
                action: json,
                tokens: self.carried(me, &after).map_err(SessionError::Local)?,
            }
        };
        let p = self.contribution(body).map_err(SessionError::Local)?;
        self.own.insert((self.r.step, self.r.head.clone()));
        self.outbox.push(p);
        Ok(())
    }

    /// The tokens this seat's move carries, `after` being the game with it applied: its tokens
    /// for the cards the batch the game asks for next shows (PROTOCOL.md §5.4).
    fn carried(&self, me: Seat, after: &G) -> Result<Vec<TokenMsg>, String> {
        if !self.carries_tokens() {
            return Ok(Vec::new());
        }
        let owed = self.carried_by_move(after, me);
        self.r
            .chance
            .carried_tokens(&owed)
            .map_err(|e| e.to_string())
    }

    /// The secret salt of this seat's sealed move at `step`.
    fn seal_salt(&self, step: u32) -> Zeroizing<[u8; 32]> {
        let me = self.me.as_ref().expect("seated");
        me.derive(&self.cfg.table, "seal-salt", &[u64::from(step)])
    }

    /// The sealed move encrypted to this seat alone, so a restarted client can still open it.
    fn seal_note(&self, step: u32, json: &serde_json::Value) -> Result<String, SessionError> {
        let me = self.me.as_ref().expect("seated");
        let key = me.derive(&self.cfg.table, "seal-note", &[u64::from(step)]);
        let cipher = ChaCha20Poly1305::new(Key::from_slice(&*key));
        // One key per step and seat, used once: a fixed nonce is safe.
        let ct = cipher
            .encrypt(Nonce::from_slice(&[0u8; 12]), json.to_string().as_bytes())
            .map_err(|_| SessionError::Local("could not seal our own note".into()))?;
        Ok(crate::fair::to_base64(&ct))
    }

    /// Reads back this seat's own sealed move from its seal event.
    fn read_seal_note(&self, step: u32, note: &str) -> Option<G::Action> {
        let me = self.me.as_ref()?;
        let key = me.derive(&self.cfg.table, "seal-note", &[u64::from(step)]);
        let cipher = ChaCha20Poly1305::new(Key::from_slice(&*key));
        let ct = crate::fair::from_base64("note", note).ok()?;
        let pt = cipher
            .decrypt(Nonce::from_slice(&[0u8; 12]), ct.as_ref())
            .ok()?;
        serde_json::from_slice(&pt).ok()
    }

    /// Queues this seat's timeout vote for the open step if its deadline (plus a grace for
    /// events in flight) has passed at `now` (unix seconds, this machine's clock); `false` when
    /// there is nothing to vote (a spectator, awaited itself, nothing missing, voted already).
    pub fn vote(&mut self, now: u64) -> bool {
        let Some(me) = self.me() else {
            return false;
        };
        if self.r.finished || self.r.removed.contains(&me) {
            return false;
        }
        if now < self.vote_time() {
            return false;
        }
        let key = (self.r.step, self.r.head.clone());
        if self.voted.contains(&key) {
            return false;
        }
        let awaited = self.awaited();
        if awaited.is_empty() || awaited.contains(&me) || !self.voters().contains(&me) {
            return false;
        }
        self.voted.insert(key);
        let p = self.payload(Body::Vote { missing: awaited });
        self.outbox.push(p);
        true
    }

    /// Queues this seat's signed leave: from the open step on, the table removes it wherever
    /// it waits for it, without waiting for its deadline. `false` when there is nothing to
    /// leave (a spectator, the table over, removed already, left already).
    pub fn leave(&mut self) -> bool {
        let Some(me) = self.me() else {
            return false;
        };
        let queued = self.outbox.iter().any(|p| matches!(p.body, Body::Leave {}));
        if self.r.finished || self.r.removed.contains(&me) || self.has_left(me) || queued {
            return false;
        }
        let p = self.payload(Body::Leave {});
        self.outbox.push(p);
        true
    }

    /// Whether `seat` signed that it leaves (by the open step, since it was last dealt in).
    pub fn has_left(&self, seat: Seat) -> bool {
        self.left(seat, self.r.step).is_some()
    }

    /// `seat`'s leave counting at `step`: signed for `step` or earlier, and not before the seat
    /// was last dealt back in.
    pub(crate) fn left(&self, seat: Seat, step: u32) -> Option<&Held> {
        let from = self.r.back_at.get(&seat).copied().unwrap_or(0);
        self.log.left_by(seat, step, from)
    }

    /// Seats sitting out: they keep their place and chips but are dealt nothing until they
    /// come back (PROTOCOL §7.10).
    pub fn sitting_out(&self) -> Vec<Seat> {
        self.r.game.sitting_out()
    }

    /// Seats sitting out whose signed return this client holds: its next setup names them.
    pub(crate) fn returning(&self) -> Vec<Seat> {
        self.r
            .game
            .sitting_out()
            .into_iter()
            .filter(|x| {
                let from = self.r.out_at.get(x).copied().unwrap_or(0);
                self.log.back_since(*x, from)
            })
            .collect()
    }

    /// Queues this seat's signed return when it sits out (a `resume` after a leave, a crash or
    /// a timeout): every participant's next setup then names it and it is dealt in from the
    /// hand after. `false` when there is nothing to do (not sitting out, or already said so).
    pub fn come_back(&mut self) -> bool {
        let Some(me) = self.me() else {
            return false;
        };
        let queued = self.outbox.iter().any(|p| matches!(p.body, Body::Back {}));
        if self.r.finished
            || queued
            || !self.r.game.sitting_out().contains(&me)
            || self.returning().contains(&me)
        {
            return false;
        }
        let p = self.payload(Body::Back {});
        self.outbox.push(p);
        true
    }

    /// Whether this seat sits out after a removal for absence at a step for which it had signed
    /// its own event: its relays held that event back past the others' votes, so it was there
    /// all along and asks to be dealt in again at once (PROTOCOL.md §7.10). A seat that really
    /// was gone signed nothing for that step; one that left signed a `leave`, and stays out.
    pub fn out_though_present(&self) -> bool {
        let Some(me) = self.me() else {
            return false;
        };
        if self.r.finished || !self.r.game.sitting_out().contains(&me) {
            return false;
        }
        let removed_at = self.r.verdicts.iter().rev().find_map(|v| match v {
            Verdict::Removed {
                step,
                seats,
                reason: ForfeitReason::Withheld | ForfeitReason::Absent,
                sitting_out: true,
            } if seats.contains(&me) => Some(*step),
            _ => None,
        });
        removed_at.is_some_and(|s| !self.log.at(s, me).is_empty())
    }

    /// When this seat's next vote would be due (unix seconds), if it would cast one.
    pub fn vote_due(&self) -> Option<u64> {
        let me = self.me()?;
        if self.r.finished || self.r.removed.contains(&me) {
            return None;
        }
        let key = (self.r.step, self.r.head.clone());
        let awaited = self.awaited();
        if self.voted.contains(&key) || awaited.is_empty() || awaited.contains(&me) {
            return None;
        }
        self.voters().contains(&me).then(|| self.vote_time())
    }

    /// When votes at the open step start to count, in the log's time: its deadline plus the
    /// table's relay allowance.
    pub fn vote_time(&self) -> u64 {
        self.deadline() + relay_secs(&self.cfg.deadlines)
    }
}

/// `sha256` binding a sealed move to its table, step and seat (PROTOCOL.md §3.3).
pub(crate) fn seal_commitment(
    table: &str,
    step: u32,
    seat: Seat,
    action: &serde_json::Value,
    salt: &[u8; 32],
) -> [u8; 32] {
    let mut h = Sha256::new();
    for part in [
        b"tolerance/seal/v2".as_slice(),
        table.as_bytes(),
        &step.to_be_bytes(),
        &[seat],
        action.to_string().as_bytes(),
        salt,
    ] {
        h.update((part.len() as u32).to_be_bytes());
        h.update(part);
    }
    h.finalize().into()
}

/// A head no event has: `sha256` of the length-prefixed parts (PROTOCOL.md §7). Timeouts and
/// forfeits move the chain to one, so nothing can build on a voided event.
pub(crate) fn synthetic_head(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u32).to_be_bytes());
        h.update(p);
    }
    hex::encode(h.finalize())
}
