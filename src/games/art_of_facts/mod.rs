//! ArtOfFacts! — the seed's betting card game with symbol cards: antes that grow with every
//! rotation of the deal, three private cards and one face-down card each, values worked out in
//! the open one player at a time, the dealer's tie rule. The deck is data: a deck file carried in
//! the table's setup (the default one is our assumption, `protocol/decks/art-of-facts.toml`).
//!
//! - [`deck`]: deck files, cards and their names;
//! - [`value`]: a hand's value and every declaration a hand allows;
//! - [`game`]: the [`crate::engine::Game`] implementation and its view;
//! - [`bot`]: a card-counting bot;
//! - [`replay`]: scripts with fixed decks (golden tests, `tolerance replay`).
//!
//! Rules: `protocol/rules/art-of-facts.md`.

pub mod bot;
pub mod deck;
pub mod entry;
pub mod game;
pub mod ui;
pub mod value;

pub use deck::DeckFile;
pub use game::{Action, ArtOfFacts, ArtView, Phase, Setup};

#[cfg(test)]
mod tests;
