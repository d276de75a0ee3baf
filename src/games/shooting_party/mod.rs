//! Shooting Party as a duplicate race: every entrant plays the same 33-card deck (A, 2–5, J, Q,
//! K of four suits and the joker), shuffled by all of them before anyone sees a card; each card
//! is dealt sealed to an entrant only when it draws it, its draw pile is rebuilt from its
//! discards (twice at most) and shuffled after the joker's search by everyone, and every card
//! drawn is shown at the end so that anyone can check every game.
//!
//! The race itself (sealed moves, deals, reshuffles, shows, verdicts, leaderboard) is the race
//! kit's generic [`Race`](crate::games::race::Race); this folder holds what is Shooting
//! Party's, and [`ShootingParty`] is `Race<Party>`:
//!
//! - [`game`]: the rules as the kit's [`Solitaire`](crate::games::race::Solitaire)
//!   ([`Party`]): the pile, room, aces and score pile by spot, the etiquette's moves in their
//!   precedence, the score;
//! - [`bot`]: a bot that plays for contact, and its measurement against the kit's random
//!   player;
//! - [`entry`]: its setup, bots and report in the registry;
//! - [`ui`]: its words, the moves a person types, its panel's layout, and what a script (the
//!   kit's format, with a fixed deck: golden tests, `tolerance replay`) prints of an entrant.
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
