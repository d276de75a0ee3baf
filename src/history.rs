//! Hand history: every hand a person plays is saved on this machine (one JSON line per hand in
//! `<config dir>/history.jsonl`), listed by `tolerance history`, replayed step by step by
//! `tolerance history show N`, and exported as JSON by `tolerance history export`.
//!
//! Only what the person's own client knew is stored: the public record of the hand, the cards
//! shown at showdown, and where the person sat.

use crate::engine::Seat;
use crate::table::HandSummary;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The table id (networked) or "local".
    pub table: String,
    /// The person's seat.
    pub seat: Option<Seat>,
    /// Seconds since the Unix epoch when the hand was saved.
    pub saved_at: u64,
    pub hand: HandSummary,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} line {line}: not a saved hand ({reason})")]
    Corrupt {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("there is no hand {0} in the history (see `tolerance history`)")]
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

/// Every saved hand, oldest first. A missing file is an empty history.
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

/// One line per hand for `tolerance history`.
pub fn list_line(n: usize, r: &Record) -> String {
    let me = r.seat;
    let delta = me
        .and_then(|s| r.hand.final_stacks.iter().find(|(x, _)| *x == s))
        .map(|(_, end)| *end);
    let outcome = match &r.hand.result {
        Some(res) if res.uncontested => "uncontested".to_string(),
        Some(res) => format!("showdown of {}", res.points.len()),
        None if !r.hand.forfeits.is_empty() => "forfeit".to_string(),
        None => "unfinished".to_string(),
    };
    format!(
        "{n:>4}  table {}  hand {:>3}  {} players  {outcome}{}",
        &r.table[..r.table.len().min(12)],
        r.hand.hand + 1,
        r.hand.players.len(),
        delta
            .map(|d| format!("  your stack {d}"))
            .unwrap_or_default()
    )
}

/// The hand step by step, in words.
pub fn show_lines(r: &Record) -> Vec<String> {
    let name = |s: Seat| {
        if Some(s) == r.seat {
            "you".to_string()
        } else {
            format!("seat {s}")
        }
    };
    let mut out = vec![format!(
        "table {} hand {} (Dealer: {})",
        r.table,
        r.hand.hand + 1,
        name(r.hand.dealer)
    )];
    for (i, e) in r.hand.log.iter().enumerate() {
        out.push(format!(
            "{:>3}. {}",
            i + 1,
            crate::ui::line::entry_text(e, &name)
        ));
    }
    for (seat, cards) in &r.hand.shown {
        let c: Vec<String> = cards
            .iter()
            .map(|c| crate::cards::PlayingCard::from_id(*c).to_string())
            .collect();
        out.push(format!("{} showed {}", name(*seat), c.join(" ")));
    }
    if let Some(res) = &r.hand.result {
        for (seat, pts) in &res.points {
            out.push(format!("{}: {pts} points", name(*seat)));
        }
    }
    for (seat, why) in &r.hand.forfeits {
        out.push(format!("{} forfeited: {why}", name(*seat)));
    }
    let stacks: Vec<String> = r
        .hand
        .final_stacks
        .iter()
        .map(|(s, c)| format!("{} {c}", name(*s)))
        .collect();
    out.push(format!("stacks after the hand: {}", stacks.join(", ")));
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
            table: "local".into(),
            seat: Some(0),
            saved_at: 1,
            hand: HandSummary {
                hand: 0,
                dealer: 1,
                players: vec![0, 1],
                result: None,
                forfeits: vec![(1, "withheld".into())],
                final_stacks: vec![(0, 1010), (1, 990)],
                shown: vec![],
                log: vec![],
            },
        };
        append(&dir, &rec).unwrap();
        append(&dir, &rec).unwrap();
        assert_eq!(load(&dir).unwrap(), vec![rec.clone(), rec.clone()]);
        assert!(list_line(1, &rec).contains("forfeit"));
        assert!(show_lines(&rec)
            .iter()
            .any(|l| l.contains("seat 1 forfeited")));
        std::fs::write(history_path(&dir), "{oops\n").unwrap();
        let e = load(&dir).unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
    }
}
