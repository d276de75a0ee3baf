//! Whole-hand tests of the `fair` module: honest deals for several table and deck sizes, every
//! tamper case with its culprit, token replays, disputes and the statistical checks.

use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::UniformRand;
use ark_secp256k1::{Affine, Fr};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use super::bg::argument::{self, Statement};
use super::bg::sigma::{self, TokenStatement};
use super::codec::{decode_exact, encode};
use super::*;

pub(crate) const TABLE: [u8; 32] = [0x7a; 32];

pub(crate) fn actor(seat: u16) -> [u8; 32] {
    let mut a = [0u8; 32];
    a[..2].copy_from_slice(&seat.to_be_bytes());
    a[31] = 0xac;
    a
}

pub(crate) fn ctx(seat: u16, hand: u64) -> Context {
    Context::new(TABLE, hand, seat, actor(seat))
}

/// Keys pass for `n` seats: every share verified, joint key built.
pub(crate) fn keys(rng: &mut ChaCha20Rng, n: u16, hand: u64) -> (Vec<SecretShare>, JointKey) {
    let mut secrets = Vec::new();
    let mut verified = Vec::new();
    for seat in 0..n {
        let (secret, public) = keygen(rng, &ctx(seat, hand)).unwrap();
        // What goes over the wire is bytes.
        let public = PublicShare::from_base64(&public.to_base64()).unwrap();
        verified.push(verify_public_share(&ctx(seat, hand), &public).unwrap());
        secrets.push(secret);
    }
    (secrets, JointKey::from_seats(&verified).unwrap())
}

/// The shuffle chain, seat k doing step k; each step goes through bytes and is verified once.
pub(crate) fn chain(
    secrets: &[SecretShare],
    key: &JointKey,
    size: usize,
) -> (Vec<ShuffleStep>, VerifiedDeck) {
    let mut steps = Vec::new();
    let mut prev: Option<VerifiedDeck> = None;
    for (k, secret) in secrets.iter().enumerate() {
        let seat = u16::try_from(k).unwrap();
        let c = secret.context().with_step(Step::Shuffle { index: seat });
        let (mine, proof) = shuffle_verified(secret, &c, key, size, prev.as_ref()).unwrap();
        let deck = mine.deck().clone();
        assert_eq!(deck.to_bytes().len(), deck_len(size));
        assert_eq!(proof.to_bytes().len(), shuffle_proof_len(size));
        // The other seats verify what was published; they get the shuffler's deck.
        let next = verify_shuffle_bytes(
            &c,
            key,
            size,
            prev.as_ref(),
            deck.to_bytes(),
            proof.to_bytes(),
        )
        .unwrap();
        assert_eq!(next.deck(), mine.deck());
        assert_eq!(next.steps(), mine.steps());
        steps.push(ShuffleStep {
            ctx: c,
            deck,
            proof,
        });
        prev = Some(next);
    }
    (steps, prev.unwrap())
}

fn reveal_ctx(seat: u16, hand: u64, position: u16, recipient: Option<u16>) -> Context {
    ctx(seat, hand).with_step(Step::Reveal {
        position,
        recipient,
    })
}

/// Everyone but `recipient` publishes a token for `position`; `recipient` verifies them and
/// adds its own: returns the card it sees and the published tokens.
fn deal_private(
    rng: &mut ChaCha20Rng,
    secrets: &[SecretShare],
    key: &JointKey,
    deck: &VerifiedDeck,
    hand: u64,
    position: u16,
    recipient: u16,
) -> (usize, Vec<VerifiedToken>) {
    let mut published = Vec::new();
    for (s, secret) in secrets.iter().enumerate() {
        let s = u16::try_from(s).unwrap();
        if s == recipient {
            continue;
        }
        let c = reveal_ctx(s, hand, position, Some(recipient));
        let t = reveal_token(rng, secret, &c, deck).unwrap();
        let t = RevealToken::from_bytes(&t.to_bytes()).unwrap();
        published.push(verify_token(&c, key.share(s).unwrap(), deck, &t).unwrap());
    }
    // Without the recipient's share nobody else can open it.
    assert_eq!(
        open_card(key, deck, position, &published).unwrap_err(),
        FairError::Missing {
            seats: vec![recipient]
        }
    );
    let own = own_token(
        rng,
        &secrets[usize::from(recipient)],
        key,
        &reveal_ctx(recipient, hand, position, Some(recipient)),
        deck,
    )
    .unwrap();
    let mut all = published.clone();
    all.push(own);
    (open_card(key, deck, position, &all).unwrap(), published)
}

