//! The shuffle chain: each seat in turn permutes and re-randomises the deck and proves it
//! (the Bayer–Groth argument of [`super::bg`], in ziffle's format); every client verifies each
//! step before the next.
//!
//! The shuffler's randomness (permutation, re-masking scalars, proof nonces) all comes from
//! `ChaCha20Rng::from_seed(ctx.digest("shuffle-rng", [shuffle_seed, sha256(input deck)]))`,
//! where `shuffle_seed` is the seed the seat committed to in the keys pass and `input deck` the
//! bytes of the deck it shuffles. A step is therefore a deterministic function
//! of (committed seed, context, joint key, previous deck): in a dispute, the seat opens its seed
//! and anyone recomputes the step byte for byte ([`verify_shuffle_opening`]).
//!
//! Deck sizes are run-time values (2..=1024). A verified deck can also be cut down to a
//! sub-deck of some of its masked cards ([`VerifiedDeck::sub_deck`], e.g. a discard pile) and
//! shuffled again; its cards still open to indices of the original composition.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::bg::argument::{self, DeckRef, ShuffleArgument, Statement};
use super::bg::group::{self, Ciphertext};
use super::codec;
use super::context::{Context, Label, Step};
use super::keys::{JointKey, SecretShare};
use super::sizes::{check_size, deck_len, shuffle_proof_len};
use super::FairError;

/// An encrypted deck as published (not yet verified): `size` ElGamal ciphertexts.
///
/// Wire format: `size` × (`c1` ‖ `c2`), each a 33-byte compressed secp256k1 point; 66 bytes per
/// card. Decoding is strict (exact length, canonical points).
#[derive(Clone)]
pub struct Deck {
    bytes: Arc<[u8]>,
    pub(crate) cards: Arc<[Ciphertext]>,
}

impl fmt::Debug for Deck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = Sha256::digest(&self.bytes);
        write!(
            f,
            "Deck({} cards, sha256 {})",
            self.size(),
            hex::encode(&d[..8])
        )
    }
}

impl PartialEq for Deck {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}
impl Eq for Deck {}

impl Deck {
    /// Decode a published deck of `size` cards.
    pub fn from_bytes(size: usize, bytes: &[u8]) -> Result<Self, FairError> {
        check_size(size)?;
        let expected = deck_len(size);
        if bytes.len() != expected {
            return Err(FairError::BadLength {
                what: "deck",
                expected,
                got: bytes.len(),
            });
        }
        let cards =
            group::decode_ciphertexts(bytes).ok_or(FairError::Malformed { what: "deck" })?;
        Ok(Deck {
            bytes: bytes.into(),
            cards: cards.into(),
        })
    }

    fn from_cards(cards: Vec<Ciphertext>, bytes: Vec<u8>) -> Self {
        Deck {
            bytes: bytes.into(),
            cards: cards.into(),
        }
    }

    /// Strict base64 variant of [`Deck::from_bytes`].
    pub fn from_base64(size: usize, text: &str) -> Result<Self, FairError> {
        Self::from_bytes(size, &codec::from_base64("deck", text)?)
    }

    /// Canonical encoding.
    pub fn to_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Base64 of the canonical encoding.
    pub fn to_base64(&self) -> String {
        codec::to_base64(&self.bytes)
    }

    /// Number of cards.
    pub fn size(&self) -> usize {
        self.cards.len()
    }

    /// Encoded length of a deck of `size` cards (66 per card).
    pub fn encoded_len(size: usize) -> usize {
        deck_len(size)
    }

    /// `ctx.digest("deck", [bytes])`: a context-bound name for this deck.
    pub fn digest(&self, ctx: &Context) -> [u8; 32] {
        ctx.digest(Label::Deck, &[&self.bytes])
    }

    pub(crate) fn view(&self) -> DeckRef<'_> {
        DeckRef {
            cards: &self.cards,
            bytes: &self.bytes,
        }
    }
}

