//! Checking a table from its events alone: the same session every seat runs, with no seat and no
//! secret, over the announcement and the log. Pure (no relay, no clock): `tolerance verify`
//! fetches the events and calls it, and so does the browser page, so both judge a table by the
//! one rule.

use super::session::{Session, SessionConfig, Verdict, Violation};
use crate::engine::Seat;
use crate::games::registry::{self, TableGame, Visit};
use crate::wire::TableSpec;
use nostr::prelude::Event;

/// A table's game at its start and what its session needs to know, from its announcement
/// (`start`: the seated announcement's `created_at`); an error in words when the announcement
/// does not make a table of `G`.
pub fn table_game<G: TableGame>(
    spec: &TableSpec,
    start: u64,
) -> Result<(SessionConfig, G), String> {
    if spec.game != G::NAME {
        return Err(format!(
            "table {} is a {} table, not {}",
            spec.table,
            spec.game,
            G::TITLE
        ));
    }
    let setup: G::Setup = serde_json::from_value(spec.setup.clone())
        .map_err(|e| format!("the table's {} setup is not readable: {e}", G::TITLE))?;
    let setup = G::at_version(setup, spec.v);
    let (min, max) = G::seats_for(&setup);
    let n = spec.seats.len();
    if n < min as usize || n > max as usize {
        return Err(format!(
            "the table seats {n} players; {} with this setup seats {min} to {max}",
            G::TITLE
        ));
    }
    let game = G::start(&setup, n as u8).map_err(|e| e.to_string())?;
    let cfg = SessionConfig {
        table: spec.id(),
        seats: spec.seat_keys(),
        deadlines: spec.deadlines,
        start,
        pow: spec.pow,
        version: spec.v,
    };
    Ok((cfg, game))
}

/// What the table's events show.
#[derive(Debug, Clone)]
pub struct Checked {
    pub finished: bool,
    /// The table's decisions (timeouts, removals, ignored forks, the end), in order.
    pub verdicts: Vec<Verdict>,
    /// Events of seated keys that break a rule, each naming its signer.
    pub violations: Vec<Violation>,
    /// Log events checked (from seated keys).
    pub events: u64,
    /// Events on the table's chain up to its end step.
    pub chain_events: u64,
    /// What the game's own invariants say of the final state: `None` when they hold.
    pub invariants: Option<String>,
    /// The game's result in words, the seats named by `names` (by seat; "seat N" past them).
    pub result: String,
    /// The game-specific part of the report.
    pub report: serde_json::Value,
}

impl Checked {
    /// Every event of a seated key checked out and the game's own checks hold.
    pub fn ok(&self) -> bool {
        self.violations.is_empty() && self.invariants.is_none()
    }
}

/// Replays `events` (the log of the seated keys; anything else is judged as the session judges
/// it) on the table `spec` announces, as a spectator.
pub fn check_table(
    spec: &TableSpec,
    start: u64,
    events: &[Event],
    names: &[String],
) -> Result<Checked, String> {
    registry::with_game(
        &spec.game,
        CheckOut {
            spec,
            start,
            events,
            names,
        },
    )?
}

/// The name of seat `x` among `names`.
pub fn name_of(names: &[String], x: Seat) -> String {
    names
        .get(x as usize)
        .cloned()
        .unwrap_or_else(|| format!("seat {x}"))
}

struct CheckOut<'a> {
    spec: &'a TableSpec,
    start: u64,
    events: &'a [Event],
    names: &'a [String],
}

impl Visit for CheckOut<'_> {
    type Out = Result<Checked, String>;
    fn visit<G: TableGame>(self) -> Result<Checked, String> {
        let (cfg, game) = table_game::<G>(self.spec, self.start)?;
        let mut s: Session<G> = Session::new(cfg, game, None).map_err(|e| e.to_string())?;
        s.handle_all(self.events);
        let names = |x: Seat| name_of(self.names, x);
        Ok(Checked {
            finished: s.is_finished(),
            verdicts: s.verdicts().to_vec(),
            violations: s.violations.clone(),
            events: s.stats().events,
            chain_events: s.stats().chain,
            invariants: s.game().check_invariants().err(),
            result: s.game().result_line(&names),
            report: s.game().report(),
        })
    }
}

/// A verdict in words.
pub fn verdict_text(v: &Verdict) -> String {
    verdict_text_named(v, &|s| format!("seat {s}"))
}

/// [`verdict_text`] with the seats named as the reader knows them ("you", "Ana").
pub fn verdict_text_named(v: &Verdict, names: &dyn Fn(Seat) -> String) -> String {
    use crate::table::session::Verdict as V;
    let seats = |s: &[Seat]| s.iter().map(|x| names(*x)).collect::<Vec<_>>().join(", ");
    match v {
        V::TimedOut { step, seats: s } => format!(
            "step {step}: {}: timed out, the default move was played",
            seats(s)
        ),
        V::Removed {
            step,
            seats: s,
            reason,
            sitting_out,
        } => format!(
            "step {step}: {}: {} ({})",
            seats(s),
            if *sitting_out {
                "out of the hand, dealt out until back"
            } else {
                "removed from the game"
            },
            reason.describe()
        ),
        V::Back { step, seats: s } => format!(
            "step {step}: {}: back at the table, dealt in from the next hand",
            seats(s)
        ),
        V::NotBack { step, seats: s } => format!(
            "step {step}: {}: did not come back within the return allowance",
            seats(s)
        ),
        V::Finished { step } => format!("step {step}: the game is over"),
        V::Broken { step, reason } => format!("step {step}: the table stopped: {reason}"),
    }
}

/// A verdict as the people at the table read it: what happened to whom, in plain words —
/// no step numbers and no protocol terms ([`verdict_text_named`] keeps those for `verify`).
pub fn verdict_words(v: &Verdict, names: &dyn Fn(Seat) -> String) -> String {
    use crate::games::ui::words::{agree_many, gone, says, seats};
    use crate::table::session::Verdict as V;
    let first = |s: &[Seat]| s.first().map(|x| names(*x)).unwrap_or_default();
    match v {
        V::TimedOut { seats: s, .. } => {
            format!("{} timed out: the default move was played", seats(s, names))
        }
        V::Removed {
            seats: s,
            reason,
            sitting_out,
            ..
        } => s
            .iter()
            .map(|x| {
                let n = names(*x);
                let then = if *sitting_out {
                    format!("{} out until back at the table", says(n.clone(), "sits"))
                } else {
                    format!("{} out of the game", says(n.clone(), "is"))
                };
                format!("{}: {then}", gone(n, *reason))
            })
            .collect::<Vec<_>>()
            .join("; "),
        V::Back { seats: s, .. } => format!(
            "{} {} back at the table, dealt in from the next hand",
            seats(s, names),
            agree_many(s.len(), &first(s), "is")
        ),
        V::NotBack { seats: s, .. } => format!(
            "{} did not come back within the return allowance",
            seats(s, names)
        ),
        V::Finished { .. } => "the game is over".into(),
        V::Broken { reason, .. } => format!("the table stopped: {reason}"),
    }
}
