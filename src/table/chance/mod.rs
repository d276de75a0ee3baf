//! The table's answer to a game's chance requests, without a dealer: the mental-poker deck
//! (key shares, a shuffle by every participant, decryption tokens) and commit-reveal dice,
//! behind one interface the session drives stage by stage.
//!
//! A chance batch goes through up to three stages, each one relay pass:
//! 1. **Setup** (parallel, every participant) — only when the batch needs it: new decks, or dice
//!    with no usable epoch. Each participant publishes a key share per new deck, a fresh dice
//!    commitment and a box key; together they open an *epoch*.
//! 2. **Shuffles** (sequential, participant 0, 1, …) — when the batch has new decks. Each event
//!    carries the participant's shuffle of every new deck, and the dice values it owes for the
//!    batch, so a batch with both costs no extra pass.
//! 3. **Reveal** (parallel, every participant that still owes something) — decryption tokens
//!    for deals and reveals, tokens for cards shown to several seats (sealed to each of them),
//!    dice values.
//!
//! Then every client computes the same outcomes, except what only some seats may know: a card
//! dealt to a seat opens with that seat's own token, which it never publishes; private dice
//! need their owner's own value. Every contribution is verified against the commitments of the
//! setup before it counts, and a failure names its signer.
//!
//! Nothing here is random except through the seat's master secret, from which every key, dice
//! seed, box key and proof nonce is derived (HKDF-SHA256 over the table, the purpose and the
//! position): a client restarted with the same secret signs exactly the same events again.
//!
//! Here: the state (secrets, decks, epochs, whispers, the batch) and how a batch begins and is
//! planned. In its parts: `produce`, what this seat publishes; `accept`, what the others
//! publish; `outcomes`, the batch's results; `ahead`, the deck prepared ahead; `carried`, the
//! tokens a move carries for the cards it shows; and `job`, this seat's own shuffle as a job
//! another copy of the client makes (the page's worker).

mod accept;
mod ahead;
mod carried;
mod job;
mod outcomes;
mod produce;

pub use job::{ShuffleDone, ShuffleJob};

use super::whisper;
use crate::cards::{CardId, DeckSpec};
use crate::engine::{ChanceOutcome, ChanceRequest, DeckId, Seat};
use crate::fair::dice::{
    open_private_roll, private_roll, public_roll, verify_reveal, DiceCommitment, DiceReveal,
    DiceSecret, Roll, VerifiedValue,
};
use crate::fair::{
    self, Context, JointKey, PublicShare, RevealToken, SecretShare, Step as FairStep, TokenCheck,
    VerifiedDeck, VerifiedShare, VerifiedToken,
};
use crate::wire::log::{Body, DeckShuffle, LetterMsg, SealedToken, ShownCard, TokenMsg};
use ::hkdf::Hkdf;
use nostr::prelude::{nip44, Keys, PublicKey, SecretKey};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use zeroize::Zeroizing;

/// Dice slots each participant commits to per epoch (a Merkle tree of depth 10: a reveal is
/// 36 + 320 bytes). A batch that needs more than the epoch has left opens a new epoch.
pub const EPOCH_SLOTS: u32 = 1024;

/// Internal ids of spare decks (PROTOCOL.md §5.9) start here; a game's deck ids stay below, so
/// the two never collide. The n-th spare a table makes (from 0) is `SPARE_BASE + n`.
pub const SPARE_BASE: DeckId = 0x8000_0000;

/// A deck is prepared ahead only when it and the decks the same event may shuffle (the batch's
/// own, or another deck like it) hold at most this many cards together: that event then stays
/// ≤ ≈ 47 KB of shuffles (base64 of 208 cards and their proofs, FAIR.md §4), under the 64 KiB
/// event limit with room for its other fields.
pub const SPARE_CARDS: usize = 208;

/// The context hand number of the deck prepared ahead with spare number `m` (PROTOCOL.md §5.9):
/// bit 48 set, so it never equals a batch deck's `(setup step << 8) | j` (steps are u32 and
/// `j` < 64) nor a dice epoch's `… | 0xff`.
fn ahead_hand(m: u32) -> u64 {
    (1u64 << 48) | (u64::from(m) << 8) | 0xfe
}

/// At most this many decks keyed in one setup (deck index `j` of `deck_hand` stays below the
/// dice epoch's 0xff).
const MAX_KEYED: usize = 64;

/// Why a contribution or a batch failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChanceError {
    /// A seat's event does not check out: it is to blame.
    #[error("{reason}")]
    Bad { seat: Seat, reason: String },
    /// The game asked for something the protocol cannot give (a card of a dead deck, an
    /// exhausted slot tree): nobody's fault but the game's.
    #[error("{0}")]
    Protocol(String),
}

fn bad(seat: Seat, reason: impl std::fmt::Display) -> ChanceError {
    ChanceError::Bad {
        seat,
        reason: reason.to_string(),
    }
}

/// The seat's own secret for the whole table and what is derived from it.
#[derive(Clone)]
pub struct Secrets {
    seat: Seat,
    master: Arc<Zeroizing<[u8; 32]>>,
}

impl Secrets {
    pub fn new(seat: Seat, master: Zeroizing<[u8; 32]>) -> Secrets {
        Secrets {
            seat,
            master: Arc::new(master),
        }
    }

    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// 32 bytes for `purpose` at `params`, independent of every other purpose and position.
    pub fn derive(&self, table: &[u8; 32], purpose: &str, params: &[u64]) -> Zeroizing<[u8; 32]> {
        let hk = Hkdf::<Sha256>::new(Some(b"tolerance/session/v2"), &**self.master);
        let mut info = Vec::with_capacity(32 + purpose.len() + 8 * params.len() + 2);
        info.extend_from_slice(table);
        info.extend_from_slice(&(purpose.len() as u16).to_be_bytes());
        info.extend_from_slice(purpose.as_bytes());
        for p in params {
            info.extend_from_slice(&p.to_be_bytes());
        }
        let mut out = Zeroizing::new([0u8; 32]);
        hk.expand(&info, &mut *out)
            .expect("32 bytes is a valid HKDF output length");
        out
    }

    pub fn rng(&self, table: &[u8; 32], purpose: &str, params: &[u64]) -> ChaCha20Rng {
        ChaCha20Rng::from_seed(*self.derive(table, purpose, params))
    }
}

/// Commitments and box keys of one epoch, and the dice slots it has handed out.
#[derive(Clone)]
struct Epoch {
    /// The setup step that opened it.
    step: u32,
    parts: Vec<Seat>,
    dice: Vec<DiceCommitment>,
    boxes: Vec<PublicKey>,
    next_slot: u32,
    my_dice: Option<Arc<DiceSecret>>,
    my_box: Option<Arc<SecretKey>>,
}

impl Epoch {
    fn dice_hand(&self) -> u64 {
        (u64::from(self.step) << 8) | 0xff
    }
    fn idx(&self, seat: Seat) -> Option<usize> {
        self.parts.iter().position(|s| *s == seat)
    }
}

