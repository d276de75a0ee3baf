//! Insider — twenty questions with hidden roles. A Master chosen by lot knows the word and
//! answers; an Insider secretly knows it too and steers; the Commons guess. Once the word is
//! guessed, the table votes on who the Insider is.
//!
//! The seed's eyes-closed ritual — the word reaches the Master and the Insider only, and the
//! Master never learns who the Insider is — is a **whisper** (PROTOCOL.md §5.11): the role
//! cards are dealt from a deck the Master holds no share of, and the Master's word (its private
//! draw of word cards) goes to whichever seat holds the Insider card without the Master learning
//! which one. At the end every role card is shown and the whisper opened, so a cheating Master is
//! caught.
//!
//! - [`words`]: the word list as data, with the facts the bots ask about;
//! - [`game`]: the [`crate::engine::Game`] implementation and its view;
//! - [`bot`]: a bot for every role;
//! - [`replay`]: scripts with the lot, roles, word cards and times fixed.
//!
//! Rules: `protocol/rules/insider.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;
pub mod words;

pub use game::{Action, Answer, Insider, InsiderView, Phase, Role, Setup};

#[cfg(test)]
mod tests;
