//! All Fives: dominoes with one spinner, scoring multiples of five on the open ends.
//! Rules: `protocol/rules/all-fives.md` (§ numbers below refer to it).

use crate::cards::{CardId, DeckSpec};
use crate::engine::illegal;
use crate::engine::{ChanceOutcome, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat, ToAct};
use crate::games::dominoes::{self, Board, InPlay};
pub use crate::games::dominoes::{Held, Phase};
use serde::{Deserialize, Serialize};

/// Highest pip of the set (§2).
pub const MAX_PIP: u8 = 6;
/// Tiles in a double-six set.
pub const TILES: u16 = 28;

pub fn spec() -> DeckSpec {
    dominoes::set(MAX_PIP)
}

/// A tile's two halves, low first.
pub fn halves(id: CardId) -> (u8, u8) {
    dominoes::halves_in(MAX_PIP, id)
}

pub fn pips(id: CardId) -> u32 {
    let (a, b) = halves(id);
    u32::from(a) + u32::from(b)
}

/// Nearest multiple of five; …2 rounds down, …3 up (§7).
pub fn round5(n: u32) -> i64 {
    i64::from((n + 2) / 5 * 5)
}

/// Where a tile goes (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    Lead,
    West,
    East,
    North,
    South,
}

impl End {
    pub const SIDES: [End; 4] = [End::West, End::East, End::North, End::South];

    pub fn word(self) -> &'static str {
        match self {
            End::Lead => "lead",
            End::West => "west",
            End::East => "east",
            End::North => "north",
            End::South => "south",
        }
    }
}

/// A move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Take the next boneyard tile (no tile fits).
    Draw,
    /// The boneyard is empty and no tile fits.
    Pass,
    /// Set the tile at this deck position on this end.
    Play { position: u16, end: End },
}

/// The table's settings (§1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub players: u8,
    #[serde(default)]
    pub partnerships: bool,
    /// `None`: 250 at two players, 200 at three or four.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hands: Option<u32>,
}

impl Setup {
    /// The standard table: partnerships at four.
    pub fn new(players: u8) -> Setup {
        Setup {
            players,
            partnerships: players == 4,
            target: None,
            hands: None,
        }
    }

    pub fn target(&self) -> i64 {
        self.target
            .unwrap_or(if self.players == 2 { 250 } else { 200 })
    }

    /// Tiles dealt to each player (§2).
    pub fn hand_size(&self) -> u16 {
        match self.players {
            2 => 9,
            3 => 7,
            _ => 5,
        }
    }

    pub fn validate(&self) -> Result<(), RuleError> {
        let e = |m: String| Err(RuleError::Setup(m));
        if !(2..=4).contains(&self.players) {
            return e(format!(
                "All Fives seats 2 to 4 players, not {}",
                self.players
            ));
        }
        if self.partnerships && self.players != 4 {
            return e("partnerships need exactly 4 players".into());
        }
        let t = self.target();
        if !(5..=1000).contains(&t) || t % 5 != 0 {
            return e(format!(
                "the target must be a multiple of 5 from 5 to 1000, not {t}"
            ));
        }
        if self.hands.is_some_and(|h| !(1..=1000).contains(&h)) {
            return e("hands must be from 1 to 1000".into());
        }
        Ok(())
    }
}

/// The tiles on the table (§4). Tiles are stored as their visible halves: the line west to
/// east as `(west, east)`, the arms from the spinner outwards as `(inner, outer)`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Layout {
    pub line: Vec<(u8, u8)>,
    pub north: Vec<(u8, u8)>,
    pub south: Vec<(u8, u8)>,
    /// Index of the first double in `line`.
    pub spinner: Option<usize>,
}

fn end_value(t: (u8, u8), outer: u8) -> u32 {
    if t.0 == t.1 {
        2 * u32::from(outer)
    } else {
        u32::from(outer)
    }
}

impl Layout {
    pub fn is_empty(&self) -> bool {
        self.line.is_empty()
    }

    pub fn tiles(&self) -> usize {
        self.line.len() + self.north.len() + self.south.len()
    }

    /// Whether both sides of the spinner are covered, so north and south may start.
    pub fn branches_open(&self) -> bool {
        self.spinner
            .is_some_and(|i| i > 0 && i + 1 < self.line.len())
    }

