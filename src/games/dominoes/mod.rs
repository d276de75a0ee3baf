//! What the domino games (All Fives, Chickenfoot) share: sets and tiles, hands of tiles known
//! by deck position, the deal and the draw as private deals, the reveal of a played tile and of
//! every held tile at a hand's end, the invariants on held tiles, and tiles in words.

use crate::cards::{CardId, DeckSpec};
use crate::engine::{ChanceOutcome, ChanceRequest, DeckId, RuleError, Seat, ToAct};
use serde::{Deserialize, Serialize};

pub mod panel;
use std::collections::BTreeMap;

/// A whole domino set up to the double `max_pip`: tile ids are named in it.
pub fn set(max_pip: u8) -> DeckSpec {
    DeckSpec::Dominoes { max_pip }
}

/// The halves of a tile of this set, low first.
pub fn halves_in(max_pip: u8, id: CardId) -> (u8, u8) {
    set(max_pip).domino(id).unwrap_or((0, 0))
}

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

/// A script's moves name tiles ("SEAT 1-4 WHERE"); the engine's name deck positions: this
/// rewrites the first into "SEAT play POSITION WHERE".
pub fn script_positions(
    max_pip: u8,
    deck: &[CardId],
    actions: &[String],
) -> Result<Vec<String>, String> {
    actions
        .iter()
        .map(|a| match crate::games::script_words(a) {
            Some((seat, w)) if w.len() >= 2 && !matches!(w[0], "draw" | "pass" | "play") => {
                let t = parse_tile(max_pip, w[0])?;
                let p = deck.iter().position(|x| *x == t).unwrap_or_default();
                Ok(format!("{seat} play {p} {}", w[1..].join(" ")))
            }
            _ => Ok(a.clone()),
        })
        .collect()
}

/// A tile in a hand: its deck position, and the tile where this client knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub position: u16,
    pub tile: Option<CardId>,
}

/// Where a hand (or round) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Shuffle, deal (and lot) pending.
    Deal,
    Play,
    /// The hand is over; the held tiles are being shown.
    Show,
    Done,
}

/// Who acts: the pending chance first, then the seat to move until the game is done.
pub fn to_act(pending: &[ChanceRequest], phase: Phase, turn: Seat) -> ToAct {
    if !pending.is_empty() {
        return ToAct::Chance(pending.to_vec());
    }
    match phase {
        Phase::Done => ToAct::Terminal,
        _ => ToAct::Seat(turn),
    }
}

/// The seat to move, if a seat is to move: in play with no chance pending.
pub fn mover(pending: &[ChanceRequest], phase: Phase, turn: Seat) -> Option<Seat> {
    (phase == Phase::Play && pending.is_empty()).then_some(turn)
}

/// A move by `seat` is in turn: the game goes on and `seat` is the one to move.
pub fn check_turn(phase: Phase, mover: Option<Seat>, seat: Seat) -> Result<(), RuleError> {
    if phase == Phase::Done {
        return Err(RuleError::Finished);
    }
    if mover != Some(seat) {
        return Err(RuleError::OutOfTurn {
            seat,
            expected: match mover {
                Some(s) => format!("seat {s} to play"),
                None => "the tiles".into(),
            },
        });
    }
    Ok(())
}

/// The seats of `players` not removed.
pub fn playing(players: u8, removed: &[Seat]) -> Vec<Seat> {
    (0..players).filter(|s| !removed.contains(s)).collect()
}

/// The offenders join the removed seats, each once, in seat order.
pub fn add_removed(removed: &mut Vec<Seat>, offenders: &[Seat]) {
    for o in offenders {
        if !removed.contains(o) {
            removed.push(*o);
        }
    }
    removed.sort_unstable();
}

/// Every seat's tiles, as one client knows them.
pub type Hands = BTreeMap<Seat, Vec<Held>>;

/// A new deck `deck` of `spec` shuffled, `k` tiles dealt privately to each of `players` seats
/// from position 0, and a public die for the lot when `lot`. Returns the requests and the
/// first undealt position.
pub fn deal(
    deck: DeckId,
    spec: DeckSpec,
    players: u8,
    k: u16,
    lot: bool,
) -> (Vec<ChanceRequest>, u16) {
    let mut pending = vec![ChanceRequest::Shuffle { deck, spec }];
    for s in 0..players {
        for i in 0..k {
            pending.push(ChanceRequest::deal(deck, u16::from(s) * k + i, s));
        }
    }
    if lot {
        pending.push(ChanceRequest::RollPublic {
            sides: players,
            count: 1,
            by: None,
        });
    }
    (pending, u16::from(players) * k)
}

