//! high_card's ui part.

use crate::engine::{Game, Seat};
use crate::games::high_card::game::{Action, HighCard, HighCardView, Phase};
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot};
use crate::games::ui::words::{count, says};
use crate::games::ui::GameUi;
use std::fmt::Write;
use words::{card, line};

#[cfg(feature = "terminal")]
pub mod panel;
pub mod replay;
pub mod words;

impl GameUi for HighCard {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &HighCardView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!(
            "── round {} of {} ──\n",
            (v.round + 1).min(v.rounds),
            v.rounds
        );
        for (seat, points) in &v.points {
            let held = v
                .hands
                .iter()
                .find(|(x, _)| x == seat)
                .map(|(_, c)| c.map(card).unwrap_or_else(|| "??".into()))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  {:<14} {points:>4} points  {held}{}",
                n(*seat),
                if v.to_act.contains(seat) { " ◀" } else { "" }
            );
        }
        s
    }

    fn drawing(v: &HighCardView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let title = format!("round {} of {}", (v.round + 1).min(v.rounds), v.rounds);
        let seats = v.points.iter().map(|(seat, points)| {
            // A seat with no hand yet (the deal on its way, or out of the game) has nothing
            // on the table.
            let held = v.hands.iter().find(|(x, _)| x == seat).map(|(_, c)| *c);
            Spot::seat(*seat, v.viewer, n)
                .pieces(held.map(Piece::card_or_back))
                .note(format!("{points} points"))
                .note_if(v.first == Some(*seat), "plays first")
                .note_if(!v.active.contains(seat), "out of the game")
                .turn(v.to_act.contains(seat))
                .out(!v.active.contains(seat))
        });
        Some(Drawing::new(title).spots(seats))
    }

    fn prompt(view: &HighCardView, _legal: &[Action]) -> String {
        match view.phase {
            Phase::Draw { .. } => "keep or swap? > ".into(),
            _ => "stay or fold (nobody sees your choice until all chose)? > ".into(),
        }
    }

    fn parse_move(input: &str, _view: &HighCardView, _legal: &[Action]) -> Result<Action, String> {
        crate::games::high_card::ui::replay::parse_action(&format!("0 {input}")).map(|(_, a)| a)
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<HighCard>> {
        Box::<crate::games::high_card::ui::panel::HighCardPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        match self.outcome() {
            Some(o) => {
                let w: Vec<String> = o.winners.iter().map(|s| names(*s)).collect();
                format!(
                    "{} with the most points after {}",
                    if w.len() == 1 {
                        says(w[0].clone(), "wins")
                    } else {
                        format!("{} share the win", w.join(" and "))
                    },
                    count(self.round, "round", "rounds")
                )
            }
            None => "the game is not over".into(),
        }
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::high_card::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
