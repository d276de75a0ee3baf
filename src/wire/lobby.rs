//! Lobby events: how strangers sit down at a table before its first hand.
//!
//! The host's table announcement ([`super::KIND_TABLE`]) carries a [`Lobby`] while seats are
//! open. A player asks for a seat with a [`KIND_LOBBY`] `join` event that commits to a random
//! nonce; when the host closes the lobby (seats full, or it starts early) it lists the players
//! and their commitments (`starting`); every listed player then reveals its nonce; the seating
//! order is a hash of all nonces, so nobody — host included — can steer it, and a player who
//! withholds its nonce can only make the table cancel, by name. The host republishes the
//! announcement as `seated` with the seats in that order, and every client checks the order
//! against the reveals before it plays ([`check_seating`]).

use super::{table_coordinate, TableSpec, WireError, KIND_TABLE};

/// Version of lobby messages (unchanged since version 1 tables).
pub const LOBBY_VERSION: u8 = 1;
use nostr::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// Regular kind of lobby messages (join requests and seating reveals).
pub const KIND_LOBBY: u16 = 7768;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LobbyStatus {
    /// Taking join requests.
    Open,
    /// Closed to new players; the listed players reveal their seating nonces.
    Starting,
    /// Seats fixed (`TableSpec::seats`); the game runs.
    Seated,
    /// Will never start (`reason` says why).
    Cancelled,
}

impl LobbyStatus {
    pub fn name(self) -> &'static str {
        match self {
            LobbyStatus::Open => "open",
            LobbyStatus::Starting => "starting",
            LobbyStatus::Seated => "seated",
            LobbyStatus::Cancelled => "cancelled",
        }
    }
}

/// A player taking part, with the commitment to its seating nonce.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LobbyPlayer {
    pub pubkey: String,
    pub commit: String,
    /// The identity's authorization of `pubkey` as a table key (§2.3), as its join carried it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Box<Event>>,
}

impl LobbyPlayer {
    /// The person in this place: the identity that authorized its key (§2.3), else the key
    /// itself; `None` for a key that is not one.
    pub fn identity(&self) -> Option<PublicKey> {
        match &self.auth {
            Some(a) => Some(a.pubkey),
            None => PublicKey::from_hex(&self.pubkey).ok(),
        }
    }
}

impl Lobby {
    /// The identity behind a listed key: the author of its listed authorization, else the key.
    pub fn identity_of(&self, key: &PublicKey) -> PublicKey {
        self.players
            .iter()
            .find(|p| p.pubkey == key.to_hex())
            .and_then(|p| p.auth.as_ref())
            .map_or(*key, |a| a.pubkey)
    }
}

/// The lobby part of a table announcement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lobby {
    pub status: LobbyStatus,
    pub title: String,
    /// Anyone may join (`false`: only invited keys; the invitations are private messages).
    pub public: bool,
    pub min_players: u8,
    pub max_players: u8,
    /// Relays the table runs on.
    pub relays: Vec<String>,
    /// Host first, then accepted players in the order they joined. While `open` only the host.
    pub players: Vec<LobbyPlayer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Seating round: the host reopens the lobby (one round more) when a listed player did not
    /// reveal its nonce in time; every player still listed then commits to a fresh nonce, so
    /// nobody can choose a nonce knowing the others' revealed ones.
    #[serde(default, skip_serializing_if = "super::is_default")]
    pub round: u32,
    /// Proof of work (NIP-13 difficulty) a join request must carry, for public tables that
    /// strangers could flood with throwaway keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_pow: Option<u8>,
    /// NIP-40: when an open table that never started is gone (unix seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
}

/// Content of a [`KIND_LOBBY`] event. (serde cannot refuse unknown fields next to a flattened
/// enum; `v` versions the schema.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyMsg {
    pub v: u8,
    pub table: String,
    #[serde(flatten)]
    pub body: LobbyBody,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum LobbyBody {
    /// Asks for a seat, committing to a seating nonce; `auth`: the identity's authorization of
    /// the signing key when it is a table key (§2.3).
    Join {
        commit: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        auth: Option<Box<Event>>,
    },
    /// Opens the seating nonce once the host listed the players.
    Reveal { nonce: String },
    /// Withdraws a join request before the lobby closes.
    Leave {},
}