/// A published shuffle proof. Wire format: ziffle's `ShuffleProof<N>` in arkworks compressed
/// form, `555 + 96·N` bytes (see protocol/FAIR.md for the field order).
#[derive(Clone)]
pub struct ShuffleProof {
    bytes: Arc<[u8]>,
    pub(crate) inner: Arc<ShuffleArgument>,
}

impl fmt::Debug for ShuffleProof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ShuffleProof({} cards, {} bytes)",
            self.size(),
            self.bytes.len()
        )
    }
}

impl PartialEq for ShuffleProof {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}
impl Eq for ShuffleProof {}

impl ShuffleProof {
    /// Decode a published proof for a deck of `size` cards.
    pub fn from_bytes(size: usize, bytes: &[u8]) -> Result<Self, FairError> {
        check_size(size)?;
        let expected = shuffle_proof_len(size);
        if bytes.len() != expected {
            return Err(FairError::BadLength {
                what: "shuffle proof",
                expected,
                got: bytes.len(),
            });
        }
        let inner = ShuffleArgument::from_bytes(size, bytes).ok_or(FairError::Malformed {
            what: "shuffle proof",
        })?;
        Ok(ShuffleProof {
            bytes: bytes.into(),
            inner: Arc::new(inner),
        })
    }

    /// Strict base64 variant of [`ShuffleProof::from_bytes`].
    pub fn from_base64(size: usize, text: &str) -> Result<Self, FairError> {
        Self::from_bytes(size, &codec::from_base64("shuffle proof", text)?)
    }

    /// Canonical encoding.
    pub fn to_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Base64 of the canonical encoding.
    pub fn to_base64(&self) -> String {
        codec::to_base64(&self.bytes)
    }

    /// Number of cards of the deck it is for.
    pub fn size(&self) -> usize {
        self.inner.size()
    }

    /// Encoded length for a deck of `size` cards (`555 + 96·size`).
    pub fn encoded_len(size: usize) -> usize {
        shuffle_proof_len(size)
    }
}

/// A deck whose whole shuffle chain so far has been verified under one joint key. Only these
/// can be shuffled further or have cards revealed. Not serialisable: a resumed client
/// re-verifies the chain from the published steps.
#[derive(Clone)]
pub struct VerifiedDeck {
    deck: Deck,
    key_digest: [u8; 32],
    pub(crate) table: [u8; 32],
    pub(crate) hand: u64,
    steps: u16,
    /// Number of card points its cards open to: the size of the deck the chain started from
    /// (more than `size()` for a sub-deck).
    universe: usize,
    pub(crate) id: [u8; 32],
}

impl fmt::Debug for VerifiedDeck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "VerifiedDeck({:?}, after {} steps, cards of a {}-card deck)",
            self.deck, self.steps, self.universe
        )
    }
}

impl VerifiedDeck {
    fn new(
        deck: Deck,
        key: &JointKey,
        ctx: &Context,
        index: u16,
        prev: Option<&VerifiedDeck>,
    ) -> Self {
        VerifiedDeck {
            id: Sha256::digest(&deck.bytes).into(),
            universe: prev.map_or(deck.size(), |p| p.universe),
            deck,
            key_digest: key.digest(),
            table: ctx.table,
            hand: ctx.hand,
            steps: index + 1,
        }
    }

    /// A deck this client holds as the input of its next step, rebuilt from its parts by
    /// another copy of the same client (the page's proof worker, which holds no state of its
    /// own): verified, or, for a deck prepared ahead at a version 7 table, placed and checked
    /// with its whole chain before it serves (PROTOCOL.md §5.9). The step made on it is only
    /// ever published after the client that holds the deck checked that step's proof.
    pub(crate) fn vouched(deck: Deck, key: &JointKey, steps: u16, universe: usize) -> Self {
        VerifiedDeck {
            id: Sha256::digest(&deck.bytes).into(),
            deck,
            key_digest: key.digest(),
            table: *key.table(),
            hand: key.hand(),
            steps,
            universe,
        }
    }

