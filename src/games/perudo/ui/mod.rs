//! perudo's ui part.

use crate::engine::{Game, Seat};
use crate::games::perudo::game::{Action, Perudo, PerudoView};
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot};
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

    fn drawing(v: &PerudoView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let mut title = format!("round {} · {} dice on the table", v.round, v.total_dice);
        if v.putana {
            title += " · one die left: ones are not wild";
        }
        let cups = v.players.iter().map(|p| {
            // A cup shows its faces to its owner, and to everyone once a dudo opened it.
            Spot::seat(p.seat, v.viewer, n)
                .pieces(Piece::cup(p.dice.as_deref(), usize::from(p.dice_left)))
                .note(crate::games::ui::words::count(p.dice_left, "die", "dice"))
                .note_if(v.bidder == Some(p.seat), "made the standing bid")
                .turn(v.to_act == Some(p.seat))
                .out(p.dice_left == 0)
        });
        let bid = match (v.bid, v.bidder) {
            (Some(b), Some(by)) => Spot::new("standing bid")
                .pieces([Piece::Die { face: b.face }])
                .note(format!("{b} by {}", n(by))),
            _ => Spot::new("standing bid").note("no bid yet"),
        };
        Some(Drawing::new(title).spots(cups).spot(bid))
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
