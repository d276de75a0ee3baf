//! The Fiat–Shamir transcript, byte for byte as ziffle 0.1.0 hashes it (its proofs and ours must
//! derive the same challenges from the same messages).
//!
//! The state is a 32-byte sha256 digest. It starts as `sha256(ctx)`; appending a message
//! replaces it with
//!
//! ```text
//! sha256(state ‖ u64(len(label)) ‖ label ‖ u64(len(m)) ‖ m)                  one element
//! sha256(state ‖ u64(len(label)) ‖ label ‖ [u64(i) ‖ u64(len(m_i)) ‖ m_i]…)  a list
//! ```
//!
//! with big-endian `u64` lengths and indices (ziffle writes `usize`, which is the same on the
//! 64-bit targets the project builds for) and `m` the canonical compressed encoding. Challenges
//! are `hash_to_field(state)` with sha256 (`expand_message_xmd`, arkworks'
//! `DefaultFieldHasher`) under a per-purpose domain tag.

use ark_ff::field_hashers::{DefaultFieldHasher, HashToField};
use sha2::{Digest, Sha256};

use super::group::Scalar;

#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Transcript {
    state: [u8; 32],
}

fn len64(n: usize) -> [u8; 8] {
    u64::try_from(n)
        .expect("lengths fit in 64 bits")
        .to_be_bytes()
}

impl Transcript {
    pub(crate) fn new(ctx: &[u8]) -> Self {
        Transcript {
            state: Sha256::digest(ctx).into(),
        }
    }

    fn open(&self, label: &str) -> Sha256 {
        let mut h = Sha256::new();
        h.update(self.state);
        h.update(len64(label.len()));
        h.update(label.as_bytes());
        h
    }

    /// Absorb one encoded element.
    pub(crate) fn append(&self, label: &str, encoded: &[u8]) -> Self {
        let mut h = self.open(label);
        h.update(len64(encoded.len()));
        h.update(encoded);
        Transcript {
            state: h.finalize().into(),
        }
    }

    /// Absorb a list of encoded elements (e.g. a deck, one ciphertext per item).
    pub(crate) fn append_list<'a>(
        &self,
        label: &str,
        items: impl IntoIterator<Item = &'a [u8]>,
    ) -> Self {
        let mut h = self.open(label);
        for (i, item) in items.into_iter().enumerate() {
            h.update(len64(i));
            h.update(len64(item.len()));
            h.update(item);
        }
        Transcript {
            state: h.finalize().into(),
        }
    }

    /// The state: a digest of everything absorbed so far.
    pub(crate) fn digest(&self) -> [u8; 32] {
        self.state
    }

    /// `K` challenge scalars for the domain tag `dst`.
    pub(crate) fn challenges<const K: usize>(&self, dst: &[u8]) -> [Scalar; K] {
        <DefaultFieldHasher<Sha256> as HashToField<Scalar>>::new(dst).hash_to_field(&self.state)
    }
}
