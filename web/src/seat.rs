//! Sitting at a table from the page, with the page's own key ([`crate::key`]): asking the host
//! for a seat and opening the seating nonce ([`join_step`]), then playing the seat
//! ([`PageSeat`]) with the same pure [`Session`] and loop state ([`RunnerState`]) the terminal's
//! runner drives.
//!
//! Nothing here touches the network or a timer. The page's script hands in every event its
//! relays sent and calls [`PageSeat::tick`] when one came, when a person chose a move, or when
//! the wake-up the last tick asked for is due; each tick answers with the events to publish, the
//! seat's turn (if any), what the table looks like to this seat in words, and how long to sleep.
//! Every event is checked here before it counts, the person's move is checked against the
//! game's rules before it is signed, and the seat's secrets (its key shares, the deck's
//! secrets, its seating nonce) never leave this module's memory — but for a deck's secret share
//! in a shuffle job, which goes only to the page's own proof worker (a second copy of this core)
//! so that proving does not hold the page; its answer is checked here before it is published.

use crate::mine;
use crate::signer;
use nostr::nips::nip44;
use nostr::prelude::*;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use tolerance::bots::{Bot, BotLevel};
use tolerance::engine::Seat;
use tolerance::games::registry::{self, TableGame, Visit};
use tolerance::table::chance::{ShuffleDone, ShuffleJob};
use tolerance::table::check;
use tolerance::table::drive::{
    idle_wait, left_words, over_line, stall_words, with_removals, RunnerState, Start,
};
use tolerance::table::session::{relay_secs, Session};
use tolerance::ui::{seat_name, waiting_line};
use tolerance::wire::lobby::{
    check_seating, lobby_event, seat_commit, LobbyBody, LobbyMsg, LOBBY_VERSION,
};
use tolerance::wire::{self, auth, log::log_event, names, LobbyStatus, TableSpec};
use wasm_bindgen::prelude::*;
use web_time::Instant;
use zeroize::Zeroizing;

/// The browser's clock: milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The browser's clock in Unix seconds.
pub(crate) fn unix_now() -> u64 {
    now_ms() / 1000
}

pub(crate) fn sign(builder: EventBuilder, keys: &Keys, pow: u8) -> Result<Event, String> {
    let builder = if pow > 0 { builder.pow(pow) } else { builder };
    builder
        .sign_with_keys(keys)
        .map_err(|e| format!("your key could not sign: {e}"))
}

pub(crate) fn event_json(ev: &Event) -> Value {
    serde_json::from_str(&ev.as_json()).expect("events serialize")
}

/// A seat asked for at one table: the nonce committed to, and where the asking stands.
struct Joining {
    nonce: Zeroizing<[u8; 32]>,
    commit: String,
    /// The lobby round the commitment belongs to, and the one a seat was last asked in.
    round: u32,
    asked: Option<u32>,
    revealed: bool,
    /// With a signer extension: the identity's authorization of the table key (§2.3), once
    /// the extension signed it.
    auth: Option<Box<Event>>,
    /// The lobby messages signed for this seat so far (joins, the reveal), offered again to
    /// the relays when a reload takes the asking back.
    own: Vec<Value>,
    /// A lobby message waiting for the proof of work the host or the relays ask (made in the
    /// page's worker).
    mining: Option<Mining>,
}

/// A lobby message left to the page's worker for its proof of work, and what to say once it is
/// signed.
struct Mining {
    unsigned: UnsignedEvent,
    pow: u8,
    state: &'static str,
    words: String,
}

thread_local! {
    /// The seats this visit asked for, by table id.
    static JOINING: RefCell<HashMap<String, Joining>> = RefCell::new(HashMap::new());
}

fn fresh_nonce() -> Zeroizing<[u8; 32]> {
    use rand::RngCore;
    let mut n = Zeroizing::new([0u8; 32]);
    rand::rngs::OsRng.fill_bytes(n.as_mut());
    n
}

/// One step of sitting down at the table a link opened (`opened`: what `open_table` returned;
/// `table_events`: every copy of its announcement the relays sent so far). Called again on each
/// newer announcement, it answers `{state, words, publish, lobby, record}`, where `record` is
/// what the browser keeps (before it publishes) to take the asking back after a reload
/// ([`join_restore`]), and `state` is:
/// - `asking`: a join request (committing to a fresh nonce) is in `publish`;
/// - `waiting`: listed, waiting for the table to fill, or for a seat to reopen;
/// - `revealing`: the host listed the players; the nonce's opening is in `publish`;
/// - `seated`: the seats are fixed; check them with `lobby` (a filter) and open the seat.
///
/// A table this key cannot sit at (cancelled, full, seated without it, listed with a
/// commitment it never made) is an error in words.
#[wasm_bindgen]
pub fn join_step(opened: &str, table_events: &str) -> Result<String, JsError> {
    join_step_json(opened, table_events).map_err(|e| JsError::new(&e))
}

fn join_step_json(opened: &str, table_events: &str) -> Result<String, String> {
    let (_, event, spec) = crate::announcement(opened, table_events)?;
    let (keys, identity) = signer::seat_key(&spec.table)?;
    let mut out = JOINING.with(|j| {
        next_join(
            &keys,
            identity.as_ref(),
            &event.pubkey,
            &spec,
            &mut j.borrow_mut(),
            unix_now(),
        )
    })?;
    out["record"] = kept_join(&spec.table, &keys, identity.as_ref())?;
    Ok(out.to_string())
}

/// What the browser keeps of the seat asked for at `table`, if any.
fn kept_join(table: &str, keys: &Keys, identity: Option<&PublicKey>) -> Result<Value, String> {
    Ok(JOINING
        .with(|j| {
            j.borrow()
                .get(table)
                .map(|j| join_record(j, table, keys, identity))
                .transpose()
        })?
        .unwrap_or(Value::Null))
}

/// The worker's answer (`{nonce}`) for the request for a seat that [`join_step`] left to it
/// (its state `mining`, its job `mine`): the request signed, answered as [`join_step`] answers.
#[wasm_bindgen]
pub fn join_mined(opened: &str, table_events: &str, answer: &str) -> Result<String, JsError> {
    let signed = || {
        let (_, _, spec) = crate::announcement(opened, table_events)?;
        let (keys, identity) = signer::seat_key(&spec.table)?;
        let ev = JOINING.with(|j| {
            let mut all = j.borrow_mut();
            let (j, m) = all
                .get_mut(&spec.table)
                .and_then(|j| j.mining.take().map(|m| (j, m)))
                .ok_or("no request for a seat at this table was waiting for its proof of work")?;
            let ev = event_json(&mine::signed_with(m.unsigned, m.pow, answer, &keys)?);
            j.own.push(ev.clone());
            Ok::<_, String>((ev, m.state, m.words))
        })?;
        Ok::<_, String>(
            json!({
                "state": ev.1,
                "words": ev.2,
                "publish": [ev.0],
                "request": Value::Null,
                "record": kept_join(&spec.table, &keys, identity.as_ref())?,
            })
            .to_string(),
        )
    };
    signed().map_err(|e| JsError::new(&e))
}

/// A 32-byte secret as the browser's records keep it: hex, NIP-44 encrypted by `keys` to
/// themselves, so that only the key that sat down opens it.
pub(crate) fn seal_to_self(keys: &Keys, secret: &[u8; 32]) -> Result<String, nip44::Error> {
    let plain = Zeroizing::new(hex::encode(secret));
    nip44::encrypt(
        keys.secret_key(),
        &keys.public_key(),
        plain.as_str(),
        nip44::Version::V2,
    )
}

/// Why a kept secret did not open.
pub(crate) enum Unsealed {
    /// Sealed by another key.
    OtherKey,
    /// Not a sealed 32-byte secret at all.
    Damaged,
}

/// The secret [`seal_to_self`] kept.
pub(crate) fn open_from_self(keys: &Keys, sealed: &str) -> Result<Zeroizing<[u8; 32]>, Unsealed> {
    let plain = Zeroizing::new(
        nip44::decrypt(keys.secret_key(), &keys.public_key(), sealed)
            .map_err(|_| Unsealed::OtherKey)?,
    );
    let mut secret = Zeroizing::new([0u8; 32]);
    hex::decode_to_slice(plain.as_bytes(), secret.as_mut()).map_err(|_| Unsealed::Damaged)?;
    Ok(secret)
}

