//! Chance sources and the generic simulation harness every game must pass.
//!
//! [`Oracle`] answers chance requests with full information from a seeded RNG (engine-only play,
//! bots, benchmarks); [`Script`] answers them from fixed cards and dice (golden tests, `replay`).
//! In the networked product neither is used: the fair-deck layer answers instead.
//!
//! [`simulate`] plays random legal episodes and checks, at every step, what OpenSpiel's
//! `RandomSimTest` checks plus what a trustless table needs: legal moves sorted and applicable;
//! refused moves leave the state unchanged; serde round trips; the episode ends within a bound;
//! the game's own invariants; and — by running one replica per seat that only receives the
//! outcomes that seat may learn — that every seat's view is identical whether computed from the
//! full state or from that seat's partial state, i.e. no view leaks a card or die its seat does
//! not know, and every client can run the rules on what it knows.

use super::{ChanceOutcome, ChanceRequest, DeckId, ForfeitReason, Game, Outcome, Seat, ToAct};
use crate::cards::CardId;
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::BTreeMap;

/// Something that answers chance requests.
pub trait ChanceSource {
    fn fulfil(&mut self, request: &ChanceRequest) -> Result<ChanceOutcome, String>;
}

type PrivateRolls = BTreeMap<Seat, Vec<Vec<u8>>>;

/// Records a private roll so a later opening can be answered.
fn remember_private(store: &mut PrivateRolls, owner: Seat, values: Vec<u8>) -> ChanceOutcome {
    store.entry(owner).or_default().push(values.clone());
    ChanceOutcome::RolledPrivate {
        owner,
        values: Some(values),
    }
}

fn open_private(store: &PrivateRolls, owner: Seat, roll: u32) -> Result<ChanceOutcome, String> {
    Ok(ChanceOutcome::Opened {
        owner,
        roll,
        values: store
            .get(&owner)
            .and_then(|v| v.get(roll as usize))
            .cloned()
            .ok_or_else(|| format!("seat {owner} has no private roll {roll}"))?,
    })
}

/// Who was dealt each (deck, position): a whisper goes to the holder of a card.
type Holders = BTreeMap<(DeckId, u16), Vec<Seat>>;

fn note_deal(holders: &mut Holders, request: &ChanceRequest) {
    if let ChanceRequest::Deal { deck, position, to } = request {
        holders.insert((*deck, *position), to.clone());
    }
}

/// The full-information answer to a whisper: the owner's private dice, and the seat holding the
/// card at one of the positions (dealt to it alone), if any.
fn whisper(
    store: &PrivateRolls,
    holders: &Holders,
    card_at: impl Fn(DeckId, u16) -> Result<CardId, String>,
    request: &ChanceRequest,
) -> Result<ChanceOutcome, String> {
    let ChanceRequest::Whisper {
        owner,
        roll,
        deck,
        card,
        positions,
    } = request
    else {
        return Err("not a whisper".into());
    };
    let ChanceOutcome::Opened { values, .. } = open_private(store, *owner, *roll)? else {
        unreachable!("open_private answers an opening")
    };
    let mut to = None;
    for p in positions {
        if card_at(*deck, *p)? == *card {
            if let Some([h]) = holders.get(&(*deck, *p)).map(Vec::as_slice) {
                to = Some(*h);
            }
        }
    }
    Ok(ChanceOutcome::Whispered {
        owner: *owner,
        roll: *roll,
        values: Some(values),
        to,
    })
}

fn open_whisper(store: &PrivateRolls, owner: Seat, roll: u32) -> Result<ChanceOutcome, String> {
    let ChanceOutcome::Opened { values, .. } = open_private(store, owner, roll)? else {
        unreachable!("open_private answers an opening")
    };
    Ok(ChanceOutcome::WhisperOpened {
        owner,
        roll,
        values,
    })
}

/// Full-information chance from an RNG the caller seeds.
#[derive(Debug, Clone)]
pub struct Oracle<R> {
    rng: R,
    decks: BTreeMap<DeckId, Vec<CardId>>,
    private: PrivateRolls,
    holders: Holders,
}