/// Commitment to a seating nonce, bound to the table and the player.
pub fn seat_commit(table: &str, player: &PublicKey, nonce: &[u8; 32]) -> String {
    let mut h = Sha256::new();
    h.update(b"tolerance/seat-commit/v1");
    h.update(table.as_bytes());
    h.update(player.to_bytes());
    h.update(nonce);
    hex::encode(h.finalize())
}

/// The seating order: players sorted by `sha256(seed ‖ key)` where the seed hashes every
/// player's nonce in the listed order. Every nonce was committed before any was revealed.
pub fn seating(table: &str, players: &[(PublicKey, [u8; 32])]) -> Vec<PublicKey> {
    let mut seed = Sha256::new();
    seed.update(b"tolerance/seating/v1");
    seed.update(table.as_bytes());
    for (pk, nonce) in players {
        seed.update(pk.to_bytes());
        seed.update(nonce);
    }
    let seed = seed.finalize();
    let mut keyed: Vec<([u8; 32], PublicKey)> = players
        .iter()
        .map(|(pk, _)| {
            let mut h = Sha256::new();
            h.update(seed);
            h.update(pk.to_bytes());
            (h.finalize().into(), *pk)
        })
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, pk)| pk).collect()
}

/// Builds (unsigned) a lobby message addressed to `host`'s table.
pub fn lobby_event(host: &PublicKey, msg: &LobbyMsg) -> EventBuilder {
    EventBuilder::new(
        Kind::from(KIND_LOBBY),
        serde_json::to_string(msg).expect("lobby messages serialise"),
    )
    .tags([
        Tag::coordinate(table_coordinate(host, &msg.table), None),
        Tag::public_key(*host),
    ])
}

/// Filter for a table's lobby messages.
pub fn lobby_filter(host: &PublicKey, table: &str) -> Filter {
    Filter::new()
        .kind(Kind::from(KIND_LOBBY))
        .coordinate(&table_coordinate(host, table))
}

/// Filter for open public tables of every game (values of one tag filter are alternatives, so
/// the game is checked on the parsed announcement).
pub fn open_tables_filter() -> Filter {
    Filter::new()
        .kind(Kind::from(KIND_TABLE))
        .hashtag(LobbyStatus::Open.name())
}

/// The tables among `events` (answers to [`open_tables_filter`]) that still take anyone: each
/// host's newest announcement of each table, read and checked, open, public and not expired
/// at `now` (Unix seconds; relays need not delete expired events, NIP-40). Oldest first.
pub fn open_public_tables(events: &[Event], now: u64) -> Vec<(Event, TableSpec)> {
    let mut out: Vec<(Event, TableSpec)> = newest_announcements(events)
        .into_iter()
        .filter(|(_, spec)| {
            spec.lobby.as_ref().is_some_and(|l| {
                l.status == LobbyStatus::Open && l.public && l.expires.is_none_or(|t| t > now)
            })
        })
        .collect();
    out.sort_by_key(|(ev, _)| (ev.created_at, ev.id));
    out
}

/// The tables a private message names (its `a` tags for table announcements): what makes it
/// an invitation, for the terminal's lobby and the page's alike.
pub fn invited_tables(tags: &Tags) -> Vec<Coordinate> {
    tags.iter()
        .filter_map(|t| match t.as_standardized() {
            Some(TagStandard::Coordinate { coordinate, .. }) => Some(coordinate.clone()),
            _ => None,
        })
        .filter(|c| c.kind == Kind::from(KIND_TABLE))
        .collect()
}

/// Each host's newest announcement of each table among `events`, read and checked; any status.
pub fn newest_announcements(events: &[Event]) -> Vec<(Event, TableSpec)> {
    let mut newest: BTreeMap<(PublicKey, String), (Event, TableSpec)> = BTreeMap::new();
    for ev in events {
        let Ok(spec) = super::parse_table(ev) else {
            continue;
        };
        let k = (ev.pubkey, spec.table.clone());
        let keep = newest
            .get(&k)
            .is_none_or(|(old, _)| super::latest(&[old.clone(), ev.clone()]) == Some(ev));
        if keep {
            newest.insert(k, (ev.clone(), spec));
        }
    }
    newest.into_values().collect()
}

