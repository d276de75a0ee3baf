//! The session driver: from signed relay events to verified game state and back.
//!
//! - [`session`]: one client's verified view of a table (pure apart from drawing its own
//!   secrets from the OS RNG): wire checks, seat, chain position, fork check, crypto, engine.
//! - [`runner`]: runs a session over real relays with its own key and connections.
//! - [`demo`]: a whole table of bots, each its own client, for `tolerance demo` and the tests.
//! - Dice tables (Perudo, Mia) have the same split: [`dice_session`] is the pure state machine
//!   (events in, own events and violations out), [`dice_net`] runs it over relays, and
//!   [`dice_chance`] answers the engine's dice requests from commit-reveal values.

pub mod chance;
pub mod demo;
pub mod dice_chance;
pub mod dice_demo;
pub mod dice_net;
pub mod dice_seat;
pub mod dice_session;
pub mod journal;
pub mod lobby;
pub mod old_session;
pub mod play;
pub mod runner;
pub mod seat;
pub mod session;
pub mod table_ui;
pub mod verify;

pub use old_session::{Await, HandSummary, Session, Violation};
pub use runner::{run_client, ClientConfig, ClientReport, Decider};
