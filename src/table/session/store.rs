//! The events a client holds, bounded per seat so that a seated key cannot grow another
//! client's memory (PROTOCOL.md §4.3), and kept by rules that look at the events themselves —
//! their step, the head they name, their time and id — rather than at the order they arrived
//! in. What a bound turns away is noted, so that the client can ask the relays for it again
//! when the table reaches it ([`Session::wanted`]): a flood can cost a client a second look,
//! never the event the table needs.

use super::{Held, Session};
use crate::engine::{Game, Seat};
use crate::wire::log::Body;
use nostr::prelude::EventId;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Contributions kept per seat and step: on the head the table has there first (a fork needs
/// two), then the lowest ids.
const MAX_PER_STEP: usize = 4;
/// Votes kept per seat and step: on the head first, then the earliest.
const MAX_VOTES_PER_STEP: usize = 4;
/// Bytes of events for steps beyond the next one kept per seat: a seated player cannot make
/// every other client hold an unbounded backlog.
const MAX_AHEAD_BYTES: usize = 8 << 20;
/// Leaves (and returns) kept per seat: the ones for the earliest steps.
const MAX_MARKS: usize = 8;
/// Steps noted per seat as having lost an event to a bound; past this, every later step is.
const MAX_DROP_MARKS: usize = 1024;

/// The table's events by step, as held.
#[derive(Default)]
pub(crate) struct Log {
    /// Contributions by (step, seat), distinct.
    pub(super) contributions: BTreeMap<(u32, Seat), Vec<Held>>,
    /// Votes by step and voter.
    pub(super) votes: BTreeMap<u32, BTreeMap<Seat, Vec<Held>>>,
    /// Each seat's signed leaves, by step (a seat that came back may leave again).
    pub(super) leaves: BTreeMap<Seat, Vec<Held>>,
    /// Each seat's signed returns from sitting out, by step.
    pub(super) backs: BTreeMap<Seat, Vec<Held>>,
    pub(super) ids: HashSet<EventId>,
    /// Bytes held by (seat, step), for the bound on what a seat may have waiting ahead.
    pub(super) sizes: BTreeMap<(Seat, u32), usize>,
    /// Steps at which a bound turned away an event of a seat.
    pub(super) dropped: BTreeMap<Seat, BTreeSet<u32>>,
    /// A seat that lost events at more steps than are noted: from this step on, any may have.
    pub(super) flooded: BTreeMap<Seat, u32>,
}

impl Log {
    pub(crate) fn at(&self, step: u32, seat: Seat) -> &[Held] {
        self.contributions
            .get(&(step, seat))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub(crate) fn step(&self, step: u32) -> impl Iterator<Item = &Held> {
        self.contributions
            .range((step, 0)..=(step, Seat::MAX))
            .flat_map(|(_, v)| v.iter())
    }

    pub(crate) fn after(&self, step: u32) -> impl Iterator<Item = &Held> {
        self.contributions
            .range((step + 1, 0)..)
            .flat_map(|(_, v)| v.iter())
    }

    pub(crate) fn votes_at(&self, step: u32) -> Option<&BTreeMap<Seat, Vec<Held>>> {
        self.votes.get(&step)
    }

    /// `seat`'s leave, if it signed one for a step from `from` (when it was last dealt back
    /// in) to `step`.
    pub(crate) fn left_by(&self, seat: Seat, step: u32, from: u32) -> Option<&Held> {
        self.leaves
            .get(&seat)?
            .iter()
            .find(|h| (from..=step).contains(&h.payload.step))
    }

    /// Whether `seat` signed that it is back at step `from` or later.
    pub(crate) fn back_since(&self, seat: Seat, from: u32) -> bool {
        self.backs
            .get(&seat)
            .is_some_and(|v| v.iter().any(|h| h.payload.step >= from))
    }

    fn note_dropped(&mut self, seat: Seat, step: u32) {
        if self.flooded.get(&seat).is_some_and(|f| *f <= step) {
            return;
        }
        let marks = self.dropped.entry(seat).or_default();
        marks.insert(step);
        if marks.len() > MAX_DROP_MARKS {
            let from = marks.iter().next().copied().unwrap_or(step);
            marks.clear();
            let f = self.flooded.entry(seat).or_insert(from);
            *f = (*f).min(from);
        }
    }

    /// Whether a bound turned away an event of `seat` for `step`.
    pub(crate) fn may_have_dropped(&self, seat: Seat, step: u32) -> bool {
        self.flooded.get(&seat).is_some_and(|f| *f <= step)
            || self.dropped.get(&seat).is_some_and(|m| m.contains(&step))
    }

    fn forget(&mut self, h: &Held, size: usize) {
        self.ids.remove(&h.id());
        if let Some(b) = self.sizes.get_mut(&(h.seat, h.payload.step)) {
            *b = b.saturating_sub(size);
        }
        self.note_dropped(h.seat, h.payload.step);
    }
}

/// Events of one seat naming one head, which the client should ask its relays for again: the
/// table waits there for that seat, and a bound turned away an event of it for that step.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Want {
    pub seat: Seat,
    pub step: u32,
    /// The head the events name (their `prev`, and their `e` tag).
    pub head: String,
}

/// What a bounded list did with an event.
enum Admit {
    /// Kept, turning away the event it outranks, if the list was full.
    Kept(Option<Box<Held>>),
    Refused,
}

/// Where an event goes in a bounded list: its rank (lower is kept first) decides between it and
/// the worst held, never its arrival.
fn admit<K: Ord>(
    list: &mut Vec<Held>,
    held: Held,
    max: usize,
    rank: impl Fn(&Held) -> K,
    applied: &dyn Fn(&Held) -> bool,
) -> Admit {
    if list.len() < max {
        list.push(held);
        return Admit::Kept(None);
    }
    // The worst one not applied on the current branch (that one stays while it counts).
    let worst = list
        .iter()
        .enumerate()
        .filter(|(_, h)| !applied(h))
        .max_by_key(|(_, h)| rank(h))
        .map(|(i, _)| i);
    match worst {
        Some(i) if rank(&held) < rank(&list[i]) => {
            let out = list.swap_remove(i);
            list.push(held);
            Admit::Kept(Some(Box::new(out)))
        }
        _ => Admit::Refused,
    }
}

impl<G: Game> Session<G> {
    /// The head of `step` on the current branch, when this client has it (the open step, or
    /// an earlier one still among the snapshots).
    pub(super) fn head_at(&self, step: u32) -> Option<&str> {
        if step == self.r.step {
            return Some(&self.r.head);
        }
        self.snapshots.get(&step).map(|r| r.head.as_str())
    }

    /// Keeps `held` within the bounds, or turns it (or an event it outranks) away. Returns
    /// whether it is kept.
    pub(super) fn store(&mut self, held: Held, size: usize) -> bool {
        let (seat, step) = (held.seat, held.payload.step);
        if step > self.r.step + 1 && self.over_ahead_budget(seat, size) {
            self.log.note_dropped(seat, step);
            self.stats.dropped += 1;
            return false;
        }
        let head = self.head_at(step).map(str::to_owned);
        let off_head = move |h: &Held| head.as_deref().is_some_and(|x| x != h.payload.prev);
        let applied: HashSet<EventId> = self
            .log
            .contributions
            .get(&(step, seat))
            .map(|v| {
                v.iter()
                    .map(Held::id)
                    .filter(|id| self.r.applied.contains(id))
                    .collect()
            })
            .unwrap_or_default();
        let is_applied = |h: &Held| applied.contains(&h.id());
        let admitted = match held.payload.body {
            Body::Leave {} | Body::Back {} => {
                let marks = match held.payload.body {
                    Body::Leave {} => &mut self.log.leaves,
                    _ => &mut self.log.backs,
                };
                let v = marks.entry(seat).or_default();
                // One per step (the lowest id), the earliest steps first.
                let admitted = match v.iter().position(|h| h.payload.step == step) {
                    Some(i) if v[i].id() <= held.id() => Admit::Refused,
                    Some(i) => {
                        let out = v.remove(i);
                        v.push(held);
                        Admit::Kept(Some(Box::new(out)))
                    }
                    None => admit(v, held, MAX_MARKS, |h| (h.payload.step, h.id()), &|_| false),
                };
                v.sort_by_key(|h| h.payload.step);
                admitted
            }
            Body::Vote { .. } => {
                let per = self
                    .log
                    .votes
                    .entry(step)
                    .or_default()
                    .entry(seat)
                    .or_default();
                admit(
                    per,
                    held,
                    MAX_VOTES_PER_STEP,
                    |h| (off_head(h), h.at(), h.id()),
                    &|_| false,
                )
            }
            _ => {
                let list = self.log.contributions.entry((step, seat)).or_default();
                admit(
                    list,
                    held,
                    MAX_PER_STEP,
                    |h| (off_head(h), h.id()),
                    &is_applied,
                )
            }
        };
        match admitted {
            Admit::Kept(evicted) => {
                if let Some(out) = evicted {
                    let bytes = out.size;
                    self.log.forget(&out, bytes);
                    self.stats.dropped += 1;
                }
                *self.log.sizes.entry((seat, step)).or_default() += size;
                true
            }
            Admit::Refused => {
                self.log.note_dropped(seat, step);
                self.stats.dropped += 1;
                false
            }
        }
    }

    /// Whether `size` more bytes from `seat` for steps beyond the next would pass the budget
    /// every seat has there, votes and contributions together: a seated key cannot grow a
    /// client's memory by writing far ahead of the table (each step alone is capped too).
    fn over_ahead_budget(&self, seat: Seat, size: usize) -> bool {
        let ahead: usize = self
            .log
            .sizes
            .range((seat, self.r.step + 2)..=(seat, u32::MAX))
            .map(|(_, b)| *b)
            .sum();
        ahead + size > MAX_AHEAD_BYTES
    }

    /// What this client should ask its relays for again: where the open step waits for a
    /// seat (its contribution, or its vote) that a bound turned an event of away.
    pub fn wanted(&self) -> Vec<Want> {
        if self.r.finished {
            return Vec::new();
        }
        let step = self.r.step;
        let head = self.r.head.clone();
        let mut seats: BTreeSet<Seat> = self.awaited().into_iter().collect();
        seats.extend(self.voters());
        seats
            .into_iter()
            .filter(|x| self.log.may_have_dropped(*x, step))
            .filter(|x| {
                self.candidates(*x).is_empty()
                    && !self
                        .log
                        .votes_at(step)
                        .and_then(|m| m.get(x))
                        .is_some_and(|v| v.iter().any(|h| h.payload.prev == head))
            })
            .map(|seat| Want {
                seat,
                step,
                head: head.clone(),
            })
            .collect()
    }
}

/// Where a log event says it belongs, read without checking it (for ordering only).
#[derive(serde::Deserialize)]
struct Position {
    #[serde(default)]
    step: u32,
    #[serde(default)]
    prev: String,
}

impl<G: Game> Session<G> {
    /// Whether this client holds the event (it was kept, not turned away by a bound).
    pub fn holds(&self, id: &EventId) -> bool {
        self.log.ids.contains(id)
    }

    /// Takes in a whole history at once (a journal, a relay's stored events, everything
    /// `verify` fetched): in step order, so that the table's own events are in hand when their
    /// steps open, then again whatever a bound turned away and the table turns out to need. The
    /// state is the same as from any other order; only a flood's cost changes.
    pub fn handle_all(&mut self, events: &[nostr::prelude::Event]) -> Vec<super::Violation> {
        let before = self.violations.len();
        let mut order: Vec<(u32, String, &nostr::prelude::Event)> = events
            .iter()
            .map(|e| {
                let p: Position = serde_json::from_str(&e.content).unwrap_or(Position {
                    step: u32::MAX,
                    prev: String::new(),
                });
                (p.step, p.prev, e)
            })
            .collect();
        order.sort_by_key(|a| (a.0, a.2.created_at, a.2.id));
        for (_, _, e) in &order {
            self.handle(e);
        }
        self.serve_wants(events);
        self.violations
            .get(before..)
            .map(<[_]>::to_vec)
            .unwrap_or_default()
    }

    /// Hands the session, from `events`, what it wants again (see [`Session::wanted`]) until it
    /// wants nothing more that `events` has: what a client does with its relays after a flood.
    pub fn serve_wants(&mut self, events: &[nostr::prelude::Event]) {
        let order: Vec<(u32, String, &nostr::prelude::Event)> = events
            .iter()
            .map(|e| {
                let p: Position = serde_json::from_str(&e.content).unwrap_or(Position {
                    step: u32::MAX,
                    prev: String::new(),
                });
                (p.step, p.prev, e)
            })
            .collect();
        let mut asked: BTreeSet<Want> = BTreeSet::new();
        loop {
            let wants: Vec<Want> = self
                .wanted()
                .into_iter()
                .filter(|w| !asked.contains(w))
                .collect();
            if wants.is_empty() {
                break;
            }
            for w in wants {
                let key = self.cfg.seats.get(w.seat as usize).copied();
                let found: Vec<&nostr::prelude::Event> = order
                    .iter()
                    .filter(|(s, prev, e)| *s == w.step && *prev == w.head && Some(e.pubkey) == key)
                    .map(|(_, _, e)| *e)
                    .collect();
                for e in found {
                    self.handle(e);
                }
                asked.insert(w);
            }
        }
    }

    /// Bytes of events held.
    pub fn held_bytes(&self) -> usize {
        self.log.sizes.values().sum()
    }
}
