//! Test vectors in `protocol/vectors/fair_*.json`, regenerated from fixed seeds on every test
//! run and compared byte for byte with the committed files, so they cannot drift from the code.
//! `FAIR_WRITE_VECTORS=1 cargo test --release --lib fair::vectors` rewrites them.
//!
//! What another implementation can do with them: recompute every context encoding, commitment,
//! Merkle path, die and public generator exactly; verify (not necessarily reproduce) every key
//! proof, shuffle proof and token, and check the opened cards. Reproducing the proofs byte for
//! byte also needs the prover's exact use of the ChaCha20 stream (whose seeds are listed; the
//! order is ziffle's, protocol/FAIR.md §9.3).

use std::path::PathBuf;

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::dice::{self, DiceSecret, Roll};
use super::tests::{actor, ctx, TABLE};
use super::*;

fn seed(label: &str) -> [u8; 32] {
    Sha256::digest(label.as_bytes()).into()
}

fn step_json(step: &Step) -> Value {
    match *step {
        Step::Keys => json!({ "kind": "keys" }),
        Step::Shuffle { index } => json!({ "kind": "shuffle", "index": index }),
        Step::Reveal {
            position,
            recipient,
        } => json!({ "kind": "reveal", "position": position, "recipient": recipient }),
        Step::Dice => json!({ "kind": "dice" }),
    }
}

fn ctx_json(c: &Context) -> Value {
    json!({
        "table": hex::encode(c.table),
        "hand": c.hand,
        "step": step_json(&c.step),
        "seat": c.seat,
        "actor": hex::encode(c.actor),
    })
}

const HAND: u64 = 42;
const SEATS: u16 = 3;
const SIZE: usize = 10;

fn contexts() -> Value {
    let base = ctx(1, HAND);
    let cases = [
        (base, Label::Proof),
        (base, Label::KeyCommit),
        (base.with_step(Step::Shuffle { index: 1 }), Label::Proof),
        (
            base.with_step(Step::Shuffle { index: 1 }),
            Label::ShuffleRng,
        ),
        (
            base.with_step(Step::Reveal {
                position: 5,
                recipient: Some(2),
            }),
            Label::Proof,
        ),
        (
            base.with_step(Step::Reveal {
                position: 300,
                recipient: None,
            }),
            Label::Proof,
        ),
        (base.with_step(Step::Dice), Label::DiceCommit),
    ];
    let list: Vec<Value> = cases
        .iter()
        .map(|(c, label)| {
            json!({ "context": ctx_json(c), "label": label.as_str(), "bytes": hex::encode(c.encode(*label)) })
        })
        .collect();
    json!({
        "description": "Context encodings: 0x01 ‖ lp(\"tolerance/fair\") ‖ lp(label) ‖ lp(table) ‖ lp(hand u64) ‖ lp(step) ‖ lp(seat u16) ‖ lp(actor); lp = u16 BE length prefix",
        "cases": list,
    })
}

fn secrets() -> Vec<SecretShare> {
    (0..SEATS)
        .map(|s| {
            let mut b = [0u8; 64];
            b[..32].copy_from_slice(&seed(&format!("key seed {s}")));
            b[32..].copy_from_slice(&seed(&format!("shuffle seed {s}")));
            SecretShare::from_bytes(&ctx(s, HAND), &b).unwrap()
        })
        .collect()
}

