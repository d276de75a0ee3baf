//! The group (secp256k1 from `ark-secp256k1`), its canonical encodings, and the public
//! generators every seat must agree on: the Pedersen key `h, g_0, g_1, …` and the card points
//! `M_0, M_1, …`.
//!
//! ziffle derives each list from one ChaCha12 stream (rand 0.8's `StdRng`) seeded with a sha256
//! of a fixed label, drawing one element per entry, so the generators for N cards are the first
//! N of an endless list. We draw from the same streams, as far as the largest deck asked for so
//! far, and cache the result: every size shares one list and any size is possible.

use std::sync::{Arc, OnceLock, RwLock};

use ark_ec::scalar_mul::{BatchMulPreprocessing, ScalarMul};
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{PrimeField, UniformRand};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;
use sha2::{Digest, Sha256};

/// A point in affine form (what is encoded and fed to multi-scalar multiplications).
pub(crate) type Affine = ark_secp256k1::Affine;
/// A point in projective form (what arithmetic produces).
pub(crate) type Point = ark_secp256k1::Projective;
/// An element of the scalar field.
pub(crate) type Scalar = ark_secp256k1::Fr;
/// An ElGamal ciphertext `(c1, c2) = (r·G, M + r·PK)`.
pub(crate) type Ciphertext = (Affine, Affine);

/// Compressed point: `x` little-endian and a flag byte.
pub(crate) const POINT_LEN: usize = 33;
/// Scalar, little-endian.
pub(crate) const SCALAR_LEN: usize = 32;
/// Two points.
pub(crate) const CIPHERTEXT_LEN: usize = 2 * POINT_LEN;

/// The labels ziffle hashes into the ChaCha12 seeds. They are part of the wire protocol: a
/// different label is a different, incompatible set of generators.
const CARDS_SEED: &[u8] = b"CARDS-V1";
const PEDERSEN_H_SEED: &[u8] = b"PEDERSON-H-V1";
const PEDERSEN_G_SEED: &[u8] = b"PEDERSON-VECTOR-G-V1";

/// The curve's standard generator `G`.
pub(crate) fn generator() -> Affine {
    Affine::generator()
}

/// Canonical compressed encoding of a point.
pub(crate) fn point_bytes(p: &Affine) -> [u8; POINT_LEN] {
    let mut out = [0u8; POINT_LEN];
    p.serialize_compressed(&mut out[..])
        .expect("a compressed point is 33 bytes");
    out
}

/// Canonical encoding of a scalar.
pub(crate) fn scalar_bytes(s: &Scalar) -> [u8; SCALAR_LEN] {
    let mut out = [0u8; SCALAR_LEN];
    s.serialize_compressed(&mut out[..])
        .expect("a scalar is 32 bytes");
    out
}

/// Strict point decoding: exactly 33 bytes, byte-identical to the canonical encoding of a point
/// on the curve (`x` below the field's prime, a flag byte of `0x00`, `0x80` or, for the point at
/// infinity with `x = 0`, `0x40`).
///
/// The square root that recovers `y` is libsecp256k1's (the `secp256k1` crate nostr already
/// builds): its fixed addition chain is several times faster than arkworks' generic
/// exponentiation, and a client decodes every published deck — 208 points per shuffle of a
/// 104-card deck, the largest single cost of a ten-seat hand after the proofs themselves.
/// [`decode_point_arkworks`] is the same function written with arkworks alone; the two are
/// compared on valid and mutated encodings in the tests below.
pub(crate) fn decode_point(bytes: &[u8]) -> Option<Affine> {
    let bytes: &[u8; POINT_LEN] = bytes.try_into().ok()?;
    let x_le = &bytes[..32];
    // arkworks' flags: bit 7 says `y` is the larger of `y` and `-y`, bit 6 the point at
    // infinity; every other bit of the last byte is spare and must be zero.
    let larger = match bytes[32] {
        0x00 => false,
        0x80 => true,
        0x40 => return x_le.iter().all(|b| *b == 0).then(Affine::zero),
        _ => return None,
    };
    // SEC1 names `y` by its parity instead: ask for the even root, then pick by size.
    let mut sec1 = [0u8; 33];
    sec1[0] = 0x02;
    for (d, s) in sec1[1..].iter_mut().zip(x_le.iter().rev()) {
        *d = *s;
    }
    let (x, mut y) = even_root(&sec1)?;
    if (y > -y) != larger {
        y = -y;
    }
    Some(Affine::new_unchecked(x, y))
}

