//! The table-over line a person reads counts the hands that were dealt (issue 30, item 10): a
//! seat lost before the first deal spends a hand number (the rules count it, so that deck ids
//! and blinds stay as every client judges them) but deals no hand. Separate processes, each its
//! own key, on a relay the test serves.

use crate::common::relays::ServedRelay;
use crate::common::{home, naddr_of, player, run, spawn};
use std::time::Duration;

/// The guest is killed the moment it has its seat, before it signs any step: the host votes it
/// out at the table's first shuffle and, with one player left and no wait for a return, the
/// table ends. No hand was dealt, and the end line says so rather than "1 hand played".
#[test]
fn a_table_ended_before_the_first_deal_says_no_hand_was_played() {
    let relay = ServedRelay::start();
    let (ha, hb) = (home("over-undealt", "a"), home("over-undealt", "b"));
    player(&ha);
    let b = player(&hb);
    let host = spawn(
        &ha,
        &[
            "host",
            "--game",
            "tolerance",
            "--relay",
            &relay.url,
            "--seats",
            "2",
            "--invite",
            &b,
            "--auto",
            "--move-secs",
            "3",
            "--crypto-secs",
            "3",
            "--bank-secs",
            "0",
            "--relay-secs",
            "1",
            "--return-secs",
            "0",
        ],
    );
    let naddr = naddr_of(&host.wait_line("tolerance join naddr1", Duration::from_secs(20)));
    let mut guest = spawn(&hb, &["join", &naddr, "--auto"]);
    // The seat list is printed once the seat is held and before the table is played.
    guest.wait_line(": you", Duration::from_secs(30));
    let _ = guest.child.kill();
    let _ = guest.child.wait();
    let (ok, out, err) = host.finish_blocking(Duration::from_secs(120));
    assert!(ok, "{out}\n{err}");
    let over = out
        .lines()
        .find(|l| l.starts_with("table over: "))
        .unwrap_or_else(|| panic!("no end line:\n{out}\n{err}"));
    assert!(over.contains("0 hands played"), "{over}");
    assert!(!over.contains("1 hand"), "{over}");
    // `verify` reads the same table from the relay alike; its report keeps the rules' count,
    // which spent hand number 1 on the forfeit (the case the words must not count).
    let v = run(
        &ha,
        &["verify", "--table", &naddr, "--relay", &relay.url, "--json"],
    );
    let text = String::from_utf8_lossy(&v.stdout);
    let json: serde_json::Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("verify printed no report ({e}): {text}"));
    assert_eq!(json["report"]["hands"], 1, "{text}");
    let result = json["result"].as_str().unwrap_or_default();
    assert!(result.contains("0 hands played"), "{text}");
    let _ = std::fs::remove_dir_all(&ha);
    let _ = std::fs::remove_dir_all(&hb);
}
