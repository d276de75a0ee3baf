//! The browser page in a real browser: Debian's headless Chromium, driven over WebDriver by
//! chromium-driver, opening the page `tolerance web` serves (built by `web/build.sh`; `.ci/run`
//! installs the browser, the driver and wasm-bindgen-cli and builds the page first).
//!
//! Screenshots at phone and desktop sizes are kept in `target/browser-artifacts/`.

use crate::common::{home, naddr_of, player, run, spawn, tables_listed, Proc};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(30);

/// chromium-driver on a free loopback port, stopped with the test.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn driver() -> Driver {
    let port = tolerance::net::testing::free_port().unwrap();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect(
            "chromium-driver is needed for the browser tests: apt-get install chromium \
             chromium-driver (bash .ci/run installs it)",
        );
    Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    }
}

/// A headless Chromium session through `driver`, retried while the driver starts listening.
async fn browser(driver: &Driver) -> Client {
    let caps = json!({
        "goog:chromeOptions": {
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,800"]
        }
    });
    let caps = caps.as_object().unwrap().clone();
    let end = Instant::now() + PATIENCE;
    loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(caps.clone())
            .connect(&driver.url)
            .await
        {
            Ok(c) => return c,
            Err(e) if Instant::now() < end => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("no browser session through chromium-driver: {e}"),
        }
    }
}

/// The built page, or a failure that says how to build it.
fn page() -> PathBuf {
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/dist");
    assert!(
        dist.join("pkg/tolerance_web_bg.wasm").is_file(),
        "the page is not built: run `bash web/build.sh` (bash .ci/run does)"
    );
    dist
}

/// `tolerance web` on a free port with its embedded relay: the process, the page's URL and
/// the relay's.
fn serve(home: &Path) -> (Proc, String, String) {
    serve_with(home, &[])
}

/// `tolerance web` on a free port with `more` options (`--relay URL`).
fn serve_with(home: &Path, more: &[&str]) -> (Proc, String, String) {
    let dir = page();
    let mut args = vec!["web", "--port", "0", "--dir", dir.to_str().unwrap()];
    args.extend_from_slice(more);
    let web = spawn(home, &args);
    let url = web.wait_line("the page: ", PATIENCE);
    let url = url.trim_start_matches("the page: ").trim().to_string();
    let relay = web.wait_line("relays: ", PATIENCE);
    let relay = relay.trim_start_matches("relays: ").trim().to_string();
    (web, url, relay)
}

/// Ana hosts a public table of `game` with `seats` seats on `relay` from the terminal (her
/// profile named "Ana" when `named`); her process and the table's naddr.
fn ana_hosts(
    test: &str,
    relay: &str,
    game: &str,
    seats: &str,
    more: &[&str],
    named: bool,
) -> (Proc, String) {
    let ha = home(test, "ana");
    player(&ha);
    if named {
        let out = run(&ha, &["keys", "profile", "--name", "Ana", "--relay", relay]);
        assert!(out.status.success(), "{out:?}");
    }
    let mut args = vec![
        "host", "--relay", relay, "--game", game, "--seats", seats, "--public", "--auto",
    ];
    args.extend_from_slice(more);
    let host = spawn(&ha, &args);
    let naddr = naddr_of(&host.wait_line("tolerance join naddr1", PATIENCE));
    (host, naddr)
}

/// Ana (profile "Ana") hosts a 2-seat Perudo table on `relay` from the terminal for `npub`
/// alone (`more`: her other options), once a relay took the invitation: her process and the
/// table's naddr.
fn ana_invites(test: &str, relay: &str, npub: &str, more: &[&str]) -> (Proc, String) {
    let ha = home(test, "ana");
    player(&ha);
    let named = run(&ha, &["keys", "profile", "--name", "Ana", "--relay", relay]);
    assert!(named.status.success(), "{named:?}");
    let mut args = vec![
        "host", "--relay", relay, "--game", "perudo", "--seats", "2", "--invite", npub,
    ];
    args.extend_from_slice(more);
    let host = spawn(&ha, &args);
    let naddr = naddr_of(&host.wait_line("tolerance join naddr1", PATIENCE));
    host.wait_line("relays took the invitation", PATIENCE);
    (host, naddr)
}

fn artefact(name: &str, png: &[u8]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), png).unwrap();
}

/// A screenshot of the seat's panel, kept as `name`.
async fn play_artefact(c: &Client, name: &str) {
    c.execute("document.getElementById('play').scrollIntoView();", vec![])
        .await
        .unwrap();
    artefact(name, &c.screenshot().await.unwrap());
}

async fn text(c: &Client, css: &str) -> String {
    c.wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no '{css}' on the page: {e}"))
        .text()
        .await
        .unwrap()
}

