//! Shooting Party as people see it: its rooms and moves in words, the moves a person types, what
//! a script prints, its panel's layout; the race's frame around them is the race kit's
//! ([`RaceUi`]).

pub mod replay;
pub mod words;

use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::race::ui::{phase_words, status_word, RaceUi};
use crate::games::race::{Entrant, Phase, Spot, Status};
use crate::games::shooting_party::game::{
    card_short, communique_grade, contact_grade, deck_spec, rank, suit, Action, Board, EntrantView,
    Party, PartyView, Places, Setup, ShootingParty, Verified, RESHUFFLES,
};
use crate::games::ui::drawing::{Piece, Spot as Place};
use crate::games::ui::words::{count, says, whose};
use std::fmt::Write;
use words::{grade, jacks, move_words, row, typed};

impl RaceUi for Party {
    // The room, the aces and the score pile take the table's box; the moves keep a few lines
    // under it.
    const ROOM_BELOW: Option<u16> = Some(8);
    type Out = replay::EntrantOut;

    fn opening(_: &Setup) -> String {
        "the 33 guests are shuffled face down; rooms of four".into()
    }

    // Every move of every entrant would flood the story: a person follows its own game move by
    // move and the others by their contacts.
    fn told(
        race: &ShootingParty,
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
            Action::Contact { .. } => Some(format!(
                "{} contact ({})",
                says(who, "makes"),
                count(u64::from(before.contacts) + 1, "source", "sources")
            )),
            Action::GiveUp => Some(format!("{} up", says(who, "gives"))),
            _ => None,
        }
    }

    fn aftermath(before: &Places, after: &Places, who: String) -> Vec<String> {
        if after.exhausted <= before.exhausted {
            return Vec::new();
        }
        vec![if after.over {
            format!(
                "{} draw pile runs out a third time: the game ends",
                whose(who)
            )
        } else {
            format!(
                "{} draw pile runs out: the discards and unscored aces are shuffled by every \
                 entrant into a new one ({} of {RESHUFFLES})",
                whose(who),
                after.rebuilt()
            )
        }]
    }

    fn render_top(v: &PartyView, _: &dyn Fn(Seat) -> String) -> String {
        let phase = phase_words::<Party>(v.phase);
        let mut s = String::new();
        let Some(e) = v.me().map(|e| &e.board) else {
            let _ = writeln!(
                s,
                " Shooting Party · {} on one deal · {phase}",
                v.entrants.len()
            );
            return s;
        };
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
        let last: Vec<Option<CardId>> = e.discards.iter().rev().take(6).rev().copied().collect();
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
        s
    }

    fn entrant_drawn(_: &PartyView, e: &EntrantView, seat: Place) -> Place {
        let b = &e.board;
        seat.pieces(b.hand.iter().map(|c| drawn(*c)))
            .note(count(u64::from(b.contacts), "contact", "contacts"))
            .note(format!("score {} ({})", b.scored.len(), grade(b)))
            .note(format!("{} left in the pile", b.pile_left))
            .note(format!(
                "pile rebuilt {} of {RESHUFFLES} times",
                b.exhausted.min(RESHUFFLES)
            ))
            .note(count(b.discards.len() as u64, "discard", "discards"))
    }

    fn own_places(_: &PartyView, b: &Board) -> Vec<Place> {
        let laid = |name: &str, cards: &[Option<CardId>]| {
            Place::new(name)
                .pieces(cards.iter().map(|c| drawn(*c)))
                .note_if(cards.is_empty(), "none")
        };
        // The discards as the words show them: the last six, the rest under them.
        let last = b.discards.len().saturating_sub(6);
        let mut places = vec![
            laid("aces up", &b.aces),
            laid("score pile", &b.scored),
            laid("discarded", &b.discards[last..])
                .note_if(last > 0, format!("the last 6 of {}", b.discards.len())),
        ];
        if let Some(pile) = &b.search {
            places.push(
                laid("the draw pile", pile).note("the joker searches it for an ace, top first"),
            );
        }
        places
    }

    fn entrant_line(v: &PartyView, e: &EntrantView, n: &dyn Fn(Seat) -> String) -> Option<String> {
        // The viewer's own game is above while it plays.
        if Some(e.seat) == v.viewer && e.status == Status::Playing {
            return None;
        }
        Some(format!(
            " {:<12} {:<22} {} · score {}",
            n(e.seat),
            status_word(e),
            count(u64::from(e.board.contacts), "contact", "contacts"),
            e.board.scored.len()
        ))
    }

    fn prompt(view: &PartyView, legal: &[Action]) -> String {
        if view.me().is_some_and(|e| e.board.search.is_some()) {
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

    fn parse_typed(input: &str) -> Result<Action, String> {
        replay::parse_move(input)
    }

    fn move_text(view: &PartyView, action: &Action) -> String {
        match view.me() {
            Some(e) => move_words(action, &e.board),
            None => crate::games::ui::words::json_words(
                &serde_json::to_value(action).unwrap_or_default(),
            ),
        }
    }

    fn verified_words(v: &Verified, status: Status<super::End>) -> String {
        if status == Status::Stopped {
            format!("stopped · score {}", v.score)
        } else {
            format!("{} · score {}", status.label(), v.score)
        }
    }

    fn standing(e: &Entrant<Party>, v: &Verified, place: usize, name: String) -> String {
        let what = format!(
            "{} and {} ({} {})",
            count(u64::from(v.contacts), "contact", "contacts"),
            count(u64::from(v.communiques), "communique", "communiques"),
            communique_grade(usize::from(v.communiques)),
            contact_grade(usize::from(v.contacts))
        );
        match e.status {
            Status::Stopped => format!("{name} stopped with {what}"),
            s => format!("{place}. {name} {}: {what}, score {}", s.words(), v.score),
        }
    }

    fn out(race: &ShootingParty, e: &Entrant<Party>) -> replay::EntrantOut {
        let p = &e.places;
        let seen = |s: &Spot| {
            race.card_seen(e.seat, Some(e.seat), *s)
                .map(|c| deck_spec().name(c))
                .unwrap_or_else(|| "??".into())
        };
        let names = |v: &[Spot]| v.iter().map(seen).collect();
        let aces = p.scored.len() - usize::from(p.contacts);
        replay::EntrantOut {
            seat: e.seat,
            status: e.status,
            hand: names(&p.hand),
            discards: names(&p.discards),
            aces: names(&p.aces),
            scored: names(&p.scored),
            contacts: p.contacts,
            pile_left: p.pile.len(),
            exhausted: p.exhausted,
            grade: e.status.finished().then(|| {
                format!(
                    "{} {}",
                    communique_grade(aces),
                    contact_grade(usize::from(p.contacts))
                )
            }),
            verdict: race.verdicts.get(&e.seat).cloned(),
        }
    }
}

/// A guest drawn: the deck's own card ids are not a standard deck's, so the card is drawn by its
/// rank and suit; the joker (the butler) has neither and is drawn by its name.
fn drawn(c: Option<CardId>) -> Piece {
    match c.map(|c| (rank(c), suit(c))) {
        None => Piece::CardBack,
        Some((Some(rank), Some(suit))) => Piece::playing(crate::cards::PlayingCard {
            rank,
            suit,
            deck: 0,
        }),
        Some(_) => Piece::named("joker"),
    }
}
