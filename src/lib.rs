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
//! the import graph of the sources that nothing reaches up a layer and that no two files import
//! each other in a circle:
//!
//! ```text
//! relay events ──> net (pool, subscriptions by seated authors, paging)
//!              ──> table::runner (records each event in the journal, feeds the session)
//!              ──> table::session (signature, seat, payload parsed by wire: size limits and
//!                  schema version; step and head, votes, forks, forfeits)
//!              ──> table::chance (verify shuffles, tokens and dice; open what this seat may see)
//!              ──> Game::apply  ── pure, deterministic, identical on every client
//!              ──> view(seat) ──> front end or bot ──> chosen action ──> session outbox
//!              ──> table::runner (sign, journal, publish queue, heartbeats) ──> net ──> relays
//! ```
//!
//! A command (`host`, `join`, `resume`) opens one relay pool and passes it down: the lobby,
//! the seating, the players' names and the runner all use it, so each relay is connected and
//! its NIP-11 document read once per command. The runner is a thin event loop around a
//! synchronous state (`table::runner::state`: the outbox and its publish queue, heartbeats,
//! relay health, events held for their time, when to wake, why a table stalled).
//!
//! Layers, bottom up: [`engine`], [`cards`], [`fair`], [`bots`] and [`wire`] know no game;
//! [`games`] (rules, their words, their bots) and [`table::session`] / [`table::chance`] know
//! no network, runtime or terminal; `net` and the rest of [`table`] are the runtime; [`ui`] and
//! `app` are the terminal front end.
//!
//! # Features: the core, the runtime, the terminal
//!
//! The core is this crate without its default features: the engine, the games' rules, words and
//! bots, the cryptography, the wire format and the session — no tokio, nostr-sdk, LMDB, ratatui
//! or crossterm in its dependency tree, and it builds for `wasm32-unknown-unknown`
//! (`cargo check --lib --no-default-features --target wasm32-unknown-unknown`; `tests/layering.rs`
//! checks its `cargo tree`). `runtime` adds the relays, the table runner, lobby, journal,
//! verify and demo, and what lives on this machine (identity, settings, history); `terminal`
//! (the default, and what `main.rs` needs) adds the commands, the terminal table and every
//! game's panel; `test-support` adds the relay harnesses and the runner's tampering hook for
//! this crate's own tests and benches. Features rather than a workspace of crates: the layers
//! already are modules with checked imports, one crate keeps the two README commands and
//! every path (`tolerance::games::…`) as they are, and one lock file and one build serve the
//! program, the tests and a browser build alike.
//!
//! - [`engine`]: the [`engine::Game`] contract (who acts, chance requests, legal moves, sealed
//!   moves, views, forfeits, outcomes) and the generic simulation harness every game passes.
//!   Pure: no I/O, no clock, no OS randomness.
//! - [`games`]: one folder per game and the [`games::registry`] that names them; a game is its
//!   folder plus one line there. Each folder holds the rules, the game's bots, its registry
//!   entry and a `ui/` part: its words, the moves a person types, its scripts and (with
//!   `terminal`) its panel. [`games::ui`] is what those parts share (English helpers, the panel
//!   contract, the generic panel); [`games::dice`] and [`games::dominoes`] are kits sibling
//!   games share. [`games::tolerance`] is the flagship.
//! - [`cards`]: deck compositions as data (cards, sub-decks, domino sets) and their ids.
//! - [`bots`]: what every game's bots share: the [`bots::Bot`] trait, the random bot, the levels
//!   a person picks, and an arena that measures one bot against another.
//! - [`fair`]: mental-poker deck (our Bayer–Groth shuffle prover and verifier on arkworks,
//!   batched Chaum–Pedersen reveal tokens, key ownership proofs; differentially tested against
//!   `ziffle`) and commit-reveal dice; knows no game rules and no network.
//! - [`wire`]: Nostr kinds, tags, versioned JSON payloads and size limits; no I/O and no game (a
//!   variant on the wire is a game's name and its text, which the game checks).
//! - [`net`]: relay pool over nostr-sdk (pacing, backoff, per-relay queues, re-subscription,
//!   NIP-11 limits read at connect, proof of work when relays ask, paging, per-relay figures)
//!   and the embedded relay. Never interprets a game payload. With `test-support`: a proxy that
//!   makes a real relay behave like a throttling public one, a delay proxy, nostr-rs-relay.
//! - [`table`]: the one runtime. [`table::session`] is pure (events in, outbox out, time and the
//!   seat's secret passed in) and generic over the game; [`table::chance`] answers the game's
//!   chance requests with decks, dice and whispers ([`table::whisper`]: a secret to whoever
//!   holds a card, without learning who; [`table::chance::ShuffleJob`]: a seat's own shuffle
//!   as data, for the page's proof worker); the runner, lobby, journal, verify and demo put it
//!   on relays, and fail with a [`table::TableError`] that says what kind of trouble it is
//!   (relay, table not found or not seated, setup, journal, stall...). A client's own events
//!   take the same path as everyone else's.
//! - [`history`]: tables saved on this machine, listed and shown.
//! - [`identity`]: the player's key on this machine (NIP-49 encrypted, or plain by choice);
//!   [`config`]: optional settings in the same directory.
//! - [`feedback`]: messages to the game's author (NIP-17 private, or a public note);
//!   [`variants`]: variants of any game proposed, listed and fetched as Nostr objects (`naddr`).
//! - [`ui`]: the line interface and the terminal table (`ui::tui`: one frame for every game,
//!   fed by the runner's updates and turns, around the game's panel), drawn from a seat's view;
//!   `ui::tui::lobby` is the lobby screen of `tables` (pure state and drawing; the command
//!   answers its requests).
//! - `app`: the commands, one file each; `main.rs` only calls `app::run`.
//!
//! The written protocol and rules live in `protocol/` at the repository root.

#[cfg(feature = "terminal")]
pub mod app;
#[cfg(feature = "runtime")]
pub mod authority;
pub mod bots;
pub mod cards;
#[cfg(feature = "runtime")]
pub mod config;
pub mod engine;
pub mod fair;
#[cfg(feature = "runtime")]
pub mod feedback;
pub mod games;
#[cfg(feature = "runtime")]
pub mod history;
#[cfg(feature = "runtime")]
pub mod identity;
#[cfg(feature = "runtime")]
pub mod net;
pub mod table;
pub mod ui;
#[cfg(feature = "runtime")]
pub mod variants;
pub mod wire;
