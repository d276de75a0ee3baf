//! Finding a table and sitting down: the host's side (`tolerance host`) and a player's side
//! (`tolerance join`). The events are specified in `wire::lobby`; this module runs them over a
//! relay pool. Nothing here trusts the host for more than liveness: the seat order follows from
//! every player's committed nonce and each client checks it.

use super::error::TableError;
pub use super::host::{duration_words, invitation_tags, invitation_text, LobbyNews, SetupFor};
use super::host::{HostAction, HostLobby, HostPlan, HostState};
use crate::net::pool::RelayPool;
use crate::net::profiles::name_or_npub;
use crate::wire::auth::seated_by;
use crate::wire::latest;
use crate::wire::lobby::{lobby_event, lobby_filter, seat_commit, SeatingFault, LOBBY_VERSION};
use crate::wire::{self, Lobby, LobbyBody, LobbyMsg, LobbyStatus, TableSpec};
use nostr_sdk::prelude::*;
use rand::rngs::OsRng;
use rand::RngCore;
use std::time::{Duration, Instant};

pub struct HostOptions {
    /// The host's seat key: its identity, or a table key that `authority` authorizes.
    pub keys: Keys,
    /// The identity that authorizes `keys` as its table key for this table (§2.3); `None`: the
    /// seat key is the identity.
    pub authority: Option<crate::authority::Authority>,
    /// The table. Its `pow` is set here, from what the pool's relays ask.
    pub plan: HostPlan,
    /// Notified when the host asks to start with the players there now (at least
    /// `min_players`), without waiting for the seats still free.
    pub start_now: Option<std::sync::Arc<tokio::sync::Notify>>,
    /// Where the lobby is kept, so that a host that stops before the seating takes its table
    /// back (`tolerance resume`); `None` keeps nothing.
    pub keeper: Option<Box<dyn LobbyKeeper>>,
}

/// Where a host keeps its lobby: the seed of its seating nonces before anything is announced,
/// and the lobby as it stands ([`HostLobby::record`]) before each thing it publishes.
pub trait LobbyKeeper: Send {
    /// The seed of the seating nonces of `table`, kept sealed before it is used.
    fn seed(&mut self, table: &str) -> Result<zeroize::Zeroizing<[u8; 32]>, String>;
    /// Keeps the lobby as it stands, before what it asked for goes out.
    fn keep(&mut self, lobby: &HostLobby) -> Result<(), String>;
    /// The lobby is over: the table is seated, or cancelled.
    fn done(&mut self, seated: bool);
}

/// The proof of work a table hosted on `pool`'s relays must announce: the most any of them asks
/// for in its NIP-11 document. Refused, in words, above what a table can afford.
pub(crate) fn table_pow(pool: &RelayPool) -> Result<u8, TableError> {
    let asked = pool.relay_info();
    let pow = pool.min_pow_difficulty();
    if pow > wire::MAX_TABLE_POW {
        let who: Vec<String> = asked
            .iter()
            .filter(|(_, i)| {
                i.as_ref()
                    .is_some_and(|i| i.min_pow_difficulty > wire::MAX_TABLE_POW)
            })
            .map(|(u, _)| u.to_string())
            .collect();
        return Err(TableError::Setup(format!(
            "{} asks for proof of work of {pow} bits on every event: mining one would take about \
             {} on this machine, and a table signs hundreds; tolerance mines at most {} bits. \
             Host on other relays",
            who.join(", "),
            estimate_words(pow_estimate(pow)),
            wire::MAX_TABLE_POW
        )));
    }
    Ok(pow)
}

/// How long mining one event of `bits` takes here: 2^bits attempts on average, each costing
/// what computing one event id costs (serialising the event and hashing it), measured now on a
/// log-sized event.
pub fn pow_estimate(bits: u8) -> Duration {
    let author = Keys::generate().public_key();
    let kind = Kind::from(wire::KIND_LOG);
    let content = "x".repeat(600);
    let n = 2_000u32;
    let started = Instant::now();
    for i in 0..n {
        let tags = Tags::from_list(vec![Tag::pow(u128::from(i), bits)]);
        let _ = EventId::new(&author, &Timestamp::now(), &kind, &tags, &content);
    }
    let per_attempt = started.elapsed().as_secs_f64() / f64::from(n);
    Duration::from_secs_f64(per_attempt * 2f64.powi(i32::from(bits)))
}

/// An estimate in words, rounded to its largest unit ("7 minutes", not "7 minutes 17 s").
fn estimate_words(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1.0 {
        return duration_words(d);
    }
    let unit = if s < 120.0 {
        1.0
    } else if s < 7_200.0 {
        60.0
    } else {
        3_600.0
    };
    duration_words(Duration::from_secs(((s / unit).round() * unit) as u64))
}

fn debug() -> bool {
    std::env::var_os("TOLERANCE_DEBUG").is_some()
}

fn npub(pk: &PublicKey) -> String {
    pk.to_bech32().unwrap_or_else(|_| pk.to_hex())
}

fn new_nonce() -> [u8; 32] {
    let mut n = [0u8; 32];
    OsRng.fill_bytes(&mut n);
    n
}

/// Sends a lobby message signed by `pool`'s key.
async fn send_lobby(
    pool: &RelayPool,
    host: &PublicKey,
    table: &str,
    body: LobbyBody,
) -> Result<(), String> {
    send_lobby_pow(pool, host, table, body, None).await
}

async fn send_lobby_pow(
    pool: &RelayPool,
    host: &PublicKey,
    table: &str,
    body: LobbyBody,
    pow: Option<u8>,
) -> Result<(), String> {
    let msg = LobbyMsg {
        v: LOBBY_VERSION,
        table: table.to_string(),
        body,
    };
    // The pool mines at least what its relays ask (NIP-11), and again at what a relay's `pow:`
    // names: a lobby message is not part of the log, a second copy is harmless.
    pool.publish_mined(lobby_event(host, &msg), pow.unwrap_or(0), false)
        .await
        .map_err(|e| format!("sending the lobby message: {e}"))?;
    Ok(())
}

