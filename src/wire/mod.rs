//! The table protocol's Nostr events: kinds, tags, versioned JSON payloads and size limits.
//! No I/O. The format is specified in `protocol/PROTOCOL.md` (§2–§3).
//!
//! Every game's log event is a regular (stored) event of kind [`KIND_LOG`] whose content is a
//! [`log::Payload`]; it carries an `a` tag naming the table (`37767:<host>:<table id>`) so one
//! filter fetches a table's whole log, and an `e` tag naming the chain head it builds on. The
//! table itself is announced by an addressable event of kind [`KIND_TABLE`] naming its game and
//! that game's setup. Lobby messages are kind [`KIND_LOBBY`]; variant proposals are addressable
//! events of kind [`variant::KIND_VARIANT`].

use nostr::prelude::*;
use serde::{Deserialize, Serialize};

pub mod auth;
pub mod feedback;
pub mod lobby;
pub mod log;
pub mod names;
pub mod variant;
pub use lobby::{Lobby, LobbyBody, LobbyMsg, LobbyPlayer, LobbyStatus, KIND_LOBBY};

/// Addressable kind of a table announcement (`d` tag = table id).
pub const KIND_TABLE: u16 = 37767;
/// Regular kind of every game-log event, for every game.
pub const KIND_LOG: u16 = 7767;
/// Ephemeral kind of a seat's heartbeat at a table (NIP-01: relays pass it on, never store
/// it). Not part of the log: it only tells people who is still connected.
pub const KIND_PRESENCE: u16 = 27767;
/// Schema version of table announcements and log payloads. Version 1 tables (one session per
/// game family) are refused with a message saying so.
pub const VERSION: u8 = 11;
/// Versions this client reads: version 4 tables are version 5 without a return allowance,
/// version 5 tables version 6 without table keys, version 6 tables version 7 with every
/// shuffle of the deck prepared ahead checked as it arrives, version 7 tables version 8
/// with Perudo's and Mia's cups rolled after the count rather than with the opening or the toss,
/// version 8 tables version 9 with no tokens on moves, and version 9 tables version 10 with
/// each shuffle of a batch's own deck checked as it arrives, and version 10 tables version 11
/// with Tolerance's next hand dealt in a pass of its own rather than with the showdown
/// (PROTOCOL.md §10.1): each judged by its own rules, so they still verify and resume.
pub const READS: [u8; 8] = [4, 5, 6, 7, 8, 9, 10, 11];
/// The first version whose moves carry their mover's tokens for the cards they show (§5.4).
pub const TOKENS_ON_MOVES_SINCE: u8 = 9;
/// The first version whose batches check the shuffles of their own decks together, when the
/// last one is in, and remove every seat whose shuffle fails (§5.9).
pub const SHUFFLES_CHECKED_TOGETHER_SINCE: u8 = 10;
/// The first version whose lobby players may hold their seats by table keys (§2.3).
pub const TABLE_KEYS_SINCE: u8 = 6;
/// Largest event we publish or accept (strfry's default limit).
pub const MAX_EVENT_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("event {id} is {size} bytes, over the {MAX_EVENT_BYTES}-byte limit")]
    TooLarge { id: String, size: usize },
    #[error("event {id} has kind {kind}, expected {expected}")]
    WrongKind {
        id: String,
        kind: u16,
        expected: u16,
    },
    #[error("event {id} has a bad signature or id")]
    BadSignature { id: String },
    #[error("event {id}: malformed payload: {reason}")]
    Malformed { id: String, reason: String },
    #[error(
        "event {id} is of protocol version {got}: it was made by {}; this client plays tables of versions 4 to {VERSION} only",
        if *got < VERSION { "an older version of tolerance" } else { "a newer version of tolerance" }
    )]
    Version { id: String, got: u8 },
    #[error("table announcement {id}: the seat key {key}: {reason}")]
    Authorization {
        id: String,
        key: String,
        reason: Box<auth::AuthError>,
    },
    #[error("event {id} belongs to table {got}, not {want}")]
    OtherTable {
        id: String,
        got: String,
        want: String,
    },
}

