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
fn every_game_has_golden_scripts_of_its_seed_examples() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let count = |prefix: &str| names.iter().filter(|n| n.starts_with(prefix)).count();
    assert!(count("perudo-") >= 15, "{names:?}");
    assert!(count("mia-") >= 5, "{names:?}");
    // The rule book's three-player round, an extinct player, a short last pool, a stolen mark.
    assert!(count("lamarckian-poker-") >= 4, "{names:?}");
    assert!(count("abandon-ship-") >= 4, "{names:?}");
    for script in [
        "seed-scoring-example",
        "last-card-must-be-a-king",
        "a-fight-nobody-can-answer",
        "tie-on-suit-points",
    ] {
        assert!(names.contains(&format!("abandon-ship-{script}.json")));
    }
    for ranking in ["traditional", "modern"] {
        assert!(names.contains(&format!("mia-{ranking}-order-climbs.json")));
    }
    // All Fives: the seed's nine moves, a tile that must fit, spinner scoring (and its arms
    // waiting for both sides), a blocked hand's count, partnerships.
    assert!(count("all-fives-") >= 6, "{names:?}");
    // Scoundrel: the seed's two weapon examples (with its "11 - 5 = 5 dmg" read as 6), the
    // potion cap, the rule against avoiding two rooms in a row.
    for name in [
        "weapon-jack-takes-six",
        "weapon-queen-then-six",
        "weapon-six-then-queen-is-refused",
        "weapon-six-then-queen-barehanded",
        "potion-cap",
        "no-two-avoids-in-a-row",
    ] {
        assert!(
            names.contains(&format!("scoundrel-{name}.json")),
            "{names:?}"
        );
    }
    // The Bogey: the column rules (one suit, going down, values skipped, twelve at most), the
    // pass, the reshuffle of the discards, the harder variant, and a lost game.
    for name in [
        "columns-go-down-by-suit",
        "a-higher-card-is-refused",
        "another-suit-is-refused",
        "twelve-columns-at-most",
        "a-pass-lets-the-bogey-play-again",
        "discards-are-reshuffled",
        "the-hard-variant-draws-four",
        "a-lost-game",
        "a-false-stuck-is-refused",
    ] {
        assert!(
            names.contains(&format!("the-bogey-{name}.json")),
            "{names:?}"
        );
    }
    // Shooting Party: the etiquette's precedence (spouses over the queen rule and over two
    // jacks), two jacks, the queen held longest, the joker retrieving an ace and a discard, an
    // ace going up, and refusals.
    for name in [
        "the-spouse-rule-comes-before-the-queen-rule",
        "the-queen-rule-may-not-come-first",
        "the-spouse-rule-comes-before-two-jacks",
        "two-jacks-leave-the-room",
        "two-jacks-cannot-be-ignored",
        "the-queen-held-longest-leaves",
        "the-joker-retrieves-an-ace",
        "the-joker-brings-back-a-discard",
        "an-ace-goes-up-and-is-replaced",
        "a-discard-must-be-two-of-a-suit-or-all-of-a-rank",
        "her-displayed-ace-goes-with-her",
        "the-third-time-the-pile-runs-out-the-game-ends",
    ] {
        assert!(
            names.contains(&format!("shooting-party-{name}.json")),
            "{names:?}"
        );
    }
    for name in [
        "all-fives-nine-moves",
        "all-fives-spinner-scoring",
        "all-fives-blocked-hand-goes-to-the-fewest-pips",
        "all-fives-partners-score-as-one-side",
        "chickenfoot-a-double-holds-play-until-its-third-toe",
        "chickenfoot-three-toes-then-play-goes-on",
        "chickenfoot-no-draw-ends-the-round-with-tiles-in-every-hand",
        // A later round's deck is the script's, less that round's centerpiece.
        "chickenfoot-two-rounds-with-one-deck",
    ] {
        assert!(names.contains(&format!("{name}.json")), "{name} missing");
    }
    assert!(count("chickenfoot-") >= 4, "{names:?}");
    // ArtOfFacts: value cases, the swap, the dealer's tie rules, the ante's growth.
    for name in [
        "art-of-facts-value-cases",
        "art-of-facts-dealer-tie-takes-the-ante-back",
        "art-of-facts-a-tie-for-the-top-goes-to-the-dealer",
        "art-of-facts-the-ante-grows-after-a-full-rotation",
        "art-of-facts-different-symbols-are-refused",
    ] {
        assert!(names.contains(&format!("{name}.json")), "{name} missing");
    }
    // Insider: both votes, a tie the Master breaks, the timer and its flip, a caught Master.
    for name in [
        "insider-the-first-vote-finds-the-insider",
        "insider-a-wrong-first-accusation-lets-the-insider-win",
        "insider-the-second-vote-finds-the-insider",
        "insider-the-master-breaks-a-tie",
        "insider-the-timer-runs-out",
        "insider-a-guess-in-time-counts-when-judged-late",
        "insider-a-late-guess-is-refused",
        "insider-a-master-who-calls-the-word-wrong-is-caught",
    ] {
        assert!(names.contains(&format!("{name}.json")), "{name} missing");
    }
    // Tolerance: Reformation: the rule book's Scoring Example and what issue 34 asks to see.
    for name in [
        "seed-scoring-example",
        "wild-declared-off-suit-cannot-win",
        "a-kill-removes-a-lower-card-before-its-effect",
        "condemn-and-convert-take-every-tied-card",
        "a-loan-and-its-repayment",
        "royal-execution-reaches-only-the-tops-of-other-boards",
        "prevailing-religion-moves-a-card-between-reigns",
        "end-of-game-tie-broken-by-piety",
        "end-of-game-tie-is-a-joint-win",
    ] {
        assert!(
            names.contains(&format!("reformation-{name}.json")),
            "reformation-{name} missing"
        );
    }
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
        (
            r#"{"game": "chess", "seats": [0, 1], "actions": []}"#,
            "'chess' is not a game this program plays",
        ),
        (
            r#"{"game": "perudo", "seats": [0, 1], "first": 0, "dice": [2,2,2,2,2,3,3,3,3,3], "actions": ["0 raise 3"]}"#,
            "not a Perudo move",
        ),
        (
            r#"{"game": "perudo", "seats": [0], "actions": []}"#,
            "2 to 10 players",
        ),
        (
            r#"{"game": "perudo", "seats": [0, 1], "first": 0, "dice": [2,2,2,2,2,3,3,3,3,3,4], "actions": []}"#,
            "1 scripted dice were never rolled",
        ),
        (
            r#"{"game": "mia", "ranking": "odd", "seats": [0, 1], "actions": []}"#,
            "unknown Mia ranking 'odd'",
        ),
        (
            r#"{"game": "mia", "seats": [0, 1], "first": 0, "dice": [3], "actions": ["0 claim 31"]}"#,
            "ran out of dice",
        ),
        (
            r#"{"game": "chickenfoot", "setup": {"players": 2}, "deck": ["9-9"], "dice": [1], "actions": []}"#,
            "names [9|9], which is not in this deck",
        ),
        (
            r#"{"game": "chickenfoot", "setup": {"players": 2}, "deck": [], "dice": [1], "actions": ["0 9-1 side"]}"#,
            "not a Chickenfoot move",
        ),
        (
            r#"{"game": "chickenfoot", "setup": {"players": 2}, "deck": [], "dice": [1], "actions": ["0 9-9 center"]}"#,
            "[9|9] is this round's centerpiece, not a tile in a hand",
        ),
        (
            r#"{"game": "all-fives", "setup": {"players": 2}, "deck": ["6-7"], "dice": [1], "actions": []}"#,
            "not a double-six tile",
        ),
        (
            r#"{"game": "reformation", "setup": {"players": 3}, "reigns": [{"hands": [["Courtier"]]}], "actions": []}"#,
            "the script deals 3 hands of 12 cards",
        ),
        (
            r#"{"game": "reformation", "setup": {"players": 3}, "actions": ["0 begin"]}"#,
            "not a Tolerance: Reformation move",
        ),
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
