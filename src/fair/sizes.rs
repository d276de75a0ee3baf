//! Deck compositions and the dispatch from a run-time deck size to ziffle's const-generic
//! `Shuffle<N>`.
//!
//! # Deck sizes
//!
//! Every supported size is one monomorphisation of ziffle's prover and verifier. Measured on
//! the 2-core build machine, each costs ≈2 s of release compile time (≈3 s CPU), and a dispatch
//! over all of 2..=208 took 10 min 15 s to compile: too slow for a crate that several people
//! rebuild all day (and `cargo test` compiles the library a second time). So the sizes are a
//! curated list ([`SUPPORTED_SIZES`], in `sizes_list.rs`): 52 × 1..=4 (52, 104, 156, 208), the
//! domino sets (28, 55, 91), the usual card-game decks (24, 32, 36, 40, 48, 54, 78, 108) and
//! small sizes for custom games and tests (2–20). A custom deck of another size either pads
//! its composition with named blank cards up to [`padded_size`] (a rule-level choice the game
//! makes visibly; blank cards are ordinary cards to this module), or adds its size to the list
//! (one line, ≈2 s of compile time). Void cards silently skipped at deal time were rejected: a
//! player dealt a void would have to prove it publicly, costing extra relay hops mid-deal.
//!
//! ziffle fixes the deck size at compile time. Everything size-dependent goes through one
//! object-safe trait, [`SizeOps`], implemented once per supported `N` and looked up at run time;
//! the rest of the module is non-generic. Each `Ops<N>` owns the expensive
//! `Shuffle::<N>::default()` (Pedersen commitment key and card points, ≈6.6 ms at 52 cards), built
//! on first use and cached for the life of the process.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use rand_chacha::ChaCha20Rng;
use ziffle::{
    AggregatePublicKey, AggregateRevealToken, MaskedCard, MaskedDeck, Shuffle, ShuffleProof,
    Verified,
};

use super::codec::{decode_exact, encode};
use super::FairError;

/// A size-specific ziffle value (`MaskedDeck<N>`, `ShuffleProof<N>`, `Verified<MaskedDeck<N>>`)
/// with its `N` erased. Only the `Ops<N>` of the matching size ever downcasts it.
pub(crate) type Erased = Arc<dyn Any + Send + Sync>;

/// Encoded size of a deck of `n` cards: two compressed points per card.
pub const fn deck_len(n: usize) -> usize {
    66 * n
}

/// Encoded size of a shuffle proof for `n` cards (ziffle's Bayer–Groth argument with m = 1).
pub const fn shuffle_proof_len(n: usize) -> usize {
    555 + 96 * n
}

/// Everything that depends on the deck size, behind a vtable.
pub(crate) trait SizeOps: Send + Sync {
    fn decode_deck(&self, bytes: &[u8]) -> Result<Erased, FairError>;
    fn decode_proof(&self, bytes: &[u8]) -> Result<Erased, FairError>;
    /// Shuffle `prev` (or the initial deck) and prove it.
    fn shuffle(
        &self,
        rng: &mut ChaCha20Rng,
        apk: AggregatePublicKey,
        prev: Option<&Erased>,
        ctx: &[u8],
    ) -> Result<Shuffled, FairError>;
    /// `Verified` wrapper around a decoded `MaskedDeck<N>` whose proof is checked elsewhere
    /// (see [`assume_verified`]).
    fn assume_verified(&self, deck: &Erased) -> Result<Erased, FairError>;
    /// Verify one step; `Ok(None)` means the proof was rejected.
    fn verify(
        &self,
        apk: AggregatePublicKey,
        prev: Option<&Erased>,
        next: &Erased,
        proof: &Erased,
        ctx: &[u8],
    ) -> Result<Option<Erased>, FairError>;
    /// The masked card at `position` of a verified deck.
    fn card(&self, verified: &Erased, position: usize) -> Result<Option<MaskedCard>, FairError>;
    /// Card index 0..N behind a fully unmasked point, if it is one of ours.
    fn reveal(&self, art: AggregateRevealToken, card: MaskedCard) -> Option<usize>;
}

