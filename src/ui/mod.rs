//! User interfaces: they read a seat's view and return a chosen move, never the full state.

pub mod dice;
pub mod line;
pub mod tui;
