//! Drawing the dice table: a pure function of [`DiceState`], tested on ratatui's `TestBackend`.

use super::state::{BidField, ChallengeResult, DiceInput, DiceScreen, DiceState, DiceView};
use crate::engine::Seat;
use crate::games::mia::{self, Throw};
use crate::games::perudo::{self, count_for, Bid};
use crate::games::ui::words::{says, whose};
use crate::games::ui::{Ctx, Theme};
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

/// The panel's part of the screen: the table, or the last challenge's opened cups.
pub fn draw_body(frame: &mut Frame, area: Rect, state: &DiceState, ctx: &Ctx) {
    let theme = Theme { color: state.color };
    match (state.screen, state.last_result()) {
        (DiceScreen::Result, Some(r)) => draw_result(frame, area, state, &r, &theme),
        _ => draw_table(frame, area, state, ctx, &theme),
    }
}

/// The game's part of the title line.
pub fn title_text(state: &DiceState) -> String {
    match &state.view {
        Some(DiceView::Perudo(v)) => {
            let mut s = format!("round {} · {} dice on the table", v.round, v.total_dice);
            if v.putana {
                s.push_str(" · one-die round: ones not wild");
            }
            s
        }
        Some(DiceView::Mia(v)) => format!(
            "round {} · {} ranking · Mia (21) costs two lives",
            v.round,
            match v.ranking {
                mia::Ranking::Traditional => "traditional",
                mia::Ranking::Modern => "modern",
            }
        ),
        None => String::new(),
    }
}

pub fn help_text(state: &DiceState) -> String {
    let v = state.last_result().map_or("", |_| " · v: last challenge");
    match (state.screen, &state.input) {
        (DiceScreen::Result, _) => "any key: back to the table".into(),
        (_, DiceInput::Bid { .. }) => {
            "↑/↓ quantity ←/→ face 0-9 type Tab field o ones · Enter bid · d dudo · q quit".into()
        }
        (_, DiceInput::Pick { raise: true, .. }) => {
            "←/→ or two digits: value · t truth · Enter raise · Esc back".into()
        }
        (_, DiceInput::Pick { .. }) => {
            // Within 79 columns with the last-challenge key: the help line is 80 wide.
            format!("←/→ or two digits (21 = Mia) · t truth · Enter claim{v}")
        }
        (_, DiceInput::Respond) => {
            let raise = if state.pick_options(true).is_empty() {
                ""
            } else {
                " · u raise"
            };
            format!("c challenge · p pass · r reroll{raise}{v} · q quit")
        }
        (_, DiceInput::Idle) => format!("q: quit{v}"),
    }
}

fn dice_text(d: &[u8]) -> String {
    d.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Dice as spans, the ones matching `bid` highlighted.
fn dice_spans(dice: &[u8], bid: Option<(Bid, bool)>, theme: &Theme) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    for d in dice {
        let hit = bid.is_some_and(|(b, putana)| count_for(b, putana, [*d]) == 1);
        let style = if hit {
            theme
                .good()
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        } else {
            Style::default().add_modifier(Modifier::BOLD)
        };
        out.push(Span::styled(d.to_string(), style));
        out.push(Span::raw(" "));
    }
    out
}

fn possessive(name: &str) -> String {
    whose(name.to_string())
}

fn pct(p: f64) -> String {
    format!("{:.0}%", p * 100.0)
}

fn draw_table(frame: &mut Frame, area: Rect, state: &DiceState, ctx: &Ctx, theme: &Theme) {
    let seats = match &state.view {
        Some(DiceView::Perudo(v)) => v.players.len(),
        Some(DiceView::Mia(v)) => v.lives.len(),
        None => 0,
    } as u16;
    let [table, log, you] = crate::games::ui::theme::table_areas(area, seats);
    draw_seats(frame, table, state, theme);
    ctx.draw_story(frame, log, " Story ");
    draw_you(frame, you, state, theme);
}

fn seat_row(
    state: &DiceState,
    seat: Seat,
    out: bool,
    cells: Vec<Cell<'static>>,
    theme: &Theme,
) -> Row<'static> {
    let pointer = if state.turn_seat() == Some(seat) {
        Span::styled("▶", theme.accent())
    } else {
        Span::raw(" ")
    };
    let mut style = Style::default();
    if Some(seat) == state.me {
        style = style.add_modifier(Modifier::BOLD);
    }
    if out {
        style = style.patch(theme.dim());
    }
    let mut all = vec![Cell::from(pointer), Cell::from(state.name(seat))];
    all.extend(cells);
    Row::new(all).style(style)
}