struct Ops<const N: usize> {
    shuffle: Shuffle<N>,
}

/// The output of a shuffle step: the published deck and proof, and the shuffler's own verified
/// view of the deck.
pub(crate) struct Shuffled {
    pub(crate) deck: Erased,
    pub(crate) deck_bytes: Vec<u8>,
    pub(crate) proof: Erased,
    pub(crate) proof_bytes: Vec<u8>,
    pub(crate) verified: Erased,
}

/// Wrap a value in ziffle's `Verified` without running ziffle's check. Used only where the
/// check has in substance happened: a deck ziffle's own prover just verified, a reveal token this
/// seat computed with its own key, and the previous decks of a chain whose every step
/// [`super::verify_chain_parallel`] verifies before releasing any result.
///
/// Soundness: `ziffle::Verified<T>` is `pub struct Verified<T>(T)`, one field. The inline const
/// assertion checks (per monomorphisation, at compile time) that it is exactly as large as `T`;
/// a one-field struct whose size equals its field's leaves no room for padding or an offset,
/// so both types have the same bytes and validity, and `transmute_copy` is a plain copy.
pub(crate) fn assume_verified<T: Copy + 'static>(value: T) -> Verified<T> {
    const {
        assert!(std::mem::size_of::<T>() == std::mem::size_of::<Verified<T>>());
    }
    // SAFETY: see above; `T: Copy`, so duplicating its bytes is sound.
    unsafe { std::mem::transmute_copy::<T, Verified<T>>(&value) }
}

/// A downcast that cannot fail unless this module mixes sizes up; reported, not panicked.
fn cast<T: 'static>(value: &Erased) -> Result<&T, FairError> {
    value
        .downcast_ref::<T>()
        .ok_or(FairError::ContextMismatch("deck size mix-up"))
}

impl<const N: usize> SizeOps for Ops<N> {
    fn decode_deck(&self, bytes: &[u8]) -> Result<Erased, FairError> {
        let deck: MaskedDeck<N> = decode_exact("deck", bytes, deck_len(N))?;
        Ok(Arc::new(deck))
    }

    fn decode_proof(&self, bytes: &[u8]) -> Result<Erased, FairError> {
        let proof: ShuffleProof<N> = decode_exact("shuffle proof", bytes, shuffle_proof_len(N))?;
        Ok(Arc::new(proof))
    }

    fn shuffle(
        &self,
        rng: &mut ChaCha20Rng,
        apk: AggregatePublicKey,
        prev: Option<&Erased>,
        ctx: &[u8],
    ) -> Result<Shuffled, FairError> {
        let (deck, proof) = match prev {
            None => self.shuffle.shuffle_initial_deck(rng, apk, ctx),
            Some(prev) => {
                let prev = cast::<Verified<MaskedDeck<N>>>(prev)?;
                self.shuffle.shuffle_deck(rng, apk, prev, ctx)
            }
        };
        // ziffle's `shuffle_remask_prove` verifies the proof it just made (and panics if it
        // does not hold) before returning the deck, so the deck *is* verified; it just does not
        // hand out the `Verified` wrapper. Re-verifying would cost the shuffler ≈45 ms at 52
        // cards for nothing.
        Ok(Shuffled {
            deck_bytes: encode(&deck),
            proof_bytes: encode(&proof),
            verified: Arc::new(assume_verified(deck)),
            deck: Arc::new(deck),
            proof: Arc::new(proof),
        })
    }

    fn assume_verified(&self, deck: &Erased) -> Result<Erased, FairError> {
        Ok(Arc::new(assume_verified(*cast::<MaskedDeck<N>>(deck)?)))
    }

    fn verify(
        &self,
        apk: AggregatePublicKey,
        prev: Option<&Erased>,
        next: &Erased,
        proof: &Erased,
        ctx: &[u8],
    ) -> Result<Option<Erased>, FairError> {
        let next = *cast::<MaskedDeck<N>>(next)?;
        let proof = *cast::<ShuffleProof<N>>(proof)?;
        let verified = match prev {
            None => self.shuffle.verify_initial_shuffle(apk, next, proof, ctx),
            Some(prev) => {
                let prev = cast::<Verified<MaskedDeck<N>>>(prev)?;
                self.shuffle.verify_shuffle(apk, prev, next, proof, ctx)
            }
        };
        Ok(verified.map(|v| Arc::new(v) as Erased))
    }

