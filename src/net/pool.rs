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
//! - **Relay information (NIP-11).** [`RelayPool::connect`] reads each relay's information
//!   document ([`super::nip11`]) while it connects: `max_limit` bounds the page of every
//!   [`RelayPool::fetch_all`], an event longer than a relay's `max_message_length` is not sent
//!   to that relay (said in words), more subscriptions than `max_subscriptions`,
//!   `min_pow_difficulty`, `auth_required`, `payment_required` and `restricted_writes` are said
//!   in [`RelayPool::notes`], and [`RelayPool::min_pow_difficulty`] tells a host what proof of
//!   work its table must announce. A relay without a document gets the defaults.
//!
//! What public relays do and how the pool lives with it (tested through
//! [`super::harness::RelayProxy`] in `tests/relay_harness.rs` and `tests/public_relays.rs`):
//! - **Pacing.** Each relay connection has its own token bucket ([`PoolConfig::rate`], or
//!   [`PoolConfig::remote_rate`] for relays that are not on this machine or its network): an
//!   event that finds the bucket empty is not sent to that relay now. Relays count every
//!   `EVENT` a connection sends, and most public ones throttle well below a bot's pace.
//! - **Backoff, then the relay's own pace.** A relay that answers `OK false "rate-limited: ..."`
//!   gets nothing for a while (1 s, doubling to 8 s, reset by its next `OK true`), and from then
//!   on its connection is paced at what it was seen to take: nine tenths of the events it
//!   accepted in the minute before (at least 6 a minute), in bursts of 2. Relays limit by a
//!   bucket or a sliding window; either way a client that keeps to what was accepted stops
//!   meeting the limit, and a long backoff would only hold back a move past its deadline.
//! - **Per-relay queues.** An event that one relay took but another could not take yet (paced,
//!   backing off, not connected, `error:` or no answer) waits in that relay's queue and is
//!   re-sent in the background, so every relay ends up with the whole log and losing any one of
//!   them loses nothing. Refusals that will not change (`invalid:`, `blocked:`, `pow:`,
//!   `restricted:`) are counted and not retried. [`RelayPool::publish`] itself fails only when no
//!   relay took the event; the caller keeps it and tries again.
//! - **Closed subscriptions.** A relay may end a subscription with `CLOSED` and a reason; the
//!   [`Subscription`] sends its REQ to that relay again (with the catch-up `since`), after 0.5 s
//!   doubling to 30 s while the relay keeps closing it before its end-of-stored-events.
//! - **Figures.** [`RelayPool::relay_stats`] counts per relay what was accepted, refused (by
//!   reason), rate-limited, reconnections and closed subscriptions; [`RelayPool::notes`] says in
//!   words what a person should know now ("relay X rate-limits us, retrying").

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde::Serialize;

use nostr_sdk::prelude::{
    Client, ClientOptions, Event, EventBuilder, EventId, Filter, JsonUtil, Keys, Kind,
    MatchEventOptions, Monitor, MonitorNotification, PublicKey, Relay, RelayLimits, RelayMessage,
    RelayOptions, RelayPoolNotification, RelayStatus, RelayUrl, ReqExitPolicy, SubscribeOptions,
    SubscriptionId, Timestamp,
};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinSet;

use super::nip11::{self, RelayInfo};
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
    /// Publishing allowance per relay connection, for every relay; `None` leaves relays on
    /// this machine unpaced (see [`PoolConfig::remote_rate`]).
    pub rate: Option<SendRate>,
    /// Allowance for relays that are not on loopback or a private network, when
    /// [`PoolConfig::rate`] is `None`: public relays throttle, your own relay need not.
    pub remote_rate: Option<SendRate>,
    /// Whether to read each relay's NIP-11 information document when connecting.
    pub read_info: bool,
}

/// A publishing allowance per relay connection: a token bucket refilled continuously.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SendRate {
    /// Events per minute in the long run.
    pub per_minute: f64,
    /// Events that may leave at once after a pause.
    pub burst: u32,
}

/// The default allowance for public relays, from the documented defaults of relay software
/// (not measured on public relays; sources in PROTOCOL.md §4.3.1): 50 a minute keeps a paced
/// connection 1.2 s apart, under nostr-relay-builder's 60 a minute per connection, whose bucket
/// refills by whole elapsed seconds and so drains when events come less than a second apart;
/// bursts of 8 fit in one minute of the per-IP write policies strfry relays add (Damus's
/// noteguard example: 8 a minute; soapbox's strfry-policies: 10 a minute). Those policies'
/// sustained rates, and khatru's optional defaults, are below any pace a table can be played at:
/// such relays are learnt from their `rate-limited:` answers. strfry and nostr-rs-relay limit
/// nothing by default.
pub const DEFAULT_REMOTE_RATE: SendRate = SendRate {
    per_minute: 50.0,
    burst: 8,
};

/// How long an event may wait in a relay's queue before it is given up for that relay.
const OWED_MAX_AGE: Duration = Duration::from_secs(600);
/// Most events one relay's queue holds; the oldest go first past it.
const OWED_MAX: usize = 2_000;
/// How often queued events are offered again.
const OWED_TICK: Duration = Duration::from_millis(250);
/// How long a closed subscription or a refusal stays in [`RelayPool::notes`].
const NOTE_FOR: Duration = Duration::from_secs(30);

impl Default for PoolConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            publish_timeout: Duration::from_secs(5),
            reconnect_interval: Duration::from_millis(500),
            catch_up_margin: Duration::from_secs(60),
            max_event_bytes: MAX_EVENT_BYTES,
            rate: None,
            remote_rate: Some(DEFAULT_REMOTE_RATE),
            read_info: true,
        }
    }
}

impl PoolConfig {
    /// No pacing at all, even for public relays (tests and demos on one's own relay).
    pub fn unpaced() -> Self {
        Self {
            rate: None,
            remote_rate: None,
            ..Self::default()
        }
    }

    /// Every relay paced at `pace`.
    pub fn paced(rate: SendRate) -> Self {
        Self {
            rate: Some(rate),
            ..Self::default()
        }
    }

    /// The allowance for `url`.
    pub fn pace_for(&self, url: &RelayUrl) -> Option<SendRate> {
        self.rate.or(if is_local(url) {
            None
        } else {
            self.remote_rate
        })
    }
}

