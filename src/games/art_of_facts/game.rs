//! ArtOfFacts: the rules (`protocol/rules/art-of-facts.md`). A table of hands: everyone antes,
//! three private cards and one face-down card each, values declared one player at a time
//! clockwise from the dealer, the highest value takes the pot, the dealer takes ties, a player
//! tying the dealer before the last declaration takes its ante back; the ante grows after every
//! full rotation of the deal; a player with no chips left is out.

use super::deck::{Card, Cards, DeckFile};
use super::value::{self, Declaration};
use crate::cards::{CardId, DeckSpec};
use crate::engine::{
    check_chance_batch, check_forfeit, illegal, ChanceOutcome, ChanceRequest, DeckId,
    ForfeitReason, Game, Outcome, RuleError, Seat, ToAct,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Cards dealt to each player to look at.
pub const HAND: usize = 3;
/// The stash every player starts with when the deck file names none.
pub const DEFAULT_STASH: u64 = 1000;
pub const DEFAULT_ANTE_PERCENT: u32 = 20;
pub const DEFAULT_GROWTH_PERCENT: u32 = 10;

/// A move.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Keep the three cards: they are shown and the value is worked out from them.
    Keep,
    /// Replace the card in `slot` (0-based) with the face-down card, unseen until now; final.
    Swap { slot: u8 },
    /// The value, made this way from the shown hand.
    Declare(Declaration),
}

/// The table's settings (`TableSpec.setup`): the deck file (with its money rules) travels with
/// the table, so every client deals from the same cards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub players: u8,
    /// Stop after this many hands (none: until one player holds every chip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hands: Option<u32>,
    #[serde(default = "DeckFile::default_deck")]
    pub deck: DeckFile,
}

impl Setup {
    pub fn new(players: u8) -> Setup {
        Setup {
            players,
            hands: None,
            deck: DeckFile::default_deck(),
        }
    }

    pub fn stash(&self) -> u64 {
        self.deck.stash.unwrap_or(DEFAULT_STASH)
    }
    pub fn ante_percent(&self) -> u32 {
        self.deck.ante_percent.unwrap_or(DEFAULT_ANTE_PERCENT)
    }
    pub fn growth_percent(&self) -> u32 {
        self.deck
            .ante_growth_percent
            .unwrap_or(DEFAULT_GROWTH_PERCENT)
    }

    pub fn validate(&self) -> Result<(), RuleError> {
        self.deck.validate().map_err(RuleError::Setup)?;
        let n = usize::from(self.players);
        if !(2..=8).contains(&n) {
            return Err(RuleError::Setup(format!(
                "ArtOfFacts seats 2 to 8 players, not {n}"
            )));
        }
        if self.deck.feathers() < n {
            return Err(RuleError::Setup(format!(
                "the deck has {} '{}' cards; picking the dealer needs one for each of {n} players",
                self.deck.feathers(),
                self.deck.feather
            )));
        }
        let need = n * (HAND + 1);
        if self.deck.cards().len() < need {
            return Err(RuleError::Setup(format!(
                "the deck has {} cards; {n} players need {need} (three and one face down each)",
                self.deck.cards().len()
            )));
        }
        if self.hands == Some(0) {
            return Err(RuleError::Setup("a table plays at least one hand".into()));
        }
        Ok(())
    }
}

/// The first ante: the stash's `percent` per cent, rounded up (§3).
pub fn first_ante(stash: u64, percent: u32) -> u64 {
    (stash * u64::from(percent)).div_ceil(100)
}

/// The ante of the next rotation: `growth` per cent more, rounded up (§3).
pub fn grown(ante: u64, growth: u32) -> u64 {
    (ante * (100 + u64::from(growth))).div_ceil(100)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Phase {
    /// Everyone draws face up until each holds a feather card: the highest deals first.
    Draw,
    /// The hand's cards are on their way.
    Deal,
    /// The player at `turn` (from the dealer) keeps its cards or swaps one for the face-down card.
    Swap {
        turn: usize,
    },
    /// Its hand is being shown.
    Show {
        turn: usize,
    },
    /// It declares its value.
    Declare {
        turn: usize,
    },
    Done,
}

/// A card a player holds: its deck position and, where this client may know it, the card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    pub position: u16,
    pub card: Option<CardId>,
}

