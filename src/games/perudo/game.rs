//! One game of Perudo, as one client knows it.
//!
//! Decisions the seed leaves open are written, with reasons, in `protocol/rules/perudo.md`; the
//! section names (§) are cited next to the code that follows them.

use crate::engine::illegal;
use crate::engine::{ChanceOutcome, ChanceRequest, Game, Outcome, RuleError, Seat, ToAct};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SIDES: u8 = 6;
pub const MIN_PLAYERS: usize = 2;
pub const MAX_PLAYERS: usize = 10;
pub const MAX_DICE_EACH: u8 = 10;

/// A claim that at least `quantity` dice on the table show `face` (ones counting as any face
/// outside a Putana round).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Bid {
    pub quantity: u16,
    pub face: u8,
}

/// A face in the plural, as bids read ("threes").
pub fn face_name(face: u8) -> &'static str {
    match face {
        1 => "ones",
        2 => "twos",
        3 => "threes",
        4 => "fours",
        5 => "fives",
        _ => "sixes",
    }
}

impl std::fmt::Display for Bid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.quantity == 1 {
            let one = match self.face {
                1 => "one",
                2 => "two",
                3 => "three",
                4 => "four",
                5 => "five",
                _ => "six",
            };
            write!(f, "1 {one}")
        } else {
            write!(f, "{} {}", self.quantity, face_name(self.face))
        }
    }
}

/// A move in Perudo. `Ord` (bids by quantity then face, then "dudo") is the canonical order of
/// the legal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Bid(Bid),
    /// "I don't believe": every cup is opened and the last bid is counted.
    Dudo,
}

/// Who plays and with how many dice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// Seats clockwise.
    pub seats: Vec<Seat>,
    /// Dice each player starts with (§Equipment: 5).
    pub dice_each: u8,
    /// The seat that opens the first round; `None` tosses for it with a public die (§First
    /// round).
    pub first: Option<Seat>,
    /// The next round's cups are rolled in the batch that opens this round's (protocol version
    /// 8, PROTOCOL.md §5.8): no pass of their own between a challenge and the next bid. The
    /// table's version says it, not the wire (`TableGame::at_version`); tables of older
    /// versions roll after the count, as they were played.
    #[serde(skip, default = "crate::games::dice::rolls_with_opening_now")]
    pub rolls_with_opening: bool,
}

