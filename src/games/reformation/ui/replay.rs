//! Tolerance: Reformation scripts: a game with each reign's hands, the Roles and the lot fixed,
//! replayed through the engine (`tolerance replay`, golden tests). Format:
//! `protocol/rules/reformation.md` (§ Scripts).

use super::words::line;
use crate::cards::CardId;
use crate::engine::sim::{fulfil_all, Script as Chance};
use crate::engine::{Game, RuleError, Seat, ToAct};
use crate::games::reformation::data::{Data, Role, Suit};
use crate::games::reformation::game::{Action, Phase, Reformation, Setup};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One reign's deal.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    /// Each seat's twelve cards by name, seat 0 first; the reign's Monarch in one of them.
    pub hands: Vec<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// What the script shows, for people (ignored).
    #[serde(default)]
    pub comment: Option<String>,
    pub setup: Setup,
    /// The deal of each reign, in order; a reign left out is dealt in card order with its
    /// Monarch to the last seat.
    #[serde(default)]
    pub reigns: Vec<Deal>,
    /// Roles dealt at random (`roles = "dealt"`): each seat's Role by name.
    #[serde(default)]
    pub roles: Vec<String>,
    /// The lot for the first chooser (1 = seat 0).
    #[serde(default = "first")]
    pub dice: Vec<u8>,
    /// "SEAT start SEAT", "SEAT play CARD [as SUIT]", "SEAT choose CARD", "SEAT execute CARD",
    /// "SEAT repay N", "SEAT role NAME", "SEAT agenda NAME", "SEAT auto"; "auto" plays each
    /// trick card and effect choice as the first legal move until another kind of decision;
    /// "auto-all" plays first legal moves to the end.
    pub actions: Vec<String>,
    /// Expected output (golden tests compare it; `replay` ignores it).
    #[serde(default)]
    pub expect: Option<serde_json::Value>,
}

fn first() -> Vec<u8> {
    vec![1]
}

