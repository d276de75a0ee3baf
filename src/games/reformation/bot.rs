//! A Tolerance: Reformation bot that sees only its view. It values a trick by resolving its End
//! of Trick effects as if it won (the money and piety it would collect at the worth of a
//! pennant, the living cards its Role scores, the deaths its Role likes or not), plays the
//! cheapest card that wins a trick worth having and throws its lowest card (a Wild card declared
//! off-suit) when it is not; effect targets and the Royal Execution go to the card it values
//! least or an opponent's most valuable one.

use super::data::{Data, Faith, Reign, Role, RoleDef, Suit};
use super::effects::{self, Acted, ChoiceKind, Gains, TrickCard};
use super::game::{Action, Phase, ReformView, Reformation};
use crate::bots::Bot;
use crate::cards::CardId;
use crate::engine::Seat;
use rand::Rng;

pub struct ReformBot<R> {
    rng: R,
}

impl<R: Rng> ReformBot<R> {
    pub fn new(rng: R) -> Self {
        ReformBot { rng }
    }
}

/// What the bot knows of its own position.
struct Eye<'a> {
    data: &'a Data,
    role: &'a RoleDef,
    reign: &'a Reign,
    round: u8,
    me: Seat,
    money: i32,
    players: usize,
}

impl Eye<'_> {
    fn def(&self, c: CardId) -> &super::data::CardDef {
        &self.data.cards[usize::from(c.0)]
    }

    /// VP a unit of each tally is worth: a pennant per ten at the Role's multiplier, never
    /// nothing (piety and money also win ties and avoid Loans).
    fn weights(&self) -> (f64, f64, f64) {
        let w = |m: i32| (f64::from(m) / f64::from(self.data.rules.pennant_step)).max(0.08);
        (
            w(self.role.end.money),
            w(self.role.end.catholic),
            w(self.role.end.protestant),
        )
    }

    /// A living card on this bot's board, in VP.
    fn living(&self, c: CardId, faith: Option<Faith>) -> f64 {
        let d = self.def(c);
        let cat = self.reign.suit(d.suit);
        let mut v = 0.6 + f64::from(cat.per_card) + 0.35 * f64::from(cat.most.max(0));
        v += 0.25 * f64::from(cat.at_least_one.max(0));
        if d.guild {
            let g = self.reign.guild;
            v +=
                f64::from(g.per_card) + 0.35 * f64::from(g.most) + 0.25 * f64::from(g.at_least_one);
        }
        let (_, wc, wp) = self.weights();
        // End of Round piety: one per living card of a religion.
        v += match faith {
            Some(Faith::Catholic) => wc,
            Some(Faith::Protestant) => wp,
            None => 0.0,
        };
        v
    }

    /// A dead card on this bot's board, in VP.
    fn dead(&self, faith: Option<Faith>) -> f64 {
        match faith {
            Some(Faith::Catholic) => f64::from(self.reign.dead_catholic),
            Some(Faith::Protestant) => f64::from(self.reign.dead_protestant),
            None => 0.0,
        }
    }

    /// What a card is worth to whoever holds it, for targets: money, piety and a living card.
    fn worth(&self, c: &TrickCard) -> f64 {
        let d = self.def(c.card.expect("shown"));
        f64::from(d.money) * 0.3
            + f64::from(d.piety) * 0.2
            + self.living(c.card.expect("shown"), c.faith)
    }

    /// The trick resolved as if this bot won it, in VP.
    fn trick_value(&self, trick: &[TrickCard]) -> f64 {
        let mut t = trick.to_vec();
        let mut gains = Gains::default();
        for i in effects::order(self.data, &t) {
            if !t[i].alive {
                continue;
            }
            if let Acted::Choose { kind, options } =
                effects::act(self.data, self.round, &mut t, i, &mut gains)
            {
                let pick = self.pick(&t, kind, &options);
                effects::chosen(self.data, &mut t, kind, pick, &mut gains);
            }
        }
        let (wm, wc, wp) = self.weights();
        let mut v = f64::from(gains.money) * wm
            + f64::from(gains.catholic) * wc
            + f64::from(gains.protestant) * wp;
        if self.money + gains.money < 0 {
            v -= f64::from(self.data.rules.loan_penalty);
        }
        for c in &t {
            let card = c.card.expect("shown");
            v += if c.alive {
                self.living(card, c.faith)
            } else {
                self.dead(c.faith)
            };
        }
        v
    }

    /// The option of an effect's choice this bot prefers.
    fn pick(&self, t: &[TrickCard], kind: ChoiceKind, options: &[usize]) -> usize {
        let key = |i: &usize| {
            let c = &t[*i];
            match kind {
                // Kill what it values least (its death counted as the Role counts it).
                ChoiceKind::Kill => self.worth(c) - self.dead(c.faith),
                ChoiceKind::Piety => -f64::from(self.def(c.card.expect("shown")).piety),
            }
        };
        *options
            .iter()
            .min_by(|a, b| key(a).total_cmp(&key(b)))
            .expect("a choice has options")
    }
}

