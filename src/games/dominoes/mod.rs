//! What the domino games (All Fives, Chickenfoot) share, so that a fix to one is a fix to both:
//! sets and tiles, hands of tiles known by deck position, the state both keep alike ([`Board`]:
//! the deal and the draw as private deals, the reveal of a played tile and of every held tile at
//! a hand's end), their seat methods ([`seat_methods`]), the invariants on held tiles, the greedy
//! bots' pick and the unit tests' helpers; their words and panel parts are in [`ui`].

use crate::cards::{CardId, DeckSpec};
use crate::engine::{ChanceOutcome, ChanceRequest, DeckId, Outcome, RuleError, Seat, ToAct};
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

/// The part of a domino game's state both games keep alike: where it stands, every hand, whose
/// turn it is, the seats removed, a play waiting for its tile to be shown (at its spot `S`), the
/// next undealt position and the chance pending.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board<S> {
    pub phase: Phase,
    pub hands: Hands,
    pub turn: Seat,
    pub removed: Vec<Seat>,
    played: Option<(Seat, u16, S)>,
    pub next_position: u16,
    pending: Vec<ChanceRequest>,
}

impl<S> Board<S> {
    pub fn new() -> Board<S> {
        Board {
            phase: Phase::Deal,
            hands: Hands::new(),
            turn: 0,
            removed: Vec::new(),
            played: None,
            next_position: 0,
            pending: Vec::new(),
        }
    }

    pub fn to_act(&self) -> ToAct {
        to_act(&self.pending, self.phase, self.turn)
    }

    /// The seat to move, if a seat is to move.
    pub fn mover(&self) -> Option<Seat> {
        mover(&self.pending, self.phase, self.turn)
    }

    pub fn check_turn(&self, seat: Seat) -> Result<(), RuleError> {
        check_turn(self.phase, self.mover(), seat)
    }

    pub fn done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Whether the play is between chance steps (what the tile counts hold at).
    pub fn settled(&self) -> bool {
        self.phase == Phase::Play && self.pending.is_empty()
    }

    /// A new hand of deck `deck` (see [`deal`]): the hands emptied and dealt anew.
    pub fn deal(&mut self, deck: DeckId, spec: DeckSpec, players: u8, k: u16, lot: bool) {
        self.phase = Phase::Deal;
        self.hands.clear();
        self.played = None;
        (self.pending, self.next_position) = deal(deck, spec, players, k, lot);
    }

    /// A draw by `seat` (see [`draw`]).
    pub fn draw(&mut self, deck: DeckId, seat: Seat) {
        self.pending = draw(deck, &mut self.next_position, seat);
    }

    /// `seat` plays the tile at `position` to `spot`: it is shown first (see [`reveal`]).
    pub fn play(&mut self, deck: DeckId, seat: Seat, position: u16, spot: S) {
        self.played = Some((seat, position, spot));
        self.pending = reveal(deck, position);
    }

    /// The hand is over: every held tile is to be shown; false if none is held.
    pub fn show(&mut self, deck: DeckId) -> bool {
        self.phase = Phase::Show;
        self.pending = show_all(&self.hands, deck);
        !self.pending.is_empty()
    }

    /// Checks a chance batch and takes the requests it answers (see [`accept`]).
    pub fn accept(
        &mut self,
        outcomes: &[ChanceOutcome],
        spec: &DeckSpec,
    ) -> Result<Vec<ChanceRequest>, RuleError> {
        accept(&mut self.pending, outcomes, spec, &self.hands)
    }

    /// Takes a chance step during play (see [`take_in_play`]).
    pub fn take_in_play(
        &mut self,
        pending: &[ChanceRequest],
        outcomes: &[ChanceOutcome],
        fits: impl Fn(CardId, &S) -> bool,
    ) -> Result<InPlay<S>, RuleError> {
        take_in_play(&mut self.hands, &mut self.played, pending, outcomes, fits)
    }

    /// The game is over: nothing more pending.
    pub fn finish(&mut self) {
        self.phase = Phase::Done;
        self.pending.clear();
        self.played = None;
    }