/// A private roll's place, for its opening.
#[derive(Clone, Copy)]
struct PrivateRoll {
    epoch: u32,
    slot: u32,
    sides: u8,
    count: u8,
}

/// One deck: its key set, its shuffle chain and the tokens published for its positions.
#[derive(Clone)]
struct Deck {
    spec: DeckSpec,
    size: usize,
    /// The context hand number of every proof about this deck.
    fair_hand: u64,
    parts: Vec<Seat>,
    shares: Vec<VerifiedShare>,
    joint: Option<JointKey>,
    my_secret: Option<Arc<SecretShare>>,
    /// The deck after the shuffles verified so far, and the event that produced it.
    deck: Option<(VerifiedDeck, String)>,
    shuffles: usize,
    /// Published (plain) tokens by position, with their participant index.
    tokens: BTreeMap<u16, Vec<VerifiedToken>>,
    /// Tokens sent to this client sealed, by position.
    sealed_to_me: BTreeMap<u16, Vec<VerifiedToken>>,
    /// The same tokens as their makers sent them (token and proof, by maker's participant
    /// index), so that this client can show a card it was dealt sealed (PROTOCOL.md §5.12).
    sealed_raw: BTreeMap<u16, Vec<(u16, Vec<u8>)>>,
    /// Who each position was dealt to with `DealSealed`, over every batch: each such seat may
    /// show it later (§5.12).
    drawn: BTreeMap<u16, BTreeSet<Seat>>,
    /// Every key holder's token for a position its holder showed, by position.
    shown: BTreeMap<u16, Vec<VerifiedToken>>,
    /// Who a position was dealt to.
    holders: BTreeMap<u16, Vec<Seat>>,
    /// Cards opened to everyone, by position.
    revealed: BTreeMap<u16, CardId>,
    /// Set when a participant left: nobody can open its cards any more.
    dead: bool,
    /// The epoch whose box keys seal its tokens: its setup's, or for a deck prepared ahead the
    /// epoch of the batch it serves.
    epoch: Option<u32>,
    /// From version 10: the batch's shuffles of this deck placed but not checked yet, checked
    /// together when the last one is in (PROTOCOL.md §5.9).
    pending: Option<PendingChain>,
}

/// Shuffles of a batch's deck placed as they arrived, waiting for the check of their chain.
#[derive(Clone)]
struct PendingChain {
    /// The deck the first of them built on: `None` for the initial deck, or a deck prepared
    /// ahead whose first shuffles were already checked.
    start: Option<VerifiedDeck>,
    steps: Vec<PendingStep>,
}

#[derive(Clone)]
struct PendingStep {
    step: fair::ShuffleStep,
    /// The deck it left, placed on trust.
    placed: VerifiedDeck,
    event: String,
    seat: Seat,
    /// The table step its event counted at.
    at: u32,
}

impl Deck {
    /// A deck of `spec` for `parts`, with context hand `fair_hand`: no keys, no shuffles, no
    /// tokens yet.
    fn fresh(spec: DeckSpec, fair_hand: u64, parts: Vec<Seat>) -> Deck {
        Deck {
            size: spec.len(),
            spec,
            fair_hand,
            parts,
            shares: Vec::new(),
            joint: None,
            my_secret: None,
            deck: None,
            shuffles: 0,
            tokens: BTreeMap::new(),
            sealed_to_me: BTreeMap::new(),
            sealed_raw: BTreeMap::new(),
            drawn: BTreeMap::new(),
            shown: BTreeMap::new(),
            holders: BTreeMap::new(),
            revealed: BTreeMap::new(),
            dead: false,
            epoch: None,
            pending: None,
        }
    }

    fn idx(&self, seat: Seat) -> Option<usize> {
        self.parts.iter().position(|s| *s == seat)
    }
    fn verified(&self) -> Result<&VerifiedDeck, ChanceError> {
        match &self.deck {
            Some((d, _)) if self.shuffles == self.parts.len() => Ok(d),
            _ => Err(ChanceError::Protocol("the deck is not shuffled yet".into())),
        }
    }
    /// The key holders still owing a plain token for `position`, in participant order; `None`
    /// when the position cannot be opened from this deck now (dead, not yet shuffled and
    /// verified, or no such position).
    fn lacking(&self, position: u16) -> Option<Vec<Seat>> {
        if self.dead || self.verified().is_err() || usize::from(position) >= self.size {
            return None;
        }
        let given = self.tokened(position);
        Some(
            self.parts
                .iter()
                .enumerate()
                .filter(|(i, _)| !given.contains(&(*i as u16)))
                .map(|(_, s)| *s)
                .collect(),
        )
    }

    /// Participants that published a plain token for `position`.
    fn tokened(&self, position: u16) -> BTreeSet<u16> {
        self.tokens
            .get(&position)
            .map(|v| v.iter().map(|t| t.seat()).collect())
            .unwrap_or_default()
    }
}

/// What one participant owes in the batch's reveal stage (or on its shuffle event for dice).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Owed {
    /// `(deck, position, recipient index)` plain tokens, in this order.
    tokens: Vec<(DeckId, u16, Option<u16>)>,
    /// `(deck, position, to)` sealed tokens, in this order.
    sealed: Vec<(DeckId, u16, Seat)>,
    /// `(deck, position)` cards it shows by itself, as their holder (§5.12), in this order.
    shown: Vec<(DeckId, u16)>,
    /// `(epoch, slot)` dice values, in this order.
    dice: Vec<(u32, u32)>,
    /// Whispers it is a candidate of: a mailbox key each, in request order (PROTOCOL.md §5.11).
    mailbox: Vec<WhisperId>,
    /// Whispers it sends: its letters, in request order.
    letters: Vec<WhisperId>,
    /// Whispers being opened: its letter secret (the whisperer) or its decoy seed.
    unseal: Vec<WhisperId>,
}

impl Owed {
    /// Nothing owed in the reveal stage.
    fn is_empty(&self) -> bool {
        self.tokens.is_empty()
            && self.sealed.is_empty()
            && self.dice.is_empty()
            && self.shown.is_empty()
    }

    /// Whether something is owed in the parallel stage `stage`.
    fn owes(&self, stage: Stage) -> bool {
        match stage {
            Stage::Reveal => !self.is_empty(),
            Stage::Mailbox => !self.mailbox.is_empty(),
            Stage::Letter => !self.letters.is_empty(),
            Stage::Unseal => !self.unseal.is_empty(),
            _ => false,
        }
    }
}

/// A whisper's name: its whisperer and the number of the private roll it whispers.
type WhisperId = (Seat, u32);

