//! Chickenfoot: branching dominoes from a centerpiece double, lowest pips wins.
//! Rules: `protocol/rules/chickenfoot.md` (§ numbers below refer to it).

use crate::cards::{CardId, DeckSpec};
use crate::engine::illegal;
use crate::engine::{ChanceOutcome, DeckId, ForfeitReason, Game, Outcome, RuleError, Seat, ToAct};
use crate::games::dominoes::{self, Board, InPlay};
pub use crate::games::dominoes::{halves_in, set, Held, Phase};
use serde::{Deserialize, Serialize};

/// Toes a double needs before play goes on elsewhere (§5).
pub const TOES: u8 = 3;
/// Arms the centerpiece needs before play goes on elsewhere (§4).
pub const ARMS: usize = 4;

/// What a tile left in hand costs (§8): its pips, but the double blank costs 50.
pub fn cost(t: (u8, u8)) -> u32 {
    if t == (0, 0) {
        50
    } else {
        u32::from(t.0) + u32::from(t.1)
    }
}

/// The id of the double `d` in this set.
pub fn double_id(max_pip: u8, d: u8) -> CardId {
    let spec = set(max_pip);
    (0..spec.len() as u16)
        .map(CardId)
        .find(|c| spec.domino(*c) == Some((d, d)))
        .unwrap_or(CardId(0))
}

/// A round's deck: the set without the centerpiece double, which is placed face up (§3).
pub fn round_spec(max_pip: u8, center: u8) -> DeckSpec {
    let base = set(max_pip);
    let skip = double_id(max_pip, center);
    DeckSpec::Subset {
        cards: base.cards().into_iter().filter(|c| *c != skip).collect(),
        base: Box::new(base),
    }
}

/// Where a tile goes (§4, §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Spot {
    /// A new arm off the centerpiece.
    Center,
    /// A new toe off the double that ends this line.
    Toe(u16),
    /// The open end of this line.
    End(u16),
}

/// A move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Take one tile from the chicken yard (no tile fits).
    Draw,
    /// After a draw that did not fit; or, with the yard empty, "no draw": the round ends.
    Pass,
    /// Set the tile at this deck position there.
    Play { position: u16, spot: Spot },
}

/// The table's settings (§1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub players: u8,
    /// The set's highest double: 9, 12 or 15; `None`: by the number of players (§2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<u8>,
    /// Stop after this many rounds; `None`: every double down to the double blank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
}

/// The source's draw table (§2): tiles each, by set and players 2..=12.
const DRAW: [(u8, [u16; 11]); 3] = [
    (9, [14, 10, 7, 6, 5, 0, 0, 0, 0, 0, 0]),
    (12, [0, 0, 12, 10, 8, 7, 6, 5, 0, 0, 0]),
    (15, [0, 0, 0, 0, 12, 10, 9, 8, 7, 7, 6]),
];

impl Setup {
    pub fn new(players: u8) -> Setup {
        Setup {
            players,
            set: None,
            rounds: None,
        }
    }

    pub fn max_pip(&self) -> u8 {
        self.set.unwrap_or(match self.players {
            0..=3 => 9,
            4..=9 => 12,
            _ => 15,
        })
    }

    /// Tiles dealt to each player, if the set seats this many.
    pub fn hand_size(&self) -> Option<u16> {
        let m = self.max_pip();
        let i = usize::from(self.players.checked_sub(2)?);
        DRAW.iter()
            .find(|(s, _)| *s == m)
            .and_then(|(_, row)| row.get(i).copied())
            .filter(|k| *k > 0)
    }

    /// Rounds to play: the set's doubles from the highest, at most `rounds`.
    pub fn rounds(&self) -> u32 {
        let all = u32::from(self.max_pip()) + 1;
        self.rounds.map_or(all, |r| r.min(all))
    }

    pub fn validate(&self) -> Result<(), RuleError> {
        let e = |m: String| Err(RuleError::Setup(m));
        if !(2..=12).contains(&self.players) {
            return e(format!(
                "Chickenfoot seats 2 to 12 players, not {}",
                self.players
            ));
        }
        if ![9, 12, 15].contains(&self.max_pip()) {
            return e(format!(
                "the set is double-9, double-12 or double-15, not double-{}",
                self.max_pip()
            ));
        }
        if self.hand_size().is_none() {
            return e(format!(
                "a double-{} set does not seat {} players",
                self.max_pip(),
                self.players
            ));
        }
        if self.rounds.is_some_and(|r| !(1..=1000).contains(&r)) {
            return e("rounds must be from 1 to 1000".into());
        }
        Ok(())
    }
}

