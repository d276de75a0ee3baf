//! Scoundrel's rules (protocol/rules/scoundrel.md) as the race kit's [`Solitaire`]: the
//! dungeon, a room's cards and a turn's form ([`Places`]), the health, weapon and monsters a
//! turn's cards make ([`Life`], the entrant's tally: only a client that sees its cards knows
//! it), and the score. The race itself (every entrant on the same shuffled dungeon, each card
//! dealt sealed when it enters an entrant's room, shown at the end and every game checked, §6)
//! is [`Race`]'s.

use crate::cards::{CardId, DeckSpec, PlayingCard, Suit};
use crate::engine::{DeckId, Seat};
use crate::games::race::{self, Ending, Face, Race, RaceView, Solitaire, Spot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The one deck of a race: the dungeon every entrant plays.
pub const DUNGEON: DeckId = race::DECK;
/// Cards in the dungeon.
pub const CARDS: u16 = 44;
/// Health at the start, and its cap.
pub const MAX_HEALTH: i32 = 20;
/// The sum of every monster in the dungeon: clubs and spades 2 to 14 (§1).
pub const ALL_MONSTERS: i32 = 2 * (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14);
/// Cards in a full room.
pub const ROOM: usize = 4;

/// What a card of the dungeon is (§1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Monster(u8),
    Weapon(u8),
    Potion(u8),
}

/// A card's value: 2–10 as printed, J 11, Q 12, K 13, A 14.
pub fn value(c: CardId) -> u8 {
    let p = PlayingCard::from_id(c);
    if p.rank == 1 {
        14
    } else {
        p.rank
    }
}

pub fn kind(c: CardId) -> Kind {
    match PlayingCard::from_id(c).suit {
        Suit::Clubs | Suit::Spades => Kind::Monster(value(c)),
        Suit::Diamonds => Kind::Weapon(value(c)),
        Suit::Hearts => Kind::Potion(value(c)),
    }
}

/// The 44 cards: a standard deck without jokers, red faces and red aces (§1).
pub fn dungeon_cards() -> Vec<CardId> {
    (0..52u16)
        .map(CardId)
        .filter(|c| {
            let p = PlayingCard::from_id(*c);
            let red = matches!(p.suit, Suit::Diamonds | Suit::Hearts);
            !(red && (p.rank == 1 || p.rank > 10))
        })
        .collect()
}

pub fn dungeon_spec() -> DeckSpec {
    DeckSpec::Subset {
        base: Box::new(DeckSpec::standard(1)),
        cards: dungeon_cards(),
    }
}

/// One card faced in a turn: the room slot (0-based, in room order) and, for a monster, whether
/// the equipped weapon fights it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Take {
    pub slot: u8,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub weapon: bool,
}

/// A turn (§3). Its serde JSON is the wire format of a move.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The four cards of the room go to the bottom of the dungeon, in room order.
    Avoid,
    /// Three cards of the room (all that are left once the dungeon is empty) faced in this
    /// order; `fallen` says the last of them killed the entrant (the turn then stops there).
    Face {
        takes: Vec<Take>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fallen: bool,
    },
    /// The entrant stops and is scored as fallen (also the timeout move, §7).
    GiveUp,
}

/// How a game of Scoundrel ends by its rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// Says it fell (checked once its cards are shown).
    Fallen,
    Escaped,
}

impl Ending for End {
    const STILL: &'static str = "is still in the dungeon";
    const PLAYING: &'static str = "in the dungeon";

    fn words(self) -> &'static str {
        match self {
            End::Fallen => "fell",
            End::Escaped => "escaped",
        }
    }

    fn label(self) -> &'static str {
        match self {
            End::Fallen => "fallen",
            End::Escaped => "escaped",
        }
    }
}

/// How an entrant's game stands, as everyone knows it.
pub type Status = race::Status<End>;
/// How an entrant's game was judged once its cards were shown (§6).
pub type Verdict = race::Verdict<Verified>;
/// A race of Scoundrel's entrants: they announce nothing else.
pub type Setup = race::Entrants;
pub use crate::games::race::Phase;

