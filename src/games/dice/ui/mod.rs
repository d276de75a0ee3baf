//! The panel of the private-dice games (Perudo, Mia): [`state`] (what is shown and how keys
//! change it, pure) and [`render`] (drawing it, pure); here the bridge from each game's view and
//! moves to the shared panel.

pub mod render;
pub mod state;

pub use state::{ChallengeResult, DiceAction, DiceInput, DiceScreen, DiceState, DiceView};

use crate::engine::Game;
use crate::games::ui::{Ctx, Outcome, Panel};
use crate::games::{mia, perudo};
use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::Frame;
use std::time::Duration;

/// How a dice game's views and moves reach the shared dice panel.
pub trait DiceGame: Game {
    fn ui_view(view: &Self::View) -> DiceView;
    fn ui_action(action: &Self::Action) -> DiceAction;
    fn from_ui(action: DiceAction) -> Option<Self::Action>;
}

impl DiceGame for perudo::Perudo {
    fn ui_view(view: &perudo::PerudoView) -> DiceView {
        DiceView::Perudo(view.clone())
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

impl DiceGame for mia::Mia {
    fn ui_view(view: &mia::MiaView) -> DiceView {
        DiceView::Mia(view.clone())
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

/// The dice panel for one seat of `G`.
pub struct DicePanel<G> {
    pub state: DiceState,
    game: std::marker::PhantomData<fn() -> G>,
}

impl<G> Default for DicePanel<G> {
    fn default() -> Self {
        DicePanel {
            state: DiceState::new(None, Vec::new(), true),
            game: std::marker::PhantomData,
        }
    }
}

impl<G: DiceGame + Send> Panel<G> for DicePanel<G> {
    fn see(&mut self, view: &G::View) {
        self.state.show(G::ui_view(view));
    }

    fn ask(&mut self, view: &G::View, legal: &[G::Action]) {
        self.state
            .ask(G::ui_view(view), legal.iter().map(G::ui_action).collect());
    }

    fn withdraw(&mut self) {
        self.state.withdraw();
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<G::Action> {
        match self.state.key(key) {
            Outcome::Play(a) => match G::from_ui(a) {
                Some(a) => Outcome::Play(a),
                None => Outcome::None,
            },
            Outcome::None => Outcome::None,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        // The names, seat, time and colours are the frame's; the rest is the state's own.
        let mut s = self.state.clone();
        s.names = (0..ctx.names.len().max(8) as u8)
            .map(|x| ctx.name(x))
            .collect();
        s.me = ctx.me;
        s.time_left = ctx.secs_left.map(Duration::from_secs);
        s.color = ctx.theme.color;
        render::draw_body(frame, area, &s, ctx);
    }

    fn help(&self) -> String {
        render::help_text(&self.state)
    }

    fn title(&self) -> String {
        render::title_text(&self.state)
    }

    fn editing(&self) -> bool {
        self.state.screen == DiceScreen::Result
            || matches!(self.state.input, DiceInput::Pick { raise: true, .. })
    }
}
