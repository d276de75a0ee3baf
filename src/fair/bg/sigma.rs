//! The two sigma protocols, in ziffle 0.1.0's formats and transcripts: the Schnorr proof that a
//! seat knows the secret of its key share, and the Chaum–Pedersen proof that a reveal token is
//! `sk·c1` for the same `sk` as the seat's key (`log_G pk = log_c1 token`).
//!
//! Many tokens are verified at once by a random linear combination of their equations
//! ([`verify_tokens`]); the caller falls back to one-by-one checks to name a bad token.

use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{UniformRand, Zero};
use rand::{CryptoRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::group::{
    decode_point, decode_scalar, msm, mul_generator_one, point_bytes, scalar_bytes, Affine, Scalar,
    POINT_LEN, SCALAR_LEN,
};
use super::transcript::Transcript;

const DLOG_DST: &[u8] = b"ziffle/DLOG/v1";
const DLEQ_DST: &[u8] = b"ziffle/DLEQ/v1";
/// Our own tag for the token batch weights.
const TOKEN_BATCH_TAG: &[u8] = b"tolerance/fair/dleq-batch/v1";

/// Schnorr proof `(a, z)`: `a = w·G`, `z = w + e·sk`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeyProof {
    a: Affine,
    z: Scalar,
}

/// `a ‖ z`.
pub(crate) const KEY_PROOF_LEN: usize = POINT_LEN + SCALAR_LEN;

impl KeyProof {
    pub(crate) fn to_bytes(self) -> [u8; KEY_PROOF_LEN] {
        let mut out = [0u8; KEY_PROOF_LEN];
        out[..POINT_LEN].copy_from_slice(&point_bytes(&self.a));
        out[POINT_LEN..].copy_from_slice(&scalar_bytes(&self.z));
        out
    }

    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != KEY_PROOF_LEN {
            return None;
        }
        Some(KeyProof {
            a: decode_point(&bytes[..POINT_LEN])?,
            z: decode_scalar(&bytes[POINT_LEN..])?,
        })
    }
}

fn key_challenge(pk: &Affine, a: &Affine, ctx: &[u8]) -> Scalar {
    let [e] = Transcript::new(ctx)
        .append("pk", &point_bytes(pk))
        .append("a", &point_bytes(a))
        .challenges(DLOG_DST);
    e
}

/// A key pair and its proof, drawing `sk` then the nonce from `rng` (ziffle's order, so a seeded
/// RNG gives ziffle's bytes).
pub(crate) fn keygen<R: RngCore + CryptoRng>(
    rng: &mut R,
    ctx: &[u8],
) -> (Zeroizing<Scalar>, Affine, KeyProof) {
    let sk = Zeroizing::new(Scalar::rand(rng));
    let pk = mul_generator_one(&sk);
    let w = Zeroizing::new(Scalar::rand(rng));
    let a = mul_generator_one(&w);
    let e = key_challenge(&pk, &a, ctx);
    let z = *w + e * *sk;
    (sk, pk, KeyProof { a, z })
}

/// `z·G = a + e·pk`. Like ziffle, this accepts `pk = ∞` (with `a = z·G`); the key-set checks
/// refuse that key before any proof is looked at.
pub(crate) fn verify_key(pk: &Affine, proof: &KeyProof, ctx: &[u8]) -> bool {
    let e = key_challenge(pk, &proof.a, ctx);
    mul_generator_one(&proof.z).into_group() == proof.a.into_group() + *pk * e
}

/// Chaum–Pedersen proof `(t_g, t_c1, z)`: `t_g = w·G`, `t_c1 = w·c1`, `z = w − e·sk`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct TokenProof {
    t_g: Affine,
    t_c1: Affine,
    z: Scalar,
}

/// `t_g ‖ t_c1 ‖ z`.
pub(crate) const TOKEN_PROOF_LEN: usize = 2 * POINT_LEN + SCALAR_LEN;

