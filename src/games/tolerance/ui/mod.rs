//! tolerance's ui part.

use crate::games::tolerance::game::{Tolerance, ToleranceView};
use crate::games::tolerance::hand::{Action, LogEntry};

use crate::engine::Seat;
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot};
use crate::games::ui::GameUi;
use std::fmt::Write;

pub mod chips;
#[cfg(feature = "terminal")]
pub mod panel;
pub mod replay;
pub mod words;

impl GameUi for Tolerance {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let mut out = Vec::new();
        for h in &self.history {
            let end = chips::hand_lines(h, &self.start_stacks(h.hand), names);
            if !h.dealt() {
                out.extend(end);
                continue;
            }
            out.push(format!("— hand {} —", h.hand + 1));
            // What each seat took is told after the log, net of what came back: a pot's share
            // read alone ("wins 180") would count the winner's own bets as won.
            for e in h.log.iter().filter(|e| !matches!(e, LogEntry::Won { .. })) {
                out.push(words::entry_text(e, names));
            }
            out.extend(end);
            // Last, so that the story only ever grows while a hand turns into history.
            if let Some(v) = viewer {
                if let Some(cards) = self.known_cards(h.hand, v) {
                    out.push(format!(
                        "{} held {} (not shown)",
                        names(v),
                        words::cards_text(cards)
                    ));
                }
            }
        }
        if let Some(hand) = &self.hand {
            out.push(format!("— hand {} —", hand.hand_no + 1));
            let v = crate::engine::Game::view(hand, viewer);
            out.extend(words::log_lines(&v, 0, names));
        }
        out
    }

    fn render(view: &ToleranceView, names: &dyn Fn(Seat) -> String) -> String {
        let mut s = String::new();
        match &view.hand {
            Some(h) => s += &words::render(h, names),
            None => {
                let _ = writeln!(s, "── between hands ({} played) ──", view.hands_dealt);
                for (seat, st) in view.stacks.iter().enumerate() {
                    if let Some(c) = st {
                        let _ = writeln!(s, "  {:<14} stack {c:>6}", names(seat as Seat));
                    }
                }
            }
        }
        s
    }

    fn drawing(view: &ToleranceView, names: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let Some(h) = &view.hand else {
            let d = Drawing::new(format!("between hands ({} played)", view.hands_dealt));
            return Some(
                d.spots(view.stacks.iter().enumerate().filter_map(|(s, st)| {
                    st.map(|c| Spot::seat(s as Seat, view.viewer, names).note(format!("stack {c}")))
                })),
            );
        };
        let title = words::heading(h);
        let seats = h.players.iter().map(|p| {
            let mut spot = Spot::seat(p.seat, h.viewer, names)
                .pieces(p.cards.iter().map(|c| Piece::card_or_back(*c)))
                .pieces(p.rolls.iter().map(|r| Piece::Die { face: r.die }))
                .note(format!("stack {}", p.stack))
                .note_if(p.bet > 0, format!("bet {}", p.bet))
                .note_if(p.seat == h.dealer, "dealer")
                .note_if(p.seat == h.starter, "starts")
                .note_if(p.all_in, "all in")
                .note_if(p.folded, "folded")
                .turn(h.to_act == Some(p.seat))
                .out(p.folded);
            for r in &p.rolls {
                spot = spot.note(format!(
                    "rolled {} against {}: {:+}",
                    r.die,
                    r.target,
                    r.delta()
                ));
            }
            if let Some(v) = p.points {
                spot = spot.note(format!("{v} points"));
            }
            spot
        });
        Some(Drawing::new(title).spots(seats))
    }

    fn prompt(view: &ToleranceView, _legal: &[Action]) -> String {
        view.hand.as_ref().map(words::prompt).unwrap_or_default()
    }

    fn parse_move(input: &str, view: &ToleranceView, _legal: &[Action]) -> Result<Action, String> {
        let hand = view.hand.as_ref().ok_or("no hand is being played")?;
        words::parse_move(input, hand)
    }

    fn move_text(_: &Self::View, a: &Action) -> String {
        words::action_text(a)
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Tolerance>> {
        Box::<crate::games::tolerance::ui::panel::TolerancePanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        // Hands dealt, not hand numbers spent: a forfeit before a deal spends one too.
        let played = crate::games::ui::words::count(self.hands_dealt(), "hand", "hands");
        let finals = self.final_stacks();
        let stacks: Vec<String> = finals
            .iter()
            .map(|(s, c)| format!("{} {c}", names(*s)))
            .collect();
        match self.table.winner() {
            Some(w) => format!(
                "{} the table after {} ({})",
                crate::games::ui::words::says(names(w), "wins"),
                played,
                stacks.join(", ")
            ),
            None => {
                // Most chips at the end (a seat sitting out is never among the winners).
                let ahead = match crate::engine::Game::outcome(self).map(|o| o.winners) {
                    Some(w) if w.len() == 1 => format!(
                        "{} with the most chips; ",
                        crate::games::ui::words::says(names(w[0]), "finishes")
                    ),
                    Some(w) if w.len() > 1 => format!(
                        "{} finish level with the most chips; ",
                        crate::games::ui::words::list(
                            &w.iter().map(|s| names(*s)).collect::<Vec<_>>()
                        )
                    ),
                    _ => String::new(),
                };
                format!("{played} played; {ahead}stacks: {}", stacks.join(", "))
            }
        }
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::tolerance::ui::replay::HandScript::parse(script)?.run()?;
        Ok(Replayed {
            ok: out.ok,
            error: out.error.clone(),
            at_action: out.at_action,
            json: serde_json::to_value(&out).expect("outputs serialise"),
        })
    }
}
