//! All Fives on the terminal table: the line of play and its arms, the open ends and their
//! count, every side's score, the tiles each player holds and the boneyard, and your tiles —
//! ←/→ picks one, w/e/n/s (or Enter when it fits one end only) sets it.

use crate::games::all_fives::game::{halves, Action, AllFives, AllFivesView, End};
pub use crate::games::dominoes::ui::panel::fit;
use crate::games::dominoes::ui::panel::{tile_move, Picker, TileView};
use crate::games::ui::{seat_box, Ctx, Outcome, Panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::Frame;

impl TileView for AllFivesView {
    fn hand(&self) -> Vec<(u16, (u8, u8))> {
        self.tiles.iter().map(|(p, t)| (*p, halves(*t))).collect()
    }

    fn seated(&self) -> bool {
        self.viewer.is_some()
    }
}

tile_move!(Action, end: End);

#[derive(Default)]
pub struct AllFivesPanel {
    pick: Picker<AllFivesView, Action>,
}

impl Panel<AllFives> for AllFivesPanel {
    fn see(&mut self, view: &AllFivesView) {
        self.pick.see(view);
    }

    fn ask(&mut self, view: &AllFivesView, legal: &[Action]) {
        self.pick.ask(view, legal);
    }

    fn withdraw(&mut self) {
        self.pick.withdraw();
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<Action> {
        if let Some(o) = self.pick.common_key(key) {
            return o;
        }
        let end = match key.code {
            KeyCode::Char('w') => Some(End::West),
            KeyCode::Char('e') => Some(End::East),
            KeyCode::Char('n') => Some(End::North),
            KeyCode::Char('s') => Some(End::South),
            KeyCode::Enter | KeyCode::Char(' ') => None,
            _ => {
                self.pick.notice = Some(self.help());
                return Outcome::None;
            }
        };
        let Some(position) = self.pick.selected() else {
            self.pick.notice = Some(self.help());
            return Outcome::None;
        };
        let ends = self.pick.places(position);
        let notice = match (end, ends.as_slice()) {
            (_, []) => "that tile fits no open end".to_string(),
            (None, [e]) => return self.pick.play(Action::Play { position, end: *e }),
            (None, _) => {
                let w: Vec<&str> = ends.iter().map(|e| &e.word()[..1]).collect();
                format!("it fits more than one end: press {}", w.join(" or "))
            }
            (Some(e), _) if ends.contains(&e) => {
                return self.pick.play(Action::Play { position, end: e })
            }
            (Some(e), _) => format!("that tile does not fit the {} end", e.word()),
        };
        self.pick.notice = Some(notice);
        Outcome::None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let theme = ctx.theme;
        let Some(v) = &self.pick.view else {
            seat_box(frame, area, ctx, false, Vec::new(), None);
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
        self.pick.draw_hand(
            frame,
            you,
            ctx,
            Vec::new(),
            &[("←→", "tile"), ("w/e/n/s", "end")],
        );
    }

    fn help(&self) -> String {
        self.pick.help(&[
            "←/→: pick a tile",
            "w/e/n/s: set it on an end",
            "Enter: the only end",
        ])
    }

    fn title(&self) -> String {
        self.pick
            .view
            .as_ref()
            .map(|v| format!("hand {} · to {} · count {}", v.hand, v.target, v.count))
            .unwrap_or_default()
    }
}
