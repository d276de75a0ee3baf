//! Canonical, length-prefixed context bytes that bind every proof and hash to one table, hand,
//! step and seat.
//!
//! Encoding (all integers big-endian, `lp(x)` = `u16 len(x) ‖ x`):
//!
//! ```text
//! ctx(label) = 0x01                      version
//!            ‖ lp("tolerance/fair")      domain tag
//!            ‖ lp(label)                 purpose, e.g. "proof", "key-commit"
//!            ‖ lp(table: 32 bytes)
//!            ‖ lp(hand: u64)
//!            ‖ lp(step bytes)            see `Step::encode`
//!            ‖ lp(seat: u16)
//!            ‖ lp(actor: 32 bytes)       the seat's x-only Nostr public key
//! ```
//!
//! The same encoding with a different `label` is used for the proofs (`"proof"`) and for
//! each of our own sha256 uses, so no hash input of one purpose can be read as another.

use sha2::{Digest, Sha256};

/// Version byte that starts every context encoding.
pub const CONTEXT_VERSION: u8 = 1;
/// Domain tag that follows the version byte.
pub const DOMAIN: &[u8] = b"tolerance/fair";

/// Which step of the protocol a context belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// Key share, ownership proof and the seat's commitments (pass 1).
    Keys,
    /// Shuffle step number `index` of the hand's chain (0 shuffles the initial deck).
    Shuffle {
        /// Position in the shuffle chain.
        index: u16,
    },
    /// A decryption share for deck `position`; `recipient` is the seat that alone may learn
    /// the card, `None` for a card opened to everyone.
    Reveal {
        /// Deck position (0-based, in the final shuffled deck).
        position: u16,
        /// Seat the card is dealt to, or `None` for a public opening.
        recipient: Option<u16>,
    },
    /// A dice commitment (one per seat per hand or game).
    Dice,
}

impl Step {
    /// `Keys` = `01`; `Shuffle` = `02 ‖ index:u16`; `Reveal` = `03 ‖ position:u16 ‖ (00 |
    /// 01 ‖ recipient:u16)`; `Dice` = `04`.
    pub fn encode(&self) -> Vec<u8> {
        match *self {
            Step::Keys => vec![0x01],
            Step::Shuffle { index } => {
                let mut v = vec![0x02];
                v.extend_from_slice(&index.to_be_bytes());
                v
            }
            Step::Reveal {
                position,
                recipient,
            } => {
                let mut v = vec![0x03];
                v.extend_from_slice(&position.to_be_bytes());
                match recipient {
                    None => v.push(0x00),
                    Some(seat) => {
                        v.push(0x01);
                        v.extend_from_slice(&seat.to_be_bytes());
                    }
                }
                v
            }
            Step::Dice => vec![0x04],
        }
    }
}

/// Purposes a context is encoded for. Each gives a distinct `label` string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Label {
    /// The `ctx` of the ownership, shuffle and DLEQ proofs (the transcript's first input).
    Proof,
    /// Commitment to the seed a key share is derived from.
    KeyCommit,
    /// ChaCha20 seed for key generation.
    KeyRng,
    /// Commitment to the shuffle seed.
    ShuffleCommit,
    /// ChaCha20 seed for one shuffle step.
    ShuffleRng,
    /// Merkle-root commitment of a seat's dice values.
    DiceCommit,
    /// One per-slot dice value.
    DiceValue,
    /// Digest of a deck (for the table layer to reference decks in later events).
    Deck,
}

impl Label {
    /// The label bytes that go into the encoding.
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Proof => "proof",
            Label::KeyCommit => "key-commit",
            Label::KeyRng => "key-rng",
            Label::ShuffleCommit => "shuffle-commit",
            Label::ShuffleRng => "shuffle-rng",
            Label::DiceCommit => "dice-commit",
            Label::DiceValue => "dice-value",
            Label::Deck => "deck",
        }
    }
}

/// Who is acting, where, and in which step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Context {
    /// Table id (e.g. the id of the table's creation event).
    pub table: [u8; 32],
    /// Hand number (or game number for per-game dice commitments).
    pub hand: u64,
    /// Protocol step.
    pub step: Step,
    /// The acting seat (creator of the proof, token or commitment).
    pub seat: u16,
    /// The acting seat's x-only Nostr public key.
    pub actor: [u8; 32],
}

impl Context {
    /// A context for `seat` at the `Keys` step; change the step with [`Context::with_step`].
    pub fn new(table: [u8; 32], hand: u64, seat: u16, actor: [u8; 32]) -> Self {
        Context {
            table,
            hand,
            step: Step::Keys,
            seat,
            actor,
        }
    }

