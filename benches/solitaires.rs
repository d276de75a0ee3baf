//! The solitaires' bots through the engine alone (no crypto, no network): each deal raced by
//! the game's bot and the random player (for The Bogey and Shooting Party, one that never gives
//! up: their rules §9 and §10),
//! printed as Markdown for BENCHMARKS.md.
//!
//! `SOLITAIRE_DEALS` sets the deals (default 10,000), `SOLITAIRE_SEED` the seed (default 2026).

use std::time::Instant;

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let deals = setting("SOLITAIRE_DEALS", 10_000);
    let seed = setting("SOLITAIRE_SEED", 2026);
    println!("{deals} deals, seed {seed}: each deal raced by the bot and the random player\n");
    println!("| game | bot mean score (± s.e.) | random mean score (± s.e.) | bot − random per deal (± s.e.) | bot wins (escapes, every card played) | random wins | time |");
    println!("|---|---|---|---|---|---|---|");
    let started = Instant::now();
    // SCOUNDREL_WEIGHTS: six numbers (bot::Weights, in field order) to try instead of the bot's.
    let weights = std::env::var("SCOUNDREL_WEIGHTS")
        .ok()
        .and_then(|w| tolerance::games::scoundrel::bot::Weights::parse(&w))
        .unwrap_or_default();
    let d = tolerance::games::scoundrel::bot::duplicate(deals, seed, weights);
    println!(
        "| scoundrel | {:.1} ± {:.1} | {:.1} ± {:.1} | {:.1} ± {:.1} | {:.2} % ({} of {}) | {:.2} % | {:.1} s |",
        d.bot_mean,
        d.bot_se,
        d.random_mean,
        d.random_se,
        d.margin,
        d.margin_se,
        100.0 * d.bot_wins,
        (d.bot_wins * deals as f64).round(),
        deals,
        100.0 * d.random_wins,
        started.elapsed().as_secs_f64()
    );
    // BOGEY_WEIGHTS: four numbers (bot::Weights, in field order) to try instead of the bot's.
    let weights = std::env::var("BOGEY_WEIGHTS")
        .ok()
        .and_then(|w| tolerance::games::the_bogey::bot::Weights::parse(&w))
        .unwrap_or_default();
    for (hand, name) in [(5, "the-bogey"), (4, "the-bogey (hard: hand of 4)")] {
        let started = Instant::now();
        let d = tolerance::games::the_bogey::bot::duplicate(deals, seed, hand, weights);
        println!(
            "| {name} | {:.1} ± {:.1} | {:.1} ± {:.1} | {:.1} ± {:.1} | {:.2} % ({} of {}) | {:.2} % | {:.1} s |",
            d.bot_mean,
            d.bot_se,
            d.random_mean,
            d.random_se,
            d.margin,
            d.margin_se,
            100.0 * d.bot_wins,
            (d.bot_wins * deals as f64).round(),
            deals,
            100.0 * d.random_wins,
            started.elapsed().as_secs_f64()
        );
    }
    let started = Instant::now();
    let d = tolerance::games::shooting_party::bot::duplicate(deals, seed);
    println!(
        "| shooting-party | {:.2} ± {:.2} | {:.2} ± {:.2} | {:.2} ± {:.2} | {:.2} % ({} of {}) | {:.2} % | {:.1} s |",
        d.bot_mean,
        d.bot_se,
        d.random_mean,
        d.random_se,
        d.margin,
        d.margin_se,
        100.0 * d.bot_wins,
        (d.bot_wins * deals as f64).round(),
        deals,
        100.0 * d.random_wins,
        started.elapsed().as_secs_f64()
    );
}
