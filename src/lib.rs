//! **tolerance** — table games between strangers over Nostr relays, with no server, dealer or
//! referee to trust.
//!
//! Every move is a signed Nostr event chained to the previous one; every client runs the same
//! deterministic engine over that log; cards come from a mental-poker deck and dice from
//! commit-reveal, so nobody — no player, no relay — can see or steer what it should not.
//!
//! # Layout
//!
//! One data path, one module per stage; nothing skips a stage and nothing flows backwards:
//!
//! ```text
//! relay events ──> wire (parse, size limits, schema version)
//!              ──> table (signature, table id, chain position, fork check, deadline)
//!              ──> fair (verify proofs; open cards/dice that this seat may see)
//!              ──> engine.apply(action)  ── pure, deterministic, identical on every client
//!              ──> view(seat) ──> ui / bot ──> chosen action ──> wire ──> relays
//! ```
//!
//! - [`engine`]: the [`engine::Game`] contract (who acts, chance requests, legal moves, views,
//!   outcomes) and the generic simulation harness every game passes. Pure: no I/O, no clock, no
//!   OS randomness.
//! - [`games`]: one folder per game; [`games::tolerance`] is the flagship.
//! - [`cards`]: deck compositions as data and the card ids every layer shares.
//! - [`bots`]: strategies that see only a seat's view.
//! - [`fair`]: mental-poker deck (Bayer–Groth shuffle proofs, Chaum–Pedersen reveal tokens, key
//!   ownership proofs, via `ziffle`) and commit-reveal dice; knows no game rules and no network.
//! - [`wire`]: Nostr kinds, tags, versioned JSON payloads and size limits; no I/O.
//! - [`net`]: relay pool over nostr-sdk and the embedded relay; never interprets a game payload.
//! - [`table`]: the session driver — log → signature, seat, chain position, fork check → proofs
//!   → `engine.apply` — with deadlines, timeout votes and forfeits; the relay runner; demo,
//!   play and verify. A client's own events take the same path after they come back from the
//!   relay.
//! - [`history`]: hands saved on this machine, listed, replayed and exported.
//! - [`identity`]: the player's key on this machine (NIP-49 encrypted, or plain by choice);
//!   [`config`]: optional settings in the same directory.
//! - [`feedback`]: messages to the game's author (NIP-17 private, or a public note);
//!   [`variants`]: variants proposed, listed and fetched as Nostr objects (`naddr`).
//! - [`ui`]: the line interfaces and the terminal tables (ratatui) of Tolerance, Perudo and Mia
//!   and the lobby, each drawn as a pure function of its state. [`cli`]: command-line commands
//!   (`main.rs` only parses).
//!
//! The written protocol and rules live in `protocol/` at the repository root.

pub mod app;
pub mod bots;
pub mod cards;
pub mod config;
pub mod engine;
pub mod fair;
pub mod feedback;
pub mod games;
pub mod history;
pub mod identity;
pub mod net;
pub mod table;
pub mod ui;
pub mod variants;
pub mod wire;