fn keys_and_commitments(secrets: &[SecretShare]) -> (Value, Value, JointKey) {
    let mut keys = Vec::new();
    let mut commits = Vec::new();
    let mut verified = Vec::new();
    for s in secrets {
        let c = s.context();
        let p = s.public_share();
        let o = s.opening();
        commits.push(json!({
            "context": ctx_json(c),
            "key_seed": hex::encode(o.key_seed),
            "shuffle_seed": hex::encode(o.shuffle_seed),
            "key_commitment": hex::encode(p.key_commitment),
            "shuffle_commitment": hex::encode(p.shuffle_commitment),
            "key_rng_seed": hex::encode(c.digest(Label::KeyRng, &[&o.key_seed])),
        }));
        keys.push(json!({
            "context": ctx_json(c),
            "proof_context": hex::encode(c.encode(Label::Proof)),
            "public_share": hex::encode(p.to_bytes()),
            "pk": hex::encode(p.pk),
            "ownership_proof": hex::encode(p.proof),
        }));
        verified.push(verify_public_share(c, p).unwrap());
    }
    let key = JointKey::from_seats(&verified).unwrap();
    let keys = json!({
        "description": "Key shares (ziffle keygen driven by ChaCha20Rng(key_rng_seed)), Schnorr ownership proofs over proof_context, joint key = sum of shares, digest per FAIR.md",
        "seats": keys,
        "joint_key": hex::encode(key.to_bytes()),
        "joint_key_digest": hex::encode(key.digest()),
    });
    let commits = json!({
        "description": "Seat commitments: sha256(ctx(label) ‖ lp(seed)) with labels key-commit and shuffle-commit at the Keys step",
        "seats": commits,
    });
    (keys, commits, key)
}

/// The bytes of the deck a step shuffles (the previous deck, or the initial one).
fn input_bytes(prev: Option<&VerifiedDeck>) -> Vec<u8> {
    super::shuffle::input_deck(SIZE, prev).1
}

fn shuffles_and_tokens(secrets: &[SecretShare], key: &JointKey) -> (Value, Value) {
    let mut steps = Vec::new();
    let mut prev: Option<VerifiedDeck> = None;
    for (k, s) in secrets.iter().enumerate() {
        let index = u16::try_from(k).unwrap();
        let c = s.context().with_step(Step::Shuffle { index });
        let (mine, proof) = shuffle_verified(s, &c, key, SIZE, prev.as_ref()).unwrap();
        let deck = mine.deck();
        steps.push(json!({
            "context": ctx_json(&c),
            "proof_context": hex::encode(c.encode(Label::Proof)),
            "rng_seed": hex::encode(c.digest(
                Label::ShuffleRng,
                &[
                    &s.opening().shuffle_seed,
                    &Sha256::digest(input_bytes(prev.as_ref())),
                ],
            )),
            "permutation": super::shuffle::step_permutation(
                &c,
                &s.opening().shuffle_seed,
                SIZE,
                prev.as_ref(),
            ),
            "deck": hex::encode(deck.to_bytes()),
            "proof": hex::encode(proof.to_bytes()),
        }));
        prev = Some(verify_shuffle(&c, key, SIZE, prev.as_ref(), deck, &proof).unwrap());
    }
    let deck = prev.unwrap();
    let shuffles = json!({
        "description": "Shuffle chain for a 10-card deck, seat k doing step k, its randomness ChaCha20Rng(rng_seed), rng_seed = ctx.digest(shuffle-rng, [shuffle_seed, sha256(input deck bytes)]); output position i holds input position permutation[i]",
        "size": SIZE,
        "steps": steps,
    });

    let mut rng = ChaCha20Rng::seed_from_u64(2024);
    let mut tokens = Vec::new();
    let mut cards = Vec::new();
    for (position, recipient) in [(0u16, Some(1u16)), (7, None)] {
        let mut verified = Vec::new();
        for (k, s) in secrets.iter().enumerate() {
            let seat = u16::try_from(k).unwrap();
            let c = s.context().with_step(Step::Reveal {
                position,
                recipient,
            });
            let t = reveal_token(&mut rng, s, &c, &deck).unwrap();
            verified.push(verify_token(&c, key.share(seat).unwrap(), &deck, &t).unwrap());
            tokens.push(json!({
                "context": ctx_json(&c),
                "proof_context": hex::encode(c.encode(Label::Proof)),
                "token": hex::encode(t.to_bytes()),
                "published": Some(seat) != recipient,
            }));
        }
        cards.push(json!({
            "position": position,
            "card": open_card(key, &deck, position, &verified).unwrap(),
        }));
    }
    let tokens = json!({
        "description": "Reveal tokens (sk·c1 ‖ DLEQ proof) on the final deck of fair_shuffle.json; the recipient's own token of a private card is never published",
        "tokens": tokens,
        "opened": cards,
    });
    (shuffles, tokens)
}

