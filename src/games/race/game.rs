//! One race of any [`Solitaire`], as the engine plays it: every entrant plays the same shuffled
//! deck alone; each learns a card only when it draws it, and the others' cards stay face down to
//! it until the race ends and every card drawn is shown.
//!
//! Each client checks its own entrant's moves in full when they are made; another entrant's in
//! form only (it cannot see that entrant's cards), and in full once the cards are shown: an
//! entrant whose moves do not follow from its cards is refused, named, and scores nothing.

use super::cards::{index_spec, RaceCards, Spot, DECK};
use super::solitaire::{validate, Phase, RaceSetup, Solitaire, Status, Verdict};
use super::standings::{leaderboard, outcome, Standing};
use crate::cards::CardId;
use crate::engine::{
    illegal, ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat,
    ToAct,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One entrant of the race.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Entrant<R: Solitaire> {
    pub seat: Seat,
    pub places: R::Places,
    pub moves: Vec<R::Action>,
    pub status: Status<R::End>,
    /// Its tally as this client checked each of its moves against the cards (it sees them);
    /// `None` once a move came that it could check in form only.
    #[serde(with = "maybe")]
    tally: Option<R::Tally>,
}

/// A decision of this round, with the tally it leads to where this client checked it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
struct Chosen<R: Solitaire> {
    action: R::Action,
    #[serde(with = "maybe")]
    tally: Option<R::Tally>,
}

/// An `Option` as a list of none or one: a tally may be `()`, which JSON writes as `null` like
/// `None`, and a state must read back as it was written.
mod maybe {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        v.as_slice().serialize(s)
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        let mut v: Vec<T> = Vec::deserialize(d)?;
        if v.len() > 1 {
            return Err(serde::de::Error::invalid_length(v.len(), &"none or one"));
        }
        Ok(v.pop())
    }
}

/// A race as one client knows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Race<R: Solitaire> {
    pub setup: R::Setup,
    pub phase: Phase,
    pub entrants: Vec<Entrant<R>>,
    /// Decisions of this round, applied together once every racing entrant chose (sealed).
    chosen: BTreeMap<Seat, Chosen<R>>,
    pending: Vec<ChanceRequest>,
    /// Reshuffle decks already asked to be shuffled.
    shuffled: BTreeSet<DeckId>,
    /// The cards this client knows (its own, and every shown one), and who was dealt which.
    cards: RaceCards,
    pub verdicts: BTreeMap<Seat, Verdict<R::Verified>>,
    /// Why the race stopped early, if it did.
    pub stopped_by: Vec<Seat>,
}

/// An entrant as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(bound = "")]
pub struct EntrantView<R: Solitaire> {
    pub seat: Seat,
    pub status: Status<R::End>,
    pub moves: usize,
    /// Its game, each card where the viewer may see it.
    pub board: R::Board,
    pub verdict: Option<Verdict<R::Verified>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(bound = "")]
pub struct RaceView<R: Solitaire> {
    pub viewer: Option<Seat>,
    pub phase: Phase,
    pub entrants: Vec<EntrantView<R>>,
    /// Whether the viewer has a decision to make now.
    pub to_choose: bool,
    pub stopped_by: Vec<Seat>,
}

impl<R: Solitaire> RaceView<R> {
    /// The viewer's own entrant.
    pub fn me(&self) -> Option<&EntrantView<R>> {
        self.entrants.iter().find(|e| Some(e.seat) == self.viewer)
    }
}

/// An entrant's game checked in full from its cards.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked<R: Solitaire> {
    pub places: R::Places,
    pub tally: R::Tally,
    pub status: Status<R::End>,
}

/// The card at `spot` of a game at `places`, reading a reshuffle's index through its pile: `raw`
/// gives what a spot opened to, where known.
pub fn face_at<R: Solitaire>(
    places: &R::Places,
    spot: Spot,
    raw: &dyn Fn(Spot) -> Option<CardId>,
) -> Option<CardId> {
    match R::reshuffles(places) {
        Some(r) => r.face(spot, raw),
        None => raw(spot),
    }
}

