//! Hand scripts: a hand with its cards and dice fixed in advance, replayed through the engine.
//! The format is documented in `protocol/rules/tolerance.md` (§Hand scripts).

use crate::cards::{CardId, DeckSpec};
use crate::engine::sim::{fulfil_all, Script};
use crate::engine::{Game, RuleError, Seat, ToAct};
use crate::games::tolerance::hand::{Action, Hand, HandResult, HandRules, HandSetup, LogEntry};
use crate::games::tolerance::variant::Variant;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandScript {
    /// A built-in variant name or an inline variant table (missing fields: standard).
    #[serde(default)]
    pub variant: Option<VariantRef>,
    /// Seats clockwise with their stacks.
    pub seats: Vec<ScriptSeat>,
    pub dealer: Seat,
    /// Hand number (selects the blind level of a tournament schedule).
    #[serde(default)]
    pub hand_no: u64,
    /// Cards by deck position, in dealing order ("AS", "10H", "QD#1").
    pub deck: Vec<String>,
    /// Die results in rolling order.
    #[serde(default)]
    pub dice: Vec<u8>,
    /// "SEAT MOVE \[N\]": "0 check", "1 raise 40", "2 roll 5", "3 pass", "1 fold", "0 call".
    pub actions: Vec<String>,
    /// Optional expected output (golden tests compare it; `replay` ignores it).
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum VariantRef {
    Builtin(String),
    Inline(Box<Variant>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptSeat {
    pub seat: Seat,
    pub stack: u64,
}

/// What `tolerance replay` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayOutput {
    pub ok: bool,
    /// The rule error that stopped the script, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Index into `actions` of the move that was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_action: Option<usize>,
    pub points: BTreeMap<Seat, i64>,
    pub pots: Vec<serde_json::Value>,
    pub final_stacks: BTreeMap<Seat, u64>,
    pub payoffs: BTreeMap<Seat, i64>,
    pub uncontested: bool,
    pub log: Vec<LogEntry>,
}

fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let bad = || {
        format!("'{s}' is not a move: use 'SEAT fold|check|call|pass' or 'SEAT raise N' or 'SEAT roll N'")
    };
    let words: Vec<&str> = s.split_whitespace().collect();
    let seat: Seat = words.first().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
    let num =
        || -> Result<u64, String> { words.get(2).and_then(|w| w.parse().ok()).ok_or_else(bad) };
    let action = match (words.get(1).copied(), words.len()) {
        (Some("fold"), 2) => Action::Fold,
        (Some("check"), 2) => Action::Check,
        (Some("call"), 2) => Action::Call,
        (Some("pass"), 2) => Action::Pass,
        (Some("raise" | "bet"), 3) => Action::Raise { to: num()? },
        (Some("roll"), 3) => Action::Roll {
            target: u8::try_from(num()?).map_err(|_| bad())?,
        },
        _ => return Err(bad()),
    };
    Ok((seat, action))
}

impl HandScript {
    pub fn parse(text: &str) -> Result<HandScript, String> {
        serde_json::from_str(text).map_err(|e| format!("hand script: {e}"))
    }

    pub fn variant(&self) -> Result<Variant, String> {
        match &self.variant {
            None => Ok(Variant::default()),
            Some(VariantRef::Builtin(name)) => Variant::builtin(name).ok_or_else(|| {
                format!(
                    "unknown built-in variant '{name}' (known: {})",
                    Variant::BUILTIN.join(", ")
                )
            }),
            Some(VariantRef::Inline(v)) => {
                v.validate().map_err(|e| e.to_string())?;
                Ok((**v).clone())
            }
        }
    }

    /// Runs the script. Setup problems are `Err`; rule errors are reported in the output.
    pub fn run(&self) -> Result<ReplayOutput, String> {
        let variant = self.variant()?;
        let seats: Vec<(Seat, u64)> = self.seats.iter().map(|s| (s.seat, s.stack)).collect();
        let setup = HandSetup {
            hand_no: self.hand_no,
            deck: self.hand_no as crate::engine::DeckId,
            dealer: self.dealer,
            rules: HandRules {
                die_sides: variant.die_sides,
                blind: variant.blind_at(self.hand_no),
                betting: variant.betting,
                super_ace: variant.super_ace,
                card_again: variant.card_again,
                decks: variant.decks_for(seats.len() as u8),
            },
            seats,
        };
        let deck_spec = DeckSpec::standard(setup.rules.decks);
        let deck: Vec<CardId> = self
            .deck
            .iter()
            .map(|c| deck_spec.parse(c).map_err(|e| format!("deck: {e}")))
            .collect::<Result<_, _>>()?;
        let mut seen = std::collections::BTreeSet::new();
        for (c, name) in deck.iter().zip(&self.deck) {
            if !seen.insert(*c) {
                return Err(format!("deck: {name} appears twice"));
            }
        }
        let moves: Vec<(Seat, Action)> = self
            .actions
            .iter()
            .map(|a| parse_action(a))
            .collect::<Result<_, _>>()?;
        let mut hand = Hand::new(&setup).map_err(|e| e.to_string())?;
        let mut chance = Script::new(deck, self.dice.clone());
        let mut next = 0;
        let mut failure: Option<(String, Option<usize>)> = None;
        loop {
            match hand.to_act() {
                ToAct::Terminal => break,
                ToAct::Chance(reqs) => {
                    let outs = fulfil_all(&mut chance, &reqs)?;
                    hand.apply_chance(&outs).map_err(|e| e.to_string())?;
                }
                ToAct::Seat(_) | ToAct::Sealed(_) => {
                    let Some((seat, action)) = moves.get(next) else {
                        failure = Some((
                            format!(
                                "the script ended before the hand did ({})",
                                hand.to_act().words()
                            ),
                            None,
                        ));
                        break;
                    };
                    if let Err(e) = hand.apply(*seat, action) {
                        failure = Some((e.to_string(), Some(next)));
                        break;
                    }
                    next += 1;
                }
            }
        }
        if failure.is_none() && next < moves.len() {
            failure = Some((RuleError::Finished.to_string(), Some(next)));
        }
        if failure.is_none() && chance.unused_dice() > 0 {
            return Err(format!(
                "{} scripted dice were never rolled",
                chance.unused_dice()
            ));
        }
        Ok(output(&hand, failure))
    }
}

fn output(hand: &Hand, failure: Option<(String, Option<usize>)>) -> ReplayOutput {
    let result: Option<&HandResult> = hand.result.as_ref();
    ReplayOutput {
        ok: failure.is_none(),
        at_action: failure.as_ref().and_then(|f| f.1),
        error: failure.map(|f| f.0),
        points: result
            .map(|r| r.points.iter().copied().collect())
            .unwrap_or_default(),
        pots: result
            .map(|r| {
                r.pots
                    .iter()
                    .map(|p| serde_json::to_value(p).expect("serialisable"))
                    .collect()
            })
            .unwrap_or_default(),
        final_stacks: hand.players.iter().map(|p| (p.seat, p.stack)).collect(),
        payoffs: hand
            .outcome()
            .map(|o| o.payoffs.into_iter().collect())
            .unwrap_or_default(),
        uncontested: result.is_some_and(|r| r.uncontested),
        log: hand.log.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_strings_parse() {
        assert_eq!(
            parse_action("1 raise 40").unwrap(),
            (1, Action::Raise { to: 40 })
        );
        assert_eq!(
            parse_action("0 roll 5").unwrap(),
            (0, Action::Roll { target: 5 })
        );
        assert_eq!(parse_action("3 pass").unwrap(), (3, Action::Pass));
        for bad in ["", "x call", "1 raise", "1 roll 300", "1 dance", "1 call 5"] {
            assert!(parse_action(bad).is_err(), "{bad}");
        }
    }
}
