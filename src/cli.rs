//! Command-line commands. `main.rs` only parses arguments and calls [`run`].

use crate::bots::{Bot, BotLevel};
use crate::engine::sim::{fulfil_all, Oracle};
use crate::engine::{Game, Seat, ToAct};
use crate::games::tolerance::{Hand, Table, Variant};
use crate::ui::line;
use clap::{Parser, Subcommand};
use rand::rngs::{OsRng, StdRng};
use rand::{Rng, SeedableRng};
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "tolerance",
    version,
    about = "Trustless table games over Nostr relays"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play The Game of Tolerance against bots (the default command).
    Play(PlayArgs),
    /// Announce a table, invite players by npub, and play your seat when it fills.
    Host(crate::table::seat::HostArgs),
    /// Take a seat at a table (naddr1…, nevent1… or hex id) and play it.
    Join(crate::table::seat::JoinArgs),
    /// Open public tables and the invitations addressed to you; on a terminal, the lobby screen
    /// (join one, host a new table from a variant, send feedback to the author).
    Tables(crate::table::seat::TablesArgs),
    /// Continue a table this machine was playing when it stopped (crash, kill, power cut).
    Resume(crate::table::seat::ResumeArgs),
    /// A table of bots over relays, each its own key and connection (headless).
    Demo {
        /// The game: tolerance, perudo or mia.
        #[arg(long, default_value = "tolerance")]
        game: String,
        #[arg(long, default_value_t = 4)]
        players: u8,
        /// Hands to play (Tolerance; a dice game is one game to its end).
        #[arg(long, default_value_t = 3)]
        hands: u64,
        /// Relay URL (repeatable); none starts the embedded relay on loopback.
        #[arg(long = "relay")]
        relays: Vec<String>,
        /// A built-in name (standard, super-ace, card-again, tournament, cash), a variant FILE,
        /// or an naddr1… of a published variant.
        #[arg(long, default_value = "standard")]
        variant: String,
        /// One JSON line per hand, then a summary object.
        #[arg(long)]
        json: bool,
        /// How well the bots play: easy, normal or hard.
        #[arg(long, default_value_t = BotLevel::Normal)]
        bot_level: BotLevel,
    },
    /// Fetch a table's events from a relay and re-check every signature, proof and rule.
    Verify {
        /// Relay URL (repeatable); optional when the table is an naddr with relay hints.
        #[arg(long = "relay")]
        relays: Vec<String>,
        /// The table: its 64-hex id or an naddr1….
        #[arg(long)]
        table: String,
        #[arg(long)]
        json: bool,
    },
    /// Follow a table live as a spectator (or replay a finished one), from its public events.
    Watch {
        /// Relay URL (repeatable); optional when the table is an naddr with relay hints.
        #[arg(long = "relay")]
        relays: Vec<String>,
        /// The table: its 64-hex id or an naddr1….
        #[arg(long)]
        table: String,
    },
    /// Replay a game script (fixed cards and dice) and print the outcome as JSON. A script's
    /// `game` field picks the game: tolerance (the default), perudo or mia.
    Replay {
        /// Path to a hand script (JSON); `-` reads standard input.
        file: PathBuf,
    },
    /// Run a Nostr relay (for LAN play and tests).
    Relay {
        #[arg(long, default_value_t = 7447)]
        port: u16,
        /// Keep events on disk in this directory (LMDB).
        #[arg(long)]
        db: Option<PathBuf>,
        /// Address to bind; loopback unless you mean to serve a LAN.
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
    },
    /// The hands you played on this machine.
    History {
        #[command(subcommand)]
        command: Option<HistoryCommand>,
    },
    /// Your Nostr identity: create, import or show it.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Send feedback or a variant idea to the author of Tolerance over Nostr: a private NIP-17
    /// message by default, signed by your key (`tolerance keys new`).
    Feedback {
        /// The message; without it, standard input is read, or $EDITOR opens when interactive.
        message: Vec<String>,
        /// Recipient npub (default: the game's author, or `author` in config.toml).
        #[arg(long)]
        to: Option<String>,
        /// Relay URL (repeatable); default: `relays` in config.toml, else a few public relays.
        #[arg(long = "relay")]
        relays: Vec<String>,
        /// Post a public note (kind 1) that mentions the recipient instead.
        #[arg(long)]
        public: bool,
    },
    /// Work with variant files.
    Variant {
        #[command(subcommand)]
        command: VariantCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// List saved hands (the default).
    List,
    /// Replay hand N of the list step by step.
    Show {
        n: usize,
        /// Wait for Enter between steps.
        #[arg(long)]
        step: bool,
    },
    /// Every saved hand as one JSON array.
    Export,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Generate a new key and store it (encrypted with a passphrase unless --plain).
    New {
        /// Store the secret unencrypted (owner-only file permissions).
        #[arg(long)]
        plain: bool,
        /// Replace an existing identity.
        #[arg(long)]
        force: bool,
    },
    /// Import a secret key (nsec1… or hex).
    Import {
        secret: String,
        #[arg(long)]
        plain: bool,
        #[arg(long)]
        force: bool,
    },
    /// Show the stored identity's npub (unlocking it proves the passphrase).
    Show,
    /// Publish the name other players see (a kind-0 profile).
    Profile(crate::table::seat::ProfileArgs),
}

