//! End-to-end tables of Tolerance over a real relay on loopback. Every seat is a separate client
//! (its own key, its own `RelayPool` connection, its own `Session`) driven by `run_demo`; nothing
//! is shared between clients but the relay.
//!
//! Each table must end with every client finished, no violation anywhere, all clients agreeing
//! and the chips conserved. A finished table is then re-checked by `verify_table`, by the real
//! `tolerance verify` binary, and by spectators (sessions without a seat, fed the relay's copy
//! of the log in play order and backwards) who must never learn a card that was not shown —
//! checked both on what their engine holds and on the public tokens themselves.
//!
//! (Tolerance on nostr-rs-relay is played by tests/every_game.rs.)

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use nostr_sdk::prelude::Event;
use tolerance::engine::{DeckId, Seat};
use tolerance::games::registry::SetupOptions;
use tolerance::games::tolerance::hand::LogEntry;
use tolerance::games::tolerance::{Action, HandSummary, Tolerance, Variant};
use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use tolerance::table::demo::{run_demo, DemoOptions, DemoRun};
use tolerance::table::runner::{table_game, Decider, DecisionFuture};
use tolerance::table::session::Turn;
use tolerance::table::Session;
use tolerance::wire::log::{Ahead, Body, Payload, TokenMsg};

async fn embedded() -> EmbeddedRelay {
    EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .expect("embedded relay starts")
}

fn options(players: u8, hands: u64, relays: Vec<String>) -> DemoOptions {
    DemoOptions {
        setup: SetupOptions {
            players,
            hands: Some(hands),
            ..SetupOptions::default()
        },
        relays,
        // A stuck client fails the test in a minute instead of hanging for two.
        idle: Duration::from_secs(60),
        ..DemoOptions::default()
    }
}

async fn play(
    name: &str,
    opts: DemoOptions,
    seat0: Option<Box<dyn Decider<Tolerance>>>,
) -> DemoRun {
    let run = run_demo::<Tolerance>(opts, seat0, None)
        .await
        .expect("the demo runs");
    let s = &run.summary;
    eprintln!(
        "{name}: {} seats, {} events, {} bytes, {} passes in {} ms",
        s.players, s.events, s.bytes, s.passes, s.wall_ms
    );
    run
}

fn history(report: &serde_json::Value) -> Vec<HandSummary> {
    serde_json::from_value(report["history"].clone()).expect("the report carries every hand")
}

