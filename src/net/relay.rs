//! The embedded relay: our own TCP listener and NIP-01 server ([`serve`]) over our own
//! in-memory event store ([`store`]) or nostr-lmdb.
//!
//! Why our own listener: nostr-relay-builder's `LocalRelay::run()` leaves Nagle's algorithm
//! on, so every small request/response pair on loopback waits for a delayed ACK (~44 ms per
//! round trip measured here). We accept the TCP connection ourselves, set `TCP_NODELAY` and
//! answer the WebSocket upgrade (~0.3 ms).
//!
//! Why our own server behind it: `LocalRelay` hands every new event to every connection, so its
//! cost per event grew with the number of tables on the relay; [`serve`] files subscriptions by
//! what they ask for and passes an event only to those that can match it (module docs there;
//! figures in BENCHMARKS.md, "Many tables on one relay").
//!
//! Other choices, each because a game's traffic differs from a social feed's:
//! - by default a connection may publish as fast as it likes (a bot game publishes hundreds a
//!   minute per connection); `tolerance relay --max-events-per-minute N` limits each connection
//!   to N events in any minute (a sliding window, answered `rate-limited: max N events per
//!   minute`), to play or test as public relays with write policies behave;
//! - a REQ without `limit` returns up to [`DEFAULT_FILTER_LIMIT`] stored events instead of the
//!   usual 500, so a long table history can be caught up in one request;
//! - events larger than [`MAX_EVENT_BYTES`](super::MAX_EVENT_BYTES) are refused, like strfry's default, so local tests
//!   fail the way public relays would;
//! - with a `db_dir` events live in nostr-lmdb and survive restarts; without one they live in
//!   [`store`], each as its JSON, capped at [`MEMORY_EVENTS`] events (oldest dropped);
//! - no NIP-42 authentication (so protected NIP-70 events are refused) and no negentropy.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use std::sync::Arc;

use nostr_lmdb::NostrLMDB;
use nostr_sdk::prelude::RelayUrl;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};
use tungstenite::handshake::machine::TryParse;
use tungstenite::handshake::server::{create_response, write_response, Request};

use super::{NetError, Result};

mod serve;
mod store;

/// Events one connection may publish per minute before the relay answers "rate-limited".
pub const DEFAULT_EVENTS_PER_MINUTE: u32 = 1_000_000;
/// Stored events returned for a REQ filter that has no `limit`.
pub const DEFAULT_FILTER_LIMIT: usize = 10_000;
/// Events the in-memory store keeps (nostr-relay-builder's default; the oldest go first).
pub const MEMORY_EVENTS: usize = 75_000;
/// Longest time a client may take to send its WebSocket upgrade request.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest HTTP upgrade request we read (browsers send ~1 KiB).
const MAX_HANDSHAKE_BYTES: usize = 16 * 1024;
/// How long `start` keeps retrying to open an LMDB directory that a previous relay in this
/// process is still closing (its writer thread exits asynchronously).
const DB_REOPEN_GRACE: Duration = Duration::from_secs(5);

/// Where and how the embedded relay runs.
#[derive(Debug, Clone)]
pub struct EmbeddedRelayConfig {
    /// Address to bind; only this address is bound. Default `127.0.0.1:0` (loopback, any port).
    pub addr: SocketAddr,
    /// Directory of the LMDB event store; `None` keeps events in memory only.
    pub db_dir: Option<PathBuf>,
    /// Per-connection publishing allowance (see the module docs).
    pub events_per_minute: u32,
    /// NIP-13 difficulty every new event must have (0: none), enforced with `pow:` and
    /// announced in the NIP-11 document, as relays that ask for work do.
    pub min_pow_difficulty: u8,
    /// Most stored events one filter returns (a larger `limit` is lowered to it); NIP-11's
    /// `max_limit`.
    pub max_limit: usize,
    /// Largest WebSocket message read (NIP-11's `max_message_length`); a larger one ends the
    /// connection, as nostr-rs-relay does.
    pub max_message_bytes: usize,
    /// Subscriptions one connection may hold (NIP-11's `max_subscriptions`).
    pub max_subscriptions: usize,
}

