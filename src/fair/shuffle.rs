//! The shuffle chain: each seat in turn permutes and re-randomises the deck and proves it
//! (ziffle's Bayer–Groth argument); every client verifies each step before the next.
//!
//! The shuffler's randomness (permutation, re-masking scalars, proof nonces) all comes from
//! `ChaCha20Rng::from_seed(ctx.digest("shuffle-rng", [shuffle_seed]))`, where `shuffle_seed` is
//! the seed the seat committed to in the keys pass. A step is therefore a deterministic function
//! of (committed seed, context, joint key, previous deck): in a dispute, the seat opens its seed
//! and anyone recomputes the step byte for byte ([`verify_shuffle_opening`]).

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::codec;
use super::context::{Context, Label, Step};
use super::keys::{JointKey, SecretShare};
use super::sizes::{deck_len, ops, shuffle_proof_len, Erased};
use super::FairError;

/// An encrypted deck as published (not yet verified): `size` ElGamal ciphertexts.
///
/// Wire format: `size` × (`c1` ‖ `c2`), each a 33-byte compressed secp256k1 point; 66 bytes per
/// card. Decoding is strict (exact length, canonical points).
#[derive(Clone)]
pub struct Deck {
    size: usize,
    bytes: Arc<[u8]>,
    pub(crate) inner: Erased,
}

impl fmt::Debug for Deck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = Sha256::digest(&self.bytes);
        write!(
            f,
            "Deck({} cards, sha256 {})",
            self.size,
            hex::encode(&d[..8])
        )
    }
}

impl PartialEq for Deck {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size && self.bytes == other.bytes
    }
}
impl Eq for Deck {}

impl Deck {
    /// Decode a published deck of `size` cards.
    pub fn from_bytes(size: usize, bytes: &[u8]) -> Result<Self, FairError> {
        let inner = ops(size)?.decode_deck(bytes)?;
        Ok(Deck {
            size,
            bytes: bytes.into(),
            inner,
        })
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
        self.size
    }

    /// Encoded length of a deck of `size` cards (66 per card).
    pub fn encoded_len(size: usize) -> usize {
        deck_len(size)
    }

    /// `ctx.digest("deck", [bytes])`: a context-bound name for this deck.
    pub fn digest(&self, ctx: &Context) -> [u8; 32] {
        ctx.digest(Label::Deck, &[&self.bytes])
    }
}

/// A published shuffle proof. Wire format: ziffle's `ShuffleProof<N>` in arkworks compressed
/// form, `555 + 96·N` bytes (see protocol/FAIR.md for the field order).
#[derive(Clone)]
pub struct ShuffleProof {
    size: usize,
    bytes: Arc<[u8]>,
    pub(crate) inner: Erased,
}

impl fmt::Debug for ShuffleProof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ShuffleProof({} cards, {} bytes)",
            self.size,
            self.bytes.len()
        )
    }
}

impl PartialEq for ShuffleProof {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size && self.bytes == other.bytes
    }
}
impl Eq for ShuffleProof {}

impl ShuffleProof {
    /// Decode a published proof for a deck of `size` cards.
    pub fn from_bytes(size: usize, bytes: &[u8]) -> Result<Self, FairError> {
        let inner = ops(size)?.decode_proof(bytes)?;
        Ok(ShuffleProof {
            size,
            bytes: bytes.into(),
            inner,
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
        self.size
    }

    /// Encoded length for a deck of `size` cards (`555 + 96·size`).
    pub fn encoded_len(size: usize) -> usize {
        shuffle_proof_len(size)
    }
}

/// A deck whose whole shuffle chain so far has been verified under one joint key. Only these
/// can be shuffled further or have cards revealed. Not serialisable (ziffle's `Verified` type
/// is not): a resumed client re-verifies the chain from the published steps.
#[derive(Clone)]
pub struct VerifiedDeck {
    deck: Deck,
    pub(crate) verified: Erased,
    key_digest: [u8; 32],
    pub(crate) table: [u8; 32],
    pub(crate) hand: u64,
    steps: u16,
    pub(crate) id: [u8; 32],
}

impl fmt::Debug for VerifiedDeck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "VerifiedDeck({:?}, after {} steps)",
            self.deck, self.steps
        )
    }
}

impl VerifiedDeck {
    fn new(deck: Deck, verified: Erased, key: &JointKey, ctx: &Context, index: u16) -> Self {
        VerifiedDeck {
            id: Sha256::digest(&deck.bytes).into(),
            deck,
            verified,
            key_digest: key.digest(),
            table: ctx.table,
            hand: ctx.hand,
            steps: index + 1,
        }
    }

