//! The browser page's core: what the page shows and checks, computed by the same Rust core the
//! terminal runs (the game registry, the wire format, signatures, profile names), built for
//! `wasm32-unknown-unknown`.
//!
//! The page's JavaScript only moves bytes: it opens the WebSockets, sends the requests this
//! module builds and hands back every event a relay sent. Whether an event is signed by whom it
//! says, whether it is the table the link names and what it means are decided here, so a relay
//! or a script on the wire cannot make the page show a table nobody announced.
//!
//! Every function takes and returns JSON text; an error is a sentence for the person.

pub mod bench;
pub mod feedback;
pub mod host;
pub mod inbox;
pub mod key;
pub mod mine;
mod private;
pub mod seat;
pub mod signer;

use nostr::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};
use tolerance::games::registry;
use tolerance::wire::{self, names, LobbyStatus, TableSpec, KIND_TABLE, MAX_EVENT_BYTES};
use wasm_bindgen::prelude::*;

/// Most events the page reads from one answer: more than any table announcement or profile
/// query needs, few enough that a flooding relay cannot make the page parse without end.
const MAX_EVENTS: usize = 500;

/// The registered games, in the registry's order: `[{name, title, summary, min_players,
/// max_players}]`.
#[wasm_bindgen]
pub fn games() -> String {
    serde_json::to_string(&registry::all()).expect("game infos serialize")
}

/// The games a table can be hosted for from the page, with their built-in variants:
/// `[{name, title, min_players, max_players, variants}]`.
#[wasm_bindgen]
pub fn host_games() -> String {
    let games: Vec<Value> = registry::all()
        .into_iter()
        .map(|g| {
            json!({
                "name": g.name,
                "title": g.title,
                "min_players": g.min_players.max(2),
                "max_players": g.max_players,
                "variants": g.variants,
            })
        })
        .filter(|g| g["max_players"].as_u64() >= Some(2))
        .collect();
    json!(games).to_string()
}

/// What the page asks relays for to open a table a person named (an `naddr1…`, or a 64-hex id
/// with `default_relays`): `{table, host, relays, filter}`, `filter` being a NIP-01 filter.
#[wasm_bindgen]
pub fn open_table(text: &str, default_relays: &str) -> Result<String, JsError> {
    open_table_json(text, default_relays).map_err(|e| JsError::new(&e))
}

fn open_table_json(text: &str, default_relays: &str) -> Result<String, String> {
    let text = text
        .trim()
        .trim_start_matches('#')
        .trim_start_matches("nostr:");
    if text.is_empty() {
        return Err("name a table: paste its naddr1… link".into());
    }
    let (table, host, mut relays) = wire::parse_table_ref(text)?;
    if relays.is_empty() {
        relays = serde_json::from_str::<Vec<String>>(default_relays).unwrap_or_default();
    }
    let relays = checked_relays(relays)?;
    let mut filter = Filter::new()
        .kind(Kind::from(KIND_TABLE))
        .identifier(&table);
    if let Some(h) = host {
        filter = filter.author(h);
    }
    Ok(json!({
        "table": table,
        "host": host.map(|h| h.to_hex()),
        "relays": relays,
        "filter": filter,
    })
    .to_string())
}

/// The relays a page may open: WebSocket URLs only, at most eight, each once.
pub(crate) fn checked_relays(relays: Vec<String>) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for r in relays {
        let url = RelayUrl::parse(&r)
            .map_err(|_| format!("'{r}' is not a relay address (wss://… or ws://…)"))?;
        let url = url.to_string();
        if !out.contains(&url) {
            out.push(url);
        }
    }
    if out.is_empty() {
        return Err(
            "this link names no relay: ask for an naddr that carries its relays, or give one"
                .into(),
        );
    }
    out.truncate(8);
    Ok(out)
}

/// A table as the page shows it.
#[derive(Serialize)]
struct TableView {
    game: String,
    game_title: String,
    title: String,
    status: &'static str,
    status_words: String,
    pace: String,
    host: String,
    /// The people (hex) by seat: a table key's identity, else the seated key; while the lobby
    /// is open, the players it lists.
    players: Vec<String>,
    min_players: u8,
    max_players: u8,
    public: bool,
    naddr: String,
}

