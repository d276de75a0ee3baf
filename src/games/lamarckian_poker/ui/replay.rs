//! Lamarckian Poker scripts: a game with its deck fixed, replayed through the engine. Format:
//! `protocol/rules/lamarckian-poker.md` (§ Scripts).

use crate::cards::{CardId, DeckSpec, PlayingCard};
use crate::engine::Seat;
use crate::games::lamarckian_poker::game::{Action, Entry, LamarckianPoker, Setup};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub setup: Setup,
    /// The deck from position 0 ("AS", "10H"); the cards not named follow in deck order, so a
    /// script names only the hands and pools it plays.
    pub deck: Vec<String>,
    /// "SEAT mark CARD": the card must be in that seat's hand.
    pub actions: Vec<String>,
    /// Expected output (golden tests compare it; `replay` ignores it).
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

/// One mark as it was played, cards by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Play {
    pub turn: u32,
    pub seat: Seat,
    pub mark: String,
    pub captured: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    pub turn: u32,
    /// Every turn's pool as it was dealt.
    pub pools: Vec<Vec<String>>,
    /// Every mark in the order it was resolved.
    pub plays: Vec<Play>,
    /// What each turn left in the pool, discarded.
    pub discarded: Vec<Vec<String>>,
    pub extinct: Vec<Seat>,
    /// The showdown's hands in words ("seat 1: a flush, A J 9 6 3").
    pub shown: Vec<String>,
    pub winners: Vec<Seat>,
    pub deck_left: u16,
    /// Cards each seat holds at the end of the script.
    pub held: Vec<usize>,
}

fn name(c: CardId) -> String {
    PlayingCard::from_id(c).to_string()
}

fn names(cs: &[CardId]) -> Vec<String> {
    cs.iter().map(|c| name(*c)).collect()
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("Lamarckian Poker script: {e}"))
    }

    pub fn run(&self) -> Result<Output, String> {
        let game = LamarckianPoker::new(&self.setup).map_err(|e| e.to_string())?;
        let spec = DeckSpec::standard(1);
        let mut deck: Vec<CardId> = self
            .deck
            .iter()
            .map(|c| spec.parse(c).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        let rest: Vec<CardId> = spec
            .cards()
            .into_iter()
            .filter(|c| !deck.contains(c))
            .collect();
        deck.extend(rest);
        if deck.len() != spec.len() {
            return Err("the script's deck names a card twice".into());
        }
        // Scripts name cards; the engine's marks name deck positions.
        let actions: Vec<String> = self
            .actions
            .iter()
            .map(|a| match crate::games::script::script_words(a) {
                Some((seat, w)) if w.len() == 2 && w[0] == "mark" => {
                    let c = spec.parse(w[1]).map_err(|e| e.to_string())?;
                    let p = deck.iter().position(|x| *x == c).unwrap_or_default();
                    Ok(format!("{seat} mark {p}"))
                }
                _ => Ok(a.clone()),
            })
            .collect::<Result<_, String>>()?;
        let (game, end) =
            crate::games::script::play_script_with_deck(game, deck, &[], &actions, parse_action)?;
        let mut out = Output {
            end,
            turn: game.turn,
            pools: Vec::new(),
            plays: Vec::new(),
            discarded: Vec::new(),
            extinct: Vec::new(),
            shown: Vec::new(),
            winners: game.winners.clone(),
            deck_left: game.deck_left(),
            held: game.hands.values().map(Vec::len).collect(),
        };
        let mut turn = 0;
        for e in &game.log {
            match e {
                Entry::Pool { turn: t, cards } => {
                    turn = *t;
                    out.pools.push(names(cards));
                }
                Entry::Played {
                    seat,
                    mark,
                    captured,
                } => out.plays.push(Play {
                    turn,
                    seat: *seat,
                    mark: name(*mark),
                    captured: names(captured),
                }),
                Entry::Discarded { cards } => out.discarded.push(names(cards)),
                Entry::Extinct { seat } => out.extinct.push(*seat),
                Entry::Shown { seat, hand } => {
                    out.shown.push(format!("seat {seat}: {}", hand.words()))
                }
                Entry::Won { .. } | Entry::Forfeited { .. } => {}
            }
        }
        Ok(out)
    }
}

/// The engine's form of a move: "SEAT mark POSITION".
pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let bad =
        || format!("'{s}' is not a Lamarckian Poker move: write 'SEAT mark CARD', as '0 mark QS'");
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(bad)?;
    match words.as_slice() {
        ["mark", p] => Ok((
            seat,
            Action::Mark {
                position: p.parse().map_err(|_| bad())?,
            },
        )),
        _ => Err(bad()),
    }
}