/// The events of a record signed by `me` whose signatures hold: what a reload offers again.
fn own_events(kept: &[Value], me: &PublicKey) -> Vec<Event> {
    kept.iter()
        .filter_map(|v| Event::from_json(v.to_string()).ok())
        .filter(|e| e.pubkey == *me && e.verify().is_ok())
        .collect()
}

/// What the browser keeps of a seat asked for but not yet fixed: the seating nonce (NIP-44
/// encrypted by the seat's key to itself, as a seat's master secret is), where the asking
/// stands, and the lobby messages signed for it. Without the nonce a reload would leave the
/// person listed with a commitment nobody can open, and the table would drop them.
#[derive(serde::Serialize, serde::Deserialize)]
struct JoinRecord {
    v: u32,
    table: String,
    nonce: String,
    round: u32,
    asked: Option<u32>,
    revealed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    auth: Option<Value>,
    own: Vec<Value>,
    /// With a signer extension: the table key asking for the seat, sealed to the identity
    /// (`{key, identity, sealed}`), as in a seat's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    table_key: Option<Value>,
}

const JOIN_RECORD_VERSION: u32 = 1;

fn join_record(
    j: &Joining,
    table: &str,
    keys: &Keys,
    identity: Option<&PublicKey>,
) -> Result<Value, String> {
    let nonce = seal_to_self(keys, &j.nonce)
        .map_err(|e| format!("your seating nonce could not be kept: {e}"))?;
    let record = JoinRecord {
        v: JOIN_RECORD_VERSION,
        table: table.to_string(),
        nonce,
        round: j.round,
        asked: j.asked,
        revealed: j.revealed,
        auth: j.auth.as_ref().map(|a| event_json(a)),
        own: j.own.clone(),
        table_key: identity.map(|id| signer::seal(keys, id)).transpose()?,
    };
    Ok(serde_json::to_value(record).expect("a join record serializes"))
}

/// Takes back, after a reload, the seat this browser asked for at the table `opened` shows:
/// `record` is what [`join_step`] last answered as `record` (with a signer extension, its table
/// key is restored first, by `signer_restore`). Answers the lobby messages it signed, to offer
/// to the relays again (one may never have reached them); then [`join_step`] goes on from where
/// the asking stood. In words when the record is damaged, another table's, or kept by another
/// key.
#[wasm_bindgen]
pub fn join_restore(opened: &str, table_events: &str, record: &str) -> Result<String, JsError> {
    let restore = || -> Result<String, String> {
        let (_, _, spec) = crate::announcement(opened, table_events)?;
        let (keys, _) = signer::seat_key(&spec.table)?;
        let (joining, own) = read_join_record(record, &keys, &spec.table)?;
        JOINING.with(|j| j.borrow_mut().insert(spec.table.clone(), joining));
        Ok(Value::Array(own).to_string())
    };
    restore().map_err(|e| JsError::new(&e))
}

fn read_join_record(text: &str, keys: &Keys, table: &str) -> Result<(Joining, Vec<Value>), String> {
    let lost = "this browser's record of the seat you asked for is damaged; sit down again";
    let r: JoinRecord = serde_json::from_str(text).map_err(|_| lost.to_string())?;
    if r.v != JOIN_RECORD_VERSION || r.table != table {
        return Err(lost.into());
    }
    let nonce = open_from_self(keys, &r.nonce).map_err(|e| match e {
        Unsealed::OtherKey => "this browser's record of the seat you asked for was kept by \
                               another key: unlock the key you sat down with"
            .to_string(),
        Unsealed::Damaged => lost.to_string(),
    })?;
    let me = keys.public_key();
    let auth = match r.auth {
        Some(a) => {
            let ev = Event::from_json(a.to_string()).map_err(|_| lost.to_string())?;
            ev.verify().map_err(|_| lost.to_string())?;
            Some(Box::new(ev))
        }
        None => None,
    };
    let own: Vec<Value> = own_events(&r.own, &me).iter().map(event_json).collect();
    let joining = Joining {
        commit: seat_commit(table, &me, &nonce),
        nonce,
        round: r.round,
        asked: r.asked,
        revealed: r.revealed,
        auth,
        own: own.clone(),
        mining: None,
    };
    Ok((joining, own))
}

/// The signer extension's answer to the `authorize` step of [`join_step`]: the identity's
/// signed authorization of this table's key. Checked here (signature, this table, this key, not
/// expired) before a join carries it; in words when it cannot seat the person.
#[wasm_bindgen]
pub fn join_authorize(opened: &str, table_events: &str, signed: &str) -> Result<(), JsError> {
    let authorize = || -> Result<(), String> {
        let (_, event, spec) = crate::announcement(opened, table_events)?;
        let (keys, identity) = signer::seat_key(&spec.table)?;
        let identity = identity.ok_or("no signer extension is in use on this page")?;
        let auth = signer::accept(
            signed,
            &identity,
            &keys.public_key(),
            &event.pubkey,
            &spec.table,
            unix_now(),
        )?;
        JOINING.with(|j| match j.borrow_mut().get_mut(&spec.table) {
            Some(j) => {
                j.auth = Some(Box::new(auth));
                Ok(())
            }
            None => Err("sit down again: this page forgot that it asked for a seat".to_string()),
        })
    };
    authorize().map_err(|e| JsError::new(&e))
}

