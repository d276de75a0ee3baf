//! Tolerance: Reformation's entry in the game registry: its setup and variants, bots, and the
//! game in words (story, table, prompts, typed moves).

use super::bot::ReformBot;
use super::data::{faith_word, Data, Role, RoleMode, Suit, VariantFile};
use super::effects::{ChoiceKind, Did, Quiet};
use super::game::{Action, Entry, Phase, ReformView, Reformation, Setup, Tally};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::cards::CardId;
use crate::engine::{Game, RuleError, Seat};
use crate::games::registry::{check_players, count, says, whose, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

/// The built-in variants: the basic game, the Roles chosen or dealt (in the open or as Hidden
/// Agendas), and both Plague cards.
pub const VARIANTS: [&str; 6] = [
    "standard",
    "chosen-roles",
    "dealt-roles",
    "hidden-agendas",
    "hidden-dealt-roles",
    "two-plagues",
];

/// The setup a built-in variant names.
pub fn builtin(name: &str, players: u8) -> Option<Setup> {
    let mut s = Setup::new(players);
    s.variant = name.to_string();
    match name {
        "standard" => {}
        "chosen-roles" => s.roles = RoleMode::Chosen,
        "dealt-roles" => s.roles = RoleMode::Dealt,
        "hidden-agendas" => {
            s.roles = RoleMode::Chosen;
            s.hidden_agendas = true;
        }
        "hidden-dealt-roles" => {
            s.roles = RoleMode::Dealt;
            s.hidden_agendas = true;
        }
        "two-plagues" => s.plague_cards = 2,
        _ => return None,
    }
    Some(s)
}

/// The setup of a variant file: its `[table]` options on the standard game, and its cards,
/// rules and Roles (what it leaves out is the built-in set's).
pub fn from_file(origin: &str, text: &str, players: u8) -> Result<Setup, String> {
    let v = VariantFile::parse(text).map_err(|e| format!("{origin}: {e}"))?;
    let mut s = Setup::new(players);
    s.variant = v.name.clone().unwrap_or_else(|| "a variant file".into());
    if let Some(t) = &v.table {
        if let Some(r) = t.rounds {
            s.rounds = r;
        }
        if let Some(p) = t.plague_cards {
            s.plague_cards = p;
        }
        if let Some(r) = t.roles {
            s.roles = r;
        }
        if let Some(h) = t.hidden_agendas {
            s.hidden_agendas = h;
        }
    }
    if v.has_data() {
        let data = v.data();
        data.validate().map_err(|e| format!("{origin}: {e}"))?;
        s.data = Some(Box::new(data));
    }
    Ok(s)
}

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

fn names_of(data: &Data, cs: &[CardId]) -> String {
    list(&cs.iter().map(|c| name(data, *c)).collect::<Vec<_>>())
}

fn seats(ss: &[Seat], n: &dyn Fn(Seat) -> String) -> String {
    list(&ss.iter().map(|s| n(*s)).collect::<Vec<_>>())
}

/// The verb alone, agreeing with `who` ("choose" for "you").
fn verb(who: &str, v: &str) -> String {
    says(who.to_string(), v)
        .rsplit(' ')
        .next()
        .unwrap_or(v)
        .to_string()
}

pub fn role_name(data: &Data, r: Role) -> String {
    data.role(r).name.clone()
}

fn tally(t: Tally) -> &'static str {
    match t {
        Tally::Money => "money",
        Tally::Catholic => "Catholic piety",
        Tally::Protestant => "Protestant piety",
    }
}

