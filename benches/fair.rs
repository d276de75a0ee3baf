//! Criterion benchmarks of the `fair` module (figures in BENCHMARKS.md, "Fair deck and dice").
//!
//! `cargo bench --bench fair` (add `-- <filter>` for one group). Sample sizes are reduced so the
//! whole run takes a few minutes on the 2-core machine.
//!
//! The figures are **CPU time of the benchmarking thread** (`/proc/thread-self/schedstat`,
//! updated at scheduler ticks, so ±1 tick per sample), not wall time: the build machine is shared
//! and its load would otherwise inflate every number. Everything measured runs on that one
//! thread. `FAIR_BENCH_WALL=1 cargo bench --bench fair` measures wall time instead.

use std::time::Duration;

use ark_serialize::CanonicalDeserialize;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, BenchmarkId, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use tolerance::fair::{
    dice, keygen, open_card, own_token, reveal_token, reveal_token_with_own, shuffle,
    shuffle_for_chain, shuffle_verified, verify_public_share, verify_shuffle_bytes, verify_token,
    verify_tokens, Context, Deck, JointKey, PublicShare, RevealToken, SecretShare, Step,
    TokenCheck, VerifiedDeck, VerifiedToken,
};

const TABLE: [u8; 32] = [0x5b; 32];
const HAND: u64 = 1;

fn actor(seat: u16) -> [u8; 32] {
    let mut a = [0xa0; 32];
    a[..2].copy_from_slice(&seat.to_be_bytes());
    a
}

fn ctx(seat: u16) -> Context {
    Context::new(TABLE, HAND, seat, actor(seat))
}

fn seat_rng(seat: u16) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(1000 + u64::from(seat))
}

fn keys(n: u16) -> (Vec<SecretShare>, Vec<PublicShare>, JointKey) {
    let mut secrets = Vec::new();
    let mut publics = Vec::new();
    let mut verified = Vec::new();
    for s in 0..n {
        let (secret, public) = keygen(&mut seat_rng(s), &ctx(s)).unwrap();
        verified.push(verify_public_share(&ctx(s), &public).unwrap());
        secrets.push(secret);
        publics.push(public);
    }
    let key = JointKey::from_seats(&verified).unwrap();
    (secrets, publics, key)
}

fn shuffle_ctx(seat: u16) -> Context {
    ctx(seat).with_step(Step::Shuffle { index: seat })
}

fn reveal_ctx(seat: u16, position: u16, recipient: Option<u16>) -> Context {
    ctx(seat).with_step(Step::Reveal {
        position,
        recipient,
    })
}

/// A published shuffle step: deck bytes and proof bytes.
type StepBytes = (Vec<u8>, Vec<u8>);

/// All published steps of a chain and the final verified deck.
fn chain(secrets: &[SecretShare], key: &JointKey, size: usize) -> (Vec<StepBytes>, VerifiedDeck) {
    let mut steps = Vec::new();
    let mut prev: Option<VerifiedDeck> = None;
    for (k, s) in secrets.iter().enumerate() {
        let c = shuffle_ctx(k as u16);
        let (mine, proof) = shuffle_verified(s, &c, key, size, prev.as_ref()).unwrap();
        steps.push((mine.deck().to_bytes().to_vec(), proof.to_bytes().to_vec()));
        prev = Some(mine);
    }
    (steps, prev.unwrap())
}

