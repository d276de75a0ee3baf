//! lamarckian_poker: the words of its record and table.

use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::lamarckian_poker::game::Entry;
use crate::games::lamarckian_poker::hand::card_name;
use crate::games::ui::words::says;

pub fn cards(cs: &[CardId]) -> String {
    cs.iter()
        .map(|c| card_name(*c))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn names_of(seats: &[Seat], n: &dyn Fn(Seat) -> String) -> String {
    let v: Vec<String> = seats.iter().map(|s| n(*s)).collect();
    match v.len() {
        0 => "nobody".into(),
        1 => v[0].clone(),
        k => format!("{} and {}", v[..k - 1].join(", "), v[k - 1]),
    }
}

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
            if captured.is_empty() {
                format!(
                    "{who} {}, captures nothing, and it falls into the pool",
                    card_name(*mark)
                )
            } else {
                format!(
                    "{who} {}, captures {}, and it falls into the pool",
                    card_name(*mark),
                    cards(captured)
                )
            }
        }
        Entry::Discarded { cards: cs } if cs.is_empty() => "the pool is empty".into(),
        Entry::Discarded { cards: cs } => format!("{} discarded", cards(cs)),
        Entry::Extinct { seat } => format!("{} out of cards: extinct", says(n(*seat), "is")),
        Entry::Shown { seat, hand } => format!("{} {}", says(n(*seat), "shows"), hand.words()),
        Entry::Won { seats, hand } => {
            let who = if seats.len() == 1 {
                says(n(seats[0]), "wins")
            } else {
                format!("{} share the win", names_of(seats, n))
            };
            match hand {
                Some(h) => format!("{who} with {}", h.words()),
                None if seats.is_empty() => "nobody wins".into(),
                None => format!("{who}, the last to survive"),
            }
        }
        Entry::Forfeited { seat, reason } => format!(
            "{} {}: the game ends without a winner",
            n(*seat),
            reason.describe()
        ),
    }
}