/// Whether the relay at `url` is on this machine or a private network (one's own relay); false
/// for anything that does not parse.
pub fn is_local_relay(url: &str) -> bool {
    RelayUrl::parse(url).is_ok_and(|u| is_local(&u))
}

/// Whether `url` names this machine or a private network (where one's own relay runs).
fn is_local(url: &RelayUrl) -> bool {
    let s = url.as_str();
    let host = s
        .split("://")
        .nth(1)
        .unwrap_or(s)
        .split(['/', '?'])
        .next()
        .unwrap_or("");
    // Strip the port (and IPv6 brackets).
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    if host == "localhost" || host.ends_with(".local") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Ok(std::net::IpAddr::V6(ip)) => ip.is_loopback(),
        Err(_) => false,
    }
}

/// What one relay did with this pool's traffic (`demo --json`, the terminal table).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RelayStats {
    pub url: String,
    /// Events it answered `OK true`.
    pub accepted: u64,
    /// Events it refused, rate limits included.
    pub rejected: u64,
    /// Refusals by reason (the relay's words, cut to 80 characters).
    pub reasons: BTreeMap<String, u64>,
    /// Refusals that said "rate-limited:".
    pub rate_limited: u64,
    /// The pace learnt from its rate limits, in events a minute.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learnt_per_minute: Option<u32>,
    /// Sends held back to stay within the pace.
    pub paced: u64,
    /// Connections after the first.
    pub reconnects: u64,
    /// `CLOSED` messages it sent us.
    pub subscriptions_closed: u64,
    /// Events still waiting to be sent to it.
    pub queued: u64,
    /// What its NIP-11 information document says (absent: no document).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<RelayInfo>,
}

#[derive(Debug)]
struct RelayState {
    stats: RelayStats,
    pace: Option<SendRate>,
    /// The pace the pool was given for this relay, which a learnt pace never exceeds.
    given: Option<SendRate>,
    tokens: f64,
    refilled: Instant,
    backoff: Duration,
    backoff_until: Option<Instant>,
    /// When it last accepted events (the newest [`ACCEPTS_KEPT`]), to learn its pace from.
    accepted_at: VecDeque<Instant>,
    /// When it last answered `rate-limited:`.
    limited_at: Option<Instant>,
    connects: u64,
    closed: Option<(Instant, String)>,
    refused: Option<(Instant, String)>,
    owed: VecDeque<(Instant, Arc<Event>)>,
    /// When the information document was read (its notes show for a while after).
    info_at: Option<Instant>,
    /// The document could not be asked for yet (relay unreachable): ask on its next connection.
    info_wanted: bool,
}

impl RelayState {
    fn new(url: &RelayUrl, pace: Option<SendRate>) -> Self {
        Self {
            stats: RelayStats {
                url: url.to_string(),
                ..RelayStats::default()
            },
            pace,
            given: pace,
            tokens: pace.map_or(0.0, |p| f64::from(p.burst)),
            refilled: Instant::now(),
            backoff: Duration::ZERO,
            backoff_until: None,
            accepted_at: VecDeque::new(),
            limited_at: None,
            connects: 0,
            closed: None,
            refused: None,
            owed: VecDeque::new(),
            info_at: None,
            info_wanted: false,
        }
    }

    fn learn(&mut self, info: std::result::Result<Option<RelayInfo>, String>) {
        match info {
            Ok(info) => {
                self.stats.info = info;
                self.info_at = Some(Instant::now());
                self.info_wanted = false;
            }
            Err(_) => self.info_wanted = true,
        }
    }

    /// Refuses now, in words, an event longer than the relay reads (its `max_message_length`).
    fn fits(&self, event_bytes: usize) -> std::result::Result<(), String> {
        let Some(limit) = self.stats.info.as_ref().and_then(|i| i.max_message_length) else {
            return Ok(());
        };
        // `["EVENT",` + the event + `]`.
        let message = event_bytes + 10;
        if message as u64 > limit {
            return Err(format!(
                "too large for this relay: the event is {message} bytes as a message and relay \
                 {} reads at most {limit} (its NIP-11 max_message_length); not sent to it",
                host_of(&self.stats.url)
            ));
        }
        Ok(())
    }

    /// Takes the right to send one event now, or says why not.
    fn admit(&mut self) -> std::result::Result<(), String> {
        let now = Instant::now();
        if let Some(until) = self.backoff_until {
            if until > now {
                return Err(format!(
                    "rate-limited: retrying in {:.1} s",
                    (until - now).as_secs_f64()
                ));
            }
        }
        if let Some(p) = self.pace {
            let refill = now.duration_since(self.refilled).as_secs_f64() * p.per_minute / 60.0;
            self.tokens = (self.tokens + refill).min(f64::from(p.burst));
            self.refilled = now;
            if self.tokens < 1.0 {
                self.stats.paced += 1;
                return Err("paced: waiting to stay within the relay's rate".into());
            }
            self.tokens -= 1.0;
        }
        Ok(())
    }

    /// Notes a relay's answer; says whether the event should be offered to it again.
    fn answered(&mut self, result: &std::result::Result<(), String>) -> bool {
        match result {
            Ok(()) => {
                self.stats.accepted += 1;
                self.backoff = Duration::ZERO;
                self.backoff_until = None;
                self.accepted_at.push_back(Instant::now());
                if self.accepted_at.len() > ACCEPTS_KEPT {
                    self.accepted_at.pop_front();
                }
                self.raise_pace();
                false
            }
            Err(reason) => {
                let kind = Refusal::of(reason);
                if kind != Refusal::Unanswered {
                    self.stats.rejected += 1;
                    let short: String = reason.chars().take(80).collect();
                    *self.stats.reasons.entry(short).or_default() += 1;
                }
                match kind {
                    Refusal::RateLimited => {
                        self.stats.rate_limited += 1;
                        self.limited_at = Some(Instant::now());
                        self.backoff = (self.backoff * 2).clamp(BACKOFF_MIN, BACKOFF_MAX);
                        self.backoff_until = Some(Instant::now() + self.backoff);
                        self.learn_pace();
                        self.tokens = 0.0;
                        true
                    }
                    Refusal::Final => {
                        self.refused = Some((Instant::now(), reason.clone()));
                        false
                    }
                    Refusal::Retry | Refusal::Unanswered => true,
                }
            }
        }
    }

