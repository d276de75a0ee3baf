//! Tolerance's entry in the game registry: its setup (a variant and a number of hands), its
//! bots at the table, and the table in words.

use super::bot::{level_bot, TableBot};
use super::game::Tolerance;
use super::variant::Variant;
use crate::bots::{Bot, BotLevel};
use crate::engine::RuleError;
use crate::games::registry::{SetupOptions, TableGame};
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};

/// A Tolerance table's setup, as announced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub variant: Variant,
    /// Hands to play; `None` plays until the variant's style ends the table.
    #[serde(default)]
    pub hands: Option<u64>,
    /// From protocol version 11 the next hand is dealt with a showdown nobody can bust at
    /// (PROTOCOL.md §5.8). The table's version says it, not the wire
    /// (`TableGame::at_version`); older tables deal each hand in a pass of its own, as they
    /// were played.
    #[serde(skip, default = "super::game::deals_with_showdown_now")]
    pub deals_with_showdown: bool,
}

impl TableGame for Tolerance {
    const TITLE: &'static str = "The Game of Tolerance";
    const SUMMARY: &'static str =
        "two cards, a die and Hold'em betting: roll against your Tolerance number for points";
    const SEATS: (u8, u8) = (2, super::variant::MAX_SEATS);
    const VARIANTS: &'static [&'static str] = &Variant::BUILTIN;
    const VARIANT_FILES: bool = true;
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        let variant = match (&opts.variant_text, &opts.variant) {
            (Some((origin, text)), _) => {
                Variant::parse(text).map_err(|e| format!("{origin}: {e}"))?
            }
            (None, Some(name)) => Variant::builtin(name).ok_or_else(|| {
                format!(
                    "'{name}' is not a built-in Tolerance variant ({}) nor a variant file",
                    Variant::BUILTIN.join(", ")
                )
            })?,
            (None, None) => Variant::default(),
        };
        if opts.players != 0 && !(2..=variant.seats).contains(&opts.players) {
            return Err(format!(
                "the {} variant seats 2 to {} players, not {}",
                variant.name, variant.seats, opts.players
            ));
        }
        Ok(Setup {
            variant,
            hands: opts.hands,
            deals_with_showdown: super::game::deals_with_showdown_now(),
        })
    }

    fn at_version(setup: Setup, v: u8) -> Setup {
        Setup {
            deals_with_showdown: super::game::deals_with_showdown_at(v),
            ..setup
        }
    }

    fn seats_for(setup: &Setup) -> (u8, u8) {
        (2, setup.variant.seats)
    }

    fn start(setup: &Setup, players: u8) -> Result<Tolerance, RuleError> {
        Ok(Tolerance::new(setup.variant.clone(), players, setup.hands)?
            .dealing_with_showdown(setup.deals_with_showdown))
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Tolerance>> {
        Box::new(TableBot(level_bot(level, rng)))
    }

    fn variant_json(text: &str) -> Result<(String, String), String> {
        let v = Variant::parse(text).map_err(|e| e.to_string())?;
        Ok((v.name.clone(), v.canonical_json()))
    }

    fn variant_file(json: &str) -> String {
        match Variant::parse(json) {
            Ok(v) => super::variant::commented_toml(&v),
            Err(e) => format!("# not a valid variant: {e}\n{json}\n"),
        }
    }

    fn variant_check(json: &str) -> Result<String, String> {
        Variant::parse(json)
            .map(|v| v.rules_line())
            .map_err(|e| e.to_string())
    }

    fn report(&self) -> serde_json::Value {
        let finals = self.final_stacks();
        serde_json::json!({
            "hands": self.table.hands_played,
            "chips_start_total": self.table.chips_in,
            "chips_end_total": finals.iter().map(|(_, c)| c).sum::<u64>(),
            "final_stacks": finals,
            "forfeits": self.history.iter().flat_map(|h| h.forfeits.iter().map(|f| f.0)).collect::<Vec<_>>(),
            // Every hand's public record (blinds, moves, rolls, cards shown), for scripts.
            "history": self.history,
        })
    }
}
