//! A race's leaderboard: verified results in order, shared places, and the outcome.

use crate::engine::{Outcome, Seat};

/// One verified result of a race.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    pub seat: Seat,
    pub score: i32,
    /// Finished its game; a stopped entrant (the race ended under it) is listed after the
    /// finished ones and cannot win.
    pub finished: bool,
}

/// Verified results in leaderboard order: finished entrants by score, best first, then stopped
/// ones by score; ties by seat.
pub fn leaderboard(mut rows: Vec<Standing>) -> Vec<Standing> {
    rows.sort_by_key(|r| (!r.finished, -r.score, r.seat));
    rows
}

/// The place of `board[i]` (1 first); a finished entrant tied with others shares the place of
/// the first of them.
pub fn place(board: &[Standing], i: usize) -> usize {
    let me = board[i];
    1 + board[..i]
        .iter()
        .filter(|r| r.finished && r.score > me.score)
        .count()
}

/// A race's outcome from its leaderboard: the finished entrants with the best verified score
/// win (together when tied); each finished entrant's payoff is its score, everyone else's 0.
pub fn outcome(seats: impl IntoIterator<Item = Seat>, board: &[Standing]) -> Outcome {
    let best = board.iter().filter(|r| r.finished).map(|r| r.score).max();
    let winners = board
        .iter()
        .filter(|r| r.finished && Some(r.score) == best)
        .map(|r| r.seat)
        .collect();
    let payoffs = seats
        .into_iter()
        .map(|s| {
            let score = board
                .iter()
                .find(|r| r.seat == s && r.finished)
                .map(|r| i64::from(r.score))
                .unwrap_or(0);
            (s, score)
        })
        .collect();
    Outcome { payoffs, winners }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_a_place_and_a_stopped_entrant_never_wins() {
        let board = leaderboard(vec![
            Standing {
                seat: 2,
                score: 30,
                finished: false,
            },
            Standing {
                seat: 0,
                score: 10,
                finished: true,
            },
            Standing {
                seat: 1,
                score: 10,
                finished: true,
            },
            Standing {
                seat: 3,
                score: 4,
                finished: true,
            },
        ]);
        let seats: Vec<Seat> = board.iter().map(|r| r.seat).collect();
        assert_eq!(seats, vec![0, 1, 3, 2]);
        assert_eq!(
            (place(&board, 0), place(&board, 1), place(&board, 2)),
            (1, 1, 3)
        );
        let o = outcome(0..4, &board);
        assert_eq!(o.winners, vec![0, 1]);
        assert_eq!(o.payoffs, vec![(0, 10), (1, 10), (2, 0), (3, 4)]);
    }
}
