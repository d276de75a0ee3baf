//! Everything the dice panel (Perudo, Mia) shows, and how keys change it: pure; the panel in
//! the parent module feeds views, turns and keys in, and draws [`DiceState`] with
//! [`super::render::draw_body`].

use crate::engine::Seat;
use crate::games::mia::bot::mia_reach_chance;
use crate::games::mia::{self, MiaView, Throw};
use crate::games::perudo::bot::perudo_bid_chance;
use crate::games::perudo::{self, check_bid, Bid, PerudoView};
use crate::games::ui::Outcome;
use crossterm::event::{KeyCode, KeyEvent};
use std::time::Duration;

/// A seat's view of either dice game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiceView {
    Perudo(PerudoView),
    Mia(MiaView),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiceAction {
    Perudo(perudo::Action),
    Mia(mia::Action),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiceScreen {
    Table,
    /// The last challenge's opened cups, until a key is pressed.
    Result,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BidField {
    Quantity,
    Face,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiceInput {
    Idle,
    /// Perudo: the bid being made.
    Bid {
        quantity: u16,
        face: u8,
        field: BidField,
        /// Digits typed so far replace the quantity rather than starting it afresh.
        typed: bool,
    },
    /// Mia: challenge, pass, reroll or (the cup's roller) raise.
    Respond,
    /// Mia: picking a claim (after a roll) or a raise, `at` in [`DiceState::pick_options`].
    Pick {
        raise: bool,
        at: usize,
        /// The first digit of a value being typed.
        typed: Option<u8>,
    },
}

/// A challenge as everyone saw it once the cups were opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChallengeResult {
    Perudo {
        challenger: Seat,
        bidder: Seat,
        bid: Bid,
        putana: bool,
        shown: Vec<(Seat, Vec<u8>)>,
        count: u16,
        loser: Seat,
        out: bool,
    },
    Mia {
        challenger: Seat,
        owner: Seat,
        roller: Seat,
        dice: [u8; 2],
        value: Throw,
        claim: Throw,
        loser: Seat,
        lives: u8,
        out: bool,
    },
}

impl ChallengeResult {
    /// Every challenge settled in `view`'s log, oldest first.
    pub fn all(view: &DiceView) -> Vec<ChallengeResult> {
        match view {
            DiceView::Perudo(v) => perudo_results(&v.log),
            DiceView::Mia(v) => mia_results(&v.log),
        }
    }
}

fn perudo_results(log: &[perudo::LogEntry]) -> Vec<ChallengeResult> {
    use perudo::LogEntry as E;
    let mut out = Vec::new();
    let (mut putana, mut who, mut shown) = (false, None, Vec::new());
    for e in log {
        match e {
            E::Round { putana: p, .. } => putana = *p,
            E::Dudo { seat, against } => {
                who = Some((*seat, *against));
                shown.clear();
            }
            E::Shown { seat, dice } => shown.push((*seat, dice.clone())),
            E::Counted { bid, count, loser } => {
                if let Some((challenger, bidder)) = who.take() {
                    out.push(ChallengeResult::Perudo {
                        challenger,
                        bidder,
                        bid: *bid,
                        putana,
                        shown: std::mem::take(&mut shown),
                        count: *count,
                        loser: *loser,
                        out: false,
                    });
                }
            }
            E::Out { seat } => {
                if let Some(ChallengeResult::Perudo { loser, out, .. }) = out.last_mut() {
                    *out |= loser == seat;
                }
            }
            _ => {}
        }
    }
    out
}

fn mia_results(log: &[mia::LogEntry]) -> Vec<ChallengeResult> {
    use mia::LogEntry as E;
    let mut out = Vec::new();
    let mut who = None;
    let mut opened = None;
    for e in log {
        match e {
            E::Challenged { seat, owner } => who = Some((*seat, *owner)),
            E::Opened {
                roller,
                dice,
                value,
                claim,
            } => opened = Some((*roller, *dice, *value, *claim)),
            E::LostLives { seat, lives } => {
                if let (Some((challenger, owner)), Some((roller, dice, value, claim))) =
                    (who.take(), opened.take())
                {
                    out.push(ChallengeResult::Mia {
                        challenger,
                        owner,
                        roller,
                        dice,
                        value,
                        claim,
                        loser: *seat,
                        lives: *lives,
                        out: false,
                    });
                }
            }
            E::Out { seat } => {
                if let Some(ChallengeResult::Mia { loser, out, .. }) = out.last_mut() {
                    *out |= loser == seat;
                }
            }
            _ => {}
        }
    }
    out
}

#[derive(Debug, Clone)]
pub struct DiceState {
    pub screen: DiceScreen,
    pub me: Option<Seat>,
    /// A label per seat ("you", a profile name or a short npub).
    pub names: Vec<String>,
    pub view: Option<DiceView>,
    pub legal: Vec<DiceAction>,
    pub input: DiceInput,
    /// Time left for the awaited step, by the chain's deadline (set for each draw).
    pub time_left: Option<Duration>,
    pub notice: Option<String>,
    pub color: bool,
    /// Challenges already shown, so each new one comes up once by itself.
    results_seen: usize,
}

impl DiceState {
    pub fn new(me: Option<Seat>, names: Vec<String>, color: bool) -> DiceState {
        DiceState {
            screen: DiceScreen::Table,
            me,
            names,
            view: None,
            legal: Vec::new(),
            input: DiceInput::Idle,
            time_left: None,
            notice: None,
            color,
            results_seen: 0,
        }
    }

    pub fn name(&self, seat: Seat) -> String {
        self.names
            .get(seat as usize)
            .cloned()
            .unwrap_or_else(|| format!("seat {seat}"))
    }

    fn see(&mut self, view: DiceView) {
        let results = ChallengeResult::all(&view).len();
        if results > self.results_seen {
            self.results_seen = results;
            if self.screen == DiceScreen::Table {
                self.screen = DiceScreen::Result;
            }
        }
        self.view = Some(view);
    }

    /// The table as this seat sees it (while asked, the ask's view stays).
    pub fn show(&mut self, view: DiceView) {
        if self.legal.is_empty() {
            self.see(view);
        }
    }

    /// This seat must choose one of `legal`.
    pub fn ask(&mut self, view: DiceView, legal: Vec<DiceAction>) {
        self.see(view);
        self.legal = legal;
        self.notice = None;
        self.input = self.opening_input();
    }

    /// The turn closed without this seat's move.
    pub fn withdraw(&mut self) {
        self.legal.clear();
        self.input = DiceInput::Idle;
    }

    pub fn my_turn(&self) -> bool {
        !self.legal.is_empty()
    }

    pub fn perudo(&self) -> Option<&PerudoView> {
        match &self.view {
            Some(DiceView::Perudo(v)) => Some(v),
            _ => None,
        }
    }

    pub fn mia(&self) -> Option<&MiaView> {
        match &self.view {
            Some(DiceView::Mia(v)) => Some(v),
            _ => None,
        }
    }

    pub fn last_result(&self) -> Option<ChallengeResult> {
        self.view
            .as_ref()
            .and_then(|v| ChallengeResult::all(v).pop())
    }

    /// The input a fresh ask opens with.
    fn opening_input(&self) -> DiceInput {
        if let Some(v) = self.perudo() {
            let (quantity, face) = self.suggested_bid(v);
            return DiceInput::Bid {
                quantity,
                face,
                field: BidField::Quantity,
                typed: false,
            };
        }
        if self
            .legal
            .iter()
            .any(|a| matches!(a, DiceAction::Mia(mia::Action::Claim(_))))
        {
            return DiceInput::Pick {
                raise: false,
                at: self.truth_index(false).unwrap_or(0),
                typed: None,
            };
        }
        DiceInput::Respond
    }

    // ---- Perudo ----

    pub fn my_cup(&self) -> Vec<u8> {
        self.perudo()
            .and_then(|v| v.me())
            .and_then(|p| p.dice.clone())
            .unwrap_or_default()
    }

    /// The chance `bid` is true, given this seat's cup and the number of dice it cannot see.
    pub fn bid_chance(&self, bid: Bid) -> Option<f64> {
        let v = self.perudo()?;
        let own = v.me()?.dice.clone()?;
        let unseen = v.total_dice.saturating_sub(own.len() as u16);
        Some(perudo_bid_chance(bid, v.putana, &own, unseen))
    }

    /// Why `bid` may not be made now, in words.
    pub fn bid_problem(&self, bid: Bid) -> Option<String> {
        let v = self.perudo()?;
        check_bid(v.bid, bid, v.putana, v.total_dice).err()
    }

    /// The face this seat holds most of, ones aside (ties to the higher face).
    fn best_face(&self) -> u8 {
        let cup = self.my_cup();
        (2..=6u8)
            .max_by_key(|f| (cup.iter().filter(|d| *d == f).count(), *f))
            .unwrap_or(6)
    }

    /// Where the bid editor starts: one more of the standing face, or an opening bid of the
    /// face this seat holds most of.
    fn suggested_bid(&self, v: &PerudoView) -> (u16, u8) {
        let wanted = match v.bid {
            Some(b) => Bid {
                quantity: b.quantity + 1,
                face: b.face,
            },
            None => Bid {
                quantity: 1,
                face: self.best_face(),
            },
        };
        let legal = |b: &Bid| {
            self.legal
                .contains(&DiceAction::Perudo(perudo::Action::Bid(*b)))
        };
        let b = if legal(&wanted) {
            wanted
        } else {
            self.legal
                .iter()
                .find_map(|a| match a {
                    DiceAction::Perudo(perudo::Action::Bid(b)) => Some(*b),
                    _ => None,
                })
                .unwrap_or(wanted)
        };
        (b.quantity, b.face)
    }

    // ---- Mia ----

    /// The claims (or, `raise`, the raises) open to this seat, weakest first.
    pub fn pick_options(&self, raise: bool) -> Vec<Throw> {
        let Some(v) = self.mia() else {
            return Vec::new();
        };
        let mut t: Vec<Throw> = self
            .legal
            .iter()
            .filter_map(|a| match (a, raise) {
                (DiceAction::Mia(mia::Action::Claim(t)), false)
                | (DiceAction::Mia(mia::Action::Raise(t)), true) => Some(*t),
                _ => None,
            })
            .collect();
        t.sort_by_key(|x| v.ranking.rank(*x));
        t
    }

    /// What this seat rolled, when it holds the cup it rolled. The seat is the view's own:
    /// the panel's state learns `me` only when it is drawn, and a key can come first.
    pub fn my_roll(&self) -> Option<Throw> {
        let v = self.mia()?;
        let cup = v.cup.as_ref()?;
        if v.viewer.is_none() || Some(cup.roller) != v.viewer {
            return None;
        }
        cup.dice.map(|d| Throw::of_dice(d[0], d[1]))
    }

    fn truth_index(&self, raise: bool) -> Option<usize> {
        let t = self.my_roll()?;
        self.pick_options(raise).iter().position(|x| *x == t)
    }

    /// The chance a fair roll reaches `t`.
    pub fn reach_chance(&self, t: Throw) -> Option<f64> {
        Some(mia_reach_chance(self.mia()?.ranking, t))
    }

    pub fn standing_claim(&self) -> Option<Throw> {
        self.mia()?.cup.as_ref()?.claim
    }

    // ---- keys ----

    /// Handles one key. Quitting is always possible; other keys only do something on this
    /// seat's move (or leave the result and end screens).
    pub fn key(&mut self, key: KeyEvent) -> Outcome<DiceAction> {
        if self.screen == DiceScreen::Result {
            self.screen = DiceScreen::Table;
            return Outcome::None;
        }
        // No move uses 'v': it brings the last challenge back at any time.
        if key.code == KeyCode::Char('v') && self.last_result().is_some() {
            self.screen = DiceScreen::Result;
            return Outcome::None;
        }
        match self.input.clone() {
            DiceInput::Idle => Outcome::None,
            DiceInput::Bid {
                quantity,
                face,
                field,
                typed,
            } => self.key_bid(key, quantity, face, field, typed),
            DiceInput::Respond => self.key_respond(key),
            DiceInput::Pick { raise, at, typed } => self.key_pick(key, raise, at, typed),
        }
    }

    /// Plays `a` if it is open, else says why not.
    fn play(&mut self, a: DiceAction, refusal: impl FnOnce() -> String) -> Outcome<DiceAction> {
        if self.legal.contains(&a) {
            self.legal.clear();
            self.input = DiceInput::Idle;
            self.notice = None;
            Outcome::Play(a)
        } else {
            self.notice = Some(refusal());
            Outcome::None
        }
    }

    fn key_bid(
        &mut self,
        key: KeyEvent,
        quantity: u16,
        face: u8,
        field: BidField,
        typed: bool,
    ) -> Outcome<DiceAction> {
        let Some(v) = self.perudo().cloned() else {
            return Outcome::None;
        };
        let total = v.total_dice.max(1);
        let set = |s: &mut DiceState, quantity: u16, face: u8, field: BidField, typed: bool| {
            s.input = DiceInput::Bid {
                quantity,
                face,
                field,
                typed,
            };
            s.notice = None;
            Outcome::None
        };
        match key.code {
            KeyCode::Up | KeyCode::Char('+') | KeyCode::Char('=') => {
                set(self, (quantity + 1).clamp(1, total), face, field, false)
            }
            KeyCode::Down | KeyCode::Char('-') => {
                set(self, quantity.saturating_sub(1).max(1), face, field, false)
            }
            KeyCode::Right => set(self, quantity, (face + 1).min(6), field, false),
            KeyCode::Left => set(self, quantity, face.saturating_sub(1).max(1), field, false),
            KeyCode::Tab | KeyCode::BackTab => {
                let other = match field {
                    BidField::Quantity => BidField::Face,
                    BidField::Face => BidField::Quantity,
                };
                set(self, quantity, face, other, false)
            }
            KeyCode::Char(d @ '0'..='9') => {
                let digit = d as u16 - '0' as u16;
                match field {
                    BidField::Quantity => {
                        let base = if typed { quantity } else { 0 };
                        let q = (base * 10 + digit).min(total * 10);
                        set(self, q, face, field, true)
                    }
                    BidField::Face if (1..=6).contains(&digit) => {
                        set(self, quantity, digit as u8, field, false)
                    }
                    BidField::Face => {
                        self.notice = Some("a face is 1 to 6".into());
                        Outcome::None
                    }
                }
            }
            KeyCode::Backspace => set(self, quantity / 10, face, BidField::Quantity, true),
            KeyCode::Char('o') => self.convert(&v, quantity, face, field),
            KeyCode::Char('d') => self.play(DiceAction::Perudo(perudo::Action::Dudo), || {
                "nothing to doubt yet: open the round with a bid".into()
            }),
            KeyCode::Esc => {
                self.input = self.opening_input();
                self.notice = None;
                Outcome::None
            }
            KeyCode::Enter => {
                let bid = Bid { quantity, face };
                let why = self.bid_problem(bid);
                self.play(DiceAction::Perudo(perudo::Action::Bid(bid)), || {
                    why.unwrap_or_else(|| "bidding is not open to you now".into())
                })
            }
            _ => {
                self.notice = Some(
                    "↑/↓ quantity · ←/→ face · digits type (Tab: quantity/face) · o ones · Enter bid · d dudo"
                        .into(),
                );
                Outcome::None
            }
        }
    }

    /// `o`: the bid converted to ones (half the standing quantity, rounded up) or back from
    /// ones (double plus one), at the smallest quantity the conversion allows.
    fn convert(
        &mut self,
        v: &PerudoView,
        quantity: u16,
        face: u8,
        field: BidField,
    ) -> Outcome<DiceAction> {
        if v.putana {
            self.notice = Some("no conversions in a Putana round: the face stays".into());
            return Outcome::None;
        }
        let (q, f) = if face != 1 {
            match v.bid {
                None => {
                    self.notice = Some("the first bid of a round may not be ones".into());
                    return Outcome::None;
                }
                Some(b) if b.face != 1 => (b.quantity.div_ceil(2), 1),
                Some(b) => (b.quantity + 1, 1),
            }
        } else {
            let base = match v.bid {
                Some(b) if b.face == 1 => b.quantity,
                _ => quantity,
            };
            (2 * base + 1, self.best_face())
        };
        self.input = DiceInput::Bid {
            quantity: q.clamp(1, v.total_dice.max(1)),
            face: f,
            field,
            typed: false,
        };
        self.notice = None;
        Outcome::None
    }

    fn key_respond(&mut self, key: KeyEvent) -> Outcome<DiceAction> {
        use mia::Action as A;
        let claim = self.standing_claim();
        match key.code {
            KeyCode::Char('c') => self.play(DiceAction::Mia(A::Challenge), || {
                "challenging is not open now".into()
            }),
            KeyCode::Char('p') => self.play(DiceAction::Mia(A::Pass), || {
                "the cup came back to you, who rolled it: raise, reroll or challenge".into()
            }),
            KeyCode::Char('r') => self.play(DiceAction::Mia(A::Reroll), || {
                if claim == Some(Throw::MIA) {
                    "nothing beats Mia: challenge or pass".into()
                } else {
                    "rerolling is not open now".into()
                }
            }),
            KeyCode::Char('u') if !self.pick_options(true).is_empty() => {
                self.input = DiceInput::Pick {
                    raise: true,
                    at: self.truth_index(true).unwrap_or(0),
                    typed: None,
                };
                self.notice = None;
                Outcome::None
            }
            KeyCode::Char('u') => {
                self.notice =
                    Some("only the cup's roller, who knows its dice, may raise unrolled".into());
                Outcome::None
            }
            _ => {
                self.notice = Some("c: challenge · p: pass · r: reroll".into());
                Outcome::None
            }
        }
    }

    fn key_pick(
        &mut self,
        key: KeyEvent,
        raise: bool,
        at: usize,
        typed: Option<u8>,
    ) -> Outcome<DiceAction> {
        let options = self.pick_options(raise);
        if options.is_empty() {
            self.input = DiceInput::Respond;
            return Outcome::None;
        }
        let last = options.len() - 1;
        let set = |s: &mut DiceState, at: usize, typed: Option<u8>| {
            s.input = DiceInput::Pick { raise, at, typed };
            s.notice = None;
            Outcome::None
        };
        let above = self
            .standing_claim()
            .map(|c| format!(": claim above {c}"))
            .unwrap_or_default();
        match key.code {
            KeyCode::Left | KeyCode::Down => set(self, at.saturating_sub(1), None),
            KeyCode::Right | KeyCode::Up => set(self, (at + 1).min(last), None),
            KeyCode::Home => set(self, 0, None),
            KeyCode::End => set(self, last, None),
            KeyCode::Char('t') => match (self.my_roll(), self.truth_index(raise)) {
                (_, Some(i)) => set(self, i, None),
                (Some(t), None) => {
                    self.notice = Some(format!("your roll {t} is not open{above}: bluff"));
                    Outcome::None
                }
                (None, None) => {
                    self.notice = Some("you have not seen these dice".into());
                    Outcome::None
                }
            },
            KeyCode::Char(d @ '1'..='6') => {
                let d = d as u8 - b'0';
                let Some(first) = typed else {
                    self.input = DiceInput::Pick {
                        raise,
                        at,
                        typed: Some(d),
                    };
                    self.notice = Some(format!("{d}…: type the other die"));
                    return Outcome::None;
                };
                let t = Throw::of_dice(first, d);
                match options.iter().position(|x| *x == t) {
                    Some(i) => set(self, i, None),
                    None => {
                        self.input = DiceInput::Pick {
                            raise,
                            at,
                            typed: None,
                        };
                        self.notice = Some(format!("{t} is not open{above}"));
                        Outcome::None
                    }
                }
            }
            KeyCode::Esc if raise => {
                self.input = DiceInput::Respond;
                self.notice = None;
                Outcome::None
            }
            KeyCode::Enter => {
                let t = options[at.min(last)];
                let a = if raise {
                    mia::Action::Raise(t)
                } else {
                    mia::Action::Claim(t)
                };
                self.play(DiceAction::Mia(a), || format!("{t} is not open{above}"))
            }
            _ => {
                self.notice = Some(
                    "←/→ choose · two digits type a value (43, 21 = Mia) · t truth · Enter".into(),
                );
                Outcome::None
            }
        }
    }

    // ---- words ----

    /// The seat to act, if a move is awaited.
    pub fn turn_seat(&self) -> Option<Seat> {
        match &self.view {
            Some(DiceView::Perudo(v)) => v.to_act,
            Some(DiceView::Mia(v)) => v.to_act,
            None => None,
        }
    }

    pub fn winner(&self) -> Option<Seat> {
        match &self.view {
            Some(DiceView::Perudo(v)) => v.winner,
            Some(DiceView::Mia(v)) => v.winner,
            None => None,
        }
    }
}