/// Deadlines every client applies (milliseconds after the step opened, in the log's time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deadlines {
    /// A betting or roll decision.
    pub move_ms: u64,
    /// A crypto step (keys, shuffle, tokens, dice values, showdown reveals).
    pub crypto_ms: u64,
    /// Each seat's time bank for the whole table: a move may run this much past `move_ms` in
    /// all; what a seat uses is gone for the rest of the table (`protocol/PROTOCOL.md` §7.1).
    #[serde(default, skip_serializing_if = "is_default")]
    pub bank_ms: u64,
    /// How long past a step's deadline an event may still be on its way through relays that
    /// throttle or reconnect: votes count only from the deadline plus this, so an honest seat
    /// held back that long is never judged absent (`protocol/PROTOCOL.md` §7.2).
    pub relay_ms: u64,
    /// How long a table that fewer than two seats are dealt into waits for a seat sitting out
    /// (a crash, a dropped link) to come back before it ends (§7.10); 0: it ends at once, as
    /// version 4 tables do.
    #[serde(default, skip_serializing_if = "is_default")]
    pub return_ms: u64,
}

/// serde's `skip_serializing_if` that leaves a field out at its type's default (0, false); with
/// `#[serde(default)]` it reads back as the same value. In events this is how a field added after
/// the first version keeps older events meaning what they meant.
pub fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl Default for Deadlines {
    fn default() -> Self {
        Pace::Normal.deadlines()
    }
}

/// A table's timing profile, chosen by the host and shown in the lobby.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Like an online card room: 15 s a move, a 30 s time bank.
    Fast,
    /// A minute a move and two minutes of bank.
    Normal,
    /// Hours a step: players come back to the table when they can.
    Correspondence,
}

impl Pace {
    pub const ALL: [Pace; 3] = [Pace::Fast, Pace::Normal, Pace::Correspondence];

    pub fn name(self) -> &'static str {
        match self {
            Pace::Fast => "fast",
            Pace::Normal => "normal",
            Pace::Correspondence => "correspondence",
        }
    }

    pub fn parse(s: &str) -> Result<Pace, String> {
        Pace::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("'{s}' is not a pace: choose fast, normal or correspondence"))
    }

    pub fn deadlines(self) -> Deadlines {
        let (move_ms, crypto_ms, bank_ms, relay_ms, return_ms) = match self {
            Pace::Fast => (15_000, 20_000, 30_000, 20_000, 120_000),
            Pace::Normal => (60_000, 30_000, 120_000, 30_000, 300_000),
            Pace::Correspondence => (
                12 * 3_600_000,
                12 * 3_600_000,
                0,
                3_600_000,
                2 * 24 * 3_600_000,
            ),
        };
        Deadlines {
            move_ms,
            crypto_ms,
            bank_ms,
            relay_ms,
            return_ms,
        }
    }
}

impl Deadlines {
    /// The profile these deadlines are, if they are one.
    pub fn pace(&self) -> Option<Pace> {
        Pace::ALL.into_iter().find(|p| p.deadlines() == *self)
    }

    /// For a person: "fast (15 s a move, 30 s time bank)".
    pub fn words(&self) -> String {
        let secs = |ms: u64| {
            let s = ms.div_ceil(1000);
            if s >= 3600 && s.is_multiple_of(3600) {
                format!("{} h", s / 3600)
            } else if s >= 60 && s.is_multiple_of(60) {
                format!("{} min", s / 60)
            } else {
                format!("{s} s")
            }
        };
        let mut what = format!("{} a move", secs(self.move_ms));
        if self.bank_ms > 0 {
            what.push_str(&format!(", {} time bank", secs(self.bank_ms)));
        }
        match self.pace() {
            Some(p) => format!("{} ({what})", p.name()),
            None => what,
        }
    }
}