impl<R: Rng> Oracle<R> {
    pub fn new(rng: R) -> Self {
        Oracle {
            rng,
            decks: BTreeMap::new(),
            private: BTreeMap::new(),
            holders: BTreeMap::new(),
        }
    }
    pub fn rng(&mut self) -> &mut R {
        &mut self.rng
    }

    /// The same cards and dice dealt so far, with new randomness from `rng` for what comes
    /// next: an episode branching off this one (a card dealt before must show as itself).
    pub fn fork<R2: Rng>(&self, rng: R2) -> Oracle<R2> {
        Oracle {
            rng,
            decks: self.decks.clone(),
            private: self.private.clone(),
            holders: self.holders.clone(),
        }
    }
}

fn card_at(
    decks: &BTreeMap<DeckId, Vec<CardId>>,
    deck: DeckId,
    position: u16,
) -> Result<CardId, String> {
    let deck = decks
        .get(&deck)
        .ok_or_else(|| format!("deck {deck} was never shuffled"))?;
    deck.get(position as usize).copied().ok_or_else(|| {
        format!(
            "position {position} is past the end of a {}-card deck",
            deck.len()
        )
    })
}

impl<R: Rng> ChanceSource for Oracle<R> {
    fn fulfil(&mut self, request: &ChanceRequest) -> Result<ChanceOutcome, String> {
        note_deal(&mut self.holders, request);
        Ok(match request {
            ChanceRequest::Shuffle { deck, spec } => {
                let mut cards = spec.cards();
                cards.shuffle(&mut self.rng);
                self.decks.insert(*deck, cards);
                ChanceOutcome::Shuffled { deck: *deck }
            }
            ChanceRequest::Deal { deck, position, .. }
            | ChanceRequest::DealSealed { deck, position, .. } => ChanceOutcome::Dealt {
                deck: *deck,
                position: *position,
                card: Some(card_at(&self.decks, *deck, *position)?),
            },
            ChanceRequest::Reveal { deck, position }
            | ChanceRequest::Show { deck, position, .. } => ChanceOutcome::Revealed {
                deck: *deck,
                position: *position,
                card: card_at(&self.decks, *deck, *position)?,
            },
            ChanceRequest::RollPublic { sides, count, .. } => ChanceOutcome::Rolled {
                values: (0..*count)
                    .map(|_| self.rng.gen_range(1..=*sides))
                    .collect(),
            },
            ChanceRequest::RollPrivate {
                owner,
                sides,
                count,
            } => {
                let values: Vec<u8> = (0..*count)
                    .map(|_| self.rng.gen_range(1..=*sides))
                    .collect();
                remember_private(&mut self.private, *owner, values)
            }
            ChanceRequest::OpenPrivate { owner, roll } => {
                open_private(&self.private, *owner, *roll)?
            }
            ChanceRequest::Whisper { .. } => whisper(
                &self.private,
                &self.holders,
                |d, p| card_at(&self.decks, d, p),
                request,
            )?,
            ChanceRequest::OpenWhisper { owner, roll } => {
                open_whisper(&self.private, *owner, *roll)?
            }
        })
    }
}

/// Chance fixed in advance: the deck's cards in position order and the dice in rolling order.
/// `deck` answers every deck the game shuffles unless `decks` names that deck.
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub deck: Vec<CardId>,
    pub decks: BTreeMap<DeckId, Vec<CardId>>,
    /// A deck `decks` does not name and of another size than `deck` comes in its unshuffled
    /// order (a solitaire's reshuffles, which a script cannot size ahead), instead of `deck`.
    pub in_order: bool,
    pub dice: Vec<u8>,
    next_die: usize,
    private: PrivateRolls,
    holders: Holders,
}

impl Script {
    pub fn new(deck: Vec<CardId>, dice: Vec<u8>) -> Self {
        Script {
            deck,
            dice,
            ..Default::default()
        }
    }

