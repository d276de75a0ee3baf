//! This seat's own shuffle as a job another copy of the client can do: the browser page has
//! one thread, and a shuffle proof made on it freezes the page, so the page hands the job to a
//! Web Worker running the same core, which holds no state and gets everything as data.
//!
//! A job is what [`fair::shuffle`] needs: the deck's secret share (its two seeds, never the
//! master secret), the contexts, every key share of the joint key, the size and the deck it
//! builds on. It holds a secret: it goes only to a worker of the same page, never to a relay
//! or a log. The job's answer is taken only after its proof checks out against the client's
//! own verified deck ([`Chance::take_shuffle`]), so a worker that errs cannot make this seat
//! publish a step the others would reject.

use super::*;
use serde::{Deserialize, Serialize};

/// Jobs whose input is kept for checking the answer; each is answered within a step or two.
const JOBS_KEPT: usize = 32;

/// What a job's answer is checked against: the exact input of the own shuffle it makes.
#[derive(Clone)]
pub(super) struct JobInput {
    ctx: Context,
    joint: JointKey,
    size: usize,
    prev: Option<VerifiedDeck>,
}

/// The deck a job builds on, as this client verified it.
#[derive(Clone, Serialize, Deserialize)]
struct JobDeck {
    /// Base64 of the deck's bytes.
    cards: String,
    steps: u16,
    universe: usize,
}

/// One own shuffle to make elsewhere.
#[derive(Clone, Serialize, Deserialize)]
pub struct ShuffleJob {
    /// The own shuffle's key (its context, joint key, size and previous deck), hex.
    key: String,
    table: String,
    hand: u64,
    /// The shuffler's index among the deck's key holders, and its Nostr key (hex).
    seat: u16,
    actor: String,
    /// The shuffle's place in the deck's chain.
    index: u16,
    /// The deck's secret share (key seed ‖ shuffle seed), base64.
    secret: String,
    /// Every key holder's Nostr key (hex) and published key share (base64), in index order.
    shares: Vec<(String, String)>,
    size: usize,
    prev: Option<JobDeck>,
}

/// A job's answer: the deck and proof to publish, base64, for the own shuffle `key`.
#[derive(Clone, Serialize, Deserialize)]
pub struct ShuffleDone {
    key: String,
    cards: String,
    proof: String,
}

impl std::fmt::Debug for ShuffleJob {
    // The secret share stays out of every log and panic message.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ShuffleJob({}, {} cards)", &self.key[..8], self.size)
    }
}

fn hex32(what: &str, text: &str) -> Result<[u8; 32], String> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(text, &mut out).map_err(|_| format!("the job's {what} is unreadable"))?;
    Ok(out)
}

impl ShuffleJob {
    fn new(
        key: [u8; 32],
        secret: &SecretShare,
        ctx: &Context,
        joint: &JointKey,
        size: usize,
        prev: Option<&VerifiedDeck>,
    ) -> Result<ShuffleJob, ChanceError> {
        let FairStep::Shuffle { index } = ctx.step else {
            return Err(ChanceError::Protocol(
                "a shuffle job outside a shuffle step".into(),
            ));
        };
        let shares = (0..joint.seats())
            .filter_map(|i| joint.share(i))
            .map(|s| (hex::encode(s.actor()), s.public_share().to_base64()))
            .collect();
        Ok(ShuffleJob {
            key: hex::encode(key),
            table: hex::encode(ctx.table),
            hand: ctx.hand,
            seat: ctx.seat,
            actor: hex::encode(ctx.actor),
            index,
            secret: fair::to_base64(&*secret.to_bytes()),
            shares,
            size,
            prev: prev.map(|p| JobDeck {
                cards: p.deck().to_base64(),
                steps: p.steps(),
                universe: p.universe(),
            }),
        })
    }

