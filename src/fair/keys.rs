//! Per-hand key shares with Schnorr proofs of knowledge, the seat commitments, and the joint
//! (aggregate ElGamal) key.

use std::fmt;

use rand::{CryptoRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::bg::aggregate;
use super::bg::group::{decode_point, point_bytes, Affine, Scalar};
use super::bg::sigma::{self, KeyProof};
use super::codec;
use super::context::{encode_fields, update_lp, Context, Label, Step};
use super::FairError;

/// Compressed secp256k1 point.
pub const PUBLIC_KEY_LEN: usize = 33;
/// Schnorr proof: commitment point (33) and response scalar (32).
pub const KEY_PROOF_LEN: usize = 65;
/// `pk ‖ proof ‖ key_commitment ‖ shuffle_commitment`.
pub const PUBLIC_SHARE_LEN: usize = PUBLIC_KEY_LEN + KEY_PROOF_LEN + 32 + 32;
/// `key_seed ‖ shuffle_seed`.
pub const SEAT_SECRET_LEN: usize = 64;

/// The point at infinity decodes as a valid point (and ziffle's proof accepts it as a key): it
/// is refused by name before anything else.
fn is_identity(p: &Affine) -> bool {
    use ark_ec::AffineRepr;
    p.is_zero()
}

/// What a seat publishes in the keys pass: its key share, the proof that it knows the secret
/// behind it (bound to table, hand, seat and Nostr key), and its two commitments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicShare {
    /// Compressed public key share `sk·G`.
    pub pk: [u8; PUBLIC_KEY_LEN],
    /// Schnorr proof (ziffle's `OwnershipProof` format) over the `proof` context of the `Keys`
    /// step.
    pub proof: [u8; KEY_PROOF_LEN],
    /// `ctx.digest(key-commit, [key_seed])`.
    pub key_commitment: [u8; 32],
    /// `ctx.digest(shuffle-commit, [shuffle_seed])`.
    pub shuffle_commitment: [u8; 32],
}

impl PublicShare {
    /// `pk ‖ proof ‖ key_commitment ‖ shuffle_commitment` (162 bytes).
    pub fn to_bytes(&self) -> [u8; PUBLIC_SHARE_LEN] {
        let mut out = [0u8; PUBLIC_SHARE_LEN];
        out[..33].copy_from_slice(&self.pk);
        out[33..98].copy_from_slice(&self.proof);
        out[98..130].copy_from_slice(&self.key_commitment);
        out[130..].copy_from_slice(&self.shuffle_commitment);
        out
    }

    /// Exact-length decoding; the points are checked by [`verify_public_share`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FairError> {
        let b: [u8; PUBLIC_SHARE_LEN] = codec::array("public share", bytes)?;
        Ok(PublicShare {
            pk: b[..33].try_into().expect("fixed split"),
            proof: b[33..98].try_into().expect("fixed split"),
            key_commitment: b[98..130].try_into().expect("fixed split"),
            shuffle_commitment: b[130..].try_into().expect("fixed split"),
        })
    }

    /// Base64 of [`PublicShare::to_bytes`].
    pub fn to_base64(&self) -> String {
        codec::to_base64(&self.to_bytes())
    }

    /// Strict inverse of [`PublicShare::to_base64`].
    pub fn from_base64(text: &str) -> Result<Self, FairError> {
        Self::from_bytes(&codec::from_base64("public share", text)?)
    }
}

/// The two seeds a seat commits to in the keys pass. Published only to settle a dispute (it
/// reveals the seat's key share and permutation for that hand).
#[derive(Clone, PartialEq, Eq)]
pub struct SeatOpening {
    /// Seed of the key share (the key pair is `keygen(ChaCha20(ctx.digest(key-rng, [seed])))`).
    pub key_seed: [u8; 32],
    /// Seed of the seat's shuffle step (see [`super::shuffle`]).
    pub shuffle_seed: [u8; 32],
}

impl fmt::Debug for SeatOpening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SeatOpening(..)")
    }
}

impl Drop for SeatOpening {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.key_seed.zeroize();
        self.shuffle_seed.zeroize();
    }
}