/// Takes a deal's outcomes into the hands; returns the lot's seat when the lot was drawn.
pub fn take_deal(
    hands: &mut Hands,
    pending: &[ChanceRequest],
    outcomes: &[ChanceOutcome],
    players: u8,
) -> Option<Seat> {
    let mut lot = None;
    for (req, out) in pending.iter().zip(outcomes) {
        match (req, out) {
            (ChanceRequest::RollPublic { .. }, ChanceOutcome::Rolled { values }) => {
                lot = Some((values[0] - 1) % players);
            }
            (ChanceRequest::Deal { to, .. }, _) => {
                take_draw(hands, to[0], out);
            }
            _ => {}
        }
    }
    lot
}

/// A tile dealt to `seat` (the deal, a draw) goes into its hand; false if `out` is no deal.
pub fn take_draw(hands: &mut Hands, seat: Seat, out: &ChanceOutcome) -> bool {
    let ChanceOutcome::Dealt { position, card, .. } = out else {
        return false;
    };
    hands.entry(seat).or_default().push(Held {
        position: *position,
        tile: *card,
    });
    true
}

/// The tile at `position` in `seat`'s hand.
pub fn held(hands: &Hands, seat: Seat, position: u16) -> Option<&Held> {
    hands
        .get(&seat)
        .and_then(|h| h.iter().find(|x| x.position == position))
}

/// The tile at `position`, if it is held and this client knows it.
pub fn known_tile(hands: &Hands, position: u16) -> Option<CardId> {
    hands
        .values()
        .flatten()
        .find(|h| h.position == position)
        .and_then(|h| h.tile)
}

/// A shown tile becomes known wherever it is held.
pub fn learn(hands: &mut Hands, position: u16, card: CardId) {
    if let Some(h) = hands
        .values_mut()
        .flatten()
        .find(|h| h.position == position)
    {
        h.tile = Some(card);
    }
}

/// Every shown tile of a batch becomes known.
pub fn learn_all(hands: &mut Hands, outcomes: &[ChanceOutcome]) {
    for out in outcomes {
        if let ChanceOutcome::Revealed { position, card, .. } = out {
            learn(hands, *position, *card);
        }
    }
}

/// The reveal of every held tile at a hand's end (everyone must be able to count it).
pub fn show_all(hands: &Hands, deck: DeckId) -> Vec<ChanceRequest> {
    hands
        .values()
        .flatten()
        .map(|h| ChanceRequest::Reveal {
            deck,
            position: h.position,
        })
        .collect()
}

/// The tiles this seat holds and knows: position and tile.
pub fn known(hands: &Hands, seat: Seat) -> impl Iterator<Item = (u16, CardId)> + '_ {
    hands
        .get(&seat)
        .into_iter()
        .flatten()
        .filter_map(|h| h.tile.map(|t| (h.position, t)))
}

/// How many tiles each seat holds.
pub fn counts(hands: &Hands) -> Vec<(Seat, usize)> {
    hands.iter().map(|(s, h)| (*s, h.len())).collect()
}

/// Every play this seat's known tiles allow, ascending: `spots` lists where a tile goes.
pub fn plays<S, A: Ord>(
    hands: &Hands,
    seat: Seat,
    spots: impl Fn(CardId) -> Vec<S>,
    play: impl Fn(u16, S) -> A,
) -> Vec<A> {
    let mut v: Vec<A> = known(hands, seat)
        .flat_map(|(position, t)| {
            spots(t)
                .into_iter()
                .map(|s| (position, s))
                .collect::<Vec<_>>()
        })
        .map(|(p, s)| play(p, s))
        .collect();
    v.sort_unstable();
    v
}

/// The held tiles are each held once and all dealt; returns how many are held. `yard` names
/// the undealt rest in the error.
pub fn check_held(hands: &Hands, next_position: u16, yard: &str) -> Result<usize, String> {
    let mut positions: Vec<u16> = hands.values().flatten().map(|h| h.position).collect();
    let n = positions.len();
    positions.sort_unstable();
    positions.dedup();
    if positions.len() != n {
        return Err("one tile held twice".into());
    }
    if positions.iter().any(|p| *p >= next_position) {
        return Err(format!("a held tile from the {yard}"));
    }
    Ok(n)
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
