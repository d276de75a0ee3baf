//! perudo's ui part.

use crate::engine::{Game, Seat};
use crate::games::perudo::game::{Action, Perudo, PerudoView};
use crate::games::script::Replayed;
use crate::games::ui::words::{faces, last_standing};
use crate::games::ui::GameUi;
use words::{help, line};

pub mod replay;
pub mod words;

impl GameUi for Perudo {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        crate::games::ui::words::told(&self.view(viewer).log, names, line)
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
            s += &format!("your cup: {}\n", faces(d));
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
        crate::games::script::typed_move(input, replay::parse_action, help())
    }

    fn move_text(_: &PerudoView, a: &Action) -> String {
        match a {
            Action::Bid(b) => format!("bid {b}"),
            Action::Dudo => "dudo: call the bid".into(),
        }
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Perudo>> {
        Box::<crate::games::dice::ui::DicePanel<Perudo>>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        last_standing(self.outcome(), names)
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::perudo::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
