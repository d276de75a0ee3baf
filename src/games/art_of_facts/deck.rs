//! ArtOfFacts decks as data: symbol cards (a symbol and a value) and non-symbol cards (an
//! operation and a number), read from a deck file (TOML, or the same fields in JSON) and carried
//! in the table's setup, so every client deals from the same list. The default deck is an
//! assumption of ours (`protocol/decks/art-of-facts.toml`, rules spec §1).

use crate::cards::{CardId, DeckSpec, MAX_DECK_SIZE};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The default deck file, shipped with the rules.
pub const DEFAULT_DECK: &str = include_str!("../../../protocol/decks/art-of-facts.toml");

/// What a non-symbol card does to the value it is combined with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Op {
    #[serde(rename = "+")]
    Add,
    #[serde(rename = "-")]
    Sub,
    #[serde(rename = "x")]
    Mul,
}

impl Op {
    pub fn sign(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "x",
        }
    }

    pub fn apply(self, to: i64, value: i64) -> i64 {
        match self {
            Op::Add => to.saturating_add(value),
            Op::Sub => to.saturating_sub(value),
            Op::Mul => to.saturating_mul(value),
        }
    }
}

/// One card.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Card {
    Symbol { symbol: String, value: i64 },
    Plain { op: Op, value: i64 },
}

impl Card {
    pub fn name(&self) -> String {
        match self {
            Card::Symbol { symbol, value } => format!("{symbol} {value}"),
            Card::Plain { op, value } => format!("{}{value}", op.sign()),
        }
    }

    pub fn symbol(&self) -> Option<&str> {
        match self {
            Card::Symbol { symbol, .. } => Some(symbol),
            Card::Plain { .. } => None,
        }
    }
}

/// One `[[cards]]` entry of a deck file: a kind of card and one card per listed value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<Op>,
    pub values: Vec<i64>,
}

/// A deck file: its name, the feather symbol, optional money rules, and its cards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeckFile {
    pub name: String,
    pub feather: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stash: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ante_percent: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ante_growth_percent: Option<u32>,
    pub cards: Vec<Entry>,
}

/// Symbol names: a lower-case word, so that scripts and typed moves can name cards.
const MAX_SYMBOL: usize = 16;
/// Largest symbol-card value, and largest number on a non-symbol card.
pub const MAX_VALUE: i64 = 1000;
/// Largest multiplier (either sign) on an `x` card.
pub const MAX_FACTOR: i64 = 10;

impl DeckFile {
    /// The shipped default deck.
    pub fn default_deck() -> DeckFile {
        DeckFile::parse(DEFAULT_DECK).expect("the shipped ArtOfFacts deck is valid")
    }