impl Setup {
    pub fn standard(players: u8) -> Setup {
        Setup {
            seats: (0..players).collect(),
            dice_each: 5,
            first: None,
            rolls_with_opening: crate::games::dice::rolls_with_opening_now(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub seat: Seat,
    /// Dice still in this player's cup; 0 is out.
    pub dice_left: u8,
    /// This round's dice: `Some` only where this client may know them (the owner, or everyone
    /// after a challenge opened the cups).
    pub dice: Option<Vec<u8>>,
    /// Private rolls made so far; the current one is number `rolls - 1`.
    pub rolls: u32,
    /// Dice in the current roll: the cup is its first `dice_left` (one more when the roll was
    /// made with the opening before this player lost a die).
    #[serde(default)]
    pub rolled: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Waiting for the toss and/or the round's private rolls.
    Rolling,
    Bidding,
    /// Waiting for every cup to be opened after a "dudo".
    Opening,
    Done,
}

/// A public record of what happened, for views, UIs and replays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogEntry {
    Toss {
        first: Seat,
    },
    Round {
        round: u32,
        opener: Seat,
        putana: bool,
    },
    Bid {
        seat: Seat,
        bid: Bid,
    },
    Dudo {
        seat: Seat,
        against: Seat,
    },
    Shown {
        seat: Seat,
        dice: Vec<u8>,
    },
    /// The challenged bid was counted: `count` dice matched it.
    Counted {
        bid: Bid,
        count: u16,
        loser: Seat,
    },
    Out {
        seat: Seat,
    },
    Won {
        seat: Seat,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Perudo {
    pub dice_each: u8,
    /// Clockwise.
    pub players: Vec<Player>,
    pub phase: Phase,
    /// 1-based round number (0 before the first roll).
    pub round: u32,
    /// Index of the player who opened this round.
    opener: usize,
    /// Index of the player to act.
    actor: usize,
    pub bid: Option<Bid>,
    /// Index of the player who made `bid`.
    bidder: usize,
    /// Index of the player who said "dudo", while the cups open.
    challenger: usize,
    pub putana: bool,
    /// [`Setup::rolls_with_opening`].
    #[serde(default)]
    rolls_with_opening: bool,
    pending: Vec<ChanceRequest>,
    pub log: Vec<LogEntry>,
    /// Seats removed by the table for withholding a step or equivocating: the game ended there
    /// with them as the losers and no winner (rules §Forfeit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forfeited: Vec<Seat>,
}

/// Whether `new` may follow `prev` (§Bids). Errors say what a legal raise would need.
pub fn check_bid(prev: Option<Bid>, new: Bid, putana: bool, total: u16) -> Result<(), String> {
    if !(1..=SIDES).contains(&new.face) {
        return Err(format!("face {} is not a face of a d6", new.face));
    }
    if new.quantity == 0 || new.quantity > total {
        return Err(format!(
            "quantity {} is outside 1..={total} (the dice on the table)",
            new.quantity
        ));
    }
    let Some(p) = prev else {
        // §Opening bid: in a Putana round ones are an ordinary face, so they may open it.
        return if new.face == 1 && !putana {
            Err("the first bid of a round may not be ones".into())
        } else {
            Ok(())
        };
    };
    if putana {
        return if new.face != p.face {
            Err(format!("the face is fixed at {} in a Putana round", p.face))
        } else if new.quantity <= p.quantity {
            Err(format!("raise the quantity above {}", p.quantity))
        } else {
            Ok(())
        };
    }
    match (p.face == 1, new.face == 1) {
        (false, false) => {
            if new.quantity >= p.quantity && new.face >= p.face && new != p {
                Ok(())
            } else {
                Err(format!(
                    "after {p} raise the quantity, the face or both, lowering neither"
                ))
            }
        }
        (false, true) => {
            let min = p.quantity.div_ceil(2);
            if new.quantity >= min {
                Ok(())
            } else {
                Err(format!("after {p} a bid on ones needs at least {min}"))
            }
        }
        (true, true) => {
            if new.quantity > p.quantity {
                Ok(())
            } else {
                Err(format!("after {p} bid more than {} ones", p.quantity))
            }
        }
        (true, false) => {
            let min = 2 * p.quantity + 1;
            if new.quantity >= min {
                Ok(())
            } else {
                Err(format!(
                    "after {p} a bid on another face needs at least {min}"
                ))
            }
        }
    }
}

/// Dice among `dice` that count for `bid` (§Counting).
pub fn count_for(bid: Bid, putana: bool, dice: impl IntoIterator<Item = u8>) -> u16 {
    dice.into_iter()
        .filter(|&d| d == bid.face || (!putana && d == 1))
        .count() as u16
}

impl Perudo {
    pub fn new(setup: &Setup) -> Result<Perudo, RuleError> {
        let n = setup.seats.len();
        let first = crate::games::dice::check_seating(
            "Perudo",
            &setup.seats,
            MIN_PLAYERS,
            MAX_PLAYERS,
            setup.first,
        )?;
        if !(1..=MAX_DICE_EACH).contains(&setup.dice_each) {
            return Err(RuleError::Setup(format!(
                "dice_each must be 1..={MAX_DICE_EACH}, not {}",
                setup.dice_each
            )));
        }
        let mut game = Perudo {
            dice_each: setup.dice_each,
            players: setup
                .seats
                .iter()
                .map(|&seat| Player {
                    seat,
                    dice_left: setup.dice_each,
                    dice: None,
                    rolls: 0,
                    rolled: 0,
                })
                .collect(),
            phase: Phase::Rolling,
            round: 0,
            opener: first.unwrap_or(0),
            actor: 0,
            bid: None,
            bidder: 0,
            challenger: 0,
            putana: false,
            rolls_with_opening: setup.rolls_with_opening,
            pending: Vec::new(),
            log: Vec::new(),
            forfeited: Vec::new(),
        };
        if first.is_none() {
            // §First round: the toss rides in the same batch as the first rolls.
            game.pending.push(ChanceRequest::RollPublic {
                sides: n as u8,
                count: 1,
                by: None,
            });
        }
        game.queue_rolls();
        Ok(game)
    }

    fn queue_rolls(&mut self) {
        self.phase = Phase::Rolling;
        self.roll_cups();
    }

    /// A private roll of every cup still in play, each of as many dice as it holds now.
    fn roll_cups(&mut self) {
        for p in &self.players {
            if p.dice_left > 0 {
                self.pending.push(ChanceRequest::RollPrivate {
                    owner: p.seat,
                    sides: SIDES,
                    count: p.dice_left,
                });
            }
        }
    }

    pub fn player(&self, seat: Seat) -> Option<&Player> {
        self.players.iter().find(|p| p.seat == seat)
    }

    /// The player in `seat`, which the chance outcomes being applied were checked to name.
    fn player_mut(&mut self, seat: Seat) -> &mut Player {
        self.players
            .iter_mut()
            .find(|p| p.seat == seat)
            .expect("outcomes name seated players")
    }

    /// Dice still on the table.
    pub fn total_dice(&self) -> u16 {
        self.players.iter().map(|p| p.dice_left as u16).sum()
    }

    pub fn alive(&self) -> usize {
        self.players.iter().filter(|p| p.dice_left > 0).count()
    }

    pub fn bidder(&self) -> Option<Seat> {
        self.bid.map(|_| self.players[self.bidder].seat)
    }

    pub fn opener(&self) -> Seat {
        self.players[self.opener].seat
    }

    /// The next player clockwise after index `i` who still has dice.
    fn next_alive(&self, i: usize) -> usize {
        let n = self.players.len();
        (1..=n)
            .map(|k| (i + k) % n)
            .find(|&j| self.players[j].dice_left > 0)
            .expect("two players have dice while the game runs")
    }

    fn check_turn(&self, seat: Seat) -> Result<(), RuleError> {
        if self.phase == Phase::Done {
            return Err(RuleError::Finished);
        }
        if self.phase == Phase::Bidding && self.players[self.actor].seat == seat {
            Ok(())
        } else {
            Err(RuleError::OutOfTurn {
                seat,
                expected: self.to_act().words(),
            })
        }
    }

    fn validate(&self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        self.check_turn(seat)?;
        match action {
            Action::Dudo if self.bid.is_none() => Err(illegal(
                seat,
                "nothing to doubt: the round's first move is a bid",
            )),
            Action::Dudo => Ok(()),
            Action::Bid(b) => check_bid(self.bid, *b, self.putana, self.total_dice())
                .map_err(|e| illegal(seat, e)),
        }
    }

    /// Beyond the form every batch is checked for ([`ChanceOutcome::answers`]): an opened cup
    /// holds the player's number of dice, of faces 1 to 6, and is the cup it rolled.
    fn check_outcome(&self, out: &ChanceOutcome) -> Result<(), String> {
        let ChanceOutcome::Opened { owner, values, .. } = out else {
            return Ok(());
        };
        let p = self.player(*owner).expect("requests name seated players");
        if values.len() != p.rolled as usize
            || p.rolled < p.dice_left
            || values.iter().any(|d| !(1..=SIDES).contains(d))
        {
            return Err(format!(
                "seat {owner} opened {}, not {} d6",
                crate::engine::dice_text(values),
                p.rolled
            ));
        }
        let cup = &values[..p.dice_left as usize];
        match &p.dice {
            Some(known) if known != cup => Err(format!(
                "seat {owner} rolled {} but opened {}",
                crate::engine::dice_text(known),
                crate::engine::dice_text(cup)
            )),
            _ => Ok(()),
        }
    }

    /// Counts the challenged bid, takes a die from the loser and starts the next round (§Dudo):
    /// with the cups in `next` (rolled with the opening: each seat's count and, for its owner,
    /// the dice), or by rolling them now.
    fn settle_challenge(&mut self, mut next: BTreeMap<Seat, (u8, Option<Vec<u8>>)>) {
        let bid = self.bid.expect("a challenge follows a bid");
        let count = count_for(
            bid,
            self.putana,
            self.players
                .iter()
                .filter_map(|p| p.dice.as_ref())
                .flatten()
                .copied(),
        );
        // §Dudo: an exact count upholds the bid.
        let loser = if count < bid.quantity {
            self.bidder
        } else {
            self.challenger
        };
        self.log.push(LogEntry::Counted {
            bid,
            count,
            loser: self.players[loser].seat,
        });
        let p = &mut self.players[loser];
        p.dice_left -= 1;
        let left = p.dice_left;
        if left == 0 {
            self.log.push(LogEntry::Out { seat: p.seat });
        }
        if self.alive() == 1 {
            let w = self.players.iter().find(|p| p.dice_left > 0).expect("one");
            self.log.push(LogEntry::Won { seat: w.seat });
            self.phase = Phase::Done;
            return;
        }
        // §Next round: the loser opens it, or the next player with dice if the loser is out.
        // §Putana: dropping to a single die makes the next round a Putana round.
        self.putana = left == 1;
        self.opener = if left == 0 {
            self.next_alive(loser)
        } else {
            loser
        };
        self.bid = None;
        for p in &mut self.players {
            p.dice = None;
        }
        if next.is_empty() {
            // Not rolled with the opening (a table before version 8, or a count that could
            // have ended the game): rolled now.
            self.queue_rolls();
            return;
        }
        // The cups rolled with the opening: a player who lost a die keeps the first ones.
        for p in self.players.iter_mut().filter(|p| p.dice_left > 0) {
            let (count, dice) = next.remove(&p.seat).expect("every cup in play was rolled");
            p.rolled = count;
            p.dice = dice.map(|d| d[..p.dice_left as usize].to_vec());
        }
        self.begin_round();
    }

    /// Whether the challenge being counted could end the game: two players left, and the
    /// bidder or the challenger would go out by losing.
    fn count_may_end(&self) -> bool {
        self.alive() == 2
            && (self.players[self.bidder].dice_left == 1
                || self.players[self.challenger].dice_left == 1)
    }

    fn begin_round(&mut self) {
        self.round += 1;
        self.phase = Phase::Bidding;
        self.actor = self.opener;
        self.log.push(LogEntry::Round {
            round: self.round,
            opener: self.players[self.opener].seat,
            putana: self.putana,
        });
    }
}

impl Game for Perudo {
    type Action = Action;
    type View = PerudoView;
    const NAME: &'static str = "perudo";

    fn to_act(&self) -> ToAct {
        let over = self.phase == Phase::Done;
        crate::engine::chance_or_turn(&self.pending, over, || self.players[self.actor].seat)
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if self.check_turn(seat).is_err() {
            return Vec::new();
        }
        let total = self.total_dice();
        let mut v: Vec<Action> = (1..=total)
            .flat_map(|quantity| (1..=SIDES).map(move |face| Bid { quantity, face }))
            .filter(|b| check_bid(self.bid, *b, self.putana, total).is_ok())
            .map(Action::Bid)
            .collect();
        if self.bid.is_some() {
            v.push(Action::Dudo);
        }
        v
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        self.validate(seat, action)?;
        match action {
            Action::Bid(b) => {
                self.log.push(LogEntry::Bid { seat, bid: *b });
                self.bid = Some(*b);
                self.bidder = self.actor;
                self.actor = self.next_alive(self.actor);
            }
            Action::Dudo => {
                self.log.push(LogEntry::Dudo {
                    seat,
                    against: self.players[self.bidder].seat,
                });
                self.challenger = self.actor;
                self.phase = Phase::Opening;
                for p in &self.players {
                    if p.dice_left > 0 {
                        self.pending.push(ChanceRequest::OpenPrivate {
                            owner: p.seat,
                            roll: p.rolls - 1,
                        });
                    }
                }
                // The next round's cups in the same batch, unless this count may end the game:
                // their values are owed by every participant, as a roll after the count would
                // be, and each owner can work its dice out only once the cups are opening, when
                // no decision of this round is left. A count that may end the game rolls
                // nothing, so that no seat, one already out included, owes a part of that pass
                // after it could see who wins.
                if self.rolls_with_opening && !self.count_may_end() {
                    self.roll_cups();
                }
            }
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        crate::engine::check_chance_batch(&self.pending, outcomes, |_, o| self.check_outcome(o))?;
        let counts: BTreeMap<Seat, u8> = self
            .pending
            .iter()
            .filter_map(|r| match r {
                ChanceRequest::RollPrivate { owner, count, .. } => Some((*owner, *count)),
                _ => None,
            })
            .collect();
        self.pending.clear();
        match self.phase {
            Phase::Rolling => {
                for out in outcomes {
                    match out {
                        ChanceOutcome::Rolled { values } => {
                            self.opener = values[0] as usize - 1;
                            self.log.push(LogEntry::Toss {
                                first: self.players[self.opener].seat,
                            });
                        }
                        ChanceOutcome::RolledPrivate { owner, values } => {
                            let p = self.player_mut(*owner);
                            p.dice = values.clone();
                            p.rolls += 1;
                            p.rolled = counts[owner];
                        }
                        _ => unreachable!("checked"),
                    }
                }
                self.begin_round();
            }
            Phase::Opening => {
                let mut next = BTreeMap::new();
                for out in outcomes {
                    match out {
                        ChanceOutcome::Opened { owner, values, .. } => {
                            let p = self.player_mut(*owner);
                            let cup = values[..p.dice_left as usize].to_vec();
                            p.dice = Some(cup.clone());
                            self.log.push(LogEntry::Shown {
                                seat: *owner,
                                dice: cup,
                            });
                        }
                        ChanceOutcome::RolledPrivate { owner, values } => {
                            let p = self.player_mut(*owner);
                            p.rolls += 1;
                            next.insert(*owner, (counts[owner], values.clone()));
                        }
                        _ => unreachable!("checked"),
                    }
                }
                self.settle_challenge(next);
            }
            Phase::Bidding | Phase::Done => unreachable!("no chance pending in this phase"),
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> PerudoView {
        PerudoView::of(self, viewer)
    }

    /// §Timeouts: doubt the standing bid, or open with the lowest bid.
    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        self.check_turn(seat).ok()?;
        if self.bid.is_some() {
            Some(Action::Dudo)
        } else {
            self.legal_actions(seat).into_iter().next()
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        let last = self
            .players
            .iter()
            .find(|p| p.dice_left > 0)
            .map(|p| p.seat);
        let over = self.phase == Phase::Done;
        crate::games::dice::outcome(over, &self.seats(), &self.forfeited, last)
    }

    fn check_invariants(&self) -> Result<(), String> {
        let alive = self.alive();
        let ended = self.phase == Phase::Done && self.forfeited.is_empty();
        if alive == 0 || (alive == 1) != ended {
            return Err(format!(
                "{alive} players with dice in phase {:?}",
                self.phase
            ));
        }
        for p in &self.players {
            if p.dice_left > self.dice_each {
                return Err(format!("seat {} has {} dice", p.seat, p.dice_left));
            }
            if let Some(d) = &p.dice {
                if d.len() != p.dice_left as usize && self.phase != Phase::Done {
                    return Err(format!(
                        "seat {} holds {d:?} with {} dice",
                        p.seat, p.dice_left
                    ));
                }
            }
        }
        if let (Some(b), true) = (self.bid, self.phase != Phase::Done) {
            check_bid(None, b, true, self.total_dice())
                .map_err(|e| format!("standing bid {b:?}: {e}"))?;
        }
        if self.phase == Phase::Bidding && self.players[self.actor].dice_left == 0 {
            return Err("a player without dice is to act".into());
        }
        Ok(())
    }

    fn probe_actions(&self, _seat: Seat) -> Vec<Action> {
        let total = self.total_dice();
        let mut v = vec![
            Action::Dudo,
            Action::Bid(Bid {
                quantity: 0,
                face: 2,
            }),
            Action::Bid(Bid {
                quantity: 1,
                face: 0,
            }),
            Action::Bid(Bid {
                quantity: 1,
                face: 7,
            }),
            Action::Bid(Bid {
                quantity: 1,
                face: 1,
            }),
            Action::Bid(Bid {
                quantity: total + 1,
                face: 6,
            }),
        ];
        if let Some(b) = self.bid {
            v.push(Action::Bid(b));
            v.push(Action::Bid(Bid {
                quantity: b.quantity.saturating_sub(1),
                face: 6,
            }));
            v.push(Action::Bid(Bid {
                quantity: b.quantity + 1,
                face: b.face.saturating_sub(1).max(2),
            }));
            v.push(Action::Bid(Bid {
                quantity: b.quantity.div_ceil(2).saturating_sub(1),
                face: 1,
            }));
            v.push(Action::Bid(Bid {
                quantity: 2 * b.quantity,
                face: 4,
            }));
        }
        v
    }

    crate::games::dice::seat_methods!();
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayerView {
    pub seat: Seat,
    pub dice_left: u8,
    /// The viewer's own dice, or anyone's once a challenge opened the cups.
    pub dice: Option<Vec<u8>>,
}

/// What one seat (or a spectator) sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PerudoView {
    pub viewer: Option<Seat>,
    pub phase: Phase,
    pub round: u32,
    pub putana: bool,
    pub total_dice: u16,
    pub players: Vec<PlayerView>,
    pub bid: Option<Bid>,
    pub bidder: Option<Seat>,
    pub to_act: Option<Seat>,
    /// The viewer's legal moves now (empty unless it is the viewer's turn).
    pub legal: Vec<Action>,
    pub log: Vec<LogEntry>,
    pub winner: Option<Seat>,
}

impl PerudoView {
    pub fn of(g: &Perudo, viewer: Option<Seat>) -> PerudoView {
        // Cups opened by a challenge stay in the log; the state keeps them only at the end, and
        // then only those the last round's challenge opened: a table ended by a forfeit while
        // the cups opened must not show what this client alone knows (its own cup) as public.
        let since_round = g
            .log
            .iter()
            .rposition(|l| matches!(l, LogEntry::Round { .. }))
            .map_or(0, |i| i + 1);
        let opened = |seat: Seat| {
            g.phase == Phase::Done
                && g.log[since_round..]
                    .iter()
                    .any(|l| matches!(l, LogEntry::Shown { seat: s, .. } if *s == seat))
        };
        PerudoView {
            viewer,
            phase: g.phase,
            round: g.round,
            putana: g.putana,
            total_dice: g.total_dice(),
            players: g
                .players
                .iter()
                .map(|p| PlayerView {
                    seat: p.seat,
                    dice_left: p.dice_left,
                    dice: if viewer == Some(p.seat) || opened(p.seat) {
                        p.dice.clone()
                    } else {
                        None
                    },
                })
                .collect(),
            bid: g.bid,
            bidder: g.bidder(),
            to_act: g.to_act().seat(),
            legal: viewer.map(|v| g.legal_actions(v)).unwrap_or_default(),
            log: g.log.clone(),
            winner: g.outcome().and_then(|o| o.winners.first().copied()),
        }
    }

    pub fn me(&self) -> Option<&PlayerView> {
        let v = self.viewer?;
        self.players.iter().find(|p| p.seat == v)
    }
}
