//! Private messages from the page (NIP-17, sealed and gift-wrapped by NIP-59), as the terminal
//! sends them: feedback to the author ([`crate::feedback`]) and invitations to a table hosted
//! here ([`crate::host`]). With the page's own key everything is signed here, and the sender
//! keeps a copy. With a signer extension the identity signs: the extension encrypts and signs
//! the seal, and this module checks what it gave back and wraps the seal with a one-time key.
//!
//! Each event goes to the page's relays and to the recipient's NIP-17 inbox relays (the sender's
//! own for its copy), read from the relay lists the script fetched and checked here.

use nostr::nips::{nip44, nip59};
use nostr::prelude::*;
use serde_json::{json, Value};
use tolerance::wire::feedback::RelayLists;

/// The relays an event goes to: the page's, then those listed (no repeats).
pub(crate) fn route(relays: &[String], listed: &[RelayUrl]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in relays
        .iter()
        .cloned()
        .chain(listed.iter().map(|u| u.to_string()))
    {
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// Most events read for relay lists: a relay that floods the answer with junk must not push the
/// real lists out before they are looked at.
const MAX_LIST_EVENTS: usize = 5_000;

/// The checked relay lists of `who` among what the relays sent: only its own lists are looked
/// at, and only those whose signature holds.
pub(crate) fn lists(events: &str, who: &PublicKey) -> RelayLists {
    let events: Vec<Event> = crate::parse_events_up_to(events, MAX_LIST_EVENTS)
        .into_iter()
        .filter(|e| {
            e.pubkey == *who
                && matches!(e.kind, Kind::InboxRelays | Kind::RelayList)
                && e.verify().is_ok()
        })
        .collect();
    RelayLists::from_events(&events, who)
}

pub(crate) fn item(event: &Event, relays: Vec<String>, what: &str) -> Value {
    json!({
        "event": serde_json::from_str::<Value>(&event.as_json()).expect("events serialize"),
        "relays": relays,
        "what": what,
    })
}

/// The kind-14 message to `to`, from `me`, with `tags` (its subject, what it is about).
pub(crate) fn rumor(me: &PublicKey, to: &PublicKey, text: &str, tags: Vec<Tag>) -> UnsignedEvent {
    let mut rumor = EventBuilder::private_msg_rumor(*to, text)
        .tags(tags)
        .build(*me);
    rumor.ensure_id();
    rumor
}

/// A seal (NIP-59) holding `content`: its time set back at random, as NIP-59 asks.
fn seal(content: String) -> EventBuilder {
    EventBuilder::new(Kind::Seal, content)
        .custom_created_at(Timestamp::tweaked(nip59::RANGE_RANDOM_TIMESTAMP_TWEAK))
}

/// The seal of `rumor` to `to`, not yet encrypted or signed: its content is what is to be
/// encrypted to `to` (by a signer extension).
fn seal_template(me: &PublicKey, rumor: &UnsignedEvent) -> UnsignedEvent {
    seal(rumor.as_json()).build(*me)
}

/// `rumor` sealed by `keys` and wrapped to `to`.
pub(crate) fn wrapped(keys: &Keys, to: &PublicKey, rumor: &UnsignedEvent) -> Result<Event, String> {
    let fail = |e: String| format!("the message could not be sealed: {e}");
    let sealed = nip44::encrypt(
        keys.secret_key(),
        to,
        rumor.as_json(),
        nip44::Version::default(),
    )
    .map_err(|e| fail(e.to_string()))?;
    let seal = seal(sealed)
        .sign_with_keys(keys)
        .map_err(|e| fail(e.to_string()))?;
    EventBuilder::gift_wrap_from_seal(to, &seal, []).map_err(|e| fail(e.to_string()))
}

/// `text` from the sender (`me`, with its keys when the page holds them) to `to`, with `tags`,
/// routed by the relay lists in `events` over `relays`; `what` names the recipient's copy
/// among the results. With the page's keys: `{publish: [{event, relays, what}]}`, the sender's
/// copy as `copy`. With a signer extension, what to ask it: `{encrypt: {to, text}, seal}`
/// (NIP-44 encrypt `text` to `to`, put it in the seal's content, `signEvent` the seal); its
/// answer then goes through [`sealed_by_extension`].
pub(crate) fn private(
    (me, keys): &(PublicKey, Option<Keys>),
    to: &PublicKey,
    text: &str,
    tags: Vec<Tag>,
    events: &str,
    relays: &[String],
    what: &str,
) -> Result<Value, String> {
    let rumor = rumor(me, to, text, tags);
    let Some(keys) = keys else {
        let seal = seal_template(me, &rumor);
        return Ok(json!({
            "encrypt": {"to": to.to_hex(), "text": seal.content},
            "seal": crate::signer::for_signing(&seal),
        }));
    };
    let to_them = wrapped(keys, to, &rumor)?;
    let copy = wrapped(keys, me, &rumor)?;
    Ok(json!({"publish": [
        item(&to_them, route(relays, lists(events, to).for_messages()), what),
        item(&copy, route(relays, lists(events, me).for_messages()), "copy"),
    ]}))
}

/// The seal a signer extension signed for [`private`]'s request (its signature checked by
/// [`crate::signer::signed_by`]), checked (a seal, encrypted) and wrapped to `to`:
/// `{publish: [{event, relays, what}]}`.
pub(crate) fn sealed_by_extension(
    ev: &Event,
    to: &PublicKey,
    theirs: &RelayLists,
    relays: &[String],
    what: &str,
) -> Result<Value, String> {
    if ev.kind != Kind::Seal || !ev.tags.is_empty() {
        return Err(
            "your signer extension signed something other than the sealed message: nothing sent"
                .into(),
        );
    }
    // Only the recipient can open it, but it must at least be a NIP-44 (version 2) payload: a
    // seal holding the plain text, or garbage, would be sent and never read.
    let payload = tolerance::fair::from_base64("sealed message", &ev.content).ok();
    if !payload.is_some_and(|p| p.first() == Some(&2) && (99..=65_603).contains(&p.len())) {
        return Err(
            "your signer extension did not encrypt the message (NIP-44): nothing sent".into(),
        );
    }
    let wrap = EventBuilder::gift_wrap_from_seal(to, ev, [])
        .map_err(|e| format!("the message could not be wrapped: {e}"))?;
    Ok(json!({"publish": [item(&wrap, route(relays, theirs.for_messages()), what)]}))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a signer extension gives back is wrapped only when it is a seal whose content is
    /// encrypted: the plain rumor, or a note, is refused in words and nothing is sent.
    #[test]
    fn an_extensions_answer_is_wrapped_only_when_it_is_an_encrypted_seal() {
        let identity = Keys::generate();
        let to = Keys::generate().public_key();
        let rumor = rumor(&identity.public_key(), &to, "come and play", Vec::new());
        let encrypted = nip44::encrypt(
            identity.secret_key(),
            &to,
            rumor.as_json(),
            nip44::Version::default(),
        )
        .unwrap();
        let lists = RelayLists::from_events(&[], &to);
        let relays = vec!["ws://127.0.0.1:1".to_string()];
        let check = |ev: &Event| sealed_by_extension(ev, &to, &lists, &relays, "invitation");
        let good = seal(encrypted).sign_with_keys(&identity).unwrap();
        let out = check(&good).unwrap();
        assert_eq!(out["publish"][0]["what"], "invitation");
        let wrap = Event::from_json(out["publish"][0]["event"].to_string()).unwrap();
        assert_eq!(wrap.kind, Kind::GiftWrap);
        assert!(wrap.tags.public_keys().any(|p| *p == to));
        let plain = seal(rumor.as_json()).sign_with_keys(&identity).unwrap();
        assert!(check(&plain).unwrap_err().contains("did not encrypt"));
        let note = EventBuilder::text_note("hi")
            .sign_with_keys(&identity)
            .unwrap();
        assert!(check(&note).unwrap_err().contains("something other than"));
    }
}
