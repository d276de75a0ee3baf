//! Perudo and Mia over a real relay on the one table runtime: every seat its own key, connection,
//! session and dice secret; a spectator that only reads the relay's public events and can compute
//! no die of any cup before the challenge that opens it; a seat that refuses to open its cup; a
//! seat that signs two moves for one turn.

use crate::common::public_log;
use nostr_sdk::prelude::*;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tolerance::engine::Seat;
use tolerance::games::mia::Mia;
use tolerance::games::perudo::{self, Perudo};
use tolerance::games::registry::SetupOptions;
use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use tolerance::table::demo::{run_demo, DemoOptions, DemoRun};
use tolerance::table::runner::{table_game, Tamper, TamperAction};
use tolerance::table::{Session, Verdict, Violation};
use tolerance::wire::log::{log_event, Body, Payload};
use tolerance::wire::Deadlines;

/// One table at a time: short deadlines, and two cores.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn opts(players: u8, relays: Vec<String>) -> DemoOptions {
    DemoOptions {
        setup: SetupOptions {
            players,
            ..SetupOptions::default()
        },
        relays,
        deadlines: Deadlines {
            move_ms: 3_000,
            crypto_ms: 3_000,
            // No bank: these tests time seats out and count on the plain allowance.
            bank_ms: 0,
            relay_ms: 2_000,
            return_ms: 0,
        },
        idle: Duration::from_secs(60),
        ..DemoOptions::default()
    }
}