/// The point of a SEC1 compressed encoding with an even `y`, as its coordinates; `None` for an
/// `x` at or above the prime and an `x` with no point on the curve. On wasm32 through `k256`'s
/// 32-bit limbs (a quarter of libsecp256k1's time there, see `limbs32`), natively libsecp256k1.
fn even_root(sec1: &[u8; 33]) -> Option<(ark_secp256k1::Fq, ark_secp256k1::Fq)> {
    #[cfg(any(target_arch = "wasm32", test))]
    if super::limbs32::in_use() {
        return super::limbs32::decompress(sec1);
    }
    let full = secp256k1::PublicKey::from_slice(sec1)
        .ok()?
        .serialize_uncompressed();
    Some((base_field_be(&full[1..33])?, base_field_be(&full[33..65])?))
}

/// A base-field element from 32 big-endian bytes below the prime.
fn base_field_be(bytes: &[u8]) -> Option<ark_secp256k1::Fq> {
    let mut limbs = [0u64; 4];
    for (limb, chunk) in limbs.iter_mut().zip(bytes.rchunks_exact(8)) {
        *limb = u64::from_be_bytes(chunk.try_into().expect("8 bytes"));
    }
    ark_secp256k1::Fq::from_bigint(ark_ff::BigInt::new(limbs))
}

/// [`decode_point`] with arkworks' own decoder: the reference the fast path is tested against.
#[cfg(test)]
pub(crate) fn decode_point_arkworks(bytes: &[u8]) -> Option<Affine> {
    if bytes.len() != POINT_LEN {
        return None;
    }
    let p = Affine::deserialize_with_mode(bytes, Compress::Yes, Validate::Yes).ok()?;
    (point_bytes(&p) == bytes).then_some(p)
}

/// Strict scalar decoding: exactly 32 bytes encoding a value below the group order.
pub(crate) fn decode_scalar(bytes: &[u8]) -> Option<Scalar> {
    if bytes.len() != SCALAR_LEN {
        return None;
    }
    let s = Scalar::deserialize_with_mode(bytes, Compress::Yes, Validate::Yes).ok()?;
    (scalar_bytes(&s) == bytes).then_some(s)
}

/// Strict decoding of `66·n` bytes into `n` ciphertexts.
pub(crate) fn decode_ciphertexts(bytes: &[u8]) -> Option<Vec<Ciphertext>> {
    if !bytes.len().is_multiple_of(CIPHERTEXT_LEN) {
        return None;
    }
    bytes
        .chunks_exact(CIPHERTEXT_LEN)
        .map(|c| {
            Some((
                decode_point(&c[..POINT_LEN])?,
                decode_point(&c[POINT_LEN..])?,
            ))
        })
        .collect()
}

/// Encoding of ciphertexts, 66 bytes each.
pub(crate) fn ciphertexts_bytes(cards: &[Ciphertext]) -> Vec<u8> {
    let mut out = Vec::with_capacity(cards.len() * CIPHERTEXT_LEN);
    for (c1, c2) in cards {
        out.extend_from_slice(&point_bytes(c1));
        out.extend_from_slice(&point_bytes(c2));
    }
    out
}

/// The public generators for decks of up to `len()` cards.
pub(crate) struct Generators {
    /// Pedersen blinding generator.
    pub(crate) h: Affine,
    /// Pedersen vector generators `g_0, g_1, …`.
    pub(crate) g: Vec<Affine>,
    /// Card points: card `i` of the initial deck is `M_i`.
    pub(crate) cards: Vec<Affine>,
    /// Encoding of the initial deck `(∞, M_i)`, card after card.
    pub(crate) initial_bytes: Vec<u8>,
}

impl Generators {
    /// How many cards these generators cover.
    pub(crate) fn len(&self) -> usize {
        self.g.len()
    }

    /// The unmasked initial deck of `n` cards: `(∞, M_i)`.
    pub(crate) fn initial_deck(&self, n: usize) -> Vec<Ciphertext> {
        self.cards[..n]
            .iter()
            .map(|&m| (Affine::zero(), m))
            .collect()
    }