/// Entrant `seat`'s game checked in full from its cards: every move legal, every claim true.
/// `raw` gives what each spot opened to.
pub fn replay_entrant<R: Solitaire>(
    setup: &R::Setup,
    seat: Seat,
    moves: &[R::Action],
    raw: &dyn Fn(Spot) -> Option<CardId>,
) -> Result<Checked<R>, String> {
    let mut places = R::places(setup, seat);
    let mut tally = R::Tally::default();
    let mut status = Status::Playing;
    for (i, a) in moves.iter().enumerate() {
        let fail = |e: String| format!("{} {}: {e}", R::MOVE, i + 1);
        if status != Status::Playing {
            return Err(fail(format!("a {} after the game ended", R::MOVE)));
        }
        let next = R::after(&places, a).map_err(fail)?;
        R::check(&places, &mut tally, a, &|s| face_at::<R>(&places, s, raw)).map_err(fail)?;
        status = R::status_after(a, &next);
        places = next;
    }
    Ok(Checked {
        places,
        tally,
        status,
    })
}

impl<R: Solitaire> Race<R> {
    pub fn new(setup: &R::Setup) -> Result<Race<R>, RuleError> {
        validate::<R>(setup)?;
        let entrants = (0..setup.players())
            .map(|seat| Entrant {
                seat,
                places: R::places(setup, seat),
                moves: Vec::new(),
                status: Status::Playing,
                tally: Some(R::Tally::default()),
            })
            .collect();
        let mut race = Race {
            setup: setup.clone(),
            phase: Phase::Start,
            entrants,
            chosen: BTreeMap::new(),
            pending: vec![ChanceRequest::Shuffle {
                deck: DECK,
                spec: R::deck(setup),
            }],
            shuffled: BTreeSet::new(),
            cards: RaceCards::default(),
            verdicts: BTreeMap::new(),
            stopped_by: Vec::new(),
        };
        let first = race.draws();
        race.pending.extend(first);
        Ok(race)
    }

    pub fn entrant(&self, seat: Seat) -> Option<&Entrant<R>> {
        self.entrants.iter().find(|e| e.seat == seat)
    }

    fn racing(&self) -> Vec<Seat> {
        self.entrants
            .iter()
            .filter(|e| e.status == Status::Playing)
            .map(|e| e.seat)
            .collect()
    }

    /// The card at `spot` of entrant `seat`'s game at `places` (any point of it: a spot names
    /// one card for the whole game, and reshuffle piles are only ever added), if `viewer` may
    /// see it: its owner once dealt it, everyone once shown.
    pub fn seen_at(
        &self,
        seat: Seat,
        places: &R::Places,
        viewer: Option<Seat>,
        spot: Spot,
    ) -> Option<CardId> {
        face_at::<R>(places, spot, &|s| self.cards.visible(seat, viewer, s))
    }

    /// The card at `spot` of entrant `seat`'s game, if `viewer` may see it.
    pub fn card_seen(&self, seat: Seat, viewer: Option<Seat>, spot: Spot) -> Option<CardId> {
        self.seen_at(seat, &self.entrant(seat)?.places, viewer, spot)
    }

    /// The card at `spot` of entrant `seat`'s game, if this client knows it.
    pub fn card_known(&self, seat: Seat, spot: Spot) -> Option<CardId> {
        let e = self.entrant(seat)?;
        face_at::<R>(&e.places, spot, &|s| self.cards.card(s))
    }

    /// Entrant `seat`'s game checked in full from the cards this client knows.
    pub fn replay(&self, seat: Seat) -> Result<Checked<R>, String> {
        let e = self
            .entrant(seat)
            .ok_or_else(|| format!("seat {seat} is not in the race"))?;
        replay_entrant(&self.setup, seat, &e.moves, &|s| self.cards.card(s))
    }

