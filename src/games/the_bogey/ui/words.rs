//! The Bogey: its moves, columns and entrants in words.

use crate::cards::{CardId, PlayingCard};
use crate::engine::Seat;
use crate::games::the_bogey::game::{
    level, Action, EntrantView, Place, Places, Status, TheBogey, Verdict,
};
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

/// A move in words, with the cards where the reader may see them: `e` is the entrant as the
/// reader sees it before the move.
pub fn move_words(a: &Action, e: &EntrantView) -> String {
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

pub fn status_word(e: &EntrantView) -> String {
    match (&e.verdict, e.status) {
        (Some(Verdict::Verified { score, columns, .. }), Status::Won) => {
            format!("won · {} · {columns} col · score {score}", level(*columns))
        }
        (Some(Verdict::Verified { score, .. }), s) if s.finished() => {
            format!("{} · score {score}", s.label())
        }
        (Some(Verdict::Verified { on_table, .. }), Status::Stopped) => {
            format!("stopped at {on_table} cards")
        }
        (Some(Verdict::Refused { .. }), _) => "REFUSED".into(),
        (_, s) => s.label().to_string(),
    }
}

/// Entrant `seat` at `places` (a point of its game) as `viewer` sees it: for words about a
/// move made there.
pub fn entrant_view(
    g: &TheBogey,
    seat: Seat,
    places: &Places,
    viewer: Option<Seat>,
) -> EntrantView {
    // A spot names one card for the whole game (reshuffle piles are only ever added), so the
    // game as it is now reads the cards of any earlier point.
    let seen = |s: &crate::games::race::Spot| g.card_seen(seat, viewer, *s);
    EntrantView {
        seat,
        status: Status::Playing,
        awaits: places.awaits(),
        turn: places.turn,
        moves: 0,
        deck_left: places.deck.len(),
        hand: places.hand.iter().map(seen).collect(),
        columns: places
            .columns
            .iter()
            .map(|c| c.iter().map(seen).collect())
            .collect(),
        discards: places.discards.iter().map(seen).collect(),
        bogey: places.bogey.as_ref().map(seen),
        may_end_turn: places.may_end_turn(),
        reshuffles: places.reshuffles.len(),
        verdict: None,
    }
}
