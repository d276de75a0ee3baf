//! The Bogey's rules (protocol/rules/the-bogey.md) as the race kit's [`Solitaire`]: an
//! entrant's deck, hand, columns, discards and the bogey's card by spot ([`Places`]), a move's
//! form, what the cards must allow of it, and the score. The race itself (every entrant on the
//! same shuffled deck, each card dealt sealed when drawn, shown at the end and every game
//! checked, §6) is [`Race`]'s.
//!
//! An entrant's discards, once its deck runs out, become a new deck that every entrant shuffles
//! (a deck of *indices* into the discard pile, so that nobody else learns what was discarded,
//! and the entrant, who knows its discards, does not know their new order).

use crate::cards::{CardId, DeckSpec, PlayingCard, Suit};
use crate::engine::{DeckId, Seat};
use crate::games::race::{
    self, Ending, Face, Race, RaceSetup, RaceView, Reshuffles, Solitaire, Spot,
};
use serde::{Deserialize, Serialize};

/// The race's deck: the 52 cards every entrant draws from, in the same order.
pub const DECK: DeckId = race::DECK;
/// Cards in the deck.
pub const CARDS: u16 = 52;
/// Columns the table holds at most.
pub const MAX_COLUMNS: usize = 12;

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

impl RaceSetup for Setup {
    fn players(&self) -> u8 {
        self.players
    }

    fn check(&self) -> Result<(), String> {
        if !(4..=5).contains(&self.hand) {
            return Err(format!(
                "a hand holds 5 cards (4 in the harder variant), not {}",
                self.hand
            ));
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

/// How a game of The Bogey ends by its rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// Every card is on the table.
    Won,
    /// Says the bogey's card fit nowhere (checked once its cards are shown).
    Lost,
}

impl Ending for End {
    fn words(self) -> &'static str {
        match self {
            End::Won => "played every card",
            End::Lost => "lost to the bogey",
        }
    }

    fn label(self) -> &'static str {
        match self {
            End::Won => "won",
            End::Lost => "lost",
        }
    }
}

/// How an entrant's game stands, as everyone knows it.
pub type Status = race::Status<End>;
/// How an entrant's game was judged once its cards were shown (§6).
pub type Verdict = race::Verdict<Verified>;
pub use crate::games::race::Phase;

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

    /// The moves the cards allow (§3): `face` gives each card of this entrant's game; `None`
    /// while one is not known.
    pub fn moves(&self, face: Face) -> Option<Vec<Action>> {
        let columns: Vec<Vec<CardId>> = self
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
        match self.bogey {
            Some(b) => {
                let to = places_for(face(b)?);
                if to.is_empty() {
                    out.push(Action::Stuck);
                }
                out.extend(to.into_iter().map(|to| Action::Place { to }));
            }
            None => {
                for (i, s) in self.hand.iter().enumerate() {
                    let slot = i as u8;
                    out.push(Action::Discard { slot });
                    for to in places_for(face(*s)?) {
                        out.push(Action::Play { slot, to });
                    }
                }
                if self.may_end_turn() {
                    out.push(Action::EndTurn);
                }
            }
        }
        out.push(Action::GiveUp);
        Some(out)
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

/// A game's score (§5): the cards on the table, and for a won game 13 − its columns on top (a
/// win with fewer columns ranks higher; any win above any loss).
pub fn score(places: &Places, status: Status) -> i32 {
    let table = places.on_table() as i32;
    if status == Status::Ended(End::Won) {
        table + 13 - places.columns.len() as i32
    } else {
        table
    }
}

/// The Bogey for the race kit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bogey;

/// A Bogey race as one client knows it.
pub type TheBogey = Race<Bogey>;
pub type BogeyView = RaceView<Bogey>;
pub type EntrantView = race::EntrantView<Bogey>;

/// A verified game's score (§5) and what it is made of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verified {
    pub score: i32,
    pub on_table: usize,
    pub columns: usize,
}

/// An entrant's game as one viewer sees it: every spot, with its card where the viewer may see
/// it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    /// Cards in a full hand.
    pub hand_size: u8,
    pub awaits: Awaits,
    pub turn: u32,
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
}

impl Board {
    pub fn on_table(&self) -> usize {
        self.columns.iter().map(Vec::len).sum()
    }
}

impl Solitaire for Bogey {
    const NAME: &'static str = "the-bogey";
    const TITLE: &'static str = "The Bogey";
    const RACE: &'static str = "Bogey";
    const MOVE: &'static str = "move";
    const GIVE_UP: Action = Action::GiveUp;

    type Setup = Setup;
    type Action = Action;
    type Places = Places;
    type Tally = ();
    type End = End;
    type Verified = Verified;
    type Board = Board;

    fn deck(_: &Setup) -> DeckSpec {
        DeckSpec::standard(1)
    }

    fn places(setup: &Setup, seat: Seat) -> Places {
        Places::new(seat, setup.hand)
    }

    fn reshuffles(places: &Places) -> Option<&Reshuffles> {
        Some(&places.reshuffles)
    }

    fn drawn(p: &Places) -> Vec<Spot> {
        p.hand.iter().chain(&p.bogey).copied().collect()
    }

    fn spots(p: &Places) -> Vec<Spot> {
        p.deck
            .iter()
            .chain(&p.hand)
            .chain(p.columns.iter().flatten())
            .chain(&p.discards)
            .chain(&p.bogey)
            .copied()
            .collect()
    }

    fn after(places: &Places, a: &Action) -> Result<Places, String> {
        places.after(a)
    }

    fn check(places: &Places, _: &mut (), a: &Action, face: Face) -> Result<(), String> {
        places.check_cards(a, face)
    }

    fn status_after(a: &Action, next: &Places) -> Status {
        match a {
            Action::GiveUp => Status::GaveUp,
            Action::Stuck => Status::Ended(End::Lost),
            _ if next.complete() => Status::Ended(End::Won),
            _ => Status::Playing,
        }
    }

    fn moves(places: &Places, _: &(), face: Face) -> Option<Vec<Action>> {
        places.moves(face)
    }

    fn verified(places: &Places, _: &(), status: Status) -> Verified {
        Verified {
            score: score(places, status),
            on_table: places.on_table(),
            columns: places.columns.len(),
        }
    }

    fn score(v: &Verified) -> i32 {
        v.score
    }

    fn invariants(p: &Places, _: Option<&()>, face: Face) -> Result<(), String> {
        if p.columns.len() > MAX_COLUMNS || p.hand.len() > usize::from(p.hand_size) {
            return Err("too many columns or cards".into());
        }
        // Where this client knows the cards: every column of one suit, going down.
        for col in &p.columns {
            let cs: Option<Vec<CardId>> = col.iter().map(|s| face(*s)).collect();
            if cs.is_some_and(|cs| cs.windows(2).any(|w| !fits(&w[..1], w[1]))) {
                return Err("a column out of order".into());
            }
        }
        Ok(())
    }

    fn probes() -> Vec<Action> {
        vec![
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
        ]
    }

    fn board(p: &Places, seen: Face, _: Option<()>) -> Board {
        let seen = |s: &Spot| seen(*s);
        Board {
            hand_size: p.hand_size,
            awaits: p.awaits(),
            turn: p.turn,
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
        }
    }
}
