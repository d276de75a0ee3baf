//! All Fives scripts: a game with its tiles and lot fixed, replayed through the engine.
//! Format: `protocol/rules/all-fives.md` (§12).

use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::all_fives::game::{Action, AllFives, End, Entry, Setup, MAX_PIP};
use crate::games::dominoes;
use serde::Serialize;

/// An All Fives script: moves are "SEAT a-b END" (END: lead, west, east, north, south),
/// "SEAT draw", "SEAT pass".
pub type Script = dominoes::ui::Script<Setup>;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    pub hand: u32,
    pub scores: Vec<i64>,
    /// The points each tile set scored, in order.
    pub scored: Vec<i64>,
    pub count: u32,
    pub log: Vec<Entry>,
}

/// A tile by its halves in either order: "1-4", "[4|1]", "14".
pub fn parse_tile(s: &str) -> Result<CardId, String> {
    crate::games::dominoes::ui::parse_tile(MAX_PIP, s)
}

/// The engine's form of a move: "SEAT play POSITION END", "SEAT draw", "SEAT pass".
pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let bad =
        || format!("'{s}' is not an All Fives move: 'SEAT 1-4 east', 'SEAT draw', 'SEAT pass'");
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(bad)?;
    let action = match words.as_slice() {
        ["draw"] => Action::Draw,
        ["pass"] => Action::Pass,
        ["play", p, end] => Action::Play {
            position: p.parse().map_err(|_| bad())?,
            end: match *end {
                "lead" => End::Lead,
                "west" => End::West,
                "east" => End::East,
                "north" => End::North,
                "south" => End::South,
                _ => return Err(bad()),
            },
        },
        _ => return Err(bad()),
    };
    Ok((seat, action))
}

impl dominoes::ui::Script<Setup> {
    pub fn run(&self) -> Result<Output, String> {
        let game = AllFives::new(&self.setup).map_err(|e| e.to_string())?;
        let (game, end) = self.play(game, MAX_PIP, None, parse_action)?;
        Ok(Output {
            end,
            hand: game.hand + 1,
            scores: game.scores.clone(),
            scored: game
                .log
                .iter()
                .filter_map(|e| match e {
                    Entry::Played { scored, .. } => Some(*scored),
                    _ => None,
                })
                .collect(),
            count: game.layout.count(),
            log: game.log.clone(),
        })
    }
}