fn dice_vectors() -> Value {
    let secrets: Vec<DiceSecret> = (0..SEATS)
        .map(|s| {
            let c = ctx(s, HAND).with_step(Step::Dice);
            DiceSecret::from_seed(&c, &seed(&format!("dice seed {s}")), 8).unwrap()
        })
        .collect();
    let mut seats = Vec::new();
    for (k, s) in secrets.iter().enumerate() {
        let c = s.context();
        let reveals: Vec<Value> = [0u32, 5]
            .iter()
            .map(|&slot| json!({ "slot": slot, "reveal": hex::encode(s.reveal(slot).unwrap().to_bytes()) }))
            .collect();
        seats.push(json!({
            "context": ctx_json(c),
            "seed": hex::encode(seed(&format!("dice seed {k}"))),
            "commitment": hex::encode(s.commitment().to_bytes()),
            "reveals": reveals,
        }));
    }
    let values = |slot: u32| -> Vec<[u8; 32]> {
        secrets
            .iter()
            .map(|s| s.reveal(slot).unwrap().value)
            .collect()
    };
    let mut rolls = Vec::new();
    for (slot, owner, sides, count) in [
        (5u32, None, 6u8, 1u8),
        (5, None, 100, 3),
        (0, Some(1u16), 6, 5),
        (0, Some(2), 2, 64),
        (5, None, 7, 10),
    ] {
        let roll = Roll {
            table: TABLE,
            hand: HAND,
            slot,
            seats: SEATS,
            owner,
            sides,
            count,
        };
        rolls.push(json!({
            "table": hex::encode(TABLE), "hand": HAND, "slot": slot, "seats": SEATS,
            "owner": owner, "sides": sides, "count": count,
            "roll_context": hex::encode(roll.encode()),
            "values": values(slot).iter().map(hex::encode).collect::<Vec<_>>(),
            "dice": dice::derive_dice(&roll, &values(slot)).unwrap(),
        }));
    }
    json!({
        "description": "Dice: v_i = sha256(ctx(dice-value) ‖ lp(seed) ‖ lp(i u32)); leaf = sha256(00 ‖ i ‖ v_i); node = sha256(01 ‖ l ‖ r); commitment = depth ‖ sha256(ctx(dice-commit) ‖ lp(depth) ‖ lp(root)); reveal = slot ‖ v ‖ path; dice by rejection sampling over sha256(K ‖ u32 counter)",
        "seats": seats,
        "rolls": rolls,
    })
}

fn generator_vectors() -> Value {
    use super::bg::group::{generators, point_bytes};
    let g = generators(1024);
    let pick = [0usize, 1, 2, 3, 51, 103, 135, 1023];
    let list = |points: &[super::bg::group::Affine]| -> Vec<Value> {
        pick.iter()
            .map(|&i| json!({ "index": i, "point": hex::encode(point_bytes(&points[i])) }))
            .collect()
    };
    json!({
        "description": "Public generators (protocol/FAIR.md §9.2): h, g_i and card points M_i, compressed. Each list is one ChaCha12 stream seeded with sha256 of a label; entry i is the i-th draw, so every deck size uses a prefix of the same lists",
        "h": hex::encode(point_bytes(&g.h)),
        "g": list(&g.g),
        "cards": list(&g.cards),
    })
}

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("protocol/vectors")
}

fn generate() -> Vec<(&'static str, Value)> {
    let secrets = secrets();
    let (keys, commits, key) = keys_and_commitments(&secrets);
    let (shuffles, tokens) = shuffles_and_tokens(&secrets, &key);
    vec![
        ("fair_context.json", contexts()),
        ("fair_commitments.json", commits),
        ("fair_keys.json", keys),
        ("fair_shuffle.json", shuffles),
        ("fair_tokens.json", tokens),
        ("fair_dice.json", dice_vectors()),
        ("fair_generators.json", generator_vectors()),
    ]
}