fn next_join(
    keys: &Keys,
    identity: Option<&PublicKey>,
    host: &PublicKey,
    spec: &TableSpec,
    joins: &mut HashMap<String, Joining>,
    now: u64,
) -> Result<Value, String> {
    let me = keys.public_key();
    if *host == me || identity.is_some_and(|id| *id == spec.identity_of(host)) {
        return Err("this key hosts the table: a seat is taken by another key".into());
    }
    let Some(l) = spec.lobby.as_ref() else {
        return Err("this table seated its players directly; there is no lobby to join".into());
    };
    if identity.is_some() && spec.v < wire::TABLE_KEYS_SINCE {
        return Err(format!(
            "this table was announced by an older version of tolerance (version {}), which \
             does not know table keys: sit down with a key made in this page instead of your \
             signer extension",
            spec.v
        ));
    }
    let table = &spec.table;
    let j = joins.entry(table.clone()).or_insert_with(|| {
        let nonce = fresh_nonce();
        Joining {
            commit: seat_commit(table, &me, &nonce),
            nonce,
            round: l.round,
            asked: None,
            revealed: false,
            auth: None,
            own: Vec::new(),
            mining: None,
        }
    });
    let mine = l.players.iter().find(|p| p.pubkey == me.to_hex());
    let lobby_msg = |body| LobbyMsg {
        v: LOBBY_VERSION,
        table: table.clone(),
        body,
    };
    let answer = |state: &str, words: String, publish: Vec<Value>| {
        json!({
            "request": Value::Null,
            "state": state,
            "words": words,
            "publish": publish,
            "players": l.players.len(),
            "min": l.min_players,
            "max": l.max_players,
            "lobby": wire::lobby::lobby_filter(host, table),
        })
    };
    // A lobby message signed and kept, or, when it needs proof of work and the page has a
    // worker, left to the worker (the answer's `mine` job; signed by `join_mined`).
    let send = |j: &mut Joining,
                body: LobbyBody,
                pow: u8,
                (state, words): (&'static str, String)|
     -> Result<Value, String> {
        let msg = lobby_msg(body);
        if mine::elsewhere(pow) {
            let unsigned = lobby_event(host, &msg).build(me);
            let mut out = answer(
                "mining",
                format!("making the proof of work ({pow} bits) this table asks of its players"),
                Vec::new(),
            );
            out["mine"] = Value::String(mine::job(&unsigned, pow));
            j.mining = Some(Mining {
                unsigned,
                pow,
                state,
                words,
            });
            return Ok(out);
        }
        let ev = event_json(&sign(lobby_event(host, &msg), keys, pow)?);
        j.own.push(ev.clone());
        Ok(answer(state, words, vec![ev]))
    };
    let join = |j: &mut Joining, pow: u8, words: String| {
        j.nonce = fresh_nonce();
        j.commit = seat_commit(table, &me, &j.nonce);
        // A new commitment makes the earlier round's messages moot.
        j.own.clear();
        let body = LobbyBody::Join {
            commit: j.commit.clone(),
            auth: j.auth.clone(),
        };
        send(j, body, pow, ("asking", words))
    };
    let count = format!("{} of {} seats taken", l.players.len(), l.max_players);
    match l.status {
        LobbyStatus::Cancelled => Err(format!(
            "the host cancelled the table: {}",
            l.reason.clone().unwrap_or_else(|| "no reason given".into())
        )),
        LobbyStatus::Open if mine.is_none() && identity.is_some() && j.auth.is_none() => {
            let lobby_expires = l.expires.unwrap_or(now).max(now);
            let expires = auth::asked_expiry(lobby_expires, &spec.deadlines);
            let identity = identity.expect("a signer is in use");
            let mut out = answer(
                "authorize",
                "approve, in your signer extension, the key this page made to play your seat \
                 at this table"
                    .into(),
                Vec::new(),
            );
            out["request"] = signer::request(identity, &me, host, table, now, expires);
            Ok(out)
        }
        LobbyStatus::Open if mine.is_none() => {
            if j.asked == Some(l.round) {
                return Ok(answer(
                    "asking",
                    format!("asked the host for a seat; waiting for it to list you ({count})"),
                    Vec::new(),
                ));
            }
            j.round = l.round;
            j.asked = Some(l.round);
            j.revealed = false;
            let pow = l.join_pow.unwrap_or(0).max(spec.pow);
            join(j, pow, format!("asking the host for a seat ({count})"))
        }
        // The host reopened the lobby (someone never revealed): commit to a fresh nonce.
        LobbyStatus::Open if l.round > j.round => {
            j.round = l.round;
            j.revealed = false;
            join(
                j,
                spec.pow,
                format!("the host reopened the seats; asking again ({count})"),
            )
        }
        LobbyStatus::Open => Ok(answer(
            "waiting",
            format!("you are listed; waiting for the table to fill ({count})"),
            Vec::new(),
        )),
        LobbyStatus::Seated if mine.is_none() => {
            Err("the table filled and started without you".into())
        }
        LobbyStatus::Starting if mine.is_none() => Ok(answer(
            "waiting",
            "the table is full; waiting in case a seat reopens".into(),
            Vec::new(),
        )),
        LobbyStatus::Starting if l.round > j.round => Ok(answer(
            "waiting",
            "waiting for the host to take your new request".into(),
            Vec::new(),
        )),
        LobbyStatus::Starting | LobbyStatus::Seated
            if mine.map(|p| p.commit.as_str()) != Some(j.commit.as_str()) =>
        {
            Err("the host listed you with a commitment you did not make".into())
        }
        LobbyStatus::Starting | LobbyStatus::Seated
            if mine.map(|p| p.auth.as_ref().map(|a| a.id))
                != Some(j.auth.as_ref().map(|a| a.id)) =>
        {
            Err(
                "the host listed you without your table key's authorization, or with one you \
                 did not give: your seat would not be named after you"
                    .into(),
            )
        }
        LobbyStatus::Starting if !j.revealed => {
            j.revealed = true;
            // At the relays' difficulty, as every message of the table (the host asks its
            // own only of requests for a seat).
            let body = LobbyBody::Reveal {
                nonce: hex::encode(*j.nonce),
            };
            let words = "the table is full: opening your seating nonce".to_string();
            send(j, body, spec.pow, ("revealing", words))
        }
        LobbyStatus::Starting => Ok(answer(
            "revealing",
            "waiting for every player's nonce and the host's seating".into(),
            Vec::new(),
        )),
        LobbyStatus::Seated => Ok(answer("seated", "the seats are fixed".into(), Vec::new())),
    }
}

/// A withdrawn request for a seat, when the person gives up before the nonce was opened (after
/// that the seat is the table's); `null` when there is nothing to withdraw.
#[wasm_bindgen]
pub fn join_leave(opened: &str, table_events: &str) -> Result<Option<String>, JsError> {
    let leave = || -> Result<Option<String>, String> {
        let (_, event, spec) = crate::announcement(opened, table_events)?;
        let (keys, _) = signer::seat_key(&spec.table)?;
        let asked = JOINING.with(|j| {
            j.borrow_mut()
                .remove(&spec.table)
                .is_some_and(|j| !j.revealed)
        });
        if !asked {
            return Ok(None);
        }
        let msg = LobbyMsg {
            v: LOBBY_VERSION,
            table: spec.table.clone(),
            body: LobbyBody::Leave {},
        };
        // At the relays' difficulty, made here: the person is leaving, nothing waits on it.
        let ev = sign(lobby_event(&event.pubkey, &msg), &keys, spec.pow)?;
        Ok(Some(ev.as_json()))
    };
    leave().map_err(|e| JsError::new(&e))
}

/// One seat's table, driven by the page.
trait Driven {
    fn feed(&mut self, events: Vec<Event>);
    fn tick(&mut self, connected: usize, notes: Vec<String>) -> Result<Value, String>;
    fn act(&mut self, step: u32, choice: Choice) -> Result<(), String>;
    fn leave(&mut self);
    fn filters(&self) -> Value;
    fn record(&self) -> Value;
    fn worker(&mut self, ready: bool);
    fn shuffled(&mut self, done: &str) -> Result<(), String>;
    fn mined(&mut self, answer: &str) -> Result<(), String>;
    fn proofs(&self) -> Value;
    fn bot(&mut self, level: BotLevel);
}

/// A person's move: one of the listed moves by its place, or typed.
enum Choice {
    Listed(usize),
    Typed(String),
}

/// A seat at a seated table, played from the page with its unlocked key.
#[wasm_bindgen]
pub struct PageSeat(Box<dyn Driven>);

#[wasm_bindgen]
impl PageSeat {
    /// Opens this key's seat at the seated table a link opened: `table_events` its
    /// announcements, `lobby_events` the lobby's messages (the seating must follow from the
    /// players' nonces), `profiles` the seats' profile events (their names).
    /// `record`: what [`PageSeat::record`] gave before the page was closed or reloaded, to take
    /// the seat back (empty for a new seat).
    #[wasm_bindgen(constructor)]
    pub fn new(
        opened: &str,
        table_events: &str,
        lobby_events: &str,
        profiles: &str,
        record: &str,
    ) -> Result<PageSeat, JsError> {
        let record = (!record.is_empty()).then_some(record);
        open_seat(opened, table_events, lobby_events, profiles, record)
            .map(PageSeat)
            .map_err(|e| JsError::new(&e))
    }

    /// What the browser keeps to take this seat back after a reload (`tolerance resume`'s
    /// journal, for the page): `{v, table, master, own}`, the seat's master secret NIP-44
    /// encrypted to its own key, and the events it signed. Kept anew after each tick that
    /// signed something.
    pub fn record(&self) -> String {
        self.0.record().to_string()
    }

    /// What to subscribe to and fetch: `{log, presence}` (NIP-01 filters).
    pub fn filters(&self) -> String {
        self.0.filters().to_string()
    }

    /// Every event the relays sent (a JSON array); those that are not this table's, or not
    /// genuine, are turned away by the session as they are at every seat.
    pub fn feed(&mut self, events: &str) {
        self.0
            .feed(crate::parse_events_up_to(events, crate::MAX_LOG));
    }

    /// One round of the seat's loop: `connected` relays open now, `notes` (a JSON array of
    /// words) about them. Answers `{publish, beats, fetch, turn, table, over, jobs, wake_ms}`,
    /// `jobs` being shuffles for the proof worker ([`PageSeat::worker`]; each holds a secret of
    /// the seat: for that worker only, never to be logged or sent anywhere) and proofs of work
    /// to make (`{mine}`, for [`crate::mine::mine`]).
    pub fn tick(&mut self, connected: usize, notes: &str) -> Result<String, JsError> {
        let notes: Vec<String> = serde_json::from_str(notes).unwrap_or_default();
        self.0
            .tick(connected, notes)
            .map(|v| v.to_string())
            .map_err(|e| JsError::new(&e))
    }

    /// The person chose the `index`-th listed move of turn `step`.
    pub fn choose(&mut self, step: u32, index: usize) -> Result<(), JsError> {
        self.0
            .act(step, Choice::Listed(index))
            .map_err(|e| JsError::new(&e))
    }

    /// The person typed a move for turn `step` ("raise 40").
    pub fn type_move(&mut self, step: u32, text: &str) -> Result<(), JsError> {
        self.0
            .act(step, Choice::Typed(text.to_string()))
            .map_err(|e| JsError::new(&e))
    }

    /// The person leaves the table: the seat signs its leave where the game lets it.
    pub fn leave(&mut self) {
        self.0.leave();
    }

    /// The page's proof worker is running (`true`) or gone (`false`). While it runs, the
    /// seat's shuffles are handed to it as jobs (`jobs` of a tick's answer) instead of being
    /// proved in [`PageSeat::tick`]; when it is gone, the seat proves them itself again.
    pub fn worker(&mut self, ready: bool) {
        self.0.worker(ready);
    }

    /// A job's answer from the worker: taken once its proof checks out here, and published by
    /// the next tick. A refused answer stops the use of the worker (the seat proves its
    /// shuffles itself from then on) and says why.
    pub fn shuffled(&mut self, done: &str) -> Result<(), JsError> {
        self.0.shuffled(done).map_err(|e| JsError::new(&e))
    }

    /// A mining job's answer from the worker (`{nonce}`): the event waiting for it is signed
    /// once the nonce gives the relays' difficulty, and published by the next tick. A refused
    /// answer stops the use of the worker, as [`PageSeat::shuffled`] does.
    pub fn mined(&mut self, answer: &str) -> Result<(), JsError> {
        self.0.mined(answer).map_err(|e| JsError::new(&e))
    }

    /// A bot of `level` (`easy`, `normal`, `hard`) plays this seat from now on: each turn is
    /// decided in the tick that finds it.
    pub fn play_as_bot(&mut self, level: &str) -> Result<(), JsError> {
        let level: BotLevel = level.parse().map_err(|e: String| JsError::new(&e))?;
        self.0.bot(level);
        Ok(())
    }

    /// Where this seat's shuffles were proved: `{worker, here, moves_waited, pow_worker,
    /// pow_here}`: `moves_waited`, how many moves were chosen while the shuffle due on them was
    /// still in the worker; the last two, where its proofs of work were made.
    pub fn proofs(&self) -> String {
        self.0.proofs().to_string()
    }
}

/// A worker's job ([`tolerance::table::chance::ShuffleJob`]): the shuffle and its proof. The
/// worker script calls this with the job a tick handed out, in its own copy of the core.
#[wasm_bindgen]
pub fn shuffle_job(job: &str) -> Result<String, JsError> {
    let run = || {
        let job: ShuffleJob =
            serde_json::from_str(job).map_err(|_| "the shuffle job is unreadable".to_string())?;
        let done = job.run()?;
        Ok::<_, String>(serde_json::to_string(&done).expect("answers serialize"))
    };
    run().map_err(|e| JsError::new(&e))
}

/// The seat's record as the browser keeps it.
#[derive(serde::Serialize, serde::Deserialize)]
struct Record {
    v: u32,
    table: String,
    /// The master secret, hex, NIP-44 encrypted by the seat's key to itself.
    master: String,
    own: Vec<Value>,
    /// With a signer extension: the table key that holds the seat, its secret sealed to the
    /// identity (`{key, identity, sealed}`); only the extension opens it after a reload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    table_key: Option<Value>,
}

const RECORD_VERSION: u32 = 1;

/// The master secret and own events of a kept record of `table`, for `keys`.
fn read_record(
    text: &str,
    keys: &Keys,
    table: &str,
) -> Result<(Zeroizing<[u8; 32]>, Vec<Event>), String> {
    let lost = "this browser's record of your seat is damaged; the seat cannot be taken back here";
    let r: Record = serde_json::from_str(text).map_err(|_| lost.to_string())?;
    if r.v != RECORD_VERSION || r.table != table {
        return Err(lost.into());
    }
    let master = open_from_self(keys, &r.master).map_err(|e| match e {
        Unsealed::OtherKey => "this browser's record of the seat was kept by another key: \
                               unlock the key you sat down with"
            .to_string(),
        Unsealed::Damaged => lost.to_string(),
    })?;
    Ok((master, own_events(&r.own, &keys.public_key())))
}

/// Why the key in use holds no seat, in words: this browser's record of the table says whether
/// the person sat down with the page's own key or with a signer extension, so a person who
/// switched since is told which to use again.
fn no_seat(record: Option<&str>, extension_in_use: bool) -> &'static str {
    let sat_with_extension = record
        .and_then(|r| serde_json::from_str::<Record>(r).ok())
        .map(|r| r.table_key.is_some());
    match (sat_with_extension, extension_in_use) {
        (Some(false), true) => {
            "you sat down at this table with this page's own key, not your signer extension: \
             press \"Stop using the extension\" under You, unlock your key and open the table \
             again"
        }
        (Some(true), false) => {
            "you sat down at this table with your signer extension: press \"Use my signer \
             extension (NIP-07)\" under You and open the table again"
        }
        _ => "your key holds no seat at this table",
    }
}

