//! `tolerance play` (you and bots over a relay) and `tolerance demo` (bots only).

use super::demo::{run_demo, DemoOptions};
use super::runner::Decider;
use super::HandSummary;
use crate::cli::PlayArgs;
use crate::games::tolerance::Variant;
use crate::ui::line;
use crate::wire::Deadlines;
use std::io::{BufRead, Write};
use std::time::Duration;

pub fn print_hand(h: &HandSummary, me: u8) {
    let name = |s: u8| {
        if s == me {
            "you".to_string()
        } else {
            format!("bot {s}")
        }
    };
    print_hand_named(h, &name);
}

/// Prints a finished hand with the given seat names.
pub fn print_hand_named(h: &HandSummary, name: &dyn Fn(u8) -> String) {
    if !h.forfeits.is_empty() {
        for (s, why) in &h.forfeits {
            println!("hand {}: {} forfeited ({why})", h.hand + 1, name(*s));
        }
    }
    if let Some(r) = &h.result {
        if r.uncontested {
            println!("hand {}: everyone else folded", h.hand + 1);
        } else {
            let pts: Vec<String> = r
                .points
                .iter()
                .map(|(s, p)| format!("{} {p}", name(*s)))
                .collect();
            println!("hand {} showdown: {}", h.hand + 1, pts.join(", "));
        }
        for pot in &r.pots {
            let w: Vec<String> = pot
                .shares
                .iter()
                .map(|(s, a)| format!("{} +{a}", name(*s)))
                .collect();
            println!("  pot {}: {}", pot.amount, w.join(", "));
        }
    }
    let st: Vec<String> = h
        .final_stacks
        .iter()
        .map(|(s, c)| format!("{} {c}", name(*s)))
        .collect();
    println!("  stacks: {}", st.join(", "));
}

/// Seat names for printing.
pub type Names = Box<dyn Fn(u8) -> String + Send + Sync>;

/// The person's side of a seat in the line interface: shows the table, reads a move, checks it
/// is legal. With `auto` the first legal move is taken (a scripted run of the same loop).
pub fn spawn_line_ui(auto: bool, names: Names) -> (Decider, tokio::task::JoinHandle<()>) {
    let (ask_tx, mut ask_rx) = tokio::sync::mpsc::unbounded_channel::<(
        crate::games::tolerance::HandView,
        Vec<crate::games::tolerance::Action>,
    )>();
    let (ans_tx, ans_rx) = tokio::sync::mpsc::unbounded_channel();
    let ui = tokio::spawn(async move {
        let (line_tx, mut line_rx) = tokio::sync::mpsc::unbounded_channel::<Option<String>>();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            for l in stdin.lock().lines() {
                if line_tx.send(l.ok()).is_err() {
                    return;
                }
            }
            let _ = line_tx.send(None);
        });
        let names = |s: u8| names(s);
        let mut shown_log = (u64::MAX, 0usize);
        while let Some((view, legal)) = ask_rx.recv().await {
            let view: crate::games::tolerance::HandView = view;
            let from = if shown_log.0 == view.hand_no {
                shown_log.1
            } else {
                0
            };
            for l in line::log_lines(&view, from, &names) {
                println!("  · {l}");
            }
            shown_log = (view.hand_no, view.log.len());
            print!("{}", line::render(&view, &names));
            let action = if auto {
                legal[0]
            } else {
                loop {
                    print!("{}", line::prompt(&view));
                    std::io::stdout().flush().ok();
                    let Some(Some(input)) = line_rx.recv().await else {
                        // End of input: the person left. Nothing is owed mid-hand that the
                        // others cannot settle by timeout, so leave at once.
                        println!("\nbye");
                        std::process::exit(0);
                    };
                    match line::parse_move(&input, &view) {
                        Ok(a) if legal.contains(&a) || is_raise_in_range(&a, &legal) => break a,
                        Ok(_) => println!("  that move is not legal now"),
                        Err(e) => println!("  {e}"),
                    }
                }
            };
            if ans_tx.send(action).is_err() {
                return;
            }
        }
    });
    (
        Decider::Human {
            ask: ask_tx,
            answer: ans_rx,
        },
        ui,
    )
}

/// The table `tolerance play` runs: the person at seat 0 through `human`, bots at the others,
/// deadlines long enough for a person to think.
fn person_table(args: &PlayArgs, variant: Variant, human: Decider) -> DemoOptions {
    DemoOptions {
        players: args.players,
        hands: args.hands,
        relays: args.relays.clone(),
        variant,
        deadlines: Deadlines {
            move_ms: 10 * 60_000,
            crypto_ms: 30_000,
        },
        idle_timeout: Duration::from_secs(3600),
        tamper: Vec::new(),
        human: Some(human),
        keys: Vec::new(),
        bot_level: args.bot_level,
        seat0_view: None,
        seat0_progress: None,
    }
}

