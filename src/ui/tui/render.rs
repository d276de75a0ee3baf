//! Drawing: a pure function of [`UiState`] onto a ratatui frame, so tests can draw into a
//! `TestBackend` and read the buffer.

use super::state::{Input, Screen, UiState};
use super::theme::Theme;
use crate::engine::Seat;
use crate::games::tolerance::hand::LogEntry;
use crate::games::tolerance::{Action, HandView};
use crate::table::HandSummary;
use crate::ui::line::{entry_text, phase_text};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

pub fn draw(frame: &mut Frame, state: &UiState) {
    let theme = Theme { color: state.color };
    let area = frame.area();
    let [title, body, status, help] = super::theme::screen_areas(area);
    frame.render_widget(Paragraph::new(title_line(state, &theme)), title);
    match state.screen {
        Screen::Table => draw_table_screen(frame, body, state, &theme),
        Screen::Showdown => match &state.last_hand {
            Some(h) => draw_showdown(frame, body, state, h, &theme),
            None => draw_table_screen(frame, body, state, &theme),
        },
        Screen::Over => draw_over(frame, body, state, &theme),
    }
    frame.render_widget(Paragraph::new(status_line(state, &theme)), status);
    let last = theme.help_or_error(&help_text(state), state.error.as_deref());
    frame.render_widget(Paragraph::new(last), help);
}

fn title_line(state: &UiState, theme: &Theme) -> Line<'static> {
    let mut spans = vec![theme.badge("Tolerance")];
    if let Some(v) = &state.view {
        let mut rules = format!(
            " hand {} · {} · d{} · blind {}",
            v.hand_no + 1,
            phase_text(v.phase),
            v.rules.die_sides,
            v.rules.blind
        );
        if v.rules.super_ace {
            rules.push_str(" · Super Ace");
        }
        if v.rules.card_again {
            rules.push_str(" · Card Again");
        }
        spans.push(Span::raw(rules));
        spans.push(Span::styled(format!(" · pot {}", v.pot), theme.accent()));
    }
    Line::from(spans)
}

fn status_line(state: &UiState, theme: &Theme) -> Line<'static> {
    theme.status_line(
        state.status_text(),
        state.my_turn(),
        state.time_left.filter(|_| state.finished.is_none()),
        state.relay_text(),
    )
}

fn help_text(state: &UiState) -> String {
    let keys = match (&state.screen, &state.input) {
        (Screen::Over, _) => "any key: leave",
        (Screen::Showdown, _) => "any key: back to the table",
        (_, Input::ConfirmQuit) => "y: leave the table (you forfeit the hand) · any other key: stay",
        (_, Input::Raise { .. }) => {
            "←/→ ±blind ↑/↓ ±10 blinds m min h ½pot p pot x all-in 0-9 type · Enter raise · Esc back"
        }
        (_, Input::Roll { .. }) => "←/→ or 1-9,0: Tolerance number · Enter: roll · p: pass · Esc: back",
        (_, Input::Choose) if state.legal.iter().any(|a| matches!(a, Action::Roll { .. })) => {
            "r/Enter: choose a Tolerance number · p: pass · s: last showdown · q: quit"
        }
        (_, Input::Choose) if state.legal.contains(&Action::Call) => {
            "c: call · r: raise · a: all-in · f: fold · s: last showdown · q: quit"
        }
        (_, Input::Choose) => "c: check · r: raise · a: all-in · s: last showdown · q: quit",
        (_, Input::Idle) => "s: last showdown · q: quit",
    };
    keys.to_string()
}

fn draw_table_screen(frame: &mut Frame, area: Rect, state: &UiState, theme: &Theme) {
    let seats = state.view.as_ref().map_or(0, |v| v.players.len()) as u16;
    let [table, log, you] = super::theme::table_areas(area, seats);
    draw_seats(frame, table, state, theme);
    draw_log(frame, log, state, theme);
    draw_you(frame, you, state, theme);
}

