//! Settings a person may keep in `config.toml` in the config directory
//! ([`crate::identity::config_dir`]). Every field is optional; a missing file means defaults.
//! Unknown fields are refused, so a misspelt setting is an error rather than silently ignored.
//!
//! ```toml
//! # Who `tolerance feedback` and `tolerance variant propose` write to (default: the author of
//! # The Game of Tolerance).
//! author = "npub1…"
//! # Relays for `feedback` and `variant` when no --relay is given.
//! relays = ["wss://relay.example.org"]
//! ```

use nostr_sdk::prelude::PublicKey;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The settings file in `dir`.
pub fn settings_path(dir: &Path) -> PathBuf {
    dir.join("config.toml")
}

/// Settings from `config.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// npub (or hex) that feedback and variant proposals go to.
    pub author: Option<String>,
    /// Relays for the feedback and variant commands when none is given on the command line.
    pub relays: Vec<String>,
    /// The file these settings came from (for error messages).
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

impl Settings {
    /// Reads `config.toml` in `dir`; a missing file gives the defaults.
    pub fn load(dir: &Path) -> Result<Settings, String> {
        let path = settings_path(dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Settings::default()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let mut s: Settings =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        s.path = Some(path);
        Ok(s)
    }

    /// The recipient: `flag` (`--to`) if given, else the configured `author`, else `default`.
    /// A malformed key is an error naming where it came from.
    pub fn recipient(&self, flag: Option<&str>, default: &str) -> Result<PublicKey, String> {
        let (text, origin) = match (flag, &self.author) {
            (Some(t), _) => (t, "--to".to_string()),
            (None, Some(t)) => (
                t.as_str(),
                format!(
                    "`author` in {}",
                    self.path
                        .as_deref()
                        .map_or("config.toml".into(), |p| p.display().to_string())
                ),
            ),
            (None, None) => (default, "the built-in author key".to_string()),
        };
        crate::identity::parse_public(text).map_err(|e| format!("{origin}: {e}"))
    }

    /// The relays to use: `flag` (`--relay`) if any, else the configured ones, else `defaults`.
    pub fn relays(&self, flag: &[String], defaults: &[&str]) -> Vec<String> {
        if !flag.is_empty() {
            flag.to_vec()
        } else if !self.relays.is_empty() {
            self.relays.clone()
        } else {
            defaults.iter().map(|s| s.to_string()).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr_sdk::prelude::{Keys, ToBech32};

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tolerance-cfg-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn settings_pick_flag_then_file_then_default() {
        let d = dir("pick");
        assert_eq!(Settings::load(&d).unwrap(), Settings::default());
        let cfg = Keys::generate().public_key();
        let flag = Keys::generate().public_key();
        let def = Keys::generate().public_key();
        let def_text = def.to_bech32().unwrap();
        assert_eq!(Settings::default().recipient(None, &def_text).unwrap(), def);

        std::fs::write(
            settings_path(&d),
            format!(
                "author = \"{}\"\nrelays = [\"ws://127.0.0.1:1\"]\n",
                cfg.to_bech32().unwrap()
            ),
        )
        .unwrap();
        let s = Settings::load(&d).unwrap();
        assert_eq!(s.recipient(None, &def_text).unwrap(), cfg);
        assert_eq!(s.recipient(Some(&flag.to_hex()), &def_text).unwrap(), flag);
        assert_eq!(s.relays(&[], &["wss://x"]), vec!["ws://127.0.0.1:1"]);
        assert_eq!(s.relays(&["ws://a".into()], &["wss://x"]), vec!["ws://a"]);
        assert_eq!(
            Settings::default().relays(&[], &["wss://x"]),
            vec!["wss://x"]
        );
    }

    #[test]
    fn bad_settings_name_the_file_and_field() {
        let d = dir("bad");
        std::fs::write(settings_path(&d), "author = \"npub1nope\"\n").unwrap();
        let e = Settings::load(&d)
            .unwrap()
            .recipient(None, "unused")
            .unwrap_err();
        assert!(
            e.contains("`author` in") && e.contains("is not a public key"),
            "{e}"
        );
        std::fs::write(settings_path(&d), "autor = \"x\"\n").unwrap();
        let e = Settings::load(&d).unwrap_err();
        assert!(e.contains("config.toml") && e.contains("autor"), "{e}");
        let e = Settings::default()
            .recipient(Some("npub1xyz"), "unused")
            .unwrap_err();
        assert!(e.starts_with("--to: "), "{e}");
    }
}