/// Waits until `script` (an expression) is true in the page.
async fn until(c: &Client, script: &str) {
    let end = Instant::now() + PATIENCE;
    loop {
        let v = c
            .execute(&format!("return !!({script});"), vec![])
            .await
            .unwrap();
        if v == Value::Bool(true) {
            return;
        }
        if Instant::now() > end {
            let body = c.execute("return document.body.innerText;", vec![]).await;
            panic!("'{script}' never held; the page reads: {body:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_lists_every_game_and_the_open_table_hosted_from_the_terminal() {
    let hw = home("browser-table", "web");
    let (_web, url, relay) = serve(&hw);
    // Ana hosts a public Perudo table from the terminal, under her profile name.
    let (_host, naddr) = ana_hosts(
        "browser-table",
        &relay,
        "perudo",
        "3",
        &["--title", "Browser night"],
        true,
    );

    let d = driver();
    let c = browser(&d).await;
    // The lobby lists it among the open tables on the page's relay; its link opens it.
    c.goto(&url).await.unwrap();
    until(&c, "document.body.dataset.lobby === '1'").await;
    let listed = text(&c, "#open-tables").await;
    assert!(
        listed.starts_with("Perudo: Browser night hosted by Ana · 1 of 3 seats taken · normal"),
        "{listed}"
    );
    c.find(Locator::Css("#open-tables a"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until(&c, "document.body.dataset.table === 'shown'").await;
    let hash = c.execute("return location.hash;", vec![]).await.unwrap();
    assert_eq!(hash, json!(format!("#{naddr}")));
    // And the link itself opens it.
    c.goto(&format!("{url}#{naddr}")).await.unwrap();
    until(&c, "document.body.dataset.table === 'shown'").await;
    assert_eq!(text(&c, "#table-game").await, "Perudo");
    assert_eq!(text(&c, "#table-title").await, "Browser night");
    let seats = text(&c, "#seats").await;
    assert!(seats.starts_with("Ana (host)"), "{seats}");
    assert!(seats.contains("2 seats open"), "{seats}");
    assert!(
        text(&c, "#table-status").await.contains("open to all"),
        "the table is public"
    );
    assert!(text(&c, "#join-command")
        .await
        .contains("tolerance join naddr1"));
    assert!(
        text(&c, "#seats li.empty").await == "2 seats open",
        "the open seats are said"
    );

    // Every registered game, by title, as `tolerance games --json` lists them.
    let games: Vec<Value> = serde_json::from_slice(&run(&hw, &["games", "--json"]).stdout).unwrap();
    let listed = text(&c, "#game-list").await;
    for g in &games {
        let title = g["title"].as_str().unwrap();
        assert!(listed.contains(title), "{title} is not listed: {listed}");
    }

    c.set_window_size(1280, 800).await.unwrap();
    artefact("table-1280x800.png", &c.screenshot().await.unwrap());
    c.set_window_size(360, 740).await.unwrap();
    // At a phone's width nothing runs off the side.
    until(
        &c,
        "document.documentElement.scrollWidth <= window.innerWidth",
    )
    .await;
    artefact("table-360x740.png", &c.screenshot().await.unwrap());
    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_link_or_a_dead_relay_is_said_in_words() {
    let hw = home("browser-bad", "web");
    let (_web, url, _relay) = serve(&hw);
    let d = driver();
    let c = browser(&d).await;
    // A link cut short.
    c.goto(&format!("{url}#naddr1qqqqqq")).await.unwrap();
    error_after(&c, "is not a valid naddr").await;

    // A well-formed link whose only relay is gone: typed into the box, not put in the URL.
    let dead = format!(
        "ws://127.0.0.1:{}",
        tolerance::net::testing::free_port().unwrap()
    );
    let naddr = tolerance::wire::table_naddr(
        &nostr::Keys::generate().public_key(),
        &"cd".repeat(32),
        std::slice::from_ref(&dead),
    );
    let input = c.find(Locator::Id("link")).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(&naddr).await.unwrap();
    c.find(Locator::Css("#open button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let err = error_after(&c, "no relay has this table").await;
    assert!(err.contains(&format!("could not reach {dead}")), "{err}");
    let shown = c.find(Locator::Id("table")).await.unwrap();
    assert!(!shown.is_displayed().await.unwrap(), "no table is shown");
    c.close().await.unwrap();
}

/// Two terminal players play a whole table of `game` (with `extra` host options) over the relay
/// `tolerance web` started; the page then checks every move of it and must come to what
/// `tolerance verify` says: the same verdict, result line and event counts. With `lie`, Ben
/// signs one more event for the table after its end, valid as an event but not a move: both
/// must then refuse the table and name him.
async fn the_page_checks_a_finished_table(game: &str, extra: &[&str], lie: bool) {
    let test = format!("browser-check-{game}");
    let hw = home(&test, "web");
    let (_web, url, relay) = serve(&hw);
    let hb = home(&test, "ben");
    let ben = nostr::Keys::generate();
    let nsec = nostr::prelude::ToBech32::to_bech32(ben.secret_key()).unwrap();
    let out = run(&hb, &["keys", "import", &nsec, "--plain"]);
    assert!(out.status.success(), "{out:?}");
    let mut more = vec!["--title", "checked in a browser"];
    more.extend_from_slice(extra);
    let (host, naddr) = ana_hosts(&test, &relay, game, "2", &more, true);
    let joined = spawn(&hb, &["join", &naddr, "--auto"]);
    let (ok, out, err) = joined.finish(Duration::from_secs(180)).await;
    assert!(ok, "ben: {out}\n{err}");
    let (ok, out, err) = host.finish(Duration::from_secs(60)).await;
    assert!(ok, "ana: {out}\n{err}");
    if lie {
        use nostr::prelude::*;
        let (table, host, _) = tolerance::wire::parse_table_ref(&naddr).unwrap();
        let coordinate = tolerance::wire::table_coordinate(&host.unwrap(), &table);
        let event = EventBuilder::new(Kind::from(tolerance::wire::KIND_LOG), "not a move")
            .tags([Tag::coordinate(coordinate, None)])
            .sign_with_keys(&ben)
            .unwrap();
        let pool = tolerance::net::pool::RelayPool::connect(
            ben.clone(),
            [relay.as_str()],
            tolerance::net::pool::PoolConfig::default(),
        )
        .await
        .unwrap();
        pool.publish(&event).await.unwrap();
        pool.shutdown().await;
    }
    let verified = run(&hw, &["verify", &naddr, "--json"]);
    let cli: Value = serde_json::from_slice(&verified.stdout)
        .unwrap_or_else(|_| panic!("verify --json: {verified:?}"));
    assert_eq!(
        (&cli["ok"], &cli["finished"]),
        (&json!(!lie), &json!(true)),
        "{cli}"
    );

    let d = driver();
    let c = browser(&d).await;
    c.goto(&format!("{url}#{naddr}")).await.unwrap();
    until(&c, "document.body.dataset.table === 'shown'").await;
    assert_eq!(text(&c, "#table-status").await, "playing");
    c.find(Locator::Id("check"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until(&c, "document.body.dataset.verdict").await;
    let verdict = c
        .execute("return document.body.dataset.verdict;", vec![])
        .await
        .unwrap();
    let line = text(&c, "#verdict-line").await;
    if lie {
        assert_eq!(verdict, json!("broken"), "{}", text(&c, "#verdict").await);
        assert_eq!(line, "not verified: 1 problem found");
        let problems: Vec<&str> = cli["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        assert_eq!(text(&c, "#problems").await, problems.join("\n"));
        let short = tolerance::net::profiles::short_npub(&ben.public_key());
        assert!(
            problems.len() == 1 && problems[0].contains(&short),
            "{problems:?}"
        );
    } else {
        assert_eq!(verdict, json!("verified"), "{}", text(&c, "#verdict").await);
        assert!(line.starts_with("verified: every move"), "{line}");
    }
    assert_eq!(
        text(&c, "#verdict-result").await,
        cli["result"].as_str().unwrap()
    );
    let counts = text(&c, "#verdict-counts").await;
    let want = format!(
        "{} events checked; {} on the table's chain",
        cli["events"], cli["chain_events"]
    );
    assert!(counts.starts_with(&want), "{counts} / {cli}");
    let seats = text(&c, "#seats").await;
    assert!(seats.contains("Ana"), "seats by profile name: {seats}");
    assert_eq!(text(&c, "#table-status").await, "over");
    assert!(text(&c, "#join-command")
        .await
        .starts_with("tolerance watch naddr1"));
    c.set_window_size(360, 740).await.unwrap();
    until(
        &c,
        "document.documentElement.scrollWidth <= window.innerWidth",
    )
    .await;
    c.execute(
        "document.getElementById('verdict').scrollIntoView();",
        vec![],
    )
    .await
    .unwrap();
    let shot = if lie { "refused" } else { "verified" };
    artefact(
        &format!("{game}-{shot}-360x740.png"),
        &c.screenshot().await.unwrap(),
    );
    c.close().await.unwrap();
}

/// One test per game of [`the_page_checks_a_finished_table`].
macro_rules! checked_in_the_page {
    ($($name:ident: $game:literal, $extra:expr, $lie:literal;)*) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            the_page_checks_a_finished_table($game, $extra, $lie).await;
        }
    )*};
}

checked_in_the_page! {
    the_page_checks_a_tolerance_table_as_verify_does: "tolerance", &["--hands", "1"], false;
    the_page_checks_a_perudo_table_as_verify_does: "perudo", &[], false;
    the_page_checks_an_all_fives_table_as_verify_does: "all-fives", &["--hands", "1"], false;
    a_seat_that_signs_a_lie_is_named_by_the_page_as_by_verify: "mia", &[], true;
}

/// Median milliseconds of `runs` calls of `f`.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[runs / 2]
}

/// Native figures of what `web/static/bench.js` times in the browser: seat 1's shuffle of a
/// 52-card deck with its proof on top of seat 0's, and another client's check of it.
fn native_shuffle(size: usize, runs: usize) -> (f64, f64) {
    use rand::SeedableRng;
    use tolerance::fair::*;
    let ctx = |seat: u16| {
        let mut actor = [0xa0; 32];
        actor[..2].copy_from_slice(&seat.to_be_bytes());
        Context::new([0x5b; 32], 1, seat, actor)
    };
    let sctx = |seat: u16| ctx(seat).with_step(Step::Shuffle { index: seat });
    let mut secrets = Vec::new();
    let mut verified = Vec::new();
    for s in 0..2u16 {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1000 + u64::from(s));
        let (secret, public) = keygen(&mut rng, &ctx(s)).unwrap();
        verified.push(verify_public_share(&ctx(s), &public).unwrap());
        secrets.push(secret);
    }
    let key = JointKey::from_seats(&verified).unwrap();
    let (first, _) = shuffle_verified(&secrets[0], &sctx(0), &key, size, None).unwrap();
    let mut step = (Vec::new(), Vec::new());
    let prove = median_ms(runs, || {
        let (d, p) = shuffle_verified(&secrets[1], &sctx(1), &key, size, Some(&first)).unwrap();
        step = (d.deck().to_bytes().to_vec(), p.to_bytes().to_vec());
    });
    let verify = median_ms(runs, || {
        verify_shuffle_bytes(&sctx(1), &key, size, Some(&first), &step.0, &step.1).unwrap();
    });
    (prove, verify)
}

/// A benchmark, not a test (figures in BENCHMARKS.md, "The browser page"): the page's size, a
/// 52-card shuffle step in Chromium beside native, and the time from an naddr link to its table
/// and to the first card on screen.
/// `cargo test --release --test suite -- --ignored --nocapture browser::bench`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run it with --ignored --nocapture"]
async fn bench_the_page_beside_native() {
    let dist = page();
    let wasm = std::fs::read(dist.join("pkg/tolerance_web_bg.wasm")).unwrap();
    let mut page_bytes = 0;
    let mut page_deflated = 0;
    for f in [
        "index.html",
        "app.js",
        "style.css",
        "pkg/tolerance_web.js",
        "pkg/tolerance_web_bg.wasm",
    ] {
        let b = std::fs::read(dist.join(f)).unwrap();
        page_bytes += b.len();
        page_deflated += miniz_oxide::deflate::compress_to_vec(&b, 9).len() + 18;
    }
    let hw = home("browser-bench", "web");
    let (_web, url, relay) = serve(&hw);
    let d = driver();
    let c = browser(&d).await;
    c.goto(&format!("{url}bench.html?size=52&runs=10"))
        .await
        .unwrap();
    let end = Instant::now() + Duration::from_secs(300);
    while c
        .execute("return document.body.dataset.done || '';", vec![])
        .await
        .unwrap()
        == json!("")
    {
        assert!(
            Instant::now() < end,
            "the browser's benchmark never finished"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let result: Value = serde_json::from_str(&text(&c, "#result").await)
        .unwrap_or_else(|_| panic!("the browser's benchmark failed"));
    let (prove, verify) = native_shuffle(52, 10);

    // From opening a table's link to the table on screen, on loopback.
    let (_host, naddr) = ana_hosts("browser-bench", &relay, "tolerance", "3", &[], false);
    c.goto(&format!("{url}index.html")).await.unwrap();
    until(&c, "document.body.dataset.ready === 'yes'").await;
    let opened = Instant::now();
    c.goto(&format!("{url}#{naddr}")).await.unwrap();
    until(&c, "document.body.dataset.table === 'shown'").await;
    let shown = opened.elapsed();
    c.close().await.unwrap();

    // From the link to the first card: the step above, then "Sit down" at a 2-seat Tolerance
    // table whose host plays its own seat, to the first turn on screen with the person's cards
    // dealt. The person's own time between the two (making a key, the click) is not counted.
    let seated =
        seated_in_the_page("browser-bench-card", "tolerance", &[], "a bench password").await;
    until(&seated.c, "window.timing && window.timing.shown").await;
    let dealt = script(
        &seated.c,
        "return Math.round(window.timing.shown - window.timing.sat);",
    )
    .await
    .as_u64()
    .expect("a time in milliseconds");
    seated.c.close().await.unwrap();

    println!(
        "page: {page_bytes} bytes, {page_deflated} gzipped (wasm {} bytes)",
        wasm.len()
    );
    println!(
        "52-card shuffle, median of 10: prove {:.1} ms in Chromium, {prove:.1} ms native ({:.2}x); \
         verify {:.1} ms in Chromium, {verify:.1} ms native ({:.2}x)",
        result["prove_ms"].as_f64().unwrap(),
        result["prove_ms"].as_f64().unwrap() / prove,
        result["verify_ms"].as_f64().unwrap(),
        result["verify_ms"].as_f64().unwrap() / verify,
    );
    println!(
        "an naddr link opened to its table on screen: {} ms",
        shown.as_millis()
    );
    println!(
        "an naddr link to the first card on screen: {} ms (the table on screen, then {dealt} ms \
         from Sit down to the first turn with the person's cards dealt; the person's own key and \
         click between them not counted)",
        shown.as_millis() as u64 + dealt
    );
}

async fn type_into(c: &Client, id: &str, text: &str) {
    let e = c.find(Locator::Id(id)).await.unwrap();
    e.clear().await.unwrap();
    e.send_keys(text).await.unwrap();
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no '{css}': {e}"))
        .click()
        .await
        .unwrap();
}

async fn script(c: &Client, js: &str) -> Value {
    c.execute(js, vec![]).await.unwrap()
}

async fn you_read(c: &Client, part: &str) -> String {
    until(
        c,
        &format!("document.getElementById('you-status').textContent.includes({part:?})"),
    )
    .await;
    text(c, "#you-status").await
}

/// The page's error, once it contains `want`; it must read as words, not Debug text.
async fn error_after(c: &Client, want: &str) -> String {
    until(
        c,
        &format!("document.getElementById('error').textContent.includes({want:?})"),
    )
    .await;
    let err = text(c, "#error").await;
    assert!(
        !err.contains("Some(") && !err.contains("Error(") && !err.contains("{"),
        "{err}"
    );
    err
}

/// A person without a signer makes a key in the page: it is kept only encrypted (NIP-49), it
/// exports as an nsec the terminal takes (the terminal then names it on the relay, and the page
/// shows that name), a wrong password, cleared storage, a mistyped import and full storage are
/// each said in words, and the ncryptsec brings the same key back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_made_in_the_page_is_kept_encrypted_and_is_the_terminals_too() {
    use nostr::nips::nip49::EncryptedSecretKey;
    use nostr::prelude::FromBech32;
    const PASSWORD: &str = "a table password";

    let hw = home("browser-key", "web");
    let (_web, url, relay) = serve(&hw);
    let d = driver();
    let c = browser(&d).await;
    c.goto(&url).await.unwrap();
    until(&c, "document.body.dataset.ready === 'yes'").await;
    you_read(&c, "No key in this browser yet").await;

    // Passwords: too short, then two that differ.
    type_into(&c, "make-password", "short").await;
    type_into(&c, "make-again", "short").await;
    click(&c, "#key-make button").await;
    error_after(&c, "at least 8 characters").await;
    type_into(&c, "make-password", PASSWORD).await;
    type_into(&c, "make-again", "another password").await;
    click(&c, "#key-make button").await;
    error_after(&c, "The two passwords differ").await;

    type_into(&c, "make-again", PASSWORD).await;
    click(&c, "#key-make button").await;
    let status = you_read(&c, "Your key is unlocked: npub1").await;
    let npub = status.rsplit(' ').next().unwrap().to_string();
    let public = nostr::PublicKey::from_bech32(&npub).unwrap();

    // Kept only encrypted.
    let storage = script(
        &c,
        "return JSON.stringify(Object.assign({}, localStorage));",
    )
    .await;
    let storage = storage.as_str().unwrap().to_string();
    let ncryptsec = script(
        &c,
        "return localStorage.getItem('tolerance.key.ncryptsec');",
    )
    .await;
    let ncryptsec = ncryptsec.as_str().unwrap().to_string();
    let secret = EncryptedSecretKey::from_bech32(&ncryptsec)
        .unwrap()
        .decrypt(PASSWORD)
        .unwrap();
    assert_eq!(nostr::Keys::new(secret.clone()).public_key(), public);
    assert!(!storage.contains("nsec1"), "{storage}");
    assert!(!storage.contains(&secret.to_secret_hex()), "{storage}");

    // Exported as an nsec, which the terminal takes and names on the relay.
    let nsec = exported_nsec(&c).await;
    assert_eq!(nostr::SecretKey::parse(&nsec).unwrap(), secret);
    let hz = home("browser-key", "zoe");
    let out = run(&hz, &["keys", "import", &nsec, "--plain"]);
    assert!(out.status.success(), "{out:?}");
    let out = run(&hz, &["keys", "show"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&npub),
        "{out:?}"
    );
    let out = run(
        &hz,
        &["keys", "profile", "--name", "Zoe", "--relay", &relay],
    );
    assert!(out.status.success(), "{out:?}");

    // Back later: locked, a wrong password, then the right one, and the name from the relay.
    c.refresh().await.unwrap();
    until(&c, "document.body.dataset.ready === 'yes'").await;
    let status = you_read(&c, "kept in this browser, locked").await;
    assert!(status.contains(&npub), "{status}");
    type_into(&c, "unlock-password", "not the password").await;
    click(&c, "#key-unlock button").await;
    error_after(&c, "this password does not open the key").await;
    type_into(&c, "unlock-password", PASSWORD).await;
    click(&c, "#key-unlock button").await;
    let status = you_read(&c, "You are Zoe").await;
    assert!(status.contains(&npub), "{status}");
    c.set_window_size(360, 740).await.unwrap();
    artefact("key-360.png", &c.screenshot().await.unwrap());
    c.set_window_size(1280, 800).await.unwrap();

    // Storage cleared behind the page's back.
    click(&c, "#lock").await;
    you_read(&c, "locked").await;
    script(&c, "localStorage.clear(); return true;").await;
    type_into(&c, "unlock-password", PASSWORD).await;
    click(&c, "#key-unlock button").await;
    error_after(&c, "No key is kept in this browser any more").await;
    you_read(&c, "No key in this browser yet").await;

    // A mistyped import is refused without repeating it; the ncryptsec brings the key back.
    click(&c, "#import-box summary").await;
    // The last character changed (to one it is not: a typo that left it equal is no typo).
    let last = if nsec.ends_with('q') { 'p' } else { 'q' };
    let typo = format!("{}{last}", &nsec[..nsec.len() - 1]);
    type_into(&c, "import-key", &typo).await;
    type_into(&c, "import-password", PASSWORD).await;
    click(&c, "#key-import button").await;
    let err = error_after(&c, "neither an nsec1").await;
    assert!(!err.contains(&typo[5..25]), "{err}");
    type_into(&c, "import-key", &ncryptsec).await;
    type_into(&c, "import-password", PASSWORD).await;
    click(&c, "#key-import button").await;
    let status = you_read(&c, "You are Zoe").await;
    assert!(status.contains(&npub), "{status}");

    // Forgotten, after being asked twice.
    click(&c, "#forget").await;
    click(&c, "#forget-sure").await;
    you_read(&c, "No key in this browser yet").await;
    let left = script(&c, "return localStorage.length;").await;
    assert_eq!(left, json!(0));

    // Full storage: the key is unlocked for this visit only, said so, and still exports.
    script(
        &c,
        "Storage.prototype.setItem = function () { \
           throw new DOMException('full', 'QuotaExceededError'); }; return true;",
    )
    .await;
    click(&c, "#import-box summary").await;
    type_into(&c, "import-key", &nsec).await;
    type_into(&c, "import-password", PASSWORD).await;
    click(&c, "#key-import button").await;
    error_after(&c, "would not keep your key (its storage is full)").await;
    // Unlocked (then named "You are Zoe" once the relay answers).
    you_read(&c, &npub).await;
    let held = c.find(Locator::Id("key-held")).await.unwrap();
    assert!(held.attr("hidden").await.unwrap().is_none());
    click(&c, "#show-ncryptsec").await;
    until(
        &c,
        "document.getElementById('export').value.startsWith('ncryptsec1')",
    )
    .await;
    let again = script(&c, "return document.getElementById('export').value;").await;
    let again = EncryptedSecretKey::from_bech32(again.as_str().unwrap())
        .unwrap()
        .decrypt(PASSWORD)
        .unwrap();
    assert_eq!(again, secret);
    c.close().await.unwrap();
}

/// Makes a key in the page (the person types a password twice) and waits until it is unlocked;
/// its npub.
/// The page's key as "Show my nsec" shows it.
async fn exported_nsec(c: &Client) -> String {
    click(c, "#show-nsec").await;
    until(
        c,
        "document.getElementById('export').value.startsWith('nsec1')",
    )
    .await;
    let nsec = script(c, "return document.getElementById('export').value;").await;
    nsec.as_str().unwrap().to_string()
}

async fn make_key(c: &Client, password: &str) -> String {
    until(c, "document.body.dataset.ready === 'yes'").await;
    type_into(c, "make-password", password).await;
    type_into(c, "make-again", password).await;
    click(c, "#key-make button").await;
    let status = you_read(c, "Your key is unlocked: npub1").await;
    status.rsplit(' ').next().unwrap().to_string()
}

/// Plays the page's seat by clicks until its table is over: at each turn the test clicks one of
/// the listed moves (`pick` chooses among their texts), as a person would; the moves clicked.
async fn play_by_clicks(c: &Client, pick: impl Fn(&[String]) -> usize, most: Duration) -> usize {
    clicks_until(c, pick, most, usize::MAX).await
}

/// [`play_by_clicks`], stopping after `stop_after` clicks if the table is not over by then.
async fn clicks_until(
    c: &Client,
    pick: impl Fn(&[String]) -> usize,
    most: Duration,
    stop_after: usize,
) -> usize {
    let end = Instant::now() + most;
    let mut clicked = 0;
    let mut last_turn = Value::Null;
    loop {
        let state = script(
            c,
            "return {seat: document.body.dataset.seat || '', turn: document.body.dataset.turn || null, \
             moves: [...document.querySelectorAll('#moves button')].map(b => b.textContent), \
             keys: [...document.querySelectorAll('#moves button')].map(b => b.dataset.move), \
             error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent};",
        )
        .await;
        let seat = state["seat"].as_str().unwrap_or_default();
        if seat == "over" || seat == "left" || clicked >= stop_after {
            return clicked;
        }
        assert!(
            !matches!(seat, "stalled" | "refused"),
            "the page's seat stopped: {}",
            state["error"]
        );
        assert!(
            Instant::now() < end,
            "the table did not end by clicks in {most:?}; the page reads: {}",
            text(c, "main").await
        );
        let moves: Vec<String> = state["moves"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        if !state["turn"].is_null() && state["turn"] != last_turn && !moves.is_empty() {
            // A long list shows only some moves: the one picked is clicked by its own mark.
            let i = pick(&moves);
            let key = state["keys"][i].as_str().unwrap_or_default().to_string();
            click(c, &format!("#moves button[data-move='{key}']")).await;
            last_turn = state["turn"].clone();
            clicked += 1;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// A person seated in the page at a 2-seat table of `game` that Ana hosts from the terminal
/// (`more`: her host options): the page served with its relay, the link opened, a key made with
/// `password`, Sit down clicked and the seat playing.
struct SeatedInThePage {
    _web: Proc,
    host: Proc,
    naddr: String,
    hw: PathBuf,
    _driver: Driver,
    c: Client,
}

async fn seated_in_the_page(
    test: &str,
    game: &str,
    more: &[&str],
    password: &str,
) -> SeatedInThePage {
    let hw = home(test, "web");
    let served = serve(&hw);
    seated_at(test, game, more, password, hw, served).await
}

/// [`seated_in_the_page`] with the page already served (`tolerance web` from the home `hw`).
async fn seated_at(
    test: &str,
    game: &str,
    more: &[&str],
    password: &str,
    hw: PathBuf,
    (web, url, relay): (Proc, String, String),
) -> SeatedInThePage {
    let (host, naddr) = ana_hosts(test, &relay, game, "2", more, true);
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&format!("{url}#{naddr}")).await.unwrap();
    make_key(&c, password).await;
    until(&c, "document.body.dataset.table === 'shown'").await;
    click(&c, "#sit-down").await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    SeatedInThePage {
        _web: web,
        host,
        naddr,
        hw,
        _driver: driver,
        c,
    }
}

/// The page's seat ended its table with `line`: the terminal's seat (`host`, or the player who
/// joined a table the page hosts) ends it with nothing turned away and the same events counted, and a later `tolerance verify` finds it verified with the
/// page's own figures (the game's report). `verify --json`'s answer.
async fn the_host_and_verify_agree(
    c: &Client,
    host: Proc,
    home: &Path,
    naddr: &str,
    line: &str,
) -> Value {
    let (ok, out, err) = host.finish(Duration::from_secs(60)).await;
    assert!(ok, "ana: {out}\n{err}");
    let over = out
        .lines()
        .find(|l| l.starts_with("table over: "))
        .unwrap_or_else(|| panic!("no end line: {out}"));
    assert!(over.ends_with(", 0 rejected)"), "{over}");
    // The same events, counted alike at both seats.
    let count = |l: &str| l.rsplit_once(" (").map(|(_, c)| c.to_string());
    assert_eq!(count(line), count(over), "{line} / {over}");
    verify_agrees_with_the_page(c, home, naddr).await
}

/// A later `tolerance verify` finds the table whole and finished, with the page's seat's own
/// figures (the game's report): `verify --json`'s answer.
async fn verify_agrees_with_the_page(c: &Client, home: &Path, naddr: &str) -> Value {
    let verified = run(home, &["verify", naddr, "--json"]);
    let cli: Value = serde_json::from_slice(&verified.stdout)
        .unwrap_or_else(|_| panic!("verify --json: {verified:?}"));
    assert_eq!(
        (&cli["ok"], &cli["finished"]),
        (&json!(true), &json!(true)),
        "{cli}"
    );
    let page_report = script(c, "return window.lastOver && window.lastOver.report;").await;
    assert_eq!(
        page_report, cli["report"],
        "the page's seat and verify disagree"
    );
    cli
}

/// A person opens a table of `game` hosted from the terminal by its link, makes a key, sits
/// down and plays it by clicks against the host's bot (`pick` choosing among the listed moves).
/// The page's seat checks every event as the terminal's does: it ends the table with nothing
/// turned away, counting the same events as the host, and its figures are those of a later
/// `tolerance verify` and of the page's own check of the whole table. Its shuffles (at least
/// `shuffles` of them) are all proved in the page's worker, none on the page's own thread.
async fn a_person_plays_in_the_page(
    game: &str,
    more: &[&str],
    shuffles: u64,
    pick: fn(&[String]) -> usize,
    drawn: &str,
) {
    let test = format!("browser-play-{game}");
    let SeatedInThePage {
        _web,
        host,
        naddr,
        hw,
        _driver,
        c,
    } = seated_in_the_page(&test, game, more, "a seat password").await;
    let seats = text(&c, "#seats").await;
    assert!(seats.contains("Ana (host)"), "{seats}");
    c.set_window_size(360, 740).await.unwrap();
    // A figure for BENCHMARKS.md, not a check: from "Sit down" to the first turn on screen (the
    // host seats the table, the nonces are opened and checked, the deck is shuffled by both
    // seats and the hand dealt).
    until(&c, "window.timing && window.timing.shown").await;
    let ms = script(
        &c,
        "return Math.round(window.timing.shown - window.timing.sat);",
    )
    .await;
    eprintln!("{game}: {ms} ms from Sit down to the first turn on screen");
    // The table drawn at the first turn: the person's own pieces face up, Ana's face down.
    until(&c, drawn).await;
    play_artefact(&c, &format!("{game}-turn-360x740.png")).await;
    let clicks = play_by_clicks(&c, pick, Duration::from_secs(300)).await;
    assert!(clicks >= 2, "a person moves: {clicks} clicks");
    play_artefact(&c, &format!("{game}-played-360x740.png")).await;
    let line = text(&c, "#over-line").await;
    assert!(
        line.starts_with("table over: ") && line.ends_with(", 0 rejected)"),
        "{line}"
    );

    let cli = the_host_and_verify_agree(&c, host, &hw, &naddr, &line).await;
    let proofs = script(&c, "return window.proofs;").await;
    assert!(
        proofs["worker"].as_u64().unwrap() >= shuffles && proofs["here"] == json!(0),
        "the page's seat proved its shuffles on its own thread: {proofs}"
    );
    // A figure for BENCHMARKS.md, not a check: what still runs on the page's thread.
    eprintln!(
        "{game}: {} shuffles proved in the worker; the longest tick held the page {} ms, taking \
         a worker's shuffle (checking its proof) {} ms; {} moves chosen while their shuffle was \
         in the worker",
        proofs["worker"],
        proofs["longest_tick_ms"],
        proofs["longest_take_ms"],
        proofs["moves_waited"]
    );
    // And the page's own check of the whole table agrees too.
    c.set_window_size(1280, 800).await.unwrap();
    the_pages_check_agrees(&c, &cli).await;
    play_artefact(&c, &format!("{game}-played-1280x800.png")).await;
    c.close().await.unwrap();
}

/// A person hosts a 3-seat Perudo table from the page alone. A form the game cannot seat is
/// refused in words. The table is announced with the page's key by the same lobby `tolerance
/// host` runs; its link and terminal command are shown, and its own panel lists it as anyone
/// opening the link sees it. Only Bo is invited: the page seals him a private message, which
/// `tolerance tables` lists. Bo joins from the terminal by that link, the person starts with the
/// two there, the page seats the table from both nonces, and the person plays the host's seat by
/// clicks to the end: Bo's client, the page and a later `tolerance verify` agree, and so does the
/// page's own check of the whole table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_hosts_from_the_page_and_plays_a_terminal_player_who_joined_by_its_link() {
    let test = "browser-host";
    let hw = home(test, "web");
    let (_web, url, relay) = serve(&hw);
    let hb = home(test, "bo");
    let bo_npub = player(&hb);
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&url).await.unwrap();
    make_key(&c, "a host's password").await;
    let form = |seats: u8| {
        perudo_form(&[
            ("host-seats", seats.to_string()),
            ("host-invite", bo_npub.clone()),
            ("host-invite-only", "true".into()),
        ])
    };
    let (naddr, err) = host_from_the_form(&c, &form(11), "not 11", &form(3)).await;
    assert!(err.contains("Perudo"), "{err}");
    let link = text(&c, "#host-link").await;
    assert!(link.starts_with(&url) && link.ends_with(&naddr), "{link}");
    // The table's own panel, read back from the relay.
    until(&c, "document.body.dataset.table === 'shown'").await;
    let seats = text(&c, "#seats").await;
    assert!(
        seats.contains("(host)") && seats.contains("2 seats open"),
        "{seats}"
    );
    c.set_window_size(360, 740).await.unwrap();
    script(&c, "document.getElementById('host').scrollIntoView();").await;
    artefact("hosting-360x740.png", &c.screenshot().await.unwrap());

    // Bo finds the invitation the page sealed to him among his tables.
    until(
        &c,
        "document.getElementById('host-news').textContent.includes('took the invitation')",
    )
    .await;
    let (invitations, _) = tables_listed(&hb, &relay);
    assert!(invitations.contains(&naddr), "{invitations}");
    let bo = spawn(&hb, &["join", &naddr, "--auto"]);
    // Two of three seats taken: the person starts with the two there.
    until(&c, "!document.getElementById('host-start').hidden").await;
    click(&c, "#host-start").await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    let news = text(&c, "#host-news").await;
    assert!(
        news.contains("joined (2/3)")
            && news.contains("press Start to start now with the 2 players here")
            && news.contains("starting with 2 players")
            && news.contains("seated: "),
        "{news}"
    );
    let line = perudo_by_clicks(&c, 2).await;
    let cli = the_host_and_verify_agree(&c, bo, &hw, &naddr, &line).await;
    c.set_window_size(1280, 800).await.unwrap();
    the_pages_check_agrees(&c, &cli).await;
    c.close().await.unwrap();
}

/// A script that fills in the host form for Perudo at the fast pace, then `fields` (an element's
/// id and its value; "true" ticks a checkbox).
fn perudo_form(fields: &[(&str, String)]) -> String {
    host_form("perudo", fields)
}

/// [`perudo_form`] for `game`.
fn host_form(game: &str, fields: &[(&str, String)]) -> String {
    let mut js = format!(
        "const g = document.getElementById('host-game'); g.value = '{game}'; \
         g.dispatchEvent(new Event('change')); \
         document.getElementById('host-pace').value = 'fast';",
    );
    for (id, value) in fields {
        js.push_str(&if value == "true" {
            format!(" document.getElementById('{id}').checked = true;")
        } else {
            format!(" document.getElementById('{id}').value = '{value}';")
        });
    }
    js
}

/// Hosting from the page's form: `refused` (a script filling it in as the game cannot seat) is
/// said in words containing `why`; then `form` (filled in the same way) hosts the table. The
/// table's naddr, and the words of the refusal.
async fn host_from_the_form(c: &Client, refused: &str, why: &str, form: &str) -> (String, String) {
    script(c, refused).await;
    click(c, "#host-open").await;
    let err = error_after(c, why).await;
    script(c, form).await;
    click(c, "#host-open").await;
    // Bots may fill the table at once: announced is enough.
    until(c, "document.body.dataset.hosting").await;
    (naddr_of(&text(c, "#host-join").await), err)
}

/// "Check every move" in the page finds the table verified, with the result `verify --json`
/// gave (`cli`).
async fn the_pages_check_agrees(c: &Client, cli: &Value) {
    click(c, "#check").await;
    until(c, "document.body.dataset.verdict").await;
    assert_eq!(
        script(c, "return document.body.dataset.verdict;").await,
        json!("verified"),
        "{}",
        text(c, "#verdict").await
    );
    assert_eq!(
        text(c, "#verdict-result").await,
        cli["result"].as_str().unwrap()
    );
}

/// Play against bots from the page alone: the person hosts a 3-seat Perudo table with two bots,
/// each bot a Web Worker of the page with its own core, key and relay connections, that sits down
/// by the table's link as anyone does and plays with the game's bot. No terminal plays: the
/// page's seat plays by clicks to the end, with nothing turned away, and a later `tolerance
/// verify` finds the table whole, the page's figures its own, and three different keys seated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_against_bots_that_the_page_alone_runs() {
    let test = "browser-bots";
    let hw = home(test, "web");
    let (_web, url, _relay) = serve(&hw);
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&url).await.unwrap();
    let me = make_key(&c, "a bots' host password").await;
    let form = |bots: u8| {
        perudo_form(&[
            ("host-seats", "3".into()),
            ("host-bots", bots.to_string()),
            ("host-level", "easy".into()),
        ])
    };
    let (naddr, err) = host_from_the_form(&c, &form(3), "at most 2 bots", &form(2)).await;
    assert!(err.contains("one seat is yours"), "{err}");
    until(&c, "document.body.dataset.seat === 'playing'").await;
    let news = text(&c, "#host-news").await;
    assert!(
        news.contains("joined (3/3)") && news.contains("seated: "),
        "{news}"
    );
    perudo_by_clicks(&c, 1).await;
    // Each bot saw the table to its end too, checking every event.
    until(
        &c,
        "window.botStates && window.botStates['bot 1'] === 'over' && window.botStates['bot 2'] === 'over'",
    )
    .await;
    c.set_window_size(1280, 800).await.unwrap();
    play_artefact(&c, "bots-played-1280x800.png").await;
    verify_agrees_with_the_page(&c, &hw, &naddr).await;
    let seats = text(&c, "#seats").await;
    assert!(
        seats.contains("bot 1") && seats.contains("bot 2") && seats.contains(&me[..10]),
        "three keys, the bots named by their profiles: {seats}"
    );
    c.close().await.unwrap();
}

/// A reload mid-hand at a table the page plays against its own bot: the bot's worker went with
/// the page, and comes back with it. The page kept the bot's key sealed by the table key
/// ("bots") before the bot asked for its seat, and the bot kept its seat's record itself before
/// its events went out. After the reload and "Take your seat back", the bot starts again with
/// that key and takes its seat back from its record, as the person's seat does: both hands are
/// dealt and shown (every card needs the bot's key share), nobody is timed out, a later
/// `tolerance verify` finds the table whole, and no record outlives it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_mid_table_takes_the_pages_bot_back_too() {
    const PASSWORD: &str = "a password for a table with a bot";
    let test = "browser-bot-resume";
    let hw = home(test, "web");
    let (_web, url, _relay) = serve(&hw);
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&url).await.unwrap();
    let me = make_key(&c, PASSWORD).await;
    script(
        &c,
        &host_form(
            "tolerance",
            &[
                ("host-seats", "2".into()),
                ("host-bots", "1".into()),
                ("host-level", "easy".into()),
                ("host-hands", "2".into()),
            ],
        ),
    )
    .await;
    click(&c, "#host-open").await;
    until(&c, "document.body.dataset.hosting").await;
    let naddr = naddr_of(&text(&c, "#host-join").await);
    until(&c, "document.body.dataset.seat === 'playing'").await;
    let clicks = clicks_until(&c, check_or_call, Duration::from_secs(120), 1).await;
    assert_eq!(clicks, 1, "the table ended before the reload");
    let bots = kept_records(&c, "bots.").await;
    assert_eq!(bots.len(), 1, "no record of the page's bots: {bots:?}");
    assert!(
        bots[0].contains("\"sealed\"") && bots[0].contains("bot 1"),
        "{}",
        bots[0]
    );
    let seat = kept_records(&c, "bot-").await;
    assert_eq!(
        seat.len(),
        1,
        "the bot kept no record of its seat: {seat:?}"
    );
    assert!(seat[0].contains("\"master\""), "{}", seat[0]);

    reload_and_unlock(&c, PASSWORD).await;
    until(
        &c,
        "document.getElementById('sit-down').textContent === 'Take your seat back' && !document.getElementById('sit').hidden",
    )
    .await;
    click(&c, "#sit-down").await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    play_by_clicks(&c, check_or_call, Duration::from_secs(240)).await;
    let line = text(&c, "#over-line").await;
    assert!(
        line.starts_with("table over: ") && line.ends_with(", 0 rejected)"),
        "{line}"
    );
    assert!(
        !line.contains("stopped answering") && !line.contains("forfeit"),
        "the bot came back and played: {line}"
    );
    until(
        &c,
        "window.botStates && window.botStates['bot 1'] === 'over'",
    )
    .await;
    records_dropped(&c).await;
    let cli = verify_agrees_with_the_page(&c, &hw, &naddr).await;
    assert_eq!(cli["seats"].as_array().map(Vec::len), Some(2), "{cli}");
    let seats = text(&c, "#seats").await;
    assert!(
        seats.contains("bot 1") && seats.contains(&me[..10]),
        "the bot and the person: {seats}"
    );
    c.close().await.unwrap();
}

/// Two hands of Tolerance: check or call when it may, else the first move listed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_in_the_page_plays_two_hands_of_tolerance_by_clicks() {
    a_person_plays_in_the_page(
        "tolerance",
        &["--hands", "2"],
        2,
        check_or_call,
        &drawn("card:not(.back)", 2, "card.back", 2),
    )
    .await;
}

/// Perudo to its end: the lowest bid, or dudo once a bid stands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_in_the_page_plays_perudo_by_clicks() {
    // Dice only: no shuffle.
    a_person_plays_in_the_page(
        "perudo",
        &[],
        0,
        dudo_when_it_may,
        &drawn("die:not(.hidden)", 5, "die.hidden", 5),
    )
    .await;
}

/// A script's test that the seat's table is drawn with at least `mine` of the person's own
/// pieces (CSS classes) in their spot, and `theirs` face-down pieces in the other spots.
fn drawn(mine_css: &str, mine: usize, theirs_css: &str, theirs: usize) -> String {
    format!(
        "!document.getElementById('play-drawing').hidden && \
         document.querySelectorAll('#play-drawing .spot.you .{mine_css}').length >= {mine} && \
         document.querySelectorAll('#play-drawing .spot:not(.you) .{theirs_css}').length >= {theirs}"
    )
}

/// Perudo's pick: dudo once a bid stands, else the first move listed (the lowest bid).
fn dudo_when_it_may(moves: &[String]) -> usize {
    moves
        .iter()
        .position(|m| m.starts_with("dudo"))
        .unwrap_or(0)
}

/// The page's seat plays Perudo by clicks to its end (at least `least` clicks), turning nothing
/// away: the end line.
async fn perudo_by_clicks(c: &Client, least: usize) -> String {
    let clicks = play_by_clicks(c, dudo_when_it_may, Duration::from_secs(300)).await;
    assert!(
        clicks >= least,
        "the person moves: {clicks} clicks; the page reads: {}",
        text(c, "main").await
    );
    let line = text(c, "#over-line").await;
    assert!(
        line.starts_with("table over: ") && line.ends_with(", 0 rejected)"),
        "{line}"
    );
    line
}

/// A relay that asks proof of work of every event (`tolerance relay --min-pow 8`), at a table
/// whose host asks 12 bits of each request for a seat (`--join-pow 12`): the page makes every
/// proof of work in a worker — the request for a seat, the opening of its nonce and each event
/// of its seat — and none on its own thread; the relay takes them all, and the host, the page
/// and a later `tolerance verify` agree on the table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_makes_its_proofs_of_work_in_a_worker() {
    let test = "browser-pow";
    let hr = home(test, "relay");
    let relay_proc = spawn(&hr, &["relay", "--port", "0", "--min-pow", "8"]);
    let listening = relay_proc.wait_line("relay listening on ", PATIENCE);
    let relay = listening
        .trim_start_matches("relay listening on ")
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let hw = home(test, "web");
    let served = serve_with(&hw, &["--relay", &relay]);
    let served_url = served.1.clone();
    let seated = seated_at(
        test,
        "perudo",
        &["--join-pow", "12"],
        "a pow password",
        hw,
        served,
    )
    .await;
    let c = &seated.c;
    let line = perudo_by_clicks(c, 2).await;
    the_host_and_verify_agree(c, seated.host, &seated.hw, &seated.naddr, &line).await;
    // The request for a seat (12 bits) and the nonce's opening (8), each in a worker.
    let joined = script(c, "return window.lobbyPow;").await;
    assert!(
        joined["worker"].as_u64().unwrap() >= 2 && joined["here"] == json!(0),
        "{joined}"
    );
    let proofs = script(c, "return window.proofs;").await;
    assert!(
        proofs["pow_worker"].as_u64().unwrap() >= 2 && proofs["pow_here"] == json!(0),
        "the seat made proofs of work on the page's thread: {proofs}"
    );
    eprintln!(
        "the page's seat: {} events mined in the worker; the longest tick held the page {} ms",
        proofs["pow_worker"], proofs["longest_tick_ms"]
    );
    seated.c.close().await.unwrap();

    // A person hosting from the page on the same relay, with a bot: the announcements and the
    // lobby's messages are mined in a worker too, and the table plays to its end.
    let c = browser(&seated._driver).await;
    c.goto(&served_url).await.unwrap();
    make_key(&c, "a pow host password").await;
    let form = |bots: u8| {
        perudo_form(&[
            ("host-seats", "2".into()),
            ("host-bots", bots.to_string()),
            ("host-level", "easy".into()),
        ])
    };
    host_from_the_form(&c, &form(2), "at most 1 bot", &form(1)).await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    perudo_by_clicks(&c, 1).await;
    let hosted = script(&c, "return window.lobbyPow;").await;
    assert!(
        hosted["worker"].as_u64().unwrap() >= 2 && hosted["here"] == json!(0),
        "the page's host mined on the page's thread: {hosted}"
    );
    drop(relay_proc);
    c.close().await.unwrap();
}

/// A hand of All Fives: a tile when one fits, else draw or pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_in_the_page_plays_all_fives_by_clicks() {
    a_person_plays_in_the_page(
        "all-fives",
        &["--hands", "1"],
        1,
        |moves| {
            moves
                .iter()
                .position(|m| m != "draw" && m != "pass")
                .unwrap_or(0)
        },
        &drawn("tile:not(.back)", 5, "tile.back", 5),
    )
    .await;
}

