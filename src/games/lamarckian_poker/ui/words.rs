//! lamarckian_poker: the words of its record and table.

use crate::engine::Seat;
use crate::games::lamarckian_poker::game::Entry;
use crate::games::lamarckian_poker::hand::card_name;
use crate::games::ui::words::{agree, gone, people, says};

pub use crate::games::card_hands::names as cards;

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Pool { turn, cards: cs } => format!("turn {turn}: the pool is {}", cards(cs)),
        Entry::Played {
            seat,
            mark,
            captured,
        } => {
            let who = says(n(*seat), "plays");
            let takes = agree(&n(*seat), "captures");
            let taken = if captured.is_empty() {
                "nothing".to_string()
            } else {
                cards(captured)
            };
            format!(
                "{who} {}, {takes} {taken}, and it falls into the pool",
                card_name(*mark)
            )
        }
        Entry::Discarded { cards: cs } if cs.is_empty() => "the pool is empty".into(),
        Entry::Discarded { cards: cs } => format!("{} discarded", cards(cs)),
        Entry::Extinct { seat } => format!("{} out of cards: extinct", says(n(*seat), "is")),
        Entry::Shown { seat, hand } => format!("{} {}", says(n(*seat), "shows"), hand.words()),
        Entry::Won { seats, hand } => {
            let who = if seats.len() == 1 {
                says(n(seats[0]), "wins")
            } else {
                format!("{} share the win", people(seats, n))
            };
            match hand {
                Some(h) => format!("{who} with {}", h.words()),
                None if seats.is_empty() => "nobody wins".into(),
                None => format!("{who}, the last to survive"),
            }
        }
        Entry::Forfeited { seat, reason } => format!(
            "{}: the game ends without a winner",
            gone(n(*seat), *reason)
        ),
    }
}
