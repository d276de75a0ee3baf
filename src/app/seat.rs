//! Playing this identity's seat at a seated table, for any game: the shared end of `host`,
//! `join` and `resume`. Journalled, so `resume` can continue after a crash.

use crate::engine::Seat;
use crate::games::registry::{self, TableGame, Visit};
use crate::identity;
use crate::net::pool::RelayPool;
use crate::net::profiles::{fetch_names, name_or_npub};
use crate::table::error::TableError;
use crate::table::journal::{self, Journal, TableMeta};
use crate::table::lobby::Joined;
use crate::table::runner::{run_client_on, BotDecider, Decider, RunConfig};
use crate::wire::{self, TableSpec};
use nostr_sdk::prelude::*;
use rand::rngs::{OsRng, StdRng};
use rand::SeedableRng;
use std::collections::HashMap;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

/// Who plays this identity's seat, and through what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatUi {
    /// `--auto`: a bot.
    Bot,
    /// The line interface.
    Line,
    /// The terminal table.
    Tui,
}

impl SeatUi {
    /// A bot for `--auto`; else the terminal table when both ends are a terminal and `--plain`
    /// was not asked for; else the line interface.
    pub fn choose(auto: bool, plain: bool) -> SeatUi {
        if auto {
            SeatUi::Bot
        } else if !plain && crate::ui::tui::available() {
            SeatUi::Tui
        } else {
            SeatUi::Line
        }
    }
}

/// The plain record left in the shell after the terminal table: the story, then how it ended.
/// The table's record after the terminal table closed: the game in words, then what the table
/// itself decided (timeouts, removals), so a timed-out move never reads as a choice.
pub fn print_record(r: &crate::table::runner::ClientReport, names: &[String]) {
    for line in &r.story {
        println!("  · {line}");
    }
    let name = crate::ui::line::namer(names, r.seat);
    for v in &r.verdicts {
        if matches!(v, crate::table::session::Verdict::Finished { .. }) {
            continue;
        }
        println!("  ! {}", crate::table::verify::verdict_words(v, &name));
    }
}

/// How people are named at the table: "you", profile names, else short npubs — of the
/// identities behind the seats (a table key is never shown as a person, PROTOCOL §2.3).
pub fn seat_names(
    spec: &TableSpec,
    me: &PublicKey,
    names: &HashMap<PublicKey, String>,
) -> Vec<String> {
    spec.seats
        .iter()
        .map(|h| match PublicKey::from_hex(h) {
            Ok(k) if k == *me => "you".to_string(),
            Ok(k) => name_or_npub(names, &spec.identity_of(&k)),
            Err(_) => h.clone(),
        })
        .collect()
}

/// Plays the seat to the end of the table.
/// Plays on the command's `pool` (signing with `keys`), which the table closes when it ends.
/// `authority`: the identity that authorized `keys` as its table key, to which the journal
/// seals the table key for `resume`.
pub async fn play_seat(
    keys: &Keys,
    authority: Option<PublicKey>,
    pool: &RelayPool,
    joined: Joined,
    start: u64,
    ui: SeatUi,
    resumed: Option<TableMeta>,
) -> Result<(), String> {
    let Joined { spec, host, relays } = joined;
    let home = identity::config_dir();
    let me = keys.public_key();
    let seat = spec
        .seats
        .iter()
        .position(|s| *s == me.to_hex())
        .ok_or("this identity holds no seat at the table")? as Seat;
    let names = fetch_names(pool, &spec.identities(), Duration::from_secs(2)).await;
    let names = seat_names(&spec, &me, &names);
    if let Some(identity) = authority {
        journal::seal_table_key(&home, &identity, &spec.table, keys)?;
    }
    for (s, n) in names.iter().enumerate() {
        println!("  seat {s}: {n}");
    }
    let journal = Journal::open(&home, keys, &spec.table)?;
    let mut meta = resumed.unwrap_or_else(|| TableMeta {
        table: spec.table.clone(),
        host: host.to_hex(),
        relays: relays.clone(),
        naddr: wire::table_naddr(&host, &spec.table, &relays),
        me: me.to_hex(),
        identity: authority.map(|i| i.to_hex()),
        auto: ui == SeatUi::Bot,
        finished: false,
        game: spec.game.clone(),
        players: Vec::new(),
    });
    meta.players = names.clone();
    journal::write_meta(&home, &meta)?;
    let outcome = registry::with_game(
        &spec.game,
        PlaySeat {
            keys: keys.clone(),
            pool: pool.clone(),
            spec: spec.clone(),
            start,
            host,
            relays: relays.clone(),
            seat,
            names,
            ui,
            journal,
            home: home.clone(),
        },
    )?
    .await?;
    journal::write_meta(
        &home,
        &TableMeta {
            finished: outcome.finished,
            ..meta
        },
    )?;
    println!("{}", outcome.line);
    println!(
        "verify with: tolerance verify {}",
        wire::table_naddr(&host, &spec.table, &relays)
    );
    Ok(())
}

/// What stopping the program (Ctrl-C) at a table still running says: no leave was signed,
/// so the seat is kept as after a crash, and `resume` takes it back (PROTOCOL §7.10).
pub fn stopped_words(sits_out: bool, return_ms: u64) -> String {
    if !sits_out {
        return "you stopped without leaving: `tolerance resume` takes your seat back; if you \
                are not back before your time at a step runs out, you forfeit the game"
            .into();
    }
    let mut words = "you stopped without leaving: your seat and your chips are kept, and \
                     `tolerance resume` takes the seat back. If the table waits for you past \
                     your time, your hand is forfeited and you sit out until you are back"
        .to_string();
    if return_ms > 0 {
        let secs = return_ms.div_ceil(1000);
        let wait = if secs >= 3600 && secs.is_multiple_of(3600) {
            format!("{} h", secs / 3600)
        } else if secs >= 60 && secs.is_multiple_of(60) {
            format!("{} min", secs / 60)
        } else {
            format!("{secs} s")
        };
        words.push_str(&format!(
            "; with one player left, the table waits up to {wait} for you"
        ));
    }
    words
}

