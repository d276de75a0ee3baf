//! The session driven by an in-memory harness: every seat its own key, master secret and
//! session; a spectator; events signed with the harness's clock and delivered in orders the
//! test chooses. No relay, no sleeps: time is a number the test moves.

use super::*;
use crate::bots::{Bot, RandomBot};
use crate::games::high_card::{self, HighCard};
use crate::wire::log::log_event;
use nostr_sdk::prelude::{Keys, SecretKey, Timestamp};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

mod carried;
mod dealt_ahead;
mod finality;

const START: u64 = 1_700_000_000;

/// What a seat's client does with what it owes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Honest,
    /// Publishes nothing any more (a dead client).
    Dead,
}

/// Which of a seat's own events its relays hold back.
type HoldBack = fn(&Payload) -> bool;

struct Harness<G: Game> {
    keys: Vec<Keys>,
    host: PublicKey,
    seats: Vec<Session<G>>,
    spectator: Session<G>,
    modes: Vec<Mode>,
    bots: Vec<Box<dyn Bot<G>>>,
    /// Every event published, in publication order.
    log: Vec<Event>,
    /// Per client (seats, then the spectator): how much of `log` it has received.
    seen: Vec<usize>,
    now: u64,
    cfg: SessionConfig,
    /// Each seat runs a speculative copy on every event before checking it (as the runner does
    /// on another thread), so its next shuffle is made on the deck still being checked.
    speculate: bool,
    /// Each seat has the shuffles its next event needs made apart, as jobs taken back before
    /// it acts (as the page does with its worker), never proving one itself.
    apart: bool,
    /// Per seat: which of its own events its relays hold back (signed and applied by its own
    /// client, published by nobody until the test releases them from `held`).
    hold: Vec<Option<HoldBack>>,
    held: Vec<Event>,
    /// Delivery as a bad network gives it: out of order, some events only later, some twice.
    chaos: Option<StdRng>,
    /// Per client: indices of `log` it has not been given yet (under `chaos`).
    late: Vec<Vec<usize>>,
}

fn master(seat: usize, seed: u64) -> Zeroizing<[u8; 32]> {
    let mut m = [0u8; 32];
    m[..8].copy_from_slice(&seed.to_be_bytes());
    m[8] = seat as u8;
    Zeroizing::new(m)
}

impl<G: Game + 'static> Harness<G> {
    fn new(game: G, seed: u64, deadlines: Deadlines) -> Harness<G> {
        Harness::at_version(game, seed, deadlines, crate::wire::VERSION)
    }

    /// A table of protocol `version` (its game set up as that version plays it).
    fn at_version(game: G, seed: u64, deadlines: Deadlines, version: u8) -> Harness<G> {
        let n = game.seats().len();
        let keys: Vec<Keys> = (0..n)
            .map(|i| {
                let mut b = [0u8; 32];
                b[0] = 1 + i as u8;
                b[1..9].copy_from_slice(&seed.to_be_bytes());
                Keys::new(SecretKey::from_slice(&b).unwrap())
            })
            .collect();
        let cfg = SessionConfig {
            table: [seed as u8; 32],
            seats: keys.iter().map(|k| k.public_key()).collect(),
            deadlines,
            start: START,
            pow: 0,
            version,
        };
        let seats = (0..n)
            .map(|i| {
                Session::new(
                    cfg.clone(),
                    game.clone(),
                    Some((i as Seat, master(i, seed))),
                )
                .unwrap()
            })
            .collect();
        let spectator = Session::new(cfg.clone(), game.clone(), None).unwrap();
        Harness {
            host: keys[0].public_key(),
            keys,
            seats,
            spectator,
            modes: vec![Mode::Honest; n],
            bots: (0..n)
                .map(|i| {
                    Box::new(RandomBot::new(StdRng::seed_from_u64(seed * 100 + i as u64)))
                        as Box<dyn Bot<G>>
                })
                .collect(),
            log: Vec::new(),
            seen: vec![0; n + 1],
            now: START,
            cfg,
            speculate: false,
            apart: false,
            hold: vec![None; n],
            held: Vec::new(),
            chaos: None,
            late: vec![Vec::new(); n + 1],
        }
    }

    fn sign(&self, seat: usize, p: &Payload, at: u64) -> Event {
        log_event(&self.host, p)
            .custom_created_at(Timestamp::from(at))
            .sign_with_keys(&self.keys[seat])
            .unwrap()
    }

    /// Publishes an event as of now.
    fn publish(&mut self, ev: Event) {
        self.log.push(ev);
    }

    /// Delivers everything published to every client, lets each act, until nothing changes.
    fn settle(&mut self) {
        self.settle_deciding(true);
    }

    /// [`Harness::settle`]; with `decide` false no seat decides a move, so the table stops at
    /// a decision.
    fn settle_deciding(&mut self, decide: bool) {
        for _ in 0..10_000 {
            let before = self.log.len();
            for i in 0..self.seats.len() {
                self.deliver(i);
                if self.modes[i] == Mode::Dead {
                    continue;
                }
                if self.apart {
                    for job in self.seats[i].shuffle_jobs() {
                        let done = job.run().unwrap();
                        self.seats[i].take_shuffle(&done).unwrap();
                    }
                }
                if let Some(turn) = self.seats[i].my_turn().filter(|_| decide) {
                    let a = self.bots[i].choose(&turn.view, &turn.legal);
                    self.seats[i].submit(&a).unwrap();
                }
                for p in self.seats[i].take_outbox() {
                    let ev = self.sign(i, &p, self.now);
                    self.seats[i].handle(&ev);
                    if self.hold[i].is_some_and(|f| f(&p)) {
                        self.held.push(ev);
                    } else {
                        self.publish(ev);
                    }
                }
            }
            let n = self.seats.len();
            self.deliver(n);
            if self.log.len() == before {
                // Under chaos, some clients get what was held back now, the others only after
                // the clock has moved (and they may have voted).
                let Some(rng) = self.chaos.as_mut() else {
                    return;
                };
                use rand::Rng;
                let now: Vec<usize> = (0..=n)
                    .filter(|c| !self.late[*c].is_empty() && rng.gen_bool(0.5))
                    .collect();
                if now.is_empty() {
                    return;
                }
                for c in now {
                    for i in std::mem::take(&mut self.late[c]) {
                        let ev = self.log[i].clone();
                        self.give(c, &ev);
                    }
                }
            }
        }
        panic!("the table never settled");
    }

    fn deliver(&mut self, client: usize) {
        if let Some(rng) = self.chaos.as_mut() {
            use rand::Rng;
            let late = &mut self.late[client];
            late.extend(self.seen[client]..self.log.len());
            self.seen[client] = self.log.len();
            late.shuffle(rng);
            let mut now = Vec::new();
            late.retain(|i| {
                let go = rng.gen_bool(0.6);
                if go {
                    now.push(*i);
                }
                !go
            });
            if let Some(&twice) = now.first().filter(|_| rng.gen_bool(0.1)) {
                now.push(twice);
            }
            for i in now {
                let ev = self.log[i].clone();
                self.give(client, &ev);
            }
            return;
        }
        while self.seen[client] < self.log.len() {
            let ev = self.log[self.seen[client]].clone();
            self.seen[client] += 1;
            self.give(client, &ev);
        }
    }

    /// Hands `ev` to one client (seats, then the spectator).
    fn give(&mut self, client: usize, ev: &Event) {
        if client < self.seats.len() {
            if let Some(copy) = self
                .speculate
                .then(|| self.seats[client].speculation(ev))
                .flatten()
            {
                copy.run();
            }
            self.seats[client].handle(ev);
        } else {
            self.spectator.handle(ev);
        }
    }

    /// Gives every client everything it has not had yet, and lets the table settle.
    fn flush(&mut self) {
        let chaos = self.chaos.take();
        for c in 0..self.late.len() {
            for i in std::mem::take(&mut self.late[c]) {
                let ev = self.log[i].clone();
                self.give(c, &ev);
            }
        }
        self.settle();
        self.chaos = chaos;
    }

    /// Moves the clock and lets every live seat vote where its deadline passed.
    fn tick(&mut self, secs: u64) {
        self.now += secs;
        for i in 0..self.seats.len() {
            if self.modes[i] == Mode::Honest {
                self.seats[i].vote(self.now);
            }
        }
        self.settle();
    }

    /// Plays until every live client finished (or `max` ticks of a step's allowance).
    fn run(&mut self, max: usize) {
        self.settle();
        for _ in 0..max {
            if self.done() {
                return;
            }
            self.tick(self.cfg.deadlines.move_ms.max(self.cfg.deadlines.crypto_ms) / 1000 + 3);
        }
        panic!(
            "the table did not finish: seat 0 waits for {:?}",
            self.seats[0].awaiting()
        );
    }

    /// [`Harness::run`], then every client agrees and no seat was blamed.
    fn run_honestly(&mut self, max: usize) {
        self.run(max);
        self.agree();
        let blamed = honest_violations(self);
        assert!(blamed.is_empty(), "{blamed:?}");
    }

    fn done(&self) -> bool {
        self.spectator.is_finished()
            && self
                .seats
                .iter()
                .zip(&self.modes)
                .all(|(s, m)| *m == Mode::Dead || s.is_finished())
    }

    /// Every live seat and the spectator reached the same game and verdicts.
    fn agree(&self) {
        let g = serde_json::to_value(self.spectator.game()).unwrap();
        for (i, s) in self.seats.iter().enumerate() {
            if self.modes[i] == Mode::Dead {
                continue;
            }
            assert_eq!(s.verdicts(), self.spectator.verdicts(), "seat {i} verdicts");
            assert_eq!(
                serde_json::to_value(s.game().view(None)).unwrap(),
                serde_json::to_value(self.spectator.game().view(None)).unwrap(),
                "seat {i} public view"
            );
            assert_eq!(s.position(), self.spectator.position(), "seat {i} position");
        }
        let _ = g;
    }

    /// Seat `seat`'s client restarted (its master from `seed`) and fed `events` in that order.
    fn restarted<'a>(
        &self,
        seat: usize,
        seed: u64,
        events: impl IntoIterator<Item = &'a Event>,
    ) -> Session<G> {
        let mut s = Session::new(
            self.cfg.clone(),
            self.spectator.initial.clone(),
            Some((seat as Seat, master(seat, seed))),
        )
        .unwrap();
        for ev in events {
            s.handle(ev);
        }
        s
    }

    /// The log's events of this table with their payloads, in log order.
    fn payloads(&self) -> impl Iterator<Item = (&Event, Payload)> + '_ {
        let table = hex::encode(self.cfg.table);
        self.log
            .iter()
            .filter_map(move |e| parse_log(e, &table).ok().map(|p| (e, p)))
    }

    /// A fresh spectator fed the whole log in `order`: it must reach the same end.
    fn replay_in(&self, order: &[Event]) -> Session<G> {
        let mut s = Session::new(self.cfg.clone(), self.spectator.initial.clone(), None).unwrap();
        for ev in order {
            s.handle(ev);
        }
        s
    }

    /// A fresh spectator fed the whole log in reverse order: it must reach the same verdicts
    /// and the same game as the one that saw it in order.
    fn agrees_backwards(&self) -> Session<G> {
        let mut backwards = self.log.clone();
        backwards.reverse();
        let late = self.replay_in(&backwards);
        assert_eq!(late.verdicts(), self.spectator.verdicts());
        assert_eq!(late.game(), self.spectator.game());
        late
    }
}

