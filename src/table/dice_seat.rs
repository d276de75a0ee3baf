//! A person's (or a bot's) own seat at a Perudo or Mia table found in the lobby: the seats and
//! the table id come from the seated announcement, the dice session from `dice_net`.

use super::dice_chance::{DiceClient, SLOTS};
use super::dice_net::{self, DiceEnd, DiceNews, DiceRun, Observer, Participant, RunConfig};
use super::journal::Journal;
use super::seat::SeatUi;
use super::table_ui::race_screen;
use crate::bots::dice::{MiaBot, PerudoBot};
use crate::bots::Bot;
use crate::engine::{Game, Seat};
use crate::fair::dice::DiceSecret;
use crate::games::{mia, perudo};
use crate::net::pool::{PoolConfig, RelayPool};
use crate::ui::dice::{LinePlayer, TextGame};
use crate::ui::tui;
use crate::ui::tui::dice::{DiceUi, DiceUiEvent, TuiPlayer, Waiting};
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

/// Plays this identity's seat of a seated dice table to the end, through `ui`; returns the
/// final line.
///
/// With a journal, the seat's dice secret is sealed in it (fsynced) before the commitment is
/// published and every own event is recorded before it is published; a journal that already
/// holds them resumes the game: the same secret, the recorded events replayed and republished,
/// no step signed twice (PROTOCOL.md §2.2).
pub async fn play(
    keys: &Keys,
    spec: &TableSpec,
    relays: &[String],
    ui: SeatUi,
    names: Vec<String>,
    journal: Option<Journal>,
) -> Result<String, String> {
    let n = u8::try_from(spec.seats.len()).map_err(|_| "too many seats")?;
    let seats = seat_keys(spec)?;
    let me = seats
        .iter()
        .position(|k| *k == keys.public_key())
        .ok_or("this identity holds no seat at the table")? as u16;
    let table = table_id(spec)?;
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
    let seat = Seated {
        pool: pool.clone(),
        table,
        seats,
        me,
        secret,
        deadline: step_deadline(spec),
        names,
        relays: relays.len(),
        journal,
    };
    let rng = StdRng::from_rng(OsRng).map_err(|e| e.to_string())?;
    let out = match setup(&spec.game, spec.rules.as_deref(), n)? {
        DiceTable::Perudo(g) => seat.run(g, ui, Box::new(PerudoBot::new(rng))).await,
        DiceTable::Mia(g) => seat.run(g, ui, Box::new(MiaBot::new(rng))).await,
    };
    pool.shutdown().await;
    out
}

/// `tolerance play --game perudo|mia` (without `--local`): you at seat 0 against bots over
/// relays (the embedded relay when none is given). Every seat has its own key, relay connection,
/// replica and dice secret, and runs the same session as a hosted table, so each die is rolled
/// by commit-reveal among all seats and every client checks every event.
pub async fn play_against_bots(
    game: &str,
    rules: &str,
    players: u8,
    relays: Vec<String>,
    ui: SeatUi,
) -> Result<String, String> {
    let table_game = setup(game, Some(rules), players)?;
    let (embedded, urls) = super::dice_demo::relays_or_embedded(relays).await?;
    let keys: Vec<Keys> = (0..players).map(|_| Keys::generate()).collect();
    let seats: Vec<PublicKey> = keys.iter().map(|k| k.public_key()).collect();
    let mut table = [0u8; 32];
    rand::RngCore::fill_bytes(&mut OsRng, &mut table);
    if ui != SeatUi::Table {
        println!(
            "Networked {game}: you (seat 0) and {} bots over {}, each its own Nostr key and \
             relay connection; dice by commit-reveal among all seats.",
            players.saturating_sub(1),
            urls.join(", ")
        );
    }
    let ctx = DiceClient::context(table, 1, 0, seats[0].to_bytes());
    let secret = DiceSecret::generate(&mut OsRng, &ctx, SLOTS).map_err(|e| e.to_string())?;
    let pool = RelayPool::connect(keys[0].clone(), &urls, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    // A person may think: the bots wait as long for a move as a hosted table does by default.
    let deadline = Duration::from_secs(600);
    let seat = Seated {
        pool: pool.clone(),
        table,
        seats: seats.clone(),
        me: 0,
        secret,
        deadline,
        names: crate::ui::local_names(players),
        relays: urls.len(),
        journal: None,
    };
    let others: Vec<(u16, Keys)> = keys
        .into_iter()
        .enumerate()
        .skip(1)
        .map(|(i, k)| (i as u16, k))
        .collect();
    let (out, failures) = match table_game {
        DiceTable::Perudo(g) => {
            let bot = |r| Box::new(PerudoBot::new(r)) as Box<dyn Bot<perudo::Perudo>>;
            seat.against_bots(g, ui, others, &urls, bot).await?
        }
        DiceTable::Mia(g) => {
            let bot = |r| Box::new(MiaBot::new(r)) as Box<dyn Bot<mia::Mia>>;
            seat.against_bots(g, ui, others, &urls, bot).await?
        }
    };
    for f in &failures {
        eprintln!("{f}");
    }
    pool.shutdown().await;
    if let Some(r) = embedded {
        r.shutdown().await;
    }
    out
}

fn seat_keys(spec: &TableSpec) -> Result<Vec<PublicKey>, String> {
    spec.seats
        .iter()
        .map(|h| PublicKey::from_hex(h).map_err(|e| e.to_string()))
        .collect()
}

fn table_id(spec: &TableSpec) -> Result<[u8; 32], String> {
    hex::decode(&spec.table)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| "table id is not 32 bytes of hex".to_string())
}

