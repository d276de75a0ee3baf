//! Chickenfoot on the terminal table: the centerpiece and its four sides, every line (arm or
//! toe) with its open end, the double that waits for its chickenfoot, the tiles each player
//! holds, the chicken yard, the points, and your tiles — ←/→ picks a tile, ↑/↓ picks where it
//! goes when it fits more than one place, Enter sets it, d draws, p passes.

use super::words::tile;
use crate::games::chickenfoot::game::{Action, Chickenfoot, ChickenfootView, Spot, ARMS};
use crate::games::dominoes::ui::panel::{fit, tile_move, Picker, TileView};
use crate::games::ui::{seat_box, Ctx, Outcome, Panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

impl TileView for ChickenfootView {
    fn hand(&self) -> Vec<(u16, (u8, u8))> {
        self.tiles.clone()
    }

    fn seated(&self) -> bool {
        self.viewer.is_some()
    }
}

tile_move!(Action, spot: Spot);

#[derive(Default)]
pub struct ChickenfootPanel {
    pick: Picker<ChickenfootView, Action>,
    /// Index into the picked tile's spots.
    spot: usize,
}

/// Where a tile goes, in a few words: "centerpiece", "line 3", "toe of line 2".
fn spot_short(s: Spot) -> String {
    match s {
        Spot::Center => "the centerpiece".into(),
        Spot::End(l) => format!("line {}", l + 1),
        Spot::Toe(l) => format!("a toe of line {}", l + 1),
    }
}

/// Items joined by " · " into rows of at most `width` characters, never cutting an item.
pub fn packed(items: &[String], width: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    for item in items {
        match rows.last_mut() {
            Some(row) if row.chars().count() + 3 + item.chars().count() <= width => {
                row.push_str(" · ");
                row.push_str(item);
            }
            _ => rows.push(item.clone()),
        }
    }
    rows
}

/// The rows that describe the lines, two to a row when the width allows, at most `room` rows:
/// open lines first when they do not all fit.
pub fn line_rows(v: &ChickenfootView, width: usize, room: usize) -> Vec<String> {
    let l = &v.layout;
    let foot = l.foot.map(|(line, _)| line);
    let cols = if width >= 60 { 2 } else { 1 };
    let col_width = if cols == 2 { width / 2 - 1 } else { width };
    // Each line: its number, where it starts (↳ the line whose double it toes), its tiles cut
    // in the middle to fit, and its end: ▸ the number to match, ◆ the double awaiting its
    // chickenfoot, · closed (a footed double).
    // Each cell: how much it matters (0 the double awaiting its foot, 1 an open end, 2 closed)
    // and its text.
    let cells: Vec<(u8, String)> = l
        .lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let last = line.tiles.last().copied().unwrap_or((0, 0));
            let footing = foot == Some(i as u16);
            let closed = last.0 == last.1 && !footing;
            let head = match line.from {
                None => format!("{:>2} ", i + 1),
                Some(d) => format!("{:>2} ↳{} ", i + 1, d + 1),
            };
            let end = if footing {
                " ◆foot".to_string()
            } else if closed {
                " ·".to_string()
            } else {
                format!(" ▸{}", last.1)
            };
            let tiles: Vec<String> = line.tiles.iter().map(|t| tile(*t)).collect();
            let room = col_width.saturating_sub(head.chars().count() + end.chars().count());
            let rank = if footing { 0 } else { u8::from(closed) + 1 };
            (rank, format!("{head}{}{end}", fit(&tiles, room)))
        })
        .collect();
    let mut shown: Vec<&(u8, String)> = cells.iter().collect();
    let hidden = if cells.len().div_ceil(cols) > room {
        // Too many to show: the pending foot first, then the open ends, in line order; the
        // rest are counted.
        let keep = room.saturating_sub(1).max(1) * cols;
        let mut by_rank = shown.clone();
        by_rank.sort_by_key(|c| c.0);
        by_rank.truncate(keep);
        shown.retain(|c| by_rank.iter().any(|k| std::ptr::eq(*k, *c)));
        cells.len() - shown.len()
    } else {
        0
    };
    let mut rows: Vec<String> = shown
        .chunks(cols)
        .map(|pair| {
            pair.iter()
                .map(|c| format!("{:<col_width$}", c.1))
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_string()
        })
        .collect();
    if hidden > 0 {
        rows.push(format!(
            "(+{hidden} more lines, none of them awaiting a foot)"
        ));
    }
    rows
}

/// What the table waits for before play is free: the centerpiece's sides, or a chickenfoot.
pub fn obligation(v: &ChickenfootView) -> Option<String> {
    let l = &v.layout;
    if l.arms() < ARMS {
        return Some(format!(
            "the centerpiece needs {} more side{}: play a {}",
            ARMS - l.arms(),
            if ARMS - l.arms() == 1 { "" } else { "s" },
            l.center
        ));
    }
    let (line, k) = l.foot?;
    let p = v.spots.first().map_or(0, |s| s.1);
    Some(format!(
        "chickenfoot on line {}: {k} more toe{}, each a {p}, before play goes on elsewhere",
        line + 1,
        if k == 1 { "" } else { "s" }
    ))
}

impl Panel<Chickenfoot> for ChickenfootPanel {
    fn see(&mut self, view: &ChickenfootView) {
        self.pick.see(view);
    }