fn open_seat(
    opened: &str,
    table_events: &str,
    lobby_events: &str,
    profiles: &str,
    record: Option<&str>,
) -> Result<Box<dyn Driven>, String> {
    let (opened, event, spec) = crate::announcement(opened, table_events)?;
    if !spec.is_seated() {
        return Err("the table's seats are not fixed yet".into());
    }
    let (keys, identity) = signer::seat_key(&spec.table)?;
    check_seating(
        &spec,
        &crate::parse_events_up_to(lobby_events, crate::MAX_LOG),
    )
    .map_err(|f| f.words().to_string())?;
    let me = keys.public_key();
    let seat = match spec.seats.iter().position(|s| *s == me.to_hex()) {
        Some(s) => s as Seat,
        None if identity.is_some_and(|id| spec.identities().contains(&id)) => {
            return Err(
                "your identity holds a seat here through a table key this page no \
                        longer has: take the seat back from the browser you sat down in"
                    .into(),
            )
        }
        None => return Err(no_seat(record, identity.is_some()).into()),
    };
    let known = names::names_from_profiles(&crate::parse_events(profiles));
    // Seats are named by the people behind them: a table key's identity (§2.3).
    let names: Vec<String> = spec
        .seat_keys()
        .iter()
        .map(|k| {
            if *k == me {
                "you".to_string()
            } else {
                names::name_or_npub(&known, &spec.identity_of(k))
            }
        })
        .collect();
    let table_key = identity.map(|id| signer::seal(&keys, &id)).transpose()?;
    let kept = record
        .map(|r| read_record(r, &keys, &spec.table))
        .transpose()?;
    let game = spec.game.clone();
    registry::with_game(
        &game,
        OpenSeat {
            keys,
            host: event.pubkey,
            start: event.created_at.as_secs(),
            relays: opened.relays.len(),
            table_key,
            spec,
            seat,
            names,
            kept,
        },
    )?
}

struct OpenSeat {
    keys: Keys,
    /// A table key's secret sealed to its identity, for the record (with a signer extension).
    table_key: Option<Value>,
    host: PublicKey,
    start: u64,
    relays: usize,
    spec: TableSpec,
    seat: Seat,
    names: Vec<String>,
    /// A kept record: the seat is taken back.
    kept: Option<(Zeroizing<[u8; 32]>, Vec<Event>)>,
}