/// Every client finished, saw no violation and agrees with every other on the public game, which
/// has a winner.
fn all_agree(run: &DemoRun) {
    crate::common::clients_agree(run);
    let first = run.reports[0].as_ref().expect("client 0 ran");
    assert!(first.report["winner"].is_u64(), "{}", first.report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_seat_perudo_and_three_seat_mia_play_to_the_end() {
    let _serial = SERIAL.lock().await;
    let run = run_demo::<Perudo>(opts(4, Vec::new()), None, None)
        .await
        .unwrap();
    all_agree(&run);
    let rounds = run.summary.report["rounds"].as_u64().unwrap();
    // Every round but the last costs one die: 4 x 5 dice, one winner's dice left.
    assert!(rounds >= 15, "{rounds} rounds");
    eprintln!(
        "perudo 4 seats: {rounds} rounds, {} events, {} passes, {} ms",
        run.summary.events, run.summary.passes, run.summary.wall_ms
    );
    let run = run_demo::<Mia>(opts(3, Vec::new()), None, None)
        .await
        .unwrap();
    all_agree(&run);
    eprintln!(
        "mia 3 seats: {} events, {} passes, {} ms",
        run.summary.events, run.summary.passes, run.summary.wall_ms
    );
}

/// From version 8 a dudo's batch opens the cups and rolls the next round's: over a relay, every
/// table of this build rolls in one pass per round fewer than a version 7 table, which this build
/// still plays (and a later verify judges) as it was played, rolls after the count. Counted on
/// the relay's events: the steps that carry dice values against the dudos said. Mia's tables of
/// both versions play to a verified end too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dice_games_roll_the_next_cups_with_the_opening_from_version_8_and_version_7_plays_as_before(
) {
    let _serial = SERIAL.lock().await;
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    for version in [7, 8] {
        let mut o = opts(3, vec![url.clone()]);
        o.version = version;
        let run = run_demo::<Perudo>(o, None, None).await.unwrap();
        all_agree(&run);
        let (log, spec, _) = public_log(&url, &run).await;
        assert_eq!(spec.v, version);
        let dudos = log.iter().filter(|(_, p, _)| is_dudo(p)).count();
        let mut dice_steps: Vec<u32> = log
            .iter()
            .filter(|(_, p, _)| matches!(&p.body, Body::Reveal { dice, .. } if !dice.is_empty()))
            .map(|(_, p, _)| p.step)
            .collect();
        dice_steps.dedup();
        // A roll of its own right after an opening: two dice steps in a row.
        let own_rolls = dice_steps.windows(2).filter(|w| w[1] == w[0] + 1).count();
        // The first cups, then per dudo the opening and, but after the last, a roll of its own
        // (version 7); or the opening with the next cups, but for counts that could have ended
        // the game and did not (two players left, one on its last die), which roll after it
        // (version 8).
        let expected = if version >= 8 {
            1 + dudos + own_rolls
        } else {
            2 * dudos
        };
        assert_eq!(
            dice_steps.len(),
            expected,
            "version {version}: {dudos} dudos, dice at steps {dice_steps:?}"
        );
        if version >= 8 {
            assert!(
                own_rolls + 4 <= dudos,
                "version {version}: {own_rolls} rolls of their own in {dudos} rounds"
            );
        } else {
            assert_eq!(own_rolls, dudos - 1);
        }
        let rounds = run.summary.report["rounds"].as_u64().unwrap();
        eprintln!(
            "perudo 3 seats, version {version}: {rounds} rounds, {} passes ({:.2} a round)",
            run.summary.passes,
            run.summary.passes as f64 / rounds as f64
        );
        // Mia's next first cup likewise: both versions play to one verified end.
        let mut o = opts(3, vec![url.clone()]);
        o.version = version;
        let run = run_demo::<Mia>(o, None, None).await.unwrap();
        all_agree(&run);
        let (_, spec, _) = public_log(&url, &run).await;
        assert_eq!(spec.v, version);
    }
}

/// The slot each public dice value is for: the first four bytes of its reveal.
fn slot_of(reveal: &str) -> u32 {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(reveal)
        .expect("a base64 dice value");
    u32::from_be_bytes(bytes[..4].try_into().unwrap())
}

fn is_dudo(p: &Payload) -> bool {
    matches!(&p.body, Body::Move { action, .. } if *action == serde_json::json!("dudo"))
}

/// On the public log alone: a die of a private roll is a function of every dice-epoch member's
/// value for its slot, and the owner's own value is the one that keeps it private. So for every
/// slot whose values do not all come at once (a cup, not a public roll), the value that comes
/// last (the owner's) must follow a "dudo" that came after all the others — never while the
/// round is being bid — and there must be exactly as many such cups as the game opened
/// (`opened`), so that no cup hides among the public rolls.
fn check_cups_open_only_at_a_challenge(
    log: &[(Seat, Payload)],
    opened: usize,
) -> Result<usize, String> {
    // (epoch = the set-up step that committed the values, slot) -> seat -> first step.
    let mut epoch = 0u32;
    let mut values: BTreeMap<(u32, u32), BTreeMap<Seat, u32>> = BTreeMap::new();
    let mut dudos: Vec<u32> = Vec::new();
    for (seat, p) in log {
        match &p.body {
            Body::Setup { .. } => epoch = p.step,
            Body::Shuffle { dice, .. } | Body::Reveal { dice, .. } => {
                for d in dice {
                    let first = values
                        .entry((epoch, slot_of(d)))
                        .or_default()
                        .entry(*seat)
                        .or_insert(p.step);
                    *first = (*first).min(p.step);
                }
            }
            _ if is_dudo(p) => dudos.push(p.step),
            _ => {}
        }
    }
    let mut cups = 0;
    for ((e, slot), by) in &values {
        let last = *by.values().max().unwrap();
        let Some(others) = by.values().copied().filter(|s| *s < last).max() else {
            // Every value in one step: a public roll.
            continue;
        };
        cups += 1;
        let owner: Vec<&Seat> = by
            .iter()
            .filter(|(_, s)| **s == last)
            .map(|(o, _)| o)
            .collect();
        if owner.len() != 1 {
            return Err(format!("epoch {e} slot {slot}: {owner:?} all came last"));
        }
        if !dudos.iter().any(|d| *d > others && *d < last) {
            return Err(format!(
                "epoch {e} slot {slot}: seat {}'s value came at step {last} with no challenge \
                 since the others' (step {others}): its dice were public before a dudo",
                owner[0]
            ));
        }
    }
    if cups != opened {
        return Err(format!(
            "{cups} cups opened on the log, {opened} opened by the game: a cup's dice were \
             public from the start"
        ));
    }
    Ok(cups)
}

/// For a whole 4-seat Perudo game: a spectator fed the relay's events one by one never holds a
/// die of a cup the game has not opened (its engine state, not only its view), and the public
/// log shows every cup's last value arriving only after a dudo. The log check is shown to fail
/// on a doctored log where one owner's value is moved before the challenge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_cannot_compute_any_die_before_its_challenge() {
    let _serial = SERIAL.lock().await;
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    let run = run_demo::<Perudo>(opts(4, vec![url.clone()]), None, None)
        .await
        .unwrap();
    all_agree(&run);
    let (log, spec, start) = public_log(&url, &run).await;
    let (cfg, game) = table_game::<Perudo>(&spec, start).unwrap();
    let mut s = Session::new(cfg, game, None).unwrap();
    let mut opened_seen = 0;
    for (_, _, e) in &log {
        assert!(s.handle(e).is_empty());
        let g = s.game();
        // The cups this round's challenge has opened, from the game's public record.
        let since_round = g
            .log
            .iter()
            .rposition(|l| matches!(l, perudo::LogEntry::Round { .. }))
            .map_or(0, |i| i + 1);
        let shown: Vec<Seat> = g.log[since_round..]
            .iter()
            .filter_map(|l| match l {
                perudo::LogEntry::Shown { seat, .. } => Some(*seat),
                _ => None,
            })
            .collect();
        for p in &g.players {
            if p.dice.is_some() {
                assert!(
                    shown.contains(&p.seat),
                    "round {}: the spectator knows seat {}'s cup before it was opened",
                    g.round,
                    p.seat
                );
                opened_seen += 1;
            }
        }
    }
    assert!(s.is_finished() && s.violations.is_empty());
    assert!(opened_seen > 0, "cups were opened at challenges");
    let public: Vec<(Seat, Payload)> = log.iter().map(|(s, p, _)| (*s, p.clone())).collect();
    let opened = s
        .game()
        .log
        .iter()
        .filter(|l| matches!(l, perudo::LogEntry::Shown { .. }))
        .count();
    let cups =
        check_cups_open_only_at_a_challenge(&public, opened).unwrap_or_else(|e| panic!("{e}"));
    let rounds = run.summary.report["rounds"].as_u64().unwrap() as usize;
    assert!(cups >= 2 * rounds, "{cups} cups in {rounds} rounds");

    // Not vacuous: one cup's owner publishes its value in the step where the others published
    // theirs, so the cup is public while the round is bid.
    let (owner_at, owner) = public
        .iter()
        .enumerate()
        .find_map(|(i, (seat, p))| {
            let prev_dudo = public[..i].iter().any(|(_, q)| is_dudo(q));
            (prev_dudo && matches!(&p.body, Body::Reveal { dice, .. } if !dice.is_empty()))
                .then_some((i, *seat))
        })
        .expect("a cup opened after a dudo");
    let Body::Reveal { dice, .. } = &public[owner_at].1.body else {
        unreachable!()
    };
    let slot = slot_of(&dice[0]);
    // The step where the other seats gave that slot's values.
    let early = public
        .iter()
        .find(|(seat, p)| {
            *seat != owner
                && matches!(&p.body, Body::Reveal { dice, .. } | Body::Shuffle { dice, .. }
                    if dice.iter().any(|d| slot_of(d) == slot))
        })
        .map(|(_, p)| p.step)
        .expect("the others' values");
    let mut doctored = public.clone();
    let mut leaked = doctored[owner_at].1.clone();
    leaked.step = early;
    doctored.push((owner, leaked));
    doctored.sort_by_key(|(_, p)| p.step);
    assert!(
        check_cups_open_only_at_a_challenge(&doctored, opened).is_err(),
        "an owner's value published with the others' must be caught"
    );
}