fn honest_hand(n: u16, size: usize, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let hand = seed;
    let (secrets, key) = keys(&mut rng, n, hand);
    let (_, deck) = chain(&secrets, &key, size);
    assert_eq!(deck.steps(), n);
    // Two private cards per seat at positions 2s, 2s+1.
    let mut seen = Vec::new();
    let mut published = Vec::new();
    for s in 0..n {
        for position in [2 * s, 2 * s + 1] {
            let (card, tokens) = deal_private(&mut rng, &secrets, &key, &deck, hand, position, s);
            seen.push((position, s, card));
            published.push(tokens);
        }
    }
    // Showdown for seat 0: it publishes its public token; everyone opens with the earlier ones.
    for (i, &(position, owner, card)) in seen.iter().enumerate().take(2) {
        let c = reveal_ctx(owner, hand, position, None);
        let t = reveal_token(&mut rng, &secrets[usize::from(owner)], &c, &deck).unwrap();
        let v = verify_token(&c, key.share(owner).unwrap(), &deck, &t).unwrap();
        let mut all = published[i].clone();
        all.push(v);
        assert_eq!(open_card(&key, &deck, position, &all).unwrap(), card);
    }
    // A public card after the private ones.
    let position = 2 * n;
    let public: Vec<VerifiedToken> = (0..n)
        .map(|s| {
            let c = reveal_ctx(s, hand, position, None);
            let t = reveal_token(&mut rng, &secrets[usize::from(s)], &c, &deck).unwrap();
            verify_token(&c, key.share(s).unwrap(), &deck, &t).unwrap()
        })
        .collect();
    seen.push((
        position,
        u16::MAX,
        open_card(&key, &deck, position, &public).unwrap(),
    ));
    let mut cards: Vec<usize> = seen.iter().map(|&(_, _, c)| c).collect();
    assert!(cards.iter().all(|&c| c < size));
    cards.sort_unstable();
    cards.dedup();
    assert_eq!(cards.len(), seen.len(), "dealt cards are distinct");
}

#[test]
fn honest_deal_2_seats_52() {
    honest_hand(2, 52, 1);
}

#[test]
fn honest_deal_3_seats_52() {
    honest_hand(3, 52, 2);
}

#[test]
fn honest_deal_5_seats_52() {
    honest_hand(5, 52, 3);
}

#[test]
fn honest_deal_10_seats_52() {
    honest_hand(10, 52, 4);
}

#[test]
fn honest_deal_2_seats_104() {
    honest_hand(2, 104, 5);
}

#[test]
fn honest_deal_3_seats_156() {
    honest_hand(3, 156, 6);
}

#[test]
fn honest_deal_dominoes_and_small_custom() {
    honest_hand(2, DeckKind::Dominoes { max_pips: 6 }.size().unwrap(), 7);
    honest_hand(3, 8, 8);
}

#[test]
fn honest_deals_at_sizes_no_list_had() {
    // Double-15 dominoes, a 37-card custom deck, and the smallest deck that fits the deal.
    honest_hand(3, DeckKind::Dominoes { max_pips: 15 }.size().unwrap(), 30);
    honest_hand(2, DeckKind::Custom { cards: 37 }.size().unwrap(), 31);
    honest_hand(2, 5, 32);
}

#[test]
fn the_largest_deck_round_trips() {
    let size = MAX_DECK_SIZE;
    let mut rng = ChaCha20Rng::seed_from_u64(33);
    let (secrets, key) = keys(&mut rng, 2, 33);
    let (_, deck) = chain(&secrets, &key, size);
    let position = 1000;
    let tokens: Vec<VerifiedToken> = (0..2u16)
        .map(|s| {
            let c = reveal_ctx(s, 33, position, None);
            let t = reveal_token(&mut rng, &secrets[usize::from(s)], &c, &deck).unwrap();
            verify_token(&c, key.share(s).unwrap(), &deck, &t).unwrap()
        })
        .collect();
    assert!(open_card(&key, &deck, position, &tokens).unwrap() < size);
    let too_big = Context {
        step: Step::Shuffle { index: 0 },
        ..*secrets[0].context()
    };
    assert_eq!(
        shuffle(&secrets[0], &too_big, &key, size + 1, None).unwrap_err(),
        FairError::UnsupportedDeckSize(size + 1)
    );
}

/// Every seat's public token for `position`, verified.
fn open_publicly(
    rng: &mut ChaCha20Rng,
    secrets: &[SecretShare],
    key: &JointKey,
    deck: &VerifiedDeck,
    hand: u64,
    position: u16,
) -> usize {
    let tokens: Vec<VerifiedToken> = secrets
        .iter()
        .enumerate()
        .map(|(s, secret)| {
            let s = u16::try_from(s).unwrap();
            let c = reveal_ctx(s, hand, position, None);
            let t = reveal_token(rng, secret, &c, deck).unwrap();
            verify_token(&c, key.share(s).unwrap(), deck, &t).unwrap()
        })
        .collect();
    open_card(key, deck, position, &tokens).unwrap()
}