fn per_deck_size<M: Measurement>(c: &mut Criterion<M>) {
    let (secrets, _, key) = keys(2);
    // Card decks (52, 104, 156) and domino sets (double-6, -9, -12, -15: 28, 55, 91, 136 tiles).
    for size in [28usize, 52, 55, 91, 104, 136, 156] {
        let c0 = shuffle_ctx(0);
        let (d0, _) = shuffle_verified(&secrets[0], &c0, &key, size, None).unwrap();
        let c1 = shuffle_ctx(1);
        let (d1, proof1) = shuffle_verified(&secrets[1], &c1, &key, size, Some(&d0)).unwrap();
        let deck1 = d1.deck().clone();

        let mut g = c.benchmark_group(format!("fair/{size}"));
        g.sample_size(10).measurement_time(Duration::from_secs(4));
        g.bench_function("shuffle_and_prove", |b| {
            b.iter(|| shuffle(&secrets[1], &c1, &key, size, Some(&d0)).unwrap())
        });
        // The same step without the prover's own check (a step of a chain checked whole).
        g.bench_function("shuffle_for_chain", |b| {
            b.iter(|| shuffle_for_chain(&secrets[1], &c1, &key, size, Some(&d0)).unwrap())
        });
        g.bench_function("verify_shuffle_from_bytes", |b| {
            b.iter(|| {
                verify_shuffle_bytes(
                    &c1,
                    &key,
                    size,
                    Some(&d0),
                    deck1.to_bytes(),
                    proof1.to_bytes(),
                )
                .unwrap()
            })
        });
        // What verifying spends on the published deck alone: 2·size compressed points, each a
        // square root, with libsecp256k1's (what the client does) and with arkworks' own.
        g.bench_function("decode_deck", |b| {
            b.iter(|| Deck::from_bytes(size, deck1.to_bytes()).unwrap())
        });
        g.bench_function("decode_deck_arkworks", |b| {
            b.iter(|| {
                deck1
                    .to_bytes()
                    .chunks_exact(33)
                    .map(|p| {
                        ark_secp256k1::Affine::deserialize_with_mode(
                            p,
                            ark_serialize::Compress::Yes,
                            ark_serialize::Validate::Yes,
                        )
                        .unwrap()
                    })
                    .collect::<Vec<_>>()
            })
        });
        let rc = reveal_ctx(0, 3, Some(1));
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        g.bench_function("reveal_token", |b| {
            b.iter(|| reveal_token(&mut rng, &secrets[0], &rc, &d1).unwrap())
        });
        let token = reveal_token(&mut rng, &secrets[0], &rc, &d1).unwrap();
        let bytes = token.to_bytes();
        g.bench_function("verify_token_from_bytes", |b| {
            b.iter(|| {
                let t = RevealToken::from_bytes(&bytes).unwrap();
                verify_token(&rc, key.share(0).unwrap(), &d1, &t).unwrap()
            })
        });
        g.finish();
    }
}

/// A token event's worth of tokens (one seat's tokens for several positions) and a showdown's
/// (every seat's token for one position), verified one by one and as one batch.
fn token_batches<M: Measurement>(c: &mut Criterion<M>) {
    let size = 52;
    let n = 10u16;
    let (secrets, _, key) = keys(n);
    let (_, deck) = chain(&secrets, &key, size);
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let mut g = c.benchmark_group("fair/token_batch");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for count in [9u16, 18, 40] {
        // Seat 0's tokens for `count` positions dealt to seat 1 (an event of a 10-seat deal
        // carries 18).
        let made: Vec<(Context, RevealToken)> = (0..count)
            .map(|p| {
                let c = reveal_ctx(0, p, Some(1));
                (c, reveal_token(&mut rng, &secrets[0], &c, &deck).unwrap())
            })
            .collect();
        let share = key.share(0).unwrap();
        g.bench_with_input(BenchmarkId::new("one_by_one", count), &made, |b, made| {
            b.iter(|| {
                for (c, t) in made {
                    verify_token(c, share, &deck, t).unwrap();
                }
            })
        });
        g.bench_with_input(BenchmarkId::new("batched", count), &made, |b, made| {
            let checks: Vec<TokenCheck<'_>> = made
                .iter()
                .map(|(ctx, token)| TokenCheck {
                    ctx: *ctx,
                    share,
                    token,
                })
                .collect();
            b.iter(|| verify_tokens(&deck, &checks).unwrap())
        });
    }
    g.finish();
}

