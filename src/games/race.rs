//! The kit the solitaires raced by npub share (Scoundrel, The Bogey, Shooting Party): what a
//! client knows of a race's cards, the chance requests that deal them sealed to one entrant and
//! show them at the end, an entrant's piles reshuffled as decks of indices nobody can steer, the
//! leaderboard's order and outcome, and the bot-against-random measurement on the same deals.
//!
//! A duplicate race deals the same position of a deck to several entrants, each only when that
//! entrant draws it ([`ChanceRequest::DealSealed`], PROTOCOL.md §5.12), and once nobody races
//! any more one entrant that holds each card drawn shows it ([`ChanceRequest::Show`]) so that
//! every client can check every entrant's game against its cards.

use crate::bots::Bot;
use crate::cards::{CardId, DeckSpec};
use crate::engine::sim::{play_out, Oracle};
use crate::engine::{
    check_cards, check_chance_batch, ChanceOutcome, ChanceRequest, DeckId, Game, Outcome,
    RuleError, Seat,
};
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

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

/// The order a script gives one reshuffle: position `i` of the new deck is the pile's card
/// `order[i]` (0 = the pile's first).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedReshuffle {
    pub seat: Seat,
    pub order: Vec<u16>,
}

/// Puts each entrant's scripted reshuffles, in the order they happen, in `chance`.
pub fn script_reshuffles(chance: &mut crate::engine::sim::Script, list: &[ScriptedReshuffle]) {
    let mut count: BTreeMap<Seat, usize> = BTreeMap::new();
    for r in list {
        let n = count.entry(r.seat).or_default();
        chance.decks.insert(
            reshuffle_deck(r.seat, *n),
            r.order.iter().map(|i| CardId(*i)).collect(),
        );
        *n += 1;
    }
}

/// A race's move that stops the entrant (its give-up).
pub trait GiveUp {
    fn is_give_up(&self) -> bool;
}

/// The random player the solitaires' bots are measured against: uniform over the legal moves
/// other than giving up (one that gives up at random ends nearly every game on its first moves
/// and would flatter any bot).
pub struct RandomPlayer<R> {
    rng: R,
}

impl<R: rand::Rng> RandomPlayer<R> {
    pub fn new(rng: R) -> Self {
        RandomPlayer { rng }
    }
}

impl<G: Game, R: rand::Rng + Send> Bot<G> for RandomPlayer<R>
where
    G::Action: GiveUp,
{
    fn choose(&mut self, _view: &G::View, legal: &[G::Action]) -> G::Action {
        let playing: Vec<&G::Action> = legal.iter().filter(|a| !a.is_give_up()).collect();
        match playing.as_slice() {
            [] => legal[self.rng.gen_range(0..legal.len())].clone(),
            some => some[self.rng.gen_range(0..some.len())].clone(),
        }
    }

    fn name(&self) -> &str {
        "random"
    }
}

/// One verified result of a race.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    pub seat: Seat,
    pub score: i32,
    /// Finished its game; a stopped entrant (the race ended under it) is listed after the
    /// finished ones and cannot win.
    pub finished: bool,
}

/// Verified results in leaderboard order: finished entrants by score, best first, then stopped
/// ones by score; ties by seat.
pub fn leaderboard(mut rows: Vec<Standing>) -> Vec<Standing> {
    rows.sort_by_key(|r| (!r.finished, -r.score, r.seat));
    rows
}

/// The place of `board[i]` (1 first); a finished entrant tied with others shares the place of
/// the first of them.
pub fn place(board: &[Standing], i: usize) -> usize {
    let me = board[i];
    1 + board[..i]
        .iter()
        .filter(|r| r.finished && r.score > me.score)
        .count()
}

