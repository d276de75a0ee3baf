//! The Bogey's rules as a duplicate race (protocol/rules/the-bogey.md): every entrant plays the
//! same shuffled deck alone, drawing its hand and the bogey's cards from it; each learns a card
//! only when it draws it, and the others' cards stay face down to it until the race ends and
//! every card drawn is shown.
//!
//! An entrant's discards, once its deck runs out, become a new deck that every entrant shuffles
//! (a deck of *indices* into the discard pile, so that nobody else learns what was discarded,
//! and the entrant, who knows its discards, does not know their new order).
//!
//! Each client checks its own entrant's moves in full when they are made; another entrant's in
//! form only (it cannot see that entrant's cards), and in full once the cards are shown (§6): an
//! entrant whose moves do not follow from its cards is refused, named, and scores nothing.

use crate::cards::{CardId, DeckSpec, PlayingCard, Suit};
use crate::engine::{
    illegal, ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat,
    ToAct,
};
use crate::games::race::{self, RaceCards, Reshuffles, Spot, Standing};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The race's deck: the 52 cards every entrant draws from, in the same order.
pub const DECK: DeckId = 0;
/// Cards in the deck.
pub const CARDS: u16 = 52;
/// Columns the table holds at most.
pub const MAX_COLUMNS: usize = 12;

pub use crate::games::race::{index_spec, reshuffle_deck};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Entrants racing the one deal (1 plays a practice game alone).
    pub players: u8,
    /// Cards in a full hand: 5, or 4 in the harder variant.
    #[serde(default = "five")]
    pub hand: u8,
}

fn five() -> u8 {
    5
}

impl Setup {
    pub fn validate(&self) -> Result<(), RuleError> {
        if !(1..=6).contains(&self.players) {
            return Err(RuleError::Setup(format!(
                "a Bogey race takes 1 to 6 entrants, not {}",
                self.players
            )));
        }
        if !(4..=5).contains(&self.hand) {
            return Err(RuleError::Setup(format!(
                "a hand holds 5 cards (4 in the harder variant), not {}",
                self.hand
            )));
        }
        Ok(())
    }
}

/// A card's rank for columns: A 1 (lowest) to K 13.
pub fn rank(c: CardId) -> u8 {
    PlayingCard::from_id(c).rank
}

pub fn suit(c: CardId) -> Suit {
    PlayingCard::from_id(c).suit
}

/// A card as people read it: "7♣", "10♦".
pub fn card_name(c: CardId) -> String {
    let p = PlayingCard::from_id(c);
    format!("{}{}", p.rank_str(), p.suit.symbol())
}

/// Whether `c` may go under a column whose cards are `column` (top first): same suit, lower
/// than the card at its bottom.
pub fn fits(column: &[CardId], c: CardId) -> bool {
    column
        .last()
        .is_some_and(|b| suit(*b) == suit(c) && rank(*b) > rank(c))
}

/// The level a won game reaches by its columns (the author's table).
pub fn level(columns: usize) -> &'static str {
    match columns {
        0..=8 => "epic",
        9 => "legendary",
        10 => "advanced",
        11 => "normal",
        _ => "novice",
    }
}

/// Where a card goes on the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// Under the bottom card of column `n` (0-based, in the order the columns were started).
    Column(u8),
    /// Starts a new column.
    New,
}

/// One decision of an entrant (§3). Its serde JSON is the wire format of a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Plays the hand's card in `slot` (0-based) to the table.
    Play { slot: u8, to: Place },
    /// Discards the hand's card in `slot`.
    Discard { slot: u8 },
    /// Ends the turn holding the rest of the hand; the bogey plays. A turn that played and
    /// discarded nothing is a pass.
    EndTurn,
    /// Plays the bogey's card where the entrant chooses.
    Place { to: Place },
    /// The bogey's card fits nowhere: the game is lost (checked once the cards are shown).
    Stuck,
    /// The entrant stops and is scored as lost (also the timeout move, §7).
    GiveUp,
}