fn check_or_call(moves: &[String]) -> usize {
    moves
        .iter()
        .position(|m| m.starts_with("check") || m.starts_with("call"))
        .unwrap_or(0)
}

/// A reload mid-table: the person unlocks the key again and takes the seat back from what the
/// browser kept (the seat's secret encrypted to its key, and the events it signed); the table
/// goes on to its end with no seat removed, and the page's figures are `verify`'s. After the
/// reload the browser offers no Web Worker: the seat proves its shuffles on the page's thread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_mid_table_takes_the_seat_back() {
    const PASSWORD: &str = "a seat password";
    let SeatedInThePage {
        _web,
        host,
        naddr,
        hw,
        _driver,
        c,
    } = seated_in_the_page("browser-resume", "tolerance", &["--hands", "3"], PASSWORD).await;
    let before = clicks_until(&c, check_or_call, Duration::from_secs(120), 2).await;
    assert_eq!(before, 2, "the table ended before the reload");
    let kept = kept_records(&c, "seat.").await;
    assert_eq!(kept.len(), 1, "no record of the seat was kept: {kept:?}");
    assert!(kept[0].contains("\"master\""), "{}", kept[0]);
    // As an older page kept it: in localStorage, and nothing in IndexedDB. The reload moves it.
    script(
        &c,
        "const [k, v] = Object.entries(window.kept()).find(([k]) => k.startsWith('seat.')); \
         localStorage.setItem('tolerance.' + k, v); indexedDB.deleteDatabase('tolerance'); return true;",
    )
    .await;

    reload_and_unlock(&c, PASSWORD).await;
    until(
        &c,
        "document.getElementById('sit-down').textContent === 'Take your seat back' && !document.getElementById('sit').hidden",
    )
    .await;
    // This time the browser gives the page no worker: the seat proves its shuffles itself.
    script(&c, "window.Worker = undefined; return true;").await;
    click(&c, "#sit-down").await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    play_by_clicks(&c, check_or_call, Duration::from_secs(240)).await;
    let line = text(&c, "#over-line").await;
    assert!(
        line.starts_with("table over: ") && line.ends_with(", 0 rejected)"),
        "{line}"
    );
    assert!(
        !line.contains("stopped answering") && !line.contains("forfeit"),
        "{line}"
    );
    records_dropped(&c).await;
    let old = script(
        &c,
        "return Object.keys(localStorage).filter(k => k.startsWith('tolerance.seat.')).length;",
    )
    .await;
    assert_eq!(old, json!(0), "the older page's record was not moved");
    let proofs = script(&c, "return window.proofs;").await;
    assert!(
        proofs["worker"] == json!(0) && proofs["here"].as_u64().unwrap() >= 1,
        "with no worker the seat proves its shuffles itself: {proofs}"
    );

    the_host_and_verify_agree(&c, host, &hw, &naddr, &line).await;
    c.close().await.unwrap();
}

