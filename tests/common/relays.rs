//! The embedded relay on loopback, pools on it, and notes of a stored kind: what the net tests
//! (`net_relay`, `relay_harness`) share.

use std::time::Duration;

use nostr_sdk::prelude::{Event, EventBuilder, Filter, Keys, Kind, PublicKey, RelayUrl};
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig, RelayPool, Subscription};

/// A stored (regular) kind, so that relays keep the events.
pub const KIND: Kind = Kind::Custom(4_242);
/// Bound on any single expected delivery.
pub const WAIT: Duration = Duration::from_secs(10);

pub async fn embedded() -> EmbeddedRelay {
    embedded_with(EmbeddedRelayConfig::default()).await
}

pub async fn embedded_with(config: EmbeddedRelayConfig) -> EmbeddedRelay {
    EmbeddedRelay::start(config)
        .await
        .expect("embedded relay starts")
}

/// A pool of a fresh key on `urls`.
pub async fn pool_with(urls: &[&RelayUrl], config: PoolConfig) -> RelayPool {
    RelayPool::connect(Keys::generate(), urls.iter().map(|u| u.as_str()), config)
        .await
        .expect("pool connects")
}

pub fn note(pool: &RelayPool, text: &str) -> Event {
    pool.sign(EventBuilder::new(KIND, text)).expect("signs")
}

pub fn from(author: PublicKey) -> Vec<Filter> {
    vec![Filter::new().kind(KIND).author(author)]
}

/// The next event of `sub`, within [`WAIT`].
pub async fn next(sub: &mut Subscription) -> Event {
    tokio::time::timeout(WAIT, sub.recv())
        .await
        .expect("an event arrives in time")
        .expect("subscription still open")
}

/// The embedded relay on a runtime of its own, for tests that have none: other processes reach
/// it over TCP, and the test may run its own clients on `rt`.
pub struct ServedRelay {
    pub rt: tokio::runtime::Runtime,
    _relay: EmbeddedRelay,
    pub url: String,
}

impl ServedRelay {
    pub fn start() -> ServedRelay {
        let rt = tokio::runtime::Runtime::new().expect("a runtime");
        let relay = rt.block_on(embedded());
        let url = relay.url().to_string();
        ServedRelay {
            rt,
            _relay: relay,
            url,
        }
    }
}
