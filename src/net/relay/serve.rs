//! The embedded relay's side of NIP-01 on one WebSocket: events in, stored and passed on only
//! to the subscriptions that can match them; stored events out for each REQ.
//!
//! Why not nostr-relay-builder's `LocalRelay` any more (measured in BENCHMARKS.md, "Many tables
//! on one relay"): it sends every new event through one broadcast channel to *every*
//! connection's task, and each task clones the event and tests it against all its filters. The
//! cost of one event therefore grows with the number of connections, i.e. with the tables the
//! relay serves (0.43 → 0.66 ms of relay CPU per event from 10 to 25 five-seat tables, and a
//! run with 450 idle connections that want nothing cost as much per event as 100 tables).
//! Here a [`Hub`] indexes every subscription's filters by the most selective field they name
//! (ids, then a tag value such as a table's `#a` coordinate, then authors, then kinds) and an
//! event visits only the subscriptions filed under its own id, tag values, author or kind; the
//! event's JSON is written once and each delivery is queued on its connection's outbox.
//!
//! Events are stored in [`Store`] (in memory, each as its JSON deflated, indexed for every
//! filter; see its module) or in nostr-lmdb when a directory is given.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use nostr_sdk::prelude::{
    ClientMessage, DatabaseError, DatabaseEventStatus, Event, EventId, Events, Filter, JsonUtil,
    Kind, MachineReadablePrefix, MatchEventOptions, NostrDatabase, PublicKey, RelayMessage,
    SaveEventStatus, SingleLetterTag, SubscriptionId,
};
use std::borrow::Cow;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::store::{unpack, Store};
use crate::net::MAX_EVENT_BYTES;

/// Subscriptions one connection may hold at once, by default.
pub(super) const MAX_SUBSCRIPTIONS: usize = 500;
/// Longest subscription id accepted (nostr-relay-builder's limit).
const MAX_SUBSCRIPTION_ID: usize = 250;
/// Live events queued for one connection before it counts as too slow and is closed (its
/// client reconnects and catches up from the store, as after any disconnection).
const OUTBOX: usize = 8_192;
/// Largest WebSocket message read: a REQ with many filters is bigger than an event, but not
/// by this much.
pub(super) const MAX_MESSAGE_BYTES: usize = 4 * MAX_EVENT_BYTES;

/// Where a relay keeps its events.
pub(super) enum Storage {
    Memory(Box<Store>),
    Lmdb(Arc<dyn NostrDatabase>),
}

/// What every connection of one relay shares.
pub(super) struct Shared {
    pub storage: Storage,
    pub hub: Hub,
    pub events_per_minute: u32,
    pub default_limit: usize,
    pub max_limit: usize,
    pub min_pow_difficulty: u8,
    pub max_message_bytes: usize,
    pub max_subscriptions: usize,
}

impl Shared {
    /// The NIP-11 information document: what this relay really enforces.
    pub fn information_document(&self) -> String {
        serde_json::json!({
            "name": "tolerance embedded relay",
            "description": "the relay inside tolerance",
            "version": env!("CARGO_PKG_VERSION"),
            "supported_nips": [1, 11, 13],
            "limitation": {
                "max_message_length": self.max_message_bytes,
                "max_subscriptions": self.max_subscriptions,
                "max_limit": self.max_limit,
                "max_subid_length": MAX_SUBSCRIPTION_ID,
                "min_pow_difficulty": self.min_pow_difficulty,
                "auth_required": false,
                "payment_required": false,
                "restricted_writes": false,
            },
        })
        .to_string()
    }
}

type ConnId = u64;
type SubKey = u64;

/// Every open subscription, filed by the one field of each filter that an event must match.
#[derive(Default)]
pub(super) struct Hub {
    next: AtomicU64,
    routes: Mutex<Routes>,
}