/// The table announcement (content of the [`KIND_TABLE`] event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub v: u8,
    /// The game's registry name ("tolerance", "perudo", "high-card", ...).
    pub game: String,
    /// 32-byte table id, hex; also the `d` tag and the genesis of the chain.
    pub table: String,
    /// The game's setup (its variant, rules, number of hands...) as that game reads it.
    pub setup: serde_json::Value,
    /// Seated players' x-only public keys (hex), by seat number.
    pub seats: Vec<String>,
    pub deadlines: Deadlines,
    /// Present for tables whose players found each other in a lobby (`tolerance host`); absent
    /// when the host seated known keys directly (`tolerance demo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lobby: Option<Lobby>,
    /// NIP-13 proof of work (leading zero bits of the id) every event of this table carries:
    /// the most any of its relays asks for, fixed before the first event because a log event
    /// cannot be mined again without forking the chain. 0 (and absent) when none.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pow: u8,
}

/// The most proof of work a table may ask for. Each bit doubles the work: at 24 bits one event
/// takes ~16.8 million hashes, seconds of one core on a laptop, and a table signs hundreds.
pub const MAX_TABLE_POW: u8 = 24;

impl TableSpec {
    /// Whether the seats are fixed and the game can run.
    pub fn is_seated(&self) -> bool {
        self.lobby
            .as_ref()
            .is_none_or(|l| l.status == LobbyStatus::Seated)
    }

    /// The table id as bytes (checked when the announcement was parsed).
    pub fn id(&self) -> [u8; 32] {
        hex::decode(&self.table)
            .ok()
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0; 32])
    }

    /// Who holds each seat, by seat number: the identity that authorized its table key (§2.3),
    /// else the seat key itself. Authorizations were checked when the announcement was parsed.
    pub fn identities(&self) -> Vec<PublicKey> {
        self.seat_keys()
            .iter()
            .map(|k| self.identity_of(k))
            .collect()
    }

    /// The identity behind a seat key: the author of its listed authorization, else itself.
    pub fn identity_of(&self, key: &PublicKey) -> PublicKey {
        self.lobby.as_ref().map_or(*key, |l| l.identity_of(key))
    }

    /// The seat keys, by seat number.
    pub fn seat_keys(&self) -> Vec<PublicKey> {
        self.seats
            .iter()
            .filter_map(|s| PublicKey::from_hex(s).ok())
            .collect()
    }
}

/// Filter for `host`'s announcements of `table` (every version; the newest is the table).
pub fn announcement_filter(host: &PublicKey, table: &str) -> Filter {
    Filter::new()
        .kind(Kind::from(KIND_TABLE))
        .author(*host)
        .identifier(table)
}

/// The table's coordinate, for `a` tags and filters.
pub fn table_coordinate(host: &PublicKey, table: &str) -> Coordinate {
    Coordinate::new(Kind::from(KIND_TABLE), *host).identifier(table)
}

/// The table as a NIP-19 `naddr` (coordinate plus relay hints), for people to share.
pub fn table_naddr(host: &PublicKey, table: &str, relays: &[String]) -> String {
    let relays: Vec<RelayUrl> = relays
        .iter()
        .filter_map(|r| RelayUrl::parse(r).ok())
        .collect();
    Nip19Coordinate::new(table_coordinate(host, table), relays)
        .to_bech32()
        .expect("a coordinate always encodes")
}

/// A table a person named: 64 hex digits (the id) or an `naddr1…` of a table announcement.
/// Returns the id, the host when the naddr names it, and the naddr's relay hints.
pub fn parse_table_ref(text: &str) -> Result<(String, Option<PublicKey>, Vec<String>), String> {
    let t = text.trim();
    if t.len() == 64 && hex::decode(t).is_ok() {
        return Ok((t.to_ascii_lowercase(), None, Vec::new()));
    }
    let c = Nip19Coordinate::from_bech32(t).map_err(|e| {
        if t.starts_with("naddr1") {
            format!(
                "'{t}' is not a valid naddr ({e}): a character may have been mistyped or cut off"
            )
        } else {
            format!("'{t}' is not a table: give its 64-hex id or an naddr1…")
        }
    })?;
    if c.kind != Kind::from(KIND_TABLE) {
        return Err(format!(
            "'{t}' names a kind {} event, not a table (kind {KIND_TABLE})",
            c.kind.as_u16()
        ));
    }
    let id = c.identifier.clone();
    if id.len() != 64 || hex::decode(&id).is_err() {
        return Err(format!(
            "'{t}' names table '{id}', which is not a 64-hex id"
        ));
    }
    Ok((
        id,
        Some(c.public_key),
        c.relays.iter().map(|r| r.to_string()).collect(),
    ))
}

