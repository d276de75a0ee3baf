//! Tolerance on the terminal table: the seats with their stacks, bets, cards (your own only,
//! and what was shown) and rolls, a turn arrow, the pot, this seat's box with its choices —
//! check or call, a raise editor, a roll picker with the odds — and the last showdown.

use super::words::phase_text;
use crate::engine::Seat;
use crate::games::tolerance::game::{HandSummary, Tolerance, ToleranceView};
use crate::games::tolerance::hand::{Action, LogEntry, RollRecord};
use crate::games::tolerance::view::HandView;
use crate::games::ui::{seat_box, Ctx, Outcome, Panel, Theme};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

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
    /// Asked whether to fold although checking is free.
    ConfirmFold,
}

#[derive(Debug, Clone)]
pub struct TolerancePanel {
    pub view: Option<ToleranceView>,
    /// The moves open to this seat while it is asked (empty otherwise).
    pub legal: Vec<Action>,
    pub input: Input,
    /// The last hand's result is up, until a key is pressed.
    pub showdown: bool,
    /// The last finished hand already shown, so each comes up once by itself.
    shown_hand: Option<u64>,
    /// A hint or refusal for the last key, in words.
    pub notice: Option<String>,
}

impl Default for TolerancePanel {
    fn default() -> Self {
        TolerancePanel {
            view: None,
            legal: Vec::new(),
            input: Input::Idle,
            showdown: false,
            shown_hand: None,
            notice: None,
        }
    }
}

impl TolerancePanel {
    pub fn hand(&self) -> Option<&HandView> {
        self.view.as_ref()?.hand.as_ref()
    }

    fn last(&self) -> Option<&HandSummary> {
        self.view.as_ref()?.last.as_ref()
    }

    fn take(&mut self, view: &ToleranceView) {
        if let Some(l) = &view.last {
            if self.shown_hand != Some(l.hand) {
                self.shown_hand = Some(l.hand);
                self.showdown = l.result.is_some();
            }
        }
        self.view = Some(view.clone());
    }

    pub fn my_turn(&self) -> bool {
        !self.legal.is_empty()
    }

    /// The raise window `(min_to, max_to)` if raising is open.
    pub fn raise_window(&self) -> Option<(u64, u64)> {
        raise_window(&self.legal)
    }

    /// The legal raise closest to a pot-sized one.
    pub fn pot_raise(&self) -> Option<u64> {
        let v = self.hand()?;
        let (lo, hi) = self.raise_window()?;
        Some((v.current_bet + v.pot + v.to_call).clamp(lo, hi))
    }

    fn raise_step(&self) -> u64 {
        self.hand().map_or(1, |v| v.rules.blind.max(1))
    }

    fn rolls_open(&self) -> bool {
        self.legal.iter().any(|a| matches!(a, Action::Roll { .. }))
    }

    fn die_sides(&self) -> u8 {
        self.hand().map_or(10, |v| v.rules.die_sides)
    }

    fn play(&mut self, a: Action) -> Outcome<Action> {
        let in_window = matches!(a, Action::Raise { to }
            if self.raise_window().is_some_and(|(lo, hi)| (lo..=hi).contains(&to)));
        if self.legal.contains(&a) || in_window {
            self.legal.clear();
            self.input = Input::Idle;
            self.notice = None;
            Outcome::Play(a)
        } else {
            self.notice = Some(match a {
                Action::Check => "you cannot check: there is a bet to call".into(),
                Action::Call => "nothing to call: check instead".into(),
                Action::Fold => "folding is not open now".into(),
                Action::Raise { .. } => "raising is not open to you now".into(),
                _ => "that move is not open now".into(),
            });
            Outcome::None
        }
    }

