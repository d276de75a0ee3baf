//! Deck compositions as data, and the card ids every layer agrees on.
//!
//! The fair-deck layer shuffles `N` opaque indices; it never knows what a card *is*. A
//! [`DeckSpec`] says what index `i` means: a playing card from one of `k` combined 52-card decks,
//! a domino tile, or an entry of a custom list. Games read faces through the spec, so a game and
//! the crypto layer only ever exchange a [`CardId`].

use serde::{Deserialize, Serialize};
use std::fmt;

/// Index of a card within its [`DeckSpec`], `0..spec.len()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CardId(pub u16);

/// Largest deck any game may ask for; the fair layer supports every size up to this.
pub const MAX_DECK_SIZE: usize = 208;

/// What the cards of a deck are.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DeckSpec {
    /// `decks` standard 52-card decks combined (no jokers), 1..=4.
    Standard { decks: u8 },
    /// A double-`max_pip` domino set: every unordered pair `(a, b)` with `0 <= a <= b <= max_pip`.
    Dominoes { max_pip: u8 },
    /// Any list of distinct-or-repeated named cards (roles, word cards, ...).
    Custom { names: Vec<String> },
    /// Some cards of `base`, in this order: a deck with known cards set aside before the shuffle
    /// (a domino round's starting double), or a face-up discard pile shuffled into a new draw
    /// pile. Cards keep their ids (and names) in `base`.
    Subset {
        base: Box<DeckSpec>,
        cards: Vec<CardId>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    #[error("a standard deck set must combine 1 to 4 decks, not {0}")]
    BadDeckCount(u8),
    #[error("a domino set must be double-6, double-9, double-12 or double-15, not double-{0}")]
    BadDominoSet(u8),
    #[error("a custom deck needs 2 to {MAX_DECK_SIZE} cards, not {0}")]
    BadCustomSize(usize),
    #[error("card id {id} is outside this {len}-card deck")]
    OutOfRange { id: u16, len: usize },
    #[error("'{0}' is not a card name (use rank then suit, e.g. AS, 10H, TD, QC)")]
    BadName(String),
    #[error(
        "a deck drawn from another needs 2 to {MAX_DECK_SIZE} of its cards, each once, not {0}"
    )]
    BadSubset(String),
    #[error("{0} is not in this deck")]
    NotInDeck(String),
}

/// A standard playing card: rank 1 (Ace) ..= 13 (King), suit 0..4, and which combined deck.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PlayingCard {
    pub rank: u8,
    pub suit: Suit,
    pub deck: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];
    pub fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }
    pub fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }
}

impl PlayingCard {
    /// Id of this card in a standard deck set: deck-major, then suit, then rank.
    pub fn id(self) -> CardId {
        CardId(self.deck as u16 * 52 + (self.suit as u16) * 13 + (self.rank as u16 - 1))
    }

    pub fn from_id(id: CardId) -> PlayingCard {
        let i = id.0;
        PlayingCard {
            rank: (i % 13) as u8 + 1,
            suit: Suit::ALL[((i % 52) / 13) as usize],
            deck: (i / 52) as u8,
        }
    }

    pub fn rank_str(self) -> &'static str {
        [
            "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
        ][self.rank as usize - 1]
    }

    /// Parses "AS", "10H", "TH", "qd" (deck 0); an optional "#k" suffix picks combined deck k.
    pub fn parse(s: &str) -> Result<PlayingCard, CardError> {
        let bad = || CardError::BadName(s.to_string());
        let (face, deck) = match s.split_once('#') {
            Some((f, d)) => (f, d.parse::<u8>().map_err(|_| bad())?),
            None => (s, 0),
        };
        let face = face.trim().to_ascii_uppercase();
        if face.len() < 2 {
            return Err(bad());
        }
        let (r, su) = face.split_at(face.len() - 1);
        let rank = match r {
            "A" | "1" => 1,
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            "T" => 10,
            n => n
                .parse::<u8>()
                .ok()
                .filter(|v| (2..=10).contains(v))
                .ok_or_else(bad)?,
        };
        let suit = match su {
            "C" => Suit::Clubs,
            "D" => Suit::Diamonds,
            "H" => Suit::Hearts,
            "S" => Suit::Spades,
            _ => return Err(bad()),
        };
        if deck >= 4 {
            return Err(bad());
        }
        Ok(PlayingCard { rank, suit, deck })
    }
}