#[test]
fn a_discard_pile_is_reshuffled_into_a_new_draw_pile() {
    let (n, size, hand) = (3u16, 52usize, 40u64);
    let mut rng = ChaCha20Rng::seed_from_u64(40);
    let (secrets, key) = keys(&mut rng, n, hand);
    let (_, deck) = chain(&secrets, &key, size);
    // Positions 10..23 were played face up: everyone knows those cards.
    let discards: Vec<u16> = (10..23).collect();
    let mut seen: Vec<usize> = discards
        .iter()
        .map(|&p| open_publicly(&mut rng, &secrets, &key, &deck, hand, p))
        .collect();
    let pile = deck.sub_deck(&discards).unwrap();
    assert_eq!((pile.size(), pile.universe(), pile.steps()), (13, 52, n));
    // Every client derives the same pile from the same positions.
    assert_eq!(deck.sub_deck(&discards).unwrap().deck(), pile.deck());
    // A second chain over the pile: seat k does step n + k, so its context (and random stream)
    // differs from its first step.
    let mut prev = pile.clone();
    for (k, secret) in secrets.iter().enumerate() {
        let index = n + u16::try_from(k).unwrap();
        let c = secret.context().with_step(Step::Shuffle { index });
        let (mine, proof) = shuffle_verified(secret, &c, &key, 13, Some(&prev)).unwrap();
        let theirs = verify_shuffle_bytes(
            &c,
            &key,
            13,
            Some(&prev),
            mine.deck().to_bytes(),
            proof.to_bytes(),
        )
        .unwrap();
        assert_eq!(theirs.deck(), mine.deck());
        prev = theirs;
    }
    let redrawn = prev;
    assert_eq!(redrawn.steps(), 2 * n);
    let mut again: Vec<usize> = (0..13u16)
        .map(|p| open_publicly(&mut rng, &secrets, &key, &redrawn, hand, p))
        .collect();
    seen.sort_unstable();
    again.sort_unstable();
    assert_eq!(
        seen, again,
        "the new pile holds exactly the discarded cards"
    );
    // A token for the old deck's position does not open the new pile's card at that position.
    let c = reveal_ctx(0, hand, 0, None);
    let old = reveal_token(&mut rng, &secrets[0], &c, &deck).unwrap();
    assert_eq!(
        verify_token(&c, key.share(0).unwrap(), &redrawn, &old).unwrap_err(),
        FairError::BadToken {
            seat: 0,
            position: 0
        }
    );
    // Bad sub-decks.
    assert!(matches!(
        deck.sub_deck(&[1, 2, 1]),
        Err(FairError::ContextMismatch(_))
    ));
    assert_eq!(
        deck.sub_deck(&[1, 52]).unwrap_err(),
        FairError::PositionOutOfRange {
            position: 52,
            size: 52
        }
    );
    assert_eq!(
        deck.sub_deck(&[7]).unwrap_err(),
        FairError::UnsupportedDeckSize(1)
    );
    // The step index must go on from the original chain.
    let c = secrets[0].context().with_step(Step::Shuffle { index: 0 });
    assert!(matches!(
        shuffle(&secrets[0], &c, &key, 13, Some(&pile)),
        Err(FairError::ContextMismatch(_))
    ));
}

#[test]
fn batched_tokens_name_the_same_culprits_as_single_checks() {
    use rand::Rng;
    let (n, size, hand) = (4u16, 20usize, 41u64);
    let mut rng = ChaCha20Rng::seed_from_u64(41);
    let (secrets, key) = keys(&mut rng, n, hand);
    let (_, deck) = chain(&secrets, &key, size);
    // Every seat's tokens for positions dealt to the next seat, as published.
    let mut pool: Vec<(Context, RevealToken)> = Vec::new();
    for s in 0..n {
        for p in 0..u16::try_from(size).unwrap() {
            let c = reveal_ctx(s, hand, p, Some((s + 1) % n));
            pool.push((
                c,
                reveal_token(&mut rng, &secrets[usize::from(s)], &c, &deck).unwrap(),
            ));
        }
    }
    let other_token = pool[1].1;
    for round in 0..60 {
        let k = rng.gen_range(1..=40);
        let bad_rate = [0.0, 0.05, 0.3][round % 3];
        let mut items: Vec<(Context, RevealToken, u16)> = Vec::new();
        for _ in 0..k {
            let (mut c, mut t) = pool[rng.gen_range(0..pool.len())];
            let mut share_of = c.seat;
            if rng.gen_bool(bad_rate) {
                match rng.gen_range(0..5) {
                    // Claimed for another position or recipient: the proof does not hold.
                    0 => {
                        if let Step::Reveal {
                            position,
                            recipient,
                        } = c.step
                        {
                            c.step = Step::Reveal {
                                position: (position + 1) % 20,
                                recipient,
                            };
                        }
                    }
                    1 => {
                        c.step = Step::Reveal {
                            position: match c.step {
                                Step::Reveal { position, .. } => position,
                                _ => unreachable!(),
                            },
                            recipient: None,
                        }
                    }
                    // Another token's share or proof.
                    2 => t.token = other_token.token,
                    3 => t.proof = other_token.proof,
                    // Checked against another seat's key share: refused before any arithmetic.
                    _ => share_of = (c.seat + 1) % n,
                }
            }
            items.push((c, t, share_of));
        }
        let checks: Vec<TokenCheck<'_>> = items
            .iter()
            .map(|(ctx, token, share_of)| TokenCheck {
                ctx: *ctx,
                share: key.share(*share_of).unwrap(),
                token,
            })
            .collect();
        let singles: Vec<Result<VerifiedToken, FairError>> = checks
            .iter()
            .map(|c| verify_token(&c.ctx, c.share, &deck, c.token))
            .collect();
        assert_eq!(verify_tokens_each(&deck, &checks), singles, "round {round}");
        let first_error = singles.iter().find_map(|r| r.clone().err());
        match verify_tokens(&deck, &checks) {
            Ok(all) => {
                assert!(first_error.is_none());
                assert_eq!(all.len(), k);
            }
            Err(e) => assert_eq!(Some(e), first_error),
        }
    }
}

