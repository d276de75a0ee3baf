//! Perudo scripts: a game with its dice fixed in advance, replayed through the engine. The
//! format is documented in `protocol/rules/perudo.md` (§Scripts).

use crate::engine::Seat;
use crate::games::perudo::game::{Action, Bid, LogEntry, Perudo, Setup};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Seats clockwise.
    pub seats: Vec<Seat>,
    #[serde(default = "five")]
    pub dice_each: u8,
    /// Opener of the first round; absent, the first die of `dice` is the toss (1 = first seat).
    #[serde(default)]
    pub first: Option<Seat>,
    /// Dice in rolling order: each round, every cup with dice, clockwise from the first seat.
    #[serde(default)]
    pub dice: Vec<u8>,
    /// "SEAT bid QUANTITY FACE" or "SEAT dudo".
    pub actions: Vec<String>,
    /// Expected output (golden tests compare it; `replay` ignores it).
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

fn five() -> u8 {
    5
}

pub type Output = crate::games::script::ScriptOutput<State, LogEntry>;

/// What a Perudo script's end shows of the game besides its record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct State {
    pub round: u32,
    pub putana: bool,
    pub bid: Option<Bid>,
    pub dice_left: BTreeMap<Seat, u8>,
}

pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let bad = || format!("'{s}' is not a Perudo move: use 'SEAT bid QUANTITY FACE' or 'SEAT dudo'");
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(bad)?;
    let action = match words.as_slice() {
        ["dudo"] => Action::Dudo,
        ["bid", q, f] => Action::Bid(Bid {
            quantity: q.parse().map_err(|_| bad())?,
            face: f.parse().map_err(|_| bad())?,
        }),
        _ => return Err(bad()),
    };
    Ok((seat, action))
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("perudo script: {e}"))
    }

    /// Runs the script. Setup problems are `Err`; rule errors are reported in the output.
    pub fn run(&self) -> Result<Output, String> {
        // A script gives each round's cups as that round plays them, so its dice are rolled
        // after the count, as tables before version 8 roll them: in which pass the cups are
        // rolled changes no rule a script checks.
        let game = Perudo::new(&Setup {
            seats: self.seats.clone(),
            dice_each: self.dice_each,
            first: self.first,
            rolls_with_opening: false,
        })
        .map_err(|e| e.to_string())?;
        crate::games::script::play_and_report(game, &self.dice, &self.actions, parse_action, |g| {
            let state = State {
                round: g.round,
                putana: g.putana,
                bid: g.bid,
                dice_left: g.players.iter().map(|p| (p.seat, p.dice_left)).collect(),
            };
            (state, g.log.clone())
        })
    }
}
