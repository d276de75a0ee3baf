//! A Tolerance table across hands: stacks, the rotating Dealer, blind levels, and the
//! tournament or cash style (rules §Styles). Pure, like the hand.

use super::hand::{Hand, HandRules, HandSetup, Phase};
use super::variant::{Style, Variant, VariantError};
use crate::engine::{DeckId, Seat};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    #[error(transparent)]
    Variant(#[from] VariantError),
    #[error("seat {0} does not exist at this table")]
    NoSuchSeat(Seat),
    #[error("seat {0} is already taken")]
    SeatTaken(Seat),
    #[error("seat {0} is empty")]
    SeatEmpty(Seat),
    #[error("a stack of {stack} is outside this table's buy-in limits {min}..={max}")]
    BuyIn { stack: u64, min: u64, max: u64 },
    #[error("players join, leave or top up only at a cash table")]
    NotCash,
    #[error("the table needs at least two players with chips")]
    TooFewPlayers,
    #[error("the hand is not finished")]
    HandNotDone,
    #[error("the hand does not belong to this table's next hand")]
    WrongHand,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub variant: Variant,
    /// Index = seat number; `None` = empty seat.
    pub stacks: Vec<Option<u64>>,
    /// Dealer of the previous hand (`None` before the first hand).
    pub last_dealer: Option<Seat>,
    /// Dealer of the first hand, chosen by shared randomness at the table layer.
    pub first_dealer: Seat,
    pub hands_played: u64,
    /// Chips brought to the table and taken away (cash), so conservation can be checked.
    pub chips_in: u64,
    pub chips_out: u64,
    /// Seats that keep their stacks but are dealt no hand until they come back (PROTOCOL §7.10):
    /// they post no blinds and the Dealer button passes them by.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub sitting_out: BTreeSet<Seat>,
}

impl Table {
    /// A table with the given seats occupied. Tournament stacks are all `starting_stack`; cash
    /// players bring `stacks` (or the default buy-in when `None`).
    pub fn new(
        variant: Variant,
        players: &[(Seat, Option<u64>)],
        first_dealer: Seat,
    ) -> Result<Table, TableError> {
        variant.validate()?;
        let mut t = Table {
            stacks: vec![None; variant.seats as usize],
            variant,
            last_dealer: None,
            first_dealer,
            hands_played: 0,
            chips_in: 0,
            chips_out: 0,
            sitting_out: BTreeSet::new(),
        };
        for (seat, stack) in players {
            let stack = match t.variant.style {
                Style::Tournament { .. } => t.variant.starting_stack,
                Style::Cash { .. } => stack.unwrap_or(t.variant.starting_stack),
            };
            t.seat_player(*seat, stack)?;
        }
        if t.stacks.get(first_dealer as usize).is_none() {
            return Err(TableError::NoSuchSeat(first_dealer));
        }
        Ok(t)
    }

    fn seat_player(&mut self, seat: Seat, stack: u64) -> Result<(), TableError> {
        let slot = self
            .stacks
            .get_mut(seat as usize)
            .ok_or(TableError::NoSuchSeat(seat))?;
        if slot.is_some() {
            return Err(TableError::SeatTaken(seat));
        }
        if let Style::Cash {
            min_buy_in,
            max_buy_in,
        } = self.variant.style
        {
            if !(min_buy_in..=max_buy_in).contains(&stack) {
                return Err(TableError::BuyIn {
                    stack,
                    min: min_buy_in,
                    max: max_buy_in,
                });
            }
        }
        *slot = Some(stack);
        self.chips_in += stack;
        Ok(())
    }

    fn cash(&self) -> Result<(u64, u64), TableError> {
        match self.variant.style {
            Style::Cash {
                min_buy_in,
                max_buy_in,
            } => Ok((min_buy_in, max_buy_in)),
            Style::Tournament { .. } => Err(TableError::NotCash),
        }
    }

