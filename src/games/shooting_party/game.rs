//! Shooting Party's rules (protocol/rules/shooting-party.md) as the race kit's [`Solitaire`]:
//! an entrant's pile, room, discards, aces and score pile by spot ([`Places`]), the etiquette's
//! moves in their precedence, and the score. The race itself (every entrant on the same shuffled
//! 33-card deck, each card dealt sealed when drawn, shown at the end and every game checked, §7)
//! is [`Race`]'s.
//!
//! Everything the cards decide (an ace going up, a spouse leading a source away, a second queen
//! leaving) is a move the entrant makes, so that every client follows every entrant's game by
//! its form alone (how many cards where) while only the entrant sees the faces. Its own client
//! offers exactly the moves the etiquette allows, in its order of precedence; the others check
//! the form when the move is made and the faces once they are shown (§7): an entrant whose
//! moves do not follow from its cards is refused, named, and scores nothing.

use crate::cards::{CardId, DeckSpec, Suit};
use crate::engine::{DeckId, Seat};
use crate::games::race::{self, Ending, Face, Race, RaceView, Reshuffles, Solitaire, Spot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The race's deck: the 33 guests every entrant draws from, in the same order.
pub const DECK: DeckId = race::DECK;
/// Cards in the deck: ranks A, 2–5, J, Q, K of four suits, and the joker.
pub const CARDS: u16 = 33;
/// The joker (the butler).
pub const JOKER: CardId = CardId(32);
/// A room (a new hand) holds this many guests.
pub const ROOM: usize = 4;
/// A pair may be drawn only with this many cards or fewer in the hand (etiquette 1).
pub const DRAW_AT_MOST: usize = 5;
/// The hand never holds more (five, and a pair).
pub const HAND_MAX: usize = 7;
/// Times the draw pile may be rebuilt from the discards; the next time it runs out, the game
/// ends.
pub const RESHUFFLES: u8 = 2;
/// The sources to contact.
pub const QUEENS: u8 = 4;

/// Ranks of a suit in the deck, in card-id order within the suit.
const RANKS: [u8; 8] = [1, 2, 3, 4, 5, 11, 12, 13];
pub const ACE: u8 = 1;
pub const JACK: u8 = 11;
pub const QUEEN: u8 = 12;
pub const KING: u8 = 13;

/// The deck as the fair layer knows it: 33 named cards ("AC" … "KS", then "JOKER").
pub fn deck_spec() -> DeckSpec {
    let mut names = Vec::new();
    for s in Suit::ALL {
        for r in RANKS {
            names.push(format!("{}{}", rank_str(r), s.letter()));
        }
    }
    names.push("JOKER".into());
    DeckSpec::Custom { names }
}

fn rank_str(r: u8) -> &'static str {
    match r {
        1 => "A",
        11 => "J",
        12 => "Q",
        13 => "K",
        2 => "2",
        3 => "3",
        4 => "4",
        _ => "5",
    }
}

/// A card's rank (A 1, 2–5, J 11, Q 12, K 13), none for the joker.
pub fn rank(c: CardId) -> Option<u8> {
    (c.0 < 32).then(|| RANKS[usize::from(c.0 % 8)])
}

/// A card's suit, none for the joker.
pub fn suit(c: CardId) -> Option<Suit> {
    (c.0 < 32).then(|| Suit::ALL[usize::from(c.0 / 8)])
}

/// The card of `rank` and `suit`.
pub fn card_of(rank: u8, suit: Suit) -> CardId {
    let r = RANKS
        .iter()
        .position(|x| *x == rank)
        .expect("a rank of the deck") as u16;
    CardId(suit as u16 * 8 + r)
}

fn is(c: CardId, r: u8) -> bool {
    rank(c) == Some(r)
}

/// A card as people read it: "Q♥", "5♣", "the joker".
pub fn card_name(c: CardId) -> String {
    match (rank(c), suit(c)) {
        (Some(r), Some(s)) => format!("{}{}", rank_str(r), s.symbol()),
        _ => "the joker".into(),
    }
}

