//! Abandon Ship: private hands from a shared deck, discards into four suit lifeboats, fights
//! won by strictly higher ranks whose spoils are a card drawn at random from the loser's hand,
//! a sealed Key Card showdown when the deck runs out, and rounds to 200 points.
//! Rules: `protocol/rules/abandon-ship.md` (cited as §).

use crate::cards::{CardId, DeckSpec, PlayingCard, Suit};
use crate::engine::illegal;
use crate::engine::{
    ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat, ToAct,
};
use crate::games::card_hands;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Cards a hand is drawn up to (§ On your turn).
pub const HAND: usize = 5;

/// A move. Cards are named by deck position: a client that does not know the card can still
/// check that it is one of the mover's (§ Moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Put a card of the hand into its suit's lifeboat; the turn ends.
    Discard { position: u16 },
    /// Play a card into the centre and attack `target`.
    Fight { position: u16, target: Seat },
    /// Answer the fight with a card of strictly higher rank.
    Raise { position: u16 },
    /// Give up the fight.
    Surrender,
    /// The sealed Key Card at the showdown.
    Key { position: u16 },
}

/// The table's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub players: u8,
    /// The score that ends the game (§ Winning).
    #[serde(default = "two_hundred")]
    pub target: i64,
    /// At most this many rounds (`--hands`); none: play to the target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
}

fn two_hundred() -> i64 {
    200
}

impl Setup {
    pub fn new(players: u8) -> Setup {
        Setup {
            players,
            target: 200,
            rounds: None,
        }
    }

    pub fn validate(&self) -> Result<(), RuleError> {
        if !(2..=8).contains(&self.players) {
            return Err(RuleError::Setup(format!(
                "Abandon Ship seats 2 to 8 players, not {}",
                self.players
            )));
        }
        if !(1..=10_000).contains(&self.target) {
            return Err(RuleError::Setup(format!(
                "the target is 1 to 10000 points, not {}",
                self.target
            )));
        }
        if self.rounds == Some(0) {
            return Err(RuleError::Setup("a game has at least one round".into()));
        }
        Ok(())
    }

    /// One deck for 2 to 5 players, two shuffled together for 6 to 8 (§ Equipment).
    pub fn decks(&self) -> u8 {
        if self.players >= 6 {
            2
        } else {
            1
        }
    }

    pub fn spec(&self) -> DeckSpec {
        DeckSpec::standard(self.decks())
    }

    pub fn deck_size(&self) -> u16 {
        52 * u16::from(self.decks())
    }

    /// Cards set aside unseen after the deal: five more with two players; with two decks the
    /// unused of eight hands (§ The deal).
    pub fn aside(&self) -> u16 {
        if self.decks() == 2 {
            (8 - u16::from(self.players)) * HAND as u16
        } else if self.players == 2 {
            HAND as u16
        } else {
            0
        }
    }
}

/// Rank for fights: Ace 1 (low) … King 13 (§ Card values).
pub fn rank(c: CardId) -> u8 {
    PlayingCard::from_id(c).rank
}

/// Points: the rank (§ Card values).
pub fn points(c: CardId) -> i64 {
    i64::from(rank(c))
}

pub fn suit(c: CardId) -> Suit {
    PlayingCard::from_id(c).suit
}

pub use crate::games::card_hands::{card_name, Face, Held};

pub fn suit_name(s: Suit) -> &'static str {
    match s {
        Suit::Clubs => "Clubs",
        Suit::Diamonds => "Diamonds",
        Suit::Hearts => "Hearts",
        Suit::Spades => "Spades",
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Phase {
    /// A new round's deck is being shuffled and dealt.
    Deal,
    /// The seat on turn is drawing back up to five.
    Draw,
    /// The seat on turn discards or picks a fight.
    Play,
    /// A discard is being shown.
    Discard,
    /// A fight is on: a played card is being shown, or the answer is awaited.
    Fight,
    /// The fight's winner is drawing a random card from the loser's hand.
    Spoils,
    /// The ship sank: everyone with cards chooses a Key Card, sealed.
    Key,
    /// Every hand is being shown.
    Show,
    Done,
}

/// One card played in a fight; `card` is `None` until shown (for clients that did not hold it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Play {
    pub seat: Seat,
    pub position: u16,
    pub card: Option<CardId>,
    /// Shown to everyone.
    pub shown: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fight {
    pub attacker: Seat,
    pub defender: Seat,
    pub plays: Vec<Play>,
    /// The winner, once decided, and the loser's card drawn (a position, when rolled).
    pub winner: Option<Seat>,
    pub drawn: Option<u16>,
}

impl Fight {
    /// The seat that must answer the last card.
    pub fn to_answer(&self) -> Seat {
        match self.plays.last() {
            Some(p) if p.seat == self.attacker => self.defender,
            _ => self.attacker,
        }
    }

    pub fn top(&self) -> Option<CardId> {
        self.plays.last().and_then(|p| p.card)
    }
}

/// A lifeboat's contest at the showdown (§ The showdown).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    pub seat: Seat,
    /// Points of the lifeboat's suit held: hand (with the Key Card) and board.
    pub held: i64,
    /// Those cards' ranks, highest first (the tie-break).
    pub ranks: Vec<u8>,
}

