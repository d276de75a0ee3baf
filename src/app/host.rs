//! `tolerance host`: announce a table, invite players by npub, play your seat when it fills.

use super::common::{load_identity, relays_or_embedded, setup_options};
use super::seat::{play_seat, SeatUi};
use crate::authority::Authority;
use crate::games::registry;
use crate::identity;
use crate::net::pool::RelayPool;
use crate::table::host::{HostLobby, HostPlan, KeptPlan, LobbyRecord};
use crate::table::journal::{self, Journal, TableMeta};
use crate::table::lobby::{self, HostOptions, Joined, LobbyKeeper, LobbyNews};
use crate::wire::Pace;
use nostr_sdk::prelude::*;
use std::time::Duration;

#[derive(Debug, Clone, clap::Args)]
pub struct HostArgs {
    /// The game (see `tolerance games`).
    #[arg(long, default_value = crate::games::registry::DEFAULT_GAME)]
    pub game: String,
    /// A built-in variant (Tolerance: standard, super-ace, card-again, tournament, cash; Mia:
    /// traditional or modern), a variant FILE or an naddr1….
    #[arg(long)]
    pub variant: Option<String>,
    /// Seats at the table (the most players, you included).
    #[arg(long, default_value_t = 4)]
    pub seats: u8,
    /// The fewest players the table starts with: once this many are there, typing `start`
    /// (or --start-after) begins without waiting for the other seats.
    /// Default: the fewest the game plays with (at least 2).
    #[arg(long)]
    pub min_players: Option<u8>,
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
    /// Stop after this many hands or rounds (default: the game's own end).
    #[arg(long)]
    pub hands: Option<u64>,
    /// Start with whoever joined (at least --min-players) after this many seconds.
    #[arg(long)]
    pub start_after: Option<u64>,
    /// Cancel the table if it has not started after this many seconds.
    #[arg(long, default_value_t = 600)]
    pub wait: u64,
    /// The table's timing: fast (15 s a move, 30 s time bank, like an online card room),
    /// normal (a minute a move, two minutes of bank) or correspondence (12 hours a step).
    #[arg(long, default_value = "normal")]
    pub pace: String,
    /// Seconds a player has for a decision (instead of the pace's).
    #[arg(long)]
    pub move_secs: Option<u64>,
    /// Seconds a client has for a cryptographic step, also the grace for a crashed client
    /// (instead of the pace's).
    #[arg(long)]
    pub crypto_secs: Option<u64>,
    /// Each player's time bank for the whole table, in seconds (instead of the pace's).
    #[arg(long)]
    pub bank_secs: Option<u64>,
    /// Seconds past a step's deadline that an event may still be on its way through slow or
    /// throttling relays before anyone may be voted out for it (instead of the pace's).
    #[arg(long)]
    pub relay_secs: Option<u64>,
    /// Seconds the table waits for a crashed or disconnected player to come back (`tolerance
    /// resume`) when fewer than two players are left dealt in, before it ends (instead of the
    /// pace's; 0 ends it at once).
    #[arg(long)]
    pub return_secs: Option<u64>,
    /// Ask joiners for NIP-13 proof of work of this many bits (public tables against floods
    /// of throwaway keys).
    #[arg(long)]
    pub join_pow: Option<u8>,
    /// Relay URL (repeatable; two or more let the table survive losing one); none takes the
    /// `relays` of config.toml, else starts the embedded relay on loopback (same machine only).
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// Host on a single relay that is not on this machine or network anyway (a table for
    /// strangers otherwise needs two relays or more, so that it survives losing one).
    #[arg(long)]
    pub one_relay: bool,
    /// Let a bot play your seat.
    #[arg(long)]
    pub auto: bool,
    /// The line interface even on a terminal (for scripts and screen readers).
    #[arg(long, alias = "line")]
    pub plain: bool,
    /// Host and hold your seat with a fresh key made for this table, which your identity
    /// authorizes once (PROTOCOL.md §2.3): everyone sees you, the table key signs its events.
    #[arg(long)]
    pub table_key: bool,
}