/// A whisper (PROTOCOL.md §5.11): `owner`'s private roll `roll`, sealed to whichever candidate
/// holds `card` of `deck`.
#[derive(Clone)]
struct Whisper {
    owner: Seat,
    roll: u32,
    deck: DeckId,
    card: CardId,
    /// The candidates: each position and the one seat it was dealt to, in request order.
    cands: Vec<(u16, Seat)>,
    /// Their mailbox keys, as published.
    keys: Vec<Option<PublicKey>>,
    /// The letter key and one letter per candidate.
    letter: Option<(PublicKey, Vec<String>)>,
    /// The whisperer's die for the roll, once its letters were opened for everyone.
    opened: Option<VerifiedValue>,
}

impl Whisper {
    fn id(&self) -> WhisperId {
        (self.owner, self.roll)
    }
}

/// Where a batch is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Every participant publishes a setup.
    Setup,
    /// Participant number `k` shuffles.
    Shuffle(usize),
    /// Every participant that owes something reveals.
    Reveal,
    /// The candidates of the batch's whispers publish their mailbox keys.
    Mailbox,
    /// The whisperers publish their letters.
    Letter,
    /// Whispers being opened: the whisperers' letter secrets and the decoys' seeds.
    Unseal,
    /// Everything is in: the outcomes can be computed.
    Ready,
}

/// The parallel stages after the shuffles, in the order a batch runs them.
const PARALLEL: [Stage; 4] = [Stage::Reveal, Stage::Mailbox, Stage::Letter, Stage::Unseal];

/// A dice value's place: (epoch, slot).
type SlotKey = (u32, u32);

/// A dice request's slot.
#[derive(Clone, Copy, Debug)]
struct Slot {
    epoch: u32,
    slot: u32,
}

#[derive(Clone)]
struct Batch {
    requests: Vec<ChanceRequest>,
    stage: Stage,
    /// New decks no spare serves, in request order: `(deck, spec)`. These are keyed and
    /// shuffled by the batch (or, for a deck prepared ahead but not finished, shuffled by the
    /// participants that had not shuffled it yet).
    new_decks: Vec<(DeckId, DeckSpec)>,
    /// The participants of the setup (and of the decks and epoch it opens).
    parts: Vec<Seat>,
    /// Who shuffles at `Stage::Shuffle(k)`: `order[k]`. The participants in ascending order,
    /// except when the batch finishes a deck prepared ahead: those who shuffled it already
    /// first, in the order they did.
    order: Vec<Seat>,
    /// Per request: its dice slot once planned.
    slots: Vec<Option<Slot>>,
    owed: BTreeMap<Seat, Owed>,
    /// Who has contributed to the current parallel stage.
    got: BTreeSet<Seat>,
    /// Setup contributions held until every participant's is in.
    setups: BTreeMap<Seat, (Vec<VerifiedShare>, DiceCommitment, PublicKey)>,
    /// What each participant's setup says about seats coming back (sitting out is the table's
    /// business; the batch only keeps what was signed).
    backs: BTreeMap<Seat, BTreeSet<Seat>>,
    /// The batch's whispers, in request order; kept by the table once the batch is done.
    whispers: Vec<Whisper>,
}

impl Batch {
    /// The first parallel stage after `from` in which somebody owes something, or `Ready`.
    fn next_stage(&self, from: Stage) -> Stage {
        let start = PARALLEL
            .iter()
            .position(|s| *s == from)
            .map_or(0, |i| i + 1);
        PARALLEL[start..]
            .iter()
            .copied()
            .find(|s| self.owed.values().any(|o| o.owes(*s)))
            .unwrap_or(Stage::Ready)
    }

    fn whisper_mut(&mut self, id: WhisperId) -> Option<&mut Whisper> {
        self.whispers.iter_mut().find(|w| w.id() == id)
    }
}

impl Batch {
    /// Every deck the batch keys in its setup and shuffles.
    fn keyed(&self) -> impl Iterator<Item = &(DeckId, DeckSpec)> {
        self.new_decks.iter()
    }
}

/// The next deck, prepared during the hand in progress (PROTOCOL.md §5.9): each participant's
/// key share and then its shuffle ride on the first events it sends anyway once they are due.
#[derive(Clone)]
struct AheadDeck {
    /// Its spare id (`SPARE_BASE + m`).
    id: DeckId,
    /// The deck: `joint` is set once every key share is in, `deck`/`shuffles` as it goes.
    deck: Deck,
    /// Key shares in so far, by seat.
    shares: BTreeMap<Seat, VerifiedShare>,
    /// Who shuffled it, in chain order.
    order: Vec<Seat>,
    /// From version 7: its shuffles so far, placed but not yet checked, with their events
    /// (PROTOCOL.md §5.9); checked together before the deck serves.
    unchecked: Vec<(fair::ShuffleStep, String)>,
}

/// A part of the deck prepared ahead, checked against the state its event's step opened in and
/// applied when that step closes (so every part of one step is judged in the same state).
#[derive(Clone)]
pub enum AheadPart {
    Keys(Seat, VerifiedShare),
    /// A shuffle: the deck it leaves, its event, and from version 7 the step itself, placed
    /// in the chain but not checked yet.
    Shuffle(Seat, VerifiedDeck, String, Option<Box<fair::ShuffleStep>>),
}

/// A deck prepared ahead that did not serve because a shuffle of its chain failed its proof
/// when the chain was checked (version 7, PROTOCOL.md §5.9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedChain {
    /// The seat whose shuffle was the first to fail.
    pub seat: Seat,
    /// Its event.
    pub event: String,
    /// Why, in words.
    pub reason: String,
}

/// A shuffle whose proof failed when its chain was checked together, from version 10: of a
/// batch's own deck, or of the deck prepared ahead (PROTOCOL.md §5.9). Its event stood when it
/// came, and its seat is removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisprovedShuffle {
    pub seat: Seat,
    /// Its event, and the table step it counted at: `None` for a shuffle of the deck prepared
    /// ahead, already named as a [`RefusedChain`].
    pub event: String,
    pub step: Option<u32>,
    /// Why, in words.
    pub reason: String,
}

/// What one client keeps across derivations of the same log, shared with its speculative
/// copies ([`Chance::speculative`]).
pub type ShuffleCache = Arc<Caches>;

/// Verified-shuffle key: the event, the deck and the exact input (joint key, previous deck).
type VerifiedKey = ([u8; 32], DeckId, [u8; 32], [u8; 32]);

/// A slot for this seat's own shuffle of one exact input, filled once by whichever of the
/// speculative copy and the client itself gets there first; the other waits for it.
type OwnSlot = Arc<OnceLock<Result<OwnShuffle, String>>>;

/// Own shuffles kept at most; they are used within a step or two of being made.
const OWN_KEPT: usize = 32;

/// A published deck decoded once, by whichever of the speculative copy and the client itself
/// gets there first; the other waits for it.
type DecodedSlot = Arc<OnceLock<Result<fair::Deck, fair::FairError>>>;

/// Decoded decks kept at most; like own shuffles, each is used within a step of arriving.
const DECODED_KEPT: usize = 32;

/// The verdict on a prepared deck's chain (version 7), reached once per client.
type ChainSlot = Arc<OnceLock<Result<VerifiedDeck, fair::FairError>>>;

