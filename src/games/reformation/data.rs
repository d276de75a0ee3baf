//! The card set, the Roles and the scoring constants of Tolerance: Reformation as data: the
//! files `protocol/decks/reformation-cards.toml` and `protocol/decks/reformation-roles.toml`,
//! built in at compile time, and variant files that replace any of their parts, validated with
//! errors that name the card, role or field. Rules: `protocol/rules/reformation.md`
//! (§ The card set as data).

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// The built-in card set.
pub const CARDS_FILE: &str = include_str!("../../../protocol/decks/reformation-cards.toml");
/// The built-in scoring constants, Bertram and the seven Roles.
pub const ROLES_FILE: &str = include_str!("../../../protocol/decks/reformation-roles.toml");

/// Cards in a hand, and tricks in a round.
pub const HAND: usize = 12;
/// Reigns (rounds) in a game.
pub const REIGNS: usize = 3;

/// A card's suit. Wild is a suit of its own for the order of End of Trick effects and for
/// scoring; in a trick a Wild card is declared as one of the other four.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Suit {
    Nobles,
    Clergy,
    Townsfolk,
    Peasants,
    Wild,
}

impl Suit {
    pub const ALL: [Suit; 5] = [
        Suit::Nobles,
        Suit::Clergy,
        Suit::Townsfolk,
        Suit::Peasants,
        Suit::Wild,
    ];
    /// The suits a Wild card may be declared as.
    pub const DECLARABLE: [Suit; 4] = [Suit::Nobles, Suit::Clergy, Suit::Townsfolk, Suit::Peasants];

    pub fn word(self) -> &'static str {
        match self {
            Suit::Nobles => "Nobles",
            Suit::Clergy => "Clergy",
            Suit::Townsfolk => "Townsfolk",
            Suit::Peasants => "Peasants",
            Suit::Wild => "Wild",
        }
    }

    /// One letter, for compact card codes ("N8", "W10").
    pub fn letter(self) -> char {
        match self {
            Suit::Nobles => 'N',
            Suit::Clergy => 'C',
            Suit::Townsfolk => 'T',
            Suit::Peasants => 'P',
            Suit::Wild => 'W',
        }
    }

    pub fn parse(s: &str) -> Option<Suit> {
        Suit::ALL.into_iter().find(|x| {
            x.word().eq_ignore_ascii_case(s.trim())
                || s.trim().eq_ignore_ascii_case(&x.letter().to_string())
        })
    }
}

/// A religion a card holds in play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Faith {
    Catholic,
    Protestant,
}

impl Faith {
    pub fn word(self) -> &'static str {
        match self {
            Faith::Catholic => "Catholic",
            Faith::Protestant => "Protestant",
        }
    }
}

/// "Catholic", "Protestant" or "no religion".
pub fn faith_word(f: Option<Faith>) -> &'static str {
    f.map_or("no religion", Faith::word)
}

/// A card's printed religion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Religion {
    Catholic,
    Protestant,
    /// The prevailing religion of the round (Catholic, none, Protestant by reign).
    Prevailing,
    /// No religion at all.
    None,
}

/// The prevailing religion of reign `round` (1..=3).
pub fn prevailing(round: u8) -> Option<Faith> {
    match round {
        1 => Some(Faith::Catholic),
        3 => Some(Faith::Protestant),
        _ => None,
    }
}

impl Religion {
    /// The religion a card of this printed religion has in `round`, before any conversion.
    pub fn in_round(self, round: u8) -> Option<Faith> {
        match self {
            Religion::Catholic => Some(Faith::Catholic),
            Religion::Protestant => Some(Faith::Protestant),
            Religion::Prevailing => prevailing(round),
            Religion::None => None,
        }
    }
}

/// What an effect applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    All,
    Nobles,
    Clergy,
    Townsfolk,
    Peasants,
    Wild,
    Catholic,
    Protestant,
    /// Cards of the current monarch's religion (the prevailing religion; under Elizabeth, cards
    /// of no religion).
    CrownsFaith,
}