/// Reads the table a person opened (`opened`: what [`open_table`] returned) from the events the
/// relays sent (`events`: a JSON array of NIP-01 events). Events that are not this table's
/// announcement, whose signature does not hold, or that another key than the link's host
/// signed are not read; the newest that remains is the table.
#[wasm_bindgen]
pub fn read_table(opened: &str, events: &str) -> Result<String, JsError> {
    read_table_json(opened, events).map_err(|e| JsError::new(&e))
}

fn read_table_json(opened: &str, events: &str) -> Result<String, String> {
    let (opened, event, spec) = announcement(opened, events)?;
    Ok(
        serde_json::to_string(&view(&spec, &event.pubkey, &opened.relays))
            .expect("views serialize"),
    )
}

/// What [`open_table`] returned, read back.
pub(crate) struct Opened {
    table: String,
    host: Option<PublicKey>,
    pub(crate) relays: Vec<String>,
}

fn opened_of(opened: &str) -> Result<Opened, String> {
    let v: Value =
        serde_json::from_str(opened).map_err(|_| "the table request was lost".to_string())?;
    Ok(Opened {
        table: v["table"].as_str().unwrap_or_default().to_string(),
        host: v["host"].as_str().and_then(|h| PublicKey::from_hex(h).ok()),
        relays: serde_json::from_value(v["relays"].clone()).unwrap_or_default(),
    })
}

/// The table's announcement among `events`: its newest genuine copy by the link's host.
pub(crate) fn announcement(
    opened: &str,
    events: &str,
) -> Result<(Opened, Event, TableSpec), String> {
    let opened = opened_of(opened)?;
    let mut forged = false;
    let candidates: Vec<Event> = parse_events(events)
        .into_iter()
        .filter(|e| e.kind == Kind::from(KIND_TABLE))
        .filter(|e| e.tags.identifier() == Some(opened.table.as_str()))
        .filter(|e| opened.host.is_none_or(|h| e.pubkey == h))
        .filter(|e| {
            let genuine = e.verify().is_ok();
            forged |= !genuine;
            genuine
        })
        .collect();
    let mut hosts: Vec<PublicKey> = candidates.iter().map(|e| e.pubkey).collect();
    hosts.sort();
    hosts.dedup();
    if hosts.len() > 1 {
        return Err(format!(
            "{} different keys announce a table with this id: open it by its naddr, which says \
             whose",
            hosts.len()
        ));
    }
    let Some(event) = wire::latest(&candidates).cloned() else {
        return Err(if forged {
            "a relay sent a copy of the table whose signature does not hold; no genuine copy \
             was found"
                .into()
        } else {
            "no relay has this table: it may have ended long ago, or its relays are not the \
             ones this link names"
                .into()
        });
    };
    let spec = wire::parse_table(&event).map_err(|e| format!("this table cannot be read: {e}"))?;
    Ok((opened, event, spec))
}

/// Who sits at each seat, hex: the identity that authorized its table key, else its key.
fn people(spec: &TableSpec) -> Vec<String> {
    spec.identities().iter().map(|k| k.to_hex()).collect()
}

fn view(spec: &TableSpec, host: &PublicKey, relays: &[String]) -> TableView {
    let info = registry::all().into_iter().find(|g| g.name == spec.game);
    let game_title = info.as_ref().map_or_else(
        || format!("{} (a game this page does not play)", spec.game),
        |g| g.title.to_string(),
    );
    let (status, status_words, players, min, max, public, title) = match &spec.lobby {
        Some(l) => {
            // The people at the table: a table key's identity (§2.3), else the key itself.
            let listed: Vec<String> = l
                .players
                .iter()
                .map(|p| p.identity().map_or(p.pubkey.clone(), |k| k.to_hex()))
                .collect();
            let (players, words) = match l.status {
                LobbyStatus::Open => (
                    listed,
                    format!(
                        "taking players: {} to {} seats{}",
                        l.min_players,
                        l.max_players,
                        if l.public {
                            ", open to all"
                        } else {
                            ", by invitation"
                        }
                    ),
                ),
                LobbyStatus::Starting => (listed, "seating the players".to_string()),
                LobbyStatus::Seated => (people(spec), "playing".to_string()),
                LobbyStatus::Cancelled => (
                    listed,
                    match &l.reason {
                        Some(r) => format!("cancelled: {r}"),
                        None => "cancelled".to_string(),
                    },
                ),
            };
            (
                l.status.name(),
                words,
                players,
                l.min_players,
                l.max_players,
                l.public,
                l.title.clone(),
            )
        }
        None => {
            let n = spec.seats.len() as u8;
            (
                "seated",
                "playing".to_string(),
                people(spec),
                n,
                n,
                false,
                String::new(),
            )
        }
    };
    TableView {
        game: spec.game.clone(),
        game_title,
        title,
        status,
        status_words,
        pace: spec.deadlines.words(),
        host: spec.identity_of(host).to_hex(),
        players,
        min_players: min,
        max_players: max,
        public,
        naddr: wire::table_naddr(host, &spec.table, relays),
    }
}

