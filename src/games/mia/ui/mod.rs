//! mia's ui part.

use crate::engine::{Game, Seat};
use crate::games::mia::game::{Action, Mia, MiaView};
use crate::games::script::Replayed;
use crate::games::ui::words::says;
use crate::games::ui::GameUi;
use words::{dice_text, help, line};

pub mod replay;
pub mod words;

impl GameUi for Mia {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
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
                    dice_text(&d),
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
        crate::games::mia::ui::replay::parse_action(&format!("0 {input}"))
            .map(|(_, a)| a)
            .map_err(|_| format!("'{}' is not a move: {}", input.trim(), help()))
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Mia>> {
        Box::<crate::games::dice::ui::DicePanel<Mia>>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        match self.outcome() {
            Some(o) if !o.winners.is_empty() => {
                format!("{} the game", says(names(o.winners[0]), "wins"))
            }
            Some(o) => format!(
                "the game ended without a winner: {} forfeited",
                o.payoffs
                    .iter()
                    .filter(|(_, p)| *p < 0)
                    .map(|(s, _)| names(*s))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "the game is not over".into(),
        }
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::mia::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
