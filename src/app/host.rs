//! `tolerance host`: announce a table, invite players by npub, play your seat when it fills.

use super::common::{load_identity, relays_or_embedded, setup_options};
use super::seat::{play_seat, SeatUi};
use crate::games::registry::{self, TableGame, Visit};
use crate::identity;
use crate::net::pool::RelayPool;
use crate::net::profiles::short_npub;
use crate::table::lobby::{self, HostOptions, Joined, LobbyNews};
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
        LobbyNews::Full { players } => println!(
            "all {players} seats are taken; waiting in case one opens again (a listed player \
             who does not confirm loses the seat)"
        ),
        LobbyNews::Revealed { .. } => {}
        LobbyNews::Dropped { npubs } => println!(
            "{} never revealed a seating nonce: the seat{} open again",
            npubs.join(", "),
            if npubs.len() == 1 { " is" } else { "s are" }
        ),
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

pub async fn run(args: HostArgs) -> Result<(), String> {
    let keys = load_identity()?;
    host_as(&keys, args, None).await
}

/// The game's setup as JSON and the most players it seats.
struct Check {
    opts: crate::games::registry::SetupOptions,
}

impl Visit for Check {
    type Out = Result<(serde_json::Value, u8), String>;
    fn visit<G: TableGame>(self) -> Self::Out {
        let setup = G::setup(&self.opts)?;
        let (_, max) = G::seats_for(&setup);
        Ok((
            serde_json::to_value(&setup).map_err(|e| e.to_string())?,
            max,
        ))
    }
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
    let (_, max) = registry::with_game(game, Check { opts })??;
    if seats > max {
        return Err(format!(
            "this setup seats at most {max} players, not {seats}"
        ));
    }
    Ok(())
}

/// Hosts as `keys`; `open`: a pool the command already holds (the lobby screen's), used when
/// it is on the table's relays.
pub async fn host_as(keys: &Keys, args: HostArgs, open: Option<RelayPool>) -> Result<(), String> {
    let me = keys.public_key();
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
    let (setup, max) = registry::with_game(&args.game, Check { opts })??;
    // A table for strangers lives on several relays: the ones given, else those listed in
    // config.toml; with none, the embedded relay (this machine only).
    let settings = crate::config::Settings::load(&crate::identity::config_dir())?;
    let chosen = settings.relays(&args.relays, &[]);
    if let Some(notice) = relay_plan(&chosen, args.one_relay)? {
        println!("{notice}");
    }
    let (relays, _embedded) = relays_or_embedded(&chosen, true).await?;
    let public = args.public || (!args.invite_only && invite.is_empty());
    let opts = HostOptions {
        keys: keys.clone(),
        game: args.game.clone(),
        setup,
        seats: max,
        relays: relays.clone(),
        deadlines,
        title: args.title.clone(),
        public,
        min_players: args.min_players,
        max_players: args.seats,
        invite,
        start_after: args.start_after.map(Duration::from_secs),
        wait: Duration::from_secs(args.wait),
        join_pow: args.join_pow,
    };
    println!(
        "hosting {} as {}: {} seats, {}",
        args.game,
        short_npub(&me),
        args.seats,
        if public { "public" } else { "invite only" }
    );
    // One pool for the whole command: the lobby, the seating, the names and the table itself
    // (each relay connected and its NIP-11 read once).
    let pool = super::common::pool_on(keys, &relays, open).await?;
    let played = host_on(
        keys,
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
    pool: &RelayPool,
    opts: HostOptions,
    relays: Vec<String>,
    ui: SeatUi,
) -> Result<(), String> {
    let me = keys.public_key();
    let spec = lobby::host_lobby(pool, opts, |n| print_news(&n)).await?;
    let (spec, start) = seated(pool, &me, &spec.table).await?;
    let joined = Joined {
        spec,
        host: me,
        relays,
    };
    play_seat(keys, pool, joined, start, ui, None).await
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
