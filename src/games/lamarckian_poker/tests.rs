use super::*;
use crate::engine::sim::{simulate, SimOptions};
use rand::{rngs::StdRng, SeedableRng};

#[test]
fn random_games_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(3);
    for players in 2..=8 {
        let g = LamarckianPoker::new(&Setup::new(players)).unwrap();
        for _ in 0..10 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
    }
}
