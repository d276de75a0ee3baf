//! Tolerance: Reformation — the rules engine: Roles, the deal of each reign, tricks with
//! follow-suit and declared Wild cards, End of Trick effects with the winner's choices, the
//! Royal Execution, End of Round taxes, piety, loans and scoring, and the end of the game.
//! Rules: `protocol/rules/reformation.md` (cited as §). Pure: no I/O, clock or randomness.

use super::data::{Data, Faith, Role, RoleMode, Suit, HAND, REIGNS};
use super::effects::{self, Acted, ChoiceKind, Did, Gains, TrickCard};
use super::scoring::{self, pile, pile_faith, EndScore, Placed, ReignScore, Tableau};
use crate::cards::{CardId, DeckSpec};
use crate::engine::{
    illegal, ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat,
    ToAct,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The deck of Roles dealt at random (§ Roles).
const ROLE_DECK: DeckId = 0;

/// A player's own copy of the Roles, for a secret choice (§ Hidden Agendas).
fn agenda_deck(k: usize) -> DeckId {
    1 + k as DeckId
}

/// Reign `round`'s Suit cards.
fn suit_deck(round: u8) -> DeckId {
    10 + 2 * DeckId::from(round)
}

/// Reign `round`'s slot deck: which hand slot holds the Monarch (§ The deal).
fn slot_deck(round: u8) -> DeckId {
    11 + 2 * DeckId::from(round)
}

/// The Monarch's card in a slot deck; every other card there is "a Suit card".
const MONARCH_SLOT: CardId = CardId(0);

/// A move. Cards in a hand are named by their slot (deck position), so that a client that does
/// not know the card can still check it is the mover's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Choose a Role in the open (its index among the Roles).
    Role { role: u8 },
    /// Choose a Role in secret: a position of one's own copy of the Roles (§ Hidden Agendas).
    Agenda { position: u16 },
    /// The chooser names the player who leads the reign's first trick.
    Start { seat: Seat },
    /// Play the card in this slot; a Wild card names the suit it is declared as.
    Play {
        position: u16,
        declare: Option<Suit>,
    },
    /// The trick's winner picks the card (its index in the trick) for a pending effect.
    Choose { index: u8 },
    /// A surviving Monarch's owner executes the card played from this slot.
    Execute { position: u16 },
    /// Repay this many Loans (5 money each).
    Repay { count: u8 },
    /// The timeout move of a player who must play: the hand is shown to everyone and its
    /// lowest legal card is played (§ Timeouts).
    Auto,
}

/// The table's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub players: u8,
    /// Reigns to play: 3 (Mary I, Elizabeth I, James I) or fewer for a short game.
    #[serde(default = "three")]
    pub rounds: u8,
    /// One or both Plague cards.
    #[serde(default = "one")]
    pub plague_cards: u8,
    #[serde(default)]
    pub roles: RoleMode,
    /// Roles stay secret until the end of the game.
    #[serde(default)]
    pub hidden_agendas: bool,
    /// The variant's name, for people.
    #[serde(default = "standard")]
    pub variant: String,
    /// A variant's cards, rules and Roles; absent: the built-in set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Box<Data>>,
}

fn three() -> u8 {
    3
}
fn one() -> u8 {
    1
}
fn standard() -> String {
    "standard".into()
}

impl Setup {
    pub fn new(players: u8) -> Setup {
        Setup {
            players,
            rounds: 3,
            plague_cards: 1,
            roles: RoleMode::Bertram,
            hidden_agendas: false,
            variant: standard(),
            data: None,
        }
    }

    pub fn data(&self) -> &Data {
        self.data.as_deref().unwrap_or_else(|| Data::builtin())
    }

    pub fn validate(&self) -> Result<(), RuleError> {
        let bad = |s: String| Err(RuleError::Setup(s));
        if !(3..=5).contains(&self.players) {
            return bad(format!(
                "Tolerance: Reformation seats 3 to 5 players, not {}",
                self.players
            ));
        }
        if !(1..=REIGNS as u8).contains(&self.rounds) {
            return bad(format!(
                "a game has 1 to 3 reigns (rounds), not {}",
                self.rounds
            ));
        }
        if self.variant.trim().is_empty() || self.variant.chars().count() > 64 {
            return bad("a variant's name is 1 to 64 characters".into());
        }
        let data = self.data();
        data.validate().map_err(RuleError::Setup)?;
        let plagues = data.cards.iter().filter(|c| c.plague).count();
        if !(1..=2).contains(&self.plague_cards) || usize::from(self.plague_cards) > plagues {
            return bad(format!(
                "the table plays with 1 or 2 Plague cards, as many as the card set has \
                 ({plagues}), not {}",
                self.plague_cards
            ));
        }
        let need = HAND * usize::from(self.players);
        let have = data.suit_cards(self.plague_cards).len();
        if have < need {
            return bad(format!(
                "{} players need {need} Suit cards to deal from; the card set has {have}",
                self.players
            ));
        }
        let roles = data.roles.len();
        match self.roles {
            RoleMode::Bertram if self.hidden_agendas => {
                return bad(
                    "Hidden Agendas keep Roles secret: choose or deal Roles (roles = \
                     \"chosen\" or \"dealt\")"
                        .into(),
                )
            }
            RoleMode::Chosen | RoleMode::Dealt if roles < usize::from(self.players).max(2) => {
                return bad(format!(
                    "{} players need at least {} Roles; the set has {roles}",
                    self.players,
                    self.players.max(2)
                ))
            }
            _ => {}
        }
        Ok(())
    }
}

/// Where the game is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The players' copies of the Roles are being dealt (secret choice).
    Setup,
    /// Players choose Roles in the open, in seat order.
    Roles,
    /// Players choose Roles in secret, all at once.
    Agendas,
    /// A reign's cards (and, in the first, the lot) are being dealt.
    Deal,
    /// The chooser names who leads first.
    Start,
    /// A player must play to the trick.
    Play,
    /// The card played is being shown.
    Reveal,
    /// The trick's winner chooses for an effect.
    Effects,
    /// A surviving Monarch's owner chooses the card to execute.
    Execute,
    /// Players with Loans decide whether to repay.
    Repay,
    /// The secret Roles are being shown.
    Final,
    Done,
}

/// A hand slot: the Suit card and the slot card dealt at its position; the slot card says
/// whether it holds the Monarch instead (§ The deal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    pub position: u16,
    pub suit_card: Option<CardId>,
    pub slot_card: Option<CardId>,
    pub played: bool,
    /// Both cards were shown to everyone.
    pub shown: bool,
}

impl Slot {
    /// The card this slot holds, where this client knows it.
    pub fn card(&self, monarch: CardId) -> Option<CardId> {
        match self.slot_card? {
            MONARCH_SLOT => Some(monarch),
            _ => self.suit_card,
        }
    }
}

/// A player's tallies and board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub money: i32,
    pub catholic: i32,
    pub protestant: i32,
    /// The highest each tally (money, Catholic, Protestant) has reached: its pennants.
    pub best: [i32; 3],
    pub loans: u8,
    /// The reign a Loan was last taken in (one per reign).
    pub loan_round: u8,
    /// Victory Points so far (with Hidden Agendas, counted only at the end).
    pub vp: i64,
    pub tableau: Tableau,
}

/// An effect's choice waiting for the trick's winner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// The acting card's index in the trick.
    pub actor: usize,
    pub kind: ChoiceKind,
    /// Trick indices to choose from.
    pub options: Vec<usize>,
}

/// End of Trick effects in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolution {
    pub winner: Seat,
    pub order: Vec<usize>,
    pub next: usize,
    pub gains: Gains,
    pub choice: Option<Choice>,
}