    /// The deck (for encoding).
    pub fn deck(&self) -> &Deck {
        &self.deck
    }
    /// Number of cards.
    pub fn size(&self) -> usize {
        self.deck.size()
    }
    /// How many shuffle steps produced it; the next shuffle step has this index.
    pub fn steps(&self) -> u16 {
        self.steps
    }
    /// Digest of the joint key it is encrypted under.
    pub fn key_digest(&self) -> [u8; 32] {
        self.key_digest
    }
    /// Number of distinct cards its positions can open to: the size of the deck its chain began
    /// with. Equal to [`VerifiedDeck::size`] except for a sub-deck.
    pub fn universe(&self) -> usize {
        self.universe
    }

    /// The masked cards at `positions`, in that order, as a deck of their own that the seats
    /// can shuffle again (e.g. a discard pile reshuffled into a new draw pile): pass it as
    /// `prev` to [`shuffle`] / [`verify_shuffle`] with `size = positions.len()` and step index
    /// [`VerifiedDeck::steps`] (the chain's numbering goes on, so every seat's new step has a
    /// context, and so a random stream, of its own). Every client computes the same sub-deck
    /// from the same positions. Opening its cards still yields indices of the original
    /// composition ([`VerifiedDeck::universe`]).
    ///
    /// Needs at least two positions, all distinct and inside the deck.
    pub fn sub_deck(&self, positions: &[u16]) -> Result<VerifiedDeck, FairError> {
        check_size(positions.len())?;
        let mut seen = vec![false; self.size()];
        let mut cards = Vec::with_capacity(positions.len());
        let mut bytes = Vec::with_capacity(deck_len(positions.len()));
        for &p in positions {
            let i = usize::from(p);
            let slot = seen.get_mut(i).ok_or(FairError::PositionOutOfRange {
                position: p,
                size: self.size(),
            })?;
            if std::mem::replace(slot, true) {
                return Err(FairError::ContextMismatch("a position twice in a sub-deck"));
            }
            cards.push(self.deck.cards[i]);
            bytes.extend_from_slice(&self.deck.bytes[deck_len(i)..deck_len(i + 1)]);
        }
        let deck = Deck::from_cards(cards, bytes);
        Ok(VerifiedDeck {
            id: Sha256::digest(&deck.bytes).into(),
            deck,
            key_digest: self.key_digest,
            table: self.table,
            hand: self.hand,
            steps: self.steps,
            universe: self.universe,
        })
    }
}

/// The chain position `ctx` claims, checked against what comes before it.
fn chain_index(
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
) -> Result<u16, FairError> {
    let Step::Shuffle { index } = ctx.step else {
        return Err(FairError::ContextMismatch("shuffles use the Shuffle step"));
    };
    key.check_actor(ctx)?;
    check_size(size)?;
    match prev {
        None if index == 0 => {}
        Some(p) if p.steps == index => {
            if p.key_digest != key.digest() {
                return Err(FairError::ContextMismatch(
                    "previous deck under another key",
                ));
            }
            if p.size() != size {
                return Err(FairError::ContextMismatch("previous deck has another size"));
            }
        }
        _ => return Err(FairError::ContextMismatch("shuffle index out of sequence")),
    }
    Ok(index)
}

/// The shuffle step's RNG: ChaCha20 keyed by the committed seed, the step context and the
/// deck it shuffles. The input is in the key so that one context can never shuffle two decks
/// alike: two outputs of one permutation and masking over different inputs would give the
/// permutation away, whatever path (a fork, a late event) led a seat to make both.
fn step_rng(ctx: &Context, seed: &[u8; 32], input: &[u8]) -> ChaCha20Rng {
    use sha2::{Digest, Sha256};
    let input: [u8; 32] = Sha256::digest(input).into();
    let key = Zeroizing::new(ctx.digest(Label::ShuffleRng, &[seed, &input]));
    ChaCha20Rng::from_seed(*key)
}

