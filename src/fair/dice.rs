//! Dice and shared randomness by sha256 commit-reveal over per-slot values in a Merkle tree.
//!
//! Each seat, once per hand or game, draws a 32-byte seed from the OS RNG and commits to the
//! Merkle root over `L = 2^depth` slot values `v_i = ctx.digest("dice-value", [seed, i])`.
//! Every roll uses one slot `i`, known to all in advance (the table layer numbers them):
//!
//! - **public roll**: every seat reveals `v_i` with its Merkle path (the roller inside its
//!   move, the others in parallel: one relay hop); the dice are
//!   `derive(roll context, v_i of every seat in seat order)`. Nobody can predict the result
//!   before the last reveal, nobody can steer it (all values were committed before the roll);
//!   a seat can only withhold its reveal, which [`missing_seats`] names.
//! - **private roll** for seat `s`: the other seats reveal `v_i` (one hop); only `s`, which
//!   keeps its own `v_i` secret, can derive the dice. `s` cannot choose them (its value was
//!   committed before it saw the others'); to show them, `s` reveals its `v_i` and everyone
//!   recomputes ([`open_private_roll`]).
//!
//! Why a Merkle tree rather than a hash chain `v_i = H(v_{i+1})`: revealing a later link of a
//! chain discloses every earlier one, so a private die that was never opened (Mia's discarded
//! rolls, Perudo's dice of a lost round) would leak as soon as a later slot is revealed. With a
//! tree, each slot is independent and a reveal costs `32 + 32·depth + 4` bytes. A slot is used
//! for exactly one roll: simultaneous private rolls (Perudo: everyone rolls) need one slot per
//! owner, see [`private_slot`].
//!
//! Mapping to a die: a 32-byte key `K = sha256(roll context ‖ lp(v_0) ‖ … ‖ lp(v_{n-1}))` is
//! expanded in counter mode (`sha256(K ‖ u32 counter)`); bytes `b ≥ 256 − (256 mod sides)` are
//! rejected and the rest give `b mod sides + 1`, exactly uniform on `1..=sides`.

use std::fmt;

use rand::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::codec;
use super::context::{encode_fields, update_lp, Context, Label, Step};
use super::FairError;

/// Most slots one commitment can hold (`depth` ≤ 16).
pub const MAX_DICE_SLOTS: u32 = 1 << 16;
/// Fewest sides of a die.
pub const MIN_SIDES: u8 = 2;
/// Most sides of a die.
pub const MAX_SIDES: u8 = 100;
/// Most dice in one roll.
pub const MAX_DICE_PER_ROLL: u8 = 64;
/// Encoded commitment: `depth ‖ digest`.
pub const DICE_COMMITMENT_LEN: usize = 33;

fn leaf_hash(slot: u32, value: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([0x00]);
    h.update(slot.to_be_bytes());
    h.update(value);
    h.finalize().into()
}

fn node_hash(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([0x01]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

fn commitment_digest(ctx: &Context, depth: u8, root: &[u8; 32]) -> [u8; 32] {
    ctx.digest(Label::DiceCommit, &[&[depth], root])
}

fn check_dice_step(ctx: &Context) -> Result<(), FairError> {
    if ctx.step != Step::Dice {
        return Err(FairError::ContextMismatch(
            "dice commitments use the Dice step",
        ));
    }
    Ok(())
}

/// What a seat publishes once per hand or game: the tree depth and the context-bound root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiceCommitment {
    /// `log2` of the number of slots.
    pub depth: u8,
    /// `ctx.digest("dice-commit", [depth, merkle_root])`.
    pub digest: [u8; 32],
}

impl DiceCommitment {
    /// `depth ‖ digest` (33 bytes).
    pub fn to_bytes(&self) -> [u8; DICE_COMMITMENT_LEN] {
        let mut out = [0u8; DICE_COMMITMENT_LEN];
        out[0] = self.depth;
        out[1..].copy_from_slice(&self.digest);
        out
    }

    /// Strict decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FairError> {
        let b: [u8; DICE_COMMITMENT_LEN] = codec::array("dice commitment", bytes)?;
        if b[0] > 16 {
            return Err(FairError::Malformed {
                what: "dice commitment",
            });
        }
        Ok(DiceCommitment {
            depth: b[0],
            digest: b[1..].try_into().expect("fixed split"),
        })
    }

    /// Number of slots.
    pub fn slots(&self) -> u32 {
        1 << self.depth
    }
}

