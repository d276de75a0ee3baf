//! Cards and tiles shown by their holder's own move, over a real relay (PROTOCOL.md §5.4, "Tokens
//! on a move", version 9): counted on the relay's copy of each table, a version 8 table spends a
//! reveal pass of the holder alone after every tile played, and a version 9 table none — the
//! play carries its token — while both play to an end every client and a later verify agree on.

use crate::common::{clients_agree, public_log};
use tolerance::engine::Seat;
use tolerance::games::abandon_ship::AbandonShip;
use tolerance::games::all_fives::AllFives;
use tolerance::games::registry::SetupOptions;
use tolerance::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use tolerance::table::demo::{run_demo, DemoOptions};
use tolerance::wire::log::{Body, Payload};

fn opts(players: u8, url: &str, version: u8) -> DemoOptions {
    DemoOptions {
        setup: SetupOptions {
            players,
            hands: Some(1),
            ..SetupOptions::default()
        },
        relays: vec![url.to_string()],
        version,
        ..DemoOptions::default()
    }
}

/// What the relay's copy of a table shows: the moves that show a card of their mover's (by
/// name), how many of them carry tokens, and the reveal steps that waited for one seat's
/// tokens alone right after that seat's own move.
struct Counts {
    shows: usize,
    carrying: Vec<usize>,
    solo_after_own_move: usize,
}

fn counts(log: &[(Seat, Payload, nostr_sdk::Event)], showing: &[&str]) -> Counts {
    let shows_a_card = |p: &Payload| {
        matches!(&p.body, Body::Move { action, .. }
            if showing.iter().any(|k| action.get(*k).is_some()))
    };
    let mut by_step: std::collections::BTreeMap<u32, Vec<(Seat, &Payload)>> = Default::default();
    for (s, p, _) in log {
        by_step.entry(p.step).or_default().push((*s, p));
    }
    let solo_after_own_move = by_step
        .iter()
        .filter(|(step, evs)| {
            let [(seat, p)] = evs.as_slice() else {
                return false;
            };
            let tokens_only = matches!(&p.body, Body::Reveal { tokens, sealed, dice, shown }
                if !tokens.is_empty() && sealed.is_empty() && dice.is_empty() && shown.is_empty());
            let before = step.checked_sub(1).and_then(|b| by_step.get(&b));
            tokens_only
                && before.is_some_and(|b| {
                    matches!(b.as_slice(), [(m, q)] if m == seat && matches!(q.body, Body::Move { .. }))
                })
        })
        .count();
    Counts {
        shows: log.iter().filter(|(_, p, _)| shows_a_card(p)).count(),
        // Read from the events themselves: a version 8 client drops the field as it reads it.
        carrying: log
            .iter()
            .filter(|(_, p, _)| shows_a_card(p))
            .map(|(_, _, e)| {
                let v: serde_json::Value = serde_json::from_str(&e.content).unwrap();
                v["tokens"].as_array().map_or(0, Vec::len)
            })
            .collect(),
        solo_after_own_move,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tile_or_card_its_holder_shows_by_its_move_opens_with_the_move_from_version_9() {
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    for version in [8, 9] {
        let run = run_demo::<AllFives>(opts(3, &url, version), None, None)
            .await
            .unwrap();
        clients_agree(&run);
        let (log, spec, _) = public_log(&url, &run).await;
        assert_eq!(spec.v, version);
        let c = counts(&log, &["play"]);
        assert!(c.shows >= 5, "version {version}: {} tiles played", c.shows);
        if version >= 9 {
            // Every tile played carries its holder's token and opens with the play.
            assert!(c.carrying.iter().all(|n| *n == 1), "{:?}", c.carrying);
            assert_eq!(c.solo_after_own_move, 0);
        } else {
            // A pass of the holder's own after every tile played.
            assert!(c.carrying.iter().all(|n| *n == 0), "{:?}", c.carrying);
            assert_eq!(c.solo_after_own_move, c.shows);
        }
        eprintln!(
            "all fives 3 seats, version {version}: {} tiles played, {} passes",
            c.shows, run.summary.passes
        );
    }
    // Abandon Ship's discards, fights and raises the same way, at version 9.
    let run = run_demo::<AbandonShip>(opts(3, &url, 9), None, None)
        .await
        .unwrap();
    clients_agree(&run);
    let (log, _, _) = public_log(&url, &run).await;
    let c = counts(&log, &["discard", "fight", "raise"]);
    assert!(c.shows >= 5, "{} cards played", c.shows);
    assert!(c.carrying.iter().all(|n| *n == 1), "{:?}", c.carrying);
    assert_eq!(c.solo_after_own_move, 0);
}