/// Filter for a table's whole log, from its seated authors only: events of other keys are
/// never even fetched, so strangers can neither flood a client nor push the table's own events
/// The current version of an addressable event: the newest, ties broken by the lowest id as
/// relays do.
pub fn latest(events: &[Event]) -> Option<&Event> {
    events
        .iter()
        .max_by(|a, b| a.created_at.cmp(&b.created_at).then(b.id.cmp(&a.id)))
}

/// out of a relay's capped answer.
pub fn log_filter(host: &PublicKey, table: &str, authors: &[PublicKey]) -> Filter {
    let f = Filter::new()
        .kind(Kind::from(KIND_LOG))
        .coordinate(&table_coordinate(host, table));
    if authors.is_empty() {
        f
    } else {
        f.authors(authors.iter().copied())
    }
}

/// A seat's heartbeat at a table: the table's coordinate as its only tag, and as content the
/// correction its client applies to its machine's clock (`{"clock":-3}`, seconds; see
/// `table::clock`).
pub fn presence_event(host: &PublicKey, table: &str, correction: i64) -> EventBuilder {
    EventBuilder::new(
        Kind::from(KIND_PRESENCE),
        serde_json::json!({ "clock": correction }).to_string(),
    )
    .tags([Tag::coordinate(table_coordinate(host, table), None)])
}

/// The clock correction a heartbeat carries, if it says one.
pub fn presence_clock(event: &Event) -> Option<i64> {
    #[derive(Deserialize)]
    struct Beat {
        clock: i64,
    }
    serde_json::from_str::<Beat>(&event.content)
        .ok()
        .map(|b| b.clock)
}

/// The heartbeats of a table's seats.
pub fn presence_filter(host: &PublicKey, table: &str, authors: &[PublicKey]) -> Filter {
    Filter::new()
        .kind(Kind::from(KIND_PRESENCE))
        .coordinate(&table_coordinate(host, table))
        .authors(authors.iter().copied())
}

/// Builds (unsigned) the table announcement.
/// A NIP-14 `subject` tag for a message.
pub fn subject(text: impl Into<String>) -> Tag {
    Tag::from_standardized(TagStandard::Subject(text.into()))
}

pub fn table_event(spec: &TableSpec) -> EventBuilder {
    EventBuilder::new(
        Kind::from(KIND_TABLE),
        serde_json::to_string(spec).expect("specs serialise"),
    )
    .tags(table_tags(spec))
}

fn table_tags(spec: &TableSpec) -> Vec<Tag> {
    let mut tags = vec![
        Tag::identifier(spec.table.clone()),
        Tag::custom(TagKind::custom("game"), [spec.game.clone()]),
    ];
    // Hashtags make open public tables findable with one relay filter.
    if let Some(l) = &spec.lobby {
        tags.push(Tag::hashtag(spec.game.clone()));
        if l.public {
            tags.push(Tag::hashtag(l.status.name()));
        }
        for r in &l.relays {
            if let Ok(u) = RelayUrl::parse(r) {
                tags.push(Tag::relay_metadata(u, None));
            }
        }
        if !l.title.is_empty() {
            tags.push(Tag::title(l.title.clone()));
        }
        // NIP-40: relays may drop a table that never started once its host would have given up.
        if let Some(t) = l.expires {
            tags.push(Tag::expiration(Timestamp::from(t)));
        }
    }
    tags
}

/// Size, kind and signature of an event, before its content is read.
pub(crate) fn check_event(event: &Event, kind: u16) -> Result<(), WireError> {
    let id = event.id.to_hex();
    let size = event.as_json().len();
    if size > MAX_EVENT_BYTES {
        return Err(WireError::TooLarge { id, size });
    }
    if event.kind.as_u16() != kind {
        return Err(WireError::WrongKind {
            id,
            kind: event.kind.as_u16(),
            expected: kind,
        });
    }
    event
        .verify()
        .map_err(|_| WireError::BadSignature { id: id.clone() })?;
    Ok(())
}