impl Default for EmbeddedRelayConfig {
    fn default() -> Self {
        Self {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            db_dir: None,
            events_per_minute: DEFAULT_EVENTS_PER_MINUTE,
            min_pow_difficulty: 0,
            max_limit: DEFAULT_FILTER_LIMIT,
            max_message_bytes: serve::MAX_MESSAGE_BYTES,
            max_subscriptions: serve::MAX_SUBSCRIPTIONS,
        }
    }
}

/// A running embedded relay. Dropping it stops it; [`EmbeddedRelay::shutdown`] also waits until
/// every connection is closed and the event store is released.
#[derive(Debug)]
pub struct EmbeddedRelay {
    url: RelayUrl,
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
}

impl EmbeddedRelay {
    /// Binds `config.addr`, opens the store and starts accepting connections.
    pub async fn start(config: EmbeddedRelayConfig) -> Result<Self> {
        let storage = match &config.db_dir {
            Some(dir) => serve::Storage::Lmdb(Arc::new(open_lmdb(dir).await?)),
            None => serve::Storage::Memory(Box::new(store::Store::new(MEMORY_EVENTS))),
        };
        let shared = Arc::new(serve::Shared {
            storage,
            hub: serve::Hub::default(),
            events_per_minute: config.events_per_minute,
            default_limit: DEFAULT_FILTER_LIMIT.min(config.max_limit.max(1)),
            max_limit: config.max_limit.max(1),
            min_pow_difficulty: config.min_pow_difficulty,
            max_message_bytes: config.max_message_bytes,
            max_subscriptions: config.max_subscriptions,
        });

        let listener = TcpListener::bind(config.addr)
            .await
            .map_err(|source| NetError::Bind {
                addr: config.addr,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| NetError::Bind {
            addr: config.addr,
            source,
        })?;
        let url = RelayUrl::parse(&format!("ws://{addr}")).map_err(|e| NetError::InvalidUrl {
            url: format!("ws://{addr}"),
            reason: e.to_string(),
        })?;

        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(accept_loop(listener, shared, stopped));
        Ok(Self {
            url,
            addr,
            stop,
            task: Some(task),
        })
    }

    /// `ws://ip:port` of this relay.
    pub fn url(&self) -> &RelayUrl {
        &self.url
    }

    /// The bound port (useful when the config asked for port 0).
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The bound socket address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, closes every connection and releases the event store, so that a new
    /// relay can be started at once on the same port and directory.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for EmbeddedRelay {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(task) = self.task.take() {
            // Aborting drops the task's JoinSet, which aborts every connection with it.
            task.abort();
        }
    }
}

/// Serves on `addr` (events in `db` if given) until Ctrl-C; prints the URL first. Bind a
/// loopback address unless the relay is meant for a LAN.
pub async fn run_standalone(
    addr: SocketAddr,
    db: Option<PathBuf>,
    events_per_minute: Option<u32>,
    min_pow_difficulty: u8,
) -> Result<()> {
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig {
        addr,
        db_dir: db.clone(),
        events_per_minute: events_per_minute.unwrap_or(DEFAULT_EVENTS_PER_MINUTE),
        min_pow_difficulty,
        ..EmbeddedRelayConfig::default()
    })
    .await?;
    match &db {
        Some(dir) => println!(
            "relay listening on {} (events in {})",
            relay.url(),
            dir.display()
        ),
        None => println!("relay listening on {} (events in memory)", relay.url()),
    }
    tokio::signal::ctrl_c()
        .await
        .map_err(|source| NetError::Io {
            context: "waiting for Ctrl-C".into(),
            source,
        })?;
    println!("shutting down {}", relay.url());
    relay.shutdown().await;
    Ok(())
}