    fn derive(len: usize) -> Self {
        let stream = |label: &[u8]| ChaCha12Rng::from_seed(Sha256::digest(label).into());
        let h = Point::rand(&mut stream(PEDERSEN_H_SEED)).into_affine();
        let mut g_rng = stream(PEDERSEN_G_SEED);
        let g: Vec<Point> = (0..len).map(|_| Point::rand(&mut g_rng)).collect();
        let mut card_rng = stream(CARDS_SEED);
        let exponents: Vec<Scalar> = (0..len).map(|_| Scalar::rand(&mut card_rng)).collect();
        let cards = mul_generator(&exponents);
        let initial_bytes = ciphertexts_bytes(
            &cards
                .iter()
                .map(|&m| (Affine::zero(), m))
                .collect::<Vec<_>>(),
        );
        Generators {
            h,
            g: Point::normalize_batch(&g),
            cards,
            initial_bytes,
        }
    }
}

/// The generators for decks of at least `n` cards, derived on first use and cached for the
/// process. A larger request re-derives the (common) prefix once, rounding up so that a table
/// growing one size at a time does not pay for every step.
pub(crate) fn generators(n: usize) -> Arc<Generators> {
    static CACHE: RwLock<Option<Arc<Generators>>> = RwLock::new(None);
    if let Some(g) = CACHE
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .filter(|g| g.len() >= n)
    {
        return g.clone();
    }
    let mut slot = CACHE.write().unwrap_or_else(|e| e.into_inner());
    if let Some(g) = slot.as_ref().filter(|g| g.len() >= n) {
        return g.clone();
    }
    let len = n.max(64).next_power_of_two();
    let fresh = Arc::new(Generators::derive(len));
    *slot = Some(fresh.clone());
    fresh
}

/// `s·G` for many `s`, through a precomputed window table of `G`: several times cheaper than a
/// generic scalar multiplication, and `G` is the base of every key, remasking and nonce.
pub(crate) fn mul_generator(scalars: &[Scalar]) -> Vec<Affine> {
    #[cfg(any(target_arch = "wasm32", test))]
    if super::limbs32::in_use() {
        if let Some(points) = super::limbs32::mul_generator(scalars) {
            return points;
        }
    }
    static TABLE: OnceLock<BatchMulPreprocessing<Point>> = OnceLock::new();
    TABLE
        .get_or_init(|| BatchMulPreprocessing::new(generator().into_group(), 256))
        .batch_mul(scalars)
}

/// `Σ s_i·B_i` over the shorter of the two lists: every Pedersen commitment, ciphertext product
/// and batched check. On wasm32 through `k256` (see `limbs32`), natively through arkworks.
pub(crate) fn msm(bases: &[Affine], scalars: &[Scalar]) -> Point {
    #[cfg(any(target_arch = "wasm32", test))]
    if super::limbs32::in_use() {
        if let Some(point) = super::limbs32::msm(bases, scalars) {
            return point;
        }
    }
    Point::msm_unchecked(bases, scalars)
}

/// `s·G` for one `s`.
pub(crate) fn mul_generator_one(s: &Scalar) -> Affine {
    mul_generator(std::slice::from_ref(s))[0]
}

