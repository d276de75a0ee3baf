//! `tolerance join`: take a seat at a table and play it.

use super::common::load_identity;
use super::host::{print_news, seated};
use super::seat::{play_seat, SeatUi};
use crate::authority::Authority;
use crate::net::pool::{PoolConfig, RelayPool};
use crate::table::lobby;
use nostr_sdk::prelude::*;
use std::time::Duration;

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
    #[arg(long, alias = "line")]
    pub plain: bool,
    /// Hold the seat with a fresh key made for this table, which your identity authorizes once
    /// (PROTOCOL.md §2.3): the table's events are signed by that key, and everyone sees you.
    #[arg(long)]
    pub table_key: bool,
}

pub async fn run(args: JoinArgs) -> Result<(), String> {
    let who = crate::authority::load(&crate::identity::config_dir(), load_identity).await?;
    join_as(&who, args, None).await
}

/// Joins as `identity` (with a table key it authorizes when `args.table_key`, and always for
/// an identity in a bunker); `open`: a pool the command already holds (the lobby screen's),
/// used when it is on the table's relays.
pub async fn join_as(
    identity: &Authority,
    args: JoinArgs,
    open: Option<RelayPool>,
) -> Result<(), String> {
    let r = lobby::parse_ref(&args.table)?;
    let relays = lobby::table_relays(&args.relays, &r)?;
    let (seat_key, by_table_key) = identity.seat_key(args.table_key);
    let keys = &seat_key;
    let authority = by_table_key.then_some(identity);
    // One pool for the whole command: the lobby, the seating, the names and the table itself.
    let pool = super::common::pool_on(keys, &relays, open).await?;
    println!(
        "joining as {}{}",
        crate::net::profiles::self_words(&pool, &identity.public_key()).await,
        if authority.is_some() {
            " with a key made for this table"
        } else {
            ""
        }
    );
    let wait = Duration::from_secs(args.wait);
    let joined = lobby::join_lobby(keys, authority, &pool, &relays, &r, wait, |n| {
        print_news(&n)
    })
    .await;
    let joined = match joined {
        Ok(joined) => joined,
        Err(e) => {
            pool.shutdown().await;
            return Err(e.to_string());
        }
    };
    // The table plays on its own relays as well as those it was found on. An naddr carries the
    // table's relays, so they are the pool's already; a table found elsewhere (by its id, or
    // through other relays) lists some the pool lacks, and the table takes a pool on them all.
    let pool = if joined.relays.iter().all(|u| relays.contains(u)) {
        pool
    } else {
        pool.shutdown().await;
        connect(keys, &joined.relays).await?
    };
    let ui = SeatUi::choose(args.auto, args.plain);
    let played = seat_on(
        keys,
        authority.map(Authority::public_key),
        &pool,
        joined,
        ui,
    )
    .await;
    pool.shutdown().await;
    played
}

async fn connect(keys: &Keys, relays: &[String]) -> Result<RelayPool, String> {
    RelayPool::connect(keys.clone(), relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())
}

async fn seat_on(
    keys: &Keys,
    authority: Option<PublicKey>,
    pool: &RelayPool,
    joined: lobby::Joined,
    ui: SeatUi,
) -> Result<(), String> {
    let (spec, start) = seated(pool, &joined.host, &joined.spec.table).await?;
    let joined = lobby::Joined { spec, ..joined };
    play_seat(keys, authority, pool, joined, start, ui, None).await
}
