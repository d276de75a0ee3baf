//! A Lamarckian Poker bot that sees only its view: it plays the mark that captures the most
//! cards from the pool as it lies, keeping its pairs and its high cards when that ties.

use super::game::{Action, LamarckianView};
use super::hand::{suit, value};
use super::LamarckianPoker;
use crate::bots::Bot;
use crate::cards::CardId;
use rand::Rng;

pub struct CaptureBot<R> {
    rng: R,
}

impl<R: Rng> CaptureBot<R> {
    pub fn new(rng: R) -> Self {
        CaptureBot { rng }
    }
}

/// Pool cards a mark would take if it were played first.
pub fn captures(mark: CardId, pool: &[CardId]) -> usize {
    pool.iter()
        .filter(|c| value(**c) == value(mark) || suit(**c) == suit(mark))
        .count()
}

impl<R: Rng + Send> Bot<LamarckianPoker> for CaptureBot<R> {
    fn choose(&mut self, view: &LamarckianView, legal: &[Action]) -> Action {
        let mine: Vec<(Action, CardId)> = legal
            .iter()
            .filter_map(|a| {
                let Action::Mark { position } = *a;
                let card = view.mine.iter().find(|h| h.position == position)?.card?;
                Some((*a, card))
            })
            .collect();
        // Higher is better: more captures, then a rank held fewer times, then a lower card.
        let score = |card: CardId| {
            let same_rank = mine
                .iter()
                .filter(|(_, c)| value(*c) == value(card))
                .count();
            (
                captures(card, &view.pool),
                std::cmp::Reverse(same_rank),
                std::cmp::Reverse(value(card)),
            )
        };
        let best = mine.iter().map(|(_, c)| score(*c)).max();
        let top: Vec<Action> = mine
            .iter()
            .filter(|(_, c)| Some(score(*c)) == best)
            .map(|(a, _)| *a)
            .collect();
        match top.len() {
            0 => legal[self.rng.gen_range(0..legal.len())],
            k => top[self.rng.gen_range(0..k)],
        }
    }

    fn name(&self) -> &str {
        "capture"
    }
}
