//! The panel every game gets for free: the table in the game's own words, the moves open now
//! as a list to pick from, and a line to type a move the way line mode reads it.

use super::GameUi;
use super::{Ctx, Outcome, Panel};
use crate::engine::Seat;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

pub struct GenericPanel<G: GameUi> {
    view: Option<G::View>,
    legal: Vec<G::Action>,
    at: usize,
    /// A move being typed, once a letter or digit was pressed.
    typed: Option<String>,
    notice: Option<String>,
    /// Rows kept under the table for the moves and the story; none: the table takes at most
    /// half the screen.
    room_below: Option<u16>,
}

impl<G: GameUi> Default for GenericPanel<G> {
    fn default() -> Self {
        GenericPanel {
            view: None,
            legal: Vec::new(),
            at: 0,
            typed: None,
            notice: None,
            room_below: None,
        }
    }
}

impl<G: GameUi> GenericPanel<G> {
    /// A panel whose table may take all but `rows` of the screen's middle (a game whose table
    /// is most of what a player reads, such as The Bogey's columns).
    pub fn with_room_below(rows: u16) -> Self {
        GenericPanel {
            room_below: Some(rows),
            ..GenericPanel::default()
        }
    }
}

/// Whether `a` is one of `legal`, or an amount where the game lists a range of amounts by a
/// few of them (the session checks the amount itself).
pub fn fits_legal<A: serde::Serialize + PartialEq>(legal: &[A], a: &A) -> bool {
    if legal.contains(a) {
        return true;
    }
    let json = serde_json::to_value(a).unwrap_or_default();
    legal.iter().any(|l| {
        let lj = serde_json::to_value(l).unwrap_or_default();
        match (lj.as_object(), json.as_object()) {
            (Some(x), Some(y)) => x.keys().eq(y.keys()),
            _ => false,
        }
    })
}

impl<G: GameUi> GenericPanel<G> {
    fn play(&mut self, a: G::Action) -> Outcome<G::Action> {
        self.legal.clear();
        self.typed = None;
        self.notice = None;
        Outcome::Play(a)
    }
}

impl<G: GameUi> Panel<G> for GenericPanel<G> {
    fn see(&mut self, view: &G::View) {
        if self.legal.is_empty() {
            self.view = Some(view.clone());
        }
    }

    fn ask(&mut self, view: &G::View, legal: &[G::Action]) {
        self.view = Some(view.clone());
        self.legal = legal.to_vec();
        self.at = 0;
        self.typed = None;
        self.notice = None;
    }

    fn withdraw(&mut self) {
        self.legal.clear();
        self.typed = None;
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<G::Action> {
        if self.legal.is_empty() {
            return Outcome::None;
        }
        if let Some(text) = self.typed.as_mut() {
            match key.code {
                KeyCode::Char(c) => text.push(c),
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Esc => self.typed = None,
                KeyCode::Enter => {
                    let text = text.trim().to_string();
                    let Some(view) = self.view.as_ref() else {
                        return Outcome::None;
                    };
                    match G::parse_move(&text, view, &self.legal) {
                        Ok(a) if fits_legal(&self.legal, &a) => return self.play(a),
                        Ok(_) => self.notice = Some("that move is not allowed now".into()),
                        Err(e) => self.notice = Some(e),
                    }
                }
                _ => {}
            }
            return Outcome::None;
        }
        let last = self.legal.len() - 1;
        match key.code {
            KeyCode::Up | KeyCode::Left => self.at = self.at.saturating_sub(1),
            KeyCode::Down | KeyCode::Right => self.at = (self.at + 1).min(last),
            KeyCode::Home => self.at = 0,
            KeyCode::End => self.at = last,
            KeyCode::Enter => {
                let a = self.legal[self.at.min(last)].clone();
                return self.play(a);
            }
            KeyCode::Char(c) if c.is_alphanumeric() => {
                self.typed = Some(c.to_string());
                self.notice = None;
            }
            _ => {
                self.notice = Some("↑/↓ choose · Enter play · or type a move".into());
            }
        }
        Outcome::None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let theme = ctx.theme;
        let name = |s: Seat| ctx.name(s);
        let table: Vec<Line> = match &self.view {
            Some(v) => G::render(v, &name)
                .lines()
                .map(|l| Line::raw(l.to_string()))
                .collect(),
            None => vec![Line::styled("waiting for the table…", theme.dim())],
        };
        let most = match self.room_below {
            Some(rows) => area.height.saturating_sub(rows),
            None => area.height / 2,
        };
        let want = (table.len() as u16 + 2).clamp(4, most.max(4));
        let [top, lower] =
            Layout::vertical([Constraint::Length(want), Constraint::Min(4)]).areas(area);
        frame.render_widget(
            Paragraph::new(table)
                .block(Block::default().borders(Borders::ALL).title(" Table "))
                .wrap(Wrap { trim: false }),
            top,
        );
        let [story, you] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(lower);
        ctx.draw_story(frame, story, " Story ");
        let mut lines = Vec::new();
        if !self.legal.is_empty() {
            let room = you.height.saturating_sub(4) as usize;
            let first = self.at.saturating_sub(room.saturating_sub(1));
            for (i, a) in self.legal.iter().enumerate().skip(first).take(room.max(1)) {
                let text = self
                    .view
                    .as_ref()
                    .map(|v| G::move_text(v, a))
                    .unwrap_or_default();
                lines.push(if i == self.at {
                    Line::from(vec![
                        Span::styled("▶ ", theme.accent()),
                        Span::styled(text, theme.accent().add_modifier(Modifier::REVERSED)),
                    ])
                } else {
                    Line::raw(format!("  {text}"))
                });
            }
            match &self.typed {
                Some(t) => lines.push(Line::from(vec![
                    Span::raw("type: "),
                    Span::styled(format!("{t}_"), theme.accent()),
                ])),
                None => {
                    if let Some(v) = &self.view {
                        let p = G::prompt(v, &self.legal);
                        let p = p.trim().trim_end_matches(['>', ':']).trim();
                        if !p.is_empty() {
                            lines.push(Line::styled(p.to_string(), theme.dim()));
                        }
                    }
                }
            }
        }
        super::seat_box(
            frame,
            you,
            ctx,
            !self.legal.is_empty(),
            lines,
            self.notice.as_deref(),
        );
    }

    fn help(&self) -> String {
        match (&self.typed, self.legal.is_empty()) {
            (Some(_), _) => "type a move · Enter play · Esc back to the list".into(),
            (None, false) => "↑/↓ choose · Enter play · letters: type a move · q quit".into(),
            (None, true) => "q quit".into(),
        }
    }

    fn typing(&self) -> bool {
        self.typed.is_some()
    }

    fn editing(&self) -> bool {
        self.typed.is_some()
    }
}