impl Target {
    pub fn word(self) -> &'static str {
        match self {
            Target::All => "every card",
            Target::Nobles => "Nobles",
            Target::Clergy => "Clergy",
            Target::Townsfolk => "Townsfolk",
            Target::Peasants => "Peasants",
            Target::Wild => "Wild cards",
            Target::Catholic => "Catholics",
            Target::Protestant => "Protestants",
            Target::CrownsFaith => "cards of the monarch's religion",
        }
    }
}

fn all_targets() -> Vec<Target> {
    vec![Target::All]
}

/// How many a kill takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Count {
    /// One card, chosen by the trick's winner when several qualify.
    One,
    /// Every card that qualifies.
    All,
}

/// What a "highest" kill measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    Rank,
    Money,
    Piety,
}

/// An End of Trick (or End of Round) effect.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Effect {
    /// Collect the money of every living card in the trick matching `from` but not `except`.
    Taxes {
        #[serde(default = "all_targets")]
        from: Vec<Target>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        except: Vec<Target>,
    },
    /// Collect their piety, Catholic and Protestant apart; cards of no religion give none.
    Piety {
        #[serde(default = "all_targets")]
        from: Vec<Target>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        except: Vec<Target>,
    },
    TaxesAndPiety {
        #[serde(default = "all_targets")]
        from: Vec<Target>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        except: Vec<Target>,
    },
    /// The piety of one living card of the trick, chosen by the winner.
    PietyOfChoice,
    /// Kill `count` living cards matching `targets` (never the card itself).
    Kill {
        #[serde(default = "all_targets")]
        targets: Vec<Target>,
        count: Count,
    },
    /// Kill every other living card tied for the highest `by`.
    KillHighest { by: Measure },
    /// The other living cards of `religion` with the lowest piety die if it is lower than this
    /// card's.
    Condemn { religion: Faith },
    /// The other living cards of `from` with the lowest piety become `to` if it is lower than
    /// this card's.
    Convert { from: Faith, to: Faith },
    /// The winner loses this much of both piety tallies.
    LosePiety { amount: u8 },
    /// End of Round: a surviving Monarch kills one card in any tableau.
    RoyalExecution,
}

/// One card of the set.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardDef {
    pub suit: Suit,
    pub rank: u8,
    pub name: String,
    pub religion: Religion,
    pub money: i32,
    pub piety: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    #[serde(default, skip_serializing_if = "crate::wire::is_default")]
    pub guild: bool,
    /// The reign (1..=3) of a Monarch card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monarch: Option<u8>,
    #[serde(default, skip_serializing_if = "crate::wire::is_default")]
    pub plague: bool,
    /// The fields whose values the text no longer gives.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assumed: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A scoring category of a reign: VP per living card, for owning at least one, for owning the
/// most or joint most.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Category {
    pub per_card: i32,
    pub at_least_one: i32,
    pub most: i32,
}

/// A Role's scoring at the end of one reign.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Reign {
    pub nobles: Category,
    pub clergy: Category,
    pub townsfolk: Category,
    pub peasants: Category,
    pub wild: Category,
    pub guild: Category,
    pub dead_catholic: i32,
    pub dead_protestant: i32,
}

impl Reign {
    pub fn suit(&self, s: Suit) -> Category {
        match s {
            Suit::Nobles => self.nobles,
            Suit::Clergy => self.clergy,
            Suit::Townsfolk => self.townsfolk,
            Suit::Peasants => self.peasants,
            Suit::Wild => self.wild,
        }
    }
}

/// VP per pennant at the end of the game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EndScoring {
    pub money: i32,
    pub catholic: i32,
    pub protestant: i32,
}

/// A Role card's side: Bertram the Balanced or one of the seven Roles.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleDef {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Mary I, Elizabeth I, James I.
    pub reigns: Vec<Reign>,
    pub end: EndScoring,
    #[serde(default, skip_serializing_if = "crate::wire::is_default")]
    pub assumed: bool,
}

/// The pile End of Round Taxes count in a reign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaxPile {
    Catholic,
    None,
    Protestant,
}

impl TaxPile {
    pub fn faith(self) -> Option<Faith> {
        match self {
            TaxPile::Catholic => Some(Faith::Catholic),
            TaxPile::Protestant => Some(Faith::Protestant),
            TaxPile::None => None,
        }
    }
}

