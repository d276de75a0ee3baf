//! Scoundrel as people see it: its turns and table in words, the turns a person types, what a
//! script prints; the race's frame around them is the race kit's ([`RaceUi`]).

pub mod replay;
pub mod words;

use crate::cards::{CardId, DeckSpec, PlayingCard};
use crate::engine::Seat;
use crate::games::race::ui::{phase_words, status_word, RaceUi};
use crate::games::race::{Entrant, Status};
use crate::games::scoundrel::game::{
    Action, Board, Dungeon, EntrantView, Places, Scoundrel, ScoundrelView, Setup, Verified,
    DUNGEON, MAX_HEALTH,
};
use crate::games::ui::drawing::{Piece, Spot};
use crate::games::ui::words::{count, says};
use std::fmt::Write;
use words::{card, cards, turn_words};

impl RaceUi for Dungeon {
    const DECK_NAME: &'static str = "the dungeon";
    const MARGIN: &'static str = "  ";
    const RESHUFFLES: bool = false;
    type Out = replay::EntrantOut;

    fn opening(_: &Setup) -> String {
        "the dungeon's 44 cards are shuffled face down".into()
    }

    fn told(
        race: &Scoundrel,
        seat: Seat,
        before: &Places,
        a: &Action,
        viewer: Option<Seat>,
        who: String,
    ) -> Option<String> {
        let room: Vec<Option<CardId>> = before
            .room
            .iter()
            .map(|p| race.card_seen(seat, viewer, (DUNGEON, *p)))
            .collect();
        Some(match a {
            Action::Avoid => format!("{} the room", says(who, "avoids")),
            Action::GiveUp => format!("{} up", says(who, "gives")),
            Action::Face { .. } if room.iter().all(Option::is_none) => {
                format!("{} a turn", says(who, "plays"))
            }
            a => format!("{}: {}", who, turn_words(a, &room)),
        })
    }

    fn render_top(v: &ScoundrelView, _: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!(
            "── Scoundrel · {} on one deal · {} ──\n",
            v.entrants.len(),
            phase_words::<Dungeon>(v.phase)
        );
        let Some(e) = v.me().map(|e| &e.board) else {
            return s;
        };
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
        let avoided = if e.avoided_last {
            "   (avoided the last)"
        } else {
            ""
        };
        let _ = writeln!(s, "  room {}{avoided}", room.join("  "));
        s
    }

    fn entrant_drawn(_: &ScoundrelView, e: &EntrantView, seat: Spot) -> Spot {
        let b = &e.board;
        seat.pieces(b.room.iter().map(|c| Piece::card_or_back(*c)))
            .note(format!("turn {}", e.moves))
            .note(format!("{} left in the dungeon", b.dungeon_left))
            .note_if(
                b.life.is_some(),
                b.life
                    .as_ref()
                    .map(|l| format!("health {} of {MAX_HEALTH}", l.health))
                    .unwrap_or_default(),
            )
            .note_if(b.avoided_last, "avoided the last room")
    }

    fn own_places(_: &ScoundrelView, b: &Board) -> Vec<Spot> {
        let Some(l) = &b.life else {
            return Vec::new();
        };
        // The weapon lies with the monsters it slew on it, as they were stacked.
        let weapon = Spot::new("your weapon")
            .pieces(l.weapon.map(Piece::card))
            .pieces(l.slain.iter().map(|c| Piece::card(*c)));
        vec![match (l.weapon, l.slain.len()) {
            (None, _) => weapon.note("none"),
            (Some(_), 0) => weapon.note("unused"),
            (Some(_), k) => weapon.note(format!("slew {}", count(k as u64, "monster", "monsters"))),
        }]
    }

    fn entrant_line(
        v: &ScoundrelView,
        e: &EntrantView,
        n: &dyn Fn(Seat) -> String,
    ) -> Option<String> {
        let mut line = format!(
            "  {:<12} {:<28} turn {:>2}, {:>2} left",
            n(e.seat),
            status_word(e),
            e.moves,
            e.board.dungeon_left
        );
        if Some(e.seat) != v.viewer {
            if let Some(l) = &e.board.life {
                let _ = write!(line, ", health {}", l.health);
            }
        }
        Some(line)
    }

    fn prompt(view: &ScoundrelView, legal: &[Action]) -> String {
        let avoid = if legal.contains(&Action::Avoid) {
            "'avoid', "
        } else {
            ""
        };
        let need = view.me().map(|e| e.board.room.len().min(3)).unwrap_or(3);
        format!(
            "{avoid}'face' and {need} card numbers in order (add w to fight with the weapon, e.g. \
             face 2w 1 3), or 'give up' > "
        )
    }

    fn parse_typed(input: &str) -> Result<Action, String> {
        replay::parse_turn(input)
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
        let room = view.me().map(|e| e.board.room.clone()).unwrap_or_default();
        turn_words(action, &room)
    }

    fn verified_words(v: &Verified, status: Status<super::End>) -> String {
        if status == Status::Stopped {
            format!("stopped at {} health", v.health)
        } else {
            format!("{} · score {}", status.words(), v.score)
        }
    }

    fn standing(e: &Entrant<Dungeon>, v: &Verified, place: usize, name: String) -> String {
        if e.status == Status::Stopped {
            format!("{name} stopped at {} health", v.score)
        } else {
            format!("{place}. {name} {} ({})", e.status.words(), v.score)
        }
    }

    fn card_named(_: &Setup, name: &str) -> Result<CardId, String> {
        let c = DeckSpec::standard(1)
            .parse(name)
            .map_err(|e| e.to_string())?;
        if !super::game::dungeon_cards().contains(&c) {
            return Err(format!(
                "{name} is not a card of the dungeon (no red faces or red aces)"
            ));
        }
        Ok(c)
    }

    fn out(race: &Scoundrel, e: &Entrant<Dungeon>) -> replay::EntrantOut {
        replay::EntrantOut {
            seat: e.seat,
            status: e.status,
            life: race.tally(e.seat),
            room: e
                .places
                .room
                .iter()
                .filter_map(|p| race.card_seen(e.seat, Some(e.seat), (DUNGEON, *p)))
                .map(|c| PlayingCard::from_id(c).to_string())
                .collect(),
            verdict: race.verdicts.get(&e.seat).cloned(),
        }
    }
}