/// Where an entrant's cards are, by position of the one deck: what every client knows of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Places {
    /// Top first.
    pub dungeon: Vec<u16>,
    pub room: Vec<u16>,
    pub avoided_last: bool,
    /// Positions faced so far, in order.
    pub faced: Vec<u16>,
}

impl Places {
    pub fn new() -> Places {
        let mut p = Places {
            dungeon: (0..CARDS).collect(),
            room: Vec::new(),
            avoided_last: false,
            faced: Vec::new(),
        };
        p.refill();
        p
    }

    fn refill(&mut self) {
        while self.room.len() < ROOM && !self.dungeon.is_empty() {
            self.room.push(self.dungeon.remove(0));
        }
    }

    /// Cards a turn faces: three, or every card left once the dungeon is empty (§3.3).
    pub fn to_face(&self) -> usize {
        self.room.len().min(3)
    }

    pub fn may_avoid(&self) -> bool {
        self.room.len() == ROOM && !self.avoided_last && !self.dungeon.is_empty()
    }

    /// The move's form (§3): which slots, how many, whether avoiding is allowed now. Returns the
    /// places after it (an empty room once refilled: the entrant escaped).
    pub fn after(&self, a: &Action) -> Result<Places, String> {
        let mut p = self.clone();
        match a {
            Action::Avoid => {
                if self.room.len() < ROOM || self.dungeon.is_empty() {
                    return Err(
                        "only a full room with cards still in the dungeon can be avoided".into(),
                    );
                }
                if self.avoided_last {
                    return Err("the room before was avoided: two rooms in a row cannot be".into());
                }
                p.dungeon.append(&mut p.room);
                p.refill();
                p.avoided_last = true;
                Ok(p)
            }
            Action::GiveUp => Ok(p),
            Action::Face { takes, fallen } => {
                let need = self.to_face();
                if takes.is_empty() || takes.len() > need || (!fallen && takes.len() != need) {
                    return Err(format!(
                        "a turn faces {need} cards of this room, not {}",
                        takes.len()
                    ));
                }
                let mut seen = BTreeSet::new();
                for t in takes {
                    if usize::from(t.slot) >= self.room.len() {
                        return Err(format!(
                            "the room has {} cards: there is no card {}",
                            self.room.len(),
                            t.slot + 1
                        ));
                    }
                    if !seen.insert(t.slot) {
                        return Err(format!("card {} is faced twice", t.slot + 1));
                    }
                }
                for t in takes {
                    p.faced.push(self.room[usize::from(t.slot)]);
                }
                p.room = self
                    .room
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !seen.contains(&(*i as u8)))
                    .map(|(_, x)| *x)
                    .collect();
                p.avoided_last = false;
                if !fallen {
                    p.refill();
                }
                Ok(p)
            }
        }
    }
}

impl Default for Places {
    fn default() -> Self {
        Places::new()
    }
}

/// An entrant's health, weapon and score, known to whoever knows the cards it faced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Life {
    pub health: i32,
    pub weapon: Option<CardId>,
    /// Monsters slain with the equipped weapon, in order.
    pub slain: Vec<CardId>,
    /// The sum of the monsters faced (fought with or without a weapon).
    pub monsters_faced: i32,
    /// The last card faced.
    pub last: Option<CardId>,
}

impl Default for Life {
    fn default() -> Self {
        Life {
            health: MAX_HEALTH,
            weapon: None,
            slain: Vec::new(),
            monsters_faced: 0,
            last: None,
        }
    }
}

impl Life {
    pub fn dead(&self) -> bool {
        self.health <= 0
    }

    /// Whether the equipped weapon may fight a monster of value `v` (§4.3: no stronger than the
    /// last it slew).
    pub fn weapon_can(&self, v: u8) -> bool {
        self.weapon.is_some() && self.slain.last().is_none_or(|l| v <= value(*l))
    }

