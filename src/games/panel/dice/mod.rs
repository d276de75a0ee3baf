//! The terminal table for the private-dice games (Perudo, Mia): [`state`] (what is shown and
//! how keys change it, pure), [`render`] (drawing it, pure), and here the glue — the game types'
//! bridge to the screen, a person's seat as a [`Bot`] that asks the screen, and the local game.
//! The screen runs in the same event loop and terminal guard as the Tolerance table.

pub mod render;
pub mod state;
#[cfg(test)]
mod tests;

pub use state::{
    ChallengeResult, DiceAction, DiceInput, DiceScreen, DiceState, DiceStep, DiceUiEvent, DiceView,
    Waiting,
};

use super::{Ended, Outcome, TableScreen};
use crate::bots::Bot;
use crate::engine::sim::{fulfil_all, Oracle};
use crate::engine::{Seat, ToAct};
use crate::games::{mia, perudo};
use crate::ui::dice::TextGame;
use crossterm::event::KeyEvent;
use std::sync::mpsc::{Receiver, Sender};
use std::time::Duration;

/// How a dice game's views and moves reach the terminal table.
pub trait DiceUi: TextGame<Action: PartialEq> {
    fn ui_view(view: Self::View) -> DiceView;
    fn ui_action(action: &Self::Action) -> DiceAction;
    fn from_ui(action: DiceAction) -> Option<Self::Action>;
}

impl DiceUi for perudo::Perudo {
    fn ui_view(view: perudo::PerudoView) -> DiceView {
        DiceView::Perudo(view)
    }
    fn ui_action(action: &perudo::Action) -> DiceAction {
        DiceAction::Perudo(*action)
    }
    fn from_ui(action: DiceAction) -> Option<perudo::Action> {
        match action {
            DiceAction::Perudo(a) => Some(a),
            DiceAction::Mia(_) => None,
        }
    }
}

impl DiceUi for mia::Mia {
    fn ui_view(view: mia::MiaView) -> DiceView {
        DiceView::Mia(view)
    }
    fn ui_action(action: &mia::Action) -> DiceAction {
        DiceAction::Mia(*action)
    }
    fn from_ui(action: DiceAction) -> Option<mia::Action> {
        match action {
            DiceAction::Mia(a) => Some(a),
            DiceAction::Perudo(_) => None,
        }
    }
}

impl TableScreen for DiceState {
    type Event = DiceUiEvent;
    type Move = DiceAction;
    fn apply(&mut self, event: DiceUiEvent) {
        DiceState::apply(self, event)
    }
    fn key(&mut self, key: KeyEvent) -> Outcome<DiceAction> {
        DiceState::key(self, key)
    }
    fn draw(&self, frame: &mut ratatui::Frame) {
        render::draw(frame, self)
    }
    fn step(&self) -> Option<(String, Duration)> {
        self.waiting
            .as_ref()
            .map(|w| (self.steps().to_string(), w.deadline))
    }
    fn set_time_left(&mut self, left: Option<Duration>) {
        self.time_left = left;
    }
    fn ended(&self) -> bool {
        self.screen == DiceScreen::Over || self.finished.is_some()
    }
    fn not_listening(&mut self) {
        self.error = Some("the table is no longer listening".into());
    }
}

/// Runs the dice table until the person leaves. Blocking; run it on its own thread.
pub fn run(
    state: DiceState,
    events: Receiver<DiceUiEvent>,
    moves: Sender<DiceAction>,
) -> Result<Ended, String> {
    super::run_screen(state, events, |a| moves.send(a).is_ok())
}

/// The terminal table on its own thread, and the channels to it.
pub struct DiceScreenThread {
    pub events: Sender<DiceUiEvent>,
    pub answers: Receiver<DiceAction>,
    pub thread: std::thread::JoinHandle<Result<Ended, String>>,
}

/// Takes over the terminal for seat `me` (a spectator: `None`).
pub fn start(me: Option<Seat>, names: Vec<String>, relays: String) -> DiceScreenThread {
    let (events, rx) = std::sync::mpsc::channel();
    let (moves, answers) = std::sync::mpsc::channel();
    let state = DiceState::new(me, names, relays, super::colour_wanted());
    let thread = std::thread::spawn(move || run(state, rx, moves));
    DiceScreenThread {
        events,
        answers,
        thread,
    }
}

