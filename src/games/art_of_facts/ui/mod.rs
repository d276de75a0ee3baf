//! art_of_facts's ui part.

use crate::engine::{Game, Seat};
use crate::games::art_of_facts::deck::Card;
use crate::games::art_of_facts::game::{Action, ArtOfFacts, ArtView, Phase};
use crate::games::art_of_facts::value;
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot};
use crate::games::ui::words::{count, says};
use crate::games::ui::GameUi;
use std::fmt::Write;
use words::{cards_text, line, shown_hand, value_of};

pub mod replay;
pub mod words;

/// The table's header, for its words and its drawing.
fn heading(v: &ArtView) -> String {
    match v.phase {
        Phase::Draw => "drawing for the first deal: highest feather deals".to_string(),
        Phase::Done => format!("over after {}", count(v.hand_no, "hand", "hands")),
        _ => format!(
            "hand {}{} · ante {} · pot {}",
            v.hand_no + 1,
            v.hands.map(|h| format!(" of {h}")).unwrap_or_default(),
            v.ante,
            v.pot
        ),
    }
}

/// The cards `seat` drew for the first deal, if it drew.
fn drew(v: &ArtView, seat: Seat) -> Option<&[Card]> {
    v.draws
        .iter()
        .find(|(x, _)| *x == seat)
        .map(|(_, c)| c.as_slice())
}

impl GameUi for ArtOfFacts {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &ArtView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!("── {} ──\n", heading(v));
        for p in &v.players {
            let cards = if p.cards.is_empty() {
                drew(v, p.seat)
                    .map(|c| format!("drew {}", cards_text(c)))
                    .unwrap_or_default()
            } else {
                let mut t: Vec<String> = p
                    .cards
                    .iter()
                    .map(|c| c.as_ref().map(Card::name).unwrap_or_else(|| "??".into()))
                    .collect();
                if p.face_down {
                    t.push("[face down]".into());
                }
                t.join(" · ")
            };
            let _ = writeln!(
                s,
                "  {:<12} {:>6} chips{}{}  {cards}{}{}",
                n(p.seat),
                p.bank,
                if v.dealer == Some(p.seat) { " (D)" } else { "" },
                if p.status == "playing" {
                    String::new()
                } else {
                    format!(" [{}]", p.status)
                },
                p.declared.map(|d| format!("  = {d}")).unwrap_or_default(),
                if v.to_act == Some(p.seat) { " ◀" } else { "" },
            );
        }
        s
    }

    fn drawing(v: &ArtView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let title = heading(v);
        let seats = v.players.iter().map(|p| {
            // Before the first deal a seat's place shows the cards it drew for the deal.
            let pieces: Vec<Piece> = if p.cards.is_empty() {
                drew(v, p.seat)
                    .map(|c| c.iter().map(|c| Piece::named(c.name())).collect())
                    .unwrap_or_default()
            } else {
                p.cards
                    .iter()
                    .map(|c| {
                        c.as_ref()
                            .map_or(Piece::CardBack, |c| Piece::named(c.name()))
                    })
                    .chain(p.face_down.then_some(Piece::CardBack))
                    .collect()
            };
            Spot::seat(p.seat, v.viewer, n)
                .pieces(pieces)
                .note(format!("{} chips", p.bank))
                .note_if(v.dealer == Some(p.seat), "dealer")
                .note_if(
                    p.face_down && !p.cards.is_empty(),
                    "the last card is face down",
                )
                .note_if(p.status != "playing", p.status)
                .note_if(
                    p.declared.is_some(),
                    format!("declared {}", p.declared.unwrap_or_default()),
                )
                .turn(v.to_act == Some(p.seat))
                .out(p.status != "playing")
        });
        Some(Drawing::new(title).spots(seats))
    }

    fn prompt(view: &ArtView, _legal: &[Action]) -> String {
        match view.phase {
            Phase::Swap { .. } => {
                "keep, or swap 1/2/3 for your face-down card (unseen; final)? > ".into()
            }
            Phase::Declare { .. } => {
                "declare: pick a line, or type e.g. '+1 -2 ops 3' (slots 1-3) > ".into()
            }
            _ => "> ".into(),
        }
    }

    fn parse_move(input: &str, view: &ArtView, legal: &[Action]) -> Result<Action, String> {
        let t = input.trim().to_ascii_lowercase();
        if t == "best" {
            // The highest value on offer.
            let me = view.viewer.ok_or("you are not seated")?;
            return legal
                .iter()
                .filter_map(|a| match a {
                    Action::Declare(d) => Some((value_of(view, me, d)?, a.clone())),
                    _ => None,
                })
                .max_by_key(|(v, _)| *v)
                .map(|(_, a)| a)
                .ok_or_else(|| "there is nothing to declare now".into());
        }
        crate::games::art_of_facts::ui::replay::parse_action(&format!("0 {t}"), true)
            .map(|(_, a)| a)
    }

    fn move_text(view: &ArtView, action: &Action) -> String {
        match action {
            Action::Keep => "keep the three cards".into(),
            Action::Swap { slot } => {
                let me = view.viewer.and_then(|s| view.player(s));
                let card = me
                    .and_then(|p| p.cards.get(usize::from(*slot)).cloned().flatten())
                    .map(|c| c.name())
                    .unwrap_or_else(|| format!("card {}", slot + 1));
                format!("swap {card} for the face-down card")
            }
            Action::Declare(d) => {
                let Some(me) = view.viewer else {
                    return "declare".into();
                };
                let (ids, cards) = shown_hand(view, me);
                value::words(&cards, &ids, d)
            }
        }
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        match self.outcome() {
            Some(o) => {
                let w: Vec<String> = o.winners.iter().map(|s| names(*s)).collect();
                let who = if w.len() == 1 {
                    says(w[0].clone(), "wins")
                } else {
                    format!("{} share the win", w.join(" and "))
                };
                format!(
                    "{who} with the most chips after {}",
                    count(self.hand_no, "hand", "hands")
                )
            }
            None => "the game is not over".into(),
        }
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::art_of_facts::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
