//! The dice session against an in-memory double of the relays: every seat's session, bots for
//! the moves, and a delivery function that decides who receives which event when.

use super::*;
use crate::bots::dice::PerudoBot;
use crate::bots::Bot;
use crate::games::perudo::{Perudo, Setup};
use crate::table::dice_chance::SLOTS;
use nostr_sdk::prelude::{EventBuilder, Keys, Kind, Tag};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const TABLE: [u8; 32] = [9; 32];

struct Table {
    keys: Vec<Keys>,
    seats: Vec<DiceSession<Perudo>>,
    bots: Vec<PerudoBot<StdRng>>,
    /// Every event signed so far, in signing order.
    log: Vec<Event>,
    /// Events signed but not yet delivered to a seat (by seat).
    pending: Vec<Vec<Event>>,
    /// A seat whose player does not choose moves (it still reveals its dice).
    silent: Option<usize>,
}

fn sign(keys: &Keys, body: DiceBody) -> Event {
    let content = serde_json::to_string(&DiceEvent {
        v: 1,
        game: "perudo".into(),
        table: hex::encode(TABLE),
        body,
    })
    .unwrap();
    EventBuilder::new(Kind::from(KIND_DICE_LOG), content)
        .tags([Tag::hashtag(hex::encode(TABLE))])
        .sign_with_keys(keys)
        .unwrap()
}

impl Table {
    fn new(n: u16, refuse: Option<u16>) -> Table {
        let keys: Vec<Keys> = (0..n).map(|_| Keys::generate()).collect();
        let pubs: Vec<PublicKey> = keys.iter().map(|k| k.public_key()).collect();
        let game = Perudo::new(&Setup::standard(n as u8)).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let seats = (0..n)
            .map(|i| {
                let ctx = DiceClient::context(TABLE, GAME, i, pubs[i as usize].to_bytes());
                let secret = DiceSecret::generate(&mut rng, &ctx, SLOTS).unwrap();
                DiceSession::new(
                    TABLE,
                    pubs.clone(),
                    game.clone(),
                    Some((i, secret)),
                    refuse == Some(i),
                )
                .unwrap()
            })
            .collect();
        Table {
            keys,
            seats,
            bots: (0..n)
                .map(|i| PerudoBot::new(StdRng::seed_from_u64(u64::from(i))))
                .collect(),
            log: Vec::new(),
            pending: vec![Vec::new(); n as usize],
            silent: None,
        }
    }

    fn spectator(&self) -> DiceSession<Perudo> {
        let pubs = self.keys.iter().map(|k| k.public_key()).collect();
        DiceSession::new(TABLE, pubs, self.seats[0].initial.clone(), None, false).unwrap()
    }

    /// Signs what seat `i` owes (and a move if it is to act); `keep` decides, per body, whether
    /// it is signed at all (a seat that withholds).
    fn act(&mut self, i: usize, keep: &mut dyn FnMut(usize, &DiceBody) -> bool) -> bool {
        let mut acted = false;
        if let Some((view, legal)) = self.seats[i].my_turn().filter(|_| self.silent != Some(i)) {
            let a = self.bots[i].choose(&view, &legal);
            self.seats[i].submit(&a).unwrap();
        }
        for body in self.seats[i].take_outbox() {
            if !keep(i, &body) {
                continue;
            }
            let ev = sign(&self.keys[i], body);
            self.broadcast(ev);
            acted = true;
        }
        acted
    }

    fn broadcast(&mut self, ev: Event) {
        self.log.push(ev.clone());
        for p in self.pending.iter_mut() {
            p.push(ev.clone());
        }
    }

    fn deliver_all(&mut self) {
        for (i, p) in self.pending.iter_mut().enumerate() {
            for ev in p.drain(..) {
                self.seats[i].handle(&ev);
            }
        }
    }

    /// Runs until nobody has anything to send.
    fn settle(&mut self, keep: &mut dyn FnMut(usize, &DiceBody) -> bool) {
        loop {
            let mut acted = false;
            for i in 0..self.seats.len() {
                acted |= self.act(i, keep);
            }
            self.deliver_all();
            if !acted {
                return;
            }
        }
    }

