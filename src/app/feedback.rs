//! `tolerance feedback`: a message to the game's author over Nostr.

use super::common::{load_identity, runtime};
use crate::feedback;
use nostr_sdk::prelude::*;

#[derive(Debug, Clone, clap::Args)]
pub struct FeedbackArgs {
    /// The message; without it, standard input is read, or $EDITOR opens when interactive.
    pub message: Vec<String>,
    /// Recipient npub (default: the game's author, or `author` in config.toml).
    #[arg(long)]
    pub to: Option<String>,
    /// Relay URL (repeatable); default: `relays` in config.toml, else a few public relays.
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// Post a public note (kind 1) that mentions the recipient instead.
    #[arg(long)]
    pub public: bool,
}

pub fn run(args: FeedbackArgs) -> Result<(), String> {
    let FeedbackArgs {
        message,
        to,
        relays,
        public,
    } = args;

    use std::io::IsTerminal;
    let (to, relays) = destination(to.as_deref(), &relays)?;
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
    let rt = runtime()?;
    // A kept bunker signs feedback as it signs tables: the identity is the same everywhere.
    let who = rt.block_on(crate::authority::load(
        &crate::identity::config_dir(),
        load_identity,
    ))?;
    let lines = rt.block_on(feedback::send_feedback(&who, &to, &relays, &text, public))?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}

/// Who gets feedback and over which relays: `--to`, else `author` in config.toml, else the
/// game's author; the relays given, else `relays` in config.toml, else a few public relays.
fn destination(to: Option<&str>, relays: &[String]) -> Result<(PublicKey, Vec<String>), String> {
    let settings = crate::config::Settings::load(&crate::identity::config_dir())?;
    let to = settings.recipient(to, feedback::AUTHOR_NPUB)?;
    Ok((to, settings.relays(relays, &feedback::DEFAULT_RELAYS)))
}

/// Sends `text` as `tolerance feedback --relay …` does (privately, to the same recipient, over
/// the same relays), for the lobby screen's feedback box; the outcome in its words.
pub async fn send(
    who: &crate::authority::Authority,
    relays: &[String],
    text: &str,
) -> Result<Vec<String>, String> {
    let (to, relays) = destination(None, relays)?;
    feedback::send_feedback(who, &to, &relays, text, false).await
}