    /// Faces one card (§4). `potion_used`: a potion already drank this turn.
    pub fn face(&mut self, c: CardId, weapon: bool, potion_used: &mut bool) -> Result<(), String> {
        let name = PlayingCard::from_id(c).to_string();
        match kind(c) {
            Kind::Weapon(_) => {
                if weapon {
                    return Err(format!("{name} is a weapon, not a monster to fight"));
                }
                self.weapon = Some(c);
                self.slain.clear();
            }
            Kind::Potion(v) => {
                if weapon {
                    return Err(format!("{name} is a potion, not a monster to fight"));
                }
                if !*potion_used {
                    self.health = (self.health + i32::from(v)).min(MAX_HEALTH);
                    *potion_used = true;
                }
            }
            Kind::Monster(v) => {
                self.monsters_faced += i32::from(v);
                let damage = if weapon {
                    let Some(w) = self.weapon else {
                        return Err(format!("no weapon is equipped to fight {name}"));
                    };
                    if !self.weapon_can(v) {
                        return Err(format!(
                            "the weapon last slew {}: it cannot fight {name}, which is stronger",
                            self.slain
                                .last()
                                .map(|l| PlayingCard::from_id(*l).to_string())
                                .unwrap_or_default()
                        ));
                    }
                    self.slain.push(c);
                    (i32::from(v) - i32::from(value(w))).max(0)
                } else {
                    i32::from(v)
                };
                self.health -= damage;
            }
        }
        self.last = Some(c);
        Ok(())
    }

    /// A whole turn of faced cards, the room's cards by slot; checks the `fallen` claim.
    pub fn turn(&mut self, room: &[CardId], takes: &[Take], fallen: bool) -> Result<(), String> {
        let mut potion = false;
        for (i, t) in takes.iter().enumerate() {
            if self.dead() {
                return Err("the turn goes on after a fatal card".into());
            }
            self.face(room[usize::from(t.slot)], t.weapon, &mut potion)?;
            let last = i + 1 == takes.len();
            if last && fallen && !self.dead() {
                return Err(format!(
                    "says it fell, but stands with {} health",
                    self.health
                ));
            }
            if last && !fallen && self.dead() {
                return Err("fell, but does not say so".into());
            }
        }
        Ok(())
    }

    /// The score of a finished game (§5): on escape the health, plus a last potion's value at
    /// full health; otherwise minus every monster not faced.
    pub fn score(&self, status: Status) -> i32 {
        match status {
            Status::Ended(End::Escaped) => {
                let bonus = match self.last.map(kind) {
                    Some(Kind::Potion(v)) if self.health == MAX_HEALTH => i32::from(v),
                    _ => 0,
                };
                self.health + bonus
            }
            _ => -(ALL_MONSTERS - self.monsters_faced),
        }
    }
}

/// Every turn that can be played from `life` with this room, sorted (§3): each ordering of the
/// cards to face, with or without the weapon on each monster it may fight, stopping at a fatal
/// card.
pub fn turns(life: &Life, room: &[CardId], need: usize) -> Vec<Vec<Take>> {
    fn go(
        life: &Life,
        potion: bool,
        room: &[CardId],
        need: usize,
        done: &mut Vec<Take>,
        out: &mut BTreeSet<(Vec<Take>, bool)>,
    ) {
        for slot in 0..room.len() as u8 {
            if done.iter().any(|t| t.slot == slot) {
                continue;
            }
            let c = room[usize::from(slot)];
            let ways: &[bool] = match kind(c) {
                Kind::Monster(v) if life.weapon_can(v) => &[false, true],
                _ => &[false],
            };
            for &weapon in ways {
                let mut l = life.clone();
                let mut p = potion;
                if l.face(c, weapon, &mut p).is_err() {
                    continue;
                }
                done.push(Take { slot, weapon });
                if l.dead() || done.len() == need {
                    out.insert((done.clone(), l.dead()));
                } else {
                    go(&l, p, room, need, done, out);
                }
                done.pop();
            }
        }
    }
    let mut out = BTreeSet::new();
    go(life, false, room, need, &mut Vec::new(), &mut out);
    out.into_iter().map(|(t, _)| t).collect()
}

/// Scoundrel for the race kit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dungeon;

/// A Scoundrel race as one client knows it.
pub type Scoundrel = Race<Dungeon>;
pub type ScoundrelView = RaceView<Dungeon>;
pub type EntrantView = race::EntrantView<Dungeon>;

/// A verified game's score (§5; a stopped entrant's is its health) and its health.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verified {
    pub score: i32,
    pub health: i32,
}

