//! An independent relay for end-to-end tests and benches: nostr-rs-relay run as a child process.
//!
//! `.ci/install-nostr-rs-relay.sh` builds it into
//! `${XDG_CACHE_HOME:-$HOME/.cache}/tolerance/bin/nostr-rs-relay`; `TOLERANCE_NOSTR_RS_RELAY`
//! names another binary. [`NostrRsRelay::spawn`] writes a config that binds loopback only, on a
//! free port, with its SQLite files in a fresh temporary directory, and waits until the relay
//! accepts connections. Dropping the handle kills the process and removes the directory.

use std::fs;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use nostr_sdk::prelude::RelayUrl;

use super::{NetError, Result};

/// Environment variable naming a nostr-rs-relay binary.
pub const NOSTR_RS_RELAY_ENV: &str = "TOLERANCE_NOSTR_RS_RELAY";

/// How long a fresh nostr-rs-relay may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// Where the install script puts the binary.
pub fn nostr_rs_relay_cache_path() -> Option<PathBuf> {
    let cache = match std::env::var_os("XDG_CACHE_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".cache"),
    };
    Some(cache.join("tolerance/bin/nostr-rs-relay"))
}

/// The nostr-rs-relay binary to use, if one is installed: `$TOLERANCE_NOSTR_RS_RELAY`, else the
/// cache path of the install script.
pub fn nostr_rs_relay_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(NOSTR_RS_RELAY_ENV) {
        let path = PathBuf::from(path);
        return path.is_file().then_some(path);
    }
    nostr_rs_relay_cache_path().filter(|p| p.is_file())
}

/// A running nostr-rs-relay child process.
#[derive(Debug)]
pub struct NostrRsRelay {
    child: Child,
    url: RelayUrl,
    port: u16,
    dir: PathBuf,
}

impl NostrRsRelay {
    /// Starts the installed binary (see [`nostr_rs_relay_binary`]).
    pub async fn spawn() -> Result<Self> {
        let binary = nostr_rs_relay_binary().ok_or_else(|| NetError::ExternalRelay {
            program: "nostr-rs-relay".into(),
            reason: format!(
                "not installed: run .ci/install-nostr-rs-relay.sh or set {NOSTR_RS_RELAY_ENV}"
            ),
        })?;
        Self::spawn_binary(&binary).await
    }

    /// Starts the installed binary as a relay that asks its readers to sign in: it sends a
    /// NIP-42 challenge on connecting and keeps private messages for their signed-in recipient
    /// (its `nip42_dms`: kind 4 in 0.8.12, gift wraps too in later versions).
    pub async fn spawn_with_sign_in() -> Result<Self> {
        let binary = nostr_rs_relay_binary().ok_or_else(|| NetError::ExternalRelay {
            program: "nostr-rs-relay".into(),
            reason: format!(
                "not installed: run .ci/install-nostr-rs-relay.sh or set {NOSTR_RS_RELAY_ENV}"
            ),
        })?;
        Self::spawn_configured(&binary, true).await
    }

    /// Starts `binary` on a free loopback port with a fresh data directory.
    pub async fn spawn_binary(binary: &Path) -> Result<Self> {
        Self::spawn_configured(binary, false).await
    }

    async fn spawn_configured(binary: &Path, sign_in: bool) -> Result<Self> {
        let program = binary.display().to_string();
        let fail = |reason: String| NetError::ExternalRelay {
            program: program.clone(),
            reason,
        };
        let dir = unique_temp_dir("nostr-rs-relay").map_err(|e| fail(e.to_string()))?;
        // The port is free now; another process could take it before the relay binds it, in which
        // case the relay exits and we report that.
        let port = free_port().map_err(|e| fail(e.to_string()))?;
        let config = dir.join("config.toml");
        fs::write(&config, config_toml(port, &dir, sign_in)).map_err(|e| fail(e.to_string()))?;
        let log = fs::File::create(dir.join("relay.log")).map_err(|e| fail(e.to_string()))?;
        let log_err = log.try_clone().map_err(|e| fail(e.to_string()))?;
        let mut command = Command::new(binary);
        if sign_in {
            // Its log says who signed in (at info level, which it leaves out by default).
            command.env("RUST_LOG", "info");
        }
        let child = command
            .arg("--config")
            .arg(&config)
            .arg("--db")
            .arg(&dir)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .spawn()
            .map_err(|e| fail(e.to_string()))?;
        let url =
            RelayUrl::parse(&format!("ws://127.0.0.1:{port}")).map_err(|e| fail(e.to_string()))?;
        let mut relay = Self {
            child,
            url,
            port,
            dir,
        };
        relay.wait_ready().await.map_err(fail)?;
        Ok(relay)
    }

    /// `ws://127.0.0.1:port`.
    pub fn url(&self) -> &RelayUrl {
        &self.url
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// What it logged so far.
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join("relay.log")).unwrap_or_default()
    }

    /// Its process id (for its CPU time and memory under `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    async fn wait_ready(&mut self) -> std::result::Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                let log = fs::read_to_string(self.dir.join("relay.log")).unwrap_or_default();
                let tail: String = log.lines().rev().take(5).collect::<Vec<_>>().join(" | ");
                return Err(format!("exited with {status} before listening: {tail}"));
            }
            if tokio::net::TcpStream::connect(addr).await.is_ok() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!("not listening on {addr} after {START_TIMEOUT:?}"));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

impl Drop for NostrRsRelay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A config for tests: loopback only, no rate limits, 128 KiB events (its default, stated);
/// with `sign_in`, NIP-42 sign-in and private messages for their recipient only.
fn config_toml(port: u16, dir: &Path, sign_in: bool) -> String {
    format!(
        r#"[info]
relay_url = "ws://127.0.0.1:{port}/"
name = "tolerance-test-relay"
description = "nostr-rs-relay started by tolerance's tests"

[database]
engine = "sqlite"
data_directory = "{dir}"

[network]
address = "127.0.0.1"
port = {port}

[options]
reject_future_seconds = 1800

[limits]
messages_per_sec = 0
subscriptions_per_min = 0
max_event_bytes = 131072
max_ws_message_bytes = 131072
max_ws_frame_bytes = 131072

[authorization]
nip42_auth = {sign_in}
nip42_dms = {sign_in}

[verified_users]
mode = "disabled"
"#,
        dir = dir.display()
    )
}

/// A loopback port nothing listens on right now.
pub fn free_port() -> std::io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

/// A new empty directory under the system temp dir, unique to this process and call.
pub fn unique_temp_dir(prefix: &str) -> std::io::Result<PathBuf> {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "tolerance-{prefix}-{}-{n}-{nanos}",
        std::process::id()
    ));
    fs::create_dir_all(&dir)?;
    Ok(dir)
}