/// A seat's dice seed and Merkle tree. Zeroised on drop; persist with
/// [`DiceSecret::to_bytes`].
pub struct DiceSecret {
    ctx: Context,
    seed: Zeroizing<[u8; 32]>,
    depth: u8,
    /// `levels[0]` are the leaf hashes, the last level is the root.
    levels: Vec<Vec<[u8; 32]>>,
}

impl fmt::Debug for DiceSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DiceSecret")
            .field("seat", &self.ctx.seat)
            .field("slots", &(1u32 << self.depth))
            .finish_non_exhaustive()
    }
}

impl DiceSecret {
    /// Draw a seed from `rng` (OS RNG in the product) and build a tree with at least `slots`
    /// slots (rounded up to a power of two, at most [`MAX_DICE_SLOTS`]). `ctx` is the seat's
    /// context at `Step::Dice`; `ctx.hand` is the hand or game number the commitment covers.
    pub fn generate(
        rng: &mut (impl RngCore + CryptoRng),
        ctx: &Context,
        slots: u32,
    ) -> Result<Self, FairError> {
        let mut seed = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut *seed);
        Self::from_seed(ctx, &seed, slots)
    }

    pub(crate) fn from_seed(ctx: &Context, seed: &[u8; 32], slots: u32) -> Result<Self, FairError> {
        check_dice_step(ctx)?;
        if slots == 0 || slots > MAX_DICE_SLOTS {
            return Err(FairError::BadDiceParams("slots must be 1..=65536"));
        }
        let depth = u8::try_from(slots.next_power_of_two().trailing_zeros()).expect("<= 16");
        let mut secret = DiceSecret {
            ctx: *ctx,
            seed: Zeroizing::new(*seed),
            depth,
            levels: Vec::with_capacity(usize::from(depth) + 1),
        };
        let leaves: Vec<[u8; 32]> = (0..1u32 << depth)
            .map(|i| leaf_hash(i, &secret.value(i)))
            .collect();
        secret.levels.push(leaves);
        while secret.levels.last().expect("non-empty").len() > 1 {
            let below = secret.levels.last().expect("non-empty");
            let up = below.chunks(2).map(|p| node_hash(&p[0], &p[1])).collect();
            secret.levels.push(up);
        }
        Ok(secret)
    }

    /// `seed ‖ depth` for local persistence.
    pub fn to_bytes(&self) -> Zeroizing<[u8; 33]> {
        let mut out = Zeroizing::new([0u8; 33]);
        out[..32].copy_from_slice(&*self.seed);
        out[32] = self.depth;
        out
    }

    /// Inverse of [`DiceSecret::to_bytes`] for the same context.
    pub fn from_bytes(ctx: &Context, bytes: &[u8]) -> Result<Self, FairError> {
        let b: Zeroizing<[u8; 33]> = Zeroizing::new(codec::array("dice secret", bytes)?);
        if b[32] > 16 {
            return Err(FairError::Malformed {
                what: "dice secret",
            });
        }
        let seed: [u8; 32] = b[..32].try_into().expect("fixed split");
        Self::from_seed(ctx, &seed, 1 << b[32])
    }

    /// The value of `slot` (secret until revealed).
    fn value(&self, slot: u32) -> [u8; 32] {
        self.ctx
            .digest(Label::DiceValue, &[&*self.seed, &slot.to_be_bytes()])
    }

    /// The commitment to publish.
    pub fn commitment(&self) -> DiceCommitment {
        let root = self.levels.last().expect("non-empty")[0];
        DiceCommitment {
            depth: self.depth,
            digest: commitment_digest(&self.ctx, self.depth, &root),
        }
    }

    /// Reveal one slot: its value and Merkle path (siblings from the leaf up).
    pub fn reveal(&self, slot: u32) -> Result<DiceReveal, FairError> {
        if slot >= 1 << self.depth {
            return Err(FairError::BadDiceParams("slot beyond the commitment"));
        }
        let mut index = slot as usize;
        let mut path = Vec::with_capacity(usize::from(self.depth));
        for level in &self.levels[..usize::from(self.depth)] {
            path.push(level[index ^ 1]);
            index >>= 1;
        }
        Ok(DiceReveal {
            slot,
            value: self.value(slot),
            path,
        })
    }

    /// This seat's own value for `slot` as a contribution (no proof needed locally).
    fn own(&self, slot: u32) -> VerifiedValue {
        VerifiedValue {
            seat: self.ctx.seat,
            table: self.ctx.table,
            hand: self.ctx.hand,
            slot,
            value: self.value(slot),
        }
    }

    /// The context the commitment was made for.
    pub fn context(&self) -> &Context {
        &self.ctx
    }
}

