//! `tolerance tables`: open public tables and the invitations addressed to you — on a terminal
//! the lobby screen (join, host, feedback), else a printed list.

use super::common::load_identity;
use super::host::HostArgs;
use super::join::JoinArgs;
use crate::authority::Authority;
use crate::net::pool::{PoolConfig, RelayPool};
use crate::net::profiles::{fetch_names, name_or_npub, short_npub};
use crate::table::lobby::{self, Listing};
use crate::ui::tui::lobby::{run_lobby, Entry, LobbyChoice, LobbyEvent, LobbyRequest, LobbyState};
use crate::wire::LobbyStatus;
use nostr_sdk::prelude::*;
use std::collections::HashMap;
use std::time::Duration;

#[derive(Debug, Clone, clap::Args)]
pub struct TablesArgs {
    /// Relay URL (repeatable).
    #[arg(long = "relay", required = true)]
    pub relays: Vec<String>,
    /// Print the list as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print the list even on a terminal, instead of opening the lobby screen.
    #[arg(long, alias = "line")]
    pub plain: bool,
}

/// How a host is named to people: its profile name, else a short npub.
fn host_label(names: &HashMap<PublicKey, String>, host: &str) -> String {
    PublicKey::parse(host)
        .ok()
        .map(|k| name_or_npub(names, &k))
        .unwrap_or_else(|| host.to_string())
}

/// An invitation as `tables --plain` lists it. Anyone can send an invitation to a public table:
/// it says who sent it when that is not the table's host.
fn invitation_line(l: &Listing, names: &HashMap<PublicKey, String>) -> String {
    let from = match &l.invited_by {
        Some(by) if *by != l.host => format!(
            "{} (hosted by {})",
            host_label(names, by),
            host_label(names, &l.host)
        ),
        _ => host_label(names, &l.host),
    };
    format!(
        "  {} from {from} — {} {}/{} — {} — {}\n    tolerance join {}",
        title(l),
        l.status,
        l.players,
        l.max_players,
        l.game,
        l.pace,
        l.naddr
    )
}

/// A listing's title as people read it: "table" when the host gave none.
fn title(l: &Listing) -> &str {
    if l.title.is_empty() {
        "table"
    } else {
        &l.title
    }
}

/// Open public tables, the invitations to `who`, and the hosts' profile names.
async fn list(
    pool: &RelayPool,
    who: &Authority,
) -> Result<(Vec<Listing>, Vec<Listing>, HashMap<PublicKey, String>), String> {
    let (public, invites) = lobby::list_tables(pool, who, Duration::from_secs(5)).await?;
    let hosts: Vec<PublicKey> = public
        .iter()
        .chain(&invites)
        .filter_map(|l| PublicKey::parse(&l.host).ok())
        .collect();
    let names = fetch_names(pool, &hosts, Duration::from_secs(3)).await;
    Ok((public, invites, names))
}

pub async fn run(args: TablesArgs) -> Result<(), String> {
    // A kept bunker is the identity here as in `join` and `host`: invitations to it are opened
    // by it, and a table chosen is joined or hosted with a table key it authorizes.
    let who = crate::authority::load(&crate::identity::config_dir(), load_identity).await?;
    if args.json || args.plain || !crate::ui::tui::available() {
        return print_list(&who, &args).await;
    }
    // The screen is gone (the terminal given back) before joining or hosting prints a line.
    // The lobby's pool goes on to the table chosen (one pool for the command when the table
    // plays on the same relays).
    let (choice, pool) = lobby_screen(&who, &args).await?;
    match choice {
        LobbyChoice::Quit => {
            pool.shutdown().await;
            Ok(())
        }
        LobbyChoice::Join(naddr) => {
            let join: JoinArgs = command_args("join", &[&naddr])?;
            super::join::join_as(&who, join, Some(pool)).await
        }
        LobbyChoice::Host(t) => {
            let seats = t.seats.to_string();
            let mut argv = vec![
                "--game",
                t.game.as_str(),
                "--variant",
                t.variant.as_str(),
                "--seats",
                seats.as_str(),
                "--pace",
                t.pace,
            ];
            for r in &args.relays {
                argv.extend(["--relay", r.as_str()]);
            }
            let host: HostArgs = command_args("host", &argv)?;
            super::host::host_as(&who, host, Some(pool)).await
        }
    }
}

/// A command's arguments as if typed after its name, so a choice made on the lobby screen
/// gets every default that command has on the command line.
fn command_args<A: clap::Args + clap::FromArgMatches>(
    name: &'static str,
    argv: &[&str],
) -> Result<A, String> {
    let matches = A::augment_args(clap::Command::new(name))
        .try_get_matches_from(std::iter::once(name).chain(argv.iter().copied()))
        .map_err(|e| e.to_string())?;
    A::from_arg_matches(&matches).map_err(|e| e.to_string())
}

