//! What a client keeps between rounds of its event loop, apart from the network and the clock:
//! the events it owes the relays (the outbox and its publish queue), when it last said it is
//! here (heartbeats), how the relays are doing and when each seat was last heard from (health),
//! events dated ahead of the table's clock (held), when the table last moved and how long to
//! sleep (wake, stall words), and whether the seat is leaving. Every method is told the time it
//! is asked at, so the loop stays thin and the rules here are tested without relays or waits.

use crate::engine::Seat;
use crate::table::clock::TableClock;
use crate::table::session::{Awaiting, Verdict, Want};
use crate::wire;
use nostr::{Event, Kind, PublicKey};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::time::Duration;
// The browser has no `std::time::Instant`; natively this is that very type.
use web_time::Instant;

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

/// How long a seat waits, before its first event, to hear the other seats' clocks.
pub(crate) const CLOCK_WAIT: Duration = Duration::from_secs(5);

/// How far ahead of this machine's clock an event may be dated before it is held back: a
/// vote dated in the future must not count before its time.
pub(crate) const CLOCK_SKEW_SECS: u64 = 5;

/// Events dated in the future kept until their time, at most, and their bytes at most.
pub(crate) const MAX_HELD: usize = 2_048;
pub(crate) const MAX_HELD_BYTES: usize = 4 << 20;

/// How long a resumed client looks for its seat sitting out, to ask to be dealt in again.
pub(crate) const BACK_WINDOW: Duration = Duration::from_secs(30);

/// How long a leaving seat keeps offering its signed leave to the relays before it goes.
pub(crate) const LEAVE_PUBLISH: Duration = Duration::from_secs(10);

/// How long after a relay's `rate-limited:` this client counts the relays as congested: a
/// minute, the window public relays count in.
pub(crate) const CONGESTED: Duration = Duration::from_secs(60);

/// How long before a step's events turned away under a flood are asked for again.
pub(crate) const ASK_AGAIN: Duration = Duration::from_secs(5);

/// How often a seated client sends its heartbeat ([`wire::KIND_PRESENCE`]).
pub const HEARTBEAT: Duration = Duration::from_secs(10);

/// The events this client signed and owes the relays, in order. A round offers them one by
/// one: a passing refusal (rate limit, pacing, relays down) keeps the event and what follows
/// for the next round, since the rest would meet the same; an event refused for good is set
/// aside for the next round too, and the rest go on.
#[derive(Debug, Default)]
pub struct Outbox {
    unsent: VecDeque<Event>,
    /// Events to publish no earlier than their time (a test's late move).
    delayed: Vec<(Instant, Event)>,
    /// Refused in the round under way.
    refused: VecDeque<Event>,
    /// Events some relay took.
    pub published: u64,
}

impl Outbox {
    /// Queues `ev`, to go at once or, with `at`, no earlier than then.
    pub fn push(&mut self, ev: Event, at: Option<Instant>) {
        match at {
            Some(at) => self.delayed.push((at, ev)),
            None => self.unsent.push_back(ev),
        }
    }

    pub fn extend(&mut self, evs: impl IntoIterator<Item = Event>) {
        self.unsent.extend(evs);
    }

    /// Moves the delayed events whose time has come to the end of the queue.
    pub fn release_due(&mut self, now: Instant) {
        let (due, later): (Vec<_>, Vec<_>) = self.delayed.drain(..).partition(|(at, _)| *at <= now);
        self.delayed = later;
        self.unsent.extend(due.into_iter().map(|(_, ev)| ev));
    }

    /// The next event to offer in this round.
    pub fn take_next(&mut self) -> Option<Event> {
        self.unsent.pop_front()
    }

    /// `n` events reached a relay.
    pub fn sent(&mut self, n: u64) {
        self.published += n;
    }

    /// `ev` was refused; whether the round goes on with the next event (not after a passing
    /// refusal, which the rest would meet too).
    pub fn refused(&mut self, ev: Event, transient: bool) -> bool {
        self.refused.push_back(ev);
        !transient
    }

    /// Ends the round: what was refused, then what was not offered, wait for the next one.
    pub fn end_round(&mut self) {
        self.refused.append(&mut self.unsent);
        std::mem::swap(&mut self.unsent, &mut self.refused);
    }

    /// Events waiting for a relay (the delayed ones not counted).
    pub fn len(&self) -> usize {
        self.unsent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.unsent.is_empty()
    }

    /// Nothing waiting and nothing delayed: the client owes the relays nothing more.
    pub fn drained(&self) -> bool {
        self.unsent.is_empty() && self.delayed.is_empty()
    }

