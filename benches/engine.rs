//! Engine-only Tolerance hands per second (no crypto, no network): the rules cost every client
//! pays per hand. Figures are quoted in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use tolerance::engine::sim::{play_out, Oracle};
use tolerance::engine::Seat;
use tolerance::games::tolerance::{Hand, Table, Variant};

fn hands(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine_hand");
    for players in [2u8, 5, 10, 20] {
        let seats: Vec<(Seat, Option<u64>)> = (0..players).map(|s| (s, None)).collect();
        let table = Table::new(
            Variant {
                seats: 20,
                ..Variant::default()
            },
            &seats,
            0,
        )
        .unwrap();
        let setup = table.next_hand().unwrap();
        let mut oracle = Oracle::new(StdRng::seed_from_u64(1));
        let mut rng = StdRng::seed_from_u64(2);
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(
            BenchmarkId::new("random_bots", players),
            &setup,
            |b, setup| {
                b.iter(|| {
                    let mut hand = Hand::new(setup).unwrap();
                    play_out(&mut hand, &mut oracle, 10_000, |_, _, legal| {
                        *legal.choose(&mut rng).unwrap()
                    })
                    .unwrap()
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, hands);
criterion_main!(benches);
