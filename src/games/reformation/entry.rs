//! Tolerance: Reformation's entry in the game registry: its setup and variants, bots, and the
//! game in words (story, table, prompts, typed moves).

use super::bot::ReformBot;
use super::data::{RoleMode, VariantFile};
use super::game::{Phase, Reformation, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

/// The built-in variants: the basic game, the Roles chosen or dealt (in the open or as Hidden
/// Agendas), and both Plague cards.
pub const VARIANTS: [&str; 6] = [
    "standard",
    "chosen-roles",
    "dealt-roles",
    "hidden-agendas",
    "hidden-dealt-roles",
    "two-plagues",
];

/// The setup a built-in variant names.
pub fn builtin(name: &str, players: u8) -> Option<Setup> {
    let mut s = Setup::new(players);
    s.variant = name.to_string();
    match name {
        "standard" => {}
        "chosen-roles" => s.roles = RoleMode::Chosen,
        "dealt-roles" => s.roles = RoleMode::Dealt,
        "hidden-agendas" => {
            s.roles = RoleMode::Chosen;
            s.hidden_agendas = true;
        }
        "hidden-dealt-roles" => {
            s.roles = RoleMode::Dealt;
            s.hidden_agendas = true;
        }
        "two-plagues" => s.plague_cards = 2,
        _ => return None,
    }
    Some(s)
}

/// The setup of a variant file: its `[table]` options on the standard game, and its cards,
/// rules and Roles (what it leaves out is the built-in set's).
pub fn from_file(origin: &str, text: &str, players: u8) -> Result<Setup, String> {
    let v = VariantFile::parse(text).map_err(|e| format!("{origin}: {e}"))?;
    let mut s = Setup::new(players);
    s.variant = v.name.clone().unwrap_or_else(|| "a variant file".into());
    if let Some(t) = &v.table {
        if let Some(r) = t.rounds {
            s.rounds = r;
        }
        if let Some(p) = t.plague_cards {
            s.plague_cards = p;
        }
        if let Some(r) = t.roles {
            s.roles = r;
        }
        if let Some(h) = t.hidden_agendas {
            s.hidden_agendas = h;
        }
    }
    if v.has_data() {
        let data = v.data();
        data.validate().map_err(|e| format!("{origin}: {e}"))?;
        s.data = Some(Box::new(data));
    }
    Ok(s)
}

/// A complete variant file of a built-in variant: its table options, the card set, the rules
/// and the Roles, each value the text lost marked as assumed (`tolerance variant new --game
/// reformation NAME`).
pub fn variant_file(name: &str) -> Result<String, String> {
    let s = builtin(name, 4).ok_or_else(|| {
        format!(
            "'{name}' is not a built-in variant of Tolerance: Reformation ({})",
            VARIANTS.join(", ")
        )
    })?;
    let roles = match s.roles {
        RoleMode::Bertram => "bertram",
        RoleMode::Chosen => "chosen",
        RoleMode::Dealt => "dealt",
    };
    Ok(format!(
        "# Tolerance: Reformation, variant '{name}': edit any value and play it with\n\
         # `tolerance host --game reformation --variant THIS_FILE` (or play, demo). A file may\n\
         # also hold only some of [table], [[cards]], [rules], [bertram], [[roles]].\n\
         {}\n{}\n[table]\nrounds = {}\nplague_cards = {}\nroles = \"{roles}\"\nhidden_agendas = {}\n",
        super::data::CARDS_FILE
            .trim_end()
            .replace("name = \"the rule book's card set\"", &format!("name = \"{name}\"")),
        super::data::ROLES_FILE.trim_end(),
        s.rounds,
        s.plague_cards,
        s.hidden_agendas
    ))
}

/// Checks a variant file and says what it sets (`tolerance variant validate --game
/// reformation FILE`).
pub fn validate_file(origin: &str, text: &str) -> Result<String, String> {
    let s = from_file(origin, text, 4)?;
    let d = s.data();
    let assumed = d.cards.iter().filter(|c| !c.assumed.is_empty()).count();
    let mut out = format!(
        "{}: {} cards ({assumed} with values marked assumed), Bertram and {} Roles{}; {} reigns, \
         {} Plague card(s), Roles {}{}",
        s.variant,
        d.cards.len(),
        d.roles.len(),
        if s.data.is_some() {
            " (this file's where it gives them, else the built-in ones)"
        } else {
            " (the built-in ones)"
        },
        s.rounds,
        s.plague_cards,
        match s.roles {
            RoleMode::Bertram => "Bertram for all",
            RoleMode::Chosen => "chosen",
            RoleMode::Dealt => "dealt",
        },
        if s.hidden_agendas {
            ", Hidden Agendas"
        } else {
            ""
        }
    );
    for players in 3..=5 {
        let mut t = s.clone();
        t.players = players;
        if let Err(e) = t.validate() {
            let _ = write!(out, "\nnot playable by {players}: {e}");
        }
    }
    Ok(out)
}

impl TableGame for Reformation {
    const TITLE: &'static str = "Tolerance: Reformation";
    const SUMMARY: &'static str =
        "trick-taking through the reigns of Mary I, Elizabeth I and James I: effects kill, convert and tax the cards you win";
    const SEATS: (u8, u8) = (3, 5);
    const VARIANTS: &'static [&'static str] = &VARIANTS;
    const VARIANT_FILES: bool = true;
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        let players = if opts.players == 0 { 4 } else { opts.players };
        let mut s = match (&opts.variant_text, &opts.variant) {
            (Some((origin, text)), _) => from_file(origin, text, players)?,
            (None, Some(v)) => builtin(v, players).ok_or_else(|| {
                format!(
                    "'{v}' is not a built-in variant of Tolerance: Reformation ({}) nor a \
                     variant file",
                    VARIANTS.join(", ")
                )
            })?,
            (None, None) => Setup::new(players),
        };
        if let Some(h) = opts.hands {
            if !(1..=3).contains(&h) {
                return Err(format!(
                    "Tolerance: Reformation has three reigns: --hands takes 1 to 3, not {h}"
                ));
            }
            s.rounds = h as u8;
        }
        s.validate().map_err(|e| match e {
            RuleError::Setup(m) => m,
            other => other.to_string(),
        })?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<Reformation, RuleError> {
        check_players(setup.players.into(), players)?;
        Reformation::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Reformation>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(ReformBot::new(rng)),
        }
    }

    fn report(&self) -> serde_json::Value {
        let data = self.data();
        let done = self.phase == Phase::Done;
        serde_json::json!({
            "variant": self.setup.variant,
            "reigns": self.records.len(),
            "vp": self.players.values().map(|p| p.vp).collect::<Vec<_>>(),
            "money": self.players.values().map(|p| p.money).collect::<Vec<_>>(),
            "catholic": self.players.values().map(|p| p.catholic).collect::<Vec<_>>(),
            "protestant": self.players.values().map(|p| p.protestant).collect::<Vec<_>>(),
            "loans": self.players.values().map(|p| p.loans).collect::<Vec<_>>(),
            "roles": self.roles.values().map(|r| match r {
                Some(r) if done || !self.setup.hidden_agendas => Some(data.role(*r).name.clone()),
                _ => None,
            }).collect::<Vec<_>>(),
            "removed": self.removed,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
