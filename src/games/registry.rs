//! The game registry: every game this program plays, and what the table runtime and the
//! commands need to know about each — its name and seats, how a person names its setup, how
//! it starts, its bots, and how it reads as words. A game is one folder plus one line in
//! `games!` below; nothing in the table runtime, the wire format or the network layer knows
//! any particular game.

use super::script::Replayed;
use super::ui::GameUi;
use super::{
    abandon_ship, all_fives, art_of_facts, chickenfoot, high_card, insider, lamarckian_poker, mia,
    perudo, reformation, scoundrel, shooting_party, the_bogey, tolerance,
};
use crate::bots::arena::{game_duel, GameDuel};
use crate::bots::{Bot, BotLevel};
use crate::engine::{Game, RuleError};
use rand::rngs::StdRng;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;

/// How a person named a game's setup on the command line or in a form.
#[derive(Debug, Clone, Default)]
pub struct SetupOptions {
    /// A built-in variant's name (`standard`, `super-ace`, `modern`...).
    pub variant: Option<String>,
    /// The text of a variant file or a published variant, already read or fetched.
    pub variant_text: Option<(String, String)>,
    /// Hands or rounds to play, for games that have them.
    pub hands: Option<u64>,
    /// Players at the table.
    pub players: u8,
}

/// A game as the table runtime and the commands see it: its rules and how a table of it is
/// set up, beside its [`GameUi`] (words, typed moves, scripts, panel).
pub trait TableGame: GameUi + Send + Sync + 'static {
    /// The game's name for people ("The Game of Tolerance").
    const TITLE: &'static str;
    /// One line: what the game is.
    const SUMMARY: &'static str;
    /// Players the game seats, at least and at most.
    const SEATS: (u8, u8);
    /// Its built-in variants by name, the one a table gets when none is named first; forms
    /// offer them to pick from (variant files and published variants come on top, for the
    /// games that read them).
    const VARIANTS: &'static [&'static str] = &["standard"];
    /// Whether a variant file (or a published variant's naddr) can name a setup, beyond the
    /// built-ins.
    const VARIANT_FILES: bool = false;
    /// Its typed setup, as announced on the wire (`TableSpec::setup`).
    type Setup: Serialize + DeserializeOwned + Clone + Debug + PartialEq + Send + Sync + 'static;

    /// The setup a person named, checked, with errors in words.
    fn setup(opts: &SetupOptions) -> Result<Self::Setup, String>;

    /// Players this setup seats (a variant may allow fewer than the game does).
    fn seats_for(setup: &Self::Setup) -> (u8, u8) {
        let _ = setup;
        Self::SEATS
    }

    /// A fresh game for seats `0..players`.
    fn start(setup: &Self::Setup, players: u8) -> Result<Self, RuleError>;

    /// The setup as a table of protocol version `v` plays it. A rule that changed with a
    /// version (PROTOCOL.md §10.1) is not written in the announced setup: the table's version
    /// says which one its events follow, so an older table is judged as it was played.
    fn at_version(setup: Self::Setup, v: u8) -> Self::Setup {
        let _ = v;
        setup
    }

    /// A bot of this level, drawing its randomness from `rng`; it sees only a seat's view.
    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Self>>;

    /// The game-specific part of a report (`demo --json`, `verify --json`).
    fn report(&self) -> serde_json::Value;

    /// A variant file of this game, checked, as its name and the JSON a variant event carries
    /// (`tolerance variant propose --game NAME FILE`). Games without variant files refuse.
    fn variant_json(text: &str) -> Result<(String, String), String> {
        let _ = text;
        Err(format!(
            "{} variants cannot be proposed as Nostr objects yet",
            Self::TITLE
        ))
    }

    /// A published variant's JSON as the variant file a person reads (`variant show`).
    fn variant_file(json: &str) -> String {
        json.to_string()
    }

    /// A published variant's JSON (a variant event's `content` naming this game), checked as a
    /// variant file is, with one line on what it changes (empty: the title says it all). The
    /// wire carries a variant as a game's name and this text; only the game reads it.
    fn variant_check(json: &str) -> Result<String, String> {
        Self::variant_json(json).map(|_| String::new())
    }

    /// The variant file to start from (`variant new --game NAME`), for games whose variants
    /// are files proposed through [`TableGame::variant_json`].
    fn variant_template() -> Option<&'static str> {
        None
    }
}

