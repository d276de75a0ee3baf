//! The table runtime, the same for every game: from signed relay events to verified game state
//! and back. It changes a game's state only through the [`crate::engine::Game`] contract and
//! knows no particular game.
//!
//! - [`session`]: one client's verified view of a table — pure (events in, outbox out; time and
//!   the seat's master secret passed in): chain, steps, sealed moves, deadlines and votes,
//!   forfeits, forks and barriers, end confirmations.
//! - [`chance`]: the chance providers behind one interface — the mental-poker deck (key shares,
//!   shuffles, decryption tokens, cards shown to a set of seats) and commit-reveal dice.
//! - [`runner`]: one client's I/O loop over real relays: journal, deciders (bot, person,
//!   spectator), votes on time, publishing with retries.
//! - [`drive`]: what a seat's loop keeps between rounds, whatever carries its events (pure:
//!   every method is told the time): the outbox, heartbeats, relay health, held events, when
//!   to vote, wake and stall words. The terminal's runner and the browser page both drive it.
//! - [`clock`]: the seats' common clock, estimated from their heartbeats (pure).
//! - [`journal`]: the local record that makes a crash resumable.
//! - [`host`]: the host's lobby (pure: events and time in, announcements and news out).
//! - [`lobby`]: hosting a table and sitting down with strangers, over a relay pool.
//! - [`verify`]: checking a table from its public events; following one as a spectator.
//! - [`demo`]: a whole table of bots, each its own client, for `demo`, `play` and the tests.

pub mod chance;
pub mod check;
pub mod clock;
#[cfg(feature = "runtime")]
pub mod demo;
pub mod drive;
#[cfg(feature = "runtime")]
pub mod error;
pub mod host;
#[cfg(feature = "runtime")]
pub mod journal;
#[cfg(feature = "runtime")]
pub mod lobby;
#[cfg(feature = "runtime")]
pub mod runner;
pub mod session;
#[cfg(feature = "runtime")]
pub mod verify;
pub mod whisper;

#[cfg(feature = "runtime")]
pub use error::TableError;
#[cfg(feature = "runtime")]
pub use runner::{run_client, run_client_on, ClientReport, Decider, RunConfig};
pub use session::{Session, Verdict, Violation};
