//! Reveal tokens: decryption shares `sk·c1` with Chaum–Pedersen (DLEQ) proofs, bound to the
//! deck position and the recipient through the context.
//!
//! A card dealt privately to seat r: every other seat publishes its token for that position
//! with `recipient: Some(r)`; r computes its own share locally ([`own_token`]) and never
//! publishes it, so only r can combine all n. To show the card later (showdown), r publishes a
//! token with `recipient: None`. A card opened to everyone: every seat publishes with `None`.
//! A position nobody publishes all n tokens for stays hidden.

use std::fmt;

use rand::{CryptoRng, RngCore};
use ziffle::{AggregateRevealToken, MaskedCard, RevealTokenProof, Verified};

use super::codec::{self, decode_exact, encode};
use super::context::{Context, Label, Step};
use super::keys::{JointKey, SecretShare, VerifiedShare};
use super::shuffle::VerifiedDeck;
use super::sizes::{assume_verified, ops};
use super::FairError;

/// Token (33-byte point) ‖ DLEQ proof (`t_g` 33, `t_c1` 33, `z` 32).
pub const REVEAL_TOKEN_LEN: usize = 33 + 98;

/// A published decryption share for one deck position, with its proof.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RevealToken {
    pub(crate) token: ziffle::RevealToken,
    pub(crate) proof: RevealTokenProof,
}

impl fmt::Debug for RevealToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RevealToken({})", hex::encode(&self.to_bytes()[..8]))
    }
}

impl RevealToken {
    /// `token ‖ proof`, 131 bytes.
    pub fn to_bytes(&self) -> [u8; REVEAL_TOKEN_LEN] {
        let mut out = [0u8; REVEAL_TOKEN_LEN];
        out[..33].copy_from_slice(&encode(&self.token));
        out[33..].copy_from_slice(&encode(&self.proof));
        out
    }

    /// Strict decoding (exact length, canonical points and scalar).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FairError> {
        if bytes.len() != REVEAL_TOKEN_LEN {
            return Err(FairError::BadLength {
                what: "reveal token",
                expected: REVEAL_TOKEN_LEN,
                got: bytes.len(),
            });
        }
        Ok(RevealToken {
            token: decode_exact("reveal token", &bytes[..33], 33)?,
            proof: decode_exact("reveal token proof", &bytes[33..], 98)?,
        })
    }

    /// Base64 of [`RevealToken::to_bytes`].
    pub fn to_base64(&self) -> String {
        codec::to_base64(&self.to_bytes())
    }

    /// Strict inverse of [`RevealToken::to_base64`].
    pub fn from_base64(text: &str) -> Result<Self, FairError> {
        Self::from_bytes(&codec::from_base64("reveal token", text)?)
    }
}

/// A token whose proof checked out for its seat, deck and position.
#[derive(Debug, Clone, Copy)]
pub struct VerifiedToken {
    seat: u16,
    position: u16,
    deck: [u8; 32],
    token: Verified<ziffle::RevealToken>,
}

impl VerifiedToken {
    /// The seat that made it.
    pub fn seat(&self) -> u16 {
        self.seat
    }
    /// The deck position it opens.
    pub fn position(&self) -> u16 {
        self.position
    }
}

fn reveal_position(ctx: &Context, deck: &VerifiedDeck) -> Result<u16, FairError> {
    let Step::Reveal { position, .. } = ctx.step else {
        return Err(FairError::ContextMismatch("tokens use the Reveal step"));
    };
    if ctx.table != deck.table || ctx.hand != deck.hand {
        return Err(FairError::ContextMismatch("deck of another table or hand"));
    }
    if usize::from(position) >= deck.size() {
        return Err(FairError::PositionOutOfRange {
            position,
            size: deck.size(),
        });
    }
    Ok(position)
}

/// The masked card at `position` of a verified deck.
fn masked_card(deck: &VerifiedDeck, position: u16) -> Result<MaskedCard, FairError> {
    ops(deck.size())?
        .card(&deck.verified, usize::from(position))?
        .ok_or(FairError::PositionOutOfRange {
            position,
            size: deck.size(),
        })
}

/// Make this seat's token for the position and recipient in `ctx` (`Step::Reveal`, own seat),
/// to publish. `rng` only draws the proof nonce (OS RNG in the product).
pub fn reveal_token(
    rng: &mut (impl RngCore + CryptoRng),
    secret: &SecretShare,
    ctx: &Context,
    deck: &VerifiedDeck,
) -> Result<RevealToken, FairError> {
    reveal_token_with_own(rng, secret, ctx, deck).map(|(published, _)| published)
}