fn quick() -> Deadlines {
    Deadlines {
        move_ms: 10_000,
        crypto_ms: 10_000,
        bank_ms: 0,
        relay_ms: 2_000,
        return_ms: 0,
    }
}

fn honest_violations<G: Game>(h: &Harness<G>) -> Vec<Violation> {
    let mut v: Vec<Violation> = h.spectator.violations.clone();
    for s in &h.seats {
        v.extend(s.violations.clone());
    }
    v
}

#[test]
fn a_high_card_table_plays_to_the_end_and_everyone_agrees() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game, 1, quick());
    h.run(5);
    assert!(h.spectator.is_finished());
    h.agree();
    assert!(
        honest_violations(&h).is_empty(),
        "{:?}",
        honest_violations(&h)
    );
    assert!(matches!(
        h.spectator.verdicts().last(),
        Some(Verdict::Finished { .. })
    ));
    assert!(h.spectator.unconfirmed().is_empty());
    assert_eq!(h.spectator.game().round, 3);
    // Any delivery order gives the same table.
    let mut rng = StdRng::seed_from_u64(5);
    let mut shuffled = h.log.clone();
    shuffled.shuffle(&mut rng);
    let late = h.replay_in(&shuffled);
    assert_eq!(late.verdicts(), h.spectator.verdicts());
    assert_eq!(late.game(), h.spectator.game());
    let mut backwards = h.log.clone();
    backwards.reverse();
    assert_eq!(h.replay_in(&backwards).game(), h.spectator.game());
}

#[test]
fn the_spectator_never_learns_a_folded_or_private_card() {
    let game = HighCard::new(&high_card::Setup::new(4)).unwrap();
    let mut h = Harness::new(game, 2, quick());
    h.run(5);
    let spectator = h.spectator.game();
    for s in &h.seats {
        for (seat, held) in &s.game().hands {
            if !held.shown {
                assert_eq!(spectator.hands.get(seat).and_then(|x| x.card), None);
            }
        }
    }
    // Each seat knows its own last card; the spectator knows only what was shown.
    let known = spectator
        .hands
        .values()
        .filter(|x| x.card.is_some())
        .count();
    let shown = spectator.hands.values().filter(|x| x.shown).count();
    assert_eq!(known, shown);
}

#[test]
fn tolerance_perudo_and_mia_tables_play_to_the_end() {
    use crate::games::{mia, perudo, tolerance};
    let t = tolerance::Tolerance::new(tolerance::Variant::default(), 3, Some(2)).unwrap();
    let mut h = Harness::new(t, 3, quick());
    h.run_honestly(10);
    let table = &h.spectator.game().table;
    assert_eq!(table.total_chips() + table.chips_out, table.chips_in);
    // Two hands, unless random bets left one player with every chip after the first.
    let played = h.spectator.game().history.len();
    assert!(
        played == 2 || table.is_over(),
        "{played} hands: {:?}",
        h.spectator.verdicts()
    );
    assert!(h
        .spectator
        .game()
        .history
        .iter()
        .all(|x| x.forfeits.is_empty()));

    plays_through_in_any_order(perudo::Perudo::new(&perudo::Setup::standard(3)).unwrap(), 4);
    plays_through_in_any_order(
        mia::Mia::new(&mia::Setup::standard(3, mia::game::Ranking::Traditional)).unwrap(),
        5,
    );
}

#[test]
fn a_resumed_seat_signs_nothing_new() {
    let game = HighCard::new(&high_card::Setup::new(2)).unwrap();
    let mut h = Harness::new(game.clone(), 6, quick());
    h.settle();
    // Seat 1 restarts from its master secret and the log: what it owes now, it has signed.
    let mut again = Session::new(h.cfg.clone(), game, Some((1, master(1, 6)))).unwrap();
    for ev in &h.log {
        again.handle(ev);
    }
    assert!(
        again.take_outbox().is_empty(),
        "a restart must not sign a step twice"
    );
    assert_eq!(again.position(), h.seats[1].position());
}

#[test]
fn strangers_events_are_ignored_and_never_stored() {
    let game = HighCard::new(&high_card::Setup::new(2)).unwrap();
    let mut h = Harness::new(game, 7, quick());
    h.settle();
    let held_before: usize = h.seats[0].log.contributions.values().map(Vec::len).sum();
    let stranger = Keys::generate();
    let p = h.seats[0].payload(Body::End {});
    for _ in 0..50 {
        let ev = log_event(&h.host, &p).sign_with_keys(&stranger).unwrap();
        h.seats[0].handle(&ev);
    }
    assert_eq!(h.seats[0].stats().ignored, 50);
    assert!(h.seats[0].violations.is_empty());
    let held: usize = h.seats[0].log.contributions.values().map(Vec::len).sum();
    assert_eq!(held, held_before, "only seated keys' events are stored");
}

// ---- misbehaving seats (PROTOCOL.md §7) ------------------------------------------------------

impl<G: Game + 'static> Harness<G> {
    /// Lets every seat act except that no seat decides a move: the table stops at a decision.
    fn settle_to_decision(&mut self) -> (u32, String) {
        self.settle_deciding(false);
        self.spectator.position()
    }

    /// Seat `seat`'s decision now, signed at `at` but not published.
    fn decide(&mut self, seat: usize, at: u64) -> Event {
        let turn = self.seats[seat].my_turn().expect("the seat's turn");
        let a = self.bots[seat].choose(&turn.view, &turn.legal);
        self.seats[seat].submit(&a).unwrap();
        let p = self.seats[seat].take_outbox().pop().unwrap();
        self.sign(seat, &p, at)
    }

    fn vote_event(
        &self,
        voter: usize,
        step: u32,
        prev: &str,
        missing: Vec<Seat>,
        at: u64,
    ) -> Event {
        let p = Payload {
            v: crate::wire::VERSION,
            table: hex::encode(self.cfg.table),
            step,
            prev: prev.to_string(),
            ahead: None,
            body: Body::Vote { missing },
        };
        self.sign(voter, &p, at)
    }

    fn timeout_head(&self, step: u32, seats: &[Seat], label: &[u8]) -> String {
        synthetic_head(&[
            label,
            hex::encode(self.cfg.table).as_bytes(),
            &step.to_be_bytes(),
            seats,
        ])
    }
}

fn removals(v: &[Verdict]) -> Vec<Verdict> {
    v.iter()
        .filter(|x| matches!(x, Verdict::Removed { .. } | Verdict::TimedOut { .. }))
        .cloned()
        .collect()
}

#[test]
fn one_seat_voting_everyone_out_removes_nobody_and_is_named() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game, 11, quick());
    let (step, head) = h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0] as usize;
    // An honest move; a millisecond later a third seat votes everyone else out, once at once
    // and once dated at the deadline of the next step.
    let mv = h.decide(mover, h.now);
    h.publish(mv);
    h.settle_to_decision();
    let (next, next_head) = h.spectator.position();
    assert!(next > step);
    let next_mover = h.spectator.awaiting().seats[0] as usize;
    let attacker = (0..3).find(|s| *s != mover && *s != next_mover).unwrap();
    let others: Vec<Seat> = (0..3).filter(|s| *s != attacker as Seat).collect();
    let early = h.vote_event(attacker, next, &next_head, others.clone(), h.now);
    let dated = h.vote_event(attacker, next, &next_head, others.clone(), h.now + 1_000);
    let old = h.vote_event(attacker, step, &head, others.clone(), h.now + 1_000);
    h.publish(early.clone());
    h.publish(dated);
    h.publish(old);
    h.run(6);
    h.agree();
    assert!(
        removals(h.spectator.verdicts()).is_empty(),
        "{:?}",
        h.spectator.verdicts()
    );
    let named = h
        .spectator
        .violations
        .iter()
        .find(|v| matches!(v, Violation::Invalid { id, .. } if *id == early.id.to_hex()))
        .expect("the early vote is reported");
    assert_eq!(named.culprit(), attacker as Seat);
    assert!(
        named.to_string().contains("before the step's deadline"),
        "{named}"
    );
}