impl Visit for OpenSeat {
    type Out = Result<Box<dyn Driven>, String>;
    fn visit<G: TableGame>(self) -> Self::Out {
        let (cfg, game) = check::table_game::<G>(&self.spec, self.start)?;
        let seat_keys = cfg.seats.clone();
        let (master, own) = match self.kept {
            Some((master, own)) => (master, Some(own)),
            None => (fresh_nonce(), None),
        };
        let sealed = seal_to_self(&self.keys, &master)
            .map_err(|e| format!("your key could not keep the seat's secret: {e}"))?;
        let mut session =
            Session::new(cfg, game, Some((self.seat, master))).map_err(|e| e.to_string())?;
        let mut state = RunnerState::new(
            Start {
                seat: Some(self.seat),
                seats: seat_keys.len(),
                resuming: own.is_some(),
                idle: idle_wait(&self.spec.deadlines),
                relays: self.relays,
                clock_skew: 0,
                position: session.position(),
                system: unix_now(),
            },
            Instant::now(),
        );
        let own = own.unwrap_or_default();
        if !own.is_empty() {
            // What it signed before the reload: applied again, and offered again, since the page
            // may have closed before a relay took it.
            session.handle_all(&own);
            state.outbox.extend(own.clone());
        }
        Ok(Box::new(Playing::<G> {
            sealed,
            table_key: self.table_key,
            own,
            keys: self.keys,
            host: self.host,
            spec: self.spec,
            names: self.names,
            seat_keys,
            session,
            state,
            asked: None,
            over: None,
            worker: false,
            out: HashSet::new(),
            jobs: Vec::new(),
            chosen: None,
            waited: 0,
            bot: None,
            unsigned: VecDeque::new(),
            mining: false,
            beats: Vec::new(),
            pow_worker: 0,
            pow_here: 0,
        }))
    }
}

struct Playing<G: TableGame> {
    /// The master secret as the record keeps it, and the events this seat signed.
    sealed: String,
    table_key: Option<Value>,
    own: Vec<Event>,
    keys: Keys,
    host: PublicKey,
    spec: TableSpec,
    names: Vec<String>,
    seat_keys: Vec<PublicKey>,
    session: Session<G>,
    state: RunnerState,
    /// The turn last put to the person, and the moves listed for it.
    asked: Option<(u32, Vec<G::Action>)>,
    /// How the table ended for this seat, once it did.
    over: Option<Value>,
    /// Whether the page's proof worker runs: this seat's shuffles are then proved there.
    worker: bool,
    /// The shuffles handed to the worker and not answered yet, by key.
    out: HashSet<String>,
    /// Jobs for the worker that the next answer of a tick carries.
    jobs: Vec<String>,
    /// A move the person chose while the shuffle due on it was still in the worker: it is
    /// signed as soon as the shuffle is in.
    chosen: Option<(u32, G::Action)>,
    /// How many moves were chosen while their shuffle was in the worker (for tests and reports).
    waited: u64,
    /// A bot that plays this seat (the page's "play against bots"), deciding each turn as the
    /// tick finds it, as the terminal's bot seats do.
    bot: Option<Box<dyn Bot<G>>>,
    /// Events made but not signed yet, in order, waiting for their proof of work (a heartbeat
    /// marked `true`); whether the first is in the worker; heartbeats signed since the last
    /// tick.
    unsigned: VecDeque<(UnsignedEvent, bool)>,
    mining: bool,
    beats: Vec<Event>,
    /// Proofs of work made in the worker and here (for tests and reports).
    pow_worker: u64,
    pow_here: u64,
}

impl<G: TableGame> Playing<G> {
    fn name(&self, s: Seat) -> String {
        seat_name(&self.names, s)
    }

    /// Signs what the session owes, applies it here, and queues it for the relays.
    fn sign_owed(&mut self) -> Result<(), String> {
        for payload in self.session.take_outbox() {
            let at = Timestamp::from(self.state.clock.now(unix_now()));
            let unsigned = log_event(&self.host, &payload)
                .custom_created_at(at)
                .build(self.keys.public_key());
            self.unsigned.push_back((unsigned, false));
        }
        self.sign_queued()
    }

    /// Signs the events waiting, in the order they were made: here when the relays ask no proof
    /// of work, when there is no worker to make it, or when the seat is leaving (its leave must
    /// not wait on a worker the page may close with it); otherwise the first goes to the worker,
    /// and the rest wait for it.
    fn sign_queued(&mut self) -> Result<(), String> {
        let pow = self.spec.pow;
        let here = pow == 0 || !self.worker || self.state.is_leaving();
        if here {
            // The worker's answer for the first, if it was out, comes too late to be used.
            self.mining = false;
        }
        while let Some((first, _)) = self.unsigned.front() {
            if !here {
                if !self.mining {
                    self.jobs.push(mine::job(first, pow));
                    self.mining = true;
                }
                return Ok(());
            }
            let (unsigned, beat) = self.unsigned.pop_front().expect("a first");
            if pow > 0 {
                self.pow_here += 1;
            }
            let ev = mine::signed_here(unsigned, pow, &self.keys)?;
            self.take_signed(ev, beat);
        }
        Ok(())
    }

    /// A signed event of this seat: a heartbeat goes out with the next tick's; a log event is
    /// applied here and queued for the relays.
    fn take_signed(&mut self, ev: Event, beat: bool) {
        if beat {
            self.beats.push(ev);
            return;
        }
        self.session.handle(&ev);
        self.own.push(ev.clone());
        self.state.outbox.push(ev, None);
    }

    /// How the table ended, as every interface says it.
    fn ended(&self, left: Option<String>) -> Value {
        let me = self.session.me();
        let name = |s: Seat| self.name(s);
        let result = with_removals(
            self.session.game().result_line(&name),
            self.session.verdicts(),
            &name,
        );
        let stats = self.session.stats();
        let rejected: Vec<String> = self
            .session
            .violations
            .iter()
            .map(|v| v.text_named(&name))
            .collect();
        json!({
            "finished": self.session.is_finished(),
            "left": left,
            "result": result,
            "line": over_line(&result, stats.events, rejected.len()),
            "rejected": rejected,
            "story": self.session.game().story(me, &name),
            "head": self.session.position().1,
            "report": self.session.game().report(),
        })
    }

    /// The table as this seat sees it now, in words.
    fn table(&self, table_now: u64) -> Value {
        let me = self.session.me();
        let name = |s: Seat| self.name(s);
        let view = self.session.view();
        let silent: Vec<String> = self
            .state
            .silent(table_now)
            .into_iter()
            .filter(|s| Some(*s) != me)
            .map(name)
            .collect();
        let story = self.session.game().story(me, &name);
        let awaiting = if self.session.is_finished() {
            "the table is over".to_string()
        } else {
            waiting_line(&self.session.awaiting(), self.session.game(), &name)
        };
        json!({
            "render": G::render(&view, &name),
            "drawing": G::drawing(&view, &name),
            "story": story,
            "awaiting": awaiting,
            "deadline_in": self.session.deadline().saturating_sub(table_now),
            "silent": silent,
            "relays": self.state.health,
            "step": self.session.position().0,
        })
    }

    /// Whether this seat's next event waits for a shuffle in the worker: the shuffles it needs
    /// and nobody made yet are handed out (once each), and the event is not made meanwhile.
    fn waiting_for_worker(&mut self) -> bool {
        if !self.worker {
            return false;
        }
        let jobs = self.session.shuffle_jobs();
        for job in &jobs {
            if self.out.insert(job.key().to_string()) {
                self.jobs
                    .push(serde_json::to_string(job).expect("jobs serialize"));
            }
        }
        !jobs.is_empty()
    }

    /// The bot's move, when this seat is a bot's and its turn is up.
    fn bot_moves(&mut self) -> Result<(), String> {
        let (Some(bot), Some(turn)) = (self.bot.as_mut(), self.session.my_turn()) else {
            return Ok(());
        };
        let action = bot.choose(&turn.view, &turn.legal);
        self.session
            .submit(&action)
            .map_err(|e| format!("the bot's move could not be signed: {e}"))
    }

    /// Signs the move chosen while its shuffle was in the worker, if it still stands.
    fn submit_chosen(&mut self) -> Result<(), String> {
        let Some((step, action)) = self.chosen.take() else {
            return Ok(());
        };
        if self.session.my_turn().is_some_and(|t| t.step == step) {
            self.session
                .submit(&action)
                .map_err(|e| format!("your move could not be signed: {e}"))?;
        }
        Ok(())
    }

