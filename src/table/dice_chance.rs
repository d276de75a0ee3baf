//! Fair dice for the dice-only games (Perudo, Mia): how every client — and a spectator —
//! answers the engine's chance requests from public reveals, without a dealer.
//!
//! This is the transport-free core of the networked dice session: the messages in [`Public`]
//! are what relays would carry, in the order the engine asks. It owns no game rules: it maps
//! [`ChanceRequest`]s to [`fair::dice`](crate::fair::dice) rolls.
//!
//! - Every seat commits once per game to a Merkle tree of slot values
//!   ([`DiceSecret`]); the commitments are public before the first roll.
//! - Chance batch *b* uses slots `b·(n+1) + i`: slot `i < n` for seat *i*'s private roll,
//!   slot `n` for the batch's public roll (the toss). Every client computes the same plan from
//!   the public batch number, and no slot is ever used twice.
//! - Public roll: every seat reveals its slot value; everyone derives the dice.
//! - Private roll for seat *o*: every other seat reveals; *o* alone can add its own secret value
//!   and derive the dice. Nobody else can: the dice are a hash of all values, and *o*'s value
//!   is a committed 32-byte secret.
//! - Opening: *o* reveals its value for that same slot; everyone re-derives and the engine
//!   refuses an opening that differs from what *o* saw.
//! - A seat that withholds a reveal it owes is named by [`DiceError::Withheld`]; the table layer
//!   settles it by timeout votes (`protocol/PROTOCOL.md` §12.3).

use crate::engine::{ChanceOutcome, ChanceRequest, Seat};
use crate::fair::dice::{
    missing_seats, open_private_roll, private_roll, public_roll, verify_reveal, DiceCommitment,
    DiceReveal, DiceSecret, Roll, VerifiedValue,
};
use crate::fair::{Context, FairError, Step};
use std::collections::BTreeMap;

/// Slots each seat commits to per game: enough for 16384 / (n + 1) chance batches.
pub const SLOTS: u32 = 1 << 14;

/// What relays carry for the dice, and all a spectator ever sees of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Public {
    Commit {
        seat: u16,
        commitment: DiceCommitment,
    },
    Reveal {
        seat: u16,
        reveal: DiceReveal,
    },
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DiceError {
    /// These seats owe a reveal for the pending batch and have not given it: their forfeit.
    #[error("seats {seats:?} withheld their dice reveals")]
    Withheld { seats: Vec<u16> },
    #[error("seat {seat}: {source}")]
    Bad {
        seat: u16,
        #[source]
        source: FairError,
    },
    #[error("{0}")]
    Protocol(String),
}

/// One request of a batch with the roll it uses and the seats that must reveal for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub request: ChanceRequest,
    pub roll: Roll,
    pub revealers: Vec<u16>,
}

/// One participant's dice bookkeeping: a seat (with its secret) or a spectator (without).
pub struct DiceClient {
    table: [u8; 32],
    game: u64,
    /// Game seats in table order; a seat's index is its fair-dice seat number.
    seats: Vec<Seat>,
    actors: Vec<[u8; 32]>,
    me: Option<(u16, DiceSecret)>,
    commitments: Vec<Option<DiceCommitment>>,
    batch: u32,
    /// The roll used by each owner's private roll number, for its opening.
    private_rolls: BTreeMap<(u16, u32), Roll>,
    rolls_made: Vec<u32>,
    values: BTreeMap<(u16, u32), VerifiedValue>,
}

impl DiceClient {
    /// `actors` are the seats' public keys in table order; `me` is this client's seat index and
    /// its secret, `None` for a spectator.
    pub fn new(
        table: [u8; 32],
        game: u64,
        seats: Vec<Seat>,
        actors: Vec<[u8; 32]>,
        me: Option<(u16, DiceSecret)>,
    ) -> Result<DiceClient, DiceError> {
        if seats.len() != actors.len() || seats.is_empty() {
            return Err(DiceError::Protocol("one actor key per seat".into()));
        }
        let n = seats.len();
        Ok(DiceClient {
            table,
            game,
            seats,
            actors,
            me,
            commitments: vec![None; n],
            batch: 0,
            private_rolls: BTreeMap::new(),
            rolls_made: vec![0; n],
            values: BTreeMap::new(),
        })
    }

