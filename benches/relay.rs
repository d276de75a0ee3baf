//! Publish → receive round trip through a relay on loopback.
//!
//! Two pools with different keys are both subscribed to the table (one kind, any author), as
//! players are. One pool publishes a signed event and waits for the relay's `OK`; the other
//! receives it, and the publisher receives its own echo on the same connection. One iteration is
//! the time until all three happened. The echo matters: the relay then writes `OK` and `EVENT`
//! back to back on one socket, which is where Nagle's algorithm meets the client's delayed ACK.
//! Cases:
//! - `embedded_nodelay`: our `EmbeddedRelay` (TCP_NODELAY on accepted sockets);
//! - `local_relay_default`: nostr-relay-builder's own `LocalRelay::run()` listener, for
//!   comparison (Nagle left on);
//! - `nostr_rs_relay`: the independent relay, when its binary is installed.
//!
//! Run: `cargo bench --bench relay`. Figures are in BENCHMARKS.md, section "Relays".

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use nostr_relay_builder::builder::RateLimit;
use nostr_relay_builder::{LocalRelay, RelayBuilder};
use nostr_sdk::prelude::{EventBuilder, Filter, Keys, Kind};
use tokio::runtime::Runtime;
use tolerance::net::testing::NostrRsRelay;
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig, RelayPool, Subscription};

const KIND: u16 = 4_243;

struct Pair {
    publisher: RelayPool,
    echo: Subscription,
    subscription: Subscription,
    _subscriber: RelayPool,
}

async fn pair(url: &str) -> Pair {
    let publisher = RelayPool::connect(Keys::generate(), [url], PoolConfig::default())
        .await
        .expect("publisher connects");
    let subscriber = RelayPool::connect(Keys::generate(), [url], PoolConfig::default())
        .await
        .expect("subscriber connects");
    let table = Filter::new().kind(Kind::Custom(KIND));
    let echo = publisher
        .subscribe(vec![table.clone()])
        .await
        .expect("subscribes");
    let subscription = subscriber.subscribe(vec![table]).await.expect("subscribes");
    // Let the REQ reach the relay before the first publish.
    tokio::time::sleep(Duration::from_millis(200)).await;
    Pair {
        publisher,
        echo,
        subscription,
        _subscriber: subscriber,
    }
}

/// Total time of `iters` round trips (signing excluded).
async fn round_trips(pair: &mut Pair, iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        // A stored (regular) kind with a process-wide counter in the content: every event is new
        // to the relay, which would otherwise answer "duplicate" and not forward it.
        let event = pair
            .publisher
            .sign(EventBuilder::new(
                Kind::Custom(KIND),
                format!("round trip {}", next_serial()),
            ))
            .expect("signs");
        let start = Instant::now();
        let (published, received, echoed) = tokio::join!(
            pair.publisher.publish(&event),
            pair.subscription.recv(),
            pair.echo.recv()
        );
        total += start.elapsed();
        published.expect("relay accepts");
        assert_eq!(received.expect("event arrives").id, event.id);
        assert_eq!(echoed.expect("echo arrives").id, event.id);
    }
    total
}

fn next_serial() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn bench(c: &mut Criterion) {
    let rt = Runtime::new().expect("tokio runtime");
    let mut group = c.benchmark_group("relay_round_trip");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_millis(500));

    let relay = rt
        .block_on(EmbeddedRelay::start(EmbeddedRelayConfig::default()))
        .expect("embedded relay starts");
    let mut embedded = rt.block_on(pair(relay.url().as_str()));
    group.bench_function("embedded_nodelay", |b| {
        b.iter_custom(|iters| rt.block_on(round_trips(&mut embedded, iters)))
    });
    drop(embedded);
    rt.block_on(relay.shutdown());

    // nostr-relay-builder's own listener, only the rate limit raised: shows what Nagle costs.
    let default_relay = rt.block_on(async {
        let relay = LocalRelay::new(RelayBuilder::default().rate_limit(RateLimit {
            max_reqs: 500,
            notes_per_minute: 1_000_000,
        }));
        relay.run().await.expect("LocalRelay runs");
        relay
    });
    let url = rt.block_on(default_relay.url());
    let mut plain = rt.block_on(pair(url.as_str()));
    group.sample_size(10);
    group.bench_function("local_relay_default", |b| {
        b.iter_custom(|iters| rt.block_on(round_trips(&mut plain, iters)))
    });
    drop(plain);
    default_relay.shutdown();
    group.sample_size(20);

    match rt.block_on(NostrRsRelay::spawn()) {
        Ok(external) => {
            let mut pair_ext = rt.block_on(pair(external.url().as_str()));
            group.bench_function("nostr_rs_relay", |b| {
                b.iter_custom(|iters| rt.block_on(round_trips(&mut pair_ext, iters)))
            });
            drop(pair_ext);
            drop(external);
        }
        Err(e) => eprintln!("skipping nostr_rs_relay: {e}"),
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
