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
    /// The table to resume (naddr1… or hex id); none lists unfinished tables.
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
    let Some(table) = args.table else {
        let open = journal::unfinished(&home);
        if open.is_empty() {
            println!("no unfinished table on this machine");
        }
        for m in open {
            println!("{} ({})\n  tolerance resume {}", m.naddr, m.game, m.table);
        }
        return Ok(());
    };
    let id = lobby::parse_ref(&table)?.table;
    let meta = journal::read_meta(&home, &id)?;
    let keys = load_identity()?;
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
        let (spec, start) = seated(&pool, &host, &id).await?;
        println!(
            "resuming table {} as {}",
            &id[..16],
            short_npub(&keys.public_key())
        );
        let joined = Joined { spec, host, relays };
        play_seat(&keys, &pool, joined, start, ui, Some(meta)).await
    }
    .await;
    pool.shutdown().await;
    played
}
