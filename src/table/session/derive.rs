//! Deriving the game from the held log, step by step: what each step is, which events count,
//! when a timeout takes effect and when a fork does (`protocol/PROTOCOL.md` §4–§8).
//!
//! The rules, in the order they are applied at the open step `s`:
//! 1. **Forks.** Two different events by one seat for step `s` on the same head: the seat is
//!    removed at `s` — unless, on the branch of one of its events, every other participant of
//!    `s` went on to show it followed that branch (a barrier: an applied event or a counting
//!    vote at a later step, or its own removal there), which shows the second event changed
//!    nobody's view. A second end confirmation is no fork: it carries no choice.
//! 2. **Votes.** A seat awaited at `s` is voted out when *every other participant* has a valid
//!    vote naming it: for this step and head, signed no earlier than the step's deadline in the
//!    log's own time (the opening event's `created_at` plus the step's allowance) plus the
//!    table's relay allowance, by a seat that does not itself owe `s`. No smaller coalition can
//!    remove anyone, and nobody is voted out for an event still on its way.
//! 3. **The accused's event beats the vote** when it is in the log, unless the timeout has
//!    become final: on the branch that applies it, the accused itself acted afterwards (it
//!    acknowledged), or every other participant showed it followed that branch (the barrier of
//!    rule 1). At every table size: a timeout, once final, stays so whatever arrives later.
//! 4. **Effects.** A missed move or sealed choice gets the game's timeout move, and the seat
//!    must then acknowledge it is still there; a missed acknowledgement, opening, setup,
//!    shuffle or reveal removes the seat (`Game::forfeit`); missed end confirmations change
//!    nothing.

use super::{seal_commitment, synthetic_head, Held, Session, Verdict, Violation};
use crate::engine::{DeckId, ForfeitReason, Game, Seat, ToAct};
use crate::table::chance::Stage;
use crate::wire::log::Body;
use crate::wire::Deadlines;
use nostr::prelude::EventId;
use std::collections::{BTreeMap, BTreeSet};

/// What the open step is.
#[derive(Clone)]
pub(crate) enum Kind<G: Game> {
    /// Not worked out yet.
    Unset,
    /// A stage of the chance batch in progress.
    Chance,
    /// The seat's move (sequential).
    Move(Seat),
    /// These seats commit to a sealed choice (parallel).
    Seal(Vec<Seat>),
    /// The sealed choices are opened (parallel).
    Open(Sealing<G>),
    /// Timed-out seats confirm they are still here; `then` resumes a sealed decision.
    Ack {
        seats: Vec<Seat>,
        then: Option<Sealing<G>>,
    },
    /// Fewer than two seats are dealt in: the table waits for these seats sitting out to come
    /// back (PROTOCOL §7.10), each with a `return` event, for the return allowance.
    Return(Vec<Seat>),
    /// The game is over: every seat still at the table confirms the final head.
    End(Vec<Seat>),
    /// Nothing more.
    Over,
}

/// A sealed decision in progress.
#[derive(Clone)]
pub(crate) struct Sealing<G: Game> {
    /// The step of the commitments (their context).
    pub seal_step: u32,
    pub commitments: BTreeMap<Seat, [u8; 32]>,
    /// Moves of the seats that sealed nothing in time: the game's timeout move.
    pub defaults: BTreeMap<Seat, G::Action>,
    pub opened: BTreeMap<Seat, G::Action>,
}

impl<G: Game> Kind<G> {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Kind::Unset => "nothing",
            Kind::Chance => "chance",
            Kind::Move(_) => "move",
            Kind::Seal(_) => "seal",
            Kind::Open(_) => "open",
            Kind::Ack { .. } => "ack",
            Kind::Return(_) => "return",
            Kind::End(_) => "end",
            Kind::Over => "over",
        }
    }
}