/// An invitation reaches the person in the page, on a relay that asks its readers to sign in
/// (nostr-rs-relay with NIP-42). Ana hosts a Perudo table from the terminal for the page's npub
/// alone. The page signs in with the person's key when the relay challenges it, reads the gift
/// wrap again signed in, opens it, checks its seal and lists the invitation under "Invitations
/// to you", from Ana. Its link opens the table, the person sits down and plays it to the end,
/// and Ana's client and `verify` agree. (nostr-rs-relay 0.8.12, which CI installs, keeps only
/// kind-4 messages from readers not signed in, so this shows the sign-in working, not a gift
/// wrap withheld without it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invitation_reaches_the_page_on_a_relay_that_asks_its_readers_to_sign_in() {
    let test = "browser-invited";
    let relay = tolerance::net::testing::NostrRsRelay::spawn_with_sign_in()
        .await
        .expect("nostr-rs-relay (bash .ci/run installs it)");
    let relay_url = relay.url().to_string();
    let hw = home(test, "web");
    let (_web, url, _) = serve_with(&hw, &["--relay", &relay_url]);
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&url).await.unwrap();
    let npub = make_key(&c, "an invited password").await;
    until(
        &c,
        "document.getElementById('invitations-status').textContent.startsWith('No invitation')",
    )
    .await;

    let (host, naddr) = ana_invites(test, &relay_url, &npub, &["--auto"]);

    click(&c, "#refresh").await;
    until(&c, "document.body.dataset.invitations === '1'").await;
    let listed = text(&c, "#invitations").await;
    assert!(
        listed.contains("Perudo") && listed.contains("from Ana"),
        "{listed}"
    );
    // The relay asked the page to sign in (NIP-42) and took its answer as the person's key:
    // the page says so, and so does the relay's own log.
    let signed_in = script(&c, "return window.signedIn;").await;
    assert_eq!(signed_in, json!([relay_url]), "the page did not sign in");
    let me = nostr_sdk::PublicKey::parse(&npub).unwrap().to_hex();
    let log = relay.log();
    assert!(
        log.contains("client is authenticated: (cid: ") && log.contains(&me[..8]),
        "the relay's log holds no sign-in by {npub}: {log}"
    );
    let status = text(&c, "#invitations-status").await;
    assert_eq!(status, "1 invitation to a table you can open.");
    click(&c, "#invitations a").await;
    until(&c, "document.body.dataset.table === 'shown'").await;
    click(&c, "#sit-down").await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    // A table that ends before the person's first turn says what the host's client said.
    let clicks = play_by_clicks(&c, dudo_when_it_may, Duration::from_secs(300)).await;
    if clicks == 0 {
        let said = host.lines.lock().unwrap().join("\n");
        panic!(
            "the table ended before the person's turn; the page reads: {}\nAna said:\n{said}\n{}",
            text(&c, "#over-line").await,
            host.stderr.lock().unwrap()
        );
    }
    let line = perudo_by_clicks(&c, 0).await;
    the_host_and_verify_agree(&c, host, &hw, &naddr, &line).await;
    c.close().await.unwrap();
}

