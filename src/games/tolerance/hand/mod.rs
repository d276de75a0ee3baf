//! One hand of The Game of Tolerance v1.4, as one client knows it.
//!
//! Here are a hand's moves, rules in force, state, record and result; `play` is how it is
//! played (betting, rolls, showdown, forfeits) and the engine's contract for it. Rule decisions
//! the seed leaves open are written, with reasons, in `protocol/rules/tolerance.md`; the section
//! names are cited next to the code that follows them.

mod play;

use super::variant::Betting;
use crate::cards::CardId;
use crate::engine::{ChanceRequest, DeckId, Seat};
use serde::{Deserialize, Serialize};

/// A move in a hand of Tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Fold,
    Check,
    Call,
    /// Raise (or open) so that this round's bet becomes `to` chips in total.
    Raise {
        to: u64,
    },
    /// Decline to roll this round.
    Pass,
    /// Roll the die with this Tolerance number.
    Roll {
        target: u8,
    },
}

impl Action {
    /// The quietest of `legal`: check, else call, else pass the roll. Tests that want every
    /// hand to reach its showdown without an all-in play it.
    #[cfg(test)]
    pub(crate) fn calm(legal: &[Action]) -> Option<Action> {
        [Action::Check, Action::Call, Action::Pass]
            .into_iter()
            .find(|a| legal.contains(a))
    }
}

/// The rules one hand needs (the table derives them from the variant and the hand number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandRules {
    pub die_sides: u8,
    pub blind: u64,
    pub betting: Betting,
    pub super_ace: bool,
    pub card_again: bool,
    pub decks: u8,
}

/// Who plays a hand: seats clockwise with their stacks (all > 0), and the Dealer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSetup {
    pub hand_no: u64,
    /// The hand's deck id: the hand number, or for a hand dealt with the showdown of the hand
    /// before it (protocol version 11) [`crate::games::tolerance::game::DEALT_AHEAD`] with it.
    pub deck: DeckId,
    pub seats: Vec<(Seat, u64)>,
    pub dealer: Seat,
    pub rules: HandRules,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub position: u16,
    /// `None` when this client may not know it.
    pub card: Option<CardId>,
    /// Shown to everyone at showdown.
    pub revealed: bool,
    /// 0 for the first two cards; r for the Card Again card dealt after roll round r.
    pub dealt_after_rolls: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollRecord {
    /// Roll round, 0 or 1.
    pub round: u8,
    pub target: u8,
    pub die: u8,
}

impl RollRecord {
    pub fn delta(&self) -> i64 {
        if self.die >= self.target {
            self.target as i64
        } else {
            -(self.target as i64)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub seat: Seat,
    pub start_stack: u64,
    pub stack: u64,
    /// Chips put in during the current betting round.
    pub bet: u64,
    /// Chips put in during the whole hand.
    pub committed: u64,
    pub folded: bool,
    /// Has acted in this betting round since the last full raise.
    acted: bool,
    /// The round's bet level when this player last acted (for the re-opening rule).
    acted_level: u64,
    pub cards: Vec<Held>,
    pub rolls: Vec<RollRecord>,
}

impl Player {
    pub fn all_in(&self) -> bool {
        !self.folded && self.stack == 0
    }
    fn can_bet(&self) -> bool {
        !self.folded && self.stack > 0
    }
    pub fn roll_delta(&self) -> i64 {
        self.rolls.iter().map(RollRecord::delta).sum()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase", content = "round")]
pub enum Phase {
    Deal,
    Bet(u8),
    Roll(u8),
    CardAgain(u8),
    Showdown,
    Done,
}

/// A public record of what happened, for views, UIs and hand histories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogEntry {
    Blind { seat: Seat, amount: u64 },
    Act { seat: Seat, action: Action },
    Rolled { seat: Seat, target: u8, die: u8 },
    Won { seat: Seat, amount: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PotResult {
    pub amount: u64,
    pub eligible: Vec<Seat>,
    pub winners: Vec<Seat>,
    pub shares: Vec<(Seat, u64)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandResult {
    /// Everyone else folded: no cards shown.
    pub uncontested: bool,
    /// Final points of each player who reached showdown.
    pub points: Vec<(Seat, i64)>,
    pub pots: Vec<PotResult>,
    pub final_stacks: Vec<(Seat, u64)>,
    /// Seats that forfeited the hand (withheld a protocol step, equivocated, left): it ended
    /// there and was settled by the forfeit rule (rules §Forfeit), not by showdown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forfeited: Vec<Seat>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hand {
    pub rules: HandRules,
    pub hand_no: u64,
    /// [`HandSetup::deck`].
    pub deck: DeckId,
    /// Clockwise from the Starter; the Dealer is last.
    pub players: Vec<Player>,
    pub phase: Phase,
    /// Index of the player to act in a betting or roll round.
    actor: usize,
    /// Bet level of the current betting round.
    pub current_bet: u64,
    /// Size of the last full bet or raise this round: the minimum next raise.
    pub min_raise: u64,
    /// Bets and full raises this round (the blind counts in round 1), for fixed-limit caps.
    bets_this_round: u8,
    next_position: u16,
    pending: Vec<ChanceRequest>,
    pub log: Vec<LogEntry>,
    pub result: Option<HandResult>,
}
