//! NIP-11: a relay's information document, read once when a pool connects.
//!
//! The document is an HTTP GET on the relay's URL with `ws` → `http` (`wss` → `https`) and
//! `Accept: application/nostr+json`. nostr-sdk 0.44 has the document's types but no HTTP
//! client, so this is a minimal HTTP/1.1 GET (one request, `Connection: close`, a bounded
//! answer, chunked or not) over tokio and the rustls stack nostr-sdk already uses for `wss`.
//!
//! Only `limitation` matters here, read leniently: relays in the wild write numbers as
//! strings, omit fields or add their own, and a field that cannot be read is simply unknown.
//! A relay with no document (404, a plain HTML page, unreachable over HTTP) gets the defaults.

use std::sync::Arc;
use std::time::Duration;

use nostr_sdk::prelude::{RelayUrl, Url};
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::rustls;

/// Largest answer read (head and body): documents are a few KiB.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// What a relay's information document says about its limits (`limitation`), as far as this
/// client acts on it. `None` / `false`: not said.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RelayInfo {
    /// The relay's name, if it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Most events one filter returns (`max_limit`): the page size of history fetches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_limit: Option<u64>,
    /// Largest message it decodes (`max_message_length`), in bytes: larger events are not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_message_length: Option<u64>,
    /// Subscriptions one connection may hold (`max_subscriptions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_subscriptions: Option<u64>,
    /// NIP-13 difficulty new events need (`min_pow_difficulty`); 0 when none.
    #[serde(skip_serializing_if = "crate::wire::is_default")]
    pub min_pow_difficulty: u8,
    /// NIP-42 authentication before anything else (`auth_required`).
    #[serde(skip_serializing_if = "crate::wire::is_default")]
    pub auth_required: bool,
    /// Payment before use (`payment_required`).
    #[serde(skip_serializing_if = "crate::wire::is_default")]
    pub payment_required: bool,
    /// Only some keys may write (`restricted_writes`).
    #[serde(skip_serializing_if = "crate::wire::is_default")]
    pub restricted_writes: bool,
}

impl RelayInfo {
    /// Reads a document; `None` if it is not a JSON object.
    pub fn from_json(text: &str) -> Option<Self> {
        let doc: Value = serde_json::from_str(text).ok()?;
        let doc = doc.as_object()?;
        let empty = serde_json::Map::new();
        let lim = doc
            .get("limitation")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let number = |key: &str| -> Option<u64> {
            match lim.get(key)? {
                Value::Number(n) => n
                    .as_u64()
                    .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
                Value::String(s) => s.trim().parse().ok(),
                _ => None,
            }
        };
        let flag = |key: &str| -> bool {
            match lim.get(key) {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
                _ => false,
            }
        };
        Some(Self {
            name: doc
                .get("name")
                .and_then(Value::as_str)
                .map(|s| s.chars().take(80).collect()),
            // 0 would mean "nothing at all"; relays that write it mean "no limit".
            max_limit: number("max_limit").filter(|n| *n > 0),
            max_message_length: number("max_message_length").filter(|n| *n > 0),
            max_subscriptions: number("max_subscriptions").filter(|n| *n > 0),
            min_pow_difficulty: number("min_pow_difficulty").map_or(0, |d| d.min(255) as u8),
            auth_required: flag("auth_required"),
            payment_required: flag("payment_required"),
            restricted_writes: flag("restricted_writes"),
        })
    }

    /// What a person should know about this relay before using it, in words (`host` names it).
    pub fn notes(&self, host: &str) -> Vec<String> {
        let mut out = Vec::new();
        if self.auth_required {
            out.push(format!(
                "relay {host} requires authentication (NIP-42) before anything else"
            ));
        }
        if self.payment_required {
            out.push(format!(
                "relay {host} requires payment: it may refuse our events until its fee is paid"
            ));
        }
        if self.restricted_writes {
            out.push(format!(
                "relay {host} accepts events only from some keys: it may refuse ours"
            ));
        }
        if self.min_pow_difficulty > 0 {
            out.push(format!(
                "relay {host} asks for proof of work of {} bits on every event",
                self.min_pow_difficulty
            ));
        }
        out
    }
}