    fn spinner_pip(&self) -> Option<u8> {
        self.spinner.map(|i| self.line[i].0)
    }

    /// The number an end shows, if a tile may be set there now.
    pub fn open(&self, end: End) -> Option<u8> {
        let arm = |arm: &Vec<(u8, u8)>| {
            if !self.branches_open() {
                return None;
            }
            arm.last().map(|t| t.1).or(self.spinner_pip())
        };
        match end {
            End::Lead => None,
            End::West => self.line.first().map(|t| t.0),
            End::East => self.line.last().map(|t| t.1),
            End::North => arm(&self.north),
            End::South => arm(&self.south),
        }
    }

    /// The open ends and the numbers they show.
    pub fn ends(&self) -> Vec<(End, u8)> {
        End::SIDES
            .iter()
            .filter_map(|e| self.open(*e).map(|p| (*e, p)))
            .collect()
    }

    pub fn fits(&self, tile: (u8, u8), end: End) -> bool {
        match end {
            End::Lead => self.is_empty(),
            _ => self.open(end).is_some_and(|p| tile.0 == p || tile.1 == p),
        }
    }

    /// Ends this tile may go on, ascending.
    pub fn ends_for(&self, tile: (u8, u8)) -> Vec<End> {
        if self.is_empty() {
            return vec![End::Lead];
        }
        End::SIDES
            .iter()
            .copied()
            .filter(|e| self.fits(tile, *e))
            .collect()
    }

    /// Sets a tile that fits (checked by the caller).
    pub fn place(&mut self, tile: (u8, u8), end: End) {
        let double = tile.0 == tile.1;
        let other = |p: u8| if tile.0 == p { tile.1 } else { tile.0 };
        match end {
            End::Lead => {
                self.line = vec![tile];
                if double {
                    self.spinner = Some(0);
                }
            }
            End::West => {
                let p = self.line[0].0;
                self.line.insert(0, (other(p), p));
                match self.spinner {
                    Some(i) => self.spinner = Some(i + 1),
                    None if double => self.spinner = Some(0),
                    None => {}
                }
            }
            End::East => {
                let p = self.line[self.line.len() - 1].1;
                self.line.push((p, other(p)));
                if double && self.spinner.is_none() {
                    self.spinner = Some(self.line.len() - 1);
                }
            }
            End::North | End::South => {
                let p = self.open(end).unwrap_or(tile.0);
                let arm = if end == End::North {
                    &mut self.north
                } else {
                    &mut self.south
                };
                arm.push((p, other(p)));
            }
        }
    }

    /// The sum of the open ends (§5).
    pub fn count(&self) -> u32 {
        let Some(&w) = self.line.first() else {
            return 0;
        };
        if self.line.len() == 1 {
            return u32::from(w.0) + u32::from(w.1);
        }
        let e = self.line[self.line.len() - 1];
        let mut sum = end_value(w, w.0) + end_value(e, e.1);
        for arm in [&self.north, &self.south] {
            if let Some(&t) = arm.last() {
                sum += end_value(t, t.1);
            }
        }
        sum
    }

    /// The points a count scores: itself when a positive multiple of five.
    pub fn score(&self) -> i64 {
        let c = self.count();
        if c > 0 && c.is_multiple_of(5) {
            i64::from(c)
        } else {
            0
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandEnd {
    Domino(Seat),
    Blocked,
}

/// The record, all of it public.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Entry {
    Hand {
        number: u32,
        leader: Seat,
        by_lot: bool,
    },
    Played {
        seat: Seat,
        tile: CardId,
        end: End,
        count: u32,
        scored: i64,
    },
    Drew {
        seat: Seat,
    },
    Passed {
        seat: Seat,
    },
    Ended {
        how: HandEnd,
    },
    Showed {
        seat: Seat,
        tiles: Vec<CardId>,
    },
    HandScored {
        seats: Vec<Seat>,
        points: i64,
    },
    Misplayed {
        seat: Seat,
        tile: CardId,
        end: End,
    },
    Forfeited {
        seat: Seat,
        reason: ForfeitReason,
    },
    Over {
        winners: Vec<Seat>,
    },
}

/// A whole game of All Fives, as one client knows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllFives {
    pub board: Board<End>,
    pub setup: Setup,
    /// Sides: one seat each, or two partners.
    pub teams: Vec<Vec<Seat>>,
    /// Points per side.
    pub scores: Vec<i64>,
    /// Hands started; the current hand's deck id.
    pub hand: u32,
    pub layout: Layout,
    /// Passes in a row (§6).
    pub passes: u8,
    /// Who leads the next hand: the last to domino, or nobody (by lot).
    pub leader: Option<Seat>,
    pub ended: Option<HandEnd>,
    pub log: Vec<Entry>,
}

impl AllFives {
    pub fn new(setup: &Setup) -> Result<AllFives, RuleError> {
        setup.validate()?;
        let n = setup.players;
        let teams: Vec<Vec<Seat>> = if setup.partnerships {
            vec![vec![0, 2], vec![1, 3]]
        } else {
            (0..n).map(|s| vec![s]).collect()
        };
        let mut g = AllFives {
            board: Board::new(),
            setup: setup.clone(),
            scores: vec![0; teams.len()],
            teams,
            hand: 0,
            layout: Layout::default(),
            passes: 0,
            leader: None,
            ended: None,
            log: Vec::new(),
        };
        g.deal();
        Ok(g)
    }