/// An entrant's game as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    pub dungeon_left: usize,
    /// The room by slot: the card where the viewer may see it.
    pub room: Vec<Option<CardId>>,
    pub avoided_last: bool,
    /// Known to the entrant itself, and to everyone once its cards are shown.
    pub life: Option<Life>,
}

fn spots(positions: &[u16]) -> impl Iterator<Item = Spot> + '_ {
    positions.iter().map(|p| (DUNGEON, *p))
}

/// The room's cards, where all are known: a position never known is named, for refusals.
fn room_cards(places: &Places, face: Face) -> Result<Vec<CardId>, String> {
    places
        .room
        .iter()
        .map(|p| face((DUNGEON, *p)).ok_or_else(|| format!("position {p} was never shown")))
        .collect()
}

impl Solitaire for Dungeon {
    const NAME: &'static str = "scoundrel";
    const TITLE: &'static str = "Scoundrel";
    const RACE: &'static str = "Scoundrel";
    const MOVE: &'static str = "turn";
    const GIVE_UP: Action = Action::GiveUp;

    type Setup = Setup;
    type Action = Action;
    type Places = Places;
    type Tally = Life;
    type End = End;
    type Verified = Verified;
    type Board = Board;

    fn deck(_: &Setup) -> DeckSpec {
        dungeon_spec()
    }

    fn places(_: &Setup, _: Seat) -> Places {
        Places::new()
    }

    fn drawn(places: &Places) -> Vec<Spot> {
        spots(&places.room).collect()
    }

    fn spots(p: &Places) -> Vec<Spot> {
        spots(&p.dungeon)
            .chain(spots(&p.room))
            .chain(spots(&p.faced))
            .collect()
    }

    fn after(places: &Places, a: &Action) -> Result<Places, String> {
        places.after(a)
    }

    fn check(places: &Places, life: &mut Life, a: &Action, face: Face) -> Result<(), String> {
        match a {
            Action::Face { takes, fallen } => life.turn(&room_cards(places, face)?, takes, *fallen),
            _ => Ok(()),
        }
    }

    fn status_after(a: &Action, next: &Places) -> Status {
        match a {
            Action::GiveUp => Status::GaveUp,
            Action::Face { fallen: true, .. } => Status::Ended(End::Fallen),
            // A room left empty once refilled: the dungeon is through.
            _ if next.room.is_empty() => Status::Ended(End::Escaped),
            _ => Status::Playing,
        }
    }

    fn moves(places: &Places, life: &Life, face: Face) -> Option<Vec<Action>> {
        let room = room_cards(places, face).ok()?;
        let mut out = Vec::new();
        if places.may_avoid() {
            out.push(Action::Avoid);
        }
        for takes in turns(life, &room, places.to_face()) {
            let mut l = life.clone();
            let mut potion = false;
            for t in &takes {
                let _ = l.face(room[usize::from(t.slot)], t.weapon, &mut potion);
            }
            out.push(Action::Face {
                takes,
                fallen: l.dead(),
            });
        }
        out.push(Action::GiveUp);
        Some(out)
    }

    fn verified(_: &Places, life: &Life, status: Status) -> Verified {
        Verified {
            score: if status == Status::Stopped {
                life.health
            } else {
                life.score(status)
            },
            health: life.health,
        }
    }

    fn score(v: &Verified) -> i32 {
        v.score
    }

    fn invariants(_: &Places, life: Option<&Life>, _: Face) -> Result<(), String> {
        match life {
            Some(l) if l.health > MAX_HEALTH => Err(format!("{} health", l.health)),
            _ => Ok(()),
        }
    }

    fn probes() -> Vec<Action> {
        let take = |slot, weapon| Take { slot, weapon };
        vec![
            Action::Avoid,
            Action::Face {
                takes: vec![take(7, false)],
                fallen: false,
            },
            Action::Face {
                takes: vec![take(0, true), take(1, true), take(2, true)],
                fallen: false,
            },
            Action::Face {
                takes: vec![take(0, false)],
                fallen: true,
            },
        ]
    }

    fn board(places: &Places, seen: Face, life: Option<Life>) -> Board {
        Board {
            dungeon_left: places.dungeon.len(),
            room: spots(&places.room).map(seen).collect(),
            avoided_last: places.avoided_last,
            life,
        }
    }
}
