//! One client's verified view of a dice table (Perudo, Mia): signed kind-7769 events in, game
//! state and the events this client owes out. No I/O and no clock: the runner in
//! [`super::dice_net`] carries events to and from relays and decides when a deadline passed;
//! every player, a spectator and `verify` run this same code, so the same events give the same
//! outcome whatever order they arrived in (`protocol/PROTOCOL.md` §12).
//!
//! The log is a sequence of **steps**: step 0 is every seat's commitment; then each engine
//! chance batch (reveals by the seats that owe them) and each move (by the seat to act) is one
//! step; after the game's last step every seat confirms the end. A client keeps every event it
//! receives, by step and author, and derives the game from them. When something it had applied
//! is voided — a timeout whose quorum completed after it applied the late event, a fork it learnt
//! of late — it replays the log from the start with the new rule in force (a dice game is a few
//! hundred small events, so replaying is cheaper than keeping snapshots).

use super::dice_chance::{DiceClient, DiceError, Planned, Public};
use super::old_session::{quorum, synthetic_head, Violation};
use crate::engine::{ChanceRequest, Game, Seat, ToAct};
use crate::fair::dice::{verify_reveal, DiceCommitment, DiceReveal, DiceSecret};
use crate::fair::{from_base64, to_base64};
use nostr_sdk::prelude::{Event, EventId, JsonUtil, PublicKey};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Event kind of a dice-game log (regular, stored).
pub const KIND_DICE_LOG: u16 = 7769;

/// The game number of the dice context: one game per table.
const GAME: u64 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiceEvent {
    pub v: u8,
    /// The engine's game name ("perudo", "mia").
    pub game: String,
    /// Table id, hex.
    pub table: String,
    #[serde(flatten)]
    pub body: DiceBody,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum DiceBody {
    /// The sender's dice commitment for the game (base64 of depth ‖ digest); step 0.
    Commit { commitment: String },
    /// The sender's reveals owed for chance batch `batch`, base64 each.
    Reveals {
        step: u32,
        batch: u32,
        prev: String,
        reveals: Vec<String>,
    },
    /// Move number `n` of the game, the engine's action as JSON.
    Move {
        step: u32,
        n: u32,
        prev: String,
        action: serde_json::Value,
    },
    /// The sender saw the game end with the head `prev`.
    End { step: u32, prev: String },
    /// The sender's deadline for `step` passed while it still awaited `missing`.
    Vote {
        step: u32,
        prev: String,
        missing: Vec<u16>,
    },
    /// `offender` signed the carried events (complete NIP-01 JSON) for one step.
    Evidence {
        offender: u16,
        reason: String,
        events: Vec<String>,
    },
}

impl DiceBody {
    /// The step this event contributes to; votes and evidence contribute to none (and may be
    /// repeated).
    pub fn step(&self) -> Option<u32> {
        match self {
            DiceBody::Commit { .. } => Some(0),
            DiceBody::Reveals { step, .. }
            | DiceBody::Move { step, .. }
            | DiceBody::End { step, .. } => Some(*step),
            DiceBody::Vote { .. } | DiceBody::Evidence { .. } => None,
        }
    }

    /// The chain head the sender built on (the table id for a commitment).
    fn prev<'a>(&'a self, table: &'a str) -> &'a str {
        match self {
            DiceBody::Reveals { prev, .. }
            | DiceBody::Move { prev, .. }
            | DiceBody::End { prev, .. }
            | DiceBody::Vote { prev, .. } => prev,
            DiceBody::Commit { .. } | DiceBody::Evidence { .. } => table,
        }
    }
}

/// How a table ended, the same for every client holding the same events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum DiceEnd {
    /// The game reached its end. `unconfirmed`: seats voted out of the end confirmation, which
    /// changes nothing.
    Finished { unconfirmed: Vec<u16> },
    /// The table ended at `step` by forfeit of `seats`: they lose, nobody else does
    /// (PROTOCOL.md §12.3).
    Forfeit {
        seats: Vec<u16>,
        step: u32,
        reason: String,
    },
}

/// What the open step waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum DiceAwait {
    Commits(Vec<u16>),
    Reveals { batch: u32, seats: Vec<u16> },
    Move(u16),
    End(Vec<u16>),
    Nothing,
}

