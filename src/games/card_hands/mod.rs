//! What the card games dealing private hands from one deck share (Abandon Ship, Lamarckian
//! Poker): cards by name, a card in a hand and a card face up, a chance batch taken into the
//! hands (the dealt cards learnt where they are held, the shown ones and the die handed back),
//! the cards a seat may see of its own; their panel parts are in [`ui`].

use crate::cards::{CardId, PlayingCard};
use crate::engine::{ChanceOutcome, ChanceRequest, Seat};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[cfg(feature = "terminal")]
pub mod ui;

/// "10♥", "A♠".
pub fn card_name(c: CardId) -> String {
    let p = PlayingCard::from_id(c);
    format!("{}{}", p.rank_str(), p.suit.symbol())
}

/// Cards by name, apart by spaces.
pub fn names(cs: &[CardId]) -> String {
    cs.iter()
        .map(|c| card_name(*c))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A card lying face up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Face {
    pub position: u16,
    pub card: CardId,
}

/// A card in a hand, as each game keeps it: known by deck position, its face where this client
/// knows it.
pub trait Slot: Clone {
    fn position(&self) -> u16;
    fn card(&self) -> Option<CardId>;
    fn learn(&mut self, card: Option<CardId>);
}

/// A card in a hand, where the game needs nothing more of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub position: u16,
    /// `None` where this client may not know it.
    pub card: Option<CardId>,
}

impl Slot for Held {
    fn position(&self) -> u16 {
        self.position
    }
    fn card(&self) -> Option<CardId> {
        self.card
    }
    fn learn(&mut self, card: Option<CardId>) {
        self.card = card;
    }
}

/// Every seat's hand, as one client knows it.
pub type Hands<H> = BTreeMap<Seat, Vec<H>>;

/// What a chance batch brought besides the dealt cards: the cards shown, in order, and the
/// first die of a roll.
#[derive(Debug, Default)]
pub struct Brought {
    pub opened: Vec<Face>,
    pub rolled: Option<u8>,
}

/// Takes a batch of outcomes: a dealt card is learnt in the slot its seat already holds for it
/// (a client that may not see it learns `None`); the rest comes back.
pub fn take<H: Slot>(
    hands: &mut Hands<H>,
    pending: &[ChanceRequest],
    outcomes: &[ChanceOutcome],
) -> Brought {
    let mut brought = Brought::default();
    for (req, out) in pending.iter().zip(outcomes) {
        match (req, out) {
            (ChanceRequest::Deal { to, .. }, ChanceOutcome::Dealt { position, card, .. }) => {
                if let Some(h) = hands
                    .get_mut(&to[0])
                    .and_then(|h| h.iter_mut().find(|h| h.position() == *position))
                {
                    h.learn(*card);
                }
            }
            (_, ChanceOutcome::Revealed { position, card, .. }) => brought.opened.push(Face {
                position: *position,
                card: *card,
            }),
            (_, ChanceOutcome::Rolled { values }) => brought.rolled = values.first().copied(),
            _ => {}
        }
    }
    brought
}

/// The card at `position`, if it is in a hand and this client knows it.
pub fn known<H: Slot>(hands: &Hands<H>, position: u16) -> Option<CardId> {
    hands
        .values()
        .flatten()
        .find(|h| h.position() == position)
        .and_then(|h| h.card())
}

/// The viewer's own hand (nothing for a spectator).
pub fn own<H: Slot>(hands: &Hands<H>, viewer: Option<Seat>) -> Vec<H> {
    viewer
        .and_then(|v| hands.get(&v))
        .cloned()
        .unwrap_or_default()
}
