//! Profile names (NIP-01 kind 0 metadata), so people see "Ana" rather than a key.

use super::pool::RelayPool;
use nostr_sdk::prelude::*;
use std::collections::HashMap;
use std::time::Duration;

pub use crate::wire::names::{name_or_npub, profile_name, short_npub};

/// Names of the keys that published a profile on the pool's relays (the newest profile wins).
pub async fn fetch_names(
    pool: &RelayPool,
    keys: &[PublicKey],
    timeout: Duration,
) -> HashMap<PublicKey, String> {
    if keys.is_empty() {
        return HashMap::new();
    }
    let filter = crate::wire::names::profiles_filter(keys);
    match pool.fetch(vec![filter], timeout).await {
        Ok(events) => crate::wire::names::names_from_profiles(&events),
        Err(_) => HashMap::new(),
    }
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
    // With the proof of work the relays ask (a replaced profile may be mined again).
    pool.publish_mined(EventBuilder::metadata(&metadata), 0, false)
        .await
        .map(|(_, report)| report)
        .map_err(|e| e.to_string())
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
