//! Shooting Party's scripts: a race with its deck (and reshuffles) fixed, replayed through the
//! engine. Format: `protocol/rules/shooting-party.md` (§11).

use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::race::ScriptedReshuffle;
use crate::games::shooting_party::game::{
    communique_grade, contact_grade, deck_spec, Action, ShootingParty, Status, Verdict,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub setup: crate::games::shooting_party::Setup,
    /// The top of the deck by position ("QH", "5C", "JOKER"); the cards not listed follow in
    /// the deck's order (♣, ♦, ♥, ♠, each A 2 3 4 5 J Q K; the joker last).
    pub deck: Vec<String>,
    /// Each entrant's reshuffles in the order they happen; one not listed keeps the pile's
    /// order.
    #[serde(default)]
    pub reshuffles: Vec<ScriptedReshuffle>,
    /// What the script shows, for people.
    #[serde(default)]
    pub note: Option<String>,
    /// "SEAT draw", "SEAT ace 3", "SEAT spouses 1 2", "SEAT queen 1", "SEAT leave",
    /// "SEAT discard 2 4", "SEAT joker 3", "SEAT retrieve 3 1", "SEAT search 3", "SEAT take 5",
    /// "SEAT contact", "SEAT contact 1", "SEAT give up" (cards and places counted from 1).
    pub actions: Vec<String>,
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

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

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    /// By seat.
    pub entrants: BTreeMap<Seat, EntrantOut>,
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

pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(|| {
        format!("'{s}' is not a move of Shooting Party: start with the seat number")
    })?;
    Ok((seat, parse_move(&words.join(" "))?))
}

fn name(c: CardId) -> String {
    deck_spec().name(c)
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("Shooting Party script: {e}"))
    }

    pub fn run(&self) -> Result<Output, String> {
        let game = ShootingParty::new(&self.setup).map_err(|e| e.to_string())?;
        let spec = deck_spec();
        let mut deck: Vec<CardId> = Vec::new();
        for n in &self.deck {
            let c = spec.parse(n).map_err(|e| e.to_string())?;
            if deck.contains(&c) {
                return Err(format!("{n} is listed twice in the deck"));
            }
            deck.push(c);
        }
        let rest: Vec<CardId> = spec
            .cards()
            .into_iter()
            .filter(|c| !deck.contains(c))
            .collect();
        deck.extend(rest);
        let mut chance = crate::engine::sim::Script::new(deck, Vec::new());
        chance.in_order = true;
        crate::games::race::script_reshuffles(&mut chance, &self.reshuffles);
        let (game, end) =
            crate::games::script::play_script_with(game, chance, &self.actions, parse_action)?;
        let entrants = game
            .entrants
            .iter()
            .map(|e| {
                let p = &e.places;
                let seen = |s: &crate::games::race::Spot| {
                    game.card_seen(e.seat, Some(e.seat), *s)
                        .map(name)
                        .unwrap_or_else(|| "??".into())
                };
                let names = |v: &[crate::games::race::Spot]| v.iter().map(seen).collect();
                let aces = p.scored.len() - usize::from(p.contacts);
                (
                    e.seat,
                    EntrantOut {
                        seat: e.seat,
                        status: e.status,
                        hand: names(&p.hand),
                        discards: names(&p.discards),
                        aces: names(&p.aces),
                        scored: names(&p.scored),
                        contacts: p.contacts,
                        pile_left: p.pile.len(),
                        exhausted: p.exhausted,
                        grade: e.status.finished().then(|| {
                            format!(
                                "{} {}",
                                communique_grade(aces),
                                contact_grade(usize::from(p.contacts))
                            )
                        }),
                        verdict: game.verdicts.get(&e.seat).cloned(),
                    },
                )
            })
            .collect();
        Ok(Output { end, entrants })
    }
}
