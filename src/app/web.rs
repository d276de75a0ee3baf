//! `tolerance web`: serves the browser page (`web/dist`, built by `web/build.sh`) on loopback,
//! with the embedded relay when no `--relay` is given, and prints the page's URL.
//!
//! The page is plain static files, so any file server would do; this one exists so that one
//! command gives a person the page and a relay to play on, and it tells the page which relays
//! it came with and whom feedback goes to (`config.json`). It answers GET and HEAD for the
//! files under the page's folder and nothing else: no path outside it, no directory listing,
//! no hidden file.

use crate::net::relay::{EmbeddedRelay, EmbeddedRelayConfig};
use nostr_sdk::prelude::RelayUrl;
use std::net::{IpAddr, SocketAddr};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Debug, Clone, clap::Args)]
pub struct WebArgs {
    /// Port to serve the page on (0: any free port).
    #[arg(long, default_value_t = 7480)]
    pub port: u16,
    /// Address to bind; loopback unless you mean to serve a LAN.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// A relay the page uses for links that name none (repeatable); without one the embedded
    /// relay starts beside the page.
    #[arg(long = "relay")]
    pub relays: Vec<String>,
    /// The built page (default: `web/dist` in this folder, else in the source tree this program
    /// was built from).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Longest request head read; a page's GET is a few hundred bytes.
const MAX_REQUEST_BYTES: usize = 8 * 1024;
/// How long a connection may take to send its request.
const REQUEST_PATIENCE: Duration = Duration::from_secs(10);

pub async fn run(args: WebArgs) -> Result<(), String> {
    let dir = page_dir(args.dir)?;
    // Feedback from the page goes where `tolerance feedback` sends it: `author` in config.toml,
    // else the game's author.
    let settings = crate::config::Settings::load(&crate::identity::config_dir())?;
    let author = settings.recipient(None, crate::feedback::AUTHOR_NPUB)?;
    let mut relay = None;
    let relays = if args.relays.is_empty() {
        let r = EmbeddedRelay::start(EmbeddedRelayConfig {
            addr: SocketAddr::new(args.bind, 0),
            ..EmbeddedRelayConfig::default()
        })
        .await
        .map_err(|e| format!("could not start the embedded relay: {e}"))?;
        let url = r.url().to_string();
        relay = Some(r);
        vec![url]
    } else {
        args.relays
            .iter()
            .map(|r| {
                RelayUrl::parse(r)
                    .map(|u| u.to_string())
                    .map_err(|_| format!("'{r}' is not a relay address (wss://… or ws://…)"))
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    let listener = TcpListener::bind((args.bind, args.port))
        .await
        .map_err(|e| {
            format!(
                "cannot serve the page on {}:{}: {e} (another --port?)",
                args.bind, args.port
            )
        })?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot serve the page: {e}"))?;
    let config = serde_json::json!({
        "relays": relays,
        "author": nostr_sdk::prelude::ToBech32::to_bech32(&author).expect("a key encodes"),
    })
    .to_string();
    println!("the page: http://{addr}/");
    println!("relays: {}", relays.join(" "));
    println!("open a table: http://{addr}/#naddr1…  (Ctrl-C stops)");
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(serve(stream, dir.clone(), config.clone()));
                }
            }
            _ = tokio::signal::ctrl_c() => break,
        }
    }
    if let Some(r) = relay {
        r.shutdown().await;
    }
    Ok(())
}

/// The built page's folder, checked to hold a built page.
fn page_dir(asked: Option<PathBuf>) -> Result<PathBuf, String> {
    let candidates = match asked {
        Some(d) => vec![d],
        None => vec![
            PathBuf::from("web/dist"),
            Path::new(env!("CARGO_MANIFEST_DIR")).join("web/dist"),
        ],
    };
    for d in &candidates {
        if d.join("index.html").is_file() && d.join("pkg/tolerance_web_bg.wasm").is_file() {
            return Ok(d.clone());
        }
    }
    Err(format!(
        "the page is not built in {}: build it with `bash web/build.sh` (it needs \
         wasm-bindgen-cli; the script says which version)",
        candidates[0].display()
    ))
}

