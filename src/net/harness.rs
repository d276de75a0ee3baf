//! A relay that behaves as public relays do, for tests and benches: a WebSocket proxy in front
//! of a real relay (the embedded relay or nostr-rs-relay), never a fake one.
//!
//! Each client connection gets its own upstream connection; the proxy reads every NIP-01
//! message both ways and applies [`Rules`], which can be changed while clients are connected:
//! - **rate limit** per connection: a token bucket of `per_minute` events refilled continuously,
//!   at most `burst` at once; an `EVENT` over the limit is answered
//!   `["OK",id,false,"rate-limited: ..."]` and not forwarded (the way strfry and nostr-rs-relay
//!   answer); or a **sliding window** of so many events in any 60 s, per connection and/or per
//!   address (every client of a test comes from 127.0.0.1, so per address is over all of them),
//!   the way write policies of public relays count;
//! - **capped queries**: at most `max_stored` stored events are passed on per `REQ` before its
//!   `EOSE` (strfry returns 500 at most); live events after `EOSE` are not capped;
//! - **refused subscriptions**: every `REQ` answered `CLOSED` with a reason;
//! - **rejected events**: every `EVENT` answered `OK false` with a reason;
//! - **delay**: every message waits this long each way (order kept);
//! - **jitter**: every message waits up to this much more, at random, each way: messages leave
//!   in the order their time comes, not the order they came (delivery reordered);
//! - **duplicates**: every event a relay delivers reaches the client twice;
//! - **mark**: forwarded events whose content holds a text are counted apart.
//!
//! A plain HTTP request (a client reading the relay's NIP-11 document) is passed through to the
//! relay untouched.
//!
//! And commands, for the middle of a game: [`RelayProxy::close_subscriptions`] sends `CLOSED`
//! for every open subscription (and `CLOSE` upstream), [`RelayProxy::drop_connections`] cuts
//! every connection, [`RelayProxy::go_down`] / [`RelayProxy::come_up`] refuse connections for a
//! while (the relay behind keeps its events, as a restarted public relay does).
//!
//! [`ProxyStats`] counts what the proxy did, and [`RelayProxy::wait_until`] lets a test act
//! when the traffic reached a point ("after 40 events, close the subscriptions") instead of
//! after a sleep.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use nostr_sdk::prelude::RelayUrl;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use super::{NetError, Result};

/// A per-connection publishing allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Events per minute, refilled continuously.
    pub per_minute: u32,
    /// Events that may be sent at once after a pause (the bucket's size).
    pub burst: u32,
}

/// How the proxy treats traffic; [`RelayProxy::set_rules`] changes it at run time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    /// Limit on `EVENT`s per connection; `None` forwards them all.
    pub rate_limit: Option<RateLimit>,
    /// At most this many `EVENT`s per connection in any 60 s.
    pub window: Option<u32>,
    /// At most this many `EVENT`s from one address (all connections) in any 60 s.
    pub ip_window: Option<u32>,
    /// Stored events passed on per `REQ` before its `EOSE`; `None` passes them all.
    pub max_stored: Option<usize>,
    /// Answer every new `REQ` with `CLOSED` and this reason instead of forwarding it.
    pub refuse_reqs: Option<String>,
    /// Answer every `EVENT` with `OK false` and this reason instead of forwarding it.
    pub reject_events: Option<String>,
    /// Added to every message, each way.
    pub delay: Duration,
    /// Up to this much more for each message, at random: messages are reordered.
    pub jitter: Duration,
    /// Every `EVENT` from the relay is delivered twice.
    pub duplicate: bool,
    /// Answer a plain HTTP request (a NIP-11 document asked for) `404 Not Found` instead of
    /// passing it to the relay: a relay without an information document.
    pub no_info: bool,
    /// Count forwarded `EVENT`s whose content holds this text ([`ProxyStats::marked`]), so a
    /// test can act when the traffic reaches a kind of event rather than a number of them.
    pub mark: Option<String>,
}

/// What the proxy did so far, over every connection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProxyStats {
    /// Client connections accepted and joined to the relay.
    pub connections: u64,
    /// Connections refused because the proxy was down.
    pub refused: u64,
    /// `EVENT`s passed on to the relay.
    pub events_forwarded: u64,
    /// Of those, the ones whose content holds [`Rules::mark`].
    pub marked: u64,
    /// `EVENT`s answered "rate-limited".
    pub rate_limited: u64,
    /// `EVENT`s answered with [`Rules::reject_events`].
    pub rejected: u64,
    /// `REQ`s seen (forwarded or refused).
    pub reqs: u64,
    /// `CLOSED` messages the proxy sent itself.
    pub closed_sent: u64,
    /// Stored events held back by [`Rules::max_stored`].
    pub stored_dropped: u64,
    /// Plain HTTP requests (the relay's NIP-11 information document) passed to the relay.
    pub info_reads: u64,
}