pub async fn play_networked(args: PlayArgs) -> Result<(), String> {
    use std::io::IsTerminal;
    if !args.plain
        && !args.auto
        && std::io::stdout().is_terminal()
        && std::io::stdin().is_terminal()
    {
        return play_tui(args).await;
    }
    let variant: Variant = crate::variants::resolve_variant(&args.variant, &args.relays).await?;
    println!(
        "Networked Tolerance: you (seat 0) and {} bots, each its own Nostr key and relay \
         connection; cards from a mental-poker deck, dice by commit-reveal.",
        args.players.saturating_sub(1)
    );
    if args.relays.is_empty() {
        println!("Starting the embedded relay on 127.0.0.1 ...");
    }
    let (human, ui) = spawn_line_ui(
        args.auto,
        Box::new(|s: u8| {
            if s == 0 {
                "you".to_string()
            } else {
                format!("bot {s}")
            }
        }),
    );
    let opts = person_table(&args, variant, human);
    let run = run_demo(opts, |l| {
        if let Ok(line) = serde_json::from_str::<super::demo::HandLine>(&l) {
            print_hand(&line.hand, 0);
            let record = crate::history::Record {
                table: line.table,
                seat: Some(0),
                saved_at: crate::history::now(),
                hand: line.hand,
            };
            if let Err(e) = crate::history::append(&crate::identity::config_dir(), &record) {
                eprintln!("warning: hand not saved to the history: {e}");
            }
        }
    })
    .await?;
    ui.abort();
    let s = &run.summary;
    println!(
        "table {} over: {} hands, {} events, every client verified every proof: {}",
        &s.table[..16],
        s.hands,
        s.events,
        s.verified
    );
    Ok(())
}

fn is_raise_in_range(
    a: &crate::games::tolerance::Action,
    legal: &[crate::games::tolerance::Action],
) -> bool {
    use crate::games::tolerance::Action;
    let Action::Raise { to } = a else {
        return false;
    };
    let tos: Vec<u64> = legal
        .iter()
        .filter_map(|l| match l {
            Action::Raise { to } => Some(*to),
            _ => None,
        })
        .collect();
    match (tos.iter().min(), tos.iter().max()) {
        (Some(lo), Some(hi)) => lo <= to && to <= hi,
        _ => false,
    }
}

pub async fn demo_cli(
    players: u8,
    hands: u64,
    relays: Vec<String>,
    variant: Variant,
    json: bool,
    bot_level: crate::bots::BotLevel,
) -> Result<(), String> {
    let opts = DemoOptions {
        players,
        hands: Some(hands),
        relays,
        variant,
        deadlines: Deadlines {
            move_ms: 20_000,
            crypto_ms: 20_000,
        },
        idle_timeout: Duration::from_secs(
            std::env::var("TOLERANCE_IDLE_SECS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(120),
        ),
        bot_level,
        ..DemoOptions::default()
    };
    let run = run_demo(opts, move |l| {
        if json {
            println!("{l}");
        } else if let Ok(line) = serde_json::from_str::<super::demo::HandLine>(&l) {
            print_hand(&line.hand, u8::MAX);
        }
    })
    .await?;
    for (i, r) in run.reports.iter().enumerate() {
        match r {
            Err(e) => eprintln!("client {i} failed: {e}"),
            Ok(r) => {
                for v in &r.violations {
                    eprintln!("client {i} rejected: {v}");
                }
            }
        }
    }
    if json {
        println!(
            "{}",
            serde_json::to_string(&run.summary).expect("serialisable")
        );
    } else {
        println!(
            "{}",
            serde_json::to_string_pretty(&run.summary).expect("serialisable")
        );
    }
    if run.summary.verified {
        Ok(())
    } else {
        Err("the table did not verify".into())
    }
}

/// `tolerance play` on a terminal: the same table as the line mode, drawn by [`crate::ui::tui`].
async fn play_tui(args: PlayArgs) -> Result<(), String> {
    use super::table_ui::{TableEnd, TableUi};
    use nostr_sdk::prelude::{Keys, ToBech32};
    let variant: Variant = crate::variants::resolve_variant(&args.variant, &args.relays).await?;
    let keys: Vec<Keys> = (0..args.players).map(|_| Keys::generate()).collect();
    let names: Vec<String> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            if i == 0 {
                "you".to_string()
            } else {
                crate::ui::tui::short_npub(&k.public_key().to_bech32().unwrap_or_default())
            }
        })
        .collect();
    let (ui, human) = TableUi::start(0, names);
    let record = ui.recorder(0, crate::identity::config_dir());
    let opts = DemoOptions {
        keys,
        seat0_view: Some(ui.on_view()),
        seat0_progress: Some(ui.on_progress()),
        ..person_table(&args, variant, human)
    };
    let game = run_demo(opts, move |l| {
        if let Ok(line) = serde_json::from_str::<super::demo::HandLine>(&l) {
            record.record(&line.table, &line.hand);
        }
    });
    let end = ui
        .run_until(game, |run| match run {
            Ok(r) => format!(
                "table over after {} hands · every client verified every proof: {}",
                r.summary.hands, r.summary.verified
            ),
            Err(e) => format!("the table stopped: {e}"),
        })
        .await?;
    match end {
        // The failure was on the end screen and is in the printed line.
        TableEnd::Played(_) => Ok(()),
        // Leaving mid-table: the others settle this seat by timeout, as in the line mode.
        TableEnd::Left => std::process::exit(0),
    }
}
