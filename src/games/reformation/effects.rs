//! The trick: who wins it, the order its cards act in, and what each End of Trick effect does
//! (`protocol/rules/reformation.md` § The trick, § End of Trick effects). Pure functions over
//! the trick's cards; the game applies their gains and asks the winner for choices.

use super::data::{Count, Data, Effect, Faith, Measure, Suit, Target};
use crate::cards::CardId;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};

/// A card in the trick on the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrickCard {
    pub seat: Seat,
    /// The hand slot it was played from (its deck position).
    pub position: u16,
    /// `None` until it is shown (every card played is shown to everyone).
    pub card: Option<CardId>,
    /// The suit a Wild card was declared as.
    pub declared: Option<Suit>,
    pub alive: bool,
    /// Its religion now: the printed one in this reign, or what a conversion made it.
    pub faith: Option<Faith>,
    pub converted: bool,
}

/// What the trick's winner collects, applied when the trick's scoring ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gains {
    pub money: i32,
    pub catholic: i32,
    pub protestant: i32,
}

/// A choice an effect leaves to the trick's winner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChoiceKind {
    /// Which card to kill.
    Kill,
    /// Whose piety to collect.
    Piety,
}

/// Why an effect did nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quiet {
    /// No living card it could act on.
    NoTarget,
    /// The lowest piety it found was not lower than its own.
    NotLower,
}

/// What one effect did, for the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "did")]
pub enum Did {
    /// Collected money from these cards (the winner's gain).
    Taxes {
        from: Vec<CardId>,
        amount: i32,
    },
    Piety {
        from: Vec<CardId>,
        catholic: i32,
        protestant: i32,
    },
    LostPiety {
        amount: i32,
    },
    Killed {
        victims: Vec<CardId>,
    },
    Condemned {
        victims: Vec<CardId>,
    },
    Converted {
        victims: Vec<CardId>,
        to: Faith,
    },
    Nothing {
        why: Quiet,
    },
}

/// The outcome of a card's turn to act.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Acted {
    Done(Vec<Did>),
    /// The winner must pick one of these trick cards (indices).
    Choose {
        kind: ChoiceKind,
        options: Vec<usize>,
    },
}

fn def<'a>(data: &'a Data, c: &TrickCard) -> &'a super::data::CardDef {
    &data.cards[usize::from(c.card.expect("a card acts once shown").0)]
}

/// The suit a card counts as for following and winning: a Wild card's declaration.
pub fn effective_suit(data: &Data, c: &TrickCard) -> Suit {
    c.declared.unwrap_or_else(|| def(data, c).suit)
}

/// The trick's winner (an index): the highest rank among cards of the suit led (Wild cards
/// declared as it included); between equal ranks the card played first (§ The trick).
pub fn winner(data: &Data, trick: &[TrickCard]) -> usize {
    let led = effective_suit(data, &trick[0]);
    let mut best = 0;
    for (i, c) in trick.iter().enumerate().skip(1) {
        if effective_suit(data, c) == led && def(data, c).rank > def(data, &trick[best]).rank {
            best = i;
        }
    }
    best
}

/// The order the cards act in: rank from highest, then Nobles, Clergy, Townsfolk, Peasants,
/// Wild (a Wild card as its own suit, whatever it was declared), then the order played.
pub fn order(data: &Data, trick: &[TrickCard]) -> Vec<usize> {
    let mut v: Vec<usize> = (0..trick.len()).collect();
    v.sort_by_key(|&i| {
        let d = def(data, &trick[i]);
        (std::cmp::Reverse(d.rank), d.suit, i)
    });
    v
}

/// Whether `c` is one of `targets` in reign `round` (a card's own suit, never its declaration).
pub fn matches(data: &Data, round: u8, c: &TrickCard, targets: &[Target]) -> bool {
    let d = def(data, c);
    targets.iter().any(|t| match t {
        Target::All => true,
        Target::Nobles => d.suit == Suit::Nobles,
        Target::Clergy => d.suit == Suit::Clergy,
        Target::Townsfolk => d.suit == Suit::Townsfolk,
        Target::Peasants => d.suit == Suit::Peasants,
        Target::Wild => d.suit == Suit::Wild,
        Target::Catholic => c.faith == Some(Faith::Catholic),
        Target::Protestant => c.faith == Some(Faith::Protestant),
        Target::CrownsFaith => c.faith == super::data::prevailing(round),
    })
}

fn selected(
    data: &Data,
    round: u8,
    trick: &[TrickCard],
    from: &[Target],
    except: &[Target],
) -> Vec<usize> {
    (0..trick.len())
        .filter(|&i| {
            trick[i].alive
                && matches(data, round, &trick[i], from)
                && !matches(data, round, &trick[i], except)
        })
        .collect()
}

fn cards(trick: &[TrickCard], idx: &[usize]) -> Vec<CardId> {
    idx.iter().map(|&i| trick[i].card.expect("shown")).collect()
}

fn collect_taxes(data: &Data, trick: &[TrickCard], idx: &[usize], gains: &mut Gains) -> Did {
    let amount: i32 = idx.iter().map(|&i| def(data, &trick[i]).money).sum();
    gains.money += amount;
    Did::Taxes {
        from: cards(trick, idx),
        amount,
    }
}

fn collect_piety(data: &Data, trick: &[TrickCard], idx: &[usize], gains: &mut Gains) -> Did {
    let (mut catholic, mut protestant) = (0, 0);
    for &i in idx {
        let p = def(data, &trick[i]).piety;
        match trick[i].faith {
            Some(Faith::Catholic) => catholic += p,
            Some(Faith::Protestant) => protestant += p,
            None => {}
        }
    }
    gains.catholic += catholic;
    gains.protestant += protestant;
    Did::Piety {
        from: cards(trick, idx),
        catholic,
        protestant,
    }
}