    /// After a rate limit: pace this connection at what the relay was seen to take in the
    /// minute before, if that is slower than the pace it has.
    fn learn_pace(&mut self) {
        let minute_ago = Instant::now().checked_sub(Duration::from_secs(60));
        let took = self
            .accepted_at
            .iter()
            .filter(|t| minute_ago.is_none_or(|m| **t >= m))
            .count() as f64;
        let per_minute = (took * 0.9).max(LEARNT_MIN_PER_MINUTE);
        if self.pace.is_none_or(|p| p.per_minute > per_minute) {
            self.pace = Some(SendRate {
                per_minute,
                burst: LEARNT_BURST,
            });
            self.stats.learnt_per_minute = Some(per_minute.round() as u32);
        }
    }

    /// A pace learnt in one minute is what the relay took then, and on an address other clients
    /// share, or just after the relay restarted, that can be far below its limit. Kept for good,
    /// a table that publishes about that fast would never work off what it owes that relay (soak
    /// table 137: one client learnt 25 a minute and closed still owing it events from a hundred
    /// steps before). So, as in additive-increase congestion control, every event the relay
    /// takes once it has been quiet for [`LEARNT_QUIET`] raises the pace by one a minute (a
    /// connection kept busy doubles it in about a minute), up to the pace given, or with none
    /// given up to [`LEARNT_RELEASED`], where the pool stops pacing. The next `rate-limited:`
    /// answer learns a pace again.
    fn raise_pace(&mut self) {
        // A pace other than the one given was learnt from `rate-limited:` answers (a learnt
        // pace is always below the pace it replaced), and only such a pace rises again.
        let Some(pace) = self.pace.filter(|p| Some(*p) != self.given) else {
            return;
        };
        if self.limited_at.is_some_and(|t| t.elapsed() < LEARNT_QUIET) {
            return;
        }
        let per_minute = pace.per_minute + 1.0;
        let ceiling = self.given.map_or(LEARNT_RELEASED, |g| g.per_minute);
        if per_minute >= ceiling {
            self.pace = self.given;
        } else {
            self.pace = Some(SendRate { per_minute, ..pace });
        }
    }

    /// Whether events owed to this relay are held back for its rate: it answered
    /// `rate-limited:` in the last `within`, or this pool paces it (what it learnt from such an
    /// answer, or the rate it was given) and it took events in the last `within`: the events
    /// leave at that pace, not at once. Paced but taking nothing lately is a relay gone.
    fn holds_for_rate(&self, within: Duration) -> bool {
        let lately = |t: Option<&Instant>| t.is_some_and(|t| t.elapsed() < within);
        !self.owed.is_empty()
            && (lately(self.limited_at.as_ref())
                || (self.pace.is_some() && lately(self.accepted_at.back())))
    }

    fn owe(&mut self, event: Arc<Event>) {
        if self.owed.iter().any(|(_, e)| e.id == event.id) {
            return;
        }
        if self.owed.len() >= OWED_MAX {
            self.owed.pop_front();
        }
        self.owed.push_back((Instant::now(), event));
        self.stats.queued = self.owed.len() as u64;
    }
}

/// Which relays a new event goes to at once, given which are still owed earlier events: those
/// that are not, or every relay when all are (someone must take it now; the caller waits).
fn send_now(behind: &[bool]) -> Vec<bool> {
    let all_behind = behind.iter().all(|b| *b);
    behind.iter().map(|b| !b || all_behind).collect()
}

/// Why an event was not sent to a relay that is still owed earlier ones.
const QUEUED_BEHIND: &str = "queued: after the events this relay is still owed";

/// How long [`RelayPool::publish_mined`] keeps offering an event every relay refused for a
/// reason that may pass.
const PUBLISH_PATIENCE: Duration = Duration::from_secs(20);

/// How long a closing pool keeps offering queued events to relays that have not taken them.
const SHUTDOWN_FLUSH: Duration = Duration::from_secs(3);
/// How long it waits when a relay still owed events is not connected: a relay restarting takes
/// seconds, and left without the table's last events it could not show the table on its own.
/// A relay that is gone for good costs a closing command this much, once.
const SHUTDOWN_FLUSH_DOWN: Duration = Duration::from_secs(12);
/// How long it waits when a relay still owed events answers `rate-limited:` or is paced: the usual limit
/// counts a sliding minute, so the events it refuses now it takes within one (plus the longest
/// pause between tries, [`BACKOFF_MAX`]). A table that played faster than a relay's limit would
/// otherwise leave that relay without its end for good. Counted from the last time the queues
/// shrank or the relay said `rate-limited:`, so a relay that keeps taking events keeps being
/// waited for, up to [`SHUTDOWN_FLUSH_MAX`] in all, and one that keeps answering that it is
/// busy for [`SHUTDOWN_FLUSH_STARVED`] after the queues last shrank.
pub const SHUTDOWN_FLUSH_LIMITED: Duration = Duration::from_secs(75);
/// How long a closing pool keeps offering events to relays that answer only `rate-limited:`
/// while the queues do not shrink: on an address others share, they may take its whole minute
/// for a while, but not for ever.
const SHUTDOWN_FLUSH_STARVED: Duration = Duration::from_secs(180);
/// The longest a closing pool waits, whatever the relays do: as long as a queue keeps an event
/// ([`OWED_MAX_AGE`]). A table can be played far faster than a relay's limit (the soak's
/// Chickenfoot table: 330 events in 3 s on one relay, 150 a minute from the address on the
/// other, so more than two minutes to hand that relay the table); while that relay keeps taking
/// them, leaving it without the end would leave a table it cannot show.
pub const SHUTDOWN_FLUSH_MAX: Duration = OWED_MAX_AGE;

/// Accept times kept per relay to learn its pace from.
const ACCEPTS_KEPT: usize = 120;
/// The shortest and longest pause after a rate limit.
const BACKOFF_MIN: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(8);
/// The slowest pace learnt from a relay, and the bursts it allows.
const LEARNT_MIN_PER_MINUTE: f64 = 6.0;
const LEARNT_BURST: u32 = 2;
/// How long after its last `rate-limited:` answer a relay's learnt pace starts rising again:
/// the usual limit counts a sliding minute.
const LEARNT_QUIET: Duration = Duration::from_secs(60);
/// The learnt pace at which the pool stops pacing a relay it was given no pace for.
const LEARNT_RELEASED: f64 = 600.0;