/// A card in a few characters (panels): "Q♥", "Jkr".
pub fn card_short(c: CardId) -> String {
    if c == JOKER {
        "Jkr".into()
    } else {
        card_name(c)
    }
}

/// The author's grade for communiques taken (aces scored).
pub fn communique_grade(aces: usize) -> &'static str {
    ["inept", "novice", "competent", "proficient", "expert"][aces.min(4)]
}

/// The author's grade for contacts made (queens scored).
pub fn contact_grade(queens: usize) -> &'static str {
    [
        "pencil-pusher",
        "infiltrator",
        "double-agent",
        "operative",
        "spymaster",
    ][queens.min(4)]
}

/// A race of Shooting Party's entrants: they announce nothing else.
pub type Setup = race::Entrants;

/// One decision of an entrant (§3–§5). Hand slots count from 0 in the order the cards arrived
/// (the oldest first). Its serde JSON is the wire format of a move.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The ace in `slot` goes up on the table and another card replaces it (§3.2).
    AceUp { slot: u8 },
    /// Etiquette 2: a spouse leads the source away — the queen and king of a suit leave, or
    /// the king and jack of that suit when the jack is there too.
    Spouses { a: u8, b: u8 },
    /// Etiquette 3: the queen held longest leaves (another queen is in the hand).
    Queen { slot: u8 },
    /// Draws a pair of guests (etiquette 1: five cards or fewer in the hand).
    Draw,
    /// Leaves the room: the whole hand is discarded and four cards drawn. Also etiquette 4
    /// (two jacks in the hand), where it is the only move.
    Leave,
    /// Etiquette 5: exactly two cards of a suit, or two or more of a rank, leave.
    Discard { slots: Vec<u8> },
    /// Etiquette 6: the joker is discarded on its own.
    Joker { slot: u8 },
    /// Etiquette 6: the joker is discarded to bring back discard `card` (0 = the oldest).
    Retrieve { slot: u8, card: u8 },
    /// Etiquette 6: the joker is discarded to look through the draw pile for an ace.
    Search { slot: u8 },
    /// The ace the search takes: the draw pile's card `at` (0 = the top); the rest is shuffled.
    TakeAce { at: u8 },
    /// Contact with the lone queen in the hand: she goes to the score pile, with her ace from
    /// the displayed row (its place `ace`, 0 = the first displayed) when it is there.
    Contact { ace: Option<u8> },
    /// The entrant stops with the score pile it has (also the timeout move, §8).
    GiveUp,
}

/// How a game of Shooting Party ends by its rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// Every source contacted.
    AllContacted,
    /// The draw pile ran out a third time.
    PileExhausted,
}

impl Ending for End {
    fn words(self) -> &'static str {
        match self {
            End::AllContacted => "contacted all four sources",
            End::PileExhausted => "ran through the draw pile a third time",
        }
    }

    fn label(self) -> &'static str {
        match self {
            End::AllContacted => "all four",
            End::PileExhausted => "pile out",
        }
    }
}

/// How an entrant's game stands, as everyone knows it.
pub type Status = race::Status<End>;
/// How an entrant's game was judged once its cards were shown (§7).
pub type Verdict = race::Verdict<Verified>;
pub use crate::games::race::Phase;

/// Where an entrant's cards are, by spot (deck and position): what every client knows of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Places {
    pub seat: Seat,
    /// The draw pile, top first.
    pub pile: Vec<Spot>,
    /// The room, in the order the cards arrived (the oldest first).
    pub hand: Vec<Spot>,
    /// Oldest first.
    pub discards: Vec<Spot>,
    /// Aces displayed above the piles and not yet scored, in the order they went up.
    pub aces: Vec<Spot>,
    /// Queens and aces scored, in order.
    pub scored: Vec<Spot>,
    /// Contacts made (queens scored).
    pub contacts: u8,
    /// Times the draw pile ran out.
    pub exhausted: u8,
    /// Every reshuffle (the two rebuilt draw piles, and a pile shuffled after the joker's
    /// search), with the pile it shuffled.
    pub reshuffles: Reshuffles,
    /// The joker is looking through the draw pile: the ace it takes is to be named.
    pub searching: bool,
    /// The game ended by the rules (all four sources, or the pile ran out a third time).
    pub over: bool,
}