/// The line every interface ends a table with.
pub fn table_over(r: &crate::table::runner::ClientReport) -> String {
    crate::table::drive::over_line(&r.result, r.stats.events, r.violations.len())
}

struct Played {
    finished: bool,
    line: String,
}

struct PlaySeat {
    keys: Keys,
    pool: RelayPool,
    spec: TableSpec,
    start: u64,
    host: PublicKey,
    relays: Vec<String>,
    seat: Seat,
    names: Vec<String>,
    ui: SeatUi,
    journal: Journal,
    home: PathBuf,
}

type Fut<T> = Pin<Box<dyn std::future::Future<Output = Result<T, String>> + Send>>;

/// A table this seat left goes to the history too, with the story it saw until then, so
/// `tolerance history` lists every table played here, not only those seen to the end.
fn left(seat: (&PathBuf, &str, Seat), game: &str, words: String, story: Vec<String>) -> String {
    let (home, table, seat) = seat;
    crate::history::save(
        home,
        crate::history::Record {
            game: game.to_string(),
            table: table.to_string(),
            seat: Some(seat),
            saved_at: crate::history::now(),
            result: words.clone(),
            lines: story,
            report: serde_json::Value::Null,
        },
    );
    words
}

/// The runner's error in words; a leave is saved to the history first.
fn left_or(seat: (&PathBuf, &str, Seat), game: &str, e: TableError) -> String {
    match e {
        TableError::Left { words, story } => left(seat, game, words, story),
        e => e.to_string(),
    }
}

impl Visit for PlaySeat {
    type Out = Fut<Played>;
    fn visit<G: TableGame>(self) -> Fut<Played> {
        Box::pin(async move {
            let cfg = |decider: Box<dyn Decider<G>>, on_update| RunConfig::<G> {
                keys: self.keys.clone(),
                relays: self.relays.clone(),
                host: self.host,
                spec: self.spec.clone(),
                start: self.start,
                decider,
                journal: Some(self.journal),
                on_update: Some(on_update),
                idle: crate::table::drive::idle_wait(&self.spec.deadlines),
                #[cfg(any(test, feature = "test-support"))]
                tamper: None,
                pool: crate::net::pool::PoolConfig::default(),
                names: self.names.clone(),
                speculate: true,
                clock_skew: crate::app::common::clock_skew(),
            };
            let printer = || crate::ui::line::printer::<G>(self.names.clone(), Some(self.seat));
            let here = (&self.home, self.spec.table.as_str(), self.seat);
            let report = match self.ui {
                SeatUi::Bot => {
                    let bot = BotDecider(G::bot(
                        crate::bots::BotLevel::Normal,
                        StdRng::from_rng(OsRng).map_err(|e| e.to_string())?,
                    ));
                    run_client_on(self.pool.clone(), cfg(Box::new(bot), printer()))
                        .await
                        .map_err(|e| left_or(here, G::NAME, e))?
                }
                SeatUi::Line => {
                    let person = crate::ui::line::person::<G>(self.names.clone(), self.seat);
                    run_client_on(self.pool.clone(), cfg(Box::new(person), printer()))
                        .await
                        .map_err(|e| left_or(here, G::NAME, e))?
                }
                SeatUi::Tui => {
                    let played = crate::ui::tui::play::<G, _, _, _>(
                        self.names.clone(),
                        self.seat,
                        |person, on_update| {
                            run_client_on(self.pool.clone(), cfg(Box::new(person), on_update))
                        },
                        table_over,
                    )
                    .await?;
                    let report = match played {
                        crate::ui::tui::Played::Done(report) => report,
                        crate::ui::tui::Played::Left(words, e) => {
                            let story = match e {
                                Some(TableError::Left { story, .. }) => story,
                                _ => Vec::new(),
                            };
                            return Err(left(here, G::NAME, words, story));
                        }
                        crate::ui::tui::Played::Stopped => {
                            return Err(stopped_words(G::SITS_OUT, self.spec.deadlines.return_ms))
                        }
                    };
                    print_record(&report, &self.names);
                    report
                }
            };
            for v in &report.violations {
                println!(
                    "rejected: {}",
                    v.text_named(&|x| crate::ui::seat_name(&self.names, x))
                );
            }
            // For scripts and the fault soak: the client's whole report, as JSON.
            if let Some(path) = std::env::var_os("TOLERANCE_REPORT") {
                let json = serde_json::to_string(&report).map_err(|e| e.to_string())?;
                std::fs::write(&path, json).map_err(|e| {
                    format!(
                        "could not write the report to {}: {e}",
                        path.to_string_lossy()
                    )
                })?;
            }
            let record = crate::history::Record {
                game: G::NAME.to_string(),
                table: self.spec.table.clone(),
                seat: Some(self.seat),
                saved_at: crate::history::now(),
                result: report.result.clone(),
                lines: report.story.clone(),
                report: report.report.clone(),
            };
            crate::history::save(&self.home, record);
            Ok(Played {
                finished: report.finished,
                line: table_over(&report),
            })
        })
    }
}
