//! The page's arithmetic (`limbs32`: k256 on wasm32) checked natively against arkworks: the
//! conversions, the multi-scalar multiplications and multiples of `G` on random and degenerate
//! inputs, and whole shuffles, chains and reveal tokens made and checked both ways (FAIR.md
//! §9.7). Kept apart from `limbs32` so that it may use the modules that call it.

use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{One, PrimeField, UniformRand, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::fair::bg::argument::{
    shuffle_and_prove, verify, verify_steps, DeckRef, ShuffleArgument, Statement,
};
use crate::fair::bg::group::{
    generator, generators, Affine, Ciphertext, Point, Scalar, CIPHERTEXT_LEN,
};
use crate::fair::bg::limbs32::{
    forced, from_point, in_use, msm, mul_generator, to_point, to_scalar,
};
use crate::fair::bg::sigma::{keygen, make_token, statements_of, verify_key, verify_tokens};

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
            let expected: Vec<Affine> = s.iter().map(|s| (generator() * s).into_affine()).collect();
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
            let token =
                |rng_seed| make_token(&mut ChaCha20Rng::seed_from_u64(rng_seed), sk, pk, c1, &ctx);
            let (share, proof) = token(seed);
            let (their_share, their_proof) = forced(|| token(seed));
            assert_eq!(their_share, share);
            assert_eq!(their_proof.to_bytes(), proof.to_bytes());
            made.push((*pk, *c1, share, proof, ctx));
        }
    }
    assert!(forced(|| verify_tokens(&statements_of(&made))));
    for i in 0..made.len() {
        let mut bad = made.clone();
        bad[i].2 = (bad[i].2 + generator()).into_affine();
        assert!(!verify_tokens(&statements_of(&bad)), "token {i}: arkworks");
        assert!(
            !forced(|| verify_tokens(&statements_of(&bad))),
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
