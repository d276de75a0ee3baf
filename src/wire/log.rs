//! The table log, version 2: one event kind and one payload schema for every game.
//!
//! A table's log is a sequence of numbered **steps**. A step is *sequential* (one seat publishes
//! and the chain head moves to that event: a shuffle, a move) or *parallel* (several seats
//! publish contributions that attach to the same head: a setup, reveals, sealed commitments and
//! their openings, acknowledgements, end confirmations, votes). What each step is follows from
//! the game's state, which every client derives from the log; the payload only says which step
//! and head it belongs to and carries its body. Specified in `protocol/PROTOCOL.md` §3–§4.

use super::{check_event, table_coordinate, WireError, KIND_LOG};
use crate::engine::{DeckId, Seat};
use nostr::prelude::*;
use serde::{Deserialize, Serialize};

/// Version of the log payload (and of the table announcement that goes with it): always the
/// protocol's.
pub const LOG_VERSION: u8 = super::VERSION;

/// One deck's shuffle by one participant: the re-masked deck and the Bayer–Groth proof, base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeckShuffle {
    pub deck: DeckId,
    pub cards: String,
    pub proof: String,
}

/// A seat's part of the next deck prepared in the background (PROTOCOL.md §5.9): its key share
/// with ownership proof, or its shuffle of that deck. It rides on whatever event the seat sends
/// anyway, so the next hand's keys and shuffles cost no relay pass of their own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Ahead {
    Keys(String),
    Shuffle { cards: String, proof: String },
}

/// A decryption token (with its proof) for one card, base64. Its context — whom the card goes
/// to — follows from the request it answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenMsg {
    pub deck: DeckId,
    pub position: u16,
    pub token: String,
}

/// A token for a card shown to several seats, encrypted (NIP-44) to one of them with the
/// sender's box key of the epoch: the others of the set must not see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SealedToken {
    pub deck: DeckId,
    pub position: u16,
    pub to: Seat,
    pub sealed: String,
}

/// A card its holder opens for everyone by itself (PROTOCOL.md §5.12): one token (with its
/// proof, base64) per key holder of the deck, in key-holder order — the holder's own and the
/// ones the others sealed to it when the card was dealt to it, all under the context that
/// names the holder as the recipient.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShownCard {
    pub deck: DeckId,
    pub position: u16,
    pub tokens: Vec<String>,
}

/// A whisperer's letters for one whisper (PROTOCOL.md §5.11): its one-time letter key (x-only
/// hex) and one NIP-44 v2 payload (base64) per candidate, in the whisper's candidate order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LetterMsg {
    pub key: String,
    pub sealed: Vec<String>,
}

/// What an event says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Body {
    /// Parallel, every participant: a key share with its ownership proof per new deck of the
    /// batch (base64, in the batch's deck order), the dice commitment (hex) and the box key
    /// (hex x-only public key) of the epoch this step opens.
    Setup {
        shares: Vec<String>,
        dice: String,
        #[serde(rename = "box")]
        box_key: String,
        /// Seats sitting out whose signed `back` this participant holds: dealt in again from the
        /// next hand when every participant of this setup names them (PROTOCOL §7.10).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        back: Vec<u8>,
    },
    /// Sequential, each participant in turn: its shuffle of every new deck of the batch, and the
    /// dice values it owes for the batch (base64 reveals, by slot).
    Shuffle {
        decks: Vec<DeckShuffle>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        dice: Vec<String>,
    },
    /// Parallel, every participant that owes something for the batch: decryption tokens (by deck
    /// and position), sealed tokens for cards shown to several seats, dice values (by slot).
    Reveal {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tokens: Vec<TokenMsg>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        sealed: Vec<SealedToken>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        dice: Vec<String>,
        /// Cards the sender, their holder, opens for everyone by itself (§5.12).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        shown: Vec<ShownCard>,
    },
    /// Parallel, every candidate of the batch's whispers (PROTOCOL.md §5.11): one mailbox key
    /// (x-only hex) per whisper it is a candidate of, in request order — a key of its own if it
    /// holds the whispered card, a decoy nobody can read otherwise.
    Mailbox { keys: Vec<String> },
    /// Parallel, the whisperer of each of the batch's whispers: its letters, in request order.
    Letter { letters: Vec<LetterMsg> },
    /// Parallel, at the opening of whispers: what each seat owes, in request order (hex): the
    /// whisperer's letter-key secret, or a non-holder's decoy seed.
    Unseal { secrets: Vec<String> },
    /// Sequential: the game move of the seat to act, as the game writes its actions in JSON.
    /// From version 9, `tokens`: the sender's tokens for the cards the move has shown, exactly
    /// those it would owe in the reveal stage of the chance batch the game asks for next
    /// (PROTOCOL.md §5.4), so a card its holder shows by its own move costs no pass of its own.
    Move {
        action: serde_json::Value,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tokens: Vec<TokenMsg>,
    },
    /// Parallel, each seat of a sealed decision: `sha256` (hex) of its move and a secret salt;
    /// `mine` is the move encrypted to the seat itself, so it can open it after a restart.
    Seal {
        commitment: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mine: Option<String>,
    },
    /// Parallel, after every seal is in: the sealed move and its salt (hex). From version 9,
    /// `tokens`: the sender's tokens for the cards of its own its move shows once every move is
    /// open (a mark), exactly as PROTOCOL.md §6.2 fixes them.
    Open {
        action: serde_json::Value,
        salt: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tokens: Vec<TokenMsg>,
    },
    /// Parallel, a seat that was timed out: it is still here and accepts the timeout.
    Ack {},
    /// Parallel, every seat still at the table once the game is over: it saw this final head.
    End {},
    /// A timeout vote: the sender's deadline for the step passed without these seats' events.
    Vote { missing: Vec<Seat> },
    /// The sender leaves the table for good: from this step on it is removed wherever the
    /// table waits for it, at once and without votes, and it votes no more.
    Leave {},
    /// The sender, sitting out, asks to be dealt in again (after a leave, a crash or a timeout).
    Back {},
    /// Parallel, at a return step (version 5, PROTOCOL.md §7.10): the sender, sitting out while
    /// the table waits for it with fewer than two seats dealt in, is back and is dealt in.
    Return {},
    /// Proof of misconduct: the offending signed events verbatim (or their ids when both would
    /// not fit in one event; relays keep the originals).
    Evidence {
        offender: Seat,
        reason: String,
        events: Vec<String>,
    },
}

