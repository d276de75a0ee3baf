use super::*;
use crate::engine::sim::{simulate, SimOptions};
use rand::{rngs::StdRng, SeedableRng};

#[test]
fn random_games_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(5);
    for (players, partners) in [(2, false), (3, false), (4, false), (4, true)] {
        let mut s = Setup::new(players);
        s.partnerships = partners;
        s.hands = Some(2);
        let g = AllFives::new(&s).unwrap();
        for _ in 0..12 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
    }
}