/// One slot's value with its Merkle path. Wire format: `slot:u32 ‖ value:32 ‖ path:32·depth`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiceReveal {
    /// The roll slot.
    pub slot: u32,
    /// The slot value.
    pub value: [u8; 32],
    /// Sibling hashes from the leaf up to the root.
    pub path: Vec<[u8; 32]>,
}

impl DiceReveal {
    /// `slot ‖ value ‖ path`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(36 + 32 * self.path.len());
        out.extend_from_slice(&self.slot.to_be_bytes());
        out.extend_from_slice(&self.value);
        for p in &self.path {
            out.extend_from_slice(p);
        }
        out
    }

    /// Strict decoding for a commitment of `depth`.
    pub fn from_bytes(bytes: &[u8], depth: u8) -> Result<Self, FairError> {
        let expected = 36 + 32 * usize::from(depth);
        if bytes.len() != expected {
            return Err(FairError::BadLength {
                what: "dice reveal",
                expected,
                got: bytes.len(),
            });
        }
        Ok(DiceReveal {
            slot: u32::from_be_bytes(bytes[..4].try_into().expect("fixed split")),
            value: bytes[4..36].try_into().expect("fixed split"),
            path: bytes[36..]
                .chunks(32)
                .map(|c| c.try_into().expect("exact chunks"))
                .collect(),
        })
    }

    /// Base64 of [`DiceReveal::to_bytes`].
    pub fn to_base64(&self) -> String {
        codec::to_base64(&self.to_bytes())
    }

    /// Strict inverse of [`DiceReveal::to_base64`].
    pub fn from_base64(text: &str, depth: u8) -> Result<Self, FairError> {
        Self::from_bytes(&codec::from_base64("dice reveal", text)?, depth)
    }
}

/// A slot value checked against its seat's commitment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifiedValue {
    seat: u16,
    table: [u8; 32],
    hand: u64,
    slot: u32,
    value: [u8; 32],
}

impl VerifiedValue {
    /// The seat that revealed it.
    pub fn seat(&self) -> u16 {
        self.seat
    }
    /// The slot.
    pub fn slot(&self) -> u32 {
        self.slot
    }
}

/// Check `reveal` against the commitment `ctx.seat` published (`ctx` at `Step::Dice`).
pub fn verify_reveal(
    ctx: &Context,
    commitment: &DiceCommitment,
    reveal: &DiceReveal,
) -> Result<VerifiedValue, FairError> {
    check_dice_step(ctx)?;
    let bad = FairError::BadDiceReveal {
        seat: ctx.seat,
        slot: reveal.slot,
    };
    if reveal.path.len() != usize::from(commitment.depth) || reveal.slot >= commitment.slots() {
        return Err(bad);
    }
    let mut h = leaf_hash(reveal.slot, &reveal.value);
    for (level, sibling) in reveal.path.iter().enumerate() {
        h = if (reveal.slot >> level) & 1 == 0 {
            node_hash(&h, sibling)
        } else {
            node_hash(sibling, &h)
        };
    }
    if commitment_digest(ctx, commitment.depth, &h) != commitment.digest {
        return Err(bad);
    }
    Ok(VerifiedValue {
        seat: ctx.seat,
        table: ctx.table,
        hand: ctx.hand,
        slot: reveal.slot,
        value: reveal.value,
    })
}

