//! `tolerance demo --game perudo|mia`: a table of bots playing one dice game over relays, each
//! seat its own key, connection, replica and dice secret, watched by a spectator client.

use super::dice_chance::{DiceClient, SLOTS};
use super::dice_net::{self, Participant};
use crate::bots::dice::{MiaBot, PerudoBot};
use crate::bots::Bot;
use crate::engine::Game;
use crate::fair::dice::DiceSecret;
use crate::games::{mia, perudo};
use crate::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig, RelayPool};
use nostr_sdk::prelude::{Keys, PublicKey};
use rand::rngs::{OsRng, StdRng};
use rand::{RngCore, SeedableRng};
use serde::Serialize;
use std::time::{Duration, Instant};

/// What one demo game printed.
#[derive(Debug, Clone, Serialize)]
pub struct DiceDemoSummary {
    pub game: &'static str,
    pub table: String,
    pub players: usize,
    pub winner: Option<u8>,
    pub chance_batches: u32,
    pub moves: u32,
    pub wall_ms: u128,
    /// Every seat and the spectator reached the same outcome and public view.
    pub agreed: bool,
    /// Seats that failed, with their error.
    pub failures: Vec<String>,
}

/// Plays `game` with one bot per seat over `urls`, plus a spectator.
pub async fn run_bots<G: Game + Send + Sync + 'static>(
    game: G,
    bots: Vec<Box<dyn Bot<G>>>,
    urls: &[String],
    step_deadline: Duration,
) -> Result<DiceDemoSummary, String>
where
    G::Action: Send + Sync,
    G::View: Send + Sync,
{
    let mut table = [0u8; 32];
    OsRng.fill_bytes(&mut table);
    let keys: Vec<Keys> = bots.iter().map(|_| Keys::generate()).collect();
    let pubs: Vec<PublicKey> = keys.iter().map(|k| k.public_key()).collect();
    let start = Instant::now();
    let seated = keys
        .into_iter()
        .zip(bots)
        .enumerate()
        .map(|(i, (k, bot))| (i as u16, k, bot))
        .collect();
    let tasks = spawn_bot_seats(&game, seated, table, &pubs, urls, step_deadline).await?;
    let spool = RelayPool::connect(Keys::generate(), urls.to_vec(), PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let watcher = Participant {
        me: None,
        bot: None,
        refuse_to_open: false,
        observer: None,
    };
    let spectator = dice_net::run(&spool, table, pubs, game, watcher, step_deadline).await;
    spool.shutdown().await;
    let mut seats = Vec::new();
    for t in tasks {
        seats.push(t.await.map_err(|e| e.to_string())?);
    }
    let wall_ms = start.elapsed().as_millis();
    let spectator = spectator.map_err(|e| format!("spectator: {e}"))?;
    let outcome = spectator.game.outcome();
    let mut failures = Vec::new();
    let mut agreed = outcome.is_some();
    for (i, r) in seats.iter().enumerate() {
        match r {
            Ok(r) => {
                agreed &= r.game.outcome() == outcome
                    && r.game.view(None) == spectator.game.view(None)
                    && r.end == spectator.end;
            }
            Err(e) => {
                agreed = false;
                failures.push(format!("seat {i}: {e}"));
            }
        }
    }
    Ok(DiceDemoSummary {
        game: G::NAME,
        table: hex::encode(table),
        players: seats.len(),
        winner: outcome.and_then(|o| o.winners.first().copied()),
        chance_batches: spectator.batches,
        moves: spectator.moves,
        wall_ms,
        agreed,
        failures,
    })
}

/// Seats bots at a dice table, each with its own key, relay connection, replica and dice
/// secret, each on its own task: what `demo` and `play --game` run for the seats nobody plays.
pub(crate) async fn spawn_bot_seats<G: Game + Send + Sync + 'static>(
    game: &G,
    bots: Vec<(u16, Keys, Box<dyn Bot<G>>)>,
    table: [u8; 32],
    pubs: &[PublicKey],
    urls: &[String],
    step_deadline: Duration,
) -> Result<Vec<BotSeat<G>>, String>
where
    G::Action: Send + Sync,
    G::View: Send + Sync,
{
    let mut tasks = Vec::new();
    for (i, k, bot) in bots {
        let ctx = DiceClient::context(table, 1, i, pubs[i as usize].to_bytes());
        let secret = DiceSecret::generate(&mut OsRng, &ctx, SLOTS).map_err(|e| e.to_string())?;
        let pool = RelayPool::connect(k, urls.to_vec(), PoolConfig::default())
            .await
            .map_err(|e| e.to_string())?;
        let (g, pubs) = (game.clone(), pubs.to_vec());
        tasks.push(tokio::spawn(async move {
            let me = dice_net::bot_participant(i, secret, bot);
            let r = dice_net::run(&pool, table, pubs, g, me, step_deadline).await;
            pool.shutdown().await;
            r
        }));
    }
    Ok(tasks)
}

