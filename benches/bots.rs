//! Bot strength: heads-up duplicate matches through the engine alone (no crypto, no network),
//! printed as a Markdown table for BENCHMARKS.md.
//!
//! `BOTS_BENCH_PAIRS` sets the duplicate pairs per match (default 5,000 = 10,000 hands);
//! `BOTS_BENCH_SEED` the seed (default 2026). Every figure is reproducible from the seed.

use std::time::Instant;
use tolerance::bots::arena::setting;
use tolerance::bots::BotLevel;
use tolerance::games::tolerance::arena::{duel, table_match, Contestant};
use tolerance::games::tolerance::Variant;

fn main() {
    // `cargo bench` passes harness flags such as `--bench`; this program takes none.
    let pairs = setting("BOTS_BENCH_PAIRS", 5_000);
    let seed = setting("BOTS_BENCH_SEED", 2026);
    let variant = Variant::default();
    let matches = [
        (
            Contestant::Level(BotLevel::Hard),
            Contestant::Level(BotLevel::Normal),
        ),
        (Contestant::Level(BotLevel::Normal), Contestant::Random),
        (
            Contestant::Level(BotLevel::Normal),
            Contestant::Level(BotLevel::Easy),
        ),
        (Contestant::Level(BotLevel::Easy), Contestant::Random),
        (Contestant::Level(BotLevel::Hard), Contestant::Random),
    ];
    println!(
        "variant {} (d{}, blind {}, stacks {}), heads-up, {} duplicate pairs per match, seed {seed}\n",
        variant.name,
        variant.die_sides,
        variant.blind,
        variant.starting_stack,
        pairs
    );
    println!("| match (A vs B) | hands | A wins hands, % (95 % CI) | A net blinds / hand (95 % CI) | time |");
    println!("|---|---|---|---|---|");
    for (i, (a, b)) in matches.into_iter().enumerate() {
        let started = Instant::now();
        let r = duel(a, b, &variant, pairs, seed + i as u64).expect("the match plays");
        println!(
            "| {} vs {} | {} | {} | {} | {:.1} s |",
            a.name(),
            b.name(),
            r.hands,
            r.a_win_rate.show(100.0, false),
            r.a_blinds_per_hand.show(1.0, true),
            started.elapsed().as_secs_f64()
        );
    }
    // At a full table: one A among B's, A moving one seat each hand. Even play nets 0 blinds;
    // hands won fall short of 1 in 4 even then, as a blind nobody calls wins its poster nothing.
    let hands = 2 * pairs;
    println!("\n4 seats, one A and three B, {hands} hands per match\n");
    println!("| A among three B | hands | A wins hands, % (95 % CI) | A net blinds / hand (95 % CI) | time |");
    println!("|---|---|---|---|---|");
    let tables = [
        (
            Contestant::Level(BotLevel::Hard),
            Contestant::Level(BotLevel::Normal),
        ),
        (
            Contestant::Level(BotLevel::Normal),
            Contestant::Level(BotLevel::Hard),
        ),
        (Contestant::Level(BotLevel::Normal), Contestant::Random),
    ];
    for (i, (a, b)) in tables.into_iter().enumerate() {
        let started = Instant::now();
        let r =
            table_match(a, b, &variant, 4, hands, seed + 100 + i as u64).expect("the match plays");
        println!(
            "| {} among {} | {} | {} | {} | {:.1} s |",
            a.name(),
            b.name(),
            r.hands,
            r.a_win_rate.show(100.0, false),
            r.a_blinds_per_hand.show(1.0, true),
            started.elapsed().as_secs_f64()
        );
    }
}