/// "seat 1", "seats 1 and 2", "seats 0, 1 and 2".
pub(crate) fn seat_list(seats: &[Seat]) -> String {
    match seats {
        [] => "nobody".into(),
        [one] => format!("seat {one}"),
        [init @ .., last] => format!(
            "seats {} and {last}",
            init.iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The open step's base allowance in whole seconds (the log's time has one-second
/// resolution); a move adds what is left of its seat's time bank ([`Session::step_secs`]).
pub(crate) fn kind_secs<G: Game>(kind: &Kind<G>, d: &Deadlines) -> u64 {
    let ms = match kind {
        Kind::Move(_) | Kind::Seal(_) => d.move_ms,
        Kind::Return(_) => d.return_ms,
        _ => d.crypto_ms,
    };
    ms.div_ceil(1000).max(1)
}

/// A seat's whole time bank in seconds.
pub(crate) fn bank_secs(d: &Deadlines) -> u64 {
    d.bank_ms / 1000
}

/// How the open step ended.
enum Done {
    /// Completed by its events; the head moves to `head` (or stays), the next step opens at `t`.
    Normal { head: Option<String>, t: u64 },
    /// Settled by votes against `seats`.
    Timeout { seats: Vec<Seat>, t: u64 },
    /// Already closed (a parallel step whose completion opened the next one).
    Handled,
}

impl<G: Game> Session<G> {
    /// Seats the open step still waits for.
    pub(crate) fn awaited(&self) -> Vec<Seat> {
        let got = &self.r.got;
        let not_in = |v: &[Seat]| v.iter().copied().filter(|s| !got.contains_key(s)).collect();
        match &self.r.kind {
            Kind::Chance => self.r.chance.awaited(),
            Kind::Move(s) => vec![*s],
            Kind::Seal(v) | Kind::End(v) | Kind::Return(v) => not_in(v),
            Kind::Ack { seats, .. } => not_in(seats),
            Kind::Open(sealing) => {
                let v: Vec<Seat> = sealing.commitments.keys().copied().collect();
                not_in(&v)
            }
            Kind::Unset | Kind::Over => Vec::new(),
        }
    }

    /// Every seat the open step waits for or already has an event of: who may carry a part of
    /// the deck prepared ahead on its event here (PROTOCOL §5.9).
    pub(crate) fn eligible(&self) -> Vec<Seat> {
        let mut v = self.awaited();
        v.extend(self.r.got.keys().copied());
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Seats whose votes count at the open step: its participants, less those that signed
    /// they leave.
    pub(crate) fn voters(&self) -> Vec<Seat> {
        let mut v = self.participants();
        v.retain(|s| self.left(*s, self.r.step).is_none());
        v
    }

    /// Awaited seats that signed they leave: out without votes (§7.8).
    fn left_here(&self, awaited: &BTreeSet<Seat>) -> BTreeSet<Seat> {
        awaited
            .iter()
            .copied()
            .filter(|x| self.left(*x, self.r.step).is_some())
            .collect()
    }

    /// The reason a removal of `seats` gives: they left, if every one of them signed so.
    fn reason(&self, seats: &[Seat], otherwise: ForfeitReason) -> ForfeitReason {
        let s = self.r.step;
        if !seats.is_empty() && seats.iter().all(|x| self.left(*x, s).is_some()) {
            ForfeitReason::Left
        } else {
            otherwise
        }
    }

    fn participants(&self) -> Vec<Seat> {
        match &self.r.kind {
            Kind::Chance => self.r.chance.batch_parts(),
            Kind::End(v) => v.clone(),
            // The seats dealt in and the ones the table waits for.
            Kind::Return(v) => {
                let mut p = self.still_seated();
                p.extend(v.iter().copied());
                p.sort_unstable();
                p.dedup();
                p
            }
            Kind::Unset | Kind::Over => Vec::new(),
            _ => {
                let mut p = self.r.game.participants();
                if p.is_empty() {
                    p = self.still_seated();
                }
                p.sort_unstable();
                p
            }
        }
    }

    fn still_seated(&self) -> Vec<Seat> {
        let mut v: Vec<Seat> = self
            .r
            .game
            .seats()
            .into_iter()
            .filter(|s| !self.r.removed.contains(s))
            .collect();
        v.sort_unstable();
        v
    }

    /// Applies every step the held events complete.
    pub(crate) fn advance(&mut self) {
        let mut guard = 0u32;
        while !self.r.finished {
            guard += 1;
            if guard > 1_000_000 {
                self.broken("the derivation did not settle".into());
                return;
            }
            if matches!(self.r.kind, Kind::Unset) {
                if !self.open_step() {
                    continue;
                }
                self.snapshot();
            }
            if self.settle_forks() {
                continue;
            }
            match self.try_step() {
                Some(Done::Normal { head, t }) => self.complete(head, t, None),
                Some(Done::Timeout { seats, t }) => self.time_out(seats, t),
                Some(Done::Handled) => {}
                None => return,
            }
        }
    }

    /// Works out what the open step is from the game. Returns `false` when that settled
    /// something without a step (a chance batch nobody owes anything for): look again.
    fn open_step(&mut self) -> bool {
        // The game's timers run on the log's time (Game::clock), never a client's clock.
        self.r.game.clock(self.r.t_open);
        if self.remove_disproved() {
            return false;
        }
        if self.r.chance.in_batch() {
            return self.chance_kind();
        }
        match self.r.game.to_act() {
            ToAct::Terminal => {
                let waiting = self.return_wait();
                if !waiting.is_empty() {
                    self.r.kind = Kind::Return(waiting);
                    return true;
                }
                let seats = self.still_seated();
                self.r.before_end = Some(self.r.applied.len());
                if seats.is_empty() {
                    self.finish(Vec::new());
                } else {
                    self.r.kind = Kind::End(seats);
                }
                true
            }
            ToAct::Seat(s) => {
                self.r.kind = Kind::Move(s);
                true
            }
            ToAct::Sealed(v) => {
                self.r.kind = Kind::Seal(v);
                true
            }
            ToAct::Chance(reqs) => {
                let mut parts = self.r.game.participants();
                parts.sort_unstable();
                // Spare decks only for a game that deals again and again, and not while a seat
                // sits out: its `back` travels on a setup, and a hand served by a spare has none
                // (PROTOCOL §5.9, §7.10).
                let spares = G::SHUFFLES_AHEAD
                    && self.cfg.version >= G::SHUFFLES_AHEAD_SINCE
                    && self.r.game.sitting_out().is_empty();
                if let Err(e) = self.r.chance.begin(reqs, parts, spares) {
                    self.broken(e.to_string());
                    return true;
                }
                // A batch that finishes the prepared deck checks its chain first.
                self.report_refused_chains();
                if self.remove_disproved() {
                    return false;
                }
                self.chance_kind()
            }
        }
    }

    /// The chance batch's current stage as the open step, or its outcomes applied at once.
    fn chance_kind(&mut self) -> bool {
        if self.r.chance.stage() != Some(Stage::Ready) {
            self.r.kind = Kind::Chance;
            return true;
        }
        // Seats every participant's setup named as back (PROTOCOL §7.10).
        let sitting = self.r.game.sitting_out();
        let back: Vec<Seat> = self
            .r
            .chance
            .agreed_back()
            .into_iter()
            .filter(|x| sitting.contains(x))
            .collect();
        match self.r.chance.finish() {
            Ok(outcomes) => {
                if let Err(e) = self.r.game.apply_chance(&outcomes) {
                    self.broken(format!("the game refused the chance outcomes: {e}"));
                    return true;
                }
                if !back.is_empty() && !self.r.game.is_terminal() && !self.deal_back(back) {
                    return true;
                }
                self.r.kind = Kind::Unset;
                false
            }
            Err(e) => {
                self.broken(e.to_string());
                true
            }
        }
    }

    /// Deals `seats` (sitting out) in again from the next hand; `false` when the game could not
    /// (the table is broken then).
    fn deal_back(&mut self, seats: Vec<Seat>) -> bool {
        if let Err(e) = self.r.game.sit_in(&seats) {
            self.broken(format!("the game could not deal a seat back in: {e}"));
            return false;
        }
        for x in &seats {
            self.r.removed.remove(x);
            self.r.out_at.remove(x);
            self.r.back_at.insert(*x, self.r.step);
        }
        self.r.verdicts.push(Verdict::Back {
            step: self.r.step,
            seats,
        });
        true
    }

    /// The seats sitting out that the table waits for before it ends (PROTOCOL §7.10): with a
    /// return allowance, when fewer than two seats are dealt in and dealing these in again
    /// would let the game go on — not those that signed they leave, nor those it waited for
    /// already.
    fn return_wait(&self) -> Vec<Seat> {
        if self.cfg.deadlines.return_ms == 0 {
            return Vec::new();
        }
        let s = self.r.step;
        let seats: Vec<Seat> = self
            .r
            .game
            .sitting_out()
            .into_iter()
            .filter(|x| !self.r.not_back.contains(x) && self.left(*x, s).is_none())
            .collect();
        if seats.is_empty() || !self.r.game.resumes_with(&seats) {
            return Vec::new();
        }
        seats
    }

    fn broken(&mut self, reason: String) {
        self.r.verdicts.push(Verdict::Broken {
            step: self.r.step,
            reason,
        });
        self.r.kind = Kind::Over;
        self.r.finished = true;
    }

    fn finish(&mut self, unconfirmed: Vec<Seat>) {
        for x in &unconfirmed {
            self.gone(*x);
        }
        self.r.unconfirmed = unconfirmed;
        self.r
            .verdicts
            .push(Verdict::Finished { step: self.r.step });
        self.r.kind = Kind::Over;
        self.r.finished = true;
    }

    /// Closes the open step: the head moves (a sequential event, a synthetic head) or stays,
    /// the next step opens at `t` in the log's time.
    fn complete(&mut self, head: Option<String>, t: u64, next: Option<Kind<G>>) {
        // A move past its base allowance spends its seat's time bank (a timed-out move spends
        // all of it: the quorum is never earlier than the deadline).
        if let Kind::Move(actor) = self.r.kind {
            let base = kind_secs(&self.r.kind, &self.cfg.deadlines);
            let over = t.saturating_sub(self.r.t_open).saturating_sub(base);
            if over > 0 {
                let used = self.r.bank_used.entry(actor).or_default();
                *used = (*used + over).min(bank_secs(&self.cfg.deadlines));
            }
        }
        match head {
            Some(h) => self.r.head = h,
            None if !self.r.got_ids.is_empty() => {
                let ids = self.applied_here();
                self.r.head = synthetic_head(&[b"parallel", self.r.head.as_bytes(), &ids]);
            }
            None => {}
        }
        self.r.step += 1;
        self.r.t_open = t.max(self.r.t_open);
        self.r.game.clock(self.r.t_open);
        self.r.got.clear();
        self.r.got_ids.clear();
        let parts = std::mem::take(&mut self.r.ahead_parts);
        self.r.chance.commit_ahead(parts);
        self.report_refused_chains();
        self.r.passes += 1;
        self.r.kind = next.unwrap_or(Kind::Unset);
        if !matches!(self.r.kind, Kind::Unset) {
            self.snapshot();
        }
    }

    /// Notes that `x`'s event `h` counts at the open step.
    fn took(&mut self, x: Seat, h: &Held) {
        self.r.got.insert(x, h.at());
        self.r.got_ids.insert(x, h.id());
    }

    /// The events applied at the open step, as bytes for a head: seat, then event id, in seat
    /// order. Empty at a sequential step (its event is the next head itself).
    fn applied_here(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(33 * self.r.got_ids.len());
        for (seat, id) in &self.r.got_ids {
            v.push(*seat);
            v.extend_from_slice(id.as_bytes());
        }
        v
    }

    // ---- forks ------------------------------------------------------------------------------

    /// Settles forks at the open step. Returns whether the derivation changed.
    fn settle_forks(&mut self) -> bool {
        let s = self.r.step;
        // An end confirmation carries no choice and nothing follows it: two of them by one seat
        // equivocate about nothing.
        if matches!(self.r.kind, Kind::End(_)) {
            return false;
        }
        let head = self.r.head.clone();
        let mut forks: Vec<(Seat, Vec<Held>)> = Vec::new();
        let seats: Vec<Seat> = (0..self.cfg.seats.len() as Seat).collect();
        for seat in seats {
            let on_head: Vec<Held> = self
                .log
                .at(s, seat)
                .iter()
                .filter(|h| h.payload.prev == head)
                .cloned()
                .collect();
            if on_head.len() >= 2 {
                let (a, b) = (on_head[0].id().to_hex(), on_head[1].id().to_hex());
                let v = Violation::Fork {
                    seat,
                    step: s,
                    a: a.clone(),
                    b: b.clone(),
                };
                if !self.violations.contains(&v) {
                    self.violations.push(v);
                    self.evidence(seat, s, &on_head[0], &on_head[1]);
                }
                forks.push((seat, on_head));
            }
        }
        forks.retain(|(z, _)| !self.r.ignored_forks.contains(&(s, *z)));
        if forks.is_empty() {
            return false;
        }
        let undecided: Vec<Seat> = forks.iter().map(|(z, _)| *z).collect();
        let others: Vec<Seat> = self
            .voters()
            .into_iter()
            .filter(|p| !undecided.contains(p))
            .collect();
        // The branch where the forks changed nothing is the table's if every other participant
        // followed it. Which of a forker's events they followed shows on a sequential step (the
        // next event names it) but not on a parallel one, so each of its events is tried in
        // turn as the one that counts.
        let saved = self.r.clone();
        let mut tries: Vec<Option<(Seat, EventId)>> = vec![None];
        for (z, on_head) in &forks {
            let first = self.candidates(*z).first().map(Held::id);
            tries.extend(
                on_head
                    .iter()
                    .map(Held::id)
                    .filter(|id| Some(*id) != first)
                    .map(|id| Some((*z, id))),
            );
        }
        for t in tries {
            for z in &undecided {
                self.r.ignored_forks.insert((s, *z));
            }
            if let Some((z, id)) = t {
                self.r.prefer.insert((s, z), id);
            }
            self.advance();
            if self.barrier_after(s, &others) {
                return true;
            }
            self.restore(saved.clone(), s);
        }
        self.r.provisional.insert(s);
        self.forfeit(undecided, ForfeitReason::Equivocated, self.r.t_open);
        true
    }

    /// Goes back to `saved`, the state at the opening of step `s`, after trying a branch.
    fn restore(&mut self, saved: super::Replica<G>, s: u32) {
        self.r = saved;
        self.snapshots.retain(|k, _| *k <= s);
        self.violations
            .retain(|v| !matches!(v, Violation::Invalid { step, .. } if *step > s));
    }

    /// Whether every seat of `others` showed, at a step after `s` on the current branch, that
    /// it followed this branch, or left it there (removed, or voted out of confirming the end):
    /// a barrier.
    fn followed_after(&self, s: u32, others: &[Seat]) -> bool {
        !others.is_empty()
            && others
                .iter()
                .all(|o| self.r.last_seen.get(o).is_some_and(|t| *t > s))
    }

    fn barrier_after(&self, s: u32, others: &[Seat]) -> bool {
        let after = |m: &BTreeMap<Seat, u32>, o: &Seat| m.get(o).is_some_and(|t| *t > s);
        !others.is_empty()
            && others
                .iter()
                .all(|o| after(&self.r.last_seen, o) || after(&self.r.gone_at, o))
    }

    /// Notes that `seat` left this branch at the open step (removed, or voted out of
    /// confirming the end): a barrier after an earlier step does not wait for it.
    fn gone(&mut self, seat: Seat) {
        let step = self.r.step;
        let t = self.r.gone_at.entry(seat).or_insert(step);
        *t = (*t).max(step);
    }

    /// Notes that `seat` showed at the open step that it follows this branch.
    fn seen(&mut self, seat: Seat) {
        let step = self.r.step;
        let t = self.r.last_seen.entry(seat).or_insert(step);
        *t = (*t).max(step);
    }

    /// Publishes the proof of a fork (once, by a seated client).
    fn evidence(&mut self, seat: Seat, step: u32, a: &Held, b: &Held) {
        if self.me().is_none() || self.me() == Some(seat) {
            return;
        }
        use nostr::prelude::JsonUtil;
        let events = vec![a.event.as_json(), b.event.as_json()];
        // Two large shuffles may not fit one event: then name them; relays keep both.
        let events = if events.iter().map(String::len).sum::<usize>()
            > crate::wire::MAX_EVENT_BYTES - 4096
        {
            vec![a.id().to_hex(), b.id().to_hex()]
        } else {
            events
        };
        let p = self.payload(Body::Evidence {
            offender: seat,
            reason: format!("two different events for step {step}"),
            events,
        });
        self.outbox.push(p);
    }

    // ---- one step ---------------------------------------------------------------------------

    /// The events of `seat` that may count at the open step, best first: those on this head;
    /// after a fork that a barrier protected, the one a later event of another seat builds on.
    pub(super) fn candidates(&self, seat: Seat) -> Vec<Held> {
        let s = self.r.step;
        let mut v: Vec<Held> = self
            .log
            .at(s, seat)
            .iter()
            .filter(|h| h.payload.prev == self.r.head)
            .cloned()
            .collect();
        if v.len() > 1 {
            let named: BTreeSet<String> = self
                .log
                .after(s)
                .filter(|h| h.seat != seat)
                .map(|h| h.payload.prev.clone())
                .collect();
            let preferred = self.r.prefer.get(&(s, seat));
            v.sort_by_key(|h| {
                (
                    preferred != Some(&h.id()),
                    !named.contains(&h.id().to_hex()),
                    h.id(),
                )
            });
        }
        v
    }

    /// Tries to complete the open step from the held events and votes.
    fn try_step(&mut self) -> Option<Done> {
        if matches!(self.r.kind, Kind::Over | Kind::Unset) {
            return None;
        }
        let s = self.r.step;
        // Events by seats not awaited here, on this head: out of turn.
        let awaited: BTreeSet<Seat> = self.awaited().into_iter().collect();
        let strays: Vec<Held> = self
            .log
            .step(s)
            .filter(|h| {
                h.payload.prev == self.r.head
                    && !awaited.contains(&h.seat)
                    && !self.r.got.contains_key(&h.seat)
            })
            .cloned()
            .collect();
        for h in strays {
            let what = self.r.kind.name();
            self.reject(
                &h,
                format!(
                    "a {} event, but this {what} step does not wait for it",
                    h.payload.body.name()
                ),
            );
        }
        // A vote signed before the deadline the log defines, plus the relay allowance, is no
        // vote: an honest client waits for it on its own clock, so this is someone trying to time
        // others out early.
        let deadline = self.deadline();
        let vote_time = self.vote_time();
        let early: Vec<Held> = self
            .log
            .votes_at(s)
            .into_iter()
            .flat_map(|m| m.values().flatten())
            .filter(|h| h.payload.prev == self.r.head && h.at() < vote_time)
            .cloned()
            .collect();
        for h in early {
            let named = match &h.payload.body {
                Body::Vote { missing } => missing.clone(),
                _ => Vec::new(),
            };
            let reason = if h.at() < deadline {
                format!(
                    "voted {} out {} s before the step's deadline",
                    seat_list(&named),
                    deadline - h.at()
                )
            } else {
                format!(
                    "voted {} out {} s after the step's deadline, before its relay allowance of \
                     {} s had passed",
                    seat_list(&named),
                    h.at() - deadline,
                    vote_time - deadline
                )
            };
            self.reject(&h, reason);
        }
        // A counting vote shows its voter follows this branch.
        let voters: Vec<Seat> = self.valid_votes().into_keys().collect();
        for v in voters {
            self.seen(v);
        }
        let voted_out = self.voted_out(&awaited);
        // Everyone not voted out: their events count as usual.
        for x in awaited.iter().filter(|x| !voted_out.contains(x)).copied() {
            if let Some(done) = self.try_seat(x) {
                return Some(done);
            }
        }
        // The voted out: their event still counts while the timeout is not final.
        loop {
            let still: BTreeSet<Seat> = self.awaited().into_iter().collect();
            if still.is_empty() {
                return self.parallel_done();
            }
            let accused: Vec<Seat> = still
                .iter()
                .copied()
                .filter(|x| voted_out.contains(x) && !self.candidates(*x).is_empty())
                .collect();
            // A timeout needs every seat still awaited voted out; short of that there is none
            // to be final, and a voted-out seat's event simply counts.
            let timeout = still.iter().all(|x| voted_out.contains(x));
            let forced = accused.iter().all(|x| self.r.stand.contains(&(s, *x)));
            let standing: Vec<Seat> = if !timeout || accused.is_empty() || forced {
                accused
            } else {
                let fin = self.timeout_final(&still);
                let mut stand: Vec<Seat> = accused
                    .iter()
                    .copied()
                    .filter(|x| fin.as_ref().is_none_or(|f| !f.contains(x)))
                    .collect();
                if stand.len() < accused.len() && self.accused_branch_protected(&still, &accused) {
                    // Everyone else followed the accused's events: a vote or event on the
                    // timeout's branch signed by a seat that had already gone on with them
                    // cannot take the table back (PROTOCOL.md §7.4).
                    for x in &accused {
                        self.r.stand.insert((s, *x));
                    }
                    stand = accused;
                } else if !stand.is_empty() {
                    self.r.contested.insert(s);
                    let head = self.timeout_head(&still);
                    self.watch_branch(head);
                }
                stand
            };
            let mut changed = false;
            for x in standing {
                let before = self.r.step;
                if let Some(done) = self.try_seat(x) {
                    return Some(done);
                }
                if self.r.got.contains_key(&x) || self.r.step != before {
                    changed = true;
                    break;
                }
            }
            if changed {
                continue;
            }
            if timeout {
                let seats: Vec<Seat> = still.into_iter().collect();
                let t = self.quorum_time(&seats);
                return Some(Done::Timeout { seats, t });
            }
            return None;
        }
    }

    /// Whether every other participant followed the branch where the events of `accused`
    /// count instead of a timeout against `seats` at the open step (a barrier on it).
    fn accused_branch_protected(&mut self, seats: &BTreeSet<Seat>, accused: &[Seat]) -> bool {
        let s = self.r.step;
        let others: Vec<Seat> = self
            .voters()
            .into_iter()
            .filter(|p| !seats.contains(p))
            .collect();
        let saved = self.r.clone();
        for x in accused {
            self.r.stand.insert((s, *x));
        }
        self.advance();
        // Only what the others signed shows they followed it: being voted out there (of
        // confirming the end, say) is the accused's doing, not theirs.
        let barrier = self.followed_after(s, &others);
        let next = self.snapshots.get(&(s + 1)).map(|r| r.head.clone());
        self.restore(saved, s);
        if let Some(head) = next.filter(|_| !barrier) {
            // The timeout may be taken now; events on this branch arriving later may still
            // show everyone followed it, and must send the derivation back here.
            self.r.contested.insert(s);
            self.watch_branch(head);
        }
        barrier
    }

    /// For which of `seats` a timeout against them at the open step is final, tried on the
    /// branch that applies it: all of them when every other participant then showed it followed
    /// that branch (a barrier); else those that acted on it themselves (they acknowledged it);
    /// `None` when neither.
    fn timeout_final(&mut self, seats: &BTreeSet<Seat>) -> Option<BTreeSet<Seat>> {
        let s = self.r.step;
        let others: Vec<Seat> = self
            .voters()
            .into_iter()
            .filter(|p| !seats.contains(p))
            .collect();
        let saved = self.r.clone();
        let list: Vec<Seat> = seats.iter().copied().collect();
        let t = self.quorum_time(&list);
        self.time_out(list, t);
        self.advance();
        let barrier = self.barrier_after(s, &others);
        let acted: BTreeSet<Seat> = seats
            .iter()
            .copied()
            .filter(|x| self.r.last_seen.get(x).is_some_and(|t| *t > s))
            .collect();
        self.restore(saved, s);
        if barrier {
            Some(seats.clone())
        } else if acted.is_empty() {
            None
        } else {
            Some(acted)
        }
    }

    /// Applies `x`'s first valid event for the open step, if any.
    fn try_seat(&mut self, x: Seat) -> Option<Done> {
        for h in self.candidates(x) {
            match self.apply_event(x, &h) {
                Ok(done) => {
                    self.r.applied.push(h.id());
                    self.seen(x);
                    return done;
                }
                Err(reason) => self.reject(&h, reason),
            }
        }
        None
    }

    /// The step is parallel and every contribution is in.
    fn parallel_done(&mut self) -> Option<Done> {
        let t = self.r.got.values().copied().max().unwrap_or(self.r.t_open);
        match std::mem::replace(&mut self.r.kind, Kind::Unset) {
            Kind::Seal(seats) => {
                self.r.kind = Kind::Seal(seats.clone());
                let sealing = self.sealing_from_seals(seats, BTreeMap::new());
                self.complete(None, t, Some(Kind::Open(sealing)));
            }
            Kind::Open(sealing) => {
                self.apply_sealed(sealing);
                if !self.r.finished {
                    self.complete(None, t, None);
                }
            }
            Kind::Ack { then, .. } => {
                self.complete(None, t, then.map(Kind::Open));
            }
            Kind::End(_) => {
                self.r.step += 1;
                self.finish(Vec::new());
            }
            // Every seat waited for is back: all are dealt in from the next hand.
            Kind::Return(seats) => {
                if self.deal_back(seats) {
                    self.complete(None, t, None);
                }
            }
            // Chance stages complete inside `apply_event`; nothing else is parallel.
            other => {
                self.r.kind = other;
                return None;
            }
        }
        Some(Done::Handled)
    }

    /// The commitments gathered at a seal step (from the applied seal events).
    fn sealing_from_seals(
        &self,
        seats: Vec<Seat>,
        defaults: BTreeMap<Seat, G::Action>,
    ) -> Sealing<G> {
        let s = self.r.step;
        let mut commitments = BTreeMap::new();
        for seat in seats {
            if defaults.contains_key(&seat) {
                continue;
            }
            let applied: BTreeSet<_> = self.r.applied.iter().collect();
            if let Some(h) = self
                .log
                .at(s, seat)
                .iter()
                .find(|h| applied.contains(&h.id()))
            {
                if let Body::Seal { commitment, .. } = &h.payload.body {
                    if let Some(c) = hex::decode(commitment)
                        .ok()
                        .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    {
                        commitments.insert(seat, c);
                    }
                }
            }
        }
        Sealing {
            seal_step: s,
            commitments,
            defaults,
            opened: BTreeMap::new(),
        }
    }

    /// Applies every sealed move, in ascending seat order.
    fn apply_sealed(&mut self, sealing: Sealing<G>) {
        let mut moves: BTreeMap<Seat, G::Action> = sealing.defaults;
        moves.extend(sealing.opened);
        for (seat, action) in moves {
            if let Err(e) = self.r.game.apply(seat, &action) {
                self.broken(format!(
                    "the game refused a sealed move it had allowed: {e}"
                ));
                return;
            }
            self.r.moves += 1;
        }
    }

    /// A bad shuffle found when a prepared deck's chain is checked (version 7, PROTOCOL.md
    /// §5.9), on its completion or when a batch finishes it: its event stands, the deck is
    /// dropped, and the people at the table are told, once.
    fn report_refused_chains(&mut self) {
        for r in self.r.chance.take_refused_chains() {
            // Dated at the step that opened after the check: a roll-back to the step whose
            // event completed the chain forgets it with that branch.
            let v = Violation::Invalid {
                id: r.event,
                seat: r.seat,
                step: self.r.step,
                reason: format!(
                    "its shuffle of the deck prepared for the next hand failed when that deck's \
                     shuffles were checked together ({}); that deck is not used and the hand \
                     shuffles its own",
                    r.reason
                ),
            };
            if !self.violations.contains(&v) {
                self.violations.push(v);
            }
        }
    }

    /// Removes every seat whose shuffle failed when its chain was checked together (version
    /// 10, PROTOCOL.md §5.9), at the step that opens after the check: the last shuffle of a
    /// batch's own deck, or the check of the deck prepared ahead (when its last shuffle is in,
    /// or when a batch finishes it). Its event stood when it came, and is named now. Returns
    /// whether it did.
    fn remove_disproved(&mut self) -> bool {
        let found = self.r.chance.take_disproved();
        if found.is_empty() {
            return false;
        }
        // A seat removed meanwhile (a prepared deck's check can be followed by a sealed
        // decision's openings before a step opens from the game) is not removed twice.
        let mut seats: Vec<Seat> = found
            .iter()
            .map(|f| f.seat)
            .filter(|x| !self.r.removed.contains(x))
            .collect();
        seats.sort_unstable();
        seats.dedup();
        for f in found {
            // A shuffle of the deck prepared ahead was named when its chain failed.
            let Some(at) = f.step else {
                continue;
            };
            // Dated at the step whose opening found it: a roll-back to any step before forgets
            // it with the rest of that branch.
            let v = Violation::Invalid {
                id: f.event,
                seat: f.seat,
                step: self.r.step,
                reason: format!(
                    "its shuffle at step {at} failed when the hand's shuffles were checked \
                     together ({}); the deck is not used and the seat {}",
                    f.reason,
                    if seats.contains(&f.seat) {
                        "is removed"
                    } else {
                        "was removed already"
                    }
                ),
            };
            if !self.violations.contains(&v) {
                self.violations.push(v);
            }
        }
        if seats.is_empty() {
            return false;
        }
        self.forfeit(seats, ForfeitReason::FailedProof, self.r.t_open);
        true
    }

    /// Checks and applies one event of `x` at the open step, with the part of the deck prepared
    /// ahead it carries: both are judged in the state the step opened in, and a bad part
    /// rejects the whole event.
    fn apply_event(&mut self, x: Seat, h: &Held) -> Result<Option<Done>, String> {
        let part = match &h.payload.ahead {
            None => None,
            Some(a) => Some(
                self.r
                    .chance
                    .check_ahead(x, &h.id().to_hex(), a, &self.eligible())
                    .map_err(|e| e.to_string())?,
            ),
        };
        let done = self.apply_body(x, h)?;
        self.r.ahead_parts.extend(part);
        Ok(done)
    }

    fn apply_body(&mut self, x: Seat, h: &Held) -> Result<Option<Done>, String> {
        let t = h.at();
        match (&self.r.kind, &h.payload.body) {
            (Kind::Chance, body) => {
                let stage = self.r.chance.stage();
                let id = h.id().to_hex();
                self.r
                    .chance
                    .accept(x, &id, body, self.r.step)
                    .map_err(|e| e.to_string())?;
                self.took(x, h);
                if self.r.chance.stage() == stage && !matches!(stage, Some(Stage::Shuffle(_))) {
                    return Ok(None);
                }
                // The stage is complete.
                let head = matches!(stage, Some(Stage::Shuffle(_))).then(|| id.clone());
                let t_done = self.r.got.values().copied().max().unwrap_or(t);
                Ok(Some(Done::Normal { head, t: t_done }))
            }
            (Kind::Move(actor), Body::Move { action, tokens }) => {
                let actor = *actor;
                let a: G::Action = serde_json::from_value(action.clone())
                    .map_err(|e| format!("unreadable move: {e}"))?;
                if self.carries_tokens() {
                    // The move and its tokens stand or fall together: the game moves on only
                    // once the tokens check out.
                    let mut game = self.r.game.clone();
                    game.apply(actor, &a).map_err(|e| e.to_string())?;
                    let owed = self.carried_by_move(&game, actor);
                    self.r
                        .chance
                        .accept_carried(actor, &owed, tokens)
                        .map_err(|e| e.to_string())?;
                    self.r.game = game;
                } else {
                    // Before version 9 the field is dropped as the event is read (§10.1), so
                    // this is a game with a timer, whose moves carry none.
                    if !tokens.is_empty() {
                        return Err(
                            "a move carrying tokens in a game with a timer, whose moves \
                                    carry none"
                                .into(),
                        );
                    }
                    self.r.game.apply(actor, &a).map_err(|e| e.to_string())?;
                }
                self.r.moves += 1;
                Ok(Some(Done::Normal {
                    head: Some(h.id().to_hex()),
                    t,
                }))
            }
            (Kind::Seal(_), Body::Seal { commitment, .. }) => {
                let ok = hex::decode(commitment).is_ok_and(|b| b.len() == 32);
                if !ok {
                    return Err("the commitment is not 32 bytes of hex".into());
                }
                self.took(x, h);
                Ok(None)
            }
            (
                Kind::Open(sealing),
                Body::Open {
                    action,
                    salt,
                    tokens,
                },
            ) => {
                let a: G::Action = serde_json::from_value(action.clone())
                    .map_err(|e| format!("unreadable move: {e}"))?;
                let canonical =
                    serde_json::to_value(&a).map_err(|e| format!("unreadable move: {e}"))?;
                let salt: [u8; 32] = hex::decode(salt)
                    .ok()
                    .and_then(|b| b.try_into().ok())
                    .ok_or("the salt is not 32 bytes of hex")?;
                let want = sealing.commitments.get(&x).ok_or("sealed nothing")?;
                let got = seal_commitment(&self.table_hex, sealing.seal_step, x, &canonical, &salt);
                if &got != want {
                    return Err("the opened move does not match its commitment".into());
                }
                // Every sealed move is chosen from the same state; the engine guarantees a
                // seat's choices do not depend on the others'.
                self.r
                    .game
                    .clone()
                    .apply(x, &a)
                    .map_err(|e| format!("the sealed move is not allowed: {e}"))?;
                // The cards of its own the move shows, with their tokens (version 9, §6.2):
                // checked and kept last, so that a refused opening leaves nothing behind.
                if self.carries_tokens() {
                    let owed = self.carried_by_opening(x, &a);
                    self.r
                        .chance
                        .accept_carried(x, &owed, tokens)
                        .map_err(|e| e.to_string())?;
                } else if !tokens.is_empty() {
                    return Err("an opening carrying tokens in a game with a timer, whose \
                                openings carry none"
                        .into());
                }
                if let Kind::Open(sealing) = &mut self.r.kind {
                    sealing.opened.insert(x, a);
                }
                self.took(x, h);
                Ok(None)
            }
            (Kind::Ack { .. }, Body::Ack {})
            | (Kind::End(_), Body::End {})
            | (Kind::Return(_), Body::Return {}) => {
                self.took(x, h);
                Ok(None)
            }
            (kind, body) => Err(format!(
                "a {} event where the table waits for a {} step",
                body.name(),
                kind.name()
            )),
        }
    }

    // ---- votes and timeouts -----------------------------------------------------------------

    /// The awaited seats every other participant has voted missing, with valid votes, and
    /// those that signed they leave.
    fn voted_out(&self, awaited: &BTreeSet<Seat>) -> BTreeSet<Seat> {
        let named = self.named();
        let voters = self.voters();
        let mut out: BTreeSet<Seat> = awaited
            .iter()
            .copied()
            .filter(|x| {
                voters
                    .iter()
                    .filter(|p| *p != x)
                    .all(|p| named.get(p).is_some_and(|m| m.contains(x)))
                    && voters.len() >= 2
            })
            .collect();
        out.extend(self.left_here(awaited));
        out
    }

    /// Valid votes at the open step, by voter: the union of the seats each named.
    fn named(&self) -> BTreeMap<Seat, BTreeSet<Seat>> {
        let mut out: BTreeMap<Seat, BTreeSet<Seat>> = BTreeMap::new();
        for (voter, votes) in self.valid_votes() {
            let set = out.entry(voter).or_default();
            for h in votes {
                if let Body::Vote { missing } = &h.payload.body {
                    set.extend(missing.iter().copied().filter(|m| *m != voter));
                }
            }
        }
        out
    }

    /// Each voter's votes that count at the open step, in time order.
    fn valid_votes(&self) -> BTreeMap<Seat, Vec<&Held>> {
        let s = self.r.step;
        let vote_time = self.vote_time();
        let voters = self.voters();
        let awaited: BTreeSet<Seat> = self.awaited().into_iter().collect();
        let mut out = BTreeMap::new();
        let Some(by_voter) = self.log.votes_at(s) else {
            return out;
        };
        for (voter, votes) in by_voter {
            // A seat that owes this step itself cannot vote at it (its own event would settle
            // whether it is there). Whether it owes it is judged by its events in the log, not
            // by how far this client applied them, so the order of application changes nothing.
            if !voters.contains(voter)
                || (awaited.contains(voter) && self.candidates(*voter).is_empty())
            {
                continue;
            }
            let mut v: Vec<&Held> = votes
                .iter()
                .filter(|h| h.payload.prev == self.r.head && h.at() >= vote_time)
                .collect();
            v.sort_by_key(|h| (h.at(), h.id()));
            if !v.is_empty() {
                out.insert(*voter, v);
            }
        }
        out
    }

    /// When the quorum against `seats` was complete, in the log's time: for each other voter,
    /// its earliest vote by which it had named them all; the latest of those.
    /// A seat that left counts from its leave's time instead (never before the step opened).
    fn quorum_time(&self, seats: &[Seat]) -> u64 {
        let mut t = self.r.t_open;
        let (left, voted): (Vec<Seat>, Vec<Seat>) = seats
            .iter()
            .partition(|x| self.left(**x, self.r.step).is_some());
        for x in &left {
            if let Some(h) = self.left(*x, self.r.step) {
                t = t.max(h.at());
            }
        }
        if voted.is_empty() {
            return t;
        }
        for (voter, votes) in self.valid_votes() {
            if seats.contains(&voter) {
                continue;
            }
            let mut named = BTreeSet::new();
            for h in votes {
                if let Body::Vote { missing } = &h.payload.body {
                    named.extend(missing.iter().copied());
                }
                if voted.iter().all(|x| named.contains(x)) {
                    t = t.max(h.at());
                    break;
                }
            }
        }
        t
    }

    /// The head the chain takes if `seats` time out at the open step. A move or sealed step
    /// whose game has no timeout move for one of them removes them instead (see `time_out`), and
    /// the chain then goes on from the removal head: "final" must be judged on that one.
    fn timeout_head(&self, seats: &BTreeSet<Seat>) -> String {
        let has_default = |x: &Seat| self.r.game.timeout_action(*x).is_some();
        let label: &[u8] = match &self.r.kind {
            Kind::Move(actor) if has_default(actor) => b"timeout",
            Kind::Seal(_) if seats.iter().all(has_default) => b"timeout",
            _ => b"forfeit",
        };
        let v: Vec<u8> = seats.iter().copied().collect();
        self.step_head(label, &v)
    }

    /// The synthetic head a timeout or removal at the open step gives: it names the step, the
    /// seats and, at a parallel step, the events the others' contributions were, so a second
    /// contribution signed later by one of them leads to another head.
    fn step_head(&self, label: &[u8], seats: &[Seat]) -> String {
        let ids = self.applied_here();
        let step = self.r.step.to_be_bytes();
        let mut parts: Vec<&[u8]> = vec![label, self.table_hex.as_bytes(), &step, seats];
        if !ids.is_empty() {
            parts.push(&ids);
        }
        synthetic_head(&parts)
    }

    /// Applies a timeout against `seats` at the open step.
    fn time_out(&mut self, seats: Vec<Seat>, t: u64) {
        let set: BTreeSet<Seat> = seats.iter().copied().collect();
        let head = self.timeout_head(&set);
        let s = self.r.step;
        match &self.r.kind {
            Kind::Move(actor) => {
                let actor = *actor;
                // A seat that left makes no move (version 5): it is removed where it is
                // awaited, rather than shown checking or folding first (PROTOCOL §7.8).
                if self.cfg.version >= 5
                    && self.reason(&seats, ForfeitReason::Absent) == ForfeitReason::Left
                {
                    self.forfeit(seats, ForfeitReason::Left, t);
                    return;
                }
                let Some(action) = self.r.game.timeout_action(actor) else {
                    let reason = self.reason(&seats, ForfeitReason::Withheld);
                    self.forfeit(seats, reason, t);
                    return;
                };
                if let Err(e) = self.r.game.apply(actor, &action) {
                    self.broken(format!("the game refused its own timeout move: {e}"));
                    return;
                }
                self.r.moves += 1;
                // A seat that left is not "timed out": its removal at the next step says it.
                if self.reason(&seats, ForfeitReason::Absent) != ForfeitReason::Left {
                    self.r.verdicts.push(Verdict::TimedOut {
                        step: s,
                        seats: seats.clone(),
                    });
                }
                self.r.timeouts.insert(s);
                self.complete(Some(head), t, Some(Kind::Ack { seats, then: None }));
            }
            Kind::Seal(all) => {
                let all = all.clone();
                let mut defaults = BTreeMap::new();
                for x in &seats {
                    match self.r.game.timeout_action(*x) {
                        Some(a) => {
                            defaults.insert(*x, a);
                        }
                        None => {
                            let reason = self.reason(&seats, ForfeitReason::Withheld);
                            self.forfeit(seats, reason, t);
                            return;
                        }
                    }
                }
                let sealing = self.sealing_from_seals(all, defaults);
                if self.reason(&seats, ForfeitReason::Absent) != ForfeitReason::Left {
                    self.r.verdicts.push(Verdict::TimedOut {
                        step: s,
                        seats: seats.clone(),
                    });
                }
                self.r.timeouts.insert(s);
                let then = if sealing.commitments.is_empty() {
                    // Nobody sealed anything: the default moves are the decision.
                    self.apply_sealed(sealing);
                    if self.r.finished {
                        return;
                    }
                    None
                } else {
                    Some(sealing)
                };
                self.complete(Some(head), t, Some(Kind::Ack { seats, then }));
            }
            Kind::End(_) => {
                self.r.step += 1;
                self.finish(seats);
            }
            // The allowance passed: those back are dealt in, the others are not waited for again
            // (the game ends at the next step if too few are dealt in).
            Kind::Return(all) => {
                let back: Vec<Seat> = all.iter().copied().filter(|x| !set.contains(x)).collect();
                if !back.is_empty() && !self.deal_back(back) {
                    return;
                }
                self.r.not_back.extend(seats.iter().copied());
                self.r.verdicts.push(Verdict::NotBack { step: s, seats });
                self.r.timeouts.insert(s);
                self.complete(Some(head), t, None);
            }
            Kind::Ack { .. } => {
                let reason = self.reason(&seats, ForfeitReason::Absent);
                self.forfeit(seats, reason, t)
            }
            _ => {
                let reason = self.reason(&seats, ForfeitReason::Withheld);
                self.forfeit(seats, reason, t)
            }
        }
    }

    /// Removes `seats` from the game at the open step (the state when it opened).
    pub(crate) fn forfeit(&mut self, seats: Vec<Seat>, reason: ForfeitReason, t: u64) {
        let s = self.r.step;
        let set: BTreeSet<Seat> = seats.iter().copied().collect();
        let head = self.step_head(b"forfeit", &seats);
        self.r.chance.forget(&seats);
        // Seats already gone from the game (removed earlier, or out) have nothing to forfeit.
        let in_game: Vec<Seat> = seats
            .iter()
            .copied()
            .filter(|x| self.r.game.seats().contains(x))
            .collect();
        if !in_game.is_empty() && !self.r.game.is_terminal() {
            if let Err(e) = self.r.game.forfeit(&in_game, reason) {
                self.broken(format!("the game could not remove a seat: {e}"));
                return;
            }
        }
        self.r.removed.extend(set);
        for x in &seats {
            self.gone(*x);
        }
        let sitting = self.r.game.sitting_out();
        let sitting_out = !seats.is_empty() && seats.iter().all(|x| sitting.contains(x));
        for x in seats.iter().filter(|x| sitting.contains(x)) {
            self.r.out_at.insert(*x, s);
        }
        self.r.verdicts.push(Verdict::Removed {
            step: s,
            seats,
            reason,
            sitting_out,
        });
        self.r.timeouts.insert(s);
        self.complete(Some(head), t, None);
    }

    /// Whether this table's moves carry their mover's tokens for the cards they show
    /// (version 9, PROTOCOL.md §5.4).
    pub(crate) fn carries_tokens(&self) -> bool {
        self.cfg.version >= crate::wire::TOKENS_ON_MOVES_SINCE && !G::KEEPS_TIME
    }

    /// The cards whose tokens `seat`'s move must carry, `after` being the game with the move
    /// applied (§5.4): the one rule its maker and every other client apply.
    pub(crate) fn carried_by_move(&self, after: &G, seat: Seat) -> Vec<(DeckId, u16)> {
        match after.to_act() {
            ToAct::Chance(reqs) => self.r.chance.carried_owed(&reqs, seat),
            _ => Vec::new(),
        }
    }

    /// The cards whose tokens `seat`'s opening of its sealed `action` must carry (§6.2), in the
    /// state the decision opened in: the one rule its maker and every other client apply.
    pub(crate) fn carried_by_opening(&self, seat: Seat, action: &G::Action) -> Vec<(DeckId, u16)> {
        let shown = self.r.game.shown_by(seat, action);
        self.r.chance.carried_shown(&shown, seat)
    }

    /// This seat's contribution to the open step, when it can make it without a decision.
    pub(crate) fn own_contribution(&self, me: Seat) -> Result<Option<Body>, String> {
        match &self.r.kind {
            Kind::Chance => self
                .r
                .chance
                .produce(self.r.step)
                .map_err(|e| e.to_string()),
            Kind::Open(sealing) => {
                if !sealing.commitments.contains_key(&me) {
                    return Ok(None);
                }
                let action = match self.my_seals.get(&sealing.seal_step) {
                    Some(a) => a.clone(),
                    None => self
                        .log
                        .at(sealing.seal_step, me)
                        .iter()
                        .find_map(|h| match &h.payload.body {
                            Body::Seal {
                                mine: Some(note), ..
                            } => self.read_seal_note(sealing.seal_step, note),
                            _ => None,
                        })
                        .ok_or("our sealed move is lost")?,
                };
                let salt = self.seal_salt(sealing.seal_step);
                let tokens = if self.carries_tokens() {
                    let owed = self.carried_by_opening(me, &action);
                    self.r
                        .chance
                        .carried_tokens(&owed)
                        .map_err(|e| e.to_string())?
                } else {
                    Vec::new()
                };
                Ok(Some(Body::Open {
                    action: serde_json::to_value(&action).map_err(|e| e.to_string())?,
                    salt: hex::encode(*salt),
                    tokens,
                }))
            }
            Kind::Ack { seats, .. } if seats.contains(&me) => Ok(Some(Body::Ack {})),
            Kind::End(seats) if seats.contains(&me) => Ok(Some(Body::End {})),
            // Back only if it asked to be (a `resume`, or a seat that was there all along,
            // §7.10): a seat that withheld a step on purpose is not dealt in again unasked.
            Kind::Return(seats) if seats.contains(&me) && self.returning().contains(&me) => {
                Ok(Some(Body::Return {}))
            }
            _ => Ok(None),
        }
    }
}
