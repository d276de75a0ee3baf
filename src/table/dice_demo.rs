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
    let mut tasks = Vec::new();
    for (i, (k, bot)) in keys.into_iter().zip(bots).enumerate() {
        let i = i as u16;
        let ctx = DiceClient::context(table, 1, i, pubs[i as usize].to_bytes());
        let secret = DiceSecret::generate(&mut OsRng, &ctx, SLOTS).map_err(|e| e.to_string())?;
        let pool = RelayPool::connect(k, urls.to_vec(), PoolConfig::default())
            .await
            .map_err(|e| e.to_string())?;
        let (g, pubs) = (game.clone(), pubs.clone());
        tasks.push(tokio::spawn(async move {
            let me = dice_net::bot_participant(i, secret, bot);
            let r = dice_net::run(&pool, table, pubs, g, me, step_deadline).await;
            pool.shutdown().await;
            r
        }));
    }
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

/// The command: starts the embedded relay when no relay is given.
pub async fn demo_cli(
    game: &str,
    players: u8,
    relays: Vec<String>,
    variant: &str,
    json: bool,
) -> Result<(), String> {
    let embedded = if relays.is_empty() {
        Some(
            EmbeddedRelay::start(EmbeddedRelayConfig::default())
                .await
                .map_err(|e| e.to_string())?,
        )
    } else {
        None
    };
    let urls: Vec<String> = match &embedded {
        Some(r) => vec![r.url().to_string()],
        None => relays,
    };
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