#[derive(Default)]
struct Routes {
    outboxes: HashMap<ConnId, mpsc::Sender<String>>,
    subs: HashMap<SubKey, Sub>,
    by_name: HashMap<(ConnId, SubscriptionId), SubKey>,
    ids: HashMap<EventId, HashSet<SubKey>>,
    tags: HashMap<SingleLetterTag, HashMap<String, HashSet<SubKey>>>,
    authors: HashMap<PublicKey, HashSet<SubKey>>,
    kinds: HashMap<Kind, HashSet<SubKey>>,
    any: HashSet<SubKey>,
}

struct Sub {
    conn: ConnId,
    /// The id as JSON, ready to be spliced into each `EVENT` message.
    id_json: String,
    filters: Vec<Filter>,
}

impl Routes {
    /// Files (or unfiles) one filter of subscription `key` under the most selective field it
    /// names: an event can only match the filter if it carries one of those values. An empty
    /// set of ids, authors or kinds restricts nothing (nostr's `match_event`); an empty set of
    /// tag values matches nothing, so filing it nowhere is right.
    fn file(&mut self, key: SubKey, filter: &Filter, add: bool) {
        fn edit<K: std::hash::Hash + Eq>(
            map: &mut HashMap<K, HashSet<SubKey>>,
            k: K,
            key: SubKey,
            add: bool,
        ) {
            if add {
                map.entry(k).or_default().insert(key);
            } else if let Some(set) = map.get_mut(&k) {
                set.remove(&key);
                if set.is_empty() {
                    map.remove(&k);
                }
            }
        }
        if let Some(ids) = filter.ids.as_ref().filter(|s| !s.is_empty()) {
            for id in ids {
                edit(&mut self.ids, *id, key, add);
            }
        } else if let Some((letter, values)) = filter.generic_tags.iter().next() {
            let by_value = self.tags.entry(*letter).or_default();
            for v in values {
                edit(by_value, v.clone(), key, add);
            }
            if by_value.is_empty() {
                self.tags.remove(letter);
            }
        } else if let Some(authors) = filter.authors.as_ref().filter(|s| !s.is_empty()) {
            for a in authors {
                edit(&mut self.authors, *a, key, add);
            }
        } else if let Some(kinds) = filter.kinds.as_ref().filter(|s| !s.is_empty()) {
            for k in kinds {
                edit(&mut self.kinds, *k, key, add);
            }
        } else if add {
            self.any.insert(key);
        } else {
            self.any.remove(&key);
        }
    }

    fn remove_sub(&mut self, key: SubKey) {
        if let Some(sub) = self.subs.remove(&key) {
            for f in &sub.filters {
                self.file(key, f, false);
            }
        }
    }
}

