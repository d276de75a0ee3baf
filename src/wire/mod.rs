//! The table protocol's Nostr events: kinds, tags, versioned JSON payloads and size limits.
//! No I/O. The format is specified in `protocol/PROTOCOL.md` (§Events).
//!
//! Every game event is a regular (stored) event of kind [`KIND_LOG`] whose content is a
//! [`Payload`]; it carries an `a` tag naming the table (`37767:<host>:<table id>`) so one filter
//! fetches a table's whole log, and an `e` tag naming the chain head it builds on. The table
//! itself is announced by an addressable event of kind [`KIND_TABLE`]. Variant proposals are
//! addressable events of kind [`variant::KIND_VARIANT`].

use crate::engine::Seat;
use crate::games::tolerance::{Action, Variant};
use nostr_sdk::prelude::*;
use serde::{Deserialize, Serialize};

pub mod lobby;
pub mod log;
pub mod variant;
pub use lobby::{Lobby, LobbyBody, LobbyMsg, LobbyPlayer, LobbyStatus, KIND_LOBBY};

/// Addressable kind of a table announcement (`d` tag = table id).
pub const KIND_TABLE: u16 = 37767;
/// Regular kind of every game-log event.
pub const KIND_LOG: u16 = 7767;
/// Payload schema version.
pub const VERSION: u8 = 1;
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
    #[error("event {id}: schema version {got}, this client speaks {VERSION}")]
    Version { id: String, got: u8 },
    #[error("event {id} belongs to table {got}, not {want}")]
    OtherTable {
        id: String,
        got: String,
        want: String,
    },
}

/// Deadlines every client applies (milliseconds after it saw the step open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deadlines {
    /// A betting or roll decision.
    pub move_ms: u64,
    /// A crypto step (keys, shuffle, tokens, dice values, showdown reveals).
    pub crypto_ms: u64,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            move_ms: 60_000,
            crypto_ms: 30_000,
        }
    }
}

/// The table announcement (content of the [`KIND_TABLE`] event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub v: u8,
    pub game: String,
    /// 32-byte table id, hex; also the `d` tag and the genesis of the chain.
    pub table: String,
    pub variant: Variant,
    /// Seated players' x-only public keys (hex), by seat number.
    pub seats: Vec<String>,
    /// Hands to play (`None`: until the variant's style ends the table).
    pub hands: Option<u64>,
    pub deadlines: Deadlines,
    /// Present for tables whose players found each other in a lobby (`tolerance host`); absent
    /// when the host seated known keys directly (`tolerance demo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lobby: Option<Lobby>,
    /// The variant of a dice game (Mia: the ranking); absent for Tolerance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
}

/// Games a table can announce. Perudo and Mia run the dice session (§12); `variant` is then
/// unused and `rules` names their variant.
pub const GAMES: [&str; 3] = ["tolerance", "perudo", "mia"];

impl TableSpec {
    /// Whether the seats are fixed and the game can run.
    pub fn is_seated(&self) -> bool {
        self.lobby
            .as_ref()
            .is_none_or(|l| l.status == LobbyStatus::Seated)
    }
}

/// A token for one deck position: `to` is the seat the card is dealt to, `None` for public.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenMsg {
    pub position: u16,
    pub to: Option<Seat>,
    pub token: String,
}

/// A dice value with its Merkle path, base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiceMsg {
    pub slot: u32,
    pub reveal: String,
}