/// A seat's secrets for one hand: the two committed seeds and the key share derived from one of
/// them. Zeroised on drop. Persist it with [`SecretShare::to_bytes`] to resume a hand.
pub struct SecretShare {
    ctx: Context,
    key_seed: Zeroizing<[u8; 32]>,
    shuffle_seed: Zeroizing<[u8; 32]>,
    pub(crate) sk: Zeroizing<Scalar>,
    pub(crate) pk: Affine,
    public: PublicShare,
}

impl fmt::Debug for SecretShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretShare")
            .field("seat", &self.ctx.seat)
            .field("hand", &self.ctx.hand)
            .finish_non_exhaustive()
    }
}

impl SecretShare {
    /// Rebuild everything from the two seeds; deterministic, so anyone holding the opening can
    /// recompute the published key share and proof.
    fn derive(ctx: Context, key_seed: [u8; 32], shuffle_seed: [u8; 32]) -> Self {
        let rng_seed = Zeroizing::new(ctx.digest(Label::KeyRng, &[&key_seed]));
        let mut rng = ChaCha20Rng::from_seed(*rng_seed);
        let (sk, pk, proof) = sigma::keygen(&mut rng, &ctx.encode(Label::Proof));
        let public = PublicShare {
            pk: point_bytes(&pk),
            proof: proof.to_bytes(),
            key_commitment: ctx.digest(Label::KeyCommit, &[&key_seed]),
            shuffle_commitment: ctx.digest(Label::ShuffleCommit, &[&shuffle_seed]),
        };
        SecretShare {
            ctx,
            key_seed: Zeroizing::new(key_seed),
            shuffle_seed: Zeroizing::new(shuffle_seed),
            sk,
            pk,
            public,
        }
    }

    /// The `Keys`-step context this share was made for.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// What to publish in the keys pass.
    pub fn public_share(&self) -> &PublicShare {
        &self.public
    }

    /// `key_seed ‖ shuffle_seed`, for local persistence only.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SEAT_SECRET_LEN]> {
        let mut out = Zeroizing::new([0u8; SEAT_SECRET_LEN]);
        out[..32].copy_from_slice(&*self.key_seed);
        out[32..].copy_from_slice(&*self.shuffle_seed);
        out
    }

    /// Inverse of [`SecretShare::to_bytes`] for the same `Keys`-step context.
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<Self, FairError> {
        check_keys_step(ctx)?;
        let b: Zeroizing<[u8; SEAT_SECRET_LEN]> =
            Zeroizing::new(codec::array("seat secret", bytes)?);
        let key_seed = b[..32].try_into().expect("fixed split");
        let shuffle_seed = b[32..].try_into().expect("fixed split");
        Ok(Self::derive(*ctx, key_seed, shuffle_seed))
    }

    /// The seeds, to publish only when the table settles a dispute (after the hand).
    pub fn opening(&self) -> SeatOpening {
        SeatOpening {
            key_seed: *self.key_seed,
            shuffle_seed: *self.shuffle_seed,
        }
    }

    pub(crate) fn shuffle_seed(&self) -> &[u8; 32] {
        &self.shuffle_seed
    }
}

fn check_keys_step(ctx: &Context) -> Result<(), FairError> {
    if ctx.step != Step::Keys {
        return Err(FairError::ContextMismatch("key shares use the Keys step"));
    }
    Ok(())
}

/// Draw the seat's two seeds from `rng` (the OS RNG in the product) and derive its key share.
/// `ctx` is the seat's own context at the `Keys` step.
pub fn keygen(
    rng: &mut (impl RngCore + CryptoRng),
    ctx: &Context,
) -> Result<(SecretShare, PublicShare), FairError> {
    check_keys_step(ctx)?;
    let mut key_seed = Zeroizing::new([0u8; 32]);
    let mut shuffle_seed = Zeroizing::new([0u8; 32]);
    rng.fill_bytes(&mut *key_seed);
    rng.fill_bytes(&mut *shuffle_seed);
    let secret = SecretShare::derive(*ctx, *key_seed, *shuffle_seed);
    let public = secret.public;
    Ok((secret, public))
}