impl Hub {
    fn connect(&self, outbox: mpsc::Sender<String>) -> ConnId {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().outboxes.insert(id, outbox);
        id
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        // A panic while holding the lock leaves the maps consistent enough to keep serving:
        // each edit is a single insert or remove.
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn disconnect(&self, conn: ConnId) {
        let mut r = self.lock();
        r.outboxes.remove(&conn);
        let keys: Vec<SubKey> = r
            .by_name
            .iter()
            .filter(|((c, _), _)| *c == conn)
            .map(|(_, k)| *k)
            .collect();
        r.by_name.retain(|(c, _), _| *c != conn);
        for key in keys {
            r.remove_sub(key);
        }
    }

    /// Opens (or replaces) `conn`'s subscription `id`. Returns false when the connection
    /// already holds the most subscriptions it may.
    fn subscribe(
        &self,
        conn: ConnId,
        id: &SubscriptionId,
        filters: Vec<Filter>,
        max_subscriptions: usize,
    ) -> bool {
        let mut r = self.lock();
        let name = (conn, id.clone());
        if let Some(old) = r.by_name.remove(&name) {
            r.remove_sub(old);
        } else if r.by_name.keys().filter(|(c, _)| *c == conn).count() >= max_subscriptions {
            return false;
        }
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        for f in &filters {
            r.file(key, f, true);
        }
        let id_json = serde_json::to_string(id.as_str()).expect("strings serialise");
        r.subs.insert(
            key,
            Sub {
                conn,
                id_json,
                filters,
            },
        );
        r.by_name.insert(name, key);
        true
    }

    fn unsubscribe(&self, conn: ConnId, id: &SubscriptionId) {
        let mut r = self.lock();
        if let Some(key) = r.by_name.remove(&(conn, id.clone())) {
            r.remove_sub(key);
        }
    }

    /// Queues `event` for every subscription that matches it. A connection whose outbox is
    /// full is dropped from the hub, which closes it.
    fn dispatch(&self, event: &Event, json: &str) {
        let mut r = self.lock();
        let mut candidates: Vec<SubKey> = Vec::new();
        if let Some(set) = r.ids.get(&event.id) {
            candidates.extend(set);
        }
        for (letter, values) in event.tags.indexes() {
            if let Some(by_value) = r.tags.get(letter) {
                for v in values {
                    if let Some(set) = by_value.get(v) {
                        candidates.extend(set);
                    }
                }
            }
        }
        if let Some(set) = r.authors.get(&event.pubkey) {
            candidates.extend(set);
        }
        if let Some(set) = r.kinds.get(&event.kind) {
            candidates.extend(set);
        }
        candidates.extend(&r.any);
        if candidates.is_empty() {
            return;
        }
        candidates.sort_unstable();
        candidates.dedup();
        let mut too_slow: Vec<ConnId> = Vec::new();
        for key in candidates {
            let Some(sub) = r.subs.get(&key) else {
                continue;
            };
            if !sub
                .filters
                .iter()
                .any(|f| f.match_event(event, MatchEventOptions::new()))
            {
                continue;
            }
            let Some(outbox) = r.outboxes.get(&sub.conn) else {
                continue;
            };
            let msg = format!("[\"EVENT\",{},{json}]", sub.id_json);
            if let Err(mpsc::error::TrySendError::Full(_)) = outbox.try_send(msg) {
                too_slow.push(sub.conn);
            }
        }
        for conn in too_slow {
            // Dropping the sender ends the connection's task, which closes the socket.
            r.outboxes.remove(&conn);
        }
    }
}

/// Unfiles a connection's subscriptions however its task ends (closed, failed or aborted).
struct Registered<'a> {
    hub: &'a Hub,
    conn: ConnId,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.hub.disconnect(self.conn);
    }
}

