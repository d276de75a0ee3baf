//! Differential tests of the project's own proofs (`bg`) against the reference, ziffle 0.1.0.
//!
//! - Same RNG stream, same bytes: keys, key proofs, shuffled decks, shuffle proofs and reveal
//!   tokens come out byte-identical from both (generators, transcript, field order and the use
//!   of randomness all agree).
//! - Each side's proofs are accepted by the other.
//! - Mutations (bit flips, swapped and duplicated cards, replaced points and scalars, wrong
//!   context, previous deck or key, truncated and extended encodings, non-canonical points and
//!   scalars) are rejected by both.
//! - A batch of tokens is accepted exactly when every token is, by us one by one and by ziffle.
//!
//! The reference is ziffle behind the project's strict decoder (`codec::decode_exact`: exact
//! length, canonical re-encoding), which is what the product ran before `bg`. On its own,
//! arkworks' decoder ignores trailing bytes and the spare flag bits of a point, so raw ziffle
//! accepts some non-canonical spellings of a valid proof; the wrapper always refused them.
//!
//! Case counts (mutations per size, tokens, …) are the constants below, multiplied by
//! `FAIR_DIFF_SCALE` (default 1). `differential_heavy` (ignored) runs them ×10:
//! `cargo test --release --lib fair::diff_tests -- --ignored`.

use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::UniformRand;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use ziffle::{
    AggregatePublicKey, MaskedDeck, OwnershipProof, PublicKey, RevealTokenProof, SecretKey,
    Shuffle, Verified,
};

use super::bg::argument::{self, proof_len, DeckRef, ShuffleArgument, Statement};
use super::bg::group::{
    decode_ciphertexts, generator, generators, point_bytes, scalar_bytes, Affine, Ciphertext,
    Scalar, CIPHERTEXT_LEN, POINT_LEN, SCALAR_LEN,
};
use super::bg::limbs32;
use super::bg::sigma::{self, KeyProof, TokenProof, TokenStatement};
use super::codec::{decode_exact, encode};

/// Mutated shuffle proofs per deck size.
const SHUFFLE_CASES: [(usize, u32); 5] = [(2, 1500), (3, 1500), (10, 600), (52, 200), (104, 40)];
/// Chains of three steps with one step mutated, checked together and step by step.
const CHAIN_CASES: [(usize, u32); 2] = [(10, 300), (52, 40)];
/// Mutated reveal tokens.
const TOKEN_CASES: u32 = 3000;
/// Random mixes of good and bad tokens, up to 40 per batch.
const BATCH_CASES: u32 = 150;
/// Mutated key-ownership proofs.
const KEY_CASES: u32 = 2000;

