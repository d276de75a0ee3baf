//! ArtOfFacts scripts: a table with every deck's order fixed, replayed through the engine.
//! Format: `protocol/rules/art-of-facts.md` (§ Scripts).

use super::words::line;
use crate::cards::CardId;
use crate::engine::{DeckId, Seat};
use crate::games::art_of_facts::deck::Cards;
use crate::games::art_of_facts::game::{Action, ArtOfFacts, Entry, Setup};
use crate::games::art_of_facts::value::Declaration;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// What the script shows, for people (ignored).
    #[serde(default)]
    pub comment: Option<String>,
    pub setup: Setup,
    /// The dealer draw's deck from the top (card names: "feather 7", "sun 3", "+2", "x-1");
    /// cards not named follow in deck order.
    #[serde(default)]
    pub draw: Vec<String>,
    /// Each hand's deck from the top: the dealer's three cards, then each next player's
    /// clockwise, then the face-down cards in the same order.
    #[serde(default)]
    pub hands: Vec<Vec<String>>,
    /// "SEAT keep", "SEAT swap 2", "SEAT declare +1 -3 ops 2" (slots 1 to 3).
    pub actions: Vec<String>,
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Won {
    pub seat: Seat,
    pub pot: u64,
    pub value: i64,
    pub dealer_tie: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    pub hands: u32,
    pub banks: Vec<u64>,
    pub ante: u64,
    pub rotation: u32,
    pub dealer: Option<Seat>,
    /// Every value declared, in order: (seat, value).
    pub declared: Vec<(Seat, i64)>,
    /// Who took its ante back by tying the dealer, in order.
    pub took_back: Vec<Seat>,
    /// Every pot, in order.
    pub won: Vec<Won>,
    /// The antes of the hands, in order.
    pub antes: Vec<u64>,
    pub story: Vec<String>,
}

/// "SEAT keep", "SEAT swap N", "SEAT declare [+N|-N]... [ops N...]" (N = 1..3). With
/// `loose` (a person typing) the seat is ignored and "declare 0" or a bare "declare" work too.
pub fn parse_action(s: &str, loose: bool) -> Result<(Seat, Action), String> {
    let bad = || {
        format!(
            "'{s}' is not an ArtOfFacts move: 'keep', 'swap N', or 'declare +N -N ops N N' \
             with cards numbered 1 to 3"
        )
    };
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(bad)?;
    let slot = |w: &str| -> Result<u8, String> {
        match w.parse::<u8>() {
            Ok(n) if (1..=3).contains(&n) => Ok(n - 1),
            _ => Err(bad()),
        }
    };
    let action = match words.as_slice() {
        ["keep"] => Action::Keep,
        ["swap", n] => Action::Swap { slot: slot(n)? },
        ["declare", rest @ ..] => {
            let mut d = Declaration::default();
            let mut in_ops = false;
            for w in rest {
                if *w == "ops" || *w == "then" {
                    in_ops = true;
                } else if in_ops {
                    d.ops.push(slot(w)?);
                } else if let Some(n) = w.strip_prefix('+') {
                    d.add.push(slot(n)?);
                } else if let Some(n) = w.strip_prefix('-') {
                    d.sub.push(slot(n)?);
                } else if loose && (*w == "0" || *w == "zero") {
                } else if loose {
                    d.add.push(slot(w)?);
                } else {
                    return Err(bad());
                }
            }
            Action::Declare(d)
        }
        _ => return Err(bad()),
    };
    Ok((seat, action))
}

/// A deck order from named cards on top, the rest in id order.
fn order(cards: &Cards, named: &[String]) -> Result<Vec<CardId>, String> {
    let mut taken = Vec::new();
    for n in named {
        let c = cards
            .find(n, &taken)
            .ok_or_else(|| format!("'{n}' is not a card of the deck, or is named too often"))?;
        taken.push(c);
    }
    let mut deck = taken.clone();
    deck.extend(
        (0..cards.0.len() as u16)
            .map(CardId)
            .filter(|c| !taken.contains(c)),
    );
    Ok(deck)
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("ArtOfFacts script: {e}"))
    }

    pub fn run(&self) -> Result<Output, String> {
        let game = ArtOfFacts::new(&self.setup).map_err(|e| e.to_string())?;
        let cards = game.cards();
        let mut decks: BTreeMap<DeckId, Vec<CardId>> = BTreeMap::new();
        decks.insert(0, order(&cards, &self.draw)?);
        for (i, h) in self.hands.iter().enumerate() {
            decks.insert(i as DeckId + 1, order(&cards, h)?);
        }
        let mut chance = crate::engine::sim::Script::new(order(&cards, &[])?, Vec::new());
        chance.decks = decks;
        let (game, end) =
            crate::games::script::play_script_with(game, chance, &self.actions, |a| {
                parse_action(a, false)
            })?;
        let seat_name = |s: Seat| format!("seat {s}");
        Ok(Output {
            end,
            hands: game.hand_no,
            banks: game.banks.values().copied().collect(),
            ante: game.ante,
            rotation: game.rotation,
            dealer: game.dealer,
            declared: game
                .log
                .iter()
                .filter_map(|e| match e {
                    Entry::Declared { seat, value, .. } => Some((*seat, *value)),
                    _ => None,
                })
                .collect(),
            took_back: game
                .log
                .iter()
                .filter_map(|e| match e {
                    Entry::TookBack { seat, .. } => Some(*seat),
                    _ => None,
                })
                .collect(),
            won: game
                .log
                .iter()
                .filter_map(|e| match e {
                    Entry::Won {
                        seat,
                        pot,
                        value,
                        dealer_tie,
                    } => Some(Won {
                        seat: *seat,
                        pot: *pot,
                        value: *value,
                        dealer_tie: *dealer_tie,
                    }),
                    _ => None,
                })
                .collect(),
            antes: game
                .log
                .iter()
                .filter_map(|e| match e {
                    Entry::Ante { ante, .. } => Some(*ante),
                    _ => None,
                })
                .collect(),
            story: game.log.iter().map(|e| line(e, &seat_name)).collect(),
        })
    }
}