/// The public record, for views and histories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "what")]
pub enum Entry {
    Round {
        number: u32,
        dealer: Seat,
    },
    Drew {
        seat: Seat,
        count: u8,
    },
    Discarded {
        seat: Seat,
        card: CardId,
    },
    Attacked {
        seat: Seat,
        target: Seat,
        card: CardId,
    },
    Raised {
        seat: Seat,
        card: CardId,
    },
    Surrendered {
        seat: Seat,
    },
    /// The last card could not be answered (a King).
    Unanswerable {
        seat: Seat,
    },
    /// The fight's winner drew this card from the loser's hand onto its board.
    Took {
        winner: Seat,
        loser: Seat,
        card: CardId,
    },
    Sank {
        by: Seat,
    },
    Keys {
        keys: Vec<(Seat, CardId)>,
        drowned: Vec<Seat>,
    },
    /// Every hand shown at the showdown (Key Cards included).
    Hands {
        hands: Vec<(Seat, Vec<CardId>)>,
    },
    Boarded {
        /// 0 clubs, 1 diamonds, 2 hearts, 3 spades.
        suit: u8,
        points: i64,
        claims: Vec<Claim>,
        /// `None`: the contest tied exactly (the plank), or nobody ran for it.
        seat: Option<Seat>,
    },
    Scores {
        scores: Vec<(Seat, i64)>,
    },
    /// A played card broke a rule its player's client should have refused.
    Misplayed {
        seat: Seat,
        card: CardId,
        why: String,
    },
    Won {
        seats: Vec<Seat>,
    },
    Forfeited {
        seat: Seat,
        reason: ForfeitReason,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbandonShip {
    pub setup: Setup,
    pub removed: Vec<Seat>,
    /// Per seat `0..players`.
    pub scores: Vec<i64>,
    /// Rounds begun, from 1.
    pub round: u32,
    pub dealer: Seat,
    pub turn: Seat,
    pub phase: Phase,
    pub hands: BTreeMap<Seat, Vec<Held>>,
    pub boards: BTreeMap<Seat, Vec<Face>>,
    /// Clubs, diamonds, hearts, spades.
    pub lifeboats: Vec<Vec<Face>>,
    pub fight: Option<Fight>,
    /// Sealed Key Cards, out of every view until all are in.
    keys: BTreeMap<Seat, u16>,
    /// The Key Cards once all are in (public: the sealed moves were opened).
    pub shown_keys: BTreeMap<Seat, u16>,
    /// The hands were shown at this round's showdown.
    pub hands_shown: bool,
    pub next_position: u16,
    pending: Vec<ChanceRequest>,
    pub winners: Vec<Seat>,
    pub log: Vec<Entry>,
}

const LAST_CARD: &str = "the last card of a hand may be played only if it is a King";

impl AbandonShip {
    pub fn new(setup: &Setup) -> Result<AbandonShip, RuleError> {
        setup.validate()?;
        let mut g = AbandonShip {
            setup: setup.clone(),
            removed: Vec::new(),
            scores: vec![0; usize::from(setup.players)],
            round: 0,
            dealer: 0,
            turn: 0,
            phase: Phase::Deal,
            hands: BTreeMap::new(),
            boards: BTreeMap::new(),
            lifeboats: vec![Vec::new(); 4],
            fight: None,
            keys: BTreeMap::new(),
            shown_keys: BTreeMap::new(),
            hands_shown: false,
            next_position: 0,
            pending: Vec::new(),
            winners: Vec::new(),
            log: Vec::new(),
        };
        g.start_round();
        Ok(g)
    }

    /// Every seat at the table, removed ones included.
    pub fn table(&self) -> Vec<Seat> {
        (0..self.setup.players).collect()
    }

    /// This round's deck.
    pub fn deck(&self) -> DeckId {
        self.round.saturating_sub(1)
    }

    pub fn deck_left(&self) -> u16 {
        self.setup.deck_size() - self.next_position
    }

    /// § The deal: a new deck, five cards to each player (seat i at positions 5i..5i+4),
    /// the cards set aside next (never dealt nor opened), then the draw pile.
    fn start_round(&mut self) {
        self.round += 1;
        let seats = self.table();
        let n = seats.len() as u32;
        self.dealer = seats[((self.round - 1) % n) as usize];
        self.turn = self.dealer;
        self.phase = Phase::Deal;
        self.hands.clear();
        self.boards = seats.iter().map(|s| (*s, Vec::new())).collect();
        self.lifeboats = vec![Vec::new(); 4];
        self.fight = None;
        self.keys.clear();
        self.shown_keys.clear();
        self.hands_shown = false;
        let deck = self.deck();
        self.pending = vec![ChanceRequest::Shuffle {
            deck,
            spec: self.setup.spec(),
        }];
        for (i, s) in seats.iter().enumerate() {
            let mut hand = Vec::new();
            for j in 0..HAND as u16 {
                let position = i as u16 * HAND as u16 + j;
                self.pending.push(ChanceRequest::deal(deck, position, *s));
                hand.push(Held {
                    position,
                    card: None,
                });
            }
            self.hands.insert(*s, hand);
        }
        self.next_position = n as u16 * HAND as u16 + self.setup.aside();
        self.log.push(Entry::Round {
            number: self.round,
            dealer: self.dealer,
        });
    }

    /// § On your turn: draw back up to five, unless the hand is full.
    fn begin_turn(&mut self, seat: Seat) {
        self.turn = seat;
        self.fight = None;
        let need = HAND.saturating_sub(self.hands[&seat].len()) as u16;
        let k = need.min(self.deck_left());
        if k == 0 {
            self.phase = Phase::Play;
            return;
        }
        self.phase = Phase::Draw;
        for i in 0..k {
            let position = self.next_position + i;
            self.pending
                .push(ChanceRequest::deal(self.deck(), position, seat));
            self.hands.get_mut(&seat).expect("a player").push(Held {
                position,
                card: None,
            });
        }
        self.next_position += k;
    }

    fn next_turn(&mut self) {
        let seats = self.table();
        let i = seats.iter().position(|s| *s == self.turn).unwrap_or(0);
        let next = seats[(i + 1) % seats.len()];
        self.begin_turn(next);
    }

    fn held(&self, seat: Seat, position: u16) -> Option<&Held> {
        self.hands
            .get(&seat)
            .and_then(|h| h.iter().find(|c| c.position == position))
    }

    fn take(&mut self, seat: Seat, position: u16) -> Held {
        let hand = self.hands.get_mut(&seat).expect("a player");
        let k = hand
            .iter()
            .position(|h| h.position == position)
            .expect("a held card");
        hand.remove(k)
    }

    /// A card this client knows, wherever it is.
    fn known(&self, position: u16) -> Option<CardId> {
        card_hands::known(&self.hands, position).or_else(|| {
            self.fight
                .iter()
                .flat_map(|f| &f.plays)
                .find(|p| p.position == position)
                .and_then(|p| p.card)
        })
    }

    /// Whether `card` may be played from a hand of `left` cards now: § Important restriction,
    /// and in a fight strictly higher than the card to answer.
    fn playable(&self, card: CardId, left: usize, over: Option<CardId>) -> Result<(), String> {
        if left == 1 && rank(card) != 13 {
            return Err(LAST_CARD.into());
        }
        if let Some(top) = over {
            if rank(card) <= rank(top) {
                return Err(format!(
                    "{} does not beat {}: a fight is answered with a strictly higher rank",
                    card_name(card),
                    card_name(top)
                ));
            }
        }
        Ok(())
    }

    /// Seats holding cards that `seat` may attack (§ Pointless restriction).
    fn targets(&self, seat: Seat) -> Vec<Seat> {
        self.table()
            .into_iter()
            .filter(|s| *s != seat && !self.hands[s].is_empty())
            .collect()
    }

    /// A fight card was shown: check it, then wait for the answer or end the fight.
    fn shown_fight_card(&mut self) {
        let f = self.fight.as_ref().expect("a fight");
        let last = *f.plays.last().expect("a card was played");
        let card = last.card.expect("shown");
        let over = f.plays.len().checked_sub(2).and_then(|i| f.plays[i].card);
        let left = self.hands[&last.seat].len() + 1;
        if let Err(why) = self.playable(card, left, over) {
            self.misplayed(last.seat, card, why);
            return;
        }
        self.log.push(if f.plays.len() == 1 {
            Entry::Attacked {
                seat: last.seat,
                target: f.defender,
                card,
            }
        } else {
            Entry::Raised {
                seat: last.seat,
                card,
            }
        });
        if rank(card) == 13 {
            // Nothing beats a King: the fight is over (§ Fighting, "can't play a higher card").
            self.log.push(Entry::Unanswerable { seat: last.seat });
            self.end_fight(last.seat);
        } else {
            self.phase = Phase::Fight;
        }
    }

    /// § Fighting: the fight cards go to their lifeboats; the winner draws a random card of
    /// the loser's hand: a public die over the hand ordered by deck position.
    fn end_fight(&mut self, winner: Seat) {
        let f = self.fight.as_mut().expect("a fight");
        f.winner = Some(winner);
        let loser = if winner == f.attacker {
            f.defender
        } else {
            f.attacker
        };
        let plays = f.plays.clone();
        for p in plays {
            let card = p.card.expect("fight cards are shown");
            self.lifeboats[suit(card) as usize].push(Face {
                position: p.position,
                card,
            });
        }
        self.phase = Phase::Spoils;
        let mut hand: Vec<u16> = self.hands[&loser].iter().map(|h| h.position).collect();
        hand.sort_unstable();
        match hand.len() {
            0 => unreachable!("a loser keeps a card (§ Important restriction)"),
            1 => self.draw_spoils(hand[0]),
            k => self.pending.push(ChanceRequest::RollPublic {
                sides: k as u8,
                count: 1,
                by: Some(winner),
            }),
        }
    }

    fn draw_spoils(&mut self, position: u16) {
        self.fight.as_mut().expect("a fight").drawn = Some(position);
        self.pending.push(ChanceRequest::Reveal {
            deck: self.deck(),
            position,
        });
    }

    fn loser(&self) -> Seat {
        let f = self.fight.as_ref().expect("a fight");
        if f.winner == Some(f.attacker) {
            f.defender
        } else {
            f.attacker
        }
    }

    /// § The showdown: the ship sank; everyone holding cards chooses a Key Card.
    fn sink(&mut self, by: Seat) {
        self.log.push(Entry::Sank { by });
        self.phase = Phase::Key;
        if self.key_seats().is_empty() {
            self.all_keyed();
        }
    }

    pub fn key_seats(&self) -> Vec<Seat> {
        self.table()
            .into_iter()
            .filter(|s| !self.hands[s].is_empty())
            .collect()
    }

    fn all_keyed(&mut self) {
        self.shown_keys = std::mem::take(&mut self.keys);
        self.phase = Phase::Show;
        let deck = self.deck();
        for h in self.hands.values().flatten() {
            self.pending.push(ChanceRequest::Reveal {
                deck,
                position: h.position,
            });
        }
        if self.pending.is_empty() {
            self.score();
        }
    }

    /// § The showdown: lifeboat contests, then the next round or the end.
    fn score(&mut self) {
        let card_of = |g: &AbandonShip, s: Seat, p: u16| {
            g.held(s, p).and_then(|h| h.card).expect("hands are shown")
        };
        let keys: Vec<(Seat, CardId)> = self
            .shown_keys
            .iter()
            .map(|(s, p)| (*s, card_of(self, *s, *p)))
            .collect();
        let drowned: Vec<Seat> = self
            .table()
            .into_iter()
            .filter(|s| !self.shown_keys.contains_key(s))
            .collect();
        self.log.push(Entry::Keys {
            keys: keys.clone(),
            drowned,
        });
        self.log.push(Entry::Hands {
            hands: self
                .hands
                .iter()
                .map(|(s, h)| (*s, h.iter().filter_map(|c| c.card).collect()))
                .collect(),
        });
        for su in Suit::ALL {
            let boat = &self.lifeboats[su as usize];
            let prize: i64 = boat.iter().map(|f| points(f.card)).sum();
            let runners: Vec<Seat> = keys
                .iter()
                .filter(|(_, k)| suit(*k) == su)
                .map(|(s, _)| *s)
                .collect();
            if runners.is_empty() {
                continue;
            }
            let mut claims: Vec<Claim> = runners
                .iter()
                .map(|s| {
                    let mut ranks: Vec<u8> = self.hands[s]
                        .iter()
                        .map(|h| h.card.expect("shown"))
                        .chain(self.boards[s].iter().map(|f| f.card))
                        .filter(|c| suit(*c) == su)
                        .map(rank)
                        .collect();
                    ranks.sort_unstable_by(|a, b| b.cmp(a));
                    Claim {
                        seat: *s,
                        held: ranks.iter().map(|r| i64::from(*r)).sum(),
                        ranks,
                    }
                })
                .collect();
            claims.sort_by(|a, b| (b.held, &b.ranks).cmp(&(a.held, &a.ranks)));
            let seat = match claims.as_slice() {
                [one] => Some(one.seat),
                [a, b, ..] if (a.held, &a.ranks) == (b.held, &b.ranks) => None,
                [a, ..] => Some(a.seat),
                [] => None,
            };
            claims.sort_by_key(|c| c.seat);
            if let Some(s) = seat {
                self.scores[usize::from(s)] += prize;
            }
            self.log.push(Entry::Boarded {
                suit: su as u8,
                points: prize,
                claims,
                seat,
            });
        }
        self.log.push(Entry::Scores {
            scores: self
                .seats()
                .iter()
                .map(|s| (*s, self.scores[usize::from(*s)]))
                .collect(),
        });
        let reached = self.scores.iter().any(|s| *s >= self.setup.target);
        let capped = self.setup.rounds.is_some_and(|r| self.round >= r);
        if reached || capped {
            let top = self.scores.iter().copied().max().unwrap_or(0);
            let winners = self
                .table()
                .into_iter()
                .filter(|s| self.scores[usize::from(*s)] == top)
                .collect();
            self.finish(winners);
        } else {
            self.start_round();
        }
    }

    fn finish(&mut self, winners: Vec<Seat>) {
        self.pending.clear();
        self.keys.clear();
        self.phase = Phase::Done;
        self.log.push(Entry::Won {
            seats: winners.clone(),
        });
        self.winners = winners;
    }

    /// A card shown that its player's own client would have refused: the table removes that
    /// player and the game ends (§ Misplays).
    fn misplayed(&mut self, seat: Seat, card: CardId, why: String) {
        self.log.push(Entry::Misplayed { seat, card, why });
        self.removed.push(seat);
        self.pending.clear();
        self.keys.clear();
        self.phase = Phase::Done;
        self.winners.clear();
    }

    /// The points in each lifeboat, clubs to spades.
    pub fn lifeboat_points(&self) -> Vec<i64> {
        self.lifeboats
            .iter()
            .map(|b| b.iter().map(|f| points(f.card)).sum())
            .collect()
    }
}

/// What one seat (or a spectator) sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AbandonView {
    pub viewer: Option<Seat>,
    pub round: u32,
    pub dealer: Seat,
    pub turn: Seat,
    pub phase: Phase,
    pub target: i64,
    /// At most this many rounds, when the table caps the game (`--hands`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    pub scores: Vec<(Seat, i64)>,
    pub removed: Vec<Seat>,
    /// Every hand: each card where this viewer may see it, `None` face down.
    pub hands: Vec<(Seat, Vec<Option<CardId>>)>,
    /// The viewer's own cards with their positions (what a move names).
    pub mine: Vec<Held>,
    pub boards: Vec<(Seat, Vec<CardId>)>,
    /// Clubs, diamonds, hearts, spades.
    pub lifeboats: Vec<Vec<CardId>>,
    pub fight: Option<Fight>,
    /// The Key Cards once all are in: seat and deck position.
    pub keys: Vec<(Seat, u16)>,
    pub deck_left: u16,
    pub to_act: Vec<Seat>,
    pub legal: Vec<Action>,
    pub winners: Vec<Seat>,
    pub log: Vec<Entry>,
}

impl Game for AbandonShip {
    type Action = Action;
    type View = AbandonView;
    const NAME: &'static str = "abandon-ship";
    /// Hand after hand of the same set to the same players: the next one is keyed and shuffled
    /// during this one, from protocol version 9 (PROTOCOL.md §5.9).
    const SHUFFLES_AHEAD: bool = true;
    const SHUFFLES_AHEAD_SINCE: u8 = 9;

