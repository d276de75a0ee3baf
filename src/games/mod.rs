//! One folder per game. Each implements [`crate::engine::Game`] (its rules and views), its
//! bots, its registry entry (setup and variants), and a `ui/` part apart from the rules (its
//! words, the moves a person types, its scripts, its terminal panel); its rules spec is in
//! `protocol/rules/`, and it passes the generic simulation test.
//!
//! Beside the games: the [`registry`] that names them, the [`script`] runner their golden
//! scripts share, the kits sibling games share ([`dice`], [`dominoes`], [`card_hands`]), and [`ui`], the
//! presentation every game's `ui/` builds on.

pub mod abandon_ship;
pub mod all_fives;
pub mod art_of_facts;
pub mod card_hands;
pub mod chickenfoot;
pub mod dice;
pub mod dominoes;
pub mod high_card;
pub mod insider;
pub mod lamarckian_poker;
pub mod mia;
pub mod perudo;
pub mod race;
pub mod reformation;
pub mod registry;
pub mod scoundrel;
pub mod script;
pub mod shooting_party;
pub mod the_bogey;
pub mod tolerance;
pub mod ui;