/// Everything a roll's outcome is bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Roll {
    /// Table id.
    pub table: [u8; 32],
    /// Hand or game number of the commitments used.
    pub hand: u64,
    /// Slot used by every seat for this roll.
    pub slot: u32,
    /// Number of seats contributing (all seats of the table, in seat order).
    pub seats: u16,
    /// `None`: public roll. `Some(s)`: private dice of seat `s`.
    pub owner: Option<u16>,
    /// Sides per die, 2..=100.
    pub sides: u8,
    /// Number of dice, 1..=64.
    pub count: u8,
}

impl Roll {
    /// `version ‖ lp(domain) ‖ lp("dice-roll") ‖ lp(table) ‖ lp(hand:u64) ‖ lp(slot:u32) ‖
    /// lp(seats:u16) ‖ lp(00 | 01 ‖ owner:u16) ‖ lp(sides) ‖ lp(count)`.
    pub fn encode(&self) -> Vec<u8> {
        let owner = match self.owner {
            None => vec![0],
            Some(s) => {
                let mut v = vec![1];
                v.extend_from_slice(&s.to_be_bytes());
                v
            }
        };
        encode_fields(
            "dice-roll",
            &[
                &self.table,
                &self.hand.to_be_bytes(),
                &self.slot.to_be_bytes(),
                &self.seats.to_be_bytes(),
                &owner,
                &[self.sides],
                &[self.count],
            ],
        )
    }

    fn check(&self) -> Result<(), FairError> {
        if !(MIN_SIDES..=MAX_SIDES).contains(&self.sides) {
            return Err(FairError::BadDiceParams("sides must be 2..=100"));
        }
        if !(1..=MAX_DICE_PER_ROLL).contains(&self.count) {
            return Err(FairError::BadDiceParams("count must be 1..=64"));
        }
        if self.seats == 0 || self.owner.is_some_and(|o| o >= self.seats) {
            return Err(FairError::BadDiceParams("owner must be one of the seats"));
        }
        Ok(())
    }
}

/// The dice for `roll` from every seat's slot value, in seat order (`values.len() == seats`).
/// This is the pure derivation the other roll functions use; exposed for test vectors.
pub fn derive_dice(roll: &Roll, values: &[[u8; 32]]) -> Result<Vec<u8>, FairError> {
    roll.check()?;
    if values.len() != usize::from(roll.seats) {
        return Err(FairError::BadDiceParams("one value per seat"));
    }
    let mut h = Sha256::new();
    h.update(roll.encode());
    for v in values {
        update_lp(&mut h, v);
    }
    let key: [u8; 32] = h.finalize().into();
    let sides = u16::from(roll.sides);
    // Largest multiple of `sides` not above 256: bytes below it map uniformly.
    let limit = 256 - (256 % sides);
    let mut out = Vec::with_capacity(usize::from(roll.count));
    for counter in 0u32.. {
        let mut block = Sha256::new();
        block.update(key);
        block.update(counter.to_be_bytes());
        for b in block.finalize() {
            let b = u16::from(b);
            if b < limit {
                out.push(u8::try_from(b % sides + 1).expect("<= 100"));
                if out.len() == usize::from(roll.count) {
                    return Ok(out);
                }
            }
        }
    }
    unreachable!("a sha256 stream never rejects every byte forever")
}

/// Seat-ordered values for `roll`, or the seats still missing. `expect_owner`: whether the
/// owner's own value must be among them.
fn collect(
    roll: &Roll,
    values: &[VerifiedValue],
    own: Option<VerifiedValue>,
) -> Result<Vec<[u8; 32]>, FairError> {
    roll.check()?;
    let mut by_seat: Vec<Option<[u8; 32]>> = vec![None; usize::from(roll.seats)];
    for v in values.iter().chain(own.iter()) {
        let slot = by_seat
            .get_mut(usize::from(v.seat))
            .ok_or(FairError::Misplaced { seat: v.seat })?;
        if slot.is_some() || v.slot != roll.slot || v.table != roll.table || v.hand != roll.hand {
            return Err(FairError::Misplaced { seat: v.seat });
        }
        *slot = Some(v.value);
    }
    let missing: Vec<u16> = (0..roll.seats)
        .filter(|&s| by_seat[usize::from(s)].is_none())
        .collect();
    if !missing.is_empty() {
        return Err(FairError::Missing { seats: missing });
    }
    Ok(by_seat.into_iter().flatten().collect())
}