/// Answers one connection's request.
async fn serve(mut stream: TcpStream, dir: PathBuf, config: String) {
    let Ok(Some(head)) = tokio::time::timeout(REQUEST_PATIENCE, read_head(&mut stream)).await
    else {
        return;
    };
    let reply = answer(&head, &dir, &config).await;
    let _ = stream.write_all(&reply).await;
    let _ = stream.shutdown().await;
}

async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 || buf.len() + n > MAX_REQUEST_BYTES {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8(buf).ok()
}

/// The whole HTTP response to a request head.
async fn answer(head: &str, dir: &Path, config: &str) -> Vec<u8> {
    let mut parts = head.lines().next().unwrap_or_default().split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method != "GET" && method != "HEAD" {
        return response(
            "405 Method Not Allowed",
            "text/plain",
            b"only GET and HEAD\n",
        );
    }
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let body = |b: &[u8]| {
        if method == "HEAD" {
            Vec::new()
        } else {
            b.to_vec()
        }
    };
    if path == "/config.json" {
        return response("200 OK", "application/json", &body(config.as_bytes()));
    }
    let Some(file) = file_for(dir, path) else {
        return response("404 Not Found", "text/plain", b"no such file\n");
    };
    match tokio::fs::read(&file).await {
        Ok(bytes) => response("200 OK", content_type(&file), &body(&bytes)),
        Err(_) => response("404 Not Found", "text/plain", b"no such file\n"),
    }
}

/// The file a URL path names under `dir`: only plain names, no `..`, no hidden files, no
/// escapes; `/` is `index.html`.
fn file_for(dir: &Path, path: &str) -> Option<PathBuf> {
    let rel = path.strip_prefix('/')?;
    let rel = if rel.is_empty() { "index.html" } else { rel };
    let rel = Path::new(rel);
    let plain = rel.components().all(|c| match c {
        Component::Normal(s) => s
            .to_str()
            .is_some_and(|s| !s.starts_with('.') && !s.contains(['%', '\\'])),
        _ => false,
    });
    let file = dir.join(rel);
    (plain && file.is_file()).then_some(file)
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

fn response(status: &str, kind: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_files_under_the_page_are_served() {
        let dir = std::env::temp_dir().join(format!("tolerance-web-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        std::fs::write(dir.join("index.html"), "<p>hi</p>").unwrap();
        std::fs::write(dir.join("pkg/a.wasm"), [0u8, 97, 115, 109]).unwrap();
        std::fs::write(dir.join(".secret"), "no").unwrap();
        assert_eq!(file_for(&dir, "/"), Some(dir.join("index.html")));
        assert_eq!(file_for(&dir, "/pkg/a.wasm"), Some(dir.join("pkg/a.wasm")));
        for bad in [
            "/../etc/passwd",
            "/pkg/../index.html",
            "/.secret",
            "//etc/passwd",
            "x",
            "/%2e%2e/x",
            "/pkg",
        ] {
            assert_eq!(file_for(&dir, bad), None, "{bad}");
        }
        assert_eq!(content_type(&dir.join("pkg/a.wasm")), "application/wasm");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_request_gets_its_file_or_a_plain_refusal() {
        let dir = std::env::temp_dir().join(format!("tolerance-web-a-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), "<p>hi</p>").unwrap();
        let ok = String::from_utf8(answer("GET / HTTP/1.1\r\n\r\n", &dir, "{}").await).unwrap();
        assert!(
            ok.starts_with("HTTP/1.1 200 OK\r\n") && ok.ends_with("<p>hi</p>"),
            "{ok}"
        );
        assert!(ok.contains("Content-Type: text/html"), "{ok}");
        let head = String::from_utf8(answer("HEAD / HTTP/1.1\r\n\r\n", &dir, "{}").await).unwrap();
        assert!(head.ends_with("\r\n\r\n"), "{head}");
        let cfg = String::from_utf8(
            answer(
                "GET /config.json?x HTTP/1.1\r\n\r\n",
                &dir,
                r#"{"relays":[]}"#,
            )
            .await,
        )
        .unwrap();
        assert!(cfg.ends_with(r#"{"relays":[]}"#), "{cfg}");
        let post = String::from_utf8(answer("POST / HTTP/1.1\r\n\r\n", &dir, "{}").await).unwrap();
        assert!(post.starts_with("HTTP/1.1 405"), "{post}");
        let missing =
            String::from_utf8(answer("GET /nope.js HTTP/1.1\r\n\r\n", &dir, "{}").await).unwrap();
        assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