fn money(v: i32) -> String {
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
            faith_word(super::data::prevailing(*round))
        ),
        Entry::Chooser { seat, by_lot } => {
            let who = n(*seat);
            if *by_lot {
                format!("by lot, {} who leads the first trick", says(who, "chooses"))
            } else {
                format!(
                    "{} the fewest Victory Points and {} who leads the first trick",
                    says(who.clone(), "has"),
                    verb(&who, "chooses")
                )
            }
        }
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
        } => {
            let who = n(*seat);
            let mut s = String::new();
            if *auto {
                let _ = write!(
                    s,
                    "time is up for {who}: {} hand is shown and its lowest legal card played: ",
                    whose(who.clone())
                );
            }
            let _ = write!(
                s,
                "{} {}",
                says(who, if *leads { "leads" } else { "plays" }),
                card(data, *c)
            );
            if let Some(d) = declared {
                let _ = write!(s, " as {}", d.word());
            }
            s
        }
        Entry::WonTrick { seat, card: c, trick } => format!(
            "{} trick {trick} with {}",
            says(n(*seat), "wins"),
            name(data, *c)
        ),
        Entry::Acted { seat, card: c, did } => {
            let who = n(*seat);
            let by = name(data, *c);
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
                Did::Converted { victims, to } => format!(
                    "{by} converts {} to {}",
                    names_of(data, victims),
                    to.word()
                ),
                Did::Nothing {
                    why: Quiet::NoTarget,
                } => format!("{by} has no card to act on: no effect"),
                Did::Nothing {
                    why: Quiet::NotLower,
                } => format!("{by} finds no target of lower piety: no effect"),
            }
        }
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
        } => {
            let tie = if *tie_broken {
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
        Entry::Misplayed { seat, card: c, why } => format!(
            "{} {}, which breaks the rules ({why}): the table removes {} and the game ends \
             without a winner",
            says(n(*seat), "plays"),
            card(data, *c),
            n(*seat)
        ),
        Entry::Forfeited { seat, reason } => format!(
            "{} {}: the game ends without a winner",
            n(*seat),
            reason.describe()
        ),
    }
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
fn hand_card(view: &ReformView, word: &str) -> Result<u16, String> {
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
fn pick<T: Copy>(options: &[(T, String)], word: &str, what: &str) -> Result<T, String> {
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
fn card_options(view: &ReformView, legal: &[Action]) -> Vec<(Action, String)> {
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

impl TableGame for Reformation {
    const TITLE: &'static str = "Tolerance: Reformation";
    const SUMMARY: &'static str =
        "trick-taking through the reigns of Mary I, Elizabeth I and James I: effects kill, convert and tax the cards you win";
    const SEATS: (u8, u8) = (3, 5);
    const VARIANTS: &'static [&'static str] = &VARIANTS;
    const VARIANT_FILES: bool = true;
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        let players = if opts.players == 0 { 4 } else { opts.players };
        let mut s = match (&opts.variant_text, &opts.variant) {
            (Some((origin, text)), _) => from_file(origin, text, players)?,
            (None, Some(v)) => builtin(v, players).ok_or_else(|| {
                format!(
                    "'{v}' is not a built-in variant of Tolerance: Reformation ({}) nor a \
                     variant file",
                    VARIANTS.join(", ")
                )
            })?,
            (None, None) => Setup::new(players),
        };
        if let Some(h) = opts.hands {
            if !(1..=3).contains(&h) {
                return Err(format!(
                    "Tolerance: Reformation has three reigns: --hands takes 1 to 3, not {h}"
                ));
            }
            s.rounds = h as u8;
        }
        s.validate().map_err(|e| match e {
            RuleError::Setup(m) => m,
            other => other.to_string(),
        })?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<Reformation, RuleError> {
        check_players(setup.players.into(), players)?;
        Reformation::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Reformation>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(ReformBot::new(rng)),
        }
    }

    fn story(&self, _viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        // Everything in the record was shown to the whole table when it happened (every card
        // played is shown face up); the story is the table's account as it went.
        let data = self.data();
        self.log.iter().map(|e| line(e, names, data)).collect()
    }

    fn render(v: &ReformView, n: &dyn Fn(Seat) -> String) -> String {
        let data = v.data();
        let mut s = format!(
            "── reign {} of {}: {} · prevailing religion {} · trick {} of 12 ──\n",
            v.round.max(1),
            v.rounds,
            name(data, v.monarch),
            faith_word(v.prevailing),
            (v.tricks + 1).min(12)
        );
        for p in &v.players {
            let arrow = if v.to_act.contains(&p.seat) {
                "▶"
            } else {
                " "
            };
            let _ = write!(
                s,
                "{arrow} {:<10} money {:>2}  piety C{:>2} P{:>2}  pennants {}/{}/{}  loans {}  VP {}  hand {:>2}",
                n(p.seat),
                p.money,
                p.catholic,
                p.protestant,
                p.pennants[0],
                p.pennants[1],
                p.pennants[2],
                p.loans,
                p.vp.map_or("?".into(), |v| v.to_string()),
                p.hand
            );
            if let Some(r) = p.role {
                let _ = write!(s, "  {}", role_name(data, r));
            }
            s.push('\n');
            let mut piles = Vec::new();
            for pl in &p.piles {
                if pl.count == 0 {
                    continue;
                }
                let label = format!(
                    "{} {}",
                    if pl.dead { "dead" } else { "living" },
                    match pl.faith {
                        Some(f) => f.word(),
                        None => "no religion",
                    }
                );
                let cards = if pl.cards.is_empty() {
                    format!(
                        "{} on top of {}",
                        pl.top.map(|t| name(data, t.card)).unwrap_or_default(),
                        count(pl.count as u64, "card", "cards")
                    )
                } else {
                    names_of(
                        data,
                        &pl.cards.iter().rev().map(|c| c.card).collect::<Vec<_>>(),
                    )
                };
                piles.push(format!("{label}: {cards}"));
            }
            if !piles.is_empty() {
                let _ = writeln!(s, "    {}", piles.join(" · "));
            }
        }
        if !v.trick.is_empty() {
            let plays: Vec<String> = v
                .trick
                .iter()
                .map(|c| {
                    let mut t = format!(
                        "{} {}",
                        n(c.seat),
                        c.card.map(|x| card(data, x)).unwrap_or_else(|| "??".into())
                    );
                    if let Some(d) = c.declared {
                        let _ = write!(t, " as {}", d.word());
                    }
                    if !c.alive {
                        t.push_str(" (dead)");
                    }
                    t
                })
                .collect();
            let _ = writeln!(s, "  trick: {}", plays.join(" · "));
        }
        if v.viewer.is_some() && !v.hand.is_empty() {
            let hand: Vec<String> = v
                .hand
                .iter()
                .map(|(_, c)| c.map(|c| card(data, c)).unwrap_or_else(|| "??".into()))
                .collect();
            let _ = writeln!(s, "  your hand: {}", hand.join(", "));
        }
        s
    }

    fn prompt(view: &ReformView, legal: &[Action]) -> String {
        let data = view.data();
        match view.phase {
            Phase::Play => {
                let led = view
                    .led
                    .map(|l| format!(" ({} led)", l.word()))
                    .unwrap_or_default();
                let _ = legal;
                format!("play a card{led}, as Valiant Knight or N8; a Wild card 'as Clergy' > ")
            }
            Phase::Effects => {
                let what = match view.choice.as_ref().map(|c| c.kind) {
                    Some(ChoiceKind::Piety) => "whose piety to collect",
                    _ => "which card to kill",
                };
                let opts: Vec<(Action, String)> = card_options(view, legal);
                format!(
                    "{} chooses {what}: {} > ",
                    view.choice
                        .as_ref()
                        .map(|c| name(data, c.card))
                        .unwrap_or_default(),
                    opts.iter()
                        .enumerate()
                        .map(|(i, (_, s))| format!("{} {s}", i + 1))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            Phase::Execute => format!(
                "Royal Execution: which card? {} > ",
                card_options(view, legal)
                    .iter()
                    .enumerate()
                    .map(|(i, (_, s))| format!("{} {s}", i + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Phase::Start => "who leads the first trick (a seat number, or 'me')? > ".into(),
            Phase::Repay => "repay how many Loans (5 money each; 0 for none)? > ".into(),
            Phase::Roles | Phase::Agendas => {
                let names: Vec<String> = if view.phase == Phase::Roles {
                    view.free_roles
                        .iter()
                        .map(|r| data.roles[usize::from(*r)].name.clone())
                        .collect()
                } else {
                    view.agenda
                        .iter()
                        .filter_map(|(_, r)| r.map(|r| data.roles[usize::from(r)].name.clone()))
                        .collect()
                };
                format!("choose your Role ({}) > ", names.join(", "))
            }
            _ => "wait > ".into(),
        }
    }

    fn parse_move(input: &str, view: &ReformView, legal: &[Action]) -> Result<Action, String> {
        parse(input, view, legal)
    }

    fn move_text(view: &ReformView, action: &Action) -> String {
        move_words(view, action)
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<Reformation>> {
        Box::<super::panel::ReformPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.outcome().is_none() {
            return "the game is not over".into();
        }
        if !self.removed.is_empty() {
            return format!(
                "the game ends without a winner: the table removed {}",
                seats(&self.removed, names)
            );
        }
        let vps: Vec<String> = self
            .players
            .iter()
            .map(|(s, p)| format!("{} {} VP", names(*s), p.vp))
            .collect();
        let won = match self.winners.as_slice() {
            [one] => format!("{} Tolerance: Reformation", says(names(*one), "wins")),
            many => format!("{} share the win", seats(many, names)),
        };
        format!(
            "{won} after {} ({})",
            count(self.records.len() as u64, "reign", "reigns"),
            vps.join(", ")
        )
    }

    fn report(&self) -> serde_json::Value {
        let data = self.data();
        let done = self.phase == Phase::Done;
        serde_json::json!({
            "variant": self.setup.variant,
            "reigns": self.records.len(),
            "vp": self.players.values().map(|p| p.vp).collect::<Vec<_>>(),
            "money": self.players.values().map(|p| p.money).collect::<Vec<_>>(),
            "catholic": self.players.values().map(|p| p.catholic).collect::<Vec<_>>(),
            "protestant": self.players.values().map(|p| p.protestant).collect::<Vec<_>>(),
            "loans": self.players.values().map(|p| p.loans).collect::<Vec<_>>(),
            "roles": self.roles.values().map(|r| match r {
                Some(r) if done || !self.setup.hidden_agendas => Some(role_name(data, *r)),
                _ => None,
            }).collect::<Vec<_>>(),
            "removed": self.removed,
            "winners": self.outcome().map(|o| o.winners),
        })
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}

/// An effect in words: "kills one Noble or Peasant (your choice)".
pub fn effect_text(e: &super::data::Effect) -> String {
    use super::data::{Count, Effect, Measure, Target};
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
        super::data::Religion::Prevailing => format!(
            "the prevailing religion ({})",
            faith_word(super::data::prevailing(round.max(1)))
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

/// A complete variant file of a built-in variant: its table options, the card set, the rules
/// and the Roles, each value the text lost marked as assumed (`tolerance variant new --game
/// reformation NAME`).
pub fn variant_file(name: &str) -> Result<String, String> {
    let s = builtin(name, 4).ok_or_else(|| {
        format!(
            "'{name}' is not a built-in variant of Tolerance: Reformation ({})",
            VARIANTS.join(", ")
        )
    })?;
    let roles = match s.roles {
        RoleMode::Bertram => "bertram",
        RoleMode::Chosen => "chosen",
        RoleMode::Dealt => "dealt",
    };
    Ok(format!(
        "# Tolerance: Reformation, variant '{name}': edit any value and play it with\n\
         # `tolerance host --game reformation --variant THIS_FILE` (or play, demo). A file may\n\
         # also hold only some of [table], [[cards]], [rules], [bertram], [[roles]].\n\
         {}\n{}\n[table]\nrounds = {}\nplague_cards = {}\nroles = \"{roles}\"\nhidden_agendas = {}\n",
        super::data::CARDS_FILE
            .trim_end()
            .replace("name = \"the rule book's card set\"", &format!("name = \"{name}\"")),
        super::data::ROLES_FILE.trim_end(),
        s.rounds,
        s.plague_cards,
        s.hidden_agendas
    ))
}

/// Checks a variant file and says what it sets (`tolerance variant validate --game
/// reformation FILE`).
pub fn validate_file(origin: &str, text: &str) -> Result<String, String> {
    let s = from_file(origin, text, 4)?;
    let d = s.data();
    let assumed = d.cards.iter().filter(|c| !c.assumed.is_empty()).count();
    let mut out = format!(
        "{}: {} cards ({assumed} with values marked assumed), Bertram and {} Roles{}; {} reigns, \
         {} Plague card(s), Roles {}{}",
        s.variant,
        d.cards.len(),
        d.roles.len(),
        if s.data.is_some() {
            " (this file's where it gives them, else the built-in ones)"
        } else {
            " (the built-in ones)"
        },
        s.rounds,
        s.plague_cards,
        match s.roles {
            RoleMode::Bertram => "Bertram for all",
            RoleMode::Chosen => "chosen",
            RoleMode::Dealt => "dealt",
        },
        if s.hidden_agendas {
            ", Hidden Agendas"
        } else {
            ""
        }
    );
    for players in 3..=5 {
        let mut t = s.clone();
        t.players = players;
        if let Err(e) = t.validate() {
            let _ = write!(out, "\nnot playable by {players}: {e}");
        }
    }
    Ok(out)
}