/// A race's outcome from its leaderboard: the finished entrants with the best verified score
/// win (together when tied); each finished entrant's payoff is its score, everyone else's 0.
pub fn outcome(seats: impl IntoIterator<Item = Seat>, board: &[Standing]) -> Outcome {
    let best = board.iter().filter(|r| r.finished).map(|r| r.score).max();
    let winners = board
        .iter()
        .filter(|r| r.finished && Some(r.score) == best)
        .map(|r| r.seat)
        .collect();
    let payoffs = seats
        .into_iter()
        .map(|s| {
            let score = board
                .iter()
                .find(|r| r.seat == s && r.finished)
                .map(|r| i64::from(r.score))
                .unwrap_or(0);
            (s, score)
        })
        .collect();
    Outcome { payoffs, winners }
}

/// A game's bot and the random player on the same deals (a two-entrant race per deal, so both
/// play the same cards): mean scores with their standard errors, and win rates.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    pub deals: u64,
    pub bot_mean: f64,
    pub bot_se: f64,
    pub random_mean: f64,
    pub random_se: f64,
    /// Share of deals the entrant won its solitaire (escaped the dungeon, played every card).
    pub bot_wins: f64,
    pub random_wins: f64,
    /// Mean of (bot − random) per deal, and its standard error.
    pub margin: f64,
    pub margin_se: f64,
}

/// Mean and its standard error.
pub fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, (var / n).sqrt())
}

/// Plays `deals` two-entrant races, `bot(k)` in seat 0 against `random(k)` in seat 1 on deal
/// `k`, every deal drawn from `seed`: reproducible. `won` says whether a seat won its solitaire.
pub fn duplicate<G: Game>(
    deals: u64,
    seed: u64,
    new_race: impl Fn() -> G,
    mut bot: impl FnMut(u64) -> Box<dyn Bot<G>>,
    mut random: impl FnMut(u64) -> Box<dyn Bot<G>>,
    won: impl Fn(&G, Seat) -> bool,
) -> Duplicate {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed));
    let (mut smart_scores, mut random_scores, mut diff) = (Vec::new(), Vec::new(), Vec::new());
    let (mut smart_won, mut random_won) = (0u64, 0u64);
    for k in 0..deals {
        let mut g = new_race();
        let mut smart = bot(k);
        let mut random = random(k);
        let (o, _) = play_out(&mut g, &mut oracle, 100_000, |g, seat, legal| {
            let v = g.view(Some(seat));
            if seat == 0 {
                smart.choose(&v, &legal)
            } else {
                random.choose(&v, &legal)
            }
        })
        .expect("a race ends");
        let score = |s: Seat| {
            o.payoffs
                .iter()
                .find(|(x, _)| *x == s)
                .map(|x| x.1)
                .unwrap_or(0) as f64
        };
        smart_scores.push(score(0));
        random_scores.push(score(1));
        diff.push(score(0) - score(1));
        smart_won += u64::from(won(&g, 0));
        random_won += u64::from(won(&g, 1));
    }
    let (bot_mean, bot_se) = mean_se(&smart_scores);
    let (random_mean, random_se) = mean_se(&random_scores);
    let (margin, margin_se) = mean_se(&diff);
    Duplicate {
        deals,
        bot_mean,
        bot_se,
        random_mean,
        random_se,
        bot_wins: smart_won as f64 / deals as f64,
        random_wins: random_won as f64 / deals as f64,
        margin,
        margin_se,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_a_place_and_a_stopped_entrant_never_wins() {
        let board = leaderboard(vec![
            Standing {
                seat: 2,
                score: 30,
                finished: false,
            },
            Standing {
                seat: 0,
                score: 10,
                finished: true,
            },
            Standing {
                seat: 1,
                score: 10,
                finished: true,
            },
            Standing {
                seat: 3,
                score: 4,
                finished: true,
            },
        ]);
        let seats: Vec<Seat> = board.iter().map(|r| r.seat).collect();
        assert_eq!(seats, vec![0, 1, 3, 2]);
        assert_eq!(
            (place(&board, 0), place(&board, 1), place(&board, 2)),
            (1, 1, 3)
        );
        let o = outcome(0..4, &board);
        assert_eq!(o.winners, vec![0, 1]);
        assert_eq!(o.payoffs, vec![(0, 10), (1, 10), (2, 0), (3, 4)]);
    }

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
