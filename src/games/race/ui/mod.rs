//! A race as people read it, whatever the solitaire: the story move by move, the table's frame,
//! each entrant's state in a word, the result line with its places, refusals and practice note,
//! and the scripts ([`script`]). Each game says its own part through [`RaceUi`]; [`Race`]'s
//! [`GameUi`] is written once here.

pub mod script;

use super::{place, Entrant, EntrantView, Phase, Race, RaceView, Solitaire, Status, Verdict};
use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Spot as Place};
use crate::games::ui::words::whose;
use crate::games::ui::GameUi;
use serde::Serialize;
use std::fmt::{Debug, Write};

/// A raced solitaire's own words; the rest of its [`GameUi`] is the race's.
pub trait RaceUi: Solitaire {
    /// What the race's deck is called ("the dungeon").
    const DECK_NAME: &'static str = "the deck";
    /// The left margin of the table's lines.
    const MARGIN: &'static str = " ";
    /// Whether a script may fix the order of its reshuffles.
    const RESHUFFLES: bool = true;
    /// Lines the terminal keeps under the table for the moves, for a game whose table fills the
    /// box; `None` for the generic panel's layout.
    const ROOM_BELOW: Option<u16> = None;

    /// An entrant's state at the end of a script (`tolerance replay`).
    type Out: Serialize + Debug + Clone;

    /// The story's first line.
    fn opening(setup: &Self::Setup) -> String;
    /// Entrant `seat`'s move `a`, made at `before`, as `viewer` reads it in the story (`who` the
    /// entrant's name); nothing where every such move would flood it.
    fn told(
        race: &Race<Self>,
        seat: Seat,
        before: &Self::Places,
        a: &Self::Action,
        viewer: Option<Seat>,
        who: String,
    ) -> Option<String>;
    /// What else a move did that the story tells on a line of its own (the entrant is `who`).
    fn aftermath(before: &Self::Places, after: &Self::Places, who: String) -> Vec<String> {
        let _ = (before, after, who);
        Vec::new()
    }
    /// The top of the table: the viewer's own game, or a line on the race.
    fn render_top(view: &RaceView<Self>, names: &dyn Fn(Seat) -> String) -> String;
    /// Entrant `e` drawn (the page): `seat` is its spot with the race's part (name, state,
    /// whether it races on); the game lays before it what it holds (its room, its hand) and adds
    /// its own notes. Its cards are the view's, so another entrant's are backs until shown.
    fn entrant_drawn(view: &RaceView<Self>, e: &EntrantView<Self>, seat: Place) -> Place;
    /// The places of the viewer's own game beside its seat (the weapon, the columns), drawn.
    fn own_places(view: &RaceView<Self>, board: &Self::Board) -> Vec<Place> {
        let _ = (view, board);
        Vec::new()
    }
    /// An entrant's line in the table's list of entrants; `None` leaves it out.
    fn entrant_line(
        view: &RaceView<Self>,
        e: &EntrantView<Self>,
        names: &dyn Fn(Seat) -> String,
    ) -> Option<String>;
    fn prompt(view: &RaceView<Self>, legal: &[Self::Action]) -> String;
    /// A move as a person types it, without the seat ("face 2w 1 3").
    fn parse_typed(input: &str) -> Result<Self::Action, String>;
    /// A typed move in line mode: the typed move itself unless the game completes it from
    /// the legal ones.
    fn parse_move(
        input: &str,
        view: &RaceView<Self>,
        legal: &[Self::Action],
    ) -> Result<Self::Action, String> {
        let _ = (view, legal);
        Self::parse_typed(input.trim())
    }
    fn move_text(view: &RaceView<Self>, action: &Self::Action) -> String;
    /// A verified result in a few words beside the entrant's name (`status` finished or
    /// stopped).
    fn verified_words(v: &Self::Verified, status: Status<Self::End>) -> String;
    /// A verified entrant's part of the result line (`place` 1 for the first).
    fn standing(e: &Entrant<Self>, v: &Self::Verified, place: usize, name: String) -> String;
    /// A scripted deck's card by its name ("5D").
    fn card_named(setup: &Self::Setup, name: &str) -> Result<CardId, String> {
        Self::deck(setup).parse(name).map_err(|e| e.to_string())
    }
    /// Entrant `e` at the end of a script, as its own client sees it.
    fn out(race: &Race<Self>, e: &Entrant<Self>) -> Self::Out;
}

/// The race's phase in words, for a table's header.
pub fn phase_words<R: RaceUi>(phase: Phase) -> String {
    match phase {
        Phase::Start => format!("shuffling {}", R::DECK_NAME),
        Phase::Racing => "racing".into(),
        Phase::Showing => "showing every card drawn".into(),
        Phase::Over => "over".into(),
    }
}

