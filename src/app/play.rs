//! `tolerance play`: you against bots. Networked by default — every seat its own key, relay
//! connection and session, the full trustless protocol over the embedded relay (or `--relay`)
//! — or `--local`, the engine alone with this machine's dice and cards.

use super::common::{practice_names, relays_or_embedded, runtime, setup_options};
use super::seat::{print_record, table_over, SeatUi};
use crate::bots::{Bot, BotLevel};
use crate::engine::sim::{fulfil_all, Oracle};
use crate::engine::{Seat, ToAct};
use crate::games::registry::{self, SetupOptions, TableGame, Visit};
use crate::table::demo::{run_demo, DemoOptions};
use crate::table::runner::{BotDecider, Decider};
use crate::table::session::SessionError;
use crate::wire::Pace;
use rand::rngs::{OsRng, StdRng};
use rand::SeedableRng;
use std::io::{BufRead, Write};
use std::time::Duration;

#[derive(Debug, Clone, clap::Args)]
pub struct PlayArgs {
    /// The game (see `tolerance games`).
    #[arg(long, default_value = crate::games::registry::DEFAULT_GAME)]
    pub game: String,
    /// Players at the table, you included.
    #[arg(long, default_value_t = 4)]
    pub players: u8,
    /// A built-in variant (Tolerance: standard, super-ace, card-again, tournament, cash; Mia:
    /// traditional or modern), a variant FILE, or an naddr1… of a published variant.
    #[arg(long)]
    pub variant: Option<String>,
    /// Stop after this many hands or rounds (default: the game's own end).
    #[arg(long)]
    pub hands: Option<u64>,
    /// Let a bot play your seat too (a headless run of the same loop).
    #[arg(long)]
    pub auto: bool,
    /// Play locally through the engine only (no relay, no cryptography).
    #[arg(long)]
    pub local: bool,
    /// Relay URL (repeatable); none starts the embedded relay on loopback.
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// How well the bots play: easy, normal or hard.
    #[arg(long, default_value_t = BotLevel::Normal)]
    pub bot_level: BotLevel,
    /// The line interface even on a terminal (for scripts and screen readers).
    #[arg(long, alias = "line")]
    pub plain: bool,
    /// The table's timing against the bots: fast (15 s a move and a 30 s time bank, as in an
    /// online card room), normal or correspondence.
    #[arg(long, default_value = "fast")]
    pub pace: String,
    /// With --local: deal, roll and let the bots choose from this seed, so a game can be
    /// played again as it was (default: fresh randomness).
    #[arg(long, requires = "local")]
    pub seed: Option<u64>,
}

impl Default for PlayArgs {
    fn default() -> Self {
        PlayArgs {
            game: crate::games::registry::DEFAULT_GAME.into(),
            players: 4,
            variant: None,
            hands: None,
            auto: false,
            local: false,
            relays: Vec::new(),
            bot_level: BotLevel::Normal,
            plain: false,
            pace: "fast".into(),
            seed: None,
        }
    }
}

pub fn run(args: PlayArgs) -> Result<(), String> {
    let rt = runtime()?;
    let opts = rt.block_on(setup_options(
        args.variant.as_deref(),
        args.hands,
        args.players,
        &args.relays,
    ))?;
    let game = args.game.clone();
    if args.local {
        return registry::with_game(&game, Local { args, opts })?;
    }
    rt.block_on(registry::with_game(&game, Networked { args, opts })?)
}

struct Networked {
    args: PlayArgs,
    opts: SetupOptions,
}

type Fut = std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + Send>>;

impl Visit for Networked {
    type Out = Fut;
    fn visit<G: TableGame>(self) -> Fut {
        Box::pin(async move {
            let args = self.args;
            let (relays, _embedded) = relays_or_embedded(&args.relays, false).await?;
            let names = practice_names(args.players);
            let bots = args.players.saturating_sub(1);
            println!(
                "{}: you and {bots} bot{}, every seat its own key, over {}",
                G::TITLE,
                if bots == 1 { "" } else { "s" },
                relays.join(", ")
            );
            let opts = DemoOptions {
                setup: self.opts,
                relays,
                deadlines: Pace::parse(&args.pace)?.deadlines(),
                idle: Duration::from_secs(3600),
                bot_level: args.bot_level,
                verify_after: false,
                names: names.clone(),
                ..DemoOptions::default()
            };
            let printer = || Some(crate::ui::line::printer::<G>(names.clone(), Some(0)));
            let run = match SeatUi::choose(args.auto, args.plain) {
                SeatUi::Bot => {
                    let bot: Box<dyn Decider<G>> = Box::new(BotDecider(G::bot(
                        args.bot_level,
                        StdRng::from_rng(OsRng).map_err(|e| e.to_string())?,
                    )));
                    run_demo::<G>(opts, Some(bot), printer()).await?
                }
                SeatUi::Line => {
                    let person = Box::new(crate::ui::line::person::<G>(names.clone(), 0));
                    run_demo::<G>(opts, Some(person), printer()).await?
                }
                SeatUi::Tui => {
                    let played = crate::ui::tui::play::<G, _, _, _>(
                        names.clone(),
                        0,
                        |person, on_update| {
                            run_demo::<G>(opts, Some(Box::new(person)), Some(on_update))
                        },
                        |run| match &run.reports[0] {
                            Ok(r) => table_over(r),
                            Err(e) => format!("the table stopped: {e}"),
                        },
                    )
                    .await?;
                    // Practice runs every seat in this process: stopping or leaving ends it.
                    let run = match played {
                        crate::ui::tui::Played::Done(run) => run,
                        crate::ui::tui::Played::Left(..) => {
                            return Err("you left the table: a practice table ends with you".into())
                        }
                        crate::ui::tui::Played::Stopped => {
                            return Err("you stopped the practice table".into())
                        }
                    };
                    if let Ok(r) = &run.reports[0] {
                        print_record(r, &names);
                    }
                    run
                }
            };
            match &run.reports[0] {
                Ok(r) => {
                    crate::history::save(
                        &crate::identity::config_dir(),
                        crate::history::Record {
                            game: G::NAME.to_string(),
                            table: run.table.clone(),
                            seat: Some(0),
                            saved_at: crate::history::now(),
                            result: r.result.clone(),
                            lines: r.story.clone(),
                            report: r.report.clone(),
                        },
                    );
                    for v in &r.violations {
                        println!(
                            "rejected: {}",
                            v.text_named(&|x| crate::ui::seat_name(&names, x))
                        );
                    }
                    println!("{}", table_over(r));
                    println!("verify with: tolerance verify {}", run.summary.naddr);
                    Ok(())
                }
                Err(e) => Err(e.to_string()),
            }
        })
    }
}