impl Places {
    pub fn new(seat: Seat) -> Places {
        let mut p = Places {
            seat,
            pile: (0..CARDS).map(|i| (DECK, i)).collect(),
            hand: Vec::new(),
            discards: Vec::new(),
            aces: Vec::new(),
            scored: Vec::new(),
            contacts: 0,
            exhausted: 0,
            reshuffles: Reshuffles::default(),
            searching: false,
            over: false,
        };
        p.draw(ROOM);
        p
    }

    /// The card at `spot`, reading a reshuffle's index through its pile.
    pub fn face(&self, spot: Spot, raw: &dyn Fn(Spot) -> Option<CardId>) -> Option<CardId> {
        self.reshuffles.face(spot, raw)
    }

    /// Reshuffles that rebuilt the draw pile (§4), of the two allowed.
    pub fn rebuilt(&self) -> u8 {
        self.exhausted.min(RESHUFFLES)
    }

    /// The top card of the draw pile. A pile that has run out is rebuilt from the discards and
    /// the aces displayed but not scored, at most twice; the third time the game ends (§4).
    fn draw_one(&mut self) -> Option<Spot> {
        while self.pile.is_empty() {
            self.exhausted += 1;
            if self.exhausted > RESHUFFLES {
                self.over = true;
                return None;
            }
            let mut pile = std::mem::take(&mut self.discards);
            pile.append(&mut self.aces);
            self.pile = self.reshuffles.shuffle(self.seat, pile);
        }
        Some(self.pile.remove(0))
    }

    fn draw(&mut self, n: usize) {
        for _ in 0..n {
            match self.draw_one() {
                Some(s) => self.hand.push(s),
                None => return,
            }
        }
    }

    fn slot(&self, slot: u8) -> Result<Spot, String> {
        self.hand.get(usize::from(slot)).copied().ok_or_else(|| {
            format!(
                "the hand holds {}: there is no card {}",
                how_many(self.hand.len() as u64, "card", "cards"),
                slot + 1
            )
        })
    }

    /// Removes these hand slots (each once), keeping the rest in order; the cards removed in
    /// hand order.
    fn take(&mut self, slots: &[u8]) -> Vec<Spot> {
        let mut out = Vec::new();
        let mut keep = Vec::new();
        for (i, s) in self.hand.iter().enumerate() {
            if slots.contains(&(i as u8)) {
                out.push(*s);
            } else {
                keep.push(*s);
            }
        }
        self.hand = keep;
        out
    }

