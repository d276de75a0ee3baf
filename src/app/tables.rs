//! `tolerance tables`: open public tables and the invitations addressed to you.

use super::common::load_identity;
use crate::net::pool::{PoolConfig, RelayPool};
use crate::net::profiles::{fetch_names, short_npub};
use crate::table::lobby;
use nostr_sdk::prelude::*;
use std::collections::HashMap;
use std::time::Duration;

#[derive(Debug, Clone, clap::Args)]
pub struct TablesArgs {
    /// Relay URL (repeatable).
    #[arg(long = "relay", required = true)]
    pub relays: Vec<String>,
    #[arg(long)]
    pub json: bool,
    /// Print the list (the default; kept for scripts written for the lobby screen).
    #[arg(long)]
    pub plain: bool,
}

/// How a host is named to people: its profile name, else a short npub.
fn host_label(names: &HashMap<PublicKey, String>, host: &str) -> String {
    PublicKey::parse(host)
        .ok()
        .map(|k| names.get(&k).cloned().unwrap_or_else(|| short_npub(&k)))
        .unwrap_or_else(|| host.to_string())
}

pub async fn run(args: TablesArgs) -> Result<(), String> {
    let keys = load_identity()?;
    let pool = RelayPool::connect(keys.clone(), &args.relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let listed = lobby::list_tables(&pool, &keys, Duration::from_secs(5)).await;
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
    if args.json {
        println!(
            "{}",
            serde_json::json!({ "open": public, "invitations": invites })
        );
        return Ok(());
    }
    let title = |l: &lobby::Listing| {
        if l.title.is_empty() {
            "table".to_string()
        } else {
            l.title.clone()
        }
    };
    println!("Invitations for {}:", short_npub(&keys.public_key()));
    // Only tables still waiting for players: a finished or cancelled invitation is history.
    let waiting: Vec<&lobby::Listing> = invites.iter().filter(|l| l.status == "open").collect();
    if waiting.is_empty() {
        println!("  (none)");
    }
    for l in waiting {
        println!(
            "  {} from {} — {} {}/{} — {}\n    tolerance join {}",
            title(l),
            host_label(&names, &l.host),
            l.status,
            l.players,
            l.max_players,
            l.game,
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
            title(l),
            host_label(&names, &l.host),
            l.players,
            l.max_players,
            l.game,
            l.naddr
        );
    }
    Ok(())
}
