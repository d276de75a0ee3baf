//! Insider's word list as data (`protocol/insider/words.txt`): a few hundred common nouns, each
//! with the yes/no facts the bots ask about. A table names its list in its setup; the list is
//! never changed in place (a new one gets a new name), so an old table's word stays the same.

use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The shipped list's name.
pub const NOUNS_1: &str = "nouns-1";
const TEXT: &str = include_str!("../../../protocol/insider/words.txt");

/// A yes/no fact about a word, and the question that asks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tag {
    Alive,
    Animal,
    Plant,
    Food,
    Drink,
    Tool,
    Vehicle,
    Place,
    Clothing,
    Furniture,
    Electric,
    Big,
    Indoors,
    Metal,
    Water,
    Nature,
    Music,
    Sport,
    Kitchen,
}

impl Tag {
    pub const ALL: [Tag; 19] = [
        Tag::Alive,
        Tag::Animal,
        Tag::Plant,
        Tag::Food,
        Tag::Drink,
        Tag::Tool,
        Tag::Vehicle,
        Tag::Place,
        Tag::Clothing,
        Tag::Furniture,
        Tag::Electric,
        Tag::Big,
        Tag::Indoors,
        Tag::Metal,
        Tag::Water,
        Tag::Nature,
        Tag::Music,
        Tag::Sport,
        Tag::Kitchen,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Tag::Alive => "alive",
            Tag::Animal => "animal",
            Tag::Plant => "plant",
            Tag::Food => "food",
            Tag::Drink => "drink",
            Tag::Tool => "tool",
            Tag::Vehicle => "vehicle",
            Tag::Place => "place",
            Tag::Clothing => "clothing",
            Tag::Furniture => "furniture",
            Tag::Electric => "electric",
            Tag::Big => "big",
            Tag::Indoors => "indoors",
            Tag::Metal => "metal",
            Tag::Water => "water",
            Tag::Nature => "nature",
            Tag::Music => "music",
            Tag::Sport => "sport",
            Tag::Kitchen => "kitchen",
        }
    }

    /// The question a bot asks about this fact.
    pub fn question(self) -> &'static str {
        match self {
            Tag::Alive => "Is it alive?",
            Tag::Animal => "Is it an animal?",
            Tag::Plant => "Is it a plant?",
            Tag::Food => "Can you eat it?",
            Tag::Drink => "Can you drink it?",
            Tag::Tool => "Is it a tool?",
            Tag::Vehicle => "Is it a vehicle?",
            Tag::Place => "Is it a place?",
            Tag::Clothing => "Do you wear it?",
            Tag::Furniture => "Is it furniture?",
            Tag::Electric => "Does it use electricity?",
            Tag::Big => "Is it bigger than a person?",
            Tag::Indoors => "Is it usually found indoors?",
            Tag::Metal => "Is it made mostly of metal?",
            Tag::Water => "Is it found in or near water?",
            Tag::Nature => "Is it part of nature?",
            Tag::Music => "Does it make music?",
            Tag::Sport => "Is it used in a sport or a game?",
            Tag::Kitchen => "Is it found in a kitchen?",
        }
    }

    /// The fact a question asks, when it is one of the bots' questions (any case, spacing).
    pub fn of_question(q: &str) -> Option<Tag> {
        let norm = |s: &str| {
            s.to_lowercase()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        let q = norm(q);
        Tag::ALL.into_iter().find(|t| norm(t.question()) == q)
    }

    fn from_name(s: &str) -> Option<Tag> {
        Tag::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// One word and its facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub word: String,
    pub tags: BTreeSet<Tag>,
}

/// Reads a list in the format of `words.txt`.
pub fn parse(text: &str) -> Result<Vec<Word>, String> {
    let mut out: Vec<Word> = Vec::new();
    let mut group: BTreeSet<Tag> = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split_whitespace();
        let first = parts.next().expect("a non-empty line");
        let tags = parts
            .map(|t| Tag::from_name(t).ok_or_else(|| format!("line {}: unknown tag '{t}'", n + 1)))
            .collect::<Result<BTreeSet<Tag>, String>>()?;
        if first == "@" {
            group = tags;
            continue;
        }
        if !first.chars().all(|c| c.is_ascii_lowercase()) {
            return Err(format!(
                "line {}: '{first}' is not a lower-case word",
                n + 1
            ));
        }
        if out.iter().any(|w| w.word == first) {
            return Err(format!("line {}: '{first}' is listed twice", n + 1));
        }
        out.push(Word {
            word: first.to_string(),
            tags: group.union(&tags).copied().collect(),
        });
    }
    Ok(out)
}

/// The list named `name`, if this program ships it.
pub fn list(name: &str) -> Option<&'static [Word]> {
    static NOUNS: OnceLock<Vec<Word>> = OnceLock::new();
    (name == NOUNS_1).then(|| {
        NOUNS
            .get_or_init(|| parse(TEXT).expect("the shipped word list is valid"))
            .as_slice()
    })
}

/// A guess or a word as the table compares them: lower case, single spaces, no spaces around.
pub fn normal(s: &str) -> String {
    s.to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_list_has_a_few_hundred_distinct_tagged_nouns() {
        let l = list(NOUNS_1).unwrap();
        assert!(l.len() >= 300, "{}", l.len());
        assert!(l.iter().all(|w| !w.tags.is_empty()));
        let dog = l.iter().find(|w| w.word == "dog").unwrap();
        assert!(dog.tags.contains(&Tag::Animal) && dog.tags.contains(&Tag::Indoors));
        assert!(!dog.tags.contains(&Tag::Big));
        assert!(list("nouns-2").is_none());
        // Every fact is worth asking: it holds for some words and not for others.
        for t in Tag::ALL {
            let n = l.iter().filter(|w| w.tags.contains(&t)).count();
            assert!(n > 5 && n < l.len() - 5, "{t:?}: {n}");
            assert_eq!(Tag::of_question(&t.question().to_uppercase()), Some(t));
        }
        assert!(parse("@ alive\ndog nosuch\n")
            .unwrap_err()
            .contains("unknown tag"));
        assert!(parse("dog\ndog\n").unwrap_err().contains("twice"));
        assert_eq!(normal("  Ice   Cream "), "ice cream");
    }
}