/// A public roll: needs every seat's verified value for `roll.slot`.
pub fn public_roll(roll: &Roll, values: &[VerifiedValue]) -> Result<Vec<u8>, FairError> {
    if roll.owner.is_some() {
        return Err(FairError::BadDiceParams("public rolls have no owner"));
    }
    derive_dice(roll, &collect(roll, values, None)?)
}

/// The owner's view of its private dice: the other seats' verified values plus its own
/// secret one.
pub fn private_roll(
    roll: &Roll,
    secret: &DiceSecret,
    others: &[VerifiedValue],
) -> Result<Vec<u8>, FairError> {
    if roll.owner != Some(secret.ctx.seat) {
        return Err(FairError::BadDiceParams("private roll of another seat"));
    }
    if others.iter().any(|v| v.seat == secret.ctx.seat) {
        return Err(FairError::Misplaced {
            seat: secret.ctx.seat,
        });
    }
    derive_dice(roll, &collect(roll, others, Some(secret.own(roll.slot)))?)
}

/// Everyone's check of private dice the owner opened: all seats' verified values, the owner's
/// included.
pub fn open_private_roll(roll: &Roll, values: &[VerifiedValue]) -> Result<Vec<u8>, FairError> {
    if roll.owner.is_none() {
        return Err(FairError::BadDiceParams("use public_roll for public rolls"));
    }
    derive_dice(roll, &collect(roll, values, None)?)
}

/// Seats whose value for `roll.slot` is still missing: every seat for a public roll, every seat
/// but the owner for a private one. The table layer turns a timed-out non-empty answer into a
/// forfeit.
pub fn missing_seats(roll: &Roll, values: &[VerifiedValue]) -> Vec<u16> {
    (0..roll.seats)
        .filter(|&s| Some(s) != roll.owner)
        .filter(|&s| {
            !values.iter().any(|v| {
                v.seat == s && v.slot == roll.slot && v.table == roll.table && v.hand == roll.hand
            })
        })
        .collect()
}

