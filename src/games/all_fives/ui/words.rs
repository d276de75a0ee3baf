//! all_fives: the words of its record and table.

use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::all_fives::game::{halves, pips, AllFivesView, End, Entry, HandEnd};
use crate::games::dominoes::ui::joined as side;
use crate::games::dominoes::{self};
use crate::games::ui::words::{agree, agree_many, gone};
use std::fmt::Write;

pub fn tile(t: CardId) -> String {
    dominoes::ui::tile_text(halves(t))
}

/// "Ann sets" / "you set"; "Ann and you score" (`plural`: a side of partners).
pub fn act(who: &str, verb: &'static str, plural: bool) -> String {
    format!(
        "{who} {}",
        agree_many(if plural { 2 } else { 1 }, who, verb)
    )
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Hand {
            number,
            leader,
            by_lot,
        } => format!(
            "hand {number}: {}{}",
            if *by_lot { "by lot, " } else { "" },
            act(&n(*leader), "leads", false)
        ),
        Entry::Played {
            seat,
            tile: t,
            end,
            count,
            scored,
        } => {
            let who = n(*seat);
            let set = match end {
                End::Lead => format!("{} {}", act(&who, "leads", false), tile(*t)),
                e => format!(
                    "{} {} on the {} end",
                    act(&who, "sets", false),
                    tile(*t),
                    e.word()
                ),
            };
            if *scored > 0 {
                format!("{set}: the ends count {count}, {scored} points")
            } else {
                format!("{set}: the ends count {count}")
            }
        }
        Entry::Drew { seat } => format!(
            "{} a tile from the boneyard",
            act(&n(*seat), "draws", false)
        ),
        Entry::Passed { seat } => act(&n(*seat), "passes", false),
        Entry::Ended {
            how: HandEnd::Domino(s),
        } => format!("{}: the hand is over", act(&n(*s), "dominoes", false)),
        Entry::Ended {
            how: HandEnd::Blocked,
        } => "nobody can play: the hand is blocked".into(),
        Entry::Showed { seat, tiles } if tiles.is_empty() => {
            format!("{} no tiles", act(&n(*seat), "holds", false))
        }
        Entry::Showed { seat, tiles } => format!(
            "{} {} ({} pips)",
            act(&n(*seat), "shows", false),
            tiles.iter().map(|t| tile(*t)).collect::<Vec<_>>().join(" "),
            tiles.iter().map(|t| pips(*t)).sum::<u32>()
        ),
        Entry::HandScored { seats, .. } if seats.is_empty() => {
            "a tie for the fewest pips: nobody scores for the hand".into()
        }
        Entry::HandScored { seats, points } => format!(
            "{} {points} points for the hand",
            act(&side(seats, n), "scores", seats.len() > 1)
        ),
        Entry::Misplayed { seat, tile: t, end } => format!(
            "{} {} on the {} end, where it does not fit, and {} the game",
            act(&n(*seat), "shows", false),
            tile(*t),
            end.word(),
            agree(&n(*seat), "loses")
        ),
        Entry::Forfeited { seat, reason } => format!(
            "{}: {} out of the game",
            gone(n(*seat), *reason),
            act(&n(*seat), "is", false)
        ),
        Entry::Over { winners } if winners.is_empty() => "the game is over: nobody wins".into(),
        Entry::Over { winners } => format!(
            "the game is over: {}",
            act(&side(winners, n), "wins", winners.len() > 1)
        ),
    }
}

pub fn scores_line(teams: &[Vec<Seat>], scores: &[i64], n: &dyn Fn(Seat) -> String) -> String {
    teams
        .iter()
        .zip(scores)
        .map(|(t, s)| format!("{} {s}", side(t, n)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The layout in one line per arm.
pub fn layout_lines(v: &AllFivesView) -> Vec<String> {
    let l = &v.layout;
    if l.is_empty() {
        return vec!["the table is empty".into()];
    }
    let mut line = String::new();
    for (i, (a, b)) in l.line.iter().enumerate() {
        let mark = if l.spinner == Some(i) { "*" } else { "" };
        let _ = write!(line, "{mark}[{a}|{b}]{mark}");
    }
    let mut out = vec![format!("line  {line}")];
    for (name, arm) in [("north", &l.north), ("south", &l.south)] {
        if !arm.is_empty() {
            let s: String = arm.iter().map(|(a, b)| format!("[{a}|{b}]")).collect();
            out.push(format!("{name} {s}"));
        }
    }
    out
}

pub fn ends_line(v: &AllFivesView) -> String {
    if v.ends.is_empty() {
        return "no open ends yet".into();
    }
    let ends: Vec<String> = v
        .ends
        .iter()
        .map(|(e, p)| format!("{} {p}", e.word()))
        .collect();
    format!("open: {} — the ends count {}", ends.join(", "), v.count)
}
