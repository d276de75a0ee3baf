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

use super::bg::group::{decode_point, point_bytes, Affine, Ciphertext, POINT_LEN};
use super::bg::sigma::{self, TokenProof, TokenStatement, TOKEN_PROOF_LEN};
use super::bg::{self, aggregate};
use super::context::{Context, Label, Step};
use super::keys::{JointKey, SecretShare, VerifiedShare};
use super::shuffle::VerifiedDeck;
use super::{codec, FairError};

/// Token (33-byte point) ‖ DLEQ proof (`t_g` 33, `t_c1` 33, `z` 32).
pub const REVEAL_TOKEN_LEN: usize = POINT_LEN + TOKEN_PROOF_LEN;

/// A published decryption share for one deck position, with its proof.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RevealToken {
    pub(crate) token: Affine,
    pub(crate) proof: TokenProof,
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
        out[..POINT_LEN].copy_from_slice(&point_bytes(&self.token));
        out[POINT_LEN..].copy_from_slice(&self.proof.to_bytes());
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
            token: decode_point(&bytes[..POINT_LEN]).ok_or(FairError::Malformed {
                what: "reveal token",
            })?,
            proof: TokenProof::from_bytes(&bytes[POINT_LEN..]).ok_or(FairError::Malformed {
                what: "reveal token proof",
            })?,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifiedToken {
    seat: u16,
    position: u16,
    deck: [u8; 32],
    token: Affine,
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

/// The masked card at `position` of a verified deck (in range: see `reveal_position`).
fn masked_card(deck: &VerifiedDeck, position: u16) -> Ciphertext {
    deck.deck().cards[usize::from(position)]
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
    let (c1, _) = masked_card(deck, position);
    let (token, proof) =
        sigma::make_token(rng, &secret.sk, &secret.pk, &c1, &ctx.encode(Label::Proof));
    let local = VerifiedToken {
        seat: ctx.seat,
        position,
        deck: deck.id,
        token,
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
    let check = TokenCheck {
        ctx: *ctx,
        share,
        token,
    };
    let prepared = check.prepare(deck)?;
    if !sigma::verify_token(&prepared.statement(&check)) {
        return Err(FairError::BadToken {
            seat: ctx.seat,
            position: prepared.position,
        });
    }
    Ok(prepared.verified(&check, deck))
}

/// One token to verify with [`verify_tokens`]: the maker's context, its verified key share and
/// the published token.
#[derive(Debug, Clone, Copy)]
pub struct TokenCheck<'a> {
    /// The token maker's context (`Step::Reveal { position, recipient }`, its seat and key).
    pub ctx: Context,
    /// The token maker's verified key share.
    pub share: &'a VerifiedShare,
    /// The token as published.
    pub token: &'a RevealToken,
}

/// What the context checks extract before any group arithmetic.
struct Prepared {
    position: u16,
    c1: Affine,
    proof_ctx: Vec<u8>,
}

impl TokenCheck<'_> {
    fn prepare(&self, deck: &VerifiedDeck) -> Result<Prepared, FairError> {
        let ctx = &self.ctx;
        if self.share.context().seat != ctx.seat || self.share.actor() != &ctx.actor {
            return Err(FairError::ContextMismatch("share of another seat"));
        }
        if !self.share.context().same_hand(ctx) {
            return Err(FairError::ContextMismatch("share of another table or hand"));
        }
        let position = reveal_position(ctx, deck)?;
        Ok(Prepared {
            position,
            c1: masked_card(deck, position).0,
            proof_ctx: ctx.encode(Label::Proof),
        })
    }
}

impl Prepared {
    fn statement<'a>(&'a self, check: &'a TokenCheck<'_>) -> TokenStatement<'a> {
        TokenStatement {
            pk: check.share.key,
            c1: self.c1,
            share: check.token.token,
            proof: &check.token.proof,
            ctx: &self.proof_ctx,
        }
    }

    fn verified(&self, check: &TokenCheck<'_>, deck: &VerifiedDeck) -> VerifiedToken {
        VerifiedToken {
            seat: check.ctx.seat,
            position: self.position,
            deck: deck.id,
            token: check.token.token,
        }
    }
}

/// Verify many tokens on one deck (e.g. every token of a token event, or all tokens of a
/// showdown) as one random linear combination: one multi-scalar multiplication instead of four
/// scalar multiplications per token (protocol/FAIR.md §9.5). All pass, or the error is the one
/// [`verify_token`] gives for the first failing check in `checks` order.
pub fn verify_tokens(
    deck: &VerifiedDeck,
    checks: &[TokenCheck<'_>],
) -> Result<Vec<VerifiedToken>, FairError> {
    verify_tokens_each(deck, checks).into_iter().collect()
}

/// [`verify_tokens`] with one result per check: when the batch fails, each token is checked on
/// its own, so that every bad one is named (seat and position) and the good ones are kept. The
/// results equal those of [`verify_token`] on each check.
pub fn verify_tokens_each(
    deck: &VerifiedDeck,
    checks: &[TokenCheck<'_>],
) -> Vec<Result<VerifiedToken, FairError>> {
    let prepared: Vec<Result<Prepared, FairError>> =
        checks.iter().map(|c| c.prepare(deck)).collect();
    let statements: Vec<TokenStatement<'_>> = prepared
        .iter()
        .zip(checks)
        .filter_map(|(p, c)| p.as_ref().ok().map(|p| p.statement(c)))
        .collect();
    let all_pass = sigma::verify_tokens(&statements);
    prepared
        .into_iter()
        .zip(checks)
        .map(|(p, c)| {
            let p = p?;
            if all_pass || sigma::verify_token(&p.statement(c)) {
                Ok(p.verified(c, deck))
            } else {
                Err(FairError::BadToken {
                    seat: c.ctx.seat,
                    position: p.position,
                })
            }
        })
        .collect()
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
    if usize::from(position) >= deck.size() {
        return Err(FairError::PositionOutOfRange {
            position,
            size: deck.size(),
        });
    }
    let n = usize::from(key.seats());
    let mut by_seat: Vec<Option<Affine>> = vec![None; n];
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
    let joint = aggregate(by_seat.iter().flatten());
    let generators = bg::group::generators(deck.universe());
    bg::open(
        &masked_card(deck, position),
        &joint,
        &generators.cards[..deck.universe()],
    )
    .ok_or(FairError::NotACard { position })
}