/// How an entrant's game stands, as everyone knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Playing,
    /// Every card is on the table.
    Won,
    /// Says the bogey's card fit nowhere (checked once its cards are shown).
    Lost,
    GaveUp,
    /// Still playing when the race had to stop (another entrant left, §8).
    Stopped,
    /// Removed from the race by the table (§8): no score.
    Left,
}

impl Status {
    /// What became of the entrant, in words.
    pub fn words(self) -> &'static str {
        match self {
            Status::Playing => "is still playing",
            Status::Won => "played every card",
            Status::Lost => "lost to the bogey",
            Status::GaveUp => "gave up",
            Status::Stopped => "was stopped by the end of the race",
            Status::Left => "left the race",
        }
    }

    /// The state beside a name in a list.
    pub fn label(self) -> &'static str {
        match self {
            Status::Playing => "playing",
            Status::Won => "won",
            Status::Lost => "lost",
            Status::GaveUp => "gave up",
            Status::Stopped => "stopped",
            Status::Left => "left the race",
        }
    }

    pub fn finished(self) -> bool {
        matches!(self, Status::Won | Status::Lost | Status::GaveUp)
    }
}

/// Where an entrant's cards are, by spot (deck and position): what every client knows of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Places {
    pub seat: Seat,
    /// Cards in a full hand.
    pub hand_size: u8,
    /// The draw pile, top first.
    pub deck: Vec<Spot>,
    pub hand: Vec<Spot>,
    /// Each column top first; a column's suit is its first card's.
    pub columns: Vec<Vec<Spot>>,
    /// Oldest first.
    pub discards: Vec<Spot>,
    /// The bogey's card, drawn and waiting to be placed.
    pub bogey: Option<Spot>,
    /// Each reshuffle's deck and the discards it shuffled, in discard order.
    pub reshuffles: Reshuffles,
    /// Turns begun.
    pub turn: u32,
    /// This turn played or discarded a card (a turn that did neither is a pass).
    pub acted: bool,
}

/// Which decision an entrant faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Awaits {
    /// Its turn: play, discard, or end the turn.
    Hand,
    /// Where the bogey's card goes.
    Bogey,
}

impl Places {
    pub fn new(seat: Seat, hand_size: u8) -> Places {
        let mut p = Places {
            seat,
            hand_size,
            deck: (0..CARDS).map(|i| (DECK, i)).collect(),
            hand: Vec::new(),
            columns: Vec::new(),
            discards: Vec::new(),
            bogey: None,
            reshuffles: Reshuffles::default(),
            turn: 0,
            acted: false,
        };
        p.start_turn();
        p
    }

    pub fn awaits(&self) -> Awaits {
        if self.bogey.is_some() {
            Awaits::Bogey
        } else {
            Awaits::Hand
        }
    }

    pub fn on_table(&self) -> usize {
        self.columns.iter().map(Vec::len).sum()
    }

    /// Every card is on the table.
    pub fn complete(&self) -> bool {
        self.on_table() == usize::from(CARDS)
    }

    /// The discard pile shuffled by `reshuffle` deck `deck`, if it is one of this entrant's.
    pub fn pile(&self, deck: DeckId) -> Option<&[Spot]> {
        self.reshuffles.pile(deck)
    }

    /// The card at `spot`, reading a reshuffle's index through its discard pile: `raw` gives
    /// what a spot opened to, where known.
    pub fn face(&self, spot: Spot, raw: &dyn Fn(Spot) -> Option<CardId>) -> Option<CardId> {
        self.reshuffles.face(spot, raw)
    }

    /// The top card of the deck; an empty deck is first replaced by the discards, shuffled
    /// (§4): a single discard needs no shuffle and is drawn where it is.
    fn draw(&mut self) -> Option<Spot> {
        if self.deck.is_empty() {
            if self.discards.is_empty() {
                return None;
            }
            let pile = std::mem::take(&mut self.discards);
            self.deck = self.reshuffles.shuffle(self.seat, pile);
        }
        Some(self.deck.remove(0))
    }

