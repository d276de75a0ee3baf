//! Deck sizes and compositions.
//!
//! The deck size is a run-time value: any `MIN_DECK_SIZE ..= MAX_DECK_SIZE` cards. The shuffle
//! argument (`bg`) takes its generators from lists every size shares (protocol/FAIR.md §9.2), so
//! nothing is compiled per size. The upper bound is not cryptographic: a deck and its proof of
//! 1,024 cards are ≈ 166 KB, already past what one Nostr event carries (≈ 280 cards fit in
//! 64 KiB of base64); it only turns absurd requests into a clear error.

use super::bg::argument::proof_len;
use super::FairError;

/// Fewest cards a deck can have (a shuffle of one card proves nothing and is refused).
pub const MIN_DECK_SIZE: usize = 2;
/// Most cards a deck can have.
pub const MAX_DECK_SIZE: usize = 1024;

/// The deck sizes the ziffle-based build compiled in (52 × 1..=4, the double-6/9/12 domino sets,
/// common card-game decks, small sizes). Every size in `MIN_DECK_SIZE..=MAX_DECK_SIZE` works
/// now; the list stays for callers that offer common sizes.
pub const SUPPORTED_SIZES: &[usize] = &[
    2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 28, 32, 36, 40, 48, 52, 54, 55, 78, 91, 104, 108, 156, 208,
];

/// Encoded size of a deck of `n` cards: two compressed points per card.
pub const fn deck_len(n: usize) -> usize {
    66 * n
}

/// Encoded size of a shuffle proof for `n` cards (Bayer–Groth with m = 1, ziffle's format).
pub const fn shuffle_proof_len(n: usize) -> usize {
    proof_len(n)
}

/// True if decks of `size` cards can be shuffled and opened.
pub fn is_supported(size: usize) -> bool {
    (MIN_DECK_SIZE..=MAX_DECK_SIZE).contains(&size)
}

/// `Ok` for a supported size, otherwise the error that names the allowed range.
pub(crate) fn check_size(size: usize) -> Result<(), FairError> {
    if is_supported(size) {
        Ok(())
    } else {
        Err(FairError::UnsupportedDeckSize(size))
    }
}

/// The size a custom deck of `cards` cards is played with: itself (at least two), or `None` past
/// [`MAX_DECK_SIZE`]. Kept for callers written when only a list of sizes was compiled in and a
/// custom deck had to be padded with blank cards; no padding is needed any more.
pub fn padded_size(cards: usize) -> Option<usize> {
    let n = cards.max(MIN_DECK_SIZE);
    is_supported(n).then_some(n)
}

/// A deck composition: how many cards, and what card index `i` (0..size) stands for.
///
/// Card indices are what [`super::open_card`] returns: the position of the card in the initial
/// (unshuffled) deck. The order within a composition is fixed here so every client agrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeckKind {
    /// `decks` × 52 French-suited cards (1..=19, so at most [`MAX_DECK_SIZE`]). Index `i` is
    /// card `i % 52` of copy `i / 52`.
    Standard {
        /// Number of 52-card packs shuffled together.
        decks: u8,
    },
    /// A double-`max_pips` domino set, `(m+1)(m+2)/2` tiles for `m` = `max_pips` in 1..=43
    /// (double-6: 28, double-9: 55, double-12: 91, double-15: 136), ordered by (low, high) with
    /// low ≤ high.
    Dominoes {
        /// Highest pip count on a tile end.
        max_pips: u8,
    },
    /// Any other deck of `cards` cards; the game names them.
    Custom {
        /// Number of cards.
        cards: u16,
    },
}

/// What a card index means in its composition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CardId {
    /// Card `card` (0..52, meaning defined by `cards.rs`) of pack `copy`.
    Standard {
        /// Which pack (0-based).
        copy: u8,
        /// Card within the pack, 0..52.
        card: u8,
    },
    /// Domino tile with ends `low` ≤ `high`.
    Domino {
        /// Smaller end.
        low: u8,
        /// Larger end.
        high: u8,
    },
    /// The `n`-th card of a custom deck.
    Custom(u16),
}