#[test]
fn heads_up_a_premature_timeout_does_not_beat_the_move_in_the_log() {
    let game = HighCard::new(&high_card::Setup::new(2)).unwrap();
    let mut h = Harness::new(game, 12, quick());
    let (step, head) = h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0] as usize;
    let attacker = 1 - mover;
    let secs = h.spectator.step_secs();
    let t_open = h.spectator.deadline() - secs;
    // The attacker dates a vote at the deadline and, on the timeout's branch, a second one
    // voting the mover out of acknowledging it: both reach everyone before the honest move.
    let t_head = h.timeout_head(step, &[mover as Seat], b"timeout");
    let v1 = h.vote_event(attacker, step, &head, vec![mover as Seat], t_open + secs);
    let v2 = h.vote_event(
        attacker,
        step + 1,
        &t_head,
        vec![mover as Seat],
        t_open + 4 * secs,
    );
    h.publish(v1);
    h.publish(v2);
    let mv = h.decide(mover, h.now);
    h.publish(mv);
    h.run(8);
    h.agree();
    assert!(
        removals(h.spectator.verdicts()).is_empty(),
        "{:?}",
        h.spectator.verdicts()
    );
    assert!(h.spectator.is_finished());
}

#[test]
fn a_vote_after_the_game_ended_changes_nothing() {
    let game = HighCard::new(&high_card::Setup::new(2)).unwrap();
    let mut h = Harness::new(game, 13, quick());
    h.run(5);
    let before = h.spectator.verdicts().to_vec();
    let end_game = h.spectator.game().clone();
    // Seat 0 votes seat 1 out at every step of the table, dated long after, and builds on
    // each timeout head.
    let steps = h.spectator.position().0;
    let heads: Vec<(u32, String)> = h.payloads().map(|(_, p)| (p.step, p.prev)).collect();
    for (s, prev) in heads.into_iter().filter(|(s, _)| *s < steps) {
        let v = h.vote_event(0, s, &prev, vec![1], h.now + 10_000);
        h.publish(v);
        for label in [b"timeout".as_slice(), b"forfeit".as_slice()] {
            let t = h.timeout_head(s, &[1], label);
            let v = h.vote_event(0, s + 1, &t, vec![1], h.now + 20_000);
            h.publish(v);
        }
    }
    h.settle();
    assert_eq!(h.spectator.verdicts(), before.as_slice());
    assert_eq!(h.spectator.game(), &end_game);
    let late = h.replay_in(&h.log.clone());
    assert_eq!(late.verdicts(), before.as_slice());
}

#[test]
fn a_dead_seat_is_removed_by_everyone_else_and_the_game_goes_on() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game, 14, quick());
    h.modes[2] = Mode::Dead;
    h.run(12);
    h.agree();
    let v = h.spectator.verdicts();
    assert!(
        matches!(&v[0], Verdict::Removed { seats, reason: ForfeitReason::Withheld, .. } if seats == &[2]),
        "{v:?}"
    );
    assert!(h.spectator.is_finished());
    assert_eq!(h.spectator.game().active, vec![0, 1]);
}

#[test]
fn a_seat_that_stops_at_its_move_is_timed_out_then_removed() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game, 15, quick());
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    h.modes[mover as usize] = Mode::Dead;
    h.run(12);
    h.agree();
    let r = removals(h.spectator.verdicts());
    assert!(
        matches!(&r[..], [Verdict::TimedOut { seats: a, .. }, Verdict::Removed { seats: b, reason: ForfeitReason::Absent, .. }] if a == &[mover] && b == &[mover]),
        "{r:?}"
    );
}

#[test]
fn a_slow_seat_that_acknowledges_keeps_its_seat() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game, 16, quick());
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    // It misses its move but its client is alive: it sees the timeout and confirms.
    h.modes[mover as usize] = Mode::Dead;
    h.tick(h.spectator.step_secs() + relay_secs(&h.cfg.deadlines) + 1);
    assert!(matches!(
        h.spectator.verdicts().last(),
        Some(Verdict::TimedOut { .. })
    ));
    h.modes[mover as usize] = Mode::Honest;
    h.run(12);
    h.agree();
    let r = removals(h.spectator.verdicts());
    assert_eq!(r.len(), 1, "timed out once, never removed: {r:?}");
}

#[test]
fn a_late_move_beats_the_votes_until_everyone_else_built_on_the_timeout() {
    // Crossing: the late move arrives after one of the two votes.
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game.clone(), 17, quick());
    let (step, head) = h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    let (a, b) = ((mover + 1) % 3, (mover + 2) % 3);
    let late_at = h.spectator.deadline() + 5;
    let v = h.vote_event(a as usize, step, &head, vec![mover], late_at);
    h.publish(v);
    let mv = h.decide(mover as usize, late_at);
    h.publish(mv);
    h.now = late_at;
    h.run(12);
    h.agree();
    assert!(
        removals(h.spectator.verdicts()).is_empty(),
        "{:?}",
        h.spectator.verdicts()
    );

    // Both others voted and then voted the mover out of acknowledging: the timeout is final and
    // a late move, arriving after, is void.
    let mut h = Harness::new(game, 17, quick());
    let (step, head) = h.settle_to_decision();
    let t_head = h.timeout_head(step, &[mover], b"timeout");
    let secs = h.spectator.step_secs();
    let late_at = h.spectator.deadline() + 5;
    for voter in [a, b] {
        let v = h.vote_event(voter as usize, step, &head, vec![mover], late_at);
        h.publish(v);
        let v = h.vote_event(
            voter as usize,
            step + 1,
            &t_head,
            vec![mover],
            late_at + secs + 5,
        );
        h.publish(v);
    }
    let mv = h.decide(mover as usize, late_at);
    h.now = late_at + 2 * secs + 10;
    h.settle_to_decision();
    h.publish(mv);
    h.modes[mover as usize] = Mode::Dead;
    h.run(12);
    h.agree();
    let r = removals(h.spectator.verdicts());
    assert!(
        matches!(
            &r[..2],
            [
                Verdict::TimedOut { .. },
                Verdict::Removed {
                    reason: ForfeitReason::Absent,
                    ..
                }
            ]
        ),
        "{r:?}"
    );
}

#[test]
fn a_fork_removes_its_signer_unless_everyone_else_had_built_past_it() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    // Both moves reach everyone at once: no barrier, the signer is removed.
    let mut h = Harness::new(game.clone(), 18, quick());
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0] as usize;
    let turn = h.seats[mover].my_turn().unwrap();
    let (step, head) = h.spectator.position();
    let mk = |a: high_card::Action| Payload {
        v: crate::wire::VERSION,
        table: hex::encode(h.cfg.table),
        step,
        prev: head.clone(),
        ahead: None,
        body: Body::Move {
            action: serde_json::to_value(a).unwrap(),
            tokens: Vec::new(),
        },
    };
    let (pa, pb) = (mk(turn.legal[0]), mk(turn.legal[1]));
    let (ea, eb) = (h.sign(mover, &pa, h.now), h.sign(mover, &pb, h.now));
    h.seats[mover].handle(&ea);
    h.publish(ea.clone());
    h.publish(eb.clone());
    h.run(12);
    h.agree();
    assert!(
        h.spectator.verdicts().iter().any(|v| matches!(v, Verdict::Removed { seats, reason: ForfeitReason::Equivocated, .. } if seats == &[mover as Seat])),
        "{:?}",
        h.spectator.verdicts()
    );
    assert!(h
        .spectator
        .violations
        .iter()
        .any(|v| matches!(v, Violation::Fork { seat, .. } if *seat == mover as Seat)));

    // The second move arrives only after every other seat completed a later step on the first:
    // it is recorded, and changes nothing.
    let mut h = Harness::new(game, 18, quick());
    h.settle_to_decision();
    h.seats[mover].handle(&ea);
    h.publish(ea);
    h.run(12);
    let before = h.spectator.game().clone();
    h.publish(eb);
    h.settle();
    h.agree();
    assert_eq!(h.spectator.game(), &before);
    // Recorded as the seat's violation; no verdict changes.
    assert!(h
        .spectator
        .violations
        .iter()
        .any(|v| matches!(v, Violation::Fork { seat, .. } if *seat == mover as Seat)));
    assert!(removals(h.spectator.verdicts()).is_empty());
}

// ---- cards shown to a set of seats, and a deck drawn from another ----------------------------

/// A game of chance only: deck 0 deals position 0 to seats 0 and 1 together and position 1 to
/// seat 2, then shows position 0 to everyone; deck 1 is four known cards (the shown one and
/// three more) shuffled again, whose first card goes to seat 2 and is then shown.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct SetDeals {
    stage: u8,
    /// (deck, position) → card, as this client knows it.
    known: std::collections::BTreeMap<String, crate::cards::CardId>,
    shown: Option<crate::cards::CardId>,
    /// Positions opened to everyone.
    public: std::collections::BTreeSet<String>,
    forfeited: bool,
}

