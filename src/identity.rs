//! A player's Nostr identity on this machine: generated or imported, stored encrypted with a
//! passphrase (NIP-49 `ncryptsec`), or — only when the user opts out — as a plain `nsec` in a
//! file only its owner can read.

use nostr_sdk::nips::nip49::{EncryptedSecretKey, KeySecurity};
use nostr_sdk::prelude::*;
use std::path::{Path, PathBuf};

/// scrypt cost of the stored key (2^16: ~64 MiB and a fraction of a second to unlock).
const LOG_N: u8 = 16;
/// Environment variable a script can set instead of typing the passphrase.
pub const PASSPHRASE_ENV: &str = "TOLERANCE_PASSPHRASE";

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("no identity at {0}: create one with `tolerance keys new` or `tolerance keys import`")]
    Missing(PathBuf),
    #[error("an identity already exists at {0}; pass --force to replace it")]
    Exists(PathBuf),
    #[error("wrong passphrase for {0}")]
    WrongPassphrase(PathBuf),
    #[error("a passphrase is needed for {0}: set {PASSPHRASE_ENV} or type it")]
    NoPassphrase(PathBuf),
    #[error("'{0}' is not a secret key: give an nsec1… or 64 hex digits")]
    BadSecret(String),
    #[error("'{0}' is not a public key: give an npub1… or 64 hex digits")]
    BadPublic(String),
    #[error("{path} is not a stored identity: {reason}")]
    Corrupt { path: PathBuf, reason: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// `$TOLERANCE_HOME`, else `$XDG_CONFIG_HOME/tolerance`, else `~/.config/tolerance`.
pub fn config_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("TOLERANCE_HOME") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CONFIG_HOME") {
        return PathBuf::from(d).join("tolerance");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".config").join("tolerance")
}

pub fn identity_path(dir: &Path) -> PathBuf {
    dir.join("identity")
}

/// The identity's npub beside it: public, so `keys show` can tell it without the passphrase
/// (an NIP-49 `ncryptsec` holds no public key).
pub fn public_path(dir: &Path) -> PathBuf {
    dir.join("identity.pub")
}

/// Writes the npub of `keys` beside the identity. Only a convenience: a failure costs a
/// passphrase prompt at the next `keys show`, so it is not an error.
fn note_public(dir: &Path, keys: &Keys) {
    let npub = keys
        .public_key()
        .to_bech32()
        .expect("a public key always encodes");
    let _ = std::fs::write(public_path(dir), format!("{npub}\n"));
}

/// Parses a secret key typed by a person: `nsec1…` or 64 hex digits.
pub fn parse_secret(text: &str) -> Result<SecretKey, IdentityError> {
    let t = text.trim();
    SecretKey::parse(t).map_err(|_| IdentityError::BadSecret(redact(t)))
}

/// Parses a public key typed by a person: `npub1…` or 64 hex digits.
pub fn parse_public(text: &str) -> Result<PublicKey, IdentityError> {
    let t = text.trim();
    PublicKey::parse(t).map_err(|_| IdentityError::BadPublic(t.to_string()))
}