/// What an event says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Body {
    /// Hand start (parallel): key share with ownership proof and commitments, and the dice
    /// commitment for this hand.
    Keys { share: String, dice: String },
    /// Shuffle step (sequential, seats in order). In hand 0 it also carries the shuffler's
    /// dice value for slot 0, which picks the first Dealer.
    Shuffle {
        deck: String,
        proof: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dealer_die: Option<DiceMsg>,
    },
    /// Decryption shares for a batch of cards dealt to other seats (parallel).
    Tokens { batch: u32, tokens: Vec<TokenMsg> },
    /// A game move (sequential). A roll carries the roller's own dice value.
    Move {
        action: Action,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        die: Option<DiceMsg>,
    },
    /// A dice value for a roll another seat asked for (parallel).
    Dice { die: DiceMsg },
    /// Showdown: public tokens for the sender's own cards (parallel).
    Show { tokens: Vec<TokenMsg> },
    /// Table end (parallel): every seated player confirms the final chain head, so the last
    /// hand is pinned by everyone like every earlier one is by the next hand's key shares.
    End {},
    /// A timeout vote: the sender's deadline for the step at `prev` passed without these seats.
    Vote { missing: Vec<Seat> },
    /// Proof of misconduct: the offending signed events, verbatim (or their ids when both would
    /// not fit in one event; relays keep the originals).
    Evidence {
        offender: Seat,
        reason: String,
        events: Vec<String>,
    },
}

/// The content of a [`KIND_LOG`] event. (serde cannot refuse unknown fields next to a
/// flattened enum; the `v` field versions the schema instead.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payload {
    pub v: u8,
    pub table: String,
    pub hand: u64,
    /// Number of the protocol step within the hand this event belongs to (0 = key shares).
    pub step: u32,
    /// Id of the chain head this event builds on (the table id before the first sequential
    /// event of the table).
    pub prev: String,
    #[serde(flatten)]
    pub body: Body,
}

impl Body {
    /// Sequential events advance the chain head; the others attach to it.
    pub fn is_sequential(&self) -> bool {
        matches!(self, Body::Shuffle { .. } | Body::Move { .. })
    }
    pub fn name(&self) -> &'static str {
        match self {
            Body::Keys { .. } => "keys",
            Body::Shuffle { .. } => "shuffle",
            Body::Tokens { .. } => "tokens",
            Body::Move { .. } => "move",
            Body::Dice { .. } => "dice",
            Body::Show { .. } => "show",
            Body::End {} => "end",
            Body::Vote { .. } => "vote",
            Body::Evidence { .. } => "evidence",
        }
    }
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
    let c = Nip19Coordinate::from_bech32(t)
        .map_err(|_| format!("'{t}' is not a table: give its 64-hex id or an naddr1…"))?;
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

/// Filter for a table's whole log.
pub fn log_filter(host: &PublicKey, table: &str) -> Filter {
    Filter::new()
        .kind(Kind::from(KIND_LOG))
        .coordinate(&table_coordinate(host, table))
}

/// Builds (unsigned) a log event.
pub fn log_event(host: &PublicKey, payload: &Payload) -> EventBuilder {
    let mut tags = vec![Tag::coordinate(
        table_coordinate(host, &payload.table),
        None,
    )];
    if let Ok(prev) = EventId::from_hex(&payload.prev) {
        tags.push(Tag::event(prev));
    }
    tags.push(Tag::custom(
        TagKind::custom("hand"),
        [payload.hand.to_string()],
    ));
    EventBuilder::new(
        Kind::from(KIND_LOG),
        serde_json::to_string(payload).expect("payloads serialise"),
    )
    .tags(tags)
}

/// Builds (unsigned) the table announcement.
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

/// Parses and checks a log event of `table`: size, kind, signature, schema.
pub fn parse_log(event: &Event, table: &str) -> Result<Payload, WireError> {
    check_event(event, KIND_LOG)?;
    let id = event.id.to_hex();
    let p: Payload = serde_json::from_str(&event.content).map_err(|e| WireError::Malformed {
        id: id.clone(),
        reason: e.to_string(),
    })?;
    if p.v != VERSION {
        return Err(WireError::Version { id, got: p.v });
    }
    if p.table != table {
        return Err(WireError::OtherTable {
            id,
            got: p.table,
            want: table.to_string(),
        });
    }
    Ok(p)
}

