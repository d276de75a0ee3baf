//! One identity's connections to several relays, over nostr-sdk's [`Client`].
//!
//! What nostr-sdk 0.44 does and what this module adds (read from its sources and checked by
//! `tests/net_relay.rs`):
//! - **Publishing.** `Client::send_event` returns `Ok` with an empty success set when every
//!   relay is down. [`RelayPool::publish`] sends to each relay itself, bounds the wait for each
//!   `OK` by [`PoolConfig::publish_timeout`], skips relays that are not connected (instead of
//!   queueing behind a dead socket), and fails with [`NetError::NotAccepted`] unless at least one
//!   relay said `OK true`.
//! - **Reconnecting.** nostr-sdk retries a lost relay every 10 s by default, growing to 60 s with
//!   ±3 s jitter. We use a fixed [`PoolConfig::reconnect_interval`] (500 ms by default).
//! - **Re-subscribing.** nostr-sdk re-sends a REQ after a reconnection only if the connection is
//!   newer than the subscription *in whole seconds*, so a relay that comes back within the same
//!   second silently loses the subscription. It also never re-sends a REQ that failed because the
//!   relay was down when `subscribe` was called. Each [`Subscription`] therefore watches relay
//!   status changes and sends its own REQ whenever a relay becomes connected.
//! - **Catching up.** That REQ asks for stored events since the newest one already delivered
//!   minus [`PoolConfig::catch_up_margin`] (clocks differ and `created_at` has one-second
//!   granularity), so events published while this client was away arrive too. Filters that may
//!   match gift wraps (kind 1059, or no kind given) are re-sent whole, because gift wraps carry
//!   randomised past timestamps.
//! - **Deduplication.** A subscription yields each event id once, whichever relay or REQ brought
//!   it; [`RelayPool::fetch`] returns each event once. Events that do not match the filters are
//!   dropped (a relay may send anything); signatures are checked by nostr-sdk.
//! - **Bounded waits.** [`RelayPool::connect`] tries every relay at once, each for at most
//!   [`PoolConfig::connect_timeout`], and fails with [`NetError::Unreachable`] naming each relay if
//!   none answered. Relays that failed keep being retried in the background.
//! - **Size.** Events over [`PoolConfig::max_event_bytes`] are refused before sending and ignored
//!   when received.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nostr_sdk::prelude::{
    Client, ClientOptions, Event, EventBuilder, EventId, Filter, JsonUtil, Keys, Kind,
    MatchEventOptions, Monitor, MonitorNotification, PublicKey, Relay, RelayLimits, RelayMessage,
    RelayOptions, RelayPoolNotification, RelayStatus, RelayUrl, ReqExitPolicy, SubscribeOptions,
    SubscriptionId, Timestamp,
};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinSet;

use super::{NetError, Result, MAX_EVENT_BYTES};

/// Timeouts and limits of a [`RelayPool`].
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// Bound on each relay's first connection attempt in [`RelayPool::connect`].
    pub connect_timeout: Duration,
    /// Bound on waiting for each relay's `OK` to a published event.
    pub publish_timeout: Duration,
    /// Pause between reconnection attempts to a lost relay.
    pub reconnect_interval: Duration,
    /// How far before the newest delivered event a re-subscription asks again.
    pub catch_up_margin: Duration,
    /// Largest event JSON published or accepted.
    pub max_event_bytes: usize,
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            publish_timeout: Duration::from_secs(5),
            reconnect_interval: Duration::from_millis(500),
            catch_up_margin: Duration::from_secs(60),
            max_event_bytes: MAX_EVENT_BYTES,
        }
    }
}

/// Which relays took a published event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishReport {
    /// The event.
    pub event_id: EventId,
    /// Relays that answered `OK true` (including "duplicate: already have it").
    pub accepted: Vec<RelayUrl>,
    /// Relays that refused, timed out or were not connected, with the reason.
    pub rejected: Vec<(RelayUrl, String)>,
}

/// Connections of one identity to several relays. Cheap to clone (shared); dropping the last
/// clone closes every connection and ends every [`Subscription`].
#[derive(Debug, Clone)]
pub struct RelayPool {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    client: Client,
    keys: Keys,
    urls: Vec<RelayUrl>,
    config: PoolConfig,
    monitor: Monitor,
    /// Subscription tasks end when this sender is dropped with the pool.
    alive: watch::Sender<()>,
}

