//! The greedy Chickenfoot bot (§12): it sees only its view.

use super::game::{cost, Action, ChickenfootView, Spot};
use super::Chickenfoot;
use crate::bots::Bot;

/// Sheds the costliest tile; among equals, a toe of a pending chickenfoot, then a double.
#[derive(Debug, Default)]
pub struct GreedyBot;

/// What a play is worth to the greedy bot; higher is better.
pub fn value(view: &ChickenfootView, action: &Action) -> Option<(u32, bool, bool)> {
    let Action::Play { position, spot } = action else {
        return None;
    };
    let t = view.tiles.iter().find(|(p, _)| p == position)?.1;
    // A double ties the next three plays to it: with a tile to spare for its foot, the bot
    // makes the others follow where it can.
    Some((cost(t), matches!(spot, Spot::Toe(_)), t.0 == t.1))
}

impl Bot<Chickenfoot> for GreedyBot {
    fn choose(&mut self, view: &ChickenfootView, legal: &[Action]) -> Action {
        crate::games::dominoes::greedy(legal, |a| value(view, a))
    }

    fn name(&self) -> &str {
        "greedy"
    }
}
