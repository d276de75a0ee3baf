//! Feedback to the game's author from the page, as `tolerance feedback` sends it: a private
//! NIP-17 message (gift-wrapped, NIP-59) with the feedback subject, or with "public" a kind-1
//! note that mentions the author. The recipient is the author's key unless the page's
//! `config.json` names another (`author` in the serving machine's `config.toml`, as for the
//! terminal).
//!
//! Where each event goes is decided here from the relay lists the script fetched (checked
//! here): the page's relays always, plus the recipient's NIP-17 inbox relays for a private
//! message, the sender's own inbox relays for the sender's copy, and the recipient's NIP-65
//! read relays for a public note (`tolerance::wire::feedback::RelayLists`).
//!
//! With the page's own key everything is signed here. With a signer extension the identity
//! signs: the extension encrypts and signs the seal (or signs the note), and this module checks
//! what it gave back and wraps the seal with a one-time key. No copy is kept for the sender
//! then: it would ask the extension to approve twice more.

use crate::private::{item, lists, private, route, sealed_by_extension};
use nostr::prelude::*;
use serde_json::{json, Value};
use tolerance::wire::feedback::{
    check_message, public_note, relay_lists_filter, AUTHOR_NPUB, DEFAULT_RELAYS, SUBJECT,
};
use wasm_bindgen::prelude::*;

fn npub(pk: &PublicKey) -> String {
    pk.to_bech32().expect("a public key always encodes")
}

/// Who feedback goes to: `configured` (the page's `config.json` `author`, an npub or hex key;
/// empty for the game's author). In words when it is not a key.
fn recipient(configured: &str) -> Result<PublicKey, String> {
    let text = configured.trim();
    let text = if text.is_empty() { AUTHOR_NPUB } else { text };
    PublicKey::parse(text).map_err(|_| {
        format!(
            "the page names '{text}' as the author to send feedback to, which is not a Nostr key"
        )
    })
}

/// The sender: the identity of a signer extension in use, else the page's unlocked key.
fn sender() -> Result<(PublicKey, Option<Keys>), String> {
    if let Some(id) = crate::signer::identity() {
        return Ok((id, None));
    }
    let keys = crate::key::unlocked()
        .ok_or("unlock your key (or use your signer extension) to send feedback: it is signed")?;
    Ok((keys.public_key(), Some(keys)))
}

/// What sending feedback needs first: `{to: {npub, hex}, filter, relays}`, where `filter` asks
/// for the relay lists of the recipient and of the sender (when a key is unlocked or a signer
/// extension in use), and `relays` are the relays to ask and send on when the page came with
/// none (the terminal's defaults).
#[wasm_bindgen]
pub fn feedback_plan(configured: &str) -> Result<String, JsError> {
    let plan = || -> Result<Value, String> {
        let to = recipient(configured)?;
        let mut who = vec![to];
        who.extend(sender().ok().map(|(me, _)| me));
        Ok(json!({
            "to": {"npub": npub(&to), "hex": to.to_hex()},
            "filter": relay_lists_filter(&who),
            "relays": DEFAULT_RELAYS,
        }))
    };
    plan().map(|v| v.to_string()).map_err(|e| JsError::new(&e))
}

pub(crate) fn relays_of(relays: &str) -> Result<Vec<String>, String> {
    let list: Vec<String> =
        serde_json::from_str(relays).map_err(|_| "no relay to send on".to_string())?;
    if list.is_empty() {
        return Err("no relay to send on".into());
    }
    Ok(list)
}

/// Feedback `text` to `to_hex` (from [`feedback_plan`]), privately unless `public`, routed by
/// the relay lists in `lists` (events) over `relays` (a JSON list). With the page's key:
/// `{publish: [{event, relays, what}]}`, `what` being `author`, `copy` (the sender's own copy
/// of a private message) or `note`. With a signer extension, what to ask it first: `{sign}`
/// (the note, for `signEvent`) or `{encrypt: {to, text}, seal}` (NIP-44 encrypt `text` to
/// `to`, put it in the seal's content, `signEvent` the seal); then [`feedback_signed`].
#[wasm_bindgen]
pub fn feedback_compose(
    text: &str,
    public: bool,
    to_hex: &str,
    lists: &str,
    relays: &str,
) -> Result<String, JsError> {
    compose(text, public, to_hex, lists, relays)
        .map(|v| v.to_string())
        .map_err(|e| JsError::new(&e))
}