    /// Every seat whose deadline passed votes (the double's clock is this call).
    fn deadline_passes(&mut self) {
        for i in 0..self.seats.len() {
            if self.seats[i].vote() {
                self.act(i, &mut |_, _| true);
            }
        }
        self.deliver_all();
    }
}

/// A 3-seat table where seat 1 is to move and has not moved yet.
fn seat_1_to_move() -> Table {
    let mut t = Table::new(3, None);
    t.silent = Some(1);
    t.settle(&mut |_, _| true);
    t.silent = None;
    assert_eq!(t.seats[0].awaiting(), DiceAwait::Move(1));
    t
}

fn forfeit(seat: u16, step: u32, reason: &str) -> DiceEnd {
    DiceEnd::Forfeit {
        seats: vec![seat],
        step,
        reason: reason.into(),
    }
}

fn finished() -> DiceEnd {
    DiceEnd::Finished {
        unconfirmed: vec![],
    }
}

fn replay(t: &Table, events: impl Iterator<Item = Event>) -> DiceSession<Perudo> {
    let mut s = t.spectator();
    for ev in events {
        s.handle(&ev);
    }
    s
}

/// Every seat, a spectator fed the log in order and one fed it backwards end the same way.
fn agreed(t: &Table) -> DiceEnd {
    let end = t.seats[0].end().cloned().unwrap_or_else(|| {
        panic!(
            "seat 0 did not finish: at {:?} awaiting {:?}; violations {:?}",
            t.seats[0].position(),
            t.seats[0].awaiting(),
            t.seats[0].violations
        )
    });
    let forward = replay(t, t.log.iter().cloned());
    let backward = replay(t, t.log.iter().rev().cloned());
    for (who, s) in t
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("seat {i}"), s))
        .chain([
            ("forward".to_string(), &forward),
            ("backward".to_string(), &backward),
        ])
    {
        assert_eq!(s.end(), Some(&end), "{who}");
        assert_eq!(s.game().view(None), t.seats[0].game().view(None), "{who}");
    }
    end
}

#[test]
fn an_honest_game_ends_the_same_for_everyone_in_any_order() {
    let mut t = Table::new(3, None);
    t.settle(&mut |_, _| true);
    assert_eq!(agreed(&t), finished());
    assert!(t.seats[0].game().outcome().is_some());
    assert!(t.seats.iter().all(|s| s.violations.is_empty()));
}

#[test]
fn a_cup_owner_who_does_not_open_forfeits_once_everyone_else_voted() {
    let mut t = Table::new(3, Some(1));
    t.settle(&mut |_, _| true);
    let (step, _) = t.seats[0].position();
    assert_eq!(
        t.seats[0].awaiting(),
        DiceAwait::Reveals {
            batch: t.seats[0].batches(),
            seats: vec![1]
        }
    );
    // One vote is not a quorum: seat 2 has not voted yet.
    t.seats[0].vote();
    t.act(0, &mut |_, _| true);
    t.deliver_all();
    assert!(!t.seats[0].is_finished());
    // Seat 2's deadline passes too (before seat 0's second one would).
    assert!(t.seats[2].vote());
    t.act(2, &mut |_, _| true);
    t.deliver_all();
    assert_eq!(
        agreed(&t),
        forfeit(1, step, "withheld a step past the deadline")
    );
}

#[test]
fn a_seat_that_misses_its_move_gets_the_timeout_move_and_the_game_goes_on() {
    let mut t = Table::new(3, None);
    // Seat 2 never moves on its own; it still reveals, so the game can go on.
    t.silent = Some(2);
    let mut timeouts = 0;
    for _ in 0..2000 {
        t.settle(&mut |_, _| true);
        if t.seats[0].is_finished() {
            break;
        }
        assert_eq!(t.seats[0].awaiting(), DiceAwait::Move(2));
        t.deadline_passes();
        timeouts += 1;
    }
    assert!(timeouts > 0);
    assert_eq!(agreed(&t), finished());
}

