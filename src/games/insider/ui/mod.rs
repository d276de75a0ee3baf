//! insider's ui part.

use crate::engine::{Game, Seat};
use crate::games::insider::game::{
    Action, Answer, End, Entry, Insider, InsiderView, Phase, Role, Said,
};
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot};
use crate::games::ui::words::says;
use crate::games::ui::GameUi;
use record::{clock, line, list};
use std::fmt::Write;

pub mod record;
pub mod replay;

impl GameUi for Insider {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let v = self.view(viewer);
        let mut out: Vec<String> = Vec::new();
        for e in &v.log {
            out.push(line(e, names));
            // What this reader alone knows, where it learned it.
            match e {
                Entry::Master { .. } => {
                    if let Some(r) = v.role.filter(|r| *r != Role::Master) {
                        out.push(format!("your role card: you are {}", r.name()));
                    }
                }
                Entry::Picked if v.role == Some(Role::Master) && v.word.is_some() => {
                    out.push(format!(
                        "your word: \"{}\"",
                        v.word.as_deref().unwrap_or("")
                    ));
                }
                Entry::WordGiven if v.role == Some(Role::Insider) => out.push(match &v.word {
                    Some(w) => format!("the word reaches you: \"{w}\""),
                    None => "the Master's letter did not open for you: the table checks it \
                             at the end"
                        .into(),
                }),
                _ => {}
            }
        }
        out
    }

    fn render(v: &InsiderView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "── {} ──", heading(v));
        if let Some(m) = v.master {
            let _ = write!(s, "  Master: {}", n(m));
        }
        if let Some(r) = v.role {
            let _ = write!(s, "   · you are {}", r.name());
        }
        if let Some(w) = &v.word {
            let _ = write!(s, "   · the word: {}", w.to_uppercase());
        }
        s.push('\n');
        if !v.cards.is_empty() {
            let _ = writeln!(s, "  your word cards: {}", numbered(&v.cards));
        }
        for q in v.qa.iter().rev().take(8).rev() {
            let _ = writeln!(s, "  {:<10} {}", n(q.seat), said(&q.said));
        }
        if matches!(v.phase, Phase::Ask { .. }) {
            let _ = writeln!(
                s,
                "  ({} words of the list still fit the bots' questions)",
                v.possible
            );
        }
        if !v.roles.is_empty() && v.roles.len() > 1 {
            let _ = writeln!(
                s,
                "  roles: {}",
                v.roles
                    .iter()
                    .map(|(x, r)| format!("{} {}", n(*x), r.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if !v.to_act.is_empty() {
            let _ = writeln!(s, "  waiting for {}", list(&v.to_act, n));
        }
        s
    }

    fn drawing(v: &InsiderView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        // The role cards are on the table once the deal of them is over; until it opens them,
        // a seat's card shows only to its holder (and the Master's to everyone).
        let dealt = !matches!(v.phase, Phase::Lot | Phase::Roles);
        let seats = (0..v.players).map(|seat| {
            let known = v.roles.iter().find(|(x, _)| *x == seat).map(|(_, r)| *r);
            let own = v.role.filter(|_| v.viewer == Some(seat));
            let card = match known.or(own) {
                Some(r) => Some(Piece::named(role_card(r))),
                None => dealt.then_some(Piece::CardBack),
            };
            Spot::seat(seat, v.viewer, n)
                .pieces(card)
                .note_if(v.master == Some(seat), "the Master")
                .note_if(v.accused == Some(seat), "accused")
                .turn(v.to_act.contains(&seat))
        });
        let mut d = Drawing::new(heading(v)).spots(seats);
        if !v.cards.is_empty() {
            d = d.spot(
                Spot::new("your word cards")
                    .pieces(v.cards.iter().map(|w| Piece::named(w.clone())))
                    .note(numbered(&v.cards))
                    .own(true),
            );
        }
        let picked = !matches!(v.phase, Phase::Lot | Phase::Roles | Phase::Pick);
        if let Some(w) = &v.word {
            // Known to the Master and the Insider before everyone (their role's, not a leak).
            d = d.spot(
                Spot::new("the word")
                    .pieces([Piece::named(w.to_uppercase())])
                    .own(v.viewer.is_some()),
            );
        } else if picked {
            d = d.spot(Spot::new("the word").pieces([Piece::CardBack]));
        }
        if !v.qa.is_empty() || matches!(v.phase, Phase::Ask { .. }) {
            let mut talk = Spot::new("what was said");
            for q in v.qa.iter().rev().take(8).rev() {
                talk = talk.note(said_by(n(q.seat), &q.said));
            }
            if matches!(v.phase, Phase::Ask { .. }) {
                talk = talk.note(format!(
                    "{} words of the list still fit the bots' questions",
                    v.possible
                ));
            }
            d = d.spot(talk);
        }
        Some(d)
    }

    fn prompt(view: &InsiderView, legal: &[Action]) -> String {
        let first = legal.first();
        match (view.phase, first) {
            (Phase::Pick, _) => "pick your word card: 1, 2 or 3 > ".into(),
            (Phase::Ask { .. }, Some(Action::Answer(_))) => "yes, no or don't know? > ".into(),
            (Phase::Ask { .. }, Some(Action::Judge(_))) => {
                "right or wrong? (the table checks it against the word at the end) > ".into()
            }
            (Phase::Ask { .. }, _) => {
                "ask a yes/no question (end it with ?), 'guess WORD', or 'pass' > ".into()
            }
            (Phase::Talk { .. }, _) => "say something, or 'ready' to vote > ".into(),
            (Phase::Vote1, _) => "is the guesser the Insider? yes or no (sealed) > ".into(),
            (Phase::Vote2, _) => "who is the Insider? a seat number (sealed) > ".into(),
            (Phase::TieBreak, _) => "break the tie: a seat number > ".into(),
            _ => "> ".into(),
        }
    }

    fn parse_move(input: &str, view: &InsiderView, legal: &[Action]) -> Result<Action, String> {
        let t = input.trim();
        let low = t.to_lowercase();
        let seat = |w: &str| -> Result<Seat, String> {
            w.trim_start_matches("seat")
                .trim()
                .parse::<Seat>()
                .map_err(|_| format!("'{w}' is not a seat number"))
        };
        let first = legal.first();
        Ok(match (view.phase, first) {
            (Phase::Pick, _) => {
                let k: u8 = low
                    .parse()
                    .map_err(|_| "type the number of a word card".to_string())?;
                Action::Pick(k.saturating_sub(1))
            }
            (Phase::Ask { .. }, Some(Action::Answer(_))) => Action::Answer(match low.as_str() {
                "y" | "yes" => Answer::Yes,
                "n" | "no" => Answer::No,
                "?" | "dk" | "don't know" | "dont know" | "dont-know" => Answer::DontKnow,
                _ => return Err("answer yes, no or don't know".into()),
            }),
            (Phase::Ask { .. }, Some(Action::Judge(_))) => {
                let a = Action::Judge(match low.as_str() {
                    "right" | "yes" | "y" => true,
                    "wrong" | "no" | "n" => false,
                    _ => return Err("right or wrong?".into()),
                });
                // This client knows the word: it offers the true judgment only (a false one
                // would be caught when the word is opened, and void the game).
                if !legal.contains(&a) {
                    return Err(format!(
                        "the word is {}: that guess is {}",
                        view.word.as_deref().unwrap_or("yours").to_uppercase(),
                        if a == Action::Judge(true) {
                            "wrong"
                        } else {
                            "right"
                        }
                    ));
                }
                a
            }
            (Phase::Ask { .. }, _) => {
                if low == "pass" {
                    Action::Pass
                } else if let Some(w) = low.strip_prefix("guess ") {
                    Action::Guess(w.trim().to_string())
                } else if let Some(q) = t.strip_prefix("ask ") {
                    Action::Ask(q.trim().to_string())
                } else if t.ends_with('?') {
                    Action::Ask(t.to_string())
                } else {
                    return Err("end a question with '?', or type 'guess WORD' or 'pass'".into());
                }
            }
            (Phase::Talk { .. }, _) => {
                if low.is_empty() || low == "ready" || low == "pass" {
                    Action::Ready
                } else {
                    Action::Say(t.strip_prefix("say ").unwrap_or(t).to_string())
                }
            }
            (Phase::Vote1, _) => Action::Accuse(match low.as_str() {
                "yes" | "y" | "accuse" => true,
                "no" | "n" => false,
                _ => return Err("yes or no?".into()),
            }),
            (Phase::Vote2, _) => Action::Point(Some(seat(&low)?)),
            (Phase::TieBreak, _) => Action::Break(seat(&low)?),
            _ => return Err("nothing to do now".into()),
        })
    }

    fn move_text(view: &InsiderView, action: &Action) -> String {
        match action {
            Action::Pick(k) => match view.cards.get(usize::from(*k)) {
                Some(w) => format!("take word card {}: {w}", k + 1),
                None => format!("take word card {}", k + 1),
            },
            Action::Ask(q) => format!("ask: {q}"),
            Action::Guess(w) => format!("guess \"{w}\""),
            Action::Pass => "pass".into(),
            Action::Answer(a) => format!("answer {}", a.word()),
            Action::Judge(r) => if *r {
                "right: that is the word"
            } else {
                "wrong"
            }
            .into(),
            Action::Say(_) => "say something (type it)".into(),
            Action::Ready => "ready to vote".into(),
            Action::Accuse(a) => {
                if *a {
                    "yes, the guesser is the Insider".into()
                } else {
                    "no".into()
                }
            }
            Action::Point(Some(s)) => format!("the Insider is seat {s}"),
            Action::Point(None) => "no vote".into(),
            Action::Break(s) => format!("the Insider is seat {s}"),
        }
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        let Some(o) = self.outcome() else {
            return "the game is not over".into();
        };
        let insider = self.insider();
        match &self.end {
            _ if self.misjudged => format!(
                "void: {} a guess against the word",
                says(names(self.master.unwrap_or(0)), "judged")
            ),
            Some(End::Removed { seats }) => format!("void: {} removed", list(seats, names)),
            Some(End::TimeUp) => "time ran out: everyone loses".into(),
            Some(End::FirstVote { accused } | End::SecondVote { accused }) => {
                if Some(*accused) == insider {
                    // The side and its people: the table-over line names every winner.
                    format!(
                        "{} the Insider: the Master and the Commons win ({})",
                        says(names(*accused), "is"),
                        list(&o.winners, names)
                    )
                } else {
                    format!(
                        "{} not the Insider — {}",
                        says(names(*accused), "is"),
                        says(
                            insider.map(&names).unwrap_or_else(|| "the Insider".into()),
                            "wins"
                        )
                    )
                }
            }
            None => format!(
                "{} {}",
                list(&o.winners, names),
                if o.winners.len() == 1 { "wins" } else { "win" }
            ),
        }
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::insider::ui::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}

/// The table's header: the phase, and the time left where a clock runs.
fn heading(v: &InsiderView) -> String {
    let left = match (v.phase, v.started) {
        (Phase::Ask { .. }, Some(t0)) => {
            format!(
                " · {} left",
                clock((t0 + u64::from(v.seconds)).saturating_sub(v.now))
            )
        }
        (Phase::Talk { .. }, _) => match v.talk_until {
            Some(t) => format!(" · {} of talk left", clock(t.saturating_sub(v.now))),
            None => String::new(),
        },
        _ => String::new(),
    };
    let phase = match v.phase {
        Phase::Lot | Phase::Roles | Phase::Whisper => "dealing the roles",
        Phase::Pick => "the Master picks the word",
        Phase::Ask { .. } => "questions",
        Phase::Talk { .. } => "who is the Insider?",
        Phase::Vote1 => "first vote",
        Phase::Vote2 => "second vote",
        Phase::TieBreak => "the Master breaks the tie",
        Phase::Roles2 | Phase::Open => "showing the cards",
        Phase::Done => "over",
    };
    format!("Insider · {phase}{left}")
}

/// A question, guess or remark with its answer, as the table hears it.
fn said(s: &Said) -> String {
    match s {
        Said::Question { text, answer } => format!(
            "{text} — {}",
            answer
                .map(Answer::word)
                .unwrap_or("(waiting for the Master)")
        ),
        Said::Guess { word, right } => format!(
            "is it \"{word}\"? — {}",
            match right {
                Some(true) => "YES, that is the word",
                Some(false) => "no",
                None => "(waiting for the Master)",
            }
        ),
        Said::Talk { text } => format!("“{text}”"),
    }
}

/// What a role card says: the role, without the article the sentences give it.
fn role_card(r: Role) -> &'static str {
    match r {
        Role::Master => "Master",
        Role::Insider => "Insider",
        Role::Common => "Common",
    }
}

/// The Master's word cards by the numbers it picks them with: "1 apple · 2 river".
fn numbered(cards: &[String]) -> String {
    cards
        .iter()
        .enumerate()
        .map(|(i, w)| format!("{} {w}", i + 1))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A line of the talk as a sentence with its speaker ("Ana asks: is it alive? — yes"), so that
/// the speaker's verb agrees with "you".
fn said_by(who: String, s: &Said) -> String {
    let verb = match s {
        Said::Question { .. } => "asks",
        Said::Guess { .. } => "guesses",
        Said::Talk { .. } => "says",
    };
    format!("{}: {}", says(who, verb), said(s))
}
