//! The shared terminal frame around a game's panel, as a pure state: what the runtime said
//! (view, story, what the protocol waits for, its deadline, the relays), the turn put to this
//! seat, leaving, and the end screen. No terminal and no clock here: the loop in the parent
//! module passes keys and the time in, and draws with [`Frame::draw`].

use crate::engine::Seat;
use crate::games::registry::TableGame;
use crate::games::ui::{Ctx, Outcome, Panel, Theme};
use crate::table::runner::RelayHealth;
use crate::table::session::{Awaiting, Session, Verdict};
use crate::table::verify::verdict_words;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

/// A seat not heard from for this long (two and a half heartbeats) is shown as disconnected.
const GONE_AFTER_SECS: u64 = 25;

/// What the runtime reports after each batch of events, already read as this seat sees it.
pub struct Update<G: TableGame> {
    pub view: G::View,
    pub story: Vec<String>,
    /// The table's own decisions (timeouts, removals, the end), in words, in order.
    pub verdicts: Vec<String>,
    /// How many times this seat was timed out so far.
    pub my_timeouts: usize,
    pub awaiting: Awaiting,
    /// When the awaited seats may be voted out, in the chain's time (unix seconds).
    pub deadline: u64,
    pub health: RelayHealth,
    /// How the game ended, once it has.
    pub finished: Option<String>,
    /// Seats whose time bank is used up, and the seconds each move of theirs has left.
    pub banks_spent: Vec<Seat>,
    pub move_secs: u64,
}

impl<G: TableGame> Update<G> {
    /// The update a session gives seat `me` whose seats are called `names`.
    pub fn of(s: &Session<G>, health: &RelayHealth, names: &[String], me: Option<Seat>) -> Self {
        let name = |x: Seat| seat_label(names, me, x);
        let my_timeouts = s
            .verdicts()
            .iter()
            .filter(|v| matches!(v, Verdict::TimedOut { seats, .. } if me.is_some_and(|m| seats.contains(&m))))
            .count();
        Update {
            view: s.view(),
            story: s.game().story(me, &name),
            verdicts: s
                .verdicts()
                .iter()
                .filter(|v| !matches!(v, Verdict::Finished { .. }))
                .map(|v| verdict_words(v, &name))
                .collect(),
            my_timeouts,
            awaiting: {
                let mut a = s.awaiting();
                a.what = crate::ui::awaiting_what(&a, s.game());
                a
            },
            deadline: s.deadline(),
            health: health.clone(),
            finished: s.is_finished().then(|| s.game().result_line(&name)),
            banks_spent: s.banks_spent(),
            move_secs: s.move_secs(),
        }
    }
}

fn seat_label(names: &[String], me: Option<Seat>, s: Seat) -> String {
    crate::ui::line::namer(names, me)(s)
}

/// Seconds a notice stays on the help line once the next question comes.
const NOTICE_SECS: u64 = 3;

/// Seconds a notice stays on the help line while no question comes: a seat that timed out and
/// now sits out may not be asked again for many hands, and the line is for the keys (the story
/// keeps what happened).
const NOTICE_IDLE_SECS: u64 = 20;

/// What a key asks of the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key<A> {
    None,
    Play(A),
    /// Leave the table (or, once it is over, the screen).
    Leave,
    /// Stop the program without leaving (Ctrl-C, Ctrl-D): like a crash, the seat is kept and
    /// `tolerance resume` takes it back.
    Stop,
}

pub struct Frame<G: TableGame> {
    pub names: Vec<String>,
    pub me: Option<Seat>,
    pub panel: Box<dyn Panel<G>>,
    pub theme: Theme,
    /// The story and the table's decisions, in the order they came.
    story: Vec<String>,
    story_seen: usize,
    verdicts_seen: usize,
    my_timeouts: usize,
    /// Seats already told to have spent their time bank.
    banks_told: Vec<Seat>,
    awaiting: Option<Awaiting>,
    deadline: u64,
    health: Option<RelayHealth>,
    asked: bool,
    sealed: bool,
    confirm_quit: bool,
    /// Something the person must know, in words (a timeout, a move nobody took); set with
    /// [`Frame::say`].
    notice: Option<String>,
    /// When the notice came (unix seconds).
    notice_at: u64,
    /// While asked, the notice keeps the help line until then (unix seconds), then the keys do.
    notice_until: Option<u64>,
    finished: Option<String>,
    /// The runtime is done: the last words to show before leaving.
    closed: Option<String>,
    /// Unix seconds now, set by the loop before each draw.
    pub now: u64,
}