/// The deck a step shuffles: the previous verified deck, or the public initial deck.
pub(crate) fn input_deck(size: usize, prev: Option<&VerifiedDeck>) -> (Vec<Ciphertext>, Vec<u8>) {
    match prev {
        Some(p) => (p.deck.cards.to_vec(), p.deck.bytes.to_vec()),
        None => {
            let gens = group::generators(size);
            (
                gens.initial_deck(size),
                gens.initial_bytes[..deck_len(size)].to_vec(),
            )
        }
    }
}

/// Shuffle `prev` (or, for step 0, the initial deck of `size` cards) and prove it: the deck
/// and proof to publish.
///
/// `ctx` is the shuffler's context at `Step::Shuffle { index }`, with `index` = number of
/// previous steps. The randomness is derived from `secret`'s committed shuffle seed. The
/// shuffler needs a `VerifiedDeck` of its own output for the next steps: use
/// [`shuffle_verified`] to get it without verifying its own proof again.
pub fn shuffle(
    secret: &SecretShare,
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
) -> Result<(Deck, ShuffleProof), FairError> {
    shuffle_verified(secret, ctx, key, size, prev).map(|(mine, proof)| (mine.deck, proof))
}

/// [`shuffle`], returning the shuffler's own `VerifiedDeck` (publish `.deck()` and the proof).
/// The prover runs the verifier on the proof it made before returning (≈ a fifth of its time),
/// so a seat never publishes a step the others would reject, and keeps the deck as verified.
pub fn shuffle_verified(
    secret: &SecretShare,
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
) -> Result<(VerifiedDeck, ShuffleProof), FairError> {
    shuffle_step(secret, ctx, key, size, prev, true)
}

/// [`shuffle_verified`] without the prover's check of its own proof: byte for byte the same
/// deck and proof. Only for a step of a chain that is checked whole, this step included, before
/// its deck is used ([`verify_chain`]; the deck prepared ahead from version 7, PROTOCOL.md §5.9):
/// there the check would be made twice. The deck returned is then only placed, like
/// [`unchecked_shuffle`]'s, until that chain check passes.
pub fn shuffle_for_chain(
    secret: &SecretShare,
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
) -> Result<(VerifiedDeck, ShuffleProof), FairError> {
    shuffle_step(secret, ctx, key, size, prev, false)
}

fn shuffle_step(
    secret: &SecretShare,
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    self_check: bool,
) -> Result<(VerifiedDeck, ShuffleProof), FairError> {
    let own = secret.context();
    if !own.same_hand(ctx) || own.seat != ctx.seat || own.actor != ctx.actor {
        return Err(FairError::ContextMismatch(
            "secret share of another seat or hand",
        ));
    }
    let index = chain_index(ctx, key, size, prev)?;
    let (cards, bytes) = input_deck(size, prev);
    let mut rng = step_rng(ctx, secret.shuffle_seed(), &bytes);
    let input = DeckRef {
        cards: &cards,
        bytes: &bytes,
    };
    let proof_ctx = ctx.encode(Label::Proof);
    let out = if self_check {
        argument::shuffle_and_prove(&mut rng, &key.apk, input, &proof_ctx)
            .ok_or(FairError::Internal("own shuffle proof failed verification"))?
    } else {
        argument::shuffle_and_prove_unchecked(&mut rng, &key.apk, input, &proof_ctx)
    };
    let deck = Deck::from_cards(out.cards, out.bytes);
    let proof = ShuffleProof {
        bytes: out.proof_bytes.into(),
        inner: Arc::new(out.proof),
    };
    Ok((VerifiedDeck::new(deck, key, ctx, index, prev), proof))
}