    fn deck(&self) -> DeckId {
        self.hand
    }

    pub fn team_of(&self, seat: Seat) -> usize {
        self.teams
            .iter()
            .position(|t| t.contains(&seat))
            .unwrap_or(0)
    }

    pub fn boneyard(&self) -> usize {
        usize::from(TILES.saturating_sub(self.board.next_position))
    }

    /// A new hand: a new deck, every hand dealt, and the lot if nobody dominoed (§2, §3).
    fn deal(&mut self) {
        let deck = self.deck();
        let k = self.setup.hand_size();
        self.layout = Layout::default();
        self.passes = 0;
        self.ended = None;
        let lot = self.leader.is_none();
        self.board.deal(deck, spec(), self.setup.players, k, lot);
    }

    fn next_seat(&self, s: Seat) -> Seat {
        (s + 1) % self.setup.players
    }

    /// Points to a side; the game ends at once when it reaches the target (§8).
    fn award(&mut self, team: usize, points: i64) {
        self.scores[team] += points;
        if self.scores[team] >= self.setup.target() {
            self.finish();
        }
    }

    fn finish(&mut self) {
        self.board.finish();
        let winners = self.winners();
        self.log.push(Entry::Over { winners });
    }

    /// The side(s) with the best score among those with no removed member.
    pub fn winners(&self) -> Vec<Seat> {
        let eligible: Vec<usize> = (0..self.teams.len())
            .filter(|t| {
                !self.teams[*t]
                    .iter()
                    .any(|s| self.board.removed.contains(s))
            })
            .collect();
        let Some(best) = eligible.iter().map(|t| self.scores[*t]).max() else {
            return Vec::new();
        };
        let mut w: Vec<Seat> = eligible
            .iter()
            .filter(|t| self.scores[**t] == best)
            .flat_map(|t| self.teams[*t].clone())
            .collect();
        w.sort_unstable();
        w
    }

    fn after_play(&mut self, seat: Seat, tile: CardId, end: End) {
        self.layout.place(halves(tile), end);
        let scored = self.layout.score();
        self.log.push(Entry::Played {
            seat,
            tile,
            end,
            count: self.layout.count(),
            scored,
        });
        self.passes = 0;
        if scored > 0 {
            self.award(self.team_of(seat), scored);
            if self.board.phase == Phase::Done {
                return;
            }
        }
        if self.board.hands.get(&seat).is_none_or(|h| h.is_empty()) {
            self.end_hand(HandEnd::Domino(seat));
        } else {
            self.board.turn = self.next_seat(seat);
        }
    }

    /// Every held tile is shown so that everyone can count the hand (§7).
    pub(super) fn end_hand(&mut self, how: HandEnd) {
        self.log.push(Entry::Ended { how });
        self.ended = Some(how);
        if !self.board.show(self.deck()) {
            self.score_hand();
        }
    }

