//! The pure game engine: the contract every game implements and every client runs identically.
//!
//! Habits taken from OpenSpiel and boardgame.io:
//! - **Chance is a pseudo-player.** A game never shuffles or rolls. When it needs randomness it
//!   says so through [`ToAct::Chance`], a batch of [`ChanceRequest`]s that the fair-deck and dice
//!   layer fulfils; outcomes come back through [`Game::apply_chance`]. A batch is one relay pass
//!   in the networked protocol, so games put independent requests (all deals, all showdown
//!   reveals) in one batch.
//! - **A client's state holds only what its seat may know.** A face-down card reaches the
//!   recipient's state as `Some(card)` and every other client's state as `None`
//!   ([`ChanceOutcome::mask_for`]). The same rules code runs on the full-information state used in
//!   simulations and on every partial state in the network.
//! - **Simultaneous decisions are sealed.** [`ToAct::Sealed`] lists seats that each choose one
//!   move without seeing the others'; the table layer collects every choice as a commitment
//!   first, opens them together and applies them in ascending seat order. A seat's legal moves
//!   and view must not depend on another listed seat's pending choice (the simulation checks it).
//! - **Seats can be removed.** A seat that withholds a protocol step or signs two events for one
//!   step is removed through [`Game::forfeit`]; each game says what that costs and whether it
//!   goes on without the seat.
//! - **An illegal action is an error and changes nothing.** Games validate before they mutate;
//!   the simulation harness checks it.
//! - **Views are pure functions of state and viewer**; bots and UIs only ever see a view.
//!
//! Nothing here does I/O, reads a clock or draws OS randomness: randomness arrives as outcomes,
//! time arrives as the table layer's decision to apply [`Game::timeout_action`].

pub mod sim;

use crate::cards::{CardId, DeckSpec};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::fmt::Debug;

/// A seat number at the table, clockwise. Games with fewer players use a prefix or a subset.
pub type Seat = u8;

/// A game's name for one shuffled deck (a hand's deck, a reshuffled draw pile, a role deck...).
/// Unique for the whole episode: a new shuffle always takes a new id.
pub type DeckId = u32;

/// Who must move now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToAct {
    /// Exactly one seat.
    Seat(Seat),
    /// Several seats decide at once without seeing each other's choice (a face-down mark, a
    /// vote). Each acts once; [`Game::apply`] receives them in ascending seat order and lists the
    /// seats still to act here until all have.
    Sealed(Vec<Seat>),
    /// The crypto layer must fulfil these requests, all of them, in this order.
    Chance(Vec<ChanceRequest>),
    /// The episode is over; see [`Game::outcome`].
    Terminal,
}

