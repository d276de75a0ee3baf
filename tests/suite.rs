//! The end-to-end suite, one test binary: each file beside this one is a module (the commands,
//! the relays, the games, the attackers; see each file's own notes). One binary, not one per
//! file: each would compile the session and every game again and link the whole library, and
//! that build was most of CI's time.
//!
//! Run one part with its module's name: `cargo test --release --test suite -- soak::`.

mod common;

mod abandon_ship;
mod adversarial;
mod browser;
mod cli_play;
mod clock_skew;
mod dice_cli;
mod e2e_cards;
mod e2e_dice;
mod e2e_tolerance;
mod every_game;
mod feedback_cli;
mod golden;
mod insider;
mod keys_cli;
mod lamarckian_poker;
mod layering;
mod lobby_e2e;
mod net_relay;
mod old_tables;
mod one_pool;
mod public_relays;
mod rate_limited;
mod relay_harness;
mod replay_attacks;
mod security;
mod siblings;
mod soak;
mod solitaire_races;
mod table_keys;
mod table_over;
mod tolerance_sim;
mod tui_play;
mod variants_cli;
mod words;
