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
use nostr_sdk::prelude::{nip44, Keys, PublicKey, SecretKey};
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
}

/// A part of the deck prepared ahead, checked against the state its event's step opened in and
/// applied when that step closes (so every part of one step is judged in the same state).
#[derive(Clone)]
pub enum AheadPart {
    Keys(Seat, VerifiedShare),
    Shuffle(Seat, VerifiedDeck, String),
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
    /// Own shuffles proved, and how many of them by a speculative copy (for tests and reports).
    made: AtomicU64,
    made_ahead: AtomicU64,
}

/// This seat's shuffle of one input, as published.
#[derive(Clone)]
pub struct OwnShuffle {
    deck: VerifiedDeck,
    cards: String,
    proof: String,
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
            stats: ChanceStats::default(),
        }
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
    /// made now otherwise, and kept by its input either way.
    fn own_shuffle(
        &self,
        secret: &SecretShare,
        ctx: &Context,
        joint: &JointKey,
        size: usize,
        prev: Option<&VerifiedDeck>,
    ) -> Result<OwnShuffle, ChanceError> {
        let key = own_key(ctx, joint, size, prev);
        let slot = {
            let mut own = self.cache.own.lock().expect("cache");
            if own.len() >= OWN_KEPT && !own.contains_key(&key) {
                own.clear();
            }
            own.entry(key).or_default().clone()
        };
        slot.get_or_init(|| {
            self.cache.made.fetch_add(1, Ordering::Relaxed);
            if self.speculative {
                self.cache.made_ahead.fetch_add(1, Ordering::Relaxed);
            }
            fair::shuffle_verified(secret, ctx, joint, size, prev)
                .map(|(deck, proof)| OwnShuffle {
                    cards: deck.deck().to_base64(),
                    proof: proof.to_base64(),
                    deck,
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
                ChanceRequest::Deal { deck, .. }
                | ChanceRequest::DealSealed { deck, .. }
                | ChanceRequest::Reveal { deck, .. } => {
                    if !new_decks.iter().any(|(d, _)| d == deck) {
                        let d = self.decks.get(deck).ok_or_else(|| {
                            ChanceError::Protocol(format!("deck {deck} was never shuffled"))
                        })?;
                        if d.dead {
                            return Err(ChanceError::Protocol(format!(
                                "deck {deck} cannot be dealt from: a player who held its key left"
                            )));
                        }
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

    fn start_ahead(&mut self, spec: DeckSpec, parts: Vec<Seat>) {
        let m = self.spares_made;
        self.spares_made += 1;
        self.ahead = Some(AheadDeck {
            id: SPARE_BASE + m,
            deck: Deck::fresh(spec, ahead_hand(m), parts),
            shares: BTreeMap::new(),
            order: Vec::new(),
        });
    }

    /// The rules of PROTOCOL.md §5.9 for a batch that asks for `requested` new decks with
    /// `parts`: drops the prepared decks no batch with these participants can use, moves a
    /// finished one under the id of every requested deck it serves, and lets the batch finish
    /// the deck being prepared when its keys are in (no setup). Returns the requested decks
    /// left to the batch and, when it finishes the prepared deck, who shuffled it already.
    fn serve_from_spares(
        &mut self,
        requested: Vec<(DeckId, DeckSpec)>,
        parts: &[Seat],
        allowed: bool,
        dice_setup: bool,
    ) -> (Vec<(DeckId, DeckSpec)>, Option<Vec<Seat>>) {
        // A spare is kept only while it can still serve: every key holder still here and the
        // same participants as this batch.
        let spare_ids: Vec<DeckId> = self.decks.range(SPARE_BASE..).map(|(k, _)| *k).collect();
        for id in spare_ids {
            let d = &self.decks[&id];
            if !allowed || d.dead || d.parts != parts || d.shuffles != d.parts.len() {
                self.decks.remove(&id);
            }
        }
        if self
            .ahead
            .as_ref()
            .is_some_and(|a| !allowed || a.deck.parts != parts)
        {
            self.ahead = None;
        }
        if !allowed {
            return (requested, None);
        }
        let current = self
            .current
            .filter(|e| self.epochs[e].parts.as_slice() == parts);
        let mut left = Vec::new();
        for (deck, spec) in requested {
            let spare = self
                .decks
                .range(SPARE_BASE..)
                .find(|(_, d)| d.spec == spec)
                .map(|(k, _)| *k);
            match spare {
                Some(k) => {
                    let mut d = self.decks.remove(&k).expect("held spare");
                    d.epoch = d.epoch.or(current);
                    self.decks.insert(deck, d);
                    self.stats.spares_used += 1;
                }
                None => left.push((deck, spec)),
            }
        }
        // The deck being prepared, keyed but not shuffled by everyone yet: when it is the one
        // deck left and the batch needs no setup for its dice, the batch goes on with the
        // shuffles it lacks instead of keying a new deck.
        let Some(a) = self.ahead.take() else {
            return (left, None);
        };
        let finish = left.len() == 1
            && !dice_setup
            && a.deck.joint.is_some()
            && a.deck.spec == left[0].1
            && current.is_some();
        if !finish {
            // Not ready: it is dropped and the batch keys its own deck.
            return (left, None);
        }
        let mut d = a.deck;
        d.epoch = current;
        self.decks.insert(left[0].0, d);
        self.stats.spares_used += 1;
        (left, Some(a.order))
    }

    /// Allocates dice slots and works out who owes what (after the batch's setup, if any).
    fn plan(&mut self, b: &mut Batch) -> Result<(), ChanceError> {
        let epoch_no = self.current;
        b.slots = vec![None; b.requests.len()];
        b.owed = b.parts.iter().map(|s| (*s, Owed::default())).collect();
        let mut next = epoch_no.map(|e| self.epochs[&e].next_slot).unwrap_or(0);
        for (i, r) in b.requests.iter().enumerate() {
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

    /// What the deck prepared ahead expects from `seat` on an event of a step whose eligible
    /// seats — those the step waits for, including those already in — are `eligible`: its key
    /// share until every share is in; then a shuffle from the first participant in ascending
    /// order among `eligible` that has not shuffled it yet (one per step: each shuffle builds on
    /// the one before).
    fn ahead_due(&self, seat: Seat, eligible: &[Seat]) -> Option<bool> {
        let a = self.ahead.as_ref()?;
        a.deck.idx(seat)?;
        if a.deck.joint.is_none() {
            return (!a.shares.contains_key(&seat)).then_some(true);
        }
        let next = a
            .deck
            .parts
            .iter()
            .find(|p| eligible.contains(p) && !a.order.contains(p))?;
        (*next == seat).then_some(false)
    }

    /// Whether the table is preparing a deck ahead (for reports and tests).
    pub fn preparing(&self) -> Option<(usize, usize)> {
        self.ahead.as_ref().map(|a| (a.shares.len(), a.order.len()))
    }

    /// This seat's part of the deck prepared ahead, when one is due on its event of a step
    /// whose eligible seats are `eligible`.
    pub fn produce_ahead(
        &self,
        eligible: &[Seat],
    ) -> Result<Option<crate::wire::log::Ahead>, ChanceError> {
        use crate::wire::log::Ahead;
        let Some(me) = &self.me else {
            return Ok(None);
        };
        let Some(keys) = self.ahead_due(me.seat, eligible) else {
            return Ok(None);
        };
        let a = self.ahead.as_ref().expect("due");
        let d = &a.deck;
        let idx = d.idx(me.seat).expect("a participant");
        if keys {
            let (_, public) = self
                .my_keys(d.fair_hand, a.id, idx)
                .map_err(|e| ChanceError::Protocol(format!("our own step: {e}")))?;
            return Ok(Some(Ahead::Keys(public.to_base64())));
        }
        // Kept when the joint key was formed (`commit_ahead`).
        let secret = d.my_secret.as_ref().ok_or_else(|| {
            ChanceError::Protocol("no key share of our own for the next deck".into())
        })?;
        let k = a.order.len();
        let ctx = self
            .ctx(d.fair_hand, idx, me.seat)
            .with_step(FairStep::Shuffle { index: k as u16 });
        let joint = d.joint.as_ref().expect("keys in");
        let own = self.own_shuffle(secret, &ctx, joint, d.size, d.deck.as_ref().map(|(v, _)| v))?;
        Ok(Some(Ahead::Shuffle {
            cards: own.cards,
            proof: own.proof,
        }))
    }

    /// Checks `seat`'s part of the deck prepared ahead on its event `id`, in the state the
    /// event's step opened in; nothing changes until [`Chance::commit_ahead`].
    pub fn check_ahead(
        &self,
        seat: Seat,
        id: &str,
        part: &crate::wire::log::Ahead,
        eligible: &[Seat],
    ) -> Result<AheadPart, ChanceError> {
        use crate::wire::log::Ahead;
        let due = self.ahead_due(seat, eligible);
        let a = self.ahead.as_ref();
        match (due, a, part) {
            (Some(true), Some(a), Ahead::Keys(text)) => {
                let idx = a.deck.idx(seat).expect("a participant");
                let ctx = self.ctx(a.deck.fair_hand, idx, seat);
                let share = PublicShare::from_base64(text)
                    .and_then(|s| fair::verify_public_share(&ctx, &s))
                    .map_err(|e| bad(seat, format!("key share of the next deck: {e}")))?;
                Ok(AheadPart::Keys(seat, share))
            }
            (Some(false), Some(a), Ahead::Shuffle { cards, proof }) => {
                let k = a.order.len();
                let (verified, _) = self.verify_shuffle_of(
                    &a.deck,
                    a.id,
                    seat,
                    k,
                    id,
                    (cards, proof),
                    "the next deck",
                )?;
                Ok(AheadPart::Shuffle(seat, verified, id.to_string()))
            }
            (_, _, part) => Err(bad(
                seat,
                format!(
                    "a {} for the next deck that the table did not expect from it here",
                    match part {
                        Ahead::Keys(_) => "key share",
                        Ahead::Shuffle { .. } => "shuffle",
                    }
                ),
            )),
        }
    }

    /// Verifies `seat`'s shuffle (`cards`, `proof` in base64) as the `k`-th of deck `d` (id
    /// `deck`), carried by event `id`, on top of the deck as it stands; through the cache, so a
    /// re-derivation does not prove it again. Returns the deck and whether it was verified now
    /// (not cached). Errors name the deck as `what`.
    #[allow(clippy::too_many_arguments)]
    fn verify_shuffle_of(
        &self,
        d: &Deck,
        deck: DeckId,
        seat: Seat,
        k: usize,
        id: &str,
        (cards, proof): (&str, &str),
        what: &str,
    ) -> Result<(VerifiedDeck, bool), ChanceError> {
        let joint = d.joint.as_ref().expect("keys in");
        let idx = d
            .idx(seat)
            .ok_or_else(|| bad(seat, "not a participant of this deck"))?;
        let prev = d.deck.as_ref().map(|(v, _)| v);
        let key = (
            sha(&[id.as_bytes()]),
            deck,
            joint.digest(),
            prev.map_or([0u8; 32], |v| v.id),
        );
        if let Some(v) = self
            .cache
            .verified
            .lock()
            .expect("cache")
            .get(&key)
            .cloned()
        {
            return Ok((v, false));
        }
        let ctx = self
            .ctx(d.fair_hand, idx, seat)
            .with_step(FairStep::Shuffle { index: k as u16 });
        // Our own event, exactly as we made it from this input: nothing to check.
        if self.my_seat() == Some(seat) {
            let own_slot = self
                .cache
                .own
                .lock()
                .expect("cache")
                .get(&own_key(&ctx, joint, d.size, prev))
                .cloned();
            if let Some(Ok(own)) = own_slot.as_deref().and_then(OnceLock::get) {
                if own.cards == cards && own.proof == proof {
                    return Ok((own.deck.clone(), false));
                }
            }
        }
        let fail = |e: fair::FairError| bad(seat, format!("{what}: {e}"));
        let cards = fair::from_base64("deck", cards).map_err(fail)?;
        if self.speculative {
            // Taken on trust, and not remembered as verified (see `speculative`).
            let v =
                fair::unchecked_shuffle_bytes(&ctx, joint, d.size, prev, &cards).map_err(fail)?;
            return Ok((v, false));
        }
        let proof = fair::from_base64("proof", proof).map_err(fail)?;
        let v =
            fair::verify_shuffle_bytes(&ctx, joint, d.size, prev, &cards, &proof).map_err(fail)?;
        self.cache
            .verified
            .lock()
            .expect("cache")
            .insert(key, v.clone());
        Ok((v, true))
    }

    /// Applies the parts of the deck prepared ahead that a closed step carried. Once every
    /// share is in the deck has its joint key; once everyone shuffled it, it is a spare that
    /// the next batch with the same participants takes.
    pub fn commit_ahead(&mut self, parts: Vec<AheadPart>) {
        let Some(a) = self.ahead.as_mut() else {
            return;
        };
        for part in parts {
            match part {
                AheadPart::Keys(seat, share) => {
                    a.shares.insert(seat, share);
                }
                AheadPart::Shuffle(seat, v, id) => {
                    self.stats.shuffles_verified += 1;
                    a.order.push(seat);
                    a.deck.deck = Some((v, id));
                    a.deck.shuffles = a.order.len();
                }
            }
        }
        if a.deck.joint.is_none() && a.shares.len() == a.deck.parts.len() {
            let shares: Vec<VerifiedShare> =
                a.deck.parts.iter().map(|p| a.shares[p].clone()).collect();
            let Ok(joint) = JointKey::from_seats(&shares) else {
                // A repeated key (someone copied another's share): nobody is blamed here, the
                // deck is not prepared and the next hand keys its own, where a bad key set is.
                self.ahead = None;
                return;
            };
            a.deck.shares = shares;
            a.deck.joint = Some(joint);
            // Our own key share, kept for the shuffle and the tokens.
            let (hand, id) = (a.deck.fair_hand, a.id);
            let idx = self.me.as_ref().and_then(|m| a.deck.idx(m.seat));
            let secret = idx
                .and_then(|idx| self.my_keys(hand, id, idx).ok())
                .map(|(secret, _)| Arc::new(secret));
            self.ahead.as_mut().expect("ahead").deck.my_secret = secret;
        }
        if self
            .ahead
            .as_ref()
            .is_some_and(|a| a.deck.joint.is_some() && a.order.len() == a.deck.parts.len())
        {
            let a = self.ahead.take().expect("ahead");
            self.decks.insert(a.id, a.deck);
        }
    }

    // ---- producing this seat's contributions -----------------------------------------------

    /// This seat's event for the current stage, if it owes one.
    pub fn produce(&self, setup_step: u32) -> Result<Option<Body>, ChanceError> {
        let (Some(b), Some(me)) = (&self.batch, &self.me) else {
            return Ok(None);
        };
        let seat = me.seat;
        let Some(idx) = b.parts.iter().position(|s| *s == seat) else {
            return Ok(None);
        };
        let local = |e: fair::FairError| ChanceError::Protocol(format!("our own step: {e}"));
        // A speculative copy only prepares shuffles.
        if self.speculative && !matches!(b.stage, Stage::Shuffle(_)) {
            return Ok(None);
        }
        match b.stage {
            Stage::Setup => {
                let mut shares = Vec::new();
                for (j, (deck, _)) in b.keyed().enumerate() {
                    let (_, public) = self
                        .my_keys(deck_hand(setup_step, j), *deck, idx)
                        .map_err(local)?;
                    shares.push(public.to_base64());
                }
                let (dice, boxk) = self.my_epoch_secrets(setup_step, idx)?;
                Ok(Some(Body::Setup {
                    shares,
                    dice: hex::encode(dice.commitment().to_bytes()),
                    box_key: Keys::new(boxk.clone()).public_key().to_hex(),
                    back: Vec::new(),
                }))
            }
            Stage::Shuffle(k) if b.order[k] == seat => {
                let mut decks = Vec::new();
                for (deck_id, _) in b.keyed() {
                    let d = &self.decks[deck_id];
                    let secret = d.my_secret.as_ref().ok_or_else(|| {
                        ChanceError::Protocol("no key share of our own for this deck".into())
                    })?;
                    let ctx = self
                        .ctx(d.fair_hand, idx, seat)
                        .with_step(FairStep::Shuffle { index: k as u16 });
                    let joint = d.joint.as_ref().expect("setup done");
                    let own = self.own_shuffle(
                        secret,
                        &ctx,
                        joint,
                        d.size,
                        d.deck.as_ref().map(|(v, _)| v),
                    )?;
                    decks.push(DeckShuffle {
                        deck: *deck_id,
                        cards: own.cards,
                        proof: own.proof,
                    });
                }
                let dice = self.my_dice_reveals(b)?;
                Ok(Some(Body::Shuffle { decks, dice }))
            }
            Stage::Reveal => {
                let owed = b.owed.get(&seat).cloned().unwrap_or_default();
                if owed.is_empty() {
                    return Ok(None);
                }
                let mut tokens = Vec::new();
                for (deck, position, recipient) in &owed.tokens {
                    let d = &self.decks[deck];
                    let t = self.my_token(d, *deck, *position, *recipient)?;
                    tokens.push(TokenMsg {
                        deck: *deck,
                        position: *position,
                        token: t.to_base64(),
                    });
                }
                let mut sealed = Vec::new();
                for (deck, position, to) in &owed.sealed {
                    let d = &self.decks[deck];
                    let ridx = d.idx(*to).expect("a recipient holds a key share") as u16;
                    let t = self.my_token(d, *deck, *position, Some(ridx))?;
                    let epoch = self.epoch_of_deck(d)?;
                    let boxk = epoch
                        .my_box
                        .as_ref()
                        .ok_or_else(|| ChanceError::Protocol("no box key".into()))?;
                    let to_key = epoch.boxes[epoch.idx(*to).expect("in epoch")];
                    let mut rng = me.rng(
                        &self.table,
                        "seal-token",
                        &[u64::from(*deck), u64::from(*position), u64::from(*to)],
                    );
                    let text = nip44::encrypt_with_rng(
                        &mut rng,
                        boxk,
                        &to_key,
                        t.to_bytes(),
                        nip44::Version::V2,
                    )
                    .map_err(|e| ChanceError::Protocol(format!("sealing a token: {e}")))?;
                    sealed.push(SealedToken {
                        deck: *deck,
                        position: *position,
                        to: *to,
                        sealed: text,
                    });
                }
                let mut shown = Vec::new();
                for (deck, position) in &owed.shown {
                    shown.push(self.my_showing(*deck, *position)?);
                }
                let dice = self.my_dice_reveals(b)?;
                Ok(Some(Body::Reveal {
                    tokens,
                    sealed,
                    dice,
                    shown,
                }))
            }
            Stage::Mailbox => {
                let owed = b
                    .owed
                    .get(&seat)
                    .map(|o| o.mailbox.clone())
                    .unwrap_or_default();
                if owed.is_empty() || b.got.contains(&seat) {
                    return Ok(None);
                }
                let mut keys = Vec::new();
                for id in owed {
                    let w = b.whispers.iter().find(|w| w.id() == id).expect("planned");
                    keys.push(self.my_mailbox(w)?.to_hex());
                }
                Ok(Some(Body::Mailbox { keys }))
            }
            Stage::Letter => {
                let owed = b
                    .owed
                    .get(&seat)
                    .map(|o| o.letters.clone())
                    .unwrap_or_default();
                if owed.is_empty() || b.got.contains(&seat) {
                    return Ok(None);
                }
                let mut letters = Vec::new();
                for id in owed {
                    let w = b.whispers.iter().find(|w| w.id() == id).expect("planned");
                    letters.push(self.my_letters(w)?);
                }
                Ok(Some(Body::Letter { letters }))
            }
            Stage::Unseal => {
                let owed = b
                    .owed
                    .get(&seat)
                    .map(|o| o.unseal.clone())
                    .unwrap_or_default();
                if owed.is_empty() || b.got.contains(&seat) {
                    return Ok(None);
                }
                let secrets = owed
                    .into_iter()
                    .map(|(owner, roll)| {
                        let purpose = if owner == seat { "letter" } else { "decoy" };
                        hex::encode(*me.derive(&self.table, purpose, &whisper_params(owner, roll)))
                    })
                    .collect();
                Ok(Some(Body::Unseal { secrets }))
            }
            _ => Ok(None),
        }
    }

    // ---- whispers (PROTOCOL.md §5.11) ------------------------------------------------------

    /// This seat's mailbox key for whisper `w`: a key of its own when it holds the whispered
    /// card, else its decoy.
    fn my_mailbox(&self, w: &Whisper) -> Result<PublicKey, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let local = |e: String| ChanceError::Protocol(format!("our mailbox: {e}"));
        let position = w
            .cands
            .iter()
            .find(|(_, s)| *s == me.seat)
            .map(|(p, _)| *p)
            .ok_or_else(|| local("not a candidate".into()))?;
        let params = whisper_params(w.owner, w.roll);
        if self.open_mine(w.deck, position)? == w.card {
            let secret =
                whisper::secret_key(&me.derive(&self.table, "mailbox", &params)).map_err(local)?;
            Ok(whisper::public_key(&secret))
        } else {
            let seed = me.derive(&self.table, "decoy", &params);
            whisper::decoy_key(&self.table, w.owner, w.roll, me.seat, &seed).map_err(local)
        }
    }

    /// This seat's letters for its whisper `w`: its die of the roll (value and Merkle path),
    /// sealed to every candidate's mailbox under its one-time letter key.
    fn my_letters(&self, w: &Whisper) -> Result<LetterMsg, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let local = |e: String| ChanceError::Protocol(format!("our letters: {e}"));
        let pr = self.private_rolls[&(w.owner, w.roll)];
        let die = self.epochs[&pr.epoch]
            .my_dice
            .as_ref()
            .ok_or_else(|| local("no dice secret of our own".into()))?
            .reveal(pr.slot)
            .map_err(|e| local(e.to_string()))?
            .to_bytes();
        let params = whisper_params(w.owner, w.roll);
        let secret =
            whisper::secret_key(&me.derive(&self.table, "letter", &params)).map_err(local)?;
        let mut sealed = Vec::new();
        for (i, k) in w.keys.iter().enumerate() {
            let k = k.ok_or_else(|| local("a mailbox key is missing".into()))?;
            let mut rng = me.rng(
                &self.table,
                "letter-nonce",
                &[u64::from(w.owner), u64::from(w.roll), i as u64],
            );
            sealed.push(whisper::seal(&mut rng, &secret, &k, &die).map_err(local)?);
        }
        Ok(LetterMsg {
            key: whisper::public_key(&secret).to_hex(),
            sealed,
        })
    }

    /// `owner`'s die for its private roll `pr`, read from a letter's bytes and checked against
    /// the dice commitment of its epoch.
    fn owner_die(
        &self,
        owner: Seat,
        pr: PrivateRoll,
        bytes: &[u8],
    ) -> Result<VerifiedValue, String> {
        let ep = &self.epochs[&pr.epoch];
        let idx = ep
            .idx(owner)
            .ok_or("the whisperer is not in the roll's epoch")?;
        let commit = &ep.dice[idx];
        let reveal = DiceReveal::from_bytes(bytes, commit.depth).map_err(|e| e.to_string())?;
        if reveal.slot != pr.slot {
            return Err(format!(
                "it holds the die of slot {}, not slot {}",
                reveal.slot, pr.slot
            ));
        }
        let ctx = self
            .ctx(ep.dice_hand(), idx, owner)
            .with_step(FairStep::Dice);
        verify_reveal(&ctx, commit, &reveal).map_err(|e| e.to_string())
    }

    /// The dice of `owner`'s private roll `pr` from every participant's value, `owner`'s
    /// included (`own`).
    fn dice_with(
        &self,
        owner: Seat,
        pr: PrivateRoll,
        own: VerifiedValue,
    ) -> Result<Vec<u8>, String> {
        let s = Slot {
            epoch: pr.epoch,
            slot: pr.slot,
        };
        let roll = self.roll(s, Some(owner), pr.sides, pr.count);
        let mut values = self
            .values
            .get(&(s.epoch, s.slot))
            .cloned()
            .unwrap_or_default();
        values.retain(|v| v.seat() != own.seat());
        values.push(own);
        open_private_roll(&roll, &values).map_err(|e| e.to_string())
    }

    /// What this client learns from whisper `w`: the dice when it whispered them, or when it
    /// holds the card and its letter opens to the whisperer's committed die. A letter that does
    /// not open gives nothing here (its holder cannot complain without showing who it is); the
    /// opening catches the whisperer.
    fn whispered_to_me(&self, w: &Whisper) -> Option<Vec<u8>> {
        let me = self.me.as_ref()?;
        let pr = *self.private_rolls.get(&(w.owner, w.roll))?;
        if me.seat == w.owner {
            let s = Slot {
                epoch: pr.epoch,
                slot: pr.slot,
            };
            let roll = self.roll(s, Some(w.owner), pr.sides, pr.count);
            let others = self
                .values
                .get(&(s.epoch, s.slot))
                .cloned()
                .unwrap_or_default();
            let ep = &self.epochs[&pr.epoch];
            return private_roll(&roll, ep.my_dice.as_ref()?, &others).ok();
        }
        let i = w.cands.iter().position(|(_, s)| *s == me.seat)?;
        if self.open_mine(w.deck, w.cands[i].0).ok()? != w.card {
            return None;
        }
        let params = whisper_params(w.owner, w.roll);
        let secret = whisper::secret_key(&me.derive(&self.table, "mailbox", &params)).ok()?;
        let (key, letters) = w.letter.as_ref()?;
        let bytes = whisper::open(&secret, key, letters.get(i)?).ok()?;
        let own = self.owner_die(w.owner, pr, &bytes).ok()?;
        self.dice_with(w.owner, pr, own).ok()
    }

    /// This seat's dice secret and box key of the epoch opened at `setup_step`.
    fn my_epoch_secrets(
        &self,
        setup_step: u32,
        idx: usize,
    ) -> Result<(DiceSecret, SecretKey), ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let hand = (u64::from(setup_step) << 8) | 0xff;
        let ctx = self.ctx(hand, idx, me.seat).with_step(FairStep::Dice);
        let seed = me.derive(&self.table, "dice", &[hand]);
        let dice = DiceSecret::from_seed(&ctx, &seed, EPOCH_SLOTS)
            .map_err(|e| ChanceError::Protocol(format!("our dice: {e}")))?;
        let box_seed = me.derive(&self.table, "box", &[hand]);
        let boxk = SecretKey::from_slice(&*box_seed)
            .map_err(|e| ChanceError::Protocol(format!("our box key: {e}")))?;
        Ok((dice, boxk))
    }

    fn my_token(
        &self,
        d: &Deck,
        deck: DeckId,
        position: u16,
        recipient: Option<u16>,
    ) -> Result<RevealToken, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let idx = d.idx(me.seat).expect("a participant of the deck");
        let ctx = self
            .ctx(d.fair_hand, idx, me.seat)
            .with_step(FairStep::Reveal {
                position,
                recipient,
            });
        let mut rng = me.rng(
            &self.table,
            "token",
            &[
                d.fair_hand,
                u64::from(deck),
                u64::from(position),
                recipient.map_or(u64::MAX, u64::from),
            ],
        );
        fair::reveal_token(
            &mut rng,
            d.my_secret.as_ref().expect("own share"),
            &ctx,
            d.verified()?,
        )
        .map_err(|e| ChanceError::Protocol(format!("our token: {e}")))
    }

    /// Every key holder's token for a card this seat was dealt sealed, to show it to everyone
    /// (PROTOCOL.md §5.12): its own, made now, and the ones sealed to it, as they were sent.
    fn my_showing(&self, deck: DeckId, position: u16) -> Result<ShownCard, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let d = &self.decks[&deck];
        let my_idx = d
            .idx(me.seat)
            .ok_or_else(|| ChanceError::Protocol("we hold no key share of the deck".into()))?;
        let got = d.sealed_raw.get(&position).cloned().unwrap_or_default();
        let mut tokens = Vec::with_capacity(d.parts.len());
        for i in 0..d.parts.len() {
            if i == my_idx {
                let t = self.my_token(d, deck, position, Some(my_idx as u16))?;
                tokens.push(t.to_base64());
                continue;
            }
            let (_, bytes) = got
                .iter()
                .find(|(k, _)| usize::from(*k) == i)
                .ok_or_else(|| {
                    ChanceError::Protocol(format!(
                    "position {position} of deck {deck}: no token of key holder {i} was sealed \
                     to us"
                ))
                })?;
            tokens.push(fair::to_base64(bytes));
        }
        Ok(ShownCard {
            deck,
            position,
            tokens,
        })
    }

    /// Checks the cards `seat` shows by itself against what it owes (§5.12): the owed
    /// positions in order, one token per key holder, each verified under the context naming
    /// `seat` as its recipient.
    #[allow(clippy::type_complexity)]
    fn check_showings(
        &self,
        seat: Seat,
        shown: &[ShownCard],
        owed: &[(DeckId, u16)],
    ) -> Result<Vec<(DeckId, u16, Vec<VerifiedToken>)>, ChanceError> {
        let mut out = Vec::with_capacity(shown.len());
        for (c, (deck, position)) in shown.iter().zip(owed) {
            if c.deck != *deck || c.position != *position {
                return Err(bad(
                    seat,
                    format!(
                        "shows deck {} position {}, deck {deck} position {position} owed",
                        c.deck, c.position
                    ),
                ));
            }
            let d = &self.decks[deck];
            let ridx = d
                .idx(seat)
                .ok_or_else(|| bad(seat, "holds no share of the deck"))?;
            if c.tokens.len() != d.parts.len() {
                return Err(bad(
                    seat,
                    format!(
                        "shows position {position} with {} tokens; the deck has {} key holders",
                        c.tokens.len(),
                        d.parts.len()
                    ),
                ));
            }
            let deck_now = d.verified()?;
            let toks = c
                .tokens
                .iter()
                .map(|t| {
                    RevealToken::from_base64(t)
                        .map_err(|e| bad(seat, format!("a token of position {position}: {e}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let checks: Vec<TokenCheck<'_>> = toks
                .iter()
                .enumerate()
                .map(|(i, tok)| TokenCheck {
                    ctx: self
                        .ctx(d.fair_hand, i, d.parts[i])
                        .with_step(FairStep::Reveal {
                            position: *position,
                            recipient: Some(ridx as u16),
                        }),
                    share: &d.shares[i],
                    token: tok,
                })
                .collect();
            let mut verified = Vec::with_capacity(toks.len());
            for (i, r) in fair::verify_tokens_each(deck_now, &checks)
                .into_iter()
                .enumerate()
            {
                verified.push(r.map_err(|e| {
                    bad(
                        seat,
                        format!(
                            "the token of seat {} for position {position}, shown by its holder: {e}",
                            d.parts[i]
                        ),
                    )
                })?);
            }
            out.push((*deck, *position, verified));
        }
        Ok(out)
    }

    fn my_dice_reveals(&self, b: &Batch) -> Result<Vec<String>, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let owed = b.owed.get(&me.seat).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for (e, slot) in owed.dice {
            let ep = &self.epochs[&e];
            let secret = ep
                .my_dice
                .as_ref()
                .ok_or_else(|| ChanceError::Protocol("no dice secret of our own".into()))?;
            let r = secret
                .reveal(slot)
                .map_err(|e| ChanceError::Protocol(format!("our die: {e}")))?;
            out.push(r.to_base64());
        }
        Ok(out)
    }

    // ---- accepting contributions -----------------------------------------------------------

    /// Checks `seat`'s event for the current stage and keeps what it carries. Returns the new
    /// head for a sequential stage (the shuffle event's id, passed as `id`).
    pub fn accept(
        &mut self,
        seat: Seat,
        id: &str,
        body: &Body,
        setup_step: u32,
    ) -> Result<(), ChanceError> {
        let stage = self
            .batch
            .as_ref()
            .map(|b| b.stage)
            .ok_or_else(|| bad(seat, "no chance step is open"))?;
        match (stage, body) {
            (
                Stage::Setup,
                Body::Setup {
                    shares,
                    dice,
                    box_key,
                    back,
                },
            ) => {
                self.accept_setup(seat, shares, dice, box_key, setup_step)?;
                if let Some(b) = self.batch.as_mut() {
                    b.backs.insert(seat, back.iter().copied().collect());
                }
                Ok(())
            }
            (Stage::Shuffle(k), Body::Shuffle { decks, dice }) => {
                let b = self.batch.as_ref().expect("batch");
                if b.order[k] != seat {
                    return Err(bad(seat, "shuffled out of turn"));
                }
                self.accept_shuffle(seat, k, id, decks, dice)
            }
            (
                Stage::Reveal,
                Body::Reveal {
                    tokens,
                    sealed,
                    dice,
                    shown,
                },
            ) => self.accept_reveal(seat, tokens, sealed, dice, shown),
            (Stage::Mailbox, Body::Mailbox { keys }) => self.accept_mailbox(seat, keys),
            (Stage::Letter, Body::Letter { letters }) => self.accept_letters(seat, letters),
            (Stage::Unseal, Body::Unseal { secrets }) => self.accept_unseal(seat, secrets),
            (_, other) => Err(bad(
                seat,
                format!(
                    "a {} event where the table waits for {}",
                    other.name(),
                    stage_name(stage)
                ),
            )),
        }
    }

    fn accept_setup(
        &mut self,
        seat: Seat,
        shares: &[String],
        dice: &str,
        box_key: &str,
        setup_step: u32,
    ) -> Result<(), ChanceError> {
        let b = self.batch.as_ref().expect("batch");
        let idx = b
            .parts
            .iter()
            .position(|s| *s == seat)
            .ok_or_else(|| bad(seat, "not a participant of this setup"))?;
        if b.got.contains(&seat) {
            return Err(bad(seat, "a second setup"));
        }
        let keyed = b.keyed().count();
        if shares.len() != keyed {
            return Err(bad(
                seat,
                format!("{} key shares for {keyed} new decks", shares.len()),
            ));
        }
        let mut verified = Vec::new();
        for (j, text) in shares.iter().enumerate() {
            let ctx = self.ctx(deck_hand(setup_step, j), idx, seat);
            let share = PublicShare::from_base64(text)
                .and_then(|s| fair::verify_public_share(&ctx, &s))
                .map_err(|e| bad(seat, format!("key share: {e}")))?;
            verified.push(share);
        }
        let commit = hex::decode(dice)
            .ok()
            .and_then(|b| DiceCommitment::from_bytes(&b).ok())
            .ok_or_else(|| bad(seat, "malformed dice commitment"))?;
        if commit.slots() < EPOCH_SLOTS {
            return Err(bad(seat, "dice commitment has too few slots"));
        }
        let boxk = PublicKey::from_hex(box_key).map_err(|_| bad(seat, "malformed box key"))?;
        let b = self.batch.as_mut().expect("batch");
        b.setups.insert(seat, (verified, commit, boxk));
        b.got.insert(seat);
        if b.got.len() < b.parts.len() {
            return Ok(());
        }
        self.open_epoch(setup_step)
    }

    /// Every setup is in: the epoch and the batch's decks exist from now on.
    fn open_epoch(&mut self, setup_step: u32) -> Result<(), ChanceError> {
        let mut b = self.batch.take().expect("batch");
        let my_idx = self
            .my_seat()
            .and_then(|s| b.parts.iter().position(|x| *x == s));
        let mut epoch = Epoch {
            step: setup_step,
            parts: b.parts.clone(),
            dice: Vec::new(),
            boxes: Vec::new(),
            next_slot: 0,
            my_dice: None,
            my_box: None,
        };
        for s in &b.parts {
            let (_, c, k) = &b.setups[s];
            epoch.dice.push(*c);
            epoch.boxes.push(*k);
        }
        if let Some(idx) = my_idx {
            let (dice, boxk) = self.my_epoch_secrets(setup_step, idx)?;
            epoch.my_dice = Some(Arc::new(dice));
            epoch.my_box = Some(Arc::new(boxk));
        }
        for (j, (deck_id, spec)) in b.keyed().enumerate() {
            let hand = deck_hand(setup_step, j);
            let shares: Vec<VerifiedShare> =
                b.parts.iter().map(|s| b.setups[s].0[j].clone()).collect();
            let joint = JointKey::from_seats(&shares).map_err(|e| {
                // Every share verified on its own: a bad key set (a repeated key) is the
                // doing of whoever copied another's share; the later one is to blame.
                let last = *b.parts.last().expect("participants");
                bad(last, format!("key set rejected: {e}"))
            })?;
            let my_secret = match my_idx {
                Some(idx) => {
                    let (secret, _) = self
                        .my_keys(hand, *deck_id, idx)
                        .map_err(|e| ChanceError::Protocol(format!("our key share: {e}")))?;
                    Some(Arc::new(secret))
                }
                None => None,
            };
            self.decks.insert(
                *deck_id,
                Deck {
                    shares,
                    joint: Some(joint),
                    my_secret,
                    epoch: Some(setup_step),
                    ..Deck::fresh(spec.clone(), hand, b.parts.clone())
                },
            );
        }
        self.epochs.insert(setup_step, epoch);
        self.current = Some(setup_step);
        self.stats.epochs += 1;
        b.got.clear();
        b.setups.clear();
        self.plan(&mut b)?;
        b.stage = if b.keyed().next().is_none() {
            Stage::Reveal
        } else {
            Stage::Shuffle(0)
        };
        self.batch = Some(b);
        self.settle_empty_stage();
        Ok(())
    }

    fn accept_shuffle(
        &mut self,
        seat: Seat,
        k: usize,
        id: &str,
        decks: &[DeckShuffle],
        dice: &[String],
    ) -> Result<(), ChanceError> {
        let b = self.batch.as_ref().expect("batch");
        if decks.len() != b.keyed().count()
            || decks
                .iter()
                .zip(b.keyed())
                .any(|(d, (id, _))| d.deck != *id)
        {
            return Err(bad(
                seat,
                "the shuffle does not cover exactly the batch's new decks, in order",
            ));
        }
        let owed = b.owed.get(&seat).cloned().unwrap_or_default();
        let values = self.check_dice(seat, &owed.dice, dice)?;
        let mut results = Vec::new();
        for msg in decks {
            let d = &self.decks[&msg.deck];
            let (verified, fresh) = self.verify_shuffle_of(
                d,
                msg.deck,
                seat,
                k,
                id,
                (&msg.cards, &msg.proof),
                &format!("deck {}", msg.deck),
            )?;
            if fresh {
                self.stats.shuffles_verified += 1;
            }
            results.push((msg.deck, verified));
        }
        for (deck, v) in results {
            let d = self.decks.get_mut(&deck).expect("deck");
            d.deck = Some((v, id.to_string()));
            d.shuffles = k + 1;
        }
        self.store_values(values);
        let b = self.batch.as_mut().expect("batch");
        b.got.insert(seat);
        if k + 1 < b.parts.len() {
            b.stage = Stage::Shuffle(k + 1);
        } else {
            b.stage = Stage::Reveal;
            b.got.clear();
            // Dice went on the shuffles; only tokens are left.
            for o in b.owed.values_mut() {
                o.dice.clear();
            }
        }
        self.settle_empty_stage();
        Ok(())
    }

    /// Checks dice reveals against what `seat` owes: exactly those slots, in order, each
    /// opening its commitment.
    fn check_dice(
        &mut self,
        seat: Seat,
        owed: &[(u32, u32)],
        given: &[String],
    ) -> Result<Vec<(SlotKey, VerifiedValue)>, ChanceError> {
        if given.len() != owed.len() {
            return Err(bad(
                seat,
                format!("{} dice values, {} owed", given.len(), owed.len()),
            ));
        }
        let mut out = Vec::new();
        for ((e, slot), text) in owed.iter().zip(given) {
            let ep = &self.epochs[e];
            let idx = ep
                .idx(seat)
                .ok_or_else(|| bad(seat, "not in the dice epoch"))?;
            let commit = &ep.dice[idx];
            let reveal = DiceReveal::from_base64(text, commit.depth)
                .map_err(|err| bad(seat, format!("die: {err}")))?;
            if reveal.slot != *slot {
                return Err(bad(
                    seat,
                    format!("dice value for slot {}, slot {slot} owed", reveal.slot),
                ));
            }
            let ctx = self
                .ctx(ep.dice_hand(), idx, seat)
                .with_step(FairStep::Dice);
            let v = verify_reveal(&ctx, commit, &reveal)
                .map_err(|err| bad(seat, format!("die: {err}")))?;
            self.stats.dice_verified += 1;
            out.push(((*e, *slot), v));
        }
        Ok(out)
    }

    fn store_values(&mut self, values: Vec<(SlotKey, VerifiedValue)>) {
        for (k, v) in values {
            self.values.entry(k).or_default().push(v);
        }
    }

    fn accept_reveal(
        &mut self,
        seat: Seat,
        tokens: &[TokenMsg],
        sealed: &[SealedToken],
        dice: &[String],
        shown: &[ShownCard],
    ) -> Result<(), ChanceError> {
        let b = self.batch.as_ref().expect("batch");
        if b.got.contains(&seat) {
            return Err(bad(seat, "a second reveal"));
        }
        let owed = b
            .owed
            .get(&seat)
            .cloned()
            .filter(|o| !o.is_empty())
            .ok_or_else(|| bad(seat, "revealed though it owed nothing"))?;
        if tokens.len() != owed.tokens.len()
            || sealed.len() != owed.sealed.len()
            || shown.len() != owed.shown.len()
        {
            return Err(bad(
                seat,
                format!(
                    "{} tokens, {} sealed tokens and {} cards shown; {}, {} and {} owed",
                    tokens.len(),
                    sealed.len(),
                    shown.len(),
                    owed.tokens.len(),
                    owed.sealed.len(),
                    owed.shown.len()
                ),
            ));
        }
        let showings = self.check_showings(seat, shown, &owed.shown)?;
        // A token event may carry dozens of tokens (a showdown, a board); they are checked per
        // deck as one random linear combination (FAIR.md §9.5), and only a failing batch is
        // re-checked token by token to name the bad one.
        let mut parsed: BTreeMap<DeckId, Vec<(u16, Option<u16>, RevealToken)>> = BTreeMap::new();
        for (t, (deck, position, recipient)) in tokens.iter().zip(&owed.tokens) {
            if t.deck != *deck || t.position != *position {
                return Err(bad(
                    seat,
                    format!(
                        "a token for deck {} position {}, deck {deck} position {position} owed",
                        t.deck, t.position
                    ),
                ));
            }
            let tok = RevealToken::from_base64(&t.token)
                .map_err(|e| bad(seat, format!("token for position {position}: {e}")))?;
            parsed
                .entry(*deck)
                .or_default()
                .push((*position, *recipient, tok));
        }
        let mut plain = Vec::new();
        for (deck, toks) in &parsed {
            let d = &self.decks[deck];
            let idx = d
                .idx(seat)
                .ok_or_else(|| bad(seat, "holds no share of the deck"))?;
            let deck_now = d.verified()?;
            let checks: Vec<TokenCheck<'_>> = toks
                .iter()
                .map(|(position, recipient, tok)| TokenCheck {
                    ctx: self
                        .ctx(d.fair_hand, idx, seat)
                        .with_step(FairStep::Reveal {
                            position: *position,
                            recipient: *recipient,
                        }),
                    share: &d.shares[idx],
                    token: tok,
                })
                .collect();
            for (r, (position, _, _)) in fair::verify_tokens_each(deck_now, &checks)
                .into_iter()
                .zip(toks)
            {
                let v = r.map_err(|e| bad(seat, format!("token for position {position}: {e}")))?;
                plain.push((*deck, *position, v));
            }
        }
        let mut mine = Vec::new();
        for (t, (deck, position, to)) in sealed.iter().zip(&owed.sealed) {
            if t.deck != *deck || t.position != *position || t.to != *to {
                return Err(bad(seat, "sealed tokens out of order"));
            }
            // Only the recipient can read and check it (see PROTOCOL.md §5.5 on complaints).
            if self.my_seat() == Some(*to) {
                let d = &self.decks[deck];
                let idx = d
                    .idx(seat)
                    .ok_or_else(|| bad(seat, "holds no share of the deck"))?;
                let ridx = d.idx(*to).expect("recipient") as u16;
                let epoch = self.epoch_of_deck(d)?;
                let boxk = epoch.my_box.as_ref().expect("own box key");
                let from = epoch.boxes[epoch.idx(seat).expect("in epoch")];
                let bytes = nip44::decrypt_to_bytes(boxk, &from, &t.sealed)
                    .map_err(|e| bad(seat, format!("sealed token: {e}")))?;
                let ctx = self
                    .ctx(d.fair_hand, idx, seat)
                    .with_step(FairStep::Reveal {
                        position: *position,
                        recipient: Some(ridx),
                    });
                let deck_now = d.verified()?;
                let v = RevealToken::from_bytes(&bytes)
                    .and_then(|tok| fair::verify_token(&ctx, &d.shares[idx], deck_now, &tok))
                    .map_err(|e| bad(seat, format!("sealed token for position {position}: {e}")))?;
                mine.push((*deck, *position, v, (idx as u16, bytes)));
            }
        }
        let values = self.check_dice(seat, &owed.dice, dice)?;
        self.stats.tokens_verified += plain.len() as u64 + mine.len() as u64;
        for (deck, position, v) in plain {
            let d = self.decks.get_mut(&deck).expect("deck");
            d.tokens.entry(position).or_default().push(v);
        }
        for (deck, position, v, raw) in mine {
            let d = self.decks.get_mut(&deck).expect("deck");
            d.sealed_to_me.entry(position).or_default().push(v);
            d.sealed_raw.entry(position).or_default().push(raw);
        }
        for (deck, position, toks) in showings {
            let d = self.decks.get_mut(&deck).expect("deck");
            d.shown.insert(position, toks);
        }
        self.store_values(values);
        let b = self.batch.as_mut().expect("batch");
        b.got.insert(seat);
        let done = b
            .owed
            .iter()
            .all(|(s, o)| o.is_empty() || b.got.contains(s));
        if done {
            b.got.clear();
            b.stage = b.next_stage(Stage::Reveal);
        }
        Ok(())
    }

    /// What `seat` owes in the whisper stage under way, checked against what it sent: the
    /// number of items, and that it did not send twice.
    fn whisper_owed(
        &self,
        seat: Seat,
        sent: usize,
        pick: impl Fn(&Owed) -> &Vec<WhisperId>,
    ) -> Result<Vec<WhisperId>, ChanceError> {
        let b = self.batch.as_ref().expect("batch");
        if b.got.contains(&seat) {
            return Err(bad(
                seat,
                format!("a second event for {}", stage_name(b.stage)),
            ));
        }
        let owed = b
            .owed
            .get(&seat)
            .map(|o| pick(o).clone())
            .unwrap_or_default();
        if owed.is_empty() {
            return Err(bad(
                seat,
                format!("sent {} though it owed nothing", stage_name(b.stage)),
            ));
        }
        if sent != owed.len() {
            return Err(bad(seat, format!("{sent} items for {} owed", owed.len())));
        }
        Ok(owed)
    }

    /// `seat` is in for the whisper stage under way: the next stage opens once all are.
    fn whisper_got(&mut self, seat: Seat) {
        let b = self.batch.as_mut().expect("batch");
        b.got.insert(seat);
        let stage = b.stage;
        if b.owed
            .iter()
            .all(|(s, o)| !o.owes(stage) || b.got.contains(s))
        {
            b.got.clear();
            b.stage = b.next_stage(stage);
        }
    }

    fn accept_mailbox(&mut self, seat: Seat, keys: &[String]) -> Result<(), ChanceError> {
        let owed = self.whisper_owed(seat, keys.len(), |o| &o.mailbox)?;
        let parsed: Vec<PublicKey> = keys
            .iter()
            .map(|k| whisper::parse_key(k).map_err(|e| bad(seat, format!("mailbox key: {e}"))))
            .collect::<Result<_, _>>()?;
        let b = self.batch.as_mut().expect("batch");
        for (id, k) in owed.into_iter().zip(parsed) {
            let w = b.whisper_mut(id).expect("planned");
            let i = w
                .cands
                .iter()
                .position(|(_, s)| *s == seat)
                .expect("a candidate");
            w.keys[i] = Some(k);
        }
        self.whisper_got(seat);
        Ok(())
    }

    /// Only the form of the letters can be checked now: a valid letter key, one NIP-44 v2
    /// payload per candidate. What they hold is checked by the holder as it opens its own, and
    /// by everyone at the opening.
    fn accept_letters(&mut self, seat: Seat, letters: &[LetterMsg]) -> Result<(), ChanceError> {
        let owed = self.whisper_owed(seat, letters.len(), |o| &o.letters)?;
        let mut checked = Vec::new();
        for (id, l) in owed.iter().zip(letters) {
            let key =
                whisper::parse_key(&l.key).map_err(|e| bad(seat, format!("letter key: {e}")))?;
            let b = self.batch.as_ref().expect("batch");
            let w = b.whispers.iter().find(|w| w.id() == *id).expect("planned");
            if l.sealed.len() != w.cands.len() {
                return Err(bad(
                    seat,
                    format!("{} letters for {} mailboxes", l.sealed.len(), w.cands.len()),
                ));
            }
            for x in &l.sealed {
                whisper::check_form(x).map_err(|e| bad(seat, e))?;
            }
            checked.push((*id, key, l.sealed.clone()));
        }
        let b = self.batch.as_mut().expect("batch");
        for (id, key, sealed) in checked {
            b.whisper_mut(id).expect("planned").letter = Some((key, sealed));
        }
        self.whisper_got(seat);
        Ok(())
    }

    /// The openings: the whisperer's letter secret must be its letter key's and open every
    /// letter to its committed die for the roll; a decoy's seed must make its mailbox key.
    /// Either failing names the seat, which cannot repair it (a second event is a fork) and is
    /// removed when the others vote it out.
    fn accept_unseal(&mut self, seat: Seat, secrets: &[String]) -> Result<(), ChanceError> {
        let owed = self.whisper_owed(seat, secrets.len(), |o| &o.unseal)?;
        let mut opened = Vec::new();
        for (id, text) in owed.iter().zip(secrets) {
            let bytes: [u8; 32] = hex::decode(text)
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| bad(seat, "an opening is not 32 bytes of hex"))?;
            let w = &self.whispers[id];
            let (owner, roll) = *id;
            if seat == owner {
                let (key, letters) = w.letter.as_ref().expect("a sent whisper");
                let secret = whisper::secret_key(&bytes).map_err(|e| bad(seat, e))?;
                if whisper::public_key(&secret) != *key {
                    return Err(bad(seat, "the letter secret is not the letter key's"));
                }
                let pr = self.private_rolls[id];
                let mut die = None;
                for (i, (_, to)) in w.cands.iter().enumerate() {
                    let mailbox = w.keys[i].expect("a sent whisper has every key");
                    let v = whisper::open(&secret, &mailbox, &letters[i])
                        .and_then(|b| self.owner_die(owner, pr, &b))
                        .map_err(|e| {
                            bad(
                                seat,
                                format!(
                                    "the letter to seat {to}'s mailbox does not hold seat \
                                     {owner}'s die of roll {roll}: {e}"
                                ),
                            )
                        })?;
                    die = Some(v);
                }
                opened.push((*id, die));
            } else {
                let i = w
                    .cands
                    .iter()
                    .position(|(_, s)| *s == seat)
                    .expect("a candidate");
                let k = whisper::decoy_key(&self.table, owner, roll, seat, &bytes)
                    .map_err(|e| bad(seat, e))?;
                if Some(k) != w.keys[i] {
                    return Err(bad(
                        seat,
                        format!(
                            "its seed does not make its mailbox key for seat {owner}'s whisper: \
                             the key was not a decoy"
                        ),
                    ));
                }
            }
        }
        for (id, die) in opened {
            if let Some(w) = self.whispers.get_mut(&id) {
                w.opened = die;
            }
        }
        self.whisper_got(seat);
        Ok(())
    }

    fn epoch_of_deck(&self, d: &Deck) -> Result<&Epoch, ChanceError> {
        d.epoch
            .and_then(|e| self.epochs.get(&e))
            .ok_or_else(|| ChanceError::Protocol("the deck's epoch is gone".into()))
    }

    // ---- outcomes --------------------------------------------------------------------------

    /// The batch's outcomes once [`Stage::Ready`], as this client may know them; the batch ends.
    pub fn finish(&mut self) -> Result<Vec<ChanceOutcome>, ChanceError> {
        let b = self
            .batch
            .take()
            .ok_or_else(|| ChanceError::Protocol("no chance batch to finish".into()))?;
        if b.stage != Stage::Ready {
            let stage = b.stage;
            self.batch = Some(b);
            return Err(ChanceError::Protocol(format!(
                "the batch is still at {}",
                stage_name(stage)
            )));
        }
        let me = self.my_seat();
        let mut out = Vec::with_capacity(b.requests.len());
        for (i, r) in b.requests.iter().enumerate() {
            out.push(match r {
                ChanceRequest::Shuffle { deck, .. } => ChanceOutcome::Shuffled { deck: *deck },
                ChanceRequest::Deal { deck, position, to } => {
                    let d = self.decks.get_mut(deck).expect("deck");
                    d.holders.insert(*position, to.clone());
                    let card = match me {
                        Some(m) if to.contains(&m) => Some(self.open_mine(*deck, *position)?),
                        _ => None,
                    };
                    ChanceOutcome::Dealt {
                        deck: *deck,
                        position: *position,
                        card,
                    }
                }
                ChanceRequest::DealSealed { deck, position, to } => {
                    let d = self.decks.get_mut(deck).expect("deck");
                    d.drawn.entry(*position).or_default().insert(*to);
                    let card = match me {
                        Some(m) if m == *to => Some(self.open_mine(*deck, *position)?),
                        _ => None,
                    };
                    ChanceOutcome::Dealt {
                        deck: *deck,
                        position: *position,
                        card,
                    }
                }
                ChanceRequest::Show { deck, position, .. } => {
                    let d = &self.decks[deck];
                    let joint = d.joint.as_ref().expect("keys");
                    let all = d.shown.get(position).cloned().unwrap_or_default();
                    let index = fair::open_card(joint, d.verified()?, *position, &all)
                        .map_err(|e| ChanceError::Protocol(format!("opening a shown card: {e}")))?;
                    let card = card_of(&d.spec, index)?;
                    if let Some(d) = self.decks.get_mut(deck) {
                        d.revealed.insert(*position, card);
                    }
                    ChanceOutcome::Revealed {
                        deck: *deck,
                        position: *position,
                        card,
                    }
                }
                ChanceRequest::Reveal { deck, position } => {
                    let d = &self.decks[deck];
                    let joint = d.joint.as_ref().expect("keys");
                    let all = d.tokens.get(position).cloned().unwrap_or_default();
                    let index = fair::open_card(joint, d.verified()?, *position, &all)
                        .map_err(|e| ChanceError::Protocol(format!("opening a card: {e}")))?;
                    let card = card_of(&d.spec, index)?;
                    if let Some(d) = self.decks.get_mut(deck) {
                        d.revealed.insert(*position, card);
                    }
                    ChanceOutcome::Revealed {
                        deck: *deck,
                        position: *position,
                        card,
                    }
                }
                ChanceRequest::Whisper { owner, roll, .. } => {
                    let w = b
                        .whispers
                        .iter()
                        .find(|w| w.id() == (*owner, *roll))
                        .expect("planned");
                    ChanceOutcome::Whispered {
                        owner: *owner,
                        roll: *roll,
                        values: self.whispered_to_me(w),
                        to: None,
                    }
                }
                ChanceRequest::OpenWhisper { owner, roll } => {
                    let id = (*owner, *roll);
                    let die = self.whispers[&id].opened.ok_or_else(|| {
                        ChanceError::Protocol("the whisper was not opened".into())
                    })?;
                    let pr = self.private_rolls[&id];
                    ChanceOutcome::WhisperOpened {
                        owner: *owner,
                        roll: *roll,
                        values: self.dice_with(*owner, pr, die).map_err(|e| {
                            ChanceError::Protocol(format!("opening a whisper: {e}"))
                        })?,
                    }
                }
                ChanceRequest::RollPublic { sides, count, .. } => {
                    let s = b.slots[i].expect("planned");
                    let roll = self.roll(s, None, *sides, *count);
                    let values = self
                        .values
                        .get(&(s.epoch, s.slot))
                        .cloned()
                        .unwrap_or_default();
                    ChanceOutcome::Rolled {
                        values: public_roll(&roll, &values)
                            .map_err(|e| ChanceError::Protocol(format!("a roll: {e}")))?,
                    }
                }
                ChanceRequest::RollPrivate {
                    owner,
                    sides,
                    count,
                } => {
                    let s = b.slots[i].expect("planned");
                    let n = self.rolls_made.entry(*owner).or_default();
                    self.private_rolls.insert(
                        (*owner, *n),
                        PrivateRoll {
                            epoch: s.epoch,
                            slot: s.slot,
                            sides: *sides,
                            count: *count,
                        },
                    );
                    *n += 1;
                    let values = if me == Some(*owner) {
                        let ep = &self.epochs[&s.epoch];
                        let roll = self.roll(s, Some(*owner), *sides, *count);
                        let others = self
                            .values
                            .get(&(s.epoch, s.slot))
                            .cloned()
                            .unwrap_or_default();
                        Some(
                            private_roll(&roll, ep.my_dice.as_ref().expect("own dice"), &others)
                                .map_err(|e| ChanceError::Protocol(format!("our roll: {e}")))?,
                        )
                    } else {
                        None
                    };
                    ChanceOutcome::RolledPrivate {
                        owner: *owner,
                        values,
                    }
                }
                ChanceRequest::OpenPrivate { owner, roll } => {
                    let pr = self.private_rolls[&(*owner, *roll)];
                    let s = Slot {
                        epoch: pr.epoch,
                        slot: pr.slot,
                    };
                    let r = self.roll(s, Some(*owner), pr.sides, pr.count);
                    let values = self
                        .values
                        .get(&(s.epoch, s.slot))
                        .cloned()
                        .unwrap_or_default();
                    ChanceOutcome::Opened {
                        owner: *owner,
                        roll: *roll,
                        values: open_private_roll(&r, &values)
                            .map_err(|e| ChanceError::Protocol(format!("opening dice: {e}")))?,
                    }
                }
            });
        }
        for w in b.whispers {
            self.whispers.insert(w.id(), w);
        }
        Ok(out)
    }

    fn roll(&self, s: Slot, owner: Option<Seat>, sides: u8, count: u8) -> Roll {
        let ep = &self.epochs[&s.epoch];
        Roll {
            table: self.table,
            hand: ep.dice_hand(),
            slot: s.slot,
            seats: ep.parts.len() as u16,
            owner: owner.and_then(|o| ep.idx(o)).map(|i| i as u16),
            sides,
            count,
        }
    }

    /// Opens a card dealt to this client: the published tokens, the ones sealed to it, and its
    /// own, which it never publishes.
    fn open_mine(&self, deck: DeckId, position: u16) -> Result<CardId, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let d = &self.decks[&deck];
        let idx = d.idx(me.seat).expect("participant") as u16;
        let ctx = self
            .ctx(d.fair_hand, idx as usize, me.seat)
            .with_step(FairStep::Reveal {
                position,
                recipient: Some(idx),
            });
        let joint = d.joint.as_ref().expect("keys");
        let mut rng = me.rng(
            &self.table,
            "own-token",
            &[d.fair_hand, u64::from(position)],
        );
        let own = fair::own_token(
            &mut rng,
            d.my_secret.as_ref().expect("own share"),
            joint,
            &ctx,
            d.verified()?,
        )
        .map_err(|e| ChanceError::Protocol(format!("our own token: {e}")))?;
        let mut all: Vec<VerifiedToken> = d.tokens.get(&position).cloned().unwrap_or_default();
        all.extend(d.sealed_to_me.get(&position).cloned().unwrap_or_default());
        all.push(own);
        // A key holder's token may be both published and sealed to us (a position dealt in
        // several ways): one per key holder opens the card.
        let mut seen = BTreeSet::new();
        all.retain(|t| seen.insert(t.seat()));
        let index = fair::open_card(joint, d.verified()?, position, &all)
            .map_err(|e| ChanceError::Protocol(format!("opening our card: {e}")))?;
        card_of(&d.spec, index)
    }
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
mod tests {
    use super::*;

    const TABLE: [u8; 32] = [7; 32];

    /// `n` seated clients, then a spectator.
    fn clients(n: usize) -> Vec<Chance> {
        let actors: Vec<[u8; 32]> = (0..n)
            .map(|i| {
                Keys::new(SecretKey::from_slice(&[i as u8 + 1; 32]).unwrap())
                    .public_key()
                    .to_bytes()
            })
            .collect();
        let mut v: Vec<Chance> = (0..n)
            .map(|i| {
                let me = Secrets::new(i as Seat, Zeroizing::new([i as u8 + 40; 32]));
                Chance::new(TABLE, actors.clone(), Some(me))
            })
            .collect();
        v.push(Chance::new(TABLE, actors, None));
        v
    }

    struct Ran {
        outcomes: Vec<Vec<ChanceOutcome>>,
        stages: Vec<Stage>,
        /// The first `setup` and the first `shuffle` body of the batch, if any.
        setup: Option<Body>,
        shuffle: Option<Body>,
    }

    /// One step's events, `(seat, id, part of the deck prepared ahead)`, checked by every
    /// client in the state the step opened in and applied when it closes (as the session does).
    fn close_step(
        cs: &mut [Chance],
        parts: &[(Seat, String, crate::wire::log::Ahead)],
        eligible: &[Seat],
    ) {
        for c in cs.iter_mut() {
            let checked: Vec<AheadPart> = parts
                .iter()
                .map(|(seat, id, a)| c.check_ahead(*seat, id, a, eligible).unwrap())
                .collect();
            c.commit_ahead(checked);
        }
    }

    /// Steps where only `seats` act, one each in this order (the moves of a hand): each carries
    /// its part of the deck prepared ahead when one is due.
    fn moves(cs: &mut [Chance], seats: &[Seat], step: &mut u32) {
        for seat in seats {
            let part = cs[*seat as usize].produce_ahead(&[*seat]).unwrap();
            let parts: Vec<_> = part
                .into_iter()
                .map(|a| (*seat, format!("{step}/{seat}"), a))
                .collect();
            close_step(cs, &parts, &[*seat]);
            *step += 1;
        }
    }

    /// Runs one batch on every client, one step per stage (as the session does), with every
    /// client checking every event and the parts of the deck prepared ahead they carry.
    fn run(cs: &mut [Chance], reqs: &[ChanceRequest], parts: &[Seat], step: &mut u32) -> Ran {
        for c in cs.iter_mut() {
            c.begin(reqs.to_vec(), parts.to_vec(), true).unwrap();
        }
        let mut ran = Ran {
            outcomes: Vec::new(),
            stages: Vec::new(),
            setup: None,
            shuffle: None,
        };
        loop {
            let stage = cs[0].stage().unwrap();
            assert!(cs.iter().all(|c| c.stage() == Some(stage)));
            if stage == Stage::Ready {
                break;
            }
            ran.stages.push(stage);
            let eligible = cs[0].awaited();
            let events: Vec<(Seat, Body)> = cs
                .iter()
                .filter_map(|c| c.produce(*step).unwrap().map(|b| (c.my_seat().unwrap(), b)))
                .collect();
            assert!(!events.is_empty(), "nobody acts at {stage:?}");
            let riding: Vec<_> = events
                .iter()
                .filter_map(|(seat, _)| {
                    let a = cs[*seat as usize].produce_ahead(&eligible).unwrap()?;
                    Some((*seat, format!("{step}/{seat}"), a))
                })
                .collect();
            for (seat, body) in &events {
                match body {
                    Body::Setup { .. } if ran.setup.is_none() => ran.setup = Some(body.clone()),
                    Body::Shuffle { .. } if ran.shuffle.is_none() => {
                        ran.shuffle = Some(body.clone())
                    }
                    _ => {}
                }
                let id = format!("{step}/{seat}");
                for c in cs.iter_mut() {
                    c.accept(*seat, &id, body, *step).unwrap();
                }
            }
            close_step(cs, &riding, &eligible);
            *step += 1;
        }
        ran.outcomes = cs.iter_mut().map(|c| c.finish().unwrap()).collect();
        ran
    }

    fn hand(deck: DeckId) -> Vec<ChanceRequest> {
        vec![
            ChanceRequest::Shuffle {
                deck,
                spec: DeckSpec::standard(1),
            },
            ChanceRequest::deal(deck, 0, 0),
            ChanceRequest::deal(deck, 1, 1),
            ChanceRequest::Reveal { deck, position: 2 },
        ]
    }

    fn shuffled_ids(b: &Option<Body>) -> Vec<DeckId> {
        match b {
            Some(Body::Shuffle { decks, .. }) => decks.iter().map(|d| d.deck).collect(),
            _ => Vec::new(),
        }
    }

    /// What every client knows of a hand: the revealed card is the same for all, each dealt
    /// card is known to its holder alone, and the three cards differ.
    fn check_hand(ran: &Ran, n: usize) -> CardId {
        let revealed = |o: &Vec<ChanceOutcome>| match &o[3] {
            ChanceOutcome::Revealed { card, .. } => *card,
            x => panic!("{x:?}"),
        };
        let dealt = |o: &Vec<ChanceOutcome>, i: usize| match &o[1 + i] {
            ChanceOutcome::Dealt { card, .. } => *card,
            x => panic!("{x:?}"),
        };
        let shown = revealed(&ran.outcomes[0]);
        for (c, o) in ran.outcomes.iter().enumerate() {
            assert_eq!(revealed(o), shown);
            for i in 0..2 {
                assert_eq!(dealt(o, i).is_some(), c == i, "client {c} position {i}");
            }
        }
        let (a, b) = (dealt(&ran.outcomes[0], 0), dealt(&ran.outcomes[1], 1));
        assert!(a != b && a != Some(shown) && b != Some(shown));
        assert_eq!(ran.outcomes.len(), n + 1);
        shown
    }

    fn deck_of(reqs: &[ChanceRequest], deck: DeckId) -> Vec<ChanceRequest> {
        reqs.iter()
            .cloned()
            .map(|mut r| {
                match &mut r {
                    ChanceRequest::Shuffle { deck: d, .. }
                    | ChanceRequest::Deal { deck: d, .. }
                    | ChanceRequest::Reveal { deck: d, .. } => *d = deck,
                    _ => {}
                }
                r
            })
            .collect()
    }

    /// `body` (a batch shuffle) with two cards of its first deck swapped: still a well-formed
    /// deck, but not the one its proof is for.
    fn swapped(body: &Body) -> Body {
        let Body::Shuffle { decks, dice } = body else {
            panic!("a shuffle");
        };
        let mut decks = decks.clone();
        let mut bytes = fair::from_base64("deck", &decks[0].cards).unwrap();
        let card = fair::deck_len(1);
        let (a, b) = bytes.split_at_mut(card);
        a.swap_with_slice(&mut b[..card]);
        decks[0].cards = fair::to_base64(&bytes);
        Body::Shuffle {
            decks,
            dice: dice.clone(),
        }
    }

    fn cards(body: &Body) -> String {
        let Body::Shuffle { decks, .. } = body else {
            panic!("a shuffle");
        };
        decks[0].cards.clone()
    }

    #[test]
    fn a_seat_shuffles_on_a_deck_it_is_still_checking_and_uses_that_only_if_the_deck_verifies() {
        let mut cs = clients(3);
        for c in cs.iter_mut() {
            c.begin(hand(0), vec![0, 1, 2], false).unwrap();
        }
        let setups: Vec<(Seat, Body)> = cs[..3]
            .iter()
            .map(|c| (c.my_seat().unwrap(), c.produce(0).unwrap().unwrap()))
            .collect();
        for (seat, body) in &setups {
            for c in cs.iter_mut() {
                c.accept(*seat, &format!("0/{seat}"), body, 0).unwrap();
            }
        }
        let order = cs[0].batch.as_ref().unwrap().order.clone();
        let (first, second, third) = (order[0], order[1], order[2]);
        let (f, s, t) = (first as usize, second as usize, third as usize);
        let good = cs[f].produce(0).unwrap().unwrap();
        let bad = swapped(&good);

        // On a deck whose proof does not hold: the speculative copy takes it and shuffles on
        // it; the client itself refuses it, and its own shuffle is made again on the deck that
        // does verify, so what was built on the bad one is never used.
        let mut copy = cs[s].speculative();
        copy.accept(first, "1/bad", &bad, 0).unwrap();
        let on_bad = copy.produce(0).unwrap().unwrap();
        assert_eq!(cs[s].own_shuffles_made(), (1, 1));
        let e = cs[s].accept(first, "1/bad", &bad, 0).unwrap_err();
        assert!(e.to_string().contains("shuffle proof rejected"), "{e}");
        for c in cs.iter_mut() {
            c.accept(first, "1/good", &good, 0).unwrap();
        }
        let mine = cs[s].produce(0).unwrap().unwrap();
        assert_ne!(cards(&mine), cards(&on_bad));
        assert_eq!(cs[s].own_shuffles_made(), (2, 1));

        // On a deck that verifies: the shuffle made ahead is the one the client publishes,
        // and it is not made twice.
        let mut copy = cs[t].speculative();
        copy.accept(second, "2/s", &mine, 0).unwrap();
        let ahead = copy.produce(0).unwrap().unwrap();
        assert_eq!(cs[t].own_shuffles_made(), (1, 1));
        let verified_before = cs[t].stats.shuffles_verified;
        cs[t].accept(second, "2/s", &mine, 0).unwrap();
        assert_eq!(cs[t].stats.shuffles_verified, verified_before + 1);
        let published = cs[t].produce(0).unwrap().unwrap();
        assert_eq!(published, ahead);
        assert_eq!(cs[t].own_shuffles_made(), (1, 1));

        // A seat's own event, exactly as it made it, is not checked again; altered, it is.
        let before = cs[s].stats.shuffles_verified;
        let e = cs[s]
            .accept(second, "2/altered", &swapped(&mine), 0)
            .unwrap_err();
        assert!(e.to_string().contains("shuffle proof rejected"), "{e}");
        cs[s].accept(second, "2/s", &mine, 0).unwrap();
        assert_eq!(cs[s].stats.shuffles_verified, before);
        for i in [f, 3] {
            let before = cs[i].stats.shuffles_verified;
            cs[i].accept(second, "2/s", &mine, 0).unwrap();
            assert_eq!(cs[i].stats.shuffles_verified, before + 1);
        }
        // Nothing but shuffles comes out of a speculative copy.
        for c in cs.iter_mut() {
            c.accept(third, "3/t", &published, 0).unwrap();
        }
        assert_eq!(cs[0].stage(), Some(Stage::Reveal));
        assert!(cs[f].produce(0).unwrap().is_some());
        assert!(cs[f].speculative().produce(0).unwrap().is_none());
    }

    #[test]
    fn the_next_deck_is_keyed_and_shuffled_on_the_events_of_the_hand_before_it() {
        let mut cs = clients(3);
        let mut step = 0;
        let all = [0, 1, 2];
        // Hand 0: setup, three shuffles, reveal. The next deck's keys ride on the setups and
        // its shuffles on the shuffle events: it is ready before the hand's cards are.
        let h0 = run(&mut cs, &hand(0), &all, &mut step);
        assert_eq!(
            h0.stages,
            vec![
                Stage::Setup,
                Stage::Shuffle(0),
                Stage::Shuffle(1),
                Stage::Shuffle(2),
                Stage::Reveal
            ]
        );
        assert_eq!(
            shuffled_ids(&h0.shuffle),
            vec![0],
            "the body carries the hand's deck only"
        );
        check_hand(&h0, 3);
        for c in &cs {
            let held: Vec<DeckId> = c.decks.range(SPARE_BASE..).map(|(k, _)| *k).collect();
            assert_eq!(held, vec![SPARE_BASE]);
            assert_eq!(c.decks[&SPARE_BASE].fair_hand, ahead_hand(0));
        }
        // Hand 1, same participants: the prepared deck is deck 1, straight to the reveals,
        // whose events carry the keys of the deck after it. Its shuffles then ride on the
        // hand's moves, in the order the seats happen to act.
        let h1 = run(&mut cs, &hand(1), &all, &mut step);
        assert_eq!(h1.stages, vec![Stage::Reveal]);
        check_hand(&h1, 3);
        for c in &cs {
            assert_eq!(c.stats.spares_used, 1);
            assert_eq!(c.preparing(), Some((3, 0)));
        }
        moves(&mut cs, &[2, 2, 0, 1], &mut step);
        for c in &cs {
            assert_eq!(c.preparing(), None, "three shuffles made it a spare");
            assert_eq!(c.decks[&(SPARE_BASE + 1)].shuffles, 3);
        }
        let h2 = run(&mut cs, &hand(2), &all, &mut step);
        assert_eq!(h2.stages, vec![Stage::Reveal]);
        check_hand(&h2, 3);
        // Hand 3 finds the next deck keyed and shuffled by seat 1 only: it goes on with the
        // other two shuffles, seat 1's first in its order, and no setup.
        moves(&mut cs, &[1], &mut step);
        let h3 = run(&mut cs, &hand(3), &all, &mut step);
        assert_eq!(
            h3.stages,
            vec![Stage::Shuffle(1), Stage::Shuffle(2), Stage::Reveal]
        );
        check_hand(&h3, 3);
        for c in &cs {
            assert_eq!(c.stats.spares_used, 3);
            // Hand 3's events carried the keys of the next deck (its shuffles wait for the
            // hand's moves).
            assert_eq!(c.preparing(), Some((3, 0)));
        }
        // A hand with seat 2 gone: the deck prepared for three seats is dropped, and the two
        // seats key their own (and prepare the next one for two).
        let two = deck_of(&hand(4), 4)
            .into_iter()
            .filter(|r| !matches!(r, ChanceRequest::Reveal { .. }))
            .collect::<Vec<_>>();
        let h4 = run(&mut cs, &two, &[0, 1], &mut step);
        assert_eq!(
            h4.stages,
            vec![
                Stage::Setup,
                Stage::Shuffle(0),
                Stage::Shuffle(1),
                Stage::Reveal
            ]
        );
        for c in &cs {
            let held: Vec<DeckId> = c.decks.range(SPARE_BASE..).map(|(k, _)| *k).collect();
            assert_eq!(held, vec![SPARE_BASE + 4], "the two-seat deck, ready");
            assert_eq!(c.decks[&(SPARE_BASE + 4)].parts, vec![0, 1]);
        }
        // A different spec is not served by it.
        let other = vec![ChanceRequest::Shuffle {
            deck: 5,
            spec: DeckSpec::standard(2),
        }];
        let h5 = run(&mut cs, &other, &[0, 1], &mut step);
        assert_eq!(h5.stages[0], Stage::Setup);
        // Every deck of the table has its own proof context.
        for c in &cs {
            let hands: BTreeSet<u64> = c.decks.values().map(|d| d.fair_hand).collect();
            assert_eq!(hands.len(), c.decks.len());
        }
    }

    #[test]
    fn a_part_of_the_next_deck_that_is_not_due_or_does_not_verify_is_refused() {
        use crate::wire::log::Ahead;
        let mut cs = clients(3);
        let mut step = 0;
        run(&mut cs, &hand(0), &[0, 1, 2], &mut step);
        run(&mut cs, &hand(1), &[0, 1, 2], &mut step);
        // Keys are in; at a step only seat 1 acts, seat 1's shuffle is due and nobody else's.
        let good = cs[1].produce_ahead(&[1]).unwrap().expect("due");
        assert!(matches!(good, Ahead::Shuffle { .. }));
        assert_eq!(cs[0].produce_ahead(&[1]).unwrap(), None);
        let spectator = cs.len() - 1;
        let c = &cs[spectator];
        c.check_ahead(1, "s/1", &good, &[1]).unwrap();
        let err = c.check_ahead(0, "s/0", &good, &[1]).err().unwrap();
        assert!(err.to_string().contains("did not expect"), "{err}");
        // At a step both seats 0 and 1 act, the first in seat order shuffles, not seat 1.
        assert!(c.check_ahead(1, "s/1", &good, &[0, 1]).is_err());
        // A key share where a shuffle is due, and a shuffle of other cards.
        let keys = Ahead::Keys(String::new());
        assert!(c.check_ahead(1, "s/1", &keys, &[1]).is_err());
        let Ahead::Shuffle { cards, proof } = good.clone() else {
            unreachable!()
        };
        let other = cs[2].produce_ahead(&[2]).unwrap().expect("due");
        let Ahead::Shuffle { cards: theirs, .. } = other else {
            unreachable!()
        };
        let forged = Ahead::Shuffle {
            cards: theirs,
            proof: proof.clone(),
        };
        // (Event ids differ with their content: the verification cache is keyed by them.)
        let err = c.check_ahead(1, "s/1-forged", &forged, &[1]).err().unwrap();
        assert!(matches!(err, ChanceError::Bad { seat: 1, .. }), "{err:?}");
        // Seat 2's honest shuffle under seat 1's name fails its context.
        let stolen = cs[2].produce_ahead(&[2]).unwrap().unwrap();
        assert!(c.check_ahead(1, "s/1-stolen", &stolen, &[1]).is_err());
        // The honest shuffle with two of its cards swapped is refused too.
        let mut bytes = fair::from_base64("deck", &cards).unwrap();
        bytes.swap(0, 33);
        let swapped = Ahead::Shuffle {
            cards: base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes),
            proof,
        };
        assert!(c.check_ahead(1, "s/1-swapped", &swapped, &[1]).is_err());
    }

    #[test]
    fn a_forfeit_kills_the_spares_its_seat_keyed() {
        let mut cs = clients(3);
        let mut step = 0;
        run(&mut cs, &hand(0), &[0, 1, 2], &mut step);
        // Seat 2 is removed (and say it comes back): the spare it keyed is dead.
        for c in cs.iter_mut() {
            c.forget(&[2]);
        }
        let h1 = run(&mut cs, &hand(1), &[0, 1, 2], &mut step);
        assert_eq!(h1.stages[0], Stage::Setup);
        assert_eq!(shuffled_ids(&h1.shuffle), vec![1]);
        check_hand(&h1, 3);
        assert!(cs.iter().all(|c| c.stats.spares_used == 0));
        // The same for a deck still being prepared: hand 2 is served by the spare hand 1
        // made, and its reveals carry the keys of the next.
        run(&mut cs, &hand(2), &[0, 1, 2], &mut step);
        for c in cs.iter_mut() {
            assert_eq!(c.preparing(), Some((3, 0)));
            c.forget(&[1]);
            assert_eq!(c.preparing(), None);
        }
    }

    #[test]
    fn dice_that_need_a_new_epoch_keep_the_setup_but_the_spare_still_serves_the_deck() {
        let mut cs = clients(2);
        let mut step = 0;
        let parts = [0, 1];
        let h0 = run(&mut cs, &hand(0), &parts, &mut step);
        assert_eq!(h0.stages.len(), 4);
        // Use up most of the epoch's dice slots (no setup: the epoch serves them).
        let roll = ChanceRequest::RollPublic {
            sides: 6,
            count: 1,
            by: None,
        };
        let many = vec![roll.clone(); EPOCH_SLOTS as usize - 4];
        let r = run(&mut cs, &many, &parts, &mut step);
        assert_eq!(r.stages, vec![Stage::Reveal]);
        // A deck and more dice than the epoch has left: a setup opens a new epoch, the
        // spare serves the deck (no shuffles), the dice go on the reveals.
        let mut reqs = hand(1);
        reqs.extend(vec![roll; 8]);
        let h1 = run(&mut cs, &reqs, &parts, &mut step);
        assert_eq!(h1.stages, vec![Stage::Setup, Stage::Reveal]);
        assert!(matches!(&h1.setup, Some(Body::Setup { shares, .. }) if shares.is_empty()));
        check_hand(&h1, 2);
        for o in &h1.outcomes {
            assert_eq!(o[4..], h1.outcomes[0][4..]);
            assert!(matches!(&o[4], ChanceOutcome::Rolled { values } if values.len() == 1));
        }
        for c in &cs {
            assert_eq!(c.stats.spares_used, 1);
            assert_eq!(c.stats.epochs, 2);
        }
    }

    #[test]
    fn decks_are_prepared_ahead_only_within_the_card_budget_and_never_take_a_game_s_deck_id() {
        let prepares = |specs: &[DeckSpec], spares: bool| {
            let mut c = clients(2).remove(0);
            let reqs = specs
                .iter()
                .enumerate()
                .map(|(i, s)| ChanceRequest::Shuffle {
                    deck: i as DeckId,
                    spec: s.clone(),
                })
                .collect();
            c.begin(reqs, vec![0, 1], spares).unwrap();
            match c.produce(0).unwrap() {
                Some(Body::Setup { shares, .. }) => assert_eq!(shares.len(), specs.len()),
                x => panic!("{x:?}"),
            }
            c.ahead.as_ref().map(|a| a.deck.spec.len())
        };
        let s = DeckSpec::standard;
        assert_eq!(prepares(&[s(1)], true), Some(52));
        assert_eq!(prepares(&[s(2)], true), Some(104), "104 + 104 cards fit");
        assert_eq!(prepares(&[s(3)], true), None, "156 + 156 cards do not");
        assert_eq!(
            prepares(&[s(1), s(1)], true),
            Some(52),
            "the first deck's spec"
        );
        assert_eq!(
            prepares(&[s(2), s(1)], true),
            None,
            "104 + 52 + 104 cards do not fit"
        );
        assert_eq!(prepares(&[s(1)], false), None);
        let mut c = clients(2).remove(0);
        let err = c.begin(
            vec![ChanceRequest::Shuffle {
                deck: SPARE_BASE,
                spec: s(1),
            }],
            vec![0, 1],
            true,
        );
        assert!(matches!(err, Err(ChanceError::Protocol(_))), "{err:?}");
    }

    // ---- whispers (PROTOCOL.md §5.11) ------------------------------------------------------

    /// Runs one batch like [`run`], letting `tamper` rewrite each event before every client
    /// checks it; stops at the first event a client refuses, naming its signer.
    fn run_tampered(
        cs: &mut [Chance],
        reqs: &[ChanceRequest],
        parts: &[Seat],
        step: &mut u32,
        mut tamper: impl FnMut(Seat, &mut Body),
    ) -> Result<Vec<Vec<ChanceOutcome>>, (Seat, String)> {
        for c in cs.iter_mut() {
            c.begin(reqs.to_vec(), parts.to_vec(), false).unwrap();
        }
        loop {
            let stage = cs[0].stage().unwrap();
            assert!(cs.iter().all(|c| c.stage() == Some(stage)));
            if stage == Stage::Ready {
                break;
            }
            let events: Vec<(Seat, Body)> = cs
                .iter()
                .filter_map(|c| c.produce(*step).unwrap().map(|b| (c.my_seat().unwrap(), b)))
                .collect();
            assert!(!events.is_empty(), "nobody acts at {stage:?}");
            for (seat, mut body) in events {
                tamper(seat, &mut body);
                let id = format!("{step}/{seat}");
                for c in cs.iter_mut() {
                    c.accept(seat, &id, &body, *step)
                        .map_err(|e| (seat, e.to_string()))?;
                }
            }
            *step += 1;
        }
        Ok(cs.iter_mut().map(|c| c.finish().unwrap()).collect())
    }

    /// The card of a sealed deal as each client knows it (`None`: not dealt to it).
    fn dealt_card(o: &ChanceOutcome) -> Option<CardId> {
        match o {
            ChanceOutcome::Dealt { card, .. } => *card,
            x => panic!("{x:?}"),
        }
    }

    #[test]
    fn a_position_dealt_sealed_to_each_seat_in_turn_opens_for_each_alone_and_its_holder_shows_it_after_a_key_holder_left(
    ) {
        let mut cs = clients(3);
        let spectator = cs.len() - 1;
        let mut step = 0;
        let mut sealed_seen = Vec::new();
        // Seat 0 draws position 0 first: every other key holder seals its token to it and
        // publishes nothing.
        let first = run_tampered(
            &mut cs,
            &[
                ChanceRequest::Shuffle {
                    deck: 0,
                    spec: DeckSpec::standard(1),
                },
                ChanceRequest::DealSealed {
                    deck: 0,
                    position: 0,
                    to: 0,
                },
            ],
            &[0, 1, 2],
            &mut step,
            |seat, b| {
                if let Body::Reveal { tokens, sealed, .. } = b {
                    assert!(tokens.is_empty(), "seat {seat} published a token");
                    sealed_seen.extend(sealed.iter().map(|t| (seat, t.to)));
                }
            },
        )
        .unwrap();
        assert_eq!(sealed_seen, vec![(1, 0), (2, 0)]);
        let card = dealt_card(&first[0][1]).expect("seat 0 holds it");
        for (c, o) in first.iter().enumerate().skip(1) {
            assert_eq!(dealt_card(&o[1]), None, "client {c} learnt seat 0's card");
        }
        // Seat 1 draws the same position later, the same way: the same card, still hidden from
        // seat 2 and the spectator, although seat 2 sealed its token twice.
        let second = run(
            &mut cs,
            &[ChanceRequest::DealSealed {
                deck: 0,
                position: 0,
                to: 1,
            }],
            &[0, 1, 2],
            &mut step,
        );
        assert_eq!(dealt_card(&second.outcomes[1][0]), Some(card));
        for c in [0, 2, spectator] {
            assert_eq!(dealt_card(&second.outcomes[c][0]), None, "client {c}");
        }
        assert!(cs[spectator].decks[&0].tokens.is_empty(), "no plain token");
        // Seat 2 leaves: the deck is dead for dealing, but seat 1 shows its card by itself.
        for c in cs.iter_mut() {
            c.forget(&[2]);
        }
        let dead = cs[0]
            .begin(
                vec![ChanceRequest::DealSealed {
                    deck: 0,
                    position: 1,
                    to: 0,
                }],
                vec![0, 1],
                false,
            )
            .unwrap_err();
        assert!(dead.to_string().contains("cannot be dealt from"), "{dead}");
        cs[0].abandon();
        let never = cs[0]
            .begin(
                vec![ChanceRequest::Show {
                    deck: 0,
                    position: 1,
                    holder: 0,
                }],
                vec![0, 1],
                false,
            )
            .unwrap_err();
        assert!(never.to_string().contains("was not dealt"), "{never}");
        cs[0].abandon();
        let show = [ChanceRequest::Show {
            deck: 0,
            position: 0,
            holder: 1,
        }];
        // A shown token that is not the maker's is refused, naming the shower.
        let mut bad = cs.clone();
        let e = run_tampered(&mut bad, &show, &[0, 1], &mut step.clone(), |_, b| {
            if let Body::Reveal { shown, .. } = b {
                shown[0].tokens.swap(0, 2);
            }
        })
        .unwrap_err();
        assert_eq!(e.0, 1);
        assert!(e.1.contains("shown by its holder"), "{}", e.1);
        let opened = run(&mut cs, &show, &[0, 1], &mut step);
        assert_eq!(opened.stages, vec![Stage::Reveal]);
        for o in &opened.outcomes {
            assert_eq!(
                o[0],
                ChanceOutcome::Revealed {
                    deck: 0,
                    position: 0,
                    card
                }
            );
        }
    }

    const ROLES: [&str; 4] = ["Insider", "Common", "Common", "Common"];

    /// Five seats: seat 0 rolls six private dice; seats 1–4 alone key a deck of one Insider
    /// and three Common cards, and each is dealt one face down. Returns the dice seat 0 sees
    /// and the seat dealt the Insider card.
    fn insider_table(cs: &mut [Chance], step: &mut u32) -> (Vec<u8>, Seat) {
        let all: Vec<Seat> = (0..5).collect();
        let roll = run(
            cs,
            &[ChanceRequest::RollPrivate {
                owner: 0,
                sides: 100,
                count: 6,
            }],
            &all,
            step,
        );
        let dice = match &roll.outcomes[0][0] {
            ChanceOutcome::RolledPrivate {
                values: Some(v), ..
            } => v.clone(),
            x => panic!("{x:?}"),
        };
        let mut reqs = vec![ChanceRequest::Shuffle {
            deck: 0,
            spec: DeckSpec::Custom {
                names: ROLES.iter().map(|s| s.to_string()).collect(),
            },
        }];
        reqs.extend((0..4u16).map(|p| ChanceRequest::deal(0, p, p as Seat + 1)));
        let deal = run(cs, &reqs, &[1, 2, 3, 4], step);
        let mut insider = None;
        for (c, o) in deal.outcomes.iter().enumerate() {
            for out in &o[1..] {
                if let ChanceOutcome::Dealt {
                    position,
                    card: Some(card),
                    ..
                } = out
                {
                    assert_eq!(
                        *position as usize + 1,
                        c,
                        "a card opens for its holder alone"
                    );
                    if *card == CardId(0) {
                        insider = Some(c as Seat);
                    }
                }
            }
        }
        (dice, insider.expect("someone holds the Insider card"))
    }

    fn whisper_req() -> ChanceRequest {
        ChanceRequest::Whisper {
            owner: 0,
            roll: 0,
            deck: 0,
            card: CardId(0),
            positions: vec![0, 1, 2, 3],
        }
    }

    fn show_roles(cs: &mut [Chance], step: &mut u32) {
        let reqs: Vec<ChanceRequest> = (0..4)
            .map(|position| ChanceRequest::Reveal { deck: 0, position })
            .collect();
        run(cs, &reqs, &[0, 1, 2, 3, 4], step);
    }

    #[test]
    fn a_whisper_reaches_the_card_holder_alone_and_the_whisperer_never_learns_who() {
        let mut cs = clients(5);
        let mut step = 0;
        let (dice, insider) = insider_table(&mut cs, &mut step);
        let mut keys = Vec::new();
        let outs = run_tampered(
            &mut cs,
            &[whisper_req()],
            &[0, 1, 2, 3, 4],
            &mut step,
            |_, b| {
                if let Body::Mailbox { keys: k } = b {
                    keys.push(k[0].clone());
                }
            },
        )
        .unwrap();
        // Four mailbox keys, all valid x-only keys, all different: nothing tells the real one.
        assert_eq!(keys.len(), 4);
        assert!(keys.iter().all(|k| whisper::parse_key(k).is_ok()));
        assert_eq!(keys.iter().collect::<BTreeSet<_>>().len(), 4);
        for (c, o) in outs.iter().enumerate() {
            let ChanceOutcome::Whispered { values, to, .. } = &o[0] else {
                panic!("{o:?}")
            };
            assert_eq!(*to, None, "no client is told who holds the card");
            if c == 0 || c == insider as usize {
                assert_eq!(values.as_ref(), Some(&dice), "client {c}");
            } else {
                assert_eq!(*values, None, "client {c} (the spectator is client 5)");
            }
        }
        // What the whisperer holds of the role deck: nothing (it holds no key share of it and
        // was dealt nothing), and its whisper names no holder.
        let d = &cs[0].decks[&0];
        assert!(d.idx(0).is_none() && d.my_secret.is_none());
        // At the end: the roles are shown, the whisper opened, and everyone checks it.
        show_roles(&mut cs, &mut step);
        let opened = run(
            &mut cs,
            &[ChanceRequest::OpenWhisper { owner: 0, roll: 0 }],
            &[0, 1, 2, 3, 4],
            &mut step,
        );
        for o in &opened.outcomes {
            assert_eq!(
                o[0],
                ChanceOutcome::WhisperOpened {
                    owner: 0,
                    roll: 0,
                    values: dice.clone()
                }
            );
        }
        // Only the whisperer and the three Commons owed an opening; the Insider none.
        let again = cs[0].begin(
            vec![ChanceRequest::OpenWhisper { owner: 0, roll: 0 }],
            vec![0, 1, 2, 3, 4],
            false,
        );
        assert!(matches!(again, Err(ChanceError::Protocol(e)) if e.contains("open already")));
    }

    #[test]
    fn a_whisperer_who_seals_another_secret_to_one_mailbox_is_caught_at_the_opening() {
        let mut cs = clients(5);
        let mut step = 0;
        let (_, insider) = insider_table(&mut cs, &mut step);
        // The whisperer's letter secret, as its client derives it.
        let whisperer = Secrets::new(0, Zeroizing::new([40; 32]));
        let letter = whisper::secret_key(&whisperer.derive(&TABLE, "letter", &[0, 0])).unwrap();
        let mut mailboxes: BTreeMap<Seat, PublicKey> = BTreeMap::new();
        // It seals something else to the mailbox of seat 2 (a Common or the Insider): a way to
        // learn the Insider from what each seat goes on to say.
        let outs = run_tampered(
            &mut cs,
            &[whisper_req()],
            &[0, 1, 2, 3, 4],
            &mut step,
            |seat, b| match b {
                Body::Mailbox { keys } => {
                    mailboxes.insert(seat, whisper::parse_key(&keys[0]).unwrap());
                }
                Body::Letter { letters } => {
                    let mut rng = ChaCha20Rng::seed_from_u64(5);
                    letters[0].sealed[1] =
                        whisper::seal(&mut rng, &letter, &mailboxes[&2], b"another word").unwrap();
                }
                _ => {}
            },
        )
        .expect("every client accepts letters it cannot open");
        if insider == 2 {
            // Its holder cannot read a die from it: it learns nothing, and says nothing.
            assert!(matches!(
                &outs[2][0],
                ChanceOutcome::Whispered { values: None, .. }
            ));
        }
        show_roles(&mut cs, &mut step);
        let caught = run_tampered(
            &mut cs,
            &[ChanceRequest::OpenWhisper { owner: 0, roll: 0 }],
            &[0, 1, 2, 3, 4],
            &mut step,
            |_, _| {},
        )
        .unwrap_err();
        assert_eq!(caught.0, 0, "{caught:?}");
        assert!(
            caught
                .1
                .contains("the letter to seat 2's mailbox does not hold seat 0's die"),
            "{caught:?}"
        );
    }

    #[test]
    fn a_candidate_whose_mailbox_was_not_a_decoy_is_caught_at_the_opening() {
        let mut cs = clients(5);
        let mut step = 0;
        let (dice, insider) = insider_table(&mut cs, &mut step);
        let common = (1..5).find(|s| *s != insider).unwrap();
        // A Common publishes a key it holds the secret of instead of its decoy: it reads the
        // letter the whisperer seals to it.
        let cheat = whisper::secret_key(&[77; 32]).unwrap();
        let mut letter_key = None;
        let mut its_letter = None;
        run_tampered(
            &mut cs,
            &[whisper_req()],
            &[0, 1, 2, 3, 4],
            &mut step,
            |seat, b| match b {
                Body::Mailbox { keys } if seat == common => {
                    keys[0] = whisper::public_key(&cheat).to_hex();
                }
                Body::Letter { letters } => {
                    letter_key = Some(whisper::parse_key(&letters[0].key).unwrap());
                    its_letter = Some(letters[0].sealed[usize::from(common) - 1].clone());
                }
                _ => {}
            },
        )
        .unwrap();
        // It can read the Master's die indeed...
        let bytes = whisper::open(&cheat, &letter_key.unwrap(), &its_letter.unwrap()).unwrap();
        assert!(!bytes.is_empty() && !dice.is_empty());
        // ...but at the end its client can show no seed that makes that key.
        show_roles(&mut cs, &mut step);
        let caught = run_tampered(
            &mut cs,
            &[ChanceRequest::OpenWhisper { owner: 0, roll: 0 }],
            &[0, 1, 2, 3, 4],
            &mut step,
            |_, _| {},
        )
        .unwrap_err();
        assert_eq!(caught.0, common, "{caught:?}");
        assert!(caught.1.contains("the key was not a decoy"), "{caught:?}");
    }

    #[test]
    fn a_whisper_is_asked_only_of_dealt_positions_and_private_rolls() {
        let mut cs = clients(5);
        let mut step = 0;
        insider_table(&mut cs, &mut step);
        let refused = |req: ChanceRequest| {
            let mut c = cs[1].clone();
            match c.begin(vec![req], vec![0, 1, 2, 3, 4], false) {
                Err(ChanceError::Protocol(e)) => e,
                x => panic!("{:?}", x.map(|_| ())),
            }
        };
        let w = |owner: Seat, roll: u32, positions: Vec<u16>| ChanceRequest::Whisper {
            owner,
            roll,
            deck: 0,
            card: CardId(0),
            positions,
        };
        assert!(refused(w(0, 1, vec![0])).contains("no private roll 1"));
        assert!(refused(w(1, 0, vec![0])).contains("no private roll"));
        assert!(refused(w(0, 0, vec![])).contains("to nobody"));
        assert!(refused(w(0, 0, vec![0, 0])).contains("twice"));
        assert!(refused(w(0, 0, vec![4])).contains("was not dealt"));
        assert!(
            refused(ChanceRequest::OpenWhisper { owner: 0, roll: 0 }).contains("whispered no roll")
        );
    }
}