fn compose(
    text: &str,
    public: bool,
    to_hex: &str,
    events: &str,
    relays: &str,
) -> Result<Value, String> {
    let text = check_message(text)?;
    let to = recipient(to_hex)?;
    let relays = relays_of(relays)?;
    let (me, keys) = sender()?;
    if public {
        let Some(keys) = keys else {
            let note = public_note(&to, &text).build(me);
            return Ok(json!({"sign": crate::signer::for_signing(&note)}));
        };
        let note = public_note(&to, &text)
            .sign_with_keys(&keys)
            .map_err(|e| format!("your key could not sign: {e}"))?;
        let theirs = lists(events, &to);
        return Ok(
            json!({"publish": [item(&note, route(&relays, theirs.for_mentions()), "note")]}),
        );
    }
    private(
        &(me, keys),
        &to,
        &text,
        subject(),
        events,
        &relays,
        "author",
    )
}

fn subject() -> Vec<Tag> {
    vec![tolerance::wire::subject(SUBJECT)]
}

/// What the signer extension gave back for [`feedback_compose`]'s request: the signed note, or
/// the signed seal (its content encrypted to the recipient). Checked (signed by the identity in
/// use, of the kind asked, the note's text the one composed) and routed as there:
/// `{publish: [{event, relays, what}]}`.
#[wasm_bindgen]
pub fn feedback_signed(
    signed: &str,
    text: &str,
    public: bool,
    to_hex: &str,
    listed: &str,
    relays: &str,
) -> Result<String, JsError> {
    let finish = || -> Result<Value, String> {
        let to = recipient(to_hex)?;
        let relays = relays_of(relays)?;
        let identity = crate::signer::identity().ok_or("no signer extension is in use")?;
        let ev = crate::signer::signed_by(signed, &identity)?;
        let theirs = lists(lists_or_empty(listed), &to);
        if public {
            let text = check_message(text)?;
            let expected = public_note(&to, &text).build(identity);
            if ev.kind != Kind::TextNote
                || ev.content != expected.content
                || ev.tags != expected.tags
            {
                return Err(
                    "your signer extension signed another note than the one composed: \
                            nothing sent"
                        .into(),
                );
            }
            return Ok(
                json!({"publish": [item(&ev, route(&relays, theirs.for_mentions()), "note")]}),
            );
        }
        sealed_by_extension(&ev, &to, &theirs, &relays, "author")
    };
    finish()
        .map(|v| v.to_string())
        .map_err(|e| JsError::new(&e))
}

pub(crate) fn lists_or_empty(lists: &str) -> &str {
    if lists.trim().is_empty() {
        "[]"
    } else {
        lists
    }
}