    /// The scripted cards of deck `deck`, by position.
    fn cards(&self, deck: DeckId) -> &[CardId] {
        self.decks.get(&deck).unwrap_or(&self.deck)
    }

    fn scripted(&self, deck: DeckId, position: u16) -> Result<CardId, String> {
        self.cards(deck)
            .get(position as usize)
            .copied()
            .ok_or_else(|| {
                format!(
                    "the script's deck is too short: position {position} is past the end of a \
                     {}-card deck",
                    self.cards(deck).len()
                )
            })
    }
    fn dice(&mut self, count: u8, sides: u8) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        for _ in 0..count {
            let v = *self.dice.get(self.next_die).ok_or_else(|| {
                format!("the script ran out of dice after {} rolls", self.next_die)
            })?;
            if !(1..=sides).contains(&v) {
                return Err(format!("scripted die {v} is not a face of a d{sides}"));
            }
            self.next_die += 1;
            out.push(v);
        }
        Ok(out)
    }
    /// Dice not consumed by the episode (a script with leftovers is suspicious).
    pub fn unused_dice(&self) -> usize {
        self.dice.len() - self.next_die
    }
}

impl ChanceSource for Script {
    fn fulfil(&mut self, request: &ChanceRequest) -> Result<ChanceOutcome, String> {
        note_deal(&mut self.holders, request);
        Ok(match request {
            ChanceRequest::Shuffle { deck, spec } => {
                if self.in_order && !self.decks.contains_key(deck) && spec.len() != self.deck.len()
                {
                    self.decks.insert(*deck, spec.cards());
                }
                for c in self.cards(*deck) {
                    spec.check(*c).map_err(|e| e.to_string())?;
                }
                ChanceOutcome::Shuffled { deck: *deck }
            }
            ChanceRequest::Deal { deck, position, .. }
            | ChanceRequest::DealSealed { deck, position, .. } => ChanceOutcome::Dealt {
                deck: *deck,
                position: *position,
                card: Some(self.scripted(*deck, *position)?),
            },
            ChanceRequest::Reveal { deck, position }
            | ChanceRequest::Show { deck, position, .. } => ChanceOutcome::Revealed {
                deck: *deck,
                position: *position,
                card: self.scripted(*deck, *position)?,
            },
            ChanceRequest::RollPublic { sides, count, .. } => ChanceOutcome::Rolled {
                values: self.dice(*count, *sides)?,
            },
            ChanceRequest::RollPrivate {
                owner,
                sides,
                count,
            } => {
                let values = self.dice(*count, *sides)?;
                remember_private(&mut self.private, *owner, values)
            }
            ChanceRequest::OpenPrivate { owner, roll } => {
                open_private(&self.private, *owner, *roll)?
            }
            ChanceRequest::Whisper { .. } => whisper(
                &self.private,
                &self.holders,
                |d, p| self.scripted(d, p),
                request,
            )?,
            ChanceRequest::OpenWhisper { owner, roll } => {
                open_whisper(&self.private, *owner, *roll)?
            }
        })
    }
}

/// What seat `viewer` (or a spectator, `None`) learns of a batch's outcomes `outs`, answering
/// `reqs`: the others' private values masked.
pub fn masked_for(
    outs: &[ChanceOutcome],
    reqs: &[ChanceRequest],
    viewer: Option<Seat>,
) -> Vec<ChanceOutcome> {
    outs.iter()
        .zip(reqs)
        .map(|(o, r)| o.mask_for(r, viewer))
        .collect()
}

/// Answers a whole pending batch.
pub fn fulfil_all(
    source: &mut impl ChanceSource,
    requests: &[ChanceRequest],
) -> Result<Vec<ChanceOutcome>, String> {
    requests.iter().map(|r| source.fulfil(r)).collect()
}