/// `s·P` for many `s` and one base `P`, through a window table built for this call (worth it
/// from a few dozen scalars on).
pub(crate) fn mul_base(base: &Affine, scalars: &[Scalar]) -> Vec<Affine> {
    base.into_group().batch_mul(scalars)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn chacha12_is_rand_08_std_rng() {
        // ziffle draws its generators from rand 0.8's StdRng; we name its algorithm explicitly.
        let seed: [u8; 32] = Sha256::digest(PEDERSEN_G_SEED).into();
        let mut ours = ChaCha12Rng::from_seed(seed);
        let mut std = rand::rngs::StdRng::from_seed(seed);
        for _ in 0..1000 {
            assert_eq!(ours.next_u64(), std.next_u64());
        }
    }

    #[test]
    fn generators_are_prefixes_of_one_list() {
        let small = Generators::derive(3);
        let big = generators(200);
        assert!(big.len() >= 200);
        assert_eq!(small.h, big.h);
        assert_eq!(small.g[..], big.g[..3]);
        assert_eq!(small.cards[..], big.cards[..3]);
        assert_eq!(
            small.initial_bytes[..],
            big.initial_bytes[..3 * CIPHERTEXT_LEN]
        );
        // Distinct, so no two cards open alike and no two generators coincide.
        let mut xs: Vec<[u8; 33]> = big.g.iter().chain(&big.cards).map(point_bytes).collect();
        xs.push(point_bytes(&big.h));
        xs.sort_unstable();
        xs.dedup();
        assert_eq!(xs.len(), 2 * big.len() + 1);
    }

    #[test]
    fn strict_point_and_scalar_decoding() {
        let g = generator();
        let b = point_bytes(&g);
        assert_eq!(decode_point(&b), Some(g));
        for bit in 0..6 {
            let mut odd = b;
            odd[32] ^= 1 << bit;
            assert_eq!(decode_point(&odd), None, "flag bit {bit}");
        }
        assert_eq!(decode_point(&b[..32]), None);
        let inf = point_bytes(&Affine::zero());
        assert_eq!(decode_point(&inf), Some(Affine::zero()));
        let mut inf_x = inf;
        inf_x[0] = 1;
        assert_eq!(decode_point(&inf_x), None, "infinity with a stray x");
        let order_minus_one = -Scalar::from(1u64);
        let mut s = scalar_bytes(&order_minus_one);
        assert_eq!(decode_scalar(&s), Some(order_minus_one));
        s[0] = s[0].wrapping_add(1); // the group order itself
        assert_eq!(decode_scalar(&s), None);
        assert_eq!(decode_scalar(&[0xff; 32]), None);
    }

    /// The fast decoder and arkworks' own agree on every encoding: points with both flags,
    /// the point at infinity, and thousands of mutations (a flipped bit anywhere, `x` at or
    /// above the prime, `x` with no point, random bytes).
    #[test]
    fn fast_point_decoding_agrees_with_arkworks() {
        let mut rng = ChaCha12Rng::seed_from_u64(11);
        let mut encodings: Vec<Vec<u8>> = Vec::new();
        for _ in 0..2_000 {
            let p = (generator() * Scalar::rand(&mut rng)).into_affine();
            let b = point_bytes(&p);
            encodings.push(b.to_vec());
            let mut flipped = b;
            let bit = rng.next_u32() as usize % (8 * POINT_LEN);
            flipped[bit / 8] ^= 1 << (bit % 8);
            encodings.push(flipped.to_vec());
            let mut random = [0u8; POINT_LEN];
            rng.fill_bytes(&mut random[..32]);
            random[32] = [0x00, 0x80, 0x40, 0xc0, 0x01][rng.next_u32() as usize % 5];
            encodings.push(random.to_vec());
        }
        // x = p − k and x = 2^256 − k: at and above the prime, with either flag.
        let p_le = {
            let mut b = [0u8; 32];
            b.copy_from_slice(&ark_ff::BigInteger::to_bytes_le(
                &ark_secp256k1::Fq::MODULUS,
            ));
            b
        };
        for k in 0u8..8 {
            for flag in [0x00, 0x80] {
                let mut at = [0u8; POINT_LEN];
                at[..32].copy_from_slice(&p_le);
                at[0] = at[0].wrapping_sub(k).wrapping_add(4);
                at[32] = flag;
                encodings.push(at.to_vec());
                let mut top = [0xffu8; POINT_LEN];
                top[0] = 0xff - k;
                top[32] = flag;
                encodings.push(top.to_vec());
            }
        }
        encodings.push(point_bytes(&Affine::zero()).to_vec());
        encodings.push(vec![0u8; POINT_LEN]);
        encodings.push(vec![0u8; POINT_LEN - 1]);
        encodings.push(vec![0u8; POINT_LEN + 1]);
        let mut accepted = 0;
        for e in &encodings {
            let fast = decode_point(e);
            assert_eq!(fast, decode_point_arkworks(e), "{}", hex::encode(e));
            // The page's square root (k256 on wasm32) decides the same.
            let page = super::super::limbs32::forced(|| decode_point(e));
            assert_eq!(page, fast, "the page's arithmetic: {}", hex::encode(e));
            accepted += usize::from(fast.is_some());
        }
        // Both kinds of case were exercised.
        assert!(
            accepted > 2_000 && accepted < encodings.len() - 2_000,
            "{accepted}"
        );
    }

    #[test]
    fn generator_table_matches_plain_multiplication() {
        let mut rng = ChaCha12Rng::seed_from_u64(3);
        let s: Vec<Scalar> = (0..40).map(|_| Scalar::rand(&mut rng)).collect();
        let fast = mul_generator(&s);
        for (p, s) in fast.iter().zip(&s) {
            assert_eq!(*p, (generator() * s).into_affine());
        }
        let base = (generator() * s[0]).into_affine();
        for (p, k) in mul_base(&base, &s).iter().zip(&s) {
            assert_eq!(*p, (base * k).into_affine());
        }
    }
}