fn draw_seats(frame: &mut Frame, area: Rect, state: &DiceState, theme: &Theme) {
    let title = match (state.turn_seat(), state.time_left) {
        (Some(s), Some(t)) => {
            format!(" Table · {} to act · {}s ", state.name(s), t.as_secs())
        }
        (Some(s), _) => format!(" Table · {} to act ", state.name(s)),
        _ => " Table ".to_string(),
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    let (header, rows, widths): (Vec<&str>, Vec<Row>, Vec<Constraint>) = match &state.view {
        None => {
            frame.render_widget(
                Paragraph::new("waiting for the table to start…").block(block),
                area,
            );
            return;
        }
        Some(DiceView::Perudo(v)) => {
            let rows = v
                .players
                .iter()
                .map(|p| {
                    let out = p.dice_left == 0;
                    let cup: Vec<Span> = match &p.dice {
                        Some(d) if Some(p.seat) == state.me => dice_spans(d, None, theme),
                        _ if out => vec![Span::styled("out", theme.dim())],
                        _ => vec![Span::styled("hidden", theme.dim())],
                    };
                    let note = if v.bidder == Some(p.seat) {
                        v.bid.map(|b| format!("bid {b}")).unwrap_or_default()
                    } else {
                        String::new()
                    };
                    seat_row(
                        state,
                        p.seat,
                        out,
                        vec![
                            Cell::from(format!(
                                "{:>2} {}",
                                p.dice_left,
                                "■".repeat(p.dice_left as usize)
                            )),
                            Cell::from(Line::from(cup)),
                            Cell::from(Span::styled(note, theme.accent())),
                        ],
                        theme,
                    )
                })
                .collect();
            (
                vec!["", "player", "dice", "cup", ""],
                rows,
                vec![
                    Constraint::Length(1),
                    Constraint::Min(10),
                    Constraint::Length(13),
                    Constraint::Length(20),
                    Constraint::Length(15),
                ],
            )
        }
        Some(DiceView::Mia(v)) => {
            let cup = v.cup.as_ref();
            let rows = v
                .lives
                .iter()
                .map(|(seat, lives)| {
                    let mut role = Vec::new();
                    if cup.is_some_and(|c| c.roller == *seat) && v.phase != mia::Phase::Done {
                        role.push("rolled the cup".to_string());
                    }
                    // After a reroll the old claim is only the value to beat until a new one.
                    let standing = matches!(v.phase, mia::Phase::Respond | mia::Phase::Opening);
                    if let Some(claim) = cup
                        .filter(|c| c.owner == *seat && standing)
                        .and_then(|c| c.claim)
                    {
                        role.push(format!("claimed {claim}"));
                    }
                    seat_row(
                        state,
                        *seat,
                        *lives == 0,
                        vec![
                            Cell::from(format!("{:>2} {}", lives, "♥".repeat(*lives as usize))),
                            Cell::from(Span::styled(role.join(" · "), theme.accent())),
                        ],
                        theme,
                    )
                })
                .collect();
            (
                vec!["", "player", "lives", ""],
                rows,
                vec![
                    Constraint::Length(1),
                    Constraint::Min(10),
                    Constraint::Length(13),
                    Constraint::Length(36),
                ],
            )
        }
    };
    let header = Row::new(header).style(theme.dim().add_modifier(Modifier::UNDERLINED));
    frame.render_widget(
        Table::new(rows, widths)
            .header(header)
            .column_spacing(1)
            .block(block),
        area,
    );
}

fn draw_you(frame: &mut Frame, area: Rect, state: &DiceState, theme: &Theme) {
    let title = if state.my_turn() {
        " Your move "
    } else if state.me.is_none() {
        " Watching "
    } else {
        " You "
    };
    let block = theme.panel(title, state.my_turn());
    let lines = match &state.view {
        Some(DiceView::Perudo(v)) => perudo_lines(state, v, theme),
        Some(DiceView::Mia(v)) => mia_lines(state, v, theme),
        None => Vec::new(),
    };
    theme.draw_seat_panel(frame, area, block, lines, state.notice.as_deref());
}

fn perudo_lines(state: &DiceState, v: &perudo::PerudoView, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let own = state.my_cup();
    if state.me.is_some() {
        let mut cup = vec![Span::raw("your cup  ")];
        if own.is_empty() {
            cup.push(Span::styled("(being rolled)", theme.dim()));
        } else {
            cup.extend(dice_spans(&own, v.bid.map(|b| (b, v.putana)), theme));
        }
        out.push(Line::from(cup));
    }
    match (v.bid, v.bidder) {
        (Some(b), Some(by)) => {
            let spans = vec![
                Span::raw("bid  "),
                Span::styled(b.to_string(), theme.accent()),
                Span::raw(format!(" by {}", state.name(by))),
            ];
            out.push(Line::from(spans));
            if let Some(p) = state.bid_chance(b) {
                out.push(Line::raw(format!("  true {} given your cup", pct(p))));
            }
        }
        _ => out.push(Line::styled("no bid yet this round", theme.dim())),
    }
    if v.putana {
        out.push(Line::styled(
            "one-die round: ones are not wild and the face stays",
            theme.bad(),
        ));
    }
    if let DiceInput::Bid {
        quantity,
        face,
        field,
        ..
    } = state.input
    {
        let bid = Bid { quantity, face };
        let problem = state.bid_problem(bid);
        let box_style = |f: BidField| {
            let base = if problem.is_some() {
                theme.bad()
            } else {
                theme.accent()
            };
            if f == field {
                base.add_modifier(Modifier::REVERSED)
            } else {
                base
            }
        };
        let mut spans = vec![
            Span::raw("you bid "),
            Span::styled(format!(" {quantity} "), box_style(BidField::Quantity)),
            Span::raw(" × "),
            Span::styled(
                format!(" {} ", perudo::face_name(face)),
                box_style(BidField::Face),
            ),
        ];
        if let Some(p) = state.bid_chance(bid) {
            spans.push(Span::raw(format!("  true {}", pct(p))));
        }
        out.push(Line::from(spans));
        if let Some(why) = problem {
            out.push(Line::styled(why, theme.bad()));
        }
        let mut keys = theme.key_hint("Enter", "bid");
        if v.bid.is_some() {
            keys.extend(theme.key_hint("d", "dudo"));
        }
        if !v.putana {
            keys.extend(theme.key_hint("o", if face == 1 { "from ones" } else { "to ones" }));
        }
        out.push(Line::from(keys));
    }
    out
}

/// A cup value as short as it reads: "Mia" for 21.
fn throw_short(t: Throw) -> String {
    if t == Throw::MIA {
        "Mia".into()
    } else {
        t.0.to_string()
    }
}

fn mia_lines(state: &DiceState, v: &mia::MiaView, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if let Some(mine) = state.my_roll() {
        let d = v.cup.as_ref().and_then(|c| c.dice).unwrap_or_default();
        out.push(Line::from(vec![
            Span::raw("you rolled  "),
            Span::styled(format!("{} = {mine}", dice_text(&d)), theme.accent()),
            Span::styled("  (only you know)", theme.dim()),
        ]));
    }
    match (v.cup.as_ref(), state.standing_claim()) {
        // After a reroll the claim taken on is the value the new one must beat.
        (Some(_), Some(claim))
            if matches!(v.phase, mia::Phase::Claim { .. } | mia::Phase::Rolling) =>
        {
            out.push(Line::from(vec![
                Span::raw("to beat  "),
                Span::styled(claim.to_string(), theme.accent()),
                Span::raw(" (the claim taken on)"),
            ]));
        }
        (Some(c), Some(claim)) => {
            let spans = vec![
                Span::raw("claim  "),
                Span::styled(claim.to_string(), theme.accent()),
                Span::raw(format!(" by {}", state.name(c.owner))),
            ];
            out.push(Line::from(spans));
            if let Some(p) = state.reach_chance(claim) {
                out.push(Line::raw(format!("  a fair roll reaches it {}", pct(p))));
            }
        }
        _ => out.push(Line::styled("no claim yet", theme.dim())),
    }
    match &state.input {
        DiceInput::Pick { raise, at, .. } => {
            let options = state.pick_options(*raise);
            let at = (*at).min(options.len().saturating_sub(1));
            // A window of seven values around the choice keeps the strip on one line.
            let first = at.saturating_sub(3).min(options.len().saturating_sub(7));
            let mut strip = vec![Span::raw(if *raise { "raise " } else { "claim " })];
            if first > 0 {
                strip.push(Span::styled("‹ ", theme.dim()));
            }
            for (i, t) in options.iter().enumerate().skip(first).take(7) {
                let truth = state.my_roll() == Some(*t);
                let mut style = if truth {
                    theme.good()
                } else {
                    Style::default()
                };
                if i == at {
                    style = style.patch(theme.accent()).add_modifier(Modifier::REVERSED);
                }
                strip.push(Span::styled(format!(" {} ", throw_short(*t)), style));
            }
            if first + 7 < options.len() {
                strip.push(Span::styled(" ›", theme.dim()));
            }
            out.push(Line::from(strip));
            if let Some(t) = options.get(at) {
                let what = match state.my_roll() {
                    Some(m) if m == *t => "the truth".to_string(),
                    Some(_) => "a bluff".to_string(),
                    None => "unseen".to_string(),
                };
                out.push(Line::raw(format!(
                    "{t}: {what} · a fair roll reaches it {}",
                    state.reach_chance(*t).map(pct).unwrap_or_default()
                )));
            }
            let mut keys = theme.key_hint("Enter", if *raise { "raise" } else { "claim" });
            keys.extend(theme.key_hint("t", "truth"));
            if *raise {
                keys.extend(theme.key_hint("Esc", "back"));
            }
            out.push(Line::from(keys));
        }
        DiceInput::Respond => {
            let mut keys = Vec::new();
            for (a, k, what) in [
                (mia::Action::Challenge, "c", "challenge"),
                (mia::Action::Pass, "p", "pass"),
                (mia::Action::Reroll, "r", "reroll"),
            ] {
                if state.legal.contains(&super::state::DiceAction::Mia(a)) {
                    keys.extend(theme.key_hint(k, what));
                }
            }
            if !state.pick_options(true).is_empty() {
                keys.extend(theme.key_hint("u", "raise"));
            }
            out.push(Line::from(keys));
        }
        _ => {}
    }
    out
}

fn draw_result(
    frame: &mut Frame,
    area: Rect,
    state: &DiceState,
    r: &ChallengeResult,
    theme: &Theme,
) {
    let n = |s: Seat| state.name(s);
    let mut lines: Vec<Line> = Vec::new();
    let title = match r {
        ChallengeResult::Perudo {
            challenger,
            bidder,
            bid,
            putana,
            shown,
            count,
            loser,
            out,
        } => {
            lines.push(Line::raw(format!(
                "{} doubted {} bid of {bid}{}. The cups:",
                n(*challenger),
                possessive(&n(*bidder)),
                if *putana {
                    " (a one-die round: ones not wild)"
                } else {
                    ""
                }
            )));
            for (seat, dice) in shown {
                let hits = count_for(*bid, *putana, dice.iter().copied());
                let mut spans = vec![Span::raw(format!("  {:<16}", n(*seat)))];
                spans.extend(dice_spans(dice, Some((*bid, *putana)), theme));
                spans.push(Span::styled(format!("  {hits} counted"), theme.dim()));
                lines.push(Line::from(spans));
            }
            let holds = count >= &bid.quantity;
            lines.push(Line::styled(
                format!(
                    "{count} counted for {bid}: the bid {} — {} a die",
                    if holds { "holds" } else { "fails" },
                    says(n(*loser), "loses")
                ),
                theme.accent(),
            ));
            if *out {
                lines.push(Line::styled(says(n(*loser), "is out"), theme.bad()));
            }
            " Dudo! The cups are opened ".to_string()
        }
        ChallengeResult::Mia {
            challenger,
            owner,
            roller,
            dice,
            value,
            claim,
            loser,
            lives,
            out,
        } => {
            lines.push(Line::raw(format!(
                "{} challenged {} claim of {claim}.",
                n(*challenger),
                possessive(&n(*owner))
            )));
            lines.push(Line::from(vec![
                Span::raw(format!("{} cup shows ", possessive(&n(*roller)))),
                Span::styled(
                    format!("{} = {value}", dice_text(dice)),
                    theme.accent().add_modifier(Modifier::BOLD),
                ),
            ]));
            let holds = loser != owner;
            lines.push(Line::styled(
                format!(
                    "the claim {} — {} {lives} {}{}",
                    if holds { "holds" } else { "was a lie" },
                    says(n(*loser), "loses"),
                    if *lives == 1 { "life" } else { "lives" },
                    if *claim == Throw::MIA {
                        " (Mia was claimed)"
                    } else {
                        ""
                    }
                ),
                theme.accent(),
            ));
            if *out {
                lines.push(Line::styled(says(n(*loser), "is out"), theme.bad()));
            }
            " Challenge! The cup is lifted ".to_string()
        }
    };
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        if state.my_turn() {
            "your move next: any key goes back to the table"
        } else {
            "any key: back to the table"
        },
        theme.dim(),
    ));
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(theme.accent());
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}