impl ToAct {
    /// What the game waits for, in words ("seat 2 to move"), for messages a person reads.
    pub fn words(&self) -> String {
        match self {
            ToAct::Seat(s) => format!("seat {s} to move"),
            ToAct::Sealed(v) => format!(
                "{} to choose at once",
                v.iter()
                    .map(|s| format!("seat {s}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ToAct::Chance(_) => "the cards or dice to be dealt".into(),
            ToAct::Terminal => "nothing: the game is over".into(),
        }
    }

    /// The one seat to move, if one seat is to move.
    pub fn seat(&self) -> Option<Seat> {
        match self {
            ToAct::Seat(s) => Some(*s),
            _ => None,
        }
    }

    pub fn includes(&self, seat: Seat) -> bool {
        match self {
            ToAct::Seat(s) => *s == seat,
            ToAct::Sealed(v) => v.contains(&seat),
            _ => false,
        }
    }
}

/// Randomness a game asks for. Positions index a shuffled deck; position `p` of deck `d` names
/// the same physical card for every client.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChanceRequest {
    /// Deck `deck`, of this composition, freshly shuffled (positions `0..spec.len()`). Every
    /// participant shuffles it in turn; nobody knows the order.
    Shuffle { deck: DeckId, spec: DeckSpec },
    /// The card at `position` goes face down to the seats in `to` (one seat: a private card;
    /// several: a card shown to exactly those seats). Only they learn it.
    Deal {
        deck: DeckId,
        position: u16,
        to: Vec<Seat>,
    },
    /// The card at `position` is shown to everyone (a showdown, a face-up card). Whoever still
    /// holds it face down (its owners, or everybody for an undealt card) opens it.
    Reveal { deck: DeckId, position: u16 },
    /// `count` public dice with `sides` faces, rolled for `by` (the seat that asked, if any).
    RollPublic {
        sides: u8,
        count: u8,
        by: Option<Seat>,
    },
    /// `count` private dice that only `owner` learns until [`ChanceRequest::OpenPrivate`].
    RollPrivate { owner: Seat, sides: u8, count: u8 },
    /// Everyone learns the private dice `owner` rolled as its roll number `roll` (0-based count
    /// of that owner's private rolls).
    OpenPrivate { owner: Seat, roll: u32 },
    /// The card at `position` goes face down to `to` alone, every other key holder's token sealed
    /// to it (PROTOCOL.md §5.12): unlike [`ChanceRequest::Deal`], no token is published, so the
    /// same position can later be dealt the same way to other seats — each learns it only when
    /// it is dealt to it. Duplicate solitaire races deal every entrant the same deck so.
    DealSealed {
        deck: DeckId,
        position: u16,
        to: Seat,
    },
    /// `holder`, dealt `position` with [`ChanceRequest::DealSealed`], opens it for everyone by
    /// itself: it publishes its own token and every token sealed to it. No other key holder is
    /// needed — the card opens even when one of them has since left the table (PROTOCOL.md
    /// §5.12). The outcome is a [`ChanceOutcome::Revealed`].
    Show {
        deck: DeckId,
        position: u16,
        holder: Seat,
    },
    /// `owner` whispers its private roll number `roll` to whichever seat holds `card` of deck
    /// `deck` at one of `positions` — each a position dealt face down to exactly one seat other
    /// than `owner` — without learning which seat that is; nobody else learns the dice, nor who
    /// holds the card (PROTOCOL.md §5.11). Insider: the Master's word to the Insider.
    Whisper {
        owner: Seat,
        roll: u32,
        deck: DeckId,
        card: CardId,
        positions: Vec<u16>,
    },
    /// Everyone learns the dice `owner` whispered as roll `roll`, and every client checks that
    /// the whisper was honest: every letter opens to those dice and every seat that did not
    /// hold the card shows it could not read its letter. The cards at the whisper's positions
    /// must have been shown (`Reveal`) first.
    OpenWhisper { owner: Seat, roll: u32 },
}

impl ChanceRequest {
    fn kind_name(&self) -> &'static str {
        match self {
            ChanceRequest::Shuffle { .. } => "shuffle",
            ChanceRequest::Deal { .. } => "deal",
            ChanceRequest::DealSealed { .. } => "sealed deal",
            ChanceRequest::Reveal { .. } => "reveal",
            ChanceRequest::Show { .. } => "showing by its holder",
            ChanceRequest::RollPublic { .. } => "public roll",
            ChanceRequest::RollPrivate { .. } => "private roll",
            ChanceRequest::OpenPrivate { .. } => "opening of a private roll",
            ChanceRequest::Whisper { .. } => "whisper",
            ChanceRequest::OpenWhisper { .. } => "opening of a whisper",
        }
    }

    /// A card dealt face down to one seat.
    pub fn deal(deck: DeckId, position: u16, to: Seat) -> ChanceRequest {
        ChanceRequest::Deal {
            deck,
            position,
            to: vec![to],
        }
    }
}

/// The answer to one [`ChanceRequest`], in the same position of the batch.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChanceOutcome {
    Shuffled {
        deck: DeckId,
    },
    /// `card` is `Some` only in the recipients' states (and in full-information simulation).
    Dealt {
        deck: DeckId,
        position: u16,
        card: Option<CardId>,
    },
    Revealed {
        deck: DeckId,
        position: u16,
        card: CardId,
    },
    Rolled {
        values: Vec<u8>,
    },
    /// `values` is `Some` only in the owner's state (and in full-information simulation).
    RolledPrivate {
        owner: Seat,
        values: Option<Vec<u8>>,
    },
    Opened {
        owner: Seat,
        roll: u32,
        values: Vec<u8>,
    },
    /// `values` is `Some` only in the whisperer's and the card holder's states; `to` (the holder)
    /// only in full-information simulation, never on a table (the whisperer must not learn it).
    Whispered {
        owner: Seat,
        roll: u32,
        values: Option<Vec<u8>>,
        to: Option<Seat>,
    },
    WhisperOpened {
        owner: Seat,
        roll: u32,
        values: Vec<u8>,
    },
}