impl DeckKind {
    /// Number of cards; an error if the composition is invalid or outside
    /// [`MIN_DECK_SIZE`]..=[`MAX_DECK_SIZE`].
    pub fn size(&self) -> Result<usize, FairError> {
        let n = match *self {
            DeckKind::Standard { decks } if (1..=19).contains(&decks) => 52 * usize::from(decks),
            DeckKind::Standard { .. } => {
                return Err(FairError::BadComposition("1..=19 standard decks"))
            }
            DeckKind::Dominoes { max_pips } if (1..=43).contains(&max_pips) => {
                let m = usize::from(max_pips);
                (m + 1) * (m + 2) / 2
            }
            DeckKind::Dominoes { .. } => {
                return Err(FairError::BadComposition("double-1 to double-43 dominoes"))
            }
            DeckKind::Custom { cards } => usize::from(cards),
        };
        if is_supported(n) {
            Ok(n)
        } else {
            Err(FairError::UnsupportedDeckSize(n))
        }
    }

    /// The card behind index `index`, or `None` past the end.
    pub fn card(&self, index: usize) -> Option<CardId> {
        if index >= self.size().ok()? {
            return None;
        }
        Some(match *self {
            DeckKind::Standard { .. } => CardId::Standard {
                copy: u8::try_from(index / 52).ok()?,
                card: u8::try_from(index % 52).ok()?,
            },
            DeckKind::Dominoes { max_pips } => {
                let mut rest = index;
                let mut low = 0u8;
                loop {
                    let row = usize::from(max_pips - low) + 1;
                    if rest < row {
                        break CardId::Domino {
                            low,
                            high: low + u8::try_from(rest).ok()?,
                        };
                    }
                    rest -= row;
                    low += 1;
                }
            }
            DeckKind::Custom { .. } => CardId::Custom(u16::try_from(index).ok()?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_in_range_is_supported() {
        assert!((2..=1024).all(is_supported));
        assert!(SUPPORTED_SIZES.iter().all(|&n| is_supported(n)));
        assert!(!is_supported(0) && !is_supported(1) && !is_supported(1025));
        assert_eq!(check_size(1), Err(FairError::UnsupportedDeckSize(1)));
        assert_eq!(padded_size(53), Some(53));
        assert_eq!(padded_size(1), Some(2));
        assert_eq!(padded_size(1025), None);
        assert_eq!(shuffle_proof_len(52), 5547);
        assert_eq!(
            FairError::UnsupportedDeckSize(5000).to_string(),
            "deck size 5000 is outside 2..=1024 cards"
        );
    }

    #[test]
    fn compositions() {
        for (kind, n) in [
            (DeckKind::Standard { decks: 1 }, 52),
            (DeckKind::Standard { decks: 2 }, 104),
            (DeckKind::Standard { decks: 3 }, 156),
            (DeckKind::Standard { decks: 4 }, 208),
            (DeckKind::Dominoes { max_pips: 6 }, 28),
            (DeckKind::Dominoes { max_pips: 9 }, 55),
            (DeckKind::Dominoes { max_pips: 12 }, 91),
            (DeckKind::Dominoes { max_pips: 15 }, 136),
            (DeckKind::Dominoes { max_pips: 43 }, 990),
            (DeckKind::Standard { decks: 19 }, 988),
            (DeckKind::Custom { cards: 36 }, 36),
            (DeckKind::Custom { cards: 37 }, 37),
            (DeckKind::Custom { cards: 1024 }, 1024),
        ] {
            assert_eq!(kind.size().unwrap(), n);
            let cards: Vec<CardId> = (0..n).map(|i| kind.card(i).unwrap()).collect();
            let mut dedup = cards.clone();
            dedup.sort_by_key(|c| format!("{c:?}"));
            dedup.dedup();
            assert_eq!(dedup.len(), n, "{kind:?} has distinct cards");
            assert_eq!(kind.card(n), None);
        }
        assert_eq!(
            DeckKind::Dominoes { max_pips: 6 }.card(27),
            Some(CardId::Domino { low: 6, high: 6 })
        );
        assert_eq!(
            DeckKind::Dominoes { max_pips: 6 }.card(7),
            Some(CardId::Domino { low: 1, high: 1 })
        );
        assert_eq!(
            DeckKind::Standard { decks: 2 }.card(53),
            Some(CardId::Standard { copy: 1, card: 1 })
        );
        assert!(DeckKind::Standard { decks: 0 }.size().is_err());
        assert!(DeckKind::Standard { decks: 20 }.size().is_err());
        assert!(DeckKind::Dominoes { max_pips: 0 }.size().is_err());
        assert!(DeckKind::Dominoes { max_pips: 44 }.size().is_err());
        assert_eq!(
            DeckKind::Custom { cards: 1 }.size(),
            Err(FairError::UnsupportedDeckSize(1))
        );
        assert_eq!(
            DeckKind::Custom { cards: 1025 }.size(),
            Err(FairError::UnsupportedDeckSize(1025))
        );
    }
}