    /// The move's form (§3–§5): slots and places that exist, a pair drawn only at five cards or
    /// fewer, the search's ace named only while searching. Returns the places after it.
    pub fn after(&self, a: &Action) -> Result<Places, String> {
        if self.over {
            return Err("the game is over".into());
        }
        if self.searching && !matches!(a, Action::TakeAce { .. } | Action::GiveUp) {
            return Err("the joker is looking through the draw pile: name the ace it takes".into());
        }
        let mut p = self.clone();
        match a {
            Action::GiveUp => return Ok(p),
            Action::AceUp { slot } => {
                self.slot(*slot)?;
                let s = p.take(&[*slot]);
                p.aces.extend(s);
                p.draw(1);
            }
            Action::Spouses { a, b } => {
                if a >= b {
                    return Err("name the two cards in hand order (the lower number first)".into());
                }
                self.slot(*a)?;
                self.slot(*b)?;
                let s = p.take(&[*a, *b]);
                p.discards.extend(s);
            }
            Action::Queen { slot } | Action::Joker { slot } => {
                self.slot(*slot)?;
                let s = p.take(&[*slot]);
                p.discards.extend(s);
            }
            Action::Draw => {
                if self.hand.len() > DRAW_AT_MOST {
                    return Err(format!(
                        "a pair may be drawn only with {DRAW_AT_MOST} cards or fewer in the hand \
                         (it holds {})",
                        self.hand.len()
                    ));
                }
                p.draw(2);
            }
            Action::Leave => {
                let s = std::mem::take(&mut p.hand);
                p.discards.extend(s);
                p.draw(ROOM);
            }
            Action::Discard { slots } => {
                if slots.len() < 2 || slots.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(
                        "a discard names two or more hand cards, in hand order, each once".into(),
                    );
                }
                for s in slots {
                    self.slot(*s)?;
                }
                let s = p.take(slots);
                p.discards.extend(s);
            }
            Action::Retrieve { slot, card } => {
                self.slot(*slot)?;
                let Some(back) = self.discards.get(usize::from(*card)).copied() else {
                    return Err(format!(
                        "the discard pile holds {}: there is no card {}",
                        how_many(self.discards.len() as u64, "card", "cards"),
                        card + 1
                    ));
                };
                let joker = p.take(&[*slot]);
                p.discards.remove(usize::from(*card));
                p.hand.push(back);
                p.discards.extend(joker);
            }
            Action::Search { slot } => {
                self.slot(*slot)?;
                if self.pile.is_empty() {
                    return Err("the draw pile is empty: there is no ace to look for".into());
                }
                let joker = p.take(&[*slot]);
                p.discards.extend(joker);
                p.searching = true;
            }
            Action::TakeAce { at } => {
                if !self.searching {
                    return Err("nobody is looking through the draw pile".into());
                }
                if usize::from(*at) >= self.pile.len() {
                    return Err(format!(
                        "the draw pile holds {} cards: there is no card {}",
                        self.pile.len(),
                        at + 1
                    ));
                }
                let ace = p.pile.remove(usize::from(*at));
                p.aces.push(ace);
                let rest = std::mem::take(&mut p.pile);
                p.pile = p.reshuffles.shuffle(p.seat, rest);
                p.searching = false;
            }
            Action::Contact { ace } => {
                if self.hand.len() != 1 {
                    return Err(format!(
                        "contact needs a lone queen in the room, and it holds {} cards",
                        self.hand.len()
                    ));
                }
                if let Some(i) = ace {
                    if usize::from(*i) >= self.aces.len() {
                        return Err(format!(
                            "{} displayed: there is no ace {}",
                            how_many(self.aces.len() as u64, "ace is", "aces are"),
                            i + 1
                        ));
                    }
                }
                let q = p.take(&[0]);
                p.scored.extend(q);
                if let Some(i) = ace {
                    let a = p.aces.remove(usize::from(*i));
                    p.scored.push(a);
                }
                p.contacts += 1;
                if p.contacts >= QUEENS {
                    p.over = true;
                }
            }
        }
        // A room is never empty while the game goes on: an empty hand draws a new room.
        if p.hand.is_empty() && !p.over && !p.searching {
            p.draw(ROOM);
        }
        Ok(p)
    }

    /// The moves the rules allow from the cards (§3–§5), in the etiquette's precedence:
    /// `face` gives each card of this entrant's game; `None` when one is not known.
    pub fn moves(&self, face: &dyn Fn(Spot) -> Option<CardId>) -> Option<Vec<Action>> {
        let mut out = vec![Action::GiveUp];
        if self.over {
            return Some(Vec::new());
        }
        if self.searching {
            for (i, s) in self.pile.iter().enumerate() {
                if is(face(*s)?, ACE) {
                    out.push(Action::TakeAce { at: i as u8 });
                }
            }
            out.sort();
            return Some(out);
        }
        let hand: Vec<CardId> = self.hand.iter().map(|s| face(*s)).collect::<Option<_>>()?;
        let forced = forced(&hand);
        if !forced.is_empty() {
            out.extend(forced);
            out.sort();
            return Some(out);
        }
        if self.hand.len() <= DRAW_AT_MOST {
            out.push(Action::Draw);
        }
        out.push(Action::Leave);
        // Etiquette 5: two of a suit, or two or more of a rank.
        let n = hand.len();
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (hand[i], hand[j]);
                if a != JOKER && b != JOKER && (suit(a) == suit(b) || rank(a) == rank(b)) {
                    out.push(Action::Discard {
                        slots: vec![i as u8, j as u8],
                    });
                }
            }
        }
        for r in RANKS {
            let of: Vec<u8> = (0..n as u8)
                .filter(|i| is(hand[usize::from(*i)], r))
                .collect();
            // Every set of three or four of the rank (the pairs are above).
            for mask in 0u32..(1 << of.len()) {
                if mask.count_ones() >= 3 {
                    let slots = (0..of.len())
                        .filter(|k| mask & (1 << k) != 0)
                        .map(|k| of[k])
                        .collect();
                    out.push(Action::Discard { slots });
                }
            }
        }
        // Etiquette 6: the joker.
        if let Some(j) = hand.iter().position(|c| *c == JOKER) {
            let slot = j as u8;
            out.push(Action::Joker { slot });
            for card in 0..self.discards.len() as u8 {
                out.push(Action::Retrieve { slot, card });
            }
            if self.pile_holds_an_ace(face)? {
                out.push(Action::Search { slot });
            }
        }
        if let [q] = hand.as_slice() {
            if is(*q, QUEEN) {
                let mut ace = None;
                for (i, s) in self.aces.iter().enumerate() {
                    if face(*s)? == card_of(ACE, suit(*q)?) {
                        ace = Some(i as u8);
                    }
                }
                out.push(Action::Contact { ace });
            }
        }
        out.sort();
        out.dedup();
        Some(out)
    }

    /// Whether an ace is in the draw pile: the entrant knows which cards it holds by the cards
    /// it has seen everywhere else (every card not in the hand, the discards, the displayed row
    /// or the score pile).
    pub fn pile_holds_an_ace(&self, face: &dyn Fn(Spot) -> Option<CardId>) -> Option<bool> {
        let mut seen = BTreeSet::new();
        for s in self
            .hand
            .iter()
            .chain(&self.discards)
            .chain(&self.aces)
            .chain(&self.scored)
        {
            seen.insert(face(*s)?);
        }
        Some(Suit::ALL.iter().any(|s| !seen.contains(&card_of(ACE, *s))) && !self.pile.is_empty())
    }

    /// Checks a move against the cards: it is one the rules allow (§7), or says in words why
    /// not. `face` gives each card of this entrant's game.
    pub fn check_cards(
        &self,
        a: &Action,
        face: &dyn Fn(Spot) -> Option<CardId>,
    ) -> Result<(), String> {
        let legal = self
            .moves(face)
            .ok_or_else(|| "one of its cards was never shown".to_string())?;
        if legal.contains(a) {
            return Ok(());
        }
        let hand: Vec<CardId> = self.hand.iter().filter_map(|s| face(*s)).collect();
        let names = |slots: &[u8]| -> String {
            let v: Vec<String> = slots
                .iter()
                .filter_map(|s| hand.get(usize::from(*s)))
                .map(|c| card_name(*c))
                .collect();
            v.join(" and ")
        };
        let first_forced = forced(&hand).into_iter().next();
        if let (Some(f), false) = (first_forced, self.searching) {
            if !matches!(a, Action::GiveUp) {
                return Err(format!("{}: that comes first", forced_words(&f, &hand)));
            }
        }
        Err(match a {
            Action::Discard { slots } => format!(
                "{} are neither exactly two of a suit nor all of a rank",
                names(slots)
            ),
            Action::Joker { slot } | Action::Retrieve { slot, .. } | Action::Search { slot } => {
                if hand.get(usize::from(*slot)) != Some(&JOKER) {
                    format!("{} is not the joker", names(&[*slot]))
                } else {
                    "the draw pile holds no ace".into()
                }
            }
            Action::TakeAce { at } => {
                let c = self.pile.get(usize::from(*at)).and_then(|s| face(*s));
                format!(
                    "card {} of the draw pile is {}, not an ace",
                    at + 1,
                    c.map(card_name).unwrap_or_else(|| "unknown".into())
                )
            }
            Action::Contact { ace } => match hand.as_slice() {
                [q] if is(*q, QUEEN) => match ace {
                    Some(_) => format!("{}'s ace is not the one named", card_name(*q)),
                    None => format!("{}'s ace is displayed and goes with her", card_name(*q)),
                },
                [c] => format!("{} is not a queen", card_name(*c)),
                _ => "contact needs a lone queen".into(),
            },
            Action::Draw => "a pair may be drawn only at five cards or fewer".into(),
            _ => "the rules do not allow it here".into(),
        })
    }
}

