//! The page's own key, for a person without a signer extension: made or imported here, kept in
//! the browser's storage only as NIP-49 (`ncryptsec1…`, the password through scrypt), and held
//! unlocked in this module's memory for the visit. The secret never reaches the page's script
//! except when the person asks to export it.
//!
//! The JavaScript keeps the `ncryptsec` and the `npub` in `localStorage`; everything that reads,
//! checks or decrypts a key is here.

use nostr::nips::nip49::{self, EncryptedSecretKey, KeySecurity};
use nostr::prelude::*;
use serde_json::json;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// scrypt's cost, as the terminal's `keys new` uses (2^16 rounds, 64 MiB).
const LOG_N: u8 = 16;

/// The shortest password the page takes for a key it keeps.
pub const MIN_PASSWORD: usize = 8;

thread_local! {
    /// The unlocked key of this visit, if any.
    static UNLOCKED: RefCell<Option<Keys>> = const { RefCell::new(None) };
}

/// A key made or imported, and its secret encrypted as the page keeps it.
#[derive(Debug)]
pub struct Kept {
    pub keys: Keys,
    pub ncryptsec: String,
}

impl Kept {
    fn json(&self) -> String {
        let mut out = public(&self.keys);
        out["ncryptsec"] = json!(self.ncryptsec);
        out.to_string()
    }
}

/// A key's public halves, as the page shows and queries them: `{npub, hex}`.
fn public(keys: &Keys) -> serde_json::Value {
    json!({
        "npub": keys.public_key().to_bech32().expect("bech32"),
        "hex": keys.public_key().to_hex(),
    })
}

fn check_password(password: &str) -> Result<(), String> {
    if password.chars().count() < MIN_PASSWORD {
        return Err(format!(
            "choose a password of at least {MIN_PASSWORD} characters: the key is kept in this \
             browser encrypted with it"
        ));
    }
    Ok(())
}

fn encrypt(keys: &Keys, password: &str, security: KeySecurity) -> Result<String, String> {
    let enc = EncryptedSecretKey::new(keys.secret_key(), password, LOG_N, security)
        .map_err(|e| format!("the key could not be encrypted: {e}"))?;
    Ok(enc.to_bech32().expect("bech32"))
}

/// A new key, encrypted with `password`.
pub fn make(password: &str) -> Result<Kept, String> {
    check_password(password)?;
    let keys = Keys::generate();
    let ncryptsec = encrypt(&keys, password, KeySecurity::Medium)?;
    Ok(Kept { keys, ncryptsec })
}

/// Why a password did not open an `ncryptsec`, in words.
fn decrypt_error(e: nip49::Error) -> String {
    match e {
        nip49::Error::ChaCha20Poly1305(_) => "this password does not open the key".to_string(),
        nip49::Error::LogNTooBig { log_n, max_log_n } => format!(
            "this encrypted key asks scrypt for 2^{log_n} rounds; the page allows at most \
             2^{max_log_n}, to keep the browser's memory"
        ),
        other => format!("the encrypted key is damaged ({other})"),
    }
}

fn parse_ncryptsec(text: &str) -> Result<EncryptedSecretKey, String> {
    EncryptedSecretKey::from_bech32(text.trim()).map_err(|_| {
        "that is not a whole ncryptsec1… key: a character may have been mistyped or cut off"
            .to_string()
    })
}

/// Opens the kept `ncryptsec` with `password`.
pub fn open(ncryptsec: &str, password: &str) -> Result<Keys, String> {
    let enc = parse_ncryptsec(ncryptsec)?;
    let secret = enc.decrypt(password).map_err(decrypt_error)?;
    Ok(Keys::new(secret))
}