/// A key share whose ownership proof checked out for its seat's context.
#[derive(Debug, Clone)]
pub struct VerifiedShare {
    ctx: Context,
    public: PublicShare,
    pub(crate) key: Affine,
}

impl VerifiedShare {
    /// The seat this share belongs to.
    pub fn seat(&self) -> u16 {
        self.ctx.seat
    }
    /// The seat's Nostr key.
    pub fn actor(&self) -> &[u8; 32] {
        &self.ctx.actor
    }
    /// The `Keys`-step context it was verified under.
    pub fn context(&self) -> &Context {
        &self.ctx
    }
    /// The published share (with the commitments used in disputes).
    pub fn public_share(&self) -> &PublicShare {
        &self.public
    }
}

/// Check a seat's published share: canonical point, not the identity, and a valid proof of
/// knowledge bound to `ctx` (that seat's `Keys`-step context, with its Nostr key).
pub fn verify_public_share(ctx: &Context, share: &PublicShare) -> Result<VerifiedShare, FairError> {
    check_keys_step(ctx)?;
    let seat = ctx.seat;
    let bad = FairError::BadKeyProof { seat };
    let pk = decode_point(&share.pk).ok_or(bad.clone())?;
    if is_identity(&pk) {
        return Err(FairError::IdentityKey { seat });
    }
    let proof = KeyProof::from_bytes(&share.proof).ok_or(bad.clone())?;
    if !sigma::verify_key(&pk, &proof, &ctx.encode(Label::Proof)) {
        return Err(bad);
    }
    Ok(VerifiedShare {
        ctx: *ctx,
        public: *share,
        key: pk,
    })
}

/// Check a dispute opening against the seat's published share: both commitments, and that the
/// key seed regenerates exactly the published key and proof. Returns the rebuilt secret so an
/// auditor can recompute the seat's shuffle step and tokens.
pub fn verify_opening(
    share: &VerifiedShare,
    opening: &SeatOpening,
) -> Result<SecretShare, FairError> {
    let seat = share.seat();
    let ctx = share.ctx;
    if ctx.digest(Label::KeyCommit, &[&opening.key_seed]) != share.public.key_commitment {
        return Err(FairError::CommitmentMismatch {
            seat,
            what: "key seed",
        });
    }
    if ctx.digest(Label::ShuffleCommit, &[&opening.shuffle_seed]) != share.public.shuffle_commitment
    {
        return Err(FairError::CommitmentMismatch {
            seat,
            what: "shuffle seed",
        });
    }
    let rebuilt = SecretShare::derive(ctx, opening.key_seed, opening.shuffle_seed);
    if rebuilt.public != share.public {
        return Err(FairError::CommitmentMismatch {
            seat,
            what: "key share not derived from the committed seed",
        });
    }
    Ok(rebuilt)
}

/// The joint ElGamal key of one hand, built from every seat's verified share in seat order.
#[derive(Debug, Clone)]
pub struct JointKey {
    table: [u8; 32],
    hand: u64,
    shares: Vec<VerifiedShare>,
    pub(crate) apk: Affine,
    digest: [u8; 32],
}

impl JointKey {
    /// Key-set checks: at least two seats, `shares[i]` is seat `i`, one table and hand, no two
    /// seats with the same key or Nostr identity, and a joint key that is not the identity.
    pub fn from_seats(shares: &[VerifiedShare]) -> Result<Self, FairError> {
        let n = shares.len();
        if n < 2 || n > usize::from(u16::MAX) {
            return Err(FairError::BadKeySet(format!("{n} seats (need 2..=65535)")));
        }
        let first = shares[0].ctx;
        for (i, s) in shares.iter().enumerate() {
            if usize::from(s.seat()) != i {
                return Err(FairError::BadKeySet(format!(
                    "position {i} holds seat {}",
                    s.seat()
                )));
            }
            if !s.ctx.same_hand(&first) {
                return Err(FairError::BadKeySet(format!(
                    "seat {i} is for another table or hand"
                )));
            }
            for earlier in &shares[..i] {
                if earlier.public.pk == s.public.pk || earlier.ctx.actor == s.ctx.actor {
                    return Err(FairError::DuplicateKey {
                        first: earlier.seat(),
                        second: s.seat(),
                    });
                }
            }
        }
        let apk = aggregate(shares.iter().map(|s| &s.key));
        let apk_bytes = point_bytes(&apk);
        if is_identity(&apk) {
            return Err(FairError::BadKeySet("joint key is the identity".into()));
        }
        let seats = u16::try_from(n).expect("checked above");
        let mut h = Sha256::new();
        h.update(encode_fields(
            "joint-key",
            &[
                &first.table,
                &first.hand.to_be_bytes(),
                &seats.to_be_bytes(),
            ],
        ));
        for s in shares {
            update_lp(&mut h, &s.ctx.actor);
            update_lp(&mut h, &s.public.pk);
        }
        update_lp(&mut h, &apk_bytes);
        Ok(JointKey {
            table: first.table,
            hand: first.hand,
            shares: shares.to_vec(),
            apk,
            digest: h.finalize().into(),
        })
    }

