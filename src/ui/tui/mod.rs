//! The terminal table (ratatui over crossterm), the default interface on a terminal for every
//! game: the shared [`frame`] around the game's own panel (`games::panel`), fed by the table
//! runner's updates and turns; and the [`lobby`] screen of `tables`, where a table is chosen
//! to join or host before that.
//!
//! The terminal is put back as the shell expects it on every way out: leaving, the end of the
//! table, an error, Ctrl-C (a key in raw mode, a signal otherwise) and a panic.

pub mod frame;
pub mod lobby;
#[cfg(test)]
mod lobby_tests;
#[cfg(test)]
mod tests;

use crate::engine::Seat;
use crate::games::registry::TableGame;
use crate::table::runner::{Ask, OnUpdate, PersonDecider, RelayHealth};
use crate::table::session::Session;
use crossterm::event::{self, Event, KeyEvent, KeyEventKind};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use frame::{Frame, Key, Update};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use std::future::Future;
use std::io::{IsTerminal, Stdout};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::Once;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::{mpsc, oneshot};

/// Whether the terminal table can be drawn here: both ends are a terminal.
pub fn available() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

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
    terminal: Terminal<CrosstermBackend<Stdout>>,
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
        let mut terminal = Terminal::new(CrosstermBackend::new(out)).map_err(|e| {
            restore_terminal();
            format!("cannot use the terminal: {e}")
        })?;
        // Some terminals keep what an earlier program left on the alternate screen, and the
        // first frame writes only the cells that are not blank: start from a cleared screen.
        let _ = terminal.clear();
        Ok(TuiTerminal { terminal })
    }

    /// The next key pressed within `wait`, if any. A resize clears the screen so the next draw
    /// leaves no stale cells.
    fn next_key(&mut self, wait: Duration) -> Result<Option<KeyEvent>, String> {
        if !event::poll(wait).map_err(|e| e.to_string())? {
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

/// What the runtime tells the screen.
enum Msg<G: TableGame> {
    Update(Box<Update<G>>),
    /// The runtime is done, with its last words; the screen stays until a key.
    Closed(String),
    /// Stop now without leaving (Ctrl-C as a signal).
    Stop,
}

/// How the person quit a table still running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quit {
    /// q then y: the runner signs the leave.
    Leave,
    /// Ctrl-C: the program stops as if it crashed; the seat is kept.
    Stop,
}

/// How a table played on the terminal ended for the person.
#[derive(Debug)]
pub enum Played<T, E> {
    /// The table ended (or stopped) and the person closed the screen: the run's result.
    Done(T),
    /// The person left the table (q, y): what the runner said about it, in one line, and the
    /// runner's error when it ended that way (it carries the story so far).
    Left(String, Option<E>),
    /// The person stopped the program (Ctrl-C): no leave was signed.
    Stopped,
}

/// How the screen ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The person left while the table was still running.
    Left,
    /// The person stopped the program (Ctrl-C) while the table was still running: no leave
    /// is signed, the seat is kept.
    Stopped,
    /// The table was over (or stopped) and the person closed the screen.
    Done,
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The screen's loop: draws the frame, feeds it the runtime's updates and turns, and hands
/// each chosen move back. Blocking; runs on its own thread.
fn screen<G: TableGame>(
    mut tui: TuiTerminal,
    mut frame: Frame<G>,
    msgs: Receiver<Msg<G>>,
    mut asks: mpsc::UnboundedReceiver<Ask<G>>,
    left: oneshot::Sender<Quit>,
) -> Result<Ended, String> {
    let mut ask: Option<Ask<G>> = None;
    let leave = |ask: Option<Ask<G>>, left: oneshot::Sender<Quit>| {
        if let Some(a) = ask {
            let _ = a.answer.send(None);
        }
        let _ = left.send(Quit::Leave);
        Ok(Ended::Left)
    };
    loop {
        loop {
            match msgs.try_recv() {
                Ok(Msg::Update(u)) => frame.update(*u),
                Ok(Msg::Closed(words)) => {
                    ask = None;
                    frame.close(words);
                }
                Ok(Msg::Stop) => return Ok(Ended::Stopped),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    if !frame.is_closed() {
                        frame.close("the table stopped".into());
                    }
                    break;
                }
            }
        }
        while let Ok(a) = asks.try_recv() {
            frame.ask(&a.turn.view, &a.turn.legal, a.turn.sealed);
            ask = Some(a);
        }
        // The runner drops a turn it no longer wants (a timeout, a newer step).
        if ask.as_ref().is_some_and(|a| a.answer.is_closed()) {
            ask = None;
            frame.withdraw();
        }
        frame.now = now_unix();
        tui.terminal
            .draw(|f| frame.draw(f))
            .map_err(|e| format!("cannot draw: {e}"))?;
        let Some(k) = tui.next_key(Duration::from_millis(200))? else {
            continue;
        };
        // Ctrl-L redraws the whole screen, as in a shell.
        if k.modifiers
            .contains(crossterm::event::KeyModifiers::CONTROL)
            && k.code == crossterm::event::KeyCode::Char('l')
        {
            let _ = tui.terminal.clear();
            continue;
        }
        match frame.key(k) {
            Key::Play(a) => match ask.take() {
                Some(x) => {
                    let _ = x.answer.send(Some(a));
                }
                None => frame.say("that turn is over: the table moved on"),
            },
            Key::Leave if frame.is_closed() => return Ok(Ended::Done),
            Key::Leave => return leave(ask, left),
            Key::Stop => {
                let _ = left.send(Quit::Stop);
                return Ok(Ended::Stopped);
            }
            Key::None => {}
        }
    }
}