impl SetDeals {
    fn know(&mut self, deck: u32, position: u16, card: Option<crate::cards::CardId>) {
        if let Some(c) = card {
            self.known.insert(format!("{deck}/{position}"), c);
        }
    }
    fn subset(&self) -> crate::cards::DeckSpec {
        use crate::cards::{CardId, DeckSpec};
        let shown = self.shown.expect("shown");
        let mut cards = vec![shown];
        cards.extend((0..52).map(CardId).filter(|c| *c != shown).take(3));
        DeckSpec::Subset {
            base: Box::new(DeckSpec::standard(1)),
            cards,
        }
    }
}

impl Game for SetDeals {
    type Action = u8;
    type View = SetDeals;
    const NAME: &'static str = "set-deals";

    fn to_act(&self) -> crate::engine::ToAct {
        use crate::engine::{ChanceRequest as R, ToAct};
        let std1 = crate::cards::DeckSpec::standard(1);
        if self.forfeited {
            return ToAct::Terminal;
        }
        ToAct::Chance(match self.stage {
            0 => vec![
                R::Shuffle {
                    deck: 0,
                    spec: std1,
                },
                R::Deal {
                    deck: 0,
                    position: 0,
                    to: vec![0, 1],
                },
                R::deal(0, 1, 2),
            ],
            1 => vec![R::Reveal {
                deck: 0,
                position: 0,
            }],
            2 => vec![
                R::Shuffle {
                    deck: 1,
                    spec: self.subset(),
                },
                R::deal(1, 0, 2),
            ],
            3 => vec![R::Reveal {
                deck: 1,
                position: 0,
            }],
            _ => return ToAct::Terminal,
        })
    }
    fn legal_actions(&self, _: Seat) -> Vec<u8> {
        Vec::new()
    }
    fn apply(&mut self, seat: Seat, _: &u8) -> Result<(), crate::engine::RuleError> {
        Err(crate::engine::RuleError::OutOfTurn {
            seat,
            expected: "chance".into(),
        })
    }
    fn apply_chance(
        &mut self,
        outcomes: &[crate::engine::ChanceOutcome],
    ) -> Result<(), crate::engine::RuleError> {
        use crate::engine::ChanceOutcome as O;
        for o in outcomes {
            match o {
                O::Dealt {
                    deck,
                    position,
                    card,
                } => self.know(*deck, *position, *card),
                O::Revealed {
                    deck,
                    position,
                    card,
                } => {
                    self.know(*deck, *position, Some(*card));
                    self.public.insert(format!("{deck}/{position}"));
                    if *deck == 0 {
                        self.shown = Some(*card);
                    }
                }
                _ => {}
            }
        }
        self.stage += 1;
        Ok(())
    }
    fn view(&self, viewer: Option<Seat>) -> SetDeals {
        let mut v = self.clone();
        if viewer.is_none() {
            v.known.retain(|k, _| self.public.contains(k));
        }
        v
    }
    fn timeout_action(&self, _: Seat) -> Option<u8> {
        None
    }
    fn outcome(&self) -> Option<crate::engine::Outcome> {
        self.is_terminal().then(|| crate::engine::Outcome {
            payoffs: vec![(0, 0), (1, 0), (2, 0)],
            winners: vec![],
        })
    }
    fn seats(&self) -> Vec<Seat> {
        vec![0, 1, 2]
    }
    fn forfeit(&mut self, _: &[Seat], _: ForfeitReason) -> Result<(), crate::engine::RuleError> {
        self.forfeited = true;
        Ok(())
    }
}

#[test]
fn a_card_shown_to_two_seats_stays_hidden_from_the_third_and_a_sub_deck_keeps_its_cards() {
    let game = SetDeals {
        stage: 0,
        known: Default::default(),
        shown: None,
        public: Default::default(),
        forfeited: false,
    };
    let mut h = Harness::new(game, 21, quick());
    // Stop after the first deal: compare what each client knows.
    h.settle();
    h.run_honestly(4);
    let first = h.spectator.game().shown.expect("position 0 was shown");
    for s in 0..2 {
        assert_eq!(
            h.seats[s].game().known.get("0/0"),
            Some(&first),
            "seat {s} saw it dealt"
        );
    }
    // Seat 2 learnt position 0 only when shown, and position 1 of deck 0 is its own.
    assert!(h.seats[2].game().known.contains_key("0/1"));
    assert!(!h.seats[0].game().known.contains_key("0/1"));
    assert!(!h.spectator.game().known.contains_key("0/1"));
    // The sub-deck's card is one of its four, under its base id.
    let again = h.spectator.game().known["1/0"];
    assert!(h.spectator.game().subset().cards().contains(&again));
}

#[test]
fn before_the_showing_only_the_two_recipients_know_the_card() {
    let game = SetDeals {
        stage: 0,
        known: Default::default(),
        shown: None,
        public: Default::default(),
        forfeited: false,
    };
    let mut h = Harness::new(game.clone(), 22, quick());
    h.run(4);
    // Replay the log only up to the step that carried the sealed tokens (the deal).
    let deal_step = h
        .payloads()
        .find(|(_, p)| matches!(&p.body, Body::Reveal { sealed, .. } if !sealed.is_empty()))
        .expect("sealed tokens were sent")
        .1
        .step;
    let upto: Vec<Event> = h
        .payloads()
        .filter(|(_, p)| p.step <= deal_step)
        .map(|(e, _)| e.clone())
        .collect();
    let knows = |seat: Option<Seat>| {
        let me = seat.map(|s| (s, master(s as usize, 22)));
        let mut c = Session::new(h.cfg.clone(), game.clone(), me).unwrap();
        for e in &upto {
            c.handle(e);
        }
        assert_eq!(c.game().stage, 1, "the deal is complete");
        c.game().known.get("0/0").copied()
    };
    let card = knows(Some(0));
    assert!(card.is_some());
    assert_eq!(knows(Some(1)), card);
    assert_eq!(
        knows(Some(2)),
        None,
        "seat 2 must not learn a card shown to seats 0 and 1"
    );
    assert_eq!(knows(None), None);
}

/// High Card whose moves have no default: a seat that misses its move is removed at once
/// instead of being timed out (PROTOCOL.md §7.5).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct NoDefault(HighCard);

impl Game for NoDefault {
    type Action = high_card::Action;
    type View = high_card::HighCardView;
    const NAME: &'static str = "no-default";

    fn to_act(&self) -> crate::engine::ToAct {
        self.0.to_act()
    }
    fn legal_actions(&self, seat: Seat) -> Vec<Self::Action> {
        self.0.legal_actions(seat)
    }
    fn apply(&mut self, seat: Seat, a: &Self::Action) -> Result<(), crate::engine::RuleError> {
        self.0.apply(seat, a)
    }
    fn apply_chance(
        &mut self,
        outcomes: &[crate::engine::ChanceOutcome],
    ) -> Result<(), crate::engine::RuleError> {
        self.0.apply_chance(outcomes)
    }
    fn view(&self, viewer: Option<Seat>) -> Self::View {
        self.0.view(viewer)
    }
    fn timeout_action(&self, _: Seat) -> Option<Self::Action> {
        None
    }
    fn outcome(&self) -> Option<crate::engine::Outcome> {
        self.0.outcome()
    }
    fn seats(&self) -> Vec<Seat> {
        self.0.seats()
    }
    fn participants(&self) -> Vec<Seat> {
        self.0.participants()
    }
    fn forfeit(
        &mut self,
        offenders: &[Seat],
        reason: ForfeitReason,
    ) -> Result<(), crate::engine::RuleError> {
        self.0.forfeit(offenders, reason)
    }
}

#[test]
fn a_removal_for_a_missed_move_is_final_once_everyone_else_built_on_it() {
    // The chain goes on from the removal head when the game has no timeout move; a late move
    // must be judged against that head, or the removed seat could come back at any time.
    let game = NoDefault(HighCard::new(&high_card::Setup::new(3)).unwrap());
    let mut h = Harness::new(game, 19, quick());
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    let late = h.decide(mover as usize, h.spectator.deadline() + 1);
    h.modes[mover as usize] = Mode::Dead;
    h.run(12);
    h.agree();
    let before = h.spectator.verdicts().to_vec();
    assert!(
        matches!(&removals(&before)[..], [Verdict::Removed { seats, reason: ForfeitReason::Withheld, .. }, ..] if seats == &[mover]),
        "{before:?}"
    );
    // The removed seat's move, dated after the deadline, arrives once the others moved on.
    h.publish(late);
    h.run(12);
    h.agree();
    assert_eq!(
        h.spectator.verdicts(),
        before.as_slice(),
        "the removal stands"
    );
}

