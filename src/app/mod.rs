//! The commands: one file each, wiring the library together. `main.rs` only parses arguments
//! and calls [`run`]; nothing below this module imports it.

mod common;
mod demo;
mod feedback;
mod games;
mod history;
mod host;
mod join;
mod keys;
mod play;
mod race;
mod relay;
mod replay;
mod resume;
mod seat;
mod tables;
mod variant;
mod verify;
mod watch;
mod web;

pub use common::{load_identity, runtime};

use clap::{Parser, Subcommand};
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
    /// Play a game against bots over a relay (the default command).
    Play(play::PlayArgs),
    /// Announce a table, invite players by npub, and play your seat when it fills.
    Host(host::HostArgs),
    /// Take a seat at a table (naddr1…, nevent1… or hex id) and play it.
    Join(join::JoinArgs),
    /// Open a duplicate race of a solitaire (--game scoundrel, the-bogey or shooting-party): every entrant plays the same
    /// deal nobody could choose; others join by naddr or npub invitation.
    Race(race::RaceArgs),
    /// Open public tables and the invitations addressed to you.
    Tables(tables::TablesArgs),
    /// Continue a table this machine was playing when it stopped (crash, kill, power cut).
    Resume(resume::ResumeArgs),
    /// A table of bots over relays, each its own key and connection (headless).
    Demo(demo::DemoArgs),
    /// Fetch a table's events from relays and re-check every signature, proof and rule.
    Verify(verify::VerifyArgs),
    /// Follow a table live as a spectator (or replay a finished one), from its public events.
    Watch(watch::WatchArgs),
    /// Replay a game script (fixed cards and dice) and print the outcome as JSON. The script's
    /// `game` field picks the game (tolerance by default).
    Replay {
        /// Path to a script (JSON); `-` reads standard input.
        file: PathBuf,
    },
    /// The games this program plays, with their seats.
    Games {
        #[arg(long)]
        json: bool,
    },
    /// Run a Nostr relay (for LAN play and tests).
    Relay(relay::RelayArgs),
    /// Serve the browser page on this machine (with the embedded relay unless --relay), and
    /// print its URL.
    Web(web::WebArgs),
    /// The tables you played on this machine.
    History {
        #[command(subcommand)]
        command: Option<history::HistoryCommand>,
    },
    /// Your Nostr identity: create, import or show it.
    Keys {
        #[command(subcommand)]
        command: keys::KeysCommand,
    },
    /// Send feedback or a variant idea to the author of Tolerance over Nostr: a private NIP-17
    /// message by default, signed by your key (`tolerance keys new`).
    Feedback(feedback::FeedbackArgs),
    /// Work with Tolerance variant files.
    Variant {
        #[command(subcommand)]
        command: variant::VariantCommand,
    },
}

/// Runs one command.
pub fn run(cli: Cli) -> Result<(), String> {
    let command = cli
        .command
        .unwrap_or(Command::Play(play::PlayArgs::default()));
    match command {
        Command::Play(a) => play::run(a),
        Command::Host(a) => runtime()?.block_on(host::run(a)),
        Command::Join(a) => runtime()?.block_on(join::run(a)),
        Command::Race(a) => runtime()?.block_on(race::run(a)),
        Command::Tables(a) => runtime()?.block_on(tables::run(a)),
        Command::Resume(a) => runtime()?.block_on(resume::run(a)),
        Command::Demo(a) => runtime()?.block_on(demo::run(a)),
        Command::Verify(a) => runtime()?.block_on(verify::run(a)),
        Command::Watch(a) => runtime()?.block_on(watch::run(a)),
        Command::Replay { file } => replay::run(file),
        Command::Games { json } => games::run(json),
        Command::Relay(a) => relay::run(a),
        Command::Web(a) => runtime()?.block_on(web::run(a)),
        Command::History { command } => history::run(command),
        Command::Keys { command } => keys::run(command),
        Command::Feedback(a) => feedback::run(a),
        Command::Variant { command } => variant::run(command),
    }
}