/// Milliseconds since the Unix epoch: the host's lobby clock.
pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Runs the host's lobby ([`HostLobby`]) on the command's `pool` (signing with `opts.keys`)
/// until the seats are fixed (returns the seated announcement) or the table is cancelled (an
/// error saying why; the cancellation is published). The pool stays open for the rest of the
/// command; whoever closes it last hands the relays what they are still owed.
pub async fn host_lobby(
    pool: &RelayPool,
    mut opts: HostOptions,
    mut news: impl FnMut(LobbyNews) + Send,
) -> Result<TableSpec, TableError> {
    if pool.keys().public_key() != opts.keys.public_key() {
        return Err(TableError::Setup(
            "the relay pool signs with another key than the host's".into(),
        ));
    }
    opts.plan.check().map_err(TableError::Setup)?;
    // Every event of the table carries the work its most demanding relay asks (NIP-11), fixed
    // now: a log event mined again later would be a second event for its step.
    opts.plan.pow = table_pow(pool)?;
    let me = opts.keys.public_key();
    let table = hex::encode(new_nonce());
    let opened = unix_ms();
    let expires = opts.plan.expires(opened / 1000);
    let auth = match &opts.authority {
        Some(identity) => Some(Box::new(
            sign_authorization(identity, &me, (&me, &table), expires, &opts.plan.deadlines)
                .await
                .map_err(TableError::Setup)?,
        )),
        None => None,
    };
    let relays = opts.plan.relays.clone();
    let mut keeper = opts.keeper;
    let seed = match keeper.as_mut() {
        Some(k) => k.seed(&table).map_err(TableError::Setup)?,
        None => zeroize::Zeroizing::new(new_nonce()),
    };
    let (plan, start_now, authority, keys) = (opts.plan, opts.start_now, opts.authority, opts.keys);
    let kept = keeper.as_deref_mut();
    let news = &mut news;
    // Once the seed is kept, however the lobby ends (a failure to announce included), its
    // keeper hears of it.
    let ended: Result<TableSpec, TableError> = async {
        let mut keeper = kept;
        let mut lobby = HostLobby::open(plan, me, table.clone(), (expires, auth), *seed, opened)
            .map_err(TableError::Setup)?;
        let mut sub = pool.subscribe(vec![lobby_filter(&me, &table)]).await?;
        let mut names = Names::default();
        act(pool, &mut lobby, keeper.as_deref_mut(), &mut names, news)
            .await
            .map_err(TableError::Lobby)?;
        let naddr = wire::table_naddr(&me, &table, &relays);
        news(LobbyNews::Announced { naddr });
        // Invitations come from the person hosting, not from a table key nobody knows: an
        // identity in a bunker seals each one (its person asked once per invitee and copy).
        let inviter: std::sync::Arc<dyn NostrSigner> = match &authority {
            Some(a) => a.signer().clone(),
            None => std::sync::Arc::new(keys.clone()),
        };
        let keeping = keeper.as_deref_mut();
        send_invitations(pool, &mut lobby, (&inviter, keeping), &mut names, news).await;
        run_lobby(
            pool,
            &mut lobby,
            (&mut sub, start_now, keeper),
            &mut names,
            news,
        )
        .await
    }
    .await;
    if let Some(k) = keeper.as_mut() {
        k.done(ended.is_ok());
    }
    ended
}

/// Takes back the lobby a host kept (`lobby`: [`HostLobby::restore`]d from what `keeper` kept)
/// on the command's `pool`, after the host stopped before its table was seated: what it kept
/// goes out again, the relays send the lobby's events again, and it runs as
/// [`host_lobby`] does until the seats are fixed or the table is cancelled.
pub async fn resume_lobby(
    pool: &RelayPool,
    mut lobby: HostLobby,
    (start_now, inviter): (
        Option<std::sync::Arc<tokio::sync::Notify>>,
        std::sync::Arc<dyn NostrSigner>,
    ),
    mut keeper: Box<dyn LobbyKeeper>,
    mut news: impl FnMut(LobbyNews) + Send,
) -> Result<TableSpec, TableError> {
    let me = pool.keys().public_key();
    let table = lobby.spec().table.clone();
    let mut sub = pool.subscribe(vec![lobby_filter(&me, &table)]).await?;
    let mut names = Names::default();
    // The invitations it had not sent before it stopped go now (after the first round, which
    // announces the lobby again).
    let ended = run_lobby_inviting(
        pool,
        &mut lobby,
        (&mut sub, start_now, Some(keeper.as_mut())),
        (&mut names, &inviter),
        &mut news,
    )
    .await;
    keeper.done(ended.is_ok());
    ended
}

/// What drives a lobby's rounds: its subscription, the host's "start now", and its keeper.
type Driving<'a> = (
    &'a mut crate::net::pool::Subscription,
    Option<std::sync::Arc<tokio::sync::Notify>>,
    Option<&'a mut (dyn LobbyKeeper + 'static)>,
);

/// A lobby taken back: its first round (the lobby announced again, kept first), then the
/// invitations it still owes, then [`run_lobby`].
async fn run_lobby_inviting(
    pool: &RelayPool,
    lobby: &mut HostLobby,
    (sub, start_now, mut keeper): Driving<'_>,
    (names, inviter): (&mut Names, &std::sync::Arc<dyn NostrSigner>),
    news: &mut (impl FnMut(LobbyNews) + Send),
) -> Result<TableSpec, TableError> {
    act(pool, lobby, keeper.as_deref_mut(), names, news)
        .await
        .map_err(TableError::Lobby)?;
    if !lobby.is_seated() {
        send_invitations(pool, lobby, (inviter, keeper.as_deref_mut()), names, news).await;
    }
    run_lobby(pool, lobby, (sub, start_now, keeper), names, news).await
}