/// A key the person brings: an `nsec1…` (or 64 hex digits), then kept encrypted with
/// `password`, or an `ncryptsec1…` that `password` must open, then kept as it came. The text
/// pasted is never repeated in an error: it may be a secret.
pub fn import(text: &str, password: &str) -> Result<Kept, String> {
    let text = text.trim();
    if text.starts_with("ncryptsec1") {
        let keys = open(text, password)?;
        return Ok(Kept {
            keys,
            ncryptsec: text.to_string(),
        });
    }
    if text.starts_with("npub1") {
        return Err(
            "that is a public key (npub1…): a key to sign with is an nsec1… or an \
                    ncryptsec1…"
                .to_string(),
        );
    }
    let secret = SecretKey::parse(text).map_err(|_| {
        "that is neither an nsec1… nor an ncryptsec1… key: a character may have been mistyped \
         or cut off"
            .to_string()
    })?;
    check_password(password)?;
    let keys = Keys::new(secret);
    // It was seen in the clear (pasted), which NIP-49 asks to record.
    let ncryptsec = encrypt(&keys, password, KeySecurity::Weak)?;
    Ok(Kept { keys, ncryptsec })
}

fn hold(keys: Keys) {
    UNLOCKED.with(|k| *k.borrow_mut() = Some(keys));
}

/// Unlocks `keys` (or locks) as a test would have the person do.
#[cfg(test)]
pub(crate) fn set_unlocked(keys: Option<Keys>) {
    UNLOCKED.with(|k| *k.borrow_mut() = keys);
}

/// A key for a bot seat, held as this core's unlocked key: each bot runs in a worker with a core
/// of its own, so the person's key is never in it. A fresh key, or with `secret` (hex) the key
/// the bot played with before a reload. `{npub, hex, secret}` (the page keeps the secret sealed
/// by the table key, so that a reload takes the bot back) and the bot's profile (`name`) signed
/// by it, for the table to name the bot.
#[wasm_bindgen]
pub fn bot_key(name: &str, secret: Option<String>) -> Result<String, JsError> {
    let keys = match secret {
        Some(s) => Keys::parse(&s).map_err(|_| JsError::new("the bot's kept key is damaged"))?,
        None => Keys::generate(),
    };
    let profile = EventBuilder::metadata(&Metadata::new().name(name))
        .sign_with_keys(&keys)
        .map_err(|e| JsError::new(&format!("the bot's key could not sign: {e}")))?;
    let mut out = public(&keys);
    out["profile"] = serde_json::from_str(&profile.as_json()).expect("events serialize");
    out["secret"] = serde_json::Value::String(keys.secret_key().to_secret_hex());
    hold(keys);
    Ok(out.to_string())
}

/// The unlocked key of this visit, for the page's other parts (signing at a table).
pub fn unlocked() -> Option<Keys> {
    UNLOCKED.with(|k| k.borrow().clone())
}

/// Unlocks a key just made or imported: `{npub, hex, ncryptsec}` for the page to keep.
fn unlock_kept(kept: Result<Kept, String>) -> Result<String, JsError> {
    let kept = kept.map_err(|e| JsError::new(&e))?;
    let out = kept.json();
    hold(kept.keys);
    Ok(out)
}

/// Makes a key and unlocks it: `{npub, hex, ncryptsec}` for the page to keep.
#[wasm_bindgen]
pub fn key_make(password: &str) -> Result<String, JsError> {
    unlock_kept(make(password))
}

/// Imports a key and unlocks it: `{npub, hex, ncryptsec}` for the page to keep.
#[wasm_bindgen]
pub fn key_import(text: &str, password: &str) -> Result<String, JsError> {
    unlock_kept(import(text, password))
}

/// Unlocks the kept key: `{npub, hex}`.
#[wasm_bindgen]
pub fn key_unlock(ncryptsec: &str, password: &str) -> Result<String, JsError> {
    let keys = open(ncryptsec, password).map_err(|e| JsError::new(&e))?;
    let out = public(&keys).to_string();
    hold(keys);
    Ok(out)
}

/// The unlocked key's `{npub, hex}`, if a key is unlocked.
#[wasm_bindgen]
pub fn key_unlocked() -> Option<String> {
    unlocked().map(|k| public(&k).to_string())
}

