//! chickenfoot: the words of its record and table.

use crate::engine::Seat;
use crate::games::chickenfoot::game::{ChickenfootView, Entry, Layout, RoundEnd, Spot};
use crate::games::dominoes::ui::joined as seats;
use crate::games::ui::words::{agree, agree_many, gone, says};

pub use crate::games::dominoes::ui::tile_text as tile;

/// A spot in words, as the layout names it: lines are numbered from 1 in the order they began.
pub fn spot_words(spot: Spot) -> String {
    match spot {
        Spot::Center => "on the centerpiece".into(),
        Spot::Toe(l) => format!("as a toe of the double ending line {}", l + 1),
        Spot::End(l) => format!("on line {}", l + 1),
    }
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Round {
            number,
            center,
            first,
            by_lot,
        } => format!(
            "round {number}: the [{center}|{center}] is the centerpiece; {}{}",
            if *by_lot { "by lot, " } else { "" },
            says(n(*first), "plays") + " first"
        ),
        Entry::Played {
            seat, halves, spot, ..
        } => format!(
            "{} {} {}{}",
            says(n(*seat), "sets"),
            tile(*halves),
            spot_words(*spot),
            if halves.0 == halves.1 && !matches!(spot, Spot::Center) {
                ": a chickenfoot, the next three tiles go on it"
            } else {
                ""
            }
        ),
        Entry::LastTile { seat } => format!("{} bok bok: one tile left", says(n(*seat), "calls")),
        Entry::Drew { seat } => format!("{} a tile from the chicken yard", says(n(*seat), "draws")),
        Entry::Passed { seat } => says(n(*seat), "passes"),
        Entry::Ended {
            how: RoundEnd::Out(s),
        } => format!("{} out: the round is over", says(n(*s), "goes")),
        Entry::Ended {
            how: RoundEnd::NoDraw(s),
        } => format!(
            "{} and the chicken yard is empty: no draw, the round is over",
            says(n(*s), "cannot play")
        ),
        Entry::Showed { seat, tiles, .. } if tiles.is_empty() => {
            format!("{} no tiles: 0 points", says(n(*seat), "holds"))
        }
        Entry::Showed {
            seat,
            tiles,
            points,
        } => format!(
            "{} {}: {points} points",
            says(n(*seat), "shows"),
            tiles.iter().map(|t| tile(*t)).collect::<Vec<_>>().join(" ")
        ),
        Entry::Misplayed { seat, spot, .. } => format!(
            "{} a tile that does not match {} and {} the game",
            says(n(*seat), "shows"),
            spot_words(*spot),
            agree(&n(*seat), "loses")
        ),
        Entry::Forfeited { seat, reason } => {
            format!(
                "{}: {} out of the game",
                gone(n(*seat), *reason),
                says(n(*seat), "is")
            )
        }
        Entry::Over { winners } if winners.is_empty() => "the game is over: nobody wins".into(),
        Entry::Over { winners } => format!(
            "the game is over: {} {}",
            seats(winners, n),
            agree_many(winners.len(), &n(winners[0]), "wins")
        ),
    }
}

pub fn scores_line(scores: &[i64], n: &dyn Fn(Seat) -> String) -> String {
    scores
        .iter()
        .enumerate()
        .map(|(s, p)| format!("{} {p}", n(s as Seat)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The layout, one line of text per line of tiles.
pub fn layout_lines(l: &Layout) -> Vec<String> {
    let mut out = vec![format!("centerpiece [{}|{}]", l.center, l.center)];
    for (i, line) in l.lines.iter().enumerate() {
        let from = match line.from {
            None => "center".to_string(),
            Some(d) => format!("toe of {}", d + 1),
        };
        let tiles: String = line.tiles.iter().map(|t| tile(*t)).collect();
        out.push(format!("{:>2} ({from}) {tiles}", i + 1));
    }
    out
}

pub fn spots_line(v: &ChickenfootView) -> String {
    let l = &v.layout;
    if l.arms() < 4 {
        return format!(
            "the centerpiece needs {} more arm(s): play a {}",
            4 - l.arms(),
            l.center
        );
    }
    if let (Some((line, k)), Some((_, p))) = (l.foot, v.spots.first()) {
        return format!(
            "chickenfoot on line {}: {k} more toe(s), each a {p}",
            line + 1
        );
    }
    let ends: Vec<String> = v
        .spots
        .iter()
        .map(|(s, p)| match s {
            Spot::End(i) => format!("line {} {p}", i + 1),
            _ => format!("{p}"),
        })
        .collect();
    format!("open: {}", ends.join(", "))
}
