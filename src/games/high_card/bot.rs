//! A High Card bot that sees only its view: it swaps a low card and stays with a high one.

use super::game::{Action, HighCardView};
use super::HighCard;
use crate::bots::Bot;
use crate::cards::PlayingCard;
use rand::Rng;

/// Swaps below `swap_below`, stays at or above `stay_from` (card values 2..=14, Ace high), with
/// a little noise so it cannot be read exactly.
pub struct ThresholdBot<R> {
    rng: R,
    pub swap_below: u8,
    pub stay_from: u8,
}

impl<R: Rng> ThresholdBot<R> {
    pub fn new(rng: R) -> Self {
        ThresholdBot {
            rng,
            swap_below: 8,
            stay_from: 10,
        }
    }
}

fn value(view: &HighCardView) -> Option<u8> {
    let me = view.viewer?;
    let card = view.hands.iter().find(|(s, _)| *s == me)?.1?;
    let c = PlayingCard::from_id(card);
    Some(if c.rank == 1 { 14 } else { c.rank })
}

impl<R: Rng + Send> Bot<HighCard> for ThresholdBot<R> {
    fn choose(&mut self, view: &HighCardView, legal: &[Action]) -> Action {
        let v = value(view).unwrap_or(0);
        let noise = self.rng.gen_range(0..=1);
        let want = if legal.contains(&Action::Swap) {
            if v + noise < self.swap_below {
                Action::Swap
            } else {
                Action::Keep
            }
        } else if v + noise >= self.stay_from {
            Action::Stay
        } else {
            Action::Fold
        };
        if legal.contains(&want) {
            want
        } else {
            legal[0]
        }
    }

    fn name(&self) -> &str {
        "threshold"
    }
}
