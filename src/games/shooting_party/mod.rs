//! Shooting Party as a duplicate race: every entrant plays the same 33-card deck (A, 2–5, J, Q,
//! K of four suits and the joker), shuffled by all of them before anyone sees a card; each card
//! is dealt sealed to an entrant only when it draws it, its draw pile is rebuilt from its
//! discards (twice at most) and shuffled after the joker's search by everyone, and every card
//! drawn is shown at the end so that anyone can check every game.
//!
//! - [`game`]: the rules ([`crate::engine::Game`]), the etiquette's precedence, the race and
//!   its verdicts;
//! - [`bot`]: a bot that plays for contact, and the random baseline;
//! - [`replay`]: scripts with a fixed deck (golden tests, `tolerance replay`).
//!
//! Rules: `protocol/rules/shooting-party.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use bot::AgentBot;
pub use game::{
    Action, Board, End, Party, PartyView, Setup, ShootingParty, Status, Verdict, Verified,
};

#[cfg(test)]
mod tests;
