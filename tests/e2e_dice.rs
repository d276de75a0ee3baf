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
use tolerance::table::dice_net::{self, DiceBody, DiceEvent, DiceRun, Participant, SessionError};

struct Outcome<G> {
    seats: Vec<Result<DiceRun<G>, SessionError>>,
    spectator: Result<DiceRun<G>, SessionError>,
    keys: Vec<PublicKey>,
    wall: Duration,
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
        tasks.push(tokio::spawn(async move {
            let r = dice_net::run(&pool, table, pubs, g, me, deadline).await;
            pool.shutdown().await;
            r
        }));
    }
    let spool = RelayPool::connect(Keys::generate(), [url], PoolConfig::default())
        .await
        .unwrap();
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
    spool.shutdown().await;
    relay.shutdown().await;
    Outcome {
        seats,
        spectator,
        keys: pubs,
        wall,
    }
}

fn check_all_agree<G: Game>(o: &Outcome<G>) -> (u32, u32) {
    let spectator = o.spectator.as_ref().unwrap();
    let outcome = spectator.game.outcome().expect("the spectator saw the end");
    for (i, r) in o.seats.iter().enumerate() {
        let r = r.as_ref().unwrap_or_else(|e| panic!("seat {i}: {e}"));
        assert_eq!(r.game.outcome().as_ref(), Some(&outcome), "seat {i}");
        assert_eq!(r.game.view(None), spectator.game.view(None), "seat {i}");
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

/// From the public events alone (what the spectator accepted, up to the first challenge), try
/// to derive every cup of the first round: the owner's value for its slot is never among them,
/// and the derivation needs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_cannot_compute_any_die_before_a_challenge() {
    let game = perudo::Perudo::new(&perudo::Setup::standard(4)).unwrap();
    let bots: Vec<Box<dyn Bot<perudo::Perudo>>> = (0..4)
        .map(|i| Box::new(PerudoBot::new(StdRng::seed_from_u64(10 + i))) as Box<_>)
        .collect();
    let table = [3; 32];
    let o = play(game, bots, table, Duration::from_secs(10), None).await;
    check_all_agree(&o);
    let events: &[Event] = &o.spectator.as_ref().unwrap().events;
    let author = |e: &Event| o.keys.iter().position(|k| *k == e.pubkey).unwrap() as u16;
    let ctx = |s: u16| DiceClient::context(table, 1, s, o.keys[s as usize].to_bytes());
    let mut commitments = BTreeMap::new();
    let mut values: Vec<VerifiedValue> = Vec::new();
    let mut challenged = false;
    for e in events {
        let body: DiceEvent = serde_json::from_str(&e.content).unwrap();
        match body.body {
            DiceBody::Commit { commitment } => {
                let bytes = tolerance::fair::from_base64("c", &commitment).unwrap();
                commitments.insert(author(e), DiceCommitment::from_bytes(&bytes).unwrap());
            }
            DiceBody::Move { action, .. } if action == serde_json::json!("dudo") => {
                challenged = true;
                break;
            }
            DiceBody::Reveals { reveals, .. } => {
                let s = author(e);
                for r in reveals {
                    let r = DiceReveal::from_base64(&r, 14).unwrap();
                    values.push(verify_reveal(&ctx(s), &commitments[&s], &r).unwrap());
                }
            }
            DiceBody::Move { .. } => {}
        }
    }
    assert!(challenged, "the game had a challenge");
    // Batch 0 is every cup (seat i's roll in slot i) and the toss (slot 4).
    for owner in 0..4u16 {
        let slot = u32::from(owner);
        let public: Vec<VerifiedValue> = values
            .iter()
            .copied()
            .filter(|v| v.slot() == slot)
            .collect();
        assert!(
            public.iter().all(|v| v.seat() != owner),
            "seat {owner} revealed its own private slot before the challenge"
        );
        assert_eq!(
            public.len(),
            3,
            "the other seats' shares of seat {owner}'s roll"
        );
        let roll = Roll {
            table,
            hand: 1,
            slot,
            seats: 4,
            owner: Some(owner),
            sides: 6,
            count: 5,
        };
        assert_eq!(missing_seats(&roll, &public), Vec::<u16>::new());
        assert!(
            open_private_roll(&roll, &public).is_err(),
            "seat {owner}'s dice were computable from public events"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_that_refuses_to_open_its_cup_is_named_for_its_forfeit() {
    // Perudo's first dudo opens every cup, so seat 1's refusal is always reached.
    let game = perudo::Perudo::new(&perudo::Setup::standard(4)).unwrap();
    let bots: Vec<Box<dyn Bot<perudo::Perudo>>> = (0..4)
        .map(|i| Box::new(PerudoBot::new(StdRng::seed_from_u64(i))) as Box<_>)
        .collect();
    let o = play(game, bots, [4; 32], Duration::from_secs(2), Some(1)).await;
    for r in o.seats.iter().chain([&o.spectator]) {
        match r {
            Err(SessionError::Forfeit { seats }) => assert_eq!(seats, &vec![1]),
            other => panic!(
                "expected seat 1's forfeit, got {:?}",
                other.as_ref().map(|r| r.moves)
            ),
        }
    }
}
