//! End-to-end games of Tolerance over real relays on loopback. Every seat is a separate client
//! (its own key, its own `RelayPool` connection, its own `Session`) driven by
//! `tolerance::table::demo::run_demo`; nothing is shared between clients but the relay.
//!
//! Each game must end with every client finished, no violation anywhere, all clients agreeing,
//! and the chips conserved. A finished table is then re-checked by `verify_table`, by the real
//! `tolerance verify` binary, and by spectators (sessions without a seat) who must never learn a
//! card that was not shown.
//!
//! nostr-rs-relay is required on CI (`CI` set) and optional elsewhere, as in `tests/net_relay.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use nostr_sdk::prelude::{Event, Keys, PublicKey};
use tolerance::engine::Seat;
use tolerance::games::tolerance::{Action, Variant};
use tolerance::net::testing::{nostr_rs_relay_binary, NostrRsRelay};
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig, RelayPool};
use tolerance::table::demo::{run_demo, DemoOptions, DemoRun};
use tolerance::table::runner::fetch_table;
use tolerance::table::verify::verify_table;
use tolerance::table::{Decider, HandSummary, Session};
use tolerance::wire::{self, Body, Payload, TokenMsg};

async fn embedded() -> EmbeddedRelay {
    EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .expect("embedded relay starts")
}

fn options(players: u8, hands: u64, relays: Vec<String>) -> DemoOptions {
    DemoOptions {
        players,
        hands: Some(hands),
        relays,
        // A stuck client fails the test in a minute instead of hanging for two.
        idle_timeout: Duration::from_secs(60),
        ..DemoOptions::default()
    }
}

/// Plays a table of bots and prints how long it took (the runtimes go into the report).
async fn play(name: &str, opts: DemoOptions) -> DemoRun {
    let started = Instant::now();
    let run = run_demo(opts, |_| {}).await.expect("the demo runs");
    eprintln!(
        "{name}: {} seats, {} hands, {} events, {} bytes, {:.1} hops/hand in {:.1} s",
        run.summary.players,
        run.summary.hands,
        run.summary.events,
        run.summary.bytes,
        run.summary.sequential_hops_per_hand,
        started.elapsed().as_secs_f64()
    );
    run
}