    /// Cash: a new player sits down between hands.
    pub fn join(&mut self, seat: Seat, stack: u64) -> Result<(), TableError> {
        self.cash()?;
        self.seat_player(seat, stack)
    }

    /// Cash: a player leaves between hands, taking its stack.
    pub fn leave(&mut self, seat: Seat) -> Result<u64, TableError> {
        self.cash()?;
        let slot = self
            .stacks
            .get_mut(seat as usize)
            .ok_or(TableError::NoSuchSeat(seat))?;
        let stack = slot.take().ok_or(TableError::SeatEmpty(seat))?;
        self.chips_out += stack;
        Ok(stack)
    }

    /// Cash: add chips between hands, up to the maximum buy-in (rules §No chips).
    pub fn top_up(&mut self, seat: Seat, amount: u64) -> Result<(), TableError> {
        let (_, max) = self.cash()?;
        let slot = self
            .stacks
            .get_mut(seat as usize)
            .ok_or(TableError::NoSuchSeat(seat))?;
        let stack = slot.as_mut().ok_or(TableError::SeatEmpty(seat))?;
        let new = stack.saturating_add(amount);
        if new > max || amount == 0 {
            return Err(TableError::BuyIn {
                stack: new,
                min: *stack + 1,
                max,
            });
        }
        *stack = new;
        self.chips_in += amount;
        Ok(())
    }

    /// Seats dealt into the next hand: occupied, with chips, not sitting out, clockwise by seat
    /// number.
    pub fn active_seats(&self) -> Vec<(Seat, u64)> {
        self.with_chips()
            .into_iter()
            .filter(|(s, _)| !self.sitting_out.contains(s))
            .collect()
    }

    /// Seats with chips, sitting out or not.
    pub fn with_chips(&self) -> Vec<(Seat, u64)> {
        self.stacks
            .iter()
            .enumerate()
            .filter_map(|(s, st)| st.filter(|&c| c > 0).map(|c| (s as Seat, c)))
            .collect()
    }

    pub fn is_over(&self) -> bool {
        self.active_seats().len() < 2
    }

    /// Tournament winner once one player has every chip.
    pub fn winner(&self) -> Option<Seat> {
        match self.with_chips().as_slice() {
            [(s, _)] if matches!(self.variant.style, Style::Tournament { .. }) => Some(*s),
            _ => None,
        }
    }

    pub fn total_chips(&self) -> u64 {
        self.stacks.iter().flatten().sum()
    }

    /// The next hand: Dealer moves one active seat clockwise from the previous Dealer.
    pub fn next_hand(&self) -> Result<HandSetup, TableError> {
        let seats = self.active_seats();
        if seats.len() < 2 {
            return Err(TableError::TooFewPlayers);
        }
        let n = self.stacks.len();
        let from = match self.last_dealer {
            None => self.first_dealer as usize,
            Some(d) => d as usize + 1,
        };
        let dealer = (0..n)
            .map(|k| ((from + k) % n) as Seat)
            .find(|s| seats.iter().any(|(x, _)| x == s))
            .expect("at least two active seats");
        let v = &self.variant;
        Ok(HandSetup {
            hand_no: self.hands_played,
            deck: self.hands_played as DeckId,
            dealer,
            rules: HandRules {
                die_sides: v.die_sides,
                blind: v.blind_at(self.hands_played),
                betting: v.betting,
                super_ace: v.super_ace,
                card_again: v.card_again,
                decks: v.decks_for(seats.len() as u8),
            },
            seats,
        })
    }

    /// Takes a finished hand's stacks. Tournament players left with nothing are out; cash
    /// players with nothing sit out until they top up or leave.
    pub fn record(&mut self, hand: &Hand) -> Result<(), TableError> {
        if hand.phase != Phase::Done {
            return Err(TableError::HandNotDone);
        }
        if hand.hand_no != self.hands_played {
            return Err(TableError::WrongHand);
        }
        for p in &hand.players {
            match self.stacks.get(p.seat as usize) {
                Some(Some(s)) if *s == p.start_stack => {}
                _ => return Err(TableError::WrongHand),
            }
        }
        for p in &hand.players {
            self.stacks[p.seat as usize] = Some(p.stack);
            if p.stack == 0 && matches!(self.variant.style, Style::Tournament { .. }) {
                self.stacks[p.seat as usize] = None;
            }
        }
        self.last_dealer = Some(hand.dealer());
        self.hands_played += 1;
        Ok(())
    }
}

