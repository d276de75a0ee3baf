//! The greedy All Fives bot (§11): it sees only its view.

use super::game::{halves, pips, Action, AllFivesView};
use super::AllFives;
use crate::bots::Bot;

/// Scores most now; among equal scores sheds a double, then the heaviest tile.
#[derive(Debug, Default)]
pub struct GreedyBot;

/// What a play is worth to the greedy bot: points now, a double, pips shed; higher is better.
pub fn value(view: &AllFivesView, action: &Action) -> Option<(i64, bool, u32)> {
    let Action::Play { position, end } = action else {
        return None;
    };
    let tile = view.tiles.iter().find(|(p, _)| p == position)?.1;
    let mut layout = view.layout.clone();
    if !layout.fits(halves(tile), *end) {
        return None;
    }
    layout.place(halves(tile), *end);
    let (a, b) = halves(tile);
    Some((layout.score(), a == b, pips(tile)))
}

impl Bot<AllFives> for GreedyBot {
    fn choose(&mut self, view: &AllFivesView, legal: &[Action]) -> Action {
        crate::games::dominoes::greedy(legal, |a| value(view, a))
    }

    fn name(&self) -> &str {
        "greedy"
    }
}
