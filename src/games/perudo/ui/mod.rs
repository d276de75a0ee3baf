//! perudo's ui part.

use crate::engine::{Game, Seat};
use crate::games::perudo::game::{Action, Perudo, PerudoView};
use crate::games::script::Replayed;
use crate::games::ui::words::says;
use crate::games::ui::GameUi;
use words::{dice_text, help, line};

pub mod replay;
pub mod words;

impl GameUi for Perudo {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &PerudoView, n: &dyn Fn(Seat) -> String) -> String {
        let cups: Vec<String> = v
            .players
            .iter()
            .map(|p| format!("{} {}", n(p.seat), p.dice_left))
            .collect();
        let mut s = format!(
            "dice: {} ({} on the table)\n",
            cups.join(", "),
            v.total_dice
        );
        if let Some(d) = v.me().and_then(|p| p.dice.as_ref()) {
            s += &format!("your cup: {}\n", dice_text(d));
        }
        match (v.bid, v.bidder) {
            (Some(b), Some(by)) => s += &format!("standing bid: {b} by {}\n", n(by)),
            _ => s += "no bid yet\n",
        }
        s
    }

    fn prompt(_view: &PerudoView, _legal: &[Action]) -> String {
        format!("your move ({}): ", help())
    }

    fn parse_move(input: &str, _view: &PerudoView, _legal: &[Action]) -> Result<Action, String> {
        crate::games::perudo::ui::replay::parse_action(&format!("0 {input}"))
            .map(|(_, a)| a)
            .map_err(|_| format!("'{}' is not a move: {}", input.trim(), help()))
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Perudo>> {
        Box::<crate::games::dice::ui::DicePanel<Perudo>>::default()
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
        let out = crate::games::perudo::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