/// The scoring constants.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub start_money: i32,
    pub loan_money: i32,
    pub loan_repay: i32,
    pub loan_penalty: i32,
    pub tally_max: i32,
    pub pennant_step: i32,
    pub round_taxes: Vec<TaxPile>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assumed: Vec<String>,
}

/// Everything a table plays with.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Data {
    pub cards: Vec<CardDef>,
    pub rules: Rules,
    pub bertram: RoleDef,
    pub roles: Vec<RoleDef>,
}

/// How the players get their Roles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoleMode {
    /// The basic game: everyone plays Bertram the Balanced.
    #[default]
    Bertram,
    /// Each player chooses one of the seven Roles.
    Chosen,
    /// The Roles are dealt out at random.
    Dealt,
}

/// A table's options a variant file may set (`[table]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableOptions {
    pub rounds: Option<u8>,
    pub plague_cards: Option<u8>,
    pub roles: Option<RoleMode>,
    pub hidden_agendas: Option<bool>,
}

/// A variant file: any of the data's parts and the table's options; what it leaves out is the
/// built-in set's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantFile {
    pub name: Option<String>,
    pub table: Option<TableOptions>,
    pub cards: Option<Vec<CardDef>>,
    pub rules: Option<Rules>,
    pub bertram: Option<RoleDef>,
    pub roles: Option<Vec<RoleDef>>,
}

impl VariantFile {
    /// Reads TOML, or JSON when the text starts with `{`.
    pub fn parse(text: &str) -> Result<VariantFile, String> {
        if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| format!("not a valid variant file: {e}"))
        } else {
            toml::from_str(text).map_err(|e| format!("not a valid variant file: {e}"))
        }
    }

    /// Whether it changes the cards, rules or roles (and so must travel with the table).
    pub fn has_data(&self) -> bool {
        self.cards.is_some()
            || self.rules.is_some()
            || self.bertram.is_some()
            || self.roles.is_some()
    }

    /// The built-in data with this file's parts in place of its own.
    pub fn data(&self) -> Data {
        let base = Data::builtin();
        Data {
            cards: self.cards.clone().unwrap_or_else(|| base.cards.clone()),
            rules: self.rules.clone().unwrap_or_else(|| base.rules.clone()),
            bertram: self.bertram.clone().unwrap_or_else(|| base.bertram.clone()),
            roles: self.roles.clone().unwrap_or_else(|| base.roles.clone()),
        }
    }
}

fn in_range(v: i32, lo: i32, hi: i32, what: impl FnOnce() -> String) -> Result<(), String> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(format!("{} must be {lo} to {hi}, not {v}", what()))
    }
}

