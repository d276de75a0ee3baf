//! The Bogey's scripts: a race with its deck (and reshuffles) fixed, replayed through the
//! engine. Format: `protocol/rules/the-bogey.md` (§10).

use crate::cards::{CardId, DeckSpec, PlayingCard};
use crate::engine::Seat;
use crate::games::the_bogey::game::{level, Action, Place, Setup, Status, TheBogey, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use crate::games::race::ScriptedReshuffle as Reshuffle;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub setup: Setup,
    /// The top of the deck by position (card names such as "KS", "10H"); the cards not listed
    /// follow in card order (♣, ♦, ♥, ♠, each by rank).
    pub deck: Vec<String>,
    /// Each entrant's reshuffles in the order they happen; one not listed keeps the discard
    /// pile's order.
    #[serde(default)]
    pub reshuffles: Vec<Reshuffle>,
    /// What the script shows, for people.
    #[serde(default)]
    pub note: Option<String>,
    /// "SEAT play 1 new", "SEAT play 2 3", "SEAT discard 4", "SEAT end", "SEAT place 2",
    /// "SEAT place new", "SEAT stuck", "SEAT give up" (hand cards and columns from 1).
    pub actions: Vec<String>,
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

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

pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let (seat, words) = crate::games::script::script_words(s)
        .ok_or_else(|| format!("'{s}' is not a move of The Bogey: start with the seat number"))?;
    Ok((seat, parse_move(&words.join(" "))?))
}

fn name(c: CardId) -> String {
    PlayingCard::from_id(c).to_string()
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("Bogey script: {e}"))
    }

    pub fn run(&self) -> Result<Output, String> {
        let game = TheBogey::new(&self.setup).map_err(|e| e.to_string())?;
        let spec = DeckSpec::standard(1);
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
                (
                    e.seat,
                    EntrantOut {
                        seat: e.seat,
                        status: e.status,
                        columns: p
                            .columns
                            .iter()
                            .map(|c| c.iter().map(seen).collect())
                            .collect(),
                        hand: p.hand.iter().map(seen).collect(),
                        discards: p.discards.iter().map(seen).collect(),
                        bogey: p.bogey.as_ref().map(seen),
                        on_table: p.on_table(),
                        deck_left: p.deck.len(),
                        reshuffles: p.reshuffles.len(),
                        level: (e.status == Status::Won).then(|| level(p.columns.len())),
                        verdict: game.verdicts.get(&e.seat).cloned(),
                    },
                )
            })
            .collect();
        Ok(Output { end, entrants })
    }
}