/// Everything an honest table must satisfy at the end, from every client's report.
fn assert_sound(run: &DemoRun, seats: u8, hands: u64) {
    let s = &run.summary;
    assert_eq!(s.players, seats);
    assert_eq!(run.reports.len(), seats as usize, "one report per seat");
    let first = run.reports[0].as_ref().expect("client 0 ran");
    for (i, r) in run.reports.iter().enumerate() {
        let r = r
            .as_ref()
            .unwrap_or_else(|e| panic!("client {i} failed: {e}"));
        assert_eq!(r.seat, Some(i as Seat), "client {i} sat in its own seat");
        assert!(r.violations.is_empty(), "client {i} saw {:?}", r.violations);
        assert!(r.finished, "client {i} did not finish");
        assert!(r.published > 0, "client {i} published its own events");
        assert_eq!(
            r.report["forfeits"],
            serde_json::json!([]),
            "no honest seat forfeits"
        );
        // Agreement checked here too, not only through the demo's own flag.
        assert_eq!(r.report, first.report, "client {i}'s record of the table");
        assert_eq!(r.public, first.public, "client {i}'s public view");
        assert_eq!(r.head, first.head, "client {i}'s chain head");
        assert_eq!(r.stats.events, first.stats.events, "client {i}'s events");
    }
    assert!(s.clients_agree && s.verified, "{s:?}");
    assert_eq!(s.violations, 0);
    let report = &first.report;
    let start = seats as u64 * Variant::default().starting_stack;
    assert_eq!(report["chips_start_total"], start);
    assert_eq!(report["chips_end_total"], start, "chips are conserved");
    let played = report["hands"].as_u64().expect("a hand count");
    let finals: Vec<(Seat, u64)> =
        serde_json::from_value(report["final_stacks"].clone()).expect("final stacks");
    let alive = finals.iter().filter(|(_, c)| *c > 0).count();
    // A tournament table also ends when one player holds every chip (two seats can get there in
    // one hand); otherwise it plays exactly the hands it announced.
    if played < hands {
        assert!(
            played >= 1 && alive == 1,
            "{played} of {hands} hands, {alive} alive"
        );
    } else {
        assert_eq!(played, hands);
    }
    let hist = history(report);
    assert_eq!(hist.len() as u64, played);
    assert_eq!(
        hist[0].players.len(),
        seats as usize,
        "everyone plays hand 0"
    );
    for h in &hist {
        let total: u64 = h.final_stacks.iter().map(|(_, c)| c).sum();
        assert_eq!(total, start, "hand {} conserves chips", h.hand);
        assert!(h.result.is_some(), "an honest hand has a result");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_seats_play_two_hands() {
    let run = play("2 seats", options(2, 2, Vec::new()), None).await;
    assert_sound(&run, 2, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_seats_play_two_hands() {
    let run = play("4 seats", options(4, 2, Vec::new()), None).await;
    assert_sound(&run, 4, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_seats_play_with_two_decks() {
    let variant = Variant::default();
    assert_eq!(variant.decks_for(5), 1, "five seats share one deck");
    assert_eq!(variant.decks_for(6), 2, "six seats need a second deck");
    // Our own relay, so that a spectator can replay the table and read the deck count the hand
    // was actually played with.
    let relay = embedded().await;
    let run = play(
        "6 seats",
        options(6, 1, vec![relay.url().to_string()]),
        None,
    )
    .await;
    assert_sound(&run, 6, 1);
    let seen = spectate(relay.url().as_str(), &run, Order::Play).await;
    assert_eq!(
        seen.decks.get(&0),
        Some(&2),
        "hand 0 was dealt from two decks"
    );
    // Two decks of 52: 104 positions shuffled by each of six seats.
    let shuffled: usize = seen
        .log
        .iter()
        .filter_map(|(_, p)| match &p.body {
            Body::Shuffle { decks, .. } => Some(decks.len()),
            _ => None,
        })
        .sum();
    assert!(
        shuffled >= 6,
        "every seat shuffled the table's deck: {shuffled}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_seats_play_one_hand() {
    let run = play("10 seats", options(10, 1, Vec::new()), None).await;
    assert_sound(&run, 10, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_table_verifies_in_library_and_binary() {
    // Our own relay, which stays up after the players leave.
    let relay = embedded().await;
    let url = relay.url().to_string();
    let run = play("verify", options(4, 2, vec![url.clone()]), None).await;
    assert_sound(&run, 4, 2);
    let players = run.reports[0].as_ref().expect("checked");

    let report = tolerance::table::verify::verify_table(std::slice::from_ref(&url), &run.table)
        .await
        .expect("the table is found");
    assert!(report.ok, "verify_table: {:?}", report.problems);
    assert!(report.finished);
    assert!(report.violations.is_empty());
    assert_eq!(report.table, run.table);
    assert_eq!(report.game, "tolerance");
    assert_eq!(
        report.report, players.report,
        "verify agrees with the players"
    );
    assert_eq!(report.events, players.stats.events);
    assert_eq!(report.ignored, 0);

    let out = binary(&["verify", "--table", &run.summary.naddr, "--json"]).await;
    assert!(
        out.status.success(),
        "tolerance verify failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(json["ok"], true);
    assert_eq!(json["finished"], true);
    assert_eq!(json["table"], run.table.as_str());
    assert_eq!(json["events"], players.stats.events);
    assert_eq!(json["report"], players.report);
    // Only the seats that played, by npub.
    assert_eq!(json["seats"].as_array().map(Vec::len), Some(4));

    // And it can say no: an unknown table is an error, from the library and from the binary.
    let unknown = "00".repeat(32);
    assert!(
        tolerance::table::verify::verify_table(std::slice::from_ref(&url), &unknown)
            .await
            .is_err()
    );
    let out = binary(&["verify", "--relay", &url, "--table", &unknown, "--json"]).await;
    assert!(
        !out.status.success(),
        "verify of an unknown table must fail"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("Some(") && !err.trim().is_empty(), "{err}");
}

async fn binary(args: &[&str]) -> std::process::Output {
    tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
            .args(args)
            .env(
                "TOLERANCE_HOME",
                std::env::temp_dir().join("tolerance-e2e-verify"),
            )
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("tolerance verify ends within a minute")
    .expect("tolerance runs")
}

// ---- spectators ----------------------------------------------------------------------------

/// The order in which a spectator receives the table's events.
#[derive(Clone, Copy, Debug)]
enum Order {
    /// By step, as a live spectator receives them.
    Play,
    /// Exactly backwards: everything waits in the session until what it builds on arrives.
    Reversed,
}

/// What a spectator could see.
#[derive(Clone)]
struct Spectated {
    history: Vec<HandSummary>,
    events: u64,
    /// Deck count of each hand, from the spectator's views.
    decks: BTreeMap<u64, u8>,
    /// The public log in step order: (author seat, payload).
    log: Vec<(Seat, Payload)>,
}

/// Fetches every event of the finished table from the relay and replays it in a session that
/// holds no seat. After every event, the spectator's own engine state (not only its view) must
/// hold no card that has not been shown to everyone: a folded or unshown card is not merely
/// hidden on screen, the spectator cannot compute it.
async fn spectate(url: &str, run: &DemoRun, order: Order) -> Spectated {
    let (log, spec, start) = crate::common::public_log(url, run).await;
    let mut feed: Vec<Event> = log.iter().map(|(_, _, e)| e.clone()).collect();
    if matches!(order, Order::Reversed) {
        feed.reverse();
    }
    tokio::task::spawn_blocking(move || {
        let (cfg, game) = table_game::<Tolerance>(&spec, start).expect("a Tolerance table");
        let mut s = Session::new(cfg, game, None).expect("a spectator session");
        assert_eq!(s.me(), None);
        let mut decks = BTreeMap::new();
        for ev in &feed {
            let v = s.handle(ev);
            assert!(
                v.is_empty(),
                "spectator ({order:?}) rejects {}: {v:?}",
                ev.id
            );
            let game = s.game();
            let Some(hand) = &game.hand else { continue };
            decks.insert(hand.hand_no, hand.rules.decks);
            for p in &hand.players {
                for held in &p.cards {
                    assert!(
                        held.revealed || held.card.is_none(),
                        "hand {}: the spectator ({order:?}) knows seat {}'s unshown card",
                        hand.hand_no,
                        p.seat
                    );
                    assert!(
                        !(p.folded && held.card.is_some()),
                        "hand {}: the spectator knows folded seat {}'s card",
                        hand.hand_no,
                        p.seat
                    );
                }
            }
            let view = s.view();
            if let Some(h) = &view.hand {
                assert!(h.legal.is_empty(), "a spectator has no moves");
            }
        }
        assert!(s.violations.is_empty(), "{:?}", s.violations);
        assert!(s.is_finished(), "the spectator ({order:?}) reaches the end");
        Spectated {
            history: s.game().history.clone(),
            events: s.stats.events,
            decks,
            log: log.into_iter().map(|(seat, p, _)| (seat, p)).collect(),
        }
    })
    .await
    .expect("the spectator does not panic")
}

/// `assert!` for checks that report instead of panicking, so that the doctored logs below can
/// be seen to fail them without panic noise.
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

/// Checks, on the public log alone, that only the cards shown at a showdown can be opened by
/// anyone but their owner. Opening a card takes a decryption token from every seat that
/// shuffled its deck; a dealt card gets every token but its owner's, and the owner's own token
/// is published only when the card is shown. So the positions with a complete set of public
/// tokens must be exactly the cards the showdowns show, completed by the seats that showed them
/// — never by a folded seat. Returns (hands with a fold, uncontested hands).
/// Who shuffled each deck: its key holders, whose tokens open its cards. A hand whose players
/// are those of the hand before is dealt from the deck prepared during that hand (PROTOCOL.md
/// §5.9): its shuffles ride on other events (`ahead`), without a deck id, from the first key
/// share of a chain to the next chain's first key share; the hand's deck is then that chain's
/// deck, plus the shuffles the hand itself made of it when the chain was not finished. A deck
/// shuffled right after a setup was keyed for its hand alone.
fn deck_holders(log: &[(Seat, Payload)]) -> BTreeMap<DeckId, BTreeSet<Seat>> {
    let mut holders: BTreeMap<DeckId, BTreeSet<Seat>> = BTreeMap::new();
    let mut chain: BTreeSet<Seat> = BTreeSet::new();
    let mut setups: BTreeSet<u32> = BTreeSet::new();
    for (seat, p) in log {
        // A deck first seen in a shuffle right after a setup was keyed by that setup.
        let fresh =
            matches!(p.body, Body::Shuffle { .. }) && p.step > 0 && setups.contains(&(p.step - 1));
        let first_seen = |deck: DeckId, holders: &mut BTreeMap<DeckId, BTreeSet<Seat>>| {
            holders.entry(deck).or_insert_with(|| {
                if fresh {
                    BTreeSet::new()
                } else {
                    chain.clone()
                }
            });
        };
        match &p.body {
            Body::Setup { .. } => {
                setups.insert(p.step);
            }
            Body::Shuffle { decks, .. } => {
                for d in decks {
                    first_seen(d.deck, &mut holders);
                    holders.entry(d.deck).or_default().insert(*seat);
                }
            }
            Body::Reveal { tokens, .. } => {
                for t in tokens {
                    first_seen(t.deck, &mut holders);
                }
            }
            _ => {}
        }
        match &p.ahead {
            Some(Ahead::Keys(_)) if !chain.is_empty() => chain.clear(),
            Some(Ahead::Shuffle { .. }) => {
                chain.insert(*seat);
            }
            _ => {}
        }
    }
    holders
}

fn check_unshown_cards_stay_private(seen: &Spectated) -> Result<(usize, usize), String> {
    let holders = deck_holders(&seen.log);
    // Public tokens per card, in log order.
    let mut tokens: BTreeMap<(DeckId, u16), Vec<Seat>> = BTreeMap::new();
    for (seat, p) in &seen.log {
        if let Body::Reveal { tokens: t, .. } = &p.body {
            for TokenMsg { deck, position, .. } in t {
                let by = tokens.entry((*deck, *position)).or_default();
                ensure!(
                    !by.contains(seat),
                    "seat {seat} published two tokens for deck {deck} position {position}"
                );
                by.push(*seat);
            }
        }
    }
    ensure!(!holders.is_empty(), "no deck was shuffled");
    // Seat -> cards it made public by adding the last token.
    let mut completed: BTreeMap<Seat, usize> = BTreeMap::new();
    for ((deck, position), by) in &tokens {
        let keys = holders
            .get(deck)
            .ok_or(format!("tokens for deck {deck}, which nobody shuffled"))?;
        let set: BTreeSet<Seat> = by.iter().copied().collect();
        ensure!(
            set.is_subset(keys),
            "deck {deck} position {position}: tokens from {set:?}, keys held by {keys:?}"
        );
        ensure!(
            set.len() + 1 >= keys.len(),
            "deck {deck} position {position}: only {} of {} tokens (dealt to nobody?)",
            set.len(),
            keys.len()
        );
        if set.len() == keys.len() {
            *completed.entry(*by.last().expect("tokens")).or_default() += 1;
        }
    }
    let mut shown: BTreeMap<Seat, usize> = BTreeMap::new();
    let mut with_fold = 0;
    let mut uncontested = 0;
    for h in &seen.history {
        let result = h
            .result
            .as_ref()
            .ok_or(format!("hand {} has no result", h.hand))?;
        let folded: BTreeSet<Seat> = h
            .log
            .iter()
            .filter_map(|e| match e {
                LogEntry::Act {
                    seat,
                    action: Action::Fold,
                } => Some(*seat),
                _ => None,
            })
            .collect();
        let showed: BTreeSet<Seat> = h.shown.iter().map(|(s, _)| *s).collect();
        ensure!(
            folded.is_disjoint(&showed),
            "hand {}: folded {folded:?} showed cards",
            h.hand
        );
        if result.uncontested {
            uncontested += 1;
            ensure!(
                showed.is_empty(),
                "uncontested hand {} showed {showed:?}",
                h.hand
            );
        }
        if !folded.is_empty() {
            with_fold += 1;
        }
        for (s, cards) in &h.shown {
            *shown.entry(*s).or_default() += cards.len();
        }
    }
    ensure!(
        completed == shown,
        "cards any spectator can open, by the seat that completed them: {completed:?}; \
         cards shown at showdowns: {shown:?}"
    );
    Ok((with_fold, uncontested))
}

/// The log check is not vacuous: a doctored log where a seat publishes the token for its own
/// dealt card (the one token that keeps it private) must fail it, and so must a log whose
/// showdown record is missing a card that was opened.
fn assert_privacy_check_can_fail(seen: &Spectated) {
    // The first dealt card: a reveal batch's token; its owner is the key holder who did not
    // send one.
    let mut leak = seen.clone();
    let holders = deck_holders(&seen.log);
    let mut senders: BTreeMap<(DeckId, u16), BTreeSet<Seat>> = BTreeMap::new();
    for (seat, p) in &seen.log {
        if let Body::Reveal { tokens, .. } = &p.body {
            for t in tokens {
                senders
                    .entry((t.deck, t.position))
                    .or_default()
                    .insert(*seat);
            }
        }
    }
    let ((deck, position), owner) = senders
        .iter()
        .find_map(|(k, by)| {
            let missing: Vec<Seat> = holders[&k.0].difference(by).copied().collect();
            (missing.len() == 1).then(|| (*k, missing[0]))
        })
        .expect("a card that was dealt and never shown");
    let template = seen
        .log
        .iter()
        .find(|(s, p)| *s == owner && matches!(p.body, Body::Reveal { .. }))
        .map(|(_, p)| p.clone())
        .expect("the owner revealed something");
    leak.log.push((
        owner,
        Payload {
            body: Body::Reveal {
                tokens: vec![TokenMsg {
                    deck,
                    position,
                    token: String::new(),
                }],
                sealed: Vec::new(),
                dice: Vec::new(),
                shown: Vec::new(),
            },
            ..template
        },
    ));
    assert!(
        check_unshown_cards_stay_private(&leak).is_err(),
        "a seat opening its own unshown card must be caught"
    );
    if let Some(h) = seen.history.iter().position(|h| !h.shown.is_empty()) {
        let mut hidden = seen.clone();
        hidden.history[h].shown[0].1.pop();
        assert!(
            check_unshown_cards_stay_private(&hidden).is_err(),
            "an opened card missing from the showdown record must be caught"
        );
    }
}

/// Seat 0 checks when checking is free, folds when it must call, and passes every roll: it
/// folds in every hand where it faces a bet, so the spectator tests see folded players (and
/// uncontested hands at two seats) for certain, not by chance.
struct CheckOrFold;

impl Decider<Tolerance> for CheckOrFold {
    fn decide(&mut self, turn: &Turn<Tolerance>) -> DecisionFuture<Action> {
        let pick = [Action::Check, Action::Fold, Action::Pass]
            .into_iter()
            .find(|a| turn.legal.contains(a))
            .unwrap_or(turn.legal[0]);
        Box::pin(std::future::ready(Some(pick)))
    }
}

async fn spectator_case(seats: u8, hands: u64) -> (usize, usize) {
    let relay = embedded().await;
    let opts = options(seats, hands, vec![relay.url().to_string()]);
    let run = play(
        &format!("spectator, {seats} seats"),
        opts,
        Some(Box::new(CheckOrFold)),
    )
    .await;
    assert_sound(&run, seats, hands);
    let players = run.reports[0].as_ref().expect("checked");

    let live = spectate(relay.url().as_str(), &run, Order::Play).await;
    assert_eq!(
        live.history,
        history(&players.report),
        "the spectator agrees with the players"
    );
    assert_eq!(
        live.events, players.stats.events,
        "the spectator saw every event"
    );
    let counts = check_unshown_cards_stay_private(&live).unwrap_or_else(|e| panic!("{e}"));
    assert_privacy_check_can_fail(&live);

    let late = spectate(relay.url().as_str(), &run, Order::Reversed).await;
    assert_eq!(late.history, live.history, "arrival order does not matter");
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectator_never_learns_folded_cards() {
    // Seat 0 is Starter in at most one of two hands at three seats: in the other it faces the
    // blind and folds.
    let (with_fold, _) = spectator_case(3, 2).await;
    assert!(with_fold >= 1, "seat 0 folded at least once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectator_never_learns_cards_of_uncontested_hands() {
    // Heads-up, the Dealer alternates: in one of two hands seat 0 faces the blind and folds (or
    // seat 1 folded first): that hand is uncontested.
    let (with_fold, uncontested) = spectator_case(2, 2).await;
    assert!(uncontested >= 1, "at least one hand was uncontested");
    assert!(with_fold >= uncontested);
}