    /// The offenders leave the game (see [`crate::engine::add_removed`]).
    pub fn remove(&mut self, offenders: &[Seat]) {
        crate::engine::add_removed(&mut self.removed, offenders);
    }

    /// Takes a deal into the hands (see [`take_deal`]); the lot's seat when the lot was drawn.
    pub fn take_deal(
        &mut self,
        pending: &[ChanceRequest],
        outcomes: &[ChanceOutcome],
        players: u8,
    ) -> Option<Seat> {
        take_deal(&mut self.hands, pending, outcomes, players)
    }

    /// The seats of `players` still in the game.
    pub fn seats(&self, players: u8) -> Vec<Seat> {
        crate::engine::playing(players, &self.removed)
    }
}

impl<S> Default for Board<S> {
    fn default() -> Self {
        Board::new()
    }
}

/// Who acts: the pending chance first, then the seat to move until the game is done.
pub fn to_act(pending: &[ChanceRequest], phase: Phase, turn: Seat) -> ToAct {
    crate::engine::chance_or_turn(pending, phase == Phase::Done, || turn)
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

/// A draw by `seat`: the next undealt tile, dealt privately to it.
pub fn draw(deck: DeckId, next_position: &mut u16, seat: Seat) -> Vec<ChanceRequest> {
    let position = *next_position;
    *next_position += 1;
    vec![ChanceRequest::deal(deck, position, seat)]
}

/// A tile played face down is shown before it is set: only then can every client check that it
/// fits where it was put.
pub fn reveal(deck: DeckId, position: u16) -> Vec<ChanceRequest> {
    vec![ChanceRequest::Reveal { deck, position }]
}

/// What a chance step during play brought.
pub enum InPlay<S> {
    /// A tile drawn into this seat's hand.
    Drew(Seat),
    /// The tile `seat` played at `spot`, shown: it fits, has left the hand, and is the game's
    /// to set.
    Fits {
        seat: Seat,
        tile: CardId,
        spot: S,
    },
    /// The shown tile does not fit where `seat` put it: a forged play, for the game to punish.
    Misfit {
        seat: Seat,
        tile: CardId,
        spot: S,
    },
    Nothing,
}

/// Takes a chance step during play: a drawn tile into its hand, or the shown tile of the play
/// waiting in `played`, learnt in its hand and judged by `fits` (out of the hand if it fits).
pub fn take_in_play<S>(
    hands: &mut Hands,
    played: &mut Option<(Seat, u16, S)>,
    pending: &[ChanceRequest],
    outcomes: &[ChanceOutcome],
    fits: impl Fn(CardId, &S) -> bool,
) -> Result<InPlay<S>, RuleError> {
    Ok(match (&pending[0], &outcomes[0]) {
        (ChanceRequest::Deal { to, .. }, out @ ChanceOutcome::Dealt { .. }) => {
            take_draw(hands, to[0], out);
            InPlay::Drew(to[0])
        }
        (_, ChanceOutcome::Revealed { position, card, .. }) => {
            let Some((seat, _, spot)) = played.take() else {
                return Err(RuleError::BadChance("no tile was played".into()));
            };
            learn(hands, *position, *card);
            if fits(*card, &spot) {
                if let Some(h) = hands.get_mut(&seat) {
                    h.retain(|x| x.position != *position);
                }
                InPlay::Fits {
                    seat,
                    tile: *card,
                    spot,
                }
            } else {
                InPlay::Misfit {
                    seat,
                    tile: *card,
                    spot,
                }
            }
        }
        _ => InPlay::Nothing,
    })
}

/// The result once the game is done: every seat's payoff, and the winners.
pub fn outcome(
    phase: Phase,
    players: u8,
    payoff: impl Fn(Seat) -> i64,
    winners: impl FnOnce() -> Vec<Seat>,
) -> Option<Outcome> {
    (phase == Phase::Done).then(|| Outcome {
        payoffs: (0..players).map(|s| (s, payoff(s))).collect(),
        winners: winners(),
    })
}

/// Checks a chance batch against the pending requests (every tile dealt or shown one of `spec`,
/// and the one this client already knows at its position) and takes the requests it answers.
pub fn accept(
    pending: &mut Vec<ChanceRequest>,
    outcomes: &[ChanceOutcome],
    spec: &DeckSpec,
    hands: &Hands,
) -> Result<Vec<ChanceRequest>, RuleError> {
    crate::engine::check_chance_batch(pending, outcomes, |_, o| {
        crate::engine::check_cards(o, spec, |p| known_tile(hands, p))
    })?;
    Ok(std::mem::take(pending))
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

/// The greedy bots' pick: the move `value` rates highest, the lowest such move among equals so
/// that a bot's choice does not hang on the order of equal moves.
pub fn greedy<A: Copy, V: Ord>(legal: &[A], value: impl Fn(&A) -> V) -> A {
    // `max_by_key` keeps the last of equal maxima; reversing keeps the lowest move instead.
    legal
        .iter()
        .rev()
        .max_by_key(|a| value(a))
        .copied()
        .unwrap_or(legal[0])
}

/// The [`Game`](crate::engine::Game) methods on seats that All Fives and Chickenfoot share,
/// written once: the seats are the setup's less the removed ones (`self.board`), all of them
/// take part in the tiles until the end, and a forfeit is told in the record (`Entry::Forfeited`)
/// and ends the game through the game's own `remove`. Expands inside the game's `impl Game`,
/// whose module names its own `Entry`.
macro_rules! seat_methods {
    () => {
        fn seats(&self) -> Vec<$crate::engine::Seat> {
            self.board.seats(self.setup.players)
        }

        fn participants(&self) -> Vec<$crate::engine::Seat> {
            $crate::engine::participants(self.board.done(), self.seats())
        }

        fn forfeit(
            &mut self,
            offenders: &[$crate::engine::Seat],
            reason: $crate::engine::ForfeitReason,
        ) -> Result<(), $crate::engine::RuleError> {
            let done = self.board.done();
            $crate::engine::record_forfeit(
                done,
                &self.seats(),
                offenders,
                &mut self.log,
                |seat| Entry::Forfeited { seat, reason },
            )?;
            self.remove(offenders);
            Ok(())
        }
    };
}
pub(crate) use seat_methods;

/// What the domino games' unit tests share.
#[cfg(test)]
pub mod testing {
    use super::{Hands, Held};
    use crate::cards::CardId;
    use crate::engine::{ChanceOutcome, ChanceRequest, Seat};

    /// Hands of exactly these tiles, all known (a full-information state), at deck positions
    /// from 1 on; `id` names a tile of the game's set.
    pub fn known_hands(hands: &[&[(u8, u8)]], id: impl Fn((u8, u8)) -> CardId) -> Hands {
        let mut position = 0;
        let mut out = Hands::new();
        for (s, h) in hands.iter().enumerate() {
            let tiles = h
                .iter()
                .map(|t| {
                    position += 1;
                    Held {
                        position,
                        tile: Some(id(*t)),
                    }
                })
                .collect();
            out.insert(s as Seat, tiles);
        }
        out
    }

    /// The reveals of every held tile answered from what the state knows (a full-information
    /// state).
    pub fn shown(hands: &Hands, reqs: &[ChanceRequest]) -> Vec<ChanceOutcome> {
        reqs.iter()
            .map(|r| {
                let ChanceRequest::Reveal { deck, position } = r else {
                    panic!("{r:?}")
                };
                ChanceOutcome::Revealed {
                    deck: *deck,
                    position: *position,
                    card: super::known_tile(hands, *position).unwrap(),
                }
            })
            .collect()
    }

    /// Names as seat 1 reads them: itself "you", everyone else "Ann".
    pub fn you_and_ann(s: Seat) -> String {
        if s == 1 {
            "you".into()
        } else {
            "Ann".into()
        }
    }
}
