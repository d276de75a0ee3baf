//! **tolerance** — table games between strangers over Nostr relays, with no server, dealer or
//! referee to trust.
//!
//! Every move is a signed Nostr event chained to the previous one; every client runs the same
//! deterministic engine over that log; cards come from a mental-poker deck and dice from
//! commit-reveal, so nobody — no player, no relay — can see or steer what it should not.
//!
//! # Layout
//!
//! One data path, one module per stage, the same for every game; `tests/layering.rs` checks on
//! the sources that nothing reaches up a layer:
//!
//! ```text
//! relay events ──> net (pool, subscriptions by seated authors, paging)
//!              ──> wire (parse, size limits, schema version)
//!              ──> table::session (signature, seat, step and head, votes, forks, forfeits)
//!              ──> table::chance (verify shuffles, tokens and dice; open what this seat may see)
//!              ──> Game::apply  ── pure, deterministic, identical on every client
//!              ──> view(seat) ──> ui / bot ──> chosen action ──> session outbox ──> relays
//! ```
//!
//! - [`engine`]: the [`engine::Game`] contract (who acts, chance requests, legal moves, sealed
//!   moves, views, forfeits, outcomes) and the generic simulation harness every game passes.
//!   Pure: no I/O, no clock, no OS randomness.
//! - [`games`]: one folder per game and the [`games::registry`] that names them; a game is its
//!   folder plus one line there. [`games::tolerance`] is the flagship.
//! - [`cards`]: deck compositions as data (cards, sub-decks, domino sets) and their ids.
//! - [`bots`]: strategies that see only a seat's view.
//! - [`fair`]: mental-poker deck (our Bayer–Groth shuffle prover and verifier on arkworks,
//!   batched Chaum–Pedersen reveal tokens, key ownership proofs; differentially tested against
//!   `ziffle`) and commit-reveal dice; knows no game rules and no network.
//! - [`wire`]: Nostr kinds, tags, versioned JSON payloads and size limits; no I/O.
//! - [`net`]: relay pool over nostr-sdk (pacing, backoff, per-relay queues, re-subscription,
//!   NIP-11 limits read at connect, proof of work when relays ask,
//!   paging, per-relay figures) and the embedded relay; [`net::harness`] is a proxy that makes a
//!   real relay behave like a throttling public one, for tests and benches. Never interprets a
//!   game payload.
//! - [`table`]: the one runtime. [`table::session`] is pure (events in, outbox out, time and the
//!   seat's secret passed in) and generic over the game; [`table::chance`] answers the game's
//!   chance requests with decks, dice and whispers ([`table::whisper`]: a secret to whoever
//!   holds a card, without learning who); the runner, lobby, journal, verify and demo put it
//!   on relays, and fail with a [`table::TableError`] that says what kind of trouble it is
//!   (relay, table not found or not seated, setup, journal, stall...). A client's own events
//!   take the same path as everyone else's.
//! - [`history`]: tables saved on this machine, listed and shown.
//! - [`identity`]: the player's key on this machine (NIP-49 encrypted, or plain by choice);
//!   [`config`]: optional settings in the same directory.
//! - [`feedback`]: messages to the game's author (NIP-17 private, or a public note);
//!   [`variants`]: variants proposed, listed and fetched as Nostr objects (`naddr`).
//! - [`ui`]: the line interface and the terminal table ([`ui::tui`]: one frame for every game,
//!   fed by the runner's updates and turns), drawn from a seat's view; [`ui::tui::lobby`] is
//!   the lobby screen of `tables` (pure state and drawing; the command answers its requests). A game's own part of the
//!   terminal table, its panel, lives in its folder behind `TableGame::panel`
//!   ([`games::panel`]: the trait, the shared dice panel, and the generic panel any game gets).
//! - [`app`]: the commands, one file each; `main.rs` only calls [`app::run`].
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
