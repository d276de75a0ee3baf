//! One game of Mia (Meier), as one client knows it.
//!
//! Decisions the seed leaves open are written, with reasons, in `protocol/rules/mia.md`; the
//! section names (§) are cited next to the code that follows them.

use crate::engine::illegal;
use crate::engine::{ChanceOutcome, ChanceRequest, Game, Outcome, RuleError, Seat, ToAct};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const MIN_PLAYERS: usize = 2;
pub const MAX_PLAYERS: usize = 10;
pub const MAX_LIVES: u8 = 10;

/// A cup value written with the higher die first: 21 (Mia), 66, 31, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Throw(pub u8);

impl Throw {
    pub const MIA: Throw = Throw(21);

    pub fn of_dice(a: u8, b: u8) -> Throw {
        Throw(a.max(b) * 10 + a.min(b))
    }

    pub fn is_valid(self) -> bool {
        let (hi, lo) = (self.0 / 10, self.0 % 10);
        (1..=6).contains(&hi) && (1..=hi).contains(&lo)
    }
}

impl std::fmt::Display for Throw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if *self == Throw::MIA {
            write!(f, "21 (Mia)")
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// The two orders the seed gives for the 21 cup values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Ranking {
    /// Mia, then the doubles from 11 up to 66, then the rest from 65 down to 31.
    #[default]
    Traditional,
    /// Mia, then every other value by its number, 66 down to 11.
    Modern,
}

const TRADITIONAL: [u8; 21] = [
    21, 11, 22, 33, 44, 55, 66, 65, 64, 63, 62, 61, 54, 53, 52, 51, 43, 42, 41, 32, 31,
];
const MODERN: [u8; 21] = [
    21, 66, 65, 64, 63, 62, 61, 55, 54, 53, 52, 51, 44, 43, 42, 41, 33, 32, 31, 22, 11,
];

impl Ranking {
    pub const NAMES: [&'static str; 2] = ["traditional", "modern"];

    pub fn parse(name: &str) -> Result<Ranking, String> {
        match name {
            "traditional" => Ok(Ranking::Traditional),
            "modern" => Ok(Ranking::Modern),
            _ => Err(format!(
                "unknown Mia ranking '{name}' (known: {})",
                Ranking::NAMES.join(", ")
            )),
        }
    }

    /// Its name in words ("traditional", "modern").
    pub fn name(self) -> &'static str {
        match self {
            Ranking::Traditional => "traditional",
            Ranking::Modern => "modern",
        }
    }

    /// Every cup value, best first.
    pub fn best_first(self) -> [Throw; 21] {
        let list = match self {
            Ranking::Traditional => TRADITIONAL,
            Ranking::Modern => MODERN,
        };
        list.map(Throw)
    }

    /// 0 for the weakest value, 20 for Mia. Panics on an invalid throw (callers validate).
    pub fn rank(self, t: Throw) -> u8 {
        let pos = self
            .best_first()
            .iter()
            .position(|x| *x == t)
            .expect("valid throws are ranked");
        20 - pos as u8
    }

    /// Values strictly better than `t`.
    pub fn above(self, t: Throw) -> impl Iterator<Item = Throw> {
        let r = self.rank(t);
        self.best_first()
            .into_iter()
            .filter(move |x| self.rank(*x) > r)
    }

    pub fn weakest(self) -> Throw {
        self.best_first()[20]
    }
}

/// A move in Mia. `Ord` is the canonical order of the legal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Lift the cup: the claim is checked against the dice.
    Challenge,
    /// Accept the claim unseen and hand the cup on with it.
    Pass,
    /// Accept the claim, roll the cup afresh unseen by anyone else, then claim.
    Reroll,
    /// Announce a value for the dice you just rolled (truth or bluff).
    Claim(Throw),
    /// §Pass-back: the cup's roller, who knows its dice, hands it on with a higher claim without
    /// rolling.
    Raise(Throw),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// Seats clockwise.
    pub seats: Vec<Seat>,
    pub lives: u8,
    pub ranking: Ranking,
    /// The seat that opens the first round; `None` tosses for it with a public die.
    pub first: Option<Seat>,
    /// A challenge's batch also rolls the next round's first cup, for each player who may open
    /// that round, and the toss's every player's (protocol version 8, PROTOCOL.md §5.8); set
    /// from the table's version, never on the wire.
    #[serde(skip, default = "crate::games::dice::rolls_with_opening_now")]
    pub rolls_with_opening: bool,
}

