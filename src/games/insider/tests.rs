use super::bot::InsiderBot;
use super::game::{End, Entry};
use super::*;
use crate::bots::{Bot, RandomBot};
use crate::engine::sim::{play_out, simulate, Oracle, SimOptions};
use crate::engine::{Game, Seat};
use rand::{rngs::StdRng, SeedableRng};

#[test]
fn random_tables_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(17);
    for players in 4..=8 {
        let g = Insider::new(&Setup::new(players)).unwrap();
        for _ in 0..6 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
    }
}
