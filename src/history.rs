//! Tables played on this machine: each finished table saved with what happened, in words, as
//! this seat saw it (its own cards included), listed, shown step by step, and exported.

use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One table as this machine's player saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The game's registry name.
    pub game: String,
    pub table: String,
    pub seat: Option<Seat>,
    pub saved_at: u64,
    /// How it ended, in one line.
    pub result: String,
    /// Everything that happened, in words.
    pub lines: Vec<String>,
    /// The game's own figures (stacks, winner...).
    #[serde(default)]
    pub report: serde_json::Value,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} line {line}: not a saved table ({reason})")]
    Corrupt {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("there is no table {0} in the history (see `tolerance history`)")]
    NoSuchHand(usize),
}

pub fn history_path(dir: &Path) -> PathBuf {
    dir.join("history.jsonl")
}

/// Appends one hand.
pub fn append(dir: &Path, record: &Record) -> Result<(), HistoryError> {
    let path = history_path(dir);
    let io = |source| HistoryError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io)?;
    let line = serde_json::to_string(record).expect("records serialise");
    writeln!(f, "{line}").map_err(io)
}

/// Every saved table, oldest first. A missing file is an empty history.
pub fn load(dir: &Path) -> Result<Vec<Record>, HistoryError> {
    let path = history_path(dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(HistoryError::Io { path, source }),
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| HistoryError::Corrupt {
                path: path.clone(),
                line: i + 1,
                reason: e.to_string(),
            })
        })
        .collect()
}

pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Saves a finished (or abandoned) table to `dir`'s history; a failure is told, never fatal:
/// the game itself is on the relays.
pub fn save(dir: &Path, record: Record) {
    if let Err(e) = append(dir, &record) {
        eprintln!("warning: the table was not saved to the history: {e}");
    }
}

/// One line per table for `tolerance history`.
pub fn list_line(n: usize, r: &Record) -> String {
    format!(
        "{n:>4}  {:<11} table {}  {}",
        r.game,
        &r.table[..r.table.len().min(12)],
        r.result
    )
}

pub fn show_lines(r: &Record) -> Vec<String> {
    let mut out = vec![format!("{} table {}", r.game, r.table)];
    for (i, l) in r.lines.iter().enumerate() {
        out.push(format!("{:>3}. {l}", i + 1));
    }
    out.push(r.result.clone());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_corruption_is_named() {
        let dir = std::env::temp_dir().join(format!("tolerance-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(load(&dir).unwrap().is_empty());
        let rec = Record {
            game: "tolerance".into(),
            table: "local".into(),
            seat: Some(0),
            saved_at: 1,
            result: "seat 1 forfeited".into(),
            lines: vec!["you post the blind 10".into()],
            report: serde_json::Value::Null,
        };
        append(&dir, &rec).unwrap();
        append(&dir, &rec).unwrap();
        assert_eq!(load(&dir).unwrap(), vec![rec.clone(), rec.clone()]);
        assert!(list_line(1, &rec).contains("forfeit"));
        assert!(show_lines(&rec).iter().any(|l| l.contains("you post")));
        std::fs::write(history_path(&dir), "{oops\n").unwrap();
        let e = load(&dir).unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
    }
}
