//! One client's view of a networked Tolerance table: signed log events in, verified state and
//! the events this client must publish out. Every client — each player, a spectator, `verify` —
//! runs this same code over the same log, so they agree on every hand.
//!
//! Data path per event: wire (size, kind, signature, schema, table) → author is seated →
//! hand/step/chain position → fork check → the step's crypto (shares, shuffle proofs, tokens,
//! dice values) → `engine.apply`. Nothing changes state without passing every stage. A client's
//! own events take the same path after they come back from the relay.

use crate::cards::CardId;
use crate::engine::{ChanceOutcome, ChanceRequest, Game, Seat, ToAct};
use crate::fair::{self, dice, Context, JointKey, SecretShare, Step as FairStep, VerifiedDeck};
use crate::games::tolerance::hand::{HandResult, Phase};
use crate::games::tolerance::{Action, ForfeitSeat, Hand, HandView, Table};
use crate::wire::{self, Body, DiceMsg, Payload, TableSpec, TokenMsg, VERSION};
use nostr_sdk::prelude::{Event, EventId, JsonUtil, PublicKey};
use rand::rngs::OsRng;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::Arc;
use zeroize::Zeroizing;

/// Dice slots committed per hand: slot 0 picks the first Dealer, then one per roll (≤ 2 per
/// player per hand, 20 players).
const DICE_SLOTS: u32 = 64;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
pub enum Violation {
    #[error("event {id}: {reason}")]
    Wire { id: String, reason: String },
    #[error("event {id} by {author} who holds no seat")]
    NotSeated { id: String, author: String },
    #[error("event {id} by seat {seat}: {what} out of turn ({expected})")]
    OutOfTurn {
        id: String,
        seat: Seat,
        what: String,
        expected: String,
    },
    #[error("event {id} by seat {seat}: {reason}")]
    Invalid {
        id: String,
        seat: Seat,
        reason: String,
    },
    #[error("seat {seat} signed two different events for hand {hand} step {step} ({a}, {b})")]
    Fork {
        seat: Seat,
        hand: u64,
        step: u32,
        a: String,
        b: String,
    },
    #[error(
        "event {id} by seat {seat} is for hand {hand} step {step}, which closed before it arrived \
         (now hand {now_hand} step {now_step}): replayed, out of turn or too late"
    )]
    Stale {
        id: String,
        seat: Seat,
        hand: u64,
        step: u32,
        now_hand: u64,
        now_step: u32,
    },
}

impl Violation {
    /// The seat to blame, when the event was validly signed by a seated player.
    pub fn culprit(&self) -> Option<Seat> {
        match self {
            Violation::OutOfTurn { seat, .. }
            | Violation::Invalid { seat, .. }
            | Violation::Stale { seat, .. }
            | Violation::Fork { seat, .. } => Some(*seat),
            _ => None,
        }
    }
}

/// What the client is waiting for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Await {
    /// Key shares and dice commitments from these seats.
    Keys(Vec<Seat>),
    /// The shuffle step of this seat.
    Shuffle(Seat),
    /// Deal tokens from these seats.
    Tokens(Vec<Seat>),
    /// A move from this seat.
    Move(Seat),
    /// Dice values from these seats.
    Dice(Vec<Seat>),
    /// Showdown tokens from these seats.
    Show(Vec<Seat>),
    /// Table-end confirmations from these seats.
    End(Vec<Seat>),
    /// The table is over.
    Nothing,
}

impl HandSummary {
    /// The public summary of a finished hand.
    pub fn of(engine: &Hand) -> HandSummary {
        HandSummary {
            hand: engine.hand_no,
            dealer: engine.dealer(),
            players: {
                let mut p: Vec<Seat> = engine.players.iter().map(|p| p.seat).collect();
                p.sort_unstable();
                p
            },
            final_stacks: engine.players.iter().map(|p| (p.seat, p.stack)).collect(),
            result: engine.result.clone(),
            forfeits: Vec::new(),
            log: engine.log.clone(),
            shown: engine
                .players
                .iter()
                .filter(|p| p.cards.iter().any(|c| c.revealed))
                .map(|p| {
                    (
                        p.seat,
                        p.cards
                            .iter()
                            .filter(|c| c.revealed)
                            .filter_map(|c| c.card)
                            .collect(),
                    )
                })
                .collect(),
        }
    }
}

impl Await {
    pub fn seats(&self) -> Vec<Seat> {
        match self {
            Await::Keys(v) | Await::Tokens(v) | Await::Dice(v) | Await::Show(v) | Await::End(v) => {
                v.clone()
            }
            Await::Shuffle(s) | Await::Move(s) => vec![*s],
            Await::Nothing => vec![],
        }
    }
}

#[derive(Debug, Clone)]
enum StepKind {
    Keys,
    Shuffle { index: u16 },
    Tokens { batch: u32, deals: Vec<(u16, Seat)> },
    Move,
    Dice { slot: u32, roller: Seat },
    Show { owners: Vec<(Seat, Vec<u16>)> },
    End,
}

/// How a hand ended, for reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct HandSummary {
    pub hand: u64,
    pub dealer: Seat,
    pub players: Vec<Seat>,
    pub result: Option<HandResult>,
    /// Seats that forfeited (withheld a step or equivocated) and why.
    pub forfeits: Vec<(Seat, String)>,
    pub final_stacks: Vec<(Seat, u64)>,
    /// Cards opened to everyone at showdown, by seat; nothing else is ever opened publicly.
    #[serde(default)]
    pub shown: Vec<(Seat, Vec<CardId>)>,
    /// The hand's public record (blind, moves, rolls, winnings).
    #[serde(default)]
    pub log: Vec<crate::games::tolerance::hand::LogEntry>,
}

#[derive(Clone)]
struct HandRun {
    no: u64,
    /// Fair-protocol index → table seat (ascending seat order).
    parts: Vec<Seat>,
    actors: Vec<[u8; 32]>,
    step_no: u32,
    kind: StepKind,
    engine: Option<Hand>,
    dealer: Option<Seat>,
    size: usize,
    shares: Vec<Option<fair::VerifiedShare>>,
    dice_commits: Vec<Option<dice::DiceCommitment>>,
    joint: Option<JointKey>,
    secret: Option<Arc<SecretShare>>,
    dice_secret: Option<Arc<dice::DiceSecret>>,
    deck: Option<VerifiedDeck>,
    tokens: BTreeMap<u16, Vec<fair::VerifiedToken>>,
    contributed: BTreeSet<Seat>,
    dice_values: Vec<dice::VerifiedValue>,
    dealer_values: Vec<dice::VerifiedValue>,
    next_slot: u32,
    batches: u32,
    /// Whether this client already produced its contribution for the current step.
    produced: bool,
    /// Our own last shuffle (deck and proof as published, and the deck ziffle's prover already
    /// checked), so our echo needs no second verification.
    own_shuffle: Option<(String, String, VerifiedDeck)>,
}

/// Counters for reports and benchmarks.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub events: u64,
    pub bytes: u64,
    pub shuffles_verified: u64,
    pub tokens_verified: u64,
    pub dice_verified: u64,
    pub moves_applied: u64,
    pub sequential_steps: u64,
    /// Protocol steps (relay passes) completed: keys, each shuffle, each token batch, each
    /// move, each roll's dice, each showdown.
    pub passes: u64,
}

