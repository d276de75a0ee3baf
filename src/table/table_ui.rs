//! A person's seat drawn by the terminal table, shared by `tolerance play` (you and bots) and
//! `host`/`join`/`resume` (your seat among strangers): the interface runs on its own thread, the
//! game here, and whichever ends first decides how the table ends for this person.

use super::play::print_hand_named;
use super::runner::{Decider, OnProgress, OnView};
use super::HandSummary;
use crate::engine::Seat;
use crate::games::tolerance::{Action, HandView};
use crate::ui::tui::{self, Ended, UiEvent, UiState};
use std::future::Future;
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

/// How a table drawn by [`TableUi`] ended for the person.
pub enum TableEnd<T> {
    /// The game ran to its end (or failed) and the person saw the end screen.
    Played(Result<T, String>),
    /// The person left while the game was still running.
    Left,
}

/// Each finished hand: drawn, kept for the record printed after the table, and saved to the
/// history (a failure to save is shown on the table, since the screen hides stderr).
#[derive(Clone)]
pub struct HandRecorder {
    events: Arc<Mutex<Sender<UiEvent>>>,
    kept: Arc<Mutex<Vec<HandSummary>>>,
    seat: Seat,
    home: PathBuf,
}

impl HandRecorder {
    pub fn record(&self, table: &str, h: &HandSummary) {
        let tx = self.events.lock().expect("not poisoned");
        let _ = tx.send(UiEvent::HandDone(h.clone()));
        let record = crate::history::Record {
            table: table.to_string(),
            seat: Some(self.seat),
            saved_at: crate::history::now(),
            hand: h.clone(),
        };
        if let Err(e) = crate::history::append(&self.home, &record) {
            let _ = tx.send(UiEvent::Error(format!(
                "hand not saved to the history: {e}"
            )));
        }
        self.kept.lock().expect("not poisoned").push(h.clone());
    }
}

/// The running terminal table for one seat.
pub struct TableUi {
    events: Sender<UiEvent>,
    thread: std::thread::JoinHandle<Result<Ended, String>>,
    forward: tokio::task::JoinHandle<()>,
    hands: Arc<Mutex<Vec<HandSummary>>>,
    names: Vec<String>,
}

/// One sender per callback: the runner's callbacks must be `Send`, which a bare
/// `std::sync::mpsc::Sender` inside an `FnMut` box is only through a lock.
fn locked(tx: &Sender<UiEvent>) -> Mutex<Sender<UiEvent>> {
    Mutex::new(tx.clone())
}

impl TableUi {
    /// Takes over the terminal for seat `me` and returns the decider that asks the person.
    pub fn start(me: Seat, names: Vec<String>) -> (TableUi, Decider) {
        let (events, rx) = std::sync::mpsc::channel::<UiEvent>();
        let (ask_tx, mut ask_rx) =
            tokio::sync::mpsc::unbounded_channel::<(HandView, Vec<Action>)>();
        let (ans_tx, ans_rx) = tokio::sync::mpsc::unbounded_channel();
        let state = UiState::new(Some(me), names.clone(), tui::colour_wanted());
        let thread = std::thread::spawn(move || tui::run(state, rx, ans_tx));
        let asks = events.clone();
        let forward = tokio::spawn(async move {
            while let Some((view, legal)) = ask_rx.recv().await {
                if asks.send(UiEvent::Ask(view, legal)).is_err() {
                    return;
                }
            }
        });
        let ui = TableUi {
            events,
            thread,
            forward,
            hands: Arc::new(Mutex::new(Vec::new())),
            names,
        };
        let decider = Decider::Human {
            ask: ask_tx,
            answer: ans_rx,
        };
        (ui, decider)
    }

    /// A callback that shows what it is given on the table, wrapped by `event`.
    fn shows<T: Clone + 'static>(&self, event: fn(T) -> UiEvent) -> Box<dyn FnMut(&T) + Send> {
        let tx = locked(&self.events);
        Box::new(move |x: &T| {
            let _ = tx.lock().expect("not poisoned").send(event(x.clone()));
        })
    }

    pub fn on_view(&self) -> OnView {
        self.shows(UiEvent::View)
    }

    pub fn on_progress(&self) -> OnProgress {
        self.shows(UiEvent::Progress)
    }

    /// What to do with each finished hand of seat `seat`, saving history under `home`.
    pub fn recorder(&self, seat: Seat, home: PathBuf) -> HandRecorder {
        HandRecorder {
            events: Arc::new(locked(&self.events)),
            kept: self.hands.clone(),
            seat,
            home,
        }
    }

    /// Runs `game` with the table on screen. When the game ends, `over` words its end for the
    /// end screen, which stays until the person presses a key. Either way the terminal is given
    /// back, and the hands played are printed as a plain record for the scrollback.
    pub async fn run_until<T>(
        self,
        game: impl Future<Output = Result<T, String>>,
        over: impl FnOnce(&Result<T, String>) -> String,
    ) -> Result<TableEnd<T>, String> {
        let TableUi {
            events,
            thread,
            forward,
            hands,
            names,
        } = self;
        let (end, ui) = race_screen(thread, game, move |run| {
            let line = over(run);
            if let Err(e) = run {
                let _ = events.send(UiEvent::Error(e.clone()));
            }
            let _ = events.send(UiEvent::Finished(line.clone()));
            line
        })
        .await;
        forward.abort();
        let name = |s: u8| {
            names
                .get(s as usize)
                .cloned()
                .unwrap_or_else(|| format!("seat {s}"))
        };
        for h in hands.lock().expect("not poisoned").iter() {
            print_hand_named(h, &name);
        }
        match end {
            Some((run, line)) => {
                println!("{line}");
                ui?;
                Ok(TableEnd::Played(run))
            }
            None => {
                if let Err(e) = ui {
                    eprintln!("{e}");
                }
                Ok(TableEnd::Left)
            }
        }
    }
}

/// Races a game against the screen showing it. When the game ends first, `over` words its end
/// (and may tell the screen), and the screen stays until the person leaves it; when the person
/// leaves first, the game is not awaited. Either way the terminal is given back before this
/// returns, and "you left the table" printed in the second case.
pub async fn race_screen<T>(
    thread: std::thread::JoinHandle<Result<Ended, String>>,
    game: impl Future<Output = Result<T, String>>,
    over: impl FnOnce(&Result<T, String>) -> String,
) -> (Option<(Result<T, String>, String)>, Result<Ended, String>) {
    let ui_done = tokio::task::spawn_blocking(move || thread.join());
    tokio::pin!(ui_done);
    let (end, ui) = tokio::select! {
        run = game => {
            // `over` drops what it captured, the screen's event sender included.
            let line = over(&run);
            (Some((run, line)), ui_done.await)
        }
        ui = &mut ui_done => (None, ui),
    };
    tui::restore_terminal();
    if end.is_none() {
        println!("you left the table");
    }
    let ui = match ui {
        Ok(Ok(r)) => r,
        // The thread panicked (the hook restored the terminal) or could not be joined.
        _ => Err("the interface stopped unexpectedly".to_string()),
    };
    (end, ui)
}
