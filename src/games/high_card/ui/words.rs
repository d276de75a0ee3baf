//! high_card: the words of its record and table.

use crate::engine::Seat;
use crate::games::high_card::game::{Action, Entry};
use crate::games::ui::words::{agree, says};

/// "Q♠", as every game shows a card.
pub fn card(c: crate::cards::CardId) -> String {
    crate::games::card_hands::card_name(c)
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::First { seat } => format!("by lot, {} first", says(n(*seat), "plays")),
        Entry::Kept { seat } => format!("{} the card", says(n(*seat), "keeps")),
        Entry::Swapped { seat, discarded } => format!(
            "{} {} face up and {} a new card",
            says(n(*seat), "discards"),
            card(*discarded),
            agree(&n(*seat), "draws")
        ),
        Entry::Decided { seat, action } => {
            let verb = if *action == Action::Stay {
                "stays"
            } else {
                "folds"
            };
            says(n(*seat), verb)
        }
        Entry::Shown { seat, card: c } => format!("{} {}", says(n(*seat), "shows"), card(*c)),
        Entry::Won { seat, points } => format!("{} {points} points", says(n(*seat), "wins")),
        Entry::Forfeited { seat, points } => {
            format!("{} and pays {points} points", says(n(*seat), "forfeits"))
        }
    }
}
