//! Scoundrel's part of a script (the race kit's format, `protocol/rules/scoundrel.md` §10):
//! its turns as typed — "avoid", "give up", "face 2w 1 3" (room slots from 1; w: with the
//! weapon; a last word "fallen" when the turn kills) — and an entrant as a script ends.

use crate::engine::Seat;
use crate::games::scoundrel::game::{Action, Life, Status, Take, Verdict};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntrantOut {
    pub seat: Seat,
    pub status: Status,
    pub life: Option<Life>,
    /// The room now, by card name.
    pub room: Vec<String>,
    pub verdict: Option<Verdict>,
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