/// Answers `g`'s chance from `source` until a seat must choose (or the game is over).
pub fn settle<G: Game>(g: &mut G, source: &mut impl ChanceSource) -> Result<(), String> {
    while let ToAct::Chance(requests) = g.to_act() {
        let outcomes = fulfil_all(source, &requests)?;
        g.apply_chance(&outcomes).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Plays one episode to the end with `choose` picking each move and `chance` answering chance.
/// Returns the outcome and the number of steps. No checks: the fast path for bots and benches.
pub fn play_out<G: Game>(
    game: &mut G,
    chance: &mut impl ChanceSource,
    max_steps: usize,
    mut choose: impl FnMut(&G, Seat, Vec<G::Action>) -> G::Action,
) -> Result<(Outcome, usize), String> {
    for step in 0..max_steps {
        match game.to_act() {
            ToAct::Terminal => {
                return game
                    .outcome()
                    .map(|o| (o, step))
                    .ok_or_else(|| "terminal without an outcome".to_string())
            }
            ToAct::Chance(reqs) => {
                let outs = fulfil_all(chance, &reqs)?;
                game.apply_chance(&outs).map_err(|e| e.to_string())?;
            }
            ToAct::Seat(seat) => {
                let legal = game.legal_actions(seat);
                let a = choose(game, seat, legal);
                game.apply(seat, &a).map_err(|e| e.to_string())?;
            }
            ToAct::Sealed(seats) => {
                // Everyone chooses from the same state, as behind the table's commitments.
                let mut chosen = Vec::with_capacity(seats.len());
                for &seat in &seats {
                    let legal = game.legal_actions(seat);
                    chosen.push((seat, choose(game, seat, legal)));
                }
                chosen.sort_by_key(|(s, _)| *s);
                for (seat, a) in chosen {
                    game.apply(seat, &a).map_err(|e| e.to_string())?;
                }
            }
        }
    }
    Err(format!("no end after {max_steps} steps"))
}

/// What [`simulate`] checks besides the always-on ones.
#[derive(Debug, Clone)]
pub struct SimOptions {
    pub max_steps: usize,
    /// Per-seat replicas and view equality (the no-leak check). Costs one replica per seat.
    pub check_views: bool,
    /// serde_json round trip of the full state after every step.
    pub check_serde: bool,
    /// Apply every legal move and every probe move on a clone; refusals must change nothing.
    pub check_moves: bool,
    /// At every step, on a clone, remove a random participant by [`Game::forfeit`] and play the
    /// rest of the episode out: it must stay consistent and end without the offender winning.
    /// Costs one extra episode per step; the harness does it at `forfeit_every`-th steps.
    pub forfeit_every: Option<usize>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            max_steps: 100_000,
            check_views: true,
            check_serde: true,
            check_moves: true,
            forfeit_every: Some(17),
        }
    }
}

/// Many whole random games with only the game's invariants checked after every step (the
/// per-seat replicas, serde round trips, move probes and forfeits left out, so that thousands fit
/// in a unit test): `per` games at each table size of `players`, seeded by `seed`. Every game
/// must end, and the games must average `min_steps` steps (so that they are real games).
#[cfg(test)]
pub fn light_games<G: Game>(
    players: std::ops::RangeInclusive<u8>,
    per: usize,
    seed: u64,
    min_steps: usize,
    new: impl Fn(u8) -> G,
) {
    let light = SimOptions {
        check_views: false,
        check_serde: false,
        check_moves: false,
        forfeit_every: None,
        ..SimOptions::default()
    };
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed);
    let (mut games, mut steps) = (0, 0);
    for n in players {
        let g = new(n);
        for _ in 0..per {
            let r = simulate(&g, &mut rng, &light).unwrap();
            assert!(r.outcome.is_some(), "a game of {n} that did not end");
            games += 1;
            steps += r.steps;
        }
    }
    eprintln!("{games} games, {steps} steps");
    assert!(steps >= min_steps * games, "{games} games, {steps} steps");
}

#[derive(Debug, Clone, Default)]
pub struct SimReport {
    pub steps: usize,
    pub chance_batches: usize,
    pub moves: usize,
    pub outcome: Option<Outcome>,
}