/// Whether a table may be hosted on `relays`, and what to tell the host. Several relays are the
/// rule: every event goes to all and is read from all, so the table survives losing any one. A
/// single relay on this machine or its network (one's own, `tolerance relay`) is the host's own
/// choice and only noted; a single public relay needs `--one-relay`, since a stranger's table
/// would stop whenever that relay does. No relay at all means the embedded relay on loopback
/// (this machine only), said when it starts.
pub fn relay_plan(relays: &[String], one_relay: bool) -> Result<Option<String>, String> {
    match relays {
        [] => Ok(None),
        [only] if crate::net::pool::is_local_relay(only) => Ok(Some(format!(
            "this table uses one relay, {only}, on this machine or network: if it stops, play \
             stops until it is back"
        ))),
        [only] if one_relay => Ok(Some(format!(
            "this table uses one relay, {only}: if it goes down, play stops until it is back"
        ))),
        [only] => Err(format!(
            "a table on one public relay stops whenever that relay does: give --relay twice (or \
             list two relays or more in config.toml) so the table survives losing one, or add \
             --one-relay to host on {only} alone"
        )),
        _ => Ok(None),
    }
}

pub fn parse_npub(text: &str) -> Result<PublicKey, String> {
    let t = text.trim();
    if let Ok(p) = Nip19Profile::from_bech32(t) {
        return Ok(p.public_key);
    }
    identity::parse_public(t).map_err(|e| e.to_string())
}

pub fn print_news(n: &LobbyNews) {
    if let Some(words) = n.words("type start (then Enter)") {
        println!("{words}")
    }
}

