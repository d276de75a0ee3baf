//! An Insider bot that sees only its view. As the Master it answers truthfully from the word
//! list's facts. As a Common it asks the fact that best halves the words still possible and
//! guesses once few are left. As the Insider it asks like a Common but leans on facts that are
//! true of the word, and leaves the guessing to the others. In the votes everyone suspects the
//! seat whose questions were answered "yes" most often: the one steering.

use super::game::{possible_words, Action, Answer, Insider, InsiderView, Phase, Role, Said};
use super::words::{self, Tag, Word};
use crate::bots::Bot;
use crate::engine::Seat;
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::BTreeMap;

pub struct InsiderBot<R> {
    rng: R,
    /// A Common guesses once this few words are left.
    pub guess_below: usize,
    /// How often the Insider asks a fact true of the word rather than the best split.
    pub lean: f64,
}

impl<R: Rng> InsiderBot<R> {
    pub fn new(rng: R) -> Self {
        InsiderBot {
            rng,
            guess_below: 4,
            lean: 0.5,
        }
    }
}

fn list() -> &'static [Word] {
    words::list(words::NOUNS_1).unwrap_or(&[])
}

fn facts(word: &str) -> Option<&'static Word> {
    list().iter().find(|w| w.word == word)
}

/// The facts not asked yet, each with how evenly it splits `possible` (0 = useless, 1 = halves).
fn splits(view: &InsiderView, possible: &[&str]) -> Vec<(f64, Tag)> {
    let asked: Vec<Tag> = view
        .qa
        .iter()
        .filter_map(|q| match &q.said {
            Said::Question { text, .. } => Tag::of_question(text),
            _ => None,
        })
        .collect();
    let n = possible.len() as f64;
    Tag::ALL
        .into_iter()
        .filter(|t| !asked.contains(t))
        .map(|t| {
            let yes = possible
                .iter()
                .filter(|w| facts(w).is_some_and(|f| f.tags.contains(&t)))
                .count() as f64;
            let p = if n > 0.0 { yes / n } else { 0.0 };
            (1.0 - (2.0 * p - 1.0).abs(), t)
        })
        .filter(|(q, _)| *q > 0.0)
        .collect()
}

/// How much each seat's questions steered: the share answered "yes", smoothed.
pub fn suspicion(view: &InsiderView) -> BTreeMap<Seat, f64> {
    let mut yes: BTreeMap<Seat, (u32, u32)> = BTreeMap::new();
    for q in &view.qa {
        if let Said::Question {
            answer: Some(a @ (Answer::Yes | Answer::No)),
            ..
        } = &q.said
        {
            let e = yes.entry(q.seat).or_default();
            e.1 += 1;
            if *a == Answer::Yes {
                e.0 += 1;
            }
        }
    }
    (0..view.players)
        .filter(|s| Some(*s) != view.master)
        .map(|s| {
            let (y, n) = yes.get(&s).copied().unwrap_or_default();
            (s, (f64::from(y) + 1.0) / (f64::from(n) + 2.0))
        })
        .collect()
}

/// The most suspicious of `among`, highest score first, ties to the lower seat.
fn most_suspicious(view: &InsiderView, among: &[Seat]) -> Option<Seat> {
    let s = suspicion(view);
    among.iter().copied().max_by(|a, b| {
        let (x, y) = (s.get(a).unwrap_or(&0.0), s.get(b).unwrap_or(&0.0));
        x.partial_cmp(y)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.cmp(a))
    })
}