/// "3 rolls of a d6" is what a person reads when dice are wrong.
fn dice_words(values: &[u8], count: u8, sides: u8) -> Result<(), String> {
    if values.len() != count as usize || values.iter().any(|v| !(1..=sides).contains(v)) {
        let got: Vec<String> = values.iter().map(u8::to_string).collect();
        return Err(format!(
            "dice [{}] are not {count} roll(s) of a d{sides}",
            got.join(", ")
        ));
    }
    Ok(())
}

impl ChanceOutcome {
    /// Whether this outcome answers `req` in form: the kind of answer the request asks for, the
    /// same deck and position, owner and roll, and as many dice as asked, each within its sides.
    /// Every game's batch is checked so ([`check_chance_batch`]); what only the game knows (the
    /// composition of its decks, a card or dice it already holds) the game checks on top.
    pub fn answers(&self, req: &ChanceRequest) -> Result<(), String> {
        use ChanceOutcome as O;
        use ChanceRequest as R;
        let same = |what: &str, got: String, want: String| {
            if got == want {
                Ok(())
            } else {
                Err(format!("{what} {got} answers a request for {what} {want}"))
            }
        };
        match (req, self) {
            (R::Shuffle { deck, .. }, O::Shuffled { deck: d }) => {
                same("deck", d.to_string(), deck.to_string())
            }
            (
                R::Deal { deck, position, .. } | R::DealSealed { deck, position, .. },
                O::Dealt {
                    deck: d,
                    position: p,
                    ..
                },
            )
            | (
                R::Reveal { deck, position } | R::Show { deck, position, .. },
                O::Revealed {
                    deck: d,
                    position: p,
                    ..
                },
            ) => same(
                "deck position",
                format!("{d}/{p}"),
                format!("{deck}/{position}"),
            ),
            (R::RollPublic { sides, count, .. }, O::Rolled { values }) => {
                dice_words(values, *count, *sides)
            }
            (
                R::RollPrivate {
                    owner,
                    sides,
                    count,
                },
                O::RolledPrivate { owner: o, values },
            ) => {
                same("a roll of seat", o.to_string(), owner.to_string())?;
                values
                    .as_ref()
                    .map_or(Ok(()), |v| dice_words(v, *count, *sides))
            }
            (
                R::OpenPrivate { owner, roll },
                O::Opened {
                    owner: o, roll: r, ..
                },
            ) => same(
                "the opening of seat",
                format!("{o}'s roll {r}"),
                format!("{owner}'s roll {roll}"),
            ),
            (
                R::Whisper { owner, roll, .. },
                O::Whispered {
                    owner: o, roll: r, ..
                },
            )
            | (
                R::OpenWhisper { owner, roll },
                O::WhisperOpened {
                    owner: o, roll: r, ..
                },
            ) => same(
                "the whisper of seat",
                format!("{o}'s roll {r}"),
                format!("{owner}'s roll {roll}"),
            ),
            (r, o) => Err(format!(
                "a {} does not answer a {}",
                o.kind_name(),
                r.kind_name()
            )),
        }
    }