    /// The same context at another step.
    pub fn with_step(mut self, step: Step) -> Self {
        self.step = step;
        self
    }

    /// The same table, hand and step for another seat.
    pub fn with_seat(mut self, seat: u16, actor: [u8; 32]) -> Self {
        self.seat = seat;
        self.actor = actor;
        self
    }

    /// Canonical bytes for `label` (see the module docs for the layout).
    pub fn encode(&self, label: Label) -> Vec<u8> {
        encode_fields(
            label.as_str(),
            &[
                &self.table,
                &self.hand.to_be_bytes(),
                &self.step.encode(),
                &self.seat.to_be_bytes(),
                &self.actor,
            ],
        )
    }

    /// `sha256(ctx(label) ‖ lp(part_1) ‖ … ‖ lp(part_k))`: a hash bound to this context.
    pub fn digest(&self, label: Label, parts: &[&[u8]]) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.encode(label));
        for p in parts {
            update_lp(&mut h, p);
        }
        h.finalize().into()
    }

    /// True when both contexts name the same table and hand.
    pub(crate) fn same_hand(&self, other: &Context) -> bool {
        self.table == other.table && self.hand == other.hand
    }
}

/// `u16 BE length ‖ bytes`. Every field we hash is at most a few KiB.
pub(crate) fn push_lp(out: &mut Vec<u8>, field: &[u8]) {
    let len = u16::try_from(field.len()).expect("context fields are short");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(field);
}

/// Feed `lp(field)` to a running hash.
pub(crate) fn update_lp(h: &mut Sha256, field: &[u8]) {
    let len = u16::try_from(field.len()).expect("hashed fields are short");
    h.update(len.to_be_bytes());
    h.update(field);
}

/// `version ‖ lp(DOMAIN) ‖ lp(label) ‖ lp(field)…`: the common prefix of all our encodings.
pub(crate) fn encode_fields(label: &str, fields: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + fields.iter().map(|f| f.len() + 2).sum::<usize>());
    out.push(CONTEXT_VERSION);
    push_lp(&mut out, DOMAIN);
    push_lp(&mut out, label.as_bytes());
    for f in fields {
        push_lp(&mut out, f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        Context::new([7; 32], 3, 1, [9; 32])
    }

    #[test]
    fn encoding_layout_is_fixed() {
        let bytes = ctx().encode(Label::Proof);
        let mut expect = vec![1u8, 0, 14];
        expect.extend_from_slice(b"tolerance/fair");
        expect.extend_from_slice(&[0, 5]);
        expect.extend_from_slice(b"proof");
        expect.extend_from_slice(&[0, 32]);
        expect.extend_from_slice(&[7; 32]);
        expect.extend_from_slice(&[0, 8, 0, 0, 0, 0, 0, 0, 0, 3]);
        expect.extend_from_slice(&[0, 1, 1]);
        expect.extend_from_slice(&[0, 2, 0, 1]);
        expect.extend_from_slice(&[0, 32]);
        expect.extend_from_slice(&[9; 32]);
        assert_eq!(bytes, expect);
    }

    #[test]
    fn every_field_changes_the_encoding() {
        let base = ctx();
        let variants = [
            Context {
                table: [8; 32],
                ..base
            },
            Context { hand: 4, ..base },
            base.with_step(Step::Shuffle { index: 0 }),
            base.with_step(Step::Reveal {
                position: 0,
                recipient: None,
            }),
            base.with_step(Step::Reveal {
                position: 0,
                recipient: Some(0),
            }),
            base.with_step(Step::Reveal {
                position: 1,
                recipient: Some(0),
            }),
            base.with_step(Step::Dice),
            base.with_seat(2, [9; 32]),
            base.with_seat(1, [10; 32]),
        ];
        let enc = base.encode(Label::Proof);
        let mut seen = vec![enc.clone()];
        for v in variants {
            let e = v.encode(Label::Proof);
            assert!(!seen.contains(&e), "{v:?} collides");
            seen.push(e);
        }
        assert_ne!(enc, base.encode(Label::KeyCommit));
    }

    #[test]
    fn digest_is_length_prefixed() {
        // ("ab","c") and ("a","bc") must not collide.
        let c = ctx();
        assert_ne!(
            c.digest(Label::Deck, &[b"ab", b"c"]),
            c.digest(Label::Deck, &[b"a", b"bc"])
        );
    }
}
