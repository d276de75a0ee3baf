//! How a hand is played: the blinds, betting and roll rounds, the showdown, forfeits, and the
//! engine's contract ([`Game`]) over them.

use super::{
    Action, Hand, HandResult, HandSetup, Held, LogEntry, Phase, Player, PotResult, RollRecord,
};
use crate::cards::{DeckSpec, PlayingCard};
use crate::engine::illegal;
use crate::engine::{
    ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat, ToAct,
};
use crate::games::tolerance::table::{settle_forfeit, ForfeitSeat};
use crate::games::tolerance::variant::{Betting, MAX_SEATS};
use crate::games::tolerance::view::HandView;

impl Hand {
    pub fn new(setup: &HandSetup) -> Result<Hand, RuleError> {
        let n = setup.seats.len();
        if !(2..=MAX_SEATS as usize).contains(&n) {
            return Err(RuleError::Setup(format!(
                "a hand needs 2 to 20 players, not {n}"
            )));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (seat, stack) in &setup.seats {
            if *stack == 0 {
                return Err(RuleError::Setup(format!("seat {seat} has no chips")));
            }
            if !seen.insert(*seat) {
                return Err(RuleError::Setup(format!("seat {seat} is listed twice")));
            }
        }
        let r = &setup.rules;
        if r.blind == 0 || !(2..=100).contains(&r.die_sides) || !(1..=4).contains(&r.decks) {
            return Err(RuleError::Setup(format!("bad hand rules {r:?}")));
        }
        let cards_each = if r.card_again { 4 } else { 2 };
        if n * cards_each > 52 * r.decks as usize {
            return Err(RuleError::Setup(format!(
                "{n} players need more than {} decks",
                r.decks
            )));
        }
        let dealer_idx = setup
            .seats
            .iter()
            .position(|(s, _)| *s == setup.dealer)
            .ok_or_else(|| RuleError::Setup(format!("dealer {} is not seated", setup.dealer)))?;
        // Rotate so the Starter (the seat after the Dealer) comes first and the Dealer last.
        let players: Vec<Player> = (0..n)
            .map(|k| {
                let (seat, stack) = setup.seats[(dealer_idx + 1 + k) % n];
                Player {
                    seat,
                    start_stack: stack,
                    stack,
                    bet: 0,
                    committed: 0,
                    folded: false,
                    acted: false,
                    acted_level: 0,
                    cards: Vec::with_capacity(cards_each),
                    rolls: Vec::new(),
                }
            })
            .collect();
        let mut hand = Hand {
            rules: *r,
            hand_no: setup.hand_no,
            deck: setup.deck,
            players,
            phase: Phase::Deal,
            actor: 0,
            current_bet: 0,
            min_raise: r.blind,
            bets_this_round: 0,
            next_position: 0,
            pending: Vec::with_capacity(1 + 2 * n),
            log: Vec::new(),
            result: None,
        };
        // Steps 1–2 of the seed: shuffle, then two face-down cards each, clockwise from the Starter.
        hand.pending.push(ChanceRequest::Shuffle {
            deck: hand.deck(),
            spec: DeckSpec::standard(r.decks),
        });
        for _ in 0..2 {
            hand.queue_deals();
        }
        // Step 3: the Starter's blind is forced (all-in for less when short; rules §Blind).
        let p = &mut hand.players[0];
        let amount = r.blind.min(p.stack);
        p.stack -= amount;
        p.bet = amount;
        p.committed = amount;
        hand.log.push(LogEntry::Blind {
            seat: p.seat,
            amount,
        });
        Ok(hand)
    }

    /// One face-down card to each player still in, clockwise from the Starter.
    fn queue_deals(&mut self) {
        for i in 0..self.players.len() {
            if self.players[i].folded {
                continue;
            }
            let position = self.next_position;
            self.next_position += 1;
            self.pending.push(ChanceRequest::deal(
                self.deck(),
                position,
                self.players[i].seat,
            ));
        }
    }

    /// The hand's deck: one per hand ([`HandSetup::deck`]).
    pub fn deck(&self) -> DeckId {
        self.deck
    }

    pub fn player(&self, seat: Seat) -> Option<&Player> {
        self.players.iter().find(|p| p.seat == seat)
    }

    pub fn starter(&self) -> Seat {
        self.players[0].seat
    }

    pub fn dealer(&self) -> Seat {
        self.players[self.players.len() - 1].seat
    }

    pub fn pot_total(&self) -> u64 {
        self.players.iter().map(|p| p.committed).sum()
    }

    fn in_hand(&self) -> usize {
        self.players.iter().filter(|p| !p.folded).count()
    }

    /// Chips a player must add to call, and the raise window `(min_to, max_to)` if it may raise.
    fn bet_options(&self, i: usize) -> (u64, Option<(u64, u64)>) {
        let p = &self.players[i];
        let to_call = self.current_bet - p.bet;
        let all_in_to = p.bet + p.stack;
        let someone_to_raise = self
            .players
            .iter()
            .enumerate()
            .any(|(j, q)| j != i && q.can_bet());
        // Rules §Minimum raise: an all-in for less than a full raise does not re-open the betting
        // for a player who has already acted.
        let reopened = !p.acted || self.current_bet - p.acted_level >= self.min_raise;
        let capped = matches!(self.rules.betting, Betting::FixedLimit { cap } if self.bets_this_round >= cap);
        if p.stack <= to_call || !someone_to_raise || !reopened || capped {
            return (to_call, None);
        }
        let (min_to, max_to) = match self.rules.betting {
            Betting::NoLimit => (self.current_bet + self.min_raise, all_in_to),
            Betting::PotLimit => {
                let min_to = self.current_bet + self.min_raise;
                let pot_to = self.current_bet + self.pot_total() + to_call;
                (min_to, pot_to.max(min_to).min(all_in_to))
            }
            Betting::FixedLimit { .. } => {
                let to = self.current_bet + self.fixed_size();
                (to, to.min(all_in_to))
            }
        };
        if min_to > all_in_to {
            // Only an all-in for less than a full raise remains.
            (to_call, Some((all_in_to, all_in_to)))
        } else {
            (to_call, Some((min_to, max_to)))
        }
    }

    /// Fixed-limit bet size: one blind in betting rounds 1–2, two in round 3.
    fn fixed_size(&self) -> u64 {
        match self.phase {
            Phase::Bet(2) => 2 * self.rules.blind,
            _ => self.rules.blind,
        }
    }

    fn actor_seat(&self) -> Option<Seat> {
        match self.phase {
            Phase::Bet(_) | Phase::Roll(_) if self.pending.is_empty() => {
                Some(self.players[self.actor].seat)
            }
            _ => None,
        }
    }

    fn check_turn(&self, seat: Seat) -> Result<usize, RuleError> {
        if self.phase == Phase::Done {
            return Err(RuleError::Finished);
        }
        match self.actor_seat() {
            Some(s) if s == seat => Ok(self.actor),
            _ => Err(RuleError::OutOfTurn {
                seat,
                expected: self.to_act().words(),
            }),
        }
    }

    fn validate(&self, seat: Seat, action: &Action) -> Result<usize, RuleError> {
        let i = self.check_turn(seat)?;
        match (self.phase, *action) {
            (Phase::Bet(_), Action::Fold | Action::Check | Action::Call | Action::Raise { .. }) => {
                let (to_call, window) = self.bet_options(i);
                match *action {
                    Action::Check if to_call > 0 => Err(illegal(
                        seat,
                        format!("{to_call} to call: call, raise or fold"),
                    )),
                    Action::Call if to_call == 0 => Err(illegal(seat, "nothing to call: check")),
                    Action::Raise { to } => match window {
                        None => Err(illegal(seat, "raising is not open to you now")),
                        Some((min_to, max_to)) if to < min_to || to > max_to => Err(illegal(
                            seat,
                            format!("raise to {to} is outside {min_to}..={max_to}"),
                        )),
                        Some(_) => Ok(i),
                    },
                    _ => Ok(i),
                }
            }
            (Phase::Roll(_), Action::Pass) => Ok(i),
            (Phase::Roll(_), Action::Roll { target }) => {
                if (1..=self.rules.die_sides).contains(&target) {
                    Ok(i)
                } else {
                    Err(illegal(
                        seat,
                        format!(
                            "Tolerance number {target} is outside 1..={}",
                            self.rules.die_sides
                        ),
                    ))
                }
            }
            (phase, _) => Err(illegal(
                seat,
                match phase {
                    Phase::Bet(_) => "a betting round: check, call, bet, raise or fold",
                    Phase::Roll(_) => "a roll round: roll or pass",
                    _ => "no move is asked of anyone now",
                },
            )),
        }
    }

    // ---- phase machinery -------------------------------------------------------------------

    fn start_betting(&mut self, round: u8) {
        self.phase = Phase::Bet(round);
        if round == 0 {
            // The blind is the opening bet (rules §Blind): others must meet the full blind even
            // when a short Starter posted less.
            self.current_bet = self.rules.blind;
            self.bets_this_round = 1;
        } else {
            self.current_bet = 0;
            self.bets_this_round = 0;
            for p in &mut self.players {
                p.bet = 0;
            }
        }
        self.min_raise = if matches!(self.rules.betting, Betting::FixedLimit { .. }) {
            self.fixed_size()
        } else {
            self.rules.blind
        };
        for p in &mut self.players {
            p.acted = false;
            p.acted_level = 0;
        }
        match self.next_to_bet(self.players.len() - 1) {
            Some(i) => self.actor = i,
            None => self.end_betting_round(round),
        }
    }

    /// The next player after `from` (clockwise) who still has to act this betting round.
    fn next_to_bet(&self, from: usize) -> Option<usize> {
        let n = self.players.len();
        let bettors = self.players.iter().filter(|p| p.can_bet()).count();
        (1..=n).map(|k| (from + k) % n).find(|&j| {
            let q = &self.players[j];
            // A lone player with chips left, already matching the bet, has nobody to bet against
            // (rules §All-in).
            q.can_bet() && (q.bet < self.current_bet || (!q.acted && bettors >= 2))
        })
    }

    fn end_betting_round(&mut self, round: u8) {
        if round < 2 {
            self.start_rolls(round);
        } else {
            self.start_showdown();
        }
    }

    fn start_rolls(&mut self, round: u8) {
        self.phase = Phase::Roll(round);
        // Everyone still in rolls, all-in players included (rules §All-in).
        self.actor = self
            .players
            .iter()
            .position(|p| !p.folded)
            .expect("two players in");
    }

    fn after_roll_turn(&mut self, round: u8) {
        let n = self.players.len();
        match (self.actor + 1..n).find(|&j| !self.players[j].folded) {
            Some(j) => self.actor = j,
            None if self.rules.card_again => {
                self.phase = Phase::CardAgain(round);
                self.queue_deals();
            }
            None => self.start_betting(round + 1),
        }
    }

    fn start_showdown(&mut self) {
        self.phase = Phase::Showdown;
        for p in &self.players {
            if !p.folded {
                for h in &p.cards {
                    self.pending.push(ChanceRequest::Reveal {
                        deck: self.deck,
                        position: h.position,
                    });
                }
            }
        }
    }

    // ---- scoring and pots --------------------------------------------------------------------

    /// Points of a player whose cards this client knows: card values (A 1 … K 13), roll gains
    /// and losses, and Super Ace upgrades (rules §Super Ace).
    pub fn points(&self, p: &Player) -> Option<i64> {
        let mut total = p.roll_delta();
        let mut aces_by_round = [0i64; 3];
        for h in &p.cards {
            let card = PlayingCard::from_id(h.card?);
            total += card.rank as i64;
            if card.rank == 1 {
                aces_by_round[h.dealt_after_rolls.min(2) as usize] += 1;
            }
        }
        if self.rules.super_ace {
            // Each roll at the top face that succeeds upgrades one Ace held at that moment.
            let mut available = 0i64;
            let mut upgraded = 0i64;
            for round in 0..2u8 {
                available += aces_by_round[round as usize];
                for r in p.rolls.iter().filter(|r| r.round == round) {
                    if r.target == self.rules.die_sides
                        && r.die == self.rules.die_sides
                        && upgraded < available
                    {
                        upgraded += 1;
                    }
                }
            }
            total += 13 * upgraded;
        }
        Some(total)
    }

    fn settle(&mut self, uncontested: bool) {
        let n = self.players.len();
        // Uncontested hands show no cards, so no client but the winner could know its points.
        let points: Vec<Option<i64>> = self
            .players
            .iter()
            .map(|p| {
                if p.folded || uncontested {
                    None
                } else {
                    self.points(p)
                }
            })
            .collect();
        let mut won = vec![0u64; n];
        let mut pots = Vec::new();
        // Side pots (rules §Side pots): one tier per distinct contribution level.
        let mut levels: Vec<u64> = self.players.iter().map(|p| p.committed).collect();
        levels.sort_unstable();
        levels.dedup();
        let mut prev = 0u64;
        let mut carry = 0u64;
        let mut tiers: Vec<(u64, Vec<usize>)> = Vec::new();
        for level in levels {
            if level == 0 {
                continue;
            }
            let amount: u64 = self
                .players
                .iter()
                .map(|p| p.committed.min(level) - p.committed.min(prev))
                .sum::<u64>()
                + carry;
            prev = level;
            let eligible: Vec<usize> = (0..n)
                .filter(|&j| !self.players[j].folded && self.players[j].committed >= level)
                .collect();
            if eligible.is_empty() {
                // Only folded money at this level: a player who bet (or posted the blind) and
                // then folded although checking was free. It goes to the pot below.
                carry = amount;
                continue;
            }
            carry = 0;
            // Adjacent tiers contested by the same players are one pot.
            if let Some((last, last_eligible)) = tiers.last_mut() {
                if *last_eligible == eligible {
                    *last += amount;
                    continue;
                }
            }
            tiers.push((amount, eligible));
        }
        // Folded money above every live player's contribution joins the top pot; when no live
        // player put anything in (the blind folded where it could have checked), it is a pot of
        // its own for the players still in the hand.
        match tiers.last_mut() {
            Some(last) => last.0 += carry,
            None if carry > 0 => {
                let live: Vec<usize> = (0..n).filter(|&j| !self.players[j].folded).collect();
                tiers.push((carry, live));
            }
            None => {}
        }
        for (amount, eligible) in tiers {
            let winners: Vec<usize> = if uncontested {
                eligible.clone()
            } else {
                let best = eligible.iter().map(|&j| points[j]).max().flatten();
                eligible
                    .iter()
                    .copied()
                    .filter(|&j| points[j] == best)
                    .collect()
            };
            // Ties split evenly; odd chips one each to the tied winners clockwise from the
            // Starter (rules §Ties). `players` is already in that order.
            let share = amount / winners.len() as u64;
            let odd = amount % winners.len() as u64;
            let mut shares = Vec::with_capacity(winners.len());
            for (k, &j) in winners.iter().enumerate() {
                let s = share + u64::from((k as u64) < odd);
                won[j] += s;
                shares.push((self.players[j].seat, s));
            }
            pots.push(PotResult {
                amount,
                eligible: eligible.iter().map(|&j| self.players[j].seat).collect(),
                winners: winners.iter().map(|&j| self.players[j].seat).collect(),
                shares,
            });
        }
        for (j, p) in self.players.iter_mut().enumerate() {
            p.stack += won[j];
            if won[j] > 0 {
                self.log.push(LogEntry::Won {
                    seat: p.seat,
                    amount: won[j],
                });
            }
        }
        self.result = Some(HandResult {
            uncontested,
            points: self
                .players
                .iter()
                .zip(&points)
                .filter_map(|(p, pt)| pt.map(|v| (p.seat, v)))
                .collect(),
            pots,
            final_stacks: self.players.iter().map(|p| (p.seat, p.stack)).collect(),
            forfeited: Vec::new(),
        });
        self.phase = Phase::Done;
    }

    /// The chips each player put in and whether it folded, clockwise from the Starter: what a
    /// forfeit is settled from.
    pub fn forfeit_seats(&self) -> Vec<ForfeitSeat> {
        self.players
            .iter()
            .map(|p| ForfeitSeat {
                seat: p.seat,
                start_stack: p.start_stack,
                committed: p.committed,
                folded: p.folded,
            })
            .collect()
    }

    /// Beyond the form every batch is checked for ([`ChanceOutcome::answers`]; every request
    /// names this hand's deck): cards of the hand's decks, opened only where a card was dealt,
    /// and as this client was dealt it.
    fn check_outcome(&self, out: &ChanceOutcome) -> Result<(), String> {
        let held = |p: u16| {
            self.players
                .iter()
                .flat_map(|pl| &pl.cards)
                .find(|h| h.position == p)
        };
        if let ChanceOutcome::Revealed { position, .. } = out {
            if held(*position).is_none() {
                return Err(format!("no card was dealt at position {position}"));
            }
        }
        crate::engine::check_cards(out, &DeckSpec::standard(self.rules.decks), |p| {
            held(p).and_then(|h| h.card)
        })
    }
}

impl Game for Hand {
    type Action = Action;
    type View = HandView;
    const NAME: &'static str = "tolerance";

