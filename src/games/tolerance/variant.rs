//! Variants of Tolerance as data: a TOML (or JSON) file, validated with errors that name the field.
//!
//! Unknown fields are refused rather than ignored, so a misspelt `super_aces = true` is an error
//! and not a silently standard game.

use serde::{Deserialize, Serialize};

pub const MIN_SEATS: u8 = 2;
pub const MAX_SEATS: u8 = 20;
pub const MIN_SIDES: u8 = 2;
pub const MAX_SIDES: u8 = 100;

/// The whole rules configuration of a Tolerance table.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Variant {
    /// Short name shown in lobbies.
    pub name: String,
    /// Faces of the die; a roll's Tolerance number is chosen from 1..=die_sides.
    pub die_sides: u8,
    /// The Starter's forced bet, and the unit of minimum bets and raises.
    pub blind: u64,
    pub betting: Betting,
    /// An Ace is upgraded to 14 points by a successful roll at the die's highest face.
    pub super_ace: bool,
    /// One more face-down card to every player still in after each round of rolls.
    pub card_again: bool,
    /// Chips each player starts with (tournament), or the default buy-in (cash).
    pub starting_stack: u64,
    /// Most seats at the table, 2..=20.
    pub seats: u8,
    /// Players per 52-card deck: ⌈players / players_per_deck⌉ decks are combined (the seed: 5).
    pub players_per_deck: u8,
    pub style: Style,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", deny_unknown_fields)]
