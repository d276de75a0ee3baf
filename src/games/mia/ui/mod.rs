//! mia's ui part.

use crate::engine::{Game, Seat};
use crate::games::mia::game::{Action, Mia, MiaView};
use crate::games::script::Replayed;
use crate::games::ui::words::{faces, last_standing};
use crate::games::ui::{
    drawing::{Drawing, Piece, Spot},
    GameUi,
};
use words::{help, line};

pub mod replay;
pub mod words;

impl GameUi for Mia {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        crate::games::ui::words::told(&self.view(viewer).log, names, line)
    }

    fn render(v: &MiaView, n: &dyn Fn(Seat) -> String) -> String {
        let lives: Vec<String> = v
            .lives
            .iter()
            .map(|(s, l)| format!("{} {l}", n(*s)))
            .collect();
        let mut s = format!(
            "lives: {} ({} ranking)\n",
            lives.join(", "),
            v.ranking.name()
        );
        if let Some(c) = &v.cup {
            if let Some(d) = c.dice {
                s += &format!(
                    "the cup you rolled: {} = {}\n",
                    faces(&d),
                    crate::games::mia::Throw::of_dice(d[0], d[1])
                );
            }
            if let Some(claim) = c.claim {
                s += &format!("claim: {claim}, owned by {}\n", n(c.owner));
            }
        }
        s
    }

    fn drawing(v: &MiaView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let title = format!("round {} · {} ranking", v.round, v.ranking.name());
        let seats = v.lives.iter().map(|&(seat, lives)| {
            Spot::seat(seat, v.viewer, n)
                .note(crate::games::ui::words::count(lives, "life", "lives"))
                .note_if(
                    v.cup.as_ref().is_some_and(|c| c.owner == seat),
                    "has the cup",
                )
                .turn(v.to_act == Some(seat))
                .out(lives == 0)
        });
        let mut d = Drawing::new(title).spots(seats);
        if let Some(c) = &v.cup {
            // Seen by the one who rolled it, and by everyone once it is lifted.
            let dice = Piece::cup(c.dice.as_ref().map(|d| &d[..]), 2);
            // The roller looked under it; nobody else did.
            let mut cup = Spot::new("the cup")
                .pieces(dice)
                .own(v.viewer == Some(c.roller));
            if let Some(d) = c.dice {
                cup = cup.note(format!("{}", crate::games::mia::Throw::of_dice(d[0], d[1])));
            }
            cup = match c.claim {
                Some(claim) => cup.note(format!("claim: {claim}, by {}", n(c.owner))),
                None => cup.note(format!("rolled by {}", n(c.roller))),
            };
            d = d.spot(cup);
        }
        Some(d)
    }

    fn prompt(_view: &MiaView, _legal: &[Action]) -> String {
        format!("your move ({}): ", help())
    }

    fn parse_move(input: &str, _view: &MiaView, _legal: &[Action]) -> Result<Action, String> {
        crate::games::script::typed_move(input, replay::parse_action, help())
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Mia>> {
        Box::<crate::games::dice::ui::DicePanel<Mia>>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        last_standing(self.outcome(), names)
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::mia::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
