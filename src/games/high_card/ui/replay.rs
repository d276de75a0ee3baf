//! High Card scripts: a game with its deck and lot fixed, replayed through the engine. Format:
//! `protocol/rules/high-card.md` (§Scripts).

use crate::cards::{CardId, DeckSpec};
use crate::engine::Seat;
use crate::games::high_card::game::{Action, Entry, HighCard, Setup};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub setup: Setup,
    /// The deck of every round, by position (card names such as "AS", "10H").
    pub deck: Vec<String>,
    /// The lot for the first player (1 = the lowest seat).
    pub dice: Vec<u8>,
    /// "SEAT keep|swap|stay|fold".
    pub actions: Vec<String>,
    /// Expected output (golden tests compare it; `replay` ignores it).
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    pub round: u32,
    pub points: BTreeMap<Seat, i64>,
    pub log: Vec<Entry>,
}

pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let bad =
        || format!("'{s}' is not a High Card move: use 'SEAT keep', 'swap', 'stay' or 'fold'");
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(bad)?;
    let action = match words.as_slice() {
        ["keep"] => Action::Keep,
        ["swap"] => Action::Swap,
        ["stay"] => Action::Stay,
        ["fold"] => Action::Fold,
        _ => return Err(bad()),
    };
    Ok((seat, action))
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("High Card script: {e}"))
    }

    pub fn run(&self) -> Result<Output, String> {
        let game = HighCard::new(&self.setup).map_err(|e| e.to_string())?;
        let spec = DeckSpec::standard(1);
        let deck: Vec<CardId> = self
            .deck
            .iter()
            .map(|c| spec.parse(c).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        let (game, end) = crate::games::script::play_script_with_deck(
            game,
            deck,
            &self.dice,
            &self.actions,
            parse_action,
        )?;
        Ok(Output {
            end,
            round: game.round,
            points: game.points.clone(),
            log: game.log.clone(),
        })
    }
}
