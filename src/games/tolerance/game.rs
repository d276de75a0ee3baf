//! The Game of Tolerance at a table: hands one after another until the table ends. This is the
//! [`Game`] a networked table runs; [`Hand`] is one hand of it (and the game of bots, scripts
//! and simulations of a single hand).
//!
//! Before each hand the table itself asks for the hand's deck (deck id = hand number), and in
//! hand 0 also for the die that picks the first Dealer (rules §Dealer: by lot), so nobody
//! chooses who deals first. The hand then asks for its deals; its own shuffle request is
//! answered by the deck the table already shuffled.
//!
//! From protocol version 11 a hand that ends at a showdown nobody can bust at, with a hand to
//! follow, asks for the next hand's deck and deals in the showdown's own batch
//! ([`DEALT_AHEAD`]): once the betting is over no decision of this hand is left that the next
//! hand's cards could inform, and the showdown already waits for every seat, so the deal costs
//! no pass of its own (PROTOCOL.md §5.8).

use super::hand::{Action, Hand, HandResult, HandSetup, LogEntry, Phase};
use super::table::{ForfeitSeat, Table};
use super::variant::Variant;
use super::view::HandView;
use crate::cards::{CardId, DeckSpec};
use crate::engine::{
    ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat, ToAct,
};
use serde::{Deserialize, Serialize};

/// The first protocol version whose tables deal the next hand with the showdown.
pub const DEALS_WITH_SHOWDOWN_SINCE: u8 = 11;

/// Whether a table of protocol version `v` deals the next hand with the showdown.
pub fn deals_with_showdown_at(v: u8) -> bool {
    v >= DEALS_WITH_SHOWDOWN_SINCE
}

/// A setup read without a version plays as this build's tables do.
pub fn deals_with_showdown_now() -> bool {
    deals_with_showdown_at(crate::wire::VERSION)
}

/// The deck id of hand `k` dealt with the showdown before it is `DEALT_AHEAD | k`; a hand dealt
/// in its own batch keeps the hand number. So when a forfeit ends the showdown's batch, the next
/// hand asks for a deck id nobody asked for before (a deck id is shuffled once, PROTOCOL.md
/// §5.2), and every id stays below the table's own spare ids (2³¹).
pub const DEALT_AHEAD: DeckId = 1 << 30;

/// Whether `deck` is the id of a hand's deck dealt with the showdown before it.
pub fn is_dealt_ahead(deck: DeckId) -> bool {
    deck & DEALT_AHEAD != 0 && deck < DEALT_AHEAD << 1
}

/// How one hand ended, for reports and hand histories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSummary {
    pub hand: u64,
    pub dealer: Seat,
    pub players: Vec<Seat>,
    pub result: Option<HandResult>,
    /// Seats that forfeited (withheld a step, equivocated, left) and why; the words are the
    /// reader's (a player reads what happened, `verify` the protocol's terms).
    pub forfeits: Vec<(Seat, ForfeitReason)>,
    pub final_stacks: Vec<(Seat, u64)>,
    /// Cards opened to everyone at showdown, by seat; nothing else is ever opened publicly.
    #[serde(default)]
    pub shown: Vec<(Seat, Vec<CardId>)>,
    /// The hand's public record (blind, moves, rolls, winnings).
    #[serde(default)]
    pub log: Vec<LogEntry>,
}

impl HandSummary {
    /// The public summary of a finished hand.
    pub fn of(engine: &Hand) -> HandSummary {
        let mut players: Vec<Seat> = engine.players.iter().map(|p| p.seat).collect();
        players.sort_unstable();
        HandSummary {
            hand: engine.hand_no,
            dealer: engine.dealer(),
            players,
            final_stacks: engine.players.iter().map(|p| (p.seat, p.stack)).collect(),
            result: engine.result.clone(),
            forfeits: Vec::new(),
            log: engine.log.clone(),
            shown: engine
                .players
                .iter()
                .filter(|p| p.cards.iter().any(|c| c.revealed))
                .map(|p| {
                    (
                        p.seat,
                        p.cards
                            .iter()
                            .filter(|c| c.revealed)
                            .filter_map(|c| c.card)
                            .collect(),
                    )
                })
                .collect(),
        }
    }

    /// Whether any card of this hand was dealt. The rules close a hand number also when a seat
    /// forfeits before the deal (during the table's shuffle, or between hands): that number is
    /// spent, so deck ids and blind levels stay as every client judges them, but a person
    /// counts only hands that were dealt. Every dealt hand's record opens with its blind.
    pub fn dealt(&self) -> bool {
        !self.log.is_empty()
    }
}