    fn next_delayed(&self) -> Option<Instant> {
        self.delayed.iter().map(|(at, _)| *at).min()
    }
}

/// The runner's state between rounds (see the module's words).
pub struct RunnerState {
    seat: Option<Seat>,
    seats: usize,
    resuming: bool,
    idle: Duration,
    pub clock: TableClock,
    clock_until: Instant,
    pub outbox: Outbox,
    pub health: RelayHealth,
    last_beat: Option<Instant>,
    relays_checked: Option<Instant>,
    held: Vec<Event>,
    last_move: Instant,
    last_position: (u32, String),
    /// Since when the open step has been in every other seat's reach, as far as this client
    /// knows (PROTOCOL.md §7.2: it votes no earlier than the step's allowance after that).
    visible: Instant,
    /// Since when this seat's signed leave has been on its way to the relays.
    leaving: Option<Instant>,
    /// A resumed seat that sits out (it left, crashed or was timed out) asks to be dealt in
    /// again; only while it catches up, so a live player gone idle is not dealt back in unasked.
    back_until: Option<Instant>,
    /// Events of a step the session turned away under a flood and now needs, asked for again.
    asked: HashMap<Want, Instant>,
}

/// What a client starts from.
pub struct Start {
    pub seat: Option<Seat>,
    pub seats: usize,
    pub resuming: bool,
    pub idle: Duration,
    pub relays: usize,
    pub clock_skew: i64,
    /// The session's position when the loop starts.
    pub position: (u32, String),
    /// The machine's clock, unix seconds.
    pub system: u64,
}

impl RunnerState {
    pub fn new(s: Start, now: Instant) -> RunnerState {
        let clock = TableClock::new(s.clock_skew);
        RunnerState {
            seat: s.seat,
            seats: s.seats,
            resuming: s.resuming,
            idle: s.idle,
            health: RelayHealth {
                total: s.relays,
                heard: vec![clock.now(s.system); s.seats],
                ..RelayHealth::default()
            },
            clock,
            clock_until: now + CLOCK_WAIT,
            outbox: Outbox::default(),
            last_beat: None,
            relays_checked: None,
            held: Vec::new(),
            last_move: now,
            last_position: s.position,
            visible: now,
            leaving: None,
            back_until: s.resuming.then(|| now + BACK_WINDOW),
            asked: HashMap::new(),
        }
    }

    /// Of the events the session wants, those not asked for within [`ASK_AGAIN`]; they count as
    /// asked from now.
    pub fn ask_now(&mut self, wanted: Vec<Want>, now: Instant) -> Vec<Want> {
        let due: Vec<Want> = wanted
            .into_iter()
            .filter(|w| {
                self.asked
                    .get(w)
                    .is_none_or(|t| now.duration_since(*t) > ASK_AGAIN)
            })
            .collect();
        for w in &due {
            self.asked.insert(w.clone(), now);
        }
        due
    }

    /// Whether a resumed seat still looks for itself sitting out.
    pub fn looking_back(&self, now: Instant) -> bool {
        self.back_until.is_some_and(|t| now < t)
    }

    /// The seat asked to be dealt in again.
    pub fn came_back(&mut self) {
        self.back_until = None;
    }

    /// Whether the seat holds its first event back to learn the table's clock from the other
    /// seats' heartbeats (each client sends one as it starts, and answers a seat it hears for
    /// the first time), so it does not date that event by a machine clock that is off: the
    /// others would hold it back as dated ahead and could vote it out (PROTOCOL.md §4.4).
    pub fn learning_clock(&self, now: Instant) -> bool {
        self.seat.is_some()
            && !self.resuming
            && self.clock.heard() + 1 < self.seats
            && now < self.clock_until
    }

    /// A refusal of `ev` by every relay (`why` in words); whether the round goes on.
    pub fn refused(&mut self, ev: Event, why: String, transient: bool) -> bool {
        self.health.last_error = Some(why);
        self.outbox.refused(ev, transient)
    }

    /// Ends a publish round.
    pub fn end_round(&mut self) {
        self.outbox.end_round();
        self.health.unsent = self.outbox.len();
    }

    /// The seat signed its leave.
    pub fn leave(&mut self, now: Instant) {
        self.leaving = Some(now);
    }

    pub fn is_leaving(&self) -> bool {
        self.leaving.is_some()
    }