/// Most proof of work this client mines for one event (see `wire::MAX_TABLE_POW`).
pub const MAX_POW: u8 = 24;

/// The difficulty a `pow:` refusal asks for: the largest number in it above what was mined, or
/// four bits more when it names none.
pub(crate) fn asked_pow(reason: &str, mined: u8) -> Option<u8> {
    if !reason.trim_start().starts_with("pow:") {
        return None;
    }
    let named = reason
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse::<u8>().ok())
        .filter(|n| *n > mined)
        .max();
    Some(named.unwrap_or(mined.saturating_add(4)))
}

/// The difficulty to mine an event again at, after relays answered `rejected` to it mined at
/// `mined`: the most any `pow:` refusal asks, when that is more than was mined and at most
/// [`MAX_POW`]; `None` when no refusal asks for work this client would do.
pub(crate) fn pow_to_retry(rejected: &[(RelayUrl, String)], mined: u8) -> Option<u8> {
    rejected
        .iter()
        .filter_map(|(_, reason)| asked_pow(reason, mined))
        .max()
        .filter(|d| *d > mined && *d <= MAX_POW)
}

/// A relay as people know it: its host (and path), without the scheme and trailing slash.
fn host_of(url: &str) -> &str {
    url.split("://").last().unwrap_or(url).trim_end_matches('/')
}

/// Whether a relay's refusal (or failure to answer) may go away by itself: a rate limit, pacing,
/// a relay not connected or not answering, `error:`. `invalid:`, `blocked:` and the like do not.
pub fn is_transient(reason: &str) -> bool {
    Refusal::of(reason) != Refusal::Final
}

/// What a refusal means for sending the event again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// "rate-limited:": later, after a pause.
    RateLimited,
    /// `invalid:`, `blocked:`, `pow:`, `restricted:`, `duplicate:` and other reasons a relay
    /// will give again.
    Final,
    /// `error:`, `auth-required:`: the relay may take it later.
    Retry,
    /// Never sent or no answer (not connected, paced, timed out).
    Unanswered,
}