/// Chain verdicts kept at most; each is looked up again only by a roll-back of its step.
const CHAINS_KEPT: usize = 32;

#[derive(Default)]
pub struct Caches {
    /// Verified shuffles: a roll-back re-applies events it has already checked, and a shuffle
    /// proof is the expensive check. Keyed by [`VerifiedKey`], so a result is only reused where
    /// it was computed.
    verified: Mutex<HashMap<VerifiedKey, VerifiedDeck>>,
    /// This seat's own shuffles by their exact input (context, joint key, previous deck; the
    /// randomness follows from the context and the seat's secret, so the step is a function of
    /// them): made ahead on a deck whose proof was still being checked (PROTOCOL.md §5.10), and
    /// then neither made again nor checked again when our own event comes back.
    own: Mutex<HashMap<[u8; 32], OwnSlot>>,
    /// Published decks decoded, by event and deck, shared with the speculative copy: the copy
    /// that shuffles on a deck and the client that checks it would otherwise each decode its
    /// points (a square root each, 208 of them for a 104-card deck).
    decoded: Mutex<HashMap<([u8; 32], DeckId), DecodedSlot>>,
    /// The verdicts on chains of the deck prepared ahead checked together (version 7), by
    /// deck, joint key and events: a roll-back re-applies the step that completes a chain.
    chains: Mutex<HashMap<[u8; 32], ChainSlot>>,
    /// Own shuffles proved, and how many of them by a speculative copy (for tests and reports).
    made: AtomicU64,
    made_ahead: AtomicU64,
    /// The input of each own shuffle handed out as a job ([`ShuffleJob`]), to check its answer
    /// against.
    jobs: Mutex<HashMap<[u8; 32], job::JobInput>>,
    /// Own shuffles made apart by a job and taken (for tests and reports).
    made_apart: AtomicU64,
}

/// The slot of `key` in one of [`Caches`]' maps, made empty if new; a map that reached `kept`
/// entries is emptied first (its entries are used within a step or two of being made).
fn slot<K: std::hash::Hash + Eq, T>(
    map: &Mutex<HashMap<K, Arc<OnceLock<T>>>>,
    key: K,
    kept: usize,
) -> Arc<OnceLock<T>> {
    let mut map = map.lock().expect("cache");
    if map.len() >= kept && !map.contains_key(&key) {
        map.clear();
    }
    map.entry(key).or_default().clone()
}

impl Caches {
    /// The deck an event published, decoded at most once per client.
    pub(crate) fn decoded_deck(
        &self,
        key: ([u8; 32], DeckId),
        decode: impl FnOnce() -> Result<fair::Deck, fair::FairError>,
    ) -> Result<fair::Deck, fair::FairError> {
        slot(&self.decoded, key, DECODED_KEPT)
            .get_or_init(decode)
            .clone()
    }
}

/// This seat's shuffle of one input, as published.
#[derive(Clone)]
pub struct OwnShuffle {
    deck: VerifiedDeck,
    cards: String,
    proof: String,
    /// Whether its proof was checked here (by the prover, or on taking a worker's answer). A
    /// step made for a chain checked whole is not ([`fair::shuffle_for_chain`]): should the same
    /// step come back on another path (a batch finishing the prepared deck), it is checked there
    /// like anyone's rather than taken as already checked.
    checked: bool,
}

/// The chance protocol state of one table as one client knows it.
#[derive(Clone)]
pub struct Chance {
    table: [u8; 32],
    /// x-only keys by seat.
    actors: Vec<[u8; 32]>,
    me: Option<Secrets>,
    epochs: BTreeMap<u32, Epoch>,
    current: Option<u32>,
    decks: BTreeMap<DeckId, Deck>,
    private_rolls: BTreeMap<(Seat, u32), PrivateRoll>,
    rolls_made: BTreeMap<Seat, u32>,
    /// Whispers sent, by whisperer and roll (PROTOCOL.md §5.11).
    whispers: BTreeMap<WhisperId, Whisper>,
    /// Dice values revealed so far, by (epoch, slot).
    values: BTreeMap<(u32, u32), Vec<VerifiedValue>>,
    /// Spares made so far (the next spare's id is `SPARE_BASE + spares_made`).
    spares_made: u32,
    /// The next deck, being keyed and shuffled on the events of the hand in progress.
    ahead: Option<AheadDeck>,
    batch: Option<Batch>,
    cache: ShuffleCache,
    /// A copy that takes shuffles on trust to prepare this seat's next one early; it never
    /// deals, and nothing it computes leaves it except through the own-shuffle cache.
    speculative: bool,
    /// Version 7 and later: the shuffles of the deck prepared ahead are placed when they
    /// arrive and checked together before the deck serves (PROTOCOL.md §5.9).
    defer_chain: bool,
    /// Decks prepared ahead that did not serve because their chain failed, in order, until
    /// taken ([`Chance::take_refused_chains`]).
    refused: Vec<RefusedChain>,
    /// Version 10 and later: the shuffles of a batch's own decks are placed when they arrive
    /// and checked together when the last one is in (PROTOCOL.md §5.9).
    batch_chains: bool,
    /// Shuffles of a batch's own decks found bad by that check, until taken
    /// ([`Chance::take_disproved`]).
    disproved: Vec<DisprovedShuffle>,
    /// Set while the page asks which own shuffles its next event needs: those not made yet are
    /// gathered here as jobs instead of being made ([`Chance::collect_jobs`]).
    collect: Option<Arc<Mutex<Vec<ShuffleJob>>>>,
    /// Counters for reports and benchmarks.
    pub stats: ChanceStats,
}

/// What the chance protocol verified.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ChanceStats {
    pub shuffles_verified: u64,
    pub tokens_verified: u64,
    pub dice_verified: u64,
    pub epochs: u64,
    /// Requested decks served by a spare (no setup or shuffles of their own).
    pub spares_used: u64,
    /// Chains of a deck prepared ahead checked together (version 7), and the shuffles in them
    /// (also counted in `shuffles_verified`).
    pub chains_checked: u64,
    pub chained_shuffles: u64,
}

fn sha(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u32).to_be_bytes());
        h.update(p);
    }
    h.finalize().into()
}

/// The key of an own shuffle: its context, joint key, size and previous deck.
fn own_key(ctx: &Context, joint: &JointKey, size: usize, prev: Option<&VerifiedDeck>) -> [u8; 32] {
    sha(&[
        &ctx.encode(fair::Label::Proof),
        &joint.digest(),
        &(size as u64).to_be_bytes(),
        &prev.map_or([0u8; 32], |v| v.id),
    ])
}