#[test]
fn proofs_fit_in_a_nostr_event() {
    // Deck + proof, base64, must leave room for the JSON and event envelope under 64 KiB.
    for n in [52, 104, 156, 208] {
        let b64 = (deck_len(n) + shuffle_proof_len(n)).div_ceil(3) * 4;
        assert!(b64 < 60 * 1024, "{n} cards: {b64} bytes of base64");
    }
    assert_eq!(deck_len(52) + shuffle_proof_len(52), 3432 + 5547);
}

/// A joint secret (sum of the seats' key shares), for crafting attacks in tests only.
fn joint_secret(secrets: &[SecretShare]) -> Fr {
    secrets.iter().map(|s| *s.sk).sum()
}

fn card_bytes(deck: &Deck, position: usize) -> (Affine, Affine) {
    let b = &deck.to_bytes()[66 * position..66 * (position + 1)];
    (
        decode_exact("c1", &b[..33], 33).unwrap(),
        decode_exact("c2", &b[33..], 33).unwrap(),
    )
}

fn with_card(deck: &Deck, position: usize, c: (Affine, Affine)) -> Vec<u8> {
    let mut bytes = deck.to_bytes().to_vec();
    bytes[66 * position..66 * position + 33].copy_from_slice(&encode(&c.0));
    bytes[66 * position + 33..66 * (position + 1)].copy_from_slice(&encode(&c.1));
    bytes
}

#[test]
fn tampered_shuffles_are_rejected_naming_the_shuffler() {
    let size = 52;
    let hand = 11;
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let (secrets, key) = keys(&mut rng, 3, hand);
    let (steps, _) = chain(&secrets, &key, size);
    // Re-verify steps 0 and 1 to get the deck seat 2 shuffled.
    let d0 = verify_shuffle(
        &steps[0].ctx,
        &key,
        size,
        None,
        &steps[0].deck,
        &steps[0].proof,
    )
    .unwrap();
    let d1 = verify_shuffle(
        &steps[1].ctx,
        &key,
        size,
        Some(&d0),
        &steps[1].deck,
        &steps[1].proof,
    )
    .unwrap();
    let honest = &steps[2];
    let c = honest.ctx;
    let proof = honest.proof.to_bytes();
    let culprit = |deck: &[u8], proof: &[u8]| {
        verify_shuffle_bytes(&c, &key, size, Some(&d1), deck, proof).unwrap_err()
    };
    let rejected = |reason| FairError::BadShuffle { seat: 2, reason };

    // Card replaced by one of the previous deck (not re-randomised).
    let replaced = with_card(&honest.deck, 5, card_bytes(&steps[1].deck, 5));
    assert_eq!(
        culprit(&replaced, proof),
        rejected("shuffle proof rejected")
    );
    // Card duplicated (one dropped to keep the size).
    let duplicated = with_card(&honest.deck, 1, card_bytes(&honest.deck, 0));
    assert_eq!(
        culprit(&duplicated, proof),
        rejected("shuffle proof rejected")
    );
    // Card dropped (deck one card short), or an extra card.
    let dropped = &honest.deck.to_bytes()[..66 * (size - 1)];
    assert_eq!(culprit(dropped, proof), rejected("malformed deck"));
    let mut extra = honest.deck.to_bytes().to_vec();
    extra.extend_from_slice(&honest.deck.to_bytes()[..66]);
    assert_eq!(culprit(&extra, proof), rejected("malformed deck"));

    // Re-encrypted to a chosen card: seat 2 puts a fresh encryption of the card now at
    // position 9 into position 0 (so position 0 would open to that card).
    let x = joint_secret(&secrets);
    let (c1, c2) = card_bytes(&honest.deck, 9);
    let chosen_point = (c2.into_group() - c1 * x).into_affine();
    let apk: Affine = decode_exact("apk", &key.to_bytes(), 33).unwrap();
    let r = Fr::rand(&mut rng);
    let forged = (
        (Affine::generator() * r).into_affine(),
        (chosen_point.into_group() + apk * r).into_affine(),
    );
    // Sanity: the forgery really decrypts to the chosen card.
    assert_eq!(
        (forged.1.into_group() - forged.0 * x).into_affine(),
        chosen_point
    );
    let chosen = with_card(&honest.deck, 0, forged);
    assert_eq!(culprit(&chosen, proof), rejected("shuffle proof rejected"));

    // Honest deck, tampered proof: a flipped bit (non-canonical or wrong) or a truncated proof.
    let mut bad_proof = proof.to_vec();
    bad_proof[40] ^= 0x01;
    assert!(matches!(
        culprit(honest.deck.to_bytes(), &bad_proof),
        FairError::BadShuffle { seat: 2, .. }
    ));
    assert_eq!(
        culprit(honest.deck.to_bytes(), &proof[..proof.len() - 1]),
        rejected("malformed proof")
    );
    // Another step's valid proof.
    assert_eq!(
        culprit(honest.deck.to_bytes(), steps[1].proof.to_bytes()),
        rejected("shuffle proof rejected")
    );
    // The untouched step still passes.
    assert!(verify_shuffle_bytes(&c, &key, size, Some(&d1), honest.deck.to_bytes(), proof).is_ok());

    // The first step is checked against the fixed initial deck: a duplicate there is caught too.
    let dup0 = with_card(&steps[0].deck, 3, card_bytes(&steps[0].deck, 4));
    assert_eq!(
        verify_shuffle_bytes(
            &steps[0].ctx,
            &key,
            size,
            None,
            &dup0,
            steps[0].proof.to_bytes()
        )
        .unwrap_err(),
        FairError::BadShuffle {
            seat: 0,
            reason: "shuffle proof rejected"
        }
    );
}

