//! The Bogey as a duplicate race: every entrant plays the same 52-card deck, shuffled by all of
//! them before anyone sees a card, against the bogey who plays the deck's next card after each
//! turn; each card is dealt sealed to an entrant only when it draws it, an entrant's discards
//! are reshuffled by everyone when its deck runs out, and every card drawn is shown at the end
//! so that anyone can check every game.
//!
//! The race itself (sealed moves, deals, reshuffles, shows, verdicts, leaderboard) is the race
//! kit's generic [`Race`](crate::games::race::Race); this folder holds what is The Bogey's, and
//! [`TheBogey`] is `Race<Bogey>`:
//!
//! - [`game`]: the rules as the kit's [`Solitaire`](crate::games::race::Solitaire)
//!   ([`Bogey`]): the deck, hand, columns and the bogey's card by spot, a move's form, what the
//!   cards must allow of it, the score;
//! - [`bot`]: a bot weighing the table each move leaves, and its measurement against the kit's
//!   random player;
//! - [`entry`]: its setup (the standard and hard variants), bots and report in the registry;
//! - [`ui`]: its words, the moves a person types, its panel's layout, and what a script (the
//!   kit's format, with a fixed deck: golden tests, `tolerance replay`) prints of an entrant.
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
