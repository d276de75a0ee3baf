//! Scoundrel's rules as a duplicate race (protocol/rules/scoundrel.md): every entrant plays the
//! same shuffled dungeon alone; each learns a card only when it enters that entrant's room, and
//! the others' cards stay face down to it until the race ends and every card drawn is shown.
//!
//! Each client checks its own entrant's turns in full; another entrant's turns it checks in form
//! only (it cannot see that entrant's cards), and in full once the cards are shown (§6): an
//! entrant whose turns do not follow from its cards is disqualified, named, and scores nothing.

use crate::cards::{CardId, DeckSpec, PlayingCard, Suit};
use crate::engine::{
    illegal, ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat,
    ToAct,
};
use crate::games::race::{self, RaceCards, Standing};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The one deck of a race: the dungeon every entrant plays.
pub const DUNGEON: DeckId = 0;
/// Cards in the dungeon.
pub const CARDS: u16 = 44;
/// Health at the start, and its cap.
pub const MAX_HEALTH: i32 = 20;
/// The sum of every monster in the dungeon: clubs and spades 2 to 14 (§1).
pub const ALL_MONSTERS: i32 = 2 * (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14);
/// Cards in a full room.
pub const ROOM: usize = 4;

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
                "a Scoundrel race takes 1 to 6 entrants, not {}",
                self.players
            )));
        }
        Ok(())
    }
}

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

/// How an entrant's game stands, as everyone knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Playing,
    /// Says it fell (checked once its cards are shown).
    Fallen,
    Escaped,
    GaveUp,
    /// Still playing when the race had to stop (another entrant left, §8).
    Stopped,
    /// Removed from the race by the table (§8): no score.
    Left,
}

impl Status {
    /// "fell", "escaped"...: what became of the entrant, in words.
    pub fn words(self) -> &'static str {
        match self {
            Status::Playing => "is still in the dungeon",
            Status::Fallen => "fell",
            Status::Escaped => "escaped",
            Status::GaveUp => "gave up",
            Status::Stopped => "was stopped by the end of the race",
            Status::Left => "left the race",
        }
    }

    /// "in the dungeon", "fallen"...: the state beside a name in a list.
    pub fn label(self) -> &'static str {
        match self {
            Status::Playing => "in the dungeon",
            Status::Fallen => "fallen",
            Status::Escaped => "escaped",
            Status::GaveUp => "gave up",
            Status::Stopped => "stopped",
            Status::Left => "left the race",
        }
    }

    pub fn finished(self) -> bool {
        matches!(self, Status::Fallen | Status::Escaped | Status::GaveUp)
    }
}

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
    /// places after it and whether the entrant escaped.
    pub fn after(&self, a: &Action) -> Result<(Places, bool), String> {
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
                Ok((p, false))
            }
            Action::GiveUp => Ok((p, false)),
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
                if *fallen {
                    return Ok((p, false));
                }
                p.refill();
                let escaped = p.room.is_empty();
                Ok((p, escaped))
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
            Status::Escaped => {
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

/// An entrant's game checked in full from its cards: every move legal, every claim true.
pub fn replay_entrant(
    moves: &[Action],
    card: &dyn Fn(u16) -> Option<CardId>,
) -> Result<(Places, Life, Status), String> {
    let mut places = Places::new();
    let mut life = Life::default();
    let mut status = Status::Playing;
    for (i, a) in moves.iter().enumerate() {
        let fail = |e: String| format!("turn {}: {e}", i + 1);
        if status != Status::Playing {
            return Err(fail("moves after the game ended".into()));
        }
        let (next, escaped) = places.after(a).map_err(fail)?;
        if let Action::Face { takes, fallen } = a {
            let room: Vec<CardId> = places
                .room
                .iter()
                .map(|p| card(*p).ok_or_else(|| fail(format!("position {p} was never shown"))))
                .collect::<Result<_, _>>()?;
            life.turn(&room, takes, *fallen).map_err(fail)?;
            if *fallen {
                status = Status::Fallen;
            }
        }
        if *a == Action::GiveUp {
            status = Status::GaveUp;
        }
        if escaped {
            status = Status::Escaped;
        }
        places = next;
    }
    Ok((places, life, status))
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
    /// Every turn followed from the cards: the score stands.
    Verified { score: i32, health: i32 },
    /// A turn did not follow from the cards: no score.
    Refused { reason: String },
    /// Removed from the race.
    Left,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The dungeon is shuffled and the first rooms dealt.
    Start,
    /// Entrants choose their turns (sealed, all at once), then their new cards are dealt.
    Racing,
    /// Every card drawn is shown by an entrant who holds it.
    Showing,
    Over,
}

/// A Scoundrel race as one client knows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scoundrel {
    pub setup: Setup,
    pub phase: Phase,
    pub entrants: Vec<Entrant>,
    /// Turns chosen this round, applied together once every racing entrant chose (sealed).
    chosen: BTreeMap<Seat, Action>,
    pending: Vec<ChanceRequest>,
    /// The cards this client knows (its own, and every shown one), and who was dealt which:
    /// an entrant whose cards it sees has its turns checked in full when made, the others in
    /// form (§6).
    cards: RaceCards,
    pub verdicts: BTreeMap<Seat, Verdict>,
    /// Why the race stopped early, if it did.
    pub stopped_by: Vec<Seat>,
}

