//! Chickenfoot scripts: a round with its tiles and lot fixed, replayed through the engine.
//! Format: `protocol/rules/chickenfoot.md` (§13).

use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::chickenfoot::game::{
    double_id, Action, Chickenfoot, Entry, Layout, RoundEnd, Setup, Spot,
};
use crate::games::dominoes;
use serde::Serialize;

/// A Chickenfoot script: `deck` is the first round's deck, its centerpiece left out; each later
/// round deals the same deck with that round's centerpiece taken out and the first round's
/// centerpiece in its place (every other tile where the script put it). Moves are
/// "SEAT a-b center", "SEAT a-b end LINE", "SEAT a-b toe LINE" (lines numbered from 1 in the
/// order they began), "SEAT draw", "SEAT pass".
pub type Script = dominoes::ui::Script<Setup>;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    pub round: u32,
    pub scores: Vec<i64>,
    /// How the last round ended, if it did.
    pub ended: Option<RoundEnd>,
    /// Tiles each seat holds now (before a round's end: as the script left them).
    pub held: Vec<usize>,
    /// The points each seat's shown tiles cost, per seat, at the last round's end.
    pub points: Vec<Option<u32>>,
    /// The pending chickenfoot: the line (from 1) ending in the double and the toes it needs.
    pub foot: Option<(u16, u8)>,
    /// Where a tile may go now: "center", "toe LINE" or "end LINE", with the number to match.
    pub spots: Vec<String>,
    pub layout: Layout,
    pub log: Vec<Entry>,
}

fn spot_text(s: Spot) -> String {
    match s {
        Spot::Center => "center".into(),
        Spot::Toe(l) => format!("toe {}", l + 1),
        Spot::End(l) => format!("end {}", l + 1),
    }
}

/// The engine's form of a move: "SEAT play POSITION center|end LINE|toe LINE", "SEAT draw",
/// "SEAT pass".
pub fn parse_action(s: &str) -> Result<(Seat, Action), String> {
    let bad = || {
        format!(
            "'{s}' is not a Chickenfoot move: 'SEAT 1-4 center', 'SEAT 1-4 end 2', \
             'SEAT 1-4 toe 2', 'SEAT draw', 'SEAT pass'"
        )
    };
    let (seat, words) = crate::games::script::script_words(s).ok_or_else(bad)?;
    let line = |w: &str| -> Result<u16, String> {
        w.parse::<u16>()
            .ok()
            .and_then(|l| l.checked_sub(1))
            .ok_or_else(bad)
    };
    let action = match words.as_slice() {
        ["draw"] => Action::Draw,
        ["pass"] => Action::Pass,
        ["play", p, rest @ ..] => Action::Play {
            position: p.parse().map_err(|_| bad())?,
            spot: match rest {
                ["center"] => Spot::Center,
                ["end", l] => Spot::End(line(l)?),
                ["toe", l] => Spot::Toe(line(l)?),
                _ => return Err(bad()),
            },
        },
        _ => return Err(bad()),
    };
    Ok((seat, action))
}

impl dominoes::ui::Script<Setup> {
    /// Every round's deck by position: the script's deck for the first round, and for each
    /// later one the same with its centerpiece swapped for the first round's.
    fn round_decks(&self) -> Result<Vec<Vec<CardId>>, String> {
        let max = self.setup.max_pip();
        let first = double_id(max, max);
        let deck = dominoes::ui::script_deck(max, &self.deck, Some(first))?;
        // The centerpieces go down one double a round, to the double blank (§3).
        Ok((0..=max)
            .map(|r| {
                let center = double_id(max, max - r);
                deck.iter()
                    .map(|t| if *t == center { first } else { *t })
                    .collect()
            })
            .collect())
    }

    pub fn run(&self) -> Result<Output, String> {
        let game = Chickenfoot::new(&self.setup).map_err(|e| e.to_string())?;
        let max = self.setup.max_pip();
        let decks = self.round_decks()?;
        let mut chance = crate::engine::sim::Script::new(decks[0].clone(), self.dice.clone());
        chance.decks = (0..).zip(decks.iter().cloned()).collect();
        // A move names a tile; the engine's names its position in the deck of the round it is
        // made in, known only when the script gets there.
        let moves: Vec<(Seat, Vec<String>)> = self
            .actions
            .iter()
            .map(|a| {
                crate::games::script::script_words(a)
                    .map(|(s, w)| (s, w.iter().map(|x| x.to_string()).collect()))
                    .ok_or_else(|| parse_action(a).err().unwrap_or_default())
            })
            .collect::<Result<_, _>>()?;
        let move_at = |g: &Chickenfoot, i: usize| -> Result<(Seat, Action), String> {
            let (seat, w) = &moves[i];
            let line = match w.first().map(String::as_str) {
                Some("draw" | "pass" | "play") | None => format!("{seat} {}", w.join(" ")),
                Some(t) => {
                    let tile = dominoes::ui::parse_tile(max, t)?;
                    let deck = &decks[usize::try_from(g.round)
                        .unwrap_or(usize::MAX)
                        .min(decks.len() - 1)];
                    let p = deck.iter().position(|x| *x == tile).ok_or_else(|| {
                        format!(
                            "{} is this round's centerpiece, not a tile in a hand",
                            dominoes::ui::tile_text(g.halves(tile))
                        )
                    })?;
                    format!("{seat} play {p} {}", w[1..].join(" "))
                }
            };
            parse_action(&line)
        };
        let (game, end) = crate::games::script::play_script_by(game, chance, moves.len(), move_at)?;
        let players = game.setup.players;
        let mut points = vec![None; usize::from(players)];
        for e in &game.log {
            match e {
                Entry::Round { .. } => points = vec![None; usize::from(players)],
                Entry::Showed {
                    seat, points: p, ..
                } => points[usize::from(*seat)] = Some(*p),
                _ => {}
            }
        }
        Ok(Output {
            end,
            round: game.round + 1,
            scores: game.scores.clone(),
            ended: game.ended,
            held: (0..players)
                .map(|s| game.board.hands.get(&s).map_or(0, Vec::len))
                .collect(),
            points,
            foot: game.layout.foot.map(|(l, k)| (l + 1, k)),
            spots: game
                .layout
                .spots()
                .into_iter()
                .map(|(s, p)| format!("{} {p}", spot_text(s)))
                .collect(),
            layout: game.layout.clone(),
            log: game.log.clone(),
        })
    }
}