/// Parses and checks a table announcement.
pub fn parse_table(event: &Event) -> Result<TableSpec, WireError> {
    check_event(event, KIND_TABLE)?;
    let id = event.id.to_hex();
    let spec: TableSpec =
        serde_json::from_str(&event.content).map_err(|e| WireError::Malformed {
            id: id.clone(),
            reason: e.to_string(),
        })?;
    if spec.v != VERSION {
        return Err(WireError::Version { id, got: spec.v });
    }
    let malformed = |reason: String| WireError::Malformed {
        id: id.clone(),
        reason,
    };
    if !GAMES.contains(&spec.game.as_str()) {
        return Err(malformed(format!(
            "game '{}' is not one this client plays ({})",
            spec.game,
            GAMES.join(", ")
        )));
    }
    if event.tags.identifier() != Some(spec.table.as_str()) {
        return Err(malformed("the d tag differs from the table id".into()));
    }
    if hex::decode(&spec.table).map(|b| b.len()) != Ok(32) {
        return Err(malformed("table id is not 32 bytes of hex".into()));
    }
    spec.variant
        .validate()
        .map_err(|e| malformed(e.to_string()))?;
    if let Some(l) = &spec.lobby {
        if l.min_players < 2 || l.min_players > l.max_players || l.max_players > spec.variant.seats
        {
            return Err(malformed(format!(
                "lobby wants {}..={} players for a {}-seat variant",
                l.min_players, l.max_players, spec.variant.seats
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
    }
    if !spec.is_seated() {
        if !spec.seats.is_empty() {
            return Err(malformed("seats are listed before the lobby closed".into()));
        }
        return Ok(spec);
    }
    if spec.seats.len() < 2 || spec.seats.len() > spec.variant.seats as usize {
        return Err(malformed(format!(
            "{} seats for a {}-seat variant",
            spec.seats.len(),
            spec.variant.seats
        )));
    }
    for s in &spec.seats {
        PublicKey::from_hex(s)
            .map_err(|_| malformed(format!("seat key {s} is not a public key")))?;
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(keys: &[Keys]) -> TableSpec {
        TableSpec {
            v: VERSION,
            game: "tolerance".into(),
            table: hex::encode([7u8; 32]),
            variant: Variant::default(),
            seats: keys.iter().map(|k| k.public_key().to_hex()).collect(),
            hands: Some(1),
            deadlines: Deadlines::default(),
            lobby: None,
            rules: None,
        }
    }

    #[test]
    fn payloads_round_trip_and_reject_tampering() {
        let host = Keys::generate();
        let p = Payload {
            v: VERSION,
            table: hex::encode([7u8; 32]),
            hand: 3,
            step: 9,
            prev: hex::encode([1u8; 32]),
            body: Body::Move {
                action: Action::Raise { to: 40 },
                die: None,
            },
        };
        let ev = log_event(&host.public_key(), &p)
            .sign_with_keys(&host)
            .unwrap();
        assert_eq!(parse_log(&ev, &p.table).unwrap(), p);
        assert!(matches!(
            parse_log(&ev, &hex::encode([8u8; 32])),
            Err(WireError::OtherTable { .. })
        ));
        let mut forged = ev.clone();
        forged.content = forged.content.replace("40", "41");
        assert!(matches!(
            parse_log(&forged, &p.table),
            Err(WireError::BadSignature { .. })
        ));
        let bad = EventBuilder::new(Kind::from(KIND_LOG), "{\"v\":1}")
            .sign_with_keys(&host)
            .unwrap();
        assert!(matches!(
            parse_log(&bad, &p.table),
            Err(WireError::Malformed { .. })
        ));
        let big = EventBuilder::new(Kind::from(KIND_LOG), "x".repeat(MAX_EVENT_BYTES))
            .sign_with_keys(&host)
            .unwrap();
        assert!(matches!(
            parse_log(&big, &p.table),
            Err(WireError::TooLarge { .. })
        ));
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
        assert!(parse_table_ref("naddr1bogus")
            .unwrap_err()
            .contains("not a table"));
        assert!(parse_table_ref("1234").is_err());
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
    }
}