    fn ask(&mut self, view: &ChickenfootView, legal: &[Action]) {
        self.pick.ask(view, legal);
        self.spot = 0;
    }

    fn withdraw(&mut self) {
        self.pick.withdraw();
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<Action> {
        if matches!(key.code, KeyCode::Left | KeyCode::Right) {
            self.spot = 0;
        }
        if let Some(o) = self.pick.common_key(key) {
            return o;
        }
        let position = self.pick.selected();
        let spots = position.map(|p| self.pick.places(p)).unwrap_or_default();
        let notice = match key.code {
            KeyCode::Up | KeyCode::Down => {
                let k = spots.len().max(1);
                self.spot = if key.code == KeyCode::Up {
                    (self.spot + k - 1) % k
                } else {
                    (self.spot + 1) % k
                };
                return Outcome::None;
            }
            KeyCode::Enter | KeyCode::Char(' ') => match (position, spots.get(self.spot)) {
                (Some(position), Some(spot)) => {
                    return self.pick.play(Action::Play {
                        position,
                        spot: *spot,
                    })
                }
                _ if self.pick.legal.contains(&Action::Draw) => {
                    "no tile fits: press d to draw".into()
                }
                _ if self.pick.view.as_ref().is_some_and(|v| v.pass_ends_round()) => {
                    "no tile fits and the yard is empty: p passes and ends the round".into()
                }
                _ if self.pick.legal.contains(&Action::Pass) => {
                    "no tile fits: press p to pass".into()
                }
                _ => "that tile fits nowhere now".into(),
            },
            _ => self.help(),
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
        let width = area.width.saturating_sub(2) as usize;
        let mut head: Vec<Line> = Vec::new();
        let c = v.layout.center;
        head.push(Line::from(vec![
            Span::styled(format!("centerpiece [{c}|{c}]"), theme.accent()),
            Span::raw(format!(
                " · sides {}/{ARMS} · chicken yard {} · round {} of {}",
                v.layout.arms().min(ARMS),
                v.yard,
                v.round,
                v.rounds
            )),
        ]));
        match obligation(v) {
            Some(o) => head.push(Line::styled(o, theme.good())),
            None => {
                let open: Vec<String> = v
                    .spots
                    .iter()
                    .map(|(s, p)| match s {
                        Spot::End(l) => format!("{} {p}", l + 1),
                        _ => format!("{p}"),
                    })
                    .collect();
                head.push(Line::raw(format!(
                    "open ends (line number): {}",
                    open.join(" · ")
                )));
            }
        }
        // Seats: tiles held and points, the one to move marked.
        let seats: Vec<String> = (0..v.players)
            .map(|s| {
                let held = v.held.iter().find(|(x, _)| *x == s).map_or(0, |(_, k)| *k);
                let arrow = if v.to_act.contains(&s) { "▶" } else { "" };
                let points = v.scores.get(usize::from(s)).copied().unwrap_or(0);
                format!("{arrow}{} {held}t {points}p", ctx.name(s))
            })
            .collect();
        let mut items = seats;
        if let Some(first) = items.first_mut() {
            *first = format!("tiles/points (fewest wins): {first}");
        }
        let seat_lines = packed(&items, width);
        let seat_rows = seat_lines.len();
        // Room for the lines: what is left after the head, the seats, the borders and the
        // lower boxes (at least five rows).
        let fixed = head.len() + seat_rows + 2;
        let room = (area.height as usize).saturating_sub(fixed + 5).max(1);
        let mut rows = head;
        for r in line_rows(v, width, room) {
            rows.push(Line::raw(r));
        }
        let table_height = (rows.len() + seat_rows + 2) as u16;
        rows.extend(seat_lines.into_iter().map(Line::raw));
        let [table, lower] =
            Layout::vertical([Constraint::Length(table_height), Constraint::Min(4)]).areas(area);
        frame.render_widget(
            Paragraph::new(rows)
                .wrap(Wrap { trim: false })
                .block(theme.panel(&format!(" Round {} ", v.round), false)),
            table,
        );
        let [story, you] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(lower);
        ctx.draw_story(frame, story, " Story ");
        let mut extra = Vec::new();
        if let Some(position) = self.pick.selected() {
            let spots = self.pick.places(position);
            if let Some(s) = spots.get(self.spot) {
                let more = if spots.len() > 1 {
                    format!(" ({} of {})", self.spot + 1, spots.len())
                } else {
                    String::new()
                };
                extra.push(Line::raw(format!("goes on {}{more}", spot_short(*s))));
            }
        }
        self.pick.draw_hand(
            frame,
            you,
            ctx,
            extra,
            &[("←→", "tile"), ("↑↓", "where"), ("Enter", "set")],
        );
    }

    fn help(&self) -> String {
        if self.pick.view.as_ref().is_some_and(|v| v.pass_ends_round()) {
            return "p: pass — the yard is empty: this ends the round for everyone · q: quit"
                .into();
        }
        self.pick.help(&[
            "←/→: pick a tile",
            "↑/↓: pick where it goes",
            "Enter: set it",
        ])
    }

    fn title(&self) -> String {
        self.pick
            .view
            .as_ref()
            .map(|v| {
                let c = v.layout.center;
                format!(
                    "round {} of {} · centerpiece [{c}|{c}] · yard {}",
                    v.round, v.rounds, v.yard
                )
            })
            .unwrap_or_default()
    }
}
