//! Separate `tolerance` processes for end-to-end tests: each player its own config directory,
//! key and process, on a relay the test serves.
#![allow(dead_code)]

pub mod cards;
pub mod relays;
pub mod soak;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A Tolerance variant nobody can go broke in over a test's few hands: stacks of 100,000 and
/// fixed-limit bets (at most 4 a round), so a table plays every hand it is asked for.
pub const DEEP_VARIANT: &str =
    "name = \"deep\"\nstarting_stack = 100000\n[betting]\nkind = \"fixed-limit\"\ncap = 4\n";

/// [`DEEP_VARIANT`], then `more` (a `[style]` table, say), written as `deep.toml` in `dir`.
pub fn deep_variant(dir: &Path, more: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("the variant's directory");
    let path = dir.join("deep.toml");
    std::fs::write(&path, format!("{DEEP_VARIANT}{more}")).expect("the variant is written");
    path
}

/// A fresh config directory for one player of one test.
pub fn home(test: &str, who: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tolerance-{test}-{who}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

pub fn cmd(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tolerance"));
    c.args(args)
        .env("TOLERANCE_HOME", home)
        .env_remove("TOLERANCE_PASSPHRASE")
        .env_remove("TOLERANCE_DEBUG")
        .stdin(Stdio::null());
    c
}

pub fn run(home: &Path, args: &[&str]) -> Output {
    cmd(home, args).output().unwrap()
}

/// What `tables --relay <relay>` prints in `home`, which must succeed: the invitations part and
/// the open public tables part.
pub fn tables_listed(home: &Path, relay: &str) -> (String, String) {
    let out = run(home, &["tables", "--relay", relay]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{out:?}");
    let (invitations, public) = text
        .split_once("Open public tables:")
        .unwrap_or_else(|| panic!("no list of open tables: {text}"));
    (invitations.to_string(), public.to_string())
}

/// A player with a fresh plain key; returns its npub.
pub fn player(home: &Path) -> String {
    let out = run(home, &["keys", "new", "--plain"]);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .to_string()
}

/// A running process whose output is collected line by line.
pub struct Proc {
    pub child: Child,
    pub lines: Arc<Mutex<Vec<String>>>,
    pub stderr: Arc<Mutex<String>>,
}

pub fn spawn(home: &Path, args: &[&str]) -> Proc {
    spawn_command(cmd(home, args))
}

/// [`spawn`] for a command the caller has set up (extra environment, say).
pub fn spawn_command(mut c: Command) -> Proc {
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let l = lines.clone();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            l.lock().unwrap().push(line);
        }
    });
    let stderr = Arc::new(Mutex::new(String::new()));
    let e = stderr.clone();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let mut s = e.lock().unwrap();
            s.push_str(&line);
            s.push('\n');
        }
    });
    Proc {
        child,
        lines,
        stderr,
    }
}

impl Proc {
    /// The first line containing `pat` so far; past `end`, a failure that shows the output.
    fn found(&self, pat: &str, end: Instant, timeout: Duration) -> Option<String> {
        if let Some(l) = self.lines.lock().unwrap().iter().find(|l| l.contains(pat)) {
            return Some(l.clone());
        }
        assert!(
            Instant::now() < end,
            "no line with '{pat}' in {timeout:?}; stdout: {:?}; stderr: {}",
            self.lines.lock().unwrap(),
            self.stderr.lock().unwrap()
        );
        None
    }