/// Sends the invitations `lobby` still owes (every one in a lobby just opened), each a private
/// message from `inviter` with the table's link. Each one a relay took is kept with the lobby,
/// so that a host taken back after a crash invites only the people it had not reached.
async fn send_invitations(
    pool: &RelayPool,
    lobby: &mut HostLobby,
    (inviter, mut keeper): (
        &std::sync::Arc<dyn NostrSigner>,
        Option<&mut (dyn LobbyKeeper + 'static)>,
    ),
    names: &mut Names,
    news: &mut (impl FnMut(LobbyNews) + Send),
) {
    let me = lobby.host();
    let plan = lobby.plan();
    let table = lobby.spec().table.clone();
    let naddr = wire::table_naddr(&me, &table, &plan.relays);
    let text = invitation_text(&plan.game, &plan.title, &naddr);
    let owed = lobby.invitations_owed(&plan.invite);
    names.learn(pool, &owed).await;
    for invitee in &owed {
        match crate::net::dm::send_private_as(
            pool,
            inviter,
            invitee,
            &text,
            invitation_tags(&me, &table),
            Duration::from_secs(3),
        )
        .await
        {
            Ok(r) => {
                lobby.invited(*invitee);
                // Kept failing, the invitation would only go again after a crash.
                if let Some(k) = keeper.as_deref_mut() {
                    let _ = k.keep(lobby);
                }
                news(LobbyNews::Invited {
                    name: names.name(pool, invitee).await,
                    accepted_by: r.delivered.accepted.len(),
                })
            }
            Err(e) => news(LobbyNews::InviteFailed {
                name: names.name(pool, invitee).await,
                reason: e.to_string(),
            }),
        }
    }
}

/// The lobby's rounds until the seats are fixed or the table is cancelled: poll, keep, publish,
/// then wait for an event of `sub`, the host asking to start, or the next wake-up.
async fn run_lobby(
    pool: &RelayPool,
    lobby: &mut HostLobby,
    (sub, start_now, mut keeper): Driving<'_>,
    names: &mut Names,
    news: &mut (impl FnMut(LobbyNews) + Send),
) -> Result<TableSpec, TableError> {
    loop {
        let state = lobby.poll(unix_ms(), &|k| names.of(k));
        if let Err(failed) = act(pool, lobby, keeper.as_deref_mut(), names, news).await {
            let reason = match state {
                // Its cancellation did not reach the relays either; the table still expires.
                HostState::Cancelled(reason) => reason,
                _ => {
                    lobby.cancel(failed.clone(), unix_ms());
                    // Kept before it goes out, so a crash now does not take back a lobby the
                    // relays hold as cancelled; a lobby that could not be kept is over anyway.
                    if let Some(k) = keeper.as_deref_mut() {
                        let _ = k.keep(lobby);
                    }
                    let _ = act(pool, lobby, None, names, news).await;
                    failed
                }
            };
            news(LobbyNews::Cancelled {
                reason: reason.clone(),
            });
            return Err(TableError::Lobby(reason));
        }
        let wait = match state {
            HostState::Seated(spec) => return Ok(*spec),
            HostState::Cancelled(reason) => {
                news(LobbyNews::Cancelled {
                    reason: reason.clone(),
                });
                return Err(TableError::Lobby(reason));
            }
            HostState::Wait(wait) => wait,
        };
        let asked = async {
            match &start_now {
                Some(n) => n.notified().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            got = tokio::time::timeout(wait, sub.recv()) => match got {
                Ok(Some(ev)) => lobby.on_event(ev, unix_ms()),
                // The subscription ended: nothing more comes, so the lobby only waits out
                // its time.
                Ok(None) => tokio::time::sleep(wait).await,
                Err(_) => {}
            },
            () = asked => lobby.start_now(),
        }
    }
}

/// Carries out what the host's lobby asked for, in order: announcements and lobby messages
/// published on `pool`, news told by name. The lobby is kept first, when a `keeper` keeps it.
/// The first failure to keep or publish, in words.
async fn act(
    pool: &RelayPool,
    lobby: &mut HostLobby,
    keeper: Option<&mut (dyn LobbyKeeper + 'static)>,
    names: &mut Names,
    news: &mut (impl FnMut(LobbyNews) + Send),
) -> Result<(), String> {
    if let Some(k) = keeper.filter(|_| lobby.pending()) {
        k.keep(lobby)?;
    }
    let me = pool.keys().public_key();
    for action in lobby.take() {
        match action {
            HostAction::Announce { spec, at } => {
                pool.publish_mined(
                    wire::table_event(&spec).custom_created_at(Timestamp::from(at)),
                    spec.pow,
                    false,
                )
                .await
                .map_err(|e| format!("announcing the table: {e}"))?;
            }
            // The pool mines at least what its relays ask (NIP-11), and again at what a
            // relay's `pow:` names: a lobby message is not part of the log, a second copy is
            // harmless.
            HostAction::Lobby(msg) => {
                pool.publish_mined(lobby_event(&me, &msg), 0, false)
                    .await
                    .map_err(|e| format!("sending the lobby message: {e}"))?;
            }
            HostAction::News(n) => {
                names.learn(pool, &n.keys()).await;
                news(n.named(&|k| names.of(k)));
            }
        }
    }
    Ok(())
}

/// `identity` authorizes `key` to hold its seat at `host`'s `table`, for a lobby expiring at
/// `lobby_expires`: until [`seated_by`] plus an hour.
pub async fn sign_authorization(
    identity: &crate::authority::Authority,
    key: &PublicKey,
    (host, table): (&PublicKey, &str),
    lobby_expires: u64,
    deadlines: &wire::Deadlines,
) -> Result<Event, String> {
    if identity.public_key() == *key {
        return Err("a table key must be another key than the identity".into());
    }
    let expires = crate::wire::auth::asked_expiry(lobby_expires, deadlines);
    let ev = identity
        .sign(crate::wire::auth::auth_event(key, host, table, expires))
        .await
        .map_err(|e| format!("signing the table key's authorization: {e}"))?;
    // What a signer gave back is checked as the host and every client will check it, so that a
    // signer that changed the event is said here and not by a silent refusal later.
    crate::wire::auth::check_auth(&ev, host, table, key, Timestamp::now().as_secs()).map_err(
        |e| format!("your signer's authorization of the table key cannot seat you: {e}"),
    )?;
    let got = crate::wire::auth::expires_at(&ev);
    if got <= seated_by(lobby_expires, deadlines) {
        return Err(format!(
            "your signer's authorization of the table key expires at {got} (Unix seconds), \
             before the table could be seated"
        ));
    }
    Ok(ev)
}

/// How long a player waits for the nonces of a table announced as seated. The host saw them all
/// before it seated the table, so one still missing here is on its way (a relay that reorders or
/// delivers late); this is the same allowance a relay gets for any event (PROTOCOL §7.1).
pub const SEATING_PATIENCE: Duration = Duration::from_secs(20);

/// Checks that a lobby table's seats are fixed and follow from its players' nonces (fetched from
/// the pool's relays), whoever announced them. A table seated without a lobby passes. While a
/// nonce is missing it fetches again, for up to `patience`.
pub async fn check_seated(
    pool: &RelayPool,
    host: &PublicKey,
    spec: &TableSpec,
    patience: Duration,
) -> Result<(), TableError> {
    let Some(l) = &spec.lobby else {
        return Ok(());
    };
    match l.status {
        LobbyStatus::Seated => {}
        LobbyStatus::Cancelled => {
            return Err(TableError::Seating(format!(
                "table {} is cancelled: {}",
                spec.table,
                l.reason.as_deref().unwrap_or("no reason given")
            )))
        }
        other => {
            return Err(TableError::NotSeated(format!(
                "table {} is still {} (its seats are not fixed yet)",
                spec.table,
                other.name()
            )))
        }
    }
    let deadline = Instant::now() + patience;
    let mut pause = Duration::from_millis(250);
    loop {
        let events = pool
            .fetch_all(lobby_filter(host, &spec.table), 500, Duration::from_secs(5))
            .await?;
        match wire::lobby::check_seating(spec, &events) {
            Ok(()) => return Ok(()),
            Err(SeatingFault::Missing(_)) if Instant::now() + pause < deadline => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(2));
            }
            Err(f) => return Err(TableError::Seating(f.words().to_string())),
        }
    }
}

/// Where a table named by a person lives.
#[derive(Debug, Clone)]
pub struct TableRef {
    pub table: String,
    pub host: Option<PublicKey>,
    pub relays: Vec<String>,
    /// An nevent names the announcement event itself.
    pub event: Option<EventId>,
}

/// Parses `naddr1…`, `nevent1…` (of a table announcement) or a 64-hex table id.
pub fn parse_ref(text: &str) -> Result<TableRef, TableError> {
    let t = text.trim();
    if t.starts_with("nevent1") {
        let e = Nip19Event::from_bech32(t)
            .map_err(|e| TableError::NotFound(format!("'{t}' is not a valid nevent: {e}")))?;
        if let Some(k) = e.kind {
            if k != Kind::from(wire::KIND_TABLE) {
                return Err(TableError::NotFound(format!(
                    "'{t}' names a kind {} event, not a table announcement (kind {})",
                    k.as_u16(),
                    wire::KIND_TABLE
                )));
            }
        }
        return Ok(TableRef {
            table: String::new(),
            host: e.author,
            relays: e.relays.iter().map(|r| r.to_string()).collect(),
            event: Some(e.event_id),
        });
    }
    let (table, host, relays) = wire::parse_table_ref(t).map_err(TableError::NotFound)?;
    Ok(TableRef {
        table,
        host,
        relays,
        event: None,
    })
}

/// Fetches the newest announcement of a table named by `r`.
pub async fn find_announcement(
    pool: &RelayPool,
    r: &TableRef,
    timeout: Duration,
) -> Result<(Event, TableSpec), TableError> {
    let filter = if let Some(id) = r.event {
        Filter::new().id(id)
    } else {
        let mut f = Filter::new()
            .kind(Kind::from(wire::KIND_TABLE))
            .identifier(r.table.clone());
        if let Some(h) = r.host {
            f = f.author(h);
        }
        f
    };
    let events = pool.fetch(vec![filter], timeout).await?;
    let mut events: Vec<Event> = events
        .into_iter()
        .filter(|e| e.kind == Kind::from(wire::KIND_TABLE))
        .collect();
    if r.event.is_some() {
        // An nevent pins one version; the table may have moved on since.
        if let Some(ev) = events.first().cloned() {
            let spec = wire::parse_table(&ev).map_err(|e| TableError::Setup(e.to_string()))?;
            let newer = pool
                .fetch(
                    vec![wire::announcement_filter(&ev.pubkey, &spec.table)],
                    timeout,
                )
                .await?;
            events.extend(newer);
        }
    }
    let ev = latest(&events).cloned().ok_or_else(|| {
        TableError::NotFound(if r.event.is_some() {
            "the table announcement was not found on the relays".to_string()
        } else {
            format!("table {} was not found on the relays", r.table)
        })
    })?;
    let spec = wire::parse_table(&ev).map_err(|e| TableError::Setup(e.to_string()))?;
    Ok((ev, spec))
}

/// A joined table: the seated announcement and where to play it.
#[derive(Debug, Clone)]
pub struct Joined {
    pub spec: TableSpec,
    pub host: PublicKey,
    pub relays: Vec<String>,
}

/// The relays to look for a table on: those given, then the reference's hints.
pub fn table_relays(given: &[String], r: &TableRef) -> Result<Vec<String>, TableError> {
    let mut relays: Vec<String> = given.to_vec();
    for h in &r.relays {
        if !relays.contains(h) {
            relays.push(h.clone());
        }
    }
    if relays.is_empty() {
        return Err(TableError::NotFound(
            "no relay to look for the table on: pass --relay URL or an naddr with relay hints"
                .into(),
        ));
    }
    Ok(relays)
}

/// Asks for a seat and waits until the table is seated (or cancelled, or full without us), on
/// the command's `pool` (signing with `keys`), opened on `relays` ([`table_relays`]). The pool
/// stays open for the rest of the command.
///
/// `authority`: the identity that authorizes `keys` as a table key for this table (§2.3);
/// `None` when `keys` is the identity.
pub async fn join_lobby(
    keys: &Keys,
    authority: Option<&crate::authority::Authority>,
    pool: &RelayPool,
    relays: &[String],
    r: &TableRef,
    wait: Duration,
    mut news: impl FnMut(LobbyNews) + Send,
) -> Result<Joined, TableError> {
    if pool.keys().public_key() != keys.public_key() {
        return Err(TableError::Setup(
            "the relay pool signs with another key than this player's".into(),
        ));
    }
    join_inner(keys, authority, pool, relays, r, wait, &mut news)
        .await
        .map_err(TableError::Lobby)
}

async fn join_inner(
    keys: &Keys,
    authority: Option<&crate::authority::Authority>,
    pool: &RelayPool,
    relays: &[String],
    r: &TableRef,
    wait: Duration,
    news: &mut (impl FnMut(LobbyNews) + Send),
) -> Result<Joined, String> {
    let (ev, mut spec) = find_announcement(pool, r, Duration::from_secs(5)).await?;
    let host = ev.pubkey;
    let me = keys.public_key();
    let table = spec.table.clone();
    let lobby = match joinable(&spec) {
        Ok(lobby) => lobby,
        Err(_) if spec.lobby.as_ref().map(|l| l.status) == Some(LobbyStatus::Seated) => {
            return Err(seated_words(pool, &host, &table, relays).await)
        }
        Err(why) => return Err(why),
    };
    // Play on the table's own relays as well as the ones we found it on.
    let mut all_relays = relays.to_vec();
    for u in &lobby.relays {
        if !all_relays.contains(u) {
            all_relays.push(u.clone());
        }
    }
    let auth = join_authorization(authority, &spec, (&me, &host)).await?;
    let mut sub = table_and_lobby(pool, &host, &table).await?;
    let mut nonce = new_nonce();
    let mut commit = seat_commit(&table, &me, &nonce);
    let mut round = lobby.round;
    // The lobby round we last asked for a seat in: a request the host could not take (the
    // table was full) is asked again when a seat reopens.
    let mut asked: Option<u32> = None;
    let deadline = Instant::now() + wait;
    let mut newest = ev;
    let mut revealed = false;
    let mut waiting_told = false;
    let mut wait_news = WaitNews::open(pool, host, &spec).await;
    loop {
        let l = spec.lobby.as_ref().expect("lobby");
        let mine = l.players.iter().find(|p| p.pubkey == me.to_hex());
        if host != me
            && mine.is_some()
            && l.status == LobbyStatus::Open
            && wait_news.tell(pool, (host, me), l, news).await
        {
            continue;
        }
        if host != me && mine.is_none() && l.status == LobbyStatus::Open && asked != Some(l.round) {
            round = l.round;
            let pow = l.join_pow.unwrap_or(0).max(spec.pow);
            (nonce, commit) = commit_join(pool, (&host, &table), &me, &auth, Some(pow)).await?;
            asked = Some(l.round);
            if debug() {
                eprintln!("[join] asked for a seat at {table}");
            }
        }
        // The host reopened the lobby (someone never revealed): commit to a fresh nonce.
        if l.round > round && mine.is_some() && l.status == LobbyStatus::Open {
            round = l.round;
            revealed = false;
            (nonce, commit) = commit_join(pool, (&host, &table), &me, &auth, None).await?;
            continue;
        }
        match l.status {
            LobbyStatus::Cancelled => {
                return Err(format!(
                    "the host cancelled the table: {}",
                    l.reason.clone().unwrap_or_default()
                ))
            }
            LobbyStatus::Seated if mine.is_none() => {
                return Err("the table filled and started without us".into());
            }
            LobbyStatus::Starting if mine.is_none() && !waiting_told => {
                news(LobbyNews::Full {
                    players: l.players.len(),
                });
                waiting_told = true;
            }
            LobbyStatus::Starting if mine.is_none() => {}
            LobbyStatus::Starting if l.round > round => {
                // A round we have not committed to: wait for the host to take our new one.
            }
            LobbyStatus::Starting | LobbyStatus::Seated
                if mine.map(|p| p.commit.as_str()) != Some(commit.as_str()) =>
            {
                return Err("the host listed us with a commitment we did not make".into());
            }
            LobbyStatus::Starting | LobbyStatus::Seated
                if mine.map(|p| p.auth.as_ref().map(|a| a.id))
                    != Some(auth.as_ref().map(|a| a.id)) =>
            {
                return Err(
                    "the host listed us without our identity's authorization of this table key"
                        .into(),
                );
            }
            LobbyStatus::Starting if !revealed => {
                news(LobbyNews::Starting {
                    players: l.players.len(),
                });
                send_lobby(
                    pool,
                    &host,
                    &table,
                    LobbyBody::Reveal {
                        nonce: hex::encode(nonce),
                    },
                )
                .await?;
                revealed = true;
            }
            LobbyStatus::Seated => {
                check_seated(pool, &host, &spec, SEATING_PATIENCE).await?;
                news(LobbyNews::Seated {
                    names: seat_names(pool, &mut wait_news.names, spec.lobby.as_ref(), &spec.seats)
                        .await,
                });
                return Ok(Joined {
                    spec,
                    host,
                    relays: all_relays,
                });
            }
            _ => {}
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            if !revealed {
                let _ = send_lobby(pool, &host, &table, LobbyBody::Leave {}).await;
            }
            let waited = duration_words(wait);
            return Err(format!(
                "the table did not start within {waited}; we left it"
            ));
        }
        let Ok(Some(ev)) = tokio::time::timeout(left, sub.recv()).await else {
            continue;
        };
        if ev.kind == Kind::from(wire::KIND_TABLE) {
            if let Some(s) = newer_lobby(&ev, &newest, &host, &table) {
                spec = s;
                newest = ev;
            }
        }
    }
}

/// A subscription to `host`'s announcement of `table` and to its lobby's messages.
async fn table_and_lobby(
    pool: &RelayPool,
    host: &PublicKey,
    table: &str,
) -> Result<crate::net::pool::Subscription, String> {
    pool.subscribe(vec![
        wire::announcement_filter(host, table),
        lobby_filter(host, table),
    ])
    .await
    .map_err(|e| e.to_string())
}

/// The authorization a join by `me` at `host`'s table carries when `authority` authorizes it
/// as a table key (§2.3): signed now (a bunker asks its person), refused in words at a table
/// too old for table keys.
async fn join_authorization(
    authority: Option<&crate::authority::Authority>,
    spec: &TableSpec,
    (me, host): (&PublicKey, &PublicKey),
) -> Result<Option<Box<Event>>, String> {
    let now = Timestamp::now().as_secs();
    // Good until the host's lobby could be seated, whatever this command's own wait.
    let lobby_expires = spec
        .lobby
        .as_ref()
        .and_then(|l| l.expires)
        .unwrap_or(now)
        .max(now);
    match authority {
        Some(_) if spec.v < wire::TABLE_KEYS_SINCE => Err(format!(
            "this table was announced by an older version of tolerance (version {}), which does \
             not know table keys: join it without --table-key (and without a bunker)",
            spec.v
        )),
        Some(identity) => Ok(Some(Box::new(
            sign_authorization(
                identity,
                me,
                (host, &spec.table),
                lobby_expires,
                &spec.deadlines,
            )
            .await?,
        ))),
        None => Ok(None),
    }
}

/// What a joiner waiting for the table to fill has told its person: the players listed when
/// it last told them, the names known, and the game's title.
struct WaitNews {
    told: Option<Vec<String>>,
    names: Names,
    game: String,
}

impl WaitNews {
    async fn open(pool: &RelayPool, host: PublicKey, spec: &TableSpec) -> WaitNews {
        let mut names = Names::default();
        names.learn(pool, &[spec.identity_of(&host)]).await;
        WaitNews {
            told: None,
            names,
            game: crate::games::registry::all()
                .into_iter()
                .find(|g| g.name == spec.game)
                .map_or_else(|| spec.game.clone(), |g| g.title.to_string()),
        }
    }

    /// Tells the person about the wait when the players listed changed since it last did (who
    /// sat down, by name): true when it told.
    async fn tell(
        &mut self,
        pool: &RelayPool,
        (host, me): (PublicKey, PublicKey),
        l: &Lobby,
        news: &mut (impl FnMut(LobbyNews) + Send),
    ) -> bool {
        let listed: Vec<String> = l.players.iter().map(|p| p.pubkey.clone()).collect();
        if self.told.as_ref() == Some(&listed) {
            return false;
        }
        let first = self.told.is_none();
        let newcomers: Vec<PublicKey> = listed
            .iter()
            .filter(|k| !first && !self.told.as_ref().is_some_and(|t| t.contains(k)))
            .filter_map(|k| PublicKey::from_hex(k).ok())
            .filter(|k| *k != me)
            .map(|k| l.identity_of(&k))
            .collect();
        self.names.learn(pool, &newcomers).await;
        let label = |k: &PublicKey| self.names.of(k);
        news(LobbyNews::Waiting {
            host: label(&l.identity_of(&host)),
            game: self.game.clone(),
            newcomers: newcomers.iter().map(label).collect(),
            first,
            players: listed.len(),
            min: l.min_players as usize,
            max: l.max_players as usize,
        });
        self.told = Some(listed);
        true
    }
}

/// How long a lobby waits for profile names before naming people by short npub.
const NAMES_PATIENCE: Duration = Duration::from_secs(3);

/// Profile names of the people a lobby tells about, each looked up once on the pool's relays;
/// a key with no profile is named by its short npub.
#[derive(Default)]
struct Names(std::collections::HashMap<PublicKey, String>);

impl Names {
    /// Looks up the keys not known yet, all in one query.
    async fn learn(&mut self, pool: &RelayPool, keys: &[PublicKey]) {
        let unknown: Vec<PublicKey> = keys
            .iter()
            .filter(|k| !self.0.contains_key(k))
            .copied()
            .collect();
        if unknown.is_empty() {
            return;
        }
        let found = crate::net::profiles::fetch_names(pool, &unknown, NAMES_PATIENCE).await;
        for k in unknown {
            let name = name_or_npub(&found, &k);
            self.0.insert(k, name);
        }
    }

    /// The name known for `k`.
    fn of(&self, k: &PublicKey) -> String {
        name_or_npub(&self.0, k)
    }

    async fn name(&mut self, pool: &RelayPool, k: &PublicKey) -> String {
        self.learn(pool, &[*k]).await;
        self.of(k)
    }
}

/// The names of seats given as hex keys, in their order: the people behind them (§2.3).
async fn seat_names(
    pool: &RelayPool,
    names: &mut Names,
    lobby: Option<&Lobby>,
    hexes: &[String],
) -> Vec<String> {
    let keys: Vec<PublicKey> = hexes
        .iter()
        .filter_map(|h| PublicKey::from_hex(h).ok())
        .map(|k| lobby.map_or(k, |l| l.identity_of(&k)))
        .collect();
    names.learn(pool, &keys).await;
    keys.iter().map(|k| names.of(k)).collect()
}

/// Commits to a fresh seating nonce and asks for a seat with it (with `pow` bits of proof of
/// work when given); the nonce and its commitment.
async fn commit_join(
    pool: &RelayPool,
    (host, table): (&PublicKey, &str),
    me: &PublicKey,
    auth: &Option<Box<Event>>,
    pow: Option<u8>,
) -> Result<([u8; 32], String), String> {
    let nonce = new_nonce();
    let commit = seat_commit(table, me, &nonce);
    let body = LobbyBody::Join {
        commit: commit.clone(),
        auth: auth.clone(),
    };
    send_lobby_pow(pool, host, table, body, pow).await?;
    Ok((nonce, commit))
}

/// Seconds before a table's newest event in which its `end`s are looked for: a seat's clock may
/// be this much behind another's (the runner's own skew allowance, with room to spare).
const END_SKEW_SECS: u64 = 30;

/// Why a seated table takes no one, as a person asking to join needs it: the table is still
/// being played (watch it) or its players saw it to the end (verify it). The announcement says
/// only "seated" either way, so the table's newest log events tell: an `end` is among them once
/// the game is over.
async fn seated_words(
    pool: &RelayPool,
    host: &PublicKey,
    table: &str,
    relays: &[String],
) -> String {
    let naddr = wire::table_naddr(host, table, relays);
    let wait = Duration::from_secs(5);
    let newest = pool
        .fetch(vec![wire::log_filter(host, table, &[]).limit(1)], wait)
        .await
        .unwrap_or_default();
    // A table's last second can hold more events than any limit (bots play a hand within it)
    // and relays break ties by id, so a limit alone can leave the `end`s out: everything from
    // the newest event's second back by the clock skew seats may have is read instead.
    let last = newest.iter().map(|e| e.created_at.as_secs()).max();
    let tail = match last {
        Some(t) => pool
            .fetch(
                vec![wire::log_filter(host, table, &[])
                    .since(Timestamp::from_secs(t.saturating_sub(END_SKEW_SECS)))],
                wait,
            )
            .await
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let over = tail.iter().any(|ev| {
        wire::log::parse_log(ev, table).is_ok_and(|p| matches!(p.body, wire::log::Body::End { .. }))
    });
    if over {
        format!(
            "this table is over: its players saw it to the end and it takes no more; \
             `tolerance verify {naddr}` checks how it went"
        )
    } else {
        format!(
            "this table has started with its players and takes no more; \
             `tolerance watch {naddr}` follows it"
        )
    }
}

/// The lobby of a table a player may still join, or why not.
fn joinable(spec: &TableSpec) -> Result<Lobby, String> {
    let lobby = spec
        .lobby
        .clone()
        .ok_or("this table seated its players directly; there is no lobby to join")?;
    match lobby.status {
        // Starting: the seats are listed, but a listed player who never reveals loses the seat
        // and it reopens; wait for that instead of giving up on a table sybils filled.
        LobbyStatus::Open | LobbyStatus::Starting => Ok(lobby),
        LobbyStatus::Cancelled => Err(format!(
            "the table was cancelled: {}",
            lobby.reason.unwrap_or_default()
        )),
        s => Err(format!(
            "the table is {} and takes no more players",
            s.name()
        )),
    }
}

/// The table with a lobby that `ev` announces, when it is the host's newer version of `table`
/// than `newest`.
fn newer_lobby(ev: &Event, newest: &Event, host: &PublicKey, table: &str) -> Option<TableSpec> {
    if ev.pubkey != *host || latest(&[newest.clone(), ev.clone()]) != Some(ev) {
        return None;
    }
    wire::parse_table(ev)
        .ok()
        .filter(|s| s.table == table && s.lobby.is_some())
}

/// An open public table or an invitation, as `tolerance tables` lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Listing {
    pub naddr: String,
    pub title: String,
    pub host: String,
    pub status: String,
    pub players: usize,
    pub max_players: u8,
    /// The game's registry name.
    pub game: String,
    pub public: bool,
    /// Who invited us, when this came from an invitation.
    pub invited_by: Option<String>,
    /// The table's timing in words ("fast (15 s a move, 30 s time bank)").
    pub pace: String,
}

fn listing(ev: &Event, spec: &TableSpec, invited_by: Option<String>) -> Option<Listing> {
    let l = spec.lobby.as_ref()?;
    Some(Listing {
        naddr: wire::table_naddr(&ev.pubkey, &spec.table, &l.relays),
        title: l.title.clone(),
        // The person hosting, not the table key that signs the announcement (§2.3).
        host: npub(&spec.identity_of(&ev.pubkey)),
        status: l.status.name().into(),
        players: l.players.len(),
        max_players: l.max_players,
        game: spec.game.clone(),
        public: l.public,
        invited_by,
        pace: spec.deadlines.words(),
    })
}

/// Open public tables and the invitations addressed to `keys`, from the pool's relays.
pub async fn list_tables(
    pool: &RelayPool,
    who: &crate::authority::Authority,
    timeout: Duration,
) -> Result<(Vec<Listing>, Vec<Listing>), String> {
    // Paged: a busy relay lists more open tables than it returns in one answer.
    let open = pool
        .fetch_all(wire::lobby::open_tables_filter(), 500, timeout)
        .await
        .map_err(|e| e.to_string())?;
    let public = wire::lobby::open_public_tables(&open, Timestamp::now().as_secs())
        .iter()
        .filter_map(|(ev, spec)| listing(ev, spec, None))
        .collect();
    let mut invites = Vec::new();
    let me = who.public_key();
    let inbox = crate::net::dm::fetch_inbox_of(pool, who.signer(), timeout)
        .await
        .map_err(|e| e.to_string())?;
    // Our own copies of invitations we sent are in the inbox too.
    for msg in inbox.messages.into_iter().filter(|m| m.sender != me) {
        for c in wire::lobby::invited_tables(&msg.tags) {
            let r = TableRef {
                table: c.identifier.clone(),
                host: Some(c.public_key),
                relays: Vec::new(),
                event: None,
            };
            if let Ok((ev, spec)) = find_announcement(pool, &r, timeout).await {
                // An invitation to a table whose host never started it and is gone: nothing to
                // join (relays need not delete expired events, NIP-40).
                let now = Timestamp::now().as_secs();
                let expired = spec.lobby.as_ref().is_some_and(|l| {
                    l.status == LobbyStatus::Open && l.expires.is_some_and(|t| t <= now)
                });
                if !expired {
                    invites.extend(listing(&ev, &spec, Some(npub(&msg.sender))));
                }
            }
        }
    }
    Ok((public, invites))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_people_say_them() {
        let secs = Duration::from_secs;
        for (d, words) in [
            (Duration::from_millis(400), "400 ms"),
            (secs(1), "1 s"),
            (secs(90), "90 s"),
            (secs(60), "1 minute"),
            (secs(150), "2 minutes 30 s"),
            (secs(600), "10 minutes"),
            (secs(5_400), "90 minutes"),
            (secs(7_200), "2 hours"),
        ] {
            assert_eq!(duration_words(d), words);
        }
        // Estimates are rounded to their largest unit.
        for (d, words) in [
            (Duration::from_millis(2), "2 ms"),
            (Duration::from_secs_f64(4.4), "4 s"),
            (secs(437), "7 minutes"),
            (secs(30_000), "8 hours"),
        ] {
            assert_eq!(estimate_words(d), words);
        }
    }

    #[test]
    fn tables_are_named_by_naddr_nevent_or_hex() {
        let host = Keys::generate().public_key();
        let id = hex::encode([4u8; 32]);
        let naddr = wire::table_naddr(&host, &id, &["ws://127.0.0.1:7447".into()]);
        let r = parse_ref(&naddr).unwrap();
        assert_eq!((r.table.as_str(), r.host), (id.as_str(), Some(host)));
        assert_eq!(r.relays, vec!["ws://127.0.0.1:7447".to_string()]);
        let ev = EventId::all_zeros();
        let nevent = Nip19Event::new(ev)
            .author(host)
            .kind(Kind::from(wire::KIND_TABLE))
            .to_bech32()
            .unwrap();
        let r = parse_ref(&nevent).unwrap();
        assert_eq!((r.event, r.host), (Some(ev), Some(host)));
        let note = Nip19Event::new(ev)
            .kind(Kind::TextNote)
            .to_bech32()
            .unwrap();
        assert!(matches!(
            parse_ref(&note),
            Err(TableError::NotFound(w)) if w.contains("not a table announcement")
        ));
        assert_eq!(parse_ref(&id).unwrap().table, id);
        assert!(matches!(
            parse_ref("nevent1garbage"),
            Err(TableError::NotFound(w)) if w.contains("not a valid nevent")
        ));
    }
}

#[cfg(test)]
mod pow_tests {
    use super::*;
    use crate::net::pool::PoolConfig;
    use crate::net::{EmbeddedRelay, EmbeddedRelayConfig};

    pub(super) async fn pool_on(min_pow_difficulty: u8) -> (EmbeddedRelay, RelayPool) {
        let relay = EmbeddedRelay::start(EmbeddedRelayConfig {
            min_pow_difficulty,
            ..EmbeddedRelayConfig::default()
        })
        .await
        .unwrap();
        let pool = pool_at(relay.url()).await;
        (relay, pool)
    }

    /// A pool of a fresh key on one relay.
    pub(super) async fn pool_at(url: &RelayUrl) -> RelayPool {
        RelayPool::connect(Keys::generate(), [url.as_str()], PoolConfig::default())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_table_takes_its_relays_proof_of_work_and_refuses_too_much_in_words() {
        let (_relay, pool) = pool_on(9).await;
        assert_eq!(table_pow(&pool).unwrap(), 9);
        let (_relay, pool) = pool_on(30).await;
        let err = table_pow(&pool).unwrap_err().to_string();
        assert!(
            err.contains("asks for proof of work of 30 bits")
                && err.contains("mining one would take about")
                && err.contains("at most 24 bits"),
            "{err}"
        );
    }
}

#[cfg(test)]
mod seating_tests {
    use super::pow_tests::{pool_at, pool_on};
    use super::*;
    use crate::net::harness::{RelayProxy, Rules};
    use crate::table::host::lapsed;
    use crate::wire::lobby::seating;
    use crate::wire::{Deadlines, LobbyPlayer, VERSION};

    /// A seated two-player table on a fresh relay, the reveals not yet published.
    fn seated_table(host: &Keys, guest: &Keys, url: &str) -> (TableSpec, Vec<Event>) {
        let table = hex::encode([7u8; 32]);
        let players = vec![
            (host.public_key(), [1u8; 32]),
            (guest.public_key(), [2u8; 32]),
        ];
        let spec = TableSpec {
            v: VERSION,
            game: "high-card".into(),
            table: table.clone(),
            setup: serde_json::json!({}),
            seats: seating(&table, &players)
                .iter()
                .map(|k| k.to_hex())
                .collect(),
            deadlines: Deadlines::default(),
            lobby: Some(Lobby {
                status: LobbyStatus::Seated,
                title: "seating".into(),
                public: true,
                min_players: 2,
                max_players: 2,
                relays: vec![url.to_string()],
                players: players
                    .iter()
                    .map(|(k, n)| LobbyPlayer {
                        pubkey: k.to_hex(),
                        commit: seat_commit(&table, k, n),
                        auth: None,
                    })
                    .collect(),
                reason: None,
                round: 0,
                join_pow: None,
                expires: None,
            }),
            pow: 0,
        };
        let reveals = [(host, players[0].1), (guest, players[1].1)]
            .into_iter()
            .map(|(keys, nonce)| {
                let msg = LobbyMsg {
                    v: LOBBY_VERSION,
                    table: table.clone(),
                    body: LobbyBody::Reveal {
                        nonce: hex::encode(nonce),
                    },
                };
                lobby_event(&host.public_key(), &msg)
                    .sign_with_keys(keys)
                    .unwrap()
            })
            .collect();
        (spec, reveals)
    }

    /// The host re-checks the listed authorizations against the time its seated announcement
    /// will carry: a listed table key whose authorization lapses by then is named (and one
    /// that is not an authorization at all), a seat held by an identity's own key never is.
    #[test]
    fn authorizations_lapsed_by_the_seating_are_named() {
        let (host, guest, other) = (Keys::generate(), Keys::generate(), Keys::generate());
        let (mut spec, _) = seated_table(&host, &guest, "ws://127.0.0.1:1");
        let table = spec.table.clone();
        let identity = Keys::generate();
        let auth = |key: &Keys, expires: u64| {
            crate::wire::auth::auth_event(&key.public_key(), &host.public_key(), &table, expires)
                .sign_with_keys(&identity)
                .map(Box::new)
                .ok()
        };
        let l = spec.lobby.as_mut().unwrap();
        l.players[1].auth = auth(&guest, 2_000);
        l.players.push(LobbyPlayer {
            pubkey: other.public_key().to_hex(),
            commit: String::new(),
            auth: Some(Box::new(
                EventBuilder::text_note("not an authorization")
                    .sign_with_keys(&identity)
                    .unwrap(),
            )),
        });
        let l = spec.lobby.as_ref().unwrap();
        let guest_hex = guest.public_key().to_hex();
        let other_hex = other.public_key().to_hex();
        assert_eq!(lapsed(l, 1_999), vec![other_hex.clone()]);
        assert_eq!(lapsed(l, 2_000), vec![guest_hex, other_hex]);
    }

    /// Soak tables 95, 134, 186, 258: a relay that reorders delivered the seated announcement
    /// before a player's nonce, and the joiner gave up on a table it should have played.
    #[tokio::test]
    async fn a_nonce_still_on_its_way_is_waited_for_and_one_that_never_comes_is_named() {
        let (relay, pool) = pool_on(0).await;
        let (host, guest) = (Keys::generate(), Keys::generate());
        let (spec, reveals) = seated_table(&host, &guest, relay.url().as_str());
        pool.publish(&reveals[0]).await.unwrap();

        // Only the host's nonce: after the patience, a refusal in words naming who is missing.
        let err = check_seated(&pool, &host.public_key(), &spec, Duration::from_millis(600))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no valid nonce from") && err.contains(&guest.public_key().to_hex()),
            "{err}"
        );

        // The guest's nonce arrives while the check waits: the seating checks out. The reveal
        // goes out once the check has asked the relay twice (so its first look found the nonce
        // missing and it kept waiting), which is what is tested.
        let proxy = RelayProxy::start(relay.url(), Rules::default())
            .await
            .unwrap();
        let through = pool_at(proxy.url()).await;
        let asked = proxy.stats().reqs;
        let checking = {
            let host = host.public_key();
            let spec = spec.clone();
            tokio::spawn(async move {
                let out = check_seated(&through, &host, &spec, SEATING_PATIENCE).await;
                through.shutdown().await;
                out
            })
        };
        assert!(
            proxy
                .wait_until(|s| s.reqs >= asked + 2, SEATING_PATIENCE)
                .await,
            "the check gave up at its first look"
        );
        pool.publish(&reveals[1]).await.unwrap();
        checking.await.unwrap().unwrap();

        // A seat order that does not follow from the nonces is refused at once, not waited on.
        let mut wrong = spec.clone();
        wrong.seats.reverse();
        let started = Instant::now();
        let err = check_seated(&pool, &host.public_key(), &wrong, SEATING_PATIENCE)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("does not follow from the players' nonces"),
            "{err}"
        );
        assert!(started.elapsed() < SEATING_PATIENCE / 2);
        pool.shutdown().await;
    }
}

