//! Bots for Shooting Party that see only their view (protocol/rules/shooting-party.md §10).
//!
//! [`AgentBot`] plays for contact: it makes contact whenever a lone queen allows it, clears the
//! room around a queen with the discards that take the most other guests (spouses and
//! attachés first, who would otherwise force her out or the room to be left), brings a queen
//! back with the joker when it has none, sends the joker for her ace when it has a queen whose
//! ace is still in the pile, and otherwise draws a pair or leaves the room. [`RandomPlayer`] is
//! the race kit's baseline: uniform over the legal moves except that it never gives up.

use super::game::{
    card_of, rank, suit, Action, Board, End, Party, PartyView, ACE, DRAW_AT_MOST, JACK, JOKER,
    KING, QUEEN,
};
use super::{Setup, ShootingParty};
use crate::bots::Bot;
use crate::cards::{CardId, Suit};
use crate::games::race::{Duplicate, RandomPlayer};
use rand::Rng;

/// What the bot knows of its own game.
struct Seen {
    hand: Vec<CardId>,
    discards: Vec<CardId>,
    aces: Vec<CardId>,
    scored: Vec<CardId>,
    search: Vec<Option<CardId>>,
}

impl Seen {
    fn of(e: &Board) -> Option<Seen> {
        let all = |v: &[Option<CardId>]| v.iter().copied().collect::<Option<Vec<_>>>();
        Some(Seen {
            hand: all(&e.hand)?,
            discards: all(&e.discards)?,
            aces: all(&e.aces)?,
            scored: all(&e.scored)?,
            search: e.search.clone().unwrap_or_default(),
        })
    }

    fn queen(&self) -> Option<(usize, Suit)> {
        self.hand
            .iter()
            .position(|c| rank(*c) == Some(QUEEN))
            .and_then(|i| Some((i, suit(self.hand[i])?)))
    }

    /// Whether the ace of `s` can still be scored: her queen is not on the score pile.
    fn ace_wanted(&self, s: Suit) -> bool {
        !self.scored.contains(&card_of(QUEEN, s))
    }

    /// Whether the ace of `s` is neither displayed nor used: it lies in the draw pile.
    fn ace_in_pile(&self, s: Suit) -> bool {
        let a = card_of(ACE, s);
        !self.aces.contains(&a) && !self.scored.contains(&a) && !self.discards.contains(&a)
    }
}

/// How much a discard of these hand slots clears the room around `queen` (a slot): the guests
/// it takes, more for spouses and attachés; never the queen herself.
fn clearing(seen: &Seen, slots: &[u8], queen: Option<usize>) -> Option<f64> {
    if queen.is_some_and(|q| slots.contains(&(q as u8))) {
        return None;
    }
    let mut v = 0.0;
    for s in slots {
        let c = seen.hand[usize::from(*s)];
        v += match rank(c) {
            Some(KING) => 1.4,
            Some(JACK) => 1.2,
            Some(QUEEN) => 0.5,
            _ => 1.0,
        };
    }
    Some(v)
}

/// The move the bot makes from its view.
pub fn pick(view: &PartyView, legal: &[Action]) -> Option<Action> {
    let playing: Vec<&Action> = legal.iter().filter(|a| **a != Action::GiveUp).collect();
    if let [only] = playing.as_slice() {
        return Some((*only).clone());
    }
    let seen = view.me().and_then(|e| Seen::of(&e.board))?;
    // The search: the ace whose queen is in the room, else any ace still wanted.
    let takes: Vec<(u8, CardId)> = playing
        .iter()
        .filter_map(|a| match a {
            Action::TakeAce { at } => Some((*at, seen.search.get(usize::from(*at))?.as_ref()?)),
            _ => None,
        })
        .map(|(at, c)| (at, *c))
        .collect();
    if !takes.is_empty() {
        let queen = seen.queen().map(|q| q.1);
        let best = takes
            .iter()
            .max_by_key(|(at, c)| {
                let s = suit(*c);
                (
                    s == queen,
                    s.is_some_and(|s| seen.ace_wanted(s)),
                    std::cmp::Reverse(*at),
                )
            })
            .expect("some ace");
        return Some(Action::TakeAce { at: best.0 });
    }
    if let Some(c) = playing.iter().find(|a| matches!(a, Action::Contact { .. })) {
        return Some((*c).clone());
    }
    let queen = seen.queen();
    let qslot = queen.map(|q| q.0);
    // The discard that clears the most around the queen (or the room, without one).
    let best_discard = playing
        .iter()
        .filter_map(|a| match a {
            Action::Discard { slots } => clearing(&seen, slots, qslot).map(|v| (v, *a)),
            _ => None,
        })
        .max_by(|x, y| x.0.total_cmp(&y.0))
        .map(|(_, a)| a.clone());
    let joker = seen.hand.iter().position(|c| *c == JOKER).map(|j| j as u8);
    match queen {
        Some((_, s)) => {
            if let Some(d) = best_discard {
                return Some(d);
            }
            if let Some(slot) = joker {
                // Her ace from the pile is worth the joker while other guests can still be
                // cleared by pairs; a joker that leaves her alone is contact next.
                let others = seen.hand.len() - 2;
                let search = Action::Search { slot };
                if others > 0 && seen.ace_in_pile(s) && legal.contains(&search) {
                    return Some(search);
                }
                return Some(Action::Joker { slot });
            }
        }
        None => {
            if let Some(slot) = joker {
                // Bring a queen back whose spouse is not in the room (he would lead her out).
                for (i, c) in seen.discards.iter().enumerate() {
                    if rank(*c) == Some(QUEEN) {
                        let s = suit(*c);
                        let spouse = s.is_some_and(|s| seen.hand.contains(&card_of(KING, s)));
                        let scored = seen.scored.contains(c);
                        if !spouse && !scored {
                            return Some(Action::Retrieve {
                                slot,
                                card: i as u8,
                            });
                        }
                    }
                }
            }
            if let Some(d) = best_discard {
                return Some(d);
            }
        }
    }
    if seen.hand.len() <= DRAW_AT_MOST && playing.contains(&&Action::Draw) {
        return Some(Action::Draw);
    }
    if let Some(slot) = joker {
        return Some(Action::Joker { slot });
    }
    Some(Action::Leave)
}

/// The bot that plays for contact.
pub struct AgentBot<R> {
    rng: R,
}

impl<R: Rng> AgentBot<R> {
    pub fn new(rng: R) -> Self {
        AgentBot { rng }
    }
}

impl<R: Rng + Send> Bot<ShootingParty> for AgentBot<R> {
    fn choose(&mut self, view: &PartyView, legal: &[Action]) -> Action {
        match pick(view, legal) {
            Some(a) if legal.contains(&a) => a,
            _ => {
                let playing: Vec<&Action> =
                    legal.iter().filter(|a| **a != Action::GiveUp).collect();
                if playing.is_empty() {
                    legal[0].clone()
                } else {
                    playing[self.rng.gen_range(0..playing.len())].clone()
                }
            }
        }
    }

    fn name(&self) -> &str {
        "agent"
    }
}

/// The agent bot (seat 0) and the random player (seat 1) on `deals` deals drawn from `seed`:
/// reproducible. A win is all four sources contacted.
pub fn duplicate(deals: u64, seed: u64) -> Duplicate {
    crate::games::race::duplicate::<Party>(
        deals,
        seed,
        &Setup { players: 2 },
        |rng| Box::new(AgentBot::new(rng)),
        |rng| Box::new(RandomPlayer::new(rng)),
        End::AllContacted,
    )
}