/// The document's address for a relay URL: `ws` → `http`, `wss` → `https`.
pub fn info_url(relay: &RelayUrl) -> Option<Url> {
    let mut url = Url::parse(relay.as_str()).ok()?;
    let scheme = match url.scheme() {
        "ws" => "http",
        "wss" => "https",
        _ => return None,
    };
    // `Url::set_scheme` refuses to switch between some special schemes; rebuild instead.
    let rest = url.as_str().split_once("://")?.1.to_string();
    url = Url::parse(&format!("{scheme}://{rest}")).ok()?;
    Some(url)
}

/// Fetches `relay`'s information document within `timeout`. `Ok(None)`: the relay answered but
/// has no document (not 200, or not a JSON object); `Err`: it could not be asked (in words).
pub async fn fetch(relay: &RelayUrl, timeout: Duration) -> Result<Option<RelayInfo>, String> {
    let url = info_url(relay).ok_or_else(|| format!("{relay} is not a ws:// or wss:// URL"))?;
    match tokio::time::timeout(timeout, get(&url)).await {
        Ok(Ok(body)) => Ok(body.as_deref().and_then(RelayInfo::from_json)),
        Ok(Err(e)) => Err(format!("no information document from {url}: {e}")),
        Err(_) => Err(format!(
            "no information document from {url} within {} s",
            timeout.as_secs_f64()
        )),
    }
}

/// One GET; the body of a 200 answer, `None` for any other status.
async fn get(url: &Url) -> std::io::Result<Option<String>> {
    let host = url
        .host_str()
        .ok_or_else(|| std::io::Error::other("no host in the URL"))?;
    let port = url
        .port_or_known_default()
        .ok_or_else(|| std::io::Error::other("no port for the URL"))?;
    let tcp = TcpStream::connect((host.trim_matches(['[', ']']), port)).await?;
    let _ = tcp.set_nodelay(true);
    let mut path = url.path().to_string();
    if let Some(q) = url.query() {
        path.push('?');
        path.push_str(q);
    }
    let host_header = match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    };
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host_header}\r\nAccept: application/nostr+json\r\n\
         User-Agent: tolerance\r\nConnection: close\r\n\r\n"
    );
    let answer = if url.scheme() == "https" {
        let name = rustls::pki_types::ServerName::try_from(host.trim_matches(['[', ']']))
            .map_err(|e| std::io::Error::other(e.to_string()))?
            .to_owned();
        let tls = tokio_rustls::TlsConnector::from(tls_config()?)
            .connect(name, tcp)
            .await?;
        exchange(tls, &request).await?
    } else {
        exchange(tcp, &request).await?
    };
    parse_answer(&answer).map_err(std::io::Error::other)
}

fn tls_config() -> std::io::Result<Arc<rustls::ClientConfig>> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| std::io::Error::other(e.to_string()))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(Arc::new(config))
}

async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    request: &str,
) -> std::io::Result<Vec<u8>> {
    stream.write_all(request.as_bytes()).await?;
    stream.flush().await?;
    let mut answer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = match stream.read(&mut chunk).await {
            Ok(n) => n,
            // Servers that close without TLS close_notify: what came is what there is.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => 0,
            Err(e) => return Err(e),
        };
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
        if answer.len() > MAX_ANSWER_BYTES {
            return Err(std::io::Error::other(format!(
                "answer over {MAX_ANSWER_BYTES} bytes"
            )));
        }
        if complete(&answer) {
            break;
        }
    }
    Ok(answer)
}

/// Whether an answer with a `Content-Length` or a chunked body is all here (a server may keep
/// the connection open despite `Connection: close`).
fn complete(answer: &[u8]) -> bool {
    let Some(end) = find(answer, b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
    let body = &answer[end + 4..];
    if let Some(len) = header(&head, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        return body.len() >= len;
    }
    if header(&head, "transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        return dechunk(body).is_some();
    }
    false
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn header<'a>(head_lower: &'a str, name: &str) -> Option<&'a str> {
    head_lower.lines().skip(1).find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == name).then(|| v.trim())
    })
}

