//! Attacks on live tables, as an attacker would make them (PROTOCOL.md §7): honest players are
//! separate `tolerance` processes with their own keys; the attacker is this test process, with
//! a seat of its own where the attack needs one, publishing raw signed events to the same real
//! relay. Each test asserts the honest outcome, not just that something was rejected.

use crate::common::{home, naddr_of, player, run, spawn, Proc};
use nostr_sdk::prelude::*;
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde_json::Value;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tolerance::bots::{Bot, BotLevel};
use tolerance::engine::Seat;
use tolerance::games::mia::Mia;
use tolerance::games::registry::TableGame;
use tolerance::games::tolerance::Tolerance;
use tolerance::net::pool::{PoolConfig, RelayPool};
use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use tolerance::table::lobby;
use tolerance::table::runner::{
    self, run_client, BotDecider, ClientReport, Decider, DecisionFuture, OnUpdate, RunConfig,
};
use tolerance::table::session::{Session, Turn};
use tolerance::wire::lobby::{lobby_event, LobbyBody, LobbyMsg, LOBBY_VERSION};
use tolerance::wire::log::{log_event, parse_log, Body, Payload};
use tolerance::wire::{self, TableSpec};

/// One table at a time: several tables' proofs competing for two cores could make an honest
/// player miss a deadline, which is not what these tests are about.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const LONG: Duration = Duration::from_secs(300);

async fn relay() -> (EmbeddedRelay, String) {
    let r = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = r.url().to_string();
    (r, url)
}

/// The attacker's seat, taken through the lobby like anyone's.
#[derive(Clone)]
struct Seated {
    spec: TableSpec,
    host: PublicKey,
    start: u64,
    seat: Seat,
}

async fn take_seat(keys: &Keys, url: &str, naddr: &str) -> Seated {
    let r = lobby::parse_ref(naddr).unwrap();
    let relays = lobby::table_relays(&[url.to_string()], &r).unwrap();
    let pool = RelayPool::connect(keys.clone(), &relays, PoolConfig::default())
        .await
        .unwrap();
    let joined = lobby::join_lobby(keys, None, &pool, &relays, &r, LONG, |_| {})
        .await
        .unwrap();
    let (spec, start) = runner::fetch_table(
        &pool,
        &joined.host,
        &joined.spec.table,
        Duration::from_secs(10),
    )
    .await
    .unwrap();
    pool.shutdown().await;
    let seat = spec
        .seats
        .iter()
        .position(|s| *s == keys.public_key().to_hex())
        .unwrap() as Seat;
    Seated {
        spec,
        host: joined.host,
        start,
        seat,
    }
}

async fn play_seat<G: TableGame>(
    keys: &Keys,
    url: &str,
    at: &Seated,
    decider: Box<dyn Decider<G>>,
    on_update: Option<OnUpdate<G>>,
) -> ClientReport {
    run_client(RunConfig::<G> {
        keys: keys.clone(),
        relays: vec![url.to_string()],
        host: at.host,
        spec: at.spec.clone(),
        start: at.start,
        decider,
        journal: None,
        on_update,
        idle: LONG,
        tamper: None,
        pool: tolerance::net::PoolConfig::default(),
        names: Vec::new(),
        speculate: true,
        clock_skew: 0,
    })
    .await
    .unwrap()
}

fn bot<G: TableGame>() -> Box<dyn Decider<G>> {
    Box::new(BotDecider(G::bot(
        BotLevel::Normal,
        StdRng::seed_from_u64(7),
    )))
}

/// Publishes whatever the attacker's hooks hand it, in order.
fn publisher(pool: RelayPool) -> mpsc::UnboundedSender<Event> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
    tokio::spawn(async move {
        while let Some(ev) = rx.recv().await {
            let _ = pool.publish(&ev).await;
        }
        pool.shutdown().await;
    });
    tx
}

fn vote(
    keys: &Keys,
    host: &PublicKey,
    table: &str,
    step: u32,
    prev: &str,
    missing: &[Seat],
) -> Event {
    let p = Payload {
        v: tolerance::wire::log::LOG_VERSION,
        table: table.to_string(),
        step,
        prev: prev.to_string(),
        ahead: None,
        body: Body::Vote {
            missing: missing.to_vec(),
        },
    };
    log_event(host, &p).sign_with_keys(keys).unwrap()
}

