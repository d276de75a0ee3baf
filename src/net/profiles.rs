//! Profile names (NIP-01 kind 0 metadata), so people see "Ana" rather than a key.

use super::pool::RelayPool;
use nostr_sdk::prelude::*;
use std::collections::HashMap;
use std::time::Duration;

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
/// 24 characters (names are chosen by strangers and printed on our terminal).
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

/// Names of the keys that published a profile on the pool's relays (the newest profile wins).
pub async fn fetch_names(
    pool: &RelayPool,
    keys: &[PublicKey],
    timeout: Duration,
) -> HashMap<PublicKey, String> {
    let mut out = HashMap::new();
    if keys.is_empty() {
        return out;
    }
    let filter = Filter::new().kind(Kind::Metadata).authors(keys.to_vec());
    let Ok(events) = pool.fetch(vec![filter], timeout).await else {
        return out;
    };
    let mut newest: HashMap<PublicKey, &Event> = HashMap::new();
    for ev in &events {
        if ev.verify().is_err() {
            continue;
        }
        let e = newest.entry(ev.pubkey).or_insert(ev);
        if ev.created_at > e.created_at {
            *e = ev;
        }
    }
    for (pk, ev) in newest {
        if let Some(name) = Metadata::from_json(&ev.content)
            .ok()
            .as_ref()
            .and_then(profile_name)
        {
            out.insert(pk, name);
        }
    }
    out
}

/// This person as their own screens name them: "Ana (npub1abcd…wxyz)" when their profile has
/// a name on the pool's relays, else the short npub alone.
pub async fn self_words(pool: &RelayPool, me: &PublicKey) -> String {
    let short = short_npub(me);
    match fetch_names(pool, &[*me], Duration::from_secs(3))
        .await
        .remove(me)
    {
        Some(name) => format!("{name} ({short})"),
        None => short,
    }
}

/// Publishes a profile with this name.
pub async fn publish_name(
    pool: &RelayPool,
    name: &str,
) -> Result<super::pool::PublishReport, String> {
    let metadata = Metadata::new().name(name).display_name(name);
    let ev = pool
        .sign(EventBuilder::metadata(&metadata))
        .map_err(|e| e.to_string())?;
    pool.publish(&ev).await.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cleaned_and_keys_shortened() {
        let m = Metadata::new().name("Ana\u{1b}[31m the Bold and Fearless Player");
        assert_eq!(profile_name(&m).unwrap(), "Ana[31m the Bold and Fea");
        let m = Metadata::new().name("x").display_name("  ");
        assert_eq!(profile_name(&m).unwrap(), "x");
        assert!(profile_name(&Metadata::new()).is_none());
        let pk = Keys::generate().public_key();
        let s = short_npub(&pk);
        assert!(s.starts_with("npub1") && s.contains('…') && s.chars().count() == 15);
    }
}
