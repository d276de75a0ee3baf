//! A Scoundrel bot that sees only its view: it weighs every turn it may play by the health it
//! keeps, the weapon it keeps usable and the card it leaves in the room, and avoids a room whose
//! best turn costs more than an average room would (protocol/rules/scoundrel.md §9).

use super::game::{kind, value, Action, Kind, Life, ScoundrelView, Take, ALL_MONSTERS};
use super::Scoundrel;
use crate::bots::{Bot, RandomBot};
use crate::cards::CardId;
use crate::engine::sim::{play_out, Oracle};
use crate::engine::Game;
use rand::Rng;
use rand::{rngs::StdRng, SeedableRng};

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
        return 1000.0 + f64::from(life.score(super::game::Status::Escaped));
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
    let Some(e) = view.entrants.iter().find(|e| e.seat == me) else {
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
        let mut best: Vec<&Action> = Vec::new();
        let mut top = f64::NEG_INFINITY;
        for a in legal {
            let w = judge(view, a, &self.weights);
            if w > top + 1e-9 {
                top = w;
                best = vec![a];
            } else if (w - top).abs() <= 1e-9 {
                best.push(a);
            }
        }
        best[self.rng.gen_range(0..best.len())].clone()
    }

    fn name(&self) -> &str {
        "dungeon"
    }
}

/// The dungeon bot and the random player on the same deals (a two-entrant race per deal, so
/// both face the same dungeon): mean scores with their standard errors, and escape rates.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    pub deals: u64,
    pub bot_mean: f64,
    pub bot_se: f64,
    pub random_mean: f64,
    pub random_se: f64,
    pub bot_escapes: f64,
    pub random_escapes: f64,
    /// Mean of (bot − random) per deal, and its standard error.
    pub margin: f64,
    pub margin_se: f64,
}

fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, (var / n).sqrt())
}

/// Plays `deals` races of the dungeon bot (seat 0) against the random player (seat 1), every
/// deal from `seed`: reproducible.
pub fn duplicate(deals: u64, seed: u64, weights: Weights) -> Duplicate {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed));
    let (mut bot, mut rnd, mut diff) = (Vec::new(), Vec::new(), Vec::new());
    let (mut bot_esc, mut rnd_esc) = (0u64, 0u64);
    for k in 0..deals {
        let mut g = Scoundrel::new(&super::Setup { players: 2 }).expect("two entrants");
        let mut smart = DungeonBot::new(StdRng::seed_from_u64(seed ^ k));
        smart.weights = weights;
        let mut random = RandomBot::new(StdRng::seed_from_u64(seed ^ (k + (1 << 40))));
        let (o, _) = play_out(&mut g, &mut oracle, 10_000, |g, seat, legal| {
            let v = g.view(Some(seat));
            if seat == 0 {
                smart.choose(&v, &legal)
            } else {
                Bot::<Scoundrel>::choose(&mut random, &v, &legal)
            }
        })
        .expect("a race ends");
        let score = |s: u8| {
            o.payoffs
                .iter()
                .find(|(x, _)| *x == s)
                .map(|x| x.1)
                .unwrap_or(0) as f64
        };
        bot.push(score(0));
        rnd.push(score(1));
        diff.push(score(0) - score(1));
        bot_esc += u64::from(g.entrants[0].status == super::Status::Escaped);
        rnd_esc += u64::from(g.entrants[1].status == super::Status::Escaped);
    }
    let (bot_mean, bot_se) = mean_se(&bot);
    let (random_mean, random_se) = mean_se(&rnd);
    let (margin, margin_se) = mean_se(&diff);
    Duplicate {
        deals,
        bot_mean,
        bot_se,
        random_mean,
        random_se,
        bot_escapes: bot_esc as f64 / deals as f64,
        random_escapes: rnd_esc as f64 / deals as f64,
        margin,
        margin_se,
    }
}