    /// Entrant `seat`'s tally where this client can tell it: as it checked each move (it sees
    /// the entrant's cards), or once the race is over, from the cards shown.
    pub fn tally(&self, seat: Seat) -> Option<R::Tally> {
        if self.phase == Phase::Over {
            return self.replay(seat).ok().map(|c| c.tally);
        }
        if !self.cards.sees(seat) {
            return None;
        }
        self.entrant(seat)?.tally.clone()
    }

    /// Shuffles of the entrants' new reshuffles and sealed deals of the cards they drew. A game
    /// that ended mid-draw (Shooting Party's pile running out a third time) still gets the
    /// cards it drew, so that each is shown at the end — unless the race stopped, when a
    /// departed key holder can deal nothing more.
    fn draws(&mut self) -> Vec<ChanceRequest> {
        let mut reqs = Vec::new();
        let stopped = !self.stopped_by.is_empty();
        for e in &self.entrants {
            if !(e.status == Status::Playing || (e.status.finished() && !stopped)) {
                continue;
            }
            for (d, pile) in R::reshuffles(&e.places).into_iter().flat_map(|r| r.iter()) {
                if self.shuffled.insert(*d) {
                    reqs.push(ChanceRequest::Shuffle {
                        deck: *d,
                        spec: index_spec(pile.len()),
                    });
                }
            }
            reqs.extend(self.cards.deals(e.seat, R::drawn(&e.places)));
        }
        reqs
    }

    /// Deals what the racing entrants drew; or, when nobody races, shows every card drawn,
    /// batch after batch, then judges.
    fn next_chance(&mut self) {
        let mut reqs = self.draws();
        if reqs.is_empty() && self.racing().is_empty() {
            self.phase = Phase::Showing;
            // One holder shows each card: the lowest entrant still at the table that drew it.
            reqs = self
                .cards
                .shows(|s| self.entrant(s).is_some_and(|e| e.status != Status::Left));
            if reqs.is_empty() {
                self.judge();
                return;
            }
        }
        self.pending = reqs;
    }

    /// Every entrant's game checked against its shown cards.
    fn judge(&mut self) {
        self.phase = Phase::Over;
        let mut verdicts = BTreeMap::new();
        for e in &self.entrants {
            let v = if e.status == Status::Left {
                Verdict::Left
            } else {
                match self.replay(e.seat) {
                    Ok(c) if c.status == e.status || e.status == Status::Stopped => {
                        let ended = if e.status == Status::Stopped {
                            e.status
                        } else {
                            c.status
                        };
                        Verdict::Verified(R::verified(&c.places, &c.tally, ended))
                    }
                    Ok(c) => Verdict::Refused {
                        reason: format!(
                            "it says it {}, but by its cards it {}",
                            e.status.words(),
                            c.status.words()
                        ),
                    },
                    Err(reason) => Verdict::Refused { reason },
                }
            };
            verdicts.insert(e.seat, v);
        }
        self.verdicts = verdicts;
    }

    /// The verified results in leaderboard order.
    pub fn standings(&self) -> Vec<Standing> {
        leaderboard(
            self.entrants
                .iter()
                .filter_map(|e| match self.verdicts.get(&e.seat) {
                    Some(Verdict::Verified(v)) => Some(Standing {
                        seat: e.seat,
                        score: R::score(v),
                        finished: e.status.finished(),
                    }),
                    _ => None,
                })
                .collect(),
        )
    }

    /// The verified score and its parts of entrant `seat`.
    pub fn verified(&self, seat: Seat) -> Option<&R::Verified> {
        match self.verdicts.get(&seat)? {
            Verdict::Verified(v) => Some(v),
            _ => None,
        }
    }

    /// Entrant `seat`'s game now as `viewer` sees it.
    fn board(&self, e: &Entrant<R>, viewer: Option<Seat>) -> R::Board {
        // The tally is the entrant's own, and everyone's once its cards are shown.
        let tally = if viewer == Some(e.seat) || self.phase == Phase::Over {
            self.tally(e.seat)
        } else {
            None
        };
        R::board(
            &e.places,
            &|s| self.seen_at(e.seat, &e.places, viewer, s),
            tally,
        )
    }

