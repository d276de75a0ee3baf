//! Everything the terminal UI shows, and how keys change it. No terminal, no clock, no channels:
//! the event loop feeds [`UiEvent`]s and keys in, and draws [`UiState`] with
//! [`super::render::draw`].

use crate::engine::Seat;
use crate::games::tolerance::{Action, HandView, Phase};
pub use crate::table::runner::Progress;
use crate::table::{Await, HandSummary};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::time::Duration;

/// Which screen is up. Lobby and feedback screens belong to their own issues and will be
/// further variants; the event loop only ever draws the current one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    /// The table in play (also while waiting for the next hand).
    Table,
    /// The last hand's showdown, until a key is pressed or a move is asked for.
    Showdown,
    /// The table has ended; a key leaves.
    Over,
}

/// Something that happened at the table.
#[derive(Debug, Clone)]
pub enum UiEvent {
    /// The hand as this seat sees it now.
    View(HandView),
    /// It is this seat's move: choose one of these.
    Ask(HandView, Vec<Action>),
    Progress(Progress),
    /// A hand finished.
    HandDone(HandSummary),
    /// The table ended, with a line saying how.
    Finished(String),
    /// Something went wrong, in words.
    Error(String),
}

/// The key-driven part of making a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Nothing to choose (not this seat's move).
    Idle,
    /// The betting or rolling choice is open with single keys.
    Choose,
    /// Editing a raise: the amount the round's bet would become.
    Raise { to: u64, typed: bool },
    /// Picking a Tolerance number.
    Roll { target: u8 },
    /// Asked "leave the table?".
    ConfirmQuit,
}

/// What a key press asks of the event loop: nothing, a move (of Tolerance unless said), or to
/// leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<A = Action> {
    None,
    Play(A),
    Quit,
}

#[derive(Debug, Clone)]
pub struct UiState {
    pub screen: Screen,
    pub me: Option<Seat>,
    /// A label per seat ("you", a profile name or a short npub).
    pub names: Vec<String>,
    pub view: Option<HandView>,
    /// The moves open to this seat while it is asked (empty otherwise).
    pub legal: Vec<Action>,
    pub input: Input,
    /// What was being edited before a quit question, to come back to it.
    before_quit: Option<Input>,
    pub progress: Option<Progress>,
    /// Time left for the awaited step, kept current by the event loop.
    pub time_left: Option<Duration>,
    pub last_hand: Option<HandSummary>,
    /// A hint or refusal for the last key, in words.
    pub notice: Option<String>,
    pub error: Option<String>,
    pub finished: Option<String>,
    pub color: bool,
}

impl UiState {
    pub fn new(me: Option<Seat>, names: Vec<String>, color: bool) -> UiState {
        UiState {
            screen: Screen::Table,
            me,
            names,
            view: None,
            legal: Vec::new(),
            input: Input::Idle,
            before_quit: None,
            progress: None,
            time_left: None,
            last_hand: None,
            notice: None,
            error: None,
            finished: None,
            color,
        }
    }

    pub fn name(&self, seat: Seat) -> String {
        crate::ui::seat_name(&self.names, seat)
    }

    pub fn apply(&mut self, event: UiEvent) {
        match event {
            UiEvent::View(v) => {
                // A view of a newer hand replaces the finished one; while asked, the ask's view
                // is the one the move is chosen from.
                if self.legal.is_empty() {
                    self.view = Some(v);
                }
            }
            UiEvent::Ask(v, legal) => {
                self.view = Some(v);
                self.legal = legal;
                self.input = Input::Choose;
                self.notice = None;
                if self.screen == Screen::Showdown {
                    self.screen = Screen::Table;
                }
            }
            UiEvent::Progress(p) => self.progress = Some(p),
            UiEvent::HandDone(h) => {
                if h.result.is_some() {
                    self.screen = Screen::Showdown;
                }
                self.last_hand = Some(h);
            }
            UiEvent::Finished(line) => {
                self.finished = Some(line);
                self.legal.clear();
                self.input = Input::Idle;
                self.screen = Screen::Over;
            }
            UiEvent::Error(e) => self.error = Some(e),
        }
    }