    fn key_choose(&mut self, key: KeyEvent) -> Outcome<Action> {
        if self.rolls_open() {
            return match key.code {
                KeyCode::Char('p') => self.play(Action::Pass),
                KeyCode::Char('r') | KeyCode::Enter => {
                    let best =
                        crate::games::tolerance::montecarlo::best_ev_target(self.die_sides());
                    self.input = Input::Roll { target: best };
                    self.notice = None;
                    Outcome::None
                }
                KeyCode::Char(d @ '0'..='9') => {
                    self.input = Input::Roll {
                        target: digit_target(d, self.die_sides()),
                    };
                    self.notice = None;
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
            KeyCode::Char('f') if self.legal.contains(&Action::Check) => {
                if self.legal.contains(&Action::Fold) {
                    self.input = Input::ConfirmFold;
                    self.notice = None;
                    Outcome::None
                } else {
                    self.play(Action::Fold)
                }
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

    fn key_raise(&mut self, key: KeyEvent, to: u64, typed: bool) -> Outcome<Action> {
        let Some((lo, hi)) = self.raise_window() else {
            self.input = Input::Choose;
            return Outcome::None;
        };
        let step = self.raise_step();
        let set = |s: &mut TolerancePanel, to: u64, typed: bool| {
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
                    self.notice = Some(format!("a raise must be to {lo} up to {hi}"));
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
                    .hand()
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
                self.notice =
                    Some("←/→ ±blind · ↑/↓ ±10 blinds · m h p x · digits · Enter · Esc".into());
                Outcome::None
            }
        }
    }

    fn key_roll(&mut self, key: KeyEvent, target: u8) -> Outcome<Action> {
        let sides = self.die_sides();
        let set = |s: &mut TolerancePanel, t: u8| {
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
            KeyCode::Char(d @ '0'..='9') => set(self, digit_target(d, sides)),
            _ => {
                self.notice =
                    Some("←/→ or a digit: Tolerance number · Enter: roll · p: pass".into());
                Outcome::None
            }
        }
    }

    /// Whether this seat holds an Ace that a top-face roll would still upgrade (Super Ace).
    pub fn super_ace_open(&self) -> bool {
        let Some(v) = self.hand() else {
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
        let p = crate::games::tolerance::montecarlo::success_chance(sides, target);
        let t = target as f64;
        let bonus = if target == sides && self.super_ace_open() {
            13.0
        } else {
            0.0
        };
        (p, p * (t + bonus) - (1.0 - p) * t)
    }
}

/// Digits pick Tolerance numbers; 0 means 10 (a d10's top face), capped by the die.
fn digit_target(d: char, sides: u8) -> u8 {
    let n = d as u8 - b'0';
    let n = if n == 0 { 10 } else { n };
    n.clamp(1, sides)
}

pub fn raise_window(legal: &[Action]) -> Option<(u64, u64)> {
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Raise { to } => Some(*to),
            _ => None,
        })
        .fold(None, |acc, to| match acc {
            None => Some((to, to)),
            Some((lo, hi)) => Some((lo.min(to), hi.max(to))),
        })
}

impl Panel<Tolerance> for TolerancePanel {
    fn see(&mut self, view: &ToleranceView) {
        // While asked, the ask's view is the one the move is chosen from.
        if self.legal.is_empty() {
            self.take(view);
        }
    }

    fn ask(&mut self, view: &ToleranceView, legal: &[Action]) {
        self.take(view);
        self.showdown = false;
        self.legal = legal.to_vec();
        self.input = Input::Choose;
        self.notice = None;
    }

    fn withdraw(&mut self) {
        self.legal.clear();
        self.input = Input::Idle;
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<Action> {
        if self.showdown {
            self.showdown = false;
            return Outcome::None;
        }
        // No move uses 's': it brings the last hand's showdown back at any time.
        if key.code == KeyCode::Char('s')
            && self.last().is_some()
            && !matches!(self.input, Input::Raise { .. } | Input::Roll { .. })
        {
            self.showdown = true;
            return Outcome::None;
        }
        match self.input.clone() {
            Input::Idle => Outcome::None,
            Input::Choose => self.key_choose(key),
            Input::Raise { to, typed } => self.key_raise(key, to, typed),
            Input::Roll { target } => self.key_roll(key, target),
            Input::ConfirmFold => match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => self.play(Action::Fold),
                _ => {
                    self.input = Input::Choose;
                    self.notice = None;
                    Outcome::None
                }
            },
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let theme = ctx.theme;
        if self.showdown {
            if let Some(h) = self.last() {
                let start = self.view.as_ref().map_or(&[][..], |v| &v.last_start[..]);
                return draw_showdown(frame, area, ctx, h, start, theme);
            }
        }
        let seats = self.hand().map_or_else(
            || self.view.as_ref().map_or(0, |v| v.stacks.len()),
            |h| h.players.len(),
        ) as u16;
        let [table, lower] = Layout::vertical([
            Constraint::Length((seats + 3).clamp(4, 12)),
            Constraint::Min(6),
        ])
        .areas(area);
        let [log, you] =
            Layout::horizontal([Constraint::Percentage(42), Constraint::Percentage(58)])
                .areas(lower);
        self.draw_seats(frame, table, ctx, theme);
        ctx.draw_story(frame, log, " Story ");
        self.draw_you(frame, you, ctx, theme);
    }

    fn help(&self) -> String {
        let keys = match &self.input {
            _ if self.showdown => "any key: back to the table",
            Input::ConfirmFold => "y: fold anyway · any other key: back",
            Input::Raise { .. } => {
                "←/→ ±blind ↑/↓ ±10 blinds m min h ½pot p pot x all-in 0-9 · Enter · Esc"
            }
            Input::Roll { .. } => {
                "←/→ or 1-9,0: Tolerance number · Enter: roll · p: pass · Esc: back"
            }
            Input::Choose if self.rolls_open() => {
                "r/Enter: pick a Tolerance number · p: pass · s: showdown · q: quit"
            }
            Input::Choose => return self.choice_help(),
            Input::Idle => "s: last showdown · q: quit",
        };
        keys.to_string()
    }

    fn title(&self) -> String {
        let Some(v) = self.hand() else {
            return self
                .view
                .as_ref()
                .map(|v| format!("between hands · {} played", v.hands_dealt))
                .unwrap_or_default();
        };
        let mut s = format!(
            "hand {} · {} · d{} · blind {}",
            v.hand_no + 1,
            phase_text(v.phase),
            v.rules.die_sides,
            v.rules.blind
        );
        if v.rules.super_ace {
            s.push_str(" · Super Ace");
        }
        if v.rules.card_again {
            s.push_str(" · Card Again");
        }
        s.push_str(&format!(" · pot {}", v.pot));
        s
    }

    fn editing(&self) -> bool {
        self.showdown || !matches!(self.input, Input::Idle | Input::Choose)
    }
}

impl TolerancePanel {
    /// The betting keys open now, and nothing that is not.
    fn choice_help(&self) -> String {
        let mut keys = vec![if self.legal.contains(&Action::Call) {
            "c: call"
        } else {
            "c: check"
        }];
        if self.raise_window().is_some() {
            keys.extend(["r: raise", "a: all-in"]);
        }
        if self.legal.contains(&Action::Fold) {
            keys.push("f: fold");
        }
        keys.extend(["s: showdown", "q: quit"]);
        keys.join(" · ")
    }
}

fn rolls_short(rolls: &[RollRecord]) -> String {
    rolls
        .iter()
        .map(|r| format!("{:+}", r.delta()))
        .collect::<Vec<_>>()
        .join(" ")
}

impl TolerancePanel {
    fn draw_seats(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, theme: &Theme) {
        let Some(v) = self.hand() else {
            let mut lines = vec![Line::styled(
                "waiting for the next hand to be dealt…",
                theme.dim(),
            )];
            if let Some(tv) = &self.view {
                for (s, st) in tv.stacks.iter().enumerate() {
                    if let Some(c) = st {
                        lines.push(Line::raw(format!("{:<14} stack {c}", ctx.name(s as Seat))));
                    }
                }
            }
            frame.render_widget(
                Paragraph::new(lines)
                    .block(Block::default().borders(Borders::ALL).title(" Table ")),
                area,
            );
            return;
        };
        let turn = ctx.mover().or(v.to_act);
        let header = Row::new([
            "", "player", "", "stack", "bet", "cards", "rolls", "pts", "",
        ])
        .style(theme.dim().add_modifier(Modifier::UNDERLINED));
        let rows: Vec<Row> = v
            .players
            .iter()
            .map(|p| {
                let mut marks = String::new();
                if p.seat == v.dealer {
                    marks.push_str("D ");
                }
                if p.seat == v.starter {
                    marks.push('S');
                }
                let mut cards: Vec<Span> = Vec::new();
                for c in &p.cards {
                    cards.push(theme.card_face(*c));
                    cards.push(Span::raw(" "));
                }
                let state_text = if p.folded {
                    Span::styled("folded", theme.dim())
                } else if p.all_in {
                    Span::styled("ALL-IN", theme.bad().add_modifier(Modifier::BOLD))
                } else {
                    Span::raw("")
                };
                let mut style = Style::default();
                if Some(p.seat) == ctx.me {
                    style = style.add_modifier(Modifier::BOLD);
                }
                if p.folded {
                    style = style.patch(theme.dim());
                }
                let pointer = if turn == Some(p.seat) {
                    Span::styled("▶", theme.accent())
                } else {
                    Span::raw(" ")
                };
                Row::new(vec![
                    Cell::from(pointer),
                    Cell::from(ctx.name(p.seat)),
                    Cell::from(Span::styled(marks, theme.accent())),
                    Cell::from(p.stack.to_string()),
                    Cell::from(if p.bet > 0 {
                        p.bet.to_string()
                    } else {
                        String::new()
                    }),
                    Cell::from(Line::from(cards)),
                    Cell::from(rolls_short(&p.rolls)),
                    Cell::from(p.points.map(|x| x.to_string()).unwrap_or_default()),
                    Cell::from(state_text),
                ])
                .style(style)
            })
            .collect();
        let widths = [
            Constraint::Length(1),
            Constraint::Min(10),
            Constraint::Length(3),
            Constraint::Length(6),
            Constraint::Length(5),
            Constraint::Length(12),
            Constraint::Length(9),
            Constraint::Length(4),
            Constraint::Length(6),
        ];
        let title = match (turn, ctx.secs_left) {
            (Some(s), Some(t)) => {
                format!(" Table · pot {} · {} to act · {t}s ", v.pot, ctx.name(s))
            }
            (Some(s), None) => format!(" Table · pot {} · {} to act ", v.pot, ctx.name(s)),
            _ => format!(" Table · pot {} ", v.pot),
        };
        frame.render_widget(
            Table::new(rows, widths)
                .header(header)
                .column_spacing(1)
                .block(Block::default().borders(Borders::ALL).title(title)),
            area,
        );
    }

    fn draw_you(&self, frame: &mut Frame, area: Rect, ctx: &Ctx, theme: &Theme) {
        let Some(v) = self.hand() else {
            seat_box(frame, area, ctx, false, Vec::new(), self.notice.as_deref());
            return;
        };
        let mut lines = my_lines(v, theme);
        match &self.input {
            Input::Raise { to, .. } => lines.extend(self.raise_lines(v, *to, theme)),
            Input::Roll { target } => lines.extend(self.roll_lines(*target, theme)),
            Input::Choose => lines.push(self.choice_line(v, theme)),
            Input::ConfirmFold => lines.push(Line::styled(
                "Checking is free. Fold anyway? y: fold, any key: back",
                theme.bad().add_modifier(Modifier::BOLD),
            )),
            Input::Idle => {}
        }
        seat_box(
            frame,
            area,
            ctx,
            ctx.asked && self.my_turn(),
            lines,
            self.notice.as_deref(),
        );
    }

    fn choice_line(&self, v: &HandView, theme: &Theme) -> Line<'static> {
        let key = |k: &str, what: String| theme.key_hint(k, &what);
        let mut spans = Vec::new();
        if self.rolls_open() {
            spans.extend(key("r", "roll".into()));
            spans.extend(key("p", "pass".into()));
            return Line::from(spans);
        }
        if self.legal.contains(&Action::Call) {
            spans.extend(key("c", format!("call {}", v.to_call)));
        } else {
            spans.extend(key("c", "check".into()));
        }
        if self.raise_window().is_some() {
            spans.extend(key("r", "raise".into()));
        }
        if self.legal.contains(&Action::Fold) {
            spans.extend(key("f", "fold".into()));
        }
        Line::from(spans)
    }

    fn raise_lines(&self, v: &HandView, to: u64, theme: &Theme) -> Vec<Line<'static>> {
        let Some((lo, hi)) = self.raise_window() else {
            return vec![];
        };
        let pot = self.pot_raise().unwrap_or(lo);
        let valid = (lo..=hi).contains(&to);
        let add = to.saturating_sub(v.me().map_or(0, |m| m.bet));
        vec![
            Line::from(vec![
                Span::raw("raise to "),
                Span::styled(
                    format!(" {to} "),
                    if valid {
                        theme.accent().add_modifier(Modifier::REVERSED)
                    } else {
                        theme.bad().add_modifier(Modifier::REVERSED)
                    },
                ),
                Span::raw(format!(" (puts in {add})")),
            ]),
            Line::styled(format!("min {lo} · pot {pot} · max {hi}"), theme.dim()),
        ]
    }

    fn roll_lines(&self, target: u8, theme: &Theme) -> Vec<Line<'static>> {
        let sides = self.die_sides();
        // A window of at most ten numbers around the choice keeps the strip on one line.
        let first = target
            .saturating_sub(4)
            .max(1)
            .min(sides.saturating_sub(9).max(1));
        let last = (first + 9).min(sides);
        let mut numbers = vec![Span::raw("T ")];
        let mut chances = vec![Span::raw("% ")];
        for t in first..=last {
            let (p, _) = self.roll_odds(t);
            let style = if t == target {
                theme.accent().add_modifier(Modifier::REVERSED)
            } else {
                Style::default()
            };
            numbers.push(Span::styled(format!("{t:>3}"), style));
            numbers.push(Span::raw(" "));
            chances.push(Span::styled(
                format!("{:>3}", (p * 100.0).round() as u32),
                style,
            ));
            chances.push(Span::raw(" "));
        }
        let (p, ev) = self.roll_odds(target);
        let bonus = if target == sides && self.super_ace_open() {
            " (+13 Super Ace)"
        } else {
            ""
        };
        vec![
            Line::from(numbers),
            Line::from(chances),
            Line::from(vec![
                Span::styled(format!("Tolerance {target}"), theme.accent()),
                Span::raw(format!(
                    ": {:.0}% to gain {target}{bonus}, else lose {target}",
                    p * 100.0
                )),
            ]),
            Line::raw(format!("expected {ev:+.1} points · Enter roll · p pass")),
        ]
    }
}

fn my_lines(v: &HandView, theme: &Theme) -> Vec<Line<'static>> {
    let Some(me) = v.me() else {
        return vec![Line::raw("watching")];
    };
    let mut cards: Vec<Span> = vec![Span::raw("cards  ")];
    for c in &me.cards {
        cards.push(theme.card_face(*c));
        cards.push(Span::raw(" "));
    }
    let mut out = vec![Line::from(cards)];
    let rolls: Vec<String> = me
        .rolls
        .iter()
        .map(|r| format!("T{} rolled {} {:+}", r.target, r.die, r.delta()))
        .collect();
    if !rolls.is_empty() {
        out.push(Line::raw(format!("rolls  {}", rolls.join(", "))));
    }
    if let Some(p) = me.points {
        out.push(Line::from(vec![
            Span::raw("points "),
            Span::styled(p.to_string(), theme.accent()),
        ]));
    }
    let mut money = format!("stack {} · in pot {}", me.stack, me.committed);
    if v.to_call > 0 {
        money.push_str(&format!(" · to call {}", v.to_call));
    }
    out.push(Line::raw(money));
    out
}

