//! A player's tableau and tallies, and the scoring of a reign and of the game
//! (`protocol/rules/reformation.md` § End of Round, § End of the game). Pure.

use super::data::{Category, Data, Faith, RoleDef, Suit};
use crate::cards::CardId;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A card on a player's board: which card, and the hand slot (deck position) it was played from,
/// by which a Royal Execution names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed {
    pub card: CardId,
    pub position: u16,
}

/// The piles around a Player Board: living and deceased, each Catholic, of no religion,
/// Protestant. The last card of a pile is its top.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tableau {
    pub living: [Vec<Placed>; 3],
    pub dead: [Vec<Placed>; 3],
}

/// The pile index of a religion: Catholic 0, none 1, Protestant 2.
pub fn pile(f: Option<Faith>) -> usize {
    match f {
        Some(Faith::Catholic) => 0,
        None => 1,
        Some(Faith::Protestant) => 2,
    }
}

/// The religion of pile index `i`.
pub fn pile_faith(i: usize) -> Option<Faith> {
    match i {
        0 => Some(Faith::Catholic),
        2 => Some(Faith::Protestant),
        _ => None,
    }
}

impl Tableau {
    pub fn cards(&self) -> impl Iterator<Item = &Placed> {
        self.living.iter().chain(&self.dead).flatten()
    }

    pub fn len(&self) -> usize {
        self.cards().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Moves the living card at `position` to the deceased pile of its religion (on top).
    pub fn kill(&mut self, position: u16) -> Option<Placed> {
        for i in 0..3 {
            if let Some(k) = self.living[i].iter().position(|p| p.position == position) {
                let p = self.living[i].remove(k);
                self.dead[i].push(p);
                return Some(p);
            }
        }
        None
    }
}

/// What a reign's scoring counts on one tableau.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Living cards by suit: Nobles, Clergy, Townsfolk, Peasants, Wild.
    pub suits: [i32; 5],
    pub guild: i32,
    pub dead_catholic: i32,
    pub dead_protestant: i32,
}

pub fn stats(data: &Data, t: &Tableau) -> Stats {
    let mut s = Stats::default();
    for p in t.living.iter().flatten() {
        let d = &data.cards[usize::from(p.card.0)];
        s.suits[d.suit as usize] += 1;
        s.guild += i32::from(d.guild);
    }
    s.dead_catholic = t.dead[0].len() as i32;
    s.dead_protestant = t.dead[2].len() as i32;
    s
}

/// One category's VP: per card, at least one, most or joint most (at least one needed).
fn category(c: Category, mine: i32, best: i32) -> i32 {
    c.per_card * mine
        + if mine >= 1 { c.at_least_one } else { 0 }
        + if mine >= 1 && mine == best { c.most } else { 0 }
}

/// A reign's VP for one player, section by section.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReignScore {
    pub suits: i32,
    pub guild: i32,
    pub dead: i32,
    /// The player's VP after this reign (each section's total held at zero or above).
    pub total: i64,
}

/// Scores reign `round` (1..=3) for `seat` playing `role`, from everyone's tableaux, on top of
/// `before` VP.
pub fn score_reign(
    data: &Data,
    role: &RoleDef,
    round: u8,
    seat: Seat,
    tableaux: &BTreeMap<Seat, Tableau>,
    before: i64,
) -> ReignScore {
    let all: BTreeMap<Seat, Stats> = tableaux.iter().map(|(s, t)| (*s, stats(data, t))).collect();
    let mine = all.get(&seat).copied().unwrap_or_default();
    let reign = &role.reigns[usize::from(round - 1)];
    let best = |f: &dyn Fn(&Stats) -> i32| all.values().map(f).max().unwrap_or(0);
    let suits: i32 = Suit::ALL
        .iter()
        .map(|&s| {
            category(
                reign.suit(s),
                mine.suits[s as usize],
                best(&|x| x.suits[s as usize]),
            )
        })
        .sum();
    let guild = category(reign.guild, mine.guild, best(&|x| x.guild));
    let dead =
        reign.dead_catholic * mine.dead_catholic + reign.dead_protestant * mine.dead_protestant;
    let mut total = before;
    for section in [suits, guild, dead] {
        total = (total + i64::from(section)).max(0);
    }
    ReignScore {
        suits,
        guild,
        dead,
        total,
    }
}

/// Pennants of a tally whose highest value was `best`: one per full `step` reached, at most
/// what the tally's ceiling allows.
pub fn pennants(data: &Data, best: i32) -> i32 {
    let r = &data.rules;
    best.clamp(0, r.tally_max) / r.pennant_step
}

/// The end of the game's VP on top of `before`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndScore {
    pub money: i64,
    pub catholic: i64,
    pub protestant: i64,
    pub loans: i64,
    pub total: i64,
}

/// Pennant bonuses (money, Catholic, Protestant, in that order), then the loans still held.
pub fn score_end(data: &Data, role: &RoleDef, best: [i32; 3], loans: u8, before: i64) -> EndScore {
    let bonus = |mult: i32, b: i32| i64::from(mult) * i64::from(pennants(data, b));
    let money = bonus(role.end.money, best[0]);
    let catholic = bonus(role.end.catholic, best[1]);
    let protestant = bonus(role.end.protestant, best[2]);
    let loans = -i64::from(data.rules.loan_penalty) * i64::from(loans);
    let mut total = before;
    for step in [money, catholic, protestant, loans] {
        total = (total + step).max(0);
    }
    EndScore {
        money,
        catholic,
        protestant,
        loans,
        total,
    }
}