impl Refusal {
    fn of(reason: &str) -> Self {
        let prefix = reason.split(':').next().unwrap_or("").trim();
        match prefix {
            "rate-limited" if reason.contains("retrying in") => Refusal::Unanswered,
            "rate-limited" => Refusal::RateLimited,
            "paced" | "queued" => Refusal::Unanswered,
            "error" | "auth-required" => Refusal::Retry,
            "invalid"
            | "blocked"
            | "pow"
            | "restricted"
            | "duplicate"
            | "mute"
            | "too large for this relay" => Refusal::Final,
            _ if reason.starts_with("not connected") || reason.starts_with("no OK within") => {
                Refusal::Unanswered
            }
            // nostr-sdk's own errors (the connection went away while waiting): try again.
            _ if !reason.contains(':') => Refusal::Unanswered,
            _ => Refusal::Final,
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
    /// Pacing, backoff, queue and figures of each relay, in the order of `urls`.
    state: Mutex<Vec<RelayState>>,
    /// Subscriptions of this pool open now (each holds one on every relay).
    subscriptions: Arc<std::sync::atomic::AtomicUsize>,
    /// Set by the first [`RelayPool::shutdown`]: a command's pool passes through its phases
    /// and the last one closes it, so closing again (on the command's way out) does nothing.
    closed: std::sync::atomic::AtomicBool,
}

impl Inner {
    fn with_state<T>(&self, url: &RelayUrl, f: impl FnOnce(&mut RelayState) -> T) -> Option<T> {
        let i = self.urls.iter().position(|u| u == url)?;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.get_mut(i).map(f)
    }

    /// Sends one event to one relay within the pace; `Ok` once the relay said `OK true`.
    async fn send_to(&self, url: &RelayUrl, event: &Event) -> std::result::Result<(), String> {
        let relay = self
            .client
            .pool()
            .relay(url)
            .await
            .map_err(|e| e.to_string())?;
        let status = relay.status();
        if !is_up(status) {
            return Err(format!("not connected ({status})"));
        }
        let size = event.as_json().len();
        self.with_state(url, |s| s.fits(size).and_then(|()| s.admit()))
            .unwrap_or(Ok(()))?;
        let timeout = self.config.publish_timeout;
        let result = match tokio::time::timeout(timeout, relay.send_event(event)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no OK within {timeout:?}")),
        };
        result
    }
}

/// Offers queued events to their relays again until the pool is gone, and keeps each relay's
/// connection and closed-subscription figures.
async fn keep_relays(
    inner: Weak<Inner>,
    mut statuses: broadcast::Receiver<MonitorNotification>,
    mut notifications: broadcast::Receiver<RelayPoolNotification>,
) {
    let mut tick = tokio::time::interval(OWED_TICK);
    loop {
        tokio::select! {
            _ = tick.tick() => {
                let Some(inner) = inner.upgrade() else { return };
                flush_owed(&inner).await;
            }
            change = statuses.recv() => match change {
                Ok(MonitorNotification::StatusChanged { relay_url, status }) if is_up(status) => {
                    let Some(inner) = inner.upgrade() else { return };
                    let ask = inner
                        .with_state(&relay_url, |s| {
                            s.connects += 1;
                            s.stats.reconnects = s.connects.saturating_sub(1);
                            std::mem::take(&mut s.info_wanted)
                        })
                        .unwrap_or(false);
                    if ask {
                        // Unreachable when the pool connected: its limits are learnt now.
                        let weak = Arc::downgrade(&inner);
                        let timeout = inner.config.connect_timeout;
                        tokio::spawn(async move {
                            let info = nip11::fetch(&relay_url, timeout).await;
                            if let Some(inner) = weak.upgrade() {
                                inner.with_state(&relay_url, |s| s.learn(info));
                            }
                        });
                    }
                }
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return,
            },
            n = notifications.recv() => match n {
                Ok(RelayPoolNotification::Message {
                    relay_url,
                    message: RelayMessage::Closed { message, .. },
                }) => {
                    let Some(inner) = inner.upgrade() else { return };
                    inner.with_state(&relay_url, |s| {
                        s.stats.subscriptions_closed += 1;
                        s.closed = Some((Instant::now(), message.into_owned()));
                    });
                }
                Ok(RelayPoolNotification::Shutdown) | Err(RecvError::Closed) => return,
                Ok(_) | Err(RecvError::Lagged(_)) => {}
            },
        }
    }
}

async fn flush_owed(inner: &Inner) {
    for url in &inner.urls {
        loop {
            let next = inner.with_state(url, |s| {
                while s
                    .owed
                    .front()
                    .is_some_and(|(at, _)| at.elapsed() > OWED_MAX_AGE)
                {
                    s.owed.pop_front();
                }
                s.stats.queued = s.owed.len() as u64;
                s.owed.front().map(|(_, e)| Arc::clone(e))
            });
            let Some(Some(event)) = next else { break };
            let result = inner.send_to(url, &event).await;
            let again = inner
                .with_state(url, |s| {
                    let again = s.answered(&result);
                    if !again {
                        s.owed.retain(|(_, e)| e.id != event.id);
                        s.stats.queued = s.owed.len() as u64;
                    }
                    again
                })
                .unwrap_or(false);
            if again {
                // This relay cannot take more now; the next tick tries again.
                break;
            }
        }
    }
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

        // Each relay's information document is read while it connects, so its limits are known
        // before the first event (a table's proof of work must be).
        let mut infos = JoinSet::new();
        if config.read_info {
            for url in &parsed {
                let url = url.clone();
                let timeout = config.connect_timeout;
                infos.spawn(async move {
                    let info = nip11::fetch(&url, timeout).await;
                    (url, info)
                });
            }
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
        let mut connected_now = Vec::new();
        while let Some(joined) = attempts.join_next().await {
            let (relay, result) = joined.map_err(|e| NetError::Io {
                context: "connecting to relays".into(),
                source: std::io::Error::other(e.to_string()),
            })?;
            match result {
                Ok(()) => {
                    reached += 1;
                    connected_now.push(relay.url().clone());
                }
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

        let mut learnt = HashMap::new();
        while let Some(joined) = infos.join_next().await {
            if let Ok((url, info)) = joined {
                learnt.insert(url, info);
            }
        }
        let (alive, _) = watch::channel(());
        let state = parsed
            .iter()
            .map(|u| {
                let mut s = RelayState::new(u, config.pace_for(u));
                s.connects = u64::from(connected_now.contains(u));
                if let Some(info) = learnt.remove(u) {
                    s.learn(info);
                }
                s
            })
            .collect();
        let statuses = monitor.subscribe();
        let notifications = client.notifications();
        let inner = Arc::new(Inner {
            client,
            keys,
            urls: parsed,
            config,
            monitor,
            alive,
            state: Mutex::new(state),
            subscriptions: Arc::default(),
            closed: std::sync::atomic::AtomicBool::new(false),
        });
        tokio::spawn(keep_relays(Arc::downgrade(&inner), statuses, notifications));
        Ok(Self { inner })
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
        self.publish_with(event, true).await
    }

    /// Signs `builder` with at least `pow` bits of NIP-13 work (and at least what any relay's
    /// NIP-11 document asks) and publishes it ([`RelayPool::publish_once`] when `once`). A relay
    /// that still answers `pow:` gets the event mined again at the difficulty it names (at most
    /// [`MAX_POW`]) and sent again: only for events that are not part of a table's log, where a
    /// second event for the same thing is harmless (lobby messages, announcements, heartbeats).
    pub async fn publish_mined(
        &self,
        builder: EventBuilder,
        pow: u8,
        once: bool,
    ) -> Result<(Event, PublishReport)> {
        let mut difficulty = pow.max(self.min_pow_difficulty()).min(MAX_POW);
        let mut tries = 0;
        let started = Instant::now();
        let mut pause = Duration::from_millis(500);
        loop {
            let event = self.sign_mined(builder.clone(), difficulty).await?;
            let outcome = loop {
                let outcome = self.publish_with(&event, !once).await;
                // Refused by every relay for a reason that may pass (a rate limit, `error:`, no
                // answer): tried again for a while, the same event. An announcement or a seat
                // taken must not be lost to the relays' bad moment (the soak refused everything
                // for 4 s while a host announced its table, and the table was cancelled).
                if let Err(NetError::NotAccepted { rejected, .. }) = &outcome {
                    // `pow:` is final here: the outer loop mines again for it.
                    let passing = rejected.iter().all(|(_, r)| is_transient(r));
                    if !once && passing && started.elapsed() + pause < PUBLISH_PATIENCE {
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(Duration::from_secs(4));
                        continue;
                    }
                }
                break outcome;
            };
            let rejected = match &outcome {
                Ok(report) => &report.rejected,
                Err(NetError::NotAccepted { rejected, .. }) => rejected,
                Err(_) => return outcome.map(|r| (event, r)),
            };
            match pow_to_retry(rejected, difficulty) {
                Some(d) if tries < 3 => {
                    difficulty = d;
                    tries += 1;
                }
                _ => return outcome.map(|r| (event, r)),
            }
        }
    }

    /// Signs `builder` with `pow` bits of work, mined on a blocking thread (none for 0).
    pub async fn sign_mined(&self, builder: EventBuilder, pow: u8) -> Result<Event> {
        if pow == 0 {
            return self.sign(builder);
        }
        let keys = self.inner.keys.clone();
        tokio::task::spawn_blocking(move || builder.pow(pow).sign_with_keys(&keys))
            .await
            .map_err(|e| NetError::Sign(e.to_string()))?
            .map_err(|e| NetError::Sign(e.to_string()))
    }

    /// Like [`RelayPool::publish`], but a relay that cannot take the event now never gets it
    /// later: for heartbeats and other events that are stale a moment later.
    pub async fn publish_once(&self, event: &Event) -> Result<PublishReport> {
        self.publish_with(event, false).await
    }

    /// What each relay did with this pool's traffic so far, in the order given.
    pub fn relay_stats(&self) -> Vec<RelayStats> {
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        state.iter().map(|s| s.stats.clone()).collect()
    }

    /// What each relay's NIP-11 document said, in the order given (`None`: no document).
    pub fn relay_info(&self) -> Vec<(RelayUrl, Option<RelayInfo>)> {
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        self.inner
            .urls
            .iter()
            .cloned()
            .zip(state.iter().map(|s| s.stats.info.clone()))
            .collect()
    }

    /// The highest proof of work any of the relays asks for (NIP-11 `min_pow_difficulty`).
    pub fn min_pow_difficulty(&self) -> u8 {
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        state
            .iter()
            .filter_map(|s| s.stats.info.as_ref())
            .map(|i| i.min_pow_difficulty)
            .max()
            .unwrap_or(0)
    }

    /// The page size for history fetches: `asked`, or less when a relay returns at most that
    /// many events per filter (NIP-11 `max_limit`).
    pub fn page_size(&self, asked: usize) -> usize {
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        state
            .iter()
            .filter_map(|s| s.stats.info.as_ref().and_then(|i| i.max_limit))
            .map(|m| usize::try_from(m).unwrap_or(usize::MAX))
            .fold(asked, usize::min)
            .max(1)
    }

    /// Whether every paced relay could take `n` more events now without waiting.
    /// Whether a relay answered `rate-limited:` within `within`: the relays are congested, and
    /// the other seats' events may be held back as this client's are.
    pub fn limited_within(&self, within: Duration) -> bool {
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        state
            .iter()
            .any(|s| s.limited_at.is_some_and(|t| t.elapsed() < within))
    }

    pub fn has_room(&self, n: u32) -> bool {
        let now = Instant::now();
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        state.iter().all(|s| {
            let Some(p) = s.pace else { return true };
            let refill = now.duration_since(s.refilled).as_secs_f64() * p.per_minute / 60.0;
            (s.tokens + refill).min(f64::from(p.burst)) >= f64::from(n)
                && s.backoff_until.is_none_or(|t| t <= now)
        })
    }

    /// What a person should know about the relays now, in words: a relay rate-limiting us, one
    /// that closed our subscription or refuses our events (the last 30 s).
    pub fn notes(&self) -> Vec<String> {
        let now = Instant::now();
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        let subscriptions = self
            .inner
            .subscriptions
            .load(std::sync::atomic::Ordering::Relaxed);
        for s in state.iter() {
            let url = host_of(&s.stats.url);
            if let Some(info) = &s.stats.info {
                if s.info_at.is_some_and(|t| now.duration_since(t) < NOTE_FOR) {
                    out.extend(info.notes(url));
                }
                if let Some(max) = info.max_subscriptions {
                    if subscriptions as u64 > max {
                        out.push(format!(
                            "relay {url} allows {max} subscriptions per connection and we hold \
                             {subscriptions}: it may close some"
                        ));
                    }
                }
            }
            if s.backoff_until.is_some_and(|t| t > now) {
                out.push(format!("relay {url} rate-limits us, retrying"));
            }
            if let Some((at, reason)) = &s.closed {
                if now.duration_since(*at) < NOTE_FOR {
                    let reason = if reason.is_empty() {
                        "no reason given"
                    } else {
                        reason
                    };
                    out.push(format!(
                        "relay {url} closed our subscription ({reason}); subscribing again"
                    ));
                }
            }
            if let Some((at, reason)) = &s.refused {
                if now.duration_since(*at) < NOTE_FOR {
                    if reason.starts_with("pow:") {
                        // Log events cannot be mined again (a second event for one step is a
                        // fork): the table goes on through the relays that take them.
                        out.push(format!(
                            "relay {url} needs proof of work the table did not announce \
                             ({reason}): going on with the other relays"
                        ));
                    } else {
                        out.push(format!("relay {url} refuses our events: {reason}"));
                    }
                }
            }
        }
        out
    }

    async fn publish_with(&self, event: &Event, queue: bool) -> Result<PublishReport> {
        let size = event.as_json().len();
        let limit = self.inner.config.max_event_bytes;
        if size > limit {
            return Err(NetError::TooLarge { size, limit });
        }

        let event = Arc::new(event.clone());
        // A relay still owed earlier events gets this one after them, from its queue, while
        // another relay can take it now: sent at once it would spend the relay's pace before
        // the older events, and a relay paced near the table's speed would owe them for good.
        let behind: Vec<bool> = self
            .inner
            .urls
            .iter()
            .map(|url| {
                self.inner
                    .with_state(url, |s| !s.owed.is_empty())
                    .unwrap_or(false)
            })
            .collect();
        let now = send_now(&behind);
        let mut sends = JoinSet::new();
        for (index, url) in self.inner.urls.iter().enumerate() {
            let inner = Arc::clone(&self.inner);
            let event = Arc::clone(&event);
            let url = url.clone();
            let wait = !now[index];
            sends.spawn(async move {
                let result = if wait {
                    Err(QUEUED_BEHIND.to_string())
                } else {
                    inner.send_to(&url, &event).await
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
        let results_by_index = results.clone();
        for (index, result) in results {
            let url = self.inner.urls[index].clone();
            match result {
                Ok(()) => report.accepted.push(url),
                Err(reason) => report.rejected.push((url, reason)),
            }
        }
        let taken = !report.accepted.is_empty();
        for (i, url) in self.inner.urls.iter().enumerate() {
            let Some((_, result)) = results_by_index.iter().find(|(j, _)| *j == i) else {
                continue;
            };
            self.inner.with_state(url, |s| {
                // Once one relay has it, the others get it in the background; until then the
                // caller keeps it and offers it again.
                if s.answered(result) && taken && queue {
                    s.owe(Arc::clone(&event));
                }
            });
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
    #[cfg(any(test, feature = "test-support"))]
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
            closed: HashMap::new(),
            _counted: Counted::new(&self.inner.subscriptions),
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
    /// back in time (fewer when a relay's NIP-11 `max_limit` says so), since relays cap how
    /// many events one request returns (strfry: 500), even below `page`. Stops when a page
    /// brings nothing new (so it costs one request more than the pages it needs). Oldest first,
    /// each event once.
    ///
    /// `until` cannot move past a second whose events fill a whole page, so a page whose events
    /// all share one second is followed by that second alone, split by author (a table's seats)
    /// and kind, and paging goes on from the second before. Known limit: one author's events of
    /// one kind within one second beyond a relay's cap stay out of reach.
    pub async fn fetch_all(
        &self,
        filter: Filter,
        page: usize,
        timeout: Duration,
    ) -> Result<Vec<Event>> {
        let page = self.page_size(page);
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
            let newest = got.iter().map(|e| e.created_at).max();
            for e in got.iter() {
                all.insert(e.id, e.clone());
            }
            let (Some(oldest), Some(newest)) = (oldest, newest) else {
                break;
            };
            if oldest == newest {
                // The relay may hold more of this second than it returns at once.
                for e in self.fetch_second(&filter, oldest, page, timeout).await? {
                    all.insert(e.id, e);
                }
                match oldest.as_secs().checked_sub(1) {
                    Some(before) => until = Some(Timestamp::from_secs(before)),
                    None => break,
                }
                continue;
            }
            // A short page is not the end: a relay may cap a query below `page` (strfry: 500,
            // whatever the filter asks). The end is a page that brings nothing new.
            if fresh == 0 {
                break;
            }
            until = Some(oldest);
        }
        let mut out: Vec<Event> = all.into_values().collect();
        out.sort_by_key(|event| (event.created_at, event.id));
        Ok(out)
    }

    /// The events of `filter` dated `second`, asked for one author and one kind at a time so
    /// that each answer is smaller than a relay's cap.
    async fn fetch_second(
        &self,
        filter: &Filter,
        second: Timestamp,
        page: usize,
        timeout: Duration,
    ) -> Result<Vec<Event>> {
        let authors: Vec<Option<PublicKey>> = match &filter.authors {
            Some(a) if !a.is_empty() => a.iter().copied().map(Some).collect(),
            _ => vec![None],
        };
        let kinds: Vec<Option<Kind>> = match &filter.kinds {
            Some(k) if !k.is_empty() => k.iter().copied().map(Some).collect(),
            _ => vec![None],
        };
        let mut parts = Vec::with_capacity(authors.len() * kinds.len());
        for author in &authors {
            for kind in &kinds {
                let mut f = filter.clone().since(second).until(second).limit(page);
                if let Some(a) = author {
                    f.authors = Some(std::iter::once(*a).collect());
                }
                if let Some(k) = kind {
                    f.kinds = Some(std::iter::once(*k).collect());
                }
                parts.push(f);
            }
        }
        // One request per part: several filters in one REQ share one cap on some relays.
        let mut out = Vec::new();
        for f in parts {
            out.extend(self.fetch(vec![f], timeout).await?);
        }
        Ok(out)
    }

    /// While a relay still owed events holds them back for its rate
    /// ([`RelayState::holds_for_rate`]), when it last showed life: `progress` (the queues last
    /// shrank) or its latest `rate-limited:` answer, whichever came later. A relay still
    /// answering that is alive and busy (on a shared address other clients may be taking its
    /// whole minute). `None` when no relay holds events back for its rate.
    fn rate_hold(&self, within: Duration, progress: Instant) -> Option<Instant> {
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        if !state.iter().any(|s| s.holds_for_rate(within)) {
            return None;
        }
        let limited = state
            .iter()
            .filter(|s| !s.owed.is_empty())
            .filter_map(|s| s.limited_at)
            .max();
        Some(limited.map_or(progress, |t| t.max(progress)))
    }

    /// Closes every connection and ends every subscription, after giving the relays still owed
    /// events a last chance to take them: [`SHUTDOWN_FLUSH`], [`SHUTDOWN_FLUSH_DOWN`] while such
    /// a relay is down, [`SHUTDOWN_FLUSH_LIMITED`] while it limits its rate. A command that
    /// announced, seated or played must leave every relay the whole of it, or a relay that
    /// dropped it a moment ago would hold a table that cannot be checked on its own.
    ///
    /// Closing a pool that is closed or closing already returns at once.
    pub async fn shutdown(&self) {
        if self
            .inner
            .closed
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            return;
        }
        let start = Instant::now();
        let mut patience = SHUTDOWN_FLUSH;
        let mut left = usize::MAX;
        let mut progress = start;
        loop {
            let owed: Vec<usize> = self
                .inner
                .state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .map(|s| s.owed.len())
                .collect();
            let total: usize = owed.iter().sum();
            if total == 0 {
                break;
            }
            if total < left {
                left = total;
                progress = Instant::now();
            }
            // A relay owed events that is down gets the longer wait, and keeps it once it is
            // back: that is the moment it can take them (a wait judged afresh would end then).
            if patience < SHUTDOWN_FLUSH_DOWN
                && self
                    .statuses()
                    .await
                    .iter()
                    .zip(&owed)
                    .any(|((_, status), owed)| *owed > 0 && !is_up(*status))
            {
                patience = SHUTDOWN_FLUSH_DOWN;
            }
            flush_owed(&self.inner).await;
            if let Some(alive) = self.rate_hold(SHUTDOWN_FLUSH_LIMITED, progress) {
                let waited = (alive.saturating_duration_since(start) + SHUTDOWN_FLUSH_LIMITED)
                    .min(progress.saturating_duration_since(start) + SHUTDOWN_FLUSH_STARVED)
                    .min(SHUTDOWN_FLUSH_MAX);
                patience = patience.max(waited);
            }
            let until = start + patience;
            if Instant::now() >= until {
                break;
            }
            tokio::time::sleep(OWED_TICK.min(until.saturating_duration_since(Instant::now())))
                .await;
        }
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
    /// Relays that closed this subscription: how many times in a row (reset by their
    /// end-of-stored-events) and when to ask again.
    closed: HashMap<RelayUrl, (u32, Option<Instant>)>,
    _counted: Counted,
}

/// One open subscription in its pool's count, for as long as it lives.
struct Counted(Arc<std::sync::atomic::AtomicUsize>);

impl Counted {
    fn new(count: &Arc<std::sync::atomic::AtomicUsize>) -> Self {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Self(Arc::clone(count))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// First pause before subscribing again to a relay that closed the subscription.
const RESUBSCRIBE_FIRST: Duration = Duration::from_millis(500);
/// Longest pause between such attempts.
const RESUBSCRIBE_MAX: Duration = Duration::from_secs(30);

impl SubscriptionTask {
    async fn run(
        mut self,
        mut notifications: broadcast::Receiver<RelayPoolNotification>,
        mut statuses: broadcast::Receiver<MonitorNotification>,
        mut alive: watch::Receiver<()>,
    ) {
        loop {
            let next_retry = self.closed.values().filter_map(|(_, at)| *at).min();
            let retry = async {
                match next_retry {
                    Some(at) => tokio::time::sleep_until(at.into()).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = retry => self.resubscribe_closed().await,
                _ = self.tx.closed() => {
                    self.client.unsubscribe(&self.id).await;
                    return;
                }
                // Only ever an error: the pool was dropped.
                _ = alive.changed() => return,
                notification = notifications.recv() => match notification {
                    Ok(RelayPoolNotification::Message { message, relay_url }) => match message {
                        RelayMessage::Event { subscription_id, event }
                            if *subscription_id == self.id =>
                        {
                            let receiver_open = self.deliver(event.into_owned());
                            if !receiver_open {
                                self.client.unsubscribe(&self.id).await;
                                return;
                            }
                        }
                        RelayMessage::Closed { subscription_id, .. }
                            if *subscription_id == self.id =>
                        {
                            // Public relays close subscriptions (too many, too old, restarts):
                            // ask again, more slowly while it keeps happening.
                            let entry = self.closed.entry(relay_url).or_insert((0, None));
                            let pause = RESUBSCRIBE_FIRST
                                .saturating_mul(1 << entry.0.min(6))
                                .min(RESUBSCRIBE_MAX);
                            entry.0 += 1;
                            entry.1 = Some(Instant::now() + pause);
                        }
                        RelayMessage::EndOfStoredEvents(subscription_id)
                            if *subscription_id == self.id =>
                        {
                            if let Some(entry) = self.closed.get_mut(&relay_url) {
                                entry.0 = 0;
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

    async fn resubscribe_closed(&mut self) {
        let now = Instant::now();
        let due: Vec<RelayUrl> = self
            .closed
            .iter_mut()
            .filter(|(_, (_, at))| at.is_some_and(|t| t <= now))
            .map(|(url, (_, at))| {
                *at = None;
                url.clone()
            })
            .collect();
        for url in due {
            self.resubscribe(&url).await;
        }
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

    /// Soak table 137: the relay's refusals were long past, but the pace the pool had learnt from
    /// them held the table's last events back, and the pool closed after 3 s with 19 queued.
    #[test]
    fn a_closing_pool_waits_for_a_relay_held_back_by_its_pace_not_for_one_gone() {
        let url = RelayUrl::parse("ws://127.0.0.1:7447").unwrap();
        let keys = Keys::generate();
        let event = Arc::new(
            EventBuilder::text_note("owed")
                .sign_with_keys(&keys)
                .unwrap(),
        );
        let within = SHUTDOWN_FLUSH_LIMITED;
        let mut s = RelayState::new(&url, None);
        s.accepted_at.push_back(Instant::now());
        assert!(!s.holds_for_rate(within), "nothing owed");
        s.owe(Arc::clone(&event));
        assert!(
            !s.holds_for_rate(within),
            "owed, but neither limited nor paced"
        );
        s.pace = Some(SendRate {
            per_minute: 6.0,
            burst: 2,
        });
        assert!(s.holds_for_rate(within), "paced and taking events");
        s.accepted_at.clear();
        assert!(!s.holds_for_rate(within), "paced but taking nothing: gone");
        s.limited_at = Some(Instant::now());
        assert!(s.holds_for_rate(within), "it said rate-limited just now");
    }

    /// Soak table 137: a client learnt 25 events a minute from a relay whose per-address minute
    /// three other clients shared, published about that fast for the rest of the table, and
    /// closed still owing that relay events from a hundred steps before.
    #[test]
    fn a_learnt_pace_rises_again_once_the_relay_is_quiet_up_to_the_pace_given() {
        let url = RelayUrl::parse("ws://127.0.0.1:7447").unwrap();
        let limited = || Err::<(), String>("rate-limited: max 150 events per minute".into());
        let mut s = RelayState::new(&url, None);
        for _ in 0..20 {
            s.answered(&Ok(()));
        }
        assert!(s.pace.is_none(), "no pace before any refusal");
        assert!(s.answered(&limited()));
        let learnt = s.pace.expect("a pace learnt").per_minute;
        assert_eq!(learnt, 18.0, "nine tenths of the 20 taken in the minute");
        s.answered(&Ok(()));
        assert_eq!(
            s.pace.unwrap().per_minute,
            learnt,
            "not within the quiet minute"
        );
        s.limited_at = Instant::now().checked_sub(LEARNT_QUIET + Duration::from_secs(1));
        for _ in 0..10 {
            s.answered(&Ok(()));
        }
        assert_eq!(
            s.pace.unwrap().per_minute,
            learnt + 10.0,
            "one a minute per event"
        );
        for _ in 0..600 {
            s.answered(&Ok(()));
        }
        assert!(s.pace.is_none(), "released: no pace was given");
        assert!(s.answered(&limited()));
        assert!(s.pace.is_some(), "a new refusal learns again");

        let given = SendRate {
            per_minute: 50.0,
            burst: 8,
        };
        let mut s = RelayState::new(&url, Some(given));
        for _ in 0..10 {
            s.answered(&Ok(()));
        }
        assert!(s.answered(&limited()));
        assert_eq!(s.pace.unwrap().per_minute, 9.0);
        s.limited_at = Instant::now().checked_sub(LEARNT_QUIET + Duration::from_secs(1));
        for _ in 0..100 {
            s.answered(&Ok(()));
        }
        assert_eq!(
            s.pace,
            Some(given),
            "back to the pace given, never above it"
        );
    }

    #[test]
    fn a_relay_owed_earlier_events_gets_a_new_one_after_them_unless_every_relay_is() {
        assert_eq!(send_now(&[false, false]), [true, true]);
        assert_eq!(send_now(&[true, false]), [false, true]);
        assert_eq!(send_now(&[true, true]), [true, true]);
        assert_eq!(send_now(&[true]), [true]);
        assert!(is_transient(QUEUED_BEHIND));
    }

    #[test]
    fn refusals_that_pass_and_refusals_that_stay() {
        for passing in [
            "rate-limited: slow down",
            "rate-limited: retrying in 1.0 s",
            "paced: waiting to stay within the relay's rate",
            "not connected (disconnected)",
            "no OK within 5s",
            "error: could not save",
            "auth-required: sign in first",
            "timeout",
        ] {
            assert!(is_transient(passing), "{passing}");
        }
        for lasting in [
            "invalid: bad signature",
            "blocked: members only",
            "pow: difficulty 20 required",
            "restricted: not allowed",
            "something: else",
        ] {
            assert!(!is_transient(lasting), "{lasting}");
        }
    }

    #[test]
    fn a_pow_refusal_names_the_difficulty_to_mine() {
        assert_eq!(asked_pow("pow: difficulty 3 is less than 12", 3), Some(12));
        assert_eq!(asked_pow("pow: difficulty too low", 8), Some(12));
        assert_eq!(asked_pow("blocked: 40 events", 0), None);
    }

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