/// Lets the person hosting start early by typing `start` (and Enter) while the table fills;
/// `stop` ends the listening before the table's own screen or prompts take the keyboard.
fn listen_for_start(start: std::sync::Arc<tokio::sync::Notify>) -> StartListener {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = stop.clone();
    let asked = move |line: &str| {
        if matches!(line.trim(), "start" | "s") {
            start.notify_one();
        }
    };
    use std::io::IsTerminal;
    let thread = if std::io::stdin().is_terminal() {
        // On a terminal the keys are read the way the table's screen reads them later
        // (crossterm), so nothing is left waiting on the terminal to swallow the first key the
        // table expects. The terminal stays in line mode: what is typed shows, Enter sends it.
        std::thread::spawn(move || {
            use crossterm::event::{poll, read, Event, KeyCode, KeyEventKind};
            let mut line = String::new();
            while !stopped.load(std::sync::atomic::Ordering::SeqCst) {
                if !poll(Duration::from_millis(100)).unwrap_or(false) {
                    continue;
                }
                match read() {
                    Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => match k.code {
                        KeyCode::Enter => {
                            asked(&line);
                            line.clear();
                        }
                        KeyCode::Char(c) => line.push(c),
                        KeyCode::Backspace => {
                            line.pop();
                        }
                        _ => {}
                    },
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        })
    } else {
        let lines = crate::ui::line::typed_lines();
        std::thread::spawn(move || {
            while !stopped.load(std::sync::atomic::Ordering::SeqCst) {
                let got = lines
                    .lock()
                    .map(|l| l.recv_timeout(Duration::from_millis(100)));
                match got {
                    Ok(Ok(line)) => asked(&line),
                    Ok(Err(std::sync::mpsc::RecvTimeoutError::Timeout)) => {}
                    _ => break,
                }
            }
        })
    };
    StartListener {
        stop,
        thread: Some(thread),
    }
}

/// Stops listening for `start` when dropped (the table is seated or cancelled).
struct StartListener {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for StartListener {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Waited for (a tenth of a second at most), so the listener reads no key meant for
        // the table that comes next.
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub async fn run(args: HostArgs) -> Result<(), String> {
    let who = crate::authority::load(&crate::identity::config_dir(), load_identity).await?;
    host_as(&who, args, None).await
}

/// Whether `game` takes `variant` (a built-in, a file or an naddr) for `seats` players, as
/// `tolerance host` would check it before announcing; the reason in words when not.
pub async fn check_setup(
    game: &str,
    variant: &str,
    seats: u8,
    relays: &[String],
) -> Result<(), String> {
    let opts = setup_options(Some(variant), None, seats, relays).await?;
    let (_, _, max) = registry::table_setup(game, &opts)?;
    if seats > max {
        return Err(format!(
            "this setup seats at most {max} players, not {seats}"
        ));
    }
    Ok(())
}

/// Hosts as `identity` (with a table key it authorizes when `args.table_key`, and always for an
/// identity in a bunker); `open`: a pool the command already holds (the lobby screen's), used
/// when it is on the table's relays.
pub async fn host_as(
    identity: &Authority,
    args: HostArgs,
    open: Option<RelayPool>,
) -> Result<(), String> {
    let (seat_key, by_table_key) = identity.seat_key(args.table_key);
    let keys = &seat_key;
    let authority = by_table_key.then_some(identity);
    let me = identity.public_key();
    let invite: Vec<PublicKey> = args
        .invite
        .iter()
        .map(|t| parse_npub(t))
        .collect::<Result<_, _>>()?;
    if invite.contains(&me) {
        return Err("you cannot invite yourself: you hold the host's seat already".into());
    }
    let mut deadlines = Pace::parse(&args.pace)?.deadlines();
    for (field, secs) in [
        (&mut deadlines.move_ms, args.move_secs),
        (&mut deadlines.crypto_ms, args.crypto_secs),
        (&mut deadlines.bank_ms, args.bank_secs),
        (&mut deadlines.relay_ms, args.relay_secs),
        (&mut deadlines.return_ms, args.return_secs),
    ] {
        if let Some(s) = secs {
            *field = s.saturating_mul(1000);
        }
    }
    if deadlines.move_ms < 1000 || deadlines.crypto_ms < 1000 {
        return Err("a move and a cryptographic step need at least a second each".into());
    }
    let opts = setup_options(
        args.variant.as_deref(),
        args.hands,
        args.seats,
        &args.relays,
    )
    .await?;
    let (setup, fewest, max) = registry::table_setup(&args.game, &opts)?;
    let kept_options = opts.clone();
    let setup_for = crate::table::host::setup_for(&args.game, opts);
    // Starting early is only ever with a count the game plays.
    let fewest = fewest.max(2);
    let min_players = match args.min_players {
        None => fewest.min(args.seats),
        Some(n) if n < fewest => {
            return Err(format!(
                "this game needs at least {fewest} players, so --min-players cannot be {n}"
            ))
        }
        Some(n) => n,
    };
    // A table for strangers lives on several relays: the ones given, else those listed in
    // config.toml; with none, the embedded relay (this machine only).
    let settings = crate::config::Settings::load(&crate::identity::config_dir())?;
    let chosen = settings.relays(&args.relays, &[]);
    if let Some(notice) = relay_plan(&chosen, args.one_relay)? {
        println!("{notice}");
    }
    let (relays, _embedded) = relays_or_embedded(&chosen, true).await?;
    let public = args.public || (!args.invite_only && invite.is_empty());
    let plan = HostPlan {
        game: args.game.clone(),
        setup,
        seats: max,
        relays: relays.clone(),
        deadlines,
        title: args.title.clone(),
        public,
        min_players,
        max_players: args.seats,
        invite,
        start_after: args.start_after.map(Duration::from_secs),
        wait: Duration::from_secs(args.wait),
        join_pow: args.join_pow,
        may_start_early: true,
        setup_for: Some(setup_for),
        // Set by the lobby, from what the relays ask.
        pow: 0,
    };
    // What a crashed host takes its table back from (`tolerance resume`).
    let kept = plan.kept(&kept_options);
    let keeper = JournalKeeper {
        home: crate::identity::config_dir(),
        keys: keys.clone(),
        authority: authority.map(Authority::public_key),
        plan: kept,
        auto: args.auto,
        journal: None,
        listed: false,
    };
    let opts = HostOptions {
        keys: keys.clone(),
        authority: authority.cloned(),
        plan,
        start_now: Some(std::sync::Arc::new(tokio::sync::Notify::new())),
        keeper: Some(Box::new(keeper)),
    };
    // One pool for the whole command: the lobby, the seating, the names and the table itself
    // (each relay connected and its NIP-11 read once).
    let pool = super::common::pool_on(keys, &relays, open).await?;
    println!(
        "hosting {} as {}{}: {} seats, {}",
        args.game,
        crate::net::profiles::self_words(&pool, &me).await,
        if authority.is_some() {
            " with a key made for this table"
        } else {
            ""
        },
        args.seats,
        if public { "public" } else { "invite only" }
    );
    let played = host_on(
        keys,
        authority,
        &pool,
        opts,
        relays,
        SeatUi::choose(args.auto, args.plain),
    )
    .await;
    pool.shutdown().await;
    played
}

async fn host_on(
    keys: &Keys,
    authority: Option<&Authority>,
    pool: &RelayPool,
    opts: HostOptions,
    relays: Vec<String>,
    ui: SeatUi,
) -> Result<(), String> {
    let me = keys.public_key();
    let listening = opts.start_now.clone().map(listen_for_start);
    let spec = lobby::host_lobby(pool, opts, |n| print_news(&n)).await;
    drop(listening);
    let spec = spec?;
    let (spec, start) = seated(pool, &me, &spec.table).await?;
    let joined = Joined {
        spec,
        host: me,
        relays,
    };
    let authority = authority.map(Authority::public_key);
    play_seat(keys, authority, pool, joined, start, ui, None).await
}

/// The seated announcement as the relays hold it, with its time (when the game's step 0
/// opened).
pub async fn seated(
    pool: &RelayPool,
    host: &PublicKey,
    table: &str,
) -> Result<(crate::wire::TableSpec, u64), String> {
    Ok(crate::table::runner::fetch_table(pool, host, table, Duration::from_secs(10)).await?)
}

/// What `tolerance host` keeps of its lobby in the table's journal directory: the plan and the
/// lobby as it stands (`lobby.json`), the seed of its nonces sealed (`lobby_seed.bin`), and the
/// table's metadata so that `tolerance resume` lists it.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct KeptLobby {
    v: u32,
    plan: KeptPlan,
    record: LobbyRecord,
}

const KEPT_LOBBY_VERSION: u32 = 1;

struct JournalKeeper {
    home: std::path::PathBuf,
    keys: Keys,
    authority: Option<PublicKey>,
    plan: KeptPlan,
    auto: bool,
    /// Open (and locked) from the seed's keeping to the lobby's end.
    journal: Option<Journal>,
    /// Whether the table's metadata is written (with the first keeping of its lobby).
    listed: bool,
}

impl LobbyKeeper for JournalKeeper {
    fn seed(&mut self, table: &str) -> Result<zeroize::Zeroizing<[u8; 32]>, String> {
        let journal = Journal::open(&self.home, &self.keys, table).map_err(|e| e.to_string())?;
        if let Some(identity) = &self.authority {
            journal::seal_table_key(&self.home, identity, table, &self.keys)
                .map_err(|e| e.to_string())?;
        }
        let seed = journal
            .lobby_seed(|| {
                let mut s = [0u8; 32];
                rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut s);
                s
            })
            .map_err(|e| e.to_string())?;
        self.journal = Some(journal);
        Ok(seed)
    }

    fn keep(&mut self, lobby: &HostLobby) -> Result<(), String> {
        let journal = self
            .journal
            .as_ref()
            .ok_or("the lobby's journal is not open")?;
        let kept = KeptLobby {
            v: KEPT_LOBBY_VERSION,
            plan: self.plan.clone(),
            record: lobby.record(),
        };
        journal
            .keep_lobby(&serde_json::to_string(&kept).expect("a kept lobby serializes"))
            .map_err(|e| format!("keeping the lobby: {e}"))?;
        // Listed for `resume` once there is a lobby to take back.
        if !self.listed {
            let (me, table) = (self.keys.public_key(), journal.table());
            journal::write_meta(
                &self.home,
                &TableMeta {
                    table: table.to_string(),
                    host: me.to_hex(),
                    relays: self.plan.relays().to_vec(),
                    naddr: crate::wire::table_naddr(&me, table, self.plan.relays()),
                    me: me.to_hex(),
                    identity: self.authority.map(|i| i.to_hex()),
                    auto: self.auto,
                    finished: false,
                    game: self.plan.game().to_string(),
                    players: Vec::new(),
                },
            )
            .map_err(|e| format!("keeping the lobby: {e}"))?;
            self.listed = true;
        }
        Ok(())
    }

    fn done(&mut self, seated: bool) {
        let Some(journal) = self.journal.as_ref() else {
            return;
        };
        let table = journal.table().to_string();
        journal::drop_lobby(&self.home, &table);
        // A cancelled table is not one to resume.
        if !seated {
            if let Ok(mut meta) = journal::read_meta(&self.home, &table) {
                meta.finished = true;
                let _ = journal::write_meta(&self.home, &meta);
            }
        }
        // Closed (and unlocked) last: no `resume` takes the lobby back meanwhile.
        self.journal = None;
    }
}

/// Takes back the lobby of the table `table` that this machine hosted and kept (`kept`: its
/// `lobby.json`), after `tolerance host` stopped before the seating: it goes on from its record
/// and what the relays hold until the seats are fixed, and sends the invitations it had not sent.
/// `keys` hosts it, for `identity` when it is a table key (the identity invites).
pub async fn lobby_again(
    keys: &Keys,
    identity: Option<&Authority>,
    pool: &RelayPool,
    (table, kept): (&str, &str),
    auto: bool,
) -> Result<(), String> {
    let home = crate::identity::config_dir();
    let damaged = "this machine's record of the table you host is damaged";
    let kept: KeptLobby = serde_json::from_str(kept).map_err(|e| format!("{damaged}: {e}"))?;
    if kept.v != KEPT_LOBBY_VERSION || kept.record.spec.table != table {
        return Err(damaged.into());
    }
    let journal = Journal::open(&home, keys, table).map_err(|e| e.to_string())?;
    let seed = journal
        .kept_lobby_seed()
        .map_err(|e| format!("{damaged}: {e}"))?;
    let plan = kept.plan.clone().plan()?;
    let me = keys.public_key();
    let held = pool
        .fetch(
            vec![crate::wire::announcement_filter(&me, table)],
            Duration::from_secs(5),
        )
        .await
        .map_err(|e| format!("reading the table from the relays: {e}"))?;
    let latest = crate::table::host::newest_of(&held, &me, table);
    let lobby = HostLobby::restore(
        plan,
        me,
        kept.record,
        *seed,
        (latest.as_ref().map(|(s, at)| (s, *at)), lobby::unix_ms()),
    )?;
    let inviter: std::sync::Arc<dyn nostr_sdk::NostrSigner> = match identity {
        Some(a) => a.signer().clone(),
        None => std::sync::Arc::new(keys.clone()),
    };
    let keeper = JournalKeeper {
        home,
        keys: keys.clone(),
        authority: identity.map(Authority::public_key),
        plan: kept.plan,
        auto,
        journal: Some(journal),
        listed: true,
    };
    let start = std::sync::Arc::new(tokio::sync::Notify::new());
    let listening = listen_for_start(start.clone());
    let spec = lobby::resume_lobby(pool, lobby, (Some(start), inviter), Box::new(keeper), |n| {
        print_news(&n)
    })
    .await;
    drop(listening);
    spec.map(|_| ()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_for_strangers_needs_two_relays_or_an_explicit_one() {
        let public = vec!["wss://relay.example.org".to_string()];
        let err = relay_plan(&public, false).unwrap_err();
        assert!(
            err.contains("--relay twice") && err.contains("--one-relay"),
            "{err}"
        );
        let said = relay_plan(&public, true).unwrap().unwrap();
        assert!(said.contains("play stops until it is back"), "{said}");
        // One's own relay, on this machine or the LAN: the host's choice, only noted.
        for own in [
            "ws://127.0.0.1:7447",
            "ws://192.168.1.20:7447",
            "ws://localhost:7447",
        ] {
            assert!(
                relay_plan(&[own.to_string()], false).unwrap().is_some(),
                "{own}"
            );
        }
        let two = vec![public[0].clone(), "wss://other.example.net".to_string()];
        assert_eq!(relay_plan(&two, false), Ok(None));
        assert_eq!(
            relay_plan(&[], false),
            Ok(None),
            "the embedded relay says itself"
        );
    }
}
