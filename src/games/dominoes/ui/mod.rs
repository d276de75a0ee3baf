//! What the domino games' words share: tiles in words and typed, the moves a person types,
//! scripts with fixed tiles, hand sizes in words; and (in [`panel`]) the terminal panels' parts.

#[cfg(feature = "terminal")]
pub mod panel;

use super::{halves_in, set};
use crate::cards::CardId;
use crate::engine::Seat;
use serde::Deserialize;

/// A tile in words: "[3|5]".
pub fn tile_text(t: (u8, u8)) -> String {
    format!("[{}|{}]", t.0, t.1)
}

/// A tile typed by its two numbers in either order ("3-5", "[5|3]", "10-12"), low first.
/// Single digits may also be written together ("35").
pub fn read_halves(word: &str) -> Option<(u8, u8)> {
    let nums: Vec<u8> = word
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().ok())
        .collect::<Option<_>>()?;
    let [a, b] = match nums[..] {
        [a, b] => [a, b],
        [ab] if (10..100).contains(&ab)
            && word.chars().filter(char::is_ascii_digit).count() == 2 =>
        {
            [ab / 10, ab % 10]
        }
        _ => return None,
    };
    Some((a.min(b), a.max(b)))
}

/// A tile of the double-`max_pip` set, for scripts: "1-4", "[4|1]", "14", "10-12".
pub fn parse_tile(max_pip: u8, s: &str) -> Result<CardId, String> {
    let (a, b) =
        read_halves(s).ok_or_else(|| format!("'{s}' is not a tile: write its halves, as 1-4"))?;
    set(max_pip)
        .parse(&tile_text((a, b)))
        .map_err(|_| format!("'{s}' is not a {} tile", set_name(max_pip)))
}

/// The set in words: "double-six".
pub fn set_name(max_pip: u8) -> String {
    match max_pip {
        6 => "double-six".into(),
        9 => "double-nine".into(),
        12 => "double-twelve".into(),
        15 => "double-fifteen".into(),
        m => format!("double-{m}"),
    }
}

/// Every tile of the double-`max_pip` set: the named ones first in their order, then the rest
/// in set order (a script's deck), leaving out `skip`.
pub fn script_deck(
    max_pip: u8,
    named: &[String],
    skip: Option<CardId>,
) -> Result<Vec<CardId>, String> {
    let mut deck: Vec<CardId> = named
        .iter()
        .map(|t| parse_tile(max_pip, t))
        .collect::<Result<_, _>>()?;
    if let Some(s) = skip.filter(|s| deck.contains(s)) {
        return Err(format!(
            "the script's deck names {}, which is not in this deck",
            tile_text(halves_in(max_pip, s))
        ));
    }
    let len = set(max_pip).len() as u16;
    let rest: Vec<CardId> = (0..len)
        .map(CardId)
        .filter(|t| !deck.contains(t) && Some(*t) != skip)
        .collect();
    deck.extend(rest);
    let want = usize::from(len) - usize::from(skip.is_some());
    if deck.len() != want {
        return Err("the script's deck names a tile twice".into());
    }
    Ok(deck)
}

/// A domino game's script for `tolerance replay`: a game with its tiles and lots fixed. Each
/// game reads the moves and runs it (`all_fives::replay`, `chickenfoot::replay`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script<S> {
    pub setup: S,
    /// Every deck from position 0 ("1-4" or "[1|4]"); the tiles not named follow in set order,
    /// so a script names only the hands it deals and the draws it makes.
    pub deck: Vec<String>,
    /// The lots (1 = seat 0).
    pub dice: Vec<u8>,
    /// "SEAT TILE WHERE", "SEAT draw", "SEAT pass".
    pub actions: Vec<String>,
    /// Expected output (golden tests compare it; `replay` ignores it).
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

impl<S: serde::de::DeserializeOwned> Script<S> {
    /// Reads a script of the game called `title`.
    pub fn parse(text: &str, title: &str) -> Result<Script<S>, String> {
        serde_json::from_str(text).map_err(|e| format!("{title} script: {e}"))
    }
}

impl<S> Script<S> {
    /// Plays the script on `game` (a double-`max_pip` set, less `skip`), its moves read by
    /// `parse`.
    pub fn play<G: crate::engine::Game>(
        &self,
        game: G,
        max_pip: u8,
        skip: Option<CardId>,
        parse: crate::games::script::ParseMove<G>,
    ) -> Result<(G, crate::games::script::ScriptEnd), String> {
        let deck = script_deck(max_pip, &self.deck, skip)?;
        // Scripts name tiles; the engine's moves name deck positions.
        let actions = script_positions(max_pip, &deck, &self.actions)?;
        crate::games::script::play_script_with_deck(game, deck, &self.dice, &actions, parse)
    }
}