impl RelayPool {
    /// Connects `keys`' client to `urls`. Fails if a URL is invalid (naming it) or if no relay
    /// can be reached within `config.connect_timeout` (naming each relay and its error).
    /// Relays that could not be reached are retried in the background.
    pub async fn connect<I, S>(keys: Keys, urls: I, config: PoolConfig) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut parsed: Vec<RelayUrl> = Vec::new();
        for url in urls {
            let url = url.as_ref();
            let relay_url = RelayUrl::parse(url).map_err(|e| NetError::InvalidUrl {
                url: url.to_string(),
                reason: e.to_string(),
            })?;
            if !parsed.contains(&relay_url) {
                parsed.push(relay_url);
            }
        }
        if parsed.is_empty() {
            return Err(NetError::NoRelays);
        }

        let monitor = Monitor::new(4096);
        let client = Client::builder()
            .signer(keys.clone())
            .monitor(monitor.clone())
            .opts(ClientOptions::new().autoconnect(false))
            .build();
        let mut limits = RelayLimits::default();
        limits.events.max_size = Some(u32::try_from(config.max_event_bytes).unwrap_or(u32::MAX));
        let relay_opts = RelayOptions::new()
            .reconnect(true)
            .retry_interval(config.reconnect_interval)
            .adjust_retry_interval(false)
            .limits(limits);
        for url in &parsed {
            client
                .pool()
                .add_relay(url.clone(), relay_opts.clone())
                .await
                .map_err(|e| NetError::InvalidUrl {
                    url: url.to_string(),
                    reason: e.to_string(),
                })?;
        }

        // Try all relays at once; each attempt is bounded by the transport's own timeout.
        let mut attempts = JoinSet::new();
        for url in &parsed {
            let relay = relay_of(&client, url).await?;
            let timeout = config.connect_timeout;
            attempts.spawn(async move {
                let result = relay.try_connect(timeout).await.map_err(|e| e.to_string());
                (relay, result)
            });
        }
        let mut failures = Vec::new();
        let mut reached = 0usize;
        while let Some(joined) = attempts.join_next().await {
            let (relay, result) = joined.map_err(|e| NetError::Io {
                context: "connecting to relays".into(),
                source: std::io::Error::other(e.to_string()),
            })?;
            match result {
                Ok(()) => reached += 1,
                Err(reason) => {
                    failures.push((relay.url().clone(), reason));
                    // `try_connect` does not retry; from now on the relay reconnects by itself.
                    relay.connect();
                }
            }
        }
        if reached == 0 {
            client.shutdown().await;
            failures.sort_by_key(|(url, _)| parsed.iter().position(|u| u == url));
            return Err(NetError::Unreachable { relays: failures });
        }

