//! High Card on the terminal table: each seat's points and card (yours, and the shown ones),
//! whose decision is awaited, and one key per move.

use crate::games::high_card::game::{Action, HighCard, HighCardView};
use crate::games::ui::{seat_box, Ctx, Outcome, Panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

#[derive(Default)]
pub struct HighCardPanel {
    view: Option<HighCardView>,
    legal: Vec<Action>,
    notice: Option<String>,
}

/// Each move's key and words.
const KEYS: [(char, Action, &str); 4] = [
    ('k', Action::Keep, "keep"),
    ('s', Action::Swap, "swap"),
    ('y', Action::Stay, "stay in"),
    ('f', Action::Fold, "fold"),
];

impl Panel<HighCard> for HighCardPanel {
    fn see(&mut self, view: &HighCardView) {
        if self.legal.is_empty() {
            self.view = Some(view.clone());
        }
    }

    fn ask(&mut self, view: &HighCardView, legal: &[Action]) {
        self.view = Some(view.clone());
        self.legal = legal.to_vec();
        self.notice = None;
    }

    fn withdraw(&mut self) {
        self.legal.clear();
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<Action> {
        if self.legal.is_empty() {
            return Outcome::None;
        }
        let chosen = KEYS
            .iter()
            .find(|(k, a, _)| key.code == KeyCode::Char(*k) && self.legal.contains(a));
        match chosen {
            Some((_, a, _)) => {
                self.legal.clear();
                self.notice = None;
                Outcome::Play(*a)
            }
            None => {
                self.notice = Some(self.help());
                Outcome::None
            }
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let theme = ctx.theme;
        let Some(v) = &self.view else {
            seat_box(frame, area, ctx, false, Vec::new(), None);
            return;
        };
        let seats = v.points.len() as u16;
        let [table, lower] =
            Layout::vertical([Constraint::Length(seats + 2), Constraint::Min(4)]).areas(area);
        let rows: Vec<Line> = v
            .points
            .iter()
            .map(|(seat, points)| {
                let card = v.hands.iter().find(|(x, _)| x == seat).map(|(_, c)| *c);
                let arrow = if v.to_act.contains(seat) {
                    "▶ "
                } else {
                    "  "
                };
                let mut spans = vec![
                    Span::styled(arrow, theme.accent()),
                    Span::raw(format!("{:<16} {points:>4} points  ", ctx.name(*seat))),
                ];
                if let Some(c) = card {
                    spans.push(theme.card_face(c));
                }
                if !v.active.contains(seat) {
                    spans.push(Span::styled("  out", theme.dim()));
                } else if v.decided.contains(seat) {
                    spans.push(Span::styled("  decided", theme.dim()));
                }
                Line::from(spans)
            })
            .collect();
        let title = format!(" Round {} of {} ", (v.round + 1).min(v.rounds), v.rounds);
        frame.render_widget(
            Paragraph::new(rows).block(Block::default().borders(Borders::ALL).title(title)),
            table,
        );
        let [story, you] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(lower);
        ctx.draw_story(frame, story, " Story ");
        let mut lines = Vec::new();
        if !self.legal.is_empty() {
            let mut spans = Vec::new();
            for (k, a, words) in KEYS {
                if self.legal.contains(&a) {
                    spans.extend(theme.key_hint(&k.to_string(), words));
                }
            }
            lines.push(Line::from(spans));
            if self.legal.contains(&Action::Stay) {
                lines.push(Line::styled(
                    "sealed: nobody sees it until everyone chose",
                    theme.dim(),
                ));
            }
        }
        seat_box(
            frame,
            you,
            ctx,
            !self.legal.is_empty(),
            lines,
            self.notice.as_deref(),
        );
    }

    fn help(&self) -> String {
        let mut keys: Vec<String> = KEYS
            .iter()
            .filter(|(_, a, _)| self.legal.contains(a))
            .map(|(k, _, w)| format!("{k}: {w}"))
            .collect();
        keys.push("q: quit".into());
        keys.join(" · ")
    }
}