/// A script's moves name tiles ("SEAT 1-4 WHERE"); the engine's name deck positions: this
/// rewrites the first into "SEAT play POSITION WHERE".
pub fn script_positions(
    max_pip: u8,
    deck: &[CardId],
    actions: &[String],
) -> Result<Vec<String>, String> {
    actions
        .iter()
        .map(|a| match crate::games::script::script_words(a) {
            Some((seat, w)) if w.len() >= 2 && !matches!(w[0], "draw" | "pass" | "play") => {
                let t = parse_tile(max_pip, w[0])?;
                let p = deck.iter().position(|x| *x == t).unwrap_or_default();
                Ok(format!("{seat} play {p} {}", w[1..].join(" ")))
            }
            _ => Ok(a.clone()),
        })
        .collect()
}

/// Names joined by "and": "Ann and Bob".
pub fn joined(seats: &[Seat], n: &dyn Fn(Seat) -> String) -> String {
    seats
        .iter()
        .map(|s| n(*s))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// "tiles held: Ann 4, Bob 5 ◀" — every hand's size, the seat to move marked.
pub fn held_line(held: &[(Seat, usize)], to_act: &[Seat], n: &dyn Fn(Seat) -> String) -> String {
    held.iter()
        .map(|(seat, k)| {
            format!(
                "{} {k}{}",
                n(*seat),
                if to_act.contains(seat) { " ◀" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The seats of a domino game drawn (the page): the viewer's `own` tiles face up, everyone
/// else's as many backs as they hold, the seats to act marked.
pub fn held_spots(
    held: &[(Seat, usize)],
    to_act: &[Seat],
    viewer: Option<Seat>,
    own: &[(u8, u8)],
    n: &dyn Fn(Seat) -> String,
) -> Vec<crate::games::ui::drawing::Spot> {
    use crate::games::ui::drawing::{Piece, Spot};
    held.iter()
        .map(|&(seat, k)| {
            let spot = Spot::seat(seat, viewer, n);
            let tiles: Vec<Piece> = if spot.you {
                own.iter().map(|t| Piece::tile(*t)).collect()
            } else {
                vec![Piece::TileBack; k]
            };
            spot.pieces(tiles)
                .note(crate::games::ui::words::count(k as u64, "tile", "tiles"))
                .turn(to_act.contains(&seat))
        })
        .collect()
}

/// A typed move's first word, for the games' move parsers: draw, pass, or a tile the viewer
/// holds (its deck position). `tiles` are the viewer's tiles by position and halves.
pub enum Typed {
    Draw,
    Pass,
    Tile { position: u16, halves: (u8, u8) },
}

pub fn read_move(words: &[String], tiles: &[(u16, (u8, u8))]) -> Result<Typed, String> {
    let Some(first) = words.first() else {
        return Err("type a tile (3-5), draw or pass".into());
    };
    match first.as_str() {
        "draw" | "d" => return Ok(Typed::Draw),
        "pass" | "p" => return Ok(Typed::Pass),
        _ => {}
    }
    let Some((lo, hi)) = read_halves(first) else {
        return Err(format!(
            "'{first}' is not a tile: type its two numbers, as 3-5"
        ));
    };
    tiles
        .iter()
        .find(|(_, t)| *t == (lo, hi))
        .map(|(p, _)| Typed::Tile {
            position: *p,
            halves: (lo, hi),
        })
        .ok_or_else(|| format!("you have no {}", tile_text((lo, hi))))
}

/// A typed move split into lower-case words.
pub fn words(input: &str) -> Vec<String> {
    input
        .split_whitespace()
        .map(|w| w.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_read_in_either_order_and_in_many_forms() {
        assert_eq!(read_halves("3-5"), Some((3, 5)));
        assert_eq!(read_halves("[5|3]"), Some((3, 5)));
        assert_eq!(read_halves("53"), Some((3, 5)));
        assert_eq!(read_halves("12-10"), Some((10, 12)));
        assert_eq!(read_halves("1-2-3"), None);
        assert_eq!(read_halves("x"), None);
        assert_eq!(read_halves("123"), None);
        assert_eq!(tile_text((3, 5)), "[3|5]");
        assert_eq!(
            parse_tile(6, "4-1"),
            set(6).parse("[1|4]").map_err(|e| e.to_string())
        );
        assert!(parse_tile(6, "6-7").unwrap_err().contains("double-six"));
    }

    #[test]
    fn a_script_deck_is_every_tile_once() {
        let d = script_deck(6, &["1-4".into(), "0-0".into()], None).unwrap();
        assert_eq!(d.len(), 28);
        assert_eq!(halves_in(6, d[0]), (1, 4));
        assert!(script_deck(6, &["1-4".into(), "4-1".into()], None).is_err());
        let skip = parse_tile(9, "9-9").unwrap();
        assert_eq!(script_deck(9, &[], Some(skip)).unwrap().len(), 54);
        assert!(script_deck(9, &["9-9".into()], Some(skip)).is_err());
    }
}
