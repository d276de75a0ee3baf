//! Shooting Party: its moves, rooms and entrants in words.

use crate::cards::CardId;
use crate::games::shooting_party::game::{
    card_name, card_short, communique_grade, contact_grade, rank, Action, Board, PartyView, JACK,
};
use crate::games::ui::words::count;

pub fn card_or(c: Option<CardId>, unseen: &str) -> String {
    c.map(card_name).unwrap_or_else(|| unseen.to_string())
}

/// Cards in a row, each by its short name ("Q♥ A♥ 4♣"), "none" for none.
pub fn row(cards: &[Option<CardId>]) -> String {
    if cards.is_empty() {
        return "none".into();
    }
    let v: Vec<String> = cards
        .iter()
        .map(|c| c.map(card_short).unwrap_or_else(|| "??".into()))
        .collect();
    v.join(" ")
}

/// A move in words, with the cards where the reader may see them: `e` is the entrant's game as
/// the reader sees it before the move.
pub fn move_words(a: &Action, e: &Board) -> String {
    let hand = |slot: &u8| {
        card_or(
            e.hand.get(usize::from(*slot)).copied().flatten(),
            &format!("hand card {}", slot + 1),
        )
    };
    match a {
        Action::AceUp { slot } => {
            format!("{} goes up on the table; a card replaces it", hand(slot))
        }
        Action::Spouses { a, b } => {
            format!(
                "{} and {} leave together (the spouse rule)",
                hand(a),
                hand(b)
            )
        }
        Action::Queen { slot } => format!(
            "{} leaves: she was in the room longest (one queen at a time)",
            hand(slot)
        ),
        Action::Draw => "draw a pair of guests".into(),
        Action::Leave => {
            let jacks = e
                .hand
                .iter()
                .filter(|c| c.and_then(rank) == Some(JACK))
                .count();
            if jacks >= 2 {
                "two jacks are in the room: leave it and draw four".into()
            } else {
                format!(
                    "leave the room ({} discarded) and draw four",
                    count(e.hand.len() as u64, "card", "cards")
                )
            }
        }
        Action::Discard { slots } => {
            let v: Vec<String> = slots.iter().map(hand).collect();
            format!("{} leave the room", v.join(" and "))
        }
        Action::Joker { .. } => "the joker leaves on his own".into(),
        Action::Retrieve { card, .. } => format!(
            "the joker leaves and brings back {}",
            card_or(
                e.discards.get(usize::from(*card)).copied().flatten(),
                &format!("discard {}", card + 1)
            )
        ),
        Action::Search { .. } => "the joker leaves to look through the draw pile for an ace".into(),
        Action::TakeAce { at } => format!(
            "the joker finds {} in the draw pile; it goes up and the pile is shuffled",
            card_or(
                e.search
                    .as_ref()
                    .and_then(|p| p.get(usize::from(*at)).copied().flatten()),
                "an ace"
            )
        ),
        Action::Contact { ace } => {
            let q = card_or(e.hand.first().copied().flatten(), "the queen");
            match ace {
                Some(i) => format!(
                    "contact with {q}, who hands over her communique {}",
                    card_or(e.aces.get(usize::from(*i)).copied().flatten(), "(her ace)")
                ),
                None => format!("contact with {q}"),
            }
        }
        Action::GiveUp => "give up (the score pile stands)".into(),
    }
}

/// A move as it is typed (hand places from 1): the inverse of `replay::parse_move`.
pub fn typed(a: &Action) -> String {
    let n = |x: &u8| x + 1;
    match a {
        Action::AceUp { slot } => format!("ace {}", n(slot)),
        Action::Spouses { a, b } => format!("spouses {} {}", n(a), n(b)),
        Action::Queen { slot } => format!("queen {}", n(slot)),
        Action::Draw => "draw".into(),
        Action::Leave => "leave".into(),
        Action::Discard { slots } => {
            let v: Vec<String> = slots.iter().map(|s| n(s).to_string()).collect();
            format!("discard {}", v.join(" "))
        }
        Action::Joker { slot } => format!("joker {}", n(slot)),
        Action::Retrieve { slot, card } => format!("retrieve {} {}", n(slot), n(card)),
        Action::Search { slot } => format!("search {}", n(slot)),
        Action::TakeAce { at } => format!("take {}", n(at)),
        Action::Contact { ace: None } => "contact".into(),
        Action::Contact { ace: Some(i) } => format!("contact {}", n(i)),
        Action::GiveUp => "give up".into(),
    }
}

/// Jacks in the viewer's room.
pub fn jacks(view: &PartyView) -> usize {
    view.me().map_or(0, |e| {
        e.board
            .hand
            .iter()
            .filter(|c| c.and_then(rank) == Some(JACK))
            .count()
    })
}

pub fn grade(e: &Board) -> String {
    let aces = e.scored.len() - usize::from(e.contacts);
    format!(
        "{} {}",
        communique_grade(aces),
        contact_grade(usize::from(e.contacts))
    )
}