    /// Forgets every commitment and reveal, keeping the seats and this client's secret: the
    /// session replays the log from the start when a timeout or a fork voids what it applied.
    pub fn restart(&mut self) {
        let n = self.seats.len();
        self.commitments = vec![None; n];
        self.batch = 0;
        self.private_rolls.clear();
        self.rolls_made = vec![0; n];
        self.values.clear();
    }

    /// The dice context of seat `i` (what its commitment and reveals are bound to).
    pub fn context(table: [u8; 32], game: u64, i: u16, actor: [u8; 32]) -> Context {
        Context::new(table, game, i, actor).with_step(Step::Dice)
    }

    fn ctx(&self, i: u16) -> Context {
        Self::context(self.table, self.game, i, self.actors[i as usize])
    }

    fn index(&self, seat: Seat) -> Result<u16, DiceError> {
        self.seats
            .iter()
            .position(|s| *s == seat)
            .map(|i| i as u16)
            .ok_or_else(|| DiceError::Protocol(format!("seat {seat} is not at this table")))
    }

    /// Tree depth of seat `i`'s commitment (0 before it committed), to decode its reveals.
    pub fn depth(&self, i: u16) -> u8 {
        self.commitments
            .get(i as usize)
            .copied()
            .flatten()
            .map_or(0, |c| c.slots().trailing_zeros() as u8)
    }

    /// This client's commitment message (seats only).
    pub fn commit(&self) -> Option<Public> {
        self.me.as_ref().map(|(i, s)| Public::Commit {
            seat: *i,
            commitment: s.commitment(),
        })
    }

    /// The rolls and revealers of a batch. Every client computes the same plan.
    pub fn plan(&self, requests: &[ChanceRequest]) -> Result<Vec<Planned>, DiceError> {
        let n = self.seats.len() as u16;
        let base = self
            .batch
            .checked_mul(u32::from(n) + 1)
            .filter(|b| b + u32::from(n) < SLOTS)
            .ok_or_else(|| DiceError::Protocol("the game used up its dice slots".into()))?;
        let mut rolls_made = self.rolls_made.clone();
        requests
            .iter()
            .map(|r| {
                let (roll, revealers) = match r {
                    ChanceRequest::RollPublic { sides, count, .. } => (
                        Roll {
                            table: self.table,
                            hand: self.game,
                            slot: base + u32::from(n),
                            seats: n,
                            owner: None,
                            sides: *sides,
                            count: *count,
                        },
                        (0..n).collect(),
                    ),
                    ChanceRequest::RollPrivate {
                        owner,
                        sides,
                        count,
                    } => {
                        let o = self.index(*owner)?;
                        rolls_made[o as usize] += 1;
                        (
                            Roll {
                                table: self.table,
                                hand: self.game,
                                slot: base + u32::from(o),
                                seats: n,
                                owner: Some(o),
                                sides: *sides,
                                count: *count,
                            },
                            (0..n).filter(|s| *s != o).collect(),
                        )
                    }
                    ChanceRequest::OpenPrivate { owner, roll } => {
                        let o = self.index(*owner)?;
                        let r = *self.private_rolls.get(&(o, *roll)).ok_or_else(|| {
                            DiceError::Protocol(format!("seat {owner} has no private roll {roll}"))
                        })?;
                        (r, vec![o])
                    }
                    other => {
                        return Err(DiceError::Protocol(format!(
                            "{other:?} is not a dice request"
                        )))
                    }
                };
                Ok(Planned {
                    request: r.clone(),
                    roll,
                    revealers,
                })
            })
            .collect()
    }

    /// The reveals this client owes for a planned batch.
    pub fn my_reveals(&self, plan: &[Planned]) -> Vec<Public> {
        let Some((i, secret)) = &self.me else {
            return Vec::new();
        };
        plan.iter()
            .filter(|p| p.revealers.contains(i))
            .map(|p| Public::Reveal {
                seat: *i,
                reveal: secret
                    .reveal(p.roll.slot)
                    .expect("planned slots fit the tree"),
            })
            .collect()
    }

