//! What the domino games (All Fives, Chickenfoot) share: sets and tiles, hands of tiles known
//! by deck position, the deal and the draw as private deals, the reveal of a played tile and of
//! every held tile at a hand's end, the invariants on held tiles; their words and panel parts
//! are in [`ui`].

use crate::cards::{CardId, DeckSpec};
use crate::engine::{ChanceOutcome, ChanceRequest, DeckId, RuleError, Seat, ToAct};
use serde::{Deserialize, Serialize};

pub mod ui;
use std::collections::BTreeMap;

/// A whole domino set up to the double `max_pip`: tile ids are named in it.
pub fn set(max_pip: u8) -> DeckSpec {
    DeckSpec::Dominoes { max_pip }
}

/// The halves of a tile of this set, low first.
pub fn halves_in(max_pip: u8, id: CardId) -> (u8, u8) {
    set(max_pip).domino(id).unwrap_or((0, 0))
}

/// A tile in a hand: its deck position, and the tile where this client knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub position: u16,
    pub tile: Option<CardId>,
}

/// Where a hand (or round) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Shuffle, deal (and lot) pending.
    Deal,
    Play,
    /// The hand is over; the held tiles are being shown.
    Show,
    Done,
}

/// Who acts: the pending chance first, then the seat to move until the game is done.
pub fn to_act(pending: &[ChanceRequest], phase: Phase, turn: Seat) -> ToAct {
    if !pending.is_empty() {
        return ToAct::Chance(pending.to_vec());
    }
    match phase {
        Phase::Done => ToAct::Terminal,
        _ => ToAct::Seat(turn),
    }
}

/// The seat to move, if a seat is to move: in play with no chance pending.
pub fn mover(pending: &[ChanceRequest], phase: Phase, turn: Seat) -> Option<Seat> {
    (phase == Phase::Play && pending.is_empty()).then_some(turn)
}

/// A move by `seat` is in turn: the game goes on and `seat` is the one to move.
pub fn check_turn(phase: Phase, mover: Option<Seat>, seat: Seat) -> Result<(), RuleError> {
    if phase == Phase::Done {
        return Err(RuleError::Finished);
    }
    if mover != Some(seat) {
        return Err(RuleError::OutOfTurn {
            seat,
            expected: match mover {
                Some(s) => format!("seat {s} to play"),
                None => "the tiles".into(),
            },
        });
    }
    Ok(())
}

/// The seats of `players` not removed.
pub fn playing(players: u8, removed: &[Seat]) -> Vec<Seat> {
    (0..players).filter(|s| !removed.contains(s)).collect()
}

/// The offenders join the removed seats, each once, in seat order.
pub fn add_removed(removed: &mut Vec<Seat>, offenders: &[Seat]) {
    for o in offenders {
        if !removed.contains(o) {
            removed.push(*o);
        }
    }
    removed.sort_unstable();
}

/// Every seat's tiles, as one client knows them.
pub type Hands = BTreeMap<Seat, Vec<Held>>;

/// A new deck `deck` of `spec` shuffled, `k` tiles dealt privately to each of `players` seats
/// from position 0, and a public die for the lot when `lot`. Returns the requests and the
/// first undealt position.
pub fn deal(
    deck: DeckId,
    spec: DeckSpec,
    players: u8,
    k: u16,
    lot: bool,
) -> (Vec<ChanceRequest>, u16) {
    let mut pending = vec![ChanceRequest::Shuffle { deck, spec }];
    for s in 0..players {
        for i in 0..k {
            pending.push(ChanceRequest::deal(deck, u16::from(s) * k + i, s));
        }
    }
    if lot {
        pending.push(ChanceRequest::RollPublic {
            sides: players,
            count: 1,
            by: None,
        });
    }
    (pending, u16::from(players) * k)
}

