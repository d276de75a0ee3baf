//! All Fives on the terminal table: the line of play and its arms, the open ends and their
//! count, every side's score, the tiles each player holds and the boneyard, and your tiles —
//! ←/→ picks one, w/e/n/s (or Enter when it fits one end only) sets it.

use super::entry::tile;
use super::game::{Action, AllFives, AllFivesView, End};
use crate::games::panel::{seat_box, Ctx, Outcome, Panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::Frame;

#[derive(Default)]
pub struct AllFivesPanel {
    view: Option<AllFivesView>,
    legal: Vec<Action>,
    /// Index into the view's tiles.
    cursor: usize,
    notice: Option<String>,
}

/// The chain of tiles, cut in the middle with "…" to fit `width` characters: the ends are
/// what matters.
pub fn fit(tiles: &[String], width: usize) -> String {
    let full: String = tiles.concat();
    if full.chars().count() <= width {
        return full;
    }
    let (mut head, mut tail, mut used) = (0, tiles.len(), 1);
    let mut from_tail = true;
    while head < tail {
        let next = if from_tail { tail - 1 } else { head };
        let w = tiles[next].chars().count();
        if used + w > width {
            break;
        }
        used += w;
        if from_tail {
            tail -= 1;
        } else {
            head += 1;
        }
        from_tail = !from_tail;
    }
    format!("{}…{}", tiles[..head].concat(), tiles[tail..].concat())
}

impl AllFivesPanel {
    fn ends_for(&self, position: u16) -> Vec<End> {
        self.legal
            .iter()
            .filter_map(|a| match a {
                Action::Play { position: p, end } if *p == position => Some(*end),
                _ => None,
            })
            .collect()
    }

    fn selected(&self) -> Option<u16> {
        self.view
            .as_ref()
            .and_then(|v| v.tiles.get(self.cursor))
            .map(|(p, _)| *p)
    }

    fn play(&mut self, a: Action) -> Outcome<Action> {
        self.legal.clear();
        self.notice = None;
        Outcome::Play(a)
    }
}

impl Panel<AllFives> for AllFivesPanel {
    fn see(&mut self, view: &AllFivesView) {
        if self.legal.is_empty() {
            self.view = Some(view.clone());
        }
    }

    fn ask(&mut self, view: &AllFivesView, legal: &[Action]) {
        self.view = Some(view.clone());
        self.legal = legal.to_vec();
        self.notice = None;
        self.cursor = view
            .tiles
            .iter()
            .position(|(p, _)| !self.ends_for(*p).is_empty())
            .unwrap_or(0);
    }

    fn withdraw(&mut self) {
        self.legal.clear();
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<Action> {
        if self.legal.is_empty() {
            return Outcome::None;
        }
        let n = self.view.as_ref().map_or(0, |v| v.tiles.len()).max(1);
        let end = match key.code {
            KeyCode::Left => {
                self.cursor = (self.cursor + n - 1) % n;
                return Outcome::None;
            }
            KeyCode::Right => {
                self.cursor = (self.cursor + 1) % n;
                return Outcome::None;
            }
            KeyCode::Char('d') if self.legal.contains(&Action::Draw) => {
                return self.play(Action::Draw)
            }
            KeyCode::Char('p') if self.legal.contains(&Action::Pass) => {
                return self.play(Action::Pass)
            }
            KeyCode::Char('w') => Some(End::West),
            KeyCode::Char('e') => Some(End::East),
            KeyCode::Char('n') => Some(End::North),
            KeyCode::Char('s') => Some(End::South),
            KeyCode::Enter | KeyCode::Char(' ') => None,
            _ => {
                self.notice = Some(self.help());
                return Outcome::None;
            }
        };
        let Some(position) = self.selected() else {
            self.notice = Some(self.help());
            return Outcome::None;
        };
        let ends = self.ends_for(position);
        match (end, ends.as_slice()) {
            (_, []) => self.notice = Some("that tile fits no open end".into()),
            (None, [e]) => return self.play(Action::Play { position, end: *e }),
            (None, _) => {
                let w: Vec<&str> = ends.iter().map(|e| &e.word()[..1]).collect();
                self.notice = Some(format!(
                    "it fits more than one end: press {}",
                    w.join(" or ")
                ));
            }
            (Some(e), _) if ends.contains(&e) => {
                return self.play(Action::Play { position, end: e })
            }
            (Some(e), _) => {
                self.notice = Some(format!("that tile does not fit the {} end", e.word()))
            }
        }
        Outcome::None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let theme = ctx.theme;
        let Some(v) = &self.view else {
            seat_box(frame, area, theme, false, Vec::new(), None);
            return;
        };
        let width = area.width.saturating_sub(10) as usize;
        let mut rows: Vec<Line> = Vec::new();
        if v.layout.is_empty() {
            rows.push(Line::styled(
                "the table is empty: the leader sets any tile",
                theme.dim(),
            ));
        } else {
            let line: Vec<String> = v
                .layout
                .line
                .iter()
                .enumerate()
                .map(|(i, (a, b))| {
                    if v.layout.spinner == Some(i) {
                        format!("<{a}|{b}>")
                    } else {
                        format!("[{a}|{b}]")
                    }
                })
                .collect();
            rows.push(Line::raw(format!("line  {}", fit(&line, width))));
            for (name, arm) in [("north", &v.layout.north), ("south", &v.layout.south)] {
                if !arm.is_empty() {
                    let t: Vec<String> = arm.iter().map(|(a, b)| format!("[{a}|{b}]")).collect();
                    rows.push(Line::raw(format!("{name} {}", fit(&t, width))));
                }
            }
        }
        let mut ends: Vec<Span> = vec![Span::raw("open  ")];
        for (e, p) in &v.ends {
            ends.push(Span::raw(format!("{} ", e.word())));
            ends.push(Span::styled(format!("{p}  "), theme.accent()));
        }
        let scoring = v.count > 0 && v.count % 5 == 0;
        ends.push(Span::styled(
            format!("count {}", v.count),
            if scoring { theme.good() } else { theme.dim() },
        ));
        rows.push(Line::from(ends));
        let sides: Vec<String> = v
            .teams
            .iter()
            .zip(&v.scores)
            .map(|(t, s)| {
                let names: Vec<String> = t.iter().map(|x| ctx.name(*x)).collect();
                format!("{} {s}", names.join(" & "))
            })
            .collect();
        rows.push(Line::raw(format!(
            "score {} · to {}",
            sides.join(" · "),
            v.target
        )));
        let held: Vec<String> = v
            .held
            .iter()
            .map(|(s, k)| {
                let arrow = if v.to_act.contains(s) { "▶" } else { "" };
                format!("{arrow}{} {k}", ctx.name(*s))
            })
            .collect();
        rows.push(Line::raw(format!(
            "held  {} · boneyard {}",
            held.join(", "),
            v.boneyard
        )));
        let [table, lower] = Layout::vertical([
            Constraint::Length(rows.len() as u16 + 2),
            Constraint::Min(4),
        ])
        .areas(area);
        frame.render_widget(
            ratatui::widgets::Paragraph::new(rows)
                .block(theme.panel(&format!(" Hand {} ", v.hand), false)),
            table,
        );
        let [story, you] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(lower);
        ctx.draw_story(frame, story, " Story ");
        let mut lines = Vec::new();
        let mut spans = Vec::new();
        for (i, (p, t)) in v.tiles.iter().enumerate() {
            let fits = !self.ends_for(*p).is_empty();
            let mut style = if fits { theme.accent() } else { theme.dim() };
            if i == self.cursor && !self.legal.is_empty() {
                style = style.add_modifier(Modifier::REVERSED);
            }
            spans.push(Span::styled(tile(*t), style));
            spans.push(Span::raw(" "));
        }
        if v.tiles.is_empty() && v.viewer.is_some() {
            spans.push(Span::styled("no tiles", theme.dim()));
        }
        lines.push(Line::from(spans));
        if !self.legal.is_empty() {
            let mut keys = Vec::new();
            if self.legal.contains(&Action::Draw) {
                keys.extend(theme.key_hint("d", "draw"));
            } else if self.legal.contains(&Action::Pass) {
                keys.extend(theme.key_hint("p", "pass"));
            } else {
                keys.extend(theme.key_hint("←→", "tile"));
                keys.extend(theme.key_hint("w/e/n/s", "end"));
            }
            lines.push(Line::from(keys));
        }
        seat_box(
            frame,
            you,
            theme,
            !self.legal.is_empty(),
            lines,
            self.notice.as_deref(),
        );
    }

    fn help(&self) -> String {
        let mut keys: Vec<&str> = Vec::new();
        if self.legal.contains(&Action::Draw) {
            keys.push("d: draw");
        } else if self.legal.contains(&Action::Pass) {
            keys.push("p: pass");
        } else if !self.legal.is_empty() {
            keys.extend([
                "←/→: pick a tile",
                "w/e/n/s: set it on an end",
                "Enter: the only end",
            ]);
        }
        keys.push("q: quit");
        keys.join(" · ")
    }

    fn title(&self) -> String {
        self.view
            .as_ref()
            .map(|v| format!("hand {} · to {} · count {}", v.hand, v.target, v.count))
            .unwrap_or_default()
    }
}
