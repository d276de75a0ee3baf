//! Abandon Ship scripts: a game with its cards and dice fixed, replayed through the engine.
//! Format: `protocol/rules/abandon-ship.md` (§ Scripts).

use super::words::line;
use crate::cards::{CardId, PlayingCard};
use crate::engine::Seat;
use crate::games::abandon_ship::game::{
    card_name, suit_name, AbandonShip, Action, Entry, Setup, HAND,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// What the script shows, for people (ignored).
    #[serde(default)]
    pub comment: Option<String>,
    pub setup: Setup,
    /// Each seat's five cards, seat 0 first.
    pub hands: Vec<Vec<String>>,
    /// The cards set aside (two players, or the unused hands of two decks); left out, the
    /// first unnamed cards in deck order are.
    #[serde(default)]
    pub aside: Vec<String>,
    /// The draw pile from its top; the cards not named follow in deck order.
    #[serde(default)]
    pub draws: Vec<String>,
    /// The public dice, in rolling order (each picks a card of a fight's loser).
    #[serde(default)]
    pub dice: Vec<u8>,
    /// "SEAT discard QS", "SEAT fight QS 2", "SEAT raise KH", "SEAT surrender", "SEAT key QH".
    pub actions: Vec<String>,
    /// Expected output (golden tests compare it; `replay` ignores it).
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Boarded {
    pub lifeboat: &'static str,
    pub points: i64,
    /// Who boarded it: none when a contest tied exactly.
    pub seat: Option<Seat>,
    /// Each runner's points in the suit.
    pub held: Vec<(Seat, i64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    pub round: u32,
    pub scores: Vec<i64>,
    /// Points in each lifeboat now: clubs, diamonds, hearts, spades.
    pub lifeboats: Vec<i64>,
    /// Each seat's board, as card names.
    pub boards: Vec<Vec<String>>,
    /// Each seat's number of cards in hand.
    pub held: Vec<usize>,
    /// Every lifeboat contest of the game, in order.
    pub boarded: Vec<Boarded>,
    /// The game in words.
    pub story: Vec<String>,
}

/// The engine's form of a move, deck positions for cards: "SEAT discard P", "SEAT fight P T",
/// "SEAT raise P", "SEAT surrender", "SEAT key P".
pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let bad = || {
        format!(
            "'{s}' is not an Abandon Ship move: 'SEAT discard QS', 'SEAT fight QS 2', \
             'SEAT raise KH', 'SEAT surrender', 'SEAT key QH'"
        )
    };
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(bad)?;
    let num = |w: &str| w.parse::<u16>().map_err(|_| bad());
    let action = match words.as_slice() {
        ["surrender"] => Action::Surrender,
        ["discard", p] => Action::Discard { position: num(p)? },
        ["raise", p] => Action::Raise { position: num(p)? },
        ["key", p] => Action::Key { position: num(p)? },
        ["fight", p, t] => Action::Fight {
            position: num(p)?,
            target: t.parse().map_err(|_| bad())?,
        },
        _ => return Err(bad()),
    };
    Ok((seat, action))
}

fn parse_card(s: &str) -> Result<CardId, String> {
    PlayingCard::parse(s)
        .map(PlayingCard::id)
        .map_err(|e| e.to_string())
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("Abandon Ship script: {e}"))
    }

    /// Every round's deck, by position.
    fn deck(&self) -> Result<Vec<CardId>, String> {
        let s = &self.setup;
        if self.hands.len() != usize::from(s.players) || self.hands.iter().any(|h| h.len() != HAND)
        {
            return Err(format!(
                "the script deals {} hands of five cards, one to each player",
                s.players
            ));
        }
        let parse = |v: &[String]| {
            v.iter()
                .map(|c| parse_card(c))
                .collect::<Result<Vec<_>, _>>()
        };
        let hands: Vec<CardId> = parse(&self.hands.concat())?;
        let aside = parse(&self.aside)?;
        let draws = parse(&self.draws)?;
        let size = usize::from(s.deck_size());
        let named: Vec<CardId> = hands.iter().chain(&aside).chain(&draws).copied().collect();
        let mut rest: Vec<CardId> = (0..size as u16)
            .map(CardId)
            .filter(|c| !named.contains(c))
            .collect();
        let want = usize::from(s.aside());
        if !aside.is_empty() && aside.len() != want {
            return Err(format!(
                "this table sets aside {want} cards, not {}",
                aside.len()
            ));
        }
        let mut deck = hands;
        if aside.is_empty() {
            deck.extend(rest.drain(..want.min(rest.len())));
        } else {
            deck.extend(aside);
        }
        deck.extend(draws);
        deck.extend(rest);
        let mut check = deck.clone();
        check.sort_unstable();
        check.dedup();
        if check.len() != size || deck.len() != size {
            return Err("the script's deck names a card twice or one of another deck".into());
        }
        Ok(deck)
    }

    pub fn run(&self) -> Result<Output, String> {
        let game = AbandonShip::new(&self.setup).map_err(|e| e.to_string())?;
        let deck = self.deck()?;
        // Scripts name cards; the engine's moves name deck positions.
        let position = |w: &str| -> Result<u16, String> {
            let c = parse_card(w)?;
            deck.iter()
                .position(|x| *x == c)
                .map(|p| p as u16)
                .ok_or_else(|| format!("{w} is not in the deck"))
        };
        let actions: Vec<String> = self
            .actions
            .iter()
            .map(|a| match crate::games::script::script_words(a) {
                Some((seat, w)) if w.len() >= 2 => {
                    let mut out = format!("{seat} {} {}", w[0], position(w[1])?);
                    for extra in &w[2..] {
                        out.push(' ');
                        out.push_str(extra);
                    }
                    Ok(out)
                }
                _ => Ok(a.clone()),
            })
            .collect::<Result<_, String>>()?;
        let (game, end) = crate::games::script::play_script_with_deck(
            game,
            deck,
            &self.dice,
            &actions,
            parse_action,
        )?;
        let seat_name = |s: Seat| format!("seat {s}");
        Ok(Output {
            end,
            round: game.round,
            scores: game.scores.clone(),
            lifeboats: game.lifeboat_points(),
            boards: game
                .table()
                .iter()
                .map(|s| game.boards[s].iter().map(|f| card_name(f.card)).collect())
                .collect(),
            held: game.table().iter().map(|s| game.hands[s].len()).collect(),
            boarded: game
                .log
                .iter()
                .filter_map(|e| match e {
                    Entry::Boarded {
                        suit,
                        points,
                        claims,
                        seat,
                    } => Some(Boarded {
                        lifeboat: suit_name(crate::cards::Suit::ALL[usize::from(*suit)]),
                        points: *points,
                        seat: *seat,
                        held: claims.iter().map(|c| (c.seat, c.held)).collect(),
                    }),
                    _ => None,
                })
                .collect(),
            story: game.log.iter().map(|e| line(e, &seat_name)).collect(),
        })
    }
}
