//! The page's group arithmetic: the multi-scalar multiplications, the multiples of `G` and the
//! square roots of point decoding that dominate a shuffle proof and its check, computed with
//! RustCrypto's `k256` (and serai's `multiexp` for the multi-scalar multiplication) instead of
//! arkworks and libsecp256k1, on wasm32 only.
//!
//! Why: WebAssembly has no 64×64→128-bit multiply, so every product of two of arkworks' 64-bit
//! limbs is a call into compiler-rt's `__multi3`. On 32-bit targets `k256` keeps a field element
//! in ten 26-bit limbs, whose products are single `i64.mul` instructions, and reduces by
//! secp256k1's special prime instead of Montgomery's generic method. In V8 a 53-point
//! multi-scalar multiplication takes about 2.5× less time this way (BENCHMARKS.md, "The browser
//! page"). Native builds keep arkworks, which is faster there and spreads its work over rayon's
//! threads.
//!
//! Nothing changes in what is computed: points and scalars cross between the two libraries as
//! their canonical integers (affine coordinates, scalars below the group order), so both give
//! the same group element and every proof is byte for byte the same. The tests below check that
//! against arkworks on random and on degenerate inputs, and on whole shuffles, tokens and their
//! checks made through this module natively. Anything that does not convert (which no point on
//! the curve and no scalar does) makes the caller fall back to arkworks, never panic.

use ark_ec::AffineRepr;
use ark_ff::{PrimeField, Zero};
use k256::elliptic_curve::ff::PrimeField as _;
use k256::elliptic_curve::group::GroupEncoding;
use k256::elliptic_curve::ops::MulByGenerator;
use k256::elliptic_curve::sec1::{Coordinates, FromEncodedPoint, ToEncodedPoint};
use k256::elliptic_curve::BatchNormalize;
use k256::{AffinePoint, EncodedPoint, FieldBytes, ProjectivePoint};

use super::group::{base_field_be, Affine, Point, Scalar};

/// Whether the group arithmetic goes through this module: always on wasm32. The tests also run
/// whole proofs through it natively, one thread at a time (see [`forced`]).
#[cfg(not(test))]
pub(super) fn in_use() -> bool {
    true
}

#[cfg(test)]
pub(super) fn in_use() -> bool {
    cfg!(target_arch = "wasm32") || FORCED.with(|f| f.get())
}