fn best_of<T: Copy>(items: impl IntoIterator<Item = (T, f64)>) -> Option<T> {
    items
        .into_iter()
        .fold(None, |acc: Option<(T, f64)>, (t, v)| match acc {
            Some((_, b)) if b >= v => acc,
            _ => Some((t, v)),
        })
        .map(|(t, _)| t)
}

impl<R: Rng + Send> ReformBot<R> {
    fn play(&mut self, eye: &Eye, v: &ReformView, legal: &[Action]) -> Action {
        let leading = v.trick.is_empty();
        let last = v.trick.len() + 1 == eye.players;
        let data = eye.data;
        let led = v.led;
        let scored = legal.iter().filter_map(|a| {
            let Action::Play { position, declare } = *a else {
                return None;
            };
            let card = v.card_at(position)?;
            let d = eye.def(card);
            let mine = TrickCard {
                seat: eye.me,
                position,
                card: Some(card),
                declared: declare,
                alive: true,
                faith: d.religion.in_round(eye.round),
                converted: false,
            };
            let mut t = v.trick.clone();
            let faith = mine.faith;
            t.push(mine);
            let rank = f64::from(d.rank) / 14.0;
            let score = if leading {
                // Lead strength: a high card of a real suit tends to take the trick; a Wild
                // card is kept for following.
                let wild = if d.suit == Suit::Wild { -0.8 } else { 0.0 };
                let decl = match declare {
                    Some(Suit::Nobles) => 0.01,
                    _ => 0.0,
                };
                rank * 2.0 + eye.living(card, faith) * 0.3 + wild + decl
            } else {
                let wins = effects::winner(data, &t) == t.len() - 1;
                let value = eye.trick_value(&t);
                let follows = declare.is_none_or(|s| Some(s) == led);
                if wins {
                    let sure = if last { 1.0 } else { 0.5 + 0.5 * rank };
                    value * sure - rank * 0.4
                } else {
                    // Throwing a card away: the lowest, and a Wild card off-suit only when the
                    // trick is not worth winning.
                    let off = if follows { 0.0 } else { -0.05 };
                    -rank * 0.6 - eye.living(card, faith) * 0.2 + off
                        - if d.suit == Suit::Wild { 0.5 } else { 0.0 }
                }
            };
            Some((*a, score))
        });
        let choice = best_of(scored);
        choice.unwrap_or_else(|| legal[self.rng.gen_range(0..legal.len())])
    }
}

impl<R: Rng + Send> Bot<Reformation> for ReformBot<R> {
    fn choose(&mut self, v: &ReformView, legal: &[Action]) -> Action {
        let Some(me) = v.viewer else {
            return legal[0];
        };
        let data = v.data();
        let role = data.role(v.player(me).and_then(|p| p.role).unwrap_or(Role::Bertram));
        let eye = Eye {
            data,
            role,
            reign: &role.reigns[usize::from(v.round.clamp(1, 3) - 1)],
            round: v.round.max(1),
            me,
            money: v.player(me).map_or(0, |p| p.money),
            players: v.players.len(),
        };
        match v.phase {
            Phase::Play => self.play(&eye, v, legal),
            Phase::Effects => {
                let options: Vec<usize> = legal
                    .iter()
                    .filter_map(|a| match a {
                        Action::Choose { index } => Some(usize::from(*index)),
                        _ => None,
                    })
                    .collect();
                match v.choice.as_ref() {
                    Some(c) if !options.is_empty() => Action::Choose {
                        index: eye.pick(&v.trick, c.kind, &options) as u8,
                    },
                    _ => legal[0],
                }
            }
            Phase::Execute => {
                // An opponent's most valuable visible card; its own least valuable otherwise.
                let scored = legal.iter().filter_map(|a| {
                    let Action::Execute { position } = *a else {
                        return None;
                    };
                    let card = v.card_at(position)?;
                    let owner = v.owner_of(position)?;
                    let d = eye.def(card);
                    let w = f64::from(d.money) * 0.3 + f64::from(d.piety) * 0.2 + 1.0;
                    Some((*a, if owner == me { -10.0 - w } else { w }))
                });
                best_of(scored).unwrap_or(legal[0])
            }
            Phase::Repay => *legal.last().expect("a repay move"),
            Phase::Start => Action::Start { seat: me },
            _ => legal[self.rng.gen_range(0..legal.len())],
        }
    }

    fn name(&self) -> &str {
        "reformation"
    }
}
