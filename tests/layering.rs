//! The module layers of `src/lib.rs`'s `# Layout`, checked on the sources: nothing below the
//! commands imports them, nothing but the commands and the interfaces imports the interfaces,
//! the rules and the cryptography know no network or runtime, and the session is pure.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Source lines that are code (not comments), with their file and number.
fn code(root: &Path) -> Vec<(String, usize, String)> {
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let mut out = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("//") {
                continue;
            }
            out.push((rel.clone(), i + 1, line.to_string()));
        }
    }
    out
}

/// (files this rule covers, what they must not mention, why)
const RULES: &[(&[&str], &[&str], &str)] = &[
    (
        &["src/"],
        &["crate::app", "super::app"],
        "only main.rs and the commands use the commands",
    ),
    (
        &[
            "src/engine/",
            "src/cards.rs",
            "src/fair/",
            "src/games/",
            "src/bots/",
            "src/wire/",
            "src/table/",
            "src/net/",
            "src/history.rs",
            "src/variants.rs",
            "src/feedback.rs",
            "src/identity.rs",
        ],
        &["crate::ui"],
        "interfaces sit on top: the runtime reports through callbacks",
    ),
    (
        &[
            "src/engine/",
            "src/cards.rs",
            "src/fair/",
            "src/games/",
            "src/bots/",
        ],
        &["crate::table", "crate::net", "tokio::", "nostr_sdk"],
        "rules, bots and cryptography know no table runtime and no network",
    ),
    (
        &[
            "src/table/session/",
            "src/table/chance.rs",
            "src/engine/",
            "src/games/",
        ],
        &[
            "tokio",
            "crate::net",
            "OsRng",
            "thread_rng",
            "SystemTime",
            "Instant::now",
        ],
        "the engine and the session are pure: time and randomness are passed in",
    ),
];

#[test]
fn every_module_stays_in_its_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lines = code(root);
    assert!(lines.len() > 10_000, "the sources were not found");
    let mut broken = Vec::new();
    for (scope, banned, why) in RULES {
        for (file, n, line) in &lines {
            let in_scope = scope.iter().any(|s| file.starts_with(s))
                && !file.starts_with("src/app/")
                && !(banned.contains(&"crate::ui") && file.starts_with("src/ui/"));
            if !in_scope {
                continue;
            }
            for b in *banned {
                if line.contains(b) {
                    broken.push(format!("{file}:{n}: uses {b} ({why}): {}", line.trim()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}
