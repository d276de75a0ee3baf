//! A person's (or a bot's) own seat at a Perudo or Mia table found in the lobby: the seats and
//! the table id come from the seated announcement, the dice session from `dice_net`.

use super::dice_chance::{DiceClient, SLOTS};
use super::dice_net::{self, DiceEnd, DiceRun, Participant, RunConfig};
use super::journal::Journal;
use crate::bots::dice::{MiaBot, PerudoBot};
use crate::bots::Bot;
use crate::engine::{Game, Seat};
use crate::fair::dice::DiceSecret;
use crate::games::{mia, perudo};
use crate::net::pool::{PoolConfig, RelayPool};
use crate::ui::dice::{LinePlayer, TextGame};
use crate::wire::TableSpec;
use nostr_sdk::prelude::*;
use rand::rngs::{OsRng, StdRng};
use rand::SeedableRng;
use std::time::Duration;

/// The engine a dice table's announcement asks for.
pub enum DiceTable {
    Perudo(perudo::Perudo),
    Mia(mia::Mia),
}

/// Checks a dice game's name, variant and player count, as the host does before announcing.
pub fn setup(game: &str, rules: Option<&str>, players: u8) -> Result<DiceTable, String> {
    let rules = rules.unwrap_or("standard");
    match game {
        "perudo" => {
            if rules != "standard" {
                return Err(format!("Perudo has one variant, 'standard', not '{rules}'"));
            }
            perudo::Perudo::new(&perudo::Setup::standard(players))
                .map(DiceTable::Perudo)
                .map_err(|e| e.to_string())
        }
        "mia" => {
            let ranking = match rules {
                "standard" => mia::Ranking::default(),
                other => mia::Ranking::parse(other)?,
            };
            mia::Mia::new(&mia::Setup::standard(players, ranking))
                .map(DiceTable::Mia)
                .map_err(|e| e.to_string())
        }
        other => Err(format!(
            "unknown game '{other}' (known: tolerance, perudo, mia)"
        )),
    }
}

/// The game number the dice secret is stored under in the table journal (one game per table).
const JOURNAL_GAME: u64 = 1;