/// A table of Tolerance: its chips, the hand in play and the hands played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tolerance {
    pub table: Table,
    /// Hands to play; `None` plays until the table's style ends it (one player with chips).
    pub hands_limit: Option<u64>,
    pub hand: Option<Hand>,
    /// Every hand played so far, oldest first.
    pub history: Vec<HandSummary>,
    /// Seats at the start, ascending.
    seated: Vec<Seat>,
    /// What each seat that left the table by forfeit took with it.
    departed: Vec<(Seat, u64)>,
    /// Cards of finished hands that this client knew and nobody showed (its own seat's, as a
    /// player): by hand, seat. Never in a view or report others see.
    #[serde(default)]
    known: Vec<(u64, Seat, Vec<CardId>)>,
    /// The table's own chance request before a hand: the deck (and the first Dealer's die).
    pending: Vec<ChanceRequest>,
    /// Protocol version 11 and later: the next hand is dealt with a showdown nobody can bust
    /// at ([`DEALT_AHEAD`]). The table's version says it, not the wire.
    #[serde(default)]
    deals_with_showdown: bool,
}

/// What a seat (or a spectator) sees of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToleranceView {
    pub viewer: Option<Seat>,
    /// By seat number; `None` for an empty seat (never seated, busted or gone).
    pub stacks: Vec<Option<u64>>,
    pub hands_played: u64,
    pub hands_limit: Option<u64>,
    /// The hand in play.
    pub hand: Option<HandView>,
    /// The last hand played.
    pub last: Option<HandSummary>,
    /// The stacks the last hand's seats started it with, by seat: what a seat won or lost is
    /// its final stack less this (a pot's share also holds the seat's own bets).
    pub last_start: Vec<(Seat, u64)>,
    /// Hands dealt so far (`hands_played` also counts hand numbers closed before a deal).
    pub hands_dealt: u64,
}

impl Tolerance {
    /// A table of `players` seats (0..players), each with the variant's starting stack.
    pub fn new(
        variant: Variant,
        players: u8,
        hands_limit: Option<u64>,
    ) -> Result<Tolerance, RuleError> {
        let seats: Vec<(Seat, Option<u64>)> = (0..players).map(|s| (s, None)).collect();
        if !(2..=variant.seats).contains(&players) {
            return Err(RuleError::Setup(format!(
                "this variant seats 2 to {} players, not {players}",
                variant.seats
            )));
        }
        let table = Table::new(variant, &seats, 0).map_err(|e| RuleError::Setup(e.to_string()))?;
        let mut t = Tolerance {
            table,
            hands_limit,
            hand: None,
            history: Vec::new(),
            seated: (0..players).collect(),
            departed: Vec::new(),
            known: Vec::new(),
            pending: Vec::new(),
            deals_with_showdown: deals_with_showdown_now(),
        };
        t.prepare_next();
        Ok(t)
    }

    /// The table dealing the next hand with the showdown (`true`, version 11 on) or in a pass
    /// of its own (older tables).
    pub fn dealing_with_showdown(mut self, on: bool) -> Tolerance {
        self.deals_with_showdown = on;
        self
    }

    /// The next hand, as it would be dealt with the showdown the hand in play is at, when it
    /// is: from version 11, a showdown pending with a hand to follow, no seat sitting out, no
    /// player of the hand all-in, and the next hand's players exactly this hand's. A seat that
    /// came back during this hand (named in one of its setups, so no longer sitting out) is
    /// dealt in only from the next hand: it holds no share of the deck prepared during this
    /// one, so that hand gets a setup and a deck of its own. Then nobody can bust at this
    /// showdown, the deck prepared during this hand is its players', and no decision of this
    /// hand is left that the next hand's cards could inform.
    fn dealt_with_showdown(&self) -> Option<Hand> {
        let hand = self.hand.as_ref()?;
        let next_no = self.table.hands_played + 1;
        let pending_showdown = hand.phase == Phase::Showdown && hand.result.is_none();
        if !self.deals_with_showdown
            || !pending_showdown
            || !self.pending.is_empty()
            || !self.table.sitting_out.is_empty()
            || hand.players.iter().any(|p| p.stack == 0)
            || self.hands_limit.is_some_and(|n| next_no >= n)
            || next_no >= u64::from(DEALT_AHEAD)
        {
            return None;
        }
        let mut after = self.table.clone();
        after.last_dealer = Some(hand.dealer());
        after.hands_played = next_no;
        let next = Self::hand_dealt_ahead(&after).ok()?;
        let sorted = |h: &Hand| {
            let mut v = h.seats();
            v.sort_unstable();
            v
        };
        (sorted(&next) == sorted(hand)).then_some(next)
    }

    /// The next hand `table` sets up, on the deck a showdown deals it from ([`DEALT_AHEAD`]).
    fn hand_dealt_ahead(table: &Table) -> Result<Hand, RuleError> {
        let setup = table
            .next_hand()
            .map_err(|e| RuleError::Setup(e.to_string()))?;
        Hand::new(&HandSetup {
            deck: DEALT_AHEAD | setup.hand_no as DeckId,
            ..setup
        })
    }