/// One player's hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub slots: Vec<Slot>,
    /// The face-down card's position: nobody has seen it.
    pub face_down: u16,
    /// The slot the face-down card replaced, once swapped.
    pub swapped: Option<u8>,
    /// Shown to everyone (its value is being worked out or was).
    pub shown: bool,
}

/// The public record, for views and stories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "what")]
pub enum Entry {
    Drew {
        seat: Seat,
        card: Card,
    },
    Dealer {
        seat: Seat,
        card: Card,
    },
    Ante {
        hand: u32,
        ante: u64,
        rotation: u32,
        pot: u64,
    },
    Kept {
        seat: Seat,
    },
    Swapped {
        seat: Seat,
        slot: u8,
    },
    Shown {
        seat: Seat,
        cards: Vec<Card>,
    },
    Declared {
        seat: Seat,
        value: i64,
        how: String,
    },
    TookBack {
        seat: Seat,
        chips: u64,
    },
    Won {
        seat: Seat,
        pot: u64,
        value: i64,
        dealer_tie: bool,
    },
    Out {
        seat: Seat,
    },
    Forfeited {
        seat: Seat,
        shared: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtOfFacts {
    pub setup: Setup,
    cards: Vec<Card>,
    pub banks: BTreeMap<Seat, u64>,
    /// Players with chips in play, ascending.
    pub active: Vec<Seat>,
    /// Players the table removed (they left with what they had).
    pub removed: Vec<Seat>,
    pub phase: Phase,
    next_deck: DeckId,
    /// Hands finished.
    pub hand_no: u32,
    pub dealer: Option<Seat>,
    /// Full rotations of the deal completed, and the ante now.
    pub rotation: u32,
    pub ante: u64,
    /// Who has dealt in the rotation under way.
    dealt: BTreeSet<Seat>,
    /// The dealer draw: each player's cards, face up.
    pub draws: BTreeMap<Seat, Vec<CardId>>,
    draw_next: u16,
    deck: DeckId,
    pub pot: u64,
    /// What each player put in this hand (and may take back).
    pub antes: BTreeMap<Seat, u64>,
    pub hands: BTreeMap<Seat, Held>,
    /// This hand's order of play: the dealer, then clockwise.
    pub order: Vec<Seat>,
    pub declared: BTreeMap<Seat, (Declaration, i64)>,
    pub took_back: BTreeSet<Seat>,
    pending: Vec<ChanceRequest>,
    pub log: Vec<Entry>,
}

impl ArtOfFacts {
    pub fn new(setup: &Setup) -> Result<ArtOfFacts, RuleError> {
        setup.validate()?;
        let players: Vec<Seat> = (0..setup.players).collect();
        let mut g = ArtOfFacts {
            cards: setup.deck.cards(),
            banks: players.iter().map(|s| (*s, setup.stash())).collect(),
            active: players,
            removed: Vec::new(),
            phase: Phase::Draw,
            next_deck: 0,
            hand_no: 0,
            dealer: None,
            rotation: 0,
            ante: first_ante(setup.stash(), setup.ante_percent()),
            dealt: BTreeSet::new(),
            draws: BTreeMap::new(),
            draw_next: 0,
            deck: 0,
            pot: 0,
            antes: BTreeMap::new(),
            hands: BTreeMap::new(),
            order: Vec::new(),
            declared: BTreeMap::new(),
            took_back: BTreeSet::new(),
            pending: Vec::new(),
            log: Vec::new(),
            setup: setup.clone(),
        };
        g.start_draw();
        Ok(g)
    }

    pub fn cards(&self) -> Cards {
        Cards(self.cards.clone())
    }

    fn card(&self, id: CardId) -> Card {
        self.cards
            .get(usize::from(id.0))
            .cloned()
            .unwrap_or(Card::Plain {
                op: super::deck::Op::Add,
                value: 0,
            })
    }

    fn spec(&self) -> DeckSpec {
        self.setup.deck.spec()
    }

    fn new_deck(&mut self) -> DeckId {
        let d = self.next_deck;
        self.next_deck += 1;
        d
    }

    fn is_feather(&self, id: CardId) -> bool {
        self.card(id).symbol() == Some(self.setup.deck.feather.as_str())
    }

    fn feather_of(&self, seat: Seat) -> Option<CardId> {
        self.draws
            .get(&seat)?
            .iter()
            .copied()
            .find(|c| self.is_feather(*c))
    }

    // ---- the dealer draw (§4) ---------------------------------------------------------------

    fn start_draw(&mut self) {
        self.phase = Phase::Draw;
        self.draws = self.active.iter().map(|s| (*s, Vec::new())).collect();
        self.deck = self.new_deck();
        self.draw_next = 0;
        self.pending.push(ChanceRequest::Shuffle {
            deck: self.deck,
            spec: self.spec(),
        });
        self.draw_round();
    }

    /// One card face up for each player still without a feather, in seat order.
    fn draw_round(&mut self) {
        for s in self.active.clone() {
            if self.feather_of(s).is_none() {
                self.pending.push(ChanceRequest::Reveal {
                    deck: self.deck,
                    position: self.draw_next,
                });
                self.draw_next += 1;
            }
        }
    }

    /// Everyone holds a feather: the highest deals first; equal feathers (a deck may repeat
    /// one) go to whoever drew theirs first, then to the lower seat (§4).
    fn pick_dealer(&mut self) {
        let best = self
            .active
            .iter()
            .filter_map(|s| {
                let f = self.feather_of(*s)?;
                let when = self.draws[s].len();
                let v = match self.card(f) {
                    Card::Symbol { value, .. } => value,
                    _ => 0,
                };
                Some((v, std::cmp::Reverse(when), std::cmp::Reverse(*s), f))
            })
            .max();
        if let Some((_, _, std::cmp::Reverse(seat), f)) = best {
            self.dealer = Some(seat);
            self.log.push(Entry::Dealer {
                seat,
                card: self.card(f),
            });
        }
        self.start_hand();
    }

    // ---- a hand -------------------------------------------------------------------------

    fn start_hand(&mut self) {
        self.hands.clear();
        self.declared.clear();
        self.took_back.clear();
        self.antes.clear();
        self.pot = 0;
        if self.active.len() < 2 || self.setup.hands.is_some_and(|h| self.hand_no >= h) {
            self.phase = Phase::Done;
            self.pending.clear();
            return;
        }
        let dealer = match self.dealer {
            Some(d) if self.active.contains(&d) => d,
            Some(d) => self.next_active(d),
            None => self.active[0],
        };
        self.dealer = Some(dealer);
        // §3: a full rotation is over once everyone still in has dealt; then the ante grows.
        if self.active.iter().all(|s| self.dealt.contains(s)) {
            self.rotation += 1;
            self.ante = grown(self.ante, self.setup.growth_percent());
            self.dealt.clear();
        }
        self.dealt.insert(dealer);
        for s in self.active.clone() {
            let bank = self.banks.get_mut(&s).expect("a player");
            let paid = self.ante.min(*bank);
            *bank -= paid;
            self.antes.insert(s, paid);
            self.pot += paid;
        }
        self.log.push(Entry::Ante {
            hand: self.hand_no + 1,
            ante: self.ante,
            rotation: self.rotation,
            pot: self.pot,
        });
        let k = self.active.iter().position(|s| *s == dealer).unwrap_or(0);
        self.order = self.active[k..]
            .iter()
            .chain(&self.active[..k])
            .copied()
            .collect();
        self.deck = self.new_deck();
        self.phase = Phase::Deal;
        self.pending.push(ChanceRequest::Shuffle {
            deck: self.deck,
            spec: self.spec(),
        });
        let n = self.order.len() as u16;
        for (k, s) in self.order.clone().into_iter().enumerate() {
            let k = k as u16;
            let slots: Vec<Slot> = (0..HAND as u16)
                .map(|i| Slot {
                    position: k * HAND as u16 + i,
                    card: None,
                })
                .collect();
            for slot in &slots {
                self.pending
                    .push(ChanceRequest::deal(self.deck, slot.position, s));
            }
            // The face-down card is set before the player but dealt to nobody: nobody sees it
            // unless its player swaps it in, and then everyone does (§5).
            self.hands.insert(
                s,
                Held {
                    slots,
                    face_down: n * HAND as u16 + k,
                    swapped: None,
                    shown: false,
                },
            );
        }
    }

    /// The next player with chips clockwise after `seat`.
    fn next_active(&self, seat: Seat) -> Seat {
        self.active
            .iter()
            .copied()
            .find(|s| *s > seat)
            .unwrap_or(self.active[0])
    }

    pub fn mover(&self) -> Option<Seat> {
        match self.phase {
            Phase::Swap { turn } | Phase::Declare { turn } | Phase::Show { turn } => {
                self.order.get(turn).copied()
            }
            _ => None,
        }
    }

    /// A player's hand as card ids, where this client knows them all.
    pub fn hand_of(&self, seat: Seat) -> Option<Vec<CardId>> {
        self.hands
            .get(&seat)?
            .slots
            .iter()
            .map(|s| s.card)
            .collect()
    }

    fn dealer_value(&self) -> Option<i64> {
        self.declared.get(&self.dealer?).map(|(_, v)| *v)
    }

    fn after_declare(&mut self, turn: usize) {
        if turn + 1 < self.order.len() {
            self.phase = Phase::Swap { turn: turn + 1 };
        } else {
            self.settle();
        }
    }

    /// §6: the highest value takes the pot; a tie for it goes to the dealer.
    fn settle(&mut self) {
        let dealer = self.dealer.expect("a hand has a dealer");
        let best = self.declared.values().map(|(_, v)| *v).max().unwrap_or(0);
        let top: Vec<Seat> = self
            .order
            .iter()
            .copied()
            .filter(|s| self.declared.get(s).is_some_and(|(_, v)| *v == best))
            .collect();
        let (winner, dealer_tie) = if top.len() == 1 {
            (top[0], false)
        } else {
            (dealer, true)
        };
        *self.banks.get_mut(&winner).expect("a player") += self.pot;
        self.log.push(Entry::Won {
            seat: winner,
            pot: self.pot,
            value: self.declared.get(&winner).map_or(0, |(_, v)| *v),
            dealer_tie,
        });
        self.pot = 0;
        self.end_hand();
    }

    /// Players with no chips are out; the deal moves clockwise; the next hand starts.
    fn end_hand(&mut self) {
        self.hand_no += 1;
        let broke: Vec<Seat> = self
            .active
            .iter()
            .copied()
            .filter(|s| self.banks[s] == 0)
            .collect();
        for s in &broke {
            self.log.push(Entry::Out { seat: *s });
        }
        let dealer = self.dealer.expect("a hand has a dealer");
        self.active.retain(|s| !broke.contains(s));
        self.dealt.retain(|s| !broke.contains(s));
        if !self.active.is_empty() {
            self.dealer = Some(self.next_active(dealer));
        }
        self.start_hand();
    }

    fn legal(&self, seat: Seat) -> Vec<Action> {
        if !self.pending.is_empty() || self.mover() != Some(seat) {
            return Vec::new();
        }
        match self.phase {
            Phase::Swap { .. } => {
                let mut v = vec![Action::Keep];
                v.extend((0..HAND as u8).map(|slot| Action::Swap { slot }));
                v
            }
            Phase::Declare { .. } => match self.hand_of(seat) {
                Some(h) => value::declarations(&self.cards(), &h)
                    .into_iter()
                    .map(Action::Declare)
                    .collect(),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }
}

/// What one seat (or a spectator) sees of one player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayerView {
    pub seat: Seat,
    pub bank: u64,
    /// "playing", "out" (no chips left) or "removed".
    pub status: &'static str,
    /// Chips in this hand's pot.
    pub ante: u64,
    /// The three cards, where this viewer may see them.
    pub cards: Vec<Option<Card>>,
    /// Whether it still has its face-down card (it did not swap it in).
    pub face_down: bool,
    pub swapped: Option<u8>,
    pub declared: Option<i64>,
    pub took_back: bool,
}

/// What one seat (or a spectator) sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArtView {
    pub viewer: Option<Seat>,
    pub phase: Phase,
    pub hand_no: u32,
    pub hands: Option<u32>,
    pub dealer: Option<Seat>,
    pub ante: u64,
    pub rotation: u32,
    pub pot: u64,
    pub to_act: Option<Seat>,
    /// This hand's order of play, the dealer first.
    pub order: Vec<Seat>,
    pub players: Vec<PlayerView>,
    /// The dealer draw, face up.
    pub draws: Vec<(Seat, Vec<Card>)>,
    /// The deck's composition (every card once), for counting.
    pub deck: Vec<Card>,
    pub feather: String,
    pub legal: Vec<Action>,
    pub log: Vec<Entry>,
}

impl ArtView {
    pub fn player(&self, seat: Seat) -> Option<&PlayerView> {
        self.players.iter().find(|p| p.seat == seat)
    }
}

impl Game for ArtOfFacts {
    type Action = Action;
    type View = ArtView;
    const NAME: &'static str = "art-of-facts";
    const SHUFFLES_AHEAD: bool = true;

    fn to_act(&self) -> ToAct {
        if !self.pending.is_empty() {
            return ToAct::Chance(self.pending.clone());
        }
        match self.phase {
            Phase::Done => ToAct::Terminal,
            _ => match self.mover() {
                Some(s) => ToAct::Seat(s),
                None => ToAct::Terminal,
            },
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        self.legal(seat)
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        if self.phase == Phase::Done {
            return Err(RuleError::Finished);
        }
        if !self.pending.is_empty() || self.mover() != Some(seat) {
            return Err(RuleError::OutOfTurn {
                seat,
                expected: match self.mover() {
                    Some(m) if self.pending.is_empty() => format!("seat {m} to play"),
                    _ => "the cards".into(),
                },
            });
        }
        match (self.phase, action) {
            (Phase::Swap { turn }, Action::Keep) => {
                let h = &self.hands[&seat];
                for s in &h.slots {
                    self.pending.push(ChanceRequest::Reveal {
                        deck: self.deck,
                        position: s.position,
                    });
                }
                self.log.push(Entry::Kept { seat });
                self.phase = Phase::Show { turn };
            }
            (Phase::Swap { turn }, Action::Swap { slot }) => {
                if usize::from(*slot) >= HAND {
                    return Err(illegal(seat, format!("there is no card {}", slot + 1)));
                }
                let h = self.hands.get_mut(&seat).expect("a hand");
                // The replaced card is set aside face down, never shown.
                h.slots[usize::from(*slot)] = Slot {
                    position: h.face_down,
                    card: None,
                };
                h.swapped = Some(*slot);
                let positions: Vec<u16> = h.slots.iter().map(|s| s.position).collect();
                for position in positions {
                    self.pending.push(ChanceRequest::Reveal {
                        deck: self.deck,
                        position,
                    });
                }
                self.log.push(Entry::Swapped { seat, slot: *slot });
                self.phase = Phase::Show { turn };
            }
            (Phase::Declare { turn }, Action::Declare(d)) => {
                let hand = self.hand_of(seat).expect("a shown hand");
                let v = value::value(&self.cards(), &hand, d).map_err(|e| illegal(seat, e))?;
                self.log.push(Entry::Declared {
                    seat,
                    value: v,
                    how: value::words(&self.cards(), &hand, d),
                });
                self.declared.insert(seat, (d.clone(), v));
                let last = turn + 1 == self.order.len();
                // §6: tying the dealer before the last value is worked out takes the ante back.
                if Some(seat) != self.dealer && !last && self.dealer_value() == Some(v) {
                    let back = self.antes.get(&seat).copied().unwrap_or(0);
                    *self.banks.get_mut(&seat).expect("a player") += back;
                    self.pot -= back;
                    self.antes.insert(seat, 0);
                    self.took_back.insert(seat);
                    self.log.push(Entry::TookBack { seat, chips: back });
                }
                self.after_declare(turn);
            }
            (_, a) => {
                return Err(illegal(
                    seat,
                    match a {
                        Action::Declare(_) => "first keep the cards or swap one",
                        _ => "the cards are chosen: declare the value",
                    },
                ))
            }
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        let spec = self.spec();
        let known = |p: u16| {
            self.hands
                .values()
                .flat_map(|h| &h.slots)
                .find(|s| s.position == p)
                .and_then(|s| s.card)
        };
        check_chance_batch(&self.pending, outcomes, |_, o| {
            crate::engine::check_cards(o, &spec, known)
        })?;
        let pending = std::mem::take(&mut self.pending);
        match self.phase {
            Phase::Draw => {
                let mut k = 0;
                let need: Vec<Seat> = self
                    .active
                    .iter()
                    .copied()
                    .filter(|s| self.feather_of(*s).is_none())
                    .collect();
                for out in outcomes {
                    if let ChanceOutcome::Revealed { card, .. } = out {
                        let s = need[k];
                        k += 1;
                        self.draws.entry(s).or_default().push(*card);
                        self.log.push(Entry::Drew {
                            seat: s,
                            card: self.card(*card),
                        });
                    }
                }
                if self.active.iter().all(|s| self.feather_of(*s).is_some()) {
                    self.pick_dealer();
                } else {
                    self.draw_round();
                }
            }
            Phase::Deal => {
                for (req, out) in pending.iter().zip(outcomes) {
                    if let (
                        ChanceRequest::Deal { to, .. },
                        ChanceOutcome::Dealt { position, card, .. },
                    ) = (req, out)
                    {
                        if let Some(slot) = self
                            .hands
                            .get_mut(&to[0])
                            .and_then(|h| h.slots.iter_mut().find(|s| s.position == *position))
                        {
                            slot.card = *card;
                        }
                    }
                }
                self.phase = Phase::Swap { turn: 0 };
            }
            Phase::Show { turn } => {
                let seat = self.order[turn];
                let h = self.hands.get_mut(&seat).expect("a hand");
                for out in outcomes {
                    if let ChanceOutcome::Revealed { position, card, .. } = out {
                        if let Some(slot) = h.slots.iter_mut().find(|s| s.position == *position) {
                            slot.card = Some(*card);
                        }
                    }
                }
                h.shown = true;
                let ids: Vec<CardId> = h.slots.iter().filter_map(|s| s.card).collect();
                let cards: Vec<Card> = ids.into_iter().map(|c| self.card(c)).collect();
                self.log.push(Entry::Shown { seat, cards });
                self.phase = Phase::Declare { turn };
            }
            _ => {
                self.pending = pending;
                return Err(RuleError::BadChance("no cards were asked for".into()));
            }
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> ArtView {
        let all: Vec<Seat> = (0..self.setup.players).collect();
        ArtView {
            viewer,
            phase: self.phase,
            hand_no: self.hand_no,
            hands: self.setup.hands,
            dealer: self.dealer,
            ante: self.ante,
            rotation: self.rotation,
            pot: self.pot,
            to_act: if self.pending.is_empty() {
                self.mover()
            } else {
                None
            },
            order: self.order.clone(),
            players: all
                .iter()
                .map(|s| {
                    let h = self.hands.get(s);
                    PlayerView {
                        seat: *s,
                        bank: self.banks[s],
                        status: if self.removed.contains(s) {
                            "removed"
                        } else if self.active.contains(s) {
                            "playing"
                        } else {
                            "out"
                        },
                        ante: self.antes.get(s).copied().unwrap_or(0),
                        cards: h
                            .map(|h| {
                                h.slots
                                    .iter()
                                    .map(|x| {
                                        let visible = h.shown || viewer == Some(*s);
                                        x.card.filter(|_| visible).map(|c| self.card(c))
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                        face_down: h.is_some_and(|h| h.swapped.is_none()),
                        swapped: h.and_then(|h| h.swapped),
                        declared: self.declared.get(s).map(|(_, v)| *v),
                        took_back: self.took_back.contains(s),
                    }
                })
                .collect(),
            draws: self
                .draws
                .iter()
                .map(|(s, v)| (*s, v.iter().map(|c| self.card(*c)).collect()))
                .collect(),
            deck: self.cards.clone(),
            feather: self.setup.deck.feather.clone(),
            legal: viewer.map(|v| self.legal(v)).unwrap_or_default(),
            log: self.log.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        if self.mover() != Some(seat) || !self.pending.is_empty() {
            return None;
        }
        match self.phase {
            Phase::Swap { .. } => Some(Action::Keep),
            // The hand is shown by now: its best value is public.
            Phase::Declare { .. } => self
                .hand_of(seat)
                .map(|h| Action::Declare(value::best(&self.cards(), &h).1)),
            _ => None,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Done {
            return None;
        }
        let stash = self.setup.stash() as i64;
        let best = self.active.iter().map(|s| self.banks[s]).max().unwrap_or(0);
        Some(Outcome {
            payoffs: self
                .banks
                .iter()
                .map(|(s, b)| (*s, *b as i64 - stash))
                .collect(),
            winners: self
                .active
                .iter()
                .copied()
                .filter(|s| self.banks[s] == best)
                .collect(),
        })
    }

    fn check_invariants(&self) -> Result<(), String> {
        let total: u64 = self.banks.values().sum::<u64>() + self.pot;
        let want = self.setup.stash() * u64::from(self.setup.players);
        if total != want {
            return Err(format!("chips not conserved: {total}, expected {want}"));
        }
        let in_pot: u64 = self.antes.values().sum();
        if in_pot != self.pot {
            return Err(format!(
                "the pot holds {} but {in_pot} was put in",
                self.pot
            ));
        }
        let mut positions: Vec<u16> = self
            .hands
            .values()
            .flat_map(|h| h.slots.iter().map(|s| s.position))
            .collect();
        let n = positions.len();
        positions.sort_unstable();
        positions.dedup();
        if positions.len() != n {
            return Err("two players hold one card".into());
        }
        Ok(())
    }

    fn seats(&self) -> Vec<Seat> {
        (0..self.setup.players)
            .filter(|s| !self.removed.contains(s))
            .collect()
    }

    fn participants(&self) -> Vec<Seat> {
        if self.phase == Phase::Done {
            Vec::new()
        } else {
            self.active.clone()
        }
    }

    fn forfeit(&mut self, offenders: &[Seat], _reason: ForfeitReason) -> Result<(), RuleError> {
        check_forfeit(self.phase == Phase::Done, &self.seats(), offenders)?;
        let leaving: Vec<Seat> = offenders
            .iter()
            .copied()
            .filter(|s| self.active.contains(s))
            .collect();
        self.removed.extend(offenders.iter().copied());
        self.removed.sort_unstable();
        self.removed.dedup();
        if leaving.is_empty() {
            // Out of chips already: nothing at stake.
            return Ok(());
        }
        let stays: Vec<Seat> = self
            .active
            .iter()
            .copied()
            .filter(|s| !leaving.contains(s))
            .collect();
        let in_hand = !matches!(self.phase, Phase::Draw);
        self.pending.clear();
        if in_hand && !self.order.is_empty() {
            // §8: the hand stops. Everyone else takes its ante back; what the leavers put in is
            // shared among them, odd chips one at a time clockwise from the dealer.
            let shared: u64 = leaving
                .iter()
                .map(|s| self.antes.get(s).copied().unwrap_or(0))
                .sum();
            for s in &stays {
                let back = self.antes.get(s).copied().unwrap_or(0);
                *self.banks.get_mut(s).expect("a player") += back;
            }
            let order: Vec<Seat> = self
                .order
                .iter()
                .copied()
                .filter(|s| stays.contains(s))
                .collect();
            if !order.is_empty() {
                let n = order.len() as u64;
                for (k, s) in order.iter().enumerate() {
                    let part = shared / n + u64::from((k as u64) < shared % n);
                    *self.banks.get_mut(s).expect("a player") += part;
                }
            } else if let Some(first) = leaving.first() {
                // Nobody else was dealt in: the chips go back to the first leaver's bank.
                *self.banks.get_mut(first).expect("a player") += shared;
            }
            for s in &leaving {
                self.log.push(Entry::Forfeited {
                    seat: *s,
                    shared: self.antes.get(s).copied().unwrap_or(0),
                });
            }
            self.pot = 0;
            self.antes.clear();
            self.active = stays;
            self.dealt.retain(|s| !leaving.contains(s));
            // The hand counts as played; the deal moves on.
            self.hand_no += 1;
            let dealer = self.dealer.unwrap_or(0);
            if !self.active.is_empty() {
                self.dealer = Some(self.next_active(dealer));
            }
            self.start_hand();
        } else {
            for s in &leaving {
                self.log.push(Entry::Forfeited {
                    seat: *s,
                    shared: 0,
                });
            }
            self.active = stays;
            if self.active.len() < 2 {
                self.phase = Phase::Done;
            } else {
                // The draw deck is dead without the leaver's key share: draw again.
                self.start_draw();
            }
        }
        Ok(())
    }
}