    /// The first line containing `pat`, once the process printed it.
    pub async fn line(&self, pat: &str, timeout: Duration) -> String {
        let end = Instant::now() + timeout;
        loop {
            if let Some(l) = self.found(pat, end, timeout) {
                return l;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// [`Proc::line`] for a test without a runtime.
    pub fn wait_line(&self, pat: &str, timeout: Duration) -> String {
        let end = Instant::now() + timeout;
        loop {
            if let Some(l) = self.found(pat, end, timeout) {
                return l;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Peak resident memory so far (VmHWM), in bytes, while the process lives.
    pub fn peak_rss(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let kb: u64 = status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        Some(kb * 1024)
    }

    /// The exit status once the process ended; past `end`, kills it and fails with its output.
    fn exited(&mut self, end: Instant, timeout: Duration) -> Option<ExitStatus> {
        if let Some(s) = self.child.try_wait().unwrap() {
            return Some(s);
        }
        if Instant::now() > end {
            let _ = self.child.kill();
            panic!(
                "process still running after {timeout:?}; stdout: {:?}; stderr: {}",
                self.lines.lock().unwrap(),
                self.stderr.lock().unwrap()
            );
        }
        None
    }

    /// Whether the reader threads ended (at end of file) and handed over the last lines.
    fn drained(&self) -> bool {
        Arc::strong_count(&self.lines) == 1 && Arc::strong_count(&self.stderr) == 1
    }

    fn output(&self, status: ExitStatus) -> (bool, String, String) {
        let out = self.lines.lock().unwrap().join("\n");
        let err = self.stderr.lock().unwrap().clone();
        (status.success(), out, err)
    }

    /// Waits for the exit; returns (success, stdout, stderr).
    pub async fn finish(mut self, timeout: Duration) -> (bool, String, String) {
        let end = Instant::now() + timeout;
        let status = loop {
            if let Some(s) = self.exited(end, timeout) {
                break s;
            }
            tokio::time::sleep(POLL).await;
        };
        for _ in 0..DRAIN_POLLS {
            if self.drained() {
                break;
            }
            tokio::time::sleep(POLL / 2).await;
        }
        self.output(status)
    }

    /// [`Proc::finish`] for a test without a runtime.
    pub fn finish_blocking(mut self, timeout: Duration) -> (bool, String, String) {
        let end = Instant::now() + timeout;
        let status = loop {
            if let Some(s) = self.exited(end, timeout) {
                break s;
            }
            std::thread::sleep(POLL);
        };
        for _ in 0..DRAIN_POLLS {
            if self.drained() {
                break;
            }
            std::thread::sleep(POLL / 2);
        }
        self.output(status)
    }
}

/// How often a waiting test looks again, and how many half-polls it gives the reader threads
/// to hand over the last lines after the exit.
const POLL: Duration = Duration::from_millis(50);
const DRAIN_POLLS: usize = 40;

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How a person is named when they have no profile name: `npub1abcd…wxyz`.
pub fn short_npub(npub: &str) -> String {
    format!("{}…{}", &npub[..10], &npub[npub.len() - 4..])
}

/// The naddr in a line.
pub fn naddr_of(line: &str) -> String {
    line.split_whitespace()
        .find(|w| w.starts_with("naddr1"))
        .expect("an naddr")
        .to_string()
}

/// The relay's copy of a finished table: (author seat, payload, event) in step order.
pub async fn public_log(
    url: &str,
    run: &tolerance::table::demo::DemoRun,
) -> (
    Vec<(
        tolerance::engine::Seat,
        tolerance::wire::log::Payload,
        nostr_sdk::Event,
    )>,
    tolerance::wire::TableSpec,
    u64,
) {
    use nostr_sdk::prelude::*;
    use tolerance::engine::Seat;
    use tolerance::net::pool::{PoolConfig, RelayPool};
    use tolerance::table::runner::fetch_table;
    use tolerance::wire::{self, log::parse_log, log::Payload};
    let pool = RelayPool::connect(Keys::generate(), [url], PoolConfig::default())
        .await
        .unwrap();
    let (spec, start) = fetch_table(&pool, &run.host, &run.table, Duration::from_secs(5))
        .await
        .unwrap();
    let seats = spec.seat_keys();
    let events = pool
        .fetch_all(
            wire::log_filter(&run.host, &run.table, &seats),
            500,
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    pool.shutdown().await;
    let mut log: Vec<(Seat, Payload, Event)> = events
        .into_iter()
        .map(|e| {
            let p = parse_log(&e, &run.table).unwrap();
            let s = seats.iter().position(|k| *k == e.pubkey).unwrap() as Seat;
            (s, p, e)
        })
        .collect();
    log.sort_by_key(|(_, p, e)| (p.step, e.created_at, e.id));
    (log, spec, start)
}

/// Every client of a demo table finished, verified, saw no violation and agrees with every other
/// on the public game and the chain's head.
pub fn clients_agree(run: &tolerance::table::demo::DemoRun) {
    assert!(run.summary.verified, "{:?}", run.summary);
    let first = run.reports[0].as_ref().expect("client 0 ran");
    for (i, r) in run.reports.iter().enumerate() {
        let r = r.as_ref().unwrap_or_else(|e| panic!("seat {i}: {e}"));
        assert!(r.finished && r.violations.is_empty(), "seat {i}: {r:?}");
        assert_eq!(r.public, first.public, "seat {i}");
        assert_eq!(r.report, first.report, "seat {i}");
        assert_eq!(r.head, first.head, "seat {i}");
    }
}