/// Slot for simultaneous private rolls: event `event` (e.g. Perudo round), owner `owner`, so
/// each owner's dice use a slot no other roll touches.
pub fn private_slot(event: u32, owner: u16, seats: u16) -> Option<u32> {
    event
        .checked_mul(u32::from(seats))?
        .checked_add(u32::from(owner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    fn ctx(seat: u16) -> Context {
        Context::new([4; 32], 1, seat, [seat as u8 + 1; 32]).with_step(Step::Dice)
    }

    fn table(n: u16, slots: u32) -> Vec<DiceSecret> {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        (0..n)
            .map(|s| DiceSecret::generate(&mut rng, &ctx(s), slots).unwrap())
            .collect()
    }

    fn roll(slot: u32, owner: Option<u16>, n: u16) -> Roll {
        Roll {
            table: [4; 32],
            hand: 1,
            slot,
            seats: n,
            owner,
            sides: 6,
            count: 5,
        }
    }

    #[test]
    fn reveals_verify_and_roundtrip() {
        for slots in [1, 2, 3, 100, 1024] {
            let secrets = table(2, slots);
            let c = secrets[1].commitment();
            assert_eq!(DiceCommitment::from_bytes(&c.to_bytes()).unwrap(), c);
            for slot in [0, slots / 2, slots - 1] {
                let r = secrets[1].reveal(slot).unwrap();
                let back = DiceReveal::from_bytes(&r.to_bytes(), c.depth).unwrap();
                assert_eq!(back, r);
                assert_eq!(DiceReveal::from_base64(&r.to_base64(), c.depth).unwrap(), r);
                verify_reveal(&ctx(1), &c, &r).unwrap();
            }
        }
    }

    #[test]
    fn commitment_mismatch_rejected() {
        let secrets = table(2, 64);
        let c = secrets[0].commitment();
        let good = secrets[0].reveal(9).unwrap();
        let bad = FairError::BadDiceReveal { seat: 0, slot: 9 };
        let mut v = good.clone();
        v.value[0] ^= 1;
        assert_eq!(verify_reveal(&ctx(0), &c, &v).unwrap_err(), bad);
        let mut p = good.clone();
        p.path[3][5] ^= 1;
        assert_eq!(verify_reveal(&ctx(0), &c, &p).unwrap_err(), bad);
        let mut s = good.clone();
        s.slot = 8;
        assert!(verify_reveal(&ctx(0), &c, &s).is_err());
        let mut short = good.clone();
        short.path.pop();
        assert_eq!(verify_reveal(&ctx(0), &c, &short).unwrap_err(), bad);
        // Another seat's commitment, or the same seat in another hand or table.
        let other = secrets[1].reveal(9).unwrap();
        assert!(verify_reveal(&ctx(0), &c, &other).is_err());
        let moved = Context { hand: 2, ..ctx(0) };
        assert!(verify_reveal(&moved, &c, &good).is_err());
        assert!(verify_reveal(&ctx(1), &c, &good).is_err());
        assert!(DiceReveal::from_bytes(&good.to_bytes()[1..], c.depth).is_err());
        assert!(secrets[0].reveal(64).is_err());
    }

    #[test]
    fn public_and_private_rolls() {
        let n = 3;
        let secrets = table(n, 16);
        let values = |slot: u32, except: Option<u16>| -> Vec<VerifiedValue> {
            (0..n)
                .filter(|&s| Some(s) != except)
                .map(|s| {
                    let r = secrets[usize::from(s)].reveal(slot).unwrap();
                    verify_reveal(&ctx(s), &secrets[usize::from(s)].commitment(), &r).unwrap()
                })
                .collect()
        };
        // Public: order of arrival does not matter, every die in range.
        let all = values(2, None);
        let dice = public_roll(&roll(2, None, n), &all).unwrap();
        assert_eq!(dice.len(), 5);
        assert!(dice.iter().all(|d| (1..=6).contains(d)));
        let mut reversed = all.clone();
        reversed.reverse();
        assert_eq!(public_roll(&roll(2, None, n), &reversed).unwrap(), dice);
        // Missing seats are named.
        assert_eq!(missing_seats(&roll(2, None, n), &all[..1]), vec![1, 2]);
        assert_eq!(
            public_roll(&roll(2, None, n), &all[1..]).unwrap_err(),
            FairError::Missing { seats: vec![0] }
        );
        // Values of another slot are refused.
        assert!(matches!(
            public_roll(&roll(3, None, n), &all),
            Err(FairError::Misplaced { .. })
        ));
        // Private: the owner's view equals everyone's check after it opens.
        let r = roll(private_slot(1, 1, n).unwrap(), Some(1), n);
        let others = values(r.slot, Some(1));
        assert!(missing_seats(&r, &others).is_empty());
        assert_eq!(missing_seats(&r, &others[..1]), vec![2]);
        let mine = private_roll(&r, &secrets[1], &others).unwrap();
        let opened = open_private_roll(&r, &values(r.slot, None)).unwrap();
        assert_eq!(mine, opened);
        assert!(private_roll(&r, &secrets[0], &others).is_err());
        // Persistence keeps the same tree.
        let back = DiceSecret::from_bytes(&ctx(1), &*secrets[1].to_bytes()).unwrap();
        assert_eq!(back.commitment(), secrets[1].commitment());
    }

    #[test]
    fn parameters_checked() {
        let v = [[0u8; 32]; 2];
        let mut r = roll(0, None, 2);
        for sides in [0, 1, 101] {
            r.sides = sides;
            assert!(derive_dice(&r, &v).is_err());
        }
        r.sides = 100;
        r.count = 0;
        assert!(derive_dice(&r, &v).is_err());
        r.count = 64;
        assert_eq!(derive_dice(&r, &v).unwrap().len(), 64);
        assert!(derive_dice(&r, &v[..1]).is_err());
        assert!(DiceSecret::generate(&mut ChaCha20Rng::seed_from_u64(1), &ctx(0), 0).is_err());
        assert!(DiceSecret::generate(
            &mut ChaCha20Rng::seed_from_u64(1),
            &ctx(0),
            MAX_DICE_SLOTS + 1
        )
        .is_err());
        assert!(DiceSecret::generate(
            &mut ChaCha20Rng::seed_from_u64(1),
            &ctx(0).with_step(Step::Keys),
            4
        )
        .is_err());
    }
}