/// Tells the screen how the run ended, when it did (`ran`), and waits until the person closes
/// it; the terminal is given back either way.
async fn close_screen<G: TableGame, T, E: std::fmt::Display>(
    msg_tx: Sender<Msg<G>>,
    thread: std::thread::JoinHandle<Result<Ended, String>>,
    ran: Option<&Result<T, E>>,
    summary: impl FnOnce(&T) -> String,
) -> Result<Ended, String> {
    if let Some(r) = ran {
        let words = match r {
            Ok(t) => summary(t),
            Err(e) => format!("the table stopped: {e}"),
        };
        let _ = msg_tx.send(Msg::Closed(words));
    }
    drop(msg_tx);
    let ended = tokio::task::spawn_blocking(move || thread.join())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|_| "the terminal table failed".to_string())?;
    restore_terminal();
    ended
}

/// The terminal table for a spectator (`tolerance watch`), while `run` follows the table with
/// the update callback it is given: the same frame and panel as a seat's, with no hand of its
/// own and no turn. `q` (or Esc, Ctrl-C) stops watching at once, since a spectator has nothing
/// to lose; `summary` says how the run ended for the end screen. Returns the run's result, or
/// `None` when the person stopped watching first.
pub async fn watch<G, T, E, F>(
    names: Vec<String>,
    run: impl FnOnce(OnUpdate<G>) -> F,
    summary: impl FnOnce(&T) -> String,
) -> Result<Option<T>, String>
where
    G: TableGame,
    E: std::fmt::Display,
    F: Future<Output = Result<T, E>>,
{
    let tui = TuiTerminal::enter()?;
    let (msg_tx, msg_rx) = std::sync::mpsc::channel::<Msg<G>>();
    // Nobody asks a spectator for a move; the sender lives as long as the run.
    let (ask_tx, ask_rx) = mpsc::unbounded_channel::<Ask<G>>();
    let (left_tx, left_rx) = oneshot::channel();
    let frame = Frame::<G>::new(names.clone(), None, colour_wanted());
    let thread = std::thread::spawn(move || screen(tui, frame, msg_rx, ask_rx, left_tx));
    let fut = run(updates(msg_tx.clone(), names, None));
    tokio::pin!(fut);
    let outcome = tokio::select! {
        r = &mut fut => Some(r),
        _ = left_rx => None,
        _ = tokio::signal::ctrl_c() => {
            let _ = msg_tx.send(Msg::Stop);
            None
        }
    };
    close_screen(msg_tx, thread, outcome.as_ref(), summary).await?;
    drop(ask_tx);
    match outcome {
        Some(r) => r.map(Some).map_err(|e| e.to_string()),
        None => Ok(None),
    }
}