/// [`reveal_token`], also returning the same share as a `VerifiedToken` for this seat's own
/// later use in [`open_card`] (e.g. opening at showdown a card it helped deal): it was computed
/// with this seat's own key, so it needs no proof check.
pub fn reveal_token_with_own(
    rng: &mut (impl RngCore + CryptoRng),
    secret: &SecretShare,
    ctx: &Context,
    deck: &VerifiedDeck,
) -> Result<(RevealToken, VerifiedToken), FairError> {
    let own = secret.context();
    if !own.same_hand(ctx) || own.seat != ctx.seat || own.actor != ctx.actor {
        return Err(FairError::ContextMismatch(
            "secret share of another seat or hand",
        ));
    }
    let position = reveal_position(ctx, deck)?;
    let card = masked_card(deck, position)?;
    let (token, proof) = card.reveal_token(rng, &secret.sk, secret.pk, &ctx.encode(Label::Proof));
    let local = VerifiedToken {
        seat: ctx.seat,
        position,
        deck: deck.id,
        token: assume_verified(token),
    };
    Ok((RevealToken { token, proof }, local))
}

/// Check `share`'s token for the position and recipient in `ctx` (the token maker's context).
/// A token made for another table, hand, deck, position or recipient fails, naming the seat.
pub fn verify_token(
    ctx: &Context,
    share: &VerifiedShare,
    deck: &VerifiedDeck,
    token: &RevealToken,
) -> Result<VerifiedToken, FairError> {
    if share.context().seat != ctx.seat || share.actor() != &ctx.actor {
        return Err(FairError::ContextMismatch("share of another seat"));
    }
    if !share.context().same_hand(ctx) {
        return Err(FairError::ContextMismatch("share of another table or hand"));
    }
    let position = reveal_position(ctx, deck)?;
    let card = masked_card(deck, position)?;
    let verified = token
        .proof
        .verify(share.key, token.token, card, &ctx.encode(Label::Proof))
        .ok_or(FairError::BadToken {
            seat: ctx.seat,
            position,
        })?;
    Ok(VerifiedToken {
        seat: ctx.seat,
        position,
        deck: deck.id,
        token: verified,
    })
}

/// The recipient's own share of a card dealt to it: computed locally and never published
/// (publishing it would let everyone open the card). `ctx` must be this seat's, in `key`.
pub fn own_token(
    rng: &mut (impl RngCore + CryptoRng),
    secret: &SecretShare,
    key: &JointKey,
    ctx: &Context,
    deck: &VerifiedDeck,
) -> Result<VerifiedToken, FairError> {
    key.check_actor(ctx)?;
    reveal_token_with_own(rng, secret, ctx, deck).map(|(_, own)| own)
}

/// Combine one verified token per seat (any order) and return the card index (0..size) at
/// `position`. Names the seats whose token is missing.
pub fn open_card(
    key: &JointKey,
    deck: &VerifiedDeck,
    position: u16,
    tokens: &[VerifiedToken],
) -> Result<usize, FairError> {
    if deck.key_digest() != key.digest() {
        return Err(FairError::ContextMismatch("deck under another joint key"));
    }
    let n = usize::from(key.seats());
    let mut by_seat: Vec<Option<Verified<ziffle::RevealToken>>> = vec![None; n];
    for t in tokens {
        let slot = by_seat
            .get_mut(usize::from(t.seat))
            .ok_or(FairError::Misplaced { seat: t.seat })?;
        if slot.is_some() || t.position != position || t.deck != deck.id {
            return Err(FairError::Misplaced { seat: t.seat });
        }
        *slot = Some(t.token);
    }
    let missing: Vec<u16> = (0..key.seats())
        .filter(|&s| by_seat[usize::from(s)].is_none())
        .collect();
    if !missing.is_empty() {
        return Err(FairError::Missing { seats: missing });
    }
    let all: Vec<Verified<ziffle::RevealToken>> = by_seat.into_iter().flatten().collect();
    let card = masked_card(deck, position)?;
    ops(deck.size())?
        .reveal(AggregateRevealToken::new(&all), card)
        .ok_or(FairError::NotACard { position })
}
