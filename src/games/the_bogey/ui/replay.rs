//! The Bogey's part of a script (the race kit's format, `protocol/rules/the-bogey.md` §10): its
//! moves as typed — "play 1 new", "play 2 3", "discard 4", "end", "place 2", "place new",
//! "stuck", "give up" (hand cards and columns from 1) — and an entrant as a script ends.

use crate::engine::Seat;
use crate::games::the_bogey::game::{Action, Place, Status, Verdict};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntrantOut {
    pub seat: Seat,
    pub status: Status,
    /// Each column top first, by card name.
    pub columns: Vec<Vec<String>>,
    pub hand: Vec<String>,
    pub discards: Vec<String>,
    /// The bogey's card waiting to be placed.
    pub bogey: Option<String>,
    pub on_table: usize,
    pub deck_left: usize,
    pub reshuffles: usize,
    /// The level a won game reached.
    pub level: Option<&'static str>,
    pub verdict: Option<Verdict>,
}

fn number(w: &str, bad: &dyn Fn() -> String) -> Result<u8, String> {
    w.parse::<u8>()
        .ok()
        .filter(|n| (1..=12).contains(n))
        .map(|n| n - 1)
        .ok_or_else(bad)
}

fn place(w: &str, bad: &dyn Fn() -> String) -> Result<Place, String> {
    if w == "new" || w == "n" {
        return Ok(Place::New);
    }
    Ok(Place::Column(number(w, bad)?))
}

/// A typed move without its seat: "play 2 3", "play 1 new", "discard 4", "end" (or "pass"),
/// "place 2", "place new", "stuck", "give up".
pub fn parse_move(s: &str) -> Result<Action, String> {
    let bad = || {
        format!(
            "'{s}' is not a move of The Bogey: type 'play' a hand card and a column number or \
             'new' (play 2 3, play 1 new), 'discard' a hand card, 'end' (or 'pass'), 'place' \
             and a column or 'new' for the bogey's card, 'stuck', or 'give up'"
        )
    };
    let words: Vec<&str> = s.split_whitespace().collect();
    match words.as_slice() {
        ["play" | "p", n, to] => Ok(Action::Play {
            slot: number(n, &bad)?,
            to: place(to, &bad)?,
        }),
        ["discard" | "d", n] => Ok(Action::Discard {
            slot: number(n, &bad)?,
        }),
        ["end" | "e" | "pass" | "end_turn"] | ["end", "turn"] => Ok(Action::EndTurn),
        ["place" | "b", to] => Ok(Action::Place {
            to: place(to, &bad)?,
        }),
        ["stuck"] => Ok(Action::Stuck),
        ["give", "up"] | ["giveup"] | ["give_up"] => Ok(Action::GiveUp),
        _ => Err(bad()),
    }
}