fn scale() -> u32 {
    std::env::var("FAIR_DIFF_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// ziffle only hands out `Verified` values from its own checks; to ask it about an arbitrary
/// (even wrong) previous deck or key we need to build one. `Verified<T>` is a one-field tuple
/// struct; the assertion checks the layouts agree, so the copy is a plain copy of `T`.
fn as_verified<T: Copy>(value: T) -> Verified<T> {
    const {
        assert!(std::mem::size_of::<T>() == std::mem::size_of::<Verified<T>>());
    }
    // SAFETY: see above; test code only.
    unsafe { std::mem::transmute_copy::<T, Verified<T>>(&value) }
}

fn ziffle_apk(keys: &[Affine]) -> AggregatePublicKey {
    let keys: Vec<Verified<PublicKey>> = keys
        .iter()
        .map(|k| as_verified(decode_exact::<PublicKey>("pk", &point_bytes(k), 33).unwrap()))
        .collect();
    AggregatePublicKey::new(&keys)
}

fn random_point(rng: &mut impl RngCore) -> Affine {
    (generator() * Scalar::rand(rng)).into_affine()
}

/// One shuffle step as published, with the key it was made under.
#[derive(Clone, PartialEq)]
struct Step {
    keys: Vec<Affine>,
    prev: Option<Vec<u8>>,
    next: Vec<u8>,
    proof: Vec<u8>,
    ctx: Vec<u8>,
}

impl Step {
    fn apk(&self) -> Affine {
        super::bg::aggregate(&self.keys)
    }
}

fn decode_deck(n: usize, bytes: &[u8]) -> Option<Vec<(Affine, Affine)>> {
    (bytes.len() == n * CIPHERTEXT_LEN)
        .then(|| decode_ciphertexts(bytes))
        .flatten()
}

/// A step's input deck, cards and bytes: the initial deck, or `prev` strictly decoded.
fn input_deck(n: usize, prev: &Option<Vec<u8>>) -> Option<(Vec<Ciphertext>, Vec<u8>)> {
    match prev {
        None => {
            let gens = generators(n);
            Some((
                gens.initial_deck(n),
                gens.initial_bytes[..n * CIPHERTEXT_LEN].to_vec(),
            ))
        }
        Some(b) => decode_deck(n, b).map(|c| (c, b.clone())),
    }
}

/// Our verdict on a step, from bytes, strictly decoded.
fn ours_accepts(n: usize, s: &Step) -> bool {
    let Some((prev_cards, prev_bytes)) = input_deck(n, &s.prev) else {
        return false;
    };
    let (Some(next), Some(proof)) = (
        decode_deck(n, &s.next),
        ShuffleArgument::from_bytes(n, &s.proof),
    ) else {
        return false;
    };
    argument::verify(
        &Statement {
            apk: s.apk(),
            prev: DeckRef {
                cards: &prev_cards,
                bytes: &prev_bytes,
            },
            next: DeckRef {
                cards: &next,
                bytes: &s.next,
            },
            ctx: &s.ctx,
        },
        &proof,
    )
}

/// ziffle's verdict on a step, behind the project's former strict decoding.
fn ziffle_accepts<const N: usize>(z: &Shuffle<N>, s: &Step) -> bool {
    let apk = ziffle_apk(&s.keys);
    let Ok(next) = decode_exact::<MaskedDeck<N>>("deck", &s.next, N * CIPHERTEXT_LEN) else {
        return false;
    };
    let Ok(proof) = decode_exact::<ziffle::ShuffleProof<N>>("proof", &s.proof, proof_len(N)) else {
        return false;
    };
    match &s.prev {
        None => z.verify_initial_shuffle(apk, next, proof, &s.ctx).is_some(),
        Some(b) => match decode_exact::<MaskedDeck<N>>("deck", b, N * CIPHERTEXT_LEN) {
            Ok(prev) => z
                .verify_shuffle(apk, &as_verified(prev), next, proof, &s.ctx)
                .is_some(),
            Err(_) => false,
        },
    }
}

/// Our keys, as points; made with our keygen from a seeded RNG.
fn our_keys(rng: &mut ChaCha20Rng, n: usize) -> Vec<Affine> {
    (0..n).map(|_| sigma::keygen(rng, b"keys").1).collect()
}

/// A chain of three steps: ziffle from the initial deck, ours on top, ziffle again.
fn chain<const N: usize>(z: &Shuffle<N>, seed: u64) -> Vec<Step> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let keys = our_keys(&mut rng, 3);
    let zapk = ziffle_apk(&keys);
    let apk = super::bg::aggregate(&keys);
    let ctx = |k: u8| vec![b'c', k, (seed & 0xff) as u8];

    let (d0, p0) = z.shuffle_initial_deck(&mut rng, zapk, &ctx(0));
    let v0 = z.verify_initial_shuffle(zapk, d0, p0, &ctx(0)).unwrap();
    let s0 = Step {
        keys: keys.clone(),
        prev: None,
        next: encode(&d0),
        proof: encode(&p0),
        ctx: ctx(0),
    };

    let cards = decode_deck(N, &s0.next).unwrap();
    let mine = argument::shuffle_and_prove(
        &mut rng,
        &apk,
        DeckRef {
            cards: &cards,
            bytes: &s0.next,
        },
        &ctx(1),
    )
    .unwrap();
    let s1 = Step {
        keys: keys.clone(),
        prev: Some(s0.next.clone()),
        next: mine.bytes.clone(),
        proof: mine.proof_bytes.clone(),
        ctx: ctx(1),
    };
    let d1 = decode_exact::<MaskedDeck<N>>("deck", &s1.next, N * CIPHERTEXT_LEN).unwrap();
    let p1 = decode_exact::<ziffle::ShuffleProof<N>>("proof", &s1.proof, proof_len(N)).unwrap();
    let v1 = z.verify_shuffle(zapk, &v0, d1, p1, &ctx(1)).unwrap();

    let (d2, p2) = z.shuffle_deck(&mut rng, zapk, &v1, &ctx(2));
    let s2 = Step {
        keys,
        prev: Some(s1.next.clone()),
        next: encode(&d2),
        proof: encode(&p2),
        ctx: ctx(2),
    };
    vec![s0, s1, s2]
}

/// Same RNG stream in, same bytes out, for keys, shuffles and tokens.
fn same_bytes<const N: usize>(seed: u64) {
    let z = Shuffle::<N>::default();
    let rng = || ChaCha20Rng::seed_from_u64(seed);
    let ctx = b"same bytes";

    let (zsk, zpk, zproof) = z.keygen(&mut rng(), ctx);
    let (sk, pk, proof) = sigma::keygen(&mut rng(), ctx);
    assert_eq!(encode(&zsk), scalar_bytes(&sk).to_vec());
    assert_eq!(encode(&zpk), point_bytes(&pk).to_vec());
    assert_eq!(encode(&zproof), proof.to_bytes().to_vec());

    let keys = [
        pk,
        our_keys(&mut ChaCha20Rng::seed_from_u64(seed + 1), 1)[0],
    ];
    let zapk = ziffle_apk(&keys);
    let apk = super::bg::aggregate(&keys);
    let (zdeck, zp) = z.shuffle_initial_deck(&mut rng(), zapk, ctx);
    let gens = generators(N);
    let initial = gens.initial_deck(N);
    let initial = DeckRef {
        cards: &initial,
        bytes: &gens.initial_bytes[..N * CIPHERTEXT_LEN],
    };
    let ours = argument::shuffle_and_prove(&mut rng(), &apk, initial, ctx).unwrap();
    assert_eq!(encode(&zdeck), ours.bytes, "initial deck, {N} cards");
    assert_eq!(encode(&zp), ours.proof_bytes, "initial proof, {N} cards");

    let zv = z.verify_initial_shuffle(zapk, zdeck, zp, ctx).unwrap();
    let (zdeck2, zp2) = z.shuffle_deck(&mut rng(), zapk, &zv, b"again");
    let next = DeckRef {
        cards: &ours.cards,
        bytes: &ours.bytes,
    };
    let ours2 = argument::shuffle_and_prove(&mut rng(), &apk, next, b"again").unwrap();
    assert_eq!(encode(&zdeck2), ours2.bytes);
    assert_eq!(encode(&zp2), ours2.proof_bytes);

    let position = (seed as usize) % N;
    let card = zv.get(position).unwrap();
    let (zt, ztp) = card.reveal_token(&mut rng(), &zsk, zpk, b"token");
    let (t, tp) = sigma::make_token(&mut rng(), &sk, &pk, &ours.cards[position].0, b"token");
    assert_eq!(encode(&zt), point_bytes(&t).to_vec());
    assert_eq!(encode(&ztp), tp.to_bytes().to_vec());
}

#[test]
fn same_randomness_gives_ziffles_bytes() {
    for seed in 0..3 {
        same_bytes::<2>(seed);
        same_bytes::<3>(seed);
        same_bytes::<10>(seed);
    }
    same_bytes::<52>(7);
    same_bytes::<104>(8);
}

fn cross_accept<const N: usize>(seeds: std::ops::Range<u64>) {
    let z = Shuffle::<N>::default();
    for seed in seeds {
        for (k, step) in chain(&z, seed).iter().enumerate() {
            assert!(ours_accepts(N, step), "ours rejects step {k}, {N} cards");
            assert!(
                ziffle_accepts(&z, step),
                "ziffle rejects step {k}, {N} cards"
            );
        }
    }
}

#[test]
fn each_side_accepts_the_others_proofs() {
    cross_accept::<2>(0..20);
    cross_accept::<3>(0..20);
    cross_accept::<10>(0..5);
    cross_accept::<52>(0..2);
    cross_accept::<104>(0..1);
}

/// Byte offsets of the points (`true`) and scalars (`false`) of a proof for `n` cards.
fn proof_fields(n: usize) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut push = |count: usize, point: bool| {
        for _ in 0..count {
            out.push((at, point));
            at += if point { POINT_LEN } else { SCALAR_LEN };
        }
    };
    push(8, true);
    push(n + 4, false);
    push(3, true);
    push(2 * n + 2, false);
    assert_eq!(at, proof_len(n));
    out
}