/// Parses and checks a lobby message of `table`.
pub fn parse_lobby(event: &Event, table: &str) -> Result<LobbyMsg, WireError> {
    super::check_event(event, KIND_LOBBY)?;
    let id = event.id.to_hex();
    let msg: LobbyMsg = serde_json::from_str(&event.content).map_err(|e| WireError::Malformed {
        id: id.clone(),
        reason: e.to_string(),
    })?;
    if msg.v != LOBBY_VERSION {
        return Err(WireError::Version { id, got: msg.v });
    }
    if msg.table != table {
        return Err(WireError::OtherTable {
            id,
            got: msg.table,
            want: table.to_string(),
        });
    }
    let hex32 = |s: &str| hex::decode(s).map(|b| b.len() == 32).unwrap_or(false);
    let ok = match &msg.body {
        LobbyBody::Join { commit, .. } => hex32(commit),
        LobbyBody::Reveal { nonce } => hex32(nonce),
        LobbyBody::Leave {} => true,
    };
    if !ok {
        return Err(WireError::Malformed {
            id,
            reason: "a commitment or nonce is not 32 bytes of hex".into(),
        });
    }
    Ok(msg)
}

/// The nonces revealed for `spec`'s listed players, checked against their commitments. Reveals
/// that do not open their commitment are ignored (and reported by name).
pub fn collect_reveals(
    spec: &TableSpec,
    events: &[Event],
) -> (BTreeMap<String, [u8; 32]>, Vec<String>) {
    let mut got = BTreeMap::new();
    let mut bad = Vec::new();
    let Some(lobby) = &spec.lobby else {
        return (got, bad);
    };
    for ev in events {
        let Ok(msg) = parse_lobby(ev, &spec.table) else {
            continue;
        };
        let LobbyBody::Reveal { nonce } = msg.body else {
            continue;
        };
        let who = ev.pubkey.to_hex();
        let Some(p) = lobby.players.iter().find(|p| p.pubkey == who) else {
            continue;
        };
        let nonce: [u8; 32] = hex::decode(&nonce)
            .expect("checked")
            .try_into()
            .expect("checked");
        if seat_commit(&spec.table, &ev.pubkey, &nonce) == p.commit {
            got.insert(who, nonce);
        } else {
            bad.push(who);
        }
    }
    (got, bad)
}

/// The seats `spec`'s players reach from these reveals, or who has not revealed yet.
pub fn seats_from_reveals(
    spec: &TableSpec,
    reveals: &BTreeMap<String, [u8; 32]>,
) -> Result<Vec<String>, Vec<String>> {
    let Some(lobby) = &spec.lobby else {
        return Ok(spec.seats.clone());
    };
    let mut players = Vec::new();
    let mut missing = Vec::new();
    for p in &lobby.players {
        match (reveals.get(&p.pubkey), PublicKey::from_hex(&p.pubkey)) {
            (Some(n), Ok(pk)) => players.push((pk, *n)),
            _ => missing.push(p.pubkey.clone()),
        }
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    Ok(seating(&spec.table, &players)
        .iter()
        .map(|pk| pk.to_hex())
        .collect())
}

/// Why a seating did not check out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatingFault {
    /// Some player's nonce is not among the events: it may still be on its way (a relay that
    /// reorders or delivers late), so a caller that can wait should fetch again.
    Missing(String),
    /// The seats do not follow from the nonces, or the table is not seated: final.
    Wrong(String),
}

impl SeatingFault {
    pub fn words(&self) -> &str {
        match self {
            SeatingFault::Missing(w) | SeatingFault::Wrong(w) => w,
        }
    }
}

/// Checks a `seated` announcement against the lobby's reveals: the host cannot choose the order.
pub fn check_seating(spec: &TableSpec, events: &[Event]) -> Result<(), SeatingFault> {
    let Some(lobby) = &spec.lobby else {
        return Ok(());
    };
    if lobby.status != LobbyStatus::Seated {
        return Err(SeatingFault::Wrong(format!(
            "table {} is {}, not seated",
            spec.table,
            lobby.status.name()
        )));
    }
    check_listed_authorizations(spec, lobby, events)?;
    let (reveals, _) = collect_reveals(spec, events);
    let seats = seats_from_reveals(spec, &reveals).map_err(|missing| {
        SeatingFault::Missing(format!(
            "the seating of table {} cannot be checked: no valid nonce from {}",
            spec.table,
            missing.join(", ")
        ))
    })?;
    if seats != spec.seats {
        return Err(SeatingFault::Wrong(format!(
            "the host's seat order for table {} does not follow from the players' nonces",
            spec.table
        )));
    }
    Ok(())
}