/// Every authorization the lobby lists (§2.3): valid for this table and its player's key at the
/// announcement's time, only on a table of a version that has them, and no identity twice.
fn check_authorizations(event: &Event, spec: &TableSpec, l: &Lobby) -> Result<(), WireError> {
    let id = event.id.to_hex();
    let mut identities = std::collections::BTreeSet::new();
    for p in &l.players {
        let key = PublicKey::from_hex(&p.pubkey).map_err(|_| WireError::Malformed {
            id: id.clone(),
            reason: format!("lobby player {} is not a public key", p.pubkey),
        })?;
        let who = match &p.auth {
            None => key,
            Some(_) if spec.v < TABLE_KEYS_SINCE => {
                return Err(WireError::Malformed {
                    id,
                    reason: format!(
                        "a table key on a version {} table (they came with version \
                         {TABLE_KEYS_SINCE})",
                        spec.v
                    ),
                })
            }
            Some(a) => auth::check_auth(
                a,
                &event.pubkey,
                &spec.table,
                &key,
                event.created_at.as_secs(),
            )
            .map_err(|reason| WireError::Authorization {
                id: id.clone(),
                key: key.to_bech32().unwrap_or_else(|_| key.to_hex()),
                reason: Box::new(reason),
            })?,
        };
        if !identities.insert(who) {
            return Err(WireError::Malformed {
                id,
                reason: format!(
                    "{} holds two places at the table (one person, one seat)",
                    who.to_bech32().unwrap_or_else(|_| who.to_hex())
                ),
            });
        }
    }
    Ok(())
}