/// An entrant as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntrantView {
    pub seat: Seat,
    pub status: Status,
    pub dungeon_left: usize,
    /// The room by slot: the card where the viewer may see it.
    pub room: Vec<Option<CardId>>,
    pub avoided_last: bool,
    pub turns: usize,
    /// Known to the entrant itself, and to everyone once its cards are shown.
    pub life: Option<Life>,
    pub verdict: Option<Verdict>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoundrelView {
    pub viewer: Option<Seat>,
    pub phase: Phase,
    pub entrants: Vec<EntrantView>,
    /// Whether the viewer has a turn to choose now.
    pub to_choose: bool,
    pub stopped_by: Vec<Seat>,
}

impl Scoundrel {
    pub fn new(setup: &Setup) -> Result<Scoundrel, RuleError> {
        setup.validate()?;
        let entrants: Vec<Entrant> = (0..setup.players)
            .map(|seat| Entrant {
                seat,
                places: Places::new(),
                moves: Vec::new(),
                status: Status::Playing,
            })
            .collect();
        let mut pending = vec![ChanceRequest::Shuffle {
            deck: DUNGEON,
            spec: dungeon_spec(),
        }];
        for e in &entrants {
            for p in &e.places.room {
                pending.push(ChanceRequest::DealSealed {
                    deck: DUNGEON,
                    position: *p,
                    to: e.seat,
                });
            }
        }
        Ok(Scoundrel {
            setup: setup.clone(),
            phase: Phase::Start,
            entrants,
            chosen: BTreeMap::new(),
            pending,
            cards: RaceCards::default(),
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

    /// The card at `p` as `viewer` may see it in entrant `e`'s hands.
    fn visible(&self, e: &Entrant, viewer: Option<Seat>, p: u16) -> Option<CardId> {
        self.cards.visible(e.seat, viewer, (DUNGEON, p))
    }

    /// The card at position `p`, if this client knows it.
    fn card(&self, p: u16) -> Option<CardId> {
        self.cards.card((DUNGEON, p))
    }

    /// The card at position `p` of entrant `seat`'s game, if `viewer` may see it.
    pub fn card_seen(&self, seat: Seat, viewer: Option<Seat>, p: u16) -> Option<CardId> {
        self.entrant(seat).and_then(|e| self.visible(e, viewer, p))
    }

    /// An entrant's game as this client can check it: in full where it sees the cards.
    pub fn life_of(&self, seat: Seat) -> Option<Life> {
        let e = self.entrant(seat)?;
        if !self.cards.sees(seat) && self.phase != Phase::Over {
            return None;
        }
        replay_entrant(&e.moves, &|p| self.card(p))
            .ok()
            .map(|(_, l, _)| l)
    }

    /// The room's cards, when this client knows them all.
    fn room_cards(&self, e: &Entrant) -> Option<Vec<CardId>> {
        e.places.room.iter().map(|p| self.card(*p)).collect()
    }

    /// Deals each racing entrant the cards new to it in its room; or, when nobody races, shows
    /// every card drawn (§2, §6).
    fn next_chance(&mut self) {
        let mut reqs = Vec::new();
        for e in &self.entrants {
            if e.status != Status::Playing {
                continue;
            }
            reqs.extend(
                self.cards
                    .deals(e.seat, e.places.room.iter().map(|p| (DUNGEON, *p))),
            );
        }
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

    /// Every entrant's game checked against its shown cards (§6).
    fn judge(&mut self) {
        self.phase = Phase::Over;
        let mut verdicts = BTreeMap::new();
        for e in &self.entrants {
            let v = if e.status == Status::Left {
                Verdict::Left
            } else {
                match replay_entrant(&e.moves, &|p| self.card(p)) {
                    Ok((_, life, status)) if status == e.status || e.status == Status::Stopped => {
                        Verdict::Verified {
                            score: if e.status == Status::Stopped {
                                life.health
                            } else {
                                life.score(status)
                            },
                            health: life.health,
                        }
                    }
                    Ok((_, _, status)) => Verdict::Refused {
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

    /// Finished, verified entrants by score, best first; then stopped ones by health.
    pub fn leaderboard(&self) -> Vec<(Seat, i32, Status)> {
        self.standings()
            .iter()
            .map(|r| {
                (
                    r.seat,
                    r.score,
                    self.entrant(r.seat).expect("entrant").status,
                )
            })
            .collect()
    }

    /// The verified results in leaderboard order (the race kit's).
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

impl Game for Scoundrel {
    type Action = Action;
    type View = ScoundrelView;
    const NAME: &'static str = "scoundrel";

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
        if !self.to_act().includes(seat) {
            return Vec::new();
        }
        let Some(e) = self.entrant(seat) else {
            return Vec::new();
        };
        let (Some(life), Some(room)) = (self.life_of(seat), self.room_cards(e)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if e.places.may_avoid() {
            out.push(Action::Avoid);
        }
        for takes in turns(&life, &room, e.places.to_face()) {
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
        out.sort();
        out.dedup();
        out
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
            if let Action::Face { takes, fallen } = action {
                let mut life = self.life_of(seat).ok_or_else(|| {
                    illegal(seat, "its game so far does not follow from its cards")
                })?;
                let room = self
                    .room_cards(e)
                    .ok_or_else(|| illegal(seat, "its room is not dealt yet"))?;
                life.turn(&room, takes, *fallen)
                    .map_err(|r| illegal(seat, r))?;
            }
        }
        self.chosen.insert(seat, action.clone());
        if self.racing().iter().all(|s| self.chosen.contains_key(s)) {
            for (s, a) in std::mem::take(&mut self.chosen) {
                let e = self
                    .entrants
                    .iter_mut()
                    .find(|e| e.seat == s)
                    .expect("entrant");
                let (places, escaped) = e.places.after(&a).expect("checked");
                e.places = places;
                e.status = match &a {
                    Action::GiveUp => Status::GaveUp,
                    Action::Face { fallen: true, .. } => Status::Fallen,
                    _ if escaped => Status::Escaped,
                    _ => Status::Playing,
                };
                e.moves.push(a);
            }
            self.next_chance();
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        self.cards.record(&self.pending, outcomes, |d| {
            (d == DUNGEON).then(dungeon_spec)
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

    fn view(&self, viewer: Option<Seat>) -> ScoundrelView {
        let entrants = self
            .entrants
            .iter()
            .map(|e| {
                let life = if viewer == Some(e.seat) || self.phase == Phase::Over {
                    self.life_of(e.seat)
                } else {
                    None
                };
                EntrantView {
                    seat: e.seat,
                    status: e.status,
                    dungeon_left: e.places.dungeon.len(),
                    room: e
                        .places
                        .room
                        .iter()
                        .map(|p| self.visible(e, viewer, *p))
                        .collect(),
                    avoided_last: e.places.avoided_last,
                    turns: e.moves.len(),
                    life,
                    verdict: self.verdicts.get(&e.seat).cloned(),
                }
            })
            .collect();
        ScoundrelView {
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
            let mut all: Vec<u16> = p
                .dungeon
                .iter()
                .chain(&p.room)
                .chain(&p.faced)
                .copied()
                .collect();
            all.sort_unstable();
            if all != (0..CARDS).collect::<Vec<_>>() {
                return Err(format!("seat {}'s cards are not the dungeon's 44", e.seat));
            }
            if let Some(l) = self.life_of(e.seat) {
                if l.health > MAX_HEALTH {
                    return Err(format!("seat {} has {} health", e.seat, l.health));
                }
            }
        }
        Ok(())
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = self.legal_actions(seat);
        v.push(Action::Avoid);
        v.push(Action::Face {
            takes: vec![Take {
                slot: 7,
                weapon: false,
            }],
            fallen: false,
        });
        v.push(Action::Face {
            takes: vec![
                Take {
                    slot: 0,
                    weapon: true,
                },
                Take {
                    slot: 1,
                    weapon: true,
                },
                Take {
                    slot: 2,
                    weapon: true,
                },
            ],
            fallen: false,
        });
        v.push(Action::Face {
            takes: vec![Take {
                slot: 0,
                weapon: false,
            }],
            fallen: true,
        });
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
        // The dungeon's key shares of the offenders are gone: nobody can draw again (§8). The
        // race stops; every entrant still at the table shows what it drew and is judged on it.
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