/// Bytes of an integer at least the group order (an out-of-range scalar).
fn scalar_at_least_order(extra: u8) -> [u8; 32] {
    let mut b = scalar_bytes(&(-Scalar::from(1u64)));
    // q − 1 + 1 + extra, little-endian, the low byte of q − 1 is 0x40: no carry for extra < 0xbe.
    b[0] += 1 + extra % 0xb0;
    b
}

/// A mutation that both verifiers must reject. Returns what it did, for failure messages.
fn mutate_step(rng: &mut ChaCha20Rng, n: usize, s: &mut Step, other: &Step) -> &'static str {
    let fields = proof_fields(n);
    let card = |rng: &mut ChaCha20Rng| rng.gen_range(0..n);
    match rng.gen_range(0..17) {
        0 => {
            let bit = rng.gen_range(0..s.proof.len() * 8);
            s.proof[bit / 8] ^= 1 << (bit % 8);
            "bit flip in the proof"
        }
        1 => {
            let bit = rng.gen_range(0..s.next.len() * 8);
            s.next[bit / 8] ^= 1 << (bit % 8);
            "bit flip in the deck"
        }
        2 => {
            let i = card(rng);
            let j = (i + 1 + rng.gen_range(0..n - 1)) % n;
            for k in 0..CIPHERTEXT_LEN {
                s.next.swap(i * CIPHERTEXT_LEN + k, j * CIPHERTEXT_LEN + k);
            }
            "two cards swapped"
        }
        3 => {
            let i = card(rng);
            let j = (i + 1 + rng.gen_range(0..n - 1)) % n;
            let c = s.next[i * CIPHERTEXT_LEN..(i + 1) * CIPHERTEXT_LEN].to_vec();
            s.next[j * CIPHERTEXT_LEN..(j + 1) * CIPHERTEXT_LEN].copy_from_slice(&c);
            "a card duplicated"
        }
        4 => {
            let &(at, point) = &fields[rng.gen_range(0..fields.len())];
            if point {
                s.proof[at..at + POINT_LEN].copy_from_slice(&point_bytes(&random_point(rng)));
            } else {
                s.proof[at..at + SCALAR_LEN].copy_from_slice(&scalar_bytes(&Scalar::rand(rng)));
            }
            "a proof element replaced"
        }
        5 => {
            let &(at, point) = &fields[rng.gen_range(0..fields.len())];
            if point {
                s.proof[at..at + POINT_LEN].copy_from_slice(&point_bytes(&Affine::zero()));
            } else {
                s.proof[at..at + SCALAR_LEN].copy_from_slice(&[0; SCALAR_LEN]);
            }
            "a proof element zeroed"
        }
        6 => {
            match rng.gen_range(0..3) {
                0 => {
                    let i = rng.gen_range(0..s.ctx.len());
                    s.ctx[i] ^= 1 << rng.gen_range(0..8);
                }
                1 => s.ctx.push(rng.gen()),
                _ => {
                    s.ctx.pop();
                }
            }
            "wrong context"
        }
        7 => {
            // The initial deck, or another step's input or output, in place of the right one.
            let candidates: Vec<Option<Vec<u8>>> =
                [None, other.prev.clone(), Some(other.next.clone())]
                    .into_iter()
                    .filter(|c| *c != s.prev)
                    .collect();
            s.prev = candidates[rng.gen_range(0..candidates.len())].clone();
            "wrong previous deck"
        }
        8 => {
            if let Some(prev) = &mut s.prev {
                let i = card(rng);
                let j = (i + 1 + rng.gen_range(0..n - 1)) % n;
                for k in 0..CIPHERTEXT_LEN {
                    prev.swap(i * CIPHERTEXT_LEN + k, j * CIPHERTEXT_LEN + k);
                }
                "two cards of the previous deck swapped"
            } else {
                s.prev = Some(other.next.clone());
                "a shuffled deck instead of the initial one"
            }
        }
        9 => {
            let k = rng.gen_range(0..s.keys.len());
            s.keys[k] = random_point(rng);
            "wrong key"
        }
        10 => {
            let cut = rng.gen_range(1..=40).min(s.proof.len());
            if rng.gen_bool(0.5) {
                s.proof.truncate(s.proof.len() - cut);
            } else {
                s.next.truncate(s.next.len() - cut.min(s.next.len()));
            }
            "truncated"
        }
        11 => {
            let extra: Vec<u8> = (0..rng.gen_range(1..=40)).map(|_| rng.gen()).collect();
            if rng.gen_bool(0.5) {
                s.proof.extend_from_slice(&extra);
            } else {
                s.next.extend_from_slice(&extra);
            }
            "extended"
        }
        12 => {
            // A spare flag bit or a non-zero x under the infinity flag: the same point for a lax
            // decoder, not its canonical encoding.
            let points: Vec<usize> = fields.iter().filter(|f| f.1).map(|f| f.0).collect();
            let (bytes, at) = if rng.gen_bool(0.5) {
                (&mut s.proof, points[rng.gen_range(0..points.len())])
            } else {
                (&mut s.next, rng.gen_range(0..2 * n) * POINT_LEN)
            };
            if rng.gen_bool(0.8) {
                bytes[at + 32] |= 1 << rng.gen_range(0..6);
            } else {
                bytes[at..at + 32].copy_from_slice(&[0; 32]);
                bytes[at] = 1;
                bytes[at + 32] = 0x40;
            }
            "non-canonical point"
        }
        13 => {
            let scalars: Vec<usize> = fields.iter().filter(|f| !f.1).map(|f| f.0).collect();
            let at = scalars[rng.gen_range(0..scalars.len())];
            s.proof[at..at + SCALAR_LEN].copy_from_slice(&scalar_at_least_order(rng.gen()));
            "scalar not below the group order"
        }
        14 => {
            // Two different elements of the same kind exchanged.
            let point = rng.gen_bool(0.4);
            let of_kind: Vec<usize> = fields
                .iter()
                .filter(|f| f.1 == point)
                .map(|f| f.0)
                .collect();
            let i = rng.gen_range(0..of_kind.len());
            let j = (i + 1 + rng.gen_range(0..of_kind.len() - 1)) % of_kind.len();
            let len = if point { POINT_LEN } else { SCALAR_LEN };
            for k in 0..len {
                s.proof.swap(of_kind[i] + k, of_kind[j] + k);
            }
            "two proof elements exchanged"
        }
        15 => {
            s.proof = other.proof.clone();
            "another step's proof"
        }
        _ => {
            for _ in 0..rng.gen_range(2..8) {
                let i = rng.gen_range(0..s.proof.len());
                s.proof[i] = rng.gen();
            }
            "random bytes in the proof"
        }
    }
}