/// Parses and checks a table announcement. The game's own setup is checked by the game
/// (`crate::games::registry`); here only what every table shares.
pub fn parse_table(event: &Event) -> Result<TableSpec, WireError> {
    check_event(event, KIND_TABLE)?;
    let id = event.id.to_hex();
    #[derive(Deserialize)]
    struct Versioned {
        v: u8,
    }
    if let Ok(Versioned { v }) = serde_json::from_str::<Versioned>(&event.content) {
        if !READS.contains(&v) {
            return Err(WireError::Version { id, got: v });
        }
    }
    let spec: TableSpec =
        serde_json::from_str(&event.content).map_err(|e| WireError::Malformed {
            id: id.clone(),
            reason: e.to_string(),
        })?;
    let malformed = |reason: String| WireError::Malformed {
        id: id.clone(),
        reason,
    };
    if spec.game.is_empty()
        || spec.game.len() > 32
        || !spec
            .game
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(malformed(format!("'{}' is not a game name", spec.game)));
    }
    if event.tags.identifier() != Some(spec.table.as_str()) {
        return Err(malformed("the d tag differs from the table id".into()));
    }
    if hex::decode(&spec.table).map(|b| b.len()) != Ok(32) {
        return Err(malformed("table id is not 32 bytes of hex".into()));
    }
    if spec.deadlines.move_ms < 1000 || spec.deadlines.crypto_ms < 1000 {
        return Err(malformed("deadlines shorter than a second".into()));
    }
    if spec.v < 5 && spec.deadlines.return_ms > 0 {
        return Err(malformed(
            "a return allowance on a version 4 table (it came with version 5)".into(),
        ));
    }
    if spec.pow > MAX_TABLE_POW {
        return Err(malformed(format!(
            "the table asks for proof of work of {} bits on every event; this client mines at \
             most {MAX_TABLE_POW}",
            spec.pow
        )));
    }
    // A week per step is past any correspondence game; beyond it a host could park a table's
    // clients for ever.
    let week = 7 * 24 * 3_600_000;
    if [
        spec.deadlines.move_ms,
        spec.deadlines.crypto_ms,
        spec.deadlines.bank_ms,
        spec.deadlines.relay_ms,
        spec.deadlines.return_ms,
    ]
    .iter()
    .any(|ms| *ms > week)
    {
        return Err(malformed(
            "a deadline, time bank, relay or return allowance longer than a week".into(),
        ));
    }
    if let Some(l) = &spec.lobby {
        if l.min_players < 2 || l.min_players > l.max_players {
            return Err(malformed(format!(
                "lobby wants {}..={} players",
                l.min_players, l.max_players
            )));
        }
        if l.players.len() > l.max_players as usize {
            return Err(malformed("more lobby players than seats".into()));
        }
        for p in &l.players {
            PublicKey::from_hex(&p.pubkey)
                .map_err(|_| malformed(format!("lobby player {} is not a public key", p.pubkey)))?;
        }
        if l.players.first().map(|p| p.pubkey.as_str()) != Some(event.pubkey.to_hex().as_str()) {
            return Err(malformed("the host is not the lobby's first player".into()));
        }
        check_authorizations(event, &spec, l)?;
    }
    if !spec.is_seated() {
        if !spec.seats.is_empty() {
            return Err(malformed("seats are listed before the lobby closed".into()));
        }
        return Ok(spec);
    }
    if spec.seats.len() < 2 || spec.seats.len() > 64 {
        return Err(malformed(format!("{} seats", spec.seats.len())));
    }
    let mut seen = std::collections::BTreeSet::new();
    for s in &spec.seats {
        PublicKey::from_hex(s)
            .map_err(|_| malformed(format!("seat key {s} is not a public key")))?;
        if !seen.insert(s) {
            return Err(malformed("one key holds two seats".into()));
        }
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(keys: &[Keys]) -> TableSpec {
        TableSpec {
            pow: 0,
            v: VERSION,
            game: "tolerance".into(),
            table: hex::encode([7u8; 32]),
            setup: serde_json::json!({"hands": 1}),
            seats: keys.iter().map(|k| k.public_key().to_hex()).collect(),
            deadlines: Deadlines::default(),
            lobby: None,
        }
    }

    #[test]
    fn tables_are_named_by_hex_or_naddr() {
        let host = Keys::generate().public_key();
        let id = hex::encode([9u8; 32]);
        let naddr = table_naddr(&host, &id, &["ws://127.0.0.1:7447".into()]);
        assert!(naddr.starts_with("naddr1"));
        let (got, h, relays) = parse_table_ref(&naddr).unwrap();
        assert_eq!((got.as_str(), h), (id.as_str(), Some(host)));
        assert_eq!(relays.len(), 1);
        assert_eq!(parse_table_ref(&id).unwrap().0, id);
        assert!(parse_table_ref("1234").unwrap_err().contains("not a table"));
        let mut typo = naddr.clone();
        typo.pop();
        typo.push(if naddr.ends_with('q') { 'p' } else { 'q' });
        assert!(parse_table_ref(&typo).unwrap_err().contains("mistyped"));
    }

    #[test]
    fn table_announcements_are_checked() {
        let keys: Vec<Keys> = (0..3).map(|_| Keys::generate()).collect();
        let s = spec(&keys);
        let ev = table_event(&s).sign_with_keys(&keys[0]).unwrap();
        assert_eq!(parse_table(&ev).unwrap(), s);
        let mut bad = s.clone();
        bad.seats[1] = "zz".into();
        let ev = table_event(&bad).sign_with_keys(&keys[0]).unwrap();
        assert!(parse_table(&ev)
            .unwrap_err()
            .to_string()
            .contains("not a public key"));
        let mut twice = s.clone();
        twice.seats[1] = twice.seats[0].clone();
        let ev = table_event(&twice).sign_with_keys(&keys[0]).unwrap();
        assert!(parse_table(&ev)
            .unwrap_err()
            .to_string()
            .contains("two seats"));
    }

    #[test]
    fn a_version_1_table_is_refused_with_a_reason() {
        let keys = Keys::generate();
        let old = serde_json::json!({"v": 1, "game": "tolerance", "table": hex::encode([1u8; 32]),
            "variant": {}, "seats": [], "hands": 1, "deadlines": {"move_ms": 1000, "crypto_ms": 1000}});
        let ev = EventBuilder::new(Kind::from(KIND_TABLE), old.to_string())
            .tags([Tag::identifier(hex::encode([1u8; 32]))])
            .sign_with_keys(&keys)
            .unwrap();
        let e = parse_table(&ev).unwrap_err().to_string();
        assert!(e.contains("older version of tolerance"), "{e}");
    }
}
