//! A hand's value, as the seed defines it (rules spec §5): pick one symbol; take one card of it,
//! or several of it added or subtracted; then combine the result with **every** non-symbol card
//! in the hand, in the order the player chooses. No symbol card: the value is 0.

use super::deck::{Card, Cards};
use crate::cards::CardId;
use serde::{Deserialize, Serialize};

/// How a player makes its value from its hand: hand slots (0-based, in the order the hand is
/// shown) of the symbol cards added and subtracted, and the non-symbol cards in the order used.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Declaration {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub: Vec<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ops: Vec<u8>,
}

/// The value of `decl` over `hand` (card ids, slot order), or why it is not allowed.
pub fn value(cards: &Cards, hand: &[CardId], decl: &Declaration) -> Result<i64, String> {
    let card = |slot: u8| -> Result<&Card, String> {
        hand.get(usize::from(slot))
            .and_then(|c| cards.get(*c))
            .ok_or_else(|| format!("there is no card {} in the hand", slot + 1))
    };
    let mut used: Vec<u8> = decl
        .add
        .iter()
        .chain(&decl.sub)
        .chain(&decl.ops)
        .copied()
        .collect();
    used.sort_unstable();
    if used.windows(2).any(|w| w[0] == w[1]) {
        return Err("a card is used twice".into());
    }
    let symbols: Vec<(u8, &str, i64)> = (0..hand.len() as u8)
        .filter_map(|s| match card(s) {
            Ok(Card::Symbol { symbol, value }) => Some((s, symbol.as_str(), *value)),
            _ => None,
        })
        .collect();
    let plain: Vec<u8> = (0..hand.len() as u8)
        .filter(|s| matches!(card(*s), Ok(Card::Plain { .. })))
        .collect();
    if symbols.is_empty() {
        // §5: without a symbol card the value is 0, whatever else the hand holds.
        if !used.is_empty() {
            return Err("with no symbol card the value is 0: nothing is combined".into());
        }
        return Ok(0);
    }
    if decl.add.is_empty() {
        return Err("add at least one symbol card".into());
    }
    let mut chosen: Option<&str> = None;
    let mut base = 0i64;
    for (slot, sign) in decl
        .add
        .iter()
        .map(|s| (*s, 1))
        .chain(decl.sub.iter().map(|s| (*s, -1)))
    {
        match card(slot)? {
            Card::Symbol { symbol, value } => {
                if chosen.is_some_and(|c| c != symbol) {
                    return Err("cards of different symbols cannot be used together".into());
                }
                chosen = Some(symbol);
                base = base.saturating_add(sign * value);
            }
            Card::Plain { .. } => {
                return Err(format!(
                    "card {} is a non-symbol card: it is combined, not added",
                    slot + 1
                ))
            }
        }
    }
    let mut ops = decl.ops.clone();
    ops.sort_unstable();
    if ops != plain {
        return Err("every non-symbol card in the hand must be used, each once".into());
    }
    let mut v = base;
    for slot in &decl.ops {
        if let Card::Plain { op, value } = card(*slot)? {
            v = op.apply(v, *value);
        }
    }
    Ok(v)
}

/// Every declaration the hand allows, ascending (the legal moves): each non-empty set of cards
/// of one symbol with each sign pattern that adds at least one, times each order of the
/// non-symbol cards.
pub fn declarations(cards: &Cards, hand: &[CardId]) -> Vec<Declaration> {
    let of = |s: usize| cards.get(hand[s]);
    let symbols: Vec<usize> = (0..hand.len())
        .filter(|s| matches!(of(*s), Some(Card::Symbol { .. })))
        .collect();
    let plain: Vec<u8> = (0..hand.len())
        .filter(|s| matches!(of(*s), Some(Card::Plain { .. })))
        .map(|s| s as u8)
        .collect();
    if symbols.is_empty() {
        return vec![Declaration::default()];
    }
    let mut out = Vec::new();
    let orders = permutations(&plain);
    // Each card of the symbols: left out (0), added (1) or subtracted (2).
    let n = symbols.len() as u32;
    for code in 0..3u32.pow(n) {
        let mut add = Vec::new();
        let mut sub = Vec::new();
        let mut c = code;
        for s in &symbols {
            match c % 3 {
                1 => add.push(*s as u8),
                2 => sub.push(*s as u8),
                _ => {}
            }
            c /= 3;
        }
        if add.is_empty() {
            continue;
        }
        let sym = |v: &[u8]| -> Vec<String> {
            v.iter()
                .filter_map(|s| of(usize::from(*s)).and_then(Card::symbol))
                .map(str::to_string)
                .collect()
        };
        let mut all = sym(&add);
        all.extend(sym(&sub));
        all.dedup();
        if all.len() != 1 {
            continue;
        }
        for o in &orders {
            out.push(Declaration {
                add: add.clone(),
                sub: sub.clone(),
                ops: o.clone(),
            });
        }
    }
    out.sort();
    out.dedup();
    out
}