        let (alive, _) = watch::channel(());
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                keys,
                urls: parsed,
                config,
                monitor,
                alive,
            }),
        })
    }

    /// The pool's keys (the identity that signs with [`RelayPool::sign`]).
    pub fn keys(&self) -> &Keys {
        &self.inner.keys
    }

    /// The pool's public key.
    pub fn public_key(&self) -> PublicKey {
        self.inner.keys.public_key()
    }

    /// The relays of this pool, in the order given.
    pub fn relays(&self) -> &[RelayUrl] {
        &self.inner.urls
    }

    /// The configuration in use.
    pub fn config(&self) -> &PoolConfig {
        &self.inner.config
    }

    /// Each relay's connection status, in the order given.
    pub async fn statuses(&self) -> Vec<(RelayUrl, RelayStatus)> {
        let mut out = Vec::with_capacity(self.inner.urls.len());
        for url in &self.inner.urls {
            let status = match self.inner.client.pool().relay(url).await {
                Ok(relay) => relay.status(),
                Err(_) => RelayStatus::Terminated,
            };
            out.push((url.clone(), status));
        }
        out
    }

    /// Relays connected right now.
    pub async fn connected(&self) -> Vec<RelayUrl> {
        up(&self.statuses().await)
    }

    /// Waits until every relay is connected or `timeout` passes. Returns the connected relays;
    /// fails with [`NetError::Unreachable`] if none is connected at the deadline.
    pub async fn wait_connected(&self, timeout: Duration) -> Result<Vec<RelayUrl>> {
        let deadline = Instant::now() + timeout;
        // Subscribe before looking, so that a change between the look and the wait is not lost.
        let mut changes = self.inner.monitor.subscribe();
        loop {
            let statuses = self.statuses().await;
            let connected = up(&statuses);
            if connected.len() == statuses.len() {
                return Ok(connected);
            }
            let now = Instant::now();
            if now >= deadline {
                if connected.is_empty() {
                    return Err(NetError::Unreachable {
                        relays: describe(statuses),
                    });
                }
                return Ok(connected);
            }
            // Any status change (or a lagged channel) is a reason to look again.
            let _ = tokio::time::timeout(deadline - now, changes.recv()).await;
        }
    }

    /// Signs `builder` with the pool's keys.
    pub fn sign(&self, builder: EventBuilder) -> Result<Event> {
        builder
            .sign_with_keys(&self.inner.keys)
            .map_err(|e| NetError::Sign(e.to_string()))
    }

    /// Sends `event` to every relay and reports which took it. Fails with
    /// [`NetError::TooLarge`] before sending anything if the event is too big, and with
    /// [`NetError::NotAccepted`] if no relay answered `OK true`.
    pub async fn publish(&self, event: &Event) -> Result<PublishReport> {
        let size = event.as_json().len();
        let limit = self.inner.config.max_event_bytes;
        if size > limit {
            return Err(NetError::TooLarge { size, limit });
        }

        let event = Arc::new(event.clone());
        let mut sends = JoinSet::new();
        for (index, url) in self.inner.urls.iter().enumerate() {
            let relay = relay_of(&self.inner.client, url).await?;
            let event = Arc::clone(&event);
            let timeout = self.inner.config.publish_timeout;
            sends.spawn(async move {
                let status = relay.status();
                let result = if !is_up(status) {
                    Err(format!("not connected ({status})"))
                } else {
                    match tokio::time::timeout(timeout, relay.send_event(&event)).await {
                        Ok(Ok(_)) => Ok(()),
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(_) => Err(format!("no OK within {timeout:?}")),
                    }
                };
                (index, result)
            });
        }

        let mut results: Vec<(usize, std::result::Result<(), String>)> = Vec::new();
        while let Some(joined) = sends.join_next().await {
            match joined {
                Ok(result) => results.push(result),
                Err(e) => {
                    return Err(NetError::Io {
                        context: "publishing".into(),
                        source: std::io::Error::other(e.to_string()),
                    })
                }
            }
        }
        results.sort_by_key(|(index, _)| *index);

        let mut report = PublishReport {
            event_id: event.id,
            accepted: Vec::new(),
            rejected: Vec::new(),
        };
        for (index, result) in results {
            let url = self.inner.urls[index].clone();
            match result {
                Ok(()) => report.accepted.push(url),
                Err(reason) => report.rejected.push((url, reason)),
            }
        }
        if report.accepted.is_empty() {
            return Err(NetError::NotAccepted {
                event_id: report.event_id,
                rejected: report.rejected,
            });
        }
        Ok(report)
    }

    /// Sends `events` to every relay back to back, in this order, without waiting for the relays'
    /// answers, so that they arrive together: a test harness's way to publish a fork whose two
    /// halves nobody can see apart. Honest clients use [`RelayPool::publish`].
    pub async fn send_together(&self, events: &[Event]) -> Result<()> {
        for url in &self.inner.urls {
            let relay = relay_of(&self.inner.client, url).await?;
            let msgs = events
                .iter()
                .map(|e| nostr_sdk::prelude::ClientMessage::event(e.clone()))
                .collect();
            relay.batch_msg(msgs).map_err(|e| NetError::Io {
                context: format!("sending to {url}"),
                source: std::io::Error::other(e.to_string()),
            })?;
        }
        Ok(())
    }

    /// Subscribes to `filters` on every relay, now and after every reconnection. The returned
    /// [`Subscription`] yields stored events first, then live ones, each event id once.
    /// Dropping it closes the subscription on the relays.
    pub async fn subscribe(&self, filters: Vec<Filter>) -> Result<Subscription> {
        if filters.is_empty() {
            return Err(NetError::NoFilters);
        }
        let client = self.inner.client.clone();
        let id = SubscriptionId::generate();
        // Listen before subscribing, so that nothing sent in between is missed.
        let notifications = client.notifications();
        let statuses = self.inner.monitor.subscribe();
        let (tx, rx) = mpsc::unbounded_channel();

        // Relays that are down get the REQ from the task when they connect.
        client
            .pool()
            .subscribe_with_id(id.clone(), filters.clone(), SubscribeOptions::default())
            .await
            .map_err(|e| NetError::Subscribe(e.to_string()))?;

        let task = SubscriptionTask {
            client,
            id: id.clone(),
            filters,
            seen: HashSet::new(),
            newest: None,
            tx,
            margin: self.inner.config.catch_up_margin,
            max_event_bytes: self.inner.config.max_event_bytes,
        };
        tokio::spawn(task.run(notifications, statuses, self.inner.alive.subscribe()));
        Ok(Subscription { id, rx })
    }

    /// Stored events matching `filters` from every connected relay, each event once, oldest
    /// first (ties by id; `created_at` is not an order of play). Waits for each relay's
    /// end-of-stored-events, at most `timeout`. Fails if no relay is connected.
    pub async fn fetch(&self, filters: Vec<Filter>, timeout: Duration) -> Result<Vec<Event>> {
        if filters.is_empty() {
            return Err(NetError::NoFilters);
        }
        let statuses = self.statuses().await;
        let connected = up(&statuses);
        if connected.is_empty() {
            return Err(NetError::Unreachable {
                relays: describe(statuses),
            });
        }
        let events = self
            .inner
            .client
            .pool()
            .fetch_events_from(
                connected.clone(),
                filters.clone(),
                timeout,
                ReqExitPolicy::ExitOnEOSE,
            )
            .await
            .map_err(|e| NetError::Fetch {
                relays: connected,
                reason: e.to_string(),
            })?;
        let mut out: Vec<Event> = events
            .into_iter()
            .filter(|event| matches_any(&filters, event))
            .collect();
        out.sort_by_key(|event| (event.created_at, event.id));
        Ok(out)
    }

    /// Every stored event matching `filter`, fetched in pages of at most `page` events going
    /// back in time, since relays cap how many events one request returns (strfry: 500).
    /// Stops when a page brings nothing new. Oldest first, each event once.
    pub async fn fetch_all(
        &self,
        filter: Filter,
        page: usize,
        timeout: Duration,
    ) -> Result<Vec<Event>> {
        let mut all: HashMap<EventId, Event> = HashMap::new();
        let mut until: Option<Timestamp> = None;
        loop {
            let mut f = filter.clone().limit(page);
            if let Some(u) = until {
                // `until` is inclusive: events of the oldest second come again and dedupe.
                f = f.until(u);
            }
            let got = self.fetch(vec![f], timeout).await?;
            let fresh = got.iter().filter(|e| !all.contains_key(&e.id)).count();
            let oldest = got.iter().map(|e| e.created_at).min();
            for e in got.iter() {
                all.insert(e.id, e.clone());
            }
            if got.len() < page || fresh == 0 {
                break;
            }
            until = oldest;
        }
        let mut out: Vec<Event> = all.into_values().collect();
        out.sort_by_key(|event| (event.created_at, event.id));
        Ok(out)
    }

    /// Closes every connection now and ends every subscription.
    pub async fn shutdown(&self) {
        self.inner.client.shutdown().await;
    }
}