impl Data {
    /// The built-in card set, Roles and constants (parsed once; the files are checked by the
    /// tests, so a broken file fails the build's tests, never a table).
    pub fn builtin() -> &'static Data {
        static DATA: OnceLock<Data> = OnceLock::new();
        DATA.get_or_init(|| {
            let cards = VariantFile::parse(CARDS_FILE).expect("the built-in card file parses");
            let roles = VariantFile::parse(ROLES_FILE).expect("the built-in roles file parses");
            Data {
                cards: cards.cards.expect("the card file lists the cards"),
                rules: roles.rules.expect("the roles file has the rules"),
                bertram: roles.bertram.expect("the roles file has Bertram"),
                roles: roles.roles.expect("the roles file has the Roles"),
            }
        })
    }

    /// What a person reads for card `i`: "card 23 (Bailiff, Wild 10)".
    fn card_words(&self, i: usize) -> String {
        match self.cards.get(i) {
            Some(c) => format!("card {} ({}, {} {})", i + 1, c.name, c.suit.word(), c.rank),
            None => format!("card {}", i + 1),
        }
    }

    /// Checks everything a table relies on; the error names the card, role or field.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.cards.len();
        if !(HAND * 5 + 3..=crate::cards::MAX_DECK_SIZE).contains(&n) {
            return Err(format!(
                "the card set has {n} cards: it needs at least {} (five hands of {HAND} with the \
                 three Monarchs) and at most {}",
                HAND * 5 + 3,
                crate::cards::MAX_DECK_SIZE
            ));
        }
        self.validate_each_card()?;
        for reign in 1..=REIGNS as u8 {
            let count = self
                .cards
                .iter()
                .filter(|c| c.monarch == Some(reign))
                .count();
            if count != 1 {
                return Err(format!(
                    "the card set has {count} Monarchs of reign {reign}: it needs exactly one"
                ));
            }
        }
        let plagues = self.cards.iter().filter(|c| c.plague).count();
        if plagues > 2 {
            return Err(format!(
                "the card set has {plagues} Plague cards: a table plays with one or two"
            ));
        }
        let r = &self.rules;
        in_range(r.start_money, 0, 69, || "rules.start_money".into())?;
        in_range(r.loan_money, 0, 69, || "rules.loan_money".into())?;
        in_range(r.loan_repay, 1, 69, || "rules.loan_repay".into())?;
        in_range(r.loan_penalty, 0, 69, || "rules.loan_penalty".into())?;
        in_range(r.tally_max, 9, 999, || "rules.tally_max".into())?;
        in_range(r.pennant_step, 1, r.tally_max, || {
            "rules.pennant_step".into()
        })?;
        if r.round_taxes.len() != REIGNS {
            return Err(format!(
                "rules.round_taxes names the pile of each of the 3 reigns, not {}",
                r.round_taxes.len()
            ));
        }
        self.validate_each_role()?;
        if self.roles.len() > 40 {
            return Err(format!(
                "{} roles is too many: at most 40",
                self.roles.len()
            ));
        }
        Ok(())
    }

    /// Each card's name, numbers, Monarch and effect; no two cards with one label.
    fn validate_each_card(&self) -> Result<(), String> {
        let mut labels = std::collections::BTreeSet::new();
        for (i, c) in self.cards.iter().enumerate() {
            let at = || self.card_words(i);
            let name = c.name.trim();
            if name.is_empty() || name.chars().count() > 40 || name != c.name {
                return Err(format!(
                    "{}: a name is 1 to 40 characters without spaces around it",
                    at()
                ));
            }
            in_range(i32::from(c.rank), 1, 30, || format!("{}: rank", at()))?;
            in_range(c.money, -20, 20, || format!("{}: money", at()))?;
            in_range(c.piety, 0, 20, || format!("{}: piety", at()))?;
            if !labels.insert(self.label(i).to_ascii_lowercase()) {
                return Err(format!(
                    "{}: two cards of one name need different ranks",
                    at()
                ));
            }
            match c.monarch {
                Some(r) if !(1..=REIGNS as u8).contains(&r) => {
                    return Err(format!("{}: monarch is a reign, 1 to 3, not {r}", at()))
                }
                Some(_) if c.suit != Suit::Wild => {
                    return Err(format!("{}: a Monarch is a Wild card", at()))
                }
                Some(_) if c.plague => {
                    return Err(format!("{}: a Monarch is not a Plague card", at()))
                }
                _ => {}
            }
            match &c.effect {
                Some(Effect::RoyalExecution) if c.monarch.is_none() => {
                    return Err(format!("{}: only a Monarch has the Royal Execution", at()))
                }
                Some(Effect::Convert { from, to }) if from == to => {
                    return Err(format!("{}: a conversion changes the religion", at()))
                }
                Some(Effect::Kill { targets, .. }) if targets.is_empty() => {
                    return Err(format!("{}: a kill needs targets (or \"all\")", at()))
                }
                Some(
                    Effect::Taxes { from, .. }
                    | Effect::Piety { from, .. }
                    | Effect::TaxesAndPiety { from, .. },
                ) if from.is_empty() => {
                    return Err(format!("{}: a collection needs targets (or \"all\")", at()))
                }
                Some(Effect::LosePiety { amount }) if *amount > 20 => {
                    return Err(format!("{}: lose-piety takes 0 to 20, not {amount}", at()))
                }
                _ => {}
            }
            for a in &c.assumed {
                const FIELDS: [&str; 10] = [
                    "suit", "rank", "name", "religion", "money", "piety", "effect", "guild",
                    "monarch", "plague",
                ];
                if !FIELDS.contains(&a.as_str()) {
                    return Err(format!(
                        "{}: '{a}' in assumed is not a field ({})",
                        at(),
                        FIELDS.join(", ")
                    ));
                }
            }
        }
        Ok(())
    }

    /// Each role's name (unique) and its scores for the three reigns and the end.
    fn validate_each_role(&self) -> Result<(), String> {
        let mut names = std::collections::BTreeSet::new();
        for (k, role) in std::iter::once(&self.bertram)
            .chain(&self.roles)
            .enumerate()
        {
            let at = || {
                if k == 0 {
                    format!("bertram ({})", role.name)
                } else {
                    format!("role {k} ({})", role.name)
                }
            };
            if role.name.trim().is_empty() || role.name.chars().count() > 40 {
                return Err(format!("{}: a name is 1 to 40 characters", at()));
            }
            if !names.insert(role.name.to_ascii_lowercase()) {
                return Err(format!("{}: two roles have this name", at()));
            }
            if role.reigns.len() != REIGNS {
                return Err(format!(
                    "{}: a role scores 3 reigns (Mary I, Elizabeth I, James I), not {}",
                    at(),
                    role.reigns.len()
                ));
            }
            for (j, reign) in role.reigns.iter().enumerate() {
                let cats = [
                    ("nobles", reign.nobles),
                    ("clergy", reign.clergy),
                    ("townsfolk", reign.townsfolk),
                    ("peasants", reign.peasants),
                    ("wild", reign.wild),
                    ("guild", reign.guild),
                ];
                for (what, c) in cats {
                    for (field, v) in [
                        ("per_card", c.per_card),
                        ("at_least_one", c.at_least_one),
                        ("most", c.most),
                    ] {
                        in_range(v, -20, 20, || {
                            format!("{}: reign {} {what}.{field}", at(), j + 1)
                        })?;
                    }
                }
                in_range(reign.dead_catholic, -20, 20, || {
                    format!("{}: reign {} dead_catholic", at(), j + 1)
                })?;
                in_range(reign.dead_protestant, -20, 20, || {
                    format!("{}: reign {} dead_protestant", at(), j + 1)
                })?;
            }
            for (field, v) in [
                ("money", role.end.money),
                ("catholic", role.end.catholic),
                ("protestant", role.end.protestant),
            ] {
                in_range(v, -20, 20, || format!("{}: end.{field}", at()))?;
            }
        }
        Ok(())
    }

    /// The name a card is known by in scripts and lists: its name, with its rank when another
    /// card shares the name ("Bailiff 6", "Bailiff 10").
    pub fn label(&self, i: usize) -> String {
        let c = &self.cards[i];
        let shared = self
            .cards
            .iter()
            .filter(|o| o.name.eq_ignore_ascii_case(&c.name))
            .count()
            > 1;
        if shared {
            format!("{} {}", c.name, c.rank)
        } else {
            c.name.clone()
        }
    }

    /// A card by its label (case ignored).
    pub fn find(&self, label: &str) -> Option<usize> {
        let want = label.trim();
        (0..self.cards.len()).find(|&i| self.label(i).eq_ignore_ascii_case(want))
    }

    /// The Monarch of reign `round`.
    pub fn monarch(&self, round: u8) -> usize {
        self.cards
            .iter()
            .position(|c| c.monarch == Some(round))
            .expect("a validated set has every Monarch")
    }

    /// The Suit cards a round deals from: every card but the Monarchs, without the second
    /// Plague card when the table plays with one.
    pub fn suit_cards(&self, plague_cards: u8) -> Vec<usize> {
        let plagues: Vec<usize> = (0..self.cards.len())
            .filter(|&i| self.cards[i].plague)
            .collect();
        let left_out: Vec<usize> = plagues
            .iter()
            .skip(usize::from(plague_cards))
            .copied()
            .collect();
        (0..self.cards.len())
            .filter(|i| self.cards[*i].monarch.is_none() && !left_out.contains(i))
            .collect()
    }

    /// The role of `r`: Bertram, or one of the Roles.
    pub fn role(&self, r: Role) -> &RoleDef {
        match r {
            Role::Bertram => &self.bertram,
            Role::Card(i) => &self.roles[usize::from(i)],
        }
    }
}

