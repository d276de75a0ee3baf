use super::*;
use crate::engine::sim::{simulate, SimOptions};
use rand::{rngs::StdRng, SeedableRng};

fn capped(players: u8, rounds: u32) -> Setup {
    Setup {
        rounds: Some(rounds),
        ..Setup::new(players)
    }
}

#[test]
fn random_games_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut steps = 0;
    for (players, games) in [(2, 12), (3, 12), (4, 10), (5, 8), (6, 4), (8, 3)] {
        let g = AbandonShip::new(&capped(players, 2)).unwrap();
        for _ in 0..games {
            steps += simulate(&g, &mut rng, &SimOptions::default()).unwrap().steps;
        }
    }
    assert!(steps > 5_000, "only {steps} steps simulated");
}
