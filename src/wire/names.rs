//! People's names: the name a NIP-01 profile (kind 0) asks to be shown by, or a short npub for a
//! key without one. Pure, so the terminal and the browser page name people by the same rule.

use nostr::prelude::*;
use std::collections::HashMap;

/// `npub1abcd…wxyz`: short enough for a table, long enough to tell keys apart.
pub fn short_npub(pk: &PublicKey) -> String {
    let full = pk.to_bech32().unwrap_or_else(|_| pk.to_hex());
    if full.len() > 20 {
        format!("{}…{}", &full[..10], &full[full.len() - 4..])
    } else {
        full
    }
}

/// The name a profile asks to be shown by: display name, else name; trimmed, one line, at most
/// 24 characters (names are chosen by strangers and printed on our screens).
pub fn profile_name(metadata: &Metadata) -> Option<String> {
    let raw = metadata
        .display_name
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .or(metadata.name.as_deref())?;
    let clean: String = raw
        .chars()
        .filter(|c| !c.is_control())
        .take(24)
        .collect::<String>()
        .trim()
        .to_string();
    (!clean.is_empty()).then_some(clean)
}

/// How `k` is named to people: its profile name among `known`, else its short npub.
pub fn name_or_npub(known: &HashMap<PublicKey, String>, k: &PublicKey) -> String {
    known.get(k).cloned().unwrap_or_else(|| short_npub(k))
}

/// The query for these keys' profiles.
pub fn profiles_filter(keys: &[PublicKey]) -> Filter {
    Filter::new().kind(Kind::Metadata).authors(keys.to_vec())
}

/// The names these profile events give, one per key: only events whose signature holds, the
/// newest profile of each key wins, and a profile without a usable name names nobody.
pub fn names_from_profiles(events: &[Event]) -> HashMap<PublicKey, String> {
    let mut newest: HashMap<PublicKey, &Event> = HashMap::new();
    for ev in events {
        if ev.kind != Kind::Metadata || ev.verify().is_err() {
            continue;
        }
        let e = newest.entry(ev.pubkey).or_insert(ev);
        if ev.created_at > e.created_at {
            *e = ev;
        }
    }
    newest
        .into_iter()
        .filter_map(|(pk, ev)| {
            let m = Metadata::from_json(&ev.content).ok()?;
            Some((pk, profile_name(&m)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(keys: &Keys, content: &str, at: u64) -> Event {
        EventBuilder::new(Kind::Metadata, content)
            .custom_created_at(Timestamp::from(at))
            .sign_with_keys(keys)
            .unwrap()
    }

    #[test]
    fn the_newest_signed_profile_names_a_key() {
        let ana = Keys::generate();
        let ben = Keys::generate();
        let mut forged = profile(&ben, r#"{"name":"Ben"}"#, 30);
        forged.content = r#"{"name":"Mallory"}"#.into();
        let events = vec![
            profile(&ana, r#"{"name":"old"}"#, 10),
            profile(&ana, r#"{"name":"ana","display_name":" Ana\n "}"#, 20),
            forged,
            profile(&Keys::generate(), r#"{"about":"no name"}"#, 5),
        ];
        let names = names_from_profiles(&events);
        assert_eq!(
            names.get(&ana.public_key()).map(String::as_str),
            Some("Ana")
        );
        assert!(!names.contains_key(&ben.public_key()), "{names:?}");
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_short_npub_keeps_both_ends() {
        let k = Keys::generate().public_key();
        let full = k.to_bech32().unwrap();
        let s = short_npub(&k);
        assert!(s.starts_with(&full[..10]) && s.ends_with(&full[full.len() - 4..]));
        assert_eq!(s.chars().count(), 15);
    }
}