/// The same operations through ziffle 0.1.0 (the reference implementation, a dev-dependency):
/// its prover (which re-verifies its own proof) and its verifier from bytes, for comparison.
fn ziffle_side_by_side<M: Measurement>(c: &mut Criterion<M>) {
    fn sized<const N: usize, M: Measurement>(c: &mut Criterion<M>) {
        use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
        use ziffle::{AggregatePublicKey, MaskedDeck, Shuffle};
        let z = Shuffle::<N>::default();
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let ctx = b"ziffle bench";
        let keys: Vec<_> = (0..2)
            .map(|_| {
                let (_, pk, proof) = z.keygen(&mut rng, ctx);
                proof.verify(pk, ctx).unwrap()
            })
            .collect();
        let apk = AggregatePublicKey::new(&keys);
        let (d0, p0) = z.shuffle_initial_deck(&mut rng, apk, ctx);
        let v0 = z.verify_initial_shuffle(apk, d0, p0, ctx).unwrap();
        let (d1, p1) = z.shuffle_deck(&mut rng, apk, &v0, ctx);
        let mut deck = Vec::new();
        d1.serialize_compressed(&mut deck).unwrap();
        let mut proof = Vec::new();
        p1.serialize_compressed(&mut proof).unwrap();
        let mut g = c.benchmark_group(format!("ziffle/{N}"));
        g.sample_size(10).measurement_time(Duration::from_secs(4));
        g.bench_function("shuffle_and_prove", |b| {
            b.iter(|| z.shuffle_deck(&mut rng, apk, &v0, ctx))
        });
        g.bench_function("verify_shuffle_from_bytes", |b| {
            b.iter(|| {
                let d = MaskedDeck::<N>::deserialize_compressed(&deck[..]).unwrap();
                let p = ziffle::ShuffleProof::<N>::deserialize_compressed(&proof[..]).unwrap();
                z.verify_shuffle(apk, &v0, d, p, ctx).unwrap()
            })
        });
        g.finish();
    }
    sized::<52, M>(c);
    sized::<104, M>(c);
}

/// Everything another client publishes in a hand, as bytes.
struct Transcript {
    n: u16,
    publics: Vec<PublicShare>,
    steps: Vec<StepBytes>,
    /// `private[p][s]`: seat s's token for position p with recipient = owner of p.
    private: Vec<Vec<[u8; 131]>>,
    /// `showdown[p]`: the owner's public token for position p.
    showdown: Vec<[u8; 131]>,
}

fn owner(position: u16) -> u16 {
    position / 2
}

fn transcript(n: u16, size: usize) -> Transcript {
    let (secrets, publics, key) = keys(n);
    let (steps, deck) = chain(&secrets, &key, size);
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let mut private = Vec::new();
    let mut showdown = Vec::new();
    for p in 0..2 * n {
        let r = owner(p);
        private.push(
            (0..n)
                .map(|s| {
                    reveal_token(
                        &mut rng,
                        &secrets[usize::from(s)],
                        &reveal_ctx(s, p, Some(r)),
                        &deck,
                    )
                    .unwrap()
                    .to_bytes()
                })
                .collect(),
        );
        showdown.push(
            reveal_token(
                &mut rng,
                &secrets[usize::from(r)],
                &reveal_ctx(r, p, None),
                &deck,
            )
            .unwrap()
            .to_bytes(),
        );
    }
    Transcript {
        n,
        publics,
        steps,
        private,
        showdown,
    }
}