#[test]
fn a_move_may_run_into_its_seat_s_time_bank_and_what_it_uses_is_gone() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let banked = Deadlines {
        bank_ms: 30_000,
        ..quick()
    };
    let mut h = Harness::new(game, 31, banked);
    let (step, head) = h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    let others: Vec<usize> = (0..3).filter(|s| *s != mover as usize).collect();
    assert_eq!(
        h.spectator.step_secs(),
        10 + 30,
        "a move's allowance and the whole bank"
    );
    let base = h.spectator.deadline() - 30;
    // Past the base allowance but inside the bank, votes are early: refused and named.
    for v in &others {
        let ev = h.vote_event(*v, step, &head, vec![mover], base + 5);
        h.publish(ev);
    }
    h.settle_to_decision();
    assert_eq!(h.spectator.position().0, step, "no timeout inside the bank");
    assert!(removals(h.spectator.verdicts()).is_empty());
    assert_eq!(
        h.spectator
            .violations
            .iter()
            .filter(|v| v.to_string().contains("before the step's deadline"))
            .count(),
        2,
        "{:?}",
        h.spectator.violations
    );
    // The move 20 s past the base allowance stands, and spends 20 s of the bank.
    let mv = h.decide(mover as usize, base + 20);
    h.publish(mv);
    h.now = base + 20;
    h.settle_to_decision();
    assert!(h.spectator.position().0 > step);
    for s in h.seats.iter().chain(std::iter::once(&h.spectator)) {
        assert_eq!(s.bank_left(mover), 10);
        assert!(
            s.banks_spent().is_empty(),
            "a bank partly used is not spent"
        );
        for o in &others {
            assert_eq!(s.bank_left(*o as Seat), 30);
        }
    }
    // Whatever the order the log arrives in, the bank left is the same.
    let mut backwards = h.log.clone();
    backwards.reverse();
    assert_eq!(h.replay_in(&backwards).bank_left(mover), 10);
    h.run(20);
    h.agree();
    assert!(removals(h.spectator.verdicts()).is_empty());
}

#[test]
fn a_timed_out_move_spends_the_whole_bank() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let banked = Deadlines {
        bank_ms: 30_000,
        ..quick()
    };
    let mut h = Harness::new(game, 32, banked);
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    h.modes[mover as usize] = Mode::Dead;
    h.tick(h.spectator.step_secs() + relay_secs(&h.cfg.deadlines) + 1);
    assert!(matches!(
        h.spectator.verdicts().last(),
        Some(Verdict::TimedOut { .. })
    ));
    assert_eq!(h.spectator.bank_left(mover), 0);
    // Told to everyone from the log alone: the seat's moves have only the base allowance now.
    assert_eq!(h.spectator.banks_spent(), vec![mover]);
    assert_eq!(
        h.spectator.move_secs(),
        h.cfg.deadlines.move_ms.div_ceil(1000).max(1)
    );
    h.modes[mover as usize] = Mode::Honest;
    h.run(20);
    h.agree();
}

// ---- leaving (PROTOCOL.md §7.8) -------------------------------------------------------------

impl<G: Game + 'static> Harness<G> {
    /// Seat `seat` signs its leave now and its client stops.
    fn leave(&mut self, seat: usize) {
        assert!(self.seats[seat].leave());
        assert!(!self.seats[seat].leave(), "one leave per seat");
        for p in self.seats[seat].take_outbox() {
            let ev = self.sign(seat, &p, self.now);
            self.seats[seat].handle(&ev);
            self.publish(ev);
        }
        self.modes[seat] = Mode::Dead;
    }
}

fn left(v: &[Verdict]) -> Vec<Seat> {
    v.iter()
        .filter_map(|v| match v {
            Verdict::Removed {
                seats,
                reason: ForfeitReason::Left,
                ..
            } => Some(seats.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn a_seat_that_leaves_at_its_move_is_removed_at_once_and_the_table_goes_on() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game, 41, quick());
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    h.leave(mover as usize);
    // No clock moves: nobody waits for a deadline or votes.
    h.settle();
    assert_eq!(h.now, START);
    assert!(h.log.iter().all(|e| !e.content.contains("\"vote\"")));
    assert_eq!(left(h.spectator.verdicts()), vec![mover]);
    assert!(h.spectator.is_finished(), "{:?}", h.spectator.awaiting());
    h.agree();
    assert!(!h.spectator.game().active.contains(&mover));
    // The same table whatever order the log arrives in.
    h.agrees_backwards();
}

#[test]
fn a_seat_that_leaves_between_its_turns_is_removed_when_the_table_reaches_it() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game, 42, quick());
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    let leaver = (mover + 1) % 3;
    h.leave(leaver as usize);
    h.settle();
    assert_eq!(h.now, START);
    assert_eq!(left(h.spectator.verdicts()), vec![leaver]);
    assert!(h.spectator.is_finished());
    h.agree();
    // The leaver's client offers it nothing more.
    assert!(h.seats[leaver as usize].my_turn().is_none());
}

#[test]
fn heads_up_a_leave_ends_the_table_at_once() {
    let game = HighCard::new(&high_card::Setup::new(2)).unwrap();
    let mut h = Harness::new(game, 43, quick());
    h.settle_to_decision();
    h.leave(1);
    h.settle();
    assert_eq!(h.now, START);
    assert_eq!(left(h.spectator.verdicts()), vec![1]);
    assert!(h.spectator.is_finished());
    assert_eq!(h.spectator.game().outcome().unwrap().winners, vec![0]);
    h.agree();
}

#[test]
fn a_leave_dated_back_to_an_early_step_rewrites_nothing() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game, 44, quick());
    h.run(5);
    let before = (h.spectator.verdicts().to_vec(), h.spectator.game().clone());
    assert!(removals(&before.0).is_empty());
    // After the end, a seat signs a leave naming step 1: its own events at every step it
    // owed stand, so the table it played is the table.
    let p = Payload {
        v: crate::wire::VERSION,
        table: hex::encode(h.cfg.table),
        step: 1,
        prev: hex::encode(h.cfg.table),
        ahead: None,
        body: Body::Leave {},
    };
    let ev = h.sign(2, &p, h.now);
    h.publish(ev);
    h.settle();
    assert_eq!(h.spectator.verdicts(), &before.0[..]);
    assert_eq!(h.spectator.game(), &before.1);
    let late = h.replay_in(&h.log.clone());
    assert_eq!(late.verdicts(), &before.0[..]);
}

#[test]
fn with_one_seat_gone_for_good_a_second_silent_seat_can_be_voted_out() {
    // Two seats stop at once: without the leave neither could be removed (§7.7); the one
    // that signed it no longer votes, so the other is voted out by everyone left.
    let game = HighCard::new(&high_card::Setup::new(4)).unwrap();
    let mut h = Harness::new(game, 45, quick());
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    let leaver = (mover + 1) % 4;
    h.leave(leaver as usize);
    h.modes[mover as usize] = Mode::Dead;
    h.run(20);
    h.agree();
    assert!(h.spectator.is_finished());
    let r = removals(h.spectator.verdicts());
    assert!(
        r.iter().any(|v| matches!(v, Verdict::Removed { seats, reason: ForfeitReason::Absent, .. } if seats == &[mover])),
        "{r:?}"
    );
    assert!(left(h.spectator.verdicts()).contains(&leaver));
}

impl<G: Game + 'static> Harness<G> {
    /// Seat `seat`'s client comes back (a `resume`): it signs that it is back and plays again.
    fn come_back(&mut self, seat: usize) {
        self.deliver(seat);
        assert!(self.seats[seat].come_back());
        assert!(!self.seats[seat].come_back(), "one return at a time");
        for p in self.seats[seat].take_outbox() {
            let ev = self.sign(seat, &p, self.now);
            self.seats[seat].handle(&ev);
            self.publish(ev);
        }
        self.modes[seat] = Mode::Honest;
    }
}

fn dealt(t: &crate::games::tolerance::Tolerance) -> Vec<Vec<Seat>> {
    t.history.iter().map(|h| h.players.clone()).collect()
}

#[test]
fn a_tolerance_seat_that_leaves_sits_out_with_its_chips_and_is_dealt_in_again_after_coming_back() {
    use crate::games::tolerance::{Tolerance, Variant};
    let t = Tolerance::new(Variant::default(), 3, Some(8)).unwrap();
    let mut h = Harness::new(t, 51, quick());
    h.settle_to_decision();
    let leaver = h.spectator.awaiting().seats[0];
    h.leave(leaver as usize);
    // The hand is forfeited at once and the next one dealt without it: no clock moves, as the
    // table does not wait for anyone.
    h.settle_to_decision();
    assert_eq!(h.now, START);
    let v = h.spectator.verdicts().to_vec();
    assert!(
        v.iter().any(|x| matches!(x, Verdict::Removed { seats, reason: ForfeitReason::Left, sitting_out: true, .. } if seats == &[leaver])),
        "{v:?}"
    );
    assert_eq!(h.spectator.sitting_out(), vec![leaver]);
    let g = h.spectator.game();
    assert!(
        g.table.stacks[leaver as usize].is_some_and(|c| c > 0),
        "it keeps its chips"
    );
    let hands_out = g.history.len();
    assert_eq!(hands_out, 1, "{:?}", dealt(g));
    let playing = g.hand.as_ref().unwrap().seats();
    assert!(!playing.contains(&leaver), "{playing:?}");
    assert!(h.seats[leaver as usize].my_turn().is_none());

    // It comes back: every participant's next setup names it, and it is dealt in after.
    h.come_back(leaver as usize);
    h.run(40);
    h.agree();
    let g = h.spectator.game();
    assert!(
        h.spectator
            .verdicts()
            .iter()
            .any(|x| matches!(x, Verdict::Back { seats, .. } if seats == &[leaver])),
        "{:?}",
        h.spectator.verdicts()
    );
    assert!(
        dealt(g)[hands_out..].iter().any(|p| p.contains(&leaver)),
        "{:?}",
        dealt(g)
    );
    assert!(h.spectator.sitting_out().is_empty());
    assert_eq!(g.table.total_chips() + g.table.chips_out, g.table.chips_in);
    assert!(
        honest_violations(&h).is_empty(),
        "{:?}",
        honest_violations(&h)
    );
    // The same table whatever order the log arrives in.
    h.agrees_backwards();
}

