//! Feedback to the game's author as it goes on the wire: who gets it, how long it may be, the
//! public note that mentions them, and where someone reads private messages and mentions (their
//! relay lists, NIP-17 and NIP-65). `tolerance feedback` (`crate::feedback`, over the relay
//! pool) and the browser page (`web/src/feedback.rs`) both send it from these.

use nostr::prelude::{
    Event, EventBuilder, Filter, Kind, PublicKey, RelayMetadata, RelayUrl, Tag, ToBech32,
};

/// The author's key. The rules invite feedback and variant ideas here: "Send feedback and view
/// previous versions at npub140y9…h56k via NOSTR" (`../shared/rules/tolerance-v1.4.md`, the
/// paragraphs after the standard rules and at the end).
pub const AUTHOR_NPUB: &str = "npub140y9mz9u9cpm8y9597kdetpte5v5v62nvdzzvp78gfx2xf0x6kxqf5h56k";

/// Relays used when neither `--relay` nor `relays` in `config.toml` names any: three long-running
/// public relays that accept kind 1, 1059, 10050 and 10002 from anyone.
pub const DEFAULT_RELAYS: [&str; 3] = [
    "wss://relay.damus.io",
    "wss://nos.lol",
    "wss://relay.primal.net",
];

/// Longest message accepted. A gift wrap encrypts and base64-encodes the text twice (about ×1.8)
/// and must stay under the 64 KiB event limit.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;

/// The subject (NIP-14) of feedback sent privately.
pub const SUBJECT: &str = "Feedback on The Game of Tolerance";

/// Most relays taken from someone else's relay list, so that a hostile list cannot make a client
/// open hundreds of connections.
pub const MAX_LISTED_RELAYS: usize = 8;

/// The message with surrounding blank space removed; an error if it is empty or too long.
pub fn check_message(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("the message is empty: nothing sent".into());
    }
    if t.len() > MAX_MESSAGE_BYTES {
        return Err(format!(
            "the message is {} bytes, over the {MAX_MESSAGE_BYTES}-byte limit: nothing sent",
            t.len()
        ));
    }
    Ok(t.to_string())
}

/// A kind-1 note for everyone to read that mentions `to` (NIP-27 `nostr:` reference and `p` tag,
/// so their client notifies them).
pub fn public_note(to: &PublicKey, message: &str) -> EventBuilder {
    let npub = to.to_bech32().expect("a public key always encodes");
    EventBuilder::text_note(format!("{message}\n\nnostr:{npub}"))
        .tags([Tag::public_key(*to), Tag::hashtag("tolerance")])
}

/// Someone's published relay lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelayLists {
    /// NIP-17 inbox relays (kind 10050): where they read private messages.
    pub inbox: Vec<RelayUrl>,
    /// NIP-65 relays they read from (kind 10002, marked `read` or unmarked).
    pub read: Vec<RelayUrl>,
}

impl RelayLists {
    /// The lists `who` published among `events` (any authors, any kinds): of each kind the newest
    /// event by `who` counts (ties: lowest id, NIP-01); none found gives empty lists.
    pub fn from_events(events: &[Event], who: &PublicKey) -> RelayLists {
        let newest = |kind: Kind| {
            events
                .iter()
                .filter(|e| e.kind == kind && e.pubkey == *who)
                .max_by(|a, b| a.created_at.cmp(&b.created_at).then(b.id.cmp(&a.id)))
        };
        let mut lists = RelayLists::default();
        if let Some(e) = newest(Kind::InboxRelays) {
            for url in nostr::nips::nip17::extract_relay_list(e) {
                push_unique(&mut lists.inbox, url.clone());
            }
        }
        if let Some(e) = newest(Kind::RelayList) {
            for (url, marker) in nostr::nips::nip65::extract_relay_list(e) {
                if *marker != Some(RelayMetadata::Write) {
                    push_unique(&mut lists.read, url.clone());
                }
            }
        }
        lists
    }