/// Plays one random episode from `initial` with every check, returning the first violation.
/// `initial` must hold no hidden information (a fresh episode), since every replica starts from it.
pub fn simulate<G: Game>(
    initial: &G,
    rng: &mut impl Rng,
    opts: &SimOptions,
) -> Result<SimReport, String> {
    let mut god = initial.clone();
    let viewers: Vec<Option<Seat>> = std::iter::once(None)
        .chain(initial.seats().into_iter().map(Some))
        .collect();
    let mut replicas: Vec<G> = if opts.check_views {
        viewers.iter().map(|_| initial.clone()).collect()
    } else {
        Vec::new()
    };
    let mut oracle_rng = <rand::rngs::StdRng as rand::SeedableRng>::from_rng(&mut *rng)
        .map_err(|e| e.to_string())?;
    let mut oracle = Oracle::new(&mut oracle_rng);
    let mut report = SimReport::default();

    for step in 0..opts.max_steps {
        report.steps = step;
        let ctx = |msg: String| format!("step {step}: {msg}");
        god.check_invariants().map_err(ctx)?;
        if opts.check_serde {
            let json = serde_json::to_string(&god).map_err(|e| ctx(e.to_string()))?;
            let back: G = serde_json::from_str(&json).map_err(|e| ctx(e.to_string()))?;
            if back != god {
                return Err(ctx("state changed in a serde round trip".into()));
            }
        }
        if opts.check_views {
            check_replicas(&god, &viewers, &replicas).map_err(ctx)?;
        }
        let to_act = god.to_act();
        match to_act {
            ToAct::Terminal => {
                let outcome = god
                    .outcome()
                    .ok_or_else(|| ctx("terminal without an outcome".into()))?;
                for s in god.seats() {
                    if !god.legal_actions(s).is_empty() {
                        return Err(ctx(format!("seat {s} has moves in a terminal state")));
                    }
                }
                if opts.check_views {
                    for r in &replicas {
                        if r.outcome().as_ref() != Some(&outcome) {
                            return Err(ctx("replicas disagree on the outcome".into()));
                        }
                    }
                }
                report.outcome = Some(outcome);
                return Ok(report);
            }
            ToAct::Chance(reqs) => {
                if reqs.is_empty() {
                    return Err(ctx("empty chance batch".into()));
                }
                for s in god.seats() {
                    if !god.legal_actions(s).is_empty() {
                        return Err(ctx(format!("seat {s} has moves while chance is pending")));
                    }
                }
                let outs = fulfil_all(&mut oracle, &reqs).map_err(ctx)?;
                if opts.check_moves && reqs.len() > 1 {
                    // A short batch must be refused without effect.
                    let mut probe = god.clone();
                    if probe.apply_chance(&outs[..outs.len() - 1]).is_ok() {
                        return Err(ctx("accepted an incomplete chance batch".into()));
                    }
                    if probe != god {
                        return Err(ctx("a refused chance batch changed the state".into()));
                    }
                }
                god.apply_chance(&outs).map_err(|e| ctx(e.to_string()))?;
                for (viewer, replica) in viewers.iter().zip(replicas.iter_mut()) {
                    let masked: Vec<ChanceOutcome> = outs
                        .iter()
                        .zip(&reqs)
                        .map(|(o, r)| o.mask_for(r, *viewer))
                        .collect();
                    replica
                        .apply_chance(&masked)
                        .map_err(|e| ctx(format!("viewer {viewer:?} refused its outcome: {e}")))?;
                }
                report.chance_batches += 1;
            }
            ToAct::Seat(_) | ToAct::Sealed(_) => {
                let actors = match &to_act {
                    ToAct::Seat(s) => vec![*s],
                    ToAct::Sealed(v) => v.clone(),
                    _ => unreachable!(),
                };
                if actors.is_empty() {
                    return Err(ctx("nobody to act".into()));
                }
                if !actors.windows(2).all(|w| w[0] < w[1]) {
                    return Err(ctx(format!("sealed seats not ascending: {actors:?}")));
                }
                // Every actor decides from the same state (sealed moves are chosen before any is
                // seen), then the moves are applied in ascending seat order.
                let mut chosen = Vec::with_capacity(actors.len());
                for &seat in &actors {
                    let legal = check_seat_moves(&god, seat, &actors, opts).map_err(&ctx)?;
                    chosen.push((seat, legal.choose(rng).expect("non-empty").clone(), legal));
                }
                for (i, (seat, action, legal)) in chosen.iter().enumerate() {
                    if i > 0 && god.legal_actions(*seat) != *legal {
                        return Err(ctx(format!(
                            "seat {seat}'s sealed choices changed when another sealed move was \
                             applied first"
                        )));
                    }
                    god.apply(*seat, action).map_err(|e| ctx(e.to_string()))?;
                    for (viewer, replica) in viewers.iter().zip(replicas.iter_mut()) {
                        replica.apply(*seat, action).map_err(|e| {
                            ctx(format!(
                                "viewer {viewer:?} refused {action:?} by {seat}: {e}"
                            ))
                        })?;
                    }
                    report.moves += 1;
                }
            }
        }
        if let Some(every) = opts.forfeit_every {
            if step % every == every - 1 && !god.is_terminal() {
                check_forfeit(&god, &oracle, rng, opts).map_err(&ctx)?;
            }
        }
    }
    Err(format!("no end after {} steps", opts.max_steps))
}

