//! mia: the words of its record and table.

use crate::engine::Seat;
use crate::games::mia::game::LogEntry;
use crate::games::ui::words::{agree, faces, says, whose};

/// A log entry in words.
pub fn line(e: &LogEntry, n: &dyn Fn(Seat) -> String) -> String {
    use LogEntry as E;
    match e {
        E::Toss { first } => format!("the toss: {}", says(n(*first), "opens")),
        E::Round { round, opener } => format!("round {round}: {}", says(n(*opener), "opens")),
        E::Rolled { seat } => format!(
            "{} the cup and {}",
            says(n(*seat), "rolls"),
            agree(&n(*seat), "looks")
        ),
        E::Claimed { seat, claim } => format!("{} {claim}", says(n(*seat), "claims")),
        E::Passed { seat, claim } => format!("{} {claim} on unseen", says(n(*seat), "passes")),
        E::Raised { seat, claim } => {
            format!("{} the claim to {claim}", says(n(*seat), "raises"))
        }
        E::Rerolled { seat } => says(n(*seat), "rerolls"),
        E::Challenged { seat, owner } => {
            format!("{} {}", says(n(*seat), "challenges"), n(*owner))
        }
        E::Opened {
            roller,
            dice,
            value,
            claim,
        } => format!(
            "{} cup shows {} = {value} (claimed {claim})",
            whose(n(*roller)),
            faces(dice)
        ),
        E::LostLives { seat, lives } => format!(
            "{} {lives} {}",
            says(n(*seat), "loses"),
            if *lives == 1 { "life" } else { "lives" }
        ),
        E::Out { seat } => format!("{} out", says(n(*seat), "is")),
        E::Won { seat } => format!("{} the game", says(n(*seat), "wins")),
    }
}

/// What a person may type.
pub fn help() -> &'static str {
    "'claim NN', 'challenge', 'pass', 'reroll' or 'raise NN' (values like 43, 21 = Mia)"
}
