//! Strict encodings: exact length, canonical bytes, nothing trailing; base64 for JSON.
//!
//! arkworks' `deserialize_compressed` stops reading once it has a value, so trailing bytes would
//! go unnoticed, and the spare bits of the 33rd byte of a compressed secp256k1 point are not all
//! checked. We therefore demand the exact length, decode with validation (on-curve, in-range
//! scalars), and re-encode: the input must equal the canonical encoding byte for byte. The
//! product decodes points and scalars with `bg::group`; the generic [`decode_exact`] here is the
//! same rule for any arkworks type, used by the tests to decode ziffle's types the way the
//! project did before it had its own implementation.

#[cfg(test)]
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::FairError;

/// Canonical compressed arkworks encoding.
#[cfg(test)]
pub(crate) fn encode<T: CanonicalSerialize>(value: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.compressed_size());
    value
        .serialize_compressed(&mut out)
        .expect("writing to a Vec cannot fail");
    out
}

/// Decode `bytes` as exactly one canonical `T` of `expected` bytes.
#[cfg(test)]
pub(crate) fn decode_exact<T: CanonicalDeserialize + CanonicalSerialize>(
    what: &'static str,
    bytes: &[u8],
    expected: usize,
) -> Result<T, FairError> {
    if bytes.len() != expected {
        return Err(FairError::BadLength {
            what,
            expected,
            got: bytes.len(),
        });
    }
    let mut reader = bytes;
    let value =
        T::deserialize_compressed(&mut reader).map_err(|_| FairError::Malformed { what })?;
    if !reader.is_empty() || encode(&value) != bytes {
        return Err(FairError::Malformed { what });
    }
    Ok(value)
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn to_base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Strict standard base64 (padding required, no stray bits, no whitespace).
pub fn from_base64(what: &'static str, text: &str) -> Result<Vec<u8>, FairError> {
    STANDARD
        .decode(text)
        .map_err(|_| FairError::Malformed { what })
}

/// Copy a slice of known length into an array (after a length check).
pub(crate) fn array<const L: usize>(
    what: &'static str,
    bytes: &[u8],
) -> Result<[u8; L], FairError> {
    bytes.try_into().map_err(|_| FairError::BadLength {
        what,
        expected: L,
        got: bytes.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ec::AffineRepr;
    use ark_secp256k1::Affine;

    #[test]
    fn point_roundtrip_and_strictness() {
        let g = Affine::generator();
        let bytes = encode(&g);
        assert_eq!(bytes.len(), 33);
        let back: Affine = decode_exact("point", &bytes, 33).unwrap();
        assert_eq!(back, g);

        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            decode_exact::<Affine>("point", &long, 33),
            Err(FairError::BadLength { .. })
        ));
        assert!(matches!(
            decode_exact::<Affine>("point", &bytes[..32], 33),
            Err(FairError::BadLength { .. })
        ));
        // Stray bits in the flag byte are not canonical even if arkworks would accept them.
        for bit in 0..6 {
            let mut odd = bytes.clone();
            odd[32] ^= 1 << bit;
            assert!(
                decode_exact::<Affine>("point", &odd, 33).is_err(),
                "bit {bit}"
            );
        }
        // x = 2^256 - 1 is out of range.
        let mut big = vec![0xffu8; 32];
        big.push(0);
        assert!(decode_exact::<Affine>("point", &big, 33).is_err());
    }

    #[test]
    fn base64_is_strict() {
        let text = to_base64(b"hello");
        assert_eq!(from_base64("x", &text).unwrap(), b"hello");
        assert!(from_base64("x", "aGVsbG8").is_err()); // missing padding
        assert!(from_base64("x", "aGVsbG9=").is_err()); // stray bits
        assert!(from_base64("x", "aGVs bG8=").is_err());
    }
}