/// What the etiquette forces on a hand, in its precedence (§5): an ace drawn goes up first (the
/// draw is not over until it is replaced), then the spouse rule (2), then one queen (3), then
/// two jacks (4). Empty when the hand is free.
pub fn forced(hand: &[CardId]) -> Vec<Action> {
    let slot_of = |c: CardId| hand.iter().position(|x| *x == c).map(|i| i as u8);
    if let Some(i) = hand.iter().position(|c| is(*c, ACE)) {
        return vec![Action::AceUp { slot: i as u8 }];
    }
    let mut spouses = Vec::new();
    for s in Suit::ALL {
        if let (Some(q), Some(k)) = (slot_of(card_of(QUEEN, s)), slot_of(card_of(KING, s))) {
            spouses.push(Action::Spouses {
                a: q.min(k),
                b: q.max(k),
            });
            if let Some(j) = slot_of(card_of(JACK, s)) {
                spouses.push(Action::Spouses {
                    a: k.min(j),
                    b: k.max(j),
                });
            }
        }
    }
    if !spouses.is_empty() {
        return spouses;
    }
    let queens: Vec<usize> = (0..hand.len()).filter(|i| is(hand[*i], QUEEN)).collect();
    if queens.len() > 1 {
        return vec![Action::Queen {
            slot: queens[0] as u8,
        }];
    }
    if hand.iter().filter(|c| is(**c, JACK)).count() >= 2 {
        return vec![Action::Leave];
    }
    Vec::new()
}

