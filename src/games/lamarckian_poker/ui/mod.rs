//! lamarckian_poker's ui part.

use crate::cards::PlayingCard;
use crate::engine::{Game, Seat};
use crate::games::lamarckian_poker::game::{Action, Entry, LamarckianPoker, LamarckianView, Phase};
use crate::games::lamarckian_poker::hand::card_name;
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot};
use crate::games::ui::words::{count, people};
use crate::games::ui::GameUi;
use std::fmt::Write;
use words::{cards, line};

#[cfg(feature = "terminal")]
pub mod panel;
pub mod replay;
pub mod words;

/// The table's header, for its words and its drawing alike.
fn heading(v: &LamarckianView) -> String {
    format!(
        "turn {} · {} left in the deck · {} discarded",
        v.turn,
        count(v.deck_left, "card", "cards"),
        v.discards.len()
    )
}

impl GameUi for LamarckianPoker {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        crate::games::ui::words::told(&self.view(viewer).log, names, line)
    }

    fn render(v: &LamarckianView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!(
            "── {} ──\n  pool: {}\n",
            heading(v),
            if v.pool.is_empty() {
                "empty".into()
            } else {
                cards(&v.pool)
            }
        );
        for (seat, held) in &v.hands {
            let shown: Vec<String> = held
                .iter()
                .map(|c| c.map(card_name).unwrap_or_else(|| "??".into()))
                .collect();
            let state = if v.removed.contains(seat) {
                " (removed)"
            } else if !v.alive.contains(seat) {
                " (extinct)"
            } else if v.to_act.contains(seat) {
                " ◀"
            } else {
                ""
            };
            let _ = writeln!(s, "  {:<14} {}{state}", n(*seat), shown.join(" "));
        }
        s
    }

    fn drawing(v: &LamarckianView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let title = heading(v);
        let seats = v.hands.iter().map(|(seat, held)| {
            Spot::seat(*seat, v.viewer, n)
                .pieces(held.iter().map(|c| Piece::card_or_back(*c)))
                .note_if(v.removed.contains(seat), "removed")
                .note_if(
                    !v.removed.contains(seat) && !v.alive.contains(seat),
                    "extinct",
                )
                .turn(v.to_act.contains(seat))
                .out(!v.alive.contains(seat))
        });
        let pool = Spot::new("pool")
            .pieces(v.pool.iter().map(|c| Piece::card(*c)))
            .note_if(v.pool.is_empty(), "empty");
        Some(Drawing::new(title).spots(seats).spot(pool))
    }

    fn prompt(view: &LamarckianView, _legal: &[Action]) -> String {
        match view.phase {
            Phase::Mark => {
                "your mark, a card of your hand such as QS (nobody sees it until all chose)? > "
                    .into()
            }
            _ => "wait > ".into(),
        }
    }

    fn parse_move(input: &str, view: &LamarckianView, _legal: &[Action]) -> Result<Action, String> {
        let want = PlayingCard::parse(input.trim())
            .map_err(|e| e.to_string())?
            .id();
        view.mine
            .iter()
            .find(|h| h.card == Some(want))
            .map(|h| Action::Mark {
                position: h.position,
            })
            .ok_or_else(|| format!("{} is not in your hand", card_name(want)))
    }

    fn move_text(view: &LamarckianView, action: &Action) -> String {
        let Action::Mark { position } = action;
        // A person picks a card, not a deck position: name the card where this seat knows it.
        match view
            .mine
            .iter()
            .find(|h| h.position == *position)
            .and_then(|h| h.card)
        {
            Some(c) => format!("mark {}", card_name(c)),
            None => format!("mark the card dealt at position {position}"),
        }
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<LamarckianPoker>> {
        Box::<crate::games::lamarckian_poker::ui::panel::LamarckianPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.outcome().is_none() {
            return "the game is not over".into();
        }
        match self.log.last() {
            Some(e @ Entry::Won { .. }) => format!(
                "{} after {}",
                line(e, names),
                count(self.turn, "turn", "turns")
            ),
            _ => format!(
                "the game ends without a winner: the table removed {}",
                people(&self.removed, names)
            ),
        }
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::lamarckian_poker::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
