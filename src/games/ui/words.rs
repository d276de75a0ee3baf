//! English for every game's words: a verb that agrees with its subject ("Ann passes", "you
//! pass"), possessives, counted nouns and lists. The reader's own seat is named "you".

use crate::engine::{ForfeitReason, Outcome, Seat};

/// The name a seat's own reader sees for itself.
pub const YOU: &str = "you";

/// The base form of a verb given in the third person ("passes" → "pass", "has" → "have").
pub fn base_form(verb: &str) -> &str {
    match verb {
        "is" => "are",
        "has" => "have",
        "passes" => "pass",
        "wins" => "win",
        "loses" => "lose",
        "rolls" => "roll",
        "does" => "do",
        // "dominoes", "watches", "fixes", "misses": the "es" is the ending.
        v if ["oes", "sses", "shes", "ches", "xes", "zzes"]
            .iter()
            .any(|e| v.ends_with(e)) =>
        {
            &v[..v.len() - 2]
        }
        v => v.strip_suffix('s').unwrap_or(v),
    }
}

/// "NAME verbs", or "you verb" when the name is the reader's own seat. Only the first word of
/// `verb` agrees ("you cannot play" from "cannot play").
pub fn says(name: String, verb: &str) -> String {
    if name != YOU {
        return format!("{name} {verb}");
    }
    let (first, rest) = match verb.split_once(' ') {
        Some((f, r)) => (f, Some(r)),
        None => (verb, None),
    };
    match rest {
        Some(r) => format!("{YOU} {} {r}", base_form(first)),
        None => format!("{YOU} {}", base_form(first)),
    }
}