pub struct Session {
    pub spec: TableSpec,
    host: PublicKey,
    table_id: [u8; 32],
    seat_keys: Vec<PublicKey>,
    me: Option<Seat>,
    pub table: Table,
    hand: Option<HandRun>,
    head: String,
    buffer: Vec<(Event, Payload)>,
    seen: HashSet<EventId>,
    /// (hand, step, author seat, kind) → first event id, for fork detection.
    signed: HashMap<(u64, u32, Seat, &'static str), EventId>,
    events_by_id: HashMap<EventId, Event>,
    outbox: Vec<Payload>,
    /// Timeout votes: (hand, step) → voter → union of the seats it named missing.
    votes: BTreeMap<(u64, u32), BTreeMap<Seat, BTreeSet<Seat>>>,
    /// Positions whose timeout this client already applied.
    resolved: BTreeSet<(u64, u32)>,
    /// Positions where this client voted: the seats it named, and whether a participant that
    /// neither voted nor was named has since moved past them.
    my_votes: BTreeMap<(u64, u32), (BTreeSet<Seat>, bool)>,
    /// State when each recent step opened, for rolling back a late event the quorum voids.
    snapshots: VecDeque<Snapshot>,
    /// Forks already acted on (hand, step, seat).
    forks: BTreeSet<(u64, u32, Seat)>,
    /// Barriers (steps every participant contributed to) completed, by (hand, step): they pin
    /// everyone's chain head.
    barriers_done: Vec<(u64, u32)>,
    pub violations: Vec<Violation>,
    pub hands: Vec<HandSummary>,
    pub stats: Stats,
    finished: bool,
    /// Hand secrets reloaded after a restart, by hand number (`key seeds ‖ dice seed`).
    restored: BTreeMap<u64, Zeroizing<Vec<u8>>>,
    /// Secrets drawn for a hand that the runner has not stored yet.
    fresh_secrets: Option<(u64, Zeroizing<Vec<u8>>)>,
}

fn xonly(pk: &PublicKey) -> [u8; 32] {
    pk.to_bytes()
}

/// A head no event has: `sha256` of the length-prefixed parts (PROTOCOL.md §7.4). Timeouts and
/// forfeits move the chain to one, so the next step cannot build on a voided event.
pub(crate) fn synthetic_head(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u32).to_be_bytes());
        h.update(p);
    }
    hex::encode(h.finalize())
}

impl Session {
    /// A client for `spec` (announced by `host`). `me` is this client's seat, `None` for a
    /// spectator or verifier.
    pub fn new(spec: TableSpec, host: PublicKey, me: Option<Seat>) -> Result<Session, String> {
        let mut s = Session::new_inner(spec, host, me, BTreeMap::new())?;
        s.start_hand();
        Ok(s)
    }

    fn new_inner(
        spec: TableSpec,
        host: PublicKey,
        me: Option<Seat>,
        restored: BTreeMap<u64, Zeroizing<Vec<u8>>>,
    ) -> Result<Session, String> {
        let table_id: [u8; 32] = hex::decode(&spec.table)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or("table id is not 32 bytes of hex")?;
        let seat_keys: Vec<PublicKey> = spec
            .seats
            .iter()
            .map(|s| PublicKey::from_hex(s).map_err(|e| format!("seat key {s}: {e}")))
            .collect::<Result<_, _>>()?;
        if seat_keys.iter().collect::<HashSet<_>>().len() != seat_keys.len() {
            return Err("a key holds two seats".into());
        }
        let players: Vec<(Seat, Option<u64>)> =
            (0..seat_keys.len() as Seat).map(|s| (s, None)).collect();
        let table = Table::new(spec.variant.clone(), &players, 0).map_err(|e| e.to_string())?;
        let s = Session {
            head: spec.table.clone(),
            spec,
            host,
            table_id,
            seat_keys,
            me,
            table,
            hand: None,
            buffer: Vec::new(),
            seen: HashSet::new(),
            signed: HashMap::new(),
            events_by_id: HashMap::new(),
            outbox: Vec::new(),
            votes: BTreeMap::new(),
            resolved: BTreeSet::new(),
            my_votes: BTreeMap::new(),
            snapshots: VecDeque::new(),
            forks: BTreeSet::new(),
            barriers_done: Vec::new(),
            violations: Vec::new(),
            hands: Vec::new(),
            stats: Stats::default(),
            finished: false,
            restored,
            fresh_secrets: None,
        };
        Ok(s)
    }

    /// A client resuming after a restart: the hand secrets it stored before it crashed are used
    /// instead of fresh ones, so what it publishes matches what it committed to.
    pub fn resume(
        spec: TableSpec,
        host: PublicKey,
        me: Option<Seat>,
        restored: BTreeMap<u64, Zeroizing<Vec<u8>>>,
    ) -> Result<Session, String> {
        let mut s = Session::new_inner(spec, host, me, restored)?;
        s.start_hand();
        Ok(s)
    }

