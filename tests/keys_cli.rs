//! `tolerance keys`: a person's identity through the real binary, in a throwaway config dir.

use crate::common;

use nostr_sdk::prelude::*;
use std::process::{Command, Output, Stdio};

fn run(home: &std::path::Path, args: &[&str], pass: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tolerance"));
    c.args(args)
        .env("TOLERANCE_HOME", home)
        .env_remove("TOLERANCE_PASSPHRASE")
        .stdin(Stdio::null());
    if let Some(p) = pass {
        c.env("TOLERANCE_PASSPHRASE", p);
    }
    c.output().unwrap()
}

fn home(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tolerance-keys-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn new_show_and_wrong_passphrase() {
    let h = home("new");
    let out = run(&h, &["keys", "new"], Some("s3cret pass"));
    assert!(out.status.success(), "{out:?}");
    let npub = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(PublicKey::parse(&npub).is_ok(), "{npub}");
    let stored = std::fs::read_to_string(h.join("identity")).unwrap();
    assert!(
        stored.starts_with("ncryptsec1"),
        "stored encrypted (NIP-49)"
    );

    // The npub is public: showing it asks for no passphrase.
    let out = run(&h, &["keys", "show"], None);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&npub));

    let out = run(&h, &["keys", "show", "--unlock"], Some("s3cret pass"));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&npub));
    let out = run(&h, &["keys", "show", "--unlock"], Some("wrong"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrong passphrase"));

    // An identity from before the npub was kept beside it: unlocked once, then shown freely.
    std::fs::remove_file(h.join("identity.pub")).unwrap();
    let out = run(&h, &["keys", "show"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("passphrase is needed"));
    let out = run(&h, &["keys", "show"], Some("s3cret pass"));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&npub));
    let out = run(&h, &["keys", "show"], None);
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with(&npub),
        "{out:?}"
    );

    let out = run(&h, &["keys", "new"], Some("x"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
}

#[test]
fn import_hex_and_nsec_and_reject_malformed() {
    let k = Keys::generate();
    let h = home("import");
    let out = run(
        &h,
        &["keys", "import", &k.secret_key().to_secret_hex(), "--plain"],
        None,
    );
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&k.public_key().to_bech32().unwrap()));
    let out = run(
        &h,
        &[
            "keys",
            "import",
            &k.secret_key().to_bech32().unwrap(),
            "--force",
        ],
        Some("pw"),
    );
    assert!(out.status.success(), "{out:?}");
    let out = run(
        &h,
        &["keys", "import", "nsec1garbage", "--force", "--plain"],
        None,
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a secret key"), "{err}");
    // A new encrypted key with no passphrase available is refused, not stored in the clear.
    let out = run(&home("nopass"), &["keys", "new"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("passphrase"));
}

#[test]
fn profile_publishes_on_the_relays_config_toml_lists() {
    let h = home("profile");
    assert!(run(&h, &["keys", "new", "--plain"], None).status.success());
    let out = run(&h, &["keys", "profile", "--name", "Ana"], None);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{out:?}");
    assert!(
        err.contains("--relay") && err.contains("config.toml"),
        "{err}"
    );
    let r = common::relays::ServedRelay::start();
    std::fs::write(h.join("config.toml"), format!("relays = [\"{}\"]\n", r.url)).unwrap();
    let out = run(&h, &["keys", "profile", "--name", "Ana"], None);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{out:?}");
    assert!(
        text.contains("profile name 'Ana' accepted by 1 relay(s)"),
        "{text}"
    );
}
