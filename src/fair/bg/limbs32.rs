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
//! the same group element and every proof is byte for byte the same. The tests
//! (`limbs32_tests.rs`) check that against arkworks on random and on degenerate inputs, and on
//! whole shuffles, tokens and their checks made through this module natively. Anything that
//! does not convert (which no point on the curve and no scalar does) makes the caller fall back
//! to arkworks, never panic.

use ark_ec::AffineRepr;
use ark_ff::{PrimeField, Zero};
use ark_serialize::CanonicalDeserialize;
use k256::elliptic_curve::ff::PrimeField as _;
use k256::elliptic_curve::group::GroupEncoding;
use k256::elliptic_curve::ops::MulByGenerator;
use k256::elliptic_curve::sec1::{Coordinates, FromEncodedPoint, ToEncodedPoint};
use k256::elliptic_curve::BatchNormalize;
use k256::{AffinePoint, EncodedPoint, FieldBytes, ProjectivePoint};

// The group module calls this one, so the types are named here rather than imported from it.
type Affine = ark_secp256k1::Affine;
type Point = ark_secp256k1::Projective;
type Scalar = ark_secp256k1::Fr;
type Fq = ark_secp256k1::Fq;

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
pub(super) fn decompress(sec1: &[u8; 33]) -> Option<(Fq, Fq)> {
    let point: AffinePoint = Option::from(AffinePoint::from_bytes(sec1.into()))?;
    from_point(&point)?.xy()
}

/// A base-field element from its 32 big-endian bytes; `None` at or above the prime (arkworks'
/// decoding refuses a non-canonical element).
fn fq(be: &[u8]) -> Option<Fq> {
    let mut le = [0u8; 32];
    if be.len() != le.len() {
        return None;
    }
    for (d, s) in le.iter_mut().zip(be.iter().rev()) {
        *d = *s;
    }
    Fq::deserialize_compressed(&le[..]).ok()
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

pub(super) fn to_scalar(s: &Scalar) -> Option<k256::Scalar> {
    Option::from(k256::Scalar::from_repr(be_bytes(s)))
}

pub(super) fn to_point(p: &Affine) -> Option<ProjectivePoint> {
    let Some((x, y)) = p.xy() else {
        return Some(ProjectivePoint::IDENTITY);
    };
    let encoded = EncodedPoint::from_affine_coordinates(&be_bytes(&x), &be_bytes(&y), false);
    Option::<AffinePoint>::from(AffinePoint::from_encoded_point(&encoded)).map(Into::into)
}

pub(super) fn from_point(p: &AffinePoint) -> Option<Affine> {
    match p.to_encoded_point(false).coordinates() {
        Coordinates::Identity => Some(Affine::zero()),
        Coordinates::Uncompressed { x, y } => {
            let point = Affine::new_unchecked(fq(x)?, fq(y)?);
            point.is_on_curve().then_some(point)
        }
        _ => None,
    }
}