pub enum Betting {
    NoLimit,
    PotLimit,
    /// Bets and raises of one blind in rounds 1–2 and two blinds in round 3; at most `cap` bets
    /// (the opening bet or blind plus raises) per round.
    FixedLimit {
        cap: u8,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", deny_unknown_fields)]
pub enum Style {
    /// Equal stacks; play until one player has all the chips. Optional rising blinds.
    Tournament {
        #[serde(default)]
        blind_schedule: Vec<BlindLevel>,
    },
    /// Players join or leave between hands with any stack in `min_buy_in..=max_buy_in`.
    Cash { min_buy_in: u64, max_buy_in: u64 },
}

/// From hand number `from_hand` (0-based) on, the blind is `blind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlindLevel {
    pub from_hand: u64,
    pub blind: u64,
}

impl Default for Variant {
    fn default() -> Self {
        Variant {
            name: "standard".into(),
            die_sides: 10,
            blind: 10,
            betting: Betting::NoLimit,
            super_ace: false,
            card_again: false,
            starting_stack: 1000,
            seats: 10,
            players_per_deck: 5,
            style: Style::Tournament {
                blind_schedule: Vec::new(),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    #[error("variant field `{field}`: {reason}")]
    Field { field: &'static str, reason: String },
    #[error("variant file is not valid TOML/JSON: {0}")]
    Syntax(String),
}

fn field(field: &'static str, reason: impl Into<String>) -> VariantError {
    VariantError::Field {
        field,
        reason: reason.into(),
    }
}

impl Variant {
    /// The built-in variants the seed describes, by name.
    pub fn builtin(name: &str) -> Option<Variant> {
        let base = Variant::default();
        Some(match name {
            "standard" => base,
            "super-ace" => Variant {
                name: name.into(),
                super_ace: true,
                ..base
            },
            "card-again" => Variant {
                name: name.into(),
                card_again: true,
                ..base
            },
            "tournament" => Variant {
                name: name.into(),
                style: Style::Tournament {
                    blind_schedule: vec![
                        BlindLevel {
                            from_hand: 10,
                            blind: 20,
                        },
                        BlindLevel {
                            from_hand: 20,
                            blind: 40,
                        },
                        BlindLevel {
                            from_hand: 30,
                            blind: 80,
                        },
                    ],
                },
                ..base
            },
            "cash" => Variant {
                name: name.into(),
                style: Style::Cash {
                    min_buy_in: 200,
                    max_buy_in: 2000,
                },
                ..base
            },
            _ => return None,
        })
    }

    pub const BUILTIN: [&'static str; 5] =
        ["standard", "super-ace", "card-again", "tournament", "cash"];

    /// Parses a variant file: TOML, or JSON when it starts with `{`. Fields left out keep the
    /// standard values.
    pub fn parse(text: &str) -> Result<Variant, VariantError> {
        let v: Variant = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| VariantError::Syntax(e.to_string()))?
        } else {
            toml::from_str(text).map_err(|e| VariantError::Syntax(e.to_string()))?
        };
        v.validate()?;
        Ok(v)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a variant always serialises")
    }

    /// The variant as a published variant event carries it (PROTOCOL §11.1): every field in
    /// declaration order, no blank space.
    pub fn canonical_json(&self) -> String {
        serde_json::to_string(self).expect("a variant always serialises")
    }

    /// One line naming what the variant changes, for summaries and lists.
    pub fn rules_line(&self) -> String {
        let mut parts = vec![
            format!("d{}", self.die_sides),
            format!("blind {}", self.blind),
            format!("stacks {}", self.starting_stack),
            format!("up to {} seats", self.seats),
            match self.betting {
                Betting::NoLimit => "no-limit".into(),
                Betting::PotLimit => "pot-limit".into(),
                Betting::FixedLimit { cap } => format!("fixed-limit (cap {cap})"),
            },
        ];
        if self.super_ace {
            parts.push("Super Ace".into());
        }
        if self.card_again {
            parts.push("Card Again".into());
        }
        parts.push(match &self.style {
            Style::Tournament { blind_schedule } if blind_schedule.is_empty() => {
                "tournament".into()
            }
            Style::Tournament { blind_schedule } => {
                format!("tournament, {} blind levels", blind_schedule.len())
            }
            Style::Cash {
                min_buy_in,
                max_buy_in,
            } => format!("cash {min_buy_in}-{max_buy_in}"),
        });
        parts.join(", ")
    }

    pub fn validate(&self) -> Result<(), VariantError> {
        if self.name.trim().is_empty() || self.name.len() > 64 {
            return Err(field("name", "must be 1 to 64 characters"));
        }
        if !(MIN_SIDES..=MAX_SIDES).contains(&self.die_sides) {
            return Err(field(
                "die_sides",
                format!("must be {MIN_SIDES}..={MAX_SIDES}, not {}", self.die_sides),
            ));
        }
        if self.blind == 0 {
            return Err(field("blind", "must be at least 1 chip"));
        }
        if self.starting_stack == 0 {
            return Err(field("starting_stack", "must be at least 1 chip"));
        }
        // Keeps every chip sum far from u64 overflow: 20 seats × 2^48 ≪ 2^64.
        const MAX_CHIPS: u64 = 1 << 48;
        if self.starting_stack > MAX_CHIPS || self.blind > MAX_CHIPS {
            return Err(field(
                "starting_stack",
                format!("must be at most {MAX_CHIPS}"),
            ));
        }
        if !(MIN_SEATS..=MAX_SEATS).contains(&self.seats) {
            return Err(field(
                "seats",
                format!("must be {MIN_SEATS}..={MAX_SEATS}, not {}", self.seats),
            ));
        }
        if !(2..=MAX_SEATS).contains(&self.players_per_deck) {
            return Err(field("players_per_deck", "must be 2..=20"));
        }
        // 52 cards per deck must cover every hand a deck serves, Card Again included.
        let cards_each = if self.card_again { 4 } else { 2 };
        if self.players_per_deck as u32 * cards_each > 52 {
            return Err(field(
                "players_per_deck",
                format!(
                    "{} players × {cards_each} cards do not fit in 52",
                    self.players_per_deck
                ),
            ));
        }
        if self.decks_for(self.seats) > 4 {
            return Err(field(
                "players_per_deck",
                format!("{} seats would need more than 4 decks", self.seats),
            ));
        }
        if let Betting::FixedLimit { cap } = self.betting {
            if cap < 2 {
                return Err(field("betting.cap", "must allow at least 2 bets per round"));
            }
        }
        match &self.style {
            Style::Tournament { blind_schedule } => {
                let mut last = 0;
                for (i, level) in blind_schedule.iter().enumerate() {
                    if level.blind == 0 || level.blind > MAX_CHIPS {
                        return Err(field(
                            "style.blind_schedule",
                            format!("level {i}: bad blind"),
                        ));
                    }
                    if i > 0 && level.from_hand <= last {
                        return Err(field(
                            "style.blind_schedule",
                            format!("level {i}: from_hand must increase"),
                        ));
                    }
                    last = level.from_hand;
                }
            }
            Style::Cash {
                min_buy_in,
                max_buy_in,
            } => {
                if *min_buy_in == 0 || min_buy_in > max_buy_in || *max_buy_in > MAX_CHIPS {
                    return Err(field(
                        "style",
                        "cash needs 1 <= min_buy_in <= max_buy_in <= 2^48",
                    ));
                }
                if !(*min_buy_in..=*max_buy_in).contains(&self.starting_stack) {
                    return Err(field(
                        "starting_stack",
                        "must lie within the cash table's buy-in limits",
                    ));
                }
            }
        }
        Ok(())
    }

    /// ⌈players / players_per_deck⌉ decks.
    pub fn decks_for(&self, players: u8) -> u8 {
        players.div_ceil(self.players_per_deck).max(1)
    }

    /// The blind in force for hand number `hand_no` (0-based).
    pub fn blind_at(&self, hand_no: u64) -> u64 {
        match &self.style {
            Style::Tournament { blind_schedule } => blind_schedule
                .iter()
                .rev()
                .find(|l| l.from_hand <= hand_no)
                .map_or(self.blind, |l| l.blind),
            Style::Cash { .. } => self.blind,
        }
    }
}

/// A variant file with a comment on every field, for `tolerance variant new`.
pub fn commented_toml(v: &Variant) -> String {
    let mut out = String::from(
        "# A Tolerance variant. Fields left out keep the standard values; unknown fields are errors.\n",
    );
    let notes = [
        ("name", "short name shown in lobbies"),
        (
            "die_sides",
            "faces of the die, 2..=100; Tolerance numbers are 1..=die_sides",
        ),
        (
            "blind",
            "the Starter's forced bet; also the minimum bet and raise",
        ),
        (
            "super_ace",
            "an Ace becomes 14 after a successful roll at the die's top face",
        ),
        (
            "card_again",
            "one more face-down card to everyone still in after each roll round",
        ),
        (
            "starting_stack",
            "chips per player (tournament) or default buy-in (cash)",
        ),
        ("seats", "most seats at the table, 2..=20"),
        (
            "players_per_deck",
            "players per 52-card deck; ceil(players / this) decks combined",
        ),
    ];
    // Notes describe top-level keys only: a `blind` inside a blind schedule level is not the
    // table's blind.
    let mut top_level = true;
    for line in v.to_toml().lines() {
        top_level &= !line.starts_with("[[");
        if let Some((key, _)) = line.split_once(" = ").filter(|_| top_level) {
            if let Some((_, note)) = notes.iter().find(|(k, _)| *k == key) {
                out.push_str(&format!("# {note}\n"));
            }
        }
        if line == "[betting]" {
            out.push_str("# kind: \"no-limit\", \"pot-limit\" or \"fixed-limit\" (with cap = bets per round)\n");
        }
        if line == "[style]" {
            out.push_str(
                "# kind: \"tournament\" (optional blind_schedule = [{ from_hand, blind }]) or\n\
                 # \"cash\" (min_buy_in, max_buy_in)\n",
            );
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_form_round_trips_and_reads_in_one_line() {
        let v = Variant {
            name: "big blinds".into(),
            blind: 25,
            starting_stack: 700,
            die_sides: 12,
            ..Variant::builtin("super-ace").unwrap()
        };
        let json = v.canonical_json();
        assert!(json.starts_with("{\"name\":\"big blinds\","), "{json}");
        assert_eq!(Variant::parse(&json).unwrap(), v);
        let line = v.rules_line();
        assert!(line.starts_with("d12, blind 25, stacks 700"), "{line}");
        assert!(line.contains("Super Ace"), "{line}");
    }

    #[test]
    fn builtins_are_valid_and_round_trip() {
        for name in Variant::BUILTIN {
            let v = Variant::builtin(name).unwrap();
            v.validate().unwrap();
            assert_eq!(Variant::parse(&v.to_toml()).unwrap(), v);
            assert_eq!(
                Variant::parse(&serde_json::to_string(&v).unwrap()).unwrap(),
                v
            );
        }
    }

    #[test]
    fn commented_file_parses_back() {
        for name in Variant::BUILTIN {
            let v = Variant::builtin(name).unwrap();
            let text = commented_toml(&v);
            assert!(text.contains("# faces of the die"));
            assert_eq!(Variant::parse(&text).unwrap(), v);
        }
    }

    #[test]
    fn decks_follow_the_seed() {
        let v = Variant::default();
        assert_eq!(v.decks_for(2), 1);
        assert_eq!(v.decks_for(5), 1);
        assert_eq!(v.decks_for(6), 2);
        assert_eq!(v.decks_for(10), 2);
        assert_eq!(v.decks_for(11), 3);
        assert_eq!(v.decks_for(20), 4);
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            ("die_sides = 1", "die_sides"),
            ("die_sides = 101", "die_sides"),
            ("blind = 0", "blind"),
            ("seats = 21", "seats"),
            ("seats = 1", "seats"),
            ("starting_stack = 0", "starting_stack"),
            ("[betting]\nkind = \"fixed-limit\"\ncap = 1", "betting.cap"),
            (
                "[style]\nkind = \"cash\"\nmin_buy_in = 500\nmax_buy_in = 100",
                "style",
            ),
        ];
        for (text, name) in cases {
            match Variant::parse(text) {
                Err(VariantError::Field { field, .. }) => assert_eq!(field, name, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        let err = Variant::parse("super_aces = true").unwrap_err().to_string();
        assert!(err.contains("super_aces"), "{err}");
        assert!(matches!(
            Variant::parse("die_sides = \"ten\""),
            Err(VariantError::Syntax(_))
        ));
    }

    #[test]
    fn blind_schedule_applies_by_hand() {
        let v = Variant::builtin("tournament").unwrap();
        assert_eq!(v.blind_at(0), 10);
        assert_eq!(v.blind_at(9), 10);
        assert_eq!(v.blind_at(10), 20);
        assert_eq!(v.blind_at(35), 80);
    }
}