    pub fn my_turn(&self) -> bool {
        !self.legal.is_empty()
    }

    /// The raise window `(min_to, max_to)` if raising is open.
    pub fn raise_window(&self) -> Option<(u64, u64)> {
        raise_window(&self.legal)
    }

    /// The legal raise closest to a pot-sized one (the engine lists min, ½ pot, pot and max).
    pub fn pot_raise(&self) -> Option<u64> {
        let v = self.view.as_ref()?;
        let (lo, hi) = self.raise_window()?;
        Some((v.current_bet + v.pot + v.to_call).clamp(lo, hi))
    }

    fn raise_step(&self) -> u64 {
        self.view.as_ref().map_or(1, |v| v.rules.blind.max(1))
    }

    fn rolls_open(&self) -> bool {
        self.legal.iter().any(|a| matches!(a, Action::Roll { .. }))
    }

    fn die_sides(&self) -> u8 {
        self.view.as_ref().map_or(10, |v| v.rules.die_sides)
    }

    /// Handles one key. Quitting is always possible; other keys only do something on this
    /// seat's move (or leave the showdown and end screens).
    pub fn key(&mut self, key: KeyEvent) -> Outcome {
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d'))
        {
            return Outcome::Quit;
        }
        if self.input == Input::ConfirmQuit {
            return match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => Outcome::Quit,
                _ => {
                    self.input = self.before_quit.take().unwrap_or(Input::Idle);
                    self.notice = None;
                    Outcome::None
                }
            };
        }
        match self.screen {
            Screen::Over => return Outcome::Quit,
            Screen::Showdown => {
                self.screen = Screen::Table;
                return Outcome::None;
            }
            Screen::Table => {}
        }
        if key.code == KeyCode::Char('q') || (key.code == KeyCode::Esc && self.input == Input::Idle)
        {
            self.before_quit = Some(self.input.clone());
            self.input = Input::ConfirmQuit;
            return Outcome::None;
        }
        // No move uses 's': it brings the last hand's showdown back at any time.
        if key.code == KeyCode::Char('s') && self.last_hand.is_some() {
            self.screen = Screen::Showdown;
            return Outcome::None;
        }
        match self.input.clone() {
            Input::Idle | Input::ConfirmQuit => Outcome::None,
            Input::Choose => self.key_choose(key),
            Input::Raise { to, typed } => self.key_raise(key, to, typed),
            Input::Roll { target } => self.key_roll(key, target),
        }
    }

    fn play(&mut self, a: Action) -> Outcome {
        if self.legal.contains(&a)
            || matches!(a, Action::Raise { to } if self.raise_window().is_some_and(|(lo, hi)| (lo..=hi).contains(&to)))
        {
            self.legal.clear();
            self.input = Input::Idle;
            self.notice = None;
            Outcome::Play(a)
        } else {
            self.notice = Some(match a {
                Action::Check => "you cannot check: there is a bet to call".into(),
                Action::Call => "nothing to call: check instead".into(),
                Action::Fold => "nothing to call: check instead of folding".into(),
                Action::Raise { .. } => "raising is not open to you now".into(),
                _ => "that move is not open now".into(),
            });
            Outcome::None
        }
    }

    fn key_choose(&mut self, key: KeyEvent) -> Outcome {
        if self.rolls_open() {
            return match key.code {
                KeyCode::Char('p') => self.play(Action::Pass),
                KeyCode::Char('r') | KeyCode::Enter => {
                    let best = crate::bots::montecarlo::best_ev_target(self.die_sides());
                    self.input = Input::Roll { target: best };
                    Outcome::None
                }
                KeyCode::Char(d @ '0'..='9') => {
                    let target = digit_target(d, self.die_sides());
                    self.input = Input::Roll { target };
                    Outcome::None
                }
                _ => {
                    self.notice = Some("r or Enter: choose a Tolerance number · p: pass".into());
                    Outcome::None
                }
            };
        }
        let facing = self.legal.contains(&Action::Call);
        match key.code {
            KeyCode::Char('c') | KeyCode::Char('k') => {
                self.play(if facing { Action::Call } else { Action::Check })
            }
            KeyCode::Char('f') => self.play(Action::Fold),
            KeyCode::Char('r') | KeyCode::Char('b') => match self.raise_window() {
                Some((lo, _)) => {
                    self.input = Input::Raise {
                        to: lo,
                        typed: false,
                    };
                    self.notice = None;
                    Outcome::None
                }
                None => self.play(Action::Raise { to: 0 }),
            },
            KeyCode::Char('a') => match self.raise_window() {
                Some((_, hi)) => self.play(Action::Raise { to: hi }),
                None => self.play(Action::Raise { to: 0 }),
            },
            _ => {
                self.notice = Some(if facing {
                    "c: call · r: raise · f: fold".into()
                } else {
                    "c: check · r: raise".into()
                });
                Outcome::None
            }
        }
    }

    fn key_raise(&mut self, key: KeyEvent, to: u64, typed: bool) -> Outcome {
        let Some((lo, hi)) = self.raise_window() else {
            self.input = Input::Choose;
            return Outcome::None;
        };
        let step = self.raise_step();
        let set = |s: &mut UiState, to: u64, typed: bool| {
            s.input = Input::Raise { to, typed };
            s.notice = None;
            Outcome::None
        };
        match key.code {
            KeyCode::Esc => {
                self.input = Input::Choose;
                Outcome::None
            }
            KeyCode::Enter => {
                if (lo..=hi).contains(&to) {
                    self.play(Action::Raise { to })
                } else {
                    self.notice = Some(format!("a raise must be to {lo}..={hi}"));
                    Outcome::None
                }
            }
            KeyCode::Right | KeyCode::Char('+') | KeyCode::Char('=') => {
                set(self, to.saturating_add(step).clamp(lo, hi), false)
            }
            KeyCode::Left | KeyCode::Char('-') => {
                set(self, to.saturating_sub(step).clamp(lo, hi), false)
            }
            KeyCode::Up => set(self, to.saturating_add(10 * step).clamp(lo, hi), false),
            KeyCode::Down => set(self, to.saturating_sub(10 * step).clamp(lo, hi), false),
            KeyCode::Char('m') => set(self, lo, false),
            KeyCode::Char('x') | KeyCode::Char('a') => set(self, hi, false),
            KeyCode::Char('p') => {
                let pot = self.pot_raise().unwrap_or(lo);
                set(self, pot, false)
            }
            KeyCode::Char('h') => {
                let half = self
                    .view
                    .as_ref()
                    .map(|v| v.current_bet + (v.pot + v.to_call) / 2)
                    .unwrap_or(lo)
                    .clamp(lo, hi);
                set(self, half, false)
            }
            KeyCode::Char(d @ '0'..='9') => {
                let digit = d as u64 - '0' as u64;
                // The first digit typed replaces the amount; later ones append.
                let base = if typed { to } else { 0 };
                let next = base.saturating_mul(10).saturating_add(digit);
                set(self, next.min(hi.saturating_mul(10)), true)
            }
            KeyCode::Backspace => set(self, to / 10, true),
            _ => {
                self.notice = Some(
                    "←/→ ±blind · ↑/↓ ±10 blinds · m min · h ½ pot · p pot · x all-in · digits · Enter · Esc"
                        .into(),
                );
                Outcome::None
            }
        }
    }

    fn key_roll(&mut self, key: KeyEvent, target: u8) -> Outcome {
        let sides = self.die_sides();
        let set = |s: &mut UiState, t: u8| {
            s.input = Input::Roll { target: t };
            s.notice = None;
            Outcome::None
        };
        match key.code {
            KeyCode::Esc => {
                self.input = Input::Choose;
                Outcome::None
            }
            KeyCode::Enter | KeyCode::Char('r') => self.play(Action::Roll { target }),
            KeyCode::Char('p') => self.play(Action::Pass),
            KeyCode::Right | KeyCode::Up => set(self, (target + 1).min(sides)),
            KeyCode::Left | KeyCode::Down => set(self, target.saturating_sub(1).max(1)),
            KeyCode::Char(d @ '0'..='9') => {
                let t = digit_target(d, sides);
                set(self, t)
            }
            _ => {
                self.notice =
                    Some("←/→ or a digit: Tolerance number · Enter: roll · p: pass".into());
                Outcome::None
            }
        }
    }

    /// Whether this seat holds an Ace that a top-face roll would still upgrade (Super Ace).
    pub fn super_ace_open(&self) -> bool {
        let Some(v) = &self.view else {
            return false;
        };
        let Some(me) = v.me() else {
            return false;
        };
        if !v.rules.super_ace {
            return false;
        }
        let s = v.rules.die_sides;
        let aces = me
            .cards
            .iter()
            .flatten()
            .filter(|c| crate::cards::PlayingCard::from_id(**c).rank == 1)
            .count();
        let hits = me
            .rolls
            .iter()
            .filter(|r| r.target == s && r.die == s)
            .count();
        aces > hits
    }

    /// Chance of success and expected points of rolling with `target` (Super Ace included).
    pub fn roll_odds(&self, target: u8) -> (f64, f64) {
        let sides = self.die_sides();
        let p = crate::bots::montecarlo::success_chance(sides, target);
        let t = target as f64;
        let bonus = if target == sides && self.super_ace_open() {
            13.0
        } else {
            0.0
        };
        (p, p * (t + bonus) - (1.0 - p) * t)
    }

    /// What the table is waiting for, in words.
    pub fn status_text(&self) -> String {
        if let Some(f) = &self.finished {
            return f.clone();
        }
        if self.my_turn() {
            return "your move".into();
        }
        let Some(p) = &self.progress else {
            return "connecting to the table…".into();
        };
        let list = |seats: &[Seat]| -> String {
            let names: Vec<String> = seats.iter().map(|s| self.name(*s)).collect();
            if names.is_empty() {
                "everyone".into()
            } else {
                names.join(", ")
            }
        };
        match &p.awaiting {
            Await::Keys(s) => format!("hand {}: exchanging keys with {}", p.hand + 1, list(s)),
            Await::Shuffle(s) => {
                let i = p.participants.iter().position(|x| x == s).unwrap_or(0);
                format!(
                    "shuffling {}/{} ({})",
                    i + 1,
                    p.participants.len().max(1),
                    self.name(*s)
                )
            }
            Await::Tokens(s) => format!("dealing: waiting for card tokens from {}", list(s)),
            Await::Move(s) if Some(*s) == self.me => "your move".into(),
            Await::Move(s) => format!("waiting for {}'s move", self.name(*s)),
            Await::Dice(s) => format!("rolling: waiting for dice from {}", list(s)),
            Await::Show(s) => format!("showdown: waiting for {}'s reveal", list(s)),
            Await::End(s) => format!("closing the table: waiting for {}", list(s)),
            Await::Nothing => "table over".into(),
        }
    }

    pub fn relay_text(&self) -> String {
        match &self.progress {
            Some(p) if p.relays_total == 0 => "local game: no relays, dealt by this machine".into(),
            Some(p) => format!("relays {}/{} connected", p.relays_connected, p.relays_total),
            None => "relays: connecting".into(),
        }
    }

    /// The seat the table waits on for a move, if any.
    pub fn turn_seat(&self) -> Option<Seat> {
        match (&self.view, &self.progress) {
            (
                _,
                Some(Progress {
                    awaiting: Await::Move(s),
                    ..
                }),
            ) => Some(*s),
            (Some(v), _) if matches!(v.phase, Phase::Bet(_) | Phase::Roll(_)) => v.to_act,
            _ => None,
        }
    }
}

/// Digits pick Tolerance numbers; 0 means 10 (a d10's top face), capped by the die.
fn digit_target(d: char, sides: u8) -> u8 {
    let n = d as u8 - b'0';
    let n = if n == 0 { 10 } else { n };
    n.clamp(1, sides)
}

pub fn raise_window(legal: &[Action]) -> Option<(u64, u64)> {
    let tos = legal.iter().filter_map(|a| match a {
        Action::Raise { to } => Some(*to),
        _ => None,
    });
    tos.fold(None, |acc, to| match acc {
        None => Some((to, to)),
        Some((lo, hi)) => Some((lo.min(to), hi.max(to))),
    })
}