/// A player's Role: Bertram's side, or a Role card (its index in the data's roles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Bertram,
    Card(u8),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_set_is_the_rule_books() {
        let d = Data::builtin();
        d.validate().unwrap();
        assert_eq!(d.cards.len(), 73);
        for s in [Suit::Nobles, Suit::Clergy, Suit::Townsfolk, Suit::Peasants] {
            let ranks: Vec<u8> = d
                .cards
                .iter()
                .filter(|c| c.suit == s)
                .map(|c| c.rank)
                .collect();
            assert_eq!(ranks, (1..=14).collect::<Vec<_>>(), "{s:?}");
        }
        assert_eq!(d.cards.iter().filter(|c| c.suit == Suit::Wild).count(), 17);
        assert_eq!(d.cards.iter().filter(|c| c.monarch.is_some()).count(), 3);
        assert_eq!(d.cards.iter().filter(|c| c.plague).count(), 2);
        // The deal: 69 Suit cards with one Plague card, 70 with both.
        assert_eq!(d.suit_cards(1).len(), 69);
        assert_eq!(d.suit_cards(2).len(), 70);
        assert_eq!(d.roles.len(), 7);
        assert_eq!(d.bertram.name, "Bertram the Balanced");
        // What the Scoring Example gives.
        let gilbert = &d.cards[d.find("Preacher Gilbert").unwrap()];
        assert_eq!((gilbert.religion, gilbert.piety), (Religion::Catholic, 6));
        let cat = &d.cards[d.find("Catherine de Medici").unwrap()];
        assert_eq!(
            (cat.religion, cat.piety, cat.rank),
            (Religion::Catholic, 4, 9)
        );
        let knight = &d.cards[d.find("Valiant Knight").unwrap()];
        assert_eq!((knight.religion, knight.piety), (Religion::Prevailing, 2));
        let bailiff = &d.cards[d.find("Bailiff 10").unwrap()];
        assert_eq!(knight.money + cat.money + bailiff.money, 2);
        assert_eq!(d.label(d.find("bailiff 6").unwrap()), "Bailiff 6");
        // Every value the text lost is marked: no card's money survived the conversion.
        for c in &d.cards {
            assert!(c.assumed.contains(&"money".to_string()), "{}", c.name);
        }
        assert!(d.roles.iter().all(|r| r.assumed) && d.bertram.assumed);
        // "There should only be cards in the O pile during round 2": no card of the rule
        // book's set is of no religion in every reign.
        assert!(d.cards.iter().all(|c| c.religion != Religion::None));
    }

    #[test]
    fn a_variant_file_replaces_parts_and_errors_name_the_field() {
        let v = VariantFile::parse("name = \"x\"\n[table]\nroles = \"dealt\"\n").unwrap();
        assert!(!v.has_data());
        assert_eq!(v.data(), *Data::builtin());
        let mut d = Data::builtin().clone();
        d.cards[7].money = 99;
        let e = d.validate().unwrap_err();
        assert!(
            e.contains("card 8 (Valiant Knight, Nobles 8): money must be -20 to 20"),
            "{e}"
        );
        let mut d = Data::builtin().clone();
        d.cards.retain(|c| c.monarch != Some(2));
        let e = d.validate().unwrap_err();
        assert!(e.contains("0 Monarchs of reign 2"), "{e}");
        let mut d = Data::builtin().clone();
        d.roles[2].reigns.pop();
        assert!(d.validate().unwrap_err().contains("role 3 (George)"));
        let e = VariantFile::parse("[[cards]]\nsuit = \"spades\"\n").unwrap_err();
        assert!(e.contains("spades"), "{e}");
        let e = VariantFile::parse("colour = 1").unwrap_err();
        assert!(e.contains("colour"), "{e}");
        // JSON as well as TOML, and a round trip keeps everything.
        let json = serde_json::to_string(&VariantFile {
            cards: Some(d.cards.clone()),
            ..VariantFile::default()
        })
        .unwrap();
        assert_eq!(VariantFile::parse(&json).unwrap().cards.unwrap(), d.cards);
    }
}