#[cfg(test)]
mod pow_figures {
    use super::*;

    /// `cargo test --release --lib pow_figures -- --ignored --nocapture`: how long one log event
    /// takes to mine at each difficulty on this machine (nostr's single-threaded miner), against
    /// the host's estimate (BENCHMARKS.md, "Proof of work").
    #[test]
    #[ignore = "a measurement, not a check"]
    fn mining_time_per_event() {
        let keys = Keys::generate();
        let host = keys.public_key();
        let payload = crate::wire::log::Payload {
            v: crate::wire::log::LOG_VERSION,
            table: hex::encode([3u8; 32]),
            step: 42,
            prev: hex::encode([5u8; 32]),
            ahead: None,
            body: crate::wire::log::Body::End {},
        };
        for bits in [8u8, 12, 16, 20] {
            let runs = if bits >= 20 { 3 } else { 10 };
            let started = Instant::now();
            for _ in 0..runs {
                let ev = crate::wire::log::log_event(&host, &payload)
                    .pow(bits)
                    .sign_with_keys(&keys)
                    .unwrap();
                assert!(ev.id.check_pow(bits));
            }
            let each = started.elapsed() / runs;
            println!(
                "{bits} bits: {:.1} ms per event measured ({runs} events), {:.1} ms estimated",
                each.as_secs_f64() * 1000.0,
                pow_estimate(bits).as_secs_f64() * 1000.0
            );
        }
    }
}
