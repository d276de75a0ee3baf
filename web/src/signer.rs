//! Sitting down with a NIP-07 signer extension (PROTOCOL.md §2.3): the person's identity stays
//! in the extension, which asks them to approve each signature, so a table could not be played
//! with it directly. Instead the page makes a fresh **table key** for each table, the extension
//! signs one authorization naming it (kind 7770), and the table key signs everything else.
//!
//! The page's script talks to the extension (`window.nostr.getPublicKey`, `signEvent`,
//! `nip44.decrypt`); this module holds the identity it named, makes and keeps the table keys,
//! builds the authorization for the extension to sign and checks what comes back. A table
//! key's secret reaches the script only when the person takes a seat back after a reload: the
//! record seals it to the identity (NIP-44, the table key to the identity), and only the
//! extension can open it.

use nostr::nips::nip44;
use nostr::prelude::*;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use tolerance::wire::auth::{auth_event, check_auth};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

thread_local! {
    /// The identity a signer extension said is the person's, for this visit.
    static SIGNER: RefCell<Option<PublicKey>> = const { RefCell::new(None) };
    /// This visit's table keys, by table id.
    static TABLE_KEYS: RefCell<HashMap<String, Keys>> = RefCell::new(HashMap::new());
}

fn public(pk: &PublicKey) -> Value {
    json!({"npub": pk.to_bech32().expect("bech32"), "hex": pk.to_hex()})
}

/// The identity behind the signer in use, if any.
pub(crate) fn identity() -> Option<PublicKey> {
    SIGNER.with(|s| *s.borrow())
}

/// The key that holds (or asks for) a seat at `table`, and the identity that authorizes it: with
/// a signer, this visit's table key for that table (made on first use); without one, the page's
/// own unlocked key, which is its own identity.
pub(crate) fn seat_key(table: &str) -> Result<(Keys, Option<PublicKey>), String> {
    match identity() {
        Some(id) => {
            let keys = TABLE_KEYS.with(|t| {
                t.borrow_mut()
                    .entry(table.to_string())
                    .or_insert_with(Keys::generate)
                    .clone()
            });
            Ok((keys, Some(id)))
        }
        None => crate::key::unlocked()
            .map(|k| (k, None))
            .ok_or_else(|| "unlock your key first: a seat signs every move with it".into()),
    }
}

/// The unsigned authorization of `table_key` at `host`'s `table` until `expires`, as NIP-07's
/// `signEvent` takes it: `{kind, created_at, tags, content, pubkey}`.
pub(crate) fn request(
    identity: &PublicKey,
    table_key: &PublicKey,
    host: &PublicKey,
    table: &str,
    now: u64,
    expires: u64,
) -> Value {
    let unsigned = auth_event(table_key, host, table, expires)
        .custom_created_at(Timestamp::from(now))
        .build(*identity);
    for_signing(&unsigned)
}

/// An unsigned event as NIP-07's `signEvent` takes it: `{kind, created_at, tags, content,
/// pubkey}`.
pub(crate) fn for_signing(unsigned: &UnsignedEvent) -> Value {
    json!({
        "kind": unsigned.kind.as_u16(),
        "created_at": unsigned.created_at.as_secs(),
        "tags": unsigned.tags.iter().map(|t| t.as_slice().to_vec()).collect::<Vec<_>>(),
        "content": unsigned.content,
        "pubkey": unsigned.pubkey.to_hex(),
    })
}

/// The event the extension gave back for a `signEvent` request, signed with `identity`, the key
/// it said is the person's, its signature valid. In words when it is not.
pub(crate) fn signed_by(signed: &str, identity: &PublicKey) -> Result<Event, String> {
    let ev = Event::from_json(signed).map_err(|_| {
        "your signer extension answered with something that is not a signed Nostr event".to_string()
    })?;
    let named = |k: &PublicKey| k.to_bech32().unwrap_or_default();
    if ev.pubkey != *identity {
        return Err(format!(
            "your signer extension signed with {}, not with {}, the key it said is yours",
            named(&ev.pubkey),
            named(identity)
        ));
    }
    if ev.verify().is_err() {
        return Err(format!(
            "your signer extension's answer is not signed by {}, the key it said is yours",
            named(identity)
        ));
    }
    Ok(ev)
}

/// What the extension gave back for [`request`]: an authorization of `table_key` at `host`'s
/// `table`, signed by `identity`, still good at `now`. In words when it is not.
pub(crate) fn accept(
    signed: &str,
    identity: &PublicKey,
    table_key: &PublicKey,
    host: &PublicKey,
    table: &str,
    now: u64,
) -> Result<Event, String> {
    let ev = signed_by(signed, identity)?;
    check_auth(&ev, host, table, table_key, now)
        .map_err(|e| format!("your signer extension's answer cannot seat you: {e}"))?;
    Ok(ev)
}

