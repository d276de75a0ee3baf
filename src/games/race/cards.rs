//! What a client knows of a race's cards, by deck and position: the sealed deals and the shows
//! that ask for them, and an entrant's piles reshuffled as decks of indices nobody can steer.

use crate::cards::{CardId, DeckSpec};
use crate::engine::{
    check_cards, check_chance_batch, ChanceOutcome, ChanceRequest, DeckId, RuleError, Seat,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The deck every entrant of a race plays, shuffled by all of them first: the same id in every
/// race (its reshuffles' ids are above it, [`reshuffle_deck`]).
pub const DECK: DeckId = 0;

/// At most this many cards shown by one holder in one batch: a holder publishes every key
/// holder's token and proof for each card it shows in one event, which must stay under the
/// relays' 64 KiB (a race of three drawing a hundred positions needs about 72 KB at once; 16
/// cards of six key holders stay near 35 KB).
pub const SHOWS_PER_HOLDER: usize = 16;

/// A card of a race by where it lies: a deck and a position in it.
pub type Spot = (DeckId, u16);

/// What one client knows of a race's cards: the ones dealt to the entrants it sees (its own seat;
/// every seat in a simulation's full state) and every one shown; and, for everyone, which spots
/// were dealt to whom.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RaceCards {
    /// Cards this client knows, by deck, then position.
    known: BTreeMap<DeckId, BTreeMap<u16, CardId>>,
    /// Spots shown to everyone.
    shown: BTreeSet<Spot>,
    /// Entrants whose dealt cards this client sees: their moves are checked in full when
    /// made, the others' in form only until the cards are shown.
    sees: BTreeSet<Seat>,
    /// Spots dealt to each entrant (each once).
    dealt: BTreeMap<Seat, BTreeSet<Spot>>,
}

impl RaceCards {
    /// The card at `spot`, if this client knows it.
    pub fn card(&self, spot: Spot) -> Option<CardId> {
        self.known.get(&spot.0)?.get(&spot.1).copied()
    }

    /// Whether this client sees the cards dealt to `seat`.
    pub fn sees(&self, seat: Seat) -> bool {
        self.sees.contains(&seat)
    }

    pub fn is_shown(&self, spot: Spot) -> bool {
        self.shown.contains(&spot)
    }

    /// Whether `spot` was dealt to `seat`.
    pub fn dealt_to(&self, seat: Seat, spot: Spot) -> bool {
        self.dealt.get(&seat).is_some_and(|d| d.contains(&spot))
    }

    /// The card at `spot` of `owner`'s game as `viewer` may see it: its owner once dealt it,
    /// everyone once shown.
    pub fn visible(&self, owner: Seat, viewer: Option<Seat>, spot: Spot) -> Option<CardId> {
        let mine = viewer == Some(owner) && self.dealt_to(owner, spot);
        if mine || self.is_shown(spot) {
            self.card(spot)
        } else {
            None
        }
    }

    /// Sealed deals to `to` of those `spots` it was not dealt yet, in order, each once.
    pub fn deals(&self, to: Seat, spots: impl IntoIterator<Item = Spot>) -> Vec<ChanceRequest> {
        let mut asked = BTreeSet::new();
        spots
            .into_iter()
            .filter(|s| !self.dealt_to(to, *s) && asked.insert(*s))
            .map(|(deck, position)| ChanceRequest::DealSealed { deck, position, to })
            .collect()
    }