    /// A leaving seat is done once a relay took everything it owed, or after
    /// [`LEAVE_PUBLISH`]: then whether the others were told. `unsigned` is whether the session
    /// still holds payloads not signed yet (its leave among them, while a shuffle it carries is
    /// still being made): an empty outbox then does not mean the leave went out.
    pub fn left(&self, now: Instant, unsigned: bool) -> Option<bool> {
        let since = self.leaving?;
        let told = self.outbox.is_empty() && !unsigned;
        (told || now.duration_since(since) > LEAVE_PUBLISH).then_some(told)
    }

    /// Whether to send a heartbeat now (and count it sent): a seated client says it is here
    /// every [`HEARTBEAT`] while the table runs, three times slower while a relay throttles
    /// (its room goes to the table's events first), and never while events wait or a paced
    /// relay has no room to spare for a move.
    pub fn beat_due(&mut self, now: Instant, finished: bool, limited: bool, room: bool) -> bool {
        let every = if limited { HEARTBEAT * 3 } else { HEARTBEAT };
        let due = self.seat.is_some()
            && self.leaving.is_none()
            && !finished
            && self
                .last_beat
                .is_none_or(|t| now.duration_since(t) >= every)
            && self.outbox.is_empty()
            && room;
        if due {
            self.last_beat = Some(now);
        }
        due
    }

    /// Whether to read the relays' state again (once a second), counting it read.
    pub fn health_due(&mut self, now: Instant) -> bool {
        let due = self
            .relays_checked
            .is_none_or(|t| now.duration_since(t) > Duration::from_secs(1));
        if due {
            self.relays_checked = Some(now);
        }
        due
    }

    /// The relays' state as read: how many are connected and what to tell the person, with
    /// this machine's clock when it reads off beyond the bound.
    pub fn relays_read(&mut self, connected: usize, notes: Vec<String>) {
        self.health.connected = connected;
        self.health.notes = notes;
        if let Some(off) = self.clock.off_by() {
            // Beyond the bound the client keeps its own clock: votes and deadlines then
            // disagree with the others' by that much, and the person should fix it.
            self.health.notes.push(format!(
                "this computer's clock reads {} s {} the other players' clocks; set it right \
                 (deadlines and votes are judged by the time events are signed)",
                off.unsigned_abs(),
                if off > 0 { "behind" } else { "ahead of" }
            ));
        }
    }

    /// Where the table is now: a new position is a move (the idle wait starts again) and a
    /// step the others see from now; so is any moment this client's own events that lead to
    /// the step have not reached a relay (until then nobody can be late for it).
    pub fn progress(&mut self, position: (u32, String), now: Instant) {
        if position != self.last_position {
            self.last_position = position;
            self.last_move = now;
            self.visible = now;
        }
        if !self.outbox.is_empty() {
            self.visible = now;
        }
    }

    /// How long the open step must have been in the others' reach before this client votes:
    /// the step's time and the relays' allowance, and a relay's window more when relays
    /// throttle this client (they likely throttle the others too; PROTOCOL.md §7.2).
    pub fn patience(&self, step_secs: u64, relay_secs: u64, limited: bool) -> Duration {
        let congested = limited || !self.outbox.is_empty();
        Duration::from_secs(step_secs + relay_secs)
            + if congested { CONGESTED } else { Duration::ZERO }
    }

    pub fn seen_for(&self, now: Instant) -> Duration {
        now.duration_since(self.visible)
    }

    /// Notes who was heard from in a batch: anything a seat signed says its client is alive;
    /// heartbeats say only that, and how their clocks read. Returns the batch without them.
    pub fn heard(&mut self, batch: Vec<Event>, seat_keys: &[PublicKey], system: u64) -> Vec<Event> {
        let presence = Kind::from(wire::KIND_PRESENCE);
        for ev in &batch {
            let Some(i) = seat_keys.iter().position(|k| *k == ev.pubkey) else {
                continue;
            };
            if ev.kind == presence && Some(i as Seat) != self.seat {
                if let Some(c) = wire::presence_clock(ev) {
                    if self
                        .clock
                        .observe(i as Seat, ev.created_at.as_secs(), c, system)
                    {
                        // A seat heard for the first time may have subscribed after our last
                        // heartbeat: answer it now, so it learns our clock before it signs its
                        // first event.
                        self.last_beat = None;
                    }
                }
            }
            let now = self.clock.now(system);
            self.health.heard[i] = self.health.heard[i].max(ev.created_at.as_secs().min(now));
        }
        batch.into_iter().filter(|e| e.kind != presence).collect()
    }