impl DiceAwait {
    pub fn seats(&self) -> Vec<u16> {
        match self {
            DiceAwait::Commits(v) | DiceAwait::End(v) | DiceAwait::Reveals { seats: v, .. } => {
                v.clone()
            }
            DiceAwait::Move(s) => vec![*s],
            DiceAwait::Nothing => Vec::new(),
        }
    }
}

/// The game as derived from the log so far.
struct Replica<G> {
    game: G,
    dice: DiceClient,
    /// The open step.
    step: u32,
    head: String,
    batch: u32,
    moves: u32,
    accepted: Vec<Event>,
    end: Option<DiceEnd>,
    /// Who the open step still waits for.
    waiting: DiceAwait,
    /// Reveals events whose values `dice` holds.
    checked: HashSet<EventId>,
}

enum Kind {
    Commit,
    Chance(Vec<Planned>),
    Move(u16),
    End,
}

pub struct DiceSession<G: Game> {
    table: [u8; 32],
    table_hex: String,
    keys: Vec<PublicKey>,
    initial: G,
    me: Option<u16>,
    /// Publish no opening of this seat's own cups: a player caught in a bluff who walks away.
    /// Only for testing the forfeit path.
    refuse_to_open: bool,
    seen: HashSet<EventId>,
    /// Contributions by (step, author): distinct signed events in arrival order. Two or more
    /// are a fork.
    steps: BTreeMap<(u32, u16), Vec<Event>>,
    /// step → voter → union of the seats it named missing.
    votes: BTreeMap<u32, BTreeMap<u16, BTreeSet<u16>>>,
    forks: BTreeSet<(u32, u16)>,
    /// Events already reported as invalid (each is reported once, however often it is looked at).
    rejected: HashSet<EventId>,
    r: Replica<G>,
    /// Steps whose own contribution is queued, so it is produced once.
    queued: BTreeSet<u32>,
    outbox: Vec<DiceBody>,
    pub violations: Vec<Violation>,
}

impl<G: Game> DiceSession<G> {
    /// `keys` are the seats' keys in seat order; `me` this client's seat and dice secret (`None`
    /// for a spectator).
    pub fn new(
        table: [u8; 32],
        keys: Vec<PublicKey>,
        game: G,
        me: Option<(u16, DiceSecret)>,
        refuse_to_open: bool,
    ) -> Result<DiceSession<G>, DiceError> {
        if keys.len() != game.seats().len() {
            return Err(DiceError::Protocol(format!(
                "{} seat keys for a game of {} seats",
                keys.len(),
                game.seats().len()
            )));
        }
        let actors: Vec<[u8; 32]> = keys.iter().map(|k| k.to_bytes()).collect();
        let my_index = me.as_ref().map(|(i, _)| *i);
        let dice = DiceClient::new(table, GAME, game.seats(), actors, me)?;
        let table_hex = hex::encode(table);
        let n = keys.len() as u16;
        Ok(DiceSession {
            r: Replica {
                game: game.clone(),
                dice,
                step: 0,
                head: table_hex.clone(),
                batch: 0,
                moves: 0,
                accepted: Vec::new(),
                end: None,
                waiting: DiceAwait::Commits((0..n).collect()),
                checked: HashSet::new(),
            },
            table,
            table_hex,
            keys,
            initial: game,
            me: my_index,
            refuse_to_open,
            seen: HashSet::new(),
            steps: BTreeMap::new(),
            votes: BTreeMap::new(),
            forks: BTreeSet::new(),
            rejected: HashSet::new(),
            queued: BTreeSet::new(),
            outbox: Vec::new(),
            violations: Vec::new(),
        })
    }

    pub fn me(&self) -> Option<u16> {
        self.me
    }
    pub fn game(&self) -> &G {
        &self.r.game
    }
    pub fn end(&self) -> Option<&DiceEnd> {
        self.r.end.as_ref()
    }
    pub fn is_finished(&self) -> bool {
        self.r.end.is_some()
    }
    /// The open step and the head it builds on.
    pub fn position(&self) -> (u32, String) {
        (self.r.step, self.r.head.clone())
    }
    pub fn awaiting(&self) -> DiceAwait {
        self.r.waiting.clone()
    }
    pub fn batches(&self) -> u32 {
        self.r.batch
    }
    pub fn moves(&self) -> u32 {
        self.r.moves
    }
    /// Every applied event, in the order of the log.
    pub fn accepted(&self) -> &[Event] {
        &self.r.accepted
    }
    pub fn into_game(self) -> G {
        self.r.game
    }