    /// Reads a deck file (TOML, or JSON when it starts with `{`) and checks it.
    pub fn parse(text: &str) -> Result<DeckFile, String> {
        let d: DeckFile = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| format!("deck file: {e}"))?
        } else {
            toml::from_str(text).map_err(|e| format!("deck file: {e}"))?
        };
        d.validate()?;
        Ok(d)
    }

    /// Every rule a deck must keep, with the field named in the error.
    pub fn validate(&self) -> Result<(), String> {
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > 80 {
            return Err("deck field `name`: 1 to 80 characters".into());
        }
        for (i, e) in self.cards.iter().enumerate() {
            let at = format!("deck field `cards` entry {}", i + 1);
            match (&e.symbol, &e.op) {
                (Some(s), None) => {
                    if s.is_empty()
                        || s.len() > MAX_SYMBOL
                        || !s.chars().all(|c| c.is_ascii_lowercase())
                    {
                        return Err(format!(
                            "{at}: symbol '{s}' must be a lower-case word of 1 to {MAX_SYMBOL} \
                             letters"
                        ));
                    }
                    if let Some(v) = e.values.iter().find(|v| !(0..=MAX_VALUE).contains(*v)) {
                        return Err(format!(
                            "{at}: symbol card value {v} is outside 0 to {MAX_VALUE}"
                        ));
                    }
                }
                (None, Some(op)) => {
                    let ok = |v: &i64| match op {
                        Op::Mul => (-MAX_FACTOR..=MAX_FACTOR).contains(v),
                        _ => (0..=MAX_VALUE).contains(v),
                    };
                    if let Some(v) = e.values.iter().find(|v| !ok(v)) {
                        return Err(format!(
                            "{at}: '{}' card value {v} is outside {}",
                            op.sign(),
                            match op {
                                Op::Mul => format!("-{MAX_FACTOR} to {MAX_FACTOR}"),
                                _ => format!("0 to {MAX_VALUE}"),
                            }
                        ));
                    }
                }
                _ => {
                    return Err(format!(
                        "{at}: give either `symbol` (a symbol card) or `op` (a non-symbol card)"
                    ))
                }
            }
            if e.values.is_empty() {
                return Err(format!("{at}: `values` lists no card"));
            }
        }
        let cards = self.cards();
        if !(2..=MAX_DECK_SIZE).contains(&cards.len()) {
            return Err(format!(
                "deck field `cards`: a deck has 2 to {MAX_DECK_SIZE} cards, not {}",
                cards.len()
            ));
        }
        if !self.symbols().contains(&self.feather) {
            return Err(format!(
                "deck field `feather`: '{}' is not one of the deck's symbols ({})",
                self.feather,
                self.symbols().into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
        if let Some(s) = self.stash {
            if !(1..=1_000_000_000).contains(&s) {
                return Err(format!(
                    "deck field `stash`: 1 to 1000000000 chips, not {s}"
                ));
            }
        }
        if let Some(p) = self.ante_percent {
            if !(1..=100).contains(&p) {
                return Err(format!("deck field `ante_percent`: 1 to 100, not {p}"));
            }
        }
        if let Some(p) = self.ante_growth_percent {
            if p > 1000 {
                return Err(format!(
                    "deck field `ante_growth_percent`: 0 to 1000, not {p}"
                ));
            }
        }
        Ok(())
    }

    /// The cards, in deck order (card id = index).
    pub fn cards(&self) -> Vec<Card> {
        let mut out = Vec::new();
        for e in &self.cards {
            for v in &e.values {
                out.push(match (&e.symbol, e.op) {
                    (Some(s), _) => Card::Symbol {
                        symbol: s.clone(),
                        value: *v,
                    },
                    (None, Some(op)) => Card::Plain { op, value: *v },
                    (None, None) => continue,
                });
            }
        }
        out
    }

    pub fn symbols(&self) -> BTreeSet<String> {
        self.cards.iter().filter_map(|e| e.symbol.clone()).collect()
    }

    /// How many feather cards the deck has: the first deal needs one per player.
    pub fn feathers(&self) -> usize {
        self.cards()
            .iter()
            .filter(|c| c.symbol() == Some(self.feather.as_str()))
            .count()
    }

    /// The deck as the chance layer shuffles it: the card names in id order.
    pub fn spec(&self) -> DeckSpec {
        DeckSpec::Custom {
            names: self.cards().iter().map(Card::name).collect(),
        }
    }

    /// The deck as a TOML deck file.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}

/// The cards of a deck by id, for the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cards(pub Vec<Card>);

impl Cards {
    pub fn get(&self, id: CardId) -> Option<&Card> {
        self.0.get(usize::from(id.0))
    }

    /// The name of card `id` ("feather 7", "x2"), or its number when out of range.
    pub fn name(&self, id: CardId) -> String {
        self.get(id)
            .map(Card::name)
            .unwrap_or_else(|| format!("card {}", id.0))
    }

    /// The first card called `name` ("feather 7", "+2", "x-1") that is not in `taken`.
    pub fn find(&self, name: &str, taken: &[CardId]) -> Option<CardId> {
        let want = name.trim().to_ascii_lowercase().replace(' ', "");
        self.0
            .iter()
            .enumerate()
            .map(|(i, c)| (CardId(i as u16), c))
            .find(|(id, c)| c.name().replace(' ', "") == want && !taken.contains(id))
            .map(|(id, _)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_deck_is_sixty_cards_with_ten_distinct_feathers() {
        let d = DeckFile::default_deck();
        let cards = d.cards();
        assert_eq!(cards.len(), 60);
        assert_eq!(d.feathers(), 10);
        assert_eq!(d.symbols().len(), 4);
        let plain = cards.iter().filter(|c| c.symbol().is_none()).count();
        assert_eq!(plain, 20);
        // The same deck read back from its own TOML and from JSON.
        assert_eq!(DeckFile::parse(&d.to_toml()).unwrap(), d);
        assert_eq!(
            DeckFile::parse(&serde_json::to_string(&d).unwrap()).unwrap(),
            d
        );
        assert_eq!(d.spec().len(), 60);
    }

    #[test]
    fn bad_deck_files_name_the_field() {
        let bad = |text: &str, want: &str| {
            let e = DeckFile::parse(text).unwrap_err();
            assert!(e.contains(want), "{e}");
        };
        bad(
            "name = \"x\"\nfeather = \"star\"\n[[cards]]\nsymbol = \"sun\"\nvalues = [1, 2]\n",
            "`feather`",
        );
        bad(
            "name = \"x\"\nfeather = \"sun\"\n[[cards]]\nsymbol = \"Sun!\"\nvalues = [1, 2]\n",
            "lower-case word",
        );
        bad(
            "name = \"x\"\nfeather = \"sun\"\n[[cards]]\nsymbol = \"sun\"\nop = \"+\"\nvalues = [1]\n",
            "either `symbol`",
        );
        bad(
            "name = \"x\"\nfeather = \"sun\"\n[[cards]]\nsymbol = \"sun\"\nvalues = [1]\n",
            "2 to 208 cards",
        );
        bad(
            "name = \"x\"\nfeather = \"sun\"\n[[cards]]\nsymbol = \"sun\"\nvalues = [1, 2]\n\
             [[cards]]\nop = \"x\"\nvalues = [11]\n",
            "-10 to 10",
        );
        bad(
            "name = \"x\"\nfeather = \"sun\"\nbets = 3\n[[cards]]\nsymbol = \"sun\"\nvalues = [1, 2]\n",
            "unknown field",
        );
    }

    #[test]
    fn cards_are_found_by_name_once_each() {
        let d = DeckFile::default_deck();
        let cards = Cards(d.cards());
        let a = cards.find("+1", &[]).unwrap();
        let b = cards.find("+1", &[a]).unwrap();
        assert_ne!(a, b);
        assert!(cards.find("+1", &[a, b]).is_none());
        assert_eq!(
            cards.name(cards.find("Feather 7", &[]).unwrap()),
            "feather 7"
        );
        assert_eq!(cards.name(cards.find("x-1", &[]).unwrap()), "x-1");
    }
}