    /// Of `batch`, the events to check now; those dated ahead of the table's clock (`table`,
    /// unix seconds) wait for their time, within a bound: a seated key dating events far in the
    /// future must not grow this client's memory. Past the bound the furthest-dated are dropped
    /// (an honest client's clock is never that far off; a relay can give them again later).
    pub fn hold(&mut self, batch: Vec<Event>, table: u64) -> Vec<Event> {
        let (now, later): (Vec<Event>, Vec<Event>) = batch
            .into_iter()
            .partition(|e| e.created_at.as_secs() <= table + CLOCK_SKEW_SECS);
        self.held.extend(later);
        self.held.sort_by_key(|e| e.created_at);
        let mut bytes = 0usize;
        let keep = self
            .held
            .iter()
            .take(MAX_HELD)
            .take_while(|e| {
                bytes += e.content.len();
                bytes <= MAX_HELD_BYTES
            })
            .count();
        self.held.truncate(keep);
        now
    }

    /// The held events whose time has come by the table's clock (`table`, unix seconds).
    pub fn release_held(&mut self, table: u64) -> Vec<Event> {
        let (due, later): (Vec<Event>, Vec<Event>) = self
            .held
            .drain(..)
            .partition(|e| e.created_at.as_secs() <= table + CLOCK_SKEW_SECS);
        self.held = later;
        due
    }

    /// How long the table may stay still, in all, before the client gives up.
    pub fn idle(&self) -> Duration {
        self.idle
    }

    /// How long the table may stay still from now before the client gives up.
    pub fn idle_left(&self, now: Instant) -> Duration {
        self.idle.saturating_sub(now.duration_since(self.last_move))
    }

    /// The other seats not heard from for the idle wait, by the table's clock (`table`).
    pub fn silent(&self, table: u64) -> Vec<Seat> {
        (0..self.seats as Seat)
            .filter(|s| Some(*s) != self.seat)
            .filter(|s| table.saturating_sub(self.health.heard[*s as usize]) >= self.idle.as_secs())
            .collect()
    }

    /// How long to sleep when nothing arrives: until a vote may be due (and the step has been
    /// seen for `patience`), a held event's time, a retry of what waits to be sent, the end of
    /// learning the clock, the next heartbeat, a delayed event, or the idle limit.
    pub fn wake(
        &self,
        now: Instant,
        table: u64,
        vote_due: Option<u64>,
        patience: Duration,
    ) -> Duration {
        let mut wake = Duration::from_secs(3600);
        if let Some(t) = vote_due {
            wake = wake.min(Duration::from_secs(t.saturating_sub(table).max(1)));
            if self.seen_for(now) < patience {
                wake = wake.min(
                    patience
                        .saturating_sub(self.seen_for(now))
                        .max(Duration::from_millis(100)),
                );
            }
        }
        if let Some(t) = self.held.iter().map(|e| e.created_at.as_secs()).min() {
            wake = wake.min(Duration::from_secs(
                t.saturating_sub(table + CLOCK_SKEW_SECS).max(1),
            ));
        }
        if !self.outbox.is_empty() {
            wake = wake.min(Duration::from_millis(500));
        }
        if self.learning_clock(now) {
            wake = wake.min(
                self.clock_until
                    .saturating_duration_since(now)
                    .max(Duration::from_millis(50)),
            );
        }
        if let Some(t) = self.last_beat {
            wake = wake.min(
                HEARTBEAT
                    .saturating_sub(now.duration_since(t))
                    .max(Duration::from_millis(100)),
            );
        }
        if let Some(at) = self.outbox.next_delayed() {
            wake = wake.min(at.saturating_duration_since(now));
        }
        wake.min(self.idle_left(now))
    }
}

/// What a seat that leaves is told: whether the others were told, and that a table where a
/// seat sits out deals it in again on `resume`.
pub fn left_words(told: bool, sits_out: bool, last_one: bool, last_error: Option<&str>) -> String {
    if told && last_one {
        "you left the table: the others were told, and with one player left the table is over"
            .into()
    } else if told && sits_out {
        "you left the table: the others were told and go on without you; your chips stay and \
         `tolerance resume` deals you in again"
            .into()
    } else if told {
        "you left the table: the others were told and go on without you".into()
    } else {
        format!(
            "you left the table, but no relay took the news ({}): the others will go on once \
             your time runs out",
            last_error.unwrap_or_default()
        )
    }
}

