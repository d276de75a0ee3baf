//! reformation: the words of its record and table.

use crate::cards::CardId;
use crate::engine::Seat;
use crate::games::reformation::data::{faith_word, Data, Role, Suit};
use crate::games::reformation::effects::{ChoiceKind, Did, Quiet};
use crate::games::reformation::game::{Action, Entry, Phase, ReformView, Tally};
use crate::games::ui::words::{count, gone, says, whose};
use std::fmt::Write;

/// A card's name: "Valiant Knight".
pub fn name(data: &Data, c: CardId) -> String {
    data.label(usize::from(c.0))
}

/// A card with its suit and rank: "Valiant Knight (Nobles 8)".
pub fn card(data: &Data, c: CardId) -> String {
    let d = &data.cards[usize::from(c.0)];
    format!(
        "{} ({} {})",
        data.label(usize::from(c.0)),
        d.suit.word(),
        d.rank
    )
}

/// Its compact code: "N8", "W10".
pub fn code(data: &Data, c: CardId) -> String {
    let d = &data.cards[usize::from(c.0)];
    format!("{}{}", d.suit.letter(), d.rank)
}

/// "A, B and C".
pub fn list(items: &[String]) -> String {
    match items.len() {
        0 => "nothing".into(),
        1 => items[0].clone(),
        k => format!("{} and {}", items[..k - 1].join(", "), items[k - 1]),
    }
}

pub fn names_of(data: &Data, cs: &[CardId]) -> String {
    list(&cs.iter().map(|c| name(data, *c)).collect::<Vec<_>>())
}

pub fn seats(ss: &[Seat], n: &dyn Fn(Seat) -> String) -> String {
    list(&ss.iter().map(|s| n(*s)).collect::<Vec<_>>())
}

/// The verb alone, agreeing with `who` ("choose" for "you").
pub fn verb(who: &str, v: &str) -> String {
    says(who.to_string(), v)
        .rsplit(' ')
        .next()
        .unwrap_or(v)
        .to_string()
}

pub fn role_name(data: &Data, r: Role) -> String {
    data.role(r).name.clone()
}

pub fn tally(t: Tally) -> &'static str {
    match t {
        Tally::Money => "money",
        Tally::Catholic => "Catholic piety",
        Tally::Protestant => "Protestant piety",
    }
}

