//! An ArtOfFacts bot that sees only its view: it counts the cards it has not seen to judge a
//! swap for the face-down card, declares the highest value when that can still take the pot,
//! and otherwise ties the dealer to take its ante back when it can.

use super::deck::{Card, Cards};
use super::game::{Action, ArtOfFacts, ArtView, Phase};
use super::value;
use crate::bots::Bot;
use crate::cards::CardId;
use crate::engine::Seat;
use rand::Rng;

pub struct CountingBot<R> {
    rng: R,
    /// A dealer (declaring first) swaps when its best value is below this.
    pub dealer_aim: i64,
}

impl<R: Rng> CountingBot<R> {
    pub fn new(rng: R) -> Self {
        CountingBot { rng, dealer_aim: 9 }
    }
}

/// The seat's cards as ids of the view's deck list (`None` where unseen), and that list.
fn my_hand(view: &ArtView, me: Seat) -> (Vec<Option<CardId>>, Cards) {
    let cards = Cards(view.deck.clone());
    let mut taken: Vec<CardId> = Vec::new();
    let mut out = Vec::new();
    if let Some(p) = view.player(me) {
        for c in &p.cards {
            let id = c.as_ref().and_then(|c| cards.find(&c.name(), &taken));
            if let Some(id) = id {
                taken.push(id);
            }
            out.push(id);
        }
    }
    (out, cards)
}

/// Cards of the deck this seat has not seen this hand: what the face-down card may be.
fn unseen(view: &ArtView, cards: &Cards) -> Vec<CardId> {
    // A view shows a card only where this seat may see it: its own, and hands shown.
    let mut seen: Vec<Card> = view
        .players
        .iter()
        .flat_map(|p| p.cards.iter().flatten().cloned())
        .collect();
    let mut left: Vec<CardId> = Vec::new();
    for (i, c) in cards.0.iter().enumerate() {
        if let Some(k) = seen.iter().position(|s| s == c) {
            seen.remove(k);
        } else {
            left.push(CardId(i as u16));
        }
    }
    left
}

/// What this seat must reach to take the pot: the best declared so far (the dealer takes ties).
fn to_beat(view: &ArtView, me: Seat) -> Option<i64> {
    let best = view.players.iter().filter_map(|p| p.declared).max()?;
    Some(if view.dealer == Some(me) {
        best
    } else {
        best + 1
    })
}

impl<R: Rng + Send> CountingBot<R> {
    fn swap(&mut self, view: &ArtView, me: Seat) -> Action {
        let (hand, cards) = my_hand(view, me);
        let Some(hand) = hand.into_iter().collect::<Option<Vec<CardId>>>() else {
            return Action::Keep;
        };
        let now = value::best(&cards, &hand).0;
        let pool = unseen(view, &cards);
        if pool.is_empty() {
            return Action::Keep;
        }
        // The chance that each choice reaches the aim: the declared best, or for the first to
        // declare a value that usually holds.
        let aim = to_beat(view, me).unwrap_or(self.dealer_aim);
        let reach = |h: &[CardId]| value::best(&cards, h).0 >= aim;
        let keep = if now >= aim { 1.0 } else { 0.0 };
        let mut best = (keep, Action::Keep);
        for slot in 0..hand.len() {
            let hits = pool
                .iter()
                .filter(|c| {
                    let mut h = hand.clone();
                    h[slot] = **c;
                    reach(&h)
                })
                .count();
            let p = hits as f64 / pool.len() as f64;
            if p > best.0 + 0.05 {
                best = (p, Action::Swap { slot: slot as u8 });
            }
        }
        best.1
    }

    fn declare(&mut self, view: &ArtView, me: Seat, legal: &[Action]) -> Action {
        let (hand, cards) = my_hand(view, me);
        let hand: Vec<CardId> = hand.into_iter().flatten().collect();
        let valued: Vec<(i64, &Action)> = legal
            .iter()
            .filter_map(|a| match a {
                Action::Declare(d) => value::value(&cards, &hand, d).ok().map(|v| (v, a)),
                _ => None,
            })
            .collect();
        let Some(&(top, top_a)) = valued.iter().max_by_key(|(v, _)| *v) else {
            return legal[self.rng.gen_range(0..legal.len())].clone();
        };
        let can_win = to_beat(view, me).is_none_or(|aim| top >= aim);
        let last = view.order.last() == Some(&me);
        let dealer_value = view
            .dealer
            .and_then(|d| view.player(d))
            .and_then(|p| p.declared);
        if !can_win && !last && view.dealer != Some(me) {
            // Out of the running: tying the dealer takes the ante back (§6).
            if let Some((_, a)) = valued.iter().find(|(v, _)| Some(*v) == dealer_value) {
                return (*a).clone();
            }
        }
        top_a.clone()
    }
}

impl<R: Rng + Send> Bot<ArtOfFacts> for CountingBot<R> {
    fn choose(&mut self, view: &ArtView, legal: &[Action]) -> Action {
        let Some(me) = view.viewer else {
            return legal[0].clone();
        };
        let want = match view.phase {
            Phase::Swap { .. } => self.swap(view, me),
            Phase::Declare { .. } => self.declare(view, me, legal),
            _ => legal[0].clone(),
        };
        if legal.contains(&want) {
            want
        } else {
            legal[0].clone()
        }
    }

    fn name(&self) -> &str {
        "counting"
    }
}
