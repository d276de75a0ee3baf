//! Lamarckian Poker: one deck, private hands, a face-up pool each turn, sealed marks that
//! capture by suit or rank, extinction, and a best-five showdown.
//! Rules: `protocol/rules/lamarckian-poker.md` (cited as §).

use super::hand::{self, Ranking};
use crate::cards::{CardId, DeckSpec};
use crate::engine::illegal;
use crate::engine::{
    ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat, ToAct,
};
use crate::games::card_hands;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The whole game is one deck (§ Equipment).
const DECK: DeckId = 0;
const DECK_SIZE: u16 = 52;

/// A move: the mark, named by the deck position of a held card (§ A turn, 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Mark { position: u16 },
}

/// The table's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub players: u8,
    #[serde(default = "four")]
    pub hand: u8,
    #[serde(default = "four")]
    pub pool: u8,
}

fn four() -> u8 {
    4
}

impl Setup {
    pub fn new(players: u8) -> Setup {
        Setup {
            players,
            hand: 4,
            pool: 4,
        }
    }

    pub fn validate(&self) -> Result<(), RuleError> {
        if !(2..=8).contains(&self.players) {
            return Err(RuleError::Setup(format!(
                "Lamarckian Poker seats 2 to 8 players, not {}",
                self.players
            )));
        }
        for (what, n) in [("a starting hand", self.hand), ("a pool", self.pool)] {
            if !(1..=10).contains(&n) {
                return Err(RuleError::Setup(format!(
                    "{what} has 1 to 10 cards, not {n}"
                )));
            }
        }
        if u16::from(self.hand) * u16::from(self.players) >= DECK_SIZE {
            return Err(RuleError::Setup(format!(
                "{} hands of {} cards leave no card for a pool",
                self.players, self.hand
            )));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Phase {
    /// The hands and the first pool, or a new pool, are on their way.
    Deal,
    /// Everyone in the game chooses a mark, sealed.
    Mark,
    /// The marks are being opened.
    Open,
    /// The hands left are being opened.
    Showdown,
    Done,
}

/// A card in a hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub position: u16,
    /// `None` where this client may not know it.
    pub card: Option<CardId>,
    /// Seen by everyone (captured from the pool, or opened).
    pub public: bool,
}

impl card_hands::Slot for Held {
    fn position(&self) -> u16 {
        self.position
    }
    fn card(&self) -> Option<CardId> {
        self.card
    }
    fn learn(&mut self, card: Option<CardId>) {
        self.card = card;
    }
}

pub use crate::games::card_hands::Face;

/// The public record, for views and histories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "what")]
pub enum Entry {
    /// Turn `turn` (from 1) begins with this pool.
    Pool {
        turn: u32,
        cards: Vec<CardId>,
    },
    /// A mark is played: what it captured; then it fell into the pool.
    Played {
        seat: Seat,
        mark: CardId,
        captured: Vec<CardId>,
    },
    Discarded {
        cards: Vec<CardId>,
    },
    Extinct {
        seat: Seat,
    },
    Shown {
        seat: Seat,
        hand: Ranking,
    },
    Won {
        seats: Vec<Seat>,
        hand: Option<Ranking>,
    },
    Forfeited {
        seat: Seat,
        reason: ForfeitReason,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LamarckianPoker {
    pub setup: Setup,
    /// Players not extinct (nor removed), ascending.
    pub alive: Vec<Seat>,
    /// Seats removed by the table; the game ended with them.
    pub removed: Vec<Seat>,
    pub hands: BTreeMap<Seat, Vec<Held>>,
    pub pool: Vec<Face>,
    pub discards: Vec<CardId>,
    /// Turns begun, from 1.
    pub turn: u32,
    pub phase: Phase,
    /// Sealed marks, kept out of every view until all are in.
    marks: BTreeMap<Seat, u16>,
    next_position: u16,
    pending: Vec<ChanceRequest>,
    pub winners: Vec<Seat>,
    pub log: Vec<Entry>,
}

impl LamarckianPoker {
    pub fn new(setup: &Setup) -> Result<LamarckianPoker, RuleError> {
        setup.validate()?;
        let seats: Vec<Seat> = (0..setup.players).collect();
        let n = u16::from(setup.players);
        let mut pending = vec![ChanceRequest::Shuffle {
            deck: DECK,
            spec: DeckSpec::standard(1),
        }];
        let mut hands = BTreeMap::new();
        // Dealt round the table (§ The deal).
        for j in 0..u16::from(setup.hand) {
            for (i, s) in seats.iter().enumerate() {
                let position = j * n + i as u16;
                pending.push(ChanceRequest::deal(DECK, position, *s));
                hands.entry(*s).or_insert_with(Vec::new).push(Held {
                    position,
                    card: None,
                    public: false,
                });
            }
        }
        let mut g = LamarckianPoker {
            setup: setup.clone(),
            alive: seats,
            removed: Vec::new(),
            hands,
            pool: Vec::new(),
            discards: Vec::new(),
            turn: 0,
            phase: Phase::Deal,
            marks: BTreeMap::new(),
            next_position: u16::from(setup.hand) * n,
            pending,
            winners: Vec::new(),
            log: Vec::new(),
        };
        g.ask_pool();
        Ok(g)
    }

    /// Cards not yet dealt.
    pub fn deck_left(&self) -> u16 {
        DECK_SIZE - self.next_position
    }

    /// The next pool face up, as much of it as the deck still has (§ A turn, 7).
    fn ask_pool(&mut self) {
        self.phase = Phase::Deal;
        let n = self.deck_left().min(u16::from(self.setup.pool));
        for k in 0..n {
            self.pending.push(ChanceRequest::Reveal {
                deck: DECK,
                position: self.next_position + k,
            });
        }
        self.next_position += n;
    }

    fn held(&self, seat: Seat, position: u16) -> Option<&Held> {
        self.hands
            .get(&seat)
            .and_then(|h| h.iter().find(|c| c.position == position))
    }

    /// Every mark is in: open those still face down, or resolve at once (§ A turn, 3).
    fn all_marked(&mut self) {
        self.phase = Phase::Open;
        for (seat, position) in &self.marks {
            let h = self.held(*seat, *position).expect("a mark is a held card");
            if !h.public {
                self.pending.push(ChanceRequest::Reveal {
                    deck: DECK,
                    position: *position,
                });
            }
        }
        if self.pending.is_empty() {
            self.resolve();
        }
    }

    /// § A turn, 4–7.
    fn resolve(&mut self) {
        let mut marks: Vec<(Seat, Face)> = Vec::new();
        for (seat, position) in std::mem::take(&mut self.marks) {
            let hand = self.hands.get_mut(&seat).expect("a player");
            let k = hand
                .iter()
                .position(|h| h.position == position)
                .expect("a mark is a held card");
            let h = hand.remove(k);
            marks.push((
                seat,
                Face {
                    position,
                    card: h.card.expect("marks are open"),
                },
            ));
        }
        marks.sort_by_key(|(_, m)| std::cmp::Reverse(hand::mark_order(m.card)));
        for (seat, mark) in marks {
            let (taken, kept): (Vec<Face>, Vec<Face>) =
                std::mem::take(&mut self.pool).into_iter().partition(|f| {
                    hand::value(f.card) == hand::value(mark.card)
                        || hand::suit(f.card) == hand::suit(mark.card)
                });
            self.pool = kept;
            self.pool.push(mark);
            let hand = self.hands.get_mut(&seat).expect("a player");
            hand.extend(taken.iter().map(|f| Held {
                position: f.position,
                card: Some(f.card),
                public: true,
            }));
            self.log.push(Entry::Played {
                seat,
                mark: mark.card,
                captured: taken.iter().map(|f| f.card).collect(),
            });
        }
        let left: Vec<CardId> = self.pool.drain(..).map(|f| f.card).collect();
        self.discards.extend(&left);
        self.log.push(Entry::Discarded { cards: left });
        let before = self.alive.clone();
        let hands = &self.hands;
        self.alive.retain(|s| !hands[s].is_empty());
        for s in before.iter().filter(|s| !self.alive.contains(s)) {
            self.log.push(Entry::Extinct { seat: *s });
        }
        match self.alive.len() {
            0 => self.finish(before, None),
            1 => self.finish(self.alive.clone(), None),
            _ if self.deck_left() == 0 => self.ask_showdown(),
            _ => self.ask_pool(),
        }
    }

    fn ask_showdown(&mut self) {
        self.phase = Phase::Showdown;
        for s in &self.alive {
            for h in &self.hands[s] {
                if !h.public {
                    self.pending.push(ChanceRequest::Reveal {
                        deck: DECK,
                        position: h.position,
                    });
                }
            }
        }
        if self.pending.is_empty() {
            self.showdown();
        }
    }

    /// § Showdown: best five, equal hands share.
    fn showdown(&mut self) {
        let mut ranked: Vec<(Seat, Ranking)> = Vec::new();
        for s in &self.alive {
            let cards: Vec<CardId> = self.hands[s]
                .iter()
                .map(|h| h.card.expect("opened"))
                .collect();
            let r = hand::best(&cards);
            self.log.push(Entry::Shown {
                seat: *s,
                hand: r.clone(),
            });
            ranked.push((*s, r));
        }
        let top = ranked
            .iter()
            .map(|(_, r)| r)
            .max_by(|a, b| a.beats(b))
            .cloned();
        let winners = ranked
            .iter()
            .filter(|(_, r)| top.as_ref().is_some_and(|t| r.beats(t).is_eq()))
            .map(|(s, _)| *s)
            .collect();
        self.finish(winners, top);
    }

    fn finish(&mut self, winners: Vec<Seat>, hand: Option<Ranking>) {
        self.pending.clear();
        self.phase = Phase::Done;
        self.log.push(Entry::Won {
            seats: winners.clone(),
            hand,
        });
        self.winners = winners;
    }

    /// Every seat at the table, removed ones included.
    pub fn table(&self) -> Vec<Seat> {
        (0..self.setup.players).collect()
    }
}

/// What one seat (or a spectator) sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LamarckianView {
    pub viewer: Option<Seat>,
    pub turn: u32,
    pub phase: Phase,
    pub alive: Vec<Seat>,
    pub removed: Vec<Seat>,
    /// Every hand: each card where this viewer may see it, `None` face down.
    pub hands: Vec<(Seat, Vec<Option<CardId>>)>,
    /// The viewer's own cards with their positions (what a mark names).
    pub mine: Vec<Held>,
    pub pool: Vec<CardId>,
    pub deck_left: u16,
    pub discards: Vec<CardId>,
    pub to_act: Vec<Seat>,
    pub legal: Vec<Action>,
    pub winners: Vec<Seat>,
    pub log: Vec<Entry>,
}

impl Game for LamarckianPoker {
    type Action = Action;
    type View = LamarckianView;
    const NAME: &'static str = "lamarckian-poker";

    fn to_act(&self) -> ToAct {
        if !self.pending.is_empty() {
            return ToAct::Chance(self.pending.clone());
        }
        match self.phase {
            Phase::Mark => ToAct::Sealed(
                self.alive
                    .iter()
                    .copied()
                    .filter(|s| !self.marks.contains_key(s))
                    .collect(),
            ),
            Phase::Done => ToAct::Terminal,
            Phase::Deal | Phase::Open | Phase::Showdown => {
                unreachable!("chance is pending in these phases")
            }
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if !self.pending.is_empty()
            || self.phase != Phase::Mark
            || !self.alive.contains(&seat)
            || self.marks.contains_key(&seat)
        {
            return Vec::new();
        }
        let mut v: Vec<Action> = self.hands[&seat]
            .iter()
            .map(|h| Action::Mark {
                position: h.position,
            })
            .collect();
        v.sort_unstable();
        v
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = self.legal_actions(seat);
        // Somebody else's card, a pool card, a position never dealt.
        v.extend(
            [0, self.next_position.saturating_sub(1), DECK_SIZE + 3]
                .map(|position| Action::Mark { position }),
        );
        v
    }

    /// A mark still face down is shown once every mark is open (§ A turn, 3).
    fn shown_by(&self, seat: Seat, action: &Action) -> Vec<(DeckId, u16)> {
        let Action::Mark { position } = *action;
        match self.held(seat, position) {
            Some(h) if !h.public => vec![(DECK, position)],
            _ => Vec::new(),
        }
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        if !self.legal_actions(seat).contains(action) {
            return Err(match self.phase {
                Phase::Done => RuleError::Finished,
                _ if self.legal_actions(seat).is_empty() => RuleError::OutOfTurn {
                    seat,
                    expected: match self.to_act() {
                        ToAct::Sealed(v) => format!("{} players to choose a mark", v.len()),
                        _ => "the cards".into(),
                    },
                },
                _ => illegal(seat, "a mark must be a card of your own hand"),
            });
        }
        let Action::Mark { position } = *action;
        self.marks.insert(seat, position);
        if self.marks.len() == self.alive.len() {
            self.all_marked();
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        crate::engine::check_chance_batch(&self.pending, outcomes, |_, o| {
            crate::engine::check_cards(o, &DeckSpec::standard(1), |p| {
                card_hands::known(&self.hands, p)
            })
        })?;
        let pending = std::mem::take(&mut self.pending);
        let opened = card_hands::take(&mut self.hands, &pending, outcomes).opened;
        match self.phase {
            Phase::Deal => {
                self.turn += 1;
                self.log.push(Entry::Pool {
                    turn: self.turn,
                    cards: opened.iter().map(|f| f.card).collect(),
                });
                self.pool = opened;
                self.phase = Phase::Mark;
            }
            Phase::Open | Phase::Showdown => {
                for f in opened {
                    for h in self.hands.values_mut().flatten() {
                        if h.position == f.position {
                            h.card = Some(f.card);
                            h.public = true;
                        }
                    }
                }
                if self.phase == Phase::Open {
                    self.resolve();
                } else {
                    self.showdown();
                }
            }
            Phase::Mark | Phase::Done => unreachable!("no chance in this phase"),
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> LamarckianView {
        LamarckianView {
            viewer,
            turn: self.turn,
            phase: self.phase,
            alive: self.alive.clone(),
            removed: self.removed.clone(),
            hands: self
                .hands
                .iter()
                .map(|(s, h)| {
                    let mine = viewer == Some(*s);
                    let cards = h
                        .iter()
                        .map(|c| if c.public || mine { c.card } else { None })
                        .collect();
                    (*s, cards)
                })
                .collect(),
            mine: card_hands::own(&self.hands, viewer),
            pool: self.pool.iter().map(|f| f.card).collect(),
            deck_left: self.deck_left(),
            discards: self.discards.clone(),
            to_act: match self.to_act() {
                ToAct::Sealed(_) => self.alive.clone(),
                _ => Vec::new(),
            },
            legal: viewer.map(|v| self.legal_actions(v)).unwrap_or_default(),
            winners: self.winners.clone(),
            log: self.log.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        self.legal_actions(seat).first().copied()
    }

    fn outcome(&self) -> Option<Outcome> {
        let done = self.phase == Phase::Done;
        crate::engine::shared_win_outcome(done, &self.table(), &self.winners, &self.removed)
    }

    fn check_invariants(&self) -> Result<(), String> {
        let mut positions: Vec<u16> = self
            .hands
            .values()
            .flatten()
            .map(|h| h.position)
            .chain(self.pool.iter().map(|f| f.position))
            .collect();
        let held = positions.len();
        positions.sort_unstable();
        positions.dedup();
        if positions.len() != held {
            return Err("one card is in two places".into());
        }
        if positions.iter().any(|p| *p >= self.next_position) {
            return Err("a card not yet dealt is in play".into());
        }
        let in_play = held + self.discards.len();
        if in_play > usize::from(self.next_position) {
            return Err(format!(
                "{in_play} cards in play, only {} dealt",
                self.next_position
            ));
        }
        if self.alive.iter().any(|s| self.removed.contains(s)) {
            return Err("a removed seat still plays".into());
        }
        Ok(())
    }

    fn seats(&self) -> Vec<Seat> {
        crate::engine::playing(self.setup.players, &self.removed)
    }

    fn participants(&self) -> Vec<Seat> {
        // Extinct players still hold key shares of the one deck: their tokens open every pool.
        crate::engine::participants(self.phase == Phase::Done, self.seats())
    }

    fn forfeit(&mut self, offenders: &[Seat], reason: ForfeitReason) -> Result<(), RuleError> {
        // § Forfeits: the deck dies with the offender's key share, so the game ends.
        let done = self.phase == Phase::Done;
        crate::engine::record_forfeit(done, &self.seats(), offenders, &mut self.log, |seat| {
            Entry::Forfeited { seat, reason }
        })?;
        crate::engine::add_removed(&mut self.removed, offenders);
        self.alive.retain(|s| !offenders.contains(s));
        self.marks.clear();
        self.pending.clear();
        self.phase = Phase::Done;
        self.winners.clear();
        Ok(())
    }
}