/// The table's step deadline (PROTOCOL.md §12.4).
fn step_deadline(spec: &TableSpec) -> Duration {
    Duration::from_millis(spec.deadlines.move_ms.max(spec.deadlines.crypto_ms))
}

/// A seat ready to play: connected, with its dice secret.
struct Seated {
    pool: RelayPool,
    table: [u8; 32],
    seats: Vec<PublicKey>,
    me: u16,
    secret: DiceSecret,
    deadline: Duration,
    names: Vec<String>,
    relays: usize,
    journal: Option<Journal>,
}

impl Seated {
    /// `bot` plays the seat when `ui` says a bot should.
    async fn run<G: DiceUi + Send + 'static>(
        self,
        game: G,
        ui: SeatUi,
        bot: Box<dyn Bot<G>>,
    ) -> Result<String, String>
    where
        G::Action: Send + Sync,
        G::View: Send + Sync,
    {
        let names = self.names.clone();
        let name_of = move |s: Seat| crate::ui::seat_name(&names, s);
        let mut participant = Participant {
            me: Some((self.me, self.secret)),
            bot: None,
            refuse_to_open: false,
            observer: None,
        };
        let (pool, table, seats) = (self.pool, self.table, self.seats);
        let mut cfg = RunConfig::new(self.deadline);
        cfg.journal = self.journal;
        let session = |participant: Participant<G>| async move {
            dice_net::run_with(&pool, table, seats, game, participant, cfg)
                .await
                .map_err(|e| e.to_string())
        };
        let run = match ui {
            SeatUi::Bot => {
                participant.bot = Some(bot);
                session(participant).await?
            }
            SeatUi::Line => {
                participant.bot = Some(Box::new(LinePlayer::<G>::new(Box::new(name_of.clone()))));
                session(participant).await?
            }
            SeatUi::Table => {
                let relays = format!(
                    "over {} relay{}",
                    self.relays,
                    if self.relays == 1 { "" } else { "s" }
                );
                let screen = tui::dice::start(Some(self.me as Seat), self.names.clone(), relays);
                participant.observer = Some(observe::<G>(screen.events.clone()));
                participant.bot = Some(Box::new(TuiPlayer::<G>::new(
                    screen.events.clone(),
                    screen.answers,
                )));
                let events = screen.events;
                // On its own task: a person's turn blocks the session's task, and the screen
                // must still be noticed when the person leaves.
                let game = tokio::spawn(session(participant));
                let game = async { game.await.map_err(|e| e.to_string())? };
                let (end, ui) = race_screen(screen.thread, game, |r| {
                    let line = match r {
                        Ok(run) => ended(run, &name_of).unwrap_or_else(|e| e),
                        Err(e) => {
                            let _ = events.send(DiceUiEvent::Error(e.clone()));
                            format!("the table stopped: {e}")
                        }
                    };
                    let _ = events.send(DiceUiEvent::Finished(line.clone()));
                    line
                })
                .await;
                let Some((run, _)) = end else {
                    // The seat's deadline settles it for the others (PROTOCOL.md §12.3).
                    std::process::exit(0)
                };
                ui?;
                run?
            }
        };
        let view = run.game.view(Some(self.me as Seat));
        for e in G::log(&view) {
            println!("  · {}", G::line(e, &name_of));
        }
        for v in &run.violations {
            println!("rejected: {v}");
        }
        ended(&run, &name_of)
    }
}

impl Seated {
    /// Seats a bot made by `bot` at each of `others` (its own key, relay connection and dice
    /// secret), plays this seat through `ui` (a bot of the same kind when `ui` says so), then
    /// waits for the bots: the final line, and the bots that failed.
    async fn against_bots<G: DiceUi + Send + Sync + 'static>(
        self,
        game: G,
        ui: SeatUi,
        others: Vec<(u16, Keys)>,
        urls: &[String],
        bot: fn(StdRng) -> Box<dyn Bot<G>>,
    ) -> Result<(Result<String, String>, Vec<String>), String>
    where
        G::Action: Send + Sync,
        G::View: Send + Sync,
    {
        let mut rng = StdRng::from_rng(OsRng).map_err(|e| e.to_string())?;
        let mut seeded = || StdRng::from_rng(&mut rng).map_err(|e| e.to_string());
        let mut bots = Vec::new();
        for (i, k) in others {
            bots.push((i, k, bot(seeded()?)));
        }
        let (table, seats, deadline) = (self.table, self.seats.clone(), self.deadline);
        let tasks =
            super::dice_demo::spawn_bot_seats(&game, bots, table, &seats, urls, deadline).await?;
        let out = self.run(game, ui, bot(seeded()?)).await;
        Ok((out, super::dice_demo::finish_bots(tasks).await))
    }
}