#[test]
fn shuffle_proofs_are_bound_to_their_context() {
    let size = 10;
    let hand = 12;
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let (secrets, key) = keys(&mut rng, 2, hand);
    let (steps, _) = chain(&secrets, &key, size);
    let d0 = verify_shuffle(
        &steps[0].ctx,
        &key,
        size,
        None,
        &steps[0].deck,
        &steps[0].proof,
    )
    .unwrap();
    let step = &steps[1];
    let verify_raw = |c: &Context| {
        argument::verify(
            &Statement {
                apk: key.apk,
                prev: d0.deck().view(),
                next: step.deck.view(),
                ctx: &c.encode(Label::Proof),
            },
            &step.proof.inner,
        )
    };
    assert!(verify_raw(&step.ctx));
    let others = [
        Context {
            table: [1; 32],
            ..step.ctx
        },
        Context {
            hand: hand + 1,
            ..step.ctx
        },
        step.ctx.with_step(Step::Shuffle { index: 2 }),
        step.ctx.with_seat(0, actor(0)),
        step.ctx.with_seat(1, [9; 32]),
    ];
    for other in others {
        assert!(!verify_raw(&other), "{other:?}");
    }
    // Through the public API the wrong seat, order or size is refused too.
    let as_seat0 = step.ctx.with_seat(0, actor(0));
    assert_eq!(
        verify_shuffle(&as_seat0, &key, size, Some(&d0), &step.deck, &step.proof).unwrap_err(),
        FairError::BadShuffle {
            seat: 0,
            reason: "shuffle proof rejected"
        }
    );
    assert!(matches!(
        verify_shuffle(&step.ctx, &key, size, None, &step.deck, &step.proof),
        Err(FairError::ContextMismatch(_))
    ));
    assert!(matches!(
        verify_shuffle(
            &steps[0].ctx,
            &key,
            12,
            None,
            &steps[0].deck,
            &steps[0].proof
        ),
        Err(FairError::BadShuffle { seat: 0, .. })
    ));
    let impostor = step.ctx.with_seat(1, [9; 32]);
    assert!(matches!(
        verify_shuffle(&impostor, &key, size, Some(&d0), &step.deck, &step.proof),
        Err(FairError::ContextMismatch(_))
    ));
}

