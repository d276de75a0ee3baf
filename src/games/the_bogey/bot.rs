//! Bots for The Bogey that see only their view (protocol/rules/the-bogey.md §9).
//!
//! [`ColumnBot`] weighs every decision by the table it leaves: cards on the table, columns
//! used, how many of the cards still to come would fit under a column, and the risk that the
//! bogey's next card fits nowhere. [`RandomPlayer`] is the baseline it is measured against:
//! the race kit's, uniform over the legal moves except that it never gives up.

use super::game::{fits, Action, Board, Bogey, BogeyView, End, Place, CARDS, MAX_COLUMNS};
use super::{Setup, TheBogey};
use crate::bots::Bot;
use crate::cards::CardId;
use crate::games::race::{best_judged, Duplicate, RandomPlayer};
use rand::Rng;
use std::collections::BTreeSet;

/// What the bot weighs, against one card on the table (tuned with `benches/solitaires.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// A column used.
    pub column: f64,
    /// A card still to come that fits under some column.
    pub cover: f64,
    /// Losing the game, times the chance that the bogey's next card fits nowhere once every
    /// column is used.
    pub lose: f64,
    /// A card held in the hand that fits nowhere (a slot that does no work).
    pub dead_hand: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            column: 3.0,
            cover: 0.5,
            lose: 60.0,
            dead_hand: 0.3,
        }
    }
}

impl Weights {
    /// Four numbers separated by commas, in field order (for tuning runs).
    pub fn parse(s: &str) -> Option<Weights> {
        let v: Vec<f64> = s
            .split(',')
            .map(|x| x.trim().parse().ok())
            .collect::<Option<_>>()?;
        let [column, cover, lose, dead_hand] = v.as_slice() else {
            return None;
        };
        Some(Weights {
            column: *column,
            cover: *cover,
            lose: *lose,
            dead_hand: *dead_hand,
        })
    }
}

/// An entrant's table and hand as its own view shows them.
#[derive(Debug, Clone)]
struct Seen {
    columns: Vec<Vec<CardId>>,
    hand: Vec<CardId>,
    bogey: Option<CardId>,
}

impl Seen {
    fn of(e: &Board) -> Option<Seen> {
        Some(Seen {
            columns: e
                .columns
                .iter()
                .map(|c| c.iter().copied().collect::<Option<Vec<_>>>())
                .collect::<Option<_>>()?,
            hand: e.hand.iter().copied().collect::<Option<_>>()?,
            bogey: e.bogey.map(|b| b.ok_or(())).transpose().ok()?,
        })
    }

    fn put(&mut self, c: CardId, to: Place) {
        match to {
            Place::Column(n) => self.columns[usize::from(n)].push(c),
            Place::New => self.columns.push(vec![c]),
        }
    }

    fn covered(&self, c: CardId) -> bool {
        self.columns.iter().any(|col| fits(col, c))
    }

    /// How good the table is for the rest of the game.
    fn worth(&self, w: &Weights) -> f64 {
        let on_table: BTreeSet<CardId> = self.columns.iter().flatten().copied().collect();
        let held: BTreeSet<CardId> = self.hand.iter().chain(&self.bogey).copied().collect();
        let (mut cover, mut unknown, mut loose) = (0usize, 0usize, 0usize);
        for c in (0..CARDS).map(CardId) {
            if on_table.contains(&c) {
                continue;
            }
            let fits = self.covered(c);
            cover += usize::from(fits);
            if !held.contains(&c) {
                unknown += 1;
                loose += usize::from(!fits);
            }
        }
        let dead = self.hand.iter().filter(|c| !self.covered(**c)).count();
        let risk = if unknown == 0 {
            0.0
        } else {
            let p = loose as f64 / unknown as f64;
            if self.columns.len() >= MAX_COLUMNS {
                p * w.lose
            } else {
                p * w.column
            }
        };
        on_table.len() as f64 - w.column * self.columns.len() as f64 + w.cover * cover as f64
            - w.dead_hand * dead as f64
            - risk
    }
}

/// The bot's judgement of one legal move from what `view` shows its seat.
pub fn judge(view: &BogeyView, a: &Action, w: &Weights) -> f64 {
    let Some(seen) = view.me().and_then(|e| Seen::of(&e.board)) else {
        return 0.0;
    };
    let mut s = seen.clone();
    match *a {
        Action::GiveUp => return -1e9,
        Action::Stuck => return -1e8,
        Action::EndTurn => {}
        Action::Discard { slot } => {
            s.hand.remove(usize::from(slot));
        }
        Action::Play { slot, to } => {
            let c = s.hand.remove(usize::from(slot));
            s.put(c, to);
        }
        Action::Place { to } => {
            if let Some(c) = s.bogey.take() {
                s.put(c, to);
            }
        }
    }
    s.worth(w)
}

/// The bot that weighs the table each move leaves.
pub struct ColumnBot<R> {
    rng: R,
    pub weights: Weights,
}

impl<R: Rng> ColumnBot<R> {
    pub fn new(rng: R) -> Self {
        ColumnBot {
            rng,
            weights: Weights::default(),
        }
    }
}

impl<R: Rng + Send> Bot<TheBogey> for ColumnBot<R> {
    fn choose(&mut self, view: &BogeyView, legal: &[Action]) -> Action {
        best_judged(legal, &mut self.rng, |a| judge(view, a, &self.weights))
    }

    fn name(&self) -> &str {
        "columns"
    }
}

/// The column bot (seat 0, with these weights) and the random player (seat 1) on `deals` deals
/// drawn from `seed`, with a hand of `hand` cards: reproducible. A win is every card played.
pub fn duplicate(deals: u64, seed: u64, hand: u8, weights: Weights) -> Duplicate {
    crate::games::race::duplicate::<Bogey>(
        deals,
        seed,
        &Setup { players: 2, hand },
        |rng| {
            let mut smart = ColumnBot::new(rng);
            smart.weights = weights;
            Box::new(smart)
        },
        |rng| Box::new(RandomPlayer::new(rng)),
        End::Won,
    )
}