impl Chance {
    pub fn new(table: [u8; 32], actors: Vec<[u8; 32]>, me: Option<Secrets>) -> Chance {
        Chance {
            table,
            actors,
            me,
            epochs: BTreeMap::new(),
            current: None,
            decks: BTreeMap::new(),
            private_rolls: BTreeMap::new(),
            rolls_made: BTreeMap::new(),
            whispers: BTreeMap::new(),
            values: BTreeMap::new(),
            spares_made: 0,
            ahead: None,
            batch: None,
            cache: Arc::new(Caches::default()),
            speculative: false,
            defer_chain: false,
            refused: Vec::new(),
            batch_chains: false,
            disproved: Vec::new(),
            collect: None,
            stats: ChanceStats::default(),
        }
    }

    /// Checks the shuffles of the deck prepared ahead together, before it serves, instead of
    /// one by one as they arrive: the rule of version 7 tables (PROTOCOL.md §5.9).
    pub fn deferring_chain_checks(mut self, defer: bool) -> Chance {
        self.defer_chain = defer;
        self
    }

    /// Checks the shuffles of a batch's own decks together when the last one is in, instead of
    /// one by one as they arrive: the rule of version 10 tables (PROTOCOL.md §5.9).
    pub fn checking_batch_chains(mut self, together: bool) -> Chance {
        self.batch_chains = together;
        self
    }

    /// The shuffles found bad by the check of a batch's chain and not taken yet, taken: their
    /// seats are removed once (PROTOCOL.md §5.9).
    pub fn take_disproved(&mut self) -> Vec<DisprovedShuffle> {
        std::mem::take(&mut self.disproved)
    }

    /// Decks prepared ahead that did not serve because a shuffle of theirs failed its proof.
    pub fn refused_chains(&self) -> &[RefusedChain] {
        &self.refused
    }

    /// The refused chains not taken yet, taken: each is reported once.
    pub fn take_refused_chains(&mut self) -> Vec<RefusedChain> {
        std::mem::take(&mut self.refused)
    }

    /// Shares the verification cache of another client state of the same table.
    pub fn with_cache(mut self, cache: ShuffleCache) -> Chance {
        self.cache = cache;
        self
    }

    pub fn cache(&self) -> ShuffleCache {
        self.cache.clone()
    }

    /// A copy of this state that accepts shuffles without checking their proofs, to prepare
    /// this seat's own next shuffle while the real state is still checking the one it builds
    /// on (PROTOCOL.md §5.10). Only own shuffles come out of it, kept by their exact input: the
    /// real state uses one only when its verified deck is that input.
    pub fn speculative(&self) -> Chance {
        Chance {
            speculative: true,
            ..self.clone()
        }
    }

    /// How many shuffles this seat proved, and how many of those a speculative copy proved
    /// before this client had checked the deck they build on.
    pub fn own_shuffles_made(&self) -> (u64, u64) {
        (
            self.cache.made.load(Ordering::Relaxed),
            self.cache.made_ahead.load(Ordering::Relaxed),
        )
    }

    /// Whether this seat may still owe a shuffle of the batch or of the deck prepared ahead:
    /// only then is a speculative copy worth making.
    pub fn may_owe_shuffle(&self) -> bool {
        let Some(me) = self.my_seat() else {
            return false;
        };
        let in_batch = self.batch.as_ref().is_some_and(|b| match b.stage {
            Stage::Shuffle(k) => b.order[k..].contains(&me),
            Stage::Setup => b.parts.contains(&me),
            _ => false,
        });
        let ahead = self
            .ahead
            .as_ref()
            .is_some_and(|a| a.deck.idx(me).is_some() && !a.order.contains(&me));
        in_batch || ahead
    }

    /// This seat's shuffle of `prev` (or the initial deck) in context `ctx`: the one made
    /// ahead for exactly this input if there is one (waiting for it if it is being made),
    /// made now otherwise, and kept by its input either way. `chained`: the step's whole chain,
    /// this step included, is checked before its deck serves (the deck prepared ahead from
    /// version 7), so the prover does not check its own proof first as well.
    fn own_shuffle(
        &self,
        secret: &SecretShare,
        ctx: &Context,
        joint: &JointKey,
        size: usize,
        prev: Option<&VerifiedDeck>,
        chained: bool,
    ) -> Result<OwnShuffle, ChanceError> {
        let key = own_key(ctx, joint, size, prev);
        let own = slot(&self.cache.own, key, OWN_KEPT);
        if self.collect.is_some() && own.get().is_none() {
            self.gather(key, secret, ctx, joint, size, prev)?;
            return Err(ChanceError::Protocol(
                "our shuffle is being made apart".into(),
            ));
        }
        own.get_or_init(|| {
            self.cache.made.fetch_add(1, Ordering::Relaxed);
            if self.speculative {
                self.cache.made_ahead.fetch_add(1, Ordering::Relaxed);
            }
            let made = if chained {
                fair::shuffle_for_chain(secret, ctx, joint, size, prev)
            } else {
                fair::shuffle_verified(secret, ctx, joint, size, prev)
            };
            made.map(|(deck, proof)| OwnShuffle {
                cards: deck.deck().to_base64(),
                proof: proof.to_base64(),
                deck,
                checked: !chained,
            })
            .map_err(|e| format!("our own step: {e}"))
        })
        .clone()
        .map_err(ChanceError::Protocol)
    }

    fn my_seat(&self) -> Option<Seat> {
        self.me.as_ref().map(|m| m.seat)
    }

    /// Whether a batch is in progress.
    pub fn in_batch(&self) -> bool {
        self.batch.is_some()
    }

    pub fn stage(&self) -> Option<Stage> {
        self.batch.as_ref().map(|b| b.stage)
    }

    /// The participants of the batch in progress (who takes part in its setup and shuffles).
    /// Seats that every participant's setup of the open batch names as back (PROTOCOL §7.10);
    /// empty when the batch had no setup.
    pub fn agreed_back(&self) -> Vec<Seat> {
        let Some(b) = &self.batch else {
            return Vec::new();
        };
        if b.parts.is_empty() || b.parts.iter().any(|p| !b.backs.contains_key(p)) {
            return Vec::new();
        }
        let mut all = b.backs.values();
        let first = all.next().cloned().unwrap_or_default();
        all.fold(first, |acc, x| acc.intersection(x).copied().collect())
            .into_iter()
            .filter(|s| !b.parts.contains(s))
            .collect()
    }

    pub fn batch_parts(&self) -> Vec<Seat> {
        self.batch
            .as_ref()
            .map(|b| b.parts.clone())
            .unwrap_or_default()
    }

    /// Who the current stage waits for, and whether it is sequential.
    pub fn awaited(&self) -> Vec<Seat> {
        let Some(b) = &self.batch else {
            return Vec::new();
        };
        match b.stage {
            Stage::Setup => b
                .parts
                .iter()
                .copied()
                .filter(|s| !b.got.contains(s))
                .collect(),
            Stage::Shuffle(k) => vec![b.order[k]],
            Stage::Reveal | Stage::Mailbox | Stage::Letter | Stage::Unseal => b
                .owed
                .iter()
                .filter(|(s, o)| o.owes(b.stage) && !b.got.contains(s))
                .map(|(s, _)| *s)
                .collect(),
            Stage::Ready => Vec::new(),
        }
    }

