//! Scoundrel: its turns and entrants in words.

use crate::cards::{CardId, PlayingCard};
use crate::games::scoundrel::game::Action;

/// A card as people read it: "7♣", "10♦".
pub fn card(c: CardId) -> String {
    let p = PlayingCard::from_id(c);
    format!("{}{}", p.rank_str(), p.suit.symbol())
}

pub fn cards(cs: &[CardId]) -> String {
    cs.iter().map(|c| card(*c)).collect::<Vec<_>>().join(" ")
}

/// A turn in words, with the cards where the reader may see them.
pub fn turn_words(a: &Action, room: &[Option<CardId>]) -> String {
    match a {
        Action::Avoid => "avoid the room".into(),
        Action::GiveUp => "give up (scored as fallen)".into(),
        Action::Face { takes, fallen } => {
            let list: Vec<String> = takes
                .iter()
                .map(|t| {
                    let c = room
                        .get(usize::from(t.slot))
                        .copied()
                        .flatten()
                        .map(card)
                        .unwrap_or_else(|| format!("card {}", t.slot + 1));
                    if t.weapon {
                        format!("{c} with the weapon")
                    } else {
                        c
                    }
                })
                .collect();
            format!(
                "face {}{}",
                list.join(", "),
                if *fallen { " — and fall" } else { "" }
            )
        }
    }
}
