//! Mia's entry in the game registry: its setup, bots and words.

use super::game::{Action, LogEntry, Mia, MiaView, Setup};
use crate::bots::{Bot, BotLevel};
use crate::engine::{Game, RuleError, Seat};
use crate::games::registry::{check_players, says, whose, SetupOptions, TableGame};
use rand::rngs::StdRng;

fn dice_text(d: &[u8]) -> String {
    d.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A log entry in words.
pub fn line(e: &LogEntry, n: &dyn Fn(Seat) -> String) -> String {
    use LogEntry as E;
    match e {
        E::Toss { first } => format!("the toss: {}", says(n(*first), "opens")),
        E::Round { round, opener } => format!("round {round}: {}", says(n(*opener), "opens")),
        E::Rolled { seat } => format!(
            "{} the cup and {}",
            says(n(*seat), "rolls"),
            if n(*seat) == "you" { "look" } else { "looks" }
        ),
        E::Claimed { seat, claim } => format!("{} {claim}", says(n(*seat), "claims")),
        E::Passed { seat, claim } => format!("{} {claim} on unseen", says(n(*seat), "passes")),
        E::Raised { seat, claim } => {
            format!("{} the claim to {claim}", says(n(*seat), "raises"))
        }
        E::Rerolled { seat } => says(n(*seat), "rerolls"),
        E::Challenged { seat, owner } => {
            format!("{} {}", says(n(*seat), "challenges"), n(*owner))
        }
        E::Opened {
            roller,
            dice,
            value,
            claim,
        } => format!(
            "{} cup shows {} = {value} (claimed {claim})",
            whose(n(*roller)),
            dice_text(dice)
        ),
        E::LostLives { seat, lives } => format!(
            "{} {lives} {}",
            says(n(*seat), "loses"),
            if *lives == 1 { "life" } else { "lives" }
        ),
        E::Out { seat } => format!("{} out", says(n(*seat), "is")),
        E::Won { seat } => format!("{} the game", says(n(*seat), "wins")),
    }
}

/// What a person may type.
pub fn help() -> &'static str {
    "'claim NN', 'challenge', 'pass', 'reroll' or 'raise NN' (values like 43, 21 = Mia)"
}

impl TableGame for Mia {
    const TITLE: &'static str = "Mia";
    const SUMMARY: &'static str =
        "roll two dice under the cup, claim a value, pass it on or call the bluff";
    const SEATS: (u8, u8) = (2, 10);
    const VARIANTS: &'static [&'static str] = &super::Ranking::NAMES;
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("Mia has no variant files: name a ranking (traditional or modern)".into());
        }
        let ranking = match opts.variant.as_deref() {
            None | Some("standard") => super::Ranking::default(),
            Some(other) => super::Ranking::parse(other)?,
        };
        if opts.players != 0 && !(2..=10).contains(&opts.players) {
            return Err(format!("Mia seats 2 to 10 players, not {}", opts.players));
        }
        Ok(Setup::standard(opts.players.max(2), ranking))
    }

    fn start(setup: &Setup, players: u8) -> Result<Mia, RuleError> {
        check_players(setup.seats.len(), players)?;
        Mia::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Mia>> {
        match level {
            BotLevel::Easy => Box::new(crate::bots::RandomBot::new(rng)),
            _ => Box::new(crate::bots::dice::MiaBot::new(rng)),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &MiaView, n: &dyn Fn(Seat) -> String) -> String {
        let lives: Vec<String> = v
            .lives
            .iter()
            .map(|(s, l)| format!("{} {l}", n(*s)))
            .collect();
        let mut s = format!(
            "lives: {} ({} ranking)\n",
            lives.join(", "),
            v.ranking.name()
        );
        if let Some(c) = &v.cup {
            if let Some(d) = c.dice {
                s += &format!(
                    "the cup you rolled: {} = {}\n",
                    dice_text(&d),
                    super::Throw::of_dice(d[0], d[1])
                );
            }
            if let Some(claim) = c.claim {
                s += &format!("claim: {claim}, owned by {}\n", n(c.owner));
            }
        }
        s
    }

    fn prompt(_view: &MiaView, _legal: &[Action]) -> String {
        format!("your move ({}): ", help())
    }

    fn parse_move(input: &str, _view: &MiaView, _legal: &[Action]) -> Result<Action, String> {
        super::replay::parse_action(&format!("0 {input}"))
            .map(|(_, a)| a)
            .map_err(|_| format!("'{}' is not a move: {}", input.trim(), help()))
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<Mia>> {
        Box::<crate::games::panel::dice::DicePanel<Mia>>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        match self.outcome() {
            Some(o) if !o.winners.is_empty() => {
                format!("{} the game", says(names(o.winners[0]), "wins"))
            }
            Some(o) => format!(
                "the game ended without a winner: {} forfeited",
                o.payoffs
                    .iter()
                    .filter(|(_, p)| *p < 0)
                    .map(|(s, _)| names(*s))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "the game is not over".into(),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "winner": self.outcome().and_then(|o| o.winners.first().copied()),
            "forfeited": self.forfeited,
            "rounds": self.round,
        })
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