/// `tolerance verify NADDR --json`, as a separate process.
fn verify(naddr: &str, url: &str) -> Value {
    let h = home("security-verify", "v");
    let out = run(&h, &["verify", naddr, "--relay", url, "--json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "verify printed no report ({e}): {text}; {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Seats named by the table's removals and timeouts.
fn removed_or_timed_out(report: &Value) -> Vec<u64> {
    report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["kind"] == "removed" || v["kind"] == "timed_out")
        .flat_map(|v| v["seats"].as_array().unwrap().clone())
        .map(|s| s.as_u64().unwrap())
        .collect()
}

/// The "table over" line of an honest seat's process, and its rejected lines.
fn table_over(out: &str) -> (String, Vec<String>) {
    let over = out
        .lines()
        .find(|l| l.starts_with("table over: "))
        .unwrap_or_else(|| panic!("no end of table: {out}"))
        .to_string();
    let rejected = out
        .lines()
        .filter(|l| l.starts_with("rejected: "))
        .map(str::to_string)
        .collect();
    (over, rejected)
}

/// Hosts `game` for `seats` players (`invite` besides itself) with a bot at the host's seat.
fn host(test: &str, game: &str, seats: u8, invite: &[String], url: &str, extra: &[&str]) -> Proc {
    let h = home(test, "host");
    player(&h);
    let seats = seats.to_string();
    let mut args = vec![
        "host",
        "--game",
        game,
        "--seats",
        &seats,
        "--min-players",
        &seats,
        "--auto",
        "--relay",
        url,
    ];
    for i in invite {
        args.extend(["--invite", i.as_str()]);
    }
    args.extend(extra);
    spawn(&h, &args)
}

/// An honest player's config directory with a fresh key, and its npub.
fn joiner(test: &str, who: &str) -> (std::path::PathBuf, String) {
    let h = home(test, who);
    let npub = player(&h);
    (h, npub)
}

/// One seated player names every other seat missing at every step, a moment after the step
/// opens. Removal needs every other participant's vote after the step's deadline, so nothing
/// happens but the voter being named.
async fn vote_everyone_out<G: TableGame>(game: &str, seats: u8, extra: &[&str]) {
    let _serial = SERIAL.lock().await;
    let test = format!("vote-all-{game}-{seats}");
    let (_relay, url) = relay().await;
    let attacker = Keys::generate();
    let mut invite = vec![attacker.public_key().to_bech32().unwrap()];
    let mut joiners = Vec::new();
    for i in 1..seats - 1 {
        let (h, npub) = joiner(&test, &format!("p{i}"));
        invite.push(npub);
        joiners.push(h);
    }
    let host = host(&test, game, seats, &invite, &url, extra);
    let naddr = naddr_of(&host.line("tolerance join ", LONG).await);
    let procs: Vec<Proc> = joiners
        .iter()
        .map(|h| spawn(h, &["join", &naddr, "--auto", "--relay", &url]))
        .collect();
    let at = take_seat(&attacker, &url, &naddr).await;
    let others: Vec<Seat> = (0..seats).filter(|s| *s != at.seat).collect();
    let tx = publisher(
        RelayPool::connect(attacker.clone(), [url.as_str()], PoolConfig::default())
            .await
            .unwrap(),
    );
    let (keys, hostk, table) = (attacker.clone(), at.host, at.spec.table.clone());
    let mut last = None;
    let hook: OnUpdate<G> = Box::new(move |s: &Session<G>, _| {
        let pos = s.position();
        if s.is_finished() || last.as_ref() == Some(&pos) {
            return;
        }
        let _ = tx.send(vote(&keys, &hostk, &table, pos.0, &pos.1, &others));
        last = Some(pos);
    });
    let mine = play_seat::<G>(&attacker, &url, &at, bot::<G>(), Some(hook)).await;
    assert!(mine.finished, "the table did not end: {:?}", mine.verdicts);
    let mut outs = vec![host.finish(LONG).await];
    for p in procs {
        outs.push(p.finish(LONG).await);
    }
    // Named as the honest players know the attacker: its short npub (it has no profile).
    let culprit = format!(
        "by {} at step",
        tolerance::net::profiles::short_npub(&attacker.public_key())
    );
    for (ok, out, err) in &outs {
        assert!(ok, "an honest seat failed: {err}\n{out}");
        let (over, rejected) = table_over(out);
        assert!(!over.ends_with(" 0 rejected)"), "{out}");
        assert!(!rejected.is_empty(), "{out}");
        for r in &rejected {
            assert!(
                r.contains(&culprit) && r.contains("before the step's deadline"),
                "{r}"
            );
        }
    }
    let v = verify(&naddr, &url);
    assert_eq!(v["finished"], true, "{v}");
    assert!(removed_or_timed_out(&v).is_empty(), "{v}");
    let violations = v["violations"].as_array().unwrap();
    assert!(!violations.is_empty(), "{v}");
    for x in violations {
        assert_eq!(x["seat"], at.seat as u64, "{v}");
    }
    assert_eq!(v["report"], mine.report, "{v}");
}

#[tokio::test(flavor = "multi_thread")]
async fn one_seat_voting_everyone_out_at_three_seats_removes_nobody() {
    vote_everyone_out::<Mia>("mia", 3, &[]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn one_seat_voting_its_opponent_out_heads_up_removes_nobody() {
    vote_everyone_out::<Tolerance>("tolerance", 2, &["--hands", "2"]).await;
}

/// Once the table ended, the loser votes the winner out at every step the winner moved in
/// (including the showdown). Neither `verify`'s verdicts nor its result change.
async fn votes_after_the_end<G: TableGame>(game: &str, extra: &[&str]) {
    let _serial = SERIAL.lock().await;
    let test = format!("late-votes-{game}");
    let (_relay, url) = relay().await;
    let attacker = Keys::generate();
    let invite = vec![attacker.public_key().to_bech32().unwrap()];
    let host = host(&test, game, 2, &invite, &url, extra);
    let naddr = naddr_of(&host.line("tolerance join ", LONG).await);
    let at = take_seat(&attacker, &url, &naddr).await;
    let mine = play_seat::<G>(&attacker, &url, &at, bot::<G>(), None).await;
    assert!(mine.finished);
    let (ok, out, err) = host.finish(LONG).await;
    assert!(ok, "{err}\n{out}");
    let before = verify(&naddr, &url);
    assert_eq!(before["ok"], true, "{before}");
    assert_eq!(before["finished"], true, "{before}");

    let pool = RelayPool::connect(attacker.clone(), [url.as_str()], PoolConfig::default())
        .await
        .unwrap();
    let honest = 1 - at.seat;
    let honest_key = PublicKey::from_hex(&at.spec.seats[honest as usize]).unwrap();
    let events = pool
        .fetch_all(
            wire::log_filter(&at.host, &at.spec.table, &[honest_key]),
            500,
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    let mut sent = 0;
    for e in &events {
        let p = parse_log(e, &at.spec.table).unwrap();
        let v = vote(
            &attacker,
            &at.host,
            &at.spec.table,
            p.step,
            &p.prev,
            &[honest],
        );
        pool.publish(&v).await.unwrap();
        sent += 1;
    }
    assert!(sent > 3, "the honest seat made {sent} events");
    pool.shutdown().await;
    let after = verify(&naddr, &url);
    for k in ["finished", "verdicts", "result", "report"] {
        assert_eq!(before[k], after[k], "{k} changed: {before} → {after}");
    }
    for x in after["violations"].as_array().unwrap() {
        assert_eq!(x["seat"], at.seat as u64, "{after}");
    }
    assert_eq!(after["report"], mine.report);
}

#[tokio::test(flavor = "multi_thread")]
async fn votes_after_a_tolerance_table_ended_change_nothing() {
    votes_after_the_end::<Tolerance>("tolerance", &["--hands", "2"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn votes_after_a_mia_table_ended_change_nothing() {
    votes_after_the_end::<Mia>("mia", &[]).await;
}

/// A seated player that waits for `gate` before its first decision: the table stays open,
/// every client connected, while strangers do their worst.
struct Gated<G: TableGame> {
    bot: Box<dyn Bot<G>>,
    gate: Option<oneshot::Receiver<()>>,
}

impl<G: TableGame> Decider<G> for Gated<G> {
    fn decide(&mut self, turn: &Turn<G>) -> DecisionFuture<G::Action> {
        let a = self.bot.choose(&turn.view, &turn.legal);
        let gate = self.gate.take();
        Box::pin(async move {
            if let Some(g) = gate {
                let _ = g.await;
            }
            Some(a)
        })
    }
}

/// A well-formed event of the table's log, signed by a key that holds no seat.
fn junk(host: &PublicKey, table: &str, step: u32, prev: &str, bytes: usize) -> Event {
    let p = Payload {
        v: tolerance::wire::log::LOG_VERSION,
        table: table.to_string(),
        step,
        prev: prev.to_string(),
        ahead: None,
        body: Body::Move {
            action: Value::String("x".repeat(bytes)),
            tokens: Vec::new(),
        },
    };
    log_event(host, &p)
        .sign_with_keys(&Keys::generate())
        .unwrap()
}

/// 2,000 events of 61 KB from random keys while a table plays, then 12,000 more after it ended,
/// then another key announcing a table with the same id: the players stay small, the table
/// verifies with the junk ignored, and its host's address decides which table it is.
#[tokio::test(flavor = "multi_thread")]
async fn strangers_cannot_sink_bury_or_impersonate_a_table() {
    let _serial = SERIAL.lock().await;
    let test = "flood";
    let (_relay, url) = relay().await;
    let slow = Keys::generate();
    let (jh, jnpub) = joiner(test, "p1");
    let invite = vec![slow.public_key().to_bech32().unwrap(), jnpub];
    let host = host(test, "mia", 3, &invite, &url, &[]);
    let naddr = naddr_of(&host.line("tolerance join ", LONG).await);
    let join = spawn(&jh, &["join", &naddr, "--auto", "--relay", &url]);
    let at = take_seat(&slow, &url, &naddr).await;
    let (open, gate) = oneshot::channel();
    let (pos_tx, pos_rx) = oneshot::channel::<(u32, String)>();
    let mut pos_tx = Some(pos_tx);
    // The flood aims at the step the table is waiting on.
    let hook: OnUpdate<Mia> = Box::new(move |s: &Session<Mia>, _| {
        if s.awaiting().what == "move" {
            if let Some(tx) = pos_tx.take() {
                let _ = tx.send(s.position());
            }
        }
    });
    let decider: Box<dyn Decider<Mia>> = Box::new(Gated {
        bot: Mia::bot(BotLevel::Normal, StdRng::seed_from_u64(3)),
        gate: Some(gate),
    });
    let (at2, u2) = (at.clone(), url.clone());
    let slow2 = slow.clone();
    let player =
        tokio::spawn(async move { play_seat::<Mia>(&slow2, &u2, &at2, decider, Some(hook)).await });
    let (step, prev) = pos_rx.await.unwrap();
    let table = at.spec.table.clone();
    let pool = RelayPool::connect(Keys::generate(), [url.as_str()], PoolConfig::default())
        .await
        .unwrap();
    for _ in 0..2_000 {
        let ev = junk(&at.host, &table, step, &prev, 61_000);
        pool.publish(&ev).await.unwrap();
    }
    let limit = 64 << 20;
    for (who, p) in [("host", &host), ("joiner", &join)] {
        let rss = p.peak_rss().expect("the player is still at the table");
        eprintln!(
            "after the flood, the {who}'s client peaked at {} MB",
            rss >> 20
        );
        assert!(rss < limit, "{who} peaked at {} MB", rss >> 20);
    }
    open.send(()).unwrap();
    let mine = player.await.unwrap();
    assert!(mine.finished);
    assert!(mine.violations.is_empty(), "{:?}", mine.violations);
    for (ok, out, err) in [host.finish(LONG).await, join.finish(LONG).await] {
        assert!(ok, "{err}\n{out}");
        let (over, _) = table_over(&out);
        assert!(over.ends_with(" 0 rejected)"), "{out}");
    }
    // Buried: the relay returns at most its newest 10,000 events per request.
    for _ in 0..12_000 {
        let ev = junk(&at.host, &table, step + 1000, &prev, 10);
        pool.publish(&ev).await.unwrap();
    }
    // Impersonated: another key announces a seated table with the same id.
    let impostor = Keys::generate();
    let fake = TableSpec {
        seats: vec![
            impostor.public_key().to_hex(),
            Keys::generate().public_key().to_hex(),
        ],
        lobby: None,
        ..at.spec.clone()
    };
    pool.publish(&wire::table_event(&fake).sign_with_keys(&impostor).unwrap())
        .await
        .unwrap();
    pool.shutdown().await;
    let v = verify(&naddr, &url);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["finished"], true, "{v}");
    assert!(v["ignored"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["report"], mine.report, "{v}");
    let others = v["other_hosts"].as_array().unwrap();
    assert_eq!(others.len(), 1, "{v}");
    assert_eq!(others[0], impostor.public_key().to_bech32().unwrap(), "{v}");
}

/// Three throwaway keys take the free seats of a public table the moment it opens and never
/// confirm. Their seats open again and the real players get them; the table is not cancelled.
#[tokio::test(flavor = "multi_thread")]
async fn silent_sybils_do_not_empty_a_public_table() {
    let _serial = SERIAL.lock().await;
    let test = "sybils";
    let (_relay, url) = relay().await;
    let host = host(
        test,
        "mia",
        3,
        &[],
        &url,
        &["--public", "--crypto-secs", "3"],
    );
    let naddr = naddr_of(&host.line("tolerance join ", LONG).await);
    let r = lobby::parse_ref(&naddr).unwrap();
    let hostk = r.host.unwrap();
    let pool = RelayPool::connect(Keys::generate(), [url.as_str()], PoolConfig::default())
        .await
        .unwrap();
    for _ in 0..3 {
        let msg = LobbyMsg {
            v: LOBBY_VERSION,
            table: r.table.clone(),
            body: LobbyBody::Join {
                commit: hex::encode(rand::random::<[u8; 32]>()),
                auth: None,
            },
        };
        let ev = lobby_event(&hostk, &msg)
            .sign_with_keys(&Keys::generate())
            .unwrap();
        pool.publish(&ev).await.unwrap();
    }
    pool.shutdown().await;
    host.line("starting with 3 players", LONG).await;
    let players: Vec<Proc> = (1..=2)
        .map(|i| {
            let (h, _) = joiner(test, &format!("p{i}"));
            spawn(&h, &["join", &naddr, "--auto", "--relay", &url])
        })
        .collect();
    host.line("never revealed a seating nonce", LONG).await;
    let (ok, out, err) = host.finish(LONG).await;
    assert!(ok, "{err}\n{out}");
    assert!(!out.contains("table cancelled"), "{out}");
    table_over(&out);
    for p in players {
        let (ok, out, err) = p.finish(LONG).await;
        assert!(ok, "{err}\n{out}");
        table_over(&out);
    }
    let v = verify(&naddr, &url);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["finished"], true, "{v}");
}

/// `bytes` of junk as a move for `step`, signed by a seated key.
fn seated_junk(keys: &Keys, host: &PublicKey, table: &str, step: u32, prev: &str) -> Event {
    let p = Payload {
        v: tolerance::wire::log::LOG_VERSION,
        table: table.to_string(),
        step,
        prev: prev.to_string(),
        ahead: None,
        body: Body::Move {
            action: Value::String("x".repeat(60_000)),
            tokens: Vec::new(),
        },
    };
    log_event(host, &p).sign_with_keys(keys).unwrap()
}

/// The size of the table's journal in a player's home.
fn journal_bytes(home: &std::path::Path, table: &str) -> u64 {
    std::fs::metadata(home.join("tables").join(table).join("events.jsonl"))
        .map(|m| m.len())
        .unwrap_or_else(|e| panic!("no journal in {}: {e}", home.display()))
}

/// A seated player signs, while the table waits on its move, 1,000 contributions of 60 KB for
/// the steps to come and 1,000 votes naming the others missing, then plays on. The honest
/// clients stay within 64 MB of memory and 16 MB of journal, finish, and a later `verify`
/// finds the table finished with the result the players saw.
#[tokio::test(flavor = "multi_thread")]
async fn a_seated_flood_neither_swamps_the_others_nor_makes_the_table_unauditable() {
    let _serial = SERIAL.lock().await;
    let test = "seated-flood";
    let (_relay, url) = relay().await;
    let flooder = Keys::generate();
    let (jh, jnpub) = joiner(test, "p1");
    let invite = vec![flooder.public_key().to_bech32().unwrap(), jnpub];
    let host = host(test, "mia", 3, &invite, &url, &[]);
    let host_home =
        std::env::temp_dir().join(format!("tolerance-{test}-host-{}", std::process::id()));
    let naddr = naddr_of(&host.line("tolerance join ", LONG).await);
    let join = spawn(&jh, &["join", &naddr, "--auto", "--relay", &url]);
    let at = take_seat(&flooder, &url, &naddr).await;
    let (open, gate) = oneshot::channel();
    let (pos_tx, pos_rx) = oneshot::channel::<(u32, String)>();
    let mut pos_tx = Some(pos_tx);
    let hook: OnUpdate<Mia> = Box::new(move |s: &Session<Mia>, _| {
        if s.awaiting().what == "move" {
            if let Some(tx) = pos_tx.take() {
                let _ = tx.send(s.position());
            }
        }
    });
    let decider: Box<dyn Decider<Mia>> = Box::new(Gated {
        bot: Mia::bot(BotLevel::Normal, StdRng::seed_from_u64(4)),
        gate: Some(gate),
    });
    let (at2, u2, k2) = (at.clone(), url.clone(), flooder.clone());
    let player =
        tokio::spawn(async move { play_seat::<Mia>(&k2, &u2, &at2, decider, Some(hook)).await });
    let (step, prev) = pos_rx.await.unwrap();
    let table = at.spec.table.clone();
    let pool = RelayPool::connect(Keys::generate(), [url.as_str()], PoolConfig::default())
        .await
        .unwrap();
    let others: Vec<Seat> = (0..at.spec.seats.len() as Seat)
        .filter(|s| at.spec.seats[*s as usize] != flooder.public_key().to_hex())
        .collect();
    for i in 0..1_000u32 {
        let ev = seated_junk(&flooder, &at.host, &table, step + 1 + i % 200, &prev);
        pool.publish(&ev).await.unwrap();
        let v = vote(&flooder, &at.host, &table, step + i % 50, &prev, &others);
        pool.publish(&v).await.unwrap();
    }
    for (who, p) in [("host", &host), ("joiner", &join)] {
        let rss = p.peak_rss().expect("the player is still at the table");
        eprintln!(
            "after the seated flood, the {who}'s client peaked at {} MB",
            rss >> 20
        );
        assert!(rss < 64 << 20, "{who} peaked at {} MB", rss >> 20);
    }
    open.send(()).unwrap();
    let mine = player.await.unwrap();
    assert!(mine.finished, "{mine:?}");
    for (ok, out, err) in [host.finish(LONG).await, join.finish(LONG).await] {
        assert!(ok, "{err}\n{out}");
        table_over(&out);
    }
    for (who, h) in [("host", &host_home), ("joiner", &jh)] {
        let bytes = journal_bytes(h, &table);
        eprintln!("the {who}'s journal holds {} KB", bytes >> 10);
        assert!(bytes < 16 << 20, "{who}'s journal is {} MB", bytes >> 20);
    }
    pool.shutdown().await;
    let v = verify(&naddr, &url);
    assert_eq!(v["finished"], true, "{v}");
    assert_eq!(v["report"], mine.report, "{v}");
    assert_eq!(v["chain_events"], mine.stats.chain, "{v}");
    // Whatever it rejected, it names the flooder and nobody else.
    for bad in v["violations"].as_array().unwrap() {
        assert_eq!(bad["seat"], at.seat, "{v}");
    }
}
