//! High Card with one draw: the project's toy game, small enough to read in one sitting and
//! exercising every kind of chance and decision the table runtime offers — a first player by
//! lot, one private card each, a face-up discard with a private redraw, a sealed stay-or-fold
//! decision everyone makes at once, a showdown that opens only the stayers' cards, forfeits.
//! Rules: `protocol/rules/high-card.md`.

use crate::cards::{CardId, DeckSpec, PlayingCard};
use crate::engine::illegal;
use crate::engine::{
    ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat, ToAct,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Draw phase: keep the card.
    Keep,
    /// Draw phase: discard the card face up and draw a new one face down.
    Swap,
    /// Sealed decision: stay in for the showdown.
    Stay,
    /// Sealed decision: drop out, paying one point to the winner.
    Fold,
}

impl Action {
    pub fn word(self) -> &'static str {
        match self {
            Action::Keep => "keep",
            Action::Swap => "swap",
            Action::Stay => "stay",
            Action::Fold => "fold",
        }
    }
}

/// The table's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub players: u8,
    #[serde(default = "default_rounds")]
    pub rounds: u32,
    #[serde(default = "default_points")]
    pub points: i64,
}

fn default_rounds() -> u32 {
    3
}
fn default_points() -> i64 {
    20
}

impl Setup {
    pub fn new(players: u8) -> Setup {
        Setup {
            players,
            rounds: default_rounds(),
            points: default_points(),
        }
    }