/// Each replica (a viewer's own state, fed only what that viewer may see) agrees with the full
/// state on who acts, on that viewer's view and on its seat's legal moves.
fn check_replicas<G: Game>(
    god: &G,
    viewers: &[Option<Seat>],
    replicas: &[G],
) -> Result<(), String> {
    for (viewer, replica) in viewers.iter().zip(replicas) {
        if replica.to_act() != god.to_act() {
            return Err(format!(
                "viewer {viewer:?} disagrees on who acts: {:?} vs {:?}",
                replica.to_act(),
                god.to_act()
            ));
        }
        if replica.view(*viewer) != god.view(*viewer) {
            return Err(format!(
                "view of {viewer:?} differs between the full state and that seat's own \
                 state (a leak or a dependence on hidden data):\n full: {:?}\n own:  {:?}",
                god.view(*viewer),
                replica.view(*viewer)
            ));
        }
        if let Some(seat) = viewer {
            if replica.legal_actions(*seat) != god.legal_actions(*seat) {
                return Err(format!("seat {seat}'s legal moves depend on hidden data"));
            }
        }
    }
    Ok(())
}

/// The checks on one actor's moves: listed moves sorted and accepted, a legal timeout move,
/// refused probes change nothing, nobody else may move. Returns the legal moves.
fn check_seat_moves<G: Game>(
    god: &G,
    seat: Seat,
    actors: &[Seat],
    opts: &SimOptions,
) -> Result<Vec<G::Action>, String> {
    let legal = god.legal_actions(seat);
    if legal.is_empty() {
        return Err(format!("seat {seat} must act but has no legal move"));
    }
    if !legal.windows(2).all(|w| w[0] < w[1]) {
        return Err(format!("legal moves not strictly sorted: {legal:?}"));
    }
    if god.timeout_action(seat).is_none_or(|a| {
        !legal.contains(&a) && {
            let mut probe = god.clone();
            probe.apply(seat, &a).is_err()
        }
    }) {
        return Err(format!("seat {seat} has no legal timeout move"));
    }
    if opts.check_moves {
        for a in &legal {
            let mut probe = god.clone();
            probe
                .apply(seat, a)
                .map_err(|e| format!("listed move {a:?} was refused: {e}"))?;
        }
        for a in god.probe_actions(seat) {
            let mut probe = god.clone();
            if probe.apply(seat, &a).is_err() && probe != *god {
                return Err(format!("refused move {a:?} changed the state"));
            }
        }
        for other in god.seats() {
            if actors.contains(&other) {
                continue;
            }
            if !god.legal_actions(other).is_empty() {
                return Err(format!("seat {other} has moves out of turn"));
            }
            let mut probe = god.clone();
            if probe.apply(other, &legal[0]).is_ok() {
                return Err(format!("seat {other} was allowed to move out of turn"));
            }
            if probe != *god {
                return Err("an out-of-turn refusal changed the state".into());
            }
        }
    }
    Ok(legal)
}

