//! Perudo (Dudo, Liar's Dice): every player's dice hidden in a cup, bids on the whole table's
//! dice, ones wild, "dudo" opens every cup, the Putana round for a player down to one die.
//!
//! - [`game`]: the [`crate::engine::Game`] implementation and its view;
//! - [`replay`]: game scripts with fixed dice (golden tests, `tolerance replay`).
//!
//! The precise rules, and every decision the seed leaves open, are in `protocol/rules/perudo.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use game::{
    check_bid, count_for, face_name, Action, Bid, LogEntry, Perudo, PerudoView, Phase, Setup,
};

#[cfg(test)]
mod tests;
