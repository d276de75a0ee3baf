//! Abandon Ship (James Ernest, Cheapass Games): scoop up treasure on a sinking pirate ship,
//! fight over it, and bribe your way into the best lifeboat when the deck runs out.
//!
//! - [`game`]: the [`crate::engine::Game`] implementation and its view;
//! - [`entry`]: its registry entry (setup, bots, words);
//! - [`bot`]: a heuristic bot (and the random one from [`crate::bots`]);
//! - [`panel`]: its part of the terminal table;
//! - [`replay`]: the script format of `tolerance replay`.
//!
//! Rules: `protocol/rules/abandon-ship.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use bot::SailorBot;
pub use game::{AbandonShip, AbandonView, Action, Entry, Phase, Setup};

#[cfg(test)]
mod tests;
