//! Verifiable mental-poker deck and commit-reveal dice. Pure code: randomness is passed in, no
//! network, no game rules. The protocol is written down in `protocol/FAIR.md`.
//!
//! **Warning.** The shuffle argument (Bayer–Groth 2012), reveal tokens (Chaum–Pedersen) and key
//! proofs (Schnorr) on secp256k1 are this project's own implementation (`fair::bg`) of the formats of
//! the `ziffle` crate 0.1.0, differentially tested against it. Neither has been independently
//! audited; ziffle's author says *not for playing for non-trivial amounts of money*, and the
//! same holds for this module.
//!
//! # A hand, as the table layer drives it
//!
//! ```text
//! pass 1        every seat: keygen(OsRng, ctx@Keys) → publish PublicShare (key, proof, commitments)
//!               everyone:   verify_public_share for each seat → JointKey::from_seats → digest
//! pass 2..n+1   seat k:     shuffle_verified(secret, ctx@Shuffle{k}, key, size, prev) →
//!                           (VerifiedDeck, proof); publish its deck() and the proof
//!               the others: verify_shuffle_bytes(ctx of seat k, ...) → VerifiedDeck
//! pass n+2      every seat: reveal_token(OsRng, secret, ctx@Reveal{p, Some(r)}, deck) for each
//!                           position p dealt to another seat r → publish
//!               seat r:     verify_token for the others' tokens of its cards, own_token locally,
//!                           open_card → card index in the composition (DeckKind::card)
//! showdown      seat r:     reveal_token(..., ctx@Reveal{p, None}) for its cards (in its move)
//! dispute       each seat:  SecretShare::opening → verify_opening, verify_shuffle_opening
//! ```
//!
//! # API
//!
//! - Context: [`Context`] (table, hand, [`Step`], seat, actor) → canonical length-prefixed
//!   bytes ([`Context::encode`]), [`Label`] for each use.
//! - Decks: [`DeckKind`] / [`CardId`] (52 × 1..=19, double-1 … double-43 dominoes, custom), any
//!   size in [`MIN_DECK_SIZE`]..=[`MAX_DECK_SIZE`] ([`is_supported`]).
//! - Keys: [`keygen`] → ([`SecretShare`], [`PublicShare`]); [`verify_public_share`] →
//!   [`VerifiedShare`]; [`JointKey::from_seats`] (key-set checks), [`JointKey::digest`],
//!   [`JointKey::check_agreement`]; disputes: [`SeatOpening`], [`verify_opening`].
//! - Shuffles: [`shuffle`] → ([`Deck`], [`ShuffleProof`]) or [`shuffle_verified`] (the
//!   shuffler keeps a [`VerifiedDeck`] without re-verifying); [`verify_shuffle`] /
//!   [`verify_shuffle_bytes`] → [`VerifiedDeck`] or `BadShuffle { seat }`; [`verify_chain`]
//!   (sequential), [`verify_chain_parallel`] (one chain's steps on std threads, e.g. a resumed
//!   client), [`verify_chains_parallel`] (independent chains); [`verify_shuffle_opening`];
//!   [`VerifiedDeck::sub_deck`] (some masked cards as a deck of their own, to shuffle again).
//! - Tokens: [`reveal_token`] → [`RevealToken`] ([`reveal_token_with_own`] also keeps this
//!   seat's share as a [`VerifiedToken`]); [`verify_token`] → [`VerifiedToken`] or
//!   `BadToken { seat, position }`; [`verify_tokens`] / [`verify_tokens_each`] (a batch of
//!   [`TokenCheck`]s as one multi-scalar multiplication, the culprits named on failure);
//!   [`own_token`]; [`open_card`] → card index.
//! - Dice: [`dice::DiceSecret`] (Merkle root over per-slot values),
//!   [`dice::DiceCommitment`], [`dice::DiceReveal`], [`dice::verify_reveal`],
//!   [`dice::public_roll`], [`dice::private_roll`], [`dice::open_private_roll`],
//!   [`dice::missing_seats`], [`dice::private_slot`], [`dice::derive_dice`].
//! - Encodings: every published type has `to_bytes`/`from_bytes` (strict: exact length,
//!   canonical, nothing trailing) and base64 helpers; sizes from [`deck_len`] and
//!   [`shuffle_proof_len`].
//! - Errors: [`FairError`]; attributable variants carry the culprit's seat.
//!
//! Everything is plain synchronous code over `Send + Sync` types: run proving and verifying
//! with `tokio::task::spawn_blocking` (or a thread) rather than on the async task. Randomness:
//! functions take `&mut (impl RngCore + CryptoRng)`; the product passes `rand::rngs::OsRng`.
//! Shuffle steps take no RNG: they are derived from the committed shuffle seed (see
//! [`shuffle()`]).
//! No `unsafe` code.

pub(crate) mod bg;
mod codec;
mod context;
pub mod dice;
mod error;
mod keys;
mod reveal;
mod shuffle;
mod sizes;

#[cfg(test)]
mod diff_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod vectors;

pub use codec::{from_base64, to_base64};
pub use context::{Context, Label, Step, CONTEXT_VERSION, DOMAIN};
pub use error::FairError;
pub use keys::{
    keygen, verify_opening, verify_public_share, JointKey, PublicShare, SeatOpening, SecretShare,
    VerifiedShare, KEY_PROOF_LEN, PUBLIC_KEY_LEN, PUBLIC_SHARE_LEN, SEAT_SECRET_LEN,
};
pub use reveal::{
    open_card, own_token, reveal_token, reveal_token_with_own, verify_token, verify_tokens,
    verify_tokens_each, RevealToken, TokenCheck, VerifiedToken, REVEAL_TOKEN_LEN,
};
pub use shuffle::{
    decode_shuffle_deck, decode_shuffle_proof, shuffle, shuffle_for_chain, shuffle_verified,
    unchecked_shuffle, verify_chain, verify_chain_parallel, verify_chains_parallel, verify_shuffle,
    verify_shuffle_bytes, verify_shuffle_decoded, verify_shuffle_opening, ChainJob, ChainResult,
    Deck, ShuffleProof, ShuffleStep, VerifiedDeck,
};
pub use sizes::{
    deck_len, is_supported, padded_size, shuffle_proof_len, CardId, DeckKind, MAX_DECK_SIZE,
    MIN_DECK_SIZE, SUPPORTED_SIZES,
};