/// Verify one shuffle step. `ctx` is the shuffler's context (`Step::Shuffle { index }`, seat
/// and Nostr key of the event's author). Any failure of the step itself names the shuffler.
pub fn verify_shuffle(
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    deck: &Deck,
    proof: &ShuffleProof,
) -> Result<VerifiedDeck, FairError> {
    let index = chain_index(ctx, key, size, prev)?;
    let seat = ctx.seat;
    if deck.size() != size || proof.size() != size {
        return Err(FairError::BadShuffle {
            seat,
            reason: "wrong deck size",
        });
    }
    let proof_ctx = ctx.encode(Label::Proof);
    let ok = match prev {
        Some(p) => argument::verify(
            &Statement {
                apk: key.apk,
                prev: p.deck.view(),
                next: deck.view(),
                ctx: &proof_ctx,
            },
            &proof.inner,
        ),
        None => {
            let gens = group::generators(size);
            let initial = gens.initial_deck(size);
            argument::verify(
                &Statement {
                    apk: key.apk,
                    prev: DeckRef {
                        cards: &initial,
                        bytes: &gens.initial_bytes[..deck_len(size)],
                    },
                    next: deck.view(),
                    ctx: &proof_ctx,
                },
                &proof.inner,
            )
        }
    };
    if !ok {
        return Err(FairError::BadShuffle {
            seat,
            reason: "shuffle proof rejected",
        });
    }
    Ok(VerifiedDeck::new(deck.clone(), key, ctx, index, prev))
}

/// Maps a decoding error to the shuffler's fault, except a deck size nobody supports.
fn blame(seat: u16, reason: &'static str) -> impl Fn(FairError) -> FairError {
    move |e: FairError| match e {
        FairError::UnsupportedDeckSize(_) => e,
        _ => FairError::BadShuffle { seat, reason },
    }
}

/// The deck of `ctx.seat`'s published shuffle step, strictly decoded: a malformed or
/// wrong-length deck is the shuffler's fault. Decoding is a square root per point, so a client
/// decodes each published deck once and gives the result to both [`unchecked_shuffle`] and
/// [`verify_shuffle_decoded`].
pub fn decode_shuffle_deck(ctx: &Context, size: usize, deck: &[u8]) -> Result<Deck, FairError> {
    Deck::from_bytes(size, deck).map_err(blame(ctx.seat, "malformed deck"))
}

/// The proof of `ctx.seat`'s published shuffle step, strictly decoded: a malformed or
/// wrong-length proof is the shuffler's fault. With [`decode_shuffle_deck`], what a step is
/// judged on before its proof is checked.
pub fn decode_shuffle_proof(
    ctx: &Context,
    size: usize,
    proof: &[u8],
) -> Result<ShuffleProof, FairError> {
    ShuffleProof::from_bytes(size, proof).map_err(blame(ctx.seat, "malformed proof"))
}

/// A published shuffle step's deck taken **without** checking its proof: a seat may prepare
/// its own next step on top of a deck whose proof is still being checked (PROTOCOL.md §5.10),
/// and from version 7 the shuffles of a deck prepared ahead are placed this way and checked
/// together ([`verify_chain`]) before the deck serves (§5.9). Nothing may be dealt from it,
/// and no token made for it, until a verified deck of the same bytes (same [`VerifiedDeck`] id)
/// stands in its place. The deck's place in the chain is still checked.
pub fn unchecked_shuffle(
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    deck: &Deck,
) -> Result<VerifiedDeck, FairError> {
    let index = chain_index(ctx, key, size, prev)?;
    if deck.size() != size {
        return Err(FairError::BadShuffle {
            seat: ctx.seat,
            reason: "wrong deck size",
        });
    }
    Ok(VerifiedDeck::new(deck.clone(), key, ctx, index, prev))
}

/// [`verify_shuffle`] of a deck already decoded by [`decode_shuffle_deck`], with its proof
/// straight from the published bytes: a malformed proof is the shuffler's fault too.
pub fn verify_shuffle_decoded(
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    deck: &Deck,
    proof: &[u8],
) -> Result<VerifiedDeck, FairError> {
    chain_index(ctx, key, size, prev)?;
    let proof = decode_shuffle_proof(ctx, size, proof)?;
    verify_shuffle(ctx, key, size, prev, deck, &proof)
}

/// [`verify_shuffle`] straight from the published bytes: a malformed or wrong-length deck or
/// proof is the shuffler's fault too.
pub fn verify_shuffle_bytes(
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    deck: &[u8],
    proof: &[u8],
) -> Result<VerifiedDeck, FairError> {
    chain_index(ctx, key, size, prev)?;
    let deck = decode_shuffle_deck(ctx, size, deck)?;
    verify_shuffle_decoded(ctx, key, size, prev, &deck, proof)
}