#[test]
fn a_dead_tolerance_seat_sits_out_after_one_missed_step_and_is_not_waited_for_again() {
    use crate::games::tolerance::{Tolerance, Variant};
    let t = Tolerance::new(Variant::default(), 3, Some(4)).unwrap();
    let mut h = Harness::new(t, 52, quick());
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0];
    h.modes[mover as usize] = Mode::Dead;
    h.run(40);
    h.agree();
    let v = h.spectator.verdicts().to_vec();
    let against: Vec<&Verdict> = v
        .iter()
        .filter(|x| match x {
            Verdict::TimedOut { seats, .. } | Verdict::Removed { seats, .. } => {
                seats.contains(&mover)
            }
            _ => false,
        })
        .collect();
    // Timed out once at its move, then gone after the acknowledgement it never made: sitting
    // out, the table never waits for it again.
    assert!(
        matches!(
            &against[..],
            [
                Verdict::TimedOut { .. },
                Verdict::Removed {
                    sitting_out: true,
                    ..
                }
            ]
        ),
        "{v:?}"
    );
    let g = h.spectator.game();
    assert_eq!(g.history.len(), 4, "{:?}", dealt(g));
    assert!(dealt(g)[1..].iter().all(|p| !p.contains(&mover)));
    assert!(g.table.stacks[mover as usize].is_some());
    // It keeps its chips but does not win.
    assert!(!g.outcome().unwrap().winners.contains(&mover));
    // Gone for real, it signed nothing for the step it lost: its client does not ask back.
    assert!(!h.seats[mover as usize].out_though_present());
    // Its client, restarted on the whole log, reaches the same end.
    let back = h.restarted(mover as usize, 52, &h.log);
    assert!(back.is_finished(), "{:?}", back.awaiting());
    assert_eq!(back.verdicts(), h.spectator.verdicts());
}

/// Issue 27's throttling relay: a seat signs its reveals in time, its relays hold them past the
/// others' votes, and the table goes on without it. It was there all along: once its events are
/// through, its client asks to be dealt in again by itself and plays from the next hand.
#[test]
fn a_seat_whose_relays_held_its_reveal_past_the_votes_is_dealt_in_again_from_the_next_hand() {
    use crate::games::tolerance::{Tolerance, Variant};
    let t = Tolerance::new(Variant::default(), 3, Some(5)).unwrap();
    let mut h = Harness::new(t, 54, quick());
    h.settle_to_decision();
    h.hold[1] = Some(|p: &Payload| matches!(p.body, Body::Reveal { .. }));
    let out = |h: &Harness<Tolerance>| {
        h.spectator.verdicts().iter().any(
            |v| matches!(v, Verdict::Removed { seats, sitting_out: true, .. } if seats == &[1]),
        )
    };
    // The table stops at each decision, so it does not play to its end before the release.
    for _ in 0..40 {
        if out(&h) {
            break;
        }
        if h.spectator.my_turn().is_none() && h.seats.iter().all(|s| s.my_turn().is_none()) {
            h.now += 23;
            for i in 0..3 {
                h.seats[i].vote(h.now);
            }
        }
        h.settle_deciding(false);
        for i in 0..3 {
            if let Some(turn) = h.seats[i].my_turn() {
                let a = h.bots[i].choose(&turn.view, &turn.legal);
                h.seats[i].submit(&a).unwrap();
            }
        }
    }
    assert!(out(&h), "{:?}", h.spectator.verdicts());
    assert!(!h.held.is_empty(), "the reveals were signed, and held back");
    // The relays let its events through at last.
    h.hold[1] = None;
    for ev in std::mem::take(&mut h.held) {
        h.publish(ev);
    }
    h.settle_deciding(false);
    assert!(
        h.seats[1].out_though_present(),
        "{:?}",
        h.seats[1].verdicts()
    );
    assert!(!h.seats[0].out_though_present() && !h.seats[2].out_though_present());
    h.come_back(1);
    h.run(60);
    h.agree();
    let v = h.spectator.verdicts();
    assert!(
        v.iter()
            .any(|x| matches!(x, Verdict::Back { seats, .. } if seats == &[1])),
        "{v:?}"
    );
    assert!(!h.seats[1].out_though_present());
    let back = h.restarted(1, 54, &h.log);
    assert_eq!(back.verdicts(), v);
}

#[test]
fn heads_up_a_tolerance_leave_ends_the_table_and_the_leaver_keeps_its_chips() {
    use crate::games::tolerance::{Tolerance, Variant};
    let t = Tolerance::new(Variant::default(), 2, Some(5)).unwrap();
    let mut h = Harness::new(t, 53, quick());
    h.settle_to_decision();
    h.leave(1);
    h.settle();
    assert_eq!(h.now, START);
    assert!(h.spectator.is_finished());
    h.agree();
    let g = h.spectator.game();
    let out = g.outcome().unwrap();
    assert_eq!(out.winners, vec![0]);
    let start = Variant::default().starting_stack as i64;
    let kept = g.table.stacks[1].unwrap() as i64;
    assert!(out.payoffs.contains(&(1, kept - start)), "{out:?}");
    assert!(kept > 0);
}

/// Heads-up with a return allowance (version 5): a crashed seat's hand is forfeited and it sits
/// out; with one seat dealt in, the table waits for it instead of ending, until `tick` says.
fn heads_up_crash(seed: u64) -> (Harness<crate::games::tolerance::Tolerance>, Seat) {
    use crate::games::tolerance::{Tolerance, Variant};
    let t = Tolerance::new(Variant::default(), 2, Some(6)).unwrap();
    let waits = Deadlines {
        return_ms: 60_000,
        ..quick()
    };
    let mut h = Harness::new(t, seed, waits);
    h.settle_to_decision();
    let gone = h.spectator.awaiting().seats[0];
    h.modes[gone as usize] = Mode::Dead;
    for _ in 0..20 {
        if h.spectator.awaiting().what == "return" {
            break;
        }
        h.tick(13);
    }
    let a = h.spectator.awaiting();
    assert_eq!(
        (a.what, a.seats.clone()),
        ("return", vec![gone]),
        "{:?}",
        h.spectator.verdicts()
    );
    assert!(!h.spectator.is_finished());
    assert!(
        h.spectator.verdicts().iter().any(
            |v| matches!(v, Verdict::Removed { seats, sitting_out: true, .. } if seats == &[gone])
        ),
        "{:?}",
        h.spectator.verdicts()
    );
    (h, gone)
}

#[test]
fn heads_up_a_crashed_tolerance_seat_is_waited_for_and_dealt_in_again_when_it_comes_back() {
    let (mut h, gone) = heads_up_crash(61);
    let hands_out = h.spectator.game().history.len();
    // Its `resume`: it signs that it is back, and its client answers the step that waits for it.
    h.come_back(gone as usize);
    h.run(60);
    h.agree();
    let v = h.spectator.verdicts();
    assert!(
        v.iter()
            .any(|x| matches!(x, Verdict::Back { seats, .. } if seats == &[gone])),
        "{v:?}"
    );
    assert!(
        !v.iter().any(|x| matches!(x, Verdict::NotBack { .. })),
        "{v:?}"
    );
    let g = h.spectator.game();
    assert!(
        dealt(g)[hands_out..].iter().any(|p| p.contains(&gone)),
        "dealt in again: {:?}",
        dealt(g)
    );
    // Played on to its end: the hands limit, or a player out of chips.
    assert!(
        g.table.hands_played == 6 || g.table.stacks.iter().any(|c| *c == Some(0) || c.is_none()),
        "{:?}",
        g.table.stacks
    );
    assert_eq!(g.table.total_chips() + g.table.chips_out, g.table.chips_in);
    assert!(
        honest_violations(&h).is_empty(),
        "{:?}",
        honest_violations(&h)
    );
    // The same table whatever order the log arrives in, and for the returned seat restarted.
    h.agrees_backwards();
    let again = h.restarted(gone as usize, 61, &h.log);
    assert_eq!(again.verdicts(), h.spectator.verdicts());
}

#[test]
fn heads_up_a_seat_that_does_not_come_back_within_the_return_allowance_ends_the_table() {
    let (mut h, gone) = heads_up_crash(62);
    let waiting_since = h.now;
    h.run(60);
    h.agree();
    let v = h.spectator.verdicts().to_vec();
    assert!(
        v.iter()
            .any(|x| matches!(x, Verdict::NotBack { seats, .. } if seats == &[gone])),
        "{v:?}"
    );
    // Not before the return allowance and the relay allowance passed (votes count from then).
    assert!(
        h.now >= waiting_since + 60 + 2,
        "{} {}",
        h.now,
        waiting_since
    );
    let g = h.spectator.game();
    let out = g.outcome().unwrap();
    let stayed = 1 - gone;
    assert_eq!(out.winners, vec![stayed]);
    assert!(
        g.table.stacks[gone as usize].is_some_and(|c| c > 0),
        "it keeps its chips"
    );
    // A late `resume` changes nothing: the table is over.
    assert!(!h.seats[gone as usize].come_back());
    let mut backwards = h.log.clone();
    backwards.reverse();
    let late = h.replay_in(&backwards);
    assert_eq!(late.verdicts(), h.spectator.verdicts());
}