/// One client's CPU for a Tolerance hand: keygen + proof, verify the others' keys, its own
/// shuffle (kept verified, not re-verified), verify the others' steps, tokens for the 2(n−1)
/// cards dealt to others, open its 2 cards, and verify the showdown of every other seat's 2
/// cards; the tokens one by one (as the session does today) or in two batches (`batched`: the
/// tokens of its own cards, then the whole showdown).
fn client_hand(t: &Transcript, me: u16, size: usize, batched: bool) -> usize {
    let n = t.n;
    let (secret, _) = keygen(&mut seat_rng(me), &ctx(me)).unwrap();
    let shares: Vec<_> = (0..n)
        .map(|s| {
            let public = if s == me {
                *secret.public_share()
            } else {
                PublicShare::from_bytes(&t.publics[usize::from(s)].to_bytes()).unwrap()
            };
            verify_public_share(&ctx(s), &public).unwrap()
        })
        .collect();
    let key = JointKey::from_seats(&shares).unwrap();
    let mut prev: Option<VerifiedDeck> = None;
    for k in 0..n {
        let c = shuffle_ctx(k);
        prev = Some(if k == me {
            // Published: mine.deck() and the proof; the prover has checked them already.
            let (mine, _proof) = shuffle_verified(&secret, &c, &key, size, prev.as_ref()).unwrap();
            mine
        } else {
            let (deck, proof) = &t.steps[usize::from(k)];
            verify_shuffle_bytes(&c, &key, size, prev.as_ref(), deck, proof).unwrap()
        });
    }
    let deck = prev.unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(77);
    let mut mine: Vec<Option<VerifiedToken>> = vec![None; usize::from(2 * n)];
    for p in 0..2 * n {
        let r = owner(p);
        if r != me {
            let c = reveal_ctx(me, p, Some(r));
            // Publish the token; keep our own verified share for opening the card at showdown.
            let (_published, local) = reveal_token_with_own(&mut rng, &secret, &c, &deck).unwrap();
            mine[usize::from(p)] = Some(local);
        }
    }
    // (context, seat, token) → verified, one by one or as one batch.
    let verify_all = |items: Vec<(Context, RevealToken)>| -> Vec<VerifiedToken> {
        if batched {
            let checks: Vec<TokenCheck<'_>> = items
                .iter()
                .map(|(ctx, token)| TokenCheck {
                    ctx: *ctx,
                    share: &shares[usize::from(ctx.seat)],
                    token,
                })
                .collect();
            verify_tokens(&deck, &checks).unwrap()
        } else {
            items
                .iter()
                .map(|(ctx, token)| {
                    verify_token(ctx, &shares[usize::from(ctx.seat)], &deck, token).unwrap()
                })
                .collect()
        }
    };
    let private = |p: u16, s: u16| {
        (
            reveal_ctx(s, p, Some(owner(p))),
            RevealToken::from_bytes(&t.private[usize::from(p)][usize::from(s)]).unwrap(),
        )
    };
    let mut opened = 0;
    // The others' tokens for its own two cards (one token event per seat in the product).
    let own_positions = [2 * me, 2 * me + 1];
    let mut items = Vec::new();
    for p in own_positions {
        items.extend((0..n).filter(|&s| s != me).map(|s| private(p, s)));
    }
    let verified = verify_all(items);
    for p in own_positions {
        let mut tokens: Vec<VerifiedToken> = verified
            .iter()
            .copied()
            .filter(|v| v.position() == p)
            .collect();
        tokens
            .push(own_token(&mut rng, &secret, &key, &reveal_ctx(me, p, Some(me)), &deck).unwrap());
        opened += open_card(&key, &deck, p, &tokens).unwrap();
    }
    // Showdown: every other seat's two cards, the private-deal tokens of the seats other than
    // the owner and this client, and the owner's public token.
    let mut items = Vec::new();
    for p in (0..2 * n).filter(|&p| owner(p) != me) {
        let r = owner(p);
        items.extend((0..n).filter(|&s| s != me && s != r).map(|s| private(p, s)));
        items.push((
            reveal_ctx(r, p, None),
            RevealToken::from_bytes(&t.showdown[usize::from(p)]).unwrap(),
        ));
    }
    let verified = verify_all(items);
    for p in (0..2 * n).filter(|&p| owner(p) != me) {
        let mut tokens: Vec<VerifiedToken> = verified
            .iter()
            .copied()
            .filter(|v| v.position() == p)
            .collect();
        tokens.push(mine[usize::from(p)].unwrap());
        opened += open_card(&key, &deck, p, &tokens).unwrap();
    }
    opened
}