/// A card played and waiting to be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub seat: Seat,
    /// `None` for a timeout's automatic play, chosen once the hand is shown.
    pub position: Option<u16>,
    pub declare: Option<Suit>,
}

/// A reign's tableaux as scored, with what each player got from the reign's end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRecord {
    pub round: u8,
    pub tableaux: BTreeMap<Seat, Tableau>,
    /// VP of each section, once Roles are known.
    pub scores: BTreeMap<Seat, ReignScore>,
}

/// Which tally a pennant is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tally {
    Money,
    Catholic,
    Protestant,
}

/// The public record, for views and the story.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "what")]
pub enum Entry {
    RoleChosen {
        seat: Seat,
        role: Role,
    },
    /// Everyone has chosen a Role in secret.
    AgendasChosen,
    /// Roles shown: dealt in the open, or the secret ones at the end.
    RolesShown {
        roles: Vec<(Seat, Role)>,
    },
    /// Hidden Agendas dealt: each player sees only its own.
    RolesDealt,
    Reign {
        round: u8,
        monarch: CardId,
    },
    /// By lot, or as the player with the fewest VP (or tallies), `chooser` chooses.
    Chooser {
        seat: Seat,
        by_lot: bool,
    },
    Starts {
        chooser: Seat,
        seat: Seat,
    },
    Played {
        seat: Seat,
        card: CardId,
        declared: Option<Suit>,
        leads: bool,
        auto: bool,
    },
    WonTrick {
        seat: Seat,
        card: CardId,
        trick: u8,
    },
    /// Card `card` acted for the trick's winner `seat`.
    Acted {
        seat: Seat,
        card: CardId,
        did: Did,
    },
    /// Killed before its turn: its effect never happens.
    Silenced {
        card: CardId,
    },
    Loan {
        seat: Seat,
        money: i32,
    },
    /// Below zero again in a reign with a Loan taken: held at zero.
    HeldAtZero {
        seat: Seat,
    },
    Pennant {
        seat: Seat,
        tally: Tally,
        count: i32,
    },
    Executed {
        seat: Seat,
        monarch: CardId,
        victim: CardId,
        owner: Seat,
    },
    /// The Monarch died in its reign, or had nothing to execute.
    NoExecution {
        monarch: CardId,
        dead: bool,
    },
    RoundTaxes {
        seat: Seat,
        money: i32,
    },
    RoundPiety {
        seat: Seat,
        catholic: i32,
        protestant: i32,
    },
    Repaid {
        seat: Seat,
        count: u8,
        money: i32,
    },
    Scored {
        seat: Seat,
        round: u8,
        score: ReignScore,
    },
    FinalScore {
        seat: Seat,
        score: EndScore,
    },
    GameOver {
        winners: Vec<Seat>,
        /// The VP tie was broken by combined piety.
        tie_broken: bool,
    },
    Misplayed {
        seat: Seat,
        card: CardId,
        why: String,
    },
    Forfeited {
        seat: Seat,
        reason: ForfeitReason,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reformation {
    pub setup: Setup,
    pub removed: Vec<Seat>,
    pub phase: Phase,
    /// The reign, 1..=3 (0 before the first).
    pub round: u8,
    pub players: BTreeMap<Seat, Player>,
    /// Each player's Role where this client knows it.
    pub roles: BTreeMap<Seat, Option<Role>>,
    /// Each player's own copy of the Roles (secret choice), by position, where known.
    pub agenda_cards: BTreeMap<Seat, Vec<Option<CardId>>>,
    /// The positions chosen in secret, once all are in.
    pub agendas: BTreeMap<Seat, u16>,
    /// Secret choices not yet all in: out of every view.
    sealed: BTreeMap<Seat, u16>,
    pub hands: BTreeMap<Seat, Vec<Slot>>,
    pub trick: Vec<TrickCard>,
    pub tricks: u8,
    pub turn: Seat,
    pub chooser: Option<Seat>,
    pub starter: Option<Seat>,
    pub played: Option<Pending>,
    pub resolution: Option<Resolution>,
    /// Suits a player showed it had none of, this reign (a later card of one is a revoke).
    pub voids: BTreeMap<Seat, BTreeSet<Suit>>,
    pub repay: Vec<Seat>,
    /// Every pile is shown: the reign is being scored.
    pub shown: bool,
    pub records: Vec<RoundRecord>,
    pending: Vec<ChanceRequest>,
    pub winners: Vec<Seat>,
    pub log: Vec<Entry>,
}

impl Reformation {
    pub fn new(setup: &Setup) -> Result<Reformation, RuleError> {
        setup.validate()?;
        let seats: Vec<Seat> = (0..setup.players).collect();
        let start = setup.data().rules.start_money;
        let bertram = setup.roles == RoleMode::Bertram;
        let mut g = Reformation {
            setup: setup.clone(),
            removed: Vec::new(),
            phase: Phase::Deal,
            round: 0,
            players: seats
                .iter()
                .map(|s| {
                    (
                        *s,
                        Player {
                            money: start,
                            catholic: 0,
                            protestant: 0,
                            best: [start, 0, 0],
                            loans: 0,
                            loan_round: 0,
                            vp: 0,
                            tableau: Tableau::default(),
                        },
                    )
                })
                .collect(),
            roles: seats
                .iter()
                .map(|s| (*s, bertram.then_some(Role::Bertram)))
                .collect(),
            agenda_cards: BTreeMap::new(),
            agendas: BTreeMap::new(),
            sealed: BTreeMap::new(),
            hands: BTreeMap::new(),
            trick: Vec::new(),
            tricks: 0,
            turn: 0,
            chooser: None,
            starter: None,
            played: None,
            resolution: None,
            voids: BTreeMap::new(),
            repay: Vec::new(),
            shown: false,
            records: Vec::new(),
            pending: Vec::new(),
            winners: Vec::new(),
            log: Vec::new(),
        };
        match (setup.roles, setup.hidden_agendas) {
            (RoleMode::Chosen, true) => {
                g.phase = Phase::Setup;
                let spec = g.role_spec();
                for k in 0..seats.len() {
                    g.pending.push(ChanceRequest::Shuffle {
                        deck: agenda_deck(k),
                        spec: spec.clone(),
                    });
                }
                for (k, s) in seats.iter().enumerate() {
                    for p in 0..spec.len() as u16 {
                        g.pending.push(ChanceRequest::deal(agenda_deck(k), p, *s));
                    }
                    g.agenda_cards.insert(*s, vec![None; spec.len()]);
                }
            }
            (RoleMode::Chosen, false) => g.phase = Phase::Roles,
            _ => g.start_round(),
        }
        Ok(g)
    }

    pub fn data(&self) -> &Data {
        self.setup.data()
    }

    /// Every seat at the table, removed ones included.
    pub fn table(&self) -> Vec<Seat> {
        (0..self.setup.players).collect()
    }

    fn index(&self, seat: Seat) -> usize {
        usize::from(seat)
    }

    /// The seat after `s`, clockwise.
    fn next_seat(&self, s: Seat) -> Seat {
        (s + 1) % self.setup.players
    }

    /// The Monarch of the current reign.
    pub fn monarch(&self) -> CardId {
        CardId(self.data().monarch(self.round.max(1)) as u16)
    }

    fn role_spec(&self) -> DeckSpec {
        DeckSpec::Custom {
            names: self.data().roles.iter().map(|r| r.name.clone()).collect(),
        }
    }

    /// Every card of the set, by its label (the deck the Suit decks are drawn from).
    pub fn base_spec(&self) -> DeckSpec {
        let d = self.data();
        DeckSpec::Custom {
            names: (0..d.cards.len()).map(|i| d.label(i)).collect(),
        }
    }

    fn suit_spec(&self) -> DeckSpec {
        DeckSpec::Subset {
            base: Box::new(self.base_spec()),
            cards: self
                .data()
                .suit_cards(self.setup.plague_cards)
                .into_iter()
                .map(|i| CardId(i as u16))
                .collect(),
        }
    }

    fn slot_spec(&self) -> DeckSpec {
        let n = HAND * usize::from(self.setup.players);
        let mut names = vec![self.data().label(self.monarch().0.into())];
        names.extend(std::iter::repeat_n("a Suit card".to_string(), n - 1));
        DeckSpec::Custom { names }
    }

    fn spec_of(&self, deck: DeckId) -> DeckSpec {
        if deck == ROLE_DECK || deck < 10 {
            self.role_spec()
        } else if deck.is_multiple_of(2) {
            self.suit_spec()
        } else {
            self.slot_spec()
        }
    }

    /// § The deal: a new reign's Suit deck and slot deck, twelve slots to each player (seat k
    /// holds positions 12k..12k+11 of both), the lot for the first chooser in the first reign,
    /// and dealt Roles with the first deal.
    fn start_round(&mut self) {
        self.round += 1;
        self.phase = Phase::Deal;
        self.trick.clear();
        self.tricks = 0;
        self.voids.clear();
        self.shown = false;
        self.resolution = None;
        self.played = None;
        for p in self.players.values_mut() {
            p.tableau = Tableau::default();
        }
        self.log.push(Entry::Reign {
            round: self.round,
            monarch: self.monarch(),
        });
        let (s, b) = (suit_deck(self.round), slot_deck(self.round));
        self.pending.push(ChanceRequest::Shuffle {
            deck: s,
            spec: self.suit_spec(),
        });
        self.pending.push(ChanceRequest::Shuffle {
            deck: b,
            spec: self.slot_spec(),
        });
        if self.round == 1 && self.setup.roles == RoleMode::Dealt {
            self.pending.push(ChanceRequest::Shuffle {
                deck: ROLE_DECK,
                spec: self.role_spec(),
            });
        }
        self.hands.clear();
        for seat in self.table() {
            let k = self.index(seat) as u16;
            let mut hand = Vec::new();
            for j in 0..HAND as u16 {
                let position = k * HAND as u16 + j;
                self.pending.push(ChanceRequest::deal(s, position, seat));
                self.pending.push(ChanceRequest::deal(b, position, seat));
                hand.push(Slot {
                    position,
                    suit_card: None,
                    slot_card: None,
                    played: false,
                    shown: false,
                });
            }
            self.hands.insert(seat, hand);
        }
        if self.round == 1 {
            if self.setup.roles == RoleMode::Dealt {
                for seat in self.table() {
                    let position = self.index(seat) as u16;
                    self.pending.push(if self.setup.hidden_agendas {
                        ChanceRequest::deal(ROLE_DECK, position, seat)
                    } else {
                        ChanceRequest::Reveal {
                            deck: ROLE_DECK,
                            position,
                        }
                    });
                }
            }
            self.pending.push(ChanceRequest::RollPublic {
                sides: self.setup.players,
                count: 1,
                by: None,
            });
        } else {
            let chooser = self.fewest();
            self.chooser = Some(chooser);
            self.log.push(Entry::Chooser {
                seat: chooser,
                by_lot: false,
            });
        }
    }

    /// Whether every player's VP is public now (not with Hidden Agendas before the end).
    pub fn vp_public(&self) -> bool {
        !self.setup.hidden_agendas || self.phase == Phase::Done
    }

    /// § The deal: the player with the fewest VP chooses (with Hidden Agendas, the fewest money
    /// and piety together); a tie goes to the first of them clockwise after the last starter.
    fn fewest(&self) -> Seat {
        let key = |s: Seat| {
            let p = &self.players[&s];
            if self.vp_public() {
                p.vp
            } else {
                i64::from(p.money + p.catholic + p.protestant)
            }
        };
        let prev = self.starter.unwrap_or(0);
        let mut order = Vec::new();
        let mut s = prev;
        for _ in 0..self.setup.players {
            s = self.next_seat(s);
            order.push(s);
        }
        let low = order.iter().map(|s| key(*s)).min().unwrap_or(0);
        *order.iter().find(|s| key(**s) == low).expect("a seat")
    }

    /// The cards of `seat`'s hand not yet played, with the cards this client knows.
    pub fn held(&self, seat: Seat) -> Vec<(u16, Option<CardId>)> {
        let m = self.monarch();
        self.hands
            .get(&seat)
            .map(|h| {
                h.iter()
                    .filter(|s| !s.played)
                    .map(|s| (s.position, s.card(m)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The suit led in the current trick.
    pub fn led(&self) -> Option<Suit> {
        self.trick
            .first()
            .filter(|c| c.card.is_some())
            .map(|c| effects::effective_suit(self.data(), c))
    }

    fn card_suit(&self, c: CardId) -> Suit {
        self.data().cards[usize::from(c.0)].suit
    }

    fn card_rank(&self, c: CardId) -> u8 {
        self.data().cards[usize::from(c.0)].rank
    }

    /// Legal plays from a fully known hand (§ The trick): anything when leading; otherwise the
    /// suit led if held, or any card; a Wild card always, declared as any suit.
    fn plays(&self, hand: &[(u16, CardId)]) -> Vec<Action> {
        let led = self.led();
        let has_led = led.is_some_and(|l| hand.iter().any(|(_, c)| self.card_suit(*c) == l));
        let mut v = Vec::new();
        for &(position, c) in hand {
            let suit = self.card_suit(c);
            if suit == Suit::Wild {
                for d in Suit::DECLARABLE {
                    v.push(Action::Play {
                        position,
                        declare: Some(d),
                    });
                }
            } else if !has_led || Some(suit) == led {
                v.push(Action::Play {
                    position,
                    declare: None,
                });
            }
        }
        v.sort_unstable();
        v
    }

    /// The card a timeout plays from a shown hand: the lowest card of the suit led, else the
    /// lowest other non-Wild card, else the lowest Wild card declared as the suit led (Nobles
    /// when leading). Lowest: by rank, then suit order, then slot.
    fn auto_card(&self, seat: Seat) -> (u16, Option<Suit>) {
        let held: Vec<(u16, CardId)> = self
            .held(seat)
            .into_iter()
            .map(|(p, c)| (p, c.expect("an automatic play comes from a shown hand")))
            .collect();
        let key = |&(p, c): &(u16, CardId)| (self.card_rank(c), self.card_suit(c), p);
        let led = self.led();
        let pick = |f: &dyn Fn(Suit) -> bool| {
            held.iter()
                .filter(|x| f(self.card_suit(x.1)))
                .min_by_key(|x| key(x))
                .copied()
        };
        if let Some((p, _)) = led.and_then(|l| pick(&|s| s == l)) {
            return (p, None);
        }
        if let Some((p, _)) = pick(&|s| s != Suit::Wild) {
            return (p, None);
        }
        let (p, _) = pick(&|_| true).expect("a player asked to play holds a card");
        (p, Some(led.unwrap_or(Suit::Nobles)))
    }

    fn slot(&self, seat: Seat, position: u16) -> Option<&Slot> {
        self.hands
            .get(&seat)?
            .iter()
            .find(|s| s.position == position && !s.played)
    }

    /// The reveals a slot needs before its card is known to all.
    fn reveal(&mut self, position: u16) {
        self.pending.push(ChanceRequest::Reveal {
            deck: suit_deck(self.round),
            position,
        });
        self.pending.push(ChanceRequest::Reveal {
            deck: slot_deck(self.round),
            position,
        });
    }

    /// A card this client knows at `position` of `deck`.
    fn known(&self, deck: DeckId, position: u16) -> Option<CardId> {
        if deck < 10 {
            let k = (deck as usize).checked_sub(1);
            return match k {
                None => self.roles.get(&(position as Seat)).and_then(|r| match r {
                    Some(Role::Card(i)) => Some(CardId(u16::from(*i))),
                    _ => None,
                }),
                Some(k) => self
                    .agenda_cards
                    .get(&(k as Seat))
                    .and_then(|v| v.get(usize::from(position)).copied().flatten()),
            };
        }
        let slot = self
            .hands
            .values()
            .flatten()
            .find(|s| s.position == position)?;
        if deck == suit_deck(self.round) {
            slot.suit_card
        } else {
            slot.slot_card
        }
    }

    /// A card shown that its player's own client would have refused: the table removes the
    /// player and the game ends (§ Misplays).
    fn misplayed(&mut self, seat: Seat, card: CardId, why: String) {
        self.log.push(Entry::Misplayed { seat, card, why });
        self.removed.push(seat);
        self.end_without_winner();
    }

    fn end_without_winner(&mut self) {
        self.pending.clear();
        self.sealed.clear();
        self.played = None;
        self.resolution = None;
        self.winners.clear();
        self.phase = Phase::Done;
    }

    /// The card played (now shown) joins the trick, checked against what its player showed
    /// before (§ Misplays), then the next player plays or the trick is resolved.
    fn place(&mut self, seat: Seat, position: u16, declare: Option<Suit>, auto: bool) {
        let m = self.monarch();
        let card = self
            .slot(seat, position)
            .and_then(|s| s.card(m))
            .expect("shown");
        let suit = self.card_suit(card);
        let leads = self.trick.is_empty();
        if declare.is_some() != (suit == Suit::Wild) {
            let why = if suit == Suit::Wild {
                "a Wild card is played with the suit it is declared as".to_string()
            } else {
                "only a Wild card is declared as a suit".to_string()
            };
            return self.misplayed(seat, card, why);
        }
        if suit != Suit::Wild && self.voids.get(&seat).is_some_and(|v| v.contains(&suit)) {
            return self.misplayed(
                seat,
                card,
                format!(
                    "it held this {} card when it did not follow {} earlier this reign",
                    suit.word(),
                    suit.word()
                ),
            );
        }
        if let Some(l) = self.led() {
            if suit != Suit::Wild && suit != l {
                self.voids.entry(seat).or_default().insert(l);
            }
        }
        if let Some(s) = self
            .hands
            .get_mut(&seat)
            .and_then(|h| h.iter_mut().find(|s| s.position == position))
        {
            s.played = true;
        }
        let faith = self.data().cards[usize::from(card.0)]
            .religion
            .in_round(self.round);
        self.trick.push(TrickCard {
            seat,
            position,
            card: Some(card),
            declared: declare,
            alive: true,
            faith,
            converted: false,
        });
        self.log.push(Entry::Played {
            seat,
            card,
            declared: declare,
            leads,
            auto,
        });
        if self.trick.len() == usize::from(self.setup.players) {
            self.resolve_trick();
        } else {
            self.turn = self.next_seat(seat);
            self.phase = Phase::Play;
        }
    }

    /// § The trick, § End of Trick effects: the winner, then every card in order.
    fn resolve_trick(&mut self) {
        let data = self.setup.data();
        let w = effects::winner(data, &self.trick);
        let order = effects::order(data, &self.trick);
        let winner = self.trick[w].seat;
        self.log.push(Entry::WonTrick {
            seat: winner,
            card: self.trick[w].card.expect("shown"),
            trick: self.tricks + 1,
        });
        self.resolution = Some(Resolution {
            winner,
            order,
            next: 0,
            gains: Gains::default(),
            choice: None,
        });
        self.run_effects();
    }

    fn run_effects(&mut self) {
        let data = self.setup.data();
        loop {
            let res = self.resolution.as_mut().expect("resolving");
            let Some(&i) = res.order.get(res.next) else {
                break;
            };
            let winner = res.winner;
            let card = self.trick[i].card.expect("shown");
            let has_effect = data.cards[usize::from(card.0)].effect.is_some();
            if !self.trick[i].alive {
                if has_effect {
                    self.log.push(Entry::Silenced { card });
                }
                res.next += 1;
                continue;
            }
            match effects::act(data, self.round, &mut self.trick, i, &mut res.gains) {
                Acted::Done(dids) => {
                    res.next += 1;
                    for did in dids {
                        self.log.push(Entry::Acted {
                            seat: winner,
                            card,
                            did,
                        });
                    }
                }
                Acted::Choose { kind, options } => {
                    res.choice = Some(Choice {
                        actor: i,
                        kind,
                        options,
                    });
                    self.phase = Phase::Effects;
                    self.turn = winner;
                    return;
                }
            }
        }
        self.finish_trick();
    }

    /// A money change at the end of a scoring section, with § Loans.
    fn money_section(&mut self, seat: Seat, delta: i32) {
        let (loan_money, max) = (self.data().rules.loan_money, self.data().rules.tally_max);
        let round = self.round;
        let p = self.players.get_mut(&seat).expect("a player");
        p.money += delta;
        if p.money < 0 {
            if p.loan_round != round {
                p.loans += 1;
                p.loan_round = round;
                p.money = loan_money;
                self.log.push(Entry::Loan {
                    seat,
                    money: loan_money,
                });
            } else {
                p.money = 0;
                self.log.push(Entry::HeldAtZero { seat });
            }
        }
        let p = self.players.get_mut(&seat).expect("a player");
        p.money = p.money.min(max);
        self.pennants(seat);
    }

    fn piety_section(&mut self, seat: Seat, catholic: i32, protestant: i32) {
        let max = self.data().rules.tally_max;
        let p = self.players.get_mut(&seat).expect("a player");
        p.catholic = (p.catholic + catholic).clamp(0, max);
        p.protestant = (p.protestant + protestant).clamp(0, max);
        self.pennants(seat);
    }

    /// § Pennants: kept once reached.
    fn pennants(&mut self, seat: Seat) {
        let p = self.players[&seat].clone();
        let now = [p.money, p.catholic, p.protestant];
        let tallies = [Tally::Money, Tally::Catholic, Tally::Protestant];
        for i in 0..3 {
            let before = scoring::pennants(self.data(), p.best[i]);
            let after = scoring::pennants(self.data(), now[i]);
            if after > before {
                self.log.push(Entry::Pennant {
                    seat,
                    tally: tallies[i],
                    count: after,
                });
            }
        }
        let q = self.players.get_mut(&seat).expect("a player");
        for (best, now) in q.best.iter_mut().zip(now) {
            *best = (*best).max(now);
        }
    }

    /// The trick's scoring ends: the winner's gains, then the cards go to its board in the
    /// order they acted (the last to act on top).
    fn finish_trick(&mut self) {
        let res = self.resolution.take().expect("resolving");
        let w = res.winner;
        if res.gains.money != 0 {
            self.money_section(w, res.gains.money);
        }
        if res.gains.catholic != 0 || res.gains.protestant != 0 {
            self.piety_section(w, res.gains.catholic, res.gains.protestant);
        }
        let trick = std::mem::take(&mut self.trick);
        let t = &mut self.players.get_mut(&w).expect("a player").tableau;
        for i in res.order {
            let c = &trick[i];
            let placed = Placed {
                card: c.card.expect("shown"),
                position: c.position,
            };
            if c.alive {
                t.living[pile(c.faith)].push(placed);
            } else {
                t.dead[pile(c.faith)].push(placed);
            }
        }
        self.tricks += 1;
        if usize::from(self.tricks) == HAND {
            self.end_of_round();
        } else {
            self.turn = w;
            self.phase = Phase::Play;
        }
    }

    /// Where the round's Monarch lies, if alive: its owner.
    fn living_monarch(&self) -> Option<Seat> {
        let m = self.monarch();
        self.players
            .iter()
            .find(|(_, p)| p.tableau.living.iter().flatten().any(|c| c.card == m))
            .map(|(s, _)| *s)
    }

    /// § Royal Execution: the cards a surviving Monarch's owner may execute: any living card on
    /// its own board but the Monarch, and the top living card of each pile of every other board
    /// (the only cards of another board a player can see).
    pub fn execution_targets(&self, owner: Seat) -> Vec<u16> {
        let m = self.monarch();
        let mut v = Vec::new();
        for (s, p) in &self.players {
            if *s == owner {
                v.extend(
                    p.tableau
                        .living
                        .iter()
                        .flatten()
                        .filter(|c| c.card != m)
                        .map(|c| c.position),
                );
            } else {
                v.extend(
                    p.tableau
                        .living
                        .iter()
                        .filter_map(|l| l.last())
                        .map(|c| c.position),
                );
            }
        }
        v.sort_unstable();
        v
    }

    fn end_of_round(&mut self) {
        let monarch = self.monarch();
        match self.living_monarch() {
            Some(owner) if !self.execution_targets(owner).is_empty() => {
                self.phase = Phase::Execute;
                self.turn = owner;
                return;
            }
            Some(_) => self.log.push(Entry::NoExecution {
                monarch,
                dead: false,
            }),
            None => self.log.push(Entry::NoExecution {
                monarch,
                dead: true,
            }),
        }
        self.score_round();
    }

    /// § End of Round Scoring: taxes, piety, then Loans may be repaid.
    fn score_round(&mut self) {
        self.shown = true;
        let pile_taxed = pile(self.data().rules.round_taxes[usize::from(self.round - 1)].faith());
        for seat in self.table() {
            let t = &self.players[&seat].tableau;
            let money = t.living[pile_taxed].len() as i32;
            let (catholic, protestant) = (t.living[0].len() as i32, t.living[2].len() as i32);
            self.log.push(Entry::RoundTaxes { seat, money });
            self.money_section(seat, money);
            self.log.push(Entry::RoundPiety {
                seat,
                catholic,
                protestant,
            });
            self.piety_section(seat, catholic, protestant);
        }
        let repay = self.data().rules.loan_repay;
        self.repay = self
            .table()
            .into_iter()
            .filter(|s| {
                let p = &self.players[s];
                p.loans > 0 && p.money >= repay
            })
            .collect();
        self.next_repay();
    }

    fn next_repay(&mut self) {
        match self.repay.first() {
            Some(&s) => {
                self.phase = Phase::Repay;
                self.turn = s;
            }
            None => self.finish_round(),
        }
    }

    /// Scores the reign (when Roles are known), then the next reign or the end.
    fn finish_round(&mut self) {
        let tableaux: BTreeMap<Seat, Tableau> = self
            .players
            .iter()
            .map(|(s, p)| (*s, p.tableau.clone()))
            .collect();
        self.records.push(RoundRecord {
            round: self.round,
            tableaux,
            scores: BTreeMap::new(),
        });
        if !self.setup.hidden_agendas {
            self.score_record(self.records.len() - 1);
        }
        if self.round < self.setup.rounds {
            self.start_round();
        } else if self.setup.hidden_agendas {
            self.phase = Phase::Final;
            for seat in self.table() {
                let k = self.index(seat);
                let (deck, position) = match self.setup.roles {
                    RoleMode::Dealt => (ROLE_DECK, k as u16),
                    _ => (agenda_deck(k), self.agendas[&seat]),
                };
                self.pending.push(ChanceRequest::Reveal { deck, position });
            }
        } else {
            self.final_scoring();
        }
    }

    /// VP of record `i` for every player, from the Roles (all known now).
    fn score_record(&mut self, i: usize) {
        let data = self.setup.data().clone();
        let round = self.records[i].round;
        for seat in self.table() {
            let role = self.roles[&seat].expect("Roles are known when a reign is scored");
            let before = self.players[&seat].vp;
            let score = scoring::score_reign(
                &data,
                data.role(role),
                round,
                seat,
                &self.records[i].tableaux,
                before,
            );
            self.players.get_mut(&seat).expect("a player").vp = score.total;
            self.records[i].scores.insert(seat, score);
            self.log.push(Entry::Scored { seat, round, score });
        }
    }

    /// § End of the game: pennant bonuses, Loans, and the winners (most VP, then most piety).
    fn final_scoring(&mut self) {
        if self.setup.hidden_agendas {
            for i in 0..self.records.len() {
                self.score_record(i);
            }
        }
        let data = self.setup.data().clone();
        for seat in self.table() {
            let role = self.roles[&seat].expect("Roles are known at the end");
            let p = &self.players[&seat];
            let score = scoring::score_end(&data, data.role(role), p.best, p.loans, p.vp);
            self.players.get_mut(&seat).expect("a player").vp = score.total;
            self.log.push(Entry::FinalScore { seat, score });
        }
        let top = self.players.values().map(|p| p.vp).max().unwrap_or(0);
        let tied: Vec<Seat> = self
            .players
            .iter()
            .filter(|(_, p)| p.vp == top)
            .map(|(s, _)| *s)
            .collect();
        let piety = |s: &Seat| self.players[s].catholic + self.players[s].protestant;
        let most = tied.iter().map(piety).max().unwrap_or(0);
        let winners: Vec<Seat> = tied.iter().copied().filter(|s| piety(s) == most).collect();
        self.log.push(Entry::GameOver {
            winners: winners.clone(),
            tie_broken: tied.len() > 1 && winners.len() < tied.len(),
        });
        self.winners = winners;
        self.phase = Phase::Done;
    }

    /// A player's VP as `viewer` may know it: everyone's once public, else only one's own
    /// (counted with its own Role).
    pub fn vp_seen(&self, seat: Seat, viewer: Option<Seat>) -> Option<i64> {
        if self.vp_public() {
            return Some(self.players[&seat].vp);
        }
        if viewer != Some(seat) {
            return None;
        }
        let role = self.roles.get(&seat).copied().flatten()?;
        let data = self.data();
        let mut vp = 0;
        for r in &self.records {
            vp = scoring::score_reign(data, data.role(role), r.round, seat, &r.tableaux, vp).total;
        }
        Some(vp)
    }

    /// The roles still free for an open choice.
    pub fn free_roles(&self) -> Vec<u8> {
        let taken: Vec<Role> = self.roles.values().filter_map(|r| *r).collect();
        (0..self.data().roles.len() as u8)
            .filter(|i| !taken.contains(&Role::Card(*i)))
            .collect()
    }

    /// The seat choosing a Role in the open now.
    fn role_turn(&self) -> Option<Seat> {
        self.table().into_iter().find(|s| self.roles[s].is_none())
    }
}

/// A pile as a viewer sees it: its size and top card, and every card where the viewer may look
/// (its own board, or every board while a reign is scored).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PileView {
    pub faith: Option<Faith>,
    pub dead: bool,
    pub count: usize,
    pub top: Option<Placed>,
    /// Bottom to top; empty where the viewer may not look below the top.
    pub cards: Vec<Placed>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlayerView {
    pub seat: Seat,
    pub money: i32,
    pub catholic: i32,
    pub protestant: i32,
    /// Pennants: money, Catholic, Protestant.
    pub pennants: [i32; 3],
    pub loans: u8,
    pub vp: Option<i64>,
    pub role: Option<Role>,
    pub hand: usize,
    /// Living Catholic, none, Protestant; then deceased in the same order.
    pub piles: Vec<PileView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChoiceView {
    pub card: CardId,
    pub kind: ChoiceKind,
    /// (trick index, card).
    pub options: Vec<(u8, CardId)>,
}

/// What one seat (or a spectator) sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReformView {
    pub viewer: Option<Seat>,
    pub variant: String,
    pub round: u8,
    pub rounds: u8,
    pub monarch: CardId,
    pub prevailing: Option<Faith>,
    pub phase: Phase,
    pub tricks: u8,
    pub led: Option<Suit>,
    pub to_act: Vec<Seat>,
    pub chooser: Option<Seat>,
    pub starter: Option<Seat>,
    /// The viewer's cards not yet played: slot and card.
    pub hand: Vec<(u16, Option<CardId>)>,
    pub trick: Vec<TrickCard>,
    /// The trick's winner while its effects resolve.
    pub winner: Option<Seat>,
    pub choice: Option<ChoiceView>,
    pub players: Vec<PlayerView>,
    /// The viewer's own copy of the Roles while choosing in secret: slot and Role.
    pub agenda: Vec<(u16, Option<u8>)>,
    pub free_roles: Vec<u8>,
    pub legal: Vec<Action>,
    pub winners: Vec<Seat>,
    pub removed: Vec<Seat>,
    /// A variant's card set, Roles and rules (absent: the built-in ones).
    pub data: Option<Box<Data>>,
}

impl ReformView {
    pub fn data(&self) -> &Data {
        self.data.as_deref().unwrap_or_else(|| Data::builtin())
    }

    pub fn player(&self, s: Seat) -> Option<&PlayerView> {
        self.players.iter().find(|p| p.seat == s)
    }

    /// The card at a slot position, wherever this view shows it (hand, trick, piles).
    pub fn card_at(&self, position: u16) -> Option<CardId> {
        self.hand
            .iter()
            .find(|(p, _)| *p == position)
            .and_then(|(_, c)| *c)
            .or_else(|| {
                self.trick
                    .iter()
                    .find(|c| c.position == position)
                    .and_then(|c| c.card)
            })
            .or_else(|| {
                self.players
                    .iter()
                    .flat_map(|p| &p.piles)
                    .flat_map(|pl| pl.cards.iter().chain(pl.top.iter()))
                    .find(|c| c.position == position)
                    .map(|c| c.card)
            })
    }

    /// The owner of the board a slot position lies on.
    pub fn owner_of(&self, position: u16) -> Option<Seat> {
        self.players
            .iter()
            .find(|p| {
                p.piles.iter().any(|pl| {
                    pl.top.is_some_and(|t| t.position == position)
                        || pl.cards.iter().any(|c| c.position == position)
                })
            })
            .map(|p| p.seat)
    }
}

impl Game for Reformation {
    type Action = Action;
    type View = ReformView;
    const NAME: &'static str = "reformation";

    fn to_act(&self) -> ToAct {
        if !self.pending.is_empty() {
            return ToAct::Chance(self.pending.clone());
        }
        match self.phase {
            Phase::Roles => ToAct::Seat(self.role_turn().expect("a seat without a Role")),
            Phase::Agendas => ToAct::Sealed(
                self.table()
                    .into_iter()
                    .filter(|s| !self.sealed.contains_key(s))
                    .collect(),
            ),
            Phase::Start => ToAct::Seat(self.chooser.expect("a chooser")),
            Phase::Play | Phase::Effects | Phase::Execute | Phase::Repay => ToAct::Seat(self.turn),
            Phase::Done => ToAct::Terminal,
            Phase::Setup | Phase::Deal | Phase::Reveal | Phase::Final => {
                unreachable!("chance is pending in this phase")
            }
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if !self.pending.is_empty() || !self.to_act().includes(seat) {
            return Vec::new();
        }
        match self.phase {
            Phase::Roles => self
                .free_roles()
                .into_iter()
                .map(|role| Action::Role { role })
                .collect(),
            Phase::Agendas => (0..self.data().roles.len() as u16)
                .map(|position| Action::Agenda { position })
                .collect(),
            Phase::Start => self
                .table()
                .into_iter()
                .map(|s| Action::Start { seat: s })
                .collect(),
            Phase::Play => {
                let hand: Option<Vec<(u16, CardId)>> = self
                    .held(seat)
                    .into_iter()
                    .map(|(p, c)| c.map(|c| (p, c)))
                    .collect();
                hand.map(|h| self.plays(&h)).unwrap_or_default()
            }
            Phase::Effects => {
                let c = self
                    .resolution
                    .as_ref()
                    .and_then(|r| r.choice.as_ref())
                    .expect("a choice");
                c.options
                    .iter()
                    .map(|i| Action::Choose { index: *i as u8 })
                    .collect()
            }
            Phase::Execute => self
                .execution_targets(seat)
                .into_iter()
                .map(|position| Action::Execute { position })
                .collect(),
            Phase::Repay => {
                let p = &self.players[&seat];
                let most = i32::from(p.loans).min(p.money / self.data().rules.loan_repay);
                (0..=most as u8)
                    .map(|count| Action::Repay { count })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = self.legal_actions(seat);
        let other = self.next_seat(seat);
        let theirs = self.held(other).first().map(|h| h.0).unwrap_or(0);
        let mine = self.held(seat).first().map(|h| h.0).unwrap_or(0);
        v.extend([
            Action::Role { role: 99 },
            Action::Agenda { position: 99 },
            Action::Start { seat: 9 },
            Action::Play {
                position: theirs,
                declare: None,
            },
            Action::Play {
                position: 999,
                declare: None,
            },
            Action::Play {
                position: mine,
                declare: Some(Suit::Wild),
            },
            Action::Choose { index: 9 },
            Action::Execute { position: 999 },
            Action::Repay { count: 9 },
            Action::Auto,
        ]);
        for (p, _) in self.held(seat) {
            for declare in [None, Some(Suit::Clergy)] {
                v.push(Action::Play {
                    position: p,
                    declare,
                });
            }
        }
        v
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        if self.phase == Phase::Done {
            return Err(RuleError::Finished);
        }
        if !self.pending.is_empty() || !self.to_act().includes(seat) {
            return Err(RuleError::OutOfTurn {
                seat,
                expected: self.to_act().words(),
            });
        }
        match (self.phase, *action) {
            (Phase::Roles, Action::Role { role }) => {
                if !self.free_roles().contains(&role) {
                    return Err(illegal(seat, "that Role is taken or does not exist"));
                }
                self.roles.insert(seat, Some(Role::Card(role)));
                self.log.push(Entry::RoleChosen {
                    seat,
                    role: Role::Card(role),
                });
                if self.role_turn().is_none() {
                    self.start_round();
                }
            }
            (Phase::Agendas, Action::Agenda { position }) => {
                if usize::from(position) >= self.data().roles.len() {
                    return Err(illegal(
                        seat,
                        "that is not a card of your copy of the Roles",
                    ));
                }
                self.sealed.insert(seat, position);
                if let Some(Some(c)) = self
                    .agenda_cards
                    .get(&seat)
                    .and_then(|v| v.get(usize::from(position)))
                {
                    self.roles.insert(seat, Some(Role::Card(c.0 as u8)));
                }
                if self.sealed.len() == usize::from(self.setup.players) {
                    self.agendas = std::mem::take(&mut self.sealed);
                    self.log.push(Entry::AgendasChosen);
                    self.start_round();
                }
            }
            (Phase::Start, Action::Start { seat: s }) => {
                if s >= self.setup.players {
                    return Err(illegal(seat, "that seat is not at the table"));
                }
                self.log.push(Entry::Starts {
                    chooser: seat,
                    seat: s,
                });
                self.starter = Some(s);
                self.turn = s;
                self.phase = Phase::Play;
            }
            (Phase::Play, Action::Play { position, declare }) => {
                self.play_card(seat, position, declare, action)?
            }
            (Phase::Play, Action::Auto) => {
                let hidden: Vec<u16> = self.hands[&seat]
                    .iter()
                    .filter(|s| !s.played && !s.shown)
                    .map(|s| s.position)
                    .collect();
                if hidden.is_empty() {
                    let (p, d) = self.auto_card(seat);
                    self.place(seat, p, d, true);
                } else {
                    self.played = Some(Pending {
                        seat,
                        position: None,
                        declare: None,
                    });
                    self.phase = Phase::Reveal;
                    for p in hidden {
                        self.reveal(p);
                    }
                }
            }
            (Phase::Effects, Action::Choose { index }) => {
                let res = self.resolution.as_ref().expect("resolving");
                let choice = res.choice.as_ref().expect("a choice");
                let pick = usize::from(index);
                if !choice.options.contains(&pick) {
                    return Err(illegal(seat, "that card is not one the effect can choose"));
                }
                let (actor, kind) = (choice.actor, choice.kind);
                let res = self.resolution.as_mut().expect("resolving");
                let did = effects::chosen(
                    self.setup.data(),
                    &mut self.trick,
                    kind,
                    pick,
                    &mut res.gains,
                );
                res.choice = None;
                res.next += 1;
                let winner = res.winner;
                self.log.push(Entry::Acted {
                    seat: winner,
                    card: self.trick[actor].card.expect("shown"),
                    did,
                });
                self.run_effects();
            }
            (Phase::Execute, Action::Execute { position }) => self.execute(seat, position)?,
            (Phase::Repay, Action::Repay { count }) => {
                if !self.legal_actions(seat).contains(action) {
                    return Err(illegal(
                        seat,
                        "you can repay as many Loans as you hold and can pay 5 money for",
                    ));
                }
                let cost = i32::from(count) * self.data().rules.loan_repay;
                let p = self.players.get_mut(&seat).expect("a player");
                p.money -= cost;
                p.loans -= count;
                self.log.push(Entry::Repaid {
                    seat,
                    count,
                    money: cost,
                });
                self.repay.remove(0);
                self.next_repay();
            }
            (phase, _) => {
                let what = match phase {
                    Phase::Roles => "choose a Role",
                    Phase::Agendas => "choose your Role in secret",
                    Phase::Start => "choose who leads the first trick",
                    Phase::Play => "play a card",
                    Phase::Effects => "choose a card for the effect",
                    Phase::Execute => "choose the card the Monarch executes",
                    Phase::Repay => "repay Loans or not",
                    _ => "wait",
                };
                return Err(illegal(seat, format!("now you {what}")));
            }
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        crate::engine::check_chance_batch(&self.pending, outcomes, |req, o| {
            let deck = match req {
                ChanceRequest::Deal { deck, .. } | ChanceRequest::Reveal { deck, .. } => *deck,
                _ => return Ok(()),
            };
            crate::engine::check_cards(o, &self.spec_of(deck), |p| self.known(deck, p))
        })?;
        self.pending.clear();
        let mut lot = None;
        let mut shown_roles = Vec::new();
        for out in outcomes {
            match out {
                ChanceOutcome::Dealt {
                    deck,
                    position,
                    card,
                } => self.store(*deck, *position, *card, false, &mut shown_roles),
                ChanceOutcome::Revealed {
                    deck,
                    position,
                    card,
                } => self.store(*deck, *position, Some(*card), true, &mut shown_roles),
                ChanceOutcome::Rolled { values } => lot = values.first().copied(),
                _ => {}
            }
        }
        match self.phase {
            Phase::Setup => self.phase = Phase::Agendas,
            Phase::Deal => {
                if !shown_roles.is_empty() {
                    self.log.push(Entry::RolesShown { roles: shown_roles });
                } else if self.round == 1 && self.setup.roles == RoleMode::Dealt {
                    self.log.push(Entry::RolesDealt);
                }
                if let Some(v) = lot {
                    let chooser = self.table()[usize::from(v - 1)];
                    self.chooser = Some(chooser);
                    self.log.push(Entry::Chooser {
                        seat: chooser,
                        by_lot: true,
                    });
                }
                self.phase = Phase::Start;
            }
            Phase::Reveal => {
                let p = self.played.take().expect("a card was played");
                let (position, declare, auto) = match p.position {
                    Some(pos) => (pos, p.declare, false),
                    None => {
                        let (pos, d) = self.auto_card(p.seat);
                        (pos, d, true)
                    }
                };
                self.place(p.seat, position, declare, auto);
            }
            Phase::Final => {
                self.log.push(Entry::RolesShown { roles: shown_roles });
                self.final_scoring();
            }
            _ => unreachable!("no chance in this phase"),
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> ReformView {
        let data = self.data();
        let m = self.monarch();
        let players = self
            .players
            .iter()
            .map(|(s, p)| {
                let look = self.shown || viewer == Some(*s);
                let pile_view = |cards: &Vec<Placed>, i: usize, dead: bool| PileView {
                    faith: pile_faith(i),
                    dead,
                    count: cards.len(),
                    top: cards.last().copied(),
                    cards: if look { cards.clone() } else { Vec::new() },
                };
                let mut piles: Vec<PileView> = p
                    .tableau
                    .living
                    .iter()
                    .enumerate()
                    .map(|(i, c)| pile_view(c, i, false))
                    .collect();
                piles.extend(
                    p.tableau
                        .dead
                        .iter()
                        .enumerate()
                        .map(|(i, c)| pile_view(c, i, true)),
                );
                PlayerView {
                    seat: *s,
                    money: p.money,
                    catholic: p.catholic,
                    protestant: p.protestant,
                    pennants: [
                        scoring::pennants(data, p.best[0]),
                        scoring::pennants(data, p.best[1]),
                        scoring::pennants(data, p.best[2]),
                    ],
                    loans: p.loans,
                    vp: self.vp_seen(*s, viewer),
                    role: if !self.setup.hidden_agendas
                        || self.phase == Phase::Done
                        || viewer == Some(*s)
                    {
                        self.roles[s]
                    } else {
                        None
                    },
                    hand: self.held(*s).len(),
                    piles,
                }
            })
            .collect();
        let res = self.resolution.as_ref();
        ReformView {
            viewer,
            variant: self.setup.variant.clone(),
            round: self.round,
            rounds: self.setup.rounds,
            monarch: m,
            prevailing: super::data::prevailing(self.round),
            phase: self.phase,
            tricks: self.tricks,
            led: self.led(),
            to_act: match self.to_act() {
                ToAct::Seat(s) => vec![s],
                ToAct::Sealed(_) => self.table(),
                _ => Vec::new(),
            },
            chooser: self.chooser,
            starter: self.starter,
            hand: viewer.map(|v| self.held(v)).unwrap_or_default(),
            trick: self.trick.clone(),
            winner: res.map(|r| r.winner),
            choice: res.and_then(|r| r.choice.as_ref()).map(|c| ChoiceView {
                card: self.trick[c.actor].card.expect("shown"),
                kind: c.kind,
                options: c
                    .options
                    .iter()
                    .map(|i| (*i as u8, self.trick[*i].card.expect("shown")))
                    .collect(),
            }),
            players,
            agenda: viewer
                .filter(|_| self.phase == Phase::Agendas)
                .and_then(|v| self.agenda_cards.get(&v))
                .map(|cards| {
                    cards
                        .iter()
                        .enumerate()
                        .map(|(p, c)| (p as u16, c.map(|c| c.0 as u8)))
                        .collect()
                })
                .unwrap_or_default(),
            free_roles: if self.phase == Phase::Roles {
                self.free_roles()
            } else {
                Vec::new()
            },
            legal: viewer.map(|v| self.legal_actions(v)).unwrap_or_default(),
            winners: self.winners.clone(),
            removed: self.removed.clone(),
            data: self.setup.data.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        if !self.pending.is_empty() || !self.to_act().includes(seat) {
            return None;
        }
        match self.phase {
            Phase::Play => Some(Action::Auto),
            Phase::Agendas => Some(Action::Agenda { position: 0 }),
            Phase::Start => Some(Action::Start { seat }),
            Phase::Repay => Some(Action::Repay { count: 0 }),
            _ => self.legal_actions(seat).first().copied(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.phase != Phase::Done {
            return None;
        }
        let seats = self.table();
        if !self.removed.is_empty() {
            return Some(crate::engine::forfeit_outcome(&seats, &self.removed));
        }
        let w = self.winners.len() as i64;
        let l = seats.len() as i64 - w;
        Some(Outcome {
            payoffs: seats
                .iter()
                .map(|s| (*s, if self.winners.contains(s) { l } else { -w }))
                .collect(),
            winners: self.winners.clone(),
        })
    }

    fn check_invariants(&self) -> Result<(), String> {
        let max = self.data().rules.tally_max;
        for (s, p) in &self.players {
            if !(0..=max).contains(&p.money)
                || !(0..=max).contains(&p.catholic)
                || !(0..=max).contains(&p.protestant)
            {
                return Err(format!("seat {s} has a tally out of range: {p:?}"));
            }
            if p.vp < 0 {
                return Err(format!("seat {s} has negative VP"));
            }
        }
        if self.phase == Phase::Done || self.round == 0 || self.hands.is_empty() {
            return Ok(());
        }
        // Every slot of the reign is in exactly one place: a hand, the trick, or a board.
        let mut positions: Vec<u16> = self
            .hands
            .values()
            .flatten()
            .filter(|s| !s.played)
            .map(|s| s.position)
            .chain(self.trick.iter().map(|c| c.position))
            .chain(
                self.players
                    .values()
                    .flat_map(|p| p.tableau.cards().map(|c| c.position)),
            )
            .collect();
        let n = positions.len();
        positions.sort_unstable();
        positions.dedup();
        let all = HAND * usize::from(self.setup.players);
        if positions.len() != n || n != all {
            return Err(format!(
                "{n} slots placed ({} distinct) of {all}",
                positions.len()
            ));
        }
        if self.trick.len() >= usize::from(self.setup.players) && self.resolution.is_none() {
            return Err("a full trick is not being resolved".into());
        }
        let living_monarchs = self
            .players
            .values()
            .flat_map(|p| p.tableau.living.iter().flatten())
            .filter(|c| self.data().cards[usize::from(c.card.0)].monarch.is_some())
            .count();
        if living_monarchs > 1 {
            return Err("two Monarchs in play".into());
        }
        Ok(())
    }

    fn seats(&self) -> Vec<Seat> {
        self.table()
            .into_iter()
            .filter(|s| !self.removed.contains(s))
            .collect()
    }

    fn participants(&self) -> Vec<Seat> {
        if self.phase == Phase::Done {
            Vec::new()
        } else {
            self.seats()
        }
    }

    fn forfeit(&mut self, offenders: &[Seat], reason: ForfeitReason) -> Result<(), RuleError> {
        crate::engine::check_forfeit(self.phase == Phase::Done, &self.seats(), offenders)?;
        // § Forfeits: the reign's decks die with the offender's key share; the game ends and
        // nobody wins.
        for o in offenders {
            self.log.push(Entry::Forfeited { seat: *o, reason });
        }
        self.removed.extend(offenders);
        self.removed.sort_unstable();
        self.end_without_winner();
        Ok(())
    }
}

impl Reformation {
    /// `seat` plays the card at `position` of its hand (declaring a Wild card's suit): placed
    /// at once when shown, else revealed first.
    fn play_card(
        &mut self,
        seat: Seat,
        position: u16,
        declare: Option<Suit>,
        action: &Action,
    ) -> Result<(), RuleError> {
        let slot = *self
            .slot(seat, position)
            .ok_or_else(|| illegal(seat, "that card is not in your hand"))?;
        if declare == Some(Suit::Wild) {
            return Err(illegal(
                seat,
                "a Wild card is declared as Nobles, Clergy, Townsfolk or Peasants",
            ));
        }
        let known: Option<Vec<(u16, CardId)>> = self
            .held(seat)
            .into_iter()
            .map(|(p, c)| c.map(|c| (p, c)))
            .collect();
        if let Some(hand) = known {
            if !self.plays(&hand).contains(action) {
                let c = slot.card(self.monarch()).expect("known");
                let why = match (self.card_suit(c), declare) {
                    (Suit::Wild, None) => "declare the suit your Wild card is played as",
                    (s, Some(_)) if s != Suit::Wild => "only a Wild card is declared as a suit",
                    _ => "follow the suit led when you can (or play a Wild card)",
                };
                return Err(illegal(seat, why));
            }
        }
        if slot.shown {
            self.place(seat, position, declare, false);
        } else {
            self.played = Some(Pending {
                seat,
                position: Some(position),
                declare,
            });
            self.phase = Phase::Reveal;
            self.reveal(position);
        }
        Ok(())
    }

    /// The Monarch's execution: `seat` kills the living card at `position`, then the round is
    /// scored.
    fn execute(&mut self, seat: Seat, position: u16) -> Result<(), RuleError> {
        if !self.execution_targets(seat).contains(&position) {
            return Err(illegal(
                seat,
                "the Monarch executes a living card of your board or the top living \
                 card of another player's pile",
            ));
        }
        let owner = *self
            .players
            .iter()
            .find(|(_, p)| {
                p.tableau
                    .living
                    .iter()
                    .flatten()
                    .any(|c| c.position == position)
            })
            .expect("a target lies on a board")
            .0;
        let victim = self
            .players
            .get_mut(&owner)
            .expect("a player")
            .tableau
            .kill(position)
            .expect("a living card");
        self.log.push(Entry::Executed {
            seat,
            monarch: self.monarch(),
            victim: victim.card,
            owner,
        });
        self.score_round();
        Ok(())
    }

    /// Stores a card dealt or shown.
    fn store(
        &mut self,
        deck: DeckId,
        position: u16,
        card: Option<CardId>,
        public: bool,
        shown_roles: &mut Vec<(Seat, Role)>,
    ) {
        if deck < 10 {
            let role = card.map(|c| Role::Card(c.0 as u8));
            if deck == ROLE_DECK {
                let seat = position as Seat;
                if role.is_some() {
                    self.roles.insert(seat, role);
                }
                if public {
                    if let Some(r) = role {
                        shown_roles.push((seat, r));
                    }
                }
            } else {
                let seat = (deck - 1) as Seat;
                if let Some(v) = self.agenda_cards.get_mut(&seat) {
                    if card.is_some() {
                        v[usize::from(position)] = card;
                    }
                }
                if public {
                    if let Some(r) = role {
                        self.roles.insert(seat, Some(r));
                        shown_roles.push((seat, r));
                    }
                }
            }
            return;
        }
        let is_suit = deck == suit_deck(self.round);
        if let Some(s) = self
            .hands
            .values_mut()
            .flatten()
            .find(|s| s.position == position)
        {
            if card.is_some() {
                if is_suit {
                    s.suit_card = card;
                } else {
                    s.slot_card = card;
                }
            }
            if public && s.suit_card.is_some() && s.slot_card.is_some() {
                s.shown = true;
            }
        }
    }
}