#[test]
fn a_seat_that_signed_a_setup_nobody_received_resumes_into_the_table_the_others_played() {
    use crate::games::tolerance::{Tolerance, Variant};
    let t = Tolerance::new(Variant::default(), 3, Some(3)).unwrap();
    let mut h = Harness::new(t, 54, quick());
    // Seat 1 signs its setup for step 0, records it, and dies before any relay takes it.
    let kept: Vec<Event> = h.seats[1]
        .take_outbox()
        .iter()
        .map(|p| h.sign(1, p, h.now))
        .collect();
    assert_eq!(kept.len(), 1);
    h.modes[1] = Mode::Dead;
    h.run(40);
    h.agree();
    assert!(h.spectator.is_finished());
    // Restarted, it holds its own setup as well as everything the relays kept.
    let back = h.restarted(1, 54, kept.iter().chain(&h.log));
    assert!(back.is_finished(), "{:?}", back.awaiting());
    assert_eq!(back.verdicts(), h.spectator.verdicts());
    // And in any order.
    let late = h.restarted(1, 54, h.log.iter().chain(&kept));
    assert!(late.is_finished(), "{:?}", late.awaiting());
    assert_eq!(late.verdicts(), h.spectator.verdicts());
}

// ---- spare decks (PROTOCOL.md §5.9) ---------------------------------------------------------

/// Game deck ids (spares left out) that some `shuffle` event on the log shuffles.
fn shuffled_on_log<G: Game + 'static>(h: &Harness<G>) -> BTreeSet<u32> {
    h.payloads()
        .filter_map(|(_, p)| match p.body {
            Body::Shuffle { decks, .. } => Some(decks),
            _ => None,
        })
        .flatten()
        .map(|d| d.deck)
        .filter(|d| *d < crate::table::chance::SPARE_BASE)
        .collect()
}

/// Game decks keyed by a setup on the log: the deck of the shuffle step right after a setup
/// with key shares.
fn keyed_on_log<G: Game + 'static>(h: &Harness<G>) -> BTreeSet<u32> {
    let payloads: Vec<Payload> = h.payloads().map(|(_, p)| p).collect();
    let setups: BTreeSet<u32> = payloads
        .iter()
        .filter(|p| matches!(&p.body, Body::Setup { shares, .. } if !shares.is_empty()))
        .map(|p| p.step)
        .collect();
    payloads
        .iter()
        .filter(|p| p.step > 0 && setups.contains(&(p.step - 1)))
        .filter_map(|p| match &p.body {
            Body::Shuffle { decks, .. } => Some(decks.iter().map(|d| d.deck)),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn a_tolerance_hand_after_one_with_the_same_players_is_dealt_from_the_deck_prepared_during_it() {
    use crate::games::tolerance::game::DEALT_AHEAD;
    use crate::games::tolerance::{Tolerance, Variant};
    let (mut served_total, mut changed_total, mut whole_total) = (0, 0, 0);
    for seed in 60..64 {
        let t = Tolerance::new(Variant::default(), 3, Some(5)).unwrap();
        let mut h = Harness::new(t, seed, quick());
        h.run_honestly(60);
        let g = h.spectator.game();
        assert_eq!(g.table.total_chips() + g.table.chips_out, g.table.chips_in);
        // Hand i deals deck i. The rule: a hand whose players are those of the hand before it
        // is dealt from the deck prepared during that hand, with no setup; if the hand before
        // ended before every player shuffled it, the shuffles it lacks are on the log (by the
        // players that had not made theirs). Any other hand keys and shuffles its own deck.
        let shuffled = shuffled_on_log(&h);
        let keyed = keyed_on_log(&h);
        let mut served = 0;
        for (i, hand) in g.history.iter().enumerate() {
            let players = hand.players.clone();
            let prepared = i > 0 && players == g.history[i - 1].players;
            if i > 0 && !prepared {
                changed_total += 1;
            }
            let what = format!(
                "seed {seed} hand {i} ({players:?}), keyed {keyed:?}, shuffled {shuffled:?}, {:?}",
                dealt(g)
            );
            // From version 11 a hand dealt with the showdown before it has its own deck id.
            let ids = [i as u32, DEALT_AHEAD | i as u32];
            let of_hand = |set: &BTreeSet<u32>| ids.iter().any(|d| set.contains(d));
            assert_eq!(of_hand(&keyed), !prepared, "{what}");
            if prepared {
                served += 1;
                if !of_hand(&shuffled) {
                    whole_total += 1;
                }
            } else {
                assert!(of_hand(&shuffled), "{what}");
            }
        }
        assert_eq!(h.spectator.stats().chance.spares_used, served);
        for s in &h.seats {
            assert_eq!(s.stats().chance.spares_used, served);
        }
        served_total += served;
        // The same table whatever order the log arrives in.
        let late = h.agrees_backwards();
        assert_eq!(late.stats().chance.spares_used, served);
    }
    // Both sides of the rule were exercised, and hands dealt straight from a deck shuffled
    // during the hand before.
    assert!(
        served_total > 0 && changed_total > 0 && whole_total > 0,
        "{served_total} {changed_total} {whole_total}"
    );
}

/// Steps and the keys that published there, by deck.
type TokenSteps = BTreeMap<u32, BTreeMap<u32, BTreeSet<PublicKey>>>;

/// For each deck, the steps at which its tokens were published and by whom, from the log's
/// reveal events.
fn token_steps<G: Game + 'static>(h: &Harness<G>) -> TokenSteps {
    let mut by_deck = TokenSteps::new();
    for (e, p) in h.payloads() {
        if let Body::Reveal { tokens, .. } = &p.body {
            for t in tokens {
                by_deck
                    .entry(t.deck)
                    .or_default()
                    .entry(p.step)
                    .or_default()
                    .insert(e.pubkey);
            }
        }
    }
    by_deck
}

/// From version 11 a Tolerance showdown nobody can bust at deals the next hand in its own
/// pass: every player's reveal event at that step carries its showdown tokens (if it is still
/// in) and its tokens for the others' next cards, and the step right after it is the next
/// hand's first decision. A version 10 table deals every hand in a pass of its own. Every
/// client, and a replay in reverse order, agree.
#[test]
fn a_tolerance_hand_after_a_showdown_nobody_can_bust_at_is_dealt_in_the_showdown_s_pass() {
    use crate::bots::BotLevel;
    use crate::games::registry::TableGame;
    use crate::games::tolerance::game::DEALT_AHEAD;
    use crate::games::tolerance::{Tolerance, Variant};
    let mut dealt_with_showdown = 0;
    let tables = (70..78).map(|s| (s, 11)).chain([(70, 10), (71, 10)]);
    for (seed, version) in tables {
        let t = Tolerance::new(Variant::default(), 3, Some(8))
            .unwrap()
            .dealing_with_showdown(version >= 11);
        let mut h = Harness::at_version(t, seed, quick(), version);
        // The game's own bots: random ones go all-in or fold so often that few showdowns
        // leave nobody all-in.
        h.bots = (0..3)
            .map(|i| Tolerance::bot(BotLevel::Normal, StdRng::seed_from_u64(seed * 10 + i)))
            .collect();
        h.run(100);
        h.agree();
        assert!(h.spectator.is_finished());
        assert!(
            honest_violations(&h).is_empty(),
            "{:?}",
            honest_violations(&h)
        );
        let bodies: BTreeMap<u32, &'static str> =
            h.payloads().map(|(_, p)| (p.step, p.body.name())).collect();
        let tokens = token_steps(&h);
        let of = |deck: u32| tokens.get(&deck).cloned().unwrap_or_default();
        let g = h.spectator.game();
        for i in 1..g.history.len() {
            let ahead = of(DEALT_AHEAD | i as u32);
            if version < 11 {
                assert!(
                    ahead.is_empty(),
                    "seed {seed}: no deck is dealt ahead at version 10"
                );
                continue;
            }
            let Some((step, who)) = ahead.first_key_value() else {
                continue;
            };
            dealt_with_showdown += 1;
            let before = g.history[i - 1].hand as u32;
            let showdown = of(before)
                .into_iter()
                .chain(of(DEALT_AHEAD | before))
                .collect::<BTreeMap<_, _>>();
            let what = format!("seed {seed}, hand {i}: {ahead:?} {showdown:?} {bodies:?}");
            assert!(
                showdown.contains_key(step),
                "dealt in the showdown's step: {what}"
            );
            assert_eq!(
                who.len(),
                g.history[i].players.len(),
                "every player dealt: {what}"
            );
            assert_eq!(g.history[i].players, g.history[i - 1].players, "{what}");
            assert_eq!(
                bodies.get(&(step + 1)),
                Some(&"move"),
                "the next step is a decision: {what}"
            );
        }
        h.agrees_backwards();
    }
    assert!(dealt_with_showdown >= 4, "{dealt_with_showdown}");
}

/// A seat that withholds its event of a showdown that deals the next hand (its relays never
/// pass it): everyone else votes it out as at any step, the hand is settled by the forfeit rule,
/// the next deck dies with the seat's key share and is never opened, and the next hand keys a
/// deck of its own under the hand's own number. Every client and a reversed replay agree.
#[test]
fn a_seat_withholding_a_showdown_that_deals_forfeits_the_hand_and_the_next_deck_dies() {
    use crate::bots::BotLevel;
    use crate::games::registry::TableGame;
    use crate::games::tolerance::game::{is_dealt_ahead, DEALT_AHEAD};
    use crate::games::tolerance::{Tolerance, Variant};
    let mut tried = 0;
    for seed in 80..90 {
        let t = Tolerance::new(Variant::default(), 3, Some(6)).unwrap();
        let mut h = Harness::new(t, seed, quick());
        h.bots = (0..3)
            .map(|i| Tolerance::bot(BotLevel::Normal, StdRng::seed_from_u64(seed * 10 + i)))
            .collect();
        // Seat 1's relays never pass its reveal of a showdown that deals the next hand.
        h.hold[1] = Some(|p: &Payload| {
            matches!(&p.body, Body::Reveal { tokens, .. }
                if tokens.iter().any(|t| is_dealt_ahead(t.deck)))
        });
        h.run(200);
        if h.held.is_empty() {
            continue;
        }
        tried += 1;
        h.agree();
        let g = h.spectator.game();
        let (k, hand) = g
            .history
            .iter()
            .enumerate()
            .find(|(_, x)| {
                x.forfeits
                    .contains(&(1, crate::engine::ForfeitReason::Withheld))
            })
            .expect("seat 1 forfeited the hand whose showdown it withheld");
        let dead = DEALT_AHEAD | (hand.hand + 1) as u32;
        let steps = token_steps(&h).remove(&dead).unwrap_or_default();
        assert_eq!(
            steps.len(),
            1,
            "seed {seed}: deck {dead} is never opened again: {steps:?}"
        );
        if let Some(next) = g.history.get(k + 1) {
            assert!(
                !next.players.contains(&1),
                "seed {seed}: seat 1 sits the next hand out"
            );
            assert!(
                keyed_on_log(&h).contains(&(next.hand as u32)),
                "seed {seed}: the next hand keys a deck under its own number"
            );
        }
        h.agrees_backwards();
        if tried == 2 {
            break;
        }
    }
    assert_eq!(tried, 2, "two tables reached a showdown that deals");
}

/// Own shuffles on the log, by seat: the batch decks a seat's shuffle events carry and the
/// shuffles of the deck prepared ahead riding on its events.
fn own_shuffles_on_log<G: Game + 'static>(h: &Harness<G>) -> Vec<u64> {
    let mut n = vec![0; h.seats.len()];
    for (e, p) in h.payloads() {
        let Some(seat) = h.keys.iter().position(|k| k.public_key() == e.pubkey) else {
            continue;
        };
        if let Body::Shuffle { decks, .. } = &p.body {
            n[seat] += decks.len() as u64;
        }
        if matches!(p.ahead, Some(crate::wire::log::Ahead::Shuffle { .. })) {
            n[seat] += 1;
        }
    }
    n
}