    /// Secrets drawn for a hand since the last call. The runner must store them before it
    /// publishes anything: the key-share event commits to them.
    pub fn take_fresh_secrets(&mut self) -> Option<(u64, Zeroizing<Vec<u8>>)> {
        self.fresh_secrets.take()
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    pub fn me(&self) -> Option<Seat> {
        self.me
    }

    pub fn seat_key(&self, seat: Seat) -> Option<&PublicKey> {
        self.seat_keys.get(seat as usize)
    }

    pub fn host(&self) -> &PublicKey {
        &self.host
    }

    /// Events this client must publish now (the runner signs and sends them).
    pub fn take_outbox(&mut self) -> Vec<Payload> {
        std::mem::take(&mut self.outbox)
    }

    /// Current hand number and step, for deadlines.
    pub fn position(&self) -> (u64, u32, String) {
        match &self.hand {
            Some(h) => (h.no, h.step_no, self.head.clone()),
            None => (self.table.hands_played, 0, self.head.clone()),
        }
    }

    pub fn awaiting(&self) -> Await {
        let Some(h) = &self.hand else {
            return Await::Nothing;
        };
        let missing = |h: &HandRun, who: &dyn Fn(Seat) -> bool| -> Vec<Seat> {
            h.parts
                .iter()
                .copied()
                .filter(|s| who(*s) && !h.contributed.contains(s))
                .collect()
        };
        match &h.kind {
            StepKind::Keys => Await::Keys(missing(h, &|_| true)),
            StepKind::Shuffle { index } => Await::Shuffle(h.parts[*index as usize]),
            StepKind::Tokens { .. } => Await::Tokens(missing(h, &|_| true)),
            StepKind::Move => match h.engine.as_ref().map(|e| e.to_act()) {
                Some(ToAct::Seat(s)) => Await::Move(s),
                _ => Await::Nothing,
            },
            StepKind::Dice { roller, .. } => Await::Dice(missing(h, &|s| s != *roller)),
            StepKind::Show { owners } => {
                Await::Show(missing(h, &|s| owners.iter().any(|(o, _)| *o == s)))
            }
            StepKind::End => Await::End(missing(h, &|_| true)),
        }
    }

    /// The hand as this client sees it.
    /// Seats taking part in the current hand's protocol, in protocol order (ascending seats).
    pub fn participants(&self) -> Vec<Seat> {
        self.hand
            .as_ref()
            .map(|h| h.parts.clone())
            .unwrap_or_default()
    }

    pub fn view(&self) -> Option<HandView> {
        self.hand
            .as_ref()
            .and_then(|h| h.engine.as_ref())
            .map(|e| e.view(self.me))
    }

    /// When it is this client's move: its view and legal moves.
    pub fn my_turn(&self) -> Option<(HandView, Vec<Action>)> {
        let me = self.me?;
        let h = self.hand.as_ref()?;
        if !matches!(h.kind, StepKind::Move) || h.produced {
            return None;
        }
        let e = h.engine.as_ref()?;
        match e.to_act() {
            ToAct::Seat(s) if s == me => Some((e.view(Some(me)), e.legal_actions(me))),
            _ => None,
        }
    }

    /// Queues this client's move (checked against the engine first).
    pub fn submit(&mut self, action: Action) -> Result<(), String> {
        let me = self.me.ok_or("a spectator cannot move")?;
        if self.my_turn().is_none() {
            return Err("it is not your move".into());
        }
        let h = self.hand.as_mut().expect("my turn implies a hand");
        let e = h.engine.as_ref().expect("my turn implies an engine");
        e.clone().apply(me, &action).map_err(|e| e.to_string())?;
        let die = match action {
            Action::Roll { .. } => {
                let ds = h.dice_secret.as_ref().ok_or("no dice secret")?;
                let reveal = ds.reveal(h.next_slot).map_err(|e| e.to_string())?;
                Some(DiceMsg {
                    slot: h.next_slot,
                    reveal: reveal.to_base64(),
                })
            }
            _ => None,
        };
        h.produced = true;
        let p = self.payload(Body::Move { action, die });
        self.outbox.push(p);
        Ok(())
    }

    fn payload(&self, body: Body) -> Payload {
        let (hand, step, prev) = self.position();
        Payload {
            v: VERSION,
            table: self.spec.table.clone(),
            hand,
            step,
            prev,
            body,
        }
    }

    fn ctx(&self, h: &HandRun, idx: usize, step: FairStep) -> Context {
        Context::new(self.table_id, h.no, idx as u16, h.actors[idx]).with_step(step)
    }

    // ---- hands -------------------------------------------------------------------------------

    fn start_hand(&mut self) {
        let limit_reached = self
            .spec
            .hands
            .is_some_and(|n| self.table.hands_played >= n);
        let over = self.table.is_over() || limit_reached;
        // A hand deals in the seats with chips; the table-end barrier asks everyone still seated.
        let parts: Vec<Seat> = if over {
            self.table
                .stacks
                .iter()
                .enumerate()
                .filter(|(_, st)| st.is_some())
                .map(|(s, _)| s as Seat)
                .collect()
        } else {
            self.table.active_seats().iter().map(|(s, _)| *s).collect()
        };
        if parts.is_empty() {
            self.hand = None;
            self.finished = true;
            return;
        }
        let actors = parts
            .iter()
            .map(|s| xonly(&self.seat_keys[*s as usize]))
            .collect();
        let n = parts.len();
        let dealer = if over || self.table.hands_played == 0 {
            None
        } else {
            self.table.next_hand().ok().map(|s| s.dealer)
        };
        self.hand = Some(HandRun {
            no: self.table.hands_played,
            parts,
            actors,
            step_no: 0,
            kind: if over { StepKind::End } else { StepKind::Keys },
            engine: None,
            dealer,
            size: if over {
                0
            } else {
                52 * self.spec.variant.decks_for(n as u8) as usize
            },
            shares: vec![None; n],
            dice_commits: vec![None; n],
            joint: None,
            secret: None,
            dice_secret: None,
            deck: None,
            tokens: BTreeMap::new(),
            contributed: BTreeSet::new(),
            dice_values: Vec::new(),
            dealer_values: Vec::new(),
            next_slot: 1,
            batches: 0,
            produced: false,
            own_shuffle: None,
        });
        self.open_step();
    }

    /// Called whenever a step opens: snapshot chips and produce this client's contribution.
    fn open_step(&mut self) {
        let Some(h) = self.hand.as_mut() else {
            return;
        };
        h.contributed.clear();
        h.produced = false;
        self.stats.passes += 1;
        if let Err(e) = self.produce() {
            // Our own crypto failing is a local fault; report it as a violation of our seat.
            let seat = self.me.unwrap_or(0);
            self.violations.push(Violation::Invalid {
                id: "local".into(),
                seat,
                reason: format!("could not produce our own step: {e}"),
            });
        }
        self.take_snapshot();
    }

    fn my_index(&self) -> Option<usize> {
        let me = self.me?;
        self.hand.as_ref()?.parts.iter().position(|s| *s == me)
    }

    /// This client's contribution to the open step, if it owes one.
    fn produce(&mut self) -> Result<(), String> {
        let Some(idx) = self.my_index() else {
            return Ok(());
        };
        let me = self.me.expect("seated");
        let h = self.hand.as_ref().expect("hand");
        if h.produced {
            return Ok(());
        }
        let body = match &h.kind {
            StepKind::Keys => {
                let ctx = self.ctx(h, idx, FairStep::Keys);
                let dctx = self.ctx(h, idx, FairStep::Dice);
                let (secret, ds) = match self.restored.get(&h.no) {
                    Some(bytes) if bytes.len() > fair::SEAT_SECRET_LEN => (
                        SecretShare::from_bytes(&ctx, &bytes[..fair::SEAT_SECRET_LEN])
                            .map_err(|e| format!("stored key seeds: {e}"))?,
                        dice::DiceSecret::from_bytes(&dctx, &bytes[fair::SEAT_SECRET_LEN..])
                            .map_err(|e| format!("stored dice seed: {e}"))?,
                    ),
                    Some(_) => return Err("stored hand secrets are truncated".into()),
                    None => {
                        let (secret, _) =
                            fair::keygen(&mut OsRng, &ctx).map_err(|e| e.to_string())?;
                        let ds = dice::DiceSecret::generate(&mut OsRng, &dctx, DICE_SLOTS)
                            .map_err(|e| e.to_string())?;
                        let mut bytes = Zeroizing::new(secret.to_bytes().to_vec());
                        bytes.extend_from_slice(&*ds.to_bytes());
                        self.fresh_secrets = Some((h.no, bytes));
                        (secret, ds)
                    }
                };
                let body = Body::Keys {
                    share: secret.public_share().to_base64(),
                    dice: hex::encode(ds.commitment().to_bytes()),
                };
                let h = self.hand.as_mut().expect("hand");
                h.secret = Some(Arc::new(secret));
                h.dice_secret = Some(Arc::new(ds));
                body
            }
            StepKind::Shuffle { index } if h.parts[*index as usize] == me => {
                let ctx = self.ctx(h, idx, FairStep::Shuffle { index: *index });
                let (verified, proof) = fair::shuffle_verified(
                    h.secret.as_ref().ok_or("no secret share")?,
                    &ctx,
                    h.joint.as_ref().ok_or("no joint key")?,
                    h.size,
                    h.deck.as_ref(),
                )
                .map_err(|e| e.to_string())?;
                let deck = verified.deck().clone();
                let dealer_die = if h.no == 0 {
                    let r = h
                        .dice_secret
                        .as_ref()
                        .ok_or("no dice secret")?
                        .reveal(0)
                        .map_err(|e| e.to_string())?;
                    Some(DiceMsg {
                        slot: 0,
                        reveal: r.to_base64(),
                    })
                } else {
                    None
                };
                let (deck, proof) = (deck.to_base64(), proof.to_base64());
                self.hand.as_mut().expect("hand").own_shuffle =
                    Some((deck.clone(), proof.clone(), verified));
                Body::Shuffle {
                    deck,
                    proof,
                    dealer_die,
                }
            }
            StepKind::Tokens { batch, deals } => {
                let mut tokens = Vec::new();
                for (pos, to) in deals {
                    if *to == me {
                        continue;
                    }
                    let ridx = h
                        .parts
                        .iter()
                        .position(|s| s == to)
                        .expect("dealt to a player");
                    let ctx = self.ctx(
                        h,
                        idx,
                        FairStep::Reveal {
                            position: *pos,
                            recipient: Some(ridx as u16),
                        },
                    );
                    let t = fair::reveal_token(
                        &mut OsRng,
                        h.secret.as_ref().ok_or("no secret share")?,
                        &ctx,
                        h.deck.as_ref().ok_or("no deck")?,
                    )
                    .map_err(|e| e.to_string())?;
                    tokens.push(TokenMsg {
                        position: *pos,
                        to: Some(*to),
                        token: t.to_base64(),
                    });
                }
                Body::Tokens {
                    batch: *batch,
                    tokens,
                }
            }
            StepKind::End => Body::End {},
            StepKind::Dice { slot, roller } if *roller != me => {
                let r = h
                    .dice_secret
                    .as_ref()
                    .ok_or("no dice secret")?
                    .reveal(*slot)
                    .map_err(|e| e.to_string())?;
                Body::Dice {
                    die: DiceMsg {
                        slot: *slot,
                        reveal: r.to_base64(),
                    },
                }
            }
            StepKind::Show { owners } => {
                let Some((_, positions)) = owners.iter().find(|(o, _)| *o == me) else {
                    return Ok(());
                };
                let mut tokens = Vec::new();
                for pos in positions {
                    let ctx = self.ctx(
                        h,
                        idx,
                        FairStep::Reveal {
                            position: *pos,
                            recipient: None,
                        },
                    );
                    let t = fair::reveal_token(
                        &mut OsRng,
                        h.secret.as_ref().ok_or("no secret share")?,
                        &ctx,
                        h.deck.as_ref().ok_or("no deck")?,
                    )
                    .map_err(|e| e.to_string())?;
                    tokens.push(TokenMsg {
                        position: *pos,
                        to: None,
                        token: t.to_base64(),
                    });
                }
                Body::Show { tokens }
            }
            _ => return Ok(()),
        };
        self.hand.as_mut().expect("hand").produced = true;
        let p = self.payload(body);
        self.outbox.push(p);
        Ok(())
    }

    // ---- events ------------------------------------------------------------------------------

    /// Feeds one event from the relays. Returns the violations it revealed (also kept in
    /// [`Session::violations`]). Events that belong to a later step wait in a buffer.
    pub fn handle(&mut self, event: &Event) -> Vec<Violation> {
        let before = self.violations.len();
        // Check the signature before trusting the id: a forged event may reuse a known id.
        let parsed = wire::parse_log(event, &self.spec.table);
        if parsed.is_ok() && self.seen.contains(&event.id) {
            return Vec::new();
        }
        let payload = match parsed {
            Ok(p) => p,
            Err(e) => {
                self.violations.push(Violation::Wire {
                    id: event.id.to_hex(),
                    reason: e.to_string(),
                });
                return self.violations[before..].to_vec();
            }
        };
        self.seen.insert(event.id);
        self.stats.events += 1;
        self.stats.bytes += event.as_json().len() as u64;
        self.events_by_id.insert(event.id, event.clone());
        let author = self
            .seat_keys
            .iter()
            .position(|k| *k == event.pubkey)
            .map(|s| s as Seat);
        if let Some(seat) = author {
            self.note_progress(seat, payload.hand, payload.step);
            // A fork: two different events that passed the wire checks, by one seat, for one
            // step and type — whatever their validity and whatever order they arrive in.
            if !matches!(payload.body, Body::Vote { .. } | Body::Evidence { .. }) {
                let key = (payload.hand, payload.step, seat, payload.body.name());
                match self.signed.get(&key) {
                    Some(first) if *first != event.id => {
                        let (a, b) = (first.to_hex(), event.id.to_hex());
                        self.violations.push(Violation::Fork {
                            seat,
                            hand: payload.hand,
                            step: payload.step,
                            a: a.clone(),
                            b: b.clone(),
                        });
                        self.on_fork(seat, payload.hand, payload.step, &a, &b);
                        self.drain();
                        return self.violations[before..].to_vec();
                    }
                    Some(_) => {}
                    None => {
                        self.signed.insert(key, event.id);
                    }
                }
            }
        }
        match (&payload.body, author) {
            (Body::Vote { missing }, Some(voter)) => {
                let entry = self
                    .votes
                    .entry((payload.hand, payload.step))
                    .or_default()
                    .entry(voter)
                    .or_default();
                entry.extend(missing.iter().copied().filter(|s| *s != voter));
                self.check_quorums();
                self.drain();
            }
            (Body::Evidence { events, .. }, Some(_)) => {
                // Evidence carries signed events: handling them reveals the fork by itself.
                let evs: Vec<Event> = events
                    .iter()
                    .filter_map(|j| <Event as JsonUtil>::from_json(j).ok())
                    .collect();
                for ev in evs {
                    self.handle(&ev);
                }
            }
            _ => {
                self.buffer.push((event.clone(), payload));
                self.drain();
                self.check_quorums();
            }
        }
        self.violations[before..].to_vec()
    }

    /// Applies buffered events until none applies.
    fn drain(&mut self) {
        loop {
            let mut progressed = false;
            let mut i = 0;
            while i < self.buffer.len() {
                let (ev, p) = &self.buffer[i];
                match self.classify(ev, p) {
                    Disposition::Wait => i += 1,
                    Disposition::Drop => {
                        self.buffer.remove(i);
                    }
                    Disposition::Reject(v) => {
                        self.buffer.remove(i);
                        self.violations.push(v);
                    }
                    Disposition::Apply(seat) => {
                        let (ev, p) = self.buffer.remove(i);
                        if let Err(v) = self.apply(&ev, p, seat) {
                            self.violations.push(v);
                        }
                        progressed = true;
                        break;
                    }
                }
            }
            if !progressed {
                return;
            }
        }
    }

    fn classify(&self, ev: &Event, p: &Payload) -> Disposition {
        let id = ev.id.to_hex();
        let Some(seat) = self.seat_keys.iter().position(|k| *k == ev.pubkey) else {
            return Disposition::Reject(Violation::NotSeated {
                id,
                author: ev.pubkey.to_hex(),
            });
        };
        let seat = seat as Seat;
        if matches!(p.body, Body::Vote { .. } | Body::Evidence { .. }) {
            return Disposition::Drop;
        }
        let (hand, step, head) = self.position();
        if self.finished {
            return Disposition::Drop;
        }
        // A client that voted this seat missing waits: the quorum may still void its late event.
        if let Some((missing, progressed)) = self.my_votes.get(&(p.hand, p.step)) {
            if !progressed && missing.contains(&seat) && (p.hand, p.step) == (hand, step) {
                return Disposition::Wait;
            }
        }
        if self.resolved.contains(&(p.hand, p.step)) && (p.hand, p.step) <= (hand, step) {
            // Voided by a timeout or a forfeit at that step.
            return Disposition::Drop;
        }
        if p.hand < hand || (p.hand == hand && p.step < step) {
            return Disposition::Reject(Violation::Stale {
                id,
                seat,
                hand: p.hand,
                step: p.step,
                now_hand: hand,
                now_step: step,
            });
        }
        if p.hand > hand || p.step > step {
            return Disposition::Wait;
        }
        if p.prev != head {
            return Disposition::Reject(Violation::Invalid {
                id,
                seat,
                reason: format!("builds on {} but the chain head is {head}", p.prev),
            });
        }
        Disposition::Apply(seat)
    }

    fn invalid(id: &str, seat: Seat, reason: impl Into<String>) -> Violation {
        Violation::Invalid {
            id: id.to_string(),
            seat,
            reason: reason.into(),
        }
    }

    /// Applies an event of the current step, or says why it cannot.
    fn apply(&mut self, ev: &Event, p: Payload, seat: Seat) -> Result<(), Violation> {
        let id = ev.id.to_hex();
        let awaited = self.awaiting();
        let out_of_turn = |what: &str| Violation::OutOfTurn {
            id: id.clone(),
            seat,
            what: what.to_string(),
            expected: format!("{awaited:?}"),
        };
        let h = self.hand.as_ref().expect("a step implies a hand");
        let idx = h.parts.iter().position(|s| *s == seat);
        let step_kind = h.kind.clone();
        let result = match (&step_kind, p.body) {
            (
                StepKind::Keys,
                Body::Keys {
                    share,
                    dice: dcommit,
                },
            ) => {
                let idx = idx
                    .filter(|_| awaited.seats().contains(&seat))
                    .ok_or_else(|| out_of_turn("keys"))?;
                self.on_keys(&id, seat, idx, &share, &dcommit)
            }
            (
                StepKind::Shuffle { index },
                Body::Shuffle {
                    deck,
                    proof,
                    dealer_die,
                },
            ) => {
                if h.parts[*index as usize] != seat {
                    return Err(out_of_turn("shuffle"));
                }
                self.on_shuffle(&id, seat, *index, &deck, &proof, dealer_die)
            }
            (StepKind::Tokens { batch, deals }, Body::Tokens { batch: b, tokens }) => {
                let idx = idx
                    .filter(|_| awaited.seats().contains(&seat))
                    .ok_or_else(|| out_of_turn("tokens"))?;
                if b != *batch {
                    return Err(Self::invalid(
                        &id,
                        seat,
                        format!("token batch {b}, expected {batch}"),
                    ));
                }
                self.on_tokens(&id, seat, idx, deals.clone(), tokens)
            }
            (StepKind::Move, Body::Move { action, die }) => {
                if awaited != Await::Move(seat) {
                    return Err(out_of_turn("move"));
                }
                self.on_move(&id, seat, action, die)
            }
            (StepKind::Dice { slot, roller }, Body::Dice { die }) => {
                let idx = idx
                    .filter(|_| awaited.seats().contains(&seat))
                    .ok_or_else(|| out_of_turn("dice"))?;
                let _ = roller;
                self.on_dice(&id, seat, idx, *slot, die)
            }
            (StepKind::Show { owners }, Body::Show { tokens }) => {
                let idx = idx
                    .filter(|_| awaited.seats().contains(&seat))
                    .ok_or_else(|| out_of_turn("show"))?;
                let positions = owners
                    .iter()
                    .find(|(o, _)| *o == seat)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                self.on_show(&id, seat, idx, positions, tokens)
            }
            (StepKind::End, Body::End {}) => {
                if !awaited.seats().contains(&seat) {
                    return Err(out_of_turn("end"));
                }
                let h = self.hand.as_mut().expect("hand");
                h.contributed.insert(seat);
                if h.contributed.len() == h.parts.len() {
                    let pos = (h.no, h.step_no);
                    self.barriers_done.push(pos);
                    self.hand = None;
                    self.finished = true;
                }
                Ok(())
            }
            (_, body) => Err(out_of_turn(body.name())),
        };
        result
    }

    fn on_keys(
        &mut self,
        id: &str,
        seat: Seat,
        idx: usize,
        share: &str,
        dcommit: &str,
    ) -> Result<(), Violation> {
        let h = self.hand.as_ref().expect("hand");
        let ctx = self.ctx(h, idx, FairStep::Keys);
        let share = fair::PublicShare::from_base64(share)
            .and_then(|s| fair::verify_public_share(&ctx, &s))
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        let commit = hex::decode(dcommit)
            .ok()
            .and_then(|b| dice::DiceCommitment::from_bytes(&b).ok())
            .ok_or_else(|| Self::invalid(id, seat, "malformed dice commitment"))?;
        if commit.slots() < DICE_SLOTS {
            return Err(Self::invalid(id, seat, "dice commitment has too few slots"));
        }
        let h = self.hand.as_mut().expect("hand");
        h.shares[idx] = Some(share);
        h.dice_commits[idx] = Some(commit);
        h.contributed.insert(seat);
        if h.contributed.len() == h.parts.len() {
            let shares: Vec<fair::VerifiedShare> = h.shares.iter().flatten().cloned().collect();
            let joint = JointKey::from_seats(&shares)
                .map_err(|e| Self::invalid(id, seat, format!("key set rejected: {e}")))?;
            h.joint = Some(joint);
            self.next_step(StepKind::Shuffle { index: 0 });
        }
        Ok(())
    }

    fn verify_die(
        &self,
        id: &str,
        seat: Seat,
        idx: usize,
        msg: &DiceMsg,
        slot: u32,
    ) -> Result<dice::VerifiedValue, Violation> {
        let h = self.hand.as_ref().expect("hand");
        if msg.slot != slot {
            return Err(Self::invalid(
                id,
                seat,
                format!("dice slot {}, expected {slot}", msg.slot),
            ));
        }
        let commit = h.dice_commits[idx].as_ref().expect("keys done");
        let reveal = dice::DiceReveal::from_base64(&msg.reveal, commit.depth)
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        let ctx = self.ctx(h, idx, FairStep::Dice);
        let v = dice::verify_reveal(&ctx, commit, &reveal)
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        Ok(v)
    }

    /// The dice value a sequential event carries: required for `slot` when `Some`, forbidden
    /// when `None`.
    #[allow(clippy::too_many_arguments)]
    fn carried_die(
        &self,
        id: &str,
        seat: Seat,
        idx: usize,
        die: Option<&DiceMsg>,
        slot: Option<u32>,
        missing: &str,
        unexpected: &str,
    ) -> Result<Option<dice::VerifiedValue>, Violation> {
        match (slot, die) {
            (Some(slot), Some(m)) => Ok(Some(self.verify_die(id, seat, idx, m, slot)?)),
            (Some(_), None) => Err(Self::invalid(id, seat, missing)),
            (None, Some(_)) => Err(Self::invalid(id, seat, unexpected)),
            (None, None) => Ok(None),
        }
    }

    fn on_shuffle(
        &mut self,
        id: &str,
        seat: Seat,
        index: u16,
        deck: &str,
        proof: &str,
        dealer_die: Option<DiceMsg>,
    ) -> Result<(), Violation> {
        let h = self.hand.as_ref().expect("hand");
        let idx = index as usize;
        let die = self.carried_die(
            id,
            seat,
            idx,
            dealer_die.as_ref(),
            (h.no == 0).then_some(0),
            "hand 0 shuffles carry the dealer die",
            "only hand 0 carries a dealer die",
        )?;
        let ctx = self.ctx(h, idx, FairStep::Shuffle { index });
        let own = h
            .own_shuffle
            .as_ref()
            .filter(|(d, p, _)| Some(seat) == self.me && d == deck && p == proof)
            .map(|(_, _, v)| v.clone());
        let verified = match own {
            Some(v) => v,
            None => self.verify_shuffle_event(id, seat, &ctx, deck, proof)?,
        };
        self.finish_shuffle(id, seat, index, verified, die)
    }

    fn verify_shuffle_event(
        &self,
        id: &str,
        seat: Seat,
        ctx: &Context,
        deck: &str,
        proof: &str,
    ) -> Result<VerifiedDeck, Violation> {
        let h = self.hand.as_ref().expect("hand");
        let deck_bytes =
            fair::from_base64("deck", deck).map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        let proof_bytes = fair::from_base64("proof", proof)
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        let verified = fair::verify_shuffle_bytes(
            ctx,
            h.joint.as_ref().expect("keys done"),
            h.size,
            h.deck.as_ref(),
            &deck_bytes,
            &proof_bytes,
        )
        .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        Ok(verified)
    }

    fn finish_shuffle(
        &mut self,
        id: &str,
        seat: Seat,
        index: u16,
        verified: VerifiedDeck,
        die: Option<dice::VerifiedValue>,
    ) -> Result<(), Violation> {
        self.stats.shuffles_verified += 1;
        self.advance_head(id);
        let h = self.hand.as_mut().expect("hand");
        h.deck = Some(verified);
        if let Some(v) = die {
            h.dealer_values.push(v);
        }
        if (index as usize) + 1 < h.parts.len() {
            self.next_step(StepKind::Shuffle { index: index + 1 });
            return Ok(());
        }
        // Every seat has shuffled: the hand begins.
        if h.no == 0 {
            let roll = dice::Roll {
                table: self.table_id,
                hand: 0,
                slot: 0,
                seats: h.parts.len() as u16,
                owner: None,
                sides: h.parts.len().max(2) as u8,
                count: 1,
            };
            let v = dice::public_roll(&roll, &h.dealer_values)
                .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
            let dealer = h.parts[(v[0] as usize - 1) % h.parts.len()];
            self.table.first_dealer = dealer;
        }
        let setup = self
            .table
            .next_hand()
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        let engine = Hand::new(&setup).map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        let h = self.hand.as_mut().expect("hand");
        if setup.rules.decks as usize * 52 != h.size {
            return Err(Self::invalid(id, seat, "deck size disagrees with the hand"));
        }
        h.dealer = Some(setup.dealer);
        h.engine = Some(engine);
        self.after_engine_change(id, seat)
    }

    /// The engine moved on: open the step its next request needs.
    fn after_engine_change(&mut self, id: &str, seat: Seat) -> Result<(), Violation> {
        let h = self.hand.as_mut().expect("hand");
        let engine = h.engine.as_mut().expect("engine");
        match engine.to_act() {
            ToAct::Terminal => {
                self.finish_hand();
                Ok(())
            }
            ToAct::Seat(_) => {
                self.next_step(StepKind::Move);
                Ok(())
            }
            ToAct::Sealed(_) => Err(Self::invalid(
                id,
                seat,
                "Tolerance has no simultaneous moves",
            )),
            ToAct::Chance(reqs) => {
                // The shuffle is already done by the protocol: answer it at once.
                if let Some(ChanceRequest::Shuffle { .. }) = reqs.first() {
                    if reqs.len() == 1 {
                        engine
                            .apply_chance(&[ChanceOutcome::Shuffled {
                                deck: engine.deck(),
                            }])
                            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
                        return self.after_engine_change(id, seat);
                    }
                }
                let deals: Vec<(u16, Seat)> = reqs
                    .iter()
                    .filter_map(|r| match r {
                        ChanceRequest::Deal { position, to, .. } => Some((*position, to[0])),
                        _ => None,
                    })
                    .collect();
                let reveals: Vec<u16> = reqs
                    .iter()
                    .filter_map(|r| match r {
                        ChanceRequest::Reveal { position, .. } => Some(*position),
                        _ => None,
                    })
                    .collect();
                if !deals.is_empty() {
                    let batch = h.batches;
                    h.batches += 1;
                    self.next_step(StepKind::Tokens { batch, deals });
                } else if !reveals.is_empty() {
                    let mut owners: Vec<(Seat, Vec<u16>)> = Vec::new();
                    for p in &engine.players {
                        let mine: Vec<u16> = p
                            .cards
                            .iter()
                            .map(|c| c.position)
                            .filter(|pos| reveals.contains(pos))
                            .collect();
                        if !mine.is_empty() {
                            owners.push((p.seat, mine));
                        }
                    }
                    self.next_step(StepKind::Show { owners });
                } else {
                    return Err(Self::invalid(
                        id,
                        seat,
                        format!("unexpected chance {reqs:?}"),
                    ));
                }
                Ok(())
            }
        }
    }

    /// Remembers that the step now closing was a barrier (every participant contributed).
    fn close_step(&mut self) {
        if let Some(h) = &self.hand {
            if matches!(
                h.kind,
                StepKind::Keys
                    | StepKind::Tokens { .. }
                    | StepKind::Dice { .. }
                    | StepKind::Show { .. }
            ) {
                self.barriers_done.push((h.no, h.step_no));
            }
        }
    }

    fn next_step(&mut self, kind: StepKind) {
        self.close_step();
        let h = self.hand.as_mut().expect("hand");
        h.step_no += 1;
        h.kind = kind;
        self.open_step();
    }

    fn advance_head(&mut self, id: &str) {
        self.head = id.to_string();
        self.stats.sequential_steps += 1;
    }

    fn on_tokens(
        &mut self,
        id: &str,
        seat: Seat,
        idx: usize,
        deals: Vec<(u16, Seat)>,
        tokens: Vec<TokenMsg>,
    ) -> Result<(), Violation> {
        let h = self.hand.as_ref().expect("hand");
        let expected: Vec<(u16, Seat)> = deals
            .iter()
            .copied()
            .filter(|(_, to)| *to != seat)
            .collect();
        let mut wanted = Vec::with_capacity(expected.len());
        for (pos, to) in &expected {
            let ridx = h.parts.iter().position(|s| s == to).expect("player");
            wanted.push((*pos, Some(*to), Some(ridx as u16)));
        }
        self.accept_tokens(id, seat, idx, &wanted, &tokens)?;
        let h = self.hand.as_mut().expect("hand");
        h.contributed.insert(seat);
        if h.contributed.len() < h.parts.len() {
            return Ok(());
        }
        // Every token is in: open this client's own cards.
        let mut outcomes = Vec::new();
        let ToAct::Chance(reqs) = h.engine.as_ref().expect("engine").to_act() else {
            return Err(Self::invalid(id, seat, "no deal pending"));
        };
        for r in &reqs {
            outcomes.push(match r {
                ChanceRequest::Shuffle { deck, .. } => ChanceOutcome::Shuffled { deck: *deck },
                ChanceRequest::Deal { deck, position, to } => {
                    let card = if Some(to[0]) == self.me {
                        Some(self.open_own(*position).map_err(|e| {
                            Self::invalid(id, seat, format!("cannot open my card: {e}"))
                        })?)
                    } else {
                        None
                    };
                    ChanceOutcome::Dealt {
                        deck: *deck,
                        position: *position,
                        card,
                    }
                }
                other => {
                    return Err(Self::invalid(
                        id,
                        seat,
                        format!("unexpected chance {other:?}"),
                    ))
                }
            });
        }
        let h = self.hand.as_mut().expect("hand");
        h.engine
            .as_mut()
            .expect("engine")
            .apply_chance(&outcomes)
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        self.after_engine_change(id, seat)
    }

    /// Checks a seat's tokens against what it owed — `(position, recipient seat, recipient's
    /// fair index)` in order — and keeps them for opening the cards.
    fn accept_tokens(
        &mut self,
        id: &str,
        seat: Seat,
        idx: usize,
        wanted: &[(u16, Option<Seat>, Option<u16>)],
        tokens: &[TokenMsg],
    ) -> Result<(), Violation> {
        let h = self.hand.as_ref().expect("hand");
        if tokens.len() != wanted.len() {
            return Err(Self::invalid(
                id,
                seat,
                format!("{} tokens, expected {}", tokens.len(), wanted.len()),
            ));
        }
        let share = h.shares[idx].as_ref().expect("keys done");
        let deck = h.deck.as_ref().expect("shuffled");
        let mut verified = Vec::with_capacity(tokens.len());
        for (t, (pos, to, ridx)) in tokens.iter().zip(wanted) {
            if t.position != *pos || t.to != *to {
                return Err(Self::invalid(
                    id,
                    seat,
                    format!(
                        "token for position {} to {:?}, expected {pos} to {to:?}",
                        t.position, t.to
                    ),
                ));
            }
            let ctx = self.ctx(
                h,
                idx,
                FairStep::Reveal {
                    position: *pos,
                    recipient: *ridx,
                },
            );
            let tok = fair::RevealToken::from_base64(&t.token)
                .and_then(|tok| fair::verify_token(&ctx, share, deck, &tok))
                .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
            verified.push((*pos, tok));
        }
        self.stats.tokens_verified += verified.len() as u64;
        let h = self.hand.as_mut().expect("hand");
        for (pos, t) in verified {
            h.tokens.entry(pos).or_default().push(t);
        }
        Ok(())
    }

    fn open_own(&self, position: u16) -> Result<CardId, String> {
        let h = self.hand.as_ref().expect("hand");
        let idx = self.my_index().ok_or("not seated")?;
        let ctx = self.ctx(
            h,
            idx,
            FairStep::Reveal {
                position,
                recipient: Some(idx as u16),
            },
        );
        let joint = h.joint.as_ref().ok_or("no joint key")?;
        let deck = h.deck.as_ref().ok_or("no deck")?;
        let own = fair::own_token(
            &mut OsRng,
            h.secret.as_ref().ok_or("no secret")?,
            joint,
            &ctx,
            deck,
        )
        .map_err(|e| e.to_string())?;
        let mut all: Vec<fair::VerifiedToken> =
            h.tokens.get(&position).cloned().unwrap_or_default();
        all.push(own);
        let card = fair::open_card(joint, deck, position, &all).map_err(|e| e.to_string())?;
        Ok(CardId(card as u16))
    }

    fn on_move(
        &mut self,
        id: &str,
        seat: Seat,
        action: Action,
        die: Option<DiceMsg>,
    ) -> Result<(), Violation> {
        let h = self.hand.as_ref().expect("hand");
        let idx = h.parts.iter().position(|s| *s == seat).expect("player");
        let value = self.carried_die(
            id,
            seat,
            idx,
            die.as_ref(),
            matches!(action, Action::Roll { .. }).then_some(h.next_slot),
            "a roll must carry the roller's dice value",
            "only a roll carries a dice value",
        )?;
        let h = self.hand.as_mut().expect("hand");
        h.engine
            .as_mut()
            .expect("engine")
            .apply(seat, &action)
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        self.stats.moves_applied += 1;
        self.advance_head(id);
        let h = self.hand.as_mut().expect("hand");
        if let Some(v) = value {
            let slot = h.next_slot;
            h.next_slot += 1;
            h.dice_values = vec![v];
            self.next_step(StepKind::Dice { slot, roller: seat });
            let h = self.hand.as_mut().expect("hand");
            h.contributed.insert(seat);
            return Ok(());
        }
        self.after_engine_change(id, seat)
    }

    fn on_dice(
        &mut self,
        id: &str,
        seat: Seat,
        idx: usize,
        slot: u32,
        die: DiceMsg,
    ) -> Result<(), Violation> {
        let v = self.verify_die(id, seat, idx, &die, slot)?;
        self.stats.dice_verified += 1;
        let h = self.hand.as_mut().expect("hand");
        h.dice_values.push(v);
        h.contributed.insert(seat);
        if h.contributed.len() < h.parts.len() {
            return Ok(());
        }
        let engine = h.engine.as_mut().expect("engine");
        let ToAct::Chance(reqs) = engine.to_act() else {
            return Err(Self::invalid(id, seat, "no roll pending"));
        };
        let Some(ChanceRequest::RollPublic { sides, count, .. }) = reqs.first() else {
            return Err(Self::invalid(id, seat, "no roll pending"));
        };
        let roll = dice::Roll {
            table: self.table_id,
            hand: h.no,
            slot,
            seats: h.parts.len() as u16,
            owner: None,
            sides: *sides,
            count: *count,
        };
        let values = dice::public_roll(&roll, &h.dice_values)
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        engine
            .apply_chance(&[ChanceOutcome::Rolled { values }])
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        self.after_engine_change(id, seat)
    }

    fn on_show(
        &mut self,
        id: &str,
        seat: Seat,
        idx: usize,
        positions: Vec<u16>,
        tokens: Vec<TokenMsg>,
    ) -> Result<(), Violation> {
        let wanted: Vec<(u16, Option<Seat>, Option<u16>)> =
            positions.iter().map(|p| (*p, None, None)).collect();
        self.accept_tokens(id, seat, idx, &wanted, &tokens)?;
        let h = self.hand.as_mut().expect("hand");
        h.contributed.insert(seat);
        let StepKind::Show { owners } = &h.kind else {
            unreachable!()
        };
        if owners.iter().any(|(o, _)| !h.contributed.contains(o)) {
            return Ok(());
        }
        let engine = h.engine.as_ref().expect("engine");
        let ToAct::Chance(reqs) = engine.to_act() else {
            return Err(Self::invalid(id, seat, "no showdown pending"));
        };
        let joint = h.joint.as_ref().expect("keys");
        let deck = h.deck.as_ref().expect("deck");
        let mut outcomes = Vec::new();
        for r in &reqs {
            let ChanceRequest::Reveal {
                deck: deck_id,
                position,
            } = r
            else {
                return Err(Self::invalid(id, seat, "unexpected chance at showdown"));
            };
            let all = h.tokens.get(position).cloned().unwrap_or_default();
            let card = fair::open_card(joint, deck, *position, &all)
                .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
            outcomes.push(ChanceOutcome::Revealed {
                deck: *deck_id,
                position: *position,
                card: CardId(card as u16),
            });
        }
        // The engine checks each shown card against what its owner was dealt.
        h.engine
            .as_mut()
            .expect("engine")
            .apply_chance(&outcomes)
            .map_err(|e| Self::invalid(id, seat, e.to_string()))?;
        self.after_engine_change(id, seat)
    }

    fn finish_hand(&mut self) {
        self.close_step();
        let h = self.hand.take().expect("hand");
        let engine = h.engine.expect("engine");
        debug_assert_eq!(engine.phase, Phase::Done);
        let dealer = engine.dealer();
        if let Err(e) = self.table.record(&engine) {
            self.violations.push(Violation::Invalid {
                id: "local".into(),
                seat: dealer,
                reason: format!("could not record the hand: {e}"),
            });
        }
        self.hands.push(HandSummary::of(&engine));
        self.start_hand();
    }

    /// Ends the current hand by forfeit of `offenders` (withheld step or equivocation), using the
    /// chips committed when step `at_step` opened, and starts the next hand on a head every
    /// client computes the same way.
    pub fn forfeit(&mut self, offenders: &[Seat], at_step: u32, reason: &str) {
        let Some(h) = self.hand.take() else {
            return;
        };
        // Callers are at step `at_step` (rolled back to it if needed), and no step changes the
        // engine before it closes: the engine holds the chips committed when the step opened.
        let players: Vec<ForfeitSeat> = match &h.engine {
            Some(e) => e
                .players
                .iter()
                .map(|p| ForfeitSeat {
                    seat: p.seat,
                    start_stack: p.start_stack,
                    committed: p.committed,
                    folded: p.folded,
                })
                .collect(),
            None => h
                .parts
                .iter()
                .map(|s| ForfeitSeat {
                    seat: *s,
                    start_stack: self.table.stacks[*s as usize].unwrap_or(0),
                    committed: 0,
                    folded: false,
                })
                .collect(),
        };
        let dealer = h.dealer.unwrap_or(h.parts[0]);
        let finals = self
            .table
            .record_forfeit(h.no, dealer, &players, offenders)
            .unwrap_or_default();
        let mut seats: Vec<u8> = offenders.to_vec();
        seats.sort_unstable();
        self.head = synthetic_head(&[
            b"forfeit",
            self.spec.table.as_bytes(),
            &h.no.to_be_bytes(),
            &at_step.to_be_bytes(),
            &seats,
        ]);
        self.hands.push(HandSummary {
            hand: h.no,
            dealer,
            players: h.parts.clone(),
            result: None,
            forfeits: offenders.iter().map(|s| (*s, reason.to_string())).collect(),
            final_stacks: finals,
            shown: Vec::new(),
            log: Vec::new(),
        });
        self.buffer.retain(|(_, p)| p.hand > h.no);
        self.start_hand();
        self.drain();
    }

    fn take_snapshot(&mut self) {
        let (hand, step, head) = self.position();
        self.snapshots.push_back(Snapshot {
            hand,
            step,
            run: self.hand.clone(),
            head,
            table: self.table.clone(),
            hands_len: self.hands.len(),
            finished: self.finished,
        });
        while self.snapshots.len() > SNAPSHOTS_KEPT {
            self.snapshots.pop_front();
        }
    }

    /// Goes back to the moment step `step` of hand `hand` opened. Events applied since are void.
    fn restore(&mut self, hand: u64, step: u32) -> bool {
        let Some(i) = self
            .snapshots
            .iter()
            .rposition(|s| s.hand == hand && s.step == step)
        else {
            return false;
        };
        let snap = self.snapshots[i].clone();
        self.snapshots.truncate(i + 1);
        self.hand = snap.run;
        self.head = snap.head;
        self.table = snap.table;
        self.hands.truncate(snap.hands_len);
        self.finished = snap.finished;
        self.barriers_done.retain(|b| *b < (hand, step));
        // Events seen since may now apply (or be void): look at them again.
        let table = self.spec.table.clone();
        let mut again: Vec<(Event, Payload)> = self
            .events_by_id
            .values()
            .filter_map(|e| wire::parse_log(e, &table).ok().map(|p| (e.clone(), p)))
            .filter(|(_, p)| {
                (p.hand, p.step) >= (hand, step)
                    && !matches!(p.body, Body::Vote { .. } | Body::Evidence { .. })
            })
            .collect();
        again.sort_by_key(|(e, p)| (p.hand, p.step, e.id));
        self.buffer
            .retain(|(e, _)| !again.iter().any(|(x, _)| x.id == e.id));
        self.buffer.extend(again);
        true
    }

    fn parts_at(&self, hand: u64, step: u32) -> Option<Vec<Seat>> {
        if let Some(h) = &self.hand {
            if h.no == hand {
                return Some(h.parts.clone());
            }
        }
        self.snapshots
            .iter()
            .rev()
            .find(|s| s.hand == hand && s.step == step)
            .and_then(|s| s.run.as_ref().map(|r| r.parts.clone()))
    }

    /// M*: the seats every voter named, if every other participant voted.
    fn quorum(&self, hand: u64, step: u32, parts: &[Seat]) -> Option<Vec<Seat>> {
        quorum(self.votes.get(&(hand, step))?, parts)
    }

    /// Applies every timeout whose quorum is complete (rolling back a late event if needed).
    fn check_quorums(&mut self) {
        loop {
            if self.finished && self.hand.is_none() && self.snapshots.is_empty() {
                return;
            }
            let (hand, step, _) = self.position();
            let candidates: Vec<(u64, u32)> = self
                .votes
                .keys()
                .copied()
                .filter(|k| *k <= (hand, step) && !self.resolved.contains(k))
                .collect();
            let mut acted = false;
            for k in candidates {
                let Some(parts) = self.parts_at(k.0, k.1) else {
                    continue;
                };
                let Some(missing) = self.quorum(k.0, k.1, &parts) else {
                    continue;
                };
                self.resolved.insert(k);
                if k != (hand, step) && !self.restore(k.0, k.1) {
                    continue;
                }
                self.apply_timeout(k.1, missing);
                acted = true;
                break;
            }
            if !acted {
                return;
            }
        }
    }

    fn apply_timeout(&mut self, step: u32, missing: Vec<Seat>) {
        let awaited = self.awaiting();
        if matches!(awaited, Await::End(_)) {
            // The table is over; a missing confirmation changes no chip.
            self.hand = None;
            self.finished = true;
            return;
        }
        let hand_no = self.position().0;
        if let Await::Move(actor) = awaited {
            if missing == [actor] {
                let h = self.hand.as_mut().expect("a move step has a hand");
                let engine = h.engine.as_mut().expect("a move step has an engine");
                if let Some(action) = engine.timeout_action(actor) {
                    if engine.apply(actor, &action).is_ok() {
                        self.stats.moves_applied += 1;
                        let head = synthetic_head(&[
                            b"timeout",
                            self.spec.table.as_bytes(),
                            &hand_no.to_be_bytes(),
                            &step.to_be_bytes(),
                            &[actor],
                        ]);
                        self.advance_head(&head);
                        if let Err(v) = self.after_engine_change("timeout", actor) {
                            self.violations.push(v);
                        }
                        self.drain();
                        return;
                    }
                }
            }
        }
        self.forfeit(&missing, step, "withheld a protocol step past the deadline");
    }

    fn note_progress(&mut self, seat: Seat, hand: u64, step: u32) {
        let mut changed = false;
        for (k, (missing, progressed)) in self.my_votes.iter_mut() {
            let voted = self.votes.get(k).is_some_and(|v| v.contains_key(&seat));
            if !*progressed && (hand, step) > *k && !voted && !missing.contains(&seat) {
                *progressed = true;
                changed = true;
            }
        }
        if changed {
            self.drain();
        }
    }

    fn on_fork(&mut self, seat: Seat, hand: u64, step: u32, a: &str, b: &str) {
        if !self.forks.insert((hand, step, seat)) {
            return;
        }
        let evs: Vec<String> = [a, b]
            .iter()
            .filter_map(|id| EventId::from_hex(id).ok())
            .filter_map(|id| self.events_by_id.get(&id))
            .map(|e| e.as_json())
            .collect();
        // Two large shuffle events may not fit one event: then name them; relays keep both.
        let evs = if evs.iter().map(String::len).sum::<usize>() > wire::MAX_EVENT_BYTES - 4096 {
            vec![a.to_string(), b.to_string()]
        } else {
            evs
        };
        if self.me.is_some() && evs.len() == 2 {
            let p = self.payload(Body::Evidence {
                offender: seat,
                reason: format!("two different events for hand {hand} step {step}"),
                events: evs,
            });
            self.outbox.push(p);
        }
        // A hand every participant has finished is final: finishing it took everyone's
        // contributions on one chain, so a second event signed later changed nobody's view. It
        // is recorded and published as evidence, but it rolls nothing back.
        // A completed barrier after the forked step pinned every participant to one branch: the
        // second event changed nobody's view, so it is evidence only. Otherwise the equivocator
        // forfeits the hand at that step (rolling back if this client moved past it).
        if self.barriers_done.iter().any(|b| *b > (hand, step)) {
            return;
        }
        let (now_hand, now_step, _) = self.position();
        if (hand, step) == (now_hand, now_step) || self.restore(hand, step) {
            self.resolved.insert((hand, step));
            self.forfeit(&[seat], step, "signed two different events for one step");
        }
    }

    /// Deadline of the open step, from the table's announcement.
    pub fn deadline(&self) -> std::time::Duration {
        let ms = match self.awaiting() {
            Await::Move(_) => self.spec.deadlines.move_ms,
            _ => self.spec.deadlines.crypto_ms,
        };
        std::time::Duration::from_millis(ms)
    }

    /// Queues this client's timeout vote for the open step; `false` if it has none to cast
    /// (it is awaited itself, is a spectator, or nothing is awaited). A repeated vote also names
    /// participants that neither acted nor voted since.
    pub fn vote(&mut self) -> bool {
        let Some(me) = self.me else {
            return false;
        };
        let awaited = self.awaiting().seats();
        if awaited.is_empty() || awaited.contains(&me) {
            return false;
        }
        let (hand, step, _) = self.position();
        let parts = self
            .hand
            .as_ref()
            .map(|h| h.parts.clone())
            .unwrap_or_default();
        if !parts.contains(&me) {
            return false;
        }
        let mut missing: BTreeSet<Seat> = awaited.into_iter().collect();
        if let Some((before, _)) = self.my_votes.get(&(hand, step)) {
            missing.extend(before.iter().copied());
            let voters: BTreeSet<Seat> = self
                .votes
                .get(&(hand, step))
                .map(|v| v.keys().copied().collect())
                .unwrap_or_default();
            missing.extend(
                parts
                    .iter()
                    .copied()
                    .filter(|p| *p != me && !voters.contains(p)),
            );
        }
        self.my_votes
            .entry((hand, step))
            .or_insert_with(|| (BTreeSet::new(), false))
            .0
            .extend(missing.iter().copied());
        let p = self.payload(Body::Vote {
            missing: missing.into_iter().collect(),
        });
        self.outbox.push(p);
        true
    }
}

/// The timeout rule of PROTOCOL.md §7.3 over one step's votes (voter → union of the seats it
/// named): M*, the seats every participating voter named, once every other participant voted.
/// Shared by the Tolerance and the dice sessions.
pub(crate) fn quorum<S: Ord + Copy>(
    votes: &BTreeMap<S, BTreeSet<S>>,
    parts: &[S],
) -> Option<Vec<S>> {
    let mut common: Option<BTreeSet<S>> = None;
    for (voter, missing) in votes {
        if !parts.contains(voter) {
            continue;
        }
        common = Some(match common {
            None => missing.clone(),
            Some(c) => c.intersection(missing).copied().collect(),
        });
    }
    let m: BTreeSet<S> = common?.into_iter().filter(|s| parts.contains(s)).collect();
    if m.is_empty() {
        return None;
    }
    let everyone_else = parts
        .iter()
        .filter(|p| !m.contains(p))
        .all(|p| votes.contains_key(p));
    everyone_else.then(|| m.into_iter().collect())
}

#[derive(Clone)]
struct Snapshot {
    hand: u64,
    step: u32,
    run: Option<HandRun>,
    head: String,
    table: Table,
    hands_len: usize,
    finished: bool,
}

/// Steps of state kept for roll-backs (a hand of 20 players has well under this many).
const SNAPSHOTS_KEPT: usize = 256;

enum Disposition {
    Wait,
    Drop,
    Reject(Violation),
    Apply(Seat),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Deadlines;
    use nostr_sdk::prelude::Keys;

