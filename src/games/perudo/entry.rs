//! Perudo's entry in the game registry: its setup, bots and words.

use super::game::{Action, LogEntry, Perudo, PerudoView, Setup};
use crate::bots::{Bot, BotLevel};
use crate::engine::{Game, RuleError, Seat};
use crate::games::registry::{check_players, says, SetupOptions, TableGame};
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
        E::Round {
            round,
            opener,
            putana,
        } => format!(
            "round {round}{}: {} opens",
            if *putana {
                " (PUTANA: ones not wild, face fixed)"
            } else {
                ""
            },
            n(*opener)
        ),
        E::Bid { seat, bid } => format!("{} {bid}", says(n(*seat), "bids")),
        E::Dudo { seat, against } => format!("{}: dudo! (against {})", n(*seat), n(*against)),
        E::Shown { seat, dice } => format!("{} {}", says(n(*seat), "shows"), dice_text(dice)),
        E::Counted { bid, count, loser } => {
            format!(
                "{count} counted for {bid}: {} a die",
                says(n(*loser), "loses")
            )
        }
        E::Out { seat } => format!("{} out", says(n(*seat), "is")),
        E::Won { seat } => format!("{} the game", says(n(*seat), "wins")),
    }
}

/// What a person may type.
pub fn help() -> &'static str {
    "'bid QUANTITY FACE' (e.g. 'bid 4 3') or 'dudo'"
}

impl TableGame for Perudo {
    const TITLE: &'static str = "Perudo";
    const SUMMARY: &'static str =
        "liar's dice: bid on every cup's dice, ones wild, dudo opens the cups";
    const SEATS: (u8, u8) = (2, 10);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        match opts.variant.as_deref() {
            None | Some("standard") => {}
            Some(other) => {
                return Err(format!("Perudo has one variant, 'standard', not '{other}'"));
            }
        }
        if opts.variant_text.is_some() {
            return Err("Perudo has no variant files".into());
        }
        if opts.players != 0 && !(2..=10).contains(&opts.players) {
            return Err(format!(
                "Perudo seats 2 to 10 players, not {}",
                opts.players
            ));
        }
        Ok(Setup::standard(opts.players.max(2)))
    }

    fn start(setup: &Setup, players: u8) -> Result<Perudo, RuleError> {
        check_players(setup.seats.len(), players)?;
        Perudo::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Perudo>> {
        match level {
            BotLevel::Easy => Box::new(crate::bots::RandomBot::new(rng)),
            _ => Box::new(crate::bots::dice::PerudoBot::new(rng)),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &PerudoView, n: &dyn Fn(Seat) -> String) -> String {
        let cups: Vec<String> = v
            .players
            .iter()
            .map(|p| format!("{} {}", n(p.seat), p.dice_left))
            .collect();
        let mut s = format!(
            "dice: {} ({} on the table)\n",
            cups.join(", "),
            v.total_dice
        );
        if let Some(d) = v.me().and_then(|p| p.dice.as_ref()) {
            s += &format!("your cup: {}\n", dice_text(d));
        }
        match (v.bid, v.bidder) {
            (Some(b), Some(by)) => s += &format!("standing bid: {b} by {}\n", n(by)),
            _ => s += "no bid yet\n",
        }
        s
    }

    fn prompt(_view: &PerudoView, _legal: &[Action]) -> String {
        format!("your move ({}): ", help())
    }

    fn parse_move(input: &str, _view: &PerudoView, _legal: &[Action]) -> Result<Action, String> {
        super::replay::parse_action(&format!("0 {input}"))
            .map(|(_, a)| a)
            .map_err(|_| format!("'{}' is not a move: {}", input.trim(), help()))
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<Perudo>> {
        Box::<crate::games::panel::dice::DicePanel<Perudo>>::default()
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
