//! abandon_ship's ui part.

use crate::cards::{PlayingCard, Suit};
use crate::engine::{Game, Seat};
use crate::games::abandon_ship::game::{
    card_name, points, AbandonShip, AbandonView, Action, Entry, Phase,
};
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot};
use crate::games::ui::words::{count, people, whose};
use crate::games::ui::GameUi;
use std::fmt::Write;
use words::{cards, held_card, line, named, round_words};

#[cfg(feature = "terminal")]
pub mod panel;
pub mod replay;
pub mod words;

/// The round's header, for its words (which add the rounds limit) and its drawing alike.
fn heading(v: &AbandonView) -> String {
    format!(
        "{} · {} left in the deck · playing to {}",
        round_words(v),
        count(v.deck_left, "card", "cards"),
        v.target
    )
}

impl GameUi for AbandonShip {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        crate::games::ui::words::told(&self.view(viewer).log, names, line)
    }

    fn render(v: &AbandonView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!(
            "── {}{} ──\n",
            heading(v),
            match v.rounds {
                Some(n) => format!(" or for {}", count(n, "round", "rounds")),
                None => String::new(),
            }
        );
        let _ = write!(s, "  lifeboats:");
        for (i, b) in v.lifeboats.iter().enumerate() {
            let p: i64 = b.iter().map(|c| points(*c)).sum();
            let _ = write!(s, "  {} {p}", Suit::ALL[i].symbol());
        }
        s.push('\n');
        if let Some(f) = &v.fight {
            if f.winner.is_none() {
                let played: Vec<String> = f
                    .plays
                    .iter()
                    .map(|p| {
                        format!(
                            "{} {}",
                            n(p.seat),
                            p.card.map(card_name).unwrap_or_else(|| "??".into())
                        )
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "  fight: {} against {}: {}",
                    n(f.attacker),
                    n(f.defender),
                    played.join(", ")
                );
            }
        }
        for (seat, held) in &v.hands {
            let shown: Vec<String> = held
                .iter()
                .map(|c| c.map(card_name).unwrap_or_else(|| "??".into()))
                .collect();
            let board = v
                .boards
                .iter()
                .find(|(b, _)| b == seat)
                .map(|(_, b)| cards(b))
                .unwrap_or_default();
            let score = v
                .scores
                .iter()
                .find(|(x, _)| x == seat)
                .map(|(_, p)| *p)
                .unwrap_or(0);
            let state = if v.removed.contains(seat) {
                " (removed)"
            } else if v.to_act.contains(seat) {
                " ◀"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "  #{seat} {:<12} {score:>4} pts  hand {}  board {board}{state}",
                n(*seat),
                if shown.is_empty() {
                    "empty".into()
                } else {
                    shown.join(" ")
                }
            );
        }
        s
    }

    fn drawing(v: &AbandonView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let mut d = Drawing::new(heading(v));
        for (seat, held) in &v.hands {
            let score = v
                .scores
                .iter()
                .find(|(x, _)| x == seat)
                .map_or(0, |(_, p)| *p);
            d = d.spot(
                Spot::seat(*seat, v.viewer, n)
                    .pieces(held.iter().map(|c| Piece::card_or_back(*c)))
                    .note(format!("#{seat}"))
                    .note(format!("{score} points"))
                    .note_if(held.is_empty(), "hand empty")
                    .note_if(v.removed.contains(seat), "removed")
                    .turn(v.to_act.contains(seat))
                    .out(v.removed.contains(seat)),
            );
            // What the seat has taken lies face up before it.
            if let Some((_, board)) = v.boards.iter().find(|(b, _)| b == seat) {
                if !board.is_empty() {
                    d = d.spot(
                        Spot::new(format!("{} loot", whose(n(*seat))))
                            .pieces(board.iter().map(|c| Piece::card(*c))),
                    );
                }
            }
        }
        for (i, boat) in v.lifeboats.iter().enumerate() {
            let p: i64 = boat.iter().map(|c| points(*c)).sum();
            d = d.spot(
                Spot::new(format!("{} lifeboat", Suit::ALL[i].symbol()))
                    .pieces(boat.iter().map(|c| Piece::card(*c)))
                    .note(format!("{p} points")),
            );
        }
        // A fighter's cards lie face down until shown, but for their own.
        if let Some(f) = v.fight.as_ref().filter(|f| f.winner.is_none()) {
            for (seat, role) in [(f.attacker, "attacks"), (f.defender, "defends")] {
                d = d.spot(
                    Spot::new(format!("{} fight cards", whose(n(seat))))
                        .pieces(
                            f.plays
                                .iter()
                                .filter(|p| p.seat == seat)
                                .map(|p| Piece::card_or_back(p.card)),
                        )
                        .note(crate::games::ui::words::says(n(seat), role))
                        .own(v.viewer == Some(seat)),
                );
            }
        }
        Some(d)
    }

    fn prompt(view: &AbandonView, _legal: &[Action]) -> String {
        match view.phase {
            Phase::Play => "discard a card (discard QS) or pick a fight (fight QS 2: card, then the player's #)? > ".into(),
            Phase::Fight => "answer with a higher card (raise KH) or surrender? > ".into(),
            Phase::Key => "your Key Card, face down (key QH)? > ".into(),
            _ => "wait > ".into(),
        }
    }

    fn parse_move(input: &str, view: &AbandonView, _legal: &[Action]) -> Result<Action, String> {
        let words: Vec<String> = input
            .split_whitespace()
            .map(|w| w.to_ascii_lowercase())
            .collect();
        let card = |i: usize| -> Result<u16, String> {
            let w = words
                .get(i)
                .ok_or_else(|| "name a card of your hand, as QS or 10H".to_string())?;
            held_card(view, w)
        };
        match words.first().map(String::as_str) {
            Some("surrender" | "s") => Ok(Action::Surrender),
            Some("discard" | "d") => Ok(Action::Discard { position: card(1)? }),
            Some("raise" | "r") => Ok(Action::Raise { position: card(1)? }),
            Some("key" | "k") => Ok(Action::Key { position: card(1)? }),
            Some("fight" | "f") => {
                let position = card(1)?;
                let target = words
                    .get(2)
                    .map(|w| w.trim_start_matches('#'))
                    .and_then(|w| w.parse::<Seat>().ok())
                    .ok_or_else(|| {
                        "name the player to fight by their #, as fight QS 2".to_string()
                    })?;
                Ok(Action::Fight { position, target })
            }
            Some(w) if PlayingCard::parse(w).is_ok() => {
                // A bare card: the one move it can mean now; on a turn it may be discarded or
                // fight with, the player says which (a discard taken by mistake cannot be undone).
                let position = card(0)?;
                match view.phase {
                    Phase::Play => Err(format!(
                        "discard {c} or fight with it? type discard {w} or fight {w} and the \
                         player's #",
                        c = named(view, position),
                        w = w.to_ascii_uppercase()
                    )),
                    Phase::Fight => Ok(Action::Raise { position }),
                    Phase::Key => Ok(Action::Key { position }),
                    _ => Err("it is not your move".into()),
                }
            }
            _ => Err("type discard QS, fight QS 2, raise KH, surrender or key QH".into()),
        }
    }

    fn move_text(view: &AbandonView, action: &Action) -> String {
        match action {
            Action::Discard { position } => format!("discard {}", named(view, *position)),
            Action::Fight { position, target } => {
                format!("fight #{target} with {}", named(view, *position))
            }
            Action::Raise { position } => format!("answer with {}", named(view, *position)),
            Action::Surrender => "surrender".into(),
            Action::Key { position } => format!("Key Card {}", named(view, *position)),
        }
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<AbandonShip>> {
        Box::<crate::games::abandon_ship::ui::panel::AbandonPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.outcome().is_none() {
            return "the game is not over".into();
        }
        if !self.removed.is_empty() {
            return format!(
                "the game ends without a winner: the table removed {}",
                people(&self.removed, names)
            );
        }
        let scores: Vec<String> = self
            .table()
            .iter()
            .map(|s| format!("{} {}", names(*s), self.scores[usize::from(*s)]))
            .collect();
        format!(
            "{} after {} ({})",
            line(
                &Entry::Won {
                    seats: self.winners.clone()
                },
                names
            ),
            count(self.round, "round", "rounds"),
            scores.join(", ")
        )
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::abandon_ship::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