    fn turn(&mut self) -> Value {
        if self.chosen.is_some() {
            return Value::Null;
        }
        let Some(turn) = self.session.my_turn() else {
            self.asked = None;
            return Value::Null;
        };
        let moves: Vec<String> = turn
            .legal
            .iter()
            .map(|a| G::move_text(&turn.view, a))
            .collect();
        let out = json!({
            "step": turn.step,
            "prompt": G::prompt(&turn.view, &turn.legal),
            "moves": moves,
            "sealed": turn.sealed,
        });
        self.asked = Some((turn.step, turn.legal));
        out
    }
}

impl<G: TableGame> Driven for Playing<G> {
    fn filters(&self) -> Value {
        json!({
            "log": wire::log_filter(&self.host, &self.spec.table, &self.seat_keys),
            "presence": wire::presence_filter(&self.host, &self.spec.table, &self.seat_keys),
        })
    }

    fn record(&self) -> Value {
        serde_json::to_value(Record {
            v: RECORD_VERSION,
            table: self.spec.table.clone(),
            master: self.sealed.clone(),
            own: self.own.iter().map(event_json).collect(),
            table_key: self.table_key.clone(),
        })
        .expect("records serialize")
    }

    fn feed(&mut self, events: Vec<Event>) {
        if self.over.is_some() || events.is_empty() {
            return;
        }
        let batch = self.state.heard(events, &self.seat_keys, unix_now());
        if batch.is_empty() {
            return;
        }
        let now = self.state.clock.now(unix_now());
        let batch = self.state.hold(batch, now);
        self.session.handle_all(&batch);
    }

    fn tick(&mut self, connected: usize, notes: Vec<String>) -> Result<Value, String> {
        let mut publish: Vec<Value> = Vec::new();
        let mut beats: Vec<Value> = Vec::new();
        let mut fetch: Vec<Value> = Vec::new();
        if let Some(over) = &self.over {
            return Ok(json!({ "over": over, "publish": publish, "beats": beats,
                "fetch": fetch, "turn": null, "wake_ms": 3_600_000 }));
        }
        // A vote or held events may move the table on: go round again, a bounded number of
        // times (each round that loops applied something).
        for _ in 0..64 {
            let now = Instant::now();
            for w in self.state.ask_now(self.session.wanted(), now) {
                if let (Ok(head), Some(key)) = (
                    EventId::from_hex(&w.head),
                    self.seat_keys.get(w.seat as usize),
                ) {
                    fetch.push(json!(wire::log_filter(
                        &self.host,
                        &self.spec.table,
                        &[*key]
                    )
                    .event(head)));
                }
            }
            let back_now = self.state.looking_back(now) || self.session.out_though_present();
            if back_now && self.session.come_back() {
                self.state.came_back();
            }
            // A leaving seat signs at once, proving here what the worker still holds: its leave
            // must not wait on a worker the page may close with it.
            if !self.state.learning_clock(now)
                && (self.state.is_leaving() || !self.waiting_for_worker())
            {
                self.submit_chosen()?;
                self.bot_moves()?;
                self.sign_owed()?;
            }
            self.state.outbox.release_due(now);
            // The page's pool keeps offering each event to every relay until one takes it.
            while let Some(ev) = self.state.outbox.take_next() {
                publish.push(event_json(&ev));
                self.state.outbox.sent(1);
            }
            self.state.end_round();
            let owes = self.session.owes_unsigned() || self.unsigned.iter().any(|(_, b)| !b);
            if let Some(told) = self.state.left(now, owes) {
                let me = self.session.me();
                let dealt_in = self
                    .session
                    .game()
                    .seats()
                    .into_iter()
                    .filter(|s| Some(*s) != me && !self.session.sitting_out().contains(s))
                    .count();
                let words = left_words(told, G::SITS_OUT, dealt_in < 2, None);
                self.over = Some(self.ended(Some(words)));
                break;
            }
            if self
                .state
                .beat_due(now, self.session.is_finished(), false, true)
            {
                let at = Timestamp::from(self.state.clock.now(unix_now()));
                let beat = wire::presence_event(
                    &self.host,
                    &self.spec.table,
                    self.state.clock.correction(),
                )
                .custom_created_at(at)
                .build(self.keys.public_key());
                // One heartbeat waiting for its proof of work is enough.
                if !self.unsigned.iter().any(|(_, b)| *b) {
                    self.unsigned.push_back((beat, true));
                    self.sign_queued()?;
                }
            }
            beats.extend(self.beats.drain(..).map(|e| event_json(&e)));
            if self.state.health_due(now) {
                self.state.relays_read(connected, notes.clone());
            }
            self.state.progress(self.session.position(), now);
            if self.session.is_finished() && self.state.outbox.drained() {
                self.over = Some(self.ended(None));
                break;
            }
            let table_now = self.state.clock.now(unix_now());
            let patience = self.state.patience(
                self.session.step_secs(),
                relay_secs(&self.spec.deadlines),
                false,
            );
            if self.state.seen_for(now) >= patience && self.session.vote(table_now) {
                continue;
            }
            let due = self.state.release_held(table_now);
            if !due.is_empty() {
                self.session.handle_all(&due);
                continue;
            }
            if self.state.idle_left(now).is_zero() {
                let table_now = self.state.clock.now(unix_now());
                let silent = self.state.silent(table_now);
                let name = |s: Seat| self.name(s);
                let words =
                    stall_words(self.state.idle(), &self.session.awaiting(), &silent, &name);
                return Err(words);
            }
            let wake = self
                .state
                .wake(now, table_now, self.session.vote_due(), patience);
            let table = self.table(table_now);
            let turn = self.turn();
            return Ok(json!({
                "publish": publish,
                "beats": beats,
                "fetch": fetch,
                "turn": turn,
                "table": table,
                "over": null,
                "jobs": std::mem::take(&mut self.jobs),
                "wake_ms": wake.as_millis() as u64,
            }));
        }
        Ok(json!({
            "publish": publish,
            "beats": beats,
            "fetch": fetch,
            "turn": null,
            "table": self.table(self.state.clock.now(unix_now())),
            "over": self.over,
            "jobs": std::mem::take(&mut self.jobs),
            "wake_ms": 0,
        }))
    }

    fn act(&mut self, step: u32, choice: Choice) -> Result<(), String> {
        let Some(turn) = self.session.my_turn() else {
            return Err("it is not your turn any more".into());
        };
        if turn.step != step {
            return Err("that turn is over; the table moved on".into());
        }
        let action = match choice {
            Choice::Listed(i) => match &self.asked {
                Some((s, legal)) if *s == step => legal
                    .get(i)
                    .cloned()
                    .ok_or("there is no such move in the list")?,
                _ => return Err("that turn is over; the table moved on".into()),
            },
            Choice::Typed(text) => G::parse_move(text.trim(), &turn.view, &turn.legal)?,
        };
        // The move carries a shuffle still in the worker: it is signed when the shuffle is in,
        // rather than proved here while the page waits.
        if self.waiting_for_worker() {
            self.chosen = Some((step, action));
            self.waited += 1;
            return Ok(());
        }
        self.session
            .submit(&action)
            .map_err(|e| format!("that move is not allowed now: {e}"))
    }

    fn worker(&mut self, ready: bool) {
        self.worker = ready;
        if !ready {
            // What was out is made here from now on.
            self.out.clear();
            self.jobs.clear();
            self.mining = false;
        }
    }

    fn mined(&mut self, answer: &str) -> Result<(), String> {
        // An answer to a job the seat took back (its worker was given up on) is moot.
        if !self.mining {
            return Ok(());
        }
        self.mining = false;
        let Some((unsigned, beat)) = self.unsigned.pop_front() else {
            return Ok(());
        };
        match mine::signed_with(unsigned.clone(), self.spec.pow, answer, &self.keys) {
            Ok(ev) => {
                self.pow_worker += 1;
                self.take_signed(ev, beat);
                self.sign_queued()
            }
            Err(e) => {
                self.unsigned.push_front((unsigned, beat));
                self.worker(false);
                Err(format!(
                    "{e}; this seat makes its proofs and proofs of work itself from now on"
                ))
            }
        }
    }

