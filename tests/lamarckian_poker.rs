//! Lamarckian Poker over a real relay, seen by a spectator: `watch` tells the whole game in
//! words and never names a card the rules keep hidden. What is hidden is what the engine's
//! spectator view (as every client agreed on it at the end) still holds face down, plus the
//! cards the deck never dealt: a sole survivor's hand is never shown, and a showdown opens only
//! the hands still in the game.

use crate::common::cards;

use cards::{cards_named, played, watch};
use std::collections::BTreeSet;
use tolerance::cards::CardId;
use tolerance::games::lamarckian_poker::hand::card_name;
use tolerance::games::lamarckian_poker::LamarckianPoker;
use tolerance::games::registry::SetupOptions;

fn names(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("a list of cards: {v}"))
        .iter()
        .filter_map(|c| c.as_u64())
        .map(|c| card_name(CardId(c as u16)))
        .collect()
}

/// Plays a table of `players` bots over the embedded relay and returns what `watch` printed,
/// the cards the spectator's view shows face up (pool, discards, captured and opened hand
/// cards), how many it holds face down, and the cards left in the deck.
async fn watched(players: u8) -> (String, BTreeSet<String>, usize, u64) {
    let (_relay, run) = played::<LamarckianPoker>(SetupOptions {
        players,
        ..SetupOptions::default()
    })
    .await;
    let public = &run.reports[0].as_ref().expect("client 0 ran").public;
    let mut shown: BTreeSet<String> = BTreeSet::new();
    shown.extend(names(&public["pool"]));
    shown.extend(names(&public["discards"]));
    let mut face_down = 0;
    for seat in public["hands"].as_array().expect("hands") {
        let cards = seat[1].as_array().expect("a hand");
        face_down += cards.iter().filter(|c| c.is_null()).count();
        shown.extend(names(&seat[1]));
    }
    let deck_left = public["deck_left"].as_u64().expect("deck_left");
    let stdout = watch(&run.summary.naddr).await;
    (stdout, shown, face_down, deck_left)
}

fn check(players: u8, stdout: &str, shown: &BTreeSet<String>, face_down: usize, deck_left: u64) {
    for debug in ["Some(", "None", "Seat(", "CardId", "position"] {
        assert!(!stdout.contains(debug), "{debug} in {stdout}");
    }
    assert!(stdout.contains("turn 1: the pool is"), "{stdout}");
    assert!(stdout.contains("falls into the pool"), "{stdout}");
    let named = cards_named(stdout);
    let hidden: Vec<&String> = named.difference(shown).collect();
    assert!(
        hidden.is_empty(),
        "the spectator was told {hidden:?}, which the rules keep face down:\n{stdout}"
    );
    // Every card the rules opened on the table is told, and nothing else: 52 cards less those
    // still face down in a hand or never dealt; at most the showdown's extra cards (beyond a
    // hand's best five) are opened without being named.
    assert!(
        named.len() + face_down + deck_left as usize <= 52,
        "{} named, {face_down} face down, {deck_left} in the deck",
        named.len()
    );
    // Every pool card ever laid is named: the deck less the hands dealt and what is left.
    let pools: BTreeSet<String> = stdout
        .lines()
        .filter_map(|l| l.split_once("the pool is ").map(|(_, c)| c.to_string()))
        .flat_map(|c| cards_named(&c))
        .collect();
    assert_eq!(
        pools.len() as u64,
        52 - 4 * u64::from(players) - deck_left,
        "the pools named: {pools:?}\n{stdout}"
    );
    if stdout.contains("the last to survive") {
        // Won without a showdown: no hand was opened, and the survivor's cards (those it did
        // not capture) stay face down.
        assert!(!stdout.contains(" shows "), "{stdout}");
        assert!(face_down > 0 || deck_left > 0, "{stdout}");
    } else {
        // A showdown: every hand still in the game was opened.
        assert!(stdout.contains(" shows "), "{stdout}");
        assert_eq!(face_down, 0, "{stdout}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_of_three_players_sees_only_the_cards_the_rules_open() {
    let (stdout, shown, face_down, deck_left) = watched(3).await;
    check(3, &stdout, &shown, face_down, deck_left);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_of_a_heads_up_game_sees_only_the_cards_the_rules_open() {
    let (stdout, shown, face_down, deck_left) = watched(2).await;
    check(2, &stdout, &shown, face_down, deck_left);
}