    /// Takes in one event from a relay, the journal or this client itself. Returns what was
    /// wrong with it or with what it completed.
    pub fn handle(&mut self, ev: &Event) -> Vec<Violation> {
        let before = self.violations.len();
        // Only verified events enter `seen`, so skipping a known id never hides a genuine event;
        // a forgery that reuses one is skipped with it. Own events come back from every relay.
        if self.seen.contains(&ev.id) {
            return Vec::new();
        }
        let wire = |reason: String| Violation::Wire {
            id: ev.id.to_hex(),
            reason,
        };
        if ev.kind.as_u16() != KIND_DICE_LOG {
            self.violations.push(wire(format!(
                "kind {}, not {KIND_DICE_LOG}",
                ev.kind.as_u16()
            )));
            return self.since(before);
        }
        if ev.verify().is_err() {
            self.violations.push(wire("bad id or signature".into()));
            return self.since(before);
        }
        let Some(author) = self.keys.iter().position(|k| *k == ev.pubkey) else {
            self.violations.push(Violation::NotSeated {
                id: ev.id.to_hex(),
                author: ev.pubkey.to_hex(),
            });
            return self.since(before);
        };
        let author = author as u16;
        let body = match serde_json::from_str::<DiceEvent>(&ev.content) {
            Ok(b) if b.v != 1 => Err(format!("version {}, not 1", b.v)),
            Ok(b) if b.table != self.table_hex => Err(format!("for table {}", b.table)),
            Ok(b) if b.game != G::NAME => Err(format!("a {} event at a {} table", b.game, G::NAME)),
            Ok(b) => Ok(b.body),
            Err(e) => Err(format!("unreadable content: {e}")),
        };
        let body = match body {
            Ok(b) => b,
            Err(reason) => {
                self.violations.push(wire(reason));
                return self.since(before);
            }
        };
        self.seen.insert(ev.id);
        let n = self.keys.len() as u16;
        match body {
            DiceBody::Vote { step, missing, .. } => {
                self.votes
                    .entry(step)
                    .or_default()
                    .entry(author)
                    .or_default()
                    .extend(missing.into_iter().filter(|s| *s != author && *s < n));
                if step < self.r.step && self.quorum_at(step).is_some() {
                    self.replay();
                }
            }
            DiceBody::Evidence { events, .. } => {
                // The carried events prove the fork by themselves: handle them as if relayed.
                for e in events.iter().filter_map(|j| Event::from_json(j).ok()) {
                    self.handle(&e);
                }
            }
            contribution => {
                let step = contribution.step().expect("a contribution has a step");
                let list = self.steps.entry((step, author)).or_default();
                list.push(ev.clone());
                if list.len() > 1 {
                    let (a, b) = (list[0].clone(), ev.clone());
                    self.on_fork(author, step, &a, &b);
                }
            }
        }
        self.advance();
        self.since(before)
    }

    /// Violations reported since there were `before` (a replay may have withdrawn some).
    fn since(&self, before: usize) -> Vec<Violation> {
        self.violations
            .get(before..)
            .map(<[_]>::to_vec)
            .unwrap_or_default()
    }

    fn on_fork(&mut self, seat: u16, step: u32, a: &Event, b: &Event) {
        self.violations.push(Violation::Fork {
            seat: seat as Seat,
            hand: GAME,
            step,
            a: a.id.to_hex(),
            b: b.id.to_hex(),
        });
        if !self.forks.insert((step, seat)) {
            return;
        }
        if self.me.is_some() {
            self.outbox.push(DiceBody::Evidence {
                offender: seat,
                reason: format!("two different events for step {step}"),
                events: vec![a.as_json(), b.as_json()],
            });
        }
        if step < self.r.step {
            self.replay();
        }
    }

    /// Derives the game from the start again, over every event held.
    fn replay(&mut self) {
        let n = self.keys.len() as u16;
        self.r.game = self.initial.clone();
        self.r.dice.restart();
        self.r.step = 0;
        self.r.head = self.table_hex.clone();
        self.r.batch = 0;
        self.r.moves = 0;
        self.r.accepted.clear();
        self.r.end = None;
        self.r.waiting = DiceAwait::Commits((0..n).collect());
        self.r.checked.clear();
        // Whether an event fits its step depends on the branch: judge them again on this one.
        self.rejected.clear();
        self.violations
            .retain(|v| !matches!(v, Violation::Invalid { .. }));
    }