    /// The key of the own shuffle it makes (hex).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Makes the shuffle and its proof: what the worker runs. Errors are in words.
    pub fn run(&self) -> Result<ShuffleDone, String> {
        let table = hex32("table", &self.table)?;
        let actor = hex32("seat key", &self.actor)?;
        let keys_ctx = Context::new(table, self.hand, self.seat, actor);
        let fail = |e: fair::FairError| format!("the shuffle job failed: {e}");
        let secret_bytes = Zeroizing::new(fair::from_base64("secret", &self.secret).map_err(fail)?);
        let secret = SecretShare::from_bytes(&keys_ctx, &secret_bytes).map_err(fail)?;
        let mut shares = Vec::with_capacity(self.shares.len());
        for (i, (actor, share)) in self.shares.iter().enumerate() {
            let ctx = Context::new(table, self.hand, i as u16, hex32("key holder", actor)?);
            let public = PublicShare::from_base64(share).map_err(fail)?;
            shares.push(fair::verify_public_share(&ctx, &public).map_err(fail)?);
        }
        let joint = JointKey::from_seats(&shares).map_err(fail)?;
        let prev = match &self.prev {
            Some(p) => Some(VerifiedDeck::vouched(
                fair::Deck::from_base64(self.size, &p.cards).map_err(fail)?,
                &joint,
                p.steps,
                p.universe,
            )),
            None => None,
        };
        let ctx = keys_ctx.with_step(FairStep::Shuffle { index: self.index });
        if hex::encode(own_key(&ctx, &joint, self.size, prev.as_ref())) != self.key {
            return Err("the shuffle job does not describe the shuffle it names".into());
        }
        // Not checked here: the seat checks the answer before it publishes it
        // ([`Chance::take_shuffle`]), so a check in the worker too would be the same work twice.
        let (deck, proof) =
            fair::shuffle_for_chain(&secret, &ctx, &joint, self.size, prev.as_ref())
                .map_err(fail)?;
        Ok(ShuffleDone {
            key: self.key.clone(),
            cards: deck.deck().to_base64(),
            proof: proof.to_base64(),
        })
    }
}

impl ShuffleDone {
    /// The key of the own shuffle it answers (hex).
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl Chance {
    /// Gathers, instead of making, the own shuffles this state's production asks for and that
    /// nobody made yet (`Some`), or makes them again as usual (`None`).
    pub(crate) fn collect_jobs(&mut self, into: Option<Arc<Mutex<Vec<ShuffleJob>>>>) {
        self.collect = into;
    }

    /// While gathering jobs: records the job for the own shuffle `key` and its input.
    pub(super) fn gather(
        &self,
        key: [u8; 32],
        secret: &SecretShare,
        ctx: &Context,
        joint: &JointKey,
        size: usize,
        prev: Option<&VerifiedDeck>,
    ) -> Result<(), ChanceError> {
        let Some(list) = &self.collect else {
            return Ok(());
        };
        let job = ShuffleJob::new(key, secret, ctx, joint, size, prev)?;
        let input = JobInput {
            ctx: *ctx,
            joint: joint.clone(),
            size,
            prev: prev.cloned(),
        };
        {
            let mut jobs = self.cache.jobs.lock().expect("cache");
            if jobs.len() >= JOBS_KEPT && !jobs.contains_key(&key) {
                jobs.clear();
            }
            jobs.insert(key, input);
        }
        list.lock().expect("jobs").push(job);
        Ok(())
    }

    /// Takes a job's answer as this seat's own shuffle, once its proof checks out against the
    /// input this client gave the job; it is then published as if made here. An answer that
    /// does not check out, or to no job of ours, is refused and nothing changes.
    pub fn take_shuffle(&self, done: &ShuffleDone) -> Result<(), ChanceError> {
        let refused = |why: String| ChanceError::Protocol(format!("a shuffle made apart: {why}"));
        let key = hex32("key", &done.key).map_err(&refused)?;
        let input = self
            .cache
            .jobs
            .lock()
            .expect("cache")
            .get(&key)
            .cloned()
            .ok_or_else(|| refused("no such shuffle was asked for".into()))?;
        let cards = fair::from_base64("deck", &done.cards).map_err(|e| refused(e.to_string()))?;
        let proof = fair::from_base64("proof", &done.proof).map_err(|e| refused(e.to_string()))?;
        let deck = fair::verify_shuffle_bytes(
            &input.ctx,
            &input.joint,
            input.size,
            input.prev.as_ref(),
            &cards,
            &proof,
        )
        .map_err(|e| refused(e.to_string()))?;
        let own = OwnShuffle {
            deck,
            cards: done.cards.clone(),
            proof: done.proof.clone(),
            checked: true,
        };
        // Made here meanwhile (the worker was given up on): the two are the same step.
        if slot(&self.cache.own, key, OWN_KEPT).set(Ok(own)).is_ok() {
            self.cache.made_apart.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// How many own shuffles were made apart (by the page's worker) and taken.
    pub fn own_shuffles_taken(&self) -> u64 {
        self.cache.made_apart.load(Ordering::Relaxed)
    }
}
