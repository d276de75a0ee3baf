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

use super::{ChanceOutcome, ChanceRequest, Game, Outcome, Seat, ToAct};
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

/// Full-information chance from an RNG the caller seeds.
#[derive(Debug, Clone)]
pub struct Oracle<R> {
    rng: R,
    deck: Vec<CardId>,
    private: PrivateRolls,
}

impl<R: Rng> Oracle<R> {
    pub fn new(rng: R) -> Self {
        Oracle {
            rng,
            deck: Vec::new(),
            private: BTreeMap::new(),
        }
    }
    pub fn rng(&mut self) -> &mut R {
        &mut self.rng
    }
}

fn card_at(deck: &[CardId], position: u16) -> Result<CardId, String> {
    deck.get(position as usize).copied().ok_or_else(|| {
        format!(
            "position {position} is past the end of a {}-card deck",
            deck.len()
        )
    })
}

impl<R: Rng> ChanceSource for Oracle<R> {
    fn fulfil(&mut self, request: &ChanceRequest) -> Result<ChanceOutcome, String> {
        Ok(match request {
            ChanceRequest::Shuffle { deck } => {
                self.deck.clear();
                self.deck.extend((0..deck.len() as u16).map(CardId));
                self.deck.shuffle(&mut self.rng);
                ChanceOutcome::Shuffled
            }
            ChanceRequest::Deal { position, .. } => ChanceOutcome::Dealt {
                position: *position,
                card: Some(card_at(&self.deck, *position)?),
            },
            ChanceRequest::Reveal { position } => ChanceOutcome::Revealed {
                position: *position,
                card: card_at(&self.deck, *position)?,
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
        })
    }
}

/// Chance fixed in advance: the deck's cards in position order and the dice in rolling order.
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub deck: Vec<CardId>,
    pub dice: Vec<u8>,
    next_die: usize,
    private: PrivateRolls,
}

impl Script {
    pub fn new(deck: Vec<CardId>, dice: Vec<u8>) -> Self {
        Script {
            deck,
            dice,
            ..Default::default()
        }
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
        Ok(match request {
            ChanceRequest::Shuffle { deck } => {
                for c in &self.deck {
                    deck.check(*c).map_err(|e| e.to_string())?;
                }
                ChanceOutcome::Shuffled
            }
            ChanceRequest::Deal { position, .. } => ChanceOutcome::Dealt {
                position: *position,
                card: Some(
                    card_at(&self.deck, *position)
                        .map_err(|e| format!("the script's deck is too short: {e}"))?,
                ),
            },
            ChanceRequest::Reveal { position } => ChanceOutcome::Revealed {
                position: *position,
                card: card_at(&self.deck, *position)?,
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
        })
    }
}

/// Answers a whole pending batch.
pub fn fulfil_all(
    source: &mut impl ChanceSource,
    requests: &[ChanceRequest],
) -> Result<Vec<ChanceOutcome>, String> {
    requests.iter().map(|r| source.fulfil(r)).collect()
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
            to_act => {
                let seat = match to_act {
                    ToAct::Seats(seats) => *seats.first().ok_or("nobody to act")?,
                    ToAct::Seat(seat) => seat,
                    _ => unreachable!("handled above"),
                };
                let legal = game.legal_actions(seat);
                let a = choose(game, seat, legal);
                game.apply(seat, &a).map_err(|e| e.to_string())?;
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
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            max_steps: 100_000,
            check_views: true,
            check_serde: true,
            check_moves: true,
        }
    }
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
            for (viewer, replica) in viewers.iter().zip(&replicas) {
                if replica.to_act() != god.to_act() {
                    return Err(ctx(format!(
                        "viewer {viewer:?} disagrees on who acts: {:?} vs {:?}",
                        replica.to_act(),
                        god.to_act()
                    )));
                }
                if replica.view(*viewer) != god.view(*viewer) {
                    return Err(ctx(format!(
                        "view of {viewer:?} differs between the full state and that seat's own \
                         state (a leak or a dependence on hidden data):\n full: {:?}\n own:  {:?}",
                        god.view(*viewer),
                        replica.view(*viewer)
                    )));
                }
                if let Some(seat) = viewer {
                    if replica.legal_actions(*seat) != god.legal_actions(*seat) {
                        return Err(ctx(format!(
                            "seat {seat}'s legal moves depend on hidden data"
                        )));
                    }
                }
            }
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
            ToAct::Seat(_) | ToAct::Seats(_) => {
                let actors = match &to_act {
                    ToAct::Seat(s) => vec![*s],
                    ToAct::Seats(v) => v.clone(),
                    _ => unreachable!(),
                };
                let seat = *actors
                    .choose(rng)
                    .ok_or_else(|| ctx("nobody to act".into()))?;
                let legal = god.legal_actions(seat);
                if legal.is_empty() {
                    return Err(ctx(format!("seat {seat} must act but has no legal move")));
                }
                if !legal.windows(2).all(|w| w[0] < w[1]) {
                    return Err(ctx(format!("legal moves not strictly sorted: {legal:?}")));
                }
                if god.timeout_action(seat).is_none_or(|a| {
                    !legal.contains(&a) && {
                        let mut probe = god.clone();
                        probe.apply(seat, &a).is_err()
                    }
                }) {
                    return Err(ctx(format!("seat {seat} has no legal timeout move")));
                }
                if opts.check_moves {
                    for a in &legal {
                        let mut probe = god.clone();
                        probe
                            .apply(seat, a)
                            .map_err(|e| ctx(format!("listed move {a:?} was refused: {e}")))?;
                    }
                    for a in god.probe_actions(seat) {
                        let mut probe = god.clone();
                        if probe.apply(seat, &a).is_err() && probe != god {
                            return Err(ctx(format!("refused move {a:?} changed the state")));
                        }
                    }
                    for other in god.seats() {
                        if actors.contains(&other) {
                            continue;
                        }
                        if !god.legal_actions(other).is_empty() {
                            return Err(ctx(format!("seat {other} has moves out of turn")));
                        }
                        let mut probe = god.clone();
                        if probe.apply(other, &legal[0]).is_ok() {
                            return Err(ctx(format!(
                                "seat {other} was allowed to move out of turn"
                            )));
                        }
                        if probe != god {
                            return Err(ctx("an out-of-turn refusal changed the state".into()));
                        }
                    }
                }
                let action = legal.choose(rng).expect("non-empty").clone();
                god.apply(seat, &action).map_err(|e| ctx(e.to_string()))?;
                for (viewer, replica) in viewers.iter().zip(replicas.iter_mut()) {
                    replica.apply(seat, &action).map_err(|e| {
                        ctx(format!(
                            "viewer {viewer:?} refused {action:?} by {seat}: {e}"
                        ))
                    })?;
                }
                report.moves += 1;
            }
        }
    }
    Err(format!("no end after {} steps", opts.max_steps))
}