/// Never echo a whole secret back in an error message.
fn redact(s: &str) -> String {
    if s.len() > 10 {
        format!("{}…", &s[..6])
    } else {
        s.to_string()
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> IdentityError + '_ {
    move |source| IdentityError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Stores `secret` in `dir`, encrypted with `passphrase` (or plain when `None`), refusing to
/// overwrite unless `force`.
pub fn store(
    dir: &Path,
    secret: &SecretKey,
    passphrase: Option<&str>,
    force: bool,
) -> Result<Keys, IdentityError> {
    let path = identity_path(dir);
    if path.exists() && !force {
        return Err(IdentityError::Exists(path));
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let text = match passphrase {
        Some(p) => EncryptedSecretKey::new(secret, p, LOG_N, KeySecurity::Medium)
            .map_err(|e| e.to_string())
            .and_then(|e| e.to_bech32().map_err(|e| e.to_string()))
            .map_err(|reason| IdentityError::Corrupt {
                path: path.clone(),
                reason,
            })?,
        None => secret.to_bech32().expect("a secret key always encodes"),
    };
    write_owner_only(&path, format!("{text}\n").as_bytes()).map_err(io(&path))?;
    let keys = Keys::new(secret.clone());
    note_public(dir, &keys);
    Ok(keys)
}

/// Writes `bytes` to `path` (in an existing directory) readable by its owner only: written
/// beside it with those permissions from the start, synced, then moved into place, so a secret
/// is never readable by others nor left half-written.
pub fn write_owner_only(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_os_string());
    let tmp = path.with_file_name(format!(".{}.tmp", name.to_string_lossy()));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// The stored identity's public key, unlocking nothing where it can: a plain key is read, an
/// encrypted one's npub is the one written beside it. Without that note (an identity stored by
/// an older version), the key is unlocked once with `passphrase` and the note written.
pub fn load_public(
    dir: &Path,
    passphrase: impl FnOnce() -> Option<String>,
) -> Result<PublicKey, IdentityError> {
    if is_encrypted(dir)? {
        let noted = std::fs::read_to_string(public_path(dir)).ok();
        if let Some(k) = noted.and_then(|t| PublicKey::parse(t.trim()).ok()) {
            return Ok(k);
        }
    }
    load(dir, passphrase).map(|k| k.public_key())
}

/// Whether the stored identity needs a passphrase.
pub fn is_encrypted(dir: &Path) -> Result<bool, IdentityError> {
    let path = identity_path(dir);
    let text = read(&path)?;
    Ok(text.starts_with("ncryptsec1"))
}

fn read(path: &Path) -> Result<String, IdentityError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(t.trim().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(IdentityError::Missing(path.to_path_buf()))
        }
        Err(e) => Err(IdentityError::Io {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

/// Loads the stored identity; `passphrase` is asked only if the key is encrypted.
pub fn load(
    dir: &Path,
    passphrase: impl FnOnce() -> Option<String>,
) -> Result<Keys, IdentityError> {
    let path = identity_path(dir);
    let text = read(&path)?;
    if text.starts_with("ncryptsec1") {
        let enc = EncryptedSecretKey::from_bech32(&text).map_err(|e| IdentityError::Corrupt {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        let p = passphrase().ok_or_else(|| IdentityError::NoPassphrase(path.clone()))?;
        let secret = enc
            .decrypt(&p)
            .map_err(|_| IdentityError::WrongPassphrase(path.clone()))?;
        let keys = Keys::new(secret);
        // Unlocked: the npub beside it is made right (missing, or left by an identity file
        // put in place by hand).
        let noted = std::fs::read_to_string(public_path(dir)).ok();
        if noted.and_then(|t| PublicKey::parse(t.trim()).ok()) != Some(keys.public_key()) {
            note_public(dir, &keys);
        }
        Ok(keys)
    } else {
        let secret = SecretKey::parse(&text).map_err(|e| IdentityError::Corrupt {
            path,
            reason: e.to_string(),
        })?;
        Ok(Keys::new(secret))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tolerance-id-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn encrypted_identity_round_trips_and_refuses_a_wrong_passphrase() {
        let dir = tmp("enc");
        let keys = Keys::generate();
        store(&dir, keys.secret_key(), Some("correct horse"), false).unwrap();
        assert!(is_encrypted(&dir).unwrap());
        let back = load(&dir, || Some("correct horse".into())).unwrap();
        assert_eq!(back.public_key(), keys.public_key());
        assert!(matches!(
            load(&dir, || Some("wrong".into())),
            Err(IdentityError::WrongPassphrase(_))
        ));
        assert!(matches!(
            load(&dir, || None),
            Err(IdentityError::NoPassphrase(_))
        ));
        assert!(matches!(
            store(&dir, keys.secret_key(), None, false),
            Err(IdentityError::Exists(_))
        ));
        let stored = std::fs::read_to_string(identity_path(&dir)).unwrap();
        assert!(!stored.contains(&keys.secret_key().to_bech32().unwrap()));
    }

    #[test]
    fn the_public_key_is_read_without_the_passphrase() {
        let dir = tmp("pub");
        let keys = Keys::generate();
        store(&dir, keys.secret_key(), Some("pass"), false).unwrap();
        let asked = std::cell::Cell::new(false);
        let ask = || {
            asked.set(true);
            Some("pass".to_string())
        };
        assert_eq!(load_public(&dir, ask).unwrap(), keys.public_key());
        assert!(!asked.get(), "the passphrase was asked for a public key");
        // An identity stored before the note existed: unlocked once, then noted.
        std::fs::remove_file(public_path(&dir)).unwrap();
        assert!(matches!(
            load_public(&dir, || None),
            Err(IdentityError::NoPassphrase(_))
        ));
        assert_eq!(load_public(&dir, ask).unwrap(), keys.public_key());
        assert!(asked.get());
        asked.set(false);
        assert_eq!(load_public(&dir, ask).unwrap(), keys.public_key());
        assert!(!asked.get());
        // The secret never reaches the note.
        let note = std::fs::read_to_string(public_path(&dir)).unwrap();
        assert!(
            note.starts_with("npub1") && !note.contains("nsec"),
            "{note}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn plain_identity_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tmp("plain");
        let keys = Keys::generate();
        store(&dir, keys.secret_key(), None, false).unwrap();
        let mode = std::fs::metadata(identity_path(&dir))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(load(&dir, || None).unwrap().public_key(), keys.public_key());
    }

    #[test]
    fn malformed_keys_name_the_problem_without_echoing_secrets() {
        let e = parse_secret("nsec1notreallyasecretkeyatall")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not a secret key") && !e.contains("notreallyasecret"),
            "{e}"
        );
        assert!(parse_public("npub1xyz").is_err());
        let k = Keys::generate();
        assert_eq!(
            parse_secret(&k.secret_key().to_secret_hex()).unwrap(),
            *k.secret_key()
        );
        assert_eq!(
            parse_public(&k.public_key().to_bech32().unwrap()).unwrap(),
            k.public_key()
        );
        assert!(matches!(
            load(&tmp("none"), || None),
            Err(IdentityError::Missing(_))
        ));
    }
}
