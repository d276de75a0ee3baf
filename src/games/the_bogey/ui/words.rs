//! The Bogey: its moves, columns and entrants in words.

use crate::cards::{CardId, PlayingCard};
use crate::games::the_bogey::game::{Action, Board, Place};
use crate::games::ui::words::count;

pub use crate::games::the_bogey::game::card_name as card;

pub fn card_or(c: Option<CardId>, unseen: &str) -> String {
    c.map(card).unwrap_or_else(|| unseen.to_string())
}

/// One column in a few characters: its suit once, then its ranks top first ("♠ K Q 9 5").
pub fn column_text(col: &[Option<CardId>]) -> String {
    let suit = col
        .first()
        .copied()
        .flatten()
        .map(|c| PlayingCard::from_id(c).suit.symbol().to_string())
        .unwrap_or_else(|| "?".into());
    let ranks: Vec<String> = col
        .iter()
        .map(|c| {
            c.map(|c| PlayingCard::from_id(c).rank_str().to_string())
                .unwrap_or_else(|| "?".into())
        })
        .collect();
    format!("{suit} {}", ranks.join(" "))
}

/// Where a card goes, in words.
fn place_words(to: Place, columns: &[Vec<Option<CardId>>]) -> String {
    match to {
        Place::New => "a new column".into(),
        Place::Column(n) => {
            let under = columns
                .get(usize::from(n))
                .and_then(|c| c.last().copied().flatten())
                .map(|b| format!(" (under {})", card(b)))
                .unwrap_or_default();
            format!("column {}{under}", n + 1)
        }
    }
}

/// A move in words, with the cards where the reader may see them: `e` is the entrant's game as
/// the reader sees it before the move.
pub fn move_words(a: &Action, e: &Board) -> String {
    let hand = |slot: u8| {
        card_or(
            e.hand.get(usize::from(slot)).copied().flatten(),
            &format!("hand card {}", slot + 1),
        )
    };
    let bogey = e
        .bogey
        .flatten()
        .map(|c| format!("the bogey's {}", card(c)))
        .unwrap_or_else(|| "the bogey's card".into());
    match *a {
        Action::Play { slot, to } => {
            format!("play {} to {}", hand(slot), place_words(to, &e.columns))
        }
        Action::Discard { slot } => format!("discard {}", hand(slot)),
        Action::EndTurn => {
            if e.hand.is_empty() {
                "end the turn: the bogey plays".into()
            } else {
                format!(
                    "end the turn holding {}: the bogey plays",
                    count(e.hand.len() as u64, "card", "cards")
                )
            }
        }
        Action::Place { to } => format!("put {bogey} in {}", place_words(to, &e.columns)),
        Action::Stuck => format!("{bogey} fits nowhere: the game is lost"),
        Action::GiveUp => "give up (scored as lost)".into(),
    }
}
