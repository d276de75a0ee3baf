//! Shooting Party's rules as a duplicate race (protocol/rules/shooting-party.md): every entrant
//! plays the same shuffled 33-card deck alone; each learns a card only when it draws it, and the
//! others' cards stay face down to it until the race ends and every card drawn is shown.
//!
//! Everything the cards decide (an ace going up, a spouse leading a source away, a second queen
//! leaving) is a move the entrant makes, so that every client follows every entrant's game by
//! its form alone (how many cards where) while only the entrant sees the faces. Its own client
//! offers exactly the moves the etiquette allows, in its order of precedence; the others check
//! the form when the move is made and the faces once they are shown (§7): an entrant whose
//! moves do not follow from its cards is refused, named, and scores nothing.

use crate::cards::{CardId, DeckSpec, Suit};
use crate::engine::{
    illegal, ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat,
    ToAct,
};
use crate::games::race::{self, RaceCards, Reshuffles, Spot, Standing};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The race's deck: the 33 guests every entrant draws from, in the same order.
pub const DECK: DeckId = 0;
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Entrants racing the one deal (1 plays a practice game alone).
    pub players: u8,
}

impl Setup {
    pub fn validate(&self) -> Result<(), RuleError> {
        if !(1..=6).contains(&self.players) {
            return Err(RuleError::Setup(format!(
                "a Shooting Party race takes 1 to 6 entrants, not {}",
                self.players
            )));
        }
        Ok(())
    }
}

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

/// How an entrant's game stands, as everyone knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Playing,
    /// Every source contacted.
    AllContacted,
    /// The draw pile ran out a third time.
    PileExhausted,
    GaveUp,
    /// Still playing when the race had to stop (another entrant left, §9).
    Stopped,
    /// Removed from the race by the table (§9): no score.
    Left,
}

impl Status {
    /// What became of the entrant, in words.
    pub fn words(self) -> &'static str {
        match self {
            Status::Playing => "is still playing",
            Status::AllContacted => "contacted all four sources",
            Status::PileExhausted => "ran through the draw pile a third time",
            Status::GaveUp => "gave up",
            Status::Stopped => "was stopped by the end of the race",
            Status::Left => "left the race",
        }
    }

    /// The state beside a name in a list.
    pub fn label(self) -> &'static str {
        match self {
            Status::Playing => "playing",
            Status::AllContacted => "all four",
            Status::PileExhausted => "pile out",
            Status::GaveUp => "gave up",
            Status::Stopped => "stopped",
            Status::Left => "left the race",
        }
    }

    pub fn finished(self) -> bool {
        matches!(
            self,
            Status::AllContacted | Status::PileExhausted | Status::GaveUp
        )
    }
}

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

/// An entrant's game checked in full from its cards: every move one the rules allow. `raw`
/// gives what each spot opened to.
pub fn replay_entrant(
    seat: Seat,
    moves: &[Action],
    raw: &dyn Fn(Spot) -> Option<CardId>,
) -> Result<(Places, Status), String> {
    let mut places = Places::new(seat);
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
pub fn status_after(a: &Action, next: &Places) -> Status {
    match a {
        Action::GiveUp => Status::GaveUp,
        _ if next.over && next.contacts >= QUEENS => Status::AllContacted,
        _ if next.over => Status::PileExhausted,
        _ => Status::Playing,
    }
}

/// A game's score (§6): the queens and aces on the score pile.
pub fn score(places: &Places) -> i32 {
    places.scored.len() as i32
}

/// One entrant of the race.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub seat: Seat,
    pub places: Places,
    pub moves: Vec<Action>,
    pub status: Status,
}

/// How an entrant's game was judged once its cards were shown (§7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every move followed from the cards: the score stands.
    Verified {
        score: i32,
        contacts: u8,
        communiques: u8,
    },
    /// A move did not follow from the cards: no score.
    Refused { reason: String },
    /// Removed from the race.
    Left,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The deck is shuffled and the first rooms dealt.
    Start,
    /// Entrants decide (sealed, all at once), then the cards they draw are dealt.
    Racing,
    /// Every card drawn is shown by an entrant who holds it.
    Showing,
    Over,
}

/// A Shooting Party race as one client knows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShootingParty {
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
    pub moves: usize,
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
    pub verdict: Option<Verdict>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartyView {
    pub viewer: Option<Seat>,
    pub phase: Phase,
    pub entrants: Vec<EntrantView>,
    /// Whether the viewer has a decision to make now.
    pub to_choose: bool,
    pub stopped_by: Vec<Seat>,
}

impl PartyView {
    /// The viewer's own entrant.
    pub fn me(&self) -> Option<&EntrantView> {
        self.entrants.iter().find(|e| Some(e.seat) == self.viewer)
    }
}