    fn kind_name(&self) -> &'static str {
        match self {
            ChanceOutcome::Shuffled { .. } => "shuffle",
            ChanceOutcome::Dealt { .. } => "deal",
            ChanceOutcome::Revealed { .. } => "reveal",
            ChanceOutcome::Rolled { .. } => "public roll",
            ChanceOutcome::RolledPrivate { .. } => "private roll",
            ChanceOutcome::Opened { .. } => "opening of a private roll",
            ChanceOutcome::Whispered { .. } => "whisper",
            ChanceOutcome::WhisperOpened { .. } => "opening of a whisper",
        }
    }

    /// What a client seated at `viewer` (or a spectator, `None`) learns of this outcome, given the
    /// request it answers.
    pub fn mask_for(&self, request: &ChanceRequest, viewer: Option<Seat>) -> ChanceOutcome {
        match (self, request) {
            (
                ChanceOutcome::Dealt {
                    deck,
                    position,
                    card,
                },
                ChanceRequest::Deal { to, .. },
            ) => ChanceOutcome::Dealt {
                deck: *deck,
                position: *position,
                card: if viewer.is_some_and(|v| to.contains(&v)) {
                    *card
                } else {
                    None
                },
            },
            (
                ChanceOutcome::Dealt {
                    deck,
                    position,
                    card,
                },
                ChanceRequest::DealSealed { to, .. },
            ) => ChanceOutcome::Dealt {
                deck: *deck,
                position: *position,
                card: if viewer == Some(*to) { *card } else { None },
            },
            (
                ChanceOutcome::Whispered {
                    owner,
                    roll,
                    values,
                    to,
                },
                _,
            ) => {
                let knows = viewer.is_some_and(|v| v == *owner || Some(v) == *to);
                ChanceOutcome::Whispered {
                    owner: *owner,
                    roll: *roll,
                    values: if knows { values.clone() } else { None },
                    to: None,
                }
            }
            (ChanceOutcome::RolledPrivate { owner, values }, _) => ChanceOutcome::RolledPrivate {
                owner: *owner,
                values: if viewer == Some(*owner) {
                    values.clone()
                } else {
                    None
                },
            },
            (o, _) => o.clone(),
        }
    }
}

/// Why the engine refused something. The state is unchanged whenever one of these is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum RuleError {
    #[error("seat {seat} may not act now ({expected})")]
    OutOfTurn { seat: Seat, expected: String },
    #[error("illegal action for seat {seat}: {reason}")]
    Illegal { seat: Seat, reason: String },
    #[error("chance outcome does not answer the pending request: {0}")]
    BadChance(String),
    #[error("the game is over")]
    Finished,
    #[error("invalid setup: {0}")]
    Setup(String),
}

impl RuleError {
    /// Why a move was refused, as the person who tried it reads it: without the seat number
    /// the protocol's message carries (it is their own move), e.g. "you cannot raise that much".
    pub fn words_for_mover(&self) -> String {
        match self {
            RuleError::Illegal { reason, .. } => reason.clone(),
            // What the table waits for is told by seat number; the screen already names whose
            // turn it is.
            RuleError::OutOfTurn { .. } => "it is not your turn".into(),
            other => other.to_string(),
        }
    }
}

/// The rule error of an illegal move by `seat`.
pub fn illegal(seat: Seat, reason: impl Into<String>) -> RuleError {
    RuleError::Illegal {
        seat,
        reason: reason.into(),
    }
}

