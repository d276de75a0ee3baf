//! Game scripts: moves played with fixed cards and dice, for golden tests and `tolerance
//! replay`. A game's `ui/replay.rs` reads its own script format and plays it through here.

use crate::cards::CardId;
use crate::engine::sim::{fulfil_all, Script};
use crate::engine::{ChanceRequest, Game, RuleError, Seat, ToAct};

/// A rule error stopping a script, with the index of the refused move (none: the script ran out).
pub type ScriptFailure = (String, Option<usize>);

/// Plays scripted moves with scripted dice until the moves run out. Returns the state reached,
/// the first rule error with the index of the refused move, and the dice never rolled. A script
/// may stop mid-game: once its moves and dice are both spent, no further roll is asked for.
pub fn run_script<G: Game>(
    game: G,
    dice: Vec<u8>,
    moves: &[(Seat, G::Action)],
) -> Result<(G, Option<ScriptFailure>, usize), String> {
    run_script_with_deck(game, Vec::new(), dice, moves)
}

/// [`run_script`] with the cards of every deck fixed too (position order).
pub fn run_script_with_deck<G: Game>(
    game: G,
    deck: Vec<CardId>,
    dice: Vec<u8>,
    moves: &[(Seat, G::Action)],
) -> Result<(G, Option<ScriptFailure>, usize), String> {
    run_script_with(game, Script::new(deck, dice), moves)
}

/// [`run_script`] with chance answered by `chance` (decks fixed one by one, dice).
pub fn run_script_with<G: Game>(
    game: G,
    chance: Script,
    moves: &[(Seat, G::Action)],
) -> Result<(G, Option<ScriptFailure>, usize), String> {
    run_script_by(game, chance, moves.len(), |_, i| Ok(moves[i].clone()))
}

/// [`run_script_with`] with each of the `moves` read when it is due: `move_at(game, i)` gives
/// move `i` in the state it is played in (a script naming tiles finds them in the deck of the
/// round being played). A move it cannot read stops the script as a setup error.
pub fn run_script_by<G: Game>(
    mut game: G,
    mut chance: Script,
    moves: usize,
    move_at: impl Fn(&G, usize) -> Result<(Seat, G::Action), String>,
) -> Result<(G, Option<ScriptFailure>, usize), String> {
    let mut next = 0;
    let mut failure = None;
    loop {
        match game.to_act() {
            ToAct::Terminal => {
                if next < moves {
                    failure = Some((RuleError::Finished.to_string(), Some(next)));
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
                if rolls && next == moves && chance.unused_dice() == 0 {
                    break;
                }
                let outs = fulfil_all(&mut chance, &reqs)?;
                game.apply_chance(&outs).map_err(|e| e.to_string())?;
            }
            ToAct::Seat(_) | ToAct::Sealed(_) => {
                if next == moves {
                    break;
                }
                let (seat, action) = move_at(&game, next)?;
                if let Err(e) = game.apply(seat, &action) {
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
pub type ParseMove<G> = fn(&str) -> Result<(Seat, <G as Game>::Action), String>;

/// Parses a script's moves with `parse`, plays them with its dice through [`run_script`], and
/// reports the shared part of the output. Dice left unrolled by a script that ran cleanly are
/// a setup error.
pub fn play_script<G: Game>(
    game: G,
    dice: &[u8],
    actions: &[String],
    parse: ParseMove<G>,
) -> Result<(G, ScriptEnd), String> {
    play_script_with_deck(game, Vec::new(), dice, actions, parse)
}

/// What a script prints (`tolerance replay`) for a game that reports its own part `T` beside how
/// it ended and its record.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ScriptOutput<T, E> {
    /// Game, legality, the refused move, whether it finished and who won.
    #[serde(flatten)]
    pub end: ScriptEnd,
    #[serde(flatten)]
    pub game: T,
    pub log: Vec<E>,
}

/// [`play_script`], reported: `report` reads the game's own part and its record from the game
/// at its end.
pub fn play_and_report<G: Game, T, E>(
    game: G,
    dice: &[u8],
    actions: &[String],
    parse: ParseMove<G>,
    report: impl FnOnce(&G) -> (T, Vec<E>),
) -> Result<ScriptOutput<T, E>, String> {
    let (game, end) = play_script(game, dice, actions, parse)?;
    let (game, log) = report(&game);
    Ok(ScriptOutput { end, game, log })
}

/// [`play_script`] with every deck's cards fixed (position order).
pub fn play_script_with_deck<G: Game>(
    game: G,
    deck: Vec<CardId>,
    dice: &[u8],
    actions: &[String],
    parse: ParseMove<G>,
) -> Result<(G, ScriptEnd), String> {
    play_script_with(game, Script::new(deck, dice.to_vec()), actions, parse)
}

/// [`play_script`] with chance answered by `chance` (decks fixed one by one, dice).
pub fn play_script_with<G: Game>(
    game: G,
    chance: Script,
    actions: &[String],
    parse: ParseMove<G>,
) -> Result<(G, ScriptEnd), String> {
    let moves: Vec<(Seat, G::Action)> =
        actions.iter().map(|a| parse(a)).collect::<Result<_, _>>()?;
    play_script_by(game, chance, moves.len(), |_, i| Ok(moves[i].clone()))
}

/// [`play_script_with`] with each move read when it is due ([`run_script_by`]).
pub fn play_script_by<G: Game>(
    game: G,
    chance: Script,
    moves: usize,
    move_at: impl Fn(&G, usize) -> Result<(Seat, G::Action), String>,
) -> Result<(G, ScriptEnd), String> {
    let (game, failure, unused) = run_script_by(game, chance, moves, move_at)?;
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
    /// The outcome `tolerance replay` prints: this end with the game's own output `out`.
    pub fn replayed(&self, out: &impl serde::Serialize) -> Replayed {
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

/// Splits "SEAT WORD ARGS..." and names the seat, for the games' script move parsers.
pub fn script_words(s: &str) -> Option<(Seat, Vec<&str>)> {
    let mut words = s.split_whitespace();
    let seat = words.next()?.parse().ok()?;
    Some((seat, words.collect()))
}

/// A move typed at the table, read as seat 0's line of a script ("bid 4 3" as "0 bid 4 3");
/// anything else is refused with the game's `help`.
pub fn typed_move<A>(
    input: &str,
    parse: impl Fn(&str) -> Result<(Seat, A), String>,
    help: &str,
) -> Result<A, String> {
    parse(&format!("0 {input}"))
        .map(|(_, a)| a)
        .map_err(|_| format!("'{}' is not a move: {help}", input.trim()))
}
