//! Perudo and Mia over the embedded relay: every seat its own key, connection, replica and dice
//! secret; a spectator that only reads public events; a seat that refuses to open its cup.

use nostr_sdk::prelude::{Event, Keys, PublicKey};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tolerance::bots::dice::{MiaBot, PerudoBot};
use tolerance::bots::Bot;
use tolerance::engine::Game;
use tolerance::fair::dice::{
    missing_seats, open_private_roll, verify_reveal, DiceCommitment, DiceReveal, DiceSecret, Roll,
    VerifiedValue,
};
use tolerance::games::{mia, perudo};
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig, RelayPool};
use tolerance::table::dice_chance::{DiceClient, SLOTS};
use tolerance::table::dice_net::{
    self, DiceBody, DiceEnd, DiceEvent, DiceRun, Participant, RunConfig, SessionError, Tamper,
};

struct Outcome<G> {
    seats: Vec<Result<DiceRun<G>, SessionError>>,
    spectator: Result<DiceRun<G>, SessionError>,
    keys: Vec<PublicKey>,
    wall: Duration,
    /// Every event of the table the relay stored, votes and evidence included.
    relay_events: Vec<Event>,
    /// A spectator that came after the end and read the relay's stored events.
    verifier: Result<DiceRun<G>, SessionError>,
}

/// Runs one game with a bot per seat and a spectator; seat `refuse_open` never opens its cup.
async fn play<G: Game + Send + Sync + 'static>(
    game: G,
    bots: Vec<Box<dyn Bot<G>>>,
    table: [u8; 32],
    deadline: Duration,
    refuse_open: Option<u16>,
) -> Outcome<G>
where
    G::Action: Send + Sync,
    G::View: Send + Sync,
{
    play_tampered(game, bots, table, deadline, refuse_open, None).await
}

/// [`play`], with seat `tamper.0` signing what its hook adds.
async fn play_tampered<G: Game + Send + Sync + 'static>(
    game: G,
    bots: Vec<Box<dyn Bot<G>>>,
    table: [u8; 32],
    deadline: Duration,
    refuse_open: Option<u16>,
    mut tamper: Option<(u16, Tamper)>,
) -> Outcome<G>
where
    G::Action: Send + Sync,
    G::View: Send + Sync,
{
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    let n = bots.len() as u16;
    let keys: Vec<Keys> = (0..n).map(|_| Keys::generate()).collect();
    let pubs: Vec<PublicKey> = keys.iter().map(|k| k.public_key()).collect();
    let mut rng = ChaCha20Rng::seed_from_u64(u64::from(table[0]));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for (i, (k, bot)) in keys.into_iter().zip(bots).enumerate() {
        let i = i as u16;
        let ctx = DiceClient::context(table, 1, i, pubs[i as usize].to_bytes());
        let secret = DiceSecret::generate(&mut rng, &ctx, SLOTS).unwrap();
        let pool = RelayPool::connect(k, [url.clone()], PoolConfig::default())
            .await
            .unwrap();
        let (g, pubs) = (game.clone(), pubs.clone());
        let me = Participant {
            me: Some((i, secret)),
            bot: Some(bot),
            refuse_to_open: refuse_open == Some(i),
            observer: None,
        };
        let mut cfg = RunConfig::new(deadline);
        if tamper.as_ref().is_some_and(|(s, _)| *s == i) {
            cfg.tamper = tamper.take().map(|(_, t)| t);
        }
        tasks.push(tokio::spawn(async move {
            let r = dice_net::run_with(&pool, table, pubs, g, me, cfg).await;
            pool.shutdown().await;
            r
        }));
    }
    let spool = RelayPool::connect(Keys::generate(), [url], PoolConfig::default())
        .await
        .unwrap();
    let game_again = game.clone();
    let spectator = dice_net::run(
        &spool,
        table,
        pubs.clone(),
        game,
        Participant {
            me: None,
            bot: None,
            refuse_to_open: false,
            observer: None,
        },
        deadline,
    )
    .await;
    let mut seats = Vec::new();
    for t in tasks {
        seats.push(t.await.unwrap());
    }
    let wall = start.elapsed();
    let relay_events = spool
        .fetch(vec![dice_net::filter(&table)], Duration::from_secs(5))
        .await
        .unwrap();
    // Afterwards, as `verify` does: a new spectator replays what the relay stored.
    let mut cfg = RunConfig::new(deadline);
    cfg.idle = Duration::from_secs(3);
    let verifier = dice_net::run_with(
        &spool,
        table,
        pubs.clone(),
        game_again,
        Participant {
            me: None,
            bot: None,
            refuse_to_open: false,
            observer: None,
        },
        cfg,
    )
    .await;
    spool.shutdown().await;
    relay.shutdown().await;
    Outcome {
        seats,
        spectator,
        keys: pubs,
        wall,
        relay_events,
        verifier,
    }
}

