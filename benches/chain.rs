//! A prepared deck's shuffle chain checked by one client: one step at a time (version 6: the
//! n − 1 other seats' steps, each when it arrives) against all n steps at once (version 7,
//! PROTOCOL.md §5.9, FAIR.md §9.1 "A chain of steps at once"), as **process** CPU time (every
//! thread: arkworks' multi-scalar multiplications run on rayon's threads, which the criterion
//! figures of `benches/fair.rs` do not count) and wall time.
//!
//! Run: `cargo bench --bench chain` (env `CHAIN_BENCH_SEATS=10`, `CHAIN_BENCH_SIZES=52,104`,
//! `CHAIN_BENCH_ROUNDS=6`; `RAYON_NUM_THREADS=1` for one core). The two ways alternate round by
//! round, so a change in the machine's load touches both alike. Figures in BENCHMARKS.md,
//! "Checking a prepared deck's shuffles together".

use std::time::Instant;

use tolerance::fair::{
    keygen, shuffle_verified, verify_chain, verify_public_share, verify_shuffle, Context, JointKey,
    ShuffleStep, Step, VerifiedDeck,
};

fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(name).map_or_else(
        |_| default.to_vec(),
        |v| {
            v.split(',')
                .map(|s| s.trim().parse().expect("comma-separated numbers"))
                .collect()
        },
    )
}

/// User plus system CPU time of the whole process, in milliseconds (`/proc/self/stat`, clock
/// ticks of 10 ms: each measurement spans many of them).
fn process_cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat (Linux)");
    let after = &stat[stat.rfind(')').expect("comm field") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 * 10.0
}

fn ctx(seat: u16) -> Context {
    let mut actor = [0xa0; 32];
    actor[..2].copy_from_slice(&seat.to_be_bytes());
    Context::new([0x5c; 32], 1, seat, actor)
}

fn main() {
    let seats = env_list("CHAIN_BENCH_SEATS", &[10])[0] as u16;
    let sizes = env_list("CHAIN_BENCH_SIZES", &[52, 104]);
    let rounds = env_list("CHAIN_BENCH_ROUNDS", &[6])[0];
    let mut rng = rand::thread_rng();
    let mut secrets = Vec::new();
    let mut shares = Vec::new();
    for s in 0..seats {
        let (secret, public) = keygen(&mut rng, &ctx(s)).unwrap();
        shares.push(verify_public_share(&ctx(s), &public).unwrap());
        secrets.push(secret);
    }
    let key = JointKey::from_seats(&shares).unwrap();
    println!("{seats} seats, {rounds} rounds; process CPU and wall per chain check (one client)");
    for size in sizes {
        let mut steps = Vec::new();
        let mut prev: Option<VerifiedDeck> = None;
        for (k, s) in secrets.iter().enumerate() {
            let c = ctx(k as u16).with_step(Step::Shuffle { index: k as u16 });
            let (mine, proof) = shuffle_verified(s, &c, &key, size, prev.as_ref()).unwrap();
            steps.push(ShuffleStep {
                ctx: c,
                deck: mine.deck().clone(),
                proof,
            });
            prev = Some(mine);
        }
        let decks: Vec<VerifiedDeck> = {
            let mut out = Vec::new();
            let mut p: Option<VerifiedDeck> = None;
            for st in &steps {
                let v =
                    verify_shuffle(&st.ctx, &key, size, p.as_ref(), &st.deck, &st.proof).unwrap();
                out.push(v.clone());
                p = Some(v);
            }
            out
        };
        let (mut one_cpu, mut one_wall, mut all_cpu, mut all_wall) = (0.0, 0.0, 0.0, 0.0);
        for _ in 0..rounds {
            // Seat 0's view at version 6: the nine other steps, each on the verified deck
            // before it.
            let (c0, w0) = (process_cpu_ms(), Instant::now());
            for k in 1..steps.len() {
                let st = &steps[k];
                verify_shuffle(
                    &st.ctx,
                    &key,
                    size,
                    Some(&decks[k - 1]),
                    &st.deck,
                    &st.proof,
                )
                .unwrap();
            }
            one_cpu += process_cpu_ms() - c0;
            one_wall += w0.elapsed().as_secs_f64() * 1e3;
            // Version 7: the whole chain, its own step included, at once.
            let (c0, w0) = (process_cpu_ms(), Instant::now());
            let last = verify_chain(&key, size, None, &steps).unwrap().unwrap();
            all_cpu += process_cpu_ms() - c0;
            all_wall += w0.elapsed().as_secs_f64() * 1e3;
            assert_eq!(last.deck(), &steps.last().unwrap().deck);
        }
        let r = rounds as f64;
        println!(
            "{size:>4} cards | one by one ({} steps): CPU {:>6.1} ms, wall {:>6.1} ms | together ({} steps): CPU {:>6.1} ms, wall {:>6.1} ms | CPU ratio {:.2}x",
            steps.len() - 1,
            one_cpu / r,
            one_wall / r,
            steps.len(),
            all_cpu / r,
            all_wall / r,
            one_cpu / all_cpu
        );
    }
}