impl Setup {
    pub fn standard(players: u8, ranking: Ranking) -> Setup {
        Setup {
            seats: (0..players).collect(),
            lives: 3,
            ranking,
            first: None,
            rolls_with_opening: crate::games::dice::rolls_with_opening_now(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub seat: Seat,
    pub lives: u8,
    /// Private rolls made so far; the latest one is number `rolls - 1`.
    pub rolls: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Phase {
    /// Waiting for the toss or a private roll.
    Rolling,
    /// The roller must claim; `above` is the claim to beat, if any.
    Claim {
        above: Option<Throw>,
    },
    /// The next player challenges, passes or rerolls.
    Respond,
    /// Waiting for the roller to open the cup.
    Opening,
    Done,
}

/// The cup in play: who rolled it (and alone knows it), which roll it is, what it is said to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cup {
    pub roller: Seat,
    pub roll: u32,
    /// `Some` only where this client may know the dice (the roller; everyone once opened).
    pub dice: Option<[u8; 2]>,
    pub claim: Option<Throw>,
    /// The player answerable for the claim (the last to claim, raise or pass).
    pub owner: Seat,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogEntry {
    Toss {
        first: Seat,
    },
    Round {
        round: u32,
        opener: Seat,
    },
    Rolled {
        seat: Seat,
    },
    Claimed {
        seat: Seat,
        claim: Throw,
    },
    Passed {
        seat: Seat,
        claim: Throw,
    },
    Raised {
        seat: Seat,
        claim: Throw,
    },
    Rerolled {
        seat: Seat,
    },
    Challenged {
        seat: Seat,
        owner: Seat,
    },
    Opened {
        roller: Seat,
        dice: [u8; 2],
        value: Throw,
        claim: Throw,
    },
    LostLives {
        seat: Seat,
        lives: u8,
    },
    Out {
        seat: Seat,
    },
    Won {
        seat: Seat,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mia {
    pub ranking: Ranking,
    pub start_lives: u8,
    /// Whether cups are rolled with the toss and the opening ([`Setup::rolls_with_opening`]).
    #[serde(default)]
    rolls_with_opening: bool,
    pub players: Vec<Player>,
    pub phase: Phase,
    pub round: u32,
    /// Index of the player to act (or about to roll).
    actor: usize,
    pub cup: Option<Cup>,
    /// Index of the challenger while the cup opens.
    challenger: usize,
    pending: Vec<ChanceRequest>,
    pub log: Vec<LogEntry>,
    /// Seats removed by the table for withholding a step or equivocating: the game ended there
    /// with them as the losers and no winner (rules §Forfeit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forfeited: Vec<Seat>,
}

/// The lives a challenge of `claim` costs its loser (§Challenge: two for Mia).
fn lives_at_stake(claim: Throw) -> u8 {
    if claim == Throw::MIA {
        2
    } else {
        1
    }
}

impl Mia {
    pub fn new(setup: &Setup) -> Result<Mia, RuleError> {
        let n = setup.seats.len();
        let first = crate::games::dice::check_seating(
            "Mia",
            &setup.seats,
            MIN_PLAYERS,
            MAX_PLAYERS,
            setup.first,
        )?;
        if !(1..=MAX_LIVES).contains(&setup.lives) {
            return Err(RuleError::Setup(format!(
                "lives must be 1..={MAX_LIVES}, not {}",
                setup.lives
            )));
        }
        let mut game = Mia {
            ranking: setup.ranking,
            start_lives: setup.lives,
            players: setup
                .seats
                .iter()
                .map(|&seat| Player {
                    seat,
                    lives: setup.lives,
                    rolls: 0,
                })
                .collect(),
            phase: Phase::Rolling,
            round: 0,
            actor: 0,
            cup: None,
            challenger: 0,
            rolls_with_opening: setup.rolls_with_opening,
            pending: Vec::new(),
            log: Vec::new(),
            forfeited: Vec::new(),
        };
        match first {
            Some(i) => game.begin_round(i),
            None => {
                game.pending.push(ChanceRequest::RollPublic {
                    sides: n as u8,
                    count: 1,
                    by: None,
                });
                // The opener's cup depends on who opens: from version 8 every player's is
                // rolled with the toss, and only the one the toss names is played (the others
                // rolled for nothing); before, the toss was a batch of its own.
                if game.rolls_with_opening {
                    for p in &game.players {
                        game.pending.push(ChanceRequest::RollPrivate {
                            owner: p.seat,
                            sides: 6,
                            count: 2,
                        });
                    }
                }
            }
        }
        Ok(game)
    }

    fn begin_round(&mut self, opener: usize) {
        self.round += 1;
        self.log.push(LogEntry::Round {
            round: self.round,
            opener: self.players[opener].seat,
        });
        self.cup = None;
        self.roll_for(opener, None);
    }

    /// The next round, its opener's cup rolled already (with the opening of the last one):
    /// the opener claims at once.
    fn begin_round_rolled(&mut self, opener: usize, dice: Option<[u8; 2]>) {
        self.round += 1;
        let seat = self.players[opener].seat;
        self.log.push(LogEntry::Round {
            round: self.round,
            opener: seat,
        });
        self.actor = opener;
        self.cup = Some(Cup {
            roller: seat,
            roll: self.players[opener].rolls - 1,
            dice,
            claim: None,
            owner: seat,
        });
        self.log.push(LogEntry::Rolled { seat });
        self.phase = Phase::Claim { above: None };
    }

    /// The cups rolled with a toss or an opening (`outs`, all private rolls): each owner's roll
    /// counted, and its dice where this client knows them, by owner.
    fn rolled_with(&mut self, outs: &[ChanceOutcome]) -> BTreeMap<Seat, Option<[u8; 2]>> {
        let mut cups = BTreeMap::new();
        for out in outs {
            let ChanceOutcome::RolledPrivate { owner, values } = out else {
                unreachable!("checked: {out:?}")
            };
            let i = self.index(*owner);
            self.players[i].rolls += 1;
            cups.insert(*owner, values.as_ref().map(|v| [v[0], v[1]]));
        }
        cups
    }

    /// Who opens the next round if player `loser` loses `cost` lives (§Next round: the loser,
    /// or the next living player if it goes out), or `None` when that ends the game.
    fn opener_if_lost(&self, loser: usize, cost: u8) -> Option<usize> {
        if self.players[loser].lives > cost {
            return Some(loser);
        }
        // Out: the game ends with one player left, or goes on from the next living one (never
        // the loser itself, since at least two others live).
        (self.alive() > 2).then(|| self.next_alive(loser))
    }

    /// Player `i` rolls the cup; once the dice arrive it must claim above `above`.
    fn roll_for(&mut self, i: usize, above: Option<Throw>) {
        self.actor = i;
        self.phase = Phase::Rolling;
        self.pending.push(ChanceRequest::RollPrivate {
            owner: self.players[i].seat,
            sides: 6,
            count: 2,
        });
        // Remembered in the phase once the roll lands.
        self.cup = Some(Cup {
            roller: self.players[i].seat,
            roll: self.players[i].rolls,
            dice: None,
            claim: above,
            owner: self.players[i].seat,
        });
    }

    pub fn player(&self, seat: Seat) -> Option<&Player> {
        self.players.iter().find(|p| p.seat == seat)
    }

    fn index(&self, seat: Seat) -> usize {
        self.players
            .iter()
            .position(|p| p.seat == seat)
            .expect("seated")
    }

    pub fn alive(&self) -> usize {
        self.players.iter().filter(|p| p.lives > 0).count()
    }

    fn next_alive(&self, i: usize) -> usize {
        let n = self.players.len();
        (1..=n)
            .map(|k| (i + k) % n)
            .find(|&j| self.players[j].lives > 0)
            .expect("two players live while the game runs")
    }

    fn check_turn(&self, seat: Seat) -> Result<(), RuleError> {
        if self.phase == Phase::Done {
            return Err(RuleError::Finished);
        }
        let acting =
            matches!(self.phase, Phase::Claim { .. } | Phase::Respond) && self.pending.is_empty();
        if acting && self.players[self.actor].seat == seat {
            Ok(())
        } else {
            Err(RuleError::OutOfTurn {
                seat,
                expected: self.to_act().words(),
            })
        }
    }

    fn cup(&self) -> &Cup {
        self.cup
            .as_ref()
            .expect("a cup is in play while players act")
    }

    fn validate(&self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        self.check_turn(seat)?;
        let cup = self.cup();
        let is_roller = cup.roller == seat;
        let beats = |t: Throw, above: Option<Throw>| -> Result<(), RuleError> {
            if !t.is_valid() {
                return Err(illegal(seat, format!("{} is not a cup value", t.0)));
            }
            match above {
                Some(a) if self.ranking.rank(t) <= self.ranking.rank(a) => Err(illegal(
                    seat,
                    format!(
                        "{t} does not beat {a} in the {} ranking",
                        self.ranking.name()
                    ),
                )),
                _ => Ok(()),
            }
        };
        match (self.phase, action) {
            (Phase::Claim { above }, Action::Claim(t)) => beats(*t, above),
            (Phase::Claim { .. }, _) => Err(illegal(seat, "you just rolled: claim a value first")),
            (Phase::Respond, Action::Claim(_)) => Err(illegal(
                seat,
                "claim only after rolling: challenge, pass or reroll",
            )),
            (Phase::Respond, Action::Challenge) => Ok(()),
            (Phase::Respond, Action::Pass) if is_roller => Err(illegal(
                seat,
                "the cup came back to you, who rolled it: raise the claim, reroll or challenge",
            )),
            (Phase::Respond, Action::Pass) => Ok(()),
            (Phase::Respond, Action::Raise(t)) if is_roller => beats(*t, cup.claim),
            (Phase::Respond, Action::Raise(_)) => Err(illegal(
                seat,
                "only the cup's roller, who knows the dice, may raise without rolling",
            )),
            // §Reroll: after Mia nothing is higher, so only the roller's fresh reroll remains.
            (Phase::Respond, Action::Reroll) if cup.claim == Some(Throw::MIA) && !is_roller => {
                Err(illegal(seat, "nothing beats Mia: challenge or pass"))
            }
            (Phase::Respond, Action::Reroll) => Ok(()),
            (phase, _) => Err(illegal(
                seat,
                match phase {
                    Phase::Claim { .. } => "the roller must claim a value now",
                    Phase::Respond => "challenge, pass or reroll now",
                    _ => "no move is asked of anyone now",
                },
            )),
        }
    }

    /// Beyond the form every batch is checked for ([`ChanceOutcome::answers`]): an opened cup
    /// holds two dice of faces 1 to 6, the ones its roller rolled.
    fn check_outcome(&self, out: &ChanceOutcome) -> Result<(), String> {
        let ChanceOutcome::Opened { owner, values, .. } = out else {
            return Ok(());
        };
        if values.len() != 2 || values.iter().any(|d| !(1..=6).contains(d)) {
            return Err(format!(
                "seat {owner} opened {}, not two d6",
                crate::engine::dice_text(values)
            ));
        }
        match self.cup().dice {
            Some(known) if known[..] != values[..] => Err(format!(
                "seat {owner} rolled {} but opened {}",
                crate::engine::dice_text(&known),
                crate::engine::dice_text(values)
            )),
            _ => Ok(()),
        }
    }

    /// Compares the opened cup with the claim and takes lives (§Challenge); the next round
    /// starts with its opener's cup from `next` (rolled with the opening: each candidate
    /// opener's dice, known to its owner) or rolls it now.
    fn settle_challenge(&mut self, dice: [u8; 2], mut next: BTreeMap<Seat, Option<[u8; 2]>>) {
        let cup = self.cup().clone();
        let claim = cup.claim.expect("a challenge follows a claim");
        let value = Throw::of_dice(dice[0], dice[1]);
        self.log.push(LogEntry::Opened {
            roller: cup.roller,
            dice,
            value,
            claim,
        });
        // A cup showing at least its claim costs the challenger; less costs the owner.
        let loser = if self.ranking.rank(value) < self.ranking.rank(claim) {
            self.index(cup.owner)
        } else {
            self.challenger
        };
        let cost = lives_at_stake(claim);
        // §Next round, decided before the lives are taken, by the rule the challenge used to
        // roll for the possible openers.
        let opener = self.opener_if_lost(loser, cost);
        let p = &mut self.players[loser];
        let lost = cost.min(p.lives);
        p.lives -= lost;
        let seat = p.seat;
        self.log.push(LogEntry::LostLives { seat, lives: lost });
        if self.players[loser].lives == 0 {
            self.log.push(LogEntry::Out { seat });
        }
        let Some(opener) = opener else {
            let w = self.players.iter().find(|p| p.lives > 0).expect("one").seat;
            self.log.push(LogEntry::Won { seat: w });
            self.phase = Phase::Done;
            return;
        };
        if next.is_empty() {
            // Not rolled with the opening (a table before version 8, or a challenge that could
            // have ended the game): rolled now.
            self.begin_round(opener);
            return;
        }
        let dice = next
            .remove(&self.players[opener].seat)
            .expect("every player who may open was rolled for");
        self.begin_round_rolled(opener, dice);
    }
}

impl Game for Mia {
    type Action = Action;
    type View = MiaView;
    const NAME: &'static str = "mia";

    fn to_act(&self) -> ToAct {
        let over = self.phase == Phase::Done;
        crate::engine::chance_or_turn(&self.pending, over, || self.players[self.actor].seat)
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if self.check_turn(seat).is_err() {
            return Vec::new();
        }
        let mut v: Vec<Action> = match self.phase {
            Phase::Claim { above } => {
                let all = self.ranking.best_first();
                all.into_iter()
                    .filter(|t| above.is_none_or(|a| self.ranking.rank(*t) > self.ranking.rank(a)))
                    .map(Action::Claim)
                    .collect()
            }
            Phase::Respond => {
                let mut v = vec![Action::Challenge, Action::Pass, Action::Reroll];
                let cup = self.cup();
                if cup.roller == seat {
                    v.extend(
                        self.ranking
                            .above(cup.claim.expect("claimed"))
                            .map(Action::Raise),
                    );
                }
                v.retain(|a| self.validate(seat, a).is_ok());
                v
            }
            _ => Vec::new(),
        };
        v.sort_unstable();
        v
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        self.validate(seat, action)?;
        let i = self.actor;
        match *action {
            Action::Claim(t) | Action::Raise(t) => {
                self.log.push(match action {
                    Action::Claim(_) => LogEntry::Claimed { seat, claim: t },
                    _ => LogEntry::Raised { seat, claim: t },
                });
                let cup = self.cup.as_mut().expect("in play");
                cup.claim = Some(t);
                cup.owner = seat;
                self.phase = Phase::Respond;
                self.actor = self.next_alive(i);
            }
            Action::Pass => {
                let cup = self.cup.as_mut().expect("in play");
                cup.owner = seat;
                self.log.push(LogEntry::Passed {
                    seat,
                    claim: cup.claim.expect("claimed"),
                });
                self.actor = self.next_alive(i);
            }
            Action::Reroll => {
                self.log.push(LogEntry::Rerolled { seat });
                let claim = self.cup().claim.expect("claimed");
                // §Pass-back: the roller's reroll over Mia starts the claims afresh.
                let above = (claim != Throw::MIA).then_some(claim);
                self.roll_for(i, above);
            }
            Action::Challenge => {
                let cup = self.cup().clone();
                self.log.push(LogEntry::Challenged {
                    seat,
                    owner: cup.owner,
                });
                // §Opening: the roller opens, whoever owns the claim now.
                self.pending.push(ChanceRequest::OpenPrivate {
                    owner: cup.roller,
                    roll: cup.roll,
                });
                self.challenger = i;
                self.phase = Phase::Opening;
                // The next round's cup in the same batch, for whoever may open it: the owner's
                // side or the challenger's, whichever loses. Each candidate can work its dice
                // out only once the cup is opening; the one who does not open rolled for
                // nothing. A challenge that may end the game rolls nothing, so that no seat
                // owes a part of that pass after it could see who wins.
                if self.rolls_with_opening {
                    let cost = lives_at_stake(cup.claim.expect("a challenge follows a claim"));
                    let mut openers: Vec<usize> = Vec::new();
                    let mut may_end = false;
                    for loser in [self.index(cup.owner), i] {
                        match self.opener_if_lost(loser, cost) {
                            Some(o) if !openers.contains(&o) => openers.push(o),
                            Some(_) => {}
                            None => may_end = true,
                        }
                    }
                    if may_end {
                        openers.clear();
                    }
                    for o in openers {
                        self.pending.push(ChanceRequest::RollPrivate {
                            owner: self.players[o].seat,
                            sides: 6,
                            count: 2,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        crate::engine::check_chance_batch(&self.pending, outcomes, |_, o| self.check_outcome(o))?;
        self.pending.clear();
        match &outcomes[0] {
            ChanceOutcome::Rolled { values } => {
                let first = values[0] as usize - 1;
                self.log.push(LogEntry::Toss {
                    first: self.players[first].seat,
                });
                if outcomes.len() == 1 {
                    self.begin_round(first);
                    return Ok(());
                }
                let mut cups = self.rolled_with(&outcomes[1..]);
                let dice = cups
                    .remove(&self.players[first].seat)
                    .expect("every player was rolled for with the toss");
                self.begin_round_rolled(first, dice);
            }
            ChanceOutcome::RolledPrivate { owner, values } => {
                let i = self.index(*owner);
                self.players[i].rolls += 1;
                let cup = self.cup.as_mut().expect("a roll fills the cup");
                cup.dice = values.as_ref().map(|v| [v[0], v[1]]);
                let above = cup.claim;
                self.log.push(LogEntry::Rolled { seat: *owner });
                self.phase = Phase::Claim { above };
            }
            ChanceOutcome::Opened { values, .. } => {
                let dice = [values[0], values[1]];
                self.cup.as_mut().expect("opened cup").dice = Some(dice);
                let next = self.rolled_with(&outcomes[1..]);
                self.settle_challenge(dice, next);
            }
            o => unreachable!("checked: {o:?}"),
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> MiaView {
        MiaView::of(self, viewer)
    }

    /// §Timeouts: challenge a standing claim; after a roll, claim the weakest value allowed.
    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        self.check_turn(seat).ok()?;
        match self.phase {
            Phase::Respond => Some(Action::Challenge),
            Phase::Claim { above } => Some(Action::Claim(match above {
                None => self.ranking.weakest(),
                Some(a) => {
                    let r = self.ranking.rank(a);
                    self.ranking.best_first()[19 - r as usize]
                }
            })),
            _ => None,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        let last = self.players.iter().find(|p| p.lives > 0).map(|p| p.seat);
        let over = self.phase == Phase::Done;
        crate::games::dice::outcome(over, &self.seats(), &self.forfeited, last)
    }

    fn check_invariants(&self) -> Result<(), String> {
        let alive = self.alive();
        let ended = self.phase == Phase::Done && self.forfeited.is_empty();
        if alive == 0 || (alive == 1) != ended {
            return Err(format!("{alive} players alive in phase {:?}", self.phase));
        }
        if let Some(p) = self.players.iter().find(|p| p.lives > self.start_lives) {
            return Err(format!("seat {} has {} lives", p.seat, p.lives));
        }
        if let Some(cup) = &self.cup {
            if self.phase != Phase::Done {
                for s in [cup.roller, cup.owner] {
                    if self.player(s).is_none_or(|p| p.lives == 0) {
                        return Err(format!("seat {s} holds the cup without lives"));
                    }
                }
            }
            if cup.claim.is_some_and(|t| !t.is_valid()) {
                return Err(format!("invalid claim {:?}", cup.claim));
            }
            if let Some(d) = cup.dice {
                if d.iter().any(|x| !(1..=6).contains(x)) {
                    return Err(format!("cup holds {d:?}"));
                }
            }
        }
        if matches!(self.phase, Phase::Claim { .. } | Phase::Respond)
            && self.players[self.actor].lives == 0
        {
            return Err("a player without lives is to act".into());
        }
        Ok(())
    }

    fn probe_actions(&self, _seat: Seat) -> Vec<Action> {
        let mut v = vec![
            Action::Challenge,
            Action::Pass,
            Action::Reroll,
            Action::Claim(Throw(12)),
            Action::Claim(Throw(77)),
            Action::Claim(Throw(0)),
            Action::Raise(Throw(12)),
            Action::Raise(Throw::MIA),
            Action::Claim(Throw::MIA),
        ];
        v.extend(self.ranking.best_first().into_iter().map(Action::Claim));
        v.extend(
            self.ranking
                .best_first()
                .into_iter()
                .step_by(4)
                .map(Action::Raise),
        );
        v
    }

    crate::games::dice::seat_methods!();
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CupView {
    pub roller: Seat,
    pub owner: Seat,
    pub claim: Option<Throw>,
    /// The dice, for the roller (who looked at them) or once the cup is opened.
    pub dice: Option<[u8; 2]>,
}

/// What one seat (or a spectator) sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MiaView {
    pub viewer: Option<Seat>,
    pub ranking: Ranking,
    pub phase: Phase,
    pub round: u32,
    /// `(seat, lives)` clockwise.
    pub lives: Vec<(Seat, u8)>,
    pub cup: Option<CupView>,
    pub to_act: Option<Seat>,
    pub legal: Vec<Action>,
    pub log: Vec<LogEntry>,
    pub winner: Option<Seat>,
}

impl MiaView {
    pub fn of(g: &Mia, viewer: Option<Seat>) -> MiaView {
        MiaView {
            viewer,
            ranking: g.ranking,
            phase: g.phase,
            round: g.round,
            lives: g.players.iter().map(|p| (p.seat, p.lives)).collect(),
            cup: g.cup.as_ref().map(|c| CupView {
                roller: c.roller,
                owner: c.owner,
                claim: c.claim,
                // At the end, only a cup the last challenge opened is public: a table ended
                // by a forfeit must not show what the roller's own client alone knows.
                dice: if viewer == Some(c.roller)
                    || (g.phase == Phase::Done
                        && g.log
                            .iter()
                            .rev()
                            .take_while(|l| {
                                !matches!(l, LogEntry::Rolled { .. } | LogEntry::Rerolled { .. })
                            })
                            .any(|l| matches!(l, LogEntry::Opened { .. })))
                {
                    c.dice
                } else {
                    None
                },
            }),
            to_act: g.to_act().seat(),
            legal: viewer.map(|v| g.legal_actions(v)).unwrap_or_default(),
            log: g.log.clone(),
            winner: g.outcome().and_then(|o| o.winners.first().copied()),
        }
    }

    /// The viewer's own lives.
    pub fn my_lives(&self) -> Option<u8> {
        let v = self.viewer?;
        self.lives.iter().find(|(s, _)| *s == v).map(|(_, l)| *l)
    }
}
