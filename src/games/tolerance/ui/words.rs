//! Tolerance in words: a readable text rendering of a hand, the log as sentences, the move
//! prompt and a parser for typed moves (line mode, `watch`, histories, screen readers).

use crate::engine::Seat;
use crate::games::tolerance::hand::LogEntry;
use crate::games::tolerance::{Action, HandView, Phase};
use crate::games::ui::words::says;
use std::fmt::Write;

/// A card as every game shows it ("7♣", "10♥"), not in the letters scripts and variant files
/// use ("7C").
fn card_text(c: Option<crate::cards::CardId>) -> String {
    match c {
        Some(id) => crate::games::card_hands::card_name(id),
        None => "??".into(),
    }
}

/// "A♠ K♦".
pub fn cards_text(cards: &[crate::cards::CardId]) -> String {
    cards
        .iter()
        .map(|c| card_text(Some(*c)))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn phase_text(p: Phase) -> String {
    match p {
        Phase::Deal => "dealing".into(),
        Phase::Bet(r) => format!("betting round {}", r + 1),
        Phase::Roll(r) => format!("roll round {}", r + 1),
        Phase::CardAgain(_) => "dealing another card".into(),
        Phase::Showdown => "showdown".into(),
        Phase::Done => "hand over".into(),
    }
}

/// The hand's header, for its words and its drawing alike: "hand 2 · betting round 1 · pot
/// 40 · blind 10 · d6".
pub fn heading(view: &HandView) -> String {
    format!(
        "hand {} · {} · pot {} · blind {} · d{}",
        view.hand_no + 1,
        phase_text(view.phase),
        view.pot,
        view.rules.blind,
        view.rules.die_sides
    )
}

/// Renders the table as a few lines of text. `names` gives a label per seat.
pub fn render(view: &HandView, names: &dyn Fn(Seat) -> String) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "── {} ──", heading(view));
    for p in &view.players {
        let mut marks = String::new();
        if p.seat == view.dealer {
            marks.push_str(" [D]");
        }
        if p.seat == view.starter {
            marks.push_str(" [S]");
        }
        if view.to_act == Some(p.seat) {
            marks.push_str(" ◀");
        }
        let state = if p.folded {
            " folded".to_string()
        } else if p.all_in {
            " ALL-IN".to_string()
        } else {
            String::new()
        };
        let cards: Vec<String> = p.cards.iter().map(|c| card_text(*c)).collect();
        let rolls: Vec<String> = p
            .rolls
            .iter()
            .map(|r| format!("T{}→{}({:+})", r.target, r.die, r.delta()))
            .collect();
        let points = p.points.map(|v| format!(" = {v} pts")).unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<14} stack {:>6}  bet {:>5}  [{}] {}{}{}{}",
            names(p.seat),
            p.stack,
            p.bet,
            cards.join(" "),
            rolls.join(" "),
            points,
            state,
            marks
        );
    }
    out
}

/// One line per log entry since `from`.
pub fn log_lines(view: &HandView, from: usize, names: &dyn Fn(Seat) -> String) -> Vec<String> {
    view.log
        .iter()
        .skip(from)
        .map(|e| entry_text(e, names))
        .collect()
}

/// A log entry in words.
pub fn entry_text(e: &LogEntry, names: &dyn Fn(Seat) -> String) -> String {
    match e {
        LogEntry::Blind { seat, amount } => {
            format!("{} the blind {amount}", says(names(*seat), "posts"))
        }
        LogEntry::Act { seat, action } => {
            let (verb, rest) = action_words(action);
            format!("{}{rest}", says(names(*seat), verb))
        }
        LogEntry::Rolled { seat, target, die } => format!(
            "{} {die} against Tolerance {target}: {}",
            says(names(*seat), "rolled"),
            if die >= target {
                format!("+{target}")
            } else {
                format!("-{target}")
            }
        ),
        LogEntry::Won { seat, amount } => format!("{} {amount}", says(names(*seat), "wins")),
    }
}

/// A move as a third-person verb and the rest of the sentence ("raises", " to 40").
fn action_words(a: &Action) -> (&'static str, String) {
    match a {
        Action::Fold => ("folds", String::new()),
        Action::Check => ("checks", String::new()),
        Action::Call => ("calls", String::new()),
        Action::Raise { to } => ("raises", format!(" to {to}")),
        Action::Pass => ("passes", " (no roll)".into()),
        Action::Roll { target } => ("rolls", format!(" with Tolerance {target}")),
    }
}

/// A move in words, third person ("raises to 40").
pub fn action_text(a: &Action) -> String {
    let (verb, rest) = action_words(a);
    format!("{verb}{rest}")
}

/// The prompt listing what the player may type.
pub fn prompt(view: &HandView) -> String {
    let mut opts = Vec::new();
    let mut raise: Option<(u64, u64)> = None;
    for a in &view.legal {
        match a {
            Action::Fold => opts.push("fold".to_string()),
            Action::Check => opts.push("check".to_string()),
            Action::Call => opts.push(format!("call ({})", view.to_call)),
            Action::Raise { to } => {
                raise = Some(match raise {
                    None => (*to, *to),
                    Some((lo, hi)) => (lo.min(*to), hi.max(*to)),
                })
            }
            Action::Pass => opts.push("pass".to_string()),
            Action::Roll { .. } => {}
        }
    }
    if let Some((lo, hi)) = raise {
        opts.push(if lo == hi {
            format!("raise {lo}")
        } else {
            format!("raise N ({lo}..={hi})")
        });
    }
    if view.legal.iter().any(|a| matches!(a, Action::Roll { .. })) {
        opts.push(format!("roll N (1..={})", view.rules.die_sides));
    }
    format!("your move: {} > ", opts.join(" | "))
}

/// Parses a typed move ("c" = check or call, "r 40", "raise 40", "all", "roll 3", "p", "f").
pub fn parse_move(input: &str, view: &HandView) -> Result<Action, String> {
    let words: Vec<String> = input.split_whitespace().map(str::to_lowercase).collect();
    let num = |i: usize| -> Result<u64, String> {
        words
            .get(i)
            .ok_or_else(|| "a number is missing".to_string())?
            .parse::<u64>()
            .map_err(|_| format!("'{}' is not a number", words[i]))
    };
    let a = match words.first().map(String::as_str) {
        Some("f" | "fold") => Action::Fold,
        Some("k" | "check") => Action::Check,
        Some("call") => Action::Call,
        Some("c") => {
            if view.legal.contains(&Action::Check) {
                Action::Check
            } else {
                Action::Call
            }
        }
        Some("r" | "raise" | "bet") => Action::Raise { to: num(1)? },
        Some("all" | "allin" | "all-in") => {
            let max = view
                .legal
                .iter()
                .filter_map(|a| match a {
                    Action::Raise { to } => Some(*to),
                    _ => None,
                })
                .max()
                .ok_or("raising is not open to you now")?;
            Action::Raise { to: max }
        }
        Some("p" | "pass") => Action::Pass,
        Some("roll") => Action::Roll {
            target: u8::try_from(num(1)?).map_err(|_| "Tolerance number too large")?,
        },
        Some(w) => return Err(format!("'{w}' is not a move")),
        None => return Err("type a move".into()),
    };
    Ok(a)
}