/// One player's position in a hand ended by forfeit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForfeitSeat {
    pub seat: Seat,
    pub start_stack: u64,
    pub committed: u64,
    pub folded: bool,
}

/// The stacks after a hand ended by forfeit of `offenders` (protocol spec §Forfeit), in the order
/// of `players` (clockwise from the Starter): every other player gets back what it put in; the
/// offenders' chips in the pot are shared equally among the others still in the hand (or, if
/// none, all others), odd chips one at a time clockwise from the Starter; if everyone offended,
/// everyone keeps its starting stack.
pub fn settle_forfeit(players: &[ForfeitSeat], offenders: &[Seat]) -> Vec<(Seat, u64)> {
    let forfeited: u64 = players
        .iter()
        .filter(|p| offenders.contains(&p.seat))
        .map(|p| p.committed)
        .sum();
    let mut takers: Vec<Seat> = players
        .iter()
        .filter(|p| !offenders.contains(&p.seat) && !p.folded)
        .map(|p| p.seat)
        .collect();
    if takers.is_empty() {
        takers = players
            .iter()
            .filter(|p| !offenders.contains(&p.seat))
            .map(|p| p.seat)
            .collect();
    }
    let mut finals = Vec::new();
    for p in players {
        let mut stack = p.start_stack - p.committed;
        if !offenders.contains(&p.seat) {
            stack += p.committed;
            if let Some(k) = takers.iter().position(|s| *s == p.seat) {
                let n = takers.len() as u64;
                stack += forfeited / n + u64::from((k as u64) < forfeited % n);
            }
        }
        finals.push((p.seat, stack));
    }
    if takers.is_empty() && forfeited > 0 {
        // Everybody offended at once: chips go back to their owners rather than vanish.
        for (f, p) in finals.iter_mut().zip(players) {
            f.1 = p.start_stack;
        }
    }
    finals
}

