//! Lamarckian Poker (James Ernest, Cheapass Games): evolve a hand of four random cards by
//! capturing pool cards with face-down marks, and survive to the showdown.
//!
//! - [`game`]: the [`crate::engine::Game`] implementation and its view;
//! - [`hand`]: the poker ranking on hands of any size;
//! - [`bot`]: a capturing bot (and the random one from [`crate::bots`]);
//! - [`panel`]: its part of the terminal table.
//!
//! Rules: `protocol/rules/lamarckian-poker.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod hand;
pub mod ui;

pub use bot::CaptureBot;
pub use game::{Action, Entry, LamarckianPoker, LamarckianView, Phase, Setup};

#[cfg(test)]
mod tests;