    #[test]
    fn a_resumed_session_reproduces_its_key_share_from_the_stored_secrets() {
        let keys: Vec<Keys> = (0..3).map(|_| Keys::generate()).collect();
        let host = keys[0].public_key();
        let spec = TableSpec {
            v: VERSION,
            game: "tolerance".into(),
            table: hex::encode([8u8; 32]),
            variant: crate::games::tolerance::Variant::default(),
            seats: keys.iter().map(|k| k.public_key().to_hex()).collect(),
            hands: Some(1),
            deadlines: Deadlines::default(),
            lobby: None,
            rules: None,
        };
        let mut s = Session::new(spec.clone(), host, Some(1)).unwrap();
        let (hand, secrets) = s.take_fresh_secrets().expect("hand 0 drew secrets");
        assert_eq!(hand, 0);
        assert!(s.take_fresh_secrets().is_none(), "handed over once");
        let published = s.take_outbox();
        assert!(matches!(
            published[..],
            [Payload {
                body: Body::Keys { .. },
                ..
            }]
        ));

        let restored = BTreeMap::from([(hand, secrets)]);
        let mut r = Session::resume(spec.clone(), host, Some(1), restored).unwrap();
        assert!(r.take_fresh_secrets().is_none(), "nothing new to store");
        assert_eq!(
            r.take_outbox(),
            published,
            "the same commitment as before the crash"
        );

        // Without the journal a restarted client would commit to other secrets: a fork.
        let mut fresh = Session::new(spec, host, Some(1)).unwrap();
        assert_ne!(fresh.take_outbox(), published);
    }
}