/// Takes a deal's outcomes into the hands; returns the lot's seat when the lot was drawn.
pub fn take_deal(
    hands: &mut Hands,
    pending: &[ChanceRequest],
    outcomes: &[ChanceOutcome],
    players: u8,
) -> Option<Seat> {
    let mut lot = None;
    for (req, out) in pending.iter().zip(outcomes) {
        match (req, out) {
            (ChanceRequest::RollPublic { .. }, ChanceOutcome::Rolled { values }) => {
                lot = Some((values[0] - 1) % players);
            }
            (ChanceRequest::Deal { to, .. }, _) => {
                take_draw(hands, to[0], out);
            }
            _ => {}
        }
    }
    lot
}

/// A tile dealt to `seat` (the deal, a draw) goes into its hand; false if `out` is no deal.
pub fn take_draw(hands: &mut Hands, seat: Seat, out: &ChanceOutcome) -> bool {
    let ChanceOutcome::Dealt { position, card, .. } = out else {
        return false;
    };
    hands.entry(seat).or_default().push(Held {
        position: *position,
        tile: *card,
    });
    true
}

/// The tile at `position` in `seat`'s hand.
pub fn held(hands: &Hands, seat: Seat, position: u16) -> Option<&Held> {
    hands
        .get(&seat)
        .and_then(|h| h.iter().find(|x| x.position == position))
}

/// The tile at `position`, if it is held and this client knows it.
pub fn known_tile(hands: &Hands, position: u16) -> Option<CardId> {
    hands
        .values()
        .flatten()
        .find(|h| h.position == position)
        .and_then(|h| h.tile)
}

/// A shown tile becomes known wherever it is held.
pub fn learn(hands: &mut Hands, position: u16, card: CardId) {
    if let Some(h) = hands
        .values_mut()
        .flatten()
        .find(|h| h.position == position)
    {
        h.tile = Some(card);
    }
}

/// Every shown tile of a batch becomes known.
pub fn learn_all(hands: &mut Hands, outcomes: &[ChanceOutcome]) {
    for out in outcomes {
        if let ChanceOutcome::Revealed { position, card, .. } = out {
            learn(hands, *position, *card);
        }
    }
}

/// The reveal of every held tile at a hand's end (everyone must be able to count it).
pub fn show_all(hands: &Hands, deck: DeckId) -> Vec<ChanceRequest> {
    hands
        .values()
        .flatten()
        .map(|h| ChanceRequest::Reveal {
            deck,
            position: h.position,
        })
        .collect()
}

/// The tiles this seat holds and knows: position and tile.
pub fn known(hands: &Hands, seat: Seat) -> impl Iterator<Item = (u16, CardId)> + '_ {
    hands
        .get(&seat)
        .into_iter()
        .flatten()
        .filter_map(|h| h.tile.map(|t| (h.position, t)))
}

/// How many tiles each seat holds.
pub fn counts(hands: &Hands) -> Vec<(Seat, usize)> {
    hands.iter().map(|(s, h)| (*s, h.len())).collect()
}

/// Every play this seat's known tiles allow, ascending: `spots` lists where a tile goes.
pub fn plays<S, A: Ord>(
    hands: &Hands,
    seat: Seat,
    spots: impl Fn(CardId) -> Vec<S>,
    play: impl Fn(u16, S) -> A,
) -> Vec<A> {
    let mut v: Vec<A> = known(hands, seat)
        .flat_map(|(position, t)| {
            spots(t)
                .into_iter()
                .map(|s| (position, s))
                .collect::<Vec<_>>()
        })
        .map(|(p, s)| play(p, s))
        .collect();
    v.sort_unstable();
    v
}

/// The held tiles are each held once and all dealt; returns how many are held. `yard` names
/// the undealt rest in the error.
pub fn check_held(hands: &Hands, next_position: u16, yard: &str) -> Result<usize, String> {
    let mut positions: Vec<u16> = hands.values().flatten().map(|h| h.position).collect();
    let n = positions.len();
    positions.sort_unstable();
    positions.dedup();
    if positions.len() != n {
        return Err("one tile held twice".into());
    }
    if positions.iter().any(|p| *p >= next_position) {
        return Err(format!("a held tile from the {yard}"));
    }
    Ok(n)
}