/// Events of one [`RelayPool::subscribe`] call, each event id at most once.
#[derive(Debug)]
pub struct Subscription {
    id: SubscriptionId,
    rx: mpsc::UnboundedReceiver<Event>,
}

impl Subscription {
    /// The subscription id sent to relays.
    pub fn id(&self) -> &SubscriptionId {
        &self.id
    }

    /// The next event; `None` once the pool is shut down or dropped.
    pub async fn recv(&mut self) -> Option<Event> {
        self.rx.recv().await
    }

    /// The next event if one is already here.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.rx.try_recv().ok()
    }
}

struct SubscriptionTask {
    client: Client,
    id: SubscriptionId,
    filters: Vec<Filter>,
    seen: HashSet<EventId>,
    /// `created_at` of the newest event delivered, the reference for catching up.
    newest: Option<Timestamp>,
    tx: mpsc::UnboundedSender<Event>,
    margin: Duration,
    max_event_bytes: usize,
}

impl SubscriptionTask {
    async fn run(
        mut self,
        mut notifications: broadcast::Receiver<RelayPoolNotification>,
        mut statuses: broadcast::Receiver<MonitorNotification>,
        mut alive: watch::Receiver<()>,
    ) {
        loop {
            tokio::select! {
                _ = self.tx.closed() => {
                    self.client.unsubscribe(&self.id).await;
                    return;
                }
                // Only ever an error: the pool was dropped.
                _ = alive.changed() => return,
                notification = notifications.recv() => match notification {
                    Ok(RelayPoolNotification::Message { message, .. }) => match message {
                        RelayMessage::Event { subscription_id, event }
                            if *subscription_id == self.id =>
                        {
                            let receiver_open = self.deliver(event.into_owned());
                            if !receiver_open {
                                self.client.unsubscribe(&self.id).await;
                                return;
                            }
                        }
                        _ => {}
                    },
                    Ok(RelayPoolNotification::Shutdown) | Err(RecvError::Closed) => return,
                    Ok(_) => {}
                    // Events were dropped for us: ask every relay again.
                    Err(RecvError::Lagged(_)) => self.resubscribe_all().await,
                },
                change = statuses.recv() => match change {
                    Ok(MonitorNotification::StatusChanged { relay_url, status })
                        if is_up(status) =>
                    {
                        self.resubscribe(&relay_url).await;
                    }
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => self.resubscribe_all().await,
                    Err(RecvError::Closed) => return,
                },
            }
        }
    }

