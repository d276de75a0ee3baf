//! What one seat (or a spectator) sees of a hand: a pure function of the hand and the viewer.

use super::hand::{Action, Hand, HandResult, HandRules, LogEntry, Phase, RollRecord};
use crate::cards::CardId;
use crate::engine::{Game, Seat};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayerView {
    pub seat: Seat,
    pub stack: u64,
    pub bet: u64,
    pub committed: u64,
    pub folded: bool,
    pub all_in: bool,
    /// One entry per card held; `None` for a card this viewer may not see.
    pub cards: Vec<Option<CardId>>,
    pub rolls: Vec<RollRecord>,
    pub roll_delta: i64,
    /// Known to the owner, and to everyone once the cards are shown.
    pub points: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandView {
    pub viewer: Option<Seat>,
    pub hand_no: u64,
    pub rules: HandRules,
    pub phase: Phase,
    pub dealer: Seat,
    pub starter: Seat,
    /// The seat whose move is awaited (`None` while the crypto layer deals or rolls).
    pub to_act: Option<Seat>,
    pub current_bet: u64,
    pub min_raise: u64,
    pub pot: u64,
    pub players: Vec<PlayerView>,
    /// The viewer's legal moves now (empty unless it is the viewer's turn).
    pub legal: Vec<Action>,
    pub to_call: u64,
    pub log: Vec<LogEntry>,
    pub result: Option<HandResult>,
}

impl HandView {
    pub fn of(hand: &Hand, viewer: Option<Seat>) -> HandView {
        let players: Vec<PlayerView> = hand
            .players
            .iter()
            .map(|p| {
                let own = viewer == Some(p.seat);
                let cards: Vec<Option<CardId>> = p
                    .cards
                    .iter()
                    .map(|h| if own || h.revealed { h.card } else { None })
                    .collect();
                let all_shown = !p.cards.is_empty() && p.cards.iter().all(|h| h.revealed);
                PlayerView {
                    seat: p.seat,
                    stack: p.stack,
                    bet: p.bet,
                    committed: p.committed,
                    folded: p.folded,
                    all_in: p.all_in(),
                    cards,
                    rolls: p.rolls.clone(),
                    roll_delta: p.roll_delta(),
                    points: if own || all_shown {
                        hand.points(p)
                    } else {
                        None
                    },
                }
            })
            .collect();
        let to_act = match hand.to_act() {
            crate::engine::ToAct::Seat(s) => Some(s),
            _ => None,
        };
        let (legal, to_call) = match viewer {
            Some(v) => {
                let to_call = match (hand.phase, hand.player(v)) {
                    (Phase::Bet(_), Some(p)) if !p.folded => {
                        (hand.current_bet - p.bet).min(p.stack)
                    }
                    _ => 0,
                };
                (hand.legal_actions(v), to_call)
            }
            None => (Vec::new(), 0),
        };
        HandView {
            viewer,
            hand_no: hand.hand_no,
            rules: hand.rules,
            phase: hand.phase,
            dealer: hand.dealer(),
            starter: hand.starter(),
            to_act,
            current_bet: hand.current_bet,
            min_raise: hand.min_raise,
            pot: hand.pot_total(),
            players,
            legal,
            to_call,
            log: hand.log.clone(),
            result: hand.result.clone(),
        }
    }

    pub fn me(&self) -> Option<&PlayerView> {
        let v = self.viewer?;
        self.players.iter().find(|p| p.seat == v)
    }

    /// Players still contesting the pot.
    pub fn live(&self) -> impl Iterator<Item = &PlayerView> {
        self.players.iter().filter(|p| !p.folded)
    }
}
