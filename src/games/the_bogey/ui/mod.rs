//! The Bogey as people see it: its story, columns and moves in words, the moves a person
//! types, its scripts and its panel.

pub mod replay;
pub mod words;

use crate::engine::Seat;
use crate::games::race::place;
use crate::games::script::Replayed;
use crate::games::the_bogey::game::{
    level, Action, Awaits, BogeyView, Phase, Places, Status, TheBogey, Verdict, MAX_COLUMNS,
};
use crate::games::ui::words::{says, whose};
use crate::games::ui::GameUi;
use std::fmt::Write;
use words::{card_or, column_text, entrant_view, move_words, status_word};

impl GameUi for TheBogey {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let mut out = vec![format!(
            "the 52 cards are shuffled face down; hands of {}",
            self.setup.hand
        )];
        let rounds = self
            .entrants
            .iter()
            .map(|e| e.moves.len())
            .max()
            .unwrap_or(0);
        let mut places: Vec<Places> = self
            .entrants
            .iter()
            .map(|e| Places::new(e.seat, self.setup.hand))
            .collect();
        // Every move of every entrant would flood the story: a person follows its own game
        // move by move and the others by their turns.
        for r in 0..rounds {
            for (i, e) in self.entrants.iter().enumerate() {
                let Some(a) = e.moves.get(r) else { continue };
                let before = &places[i];
                let who = names(e.seat);
                let mine = viewer == Some(e.seat) || self.phase == Phase::Over;
                let text = if mine {
                    let ev = entrant_view(self, e.seat, before, viewer);
                    Some(format!("{}: {}", who, move_words(a, &ev)))
                } else {
                    match a {
                        Action::Stuck => Some(format!("{} to the bogey", says(who, "loses"))),
                        Action::GiveUp => Some(format!("{} up", says(who, "gives"))),
                        _ => None,
                    }
                };
                out.extend(text);
                if let Ok(p) = before.after(a) {
                    if p.reshuffles.len() > before.reshuffles.len() {
                        out.push(format!(
                            "{} discards are shuffled into a new deck by every entrant",
                            whose(names(e.seat))
                        ));
                    }
                    if p.complete() {
                        out.push(format!("{} every card", says(names(e.seat), "plays")));
                    }
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

    fn render(v: &BogeyView, n: &dyn Fn(Seat) -> String) -> String {
        let phase = match v.phase {
            Phase::Start => "shuffling the deck",
            Phase::Racing => "racing",
            Phase::Showing => "showing every card drawn",
            Phase::Over => "over",
        };
        let mut s = String::new();
        if let Some(e) = v.me() {
            // One line at 80 columns: the phase only when it is not the race itself.
            let _ = writeln!(
                s,
                " hand of {} · deck {} · discards {} · {}/{MAX_COLUMNS} columns · {} on the table{}",
                v.hand_size,
                e.deck_left,
                e.discards.len(),
                e.columns.len(),
                e.on_table(),
                if v.phase == Phase::Racing {
                    String::new()
                } else {
                    format!(" · {phase}")
                }
            );
            if e.columns.is_empty() {
                let _ = writeln!(s, "  no columns yet");
            }
            // Two columns a line: twelve columns in six lines, each column with its suit once.
            for pair in e.columns.chunks(2).enumerate() {
                let (row, cols) = pair;
                let mut line = String::new();
                for (k, col) in cols.iter().enumerate() {
                    let cell = format!("{:>2} {}", row * 2 + k + 1, column_text(col));
                    let _ = write!(line, "{cell:<38}");
                }
                let _ = writeln!(s, " {}", line.trim_end());
            }
            let hand: Vec<String> = e
                .hand
                .iter()
                .enumerate()
                .map(|(i, c)| format!("[{}] {}", i + 1, card_or(*c, "??")))
                .collect();
            let mut line = format!(
                " hand {}",
                if hand.is_empty() {
                    "empty".into()
                } else {
                    hand.join("  ")
                }
            );
            if let Some(b) = e.bogey {
                let _ = write!(line, "   the bogey plays {}: place it", card_or(b, "??"));
            }
            let _ = writeln!(s, "{line}");
        } else {
            let _ = writeln!(s, " The Bogey · {} on one deal · {phase}", v.entrants.len());
        }
        for e in &v.entrants {
            if Some(e.seat) == v.viewer && e.status == Status::Playing {
                continue;
            }
            let _ = writeln!(
                s,
                " {:<12} {:<22} turn {:>2} · {:>2} cards · {:>2} col",
                n(e.seat),
                status_word(e),
                e.turn,
                e.on_table(),
                e.columns.len()
            );
        }
        if !v.stopped_by.is_empty() {
            let who: Vec<String> = v.stopped_by.iter().map(|x| n(*x)).collect();
            let _ = writeln!(s, " the race stopped: {} left it", who.join(", "));
        }
        s
    }

    fn prompt(view: &BogeyView, legal: &[Action]) -> String {
        if view.me().is_some_and(|e| e.awaits == Awaits::Bogey) {
            let stuck = if legal.contains(&Action::Stuck) {
                "'stuck' (it fits nowhere), "
            } else {
                ""
            };
            return format!(
                "the bogey's card: 'place' and a column number or 'new' (place 2), {stuck}or \
                 'give up' > "
            );
        }
        "'play' a hand card to a column or 'new' (play 2 3), 'discard' a hand card (discard 4), \
         'end' the turn (the bogey plays), or 'give up' > "
            .into()
    }

    fn parse_move(input: &str, _view: &BogeyView, _legal: &[Action]) -> Result<Action, String> {
        replay::parse_move(input.trim())
    }

    fn move_text(view: &BogeyView, action: &Action) -> String {
        match view.me() {
            Some(e) => move_words(action, e),
            None => crate::games::ui::words::json_words(
                &serde_json::to_value(action).unwrap_or_default(),
            ),
        }
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Self>> {
        // The columns take the table's box; the moves keep a few lines under it.
        Box::new(crate::games::ui::generic::GenericPanel::<Self>::with_room_below(8))
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.phase != Phase::Over {
            return "the race is not over".into();
        }
        let mut parts = Vec::new();
        let board = self.standings();
        for (i, r) in board.iter().enumerate() {
            let e = self.entrant(r.seat).expect("entrant");
            let (on_table, columns) = match self.verdicts.get(&r.seat) {
                Some(Verdict::Verified {
                    on_table, columns, ..
                }) => (*on_table, *columns),
                _ => (0, 0),
            };
            parts.push(match e.status {
                Status::Stopped => format!(
                    "{} stopped with {on_table} cards on the table",
                    names(r.seat)
                ),
                Status::Won => format!(
                    "{}. {} won in {columns} columns, {} ({})",
                    place(&board, i),
                    names(r.seat),
                    level(columns),
                    r.score
                ),
                s => format!(
                    "{}. {} {} with {on_table} cards on the table ({})",
                    place(&board, i),
                    names(r.seat),
                    s.words(),
                    r.score
                ),
            });
        }
        for (seat, v) in &self.verdicts {
            if let Verdict::Refused { reason } = v {
                parts.push(format!(
                    "{} refused: {reason}",
                    whose(names(*seat)).replace("'s", "'s game")
                ));
            }
        }
        if self.setup.players == 1 {
            parts.push("a practice game alone proves nothing".into());
        }
        parts.join("; ")
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
