//! Scoundrel as a duplicate race: every entrant plays the same dungeon, shuffled by all of them
//! before anyone sees a card, each card dealt sealed to an entrant only when it enters that
//! entrant's room, and every card drawn shown at the end so that anyone can check every game.
//!
//! The race itself (sealed turns, deals, shows, verdicts, leaderboard) is the race kit's
//! generic [`Race`](crate::games::race::Race); this folder holds what is Scoundrel's, and
//! [`Scoundrel`] is `Race<Dungeon>`:
//!
//! - [`game`]: the rules as the kit's [`Solitaire`](crate::games::race::Solitaire)
//!   ([`Dungeon`]): the dungeon and a room's form, a turn's health, weapon and potions (the
//!   entrant's tally), the score;
//! - [`bot`]: a bot weighing each turn by what it keeps, and its measurement;
//! - [`entry`]: its setup, bots and report in the registry;
//! - [`ui`]: its words, the turns a person types, and what a script (the kit's format, with a
//!   fixed dungeon: golden tests, `tolerance replay`) prints of an entrant.
//!
//! Rules: `protocol/rules/scoundrel.md`.

pub mod bot;
pub mod entry;
pub mod game;
pub mod ui;

pub use bot::DungeonBot;
pub use game::{
    Action, Board, Dungeon, End, Scoundrel, ScoundrelView, Setup, Status, Take, Verdict, Verified,
};

#[cfg(test)]
mod tests;