    /// Forwards a new matching event; `false` once the receiver is gone.
    fn deliver(&mut self, event: Event) -> bool {
        if !matches_any(&self.filters, &event) || event.as_json().len() > self.max_event_bytes {
            return true;
        }
        if !self.seen.insert(event.id) {
            return true;
        }
        self.newest = Some(match self.newest {
            Some(t) if t >= event.created_at => t,
            _ => event.created_at,
        });
        self.tx.send(event).is_ok()
    }

    async fn resubscribe(&self, url: &RelayUrl) {
        let Ok(relay) = self.client.pool().relay(url).await else {
            return;
        };
        // A failure means the relay dropped again; its next connection brings us back here.
        let _ = relay
            .subscribe_with_id(
                self.id.clone(),
                catch_up_filters(&self.filters, self.newest, self.margin),
                SubscribeOptions::default(),
            )
            .await;
    }

    async fn resubscribe_all(&self) {
        let relays = self.client.pool().relays().await;
        for (url, relay) in relays {
            if relay.is_connected() {
                self.resubscribe(&url).await;
            }
        }
    }
}

async fn relay_of(client: &Client, url: &RelayUrl) -> Result<Relay> {
    client
        .pool()
        .relay(url)
        .await
        .map_err(|e| NetError::InvalidUrl {
            url: url.to_string(),
            reason: e.to_string(),
        })
}

/// The filters to send again after a reconnection: narrowed to "since the newest delivered
/// event minus the margin" where that cannot hide a gift wrap (randomised past timestamps).
fn catch_up_filters(
    filters: &[Filter],
    newest: Option<Timestamp>,
    margin: Duration,
) -> Vec<Filter> {
    let Some(newest) = newest else {
        return filters.to_vec();
    };
    let since = Timestamp::from_secs(newest.as_secs().saturating_sub(margin.as_secs()));
    filters
        .iter()
        .map(|filter| {
            let dated = matches!(&filter.kinds, Some(kinds) if !kinds.contains(&Kind::GiftWrap));
            if !dated {
                return filter.clone();
            }
            let mut filter = filter.clone();
            filter.since = Some(match filter.since {
                Some(own) if own > since => own,
                _ => since,
            });
            filter
        })
        .collect()
}

fn is_up(status: RelayStatus) -> bool {
    matches!(status, RelayStatus::Connected)
}

fn matches_any(filters: &[Filter], event: &Event) -> bool {
    filters
        .iter()
        .any(|filter| filter.match_event(event, MatchEventOptions::new()))
}

/// The relays among `statuses` that are connected.
fn up(statuses: &[(RelayUrl, RelayStatus)]) -> Vec<RelayUrl> {
    statuses
        .iter()
        .filter(|(_, s)| is_up(*s))
        .map(|(u, _)| u.clone())
        .collect()
}

fn describe(statuses: Vec<(RelayUrl, RelayStatus)>) -> Vec<(RelayUrl, String)> {
    statuses
        .into_iter()
        .map(|(url, status)| (url, format!("not connected ({status})")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catch_up_narrows_dated_filters_only() {
        let game = Filter::new().kind(Kind::Custom(4242));
        let wraps = Filter::new().kind(Kind::GiftWrap);
        let any_kind = Filter::new().author(Keys::generate().public_key());
        let filters = vec![game.clone(), wraps.clone(), any_kind.clone()];
        let margin = Duration::from_secs(60);

        // Nothing delivered yet: the whole history is asked for again.
        assert_eq!(catch_up_filters(&filters, None, margin), filters);

        let newest = Timestamp::from_secs(1_000_000);
        let again = catch_up_filters(&filters, Some(newest), margin);
        assert_eq!(again[0].since, Some(Timestamp::from_secs(1_000_000 - 60)));
        assert_eq!(
            again[1], wraps,
            "gift wraps have randomised past timestamps"
        );
        assert_eq!(
            again[2], any_kind,
            "a filter without kinds may match gift wraps"
        );

        // A caller's own later `since` is kept.
        let late = Filter::new()
            .kind(Kind::Custom(4242))
            .since(Timestamp::from_secs(1_000_000 - 10));
        let again = catch_up_filters(std::slice::from_ref(&late), Some(newest), margin);
        assert_eq!(again[0].since, late.since);
    }
}