impl Body {
    pub fn name(&self) -> &'static str {
        match self {
            Body::Setup { .. } => "setup",
            Body::Shuffle { .. } => "shuffle",
            Body::Reveal { .. } => "reveal",
            Body::Mailbox { .. } => "mailbox",
            Body::Letter { .. } => "letter",
            Body::Unseal { .. } => "unseal",
            Body::Move { .. } => "move",
            Body::Seal { .. } => "seal",
            Body::Open { .. } => "open",
            Body::Ack {} => "ack",
            Body::End {} => "end",
            Body::Vote { .. } => "vote",
            Body::Leave {} => "leave",
            Body::Back {} => "back",
            Body::Return {} => "return",
            Body::Evidence { .. } => "evidence",
        }
    }

    /// Votes, leaves and evidence are not a step's contribution (and may be repeated);
    /// everything else is one per seat and step, and a second one is a fork.
    pub fn is_contribution(&self) -> bool {
        !matches!(
            self,
            Body::Vote { .. } | Body::Leave {} | Body::Back {} | Body::Evidence { .. }
        )
    }
}

/// The content of a log event. (serde cannot refuse unknown fields next to a flattened enum;
/// the `v` field versions the schema instead.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payload {
    pub v: u8,
    pub table: String,
    /// The step this event belongs to, from 0 for the whole table.
    pub step: u32,
    /// The chain head it builds on: the table id before the first sequential event, an event id,
    /// or a synthetic head after a timeout or forfeit.
    pub prev: String,
    /// The sender's part of the deck prepared ahead, when the table expects one from it at
    /// this step (PROTOCOL.md §5.9); only on events a step waits for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ahead: Option<Ahead>,
    #[serde(flatten)]
    pub body: Body,
}

/// Builds (unsigned) a log event of the table announced by `host`.
pub fn log_event(host: &PublicKey, payload: &Payload) -> EventBuilder {
    let mut tags = vec![Tag::coordinate(
        table_coordinate(host, &payload.table),
        None,
    )];
    // Every head is 32 bytes (an event id, the table id or a synthetic head, PROTOCOL.md §4.1).
    if let Ok(prev) = EventId::from_hex(&payload.prev) {
        tags.push(Tag::event(prev));
    }
    EventBuilder::new(
        Kind::from(KIND_LOG),
        serde_json::to_string(payload).expect("payloads serialise"),
    )
    .tags(tags)
}