    fn card(&self, verified: &Erased, position: usize) -> Result<Option<MaskedCard>, FairError> {
        Ok(cast::<Verified<MaskedDeck<N>>>(verified)?.get(position))
    }

    fn reveal(&self, art: AggregateRevealToken, card: MaskedCard) -> Option<usize> {
        self.shuffle.reveal_card(art, card)
    }
}

/// Expands to `SUPPORTED_SIZES` and to `ops(size)`, a `match` with one cached `Ops<N>` per size.
macro_rules! supported_sizes {
    ($($n:literal)*) => {
        /// Deck sizes with a compiled ziffle instantiation, ascending.
        pub const SUPPORTED_SIZES: &[usize] = &[$($n),*];

        /// The size-specific operations for `size`, built (≈0.13 ms per card) on first use.
        pub(crate) fn ops(size: usize) -> Result<&'static dyn SizeOps, FairError> {
            match size {
                $($n => {
                    static CELL: OnceLock<Box<Ops<$n>>> = OnceLock::new();
                    Ok(&**CELL.get_or_init(|| Box::new(Ops::<$n> { shuffle: Shuffle::default() })))
                })*
                _ => Err(FairError::UnsupportedDeckSize(size)),
            }
        }
    };
}

include!("sizes_list.rs");

/// True if `size` has a compiled instantiation.
pub fn is_supported(size: usize) -> bool {
    SUPPORTED_SIZES.binary_search(&size).is_ok()
}

/// The smallest supported size that can hold `cards` cards (for padding a custom deck).
pub fn padded_size(cards: usize) -> Option<usize> {
    SUPPORTED_SIZES.iter().copied().find(|&n| n >= cards)
}

/// A deck composition: how many cards, and what card index `i` (0..size) stands for.
///
/// Card indices are what [`super::open_card`] returns: the position of the card in the initial
/// (unshuffled) deck. The order within a composition is fixed here so every client agrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeckKind {
    /// `decks` × 52 French-suited cards (1..=4). Index `i` is card `i % 52` of copy `i / 52`.
    Standard {
        /// Number of 52-card packs shuffled together.
        decks: u8,
    },
    /// A double-`max_pips` domino set (6, 9 or 12: 28, 55 or 91 tiles), ordered by
    /// (low, high) with low ≤ high.
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
    /// Number of cards; an error if the composition is invalid or its size is not compiled in.
    pub fn size(&self) -> Result<usize, FairError> {
        let n = match *self {
            DeckKind::Standard { decks } if (1..=4).contains(&decks) => 52 * usize::from(decks),
            DeckKind::Standard { .. } => {
                return Err(FairError::BadComposition("1..=4 standard decks"))
            }
            DeckKind::Dominoes { max_pips } if matches!(max_pips, 6 | 9 | 12) => {
                let m = usize::from(max_pips);
                (m + 1) * (m + 2) / 2
            }
            DeckKind::Dominoes { .. } => {
                return Err(FairError::BadComposition("double-6, -9 or -12 dominoes"))
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
    fn required_sizes_are_compiled_in() {
        for n in [2, 3, 4, 8, 10, 28, 52, 55, 91, 104, 156, 208] {
            assert!(is_supported(n), "{n}");
        }
        assert!(SUPPORTED_SIZES.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(SUPPORTED_SIZES[0], 2, "ziffle panics for N < 2");
        assert!(ops(1).is_err() && ops(0).is_err() && ops(209).is_err());
        assert_eq!(padded_size(53), Some(54));
        assert_eq!(padded_size(209), None);
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
            (DeckKind::Custom { cards: 36 }, 36),
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
        assert!(DeckKind::Standard { decks: 5 }.size().is_err());
        assert!(DeckKind::Dominoes { max_pips: 7 }.size().is_err());
        assert_eq!(
            DeckKind::Custom { cards: 37 }.size(),
            Err(FairError::UnsupportedDeckSize(37))
        );
    }
}
