//! Variants as Nostr objects, through the real binary and embedded relays: a proposal reaches a
//! stand-in author as a private message with its naddr, round-trips to identical rules, lists,
//! and a table run from the naddr plays with those rules. Invalid variants give the errors that
//! name the field. Also: the built-in variants shipped as files are exactly the built-ins.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use nostr_sdk::prelude::*;
use tolerance::games::tolerance::variant::{Style, Variant};
use tolerance::net::dm;
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig, RelayPool};
use tolerance::wire::variant::{variant_event, VariantDraft, KIND_VARIANT, UNTAGGED_GAME};

const WAIT: Duration = Duration::from_secs(5);

#[test]
fn the_shipped_variant_files_are_exactly_the_builtins() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol/variants");
    let mut shipped: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    shipped.sort();
    let mut expected: Vec<String> = Variant::BUILTIN
        .iter()
        .map(|n| format!("{n}.toml"))
        .collect();
    expected.sort();
    assert_eq!(shipped, expected);
    for name in Variant::BUILTIN {
        let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
        let parsed = Variant::parse(&text).unwrap_or_else(|e| panic!("{name}.toml: {e}"));
        assert_eq!(parsed, Variant::builtin(name).unwrap(), "{name}.toml");
    }
}

/// Tolerance: Reformation's card set as a file the author can correct: `variant new --game
/// reformation` prints the whole built-in set (every lost value marked assumed), `validate`
/// accepts it and names the card of a bad value, and a table plays the corrected card.
#[test]
fn a_reformation_card_file_is_printed_checked_and_played() {
    let dir = std::env::temp_dir().join(format!("tolerance-reform-var-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cmd = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
            .args(args)
            .env("TOLERANCE_HOME", &dir)
            .env_remove("TOLERANCE_PASSPHRASE")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = cmd(&["variant", "new", "--game", "reformation", "dealt-roles"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("name = \"Valiant Knight\"") && text.contains("assumed = "));
    assert!(text.contains("roles = \"dealt\""), "{text}");
    let file = dir.join("author.toml");
    // The author's value for the Valiant Knight's money (assumed -1 in the built-in set).
    let at = text.find("name = \"Valiant Knight\"").unwrap();
    let money = at + text[at..].find("money = -1").unwrap();
    let fixed = format!("{}money = 4{}", &text[..money], &text[money + 10..]);
    std::fs::write(&file, &fixed).unwrap();
    let out = cmd(&[
        "variant",
        "validate",
        "--game",
        "reformation",
        file.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && said.contains("73 cards"), "{said}");
    let out = cmd(&[
        "demo",
        "--game",
        "reformation",
        "--players",
        "3",
        "--hands",
        "1",
        "--variant",
        file.to_str().unwrap(),
        "--json",
    ]);
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["verified"], true, "{summary}");
    assert_eq!(summary["report"]["variant"], "dealt-roles", "{summary}");
    let bad = fixed.replacen("money = 4", "money = 99", 1);
    std::fs::write(&file, bad).unwrap();
    let out = cmd(&[
        "variant",
        "validate",
        "--game",
        "reformation",
        file.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("card 8 (Valiant Knight, Nobles 8): money must be -20 to 20, not 99"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

async fn relay() -> EmbeddedRelay {
    EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap()
}

async fn pool(keys: &Keys, relay: &EmbeddedRelay) -> RelayPool {
    RelayPool::connect(keys.clone(), [relay.url().as_str()], PoolConfig::default())
        .await
        .unwrap()
}

fn home(name: &str, player: &Keys) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tolerance-var-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    tolerance::identity::store(&d, player.secret_key(), None, false).unwrap();
    d
}

async fn run(home: &Path, args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
        .args(args)
        .env("TOLERANCE_HOME", home)
        .env_remove("TOLERANCE_PASSPHRASE")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap()
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn failed(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Rules far enough from the standard ones that a game shows them.
fn short_stacks() -> Variant {
    Variant {
        name: "short stacks".into(),
        die_sides: 6,
        blind: 25,
        starting_stack: 700,
        seats: 3,
        super_ace: true,
        ..Variant::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proposal_reaches_the_author_round_trips_lists_and_plays_from_its_naddr() {
    let shared = relay().await;
    let url = shared.url().to_string();
    let author = Keys::generate();
    let author_npub = author.public_key().to_bech32().unwrap();
    let player = Keys::generate();
    let h = home("propose", &player);
    let v = short_stacks();
    let file = h.join("short.toml");
    std::fs::write(
        &file,
        tolerance::games::tolerance::variant::commented_toml(&v),
    )
    .unwrap();

    let out = run(
        &h,
        &[
            "variant",
            "propose",
            file.to_str().unwrap(),
            "--title",
            "Short stacks, d6",
            "--description",
            "Fewer chips and a smaller die: faster tables.",
            "--to",
            &author_npub,
            "--relay",
            &url,
        ],
    )
    .await;
    let stdout = ok(&out);
    let naddr = stdout.lines().next().unwrap().to_string();
    assert!(naddr.starts_with("naddr1"), "{stdout}");
    assert!(stdout.contains("d=short-stacks-d6"), "{stdout}");
    assert!(stdout.contains("sent privately"), "{stdout}");

    // The author's client gets the naddr privately, from the proposer, with an `a` tag.
    let inbox = dm::fetch_inbox(&pool(&author, &shared).await, WAIT)
        .await
        .unwrap();
    assert_eq!(inbox.messages.len(), 1, "{:?}", inbox.refused);
    let m = &inbox.messages[0];
    assert_eq!(m.sender, player.public_key());
    assert!(
        m.content.contains(&format!("nostr:{naddr}")),
        "{}",
        m.content
    );
    assert_eq!(m.subject(), Some("Tolerance variant: Short stacks, d6"));
    let coordinate = m.tags.coordinates().next().expect("an a tag").clone();
    assert_eq!(coordinate.kind, Kind::from(KIND_VARIANT));
    assert_eq!(coordinate.public_key, player.public_key());

    // Round trip: fetched by naddr (its relay hint suffices), the rules are identical, and the
    // printed file is itself a variant file of the same rules.
    let (checked, _) = tolerance::variants::fetch(&naddr, &[]).await.unwrap();
    let post = checked.post;
    assert_eq!(Variant::parse(&post.content).unwrap(), v);
    assert_eq!(post.title, "Short stacks, d6");
    assert_eq!(post.addressed_to, vec![author.public_key()]);
    let shown = ok(&run(&h, &["variant", "show", &naddr]).await);
    assert!(shown.contains("# Short stacks, d6"), "{shown}");
    assert_eq!(Variant::parse(&shown).unwrap(), v);

    // The author publishes one too; the list shows both, marked.
    let author_pool = pool(&author, &shared).await;
    let card_again = Variant::builtin("card-again").unwrap();
    let (b, _) = variant_event(&VariantDraft {
        game: UNTAGGED_GAME,
        content: &card_again.canonical_json(),
        title: "Card Again, official",
        fallback_title: &card_again.name,
        description: "",
        fallback_summary: &card_again.rules_line(),
        alt_game: "The Game of Tolerance",
        to: &author.public_key(),
    });
    author_pool
        .publish(&author_pool.sign(b).unwrap())
        .await
        .unwrap();
    let listed = ok(&run(
        &h,
        &["variant", "list", "--relay", &url, "--to", &author_npub],
    )
    .await);
    assert!(listed.contains(&naddr), "{listed}");
    assert!(
        listed.contains("Short stacks, d6 — by") && listed.contains("(proposed to the author)"),
        "{listed}"
    );
    assert!(
        listed.contains("Card Again, official — by") && listed.contains("(the author)"),
        "{listed}"
    );

    // A table of bots run from the naddr plays those rules: 700-chip stacks, blinds of 25.
    let out = run(
        &h,
        &[
            "demo",
            "--variant",
            &naddr,
            "--relay",
            &url,
            "--players",
            "2",
            "--hands",
            "1",
            "--json",
        ],
    )
    .await;
    let stdout = ok(&out);
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["verified"], true, "{stdout}");
    assert_eq!(summary["report"]["chips_start_total"], 1400, "{stdout}");
    let hand = &summary["report"]["history"][0];
    let blinds: Vec<u64> = hand["log"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["blind"]["amount"].as_u64())
        .collect();
    assert_eq!(blinds, vec![25], "{stdout}");
    for e in hand["log"].as_array().unwrap() {
        if let Some(target) = e["rolled"]["target"].as_u64() {
            assert!(
                target <= 6,
                "a d6 table rolled with Tolerance number {target}"
            );
        }
    }
    // The variant seats at most 3: four players are refused, as for a file.
    let err = failed(
        &run(
            &h,
            &[
                "demo",
                "--variant",
                &naddr,
                "--relay",
                &url,
                "--players",
                "4",
                "--hands",
                "1",
            ],
        )
        .await,
    );
    assert!(err.contains("2 to 3 players"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_variants_give_the_documented_errors() {
    let shared = relay().await;
    let url = shared.url().to_string();
    let player = Keys::generate();
    let h = home("invalid", &player);
    let someone = Keys::generate().public_key().to_bech32().unwrap();

    // Bad files: each error names the field; nothing is published.
    let cases = [
        (
            "seats = 30\n",
            "variant field `seats`: must be 2..=20, not 30",
        ),
        ("die_sides = 1\n", "variant field `die_sides`"),
        (
            "[style]\nkind = \"cash\"\nmin_buy_in = 500\nmax_buy_in = 100\n",
            "variant field `style`",
        ),
        ("super_aces = true\n", "super_aces"),
        ("blind = \"ten\"\n", "not valid TOML/JSON"),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let file = h.join(format!("bad{i}.toml"));
        std::fs::write(&file, text).unwrap();
        let f = file.to_str().unwrap();
        let err = failed(&run(&h, &["variant", "validate", f]).await);
        assert!(err.contains(expected), "{text}: {err}");
        let err = failed(
            &run(
                &h,
                &["variant", "propose", f, "--to", &someone, "--relay", &url],
            )
            .await,
        );
        assert!(err.contains(expected), "{text}: {err}");
        let err = failed(&run(&h, &["demo", "--variant", f, "--relay", &url]).await);
        assert!(err.contains(expected), "{text}: {err}");
    }
    let stored = pool(&Keys::generate(), &shared)
        .await
        .fetch(
            vec![Filter::new().kinds([Kind::from(KIND_VARIANT), Kind::GiftWrap])],
            WAIT,
        )
        .await
        .unwrap();
    assert!(stored.is_empty(), "an invalid variant was published");

    // Another client publishes an invalid variant: using its naddr gives the same error.
    let mut json: serde_json::Value = serde_json::from_str(
        &Variant {
            style: Style::Cash {
                min_buy_in: 100,
                max_buy_in: 5000,
            },
            ..Variant::default()
        }
        .canonical_json(),
    )
    .unwrap();
    json["seats"] = 30.into();
    let rogue = Keys::generate();
    let rogue_pool = pool(&rogue, &shared).await;
    let event = rogue_pool
        .sign(
            EventBuilder::new(Kind::from(KIND_VARIANT), json.to_string())
                .tag(Tag::identifier("huge")),
        )
        .unwrap();
    rogue_pool.publish(&event).await.unwrap();
    let naddr = Nip19Coordinate::new(
        Coordinate::new(Kind::from(KIND_VARIANT), rogue.public_key()).identifier("huge"),
        [shared.url().clone()],
    )
    .to_bech32()
    .unwrap();
    let err = failed(&run(&h, &["demo", "--variant", &naddr, "--players", "2"]).await);
    assert!(
        err.contains(&format!("variant {naddr}: variant field `seats`")),
        "{err}"
    );
    let err = failed(&run(&h, &["variant", "show", &naddr]).await);
    assert!(err.contains("variant field `seats`"), "{err}");
    // `list` skips it, saying why.
    let out = run(&h, &["variant", "list", "--relay", &url]).await;
    assert!(ok(&out).contains("no variants"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("variant field `seats`"));

    // Addresses that are not variants, or not there.
    let missing = Nip19Coordinate::new(
        Coordinate::new(Kind::from(KIND_VARIANT), rogue.public_key()).identifier("nope"),
        [shared.url().clone()],
    )
    .to_bech32()
    .unwrap();
    let err = failed(&run(&h, &["variant", "show", &missing]).await);
    assert!(err.contains("not found"), "{err}");
    let table = tolerance::wire::table_naddr(
        &rogue.public_key(),
        &"ab".repeat(32),
        std::slice::from_ref(&url),
    );
    let err = failed(&run(&h, &["play", "--local", "--variant", &table]).await);
    assert!(err.contains("not a variant"), "{err}");
    let bare = Nip19Coordinate::new(
        Coordinate::new(Kind::from(KIND_VARIANT), rogue.public_key()).identifier("huge"),
        Vec::<RelayUrl>::new(),
    )
    .to_bech32()
    .unwrap();
    let err = failed(&run(&h, &["variant", "show", &bare]).await);
    assert!(err.contains("no relay hint"), "{err}");
}

/// The seed lists no ArtOfFacts deck: the author can propose the real one as a deck file, and a
/// table played from its naddr deals from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_art_of_facts_deck_is_proposed_shown_listed_and_played_from_its_naddr() {
    let shared = relay().await;
    let url = shared.url().to_string();
    let author = Keys::generate();
    let author_npub = author.public_key().to_bech32().unwrap();
    let player = Keys::generate();
    let h = home("deck", &player);
    // A small deck of its own: two symbols and plain additions, and its own money rules.
    let file = h.join("deck.toml");
    std::fs::write(
        &file,
        "name = \"two suns\"\nfeather = \"sun\"\nstash = 500\n\
         [[cards]]\nsymbol = \"sun\"\nvalues = [1, 2, 3, 4, 5, 6, 7, 8]\n\
         [[cards]]\nsymbol = \"leaf\"\nvalues = [1, 2, 3, 4, 5, 6, 7, 8]\n\
         [[cards]]\nop = \"+\"\nvalues = [1, 2, 3]\n",
    )
    .unwrap();
    // A bad deck is refused before anything is published, naming the field.
    let bad = h.join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"x\"\nfeather = \"moon\"\n[[cards]]\nsymbol = \"sun\"\nvalues = [1, 2]\n",
    )
    .unwrap();
    let err = failed(
        &run(
            &h,
            &[
                "variant",
                "propose",
                "--game",
                "art-of-facts",
                bad.to_str().unwrap(),
                "--to",
                &author_npub,
                "--relay",
                &url,
            ],
        )
        .await,
    );
    assert!(err.contains("deck field `feather`"), "{err}");

    let stdout = ok(&run(
        &h,
        &[
            "variant",
            "propose",
            "--game",
            "art-of-facts",
            file.to_str().unwrap(),
            "--to",
            &author_npub,
            "--relay",
            &url,
        ],
    )
    .await);
    let naddr = stdout.lines().next().unwrap().to_string();
    assert!(naddr.starts_with("naddr1"), "{stdout}");
    assert!(stdout.contains("a variant of art-of-facts"), "{stdout}");
    let inbox = dm::fetch_inbox(&pool(&author, &shared).await, WAIT)
        .await
        .unwrap();
    assert_eq!(inbox.messages.len(), 1, "{:?}", inbox.refused);
    assert!(inbox.messages[0]
        .content
        .contains(&format!("nostr:{naddr}")));

    // Shown as a deck file of the same cards.
    let shown = ok(&run(&h, &["variant", "show", &naddr]).await);
    assert!(
        shown.contains("# two suns (a variant of art-of-facts)"),
        "{shown}"
    );
    let deck = tolerance::games::art_of_facts::DeckFile::parse(&shown).unwrap();
    assert_eq!(deck.cards().len(), 19);
    assert_eq!(deck.stash, Some(500));
    // Listed as a variant of its game.
    let listed = ok(&run(
        &h,
        &["variant", "list", "--relay", &url, "--to", &author_npub],
    )
    .await);
    assert!(
        listed.contains("two suns — a variant of art-of-facts"),
        "{listed}"
    );

    // A table of bots from the naddr deals that deck and counts those chips.
    let stdout = ok(&run(
        &h,
        &[
            "demo",
            "--game",
            "art-of-facts",
            "--variant",
            &naddr,
            "--relay",
            &url,
            "--players",
            "3",
            "--hands",
            "2",
            "--json",
        ],
    )
    .await);
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["verified"], true, "{stdout}");
    assert_eq!(summary["report"]["deck"], "two suns", "{stdout}");
    let total: u64 = summary["report"]["banks"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 1500, "{stdout}");
}
