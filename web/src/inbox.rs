//! Invitations to the person at the page: NIP-17 private messages (gift-wrapped, NIP-59)
//! addressed to their key that name a table, as `tolerance tables` lists them. With the page's
//! own key both layers are opened here ([`open_invitations`]); with a signer extension the
//! script has the extension open them (its `nip44.decrypt`) and this module checks what came
//! out ([`invitation_opened`]): the seal signed, and by the rumor's author, so nobody can send
//! an invitation in another person's name. The script then fetches the tables' announcements
//! ([`invited_tables_filter`]) and [`invited_tables`] lists those still worth opening.
//!
//! Relays that serve gift wraps only to their recipient (NIP-42) are answered with
//! [`auth_event`] (or the extension's signature of [`auth_request`]).

use nostr::nips::nip44;
use nostr::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tolerance::wire::{self, LobbyStatus};
use wasm_bindgen::prelude::*;

/// Most gift wraps opened per look: an inbox flooded by strangers must not hold the page.
const MAX_WRAPS: usize = 500;

/// A table an invitation names, and who sent it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Invitation {
    /// The table's announcing key (hex) and id.
    host: String,
    table: String,
    /// The sender (hex): the seal's signer, who wrote the message.
    from: String,
    /// When the sender wrote it (the rumor's time; a wrap's own is randomised).
    at: u64,
}

/// The person's key: the signer extension's identity, else the page's own unlocked key.
fn me() -> Result<PublicKey, String> {
    crate::signer::identity()
        .or_else(|| crate::key::unlocked().map(|k| k.public_key()))
        .ok_or_else(|| "unlock your key, or use your signer extension, to read invitations".into())
}

/// The query for gift wraps addressed to the person.
#[wasm_bindgen]
pub fn inbox_filter() -> Result<String, JsError> {
    let me = me().map_err(|e| JsError::new(&e))?;
    // The newest messages are enough: invitations to tables still open are recent.
    Ok(json!({"kinds": [1059], "#p": [me.to_hex()], "limit": 200}).to_string())
}

/// The tables a checked message names: its `a` tags for table announcements. Our own copies of
/// invitations we sent name none for us.
fn named_tables(seal: &Event, rumor: &UnsignedEvent, me: &PublicKey) -> Vec<Invitation> {
    if seal.pubkey == *me {
        return Vec::new();
    }
    wire::lobby::invited_tables(&rumor.tags)
        .into_iter()
        .map(|c| Invitation {
            host: c.public_key.to_hex(),
            table: c.identifier.clone(),
            from: seal.pubkey.to_hex(),
            at: rumor.created_at.as_secs(),
        })
        .collect()
}

/// The seal and rumor as opened, checked: a signed seal (kind 13) by the rumor's author, and a
/// rumor whose id holds.
fn checked(seal: &str, rumor: &str) -> Result<(Event, UnsignedEvent), String> {
    let seal = Event::from_json(seal).map_err(|_| "a message whose seal is not an event")?;
    if seal.kind != Kind::Seal || seal.verify().is_err() {
        return Err("a message whose seal is not signed".into());
    }
    let rumor =
        UnsignedEvent::from_json(rumor).map_err(|_| "a message whose content is not an event")?;
    if rumor.pubkey != seal.pubkey {
        return Err("a message sealed by someone other than its author".into());
    }
    if rumor.verify_id().is_err() {
        return Err("a message whose id does not hold".into());
    }
    Ok((seal, rumor))
}