    /// A participant left the table: decks it holds a key share of can never be opened again.
    pub fn forget(&mut self, gone: &[Seat]) {
        for d in self.decks.values_mut() {
            if d.parts.iter().any(|p| gone.contains(p)) {
                d.dead = true;
            }
        }
        if let Some(e) = self.current {
            if self.epochs[&e].parts.iter().any(|p| gone.contains(p)) {
                self.current = None;
            }
        }
        if self
            .ahead
            .as_ref()
            .is_some_and(|a| a.deck.parts.iter().any(|p| gone.contains(p)))
        {
            self.ahead = None;
        }
        self.batch = None;
    }

    /// Drops a batch in progress (the step it waited for was settled by a forfeit).
    pub fn abandon(&mut self) {
        self.batch = None;
    }

    /// Starts answering `requests` with `parts` (the game's participants now, ascending).
    /// `spares`: whether the batch may use decks prepared ahead and prepare the next one
    /// (PROTOCOL.md §5.9; the session allows it while no seat sits out).
    pub fn begin(
        &mut self,
        requests: Vec<ChanceRequest>,
        parts: Vec<Seat>,
        spares: bool,
    ) -> Result<(), ChanceError> {
        let mut new_decks = Vec::new();
        let mut dice_needed = 0u32;
        let mut whispers: Vec<Whisper> = Vec::new();
        let mut opening: Vec<WhisperId> = Vec::new();
        for r in &requests {
            match r {
                ChanceRequest::Shuffle { deck, spec } => {
                    spec.validate()
                        .map_err(|e| ChanceError::Protocol(format!("deck {deck}: {e}")))?;
                    if *deck >= SPARE_BASE {
                        return Err(ChanceError::Protocol(format!(
                            "deck {deck}: ids from {SPARE_BASE} on are the table's spare decks"
                        )));
                    }
                    if self.decks.contains_key(deck) || new_decks.iter().any(|(d, _)| d == deck) {
                        return Err(ChanceError::Protocol(format!(
                            "deck {deck} was already shuffled: a new shuffle needs a new deck id"
                        )));
                    }
                    new_decks.push((*deck, spec.clone()));
                }
                ChanceRequest::RollPublic { .. } | ChanceRequest::RollPrivate { .. } => {
                    dice_needed += 1
                }
                ChanceRequest::Deal { .. }
                | ChanceRequest::DealSealed { .. }
                | ChanceRequest::Reveal { .. }
                | ChanceRequest::Show { .. } => self.check_card_request(r, &new_decks, &parts)?,
                ChanceRequest::OpenPrivate { owner, roll } => {
                    if !self.private_rolls.contains_key(&(*owner, *roll)) {
                        return Err(ChanceError::Protocol(format!(
                            "seat {owner} has no private roll {roll} to open"
                        )));
                    }
                }
                ChanceRequest::Whisper {
                    owner,
                    roll,
                    deck,
                    card,
                    positions,
                } => {
                    let w = self.new_whisper(*owner, *roll, *deck, *card, positions, &parts)?;
                    if whispers.iter().any(|x| x.id() == w.id()) {
                        return Err(ChanceError::Protocol(format!(
                            "seat {owner}'s roll {roll} is whispered twice in one batch"
                        )));
                    }
                    whispers.push(w);
                }
                ChanceRequest::OpenWhisper { owner, roll } => {
                    self.check_opening(*owner, *roll, &parts)?;
                    if opening.contains(&(*owner, *roll)) {
                        return Err(ChanceError::Protocol(format!(
                            "seat {owner}'s whisper of roll {roll} is opened twice in one batch"
                        )));
                    }
                    opening.push((*owner, *roll));
                }
            }
        }
        if new_decks.len() > MAX_KEYED {
            return Err(ChanceError::Protocol(format!(
                "{} new decks in one batch: at most {MAX_KEYED}",
                new_decks.len()
            )));
        }
        if parts.len() < 2 && (!new_decks.is_empty() || dice_needed > 0) {
            return Err(ChanceError::Protocol(
                "chance needs at least two participants".into(),
            ));
        }
        let epoch_ok = self.current.is_some_and(|e| {
            let ep = &self.epochs[&e];
            ep.parts == parts && ep.next_slot + dice_needed <= EPOCH_SLOTS
        });
        let dice_setup = dice_needed > 0 && !epoch_ok;
        let asked: Option<DeckSpec> = new_decks.first().map(|(_, spec)| spec.clone());
        let (new_decks, finishing) = if new_decks.is_empty() {
            (new_decks, None)
        } else {
            self.serve_from_spares(new_decks, &parts, spares, dice_setup)
        };
        let needs_setup = (!new_decks.is_empty() && finishing.is_none()) || dice_setup;
        let (order, first) = match &finishing {
            Some(done) => {
                let mut order = done.clone();
                order.extend(parts.iter().filter(|p| !done.contains(p)));
                (order, Stage::Shuffle(done.len()))
            }
            None if needs_setup => (parts.clone(), Stage::Setup),
            None => (parts.clone(), Stage::Reveal),
        };
        let mut batch = Batch {
            requests,
            stage: first,
            new_decks,
            parts,
            order,
            slots: Vec::new(),
            owed: BTreeMap::new(),
            got: BTreeSet::new(),
            setups: BTreeMap::new(),
            backs: BTreeMap::new(),
            whispers,
        };
        if !needs_setup {
            self.plan(&mut batch)?;
        }
        // The next hand's deck is prepared during this one, on the events its participants send
        // anyway (PROTOCOL.md §5.9).
        // Its shuffles ride on events that may carry a shuffle of the batch's own decks, or of
        // another deck like it: both together stay within the card budget.
        let keyed: usize = batch.new_decks.iter().map(|(_, s)| s.len()).sum();
        if let Some(spec) = asked {
            if spares && self.ahead.is_none() && spec.len() + keyed.max(spec.len()) <= SPARE_CARDS {
                self.start_ahead(spec, batch.parts.clone());
            }
        }
        self.batch = Some(batch);
        self.settle_empty_stage();
        Ok(())
    }

