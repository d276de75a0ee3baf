//! Shooting Party as people see it: its story, rooms and moves in words, the moves a person
//! types, its scripts and its panel.

pub mod replay;
pub mod words;

use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::race::place;
use crate::games::script::Replayed;
use crate::games::shooting_party::game::{
    card_short, communique_grade, contact_grade, entrant_view, Action, PartyView, Phase, Places,
    ShootingParty, Status, Verdict, RESHUFFLES,
};
use crate::games::ui::words::{count, says, whose};
use crate::games::ui::GameUi;
use std::fmt::Write;
use words::{grade, jacks, move_words, row, status_word, typed};

impl GameUi for ShootingParty {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let mut out = vec!["the 33 guests are shuffled face down; rooms of four".to_string()];
        let rounds = self
            .entrants
            .iter()
            .map(|e| e.moves.len())
            .max()
            .unwrap_or(0);
        let mut places: Vec<Places> = self.entrants.iter().map(|e| Places::new(e.seat)).collect();
        // Every move of every entrant would flood the story: a person follows its own game
        // move by move and the others by their contacts.
        for r in 0..rounds {
            for (i, e) in self.entrants.iter().enumerate() {
                let Some(a) = e.moves.get(r) else { continue };
                let before = &places[i];
                let who = names(e.seat);
                let mine = viewer == Some(e.seat) || self.phase == Phase::Over;
                let text = if mine {
                    let ev = entrant_view(self, e, before, viewer);
                    Some(format!("{}: {}", who, move_words(a, &ev)))
                } else {
                    match a {
                        Action::Contact { .. } => Some(format!(
                            "{} contact ({})",
                            says(who, "makes"),
                            count(u64::from(before.contacts) + 1, "source", "sources")
                        )),
                        Action::GiveUp => Some(format!("{} up", says(who, "gives"))),
                        _ => None,
                    }
                };
                out.extend(text);
                if let Ok(p) = before.after(a) {
                    if p.exhausted > before.exhausted {
                        out.push(if p.over {
                            format!(
                                "{} draw pile runs out a third time: the game ends",
                                whose(names(e.seat))
                            )
                        } else {
                            format!(
                                "{} draw pile runs out: the discards and unscored aces are \
                                 shuffled by every entrant into a new one ({} of {RESHUFFLES})",
                                whose(names(e.seat)),
                                p.rebuilt()
                            )
                        });
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

    fn render(v: &PartyView, n: &dyn Fn(Seat) -> String) -> String {
        let phase = match v.phase {
            Phase::Start => "shuffling the deck",
            Phase::Racing => "racing",
            Phase::Showing => "showing every card drawn",
            Phase::Over => "over",
        };
        let mut s = String::new();
        if let Some(e) = v.me() {
            let _ = writeln!(
                s,
                " pile {} · rebuilt {}/{RESHUFFLES} · discards {} · score {} ({}){}",
                e.pile_left,
                e.exhausted.min(RESHUFFLES),
                e.discards.len(),
                e.scored.len(),
                grade(e),
                if v.phase == Phase::Racing {
                    String::new()
                } else {
                    format!(" · {phase}")
                }
            );
            let hand: Vec<String> = e
                .hand
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    format!(
                        "[{}] {}",
                        i + 1,
                        c.map(card_short).unwrap_or_else(|| "??".into())
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                " room  {}",
                if hand.is_empty() {
                    "empty".into()
                } else {
                    hand.join("  ")
                }
            );
            let _ = writeln!(s, " aces up     {}", row(&e.aces));
            let _ = writeln!(s, " score pile  {}", row(&e.scored));
            let last: Vec<Option<CardId>> =
                e.discards.iter().rev().take(6).rev().copied().collect();
            let _ = writeln!(
                s,
                " discarded   {}{}",
                if e.discards.len() > last.len() {
                    "… "
                } else {
                    ""
                },
                row(&last)
            );
            if let Some(pile) = &e.search {
                // The whole pile, numbered, in lines of twelve.
                let cells: Vec<String> = pile
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        format!(
                            "{}:{}",
                            i + 1,
                            c.map(card_short).unwrap_or_else(|| "??".into())
                        )
                    })
                    .collect();
                let _ = writeln!(s, " the joker searches the draw pile for an ace:");
                for chunk in cells.chunks(12) {
                    let _ = writeln!(s, "  {}", chunk.join(" "));
                }
            }
        } else {
            let _ = writeln!(
                s,
                " Shooting Party · {} on one deal · {phase}",
                v.entrants.len()
            );
        }
        for e in &v.entrants {
            if Some(e.seat) == v.viewer && e.status == Status::Playing {
                continue;
            }
            let _ = writeln!(
                s,
                " {:<12} {:<22} {} · score {}",
                n(e.seat),
                status_word(e),
                count(u64::from(e.contacts), "contact", "contacts"),
                e.scored.len()
            );
        }
        if !v.stopped_by.is_empty() {
            let who: Vec<String> = v.stopped_by.iter().map(|x| n(*x)).collect();
            let _ = writeln!(s, " the race stopped: {} left it", who.join(", "));
        }
        s
    }

    fn prompt(view: &PartyView, legal: &[Action]) -> String {
        if view.me().is_some_and(|e| e.search.is_some()) {
            return "the joker's ace: 'take' and its place in the pile (take 5), or 'give up' > "
                .into();
        }
        // A forced move (an ace, the spouse rule, one queen, two jacks) is offered alone, or
        // with the spouse rule's choice: name it as it is typed.
        let forced = legal.iter().any(|a| {
            matches!(
                a,
                Action::AceUp { .. } | Action::Spouses { .. } | Action::Queen { .. }
            )
        });
        let free = legal.iter().any(|a| {
            matches!(
                a,
                Action::Discard { .. } | Action::Draw | Action::Joker { .. }
            )
        }) || (!forced && legal.len() > 2);
        if !free {
            let typed: Vec<String> = legal
                .iter()
                .filter(|a| **a != Action::GiveUp)
                .map(|a| format!("'{}'", typed(a)))
                .collect();
            // Two jacks force the room to be left; so does a full room with nothing to discard.
            let why = if forced || jacks(view) >= 2 {
                "etiquette first"
            } else {
                "the only move"
            };
            return format!("{why}: {} (or 'give up') > ", typed.join(" or "));
        }
        let mut parts = vec![];
        if legal.contains(&Action::Draw) {
            parts.push("'draw' a pair");
        }
        parts.push("'leave' the room");
        parts.push("'discard' cards (discard 2 4)");
        if legal
            .iter()
            .any(|a| matches!(a, Action::Joker { .. } | Action::Retrieve { .. }))
        {
            parts.push("'joker' N, 'retrieve' N D or 'search' N");
        }
        if legal.iter().any(|a| matches!(a, Action::Contact { .. })) {
            parts.push("'contact' (with her ace: contact A)");
        }
        parts.push("'give up'");
        format!("{} > ", parts.join(", "))
    }

    fn parse_move(input: &str, _view: &PartyView, _legal: &[Action]) -> Result<Action, String> {
        replay::parse_move(input.trim())
    }

    fn move_text(view: &PartyView, action: &Action) -> String {
        match view.me() {
            Some(e) => move_words(action, e),
            None => crate::games::ui::words::json_words(
                &serde_json::to_value(action).unwrap_or_default(),
            ),
        }
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Self>> {
        // The room, the aces and the score pile take the table's box; the moves keep a few
        // lines under it.
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
            let (contacts, communiques) = match self.verdicts.get(&r.seat) {
                Some(Verdict::Verified {
                    contacts,
                    communiques,
                    ..
                }) => (*contacts, *communiques),
                _ => (0, 0),
            };
            let what = format!(
                "{} and {} ({} {})",
                count(u64::from(contacts), "contact", "contacts"),
                count(u64::from(communiques), "communique", "communiques"),
                communique_grade(usize::from(communiques)),
                contact_grade(usize::from(contacts))
            );
            parts.push(match e.status {
                Status::Stopped => format!("{} stopped with {what}", names(r.seat)),
                s => format!(
                    "{}. {} {}: {what}, score {}",
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