impl TokenProof {
    pub(crate) fn to_bytes(self) -> [u8; TOKEN_PROOF_LEN] {
        let mut out = [0u8; TOKEN_PROOF_LEN];
        out[..POINT_LEN].copy_from_slice(&point_bytes(&self.t_g));
        out[POINT_LEN..2 * POINT_LEN].copy_from_slice(&point_bytes(&self.t_c1));
        out[2 * POINT_LEN..].copy_from_slice(&scalar_bytes(&self.z));
        out
    }

    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != TOKEN_PROOF_LEN {
            return None;
        }
        Some(TokenProof {
            t_g: decode_point(&bytes[..POINT_LEN])?,
            t_c1: decode_point(&bytes[POINT_LEN..2 * POINT_LEN])?,
            z: decode_scalar(&bytes[2 * POINT_LEN..])?,
        })
    }
}

fn token_challenge(
    pk: &Affine,
    share: &Affine,
    c1: &Affine,
    t_g: &Affine,
    t_c1: &Affine,
    ctx: &[u8],
) -> Scalar {
    let [e] = Transcript::new(ctx)
        .append("pk", &point_bytes(pk))
        .append("share", &point_bytes(share))
        .append("c1", &point_bytes(c1))
        .append("t_g", &point_bytes(t_g))
        .append("t_c1", &point_bytes(t_c1))
        .challenges(DLEQ_DST);
    e
}

/// The token `sk·c1` and its proof; one nonce from `rng`.
pub(crate) fn make_token<R: RngCore + CryptoRng>(
    rng: &mut R,
    sk: &Scalar,
    pk: &Affine,
    c1: &Affine,
    ctx: &[u8],
) -> (Affine, TokenProof) {
    let share = (*c1 * sk).into_affine();
    let w = Zeroizing::new(Scalar::rand(rng));
    let t_g = mul_generator_one(&w);
    let t_c1 = (*c1 * *w).into_affine();
    let e = token_challenge(pk, &share, c1, &t_g, &t_c1, ctx);
    let z = *w - e * sk;
    (share, TokenProof { t_g, t_c1, z })
}

/// Everything one token check needs.
#[derive(Clone, Copy)]
pub(crate) struct TokenStatement<'a> {
    /// The token maker's key share.
    pub(crate) pk: Affine,
    /// The first component of the masked card.
    pub(crate) c1: Affine,
    /// The claimed `sk·c1`.
    pub(crate) share: Affine,
    pub(crate) proof: &'a TokenProof,
    pub(crate) ctx: &'a [u8],
}

impl TokenStatement<'_> {
    fn challenge(&self) -> Scalar {
        token_challenge(
            &self.pk,
            &self.share,
            &self.c1,
            &self.proof.t_g,
            &self.proof.t_c1,
            self.ctx,
        )
    }
}

/// `t_g = z·G + e·pk` and `t_c1 = z·c1 + e·share`.
pub(crate) fn verify_token(st: &TokenStatement<'_>) -> bool {
    let e = st.challenge();
    let p = st.proof;
    p.t_g.into_group() == mul_generator_one(&p.z).into_group() + st.pk * e
        && p.t_c1.into_group() == st.c1 * p.z + st.share * e
}

/// Bases that recur across a batch (a seat's key, a card several seats open) are merged so the
/// multi-scalar multiplication sees each once.
#[derive(Default)]
struct Terms {
    bases: Vec<Affine>,
    scalars: Vec<Scalar>,
}

impl Terms {
    fn add(&mut self, base: Affine, s: Scalar) {
        self.bases.push(base);
        self.scalars.push(s);
    }
    fn add_merged(&mut self, merged_from: usize, base: Affine, s: Scalar) {
        match self.bases[merged_from..].iter().position(|b| *b == base) {
            Some(i) => self.scalars[merged_from + i] += s,
            None => self.add(base, s),
        }
    }
}

