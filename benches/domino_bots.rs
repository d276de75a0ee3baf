//! Domino bot strength: the `normal` (greedy) bot against the random `easy` one, heads-up, in
//! duplicate pairs through the engine alone, for All Fives and Chickenfoot; printed as a Markdown
//! table for BENCHMARKS.md.
//!
//! `DOMINO_BENCH_PAIRS` sets the duplicate pairs per row (default 2,000 = 4,000 games);
//! `DOMINO_BENCH_SEED` the seed (default 2026). Every figure is reproducible from the seed.

use std::time::Instant;
use tolerance::bots::arena::{setting, GameDuel};
use tolerance::bots::BotLevel;
use tolerance::games::registry::{duel, TableGame};
use tolerance::games::{all_fives, chickenfoot};

fn row<G: TableGame>(what: &str, unit: &str, setup: &G::Setup, pairs: u64, seed: u64) {
    let started = Instant::now();
    let r: GameDuel =
        duel::<G>(setup, BotLevel::Normal, BotLevel::Easy, pairs, seed).expect("the match plays");
    println!(
        "| {what} | {} | {} | {} {unit} | {:.1} s |",
        r.games,
        r.a_win_rate.show(100.0, false),
        r.a_margin.show(1.0, true),
        started.elapsed().as_secs_f64()
    );
}

fn main() {
    let pairs = setting("DOMINO_BENCH_PAIRS", 2_000);
    let seed = setting("DOMINO_BENCH_SEED", 2026);
    println!("normal (greedy) vs easy (random), heads-up, {pairs} duplicate pairs per row, seed {seed}\n");
    println!("| game (2 players) | games | normal wins, % (95 % CI) | normal's margin per game (95 % CI) | time |");
    println!("|---|---|---|---|---|");
    let mut hand = all_fives::Setup::new(2);
    hand.hands = Some(1);
    row::<all_fives::AllFives>("All Fives, one hand", "points", &hand, pairs, seed);
    let game = all_fives::Setup::new(2);
    row::<all_fives::AllFives>("All Fives, a game to 250", "points", &game, pairs, seed + 1);
    let mut round = chickenfoot::Setup::new(2);
    round.rounds = Some(1);
    row::<chickenfoot::Chickenfoot>(
        "Chickenfoot, one round (double-9)",
        "pips",
        &round,
        pairs,
        seed + 2,
    );
    let game = chickenfoot::Setup::new(2);
    row::<chickenfoot::Chickenfoot>(
        "Chickenfoot, a game of 10 rounds (double-9)",
        "pips",
        &game,
        pairs,
        seed + 3,
    );
}
