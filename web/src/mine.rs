//! Proof of work (NIP-13) made off the page's thread. A relay that asks for it, or a host that
//! asks it of requests for a seat (`--join-pow`), makes every such event cost seconds of
//! hashing; done where the page runs, that would freeze it. So the event is built here unsigned,
//! its nonce is searched for in the page's worker (in its own copy of this core, by nostr's
//! miner), and the answer is checked and signed here: a nonce that does not give the asked
//! difficulty is refused, whoever found it.

use nostr::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::cell::Cell;
use wasm_bindgen::prelude::*;

/// What the worker is given: the event as it will be signed, without its nonce tag.
#[derive(Serialize, Deserialize)]
struct Job {
    event: UnsignedEvent,
    difficulty: u8,
}

#[derive(Serialize, Deserialize)]
struct Found {
    nonce: String,
}

thread_local! {
    /// Whether the page has a worker to mine in (set by the page, never by a bot's worker,
    /// which mines where it runs: off the page's thread already).
    static ELSEWHERE: Cell<bool> = const { Cell::new(false) };
}

/// The page has a worker that mines (`true`), or mines where it runs (`false`, the default).
#[wasm_bindgen]
pub fn mine_elsewhere(on: bool) {
    ELSEWHERE.with(|e| e.set(on));
}

/// Whether an event of `pow` bits goes to the worker: it asks work, and the page has a worker.
pub(crate) fn elsewhere(pow: u8) -> bool {
    pow > 0 && ELSEWHERE.with(Cell::get)
}

/// The job for the worker (`{mine: {event, difficulty}}`): an event holds no secret, so the
/// job may go anywhere.
pub(crate) fn job(unsigned: &UnsignedEvent, difficulty: u8) -> String {
    let mut event = unsigned.clone();
    event.id = None;
    json!({ "mine": Job { event, difficulty } }).to_string()
}

/// The worker's side: the nonce that gives the job's event its difficulty (`{nonce}`).
#[wasm_bindgen]
pub fn mine(job: &str) -> Result<String, JsError> {
    let found = || {
        let v: serde_json::Value =
            serde_json::from_str(job).map_err(|_| "the mining job is unreadable".to_string())?;
        let job: Job = serde_json::from_value(v["mine"].clone())
            .map_err(|_| "the mining job is unreadable".to_string())?;
        let nonce = nonce_of(&mined(job.event, job.difficulty))
            .ok_or("nostr's miner gave an event without its nonce")?;
        Ok::<_, String>(json!(Found { nonce }).to_string())
    };
    found().map_err(|e| JsError::new(&e))
}

/// `unsigned` with a nonce tag that gives it `difficulty` bits, by nostr's own miner.
fn mined(unsigned: UnsignedEvent, difficulty: u8) -> UnsignedEvent {
    EventBuilder::new(unsigned.kind, unsigned.content)
        .tags(unsigned.tags)
        .custom_created_at(unsigned.created_at)
        // The tags are the event's as built: nothing is dropped a second time.
        .allow_self_tagging()
        .pow(difficulty)
        .build(unsigned.pubkey)
}

fn nonce_of(ev: &UnsignedEvent) -> Option<String> {
    let tag = ev.tags.iter().last()?;
    match tag.as_slice() {
        [kind, nonce, _] if kind == "nonce" => Some(nonce.clone()),
        _ => None,
    }
}

/// Signs `unsigned` with the nonce the worker found (its answer), once the nonce is seen to
/// give the asked difficulty.
pub(crate) fn signed_with(
    mut unsigned: UnsignedEvent,
    difficulty: u8,
    answer: &str,
    keys: &Keys,
) -> Result<Event, String> {
    let refused = |why: &str| format!("the page's worker sent back no proof of work ({why})");
    let found: Found = serde_json::from_str(answer).map_err(|_| refused("unreadable"))?;
    let nonce: u128 = found
        .nonce
        .parse()
        .map_err(|_| refused("its nonce is not a number"))?;
    unsigned.tags.push(Tag::pow(nonce, difficulty));
    unsigned.id = None;
    if !unsigned.id().check_pow(difficulty) {
        return Err(refused(&format!(
            "its nonce does not give {difficulty} bits"
        )));
    }
    unsigned
        .sign_with_keys(keys)
        .map_err(|e| format!("your key could not sign: {e}"))
}

/// Mines and signs here, where the page has no worker (or its worker is gone); at 0 bits it
/// only signs.
pub(crate) fn signed_here(
    unsigned: UnsignedEvent,
    difficulty: u8,
    keys: &Keys,
) -> Result<Event, String> {
    mined(unsigned, difficulty)
        .sign_with_keys(keys)
        .map_err(|e| format!("your key could not sign: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the worker finds signs an event of the asked difficulty with the table key, and a
    /// nonce that does not give it (a worker gone wrong, or one not ours) is refused.
    #[test]
    fn the_workers_nonce_is_checked_before_the_event_is_signed() {
        let keys = Keys::generate();
        let unsigned = EventBuilder::text_note("a move")
            .tag(Tag::public_key(keys.public_key()))
            .custom_created_at(Timestamp::from(1_700_000_000))
            .build(keys.public_key());
        let answer = mine(&job(&unsigned, 10)).unwrap();
        let ev = signed_with(unsigned.clone(), 10, &answer, &keys).unwrap();
        assert!(ev.verify().is_ok() && ev.check_pow(10));
        assert_eq!(ev.content, "a move");
        assert_eq!(ev.created_at, unsigned.created_at);
        assert_eq!(ev.tags.len(), unsigned.tags.len() + 1, "{:?}", ev.tags);
        // A nonce that does not give the difficulty, as a worker gone wrong would send.
        let n: u128 = serde_json::from_str::<Found>(&answer)
            .unwrap()
            .nonce
            .parse()
            .unwrap();
        let mut wrong = None;
        for other in (n + 1)..(n + 10_000) {
            let mut u = unsigned.clone();
            u.tags.push(Tag::pow(other, 10));
            u.id = None;
            if !u.id().check_pow(10) {
                wrong = Some(other);
                break;
            }
        }
        let wrong = json!({ "nonce": wrong.unwrap().to_string() }).to_string();
        let said = signed_with(unsigned.clone(), 10, &wrong, &keys).unwrap_err();
        assert!(said.contains("does not give 10 bits"), "{said}");
        assert!(signed_with(unsigned.clone(), 10, "{}", &keys).is_err());
        let here = signed_here(unsigned, 10, &keys).unwrap();
        assert!(here.verify().is_ok() && here.check_pow(10));
    }
}