    /// The deck (for encoding).
    pub fn deck(&self) -> &Deck {
        &self.deck
    }
    /// Number of cards.
    pub fn size(&self) -> usize {
        self.deck.size
    }
    /// How many shuffle steps produced it.
    pub fn steps(&self) -> u16 {
        self.steps
    }
    /// Digest of the joint key it is encrypted under.
    pub fn key_digest(&self) -> [u8; 32] {
        self.key_digest
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

/// The shuffle step's RNG: ChaCha20 keyed by the committed seed and the step context.
fn step_rng(ctx: &Context, seed: &[u8; 32]) -> ChaCha20Rng {
    let key = Zeroizing::new(ctx.digest(Label::ShuffleRng, &[seed]));
    ChaCha20Rng::from_seed(*key)
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
/// ziffle's prover checks the proof it made before returning, so the wrapper is applied without
/// a second ≈45 ms (52 cards) verification.
pub fn shuffle_verified(
    secret: &SecretShare,
    ctx: &Context,
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
) -> Result<(VerifiedDeck, ShuffleProof), FairError> {
    let own = secret.context();
    if !own.same_hand(ctx) || own.seat != ctx.seat || own.actor != ctx.actor {
        return Err(FairError::ContextMismatch(
            "secret share of another seat or hand",
        ));
    }
    let index = chain_index(ctx, key, size, prev)?;
    let ops = ops(size)?;
    let mut rng = step_rng(ctx, secret.shuffle_seed());
    let out = ops.shuffle(
        &mut rng,
        key.apk,
        prev.map(|p| &p.verified),
        &ctx.encode(Label::Proof),
    )?;
    let deck = Deck {
        size,
        bytes: out.deck_bytes.into(),
        inner: out.deck,
    };
    let proof = ShuffleProof {
        size,
        bytes: out.proof_bytes.into(),
        inner: out.proof,
    };
    Ok((
        VerifiedDeck::new(deck, out.verified, key, ctx, index),
        proof,
    ))
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
    if deck.size != size || proof.size != size {
        return Err(FairError::BadShuffle {
            seat,
            reason: "wrong deck size",
        });
    }
    let verified = ops(size)?
        .verify(
            key.apk,
            prev.map(|p| &p.verified),
            &deck.inner,
            &proof.inner,
            &ctx.encode(Label::Proof),
        )?
        .ok_or(FairError::BadShuffle {
            seat,
            reason: "shuffle proof rejected",
        })?;
    Ok(VerifiedDeck::new(deck.clone(), verified, key, ctx, index))
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
    let seat = ctx.seat;
    let blame = |reason: &'static str| {
        move |e: FairError| match e {
            FairError::UnsupportedDeckSize(_) => e,
            _ => FairError::BadShuffle { seat, reason },
        }
    };
    chain_index(ctx, key, size, prev)?;
    let deck = Deck::from_bytes(size, deck).map_err(blame("malformed deck"))?;
    let proof = ShuffleProof::from_bytes(size, proof).map_err(blame("malformed proof"))?;
    verify_shuffle(ctx, key, size, prev, &deck, &proof)
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

/// Verify consecutive steps after `prev` (or from the initial deck), stopping at the first bad
/// one (whose shuffler the error names).
pub fn verify_chain(
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

/// Verify the steps of one chain concurrently on std threads; same result as [`verify_chain`].
///
/// Step k is checked against step k−1's published deck taken as verified (ziffle only accepts
/// `Verified` previous decks, which only verification produces, so a strictly sequential chain
/// would be the only option otherwise). That assumption is discharged by step k−1's own check:
/// nothing is returned unless every step verified, and on failure the earliest bad step's
/// shuffler is named. A resumed client re-verifies a whole hand this way in about
/// n/cores of the sequential time.
pub fn verify_chain_parallel(
    key: &JointKey,
    size: usize,
    prev: Option<&VerifiedDeck>,
    steps: &[ShuffleStep],
) -> ChainResult {
    if steps.is_empty() {
        return Ok(prev.cloned());
    }
    let ops = ops(size)?;
    // The input of every step: the caller's deck for the first, the assumed-verified previous
    // published deck for the others.
    let assumed_inputs = || -> Result<Vec<Option<VerifiedDeck>>, FairError> {
        let mut inputs = Vec::with_capacity(steps.len());
        inputs.push(prev.cloned());
        for (k, step) in steps.iter().enumerate().take(steps.len() - 1) {
            let index = chain_index(&step.ctx, key, size, inputs[k].as_ref())?;
            if step.deck.size != size {
                return Err(FairError::ContextMismatch("wrong deck size"));
            }
            let assumed = ops.assume_verified(&step.deck.inner)?;
            inputs.push(Some(VerifiedDeck::new(
                step.deck.clone(),
                assumed,
                key,
                &step.ctx,
                index,
            )));
        }
        Ok(inputs)
    };
    let Ok(inputs) = assumed_inputs() else {
        // A malformed chain: the sequential check reports its earliest fault exactly.
        return verify_chain(key, size, prev, steps);
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
/// Steps of one chain stay sequential: ziffle only accepts a `Verified` previous deck, and only
/// verification produces one, so step k+1 cannot start before step k is done. Results are in
/// job order.
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
/// ziffle's `shuffle_remask_prove` (the permutation is the RNG's first use there); the test
/// `cheap_permutation_matches_real_shuffle` checks this against opened real shuffles. Position
/// `i` of the output deck holds the card at position `perm[i]` of the input deck.
#[cfg(test)]
pub(crate) fn step_permutation(ctx: &Context, seed: &[u8; 32], size: usize) -> Vec<usize> {
    use rand::seq::SliceRandom;
    let mut perm: Vec<usize> = (0..size).collect();
    perm.as_mut_slice().shuffle(&mut step_rng(ctx, seed));
    perm
}
