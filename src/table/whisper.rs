//! The cryptography of a whisper (PROTOCOL.md §5.11, FAIR.md §10): one seat sends a secret to
//! whichever seat holds a card, without learning which seat that is.
//!
//! Every candidate publishes a *mailbox key*, an x-only secp256k1 public key: the card's holder a
//! key of its own (its secret derived from its master secret), every other candidate a *decoy*,
//! the first hash of a seed of its own, bound to the table, the whisper and its seat, that is a
//! valid x coordinate. Both are uniformly distributed valid x coordinates, so nobody can tell
//! them apart; nobody knows a decoy's discrete logarithm. The whisperer seals its letter to every
//! mailbox with NIP-44 v2 (nostr-sdk's implementation: ECDH, HKDF, ChaCha20, HMAC-SHA256) under a
//! one-time letter key; only the holder can open its letter. At the opening the whisperer shows
//! its letter-key secret, so everyone can open every letter and check they all hold the same,
//! committed secret, and every non-holder shows its seed, so everyone can check its mailbox was a
//! decoy it could not read.
//!
//! No curve, hash or cipher of our own: keys and ECDH are libsecp256k1's through nostr-sdk, the
//! letter is NIP-44 v2 as nostr-sdk implements it, the hash SHA-256.

use crate::engine::Seat;
use nostr::prelude::{nip44, Keys, PublicKey, SecretKey};
use rand::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};

/// Domain of the decoy hash.
const DECOY_DOMAIN: &[u8] = b"tolerance/whisper/decoy/v1";

/// Tries before a decoy search gives up: each try succeeds with probability about 1/2, so 256
/// failures in a row do not happen.
const DECOY_TRIES: u32 = 256;

fn lp(h: &mut Sha256, part: &[u8]) {
    h.update((part.len() as u32).to_be_bytes());
    h.update(part);
}

/// A secp256k1 secret key from 32 derived bytes (an invalid scalar has probability ≈ 2⁻¹²⁸).
pub fn secret_key(bytes: &[u8; 32]) -> Result<SecretKey, String> {
    SecretKey::from_slice(bytes).map_err(|e| format!("not a usable secret key: {e}"))
}

/// The x-only public key of `secret`.
pub fn public_key(secret: &SecretKey) -> PublicKey {
    Keys::new(secret.clone()).public_key()
}

/// A published key, read strictly: 64 hex digits that are the x coordinate of a curve point.
pub fn parse_key(hex: &str) -> Result<PublicKey, String> {
    let k = PublicKey::from_hex(hex).map_err(|_| format!("'{hex}' is not 64 hex digits"))?;
    k.xonly()
        .map_err(|_| format!("{hex} is not a point of secp256k1"))?;
    Ok(k)
}

/// The decoy mailbox key of `seat` for `owner`'s whisper of roll `roll` at table `table`: the
/// first `sha256(lp(domain) ‖ lp(table) ‖ lp(owner) ‖ lp(roll) ‖ lp(seat) ‖ lp(seed) ‖
/// lp(counter))`, counter 0, 1, …, that is a valid x-only key. Binding the seat keeps one seat
/// from passing off another's published seed as its own.
pub fn decoy_key(
    table: &[u8; 32],
    owner: Seat,
    roll: u32,
    seat: Seat,
    seed: &[u8; 32],
) -> Result<PublicKey, String> {
    for counter in 0..DECOY_TRIES {
        let mut h = Sha256::new();
        lp(&mut h, DECOY_DOMAIN);
        lp(&mut h, table);
        lp(&mut h, &[owner]);
        lp(&mut h, &roll.to_be_bytes());
        lp(&mut h, &[seat]);
        lp(&mut h, seed);
        lp(&mut h, &counter.to_be_bytes());
        let k = PublicKey::from_byte_array(h.finalize().into());
        if k.xonly().is_ok() {
            return Ok(k);
        }
    }
    Err("no decoy key in 256 tries".into())
}