fn hand_per_client<M: Measurement>(c: &mut Criterion<M>) {
    let size = 52;
    let mut g = c.benchmark_group("fair/hand_per_client_52");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for n in [2u16, 5, 10] {
        let t = transcript(n, size);
        let me = 1;
        assert_eq!(
            client_hand(&t, me, size, false),
            client_hand(&t, me, size, true)
        );
        g.bench_with_input(BenchmarkId::new("token_by_token", n), &t, |b, t| {
            b.iter(|| client_hand(t, me, size, false))
        });
        g.bench_with_input(BenchmarkId::new("batched_tokens", n), &t, |b, t| {
            b.iter(|| client_hand(t, me, size, true))
        });
    }
    g.finish();
}

fn dice_costs<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group("fair/dice");
    g.sample_size(20).measurement_time(Duration::from_secs(2));
    let dc = ctx(0).with_step(Step::Dice);
    g.bench_function("commit_1024_slots", |b| {
        b.iter(|| {
            dice::DiceSecret::generate(&mut ChaCha20Rng::seed_from_u64(1), &dc, 1024)
                .unwrap()
                .commitment()
        })
    });
    let secret = dice::DiceSecret::generate(&mut ChaCha20Rng::seed_from_u64(1), &dc, 1024).unwrap();
    let commitment = secret.commitment();
    let reveal = secret.reveal(77).unwrap();
    g.bench_function("verify_reveal_1024_slots", |b| {
        b.iter(|| dice::verify_reveal(&dc, &commitment, &reveal).unwrap())
    });
    let roll = dice::Roll {
        table: TABLE,
        hand: HAND,
        slot: 77,
        seats: 10,
        owner: None,
        sides: 6,
        count: 5,
    };
    let values = [[7u8; 32]; 10];
    g.bench_function("derive_5d6_10_seats", |b| {
        b.iter(|| dice::derive_dice(&roll, &values).unwrap())
    });
    g.finish();
}

/// Why ziffle's verifier is slow: it computes each of its eight vector products (52 cards: 52–53
/// terms) as one scalar multiplication per term. This measures that pattern against arkworks'
/// multi-exponentiation of the same points and scalars, which `src/fair/bg` uses throughout
/// (BENCHMARKS.md, "What limits the ten-seat hand").
fn vector_product_costs<M: Measurement>(c: &mut Criterion<M>) {
    use ark_ec::{CurveGroup, VariableBaseMSM};
    use ark_secp256k1::{Fr, Projective};
    use ark_std::UniformRand;
    let mut g = c.benchmark_group("fair/vector_product_53");
    g.sample_size(20).measurement_time(Duration::from_secs(2));
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let bases: Vec<Projective> = (0..53).map(|_| Projective::rand(&mut rng)).collect();
    let affine = Projective::normalize_batch(&bases);
    let scalars: Vec<Fr> = (0..53).map(|_| Fr::rand(&mut rng)).collect();
    let naive = || {
        bases
            .iter()
            .zip(&scalars)
            .map(|(b, s)| *b * s)
            .sum::<Projective>()
    };
    assert_eq!(naive(), Projective::msm(&affine, &scalars).unwrap());
    g.bench_function("one_mul_per_term", |b| b.iter(naive));
    g.bench_function("multi_exponentiation", |b| {
        b.iter(|| Projective::msm(&affine, &scalars).unwrap())
    });
    g.finish();
}

/// CPU time consumed by the calling thread, in nanoseconds.
struct ThreadCpu;

fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .expect("/proc/thread-self/schedstat (Linux) is needed for CPU-time benchmarks")
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, started: u64) -> u64 {
        thread_cpu_ns().saturating_sub(started)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // Same unit (ns) as wall time, so the same formatting.
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(ThreadCpu);
    targets = per_deck_size, token_batches, ziffle_side_by_side, hand_per_client, dice_costs,
        vector_product_costs
}
criterion_group!(
    wall,
    per_deck_size,
    token_batches,
    ziffle_side_by_side,
    hand_per_client,
    dice_costs,
    vector_product_costs
);

fn main() {
    if std::env::var_os("FAIR_BENCH_WALL").is_some() {
        wall();
    } else {
        cpu();
    }
    Criterion::default().configure_from_args().final_summary();
}
