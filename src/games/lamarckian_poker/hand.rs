//! The poker ranking of the rule book, on hands of any size: the best five cards decide.
//! Rules: `protocol/rules/lamarckian-poker.md` § Showdown.

use crate::cards::{CardId, PlayingCard, Suit};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// The kinds of hand, worst first (five of a kind cannot occur with one deck).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    HighCard,
    OnePair,
    TwoPair,
    ThreeOfAKind,
    Straight,
    Flush,
    FullHouse,
    FourOfAKind,
    StraightFlush,
}

impl Kind {
    pub fn words(self) -> &'static str {
        match self {
            Kind::HighCard => "high card",
            Kind::OnePair => "one pair",
            Kind::TwoPair => "two pair",
            Kind::ThreeOfAKind => "three of a kind",
            Kind::Straight => "a straight",
            Kind::Flush => "a flush",
            Kind::FullHouse => "a full house",
            Kind::FourOfAKind => "four of a kind",
            Kind::StraightFlush => "a straight flush",
        }
    }
}

/// A hand's value: its kind, then the ranks that decide between hands of that kind, high to low
/// (Ace 14; a 5-high straight counts 5). Hands compare by `(kind, ranks)`; a shorter list loses
/// to a longer one with the same start, which is a missing kicker losing to any kicker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ranking {
    pub kind: Kind,
    pub ranks: Vec<u8>,
    /// The five (or fewer) cards that make it.
    pub cards: Vec<CardId>,
}

impl Ranking {
    pub fn beats(&self, other: &Ranking) -> Ordering {
        (self.kind, &self.ranks).cmp(&(other.kind, &other.ranks))
    }

    /// "a full house, Q Q Q 3 3"; a royal flush is named as such.
    pub fn words(&self) -> String {
        let name = if self.kind == Kind::StraightFlush && self.ranks.first() == Some(&14) {
            "a royal flush"
        } else {
            self.kind.words()
        };
        let cards: Vec<String> = self.cards.iter().map(|c| card_name(*c)).collect();
        if cards.is_empty() {
            name.to_string()
        } else {
            format!("{name} ({})", cards.join(" "))
        }
    }
}

pub use crate::games::card_hands::card_name;

/// Ace high.
pub fn value(c: CardId) -> u8 {
    let r = PlayingCard::from_id(c).rank;
    if r == 1 {
        14
    } else {
        r
    }
}

pub fn suit(c: CardId) -> Suit {
    PlayingCard::from_id(c).suit
}

/// The order marks are played in, highest first: rank, then suit.
pub fn mark_order(c: CardId) -> (u8, Suit) {
    (value(c), suit(c))
}

/// The highest straight among `cards` (Ace also low), as the cards making it, top first.
fn straight(cards: &[CardId]) -> Option<(u8, Vec<CardId>)> {
    let of_value = |v: u8| {
        cards
            .iter()
            .copied()
            .filter(|c| value(*c) == if v == 1 { 14 } else { v })
            .max_by_key(|c| mark_order(*c))
    };
    (5..=14u8).rev().find_map(|top| {
        let run: Option<Vec<CardId>> = (0..5).map(|k| of_value(top - k)).collect();
        run.map(|r| (top, r))
    })
}

/// Cards by value, high to low (suit only orders the listing).
fn by_value(cards: &[CardId]) -> Vec<CardId> {
    let mut v = cards.to_vec();
    v.sort_by_key(|c| std::cmp::Reverse(mark_order(*c)));
    v
}

/// The best five-card (or smaller) hand among `cards`.
pub fn best(cards: &[CardId]) -> Ranking {
    let sorted = by_value(cards);
    // Groups of equal value, biggest group first, then highest value.
    let mut groups: Vec<(u8, Vec<CardId>)> = Vec::new();
    for c in &sorted {
        match groups.iter_mut().find(|(v, _)| *v == value(*c)) {
            Some((_, g)) => g.push(*c),
            None => groups.push((value(*c), vec![*c])),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse((g.1.len(), g.0)));

    let mut flushes: Vec<Vec<CardId>> = Suit::ALL
        .iter()
        .map(|s| {
            sorted
                .iter()
                .copied()
                .filter(|c| suit(*c) == *s)
                .collect::<Vec<_>>()
        })
        .filter(|v| v.len() >= 5)
        .collect();

    let straight_flush = flushes
        .iter()
        .filter_map(|f| straight(f))
        .max_by_key(|(top, _)| *top);
    if let Some((top, run)) = straight_flush {
        return Ranking {
            kind: Kind::StraightFlush,
            ranks: vec![top],
            cards: run,
        };
    }

    // Picks `n` highest cards not already used, for kickers.
    let kickers = |used: &[CardId], n: usize| -> Vec<CardId> {
        sorted
            .iter()
            .copied()
            .filter(|c| !used.contains(c))
            .take(n)
            .collect()
    };
    let ranking = |kind: Kind, made: Vec<CardId>, n_kickers: usize, lead: Vec<u8>| {
        let extra = kickers(&made, n_kickers);
        let mut ranks = lead;
        ranks.extend(extra.iter().map(|c| value(*c)));
        let mut cards = made;
        cards.extend(extra);
        Ranking { kind, ranks, cards }
    };

    let size = |i: usize| groups.get(i).map_or(0, |g| g.1.len());
    if size(0) == 4 {
        let (v, g) = groups[0].clone();
        return ranking(Kind::FourOfAKind, g, 1, vec![v]);
    }
    if size(0) == 3 && size(1) >= 2 {
        let (t, triple) = groups[0].clone();
        // The best pair may be part of a second triple.
        let (p, pair) = groups[1..]
            .iter()
            .filter(|g| g.1.len() >= 2)
            .max_by_key(|g| g.0)
            .cloned()
            .expect("a second group of two");
        let mut made = triple;
        made.extend(pair.into_iter().take(2));
        return ranking(Kind::FullHouse, made, 0, vec![t, p]);
    }
    if !flushes.is_empty() {
        for f in &mut flushes {
            f.truncate(5);
        }
        let f = flushes
            .into_iter()
            .max_by(|a, b| {
                let va: Vec<u8> = a.iter().map(|c| value(*c)).collect();
                let vb: Vec<u8> = b.iter().map(|c| value(*c)).collect();
                va.cmp(&vb)
            })
            .expect("a flush");
        let ranks = f.iter().map(|c| value(*c)).collect();
        return Ranking {
            kind: Kind::Flush,
            ranks,
            cards: f,
        };
    }
    if let Some((top, run)) = straight(&sorted) {
        return Ranking {
            kind: Kind::Straight,
            ranks: vec![top],
            cards: run,
        };
    }
    if size(0) == 3 {
        let (v, g) = groups[0].clone();
        return ranking(Kind::ThreeOfAKind, g, 2, vec![v]);
    }
    if size(0) == 2 && size(1) == 2 {
        let (a, ga) = groups[0].clone();
        let (b, gb) = groups[1].clone();
        let mut made = ga;
        made.extend(gb);
        return ranking(Kind::TwoPair, made, 1, vec![a, b]);
    }
    if size(0) == 2 {
        let (v, g) = groups[0].clone();
        return ranking(Kind::OnePair, g, 3, vec![v]);
    }
    ranking(Kind::HighCard, Vec::new(), 5, Vec::new())
}
