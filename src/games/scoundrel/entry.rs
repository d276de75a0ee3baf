//! Scoundrel's entry in the game registry: its setup, bots and report.

use super::bot::DungeonBot;
use super::game::{Dungeon, Places, Scoundrel, Setup, DUNGEON};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::cards::PlayingCard;
use crate::engine::RuleError;
use crate::games::race;
use crate::games::race::Solitaire;
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for Scoundrel {
    const TITLE: &'static str = Dungeon::TITLE;
    const SUMMARY: &'static str =
        "the 44-card dungeon solitaire, raced by npub on one deal nobody \
                                   could choose: rooms of four, weapons, potions, escape";
    const SEATS: (u8, u8) = (2, 6);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() || opts.variant.as_deref().is_some_and(|v| v != "standard") {
            return Err("Scoundrel has one variant, 'standard'".into());
        }
        // A race is one deal (`--hands` counts nothing here: race again for another deal).
        let s = Setup {
            players: opts.players.max(1),
        };
        race::validate::<Dungeon>(&s).map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<Scoundrel, RuleError> {
        check_players(setup.players.into(), players)?;
        Scoundrel::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Scoundrel>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(DungeonBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        self.race_report(
            |e, _| serde_json::json!({"turns": e.moves.len(), "cards_faced": e.places.faced.len()}),
            // Each turn with the room it was made in.
            |e| {
                let mut places = Places::new();
                let mut turns = Vec::new();
                for a in &e.moves {
                    let room: Vec<Option<String>> = places
                        .room
                        .iter()
                        .map(|p| self.card_seen(e.seat, None, (DUNGEON, *p)))
                        .map(|c| c.map(|c| PlayingCard::from_id(c).to_string()))
                        .collect();
                    turns.push(serde_json::json!({"turn": a, "room": room}));
                    if let Ok(p) = places.after(a) {
                        places = p;
                    }
                }
                serde_json::json!(turns)
            },
        )
    }
}