    fn score_hand(&mut self) {
        for (s, h) in &self.board.hands {
            self.log.push(Entry::Showed {
                seat: *s,
                tiles: h.iter().filter_map(|x| x.tile).collect(),
            });
        }
        let side_pips: Vec<u32> = self
            .teams
            .iter()
            .map(|t| {
                t.iter()
                    .flat_map(|s| self.board.hands.get(s).into_iter().flatten())
                    .filter_map(|h| h.tile)
                    .map(pips)
                    .sum()
            })
            .collect();
        let total: u32 = side_pips.iter().sum();
        let mut awards: Vec<(usize, i64)> = Vec::new();
        match self.ended {
            Some(HandEnd::Domino(s)) => {
                let t = self.team_of(s);
                awards.push((t, round5(total - side_pips[t])));
                self.leader = Some(s);
            }
            _ => {
                self.leader = None;
                let least = side_pips.iter().copied().min().unwrap_or(0);
                let low: Vec<usize> = (0..side_pips.len())
                    .filter(|t| side_pips[*t] == least)
                    .collect();
                if low.len() == 1 {
                    awards.push((low[0], round5(total - least)));
                } else if side_pips.len() == 3 && low.len() == 2 {
                    let third = total - 2 * least;
                    let half = i64::from((third + 5) / 10 * 10) / 2;
                    awards.extend(low.iter().map(|t| (*t, half)));
                }
            }
        }
        if awards.is_empty() {
            self.log.push(Entry::HandScored {
                seats: Vec::new(),
                points: 0,
            });
        }
        for (t, p) in &awards {
            self.log.push(Entry::HandScored {
                seats: self.teams[*t].clone(),
                points: *p,
            });
        }
        for (t, p) in awards {
            self.scores[t] += p;
        }
        if self.scores.iter().any(|s| *s >= self.setup.target())
            || self.setup.hands.is_some_and(|h| self.hand + 1 >= h)
        {
            self.finish();
            return;
        }
        self.hand += 1;
        self.deal();
    }

    /// Ends the game with these seats removed (§9).
    fn remove(&mut self, offenders: &[Seat]) {
        self.board.remove(offenders);
        self.finish();
    }
}

/// What one seat (or a spectator) sees (§10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllFivesView {
    pub viewer: Option<Seat>,
    pub players: u8,
    pub teams: Vec<Vec<Seat>>,
    pub scores: Vec<i64>,
    pub target: i64,
    /// The hand being played, from 1.
    pub hand: u32,
    pub phase: Phase,
    pub to_act: Vec<Seat>,
    pub layout: Layout,
    pub ends: Vec<(End, u8)>,
    pub count: u32,
    /// The viewer's tiles: deck position and tile.
    pub tiles: Vec<(u16, CardId)>,
    pub held: Vec<(Seat, usize)>,
    pub boneyard: usize,
    pub legal: Vec<Action>,
    pub log: Vec<Entry>,
}

impl Game for AllFives {
    type Action = Action;
    type View = AllFivesView;
    const NAME: &'static str = "all-fives";
    /// Hand after hand of the same set to the same players: the next one is keyed and shuffled
    /// during this one, from protocol version 9 (PROTOCOL.md §5.9).
    const SHUFFLES_AHEAD: bool = true;
    const SHUFFLES_AHEAD_SINCE: u8 = 9;