/// Stands in for the page's network (installed before Sit down). Once the relay holds an event
/// of the log (Ana's first), the seat's log subscription and then its first fetch of the log so
/// far go out. The events of the fetch's answer come to the page on the live subscription
/// instead, and the fetch ends only after the subscription gave what the relay held: every copy
/// of Ana's event reaches the page while the seat still fetches, as from a relay that answers a
/// query from what it held before an event it then sends live. `window.race.moved` counts the
/// events so moved.
const LOG_EVENT_COMES_LIVE: &str = r#"
const Real = window.WebSocket;
const race = (window.race = { moved: 0, fetches: 0 });
let pool = null;
let subscribed = null;
let logEnded;
const logDone = new Promise((resolve) => (logEnded = resolve));
// Resolves once the relay at `url` holds an event `filter` matches.
const held = (url, filter) =>
  new Promise((resolve) => {
    const probe = () => {
      const p = new Real(url);
      let some = false;
      p.onopen = () => p.send(JSON.stringify(['REQ', 'probe', filter]));
      p.onmessage = (e) => {
        const a = JSON.parse(e.data);
        if (a[0] === 'EVENT') some = true;
        if (a[0] !== 'EOSE') return;
        p.close();
        if (some) resolve();
        else setTimeout(probe, 100);
      };
    };
    probe();
  });
window.WebSocket = function (url, ...rest) {
  const ws = new Real(url, ...rest);
  let first = false;
  const send = ws.send.bind(ws);
  ws.send = (data) => {
    const m = JSON.parse(data);
    if (m[0] === 'REQ' && m[1] === 'log' && !subscribed) {
      pool = ws;
      subscribed = held(url, m[2]).then(() => send(data));
    } else if (m[0] === 'REQ' && subscribed && m[1] !== 'log' && (m[2].kinds || []).includes(7767) && !race.fetches) {
      race.fetches++;
      first = true;
      subscribed.then(() => send(data));
    } else {
      send(data);
    }
  };
  let handler = null;
  Object.defineProperty(ws, 'onmessage', { set(h) { handler = h; }, get() { return handler; } });
  ws.addEventListener('message', (e) => {
    const msg = JSON.parse(e.data);
    if (first && msg[0] === 'EVENT' && msg[2].kind === 7767) {
      race.moved++;
      pool.onmessage({ data: JSON.stringify(['EVENT', 'log', msg[2]]) });
      return;
    }
    // The fetch ends after the subscription gave what the relay held.
    if (first && msg[0] === 'EOSE') {
      logDone.then(() => handler && handler(e));
      return;
    }
    if (handler) handler(e);
    if (ws === pool && msg[0] === 'EOSE' && msg[1] === 'log') logEnded();
  });
  return ws;
};
return true;
"#;

