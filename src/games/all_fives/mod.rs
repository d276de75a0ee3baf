//! All Fives: dominoes with a spinner, scoring multiples of five on the open ends, for 2–4
//! players, partners at four — one folder on the table runtime.
//!
//! - [`game`]: the [`crate::engine::Game`] implementation, its layout and view;
//! - [`entry`]: the registry entry (setup, bots, words);
//! - [`bot`]: the greedy bot.
//!
//! Rules: `protocol/rules/all-fives.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use bot::GreedyBot;
pub use game::{Action, AllFives, AllFivesView, End, Entry, HandEnd, Layout, Phase, Setup};

#[cfg(test)]
mod tests;