    fn parts(&self) -> Vec<u16> {
        (0..self.keys.len() as u16).collect()
    }

    fn quorum_at(&self, step: u32) -> Option<Vec<u16>> {
        quorum(self.votes.get(&step)?, &self.parts())
    }

    /// Seats that forked `step` with no later barrier (PROTOCOL.md §12.4): a later step at which
    /// every other seat signed one event, all naming the same head, shows every other seat
    /// followed one branch, so the fork changed nobody's view and is evidence only.
    fn unprotected_forks(&self, step: u32) -> Vec<u16> {
        self.forks
            .iter()
            .filter(|(s, _)| *s == step)
            .map(|(_, seat)| *seat)
            .filter(|seat| !self.barrier_after(step, *seat))
            .collect()
    }

    fn barrier_after(&self, step: u32, forker: u16) -> bool {
        let mut by_step: BTreeMap<u32, Vec<&Event>> = BTreeMap::new();
        for ((s, seat), evs) in self.steps.range((step + 1, 0)..) {
            if *seat != forker && evs.len() == 1 {
                by_step.entry(*s).or_default().push(&evs[0]);
            }
        }
        let others = self.keys.len() - 1;
        by_step.values().any(|evs| {
            let heads: BTreeSet<String> = evs
                .iter()
                .filter_map(|e| serde_json::from_str::<DiceEvent>(&e.content).ok())
                .map(|b| b.body.prev(&self.table_hex).to_string())
                .collect();
            evs.len() == others && heads.len() == 1
        })
    }

    /// The events of `seat` for `step` to try, best first. After a protected fork of a move,
    /// the one the others built on (named as `prev` by a later event of another seat) comes
    /// first, so every client follows the branch the others followed.
    fn candidates(&self, step: u32, seat: u16) -> Vec<Event> {
        let Some(evs) = self.steps.get(&(step, seat)) else {
            return Vec::new();
        };
        if evs.len() == 1 {
            return evs.clone();
        }
        let named: HashSet<String> = self
            .steps
            .range((step + 1, 0)..)
            .filter(|((_, s), _)| *s != seat)
            .flat_map(|(_, evs)| evs.iter())
            .filter_map(|e| serde_json::from_str::<DiceEvent>(&e.content).ok())
            .map(|b| b.body.prev(&self.table_hex).to_string())
            .collect();
        // For two commitments, the one the seat's later reveals open.
        let reveal = self
            .steps
            .range((step + 1, seat)..)
            .filter(|((_, s), _)| *s == seat)
            .flat_map(|(_, evs)| evs.iter())
            .filter_map(|e| serde_json::from_str::<DiceEvent>(&e.content).ok())
            .find_map(|b| match b.body {
                DiceBody::Reveals { reveals, .. } => reveals.first().cloned(),
                _ => None,
            });
        let ctx = DiceClient::context(self.table, GAME, seat, self.keys[seat as usize].to_bytes());
        let opens = |e: &Event| -> bool {
            let Some(r) = &reveal else { return false };
            let Ok(DiceBody::Commit { commitment }) =
                serde_json::from_str::<DiceEvent>(&e.content).map(|b| b.body)
            else {
                return false;
            };
            let Ok(c) = from_base64("c", &commitment).and_then(|b| DiceCommitment::from_bytes(&b))
            else {
                return false;
            };
            DiceReveal::from_base64(r, c.slots().trailing_zeros() as u8)
                .and_then(|r| verify_reveal(&ctx, &c, &r))
                .is_ok()
        };
        let mut out = evs.clone();
        out.sort_by_key(|e| (!named.contains(&e.id.to_hex()), !opens(e), e.id));
        out
    }