#[test]
fn a_forked_move_ends_the_table_naming_the_seat_with_both_events_as_evidence() {
    let mut t = seat_1_to_move();
    let (step, head) = t.seats[0].position();
    let legal = t.seats[1].my_turn().unwrap().1;
    let n = t.seats[1].moves();
    let mv = |a: &crate::games::perudo::Action| DiceBody::Move {
        step,
        n,
        prev: head.clone(),
        action: serde_json::to_value(a).unwrap(),
    };
    let (a, b) = (
        sign(&t.keys[1], mv(&legal[0])),
        sign(&t.keys[1], mv(&legal[1])),
    );
    // Seat 0 sees the first and moves on; seat 2 sees both at once.
    t.seats[0].handle(&a);
    t.act(0, &mut |_, _| true);
    t.log.push(a.clone());
    t.log.push(b.clone());
    t.pending[2].extend([a.clone(), b.clone()]);
    t.pending[1].extend([a.clone(), b.clone()]);
    t.pending[0].push(b.clone());
    t.deliver_all();
    t.settle(&mut |_, _| true);
    assert_eq!(
        agreed(&t),
        forfeit(1, step, "signed two different events for one step")
    );
    assert!(t.seats[0]
        .violations
        .iter()
        .any(|v| matches!(v, Violation::Fork { seat: 1, .. })));
    // The evidence carries both events, and alone convinces a newcomer of the fork.
    let evidence = t
        .log
        .iter()
        .find(|e| {
            matches!(
                serde_json::from_str::<DiceEvent>(&e.content).unwrap().body,
                DiceBody::Evidence { .. }
            )
        })
        .expect("evidence published")
        .clone();
    let DiceBody::Evidence {
        offender, events, ..
    } = serde_json::from_str::<DiceEvent>(&evidence.content)
        .unwrap()
        .body
    else {
        unreachable!()
    };
    assert_eq!(offender, 1);
    let ids: BTreeSet<String> = events
        .iter()
        .map(|j| Event::from_json(j).unwrap().id.to_hex())
        .collect();
    assert_eq!(ids, [a.id.to_hex(), b.id.to_hex()].into_iter().collect());
    let mut newcomer = t.spectator();
    newcomer.handle(&evidence);
    assert!(newcomer
        .violations
        .iter()
        .any(|v| matches!(v, Violation::Fork { seat: 1, .. })));
}

#[test]
fn a_fork_after_the_game_ended_and_was_confirmed_changes_nothing() {
    let mut t = Table::new(3, None);
    t.settle(&mut |_, _| true);
    let before = agreed(&t);
    // A loser signs another commitment afterwards: the end confirmations pinned the game.
    let ctx = DiceClient::context(TABLE, GAME, 2, t.keys[2].public_key().to_bytes());
    let other = DiceSecret::generate(&mut ChaCha20Rng::seed_from_u64(99), &ctx, SLOTS).unwrap();
    let late = sign(
        &t.keys[2],
        DiceBody::Commit {
            commitment: to_base64(&other.commitment().to_bytes()),
        },
    );
    t.broadcast(late);
    t.settle(&mut |_, _| true);
    assert_eq!(agreed(&t), before);
    assert!(t.seats[0].violations.iter().any(|v| matches!(
        v,
        Violation::Fork {
            seat: 2,
            step: 0,
            ..
        }
    )));
}

/// PROTOCOL.md §7.7: a seat that voted and then receives the late move waits; once a seat that
/// did not vote builds on the late move, the quorum can never complete and it applies it.
#[test]
fn a_late_move_and_a_vote_cross_and_everyone_follows_the_late_move() {
    let mut t = seat_1_to_move();
    let (step, _) = t.seats[0].position();
    // Seat 0's deadline passed: it votes seat 1 missing; seat 2 has not voted.
    assert!(t.seats[0].vote());
    t.act(0, &mut |_, _| true);
    // Seat 1 moves late; seat 0 gets its move only after its own vote.
    t.act(1, &mut |_, _| true);
    t.deliver_all();
    assert_eq!(
        t.seats[0].position().0,
        step,
        "seat 0 holds the late move back"
    );
    assert!(
        t.seats[2].position().0 > step,
        "seat 2 never voted and applied it"
    );
    t.settle(&mut |_, _| true);
    assert_eq!(agreed(&t), finished());
}

