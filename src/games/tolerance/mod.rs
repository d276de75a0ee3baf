//! The Game of Tolerance v1.4: cards, a die and Hold'em-style betting.
//!
//! - [`game`]: a whole table, hand after hand: the [`crate::engine::Game`] a networked table runs;
//! - [`hand`]: one hand (also a `Game`: bots, scripts and single-hand simulations);
//! - [`table`]: stacks, Dealer rotation, blind levels and styles across hands;
//! - [`variant`]: the rules configuration as a validated file;
//! - [`view`]: what a seat or spectator sees;
//! - [`replay`]: hand scripts with fixed cards and dice (golden tests, `tolerance replay`).
//!
//! The precise rules, and every decision the seed leaves open, are in
//! `protocol/rules/tolerance.md`.

pub mod arena;
pub mod bot;
pub mod entry;
pub mod game;
pub mod hand;
pub mod montecarlo;
pub mod table;
pub mod ui;
pub mod variant;
pub mod view;

pub use game::{HandSummary, Tolerance, ToleranceView};
pub use hand::{Action, Hand, HandResult, HandRules, HandSetup, Phase};
pub use table::{ForfeitSeat, Table, TableError};
pub use variant::{Betting, Style, Variant, VariantError};
pub use view::HandView;

#[cfg(test)]
mod tests;
