//! Mia scripts: a game with its dice fixed in advance, replayed through the engine. The format
//! is documented in `protocol/rules/mia.md` (§Scripts).

use crate::engine::Seat;
use crate::games::mia::game::{Action, LogEntry, Mia, Ranking, Setup, Throw};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Seats clockwise.
    pub seats: Vec<Seat>,
    #[serde(default = "three")]
    pub lives: u8,
    /// "traditional" (default) or "modern".
    #[serde(default)]
    pub ranking: Option<String>,
    /// Opener of the first round; absent, the first die of `dice` is the toss (1 = first seat).
    #[serde(default)]
    pub first: Option<Seat>,
    /// Dice in rolling order, two per roll.
    #[serde(default)]
    pub dice: Vec<u8>,
    /// "SEAT claim 43", "SEAT raise 55", "SEAT pass", "SEAT reroll", "SEAT challenge".
    pub actions: Vec<String>,
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

fn three() -> u8 {
    3
}

pub type Output = crate::games::script::ScriptOutput<State, LogEntry>;

/// What a Mia script's end shows of the game besides its record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct State {
    pub round: u32,
    pub claim: Option<Throw>,
    pub lives: BTreeMap<Seat, u8>,
}

pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let bad = || {
        format!(
            "'{s}' is not a Mia move: use 'SEAT claim NN', 'SEAT raise NN', 'SEAT pass', \
             'SEAT reroll' or 'SEAT challenge'"
        )
    };
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(bad)?;
    let throw = |w: &str| -> Result<Throw, String> { w.parse().map(Throw).map_err(|_| bad()) };
    let action = match words.as_slice() {
        ["challenge"] => Action::Challenge,
        ["pass"] => Action::Pass,
        ["reroll"] => Action::Reroll,
        ["claim", t] => Action::Claim(throw(t)?),
        ["raise", t] => Action::Raise(throw(t)?),
        _ => return Err(bad()),
    };
    Ok((seat, action))
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("mia script: {e}"))
    }

    pub fn run(&self) -> Result<Output, String> {
        let ranking = match &self.ranking {
            None => Ranking::default(),
            Some(name) => Ranking::parse(name)?,
        };
        // A script gives each cup as it is played, so the next round's cup is rolled after the
        // count, as tables before version 8 roll it (see Perudo's script).
        let game = Mia::new(&Setup {
            seats: self.seats.clone(),
            lives: self.lives,
            ranking,
            rolls_with_opening: false,
            first: self.first,
        })
        .map_err(|e| e.to_string())?;
        crate::games::script::play_and_report(game, &self.dice, &self.actions, parse_action, |g| {
            let state = State {
                round: g.round,
                claim: g.cup.as_ref().and_then(|c| c.claim),
                lives: g.players.iter().map(|p| (p.seat, p.lives)).collect(),
            };
            (state, g.log.clone())
        })
    }
}