#[derive(Debug, Subcommand)]
pub enum VariantCommand {
    /// Print a variant file (built-in name, default "standard") to standard output.
    New {
        #[arg(default_value = "standard")]
        builtin: String,
    },
    /// Check a variant file and print the rules it sets, or the error naming the field.
    Validate { file: PathBuf },
    /// Publish a variant file for others to play (a Nostr addressable event, kind 37768) and
    /// send the author its naddr in a private message.
    Propose {
        file: PathBuf,
        /// Shown in lists; also names the proposal (default: the variant's name). Proposing
        /// again under the same title replaces it.
        #[arg(long)]
        title: Option<String>,
        /// What the variant changes and why (default: a line of its rules).
        #[arg(long)]
        description: Option<String>,
        /// Recipient npub (default: the game's author, or `author` in config.toml).
        #[arg(long)]
        to: Option<String>,
        /// Relay URL (repeatable); default: `relays` in config.toml, else a few public relays.
        #[arg(long = "relay")]
        relays: Vec<String>,
    },
    /// The variants published on the relays, the author's included, newest first.
    List {
        /// Whose proposals to mark as the author's (default: the game's author or config.toml).
        #[arg(long)]
        to: Option<String>,
        #[arg(long = "relay")]
        relays: Vec<String>,
    },
    /// Fetch a published variant and print it as a variant file (its metadata in comments).
    Show {
        /// naddr1… of the variant.
        naddr: String,
        /// Relay URL (repeatable), in addition to the naddr's relay hints.
        #[arg(long = "relay")]
        relays: Vec<String>,
    },
}

#[derive(Debug, Clone, clap::Args)]
pub struct PlayArgs {
    /// The game: tolerance, perudo or mia (perudo and mia play --local for now).
    #[arg(long, default_value = "tolerance")]
    pub game: String,
    /// Players at the table, you included.
    #[arg(long, default_value_t = 4)]
    pub players: u8,
    /// A built-in name (standard, super-ace, card-again, tournament, cash; for mia: traditional
    /// or modern ranking), a variant FILE, or an naddr1… of a published variant (fetched from its
    /// relay hints and --relay).
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Stop after this many hands (default: until the tournament ends or you quit).
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
    #[arg(long)]
    pub plain: bool,
}

pub fn load_variant(arg: &str) -> Result<Variant, String> {
    if let Some(v) = Variant::builtin(arg) {
        return Ok(v);
    }
    let text = std::fs::read_to_string(arg).map_err(|e| {
        format!(
            "'{arg}' is neither a built-in variant ({}) nor a readable file: {e}",
            Variant::BUILTIN.join(", ")
        )
    })?;
    Variant::parse(&text).map_err(|e| format!("{arg}: {e}"))
}

