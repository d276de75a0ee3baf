//! High Card with one draw — the toy game that shows what a game costs on the table runtime:
//! this folder (rules, view, bots, scripts, tests) and one line in the registry.
//!
//! - [`game`]: the [`crate::engine::Game`] implementation and its view;
//! - [`bot`]: a threshold bot and a random one;
//! - [`replay`]: scripts with a fixed deck (golden tests, `tolerance replay`).
//!
//! Rules: `protocol/rules/high-card.md`; how the game was added: `protocol/ADDING_A_GAME.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use bot::ThresholdBot;
pub use game::{Action, Entry, HighCard, HighCardView, Phase, Setup};

#[cfg(test)]
mod tests;