    pub fn validate(&self) -> Result<(), RuleError> {
        if !(2..=6).contains(&self.players) {
            return Err(RuleError::Setup(format!(
                "High Card seats 2 to 6 players, not {}",
                self.players
            )));
        }
        if !(1..=100).contains(&self.rounds) {
            return Err(RuleError::Setup(format!(
                "a game has 1 to 100 rounds, not {}",
                self.rounds
            )));
        }
        if !(1..=1_000_000).contains(&self.points) {
            return Err(RuleError::Setup(format!(
                "players start with 1 to 1000000 points, not {}",
                self.points
            )));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Phase {
    /// Cards (and, in the first round, the first player's lot) are on their way.
    Deal,
    /// Seat number `turn` in turn order keeps or swaps.
    Draw {
        turn: usize,
    },
    /// Everyone still in decides, sealed.
    Decide,
    /// The stayers' cards are being opened.
    Showdown,
    Done,
}

/// A card in a player's hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub position: u16,
    /// `None` where this client may not know it.
    pub card: Option<CardId>,
    pub shown: bool,
}

/// The public record, for views and histories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "what")]
pub enum Entry {
    First { seat: Seat },
    Kept { seat: Seat },
    Swapped { seat: Seat, discarded: CardId },
    Decided { seat: Seat, action: Action },
    Shown { seat: Seat, card: CardId },
    Won { seat: Seat, points: i64 },
    Forfeited { seat: Seat, points: i64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HighCard {
    pub setup: Setup,
    /// Players still in the game, ascending.
    pub active: Vec<Seat>,
    pub points: BTreeMap<Seat, i64>,
    /// Round number, from 0; also the round's deck id.
    pub round: u32,
    /// Who starts the round's draw phase.
    pub first: Option<Seat>,
    pub phase: Phase,
    pub hands: BTreeMap<Seat, Held>,
    /// Sealed decisions, kept out of every view until all are in.
    decisions: BTreeMap<Seat, Action>,
    next_position: u16,
    pending: Vec<ChanceRequest>,
    pub log: Vec<Entry>,
}

fn rank(card: CardId) -> (u8, crate::cards::Suit) {
    let c = PlayingCard::from_id(card);
    // Ace high; ties by suit, clubs lowest, spades highest.
    (if c.rank == 1 { 14 } else { c.rank }, c.suit)
}

impl HighCard {
    pub fn new(setup: &Setup) -> Result<HighCard, RuleError> {
        setup.validate()?;
        let active: Vec<Seat> = (0..setup.players).collect();
        let mut g = HighCard {
            points: active.iter().map(|s| (*s, setup.points)).collect(),
            active,
            setup: setup.clone(),
            round: 0,
            first: None,
            phase: Phase::Deal,
            hands: BTreeMap::new(),
            decisions: BTreeMap::new(),
            next_position: 0,
            pending: Vec::new(),
            log: Vec::new(),
        };
        g.deal();
        Ok(g)
    }

    fn deck(&self) -> DeckId {
        self.round
    }

    /// A new round: a fresh deck, one card each, and in the first round the lot.
    fn deal(&mut self) {
        self.phase = Phase::Deal;
        self.hands.clear();
        self.decisions.clear();
        self.next_position = 0;
        self.pending.push(ChanceRequest::Shuffle {
            deck: self.deck(),
            spec: DeckSpec::standard(1),
        });
        if self.first.is_none() {
            self.pending.push(ChanceRequest::RollPublic {
                sides: self.active.len() as u8,
                count: 1,
                by: None,
            });
        }
        for i in 0..self.active.len() {
            let seat = self.active[i];
            let position = self.next_position;
            self.next_position += 1;
            self.pending
                .push(ChanceRequest::deal(self.deck(), position, seat));
        }
    }

    /// Turn order of the round: clockwise from the first player.
    pub fn order(&self) -> Vec<Seat> {
        let first = self.first.unwrap_or(self.active[0]);
        let k = self.active.iter().position(|s| *s == first).unwrap_or(0);
        self.active[k..]
            .iter()
            .chain(&self.active[..k])
            .copied()
            .collect()
    }

    fn after_draw_turn(&mut self, turn: usize) {
        if turn + 1 < self.active.len() {
            self.phase = Phase::Draw { turn: turn + 1 };
        } else {
            self.phase = Phase::Decide;
        }
    }

    fn all_decided(&mut self) {
        for (seat, action) in &self.decisions {
            self.log.push(Entry::Decided {
                seat: *seat,
                action: *action,
            });
        }
        let stayers: Vec<Seat> = self
            .decisions
            .iter()
            .filter(|(_, a)| **a == Action::Stay)
            .map(|(s, _)| *s)
            .collect();
        if stayers.len() >= 2 {
            self.phase = Phase::Showdown;
            for s in stayers {
                let position = self.hands[&s].position;
                self.pending.push(ChanceRequest::Reveal {
                    deck: self.deck(),
                    position,
                });
            }
        } else {
            // One stayer wins unseen; nobody staying means nobody pays.
            self.settle(stayers.first().copied());
        }
    }

    /// Pays the round: folders give the winner one point, losing stayers two.
    fn settle(&mut self, winner: Option<Seat>) {
        if let Some(w) = winner {
            let mut won = 0;
            for (seat, action) in self.decisions.clone() {
                if seat == w {
                    continue;
                }
                let pay = if action == Action::Stay { 2 } else { 1 };
                *self.points.get_mut(&seat).expect("a player") -= pay;
                won += pay;
            }
            *self.points.get_mut(&w).expect("a player") += won;
            self.log.push(Entry::Won {
                seat: w,
                points: won,
            });
        }
        self.next_round();
    }

    fn next_round(&mut self) {
        self.round += 1;
        if self.round >= self.setup.rounds || self.active.len() < 2 {
            self.phase = Phase::Done;
            self.pending.clear();
            return;
        }
        // The first player moves one seat clockwise among those still in.
        let first = self.first.unwrap_or(self.active[0]);
        self.first = Some(
            self.active
                .iter()
                .copied()
                .find(|s| *s > first)
                .unwrap_or(self.active[0]),
        );
        self.deal();
    }

    /// The card a seat holds, if this client knows it.
    pub fn card_of(&self, seat: Seat) -> Option<CardId> {
        self.hands.get(&seat).and_then(|h| h.card)
    }

    fn mover(&self) -> Option<Seat> {
        match self.phase {
            Phase::Draw { turn } => self.order().get(turn).copied(),
            _ => None,
        }
    }
}

/// What one seat (or a spectator) sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HighCardView {
    pub viewer: Option<Seat>,
    pub round: u32,
    pub rounds: u32,
    pub phase: Phase,
    pub points: Vec<(Seat, i64)>,
    pub active: Vec<Seat>,
    pub first: Option<Seat>,
    pub to_act: Vec<Seat>,
    /// Every hand: the card where this viewer may see it (its own, or shown).
    pub hands: Vec<(Seat, Option<CardId>)>,
    /// Whether each seat has made its sealed decision (not what it chose).
    pub decided: Vec<Seat>,
    pub legal: Vec<Action>,
    pub log: Vec<Entry>,
}

impl Game for HighCard {
    type Action = Action;
    type View = HighCardView;
    const NAME: &'static str = "high-card";

    fn to_act(&self) -> ToAct {
        if !self.pending.is_empty() {
            return ToAct::Chance(self.pending.clone());
        }
        match self.phase {
            Phase::Draw { .. } => ToAct::Seat(self.mover().expect("a draw turn")),
            Phase::Decide => ToAct::Sealed(
                self.active
                    .iter()
                    .copied()
                    .filter(|s| !self.decisions.contains_key(s))
                    .collect(),
            ),
            Phase::Done => ToAct::Terminal,
            Phase::Deal | Phase::Showdown => unreachable!("chance is pending in these phases"),
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if !self.pending.is_empty() {
            return Vec::new();
        }
        match self.phase {
            Phase::Draw { .. } if self.mover() == Some(seat) => vec![Action::Keep, Action::Swap],
            Phase::Decide if self.active.contains(&seat) && !self.decisions.contains_key(&seat) => {
                vec![Action::Stay, Action::Fold]
            }
            _ => Vec::new(),
        }
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        if !self.legal_actions(seat).contains(action) {
            return Err(match self.phase {
                Phase::Done => RuleError::Finished,
                _ if self.legal_actions(seat).is_empty() => RuleError::OutOfTurn {
                    seat,
                    expected: match self.to_act() {
                        ToAct::Seat(s) => format!("seat {s} to keep or swap"),
                        ToAct::Sealed(v) => format!("{} seats to decide", v.len()),
                        _ => "the cards".into(),
                    },
                },
                _ => illegal(seat, format!("{} is not allowed now", action.word())),
            });
        }
        match (self.phase, action) {
            (Phase::Draw { turn }, Action::Keep) => {
                self.log.push(Entry::Kept { seat });
                self.after_draw_turn(turn);
            }
            (Phase::Draw { .. }, Action::Swap) => {
                // The discard is opened for everyone, the new card dealt face down.
                let old = self.hands[&seat].position;
                let position = self.next_position;
                self.next_position += 1;
                self.pending.push(ChanceRequest::Reveal {
                    deck: self.deck(),
                    position: old,
                });
                self.pending
                    .push(ChanceRequest::deal(self.deck(), position, seat));
            }
            (Phase::Decide, a) => {
                self.decisions.insert(seat, *a);
                if self.decisions.len() == self.active.len() {
                    self.all_decided();
                }
            }
            _ => unreachable!("checked by legal_actions"),
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        crate::engine::check_chance_batch(&self.pending, outcomes, |_, o| {
            crate::engine::check_cards(o, &DeckSpec::standard(1), |p| {
                self.hands
                    .values()
                    .find(|h| h.position == p)
                    .and_then(|h| h.card)
            })
        })?;
        let pending = std::mem::take(&mut self.pending);
        match self.phase {
            Phase::Deal => {
                for (req, out) in pending.iter().zip(outcomes) {
                    match (req, out) {
                        (ChanceRequest::RollPublic { .. }, ChanceOutcome::Rolled { values }) => {
                            let first = self.active[(values[0] as usize - 1) % self.active.len()];
                            self.first = Some(first);
                            self.log.push(Entry::First { seat: first });
                        }
                        (
                            ChanceRequest::Deal { to, .. },
                            ChanceOutcome::Dealt { position, card, .. },
                        ) => {
                            self.hands.insert(
                                to[0],
                                Held {
                                    position: *position,
                                    card: *card,
                                    shown: false,
                                },
                            );
                        }
                        _ => {}
                    }
                }
                self.phase = Phase::Draw { turn: 0 };
            }
            Phase::Draw { turn } => {
                let seat = self.mover().expect("a draw turn");
                let mut discarded = None;
                for (req, out) in pending.iter().zip(outcomes) {
                    match (req, out) {
                        (ChanceRequest::Reveal { .. }, ChanceOutcome::Revealed { card, .. }) => {
                            discarded = Some(*card)
                        }
                        (
                            ChanceRequest::Deal { .. },
                            ChanceOutcome::Dealt { position, card, .. },
                        ) => {
                            self.hands.insert(
                                seat,
                                Held {
                                    position: *position,
                                    card: *card,
                                    shown: false,
                                },
                            );
                        }
                        _ => {}
                    }
                }
                self.log.push(Entry::Swapped {
                    seat,
                    discarded: discarded.expect("a swap opens the discard"),
                });
                self.after_draw_turn(turn);
            }
            Phase::Showdown => {
                for out in outcomes {
                    if let ChanceOutcome::Revealed { position, card, .. } = out {
                        if let Some((seat, h)) =
                            self.hands.iter_mut().find(|(_, h)| h.position == *position)
                        {
                            h.card = Some(*card);
                            h.shown = true;
                            self.log.push(Entry::Shown {
                                seat: *seat,
                                card: *card,
                            });
                        }
                    }
                }
                let winner = self
                    .hands
                    .iter()
                    .filter(|(_, h)| h.shown)
                    .max_by_key(|(_, h)| rank(h.card.expect("shown")))
                    .map(|(s, _)| *s);
                self.settle(winner);
            }
            Phase::Decide | Phase::Done => unreachable!("no chance in this phase"),
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> HighCardView {
        let hidden_decisions = matches!(self.phase, Phase::Decide);
        HighCardView {
            viewer,
            round: self.round,
            rounds: self.setup.rounds,
            phase: self.phase,
            points: self.points.iter().map(|(s, p)| (*s, *p)).collect(),
            active: self.active.clone(),
            first: self.first,
            to_act: match self.to_act() {
                ToAct::Seat(s) => vec![s],
                ToAct::Sealed(v) => v,
                _ => Vec::new(),
            },
            hands: self
                .hands
                .iter()
                .map(|(s, h)| {
                    let visible = h.shown || viewer == Some(*s);
                    (*s, if visible { h.card } else { None })
                })
                .collect(),
            decided: if hidden_decisions {
                Vec::new()
            } else {
                self.decisions.keys().copied().collect()
            },
            legal: viewer.map(|v| self.legal_actions(v)).unwrap_or_default(),
            log: self.log.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        match self.phase {
            Phase::Draw { .. } if self.mover() == Some(seat) => Some(Action::Keep),
            Phase::Decide if self.legal_actions(seat).contains(&Action::Fold) => Some(Action::Fold),
            _ => None,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Done {
            return None;
        }
        let start = self.setup.points;
        let best = self
            .active
            .iter()
            .map(|s| self.points[s])
            .max()
            .unwrap_or(start);
        Some(Outcome {
            payoffs: self.points.iter().map(|(s, p)| (*s, p - start)).collect(),
            winners: self
                .active
                .iter()
                .copied()
                .filter(|s| self.points[s] == best)
                .collect(),
        })
    }

    fn check_invariants(&self) -> Result<(), String> {
        let total: i64 = self.points.values().sum();
        let start = self.setup.points * i64::from(self.setup.players);
        if total != start {
            return Err(format!("points not conserved: {total}, expected {start}"));
        }
        let mut positions: Vec<u16> = self.hands.values().map(|h| h.position).collect();
        positions.sort_unstable();
        positions.dedup();
        if positions.len() != self.hands.len() {
            return Err("two players hold one card".into());
        }
        Ok(())
    }

    fn seats(&self) -> Vec<Seat> {
        self.active.clone()
    }

    fn participants(&self) -> Vec<Seat> {
        if self.phase == Phase::Done {
            Vec::new()
        } else {
            self.active.clone()
        }
    }

    fn forfeit(&mut self, offenders: &[Seat], _reason: ForfeitReason) -> Result<(), RuleError> {
        crate::engine::check_forfeit(self.phase == Phase::Done, &self.active, offenders)?;
        // The round stops; each offender pays two points to the others, odd points to the
        // lowest seats; the offenders leave.
        let others: Vec<Seat> = self
            .active
            .iter()
            .copied()
            .filter(|s| !offenders.contains(s))
            .collect();
        for o in offenders {
            if others.is_empty() {
                break;
            }
            *self.points.get_mut(o).expect("a player") -= 2;
            self.log.push(Entry::Forfeited {
                seat: *o,
                points: 2,
            });
            let n = others.len() as i64;
            for (k, s) in others.iter().enumerate() {
                *self.points.get_mut(s).expect("a player") += 2 / n + i64::from((k as i64) < 2 % n);
            }
        }
        self.active = others;
        self.pending.clear();
        self.hands.clear();
        self.decisions.clear();
        if self.first.is_some_and(|f| offenders.contains(&f)) {
            self.first = self.active.first().copied();
        }
        self.next_round();
        Ok(())
    }
}