/// The other way round: the quorum completes, and a client that had applied the late move
/// (here a spectator) goes back and applies the timeout instead.
#[test]
fn a_completed_quorum_voids_a_late_move_that_a_spectator_had_applied() {
    let mut t = seat_1_to_move();
    let (step, _) = t.seats[0].position();
    let mut watcher = replay(&t, t.log.clone().into_iter());
    let moves_before = watcher.moves();
    // The late move is signed but only the spectator sees it before the votes.
    let (view, legal) = t.seats[1].my_turn().unwrap();
    let a = t.bots[1].choose(&view, &legal);
    t.seats[1].submit(&a).unwrap();
    let late = t.seats[1].take_outbox().pop().unwrap();
    let late = sign(&t.keys[1], late);
    watcher.handle(&late);
    assert_eq!(watcher.moves(), moves_before + 1);
    for i in [0, 2] {
        assert!(t.seats[i].vote());
        t.act(i, &mut |_, _| true);
    }
    t.log.push(late.clone());
    for p in t.pending.iter_mut() {
        p.push(late.clone());
    }
    t.deliver_all();
    for ev in t.log.iter().filter(|e| e.id != late.id) {
        watcher.handle(ev);
    }
    // Every client took the timeout at that step; the late move is void.
    assert!(t.seats.iter().all(|s| s.position().0 > step));
    assert_eq!(watcher.position(), t.seats[0].position());
    t.settle(&mut |_, _| true);
    assert_eq!(agreed(&t), finished());
}

/// PROTOCOL.md §2.2 at the session: a seat restarted with its secret and its journal (every event
/// it handled, its own signed ones included — even one no relay delivered) is where it was and
/// owes nothing it already signed.
#[test]
fn a_restarted_seat_replaying_its_journal_signs_no_step_again() {
    let mut t = Table::new(3, None);
    // Stop when seat 0 is to move, then let it sign its move without anyone receiving it.
    t.silent = Some(0);
    t.settle(&mut |_, _| true);
    t.silent = None;
    let (view, legal) = t.seats[0].my_turn().expect("seat 0 to move");
    let a = t.bots[0].choose(&view, &legal);
    t.seats[0].submit(&a).unwrap();
    let bodies = t.seats[0].take_outbox();
    assert_eq!(bodies.len(), 1);
    let signed = sign(&t.keys[0], bodies[0].clone());
    // The crash: the journal holds everything seat 0 handled plus its signed move.
    let mut journal = t.log.clone();
    journal.push(signed.clone());
    let ctx = DiceClient::context(TABLE, GAME, 0, t.keys[0].public_key().to_bytes());
    let secret = DiceSecret::generate(&mut ChaCha20Rng::seed_from_u64(7), &ctx, SLOTS).unwrap();
    let pubs = t.keys.iter().map(|k| k.public_key()).collect();
    let mut again = DiceSession::new(
        TABLE,
        pubs,
        t.seats[0].initial.clone(),
        Some((0, secret)),
        false,
    )
    .unwrap();
    for ev in &journal {
        again.handle(ev);
    }
    assert!(again.my_turn().is_none(), "the move is signed already");
    assert!(again.take_outbox().is_empty(), "nothing to sign again");
    assert!(again.violations.is_empty(), "{:?}", again.violations);
    // Republishing the recorded move lets the table go on, with no fork anywhere.
    t.seats[0] = again;
    t.broadcast(signed);
    t.deliver_all();
    t.settle(&mut |_, _| true);
    assert_eq!(agreed(&t), finished());
    assert!(t.seats.iter().all(|s| s.violations.is_empty()));
}