async fn open_lmdb(dir: &Path) -> Result<NostrLMDB> {
    let deadline = Instant::now() + DB_REOPEN_GRACE;
    loop {
        let path = dir.to_path_buf();
        let opened = tokio::task::spawn_blocking(move || NostrLMDB::open(path))
            .await
            .map_err(|e| NetError::Database {
                path: dir.to_path_buf(),
                reason: e.to_string(),
            })?;
        match opened {
            Ok(db) => return Ok(db),
            // heed refuses an environment that is still closing; the previous relay's writer
            // thread lets go of it shortly after shutdown.
            Err(e) if Instant::now() < deadline && e.to_string().contains("closing") => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => {
                return Err(NetError::Database {
                    path: dir.to_path_buf(),
                    reason: e.to_string(),
                })
            }
        }
    }
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<serve::Shared>,
    mut stopped: watch::Receiver<bool>,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let shared = shared.clone();
                let stopped = stopped.clone();
                connections.spawn(async move {
                    // A failed connection only concerns its own client.
                    let _ = serve_connection(shared, stream, peer, stopped).await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            _ = stopped.changed() => break,
        }
    }
    drop(listener);
    // Closing the sockets is what tells clients to reconnect; waiting for the tasks is what
    // releases their handles on the store, which closes with the last of them.
    connections.shutdown().await;
    drop(shared);
}

async fn serve_connection(
    shared: Arc<serve::Shared>,
    stream: TcpStream,
    peer: SocketAddr,
    stopped: watch::Receiver<bool>,
) -> Result<()> {
    let io_err = |context: &str, source: io::Error| NetError::Io {
        context: format!("{context} ({peer})"),
        source,
    };
    stream
        .set_nodelay(true)
        .map_err(|e| io_err("setting TCP_NODELAY", e))?;
    let upgraded = tokio::time::timeout(HANDSHAKE_TIMEOUT, upgrade(stream, &shared))
        .await
        .map_err(|_| {
            io_err(
                "WebSocket handshake",
                io::Error::new(io::ErrorKind::TimedOut, "no upgrade request in time"),
            )
        })?
        .map_err(|e| io_err("WebSocket handshake", e))?;
    serve::serve(shared, upgraded, stopped).await;
    Ok(())
}

/// Answers the HTTP upgrade request and returns the socket, with any bytes read past the
/// request kept for the WebSocket layer.
async fn upgrade(mut stream: TcpStream, shared: &serve::Shared) -> io::Result<Prefixed<TcpStream>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    let (consumed, request) = loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed during handshake",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
        match Request::try_parse(&buf) {
            Ok(Some(parsed)) => break parsed,
            Ok(None) if buf.len() < MAX_HANDSHAKE_BYTES => continue,
            Ok(None) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "upgrade request too large",
                ))
            }
            Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string())),
        }
    };
    let response = match create_response(&request) {
        Ok(response) => response,
        Err(e) if wants_info(&request) => {
            // NIP-11: the relay's real limits, so clients (ours included) can read them.
            let body = shared.information_document();
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/nostr+json\r\n\
                 Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Headers: *\r\n\
                 Access-Control-Allow-Methods: GET\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            let _ = stream.shutdown().await;
            return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string()));
        }
        Err(e) => {
            // A plain HTTP request (a browser): say what this port speaks.
            let body = "this is a nostr relay: connect with a WebSocket client\n";
            let reply = format!(
                "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string()));
        }
    };
    let mut head = Vec::with_capacity(256);
    write_response(&mut head, &response)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    stream.write_all(&head).await?;
    buf.drain(..consumed);
    Ok(Prefixed {
        prefix: buf,
        pos: 0,
        inner: stream,
    })
}

/// Whether a request that is not a WebSocket upgrade asks for the NIP-11 document.
fn wants_info(request: &Request) -> bool {
    request.headers().get_all("accept").iter().any(|v| {
        v.to_str()
            .is_ok_and(|v| v.contains("application/nostr+json"))
    })
}

/// A stream that first yields bytes already read from it.
struct Prefixed<S> {
    prefix: Vec<u8>,
    pos: usize,
    inner: S,
}

impl<S: AsyncRead + Unpin> AsyncRead for Prefixed<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.pos < this.prefix.len() {
            let n = (this.prefix.len() - this.pos).min(buf.remaining());
            buf.put_slice(&this.prefix[this.pos..this.pos + n]);
            this.pos += n;
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Prefixed<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
