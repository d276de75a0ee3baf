//! Separate `tolerance` processes for end-to-end tests: each player its own config directory,
//! key and process, on a relay the test serves.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    let mut child = cmd(home, args)
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
    /// The first line containing `pat`, once the process printed it.
    pub async fn line(&self, pat: &str, timeout: Duration) -> String {
        let end = Instant::now() + timeout;
        loop {
            if let Some(l) = self.lines.lock().unwrap().iter().find(|l| l.contains(pat)) {
                return l.clone();
            }
            assert!(
                Instant::now() < end,
                "no line with '{pat}' in {timeout:?}; stdout: {:?}; stderr: {}",
                self.lines.lock().unwrap(),
                self.stderr.lock().unwrap()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
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

    /// Waits for the exit; returns (success, stdout, stderr).
    pub async fn finish(mut self, timeout: Duration) -> (bool, String, String) {
        let end = Instant::now() + timeout;
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                panic!(
                    "process still running after {timeout:?}; stdout: {:?}; stderr: {}",
                    self.lines.lock().unwrap(),
                    self.stderr.lock().unwrap()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        // The reader threads end at end of file; wait for them to hand over the last lines.
        for _ in 0..40 {
            if Arc::strong_count(&self.lines) == 1 && Arc::strong_count(&self.stderr) == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let out = self.lines.lock().unwrap().join("\n");
        let err = self.stderr.lock().unwrap().clone();
        (status.success(), out, err)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The naddr in a line.
pub fn naddr_of(line: &str) -> String {
    line.split_whitespace()
        .find(|w| w.starts_with("naddr1"))
        .expect("an naddr")
        .to_string()
}