/// A person's seat played through the terminal table: asked for a move, it shows the choice on
/// the screen and waits for the answer.
pub struct TuiPlayer<G> {
    events: Sender<DiceUiEvent>,
    answers: Receiver<DiceAction>,
    _game: std::marker::PhantomData<fn() -> G>,
}

impl<G: DiceUi> TuiPlayer<G> {
    pub fn new(events: Sender<DiceUiEvent>, answers: Receiver<DiceAction>) -> Self {
        TuiPlayer {
            events,
            answers,
            _game: std::marker::PhantomData,
        }
    }

    /// The person's move, or `None` once the screen has closed (the person left).
    pub fn ask(&mut self, view: &G::View, legal: &[G::Action]) -> Option<G::Action> {
        let offered = legal.iter().map(G::ui_action).collect();
        self.events
            .send(DiceUiEvent::Ask(G::ui_view(view.clone()), offered))
            .ok()?;
        loop {
            let a = G::from_ui(self.answers.recv().ok()?);
            if let Some(a) = a.filter(|a| legal.contains(a)) {
                return Some(a);
            }
        }
    }
}

impl<G: DiceUi> Bot<G> for TuiPlayer<G> {
    fn choose(&mut self, view: &G::View, legal: &[G::Action]) -> G::Action {
        // The session asks from inside its task; let the runtime move other work off this
        // thread while a person thinks.
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        let answer = if multi_thread {
            tokio::task::block_in_place(|| self.ask(view, legal))
        } else {
            self.ask(view, legal)
        };
        match answer {
            Some(a) => a,
            // The person left: whoever ran the screen ends the process. Publishing a move
            // the person did not choose is never right, so this seat just stops here.
            None => loop {
                std::thread::park();
            },
        }
    }

    fn name(&self) -> &str {
        "person"
    }
}

/// One local game in the terminal table: seat 0 is the person, the rest are `bots`. Returns
/// the end line printed after the screen, or `None` if the person left.
pub fn play_local<G: DiceUi>(
    mut game: G,
    mut bots: Vec<Box<dyn Bot<G>>>,
    oracle: &mut Oracle<impl rand::Rng>,
    names: Vec<String>,
) -> Result<Option<String>, String> {
    let screen = start(
        Some(0),
        names.clone(),
        "local game: no relays, rolled by this machine".into(),
    );
    let events = screen.events.clone();
    let mut me = TuiPlayer::<G>::new(screen.events, screen.answers);
    let name = |s: Seat| crate::ui::seat_name(&names, s);
    let show = |g: &G| {
        let _ = events.send(DiceUiEvent::View(G::ui_view(g.view(Some(0)))));
    };
    let mut left = false;
    loop {
        if screen.thread.is_finished() {
            left = true;
            break;
        }
        show(&game);
        match game.to_act() {
            ToAct::Terminal => break,
            ToAct::Chance(reqs) => {
                let outs = fulfil_all(oracle, &reqs)?;
                game.apply_chance(&outs).map_err(|e| e.to_string())?;
            }
            ToAct::Seat(s) => {
                let _ = events.send(DiceUiEvent::Waiting(Waiting {
                    step: DiceStep::Move,
                    seats: vec![s],
                    deadline: Duration::ZERO,
                }));
                let legal = game.legal_actions(s);
                let action = if s == 0 {
                    match me.ask(&game.view(Some(0)), &legal) {
                        Some(a) => a,
                        None => {
                            left = true;
                            break;
                        }
                    }
                } else {
                    // A pause a person can follow.
                    std::thread::sleep(Duration::from_millis(500));
                    bots[s as usize].choose(&game.view(Some(s)), &legal)
                };
                game.apply(s, &action).map_err(|e| e.to_string())?;
            }
            ToAct::Sealed(_) => return Err("dice games have no simultaneous moves".into()),
        }
    }
    let line = match game.outcome().and_then(|o| o.winners.first().copied()) {
        Some(w) if !left => Some(format!("{} won the game (local game)", name(w))),
        _ => None,
    };
    if let Some(l) = &line {
        let _ = events.send(DiceUiEvent::Finished(l.clone()));
    }
    drop(events);
    drop(me);
    let ended = screen.thread.join();
    super::restore_terminal();
    // The game's story stays in the scrollback once the screen is gone.
    let view = game.view(Some(0));
    for e in G::log(&view) {
        println!("  · {}", G::line(e, &name));
    }
    match ended {
        Ok(Ok(_)) => Ok(line),
        Ok(Err(e)) => Err(e),
        Err(_) => Err("the interface stopped unexpectedly".into()),
    }
}