#[test]
fn wrong_and_replayed_tokens_are_rejected() {
    let size = 10;
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let (secrets, key) = keys(&mut rng, 3, 13);
    let (_, deck) = chain(&secrets, &key, size);
    // A second hand at the same table with the same players.
    let (secrets2, key2) = keys(&mut rng, 3, 14);
    let (_, deck2) = chain(&secrets2, &key2, size);

    let made = reveal_ctx(0, 13, 4, Some(2));
    let token = reveal_token(&mut rng, &secrets[0], &made, &deck).unwrap();
    let share0 = key.share(0).unwrap();
    verify_token(&made, share0, &deck, &token).unwrap();
    let bad = |position| FairError::BadToken { seat: 0, position };
    // Other position, other recipient, public instead of private.
    assert_eq!(
        verify_token(&reveal_ctx(0, 13, 5, Some(2)), share0, &deck, &token).unwrap_err(),
        bad(5)
    );
    assert_eq!(
        verify_token(&reveal_ctx(0, 13, 4, Some(1)), share0, &deck, &token).unwrap_err(),
        bad(4)
    );
    assert_eq!(
        verify_token(&reveal_ctx(0, 13, 4, None), share0, &deck, &token).unwrap_err(),
        bad(4)
    );
    // Other hand (same seat, same position), and other table.
    assert_eq!(
        verify_token(
            &reveal_ctx(0, 14, 4, Some(2)),
            key2.share(0).unwrap(),
            &deck2,
            &token
        )
        .unwrap_err(),
        bad(4)
    );
    assert!(matches!(
        verify_token(
            &Context {
                table: [3; 32],
                ..made
            },
            share0,
            &deck,
            &token
        ),
        Err(FairError::ContextMismatch(_))
    ));
    // The DLEQ proof itself is bound to every context field, whatever our pre-checks catch.
    let c1 = deck.deck().cards[4].0;
    let proof_ok = |c: &Context| {
        sigma::verify_token(&TokenStatement {
            pk: share0.key,
            c1,
            share: token.token,
            proof: &token.proof,
            ctx: &c.encode(Label::Proof),
        })
    };
    assert!(proof_ok(&made));
    for other in [
        Context {
            table: [3; 32],
            ..made
        },
        Context { hand: 14, ..made },
        reveal_ctx(0, 13, 5, Some(2)),
        reveal_ctx(0, 13, 4, Some(1)),
        reveal_ctx(0, 13, 4, None),
        made.with_seat(1, actor(1)),
        made.with_seat(0, [8; 32]),
    ] {
        assert!(!proof_ok(&other), "{other:?}");
    }
    // Seat 1 passing off seat 0's token as its own.
    assert_eq!(
        verify_token(
            &reveal_ctx(1, 13, 4, Some(2)),
            key.share(1).unwrap(),
            &deck,
            &token
        )
        .unwrap_err(),
        FairError::BadToken {
            seat: 1,
            position: 4
        }
    );
    // A corrupted token: either undecodable or rejected.
    let mut bytes = token.to_bytes();
    bytes[REVEAL_TOKEN_LEN - 1] ^= 0x01;
    match RevealToken::from_bytes(&bytes) {
        Ok(t) => assert_eq!(verify_token(&made, share0, &deck, &t).unwrap_err(), bad(4)),
        Err(e) => assert!(matches!(e, FairError::Malformed { .. })),
    }
    let mut bytes = token.to_bytes().to_vec();
    bytes.push(0);
    assert!(matches!(
        RevealToken::from_bytes(&bytes),
        Err(FairError::BadLength { .. })
    ));
    // Out of range.
    assert!(matches!(
        reveal_token(&mut rng, &secrets[0], &reveal_ctx(0, 13, 10, None), &deck),
        Err(FairError::PositionOutOfRange { .. })
    ));
    // open_card: tokens of another position, duplicates, another hand's deck.
    let t_pub = |s: u16, p: u16| {
        let c = reveal_ctx(s, 13, p, None);
        let t = reveal_token(
            &mut ChaCha20Rng::seed_from_u64(1),
            &secrets[usize::from(s)],
            &c,
            &deck,
        )
        .unwrap();
        verify_token(&c, key.share(s).unwrap(), &deck, &t).unwrap()
    };
    let good = [t_pub(0, 6), t_pub(1, 6), t_pub(2, 6)];
    let card = open_card(&key, &deck, 6, &good).unwrap();
    assert!(card < size);
    assert_eq!(
        open_card(&key, &deck, 6, &[good[0], good[1], t_pub(2, 7)]).unwrap_err(),
        FairError::Misplaced { seat: 2 }
    );
    assert_eq!(
        open_card(&key, &deck, 6, &[good[0], good[1], good[1]]).unwrap_err(),
        FairError::Misplaced { seat: 1 }
    );
    assert!(matches!(
        open_card(&key2, &deck2, 6, &good),
        Err(FairError::Misplaced { .. })
    ));
}

#[test]
fn disputes_are_settled_by_opening_commitments() {
    let size = 10;
    let hand = 15;
    let mut rng = ChaCha20Rng::seed_from_u64(15);
    let (secrets, key) = keys(&mut rng, 3, hand);
    let (steps, _) = chain(&secrets, &key, size);
    // Honest seats: openings reproduce keys and every shuffle step exactly.
    let mut prev: Option<VerifiedDeck> = None;
    for (k, step) in steps.iter().enumerate() {
        let seat = u16::try_from(k).unwrap();
        let opened = verify_opening(key.share(seat).unwrap(), &secrets[k].opening()).unwrap();
        verify_shuffle_opening(
            &opened,
            &step.ctx,
            &key,
            size,
            prev.as_ref(),
            &step.deck,
            &step.proof,
        )
        .unwrap();
        prev = Some(
            verify_shuffle(
                &step.ctx,
                &key,
                size,
                prev.as_ref(),
                &step.deck,
                &step.proof,
            )
            .unwrap(),
        );
    }
    // A seat that shuffled with a seed other than the committed one: the step verifies, but its
    // opening does not reproduce it.
    let committed = &secrets[1];
    let mut other_seed = committed.to_bytes().to_vec();
    other_seed[40] ^= 0xff;
    let cheater = SecretShare::from_bytes(committed.context(), &other_seed).unwrap();
    assert_eq!(cheater.public_share().pk, committed.public_share().pk);
    let d0 = verify_shuffle(
        &steps[0].ctx,
        &key,
        size,
        None,
        &steps[0].deck,
        &steps[0].proof,
    )
    .unwrap();
    let (deck, proof) = shuffle(&cheater, &steps[1].ctx, &key, size, Some(&d0)).unwrap();
    verify_shuffle(&steps[1].ctx, &key, size, Some(&d0), &deck, &proof).unwrap();
    let opened = verify_opening(key.share(1).unwrap(), &committed.opening()).unwrap();
    assert!(matches!(
        verify_shuffle_opening(&opened, &steps[1].ctx, &key, size, Some(&d0), &deck, &proof),
        Err(FairError::CommitmentMismatch { seat: 1, .. })
    ));
    // And an opening of the cheater's real seeds does not match its commitment.
    assert!(matches!(
        verify_opening(key.share(1).unwrap(), &cheater.opening()),
        Err(FairError::CommitmentMismatch {
            seat: 1,
            what: "shuffle seed"
        })
    ));
}