/// Dice faces in words for messages ("3 and 2", "6, 6 and 1").
pub fn dice_text(values: &[u8]) -> String {
    match values {
        [] => "no dice".into(),
        [one] => one.to_string(),
        [init @ .., last] => format!(
            "{} and {last}",
            init.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// What every [`Game::forfeit`] checks first: the game is not over (`done`) and every offender
/// is among the seats still `playing`.
pub fn check_forfeit(done: bool, playing: &[Seat], offenders: &[Seat]) -> Result<(), RuleError> {
    if done {
        return Err(RuleError::Finished);
    }
    if let Some(o) = offenders.iter().find(|o| !playing.contains(o)) {
        return Err(RuleError::Setup(format!("seat {o} is not playing")));
    }
    Ok(())
}

/// Payoffs of a game that ended because the table removed `offenders` (PROTOCOL.md, forfeits):
/// each offender loses one point to every other seat, nobody else loses, and there is no winner.
pub fn forfeit_outcome(seats: &[Seat], offenders: &[Seat]) -> Outcome {
    let k = offenders.len() as i64;
    let others = seats.len() as i64 - k;
    Outcome {
        payoffs: seats
            .iter()
            .map(|s| (*s, if offenders.contains(s) { -others } else { k }))
            .collect(),
        winners: Vec::new(),
    }
}

/// Who acts in a game of turns: the pending chance batch first, nobody once `over`, else the
/// seat `on_turn` names.
pub fn chance_or_turn(
    pending: &[ChanceRequest],
    over: bool,
    on_turn: impl FnOnce() -> Seat,
) -> ToAct {
    if !pending.is_empty() {
        ToAct::Chance(pending.to_vec())
    } else if over {
        ToAct::Terminal
    } else {
        ToAct::Seat(on_turn())
    }
}

/// Payoffs of a game won by `winners` together, once `done`: every loser pays one point to
/// every winner, so they sum to zero; a game the table ended by removing seats pays as
/// [`forfeit_outcome`].
pub fn shared_win_outcome(
    done: bool,
    seats: &[Seat],
    winners: &[Seat],
    removed: &[Seat],
) -> Option<Outcome> {
    if !done {
        return None;
    }
    if !removed.is_empty() {
        return Some(forfeit_outcome(seats, removed));
    }
    let w = winners.len() as i64;
    let l = seats.len() as i64 - w;
    Some(Outcome {
        payoffs: seats
            .iter()
            .map(|s| (*s, if winners.contains(s) { l } else { -w }))
            .collect(),
        winners: winners.to_vec(),
    })
}

/// The seats a running game needs for its chance steps (key shares, dice): every seat still
/// seated; nobody once it is over.
pub fn participants(over: bool, seats: Vec<Seat>) -> Vec<Seat> {
    if over {
        Vec::new()
    } else {
        seats
    }
}

/// The seats of `players` not removed.
pub fn playing(players: u8, removed: &[Seat]) -> Vec<Seat> {
    (0..players).filter(|s| !removed.contains(s)).collect()
}

/// The offenders join the removed seats, each once, in seat order.
pub fn add_removed(removed: &mut Vec<Seat>, offenders: &[Seat]) {
    for o in offenders {
        if !removed.contains(o) {
            removed.push(*o);
        }
    }
    removed.sort_unstable();
}

/// A forfeit checked as [`check_forfeit`] and told in the game's record, one entry per
/// offender; what the removal does to the game is the game's own.
pub fn record_forfeit<E>(
    done: bool,
    playing: &[Seat],
    offenders: &[Seat],
    log: &mut Vec<E>,
    entry: impl Fn(Seat) -> E,
) -> Result<(), RuleError> {
    check_forfeit(done, playing, offenders)?;
    log.extend(offenders.iter().map(|o| entry(*o)));
    Ok(())
}

/// Checks that `outcomes` answer the `pending` batch one for one: each in form
/// ([`ChanceOutcome::answers`]), then by the game's own `check`; the common start of every
/// [`Game::apply_chance`]. Nothing is changed, so a refusal leaves the state as is.
pub fn check_chance_batch<F>(
    pending: &[ChanceRequest],
    outcomes: &[ChanceOutcome],
    check: F,
) -> Result<(), RuleError>
where
    F: Fn(&ChanceRequest, &ChanceOutcome) -> Result<(), String>,
{
    if pending.is_empty() {
        return Err(RuleError::BadChance("no chance request is pending".into()));
    }
    if outcomes.len() != pending.len() {
        return Err(RuleError::BadChance(format!(
            "{} outcomes for {} requests",
            outcomes.len(),
            pending.len()
        )));
    }
    for (req, out) in pending.iter().zip(outcomes) {
        out.answers(req).map_err(RuleError::BadChance)?;
        check(req, out).map_err(RuleError::BadChance)?;
    }
    Ok(())
}

/// The cards of `out` beyond its form: each of the deck's composition `spec`, and a revealed
/// card the one this client was dealt at that position (`known`), when it was dealt one. What
/// every card and tile game checks on top of [`ChanceOutcome::answers`].
pub fn check_cards(
    out: &ChanceOutcome,
    spec: &DeckSpec,
    known: impl Fn(u16) -> Option<CardId>,
) -> Result<(), String> {
    match out {
        ChanceOutcome::Dealt { card: Some(c), .. } => spec.check(*c).map_err(|e| e.to_string()),
        ChanceOutcome::Revealed { position, card, .. } => {
            spec.check(*card).map_err(|e| e.to_string())?;
            match known(*position) {
                Some(k) if k != *card => Err(format!(
                    "position {position} was dealt as {} but opened as {}",
                    spec.name(k),
                    spec.name(*card)
                )),
                _ => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// Why a seat is removed from the game (the table layer decides it from the log; the game
/// decides what it costs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitReason {
    /// Withheld a protocol step (a key share, a shuffle, a decryption token, a die, the opening
    /// of a sealed move) past its deadline: every other seat voted it missing.
    Withheld,
    /// Was timed out and then did not confirm it was still there: gone.
    Absent,
    /// Signed two different events for one step.
    Equivocated,
    /// Signed that it leaves the table.
    Left,
    /// Published a shuffle whose proof failed when its batch's shuffles were checked together
    /// (version 10).
    FailedProof,
}

impl ForfeitReason {
    /// Whether a game of many hands may keep the seat at the table, sitting out with what it
    /// has, instead of sending it away: absence (a crash, a dead link, leaving) is not cheating.
    /// A seat that equivocated or published a false proof is gone for good.
    pub fn sits_out(self) -> bool {
        !matches!(
            self,
            ForfeitReason::Equivocated | ForfeitReason::FailedProof
        )
    }

    /// Words for a person ("Ann withheld a protocol step").
    pub fn describe(self) -> &'static str {
        match self {
            ForfeitReason::Withheld => "withheld a protocol step past its deadline",
            ForfeitReason::Absent => "stopped answering",
            ForfeitReason::Equivocated => "signed two different events for one step",
            ForfeitReason::Left => "left the table",
            ForfeitReason::FailedProof => "published a shuffle whose proof failed",
        }
    }
}

/// Final result of an episode: chip (or point) change per seat, and the winners.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// `(seat, change)`; for chip games the changes sum to zero.
    pub payoffs: Vec<(Seat, i64)>,
    pub winners: Vec<Seat>,
}

/// One game's rules. An implementation is the whole state of one episode (a hand of Tolerance,
/// a game of Perudo) as one client knows it.
pub trait Game: Clone + Debug + PartialEq + Serialize + DeserializeOwned {
    /// Moves a seat can make. `Ord` gives the canonical order of [`Game::legal_actions`].
    type Action: Clone + Debug + Ord + Eq + std::hash::Hash + Serialize + DeserializeOwned;
    /// What one seat (or a spectator) sees.
    type View: Clone + Debug + PartialEq + Serialize;

    /// Stable game name used on the wire ("tolerance", "perudo", ...).
    const NAME: &'static str;

    fn to_act(&self) -> ToAct;

    /// The moves `seat` may make now, strictly ascending. Where a move takes an amount from a
    /// range (a no-limit raise), the list holds representative amounts (the minimum, the maximum
    /// and a few in between) and [`Game::apply`] accepts any amount in the range.
    fn legal_actions(&self, seat: Seat) -> Vec<Self::Action>;

    /// Applies a seat's move, or returns why not and leaves the state untouched.
    fn apply(&mut self, seat: Seat, action: &Self::Action) -> Result<(), RuleError>;

    /// Applies the answers to the pending chance batch, or returns why not (state untouched).
    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError>;

    /// What `viewer` may see; `None` is a spectator. Must depend only on what that viewer knows.
    fn view(&self, viewer: Option<Seat>) -> Self::View;

    /// The move made for a seat whose deadline passed (check or fold, pass, ...).
    fn timeout_action(&self, seat: Seat) -> Option<Self::Action>;

    /// The log's time (unix seconds) when the step the table is at opened: the time the step
    /// before completed, which every client derives alike from the signed log (PROTOCOL.md
    /// §4.4). Told at every step, never decreasing. A game with a timer keeps it (Insider's
    /// five minutes); the others ignore it. Engine-only play never tells it.
    fn clock(&mut self, now: u64) {
        let _ = now;
    }

    /// The result once [`ToAct::Terminal`].
    fn outcome(&self) -> Option<Outcome>;

    /// Game-specific invariants (chips conserved, card counts...). The harness calls it after
    /// every step.
    fn check_invariants(&self) -> Result<(), String> {
        Ok(())
    }

    /// Moves worth trying that may or may not be legal (the harness feeds them to `apply` to check
    /// that refusals change nothing). Defaults to the legal moves only.
    fn probe_actions(&self, seat: Seat) -> Vec<Self::Action> {
        self.legal_actions(seat)
    }

    /// Seats taking part in this episode, clockwise.
    fn seats(&self) -> Vec<Seat>;

    /// Seats that take part in the chance protocol from now on: each holds a share of every
    /// deck's key, shuffles it and contributes to every die. Every seat still in the game by
    /// default; a game whose eliminated players leave returns fewer.
    fn participants(&self) -> Vec<Seat> {
        self.seats()
    }

    /// Removes `offenders` (table seats, ascending) at the current point — the state when the
    /// step they failed opened — and settles what they had at stake. The game either goes on
    /// without them or ends ([`ToAct::Terminal`]); either way the offenders must not win. Decks
    /// dealt before a forfeit are dead afterwards (an offender's key share is gone): a game that
    /// goes on asks for a new [`ChanceRequest::Shuffle`] before dealing again.
    fn forfeit(&mut self, offenders: &[Seat], reason: ForfeitReason) -> Result<(), RuleError>;

    /// Whether a seat gone for absence sits out instead of leaving ([`Game::sitting_out`]).
    const SITS_OUT: bool = false;

    /// Whether the table should shuffle a spare of each new deck for the game's next request of
    /// the same deck (PROTOCOL §5.9): worth it for a game that deals hand after hand to the same
    /// players; wasted work for one that shuffles once.
    const SHUFFLES_AHEAD: bool = false;

    /// The first protocol version at whose tables [`Game::SHUFFLES_AHEAD`] holds: a game that
    /// came to prepare its decks ahead later keeps its older tables judged as they were played
    /// (which events carry `ahead` parts and which batches key their own decks).
    const SHUFFLES_AHEAD_SINCE: u8 = 0;

    /// Whether [`Game::clock`] may change what the game asks for. A move's event carries its
    /// mover's tokens for the chance batch the game asks for right after it (PROTOCOL §5.4,
    /// version 9), worked out before the event has a time; a game whose timer may change that
    /// batch when the log's time moves on (Insider) has its moves carry none.
    const KEEPS_TIME: bool = false;

    /// Cards of `seat`'s own that its sealed choice `action` shows once every choice is open
    /// (Lamarckian Poker's mark), by deck and position: from protocol version 9 its opening
    /// carries its tokens for those of them only it still owes a token for, so the batch that
    /// shows them has nothing left to wait for (PROTOCOL §6.2). None by default.
    fn shown_by(&self, seat: Seat, action: &Self::Action) -> Vec<(DeckId, u16)> {
        let _ = (seat, action);
        Vec::new()
    }

    /// Seats dealt out for now: a game of many episodes (hands) may keep a seat that forfeited
    /// for absence ([`ForfeitReason::sits_out`]) at the table with what it has, dealing it no
    /// hand until [`Game::sit_in`]. Ascending. None by default: the forfeit removed them.
    fn sitting_out(&self) -> Vec<Seat> {
        Vec::new()
    }

    /// Whether dealing `seats` (sitting out) in again would let a game that is over only because
    /// fewer than two seats are dealt in go on: the table then waits for them before it ends
    /// (PROTOCOL §7.10). No by default.
    fn resumes_with(&self, seats: &[Seat]) -> bool {
        let _ = seats;
        false
    }

    /// Deals `seats` (sitting out) back in from the next episode the game starts (also when the
    /// game is over only for want of players and [`Game::resumes_with`] them). Games without
    /// sitting out refuse.
    fn sit_in(&mut self, seats: &[Seat]) -> Result<(), RuleError> {
        match seats.first() {
            None => Ok(()),
            Some(s) => Err(illegal(
                *s,
                "this game deals nobody back in: a seat that left is gone",
            )),
        }
    }

    fn is_terminal(&self) -> bool {
        matches!(self.to_act(), ToAct::Terminal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outcome_must_answer_its_request_in_form_and_says_why_not_in_words() {
        let deal = ChanceRequest::deal(3, 7, 1);
        let dealt = |deck, position| ChanceOutcome::Dealt {
            deck,
            position,
            card: None,
        };
        assert_eq!(dealt(3, 7).answers(&deal), Ok(()));
        let wrong = dealt(3, 8).answers(&deal).unwrap_err();
        assert_eq!(
            wrong,
            "deck position 3/8 answers a request for deck position 3/7"
        );
        let kind = ChanceOutcome::Shuffled { deck: 3 }
            .answers(&deal)
            .unwrap_err();
        assert_eq!(kind, "a shuffle does not answer a deal");
        let roll = ChanceRequest::RollPublic {
            sides: 6,
            count: 2,
            by: None,
        };
        assert_eq!(
            ChanceOutcome::Rolled { values: vec![1, 6] }.answers(&roll),
            Ok(())
        );
        for bad in [vec![1], vec![0, 3], vec![2, 7]] {
            let e = ChanceOutcome::Rolled { values: bad }
                .answers(&roll)
                .unwrap_err();
            assert!(
                e.contains("are not 2 roll(s) of a d6") && !e.contains("Some("),
                "{e}"
            );
        }
        // A batch is refused on form before the game's own check is asked.
        let r = check_chance_batch(&[deal], &[dealt(4, 7)], |_, _| Ok(()));
        assert!(matches!(r, Err(RuleError::BadChance(_))), "{r:?}");
    }

    #[test]
    fn a_card_must_be_of_the_deck_and_what_was_dealt() {
        let spec = DeckSpec::standard(1);
        let revealed = |card| ChanceOutcome::Revealed {
            deck: 0,
            position: 2,
            card: CardId(card),
        };
        assert_eq!(
            check_cards(&revealed(5), &spec, |_| Some(CardId(5))),
            Ok(())
        );
        assert!(check_cards(&revealed(5), &spec, |_| Some(CardId(6)))
            .unwrap_err()
            .contains("was dealt as"));
        assert!(check_cards(&revealed(60), &spec, |_| None).is_err());
    }
}