/// What the page fetches to check a seated table: `{seats, lobby, log}`, `seats` the people by
/// seat (for their profiles), `lobby` and `log` NIP-01 filters (the seating messages, and the
/// log of the seated keys only).
#[wasm_bindgen]
pub fn check_requests(opened: &str, table_events: &str) -> Result<String, JsError> {
    check_requests_json(opened, table_events).map_err(|e| JsError::new(&e))
}

/// [`announcement`] of a table whose seats are fixed: only such a table has a log to check.
fn seated_announcement(opened: &str, events: &str) -> Result<(Event, TableSpec), String> {
    let (_, event, spec) = announcement(opened, events)?;
    if !spec.is_seated() {
        return Err("this table is not seated yet: there is nothing to check".into());
    }
    Ok((event, spec))
}

fn check_requests_json(opened: &str, table_events: &str) -> Result<String, String> {
    let (event, spec) = seated_announcement(opened, table_events)?;
    let host = event.pubkey;
    let seats = spec.seat_keys();
    Ok(json!({
        "seats": people(&spec),
        "lobby": wire::lobby::lobby_filter(&host, &spec.table),
        "log": wire::log_filter(&host, &spec.table, &seats),
    })
    .to_string())
}

/// What the page's check of a table found.
#[derive(Serialize)]
struct CheckView {
    /// Every event of a seated key checked out, the seating follows from the players' nonces,
    /// and the game's own checks hold.
    ok: bool,
    finished: bool,
    /// One line for people: what the check concluded.
    verdict: String,
    result: String,
    /// What broke a rule, in words naming the signer.
    problems: Vec<String>,
    /// The table's decisions (timeouts, removals, the end), in words.
    decisions: Vec<String>,
    names: Vec<String>,
    events: u64,
    chain_events: u64,
}

/// Checks a seated table from its events, as `tolerance verify` does: the announcement (as
/// [`read_table`] reads it), the seating against the lobby's reveals, and every log event of
/// the seated keys through the same session every seat runs. `profiles`: the seats' profile
/// events, for their names.
#[wasm_bindgen]
pub fn check_table(
    opened: &str,
    table_events: &str,
    lobby_events: &str,
    log_events: &str,
    profiles: &str,
) -> Result<String, JsError> {
    check_table_json(opened, table_events, lobby_events, log_events, profiles)
        .map_err(|e| JsError::new(&e))
}

fn check_table_json(
    opened: &str,
    table_events: &str,
    lobby_events: &str,
    log_events: &str,
    profiles: &str,
) -> Result<String, String> {
    let (event, spec) = seated_announcement(opened, table_events)?;
    let known = names::names_from_profiles(&parse_events(profiles));
    let seat_names: Vec<String> = spec
        .identities()
        .iter()
        .map(|k| names::name_or_npub(&known, k))
        .collect();
    let seating = wire::lobby::check_seating(&spec, &parse_events_up_to(lobby_events, MAX_LOG));
    let log = parse_events_up_to(log_events, MAX_LOG);
    let checked =
        tolerance::table::check::check_table(&spec, event.created_at.as_secs(), &log, &seat_names)?;
    let name = |x| tolerance::table::check::name_of(&seat_names, x);
    let mut problems: Vec<String> = Vec::new();
    if let Err(f) = &seating {
        problems.push(f.words().to_string());
    }
    problems.extend(checked.violations.iter().map(|v| v.text_named(&name)));
    if let Some(i) = &checked.invariants {
        problems.push(format!("the game's own checks fail: {i}"));
    }
    let ok = seating.is_ok() && checked.ok();
    let verdict = match (ok, checked.finished) {
        (true, true) => "verified: every move of this table checks out, to its end".to_string(),
        (true, false) => "every move so far checks out; the table has not ended".to_string(),
        (false, _) => format!(
            "not verified: {} problem{} found",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" }
        ),
    };
    Ok(serde_json::to_string(&CheckView {
        ok,
        finished: checked.finished,
        verdict,
        result: checked.result.clone(),
        problems,
        decisions: checked
            .verdicts
            .iter()
            .map(|v| tolerance::table::check::verdict_words(v, &name))
            .collect(),
        names: seat_names.clone(),
        events: checked.events,
        chain_events: checked.chain_events,
    })
    .expect("checks serialize"))
}