/// Every invitation among `wraps` (a JSON array of gift wraps), opened with the page's own key:
/// `{invitations: [{host, table, from}], refused}` — `refused` counts the wraps that did not
/// open or did not check out.
#[wasm_bindgen]
pub fn open_invitations(wraps: &str) -> Result<String, JsError> {
    let keys = crate::key::unlocked()
        .ok_or_else(|| JsError::new("unlock your key to read the invitations sent to it"))?;
    let me = keys.public_key();
    let mut invitations = Vec::new();
    let mut refused = 0;
    for wrap in crate::parse_events_up_to(wraps, MAX_WRAPS) {
        let opened = || -> Result<Vec<Invitation>, String> {
            if wrap.kind != Kind::GiftWrap || wrap.verify().is_err() {
                return Err("not a gift wrap".into());
            }
            let seal = nip44::decrypt(keys.secret_key(), &wrap.pubkey, &wrap.content)
                .map_err(|e| e.to_string())?;
            let seal_ev = Event::from_json(&seal).map_err(|e| e.to_string())?;
            let rumor = nip44::decrypt(keys.secret_key(), &seal_ev.pubkey, &seal_ev.content)
                .map_err(|e| e.to_string())?;
            let (seal, rumor) = checked(&seal, &rumor)?;
            Ok(named_tables(&seal, &rumor, &me))
        };
        match opened() {
            Ok(found) => invitations.extend(found),
            Err(_) => refused += 1,
        }
    }
    let mut seen = std::collections::HashSet::new();
    invitations.retain(|i| seen.insert(i.clone()));
    Ok(json!({"invitations": invitations, "refused": refused}).to_string())
}

/// What the signer extension opened of one gift wrap (`seal`, then `rumor`, as it decrypted
/// them), checked: the invitations it holds (`[{host, table, from}]`), or why it is refused.
#[wasm_bindgen]
pub fn invitation_opened(seal: &str, rumor: &str) -> Result<String, JsError> {
    let me = me().map_err(|e| JsError::new(&e))?;
    let (seal, rumor) = checked(seal, rumor).map_err(|e| JsError::new(&e))?;
    Ok(serde_json::to_string(&named_tables(&seal, &rumor, &me)).expect("invitations serialize"))
}

/// The query for the announcements of the invited tables (`invitations` as listed above).
#[wasm_bindgen]
pub fn invited_tables_filter(invitations: &str) -> String {
    let inv: Vec<Invitation> = serde_json::from_str(invitations).unwrap_or_default();
    let hosts: Vec<&str> = inv.iter().map(|i| i.host.as_str()).collect();
    let tables: Vec<&str> = inv.iter().map(|i| i.table.as_str()).collect();
    json!({"kinds": [wire::KIND_TABLE], "authors": hosts, "#d": tables}).to_string()
}

/// The invited tables among `events` at `now` (Unix seconds), newest invitation first, each
/// table once: the listing of [`crate::open_tables`] with `from`
/// (`host` and `from` hex). A table whose lobby expired unstarted is left out: there is nothing
/// to join (relays need not delete expired events, NIP-40).
#[wasm_bindgen]
pub fn invited_tables(invitations: &str, events: &str, now: f64) -> String {
    let mut inv: Vec<Invitation> = serde_json::from_str(invitations).unwrap_or_default();
    inv.sort_by_key(|i| std::cmp::Reverse(i.at));
    let tables = wire::lobby::newest_announcements(&crate::parse_events(events));
    let mut seen = std::collections::HashSet::new();
    let out: Vec<Value> = inv
        .iter()
        .filter(|i| seen.insert((i.host.clone(), i.table.clone())))
        .filter_map(|i| {
            let (ev, spec) = tables
                .iter()
                .find(|(ev, spec)| ev.pubkey.to_hex() == i.host && spec.table == i.table)?;
            let l = spec.lobby.as_ref()?;
            let expired =
                l.status == LobbyStatus::Open && l.expires.is_some_and(|t| t <= now as u64);
            if expired {
                return None;
            }
            let mut listed = crate::listing(&crate::view(spec, &ev.pubkey, &l.relays));
            listed["from"] = json!(i.from);
            Some(listed)
        })
        .collect();
    Value::Array(out).to_string()
}

/// A NIP-42 answer to `challenge` from `relay`, signed by the page's own key.
#[wasm_bindgen]
pub fn auth_event(relay: &str, challenge: &str) -> Result<String, JsError> {
    let keys = crate::key::unlocked()
        .ok_or_else(|| JsError::new("unlock your key to answer the relay's sign-in"))?;
    let url = RelayUrl::parse(relay).map_err(|e| JsError::new(&e.to_string()))?;
    let ev = EventBuilder::auth(challenge, url)
        .sign_with_keys(&keys)
        .map_err(|e| JsError::new(&format!("your key could not sign in to {relay}: {e}")))?;
    Ok(ev.as_json())
}

