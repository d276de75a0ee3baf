//! Abandon Ship over a real relay, seen by a spectator: `watch` tells the whole game in words
//! and never names a card the rules keep hidden — with two players the five cards set aside are
//! never dealt nor opened, so of the 52 exactly 47 can ever be named.

use crate::common::cards;

use cards::{cards_named, played, watch};
use tolerance::games::abandon_ship::AbandonShip;
use tolerance::games::registry::SetupOptions;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_sees_the_game_in_words_and_never_a_card_set_aside() {
    let (_relay, run) = played::<AbandonShip>(SetupOptions {
        players: 2,
        hands: Some(1),
        ..SetupOptions::default()
    })
    .await;
    let stdout = watch(&run.summary.naddr).await;
    assert!(stdout.contains("the ship sinks"), "{stdout}");
    assert!(stdout.contains("hands shown:"), "{stdout}");
    let named = cards_named(&stdout);
    assert_eq!(
        named.len(),
        47,
        "a two-player round names every card but the five set aside: {named:?}\n{stdout}"
    );
    for debug in ["Some(", "None", "Seat(", "CardId"] {
        assert!(!stdout.contains(debug), "{debug} in {stdout}");
    }
}