    /// Checks a card request against the decks as they are (`new_decks`: shuffled in this
    /// batch; `parts`: its participants).
    fn check_card_request(
        &self,
        r: &ChanceRequest,
        new_decks: &[(DeckId, DeckSpec)],
        parts: &[Seat],
    ) -> Result<(), ChanceError> {
        // A card goes face down only to a key holder of its deck: the holders' tokens open it
        // for the recipient with its own, never published, so a seat holding no share would get
        // a card every holder together could read, and its client could not open it at all.
        let dealt = match r {
            ChanceRequest::Deal { deck, to, .. } => Some((deck, to.as_slice())),
            ChanceRequest::DealSealed { deck, to, .. } => Some((deck, std::slice::from_ref(to))),
            _ => None,
        };
        if let Some((deck, to)) = dealt {
            // The decks of this batch are keyed by its participants (spares serve only those);
            // a deck never shuffled is refused below.
            let holds = |s: &Seat| {
                if new_decks.iter().any(|(d, _)| d == deck) {
                    parts.contains(s)
                } else {
                    self.decks.get(deck).is_none_or(|d| d.idx(*s).is_some())
                }
            };
            if let Some(s) = to.iter().find(|s| !holds(s)) {
                return Err(ChanceError::Protocol(format!(
                    "seat {s} is dealt a card of deck {deck} but holds no key share of it"
                )));
            }
        }
        match r {
            // A deck shuffled in this same batch is live by construction.
            ChanceRequest::Deal { deck, .. }
            | ChanceRequest::DealSealed { deck, .. }
            | ChanceRequest::Reveal { deck, .. }
                if !new_decks.iter().any(|(d, _)| d == deck) =>
            {
                let d = self.decks.get(deck).ok_or_else(|| {
                    ChanceError::Protocol(format!("deck {deck} was never shuffled"))
                })?;
                if d.dead {
                    return Err(ChanceError::Protocol(format!(
                        "deck {deck} cannot be dealt from: a player who held its key left"
                    )));
                }
            }
            // Shown by its holder alone, with the tokens it was sealed: it opens even on a
            // deck one of whose key holders has left (§5.12).
            ChanceRequest::Show {
                deck,
                position,
                holder,
            } => {
                let d = self.decks.get(deck).ok_or_else(|| {
                    ChanceError::Protocol(format!("deck {deck} was never shuffled"))
                })?;
                if !d.drawn.get(position).is_some_and(|h| h.contains(holder)) {
                    return Err(ChanceError::Protocol(format!(
                        "seat {holder} was not dealt position {position} of deck {deck} \
                         sealed, so it cannot show it alone"
                    )));
                }
                if !parts.contains(holder) {
                    return Err(ChanceError::Protocol(format!(
                        "seat {holder} shows a card but takes no part in the batch"
                    )));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A whisper asked for, checked (PROTOCOL.md §5.11): a private roll of `owner` not whispered
    /// before, and positions of a live deck each dealt face down to one seat — a participant of
    /// the deck and of the batch (`parts`), other than `owner` and each holding one of them.
    fn new_whisper(
        &self,
        owner: Seat,
        roll: u32,
        deck: DeckId,
        card: CardId,
        positions: &[u16],
        parts: &[Seat],
    ) -> Result<Whisper, ChanceError> {
        let no = |why: String| Err(ChanceError::Protocol(why));
        if !self.private_rolls.contains_key(&(owner, roll)) {
            return no(format!(
                "seat {owner} has no private roll {roll} to whisper"
            ));
        }
        if self.whispers.contains_key(&(owner, roll)) {
            return no(format!("seat {owner}'s roll {roll} was whispered already"));
        }
        if !parts.contains(&owner) {
            return no(format!(
                "seat {owner} whispers but takes no part in the batch"
            ));
        }
        let Some(d) = self.decks.get(&deck) else {
            return no(format!("deck {deck} was never shuffled"));
        };
        if d.dead {
            return no(format!(
                "deck {deck} cannot be used: a player who held its key left"
            ));
        }
        d.spec
            .check(card)
            .map_err(|e| ChanceError::Protocol(format!("deck {deck}: {e}")))?;
        if positions.is_empty() {
            return no("a whisper to nobody".into());
        }
        let mut cands: Vec<(u16, Seat)> = Vec::new();
        for p in positions {
            let holder = match d.holders.get(p).map(Vec::as_slice) {
                Some([h]) => *h,
                _ => {
                    return no(format!(
                        "position {p} of deck {deck} was not dealt face down to one seat before \
                         the whisper"
                    ))
                }
            };
            if holder == owner || d.idx(holder).is_none() || !parts.contains(&holder) {
                return no(format!(
                    "seat {holder}, holding position {p} of deck {deck}, cannot be a candidate of \
                     seat {owner}'s whisper"
                ));
            }
            if cands.iter().any(|(q, h)| q == p || *h == holder) {
                return no(format!(
                    "seat {holder} (position {p}) is a candidate of one whisper twice"
                ));
            }
            cands.push((*p, holder));
        }
        Ok(Whisper {
            owner,
            roll,
            deck,
            card,
            keys: vec![None; cands.len()],
            cands,
            letter: None,
            opened: None,
        })
    }

    /// A whisper to open: sent, not opened yet, every candidate's card shown, and its whisperer
    /// and candidates in the batch.
    fn check_opening(&self, owner: Seat, roll: u32, parts: &[Seat]) -> Result<(), ChanceError> {
        let no = |why: String| Err(ChanceError::Protocol(why));
        let Some(w) = self.whispers.get(&(owner, roll)) else {
            return no(format!("seat {owner} whispered no roll {roll}"));
        };
        if w.opened.is_some() {
            return no(format!(
                "seat {owner}'s whisper of roll {roll} is open already"
            ));
        }
        let d = &self.decks[&w.deck];
        for (p, s) in &w.cands {
            if !d.revealed.contains_key(p) {
                return no(format!(
                    "position {p} of deck {} must be shown before the whisper is opened",
                    w.deck
                ));
            }
            if !parts.contains(s) {
                return no(format!("seat {s} must take part in opening the whisper"));
            }
        }
        if !parts.contains(&owner) {
            return no(format!(
                "seat {owner} must take part in opening its whisper"
            ));
        }
        Ok(())
    }

    /// Allocates dice slots and works out who owes what (after the batch's setup, if any).
    fn plan(&mut self, b: &mut Batch) -> Result<(), ChanceError> {
        let epoch_no = self.current;
        b.slots = vec![None; b.requests.len()];
        b.owed = b.parts.iter().map(|s| (*s, Owed::default())).collect();
        let mut next = epoch_no.map(|e| self.epochs[&e].next_slot).unwrap_or(0);
        for i in 0..b.requests.len() {
            // A copy: the batch's owed lists grow while the request is read.
            let r = &b.requests[i].clone();
            match r {
                ChanceRequest::Shuffle { .. } => {}
                ChanceRequest::RollPublic { .. } | ChanceRequest::RollPrivate { .. } => {
                    let e = epoch_no.ok_or_else(|| {
                        ChanceError::Protocol("dice asked for with no epoch".into())
                    })?;
                    if next >= EPOCH_SLOTS {
                        return Err(ChanceError::Protocol(
                            "the epoch's dice slots ran out".into(),
                        ));
                    }
                    b.slots[i] = Some(Slot {
                        epoch: e,
                        slot: next,
                    });
                    let owner = match r {
                        ChanceRequest::RollPrivate { owner, .. } => Some(*owner),
                        _ => None,
                    };
                    for s in &b.parts {
                        if Some(*s) != owner {
                            b.owed.get_mut(s).expect("participant").dice.push((e, next));
                        }
                    }
                    next += 1;
                }
                ChanceRequest::OpenPrivate { owner, roll } => {
                    let pr = self.private_rolls[&(*owner, *roll)];
                    b.slots[i] = Some(Slot {
                        epoch: pr.epoch,
                        slot: pr.slot,
                    });
                    b.owed
                        .entry(*owner)
                        .or_default()
                        .dice
                        .push((pr.epoch, pr.slot));
                }
                ChanceRequest::Deal { .. }
                | ChanceRequest::DealSealed { .. }
                | ChanceRequest::Show { .. }
                | ChanceRequest::Reveal { .. } => self.plan_card(r, b)?,
                // Every candidate publishes a mailbox key, then the whisperer its letters.
                ChanceRequest::Whisper { owner, roll, .. } => {
                    let id = (*owner, *roll);
                    let w = b.whispers.iter().find(|w| w.id() == id).expect("checked");
                    for (_, s) in &w.cands {
                        b.owed.entry(*s).or_default().mailbox.push(id);
                    }
                    b.owed.entry(*owner).or_default().letters.push(id);
                }
                // The whisperer shows its letter secret; every candidate whose shown card is
                // not the whispered one shows its decoy's seed.
                ChanceRequest::OpenWhisper { owner, roll } => {
                    let id = (*owner, *roll);
                    let w = &self.whispers[&id];
                    let d = &self.decks[&w.deck];
                    b.owed.entry(*owner).or_default().unseal.push(id);
                    for (p, s) in &w.cands {
                        if d.revealed.get(p) != Some(&w.card) {
                            b.owed.entry(*s).or_default().unseal.push(id);
                        }
                    }
                }
            }
        }
        if let Some(e) = epoch_no {
            self.epochs.get_mut(&e).expect("current epoch").next_slot = next;
        }
        Ok(())
    }

    /// What a card request asks of each key holder in the batch's reveal stage: plain tokens,
    /// sealed tokens, or a card its holder shows.
    fn plan_card(&self, r: &ChanceRequest, b: &mut Batch) -> Result<(), ChanceError> {
        match r {
            ChanceRequest::Deal { deck, position, to } => {
                let d = self.deck_parts(*deck, b)?;
                if to.is_empty() {
                    return Err(ChanceError::Protocol(format!(
                        "position {position} of deck {deck} is dealt to nobody"
                    )));
                }
                for s in &d {
                    if to.contains(s) {
                        if to.len() > 1 {
                            for r in to.iter().filter(|r| *r != s) {
                                b.owed
                                    .entry(*s)
                                    .or_default()
                                    .sealed
                                    .push((*deck, *position, *r));
                            }
                        }
                    } else {
                        let recipient = if to.len() == 1 {
                            d.iter().position(|x| *x == to[0]).map(|i| i as u16)
                        } else {
                            None
                        };
                        b.owed
                            .entry(*s)
                            .or_default()
                            .tokens
                            .push((*deck, *position, recipient));
                    }
                }
            }
            // Every other key holder seals its token to the one recipient: nothing is
            // published, so the position can be dealt again to another seat (§5.12).
            ChanceRequest::DealSealed { deck, position, to } => {
                let d = self.deck_parts(*deck, b)?;
                if !d.contains(to) || !b.parts.contains(to) {
                    return Err(ChanceError::Protocol(format!(
                        "seat {to} is dealt position {position} of deck {deck} sealed but \
                         holds no key share of it"
                    )));
                }
                for s in d.iter().filter(|s| *s != to) {
                    b.owed
                        .entry(*s)
                        .or_default()
                        .sealed
                        .push((*deck, *position, *to));
                }
            }
            ChanceRequest::Show {
                deck,
                position,
                holder,
            } => {
                b.owed
                    .entry(*holder)
                    .or_default()
                    .shown
                    .push((*deck, *position));
            }
            ChanceRequest::Reveal { deck, position } => {
                let d = self.deck_parts(*deck, b)?;
                let given: BTreeSet<u16> = self
                    .decks
                    .get(deck)
                    .map(|x| x.tokened(*position))
                    .unwrap_or_default();
                for (i, s) in d.iter().enumerate() {
                    if !given.contains(&(i as u16)) {
                        b.owed
                            .entry(*s)
                            .or_default()
                            .tokens
                            .push((*deck, *position, None));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The participants of `deck` (a deck of this batch or an older one).
    fn deck_parts(&self, deck: DeckId, b: &Batch) -> Result<Vec<Seat>, ChanceError> {
        if b.new_decks.iter().any(|(d, _)| *d == deck) {
            return Ok(b.parts.clone());
        }
        self.decks
            .get(&deck)
            .map(|d| d.parts.clone())
            .ok_or_else(|| ChanceError::Protocol(format!("deck {deck} was never shuffled")))
    }

    /// Skips parallel stages nobody owes anything in.
    fn settle_empty_stage(&mut self) {
        if let Some(b) = &mut self.batch {
            if PARALLEL.contains(&b.stage) && !b.owed.values().any(|o| o.owes(b.stage)) {
                b.stage = b.next_stage(b.stage);
            }
        }
    }

    fn ctx(&self, hand: u64, idx: usize, actor: Seat) -> Context {
        Context::new(self.table, hand, idx as u16, self.actors[actor as usize])
    }

    /// This seat's key share of deck `deck` (context hand `hand`), where it is key holder
    /// `idx`: derived from its master secret (PROTOCOL.md §5.7), so the public half it sends
    /// and the secret half it keeps are one key.
    fn my_keys(
        &self,
        hand: u64,
        deck: DeckId,
        idx: usize,
    ) -> Result<(SecretShare, PublicShare), fair::FairError> {
        let me = self.me.as_ref().expect("seated");
        let ctx = self.ctx(hand, idx, me.seat);
        let mut rng = me.rng(&self.table, "keys", &[hand, u64::from(deck)]);
        fair::keygen(&mut rng, &ctx)
    }

    // ---- the deck prepared ahead (PROTOCOL.md §5.9) -----------------------------------------
}

/// The derivation parameters of everything a seat keeps for `owner`'s whisper of roll `roll`.
fn whisper_params(owner: Seat, roll: u32) -> [u64; 2] {
    [u64::from(owner), u64::from(roll)]
}

/// The proof context hand number of deck `j` of the batch whose setup is step `setup_step`.
fn deck_hand(setup_step: u32, j: usize) -> u64 {
    (u64::from(setup_step) << 8) | j as u64
}

fn card_of(spec: &DeckSpec, index: usize) -> Result<CardId, ChanceError> {
    spec.card_at(index)
        .ok_or_else(|| ChanceError::Protocol(format!("card index {index} is outside the deck")))
}

fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Setup => "the setup",
        Stage::Shuffle(_) => "a shuffle",
        Stage::Reveal => "the reveals",
        Stage::Mailbox => "the mailbox keys of a whisper",
        Stage::Letter => "the letters of a whisper",
        Stage::Unseal => "the opening of a whisper",
        Stage::Ready => "nothing",
    }
}

#[cfg(test)]
mod tests;
