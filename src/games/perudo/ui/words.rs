//! perudo: the words of its record and table.

use crate::engine::Seat;
use crate::games::perudo::game::LogEntry;
use crate::games::ui::words::{faces, says};

/// A log entry in words.
pub fn line(e: &LogEntry, n: &dyn Fn(Seat) -> String) -> String {
    use LogEntry as E;
    match e {
        E::Toss { first } => format!("the toss: {}", says(n(*first), "opens")),
        E::Round {
            round,
            opener,
            putana,
        } if *putana => format!(
            "round {round}: {} with one die left, so ones are not wild and nobody may change \
             the face",
            says(n(*opener), "opens")
        ),
        E::Round { round, opener, .. } => {
            format!("round {round}: {}", says(n(*opener), "opens"))
        }
        E::Bid { seat, bid } => format!("{} {bid}", says(n(*seat), "bids")),
        E::Dudo { seat, against } => format!("{}: dudo! (against {})", n(*seat), n(*against)),
        E::Shown { seat, dice } => format!("{} {}", says(n(*seat), "shows"), faces(dice)),
        E::Counted { bid, count, loser } => {
            format!(
                "{count} counted for {bid}: {} a die",
                says(n(*loser), "loses")
            )
        }
        E::Out { seat } => format!("{} out", says(n(*seat), "is")),
        E::Won { seat } => format!("{} the game", says(n(*seat), "wins")),
    }
}

/// What a person may type.
pub fn help() -> &'static str {
    "'bid QUANTITY FACE' (e.g. 'bid 4 3') or 'dudo'"
}