/// The same answer unsigned, for the signer extension's `signEvent`.
#[wasm_bindgen]
pub fn auth_request(relay: &str, challenge: &str) -> Result<String, JsError> {
    let me = me().map_err(|e| JsError::new(&e))?;
    let url = RelayUrl::parse(relay).map_err(|e| JsError::new(&e.to_string()))?;
    let unsigned = EventBuilder::auth(challenge, url).build(me);
    Ok(crate::signer::for_signing(&unsigned).to_string())
}

/// The extension's signature of [`auth_request`], checked to be the identity's.
#[wasm_bindgen]
pub fn auth_signed(signed: &str) -> Result<String, JsError> {
    let me = me().map_err(|e| JsError::new(&e))?;
    let ev = crate::signer::signed_by(signed, &me).map_err(|e| JsError::new(&e))?;
    Ok(ev.as_json())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invitation(from: &Keys, to: &PublicKey, host: &PublicKey, table: &str) -> UnsignedEvent {
        crate::private::rumor(
            &from.public_key(),
            to,
            "join my table",
            tolerance::table::host::invitation_tags(host, table),
        )
    }

    fn seal_and_rumor(from: &Keys, to: &PublicKey, rumor: &UnsignedEvent) -> (String, String) {
        let seal =
            nip44::encrypt(from.secret_key(), to, rumor.as_json(), nip44::Version::V2).unwrap();
        let seal = EventBuilder::new(Kind::Seal, seal)
            .sign_with_keys(from)
            .unwrap();
        (seal.as_json(), rumor.as_json())
    }

    /// An invitation names its table and its sender; a seal signed by someone other than the
    /// message's author, or not signed at all, is refused; our own copy names nothing.
    #[test]
    fn an_invitation_names_its_table_and_only_its_author_can_send_it() {
        let (ana, me, mallory) = (Keys::generate(), Keys::generate(), Keys::generate());
        let table = "ab".repeat(32);
        let rumor = invitation(&ana, &me.public_key(), &ana.public_key(), &table);
        let (seal, text) = seal_and_rumor(&ana, &me.public_key(), &rumor);
        let (seal_ev, rumor_ev) = checked(&seal, &text).unwrap();
        assert_eq!(
            named_tables(&seal_ev, &rumor_ev, &me.public_key()),
            vec![Invitation {
                host: ana.public_key().to_hex(),
                table: table.clone(),
                from: ana.public_key().to_hex(),
                at: rumor.created_at.as_secs(),
            }]
        );
        // Ana's own copy lists nothing for her.
        assert!(named_tables(&seal_ev, &rumor_ev, &ana.public_key()).is_empty());
        // Mallory seals a message that claims Ana wrote it.
        let (forged, _) = seal_and_rumor(&mallory, &me.public_key(), &rumor);
        let err = checked(&forged, &text).unwrap_err();
        assert!(err.contains("someone other than its author"), "{err}");
        let mut unsigned: Value = serde_json::from_str(&seal).unwrap();
        unsigned["sig"] = json!("00".repeat(64));
        assert!(checked(&unsigned.to_string(), &text).is_err());
    }

    /// Opened with the page's key from real gift wraps: the invitation is listed once however
    /// many copies came, and a wrap for someone else is refused, not fatal.
    #[test]
    fn the_page_key_opens_its_gift_wraps() {
        let (ana, me, bo) = (Keys::generate(), Keys::generate(), Keys::generate());
        crate::key::set_unlocked(Some(me.clone()));
        let table = "cd".repeat(32);
        let rumor = invitation(&ana, &me.public_key(), &ana.public_key(), &table);
        let wrap = |to: &PublicKey| crate::private::wrapped(&ana, to, &rumor).unwrap().as_json();
        let mine = wrap(&me.public_key());
        let wraps = format!("[{mine},{mine},{}]", wrap(&bo.public_key()));
        let out: Value = serde_json::from_str(&open_invitations(&wraps).unwrap()).unwrap();
        assert_eq!(out["invitations"].as_array().unwrap().len(), 1, "{out}");
        assert_eq!(out["refused"], json!(1), "{out}");
        crate::key::set_unlocked(None);
    }
}