/// Dispute: recompute `ctx.seat`'s step from its opened seeds (see
/// [`super::verify_opening`]) and compare with what it published.
pub fn verify_shuffle_opening(
    opened: &SecretShare,
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    deck: &Deck,
    proof: &ShuffleProof,
) -> Result<(), FairError> {
    let (d, p) = shuffle(opened, ctx, key, size, prev)?;
    if &d == deck && &p == proof {
        Ok(())
    } else {
        Err(FairError::CommitmentMismatch {
            seat: ctx.seat,
            what: "shuffle step not derived from the committed seed",
        })
    }
}

/// One published step of a chain.
#[derive(Debug, Clone)]
pub struct ShuffleStep {
    /// The shuffler's context (`Step::Shuffle { index }`).
    pub ctx: Context,
    /// The deck it published.
    pub deck: Deck,
    /// Its proof.
    pub proof: ShuffleProof,
}

/// Verify consecutive steps after `prev` (or from the initial deck); on failure the error names
/// the shuffler of the first bad step.
///
/// The steps are checked together, as one multi-scalar multiplication in which a deck that
/// ends one step and starts the next is one set of bases (`bg::argument::verify_steps`): nine
/// 104-card steps cost about 2.1× fewer points than nine checks. Only when that check fails are
/// the steps checked one by one, to name the first bad one; the two agree on every chain
/// (`fair::tests`' differential tests).
pub fn verify_chain(
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    steps: &[ShuffleStep],
) -> ChainResult {
    if steps.is_empty() {
        return Ok(prev.cloned());
    }
    let Ok(mut inputs) = assumed_inputs(key, size, prev, steps) else {
        return verify_chain_one_by_one(key, size, prev, steps);
    };
    if steps.iter().all(|s| s.proof.size() == size) {
        let (input_cards, input_bytes) = input_deck(size, prev);
        let mut decks = Vec::with_capacity(steps.len() + 1);
        decks.push(DeckRef {
            cards: &input_cards,
            bytes: &input_bytes,
        });
        decks.extend(steps.iter().map(|s| s.deck.view()));
        let contexts: Vec<Vec<u8>> = steps.iter().map(|s| s.ctx.encode(Label::Proof)).collect();
        let batch: Vec<argument::ChainStep<'_>> = steps
            .iter()
            .zip(&contexts)
            .map(|(s, ctx)| (ctx.as_slice(), &*s.proof.inner, &*s.proof.bytes))
            .collect();
        if argument::verify_steps(key.apk, &decks, &batch) {
            return Ok(inputs.pop().flatten());
        }
    }
    verify_chain_one_by_one(key, size, prev, steps)
}

/// [`verify_chain`] a step at a time, stopping at the first bad one.
fn verify_chain_one_by_one(
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    steps: &[ShuffleStep],
) -> ChainResult {
    let mut current = prev.cloned();
    for step in steps {
        let next = verify_shuffle(
            &step.ctx,
            key,
            size,
            current.as_ref(),
            &step.deck,
            &step.proof,
        )?;
        current = Some(next);
    }
    Ok(current)
}

/// The input of every step, the caller's deck for the first and the previous published deck,
/// taken as verified, for the others, then the last step's deck as the chain's output: what
/// lets steps be checked at once. Fails when the steps are not placed one after the other.
fn assumed_inputs(
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    steps: &[ShuffleStep],
) -> Result<Vec<Option<VerifiedDeck>>, FairError> {
    let mut inputs: Vec<Option<VerifiedDeck>> = Vec::with_capacity(steps.len() + 1);
    inputs.push(prev.cloned());
    for (k, step) in steps.iter().enumerate() {
        let index = chain_index(&step.ctx, key, size, inputs[k].as_ref())?;
        if step.deck.size() != size {
            return Err(FairError::ContextMismatch("wrong deck size"));
        }
        let assumed =
            VerifiedDeck::new(step.deck.clone(), key, &step.ctx, index, inputs[k].as_ref());
        inputs.push(Some(assumed));
    }
    Ok(inputs)
}