    /// Takes in a public message: commitments before the game, reveals during it. A reveal that
    /// does not match its seat's commitment is refused, naming the seat.
    pub fn receive(&mut self, msg: &Public) -> Result<(), DiceError> {
        match msg {
            Public::Commit { seat, commitment } => {
                let slot = self
                    .commitments
                    .get_mut(*seat as usize)
                    .ok_or_else(|| DiceError::Protocol(format!("no seat {seat}")))?;
                if slot.is_some() {
                    return Err(DiceError::Protocol(format!("seat {seat} committed twice")));
                }
                if commitment.slots() < SLOTS {
                    return Err(DiceError::Protocol(format!(
                        "seat {seat} committed to {} slots, fewer than {SLOTS}",
                        commitment.slots()
                    )));
                }
                *slot = Some(*commitment);
            }
            Public::Reveal { seat, reveal } => {
                let commitment = self
                    .commitments
                    .get(*seat as usize)
                    .copied()
                    .flatten()
                    .ok_or_else(|| DiceError::Protocol(format!("seat {seat} has not committed")))?;
                let v = verify_reveal(&self.ctx(*seat), &commitment, reveal).map_err(|source| {
                    DiceError::Bad {
                        seat: *seat,
                        source,
                    }
                })?;
                self.values.insert((*seat, reveal.slot), v);
            }
        }
        Ok(())
    }

    fn values_for(&self, slot: u32) -> Vec<VerifiedValue> {
        self.values
            .iter()
            .filter(|((_, s), _)| *s == slot)
            .map(|(_, v)| *v)
            .collect()
    }

    /// The outcomes this client may know for a planned batch, once every reveal it owes has
    /// arrived, or the seats still owing one. Advances the batch counter on success.
    pub fn answer(&mut self, plan: &[Planned]) -> Result<Vec<ChanceOutcome>, DiceError> {
        if self.commitments.iter().any(Option::is_none) {
            return Err(DiceError::Protocol("not every seat has committed".into()));
        }
        let mut missing: Vec<u16> = Vec::new();
        for p in plan {
            let have = self.values_for(p.roll.slot);
            missing.extend(
                p.revealers
                    .iter()
                    .filter(|s| !have.iter().any(|v| v.seat() == **s)),
            );
        }
        if !missing.is_empty() {
            missing.sort_unstable();
            missing.dedup();
            return Err(DiceError::Withheld { seats: missing });
        }
        let bad = |seat: u16| move |source| DiceError::Bad { seat, source };
        let mut outs = Vec::with_capacity(plan.len());
        for p in plan {
            let values = self.values_for(p.roll.slot);
            outs.push(match &p.request {
                ChanceRequest::RollPublic { .. } => ChanceOutcome::Rolled {
                    values: public_roll(&p.roll, &values).map_err(bad(0))?,
                },
                ChanceRequest::RollPrivate { owner, .. } => {
                    let o = p.roll.owner.expect("private");
                    debug_assert!(missing_seats(&p.roll, &values).is_empty());
                    let known = match &self.me {
                        Some((i, secret)) if *i == o => {
                            let others: Vec<VerifiedValue> =
                                values.into_iter().filter(|v| v.seat() != o).collect();
                            Some(private_roll(&p.roll, secret, &others).map_err(bad(o))?)
                        }
                        _ => None,
                    };
                    ChanceOutcome::RolledPrivate {
                        owner: *owner,
                        values: known,
                    }
                }
                ChanceRequest::OpenPrivate { owner, roll } => ChanceOutcome::Opened {
                    owner: *owner,
                    roll: *roll,
                    values: open_private_roll(&p.roll, &values)
                        .map_err(bad(p.roll.owner.expect("private")))?,
                },
                other => {
                    return Err(DiceError::Protocol(format!(
                        "{other:?} is not a dice request"
                    )))
                }
            });
        }
        // The batch is settled: remember private rolls for their openings.
        for p in plan {
            if let (ChanceRequest::RollPrivate { .. }, Some(o)) = (&p.request, p.roll.owner) {
                let n = self.rolls_made[o as usize];
                self.private_rolls.insert((o, n), p.roll);
                self.rolls_made[o as usize] += 1;
            }
        }
        self.batch += 1;
        Ok(outs)
    }
}

#[cfg(test)]
mod tests;