#[cfg(test)]
thread_local! {
    static FORCED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` on this thread with the group arithmetic going through this module, as on wasm32.
/// The fair code calls no thread of its own around the arithmetic, so everything `f` proves or
/// checks goes this way.
#[cfg(test)]
pub(crate) fn forced<T>(f: impl FnOnce() -> T) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(false));
        }
    }
    FORCED.with(|c| c.set(true));
    let _reset = Reset;
    f()
}

/// `Σ s_i·B_i` over the shorter of the two lists, as arkworks' `msm_unchecked` does; `None` only
/// if an input does not convert.
pub(super) fn msm(bases: &[Affine], scalars: &[Scalar]) -> Option<Point> {
    let pairs = bases
        .iter()
        .zip(scalars)
        .map(|(b, s)| Some((to_scalar(s)?, to_point(b)?)))
        .collect::<Option<Vec<_>>>()?;
    // Variable time, as arkworks' Pippenger is: the native client's multi-scalar
    // multiplications already depend on their scalars' bits (FAIR.md §7).
    from_point(&multiexp::multiexp_vartime(&pairs).to_affine()).map(Into::into)
}

/// `s·G` for every `s`, through `k256`'s precomputed tables of `G` (constant time). An empty
/// list or a zero scalar is left to arkworks: `k256`'s batch normalisation unwraps a batch
/// inversion that fails for both (an empty batch, a point at infinity), and panics.
pub(super) fn mul_generator(scalars: &[Scalar]) -> Option<Vec<Affine>> {
    if scalars.is_empty() || scalars.iter().any(|s| s.is_zero()) {
        return None;
    }
    let points = scalars
        .iter()
        .map(|s| Some(ProjectivePoint::mul_by_generator(&to_scalar(s)?)))
        .collect::<Option<Vec<_>>>()?;
    ProjectivePoint::batch_normalize(&points[..])
        .iter()
        .map(from_point)
        .collect()
}

/// The point of a SEC1 compressed encoding, as its affine coordinates; `None` where there is
/// no such point (`x` at or above the prime, or not on the curve), exactly as libsecp256k1's
/// parser refuses it. Its square root is `k256`'s fixed addition chain.
pub(super) fn decompress(sec1: &[u8; 33]) -> Option<(ark_secp256k1::Fq, ark_secp256k1::Fq)> {
    let point: AffinePoint = Option::from(AffinePoint::from_bytes(sec1.into()))?;
    match point.to_encoded_point(false).coordinates() {
        Coordinates::Uncompressed { x, y } => Some((base_field_be(x)?, base_field_be(y)?)),
        _ => None,
    }
}

/// A field element or scalar's canonical integer, big-endian.
fn be_bytes<F: PrimeField>(f: &F) -> FieldBytes {
    let mut out = FieldBytes::default();
    let limbs = f.into_bigint();
    for (chunk, limb) in out.chunks_exact_mut(8).zip(limbs.as_ref().iter().rev()) {
        chunk.copy_from_slice(&limb.to_be_bytes());
    }
    out
}

fn to_scalar(s: &Scalar) -> Option<k256::Scalar> {
    Option::from(k256::Scalar::from_repr(be_bytes(s)))
}

fn to_point(p: &Affine) -> Option<ProjectivePoint> {
    let Some((x, y)) = p.xy() else {
        return Some(ProjectivePoint::IDENTITY);
    };
    let encoded = EncodedPoint::from_affine_coordinates(&be_bytes(&x), &be_bytes(&y), false);
    Option::<AffinePoint>::from(AffinePoint::from_encoded_point(&encoded)).map(Into::into)
}

fn from_point(p: &AffinePoint) -> Option<Affine> {
    match p.to_encoded_point(false).coordinates() {
        Coordinates::Identity => Some(Affine::zero()),
        Coordinates::Uncompressed { x, y } => {
            let point = Affine::new_unchecked(base_field_be(x)?, base_field_be(y)?);
            point.is_on_curve().then_some(point)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ec::{CurveGroup, VariableBaseMSM};
    use ark_ff::{One, UniformRand, Zero};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    use crate::fair::bg::argument::{
        shuffle_and_prove, verify, verify_steps, DeckRef, ShuffleArgument, Statement,
    };
    use crate::fair::bg::group::{generator, generators, Ciphertext, CIPHERTEXT_LEN};
    use crate::fair::bg::sigma::{
        keygen, make_token, verify_key, verify_tokens, TokenProof, TokenStatement,
    };

    fn arkworks_msm(bases: &[Affine], scalars: &[Scalar]) -> Affine {
        Point::msm_unchecked(bases, scalars).into_affine()
    }

    /// A scalar that is often one of the values where arithmetic goes wrong first.
    fn scalar(rng: &mut ChaCha20Rng) -> Scalar {
        match rng.gen_range(0..8) {
            0 => Scalar::zero(),
            1 => Scalar::one(),
            2 => -Scalar::one(),
            3 => Scalar::from(rng.gen::<u64>()),
            _ => Scalar::rand(rng),
        }
    }

    /// Bases that repeat, cancel and include the point at infinity as well as random ones.
    fn bases(rng: &mut ChaCha20Rng, n: usize) -> Vec<Affine> {
        let mut out: Vec<Affine> = Vec::with_capacity(n);
        for _ in 0..n {
            let p = match (rng.gen_range(0..8), out.last()) {
                (0, _) => Affine::zero(),
                (1, Some(prev)) => *prev,
                (2, Some(prev)) => -*prev,
                (3, _) => generator(),
                _ => Point::rand(rng).into_affine(),
            };
            out.push(p);
        }
        out
    }

    #[test]
    fn conversions_are_exact_both_ways() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        for p in bases(&mut rng, 500) {
            let k = to_point(&p).unwrap().to_affine();
            assert_eq!(from_point(&k), Some(p));
        }
        for _ in 0..500 {
            let s = scalar(&mut rng);
            let k = to_scalar(&s).unwrap();
            assert_eq!(Scalar::from_be_bytes_mod_order(&k.to_bytes()), s);
        }
    }

    #[test]
    fn multi_scalar_multiplications_agree_with_arkworks() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        // Every length up to past multiexp's switch from Straus to Pippenger, then the lengths a
        // shuffle uses, with scalar lists of the same, shorter and longer length.
        let lengths = (0..80).chain([105, 209, 274, 530]);
        for n in lengths {
            for _ in 0..(if n < 80 { 12 } else { 3 }) {
                let b = bases(&mut rng, n);
                let m = match rng.gen_range(0..4) {
                    0 => n.saturating_sub(1),
                    1 => n + 1,
                    _ => n,
                };
                let s: Vec<Scalar> = (0..m).map(|_| scalar(&mut rng)).collect();
                let ours = msm(&b, &s).unwrap().into_affine();
                assert_eq!(ours, arkworks_msm(&b, &s), "{n} bases, {m} scalars");
            }
        }
    }

    #[test]
    fn a_sum_that_cancels_is_the_point_at_infinity() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        for n in [1, 2, 5, 53, 274] {
            let b: Vec<Affine> = (0..n)
                .map(|_| Point::rand(&mut rng).into_affine())
                .collect();
            let s: Vec<Scalar> = (0..n).map(|_| Scalar::rand(&mut rng)).collect();
            let total = arkworks_msm(&b, &s);
            let mut with_negation = b.clone();
            with_negation.push(total);
            let mut weights = s.clone();
            weights.push(-Scalar::one());
            assert!(msm(&with_negation, &weights).unwrap().is_zero(), "{n}");
        }
    }

    #[test]
    fn multiples_of_the_generator_agree_with_arkworks() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        for n in [0, 1, 2, 52, 104] {
            for _ in 0..4 {
                let s: Vec<Scalar> = (0..n).map(|_| scalar(&mut rng)).collect();
                let expected: Vec<Affine> =
                    s.iter().map(|s| (generator() * s).into_affine()).collect();
                match mul_generator(&s) {
                    Some(ours) => assert_eq!(ours, expected, "{n}"),
                    None => assert!(n == 0 || s.iter().any(|s| s.is_zero()), "{n}"),
                }
                // What the prover calls: the same points whichever way they are made.
                assert_eq!(
                    forced(|| crate::fair::bg::group::mul_generator(&s)),
                    expected
                );
            }
        }
    }

    #[test]
    fn the_pedersen_generators_convert() {
        let gens = generators(104);
        for p in gens.g.iter().chain([&gens.h]) {
            assert_eq!(from_point(&to_point(p).unwrap().to_affine()), Some(*p));
        }
    }

    #[test]
    fn a_point_off_the_curve_does_not_convert() {
        let p = generator();
        let (x, y) = p.xy().unwrap();
        let off = Affine::new_unchecked(x, y + ark_secp256k1::Fq::one());
        assert!(to_point(&off).is_none());
        assert!(msm(&[off], &[Scalar::one()]).is_none());
    }

    /// A key, a deck of `n` cards and that deck shuffled once more, every step made through
    /// arkworks; the second shuffle is the one the tests below make both ways.
    fn two_decks(n: usize, seed: u64) -> (Affine, Vec<Ciphertext>, Vec<u8>) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let apk = (generator() * Scalar::rand(&mut rng)).into_affine();
        let gens = generators(n);
        let start = gens.initial_deck(n);
        let first = shuffle_and_prove(
            &mut rng,
            &apk,
            DeckRef {
                cards: &start,
                bytes: &gens.initial_bytes[..n * CIPHERTEXT_LEN],
            },
            b"first",
        )
        .unwrap();
        (apk, first.cards, first.bytes)
    }

    #[test]
    fn a_shuffle_proved_through_k256_is_the_same_bytes_and_both_check_it() {
        for (n, mutations) in [(2, 40), (3, 40), (17, 400), (52, 120), (104, 20)] {
            let (apk, cards, bytes) = two_decks(n, n as u64);
            let prev = DeckRef {
                cards: &cards,
                bytes: &bytes,
            };
            let prove = || {
                let mut rng = ChaCha20Rng::seed_from_u64(1000 + n as u64);
                shuffle_and_prove(&mut rng, &apk, prev, b"second").unwrap()
            };
            let ark = prove();
            let ours = forced(prove);
            assert_eq!(ours.bytes, ark.bytes, "{n} cards: the deck");
            assert_eq!(ours.proof_bytes, ark.proof_bytes, "{n} cards: the proof");

            let next = DeckRef {
                cards: &ark.cards,
                bytes: &ark.bytes,
            };
            let check = |proof: &[u8], ctx: &[u8]| {
                ShuffleArgument::from_bytes(n, proof).is_some_and(|p| {
                    verify(
                        &Statement {
                            apk,
                            prev,
                            next,
                            ctx,
                        },
                        &p,
                    )
                })
            };
            assert!(check(&ark.proof_bytes, b"second"));
            assert!(forced(|| check(&ark.proof_bytes, b"second")));
            assert!(!forced(|| check(&ark.proof_bytes, b"other")));

            // Single bit flips anywhere in the proof: the scalars' flips decode and reach the
            // batched equation, where only the group arithmetic can tell them apart.
            let mut rng = ChaCha20Rng::seed_from_u64(2000 + n as u64);
            let mut reached = 0;
            for _ in 0..mutations {
                let mut bad = ark.proof_bytes.clone();
                let bit = rng.gen_range(0..bad.len() * 8);
                bad[bit / 8] ^= 1 << (bit % 8);
                reached += usize::from(ShuffleArgument::from_bytes(n, &bad).is_some());
                assert!(!check(&bad, b"second"), "{n} cards, bit {bit}: arkworks");
                assert!(
                    !forced(|| check(&bad, b"second")),
                    "{n} cards, bit {bit}: k256"
                );
            }
            assert!(
                reached * 2 > mutations,
                "{n} cards: {reached} of {mutations} decoded"
            );
        }
    }

    #[test]
    fn a_chain_of_shuffles_checked_through_k256() {
        let n = 20;
        let (apk, cards, bytes) = two_decks(n, 7);
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let mut decks = vec![(cards, bytes)];
        let mut proofs = Vec::new();
        for ctx in [b"a", b"b", b"c"] {
            let (cards, bytes) = decks.last().unwrap();
            let prev = DeckRef { cards, bytes };
            let out = forced(|| shuffle_and_prove(&mut rng, &apk, prev, ctx)).unwrap();
            proofs.push((ctx.to_vec(), out.proof, out.proof_bytes));
            decks.push((out.cards, out.bytes));
        }
        let refs: Vec<DeckRef<'_>> = decks
            .iter()
            .map(|(cards, bytes)| DeckRef { cards, bytes })
            .collect();
        let steps: Vec<_> = proofs
            .iter()
            .map(|(ctx, p, b)| (&ctx[..], p, &b[..]))
            .collect();
        assert!(verify_steps(apk, &refs, &steps));
        assert!(forced(|| verify_steps(apk, &refs, &steps)));
        // The middle step claimed for the wrong context: both refuse the whole chain.
        let mut wrong = steps.clone();
        wrong[1].0 = b"z";
        assert!(!verify_steps(apk, &refs, &wrong));
        assert!(!forced(|| verify_steps(apk, &refs, &wrong)));
    }

    /// One token as made: key share, card, token, proof, context.
    type Made = (Affine, Affine, Affine, TokenProof, Vec<u8>);

    #[test]
    fn reveal_tokens_made_and_batched_through_k256() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let keys: Vec<_> = (0..4).map(|_| keygen(&mut rng, b"k")).collect();
        let cards: Vec<Affine> = (0..9)
            .map(|_| Point::rand(&mut rng).into_affine())
            .collect();
        let mut made = Vec::new();
        for (i, c1) in cards.iter().enumerate() {
            for (sk, pk, proof) in &keys {
                assert!(forced(|| verify_key(pk, proof, b"k")));
                let ctx = vec![i as u8];
                let seed = rng.gen::<u64>();
                let token = |rng_seed| {
                    make_token(&mut ChaCha20Rng::seed_from_u64(rng_seed), sk, pk, c1, &ctx)
                };
                let (share, proof) = token(seed);
                let (their_share, their_proof) = forced(|| token(seed));
                assert_eq!(their_share, share);
                assert_eq!(their_proof.to_bytes(), proof.to_bytes());
                made.push((*pk, *c1, share, proof, ctx));
            }
        }
        fn statements(made: &[Made]) -> Vec<TokenStatement<'_>> {
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
        assert!(forced(|| verify_tokens(&statements(&made))));
        for i in 0..made.len() {
            let mut bad = made.clone();
            bad[i].2 = (bad[i].2 + generator()).into_affine();
            assert!(!verify_tokens(&statements(&bad)), "token {i}: arkworks");
            assert!(
                !forced(|| verify_tokens(&statements(&bad))),
                "token {i}: k256"
            );
        }
    }

    #[test]
    fn the_switch_is_per_thread_and_turns_back_off() {
        assert!(!in_use());
        forced(|| assert!(in_use()));
        assert!(!in_use());
        let _ = std::panic::catch_unwind(|| forced(|| panic!("inside")));
        assert!(!in_use());
    }
}
