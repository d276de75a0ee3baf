//! `tolerance verify`: a table checked from its public events alone.

use crate::table::verify::{verdict_text_named, verify_table};

#[derive(Debug, Clone, clap::Args)]
pub struct VerifyArgs {
    /// The table: its naddr1… (its host decides which table it is) or 64-hex id.
    pub table: Option<String>,
    /// The table (older spelling of the positional argument).
    #[arg(long = "table", conflicts_with = "table")]
    pub table_flag: Option<String>,
    /// Relay URL (repeatable); optional when the naddr carries relay hints.
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: VerifyArgs) -> Result<(), String> {
    let table = args
        .table
        .or(args.table_flag)
        .ok_or("name the table: tolerance verify naddr1…")?;
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
    if relays.is_empty() {
        return Err(
            "no relay to read the table from: pass --relay URL or an naddr with relay hints".into(),
        );
    }
    let r = verify_table(&relays, &table).await?;
    if args.json {
        println!("{}", serde_json::to_string(&r).expect("serialisable"));
    } else {
        println!("{} table {} hosted by {}", r.game, r.table, r.host_identity);
        for (s, (name, who)) in r.names.iter().zip(&r.identities).enumerate() {
            let key = r.seats.get(s).filter(|k| *k != who);
            match key {
                Some(key) => println!("  seat {s}: {name} ({who}, by a table key {key})"),
                None => println!("  seat {s}: {name} ({who})"),
            }
        }
        let name = |x: crate::engine::Seat| {
            r.names
                .get(x as usize)
                .cloned()
                .unwrap_or_else(|| format!("seat {x}"))
        };
        for v in &r.verdicts {
            println!("  {}", verdict_text_named(v, &name));
        }
        for p in &r.problems {
            println!("  REJECTED: {p}");
        }
        if r.ignored > 0 {
            println!(
                "  {} events by keys that hold no seat were ignored (they cannot change the table)",
                r.ignored
            );
        }
        for h in &r.other_hosts {
            println!("  ignored: {h} also announced a table with this id");
        }
        println!(
            "{} events checked; {}",
            r.events,
            if !r.finished {
                "not finished yet".to_string()
            } else {
                r.result.clone()
            }
        );
    }
    if let Some(why) = &r.invariants {
        return Err(format!(
            "verification failed: the game's own checks fail on the state the log leads to \
             ({why}); this is a fault of this program, please report it"
        ));
    }
    match (r.ok, r.finished) {
        (false, _) => Err("verification failed: an event of a seated player breaks a rule".into()),
        (true, true) => {
            if !args.json {
                println!("verified: every signature, proof and rule checks out");
            }
            Ok(())
        }
        (true, false) => {
            if !args.json {
                println!("no violation so far; the table is not finished yet");
            }
            Ok(())
        }
    }
}