enum Command {
    CloseSubscriptions(String),
    Drop,
}

struct Shared {
    /// When the address's recent events were taken, for [`Rules::ip_window`].
    ip_sent: Mutex<std::collections::VecDeque<Instant>>,
    upstream: String,
    upstream_addr: String,
    rules: Mutex<Rules>,
    stats: watch::Sender<ProxyStats>,
    conns: Mutex<HashMap<u64, mpsc::UnboundedSender<Command>>>,
    down: watch::Sender<bool>,
    next_id: AtomicU64,
}

impl Shared {
    fn rules(&self) -> Rules {
        self.rules.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn count(&self, f: impl FnOnce(&mut ProxyStats)) {
        self.stats.send_modify(f);
    }

    fn tell_all(&self, make: impl Fn() -> Command) -> usize {
        let conns = self.conns.lock().unwrap_or_else(|e| e.into_inner());
        conns.values().filter(|tx| tx.send(make()).is_ok()).count()
    }
}

/// A running proxy. Dropping it stops accepting and ends every connection.
pub struct RelayProxy {
    url: RelayUrl,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for RelayProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelayProxy")
            .field("url", &self.url)
            .field("upstream", &self.shared.upstream)
            .finish()
    }
}

impl RelayProxy {
    /// Listens on a free loopback port in front of `upstream` (a `ws://` relay).
    pub async fn start(upstream: &RelayUrl, rules: Rules) -> Result<Self> {
        let upstream_str = upstream.to_string();
        let upstream_addr = upstream_str
            .strip_prefix("ws://")
            .map(|rest| rest.split('/').next().unwrap_or(rest).to_string())
            .ok_or_else(|| NetError::InvalidUrl {
                url: upstream_str.clone(),
                reason: "the test proxy speaks to ws:// relays only".into(),
            })?;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| NetError::Bind { addr, source })?;
        let local = listener
            .local_addr()
            .map_err(|source| NetError::Bind { addr, source })?;
        let url = RelayUrl::parse(&format!("ws://{local}")).map_err(|e| NetError::InvalidUrl {
            url: format!("ws://{local}"),
            reason: e.to_string(),
        })?;
        let shared = Arc::new(Shared {
            ip_sent: Mutex::new(std::collections::VecDeque::new()),
            upstream: upstream_str,
            upstream_addr,
            rules: Mutex::new(rules),
            stats: watch::channel(ProxyStats::default()).0,
            conns: Mutex::new(HashMap::new()),
            down: watch::channel(false).0,
            next_id: AtomicU64::new(0),
        });
        let task = tokio::spawn(accept_loop(listener, Arc::clone(&shared)));
        Ok(Self { url, shared, task })
    }

    /// `ws://127.0.0.1:port` of the proxy: give this to clients.
    pub fn url(&self) -> &RelayUrl {
        &self.url
    }

    /// The rules in force.
    pub fn rules(&self) -> Rules {
        self.shared.rules()
    }

    /// Replaces the rules; connections already open follow them from their next message.
    pub fn set_rules(&self, rules: Rules) {
        *self.shared.rules.lock().unwrap_or_else(|e| e.into_inner()) = rules;
    }

    /// Changes the rules in place.
    pub fn update_rules(&self, f: impl FnOnce(&mut Rules)) {
        f(&mut self.shared.rules.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// What the proxy did so far.
    pub fn stats(&self) -> ProxyStats {
        self.shared.stats.borrow().clone()
    }

    /// Waits until `done` holds for the stats, at most `timeout`; says whether it held.
    pub async fn wait_until(&self, done: impl Fn(&ProxyStats) -> bool, timeout: Duration) -> bool {
        let mut rx = self.shared.stats.subscribe();
        tokio::time::timeout(timeout, rx.wait_for(|s| done(s)))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Sends `CLOSED` with `reason` for every subscription open on every connection now, and
    /// `CLOSE` for it to the relay. Returns how many connections were told.
    pub fn close_subscriptions(&self, reason: &str) -> usize {
        let reason = reason.to_string();
        self.shared
            .tell_all(|| Command::CloseSubscriptions(reason.clone()))
    }

    /// Cuts every connection now; clients may reconnect at once.
    pub fn drop_connections(&self) -> usize {
        self.shared.tell_all(|| Command::Drop)
    }

    /// Cuts every connection and refuses new ones until [`RelayProxy::come_up`].
    pub fn go_down(&self) {
        self.shared.down.send_replace(true);
        self.drop_connections();
    }

    /// Accepts connections again after [`RelayProxy::go_down`].
    pub fn come_up(&self) {
        self.shared.down.send_replace(false);
    }

    /// Whether the proxy refuses connections now.
    pub fn is_down(&self) -> bool {
        *self.shared.down.borrow()
    }

    /// Goes down now and comes up after `pause`, without the caller waiting.
    pub fn down_for(&self, pause: Duration) {
        self.go_down();
        let shared = Arc::clone(&self.shared);
        tokio::spawn(async move {
            tokio::time::sleep(pause).await;
            shared.down.send_replace(false);
        });
    }
}

impl Drop for RelayProxy {
    fn drop(&mut self) {
        self.task.abort();
        self.shared.tell_all(|| Command::Drop);
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        if *shared.down.borrow() {
            shared.count(|s| s.refused += 1);
            drop(tcp);
            continue;
        }
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        shared
            .conns
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, tx);
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            serve(&shared, tcp, rx).await;
            shared
                .conns
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
        });
    }
}

