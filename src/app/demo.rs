//! `tolerance demo`: a table of bots over relays, each its own key and connection; prints the
//! summary every game shares (`verified`, `players`, `wall_ms`...).

use super::common::setup_options;
use crate::bots::BotLevel;
use crate::games::registry::{self, SetupOptions, TableGame, Visit};
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
