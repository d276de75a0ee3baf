//! Relay passes of every game on the runtime, split into decisions and crypto (PROTOCOL.md
//! §5.8, issue 31).
//!
//! A pass is one step of the log: every client waits for it before the next. Each game plays
//! one demo table of bots over the embedded relay (`run_demo`, as `tolerance demo` does), and
//! seat 0 labels every step when it closes by the type of the log events that closed it:
//! - **decisions**: `move` and `seal` (a player chose something: the floor of a hand);
//! - **crypto**: `setup`, `shuffle`, `reveal`, `open`, `mailbox`, `letter`, `unseal` (steps that
//!   wait for keys, shuffles, tokens or openings);
//! - **other**: votes, acknowledgements, the end, leaves and returns.
//!
//! It prints, per game, the passes of each kind per hand or round (the game's own `hands` or
//! `rounds` count from its report), and the passes from the table's start to its first
//! decision. The counts are the protocol's, not the machine's: they do not depend on speed.
//!
//! Run: `cargo bench --bench passes` (env `PASSES_BENCH_GAMES=tolerance,perudo,…`, default the
//! seven games playing today; `PASSES_BENCH_SEATS=4`, clamped to each game's range;
//! `PASSES_BENCH_HANDS=3` for games that play a set number of hands; `PASSES_BENCH_RUNS=2`
//! tables per game; `PASSES_BENCH_VERSION`, default this build's, plays tables of an older
//! protocol version it still plays, to count a version's change beside the one before). Figures are in BENCHMARKS.md, "Relay passes per game".

#[path = "support/step_type.rs"]
mod step_type;

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use tolerance::games::registry::{self, SetupOptions, TableGame, Visit};
use tolerance::table::demo::{run_demo, DemoOptions};
use tolerance::table::runner::RelayHealth;
use tolerance::table::Session;

use step_type::step_type;

const DECISIONS: &[&str] = &["move", "seal"];
const CRYPTO: &[&str] = &[
    "setup", "shuffle", "reveal", "open", "mailbox", "letter", "unseal",
];

/// Passes of one table, by the type of the events that closed each step.
#[derive(Default)]
struct Tally {
    by_type: BTreeMap<String, u64>,
    /// Passes before the first decision step closed.
    to_first_decision: Option<u64>,
    rounds: u64,
    seats: u8,
    /// Reveal passes whose events carry tokens of two decks or more (Tolerance from version
    /// 11: a showdown that deals the next hand).
    two_decks: u64,
}

impl Tally {
    fn kind(&self, kinds: &[&str]) -> u64 {
        kinds
            .iter()
            .map(|k| self.by_type.get(*k).copied().unwrap_or(0))
            .sum()
    }

    fn total(&self) -> u64 {
        self.by_type.values().sum()
    }
}

type Fut = Pin<Box<dyn Future<Output = Result<Tally, String>>>>;

struct Table {
    seats: u8,
    hands: u64,
    version: u8,
}

impl Visit for Table {
    type Out = Fut;
    fn visit<G: TableGame>(self) -> Fut {
        Box::pin(async move {
            let seats = self.seats.clamp(G::SEATS.0, G::SEATS.1);
            let tally: Arc<Mutex<Tally>> = Arc::default();
            let marks = tally.clone();
            let mut last_step = 0u32;
            let run = run_demo::<G>(
                DemoOptions {
                    setup: SetupOptions {
                        players: seats,
                        hands: Some(self.hands),
                        ..SetupOptions::default()
                    },
                    version: self.version,
                    ..DemoOptions::default()
                },
                None,
                Some(Box::new(move |s: &Session<G>, _: &RelayHealth| {
                    let step = s.awaiting().step;
                    if step <= last_step {
                        return;
                    }
                    // Every step that closed since the last update, each by its own events.
                    let applied = s.applied();
                    let mut t = marks.lock().expect("not poisoned");
                    for closed in last_step..step {
                        let label = step_type(&applied, closed).unwrap_or_else(|| "timeout".into());
                        if t.to_first_decision.is_none() && DECISIONS.contains(&label.as_str()) {
                            t.to_first_decision = Some(t.total());
                        }
                        if label == "reveal" && token_decks(&applied, closed) >= 2 {
                            t.two_decks += 1;
                        }
                        *t.by_type.entry(label).or_default() += 1;
                    }
                    last_step = step;
                })),
            )
            .await
            .map_err(|e| e.to_string())?;
            if !run.summary.verified {
                return Err(format!("{} did not verify", G::NAME));
            }
            let report = &run.summary.report;
            let rounds = ["hands", "rounds"]
                .iter()
                .find_map(|k| match &report[*k] {
                    serde_json::Value::Number(n) => n.as_u64(),
                    serde_json::Value::Array(a) => Some(a.len() as u64),
                    _ => None,
                })
                .unwrap_or(1)
                .max(1);
            let mut t = std::mem::take(&mut *tally.lock().expect("not poisoned"));
            t.rounds = rounds;
            t.seats = seats;
            Ok(t)
        })
    }
}