/// The late replay from the relay reaches the spectator's end and game.
fn check_verifier<G: Game>(o: &Outcome<G>) {
    let spectator = o.spectator.as_ref().unwrap();
    let v = o.verifier.as_ref().expect("the replay from the relay ends");
    assert_eq!(v.end, spectator.end);
    assert_eq!(v.game.view(None), spectator.game.view(None));
}

fn check_all_agree<G: Game>(o: &Outcome<G>) -> (u32, u32) {
    let spectator = o.spectator.as_ref().unwrap();
    let outcome = spectator.game.outcome().expect("the spectator saw the end");
    assert_eq!(
        spectator.end,
        DiceEnd::Finished {
            unconfirmed: vec![]
        }
    );
    check_verifier(o);
    for (i, r) in o.seats.iter().enumerate() {
        let r = r.as_ref().unwrap_or_else(|e| panic!("seat {i}: {e}"));
        assert_eq!(r.game.outcome().as_ref(), Some(&outcome), "seat {i}");
        assert_eq!(r.game.view(None), spectator.game.view(None), "seat {i}");
        assert_eq!(r.end, spectator.end, "seat {i}");
        assert!(r.violations.is_empty(), "seat {i}: {:?}", r.violations);
    }
    (spectator.batches, spectator.moves)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_seat_perudo_over_the_relay_to_the_end() {
    let game = perudo::Perudo::new(&perudo::Setup::standard(4)).unwrap();
    let bots: Vec<Box<dyn Bot<perudo::Perudo>>> = (0..4)
        .map(|i| Box::new(PerudoBot::new(StdRng::seed_from_u64(i))) as Box<_>)
        .collect();
    let o = play(game, bots, [1; 32], Duration::from_secs(10), None).await;
    let (batches, moves) = check_all_agree(&o);
    let end = &o.spectator.as_ref().unwrap().game;
    println!(
        "perudo 4 seats: {} rounds, {batches} chance batches (relay hops), {moves} moves, {:?} wall, \
         {:?} per round",
        end.round,
        o.wall,
        o.wall / end.round
    );
    assert_eq!(end.round as u16, 20 - end.total_dice());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_seat_mia_over_the_relay_to_the_end() {
    let game = mia::Mia::new(&mia::Setup::standard(3, mia::Ranking::Traditional)).unwrap();
    let bots: Vec<Box<dyn Bot<mia::Mia>>> = (0..3)
        .map(|i| Box::new(MiaBot::new(StdRng::seed_from_u64(i))) as Box<_>)
        .collect();
    let o = play(game, bots, [2; 32], Duration::from_secs(10), None).await;
    let (batches, moves) = check_all_agree(&o);
    println!(
        "mia 3 seats: {batches} chance batches (relay hops), {moves} moves (turns), {:?} wall, \
         {:?} per turn",
        o.wall,
        o.wall / moves.max(1)
    );
}

/// For every round of a whole game: from exactly the events a spectator holds before that
/// round's "dudo", no die of any cup can be computed — each owner's own value for its slot is
/// never among them, and the dice need it — and once the cups are opened, the dice computed from
/// the public events are the ones the game showed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_cannot_compute_any_die_before_any_challenge() {
    let n = 4u16;
    let game = perudo::Perudo::new(&perudo::Setup::standard(n as u8)).unwrap();
    let bots: Vec<Box<dyn Bot<perudo::Perudo>>> = (0..n)
        .map(|i| Box::new(PerudoBot::new(StdRng::seed_from_u64(10 + u64::from(i)))) as Box<_>)
        .collect();
    let table = [3; 32];
    let o = play(game, bots, table, Duration::from_secs(10), None).await;
    check_all_agree(&o);
    let spectator = o.spectator.as_ref().unwrap();
    let events: &[Event] = &spectator.events;
    let body = |e: &Event| serde_json::from_str::<DiceEvent>(&e.content).unwrap().body;
    // The relay holds no dice the spectator did not take in: every reveal is in its log.
    for e in &o.relay_events {
        if matches!(body(e), DiceBody::Reveals { .. }) {
            assert!(
                events.iter().any(|x| x.id == e.id),
                "reveal {} not in the log",
                e.id
            );
        }
    }
    let author = |e: &Event| o.keys.iter().position(|k| *k == e.pubkey).unwrap() as u16;
    let ctx = |s: u16| DiceClient::context(table, 1, s, o.keys[s as usize].to_bytes());
    let mut commitments = BTreeMap::new();
    for e in events {
        if let DiceBody::Commit { commitment } = body(e) {
            let bytes = tolerance::fair::from_base64("c", &commitment).unwrap();
            commitments.insert(author(e), DiceCommitment::from_bytes(&bytes).unwrap());
        }
    }
    // What the game showed at each opening, round by round.
    let mut shown: Vec<BTreeMap<u16, Vec<u8>>> = Vec::new();
    for entry in &spectator.game.log {
        match entry {
            perudo::LogEntry::Dudo { .. } => shown.push(BTreeMap::new()),
            perudo::LogEntry::Shown { seat, dice } => {
                shown
                    .last_mut()
                    .unwrap()
                    .insert(u16::from(*seat), dice.clone());
            }
            _ => {}
        }
    }
    let values_in = |prefix: &[Event]| -> Vec<VerifiedValue> {
        let mut out = Vec::new();
        for e in prefix {
            if let DiceBody::Reveals { reveals, .. } = body(e) {
                let s = author(e);
                for r in reveals {
                    let r = DiceReveal::from_base64(&r, 14).unwrap();
                    out.push(verify_reveal(&ctx(s), &commitments[&s], &r).unwrap());
                }
            }
        }
        out
    };
    let dudos: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(body(e), DiceBody::Move { action, .. } if action == serde_json::json!("dudo")))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(dudos.len(), shown.len(), "one opening per dudo");
    assert!(dudos.len() >= 3, "a whole game has several rounds");
    for (round, &k) in dudos.iter().enumerate() {
        let before = values_in(&events[..k]);
        // The round's cups were rolled in the last batch before its dudo.
        let batch = events[..k]
            .iter()
            .filter_map(|e| match body(e) {
                DiceBody::Reveals { batch, .. } => Some(batch),
                _ => None,
            })
            .max()
            .unwrap();
        let next = dudos.get(round + 1).copied().unwrap_or(events.len());
        let after = values_in(&events[..next]);
        let mut cups = 0;
        for owner in 0..n {
            let slot = batch * u32::from(n + 1) + u32::from(owner);
            let public: Vec<VerifiedValue> = before
                .iter()
                .copied()
                .filter(|v| v.slot() == slot)
                .collect();
            let Some(dice) = shown[round].get(&owner) else {
                assert!(public.is_empty(), "round {round}: seat {owner} has no cup");
                continue;
            };
            cups += 1;
            assert!(
                public.iter().all(|v| v.seat() != owner),
                "round {round}: seat {owner} revealed its own private slot before the challenge"
            );
            assert_eq!(
                public.len(),
                usize::from(n - 1),
                "round {round}: the other seats' shares"
            );
            let roll = Roll {
                table,
                hand: 1,
                slot,
                seats: n,
                owner: Some(owner),
                sides: 6,
                count: dice.len() as u8,
            };
            assert_eq!(missing_seats(&roll, &public), Vec::<u16>::new());
            assert!(
                open_private_roll(&roll, &public).is_err(),
                "round {round}: seat {owner}'s dice were computable from public events"
            );
            // After the opening, the public events give exactly the dice the game showed.
            let opened: Vec<VerifiedValue> =
                after.iter().copied().filter(|v| v.slot() == slot).collect();
            let mut got = open_private_roll(&roll, &opened).unwrap();
            let mut want = dice.clone();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "round {round}: seat {owner}'s opened dice");
        }
        assert!(cups >= 2, "round {round} had {cups} cups");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_that_refuses_to_open_its_cup_is_named_for_its_forfeit() {
    // Perudo's first dudo opens every cup, so seat 1's refusal is always reached. The others
    // vote it out after their deadline; every client, the spectator included, ends the table at
    // the same step naming seat 1.
    let game = perudo::Perudo::new(&perudo::Setup::standard(4)).unwrap();
    let bots: Vec<Box<dyn Bot<perudo::Perudo>>> = (0..4)
        .map(|i| Box::new(PerudoBot::new(StdRng::seed_from_u64(i))) as Box<_>)
        .collect();
    let o = play(game, bots, [4; 32], Duration::from_secs(2), Some(1)).await;
    let spectator = o.spectator.as_ref().expect("the spectator saw the end");
    let DiceEnd::Forfeit { seats, .. } = &spectator.end else {
        panic!("expected seat 1's forfeit, got {:?}", spectator.end);
    };
    assert_eq!(seats, &vec![1]);
    check_verifier(&o);
    for (i, r) in o.seats.iter().enumerate() {
        let r = r.as_ref().unwrap_or_else(|e| panic!("seat {i}: {e}"));
        assert_eq!(r.end, spectator.end, "seat {i}");
        assert_eq!(r.game.view(None), spectator.game.view(None), "seat {i}");
    }
}

/// Seat 2 signs two different moves for its first turn. Every client reports the fork, the
/// table ends naming seat 2, and an evidence event on the relay carries both signed events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_that_signs_two_moves_for_one_turn_is_reported_and_forfeits() {
    let game = mia::Mia::new(&mia::Setup::standard(3, mia::Ranking::Traditional)).unwrap();
    let bots: Vec<Box<dyn Bot<mia::Mia>>> = (0..3)
        .map(|i| Box::new(MiaBot::new(StdRng::seed_from_u64(i))) as Box<_>)
        .collect();
    let mut forked = false;
    let tamper: Tamper = Box::new(move |b: &DiceBody| match b {
        DiceBody::Move {
            step,
            n,
            prev,
            action,
        } if !forked => {
            forked = true;
            let other = if *action == serde_json::json!("challenge") {
                serde_json::json!("pass")
            } else {
                serde_json::json!("challenge")
            };
            Some(DiceBody::Move {
                step: *step,
                n: *n,
                prev: prev.clone(),
                action: other,
            })
        }
        _ => None,
    });
    let table = [5; 32];
    let o = play_tampered(
        game,
        bots,
        table,
        Duration::from_secs(5),
        None,
        Some((2, tamper)),
    )
    .await;
    let spectator = o.spectator.as_ref().expect("the spectator saw the end");
    let DiceEnd::Forfeit {
        seats,
        step,
        reason,
    } = &spectator.end
    else {
        panic!("expected seat 2's forfeit, got {:?}", spectator.end);
    };
    assert_eq!(seats, &vec![2]);
    assert!(reason.contains("two different events"), "{reason}");
    check_verifier(&o);
    for (i, r) in o.seats.iter().enumerate() {
        let r = r.as_ref().unwrap_or_else(|e| panic!("seat {i}: {e}"));
        assert_eq!(r.end, spectator.end, "seat {i}");
        assert!(
            r.violations.iter().any(|v| matches!(v, tolerance::table::Violation::Fork { seat: 2, step: s, .. } if s == step)),
            "seat {i} reported no fork: {:?}",
            r.violations
        );
    }
    // The evidence is on the relay, by an honest seat, with both of seat 2's events.
    let evidence: Vec<(usize, Vec<String>)> = o
        .relay_events
        .iter()
        .filter_map(|e| {
            let author = o.keys.iter().position(|k| *k == e.pubkey)?;
            match serde_json::from_str::<DiceEvent>(&e.content).ok()?.body {
                DiceBody::Evidence {
                    offender: 2,
                    events,
                    ..
                } => Some((author, events)),
                _ => None,
            }
        })
        .collect();
    assert!(
        evidence.iter().any(|(a, _)| *a != 2),
        "no honest seat published evidence"
    );
    for (_, events) in &evidence {
        let evs: Vec<Event> = events
            .iter()
            .map(|j| <Event as nostr_sdk::JsonUtil>::from_json(j).unwrap())
            .collect();
        assert_eq!(evs.len(), 2);
        assert!(evs
            .iter()
            .all(|e| e.verify().is_ok() && e.pubkey == o.keys[2]));
        assert_ne!(evs[0].id, evs[1].id);
    }
}
