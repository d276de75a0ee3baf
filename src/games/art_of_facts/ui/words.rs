//! art_of_facts: the words of its record and table.

use crate::engine::Seat;
use crate::games::art_of_facts::deck::Card;
use crate::games::art_of_facts::game::{ArtView, Entry};
use crate::games::art_of_facts::value;
use crate::games::ui::words::{agree, says};

pub fn cards_text(cards: &[Card]) -> String {
    cards.iter().map(Card::name).collect::<Vec<_>>().join(", ")
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Drew { seat, card } => format!("{} {}", says(n(*seat), "draws"), card.name()),
        Entry::Dealer { seat, card } => format!(
            "{} with the highest feather card, {}",
            says(n(*seat), "deals first"),
            card.name()
        ),
        Entry::Ante {
            hand,
            ante,
            rotation,
            pot,
        } => format!(
            "hand {hand}: everyone antes {ante} (rotation {}), pot {pot}",
            rotation + 1
        ),
        Entry::Kept { seat } => format!("{} the three cards", says(n(*seat), "keeps")),
        Entry::Swapped { seat, slot } => format!(
            "{} card {} for the face-down card",
            says(n(*seat), "swaps"),
            slot + 1
        ),
        Entry::Shown { seat, cards } => {
            format!("{} {}", says(n(*seat), "shows"), cards_text(cards))
        }
        Entry::Declared { seat, value, how } => {
            format!("{} {value}: {how}", says(n(*seat), "declares"))
        }
        Entry::TookBack { seat, chips } => format!(
            "{} the dealer and {} {chips} back",
            says(n(*seat), "ties"),
            agree(&n(*seat), "takes")
        ),
        Entry::Won {
            seat,
            pot,
            value,
            dealer_tie,
        } => {
            if *dealer_tie {
                format!(
                    "a tie for the top goes to the dealer: {} the pot of {pot}",
                    says(n(*seat), "takes")
                )
            } else {
                format!("{} the pot of {pot} with {value}", says(n(*seat), "takes"))
            }
        }
        Entry::Out { seat } => format!("{} out of chips", says(n(*seat), "is")),
        Entry::Forfeited { seat, shared } => format!(
            "{} the table; its ante of {shared} is shared",
            says(n(*seat), "leaves")
        ),
    }
}

/// A seat's shown (or own) hand from a view, as ids into the view's deck list.
pub fn shown_hand(
    view: &ArtView,
    seat: Seat,
) -> (
    Vec<crate::cards::CardId>,
    crate::games::art_of_facts::deck::Cards,
) {
    let cards = crate::games::art_of_facts::deck::Cards(view.deck.clone());
    let mut taken = Vec::new();
    if let Some(p) = view.player(seat) {
        for c in p.cards.iter().flatten() {
            if let Some(id) = cards.find(&c.name(), &taken) {
                taken.push(id);
            }
        }
    }
    (taken, cards)
}

pub fn value_of(view: &ArtView, seat: Seat, d: &value::Declaration) -> Option<i64> {
    let (ids, cards) = shown_hand(view, seat);
    value::value(&cards, &ids, d).ok()
}