/// `cases` mutations of the steps of a few chains, each rejected by both verifiers.
fn shuffle_mutations<const N: usize>(cases: u32) {
    let z = Shuffle::<N>::default();
    let steps: Vec<Step> = (0..2).flat_map(|seed| chain(&z, 100 + seed)).collect();
    for s in &steps {
        assert!(ours_accepts(N, s) && ziffle_accepts(&z, s));
    }
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &(0..steps.len(), 0..steps.len(), any::<u64>()),
            |(i, j, seed)| {
                let mut rng = ChaCha20Rng::seed_from_u64(seed);
                let other = if i == j {
                    &steps[(j + 1) % steps.len()]
                } else {
                    &steps[j]
                };
                // A mutation that happens to change nothing (zeroing what is already zero) is drawn
                // again.
                let (s, what) = loop {
                    let mut s = steps[i].clone();
                    let what = mutate_step(&mut rng, N, &mut s, other);
                    if s != steps[i] {
                        break (s, what);
                    }
                };
                let ours = ours_accepts(N, &s);
                let theirs = ziffle_accepts(&z, &s);
                // The page's arithmetic (wasm32: k256 in place of arkworks) gives the same verdict.
                let page = limbs32::forced(|| ours_accepts(N, &s));
                prop_assert!(
                    !ours && !theirs && !page,
                    "{N} cards, {what}: ours {ours}, ziffle {theirs}, the page's arithmetic {page}"
                );
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn mutated_shuffles_are_rejected_by_both_small() {
    let [(_, c2), (_, c3), (_, c10), ..] = SHUFFLE_CASES;
    shuffle_mutations::<2>(c2 * scale());
    shuffle_mutations::<3>(c3 * scale());
    shuffle_mutations::<10>(c10 * scale());
}

#[test]
fn mutated_shuffles_are_rejected_by_both_52() {
    shuffle_mutations::<52>(SHUFFLE_CASES[3].1 * scale());
}

#[test]
fn mutated_shuffles_are_rejected_by_both_104() {
    shuffle_mutations::<104>(SHUFFLE_CASES[4].1 * scale());
}

/// Our verdict on consecutive steps checked together (`argument::verify_steps`, what
/// `fair::verify_chain` runs first): the decks are the first step's input and every step's
/// output, the key and contexts each step's own. Steps that do not follow one another, or
/// whose keys differ, are not one chain: refused, as `verify_chain` refuses to place them.
fn ours_accepts_chain(n: usize, steps: &[Step]) -> bool {
    let linked = steps
        .windows(2)
        .all(|w| w[1].prev.as_ref() == Some(&w[0].next) && w[1].keys == w[0].keys);
    if !linked {
        return false;
    }
    // Each deck's cards and bytes.
    let Some(input) = input_deck(n, &steps[0].prev) else {
        return false;
    };
    let mut decks = vec![input];
    let mut proofs = Vec::new();
    for s in steps {
        let (Some(next), Some(proof)) = (
            decode_deck(n, &s.next),
            ShuffleArgument::from_bytes(n, &s.proof),
        ) else {
            return false;
        };
        decks.push((next, s.next.clone()));
        proofs.push(proof);
    }
    let refs: Vec<DeckRef<'_>> = decks
        .iter()
        .map(|(cards, bytes)| DeckRef { cards, bytes })
        .collect();
    let batch: Vec<argument::ChainStep<'_>> = steps
        .iter()
        .zip(&proofs)
        .map(|(s, p)| (s.ctx.as_slice(), p, s.proof.as_slice()))
        .collect();
    argument::verify_steps(steps[0].apk(), &refs, &batch)
}

/// `cases` chains of three steps (ziffle's, ours, ziffle's) with one step mutated and the
/// chain kept linked (the next step starts from a mutated output; a mutated input is the
/// previous step's output too; a mutated key is every step's). Checked together, the chain is
/// accepted exactly when every step is, by us one by one and by ziffle; unmutated, by all.
fn chain_mutations<const N: usize>(cases: u32) {
    let z = Shuffle::<N>::default();
    let chains: Vec<Vec<Step>> = (0..2).map(|seed| chain(&z, 300 + seed)).collect();
    for c in &chains {
        assert!(ours_accepts_chain(N, c));
        assert!(c
            .iter()
            .all(|s| ours_accepts(N, s) && ziffle_accepts(&z, s)));
    }
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &(0..chains.len(), 0..3usize, 0..3usize, any::<u64>()),
            |(c, i, j, seed)| {
                let mut rng = ChaCha20Rng::seed_from_u64(seed);
                let honest = &chains[c];
                let other = &chains[(c + 1) % chains.len()][j];
                let (steps, what) = loop {
                    let mut steps = honest.clone();
                    let what = mutate_step(&mut rng, N, &mut steps[i], other);
                    if steps[i] == honest[i] {
                        continue;
                    }
                    let keys = steps[i].keys.clone();
                    for s in &mut steps {
                        s.keys = keys.clone();
                    }
                    if i > 0 {
                        match steps[i].prev.clone() {
                            Some(prev) => steps[i - 1].next = prev,
                            // The input is the initial deck: step i is the chain's first.
                            None => steps.drain(..i).for_each(drop),
                        }
                    }
                    for k in 1..steps.len() {
                        steps[k].prev = Some(steps[k - 1].next.clone());
                    }
                    break (steps, what);
                };
                let together = ours_accepts_chain(N, &steps);
                prop_assert_eq!(
                    limbs32::forced(|| ours_accepts_chain(N, &steps)),
                    together,
                    "{} cards, {}: together, the page's arithmetic",
                    N,
                    what
                );
                let ours: Vec<bool> = steps.iter().map(|s| ours_accepts(N, s)).collect();
                let theirs: Vec<bool> = steps.iter().map(|s| ziffle_accepts(&z, s)).collect();
                prop_assert_eq!(&ours, &theirs, "{} cards, {}: one by one", N, what);
                prop_assert_eq!(
                    together,
                    ours.iter().all(|a| *a),
                    "{} cards, {}: together {}, one by one {:?}",
                    N,
                    what,
                    together,
                    ours
                );
                prop_assert!(!together, "{} cards, {}: a mutated chain accepted", N, what);
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn mutated_chains_are_rejected_together_as_step_by_step() {
    for (n, cases) in CHAIN_CASES {
        match n {
            10 => chain_mutations::<10>(cases * scale()),
            52 => chain_mutations::<52>(cases * scale()),
            _ => unreachable!("a size of CHAIN_CASES"),
        }
    }
}

/// One reveal token as published, with what it is checked against.
#[derive(Clone, PartialEq)]
struct Token {
    pk: Affine,
    c1: Affine,
    bytes: Vec<u8>,
    ctx: Vec<u8>,
}

fn split_token(bytes: &[u8]) -> Option<(Affine, TokenProof)> {
    if bytes.len() != POINT_LEN + sigma::TOKEN_PROOF_LEN {
        return None;
    }
    Some((
        super::bg::group::decode_point(&bytes[..POINT_LEN])?,
        TokenProof::from_bytes(&bytes[POINT_LEN..])?,
    ))
}

fn ours_accepts_token(t: &Token) -> bool {
    split_token(&t.bytes).is_some_and(|(share, proof)| {
        sigma::verify_token(&TokenStatement {
            pk: t.pk,
            c1: t.c1,
            share,
            proof: &proof,
            ctx: &t.ctx,
        })
    })
}

/// ziffle's verdict: its `MaskedCard` is only reachable through a verified deck, built here from
/// the card (its second component plays no part in the check).
fn ziffle_accepts_token(t: &Token) -> bool {
    let (Ok(token), Ok(proof)) = (
        decode_exact::<ziffle::RevealToken>("token", t.bytes.get(..POINT_LEN).unwrap_or(&[]), 33),
        decode_exact::<RevealTokenProof>("proof", t.bytes.get(POINT_LEN..).unwrap_or(&[]), 98),
    ) else {
        return false;
    };
    let pk = decode_exact::<PublicKey>("pk", &point_bytes(&t.pk), 33).unwrap();
    let mut deck = point_bytes(&t.c1).to_vec();
    deck.extend_from_slice(&point_bytes(&generator()));
    deck.extend_from_slice(&deck.clone());
    let deck = decode_exact::<MaskedDeck<2>>("deck", &deck, 2 * CIPHERTEXT_LEN).unwrap();
    let card = as_verified(deck).get(0).unwrap();
    proof.verify(as_verified(pk), token, card, &t.ctx).is_some()
}

/// Honest tokens from both implementations on random cards, for several keys.
fn honest_tokens(seed: u64, count: usize) -> Vec<Token> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    (0..count)
        .map(|i| {
            let c1 = random_point(&mut rng);
            let ctx = format!("token {i}").into_bytes();
            let (sk, pk, _) = sigma::keygen(&mut rng, b"k");
            let bytes = if i % 2 == 0 {
                let (share, proof) = sigma::make_token(&mut rng, &sk, &pk, &c1, &ctx);
                [point_bytes(&share).to_vec(), proof.to_bytes().to_vec()].concat()
            } else {
                // ziffle's prover, through a verified two-card deck holding this c1.
                let zsk = decode_exact::<SecretKey>("sk", &scalar_bytes(&sk), 32).unwrap();
                let zpk = decode_exact::<PublicKey>("pk", &point_bytes(&pk), 33).unwrap();
                let mut deck = point_bytes(&c1).to_vec();
                deck.extend_from_slice(&point_bytes(&generator()));
                deck.extend_from_slice(&deck.clone());
                let deck = decode_exact::<MaskedDeck<2>>("deck", &deck, 132).unwrap();
                let (t, p) = as_verified(deck)
                    .get(0)
                    .unwrap()
                    .reveal_token(&mut rng, &zsk, zpk, &ctx);
                [encode(&t), encode(&p)].concat()
            };
            Token { pk, c1, bytes, ctx }
        })
        .collect()
}

fn mutate_token(rng: &mut ChaCha20Rng, t: &mut Token, other: &Token) -> &'static str {
    match rng.gen_range(0..11) {
        0 => {
            let bit = rng.gen_range(0..t.bytes.len() * 8);
            t.bytes[bit / 8] ^= 1 << (bit % 8);
            "bit flip"
        }
        1 => {
            t.ctx.push(rng.gen());
            "wrong context"
        }
        2 => {
            t.c1 = if rng.gen_bool(0.5) {
                other.c1
            } else {
                random_point(rng)
            };
            "another card"
        }
        3 => {
            t.pk = if rng.gen_bool(0.5) {
                other.pk
            } else {
                random_point(rng)
            };
            "another key"
        }
        4 => {
            t.bytes[..POINT_LEN].copy_from_slice(&other.bytes[..POINT_LEN]);
            "another token's share"
        }
        5 => {
            t.bytes[POINT_LEN..].copy_from_slice(&other.bytes[POINT_LEN..]);
            "another token's proof"
        }
        6 => {
            let (a, b) = t.bytes[POINT_LEN..3 * POINT_LEN].split_at_mut(POINT_LEN);
            a.swap_with_slice(b);
            "t_g and t_c1 exchanged"
        }
        7 => {
            if rng.gen_bool(0.5) {
                t.bytes[..POINT_LEN].copy_from_slice(&point_bytes(&random_point(rng)));
            } else {
                t.bytes[3 * POINT_LEN..].copy_from_slice(&scalar_bytes(&Scalar::rand(rng)));
            }
            "share or response replaced"
        }
        8 => {
            if rng.gen_bool(0.5) {
                t.bytes
                    .truncate(t.bytes.len() - rng.gen_range(1..=t.bytes.len()));
            } else {
                t.bytes.push(rng.gen());
            }
            "truncated or extended"
        }
        9 => {
            let at = rng.gen_range(0..3) * POINT_LEN;
            t.bytes[at + 32] |= 1 << rng.gen_range(0..6);
            "non-canonical point"
        }
        _ => {
            t.bytes[3 * POINT_LEN..].copy_from_slice(&scalar_at_least_order(rng.gen()));
            "scalar not below the group order"
        }
    }
}

fn token_mutations(cases: u32) {
    let tokens = honest_tokens(21, 16);
    for t in &tokens {
        assert!(ours_accepts_token(t) && ziffle_accepts_token(t));
    }
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(0..tokens.len(), any::<u64>()), |(i, seed)| {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let (t, what) = loop {
                let mut t = tokens[i].clone();
                let what = mutate_token(&mut rng, &mut t, &tokens[(i + 1) % tokens.len()]);
                if t != tokens[i] {
                    break (t, what);
                }
            };
            let ours = ours_accepts_token(&t);
            let theirs = ziffle_accepts_token(&t);
            let page = limbs32::forced(|| ours_accepts_token(&t));
            prop_assert!(
                !ours && !theirs && !page,
                "token, {what}: ours {ours}, ziffle {theirs}, the page's arithmetic {page}"
            );
            Ok(())
        })
        .unwrap();
}

#[test]
fn mutated_tokens_are_rejected_by_both() {
    token_mutations(TOKEN_CASES * scale());
}

/// Random mixes of good and bad tokens: the batch passes exactly when each token does, by our
/// one-by-one check and by ziffle's.
fn token_batches(cases: u32) {
    let tokens = honest_tokens(22, 48);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(
            &(1usize..=40, 0.0f64..0.3, any::<u64>()),
            |(k, bad, seed)| {
                let mut rng = ChaCha20Rng::seed_from_u64(seed);
                let mut mix = Vec::with_capacity(k);
                for _ in 0..k {
                    let i = rng.gen_range(0..tokens.len());
                    let mut t = tokens[i].clone();
                    if rng.gen_bool(bad) {
                        mutate_token(&mut rng, &mut t, &tokens[(i + 1) % tokens.len()]);
                    }
                    mix.push(t);
                }
                let singles: Vec<bool> = mix.iter().map(ours_accepts_token).collect();
                let reference: Vec<bool> = mix.iter().map(ziffle_accepts_token).collect();
                prop_assert_eq!(&singles, &reference);
                // The batch is over the tokens that decode (the others never reach it).
                let decoded: Vec<(&Token, Affine, TokenProof)> = mix
                    .iter()
                    .filter_map(|t| split_token(&t.bytes).map(|(share, proof)| (t, share, proof)))
                    .collect();
                let statements: Vec<TokenStatement<'_>> = decoded
                    .iter()
                    .map(|(t, share, proof)| TokenStatement {
                        pk: t.pk,
                        c1: t.c1,
                        share: *share,
                        proof,
                        ctx: &t.ctx,
                    })
                    .collect();
                let each = statements.iter().all(sigma::verify_token);
                prop_assert_eq!(sigma::verify_tokens(&statements), each);
                prop_assert_eq!(
                    limbs32::forced(|| sigma::verify_tokens(&statements)),
                    each,
                    "the page's arithmetic"
                );
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn token_batches_agree_with_single_checks() {
    token_batches(BATCH_CASES * scale());
}

fn key_mutations(cases: u32) {
    let mut rng = ChaCha20Rng::seed_from_u64(23);
    let z = Shuffle::<2>::default();
    let keys: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = (0..8)
        .map(|i| {
            let ctx = vec![b'k', i];
            let (pk, proof) = if i % 2 == 0 {
                let (_, pk, proof) = sigma::keygen(&mut rng, &ctx);
                (point_bytes(&pk).to_vec(), proof.to_bytes().to_vec())
            } else {
                let (_, pk, proof) = z.keygen(&mut rng, &ctx);
                (encode(&pk), encode(&proof))
            };
            (pk, proof, ctx)
        })
        .collect();
    let ours = |pk: &[u8], proof: &[u8], ctx: &[u8]| match (
        super::bg::group::decode_point(pk),
        KeyProof::from_bytes(proof),
    ) {
        (Some(pk), Some(proof)) => sigma::verify_key(&pk, &proof, ctx),
        _ => false,
    };
    let theirs = |pk: &[u8], proof: &[u8], ctx: &[u8]| match (
        decode_exact::<PublicKey>("pk", pk, 33),
        decode_exact::<OwnershipProof>("proof", proof, 65),
    ) {
        (Ok(pk), Ok(proof)) => proof.verify(pk, ctx).is_some(),
        _ => false,
    };
    for (pk, proof, ctx) in &keys {
        assert!(ours(pk, proof, ctx) && theirs(pk, proof, ctx));
    }
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(0..keys.len(), any::<u64>()), |(i, seed)| {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let (mut pk, mut proof, mut ctx) = keys[i].clone();
            let other = &keys[(i + 1) % keys.len()];
            let what = match rng.gen_range(0..9) {
                0 => {
                    let bit = rng.gen_range(0..proof.len() * 8);
                    proof[bit / 8] ^= 1 << (bit % 8);
                    "bit flip in the proof"
                }
                1 => {
                    let bit = rng.gen_range(0..pk.len() * 8);
                    pk[bit / 8] ^= 1 << (bit % 8);
                    "bit flip in the key"
                }
                2 => {
                    ctx[1] ^= 0x80;
                    "wrong context"
                }
                3 => {
                    pk = other.0.clone();
                    "another key"
                }
                4 => {
                    proof = other.1.clone();
                    "another proof"
                }
                5 => {
                    proof[POINT_LEN..].copy_from_slice(&scalar_bytes(&Scalar::rand(&mut rng)));
                    "response replaced"
                }
                6 => {
                    proof[32] |= 1 << rng.gen_range(0..6);
                    "non-canonical point"
                }
                7 => {
                    proof[POINT_LEN..].copy_from_slice(&scalar_at_least_order(rng.gen()));
                    "scalar not below the group order"
                }
                _ => {
                    if rng.gen_bool(0.5) {
                        proof.pop();
                    } else {
                        pk.push(0);
                    }
                    "truncated or extended"
                }
            };
            let (a, b) = (ours(&pk, &proof, &ctx), theirs(&pk, &proof, &ctx));
            prop_assert!(!a && !b, "key proof, {what}: ours {a}, ziffle {b}");
            Ok(())
        })
        .unwrap();
}

#[test]
fn mutated_key_proofs_are_rejected_by_both() {
    key_mutations(KEY_CASES * scale());
}

/// Ten times every case count above (about 6 min wall on the loaded 2-core machine).
#[test]
#[ignore]
fn differential_heavy() {
    shuffle_mutations::<2>(SHUFFLE_CASES[0].1 * 10);
    shuffle_mutations::<3>(SHUFFLE_CASES[1].1 * 10);
    shuffle_mutations::<10>(SHUFFLE_CASES[2].1 * 10);
    shuffle_mutations::<52>(SHUFFLE_CASES[3].1 * 10);
    shuffle_mutations::<104>(SHUFFLE_CASES[4].1 * 10);
    chain_mutations::<10>(CHAIN_CASES[0].1 * 10);
    chain_mutations::<52>(CHAIN_CASES[1].1 * 10);
    token_mutations(TOKEN_CASES * 10);
    token_batches(BATCH_CASES * 10);
    key_mutations(KEY_CASES * 10);
    for seed in 10..20 {
        same_bytes::<3>(seed);
        same_bytes::<52>(seed);
    }
}