impl<G: TableGame> Frame<G> {
    pub fn new(names: Vec<String>, me: Option<Seat>, color: bool) -> Frame<G> {
        Frame {
            names,
            me,
            panel: G::panel(),
            theme: Theme { color },
            story: Vec::new(),
            story_seen: 0,
            verdicts_seen: 0,
            my_timeouts: 0,
            banks_told: Vec::new(),
            awaiting: None,
            deadline: 0,
            health: None,
            asked: false,
            sealed: false,
            confirm_quit: false,
            notice: None,
            notice_at: 0,
            notice_until: None,
            finished: None,
            closed: None,
            now: 0,
        }
    }

    /// Puts `text` on the help line for a while.
    pub fn say(&mut self, text: &str) {
        self.notice = Some(text.to_string());
        self.notice_at = self.now;
        self.notice_until = None;
    }

    /// The notice, while it is still to be shown: a few seconds into the next question, or
    /// [`NOTICE_IDLE_SECS`] while none comes.
    fn live_notice(&self) -> Option<&String> {
        let live = match (self.asked, self.notice_until) {
            (true, Some(t)) => self.now < t,
            _ => self.now < self.notice_at + NOTICE_IDLE_SECS,
        };
        self.notice.as_ref().filter(|_| live)
    }

    fn drop_stale_notice(&mut self) {
        if self.live_notice().is_none() {
            self.notice = None;
            self.notice_until = None;
        }
    }

    pub fn update(&mut self, u: Update<G>) {
        self.drop_stale_notice();
        if u.story.len() < self.story_seen {
            self.story_seen = 0;
        }
        self.story
            .extend(u.story.iter().skip(self.story_seen).cloned());
        self.story_seen = u.story.len();
        self.story.extend(
            u.verdicts
                .iter()
                .skip(self.verdicts_seen)
                .map(|v| format!("! {v}")),
        );
        self.verdicts_seen = u.verdicts.len();
        let me = self.me;
        let names = self.names.clone();
        let name = move |x: Seat| seat_label(&names, me, x);
        let mine = self
            .me
            .is_some_and(|m| u.banks_spent.contains(&m) && !self.banks_told.contains(&m));
        for line in
            crate::ui::banks_newly_spent(&u.banks_spent, &mut self.banks_told, &name, u.move_secs)
        {
            self.story.push(format!("! {line}"));
        }
        if mine && self.notice.is_none() {
            self.notice = Some(crate::ui::bank_spent_text("you".into(), u.move_secs));
        }
        if u.my_timeouts > self.my_timeouts {
            self.say("you timed out: the default move was played");
            if self.asked {
                self.withdraw();
            }
        }
        self.my_timeouts = u.my_timeouts;
        self.panel.see(&u.view);
        self.awaiting = Some(u.awaiting);
        self.deadline = u.deadline;
        self.health = Some(u.health);
        if u.finished.is_some() {
            self.finished = u.finished;
        }
    }

    /// This seat is asked for a move.
    pub fn ask(&mut self, view: &G::View, legal: &[G::Action], sealed: bool) {
        self.drop_stale_notice();
        self.panel.ask(view, legal);
        self.asked = true;
        self.sealed = sealed;
        // A notice ("you timed out") stays a few seconds into the next question, which may come
        // milliseconds after the timeout, too soon to be read; then the keys take the line.
        if self.notice.is_some() {
            self.notice_until = Some(self.now + NOTICE_SECS);
        }
    }

    /// The turn closed without this seat's move.
    pub fn withdraw(&mut self) {
        if self.asked {
            self.panel.withdraw();
            self.asked = false;
        }
    }

    /// The story and the table's decisions as shown, oldest first.
    #[cfg(test)]
    pub fn story_lines(&self) -> &[String] {
        &self.story
    }

    pub fn asked(&self) -> bool {
        self.asked
    }

    /// The runtime stopped, with its last words.
    pub fn close(&mut self, words: String) {
        self.withdraw();
        self.confirm_quit = false;
        self.closed = Some(words);
    }

    pub fn is_closed(&self) -> bool {
        self.closed.is_some()
    }

    pub fn key(&mut self, key: KeyEvent) -> Key<G::Action> {
        if self.closed.is_some() {
            return Key::Leave;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d'))
        {
            return Key::Stop;
        }
        let quit = (key.code == KeyCode::Char('q') && !self.panel.typing())
            || (key.code == KeyCode::Esc && !self.panel.editing());
        // A spectator stops watching at once: it has no seat to give up.
        if self.me.is_none() && quit {
            return Key::Leave;
        }
        if self.confirm_quit {
            self.confirm_quit = false;
            return match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => Key::Leave,
                _ => Key::None,
            };
        }
        if quit {
            self.confirm_quit = true;
            return Key::None;
        }
        match self.panel.key(key) {
            Outcome::Play(a) => {
                self.asked = false;
                self.notice = None;
                self.notice_until = None;
                Key::Play(a)
            }
            Outcome::None => Key::None,
        }
    }

