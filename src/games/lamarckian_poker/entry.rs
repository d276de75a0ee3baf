//! Lamarckian Poker's entry in the game registry: its setup, bots and words.

use super::bot::CaptureBot;
use super::game::{Action, Entry, LamarckianPoker, LamarckianView, Phase, Setup};
use super::hand::card_name;
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::cards::{CardId, PlayingCard};
use crate::engine::{Game, RuleError, Seat};
use crate::games::registry::{check_players, count, says, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

fn cards(cs: &[CardId]) -> String {
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

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Pool { turn, cards: cs } => format!("turn {turn}: the pool is {}", cards(cs)),
        Entry::Played {
            seat,
            mark,
            captured,
        } => {
            let who = says(n(*seat), "plays");
            if captured.is_empty() {
                format!(
                    "{who} {}, captures nothing, and it falls into the pool",
                    card_name(*mark)
                )
            } else {
                format!(
                    "{who} {}, captures {}, and it falls into the pool",
                    card_name(*mark),
                    cards(captured)
                )
            }
        }
        Entry::Discarded { cards: cs } if cs.is_empty() => "the pool is empty".into(),
        Entry::Discarded { cards: cs } => format!("{} discarded", cards(cs)),
        Entry::Extinct { seat } => format!("{} out of cards: extinct", says(n(*seat), "is")),
        Entry::Shown { seat, hand } => format!("{} {}", says(n(*seat), "shows"), hand.words()),
        Entry::Won { seats, hand } => {
            let who = if seats.len() == 1 {
                says(n(seats[0]), "wins")
            } else {
                format!("{} share the win", names_of(seats, n))
            };
            match hand {
                Some(h) => format!("{who} with {}", h.words()),
                None if seats.is_empty() => "nobody wins".into(),
                None => format!("{who}, the last to survive"),
            }
        }
        Entry::Forfeited { seat, reason } => format!(
            "{} {}: the game ends without a winner",
            n(*seat),
            reason.describe()
        ),
    }
}

impl TableGame for LamarckianPoker {
    const TITLE: &'static str = "Lamarckian Poker";
    const SUMMARY: &'static str =
        "play a face-down mark to capture pool cards by suit or rank; best poker hand at the end wins";
    const SEATS: (u8, u8) = (2, 8);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() || opts.variant.as_deref().is_some_and(|v| v != "standard") {
            return Err("Lamarckian Poker has one variant, 'standard'".into());
        }
        // `--hands` does not apply: the deck decides how long a game lasts.
        let s = Setup::new(opts.players.max(2));
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<LamarckianPoker, RuleError> {
        check_players(setup.players.into(), players)?;
        LamarckianPoker::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<LamarckianPoker>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(CaptureBot::new(rng)),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &LamarckianView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!(
            "── turn {} · {} left in the deck · {} discarded ──\n  pool: {}\n",
            v.turn,
            count(v.deck_left, "card", "cards"),
            v.discards.len(),
            if v.pool.is_empty() {
                "empty".into()
            } else {
                cards(&v.pool)
            }
        );
        for (seat, held) in &v.hands {
            let shown: Vec<String> = held
                .iter()
                .map(|c| c.map(card_name).unwrap_or_else(|| "??".into()))
                .collect();
            let state = if v.removed.contains(seat) {
                " (removed)"
            } else if !v.alive.contains(seat) {
                " (extinct)"
            } else if v.to_act.contains(seat) {
                " ◀"
            } else {
                ""
            };
            let _ = writeln!(s, "  {:<14} {}{state}", n(*seat), shown.join(" "));
        }
        s
    }

    fn prompt(view: &LamarckianView, _legal: &[Action]) -> String {
        match view.phase {
            Phase::Mark => {
                "your mark, a card of your hand such as QS (nobody sees it until all chose)? > "
                    .into()
            }
            _ => "wait > ".into(),
        }
    }

    fn parse_move(input: &str, view: &LamarckianView, _legal: &[Action]) -> Result<Action, String> {
        let want = PlayingCard::parse(input.trim())
            .map_err(|e| e.to_string())?
            .id();
        view.mine
            .iter()
            .find(|h| h.card == Some(want))
            .map(|h| Action::Mark {
                position: h.position,
            })
            .ok_or_else(|| format!("{} is not in your hand", card_name(want)))
    }

    fn move_text(view: &LamarckianView, action: &Action) -> String {
        let Action::Mark { position } = action;
        // A person picks a card, not a deck position: name the card where this seat knows it.
        match view
            .mine
            .iter()
            .find(|h| h.position == *position)
            .and_then(|h| h.card)
        {
            Some(c) => format!("mark {}", card_name(c)),
            None => format!("mark the card dealt at position {position}"),
        }
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<LamarckianPoker>> {
        Box::<super::panel::LamarckianPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.outcome().is_none() {
            return "the game is not over".into();
        }
        match self.log.last() {
            Some(e @ Entry::Won { .. }) => format!(
                "{} after {}",
                line(e, names),
                count(self.turn, "turn", "turns")
            ),
            _ => format!(
                "the game ends without a winner: the table removed {}",
                names_of(&self.removed, names)
            ),
        }
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }

    fn report(&self) -> serde_json::Value {
        let best: Vec<(Seat, String)> = self
            .log
            .iter()
            .filter_map(|e| match e {
                Entry::Shown { seat, hand } => Some((*seat, hand.words())),
                _ => None,
            })
            .collect();
        serde_json::json!({
            "turns": self.turn,
            "survivors": self.alive,
            "cards": self.hands.iter().map(|(s, h)| (*s, h.len())).collect::<Vec<_>>(),
            "hands": best,
            "removed": self.removed,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