struct Local {
    args: PlayArgs,
    opts: SetupOptions,
}

impl Visit for Local {
    type Out = Result<(), String>;
    fn visit<G: TableGame>(self) -> Result<(), String> {
        let args = self.args;
        let setup = G::setup(&self.opts)?;
        let mut game = G::start(&setup, args.players).map_err(|e| e.to_string())?;
        let mut rng = match args.seed {
            Some(s) => StdRng::seed_from_u64(s),
            None => StdRng::from_rng(OsRng).map_err(|e| e.to_string())?,
        };
        let mut oracle = Oracle::new(StdRng::from_rng(&mut rng).map_err(|e| e.to_string())?);
        let mut bots: Vec<Box<dyn Bot<G>>> = (0..args.players)
            .map(|_| G::bot(args.bot_level, StdRng::from_rng(&mut rng).expect("seeded")))
            .collect();
        let others = args.players.saturating_sub(1);
        println!(
            "LOCAL table of {}: you and {others} bot{} on this machine, dealt and rolled by this \
             machine's RNG (not the trustless table: use `tolerance play` without --local)",
            G::TITLE,
            if others == 1 { "" } else { "s" }
        );
        let names = practice_names(args.players);
        let name = |s: Seat| names.get(s as usize).cloned().unwrap_or_default();
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        let mut shown = 0;
        loop {
            // No signed log here: a game's timer runs on this machine's clock.
            if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
                game.clock(d.as_secs());
            }
            let story = game.story(Some(0), &name);
            for l in story.iter().skip(shown) {
                println!("  · {l}");
            }
            shown = story.len();
            let seats: Vec<Seat> = match game.to_act() {
                ToAct::Terminal => break,
                ToAct::Chance(reqs) => {
                    let outs = fulfil_all(&mut oracle, &reqs)?;
                    game.apply_chance(&outs).map_err(|e| e.to_string())?;
                    continue;
                }
                ToAct::Seat(s) => vec![s],
                ToAct::Sealed(v) => v,
            };
            let mut chosen = Vec::new();
            for s in seats {
                let legal = game.legal_actions(s);
                let view = game.view(Some(s));
                let a = if s == 0 && !args.auto {
                    print!("{}", G::render(&view, &name));
                    loop {
                        print!("{}", G::prompt(&view, &legal));
                        std::io::stdout().flush().ok();
                        let Some(Ok(input)) = lines.next() else {
                            println!("\nbye");
                            return Ok(());
                        };
                        if matches!(input.trim(), "q" | "quit") {
                            println!("bye");
                            return Ok(());
                        }
                        match G::parse_move(input.trim(), &view, &legal) {
                            // As at a networked table: the rules accept some moves only this
                            // seat's client can refuse (a draw while a tile fits).
                            Ok(a) if !crate::ui::line::offered(&legal, &a) => {
                                println!(
                                    "  that move is not allowed now: {}",
                                    offer::<G>(&view, &legal)
                                );
                            }
                            Ok(a) => match game.clone().apply(0, &a) {
                                Ok(()) => break a,
                                Err(e) => {
                                    println!("  {}", SessionError::Illegal(e.words_for_mover()))
                                }
                            },
                            Err(e) => println!("  {e}"),
                        }
                    }
                } else {
                    bots[s as usize].choose(&view, &legal)
                };
                chosen.push((s, a));
            }
            for (s, a) in chosen {
                game.apply(s, &a).map_err(|e| e.to_string())?;
            }
        }
        for l in game.story(Some(0), &name).iter().skip(shown) {
            println!("  · {l}");
        }
        let result = game.result_line(&name);
        println!("{result}");
        crate::history::save(
            &crate::identity::config_dir(),
            crate::history::Record {
                game: G::NAME.to_string(),
                table: "local".to_string(),
                seat: Some(0),
                saved_at: crate::history::now(),
                result,
                lines: game.story(Some(0), &name),
                report: game.report(),
            },
        );
        Ok(())
    }
}

/// The moves a seat may make, in words, for a refusal to point at: "set [3|5] east or draw".
fn offer<G: TableGame>(view: &G::View, legal: &[G::Action]) -> String {
    const SHOWN: usize = 6;
    let mut moves: Vec<String> = legal
        .iter()
        .take(SHOWN)
        .map(|a| G::move_text(view, a))
        .collect();
    if legal.len() > SHOWN {
        moves.push(format!("{} more", legal.len() - SHOWN));
    }
    let last = moves.pop().unwrap_or_default();
    if moves.is_empty() {
        format!("you may {last}")
    } else {
        format!("you may {} or {last}", moves.join(", "))
    }
}
