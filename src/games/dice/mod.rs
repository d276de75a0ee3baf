//! What the dice games (Perudo, Mia) share: their seating and seat methods, their payoffs, and
//! (in [`ui`]) the terminal panel both draw on.

#[cfg(feature = "terminal")]
pub mod ui;

use crate::engine::{Outcome, RuleError, Seat};

/// The first protocol version whose dice games roll the next cups in the pass that opens the
/// last ones (PROTOCOL.md §5.8, §10.1).
pub const ROLLS_WITH_OPENING_SINCE: u8 = 8;

/// Whether a table of protocol version `v` rolls the next cups with the opening.
pub fn rolls_with_opening_at(v: u8) -> bool {
    v >= ROLLS_WITH_OPENING_SINCE
}

/// A setup read without a version rolls as this build's tables do (the serde default of the
/// games' `rolls_with_opening`, which is never on the wire).
pub fn rolls_with_opening_now() -> bool {
    rolls_with_opening_at(crate::wire::VERSION)
}

/// Checks a dice game's seats (`min..=max` players, none listed twice) and finds the chosen
/// first player among them, if any: the setup checks Perudo and Mia share.
pub fn check_seating(
    game: &str,
    seats: &[Seat],
    min: usize,
    max: usize,
    first: Option<Seat>,
) -> Result<Option<usize>, RuleError> {
    let n = seats.len();
    if !(min..=max).contains(&n) {
        return Err(RuleError::Setup(format!(
            "{game} needs {min} to {max} players, not {n}"
        )));
    }
    let mut seen = std::collections::BTreeSet::new();
    for s in seats {
        if !seen.insert(*s) {
            return Err(RuleError::Setup(format!("seat {s} is listed twice")));
        }
    }
    first
        .map(|f| {
            seats
                .iter()
                .position(|s| *s == f)
                .ok_or_else(|| RuleError::Setup(format!("first player {f} is not seated")))
        })
        .transpose()
}

/// Payoffs of a last-player-standing game (Perudo, Mia): the winner takes one point from every
/// other player, so the payoffs sum to zero like chips do.
pub fn elimination_outcome(seats: &[Seat], winner: Seat) -> Outcome {
    let others = seats.len() as i64 - 1;
    Outcome {
        payoffs: seats
            .iter()
            .map(|&s| (s, if s == winner { others } else { -1 }))
            .collect(),
        winners: vec![winner],
    }
}

/// A dice game's result once `over`: a forfeit's payoffs when the table removed seats, else the
/// last player standing's (`last`).
pub fn outcome(
    over: bool,
    seats: &[Seat],
    forfeited: &[Seat],
    last: Option<Seat>,
) -> Option<Outcome> {
    if !over {
        return None;
    }
    if !forfeited.is_empty() {
        return Some(crate::engine::forfeit_outcome(seats, forfeited));
    }
    Some(elimination_outcome(seats, last?))
}

/// Who takes part in the dice while the game runs: every seat, out of dice or not, since every
/// die needs every seat's committed value (the rules' §Forfeit); nobody once it is over.
pub use crate::engine::participants;

/// The seats a forfeit removes, sorted: the table ends the game there, with them as the losers
/// and no winner. Refused once the game is over, or for a seat not at the table.
pub fn forfeiting(
    over: bool,
    offenders: &[Seat],
    seated: impl Fn(Seat) -> bool,
) -> Result<Vec<Seat>, RuleError> {
    if over {
        return Err(RuleError::Finished);
    }
    if let Some(o) = offenders.iter().find(|o| !seated(**o)) {
        return Err(RuleError::Setup(format!("seat {o} is not at this table")));
    }
    let mut out = offenders.to_vec();
    out.sort_unstable();
    Ok(out)
}

/// The [`Game`](crate::engine::Game) methods on seats that Perudo and Mia share, written once:
/// the seats are `self.players` in order, every one of them takes part in the dice until the
/// end (see [`participants`]), and a forfeit ends the game there with the offenders in
/// `self.forfeited` (see [`forfeiting`]). Expands inside the game's `impl Game`, whose module
/// names its own `Phase` (with `Phase::Done`).
macro_rules! seat_methods {
    () => {
        fn seats(&self) -> Vec<$crate::engine::Seat> {
            self.players.iter().map(|p| p.seat).collect()
        }

        fn participants(&self) -> Vec<$crate::engine::Seat> {
            $crate::games::dice::participants(self.phase == Phase::Done, self.seats())
        }

        fn forfeit(
            &mut self,
            offenders: &[$crate::engine::Seat],
            _reason: $crate::engine::ForfeitReason,
        ) -> Result<(), $crate::engine::RuleError> {
            let over = self.phase == Phase::Done;
            self.forfeited =
                $crate::games::dice::forfeiting(over, offenders, |s| self.player(s).is_some())?;
            self.pending.clear();
            self.phase = Phase::Done;
            Ok(())
        }
    };
}
pub(crate) use seat_methods;