/// The table key's secret sealed to the identity (NIP-44 from the table key), for the record a
/// reload takes the seat back from: `{key, identity, sealed}`.
pub(crate) fn seal(keys: &Keys, identity: &PublicKey) -> Result<Value, String> {
    let secret = Zeroizing::new(keys.secret_key().to_secret_hex());
    let sealed = nip44::encrypt(
        keys.secret_key(),
        identity,
        secret.as_str(),
        nip44::Version::V2,
    )
    .map_err(|e| format!("the table key could not be kept: {e}"))?;
    Ok(json!({
        "key": keys.public_key().to_hex(),
        "identity": identity.to_hex(),
        "sealed": sealed,
    }))
}

/// The page will sign with the extension whose identity is `pubkey` (what its `getPublicKey`
/// answered, hex or npub): `{npub, hex}`.
#[wasm_bindgen]
pub fn signer_use(pubkey: &str) -> Result<String, JsError> {
    let pk = PublicKey::parse(pubkey.trim()).map_err(|_| {
        JsError::new(&format!(
            "your signer extension named '{}' as your key, which is not a public key",
            pubkey.chars().take(80).collect::<String>()
        ))
    })?;
    SIGNER.with(|s| *s.borrow_mut() = Some(pk));
    Ok(public(&pk).to_string())
}

/// The identity of the signer in use, `{npub, hex}`, or `null`.
#[wasm_bindgen]
pub fn signer_identity() -> Option<String> {
    identity().map(|pk| public(&pk).to_string())
}

/// Stops signing with the extension (table keys already made stay for the seats they hold).
#[wasm_bindgen]
pub fn signer_forget() {
    SIGNER.with(|s| *s.borrow_mut() = None);
}

/// Takes back a table key after a reload: `secret` is what the extension's `nip44.decrypt`
/// opened from the record's `sealed` (hex or nsec); it must be the record's `key`.
#[wasm_bindgen]
pub fn signer_restore(table: &str, key: &str, secret: &str) -> Result<(), JsError> {
    let restore = || -> Result<(), String> {
        let lost = "your signer extension could not open this browser's record of the seat's key";
        let sk = SecretKey::parse(secret.trim()).map_err(|_| lost.to_string())?;
        let keys = Keys::new(sk);
        if keys.public_key().to_hex() != key {
            return Err(lost.into());
        }
        TABLE_KEYS.with(|t| t.borrow_mut().insert(table.to_string(), keys));
        Ok(())
    };
    restore().map_err(|e| JsError::new(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extensions_signature_seats_the_table_key_and_nothing_else() {
        let id = Keys::generate();
        let host = Keys::generate().public_key();
        let tk = Keys::generate();
        let table = "ab".repeat(32);
        let req = request(
            &id.public_key(),
            &tk.public_key(),
            &host,
            &table,
            1_000,
            9_000,
        );
        // What an extension does with the request: sign it as the identity.
        let sign = |v: &Value, keys: &Keys| -> String {
            let tags: Vec<Tag> = v["tags"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    let parts: Vec<String> = serde_json::from_value(t.clone()).unwrap();
                    Tag::parse(parts).unwrap()
                })
                .collect();
            EventBuilder::new(
                Kind::from(v["kind"].as_u64().unwrap() as u16),
                v["content"].as_str().unwrap(),
            )
            .tags(tags)
            .custom_created_at(Timestamp::from(v["created_at"].as_u64().unwrap()))
            .sign_with_keys(keys)
            .unwrap()
            .as_json()
        };
        let signed = sign(&req, &id);
        let ok = accept(
            &signed,
            &id.public_key(),
            &tk.public_key(),
            &host,
            &table,
            1_000,
        );
        assert_eq!(ok.unwrap().pubkey, id.public_key());
        // Signed by another key than the one the extension named; for another table key;
        // expired; not an event at all.
        let other = sign(&req, &Keys::generate());
        let (tk, me) = (tk.public_key(), id.public_key());
        for (answer, key, at, words) in [
            (other.as_str(), tk, 1_000, "not with npub1"),
            (signed.as_str(), me, 1_000, "names the key"),
            (signed.as_str(), tk, 9_000, "expired"),
            ("{}", tk, 1_000, "not a signed Nostr event"),
        ] {
            let e = accept(answer, &me, &key, &host, &table, at).unwrap_err();
            assert!(e.contains(words), "{words}: {e}");
        }
    }

    #[test]
    fn a_sealed_table_key_opens_only_for_its_identity() {
        let id = Keys::generate();
        let tk = Keys::generate();
        let kept = seal(&tk, &id.public_key()).unwrap();
        let sealed = kept["sealed"].as_str().unwrap();
        let opened = nip44::decrypt(id.secret_key(), &tk.public_key(), sealed).unwrap();
        assert_eq!(opened, tk.secret_key().to_secret_hex());
        let stranger = Keys::generate();
        assert!(nip44::decrypt(stranger.secret_key(), &tk.public_key(), sealed).is_err());
        signer_restore("t", &tk.public_key().to_hex(), &opened).unwrap();
        let (back, _) = TABLE_KEYS.with(|t| (t.borrow()["t"].clone(), ()));
        assert_eq!(back.public_key(), tk.public_key());
    }
}
