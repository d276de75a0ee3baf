//! Tolerance: Reformation (Ren Multamäki): a trick-taking game for three to five players over
//! the reigns of Mary I, Elizabeth I and James I. Won cards act on each other — taxes, piety,
//! kills, condemnations, conversions — and lie in living and deceased piles by religion; a
//! surviving Monarch executes one card at the end of its reign; Roles score each reign.
//!
//! - [`data`]: the card set, the Roles and the constants as data (`protocol/decks/`), variants;
//! - [`effects`], [`scoring`]: the trick, its effects, a reign's and the game's scoring;
//! - [`game`]: the [`crate::engine::Game`] implementation and its view;
//! - [`entry`]: its registry entry (setup, variants, bots, words);
//! - [`bot`]: a heuristic bot (and the random one from [`crate::bots`]);
//! - [`panel`]: its part of the terminal table;
//! - [`replay`]: the script format of `tolerance replay`.
//!
//! Rules: `protocol/rules/reformation.md`.

pub mod bot;
pub mod data;
pub mod effects;
pub mod entry;
pub mod game;
pub mod scoring;
pub mod ui;

pub use bot::ReformBot;
pub use game::{Action, Entry, Phase, ReformView, Reformation, Setup};

#[cfg(test)]
mod tests;