/// The outcome in words: `results` is `[{what, accepted: [url], refused: [[url, why]]}]`, one
/// per published item. Says to whom it went and which relays took it; an error in words when
/// no relay took the message itself.
#[wasm_bindgen]
pub fn feedback_words(results: &str, to_hex: &str) -> Result<String, JsError> {
    let words = || -> Result<Vec<String>, String> {
        let to = recipient(to_hex)?;
        let results: Vec<Value> =
            serde_json::from_str(results).map_err(|_| "no outcome to tell".to_string())?;
        let mut lines = Vec::new();
        let mut delivered = false;
        for r in &results {
            let what = r["what"].as_str().unwrap_or("");
            let accepted: Vec<&str> = r["accepted"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let refused: Vec<String> = r["refused"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|p| {
                            format!(
                                "{} ({})",
                                p[0].as_str().unwrap_or("a relay"),
                                p[1].as_str().unwrap_or("no reason given")
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let head = match what {
                "author" => format!("Sent privately (NIP-17) to {}", npub(&to)),
                "note" => format!("Posted a public note that mentions {}", npub(&to)),
                _ => "Your own copy of the message".to_string(),
            };
            if what != "copy" {
                delivered |= !accepted.is_empty();
            }
            let mut line = if accepted.is_empty() {
                format!("{head}: no relay took it")
            } else {
                format!("{head}: taken by {}", accepted.join(", "))
            };
            if !refused.is_empty() {
                line.push_str(&format!("; not by {}", refused.join(", ")));
            }
            lines.push(format!("{line}."));
        }
        if !delivered {
            return Err(format!("Nothing was delivered. {}", lines.join(" ")));
        }
        Ok(lines)
    };
    words().map(|l| l.join(" ")).map_err(|e| JsError::new(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::nips::nip44;

    #[test]
    fn the_author_is_the_games_unless_the_page_names_another_key() {
        assert_eq!(npub(&recipient("").unwrap()), AUTHOR_NPUB);
        let other = Keys::generate().public_key();
        assert_eq!(recipient(&npub(&other)).unwrap(), other);
        assert_eq!(recipient(&other.to_hex()).unwrap(), other);
        let err = recipient("Ana").unwrap_err();
        assert!(
            err.contains("'Ana'") && err.contains("not a Nostr key"),
            "{err}"
        );
    }

    #[test]
    fn a_message_sealed_here_opens_for_its_recipient_only_with_the_sender_and_subject() {
        let me = Keys::generate();
        let to = Keys::generate();
        let r = crate::private::rumor(
            &me.public_key(),
            &to.public_key(),
            "more dice, please",
            subject(),
        );
        let wrap = crate::private::wrapped(&me, &to.public_key(), &r).unwrap();
        assert_eq!(wrap.kind, Kind::GiftWrap);
        assert_ne!(wrap.pubkey, me.public_key(), "a one-time key wraps it");
        assert!(wrap.tags.public_keys().any(|p| *p == to.public_key()));
        let seal: Event =
            Event::from_json(nip44::decrypt(to.secret_key(), &wrap.pubkey, &wrap.content).unwrap())
                .unwrap();
        seal.verify().unwrap();
        assert_eq!(seal.pubkey, me.public_key());
        let inner: UnsignedEvent = UnsignedEvent::from_json(
            nip44::decrypt(to.secret_key(), &me.public_key(), &seal.content).unwrap(),
        )
        .unwrap();
        assert_eq!(inner.content, "more dice, please");
        assert_eq!(inner.pubkey, me.public_key());
        assert_eq!(inner.kind, Kind::PrivateDirectMessage);
        assert!(inner
            .tags
            .iter()
            .any(|t| t.as_slice() == ["subject", SUBJECT]));
        let stranger = Keys::generate();
        assert!(nip44::decrypt(stranger.secret_key(), &wrap.pubkey, &wrap.content).is_err());
    }

    #[test]
    fn only_the_keys_own_signed_lists_count_however_many_events_come_first() {
        let who = Keys::generate();
        let inbox = EventBuilder::new(Kind::InboxRelays, "")
            .tag(Tag::relay(RelayUrl::parse("wss://inbox.example").unwrap()))
            .sign_with_keys(&who)
            .unwrap();
        let mut forged: Value = serde_json::from_str(&inbox.as_json()).unwrap();
        forged["tags"] = json!([["relay", "wss://forged.example"]]);
        let junk = EventBuilder::text_note("junk")
            .sign_with_keys(&Keys::generate())
            .unwrap();
        let mut events: Vec<Value> = (0..1_000)
            .map(|_| serde_json::from_str(&junk.as_json()).unwrap())
            .collect();
        events.push(forged);
        events.push(serde_json::from_str(&inbox.as_json()).unwrap());
        let got = lists(&Value::Array(events).to_string(), &who.public_key());
        assert_eq!(
            got.for_messages()
                .iter()
                .map(|u| u.to_string())
                .collect::<Vec<_>>(),
            ["wss://inbox.example"]
        );
    }

    #[test]
    fn each_event_goes_to_the_pages_relays_and_the_lists_that_fit_it() {
        let page = vec!["ws://127.0.0.1:1".to_string()];
        let inbox = vec![
            RelayUrl::parse("wss://inbox.example").unwrap(),
            RelayUrl::parse("ws://127.0.0.1:1").unwrap(),
        ];
        assert_eq!(
            route(&page, &inbox),
            vec![
                "ws://127.0.0.1:1".to_string(),
                "wss://inbox.example".to_string()
            ]
        );
    }
}