    fn to_act(&self) -> ToAct {
        if !self.pending.is_empty() {
            return ToAct::Chance(self.pending.clone());
        }
        match self.phase {
            Phase::Play => ToAct::Seat(self.turn),
            Phase::Fight => ToAct::Seat(self.fight.as_ref().expect("a fight").to_answer()),
            Phase::Key => ToAct::Sealed(
                self.key_seats()
                    .into_iter()
                    .filter(|s| !self.keys.contains_key(s))
                    .collect(),
            ),
            Phase::Done => ToAct::Terminal,
            Phase::Deal | Phase::Draw | Phase::Discard | Phase::Spoils | Phase::Show => {
                unreachable!("chance is pending in these phases")
            }
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if !self.pending.is_empty() || !self.to_act().includes(seat) {
            return Vec::new();
        }
        let hand = &self.hands[&seat];
        let playable = |over: Option<CardId>| -> Vec<u16> {
            hand.iter()
                .filter(|h| {
                    h.card
                        .is_some_and(|c| self.playable(c, hand.len(), over).is_ok())
                })
                .map(|h| h.position)
                .collect()
        };
        let mut v: Vec<Action> = match self.phase {
            Phase::Play => {
                let mut v = Vec::new();
                let targets = self.targets(seat);
                for position in playable(None) {
                    v.push(Action::Discard { position });
                    for target in &targets {
                        v.push(Action::Fight {
                            position,
                            target: *target,
                        });
                    }
                }
                v
            }
            Phase::Fight => {
                let top = self.fight.as_ref().and_then(Fight::top);
                let mut v: Vec<Action> = playable(top)
                    .into_iter()
                    .map(|position| Action::Raise { position })
                    .collect();
                v.push(Action::Surrender);
                v
            }
            Phase::Key => hand
                .iter()
                .map(|h| Action::Key {
                    position: h.position,
                })
                .collect(),
            _ => Vec::new(),
        };
        v.sort_unstable();
        v
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = self.legal_actions(seat);
        let other = self
            .table()
            .into_iter()
            .find(|s| *s != seat)
            .and_then(|s| self.hands[&s].first())
            .map(|h| h.position)
            .unwrap_or(0);
        for position in [other, self.next_position, self.setup.deck_size() + 3] {
            v.push(Action::Discard { position });
            v.push(Action::Raise { position });
            v.push(Action::Key { position });
            v.push(Action::Fight {
                position,
                target: seat,
            });
        }
        if let Some(h) = self.hands.get(&seat).and_then(|h| h.first()) {
            v.push(Action::Fight {
                position: h.position,
                target: seat,
            });
            v.push(Action::Fight {
                position: h.position,
                target: self.setup.players,
            });
        }
        v.push(Action::Surrender);
        v
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        if self.phase == Phase::Done {
            return Err(RuleError::Finished);
        }
        if !self.pending.is_empty() || !self.to_act().includes(seat) {
            return Err(RuleError::OutOfTurn {
                seat,
                expected: match self.to_act() {
                    ToAct::Seat(s) => format!("seat {s} to move"),
                    ToAct::Sealed(v) => format!("{} players to choose a Key Card", v.len()),
                    _ => "the cards".into(),
                },
            });
        }
        let own = |position: u16| {
            self.held(seat, position)
                .copied()
                .ok_or_else(|| illegal(seat, "that card is not in your hand"))
        };
        let left = self.hands[&seat].len();
        // A card this client knows is checked now; one it cannot see is checked when shown.
        let check = |h: Held, over: Option<CardId>| match h.card {
            Some(c) => self.playable(c, left, over).map_err(|e| illegal(seat, &e)),
            None => Ok(()),
        };
        match (self.phase, *action) {
            (Phase::Play, Action::Discard { position }) => {
                check(own(position)?, None)?;
                self.phase = Phase::Discard;
                self.pending.push(ChanceRequest::Reveal {
                    deck: self.deck(),
                    position,
                });
            }
            (Phase::Play, Action::Fight { position, target }) => {
                let h = own(position)?;
                if !self.targets(seat).contains(&target) {
                    return Err(illegal(
                        seat,
                        "a fight is picked against another player holding cards",
                    ));
                }
                check(h, None)?;
                self.take(seat, position);
                self.fight = Some(Fight {
                    attacker: seat,
                    defender: target,
                    plays: vec![Play {
                        seat,
                        position,
                        card: h.card,
                        shown: false,
                    }],
                    winner: None,
                    drawn: None,
                });
                self.phase = Phase::Fight;
                self.pending.push(ChanceRequest::Reveal {
                    deck: self.deck(),
                    position,
                });
            }
            (Phase::Fight, Action::Raise { position }) => {
                let h = own(position)?;
                check(h, self.fight.as_ref().and_then(Fight::top))?;
                self.take(seat, position);
                self.fight.as_mut().expect("a fight").plays.push(Play {
                    seat,
                    position,
                    card: h.card,
                    shown: false,
                });
                self.pending.push(ChanceRequest::Reveal {
                    deck: self.deck(),
                    position,
                });
            }
            (Phase::Fight, Action::Surrender) => {
                self.log.push(Entry::Surrendered { seat });
                let f = self.fight.as_ref().expect("a fight");
                let winner = if seat == f.attacker {
                    f.defender
                } else {
                    f.attacker
                };
                self.end_fight(winner);
            }
            (Phase::Key, Action::Key { position }) => {
                own(position)?;
                self.keys.insert(seat, position);
                if self.keys.len() == self.key_seats().len() {
                    self.all_keyed();
                }
            }
            (Phase::Play, _) => {
                return Err(illegal(
                    seat,
                    "on your turn you discard a card or pick a fight",
                ))
            }
            (Phase::Fight, _) => {
                return Err(illegal(
                    seat,
                    "in a fight you answer with a higher card or surrender",
                ))
            }
            _ => return Err(illegal(seat, "at the showdown you choose a Key Card")),
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        let spec = self.setup.spec();
        crate::engine::check_chance_batch(&self.pending, outcomes, |_, o| {
            crate::engine::check_cards(o, &spec, |p| self.known(p))
        })?;
        let pending = std::mem::take(&mut self.pending);
        let card_hands::Brought { opened, rolled } =
            card_hands::take(&mut self.hands, &pending, outcomes);
        match self.phase {
            Phase::Deal => self.begin_turn(self.dealer),
            Phase::Draw => {
                let count = pending.len() as u8;
                self.log.push(Entry::Drew {
                    seat: self.turn,
                    count,
                });
                if self.deck_left() == 0 {
                    // § On your turn: drawing the last card sinks the ship at once.
                    self.sink(self.turn);
                } else {
                    self.phase = Phase::Play;
                }
            }
            Phase::Discard => {
                let f = opened[0];
                let seat = self.turn;
                let left = self.hands[&seat].len();
                if let Err(why) = self.playable(f.card, left, None) {
                    self.misplayed(seat, f.card, why);
                    return Ok(());
                }
                self.take(seat, f.position);
                self.lifeboats[suit(f.card) as usize].push(f);
                self.log.push(Entry::Discarded { seat, card: f.card });
                self.next_turn();
            }
            Phase::Fight => {
                let f = opened[0];
                if let Some(p) = self
                    .fight
                    .as_mut()
                    .and_then(|x| x.plays.last_mut())
                    .filter(|p| p.position == f.position)
                {
                    p.card = Some(f.card);
                    p.shown = true;
                }
                self.shown_fight_card();
            }
            Phase::Spoils => {
                if let Some(v) = rolled {
                    let mut hand: Vec<u16> = self.hands[&self.loser()]
                        .iter()
                        .map(|h| h.position)
                        .collect();
                    hand.sort_unstable();
                    self.draw_spoils(hand[usize::from(v - 1)]);
                } else {
                    let f = opened[0];
                    let loser = self.loser();
                    let winner = self.fight.as_ref().and_then(|x| x.winner).expect("won");
                    self.take(loser, f.position);
                    self.boards.get_mut(&winner).expect("a player").push(f);
                    self.log.push(Entry::Took {
                        winner,
                        loser,
                        card: f.card,
                    });
                    self.next_turn();
                }
            }
            Phase::Show => {
                for f in opened {
                    for h in self.hands.values_mut().flatten() {
                        if h.position == f.position {
                            h.card = Some(f.card);
                        }
                    }
                }
                self.hands_shown = true;
                self.score();
            }
            Phase::Play | Phase::Key | Phase::Done => unreachable!("no chance in this phase"),
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> AbandonView {
        AbandonView {
            viewer,
            round: self.round,
            dealer: self.dealer,
            turn: self.turn,
            phase: self.phase,
            target: self.setup.target,
            rounds: self.setup.rounds,
            scores: self
                .table()
                .iter()
                .map(|s| (*s, self.scores[usize::from(*s)]))
                .collect(),
            removed: self.removed.clone(),
            hands: self
                .hands
                .iter()
                .map(|(s, h)| {
                    let seen = viewer == Some(*s) || self.hands_shown;
                    let cards = h.iter().map(|c| if seen { c.card } else { None }).collect();
                    (*s, cards)
                })
                .collect(),
            mine: card_hands::own(&self.hands, viewer),
            boards: self
                .boards
                .iter()
                .map(|(s, b)| (*s, b.iter().map(|f| f.card).collect()))
                .collect(),
            lifeboats: self
                .lifeboats
                .iter()
                .map(|b| b.iter().map(|f| f.card).collect())
                .collect(),
            fight: self.fight.as_ref().map(|f| Fight {
                plays: f
                    .plays
                    .iter()
                    .map(|p| Play {
                        card: if viewer == Some(p.seat) || p.shown {
                            p.card
                        } else {
                            None
                        },
                        ..*p
                    })
                    .collect(),
                ..f.clone()
            }),
            keys: self.shown_keys.iter().map(|(s, p)| (*s, *p)).collect(),
            deck_left: self.deck_left(),
            to_act: match self.to_act() {
                ToAct::Sealed(_) => self.key_seats(),
                ToAct::Seat(s) => vec![s],
                _ => Vec::new(),
            },
            legal: viewer.map(|v| self.legal_actions(v)).unwrap_or_default(),
            winners: self.winners.clone(),
            log: self.log.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        if !self.pending.is_empty() || !self.to_act().includes(seat) {
            return None;
        }
        let first = self.hands[&seat].iter().map(|h| h.position).min()?;
        match self.phase {
            Phase::Play => Some(Action::Discard { position: first }),
            Phase::Fight => Some(Action::Surrender),
            Phase::Key => Some(Action::Key { position: first }),
            _ => None,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        let done = self.phase == Phase::Done;
        crate::engine::shared_win_outcome(done, &self.table(), &self.winners, &self.removed)
    }

    fn check_invariants(&self) -> Result<(), String> {
        if self.phase == Phase::Done {
            return Ok(());
        }
        // Every card of the deck is in exactly one place.
        let mut positions: Vec<u16> = self
            .hands
            .values()
            .flatten()
            .map(|h| h.position)
            .chain(self.boards.values().flatten().map(|f| f.position))
            .chain(self.lifeboats.iter().flatten().map(|f| f.position))
            .chain(
                self.fight
                    .iter()
                    .filter(|f| f.winner.is_none())
                    .flat_map(|f| f.plays.iter().map(|p| p.position)),
            )
            .collect();
        let placed = positions.len();
        positions.sort_unstable();
        positions.dedup();
        if positions.len() != placed {
            return Err("one card is in two places".into());
        }
        if positions.iter().any(|p| *p >= self.next_position) {
            return Err("a card not yet drawn is in play".into());
        }
        let dealt = self.table().len() as u16 * HAND as u16;
        let aside = self.setup.aside();
        if positions.iter().any(|p| (dealt..dealt + aside).contains(p)) {
            return Err("a card set aside is in play".into());
        }
        if placed + usize::from(aside) + usize::from(self.deck_left())
            != usize::from(self.setup.deck_size())
        {
            return Err(format!(
                "{placed} cards placed, {aside} aside and {} in the deck do not make the deck",
                self.deck_left()
            ));
        }
        if self.hands.values().any(|h| h.len() > HAND) {
            return Err("a hand holds more than five cards".into());
        }
        for (i, boat) in self.lifeboats.iter().enumerate() {
            if boat.iter().any(|f| suit(f.card) as usize != i) {
                return Err("a card is in another suit's lifeboat".into());
            }
        }
        // Points are only ever won from lifeboats: the scores add up to the boats boarded.
        let boarded: i64 = self
            .log
            .iter()
            .filter_map(|e| match e {
                Entry::Boarded {
                    points,
                    seat: Some(_),
                    ..
                } => Some(*points),
                _ => None,
            })
            .sum();
        if boarded != self.scores.iter().sum::<i64>() {
            return Err("the scores do not add up to the lifeboats boarded".into());
        }
        if self.scores.iter().any(|s| *s < 0) {
            return Err("a negative score".into());
        }
        Ok(())
    }

    fn seats(&self) -> Vec<Seat> {
        crate::engine::playing(self.setup.players, &self.removed)
    }

    fn participants(&self) -> Vec<Seat> {
        crate::engine::participants(self.phase == Phase::Done, self.seats())
    }

    fn forfeit(&mut self, offenders: &[Seat], reason: ForfeitReason) -> Result<(), RuleError> {
        // § Forfeits: the round's deck dies with the offender's key share; the game ends.
        let done = self.phase == Phase::Done;
        crate::engine::record_forfeit(done, &self.seats(), offenders, &mut self.log, |seat| {
            Entry::Forfeited { seat, reason }
        })?;
        crate::engine::add_removed(&mut self.removed, offenders);
        self.keys.clear();
        self.pending.clear();
        self.phase = Phase::Done;
        self.winners.clear();
        Ok(())
    }
}
