//! Misbehaving peers over a real relay: every honest client must reject and attribute the
//! misconduct, the table must resolve it the same way on every client, and no chip may be lost.

use nostr_sdk::prelude::*;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tolerance::games::registry::SetupOptions;
use tolerance::games::tolerance::{Action, Tolerance};
use tolerance::table::demo::{run_demo, DemoOptions, DemoRun};
use tolerance::table::runner::{Tamper, TamperAction};
use tolerance::table::Violation;
use tolerance::wire::log::{log_event, Ahead, Body, Payload};
use tolerance::wire::{self, Deadlines};

/// One table at a time: these tests use short deadlines, and several tables' proofs competing
/// for two cores could make an honest player miss one.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn opts(players: u8, hands: u64) -> DemoOptions {
    DemoOptions {
        setup: SetupOptions {
            players,
            hands: Some(hands),
            ..SetupOptions::default()
        },
        deadlines: Deadlines {
            move_ms: 2_000,
            crypto_ms: 2_000,
            // No bank: these tests time seats out and count on the plain allowance.
            bank_ms: 0,
            relay_ms: 2_000,
            return_ms: 0,
        },
        idle: Duration::from_secs(60),
        ..DemoOptions::default()
    }
}

async fn play(o: DemoOptions) -> DemoRun {
    run_demo::<Tolerance>(o, None, None).await.unwrap()
}

fn action(a: Action) -> Value {
    serde_json::to_value(a).unwrap()
}

/// Tampers with the first payload `pick` selects, once.
fn once(mut pick: impl FnMut(&mut Payload) -> Option<TamperAction> + Send + 'static) -> Tamper {
    let mut done = false;
    Box::new(move |p: &mut Payload| {
        if done {
            return TamperAction::Send;
        }
        match pick(p) {
            Some(a) => {
                done = true;
                a
            }
            None => TamperAction::Send,
        }
    })
}

fn with_tamper(mut o: DemoOptions, seat: usize, t: Tamper) -> DemoOptions {
    o.tamper = (0..o.setup.players).map(|_| None).collect();
    o.tamper[seat] = Some(t);
    o
}

fn chips_conserved(run: &DemoRun) {
    let r = &run.summary.report;
    assert_eq!(
        r["chips_end_total"], r["chips_start_total"],
        "chips must be conserved: {:?}",
        run.summary
    );
}

fn honest_violations(run: &DemoRun, cheater: usize) -> Vec<Vec<Violation>> {
    run.reports
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != cheater)
        .map(|(i, r)| {
            r.as_ref()
                .unwrap_or_else(|e| panic!("client {i} failed: {e}"))
                .violations
                .clone()
        })
        .collect()
}

/// Every client agrees, no chip is lost, every honest client blamed `seat`, and `seat` forfeited.
fn blamed_and_forfeited(run: &DemoRun, seat: u8) {
    assert!(run.summary.clients_agree, "{:?}", run.summary);
    chips_conserved(run);
    for v in honest_violations(run, seat as usize) {
        assert!(v.iter().any(|v| v.culprit() == seat), "{v:?}");
    }
    assert_eq!(forfeits(run)[0].0, seat);
}