/// The verb alone, agreeing with `who`: "pass" for "you", "passes" for anyone else.
pub fn agree(who: &str, verb: &'static str) -> &'static str {
    if who == YOU {
        base_form(verb)
    } else {
        verb
    }
}

/// The verb alone for a list of `k` names with `first` among them: plural for more than one
/// or for "you" ("win"), the third person otherwise ("wins").
pub fn agree_many(k: usize, first: &str, verb: &'static str) -> &'static str {
    if k > 1 {
        base_form(verb)
    } else {
        agree(first, verb)
    }
}

/// "NAME's", or "your" for the reader's own seat.
pub fn whose(name: String) -> String {
    if name == YOU {
        "your".into()
    } else {
        format!("{name}'s")
    }
}

/// Why a seat left the game, as the people at the table read it: what happened to them, not
/// the protocol's terms (`verify` keeps those: [`ForfeitReason::describe`]). A client that
/// withheld its part is most often a crash or a dead link, so it is not told as an accusation.
pub fn gone(name: String, reason: ForfeitReason) -> String {
    match reason {
        ForfeitReason::Withheld => format!("{} client stopped answering", whose(name)),
        ForfeitReason::Absent => format!("{name} stopped answering"),
        ForfeitReason::Equivocated => {
            format!(
                "{} client signed two different moves for one turn",
                whose(name)
            )
        }
        ForfeitReason::Left => format!("{name} left the table"),
        ForfeitReason::FailedProof => {
            format!(
                "{} client sent a shuffle that did not check out",
                whose(name)
            )
        }
    }
}

/// "1 hand", "3 hands".
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "a", "a and b", "a, b and c"; "nothing" for none.
pub fn list(items: &[String]) -> String {
    match items.len() {
        0 => "nothing".into(),
        1 => items[0].clone(),
        k => format!("{} and {}", items[..k - 1].join(", "), items[k - 1]),
    }
}

/// Seats by their names, as [`list`] joins them.
pub fn seats(ss: &[Seat], n: &dyn Fn(Seat) -> String) -> String {
    list(&ss.iter().map(|s| n(*s)).collect::<Vec<_>>())
}

/// Seats by their names, as [`seats`] joins them, but "nobody" for none.
pub fn people(ss: &[Seat], n: &dyn Fn(Seat) -> String) -> String {
    if ss.is_empty() {
        "nobody".into()
    } else {
        seats(ss, n)
    }
}

/// A move's serialised form read as words: `{"bid":{"quantity":3,"face":4}}` becomes
/// "bid quantity 3 face 4". The fallback for games that do not name their moves.
pub fn json_words(v: &serde_json::Value) -> String {
    use serde_json::Value as V;
    match v {
        V::Null => String::new(),
        V::String(s) => s.replace('_', " "),
        V::Array(xs) => xs.iter().map(json_words).collect::<Vec<_>>().join(" "),
        V::Object(m) => m
            .iter()
            .map(|(k, x)| {
                let rest = json_words(x);
                let k = k.replace('_', " ");
                if rest.is_empty() {
                    k
                } else {
                    format!("{k} {rest}")
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

/// Dice faces as a cup shows them ("6 3 1").
pub fn faces(d: &[u8]) -> String {
    d.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The end of a game the last player standing wins (Perudo, Mia), in words: the winner, or the
/// seats that forfeited when the table ended it without one.
pub fn last_standing(outcome: Option<Outcome>, names: &dyn Fn(Seat) -> String) -> String {
    match outcome {
        Some(o) if !o.winners.is_empty() => {
            format!("{} the game", says(names(o.winners[0]), "wins"))
        }
        Some(o) => format!(
            "the game ended without a winner: {} forfeited",
            o.payoffs
                .iter()
                .filter(|(_, p)| *p < 0)
                .map(|(s, _)| names(*s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "the game is not over".into(),
    }
}

/// A game's record told line by line, each entry by the game's own `line`.
pub fn told<E>(
    log: &[E],
    names: &dyn Fn(Seat) -> String,
    line: impl Fn(&E, &dyn Fn(Seat) -> String) -> String,
) -> Vec<String> {
    log.iter().map(|e| line(e, names)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs_agree_with_you_and_with_others() {
        assert_eq!(says("Ann".into(), "passes"), "Ann passes");
        assert_eq!(says(YOU.into(), "passes"), "you pass");
        assert_eq!(says(YOU.into(), "is"), "you are");
        assert_eq!(says(YOU.into(), "loses"), "you lose");
        assert_eq!(says(YOU.into(), "sets"), "you set");
        assert_eq!(says(YOU.into(), "dominoes"), "you domino");
        assert_eq!(says(YOU.into(), "misses"), "you miss");
        assert_eq!(says(YOU.into(), "ties"), "you tie");
        assert_eq!(says(YOU.into(), "takes back"), "you take back");
        assert_eq!(agree("Ann", "wins"), "wins");
        assert_eq!(agree(YOU, "wins"), "win");
        assert_eq!(agree_many(2, "Ann", "wins"), "win");
        assert_eq!(agree_many(1, "Ann", "wins"), "wins");
        assert_eq!(whose(YOU.into()), "your");
        assert_eq!(whose("Ann".into()), "Ann's");
        assert_eq!(count(1u8, "hand", "hands"), "1 hand");
        assert_eq!(count(3u8, "hand", "hands"), "3 hands");
        assert_eq!(list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
        assert_eq!(list(&[]), "nothing");
    }

    #[test]
    fn a_seat_gone_is_told_without_the_protocols_terms() {
        assert_eq!(
            gone("Ben".into(), ForfeitReason::Withheld),
            "Ben's client stopped answering"
        );
        assert_eq!(
            gone(YOU.into(), ForfeitReason::Withheld),
            "your client stopped answering"
        );
        assert_eq!(gone(YOU.into(), ForfeitReason::Left), "you left the table");
        for r in [
            ForfeitReason::Withheld,
            ForfeitReason::Absent,
            ForfeitReason::Equivocated,
            ForfeitReason::Left,
            ForfeitReason::FailedProof,
        ] {
            let w = gone("Ben".into(), r);
            assert!(!w.contains("protocol") && !w.contains("step"), "{w}");
        }
    }
}
