//! The one error type of the `fair` module.

use thiserror::Error;

/// What went wrong, and where the culprit is known, who (the seat index).
///
/// Variants that carry `seat` are attributable: the table layer may turn them into a forfeit
/// for that seat. The others are local misuse or input the caller itself produced.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FairError {
    /// The deck size is outside `MIN_DECK_SIZE..=MAX_DECK_SIZE`.
    #[error("deck size {0} is outside 2..=1024 cards")]
    UnsupportedDeckSize(usize),
    /// A deck composition that makes no sense (zero decks, odd domino set, ...).
    #[error("invalid deck composition: {0}")]
    BadComposition(&'static str),
    /// An encoding had the wrong length (strict decoding: exact length, nothing trailing).
    #[error("{what}: expected {expected} bytes, got {got}")]
    BadLength {
        /// The kind of object being decoded.
        what: &'static str,
        /// The only accepted length.
        expected: usize,
        /// The length received.
        got: usize,
    },
    /// An encoding had the right length but did not decode canonically (point off the curve,
    /// scalar out of range, stray flag bits, bad base64).
    #[error("{what}: malformed encoding")]
    Malformed {
        /// The kind of object being decoded.
        what: &'static str,
    },
    /// The context passed does not fit the operation (wrong step, seat or hand).
    #[error("context mismatch: {0}")]
    ContextMismatch(&'static str),
    /// A seat's key-ownership proof (Schnorr) failed for its context.
    #[error("seat {seat}: key ownership proof rejected")]
    BadKeyProof {
        /// The seat whose key share is invalid.
        seat: u16,
    },
    /// A seat published the identity point as its key share.
    #[error("seat {seat}: identity point as key share")]
    IdentityKey {
        /// The offending seat.
        seat: u16,
    },
    /// Two seats published the same key share (or the same Nostr identity).
    #[error("seats {first} and {second} share a key or identity")]
    DuplicateKey {
        /// The earlier seat.
        first: u16,
        /// The later seat (the one treated as the culprit).
        second: u16,
    },
    /// The key set is not exactly the seats `0..n` in order for one table and hand.
    #[error("key set: {0}")]
    BadKeySet(String),
    /// Our joint key digest differs from the one another client announced.
    #[error("joint key digest disagrees with seat {seat}")]
    JointKeyMismatch {
        /// The seat whose announced digest differs.
        seat: u16,
    },
    /// A shuffle step failed: bad encoding, wrong size, or the shuffle proof rejected.
    #[error("seat {seat}: shuffle step rejected ({reason})")]
    BadShuffle {
        /// The shuffler.
        seat: u16,
        /// Short human-readable reason.
        reason: &'static str,
    },
    /// A reveal token (decryption share) or its DLEQ proof failed.
    #[error("seat {seat}: reveal token for position {position} rejected")]
    BadToken {
        /// The seat that produced the token.
        seat: u16,
        /// The deck position the token claims to open.
        position: u16,
    },
    /// A position outside the deck.
    #[error("position {position} outside a deck of {size} cards")]
    PositionOutOfRange {
        /// Requested position.
        position: u16,
        /// Deck size.
        size: usize,
    },
    /// Not every seat's token (or dice value) is there yet: these seats are missing.
    #[error("missing contributions from participants {}", seats.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "))]
    Missing {
        /// Seats (ascending) whose contribution is absent.
        seats: Vec<u16>,
    },
    /// Two contributions for the same seat, or one for the wrong position/slot.
    #[error("seat {seat}: duplicate or misplaced contribution")]
    Misplaced {
        /// The seat concerned.
        seat: u16,
    },
    /// All tokens verified yet no card matched: the deck was not one of ours.
    #[error("position {position}: decrypted point is not a card of this deck")]
    NotACard {
        /// The position opened.
        position: u16,
    },
    /// A commitment opening does not match what the seat committed to or published.
    #[error("seat {seat}: opening does not match its commitment ({what})")]
    CommitmentMismatch {
        /// The seat whose opening is wrong.
        seat: u16,
        /// Which commitment.
        what: &'static str,
    },
    /// A dice reveal does not match the seat's Merkle commitment.
    #[error("seat {seat}: dice reveal for slot {slot} does not match its commitment")]
    BadDiceReveal {
        /// The seat that revealed.
        seat: u16,
        /// The roll slot.
        slot: u32,
    },
    /// This seat's own proof failed its own verification: a bug, never the other seats' doing.
    /// Nothing was published.
    #[error("internal error: {0}")]
    Internal(&'static str),
    /// Dice parameters out of range (sides 2..=100, count 1..=64, slots 1..=65536).
    #[error("bad dice parameters: {0}")]
    BadDiceParams(&'static str),
}