/// Tampers from the `after`-th matching payload on.
fn from_nth(mut pick: impl FnMut(&Payload) -> bool + Send + 'static, after: usize) -> Tamper {
    let mut seen = 0;
    Box::new(move |p: &mut Payload| {
        if pick(p) {
            seen += 1;
            if seen > after {
                return TamperAction::Drop;
            }
        }
        TamperAction::Send
    })
}

/// The honest clients (all but `cheater`) agree with each other and with a late verifier.
fn honest_agree(run: &DemoRun, cheater: usize) {
    let honest: Vec<_> = run
        .reports
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != cheater)
        .map(|(i, r)| r.as_ref().unwrap_or_else(|e| panic!("client {i}: {e}")))
        .collect();
    for r in &honest {
        assert!(r.finished, "{r:?}");
        assert_eq!(r.public, honest[0].public);
        assert_eq!(r.verdicts, honest[0].verdicts);
        assert_eq!(r.report, honest[0].report);
    }
}

fn removed(run: &DemoRun) -> Vec<Vec<Seat>> {
    run.reports
        .iter()
        .map(|r| {
            r.as_ref()
                .unwrap()
                .verdicts
                .iter()
                .filter_map(|v| match v {
                    Verdict::Removed { seats, .. } => Some(seats.clone()),
                    _ => None,
                })
                .flatten()
                .collect()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_that_refuses_to_open_its_cup_is_removed_by_every_client() {
    let _serial = SERIAL.lock().await;
    // Seat 1 publishes its first round's values (its cup is rolled), then, having bid, withholds
    // every value after: the opening of its cup at the first dudo.
    let moved = Arc::new(Mutex::new(false));
    let m = moved.clone();
    let mut o = opts(4, Vec::new());
    o.tamper = (0..4).map(|_| None).collect();
    o.tamper[1] = Some(from_nth(
        move |p| {
            if matches!(p.body, Body::Move { .. }) {
                *m.lock().unwrap() = true;
            }
            *m.lock().unwrap() && matches!(&p.body, Body::Reveal { dice, .. } if !dice.is_empty())
        },
        0,
    ));
    let run = run_demo::<Perudo>(o, None, None).await.unwrap();
    assert!(*moved.lock().unwrap(), "seat 1 bid before refusing");
    honest_agree(&run, 1);
    for (i, r) in removed(&run).iter().enumerate().filter(|(i, _)| *i != 1) {
        assert_eq!(r, &vec![1], "client {i} removed {r:?}");
    }
    assert_eq!(run.summary.report["forfeited"], serde_json::json!([1]));
    // Nobody else is blamed for anything.
    for (i, r) in run.reports.iter().enumerate() {
        if i != 1 {
            assert!(r.as_ref().unwrap().violations.is_empty());
        }
    }
}

/// Seat 2 signs two different moves for its first turn. Every honest client reports the fork,
/// the table removes seat 2, and an evidence event on the relay carries both signed events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_that_signs_two_moves_for_one_turn_is_reported_and_removed() {
    let _serial = SERIAL.lock().await;
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    let keys: Vec<Keys> = (0..3).map(|_| Keys::generate()).collect();
    let cheat = keys[2].clone();
    let host = keys[0].public_key();
    let mut o = opts(3, vec![url.clone()]);
    o.keys = keys.clone();
    o.tamper = (0..3).map(|_| None).collect();
    let mut done = false;
    o.tamper[2] = Some(Box::new(move |p: &mut Payload| {
        let Body::Move { action, .. } = &p.body else {
            return TamperAction::Send;
        };
        if done {
            return TamperAction::Send;
        }
        done = true;
        let other = if *action == serde_json::json!("challenge") {
            serde_json::json!("pass")
        } else {
            serde_json::json!("challenge")
        };
        let mut twin = p.clone();
        twin.body = Body::Move {
            action: other,
            tokens: Vec::new(),
        };
        let ev = log_event(&host, &twin).sign_with_keys(&cheat).unwrap();
        TamperAction::SendAlso(Box::new(ev))
    }));
    let run = run_demo::<Mia>(o, None, None).await.unwrap();
    honest_agree(&run, 2);
    for (i, r) in run.reports.iter().enumerate().filter(|(i, _)| *i != 2) {
        let r = r.as_ref().unwrap();
        assert!(
            r.violations
                .iter()
                .any(|v| matches!(v, Violation::Fork { seat: 2, .. })),
            "seat {i} reported no fork: {:?}",
            r.violations
        );
    }
    // Removed — or, when every other seat had already built on the first of the two events
    // before the second arrived, the fork is recorded (the violation, checked above) and
    // changes nobody's view. Either way every honest client decides the same.
    let first = run.reports[0].as_ref().unwrap().verdicts.clone();
    for (i, r) in run.reports.iter().enumerate().filter(|(i, _)| *i != 2) {
        assert_eq!(r.as_ref().unwrap().verdicts, first, "client {i}");
    }
    // The evidence is on the relay, by an honest seat, with both of seat 2's events.
    let (log, _, _) = public_log(&url, &run).await;
    let evidence: Vec<(Seat, Vec<String>)> = log
        .iter()
        .filter_map(|(s, p, _)| match &p.body {
            Body::Evidence {
                offender: 2,
                events,
                ..
            } => Some((*s, events.clone())),
            _ => None,
        })
        .collect();
    assert!(
        evidence.iter().any(|(a, _)| *a != 2),
        "no honest seat published evidence"
    );
    for (_, events) in &evidence {
        let evs: Vec<Event> = events
            .iter()
            .filter_map(|j| Event::from_json(j).ok())
            .collect();
        if evs.len() == 2 {
            assert!(evs
                .iter()
                .all(|e| e.verify().is_ok() && e.pubkey == keys[2].public_key()));
            assert_ne!(evs[0].id, evs[1].id);
        }
    }
}
