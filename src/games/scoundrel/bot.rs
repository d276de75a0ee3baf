//! A Scoundrel bot that sees only its view: it weighs every turn it may play by the health it
//! keeps, the weapon it keeps usable and the card it leaves in the room, and avoids a room whose
//! best turn costs more than an average room would (protocol/rules/scoundrel.md §9).

use super::game::{
    kind, value, Action, Dungeon, End, Kind, Life, ScoundrelView, Status, Take, ALL_MONSTERS,
};
use super::{Scoundrel, Setup};
use crate::bots::{Bot, RandomBot};
use crate::cards::CardId;
pub use crate::games::race::{best_judged, Duplicate};
use rand::Rng;

/// What the bot weighs, against one point of health (tuned with `benches/solitaires.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// A weapon's worth per point of its value.
    pub weapon: f64,
    /// How fast a weapon loses worth as its last kill gets weaker.
    pub bluntness: f64,
    /// A monster left in the room, per point of the damage it would do now.
    pub monster_left: f64,
    /// A potion left in the room, per point it could heal.
    pub potion_left: f64,
    /// A weapon left in the room, per point of value.
    pub weapon_left: f64,
    /// What avoiding a room costs (the cards come back later).
    pub avoid: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            weapon: 0.7,
            bluntness: 0.7,
            monster_left: 0.5,
            potion_left: 1.0,
            weapon_left: 1.0,
            avoid: 18.0,
        }
    }
}

impl Weights {
    /// Six numbers separated by commas, in field order (for tuning runs).
    pub fn parse(s: &str) -> Option<Weights> {
        let v: Vec<f64> = s
            .split(',')
            .map(|x| x.trim().parse().ok())
            .collect::<Option<_>>()?;
        let [weapon, bluntness, monster_left, potion_left, weapon_left, avoid] = v.as_slice()
        else {
            return None;
        };
        Some(Weights {
            weapon: *weapon,
            bluntness: *bluntness,
            monster_left: *monster_left,
            potion_left: *potion_left,
            weapon_left: *weapon_left,
            avoid: *avoid,
        })
    }
}

pub struct DungeonBot<R> {
    rng: R,
    pub weights: Weights,
}

impl<R: Rng> DungeonBot<R> {
    pub fn new(rng: R) -> Self {
        DungeonBot {
            rng,
            weights: Weights::default(),
        }
    }
}

/// What a weapon is worth for the rest of the dungeon: its value, scaled by how strong a
/// monster it may still fight.
fn weapon_worth(life: &Life, w8: &Weights) -> f64 {
    let Some(w) = life.weapon else {
        return 0.0;
    };
    let limit = life.slain.last().map(|l| value(*l)).unwrap_or(14);
    f64::from(value(w)) * (f64::from(limit.min(14)) / 14.0).powf(w8.bluntness)
}

/// How good a position is: health first, then the weapon's worth, then the card left behind.
pub fn worth(life: &Life, left: &[CardId], escaped: bool, w8: &Weights) -> f64 {
    if life.dead() {
        return -1000.0 - f64::from(ALL_MONSTERS - life.monsters_faced);
    }
    if escaped {
        return 1000.0 + f64::from(life.score(Status::Ended(End::Escaped)));
    }
    let mut w = f64::from(life.health) + w8.weapon * weapon_worth(life, w8);
    for c in left {
        w += match kind(*c) {
            Kind::Monster(v) => {
                let fought = if life.weapon_can(v) {
                    life.weapon
                        .map(|x| f64::from(v.saturating_sub(value(x))))
                        .unwrap_or(0.0)
                } else {
                    f64::from(v)
                };
                -w8.monster_left * fought
            }
            Kind::Potion(v) => {
                w8.potion_left * f64::from(v).min(f64::from(20 - life.health.min(20)))
            }
            Kind::Weapon(v) => w8.weapon_left * f64::from(v),
        };
    }
    w
}

/// The bot's judgement of one legal move from what `view` shows its seat.
pub fn judge(view: &ScoundrelView, a: &Action, w8: &Weights) -> f64 {
    let Some(me) = view.viewer else { return 0.0 };
    let Some(e) = view
        .entrants
        .iter()
        .find(|e| e.seat == me)
        .map(|e| &e.board)
    else {
        return 0.0;
    };
    let Some(life) = e.life.clone() else {
        return 0.0;
    };
    let room: Option<Vec<CardId>> = e.room.iter().copied().collect();
    let Some(room) = room else { return 0.0 };
    match a {
        Action::GiveUp => -2000.0,
        Action::Avoid => worth(&life, &[], false, w8) - w8.avoid,
        Action::Face { takes, .. } => {
            let mut l2 = life.clone();
            let mut potion = false;
            for Take { slot, weapon } in takes {
                let _ = l2.face(room[usize::from(*slot)], *weapon, &mut potion);
            }
            let left: Vec<CardId> = room
                .iter()
                .enumerate()
                .filter(|(i, _)| !takes.iter().any(|t| usize::from(t.slot) == *i))
                .map(|(_, c)| *c)
                .collect();
            let escaped = left.is_empty() && e.dungeon_left == 0 && !l2.dead();
            worth(&l2, &left, escaped, w8)
        }
    }
}

impl<R: Rng + Send> Bot<Scoundrel> for DungeonBot<R> {
    fn choose(&mut self, view: &ScoundrelView, legal: &[Action]) -> Action {
        best_judged(legal, &mut self.rng, |a| judge(view, a, &self.weights))
    }

    fn name(&self) -> &str {
        "dungeon"
    }
}

/// The dungeon bot (seat 0, with these weights) and the random player (seat 1) on `deals`
/// deals drawn from `seed`, through the race kit: reproducible. A win is an escape.
pub fn duplicate(deals: u64, seed: u64, weights: Weights) -> Duplicate {
    crate::games::race::duplicate::<Dungeon>(
        deals,
        seed,
        &Setup { players: 2 },
        |rng| {
            let mut smart = DungeonBot::new(rng);
            smart.weights = weights;
            Box::new(smart)
        },
        // Uniform over every legal move, give-up included: Scoundrel's `easy` bot, the
        // baseline its figures in BENCHMARKS.md were measured against.
        |rng| Box::new(RandomBot::new(rng)),
        End::Escaped,
    )
}