/// Plays this identity's seat of a seated dice table to the end; returns the final line.
///
/// With a journal, the seat's dice secret is sealed in it (fsynced) before the commitment is
/// published and every own event is recorded before it is published; a journal that already
/// holds them resumes the game: the same secret, the recorded events replayed and republished,
/// no step signed twice (PROTOCOL.md §2.2).
pub async fn play(
    keys: &Keys,
    spec: &TableSpec,
    relays: &[String],
    auto: bool,
    names: Vec<String>,
    journal: Option<Journal>,
) -> Result<String, String> {
    let n = u8::try_from(spec.seats.len()).map_err(|_| "too many seats")?;
    let seats: Vec<PublicKey> = spec
        .seats
        .iter()
        .map(|h| PublicKey::from_hex(h).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let me = seats
        .iter()
        .position(|k| *k == keys.public_key())
        .ok_or("this identity holds no seat at the table")? as u16;
    let table: [u8; 32] = hex::decode(&spec.table)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or("table id is not 32 bytes of hex")?;
    let ctx = DiceClient::context(table, 1, me, keys.public_key().to_bytes());
    let stored = match &journal {
        Some(j) => j.load_secrets()?.remove(&JOURNAL_GAME),
        None => None,
    };
    let secret = match stored {
        Some(bytes) => DiceSecret::from_bytes(&ctx, &bytes)
            .map_err(|e| format!("the journal's dice secret: {e}"))?,
        None => {
            let secret =
                DiceSecret::generate(&mut OsRng, &ctx, SLOTS).map_err(|e| e.to_string())?;
            if let Some(j) = &journal {
                j.save_secrets(JOURNAL_GAME, &*secret.to_bytes())?;
            }
            secret
        }
    };
    let pool = RelayPool::connect(keys.clone(), relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let deadline = Duration::from_millis(spec.deadlines.move_ms.max(spec.deadlines.crypto_ms));
    let rng = StdRng::from_rng(OsRng).map_err(|e| e.to_string())?;
    let name_of = move |s: Seat| {
        names
            .get(s as usize)
            .cloned()
            .unwrap_or_else(|| format!("seat {s}"))
    };
    let out = match setup(&spec.game, spec.rules.as_deref(), n)? {
        DiceTable::Perudo(g) => {
            let bot: Box<dyn Bot<perudo::Perudo>> = if auto {
                Box::new(PerudoBot::new(rng))
            } else {
                Box::new(LinePlayer::<perudo::Perudo>::new(Box::new(name_of.clone())))
            };
            let journal = journal;
            run_one(
                &pool, table, seats, g, me, secret, bot, deadline, journal, &name_of,
            )
            .await
        }
        DiceTable::Mia(g) => {
            let bot: Box<dyn Bot<mia::Mia>> = if auto {
                Box::new(MiaBot::new(rng))
            } else {
                Box::new(LinePlayer::<mia::Mia>::new(Box::new(name_of.clone())))
            };
            run_one(
                &pool, table, seats, g, me, secret, bot, deadline, journal, &name_of,
            )
            .await
        }
    };
    pool.shutdown().await;
    out
}

#[allow(clippy::too_many_arguments)]
async fn run_one<G: TextGame + Send + 'static>(
    pool: &RelayPool,
    table: [u8; 32],
    seats: Vec<PublicKey>,
    game: G,
    me: u16,
    secret: DiceSecret,
    bot: Box<dyn Bot<G>>,
    deadline: Duration,
    journal: Option<Journal>,
    names: &dyn Fn(Seat) -> String,
) -> Result<String, String> {
    let participant = Participant {
        me: Some((me, secret)),
        bot: Some(bot),
        refuse_to_open: false,
    };
    let mut cfg = RunConfig::new(deadline);
    cfg.journal = journal;
    let run = dice_net::run_with(pool, table, seats, game, participant, cfg)
        .await
        .map_err(|e| e.to_string())?;
    let view = run.game.view(Some(me as Seat));
    for e in G::log(&view) {
        println!("  · {}", G::line(e, names));
    }
    for v in &run.violations {
        println!("rejected: {v}");
    }
    ended(&run, names)
}

/// The last line of a dice table, as a player or `verify` reports it.
fn ended<G: Game>(run: &DiceRun<G>, names: &dyn Fn(Seat) -> String) -> Result<String, String> {
    match &run.end {
        DiceEnd::Forfeit {
            seats,
            step,
            reason,
        } => Ok(format!(
            "table over at step {step} by forfeit of {} ({reason}), after {} moves and {} dice batches",
            seats
                .iter()
                .map(|s| names(*s as Seat))
                .collect::<Vec<_>>()
                .join(", "),
            run.moves,
            run.batches
        )),
        DiceEnd::Finished { unconfirmed } => {
            let winner = run
                .game
                .outcome()
                .and_then(|o| o.winners.first().copied())
                .ok_or("the game ended without a winner")?;
            let note = if unconfirmed.is_empty() {
                String::new()
            } else {
                format!(" (seats {unconfirmed:?} did not confirm the end)")
            };
            Ok(format!(
                "game over: {} won after {} moves and {} dice batches; every reveal and move checked{note}",
                names(winner),
                run.moves,
                run.batches
            ))
        }
    }
}

/// Replays a finished dice table from its public events as a spectator: every signature,
/// reveal, opening and rule, checked by the same session the players ran. The lobby's seat order
/// is checked first.
pub async fn verify(
    pool: &RelayPool,
    host: &PublicKey,
    spec: &TableSpec,
) -> Result<String, String> {
    super::lobby::check_seated(pool, host, spec).await?;
    let n = u8::try_from(spec.seats.len()).map_err(|_| "too many seats")?;
    let seats: Vec<PublicKey> = spec
        .seats
        .iter()
        .map(|h| PublicKey::from_hex(h).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let table: [u8; 32] = hex::decode(&spec.table)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or("table id is not 32 bytes of hex")?;
    // Every event is already stored: a step that does not come within this is missing.
    let deadline = Duration::from_secs(5);
    match setup(&spec.game, spec.rules.as_deref(), n)? {
        DiceTable::Perudo(g) => replay(pool, table, seats, g, deadline).await,
        DiceTable::Mia(g) => replay(pool, table, seats, g, deadline).await,
    }
}

async fn replay<G: TextGame + Send + 'static>(
    pool: &RelayPool,
    table: [u8; 32],
    seats: Vec<PublicKey>,
    game: G,
    deadline: Duration,
) -> Result<String, String> {
    let watcher = Participant {
        me: None,
        bot: None,
        refuse_to_open: false,
    };
    let mut cfg = RunConfig::new(deadline);
    cfg.idle = deadline;
    let run = dice_net::run_with(pool, table, seats, game, watcher, cfg)
        .await
        .map_err(|e| format!("verification failed: {e}"))?;
    let line =
        ended(&run, &|s| format!("seat {s}")).map_err(|e| format!("verification failed: {e}"))?;
    let mut out = format!(
        "{} table {}: every signature, reveal and rule checks out; {line}",
        G::NAME,
        hex::encode(table)
    );
    for v in &run.violations {
        out.push_str(&format!("\nrejected: {v}"));
    }
    Ok(out)
}