/// An event of the table that reaches the page's seat on its live subscription while the seat
/// still fetches the log so far is the seat's: here Ana's first event of the table comes live
/// during that fetch and is not in its answer (`LOG_EVENT_COMES_LIVE`). The seat plays on and
/// has its first turn; a seat that set such an event aside would wait at the table's first step
/// for Ana's event it already had, and vote her out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_that_comes_while_the_seat_fetches_the_log_is_the_seat_s() {
    let test = "browser-early-event";
    let hw = home(test, "web");
    let (_web, url, relay) = serve(&hw);
    let (_host, naddr) = ana_hosts(test, &relay, "perudo", "2", &[], true);
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&format!("{url}#{naddr}")).await.unwrap();
    make_key(&c, "an early password").await;
    until(&c, "document.body.dataset.table === 'shown'").await;
    script(&c, LOG_EVENT_COMES_LIVE).await;
    click(&c, "#sit-down").await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    // Within PATIENCE (30 s): well before the page would vote Ana out at the table's first
    // step (its 30 s and the relay allowance's 30 s).
    until(&c, "document.body.dataset.turn").await;
    let race = script(&c, "return window.race;").await;
    assert!(
        race["moved"].as_u64().unwrap_or(0) >= 1,
        "no event of the log came live during the seat's fetch: {race}"
    );
    c.close().await.unwrap();
}

/// With a signer extension, the person's invitations are opened by the extension (two NIP-44
/// decryptions a message, asked only when the person presses "Read my invitations") and checked
/// in the page. Ana invites the identity to a table from the terminal; Mallory sends a message
/// that claims Ana wrote it but seals it with his own key. The page lists Ana's invitation,
/// from Ana, and refuses Mallory's, saying one message did not check out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_extension_opens_the_invitations_and_a_forged_sender_is_refused() {
    use nostr_sdk::prelude::*;
    let test = "browser-extension-invited";
    let hw = home(test, "web");
    let (_web, url, relay) = serve(&hw);
    let identity = Keys::generate();
    let npub = identity.public_key().to_bech32().unwrap();
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&url).await.unwrap();
    until(&c, "document.body.dataset.ready === 'yes'").await;
    use_extension(&c, &identity).await;
    until(
        &c,
        "document.getElementById('invitations-status').textContent.includes('press Read my invitations')",
    )
    .await;

    let (_host, naddr) = ana_invites(test, &relay, &npub, &[]);

    // Mallory's message names Ana's table and claims Ana as its author, sealed by Mallory.
    let table = Nip19Coordinate::from_bech32(&naddr).unwrap();
    let ana = table.public_key;
    let mallory = Keys::generate();
    let mut rumor = EventBuilder::private_msg_rumor(identity.public_key(), "join us")
        .tags(tolerance::table::host::invitation_tags(
            &ana,
            &table.identifier,
        ))
        .build(ana);
    rumor.ensure_id();
    let sealed = nip44::encrypt(
        mallory.secret_key(),
        &identity.public_key(),
        rumor.as_json(),
        nip44::Version::V2,
    )
    .unwrap();
    let seal = EventBuilder::new(Kind::Seal, sealed)
        .sign_with_keys(&mallory)
        .unwrap();
    let wrap = EventBuilder::gift_wrap_from_seal(&identity.public_key(), &seal, []).unwrap();
    let client = nostr_sdk::Client::default();
    client.add_relay(&relay).await.unwrap();
    client.connect().await;
    let sent = client.send_event(&wrap).await.unwrap();
    assert!(!sent.success.is_empty(), "{sent:?}");
    client.disconnect().await;

    click(&c, "#invitations-read").await;
    // The extension opens what it is asked to, as the identity, until the page is done.
    let end = Instant::now() + PATIENCE;
    let mut opened = 0;
    loop {
        let done = script(&c, "return document.body.dataset.invitations || null;").await;
        if !done.is_null() {
            break;
        }
        assert!(
            Instant::now() < end,
            "the page never listed: {}",
            text(&c, "#lobby").await
        );
        let ask = script(&c, "return window.__ext.asks.shift() || null;").await;
        if ask.is_null() {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        assert_eq!(ask["kind"], json!("decrypt"), "{ask}");
        let from = PublicKey::from_hex(ask["arg"]["pk"].as_str().unwrap()).unwrap();
        let plain = nip44::decrypt(
            identity.secret_key(),
            &from,
            ask["arg"]["ct"].as_str().unwrap(),
        )
        .unwrap();
        extension_answers(&c, ask["id"].as_u64().unwrap(), json!(plain)).await;
        opened += 1;
    }
    assert_eq!(opened, 4, "two messages, each opened in two layers");
    assert_eq!(script(&c, "return window.__ext.signs;").await, json!(0));
    let listed = text(&c, "#invitations").await;
    assert!(
        listed.contains("Perudo") && listed.contains("from Ana") && !listed.contains("hosted by"),
        "{listed}"
    );
    let status = text(&c, "#invitations-status").await;
    assert_eq!(
        status,
        "1 invitation to a table you can open. 1 private message could not be opened or did \
         not check out."
    );
    c.close().await.unwrap();
}

/// A reload of the page, then its kept key unlocked with `password`, and the table of the link
/// shown again.
async fn reload_and_unlock(c: &Client, password: &str) {
    c.refresh().await.unwrap();
    until(c, "document.body.dataset.ready === 'yes'").await;
    type_into(c, "unlock-password", password).await;
    click(c, "#key-unlock button").await;
    you_read(c, "npub1").await;
    until(c, "document.body.dataset.table === 'shown'").await;
}

/// The page asks the extension to open the table key sealed to `identity` in its record, and
/// the extension opens it.
async fn extension_opens_the_table_key(c: &Client, identity: &nostr_sdk::Keys, table_key: &str) {
    let (id, kind, ask) = extension_asked(c).await;
    assert_eq!(kind, "decrypt", "{ask}");
    assert_eq!(ask["pk"], json!(table_key));
    let opened = nostr_sdk::nips::nip44::decrypt(
        identity.secret_key(),
        &nostr_sdk::PublicKey::from_hex(table_key).unwrap(),
        ask["ct"].as_str().unwrap(),
    )
    .unwrap();
    extension_answers(c, id, json!(opened)).await;
}

/// The records the browser holds in the page's IndexedDB (read from the database itself, not
/// the page's memory) whose key starts with `kind` ("seat.", "join.").
async fn kept_records(c: &Client, kind: &str) -> Vec<String> {
    let all = c
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             const r = indexedDB.open('tolerance'); \
             r.onerror = () => done(null); \
             r.onsuccess = () => { \
               const db = r.result; const out = {}; \
               if (!db.objectStoreNames.contains('records')) { db.close(); done(out); return; } \
               const c = db.transaction('records').objectStore('records').openCursor(); \
               c.onsuccess = () => { const x = c.result; \
                 if (x) { out[x.key] = x.value; x.continue(); } else { db.close(); done(out); } }; \
             };",
            vec![],
        )
        .await
        .unwrap();
    all.as_object()
        .unwrap_or_else(|| panic!("the page's storage did not open: {all}"))
        .iter()
        .filter(|(k, _)| k.starts_with(kind))
        .map(|(_, v)| v.as_str().unwrap().to_string())
        .collect()
}

/// The page dropped its records of the seat once the relays took its last events.
async fn records_dropped(c: &Client) {
    until(c, "document.body.dataset.records === 'dropped'").await;
    assert_eq!(
        kept_records(c, "").await,
        Vec::<String>::new(),
        "a record outlived its table"
    );
}

/// A reload while the page's seat is asked for and the table not yet full. The page kept the
/// seating nonce (sealed to its key, in IndexedDB) before its join went out. While the page is
/// away, Bo joins from the terminal and the table fills: the host lists the page's commitment
/// and waits for its nonce. "Take your seat back" opens that same nonce (a fresh one would not
/// match and would lose the seat), the host seats the table, and the person plays it to the end:
/// Ana's and Bo's clients, the page and a later `verify` agree, and nothing is left kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_while_the_table_fills_keeps_the_seat_asked_for() {
    const PASSWORD: &str = "a lobby password";
    let test = "browser-lobby-reload";
    let hw = home(test, "web");
    let (_web, url, relay) = serve(&hw);
    let (ana, naddr) = ana_hosts(test, &relay, "perudo", "3", &[], true);
    let hb = home(test, "bo");
    player(&hb);
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&format!("{url}#{naddr}")).await.unwrap();
    make_key(&c, PASSWORD).await;
    until(&c, "document.body.dataset.table === 'shown'").await;
    click(&c, "#sit-down").await;
    until(&c, "document.body.dataset.seat === 'waiting'").await;
    let asked = kept_records(&c, "join.").await;
    assert_eq!(asked.len(), 1, "no record of the seat asked for: {asked:?}");

    reload_and_unlock(&c, PASSWORD).await;
    // The table fills while the page is not asking: its nonce is what the host waits for.
    let bo = spawn(&hb, &["join", &naddr, "--auto"]);
    until(
        &c,
        "document.getElementById('table-status').textContent === 'seating the players' && \
         document.getElementById('sit-down').textContent === 'Take your seat back' && \
         !document.getElementById('sit').hidden",
    )
    .await;
    click(&c, "#sit-down").await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    let line = perudo_by_clicks(&c, 1).await;
    assert!(!line.contains("stopped answering"), "{line}");
    let (ok, out, err) = bo.finish(Duration::from_secs(60)).await;
    assert!(ok, "bo: {out}\n{err}");
    the_host_and_verify_agree(&c, ana, &hw, &naddr, &line).await;
    records_dropped(&c).await;
    c.close().await.unwrap();
}