/// Verify the steps of one chain concurrently on std threads; same result as [`verify_chain`].
///
/// Step k is checked against step k−1's published deck taken as verified, so all steps can run
/// at once. That assumption is discharged by step k−1's own check: nothing is returned unless
/// every step verified, and on failure the earliest bad step's shuffler is named. A resumed
/// client re-verifies a whole hand this way in about n/cores of the sequential time.
pub fn verify_chain_parallel(
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    steps: &[ShuffleStep],
) -> ChainResult {
    if steps.is_empty() {
        return Ok(prev.cloned());
    }
    let Ok(inputs) = assumed_inputs(key, size, prev, steps) else {
        // A malformed chain: the sequential check reports its earliest fault exactly.
        return verify_chain_one_by_one(key, size, prev, steps);
    };
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(steps.len());
    let results: Vec<Mutex<Option<Result<VerifiedDeck, FairError>>>> =
        steps.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(step) = steps.get(k) else { break };
                let r = verify_shuffle(
                    &step.ctx,
                    key,
                    size,
                    inputs[k].as_ref(),
                    &step.deck,
                    &step.proof,
                );
                *results[k].lock().expect("no panics while holding the lock") = Some(r);
            });
        }
    });
    let mut last = None;
    for r in results {
        let r = r
            .into_inner()
            .expect("no panics while holding the lock")
            .expect("every step ran");
        last = Some(r?);
    }
    Ok(last)
}

/// The outcome of verifying one chain: its last verified deck (`None` for an empty chain with no
/// starting deck) or the first fault.
pub type ChainResult = Result<Option<VerifiedDeck>, FairError>;

/// An independent chain for [`verify_chains_parallel`].
#[derive(Debug, Clone, Copy)]
pub struct ChainJob<'a> {
    /// Joint key of that hand.
    pub key: &'a JointKey,
    /// Deck size.
    pub size: usize,
    /// Verified deck the steps continue from (`None`: from the initial deck).
    pub prev: Option<&'a VerifiedDeck>,
    /// The steps, in chain order.
    pub steps: &'a [ShuffleStep],
}

/// Verify several chains at once on std threads (at most `available_parallelism`), e.g. the
/// next hand's pre-shuffle beside the current hand, or every hand of a resumed table.
///
/// Each chain is verified sequentially on one thread (use [`verify_chain_parallel`] to spread
/// one chain's steps instead). Results are in job order.
pub fn verify_chains_parallel(
    jobs: &[ChainJob<'_>],
) -> Vec<Result<Option<VerifiedDeck>, FairError>> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs.len());
    let results: Vec<Mutex<Option<ChainResult>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = verify_chain(job.key, job.size, job.prev, job.steps);
                *results[i].lock().expect("no panics while holding the lock") = Some(r);
            });
        }
    });
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .expect("no panics while holding the lock")
                .expect("every job ran")
        })
        .collect()
}

/// The permutation a shuffle step with this seed and context applies, computed without the
/// cryptography. It calls the same `SliceRandom::shuffle` on the same freshly seeded RNG as
/// the prover (the permutation is the RNG's first use there, as in ziffle); the test
/// `cheap_permutation_matches_real_shuffle` checks this against opened real shuffles. Position
/// `i` of the output deck holds the card at position `perm[i]` of the input deck.
#[cfg(test)]
pub(crate) fn step_permutation(
    ctx: &Context,
    seed: &[u8; 32],
    size: usize,
    prev: Option<&VerifiedDeck>,
) -> Vec<usize> {
    use rand::seq::SliceRandom;
    let mut perm: Vec<usize> = (0..size).collect();
    let (_, input) = input_deck(size, prev);
    perm.as_mut_slice()
        .shuffle(&mut step_rng(ctx, seed, &input));
    perm
}