    /// Applies a showdown's batch that also deals the next hand: the showdown's outcomes to the
    /// hand, which ends; then the next hand, set up from the stacks it left, takes the rest
    /// (its deck and deals). All or nothing.
    fn apply_showdown_and_deal(
        &mut self,
        next: &Hand,
        outcomes: &[ChanceOutcome],
    ) -> Result<(), RuleError> {
        let asked = match next.to_act() {
            ToAct::Chance(reqs) => reqs,
            _ => Vec::new(),
        };
        let own = self
            .hand
            .as_ref()
            .and_then(Self::hand_chance)
            .map_or(0, |r| r.len());
        if outcomes.len() != own + asked.len() {
            return Err(RuleError::BadChance(format!(
                "{} outcomes for {} requests",
                outcomes.len(),
                own + asked.len()
            )));
        }
        let mut t = self.clone();
        let hand = t.hand.as_mut().expect("a hand at its showdown");
        hand.apply_chance(&outcomes[..own])?;
        t.finish_hand()?;
        let mut hand = Self::hand_dealt_ahead(&t.table)?;
        if hand.to_act() != ToAct::Chance(asked) {
            return Err(RuleError::BadChance(
                "the next hand does not ask for the deal the showdown dealt".into(),
            ));
        }
        hand.apply_chance(&outcomes[own..])?;
        t.hand = Some(hand);
        t.pending.clear();
        *self = t;
        Ok(())
    }

    /// At the table and dealt in (not gone, not sitting out).
    fn present(&self, seat: Seat) -> bool {
        self.table.stacks[seat as usize].is_some() && !self.table.sitting_out.contains(&seat)
    }

    fn over(&self) -> bool {
        self.table.is_over()
            || self
                .hands_limit
                .is_some_and(|n| self.table.hands_played >= n)
    }

    /// Between hands: ask for the next hand's deck, or nothing when the table is over.
    fn prepare_next(&mut self) {
        self.pending.clear();
        if self.hand.is_some() || self.over() {
            return;
        }
        let n = self.table.active_seats().len();
        self.pending.push(ChanceRequest::Shuffle {
            deck: self.table.hands_played as DeckId,
            spec: DeckSpec::standard(self.table.variant.decks_for(n as u8)),
        });
        if self.table.hands_played == 0 {
            self.pending.push(ChanceRequest::RollPublic {
                sides: n.max(2) as u8,
                count: 1,
                by: None,
            });
        }
    }

    /// The hand's pending chance without its own shuffle, which the table already answered.
    fn hand_chance(hand: &Hand) -> Option<Vec<ChanceRequest>> {
        match hand.to_act() {
            ToAct::Chance(reqs) => Some(
                reqs.into_iter()
                    .filter(|r| !matches!(r, ChanceRequest::Shuffle { .. }))
                    .collect(),
            ),
            _ => None,
        }
    }

    fn start_hand(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        let deck = self.table.hands_played as DeckId;
        let bad = |m: String| RuleError::BadChance(m);
        match outcomes.first() {
            Some(ChanceOutcome::Shuffled { deck: d }) if *d == deck => {}
            _ => {
                return Err(bad(format!(
                    "the table's deck {deck} was not shuffled first"
                )))
            }
        }
        let mut table = self.table.clone();
        if table.hands_played == 0 {
            let active: Vec<Seat> = table.active_seats().iter().map(|(s, _)| *s).collect();
            let sides = active.len().max(2) as u8;
            let v = match outcomes.get(1) {
                Some(ChanceOutcome::Rolled { values })
                    if values.len() == 1 && (1..=sides).contains(&values[0]) =>
                {
                    values[0]
                }
                _ => return Err(bad(format!("the first Dealer needs one d{sides} roll"))),
            };
            table.first_dealer = active[(v as usize - 1) % active.len()];
        } else if outcomes.len() != 1 {
            return Err(bad(format!("{} outcomes for one shuffle", outcomes.len())));
        }
        let setup = table
            .next_hand()
            .map_err(|e| RuleError::Setup(e.to_string()))?;
        let hand = Hand::new(&setup)?;
        self.table = table;
        self.hand = Some(hand);
        self.pending.clear();
        Ok(())
    }

    /// Records a finished hand and prepares the next.
    fn finish_hand(&mut self) -> Result<(), RuleError> {
        let Some(hand) = self.hand.take() else {
            return Ok(());
        };
        if hand.phase != Phase::Done {
            self.hand = Some(hand);
            return Ok(());
        }
        self.table
            .record(&hand)
            .map_err(|e| RuleError::Setup(e.to_string()))?;
        self.history.push(HandSummary::of(&hand));
        for p in &hand.players {
            let cards: Vec<CardId> = p.cards.iter().filter_map(|c| c.card).collect();
            if !cards.is_empty() && p.cards.iter().all(|c| !c.revealed) {
                self.known.push((hand.hand_no, p.seat, cards));
            }
        }
        self.prepare_next();
        Ok(())
    }

