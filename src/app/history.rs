//! `tolerance history`: the tables played on this machine.

use clap::Subcommand;
use std::io::BufRead;

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// List the tables played on this machine, finished or left (the default).
    List,
    /// Show table N of the list, line by line.
    Show {
        n: usize,
        /// Wait for Enter between steps.
        #[arg(long)]
        step: bool,
    },
    /// Every saved table as one JSON array.
    Export,
}

pub fn run(command: Option<HistoryCommand>) -> Result<(), String> {
    use crate::history;
    let command = command.unwrap_or(HistoryCommand::List);
    let records = history::load(&crate::identity::config_dir()).map_err(|e| e.to_string())?;
    match command {
        HistoryCommand::List => {
            if records.is_empty() {
                println!("no tables saved yet: play one with `tolerance play`");
            }
            for (i, r) in records.iter().enumerate() {
                println!("{}", history::list_line(i + 1, r));
            }
        }
        HistoryCommand::Show { n, step } => {
            let r = n
                .checked_sub(1)
                .and_then(|i| records.get(i))
                .ok_or_else(|| history::HistoryError::NoSuchHand(n).to_string())?;
            let mut lines = std::io::stdin().lock().lines();
            for l in history::show_lines(r) {
                println!("{l}");
                if step && lines.next().is_none() {
                    break;
                }
            }
        }
        HistoryCommand::Export => {
            println!(
                "{}",
                serde_json::to_string_pretty(&records).expect("serialisable")
            );
        }
    }
    Ok(())
}
