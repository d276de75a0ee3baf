//! Scoundrel as people see it: its story, table and turns in words, the turns a person types,
//! its scripts.

pub mod replay;
pub mod words;

use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::race::place;
use crate::games::scoundrel::game::{
    Action, Phase, Places, Scoundrel, ScoundrelView, Status, Verdict, MAX_HEALTH,
};
use crate::games::script::Replayed;
use crate::games::ui::words::{says, whose};
use crate::games::ui::GameUi;
use std::fmt::Write;
use words::{card, cards, me, status_word, turn_words};

impl GameUi for Scoundrel {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let mut out = vec!["the dungeon's 44 cards are shuffled face down".into()];
        let rounds = self
            .entrants
            .iter()
            .map(|e| e.moves.len())
            .max()
            .unwrap_or(0);
        let mut places: Vec<Places> = self.entrants.iter().map(|_| Places::new()).collect();
        for r in 0..rounds {
            for (i, e) in self.entrants.iter().enumerate() {
                let Some(a) = e.moves.get(r) else { continue };
                let room: Vec<Option<CardId>> = places[i]
                    .room
                    .iter()
                    .map(|p| self.card_seen(e.seat, viewer, *p))
                    .collect();
                let who = names(e.seat);
                let text = match a {
                    Action::Avoid => format!("{} the room", says(who, "avoids")),
                    Action::GiveUp => format!("{} up", says(who, "gives")),
                    Action::Face { .. } if room.iter().all(Option::is_none) => {
                        format!("{} a turn", says(who, "plays"))
                    }
                    a => format!("{}: {}", who, turn_words(a, &room)),
                };
                out.push(text);
                if let Ok((p, _)) = places[i].after(a) {
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

    fn render(v: &ScoundrelView, n: &dyn Fn(Seat) -> String) -> String {
        let phase = match v.phase {
            Phase::Start => "shuffling the dungeon",
            Phase::Racing => "racing",
            Phase::Showing => "showing every card drawn",
            Phase::Over => "over",
        };
        let mut s = format!(
            "── Scoundrel · {} on one deal · {phase} ──\n",
            v.entrants.len()
        );
        if let Some(e) = me(v) {
            if let Some(l) = &e.life {
                let weapon = match l.weapon {
                    Some(w) if l.slain.is_empty() => format!("{} (unused)", card(w)),
                    Some(w) => format!("{} slew {}", card(w), cards(&l.slain)),
                    None => "none".into(),
                };
                let _ = writeln!(
                    s,
                    "  health {}/{MAX_HEALTH}   weapon {weapon}   dungeon {} left",
                    l.health, e.dungeon_left
                );
            }
            let room: Vec<String> = e
                .room
                .iter()
                .enumerate()
                .map(|(i, c)| format!("[{}] {}", i + 1, c.map(card).unwrap_or("??".into())))
                .collect();
            let _ = writeln!(
                s,
                "  room {}{}",
                room.join("  "),
                if e.avoided_last {
                    "   (avoided the last)"
                } else {
                    ""
                }
            );
        }
        for e in &v.entrants {
            let mut line = format!(
                "  {:<12} {:<28} turn {:>2}, {:>2} left",
                n(e.seat),
                status_word(e),
                e.turns,
                e.dungeon_left
            );
            if Some(e.seat) != v.viewer {
                if let Some(l) = &e.life {
                    let _ = write!(line, ", health {}", l.health);
                }
            }
            let _ = writeln!(s, "{line}");
        }
        if !v.stopped_by.is_empty() {
            let who: Vec<String> = v.stopped_by.iter().map(|x| n(*x)).collect();
            let _ = writeln!(s, "  the race stopped: {} left it", who.join(", "));
        }
        s
    }

    fn prompt(view: &ScoundrelView, legal: &[Action]) -> String {
        let avoid = if legal.contains(&Action::Avoid) {
            "'avoid', "
        } else {
            ""
        };
        let need = me(view).map(|e| e.room.len().min(3)).unwrap_or(3);
        format!(
            "{avoid}'face' and {need} card numbers in order (add w to fight with the weapon, e.g. \
             face 2w 1 3), or 'give up' > "
        )
    }

    fn parse_move(input: &str, _view: &ScoundrelView, legal: &[Action]) -> Result<Action, String> {
        let a = replay::parse_turn(input)?;
        // A typed turn does not say whether it kills: the listed move with the same cards does.
        if let Action::Face { takes, .. } = &a {
            if let Some(l) = legal
                .iter()
                .find(|l| matches!(l, Action::Face { takes: t, .. } if t == takes))
            {
                return Ok(l.clone());
            }
        }
        Ok(a)
    }

    fn move_text(view: &ScoundrelView, action: &Action) -> String {
        let room = me(view).map(|e| e.room.clone()).unwrap_or_default();
        turn_words(action, &room)
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.phase != Phase::Over {
            return "the race is not over".into();
        }
        let mut parts = Vec::new();
        let board = self.leaderboard();
        let standings = self.standings();
        for (i, (seat, score, status)) in board.iter().enumerate() {
            // Ties share the place of the first of them.
            let place = place(&standings, i);
            parts.push(if *status == Status::Stopped {
                format!("{} stopped at {score} health", names(*seat))
            } else {
                format!("{place}. {} {} ({score})", names(*seat), status.words())
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