    /// Digest of (table, hand, every seat's Nostr key and key share, joint key): clients
    /// announce it (e.g. in their first shuffle or token event) and compare.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// Compare our digest with the one `seat` announced.
    pub fn check_agreement(&self, seat: u16, announced: &[u8; 32]) -> Result<(), FairError> {
        if &self.digest == announced {
            Ok(())
        } else {
            Err(FairError::JointKeyMismatch { seat })
        }
    }

    /// Number of seats.
    pub fn seats(&self) -> u16 {
        u16::try_from(self.shares.len()).expect("checked in from_seats")
    }

    /// The verified share of `seat`.
    pub fn share(&self, seat: u16) -> Option<&VerifiedShare> {
        self.shares.get(usize::from(seat))
    }

    /// Table id.
    pub fn table(&self) -> &[u8; 32] {
        &self.table
    }

    /// Hand number.
    pub fn hand(&self) -> u64 {
        self.hand
    }

    /// Compressed joint public key (33 bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        point_bytes(&self.apk).to_vec()
    }

    /// `ctx` names a seat of this key, with that seat's Nostr key, at this table and hand.
    pub(crate) fn check_actor(&self, ctx: &Context) -> Result<&VerifiedShare, FairError> {
        if ctx.table != self.table || ctx.hand != self.hand {
            return Err(FairError::ContextMismatch(
                "other table or hand than the joint key",
            ));
        }
        match self.share(ctx.seat) {
            Some(s) if s.ctx.actor == ctx.actor => Ok(s),
            Some(_) => Err(FairError::ContextMismatch(
                "actor is not the seat's Nostr key",
            )),
            None => Err(FairError::ContextMismatch("no such seat")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(seat: u16) -> Context {
        Context::new([1; 32], 7, seat, [seat as u8 + 100; 32])
    }

    fn rng() -> ChaCha20Rng {
        ChaCha20Rng::seed_from_u64(42)
    }

    fn shares(n: u16, rng: &mut ChaCha20Rng) -> Vec<(SecretShare, VerifiedShare)> {
        (0..n)
            .map(|s| {
                let (sec, public) = keygen(rng, &ctx(s)).unwrap();
                let v = verify_public_share(&ctx(s), &public).unwrap();
                (sec, v)
            })
            .collect()
    }

    #[test]
    fn keygen_verifies_and_roundtrips() {
        let mut rng = rng();
        let (secret, public) = keygen(&mut rng, &ctx(0)).unwrap();
        assert_eq!(PublicShare::from_bytes(&public.to_bytes()).unwrap(), public);
        assert_eq!(
            PublicShare::from_base64(&public.to_base64()).unwrap(),
            public
        );
        verify_public_share(&ctx(0), &public).unwrap();
        let again = SecretShare::from_bytes(&ctx(0), &*secret.to_bytes()).unwrap();
        assert_eq!(again.public, public);
        assert!(PublicShare::from_bytes(&[0u8; PUBLIC_SHARE_LEN + 1]).is_err());
    }

    #[test]
    fn proof_is_bound_to_seat_actor_table_hand() {
        let mut rng = rng();
        let (_, public) = keygen(&mut rng, &ctx(0)).unwrap();
        let others = [
            ctx(0).with_seat(1, ctx(0).actor),
            ctx(0).with_seat(0, [5; 32]),
            Context {
                table: [2; 32],
                ..ctx(0)
            },
            Context { hand: 8, ..ctx(0) },
        ];
        for other in others {
            assert_eq!(
                verify_public_share(&other, &public).unwrap_err(),
                FairError::BadKeyProof { seat: other.seat }
            );
        }
        assert!(matches!(
            verify_public_share(&ctx(0).with_step(Step::Dice), &public),
            Err(FairError::ContextMismatch(_))
        ));
    }

    #[test]
    fn identity_and_garbage_keys_rejected() {
        let mut rng = rng();
        let (_, mut public) = keygen(&mut rng, &ctx(3)).unwrap();
        public.pk = point_bytes(&<Affine as ark_ec::AffineRepr>::zero());
        assert_eq!(
            verify_public_share(&ctx(3), &public).unwrap_err(),
            FairError::IdentityKey { seat: 3 }
        );
        public.pk = [0xff; 33];
        assert_eq!(
            verify_public_share(&ctx(3), &public).unwrap_err(),
            FairError::BadKeyProof { seat: 3 }
        );
    }

    #[test]
    fn key_set_checks() {
        let mut rng = rng();
        let s = shares(3, &mut rng);
        let v: Vec<VerifiedShare> = s.iter().map(|(_, v)| v.clone()).collect();
        let key = JointKey::from_seats(&v).unwrap();
        assert_eq!(key.seats(), 3);
        // Everyone computes the same digest; a different set gives a different one.
        assert_eq!(JointKey::from_seats(&v).unwrap().digest(), key.digest());
        assert!(key.check_agreement(1, &key.digest()).is_ok());
        assert_eq!(
            key.check_agreement(2, &[0; 32]).unwrap_err(),
            FairError::JointKeyMismatch { seat: 2 }
        );
        // Too few, wrong order, duplicates, mixed hands.
        assert!(matches!(
            JointKey::from_seats(&v[..1]),
            Err(FairError::BadKeySet(_))
        ));
        let swapped = vec![v[1].clone(), v[0].clone(), v[2].clone()];
        assert!(matches!(
            JointKey::from_seats(&swapped),
            Err(FairError::BadKeySet(_))
        ));
        let mut dup = v.clone();
        dup[2] = VerifiedShare {
            ctx: ctx(2),
            ..v[1].clone()
        };
        assert_eq!(
            JointKey::from_seats(&dup).unwrap_err(),
            FairError::DuplicateKey {
                first: 1,
                second: 2
            }
        );
        let mut same_actor = v.clone();
        same_actor[2].ctx.actor = v[0].ctx.actor;
        assert_eq!(
            JointKey::from_seats(&same_actor).unwrap_err(),
            FairError::DuplicateKey {
                first: 0,
                second: 2
            }
        );
        let (_, p) = keygen(&mut rng, &Context { hand: 9, ..ctx(2) }).unwrap();
        let mut mixed = v.clone();
        mixed[2] = verify_public_share(&Context { hand: 9, ..ctx(2) }, &p).unwrap();
        assert!(matches!(
            JointKey::from_seats(&mixed),
            Err(FairError::BadKeySet(_))
        ));
    }

    #[test]
    fn openings_check_commitments() {
        let mut rng = rng();
        let s = shares(1, &mut rng);
        let (secret, verified) = &s[0];
        let opening = secret.opening();
        let rebuilt = verify_opening(verified, &opening).unwrap();
        assert_eq!(rebuilt.public, *secret.public_share());
        let mut wrong = opening.clone();
        wrong.key_seed[0] ^= 1;
        assert!(matches!(
            verify_opening(verified, &wrong),
            Err(FairError::CommitmentMismatch {
                seat: 0,
                what: "key seed"
            })
        ));
        let mut wrong = opening.clone();
        wrong.shuffle_seed[31] ^= 1;
        assert!(matches!(
            verify_opening(verified, &wrong),
            Err(FairError::CommitmentMismatch {
                seat: 0,
                what: "shuffle seed"
            })
        ));
    }
}
