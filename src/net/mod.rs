//! Moving signed Nostr events between this client and relays.
//!
//! `net` never looks inside a game payload: it publishes events that the caller built and signed,
//! and hands back events that match the caller's filters. Everything else — parsing, ordering by
//! the chain, checking who may move — happens in `wire` and `table`.
//!
//! # Parts
//! - [`relay`]: the embedded relay (our own listener and NIP-01 server over nostr-database stores,
//!   with `TCP_NODELAY`, optional LMDB persistence) and `tolerance relay` ([`run_standalone`]).
//! - [`pool`]: [`RelayPool`], one identity's connections to several relays over nostr-sdk:
//!   publish with a per-relay report, deduplicated subscriptions that survive relay restarts,
//!   deduplicated history fetches.
//! - [`dm`]: private messages between keys (NIP-17 gift wraps): relay-list lookup (kinds 10050
//!   and 10002), sending to the recipient's inbox relays with a per-relay report, unwrapping with
//!   an authenticated sender.
//! - [`nip11`]: a relay's information document (NIP-11), read when a pool connects: its page
//!   size, largest message, subscriptions, proof of work and access rules.
//! - [`delay`]: [`delay::DelayProxy`], a TCP proxy adding a fixed delay each way, for benches
//!   that play as if the relay were far away.
//! - [`harness`]: [`harness::RelayProxy`], a proxy in front of a real relay that rate-limits,
//!   caps stored queries, closes subscriptions, rejects, delays, drops and goes down on command:
//!   public relays' behaviour, for tests and benches.
//! - [`testing`]: [`testing::NostrRsRelay`], an independent relay implementation (nostr-rs-relay)
//!   run as a child process for end-to-end tests and benches.
//!
//! The last three are test support, built only with the `test-support` feature (this crate's
//! tests and benches turn it on); the program does not ship them.
//!
//! # Guarantees worth knowing
//! - [`RelayPool::publish`] succeeds only if at least one relay answered `OK true`; otherwise it
//!   fails with [`NetError::NotAccepted`] and every relay's reason (nostr-sdk alone returns `Ok`
//!   with an empty success set when every relay is down).
//! - No event larger than [`MAX_EVENT_BYTES`] of JSON is ever sent ([`NetError::TooLarge`]):
//!   strfry refuses more by default and nostr-rs-relay drops the whole connection past 128 KiB.
//! - A [`Subscription`] yields each event id at most once, across relays and reconnections; after a
//!   relay comes back it re-subscribes and re-reads what it missed (see [`pool`]).
//! - Nothing waits forever on a dead relay: connecting, publishing and fetching are bounded by
//!   [`PoolConfig`] timeouts and fail with errors naming each relay.
//! - `created_at` has one-second granularity and gift wraps carry randomised past timestamps:
//!   nothing here orders events by time for the caller.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use nostr_sdk::prelude::{EventId, RelayUrl};

// Test support: harnesses for this crate's own tests and benches (the `test-support` feature,
// which only its dev-dependency on itself turns on), never in the program people run.
#[cfg(any(test, feature = "test-support"))]
pub mod delay;
pub mod dm;
#[cfg(any(test, feature = "test-support"))]
pub mod harness;
pub mod nip11;
pub mod pool;
pub mod profiles;
pub mod relay;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;

pub use self::nip11::RelayInfo;
pub use self::pool::{PoolConfig, PublishReport, RelayPool, RelayStats, SendRate, Subscription};
pub use self::relay::{run_standalone, EmbeddedRelay, EmbeddedRelayConfig};

/// Largest event (its JSON serialisation, in bytes) this crate publishes or accepts: 64 KiB,
/// the strictest common relay default (strfry).
pub const MAX_EVENT_BYTES: usize = 64 * 1024;

/// Result of this module.
pub type Result<T, E = NetError> = std::result::Result<T, E>;

/// What went wrong while talking to relays or running one.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// A relay URL could not be parsed or is not `ws://`/`wss://`.
    #[error("invalid relay URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// Why it was refused.
        reason: String,
    },
    /// A pool was asked for with an empty list of relays.
    #[error("no relay URL given")]
    NoRelays,
    /// A subscription or fetch was asked for with no filter.
    #[error("no filter given: a subscription needs at least one filter")]
    NoFilters,
    /// No relay of the pool could be reached (or none is connected right now).
    #[error("no relay reachable: {}", list(.relays))]
    Unreachable {
        /// Each relay and why it is not usable.
        relays: Vec<(RelayUrl, String)>,
    },
    /// No relay accepted an event.
    #[error("event {event_id} accepted by no relay: {}", list(.rejected))]
    NotAccepted {
        /// The event that was refused.
        event_id: EventId,
        /// Each relay and its reason (`OK false` message, timeout, not connected).
        rejected: Vec<(RelayUrl, String)>,
    },
    /// An event is larger than relays accept; it was not sent.
    #[error("event is {size} bytes of JSON, over the {limit}-byte limit: not sent")]
    TooLarge {
        /// Size of the event's JSON.
        size: usize,
        /// The limit, [`MAX_EVENT_BYTES`] unless configured otherwise.
        limit: usize,
    },
    /// Signing an event with the pool's keys failed.
    #[error("cannot sign event: {0}")]
    Sign(String),
    /// A history fetch did not complete.
    #[error("fetching from {relays:?} failed: {reason}")]
    Fetch {
        /// Relays asked.
        relays: Vec<RelayUrl>,
        /// What nostr-sdk reported.
        reason: String,
    },
    /// A subscription could not be registered with nostr-sdk.
    #[error("cannot subscribe: {0}")]
    Subscribe(String),
    /// The embedded relay could not bind its address.
    #[error("cannot bind relay to {addr}: {source}")]
    Bind {
        /// Requested address.
        addr: SocketAddr,
        /// The OS error.
        source: std::io::Error,
    },
    /// The embedded relay's event store could not be opened.
    #[error("cannot open event store in {}: {reason}", .path.display())]
    Database {
        /// The directory.
        path: PathBuf,
        /// What LMDB reported.
        reason: String,
    },
    /// An I/O operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// A child relay process (tests, benches) could not be started.
    #[error("cannot run {program}: {reason}")]
    ExternalRelay {
        /// The program.
        program: String,
        /// Why.
        reason: String,
    },
    /// Waiting for something exceeded its bound.
    #[error("{what} did not happen within {after:?}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// The bound.
        after: Duration,
    },
}

impl NetError {
    /// Whether trying the same thing again later may work: no relay took an event only because
    /// of rate limits, pacing, or relays down or silent. An oversized event or a final refusal
    /// (`invalid:`, `blocked:`...) will not change.
    pub fn is_transient(&self) -> bool {
        match self {
            NetError::NotAccepted { rejected, .. } => rejected
                .iter()
                .all(|(_, reason)| pool::is_transient(reason)),
            NetError::Unreachable { .. } => true,
            _ => false,
        }
    }
}

/// `url: reason; url: reason` for error messages.
fn list(items: &[(RelayUrl, String)]) -> String {
    struct L<'a>(&'a [(RelayUrl, String)]);
    impl fmt::Display for L<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            if self.0.is_empty() {
                return f.write_str("(no relay)");
            }
            for (i, (url, reason)) in self.0.iter().enumerate() {
                if i > 0 {
                    f.write_str("; ")?;
                }
                write!(f, "{url}: {reason}")?;
            }
            Ok(())
        }
    }
    L(items).to_string()
}
