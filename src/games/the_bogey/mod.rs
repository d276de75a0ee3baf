//! The Bogey as a duplicate race: every entrant plays the same 52-card deck, shuffled by all of
//! them before anyone sees a card, against the bogey who plays the deck's next card after each
//! turn; each card is dealt sealed to an entrant only when it draws it, an entrant's discards
//! are reshuffled by everyone when its deck runs out, and every card drawn is shown at the end
//! so that anyone can check every game.
//!
//! - [`game`]: the rules ([`crate::engine::Game`]), the race and its verdicts;
//! - [`bot`]: a bot weighing the table each move leaves, and the random baseline;
//! - [`ui`]: its words, the moves a person types, its panel, and scripts with a fixed deck
//!   (golden tests, `tolerance replay`).
//!
//! Rules: `protocol/rules/the-bogey.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use bot::ColumnBot;
pub use game::{
    Action, Board, Bogey, BogeyView, End, Place, Setup, Status, TheBogey, Verdict, Verified,
};

#[cfg(test)]
mod tests;