/// A forced move in words: what must happen.
pub fn forced_words(a: &Action, hand: &[CardId]) -> String {
    let n = |s: &u8| {
        hand.get(usize::from(*s))
            .map(|c| card_name(*c))
            .unwrap_or_default()
    };
    match a {
        Action::AceUp { slot } => format!("{} was drawn and must go up", n(slot)),
        Action::Spouses { a, b } => format!(
            "{} and {} must leave together (the spouse rule)",
            n(a),
            n(b)
        ),
        Action::Queen { slot } => format!(
            "{} has been in the room longest and must leave (one queen at a time)",
            n(slot)
        ),
        Action::Leave => "two jacks are in the room: the room must be left".into(),
        _ => String::new(),
    }
}

/// A game's score (§6): the queens and aces on the score pile.
pub fn score(places: &Places) -> i32 {
    places.scored.len() as i32
}

/// Shooting Party for the race kit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Party;

/// A Shooting Party race as one client knows it.
pub type ShootingParty = Race<Party>;
pub type PartyView = RaceView<Party>;
pub type EntrantView = race::EntrantView<Party>;

/// A verified game's score (§6) and what it is made of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verified {
    pub score: i32,
    pub contacts: u8,
    pub communiques: u8,
}

/// An entrant's game as one viewer sees it: every spot, with its card where the viewer may see
/// it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    pub pile_left: usize,
    /// Times the draw pile ran out (two rebuild it, the third ends the game).
    pub exhausted: u8,
    /// The room, oldest first.
    pub hand: Vec<Option<CardId>>,
    pub discards: Vec<Option<CardId>>,
    /// Aces displayed, not yet scored.
    pub aces: Vec<Option<CardId>>,
    pub scored: Vec<Option<CardId>>,
    pub contacts: u8,
    /// While the joker searches: the draw pile, top first.
    pub search: Option<Vec<Option<CardId>>>,
}