    /// A turn begins: the hand is drawn up to its size (fewer once nothing is left to draw).
    fn start_turn(&mut self) {
        self.turn += 1;
        self.acted = false;
        while self.hand.len() < usize::from(self.hand_size) {
            match self.draw() {
                Some(s) => self.hand.push(s),
                None => break,
            }
        }
    }

    /// The bogey draws its card; with nothing left to draw it has none, and the next turn
    /// begins at once (§3.4).
    fn bogey_draws(&mut self) {
        match self.draw() {
            Some(s) => self.bogey = Some(s),
            None => self.start_turn(),
        }
    }

    fn check_place(&self, to: Place) -> Result<(), String> {
        match to {
            Place::Column(n) if usize::from(n) >= self.columns.len() => Err(format!(
                "there is no column {} (the table has {})",
                n + 1,
                self.columns.len()
            )),
            Place::New if self.columns.len() >= MAX_COLUMNS => Err(format!(
                "the table already has {MAX_COLUMNS} columns: no new one can be started"
            )),
            _ => Ok(()),
        }
    }

    fn put(&mut self, spot: Spot, to: Place) {
        match to {
            Place::Column(n) => self.columns[usize::from(n)].push(spot),
            Place::New => self.columns.push(vec![spot]),
        }
    }

    fn slot(&self, slot: u8) -> Result<Spot, String> {
        self.hand.get(usize::from(slot)).copied().ok_or_else(|| {
            format!(
                "the hand has {} cards: there is no card {}",
                self.hand.len(),
                slot + 1
            )
        })
    }

    /// Whether ending the turn now is allowed: not a pass when the bogey has nothing to play
    /// (it would change nothing, §3.3).
    pub fn may_end_turn(&self) -> bool {
        self.acted || !self.deck.is_empty() || !self.discards.is_empty()
    }

    /// The move's form (§3): the right decision, slots and columns that exist, a column left
    /// to start. Returns the places after it.
    pub fn after(&self, a: &Action) -> Result<Places, String> {
        let mut p = self.clone();
        let hand_move = matches!(
            a,
            Action::Play { .. } | Action::Discard { .. } | Action::EndTurn
        );
        if hand_move && self.awaits() == Awaits::Bogey {
            return Err("the bogey's card must be placed first".into());
        }
        match *a {
            Action::GiveUp => {}
            Action::Play { slot, to } => {
                let s = self.slot(slot)?;
                self.check_place(to)?;
                p.hand.remove(usize::from(slot));
                p.put(s, to);
                p.acted = true;
            }
            Action::Discard { slot } => {
                let s = self.slot(slot)?;
                p.hand.remove(usize::from(slot));
                p.discards.push(s);
                p.acted = true;
            }
            Action::EndTurn => {
                if !self.may_end_turn() {
                    return Err(
                        "the bogey has no card to play (the deck and the discards are \
                                empty): play or discard a card first"
                            .into(),
                    );
                }
                p.bogey_draws();
            }
            Action::Place { to } => {
                let Some(s) = self.bogey else {
                    return Err("the bogey has no card waiting to be placed".into());
                };
                self.check_place(to)?;
                p.put(s, to);
                p.bogey = None;
                if !p.complete() {
                    p.start_turn();
                }
            }
            Action::Stuck => {
                if self.bogey.is_none() {
                    return Err("the bogey has no card waiting to be placed".into());
                }
                if self.columns.len() < MAX_COLUMNS {
                    return Err(format!(
                        "with {} columns a new one can always take the bogey's card",
                        self.columns.len()
                    ));
                }
            }
        }
        Ok(p)
    }

