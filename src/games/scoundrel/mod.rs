//! Scoundrel as a duplicate race: every entrant plays the same dungeon, shuffled by all of them
//! before anyone sees a card, each card dealt sealed to an entrant only when it enters that
//! entrant's room, and every card drawn shown at the end so that anyone can check every game.
//!
//! - [`game`]: the rules ([`crate::engine::Game`]), the race and its verdicts;
//! - [`bot`]: a bot weighing each turn by what it keeps;
//! - [`ui`]: its words, the turns a person types, and scripts with a fixed dungeon (golden
//!   tests, `tolerance replay`).
//!
//! Rules: `protocol/rules/scoundrel.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use bot::DungeonBot;
pub use game::{
    Action, Board, Dungeon, End, Scoundrel, ScoundrelView, Setup, Status, Take, Verdict, Verified,
};

#[cfg(test)]
mod tests;