/// True if every token verifies, checked as one equation: with independent weights `a_k, b_k`,
///
/// `Σ_k a_k·(t_g,k − z_k·G − e_k·pk_k) + b_k·(t_c1,k − z_k·c1_k − e_k·share_k) = 0`.
///
/// If some token's equation fails, the sum vanishes for at most one value of that token's weight
/// given all others, so a batch with a bad token passes with probability ≤ 2^-128 (the weights
/// are 128-bit, which keeps their multiples cheap). The weights are ChaCha20 output keyed by a
/// hash of every challenge and every token and proof in the batch, so they are fixed only after
/// everything they weigh; a token maker can only retry with new tokens, each try succeeding
/// with probability ≤ 2^-128.
pub(crate) fn verify_tokens(batch: &[TokenStatement<'_>]) -> bool {
    match batch {
        [] => true,
        [one] => verify_token(one),
        _ => {
            let challenges: Vec<Scalar> = batch.iter().map(TokenStatement::challenge).collect();
            let mut h = Sha256::new();
            h.update(TOKEN_BATCH_TAG);
            for (st, e) in batch.iter().zip(&challenges) {
                h.update(scalar_bytes(e));
                h.update(point_bytes(&st.share));
                h.update(st.proof.to_bytes());
            }
            let mut weights = ChaCha20Rng::from_seed(h.finalize().into());
            let mut half = || {
                let mut b = [0u8; 16];
                weights.fill_bytes(&mut b);
                Scalar::from(u128::from_le_bytes(b))
            };
            let mut terms = Terms::default();
            let mut g_coefficient = Scalar::zero();
            terms.add(Affine::generator(), Scalar::zero());
            // Keys and cards repeat across a batch; merge them (few distinct values).
            let keys_from = terms.bases.len();
            for st in batch {
                terms.add_merged(keys_from, st.pk, Scalar::zero());
            }
            let cards_from = terms.bases.len();
            for st in batch {
                terms.add_merged(cards_from, st.c1, Scalar::zero());
            }
            for (st, e) in batch.iter().zip(&challenges) {
                let (a, b) = (half(), half());
                let p = st.proof;
                g_coefficient -= a * p.z;
                terms.add_merged(keys_from, st.pk, -(a * e));
                terms.add_merged(cards_from, st.c1, -(b * p.z));
                terms.add(p.t_g, a);
                terms.add(p.t_c1, b);
                terms.add(st.share, -(b * e));
            }
            terms.scalars[0] = g_coefficient;
            msm(&terms.bases, &terms.scalars).is_zero()
        }
    }
}

/// One token as a test makes it: the maker's key share, the card, the token, its proof and
/// context.
#[cfg(test)]
pub(crate) type MadeToken = (Affine, Affine, Affine, TokenProof, Vec<u8>);

/// What a test checks `made` against.
#[cfg(test)]
pub(crate) fn statements_of(made: &[MadeToken]) -> Vec<TokenStatement<'_>> {
    made.iter()
        .map(|(pk, c1, share, proof, ctx)| TokenStatement {
            pk: *pk,
            c1: *c1,
            share: *share,
            proof,
            ctx,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair::bg::group::generator;

    #[test]
    fn tokens_verify_singly_and_in_batches() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let keys: Vec<(Zeroizing<Scalar>, Affine, KeyProof)> =
            (0..3).map(|_| keygen(&mut rng, b"k")).collect();
        for (_, pk, proof) in &keys {
            assert!(verify_key(pk, proof, b"k"));
            assert!(!verify_key(pk, proof, b"K"));
        }
        let cards: Vec<Affine> = (0..5)
            .map(|_| (generator() * Scalar::rand(&mut rng)).into_affine())
            .collect();
        let mut made = Vec::new();
        for (i, c1) in cards.iter().enumerate() {
            for (sk, pk, _) in &keys {
                let ctx = vec![i as u8];
                let (share, proof) = make_token(&mut rng, sk, pk, c1, &ctx);
                made.push((*pk, *c1, share, proof, ctx));
            }
        }
        let good = statements_of(&made);
        assert!(good.iter().all(verify_token));
        assert!(verify_tokens(&good));
        // One wrong share anywhere sinks the batch.
        let mut bad = made.clone();
        bad[7].2 = (bad[7].2 + generator()).into_affine();
        let bad_st = statements_of(&bad);
        assert!(!verify_token(&bad_st[7]));
        assert!(!verify_tokens(&bad_st));
        let mut bad = made.clone();
        bad[3].4.push(0);
        assert!(!verify_tokens(&statements_of(&bad)));
    }
}