    /// Checks a move against the cards (§3, §5): a card played or placed under a column fits
    /// it, and `stuck` is true. `face` gives each card of this entrant's game.
    pub fn check_cards(
        &self,
        a: &Action,
        face: &dyn Fn(Spot) -> Option<CardId>,
    ) -> Result<(), String> {
        let card = |s: Spot| face(s).ok_or_else(|| "one of its cards was never shown".to_string());
        let column = |n: u8| -> Result<Vec<CardId>, String> {
            self.columns[usize::from(n)]
                .iter()
                .map(|s| card(*s))
                .collect()
        };
        let name = card_name;
        let check_fit = |c: CardId, to: Place| -> Result<(), String> {
            if let Place::Column(n) = to {
                let col = column(n)?;
                if !fits(&col, c) {
                    return Err(format!(
                        "{} does not fit under column {} (its bottom card is {})",
                        name(c),
                        n + 1,
                        col.last().map(|b| name(*b)).unwrap_or_default()
                    ));
                }
            }
            Ok(())
        };
        match *a {
            Action::Play { slot, to } => check_fit(card(self.hand[usize::from(slot)])?, to),
            Action::Place { to } => check_fit(card(self.bogey.expect("checked in form"))?, to),
            Action::Stuck => {
                let c = card(self.bogey.expect("checked in form"))?;
                for n in 0..self.columns.len() {
                    if fits(&column(n as u8)?, c) {
                        return Err(format!(
                            "says the bogey's {} fits nowhere, but it fits under column {}",
                            name(c),
                            n + 1
                        ));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// An entrant's game checked in full from its cards: every move legal, every claim true. `raw`
/// gives what each spot opened to.
pub fn replay_entrant(
    seat: Seat,
    hand_size: u8,
    moves: &[Action],
    raw: &dyn Fn(Spot) -> Option<CardId>,
) -> Result<(Places, Status), String> {
    let mut places = Places::new(seat, hand_size);
    let mut status = Status::Playing;
    for (i, a) in moves.iter().enumerate() {
        let fail = |e: String| format!("move {}: {e}", i + 1);
        if status != Status::Playing {
            return Err(fail("a move after the game ended".into()));
        }
        let next = places.after(a).map_err(fail)?;
        places
            .check_cards(a, &|s| places.face(s, raw))
            .map_err(fail)?;
        status = status_after(a, &next);
        places = next;
    }
    Ok((places, status))
}

/// What a move leaves the entrant as.
fn status_after(a: &Action, next: &Places) -> Status {
    match a {
        Action::GiveUp => Status::GaveUp,
        Action::Stuck => Status::Lost,
        _ if next.complete() => Status::Won,
        _ => Status::Playing,
    }
}

/// A game's score (§5): the cards on the table, and for a won game 13 − its columns on top (a
/// win with fewer columns ranks higher; any win above any loss).
pub fn score(places: &Places, status: Status) -> i32 {
    let table = places.on_table() as i32;
    if status == Status::Won {
        table + 13 - places.columns.len() as i32
    } else {
        table
    }
}

/// One entrant of the race.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub seat: Seat,
    pub places: Places,
    pub moves: Vec<Action>,
    pub status: Status,
}

/// How an entrant's game was judged once its cards were shown (§6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every move followed from the cards: the score stands.
    Verified {
        score: i32,
        on_table: usize,
        columns: usize,
    },
    /// A move did not follow from the cards: no score.
    Refused { reason: String },
    /// Removed from the race.
    Left,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The deck is shuffled and the first hands dealt.
    Start,
    /// Entrants decide (sealed, all at once), then the cards they draw are dealt.
    Racing,
    /// Every card drawn is shown by an entrant who holds it.
    Showing,
    Over,
}

/// A Bogey race as one client knows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TheBogey {
    pub setup: Setup,
    pub phase: Phase,
    pub entrants: Vec<Entrant>,
    /// Decisions of this round, applied together once every racing entrant chose (sealed).
    chosen: BTreeMap<Seat, Action>,
    pending: Vec<ChanceRequest>,
    /// Reshuffle decks already asked to be shuffled.
    shuffled: BTreeSet<DeckId>,
    /// The cards this client knows and who was dealt which.
    cards: RaceCards,
    pub verdicts: BTreeMap<Seat, Verdict>,
    /// Why the race stopped early, if it did.
    pub stopped_by: Vec<Seat>,
}

/// An entrant as one viewer sees it: every spot, with its card where the viewer may see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntrantView {
    pub seat: Seat,
    pub status: Status,
    pub awaits: Awaits,
    pub turn: u32,
    pub moves: usize,
    pub deck_left: usize,
    pub hand: Vec<Option<CardId>>,
    pub columns: Vec<Vec<Option<CardId>>>,
    /// Oldest first.
    pub discards: Vec<Option<CardId>>,
    /// The bogey's card waiting to be placed (`Some(None)`: there is one, face down to the
    /// viewer).
    pub bogey: Option<Option<CardId>>,
    pub may_end_turn: bool,
    pub reshuffles: usize,
    pub verdict: Option<Verdict>,
}

impl EntrantView {
    pub fn on_table(&self) -> usize {
        self.columns.iter().map(Vec::len).sum()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BogeyView {
    pub viewer: Option<Seat>,
    pub phase: Phase,
    pub hand_size: u8,
    pub entrants: Vec<EntrantView>,
    /// Whether the viewer has a decision to make now.
    pub to_choose: bool,
    pub stopped_by: Vec<Seat>,
}

impl BogeyView {
    /// The viewer's own entrant.
    pub fn me(&self) -> Option<&EntrantView> {
        self.entrants.iter().find(|e| Some(e.seat) == self.viewer)
    }
}

impl TheBogey {
    pub fn new(setup: &Setup) -> Result<TheBogey, RuleError> {
        setup.validate()?;
        let entrants: Vec<Entrant> = (0..setup.players)
            .map(|seat| Entrant {
                seat,
                places: Places::new(seat, setup.hand),
                moves: Vec::new(),
                status: Status::Playing,
            })
            .collect();
        let cards = RaceCards::default();
        let mut pending = vec![ChanceRequest::Shuffle {
            deck: DECK,
            spec: DeckSpec::standard(1),
        }];
        for e in &entrants {
            pending.extend(cards.deals(e.seat, e.places.hand.iter().copied()));
        }
        Ok(TheBogey {
            setup: setup.clone(),
            phase: Phase::Start,
            entrants,
            chosen: BTreeMap::new(),
            pending,
            shuffled: BTreeSet::new(),
            cards,
            verdicts: BTreeMap::new(),
            stopped_by: Vec::new(),
        })
    }

    pub fn entrant(&self, seat: Seat) -> Option<&Entrant> {
        self.entrants.iter().find(|e| e.seat == seat)
    }

    fn racing(&self) -> Vec<Seat> {
        self.entrants
            .iter()
            .filter(|e| e.status == Status::Playing)
            .map(|e| e.seat)
            .collect()
    }

    /// The card at `spot` of entrant `seat`'s game, if `viewer` may see it.
    pub fn card_seen(&self, seat: Seat, viewer: Option<Seat>, spot: Spot) -> Option<CardId> {
        let e = self.entrant(seat)?;
        e.places
            .face(spot, &|s| self.cards.visible(seat, viewer, s))
    }

    /// The card at `spot` of entrant `seat`'s game, if this client knows it.
    pub fn card_known(&self, seat: Seat, spot: Spot) -> Option<CardId> {
        let e = self.entrant(seat)?;
        e.places.face(spot, &|s| self.cards.card(s))
    }

    /// Shuffles every new reshuffle and deals each racing entrant the cards it drew; or, when
    /// nobody races, shows every card drawn (§2, §4, §6).
    fn next_chance(&mut self) {
        let mut reqs = Vec::new();
        for e in &self.entrants {
            if e.status != Status::Playing {
                continue;
            }
            for (d, pile) in e.places.reshuffles.iter() {
                if self.shuffled.insert(*d) {
                    reqs.push(ChanceRequest::Shuffle {
                        deck: *d,
                        spec: index_spec(pile.len()),
                    });
                }
            }
            let drawn = e.places.hand.iter().chain(&e.places.bogey).copied();
            reqs.extend(self.cards.deals(e.seat, drawn));
        }
        if reqs.is_empty() && self.racing().is_empty() {
            self.phase = Phase::Showing;
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

    /// Every entrant's game checked against its shown cards (§6).
    fn judge(&mut self) {
        self.phase = Phase::Over;
        let mut verdicts = BTreeMap::new();
        for e in &self.entrants {
            let v = if e.status == Status::Left {
                Verdict::Left
            } else {
                match replay_entrant(e.seat, self.setup.hand, &e.moves, &|s| self.cards.card(s)) {
                    Ok((places, status)) if status == e.status || e.status == Status::Stopped => {
                        Verdict::Verified {
                            score: score(&places, status),
                            on_table: places.on_table(),
                            columns: places.columns.len(),
                        }
                    }
                    Ok((_, status)) => Verdict::Refused {
                        reason: format!(
                            "it says it {}, but by its cards it {}",
                            e.status.words(),
                            status.words()
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
        race::leaderboard(
            self.entrants
                .iter()
                .filter_map(|e| match self.verdicts.get(&e.seat) {
                    Some(Verdict::Verified { score, .. }) => Some(Standing {
                        seat: e.seat,
                        score: *score,
                        finished: e.status.finished(),
                    }),
                    _ => None,
                })
                .collect(),
        )
    }

    /// The moves `seat` may make, from its cards (its own client knows them).
    fn moves_from_cards(&self, e: &Entrant) -> Option<Vec<Action>> {
        let p = &e.places;
        let face = |s: Spot| self.card_known(e.seat, s);
        let columns: Vec<Vec<CardId>> = p
            .columns
            .iter()
            .map(|c| c.iter().map(|s| face(*s)).collect::<Option<Vec<_>>>())
            .collect::<Option<_>>()?;
        let places_for = |c: CardId| -> Vec<Place> {
            let mut v: Vec<Place> = (0..columns.len())
                .filter(|n| fits(&columns[*n], c))
                .map(|n| Place::Column(n as u8))
                .collect();
            if columns.len() < MAX_COLUMNS {
                v.push(Place::New);
            }
            v
        };
        let mut out = Vec::new();
        match p.bogey {
            Some(b) => {
                let to = places_for(face(b)?);
                if to.is_empty() {
                    out.push(Action::Stuck);
                }
                out.extend(to.into_iter().map(|to| Action::Place { to }));
            }
            None => {
                for (i, s) in p.hand.iter().enumerate() {
                    let slot = i as u8;
                    out.push(Action::Discard { slot });
                    for to in places_for(face(*s)?) {
                        out.push(Action::Play { slot, to });
                    }
                }
                if p.may_end_turn() {
                    out.push(Action::EndTurn);
                }
            }
        }
        out.push(Action::GiveUp);
        out.sort();
        out.dedup();
        Some(out)
    }
}

impl Game for TheBogey {
    type Action = Action;
    type View = BogeyView;
    const NAME: &'static str = "the-bogey";

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

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if !self.to_act().includes(seat) || !self.cards.sees(seat) {
            return Vec::new();
        }
        self.entrant(seat)
            .and_then(|e| self.moves_from_cards(e))
            .unwrap_or_default()
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        if !self.to_act().includes(seat) {
            return Err(RuleError::OutOfTurn {
                seat,
                expected: self.to_act().words(),
            });
        }
        let e = self.entrant(seat).expect("a racing seat");
        e.places.after(action).map_err(|r| illegal(seat, r))?;
        if self.cards.sees(seat) {
            e.places
                .check_cards(action, &|s| self.card_known(seat, s))
                .map_err(|r| illegal(seat, r))?;
        }
        self.chosen.insert(seat, *action);
        if self.racing().iter().all(|s| self.chosen.contains_key(s)) {
            for (s, a) in std::mem::take(&mut self.chosen) {
                let e = self
                    .entrants
                    .iter_mut()
                    .find(|e| e.seat == s)
                    .expect("entrant");
                let next = e.places.after(&a).expect("checked");
                e.status = status_after(&a, &next);
                e.places = next;
                e.moves.push(a);
            }
            self.next_chance();
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        let cards = &mut self.cards;
        let entrants = &self.entrants;
        cards.record(&self.pending, outcomes, |d| {
            if d == DECK {
                return Some(DeckSpec::standard(1));
            }
            entrants.iter().find_map(|e| e.places.reshuffles.spec(d))
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

    fn view(&self, viewer: Option<Seat>) -> BogeyView {
        let entrants = self
            .entrants
            .iter()
            .map(|e| {
                let p = &e.places;
                let seen = |s: &Spot| self.card_seen(e.seat, viewer, *s);
                EntrantView {
                    seat: e.seat,
                    status: e.status,
                    awaits: p.awaits(),
                    turn: p.turn,
                    moves: e.moves.len(),
                    deck_left: p.deck.len(),
                    hand: p.hand.iter().map(seen).collect(),
                    columns: p
                        .columns
                        .iter()
                        .map(|c| c.iter().map(seen).collect())
                        .collect(),
                    discards: p.discards.iter().map(seen).collect(),
                    bogey: p.bogey.as_ref().map(seen),
                    may_end_turn: p.may_end_turn(),
                    reshuffles: p.reshuffles.len(),
                    verdict: self.verdicts.get(&e.seat).cloned(),
                }
            })
            .collect();
        BogeyView {
            viewer,
            phase: self.phase,
            hand_size: self.setup.hand,
            entrants,
            to_choose: viewer.is_some_and(|s| self.to_act().includes(s)),
            stopped_by: self.stopped_by.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        self.to_act().includes(seat).then_some(Action::GiveUp)
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Over {
            return None;
        }
        Some(race::outcome(
            self.entrants.iter().map(|e| e.seat),
            &self.standings(),
        ))
    }

    fn check_invariants(&self) -> Result<(), String> {
        for e in &self.entrants {
            let p = &e.places;
            let spots: Vec<Spot> = p
                .deck
                .iter()
                .chain(&p.hand)
                .chain(p.columns.iter().flatten())
                .chain(&p.discards)
                .chain(&p.bogey)
                .copied()
                .collect();
            let distinct: BTreeSet<Spot> = spots.iter().copied().collect();
            if spots.len() != usize::from(CARDS) || distinct.len() != spots.len() {
                return Err(format!(
                    "seat {}'s cards are {} places, not the deck's 52",
                    e.seat,
                    distinct.len()
                ));
            }
            if p.columns.len() > MAX_COLUMNS || p.hand.len() > usize::from(p.hand_size) {
                return Err(format!("seat {} has too many columns or cards", e.seat));
            }
            // Where this client knows the cards: every column of one suit, going down, and no
            // card twice.
            let mut faces = BTreeSet::new();
            for s in &spots {
                if let Some(c) = self.card_known(e.seat, *s) {
                    if !faces.insert(c) {
                        return Err(format!("seat {} holds a card twice", e.seat));
                    }
                }
            }
            for col in &p.columns {
                let cs: Option<Vec<CardId>> =
                    col.iter().map(|s| self.card_known(e.seat, *s)).collect();
                if let Some(cs) = cs {
                    if cs.windows(2).any(|w| !fits(&w[..1], w[1])) {
                        return Err(format!("seat {} has a column out of order", e.seat));
                    }
                }
            }
        }
        Ok(())
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = self.legal_actions(seat);
        v.extend([
            Action::Play {
                slot: 9,
                to: Place::New,
            },
            Action::Play {
                slot: 0,
                to: Place::Column(0),
            },
            Action::Play {
                slot: 0,
                to: Place::Column(11),
            },
            Action::Place {
                to: Place::Column(0),
            },
            Action::Place { to: Place::New },
            Action::Discard { slot: 4 },
            Action::EndTurn,
            Action::Stuck,
        ]);
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
        // The offenders' key shares are gone: nobody can draw again (§8). The race stops; every
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