pub fn run(cli: Cli) -> Result<(), String> {
    match cli.command.unwrap_or(Command::Play(PlayArgs {
        game: "tolerance".into(),
        players: 4,
        variant: "standard".into(),
        hands: None,
        auto: false,
        local: false,
        relays: Vec::new(),
        bot_level: BotLevel::default(),
        plain: false,
    })) {
        Command::Play(args)
            if args.game != "tolerance"
                && (args.local || !matches!(args.game.as_str(), "perudo" | "mia")) =>
        {
            crate::ui::dice::play_local_cli(
                &args.game,
                args.players,
                &args.variant,
                args.auto,
                args.plain,
            )
        }
        Command::Play(args) if args.game != "tolerance" => {
            let ui = crate::table::seat::SeatUi::choose(args.auto, args.plain);
            let line = runtime()?.block_on(crate::table::dice_seat::play_against_bots(
                &args.game,
                &args.variant,
                args.players,
                args.relays,
                ui,
            ))?;
            println!("{line}");
            Ok(())
        }
        Command::Play(args) if args.local => play_local(&args),
        Command::Play(args) => runtime()?.block_on(crate::table::play::play_networked(args)),
        Command::Demo {
            game,
            players,
            relays,
            variant,
            json,
            ..
        } if game != "tolerance" => runtime()?.block_on(crate::table::dice_demo::demo_cli(
            &game, players, relays, &variant, json,
        )),
        Command::Demo {
            game: _,
            players,
            hands,
            relays,
            variant,
            json,
            bot_level,
        } => runtime()?.block_on(async {
            let variant = crate::variants::resolve_variant(&variant, &relays).await?;
            crate::table::play::demo_cli(players, hands, relays, variant, json, bot_level).await
        }),
        Command::Verify {
            relays,
            table,
            json,
        } => runtime()?.block_on(crate::table::verify::verify_cli(relays, table, json)),
        Command::Watch { relays, table } => {
            runtime()?.block_on(crate::table::verify::watch_cli(relays, table))
        }
        Command::Replay { file } => {
            let text = if file.as_os_str() == "-" {
                std::io::read_to_string(std::io::stdin()).map_err(|e| e.to_string())?
            } else {
                std::fs::read_to_string(&file)
                    .map_err(|e| format!("cannot read {}: {e}", file.display()))?
            };
            let out = crate::games::replay_script(&text)?;
            println!(
                "{}",
                serde_json::to_string_pretty(&out.json).expect("serialisable")
            );
            if out.ok {
                Ok(())
            } else {
                Err(format!(
                    "rule error at action {:?}: {}",
                    out.at_action,
                    out.error.unwrap_or_default()
                ))
            }
        }
        Command::Relay { port, db, bind } => runtime()?
            .block_on(crate::net::relay::run_standalone(
                std::net::SocketAddr::new(bind, port),
                db,
            ))
            .map_err(|e| e.to_string()),
        Command::Host(args) => runtime()?.block_on(crate::table::seat::host_cli(args)),
        Command::Join(args) => runtime()?.block_on(crate::table::seat::join_cli(args)),
        Command::Tables(args) => runtime()?.block_on(crate::table::seat::tables_cli(args)),
        Command::Resume(args) => runtime()?.block_on(crate::table::seat::resume_cli(args)),
        Command::Keys { command } => keys_cli(command),
        Command::Feedback {
            message,
            to,
            relays,
            public,
        } => feedback_cli(message, to, relays, public),
        Command::History { command } => history_cli(command.unwrap_or(HistoryCommand::List)),
        Command::Variant { command } => variant_cli(command),
    }
}