/// Something to do with a game known only by its name: [`with_game`] calls `visit` with the
/// game's type.
pub trait Visit {
    type Out;
    fn visit<G: TableGame>(self) -> Self::Out;
}

/// One line of `tolerance games`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub min_players: u8,
    pub max_players: u8,
    pub summary: &'static str,
    /// `TableGame::VARIANTS`; left out of `games --json`, whose shape scripts rely on.
    #[serde(skip)]
    pub variants: &'static [&'static str],
    /// `TableGame::VARIANT_FILES`, left out the same way.
    #[serde(skip)]
    pub variant_files: bool,
}

impl GameInfo {
    fn of<G: TableGame>() -> GameInfo {
        GameInfo {
            name: G::NAME,
            title: G::TITLE,
            min_players: G::SEATS.0,
            max_players: G::SEATS.1,
            summary: G::SUMMARY,
            variants: G::VARIANTS,
            variant_files: G::VARIANT_FILES,
        }
    }
}

macro_rules! games {
    ($($ty:ty),* $(,)?) => {
        /// Runs `v` with the game named `name`.
        pub fn with_game<V: Visit>(name: &str, v: V) -> Result<V::Out, String> {
            $(if name == <$ty as Game>::NAME {
                return Ok(v.visit::<$ty>());
            })*
            Err(format!(
                "'{name}' is not a game this program plays (games: {})",
                names().join(", ")
            ))
        }

        /// Every registered game.
        pub fn all() -> Vec<GameInfo> {
            vec![$(GameInfo::of::<$ty>()),*]
        }
    };
}

/// The game commands play when none is named, and old records that name none were: the
/// project's flagship.
pub const DEFAULT_GAME: &str = <tolerance::Tolerance as Game>::NAME;

// The registry: one line per game.
games! {
    tolerance::Tolerance,
    perudo::Perudo,
    mia::Mia,
    high_card::HighCard,
    all_fives::AllFives,
    chickenfoot::Chickenfoot,
    lamarckian_poker::LamarckianPoker,
    abandon_ship::AbandonShip,
    art_of_facts::ArtOfFacts,
    insider::Insider,
    reformation::Reformation,
    scoundrel::Scoundrel,
    the_bogey::TheBogey,
    shooting_party::ShootingParty,
}

/// The setup `game` plays for `opts` (as JSON), and the fewest and most players it seats; why
/// not in words.
pub fn table_setup(game: &str, opts: &SetupOptions) -> Result<(serde_json::Value, u8, u8), String> {
    struct Setup<'a>(&'a SetupOptions);
    impl Visit for Setup<'_> {
        type Out = Result<(serde_json::Value, u8, u8), String>;
        fn visit<G: TableGame>(self) -> Self::Out {
            let setup = G::setup(self.0)?;
            let (min, max) = G::seats_for(&setup);
            Ok((
                serde_json::to_value(&setup).map_err(|e| e.to_string())?,
                min,
                max,
            ))
        }
    }
    with_game(game, Setup(opts))?
}

/// The registered games' names.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|g| g.name).collect()
}

/// A heads-up duplicate match of `G` from `setup` between two of its bot levels, each as its
/// registry entry makes them (see [`crate::bots::arena`]).
pub fn duel<G: TableGame>(
    setup: &G::Setup,
    a: BotLevel,
    b: BotLevel,
    pairs: u64,
    seed: u64,
) -> Result<GameDuel, String> {
    let start = || G::start(setup, 2).map_err(|e| e.to_string());
    game_duel(&start, &G::bot, a, b, pairs, seed)
}

/// What every [`TableGame::start`] checks first: the setup seats as many players as the table.
pub fn check_players(setup_players: usize, players: u8) -> Result<(), RuleError> {
    if setup_players != usize::from(players) {
        return Err(RuleError::Setup(format!(
            "the setup seats {setup_players} players, not {players}"
        )));
    }
    Ok(())
}

