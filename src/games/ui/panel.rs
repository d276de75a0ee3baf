//! What a game draws on the terminal table: its panel. The shared frame (`ui::tui`) owns the
//! terminal, the title, the status and help lines, the countdown, leaving and the end screen;
//! a panel owns the middle of the screen and the keys that make a move. A game that brings no
//! panel of its own gets [`generic::GenericPanel`], drawn from its words
//! ([`TableGame::render`], [`TableGame::prompt`], [`TableGame::move_text`]).
//!
//! Panels see only what the seat sees: the view and the legal moves the runtime hands them.
//!
//! [`TableGame::render`]: super::registry::TableGame::render
//! [`TableGame::prompt`]: super::registry::TableGame::prompt
//! [`TableGame::move_text`]: super::registry::TableGame::move_text

pub use super::theme::Theme;
use crate::engine::{Game, Seat};
use crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

/// What a key asks of the frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<A> {
    None,
    Play(A),
}

/// What the frame knows that a panel may show: names, whose turn, time, the story.
pub struct Ctx<'a> {
    pub theme: &'a Theme,
    /// A label per seat; the reader's own seat is "you".
    pub names: &'a [String],
    pub me: Option<Seat>,
    /// The seats the table waits on now.
    pub awaited: &'a [Seat],
    /// What the open step is ("move", "shuffle", ...), from the session.
    pub what: &'a str,
    /// Seconds left before the awaited seats may be voted out, by the chain's clock.
    pub secs_left: Option<u64>,
    /// Everything that happened, in words, oldest first.
    pub story: &'a [String],
    /// Whether this seat is being asked for a move now.
    pub asked: bool,
}

impl Ctx<'_> {
    pub fn name(&self, s: Seat) -> String {
        if Some(s) == self.me {
            return "you".into();
        }
        self.names
            .get(s as usize)
            .cloned()
            .unwrap_or_else(|| format!("seat {s}"))
    }

    /// The seat whose move the table waits for, if it waits for one seat's move.
    pub fn mover(&self) -> Option<Seat> {
        match (self.what, self.awaited) {
            ("move", [s]) => Some(*s),
            _ => None,
        }
    }

    /// The newest lines of the story that fit in `area`, in a bordered box.
    pub fn draw_story(&self, frame: &mut Frame, area: Rect, title: &str) {
        let room = area.height.saturating_sub(2) as usize;
        let width = area.width.saturating_sub(2).max(1) as usize;
        // Wrapped lines take more than one row: keep taking from the end until the box is full.
        let mut rows = 0;
        let mut first = self.story.len();
        while first > 0 {
            let need = self.story[first - 1].chars().count().div_ceil(width).max(1);
            if rows + need > room {
                break;
            }
            rows += need;
            first -= 1;
        }
        let lines: Vec<Line> = if self.story.is_empty() {
            vec![Line::styled("nothing yet", self.theme.dim())]
        } else {
            self.story[first..]
                .iter()
                .map(|l| Line::raw(l.clone()))
                .collect()
        };
        frame.render_widget(
            Paragraph::new(lines)
                .block(
                    Block::default()
                        .borders(Borders::ALL)
                        .title(title.to_string()),
                )
                .wrap(Wrap { trim: false }),
            area,
        );
    }

    /// The layout card games share: the table's `rows` in a box titled `title` on top, `height`
    /// rows high, and below it the story on the left; returns the right half below, for the
    /// seat's own box.
    pub fn table_and_story(
        &self,
        frame: &mut Frame,
        area: Rect,
        rows: Vec<Line<'_>>,
        title: &str,
        height: u16,
    ) -> Rect {
        let [table, lower] =
            Layout::vertical([Constraint::Length(height), Constraint::Min(4)]).areas(area);
        frame.render_widget(
            Paragraph::new(rows)
                .block(self.theme.panel(title, false))
                .wrap(Wrap { trim: false }),
            table,
        );
        let [story, you] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(lower);
        self.draw_story(frame, story, " Story ");
        you
    }
}

/// A game's part of the terminal table for one seat.
pub trait Panel<G: Game>: Send {
    /// The table as this seat sees it now (between turns too).
    fn see(&mut self, view: &G::View);
    /// This seat must choose one of `legal` (a no-limit amount in between is allowed when the
    /// game lists a range by its ends).
    fn ask(&mut self, view: &G::View, legal: &[G::Action]);
    /// The turn closed without this seat's move (it timed out, or the table moved on).
    fn withdraw(&mut self);
    /// A key pressed while the panel is up. `q`, Ctrl-C and leaving belong to the frame
    /// unless [`Panel::typing`] says the panel takes text.
    fn key(&mut self, key: KeyEvent) -> Outcome<G::Action>;
    /// Draws the panel in the screen's body (`area`), story included where it fits.
    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx);
    /// The keys that work now, one line.
    fn help(&self) -> String;
    /// The game's part of the title line ("hand 2 · bet 1 · pot 40").
    fn title(&self) -> String {
        String::new()
    }
    /// True while the panel takes typed text, so that `q` is a letter, not leaving.
    fn typing(&self) -> bool {
        false
    }
    /// True while a sub-screen or editor is open that Esc closes.
    fn editing(&self) -> bool {
        false
    }
}

/// A panel's bordered box for this seat, and a refusal or hint under its lines. A spectator
/// has no seat: its box says it is watching.
pub fn seat_box(
    frame: &mut Frame,
    area: Rect,
    ctx: &Ctx,
    asked: bool,
    mut lines: Vec<Line<'static>>,
    notice: Option<&str>,
) {
    let theme = ctx.theme;
    let title = match (ctx.me, asked) {
        (None, _) => " Watching ",
        (Some(_), true) => " Your move ",
        (Some(_), false) => " You ",
    };
    if ctx.me.is_none() && lines.is_empty() {
        lines.push(Line::styled(
            "You are watching: what a player holds stays hidden until it is shown.".to_string(),
            theme.dim(),
        ));
    }
    if let Some(n) = notice {
        lines.push(Line::styled(n.to_string(), theme.bad()));
    }
    frame.render_widget(
        Paragraph::new(lines)
            .block(theme.panel(title, asked))
            .wrap(Wrap { trim: false }),
        area,
    );
}

/// The screen `panel` draws at 80×24 in `ctx`, row by row, for panel tests.
#[cfg(test)]
pub fn screen_80x24<G: Game>(panel: &dyn Panel<G>, ctx: &Ctx) -> String {
    use ratatui::{backend::TestBackend, Terminal};
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| panel.draw(f, f.area(), ctx)).unwrap();
    term.backend()
        .buffer()
        .content
        .chunks(80)
        .map(|row| row.iter().map(|c| c.symbol()).collect::<String>() + "\n")
        .collect()
}