fn permutations(items: &[u8]) -> Vec<Vec<u8>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// The best value the hand can make, with the first declaration that makes it.
pub fn best(cards: &Cards, hand: &[CardId]) -> (i64, Declaration) {
    declarations(cards, hand)
        .into_iter()
        .filter_map(|d| value(cards, hand, &d).ok().map(|v| (v, d)))
        .fold(None, |acc: Option<(i64, Declaration)>, (v, d)| match acc {
            Some((bv, bd)) if bv >= v => Some((bv, bd)),
            _ => Some((v, d)),
        })
        .unwrap_or((0, Declaration::default()))
}

/// The declaration in words over `hand`: "sun 7 - sun 2, then x2 and +3 = 13".
pub fn words(cards: &Cards, hand: &[CardId], decl: &Declaration) -> String {
    let name = |s: &u8| {
        hand.get(usize::from(*s))
            .map(|c| cards.name(*c))
            .unwrap_or_else(|| "?".into())
    };
    if decl.add.is_empty() {
        return "no symbol card: 0".into();
    }
    let mut s = decl.add.iter().map(name).collect::<Vec<_>>().join(" + ");
    for x in &decl.sub {
        s.push_str(&format!(" - {}", name(x)));
    }
    if !decl.ops.is_empty() {
        s.push_str(", then ");
        s.push_str(&decl.ops.iter().map(name).collect::<Vec<_>>().join(" then "));
    }
    match value(cards, hand, decl) {
        Ok(v) => format!("{s} = {v}"),
        Err(e) => format!("{s} ({e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::art_of_facts::deck::DeckFile;

    fn hand(cards: &Cards, names: &[&str]) -> Vec<CardId> {
        let mut taken = Vec::new();
        for n in names {
            let c = cards.find(n, &taken).unwrap_or_else(|| panic!("{n}"));
            taken.push(c);
        }
        taken
    }

    fn decl(add: &[u8], sub: &[u8], ops: &[u8]) -> Declaration {
        Declaration {
            add: add.to_vec(),
            sub: sub.to_vec(),
            ops: ops.to_vec(),
        }
    }

    #[test]
    fn the_seed_s_value_rules() {
        let cards = Cards(DeckFile::default_deck().cards());
        // Same-symbol cards add up, or one is subtracted from another.
        let h = hand(&cards, &["sun 7", "sun 3", "moon 9"]);
        assert_eq!(value(&cards, &h, &decl(&[0, 1], &[], &[])), Ok(10));
        assert_eq!(value(&cards, &h, &decl(&[0], &[1], &[])), Ok(4));
        assert_eq!(value(&cards, &h, &decl(&[1], &[0], &[])), Ok(-4));
        assert_eq!(value(&cards, &h, &decl(&[2], &[], &[])), Ok(9));
        assert!(value(&cards, &h, &decl(&[0, 2], &[], &[]))
            .unwrap_err()
            .contains("different symbols"));
        assert_eq!(best(&cards, &h).0, 10);
        // Every non-symbol card is used, in the order the player picks.
        let h = hand(&cards, &["wave 5", "+3", "x2"]);
        assert_eq!(value(&cards, &h, &decl(&[0], &[], &[1, 2])), Ok(16));
        assert_eq!(value(&cards, &h, &decl(&[0], &[], &[2, 1])), Ok(13));
        assert!(value(&cards, &h, &decl(&[0], &[], &[1]))
            .unwrap_err()
            .contains("every non-symbol card"));
        assert_eq!(best(&cards, &h).0, 16);
        // No symbol card: 0.
        let h = hand(&cards, &["+3", "x2", "-1"]);
        assert_eq!(declarations(&cards, &h), vec![Declaration::default()]);
        assert_eq!(value(&cards, &h, &Declaration::default()), Ok(0));
        assert!(value(&cards, &h, &decl(&[], &[], &[0, 1, 2])).is_err());
        // A symbol card must be chosen when there is one.
        let h = hand(&cards, &["feather 2", "x-1", "-4"]);
        assert!(value(&cards, &h, &Declaration::default()).is_err());
        // (2 - 4) x -1 = 2 beats 2 x -1 - 4 = -6.
        assert_eq!(best(&cards, &h).0, 2);
    }

    #[test]
    fn every_listed_declaration_is_legal_and_distinct() {
        let cards = Cards(DeckFile::default_deck().cards());
        let h = hand(&cards, &["moon 4", "moon 8", "moon 1"]);
        let all = declarations(&cards, &h);
        // 3^3 sign patterns, minus those adding nothing (2^3 = 8): 19.
        assert_eq!(all.len(), 19);
        for d in &all {
            value(&cards, &h, d).unwrap();
        }
        assert_eq!(best(&cards, &h).0, 13);
        assert!(all.windows(2).all(|w| w[0] < w[1]));
    }
}