    /// Where private messages for this key belong besides the relays we share: its NIP-17 inbox
    /// relays, none if it published none (NIP-17); at most [`MAX_LISTED_RELAYS`].
    pub fn for_messages(&self) -> &[RelayUrl] {
        &self.inbox[..self.inbox.len().min(MAX_LISTED_RELAYS)]
    }

    /// Where public notes mentioning this key belong: its NIP-65 read relays (NIP-65); at most
    /// [`MAX_LISTED_RELAYS`].
    pub fn for_mentions(&self) -> &[RelayUrl] {
        &self.read[..self.read.len().min(MAX_LISTED_RELAYS)]
    }
}

/// The query for the relay lists (kinds 10050 and 10002) of `who`.
pub fn relay_lists_filter(who: &[PublicKey]) -> Filter {
    Filter::new()
        .authors(who.iter().copied())
        .kinds([Kind::InboxRelays, Kind::RelayList])
}

fn push_unique(list: &mut Vec<RelayUrl>, url: RelayUrl) {
    if !list.contains(&url) {
        list.push(url);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::prelude::{Keys, Timestamp};

    #[test]
    fn the_newest_list_of_each_kind_by_its_author_counts_and_write_only_relays_do_not() {
        let who = Keys::generate();
        let other = Keys::generate();
        let list = |keys: &Keys, kind: Kind, urls: &[&str], at: u64| {
            EventBuilder::new(kind, "")
                .tags(urls.iter().map(|u| Tag::relay(RelayUrl::parse(u).unwrap())))
                .custom_created_at(Timestamp::from(at))
                .sign_with_keys(keys)
                .unwrap()
        };
        let read = EventBuilder::relay_list([
            (
                RelayUrl::parse("wss://read.example").unwrap(),
                Some(RelayMetadata::Read),
            ),
            (
                RelayUrl::parse("wss://write.example").unwrap(),
                Some(RelayMetadata::Write),
            ),
            (RelayUrl::parse("wss://both.example").unwrap(), None),
        ])
        .sign_with_keys(&who)
        .unwrap();
        let events = vec![
            list(&who, Kind::InboxRelays, &["wss://old.example"], 10),
            list(
                &who,
                Kind::InboxRelays,
                &["wss://new.example", "wss://new.example"],
                20,
            ),
            list(&other, Kind::InboxRelays, &["wss://theirs.example"], 30),
            read,
        ];
        let lists = RelayLists::from_events(&events, &who.public_key());
        let names = |v: &[RelayUrl]| v.iter().map(|u| u.to_string()).collect::<Vec<_>>();
        assert_eq!(names(lists.for_messages()), ["wss://new.example"]);
        assert_eq!(
            names(lists.for_mentions()),
            ["wss://read.example", "wss://both.example"]
        );
        assert_eq!(
            RelayLists::from_events(&events, &Keys::generate().public_key()),
            RelayLists::default()
        );
    }

    #[test]
    fn the_author_key_is_a_valid_npub() {
        let k = PublicKey::parse(AUTHOR_NPUB).unwrap();
        assert_eq!(k.to_bech32().unwrap(), AUTHOR_NPUB);
    }

    #[test]
    fn messages_are_checked() {
        assert_eq!(check_message("  hi \n").unwrap(), "hi");
        assert!(check_message(" \n ").unwrap_err().contains("empty"));
        let long = "x".repeat(MAX_MESSAGE_BYTES + 1);
        assert!(check_message(&long).unwrap_err().contains("limit"));
    }

    #[test]
    fn a_public_note_mentions_the_recipient() {
        let to = Keys::generate().public_key();
        let e = public_note(&to, "nice game")
            .sign_with_keys(&Keys::generate())
            .unwrap();
        assert_eq!(e.kind, Kind::TextNote);
        assert!(e.content.starts_with("nice game"));
        assert!(e
            .content
            .contains(&format!("nostr:{}", to.to_bech32().unwrap())));
        assert_eq!(e.tags.public_keys().collect::<Vec<_>>(), vec![&to]);
    }
}
