//! The table's clock: what time it is for the seats together, not only for this machine.
//!
//! Deadlines and votes are judged by the log's own times (`created_at`, PROTOCOL.md §4.4), which
//! each seat's machine writes from its own clock. A machine 30 s fast would date its events in
//! the others' future (they hold such events back) and spend its time bank on moves made in
//! time; one 30 s slow would vote late. So each client estimates how far its clock is from the
//! seats' common clock and dates, votes and holds back by that instead.
//!
//! Every heartbeat (PROTOCOL.md §7.9) carries its sender's correction. From a heartbeat of seat
//! `j` signed at `created_at` with correction `c_j`, this client learns that `j`'s raw clock read
//! `created_at − c_j` when it left, so `j`'s raw clock is ahead of its own by at least that minus
//! its own raw clock now (less the time on the way): the largest such sample of the last few is
//! the estimate. The common clock is the median of every seat's raw clock (the mean of the middle
//! two for an even count), this machine's included, so every client aims at the same time and a
//! seat that lies about its clock moves the median at most to the next honest one. The
//! correction is bounded; beyond it a machine's clock is wrong and the person is told.

use crate::engine::Seat;
use std::collections::{BTreeMap, VecDeque};

/// Largest correction applied, in seconds: a clock further off than this needs fixing.
pub const MAX_CORRECTION_SECS: i64 = 300;

/// Samples kept per seat.
const SAMPLES: usize = 6;

/// Heartbeat samples and the correction they give.
#[derive(Debug, Clone, Default)]
pub struct TableClock {
    /// Seconds added to this machine's raw clock (a test's stand-in for a wrong clock).
    skew: i64,
    /// Per other seat: how far its raw clock read ahead of ours, newest last.
    ahead: BTreeMap<Seat, VecDeque<i64>>,
    correction: i64,
    /// The median fell outside the bound.
    off_by: Option<i64>,
}

impl TableClock {
    /// A clock for a machine whose raw clock reads `skew` seconds off (0 outside tests).
    pub fn new(skew: i64) -> TableClock {
        TableClock {
            skew,
            ..TableClock::default()
        }
    }

    /// This machine's raw clock in unix seconds (the skew included).
    pub fn raw(&self, system: u64) -> u64 {
        system.saturating_add_signed(self.skew)
    }

    /// The table's time now, given the system clock's unix seconds.
    pub fn now(&self, system: u64) -> u64 {
        self.raw(system).saturating_add_signed(self.correction)
    }

    /// What this client's heartbeats say of its clock.
    pub fn correction(&self) -> i64 {
        self.correction
    }

    /// How far this machine's clock is from the others' beyond what is corrected, if it is.
    pub fn off_by(&self) -> Option<i64> {
        self.off_by
    }

    /// How many other seats' clocks this clock has heard.
    pub fn heard(&self) -> usize {
        self.ahead.len()
    }

    /// A heartbeat of `seat`, signed at `created_at` by a client applying `their` correction,
    /// received when the system clock read `system`. Returns whether it was the first heard
    /// from that seat.
    pub fn observe(&mut self, seat: Seat, created_at: u64, their: i64, system: u64) -> bool {
        let first = !self.ahead.contains_key(&seat);
        let their_raw = created_at as i64 - their.clamp(-MAX_CORRECTION_SECS, MAX_CORRECTION_SECS);
        let sample = their_raw - self.raw(system) as i64;
        let v = self.ahead.entry(seat).or_default();
        v.push_back(sample);
        if v.len() > SAMPLES {
            v.pop_front();
        }
        self.recompute();
        first
    }

    fn recompute(&mut self) {
        // Each seat's raw clock relative to ours: the largest recent sample (the one least
        // delayed on the way); ours is 0.
        let mut clocks: Vec<i64> = self
            .ahead
            .values()
            .filter_map(|v| v.iter().max().copied())
            .collect();
        clocks.push(0);
        clocks.sort_unstable();
        let n = clocks.len();
        let median = if n % 2 == 1 {
            clocks[n / 2]
        } else {
            (clocks[n / 2 - 1] + clocks[n / 2]).div_euclid(2)
        };
        self.off_by = (median.abs() > MAX_CORRECTION_SECS).then_some(median);
        self.correction = median.clamp(-MAX_CORRECTION_SECS, MAX_CORRECTION_SECS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seats with raw clocks `skews` exchange heartbeats (no delay) until their corrections
    /// settle; returns each seat's table time at the same instant.
    fn settle(skews: &[i64]) -> Vec<u64> {
        let system = 1_700_000_000;
        let mut clocks: Vec<TableClock> = skews.iter().map(|s| TableClock::new(*s)).collect();
        for _ in 0..20 {
            for from in 0..clocks.len() {
                let (at, corr) = (clocks[from].now(system), clocks[from].correction());
                for (to, c) in clocks.iter_mut().enumerate() {
                    if to != from {
                        c.observe(from as Seat, at, corr, system);
                    }
                }
            }
        }
        clocks.iter().map(|c| c.now(system)).collect()
    }

    #[test]
    fn seats_whose_clocks_differ_by_a_minute_agree_on_the_table_s_time() {
        for skews in [
            vec![30, 0],
            vec![-30, 30],
            vec![0, 30, -30],
            vec![0, 0, 30, -30],
            vec![7, -3, 0, 30, -29],
        ] {
            let times = settle(&skews);
            let (lo, hi) = (times.iter().min().unwrap(), times.iter().max().unwrap());
            assert!(hi - lo <= 1, "{skews:?}: {times:?}");
        }
    }

    #[test]
    fn one_seat_lying_about_its_clock_moves_the_table_at_most_to_an_honest_one() {
        let system = 1_700_000_000;
        let mut me = TableClock::new(0);
        me.observe(1, system + 2, 0, system);
        // Seat 2 claims a clock an hour ahead.
        me.observe(2, system + 3_600, 0, system);
        assert_eq!(me.now(system), system + 2);
        assert_eq!(me.off_by(), None);
    }

    #[test]
    fn a_clock_far_off_is_corrected_within_the_bound_and_said() {
        let system = 1_700_000_000;
        let mut me = TableClock::new(-1_000);
        me.observe(1, system, 0, system);
        me.observe(2, system, 0, system);
        assert_eq!(me.correction(), MAX_CORRECTION_SECS);
        assert_eq!(me.off_by(), Some(1_000));
    }
}
