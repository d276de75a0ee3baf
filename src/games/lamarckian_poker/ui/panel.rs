//! Lamarckian Poker on the terminal table: the pool, the deck and the discards; each player's
//! card count and the cards it captured face up (every card once a showdown opened them); your
//! hand with a cursor to pick the mark.

use super::LamarckianPoker;
use crate::games::card_hands::ui::card_row;
use crate::games::lamarckian_poker::game::{Action, LamarckianView, Phase};
use crate::games::lamarckian_poker::hand::card_name;
use crate::games::ui::{seat_box, Ctx, Outcome, Panel, Theme};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::Frame;

#[derive(Default)]
pub struct LamarckianPanel {
    view: Option<LamarckianView>,
    legal: Vec<Action>,
    /// Index into the hand of the card the cursor is on.
    cursor: usize,
    notice: Option<String>,
}

/// Cards as spans separated by spaces; "none" when there are none.
fn row(
    theme: &Theme,
    cards: impl IntoIterator<Item = Option<crate::cards::CardId>>,
) -> Vec<Span<'static>> {
    let mut out = card_row(theme, cards);
    if out.is_empty() {
        out.push(Span::styled("none", theme.dim()));
    }
    out
}

impl LamarckianPanel {
    /// The hand's deck positions, in the order shown.
    fn positions(&self) -> Vec<u16> {
        self.view
            .as_ref()
            .map(|v| v.mine.iter().map(|h| h.position).collect())
            .unwrap_or_default()
    }

    /// The mark under the cursor, when it is a legal one.
    fn chosen(&self) -> Option<Action> {
        let position = *self.positions().get(self.cursor)?;
        let a = Action::Mark { position };
        self.legal.contains(&a).then_some(a)
    }

    fn cursor_card(&self) -> Option<String> {
        let v = self.view.as_ref()?;
        v.mine.get(self.cursor)?.card.map(card_name)
    }
}

impl Panel<LamarckianPoker> for LamarckianPanel {
    fn see(&mut self, view: &LamarckianView) {
        if self.legal.is_empty() {
            self.view = Some(view.clone());
            self.cursor = self.cursor.min(view.mine.len().saturating_sub(1));
        }
    }

    fn ask(&mut self, view: &LamarckianView, legal: &[Action]) {
        self.view = Some(view.clone());
        self.legal = legal.to_vec();
        // A new turn, a changed hand: the cursor starts on its first card.
        self.cursor = 0;
        self.notice = None;
    }

    fn withdraw(&mut self) {
        self.legal.clear();
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<Action> {
        if self.legal.is_empty() {
            return Outcome::None;
        }
        let n = self.positions().len();
        match key.code {
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(n.saturating_sub(1)),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = n.saturating_sub(1),
            KeyCode::Char(c @ '1'..='9') if (c as usize - '1' as usize) < n => {
                self.cursor = c as usize - '1' as usize;
            }
            KeyCode::Enter | KeyCode::Char('m') => match self.chosen() {
                Some(a) => {
                    self.legal.clear();
                    self.notice = None;
                    return Outcome::Play(a);
                }
                None => self.notice = Some("that card cannot be your mark".into()),
            },
            _ => self.notice = Some(self.help()),
        }
        Outcome::None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let theme = ctx.theme;
        let Some(v) = &self.view else {
            seat_box(frame, area, ctx, false, Vec::new(), None);
            return;
        };
        let mut rows: Vec<Line> = Vec::new();
        let mut pool = vec![Span::raw("pool     ")];
        pool.extend(row(theme, v.pool.iter().map(|c| Some(*c))));
        rows.push(Line::from(pool));
        let last: Vec<String> = v
            .discards
            .iter()
            .rev()
            .take(4)
            .rev()
            .map(|c| card_name(*c))
            .collect();
        rows.push(Line::raw(format!(
            "deck     {} left · {} discarded{}",
            v.deck_left,
            v.discards.len(),
            if last.is_empty() {
                String::new()
            } else {
                format!(" (last {})", last.join(" "))
            }
        )));
        for (seat, held) in &v.hands {
            let arrow = if v.to_act.contains(seat) {
                "▶ "
            } else {
                "  "
            };
            let mut spans = vec![
                Span::styled(arrow, theme.accent()),
                Span::raw(format!("{:<16} ", ctx.name(*seat))),
            ];
            if v.removed.contains(seat) {
                spans.push(Span::styled("removed", theme.dim()));
            } else if !v.alive.contains(seat) {
                spans.push(Span::styled("extinct", theme.dim()));
            } else {
                spans.push(Span::raw(format!("{:>2} cards  ", held.len())));
                let face_up: Vec<_> = held.iter().filter(|c| c.is_some()).copied().collect();
                if Some(*seat) == v.viewer {
                    spans.push(Span::styled("your hand below", theme.dim()));
                } else if !face_up.is_empty() {
                    spans.push(Span::raw(if face_up.len() == held.len() {
                        "shown "
                    } else {
                        "face up "
                    }));
                    spans.extend(row(theme, face_up));
                }
            }
            if v.winners.contains(seat) {
                spans.push(Span::styled("  winner", theme.good()));
            }
            rows.push(Line::from(spans));
        }
        let title = match v.phase {
            Phase::Done => " Game over ".to_string(),
            _ => format!(" Turn {} ", v.turn.max(1)),
        };
        let height = rows.len() as u16 + 2;
        let you = ctx.table_and_story(frame, area, rows, &title, height);
        let mut lines = Vec::new();
        let asked = !self.legal.is_empty();
        let mut hand: Vec<Span> = Vec::new();
        for (i, h) in v.mine.iter().enumerate() {
            let mut s = theme.card_face(h.card);
            if asked && i == self.cursor {
                s.style = s.style.add_modifier(Modifier::REVERSED);
            }
            hand.push(s);
            hand.push(Span::raw(" "));
        }
        if v.viewer.is_some() {
            if hand.is_empty() {
                hand.push(Span::styled("no cards", theme.dim()));
            }
            lines.push(Line::from(hand));
            let captured: Vec<String> = v
                .mine
                .iter()
                .filter(|h| h.public)
                .filter_map(|h| h.card.map(card_name))
                .collect();
            if !captured.is_empty() {
                lines.push(Line::styled(
                    format!("seen by all: {}", captured.join(" ")),
                    theme.dim(),
                ));
            }
        }
        if asked {
            let mut keys = theme.key_hint("←→", "card");
            let what = match self.cursor_card() {
                Some(c) => format!("mark {c}"),
                None => "mark".into(),
            };
            keys.extend(theme.key_hint("Enter", &what));
            lines.push(Line::from(keys));
            lines.push(Line::styled(
                "sealed: nobody sees it until everyone chose",
                theme.dim(),
            ));
        }
        seat_box(frame, you, ctx, asked, lines, self.notice.as_deref());
    }

    fn help(&self) -> String {
        if self.legal.is_empty() {
            return "q: quit".into();
        }
        let what = match self.cursor_card() {
            Some(c) => format!("Enter: mark {c}"),
            None => "Enter: mark it".into(),
        };
        format!("←/→ or 1-9: pick a card · {what} · q: quit")
    }

    fn title(&self) -> String {
        self.view
            .as_ref()
            .map(|v| format!("turn {} · deck {}", v.turn.max(1), v.deck_left))
            .unwrap_or_default()
    }
}
