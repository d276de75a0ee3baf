//! Shooting Party's part of a script (the race kit's format,
//! `protocol/rules/shooting-party.md` §11): its moves as typed — "draw", "ace 3",
//! "spouses 1 2", "queen 1", "leave", "discard 2 4", "joker 3", "retrieve 3 1", "search 3",
//! "take 5", "contact", "contact 1", "give up" (cards and places counted from 1) — and an
//! entrant as a script ends.

use crate::engine::Seat;
use crate::games::shooting_party::game::{Action, Status, Verdict};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntrantOut {
    pub seat: Seat,
    pub status: Status,
    /// The room, oldest first, by card name.
    pub hand: Vec<String>,
    pub discards: Vec<String>,
    /// Aces displayed, not scored.
    pub aces: Vec<String>,
    pub scored: Vec<String>,
    pub contacts: u8,
    pub pile_left: usize,
    /// Times the draw pile ran out.
    pub exhausted: u8,
    /// The author's grades, once the game is over.
    pub grade: Option<String>,
    pub verdict: Option<Verdict>,
}

fn number(w: &str, bad: &dyn Fn() -> String) -> Result<u8, String> {
    w.parse::<u8>()
        .ok()
        .filter(|n| (1..=40).contains(n))
        .map(|n| n - 1)
        .ok_or_else(bad)
}

/// A typed move without its seat (cards and places counted from 1): "draw", "leave",
/// "ace 3", "spouses 1 2", "queen 1", "discard 2 4", "joker 3", "retrieve 3 1", "search 3",
/// "take 5", "contact", "contact 1", "give up".
pub fn parse_move(s: &str) -> Result<Action, String> {
    let bad = || {
        format!(
            "'{s}' is not a move of Shooting Party: type 'draw' (a pair), 'leave' (the room), \
             'discard' and hand cards (discard 2 4), 'ace' N (an ace goes up), 'spouses' N M, \
             'queen' N, 'joker' N (on its own), 'retrieve' N D (the joker brings back discard \
             D), 'search' N (the joker looks for an ace), 'take' P (the ace at pile place P), \
             'contact' (with 'contact' A: and displayed ace A), or 'give up'"
        )
    };
    let words: Vec<&str> = s.split_whitespace().collect();
    let n = |w: &str| number(w, &bad);
    Ok(match words.as_slice() {
        ["draw" | "d"] => Action::Draw,
        ["leave" | "l"] => Action::Leave,
        ["ace", k] => Action::AceUp { slot: n(k)? },
        ["spouses", a, b] => Action::Spouses { a: n(a)?, b: n(b)? },
        ["queen", k] => Action::Queen { slot: n(k)? },
        ["discard" | "x", rest @ ..] if !rest.is_empty() => Action::Discard {
            slots: rest.iter().map(|w| n(w)).collect::<Result<_, _>>()?,
        },
        ["joker", k] => Action::Joker { slot: n(k)? },
        ["retrieve", k, c] => Action::Retrieve {
            slot: n(k)?,
            card: n(c)?,
        },
        ["search", k] => Action::Search { slot: n(k)? },
        ["take", k] => Action::TakeAce { at: n(k)? },
        ["contact" | "c"] => Action::Contact { ace: None },
        ["contact" | "c", a] => Action::Contact { ace: Some(n(a)?) },
        ["give", "up"] | ["giveup"] | ["give_up"] => Action::GiveUp,
        _ => return Err(bad()),
    })
}
