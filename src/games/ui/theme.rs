//! Styles shared by the terminal screens: colours when allowed (NO_COLOR honoured by the
//! caller), and otherwise every distinction made with bold, reverse or plain text.

use crate::cards::{CardId, PlayingCard, Suit};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

/// Colours when allowed; otherwise every distinction is made with bold, reverse or plain text.
pub struct Theme {
    pub color: bool,
}

impl Theme {
    pub fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }
    pub fn accent(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    pub fn dim(&self) -> Style {
        if self.color {
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default()
        }
    }
    pub fn good(&self) -> Style {
        self.fg(Color::Green)
    }
    pub fn bad(&self) -> Style {
        self.fg(Color::Red)
    }
    /// A card the way a person reads it, "Q♠" (red suits in red where colour is allowed);
    /// `None` is a card face down.
    pub fn card_face(&self, c: Option<CardId>) -> Span<'static> {
        match c {
            None => Span::styled("??", self.dim()),
            Some(id) => {
                let card = PlayingCard::from_id(id);
                let red = matches!(card.suit, Suit::Hearts | Suit::Diamonds);
                let style = if red {
                    self.fg(Color::Red)
                } else {
                    Style::default()
                };
                Span::styled(
                    format!("{}{}", card.rank_str(), card.suit.symbol()),
                    style.add_modifier(Modifier::BOLD),
                )
            }
        }
    }
}

impl Theme {
    /// `[k] what`, the way every screen offers a key.
    pub fn key_hint(&self, k: &str, what: &str) -> Vec<Span<'static>> {
        vec![
            Span::styled(format!("[{k}]"), self.accent()),
            Span::raw(format!(" {what}  ")),
        ]
    }

    /// The bottom line: an error when there is one (it matters more than the key help, and the
    /// status line above stays readable), else the key help.
    pub fn help_or_error(&self, help: &str, error: Option<&str>) -> ratatui::text::Line<'static> {
        match error {
            Some(e) => ratatui::text::Line::styled(
                format!(" error: {e}"),
                self.bad().add_modifier(Modifier::BOLD),
            ),
            None => ratatui::text::Line::styled(format!(" {help}"), self.dim()),
        }
    }

    /// The screen's name as a badge at the start of the title line.
    pub fn badge(&self, name: &str) -> Span<'static> {
        Span::styled(
            format!(" {name} "),
            self.accent().add_modifier(Modifier::REVERSED),
        )
    }
}

impl Theme {
    /// The status line: what the table waits for (highlighted when it is this seat's move),
    /// the time left for it, and how the table is connected.
    pub fn status_line(
        &self,
        status: String,
        urgent: bool,
        time_left: Option<std::time::Duration>,
        relays: String,
    ) -> ratatui::text::Line<'static> {
        let style = if urgent {
            self.accent()
        } else {
            Style::default()
        };
        let mut spans = vec![Span::styled(format!(" {status}"), style)];
        if let Some(left) = time_left {
            spans.push(Span::styled(format!(" ({}s)", left.as_secs()), style));
        }
        spans.push(Span::styled(format!(" · {relays}"), self.dim()));
        ratatui::text::Line::from(spans)
    }
}

/// Every table screen's rows: title, body, status, key help.
pub fn screen_areas(area: ratatui::layout::Rect) -> [ratatui::layout::Rect; 4] {
    use ratatui::layout::{Constraint, Layout};
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(8),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area)
}

impl Theme {
    /// A bordered panel, its border highlighted when it asks for this seat's move.
    pub fn panel(&self, title: &str, highlighted: bool) -> ratatui::widgets::Block<'static> {
        use ratatui::widgets::{Block, Borders};
        Block::default()
            .borders(Borders::ALL)
            .title(title.to_string())
            .border_style(if highlighted {
                self.accent()
            } else {
                Style::default()
            })
    }

    /// The question asked before leaving a table.
    pub fn leave_question(&self) -> ratatui::text::Line<'static> {
        ratatui::text::Line::styled(
            "Leave the table? Your seat forfeits. y: yes, any key: no",
            self.bad().add_modifier(Modifier::BOLD),
        )
    }
}

/// A table screen's body: the seats (as many rows as there are seats, within limits) over the
/// log and this seat's panel side by side.
pub fn table_areas(area: ratatui::layout::Rect, seats: u16) -> [ratatui::layout::Rect; 3] {
    use ratatui::layout::{Constraint, Layout};
    let [table, lower] = Layout::vertical([
        Constraint::Length((seats + 3).clamp(4, 14)),
        Constraint::Min(6),
    ])
    .areas(area);
    let [log, you] =
        Layout::horizontal([Constraint::Percentage(42), Constraint::Percentage(58)]).areas(lower);
    [table, log, you]
}

impl Theme {
    /// This seat's panel: its lines, then the refusal or hint for the last key, if any.
    pub fn draw_seat_panel(
        &self,
        frame: &mut ratatui::Frame,
        area: ratatui::layout::Rect,
        block: ratatui::widgets::Block<'static>,
        mut lines: Vec<ratatui::text::Line<'static>>,
        notice: Option<&str>,
    ) {
        use ratatui::widgets::{Paragraph, Wrap};
        if let Some(n) = notice {
            lines.push(ratatui::text::Line::styled(n.to_string(), self.bad()));
        }
        frame.render_widget(
            Paragraph::new(lines)
                .block(block)
                .wrap(Wrap { trim: false }),
            area,
        );
    }
}
