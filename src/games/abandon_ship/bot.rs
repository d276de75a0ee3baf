//! An Abandon Ship bot that sees only its view (`normal`): it runs for the lifeboat where its
//! hand and board are strongest against what the others can be holding, fights with Kings
//! (nobody can answer them) while the deck is long, answers fights with its cheapest winning
//! card, and otherwise discards its least useful card.

use super::game::{points, rank, suit, AbandonView, Action, Phase};
use super::AbandonShip;
use crate::bots::Bot;
use crate::cards::{CardId, Suit};
use crate::engine::Seat;
use rand::Rng;

pub struct SailorBot<R> {
    rng: R,
}

impl<R: Rng> SailorBot<R> {
    pub fn new(rng: R) -> Self {
        SailorBot { rng }
    }
}

fn card_of(view: &AbandonView, position: u16) -> Option<CardId> {
    view.mine
        .iter()
        .find(|h| h.position == position)
        .and_then(|h| h.card)
}

/// What running for lifeboat `s` is worth to the viewer: the boat's points times a rough
/// chance of winning its contest against the strongest other player.
pub fn boat_value(view: &AbandonView, s: Suit) -> f64 {
    let me = view.viewer;
    let mine: Vec<CardId> = view.mine.iter().filter_map(|h| h.card).collect();
    let board = |seat: Option<Seat>| -> Vec<CardId> {
        view.boards
            .iter()
            .find(|(b, _)| Some(*b) == seat)
            .map(|(_, b)| b.clone())
            .unwrap_or_default()
    };
    let in_suit = |cs: &[CardId]| -> f64 {
        cs.iter()
            .filter(|c| suit(**c) == s)
            .map(|c| points(*c) as f64)
            .sum()
    };
    if !mine.iter().any(|c| suit(*c) == s) {
        return 0.0;
    }
    let strength = in_suit(&mine) + in_suit(&board(me));
    // Cards nobody has seen: the deck less everything in sight.
    let decks = if view.hands.len() >= 6 { 2.0 } else { 1.0 };
    let mut seen: Vec<CardId> = mine.clone();
    seen.extend(view.boards.iter().flat_map(|(_, b)| b.iter().copied()));
    seen.extend(view.lifeboats.iter().flatten().copied());
    let unseen_points = 91.0 * decks - in_suit(&seen);
    let unseen_cards = (52.0 * decks - seen.len() as f64).max(1.0);
    let per_card = (unseen_points / unseen_cards).max(0.0);
    let rival = view
        .hands
        .iter()
        .filter(|(s2, _)| Some(*s2) != me)
        .map(|(s2, h)| in_suit(&board(Some(*s2))) + h.len() as f64 * per_card)
        .fold(0.0, f64::max);
    let prize: f64 = view.lifeboats[s as usize]
        .iter()
        .map(|c| points(*c) as f64)
        .sum();
    prize * strength * strength / (strength * strength + rival * rival + 1.0)
}

impl<R: Rng + Send> Bot<AbandonShip> for SailorBot<R> {
    fn choose(&mut self, view: &AbandonView, legal: &[Action]) -> Action {
        let pick = match view.phase {
            Phase::Key => legal
                .iter()
                .filter_map(|a| match a {
                    Action::Key { position } => {
                        let c = card_of(view, *position)?;
                        Some((boat_value(view, suit(c)), *a))
                    }
                    _ => None,
                })
                .max_by(|x, y| x.0.total_cmp(&y.0))
                .map(|(_, a)| a),
            Phase::Fight => {
                // The cheapest card that wins, a King above all (nothing answers it).
                legal
                    .iter()
                    .filter_map(|a| match a {
                        Action::Raise { position } => {
                            let c = card_of(view, *position)?;
                            Some((rank(c) != 13, rank(c), *a))
                        }
                        _ => None,
                    })
                    .min_by_key(|(k, r, _)| (std::cmp::Reverse(*k), *r))
                    .map(|(_, _, a)| a)
                    .or(Some(Action::Surrender))
            }
            Phase::Play => {
                let long = usize::from(view.deck_left) > 2 * view.hands.len();
                let king_fight = legal
                    .iter()
                    .filter_map(|a| match a {
                        Action::Fight { position, target } => {
                            let c = card_of(view, *position)?;
                            let cards = view
                                .hands
                                .iter()
                                .find(|(s, _)| s == target)
                                .map_or(0, |(_, h)| h.len());
                            (rank(c) == 13).then_some((cards, *a))
                        }
                        _ => None,
                    })
                    .max_by_key(|(k, _)| *k)
                    .map(|(_, a)| a);
                if long && king_fight.is_some() {
                    king_fight
                } else {
                    // Keep the cards of the best lifeboat; throw away the cheapest other card.
                    let best = Suit::ALL
                        .into_iter()
                        .max_by(|a, b| boat_value(view, *a).total_cmp(&boat_value(view, *b)));
                    legal
                        .iter()
                        .filter_map(|a| match a {
                            Action::Discard { position } => {
                                let c = card_of(view, *position)?;
                                Some((Some(suit(c)) == best, rank(c), *a))
                            }
                            _ => None,
                        })
                        .min_by_key(|(keep, r, _)| (*keep, *r))
                        .map(|(_, _, a)| a)
                }
            }
            _ => None,
        };
        pick.unwrap_or_else(|| legal[self.rng.gen_range(0..legal.len())])
    }

    fn name(&self) -> &str {
        "sailor"
    }
}