/// Runs the lobby screen on its own thread and answers what it asks until the person chooses.
async fn lobby_screen(
    who: &Authority,
    args: &TablesArgs,
) -> Result<(LobbyChoice, RelayPool), String> {
    let pool = RelayPool::connect(who.connection_key(), &args.relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let state = LobbyState::new(
        crate::net::profiles::self_words(&pool, &who.public_key()).await,
        args.relays.clone(),
        crate::ui::tui::colour_wanted(),
    );
    let (events, events_rx) = std::sync::mpsc::channel();
    let (requests_tx, mut requests) = tokio::sync::mpsc::unbounded_channel();
    let (done_tx, mut done) = tokio::sync::oneshot::channel();
    let screen = requests_tx.clone();
    std::thread::spawn(move || {
        let _ = done_tx.send(run_lobby(state, events_rx, screen));
    });
    // The first listing, as if the person had pressed `r`.
    let _ = requests_tx.send(LobbyRequest::Refresh);
    drop(requests_tx);
    // While the screen is open, any table announced or announced again (a player sat down or
    // left, a table started or was cancelled) lists the tables again, so the counts shown are
    // the hosts' latest without a key. Announcements that come while a listing is under way
    // ask for one more listing, not one each.
    let changed = std::sync::Arc::new(tokio::sync::Notify::new());
    let follow = match pool
        .subscribe(vec![Filter::new()
            .kind(Kind::from(crate::wire::KIND_TABLE))
            .since(Timestamp::now())])
        .await
    {
        Ok(mut sub) => {
            let changed = changed.clone();
            Some(tokio::spawn(async move {
                while sub.recv().await.is_some() {
                    changed.notify_one();
                }
            }))
        }
        // Without live news the list is still there, and `r` lists it again.
        Err(_) => None,
    };
    let relist = {
        let (pool, who, events) = (pool.clone(), who.clone(), events.clone());
        tokio::spawn(async move {
            loop {
                changed.notified().await;
                if events.send(listed(&pool, &who).await).is_err() {
                    break;
                }
            }
        })
    };
    let chosen = loop {
        tokio::select! {
            chosen = &mut done => {
                break chosen.map_err(|_| "the lobby screen failed".to_string()).and_then(|r| r);
            }
            Some(request) = requests.recv() => {
                // Each answer on its own task: the screen stays live while relays are slow.
                let (pool, who, relays, events) =
                    (pool.clone(), who.clone(), args.relays.clone(), events.clone());
                tokio::spawn(async move {
                    let _ = events.send(answer(request, &pool, &who, &relays).await);
                });
            }
        }
    };
    relist.abort();
    if let Some(f) = follow {
        f.abort();
    }
    match chosen {
        Ok(choice) => Ok((choice, pool)),
        Err(e) => {
            pool.shutdown().await;
            Err(e)
        }
    }
}

async fn answer(
    request: LobbyRequest,
    pool: &RelayPool,
    who: &Authority,
    relays: &[String],
) -> LobbyEvent {
    match request {
        LobbyRequest::Refresh => listed(pool, who).await,
        LobbyRequest::Check(table) => LobbyEvent::Checked(
            super::host::check_setup(&table.game, &table.variant, table.seats, relays)
                .await
                .map(|()| table),
        ),
        LobbyRequest::Feedback(text) => {
            LobbyEvent::FeedbackSent(super::feedback::send(who, relays, &text).await)
        }
    }
}

/// The invitations and open tables as the relays hold them now, for the lobby screen.
async fn listed(pool: &RelayPool, who: &Authority) -> LobbyEvent {
    LobbyEvent::Listed(list(pool, who).await.map(|(public, invites, names)| {
        let entry = |listing: Listing, invited: bool| Entry {
            host: host_label(&names, &listing.host),
            listing,
            invited,
        };
        invites
            .into_iter()
            .map(|l| entry(l, true))
            .chain(public.into_iter().map(|l| entry(l, false)))
            .collect()
    }))
}

async fn print_list(who: &Authority, args: &TablesArgs) -> Result<(), String> {
    let pool = RelayPool::connect(who.connection_key(), &args.relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let listed = list(&pool, who).await;
    pool.shutdown().await;
    let (public, invites, names) = listed?;
    if args.json {
        println!(
            "{}",
            serde_json::json!({ "open": public, "invitations": invites })
        );
        return Ok(());
    }
    println!("Invitations for {}:", short_npub(&who.public_key()));
    // Only tables still waiting for players: a finished or cancelled invitation is history.
    let open = LobbyStatus::Open.name();
    let waiting: Vec<&Listing> = invites.iter().filter(|l| l.status == open).collect();
    if waiting.is_empty() {
        println!("  (none)");
    }
    for l in waiting {
        println!("{}", invitation_line(l, &names));
    }
    println!("Open public tables:");
    if public.is_empty() {
        println!("  (none)");
    }
    for l in &public {
        println!(
            "  {} hosted by {} — {}/{} — {} — {}\n    tolerance join {}",
            title(l),
            host_label(&names, &l.host),
            l.players,
            l.max_players,
            l.game,
            l.pace,
            l.naddr
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invitation_sent_by_someone_else_than_the_host_names_both() {
        let host = Keys::generate().public_key();
        let stranger = Keys::generate().public_key();
        let names: HashMap<PublicKey, String> =
            [(host, "Ana".to_string()), (stranger, "Mallory".to_string())].into();
        let mut l = Listing {
            naddr: "naddr1example".into(),
            title: "Friday".into(),
            host: host.to_bech32().unwrap(),
            status: "open".into(),
            players: 1,
            max_players: 3,
            game: "tolerance".into(),
            public: true,
            invited_by: Some(stranger.to_bech32().unwrap()),
            pace: "fast".into(),
        };
        let line = invitation_line(&l, &names);
        assert!(
            line.contains("Friday from Mallory (hosted by Ana)"),
            "{line}"
        );
        l.invited_by = Some(host.to_bech32().unwrap());
        let line = invitation_line(&l, &names);
        assert!(line.contains("Friday from Ana — open 1/3"), "{line}");
        assert!(!line.contains("hosted by"), "{line}");
    }
}