/// A pile's cards by name, bottom to top.
pub type Pile = Vec<String>;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Piles {
    pub living_catholic: Pile,
    pub living_none: Pile,
    pub living_protestant: Pile,
    pub dead_catholic: Pile,
    pub dead_none: Pile,
    pub dead_protestant: Pile,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerOut {
    pub seat: Seat,
    pub money: i32,
    pub catholic: i32,
    pub protestant: i32,
    pub pennants: [i32; 3],
    pub loans: u8,
    pub vp: i64,
    pub role: Option<String>,
    pub piles: Piles,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrickOut {
    pub seat: Seat,
    pub card: String,
    pub declared: Option<Suit>,
    pub alive: bool,
    pub religion: Option<crate::games::reformation::data::Faith>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReignOut {
    pub round: u8,
    pub piles: Vec<Piles>,
    /// VP after the reign (once Roles are known).
    pub vp: Vec<Option<i64>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    #[serde(flatten)]
    pub end: crate::games::script::ScriptEnd,
    pub round: u8,
    pub tricks: u8,
    pub phase: Phase,
    pub winners: Vec<Seat>,
    pub players: Vec<PlayerOut>,
    pub trick: Vec<TrickOut>,
    pub reigns: Vec<ReignOut>,
    pub story: Vec<String>,
}

fn piles(data: &Data, t: &crate::games::reformation::scoring::Tableau) -> Piles {
    let names = |v: &Vec<crate::games::reformation::scoring::Placed>| -> Pile {
        v.iter()
            .map(|p| data.label(usize::from(p.card.0)))
            .collect()
    };
    Piles {
        living_catholic: names(&t.living[0]),
        living_none: names(&t.living[1]),
        living_protestant: names(&t.living[2]),
        dead_catholic: names(&t.dead[0]),
        dead_none: names(&t.dead[1]),
        dead_protestant: names(&t.dead[2]),
    }
}

impl Script {
    pub fn parse(text: &str) -> Result<Script, String> {
        serde_json::from_str(text).map_err(|e| format!("Tolerance: Reformation script: {e}"))
    }

    fn card(data: &Data, name: &str) -> Result<usize, String> {
        data.find(name)
            .ok_or_else(|| format!("'{name}' is not a card of this card set"))
    }

    /// Each reign's two decks: the Suit deck and the slot deck, by position.
    fn decks(&self, data: &Data) -> Result<BTreeMap<u32, Vec<CardId>>, String> {
        let s = &self.setup;
        let n = usize::from(s.players);
        let slots = crate::games::reformation::data::HAND * n;
        let mut decks = BTreeMap::new();
        if self.reigns.len() > usize::from(s.rounds) {
            return Err(format!(
                "the script deals {} reigns for a game of {}",
                self.reigns.len(),
                s.rounds
            ));
        }
        for round in 1..=s.rounds {
            let suit_cards = data.suit_cards(s.plague_cards);
            let monarch = data.monarch(round);
            let named: Vec<usize> = match self.reigns.get(usize::from(round) - 1) {
                Some(d) => {
                    if d.hands.len() != n
                        || d.hands
                            .iter()
                            .any(|h| h.len() != crate::games::reformation::data::HAND)
                    {
                        return Err(format!(
                            "reign {round}: the script deals {n} hands of 12 cards, one to each player"
                        ));
                    }
                    let cards: Vec<usize> = d
                        .hands
                        .concat()
                        .iter()
                        .map(|c| Script::card(data, c))
                        .collect::<Result<_, _>>()?;
                    for c in &cards {
                        if *c != monarch && !suit_cards.contains(c) {
                            return Err(format!(
                                "reign {round}: {} is not dealt in this reign",
                                data.label(*c)
                            ));
                        }
                        if cards.iter().filter(|x| *x == c).count() > 1 {
                            return Err(format!(
                                "reign {round}: {} is dealt twice",
                                data.label(*c)
                            ));
                        }
                    }
                    if !cards.contains(&monarch) {
                        return Err(format!(
                            "reign {round}: the hands must hold {}",
                            data.label(monarch)
                        ));
                    }
                    cards
                }
                None => {
                    let mut v: Vec<usize> = suit_cards.iter().copied().take(slots - 1).collect();
                    v.push(monarch);
                    v
                }
            };
            let mut rest = suit_cards
                .iter()
                .copied()
                .filter(|c| !named.contains(c))
                .collect::<Vec<_>>()
                .into_iter();
            let mut suit = Vec::new();
            let mut slot = Vec::new();
            let mut blank = 1u16;
            for c in &named {
                if *c == monarch {
                    suit.push(CardId(rest.next().ok_or("no Suit card left")? as u16));
                    slot.push(CardId(0));
                } else {
                    suit.push(CardId(*c as u16));
                    slot.push(CardId(blank));
                    blank += 1;
                }
            }
            suit.extend(rest.map(|c| CardId(c as u16)));
            decks.insert(10 + 2 * u32::from(round), suit);
            decks.insert(11 + 2 * u32::from(round), slot);
        }
        let role_ids: Vec<CardId> = (0..data.roles.len() as u16).map(CardId).collect();
        for k in 0..n {
            decks.insert(1 + k as u32, role_ids.clone());
        }
        if !self.roles.is_empty() {
            let mut deck: Vec<u16> = Vec::new();
            for r in &self.roles {
                let i = data
                    .roles
                    .iter()
                    .position(|x| x.name.eq_ignore_ascii_case(r))
                    .ok_or_else(|| format!("'{r}' is not a Role of this set"))?;
                deck.push(i as u16);
            }
            let rest: Vec<u16> = (0..data.roles.len() as u16)
                .filter(|i| !deck.contains(i))
                .collect();
            deck.extend(rest);
            decks.insert(0, deck.into_iter().map(CardId).collect());
        } else {
            decks.insert(0, role_ids);
        }
        Ok(decks)
    }

    /// A scripted move, "SEAT verb args", as the engine's action in state `g`.
    fn action(g: &Reformation, text: &str) -> Result<(Seat, Action), String> {
        let data = g.data();
        let bad = || {
            format!(
                "'{text}' is not a Tolerance: Reformation move: use 'SEAT start SEAT', 'SEAT play \
                 CARD [as SUIT]', 'SEAT choose CARD', 'SEAT execute CARD', 'SEAT repay N', 'SEAT \
                 role NAME', 'SEAT agenda NAME' or 'SEAT auto'"
            )
        };
        let (seat, words) = crate::games::script::script_words(text).ok_or_else(bad)?;
        let (verb, rest) = words.split_first().ok_or_else(bad)?;
        let rest = rest.join(" ");
        let named = |label: &str| Script::card(data, label).map(|c| CardId(c as u16));
        let a = match *verb {
            "start" => Action::Start {
                seat: rest.parse().map_err(|_| bad())?,
            },
            "repay" => Action::Repay {
                count: rest.parse().map_err(|_| bad())?,
            },
            "auto" => Action::Auto,
            "play" => {
                let lower = rest.to_ascii_lowercase();
                let (label, declare) = match lower.rfind(" as ") {
                    Some(i) => (
                        &rest[..i],
                        Some(Suit::parse(&rest[i + 4..]).ok_or_else(bad)?),
                    ),
                    None => (rest.as_str(), None),
                };
                let c = named(label)?;
                let position = g
                    .held(seat)
                    .iter()
                    .find(|(_, x)| *x == Some(c))
                    .map(|(p, _)| *p)
                    .ok_or_else(|| format!("{label} is not in seat {seat}'s hand"))?;
                Action::Play { position, declare }
            }
            "choose" => {
                let c = named(&rest)?;
                let index = g
                    .trick
                    .iter()
                    .position(|t| t.card == Some(c))
                    .ok_or_else(|| format!("{rest} is not in the trick"))?;
                Action::Choose { index: index as u8 }
            }
            "execute" => {
                let c = named(&rest)?;
                let position = g
                    .players
                    .values()
                    .flat_map(|p| p.tableau.cards())
                    .find(|p| p.card == c)
                    .map(|p| p.position)
                    .ok_or_else(|| format!("{rest} is on no board"))?;
                Action::Execute { position }
            }
            "role" | "agenda" => {
                let i = data
                    .roles
                    .iter()
                    .position(|r| r.name.eq_ignore_ascii_case(&rest))
                    .ok_or_else(|| format!("'{rest}' is not a Role of this set"))?;
                if *verb == "role" {
                    Action::Role { role: i as u8 }
                } else {
                    let position = g
                        .agenda_cards
                        .get(&seat)
                        .and_then(|v| v.iter().position(|c| *c == Some(CardId(i as u16))))
                        .ok_or_else(|| format!("seat {seat} holds no copy of {rest}"))?;
                    Action::Agenda {
                        position: position as u16,
                    }
                }
            }
            _ => return Err(bad()),
        };
        Ok((seat, a))
    }

    pub fn run(&self) -> Result<Output, String> {
        let mut g = Reformation::new(&self.setup).map_err(|e| e.to_string())?;
        let data = g.data().clone();
        let mut chance = Chance::new(Vec::new(), self.dice.clone());
        chance.decks = self.decks(&data)?;
        let mut next = 0;
        // "auto" (until another kind of decision) or "auto-all" (to the end).
        let mut auto: Option<bool> = None;
        let mut failure: Option<(String, Option<usize>)> = None;
        loop {
            match g.to_act() {
                ToAct::Terminal => {
                    if auto.is_some() {
                        next += 1;
                    }
                    // An "auto" left when the game is over has nothing to play.
                    while self
                        .actions
                        .get(next)
                        .is_some_and(|a| matches!(a.trim(), "auto" | "auto-all"))
                    {
                        next += 1;
                    }
                    if next < self.actions.len() {
                        failure = Some((RuleError::Finished.to_string(), Some(next)));
                    }
                    break;
                }
                ToAct::Chance(reqs) => {
                    let outs = fulfil_all(&mut chance, &reqs)?;
                    g.apply_chance(&outs).map_err(|e| e.to_string())?;
                }
                ToAct::Seat(_) | ToAct::Sealed(_) => {
                    let seat = match g.to_act() {
                        ToAct::Seat(s) => s,
                        ToAct::Sealed(v) => v[0],
                        _ => unreachable!(),
                    };
                    if let Some(all) = auto {
                        if all || matches!(g.phase, Phase::Play | Phase::Effects) {
                            let a = g.legal_actions(seat)[0];
                            g.apply(seat, &a).map_err(|e| e.to_string())?;
                            continue;
                        }
                        auto = None;
                        next += 1;
                    }
                    let Some(text) = self.actions.get(next) else {
                        break;
                    };
                    match text.trim() {
                        "auto" => auto = Some(false),
                        "auto-all" => auto = Some(true),
                        t => {
                            let applied = Script::action(&g, t)
                                .and_then(|(s, a)| g.apply(s, &a).map_err(|e| e.to_string()));
                            if let Err(e) = applied {
                                failure = Some((e, Some(next)));
                                break;
                            }
                            next += 1;
                        }
                    }
                }
            }
        }
        if failure.is_none() && chance.unused_dice() > 0 {
            return Err(format!(
                "{} scripted dice were never rolled",
                chance.unused_dice()
            ));
        }
        let seat_name = |s: Seat| format!("seat {s}");
        let end = crate::games::script::ScriptEnd {
            game: <Reformation as Game>::NAME,
            ok: failure.is_none(),
            at_action: failure.as_ref().and_then(|f| f.1),
            error: failure.map(|f| f.0),
            finished: g.is_terminal(),
            winner: g.outcome().and_then(|o| o.winners.first().copied()),
        };
        let role_name = |r: Option<Role>| r.map(|r| data.role(r).name.clone());
        Ok(Output {
            end,
            round: g.round,
            tricks: g.tricks,
            phase: g.phase,
            winners: g.winners.clone(),
            players: g
                .players
                .iter()
                .map(|(s, p)| PlayerOut {
                    seat: *s,
                    money: p.money,
                    catholic: p.catholic,
                    protestant: p.protestant,
                    pennants: p
                        .best
                        .map(|b| crate::games::reformation::scoring::pennants(&data, b)),
                    loans: p.loans,
                    vp: p.vp,
                    role: role_name(g.roles[s]),
                    piles: piles(&data, &p.tableau),
                })
                .collect(),
            trick: g
                .trick
                .iter()
                .map(|t| TrickOut {
                    seat: t.seat,
                    card: t
                        .card
                        .map(|c| data.label(usize::from(c.0)))
                        .unwrap_or_default(),
                    declared: t.declared,
                    alive: t.alive,
                    religion: t.faith,
                })
                .collect(),
            reigns: g
                .records
                .iter()
                .map(|r| ReignOut {
                    round: r.round,
                    piles: r.tableaux.values().map(|t| piles(&data, t)).collect(),
                    vp: r
                        .tableaux
                        .keys()
                        .map(|s| r.scores.get(s).map(|x| x.total))
                        .collect(),
                })
                .collect(),
            story: g.log.iter().map(|e| line(e, &seat_name, &data)).collect(),
        })
    }
}