/// The hand's end in words: what was shown, what came back, who took each pot (or the
/// forfeited chips) and each seat's gain, as the story tells it.
fn winner_lines(ctx: &Ctx, h: &HandSummary, start: &[(Seat, u64)]) -> Vec<String> {
    super::chips::hand_lines(h, start, &|s| ctx.name(s))
}

fn draw_showdown(
    frame: &mut Frame,
    area: Rect,
    ctx: &Ctx,
    h: &HandSummary,
    start: &[(Seat, u64)],
    theme: &Theme,
) {
    let title = if h.result.as_ref().is_some_and(|r| !r.forfeited.is_empty()) {
        format!(" Hand {} · forfeited ", h.hand + 1)
    } else if h.result.as_ref().is_some_and(|r| r.uncontested) {
        format!(" Hand {} over ", h.hand + 1)
    } else {
        format!(" Showdown · hand {} ", h.hand + 1)
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(theme.accent());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [table, words] = Layout::vertical([
        Constraint::Length(h.players.len() as u16 + 1),
        Constraint::Min(1),
    ])
    .areas(inner);
    let result = h.result.as_ref();
    let chips = super::chips::hand_chips(h, start);
    let rows: Vec<Row> =
        h.players
            .iter()
            .map(|&s| {
                let mut cards: Vec<Span> = Vec::new();
                match h.shown.iter().find(|(x, _)| *x == s) {
                    Some((_, cs)) => {
                        for c in cs {
                            cards.push(theme.card_face(Some(*c)));
                            cards.push(Span::raw(" "));
                        }
                    }
                    None => cards.push(Span::styled("—", theme.dim())),
                }
                let rolls: Vec<String> = h
                    .log
                    .iter()
                    .filter_map(|e| match e {
                        LogEntry::Rolled { seat, target, die } if *seat == s => Some(format!(
                            "T{target}:{die}{}",
                            if die >= target { "✓" } else { "✗" }
                        )),
                        _ => None,
                    })
                    .collect();
                let folded = h.log.iter().any(
                    |e| matches!(e, LogEntry::Act { seat, action: Action::Fold } if *seat == s),
                );
                let points = result
                    .and_then(|r| r.points.iter().find(|(x, _)| *x == s))
                    .map(|(_, p)| p.to_string())
                    .unwrap_or_else(|| if folded { "fold".into() } else { String::new() });
                // The hand's gain, not a pot's share: that holds the seat's own bets, and
                // an uncalled bet that came back is no win.
                let net = chips.iter().find(|c| c.seat == s).map_or(0, |c| c.net);
                let stack = h
                    .final_stacks
                    .iter()
                    .find(|(x, _)| *x == s)
                    .map(|(_, c)| c.to_string())
                    .unwrap_or_default();
                let style = if net > 0 {
                    theme.good().add_modifier(Modifier::BOLD)
                } else {
                    Style::default()
                };
                Row::new(vec![
                    Cell::from(ctx.name(s)),
                    Cell::from(Line::from(cards)),
                    Cell::from(rolls.join(" ")),
                    Cell::from(points),
                    Cell::from(match net {
                        0 => String::new(),
                        n if n > 0 => format!("+{n}"),
                        n => n.to_string(),
                    }),
                    Cell::from(stack),
                ])
                .style(style)
            })
            .collect();
    let header = Row::new(["player", "cards", "rolls", "points", "gain", "stack"])
        .style(theme.dim().add_modifier(Modifier::UNDERLINED));
    frame.render_widget(
        Table::new(
            rows,
            [
                Constraint::Min(10),
                Constraint::Length(12),
                Constraint::Length(20),
                Constraint::Length(6),
                Constraint::Length(6),
                Constraint::Length(6),
            ],
        )
        .header(header),
        table,
    );
    let lines: Vec<Line> = winner_lines(ctx, h, start)
        .into_iter()
        .map(|w| Line::styled(w, theme.good().add_modifier(Modifier::BOLD)))
        .collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), words);
}