#[test]
fn chains_verify_in_parallel() {
    let size = 10;
    let mut rng = ChaCha20Rng::seed_from_u64(16);
    let (s1, k1) = keys(&mut rng, 2, 16);
    let (steps1, d1) = chain(&s1, &k1, size);
    let (s2, k2) = keys(&mut rng, 3, 17);
    let (mut steps2, _) = chain(&s2, &k2, size);
    let tampered = with_card(&steps2[2].deck, 0, card_bytes(&steps2[2].deck, 1));
    steps2[2].deck = Deck::from_bytes(size, &tampered).unwrap();
    let jobs = [
        ChainJob {
            key: &k1,
            size,
            prev: None,
            steps: &steps1,
        },
        ChainJob {
            key: &k2,
            size,
            prev: None,
            steps: &steps2,
        },
    ];
    let results = verify_chains_parallel(&jobs);
    assert_eq!(
        results[0].as_ref().unwrap().as_ref().unwrap().deck(),
        d1.deck()
    );
    assert_eq!(
        results[1].as_ref().unwrap_err(),
        &FairError::BadShuffle {
            seat: 2,
            reason: "shuffle proof rejected"
        }
    );
}

#[test]
fn one_chain_verifies_in_parallel() {
    let size = 10;
    let mut rng = ChaCha20Rng::seed_from_u64(18);
    let (secrets, key) = keys(&mut rng, 4, 19);
    let (steps, deck) = chain(&secrets, &key, size);
    let parallel = verify_chain_parallel(&key, size, None, &steps)
        .unwrap()
        .unwrap();
    assert_eq!(parallel.deck(), deck.deck());
    assert_eq!(parallel.steps(), 4);
    // Continuing from a verified deck.
    let d1 = verify_chain(&key, size, None, &steps[..2])
        .unwrap()
        .unwrap();
    let rest = verify_chain_parallel(&key, size, Some(&d1), &steps[2..])
        .unwrap()
        .unwrap();
    assert_eq!(rest.deck(), deck.deck());
    // Two bad steps: the earliest shuffler is named, as in the sequential check.
    let mut bad = steps.clone();
    for k in [1, 3] {
        let t = with_card(&bad[k].deck, 2, card_bytes(&bad[k].deck, 3));
        bad[k].deck = Deck::from_bytes(size, &t).unwrap();
    }
    let expect = FairError::BadShuffle {
        seat: 1,
        reason: "shuffle proof rejected",
    };
    assert_eq!(
        verify_chain_parallel(&key, size, None, &bad).unwrap_err(),
        expect
    );
    assert_eq!(verify_chain(&key, size, None, &bad).unwrap_err(), expect);
    // Steps out of order are refused before any verification.
    let swapped = vec![steps[1].clone(), steps[0].clone()];
    assert!(matches!(
        verify_chain_parallel(&key, size, None, &swapped),
        Err(FairError::ContextMismatch(_))
    ));
}

#[test]
fn strict_decoding_of_decks_and_proofs() {
    let size = 4;
    let mut rng = ChaCha20Rng::seed_from_u64(17);
    let (secrets, key) = keys(&mut rng, 2, 18);
    let (steps, _) = chain(&secrets, &key, size);
    let deck = steps[0].deck.to_bytes();
    assert_eq!(Deck::from_bytes(size, deck).unwrap(), steps[0].deck);
    assert_eq!(
        Deck::from_base64(size, &steps[0].deck.to_base64()).unwrap(),
        steps[0].deck
    );
    let proof = &steps[0].proof;
    assert_eq!(
        ShuffleProof::from_base64(size, &proof.to_base64()).unwrap(),
        *proof
    );
    let mut long = deck.to_vec();
    long.push(0);
    assert!(matches!(
        Deck::from_bytes(size, &long),
        Err(FairError::BadLength { .. })
    ));
    assert!(matches!(
        Deck::from_bytes(5, deck),
        Err(FairError::BadLength { .. })
    ));
    assert_eq!(
        Deck::from_bytes(1, &deck[..66]).unwrap_err(),
        FairError::UnsupportedDeckSize(1)
    );
    assert_eq!(
        ShuffleProof::from_bytes(1025, &[]).unwrap_err(),
        FairError::UnsupportedDeckSize(1025)
    );
    let mut long = proof.to_bytes().to_vec();
    long.push(0);
    assert!(matches!(
        ShuffleProof::from_bytes(size, &long),
        Err(FairError::BadLength { .. })
    ));
    let mut off_curve = deck.to_vec();
    off_curve[..32].copy_from_slice(&[0xff; 32]);
    assert!(matches!(
        Deck::from_bytes(size, &off_curve),
        Err(FairError::Malformed { .. })
    ));
}

#[test]
fn fair_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Deck>();
    check::<ShuffleProof>();
    check::<VerifiedDeck>();
    check::<JointKey>();
    check::<SecretShare>();
    check::<VerifiedShare>();
    check::<RevealToken>();
    check::<VerifiedToken>();
    check::<dice::DiceSecret>();
    check::<FairError>();
}

