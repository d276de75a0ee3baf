//! `tolerance watch`: follow a table as a spectator.

#[derive(Debug, Clone, clap::Args)]
pub struct WatchArgs {
    /// The table: its naddr1… or 64-hex id.
    pub table: Option<String>,
    #[arg(long = "table", conflicts_with = "table")]
    pub table_flag: Option<String>,
    /// Relay URL (repeatable); optional when the naddr carries relay hints.
    #[arg(long = "relay")]
    pub relays: Vec<String>,
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
    let line = crate::table::verify::watch(&relays, &table).await?;
    println!("{line}");
    Ok(())
}