/// Why the table stopped moving, in words. With two or more other seats silent, no vote can
/// remove them (a seat is timed out only when every other seat votes it out), so the table can
/// only go on when one of them is back: say so rather than suggest `resume` will do it alone.
pub fn stall_words(
    idle: Duration,
    a: &Awaiting,
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
        "return" => "a player to come back",
        other => other,
    };
    let head = format!(
        "the table has not moved for {} s: it waits for {what} from {}",
        idle.as_secs(),
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

/// How long a seat waits for a table that does not move before it gives up: long enough to sit
/// through a step and its votes, or a wait for a crashed player to come back and the votes after
/// it (PROTOCOL §7.10).
pub fn idle_wait(d: &wire::Deadlines) -> Duration {
    Duration::from_millis(
        (d.move_ms.max(d.crypto_ms) * 4 + 60_000).max(d.return_ms + 2 * d.relay_ms + 120_000),
    )
}

/// The line every interface ends a table with: its result, and the events checked and
/// rejected.
pub fn over_line(result: &str, events: u64, rejected: usize) -> String {
    format!("table over: {result} ({events} events checked, {rejected} rejected)")
}

/// How seat `s` is called at a table whose seats are named `names` ("you", a profile name, a
/// short npub, "bot 2"); a seat past the list is "seat N".
pub fn seat_name(names: &[String], s: Seat) -> String {
    names
        .get(s as usize)
        .cloned()
        .unwrap_or_else(|| format!("seat {s}"))
}

/// The result line, followed by who was removed from the table and why, so every end screen
/// says it ("… — Ben stopped answering").
pub fn with_removals(
    result: String,
    verdicts: &[Verdict],
    names: &dyn Fn(Seat) -> String,
) -> String {
    // A seat dealt in again after sitting out is told as back, not as gone.
    let back_after = |i: usize, s: Seat| {
        verdicts[i + 1..]
            .iter()
            .any(|v| matches!(v, Verdict::Back { seats, .. } if seats.contains(&s)))
    };
    let removed: Vec<String> = verdicts
        .iter()
        .enumerate()
        .filter_map(|(i, v)| match v {
            Verdict::Removed {
                seats,
                reason,
                sitting_out,
                ..
            } => Some(
                seats
                    .iter()
                    .map(|s| {
                        let gone = crate::games::ui::words::gone(names(*s), *reason);
                        match (*sitting_out, back_after(i, *s)) {
                            (true, true) => format!("{gone}, sat out and came back"),
                            (true, false) => format!("{gone}, and {} sat out", names(*s)),
                            _ => gone,
                        }
                    })
                    .collect::<Vec<_>>(),
            ),
            Verdict::NotBack { seats, .. } => Some(
                seats
                    .iter()
                    .map(|s| format!("{} did not come back in time", names(*s)))
                    .collect(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::{EventBuilder, Keys, Timestamp};

    const T0: u64 = 1_700_000_000;

    fn note(keys: &Keys, at: u64, text: &str) -> Event {
        EventBuilder::text_note(text)
            .custom_created_at(Timestamp::from(at))
            .sign_with_keys(keys)
            .unwrap()
    }

    fn beat(keys: &Keys, host: &PublicKey, at: u64) -> Event {
        wire::presence_event(host, "t", 0)
            .custom_created_at(Timestamp::from(at))
            .sign_with_keys(keys)
            .unwrap()
    }

    /// Seat 0 of three, fresh (not resumed), an idle wait of a minute.
    fn seated(now: Instant) -> RunnerState {
        seated_idle(now, Duration::from_secs(60))
    }

    fn seated_idle(now: Instant, idle: Duration) -> RunnerState {
        RunnerState::new(
            Start {
                seat: Some(0),
                seats: 3,
                resuming: false,
                idle,
                relays: 2,
                clock_skew: 0,
                position: (0, String::new()),
                system: T0,
            },
            now,
        )
    }

    #[test]
    fn a_passing_refusal_keeps_the_event_and_what_follows_in_order() {
        let k = Keys::generate();
        let (a, b, c) = (note(&k, T0, "a"), note(&k, T0, "b"), note(&k, T0, "c"));
        let mut s = seated(Instant::now());
        s.outbox.extend([a.clone(), b.clone(), c.clone()]);
        let first = s.outbox.take_next().unwrap();
        assert_eq!(first.id, a.id);
        assert!(!s.refused(first, "rate-limited: slow down".into(), true));
        s.end_round();
        assert_eq!(s.health.unsent, 3);
        assert_eq!(
            s.health.last_error.as_deref(),
            Some("rate-limited: slow down")
        );
        let order: Vec<_> = std::iter::from_fn(|| s.outbox.take_next())
            .map(|e| e.id)
            .collect();
        assert_eq!(order, vec![a.id, b.id, c.id]);
    }

    #[test]
    fn an_event_refused_for_good_waits_aside_while_the_rest_go_on() {
        let k = Keys::generate();
        let (a, b, c) = (note(&k, T0, "a"), note(&k, T0, "b"), note(&k, T0, "c"));
        let mut s = seated(Instant::now());
        s.outbox.extend([a.clone(), b.clone(), c.clone()]);
        let first = s.outbox.take_next().unwrap();
        assert!(s.refused(first, "blocked: no".into(), false));
        let second = s.outbox.take_next().unwrap();
        assert_eq!(second.id, b.id);
        s.outbox.sent(1);
        let third = s.outbox.take_next().unwrap();
        assert_eq!(third.id, c.id);
        s.outbox.sent(1);
        assert!(s.outbox.take_next().is_none());
        s.end_round();
        assert_eq!((s.outbox.len(), s.outbox.published), (1, 2));
        assert_eq!(s.outbox.take_next().map(|e| e.id), Some(a.id));
    }

    #[test]
    fn a_delayed_event_waits_for_its_time_and_counts_as_owed() {
        let k = Keys::generate();
        let t = Instant::now();
        let mut s = seated(t);
        s.outbox
            .push(note(&k, T0, "late"), Some(t + Duration::from_secs(2)));
        assert!(s.outbox.is_empty() && !s.outbox.drained());
        s.outbox.release_due(t + Duration::from_secs(1));
        assert!(s.outbox.is_empty());
        assert_eq!(
            s.wake(t + Duration::from_secs(1), T0 + 1, None, Duration::ZERO),
            Duration::from_secs(1)
        );
        s.outbox.release_due(t + Duration::from_secs(2));
        assert_eq!(s.outbox.len(), 1);
    }

    #[test]
    fn heartbeats_go_every_ten_seconds_slower_when_throttled_and_never_with_events_waiting() {
        let t = Instant::now();
        let mut s = seated(t);
        let at = |secs: u64| t + Duration::from_secs(secs);
        assert!(s.beat_due(at(0), false, false, true));
        assert!(!s.beat_due(at(9), false, false, true));
        assert!(s.beat_due(at(10), false, false, true));
        // A throttling relay: every 30 s.
        assert!(!s.beat_due(at(20), false, true, true));
        assert!(s.beat_due(at(40), false, true, true));
        // No room left, the table over, or events waiting: none.
        assert!(!s.beat_due(at(60), false, false, false));
        assert!(!s.beat_due(at(60), true, false, true));
        s.outbox.extend([note(&Keys::generate(), T0, "x")]);
        assert!(!s.beat_due(at(60), false, false, true));
        // A spectator never says it is here.
        let mut watcher = RunnerState::new(
            Start {
                seat: None,
                seats: 3,
                resuming: false,
                idle: Duration::from_secs(60),
                relays: 1,
                clock_skew: 0,
                position: (0, String::new()),
                system: T0,
            },
            t,
        );
        assert!(!watcher.beat_due(at(0), false, false, true));
    }

    #[test]
    fn a_seat_heard_for_the_first_time_is_answered_at_once_and_heartbeats_are_not_events() {
        let t = Instant::now();
        let host = Keys::generate().public_key();
        let seats: Vec<Keys> = (0..3).map(|_| Keys::generate()).collect();
        let keys: Vec<PublicKey> = seats.iter().map(|k| k.public_key()).collect();
        let mut s = seated(t);
        assert!(s.learning_clock(t));
        assert!(s.beat_due(t, false, false, true));
        let batch = vec![
            beat(&seats[1], &host, T0 + 3),
            note(&seats[2], T0 + 4, "a move"),
        ];
        let left = s.heard(batch, &keys, T0 + 5);
        assert_eq!(left.len(), 1, "the heartbeat is not fed to the session");
        assert_eq!(&s.health.heard[1..], &[T0 + 3, T0 + 4]);
        // Seat 1's clock heard for the first time: our heartbeat goes again now.
        assert!(s.beat_due(t + Duration::from_secs(1), false, false, true));
        // Still one seat's clock to hear; after CLOCK_WAIT the seat signs anyway.
        assert!(s.learning_clock(t + Duration::from_secs(1)));
        assert!(!s.learning_clock(t + CLOCK_WAIT));
    }

    #[test]
    fn events_dated_ahead_are_held_until_their_time_within_a_bound() {
        let k = Keys::generate();
        let t = Instant::now();
        let mut s = seated(t);
        let now = note(&k, T0 + CLOCK_SKEW_SECS, "now");
        let ahead = note(&k, T0 + 100, "ahead");
        let fed = s.hold(vec![now.clone(), ahead.clone()], T0);
        assert_eq!(fed.iter().map(|e| e.id).collect::<Vec<_>>(), vec![now.id]);
        assert!(s.release_held(T0 + 50).is_empty());
        assert_eq!(
            // Past learning the clock, 50 s of the idle minute left: the held event's time.
            s.wake(t + Duration::from_secs(10), T0 + 50, None, Duration::ZERO),
            Duration::from_secs(100 - 50 - CLOCK_SKEW_SECS)
        );
        let due = s.release_held(T0 + 100 - CLOCK_SKEW_SECS);
        assert_eq!(due.iter().map(|e| e.id).collect::<Vec<_>>(), vec![ahead.id]);
        // Past the bound, the furthest-dated go.
        let many: Vec<Event> = (0..=MAX_HELD as u64)
            .map(|i| note(&k, T0 + 1_000 + i, "x"))
            .collect();
        assert!(s.hold(many, T0).is_empty());
        let kept = s.release_held(u64::MAX - CLOCK_SKEW_SECS);
        assert_eq!(kept.len(), MAX_HELD);
        assert_eq!(
            kept.last().map(|e| e.created_at.as_secs()),
            Some(T0 + 1_000 + MAX_HELD as u64 - 1)
        );
    }

    #[test]
    fn a_still_table_names_the_seats_not_heard_from() {
        let t = Instant::now();
        let seats: Vec<Keys> = (0..3).map(|_| Keys::generate()).collect();
        let keys: Vec<PublicKey> = seats.iter().map(|k| k.public_key()).collect();
        let mut s = seated(t);
        assert_eq!(
            s.idle_left(t + Duration::from_secs(20)),
            Duration::from_secs(40)
        );
        s.progress((1, "head".into()), t + Duration::from_secs(20));
        assert_eq!(
            s.idle_left(t + Duration::from_secs(30)),
            Duration::from_secs(50)
        );
        assert_eq!(s.silent(T0 + 59), Vec::<Seat>::new());
        assert_eq!(s.silent(T0 + 60), vec![1, 2]);
        s.heard(vec![note(&seats[2], T0 + 30, "alive")], &keys, T0 + 31);
        assert_eq!(s.silent(T0 + 60), vec![1]);
    }

    #[test]
    fn a_step_counts_as_seen_from_the_move_or_from_our_events_reaching_a_relay() {
        let t = Instant::now();
        let mut s = seated_idle(t, Duration::from_secs(3600));
        let at = |secs: u64| t + Duration::from_secs(secs);
        s.progress((1, "a".into()), at(10));
        assert_eq!(s.seen_for(at(15)), Duration::from_secs(5));
        s.outbox.extend([note(&Keys::generate(), T0, "mine")]);
        s.progress((1, "a".into()), at(20));
        assert_eq!(s.seen_for(at(20)), Duration::ZERO);
        // Waiting events count as congestion: a relay's window more before voting.
        assert_eq!(
            s.patience(30, 10, false),
            Duration::from_secs(40) + CONGESTED
        );
        let _ = s.outbox.take_next();
        assert_eq!(s.patience(30, 10, false), Duration::from_secs(40));
        assert_eq!(
            s.patience(30, 10, true),
            Duration::from_secs(40) + CONGESTED
        );
        // A vote due in 5 s, the step seen long enough: wake then.
        assert_eq!(
            s.wake(at(100), T0 + 100, Some(T0 + 105), Duration::from_secs(40)),
            Duration::from_secs(5)
        );
        // Not seen long enough yet: wake when it is.
        s.progress((2, "b".into()), at(100));
        assert_eq!(
            s.wake(at(101), T0 + 101, Some(T0 + 200), Duration::from_secs(40)),
            Duration::from_secs(39)
        );
    }

    #[test]
    fn wanted_events_are_asked_for_again_only_after_a_while() {
        let t = Instant::now();
        let mut s = seated(t);
        let w = Want {
            seat: 1,
            step: 4,
            head: "ab".into(),
        };
        assert_eq!(s.ask_now(vec![w.clone()], t), vec![w.clone()]);
        assert!(s.ask_now(vec![w.clone()], t + ASK_AGAIN).is_empty());
        assert_eq!(
            s.ask_now(vec![w.clone()], t + ASK_AGAIN + Duration::from_millis(1)),
            vec![w]
        );
    }

    #[test]
    fn a_leaving_seat_goes_once_its_leave_is_out_or_after_a_while() {
        let t = Instant::now();
        let mut s = seated(t);
        assert_eq!(s.left(t, false), None);
        s.outbox.extend([note(&Keys::generate(), T0, "leave")]);
        s.leave(t);
        assert!(s.is_leaving());
        assert!(!s.beat_due(t, false, false, true));
        assert_eq!(s.left(t + LEAVE_PUBLISH, false), None);
        assert_eq!(
            s.left(t + LEAVE_PUBLISH + Duration::from_millis(1), false),
            Some(false)
        );
        let _ = s.outbox.take_next();
        // A leave the session holds unsigned (its shuffle still being made) is not out yet.
        assert_eq!(s.left(t, true), None);
        assert_eq!(
            s.left(t + LEAVE_PUBLISH + Duration::from_millis(1), true),
            Some(false)
        );
        assert_eq!(s.left(t, false), Some(true));
        assert!(
            left_words(true, true, false, None).contains("`tolerance resume` deals you in again")
        );
        assert_eq!(
            left_words(true, false, false, None),
            "you left the table: the others were told and go on without you"
        );
        // Heads-up, leaving ends the table: it does not promise the others go on.
        let alone = left_words(true, true, true, None);
        assert!(
            alone.contains("the table is over") && !alone.contains("go on"),
            "{alone}"
        );
        assert!(left_words(false, false, false, Some("relay down")).contains("(relay down)"));
    }

    #[test]
    fn a_resumed_seat_looks_for_itself_sitting_out_for_a_while() {
        let t = Instant::now();
        let mut s = RunnerState::new(
            Start {
                seat: Some(1),
                seats: 2,
                resuming: true,
                idle: Duration::from_secs(60),
                relays: 1,
                clock_skew: 0,
                position: (0, String::new()),
                system: T0,
            },
            t,
        );
        assert!(
            !s.learning_clock(t),
            "a resumed seat's clock was learnt before"
        );
        assert!(s.looking_back(t + BACK_WINDOW - Duration::from_millis(1)));
        assert!(!s.looking_back(t + BACK_WINDOW));
        s.came_back();
        assert!(!s.looking_back(t));
    }

    #[test]
    fn a_stall_with_two_silent_seats_says_the_table_needs_one_of_them_back() {
        let a = Awaiting {
            step: 12,
            what: "chance",
            seats: vec![1, 2],
        };
        let names = |s: Seat| ["you", "Ann", "Ben", "Cy"][s as usize].to_string();
        let idle = Duration::from_secs(300);
        let two = stall_words(idle, &a, &[1, 2], &names);
        assert_eq!(
            two,
            "the table has not moved for 300 s: it waits for their part of the \
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

    #[test]
    fn the_end_line_tells_a_seat_that_came_back_as_back_and_one_that_did_not_as_gone() {
        use crate::engine::ForfeitReason;
        let names = |s: Seat| ["you", "Ben"][s as usize].to_string();
        let out = |seats: Vec<Seat>| Verdict::Removed {
            step: 4,
            seats,
            reason: ForfeitReason::Absent,
            sitting_out: true,
        };
        let came_back = with_removals(
            "6 hands played".into(),
            &[
                out(vec![1]),
                Verdict::Back {
                    step: 9,
                    seats: vec![1],
                },
            ],
            &names,
        );
        assert!(
            came_back.ends_with("Ben stopped answering, sat out and came back"),
            "{came_back}"
        );
        let gone = with_removals(
            "3 hands played".into(),
            &[
                out(vec![1]),
                Verdict::NotBack {
                    step: 9,
                    seats: vec![1],
                },
            ],
            &names,
        );
        assert!(
            gone.contains("Ben stopped answering, and Ben sat out")
                && gone.ends_with("Ben did not come back in time"),
            "{gone}"
        );
        // Issue 30: the reader who left with q-then-y, sat out and resumed into a seat again
        // is not told it left and sat out.
        let left = Verdict::Removed {
            step: 4,
            seats: vec![0],
            reason: ForfeitReason::Left,
            sitting_out: true,
        };
        let back = with_removals(
            "2 hands played".into(),
            &[
                left,
                Verdict::Back {
                    step: 9,
                    seats: vec![0],
                },
            ],
            &names,
        );
        assert!(
            back.ends_with("you left the table, sat out and came back")
                && !back.contains("left the table and sat out"),
            "{back}"
        );
    }
}