/// Everything an honest table must satisfy at the end, from every client's report.
fn assert_sound(run: &DemoRun, seats: u8, hands: u64) {
    let s = &run.summary;
    assert_eq!(s.players, seats);
    assert_eq!(run.reports.len(), seats as usize, "one report per seat");
    for (i, r) in run.reports.iter().enumerate() {
        let r = r
            .as_ref()
            .unwrap_or_else(|e| panic!("client {i} failed: {e}"));
        assert_eq!(r.seat, Some(i as Seat), "client {i} sat in its own seat");
        assert!(r.violations.is_empty(), "client {i} saw {:?}", r.violations);
        assert!(r.finished, "client {i} did not finish");
        assert_eq!(
            r.hands.len() as u64,
            s.hands,
            "client {i} played every hand"
        );
        assert!(r.published > 0, "client {i} published its own events");
        assert!(
            r.hands.iter().all(|h| h.forfeits.is_empty()),
            "no honest seat forfeits"
        );
    }
    assert!(s.clients_agree, "clients disagree");
    assert_eq!(s.violations, 0);
    // A tournament table also ends when one player holds every chip (two seats can get there in
    // one hand); otherwise it plays exactly the hands it announced.
    let alive = s.final_stacks.iter().flatten().filter(|c| **c > 0).count();
    if s.hands < hands {
        assert!(s.hands >= 1, "at least one hand was played");
        assert_eq!(
            alive, 1,
            "{} of {hands} hands, yet {alive} players have chips",
            s.hands
        );
    } else {
        assert_eq!(s.hands, hands);
    }
    assert_eq!(
        s.chips_start_total,
        seats as u64 * Variant::default().starting_stack
    );
    assert_eq!(
        s.chips_end_total, s.chips_start_total,
        "chips are conserved"
    );
    assert!(s.verified);
    let first = run.reports[0].as_ref().expect("checked");
    assert_eq!(
        first.hands[0].players.len(),
        seats as usize,
        "everyone plays hand 0"
    );
    for h in &first.hands {
        let total: u64 = h.final_stacks.iter().map(|(_, c)| c).sum();
        let result = h.result.as_ref().expect("an honest hand has a result");
        // Seats out of the hand have no chips left (tournament): the hand holds them all.
        assert_eq!(
            total, s.chips_start_total,
            "hand {} conserves chips",
            h.hand
        );
        assert_eq!(result.final_stacks, h.final_stacks, "hand {}", h.hand);
    }
    assert_eq!(s.final_stacks, first.final_stacks);
    // Agreement checked here too, not only through the demo's own flag.
    for (i, r) in run.reports.iter().enumerate().skip(1) {
        let r = r.as_ref().expect("checked");
        assert_eq!(
            r.hands, first.hands,
            "client {i} saw other hands than client 0"
        );
        assert_eq!(r.final_stacks, first.final_stacks, "client {i}'s stacks");
        assert_eq!(
            r.stats.events, first.stats.events,
            "client {i}'s event count"
        );
    }
    assert!(s.events > 0 && s.bytes > 0 && s.sequential_hops_per_hand > 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_seats_play_two_hands() {
    let run = play("2 seats", options(2, 2, Vec::new())).await;
    assert_sound(&run, 2, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_seats_play_two_hands() {
    let run = play("4 seats", options(4, 2, Vec::new())).await;
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
    let run = play("6 seats", options(6, 1, vec![relay.url().to_string()])).await;
    assert_sound(&run, 6, 1);
    let seen = spectate(relay.url().as_str(), &run, Order::Play).await;
    assert_eq!(
        seen.decks.get(&0),
        Some(&2),
        "hand 0 was dealt from two decks"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_seats_play_one_hand() {
    let run = play("10 seats", options(10, 1, Vec::new())).await;
    assert_sound(&run, 10, 1);
}

/// nostr-rs-relay is required on CI (`CI` set) and optional elsewhere.
fn external_relay_available() -> bool {
    if nostr_rs_relay_binary().is_some() {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "CI is set but nostr-rs-relay is not installed: run .ci/install-nostr-rs-relay.sh \
             or set TOLERANCE_NOSTR_RS_RELAY"
        );
    }
    eprintln!("SKIPPED: nostr-rs-relay not installed (.ci/install-nostr-rs-relay.sh)");
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_seats_play_on_nostr_rs_relay() {
    if !external_relay_available() {
        return;
    }
    let relay = NostrRsRelay::spawn().await.expect("nostr-rs-relay starts");
    let run = play(
        "4 seats on nostr-rs-relay",
        options(4, 1, vec![relay.url().to_string()]),
    )
    .await;
    assert_sound(&run, 4, 1);
    assert_eq!(run.summary.relays, vec![relay.url().to_string()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_table_verifies_in_library_and_binary() {
    // Our own relay, which stays up after the players leave.
    let relay = embedded().await;
    let url = relay.url().to_string();
    let run = play("verify", options(4, 2, vec![url.clone()])).await;
    assert_sound(&run, 4, 2);
    let players = run.reports[0].as_ref().expect("checked");

    let report = verify_table(std::slice::from_ref(&url), &run.table)
        .await
        .expect("the table is found");
    assert!(report.ok, "verify_table: {:?}", report.first_violation);
    assert!(report.finished);
    assert_eq!(report.first_violation, None);
    assert_eq!(report.table, run.table);
    assert_eq!(report.host, run.host.to_hex());
    assert_eq!(report.final_stacks, players.final_stacks);
    assert_eq!(report.final_stacks, run.summary.final_stacks);
    assert_eq!(report.hands, players.hands);
    assert_eq!(report.events, players.stats.events);

    let out = binary(&["verify", "--relay", &url, "--table", &run.table, "--json"]).await;
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
    assert_eq!(
        json["final_stacks"],
        serde_json::to_value(&players.final_stacks).expect("serialisable")
    );
    assert_eq!(
        json["hands"],
        serde_json::to_value(&players.hands).expect("serialisable")
    );

    // And it can say no: an unknown table is an error, from the library and from the binary.
    let unknown = "00".repeat(32);
    assert!(verify_table(std::slice::from_ref(&url), &unknown)
        .await
        .is_err());
    let out = binary(&["verify", "--relay", &url, "--table", &unknown, "--json"]).await;
    assert!(
        !out.status.success(),
        "verify of an unknown table must fail"
    );
}

async fn binary(args: &[&str]) -> std::process::Output {
    tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
            .args(args)
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
    /// By (hand, step), as a live spectator receives them.
    Play,
    /// Exactly backwards: everything waits in the session's buffer until the first event.
    Reversed,
}

/// What a spectator could see.
#[derive(Clone)]
struct Spectated {
    summaries: Vec<HandSummary>,
    events: u64,
    /// Deck count of each hand, from the spectator's views.
    decks: BTreeMap<u64, u8>,
    /// The public log, parsed: (author seat, payload).
    log: Vec<(Seat, Payload)>,
}

/// Fetches every event of the finished table from the relay and replays it in a session that
/// holds no seat, checking each view it passes through: a folded player's cards are never
/// visible, and nothing is visible that was not shown.
async fn spectate(url: &str, run: &DemoRun, order: Order) -> Spectated {
    let pool = RelayPool::connect(Keys::generate(), [url], PoolConfig::default())
        .await
        .expect("spectator connects");
    let spec = fetch_table(&pool, &run.host, &run.table, Duration::from_secs(10))
        .await
        .expect("the announcement is on the relay");
    let seats: Vec<PublicKey> = spec
        .seats
        .iter()
        .map(|s| PublicKey::from_hex(s).expect("seat key"))
        .collect();
    let events = pool
        .fetch(
            vec![wire::log_filter(&run.host, &run.table)],
            Duration::from_secs(10),
        )
        .await
        .expect("the log is on the relay");
    pool.shutdown().await;

    let mut log: Vec<(Seat, Payload, Event)> = events
        .into_iter()
        .map(|ev| {
            let p = wire::parse_log(&ev, &run.table).expect("every logged event parses");
            let seat = seats
                .iter()
                .position(|k| *k == ev.pubkey)
                .expect("every event is by a seated player") as Seat;
            (seat, p, ev)
        })
        .collect();
    log.sort_by_key(|(_, p, ev)| (p.hand, p.step, ev.id));
    if matches!(order, Order::Reversed) {
        log.reverse();
    }
    let host = run.host;
    tokio::task::spawn_blocking(move || {
        let mut s = Session::new(spec, host, None).expect("a spectator session");
        assert_eq!(s.me(), None);
        let mut decks = BTreeMap::new();
        for (seat, p, ev) in &log {
            let v = s.handle(ev);
            assert!(
                v.is_empty(),
                "spectator ({order:?}) rejects {seat}'s {:?}: {v:?}",
                p.body
            );
            let Some(view) = s.view() else { continue };
            assert_eq!(view.viewer, None);
            assert!(view.legal.is_empty(), "a spectator has no moves");
            decks.insert(view.hand_no, view.rules.decks);
            for pv in &view.players {
                if pv.folded {
                    assert!(
                        pv.cards.iter().all(Option::is_none) && pv.points.is_none(),
                        "hand {}: the spectator sees folded seat {}'s cards {:?}",
                        view.hand_no,
                        pv.seat,
                        pv.cards
                    );
                }
                // The spectator never learns a card before the showdown reveals it.
                assert!(
                    pv.cards.iter().all(Option::is_none),
                    "hand {} phase {:?}: the spectator sees seat {}'s cards {:?}",
                    view.hand_no,
                    view.phase,
                    pv.seat,
                    pv.cards
                );
            }
        }
        assert!(s.violations.is_empty(), "{:?}", s.violations);
        assert!(s.is_finished(), "the spectator ({order:?}) reaches the end");
        Spectated {
            summaries: s.hands.clone(),
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

/// Checks, on the public log, that no card which was not shown can be opened by anyone but its
/// owner: opening a card takes a token from every player, and the owner's token for its own
/// card is published only in a showdown `Show`. Returns (hands with a fold, uncontested hands).
fn check_unshown_cards_stay_private(
    seen: &Spectated,
    players: usize,
) -> Result<(usize, usize), String> {
    let mut with_fold = 0;
    let mut uncontested = 0;
    for summary in &seen.summaries {
        let hand = summary.hand;
        let n = summary.players.len();
        // Later hands may have fewer players: busted seats sit out.
        ensure!(
            n == players || (hand > 0 && (2..players).contains(&n)),
            "hand {hand} has {n} players at {players} seats"
        );
        let result = summary
            .result
            .as_ref()
            .ok_or(format!("hand {hand} has no result"))?;
        let in_hand = || seen.log.iter().filter(move |(_, p)| p.hand == hand);
        // Who folded, from their signed moves.
        let folded: BTreeSet<Seat> = in_hand()
            .filter(|(_, p)| {
                matches!(
                    p.body,
                    Body::Move {
                        action: Action::Fold,
                        ..
                    }
                )
            })
            .map(|(seat, _)| *seat)
            .collect();
        // Owner of each dealt position, and who published a private token for it.
        let mut owner: BTreeMap<u16, Seat> = BTreeMap::new();
        let mut private_tokens: BTreeMap<u16, BTreeSet<Seat>> = BTreeMap::new();
        // Positions each seat opened to everyone.
        let mut shown: BTreeMap<Seat, BTreeSet<u16>> = BTreeMap::new();
        for (seat, p) in in_hand() {
            match &p.body {
                Body::Tokens { tokens, .. } => {
                    for t in tokens {
                        let to =
                            t.to.ok_or(format!("hand {hand}: a deal token without recipient"))?;
                        ensure!(
                            to != *seat,
                            "hand {hand}: seat {seat} published its own card"
                        );
                        let prev = *owner.entry(t.position).or_insert(to);
                        ensure!(
                            prev == to,
                            "hand {hand}: position {} dealt twice",
                            t.position
                        );
                        ensure!(
                            private_tokens.entry(t.position).or_default().insert(*seat),
                            "hand {hand}: two tokens by seat {seat} for position {}",
                            t.position
                        );
                    }
                }
                Body::Show { tokens } => {
                    for t in tokens {
                        ensure!(
                            t.to.is_none(),
                            "hand {hand}: a showdown token with a recipient"
                        );
                        shown.entry(*seat).or_default().insert(t.position);
                    }
                }
                _ => {}
            }
        }
        ensure!(!owner.is_empty(), "hand {hand} dealt no cards");
        for (pos, to) in &owner {
            let senders = &private_tokens[pos];
            // Everyone but the owner: one token short of opening the card.
            ensure!(
                senders.len() == n - 1 && !senders.contains(to),
                "hand {hand} position {pos} of seat {to}: tokens from {senders:?}"
            );
            let opened = shown.get(to).is_some_and(|s| s.contains(pos));
            ensure!(
                !(opened && folded.contains(to)),
                "hand {hand}: folded seat {to} showed a card"
            );
        }
        for (seat, positions) in &shown {
            for pos in positions {
                ensure!(
                    owner.get(pos) == Some(seat),
                    "hand {hand}: seat {seat} showed position {pos}, not dealt to it"
                );
            }
        }
        let showdown: BTreeSet<Seat> = result.points.iter().map(|(s, _)| *s).collect();
        let showed: BTreeSet<Seat> = shown.keys().copied().collect();
        if result.uncontested {
            uncontested += 1;
            ensure!(
                showed.is_empty(),
                "hand {hand} was uncontested yet {showed:?} showed"
            );
            ensure!(
                showdown.is_empty(),
                "hand {hand}: an uncontested hand scored {showdown:?}"
            );
        } else {
            ensure!(
                showed == showdown,
                "hand {hand}: {showed:?} showed but {showdown:?} reached the showdown"
            );
        }
        ensure!(
            folded.is_disjoint(&showdown),
            "hand {hand}: folded {folded:?} scored {showdown:?}"
        );
        if !folded.is_empty() {
            with_fold += 1;
        }
    }
    Ok((with_fold, uncontested))
}

/// The log check is not vacuous: a doctored log where a folded seat shows a card, or where a
/// seat publishes the token for its own card, must fail it.
fn assert_privacy_check_can_fail(seen: &Spectated, players: usize) {
    let fails = |doctored: &Spectated| check_unshown_cards_stay_private(doctored, players).is_err();
    // A seat adds its own token to a deal batch.
    let mut own = seen.clone();
    let (i, seat, position) = own
        .log
        .iter()
        .enumerate()
        .find_map(|(i, (seat, p))| match &p.body {
            Body::Tokens { tokens, .. } => tokens.first().map(|t| (i, *seat, t.position)),
            _ => None,
        })
        .expect("a deal batch");
    if let Body::Tokens { tokens, .. } = &mut own.log[i].1.body {
        tokens.push(TokenMsg {
            position,
            to: Some(seat),
            token: String::new(),
        });
    }
    assert!(fails(&own), "a seat's own deal token must be caught");
    // A folded seat shows one of its cards.
    let mut leak = seen.clone();
    let (hand, folder, template) = seen
        .log
        .iter()
        .find(|(_, p)| {
            matches!(
                p.body,
                Body::Move {
                    action: Action::Fold,
                    ..
                }
            )
        })
        .map(|(seat, p)| (p.hand, *seat, p.clone()))
        .expect("someone folded");
    let position = seen
        .log
        .iter()
        .filter(|(_, p)| p.hand == hand)
        .find_map(|(_, p)| match &p.body {
            Body::Tokens { tokens, .. } => tokens
                .iter()
                .find(|t| t.to == Some(folder))
                .map(|t| t.position),
            _ => None,
        })
        .expect("the folder was dealt cards");
    leak.log.push((
        folder,
        Payload {
            body: Body::Show {
                tokens: vec![TokenMsg {
                    position,
                    to: None,
                    token: String::new(),
                }],
            },
            ..template
        },
    ));
    assert!(fails(&leak), "a folded seat's shown card must be caught");
}

/// Seat 0 checks when it can and folds when it must call: it folds in every hand where it faces
/// a bet, so the spectator tests see folded players (and uncontested hands at two seats) for
/// certain, not by chance.
fn check_folder() -> Decider {
    let (ask, mut asked) = tokio::sync::mpsc::unbounded_channel::<(
        tolerance::games::tolerance::HandView,
        Vec<Action>,
    )>();
    let (answer_tx, answer) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some((_, legal)) = asked.recv().await {
            let pick = [Action::Fold, Action::Check, Action::Pass]
                .into_iter()
                .find(|a| legal.contains(a))
                .unwrap_or_else(|| legal[0]);
            if answer_tx.send(pick).is_err() {
                return;
            }
        }
    });
    Decider::Human { ask, answer }
}

async fn spectator_case(seats: u8, hands: u64) -> (usize, usize) {
    let relay = embedded().await;
    let mut opts = options(seats, hands, vec![relay.url().to_string()]);
    opts.human = Some(check_folder());
    let run = play(&format!("spectator, {seats} seats"), opts).await;
    assert_sound(&run, seats, hands);
    let players = run.reports[0].as_ref().expect("checked");

    let live = spectate(relay.url().as_str(), &run, Order::Play).await;
    assert_eq!(
        live.summaries, players.hands,
        "the spectator agrees with the players"
    );
    assert_eq!(
        live.events, players.stats.events,
        "the spectator saw every event"
    );
    let counts =
        check_unshown_cards_stay_private(&live, seats as usize).unwrap_or_else(|e| panic!("{e}"));
    assert_privacy_check_can_fail(&live, seats as usize);

    let late = spectate(relay.url().as_str(), &run, Order::Reversed).await;
    assert_eq!(
        late.summaries, players.hands,
        "arrival order does not matter"
    );
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