impl Table {
    /// Ends hand `hand_no` by forfeit (protocol spec §Forfeit): a player withheld a protocol step
    /// or equivocated. Every other player gets back what it put in; the offenders' chips in the
    /// pot are shared equally among the others still in the hand (or, if none, all others), odd
    /// chips one at a time clockwise from the Starter; the offenders then leave the table with
    /// what they have left — or, with `sit_out`, keep it at the table and sit out. `players` is
    /// clockwise from the Starter. Returns the final stacks.
    pub fn record_forfeit(
        &mut self,
        hand_no: u64,
        dealer: Seat,
        players: &[ForfeitSeat],
        offenders: &[Seat],
        sit_out: bool,
    ) -> Result<Vec<(Seat, u64)>, TableError> {
        if hand_no != self.hands_played {
            return Err(TableError::WrongHand);
        }
        for p in players {
            match self.stacks.get(p.seat as usize) {
                Some(Some(s)) if *s == p.start_stack && p.committed <= p.start_stack => {}
                _ => return Err(TableError::WrongHand),
            }
        }
        let finals = settle_forfeit(players, offenders);
        for (seat, stack) in &finals {
            self.stacks[*seat as usize] = Some(*stack);
        }
        for seat in offenders {
            if sit_out {
                self.sitting_out.insert(*seat);
                continue;
            }
            if let Some(slot) = self.stacks.get_mut(*seat as usize) {
                if let Some(left) = slot.take() {
                    self.chips_out += left;
                }
            }
        }
        self.last_dealer = Some(dealer);
        self.hands_played += 1;
        Ok(finals)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{play_out, Oracle};
    use rand::{rngs::StdRng, seq::SliceRandom, SeedableRng};

    #[test]
    fn forfeit_returns_bets_and_shares_the_offenders_chips() {
        let mut t = Table::new(Variant::default(), &[(0, None), (1, None), (2, None)], 0).unwrap();
        let fs = |seat, committed, folded| ForfeitSeat {
            seat,
            start_stack: 1000,
            committed,
            folded,
        };
        let finals = t
            .record_forfeit(
                0,
                0,
                &[fs(1, 100, false), fs(2, 41, false), fs(0, 100, false)],
                &[2],
                false,
            )
            .unwrap();
        assert_eq!(finals, vec![(1, 1021), (2, 959), (0, 1020)]);
        assert_eq!(t.stacks[2], None, "the offender leaves");
        assert_eq!(t.total_chips() + t.chips_out, t.chips_in);
    }

    #[test]
    fn dealer_rotates_clockwise_skipping_empty_seats() {
        let v = Variant {
            seats: 6,
            ..Variant::default()
        };
        let t = Table::new(v, &[(1, None), (3, None), (4, None)], 3).unwrap();
        let mut t2 = t.clone();
        assert_eq!(t.next_hand().unwrap().dealer, 3);
        t2.last_dealer = Some(4);
        assert_eq!(t2.next_hand().unwrap().dealer, 1);
        t2.last_dealer = Some(1);
        assert_eq!(t2.next_hand().unwrap().dealer, 3);
    }

    #[test]
    fn tournament_runs_to_one_winner_with_chips_conserved() {
        let mut rng = StdRng::seed_from_u64(7);
        let v = Variant::builtin("tournament").unwrap();
        let mut t = Table::new(v, &[(0, None), (1, None), (2, None), (5, None)], 0).unwrap();
        let total = t.total_chips();
        let mut oracle = Oracle::new(StdRng::seed_from_u64(8));
        let mut hands = 0;
        while !t.is_over() {
            let mut hand = Hand::new(&t.next_hand().unwrap()).unwrap();
            play_out(&mut hand, &mut oracle, 10_000, |_, _, legal| {
                // Aggressive random play so the tournament ends quickly.
                let raises: Vec<_> = legal
                    .iter()
                    .filter(|a| matches!(a, crate::games::tolerance::Action::Raise { .. }))
                    .collect();
                if !raises.is_empty() && rand::Rng::gen_bool(&mut rng, 0.5) {
                    **raises.last().unwrap()
                } else {
                    *legal.choose(&mut rng).unwrap()
                }
            })
            .unwrap();
            t.record(&hand).unwrap();
            assert_eq!(t.total_chips(), total);
            hands += 1;
            assert!(hands < 5000, "tournament did not end");
        }
        assert!(t.winner().is_some());
        assert_eq!(t.total_chips(), total);
    }

    #[test]
    fn cash_players_join_leave_and_top_up_within_limits() {
        let v = Variant::builtin("cash").unwrap();
        let mut t = Table::new(v, &[(0, Some(500)), (1, None)], 0).unwrap();
        assert_eq!(
            t.join(2, 5000),
            Err(TableError::BuyIn {
                stack: 5000,
                min: 200,
                max: 2000
            })
        );
        t.join(2, 300).unwrap();
        assert_eq!(t.join(2, 300), Err(TableError::SeatTaken(2)));
        assert_eq!(t.join(10, 300), Err(TableError::NoSuchSeat(10)));
        t.top_up(2, 100).unwrap();
        assert!(t.top_up(2, 5000).is_err());
        assert_eq!(t.leave(0).unwrap(), 500);
        assert_eq!(t.chips_in - t.chips_out, t.total_chips());
        let mut tour = Table::new(Variant::default(), &[(0, None), (1, None)], 0).unwrap();
        assert_eq!(tour.join(3, 100), Err(TableError::NotCash));
        assert_eq!(tour.leave(0), Err(TableError::NotCash));
    }
}