/// A bot seat's task and how its session ended.
pub(crate) type BotSeat<G> =
    tokio::task::JoinHandle<Result<dice_net::DiceRun<G>, dice_net::SessionError>>;

/// Waits for the bot seats to end (a little while: their last step is the end confirmation)
/// and names the ones that failed.
pub(crate) async fn finish_bots<G: Game>(tasks: Vec<BotSeat<G>>) -> Vec<String> {
    let mut failures = Vec::new();
    for (i, t) in tasks.into_iter().enumerate() {
        match tokio::time::timeout(Duration::from_secs(30), t).await {
            Ok(Ok(Ok(_))) => {}
            Ok(Ok(Err(e))) => failures.push(format!("bot {}: {e}", i + 1)),
            Ok(Err(e)) => failures.push(format!("bot {}: {e}", i + 1)),
            Err(_) => failures.push(format!("bot {}: still running", i + 1)),
        }
    }
    failures
}

/// The embedded relay when no relay is given, and the URLs to use.
pub(crate) async fn relays_or_embedded(
    relays: Vec<String>,
) -> Result<(Option<EmbeddedRelay>, Vec<String>), String> {
    if !relays.is_empty() {
        return Ok((None, relays));
    }
    let r = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let url = r.url().to_string();
    Ok((Some(r), vec![url]))
}

/// The command: starts the embedded relay when no relay is given.
pub async fn demo_cli(
    game: &str,
    players: u8,
    relays: Vec<String>,
    variant: &str,
    json: bool,
) -> Result<(), String> {
    let (embedded, urls) = relays_or_embedded(relays).await?;
    let mut rng = StdRng::from_rng(OsRng).map_err(|e| e.to_string())?;
    let mut seeded = || StdRng::from_rng(&mut rng).expect("seeding from a seeded RNG");
    let deadline = Duration::from_secs(20);
    let summary = match super::dice_seat::setup(game, Some(variant), players)? {
        super::dice_seat::DiceTable::Perudo(g) => {
            let bots = (0..players)
                .map(|_| Box::new(PerudoBot::new(seeded())) as Box<dyn Bot<perudo::Perudo>>)
                .collect();
            run_bots(g, bots, &urls, deadline).await?
        }
        super::dice_seat::DiceTable::Mia(g) => {
            let bots = (0..players)
                .map(|_| Box::new(MiaBot::new(seeded())) as Box<dyn Bot<mia::Mia>>)
                .collect();
            run_bots(g, bots, &urls, deadline).await?
        }
    };
    if let Some(r) = embedded {
        r.shutdown().await;
    }
    if json {
        println!(
            "{}",
            serde_json::to_string(&summary).expect("summaries serialise")
        );
    } else {
        println!(
            "{} over {}: {} players, seat {} won after {} moves and {} chance batches in {} ms; \
             every client and the spectator agreed: {}",
            summary.game,
            urls.join(", "),
            summary.players,
            summary.winner.map_or("?".to_string(), |w| w.to_string()),
            summary.moves,
            summary.chance_batches,
            summary.wall_ms,
            summary.agreed
        );
        for f in &summary.failures {
            eprintln!("{f}");
        }
    }
    if summary.agreed {
        Ok(())
    } else {
        Err("the clients did not all finish the same game".into())
    }
}