/// Forwards what the session reports to the screen.
fn observe<G: DiceUi>(events: std::sync::mpsc::Sender<DiceUiEvent>) -> Observer<G> {
    Box::new(move |news| {
        let e = match news {
            DiceNews::View(v) => DiceUiEvent::View(G::ui_view(v.clone())),
            DiceNews::Waiting {
                step,
                seats,
                deadline,
            } => DiceUiEvent::Waiting(Waiting {
                step,
                seats: seats.iter().map(|s| *s as Seat).collect(),
                deadline,
            }),
        };
        let _ = events.send(e);
    })
}

/// The last line of a dice table, as a player, `watch` or `verify` reports it.
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
    let seats = seat_keys(spec)?;
    let table = table_id(spec)?;
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
    let run = spectate(pool, table, seats, game, deadline, None)
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

/// Runs the session as a spectator: no seat, no dice secret, only public events.
async fn spectate<G: Game + Send + 'static>(
    pool: &RelayPool,
    table: [u8; 32],
    seats: Vec<PublicKey>,
    game: G,
    deadline: Duration,
    observer: Option<Observer<G>>,
) -> Result<DiceRun<G>, dice_net::SessionError> {
    let watcher = Participant {
        me: None,
        bot: None,
        refuse_to_open: false,
        observer,
    };
    // Nothing new for this long and the table is given up on (a finished game is reported).
    let mut cfg = RunConfig::new(deadline);
    cfg.idle = deadline;
    dice_net::run_with(pool, table, seats, game, watcher, cfg).await
}

/// `tolerance watch` of a dice table: follows it live, or replays it once finished, as a
/// spectator with no seat and no dice secret, printing each step once the session has checked
/// it — bids and claims, the cups a challenge opens, dice and lives lost, the winner. A
/// spectator's view holds only what every player may know, so no die is printed before its
/// cup is opened.
pub async fn watch(
    pool: &RelayPool,
    relays: &[String],
    host: &PublicKey,
    mut spec: TableSpec,
) -> Result<(), String> {
    // A table still in its lobby: its seats, and so its session, are not known yet.
    let give_up = std::time::Instant::now() + Duration::from_secs(600);
    let cancelled = |s: &TableSpec| {
        s.lobby
            .as_ref()
            .is_some_and(|l| l.status == crate::wire::lobby::LobbyStatus::Cancelled)
    };
    while !spec.is_seated() && !cancelled(&spec) {
        if std::time::Instant::now() > give_up {
            return Err(format!("table {} was not seated in time", spec.table));
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        spec = super::verify::find_table(pool, relays, &spec.table, Some(*host))
            .await?
            .1;
    }
    super::lobby::check_seated(pool, host, &spec).await?;
    let n = u8::try_from(spec.seats.len()).map_err(|_| "too many seats")?;
    let seats = seat_keys(&spec)?;
    let profiles = crate::net::profiles::fetch_names(pool, &seats, Duration::from_secs(2)).await;
    let names: Vec<String> = seats
        .iter()
        .map(|k| {
            profiles
                .get(k)
                .cloned()
                .unwrap_or_else(|| crate::net::profiles::short_npub(k))
        })
        .collect();
    println!(
        "watching {} table {} ({}): {}",
        spec.game,
        spec.table,
        spec.rules.as_deref().unwrap_or("standard"),
        names.join(", ")
    );
    let table = table_id(&spec)?;
    // The players settle a silent seat by the table's deadline; a little longer here sees it.
    let deadline = step_deadline(&spec) + Duration::from_secs(30);
    let line = match setup(&spec.game, spec.rules.as_deref(), n)? {
        DiceTable::Perudo(g) => follow(pool, table, seats, g, deadline, names).await?,
        DiceTable::Mia(g) => follow(pool, table, seats, g, deadline, names).await?,
    };
    println!("{line}");
    Ok(())
}

async fn follow<G: TextGame + Send + 'static>(
    pool: &RelayPool,
    table: [u8; 32],
    seats: Vec<PublicKey>,
    game: G,
    deadline: Duration,
    names: Vec<String>,
) -> Result<String, String> {
    let printed_names = names.clone();
    let mut shown = 0;
    let observer: Observer<G> = Box::new(move |news| {
        if let DiceNews::View(v) = news {
            let log = G::log(v);
            for e in &log[shown.min(log.len())..] {
                println!(
                    "  · {}",
                    G::line(e, &|s| crate::ui::seat_name(&printed_names, s))
                );
            }
            shown = log.len();
        }
    });
    let run = spectate(pool, table, seats, game, deadline, Some(observer))
        .await
        .map_err(|e| format!("the table stopped: {e}"))?;
    ended(&run, &|s| crate::ui::seat_name(&names, s))
}