/// A reload while the page hosts a table for the invited (Bo) and its bots that is still
/// filling. Before each announcement went out the page kept its lobby (the seed of the host's
/// nonces sealed to its key). While the page is away Bo joins from the terminal. "Take your
/// table back" reads the lobby from the relay, lists Bo, starts a new bot in the place of the
/// one that stopped with the reload (the old bot's join, sent again by the relay, is not taken
/// twice), seats the table and the person plays it to the end: Bo's client, the page and a
/// later `verify` agree, and nothing stays kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_while_the_page_hosts_takes_the_table_back() {
    const PASSWORD: &str = "a reloading host's password";
    let test = "browser-host-reload";
    let hw = home(test, "web");
    let (_web, url, _relay) = serve(&hw);
    let hb = home(test, "bo");
    let bo_npub = player(&hb);
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&url).await.unwrap();
    let me = make_key(&c, PASSWORD).await;
    // For Bo only, and the page's bots: the bot started after the reload is let in too.
    script(
        &c,
        &perudo_form(&[
            ("host-seats", "3".into()),
            ("host-bots", "1".into()),
            ("host-level", "easy".into()),
            ("host-invite", bo_npub),
            ("host-invite-only", "true".into()),
        ]),
    )
    .await;
    click(&c, "#host-open").await;
    // The relay holds the announcement listing the bot, so the record listing it was kept.
    until(
        &c,
        "document.body.dataset.table === 'shown' && \
         document.getElementById('seats').textContent.includes('1 seat open')",
    )
    .await;
    let naddr = naddr_of(&text(&c, "#host-join").await);
    let kept = kept_records(&c, "host.").await;
    assert_eq!(kept.len(), 1, "no record of the table hosted: {kept:?}");
    let record: Value = serde_json::from_str(&kept[0]).unwrap();
    assert_eq!(
        record["lobby"]["spec"]["lobby"]["players"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    reload_and_unlock(&c, PASSWORD).await;
    // Bo asks while nobody hosts: the relay keeps his join for the host's return.
    let bo = spawn(&hb, &["join", &naddr, "--auto"]);
    let take_back_offered =
        "document.getElementById('sit-down').textContent === 'Take your table back' && \
         !document.getElementById('sit').hidden";
    until(&c, take_back_offered).await;
    // A second tab of the same browser is offered the table too, and refused once this one
    // took it back: two tabs would sign for one lobby twice.
    let first = c.window().await.unwrap();
    let second = c.new_window(true).await.unwrap().handle;
    c.switch_to_window(second).await.unwrap();
    c.goto(&format!("{url}#{naddr}")).await.unwrap();
    until(&c, "document.body.dataset.ready === 'yes'").await;
    type_into(&c, "unlock-password", PASSWORD).await;
    click(&c, "#key-unlock button").await;
    you_read(&c, "npub1").await;
    until(&c, take_back_offered).await;
    c.switch_to_window(first.clone()).await.unwrap();
    click(&c, "#sit-down").await;
    until(&c, "document.body.dataset.hosting").await;
    let second = c
        .windows()
        .await
        .unwrap()
        .into_iter()
        .find(|w| *w != first)
        .unwrap();
    c.switch_to_window(second).await.unwrap();
    click(&c, "#sit-down").await;
    let said = error_after(&c, "another tab").await;
    assert!(
        said.contains("open in another tab of this browser"),
        "{said}"
    );
    c.close_window().await.unwrap();
    c.switch_to_window(first).await.unwrap();
    until(&c, "document.body.dataset.seat === 'playing'").await;
    let news = text(&c, "#host-news").await;
    assert!(
        news.contains("stopped with the reload")
            && news.contains("left")
            && news.contains("joined (3/3)")
            && news.contains("seated: ")
            && !news.contains("never revealed"),
        "taken back without a round lost: {news}"
    );
    assert_eq!(news.matches(" left").count(), 1, "{news}");
    let line = perudo_by_clicks(&c, 1).await;
    let cli = the_host_and_verify_agree(&c, bo, &hw, &naddr, &line).await;
    assert_eq!(cli["seats"].as_array().map(Vec::len), Some(3), "{cli}");
    let seats = text(&c, "#seats").await;
    assert!(
        seats.contains("bot 1") && seats.contains(&me[..10]),
        "the new bot and the person: {seats}"
    );
    records_dropped(&c).await;
    c.close().await.unwrap();
}

/// A person who leaves from the page (Leave, then the confirmation) signs the seat's leave: the
/// host's bot goes on at once instead of waiting out the table's minute a move, the page says the
/// person left, the record of the seat is dropped, and the relay's copy holds a removal for
/// leaving and not one timeout vote.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_from_the_page_signs_the_leave_and_the_host_goes_on_at_once() {
    let SeatedInThePage {
        _web,
        host,
        naddr,
        hw,
        _driver,
        c,
    } = seated_in_the_page(
        "browser-leave",
        "tolerance",
        &["--hands", "5"],
        "a seat password",
    )
    .await;
    assert_eq!(
        clicks_until(&c, check_or_call, Duration::from_secs(120), 1).await,
        1
    );
    // The leave is clicked while the seat's next turn shows its moves: that panel appearing
    // once moved the button down between the driver's aim and its click, which then landed on
    // "folds". The button now stands where no panel's coming or going moves it.
    until(&c, "document.body.dataset.turn").await;
    let tops = script(
        &c,
        "const turn = document.getElementById('turn'); const was = turn.hidden; \
         const top = () => document.getElementById('leave').getBoundingClientRect().top; \
         turn.hidden = false; const shown = top(); turn.hidden = true; const hidden = top(); \
         turn.hidden = was; return [shown, hidden];",
    )
    .await;
    assert_eq!(
        tops[0], tops[1],
        "the leave button moves when the turn's moves show or go: {tops}"
    );
    click(&c, "#leave").await;
    until(&c, "!document.getElementById('leave-sure').hidden").await;
    click(&c, "#leave-sure").await;
    until(&c, "document.body.dataset.seat === 'left'").await;
    let said = text(&c, "#play-status").await;
    assert!(said.starts_with("you left the table"), "{said}");
    records_dropped(&c).await;

    // Without the leave, the host would wait out a minute and its bank before voting.
    let (ok, out, err) = host.finish(Duration::from_secs(50)).await;
    assert!(ok, "ana: {out}\n{err}");
    assert!(out.contains("left the table"), "{out}");
    let v = run(&hw, &["verify", &naddr, "--json"]);
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(v.status.success(), "{text}");
    assert!(text.contains("\"left\""), "{text}");
    assert!(!text.contains("timed_out"), "{text}");
    c.close().await.unwrap();
}

/// A NIP-07 extension for the page, as the test plays it: `window.nostr` answers
/// `getPublicKey` with the person's identity at once and queues every `signEvent` and
/// `nip44.decrypt` as an ask the test answers from outside the page, as an extension's own
/// process would (the page never sees the identity's secret). `window.__ext.signs` counts the
/// signatures asked for: the person's approvals.
const EXTENSION: &str = r#"
window.__ext = {
  asks: [], answers: {}, signs: 0, next: 0,
  ask(kind, arg) {
    const id = this.next++;
    this.asks.push({ id, kind, arg });
    return new Promise((ok, no) => { this.answers[id] = { ok, no }; });
  },
  answer(id, value, refuse) {
    const a = this.answers[id];
    delete this.answers[id];
    if (refuse) a.no(new Error(value)); else a.ok(value);
  },
};
window.nostr = {
  getPublicKey: () => Promise.resolve("IDENTITY"),
  signEvent: (ev) => { window.__ext.signs++; return window.__ext.ask("sign", ev); },
  nip44: {
    encrypt: (pk, text) => window.__ext.ask("encrypt", { pk, text }),
    decrypt: (pk, ct) => window.__ext.ask("decrypt", { pk, ct }),
  },
};
"#;

/// Puts the test's extension in the page for `identity` and has the person use it.
async fn use_extension(c: &Client, identity: &nostr_sdk::Keys) {
    let hex = identity.public_key().to_hex();
    c.execute(&EXTENSION.replace("IDENTITY", &hex), vec![])
        .await
        .unwrap();
    click(c, "#signer-use").await;
    you_read(c, "with your extension: npub1").await;
}