/// The local game: you and bots through the engine on this machine. Chance comes from this
/// machine's RNG, so it is *not* the trustless networked game.
fn play_local(args: &PlayArgs) -> Result<(), String> {
    let variant = if args.variant.trim().starts_with("naddr1") {
        runtime()?.block_on(crate::variants::resolve_variant(
            &args.variant,
            &args.relays,
        ))?
    } else {
        load_variant(&args.variant)?
    };
    if !(2..=variant.seats).contains(&args.players) {
        return Err(format!(
            "--players must be 2..={} for this variant",
            variant.seats
        ));
    }
    let mut rng = StdRng::from_rng(OsRng).map_err(|e| e.to_string())?;
    let seats: Vec<(Seat, Option<u64>)> = (0..args.players).map(|s| (s, None)).collect();
    let first_dealer = rng.gen_range(0..args.players);
    let mut table = Table::new(variant, &seats, first_dealer).map_err(|e| e.to_string())?;
    let mut bots: Vec<Box<dyn Bot<Hand>>> = (0..args.players)
        .map(|_| {
            args.bot_level
                .bot(StdRng::from_rng(&mut rng).expect("seeded"))
        })
        .collect();
    let mut oracle = Oracle::new(StdRng::from_rng(&mut rng).map_err(|e| e.to_string())?);
    {
        use std::io::IsTerminal;
        if !args.plain
            && !args.auto
            && std::io::stdout().is_terminal()
            && std::io::stdin().is_terminal()
        {
            return play_local_tui(args, table, bots, oracle);
        }
    }
    let names = |s: Seat| {
        if s == 0 {
            "you".to_string()
        } else {
            format!("bot {s}")
        }
    };
    println!(
        "LOCAL game: you and {} bots on this machine, dealt by this machine's RNG. \
         (Networked, trustless play over Nostr relays is `tolerance demo`/`host`.)",
        args.players - 1
    );
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut played = 0;
    while !table.is_over() && args.hands.is_none_or(|h| played < h) {
        let mut hand =
            Hand::new(&table.next_hand().map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        let mut shown = 0;
        loop {
            let view = hand.view(Some(0));
            for l in line::log_lines(&view, shown, &names) {
                println!("  · {l}");
            }
            shown = view.log.len();
            match hand.to_act() {
                ToAct::Terminal => break,
                ToAct::Chance(reqs) => {
                    let outs = fulfil_all(&mut oracle, &reqs)?;
                    hand.apply_chance(&outs).map_err(|e| e.to_string())?;
                }
                ToAct::Seat(s) => {
                    let legal = hand.legal_actions(s);
                    let action = if s == 0 && !args.auto {
                        print!("{}", line::render(&view, &names));
                        loop {
                            print!("{}", line::prompt(&view));
                            std::io::stdout().flush().ok();
                            let Some(Ok(input)) = lines.next() else {
                                println!("\nbye");
                                return Ok(());
                            };
                            match line::parse_move(&input, &view) {
                                Ok(a) => match hand.clone().apply(0, &a) {
                                    Ok(()) => break a,
                                    Err(e) => println!("  {e}"),
                                },
                                Err(e) => println!("  {e}"),
                            }
                        }
                    } else {
                        bots[s as usize].choose(&hand.view(Some(s)), &legal)
                    };
                    hand.apply(s, &action).map_err(|e| e.to_string())?;
                }
                ToAct::Sealed(_) => return Err("Tolerance has no simultaneous moves".into()),
            }
        }
        let view = hand.view(Some(0));
        print!("{}", line::render(&view, &names));
        table.record(&hand).map_err(|e| e.to_string())?;
        let record = crate::history::Record {
            table: "local".into(),
            seat: Some(0),
            saved_at: crate::history::now(),
            hand: crate::table::HandSummary::of(&hand),
        };
        if let Err(e) = crate::history::append(&crate::identity::config_dir(), &record) {
            eprintln!("warning: hand not saved to the history: {e}");
        }
        played += 1;
    }
    match table.winner() {
        Some(w) => println!("{} won the tournament after {played} hands", names(w)),
        None => println!("stopped after {played} hands"),
    }
    Ok(())
}

/// The local game drawn by the terminal table: the engine runs here, the interface on its own
/// thread.
fn play_local_tui(
    args: &PlayArgs,
    mut table: Table,
    mut bots: Vec<Box<dyn Bot<Hand>>>,
    mut oracle: Oracle<StdRng>,
) -> Result<(), String> {
    use crate::table::runner::Progress;
    use crate::table::Await;
    use crate::ui::tui::{self, UiEvent, UiState};
    let names = crate::ui::local_names(args.players);
    let (ui_tx, ui_rx) = std::sync::mpsc::channel::<UiEvent>();
    let (ans_tx, mut ans_rx) = tokio::sync::mpsc::unbounded_channel();
    let state = UiState::new(Some(0), names, tui::colour_wanted());
    let ui = std::thread::spawn(move || tui::run(state, ui_rx, ans_tx));
    let progress = |hand: &Hand, awaiting: Await| {
        UiEvent::Progress(Progress {
            hand: hand.hand_no,
            awaiting,
            participants: hand.players.iter().map(|p| p.seat).collect(),
            // No deadlines and no relays on this machine alone.
            deadline: std::time::Duration::ZERO,
            relays_connected: 0,
            relays_total: 0,
        })
    };
    let mut played = 0;
    let mut left = false;
    'table: while !table.is_over() && args.hands.is_none_or(|h| played < h) {
        let mut hand =
            Hand::new(&table.next_hand().map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        loop {
            let _ = ui_tx.send(UiEvent::View(hand.view(Some(0))));
            match hand.to_act() {
                ToAct::Terminal => break,
                ToAct::Chance(reqs) => {
                    let outs = fulfil_all(&mut oracle, &reqs)?;
                    hand.apply_chance(&outs).map_err(|e| e.to_string())?;
                }
                ToAct::Seat(s) => {
                    let _ = ui_tx.send(progress(&hand, Await::Move(s)));
                    let legal = hand.legal_actions(s);
                    let action = if s == 0 {
                        let _ = ui_tx.send(UiEvent::Ask(hand.view(Some(0)), legal));
                        match ans_rx.blocking_recv() {
                            Some(a) => a,
                            None => {
                                left = true;
                                break 'table;
                            }
                        }
                    } else {
                        // A pause a person can follow.
                        std::thread::sleep(std::time::Duration::from_millis(400));
                        bots[s as usize].choose(&hand.view(Some(s)), &legal)
                    };
                    if let Err(e) = hand.apply(s, &action) {
                        let _ = ui_tx.send(UiEvent::Error(e.to_string()));
                    }
                }
                ToAct::Sealed(_) => return Err("Tolerance has no simultaneous moves".into()),
            }
        }
        let _ = ui_tx.send(UiEvent::View(hand.view(Some(0))));
        table.record(&hand).map_err(|e| e.to_string())?;
        let summary = crate::table::HandSummary::of(&hand);
        let _ = ui_tx.send(UiEvent::HandDone(summary.clone()));
        let record = crate::history::Record {
            table: "local".into(),
            seat: Some(0),
            saved_at: crate::history::now(),
            hand: summary,
        };
        if let Err(e) = crate::history::append(&crate::identity::config_dir(), &record) {
            let _ = ui_tx.send(UiEvent::Error(format!(
                "hand not saved to the history: {e}"
            )));
        }
        played += 1;
    }
    let line = match table.winner() {
        Some(w) if !left => format!(
            "{} won the tournament after {played} hands (local game)",
            if w == 0 {
                "you".to_string()
            } else {
                format!("bot {w}")
            }
        ),
        _ => format!("stopped after {played} hands (local game)"),
    };
    if !left {
        let _ = ui_tx.send(UiEvent::Finished(line.clone()));
    }
    drop(ui_tx);
    let ended = ui.join();
    tui::restore_terminal();
    println!("{line}");
    match ended {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(e),
        Err(_) => Err("the interface stopped unexpectedly".into()),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

/// The passphrase from the environment, or typed on standard input (`twice` to confirm a new one).
fn passphrase(twice: bool) -> Option<String> {
    if let Ok(p) = std::env::var(crate::identity::PASSPHRASE_ENV) {
        return Some(p);
    }
    let mut lines = std::io::stdin().lock().lines();
    eprint!("passphrase: ");
    let first = lines.next()?.ok()?;
    if twice {
        eprint!("again: ");
        let second = lines.next()?.ok()?;
        if second != first {
            eprintln!("the passphrases differ");
            return None;
        }
    }
    Some(first)
}

fn keys_cli(command: KeysCommand) -> Result<(), String> {
    use crate::identity;
    use nostr_sdk::prelude::ToBech32;
    let dir = identity::config_dir();
    let show = |k: &nostr_sdk::Keys| {
        println!(
            "{}",
            k.public_key()
                .to_bech32()
                .expect("a public key always encodes")
        );
        println!("stored in {}", identity::identity_path(&dir).display());
    };
    let secure = |plain: bool| -> Result<Option<String>, String> {
        if plain {
            return Ok(None);
        }
        match passphrase(true) {
            Some(p) if !p.is_empty() => Ok(Some(p)),
            _ => Err(format!(
                "a passphrase is needed (set {} or type it), or pass --plain",
                identity::PASSPHRASE_ENV
            )),
        }
    };
    match command {
        KeysCommand::New { plain, force } => {
            let k = nostr_sdk::Keys::generate();
            let p = secure(plain)?;
            let k = identity::store(&dir, k.secret_key(), p.as_deref(), force)
                .map_err(|e| e.to_string())?;
            show(&k);
        }
        KeysCommand::Import {
            secret,
            plain,
            force,
        } => {
            let sk = identity::parse_secret(&secret).map_err(|e| e.to_string())?;
            let p = secure(plain)?;
            let k = identity::store(&dir, &sk, p.as_deref(), force).map_err(|e| e.to_string())?;
            show(&k);
        }
        KeysCommand::Show => {
            let k = identity::load(&dir, || passphrase(false)).map_err(|e| e.to_string())?;
            show(&k);
        }
        KeysCommand::Profile(args) => {
            return runtime()?.block_on(crate::table::seat::profile_cli(args));
        }
    }
    Ok(())
}

/// The stored identity, unlocked.
/// The stored identity, unlocked with `TOLERANCE_PASSPHRASE` or a typed passphrase.
pub fn load_identity() -> Result<nostr_sdk::Keys, String> {
    crate::identity::load(&crate::identity::config_dir(), || passphrase(false))
        .map_err(|e| e.to_string())
}

fn feedback_cli(
    message: Vec<String>,
    to: Option<String>,
    relays: Vec<String>,
    public: bool,
) -> Result<(), String> {
    use crate::feedback;
    use std::io::IsTerminal;
    let settings = crate::config::Settings::load(&crate::identity::config_dir())?;
    let to = settings.recipient(to.as_deref(), feedback::AUTHOR_NPUB)?;
    let relays = settings.relays(&relays, &feedback::DEFAULT_RELAYS);
    let text = if !message.is_empty() {
        message.join(" ")
    } else if !std::io::stdin().is_terminal() {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| format!("cannot read the message from standard input: {e}"))?
    } else {
        let editor = std::env::var("VISUAL")
            .or_else(|_| std::env::var("EDITOR"))
            .unwrap_or_else(|_| "vi".into());
        feedback::compose_in_editor(&editor)?
    };
    let text = feedback::check_message(&text)?;
    let keys = load_identity()?;
    let lines = runtime()?.block_on(feedback::send_feedback(keys, &to, &relays, &text, public))?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}

fn variant_cli(command: VariantCommand) -> Result<(), String> {
    use crate::feedback::{self, AUTHOR_NPUB, DEFAULT_RELAYS};
    use crate::variants;
    use nostr_sdk::prelude::ToBech32;
    // Read only by the commands that talk to relays, so a broken config.toml does not stop
    // `variant new` or `validate`.
    let settings = || crate::config::Settings::load(&crate::identity::config_dir());
    match command {
        VariantCommand::New { builtin } => {
            let v = Variant::builtin(&builtin)
                .ok_or_else(|| format!("unknown built-in variant '{builtin}'"))?;
            print!("{}", crate::games::tolerance::variant::commented_toml(&v));
            Ok(())
        }
        VariantCommand::Validate { file } => {
            let v = load_variant(&file.to_string_lossy())?;
            println!("{}: valid\n{}", file.display(), v.to_toml());
            Ok(())
        }
        VariantCommand::Propose {
            file,
            title,
            description,
            to,
            relays,
        } => {
            let settings = settings()?;
            let to = settings.recipient(to.as_deref(), AUTHOR_NPUB)?;
            let relays = settings.relays(&relays, &DEFAULT_RELAYS);
            let v = load_variant(&file.to_string_lossy())?;
            let title = title.unwrap_or_else(|| v.name.clone());
            let keys = load_identity()?;
            runtime()?.block_on(async {
                let pool = feedback::connect(keys, &relays).await?;
                let done =
                    variants::propose(&pool, &v, &title, description.as_deref().unwrap_or(""), &to)
                        .await;
                pool.shutdown().await;
                let p = done?;
                println!("{}", p.naddr);
                println!(
                    "published \"{}\" (kind 37768, d={})",
                    p.post.title, p.post.slug
                );
                for url in &p.published.accepted {
                    println!("  accepted by {url}");
                }
                for (url, why) in &p.published.rejected {
                    println!("  NOT accepted by {url}: {why}");
                }
                match p.message {
                    Ok(r) => {
                        for line in feedback::report_lines(&feedback::Sent::Private(r)) {
                            println!("{line}");
                        }
                        Ok(())
                    }
                    Err(e) => Err(format!(
                        "the variant is published but {} was not told: {e}",
                        to.to_bech32().expect("a public key always encodes")
                    )),
                }
            })
        }
        VariantCommand::List { to, relays } => {
            let settings = settings()?;
            let author = settings.recipient(to.as_deref(), AUTHOR_NPUB)?;
            let relays = settings.relays(&relays, &DEFAULT_RELAYS);
            runtime()?.block_on(async {
                let pool = feedback::connect(nostr_sdk::Keys::generate(), &relays).await?;
                let listing = variants::list(&pool).await;
                let hints = pool.relays().to_vec();
                pool.shutdown().await;
                let listing = listing?;
                if listing.posts.is_empty() {
                    println!("no variants on {}", relays.join(", "));
                }
                for post in &listing.posts {
                    for line in variants::list_lines(post, &hints, &author) {
                        println!("{line}");
                    }
                }
                for (id, by, why) in &listing.invalid {
                    eprintln!(
                        "skipped {} by {}: {why}",
                        id.to_bech32().expect("an event id always encodes"),
                        by.to_bech32().expect("a public key always encodes")
                    );
                }
                Ok(())
            })
        }
        VariantCommand::Show { naddr, relays } => {
            let settings = settings()?;
            let author = settings.recipient(None, AUTHOR_NPUB).ok();
            let relays = if relays.is_empty() {
                settings.relays.clone()
            } else {
                relays
            };
            let (post, _) = runtime()?.block_on(variants::fetch(&naddr, &relays))?;
            print!(
                "{}",
                variants::as_file(&post, naddr.trim(), author.as_ref())
            );
            Ok(())
        }
    }
}

fn history_cli(command: HistoryCommand) -> Result<(), String> {
    use crate::history;
    let records = history::load(&crate::identity::config_dir()).map_err(|e| e.to_string())?;
    match command {
        HistoryCommand::List => {
            if records.is_empty() {
                println!("no hands saved yet: play one with `tolerance play`");
            }
            for (i, r) in records.iter().enumerate() {
                println!("{}", history::list_line(i + 1, r));
            }
        }
        HistoryCommand::Show { n, step } => {
            let r = n
                .checked_sub(1)
                .and_then(|i| records.get(i))
                .ok_or_else(|| history::HistoryError::NoSuchHand(n).to_string())?;
            let mut lines = std::io::stdin().lock().lines();
            for l in history::show_lines(r) {
                println!("{l}");
                if step && lines.next().is_none() {
                    break;
                }
            }
        }
        HistoryCommand::Export => {
            println!(
                "{}",
                serde_json::to_string_pretty(&records).expect("serialisable")
            );
        }
    }
    Ok(())
}