impl Solitaire for Party {
    const NAME: &'static str = "shooting-party";
    const TITLE: &'static str = "Shooting Party";
    const RACE: &'static str = "Shooting Party";
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
        deck_spec()
    }

    fn places(_: &Setup, seat: Seat) -> Places {
        Places::new(seat)
    }

    fn reshuffles(places: &Places) -> Option<&Reshuffles> {
        Some(&places.reshuffles)
    }

    /// The room, and the whole draw pile while the joker searches it.
    fn drawn(p: &Places) -> Vec<Spot> {
        let searched = if p.searching { p.pile.as_slice() } else { &[] };
        p.hand.iter().chain(searched).copied().collect()
    }

    fn spots(p: &Places) -> Vec<Spot> {
        p.pile
            .iter()
            .chain(&p.hand)
            .chain(&p.discards)
            .chain(&p.aces)
            .chain(&p.scored)
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
            _ if next.over && next.contacts >= QUEENS => Status::Ended(End::AllContacted),
            _ if next.over => Status::Ended(End::PileExhausted),
            _ => Status::Playing,
        }
    }

    fn moves(places: &Places, _: &(), face: Face) -> Option<Vec<Action>> {
        places.moves(face)
    }

    fn verified(places: &Places, _: &(), _: Status) -> Verified {
        Verified {
            score: score(places),
            contacts: places.contacts,
            communiques: (places.scored.len() - usize::from(places.contacts)) as u8,
        }
    }

    fn score(v: &Verified) -> i32 {
        v.score
    }

    fn invariants(p: &Places, _: Option<&()>, face: Face) -> Result<(), String> {
        if p.hand.len() > HAND_MAX || p.exhausted > RESHUFFLES + 1 || p.contacts > QUEENS {
            return Err("holds too much".into());
        }
        if p.scored.len() > 2 * usize::from(p.contacts) {
            return Err("scored more aces than queens".into());
        }
        // Where this client knows the cards: aces only on the displayed row.
        for c in p.aces.iter().filter_map(|s| face(*s)) {
            if !is(c, ACE) {
                return Err(format!("displays {}", card_name(c)));
            }
        }
        Ok(())
    }

    fn probes() -> Vec<Action> {
        vec![
            Action::AceUp { slot: 0 },
            Action::Spouses { a: 0, b: 1 },
            Action::Queen { slot: 0 },
            Action::Draw,
            Action::Leave,
            Action::Discard { slots: vec![0, 1] },
            Action::Discard {
                slots: vec![0, 1, 2],
            },
            Action::Discard { slots: vec![1, 0] },
            Action::Joker { slot: 0 },
            Action::Retrieve { slot: 0, card: 0 },
            Action::Search { slot: 0 },
            Action::TakeAce { at: 0 },
            Action::Contact { ace: None },
            Action::Contact { ace: Some(0) },
            Action::AceUp { slot: 9 },
        ]
    }

    fn board(p: &Places, seen: Face, _: Option<()>) -> Board {
        let seen = |s: &Spot| seen(*s);
        Board {
            pile_left: p.pile.len(),
            exhausted: p.exhausted,
            hand: p.hand.iter().map(seen).collect(),
            discards: p.discards.iter().map(seen).collect(),
            aces: p.aces.iter().map(seen).collect(),
            scored: p.scored.iter().map(seen).collect(),
            contacts: p.contacts,
            search: p.searching.then(|| p.pile.iter().map(seen).collect()),
        }
    }
}

/// `n` things in words for a refusal ("1 card", "3 cards").
fn how_many(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}
