//! High Card's entry in the game registry: its setup, bots and words.

use super::bot::ThresholdBot;
use super::game::{Action, Entry, HighCard, HighCardView, Phase, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::cards::PlayingCard;
use crate::engine::{Game, RuleError, Seat};
use crate::games::registry::{check_players, count, says, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

fn card(c: crate::cards::CardId) -> String {
    PlayingCard::from_id(c).to_string()
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::First { seat } => format!("by lot, {} first", says(n(*seat), "plays")),
        Entry::Kept { seat } => format!("{} the card", says(n(*seat), "keeps")),
        Entry::Swapped { seat, discarded } => format!(
            "{} {} face up and {} a new card",
            says(n(*seat), "discards"),
            card(*discarded),
            if n(*seat) == "you" { "draw" } else { "draws" }
        ),
        Entry::Decided { seat, action } => {
            let verb = if *action == Action::Stay {
                "stays"
            } else {
                "folds"
            };
            says(n(*seat), verb)
        }
        Entry::Shown { seat, card: c } => format!("{} {}", says(n(*seat), "shows"), card(*c)),
        Entry::Won { seat, points } => format!("{} {points} points", says(n(*seat), "wins")),
        Entry::Forfeited { seat, points } => {
            format!("{} and pays {points} points", says(n(*seat), "forfeits"))
        }
    }
}

impl TableGame for HighCard {
    const TITLE: &'static str = "High Card";
    const SUMMARY: &'static str =
        "the toy game: one card each, one swap, stay or fold all at once, high card wins";
    const SEATS: (u8, u8) = (2, 6);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() || opts.variant.as_deref().is_some_and(|v| v != "standard") {
            return Err("High Card has one variant, 'standard'".into());
        }
        let mut s = Setup::new(opts.players.max(2));
        if let Some(h) = opts.hands {
            s.rounds = u32::try_from(h).map_err(|_| format!("{h} rounds is too many"))?;
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<HighCard, RuleError> {
        check_players(setup.players.into(), players)?;
        HighCard::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<HighCard>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(ThresholdBot::new(rng)),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &HighCardView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!(
            "── round {} of {} ──\n",
            (v.round + 1).min(v.rounds),
            v.rounds
        );
        for (seat, points) in &v.points {
            let held = v
                .hands
                .iter()
                .find(|(x, _)| x == seat)
                .map(|(_, c)| c.map(card).unwrap_or_else(|| "??".into()))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  {:<14} {points:>4} points  {held}{}",
                n(*seat),
                if v.to_act.contains(seat) { " ◀" } else { "" }
            );
        }
        s
    }

    fn prompt(view: &HighCardView, _legal: &[Action]) -> String {
        match view.phase {
            Phase::Draw { .. } => "keep or swap? > ".into(),
            _ => "stay or fold (nobody sees your choice until all chose)? > ".into(),
        }
    }

    fn parse_move(input: &str, _view: &HighCardView, _legal: &[Action]) -> Result<Action, String> {
        super::replay::parse_action(&format!("0 {input}")).map(|(_, a)| a)
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<HighCard>> {
        Box::<super::panel::HighCardPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        match self.outcome() {
            Some(o) => {
                let w: Vec<String> = o.winners.iter().map(|s| names(*s)).collect();
                format!(
                    "{} with the most points after {}",
                    if w.len() == 1 {
                        says(w[0].clone(), "wins")
                    } else {
                        format!("{} share the win", w.join(" and "))
                    },
                    count(self.round, "round", "rounds")
                )
            }
            None => "the game is not over".into(),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "rounds": self.round,
            "points": self.points,
            "winners": self.outcome().map(|o| o.winners),
        })
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