    /// Stacks of every seat now: the hand's players' chips still in front of them plus what
    /// they put in, or the table's stacks between hands.
    pub fn chips_in_play(&self) -> u64 {
        let mut total = self.table.total_chips();
        if let Some(h) = &self.hand {
            for p in &h.players {
                total -= self.table.stacks[p.seat as usize].unwrap_or(0);
                total += p.stack + p.committed;
            }
        }
        total
    }

    /// What each seat holds now or left with, by seat (the chips it would take home).
    pub fn final_stacks(&self) -> Vec<(Seat, u64)> {
        self.seated
            .iter()
            .map(|s| {
                let now = self.table.stacks[*s as usize]
                    .or_else(|| self.departed.iter().find(|(d, _)| d == s).map(|(_, c)| *c))
                    .unwrap_or(0);
                (*s, now)
            })
            .collect()
    }
}

impl Game for Tolerance {
    type Action = Action;
    type View = ToleranceView;
    const NAME: &'static str = "tolerance";

    fn to_act(&self) -> ToAct {
        if !self.pending.is_empty() {
            return ToAct::Chance(self.pending.clone());
        }
        match &self.hand {
            Some(h) => match Self::hand_chance(h) {
                Some(mut reqs) => {
                    if let Some(ToAct::Chance(next)) =
                        self.dealt_with_showdown().map(|n| n.to_act())
                    {
                        reqs.extend(next);
                    }
                    ToAct::Chance(reqs)
                }
                None => h.to_act(),
            },
            None => ToAct::Terminal,
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if !self.pending.is_empty() {
            return Vec::new();
        }
        self.hand
            .as_ref()
            .map(|h| h.legal_actions(seat))
            .unwrap_or_default()
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        if !self.pending.is_empty() {
            return Err(RuleError::OutOfTurn {
                seat,
                expected: "the deck to be shuffled".into(),
            });
        }
        let hand = self.hand.as_mut().ok_or(RuleError::Finished)?;
        hand.apply(seat, action)?;
        self.finish_hand()
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        if !self.pending.is_empty() {
            crate::engine::check_chance_batch(&self.pending, outcomes, |_, _| Ok(()))?;
            return self.start_hand(outcomes);
        }
        if let Some(next) = self.dealt_with_showdown() {
            return self.apply_showdown_and_deal(&next, outcomes);
        }
        let hand = self.hand.as_mut().ok_or_else(|| {
            RuleError::BadChance("no chance request is pending: the table is over".into())
        })?;
        let mut full = Vec::with_capacity(outcomes.len() + 1);
        if let ToAct::Chance(reqs) = hand.to_act() {
            if let Some(ChanceRequest::Shuffle { deck, .. }) = reqs.first() {
                full.push(ChanceOutcome::Shuffled { deck: *deck });
            }
        }
        full.extend_from_slice(outcomes);
        hand.apply_chance(&full)?;
        self.finish_hand()
    }

    fn view(&self, viewer: Option<Seat>) -> ToleranceView {
        ToleranceView {
            viewer,
            stacks: self.table.stacks.clone(),
            hands_played: self.table.hands_played,
            hands_limit: self.hands_limit,
            hand: self.hand.as_ref().map(|h| h.view(viewer)),
            last: self.history.last().cloned(),
            last_start: self
                .history
                .last()
                .map(|h| self.start_stacks(h.hand))
                .unwrap_or_default(),
            hands_dealt: self.hands_dealt(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        self.hand.as_ref()?.timeout_action(seat)
    }

    fn outcome(&self) -> Option<Outcome> {
        if !self.is_terminal() {
            return None;
        }
        let start = self.table.variant.starting_stack as i64;
        let finals = self.final_stacks();
        let best = finals
            .iter()
            .filter(|(s, _)| self.present(*s))
            .map(|(_, c)| *c)
            .max()
            .unwrap_or(0);
        Some(Outcome {
            payoffs: finals
                .iter()
                .map(|(s, c)| (*s, *c as i64 - start))
                .collect(),
            // A seat sitting out keeps its chips but does not win: it was not there.
            winners: finals
                .iter()
                .filter(|(s, c)| *c == best && best > 0 && self.present(*s))
                .map(|(s, _)| *s)
                .collect(),
        })
    }

    fn check_invariants(&self) -> Result<(), String> {
        let held = self.chips_in_play() + self.table.chips_out;
        if held != self.table.chips_in {
            return Err(format!(
                "chips not conserved: {} brought, {held} on the table or taken away",
                self.table.chips_in
            ));
        }
        if let Some(h) = &self.hand {
            h.check_invariants()?;
        }
        Ok(())
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        self.hand
            .as_ref()
            .map(|h| h.probe_actions(seat))
            .unwrap_or_default()
    }

    fn seats(&self) -> Vec<Seat> {
        // Still at the table: a busted tournament player or a forfeiter has left.
        self.seated
            .iter()
            .copied()
            .filter(|s| self.table.stacks[*s as usize].is_some())
            .collect()
    }

    const SITS_OUT: bool = true;
    const SHUFFLES_AHEAD: bool = true;

    fn sitting_out(&self) -> Vec<Seat> {
        self.table.sitting_out.iter().copied().collect()
    }

    fn sit_in(&mut self, seats: &[Seat]) -> Result<(), RuleError> {
        for s in seats {
            if !self.table.sitting_out.contains(s) {
                return Err(crate::engine::illegal(*s, "this seat is not sitting out"));
            }
        }
        if self.is_terminal() && !self.resumes_with(seats) {
            return Err(RuleError::Finished);
        }
        // The hand in play keeps its players: the seat is dealt in when the next hand is set
        // up. Between hands the next deck is asked for again, since its size and its key holders
        // follow the players (the table layer calls this before it starts the next batch).
        for s in seats {
            self.table.sitting_out.remove(s);
        }
        if self.hand.is_none() {
            self.prepare_next();
        }
        Ok(())
    }

    fn resumes_with(&self, seats: &[Seat]) -> bool {
        let hands_left = self.hands_limit.is_none_or(|n| self.table.hands_played < n);
        let with_chips: Vec<Seat> = self.table.with_chips().iter().map(|(s, _)| *s).collect();
        let returning = seats
            .iter()
            .all(|s| self.table.sitting_out.contains(s) && with_chips.contains(s));
        self.hand.is_none()
            && hands_left
            && !seats.is_empty()
            && returning
            && self.table.active_seats().len() + seats.len() >= 2
    }

    fn participants(&self) -> Vec<Seat> {
        match &self.hand {
            // Folded players still hold key shares and dice values for this hand.
            Some(h) => {
                let mut v = h.seats();
                v.sort_unstable();
                v
            }
            None if self.over() => Vec::new(),
            None => self.table.active_seats().iter().map(|(s, _)| *s).collect(),
        }
    }

    fn forfeit(&mut self, offenders: &[Seat], reason: ForfeitReason) -> Result<(), RuleError> {
        if self.is_terminal() {
            return Err(RuleError::Finished);
        }
        // A seat already sitting out has no hand to forfeit.
        let offenders: Vec<Seat> = offenders
            .iter()
            .copied()
            .filter(|s| !self.table.sitting_out.contains(s))
            .collect();
        if offenders.is_empty() {
            return Ok(());
        }
        let offenders = offenders.as_slice();
        let sit_out = reason.sits_out();
        let (players, dealer, hand_no): (Vec<ForfeitSeat>, Seat, u64) = match &self.hand {
            Some(h) => (h.forfeit_seats(), h.dealer(), h.hand_no),
            None => {
                let active = self.table.active_seats();
                // Before the first Dealer is known the lowest seat stands in as the last Dealer.
                let dealer = if self.table.hands_played == 0 {
                    active[0].0
                } else {
                    self.table
                        .next_hand()
                        .map(|s| s.dealer)
                        .unwrap_or(active[0].0)
                };
                let players = active
                    .iter()
                    .map(|(seat, stack)| ForfeitSeat {
                        seat: *seat,
                        start_stack: *stack,
                        committed: 0,
                        folded: false,
                    })
                    .collect();
                (players, dealer, self.table.hands_played)
            }
        };
        for o in offenders {
            if !players.iter().any(|p| p.seat == *o) {
                return Err(RuleError::Setup(format!(
                    "seat {o} is not in the hand it would forfeit"
                )));
            }
        }
        let before: Vec<Option<u64>> = self.table.stacks.clone();
        let finals = self
            .table
            .record_forfeit(hand_no, dealer, &players, offenders, sit_out)
            .map_err(|e| RuleError::Setup(e.to_string()))?;
        for o in offenders.iter().filter(|_| !sit_out) {
            let took = finals
                .iter()
                .find(|(s, _)| s == o)
                .map(|(_, c)| *c)
                .or(before[*o as usize])
                .unwrap_or(0);
            self.departed.push((*o, took));
        }
        let mut players_sorted: Vec<Seat> = players.iter().map(|p| p.seat).collect();
        players_sorted.sort_unstable();
        let (result, log) = match self.hand.take() {
            Some(mut h) => {
                let log = h.log.clone();
                let _ = h.forfeit(offenders, reason);
                (h.result, log)
            }
            None => (None, Vec::new()),
        };
        self.history.push(HandSummary {
            hand: hand_no,
            dealer,
            players: players_sorted,
            result,
            forfeits: offenders.iter().map(|s| (*s, reason)).collect(),
            final_stacks: finals,
            shown: Vec::new(),
            log,
        });
        self.prepare_next();
        Ok(())
    }
}

impl Tolerance {
    /// Hands dealt so far; see [`HandSummary::dealt`] for the hand numbers that were not.
    pub fn hands_dealt(&self) -> u64 {
        self.history.iter().filter(|h| h.dealt()).count() as u64
    }

    /// The stacks each seat at the table had when hand `hand_no` began: its stack after the
    /// last hand before it that it was in, else the starting stack (every seat of this game
    /// starts with it, and chips come and go only by hands).
    pub fn start_stacks(&self, hand_no: u64) -> Vec<(Seat, u64)> {
        self.seated
            .iter()
            .map(|s| {
                let before = self
                    .history
                    .iter()
                    .rev()
                    .filter(|h| h.hand < hand_no)
                    .find_map(|h| h.final_stacks.iter().find(|(x, _)| x == s))
                    .map_or(self.table.variant.starting_stack, |(_, c)| *c);
                (*s, before)
            })
            .collect()
    }

    /// Cards `seat` held in finished hand `hand_no`, when this client knew them and nobody
    /// showed them.
    pub fn known_cards(&self, hand_no: u64, seat: Seat) -> Option<&[CardId]> {
        self.known
            .iter()
            .find(|(h, s, _)| *h == hand_no && *s == seat)
            .map(|(_, _, c)| c.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{simulate, SimOptions};
    use rand::{rngs::StdRng, SeedableRng};

    #[test]
    fn random_tables_pass_the_generic_simulation() {
        let mut rng = StdRng::seed_from_u64(11);
        for (players, hands) in [(2u8, 3u64), (3, 2), (5, 1)] {
            let game = Tolerance::new(Variant::default(), players, Some(hands)).unwrap();
            let opts = SimOptions {
                forfeit_every: Some(7),
                ..SimOptions::default()
            };
            for _ in 0..4 {
                simulate(&game, &mut rng, &opts).unwrap();
            }
        }
    }

    /// Plays `g` on, every seat checking, calling or passing (the first in `raisers` to act
    /// raises all-in once), until the game asks for a batch with a reveal in it: a showdown.
    fn to_the_showdown(
        g: &mut Tolerance,
        oracle: &mut crate::engine::sim::Oracle<StdRng>,
        mut raisers: Vec<Seat>,
    ) -> Vec<ChanceRequest> {
        for _ in 0..500 {
            match g.to_act() {
                ToAct::Chance(reqs)
                    if reqs
                        .iter()
                        .any(|r| matches!(r, ChanceRequest::Reveal { .. })) =>
                {
                    return reqs;
                }
                ToAct::Chance(reqs) => {
                    let outs = crate::engine::sim::fulfil_all(oracle, &reqs).unwrap();
                    g.apply_chance(&outs).unwrap();
                }
                ToAct::Seat(s) => {
                    let legal = g.legal_actions(s);
                    let all_in = legal
                        .iter()
                        .rev()
                        .find(|a| matches!(a, Action::Raise { .. }));
                    let a = match (raisers.iter().position(|r| *r == s), all_in) {
                        (Some(i), Some(a)) => {
                            raisers.remove(i);
                            *a
                        }
                        _ => Action::calm(&legal).expect("check, call or pass"),
                    };
                    g.apply(s, &a).unwrap();
                }
                other => panic!("no showdown: {other:?}"),
            }
        }
        panic!("no showdown within 500 steps")
    }

    fn oracle(seed: u64) -> crate::engine::sim::Oracle<StdRng> {
        crate::engine::sim::Oracle::new(StdRng::seed_from_u64(seed))
    }

    /// From version 11 a showdown nobody can bust at, with a hand to follow, deals that hand in
    /// its own batch: one batch shows this hand's cards and deals the next, whose first decision
    /// follows at once with its blind posted. Older tables, and the table's last hand, ask for
    /// the showdown alone.
    #[test]
    fn a_showdown_nobody_can_bust_at_deals_the_next_hand_in_its_own_batch() {
        let mut g = Tolerance::new(Variant::default(), 3, Some(2)).unwrap();
        let mut o = oracle(5);
        let reqs = to_the_showdown(&mut g, &mut o, vec![]);
        let reveals = reqs
            .iter()
            .take_while(|r| matches!(r, ChanceRequest::Reveal { deck: 0, .. }))
            .count();
        assert_eq!(reveals, 6, "every player still in shows its two cards");
        assert_eq!(
            reqs[reveals],
            ChanceRequest::Shuffle {
                deck: DEALT_AHEAD | 1,
                spec: DeckSpec::standard(1)
            }
        );
        let deals = &reqs[reveals + 1..];
        assert_eq!(deals.len(), 6);
        assert!(deals
            .iter()
            .all(|r| matches!(r, ChanceRequest::Deal { deck, .. } if *deck == DEALT_AHEAD | 1)));
        // The same table before version 11 shows the cards and nothing else.
        let mut old = Tolerance::new(Variant::default(), 3, Some(2))
            .unwrap()
            .dealing_with_showdown(false);
        let old_reqs = to_the_showdown(&mut old, &mut oracle(5), vec![]);
        assert_eq!(old_reqs, reqs[..reveals].to_vec());

        let outs = crate::engine::sim::fulfil_all(&mut o, &reqs).unwrap();
        g.apply_chance(&outs).unwrap();
        g.check_invariants().unwrap();
        assert_eq!(g.history.len(), 1, "the showdown ended hand 0");
        assert!(g.history[0]
            .result
            .as_ref()
            .is_some_and(|r| !r.pots.is_empty()));
        let hand = g.hand.as_ref().expect("hand 1 is dealt");
        assert_eq!((hand.hand_no, hand.deck), (1, DEALT_AHEAD | 1));
        assert!(hand
            .players
            .iter()
            .all(|p| p.cards.len() == 2 && p.cards.iter().all(|c| c.card.is_some())));
        assert_eq!(
            hand.dealer(),
            (g.history[0].dealer + 1) % 3,
            "the button moved on"
        );
        assert!(matches!(
            hand.log.first(),
            Some(LogEntry::Blind { amount: 10, .. })
        ));
        assert!(
            matches!(g.to_act(), ToAct::Seat(_)),
            "the first decision follows at once"
        );

        // Hand 1's showdown is the table's last: nothing is dealt with it.
        let reqs = to_the_showdown(&mut g, &mut o, vec![]);
        assert!(reqs
            .iter()
            .all(|r| matches!(r, ChanceRequest::Reveal { deck, .. } if *deck == DEALT_AHEAD | 1)));
        let outs = crate::engine::sim::fulfil_all(&mut o, &reqs).unwrap();
        g.apply_chance(&outs).unwrap();
        assert!(g.is_terminal());
        assert_eq!(g.history.len(), 2);
    }

    /// A player all-in may bust at the showdown, a seat sitting out comes back in a setup, and
    /// a seat that came back during the hand joins at the next: either way the next hand's
    /// players are not this hand's, and it is dealt in a batch of its own.
    #[test]
    fn an_all_in_player_or_a_seat_sitting_out_keeps_the_next_deal_apart() {
        let mut g = Tolerance::new(Variant::default(), 3, None).unwrap();
        let mut o = oracle(9);
        let first = to_the_showdown(&mut g, &mut o, vec![]);
        let outs = crate::engine::sim::fulfil_all(&mut o, &first).unwrap();
        g.apply_chance(&outs).unwrap();
        // Hand 1: its Starter goes all-in and the others call.
        let starter = g.hand.as_ref().unwrap().starter();
        let reqs = to_the_showdown(&mut g, &mut o, vec![starter]);
        assert!(g
            .hand
            .as_ref()
            .unwrap()
            .players
            .iter()
            .any(|p| p.stack == 0));
        assert!(
            reqs.iter()
                .all(|r| matches!(r, ChanceRequest::Reveal { .. })),
            "{reqs:?}"
        );

        // A seat sitting out: no deal with the showdown until it is dealt in again.
        let mut g = Tolerance::new(Variant::default(), 3, None).unwrap();
        g.forfeit(&[2], ForfeitReason::Withheld).unwrap();
        let mut o = oracle(10);
        let reqs = to_the_showdown(&mut g, &mut o, vec![]);
        assert!(reqs
            .iter()
            .all(|r| matches!(r, ChanceRequest::Reveal { .. })));

        // A seat that comes back during a hand sits out no more, but is dealt in only from the
        // next hand, and holds no share of the deck prepared during this one: no deal with this
        // showdown either. (Dealt one, its client found its cards on a deck it holds no key of.)
        let mut g = Tolerance::new(Variant::default(), 3, None).unwrap();
        g.forfeit(&[2], ForfeitReason::Withheld).unwrap();
        let mut o = oracle(11);
        let ToAct::Chance(reqs) = g.to_act() else {
            panic!("the next hand's deck")
        };
        let outs = crate::engine::sim::fulfil_all(&mut o, &reqs).unwrap();
        g.apply_chance(&outs).unwrap();
        assert_eq!(g.hand.as_ref().unwrap().seats().len(), 2);
        g.sit_in(&[2]).unwrap();
        assert!(g.sitting_out().is_empty());
        let reqs = to_the_showdown(&mut g, &mut o, vec![]);
        assert!(
            reqs.iter()
                .all(|r| matches!(r, ChanceRequest::Reveal { .. })),
            "{reqs:?}"
        );
        let outs = crate::engine::sim::fulfil_all(&mut o, &reqs).unwrap();
        g.apply_chance(&outs).unwrap();
        assert_eq!(
            g.participants(),
            vec![0, 1, 2],
            "dealt in from the next hand"
        );
        assert!(matches!(
            g.to_act(),
            ToAct::Chance(r) if matches!(r[0], ChanceRequest::Shuffle { deck: 2, .. })
        ));
    }

    /// A seat that withholds its part of a showdown that deals the next hand forfeits this
    /// hand as at any showdown; the deck asked for the next hand is dead with its key share, so
    /// the next hand asks for a deck under an id nobody asked for before.
    #[test]
    fn a_forfeit_at_a_showdown_that_deals_asks_for_a_new_deck_id() {
        let mut g = Tolerance::new(Variant::default(), 3, None).unwrap();
        let mut o = oracle(12);
        let reqs = to_the_showdown(&mut g, &mut o, vec![]);
        assert!(reqs.contains(&ChanceRequest::Shuffle {
            deck: DEALT_AHEAD | 1,
            spec: DeckSpec::standard(1)
        }));
        g.forfeit(&[1], ForfeitReason::Withheld).unwrap();
        g.check_invariants().unwrap();
        assert_eq!(g.history.len(), 1);
        assert_eq!(g.history[0].forfeits, vec![(1, ForfeitReason::Withheld)]);
        assert_eq!(
            g.to_act(),
            ToAct::Chance(vec![ChanceRequest::Shuffle {
                deck: 1,
                spec: DeckSpec::standard(1)
            }])
        );
    }

    #[test]
    fn the_first_dealer_comes_from_the_die() {
        let mut g = Tolerance::new(Variant::default(), 3, Some(1)).unwrap();
        let ToAct::Chance(reqs) = g.to_act() else {
            panic!("a table starts with its deck")
        };
        assert!(matches!(reqs[0], ChanceRequest::Shuffle { deck: 0, .. }));
        assert!(matches!(
            reqs[1],
            ChanceRequest::RollPublic { sides: 3, .. }
        ));
        g.apply_chance(&[
            ChanceOutcome::Shuffled { deck: 0 },
            ChanceOutcome::Rolled { values: vec![2] },
        ])
        .unwrap();
        assert_eq!(g.hand.as_ref().unwrap().dealer(), 1);
        // The hand's own shuffle is already answered: next come the deals.
        let ToAct::Chance(deals) = g.to_act() else {
            panic!("deals follow")
        };
        assert!(deals
            .iter()
            .all(|r| matches!(r, ChanceRequest::Deal { deck: 0, .. })));
    }

    #[test]
    fn a_forfeit_before_the_deal_refunds_nothing_and_removes_the_seat() {
        let mut g = Tolerance::new(Variant::default(), 3, None).unwrap();
        g.forfeit(&[2], ForfeitReason::Equivocated).unwrap();
        assert_eq!(g.table.stacks[2], None);
        assert_eq!(g.participants(), vec![0, 1]);
        assert_eq!(g.history[0].forfeits[0].0, 2);
        g.check_invariants().unwrap();
        // The next hand starts on a fresh deck; the lowest seat counts as the last Dealer.
        assert!(matches!(
            g.to_act(),
            ToAct::Chance(r) if r.len() == 1 && matches!(r[0], ChanceRequest::Shuffle { deck: 1, .. })
        ));
        assert_eq!(g.table.next_hand().unwrap().dealer, 1);
    }

    #[test]
    fn a_seat_gone_for_absence_sits_out_with_its_chips_posts_no_blind_and_comes_back() {
        let mut g = Tolerance::new(Variant::default(), 3, None).unwrap();
        g.forfeit(&[2], ForfeitReason::Withheld).unwrap();
        assert_eq!(g.table.stacks[2], Some(1000), "it keeps its chips");
        assert_eq!(g.sitting_out(), vec![2]);
        assert_eq!(g.participants(), vec![0, 1]);
        g.check_invariants().unwrap();
        // The next hand is heads-up: the seat posts no blind and holds no key share.
        let next = g.table.next_hand().unwrap();
        assert_eq!(
            next.seats.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
            vec![0, 1]
        );
        g.sit_in(&[2]).unwrap();
        assert!(g.sitting_out().is_empty());
        assert_eq!(g.participants(), vec![0, 1, 2]);
        assert!(
            g.sit_in(&[2]).is_err(),
            "only a seat sitting out comes back"
        );
        // Heads-up, the other seat sitting out ends the table; the absent seat does not win.
        let mut h = Tolerance::new(Variant::default(), 2, None).unwrap();
        h.forfeit(&[1], ForfeitReason::Left).unwrap();
        assert!(h.is_terminal());
        assert_eq!(h.outcome().unwrap().winners, vec![0]);
    }
}