impl ShootingParty {
    pub fn new(setup: &Setup) -> Result<ShootingParty, RuleError> {
        setup.validate()?;
        let entrants: Vec<Entrant> = (0..setup.players)
            .map(|seat| Entrant {
                seat,
                places: Places::new(seat),
                moves: Vec::new(),
                status: Status::Playing,
            })
            .collect();
        let cards = RaceCards::default();
        let mut pending = vec![ChanceRequest::Shuffle {
            deck: DECK,
            spec: deck_spec(),
        }];
        for e in &entrants {
            pending.extend(cards.deals(e.seat, e.places.hand.iter().copied()));
        }
        Ok(ShootingParty {
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

    /// Shuffles every new reshuffle and deals each racing entrant the cards it drew (and its
    /// whole draw pile while its joker searches it); or, when nobody races, shows every card
    /// drawn (§2, §4, §7).
    fn next_chance(&mut self) {
        let mut reqs = Vec::new();
        for e in &self.entrants {
            // A game that ended mid-draw (the pile ran out a third time) still gets the cards
            // it drew, so that every card in its room is shown at the end — unless the race
            // stopped, when a departed key holder can deal nothing more.
            let deals =
                e.status == Status::Playing || (e.status.finished() && self.stopped_by.is_empty());
            if !deals {
                continue;
            }
            for (d, pile) in e.places.reshuffles.iter() {
                if self.shuffled.insert(*d) {
                    reqs.push(ChanceRequest::Shuffle {
                        deck: *d,
                        spec: race::index_spec(pile.len()),
                    });
                }
            }
            let p = &e.places;
            let searched = if p.searching { p.pile.as_slice() } else { &[] };
            reqs.extend(
                self.cards
                    .deals(e.seat, p.hand.iter().chain(searched).copied()),
            );
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

    /// Every entrant's game checked against its shown cards (§7).
    fn judge(&mut self) {
        self.phase = Phase::Over;
        let mut verdicts = BTreeMap::new();
        for e in &self.entrants {
            let v = if e.status == Status::Left {
                Verdict::Left
            } else {
                match replay_entrant(e.seat, &e.moves, &|s| self.cards.card(s)) {
                    Ok((places, status)) if status == e.status || e.status == Status::Stopped => {
                        Verdict::Verified {
                            score: score(&places),
                            contacts: places.contacts,
                            communiques: (places.scored.len() - usize::from(places.contacts)) as u8,
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
}

impl Game for ShootingParty {
    type Action = Action;
    type View = PartyView;
    const NAME: &'static str = "shooting-party";

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
            .and_then(|e| e.places.moves(&|s| self.card_known(seat, s)))
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
        self.chosen.insert(seat, action.clone());
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
                return Some(deck_spec());
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

    fn view(&self, viewer: Option<Seat>) -> PartyView {
        let entrants = self
            .entrants
            .iter()
            .map(|e| entrant_view(self, e, &e.places, viewer))
            .collect();
        PartyView {
            viewer,
            phase: self.phase,
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
                .pile
                .iter()
                .chain(&p.hand)
                .chain(&p.discards)
                .chain(&p.aces)
                .chain(&p.scored)
                .copied()
                .collect();
            let distinct: BTreeSet<Spot> = spots.iter().copied().collect();
            if spots.len() != usize::from(CARDS) || distinct.len() != spots.len() {
                return Err(format!(
                    "seat {}'s cards are {} places, not the deck's 33",
                    e.seat,
                    distinct.len()
                ));
            }
            if p.hand.len() > HAND_MAX || p.exhausted > RESHUFFLES + 1 || p.contacts > QUEENS {
                return Err(format!("seat {} holds too much", e.seat));
            }
            if p.scored.len() > 2 * usize::from(p.contacts) {
                return Err(format!("seat {} scored more aces than queens", e.seat));
            }
            // Where this client knows the cards: no card twice, a queen and her ace at most on
            // the score pile, aces only on the displayed row.
            let mut faces = BTreeSet::new();
            for s in &spots {
                if let Some(c) = self.card_known(e.seat, *s) {
                    if !faces.insert(c) {
                        return Err(format!("seat {} holds a card twice", e.seat));
                    }
                }
            }
            for s in &p.aces {
                if let Some(c) = self.card_known(e.seat, *s) {
                    if !is(c, ACE) {
                        return Err(format!("seat {} displays {}", e.seat, card_name(c)));
                    }
                }
            }
        }
        Ok(())
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = self.legal_actions(seat);
        v.extend([
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
        // The offenders' key shares are gone: nobody can draw again (§9). The race stops; every
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

/// Entrant `e` at `places` (a point of its game) as `viewer` sees it.
pub fn entrant_view(
    g: &ShootingParty,
    e: &Entrant,
    places: &Places,
    viewer: Option<Seat>,
) -> EntrantView {
    // A spot names one card for the whole game (reshuffle piles are only ever added), so the
    // game as it is now reads the cards of any earlier point.
    let seen = |s: &Spot| g.card_seen(e.seat, viewer, *s);
    let p = places;
    EntrantView {
        seat: e.seat,
        status: e.status,
        moves: e.moves.len(),
        pile_left: p.pile.len(),
        exhausted: p.exhausted,
        hand: p.hand.iter().map(seen).collect(),
        discards: p.discards.iter().map(seen).collect(),
        aces: p.aces.iter().map(seen).collect(),
        scored: p.scored.iter().map(seen).collect(),
        contacts: p.contacts,
        search: p.searching.then(|| p.pile.iter().map(seen).collect()),
        verdict: g.verdicts.get(&e.seat).cloned(),
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
