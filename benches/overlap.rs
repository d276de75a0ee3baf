//! How long a seat takes, from another seat's shuffle arriving, to have its own shuffle on top
//! of it ready to send: checking then proving in sequence, against proving on the deck while
//! it is still being checked (PROTOCOL.md §5.10); and, when the seat's event also waits for a
//! decision that takes longer than a proof (a person), how long the event takes once the
//! decision is made. Wall time, medians; figures in BENCHMARKS.md ("Shuffling on a deck still
//! being checked").
//!
//! Run: `cargo bench --bench overlap` (env `OVERLAP_SEATS=5`, `OVERLAP_ROUNDS=30`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use nostr_sdk::prelude::{Keys, SecretKey};
use tolerance::cards::DeckSpec;
use tolerance::engine::{ChanceRequest, Seat};
use tolerance::table::chance::{Caches, Chance, Secrets};
use tolerance::wire::log::Body;
use zeroize::Zeroizing;

const TABLE: [u8; 32] = [9; 32];

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `n` seats' states after the setup of one deck of `decks` × 52 cards, the order they
/// shuffle in, and the first shuffler's event.
fn after_first_shuffle(n: usize, decks: u8) -> (Vec<Chance>, Vec<Seat>, Body) {
    let actors: Vec<[u8; 32]> = (0..n)
        .map(|i| {
            Keys::new(SecretKey::from_slice(&[i as u8 + 1; 32]).expect("key"))
                .public_key()
                .to_bytes()
        })
        .collect();
    let reqs = vec![
        ChanceRequest::Shuffle {
            deck: 0,
            spec: DeckSpec::standard(decks),
        },
        ChanceRequest::deal(0, 0, 0),
    ];
    let parts: Vec<Seat> = (0..n as Seat).collect();
    let mut cs: Vec<Chance> = (0..n)
        .map(|i| {
            let me = Secrets::new(i as Seat, Zeroizing::new([i as u8 + 40; 32]));
            let mut c = Chance::new(TABLE, actors.clone(), Some(me));
            c.begin(reqs.clone(), parts.clone(), false).expect("batch");
            c
        })
        .collect();
    let setups: Vec<(Seat, Body)> = cs
        .iter()
        .enumerate()
        .map(|(i, c)| (i as Seat, c.produce(0).expect("setup").expect("owed")))
        .collect();
    for (seat, body) in &setups {
        for c in cs.iter_mut() {
            c.accept(*seat, &format!("0/{seat}"), body, 0)
                .expect("setup");
        }
    }
    let order: Vec<Seat> = (0..n)
        .filter(|i| matches!(cs[*i].produce(0), Ok(Some(Body::Shuffle { .. }))))
        .map(|i| i as Seat)
        .collect();
    assert_eq!(order.len(), 1, "one seat shuffles first");
    let first = cs[order[0] as usize]
        .produce(0)
        .expect("shuffle")
        .expect("owed");
    (cs, order, first)
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

fn main() {
    let n = env_or("OVERLAP_SEATS", 5);
    let rounds = env_or("OVERLAP_ROUNDS", 30);
    for decks in [1u8, 2] {
        let (cs, order, event) = after_first_shuffle(n, decks);
        let first = order[0];
        // The next shuffler: the one seat that owes a shuffle once the first is in.
        let next = (0..n)
            .find(|i| {
                let mut c = cs[*i].clone().with_cache(Arc::new(Caches::default()));
                c.accept(first, "probe", &event, 0).expect("verifies");
                matches!(c.produce(0), Ok(Some(Body::Shuffle { .. })))
            })
            .expect("a next shuffler");
        let (mut seq, mut overlap, mut check_only) = (Vec::new(), Vec::new(), Vec::new());
        let (mut after_choice, mut after_choice_ahead) = (Vec::new(), Vec::new());
        for r in 0..rounds {
            // A fresh cache each time, and an event id never seen, so nothing is reused.
            let fresh = || cs[next].clone().with_cache(Arc::new(Caches::default()));
            let id = format!("1/{r}");

            let mut c = fresh();
            let t = Instant::now();
            c.accept(first, &id, &event, 0).expect("verifies");
            check_only.push(t.elapsed());
            let t_choice = Instant::now();
            let mine = c.produce(0).expect("own").expect("owed");
            seq.push(t.elapsed());
            after_choice.push(t_choice.elapsed());

            let mut c = fresh();
            let t = Instant::now();
            let copy = c.speculative();
            let ahead = std::thread::scope(|s| {
                let (ev, id) = (&event, &id);
                let spec = s.spawn(move || {
                    let mut copy = copy;
                    copy.accept(first, id, ev, 0).expect("decodes");
                    copy.produce(0).expect("own").expect("owed")
                });
                c.accept(first, id, ev, 0).expect("verifies");
                let mine = c.produce(0).expect("own").expect("owed");
                let dt = t.elapsed();
                let made = spec.join().expect("copy");
                assert_eq!(made, mine, "the shuffle made ahead is the one sent");
                (mine, dt)
            });
            overlap.push(ahead.1);
            assert_eq!(ahead.0, mine, "the same shuffle either way");

            // The copy is done before the choice is (the person thought longer than a proof).
            let mut c = fresh();
            let mut copy = c.speculative();
            copy.accept(first, &id, &event, 0).expect("decodes");
            copy.produce(0).expect("own").expect("owed");
            c.accept(first, &id, &event, 0).expect("verifies");
            let t_choice = Instant::now();
            let sent = c.produce(0).expect("own").expect("owed");
            after_choice_ahead.push(t_choice.elapsed());
            assert_eq!(sent, mine);
        }
        println!(
            "{n} seats, {} cards: next shuffle ready {:.1} ms after the previous arrives when \
             checked then proved, {:.1} ms when proved while it is checked (checking alone \
             {:.1} ms); after a slow decision, ready {:.2} ms after the choice when made ahead, \
             {:.1} ms when not; median of {rounds}",
            52 * usize::from(decks),
            median(seq),
            median(overlap),
            median(check_only),
            median(after_choice_ahead),
            median(after_choice),
        );
    }
}
