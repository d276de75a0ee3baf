//! The kit the solitaires raced by npub share (Scoundrel, The Bogey, Shooting Party): one
//! duplicate race, generic over the solitaire it races.
//!
//! A duplicate race deals the same position of a deck to several entrants, each only when that
//! entrant draws it ([`ChanceRequest::DealSealed`](crate::engine::ChanceRequest), PROTOCOL.md
//! §5.12), and once nobody races any more one entrant that holds each card drawn shows it
//! (`Show`) so that every client can check every entrant's game against its cards.
//!
//! # Shape
//!
//! Everything about racing is the same whatever the solitaire: who acts (every racing entrant,
//! sealed, decisions applied together), the sealed deals of what each drew and the shuffles of
//! its reshuffles, the shows batch after batch at the end, the verdicts (each entrant replayed
//! against the shown cards: verified, refused or left), the leaderboard and the outcome, the
//! give-up on a timeout, the race stopped by a forfeit. That is [`Race`], which implements
//! [`crate::engine::Game`] once. What differs is a game's own: where its cards lie
//! ([`Solitaire::Places`]), its moves and how they change the places, what the cards must allow
//! of them, what it scores, what a viewer sees. That is the [`Solitaire`] trait, implemented by
//! a marker type per game (`pub type Scoundrel = Race<Dungeon>`), so that a game's folder holds
//! its rules and nothing of the race, and a race rule changes in one place for all three.
//!
//! A trait over one generic race, rather than helpers each game calls from its own `Game`, keeps
//! the order of every step (and so the chance requests every client must agree on) in one
//! function each; the trait's methods are pure functions of a game's places, never of the race,
//! so that the rules cannot reach into the race's bookkeeping.
//!
//! An entrant's game is checked by its places (public: every client follows them from the
//! moves' form) and its *tally* (what the faces make of it beyond that, such as Scoundrel's
//! health), which only a client that sees the cards can carry; [`Race`] carries it for the
//! entrants whose cards it sees, and replays every entrant from the shown cards at the end.
//!
//! Parts: [`cards`](RaceCards) (what a client knows of the cards, sealed deals and shows,
//! reshuffles as decks of indices), [`Standing`] (the leaderboard's order, places, outcome),
//! [`duplicate`] (the bot against [`RandomPlayer`] on the same deals), and [`ui`] (the words,
//! result lines, stories and scripts every race shares).

mod cards;
mod game;
mod measure;
mod solitaire;
mod standings;
pub mod ui;

#[cfg(test)]
pub(crate) mod testing;

pub use cards::{index_spec, reshuffle_deck, RaceCards, Reshuffles, Spot, DECK, SHOWS_PER_HOLDER};
pub use game::{face_at, replay_entrant, Checked, Entrant, EntrantView, Race, RaceView};
pub use measure::{best_judged, duplicate, mean_se, Duplicate, RandomPlayer};
pub use solitaire::{
    validate, Ending, Entrants, Face, Phase, RaceSetup, Solitaire, Status, Verdict,
};
pub use standings::{leaderboard, outcome, place, Standing};
