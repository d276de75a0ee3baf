//! Scoundrel's entry in the game registry: its setup, bots and report.

use super::bot::DungeonBot;
use super::game::{Phase, Places, Scoundrel, Setup, Verdict};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::cards::{CardId, PlayingCard};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;

impl TableGame for Scoundrel {
    const TITLE: &'static str = "Scoundrel";
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
        s.validate().map_err(|e| e.to_string())?;
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
        let board: Vec<serde_json::Value> = self
            .leaderboard()
            .iter()
            .map(|(seat, score, status)| {
                let e = self.entrant(*seat).expect("entrant");
                serde_json::json!({
                    "seat": seat,
                    "score": score,
                    "status": status,
                    "turns": e.moves.len(),
                    "cards_faced": e.places.faced.len(),
                })
            })
            .collect();
        let refused: Vec<serde_json::Value> = self
            .verdicts
            .iter()
            .filter_map(|(seat, v)| match v {
                Verdict::Refused { reason } => {
                    Some(serde_json::json!({"seat": seat, "reason": reason}))
                }
                _ => None,
            })
            .collect();
        // Once every card drawn is shown, each entrant's game turn by turn (the turn and the
        // room it was made in), as anyone reading the relay can replay it.
        let mut games = serde_json::Map::new();
        if self.phase == Phase::Over {
            for e in &self.entrants {
                let mut places = Places::new();
                let mut turns = Vec::new();
                for a in &e.moves {
                    let room: Vec<Option<CardId>> = places
                        .room
                        .iter()
                        .map(|p| self.card_seen(e.seat, None, *p))
                        .collect();
                    let room: Vec<Option<String>> = room
                        .iter()
                        .map(|c| c.map(|c| PlayingCard::from_id(c).to_string()))
                        .collect();
                    turns.push(serde_json::json!({"turn": a, "room": room}));
                    if let Ok((p, _)) = places.after(a) {
                        places = p;
                    }
                }
                games.insert(e.seat.to_string(), serde_json::json!(turns));
            }
        }
        serde_json::json!({
            "entrants": self.entrants.len(),
            "leaderboard": board,
            "games": games,
            "refused": refused,
            "stopped_by": self.stopped_by,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