    /// Entrant `seat` at `places` (a point of its game) as `viewer` sees its cards, for words
    /// about a move made there (without its tally, which is the entrant's now).
    pub fn board_at(&self, seat: Seat, places: &R::Places, viewer: Option<Seat>) -> R::Board {
        R::board(places, &|s| self.seen_at(seat, places, viewer, s), None)
    }

    /// The race's report (`demo --json`, `verify --json`): the leaderboard, each row with what
    /// `row` adds of the entrant and its verified result; each entrant's game as `game` gives
    /// it once every card drawn is shown; the refused, who stopped the race and the winners.
    pub fn race_report(
        &self,
        row: impl Fn(&Entrant<R>, &R::Verified) -> serde_json::Value,
        game: impl Fn(&Entrant<R>) -> serde_json::Value,
    ) -> serde_json::Value {
        let board: Vec<serde_json::Value> = self
            .standings()
            .iter()
            .filter_map(|r| {
                let e = self.entrant(r.seat)?;
                let mut o = serde_json::json!({
                    "seat": r.seat,
                    "score": r.score,
                    "status": e.status,
                });
                if let (Some(o), serde_json::Value::Object(more)) =
                    (o.as_object_mut(), row(e, self.verified(r.seat)?))
                {
                    o.extend(more);
                }
                Some(o)
            })
            .collect();
        let refused: Vec<serde_json::Value> = self
            .verdicts
            .iter()
            .filter_map(|(seat, v)| match v {
                Verdict::Refused { reason } => {
                    Some(serde_json::json!({"seat": seat, "reason": reason}))
                }
                _ => None,
            })
            .collect();
        // Once every card drawn is shown, each entrant's game, as anyone reading the relay can
        // replay it.
        let mut games = serde_json::Map::new();
        if self.phase == Phase::Over {
            for e in &self.entrants {
                games.insert(e.seat.to_string(), game(e));
            }
        }
        serde_json::json!({
            "entrants": self.entrants.len(),
            "leaderboard": board,
            "games": games,
            "refused": refused,
            "stopped_by": self.stopped_by,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}

impl<R: Solitaire> Game for Race<R> {
    type Action = R::Action;
    type View = RaceView<R>;
    const NAME: &'static str = R::NAME;

    fn to_act(&self) -> ToAct {
        if !self.pending.is_empty() {
            return ToAct::Chance(self.pending.clone());
        }
        match self.phase {
            Phase::Racing => ToAct::Sealed(
                self.racing()
                    .into_iter()
                    .filter(|s| !self.chosen.contains_key(s))
                    .collect(),
            ),
            _ => ToAct::Terminal,
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<R::Action> {
        if !self.to_act().includes(seat) || !self.cards.sees(seat) {
            return Vec::new();
        }
        let (Some(e), Some(tally)) = (self.entrant(seat), self.tally(seat)) else {
            return Vec::new();
        };
        let mut out =
            R::moves(&e.places, &tally, &|s| self.card_known(seat, s)).unwrap_or_default();
        out.sort();
        out.dedup();
        out
    }

    fn apply(&mut self, seat: Seat, action: &R::Action) -> Result<(), RuleError> {
        if !self.to_act().includes(seat) {
            return Err(RuleError::OutOfTurn {
                seat,
                expected: self.to_act().words(),
            });
        }
        let e = self.entrant(seat).expect("a racing seat");
        R::after(&e.places, action).map_err(|r| illegal(seat, r))?;
        let tally = if self.cards.sees(seat) {
            let mut t = e
                .tally
                .clone()
                .ok_or_else(|| illegal(seat, "its game so far does not follow from its cards"))?;
            R::check(&e.places, &mut t, action, &|s| self.card_known(seat, s))
                .map_err(|r| illegal(seat, r))?;
            Some(t)
        } else {
            None
        };
        let action = action.clone();
        self.chosen.insert(seat, Chosen { action, tally });
        if self.racing().iter().all(|s| self.chosen.contains_key(s)) {
            for (s, Chosen { action: a, tally }) in std::mem::take(&mut self.chosen) {
                let e = self
                    .entrants
                    .iter_mut()
                    .find(|e| e.seat == s)
                    .expect("entrant");
                let next = R::after(&e.places, &a).expect("checked");
                e.status = R::status_after(&a, &next);
                e.places = next;
                e.moves.push(a);
                e.tally = tally;
            }
            self.next_chance();
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        let (setup, entrants) = (&self.setup, &self.entrants);
        self.cards.record(&self.pending, outcomes, |d| {
            if d == DECK {
                return Some(R::deck(setup));
            }
            entrants
                .iter()
                .find_map(|e| R::reshuffles(&e.places)?.spec(d))
        })?;
        self.pending.clear();
        match self.phase {
            Phase::Start => self.phase = Phase::Racing,
            Phase::Showing => self.next_chance(),
            _ => {}
        }
        if self.phase == Phase::Racing && self.racing().is_empty() {
            self.next_chance();
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> RaceView<R> {
        let entrants = self
            .entrants
            .iter()
            .map(|e| EntrantView {
                seat: e.seat,
                status: e.status,
                moves: e.moves.len(),
                board: self.board(e, viewer),
                verdict: self.verdicts.get(&e.seat).cloned(),
            })
            .collect();
        RaceView {
            viewer,
            phase: self.phase,
            entrants,
            to_choose: viewer.is_some_and(|s| self.to_act().includes(s)),
            stopped_by: self.stopped_by.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<R::Action> {
        self.to_act().includes(seat).then_some(R::GIVE_UP)
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Over {
            return None;
        }
        Some(outcome(
            self.entrants.iter().map(|e| e.seat),
            &self.standings(),
        ))
    }

    fn check_invariants(&self) -> Result<(), String> {
        let cards = R::deck(&self.setup).len();
        for e in &self.entrants {
            // Every card of the deck lies in one place (reshuffled ones by their new spot),
            // and where this client knows the faces, no card twice.
            let spots = R::spots(&e.places);
            let distinct: BTreeSet<Spot> = spots.iter().copied().collect();
            if spots.len() != cards || distinct.len() != spots.len() {
                return Err(format!(
                    "seat {}'s cards are {} places, not the deck's {cards}",
                    e.seat,
                    distinct.len()
                ));
            }
            let mut faces = BTreeSet::new();
            for s in &spots {
                if let Some(c) = self.card_known(e.seat, *s) {
                    if !faces.insert(c) {
                        return Err(format!("seat {} holds a card twice", e.seat));
                    }
                }
            }
            R::invariants(&e.places, self.tally(e.seat).as_ref(), &|s| {
                self.card_known(e.seat, s)
            })
            .map_err(|r| format!("seat {}: {r}", e.seat))?;
        }
        Ok(())
    }

    fn probe_actions(&self, seat: Seat) -> Vec<R::Action> {
        let mut v = self.legal_actions(seat);
        v.extend(R::probes());
        v
    }

    fn seats(&self) -> Vec<Seat> {
        self.entrants
            .iter()
            .filter(|e| e.status != Status::Left)
            .map(|e| e.seat)
            .collect()
    }

    fn participants(&self) -> Vec<Seat> {
        if self.phase == Phase::Over {
            return Vec::new();
        }
        self.seats()
    }

    fn forfeit(&mut self, offenders: &[Seat], _reason: ForfeitReason) -> Result<(), RuleError> {
        if self.phase == Phase::Over {
            return Err(RuleError::Finished);
        }
        // The offenders' key shares are gone: nobody can draw again. The race stops; every
        // entrant still at the table shows what it drew and is judged on it.
        self.chosen.clear();
        self.pending.clear();
        for e in self.entrants.iter_mut() {
            if offenders.contains(&e.seat) {
                e.status = Status::Left;
            } else if e.status == Status::Playing {
                e.status = Status::Stopped;
            }
        }
        self.stopped_by.extend(offenders.iter().copied());
        self.stopped_by.sort_unstable();
        self.stopped_by.dedup();
        if self.phase == Phase::Start {
            self.phase = Phase::Racing;
        }
        self.next_chance();
        Ok(())
    }
}