    /// One `Show` for every spot dealt to an entrant still at the table (`present`) and not yet
    /// shown, held by the lowest such entrant: what the end of a race asks, at most
    /// [`SHOWS_PER_HOLDER`] per holder in one batch (ask again until none is left).
    pub fn shows(&self, present: impl Fn(Seat) -> bool) -> Vec<ChanceRequest> {
        let mut holders: BTreeMap<Spot, Seat> = BTreeMap::new();
        for (seat, spots) in &self.dealt {
            if !present(*seat) {
                continue;
            }
            for s in spots {
                holders.entry(*s).or_insert(*seat);
            }
        }
        let mut per_holder: BTreeMap<Seat, usize> = BTreeMap::new();
        holders
            .into_iter()
            .filter(|(s, _)| !self.is_shown(*s))
            .filter(|(_, h)| {
                let n = per_holder.entry(*h).or_default();
                *n += 1;
                *n <= SHOWS_PER_HOLDER
            })
            .map(|((deck, position), holder)| ChanceRequest::Show {
                deck,
                position,
                holder,
            })
            .collect()
    }

    /// Checks the answers to `pending` (each card one of its deck's, as `spec` names the
    /// race's decks; a shown card the one this client was dealt there) and records the cards
    /// dealt and shown. Nothing changes when the batch is refused.
    pub fn record(
        &mut self,
        pending: &[ChanceRequest],
        outcomes: &[ChanceOutcome],
        spec: impl Fn(DeckId) -> Option<DeckSpec>,
    ) -> Result<(), RuleError> {
        check_chance_batch(pending, outcomes, |_, o| {
            let deck = match o {
                ChanceOutcome::Dealt { deck, .. } | ChanceOutcome::Revealed { deck, .. } => *deck,
                _ => return Ok(()),
            };
            let spec =
                spec(deck).ok_or_else(|| format!("deck {deck} is not one of this race's"))?;
            check_cards(o, &spec, |p| self.card((deck, p)))
        })?;
        for (req, out) in pending.iter().zip(outcomes) {
            match (req, out) {
                (
                    ChanceRequest::DealSealed { deck, position, to },
                    ChanceOutcome::Dealt { card, .. },
                ) => {
                    if let Some(c) = card {
                        self.known.entry(*deck).or_default().insert(*position, *c);
                        self.sees.insert(*to);
                    }
                    self.dealt
                        .entry(*to)
                        .or_default()
                        .insert((*deck, *position));
                }
                (
                    ChanceRequest::Show { deck, position, .. },
                    ChanceOutcome::Revealed { card, .. },
                ) => {
                    self.known
                        .entry(*deck)
                        .or_default()
                        .insert(*position, *card);
                    self.shown.insert((*deck, *position));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The deck id of entrant `seat`'s `n`-th reshuffle (0-based): one id per entrant and
/// reshuffle, the same on every client, above a race's first deck (0).
pub fn reshuffle_deck(seat: Seat, n: usize) -> DeckId {
    1 + DeckId::from(seat) * 1_000 + n as DeckId
}

/// A reshuffle of `k` cards as a deck: the indices `0..k` into the pile shuffled, each named by
/// the standard card with that id (the name means nothing: only the index counts).
pub fn index_spec(k: usize) -> DeckSpec {
    DeckSpec::Subset {
        base: Box::new(DeckSpec::standard(1)),
        cards: (0..k as u16).map(CardId).collect(),
    }
}

/// An entrant's reshuffles: each one's deck and the pile it shuffled, in the pile's order.
/// Position `i` of that deck opens to an index into its pile, never to a card, so that nobody
/// else learns what the pile held and the entrant, who knows the pile, learns its new order
/// only as it draws (every entrant shuffles the deck of indices, so nobody steers it).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Reshuffles(Vec<(DeckId, Vec<Spot>)>);

impl std::ops::Deref for Reshuffles {
    type Target = [(DeckId, Vec<Spot>)];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Reshuffles {
    /// The pile reshuffled as deck `deck`, if it is one of these.
    pub fn pile(&self, deck: DeckId) -> Option<&[Spot]> {
        self.0
            .iter()
            .find(|(d, _)| *d == deck)
            .map(|(_, p)| p.as_slice())
    }

    /// `seat`'s `pile` as its new draw pile, top first: a new deck of indices into it, or the
    /// pile where it lies when it holds one card (one card cannot be shuffled, nor has an order
    /// to hide).
    pub fn shuffle(&mut self, seat: Seat, pile: Vec<Spot>) -> Vec<Spot> {
        if pile.len() < 2 {
            return pile;
        }
        let d = reshuffle_deck(seat, self.0.len());
        let deck = (0..pile.len() as u16).map(|i| (d, i)).collect();
        self.0.push((d, pile));
        deck
    }

    /// The card at `spot`, reading a reshuffle's index through its pile: `raw` gives what a
    /// spot opened to, where known.
    pub fn face(&self, spot: Spot, raw: &dyn Fn(Spot) -> Option<CardId>) -> Option<CardId> {
        let c = raw(spot)?;
        match self.pile(spot.0) {
            None => Some(c),
            Some(pile) => self.face(*pile.get(usize::from(c.0))?, raw),
        }
    }

    /// The spec of deck `deck` if it is one of these reshuffles.
    pub fn spec(&self, deck: DeckId) -> Option<DeckSpec> {
        self.pile(deck).map(|p| index_spec(p.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_is_dealt_once_to_each_entrant_and_shown_by_the_lowest_holder_still_here() {
        let mut rc = RaceCards::default();
        let reqs = rc.deals(1, [(0, 3), (0, 4), (0, 3)]);
        assert_eq!(reqs.len(), 2);
        let outs: Vec<ChanceOutcome> = reqs
            .iter()
            .map(|r| match r {
                ChanceRequest::DealSealed { deck, position, .. } => ChanceOutcome::Dealt {
                    deck: *deck,
                    position: *position,
                    card: Some(CardId(*position)),
                },
                _ => unreachable!(),
            })
            .collect();
        let spec = |_| Some(DeckSpec::standard(1));
        rc.record(&reqs, &outs, spec).unwrap();
        assert!(rc.deals(1, [(0, 3)]).is_empty());
        assert_eq!(rc.deals(0, [(0, 3)]).len(), 1);
        assert_eq!(rc.visible(1, Some(1), (0, 3)), Some(CardId(3)));
        assert_eq!(rc.visible(1, Some(0), (0, 3)), None);
        let shows = rc.shows(|s| s != 0);
        assert_eq!(shows.len(), 2);
        assert!(
            rc.shows(|s| s != 1).is_empty(),
            "nobody still here holds them"
        );
        // A card shown as another than the one dealt is refused, and nothing changes.
        let before = rc.clone();
        let lie = vec![ChanceOutcome::Revealed {
            deck: 0,
            position: 3,
            card: CardId(9),
        }];
        assert!(rc.record(&shows[..1], &lie, spec).is_err());
        assert_eq!(rc, before);
    }

    #[test]
    fn the_end_of_a_race_shows_a_holders_cards_a_batch_at_a_time() {
        let mut rc = RaceCards::default();
        let spec = |_| Some(DeckSpec::standard(1));
        let reqs = rc.deals(0, (0..40).map(|p| (0, p)));
        let outs: Vec<ChanceOutcome> = (0..40)
            .map(|p| ChanceOutcome::Dealt {
                deck: 0,
                position: p,
                card: Some(CardId(p)),
            })
            .collect();
        rc.record(&reqs, &outs, spec).unwrap();
        let mut batches = 0;
        loop {
            let shows = rc.shows(|_| true);
            if shows.is_empty() {
                break;
            }
            assert!(shows.len() <= SHOWS_PER_HOLDER, "{}", shows.len());
            let outs: Vec<ChanceOutcome> = shows
                .iter()
                .map(|r| match r {
                    ChanceRequest::Show { deck, position, .. } => ChanceOutcome::Revealed {
                        deck: *deck,
                        position: *position,
                        card: CardId(*position),
                    },
                    _ => unreachable!(),
                })
                .collect();
            rc.record(&shows, &outs, spec).unwrap();
            batches += 1;
        }
        assert_eq!(batches, 3, "40 cards in batches of {SHOWS_PER_HOLDER}");
        assert!((0..40).all(|p| rc.is_shown((0, p))));
    }
}