/// Parses and checks a log event of `table`: size, kind, signature, schema version.
pub fn parse_log(event: &Event, table: &str) -> Result<Payload, WireError> {
    check_event(event, KIND_LOG)?;
    let id = event.id.to_hex();
    // The version first, so an old client's event is named as such rather than as garbage.
    #[derive(Deserialize)]
    struct Versioned {
        v: u8,
    }
    let v = match serde_json::from_str::<Versioned>(&event.content) {
        Ok(Versioned { v }) if !super::READS.contains(&v) => {
            return Err(WireError::Version { id, got: v });
        }
        Ok(Versioned { v }) => Some(v),
        Err(_) => None,
    };
    let malformed = |e: serde_json::Error| WireError::Malformed {
        id: id.clone(),
        reason: e.to_string(),
    };
    let p: Payload = match v {
        // Before version 9 a move's `tokens` was a field its clients ignored, whatever it held:
        // this client ignores it there too, so it judges an old table as they did (§10.1).
        Some(v) if v < super::TOKENS_ON_MOVES_SINCE => {
            let mut value: serde_json::Value =
                serde_json::from_str(&event.content).map_err(malformed)?;
            if let Some(o) = value.as_object_mut() {
                if matches!(
                    o.get("type").and_then(|t| t.as_str()),
                    Some("move" | "open")
                ) {
                    o.remove("tokens");
                }
            }
            serde_json::from_value(value).map_err(malformed)?
        }
        _ => serde_json::from_str(&event.content).map_err(malformed)?,
    };
    if p.table != table {
        return Err(WireError::OtherTable {
            id,
            got: p.table,
            want: table.to_string(),
        });
    }
    // The `e` tag names the head the event builds on, so that a client can ask relays for the
    // events of one step (a flood may have cost it one): it must say what `prev` says.
    let tagged: Vec<EventId> = event.tags.event_ids().copied().collect();
    let prev_ok = match EventId::from_hex(&p.prev) {
        Ok(prev) => tagged == [prev],
        Err(_) => false,
    };
    if !prev_ok {
        return Err(WireError::Malformed {
            id,
            reason: "its `prev` is not 64 hex digits, or its `e` tag does not name it".into(),
        });
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_round_trip_and_old_versions_are_named() {
        let host = Keys::generate();
        let p = Payload {
            v: LOG_VERSION,
            table: hex::encode([7u8; 32]),
            step: 9,
            prev: hex::encode([1u8; 32]),
            ahead: None,
            body: Body::Move {
                action: serde_json::json!({"raise": {"to": 40}}),
                tokens: Vec::new(),
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
        let old = EventBuilder::new(
            Kind::from(KIND_LOG),
            serde_json::json!({"v": 1, "table": p.table, "hand": 0, "step": 0,
                "prev": p.table, "type": "end"})
            .to_string(),
        )
        .sign_with_keys(&host)
        .unwrap();
        let err = parse_log(&old, &p.table).unwrap_err();
        assert!(matches!(err, WireError::Version { got: 1, .. }), "{err}");
        // Version 3 judged the same events by other rules (votes without the relay allowance,
        // heads-up timeouts never final): named as older, never read.
        let v2 = EventBuilder::new(
            Kind::from(KIND_LOG),
            serde_json::json!({"v": 3, "table": p.table, "step": 0,
                "prev": p.table, "type": "end"})
            .to_string(),
        )
        .sign_with_keys(&host)
        .unwrap();
        let err = parse_log(&v2, &p.table).unwrap_err();
        assert!(err.to_string().contains("older version"), "{err}");
        let bad = EventBuilder::new(Kind::from(KIND_LOG), format!("{{\"v\":{LOG_VERSION}}}"))
            .sign_with_keys(&host)
            .unwrap();
        assert!(matches!(
            parse_log(&bad, &p.table),
            Err(WireError::Malformed { .. })
        ));
        let mut forged = ev.clone();
        forged.content = forged.content.replace("40", "41");
        assert!(matches!(
            parse_log(&forged, &p.table),
            Err(WireError::BadSignature { .. })
        ));
    }

    #[test]
    fn every_body_round_trips() {
        let bodies = vec![
            Body::Setup {
                shares: vec!["AAAA".into()],
                dice: "00".into(),
                box_key: "11".into(),
                back: vec![1],
            },
            Body::Shuffle {
                decks: vec![DeckShuffle {
                    deck: 3,
                    cards: "AA".into(),
                    proof: "BB".into(),
                }],
                dice: vec![],
            },
            Body::Reveal {
                tokens: vec![TokenMsg {
                    deck: 3,
                    position: 4,
                    token: "CC".into(),
                }],
                sealed: vec![],
                dice: vec!["DD".into()],
                shown: vec![ShownCard {
                    deck: 9,
                    position: 1,
                    tokens: vec!["EE".into(), "FF".into()],
                }],
            },
            Body::Mailbox {
                keys: vec!["ee".into()],
            },
            Body::Letter {
                letters: vec![LetterMsg {
                    key: "ff".into(),
                    sealed: vec!["AgAA".into()],
                }],
            },
            Body::Unseal {
                secrets: vec!["01".into()],
            },
            Body::Seal {
                commitment: "ab".into(),
                mine: None,
            },
            Body::Open {
                action: serde_json::json!("stay"),
                salt: "cd".into(),
                tokens: Vec::new(),
            },
            Body::Ack {},
            Body::End {},
            Body::Vote { missing: vec![1] },
            Body::Leave {},
        ];
        for body in bodies {
            let p = Payload {
                v: LOG_VERSION,
                table: "t".into(),
                step: 1,
                prev: "p".into(),
                ahead: None,
                body,
            };
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(serde_json::from_str::<Payload>(&json).unwrap(), p, "{json}");
        }
    }
}