/// A seat sitting out after its forfeit is dealt back in on a copy: the game stays consistent
/// and plays to its end (the session test shows it is dealt a hand again).
fn check_sit_in<G: Game>(
    out: &G,
    seat: Seat,
    rng: &mut impl Rng,
    opts: &SimOptions,
) -> Result<(), String> {
    let mut g = out.clone();
    if g.is_terminal() {
        return Ok(());
    }
    g.sit_in(&[seat])
        .map_err(|e| format!("seat {seat} could not be dealt back in: {e}"))?;
    if g.sitting_out().contains(&seat) {
        return Err(format!("seat {seat} still sits out after coming back"));
    }
    g.check_invariants()
        .map_err(|e| format!("after seat {seat} came back: {e}"))?;
    let mut oracle_rng = <rand::rngs::StdRng as rand::SeedableRng>::from_rng(&mut *rng)
        .map_err(|e| e.to_string())?;
    let mut oracle = Oracle::new(&mut oracle_rng);
    let mut moves_rng = <rand::rngs::StdRng as rand::SeedableRng>::from_rng(&mut *rng)
        .map_err(|e| e.to_string())?;
    play_out(&mut g, &mut oracle, opts.max_steps, |_, _, legal| {
        legal
            .choose(&mut moves_rng)
            .expect("a seat asked to move has a legal move")
            .clone()
    })
    .map_err(|e| format!("after seat {seat} came back: {e}"))?;
    Ok(())
}

/// Removes a random participant from a copy of `god` and plays the copy out with random moves:
/// the game must stay consistent, never give the offender a move, and end without the offender
/// among the winners.
fn check_forfeit<G: Game, R: Rng>(
    god: &G,
    dealt: &Oracle<R>,
    rng: &mut impl Rng,
    opts: &SimOptions,
) -> Result<(), String> {
    let parts = god.participants();
    let Some(&offender) = parts.choose(rng) else {
        return Ok(());
    };
    let mut g = god.clone();
    g.forfeit(&[offender], ForfeitReason::Withheld)
        .map_err(|e| format!("forfeit of seat {offender} refused: {e}"))?;
    g.check_invariants()
        .map_err(|e| format!("after the forfeit of seat {offender}: {e}"))?;
    if g.participants().contains(&offender) {
        return Err(format!(
            "seat {offender} still takes part in chance after its forfeit"
        ));
    }
    if g.sitting_out().contains(&offender) {
        check_sit_in(&g, offender, rng, opts)?;
    }
    // The cards dealt before the forfeit stay what they were (a race shows them afterwards).
    let oracle_rng = <rand::rngs::StdRng as rand::SeedableRng>::from_rng(&mut *rng)
        .map_err(|e| e.to_string())?;
    let mut oracle = dealt.fork(oracle_rng);
    let mut moves_rng = <rand::rngs::StdRng as rand::SeedableRng>::from_rng(&mut *rng)
        .map_err(|e| e.to_string())?;
    let (outcome, _) = play_out(&mut g, &mut oracle, opts.max_steps, |g, seat, legal| {
        assert_ne!(seat, offender, "a removed seat was asked to move");
        let _ = g;
        legal
            .choose(&mut moves_rng)
            .expect("a seat asked to move has a legal move")
            .clone()
    })
    .map_err(|e| format!("after the forfeit of seat {offender}: {e}"))?;
    if outcome.winners.contains(&offender) {
        return Err(format!("seat {offender} won after forfeiting"));
    }
    Ok(())
}