/// A line of tiles from the centerpiece or a double, outwards, each stored as `(inner, outer)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// `None`: an arm of the centerpiece; `Some(i)`: a toe of the double ending line `i`.
    pub from: Option<u16>,
    pub tiles: Vec<(u8, u8)>,
}

/// The tiles on the table (§4, §5).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Layout {
    /// The centerpiece double's number.
    pub center: u8,
    pub lines: Vec<Line>,
    /// The double being chickenfooted: the line it ends and the toes it still needs.
    pub foot: Option<(u16, u8)>,
}

impl Layout {
    pub fn new(center: u8) -> Layout {
        Layout {
            center,
            lines: Vec::new(),
            foot: None,
        }
    }

    pub fn arms(&self) -> usize {
        self.lines.iter().filter(|l| l.from.is_none()).count()
    }

    /// Tiles set, the centerpiece not counted.
    pub fn tiles(&self) -> usize {
        self.lines.iter().map(|l| l.tiles.len()).sum()
    }

    /// Where a tile may go now and the number it must match (§4, §5): the centerpiece until it
    /// has four arms, then the pending chickenfoot, then every open end. A line ending in a
    /// double continues only through its toes.
    pub fn spots(&self) -> Vec<(Spot, u8)> {
        if self.arms() < ARMS {
            return vec![(Spot::Center, self.center)];
        }
        if let Some((l, _)) = self.foot {
            let p = self.lines[usize::from(l)].tiles.last().map_or(0, |t| t.1);
            return vec![(Spot::Toe(l), p)];
        }
        self.lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                let t = l.tiles.last()?;
                (t.0 != t.1).then_some((Spot::End(i as u16), t.1))
            })
            .collect()
    }

    pub fn fits(&self, tile: (u8, u8), spot: Spot) -> bool {
        self.spots()
            .iter()
            .any(|(s, p)| *s == spot && (tile.0 == *p || tile.1 == *p))
    }

    pub fn spots_for(&self, tile: (u8, u8)) -> Vec<Spot> {
        self.spots()
            .into_iter()
            .filter(|(_, p)| tile.0 == *p || tile.1 == *p)
            .map(|(s, _)| s)
            .collect()
    }

    /// Sets a tile that fits (checked by the caller).
    pub fn place(&mut self, tile: (u8, u8), spot: Spot) {
        let Some(&(_, p)) = self.spots().iter().find(|(s, _)| *s == spot) else {
            return;
        };
        let t = (p, if tile.0 == p { tile.1 } else { tile.0 });
        match spot {
            Spot::Center => self.lines.push(Line {
                from: None,
                tiles: vec![t],
            }),
            Spot::Toe(l) => {
                self.lines.push(Line {
                    from: Some(l),
                    tiles: vec![t],
                });
                self.foot = match self.foot {
                    Some((l, k)) if k > 1 => Some((l, k - 1)),
                    _ => None,
                };
            }
            Spot::End(l) => {
                self.lines[usize::from(l)].tiles.push(t);
                if t.0 == t.1 {
                    self.foot = Some((l, TOES));
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundEnd {
    /// This player set their last tile.
    Out(Seat),
    /// This player could not play with the chicken yard empty.
    NoDraw(Seat),
}

/// The record, all of it public.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Entry {
    Round {
        number: u32,
        center: u8,
        first: Seat,
        by_lot: bool,
    },
    Played {
        seat: Seat,
        tile: CardId,
        halves: (u8, u8),
        spot: Spot,
    },
    /// One tile left in that hand ("bok bok"), announced by the table itself.
    LastTile {
        seat: Seat,
    },
    Drew {
        seat: Seat,
    },
    Passed {
        seat: Seat,
    },
    Ended {
        how: RoundEnd,
    },
    Showed {
        seat: Seat,
        tiles: Vec<(u8, u8)>,
        points: u32,
    },
    Misplayed {
        seat: Seat,
        tile: CardId,
        spot: Spot,
    },
    Forfeited {
        seat: Seat,
        reason: ForfeitReason,
    },
    Over {
        winners: Vec<Seat>,
    },
}

/// A whole game of Chickenfoot, as one client knows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chickenfoot {
    pub board: Board<Spot>,
    pub setup: Setup,
    /// Points per seat, lower is better.
    pub scores: Vec<i64>,
    /// Rounds started, from 0; the current round's deck id.
    pub round: u32,
    pub layout: Layout,
    /// The player to move has drawn this turn (§6).
    pub drew: bool,
    /// Who set off the first round (by lot); later rounds move one seat clockwise.
    pub first: Option<Seat>,
    pub ended: Option<RoundEnd>,
    pub log: Vec<Entry>,
}

impl Chickenfoot {
    pub fn new(setup: &Setup) -> Result<Chickenfoot, RuleError> {
        setup.validate()?;
        let mut g = Chickenfoot {
            board: Board::new(),
            setup: setup.clone(),
            scores: vec![0; usize::from(setup.players)],
            round: 0,
            layout: Layout::default(),
            drew: false,
            first: None,
            ended: None,
            log: Vec::new(),
        };
        g.deal();
        Ok(g)
    }

    fn deck(&self) -> DeckId {
        self.round
    }

    /// This round's centerpiece: the highest double first, one lower each round (§3).
    pub fn center(&self) -> u8 {
        self.setup
            .max_pip()
            .saturating_sub(u8::try_from(self.round).unwrap_or(u8::MAX))
    }

    pub fn spec(&self) -> DeckSpec {
        round_spec(self.setup.max_pip(), self.center())
    }

    /// Tiles in this round's deck (the set less the centerpiece).
    pub fn deck_len(&self) -> u16 {
        set(self.setup.max_pip()).len() as u16 - 1
    }

    pub fn halves(&self, id: CardId) -> (u8, u8) {
        halves_in(self.setup.max_pip(), id)
    }

    pub fn yard(&self) -> usize {
        usize::from(self.deck_len().saturating_sub(self.board.next_position))
    }

    fn players(&self) -> Vec<Seat> {
        (0..self.setup.players).collect()
    }

    /// A new round: the centerpiece set out, a new deck of the rest, every hand dealt (§3).
    fn deal(&mut self) {
        let deck = self.deck();
        let k = self.setup.hand_size().unwrap_or(1);
        self.layout = Layout::new(self.center());
        self.drew = false;
        self.ended = None;
        let (spec, lot) = (self.spec(), self.first.is_none());
        self.board.deal(deck, spec, self.setup.players, k, lot);
    }

    fn next_seat(&self, s: Seat) -> Seat {
        (s + 1) % self.setup.players
    }

    fn finish(&mut self) {
        self.board.finish();
        let winners = self.winners();
        self.log.push(Entry::Over { winners });
    }

    /// The seats with the fewest points among those not removed (§9, §10).
    pub fn winners(&self) -> Vec<Seat> {
        let eligible: Vec<Seat> = self
            .players()
            .into_iter()
            .filter(|s| !self.board.removed.contains(s))
            .collect();
        let Some(best) = eligible.iter().map(|s| self.scores[usize::from(*s)]).min() else {
            return Vec::new();
        };
        eligible
            .into_iter()
            .filter(|s| self.scores[usize::from(*s)] == best)
            .collect()
    }

    fn after_play(&mut self, seat: Seat, tile: CardId, spot: Spot) {
        let halves = self.halves(tile);
        self.layout.place(halves, spot);
        self.log.push(Entry::Played {
            seat,
            tile,
            halves,
            spot,
        });
        self.drew = false;
        match self.board.hands.get(&seat).map_or(0, Vec::len) {
            0 => self.end_round(RoundEnd::Out(seat)),
            1 => {
                self.log.push(Entry::LastTile { seat });
                self.board.turn = self.next_seat(seat);
            }
            _ => self.board.turn = self.next_seat(seat),
        }
    }

    /// Every held tile is shown: each player's score is their own pips, which every client
    /// must be able to add up from public data (§7).
    pub(super) fn end_round(&mut self, how: RoundEnd) {
        self.log.push(Entry::Ended { how });
        self.ended = Some(how);
        if !self.board.show(self.deck()) {
            self.score_round();
        }
    }

    fn score_round(&mut self) {
        for s in self.players() {
            let tiles: Vec<(u8, u8)> = self
                .board
                .hands
                .get(&s)
                .into_iter()
                .flatten()
                .filter_map(|h| h.tile.map(|t| self.halves(t)))
                .collect();
            let points: u32 = tiles.iter().map(|t| cost(*t)).sum();
            self.scores[usize::from(s)] += i64::from(points);
            self.log.push(Entry::Showed {
                seat: s,
                tiles,
                points,
            });
        }
        if self.round + 1 >= self.setup.rounds() {
            self.finish();
            return;
        }
        self.round += 1;
        self.deal();
    }

    /// Ends the game with these seats removed (§9).
    fn remove(&mut self, offenders: &[Seat]) {
        self.board.remove(offenders);
        self.finish();
    }

    /// The plays this seat's known tiles allow, ascending.
    fn plays(&self, seat: Seat) -> Vec<Action> {
        dominoes::plays(
            &self.board.hands,
            seat,
            |t| self.layout.spots_for(self.halves(t)),
            |position, spot| Action::Play { position, spot },
        )
    }
}

/// What one seat (or a spectator) sees (§11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChickenfootView {
    pub viewer: Option<Seat>,
    pub players: u8,
    pub max_pip: u8,
    pub scores: Vec<i64>,
    /// The round being played, from 1, and how many there are.
    pub round: u32,
    pub rounds: u32,
    pub phase: Phase,
    pub to_act: Vec<Seat>,
    pub layout: Layout,
    /// Where a tile may go now, and the number it must match.
    pub spots: Vec<(Spot, u8)>,
    /// The viewer's tiles: deck position and halves.
    pub tiles: Vec<(u16, (u8, u8))>,
    pub held: Vec<(Seat, usize)>,
    pub yard: usize,
    pub drew: bool,
    pub legal: Vec<Action>,
    pub log: Vec<Entry>,
}

impl ChickenfootView {
    /// Whether this seat's pass is the No Draw (§6): nothing fits, nothing was drawn this turn
    /// and the yard is empty, so the pass ends the round for everyone.
    pub fn pass_ends_round(&self) -> bool {
        self.legal == [Action::Pass] && !self.drew && self.yard == 0
    }
}

impl Game for Chickenfoot {
    type Action = Action;
    type View = ChickenfootView;
    const NAME: &'static str = "chickenfoot";

    fn to_act(&self) -> ToAct {
        self.board.to_act()
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        if self.board.mover() != Some(seat) {
            return Vec::new();
        }
        let plays = self.plays(seat);
        if !plays.is_empty() {
            plays
        } else if !self.drew && self.yard() > 0 {
            vec![Action::Draw]
        } else {
            vec![Action::Pass]
        }
    }

    fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        self.board.check_turn(seat)?;
        // Whether a draw or a pass was forced is not checked: the others cannot see the hand,
        // and every client must accept the same moves from public data (§6).
        match *action {
            Action::Draw => {
                if self.drew {
                    return Err(illegal(seat, "one draw a turn"));
                }
                if self.yard() == 0 {
                    return Err(illegal(seat, "the chicken yard is empty"));
                }
                self.board.draw(self.deck(), seat);
                self.drew = true;
            }
            Action::Pass => {
                if self.drew {
                    self.log.push(Entry::Passed { seat });
                    self.drew = false;
                    self.board.turn = self.next_seat(seat);
                } else if self.yard() == 0 {
                    self.end_round(RoundEnd::NoDraw(seat));
                } else {
                    return Err(illegal(seat, "draw before passing"));
                }
            }
            Action::Play { position, spot } => {
                let Some(h) = dominoes::held(&self.board.hands, seat, position) else {
                    return Err(illegal(seat, "that tile is not in the hand"));
                };
                if !self.layout.spots().iter().any(|(s, _)| *s == spot) {
                    return Err(illegal(seat, "no tile may go there now"));
                }
                if let Some(t) = h.tile {
                    if !self.layout.fits(self.halves(t), spot) {
                        return Err(illegal(seat, "that tile does not match there"));
                    }
                }
                self.board.play(self.deck(), seat, position, spot);
            }
        }
        Ok(())
    }

    fn apply_chance(&mut self, outcomes: &[ChanceOutcome]) -> Result<(), RuleError> {
        let spec = self.spec();
        let pending = self.board.accept(outcomes, &spec)?;
        match self.board.phase {
            Phase::Deal => {
                let lot = self.board.take_deal(&pending, outcomes, self.setup.players);
                let by_lot = lot.is_some();
                self.first = lot.or(self.first);
                let n = u32::from(self.setup.players);
                let first = ((u32::from(self.first.unwrap_or(0)) + self.round) % n) as Seat;
                self.board.turn = first;
                self.board.phase = Phase::Play;
                self.log.push(Entry::Round {
                    number: self.round + 1,
                    center: self.center(),
                    first,
                    by_lot,
                });
            }
            Phase::Play => {
                let (layout, max_pip) = (&self.layout, self.setup.max_pip());
                let fits = |t, spot: &Spot| layout.fits(halves_in(max_pip, t), *spot);
                match self.board.take_in_play(&pending, outcomes, fits)? {
                    InPlay::Drew(seat) => self.log.push(Entry::Drew { seat }),
                    InPlay::Fits { seat, tile, spot } => self.after_play(seat, tile, spot),
                    InPlay::Misfit { seat, tile, spot } => {
                        self.log.push(Entry::Misplayed { seat, tile, spot });
                        self.remove(&[seat]);
                    }
                    InPlay::Nothing => {}
                }
            }
            Phase::Show => {
                dominoes::learn_all(&mut self.board.hands, outcomes);
                self.score_round();
            }
            Phase::Done => {}
        }
        Ok(())
    }

    fn view(&self, viewer: Option<Seat>) -> ChickenfootView {
        ChickenfootView {
            viewer,
            players: self.setup.players,
            max_pip: self.setup.max_pip(),
            scores: self.scores.clone(),
            round: self.round + 1,
            rounds: self.setup.rounds(),
            phase: self.board.phase,
            to_act: self.board.mover().into_iter().collect(),
            layout: self.layout.clone(),
            spots: self.layout.spots(),
            tiles: viewer
                .map(|v| {
                    dominoes::known(&self.board.hands, v)
                        .map(|(p, t)| (p, self.halves(t)))
                        .collect()
                })
                .unwrap_or_default(),
            held: dominoes::counts(&self.board.hands),
            yard: self.yard(),
            drew: self.drew,
            legal: viewer.map(|v| self.legal_actions(v)).unwrap_or_default(),
            log: self.log.clone(),
        }
    }

    fn timeout_action(&self, seat: Seat) -> Option<Action> {
        self.board.mover().filter(|m| *m == seat)?;
        Some(if !self.drew && self.yard() > 0 {
            Action::Draw
        } else {
            Action::Pass
        })
    }

    fn outcome(&self) -> Option<Outcome> {
        // Points are a cost: the payoff is their negative, so more is better as elsewhere.
        let payoff = |s: Seat| -self.scores[usize::from(s)];
        dominoes::outcome(self.board.phase, self.setup.players, payoff, || {
            self.winners()
        })
    }

    fn check_invariants(&self) -> Result<(), String> {
        let n = dominoes::check_held(&self.board.hands, self.board.next_position, "chicken yard")?;
        if self.board.settled()
            && self.layout.tiles() + n + self.yard() != usize::from(self.deck_len())
        {
            return Err(format!(
                "tiles not conserved: {} set, {n} held, {} in the yard",
                self.layout.tiles(),
                self.yard()
            ));
        }
        if self.layout.arms() > ARMS {
            return Err("more than four arms on the centerpiece".into());
        }
        if self.layout.arms() < ARMS && self.layout.lines.iter().any(|l| l.from.is_some()) {
            return Err("play left the centerpiece before its four arms".into());
        }
        if self.scores.iter().any(|s| *s < 0) {
            return Err(format!("negative points: {:?}", self.scores));
        }
        Ok(())
    }

    fn probe_actions(&self, seat: Seat) -> Vec<Action> {
        let mut v = self.legal_actions(seat);
        v.extend([Action::Draw, Action::Pass]);
        for p in [0, 5, 27, 60] {
            for spot in [Spot::Center, Spot::Toe(0), Spot::End(0), Spot::End(9)] {
                v.push(Action::Play { position: p, spot });
            }
        }
        v
    }

    dominoes::seat_methods!();
}