    fn to_act(&self) -> ToAct {
        if !self.pending.is_empty() {
            return ToAct::Chance(self.pending.clone());
        }
        match self.phase {
            Phase::Done => ToAct::Terminal,
            _ => ToAct::Seat(self.players[self.actor].seat),
        }
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        let Ok(i) = self.check_turn(seat) else {
            return Vec::new();
        };
        match self.phase {
            Phase::Bet(_) => {
                let (to_call, window) = self.bet_options(i);
                let mut v = Vec::with_capacity(7);
                if to_call > 0 {
                    v.push(Action::Fold);
                    v.push(Action::Call);
                } else {
                    // As in Texas Hold'em, which the seed names: folding is allowed even when
                    // checking is free (it only gives up the hand).
                    v.push(Action::Fold);
                    v.push(Action::Check);
                }
                if let Some((min_to, max_to)) = window {
                    let pot_after_call = self.pot_total() + to_call;
                    let mut tos = [
                        min_to,
                        self.current_bet + pot_after_call / 2,
                        self.current_bet + pot_after_call,
                        max_to,
                    ];
                    tos.sort_unstable();
                    let mut last = 0;
                    for to in tos {
                        if to >= min_to && to <= max_to && to != last {
                            v.push(Action::Raise { to });
                            last = to;
                        }
                    }
                }
                v
            }
            Phase::Roll(_) => {
                let mut v = Vec::with_capacity(1 + self.rules.die_sides as usize);
                v.push(Action::Pass);
                v.extend((1..=self.rules.die_sides).map(|target| Action::Roll { target }));
                v
            }
            _ => Vec::new(),
        }
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        let i = self.validate(seat, action)?;
        // Validated: from here on nothing fails.
        self.log.push(LogEntry::Act {
            seat,
            action: *action,
        });
        match (self.phase, *action) {
            (Phase::Bet(round), a) => {
                let level = self.current_bet;
                let p = &mut self.players[i];
                match a {
                    Action::Fold => p.folded = true,
                    Action::Check => {}
                    Action::Call => {
                        let put = (level - p.bet).min(p.stack);
                        p.stack -= put;
                        p.bet += put;
                        p.committed += put;
                    }
                    Action::Raise { to } => {
                        let put = to - p.bet;
                        p.stack -= put;
                        p.bet = to;
                        p.committed += put;
                        let increment = to - level;
                        self.current_bet = to;
                        if increment >= self.min_raise {
                            // A full raise re-opens the betting for everyone else.
                            self.min_raise = increment;
                            self.bets_this_round = self.bets_this_round.saturating_add(1);
                            for (j, q) in self.players.iter_mut().enumerate() {
                                if j != i {
                                    q.acted = false;
                                }
                            }
                        }
                    }
                    _ => unreachable!("validated"),
                }
                let level = self.current_bet;
                let p = &mut self.players[i];
                p.acted = true;
                p.acted_level = level;
                if self.in_hand() == 1 {
                    self.settle(true);
                } else {
                    match self.next_to_bet(i) {
                        Some(j) => self.actor = j,
                        None => self.end_betting_round(round),
                    }
                }
            }
            (Phase::Roll(round), Action::Pass) => self.after_roll_turn(round),
            // The Tolerance number waits in the log until the die arrives.
            (Phase::Roll(_), Action::Roll { .. }) => {
                self.pending.push(ChanceRequest::RollPublic {
                    sides: self.rules.die_sides,
                    count: 1,
                    by: Some(seat),
                });
            }
            _ => unreachable!("validated"),
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        crate::engine::check_chance_batch(&self.pending, outcomes, |_, o| self.check_outcome(o))?;
        let pending = std::mem::take(&mut self.pending);
        match self.phase {
            Phase::Deal | Phase::CardAgain(_) => {
                let after = match self.phase {
                    Phase::CardAgain(r) => r + 1,
                    _ => 0,
                };
                for (req, out) in pending.iter().zip(outcomes) {
                    if let (
                        ChanceRequest::Deal { to, .. },
                        ChanceOutcome::Dealt { position, card, .. },
                    ) = (req, out)
                    {
                        let p = self
                            .players
                            .iter_mut()
                            .find(|p| to.first() == Some(&p.seat))
                            .expect("deals go to seated players");
                        p.cards.push(Held {
                            position: *position,
                            card: *card,
                            revealed: false,
                            dealt_after_rolls: after,
                        });
                    }
                }
                self.start_betting(after);
            }
            Phase::Roll(round) => {
                let ChanceOutcome::Rolled { values } = &outcomes[0] else {
                    unreachable!("checked")
                };
                let target = match self.log.last() {
                    Some(LogEntry::Act {
                        action: Action::Roll { target },
                        ..
                    }) => *target,
                    _ => unreachable!("a roll request follows a roll move"),
                };
                let die = values[0];
                let p = &mut self.players[self.actor];
                p.rolls.push(RollRecord { round, target, die });
                let seat = p.seat;
                self.log.push(LogEntry::Rolled { seat, target, die });
                self.after_roll_turn(round);
            }
            Phase::Showdown => {
                for out in outcomes {
                    if let ChanceOutcome::Revealed { position, card, .. } = out {
                        for p in &mut self.players {
                            for h in &mut p.cards {
                                if h.position == *position {
                                    h.card = Some(*card);
                                    h.revealed = true;
                                }
                            }
                        }
                    }
                }
                self.settle(false);
            }
            Phase::Bet(_) | Phase::Done => unreachable!("no chance in this phase"),
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> Self::View {
        HandView::of(self, viewer)
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        let i = self.check_turn(seat).ok()?;
        match self.phase {
            Phase::Bet(_) if self.bet_options(i).0 == 0 => Some(Action::Check),
            Phase::Bet(_) => Some(Action::Fold),
            Phase::Roll(_) => Some(Action::Pass),
            _ => None,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        let r = self.result.as_ref()?;
        Some(Outcome {
            payoffs: self
                .players
                .iter()
                .map(|p| (p.seat, p.stack as i64 - p.start_stack as i64))
                .collect(),
            winners: if r.forfeited.is_empty() {
                let mut w: Vec<Seat> = r.pots.iter().flat_map(|p| p.winners.clone()).collect();
                w.sort_unstable();
                w.dedup();
                w
            } else {
                // A forfeited hand has no showdown: those who gained from it took the pot.
                let mut w: Vec<Seat> = self
                    .players
                    .iter()
                    .filter(|p| p.stack > p.start_stack && !r.forfeited.contains(&p.seat))
                    .map(|p| p.seat)
                    .collect();
                w.sort_unstable();
                w
            },
        })
    }

    fn participants(&self) -> Vec<Seat> {
        // Folded players still hold key shares and dice values; nothing is dealt once done.
        if self.phase == Phase::Done {
            Vec::new()
        } else {
            self.seats()
        }
    }

    fn forfeit(&mut self, offenders: &[Seat], _reason: ForfeitReason) -> Result<(), RuleError> {
        if self.phase == Phase::Done {
            return Err(RuleError::Finished);
        }
        for o in offenders {
            if self.player(*o).is_none() {
                return Err(RuleError::Setup(format!("seat {o} is not in this hand")));
            }
        }
        let finals = settle_forfeit(&self.forfeit_seats(), offenders);
        let mut forfeited = offenders.to_vec();
        forfeited.sort_unstable();
        for p in &mut self.players {
            if let Some((_, stack)) = finals.iter().find(|(s, _)| *s == p.seat) {
                p.stack = *stack;
            }
            p.bet = 0;
        }
        self.pending.clear();
        self.result = Some(HandResult {
            uncontested: false,
            points: Vec::new(),
            pots: Vec::new(),
            final_stacks: finals,
            forfeited,
        });
        self.phase = Phase::Done;
        Ok(())
    }

    fn check_invariants(&self) -> Result<(), String> {
        let start: u64 = self.players.iter().map(|p| p.start_stack).sum();
        let now: u64 = self.players.iter().map(|p| p.stack + p.committed).sum();
        let paid: u64 = self
            .result
            .as_ref()
            .map_or(0, |r| r.pots.iter().map(|p| p.amount).sum());
        let forfeited = self
            .result
            .as_ref()
            .is_some_and(|r| !r.forfeited.is_empty());
        if self.phase == Phase::Done {
            let stacks: u64 = self.players.iter().map(|p| p.stack).sum();
            if stacks != start || (!forfeited && paid != self.pot_total()) {
                return Err(format!(
                    "chips not conserved: start {start}, end {stacks}, pots paid {paid} of {}",
                    self.pot_total()
                ));
            }
        } else if now != start {
            return Err(format!("chips not conserved: start {start}, now {now}"));
        }
        for p in &self.players {
            if p.bet > p.committed || p.committed > p.start_stack {
                return Err(format!("seat {} bet more than it had", p.seat));
            }
        }
        Ok(())
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = vec![
            Action::Fold,
            Action::Check,
            Action::Call,
            Action::Pass,
            Action::Roll { target: 0 },
            Action::Roll { target: 1 },
            Action::Roll {
                target: self.rules.die_sides,
            },
            Action::Roll {
                target: self.rules.die_sides.saturating_add(1),
            },
            Action::Raise { to: 0 },
            Action::Raise {
                to: self.current_bet,
            },
            Action::Raise { to: u64::MAX },
        ];
        if let Some(i) = self.players.iter().position(|p| p.seat == seat) {
            if let (_, Some((lo, hi))) = self.bet_options(i) {
                v.extend([
                    Action::Raise { to: lo - 1 },
                    Action::Raise { to: hi + 1 },
                    Action::Raise { to: (lo + hi) / 2 },
                ]);
            }
        }
        v
    }

    fn seats(&self) -> Vec<Seat> {
        self.players.iter().map(|p| p.seat).collect()
    }
}
