//! Mia (Meier): two dice in a cup only its roller sees, claims that must climb, challenges,
//! passes and rerolls, three lives each.
//!
//! - [`game`]: the [`crate::engine::Game`] implementation and its view;
//! - [`replay`]: game scripts with fixed dice (golden tests, `tolerance replay`).
//!
//! The precise rules, and every decision the seed leaves open, are in `protocol/rules/mia.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use game::{Action, LogEntry, Mia, MiaView, Phase, Ranking, Setup, Throw};

#[cfg(test)]
mod tests;