fn rolls_short(rolls: &[crate::games::tolerance::hand::RollRecord]) -> String {
    rolls
        .iter()
        .map(|r| format!("{:+}", r.delta()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn draw_seats(frame: &mut Frame, area: Rect, state: &UiState, theme: &Theme) {
    let Some(v) = &state.view else {
        let block = Block::default().borders(Borders::ALL).title(" Table ");
        frame.render_widget(
            Paragraph::new("waiting for the first hand to be dealt…").block(block),
            area,
        );
        return;
    };
    let turn = state.turn_seat();
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
                cards.push(theme.card(*c));
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
            if Some(p.seat) == state.me {
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
                Cell::from(state.name(p.seat)),
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
    let title = match (turn, state.time_left) {
        (Some(s), Some(t)) if state.finished.is_none() => {
            format!(" Table · {} to act · {}s ", state.name(s), t.as_secs())
        }
        (Some(s), None) => format!(" Table · {} to act ", state.name(s)),
        _ => " Table ".to_string(),
    };
    frame.render_widget(
        Table::new(rows, widths)
            .header(header)
            .column_spacing(1)
            .block(Block::default().borders(Borders::ALL).title(title)),
        area,
    );
}

fn draw_log(frame: &mut Frame, area: Rect, state: &UiState, theme: &Theme) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Last actions ");
    let names = |s: Seat| state.name(s);
    let lines: Vec<Line> = match &state.view {
        Some(v) => {
            let room = area.height.saturating_sub(2) as usize;
            let skip = v.log.len().saturating_sub(room);
            v.log[skip..]
                .iter()
                .map(|e| {
                    let style = match e {
                        LogEntry::Won { .. } => theme.good(),
                        LogEntry::Rolled { .. } => theme.accent(),
                        _ => Style::default(),
                    };
                    Line::styled(entry_text(e, &names), style)
                })
                .collect()
        }
        None => vec![Line::styled("nothing yet", theme.dim())],
    };
    frame.render_widget(
        Paragraph::new(lines).block(block).wrap(Wrap { trim: true }),
        area,
    );
}

fn my_lines(v: &HandView, theme: &Theme) -> Vec<Line<'static>> {
    let Some(me) = v.me() else {
        return vec![Line::raw("watching")];
    };
    let mut cards: Vec<Span> = vec![Span::raw("cards  ")];
    for c in &me.cards {
        cards.push(theme.card(*c));
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

fn draw_you(frame: &mut Frame, area: Rect, state: &UiState, theme: &Theme) {
    let title = if state.my_turn() {
        " Your move "
    } else {
        " You "
    };
    let block = theme.panel(title, state.my_turn());
    let Some(v) = &state.view else {
        frame.render_widget(Paragraph::new("").block(block), area);
        return;
    };
    let mut lines = my_lines(v, theme);
    match &state.input {
        Input::Raise { to, .. } => lines.extend(raise_lines(state, v, *to, theme)),
        Input::Roll { target } => lines.extend(roll_lines(state, *target, theme)),
        Input::Choose => lines.push(choice_line(state, v, theme)),
        Input::ConfirmQuit => lines.push(theme.leave_question()),
        Input::Idle => {}
    }
    theme.draw_seat_panel(frame, area, block, lines, state.notice.as_deref());
}

fn choice_line(state: &UiState, v: &HandView, theme: &Theme) -> Line<'static> {
    let key = |k: &str, what: String| theme.key_hint(k, &what);
    let mut spans = Vec::new();
    if state.legal.iter().any(|a| matches!(a, Action::Roll { .. })) {
        spans.extend(key("r", "roll".into()));
        spans.extend(key("p", "pass".into()));
        return Line::from(spans);
    }
    if state.legal.contains(&Action::Call) {
        spans.extend(key("c", format!("call {}", v.to_call)));
    } else {
        spans.extend(key("c", "check".into()));
    }
    if state.raise_window().is_some() {
        spans.extend(key("r", "raise".into()));
    }
    if state.legal.contains(&Action::Fold) {
        spans.extend(key("f", "fold".into()));
    }
    Line::from(spans)
}

fn raise_lines(state: &UiState, v: &HandView, to: u64, theme: &Theme) -> Vec<Line<'static>> {
    let Some((lo, hi)) = state.raise_window() else {
        return vec![];
    };
    let pot = state.pot_raise().unwrap_or(lo);
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

fn roll_lines(state: &UiState, target: u8, theme: &Theme) -> Vec<Line<'static>> {
    let sides = state.view.as_ref().map_or(10, |v| v.rules.die_sides);
    // A window of at most ten numbers around the choice keeps the strip on one line.
    let first = target
        .saturating_sub(4)
        .max(1)
        .min(sides.saturating_sub(9).max(1));
    let last = (first + 9).min(sides);
    let mut numbers = vec![Span::raw("T ")];
    let mut chances = vec![Span::raw("% ")];
    for t in first..=last {
        let (p, _) = state.roll_odds(t);
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
    let (p, ev) = state.roll_odds(target);
    let bonus = if target == sides && state.super_ace_open() {
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

fn showdown_rows(state: &UiState, h: &HandSummary, theme: &Theme) -> Vec<Row<'static>> {
    let result = h.result.as_ref();
    h.players
        .iter()
        .map(|&s| {
            let mut cards: Vec<Span> = Vec::new();
            match h.shown.iter().find(|(x, _)| *x == s) {
                Some((_, cs)) => {
                    for c in cs {
                        cards.push(theme.card(Some(*c)));
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
            let folded = h
                .log
                .iter()
                .any(|e| matches!(e, LogEntry::Act { seat, action: Action::Fold } if *seat == s));
            let points = result
                .and_then(|r| r.points.iter().find(|(x, _)| *x == s))
                .map(|(_, p)| p.to_string())
                .unwrap_or_else(|| if folded { "fold".into() } else { String::new() });
            let won: u64 = result
                .map(|r| {
                    r.pots
                        .iter()
                        .flat_map(|p| p.shares.iter())
                        .filter(|(x, _)| *x == s)
                        .map(|(_, a)| *a)
                        .sum()
                })
                .unwrap_or(0);
            let stack = h
                .final_stacks
                .iter()
                .find(|(x, _)| *x == s)
                .map(|(_, c)| c.to_string())
                .unwrap_or_default();
            let style = if won > 0 {
                theme.good().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            Row::new(vec![
                Cell::from(state.name(s)),
                Cell::from(Line::from(cards)),
                Cell::from(rolls.join(" ")),
                Cell::from(points),
                Cell::from(if won > 0 {
                    format!("+{won}")
                } else {
                    String::new()
                }),
                Cell::from(stack),
            ])
            .style(style)
        })
        .collect()
}

/// "X wins 120" or "split: X 60, Y 60", pot by pot.
fn winner_lines(state: &UiState, h: &HandSummary) -> Vec<String> {
    let Some(r) = &h.result else {
        return vec!["the hand ended without a result (a player forfeited)".into()];
    };
    let mut out = Vec::new();
    for (i, pot) in r.pots.iter().enumerate() {
        let which = if r.pots.len() > 1 {
            if i == 0 {
                "main pot".to_string()
            } else {
                format!("side pot {i}")
            }
        } else {
            "pot".to_string()
        };
        let shares: Vec<String> = pot
            .shares
            .iter()
            .map(|(s, a)| format!("{} {a}", state.name(*s)))
            .collect();
        if pot.shares.len() == 1 {
            let (s, a) = pot.shares[0];
            let how = if r.uncontested {
                " (everyone else folded)"
            } else {
                ""
            };
            out.push(format!("{}: {} wins {a}{how}", which, state.name(s)));
        } else {
            out.push(format!(
                "{which} {} split: {}",
                pot.amount,
                shares.join(", ")
            ));
        }
    }
    for (s, why) in &h.forfeits {
        out.push(format!("{} forfeited: {why}", state.name(*s)));
    }
    out
}

fn draw_showdown(frame: &mut Frame, area: Rect, state: &UiState, h: &HandSummary, theme: &Theme) {
    let title = if h.result.as_ref().is_some_and(|r| r.uncontested) {
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
    let winners = winner_lines(state, h);
    let [table, words] = Layout::vertical([
        Constraint::Length(h.players.len() as u16 + 1),
        Constraint::Min(1),
    ])
    .areas(inner);
    let header = Row::new(["player", "cards", "rolls", "points", "won", "stack"])
        .style(theme.dim().add_modifier(Modifier::UNDERLINED));
    frame.render_widget(
        Table::new(
            showdown_rows(state, h, theme),
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
    let lines: Vec<Line> = winners
        .into_iter()
        .map(|w| Line::styled(w, theme.good().add_modifier(Modifier::BOLD)))
        .collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), words);
}

fn draw_over(frame: &mut Frame, area: Rect, state: &UiState, theme: &Theme) {
    let block = Block::default().borders(Borders::ALL).title(" Table over ");
    let mut lines = vec![Line::styled(
        state.finished.clone().unwrap_or_default(),
        theme.accent(),
    )];
    if let Some(h) = &state.last_hand {
        lines.push(Line::raw(""));
        lines.push(Line::raw(format!("last hand ({}):", h.hand + 1)));
        for w in winner_lines(state, h) {
            lines.push(Line::raw(format!("  {w}")));
        }
        let stacks: Vec<String> = h
            .final_stacks
            .iter()
            .map(|(s, c)| format!("{} {c}", state.name(*s)))
            .collect();
        lines.push(Line::raw(format!("stacks: {}", stacks.join(", "))));
    }
    if state.last_hand.is_none() {
        lines.push(Line::styled("no hand was finished", theme.bad()));
    }
    frame.render_widget(
        Paragraph::new(lines).block(block).wrap(Wrap { trim: true }),
        area,
    );
}