/// The terminal table for seat `me`, while `run` plays the table with the decider and the
/// update callback it is given. `summary` says how the run ended in one line for the end
/// screen. Returns the run's result, or how the person quit first.
pub async fn play<G, T, E, F>(
    names: Vec<String>,
    me: Seat,
    run: impl FnOnce(PersonDecider<G>, OnUpdate<G>) -> F,
    summary: impl FnOnce(&T) -> String,
) -> Result<Played<T, E>, String>
where
    G: TableGame,
    E: std::fmt::Display,
    F: Future<Output = Result<T, E>>,
{
    let tui = TuiTerminal::enter()?;
    let (msg_tx, msg_rx) = std::sync::mpsc::channel::<Msg<G>>();
    let (ask_tx, ask_rx) = mpsc::unbounded_channel::<Ask<G>>();
    let (left_tx, left_rx) = oneshot::channel();
    let frame = Frame::<G>::new(names.clone(), Some(me), colour_wanted());
    let thread = std::thread::spawn(move || screen(tui, frame, msg_rx, ask_rx, left_tx));
    let on_update = updates(msg_tx.clone(), names, Some(me));
    let (quit_tx, quit_rx) = oneshot::channel();
    let fut = run(
        PersonDecider {
            asks: ask_tx,
            quit: Some(quit_rx),
        },
        on_update,
    );
    tokio::pin!(fut);
    let outcome = tokio::select! {
        r = &mut fut => Ok(r),
        q = left_rx => Err(q.unwrap_or(Quit::Stop)),
        _ = tokio::signal::ctrl_c() => {
            let _ = msg_tx.send(Msg::Stop);
            Err(Quit::Stop)
        }
    };
    let ended = close_screen(msg_tx, thread, outcome.as_ref().ok(), summary).await?;
    match outcome {
        Ok(Ok(t)) => Ok(Played::Done(t)),
        // Leaving answers the pending move with "none", so the runner may sign the leave and
        // end before the screen's word is read: still a leave, with the runner's story.
        Ok(Err(e)) if ended == Ended::Left => Ok(Played::Left(e.to_string(), Some(e))),
        Ok(Err(e)) => Err(e.to_string()),
        // Like a crash: the runner is dropped with nothing signed; what it signed is in the
        // journal, so `resume` goes on from there.
        Err(Quit::Stop) => Ok(Played::Stopped),
        Err(Quit::Leave) => {
            // The runner signs the leave and offers it to the relays, so the others go on at
            // once instead of waiting out this seat's deadlines; its words say what follows.
            println!("leaving the table: telling the others…");
            let _ = quit_tx.send(());
            Ok(
                match tokio::time::timeout(Duration::from_secs(15), &mut fut).await {
                    Ok(Err(e)) => Played::Left(e.to_string(), Some(e)),
                    Ok(Ok(_)) => Played::Left("you left the table".into(), None),
                    Err(_) => Played::Left(
                        "you left the table, but no relay answered in time: the others go on \
                         once your time runs out"
                            .into(),
                        None,
                    ),
                },
            )
        }
    }
}

/// The runner's update callback, sending this seat's reading of each batch to the screen.
fn updates<G: TableGame>(tx: Sender<Msg<G>>, names: Vec<String>, me: Option<Seat>) -> OnUpdate<G> {
    Box::new(move |s: &Session<G>, h: &RelayHealth| {
        let _ = tx.send(Msg::Update(Box::new(Update::of(s, h, &names, me))));
    })
}