impl<R: Rng + Send> InsiderBot<R> {
    fn ask(&mut self, view: &InsiderView, me: Seat, legal: &[Action]) -> Action {
        let possible = possible_words(list(), &view.qa);
        let insider = view.role == Some(Role::Insider);
        let turn = match view.phase {
            Phase::Ask { turn } => turn,
            _ => 0,
        };
        let late = view
            .started
            .is_some_and(|t0| view.now + 30 >= t0 + u64::from(view.seconds))
            || turn > 120;
        if insider {
            if let Some(w) = &view.word {
                // The Insider guesses only when the word is plain to everyone, or time runs out.
                if possible.len() <= 1 || late {
                    return Action::Guess(w.clone());
                }
            }
        } else if possible.len() <= self.guess_below || (late && !possible.is_empty()) {
            if let Some(w) = possible.choose(&mut self.rng) {
                return Action::Guess((*w).to_string());
            }
        }
        let mut options = splits(view, &possible);
        options.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        let pick = if insider && self.rng.gen_bool(self.lean) {
            // A question as good as the best but true of the word: it steers towards it.
            let best = options.first().map_or(0.0, |o| o.0);
            let word = view.word.as_deref().and_then(facts);
            options
                .iter()
                .find(|(q, t)| *q >= best * 0.6 && word.is_some_and(|w| w.tags.contains(t)))
                .or(options.first())
                .map(|(_, t)| *t)
        } else {
            options.first().map(|(_, t)| *t)
        };
        match pick {
            Some(t) => Action::Ask(t.question().to_string()),
            None => match possible.choose(&mut self.rng) {
                Some(w) if !insider => Action::Guess((*w).to_string()),
                _ => {
                    let _ = me;
                    legal
                        .iter()
                        .find(|a| **a == Action::Pass)
                        .cloned()
                        .unwrap_or_else(|| legal[0].clone())
                }
            },
        }
    }

    fn answer(&self, view: &InsiderView) -> Action {
        let q = view.qa.iter().rev().find_map(|q| match &q.said {
            Said::Question { text, answer: None } => Some(text.clone()),
            _ => None,
        });
        let fact = q.as_deref().and_then(Tag::of_question);
        let word = view.word.as_deref().and_then(facts);
        Action::Answer(match (fact, word) {
            (Some(t), Some(w)) if w.tags.contains(&t) => Answer::Yes,
            (Some(_), Some(_)) => Answer::No,
            _ => Answer::DontKnow,
        })
    }
}

impl<R: Rng + Send> Bot<Insider> for InsiderBot<R> {
    fn choose(&mut self, view: &InsiderView, legal: &[Action]) -> Action {
        let Some(me) = view.viewer else {
            return legal[0].clone();
        };
        let others: Vec<Seat> = (0..view.players)
            .filter(|s| *s != me && Some(*s) != view.master)
            .collect();
        let want = match (view.phase, legal.first()) {
            (Phase::Pick, _) => legal
                .choose(&mut self.rng)
                .cloned()
                .unwrap_or(Action::Pick(0)),
            (Phase::Ask { .. }, Some(Action::Answer(_))) => self.answer(view),
            (Phase::Ask { .. }, Some(a @ Action::Judge(_))) => a.clone(),
            (Phase::Ask { .. }, _) => self.ask(view, me, legal),
            (Phase::Talk { .. }, _) => Action::Ready,
            (Phase::Vote1, _) => {
                let g = view.guesser;
                if view.role == Some(Role::Insider) {
                    // A wrong accusation is the Insider's win.
                    Action::Accuse(g != Some(me))
                } else {
                    Action::Accuse(g.is_some() && g == most_suspicious(view, &others))
                }
            }
            (Phase::Vote2, _) => Action::Point(most_suspicious(view, &others)),
            (Phase::TieBreak, _) => match most_suspicious(view, &view.tied) {
                Some(s) => Action::Break(s),
                None => legal[0].clone(),
            },
            _ => legal[0].clone(),
        };
        // Typed lines (questions, guesses) are free text: the table checks them, not the list.
        match &want {
            Action::Ask(_) | Action::Guess(_) => want,
            _ if legal.contains(&want) => want,
            _ => legal[0].clone(),
        }
    }

    fn name(&self) -> &str {
        "insider"
    }
}