/// Chi-square statistic of `counts` against a uniform distribution.
fn chi_square(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

#[test]
fn dice_are_uniform() {
    // Critical values of the chi-square distribution at p = 0.001 for sides - 1 degrees of
    // freedom. The seeds are fixed, so the test is deterministic; the bound documents how far
    // from uniform the sample may be.
    let mut rng = ChaCha20Rng::seed_from_u64(99);
    for (sides, critical) in [(2u8, 10.828), (6, 20.515), (20, 43.820), (100, 148.230)] {
        let mut counts = vec![0u64; usize::from(sides)];
        let roll = |slot| dice::Roll {
            table: TABLE,
            hand: 1,
            slot,
            seats: 3,
            owner: None,
            sides,
            count: 8,
        };
        // 12,500 rolls × 8 dice = 100,000 dice per sides value.
        for slot in 0..12_500 {
            let values: Vec<[u8; 32]> = (0..3)
                .map(|_| {
                    let mut v = [0u8; 32];
                    rand::RngCore::fill_bytes(&mut rng, &mut v);
                    v
                })
                .collect();
            for d in dice::derive_dice(&roll(slot), &values).unwrap() {
                counts[usize::from(d - 1)] += 1;
            }
        }
        assert_eq!(counts.iter().sum::<u64>(), 100_000);
        let chi = chi_square(&counts);
        assert!(chi < critical, "d{sides}: chi-square {chi:.1} ≥ {critical}");
    }
}

#[test]
fn cheap_permutation_matches_real_shuffle() {
    // The statistical test below uses `step_permutation`; here we check it is exactly what the
    // real shuffle does, by opening every card of real 2-seat shuffles.
    for hand in 0..3 {
        let size = 10;
        let mut rng = ChaCha20Rng::seed_from_u64(100 + hand);
        let (secrets, key) = keys(&mut rng, 2, hand);
        let (steps, deck) = chain(&secrets, &key, size);
        let p0 = shuffle::step_permutation(&steps[0].ctx, secrets[0].shuffle_seed(), size, None);
        let after0 = verify_chain(&key, size, None, &steps[..1]).unwrap();
        let p1 = shuffle::step_permutation(
            &steps[1].ctx,
            secrets[1].shuffle_seed(),
            size,
            after0.as_ref(),
        );
        for position in 0..size {
            let pos = u16::try_from(position).unwrap();
            let tokens: Vec<VerifiedToken> = (0..2u16)
                .map(|s| {
                    let c = reveal_ctx(s, hand, pos, None);
                    let t = reveal_token(&mut rng, &secrets[usize::from(s)], &c, &deck).unwrap();
                    verify_token(&c, key.share(s).unwrap(), &deck, &t).unwrap()
                })
                .collect();
            // Step 1 put its input position p1[i] at i; step 0 put card p0[j] at j.
            assert_eq!(
                open_card(&key, &deck, pos, &tokens).unwrap(),
                p0[p1[position]]
            );
        }
    }
}

#[test]
fn shuffles_are_uniform() {
    // 10,000 shuffle steps of a 52-card deck: which card lands on position 0, and, for a
    // 3-seat chain, which card ends on position 0. Chi-square, 51 degrees of freedom,
    // p = 0.001 critical value 87.968.
    let size = 52;
    let mut single = vec![0u64; size];
    let mut chained = vec![0u64; size];
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    for hand in 0..10_000u64 {
        let mut seed = [0u8; 32];
        let mut composed: Vec<usize> = (0..size).collect();
        for seat in 0..3u16 {
            rand::RngCore::fill_bytes(&mut rng, &mut seed);
            let c = ctx(seat, hand).with_step(Step::Shuffle { index: seat });
            let p = shuffle::step_permutation(&c, &seed, size, None);
            if seat == 0 {
                single[p[0]] += 1;
            }
            composed = p.iter().map(|&i| composed[i]).collect();
        }
        chained[composed[0]] += 1;
    }
    for counts in [&single, &chained] {
        let chi = chi_square(counts);
        assert!(chi < 87.968, "chi-square {chi:.1}");
    }
}

/// A step made for a chain checked whole skips only the prover's own check: from the same
/// inputs it is the same deck and proof, byte for byte, and the chain of such steps passes
/// `verify_chain` to the same deck as the chain of self-checked ones.
#[test]
fn a_step_made_for_a_chain_is_the_self_checked_step_byte_for_byte() {
    let size = 12;
    let mut rng = ChaCha20Rng::seed_from_u64(31);
    let (secrets, key) = keys(&mut rng, 3, 32);
    let (steps, deck) = chain(&secrets, &key, size);
    let mut prev: Option<VerifiedDeck> = None;
    let mut mine = Vec::new();
    for (k, secret) in secrets.iter().enumerate() {
        let c = secret
            .context()
            .with_step(Step::Shuffle { index: k as u16 });
        let (placed, proof) = shuffle_for_chain(secret, &c, &key, size, prev.as_ref()).unwrap();
        assert_eq!(placed.deck(), &steps[k].deck, "step {k}'s deck");
        assert_eq!(
            proof.to_bytes(),
            steps[k].proof.to_bytes(),
            "step {k}'s proof"
        );
        mine.push(ShuffleStep {
            ctx: c,
            deck: placed.deck().clone(),
            proof,
        });
        prev = Some(placed);
    }
    let checked = verify_chain(&key, size, None, &mine).unwrap().unwrap();
    assert_eq!(checked.deck(), deck.deck());
}
