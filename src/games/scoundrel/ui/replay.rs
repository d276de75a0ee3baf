//! Scoundrel scripts: a race with its dungeon fixed, replayed through the engine. Format:
//! `protocol/rules/scoundrel.md` (§10).

use crate::cards::{CardId, DeckSpec};
use crate::engine::Seat;
use crate::games::scoundrel::game::{Action, Life, Scoundrel, Setup, Status, Take, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub setup: Setup,
    /// The top of the dungeon by position (card names such as "5D", "JS"); the cards not listed
    /// follow in card order (♣, ♦, ♥, ♠, each by rank).
    pub deck: Vec<String>,
    /// What the script shows, for people.
    #[serde(default)]
    pub note: Option<String>,
    /// "SEAT avoid", "SEAT give up", "SEAT face 2w 1 3" (room slots from 1; w: with the weapon;
    /// a last word "fallen" when the turn kills).
    pub actions: Vec<String>,
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntrantOut {
    pub seat: Seat,
    pub status: Status,
    pub life: Option<Life>,
    /// The room now, by card name.
    pub room: Vec<String>,
    pub verdict: Option<Verdict>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    /// By seat.
    pub entrants: BTreeMap<Seat, EntrantOut>,
}

/// A typed turn without its seat: "avoid", "give up", "face 2w 1 3 [fallen]".
pub fn parse_turn(s: &str) -> Result<Action, String> {
    let bad = || {
        format!(
            "'{s}' is not a Scoundrel turn: type 'avoid', 'give up', or 'face' and the room's card \
             numbers in order, a w after a monster fought with the weapon (face 2w 1 3)"
        )
    };
    let words: Vec<&str> = s.split_whitespace().collect();
    match words.as_slice() {
        ["avoid"] => Ok(Action::Avoid),
        ["give", "up"] | ["giveup"] | ["give_up"] => Ok(Action::GiveUp),
        ["face", rest @ ..] if !rest.is_empty() => {
            let (rest, fallen) = match rest.split_last() {
                Some((&"fallen", r)) => (r, true),
                _ => (rest, false),
            };
            let takes = rest
                .iter()
                .map(|w| {
                    let (n, weapon) = match w.strip_suffix(['w', 'W']) {
                        Some(n) => (n, true),
                        None => (*w, false),
                    };
                    let n: u8 = n
                        .parse()
                        .ok()
                        .filter(|n| (1..=4).contains(n))
                        .ok_or_else(bad)?;
                    Ok(Take {
                        slot: n - 1,
                        weapon,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            if takes.is_empty() {
                return Err(bad());
            }
            Ok(Action::Face { takes, fallen })
        }
        _ => Err(bad()),
    }
}

pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let (seat, words) = crate::games::script::script_words(s)
        .ok_or_else(|| format!("'{s}' is not a Scoundrel move: start with the seat number"))?;
    Ok((seat, parse_turn(&words.join(" "))?))
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("Scoundrel script: {e}"))
    }

    pub fn run(&self) -> Result<Output, String> {
        let game = Scoundrel::new(&self.setup).map_err(|e| e.to_string())?;
        let spec = DeckSpec::standard(1);
        let mut deck: Vec<CardId> = Vec::new();
        for name in &self.deck {
            let c = spec.parse(name).map_err(|e| e.to_string())?;
            if !crate::games::scoundrel::game::dungeon_cards().contains(&c) {
                return Err(format!(
                    "{name} is not a card of the dungeon (no red faces or red aces)"
                ));
            }
            if deck.contains(&c) {
                return Err(format!("{name} is listed twice in the dungeon"));
            }
            deck.push(c);
        }
        let rest: Vec<CardId> = crate::games::scoundrel::game::dungeon_cards()
            .into_iter()
            .filter(|c| !deck.contains(c))
            .collect();
        deck.extend(rest);
        let (game, end) = crate::games::script::play_script_with_deck(
            game,
            deck,
            &[],
            &self.actions,
            parse_action,
        )?;
        let entrants = game
            .entrants
            .iter()
            .map(|e| {
                (
                    e.seat,
                    EntrantOut {
                        seat: e.seat,
                        status: e.status,
                        life: game.life_of(e.seat),
                        room: e
                            .places
                            .room
                            .iter()
                            .filter_map(|p| game.card_seen(e.seat, Some(e.seat), *p))
                            .map(|c| crate::cards::PlayingCard::from_id(c).to_string())
                            .collect(),
                        verdict: game.verdicts.get(&e.seat).cloned(),
                    },
                )
            })
            .collect();
        Ok(Output { end, entrants })
    }
}
