//! mia's ui part.

use crate::engine::{Game, Seat};
use crate::games::mia::game::{Action, Mia, MiaView};
use crate::games::script::Replayed;
use crate::games::ui::words::{faces, last_standing};
use crate::games::ui::GameUi;
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