    fn shuffled(&mut self, done: &str) -> Result<(), String> {
        let refused = |why: String| {
            format!("the page's proof worker erred ({why}); this seat proves its shuffles itself from now on")
        };
        let done: ShuffleDone =
            serde_json::from_str(done).map_err(|_| refused("its answer is unreadable".into()))?;
        self.out.remove(done.key());
        if let Err(e) = self.session.take_shuffle(&done) {
            self.worker(false);
            return Err(refused(e));
        }
        Ok(())
    }

    fn proofs(&self) -> Value {
        let (made, _) = self.session.own_shuffles_made();
        json!({
            "worker": self.session.own_shuffles_taken(),
            "here": made,
            "moves_waited": self.waited,
            "pow_worker": self.pow_worker,
            "pow_here": self.pow_here,
        })
    }

    fn bot(&mut self, level: BotLevel) {
        use rand::SeedableRng;
        self.bot = Some(G::bot(level, rand::rngs::StdRng::from_entropy()));
    }

    fn leave(&mut self) {
        if self.over.is_some() {
            return;
        }
        if self.session.leave() {
            self.state.leave(Instant::now());
        } else {
            self.over = Some(self.ended(Some("you left the table".into())));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tolerance::wire::{Lobby, LobbyPlayer};

    /// A person who sat down one way and came back the other is told which way to use again;
    /// without a record of the table (or with a damaged one) nothing more is known.
    #[test]
    fn a_seat_taken_the_other_way_says_which_way_to_use() {
        let record = |table_key: Option<Value>| {
            serde_json::to_string(&Record {
                v: RECORD_VERSION,
                table: "t".into(),
                master: String::new(),
                own: Vec::new(),
                table_key,
            })
            .unwrap()
        };
        let page = record(None);
        let extension = record(Some(json!({"key": "k"})));
        for (rec, in_use, words) in [
            (Some(page.as_str()), true, "Stop using the extension"),
            (Some(extension.as_str()), false, "Use my signer extension"),
            (Some(page.as_str()), false, "your key holds no seat"),
            (Some(extension.as_str()), true, "your key holds no seat"),
            (None, true, "your key holds no seat"),
            (Some("{damaged"), true, "your key holds no seat"),
        ] {
            let said = no_seat(rec, in_use);
            assert!(said.contains(words), "{rec:?} {in_use}: {said}");
        }
    }

    fn table(host: &Keys, status: LobbyStatus, players: Vec<LobbyPlayer>) -> TableSpec {
        let mut seats = Vec::new();
        if status == LobbyStatus::Seated {
            seats = players.iter().map(|p| p.pubkey.clone()).collect();
        }
        TableSpec {
            v: wire::VERSION,
            game: "perudo".into(),
            table: "cd".repeat(32),
            setup: json!({}),
            seats,
            deadlines: wire::Pace::Fast.deadlines(),
            lobby: Some(Lobby {
                status,
                title: String::new(),
                public: true,
                min_players: 2,
                max_players: 2,
                relays: vec!["ws://127.0.0.1:7447".into()],
                players: [
                    vec![LobbyPlayer {
                        pubkey: host.public_key().to_hex(),
                        commit: "00".repeat(32),
                        auth: None,
                    }],
                    players,
                ]
                .concat(),
                reason: None,
                round: 0,
                join_pow: None,
                expires: None,
            }),
            pow: 0,
        }
    }

    fn body(v: &Value, keys: &Keys) -> LobbyBody {
        let ev = Event::from_json(v.to_string()).unwrap();
        assert!(ev.verify().is_ok() && ev.pubkey == keys.public_key());
        wire::lobby::parse_lobby(&ev, &"cd".repeat(32))
            .unwrap()
            .body
    }

    /// A host that asks proof of work of requests for a seat: with a worker, the request is
    /// left to it unsigned (nothing published, nothing asked twice meanwhile), and what the
    /// worker finds signs the very request committed to, with the difficulty asked.
    #[test]
    fn a_request_for_a_seat_waits_for_its_proof_of_work_from_the_worker() {
        let (host, me) = (Keys::generate(), Keys::generate());
        let mut joins = HashMap::new();
        let mut open = table(&host, LobbyStatus::Open, Vec::new());
        open.lobby.as_mut().unwrap().join_pow = Some(8);
        mine::mine_elsewhere(true);
        let first = next_join(&me, None, &host.public_key(), &open, &mut joins, 1_000).unwrap();
        mine::mine_elsewhere(false);
        assert_eq!(first["state"], "mining", "{first}");
        assert_eq!(first["publish"], json!([]));
        let again = next_join(&me, None, &host.public_key(), &open, &mut joins, 1_000).unwrap();
        assert_eq!(again["publish"], json!([]), "asked twice: {again}");
        let answer = mine::mine(first["mine"].as_str().unwrap()).unwrap();
        let j = joins.get_mut(&open.table).unwrap();
        let m = j.mining.take().unwrap();
        let ev = mine::signed_with(m.unsigned, m.pow, &answer, &me).unwrap();
        assert!(ev.check_pow(8));
        let LobbyBody::Join { commit, .. } = body(&event_json(&ev), &me) else {
            panic!("not a join: {ev:?}");
        };
        assert_eq!(commit, j.commit);
    }

    /// Asking, being listed, opening the nonce and being seated, as the terminal's join does:
    /// the nonce opened is the one committed to, each message goes once, and a listing under a
    /// commitment this seat never made is refused in words.
    #[test]
    fn a_seat_is_asked_for_once_and_its_nonce_opened_once_the_table_is_full() {
        let (host, me) = (Keys::generate(), Keys::generate());
        let mut joins = HashMap::new();
        let open = table(&host, LobbyStatus::Open, Vec::new());
        let first = next_join(&me, None, &host.public_key(), &open, &mut joins, 1_000).unwrap();
        assert_eq!(first["state"], "asking");
        let LobbyBody::Join { commit, .. } = body(&first["publish"][0], &me) else {
            panic!("not a join: {first}");
        };
        let again = next_join(&me, None, &host.public_key(), &open, &mut joins, 1_000).unwrap();
        assert_eq!(again["publish"], json!([]), "asked twice");
        let listed = vec![LobbyPlayer {
            pubkey: me.public_key().to_hex(),
            commit: commit.clone(),
            auth: None,
        }];
        let starting = table(&host, LobbyStatus::Starting, listed.clone());
        let reveal =
            next_join(&me, None, &host.public_key(), &starting, &mut joins, 1_000).unwrap();
        assert_eq!(reveal["state"], "revealing");
        let LobbyBody::Reveal { nonce } = body(&reveal["publish"][0], &me) else {
            panic!("not a reveal: {reveal}");
        };
        let mut n = [0u8; 32];
        hex::decode_to_slice(&nonce, &mut n).unwrap();
        assert_eq!(seat_commit(&starting.table, &me.public_key(), &n), commit);
        let quiet = next_join(&me, None, &host.public_key(), &starting, &mut joins, 1_000).unwrap();
        assert_eq!(quiet["publish"], json!([]), "revealed twice");
        let seated = table(&host, LobbyStatus::Seated, listed);
        let done = next_join(&me, None, &host.public_key(), &seated, &mut joins, 1_000).unwrap();
        assert_eq!(done["state"], "seated");

        let forged = vec![LobbyPlayer {
            pubkey: me.public_key().to_hex(),
            commit: "11".repeat(32),
            auth: None,
        }];
        let lie = table(&host, LobbyStatus::Starting, forged);
        let err = next_join(&me, None, &host.public_key(), &lie, &mut joins, 1_000).unwrap_err();
        assert_eq!(
            err,
            "the host listed you with a commitment you did not make"
        );
        let mut cancelled = table(&host, LobbyStatus::Cancelled, Vec::new());
        cancelled.lobby.as_mut().unwrap().reason = Some("rain".into());
        let err =
            next_join(&me, None, &host.public_key(), &cancelled, &mut joins, 1_000).unwrap_err();
        assert_eq!(err, "the host cancelled the table: rain");
        let err = next_join(&host, None, &host.public_key(), &open, &mut joins, 1_000).unwrap_err();
        assert!(err.contains("hosts the table"), "{err}");
    }

    /// A reload between asking and being seated: the kept record gives back the same nonce
    /// (so the reveal opens the commitment the host listed), where the asking stood (nothing
    /// is asked twice) and the join to offer the relays again; the nonce is not in the record
    /// in the clear, and another key, another table or a damaged record is refused in words.
    #[test]
    fn a_kept_join_takes_the_asking_back_after_a_reload() {
        let (host, me) = (Keys::generate(), Keys::generate());
        let mut joins = HashMap::new();
        let open = table(&host, LobbyStatus::Open, Vec::new());
        let first = next_join(&me, None, &host.public_key(), &open, &mut joins, 1_000).unwrap();
        let LobbyBody::Join { commit, .. } = body(&first["publish"][0], &me) else {
            panic!("not a join: {first}");
        };
        let kept = join_record(&joins[&open.table], &open.table, &me, None).unwrap();
        let nonce_hex = hex::encode(*joins[&open.table].nonce);
        let text = kept.to_string();
        assert!(!text.contains(&nonce_hex), "the nonce is kept in the clear");

        // The reload: this visit's memory is gone; the record brings the asking back.
        let (joining, own) = read_join_record(&text, &me, &open.table).unwrap();
        assert_eq!(own, vec![first["publish"][0].clone()]);
        let mut joins = HashMap::from([(open.table.clone(), joining)]);
        let again = next_join(&me, None, &host.public_key(), &open, &mut joins, 1_000).unwrap();
        assert_eq!(again["publish"], json!([]), "asked twice after the reload");
        let listed = vec![LobbyPlayer {
            pubkey: me.public_key().to_hex(),
            commit: commit.clone(),
            auth: None,
        }];
        let starting = table(&host, LobbyStatus::Starting, listed);
        let reveal =
            next_join(&me, None, &host.public_key(), &starting, &mut joins, 1_000).unwrap();
        let LobbyBody::Reveal { nonce } = body(&reveal["publish"][0], &me) else {
            panic!("not a reveal: {reveal}");
        };
        assert_eq!(
            nonce, nonce_hex,
            "the reveal opens another nonce than the one committed"
        );
        // Kept again after the reveal: a second reload does not reveal twice.
        let kept = join_record(&joins[&open.table], &open.table, &me, None).unwrap();
        let (joining, own) = read_join_record(&kept.to_string(), &me, &open.table).unwrap();
        assert_eq!(own.len(), 2, "the join and the reveal are offered again");
        let mut joins = HashMap::from([(open.table.clone(), joining)]);
        let quiet = next_join(&me, None, &host.public_key(), &starting, &mut joins, 1_000).unwrap();
        assert_eq!(
            quiet["publish"],
            json!([]),
            "revealed twice after the reload"
        );

        let other = Keys::generate();
        let err = read_join_record(&text, &other, &open.table).err().unwrap();
        assert!(err.contains("kept by another key"), "{err}");
        let err = read_join_record(&text, &me, &"ef".repeat(32))
            .err()
            .unwrap();
        assert!(err.contains("damaged"), "{err}");
        let err = read_join_record("{not json", &me, &open.table)
            .err()
            .unwrap();
        assert!(err.contains("damaged"), "{err}");
    }

    /// With a signer extension the first step asks it to approve the table key, and nothing
    /// goes to the host before; the join then carries the approval, and an older table that
    /// knows no table keys is refused in words.
    #[test]
    fn with_an_extension_the_join_waits_for_its_approval_and_carries_it() {
        let (host, tk, identity) = (Keys::generate(), Keys::generate(), Keys::generate());
        let id = identity.public_key();
        let mut joins = HashMap::new();
        let mut open = table(&host, LobbyStatus::Open, Vec::new());
        open.lobby.as_mut().unwrap().expires = Some(5_000);
        let first =
            next_join(&tk, Some(&id), &host.public_key(), &open, &mut joins, 1_000).unwrap();
        assert_eq!(first["state"], "authorize");
        assert_eq!(first["publish"], json!([]));
        let req = &first["request"];
        assert_eq!(req["kind"], json!(7770));
        assert_eq!(req["pubkey"], json!(id.to_hex()));
        let exp = req["tags"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t[0] == "expiration")
            .unwrap()[1]
            .clone();
        let want = auth::seated_by(5_000, &open.deadlines) + auth::AUTH_MARGIN_SECS;
        assert_eq!(exp, json!(want.to_string()));
        let auth = tolerance::wire::auth::auth_event(
            &tk.public_key(),
            &host.public_key(),
            &open.table,
            9_000,
        )
        .sign_with_keys(&identity)
        .unwrap();
        joins.get_mut(&open.table).unwrap().auth = Some(Box::new(auth.clone()));
        let asked =
            next_join(&tk, Some(&id), &host.public_key(), &open, &mut joins, 1_000).unwrap();
        assert_eq!(asked["state"], "asking");
        let LobbyBody::Join {
            auth: carried,
            commit,
        } = body(&asked["publish"][0], &tk)
        else {
            panic!("not a join: {asked}");
        };
        assert_eq!(carried.as_ref().map(|a| a.id), Some(auth.id));
        // The table full, the table key listed with `auth`.
        let starting = |auth: Option<Box<Event>>| {
            let listed = vec![LobbyPlayer {
                pubkey: tk.public_key().to_hex(),
                commit: commit.clone(),
                auth,
            }];
            table(&host, LobbyStatus::Starting, listed)
        };
        // A host that lists the table key without its authorization, or with one by an
        // identity of its own making, is refused before the nonce is opened.
        let made_up = tolerance::wire::auth::auth_event(
            &tk.public_key(),
            &host.public_key(),
            &open.table,
            9_000,
        )
        .sign_with_keys(&Keys::generate())
        .unwrap();
        for auth in [None, Some(Box::new(made_up))] {
            let lie = starting(auth);
            let err =
                next_join(&tk, Some(&id), &host.public_key(), &lie, &mut joins, 1_000).unwrap_err();
            assert!(
                err.contains("without your table key's authorization"),
                "{err}"
            );
        }
        let honest = starting(carried);
        let reveal = next_join(
            &tk,
            Some(&id),
            &host.public_key(),
            &honest,
            &mut joins,
            1_000,
        )
        .unwrap();
        assert_eq!(reveal["state"], "revealing");

        let mut old = open.clone();
        old.v = 5;
        let err = next_join(
            &tk,
            Some(&id),
            &host.public_key(),
            &old,
            &mut HashMap::new(),
            1_000,
        )
        .unwrap_err();
        assert!(err.contains("older version"), "{err}");
        let err = next_join(
            &tk,
            Some(&host.public_key()),
            &host.public_key(),
            &open,
            &mut joins,
            1,
        )
        .unwrap_err();
        assert!(err.contains("hosts the table"), "{err}");
    }

    /// The record a page keeps gives back the seat's secret to its key only, and a damaged one
    /// is said in words.
    #[test]
    fn a_kept_record_opens_for_its_own_key_only() {
        let me = Keys::generate();
        let master = [7u8; 32];
        let own = EventBuilder::text_note("a move")
            .sign_with_keys(&me)
            .unwrap();
        let record = Record {
            v: RECORD_VERSION,
            table: "t".into(),
            master: nip44::encrypt(
                me.secret_key(),
                &me.public_key(),
                hex::encode(master),
                nip44::Version::V2,
            )
            .unwrap(),
            own: vec![event_json(&own)],
            table_key: None,
        };
        let text = serde_json::to_string(&record).unwrap();
        let (back, events) = read_record(&text, &me, "t").unwrap();
        assert_eq!(*back, master);
        assert_eq!(events, vec![own]);
        let other = read_record(&text, &Keys::generate(), "t").unwrap_err();
        assert!(other.contains("kept by another key"), "{other}");
        let elsewhere = read_record(&text, &me, "u").unwrap_err();
        assert!(elsewhere.contains("damaged"), "{elsewhere}");
        let cut = read_record(&text[..text.len() / 2], &me, "t").unwrap_err();
        assert!(cut.contains("damaged"), "{cut}");
    }
}
