//! A race's script (`tolerance replay`, golden tests): the race with its deck and its
//! reshuffles fixed, replayed through the engine; every raced solitaire reads the same format
//! (its rules spec gives its moves as typed).

use super::RaceUi;
use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::race::{reshuffle_deck, Race};
use crate::games::script::{play_script_with, script_words, ScriptEnd};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The order a script gives one reshuffle: position `i` of the new deck is the pile's card
/// `order[i]` (0 = the pile's first).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedReshuffle {
    pub seat: Seat,
    pub order: Vec<u16>,
}

/// Puts each entrant's scripted reshuffles, in the order they happen, in `chance`.
pub fn script_reshuffles(chance: &mut crate::engine::sim::Script, list: &[ScriptedReshuffle]) {
    let mut count: BTreeMap<Seat, usize> = BTreeMap::new();
    for r in list {
        let n = count.entry(r.seat).or_default();
        chance.decks.insert(
            reshuffle_deck(r.seat, *n),
            r.order.iter().map(|i| CardId(*i)).collect(),
        );
        *n += 1;
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = ""))]
pub struct Script<R: RaceUi> {
    pub setup: R::Setup,
    /// The top of the deck by position (card names such as "5D", "JOKER"); the cards not
    /// listed follow in the deck's order.
    pub deck: Vec<String>,
    /// Each entrant's reshuffles in the order they happen; one not listed keeps the pile's
    /// order.
    #[serde(default)]
    pub reshuffles: Vec<ScriptedReshuffle>,
    /// What the script shows, for people.
    #[serde(default)]
    pub note: Option<String>,
    /// "SEAT move" (the move as a person types it).
    pub actions: Vec<String>,
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(bound = "")]
pub struct Output<R: RaceUi> {
    #[serde(flatten)]
    pub end: ScriptEnd,
    /// By seat.
    pub entrants: BTreeMap<Seat, R::Out>,
}

/// A scripted move: "SEAT" and the move as typed.
pub fn parse_action<R: RaceUi>(s: &str) -> Result<(Seat, R::Action), String> {
    let (seat, words) = script_words(s).ok_or_else(|| {
        format!(
            "'{s}' is not a move of {}: start with the seat number",
            R::TITLE
        )
    })?;
    Ok((seat, R::parse_typed(&words.join(" "))?))
}

impl<R: RaceUi> Script<R> {
    pub fn parse(text: &str) -> Result<Script<R>, String> {
        serde_json::from_str(text).map_err(|e| format!("{} script: {e}", R::RACE))
    }

    /// The deck in position order: the listed cards, then the rest in the deck's order.
    fn cards(&self) -> Result<Vec<CardId>, String> {
        let mut deck: Vec<CardId> = Vec::new();
        for name in &self.deck {
            let c = R::card_named(&self.setup, name)?;
            if deck.contains(&c) {
                return Err(format!("{name} is listed twice in {}", R::DECK_NAME));
            }
            deck.push(c);
        }
        let rest: Vec<CardId> = R::deck(&self.setup)
            .cards()
            .into_iter()
            .filter(|c| !deck.contains(c))
            .collect();
        deck.extend(rest);
        Ok(deck)
    }

    pub fn run(&self) -> Result<Output<R>, String> {
        if !R::RESHUFFLES && !self.reshuffles.is_empty() {
            return Err(format!("{} has no reshuffles to order", R::TITLE));
        }
        let game = Race::<R>::new(&self.setup).map_err(|e| e.to_string())?;
        let mut chance = crate::engine::sim::Script::new(self.cards()?, Vec::new());
        // A reshuffle the script does not order keeps its pile's order.
        chance.in_order = true;
        script_reshuffles(&mut chance, &self.reshuffles);
        let (game, end) = play_script_with(game, chance, &self.actions, parse_action::<R>)?;
        let entrants = game
            .entrants
            .iter()
            .map(|e| (e.seat, R::out(&game, e)))
            .collect();
        Ok(Output { end, entrants })
    }
}