    fn to_act(&self) -> ToAct {
        self.board.to_act()
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if self.board.mover() != Some(seat) {
            return Vec::new();
        }
        let plays = dominoes::plays(
            &self.board.hands,
            seat,
            |t| self.layout.ends_for(halves(t)),
            |position, end| Action::Play { position, end },
        );
        if !plays.is_empty() {
            plays
        } else if self.boneyard() > 0 {
            vec![Action::Draw]
        } else {
            vec![Action::Pass]
        }
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        self.board.check_turn(seat)?;
        // What the others cannot see (whether a draw or pass was forced) is not checked here:
        // every client must accept the same moves from public data (§6).
        match *action {
            Action::Draw => {
                if self.layout.is_empty() {
                    return Err(illegal(seat, "the leader sets a tile"));
                }
                if self.boneyard() == 0 {
                    return Err(illegal(seat, "the boneyard is empty"));
                }
                self.board.draw(self.deck(), seat);
            }
            Action::Pass => {
                if self.layout.is_empty() {
                    return Err(illegal(seat, "the leader sets a tile"));
                }
                if self.boneyard() > 0 {
                    return Err(illegal(seat, "draw while the boneyard has tiles"));
                }
                self.log.push(Entry::Passed { seat });
                self.passes += 1;
                if self.passes >= self.setup.players {
                    self.end_hand(HandEnd::Blocked);
                } else {
                    self.board.turn = self.next_seat(seat);
                }
            }
            Action::Play { position, end } => {
                let Some(h) = dominoes::held(&self.board.hands, seat, position) else {
                    return Err(illegal(seat, "that tile is not in the hand"));
                };
                if end == End::Lead {
                    if !self.layout.is_empty() {
                        return Err(illegal(seat, "the lead is taken"));
                    }
                } else if self.layout.open(end).is_none() {
                    return Err(illegal(seat, format!("the {} end is not open", end.word())));
                }
                if let Some(t) = h.tile {
                    if !self.layout.fits(halves(t), end) {
                        return Err(illegal(
                            seat,
                            format!("{} does not fit the {} end", spec().name(t), end.word()),
                        ));
                    }
                }
                self.board.play(self.deck(), seat, position, end);
            }
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        let pending = self.board.accept(outcomes, &spec())?;
        match self.board.phase {
            Phase::Deal => {
                let lot = self.board.take_deal(&pending, outcomes, self.setup.players);
                let by_lot = lot.is_some();
                self.leader = lot.or(self.leader);
                let leader = self.leader.unwrap_or(0);
                self.board.turn = leader;
                self.board.phase = Phase::Play;
                self.log.push(Entry::Hand {
                    number: self.hand + 1,
                    leader,
                    by_lot,
                });
            }
            Phase::Play => {
                let layout = &self.layout;
                let fits = |t, end: &End| layout.fits(halves(t), *end);
                match self.board.take_in_play(&pending, outcomes, fits)? {
                    InPlay::Drew(seat) => self.log.push(Entry::Drew { seat }),
                    InPlay::Fits { seat, tile, spot } => self.after_play(seat, tile, spot),
                    InPlay::Misfit { seat, tile, spot } => {
                        self.log.push(Entry::Misplayed {
                            seat,
                            tile,
                            end: spot,
                        });
                        self.remove(&[seat]);
                    }
                    InPlay::Nothing => {}
                }
            }
            Phase::Show => {
                dominoes::learn_all(&mut self.board.hands, outcomes);
                self.score_hand();
            }
            Phase::Done => {}
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> AllFivesView {
        AllFivesView {
            viewer,
            players: self.setup.players,
            teams: self.teams.clone(),
            scores: self.scores.clone(),
            target: self.setup.target(),
            hand: self.hand + 1,
            phase: self.board.phase,
            to_act: self.board.mover().into_iter().collect(),
            layout: self.layout.clone(),
            ends: self.layout.ends(),
            count: self.layout.count(),
            tiles: viewer
                .map(|v| dominoes::known(&self.board.hands, v).collect())
                .unwrap_or_default(),
            held: dominoes::counts(&self.board.hands),
            boneyard: self.boneyard(),
            legal: viewer.map(|v| self.legal_actions(v)).unwrap_or_default(),
            log: self.log.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        self.board.mover().filter(|m| *m == seat)?;
        Some(if self.layout.is_empty() {
            Action::Play {
                position: self.board.hands.get(&seat)?.first()?.position,
                end: End::Lead,
            }
        } else if self.boneyard() > 0 {
            Action::Draw
        } else {
            Action::Pass
        })
    }

    fn outcome(&self) -> Option<Outcome> {
        dominoes::outcome(
            self.board.phase,
            self.setup.players,
            |s| self.scores[self.team_of(s)],
            || self.winners(),
        )
    }

    fn check_invariants(&self) -> Result<(), String> {
        let n = dominoes::check_held(&self.board.hands, self.board.next_position, "boneyard")?;
        if self.board.settled() && self.layout.tiles() + n + self.boneyard() != usize::from(TILES) {
            return Err(format!(
                "tiles not conserved: {} set, {n} held, {} in the boneyard",
                self.layout.tiles(),
                self.boneyard()
            ));
        }
        if self.scores.iter().any(|s| s % 5 != 0 || *s < 0) {
            return Err(format!("scores not in fives: {:?}", self.scores));
        }
        Ok(())
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = self.legal_actions(seat);
        v.extend([Action::Draw, Action::Pass]);
        for p in [0, 5, 27, 40] {
            for end in [End::Lead, End::West, End::North] {
                v.push(Action::Play { position: p, end });
            }
        }
        v
    }

    dominoes::seat_methods!();
}
