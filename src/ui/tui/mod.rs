//! The terminal table (ratatui over crossterm), the default interface of `tolerance play` on a
//! terminal.
//!
//! - [`state`]: [`UiState`], what is shown, and how events and keys change it (pure);
//! - [`render`]: drawing a [`UiState`] (pure, tested on ratatui's `TestBackend`);
//! - this module: the terminal itself — raw mode and the alternate screen, restored on every
//!   exit path including a panic — and the loop that feeds events and keys to the state.

pub mod dice;
pub mod lobby;
#[cfg(test)]
mod lobby_tests;
pub mod render;
pub mod state;
#[cfg(test)]
mod tests;
pub mod theme;

pub use state::{Input, Outcome, Screen, UiEvent, UiState};

use crate::games::tolerance::Action;
use crossterm::event::{self, Event, KeyEvent, KeyEventKind};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use std::io::Stdout;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Once;
use std::time::{Duration, Instant};

/// Colours unless the NO_COLOR convention (any non-empty value) asks for none.
pub fn colour_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Puts the terminal back as the shell expects it. Safe to call more than once.
pub fn restore_terminal() {
    let _ = terminal::disable_raw_mode();
    let _ = crossterm::execute!(
        std::io::stdout(),
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

/// A panic while the table is drawn would otherwise leave the shell in raw mode on the
/// alternate screen, and the panic message invisible.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            previous(info);
        }));
    });
}

/// The terminal in raw mode on the alternate screen; dropping it restores the terminal.
pub struct TuiTerminal {
    pub(super) terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TuiTerminal {
    pub fn enter() -> Result<TuiTerminal, String> {
        install_panic_hook();
        terminal::enable_raw_mode().map_err(|e| format!("cannot use the terminal: {e}"))?;
        let mut out = std::io::stdout();
        if let Err(e) = crossterm::execute!(out, EnterAlternateScreen, crossterm::cursor::Hide) {
            restore_terminal();
            return Err(format!("cannot use the terminal: {e}"));
        }
        let terminal = Terminal::new(CrosstermBackend::new(out)).map_err(|e| {
            restore_terminal();
            format!("cannot use the terminal: {e}")
        })?;
        Ok(TuiTerminal { terminal })
    }
}

impl TuiTerminal {
    /// The next key pressed within a tenth of a second, if any. Other terminal events are
    /// handled here: a resize clears the screen so the next draw leaves no stale cells.
    pub(super) fn next_key(&mut self) -> Result<Option<KeyEvent>, String> {
        if !event::poll(Duration::from_millis(100)).map_err(|e| e.to_string())? {
            return Ok(None);
        }
        match event::read().map_err(|e| e.to_string())? {
            Event::Key(k) if k.kind == KeyEventKind::Press => Ok(Some(k)),
            Event::Resize(..) => {
                let _ = self.terminal.clear();
                Ok(None)
            }
            _ => Ok(None),
        }
    }
}

impl Drop for TuiTerminal {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// How the interface ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The person chose to leave (mid-table, or after the end screen).
    Quit,
    /// The event source closed while the person was still looking.
    Closed,
}

/// A table screen the event loop can run: events and keys change it, and it draws itself.
pub trait TableScreen {
    type Event;
    type Move;
    fn apply(&mut self, event: Self::Event);
    fn key(&mut self, key: KeyEvent) -> Outcome<Self::Move>;
    fn draw(&self, frame: &mut ratatui::Frame);
    /// The step now awaited, as something that changes when a new step opens, and its
    /// deadline (zero: none).
    fn step(&self) -> Option<(String, Duration)>;
    fn set_time_left(&mut self, left: Option<Duration>);
    /// Whether the screen stays up once its event source has closed (an end screen).
    fn ended(&self) -> bool;
    /// Says, in words, that a chosen move could not be handed on.
    fn not_listening(&mut self);
}

/// Runs a table screen until the person leaves: draws it, applies `events`, and hands each
/// chosen move to `send` (false: nobody takes moves any more). Blocking; run it on its own
/// thread.
pub fn run_screen<S: TableScreen>(
    mut state: S,
    events: Receiver<S::Event>,
    mut send: impl FnMut(S::Move) -> bool,
) -> Result<Ended, String> {
    let mut tui = TuiTerminal::enter()?;
    // When the awaited step opened (locally), for the countdown.
    let mut step_opened = Instant::now();
    let mut closed = false;
    loop {
        loop {
            match events.try_recv() {
                Ok(e) => {
                    let before = state.step().map(|s| s.0);
                    state.apply(e);
                    if state.step().map(|s| s.0) != before {
                        step_opened = Instant::now();
                    }
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    closed = true;
                    break;
                }
            }
        }
        let left = state
            .step()
            .filter(|(_, d)| !d.is_zero())
            .map(|(_, d)| d.saturating_sub(step_opened.elapsed()));
        state.set_time_left(left);
        tui.terminal
            .draw(|f| state.draw(f))
            .map_err(|e| format!("cannot draw: {e}"))?;
        match tui.next_key()? {
            Some(k) => match state.key(k) {
                Outcome::Play(a) => {
                    if !send(a) {
                        state.not_listening();
                    }
                }
                Outcome::Quit => return Ok(Ended::Quit),
                Outcome::None => {}
            },
            None if closed && !state.ended() => return Ok(Ended::Closed),
            None => {}
        }
    }
}

impl TableScreen for UiState {
    type Event = UiEvent;
    type Move = Action;
    fn apply(&mut self, event: UiEvent) {
        UiState::apply(self, event)
    }
    fn key(&mut self, key: KeyEvent) -> Outcome {
        UiState::key(self, key)
    }
    fn draw(&self, frame: &mut ratatui::Frame) {
        render::draw(frame, self)
    }
    fn step(&self) -> Option<(String, Duration)> {
        self.progress
            .as_ref()
            .map(|p| (format!("{} {:?}", p.hand, p.awaiting), p.deadline))
    }
    fn set_time_left(&mut self, left: Option<Duration>) {
        self.time_left = left;
    }
    fn ended(&self) -> bool {
        self.screen == Screen::Over || self.finished.is_some()
    }
    fn not_listening(&mut self) {
        self.error = Some("the table is no longer listening".into());
    }
}

/// Runs the Tolerance table until the person leaves: draws `state`, applies `events`, turns
/// keys into moves sent on `moves`. Blocking; run it on its own thread.
pub fn run(
    state: UiState,
    events: Receiver<UiEvent>,
    moves: tokio::sync::mpsc::UnboundedSender<Action>,
) -> Result<Ended, String> {
    run_screen(state, events, |a| moves.send(a).is_ok())
}

/// A short label for a public key: the npub's start and end.
pub fn short_npub(npub: &str) -> String {
    if npub.len() <= 16 {
        return npub.to_string();
    }
    format!("{}…{}", &npub[..9], &npub[npub.len() - 4..])
}
