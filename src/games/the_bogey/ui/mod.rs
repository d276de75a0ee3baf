//! The Bogey as people see it: its columns and moves in words, the moves a person types, what a
//! script prints, its panel's layout; the race's frame around them is the race kit's
//! ([`RaceUi`]).

pub mod replay;
pub mod words;

use crate::cards::PlayingCard;
use crate::engine::Seat;
use crate::games::race::ui::{phase_words, status_word, RaceUi};
use crate::games::race::{Entrant, Phase, Status};
use crate::games::the_bogey::game::{
    level, Action, Awaits, Board, Bogey, BogeyView, End, EntrantView, Places, Setup, TheBogey,
    Verified, MAX_COLUMNS,
};
use crate::games::ui::drawing::{Piece, Spot};
use crate::games::ui::words::{count, says, whose};
use std::fmt::Write;
use words::{card_or, column_text, move_words};

impl RaceUi for Bogey {
    // The columns take the table's box; the moves keep a few lines under it.
    const ROOM_BELOW: Option<u16> = Some(8);
    type Out = replay::EntrantOut;

    fn opening(setup: &Setup) -> String {
        format!(
            "the 52 cards are shuffled face down; hands of {}",
            setup.hand
        )
    }

    // Every move of every entrant would flood the story: a person follows its own game move by
    // move and the others by their turns.
    fn told(
        race: &TheBogey,
        seat: Seat,
        before: &Places,
        a: &Action,
        viewer: Option<Seat>,
        who: String,
    ) -> Option<String> {
        if viewer == Some(seat) || race.phase == Phase::Over {
            let board = race.board_at(seat, before, viewer);
            return Some(format!("{}: {}", who, move_words(a, &board)));
        }
        match a {
            Action::Stuck => Some(format!("{} to the bogey", says(who, "loses"))),
            Action::GiveUp => Some(format!("{} up", says(who, "gives"))),
            _ => None,
        }
    }

    fn aftermath(before: &Places, after: &Places, who: String) -> Vec<String> {
        let mut out = Vec::new();
        if after.reshuffles.len() > before.reshuffles.len() {
            out.push(format!(
                "{} discards are shuffled into a new deck by every entrant",
                whose(who.clone())
            ));
        }
        if after.complete() {
            out.push(format!("{} every card", says(who, "plays")));
        }
        out
    }

    fn render_top(v: &BogeyView, _: &dyn Fn(Seat) -> String) -> String {
        let phase = phase_words::<Bogey>(v.phase);
        let mut s = String::new();
        let Some(e) = v.me().map(|e| &e.board) else {
            let _ = writeln!(s, " The Bogey · {} on one deal · {phase}", v.entrants.len());
            return s;
        };
        // One line at 80 columns: the phase only when it is not the race itself.
        let _ = writeln!(
            s,
            " hand of {} · deck {} · discards {} · {}/{MAX_COLUMNS} columns · {} on the table{}",
            e.hand_size,
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
        for (row, cols) in e.columns.chunks(2).enumerate() {
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
        s
    }

    fn entrant_drawn(_: &BogeyView, e: &EntrantView, seat: Spot) -> Spot {
        let b = &e.board;
        seat.pieces(b.hand.iter().map(|c| Piece::card_or_back(*c)))
            .note(format!("turn {}", b.turn))
            .note(format!("hands of {}", b.hand_size))
            .note(format!("{} on the table", b.on_table()))
            .note(format!("{} of {MAX_COLUMNS} columns", b.columns.len()))
            .note(format!("{} left in the deck", b.deck_left))
            .note(count(b.discards.len() as u64, "discard", "discards"))
    }

    fn own_places(_: &BogeyView, b: &Board) -> Vec<Spot> {
        let mut places: Vec<Spot> = b
            .columns
            .iter()
            .enumerate()
            .map(|(i, col)| {
                Spot::new(format!("column {}", i + 1))
                    .pieces(col.iter().map(|c| Piece::card_or_back(*c)))
            })
            .collect();
        if places.is_empty() {
            places.push(Spot::new("columns").note("no columns yet"));
        }
        if let Some(c) = b.bogey {
            places.push(
                Spot::new("the bogey's card")
                    .pieces([Piece::card_or_back(c)])
                    .note("place it"),
            );
        }
        places
    }

    fn entrant_line(v: &BogeyView, e: &EntrantView, n: &dyn Fn(Seat) -> String) -> Option<String> {
        // The viewer's own game is above while it plays.
        if Some(e.seat) == v.viewer && e.status == Status::Playing {
            return None;
        }
        Some(format!(
            " {:<12} {:<22} turn {:>2} · {:>2} cards · {:>2} col",
            n(e.seat),
            status_word(e),
            e.board.turn,
            e.board.on_table(),
            e.board.columns.len()
        ))
    }

    fn prompt(view: &BogeyView, legal: &[Action]) -> String {
        if view.me().is_some_and(|e| e.board.awaits == Awaits::Bogey) {
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

    fn parse_typed(input: &str) -> Result<Action, String> {
        replay::parse_move(input)
    }

    fn move_text(view: &BogeyView, action: &Action) -> String {
        match view.me() {
            Some(e) => move_words(action, &e.board),
            None => crate::games::ui::words::json_words(
                &serde_json::to_value(action).unwrap_or_default(),
            ),
        }
    }

    fn verified_words(v: &Verified, status: Status<End>) -> String {
        match status {
            Status::Ended(End::Won) => format!(
                "won · {} · {} col · score {}",
                level(v.columns),
                v.columns,
                v.score
            ),
            Status::Stopped => format!("stopped at {} cards", v.on_table),
            s => format!("{} · score {}", s.label(), v.score),
        }
    }

    fn standing(e: &Entrant<Bogey>, v: &Verified, place: usize, name: String) -> String {
        let (on_table, columns, score) = (v.on_table, v.columns, v.score);
        match e.status {
            Status::Stopped => format!("{name} stopped with {on_table} cards on the table"),
            Status::Ended(End::Won) => format!(
                "{place}. {name} won in {columns} columns, {} ({score})",
                level(columns)
            ),
            s => format!(
                "{place}. {name} {} with {on_table} cards on the table ({score})",
                s.words()
            ),
        }
    }

    fn out(race: &TheBogey, e: &Entrant<Bogey>) -> replay::EntrantOut {
        let p = &e.places;
        let seen = |s: &crate::games::race::Spot| {
            race.card_seen(e.seat, Some(e.seat), *s)
                .map(|c| PlayingCard::from_id(c).to_string())
                .unwrap_or_else(|| "??".into())
        };
        replay::EntrantOut {
            seat: e.seat,
            status: e.status,
            columns: p
                .columns
                .iter()
                .map(|c| c.iter().map(seen).collect())
                .collect(),
            hand: p.hand.iter().map(seen).collect(),
            discards: p.discards.iter().map(seen).collect(),
            bogey: p.bogey.as_ref().map(seen),
            on_table: p.on_table(),
            deck_left: p.deck.len(),
            reshuffles: p.reshuffles.len(),
            level: (e.status == Status::Ended(End::Won)).then(|| level(p.columns.len())),
            verdict: race.verdicts.get(&e.seat).cloned(),
        }
    }
}