/// Runs a game script, choosing the game by its `game` field (absent: Tolerance hand script).
pub fn replay_script(text: &str) -> Result<Replayed, String> {
    let mut value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("game script: {e}"))?;
    let game = match value.as_object_mut() {
        Some(obj) => match obj.remove("game") {
            None => DEFAULT_GAME.to_string(),
            Some(serde_json::Value::String(s)) => s,
            Some(other) => return Err(format!("game script: `game` must be a name, not {other}")),
        },
        None => return Err("game script: expected a JSON object".into()),
    };
    struct Replay(String);
    impl Visit for Replay {
        type Out = Result<Replayed, String>;
        fn visit<G: TableGame>(self) -> Self::Out {
            G::replay(&self.0)
        }
    }
    with_game(&game, Replay(value.to_string())).map_err(|e| format!("game script: {e}"))?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{simulate, SimOptions};
    use rand::SeedableRng;

    /// Every registered game passes the generic simulation at its smallest and largest table,
    /// from the setup a person gets by default.
    struct Simulate;
    impl Visit for Simulate {
        type Out = Result<(), String>;
        fn visit<G: TableGame>(self) -> Result<(), String> {
            let mut rng = StdRng::seed_from_u64(42);
            let (min, max) = G::SEATS;
            for players in [min, max.min(6)] {
                let setup = G::setup(&SetupOptions {
                    players,
                    hands: Some(2),
                    ..SetupOptions::default()
                })?;
                let game = G::start(&setup, players).map_err(|e| e.to_string())?;
                let opts = SimOptions {
                    max_steps: 20_000,
                    ..SimOptions::default()
                };
                for _ in 0..3 {
                    simulate(&game, &mut rng, &opts)
                        .map_err(|e| format!("{} with {players} players: {e}", G::NAME))?;
                }
            }
            Ok(())
        }
    }

    /// Every registered game played to its end by random moves: the table-over line names each
    /// winner the outcome has.
    struct EndLine;
    impl Visit for EndLine {
        type Out = Result<(), String>;
        fn visit<G: TableGame>(self) -> Result<(), String> {
            let names = |s: crate::engine::Seat| -> String {
                ["Ana", "Ben", "Cyd", "Dee", "Eve", "Fay"][s as usize].into()
            };
            let (min, max) = G::SEATS;
            for (players, seed) in [(min, 1), (max.min(4), 2), (max.min(6), 3)] {
                let setup = G::setup(&SetupOptions {
                    players,
                    hands: Some(2),
                    ..SetupOptions::default()
                })?;
                let mut game = G::start(&setup, players).map_err(|e| e.to_string())?;
                let mut rng = StdRng::seed_from_u64(seed);
                let mut oracle = crate::engine::sim::Oracle::new(StdRng::seed_from_u64(seed));
                let (outcome, _) =
                    crate::engine::sim::play_out(&mut game, &mut oracle, 50_000, |_, _, l| {
                        rand::seq::SliceRandom::choose(&l[..], &mut rng)
                            .unwrap()
                            .clone()
                    })?;
                let line = game.result_line(&names);
                for w in &outcome.winners {
                    let who: String = names(*w);
                    if !line.contains(&who) {
                        return Err(format!(
                            "{} with {players} players: the end line does not name the winner \
                             {who}: {line}",
                            G::NAME
                        ));
                    }
                }
            }
            Ok(())
        }
    }

    #[test]
    fn every_game_s_end_line_names_its_winners() {
        let failed: Vec<String> = all()
            .iter()
            .filter_map(|g| with_game(g.name, EndLine).unwrap().err())
            .collect();
        assert!(failed.is_empty(), "{failed:#?}");
    }

    #[test]
    fn every_registered_game_passes_the_generic_simulation() {
        for g in all() {
            with_game(g.name, Simulate).unwrap().unwrap();
        }
    }

    #[test]
    fn names_are_unique_and_unknown_games_are_named_in_words() {
        let mut n = names();
        n.sort_unstable();
        n.dedup();
        assert_eq!(n.len(), all().len());
        let e = with_game("chess", Simulate).unwrap_err();
        assert!(
            e.contains("'chess' is not a game") && e.contains("high-card"),
            "{e}"
        );
    }
}