    /// Whether this client may apply `seat`'s event for `step` (PROTOCOL.md §7.7): if it voted
    /// `seat` missing there, only once some participant it did not name, and that did not vote
    /// there, signed a later step — that participant applied the late event and will never vote,
    /// so the quorum cannot complete.
    fn may_apply(&self, step: u32, seat: u16) -> bool {
        let Some(me) = self.me else {
            return true;
        };
        let Some(votes) = self.votes.get(&step) else {
            return true;
        };
        let Some(named) = votes.get(&me) else {
            return true;
        };
        if !named.contains(&seat) {
            return true;
        }
        self.steps
            .range((step + 1, 0)..)
            .any(|((_, y), _)| *y != seat && !named.contains(y) && !votes.contains_key(y))
    }

    fn reject(&mut self, ev: &Event, seat: u16, reason: String) {
        if self.rejected.insert(ev.id) {
            self.violations.push(Violation::Invalid {
                id: ev.id.to_hex(),
                seat: seat as Seat,
                reason,
            });
        }
    }

    fn kind(&mut self) -> Result<Kind, String> {
        if self.r.step == 0 {
            return Ok(Kind::Commit);
        }
        match self.r.game.to_act() {
            ToAct::Terminal => Ok(Kind::End),
            ToAct::Chance(reqs) => self
                .r
                .dice
                .plan(&reqs)
                .map(Kind::Chance)
                .map_err(|e| e.to_string()),
            ToAct::Seat(s) => {
                let idx = self
                    .r
                    .game
                    .seats()
                    .iter()
                    .position(|x| *x == s)
                    .ok_or_else(|| format!("seat {s} is not at the table"))?;
                Ok(Kind::Move(idx as u16))
            }
            ToAct::Sealed(_) => Err("dice sessions carry one actor at a time".into()),
        }
    }

    /// Applies every step the held events complete.
    fn advance(&mut self) {
        while self.r.end.is_none() {
            let s = self.r.step;
            let forkers = self.unprotected_forks(s);
            if !forkers.is_empty() {
                self.r.end = Some(DiceEnd::Forfeit {
                    seats: forkers,
                    step: s,
                    reason: "signed two different events for one step".into(),
                });
                self.r.waiting = DiceAwait::Nothing;
                return;
            }
            if let Some(missing) = self.quorum_at(s) {
                self.apply_timeout(s, missing);
                continue;
            }
            let kind = match self.kind() {
                Ok(k) => k,
                Err(e) => {
                    // Only a broken engine or an exhausted slot tree gets here; nobody is to blame
                    // more than anyone else, so the table ends with every seat named.
                    self.r.end = Some(DiceEnd::Forfeit {
                        seats: self.parts(),
                        step: s,
                        reason: e,
                    });
                    return;
                }
            };
            let done = match kind {
                Kind::Commit => self.try_commits(),
                Kind::Chance(plan) => self.try_reveals(&plan),
                Kind::Move(actor) => self.try_move(actor),
                Kind::End => self.try_end(),
            };
            if !done {
                return;
            }
        }
        self.r.waiting = DiceAwait::Nothing;
    }

    fn try_commits(&mut self) -> bool {
        let mut got = Vec::new();
        let mut waiting = Vec::new();
        for seat in self.parts() {
            let found = self.candidates(0, seat).into_iter().find_map(|ev| {
                let c = match serde_json::from_str::<DiceEvent>(&ev.content).map(|b| b.body) {
                    Ok(DiceBody::Commit { commitment }) => {
                        from_base64("dice commitment", &commitment)
                            .and_then(|b| DiceCommitment::from_bytes(&b))
                            .map_err(|e| e.to_string())
                            .and_then(|c| {
                                if c.slots() < super::dice_chance::SLOTS {
                                    Err(format!(
                                        "commits to {} dice slots, fewer than {}",
                                        c.slots(),
                                        super::dice_chance::SLOTS
                                    ))
                                } else {
                                    Ok(c)
                                }
                            })
                    }
                    _ => Err("not a commitment".into()),
                };
                match c {
                    Ok(c) => Some((ev, c)),
                    Err(e) => {
                        self.reject(&ev, seat, e);
                        None
                    }
                }
            });
            match found {
                Some(x) if self.may_apply(0, seat) => got.push((seat, x)),
                _ => waiting.push(seat),
            }
        }
        if !waiting.is_empty() {
            self.r.waiting = DiceAwait::Commits(waiting);
            return false;
        }
        for (seat, (ev, commitment)) in got {
            self.r
                .dice
                .receive(&Public::Commit { seat, commitment })
                .expect("checked commitments of a restarted client");
            self.r.accepted.push(ev);
        }
        self.r.step = 1;
        true
    }