/// Serves one upgraded connection until it closes or the relay stops.
pub(super) async fn serve<S>(shared: Arc<Shared>, stream: S, mut stopped: watch::Receiver<bool>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    // Buffers of 8 and 16 KiB instead of tungstenite's 128 KiB each: hundreds of connections
    // are mostly idle, a table's events are a few KiB, and the buffers grow for larger ones.
    let config = WebSocketConfig::default()
        .read_buffer_size(8 * 1024)
        .write_buffer_size(16 * 1024)
        .max_message_size(Some(shared.max_message_bytes))
        .max_frame_size(Some(shared.max_message_bytes));
    let ws = WebSocketStream::from_raw_socket(stream, Role::Server, Some(config)).await;
    let (mut tx, mut rx) = ws.split();
    let (outbox, mut outgoing) = mpsc::channel::<String>(OUTBOX);
    let conn = shared.hub.connect(outbox);
    let _registered = Registered {
        hub: &shared.hub,
        conn,
    };
    let mut state = ConnState {
        conn,
        sent: std::collections::VecDeque::new(),
    };
    loop {
        tokio::select! {
            msg = rx.next() => {
                let replies = match msg {
                    Some(Ok(Message::Text(text))) => shared.handle(&mut state, text.as_str()).await,
                    Some(Ok(Message::Binary(_))) => {
                        vec![notice("binary messages are not processed by this relay").into()]
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    // Pings are answered by tungstenite itself.
                    Some(Ok(_)) => continue,
                };
                for reply in replies {
                    let sent = match reply {
                        Reply::Text(text) => tx.feed(Message::text(text)).await,
                        Reply::Stored { id_json, events } => {
                            let mut sent = Ok(());
                            for e in events {
                                let msg = match e {
                                    StoredEvent::Packed(packed) => {
                                        format!("[\"EVENT\",{id_json},{}]", unpack(&packed))
                                    }
                                    StoredEvent::Parsed(e) => {
                                        format!("[\"EVENT\",{id_json},{}]", e.as_json())
                                    }
                                };
                                sent = tx.feed(Message::text(msg)).await;
                                if sent.is_err() {
                                    break;
                                }
                            }
                            sent
                        }
                    };
                    if sent.is_err() {
                        return;
                    }
                }
                if tx.flush().await.is_err() {
                    return;
                }
            }
            live = outgoing.recv() => {
                let Some(first) = live else { break };
                if tx.feed(Message::text(first)).await.is_err() {
                    return;
                }
                // Whatever else is queued goes out in the same flush.
                while let Ok(more) = outgoing.try_recv() {
                    if tx.feed(Message::text(more)).await.is_err() {
                        return;
                    }
                }
                if tx.flush().await.is_err() {
                    return;
                }
            }
            _ = stopped.changed() => break,
        }
    }
    let _ = tx.close().await;
}

/// One answer to a client message: a ready text, or a REQ's stored events, written one by one
/// as they are formatted so that a long history is never held twice as text.
enum Reply {
    Text(String),
    Stored {
        id_json: String,
        events: Box<dyn Iterator<Item = StoredEvent> + Send>,
    },
}

/// A stored event as its store gives it: the in-memory store's deflated JSON or LMDB's
/// parsed event.
enum StoredEvent {
    Packed(Box<[u8]>),
    Parsed(Box<Event>),
}

impl From<String> for Reply {
    fn from(text: String) -> Self {
        Reply::Text(text)
    }
}

struct ConnState {
    conn: ConnId,
    /// When the events of the last minute were accepted (only under a limit).
    sent: std::collections::VecDeque<Instant>,
}

fn notice(text: &str) -> String {
    RelayMessage::Notice(Cow::Borrowed(text)).as_json()
}

fn ok(event_id: EventId, status: bool, message: String) -> String {
    RelayMessage::Ok {
        event_id,
        status,
        message: Cow::Owned(message),
    }
    .as_json()
}

fn closed(id: &SubscriptionId, message: String) -> String {
    RelayMessage::Closed {
        subscription_id: Cow::Borrowed(id),
        message: Cow::Owned(message),
    }
    .as_json()
}

impl Shared {
    /// Answers one client message; the replies go out in order.
    async fn handle(&self, state: &mut ConnState, text: &str) -> Vec<Reply> {
        let msg = match ClientMessage::from_json(text) {
            Ok(msg) => msg,
            Err(e) => {
                return vec![notice(&format!("{}: {e}", MachineReadablePrefix::Invalid)).into()]
            }
        };
        match msg {
            ClientMessage::Event(event) => vec![self.event(state, event.into_owned()).await.into()],
            ClientMessage::Req {
                subscription_id,
                filters,
            } => {
                self.req(
                    state,
                    subscription_id.into_owned(),
                    filters.into_iter().map(Cow::into_owned).collect(),
                )
                .await
            }
            ClientMessage::Count {
                subscription_id,
                filter,
            } => match self.count(filter.into_owned()).await {
                Ok(count) => vec![RelayMessage::Count {
                    subscription_id,
                    count,
                }
                .as_json()
                .into()],
                Err(e) => vec![closed(
                    &subscription_id,
                    format!("{}: {e}", MachineReadablePrefix::Error),
                )
                .into()],
            },
            ClientMessage::Close(id) => {
                self.hub.unsubscribe(state.conn, &id);
                Vec::new()
            }
            ClientMessage::Auth(event) => vec![ok(
                event.id,
                false,
                format!(
                    "{}: this relay does not offer NIP-42 authentication",
                    MachineReadablePrefix::Blocked
                ),
            )
            .into()],
            ClientMessage::NegOpen {
                subscription_id, ..
            } => vec![RelayMessage::NegErr {
                subscription_id,
                message: Cow::Owned(format!(
                    "{}: this relay does not offer negentropy",
                    MachineReadablePrefix::Blocked
                )),
            }
            .as_json()
            .into()],
            ClientMessage::NegMsg { .. } | ClientMessage::NegClose { .. } => Vec::new(),
        }
    }

    async fn event(&self, state: &mut ConnState, event: Event) -> String {
        // A sliding window of a minute, as public relays' write policies count; the default
        // allowance is no limit at all.
        if self.events_per_minute < super::DEFAULT_EVENTS_PER_MINUTE {
            let now = Instant::now();
            while state
                .sent
                .front()
                .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(60))
            {
                state.sent.pop_front();
            }
            if state.sent.len() >= self.events_per_minute as usize {
                return ok(
                    event.id,
                    false,
                    format!(
                        "{}: max {} events per minute",
                        MachineReadablePrefix::RateLimited,
                        self.events_per_minute
                    ),
                );
            }
            state.sent.push_back(now);
        }
        let json = event.as_json();
        let size = json.len();
        if size > MAX_EVENT_BYTES {
            return ok(
                event.id,
                false,
                format!(
                    "{}: event is {size} bytes, limit {MAX_EVENT_BYTES}",
                    MachineReadablePrefix::Blocked
                ),
            );
        }
        if !event.verify_id() {
            let why = format!("{}: invalid event ID", MachineReadablePrefix::Invalid);
            return ok(event.id, false, why);
        }
        if self.min_pow_difficulty > 0 {
            let has = event.id.check_pow(self.min_pow_difficulty);
            if !has {
                let why = format!(
                    "{}: difficulty {} is less than {}",
                    MachineReadablePrefix::Pow,
                    nostr_sdk::prelude::nip13::get_leading_zero_bits(event.id.as_bytes()),
                    self.min_pow_difficulty
                );
                return ok(event.id, false, why);
            }
        }
        if !event.verify_signature() {
            let why = format!(
                "{}: invalid event signature",
                MachineReadablePrefix::Invalid
            );
            return ok(event.id, false, why);
        }
        if event.is_protected() {
            // NIP-70: only its authenticated author may publish it, and we authenticate nobody.
            let why = format!(
                "{}: protected events need NIP-42 authentication, which this relay does not offer",
                MachineReadablePrefix::AuthRequired
            );
            return ok(event.id, false, why);
        }
        if event.kind.is_ephemeral() {
            self.hub.dispatch(&event, &json);
            return ok(event.id, true, String::new());
        }
        let status = match &self.storage {
            Storage::Memory(store) => Ok(store.status(&event.id)),
            Storage::Lmdb(db) => db.check_id(&event.id).await,
        };
        match status {
            Ok(DatabaseEventStatus::Saved) => {
                let why = format!(
                    "{}: already have this event",
                    MachineReadablePrefix::Duplicate
                );
                return ok(event.id, true, why);
            }
            Ok(DatabaseEventStatus::Deleted) => {
                let why = format!("{}: this event is deleted", MachineReadablePrefix::Blocked);
                return ok(event.id, false, why);
            }
            Ok(DatabaseEventStatus::NotExistent) => {}
            Err(e) => {
                return ok(
                    event.id,
                    false,
                    format!("{}: {e}", MachineReadablePrefix::Error),
                )
            }
        }
        let saved = match &self.storage {
            Storage::Memory(store) => Ok(store.save(&event, &json)),
            Storage::Lmdb(db) => db.save_event(&event).await,
        };
        match saved {
            Ok(SaveEventStatus::Success) => {
                self.hub.dispatch(&event, &json);
                ok(event.id, true, String::new())
            }
            Ok(SaveEventStatus::Rejected(reason)) => ok(
                event.id,
                false,
                format!("{}: {reason:?}", MachineReadablePrefix::Blocked),
            ),
            Err(e) => ok(
                event.id,
                false,
                format!("{}: database error: {e}", MachineReadablePrefix::Error),
            ),
        }
    }

    async fn count(&self, filter: Filter) -> Result<usize, DatabaseError> {
        match &self.storage {
            Storage::Memory(store) => Ok(store.count(&filter)),
            Storage::Lmdb(db) => db.count(filter).await,
        }
    }

    /// The stored events matching any of `filters`, newest first, and how many.
    async fn stored(
        &self,
        filters: &[Filter],
    ) -> Result<(usize, Box<dyn Iterator<Item = StoredEvent> + Send>), DatabaseError> {
        match &self.storage {
            Storage::Memory(store) => {
                let found = store.query(filters);
                Ok((
                    found.len(),
                    Box::new(found.into_iter().map(StoredEvent::Packed)),
                ))
            }
            Storage::Lmdb(db) => {
                let mut events: Option<Events> = None;
                for f in filters {
                    let found = db.query(f.clone()).await?;
                    events = Some(match events {
                        Some(all) => all.merge(found),
                        None => found,
                    });
                }
                let events = events.unwrap_or_else(|| Events::new(&Filter::new()));
                Ok((
                    events.len(),
                    Box::new(events.into_iter().map(|e| StoredEvent::Parsed(Box::new(e)))),
                ))
            }
        }
    }

    async fn req(
        &self,
        state: &mut ConnState,
        id: SubscriptionId,
        mut filters: Vec<Filter>,
    ) -> Vec<Reply> {
        if id.as_str().chars().count() > MAX_SUBSCRIPTION_ID {
            return vec![closed(
                &id,
                format!(
                    "{}: subscription ID exceeds max length {MAX_SUBSCRIPTION_ID}",
                    MachineReadablePrefix::Blocked
                ),
            )
            .into()];
        }
        for f in filters.iter_mut() {
            let limit = f.limit.unwrap_or(match &f.ids {
                Some(ids) if !ids.is_empty() => ids.len(),
                _ => self.default_limit,
            });
            f.limit = Some(limit.min(self.max_limit));
        }
        // Filed before the store is read: an event saved meanwhile is queued behind this
        // answer instead of falling between the two (a client drops the duplicate).
        if !self
            .hub
            .subscribe(state.conn, &id, filters.clone(), self.max_subscriptions)
        {
            return vec![closed(
                &id,
                format!("{}: too many REQs", MachineReadablePrefix::RateLimited),
            )
            .into()];
        }
        let (found, events) = match self.stored(&filters).await {
            Ok(stored) => stored,
            Err(e) => {
                self.hub.unsubscribe(state.conn, &id);
                let why = format!("{}: {e}", MachineReadablePrefix::Error);
                return vec![closed(&id, why).into()];
            }
        };
        let id_json = serde_json::to_string(id.as_str()).expect("strings serialise");
        let mut out = vec![
            Reply::Stored { id_json, events },
            RelayMessage::EndOfStoredEvents(Cow::Borrowed(&id))
                .as_json()
                .into(),
        ];
        // A request for ids that all came back is complete: nothing more can match.
        let wanted: Option<usize> = filters
            .iter()
            .map(|f| f.ids.as_ref().map(|ids| ids.len()))
            .sum();
        if wanted == Some(found) {
            self.hub.unsubscribe(state.conn, &id);
            out.push(closed(&id, String::new()).into());
        }
        out
    }
}
