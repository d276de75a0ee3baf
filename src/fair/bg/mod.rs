//! The project's own implementation of the proofs ziffle 0.1.0 defines, in its byte formats:
//! the Bayer–Groth shuffle argument (m = 1), Schnorr key-ownership proofs, Chaum–Pedersen reveal
//! tokens, and the ElGamal masking, aggregation and opening around them, on arkworks' secp256k1
//! (in the browser the heaviest group operations go through `k256` instead: see `limbs32`).
//!
//! Why it exists: ziffle evaluates every vector product one scalar multiplication per term and
//! fixes the deck size at compile time. Here every product is a multi-scalar multiplication, the
//! verifier's equations are batched into one, and the deck size is a run-time value.
//!
//! It is written from the paper and from reading ziffle, not copied, and it is differentially
//! tested against ziffle (`src/fair/diff_tests.rs`): identical bytes from identical RNG streams,
//! each side's proofs accepted by the other, and thousands of mutated proofs, decks, keys and
//! contexts rejected by both. protocol/FAIR.md §9 describes the argument and the batching.
//!
//! Nothing here knows about tables, seats or contexts: `ctx` is opaque bytes, exactly as in
//! ziffle. The callers in `src/fair/` bind it to a table, hand, step and seat.

pub(crate) mod argument;
pub(crate) mod group;
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) mod limbs32;
#[cfg(test)]
mod limbs32_tests;
pub(crate) mod sigma;
pub(crate) mod transcript;

use ark_ec::{AffineRepr, CurveGroup};

use group::{Affine, Ciphertext, Point};

/// Sum of points: the joint key from the seats' keys, or the joint token from the seats' tokens.
pub(crate) fn aggregate<'a>(points: impl IntoIterator<Item = &'a Affine>) -> Affine {
    points
        .into_iter()
        .map(|p| p.into_group())
        .sum::<Point>()
        .into_affine()
}

/// The card index behind a masked card once every seat's token is in: `c2 − Σ tokens` is the
/// card point `M_i`; `None` if it is not among `cards`.
pub(crate) fn open(card: &Ciphertext, joint_token: &Affine, cards: &[Affine]) -> Option<usize> {
    let point = (card.1.into_group() - joint_token.into_group()).into_affine();
    cards.iter().position(|m| *m == point)
}
