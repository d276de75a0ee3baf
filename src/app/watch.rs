//! `tolerance watch`: follow a table as a spectator, on the terminal table when both ends are a
//! terminal (the same panel a seat sees, with no hand of its own), else line by line.

use crate::games::registry::{self, TableGame, Visit};
use crate::table::error::TableError;
use crate::table::runner::run_client_on;
use crate::table::verify::{find_to_watch, spectator_config, watched_over, Watched};

#[derive(Debug, Clone, clap::Args)]
pub struct WatchArgs {
    /// The table: its naddr1… or 64-hex id.
    pub table: Option<String>,
    #[arg(long = "table", conflicts_with = "table")]
    pub table_flag: Option<String>,
    /// Relay URL (repeatable); optional when the naddr carries relay hints.
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// Print what happens line by line, even on a terminal.
    #[arg(long)]
    pub lines: bool,
}

pub async fn run(args: WatchArgs) -> Result<(), String> {
    let table = args
        .table
        .or(args.table_flag)
        .ok_or("name the table: tolerance watch naddr1…")?;
    let mut relays = args.relays.clone();
    // A mistyped reference is told as such before anything else (not as a missing relay).
    let (_, _, hints) = crate::wire::parse_table_ref(&table)?;
    {
        for h in hints {
            if !relays.contains(&h) {
                relays.push(h);
            }
        }
    }
    if args.lines || !crate::ui::tui::available() {
        let line = crate::table::verify::watch(&relays, &table).await?;
        println!("{line}");
        return Ok(());
    }
    let w = find_to_watch(&relays, &table).await?;
    let (pool, game) = (w.pool.clone(), w.spec.game.clone());
    let out = match registry::with_game(&game, OnScreen(w)) {
        Ok(watched) => watched.await,
        Err(e) => Err(e),
    };
    pool.shutdown().await;
    match out? {
        Some(line) => println!("{line}"),
        None => println!("you stopped watching; the table goes on without you"),
    }
    Ok(())
}

/// Following a table on the terminal table.
struct OnScreen(Watched);

impl Visit for OnScreen {
    type Out =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<Option<String>, String>> + Send>>;
    fn visit<G: TableGame>(self) -> Self::Out {
        Box::pin(async move {
            let w = self.0;
            let report = crate::ui::tui::watch::<G, _, TableError, _>(
                w.names.clone(),
                |on_update| run_client_on(w.pool.clone(), spectator_config::<G>(&w, on_update)),
                watched_over,
            )
            .await?;
            Ok(report.map(|r| watched_over(&r)))
        })
    }
}
