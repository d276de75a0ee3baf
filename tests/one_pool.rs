//! One relay pool per command (issue 28): `tolerance host` and `tolerance join` each connect to
//! each relay once and read its NIP-11 document once for the whole command (lobby, seating, the
//! players' names, the table), instead of once per phase. The table lives on two relays, each
//! a counting proxy in front of one embedded relay; two commands make two connections and two
//! information reads on each.

use crate::common::{home, naddr_of, player, spawn};
use nostr_sdk::prelude::*;
use std::time::Duration;
use tolerance::net::harness::{RelayProxy, Rules};
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig};

/// The end line of a seat that played its table out.
fn assert_played(who: &str, ok: bool, out: &str, err: &str) {
    assert!(ok, "{who}: {out}\n{err}");
    let end = out
        .lines()
        .find(|l| l.starts_with("table over:"))
        .unwrap_or_else(|| panic!("{who} printed no end line: {out}\n{err}"));
    assert!(end.ends_with(", 0 rejected)"), "{who}: {end}");
}

#[test]
fn host_and_join_each_open_one_pool_for_the_whole_command() {
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let (_relay, proxy_a, proxy_b) = rt.block_on(async {
        let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
            .await
            .expect("the embedded relay starts");
        let url = RelayUrl::parse(&relay.url().to_string()).expect("a relay url");
        let proxy_a = RelayProxy::start(&url, Rules::default())
            .await
            .expect("the first proxy starts");
        let proxy_b = RelayProxy::start(&url, Rules::default())
            .await
            .expect("the second proxy starts");
        (relay, proxy_a, proxy_b)
    });
    let (ha, hb) = (home("onepool", "a"), home("onepool", "b"));
    player(&ha);
    player(&hb);
    let (first, second) = (proxy_a.url().to_string(), proxy_b.url().to_string());
    let host = spawn(
        &ha,
        &[
            "host",
            "--game",
            "high-card",
            "--relay",
            &first,
            "--relay",
            &second,
            "--seats",
            "2",
            "--hands",
            "1",
            "--auto",
            "--public",
        ],
    );
    // The naddr carries both relays: the joiner's one pool is on both.
    let naddr = naddr_of(&host.wait_line("tolerance join naddr1", Duration::from_secs(30)));
    let joiner = spawn(&hb, &["join", &naddr, "--auto"]);
    let (ok, out, err) = joiner.finish_blocking(Duration::from_secs(120));
    assert_played("joiner", ok, &out, &err);
    let (ok, out, err) = host.finish_blocking(Duration::from_secs(60));
    assert_played("host", ok, &out, &err);
    for proxy in [&proxy_a, &proxy_b] {
        let stats = proxy.stats();
        // Two commands, one pool each: two WebSocket connections and two information documents
        // on each relay for the lobby, the seating, the names and the whole table (a pool per
        // phase made eight of each).
        assert_eq!(
            (stats.connections, stats.info_reads),
            (2, 2),
            "more than one pool's worth of connections per command on {}: {stats:?}",
            proxy.url()
        );
    }
    drop(rt);
}
