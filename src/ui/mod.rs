//! User interfaces: they read a seat's view and return a chosen move, never the full state.

#[cfg(feature = "runtime")]
pub mod line;
#[cfg(feature = "terminal")]
pub mod tui;

use crate::engine::Seat;

/// How seat `s` is called at a table whose seats are named `names` ("you", a profile name, a
/// short npub, "bot 2"); a seat past the list is "seat N".
pub fn seat_name(names: &[String], s: Seat) -> String {
    names
        .get(s as usize)
        .cloned()
        .unwrap_or_else(|| format!("seat {s}"))
}

/// The seats of a game on this machine: the person at seat 0, bots at the others.
pub fn local_names(players: u8) -> Vec<String> {
    (0..players)
        .map(|s| {
            if s == 0 {
                "you".to_string()
            } else {
                format!("bot {s}")
            }
        })
        .collect()
}