/// The next thing the page asked the extension: its id, kind (`sign`, `decrypt`) and argument.
async fn extension_asked(c: &Client) -> (u64, String, Value) {
    let end = Instant::now() + PATIENCE;
    loop {
        let ask = script(c, "return window.__ext.asks.shift() || null;").await;
        if !ask.is_null() {
            return (
                ask["id"].as_u64().unwrap(),
                ask["kind"].as_str().unwrap().to_string(),
                ask["arg"].clone(),
            );
        }
        assert!(
            Instant::now() < end,
            "the page asked its extension nothing; it reads: {}",
            text(c, "main").await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn extension_answers(c: &Client, id: u64, value: Value) {
    c.execute(
        "window.__ext.answer(arguments[0], arguments[1], false);",
        vec![json!(id), value],
    )
    .await
    .unwrap();
}

/// What an extension does with an event the page asks it to sign: signs it as `keys`.
fn extension_signs(keys: &nostr_sdk::Keys, ask: &Value) -> Value {
    use nostr_sdk::prelude::*;
    let tags: Vec<Tag> = ask["tags"]
        .as_array()
        .expect("tags")
        .iter()
        .map(|t| Tag::parse(serde_json::from_value::<Vec<String>>(t.clone()).unwrap()).unwrap())
        .collect();
    let ev = EventBuilder::new(
        Kind::from(ask["kind"].as_u64().unwrap() as u16),
        ask["content"].as_str().unwrap(),
    )
    .tags(tags)
    .custom_created_at(Timestamp::from(ask["created_at"].as_u64().unwrap()))
    .sign_with_keys(keys)
    .unwrap();
    serde_json::from_str(&ev.as_json()).unwrap()
}

/// A person whose identity stays in a NIP-07 signer extension sits down from the page (§2.3):
/// an answer signed by another key is refused in words, then the extension approves once a key
/// the page made for this table, and that key plays every move — no other signature is asked
/// of the extension, through the table and a reload. After the reload the extension opens the
/// table key the record sealed to the identity and the seat is taken back. The host, the page
/// and a later `verify` agree, and `verify` names the seat by the identity, not the table key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_with_a_signer_extension_sits_down_by_one_approval_and_comes_back() {
    use nostr_sdk::prelude::ToBech32;
    let test = "browser-extension";
    let hw = home(test, "web");
    let (_web, url, relay) = serve(&hw);
    let (host, naddr) = ana_hosts(test, &relay, "tolerance", "2", &["--hands", "3"], true);
    let identity = nostr_sdk::Keys::generate();
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&format!("{url}#{naddr}")).await.unwrap();
    until(&c, "document.body.dataset.ready === 'yes'").await;
    use_extension(&c, &identity).await;
    until(&c, "document.body.dataset.table === 'shown'").await;

    // An extension that answers with another key's signature seats nobody.
    click(&c, "#sit-down").await;
    let (id, kind, ask) = extension_asked(&c).await;
    assert_eq!(kind, "sign");
    assert_eq!(ask["kind"], json!(7770), "{ask}");
    assert_eq!(ask["pubkey"], json!(identity.public_key().to_hex()));
    let stranger = nostr_sdk::Keys::generate();
    extension_answers(&c, id, extension_signs(&stranger, &ask)).await;
    let said = error_after(&c, "not with npub1").await;
    assert!(said.contains("signed with npub1"), "{said}");
    until(&c, "document.body.dataset.seat === 'refused'").await;

    // The real approval: one signature, and the seat plays.
    click(&c, "#sit-down").await;
    let (id, _, ask) = extension_asked(&c).await;
    let table_key = ask["tags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t[0] == "p")
        .map(|t| t[1].as_str().unwrap().to_string())
        .unwrap();
    assert_ne!(table_key, identity.public_key().to_hex());
    extension_answers(&c, id, extension_signs(&identity, &ask)).await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    let seats = text(&c, "#seats").await;
    let identity_npub = identity.public_key().to_bech32().unwrap();
    assert!(seats.contains("Ana (host)"), "{seats}");
    let before = clicks_until(&c, check_or_call, Duration::from_secs(120), 2).await;
    assert_eq!(before, 2, "the table ended before the reload");
    assert_eq!(script(&c, "return window.__ext.signs;").await, json!(2));

    // A reload: the extension is back (as extensions come back), and opens the sealed key.
    c.refresh().await.unwrap();
    until(&c, "document.body.dataset.ready === 'yes'").await;
    use_extension(&c, &identity).await;
    until(
        &c,
        "document.getElementById('sit-down').textContent === 'Take your seat back' && !document.getElementById('sit').hidden",
    )
    .await;
    click(&c, "#sit-down").await;
    extension_opens_the_table_key(&c, &identity, &table_key).await;
    until(&c, "document.body.dataset.seat === 'playing'").await;
    play_by_clicks(&c, check_or_call, Duration::from_secs(240)).await;
    assert_eq!(
        script(&c, "return window.__ext.signs;").await,
        json!(0),
        "the extension was asked to sign a move"
    );
    let line = text(&c, "#over-line").await;
    assert!(
        line.starts_with("table over: ") && line.ends_with(", 0 rejected)"),
        "{line}"
    );
    assert!(!line.contains("forfeit"), "{line}");

    let cli = the_host_and_verify_agree(&c, host, &hw, &naddr, &line).await;
    let ids: Vec<&str> = cli["identities"]
        .as_array()
        .unwrap_or_else(|| panic!("no identities: {cli}"))
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(ids.len(), 2, "{cli}");
    // The seats are drawn from the players' nonces: find the person's.
    let at = ids
        .iter()
        .position(|i| *i == identity_npub)
        .unwrap_or_else(|| panic!("verify does not name the identity: {cli}"));
    // The seat itself is the table key's.
    let key = nostr_sdk::PublicKey::from_hex(&table_key).unwrap();
    let seat = cli["seats"][at].as_str().unwrap_or_default();
    assert!(
        seat == table_key || seat == key.to_bech32().unwrap(),
        "the seat is not the table key: {cli}"
    );
    c.close().await.unwrap();
}

/// A person whose identity stays in a signer extension hosts from the page, inviting Bo: the
/// extension approves once the key the page made for the table, and is asked to seal Bo's
/// invitation. The page reloads before the extension answers. "Take your table back" asks the
/// extension to open the table key sealed in the record, then to seal the invitation the page
/// had not sent, which goes out once (Bo's `tolerance tables` lists it once). Bo joins from the
/// terminal, the table fills and is seated, and the person plays it to the end with no other
/// signature asked of the extension. Bo's client, the page and a later `verify` agree, and
/// `verify` names the host and the person's seat by the identity.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_with_a_signer_extension_hosts_and_takes_the_table_back_after_a_reload() {
    use nostr_sdk::prelude::ToBech32;
    let test = "browser-extension-host";
    let hw = home(test, "web");
    let (_web, url, relay) = serve(&hw);
    let hb = home(test, "bo");
    let bo_npub = player(&hb);
    let identity = nostr_sdk::Keys::generate();
    let driver = driver();
    let c = browser(&driver).await;
    c.goto(&url).await.unwrap();
    until(&c, "document.body.dataset.ready === 'yes'").await;
    use_extension(&c, &identity).await;
    script(
        &c,
        &perudo_form(&[("host-seats", "2".into()), ("host-invite", bo_npub.clone())]),
    )
    .await;
    click(&c, "#host-open").await;
    let (id, kind, ask) = extension_asked(&c).await;
    assert_eq!(
        (kind.as_str(), &ask["kind"]),
        ("sign", &json!(7770)),
        "{ask}"
    );
    extension_answers(&c, id, extension_signs(&identity, &ask)).await;
    until(&c, "document.body.dataset.table === 'shown'").await;
    let naddr = naddr_of(&text(&c, "#host-join").await);
    let kept = kept_records(&c, "host.").await;
    assert_eq!(kept.len(), 1, "no record of the table hosted: {kept:?}");
    let table_key = serde_json::from_str::<Value>(&kept[0]).unwrap()["table_key"]["key"]
        .as_str()
        .expect("the table key is kept sealed to the identity")
        .to_string();
    assert_ne!(table_key, identity.public_key().to_hex());
    // The identity seals Bo's invitation: the page asks the extension to encrypt it, and the
    // page reloads before the extension answers.
    let (_, kind, _) = extension_asked(&c).await;
    assert_eq!(kind, "encrypt");

    c.refresh().await.unwrap();
    until(&c, "document.body.dataset.ready === 'yes'").await;
    use_extension(&c, &identity).await;
    until(&c, "document.body.dataset.table === 'shown'").await;
    until(
        &c,
        "document.getElementById('sit-down').textContent === 'Take your table back' && \
         !document.getElementById('sit').hidden",
    )
    .await;
    click(&c, "#sit-down").await;
    extension_opens_the_table_key(&c, &identity, &table_key).await;
    // The invitation the page had not sent goes once the table is taken back.
    let (id, kind, arg) = extension_asked(&c).await;
    assert_eq!(kind, "encrypt");
    let bo_key = nostr_sdk::PublicKey::parse(&bo_npub).unwrap();
    assert_eq!(arg["pk"], json!(bo_key.to_hex()));
    let sealed = nostr_sdk::nips::nip44::encrypt(
        identity.secret_key(),
        &bo_key,
        arg["text"].as_str().unwrap(),
        nostr_sdk::nips::nip44::Version::default(),
    )
    .unwrap();
    extension_answers(&c, id, json!(sealed)).await;
    let (id, kind, ask) = extension_asked(&c).await;
    assert_eq!((kind.as_str(), ask["kind"].as_u64()), ("sign", Some(13)));
    extension_answers(&c, id, extension_signs(&identity, &ask)).await;
    until(
        &c,
        "document.getElementById('host-news').textContent.includes('invited')",
    )
    .await;
    let listed = run(&hb, &["tables", "--relay", &relay, "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let invitations = listed["invitations"].as_array().unwrap();
    assert_eq!(
        invitations
            .iter()
            .filter(|t| t.to_string().contains(&naddr))
            .count(),
        1,
        "Bo is invited once: {listed}"
    );
    let bo = spawn(&hb, &["join", &naddr, "--auto"]);
    until(&c, "document.body.dataset.seat === 'playing'").await;
    let line = perudo_by_clicks(&c, 1).await;
    assert_eq!(
        script(&c, "return window.__ext.signs;").await,
        json!(1),
        "after the reload the extension signed the invitation's seal, and no move"
    );
    let cli = the_host_and_verify_agree(&c, bo, &hw, &naddr, &line).await;
    let identity_npub = identity.public_key().to_bech32().unwrap();
    assert_eq!(cli["host_identity"], json!(identity_npub), "{cli}");
    assert!(
        cli["identities"]
            .as_array()
            .is_some_and(|ids| ids.contains(&json!(identity_npub))),
        "{cli}"
    );
    records_dropped(&c).await;
    c.close().await.unwrap();
}

/// Waits for the feedback form's outcome (`yes`: delivered, `no`: said why) and reads it.
async fn feedback_outcome(c: &Client, want: &str) -> String {
    until(
        c,
        &format!("document.getElementById('feedback-status').dataset.sent === {want:?}"),
    )
    .await;
    let said = text(c, "#feedback-status").await;
    script(
        c,
        "delete document.getElementById('feedback-status').dataset.sent;",
    )
    .await;
    said
}

/// Feedback from the page goes where `tolerance feedback` sends it (here to an author key the
/// serving machine's config.toml names, as for the terminal). With the page's own key: an empty
/// message is refused in words; a private message is a NIP-17 gift wrap the author opens and
/// finds from the page's key with the feedback subject — on the page's relay and on the inbox
/// relay the author's signed list names — and the page's key opens its own copy; ticked
/// "public", a note that mentions the author. With a signer extension the identity
/// seals and signs the message itself (one encryption and one signature asked), and the author
/// finds it from the identity.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feedback_from_the_page_reaches_the_author_privately_or_as_a_public_note() {
    use nostr_sdk::prelude::*;
    use tolerance::net::dm;
    use tolerance::net::pool::{PoolConfig, RelayPool};

    let author = Keys::generate();
    let author_npub = author.public_key().to_bech32().unwrap();
    let hw = home("browser-feedback", "web");
    std::fs::create_dir_all(&hw).unwrap();
    std::fs::write(
        hw.join("config.toml"),
        format!("author = \"{author_npub}\"\n"),
    )
    .unwrap();
    let (_web, url, relay) = serve(&hw);
    let d = driver();
    let c = browser(&d).await;
    c.goto(&url).await.unwrap();
    let me = PublicKey::from_bech32(&make_key(&c, "a feedback password").await).unwrap();
    until(
        &c,
        &format!("document.getElementById('feedback-to').textContent.includes({author_npub:?})"),
    )
    .await;

    click(&c, "#feedback-send").await;
    let said = feedback_outcome(&c, "no").await;
    assert!(
        said.contains("empty") && said.contains("nothing sent"),
        "{said}"
    );

    // The author reads private messages on an inbox relay of its own, and says so (NIP-17).
    let inbox = tolerance::net::relay::EmbeddedRelay::start(Default::default())
        .await
        .unwrap();
    let on_page_relay = RelayPool::connect(author.clone(), [relay.as_str()], PoolConfig::default())
        .await
        .unwrap();
    dm::publish_inbox_relays(&on_page_relay, &[inbox.url().clone()])
        .await
        .unwrap();
    on_page_relay.shutdown().await;

    const PRIVATE: &str = "Could a variant use two decks?";
    type_into(&c, "feedback-text", PRIVATE).await;
    click(&c, "#feedback-send").await;
    let said = feedback_outcome(&c, "yes").await;
    assert!(
        said.contains(&format!(
            "Sent privately (NIP-17) to {author_npub}: taken by {relay}, {}",
            inbox.url()
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!("Your own copy of the message: taken by {relay}")),
        "{said}"
    );
    let inbox_on = |keys: Keys, relay: String| async move {
        let pool = RelayPool::connect(keys, [relay.as_str()], PoolConfig::default())
            .await
            .unwrap();
        let inbox = dm::fetch_inbox(&pool, PATIENCE).await.unwrap();
        pool.shutdown().await;
        inbox
    };
    let on_inbox = inbox_on(author.clone(), inbox.url().to_string()).await;
    assert_eq!(
        on_inbox
            .messages
            .iter()
            .map(|m| (m.sender, m.content.as_str()))
            .collect::<Vec<_>>(),
        [(me, PRIVATE)],
        "the author's inbox relay has it"
    );
    // The sender's copy opens with the page's key (exported as a person would).
    let mine = Keys::parse(&exported_nsec(&c).await).unwrap();
    let copy = inbox_on(mine, relay.clone()).await;
    assert_eq!(
        copy.messages
            .iter()
            .map(|m| (m.sender, m.content.as_str()))
            .collect::<Vec<_>>(),
        [(me, PRIVATE)],
        "the sender's copy"
    );
    let got = inbox_on(author.clone(), relay.clone()).await;
    assert!(got.refused.is_empty(), "{:?}", got.refused);
    assert_eq!(got.messages.len(), 1);
    let m = &got.messages[0];
    assert_eq!((m.sender, m.content.as_str()), (me, PRIVATE));
    assert_eq!(m.subject(), Some(tolerance::wire::feedback::SUBJECT));

    const PUBLIC: &str = "Tolerance at ten seats is a joy.";
    click(&c, "#feedback-public").await;
    type_into(&c, "feedback-text", PUBLIC).await;
    click(&c, "#feedback-send").await;
    let said = feedback_outcome(&c, "yes").await;
    assert!(
        said.contains(&format!("Posted a public note that mentions {author_npub}")),
        "{said}"
    );
    let pool = RelayPool::connect(Keys::generate(), [relay.as_str()], PoolConfig::default())
        .await
        .unwrap();
    let notes = pool
        .fetch(
            vec![Filter::new().kind(Kind::TextNote).author(me)],
            PATIENCE,
        )
        .await
        .unwrap();
    pool.shutdown().await;
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].content.starts_with(PUBLIC), "{}", notes[0].content);
    assert!(notes[0].content.contains(&format!("nostr:{author_npub}")));
    assert!(notes[0]
        .tags
        .public_keys()
        .any(|p| *p == author.public_key()));

    // The same person's identity in a signer extension: it seals and signs, the page wraps.
    let identity = Keys::generate();
    use_extension(&c, &identity).await;
    click(&c, "#feedback-public").await;
    const SIGNED: &str = "Sent from my extension.";
    type_into(&c, "feedback-text", SIGNED).await;
    click(&c, "#feedback-send").await;
    let (id, kind, arg) = extension_asked(&c).await;
    assert_eq!(kind, "encrypt");
    assert_eq!(arg["pk"], json!(author.public_key().to_hex()));
    let sealed = nostr::nips::nip44::encrypt(
        identity.secret_key(),
        &author.public_key(),
        arg["text"].as_str().unwrap(),
        nostr::nips::nip44::Version::default(),
    )
    .unwrap();
    extension_answers(&c, id, json!(sealed)).await;
    let (id, kind, ask) = extension_asked(&c).await;
    assert_eq!((kind.as_str(), ask["kind"].as_u64()), ("sign", Some(13)));
    extension_answers(&c, id, extension_signs(&identity, &ask)).await;
    let said = feedback_outcome(&c, "yes").await;
    assert!(said.contains("Sent privately"), "{said}");
    let got = inbox_on(author, relay.clone()).await;
    let from_identity: Vec<_> = got
        .messages
        .iter()
        .filter(|m| m.sender == identity.public_key())
        .collect();
    assert_eq!(from_identity.len(), 1, "{:?}", got.messages);
    assert_eq!(from_identity[0].content, SIGNED);
    if let Ok(png) = c.screenshot().await {
        artefact("feedback-1280x800.png", &png);
    }
    c.close().await.unwrap();
}
