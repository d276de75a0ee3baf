//! Playing your own seat at a table found by npub: `tolerance host`, `join`, `tables` and
//! `resume`. One person per process, with the identity stored on this machine.

use super::journal::{self, Journal, TableMeta};
use super::lobby::{self, HostOptions, Joined, LobbyNews};
use super::play::{print_hand_named, spawn_line_ui};
use super::runner::{run_client, ClientConfig, Decider};
use super::table_ui::{TableEnd, TableUi};
use crate::bots::tolerance::HeuristicBot;
use crate::identity;
use crate::net::pool::{PoolConfig, RelayPool};
use crate::net::profiles::{fetch_names, short_npub};
use crate::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use crate::ui::tui::lobby::{Entry, LobbyEvent, LobbyRequest};
use crate::wire::{self, Deadlines, TableSpec};
use nostr_sdk::prelude::*;
use rand::rngs::{OsRng, StdRng};
use rand::SeedableRng;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

#[derive(Debug, Clone, clap::Args)]
pub struct HostArgs {
    /// The game: tolerance, perudo or mia.
    #[arg(long, default_value = "tolerance")]
    pub game: String,
    /// Tolerance: a built-in name (standard, super-ace, card-again, tournament, cash), a variant
    /// FILE or an naddr1…; Mia: the ranking (traditional or modern); Perudo: standard.
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Seats at the table (the most players, you included).
    #[arg(long, default_value_t = 4)]
    pub seats: u8,
    /// Start with fewer players than seats, but at least this many, after --start-after.
    #[arg(long, default_value_t = 2)]
    pub min_players: u8,
    /// Invite this player (npub1…, nprofile1… or hex; repeatable) by a private message.
    #[arg(long = "invite")]
    pub invite: Vec<String>,
    /// Only invited players may sit (the default when anyone is invited).
    #[arg(long, conflicts_with = "public")]
    pub invite_only: bool,
    /// Anyone may sit, invited or not (the default when nobody is invited).
    #[arg(long)]
    pub public: bool,
    #[arg(long, default_value = "")]
    pub title: String,
    /// Stop after this many hands (default: until the variant's style ends the table).
    #[arg(long)]
    pub hands: Option<u64>,
    /// Start with whoever joined (at least --min-players) after this many seconds.
    #[arg(long)]
    pub start_after: Option<u64>,
    /// Cancel the table if it has not started after this many seconds.
    #[arg(long, default_value_t = 600)]
    pub wait: u64,
    /// Seconds a player has for a betting or roll decision.
    #[arg(long, default_value_t = 120)]
    pub move_secs: u64,
    /// Seconds a client has for a cryptographic step (also the grace for a crashed client).
    #[arg(long, default_value_t = 30)]
    pub crypto_secs: u64,
    /// Relay URL (repeatable); none starts the embedded relay on loopback (same machine only).
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// Let a bot play your seat.
    #[arg(long)]
    pub auto: bool,
    /// The line interface even on a terminal (for scripts and screen readers).
    #[arg(long)]
    pub plain: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub struct JoinArgs {
    /// The table: naddr1…, nevent1… of its announcement, or its 64-hex id.
    pub table: String,
    /// Relay URL (repeatable); optional when the naddr carries relay hints.
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// Give up if the table has not started after this many seconds.
    #[arg(long, default_value_t = 600)]
    pub wait: u64,
    /// Let a bot play your seat.
    #[arg(long)]
    pub auto: bool,
    /// The line interface even on a terminal (for scripts and screen readers).
    #[arg(long)]
    pub plain: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub struct TablesArgs {
    /// Relay URL (repeatable).
    #[arg(long = "relay", required = true)]
    pub relays: Vec<String>,
    #[arg(long)]
    pub json: bool,
    /// Print the list even on a terminal, instead of opening the lobby screen.
    #[arg(long)]
    pub plain: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ResumeArgs {
    /// The table to resume (naddr1… or hex id); none lists unfinished tables.
    pub table: Option<String>,
    /// Use these relays instead of the recorded ones (repeatable).
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// The line interface even on a terminal (for scripts and screen readers).
    #[arg(long)]
    pub plain: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ProfileArgs {
    /// The name other players see.
    #[arg(long)]
    pub name: String,
    /// Relay URL (repeatable); also published as your NIP-17 inbox relays.
    #[arg(long = "relay", required = true)]
    pub relays: Vec<String>,
}

fn parse_npub(text: &str) -> Result<PublicKey, String> {
    let t = text.trim();
    if let Ok(p) = Nip19Profile::from_bech32(t) {
        return Ok(p.public_key);
    }
    identity::parse_public(t).map_err(|e| e.to_string())
}

fn print_news(n: &LobbyNews) {
    match n {
        LobbyNews::Announced { naddr } => {
            println!("table announced; others join with:\n  tolerance join {naddr}")
        }
        LobbyNews::Invited { npub, accepted_by } => {
            println!("invited {npub} ({accepted_by} relays took the invitation)")
        }
        LobbyNews::InviteFailed { npub, reason } => {
            println!("could not invite {npub}: {reason}")
        }
        LobbyNews::Joined { npub, players, max } => {
            if *players > 0 {
                println!("{npub} joined ({players}/{max})")
            } else {
                println!("{npub} asked to join")
            }
        }
        LobbyNews::Refused { npub, reason } => println!("refused {npub}: {reason}"),
        LobbyNews::Left { npub } => println!("{npub} left"),
        LobbyNews::Starting { players } => {
            println!("starting with {players} players: drawing the seating order")
        }
        LobbyNews::Revealed { .. } => {}
        LobbyNews::Seated { seats } => {
            let names: Vec<String> = seats
                .iter()
                .filter_map(|h| PublicKey::from_hex(h).ok())
                .map(|k| short_npub(&k))
                .collect();
            println!("seated: {}", names.join(", "))
        }
        LobbyNews::Cancelled { reason } => println!("table cancelled: {reason}"),
    }
}

pub async fn host_cli(args: HostArgs) -> Result<(), String> {
    let keys = crate::cli::load_identity()?;
    host_as(&keys, args).await
}

async fn host_as(keys: &Keys, args: HostArgs) -> Result<(), String> {
    let (variant, rules) = if args.game == "tolerance" {
        (
            crate::variants::resolve_variant(&args.variant, &args.relays).await?,
            None,
        )
    } else {
        // Checked now so that nobody joins a table that cannot start.
        super::dice_seat::setup(&args.game, Some(&args.variant), args.min_players)?;
        super::dice_seat::setup(&args.game, Some(&args.variant), args.seats)?;
        (
            crate::games::tolerance::Variant::default(),
            Some(args.variant.clone()),
        )
    };
    let invite: Vec<PublicKey> = args
        .invite
        .iter()
        .map(|t| parse_npub(t))
        .collect::<Result<_, _>>()?;
    let _embedded;
    let relays = if args.relays.is_empty() {
        let r = EmbeddedRelay::start(EmbeddedRelayConfig::default())
            .await
            .map_err(|e| e.to_string())?;
        println!("embedded relay at {} (this machine only)", r.url());
        let url = r.url().to_string();
        _embedded = Some(r);
        vec![url]
    } else {
        _embedded = None;
        args.relays.clone()
    };
    let public = args.public || (!args.invite_only && invite.is_empty());
    let opts = HostOptions {
        keys: keys.clone(),
        game: args.game.clone(),
        rules,
        relays: relays.clone(),
        variant,
        hands: args.hands,
        deadlines: Deadlines {
            move_ms: args.move_secs * 1000,
            crypto_ms: args.crypto_secs * 1000,
        },
        title: args.title.clone(),
        public,
        min_players: args.min_players,
        max_players: args.seats,
        invite,
        start_after: args.start_after.map(Duration::from_secs),
        wait: Duration::from_secs(args.wait),
    };
    println!(
        "hosting {} as {}: {} seats, {}",
        args.game,
        short_npub(&keys.public_key()),
        args.seats,
        if public { "public" } else { "invite only" }
    );
    let spec = lobby::host_lobby(opts, |n| print_news(&n)).await?;
    let joined = Joined {
        spec,
        host: keys.public_key(),
        relays,
    };
    play_seat(keys, joined, SeatUi::choose(args.auto, args.plain), None).await
}

pub async fn join_cli(args: JoinArgs) -> Result<(), String> {
    let keys = crate::cli::load_identity()?;
    join_as(&keys, args).await
}

async fn join_as(keys: &Keys, args: JoinArgs) -> Result<(), String> {
    let r = lobby::parse_ref(&args.table)?;
    println!("joining as {}", short_npub(&keys.public_key()));
    let joined = lobby::join_lobby(
        keys,
        &args.relays,
        &r,
        Duration::from_secs(args.wait),
        |n| print_news(&n),
    )
    .await?;
    play_seat(keys, joined, SeatUi::choose(args.auto, args.plain), None).await
}

/// Open public tables, invitations, and the profile names of their hosts.
type Tables = (
    Vec<lobby::Listing>,
    Vec<lobby::Listing>,
    HashMap<PublicKey, String>,
);

async fn fetch_tables(keys: &Keys, relays: &[String]) -> Result<Tables, String> {
    let pool = RelayPool::connect(keys.clone(), relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let listed = lobby::list_tables(&pool, keys, Duration::from_secs(5)).await;
    let (public, invites) = match listed {
        Ok(l) => l,
        Err(e) => {
            pool.shutdown().await;
            return Err(e);
        }
    };
    let hosts: Vec<PublicKey> = public
        .iter()
        .chain(&invites)
        .filter_map(|l| PublicKey::parse(&l.host).ok())
        .collect();
    let names = fetch_names(&pool, &hosts, Duration::from_secs(3)).await;
    pool.shutdown().await;
    Ok((public, invites, names))
}

pub async fn tables_cli(args: TablesArgs) -> Result<(), String> {
    let keys = crate::cli::load_identity()?;
    if !args.json && SeatUi::choose(false, args.plain) == SeatUi::Table {
        return lobby_screen(keys, args.relays).await;
    }
    let (public, invites, names) = fetch_tables(&keys, &args.relays).await?;
    if args.json {
        println!(
            "{}",
            serde_json::json!({ "open": public, "invitations": invites })
        );
        return Ok(());
    }
    let host_name = |h: &str| host_label(&names, h);
    println!("Invitations for {}:", short_npub(&keys.public_key()));
    if invites.is_empty() {
        println!("  (none)");
    }
    for l in &invites {
        println!(
            "  {} from {} — {} {}/{} — {}\n    tolerance join {}",
            if l.title.is_empty() {
                "table"
            } else {
                &l.title
            },
            host_name(&l.host),
            l.status,
            l.players,
            l.max_players,
            l.variant,
            l.naddr
        );
    }
    println!("Open public tables:");
    if public.is_empty() {
        println!("  (none)");
    }
    for l in &public {
        println!(
            "  {} hosted by {} — {}/{} — {}\n    tolerance join {}",
            if l.title.is_empty() {
                "table"
            } else {
                &l.title
            },
            host_name(&l.host),
            l.players,
            l.max_players,
            l.variant,
            l.naddr
        );
    }
    Ok(())
}

/// How a host is named to people: its profile name, else a short npub.
fn host_label(names: &HashMap<PublicKey, String>, host: &str) -> String {
    PublicKey::parse(host)
        .ok()
        .map(|k| names.get(&k).cloned().unwrap_or_else(|| short_npub(&k)))
        .unwrap_or_else(|| host.to_string())
}

/// Answers one request of the lobby screen.
async fn serve_lobby(keys: &Keys, relays: &[String], request: LobbyRequest) -> LobbyEvent {
    match request {
        LobbyRequest::Refresh => LobbyEvent::Listed(fetch_tables(keys, relays).await.map(
            |(public, invites, names)| {
                let entry = |listing: lobby::Listing, invited: bool| Entry {
                    host: host_label(&names, &listing.host),
                    listing,
                    invited,
                };
                invites
                    .into_iter()
                    .map(|l| entry(l, true))
                    .chain(public.into_iter().map(|l| entry(l, false)))
                    .collect()
            },
        )),
        LobbyRequest::Check(table) => LobbyEvent::Checked(
            crate::variants::resolve_variant(&table.variant, relays)
                .await
                .and_then(|v| {
                    if table.seats > v.seats {
                        Err(format!(
                            "the variant '{}' seats at most {} players, not {}",
                            v.name, v.seats, table.seats
                        ))
                    } else {
                        Ok(table)
                    }
                }),
        ),
        LobbyRequest::Feedback(text) => {
            use crate::feedback::{send_feedback, AUTHOR_NPUB};
            let settings = crate::config::Settings::load(&identity::config_dir());
            let sent = match settings.and_then(|s| s.recipient(None, AUTHOR_NPUB)) {
                Ok(to) => send_feedback(keys.clone(), &to, relays, &text, false).await,
                Err(e) => Err(e),
            };
            LobbyEvent::FeedbackSent(sent)
        }
    }
}

/// `tolerance tables` on a terminal: the lobby screens, then the chosen table, hosted or joined
/// the same way as `tolerance host` and `tolerance join` do.
async fn lobby_screen(keys: Keys, relays: Vec<String>) -> Result<(), String> {
    use crate::ui::tui::{self, lobby};
    let (events, events_rx) = std::sync::mpsc::channel();
    let (requests, mut requests_rx) = tokio::sync::mpsc::unbounded_channel();
    let _ = requests.send(LobbyRequest::Refresh);
    let state = lobby::LobbyState::new(
        short_npub(&keys.public_key()),
        relays.clone(),
        tui::colour_wanted(),
    );
    let screen = std::thread::spawn(move || lobby::run_lobby(state, events_rx, requests));
    let worker = {
        let keys = keys.clone();
        let relays = relays.clone();
        tokio::spawn(async move {
            while let Some(r) = requests_rx.recv().await {
                if events.send(serve_lobby(&keys, &relays, r).await).is_err() {
                    return;
                }
            }
        })
    };
    let choice = tokio::task::spawn_blocking(move || screen.join()).await;
    worker.abort();
    tui::restore_terminal();
    let choice = match choice {
        Ok(Ok(c)) => c?,
        _ => return Err("the lobby screen stopped unexpectedly".into()),
    };
    match choice {
        lobby::LobbyChoice::Quit => Ok(()),
        lobby::LobbyChoice::Join(naddr) => {
            join_as(
                &keys,
                JoinArgs {
                    table: naddr,
                    relays,
                    wait: 600,
                    auto: false,
                    plain: false,
                },
            )
            .await
        }
        lobby::LobbyChoice::Host(table) => {
            host_as(
                &keys,
                HostArgs {
                    game: "tolerance".into(),
                    variant: table.variant,
                    seats: table.seats,
                    min_players: 2,
                    invite: Vec::new(),
                    invite_only: false,
                    public: true,
                    title: String::new(),
                    hands: None,
                    start_after: None,
                    wait: 600,
                    move_secs: 120,
                    crypto_secs: 30,
                    relays,
                    auto: false,
                    plain: false,
                },
            )
            .await
        }
    }
}

pub async fn resume_cli(args: ResumeArgs) -> Result<(), String> {
    let home = identity::config_dir();
    let Some(table) = args.table else {
        let open = journal::unfinished(&home);
        if open.is_empty() {
            println!("no unfinished table on this machine");
        }
        for m in open {
            println!("{}\n  tolerance resume {}", m.naddr, m.table);
        }
        return Ok(());
    };
    let id = lobby::parse_ref(&table)?.table;
    let meta = journal::read_meta(&home, &id)?;
    let keys = crate::cli::load_identity()?;
    if keys.public_key().to_hex() != meta.me {
        return Err(format!(
            "table {id} was played by another identity ({}); this one is {}",
            PublicKey::from_hex(&meta.me)
                .map(|k| short_npub(&k))
                .unwrap_or_default(),
            short_npub(&keys.public_key())
        ));
    }
    let host = PublicKey::from_hex(&meta.host).map_err(|e| e.to_string())?;
    let relays = if args.relays.is_empty() {
        meta.relays.clone()
    } else {
        args.relays
    };
    let pool = RelayPool::connect(keys.clone(), &relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let spec = super::runner::fetch_table(&pool, &host, &id, Duration::from_secs(10)).await?;
    pool.shutdown().await;
    println!(
        "resuming table {} as {}",
        &id[..16],
        short_npub(&keys.public_key())
    );
    let ui = SeatUi::choose(meta.auto, args.plain);
    play_seat(&keys, Joined { spec, host, relays }, ui, Some(meta)).await
}

pub async fn profile_cli(args: ProfileArgs) -> Result<(), String> {
    let keys = crate::cli::load_identity()?;
    let pool = RelayPool::connect(keys, &args.relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let r = crate::net::profiles::publish_name(&pool, &args.name).await?;
    println!(
        "profile name '{}' accepted by {} relay(s)",
        args.name,
        r.accepted.len()
    );
    // NIP-17: invitations and messages find you through your inbox relay list.
    let inbox: Vec<RelayUrl> = pool.relays().to_vec();
    let r = crate::net::dm::publish_inbox_relays(&pool, &inbox)
        .await
        .map_err(|e| e.to_string())?;
    pool.shutdown().await;
    println!(
        "inbox relays for private messages ({}) accepted by {} relay(s)",
        inbox
            .iter()
            .map(|u| u.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        r.accepted.len()
    );
    Ok(())
}

fn seat_names(spec: &TableSpec, me: &PublicKey, names: &HashMap<PublicKey, String>) -> Vec<String> {
    spec.seats
        .iter()
        .map(|h| match PublicKey::from_hex(h) {
            Ok(k) if k == *me => "you".to_string(),
            Ok(k) => names.get(&k).cloned().unwrap_or_else(|| short_npub(&k)),
            Err(_) => h.clone(),
        })
        .collect()
}

/// Who plays this identity's seat, and through what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatUi {
    /// `--auto`: a bot.
    Bot,
    /// The line interface (`--plain`, or input or output is not a terminal).
    Line,
    /// The terminal table.
    Table,
}

impl SeatUi {
    pub fn choose(auto: bool, plain: bool) -> SeatUi {
        use std::io::IsTerminal;
        if auto {
            SeatUi::Bot
        } else if !plain && std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
            SeatUi::Table
        } else {
            SeatUi::Line
        }
    }

    pub fn is_table(self) -> bool {
        self == SeatUi::Table
    }
}

/// Plays this identity's seat to the end of the table, journalled so `resume` can continue.
async fn play_seat(
    keys: &Keys,
    joined: Joined,
    ui: SeatUi,
    resumed: Option<TableMeta>,
) -> Result<(), String> {
    let home = identity::config_dir();
    play_seat_in(&home, keys, joined, ui, resumed).await
}

async fn play_seat_in(
    home: &Path,
    keys: &Keys,
    joined: Joined,
    ui: SeatUi,
    resumed: Option<TableMeta>,
) -> Result<(), String> {
    let Joined { spec, host, relays } = joined;
    let me = keys.public_key();
    let seat = spec
        .seats
        .iter()
        .position(|s| *s == me.to_hex())
        .ok_or("this identity holds no seat at the table")? as u8;
    let seat_keys: Vec<PublicKey> = spec
        .seats
        .iter()
        .filter_map(|h| PublicKey::from_hex(h).ok())
        .collect();
    let names = match RelayPool::connect(keys.clone(), &relays, PoolConfig::default()).await {
        Ok(pool) => {
            let n = fetch_names(&pool, &seat_keys, Duration::from_secs(2)).await;
            pool.shutdown().await;
            n
        }
        Err(_) => HashMap::new(),
    };
    let names = seat_names(&spec, &me, &names);
    for (s, n) in names.iter().enumerate() {
        println!("  seat {s}: {n}");
    }
    let journal = Journal::open(home, keys, &spec.table)?;
    let meta = resumed.unwrap_or_else(|| TableMeta {
        table: spec.table.clone(),
        host: host.to_hex(),
        relays: relays.clone(),
        naddr: wire::table_naddr(&host, &spec.table, &relays),
        me: me.to_hex(),
        auto: ui == SeatUi::Bot,
        finished: false,
    });
    journal::write_meta(home, &meta)?;
    if spec.game != "tolerance" {
        // The dice session journals its secret and own events the same way (PROTOCOL.md §2.2).
        let line = super::dice_seat::play(keys, &spec, &relays, ui, names, Some(journal)).await?;
        journal::write_meta(
            home,
            &TableMeta {
                finished: true,
                ..meta
            },
        )?;
        println!("{line}");
        return Ok(());
    }
    let name_of = {
        let names = names.clone();
        move |s: u8| {
            names
                .get(s as usize)
                .cloned()
                .unwrap_or_else(|| format!("seat {s}"))
        }
    };
    let mut cfg = ClientConfig {
        keys: keys.clone(),
        relays: relays.clone(),
        host,
        table: spec.table.clone(),
        decider: Decider::Watch,
        idle_timeout: Duration::from_millis(
            (spec.deadlines.move_ms.max(spec.deadlines.crypto_ms)) * 4 + 60_000,
        ),
        tamper: None,
        on_hand: None,
        on_view: None,
        on_progress: None,
        journal: Some(journal),
    };
    let table_id = spec.table.clone();
    let report = if ui == SeatUi::Table {
        let (table_ui, decider) = TableUi::start(seat, names.clone());
        let record = table_ui.recorder(seat, home.to_path_buf());
        cfg.decider = decider;
        cfg.on_hand = Some(Box::new(move |h: &super::HandSummary| {
            record.record(&table_id, h)
        }));
        cfg.on_view = Some(table_ui.on_view());
        cfg.on_progress = Some(table_ui.on_progress());
        let end = table_ui
            .run_until(run_client(cfg), |r| match r {
                Ok(r) => format!(
                    "table over after {} hands · {} violations",
                    r.hands.len(),
                    r.violations.len()
                ),
                Err(e) => format!("the table stopped: {e}"),
            })
            .await?;
        match end {
            TableEnd::Played(report) => report?,
            TableEnd::Left => {
                // The journal keeps this seat's secrets: coming back before the others vote
                // it out continues the hand.
                println!("come back to it with: tolerance resume {}", spec.table);
                std::process::exit(0)
            }
        }
    } else {
        let ui = if ui == SeatUi::Bot {
            cfg.decider = Decider::Bot(Box::new(HeuristicBot::new(
                StdRng::from_rng(OsRng).map_err(|e| e.to_string())?,
            )));
            None
        } else {
            let (d, ui) = spawn_line_ui(false, Box::new(name_of.clone()));
            cfg.decider = d;
            Some(ui)
        };
        let history_home = home.to_path_buf();
        cfg.on_hand = Some(Box::new(move |h: &super::HandSummary| {
            print_hand_named(h, &name_of);
            let record = crate::history::Record {
                table: table_id.clone(),
                seat: Some(seat),
                saved_at: crate::history::now(),
                hand: h.clone(),
            };
            if let Err(e) = crate::history::append(&history_home, &record) {
                eprintln!("warning: hand not saved to the history: {e}");
            }
        }));
        let report = run_client(cfg).await?;
        if let Some(ui) = ui {
            ui.abort();
        }
        report
    };
    journal::write_meta(
        home,
        &TableMeta {
            finished: report.finished,
            ..meta
        },
    )?;
    for v in &report.violations {
        println!("rejected: {v}");
    }
    let stacks: Vec<String> = report
        .final_stacks
        .iter()
        .take(spec.seats.len())
        .enumerate()
        .map(|(s, c)| match c {
            Some(c) => format!("{} {c}", names.get(s).cloned().unwrap_or_default()),
            None => format!("{} out", names.get(s).cloned().unwrap_or_default()),
        })
        .collect();
    let total: u64 = report.final_stacks.iter().flatten().sum::<u64>() + report.chips_out;
    println!(
        "table over: {} hands, {} events checked, {} violations; stacks: {}; chips in play {} of {}",
        report.hands.len(),
        report.stats.events,
        report.violations.len(),
        stacks.join(", "),
        total,
        spec.variant.starting_stack * spec.seats.len() as u64
    );
    println!(
        "verify with: tolerance verify --table {}",
        wire::table_naddr(&host, &spec.table, &relays)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::tui::lobby::NewTable;

    async fn check(variant: &str, seats: u8) -> Result<NewTable, String> {
        let asked = NewTable {
            variant: variant.into(),
            seats,
        };
        match serve_lobby(&Keys::generate(), &[], LobbyRequest::Check(asked)).await {
            LobbyEvent::Checked(r) => r,
            other => panic!("not an answer to a check: {other:?}"),
        }
    }

    /// The lobby's new-table form hosts only what `host --variant` would accept, and says why
    /// not in words.
    #[tokio::test]
    async fn the_lobby_checks_a_variant_and_its_seats_before_hosting() {
        let ok = check("super-ace", 4).await.unwrap();
        assert_eq!((ok.variant.as_str(), ok.seats), ("super-ace", 4));
        let e = check("standard", 11).await.unwrap_err();
        assert!(e.contains("seats at most 10 players, not 11"), "{e}");
        let e = check("/nonexistent/variant.toml", 4).await.unwrap_err();
        assert!(e.contains("neither a built-in variant"), "{e}");
        let dir =
            std::env::temp_dir().join(format!("tolerance-lobby-variant-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("three.toml");
        std::fs::write(&file, "name = \"three\"\nseats = 3\n").unwrap();
        let path = file.to_string_lossy().to_string();
        assert_eq!(check(&path, 3).await.unwrap().seats, 3);
        let e = check(&path, 4).await.unwrap_err();
        assert!(e.contains("'three' seats at most 3 players, not 4"), "{e}");
        std::fs::write(&file, "seats = 1\n").unwrap();
        let e = check(&path, 2).await.unwrap_err();
        assert!(e.contains("seats"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