    /// How long `seat`'s client has not been heard from, once that is longer than a few missed
    /// heartbeats; `None` while it seems connected.
    pub fn silent_secs(&self, seat: Seat) -> Option<u64> {
        if Some(seat) == self.me {
            return None;
        }
        let heard = *self.health.as_ref()?.heard.get(seat as usize)?;
        let silent = self.now.saturating_sub(heard);
        (silent >= GONE_AFTER_SECS).then_some(silent)
    }

    /// Seconds left on the open step, by the chain's deadline.
    pub fn secs_left(&self) -> Option<u64> {
        let a = self.awaiting.as_ref()?;
        if a.seats.is_empty() || self.finished.is_some() || self.deadline == 0 {
            return None;
        }
        Some(self.deadline.saturating_sub(self.now))
    }

    fn name(&self, s: Seat) -> String {
        seat_label(&self.names, self.me, s)
    }

    /// What the table waits for, in words.
    pub fn status_text(&self) -> String {
        if let Some(f) = &self.finished {
            return format!("table over: {f}");
        }
        if self.asked {
            return if self.sealed {
                "your move (sealed: nobody sees it until everyone chose)".into()
            } else {
                "your move".into()
            };
        }
        let Some(a) = &self.awaiting else {
            return "connecting to the table…".into();
        };
        let others: Vec<String> = a
            .seats
            .iter()
            .filter(|s| Some(**s) != self.me)
            .map(|s| match self.silent_secs(*s) {
                Some(gone) => format!("{} (disconnected {gone} s ago)", self.name(*s)),
                None => self.name(*s),
            })
            .collect();
        let who = if others.is_empty() {
            "you".to_string()
        } else {
            others.join(", ")
        };
        crate::ui::waiting_words(a.what, &who)
    }

    pub fn relay_text(&self) -> String {
        match &self.health {
            None => "relays: connecting".into(),
            // Relay trouble in words takes the place of the counts: the status line is short.
            Some(h) if !h.notes.is_empty() => h.notes[0].clone(),
            Some(h) => {
                let mut s = format!("relays {}/{}", h.connected, h.total);
                if h.unsent > 0 {
                    s.push_str(&format!(" · {} unsent", h.unsent));
                }
                if h.last_error.is_some() && h.unsent > 0 {
                    s.push_str(" (retrying)");
                }
                s
            }
        }
    }

    pub fn draw(&self, frame: &mut ratatui::Frame) {
        let theme = &self.theme;
        let area = frame.area();
        let [title, body, status, help] = crate::games::ui::theme::screen_areas(area);
        let mut spans = vec![theme.badge(G::TITLE)];
        let t = self.panel.title();
        if !t.is_empty() {
            spans.push(Span::raw(format!(" {t}")));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), title);
        let awaited: Vec<Seat> = self
            .awaiting
            .as_ref()
            .map(|a| a.seats.clone())
            .unwrap_or_default();
        let what = self.awaiting.as_ref().map_or("", |a| a.what);
        let ctx = Ctx {
            theme,
            names: &self.names,
            me: self.me,
            awaited: &awaited,
            what,
            secs_left: self.secs_left(),
            story: &self.story,
            asked: self.asked,
        };
        match &self.closed {
            Some(words) => self.draw_end(frame, body, words, &ctx),
            None => self.panel.draw(frame, body, &ctx),
        }
        frame.render_widget(
            Paragraph::new(theme.status_line(
                self.status_text(),
                self.asked,
                self.secs_left().map(std::time::Duration::from_secs),
                self.relay_text(),
            )),
            status,
        );
        let bottom = if self.confirm_quit {
            theme.leave_question()
        } else if let Some(n) = self.live_notice() {
            Line::styled(format!(" {n}"), theme.bad().add_modifier(Modifier::BOLD))
        } else if self.closed.is_some() {
            Line::styled(" any key: leave", theme.dim())
        } else if self.me.is_none() {
            Line::styled(" watching · q: stop watching", theme.dim())
        } else {
            Line::styled(format!(" {}", self.panel.help()), theme.dim())
        };
        frame.render_widget(Paragraph::new(bottom), help);
    }

    fn draw_end(&self, frame: &mut ratatui::Frame, area: Rect, words: &str, ctx: &Ctx) {
        let [top, story] = ratatui::layout::Layout::vertical([
            ratatui::layout::Constraint::Length(4),
            ratatui::layout::Constraint::Min(3),
        ])
        .areas(area);
        frame.render_widget(
            Paragraph::new(Line::styled(words.to_string(), self.theme.accent()))
                .block(
                    Block::default()
                        .borders(Borders::ALL)
                        .title(" Table over ")
                        .border_style(self.theme.accent()),
                )
                .wrap(Wrap { trim: true }),
            top,
        );
        ctx.draw_story(frame, story, " Story ");
    }
}