/// The query for open public tables of every game.
#[wasm_bindgen]
pub fn open_tables_filter() -> String {
    serde_json::to_value(wire::lobby::open_tables_filter())
        .expect("filters serialize")
        .to_string()
}

/// The open public tables among `events` at `now` (Unix seconds), newest first:
/// each as [`listing`] shows it; only genuine, open, unexpired announcements, each table once.
#[wasm_bindgen]
pub fn open_tables(events: &str, now: f64) -> String {
    let tables = wire::lobby::open_public_tables(&parse_events(events), now as u64);
    let out: Vec<Value> = tables
        .iter()
        .rev()
        .filter_map(|(ev, spec)| {
            let l = spec.lobby.as_ref()?;
            Some(listing(&view(spec, &ev.pubkey, &l.relays)))
        })
        .collect();
    Value::Array(out).to_string()
}

/// A table as the lists show it: `{naddr, game, game_title, title, host, status, players,
/// max_players, pace}` (`status` in words).
pub(crate) fn listing(v: &TableView) -> Value {
    json!({
        "naddr": v.naddr,
        "game": v.game,
        "game_title": v.game_title,
        "title": v.title,
        "host": v.host,
        "status": v.status_words,
        "players": v.players.len(),
        "max_players": v.max_players,
        "pace": v.pace,
    })
}

/// The query for these keys' profiles (`keys`: a JSON array of hex keys).
#[wasm_bindgen]
pub fn profiles_filter(keys: &str) -> String {
    serde_json::to_value(names::profiles_filter(&hex_keys(keys)))
        .expect("filters serialize")
        .to_string()
}

/// Each key's name, in order: `[{key, npub, name, named}]`, `name` being the newest signed
/// profile's name (`named`), else a short npub.
#[wasm_bindgen]
pub fn names_of(keys: &str, events: &str) -> String {
    let known = names::names_from_profiles(&parse_events(events));
    let out: Vec<Value> = hex_keys(keys)
        .iter()
        .map(|k| {
            json!({
                "key": k.to_hex(),
                "npub": k.to_bech32().unwrap_or_default(),
                "name": names::name_or_npub(&known, k),
                "named": known.contains_key(k),
            })
        })
        .collect();
    Value::Array(out).to_string()
}

fn hex_keys(keys: &str) -> Vec<PublicKey> {
    serde_json::from_str::<Vec<String>>(keys)
        .unwrap_or_default()
        .iter()
        .filter_map(|h| PublicKey::from_hex(h).ok())
        .collect()
}

/// Most log events the page checks: far more than the longest table logs (a 10-seat Tolerance
/// tournament is a few thousand), few enough to bound a flooding relay.
pub(crate) const MAX_LOG: usize = 50_000;

/// The events of a JSON array that parse as events and are no larger than any relay of ours
/// would carry; the rest are dropped unread.
pub(crate) fn parse_events(events: &str) -> Vec<Event> {
    parse_events_up_to(events, MAX_EVENTS)
}

