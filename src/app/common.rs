//! What several commands share: the identity, the async runtime, relays, and turning a
//! person's `--variant` into a game's setup.

use crate::games::registry::SetupOptions;
use crate::net::pool::{PoolConfig, RelayPool};
use crate::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use std::io::BufRead;

pub fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

/// The passphrase from the environment, or typed without echo on a terminal (`twice` to
/// confirm a new one).
pub fn passphrase(twice: bool) -> Option<String> {
    if let Ok(p) = std::env::var(crate::identity::PASSPHRASE_ENV) {
        return Some(p);
    }
    let read = |prompt: &str| -> Option<String> {
        use std::io::IsTerminal;
        if std::io::stdin().is_terminal() {
            read_hidden(prompt)
        } else {
            eprint!("{prompt}");
            std::io::stdin().lock().lines().next()?.ok()
        }
    };
    let first = read("passphrase: ")?;
    if twice {
        let second = read("again: ")?;
        if second != first {
            eprintln!("the passphrases differ");
            return None;
        }
    }
    Some(first)
}

/// Reads a line from the terminal without showing what is typed.
fn read_hidden(prompt: &str) -> Option<String> {
    use crossterm::event::{read, Event, KeyCode, KeyEventKind, KeyModifiers};
    use std::io::Write;
    eprint!("{prompt}");
    std::io::stderr().flush().ok();
    crossterm::terminal::enable_raw_mode().ok()?;
    let mut s = String::new();
    let done = loop {
        match read() {
            Ok(Event::Key(k)) if k.kind == KeyEventKind::Press => match k.code {
                KeyCode::Enter => break true,
                KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => break false,
                KeyCode::Char(c) => s.push(c),
                KeyCode::Backspace => {
                    s.pop();
                }
                KeyCode::Esc => break false,
                _ => {}
            },
            Ok(_) => {}
            Err(_) => break false,
        }
    };
    let _ = crossterm::terminal::disable_raw_mode();
    eprintln!();
    done.then_some(s)
}

/// The stored identity, unlocked with `TOLERANCE_PASSPHRASE` or a typed passphrase.
pub fn load_identity() -> Result<nostr_sdk::Keys, String> {
    crate::identity::load(&crate::identity::config_dir(), || passphrase(false))
        .map_err(|e| e.to_string())
}

/// The relays to play on: the ones given, or the embedded relay on loopback (returned, so it
/// lives as long as the caller keeps it).
pub async fn relays_or_embedded(
    relays: &[String],
    say: bool,
) -> Result<(Vec<String>, Option<EmbeddedRelay>), String> {
    if !relays.is_empty() {
        return Ok((relays.to_vec(), None));
    }
    let r = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    if say {
        println!("embedded relay at {} (this machine only)", r.url());
    }
    Ok((vec![r.url().to_string()], Some(r)))
}

/// A pool on `relays` for the rest of a command: `open`, the pool the command already holds
/// (the lobby screen's), when it is on the same relays, so that each relay is connected and its
/// NIP-11 read once per command; else a new one (and `open` is closed).
pub async fn pool_on(
    keys: &nostr_sdk::Keys,
    relays: &[String],
    open: Option<RelayPool>,
) -> Result<RelayPool, String> {
    if let Some(pool) = open {
        let wanted: std::collections::BTreeSet<String> = relays
            .iter()
            .filter_map(|r| nostr_sdk::RelayUrl::parse(r).ok())
            .map(|u| u.to_string())
            .collect();
        let held: std::collections::BTreeSet<String> =
            pool.relays().iter().map(|u| u.to_string()).collect();
        if wanted == held && pool.public_key() == keys.public_key() {
            return Ok(pool);
        }
        pool.shutdown().await;
    }
    RelayPool::connect(keys.clone(), relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())
}

/// A person's `--variant`: a built-in name, a file, or the naddr of a published variant.
pub async fn setup_options(
    variant: Option<&str>,
    hands: Option<u64>,
    players: u8,
    relays: &[String],
) -> Result<SetupOptions, String> {
    let mut opts = SetupOptions {
        players,
        hands,
        ..SetupOptions::default()
    };
    match variant.map(str::trim) {
        None | Some("") => {}
        Some(v) if v.starts_with("naddr1") => {
            // A variant of any game: the game's setup reads it (and refuses another game's).
            let text = crate::variants::fetch(v, relays).await?.0.post.content;
            opts.variant_text = Some((v.to_string(), text));
        }
        Some(v) if std::path::Path::new(v).is_file() => {
            let text = std::fs::read_to_string(v).map_err(|e| format!("cannot read {v}: {e}"))?;
            opts.variant_text = Some((v.to_string(), text));
        }
        Some(v) => opts.variant = Some(v.to_string()),
    }
    Ok(opts)
}

/// "bot 1", "bot 2"... with "you" at seat 0, for practice tables.
pub fn practice_names(players: u8) -> Vec<String> {
    (0..players)
        .map(|s| {
            if s == 0 {
                "you".into()
            } else {
                format!("bot {s}")
            }
        })
        .collect()
}

/// Seconds this machine's clock is to be taken as off, from `TOLERANCE_CLOCK_SKEW`: a testing
/// aid (the fault soak runs clients whose clocks disagree); 0 when unset or unreadable.
pub fn clock_skew() -> i64 {
    std::env::var("TOLERANCE_CLOCK_SKEW")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}