#[test]
fn shuffles_made_ahead_on_decks_still_being_checked_are_the_ones_published_and_change_no_event() {
    use crate::games::tolerance::{Tolerance, Variant};
    for seed in 60..62 {
        let t = Tolerance::new(Variant::default(), 3, Some(5)).unwrap();
        let mut plain = Harness::new(t.clone(), seed, quick());
        plain.run(60);
        let mut ahead = Harness::new(t, seed, quick());
        ahead.speculate = true;
        ahead.run(60);
        ahead.agree();
        assert!(
            honest_violations(&ahead).is_empty(),
            "{:?}",
            honest_violations(&ahead)
        );
        // Shuffles are a function of their input, so the table is the same event for event.
        let ids = |h: &Harness<Tolerance>| h.log.iter().map(|e| e.id).collect::<Vec<_>>();
        assert_eq!(ids(&plain), ids(&ahead), "seed {seed}");
        let published = own_shuffles_on_log(&ahead);
        let mut made_ahead = 0;
        for (i, (p, a)) in plain.seats.iter().zip(&ahead.seats).enumerate() {
            // Every shuffle made once, whether ahead or not, and none made for nothing.
            assert_eq!(
                p.own_shuffles_made(),
                (published[i], 0),
                "seed {seed} seat {i}"
            );
            assert_eq!(
                a.own_shuffles_made().0,
                published[i],
                "seed {seed} seat {i}"
            );
            made_ahead += a.own_shuffles_made().1;
        }
        // Most shuffles follow another seat's event that makes them due, so they were made
        // ahead; a seat's first shuffle of a hand dealt from nothing may follow a setup.
        let total: u64 = published.iter().sum();
        assert!(
            made_ahead * 2 > total,
            "seed {seed}: {made_ahead} of {total} made ahead"
        );
    }
}

/// `game` at a table of protocol `version` plays to its end with no honest seat blamed, every
/// client agrees, and the log in reverse order gives the same game.
fn played_through<G: Game + 'static>(game: G, seed: u64, version: u8) -> Harness<G> {
    let mut h = Harness::at_version(game, seed, quick(), version);
    h.run_honestly(60);
    assert!(h.spectator.game().outcome().is_some());
    let mut backwards = h.log.clone();
    backwards.reverse();
    assert_eq!(h.replay_in(&backwards).game(), h.spectator.game());
    h
}

fn plays_through_in_any_order<G: Game + 'static>(game: G, seed: u64) {
    played_through(game, seed, crate::wire::VERSION);
}

#[test]
fn card_games_whose_participants_change_play_through() {
    use crate::games::abandon_ship::{self, AbandonShip};
    use crate::games::lamarckian_poker::{self, LamarckianPoker};
    plays_through_in_any_order(
        LamarckianPoker::new(&lamarckian_poker::Setup::new(3)).unwrap(),
        71,
    );
    plays_through_in_any_order(AbandonShip::new(&abandon_ship::Setup::new(3)).unwrap(), 72);
}

#[test]
fn all_fives_and_abandon_ship_deal_each_hand_from_the_deck_prepared_during_the_one_before_from_version_9(
) {
    use crate::games::abandon_ship::{self, AbandonShip};
    use crate::games::all_fives::{self, AllFives};
    /// Hands served by a prepared deck; and no event carries a part of one at version 8, and
    /// none is over the relays' size limit (a 104-card shuffle of the hand's deck and one of the
    /// next may share an event).
    fn served<G: Game + 'static>(game: G, seed: u64, version: u8) -> u64 {
        let h = played_through(game, seed, version);
        let table = hex::encode(h.cfg.table);
        for e in &h.log {
            assert!(e.as_json().len() <= crate::wire::MAX_EVENT_BYTES);
            let p = parse_log(e, &table).unwrap();
            assert!(version >= 9 || p.ahead.is_none(), "version {version}");
        }
        h.spectator.stats().chance.spares_used
    }
    let mut fives = all_fives::Setup::new(3);
    fives.hands = Some(3);
    let fives = AllFives::new(&fives).unwrap();
    let mut ship = abandon_ship::Setup::new(3);
    ship.rounds = Some(3);
    let ship = AbandonShip::new(&ship).unwrap();
    // Version 8 keys every hand's deck in a setup of its own; version 9 serves each later hand
    // from the deck its players shuffled during the hand before.
    assert_eq!(served(fives.clone(), 73, 8), 0);
    assert_eq!(served(fives, 73, 9), 2, "the two later hands of three");
    assert_eq!(served(ship.clone(), 74, 8), 0);
    assert_eq!(served(ship, 74, 9), 2, "the two later rounds of three");
    // Six players play with two packs: 104 cards, prepared ahead within the card budget.
    let mut six = abandon_ship::Setup::new(6);
    six.rounds = Some(2);
    assert_eq!(served(AbandonShip::new(&six).unwrap(), 75, 9), 1);
}

#[test]
fn a_log_event_below_the_announced_proof_of_work_is_rejected_in_words() {
    let game = HighCard::new(&high_card::Setup::new(2)).unwrap();
    let h = Harness::new(game.clone(), 11, quick());
    let mut cfg = h.cfg.clone();
    cfg.pow = 6;
    let mut client = Session::new(cfg, game, None).unwrap();
    let p = h.seats[0].payload(Body::End {});
    // Signed without work: 1 chance in 64 that its id has six zero bits anyway.
    let mut plain = h.sign(0, &p, START);
    let mut at = START;
    while plain.id.check_pow(6) {
        at += 1;
        plain = h.sign(0, &p, at);
    }
    let violations = client.handle(&plain);
    let text = violations
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("; ");
    assert!(
        text.contains("the table announced 6 (NIP-13)") && text.contains("seat"),
        "{text}"
    );
    // The same payload mined to the table's difficulty is taken in.
    let mined = log_event(&h.host, &p)
        .custom_created_at(Timestamp::from(START))
        .pow(6)
        .sign_with_keys(&h.keys[0])
        .unwrap();
    assert!(mined.id.check_pow(6));
    let after = client.handle(&mined);
    assert!(
        after
            .iter()
            .all(|v| !v.to_string().contains("proof of work")),
        "{after:?}"
    );
}

#[test]
fn shuffles_made_apart_as_jobs_are_the_ones_published_and_none_is_proved_by_the_seat() {
    use crate::games::tolerance::{Tolerance, Variant};
    let seed = 64;
    let t = Tolerance::new(Variant::default(), 3, Some(5)).unwrap();
    let mut plain = Harness::new(t.clone(), seed, quick());
    plain.run(60);
    let mut apart = Harness::new(t, seed, quick());
    apart.apart = true;
    apart.run(60);
    apart.agree();
    assert!(
        honest_violations(&apart).is_empty(),
        "{:?}",
        honest_violations(&apart)
    );
    let ids = |h: &Harness<Tolerance>| h.log.iter().map(|e| e.id).collect::<Vec<_>>();
    assert_eq!(ids(&plain), ids(&apart));
    let published = own_shuffles_on_log(&apart);
    for (i, s) in apart.seats.iter_mut().enumerate() {
        assert!(published[i] > 0, "seat {i} shuffled");
        assert!(
            s.shuffle_jobs().is_empty(),
            "nothing left to make at the end"
        );
        assert_eq!(s.own_shuffles_made(), (0, 0), "seat {i}");
        assert_eq!(s.own_shuffles_taken(), published[i], "seat {i}");
    }
}