    fn owing(plan: &[Planned]) -> Vec<u16> {
        let mut v: Vec<u16> = plan.iter().flat_map(|p| p.revealers.clone()).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    fn try_reveals(&mut self, plan: &[Planned]) -> bool {
        let s = self.r.step;
        let batch = self.r.batch;
        let owing = Self::owing(plan);
        let mut got = Vec::new();
        let mut waiting = Vec::new();
        for seat in owing {
            let slots: BTreeSet<u32> = plan
                .iter()
                .filter(|p| p.revealers.contains(&seat))
                .map(|p| p.roll.slot)
                .collect();
            let mut found = None;
            for ev in self.candidates(s, seat) {
                // Checked while the batch waited for another seat: its values are still held.
                if self.r.checked.contains(&ev.id) {
                    found = Some(ev);
                    break;
                }
                match self.check_reveals(&ev, seat, &slots) {
                    Ok(()) => {
                        self.r.checked.insert(ev.id);
                        found = Some(ev);
                        break;
                    }
                    Err(e) => self.reject(&ev, seat, e),
                }
            }
            match found {
                Some(ev) if self.may_apply(s, seat) => got.push(ev),
                _ => waiting.push(seat),
            }
        }
        if !waiting.is_empty() {
            self.r.waiting = DiceAwait::Reveals {
                batch,
                seats: waiting,
            };
            return false;
        }
        let outs = match self.r.dice.answer(plan) {
            Ok(o) => o,
            Err(e) => {
                self.r.end = Some(DiceEnd::Forfeit {
                    seats: got.iter().map(|e| self.author(e)).collect(),
                    step: s,
                    reason: e.to_string(),
                });
                return false;
            }
        };
        if let Err(e) = self.r.game.apply_chance(&outs) {
            // The dice are a function of committed values: only the roller of a cup can
            // disagree with its opening, and only in its own replica.
            self.r.end = Some(DiceEnd::Forfeit {
                seats: plan
                    .iter()
                    .filter(|p| matches!(p.request, ChanceRequest::OpenPrivate { .. }))
                    .filter_map(|p| p.roll.owner)
                    .collect(),
                step: s,
                reason: e.to_string(),
            });
            return false;
        }
        self.r.accepted.extend(got);
        self.r.batch += 1;
        self.r.step += 1;
        true
    }

    fn author(&self, ev: &Event) -> u16 {
        self.keys.iter().position(|k| *k == ev.pubkey).unwrap_or(0) as u16
    }

    /// An event of `seat` answers this batch if it names this step, batch and head and holds
    /// exactly its reveals for `slots`, each matching its commitment.
    fn check_reveals(
        &mut self,
        ev: &Event,
        seat: u16,
        slots: &BTreeSet<u32>,
    ) -> Result<(), String> {
        let body = serde_json::from_str::<DiceEvent>(&ev.content).map_err(|e| e.to_string())?;
        let DiceBody::Reveals {
            batch,
            prev,
            reveals,
            ..
        } = body.body
        else {
            return Err(format!(
                "a {} event where reveals are due",
                body_name(&body.body)
            ));
        };
        if batch != self.r.batch {
            return Err(format!(
                "reveals for batch {batch} at batch {}",
                self.r.batch
            ));
        }
        if prev != self.r.head {
            return Err(format!("builds on {prev}, not the head {}", self.r.head));
        }
        let depth = self.r.dice.depth(seat);
        let decoded = reveals
            .iter()
            .map(|r| DiceReveal::from_base64(r, depth).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let given: BTreeSet<u32> = decoded.iter().map(|r| r.slot).collect();
        if given != *slots || decoded.len() != slots.len() {
            return Err(format!("reveals slots {given:?}, owes {slots:?}"));
        }
        for reveal in decoded {
            self.r
                .dice
                .receive(&Public::Reveal { seat, reveal })
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn try_move(&mut self, actor: u16) -> bool {
        let s = self.r.step;
        let intruders: Vec<(u16, Event)> = self
            .steps
            .range((s, 0)..(s + 1, 0))
            .filter(|((_, seat), _)| *seat != actor)
            .flat_map(|((_, seat), evs)| evs.iter().map(|e| (*seat, e.clone())))
            .collect();
        for (seat, ev) in intruders {
            self.reject(
                &ev,
                seat,
                format!("moved out of turn (seat {actor} to act)"),
            );
        }
        let seat = self.r.game.seats()[actor as usize];
        for ev in self.candidates(s, actor) {
            let parsed = serde_json::from_str::<DiceEvent>(&ev.content)
                .map_err(|e| e.to_string())
                .and_then(|b| match b.body {
                    DiceBody::Move {
                        n, prev, action, ..
                    } if n == self.r.moves && prev == self.r.head => {
                        serde_json::from_value::<G::Action>(action)
                            .map_err(|e| format!("unreadable move: {e}"))
                    }
                    DiceBody::Move { n, prev, .. } => Err(format!(
                        "move {n} on {prev}; expected move {} on the head {}",
                        self.r.moves, self.r.head
                    )),
                    other => Err(format!("a {} event where a move is due", body_name(&other))),
                });
            let action = match parsed {
                Ok(a) => a,
                Err(e) => {
                    self.reject(&ev, actor, e);
                    continue;
                }
            };
            if !self.may_apply(s, actor) {
                break;
            }
            // The engine refuses before it changes anything.
            if let Err(e) = self.r.game.apply(seat, &action) {
                self.reject(&ev, actor, e.to_string());
                continue;
            }
            self.r.head = ev.id.to_hex();
            self.r.accepted.push(ev);
            self.r.moves += 1;
            self.r.step += 1;
            return true;
        }
        self.r.waiting = DiceAwait::Move(actor);
        false
    }

    fn try_end(&mut self) -> bool {
        let s = self.r.step;
        let mut got = Vec::new();
        let mut waiting = Vec::new();
        for seat in self.parts() {
            let mut found = None;
            for ev in self.candidates(s, seat) {
                match serde_json::from_str::<DiceEvent>(&ev.content).map(|b| b.body) {
                    Ok(DiceBody::End { prev, .. }) if prev == self.r.head => {
                        found = Some(ev);
                        break;
                    }
                    _ => self.reject(
                        &ev,
                        seat,
                        format!("not the end on the head {}", self.r.head),
                    ),
                }
            }
            match found {
                Some(ev) if self.may_apply(s, seat) => got.push(ev),
                _ => waiting.push(seat),
            }
        }
        if !waiting.is_empty() {
            self.r.waiting = DiceAwait::End(waiting);
            return false;
        }
        self.r.accepted.extend(got);
        self.r.end = Some(DiceEnd::Finished {
            unconfirmed: Vec::new(),
        });
        true
    }

    /// PROTOCOL.md §7.4 for dice: a move step whose only missing seat is the one to act gets
    /// the engine's timeout move; a missing end confirmation changes nothing; anything else ends
    /// the table by forfeit of the missing seats.
    fn apply_timeout(&mut self, s: u32, missing: Vec<u16>) {
        match self.kind() {
            Ok(Kind::End) => {
                self.r.end = Some(DiceEnd::Finished {
                    unconfirmed: missing,
                });
                return;
            }
            Ok(Kind::Move(actor)) if missing == [actor] => {
                let seat = self.r.game.seats()[actor as usize];
                if let Some(action) = self.r.game.timeout_action(seat) {
                    if self.r.game.apply(seat, &action).is_ok() {
                        self.r.head = synthetic_head(&[
                            b"timeout",
                            self.table_hex.as_bytes(),
                            &GAME.to_be_bytes(),
                            &s.to_be_bytes(),
                            &[actor as u8],
                        ]);
                        self.r.moves += 1;
                        self.r.step += 1;
                        return;
                    }
                }
            }
            _ => {}
        }
        self.r.end = Some(DiceEnd::Forfeit {
            seats: missing,
            step: s,
            reason: "withheld a step past the deadline".into(),
        });
    }

    fn has_own(&self, step: u32) -> bool {
        self.me
            .is_some_and(|me| self.steps.contains_key(&(step, me)) || self.queued.contains(&step))
    }

    /// Queues what this seat owes at the open step (not a move: see [`Self::my_turn`]), unless it
    /// signed that step already — before a restart, say.
    fn produce(&mut self) {
        if self.me.is_none() || self.r.end.is_some() || self.has_own(self.r.step) {
            return;
        }
        let s = self.r.step;
        let head = self.r.head.clone();
        let body = match self.kind() {
            Ok(Kind::Commit) => match self.r.dice.commit() {
                Some(Public::Commit { commitment, .. }) => Some(DiceBody::Commit {
                    commitment: to_base64(&commitment.to_bytes()),
                }),
                _ => None,
            },
            Ok(Kind::End) => Some(DiceBody::End {
                step: s,
                prev: head,
            }),
            Ok(Kind::Chance(plan)) => {
                let opening = plan
                    .iter()
                    .any(|p| matches!(p.request, ChanceRequest::OpenPrivate { .. }));
                let mine = self.r.dice.my_reveals(&plan);
                let withheld = opening && self.refuse_to_open;
                (!mine.is_empty() && !withheld).then(|| DiceBody::Reveals {
                    step: s,
                    batch: self.r.batch,
                    prev: head,
                    reveals: mine
                        .iter()
                        .filter_map(|m| match m {
                            Public::Reveal { reveal, .. } => Some(reveal.to_base64()),
                            Public::Commit { .. } => None,
                        })
                        .collect(),
                })
            }
            Ok(Kind::Move(_)) | Err(_) => None,
        };
        if let Some(b) = body {
            self.queued.insert(s);
            self.outbox.push(b);
        }
    }

    /// The events this client must sign and publish now.
    pub fn take_outbox(&mut self) -> Vec<DiceBody> {
        self.produce();
        std::mem::take(&mut self.outbox)
    }

    /// This seat's view and legal moves when it is to move and has not moved yet.
    pub fn my_turn(&mut self) -> Option<(G::View, Vec<G::Action>)> {
        let me = self.me?;
        if self.r.end.is_some() || self.has_own(self.r.step) {
            return None;
        }
        match self.kind() {
            Ok(Kind::Move(actor)) if actor == me => {
                let seat = self.r.game.seats()[me as usize];
                Some((
                    self.r.game.view(Some(seat)),
                    self.r.game.legal_actions(seat),
                ))
            }
            _ => None,
        }
    }

    /// Queues this seat's move for the open step, if the engine accepts it.
    pub fn submit(&mut self, action: &G::Action) -> Result<(), String> {
        let me = self.me.ok_or("a spectator does not move")?;
        if self.my_turn().is_none() {
            return Err("not this seat's turn".into());
        }
        let seat = self.r.game.seats()[me as usize];
        self.r
            .game
            .clone()
            .apply(seat, action)
            .map_err(|e| e.to_string())?;
        let s = self.r.step;
        self.queued.insert(s);
        self.outbox.push(DiceBody::Move {
            step: s,
            n: self.r.moves,
            prev: self.r.head.clone(),
            action: serde_json::to_value(action).map_err(|e| e.to_string())?,
        });
        Ok(())
    }

    /// Queues this seat's timeout vote for the open step (PROTOCOL.md §7.2); `false` when it
    /// has none to cast (a spectator, awaited itself, or nothing is awaited). A repeated vote
    /// also names the participants that neither acted nor voted since.
    pub fn vote(&mut self) -> bool {
        let Some(me) = self.me else {
            return false;
        };
        let awaited = self.r.waiting.seats();
        if self.r.end.is_some() || awaited.is_empty() || awaited.contains(&me) {
            return false;
        }
        let s = self.r.step;
        let mut missing: BTreeSet<u16> = awaited.into_iter().collect();
        if let Some(votes) = self.votes.get(&s) {
            if let Some(before) = votes.get(&me) {
                missing.extend(before.iter().copied());
                missing.extend(
                    self.parts()
                        .into_iter()
                        .filter(|p| *p != me && !votes.contains_key(p)),
                );
            }
        }
        self.outbox.push(DiceBody::Vote {
            step: s,
            prev: self.r.head.clone(),
            missing: missing.into_iter().collect(),
        });
        true
    }
}

fn body_name(b: &DiceBody) -> &'static str {
    match b {
        DiceBody::Commit { .. } => "commit",
        DiceBody::Reveals { .. } => "reveals",
        DiceBody::Move { .. } => "move",
        DiceBody::End { .. } => "end",
        DiceBody::Vote { .. } => "vote",
        DiceBody::Evidence { .. } => "evidence",
    }
}

#[cfg(test)]
mod tests;