impl fmt::Display for PlayingCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank_str(), self.suit.letter())?;
        if self.deck > 0 {
            write!(f, "#{}", self.deck)?;
        }
        Ok(())
    }
}

impl DeckSpec {
    pub fn standard(decks: u8) -> DeckSpec {
        DeckSpec::Standard { decks }
    }

    pub fn validate(&self) -> Result<(), CardError> {
        match self {
            DeckSpec::Subset { base, cards } => {
                base.validate()?;
                // One card cannot be shuffled (the shuffle argument needs two): a game with one
                // card left deals it from where it is instead of drawing a new deck of it.
                if cards.len() < 2 || cards.len() > MAX_DECK_SIZE {
                    return Err(CardError::BadSubset(format!("{} cards", cards.len())));
                }
                let mut seen = std::collections::BTreeSet::new();
                for c in cards {
                    base.check(*c)?;
                    if !seen.insert(*c) {
                        return Err(CardError::BadSubset(format!(
                            "{} listed twice",
                            base.name(*c)
                        )));
                    }
                }
                Ok(())
            }
            DeckSpec::Standard { decks } if !(1..=4).contains(decks) => {
                Err(CardError::BadDeckCount(*decks))
            }
            DeckSpec::Dominoes { max_pip } if ![6, 9, 12, 15].contains(max_pip) => {
                Err(CardError::BadDominoSet(*max_pip))
            }
            DeckSpec::Custom { names } if !(2..=MAX_DECK_SIZE).contains(&names.len()) => {
                Err(CardError::BadCustomSize(names.len()))
            }
            _ => Ok(()),
        }
    }

    /// Number of cards: 52·k, (m+1)(m+2)/2 tiles, or the custom list's length.
    pub fn len(&self) -> usize {
        match self {
            DeckSpec::Standard { decks } => 52 * *decks as usize,
            DeckSpec::Dominoes { max_pip } => {
                let m = *max_pip as usize;
                (m + 1) * (m + 2) / 2
            }
            DeckSpec::Custom { names } => names.len(),
            DeckSpec::Subset { cards, .. } => cards.len(),
        }
    }

    /// The card at index `index` of the unshuffled deck (`0..len()`): what a deck position opens
    /// to. The index itself for every composition but a subset, which maps to its base's ids.
    pub fn card_at(&self, index: usize) -> Option<CardId> {
        match self {
            DeckSpec::Subset { cards, .. } => cards.get(index).copied(),
            _ if index < self.len() => Some(CardId(index as u16)),
            _ => None,
        }
    }

    /// Every card of the deck in unshuffled order.
    pub fn cards(&self) -> Vec<CardId> {
        (0..self.len()).filter_map(|i| self.card_at(i)).collect()
    }

