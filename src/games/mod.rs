//! One folder per game. Each implements [`crate::engine::Game`], ships its variant config, its
//! view, its rules spec in `protocol/rules/`, and passes the generic simulation test.

pub mod abandon_ship;
pub mod all_fives;
pub mod art_of_facts;
pub mod chickenfoot;
pub mod dominoes;
pub mod high_card;
pub mod insider;
pub mod lamarckian_poker;
pub mod mia;
pub mod panel;
pub mod perudo;
pub mod race;
pub mod reformation;
pub mod registry;
pub mod scoundrel;
pub mod shooting_party;
pub mod the_bogey;
pub mod tolerance;

use crate::engine::{Outcome, RuleError, Seat};

/// Checks a dice game's seats (`min..=max` players, none listed twice) and finds the chosen
/// first player among them, if any: the setup checks Perudo and Mia share.
pub fn check_seating(
    game: &str,
    seats: &[Seat],
    min: usize,
    max: usize,
    first: Option<Seat>,
) -> Result<Option<usize>, RuleError> {
    let n = seats.len();
    if !(min..=max).contains(&n) {
        return Err(RuleError::Setup(format!(
            "{game} needs {min} to {max} players, not {n}"
        )));
    }
    let mut seen = std::collections::BTreeSet::new();
    for s in seats {
        if !seen.insert(*s) {
            return Err(RuleError::Setup(format!("seat {s} is listed twice")));
        }
    }
    first
        .map(|f| {
            seats
                .iter()
                .position(|s| *s == f)
                .ok_or_else(|| RuleError::Setup(format!("first player {f} is not seated")))
        })
        .transpose()
}

/// Payoffs of a last-player-standing game (Perudo, Mia): the winner takes one point from every
/// other player, so the payoffs sum to zero like chips do.
pub fn elimination_outcome(seats: &[Seat], winner: Seat) -> Outcome {
    let others = seats.len() as i64 - 1;
    Outcome {
        payoffs: seats
            .iter()
            .map(|&s| (s, if s == winner { others } else { -1 }))
            .collect(),
        winners: vec![winner],
    }
}

/// Payoffs of a game that ended because the table removed `offenders` (PROTOCOL.md, forfeits):
/// each offender loses one point to every other seat, nobody else loses, and there is no winner.
pub fn forfeit_outcome(seats: &[Seat], offenders: &[Seat]) -> Outcome {
    let k = offenders.len() as i64;
    let others = seats.len() as i64 - k;
    Outcome {
        payoffs: seats
            .iter()
            .map(|s| (*s, if offenders.contains(s) { -others } else { k }))
            .collect(),
        winners: Vec::new(),
    }
}

/// A rule error stopping a script, with the index of the refused move (none: the script ran out).
pub type ScriptFailure = (String, Option<usize>);

/// Plays scripted moves with scripted dice until the moves run out. Returns the state reached,
/// the first rule error with the index of the refused move, and the dice never rolled. A script
/// may stop mid-game: once its moves and dice are both spent, no further roll is asked for.
pub fn run_script<G: crate::engine::Game>(
    game: G,
    dice: Vec<u8>,
    moves: &[(Seat, G::Action)],
) -> Result<(G, Option<ScriptFailure>, usize), String> {
    run_script_with_deck(game, Vec::new(), dice, moves)
}

/// [`run_script`] with the cards of every deck fixed too (position order).
pub fn run_script_with_deck<G: crate::engine::Game>(
    game: G,
    deck: Vec<crate::cards::CardId>,
    dice: Vec<u8>,
    moves: &[(Seat, G::Action)],
) -> Result<(G, Option<ScriptFailure>, usize), String> {
    run_script_with(game, crate::engine::sim::Script::new(deck, dice), moves)
}

/// [`run_script`] with chance answered by `chance` (decks fixed one by one, dice).
pub fn run_script_with<G: crate::engine::Game>(
    mut game: G,
    mut chance: crate::engine::sim::Script,
    moves: &[(Seat, G::Action)],
) -> Result<(G, Option<ScriptFailure>, usize), String> {
    use crate::engine::{ChanceRequest, ToAct};
    let mut next = 0;
    let mut failure = None;
    loop {
        match game.to_act() {
            ToAct::Terminal => {
                if next < moves.len() {
                    failure = Some((crate::engine::RuleError::Finished.to_string(), Some(next)));
                }
                break;
            }
            ToAct::Chance(reqs) => {
                let rolls = reqs.iter().any(|r| {
                    matches!(
                        r,
                        ChanceRequest::RollPrivate { .. } | ChanceRequest::RollPublic { .. }
                    )
                });
                if rolls && next == moves.len() && chance.unused_dice() == 0 {
                    break;
                }
                let outs = crate::engine::sim::fulfil_all(&mut chance, &reqs)?;
                game.apply_chance(&outs).map_err(|e| e.to_string())?;
            }
            ToAct::Seat(_) | ToAct::Sealed(_) => {
                let Some((seat, action)) = moves.get(next) else {
                    break;
                };
                if let Err(e) = game.apply(*seat, action) {
                    failure = Some((e.to_string(), Some(next)));
                    break;
                }
                next += 1;
            }
        }
    }
    Ok((game, failure, chance.unused_dice()))
}