/// How many decks the tokens of `step`'s reveal events name, as seat 0 applied them.
fn token_decks(applied: &[&nostr_sdk::prelude::Event], step: u32) -> usize {
    let mut decks = std::collections::BTreeSet::new();
    for e in applied {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&e.content) else {
            continue;
        };
        if v["step"].as_u64() != Some(u64::from(step)) {
            continue;
        }
        if let Some(tokens) = v["tokens"].as_array() {
            decks.extend(tokens.iter().filter_map(|t| t["deck"].as_u64()));
        }
    }
    decks.len()
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}: not a number: {v}"))
        })
        .unwrap_or(default)
}

fn main() {
    let games: Vec<String> = std::env::var("PASSES_BENCH_GAMES")
        .unwrap_or_else(|_| {
            "tolerance,perudo,mia,lamarckian-poker,abandon-ship,all-fives,chickenfoot".into()
        })
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    let seats: u8 = env_or("PASSES_BENCH_SEATS", 4);
    let hands: u64 = env_or("PASSES_BENCH_HANDS", 3);
    let runs: u32 = env_or("PASSES_BENCH_RUNS", 2);
    let version: u8 = env_or("PASSES_BENCH_VERSION", tolerance::wire::VERSION);
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    println!(
        "| game | seats | tables | hands or rounds | passes / round | decisions / round | crypto / round | other / round | passes to the first decision | crypto passes by type (whole tables) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|---|");
    for game in &games {
        let mut all = Tally::default();
        let mut starts = Vec::new();
        for _ in 0..runs {
            let t = rt
                .block_on(
                    registry::with_game(
                        game,
                        Table {
                            seats,
                            hands,
                            version,
                        },
                    )
                    .unwrap_or_else(|e| panic!("{e}")),
                )
                .unwrap_or_else(|e| panic!("{game}: {e}"));
            for (k, v) in &t.by_type {
                *all.by_type.entry(k.clone()).or_default() += v;
            }
            all.rounds += t.rounds;
            all.seats = t.seats;
            all.two_decks += t.two_decks;
            starts.push(
                t.to_first_decision
                    .map_or_else(|| "—".to_owned(), |n| n.to_string()),
            );
        }
        let r = all.rounds as f64;
        let mut crypto_types: Vec<String> = all
            .by_type
            .iter()
            .filter(|(k, _)| CRYPTO.contains(&k.as_str()))
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        if all.two_decks > 0 {
            crypto_types.push(format!("(reveals of two decks at once {})", all.two_decks));
        }
        let total = all.total();
        let decisions = all.kind(DECISIONS);
        let crypto = all.kind(CRYPTO);
        println!(
            "| {game} | {} | {runs} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} |",
            all.seats,
            all.rounds,
            total as f64 / r,
            decisions as f64 / r,
            crypto as f64 / r,
            (total - decisions - crypto) as f64 / r,
            starts.join(", "),
            crypto_types.join(", "),
        );
    }
}