/// The body of a 200 answer, `None` for another status; an error for an answer that is not
/// HTTP/1.x.
fn parse_answer(answer: &[u8]) -> Result<Option<String>, String> {
    let end = find(answer, b"\r\n\r\n").ok_or("the answer has no end of headers")?;
    let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
    let status = head
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("http/1."))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or("the answer is not HTTP/1")?;
    if status != 200 {
        return Ok(None);
    }
    let body = &answer[end + 4..];
    let body = if header(&head, "transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        dechunk(body).ok_or("a chunked body that ends early")?
    } else {
        match header(&head, "content-length").and_then(|v| v.parse::<usize>().ok()) {
            Some(len) if body.len() >= len => body[..len].to_vec(),
            Some(len) => return Err(format!("{} of {len} body bytes", body.len())),
            None => body.to_vec(),
        }
    };
    Ok(Some(String::from_utf8_lossy(&body).into_owned()))
}

/// A chunked body's bytes; `None` until its last (empty) chunk is here.
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = find(body, b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        if body.len() < size + 2 {
            return None;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_read_leniently() {
        let doc = r#"{"name":"example","supported_nips":[1,11],
            "limitation":{"max_limit":500,"max_message_length":"131072","max_subscriptions":20,
            "min_pow_difficulty":16,"auth_required":false,"payment_required":true,
            "restricted_writes":true,"max_event_tags":"lots"}}"#;
        let info = RelayInfo::from_json(doc).expect("a document");
        assert_eq!(info.name.as_deref(), Some("example"));
        assert_eq!(info.max_limit, Some(500));
        assert_eq!(info.max_message_length, Some(131_072));
        assert_eq!(info.max_subscriptions, Some(20));
        assert_eq!(info.min_pow_difficulty, 16);
        assert!(!info.auth_required && info.payment_required && info.restricted_writes);
        let notes = info.notes("relay.example");
        assert!(
            notes.iter().any(|n| n.contains("requires payment")),
            "{notes:?}"
        );
        assert!(notes.iter().any(|n| n.contains("16 bits")), "{notes:?}");

        // No limitation at all, zeros meaning "no limit", and not a document.
        let bare = RelayInfo::from_json(r#"{"name":"x","limitation":{"max_limit":0}}"#).unwrap();
        assert_eq!(bare.max_limit, None);
        assert!(bare.notes("x").is_empty());
        assert_eq!(RelayInfo::from_json("<html>hello</html>"), None);
    }

    #[test]
    fn the_document_lives_at_the_http_address_of_the_relay() {
        let url = |s: &str| info_url(&RelayUrl::parse(s).unwrap()).unwrap().to_string();
        assert_eq!(url("wss://relay.example.org"), "https://relay.example.org/");
        assert_eq!(url("ws://127.0.0.1:7447"), "http://127.0.0.1:7447/");
        assert_eq!(
            url("wss://host.example/nostr"),
            "https://host.example/nostr"
        );
    }

    #[test]
    fn answers_with_a_length_chunked_or_another_status() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Type: application/nostr+json\r\nContent-Length: 7\r\n\r\n{\"a\":1}";
        assert!(complete(plain));
        assert_eq!(parse_answer(plain).unwrap().as_deref(), Some("{\"a\":1}"));

        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3;x=y\r\n:1}\r\n0\r\n\r\n";
        assert!(complete(chunked));
        assert_eq!(parse_answer(chunked).unwrap().as_deref(), Some("{\"a\":1}"));
        let cut = &chunked[..chunked.len() - 5];
        assert!(!complete(cut));
        assert!(parse_answer(cut).is_err());

        let missing = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
        assert_eq!(parse_answer(missing).unwrap(), None);
        assert!(parse_answer(b"SSH-2.0-OpenSSH\r\n\r\n").is_err());
    }
}
