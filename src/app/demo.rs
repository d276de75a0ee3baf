//! `tolerance demo`: a table of bots over relays, each its own key and connection; prints the
//! summary every game shares (`verified`, `players`, `wall_ms`...).

use super::common::setup_options;
use crate::bots::BotLevel;
use crate::games::registry::{self, SetupOptions, TableGame, Visit};
use crate::net::pool::{PoolConfig, SendRate};
use crate::table::demo::{run_demo, DemoOptions, DemoSummary};
use crate::wire::Pace;
use std::time::Duration;

#[derive(Debug, Clone, clap::Args)]
pub struct DemoArgs {
    /// The game (see `tolerance games`).
    #[arg(long, default_value = crate::games::registry::DEFAULT_GAME)]
    pub game: String,
    #[arg(long, default_value_t = 4)]
    pub players: u8,
    /// Hands or rounds to play (Tolerance, High Card); dice games play to their end.
    #[arg(long, default_value_t = 3)]
    pub hands: u64,
    /// Relay URL (repeatable); none starts the embedded relay on loopback.
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// A built-in variant, a variant FILE, or an naddr1… of a published variant.
    #[arg(long)]
    pub variant: Option<String>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// How well the bots play: easy, normal or hard.
    #[arg(long, default_value_t = BotLevel::Normal)]
    pub bot_level: BotLevel,
    /// Keep each client's connection to every relay within N events a minute, B at once
    /// ("30/5"), as on a throttled public relay; by default only relays off this machine and
    /// its network are paced.
    #[arg(long, value_name = "N/B", value_parser = parse_rate)]
    pub rate: Option<SendRate>,
}

fn parse_rate(s: &str) -> Result<SendRate, String> {
    let (n, b) = s.split_once('/').unwrap_or((s, "1"));
    let per_minute: f64 = n
        .trim()
        .parse()
        .map_err(|_| format!("{n:?} is not a number of events a minute"))?;
    let burst: u32 = b
        .trim()
        .parse()
        .map_err(|_| format!("{b:?} is not a number of events at once"))?;
    if per_minute.is_nan() || per_minute <= 0.0 || burst == 0 {
        return Err("a rate needs more than zero events a minute and at once".into());
    }
    Ok(SendRate { per_minute, burst })
}

pub async fn run(args: DemoArgs) -> Result<(), String> {
    let opts = setup_options(
        args.variant.as_deref(),
        Some(args.hands),
        args.players,
        &args.relays,
    )
    .await?;
    let summary = registry::with_game(
        &args.game,
        Demo {
            args: args.clone(),
            opts,
        },
    )?
    .await?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&summary).expect("summaries serialise")
        );
    } else {
        println!(
            "{} with {} players: {}",
            summary.game, summary.players, summary.result
        );
        for v in &summary.verdicts {
            println!("  {v}");
        }
        println!(
            "verified: {} · {} events, {} bytes, {} relay passes · {} ms",
            summary.verified, summary.events, summary.bytes, summary.passes, summary.wall_ms
        );
        for r in &summary.relay_figures {
            let mut line = format!(
                "  {}: {} accepted, {} refused ({} rate-limited), {} reconnections, {} \
                 subscriptions closed",
                r.url, r.accepted, r.rejected, r.rate_limited, r.reconnects, r.subscriptions_closed
            );
            for (reason, n) in &r.reasons {
                line.push_str(&format!("\n    {n} × {reason}"));
            }
            if let Some(info) = &r.info {
                line.push_str(&format!("\n    {}", info_words(info)));
            }
            println!("{line}");
        }
        println!("check it yourself: tolerance verify {}", summary.naddr);
    }
    if summary.verified {
        Ok(())
    } else {
        Err("the table did not verify".into())
    }
}

struct Demo {
    args: DemoArgs,
    opts: SetupOptions,
}

type Fut = std::pin::Pin<Box<dyn std::future::Future<Output = Result<DemoSummary, String>> + Send>>;

impl Visit for Demo {
    type Out = Fut;
    fn visit<G: TableGame>(self) -> Fut {
        Box::pin(async move {
            let opts = DemoOptions {
                setup: self.opts,
                relays: self.args.relays,
                // Bots answer at once: a bot table runs at the card room's pace.
                deadlines: Pace::Fast.deadlines(),
                idle: Duration::from_secs(300),
                bot_level: self.args.bot_level,
                pool: match self.args.rate {
                    Some(rate) => PoolConfig::paced(rate),
                    None => PoolConfig::default(),
                },
                ..DemoOptions::default()
            };
            let run = run_demo::<G>(opts, None, None).await?;
            for r in &run.reports {
                if let Err(e) = r {
                    eprintln!("a client stopped: {e}");
                }
            }
            Ok(run.summary)
        })
    }
}

/// What a relay's NIP-11 document told the clients, in one line.
fn info_words(info: &crate::net::RelayInfo) -> String {
    let mut parts = Vec::new();
    if let Some(n) = info.max_limit {
        parts.push(format!("{n} events per query"));
    }
    if let Some(n) = info.max_message_length {
        parts.push(format!("messages up to {n} bytes"));
    }
    if let Some(n) = info.max_subscriptions {
        parts.push(format!("{n} subscriptions"));
    }
    if info.min_pow_difficulty > 0 {
        parts.push(format!("proof of work of {} bits", info.min_pow_difficulty));
    }
    if info.auth_required {
        parts.push("authentication required".into());
    }
    if info.payment_required {
        parts.push("payment required".into());
    }
    if info.restricted_writes {
        parts.push("writes restricted".into());
    }
    if parts.is_empty() {
        "its information document (NIP-11) states no limits".into()
    } else {
        format!("its information document (NIP-11): {}", parts.join(", "))
    }
}