/// A player whose join request carried an authorization must be listed with it, and a player
/// listed with one must have asked with it: a host that dropped or swapped it would hide who
/// sits there, and one that added an authorization by an identity of its own making would
/// name the player's seat after that identity (§2.3). The host (listed first) has no join
/// request: its own authorization is in the announcement it signs.
fn check_listed_authorizations(
    spec: &TableSpec,
    lobby: &Lobby,
    events: &[Event],
) -> Result<(), SeatingFault> {
    for p in lobby.players.iter().skip(1) {
        let claimed: Vec<EventId> = events
            .iter()
            .filter(|ev| ev.pubkey.to_hex() == p.pubkey)
            .filter_map(|ev| match parse_lobby(ev, &spec.table) {
                Ok(LobbyMsg {
                    body: LobbyBody::Join { auth: Some(a), .. },
                    ..
                }) => Some(a.id),
                _ => None,
            })
            .collect();
        let key = || {
            PublicKey::from_hex(&p.pubkey)
                .ok()
                .and_then(|k| k.to_bech32().ok())
                .unwrap_or_else(|| p.pubkey.clone())
        };
        match &p.auth {
            None if claimed.is_empty() => {}
            Some(a) if claimed.contains(&a.id) => {}
            None => {
                return Err(SeatingFault::Wrong(format!(
                    "the host listed {} at table {} without the authorization its join request \
                     carried, so whose seat it is would not show",
                    key(),
                    spec.table
                )))
            }
            Some(a) => {
                return Err(SeatingFault::Wrong(format!(
                    "the host listed {} at table {} with an authorization by {} that none of its \
                     join requests carried, naming its seat after someone it never claimed to be",
                    key(),
                    spec.table,
                    a.pubkey.to_bech32().unwrap_or_else(|_| a.pubkey.to_hex())
                )))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seating_depends_on_every_nonce_and_nothing_else() {
        // Fixed keys: with random ones, another table's order matches this one's once in 120
        // runs (five players), and the last check would fail by chance.
        let keys: Vec<PublicKey> = (1..=5u8)
            .map(|i| {
                Keys::new(nostr::prelude::SecretKey::from_slice(&[i; 32]).unwrap()).public_key()
            })
            .collect();
        let nonces: Vec<[u8; 32]> = (0..5u8).map(|i| [i; 32]).collect();
        let players: Vec<(PublicKey, [u8; 32])> =
            keys.iter().copied().zip(nonces.iter().copied()).collect();
        let a = seating("t", &players);
        assert_eq!(a, seating("t", &players), "deterministic");
        let mut sorted_a = a.clone();
        sorted_a.sort();
        let mut sorted_k = keys.clone();
        sorted_k.sort();
        assert_eq!(sorted_a, sorted_k, "a permutation of the players");
        // Changing one nonce (any player) reshuffles: over a few tries the order changes.
        let changed = (1..20u8).any(|x| {
            let mut p = players.clone();
            p[3].1 = [x.wrapping_add(100); 32];
            seating("t", &p) != a
        });
        assert!(changed);
        assert_ne!(seating("other table", &players), a);
    }

    #[test]
    fn lobby_messages_are_checked() {
        let host = Keys::generate();
        let joiner = Keys::generate();
        let table = hex::encode([3u8; 32]);
        let nonce = [9u8; 32];
        let msg = LobbyMsg {
            v: LOBBY_VERSION,
            table: table.clone(),
            body: LobbyBody::Join {
                commit: seat_commit(&table, &joiner.public_key(), &nonce),
                auth: None,
            },
        };
        let ev = lobby_event(&host.public_key(), &msg)
            .sign_with_keys(&joiner)
            .unwrap();
        assert_eq!(parse_lobby(&ev, &table).unwrap(), msg);
        assert!(matches!(
            parse_lobby(&ev, &hex::encode([4u8; 32])),
            Err(WireError::OtherTable { .. })
        ));
        let bad = LobbyMsg {
            v: LOBBY_VERSION,
            table: table.clone(),
            body: LobbyBody::Reveal {
                nonce: "abcd".into(),
            },
        };
        let ev = lobby_event(&host.public_key(), &bad)
            .sign_with_keys(&joiner)
            .unwrap();
        assert!(parse_lobby(&ev, &table)
            .unwrap_err()
            .to_string()
            .contains("32 bytes"));
    }
}
