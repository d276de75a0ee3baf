//! One relay pool per command (issue 28): `tolerance host` and `tolerance join` each connect to
//! a relay once and read its NIP-11 document once for the whole command (lobby, seating, the
//! players' names, the table), instead of once per phase. Each command reaches the same relay
//! through its own counting proxy, so the proxy's figures are that command's alone.

mod common;

use common::{home, naddr_of, player, spawn};
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
    let (_relay, host_proxy, join_proxy) = rt.block_on(async {
        let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
            .await
            .expect("the embedded relay starts");
        let url = RelayUrl::parse(&relay.url().to_string()).expect("a relay url");
        let host_proxy = RelayProxy::start(&url, Rules::default())
            .await
            .expect("the host's proxy starts");
        let join_proxy = RelayProxy::start(&url, Rules::default())
            .await
            .expect("the joiner's proxy starts");
        (relay, host_proxy, join_proxy)
    });
    let (ha, hb) = (home("onepool", "a"), home("onepool", "b"));
    player(&ha);
    player(&hb);
    let host_url = host_proxy.url().to_string();
    let join_url = join_proxy.url().to_string();
    let host = spawn(
        &ha,
        &[
            "host",
            "--game",
            "high-card",
            "--relay",
            &host_url,
            "--seats",
            "2",
            "--hands",
            "1",
            "--auto",
            "--public",
        ],
    );
    let naddr = naddr_of(&host.wait_line("tolerance join naddr1", Duration::from_secs(30)));
    // By its bare id, so that the naddr's relay hint (the host's proxy) is not added to the
    // joiner's relays: the joiner reaches the relay through its own proxy only.
    let table = Nip19Coordinate::from_bech32(&naddr)
        .expect("the host prints an naddr")
        .identifier
        .clone();
    let joiner = spawn(&hb, &["join", &table, "--relay", &join_url, "--auto"]);
    let (ok, out, err) = joiner.finish_blocking(Duration::from_secs(120));
    assert_played("joiner", ok, &out, &err);
    let (ok, out, err) = host.finish_blocking(Duration::from_secs(60));
    assert_played("host", ok, &out, &err);
    for (who, proxy) in [("host", &host_proxy), ("join", &join_proxy)] {
        let stats = proxy.stats();
        // One relay, one pool: one WebSocket connection and one information document for the
        // lobby, the seating, the names and the whole table.
        assert_eq!(
            (stats.connections, stats.info_reads),
            (1, 1),
            "`tolerance {who}` opened more than one pool's worth of connections: {stats:?}"
        );
    }
    drop(rt);
}
