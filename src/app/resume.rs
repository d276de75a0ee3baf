//! `tolerance resume`: continue a table this machine was playing when it stopped.

use super::common::load_identity;
use super::host::seated;
use super::seat::{play_seat, SeatUi};
use crate::identity;
use crate::net::pool::{PoolConfig, RelayPool};
use crate::net::profiles::short_npub;
use crate::table::journal;
use crate::table::lobby::{self, Joined};
use nostr_sdk::prelude::*;

#[derive(Debug, Clone, clap::Args)]
pub struct ResumeArgs {
    /// The table to resume (naddr1…, hex id, or its number in the list); none continues the
    /// one table in play, or lists them when there are several.
    pub table: Option<String>,
    /// Use these relays instead of the recorded ones (repeatable).
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// The line interface even on a terminal (for scripts and screen readers).
    #[arg(long, alias = "line")]
    pub plain: bool,
    /// A bot plays the seat from here on (as `join --auto` does), whoever played it before.
    #[arg(long)]
    pub auto: bool,
}

pub async fn run(args: ResumeArgs) -> Result<(), String> {
    let home = identity::config_dir();
    let live = resumable(&home);
    let table = match args.table {
        Some(t) => match t.trim().parse::<usize>() {
            Ok(n) if (1..=live.len()).contains(&n) => live[n - 1].meta.table.clone(),
            Ok(n) => {
                return Err(format!(
                    "there is no table {n} to resume: {}",
                    crate::games::ui::words::count(live.len() as u64, "table is", "tables are")
                        + " in play on this machine"
                ))
            }
            Err(_) => t,
        },
        None => match live.as_slice() {
            [] => {
                println!("no table in play on this machine");
                return Ok(());
            }
            [one] => {
                println!("resuming your table in play: {}", describe(one));
                one.meta.table.clone()
            }
            several => {
                println!("tables in play on this machine, most recent first:");
                for (i, t) in several.iter().enumerate() {
                    println!(
                        "  {}. {}\n     tolerance resume {}",
                        i + 1,
                        describe(t),
                        i + 1
                    );
                }
                return Ok(());
            }
        },
    };
    let id = lobby::parse_ref(&table)?.table;
    let meta = journal::read_meta(&home, &id)?;
    // A seat held by the identity's own key needs that key only. A seat held by a table key:
    // the identity that authorized it (on this machine, or a kept bunker, reached only then)
    // opens the key (§2.3).
    let (keys, identity) = match &meta.identity {
        None => (load_identity()?, None),
        Some(who) => {
            let identity = crate::authority::load(&home, load_identity).await?;
            if *who != identity.public_key().to_hex() {
                return Err(format!(
                    "table {id} was played by another identity ({}); this one is {}",
                    PublicKey::from_hex(who)
                        .map(|k| short_npub(&k))
                        .unwrap_or_default(),
                    short_npub(&identity.public_key())
                ));
            }
            let (key, sealed) = journal::sealed_table_key(&home, &id)?;
            let opened = zeroize::Zeroizing::new(identity.open(&key, &sealed).await?);
            (journal::table_key_from(&id, &key, &opened)?, Some(identity))
        }
    };
    let authority = identity.as_ref().map(|i| i.public_key());
    let me = authority.unwrap_or(keys.public_key());
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
    // One pool for the whole command: the seating, the names and the table itself.
    let pool = RelayPool::connect(keys.clone(), &relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let ui = SeatUi::choose(meta.auto || args.auto, args.plain);
    let played = async {
        // A host that stopped before its table was seated takes its lobby back first.
        if let Some(kept) = journal::kept_lobby(&home, &id) {
            if host != keys.public_key() {
                return Err(format!(
                    "this machine kept a lobby of table {id} hosted by another key ({})",
                    short_npub(&host)
                ));
            }
            println!("taking back the table you host: {}", meta.naddr);
            super::host::lobby_again(&keys, identity.as_ref(), &pool, (&id, &kept), meta.auto)
                .await?;
        }
        let (spec, start) = seated(&pool, &host, &id).await?;
        println!("resuming table {} as {}", &id[..16], short_npub(&me));
        let joined = Joined { spec, host, relays };
        play_seat(&keys, authority, &pool, joined, start, ui, Some(meta)).await
    }
    .await;
    pool.shutdown().await;
    played
}

/// Tables this machine can resume: not seen to finish, and not left for good (a game that
/// keeps a seat that left, such as Tolerance, deals it in again: those stay).
fn resumable(home: &std::path::Path) -> Vec<journal::Unfinished> {
    journal::unfinished_tables(home)
        .into_iter()
        .filter(|t| {
            !t.left || crate::games::registry::with_game(&t.meta.game, SitsOut).unwrap_or(false)
        })
        .collect()
}

struct SitsOut;

impl crate::games::registry::Visit for SitsOut {
    type Out = bool;
    fn visit<G: crate::games::registry::TableGame>(self) -> bool {
        G::SITS_OUT
    }
}

/// One table in play for a person: its game, its players, where this seat is, and when it
/// last moved ("The Game of Tolerance with you, Ana — you left (resume deals you in again) —
/// last event 5 min ago").
fn describe(t: &journal::Unfinished) -> String {
    let title = crate::games::registry::all()
        .into_iter()
        .find(|g| g.name == t.meta.game)
        .map(|g| g.title.to_string())
        .unwrap_or_else(|| t.meta.game.clone());
    let with = if t.meta.players.is_empty() {
        String::new()
    } else {
        format!(" with {}", t.meta.players.join(", "))
    };
    let state = if t.left {
        "you left (resume deals you in again)"
    } else if t.hosting {
        "you host it and it was not seated yet"
    } else {
        "in play"
    };
    let when = t
        .last
        .and_then(|l| std::time::SystemTime::now().duration_since(l).ok())
        .map(|d| {
            let s = d.as_secs();
            if s < 120 {
                format!("{s} s ago")
            } else if s < 2 * 3600 {
                format!("{} min ago", s / 60)
            } else if s < 2 * 86_400 {
                format!("{} h ago", s / 3600)
            } else {
                format!("{} days ago", s / 86_400)
            }
        })
        .map(|w| format!(" — last event {w}"))
        .unwrap_or_default();
    format!("{title}{with} — {state}{when}")
}
