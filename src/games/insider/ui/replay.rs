//! Insider scripts: the lot, the roles, the Master's word cards and the log's times fixed,
//! then the moves, replayed through the engine. Format: `protocol/rules/insider.md` (§ Scripts).

use super::record::line;
use crate::cards::CardId;
use crate::engine::sim::{fulfil_all, Script as Chance};
use crate::engine::{Game, Seat, ToAct};
use crate::games::insider::game::{Action, Answer, End, Insider, Said, Setup, INSIDER_CARD};
use crate::games::insider::words::normal;
use serde::{Deserialize, Serialize};

/// The log's time when a script starts (any moment will do; times in scripts count from it).
const T0: u64 = 1_800_000_000;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    #[serde(default)]
    pub comment: Option<String>,
    pub setup: Setup,
    /// The seat the lot makes the Master.
    pub master: Seat,
    /// The seat dealt the Insider card.
    pub insider: Seat,
    /// The Master's word cards, words of the list (as many as `setup.choices`).
    pub cards: Vec<String>,
    /// "SEAT pick N", "SEAT ask TEXT", "SEAT guess WORD", "SEAT pass", "SEAT answer
    /// yes|no|dont-know", "SEAT judge right|wrong", "SEAT say TEXT", "SEAT ready", "SEAT accuse
    /// yes|no", "SEAT point SEAT", "SEAT abstain", "SEAT break SEAT"; any of them, or nothing,
    /// after "@T " — the log's time, T seconds after the word reached the Insider.
    pub actions: Vec<String>,
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    pub master: Option<Seat>,
    pub insider: Option<Seat>,
    pub word: Option<String>,
    pub result: Option<End>,
    pub winners: Vec<Seat>,
    pub guesser: Option<Seat>,
    pub accused: Option<Seat>,
    pub misjudged: bool,
    /// Seconds the talk before the votes was given (the flipped timer), when the clock ran.
    pub talk_seconds: Option<u64>,
    pub story: Vec<String>,
}

pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let bad = || format!("'{s}' is not an Insider move (see protocol/rules/insider.md, Scripts)");
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(bad)?;
    let rest = || words[1..].join(" ");
    let num = |w: &str| w.parse::<u8>().map_err(|_| bad());
    let action = match words.as_slice() {
        ["pick", n] => Action::Pick(num(n)?.checked_sub(1).ok_or_else(bad)?),
        ["ask", ..] if words.len() > 1 => Action::Ask(rest()),
        ["guess", ..] if words.len() > 1 => Action::Guess(rest()),
        ["say", ..] if words.len() > 1 => Action::Say(rest()),
        ["pass"] => Action::Pass,
        ["ready"] => Action::Ready,
        ["answer", "yes"] => Action::Answer(Answer::Yes),
        ["answer", "no"] => Action::Answer(Answer::No),
        ["answer", "dont-know"] => Action::Answer(Answer::DontKnow),
        ["judge", "right"] => Action::Judge(true),
        ["judge", "wrong"] => Action::Judge(false),
        ["accuse", "yes"] => Action::Accuse(true),
        ["accuse", "no"] => Action::Accuse(false),
        ["point", n] => Action::Point(Some(num(n)?)),
        ["abstain"] => Action::Point(None),
        ["break", n] => Action::Break(num(n)?),
        _ => return Err(bad()),
    };
    Ok((seat, action))
}

