//! Abandon Ship's entry in the game registry: its setup, bots and words.

use super::bot::SailorBot;
use super::game::{
    card_name, points, suit_name, AbandonShip, AbandonView, Action, Entry, Phase, Setup,
};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::cards::{CardId, PlayingCard, Suit};
use crate::engine::{Game, RuleError, Seat};
use crate::games::registry::{check_players, count, says, whose, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

fn cards(cs: &[CardId]) -> String {
    if cs.is_empty() {
        return "nothing".into();
    }
    cs.iter()
        .map(|c| card_name(*c))
        .collect::<Vec<_>>()
        .join(" ")
}

fn names_of(seats: &[Seat], n: &dyn Fn(Seat) -> String) -> String {
    let v: Vec<String> = seats.iter().map(|s| n(*s)).collect();
    match v.len() {
        0 => "nobody".into(),
        1 => v[0].clone(),
        k => format!("{} and {}", v[..k - 1].join(", "), v[k - 1]),
    }
}

/// "the Hearts lifeboat".
fn boat(s: Suit) -> String {
    format!("the {} lifeboat", suit_name(s))
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Round { number, dealer } => {
            format!("round {number}: {} the dealer", says(n(*dealer), "is"))
        }
        Entry::Drew { seat, count: k } => {
            format!("{} {}", says(n(*seat), "draws"), count(*k, "card", "cards"))
        }
        Entry::Discarded { seat, card } => format!(
            "{} {} into {}",
            says(n(*seat), "discards"),
            card_name(*card),
            boat(super::game::suit(*card))
        ),
        Entry::Attacked { seat, target, card } => format!(
            "{} a fight with {} and {} {}",
            says(n(*seat), "picks"),
            n(*target),
            if n(*seat) == "you" { "play" } else { "plays" },
            card_name(*card)
        ),
        Entry::Raised { seat, card } => {
            format!("{} with {}", says(n(*seat), "answers"), card_name(*card))
        }
        Entry::Surrendered { seat } => format!("{} the fight", says(n(*seat), "surrenders")),
        Entry::Unanswerable { seat } => {
            format!("nothing beats a King: {} the fight", says(n(*seat), "wins"))
        }
        Entry::Took {
            winner,
            loser,
            card,
        } => format!(
            "{} {} at random from {} hand onto {} board; the fight cards go to their lifeboats",
            says(n(*winner), "draws"),
            card_name(*card),
            whose(n(*loser)),
            whose(n(*winner))
        ),
        Entry::Sank { by } => format!(
            "{} the last card: the ship sinks! Everyone picks a Key Card face down",
            says(n(*by), "draws")
        ),
        Entry::Keys { keys, drowned } => {
            let mut s = format!(
                "Key Cards: {}",
                keys.iter()
                    .map(|(seat, c)| format!("{} {}", n(*seat), card_name(*c)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if !drowned.is_empty() {
                let _ = write!(
                    s,
                    "; {} no cards and {} down with the ship",
                    if drowned.len() == 1 {
                        says(n(drowned[0]), "has")
                    } else {
                        format!("{} have", names_of(drowned, n))
                    },
                    if drowned.len() == 1 && n(drowned[0]) != "you" {
                        "goes"
                    } else {
                        "go"
                    }
                );
            }
            s
        }
        Entry::Hands { hands } => format!(
            "hands shown: {}",
            hands
                .iter()
                .map(|(s, h)| format!("{} {}", n(*s), cards(h)))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Entry::Boarded {
            suit,
            points: p,
            claims,
            seat,
        } => {
            let suit = &Suit::ALL[usize::from(*suit)];
            let contest = if claims.len() > 1 {
                let top = claims.iter().map(|c| c.held).max().unwrap_or(0);
                let tied = claims.iter().filter(|c| c.held == top).count() > 1;
                format!(
                    " ({}{})",
                    claims
                        .iter()
                        .map(|c| format!("{} holds {} in {}", n(c.seat), c.held, suit_name(*suit)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if tied {
                        "; equal points, so the highest card decides"
                    } else {
                        ""
                    }
                )
            } else {
                String::new()
            };
            match seat {
                Some(s) => format!(
                    "{} {} for {}{contest}",
                    says(n(*s), "boards"),
                    boat(*suit),
                    count(*p as u64, "point", "points")
                ),
                None => format!(
                    "{} tie exactly for {}: nobody boards it{contest}",
                    names_of(&claims.iter().map(|c| c.seat).collect::<Vec<_>>(), n),
                    boat(*suit)
                ),
            }
        }
        Entry::Scores { scores } => format!(
            "scores: {}",
            scores
                .iter()
                .map(|(s, p)| format!("{} {p}", n(*s)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Entry::Misplayed { seat, card, why } => format!(
            "{} {}, which breaks the rules ({why}): the table removes {} and the game ends",
            says(n(*seat), "plays"),
            card_name(*card),
            n(*seat)
        ),
        Entry::Won { seats } => match seats.len() {
            0 => "nobody wins".into(),
            1 => format!("{} the game", says(n(seats[0]), "wins")),
            _ => format!("{} share the win", names_of(seats, n)),
        },
        Entry::Forfeited { seat, reason } => format!(
            "{} {}: the game ends without a winner",
            n(*seat),
            reason.describe()
        ),
    }
}

/// The held card named `word` ("QS", "10h"), by its deck position.
fn held_card(view: &AbandonView, word: &str) -> Result<u16, String> {
    let want = PlayingCard::parse(word).map_err(|e| e.to_string())?;
    view.mine
        .iter()
        .find(|h| {
            h.card.is_some_and(|c| {
                let p = PlayingCard::from_id(c);
                (p.rank, p.suit) == (want.rank, want.suit)
            })
        })
        .map(|h| h.position)
        .ok_or_else(|| format!("{} is not in your hand", card_name(want.id())))
}

fn named(view: &AbandonView, position: u16) -> String {
    match view
        .mine
        .iter()
        .find(|h| h.position == position)
        .and_then(|h| h.card)
    {
        Some(c) => card_name(c),
        None => format!("the card dealt at position {position}"),
    }
}

impl TableGame for AbandonShip {
    const TITLE: &'static str = "Abandon Ship";
    const SUMMARY: &'static str =
        "discard into suit lifeboats or fight for loot; when the deck runs out, a face-down Key Card picks your lifeboat";
    const SEATS: (u8, u8) = (2, 8);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() || opts.variant.as_deref().is_some_and(|v| v != "standard") {
            return Err("Abandon Ship has one variant, 'standard'".into());
        }
        let mut s = Setup::new(opts.players.max(2));
        if let Some(h) = opts.hands {
            s.rounds = Some(u32::try_from(h).map_err(|_| format!("{h} rounds is too many"))?);
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<AbandonShip, RuleError> {
        check_players(setup.players.into(), players)?;
        AbandonShip::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<AbandonShip>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(SailorBot::new(rng)),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &AbandonView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!(
            "── round {} · {} left in the deck · playing to {} ──\n",
            v.round,
            count(v.deck_left, "card", "cards"),
            v.target
        );
        let _ = write!(s, "  lifeboats:");
        for (i, b) in v.lifeboats.iter().enumerate() {
            let p: i64 = b.iter().map(|c| points(*c)).sum();
            let _ = write!(s, "  {} {p}", Suit::ALL[i].symbol());
        }
        s.push('\n');
        if let Some(f) = &v.fight {
            if f.winner.is_none() {
                let played: Vec<String> = f
                    .plays
                    .iter()
                    .map(|p| {
                        format!(
                            "{} {}",
                            n(p.seat),
                            p.card.map(card_name).unwrap_or_else(|| "??".into())
                        )
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "  fight: {} against {}: {}",
                    n(f.attacker),
                    n(f.defender),
                    played.join(", ")
                );
            }
        }
        for (seat, held) in &v.hands {
            let shown: Vec<String> = held
                .iter()
                .map(|c| c.map(card_name).unwrap_or_else(|| "??".into()))
                .collect();
            let board = v
                .boards
                .iter()
                .find(|(b, _)| b == seat)
                .map(|(_, b)| cards(b))
                .unwrap_or_default();
            let score = v
                .scores
                .iter()
                .find(|(x, _)| x == seat)
                .map(|(_, p)| *p)
                .unwrap_or(0);
            let state = if v.removed.contains(seat) {
                " (removed)"
            } else if v.to_act.contains(seat) {
                " ◀"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "  #{seat} {:<12} {score:>4} pts  hand {}  board {board}{state}",
                n(*seat),
                if shown.is_empty() {
                    "empty".into()
                } else {
                    shown.join(" ")
                }
            );
        }
        s
    }

    fn prompt(view: &AbandonView, _legal: &[Action]) -> String {
        match view.phase {
            Phase::Play => "discard a card (discard QS) or pick a fight (fight QS 2: card, then the player's #)? > ".into(),
            Phase::Fight => "answer with a higher card (raise KH) or surrender? > ".into(),
            Phase::Key => "your Key Card, face down (key QH)? > ".into(),
            _ => "wait > ".into(),
        }
    }

    fn parse_move(input: &str, view: &AbandonView, _legal: &[Action]) -> Result<Action, String> {
        let words: Vec<String> = input
            .split_whitespace()
            .map(|w| w.to_ascii_lowercase())
            .collect();
        let card = |i: usize| -> Result<u16, String> {
            let w = words
                .get(i)
                .ok_or_else(|| "name a card of your hand, as QS or 10H".to_string())?;
            held_card(view, w)
        };
        match words.first().map(String::as_str) {
            Some("surrender" | "s") => Ok(Action::Surrender),
            Some("discard" | "d") => Ok(Action::Discard { position: card(1)? }),
            Some("raise" | "r") => Ok(Action::Raise { position: card(1)? }),
            Some("key" | "k") => Ok(Action::Key { position: card(1)? }),
            Some("fight" | "f") => {
                let position = card(1)?;
                let target = words
                    .get(2)
                    .map(|w| w.trim_start_matches('#'))
                    .and_then(|w| w.parse::<Seat>().ok())
                    .ok_or_else(|| {
                        "name the player to fight by their #, as fight QS 2".to_string()
                    })?;
                Ok(Action::Fight { position, target })
            }
            Some(w) if PlayingCard::parse(w).is_ok() => {
                // A bare card: the one move it can mean now.
                let position = card(0)?;
                match view.phase {
                    Phase::Play => Ok(Action::Discard { position }),
                    Phase::Fight => Ok(Action::Raise { position }),
                    Phase::Key => Ok(Action::Key { position }),
                    _ => Err("it is not your move".into()),
                }
            }
            _ => Err("type discard QS, fight QS 2, raise KH, surrender or key QH".into()),
        }
    }

    fn move_text(view: &AbandonView, action: &Action) -> String {
        match action {
            Action::Discard { position } => format!("discard {}", named(view, *position)),
            Action::Fight { position, target } => {
                format!("fight #{target} with {}", named(view, *position))
            }
            Action::Raise { position } => format!("answer with {}", named(view, *position)),
            Action::Surrender => "surrender".into(),
            Action::Key { position } => format!("Key Card {}", named(view, *position)),
        }
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<AbandonShip>> {
        Box::<super::panel::AbandonPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.outcome().is_none() {
            return "the game is not over".into();
        }
        if !self.removed.is_empty() {
            return format!(
                "the game ends without a winner: the table removed {}",
                names_of(&self.removed, names)
            );
        }
        let scores: Vec<String> = self
            .table()
            .iter()
            .map(|s| format!("{} {}", names(*s), self.scores[usize::from(*s)]))
            .collect();
        format!(
            "{} after {} ({})",
            line(
                &Entry::Won {
                    seats: self.winners.clone()
                },
                names
            ),
            count(self.round, "round", "rounds"),
            scores.join(", ")
        )
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "rounds": self.round,
            "target": self.setup.target,
            "decks": self.setup.decks(),
            "scores": self.scores,
            "removed": self.removed,
            "winners": self.outcome().map(|o| o.winners),
        })
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