#[test]
fn vectors_are_current() {
    let write = std::env::var_os("FAIR_WRITE_VECTORS").is_some();
    for (name, value) in generate() {
        let text = serde_json::to_string_pretty(&value).unwrap() + "\n";
        let path = vectors_dir().join(name);
        if write {
            std::fs::create_dir_all(vectors_dir()).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run with FAIR_WRITE_VECTORS=1 to create it",
                path.display()
            )
        });
        assert!(
            on_disk == text,
            "{name} differs from what the code produces; if the change is intended, rerun with FAIR_WRITE_VECTORS=1"
        );
    }
}

fn from_hex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

fn read(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(vectors_dir().join(name)).unwrap()).unwrap()
}

/// What a second implementation would do: verify the published bytes from the files alone.
#[test]
fn vectors_verify_from_the_files() {
    let keys = read("fair_keys.json");
    let verified: Vec<VerifiedShare> = keys["seats"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let p = PublicShare::from_bytes(&from_hex(&s["public_share"])).unwrap();
            verify_public_share(&ctx(u16::try_from(k).unwrap(), HAND), &p).unwrap()
        })
        .collect();
    let key = JointKey::from_seats(&verified).unwrap();
    assert_eq!(
        hex::encode(key.digest()),
        keys["joint_key_digest"].as_str().unwrap()
    );

    let shuffles = read("fair_shuffle.json");
    let mut prev: Option<VerifiedDeck> = None;
    for (k, s) in shuffles["steps"].as_array().unwrap().iter().enumerate() {
        let index = u16::try_from(k).unwrap();
        let c = ctx(index, HAND).with_step(Step::Shuffle { index });
        assert_eq!(
            hex::encode(c.encode(Label::Proof)),
            s["proof_context"].as_str().unwrap()
        );
        prev = Some(
            verify_shuffle_bytes(
                &c,
                &key,
                SIZE,
                prev.as_ref(),
                &from_hex(&s["deck"]),
                &from_hex(&s["proof"]),
            )
            .unwrap(),
        );
    }
    let deck = prev.unwrap();

    let tokens = read("fair_tokens.json");
    let mut by_position: std::collections::BTreeMap<u64, Vec<VerifiedToken>> = Default::default();
    for t in tokens["tokens"].as_array().unwrap() {
        let c = &t["context"];
        let seat = u16::try_from(c["seat"].as_u64().unwrap()).unwrap();
        let position = c["step"]["position"].as_u64().unwrap();
        let recipient = c["step"]["recipient"]
            .as_u64()
            .map(|r| u16::try_from(r).unwrap());
        let rc = ctx(seat, HAND).with_step(Step::Reveal {
            position: u16::try_from(position).unwrap(),
            recipient,
        });
        let token = RevealToken::from_bytes(&from_hex(&t["token"])).unwrap();
        let v = verify_token(&rc, key.share(seat).unwrap(), &deck, &token).unwrap();
        by_position.entry(position).or_default().push(v);
    }
    for o in tokens["opened"].as_array().unwrap() {
        let position = o["position"].as_u64().unwrap();
        let card = open_card(
            &key,
            &deck,
            u16::try_from(position).unwrap(),
            &by_position[&position],
        )
        .unwrap();
        assert_eq!(card as u64, o["card"].as_u64().unwrap());
    }
    assert_eq!(actor(0), ctx(0, HAND).actor);

    // The generators: the listed entries of each stream, recomputed here.
    let gens = read("fair_generators.json");
    let ours = super::bg::group::generators(1024);
    let enc = |p: &super::bg::group::Affine| hex::encode(super::bg::group::point_bytes(p));
    assert_eq!(gens["h"].as_str().unwrap(), enc(&ours.h));
    for (list, points) in [("g", &ours.g), ("cards", &ours.cards)] {
        for e in gens[list].as_array().unwrap() {
            let i = usize::try_from(e["index"].as_u64().unwrap()).unwrap();
            assert_eq!(e["point"].as_str().unwrap(), enc(&points[i]));
        }
    }
}