/// The letter to one mailbox: `plaintext` sealed with NIP-44 v2 from `letter` to `mailbox`.
pub fn seal<R: RngCore + CryptoRng>(
    rng: &mut R,
    letter: &SecretKey,
    mailbox: &PublicKey,
    plaintext: &[u8],
) -> Result<String, String> {
    nip44::encrypt_with_rng(rng, letter, mailbox, plaintext, nip44::Version::V2)
        .map_err(|e| format!("sealing a letter: {e}"))
}

/// Opens a letter with one side's secret and the other side's public key (the conversation key
/// is the same from both sides): the holder with its mailbox secret and the letter key, anyone
/// at the opening with the letter secret and the mailbox key.
pub fn open(secret: &SecretKey, other: &PublicKey, sealed: &str) -> Result<Vec<u8>, String> {
    nip44::decrypt_to_bytes(secret, other, sealed).map_err(|e| format!("{e}"))
}

/// Whether `sealed` has the form of a NIP-44 v2 payload (base64, version 2, a length NIP-44
/// allows): what every client can check of a letter it cannot open.
pub fn check_form(sealed: &str) -> Result<(), String> {
    use base64::Engine;
    // NIP-44 v2: 132 to 87,472 base64 characters.
    if !(132..=87_472).contains(&sealed.len()) {
        return Err(format!(
            "a letter of {} characters is not a NIP-44 v2 payload",
            sealed.len()
        ));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(sealed)
        .map_err(|_| "a letter is not base64".to_string())?;
    if bytes.first() != Some(&2) {
        return Err("a letter is not NIP-44 version 2".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    const TABLE: [u8; 32] = [3; 32];

    #[test]
    fn only_the_real_mailbox_opens_its_letter_and_the_opening_opens_all() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let letter = secret_key(&[9; 32]).unwrap();
        let real_secret = secret_key(&[5; 32]).unwrap();
        let real = public_key(&real_secret);
        let decoy = decoy_key(&TABLE, 0, 0, 2, &[7; 32]).unwrap();
        let msg = b"a die's value and its Merkle path";
        let to_real = seal(&mut rng, &letter, &real, msg).unwrap();
        let to_decoy = seal(&mut rng, &letter, &decoy, msg).unwrap();
        check_form(&to_real).unwrap();
        assert_eq!(to_real.len(), to_decoy.len(), "letters are the same size");
        // The holder opens its own with its mailbox secret and the letter key.
        assert_eq!(
            open(&real_secret, &public_key(&letter), &to_real).unwrap(),
            msg
        );
        // Another key opens nothing.
        let other = secret_key(&[6; 32]).unwrap();
        assert!(open(&other, &public_key(&letter), &to_real).is_err());
        // At the opening, the letter secret opens every letter, the decoy's included.
        assert_eq!(open(&letter, &real, &to_real).unwrap(), msg);
        assert_eq!(open(&letter, &decoy, &to_decoy).unwrap(), msg);
    }

    #[test]
    fn a_decoy_is_a_valid_key_bound_to_its_seat_and_seed() {
        let a = decoy_key(&TABLE, 0, 0, 1, &[1; 32]).unwrap();
        assert!(a.xonly().is_ok());
        assert_eq!(a, decoy_key(&TABLE, 0, 0, 1, &[1; 32]).unwrap());
        assert_ne!(a, decoy_key(&TABLE, 0, 0, 2, &[1; 32]).unwrap());
        assert_ne!(a, decoy_key(&TABLE, 0, 1, 1, &[1; 32]).unwrap());
        assert_ne!(a, decoy_key(&[4; 32], 0, 0, 1, &[1; 32]).unwrap());
        assert_ne!(a, decoy_key(&TABLE, 0, 0, 1, &[2; 32]).unwrap());
        assert!(parse_key(&a.to_hex()).is_ok());
        // Not every 32 bytes are a key: about half are not on the curve.
        let off = (0u8..=255)
            .map(|i| hex::encode([i; 32]))
            .filter(|h| parse_key(h).is_err())
            .count();
        assert!(off > 50 && off < 206, "{off}");
    }
}
