//! Chickenfoot: branching dominoes for 2–12 players, every round from a centerpiece double,
//! the fewest pips left in hand wins — one folder on the table runtime.
//!
//! - [`game`]: the [`crate::engine::Game`] implementation, its layout and view;
//! - [`entry`]: the registry entry (setup, bots, words);
//! - [`bot`]: the greedy bot;
//! - [`panel`]: the terminal table's panel;
//! - [`replay`]: golden scripts.
//!
//! Rules: `protocol/rules/chickenfoot.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use bot::GreedyBot;
pub use game::{Action, Chickenfoot, ChickenfootView, Entry, Layout, Phase, RoundEnd, Setup, Spot};

#[cfg(test)]
mod tests;