/// The part of a dice-game script's output every game shares (`tolerance replay`); each game's
/// output flattens it in first and adds its own state.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ScriptEnd {
    pub game: &'static str,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_action: Option<usize>,
    pub finished: bool,
    pub winner: Option<Seat>,
}

/// Reads one scripted move ("SEAT …") of game `G`.
pub type ParseMove<G> = fn(&str) -> Result<(Seat, <G as crate::engine::Game>::Action), String>;

/// Parses a script's moves with `parse`, plays them with its dice through [`run_script`], and
/// reports the shared part of the output. Dice left unrolled by a script that ran cleanly are
/// a setup error.
pub fn play_script<G: crate::engine::Game>(
    game: G,
    dice: &[u8],
    actions: &[String],
    parse: ParseMove<G>,
) -> Result<(G, ScriptEnd), String> {
    play_script_with_deck(game, Vec::new(), dice, actions, parse)
}

/// [`play_script`] with every deck's cards fixed (position order).
pub fn play_script_with_deck<G: crate::engine::Game>(
    game: G,
    deck: Vec<crate::cards::CardId>,
    dice: &[u8],
    actions: &[String],
    parse: ParseMove<G>,
) -> Result<(G, ScriptEnd), String> {
    play_script_with(
        game,
        crate::engine::sim::Script::new(deck, dice.to_vec()),
        actions,
        parse,
    )
}

/// [`play_script`] with chance answered by `chance` (decks fixed one by one, dice).
pub fn play_script_with<G: crate::engine::Game>(
    game: G,
    chance: crate::engine::sim::Script,
    actions: &[String],
    parse: ParseMove<G>,
) -> Result<(G, ScriptEnd), String> {
    let moves: Vec<(Seat, G::Action)> =
        actions.iter().map(|a| parse(a)).collect::<Result<_, _>>()?;
    let (game, failure, unused) = run_script_with(game, chance, &moves)?;
    if failure.is_none() && unused > 0 {
        return Err(format!("{unused} scripted dice were never rolled"));
    }
    let end = ScriptEnd {
        game: G::NAME,
        ok: failure.is_none(),
        at_action: failure.as_ref().and_then(|f| f.1),
        error: failure.map(|f| f.0),
        finished: game.is_terminal(),
        winner: game.outcome().and_then(|o| o.winners.first().copied()),
    };
    Ok((game, end))
}

impl ScriptEnd {
    fn replayed(&self, out: &impl serde::Serialize) -> Replayed {
        Replayed {
            ok: self.ok,
            error: self.error.clone(),
            at_action: self.at_action,
            json: serde_json::to_value(out).expect("outputs serialise"),
        }
    }
}

/// The outcome of `tolerance replay` for any game: the JSON to print and whether the script was
/// legal throughout (with the error and the index of the refused move).
pub struct Replayed {
    pub json: serde_json::Value,
    pub ok: bool,
    pub error: Option<String>,
    pub at_action: Option<usize>,
}

/// Runs a game script, choosing the game by its `game` field (absent: Tolerance hand script).
pub fn replay_script(text: &str) -> Result<Replayed, String> {
    let mut value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("game script: {e}"))?;
    let game = match value.as_object_mut() {
        Some(obj) => match obj.remove("game") {
            None => registry::DEFAULT_GAME.to_string(),
            Some(serde_json::Value::String(s)) => s,
            Some(other) => return Err(format!("game script: `game` must be a name, not {other}")),
        },
        None => return Err("game script: expected a JSON object".into()),
    };
    struct Replay(String);
    impl registry::Visit for Replay {
        type Out = Result<Replayed, String>;
        fn visit<G: registry::TableGame>(self) -> Self::Out {
            G::replay(&self.0)
        }
    }
    registry::with_game(&game, Replay(value.to_string()))
        .map_err(|e| format!("game script: {e}"))?
}

/// Splits "SEAT WORD ARGS..." and names the seat, for the games' script move parsers.
pub(crate) fn script_words(s: &str) -> Option<(Seat, Vec<&str>)> {
    let mut words = s.split_whitespace();
    let seat = words.next()?.parse().ok()?;
    Some((seat, words.collect()))
}
