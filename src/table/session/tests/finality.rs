//! One verdict whatever arrives late (PROTOCOL.md §7.4, §8): a seated attacker that signs
//! validly cannot change a finished table, and a late event changes nothing once the others
//! built past it. Each test plays a table, then adds what an attacker or a slow relay adds,
//! and checks every client and a fresh replay in several orders against the result before.

use super::*;

/// The spectator's verdicts and game, and the same from a fresh replay of the whole log in
/// order, reversed, and shuffled: all must equal `verdicts` and `game`.
fn replays_agree<G: Game + 'static>(h: &Harness<G>, verdicts: &[Verdict], game: &G) {
    assert_eq!(h.spectator.verdicts(), verdicts, "the spectator's verdicts");
    assert_eq!(h.spectator.game(), game, "the spectator's game");
    let mut orders = vec![h.log.clone()];
    let mut backwards = h.log.clone();
    backwards.reverse();
    orders.push(backwards);
    for seed in 0..3 {
        let mut shuffled = h.log.clone();
        shuffled.shuffle(&mut StdRng::seed_from_u64(seed));
        orders.push(shuffled);
    }
    for (i, order) in orders.iter().enumerate() {
        let late = h.replay_in(order);
        assert_eq!(late.verdicts(), verdicts, "replay {i}: verdicts");
        assert_eq!(late.game(), game, "replay {i}: game");
        assert!(late.is_finished(), "replay {i}: finished");
    }
}

/// The seat with the lowest payoff.
fn loser<G: Game>(g: &G) -> usize {
    let o = g.outcome().expect("the game is over");
    (0..o.payoffs.len())
        .min_by_key(|s| o.payoffs[*s])
        .expect("players")
}

#[test]
fn forks_after_the_end_at_several_steps_change_nothing() {
    for seed in [31, 32, 33] {
        let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
        let mut h = Harness::new(game, seed, quick());
        h.run(8);
        assert!(h.spectator.is_finished());
        let verdicts = h.spectator.verdicts().to_vec();
        let end = h.spectator.game().clone();
        let z = loser(&end);
        // The loser signs a second event for every step it had an event at: the same payload
        // signed again later is another event for the same step and head, and a move becomes
        // another move.
        let table = hex::encode(h.cfg.table);
        let mine: Vec<Payload> = h
            .log
            .iter()
            .filter(|e| e.pubkey == h.keys[z].public_key())
            .filter_map(|e| parse_log(e, &table).ok())
            .filter(|p| !matches!(p.body, Body::Vote { .. } | Body::Evidence { .. }))
            .collect();
        assert!(mine.len() >= 4, "seed {seed}: {} events", mine.len());
        for mut p in mine {
            if let Body::Move { action } = &mut p.body {
                let other = match serde_json::from_value(action.clone()).unwrap() {
                    high_card::Action::Keep => high_card::Action::Swap,
                    high_card::Action::Swap => high_card::Action::Keep,
                    high_card::Action::Stay => high_card::Action::Fold,
                    high_card::Action::Fold => high_card::Action::Stay,
                };
                *action = serde_json::to_value(other).unwrap();
            }
            let ev = h.sign(z, &p, h.now + 600);
            h.publish(ev);
        }
        h.settle();
        h.agree();
        replays_agree(&h, &verdicts, &end);
    }
}

#[test]
fn heads_up_a_late_move_after_the_table_ended_changes_nothing() {
    let game = HighCard::new(&high_card::Setup::new(2)).unwrap();
    let mut h = Harness::new(game, 34, quick());
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0] as usize;
    // The mover's move, signed in time, is held back (a relay that throttles it, or a seat
    // that keeps it to rewrite the table later); its client does nothing more.
    let held = h.decide(mover, h.now);
    h.modes[mover] = Mode::Dead;
    h.run(12);
    assert!(h.spectator.is_finished());
    assert!(
        removals(h.spectator.verdicts())
            .iter()
            .any(|v| matches!(v, Verdict::Removed { seats, .. } if seats == &[mover as Seat])),
        "{:?}",
        h.spectator.verdicts()
    );
    let verdicts = h.spectator.verdicts().to_vec();
    let end = h.spectator.game().clone();
    h.publish(held);
    h.modes[mover] = Mode::Honest;
    h.settle();
    h.agree();
    replays_agree(&h, &verdicts, &end);
}

#[test]
fn a_late_end_confirmation_changes_no_verdict() {
    let game = HighCard::new(&high_card::Setup::new(3)).unwrap();
    let mut h = Harness::new(game, 35, quick());
    // Seat 2 confirms the end in time, but its relays hold the confirmation back until the
    // others have voted it out of confirming and the table is over.
    h.hold[2] = Some(|p: &Payload| matches!(p.body, Body::End {}));
    h.run(12);
    assert!(h.spectator.is_finished());
    assert!(
        matches!(h.spectator.verdicts().last(), Some(Verdict::Finished { .. })),
        "{:?}",
        h.spectator.verdicts()
    );
    assert_eq!(h.held.len(), 1, "seat 2's confirmation was held back");
    let verdicts = h.spectator.verdicts().to_vec();
    let end = h.spectator.game().clone();
    let late = h.held.pop().unwrap();
    h.publish(late);
    h.settle();
    h.agree();
    replays_agree(&h, &verdicts, &end);
}