/// An entrant's state in a few words beside its name: its verified result, REFUSED, or where it
/// stands.
pub fn status_word<R: RaceUi>(e: &EntrantView<R>) -> String {
    match &e.verdict {
        Some(Verdict::Verified(v)) if e.status.finished() || e.status == Status::Stopped => {
            R::verified_words(v, e.status)
        }
        Some(Verdict::Refused { .. }) => "REFUSED".into(),
        _ => e.status.label().to_string(),
    }
}

impl<R: RaceUi> GameUi for Race<R> {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let mut out = vec![R::opening(&self.setup)];
        let rounds = self
            .entrants
            .iter()
            .map(|e| e.moves.len())
            .max()
            .unwrap_or(0);
        let mut places: Vec<R::Places> = self
            .entrants
            .iter()
            .map(|e| R::places(&self.setup, e.seat))
            .collect();
        // Round by round, so that the entrants' games read side by side as they were played.
        for r in 0..rounds {
            for (i, e) in self.entrants.iter().enumerate() {
                let Some(a) = e.moves.get(r) else { continue };
                let before = &places[i];
                out.extend(R::told(self, e.seat, before, a, viewer, names(e.seat)));
                if let Ok(p) = R::after(before, a) {
                    out.extend(R::aftermath(before, &p, names(e.seat)));
                    places[i] = p;
                }
            }
        }
        if self.phase == Phase::Over {
            for e in &self.entrants {
                if let Some(Verdict::Refused { reason }) = self.verdicts.get(&e.seat) {
                    out.push(format!(
                        "{} game is refused: {reason}",
                        whose(names(e.seat))
                    ));
                }
            }
            out.push(self.result_line(names));
        }
        out
    }

    fn render(v: &RaceView<R>, names: &dyn Fn(Seat) -> String) -> String {
        let mut s = R::render_top(v, names);
        for e in &v.entrants {
            if let Some(line) = R::entrant_line(v, e, names) {
                let _ = writeln!(s, "{line}");
            }
        }
        if !v.stopped_by.is_empty() {
            let who: Vec<String> = v.stopped_by.iter().map(|x| names(*x)).collect();
            let _ = writeln!(
                s,
                "{}the race stopped: {} left it",
                R::MARGIN,
                who.join(", ")
            );
        }
        s
    }

    fn drawing(v: &RaceView<R>, names: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let title = format!(
            "{} · {} on one deal · {}",
            R::TITLE,
            v.entrants.len(),
            phase_words::<R>(v.phase)
        );
        let mut d = Drawing::new(title);
        for e in &v.entrants {
            let seat = Place::seat(e.seat, v.viewer, names)
                .note(status_word(e))
                .turn(v.phase == Phase::Racing && e.status == Status::Playing)
                .out(
                    e.status == Status::Left || matches!(e.verdict, Some(Verdict::Refused { .. })),
                );
            d = d.spot(R::entrant_drawn(v, e, seat));
        }
        if let Some(me) = v.me() {
            d = d.spots(R::own_places(v, &me.board).into_iter().map(|p| p.own(true)));
        }
        if !v.stopped_by.is_empty() {
            let who: Vec<String> = v.stopped_by.iter().map(|x| names(*x)).collect();
            d = d.spot(Place::new("the race").note(format!("stopped: {} left it", who.join(", "))));
        }
        Some(d)
    }

    fn prompt(view: &RaceView<R>, legal: &[R::Action]) -> String {
        R::prompt(view, legal)
    }

    fn parse_move(
        input: &str,
        view: &RaceView<R>,
        legal: &[R::Action],
    ) -> Result<R::Action, String> {
        R::parse_move(input, view, legal)
    }

    fn move_text(view: &RaceView<R>, action: &R::Action) -> String {
        R::move_text(view, action)
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.phase != Phase::Over {
            return "the race is not over".into();
        }
        let board = self.standings();
        let mut parts = Vec::new();
        for (i, r) in board.iter().enumerate() {
            if let (Some(e), Some(v)) = (self.entrant(r.seat), self.verified(r.seat)) {
                // Ties share the place of the first of them.
                parts.push(R::standing(e, v, place(&board, i), names(r.seat)));
            }
        }
        for (seat, v) in &self.verdicts {
            if let Verdict::Refused { reason } = v {
                parts.push(format!(
                    "{} refused: {reason}",
                    whose(names(*seat)).replace("'s", "'s game")
                ));
            }
        }
        if crate::games::race::RaceSetup::players(&self.setup) == 1 {
            parts.push("a practice game alone proves nothing".into());
        }
        parts.join("; ")
    }

    fn replay(text: &str) -> Result<Replayed, String> {
        let out = script::Script::<R>::parse(text)?.run()?;
        Ok(out.end.replayed(&out))
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Self>> {
        use crate::games::ui::generic::GenericPanel;
        match R::ROOM_BELOW {
            Some(rows) => Box::new(GenericPanel::<Self>::with_room_below(rows)),
            None => Box::<GenericPanel<Self>>::default(),
        }
    }
}
