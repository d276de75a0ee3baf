//! `tolerance feedback`: a message to the game's author over Nostr.

use super::common::{load_identity, runtime};

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

    use crate::feedback;
    use std::io::IsTerminal;
    let settings = crate::config::Settings::load(&crate::identity::config_dir())?;
    let to = settings.recipient(to.as_deref(), feedback::AUTHOR_NPUB)?;
    let relays = settings.relays(&relays, &feedback::DEFAULT_RELAYS);
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
    let keys = load_identity()?;
    let lines = runtime()?.block_on(feedback::send_feedback(keys, &to, &relays, &text, public))?;
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