pub(crate) fn parse_events_up_to(events: &str, most: usize) -> Vec<Event> {
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(events) else {
        return Vec::new();
    };
    items
        .into_iter()
        .take(most)
        .filter_map(|v| {
            let text = v.to_string();
            (text.len() <= MAX_EVENT_BYTES)
                .then(|| Event::from_json(&text).ok())
                .flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn announced(keys: &Keys, status: LobbyStatus) -> (TableSpec, Event) {
        let table = "ab".repeat(32);
        let spec = TableSpec {
            v: wire::VERSION,
            game: "perudo".into(),
            table: table.clone(),
            setup: json!({}),
            seats: Vec::new(),
            deadlines: wire::Pace::Fast.deadlines(),
            lobby: Some(wire::Lobby {
                status,
                title: "Friday dice".into(),
                public: true,
                min_players: 2,
                max_players: 4,
                relays: vec!["ws://127.0.0.1:7447".into()],
                players: vec![wire::LobbyPlayer {
                    pubkey: keys.public_key().to_hex(),
                    commit: "00".repeat(32),
                    auth: None,
                }],
                reason: None,
                round: 0,
                join_pow: None,
                expires: None,
            }),
            pow: 0,
        };
        let event = wire::table_event(&spec).sign_with_keys(keys).unwrap();
        (spec, event)
    }

    fn opened(keys: &Keys, spec: &TableSpec) -> String {
        let naddr = wire::table_naddr(
            &keys.public_key(),
            &spec.table,
            &["ws://127.0.0.1:7447".into()],
        );
        open_table_json(&format!("#{naddr}"), "[]").unwrap()
    }

    #[test]
    fn an_naddr_opens_its_table_by_game_title_and_players() {
        let host = Keys::generate();
        let (spec, event) = announced(&host, LobbyStatus::Open);
        let opened = opened(&host, &spec);
        let events = Value::Array(vec![serde_json::from_str(&event.as_json()).unwrap()]);
        let view: Value =
            serde_json::from_str(&read_table_json(&opened, &events.to_string()).unwrap()).unwrap();
        assert_eq!(view["game_title"], "Perudo");
        assert_eq!(view["title"], "Friday dice");
        assert_eq!(view["status"], "open");
        assert_eq!(view["players"][0], host.public_key().to_hex());
        assert!(view["pace"].as_str().unwrap().starts_with("fast"));
    }

    #[test]
    fn a_forged_or_foreign_announcement_is_not_the_table() {
        let host = Keys::generate();
        let (spec, event) = announced(&host, LobbyStatus::Open);
        let opened = opened(&host, &spec);
        let mut forged: Value = serde_json::from_str(&event.as_json()).unwrap();
        forged["content"] = Value::String(event.content.replace("Friday", "Monday"));
        let err = read_table_json(&opened, &json!([forged]).to_string()).unwrap_err();
        assert!(err.contains("signature does not hold"), "{err}");
        // The same table id announced by another key is someone else's table.
        let (_, other) = announced(&Keys::generate(), LobbyStatus::Open);
        let other: Value = serde_json::from_str(&other.as_json()).unwrap();
        let err = read_table_json(&opened, &json!([other, "junk", 3]).to_string()).unwrap_err();
        assert!(err.starts_with("no relay has this table"), "{err}");
    }

    #[test]
    fn a_bad_link_is_refused_in_words() {
        let err = open_table_json("naddr1qqqqq", "[]").unwrap_err();
        assert!(err.contains("not a valid naddr"), "{err}");
        let err = open_table_json("", "[]").unwrap_err();
        assert!(err.contains("paste its naddr"), "{err}");
        let err = open_table_json(&"ab".repeat(32), "[]").unwrap_err();
        assert!(err.contains("names no relay"), "{err}");
        let err = open_table_json(&"ab".repeat(32), r#"["http://x"]"#).unwrap_err();
        assert!(err.contains("not a relay address"), "{err}");
    }

    #[test]
    fn only_open_unexpired_tables_are_listed_once_each() {
        let host = Keys::generate();
        let (_, open) = announced(&host, LobbyStatus::Open);
        let (_, seated) = announced(&Keys::generate(), LobbyStatus::Seated);
        let mut expired = announced(&Keys::generate(), LobbyStatus::Open).0;
        expired.lobby.as_mut().unwrap().expires = Some(100);
        let expired = wire::table_event(&expired)
            .sign_with_keys(&Keys::generate())
            .unwrap();
        let events: Vec<Value> = [&open, &open, &seated, &expired]
            .iter()
            .map(|e| serde_json::from_str(&e.as_json()).unwrap())
            .collect();
        let list: Vec<Value> =
            serde_json::from_str(&open_tables(&Value::Array(events).to_string(), 200.0)).unwrap();
        assert_eq!(list.len(), 1, "{list:?}");
        assert_eq!(list[0]["host"], host.public_key().to_hex());
        assert_eq!(
            (&list[0]["players"], &list[0]["max_players"]),
            (&json!(1), &json!(4))
        );
    }

    #[test]
    fn every_registered_game_is_listed_by_title() {
        let list: Vec<Value> = serde_json::from_str(&games()).unwrap();
        assert_eq!(list.len(), registry::all().len());
        assert!(list.iter().any(|g| g["title"] == "The Game of Tolerance"));
    }
}
