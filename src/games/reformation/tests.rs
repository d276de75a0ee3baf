use super::data::{Data, RoleMode};
use super::game::Slot;
use super::*;
use crate::bots::{Bot, RandomBot};
use crate::cards::CardId;
use crate::engine::sim::{fulfil_all, play_out, simulate, Oracle, SimOptions};
use crate::engine::{ChanceOutcome, Game, Seat, ToAct};
use rand::{rngs::StdRng, SeedableRng};
use std::collections::BTreeSet;

fn setups(players: u8) -> Vec<Setup> {
    let mut v = Vec::new();
    for name in entry::VARIANTS {
        v.push(entry::builtin(name, players).unwrap());
    }
    v
}

#[test]
fn random_games_pass_the_generic_simulation_at_three_four_and_five() {
    let mut rng = StdRng::seed_from_u64(5);
    for players in 3..=5 {
        for setup in setups(players) {
            let g = Reformation::new(&setup).unwrap();
            for _ in 0..2 {
                simulate(&g, &mut rng, &SimOptions::default())
                    .unwrap_or_else(|e| panic!("{} at {players}: {e}", setup.variant));
            }
        }
    }
}

/// Many whole games with only the invariants checked (every slot in one place, tallies in
/// range), every variant and table size.
#[test]
fn hundreds_of_random_games_keep_every_card_in_one_place() {
    let light = SimOptions {
        check_views: false,
        check_serde: false,
        check_moves: false,
        forfeit_every: None,
        ..SimOptions::default()
    };
    let mut rng = StdRng::seed_from_u64(11);
    let mut games = 0;
    for players in 3..=5 {
        for setup in setups(players) {
            let g = Reformation::new(&setup).unwrap();
            for _ in 0..12 {
                let r = simulate(&g, &mut rng, &light).unwrap();
                assert!(r.outcome.is_some());
                games += 1;
            }
        }
    }
    assert_eq!(games, 3 * 6 * 12);
}