pub fn money(v: i32) -> String {
    count(v.unsigned_abs(), "money", "money")
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String, data: &Data) -> String {
    match e {
        Entry::RoleChosen { seat, role } => {
            format!("{} {}", says(n(*seat), "chooses"), role_name(data, *role))
        }
        Entry::AgendasChosen => {
            "everyone has chosen a Role in secret (Hidden Agendas: shown at the end)".into()
        }
        Entry::RolesDealt => {
            "the Roles are dealt face down: each player sees only its own until the end".into()
        }
        Entry::RolesShown { roles } => format!(
            "Roles: {}",
            roles
                .iter()
                .map(|(s, r)| format!("{} {}", n(*s), role_name(data, *r)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Entry::Reign { round, monarch } => format!(
            "— reign {round}: {}; prevailing religion: {} —",
            name(data, *monarch),
            faith_word(crate::games::reformation::data::prevailing(*round))
        ),
        Entry::Chooser { seat, by_lot } => chooser(n(*seat), *by_lot),
        Entry::Starts { chooser, seat } => {
            if chooser == seat {
                format!("{} to lead the first trick", says(n(*chooser), "chooses"))
            } else {
                format!(
                    "{} {} to lead the first trick",
                    says(n(*chooser), "chooses"),
                    n(*seat)
                )
            }
        }
        Entry::Played {
            seat,
            card: c,
            declared,
            leads,
            auto,
        } => played(n(*seat), card(data, *c), *declared, *leads, *auto),
        Entry::WonTrick { seat, card: c, trick } => format!(
            "{} trick {trick} with {}",
            says(n(*seat), "wins"),
            name(data, *c)
        ),
        Entry::Acted { seat, card: c, did } => acted(n(*seat), name(data, *c), did, data),
        Entry::Silenced { card: c } => {
            format!("{} died before acting: its effect never happens", name(data, *c))
        }
        Entry::Loan { seat, money: m } => {
            let who = n(*seat);
            format!(
                "{} below zero and {} a Loan: money back to {m}",
                says(who.clone(), "falls"),
                verb(&who, "takes")
            )
        }
        Entry::HeldAtZero { seat } => format!(
            "{} below zero again in this reign: held at 0 money (one Loan per reign)",
            says(n(*seat), "falls")
        ),
        Entry::Pennant { seat, tally: t, count: c } => {
            format!("{} pennant {c} of {}", says(n(*seat), "earns"), tally(*t))
        }
        Entry::Executed {
            seat,
            monarch,
            victim,
            owner,
        } => format!(
            "Royal Execution: {} ({}) executes {} on {} board",
            name(data, *monarch),
            whose(n(*seat)),
            name(data, *victim),
            whose(n(*owner))
        ),
        Entry::NoExecution { monarch, dead } => {
            if *dead {
                format!("{} died in this reign: no Royal Execution", name(data, *monarch))
            } else {
                format!("{} has no card to execute", name(data, *monarch))
            }
        }
        Entry::RoundTaxes { seat, money: m } => format!(
            "End of Round taxes: {} {}",
            says(n(*seat), "collects"),
            money(*m)
        ),
        Entry::RoundPiety {
            seat,
            catholic,
            protestant,
        } => format!(
            "End of Round piety: {} {catholic} Catholic and {protestant} Protestant",
            says(n(*seat), "gains")
        ),
        Entry::Repaid { seat, count: 0, .. } => {
            format!("{} the Loans unpaid", says(n(*seat), "leaves"))
        }
        Entry::Repaid {
            seat,
            count: c,
            money: m,
        } => format!(
            "{} {} for {}",
            says(n(*seat), "repays"),
            count(*c, "Loan", "Loans"),
            money(*m)
        ),
        Entry::Scored { seat, round, score } => format!(
            "reign {round}: {} {} for suits, {} for Guildmembers, {} for the dead: {} VP",
            says(n(*seat), "scores"),
            score.suits,
            score.guild,
            score.dead,
            score.total
        ),
        Entry::FinalScore { seat, score } => format!(
            "end of the game: {} {} for money, {} for Catholic and {} for Protestant pennants, {} for Loans: {} VP",
            says(n(*seat), "scores"),
            score.money,
            score.catholic,
            score.protestant,
            score.loans,
            score.total
        ),
        Entry::GameOver {
            winners,
            tie_broken,
        } => game_over(winners, *tie_broken, n),
        Entry::Misplayed { seat, card: c, why } => format!(
            "{} {}, which breaks the rules ({why}): the table removes {} and the game ends \
             without a winner",
            says(n(*seat), "plays"),
            card(data, *c),
            n(*seat)
        ),
        Entry::Forfeited { seat, reason } => format!(
            "{}: the game ends without a winner",
            gone(n(*seat), *reason)
        ),
    }
}

/// Who won, in words.
fn game_over(winners: &[Seat], tie_broken: bool, n: &dyn Fn(Seat) -> String) -> String {
    let tie = if tie_broken {
        " (tied on Victory Points: the most piety wins)"
    } else {
        ""
    };
    match winners.len() {
        0 => "nobody wins".into(),
        1 => format!("{} the game{tie}", says(n(winners[0]), "wins")),
        _ => format!(
            "{} share the win (tied on Victory Points and piety)",
            seats(winners, n)
        ),
    }
}

/// Who chooses the player leading the reign's first trick, and why.
fn chooser(who: String, by_lot: bool) -> String {
    if by_lot {
        format!("by lot, {} who leads the first trick", says(who, "chooses"))
    } else {
        format!(
            "{} the fewest Victory Points and {} who leads the first trick",
            says(who.clone(), "has"),
            verb(&who, "chooses")
        )
    }
}

/// What a card's effect did, in words: `who` won the trick with the card named `by`.
fn acted(who: String, by: String, did: &Did, data: &Data) -> String {
    match did {
        Did::Taxes { from, amount } if from.is_empty() => {
            format!("{by} finds no card to tax")
        }
        Did::Taxes { from, amount } => {
            let got = if *amount >= 0 {
                format!("{} {}", says(who, "collects"), money(*amount))
            } else {
                format!("{} {}", says(who, "pays"), money(*amount))
            };
            format!("{by} taxes {}: {got}", names_of(data, from))
        }
        Did::Piety { from, .. } if from.is_empty() => {
            format!("{by} finds no card to collect piety from")
        }
        Did::Piety {
            from,
            catholic,
            protestant,
        } => {
            let mut parts = Vec::new();
            if *catholic != 0 {
                parts.push(format!("{catholic} Catholic"));
            }
            if *protestant != 0 {
                parts.push(format!("{protestant} Protestant"));
            }
            let got = if parts.is_empty() {
                format!("{} no piety (no religion among them)", says(who, "gains"))
            } else {
                format!("{} {} piety", says(who, "gains"), parts.join(" and "))
            };
            format!("{by} collects piety from {}: {got}", names_of(data, from))
        }
        Did::LostPiety { amount } => format!(
            "{by}: {} {amount} Catholic and {amount} Protestant piety",
            says(who, "loses")
        ),
        Did::Killed { victims } => format!("{by} kills {}", names_of(data, victims)),
        Did::Condemned { victims } => {
            format!("{by} condemns {} to death", names_of(data, victims))
        }
        Did::Converted { victims, to } => {
            format!("{by} converts {} to {}", names_of(data, victims), to.word())
        }
        Did::Nothing {
            why: Quiet::NoTarget,
        } => format!("{by} has no card to act on: no effect"),
        Did::Nothing {
            why: Quiet::NotLower,
        } => format!("{by} finds no target of lower piety: no effect"),
    }
}

/// A card played, in words: `who` plays the card `shown` (declared as a suit, leading the
/// trick, or played for it when its time ran out).
fn played(who: String, shown: String, declared: Option<Suit>, leads: bool, auto: bool) -> String {
    let mut s = String::new();
    if auto {
        let _ = write!(
            s,
            "time is up for {who}: {} hand is shown and its lowest legal card played: ",
            whose(who.clone())
        );
    }
    let _ = write!(
        s,
        "{} {}",
        says(who, if leads { "leads" } else { "plays" }),
        shown
    );
    if let Some(d) = declared {
        let _ = write!(s, " as {}", d.word());
    }
    s
}

/// A move in words, as the view's seat knows it.
pub fn move_words(view: &ReformView, a: &Action) -> String {
    let data = view.data();
    let card_at = |p: u16| {
        view.card_at(p)
            .map(|c| card(data, c))
            .unwrap_or_else(|| format!("the card in slot {p}"))
    };
    match a {
        Action::Role { role } => format!(
            "choose {}",
            data.roles
                .get(usize::from(*role))
                .map_or("that Role".into(), |r| r.name.clone())
        ),
        Action::Agenda { position } => {
            let role = view
                .agenda
                .iter()
                .find(|(p, _)| p == position)
                .and_then(|(_, r)| *r)
                .and_then(|r| data.roles.get(usize::from(r)));
            match role {
                Some(r) => format!("choose {} in secret", r.name),
                None => format!("choose the Role in slot {position}"),
            }
        }
        Action::Start { seat } => format!("seat {seat} leads"),
        Action::Play { position, declare } => match declare {
            Some(d) => format!("play {} as {}", card_at(*position), d.word()),
            None => format!("play {}", card_at(*position)),
        },
        Action::Choose { index } => {
            let c = view
                .trick
                .get(usize::from(*index))
                .and_then(|c| c.card)
                .map(|c| card(data, c))
                .unwrap_or_else(|| "that card".into());
            match view.choice.as_ref().map(|c| c.kind) {
                Some(ChoiceKind::Piety) => format!("collect the piety of {c}"),
                _ => format!("kill {c}"),
            }
        }
        Action::Execute { position } => {
            let owner = view
                .owner_of(*position)
                .map(|s| format!(" of seat {s}"))
                .unwrap_or_default();
            format!("execute {}{owner}", card_at(*position))
        }
        Action::Repay { count: c } => format!("repay {}", count(*c, "Loan", "Loans")),
        Action::Auto => "let the table play your lowest legal card (your hand is shown)".into(),
    }
}

/// The card of `view`'s hand a person named: its name ("Bailiff 10"), its code ("W10") or its
/// place in the hand (1 = leftmost).
pub fn hand_card(view: &ReformView, word: &str) -> Result<u16, String> {
    let data = view.data();
    let w = word.trim();
    if let Ok(i) = w.parse::<usize>() {
        return view
            .hand
            .get(i.wrapping_sub(1))
            .map(|(p, _)| *p)
            .ok_or_else(|| format!("your hand has {} cards", view.hand.len()));
    }
    view.hand
        .iter()
        .find(|(_, c)| {
            c.is_some_and(|c| {
                name(data, c).eq_ignore_ascii_case(w) || code(data, c).eq_ignore_ascii_case(w)
            })
        })
        .map(|(p, _)| *p)
        .ok_or_else(|| {
            format!("'{w}' is not a card of your hand (name it, as Valiant Knight or N8)")
        })
}

/// One of `options` (cards) a person named by number (1 = first) or name.
pub fn pick<T: Copy>(options: &[(T, String)], word: &str, what: &str) -> Result<T, String> {
    let w = word.trim();
    if let Ok(i) = w.parse::<usize>() {
        if let Some((t, _)) = options.get(i.wrapping_sub(1)) {
            return Ok(*t);
        }
    }
    options
        .iter()
        .find(|(_, s)| s.eq_ignore_ascii_case(w))
        .map(|(t, _)| *t)
        .ok_or_else(|| {
            format!(
                "name {what}: {}",
                options
                    .iter()
                    .enumerate()
                    .map(|(i, (_, s))| format!("{} {s}", i + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// The options of the choice or execution now, as (move, name) pairs.
pub fn card_options(view: &ReformView, legal: &[Action]) -> Vec<(Action, String)> {
    let data = view.data();
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Choose { index } => view
                .trick
                .get(usize::from(*index))
                .and_then(|c| c.card)
                .map(|c| (*a, name(data, c))),
            Action::Execute { position } => view.card_at(*position).map(|c| (*a, name(data, c))),
            _ => None,
        })
        .collect()
}

/// A typed move, checked only for its form (the session checks legality).
pub fn parse(input: &str, view: &ReformView, legal: &[Action]) -> Result<Action, String> {
    let data = view.data();
    let text = input.trim();
    let lower = text.to_ascii_lowercase();
    let (word, rest) = match lower.split_once(' ') {
        Some((w, _)) => (w.to_string(), text[w.len()..].trim().to_string()),
        None => (lower.clone(), String::new()),
    };
    match view.phase {
        Phase::Play => {
            let body = if word == "play" || word == "lead" {
                rest
            } else {
                text.to_string()
            };
            if body.eq_ignore_ascii_case("auto") {
                return Ok(Action::Auto);
            }
            let lower = body.to_ascii_lowercase();
            let (card_word, declare) = match lower.rfind(" as ") {
                Some(i) => (
                    body[..i].to_string(),
                    Some(Suit::parse(&body[i + 4..]).ok_or_else(|| {
                        format!(
                            "'{}' is not a suit: declare Nobles, Clergy, Townsfolk or Peasants",
                            &body[i + 4..]
                        )
                    })?),
                ),
                None => (body.clone(), None),
            };
            let position = hand_card(view, &card_word)?;
            let is_wild = view
                .hand
                .iter()
                .find(|(p, _)| *p == position)
                .and_then(|(_, c)| *c)
                .is_some_and(|c| data.cards[usize::from(c.0)].suit == Suit::Wild);
            if is_wild && declare.is_none() {
                let led = view.led.map(|s| s.word()).unwrap_or("Nobles");
                return Err(format!(
                    "a Wild card is declared as a suit: add 'as {led}' (or Nobles, Clergy, \
                     Townsfolk, Peasants)"
                ));
            }
            Ok(Action::Play { position, declare })
        }
        Phase::Effects | Phase::Execute => {
            let body = if ["choose", "kill", "collect", "execute"].contains(&word.as_str()) {
                rest
            } else {
                text.to_string()
            };
            pick(&card_options(view, legal), &body, "a card")
        }
        Phase::Start => {
            let body = if word == "start" || word == "lead" {
                rest
            } else {
                text.to_string()
            };
            let b = body.trim().trim_start_matches('#').to_ascii_lowercase();
            if b == "me" || b == "you" || b == "myself" {
                return view
                    .viewer
                    .map(|seat| Action::Start { seat })
                    .ok_or_else(|| "you are not seated".into());
            }
            b.parse::<Seat>()
                .map(|seat| Action::Start { seat })
                .map_err(|_| "name the player who leads by seat number (#2) or 'me'".into())
        }
        Phase::Repay => {
            let body = if word == "repay" {
                rest
            } else {
                text.to_string()
            };
            match body.trim().to_ascii_lowercase().as_str() {
                "" | "no" | "none" => Ok(Action::Repay { count: 0 }),
                n => n
                    .parse::<u8>()
                    .map(|count| Action::Repay { count })
                    .map_err(|_| "type how many Loans to repay (0 for none)".into()),
            }
        }
        Phase::Roles => {
            let body = if word == "role" || word == "choose" {
                rest
            } else {
                text.to_string()
            };
            let options: Vec<(Action, String)> = view
                .free_roles
                .iter()
                .map(|r| {
                    (
                        Action::Role { role: *r },
                        data.roles[usize::from(*r)].name.clone(),
                    )
                })
                .collect();
            pick(&options, &body, "a Role")
        }
        Phase::Agendas => {
            let body = if word == "role" || word == "choose" {
                rest
            } else {
                text.to_string()
            };
            let options: Vec<(Action, String)> = view
                .agenda
                .iter()
                .filter_map(|(p, r)| {
                    r.map(|r| {
                        (
                            Action::Agenda { position: *p },
                            data.roles[usize::from(r)].name.clone(),
                        )
                    })
                })
                .collect();
            pick(&options, &body, "a Role")
        }
        _ => Err("it is not your move".into()),
    }
}

/// An effect in words: "kills one Noble or Peasant (your choice)".
pub fn effect_text(e: &crate::games::reformation::data::Effect) -> String {
    use crate::games::reformation::data::{Count, Effect, Measure, Target};
    let targets = |t: &[Target]| list(&t.iter().map(|x| x.word().to_string()).collect::<Vec<_>>());
    let except = |t: &[Target]| {
        if t.is_empty() {
            String::new()
        } else {
            format!(" except {}", targets(t))
        }
    };
    match e {
        Effect::Taxes { from, except: x } => format!("taxes {}{}", targets(from), except(x)),
        Effect::Piety { from, except: x } => {
            format!("collects the piety of {}{}", targets(from), except(x))
        }
        Effect::TaxesAndPiety { from, except: x } => format!(
            "collects the taxes and piety of {}{}",
            targets(from),
            except(x)
        ),
        Effect::PietyOfChoice => "collects the piety of one card of your choice".into(),
        Effect::Kill {
            targets: t,
            count: Count::One,
        } => format!("kills one of {} (your choice)", targets(t)),
        Effect::Kill {
            targets: t,
            count: Count::All,
        } => format!("kills all {}", targets(t)),
        Effect::KillHighest { by } => format!(
            "kills the highest {} card(s)",
            match by {
                Measure::Rank => "rank",
                Measure::Money => "money",
                Measure::Piety => "piety",
            }
        ),
        Effect::Condemn { religion } => format!(
            "condemns the lowest-piety {} (if lower than its own)",
            religion.word()
        ),
        Effect::Convert { from, to } => format!(
            "converts the lowest-piety {} to {} (if lower than its own)",
            from.word(),
            to.word()
        ),
        Effect::LosePiety { amount } => format!("you lose {amount} of each piety"),
        Effect::RoyalExecution => "Royal Execution at the end of the reign".into(),
    }
}

/// A card's face in one line: "C10 Preacher Gilbert · Catholic · money -2 · piety 6 · converts …".
pub fn card_detail(data: &Data, c: CardId, round: u8) -> String {
    let d = &data.cards[usize::from(c.0)];
    let religion = match d.religion {
        crate::games::reformation::data::Religion::Prevailing => format!(
            "the prevailing religion ({})",
            faith_word(crate::games::reformation::data::prevailing(round.max(1)))
        ),
        r => faith_word(r.in_round(round)).to_string(),
    };
    let mut s = format!(
        "{} {} · {religion} · money {} · piety {}",
        code(data, c),
        name(data, c),
        d.money,
        d.piety
    );
    if d.guild {
        s.push_str(" · Guildmember");
    }
    if let Some(e) = &d.effect {
        let _ = write!(s, " · {}", effect_text(e));
    }
    s
}
