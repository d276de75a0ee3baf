//! Golden hand scripts run through the real `tolerance replay` binary; each script's `expect`
//! object must be a subset of the printed JSON.

use std::process::Command;

fn is_subset(expect: &serde_json::Value, got: &serde_json::Value) -> bool {
    match (expect, got) {
        (serde_json::Value::Object(e), serde_json::Value::Object(g)) => e
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| is_subset(v, gv))),
        (e, g) => e == g,
    }
}

#[test]
fn golden_scripts_replay_as_expected() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let script: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let expect = script.get("expect").expect("golden scripts carry `expect`");
        let out = Command::new(env!("CARGO_BIN_EXE_tolerance"))
            .arg("replay")
            .arg(&path)
            .output()
            .unwrap();
        let got: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: bad JSON ({e}): {:?}", path.display(), out));
        assert!(
            is_subset(expect, &got),
            "{}: expected {expect} within {got}",
            path.display()
        );
        assert_eq!(
            out.status.success(),
            expect["ok"] == serde_json::json!(true),
            "{}: exit status must say whether the script was legal",
            path.display()
        );
        count += 1;
    }
    assert!(count >= 5, "only {count} golden scripts found");
}

#[test]
fn replay_rejects_bad_scripts_with_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("tolerance-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            r#"{"seats": [], "dealer": 0, "deck": [], "actions": []}"#,
            "2 to 20 players",
        ),
        (
            r#"{"seats": [{"seat":0,"stack":10},{"seat":1,"stack":10}], "dealer": 0, "deck": ["ZZ"], "actions": []}"#,
            "not a card name",
        ),
        (
            r#"{"variant": {"die_sides": 1}, "seats": [{"seat":0,"stack":10},{"seat":1,"stack":10}], "dealer": 0, "deck": [], "actions": []}"#,
            "die_sides",
        ),
        (r#"{"seats": 5}"#, "hand script"),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{i}.json"));
        std::fs::write(&path, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_tolerance"))
            .arg("replay")
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{text}");
        assert!(err.contains(needle), "{text}: stderr was {err}");
    }
}