fn kill(trick: &mut [TrickCard], idx: &[usize]) -> Vec<CardId> {
    for &i in idx {
        trick[i].alive = false;
    }
    cards(trick, idx)
}

/// The other living cards of `faith` with the lowest piety, if lower than the actor's.
fn lowest(
    data: &Data,
    trick: &[TrickCard],
    actor: usize,
    faith: Faith,
) -> Result<Vec<usize>, Quiet> {
    let cands: Vec<usize> = (0..trick.len())
        .filter(|&i| i != actor && trick[i].alive && trick[i].faith == Some(faith))
        .collect();
    let min = cands
        .iter()
        .map(|&i| def(data, &trick[i]).piety)
        .min()
        .ok_or(Quiet::NoTarget)?;
    if min >= def(data, &trick[actor]).piety {
        return Err(Quiet::NotLower);
    }
    Ok(cands
        .into_iter()
        .filter(|&i| def(data, &trick[i]).piety == min)
        .collect())
}

/// Card `actor` (alive, shown) acts. Gains go to `gains`; a choice with more than one option is
/// returned for the winner (one option is taken at once).
pub fn act(
    data: &Data,
    round: u8,
    trick: &mut [TrickCard],
    actor: usize,
    gains: &mut Gains,
) -> Acted {
    let Some(effect) = def(data, &trick[actor]).effect.clone() else {
        return Acted::Done(Vec::new());
    };
    let quiet = |why| Acted::Done(vec![Did::Nothing { why }]);
    match effect {
        Effect::Taxes { from, except } => {
            let idx = selected(data, round, trick, &from, &except);
            Acted::Done(vec![collect_taxes(data, trick, &idx, gains)])
        }
        Effect::Piety { from, except } => {
            let idx = selected(data, round, trick, &from, &except);
            Acted::Done(vec![collect_piety(data, trick, &idx, gains)])
        }
        Effect::TaxesAndPiety { from, except } => {
            let idx = selected(data, round, trick, &from, &except);
            Acted::Done(vec![
                collect_taxes(data, trick, &idx, gains),
                collect_piety(data, trick, &idx, gains),
            ])
        }
        Effect::PietyOfChoice => {
            let options: Vec<usize> = (0..trick.len())
                .filter(|&i| trick[i].alive && trick[i].faith.is_some())
                .collect();
            match options.len() {
                0 => quiet(Quiet::NoTarget),
                1 => Acted::Done(vec![collect_piety(data, trick, &options, gains)]),
                _ => Acted::Choose {
                    kind: ChoiceKind::Piety,
                    options,
                },
            }
        }
        Effect::Kill { targets, count } => {
            let cands: Vec<usize> = selected(data, round, trick, &targets, &[])
                .into_iter()
                .filter(|&i| i != actor)
                .collect();
            match (count, cands.len()) {
                (_, 0) => quiet(Quiet::NoTarget),
                (Count::All, _) | (Count::One, 1) => Acted::Done(vec![Did::Killed {
                    victims: kill(trick, &cands),
                }]),
                (Count::One, _) => Acted::Choose {
                    kind: ChoiceKind::Kill,
                    options: cands,
                },
            }
        }
        Effect::KillHighest { by } => {
            let value = |i: usize| {
                let d = def(data, &trick[i]);
                match by {
                    Measure::Rank => i32::from(d.rank),
                    Measure::Money => d.money,
                    Measure::Piety => d.piety,
                }
            };
            let cands: Vec<usize> = (0..trick.len())
                .filter(|&i| i != actor && trick[i].alive)
                .collect();
            match cands.iter().map(|&i| value(i)).max() {
                None => quiet(Quiet::NoTarget),
                Some(top) => {
                    let idx: Vec<usize> = cands.into_iter().filter(|&i| value(i) == top).collect();
                    Acted::Done(vec![Did::Killed {
                        victims: kill(trick, &idx),
                    }])
                }
            }
        }
        Effect::Condemn { religion } => match lowest(data, trick, actor, religion) {
            Err(why) => quiet(why),
            Ok(idx) => Acted::Done(vec![Did::Condemned {
                victims: kill(trick, &idx),
            }]),
        },
        Effect::Convert { from, to } => match lowest(data, trick, actor, from) {
            Err(why) => quiet(why),
            Ok(idx) => {
                for &i in &idx {
                    trick[i].faith = Some(to);
                    trick[i].converted = true;
                }
                Acted::Done(vec![Did::Converted {
                    victims: cards(trick, &idx),
                    to,
                }])
            }
        },
        Effect::LosePiety { amount } => {
            let a = i32::from(amount);
            gains.catholic -= a;
            gains.protestant -= a;
            Acted::Done(vec![Did::LostPiety { amount: a }])
        }
        // The Monarchs act at the end of the round, not of the trick.
        Effect::RoyalExecution => Acted::Done(Vec::new()),
    }
}

/// The winner's choice `pick` (a trick index among the options) for `actor`'s effect.
pub fn chosen(
    data: &Data,
    trick: &mut [TrickCard],
    kind: ChoiceKind,
    pick: usize,
    gains: &mut Gains,
) -> Did {
    match kind {
        ChoiceKind::Kill => Did::Killed {
            victims: kill(trick, &[pick]),
        },
        ChoiceKind::Piety => collect_piety(data, trick, &[pick], gains),
    }
}