    /// The composition card ids are named in (a subset's base; the deck itself otherwise).
    pub fn base(&self) -> &DeckSpec {
        match self {
            DeckSpec::Subset { base, .. } => base.base(),
            _ => self,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn check(&self, id: CardId) -> Result<(), CardError> {
        if let DeckSpec::Subset { base, cards } = self {
            base.check(id)?;
            return if cards.contains(&id) {
                Ok(())
            } else {
                Err(CardError::NotInDeck(base.name(id)))
            };
        }
        if (id.0 as usize) < self.len() {
            Ok(())
        } else {
            Err(CardError::OutOfRange {
                id: id.0,
                len: self.len(),
            })
        }
    }

    /// The domino tile `(low, high)` for an id of a domino set, in lexicographic order.
    pub fn domino(&self, id: CardId) -> Option<(u8, u8)> {
        let DeckSpec::Dominoes { max_pip } = self.base() else {
            return None;
        };
        let mut k = id.0 as usize;
        for a in 0..=*max_pip {
            let row = (*max_pip - a) as usize + 1;
            if k < row {
                return Some((a, a + k as u8));
            }
            k -= row;
        }
        None
    }

    /// Human name of a card of this deck.
    pub fn name(&self, id: CardId) -> String {
        match self {
            DeckSpec::Subset { base, .. } => base.name(id),
            DeckSpec::Standard { .. } => PlayingCard::from_id(id).to_string(),
            DeckSpec::Dominoes { .. } => match self.domino(id) {
                Some((a, b)) => format!("[{a}|{b}]"),
                None => format!("#{}", id.0),
            },
            DeckSpec::Custom { names } => names
                .get(id.0 as usize)
                .cloned()
                .unwrap_or_else(|| format!("#{}", id.0)),
        }
    }

    /// Parses a card name of this deck back to its id (standard decks only use face names).
    pub fn parse(&self, s: &str) -> Result<CardId, CardError> {
        let id = match self {
            DeckSpec::Subset { base, .. } => base.parse(s)?,
            DeckSpec::Standard { .. } => PlayingCard::parse(s)?.id(),
            DeckSpec::Dominoes { .. } | DeckSpec::Custom { .. } => (0..self.len() as u16)
                .map(CardId)
                .find(|&id| self.name(id).eq_ignore_ascii_case(s.trim()))
                .ok_or_else(|| CardError::BadName(s.to_string()))?,
        };
        self.check(id)?;
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_ids_round_trip() {
        for decks in 1..=4u8 {
            let spec = DeckSpec::standard(decks);
            assert_eq!(spec.len(), 52 * decks as usize);
            for i in 0..spec.len() as u16 {
                let c = PlayingCard::from_id(CardId(i));
                assert_eq!(c.id(), CardId(i));
                assert_eq!(spec.parse(&c.to_string()).unwrap(), CardId(i));
            }
        }
    }

    #[test]
    fn parses_common_spellings() {
        let ten = PlayingCard::parse("10h").unwrap();
        assert_eq!(ten, PlayingCard::parse("TH").unwrap());
        assert_eq!(ten.rank, 10);
        assert_eq!(PlayingCard::parse("AS").unwrap().rank, 1);
        assert_eq!(PlayingCard::parse("KD#2").unwrap().deck, 2);
        for bad in ["", "X", "1X", "11H", "ZS", "AS#9", "AS#x"] {
            assert!(PlayingCard::parse(bad).is_err(), "{bad}");
        }
        assert!(DeckSpec::standard(1).parse("AS#1").is_err());
    }

    #[test]
    fn domino_sets_have_the_right_tiles() {
        for (m, n) in [(6u8, 28usize), (9, 55), (12, 91)] {
            let spec = DeckSpec::Dominoes { max_pip: m };
            assert_eq!(spec.len(), n);
            let mut seen = std::collections::BTreeSet::new();
            for i in 0..n as u16 {
                let (a, b) = spec.domino(CardId(i)).unwrap();
                assert!(a <= b && b <= m);
                assert!(seen.insert((a, b)));
                assert_eq!(spec.parse(&spec.name(CardId(i))).unwrap(), CardId(i));
            }
        }
        assert!(DeckSpec::Dominoes { max_pip: 7 }.validate().is_err());
        assert_eq!(DeckSpec::Dominoes { max_pip: 15 }.len(), 136);
    }

    #[test]
    fn a_subset_keeps_its_base_ids_and_names() {
        let base = DeckSpec::Dominoes { max_pip: 6 };
        let double_six = base.parse("[6|6]").unwrap();
        let rest: Vec<CardId> = base
            .cards()
            .into_iter()
            .filter(|c| *c != double_six)
            .collect();
        let deck = DeckSpec::Subset {
            base: Box::new(base.clone()),
            cards: rest.clone(),
        };
        deck.validate().unwrap();
        assert_eq!(deck.len(), 27);
        assert_eq!(deck.cards(), rest);
        assert_eq!(deck.card_at(0), Some(rest[0]));
        assert_eq!(deck.card_at(27), None);
        assert!(
            deck.check(double_six).is_err(),
            "the set-aside tile is not in it"
        );
        assert_eq!(deck.domino(rest[3]), base.domino(rest[3]));
        assert_eq!(deck.name(rest[3]), base.name(rest[3]));
        let twice = DeckSpec::Subset {
            base: Box::new(base),
            cards: vec![rest[0], rest[0]],
        };
        assert!(twice.validate().unwrap_err().to_string().contains("twice"));
        // One card cannot be shuffled: refused here, not by an honest shuffler at the table.
        let one = DeckSpec::Subset {
            base: Box::new(DeckSpec::standard(1)),
            cards: vec![rest[0]],
        };
        assert!(one.validate().unwrap_err().to_string().contains("2 to"));
    }

    #[test]
    fn validation_names_the_problem() {
        assert_eq!(
            DeckSpec::standard(5).validate(),
            Err(CardError::BadDeckCount(5))
        );
        let big = DeckSpec::Custom {
            names: vec!["x".into(); 209],
        };
        assert_eq!(big.validate(), Err(CardError::BadCustomSize(209)));
    }
}