/// "@T rest" → (Some(T), rest); anything else → (None, it).
fn timed(s: &str) -> Result<(Option<u64>, &str), String> {
    let t = s.trim();
    match t.strip_prefix('@') {
        Some(r) => {
            let (num, rest) = r.split_once(' ').unwrap_or((r, ""));
            let secs = num
                .parse::<u64>()
                .map_err(|_| format!("'{s}': a time is '@SECONDS'"))?;
            Ok((Some(secs), rest.trim()))
        }
        None => Ok((None, t)),
    }
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("Insider script: {e}"))
    }

    /// The dice and the role deck that make the script's lot, roles and word cards.
    fn chance(&self) -> Result<Chance, String> {
        let n = self.setup.players;
        if self.master >= n || self.insider >= n || self.master == self.insider {
            return Err("the Master and the Insider are two of the table's seats".into());
        }
        if self.cards.len() != usize::from(self.setup.choices) {
            return Err(format!(
                "the Master draws {} word cards; the script names {}",
                self.setup.choices,
                self.cards.len()
            ));
        }
        let list = self.setup.list();
        let mut dice = vec![self.master + 1];
        for s in 0..n {
            for w in &self.cards {
                if s == self.master {
                    let i = list
                        .iter()
                        .position(|x| x.word == normal(w))
                        .ok_or_else(|| format!("'{w}' is not in the word list"))?;
                    dice.push((i / 100) as u8 + 1);
                    dice.push((i % 100) as u8 + 1);
                } else {
                    dice.extend([1, 1]);
                }
            }
        }
        // Role card positions go to the non-Masters in ascending seat order.
        let mut commons = (1..u16::from(n) - 1).map(CardId);
        let deck: Vec<CardId> = (0..n)
            .filter(|s| *s != self.master)
            .map(|s| {
                if s == self.insider {
                    INSIDER_CARD
                } else {
                    commons.next().expect("enough Common cards")
                }
            })
            .collect();
        Ok(Chance::new(deck, dice))
    }

    pub fn run(&self) -> Result<Output, String> {
        let mut game = Insider::new(&self.setup).map_err(|e| e.to_string())?;
        let mut chance = self.chance()?;
        let mut now = 0u64;
        let mut next = 0;
        let mut failure = None;
        loop {
            match game.to_act() {
                ToAct::Terminal => {
                    if next < self.actions.len() {
                        failure = Some(("the game is over".to_string(), Some(next)));
                    }
                    break;
                }
                ToAct::Chance(reqs) => {
                    let outs = fulfil_all(&mut chance, &reqs)?;
                    game.apply_chance(&outs).map_err(|e| e.to_string())?;
                    // The log's clock moves on with every step, the batch's included.
                    game.clock(T0 + now);
                }
                ToAct::Seat(_) | ToAct::Sealed(_) => {
                    let Some(a) = self.actions.get(next) else {
                        break;
                    };
                    let (at, rest) = timed(a)?;
                    if let Some(t) = at {
                        now = now.max(t);
                        game.clock(T0 + now);
                    }
                    if rest.is_empty() {
                        // Only time passing.
                        next += 1;
                        continue;
                    }
                    let (seat, action) = parse_action(rest)?;
                    if let Err(e) = game.apply(seat, &action) {
                        failure = Some((e.to_string(), Some(next)));
                        break;
                    }
                    game.clock(T0 + now);
                    next += 1;
                }
            }
        }
        let seat_name = |s: Seat| format!("seat {s}");
        // The flipped timer: the talk gets as long as the guessing took.
        let talk_seconds = game.talk_until.and_then(|_| {
            let guessed = game
                .qa
                .iter()
                .find(|q| {
                    matches!(
                        q.said,
                        Said::Guess {
                            right: Some(true),
                            ..
                        }
                    )
                })?
                .at?;
            Some(guessed.saturating_sub(game.started?))
        });
        let outcome = game.outcome();
        Ok(Output {
            end: crate::games::script::ScriptEnd {
                game: "insider",
                ok: failure.is_none(),
                error: failure.as_ref().map(|f| f.0.clone()),
                at_action: failure.as_ref().and_then(|f| f.1),
                finished: game.is_terminal(),
                winner: outcome.as_ref().and_then(|o| o.winners.first().copied()),
            },
            master: game.master,
            insider: game.insider(),
            word: game.shown_word.clone(),
            result: game.end.clone(),
            winners: outcome.map(|o| o.winners).unwrap_or_default(),
            guesser: game.guesser,
            accused: game.accused,
            misjudged: game.misjudged,
            talk_seconds,
            story: game.log.iter().map(|e| line(e, &seat_name)).collect(),
        })
    }
}