/// The unlocked key's `nsec`, for the person who asks to export it.
#[wasm_bindgen]
pub fn key_export_nsec() -> Result<String, JsError> {
    unlocked()
        .map(|k| k.secret_key().to_bech32().expect("bech32"))
        .ok_or_else(|| JsError::new("no key is unlocked in this page"))
}

/// Forgets the unlocked key (the kept `ncryptsec` stays until the page removes it).
#[wasm_bindgen]
pub fn key_lock() {
    UNLOCKED.with(|k| *k.borrow_mut() = None);
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWORD: &str = "correct horse";

    #[test]
    fn a_made_key_opens_with_its_password_and_not_another() {
        let kept = make(PASSWORD).unwrap();
        assert!(kept.ncryptsec.starts_with("ncryptsec1"));
        let opened = open(&kept.ncryptsec, PASSWORD).unwrap();
        assert_eq!(opened.public_key(), kept.keys.public_key());
        let e = open(&kept.ncryptsec, "wrong horse").unwrap_err();
        assert_eq!(e, "this password does not open the key");
        let mut cut = kept.ncryptsec.clone();
        cut.truncate(40);
        assert!(open(&cut, PASSWORD)
            .unwrap_err()
            .contains("mistyped or cut off"));
    }

    #[test]
    fn short_passwords_are_refused_in_words() {
        let e = make("short").unwrap_err();
        assert!(e.contains("at least 8 characters"), "{e}");
        let nsec = Keys::generate().secret_key().to_bech32().unwrap();
        assert!(import(&nsec, "").unwrap_err().contains("at least 8"));
    }

    #[test]
    fn an_imported_nsec_or_ncryptsec_is_the_same_key() {
        let keys = Keys::generate();
        let nsec = keys.secret_key().to_bech32().unwrap();
        let kept = import(&format!("  {nsec}\n"), PASSWORD).unwrap();
        assert_eq!(kept.keys.public_key(), keys.public_key());
        let enc = parse_ncryptsec(&kept.ncryptsec).unwrap();
        assert_eq!(enc.key_security(), KeySecurity::Weak);

        let again = import(&kept.ncryptsec, PASSWORD).unwrap();
        assert_eq!(again.keys.public_key(), keys.public_key());
        assert_eq!(again.ncryptsec, kept.ncryptsec);
        assert_eq!(
            import(&kept.ncryptsec, "not the password").unwrap_err(),
            "this password does not open the key"
        );
    }

    #[test]
    fn bad_imports_are_said_without_repeating_the_secret() {
        let nsec = Keys::generate().secret_key().to_bech32().unwrap();
        // One character changed (bech32's checksum catches any single change); a random key
        // may already end in the replacement, so it is picked to differ.
        let last = if nsec.ends_with('x') { 'q' } else { 'x' };
        let typo = format!("{}{last}", &nsec[..nsec.len() - 1]);
        let e = import(&typo, PASSWORD).unwrap_err();
        assert!(e.contains("neither an nsec1"), "{e}");
        assert!(!e.contains(&typo[5..20]), "{e}");
        let npub = Keys::generate().public_key().to_bech32().unwrap();
        assert!(import(&npub, PASSWORD).unwrap_err().contains("public key"));
        assert!(import("", PASSWORD).unwrap_err().contains("neither"));
    }

    #[test]
    fn the_unlocked_key_is_held_and_forgotten() {
        key_lock();
        assert!(key_unlocked().is_none());
        let kept = make(PASSWORD).unwrap();
        let opened = key_unlock(&kept.ncryptsec, PASSWORD).unwrap();
        assert_eq!(key_unlocked().as_deref(), Some(opened.as_str()));
        let v: serde_json::Value = serde_json::from_str(&opened).unwrap();
        assert_eq!(v["hex"], kept.keys.public_key().to_hex());
        let nsec = key_export_nsec().unwrap();
        assert_eq!(
            Keys::parse(&nsec).unwrap().public_key(),
            kept.keys.public_key()
        );
        key_lock();
        assert!(key_unlocked().is_none());
    }
}