/// One subscription as the proxy sees it.
struct Sub {
    /// Still sending stored events (before `EOSE`).
    stored: bool,
    passed: usize,
}

/// A token bucket of one connection, and its recent events for a sliding window.
struct Bucket {
    tokens: f64,
    at: Instant,
    sent: std::collections::VecDeque<Instant>,
}

/// Takes one event into a sliding window of `max` events a minute, if there is room.
fn window_take(sent: &mut std::collections::VecDeque<Instant>, max: u32) -> bool {
    let now = Instant::now();
    while sent
        .front()
        .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(60))
    {
        sent.pop_front();
    }
    if sent.len() >= max as usize {
        return false;
    }
    sent.push_back(now);
    true
}

impl Bucket {
    fn take(&mut self, limit: RateLimit) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * f64::from(limit.per_minute) / 60.0;
        self.tokens = (self.tokens + refill).min(f64::from(limit.burst));
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

type Outbox = mpsc::UnboundedSender<(Instant, Message)>;

/// Sends each message when its time comes: in the order of those times (messages given more
/// jitter leave after later ones), the order they came in for equal times.
async fn write_delayed<S>(mut sink: S, mut rx: mpsc::UnboundedReceiver<(Instant, Message)>)
where
    S: futures_util::Sink<Message> + Unpin,
{
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut queue: BinaryHeap<Reverse<(Instant, u64, Timed)>> = BinaryHeap::new();
    let mut n = 0u64;
    loop {
        let next = queue.peek().map(|Reverse((due, _, _))| *due);
        tokio::select! {
            got = rx.recv() => match got {
                Some((due, msg)) => {
                    n += 1;
                    queue.push(Reverse((due, n, Timed(msg))));
                }
                None => {
                    while let Some(Reverse((due, _, Timed(msg)))) = queue.pop() {
                        tokio::time::sleep_until(due).await;
                        if sink.send(msg).await.is_err() {
                            break;
                        }
                    }
                    break;
                }
            },
            _ = async { tokio::time::sleep_until(next.unwrap_or_else(Instant::now)).await },
                if next.is_some() => {
                let now = Instant::now();
                while queue.peek().is_some_and(|Reverse((due, _, _))| *due <= now) {
                    let Some(Reverse((_, _, Timed(msg)))) = queue.pop() else { break };
                    if sink.send(msg).await.is_err() {
                        return;
                    }
                }
            }
        }
    }
    let _ = sink.close().await;
}

/// A message in the send queue, ordered only by its time and arrival (the wrapper compares
/// equal).
struct Timed(Message);

impl PartialEq for Timed {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Timed {}
impl PartialOrd for Timed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Timed {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

/// When a message sent now leaves, under `rules`' delay and jitter.
fn due(rules: &Rules) -> Instant {
    let jitter = if rules.jitter.is_zero() {
        Duration::ZERO
    } else {
        use rand::Rng;
        rules.jitter.mul_f64(rand::thread_rng().gen_range(0.0..1.0))
    };
    Instant::now() + rules.delay + jitter
}

fn send(out: &Outbox, delay: Duration, v: Value) {
    let _ = out.send((Instant::now() + delay, Message::text(v.to_string())));
}

/// Whether the request waiting on `tcp` is a plain HTTP request (a NIP-11 document asked for)
/// rather than a WebSocket upgrade; looks without reading.
async fn is_plain_http(tcp: &TcpStream) -> bool {
    let mut buf = vec![0u8; 16 * 1024];
    for _ in 0..100 {
        let Ok(n) = tcp.peek(&mut buf).await else {
            return false;
        };
        let head = String::from_utf8_lossy(&buf[..n]).to_ascii_lowercase();
        if head.contains("\r\n\r\n") || n == buf.len() {
            return !head.contains("upgrade: websocket");
        }
        if n == 0 {
            return false;
        }
        // Only part of the head came; look again once more has arrived.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    false
}

async fn serve(shared: &Shared, tcp: TcpStream, mut cmds: mpsc::UnboundedReceiver<Command>) {
    let _ = tcp.set_nodelay(true);
    if is_plain_http(&tcp).await {
        if shared.rules().no_info {
            let mut tcp = tcp;
            let _ = tokio::io::AsyncWriteExt::write_all(
                &mut tcp,
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )
            .await;
            return;
        }
        // The relay's information document is the relay's own: pass the exchange through.
        let Ok(mut up) = TcpStream::connect(&shared.upstream_addr).await else {
            return;
        };
        shared.count(|s| s.info_reads += 1);
        let mut tcp = tcp;
        let _ = tokio::io::copy_bidirectional(&mut tcp, &mut up).await;
        return;
    }
    // Upstream first: while the relay is down the client's connection fails, as it would to the
    // relay itself, instead of opening and dropping at once (which reads as connected).
    let Ok(up_tcp) = TcpStream::connect(&shared.upstream_addr).await else {
        return;
    };
    let Ok(client) = tokio_tungstenite::accept_async(tcp).await else {
        return;
    };
    let _ = up_tcp.set_nodelay(true);
    let Ok((upstream, _)) = tokio_tungstenite::client_async(shared.upstream.as_str(), up_tcp).await
    else {
        return;
    };
    shared.count(|s| s.connections += 1);
    let (c_sink, mut c_stream) = client.split();
    let (u_sink, mut u_stream) = upstream.split();
    let (to_client, rx) = mpsc::unbounded_channel();
    let client_writer = tokio::spawn(write_delayed(c_sink, rx));
    let (to_relay, rx) = mpsc::unbounded_channel();
    let relay_writer = tokio::spawn(write_delayed(u_sink, rx));

    let mut subs: HashMap<String, Sub> = HashMap::new();
    let rules = shared.rules();
    let mut bucket = Bucket {
        tokens: f64::from(rules.rate_limit.map_or(0, |l| l.burst)),
        at: Instant::now(),
        sent: std::collections::VecDeque::new(),
    };
    loop {
        tokio::select! {
            cmd = cmds.recv() => match cmd {
                Some(Command::CloseSubscriptions(reason)) => {
                    let delay = shared.rules().delay;
                    for (id, _) in subs.drain() {
                        send(&to_client, delay, json!(["CLOSED", id, reason]));
                        send(&to_relay, delay, json!(["CLOSE", id]));
                        shared.count(|s| s.closed_sent += 1);
                    }
                }
                Some(Command::Drop) | None => break,
            },
            msg = c_stream.next() => {
                let Some(Ok(msg)) = msg else { break };
                if msg.is_close() {
                    break;
                }
                from_client(shared, msg, &mut subs, &mut bucket, &to_client, &to_relay);
            }
            msg = u_stream.next() => {
                let Some(Ok(msg)) = msg else { break };
                if msg.is_close() {
                    break;
                }
                from_relay(shared, msg, &mut subs, &to_client);
            }
        }
    }
    // A cut connection is cut at once, without flushing what was delayed.
    client_writer.abort();
    relay_writer.abort();
}

fn from_client(
    shared: &Shared,
    msg: Message,
    subs: &mut HashMap<String, Sub>,
    bucket: &mut Bucket,
    to_client: &Outbox,
    to_relay: &Outbox,
) {
    let rules = shared.rules();
    let delay = rules.delay;
    let parsed: Option<Value> = msg
        .to_text()
        .ok()
        .and_then(|t| serde_json::from_str(t).ok());
    let verb = parsed
        .as_ref()
        .and_then(|v| v.get(0))
        .and_then(Value::as_str);
    match (verb, parsed.as_ref()) {
        (Some("EVENT"), Some(v)) => {
            let id = v
                .get(1)
                .and_then(|e| e.get("id"))
                .cloned()
                .unwrap_or(Value::Null);
            if let Some(reason) = &rules.reject_events {
                shared.count(|s| s.rejected += 1);
                send(to_client, delay, json!(["OK", id, false, reason]));
                return;
            }
            if let Some(limit) = rules.rate_limit {
                if !bucket.take(limit) {
                    shared.count(|s| s.rate_limited += 1);
                    let reason = format!(
                        "rate-limited: at most {} events per minute, {} at once",
                        limit.per_minute, limit.burst
                    );
                    send(to_client, delay, json!(["OK", id, false, reason]));
                    return;
                }
            }
            let over = |max: u32| {
                shared.count(|s| s.rate_limited += 1);
                let reason = format!("rate-limited: max {max} events per minute");
                send(to_client, delay, json!(["OK", id.clone(), false, reason]));
            };
            if let Some(max) = rules.window {
                if !window_take(&mut bucket.sent, max) {
                    over(max);
                    return;
                }
            }
            if let Some(max) = rules.ip_window {
                let mut sent = shared.ip_sent.lock().unwrap_or_else(|e| e.into_inner());
                if !window_take(&mut sent, max) {
                    drop(sent);
                    over(max);
                    return;
                }
            }
            let marked = rules.mark.as_deref().is_some_and(|m| {
                v.get(1)
                    .and_then(|e| e.get("content"))
                    .and_then(Value::as_str)
                    .is_some_and(|c| c.contains(m))
            });
            shared.count(|s| {
                s.events_forwarded += 1;
                s.marked += u64::from(marked);
            });
        }
        (Some("REQ"), Some(v)) => {
            let id = v.get(1).and_then(Value::as_str).unwrap_or("").to_string();
            shared.count(|s| s.reqs += 1);
            if let Some(reason) = &rules.refuse_reqs {
                shared.count(|s| s.closed_sent += 1);
                subs.remove(&id);
                send(to_client, delay, json!(["CLOSED", id, reason]));
                return;
            }
            // A REQ with an open id replaces that subscription, stored events and all.
            subs.insert(
                id,
                Sub {
                    stored: true,
                    passed: 0,
                },
            );
        }
        (Some("CLOSE"), Some(v)) => {
            if let Some(id) = v.get(1).and_then(Value::as_str) {
                subs.remove(id);
            }
        }
        _ => {}
    }
    let _ = to_relay.send((due(&rules), msg));
}

fn from_relay(shared: &Shared, msg: Message, subs: &mut HashMap<String, Sub>, to_client: &Outbox) {
    let rules = shared.rules();
    let parsed: Option<Value> = msg
        .to_text()
        .ok()
        .and_then(|t| serde_json::from_str(t).ok());
    let verb = parsed
        .as_ref()
        .and_then(|v| v.get(0))
        .and_then(Value::as_str);
    let sub_id = parsed
        .as_ref()
        .and_then(|v| v.get(1))
        .and_then(Value::as_str)
        .map(str::to_string);
    match (verb, sub_id) {
        (Some("EVENT"), Some(id)) => {
            // Late events of a subscription we closed are not the client's any more.
            let Some(sub) = subs.get_mut(&id) else {
                return;
            };
            if sub.stored {
                if rules.max_stored.is_some_and(|cap| sub.passed >= cap) {
                    shared.count(|s| s.stored_dropped += 1);
                    return;
                }
                sub.passed += 1;
            }
        }
        (Some("EOSE"), Some(id)) => match subs.get_mut(&id) {
            Some(sub) => sub.stored = false,
            None => return,
        },
        (Some("CLOSED"), Some(id)) => {
            subs.remove(&id);
        }
        _ => {}
    }
    if rules.duplicate && verb == Some("EVENT") {
        let _ = to_client.send((due(&rules), msg.clone()));
    }
    let _ = to_client.send((due(&rules), msg));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_allows_a_burst_then_the_rate() {
        let limit = RateLimit {
            per_minute: 60,
            burst: 3,
        };
        let mut b = Bucket {
            tokens: 3.0,
            at: Instant::now(),
            sent: std::collections::VecDeque::new(),
        };
        assert!(b.take(limit) && b.take(limit) && b.take(limit));
        assert!(!b.take(limit), "the burst is spent");
        // One second at 60/min refills one token.
        b.at -= Duration::from_millis(1_010);
        assert!(b.take(limit));
        assert!(!b.take(limit));
        // A long pause refills no more than the burst.
        b.at -= Duration::from_secs(600);
        assert!(b.take(limit) && b.take(limit) && b.take(limit));
        assert!(!b.take(limit));
    }
}
