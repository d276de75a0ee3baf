//! ArtOfFacts in the game registry: its setup (a deck file as the variant), bots and words.

use super::bot::CountingBot;
use super::deck::DeckFile;
use super::game::{ArtOfFacts, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for ArtOfFacts {
    const TITLE: &'static str = "ArtOfFacts!";
    const SUMMARY: &'static str =
        "symbol cards and operations: ante, three cards and one face down, declare the highest value";
    const SEATS: (u8, u8) = (2, 8);
    const VARIANT_FILES: bool = true;
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        let deck = match (&opts.variant_text, opts.variant.as_deref()) {
            (Some((origin, text)), _) => {
                DeckFile::parse(text).map_err(|e| format!("{origin}: {e}"))?
            }
            (None, None | Some("standard")) => DeckFile::default_deck(),
            (None, Some(other)) => {
                return Err(format!(
                    "'{other}' is neither ArtOfFacts' built-in deck ('standard') nor a deck file"
                ))
            }
        };
        let hands = opts
            .hands
            .map(|h| u32::try_from(h).map_err(|_| format!("{h} hands is too many")))
            .transpose()?;
        let s = Setup {
            players: opts.players.max(2),
            hands,
            deck,
        };
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<ArtOfFacts, RuleError> {
        check_players(setup.players.into(), players)?;
        ArtOfFacts::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<ArtOfFacts>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(CountingBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "hands": self.hand_no,
            "banks": self.banks,
            "ante": self.ante,
            "rotation": self.rotation,
            "deck": self.setup.deck.name,
            "winners": self.outcome().map(|o| o.winners),
        })
    }

    fn variant_json(text: &str) -> Result<(String, String), String> {
        let deck = DeckFile::parse(text)?;
        let json = serde_json::to_string(&deck).map_err(|e| e.to_string())?;
        Ok((deck.name, json))
    }

    fn variant_template() -> Option<&'static str> {
        Some(super::deck::DEFAULT_DECK)
    }

    fn variant_file(json: &str) -> String {
        match DeckFile::parse(json) {
            Ok(d) => d.to_toml(),
            Err(e) => format!("# not a valid deck file: {e}\n{json}\n"),
        }
    }
}