/// Seats that forfeited, hand by hand, with the reason in words.
fn forfeits(run: &DemoRun) -> Vec<(u8, String)> {
    run.summary.report["history"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h["forfeits"].as_array().unwrap().clone())
        .map(|f| {
            (
                f[0].as_u64().unwrap() as u8,
                f[1].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn hands(run: &DemoRun) -> u64 {
    run.summary.report["hands"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn withheld_deal_tokens_end_in_the_documented_forfeit() {
    let _serial = SERIAL.lock().await;
    let o = with_tamper(
        opts(3, 2),
        2,
        once(|p| matches!(p.body, Body::Reveal { .. }).then_some(TamperAction::Drop)),
    );
    let run = play(o).await;
    assert!(run.summary.clients_agree, "{:?}", run.summary);
    chips_conserved(&run);
    let f = forfeits(&run);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, 2, "the withholding seat forfeits");
    // The offender left the table (with the chips it had not staked); the others played on.
    let history = run.summary.report["history"].as_array().unwrap();
    let last = history.last().expect("hands were played");
    assert!(
        !last["players"]
            .as_array()
            .unwrap()
            .contains(&Value::from(2)),
        "{last}"
    );
    assert_eq!(hands(&run), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reveal_withheld_after_betting_began_forfeits() {
    let _serial = SERIAL.lock().await;
    // Seat 1 bets, then never publishes its next reveal (a board card or its showdown cards).
    let mut moved = false;
    let o = with_tamper(
        opts(2, 3),
        1,
        once(move |p| {
            match p.body {
                Body::Move { .. } => moved = true,
                Body::Reveal { .. } if moved => return Some(TamperAction::Drop),
                _ => {}
            }
            None
        }),
    );
    let run = play(o).await;
    assert!(run.summary.clients_agree);
    chips_conserved(&run);
    let f = forfeits(&run);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, 1, "{f:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalling_player_is_checked_or_folded_by_timeout() {
    let _serial = SERIAL.lock().await;
    // Seat 1 never moves in its first turn: the others vote and the engine's timeout move
    // (check or fold) is applied identically everywhere.
    let o = with_tamper(
        opts(3, 1),
        1,
        once(|p| matches!(p.body, Body::Move { .. }).then_some(TamperAction::Drop)),
    );
    let run = play(o).await;
    assert!(run.summary.clients_agree, "{:?}", run.summary);
    chips_conserved(&run);
    assert!(
        forfeits(&run).is_empty(),
        "a missed move is a timeout, not a forfeit"
    );
    assert_eq!(hands(&run), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn late_move_and_last_vote_race_resolves_identically() {
    let _serial = SERIAL.lock().await;
    // The late move is published around the moment the opponent's vote completes the quorum.
    for delay_ms in [1_900u64, 2_000, 2_100, 2_200] {
        let o = with_tamper(
            opts(2, 1),
            1,
            once(move |p| {
                matches!(p.body, Body::Move { .. })
                    .then_some(TamperAction::Delay(Duration::from_millis(delay_ms)))
            }),
        );
        let run = play(o).await;
        assert!(
            run.summary.clients_agree,
            "delay {delay_ms} ms: clients disagree: {:?}",
            run.reports
        );
        chips_conserved(&run);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_bet_is_rejected_and_attributed() {
    let _serial = SERIAL.lock().await;
    let o = with_tamper(
        opts(3, 1),
        1,
        once(|p| match &mut p.body {
            Body::Move { action, .. } => {
                *action = self::action(Action::Raise { to: 1_000_000 });
                Some(TamperAction::Send)
            }
            _ => None,
        }),
    );
    let run = play(o).await;
    assert!(run.summary.clients_agree);
    chips_conserved(&run);
    for v in honest_violations(&run, 1) {
        assert!(
            v.iter()
                .any(|v| v.culprit() == 1 && v.to_string().contains("raise")),
            "{v:?}"
        );
    }
}

/// A three-seat hand where seat 1 publishes its first shuffle, validly signed, with the bytes of
/// its first deck changed by `edit`.
fn first_deck_edited(edit: fn(&mut Vec<u8>)) -> DemoOptions {
    with_tamper(
        opts(3, 1),
        1,
        once(move |p| match &mut p.body {
            Body::Shuffle { decks, .. } => {
                let deck = &mut decks[0].cards;
                let mut bytes = tolerance::fair::from_base64("deck", deck).unwrap();
                edit(&mut bytes);
                *deck = tolerance::fair::to_base64(&bytes);
                Some(TamperAction::Send)
            }
            _ => None,
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_shuffle_is_rejected_and_the_shuffler_forfeits() {
    let _serial = SERIAL.lock().await;
    // A different (swapped) deck: two bytes exchanged.
    let run = play(first_deck_edited(|bytes| {
        let n = bytes.len();
        bytes.swap(10, n - 10);
    }))
    .await;
    blamed_and_forfeited(&run, 1);
}

/// A validly signed shuffle whose deck does not decode (a spare flag bit set in its first point):
/// the seat that may shuffle next takes the deck on trust in its speculative copy and the
/// client checks it, both from the one decoding they share, so every honest client names the
/// shuffler the same way and it forfeits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shuffle_whose_deck_does_not_decode_is_rejected_and_the_shuffler_forfeits() {
    let _serial = SERIAL.lock().await;
    // Byte 32 of a 33-byte point holds only its flags; bit 0 is never set.
    let run = play(first_deck_edited(|bytes| bytes[32] |= 0x01)).await;
    blamed_and_forfeited(&run, 1);
    for v in honest_violations(&run, 1) {
        assert!(
            v.iter().any(|v| v.to_string().contains("malformed deck")),
            "{v:?}"
        );
    }
}

/// Every honest client named `cheater` once for a shuffle that failed when its chain was
/// checked together, and a later `verify` of the table on `url` names it too: the table played
/// to its end, and is not clean.
async fn named_for_a_chain_by_all(run: &DemoRun, url: String, cheater: u8) {
    let named =
        |v: &Violation| v.culprit() == cheater && v.to_string().contains("checked together");
    for v in honest_violations(run, usize::from(cheater)) {
        assert_eq!(v.iter().filter(|v| named(v)).count(), 1, "{v:?}");
    }
    let report = tolerance::table::verify::verify_table(&[url], &run.summary.naddr)
        .await
        .unwrap();
    assert!(report.finished, "the table played to its end");
    assert!(!report.ok, "a bad proof on the log is not a clean table");
    assert!(
        report.violations.iter().any(named),
        "{:?}",
        report.violations
    );
}

/// `seat`'s shuffle of the hand's own deck at a three-seat table of `version`, validly signed,
/// with two whole cards exchanged: every point still decodes, and its proof no longer holds.
fn own_deck_shuffle_swapped(version: u8, seat: usize) -> DemoOptions {
    let mut o = with_tamper(
        opts(3, 1),
        seat,
        once(|p| match &mut p.body {
            Body::Shuffle { decks, .. } => {
                let mut bytes = tolerance::fair::from_base64("deck", &decks[0].cards).unwrap();
                let (a, b) = bytes.split_at_mut(66);
                a.swap_with_slice(&mut b[..66]);
                decks[0].cards = tolerance::fair::to_base64(&bytes);
                Some(TamperAction::Send)
            }
            _ => None,
        }),
    );
    o.version = version;
    o
}

/// Version 10 (PROTOCOL.md §5.9): a well-formed shuffle of the hand's deck is placed when it
/// comes, the next seat shuffles on it, and when the last shuffle is in every client checks
/// the chain together, finds the bad step, and removes its seat for good; the deck is never
/// dealt from. The cheat is a middle step (seat 1, the next seat built on it) or the last one
/// (seat 2, whose own event completed the chain). Every client and a later `verify` agree.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn from_version_10_a_bad_shuffle_of_the_hands_deck_is_found_when_the_chain_is_checked_and_its_seat_removed(
) {
    let _serial = SERIAL.lock().await;
    for cheater in [1u8, 2] {
        let relay = tolerance::net::relay::EmbeddedRelay::start(Default::default())
            .await
            .unwrap();
        let url = relay.url().to_string();
        let mut o = own_deck_shuffle_swapped(wire::VERSION, usize::from(cheater));
        o.relays = vec![url.clone()];
        let run = play(o).await;
        blamed_and_forfeited(&run, cheater);
        let f = forfeits(&run);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            f[0].1, "failed_proof",
            "gone for good, not sitting out: {f:?}"
        );
        named_for_a_chain_by_all(&run, url, cheater).await;
    }
}

/// The same bad shuffle at a version 9 table, where each shuffle of the hand's deck is checked
/// as it arrives: the event is refused, nobody builds on it, and its seat forfeits when it does
/// not send a good one in time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_version_9_a_bad_shuffle_of_the_hands_deck_is_refused_as_it_arrives() {
    let _serial = SERIAL.lock().await;
    let run = play(own_deck_shuffle_swapped(9, 1)).await;
    blamed_and_forfeited(&run, 1);
    assert_eq!(forfeits(&run)[0].1, "withheld");
    for v in honest_violations(&run, 1) {
        assert!(
            !v.iter().any(|v| v.to_string().contains("checked together")),
            "{v:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_reveal_token_is_rejected_and_its_maker_forfeits() {
    let _serial = SERIAL.lock().await;
    let o = with_tamper(
        opts(3, 1),
        0,
        once(|p| match &mut p.body {
            Body::Reveal { tokens, .. } if tokens.len() >= 2 => {
                // A valid token, but for another position.
                let t = tokens[0].token.clone();
                tokens[1].token = t;
                Some(TamperAction::Send)
            }
            _ => None,
        }),
    );
    let run = play(o).await;
    blamed_and_forfeited(&run, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_is_proven_and_the_equivocator_forfeits() {
    let _serial = SERIAL.lock().await;
    let keys: Vec<Keys> = (0..3).map(|_| Keys::generate()).collect();
    let cheat = keys[1].clone();
    let host = keys[0].public_key();
    let mut o = opts(3, 1);
    o.keys = keys;
    let o = with_tamper(
        o,
        1,
        once(move |p| match &p.body {
            Body::Move { action, .. } => {
                // Sign a second, different move for the same step and send both.
                let mut other = p.clone();
                let fold = self::action(Action::Fold);
                other.body = Body::Move {
                    action: if *action == fold {
                        self::action(Action::Call)
                    } else {
                        fold
                    },
                    tokens: Vec::new(),
                };
                let ev = log_event(&host, &other).sign_with_keys(&cheat).unwrap();
                Some(TamperAction::SendAlso(Box::new(ev)))
            }
            _ => None,
        }),
    );
    let run = play(o).await;
    assert!(run.summary.clients_agree, "{:?}", run.reports);
    chips_conserved(&run);
    for v in honest_violations(&run, 1) {
        assert!(
            v.iter()
                .any(|v| matches!(v, Violation::Fork { seat: 1, .. })),
            "{v:?}"
        );
    }
    assert_eq!(forfeits(&run)[0].0, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_foreign_events_on_the_relay_are_rejected_without_effect() {
    let _serial = SERIAL.lock().await;
    let keys: Vec<Keys> = (0..2).map(|_| Keys::generate()).collect();
    let stranger = Keys::generate();
    let host = keys[0].public_key();
    let seat1 = keys[1].clone();
    let sent = Arc::new(Mutex::new(false));
    let mut o = opts(2, 1);
    o.keys = keys;
    let o = with_tamper(
        o,
        1,
        once(move |p| {
            if *sent.lock().unwrap() {
                return None;
            }
            *sent.lock().unwrap() = true;
            // Garbage content with the table's tag, signed by a seated key.
            let coord = wire::table_coordinate(&host, &p.table);
            let junk = EventBuilder::new(Kind::from(wire::KIND_LOG), "{not json")
                .tag(Tag::coordinate(coord.clone(), None))
                .sign_with_keys(&seat1)
                .unwrap();
            let _ = &stranger;
            Some(TamperAction::SendAlso(Box::new(junk)))
        }),
    );
    let run = play(o).await;
    assert!(run.summary.clients_agree);
    chips_conserved(&run);
    for v in honest_violations(&run, 1) {
        assert!(
            v.iter().any(|v| matches!(v, Violation::Wire { .. })),
            "{v:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_signed_at_a_reveal_step_is_rejected_and_its_signer_forfeits() {
    let _serial = SERIAL.lock().await;
    let keys: Vec<Keys> = (0..3).map(|_| Keys::generate()).collect();
    let cheat = keys[2].clone();
    let host = keys[0].public_key();
    let mut o = opts(3, 1);
    o.keys = keys;
    let o = with_tamper(
        o,
        2,
        once(move |p| match &p.body {
            // While the deal tokens are due, seat 2 also signs a bet for the same step and
            // head: a second event for one step is equivocation, whatever it says.
            Body::Reveal { .. } => {
                let mut mv = p.clone();
                mv.body = Body::Move {
                    action: self::action(Action::Raise { to: 50 }),
                    tokens: Vec::new(),
                };
                let ev = log_event(&host, &mv).sign_with_keys(&cheat).unwrap();
                Some(TamperAction::SendAlso(Box::new(ev)))
            }
            _ => None,
        }),
    );
    let run = play(o).await;
    assert!(run.summary.clients_agree);
    chips_conserved(&run);
    for v in honest_violations(&run, 2) {
        // Settled as the fork it is before either event is judged on its own.
        assert!(
            v.iter()
                .any(|v| matches!(v, Violation::Fork { seat: 2, .. })),
            "{v:?}"
        );
    }
    assert_eq!(forfeits(&run)[0].0, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_reports_the_first_violation_of_a_table() {
    let _serial = SERIAL.lock().await;
    let relay = tolerance::net::relay::EmbeddedRelay::start(Default::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    let mut o = with_tamper(
        opts(3, 1),
        1,
        once(|p| match &mut p.body {
            Body::Move { action, .. } => {
                *action = self::action(Action::Raise { to: 1_000_000 });
                Some(TamperAction::Send)
            }
            _ => None,
        }),
    );
    o.relays = vec![url.clone()];
    let run = play(o).await;
    assert!(run.summary.clients_agree);
    let report = tolerance::table::verify::verify_table(&[url], &run.summary.naddr)
        .await
        .unwrap();
    assert!(
        !report.ok,
        "a table with an illegal bet must not verify clean"
    );
    assert!(report.finished, "the table still played to its end");
    let first = report
        .violations
        .first()
        .expect("the illegal bet is reported");
    assert_eq!(first.culprit(), 1, "{first}");
    assert!(first.to_string().contains("raise"), "{first}");
}

/// Seat 1's first shuffle of the deck prepared for the next hand, validly signed, with two
/// whole cards of it exchanged: every point still decodes, and its proof no longer holds.
fn next_deck_shuffle_swapped(version: u8) -> DemoOptions {
    let mut o = with_tamper(
        opts(3, 2),
        1,
        once(|p| match &mut p.ahead {
            Some(Ahead::Shuffle { cards, .. }) => {
                let mut bytes = tolerance::fair::from_base64("deck", cards).unwrap();
                let (a, b) = bytes.split_at_mut(66);
                a.swap_with_slice(&mut b[..66]);
                *cards = tolerance::fair::to_base64(&bytes);
                Some(TamperAction::Send)
            }
            _ => None,
        }),
    );
    o.version = version;
    o
}

/// Versions 7 to 9 (PROTOCOL.md §5.9): the bad shuffle rides on a valid event, so it stands;
/// when the prepared deck's shuffles are checked together every client (the cheater's own
/// included), and a later `verify`, drops that deck and names seat 1 for it; nobody forfeits,
/// the next hand shuffles a deck of its own, and the table plays its two hands. From version
/// 10 the same check also removes seat 1 for good, and the other two play on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_shuffle_of_the_next_deck_is_named_and_from_version_10_its_seat_removed() {
    let _serial = SERIAL.lock().await;
    for version in [9, wire::VERSION] {
        let relay = tolerance::net::relay::EmbeddedRelay::start(Default::default())
            .await
            .unwrap();
        let url = relay.url().to_string();
        let mut o = next_deck_shuffle_swapped(version);
        o.relays = vec![url.clone()];
        let run = play(o).await;
        assert!(run.summary.clients_agree, "{:?}", run.summary);
        chips_conserved(&run);
        assert_eq!(hands(&run), 2, "{:?}", run.summary);
        if version < wire::SHUFFLES_CHECKED_TOGETHER_SINCE {
            assert!(forfeits(&run).is_empty(), "{:?}", forfeits(&run));
        } else {
            assert_eq!(forfeits(&run), vec![(1, "failed_proof".to_string())]);
        }
        named_for_a_chain_by_all(&run, url, 1).await;
    }
}

/// The same bad shuffle at a version 6 table, where each is checked as it arrives: the event
/// is invalid and seat 1 forfeits, as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_version_6_a_bad_shuffle_of_the_next_deck_is_refused_and_the_shuffler_forfeits() {
    let _serial = SERIAL.lock().await;
    let run = play(next_deck_shuffle_swapped(6)).await;
    blamed_and_forfeited(&run, 1);
}
