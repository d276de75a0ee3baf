use super::*;

const TABLE: [u8; 32] = [7; 32];

/// `n` seated clients, then a spectator.
fn clients(n: usize) -> Vec<Chance> {
    let actors: Vec<[u8; 32]> = (0..n)
        .map(|i| {
            Keys::new(SecretKey::from_slice(&[i as u8 + 1; 32]).unwrap())
                .public_key()
                .to_bytes()
        })
        .collect();
    let mut v: Vec<Chance> = (0..n)
        .map(|i| {
            let me = Secrets::new(i as Seat, Zeroizing::new([i as u8 + 40; 32]));
            Chance::new(TABLE, actors.clone(), Some(me))
        })
        .collect();
    v.push(Chance::new(TABLE, actors, None));
    v
}

struct Ran {
    outcomes: Vec<Vec<ChanceOutcome>>,
    stages: Vec<Stage>,
    /// The first `setup` and the first `shuffle` body of the batch, if any.
    setup: Option<Body>,
    shuffle: Option<Body>,
}

/// One step's events, `(seat, id, part of the deck prepared ahead)`, checked by every
/// client in the state the step opened in and applied when it closes (as the session does).
fn close_step(
    cs: &mut [Chance],
    parts: &[(Seat, String, crate::wire::log::Ahead)],
    eligible: &[Seat],
) {
    for c in cs.iter_mut() {
        let checked: Vec<AheadPart> = parts
            .iter()
            .map(|(seat, id, a)| c.check_ahead(*seat, id, a, eligible).unwrap())
            .collect();
        c.commit_ahead(checked);
    }
}

/// Steps where only `seats` act, one each in this order (the moves of a hand): each carries
/// its part of the deck prepared ahead when one is due.
fn moves(cs: &mut [Chance], seats: &[Seat], step: &mut u32) {
    for seat in seats {
        let part = cs[*seat as usize].produce_ahead(&[*seat]).unwrap();
        let parts: Vec<_> = part
            .into_iter()
            .map(|a| (*seat, format!("{step}/{seat}"), a))
            .collect();
        close_step(cs, &parts, &[*seat]);
        *step += 1;
    }
}

/// Runs one batch on every client, one step per stage (as the session does), with every
/// client checking every event and the parts of the deck prepared ahead they carry.
fn run(cs: &mut [Chance], reqs: &[ChanceRequest], parts: &[Seat], step: &mut u32) -> Ran {
    for c in cs.iter_mut() {
        c.begin(reqs.to_vec(), parts.to_vec(), true).unwrap();
    }
    let mut ran = Ran {
        outcomes: Vec::new(),
        stages: Vec::new(),
        setup: None,
        shuffle: None,
    };
    loop {
        let stage = cs[0].stage().unwrap();
        assert!(cs.iter().all(|c| c.stage() == Some(stage)));
        if stage == Stage::Ready {
            break;
        }
        ran.stages.push(stage);
        let eligible = cs[0].awaited();
        let events: Vec<(Seat, Body)> = cs
            .iter()
            .filter_map(|c| c.produce(*step).unwrap().map(|b| (c.my_seat().unwrap(), b)))
            .collect();
        assert!(!events.is_empty(), "nobody acts at {stage:?}");
        let riding: Vec<_> = events
            .iter()
            .filter_map(|(seat, _)| {
                let a = cs[*seat as usize].produce_ahead(&eligible).unwrap()?;
                Some((*seat, format!("{step}/{seat}"), a))
            })
            .collect();
        for (seat, body) in &events {
            match body {
                Body::Setup { .. } if ran.setup.is_none() => ran.setup = Some(body.clone()),
                Body::Shuffle { .. } if ran.shuffle.is_none() => ran.shuffle = Some(body.clone()),
                _ => {}
            }
            let id = format!("{step}/{seat}");
            for c in cs.iter_mut() {
                c.accept(*seat, &id, body, *step).unwrap();
            }
        }
        close_step(cs, &riding, &eligible);
        *step += 1;
    }
    ran.outcomes = cs.iter_mut().map(|c| c.finish().unwrap()).collect();
    ran
}

fn hand(deck: DeckId) -> Vec<ChanceRequest> {
    vec![
        ChanceRequest::Shuffle {
            deck,
            spec: DeckSpec::standard(1),
        },
        ChanceRequest::deal(deck, 0, 0),
        ChanceRequest::deal(deck, 1, 1),
        ChanceRequest::Reveal { deck, position: 2 },
    ]
}

fn shuffled_ids(b: &Option<Body>) -> Vec<DeckId> {
    match b {
        Some(Body::Shuffle { decks, .. }) => decks.iter().map(|d| d.deck).collect(),
        _ => Vec::new(),
    }
}

/// What every client knows of a hand: the revealed card is the same for all, each dealt
/// card is known to its holder alone, and the three cards differ.
fn check_hand(ran: &Ran, n: usize) -> CardId {
    let revealed = |o: &Vec<ChanceOutcome>| match &o[3] {
        ChanceOutcome::Revealed { card, .. } => *card,
        x => panic!("{x:?}"),
    };
    let dealt = |o: &Vec<ChanceOutcome>, i: usize| match &o[1 + i] {
        ChanceOutcome::Dealt { card, .. } => *card,
        x => panic!("{x:?}"),
    };
    let shown = revealed(&ran.outcomes[0]);
    for (c, o) in ran.outcomes.iter().enumerate() {
        assert_eq!(revealed(o), shown);
        for i in 0..2 {
            assert_eq!(dealt(o, i).is_some(), c == i, "client {c} position {i}");
        }
    }
    let (a, b) = (dealt(&ran.outcomes[0], 0), dealt(&ran.outcomes[1], 1));
    assert!(a != b && a != Some(shown) && b != Some(shown));
    assert_eq!(ran.outcomes.len(), n + 1);
    shown
}

fn deck_of(reqs: &[ChanceRequest], deck: DeckId) -> Vec<ChanceRequest> {
    reqs.iter()
        .cloned()
        .map(|mut r| {
            match &mut r {
                ChanceRequest::Shuffle { deck: d, .. }
                | ChanceRequest::Deal { deck: d, .. }
                | ChanceRequest::Reveal { deck: d, .. } => *d = deck,
                _ => {}
            }
            r
        })
        .collect()
}

/// `body` (a batch shuffle) with two cards of its first deck swapped: still a well-formed
/// deck, but not the one its proof is for.
fn swapped(body: &Body) -> Body {
    let Body::Shuffle { decks, dice } = body else {
        panic!("a shuffle");
    };
    let mut decks = decks.clone();
    let mut bytes = fair::from_base64("deck", &decks[0].cards).unwrap();
    let card = fair::deck_len(1);
    let (a, b) = bytes.split_at_mut(card);
    a.swap_with_slice(&mut b[..card]);
    decks[0].cards = fair::to_base64(&bytes);
    Body::Shuffle {
        decks,
        dice: dice.clone(),
    }
}

fn cards(body: &Body) -> String {
    let Body::Shuffle { decks, .. } = body else {
        panic!("a shuffle");
    };
    decks[0].cards.clone()
}

#[test]
fn a_seat_shuffles_on_a_deck_it_is_still_checking_and_uses_that_only_if_the_deck_verifies() {
    let mut cs = clients(3);
    for c in cs.iter_mut() {
        c.begin(hand(0), vec![0, 1, 2], false).unwrap();
    }
    let setups: Vec<(Seat, Body)> = cs[..3]
        .iter()
        .map(|c| (c.my_seat().unwrap(), c.produce(0).unwrap().unwrap()))
        .collect();
    for (seat, body) in &setups {
        for c in cs.iter_mut() {
            c.accept(*seat, &format!("0/{seat}"), body, 0).unwrap();
        }
    }
    let order = cs[0].batch.as_ref().unwrap().order.clone();
    let (first, second, third) = (order[0], order[1], order[2]);
    let (f, s, t) = (first as usize, second as usize, third as usize);
    let good = cs[f].produce(0).unwrap().unwrap();
    let bad = swapped(&good);

    // On a deck whose proof does not hold: the speculative copy takes it and shuffles on
    // it; the client itself refuses it, and its own shuffle is made again on the deck that
    // does verify, so what was built on the bad one is never used.
    let mut copy = cs[s].speculative();
    copy.accept(first, "1/bad", &bad, 0).unwrap();
    let on_bad = copy.produce(0).unwrap().unwrap();
    assert_eq!(cs[s].own_shuffles_made(), (1, 1));
    let e = cs[s].accept(first, "1/bad", &bad, 0).unwrap_err();
    assert!(e.to_string().contains("shuffle proof rejected"), "{e}");
    for c in cs.iter_mut() {
        c.accept(first, "1/good", &good, 0).unwrap();
    }
    let mine = cs[s].produce(0).unwrap().unwrap();
    assert_ne!(cards(&mine), cards(&on_bad));
    assert_eq!(cs[s].own_shuffles_made(), (2, 1));

    // On a deck that verifies: the shuffle made ahead is the one the client publishes,
    // and it is not made twice.
    let mut copy = cs[t].speculative();
    copy.accept(second, "2/s", &mine, 0).unwrap();
    let ahead = copy.produce(0).unwrap().unwrap();
    assert_eq!(cs[t].own_shuffles_made(), (1, 1));
    let verified_before = cs[t].stats.shuffles_verified;
    cs[t].accept(second, "2/s", &mine, 0).unwrap();
    assert_eq!(cs[t].stats.shuffles_verified, verified_before + 1);
    let published = cs[t].produce(0).unwrap().unwrap();
    assert_eq!(published, ahead);
    assert_eq!(cs[t].own_shuffles_made(), (1, 1));

    // A seat's own event, exactly as it made it, is not checked again; altered, it is.
    let before = cs[s].stats.shuffles_verified;
    let e = cs[s]
        .accept(second, "2/altered", &swapped(&mine), 0)
        .unwrap_err();
    assert!(e.to_string().contains("shuffle proof rejected"), "{e}");
    cs[s].accept(second, "2/s", &mine, 0).unwrap();
    assert_eq!(cs[s].stats.shuffles_verified, before);
    for i in [f, 3] {
        let before = cs[i].stats.shuffles_verified;
        cs[i].accept(second, "2/s", &mine, 0).unwrap();
        assert_eq!(cs[i].stats.shuffles_verified, before + 1);
    }
    // Nothing but shuffles comes out of a speculative copy.
    for c in cs.iter_mut() {
        c.accept(third, "3/t", &published, 0).unwrap();
    }
    assert_eq!(cs[0].stage(), Some(Stage::Reveal));
    assert!(cs[f].produce(0).unwrap().is_some());
    assert!(cs[f].speculative().produce(0).unwrap().is_none());
}

#[test]
fn the_next_deck_is_keyed_and_shuffled_on_the_events_of_the_hand_before_it() {
    let cs = prepared_decks(clients(3));
    for c in &cs {
        assert_eq!(
            c.stats.chains_checked, 0,
            "version 6 checks shuffles one by one"
        );
    }
}

/// The same hands at a version 7 table: the shuffles of each prepared deck are placed as they
/// arrive and checked together once the chain is complete, or when a batch finishes it.
#[test]
fn from_version_7_the_next_deck_s_shuffles_are_checked_together_and_serve_the_same() {
    let cs = prepared_decks(deferring(clients(3)));
    for c in cs.iter() {
        // Hands 0 to 5 prepared five decks past the first (one dropped before any shuffle,
        // one finished by hand 3's batch); each chain is checked once, all of its shuffles
        // in one check.
        assert!(c.stats.chains_checked >= 3, "{:?}", c.stats);
        assert!(c.stats.chained_shuffles >= 2 * c.stats.chains_checked);
        assert!(c.refused_chains().is_empty());
    }
}

fn deferring(cs: Vec<Chance>) -> Vec<Chance> {
    cs.into_iter()
        .map(|c| c.deferring_chain_checks(true))
        .collect()
}

/// A bad shuffle of the deck prepared ahead at a version 7 table: well formed, it is placed
/// and its event stands; the chain check names it, the deck does not serve, and the next hand
/// keys its own. A malformed one is still refused on arrival.
#[test]
fn from_version_7_a_bad_shuffle_of_the_next_deck_keeps_it_from_serving_and_is_named() {
    use crate::wire::log::Ahead;
    let mut cs = deferring(clients(3));
    let mut step = 0;
    run(&mut cs, &hand(0), &[0, 1, 2], &mut step);
    run(&mut cs, &hand(1), &[0, 1, 2], &mut step);
    // Seat 1's due shuffle with two whole cards swapped: every point still decodes, the proof
    // no longer holds.
    let swapped_of = |c: &Chance| {
        let Some(Ahead::Shuffle { cards, proof }) = c.produce_ahead(&[1]).unwrap() else {
            panic!("seat 1's shuffle is due");
        };
        let mut bytes = fair::from_base64("deck", &cards).unwrap();
        let (a, b) = bytes.split_at_mut(66);
        a.swap_with_slice(&mut b[..66]);
        let swapped = Ahead::Shuffle {
            cards: base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &bytes),
            proof: proof.clone(),
        };
        (swapped, cards, proof)
    };
    let (swapped, cards, proof) = swapped_of(&cs[1]);
    let truncated = Ahead::Shuffle {
        cards: cards.clone(),
        proof: proof[..proof.len() - 8].to_string(),
    };
    for c in &cs {
        let err = c.check_ahead(1, "s/1-cut", &truncated, &[1]).err().unwrap();
        assert!(matches!(err, ChanceError::Bad { seat: 1, .. }), "{err:?}");
    }
    close_step(&mut cs, &[(1, "s/1-swapped".into(), swapped)], &[1]);
    for c in &cs {
        assert_eq!(c.preparing(), Some((3, 1)), "placed in the chain");
    }
    moves(&mut cs, &[0, 2], &mut step);
    for c in &cs {
        assert_eq!(c.preparing(), None);
        assert!(c.decks.range(SPARE_BASE..).next().is_none(), "no spare");
        // Hand 0's prepared deck was checked (and served hand 1), then this one.
        assert_eq!(c.stats.chains_checked, 2);
        let refused = c.refused_chains();
        assert_eq!(refused.len(), 1);
        assert_eq!(
            (refused[0].seat, refused[0].event.as_str()),
            (1, "s/1-swapped")
        );
        assert!(
            refused[0].reason.contains("rejected"),
            "{}",
            refused[0].reason
        );
    }
    let h2 = run(&mut cs, &hand(2), &[0, 1, 2], &mut step);
    assert_eq!(h2.stages[0], Stage::Setup, "the hand keys its own deck");
    check_hand(&h2, 3);
    // The batch that finishes a prepared deck checks its chain first: hand 3 is served by the
    // deck prepared during hand 2 and keys the next one; seat 1 alone shuffles that, badly;
    // hand 4's batch would finish it, drops it instead and keys its own.
    let h3 = run(&mut cs, &hand(3), &[0, 1, 2], &mut step);
    assert_eq!(h3.stages, vec![Stage::Reveal]);
    let (swapped, ..) = swapped_of(&cs[1]);
    close_step(&mut cs, &[(1, "s/1-again".into(), swapped)], &[1]);
    let h4 = run(&mut cs, &hand(4), &[0, 1, 2], &mut step);
    assert_eq!(h4.stages[0], Stage::Setup, "not finished: keyed anew");
    check_hand(&h4, 3);
    for c in &cs {
        let refused = c.refused_chains();
        assert_eq!(refused.len(), 2);
        assert_eq!(
            (refused[1].seat, refused[1].event.as_str()),
            (1, "s/1-again")
        );
    }
}

fn together(cs: Vec<Chance>) -> Vec<Chance> {
    deferring(cs)
        .into_iter()
        .map(|c| c.checking_batch_chains(true))
        .collect()
}

/// From version 10 a batch's own shuffles are placed as they arrive and checked together when
/// the last one is in. An honest batch deals exactly what one checked step by step deals, with
/// one chain check per client and no shuffle checked on arrival.
#[test]
fn from_version_10_a_batch_s_shuffles_are_checked_together_and_deal_the_same() {
    let (mut one_by_one, mut at_once) = (deferring(clients(3)), together(clients(3)));
    let (mut s1, mut s2) = (0, 0);
    let a = run(&mut one_by_one, &hand(0), &[0, 1, 2], &mut s1);
    let b = run(&mut at_once, &hand(0), &[0, 1, 2], &mut s2);
    assert_eq!(a.stages, b.stages);
    assert_eq!(a.outcomes, b.outcomes);
    check_hand(&b, 3);
    for (x, y) in one_by_one.iter_mut().zip(at_once.iter_mut()) {
        // Besides the deck prepared ahead on the batch's events, which both check as a chain.
        assert_eq!(
            y.stats.chains_checked,
            x.stats.chains_checked + 1,
            "one chain, every step in it"
        );
        assert_eq!(y.stats.chained_shuffles, x.stats.chained_shuffles + 3);
        assert!(y.take_disproved().is_empty());
    }
}

/// A well-formed false shuffle of a batch's own deck at version 10: it is placed, the next
/// participant shuffles on it, and when the last shuffle is in every client names it, and only
/// it, with the table step its event counted at. The deck is dead: nothing is dealt from it. A
/// malformed shuffle is still refused on arrival.
#[test]
fn from_version_10_a_false_shuffle_of_a_batch_s_deck_is_built_on_then_named_and_the_deck_dies() {
    for cheater in [0 as Seat, 1, 2] {
        let mut cs = together(clients(3));
        for c in cs.iter_mut() {
            c.begin(hand(0), vec![0, 1, 2], false).unwrap();
        }
        let mut step = 10;
        let setups: Vec<(Seat, Body)> = (0..3)
            .map(|s| (s as Seat, cs[s].produce(step).unwrap().unwrap()))
            .collect();
        for (seat, body) in &setups {
            for c in cs.iter_mut() {
                c.accept(*seat, &format!("{step}/{seat}"), body, step)
                    .unwrap();
            }
        }
        step += 1;
        for k in 0..3 as Seat {
            assert_eq!(cs[0].stage(), Some(Stage::Shuffle(k as usize)));
            let mut body = cs[k as usize].produce(step).unwrap().unwrap();
            if k == cheater {
                let Body::Shuffle { decks, .. } = &mut body else {
                    panic!("a shuffle is due");
                };
                let mut cut = decks[0].clone();
                cut.proof.truncate(cut.proof.len() - 8);
                let malformed = Body::Shuffle {
                    decks: vec![cut],
                    dice: Vec::new(),
                };
                for c in cs.iter_mut() {
                    let err = c.accept(k, "malformed", &malformed, step).err().unwrap();
                    assert!(
                        matches!(err, ChanceError::Bad { seat, .. } if seat == k),
                        "{err:?}"
                    );
                }
                // Two whole cards swapped: every point still decodes, the proof no longer holds.
                let mut bytes = fair::from_base64("deck", &decks[0].cards).unwrap();
                let (a, b) = bytes.split_at_mut(66);
                a.swap_with_slice(&mut b[..66]);
                decks[0].cards = fair::to_base64(&bytes);
            }
            for c in cs.iter_mut() {
                c.accept(k, &format!("{step}/{k}"), &body, step)
                    .unwrap_or_else(|e| panic!("placed, not refused: {e}"));
            }
            if k < 2 {
                for c in cs.iter_mut() {
                    assert!(
                        c.take_disproved().is_empty(),
                        "nothing is found before the last"
                    );
                }
            }
            step += 1;
        }
        let bad_step = 11 + u32::from(cheater);
        for c in cs.iter_mut() {
            let found = c.take_disproved();
            assert_eq!(found.len(), 1, "{found:?}");
            assert_eq!(
                (found[0].seat, found[0].event.as_str(), found[0].step),
                (
                    cheater,
                    format!("{bad_step}/{cheater}").as_str(),
                    Some(bad_step)
                )
            );
            assert!(c.decks[&0].dead, "nothing is dealt from it");
            assert!(c.take_disproved().is_empty(), "named once");
        }
    }
}

/// At version 7 a seat's shuffle of the prepared deck is made without the prover's own check,
/// for the chain check that includes it. Should the same step come back on the batch that
/// finishes that deck (its first sending lost), its seat checks it like anyone's instead of
/// taking it as already checked; a step its prover did check is still taken as it is.
#[test]
fn a_step_made_for_the_chain_is_checked_when_the_batch_finishing_its_deck_takes_it() {
    use crate::wire::log::Ahead;
    let mut cs = deferring(clients(3));
    let mut step = 0;
    run(&mut cs, &hand(0), &[0, 1, 2], &mut step);
    run(&mut cs, &hand(1), &[0, 1, 2], &mut step);
    let Some(first) = cs[1].produce_ahead(&[1]).unwrap() else {
        panic!("seat 1's shuffle of the next deck is due");
    };
    close_step(&mut cs, &[(1, "s/1".into(), first)], &[1]);
    // The next seat makes its step of that deck; the event carrying it never arrives.
    let lost = (0..3)
        .find(|&s| {
            matches!(
                cs[s].produce_ahead(&[s as Seat]).unwrap(),
                Some(Ahead::Shuffle { .. })
            )
        })
        .expect("a second shuffle of the next deck is due");
    let third = 3 - 1 - lost;
    let before: Vec<u64> = cs.iter().map(|c| c.stats.shuffles_verified).collect();
    let h2 = run(&mut cs, &hand(2), &[0, 1, 2], &mut step);
    assert_eq!(
        h2.stages[0],
        Stage::Shuffle(1),
        "the batch finishes the prepared deck"
    );
    check_hand(&h2, 3);
    let delta: Vec<u64> = cs
        .iter()
        .zip(&before)
        .map(|(c, b)| c.stats.shuffles_verified - b)
        .collect();
    let spectator = delta[3];
    assert_eq!(delta[1], spectator, "no step of its own here: {delta:?}");
    assert_eq!(
        delta[lost], spectator,
        "its step made for the chain is checked: {delta:?}"
    );
    assert_eq!(
        delta[third],
        spectator - 1,
        "its self-checked step is taken as made: {delta:?}"
    );
}

/// The hands of the test above, on `cs` (3 seats and a spectator).
fn prepared_decks(mut cs: Vec<Chance>) -> Vec<Chance> {
    let mut step = 0;
    let all = [0, 1, 2];
    // Hand 0: setup, three shuffles, reveal. The next deck's keys ride on the setups and
    // its shuffles on the shuffle events: it is ready before the hand's cards are.
    let h0 = run(&mut cs, &hand(0), &all, &mut step);
    assert_eq!(
        h0.stages,
        vec![
            Stage::Setup,
            Stage::Shuffle(0),
            Stage::Shuffle(1),
            Stage::Shuffle(2),
            Stage::Reveal
        ]
    );
    assert_eq!(
        shuffled_ids(&h0.shuffle),
        vec![0],
        "the body carries the hand's deck only"
    );
    check_hand(&h0, 3);
    for c in &cs {
        let held: Vec<DeckId> = c.decks.range(SPARE_BASE..).map(|(k, _)| *k).collect();
        assert_eq!(held, vec![SPARE_BASE]);
        assert_eq!(c.decks[&SPARE_BASE].fair_hand, ahead_hand(0));
    }
    // Hand 1, same participants: the prepared deck is deck 1, straight to the reveals,
    // whose events carry the keys of the deck after it. Its shuffles then ride on the
    // hand's moves, in the order the seats happen to act.
    let h1 = run(&mut cs, &hand(1), &all, &mut step);
    assert_eq!(h1.stages, vec![Stage::Reveal]);
    check_hand(&h1, 3);
    for c in &cs {
        assert_eq!(c.stats.spares_used, 1);
        assert_eq!(c.preparing(), Some((3, 0)));
    }
    moves(&mut cs, &[2, 2, 0, 1], &mut step);
    for c in &cs {
        assert_eq!(c.preparing(), None, "three shuffles made it a spare");
        assert_eq!(c.decks[&(SPARE_BASE + 1)].shuffles, 3);
    }
    let h2 = run(&mut cs, &hand(2), &all, &mut step);
    assert_eq!(h2.stages, vec![Stage::Reveal]);
    check_hand(&h2, 3);
    // Hand 3 finds the next deck keyed and shuffled by seat 1 only: it goes on with the
    // other two shuffles, seat 1's first in its order, and no setup.
    moves(&mut cs, &[1], &mut step);
    let h3 = run(&mut cs, &hand(3), &all, &mut step);
    assert_eq!(
        h3.stages,
        vec![Stage::Shuffle(1), Stage::Shuffle(2), Stage::Reveal]
    );
    check_hand(&h3, 3);
    for c in &cs {
        assert_eq!(c.stats.spares_used, 3);
        // Hand 3's events carried the keys of the next deck (its shuffles wait for the
        // hand's moves).
        assert_eq!(c.preparing(), Some((3, 0)));
    }
    // A hand with seat 2 gone: the deck prepared for three seats is dropped, and the two
    // seats key their own (and prepare the next one for two).
    let two = deck_of(&hand(4), 4)
        .into_iter()
        .filter(|r| !matches!(r, ChanceRequest::Reveal { .. }))
        .collect::<Vec<_>>();
    let h4 = run(&mut cs, &two, &[0, 1], &mut step);
    assert_eq!(
        h4.stages,
        vec![
            Stage::Setup,
            Stage::Shuffle(0),
            Stage::Shuffle(1),
            Stage::Reveal
        ]
    );
    for c in &cs {
        let held: Vec<DeckId> = c.decks.range(SPARE_BASE..).map(|(k, _)| *k).collect();
        assert_eq!(held, vec![SPARE_BASE + 4], "the two-seat deck, ready");
        assert_eq!(c.decks[&(SPARE_BASE + 4)].parts, vec![0, 1]);
    }
    // A different spec is not served by it.
    let other = vec![ChanceRequest::Shuffle {
        deck: 5,
        spec: DeckSpec::standard(2),
    }];
    let h5 = run(&mut cs, &other, &[0, 1], &mut step);
    assert_eq!(h5.stages[0], Stage::Setup);
    // Every deck of the table has its own proof context.
    for c in &cs {
        let hands: BTreeSet<u64> = c.decks.values().map(|d| d.fair_hand).collect();
        assert_eq!(hands.len(), c.decks.len());
    }
    cs
}

#[test]
fn a_part_of_the_next_deck_that_is_not_due_or_does_not_verify_is_refused() {
    use crate::wire::log::Ahead;
    let mut cs = clients(3);
    let mut step = 0;
    run(&mut cs, &hand(0), &[0, 1, 2], &mut step);
    run(&mut cs, &hand(1), &[0, 1, 2], &mut step);
    // Keys are in; at a step only seat 1 acts, seat 1's shuffle is due and nobody else's.
    let good = cs[1].produce_ahead(&[1]).unwrap().expect("due");
    assert!(matches!(good, Ahead::Shuffle { .. }));
    assert_eq!(cs[0].produce_ahead(&[1]).unwrap(), None);
    let spectator = cs.len() - 1;
    let c = &cs[spectator];
    c.check_ahead(1, "s/1", &good, &[1]).unwrap();
    let err = c.check_ahead(0, "s/0", &good, &[1]).err().unwrap();
    assert!(err.to_string().contains("did not expect"), "{err}");
    // At a step both seats 0 and 1 act, the first in seat order shuffles, not seat 1.
    assert!(c.check_ahead(1, "s/1", &good, &[0, 1]).is_err());
    // A key share where a shuffle is due, and a shuffle of other cards.
    let keys = Ahead::Keys(String::new());
    assert!(c.check_ahead(1, "s/1", &keys, &[1]).is_err());
    let Ahead::Shuffle { cards, proof } = good.clone() else {
        unreachable!()
    };
    let other = cs[2].produce_ahead(&[2]).unwrap().expect("due");
    let Ahead::Shuffle { cards: theirs, .. } = other else {
        unreachable!()
    };
    let forged = Ahead::Shuffle {
        cards: theirs,
        proof: proof.clone(),
    };
    // (Event ids differ with their content: the verification cache is keyed by them.)
    let err = c.check_ahead(1, "s/1-forged", &forged, &[1]).err().unwrap();
    assert!(matches!(err, ChanceError::Bad { seat: 1, .. }), "{err:?}");
    // Seat 2's honest shuffle under seat 1's name fails its context.
    let stolen = cs[2].produce_ahead(&[2]).unwrap().unwrap();
    assert!(c.check_ahead(1, "s/1-stolen", &stolen, &[1]).is_err());
    // The honest shuffle with two of its cards swapped is refused too.
    let mut bytes = fair::from_base64("deck", &cards).unwrap();
    bytes.swap(0, 33);
    let swapped = Ahead::Shuffle {
        cards: base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes),
        proof,
    };
    assert!(c.check_ahead(1, "s/1-swapped", &swapped, &[1]).is_err());
}

#[test]
fn a_forfeit_kills_the_spares_its_seat_keyed() {
    let mut cs = clients(3);
    let mut step = 0;
    run(&mut cs, &hand(0), &[0, 1, 2], &mut step);
    // Seat 2 is removed (and say it comes back): the spare it keyed is dead.
    for c in cs.iter_mut() {
        c.forget(&[2]);
    }
    let h1 = run(&mut cs, &hand(1), &[0, 1, 2], &mut step);
    assert_eq!(h1.stages[0], Stage::Setup);
    assert_eq!(shuffled_ids(&h1.shuffle), vec![1]);
    check_hand(&h1, 3);
    assert!(cs.iter().all(|c| c.stats.spares_used == 0));
    // The same for a deck still being prepared: hand 2 is served by the spare hand 1
    // made, and its reveals carry the keys of the next.
    run(&mut cs, &hand(2), &[0, 1, 2], &mut step);
    for c in cs.iter_mut() {
        assert_eq!(c.preparing(), Some((3, 0)));
        c.forget(&[1]);
        assert_eq!(c.preparing(), None);
    }
}

#[test]
fn dice_that_need_a_new_epoch_keep_the_setup_but_the_spare_still_serves_the_deck() {
    let mut cs = clients(2);
    let mut step = 0;
    let parts = [0, 1];
    let h0 = run(&mut cs, &hand(0), &parts, &mut step);
    assert_eq!(h0.stages.len(), 4);
    // Use up most of the epoch's dice slots (no setup: the epoch serves them).
    let roll = ChanceRequest::RollPublic {
        sides: 6,
        count: 1,
        by: None,
    };
    let many = vec![roll.clone(); EPOCH_SLOTS as usize - 4];
    let r = run(&mut cs, &many, &parts, &mut step);
    assert_eq!(r.stages, vec![Stage::Reveal]);
    // A deck and more dice than the epoch has left: a setup opens a new epoch, the
    // spare serves the deck (no shuffles), the dice go on the reveals.
    let mut reqs = hand(1);
    reqs.extend(vec![roll; 8]);
    let h1 = run(&mut cs, &reqs, &parts, &mut step);
    assert_eq!(h1.stages, vec![Stage::Setup, Stage::Reveal]);
    assert!(matches!(&h1.setup, Some(Body::Setup { shares, .. }) if shares.is_empty()));
    check_hand(&h1, 2);
    for o in &h1.outcomes {
        assert_eq!(o[4..], h1.outcomes[0][4..]);
        assert!(matches!(&o[4], ChanceOutcome::Rolled { values } if values.len() == 1));
    }
    for c in &cs {
        assert_eq!(c.stats.spares_used, 1);
        assert_eq!(c.stats.epochs, 2);
    }
}

#[test]
fn decks_are_prepared_ahead_only_within_the_card_budget_and_never_take_a_game_s_deck_id() {
    let prepares = |specs: &[DeckSpec], spares: bool| {
        let mut c = clients(2).remove(0);
        let reqs = specs
            .iter()
            .enumerate()
            .map(|(i, s)| ChanceRequest::Shuffle {
                deck: i as DeckId,
                spec: s.clone(),
            })
            .collect();
        c.begin(reqs, vec![0, 1], spares).unwrap();
        match c.produce(0).unwrap() {
            Some(Body::Setup { shares, .. }) => assert_eq!(shares.len(), specs.len()),
            x => panic!("{x:?}"),
        }
        c.ahead.as_ref().map(|a| a.deck.spec.len())
    };
    let s = DeckSpec::standard;
    assert_eq!(prepares(&[s(1)], true), Some(52));
    assert_eq!(prepares(&[s(2)], true), Some(104), "104 + 104 cards fit");
    assert_eq!(prepares(&[s(3)], true), None, "156 + 156 cards do not");
    assert_eq!(
        prepares(&[s(1), s(1)], true),
        Some(52),
        "the first deck's spec"
    );
    assert_eq!(
        prepares(&[s(2), s(1)], true),
        None,
        "104 + 52 + 104 cards do not fit"
    );
    assert_eq!(prepares(&[s(1)], false), None);
    let mut c = clients(2).remove(0);
    let err = c.begin(
        vec![ChanceRequest::Shuffle {
            deck: SPARE_BASE,
            spec: s(1),
        }],
        vec![0, 1],
        true,
    );
    assert!(matches!(err, Err(ChanceError::Protocol(_))), "{err:?}");
}

// ---- whispers (PROTOCOL.md §5.11) ------------------------------------------------------

/// Runs one batch like [`run`], letting `tamper` rewrite each event before every client
/// checks it; stops at the first event a client refuses, naming its signer.
fn run_tampered(
    cs: &mut [Chance],
    reqs: &[ChanceRequest],
    parts: &[Seat],
    step: &mut u32,
    mut tamper: impl FnMut(Seat, &mut Body),
) -> Result<Vec<Vec<ChanceOutcome>>, (Seat, String)> {
    for c in cs.iter_mut() {
        c.begin(reqs.to_vec(), parts.to_vec(), false).unwrap();
    }
    loop {
        let stage = cs[0].stage().unwrap();
        assert!(cs.iter().all(|c| c.stage() == Some(stage)));
        if stage == Stage::Ready {
            break;
        }
        let events: Vec<(Seat, Body)> = cs
            .iter()
            .filter_map(|c| c.produce(*step).unwrap().map(|b| (c.my_seat().unwrap(), b)))
            .collect();
        assert!(!events.is_empty(), "nobody acts at {stage:?}");
        for (seat, mut body) in events {
            tamper(seat, &mut body);
            let id = format!("{step}/{seat}");
            for c in cs.iter_mut() {
                c.accept(seat, &id, &body, *step)
                    .map_err(|e| (seat, e.to_string()))?;
            }
        }
        *step += 1;
    }
    Ok(cs.iter_mut().map(|c| c.finish().unwrap()).collect())
}

/// The card of a sealed deal as each client knows it (`None`: not dealt to it).
fn dealt_card(o: &ChanceOutcome) -> Option<CardId> {
    match o {
        ChanceOutcome::Dealt { card, .. } => *card,
        x => panic!("{x:?}"),
    }
}

#[test]
fn a_position_dealt_sealed_to_each_seat_in_turn_opens_for_each_alone_and_its_holder_shows_it_after_a_key_holder_left(
) {
    let mut cs = clients(3);
    let spectator = cs.len() - 1;
    let mut step = 0;
    let mut sealed_seen = Vec::new();
    // Seat 0 draws position 0 first: every other key holder seals its token to it and
    // publishes nothing.
    let first = run_tampered(
        &mut cs,
        &[
            ChanceRequest::Shuffle {
                deck: 0,
                spec: DeckSpec::standard(1),
            },
            ChanceRequest::DealSealed {
                deck: 0,
                position: 0,
                to: 0,
            },
        ],
        &[0, 1, 2],
        &mut step,
        |seat, b| {
            if let Body::Reveal { tokens, sealed, .. } = b {
                assert!(tokens.is_empty(), "seat {seat} published a token");
                sealed_seen.extend(sealed.iter().map(|t| (seat, t.to)));
            }
        },
    )
    .unwrap();
    assert_eq!(sealed_seen, vec![(1, 0), (2, 0)]);
    let card = dealt_card(&first[0][1]).expect("seat 0 holds it");
    for (c, o) in first.iter().enumerate().skip(1) {
        assert_eq!(dealt_card(&o[1]), None, "client {c} learnt seat 0's card");
    }
    // Seat 1 draws the same position later, the same way: the same card, still hidden from
    // seat 2 and the spectator, although seat 2 sealed its token twice.
    let second = run(
        &mut cs,
        &[ChanceRequest::DealSealed {
            deck: 0,
            position: 0,
            to: 1,
        }],
        &[0, 1, 2],
        &mut step,
    );
    assert_eq!(dealt_card(&second.outcomes[1][0]), Some(card));
    for c in [0, 2, spectator] {
        assert_eq!(dealt_card(&second.outcomes[c][0]), None, "client {c}");
    }
    assert!(cs[spectator].decks[&0].tokens.is_empty(), "no plain token");
    // Seat 2 leaves: the deck is dead for dealing, but seat 1 shows its card by itself.
    for c in cs.iter_mut() {
        c.forget(&[2]);
    }
    let dead = cs[0]
        .begin(
            vec![ChanceRequest::DealSealed {
                deck: 0,
                position: 1,
                to: 0,
            }],
            vec![0, 1],
            false,
        )
        .unwrap_err();
    assert!(dead.to_string().contains("cannot be dealt from"), "{dead}");
    cs[0].abandon();
    let never = cs[0]
        .begin(
            vec![ChanceRequest::Show {
                deck: 0,
                position: 1,
                holder: 0,
            }],
            vec![0, 1],
            false,
        )
        .unwrap_err();
    assert!(never.to_string().contains("was not dealt"), "{never}");
    cs[0].abandon();
    let show = [ChanceRequest::Show {
        deck: 0,
        position: 0,
        holder: 1,
    }];
    // A shown token that is not the maker's is refused, naming the shower.
    let mut bad = cs.clone();
    let e = run_tampered(&mut bad, &show, &[0, 1], &mut step.clone(), |_, b| {
        if let Body::Reveal { shown, .. } = b {
            shown[0].tokens.swap(0, 2);
        }
    })
    .unwrap_err();
    assert_eq!(e.0, 1);
    assert!(e.1.contains("shown by its holder"), "{}", e.1);
    let opened = run(&mut cs, &show, &[0, 1], &mut step);
    assert_eq!(opened.stages, vec![Stage::Reveal]);
    for o in &opened.outcomes {
        assert_eq!(
            o[0],
            ChanceOutcome::Revealed {
                deck: 0,
                position: 0,
                card
            }
        );
    }
}

const ROLES: [&str; 4] = ["Insider", "Common", "Common", "Common"];

/// Five seats: seat 0 rolls six private dice; seats 1–4 alone key a deck of one Insider
/// and three Common cards, and each is dealt one face down. Returns the dice seat 0 sees
/// and the seat dealt the Insider card.
fn insider_table(cs: &mut [Chance], step: &mut u32) -> (Vec<u8>, Seat) {
    let all: Vec<Seat> = (0..5).collect();
    let roll = run(
        cs,
        &[ChanceRequest::RollPrivate {
            owner: 0,
            sides: 100,
            count: 6,
        }],
        &all,
        step,
    );
    let dice = match &roll.outcomes[0][0] {
        ChanceOutcome::RolledPrivate {
            values: Some(v), ..
        } => v.clone(),
        x => panic!("{x:?}"),
    };
    let mut reqs = vec![ChanceRequest::Shuffle {
        deck: 0,
        spec: DeckSpec::Custom {
            names: ROLES.iter().map(|s| s.to_string()).collect(),
        },
    }];
    reqs.extend((0..4u16).map(|p| ChanceRequest::deal(0, p, p as Seat + 1)));
    let deal = run(cs, &reqs, &[1, 2, 3, 4], step);
    let mut insider = None;
    for (c, o) in deal.outcomes.iter().enumerate() {
        for out in &o[1..] {
            if let ChanceOutcome::Dealt {
                position,
                card: Some(card),
                ..
            } = out
            {
                assert_eq!(
                    *position as usize + 1,
                    c,
                    "a card opens for its holder alone"
                );
                if *card == CardId(0) {
                    insider = Some(c as Seat);
                }
            }
        }
    }
    (dice, insider.expect("someone holds the Insider card"))
}

fn whisper_req() -> ChanceRequest {
    ChanceRequest::Whisper {
        owner: 0,
        roll: 0,
        deck: 0,
        card: CardId(0),
        positions: vec![0, 1, 2, 3],
    }
}

fn show_roles(cs: &mut [Chance], step: &mut u32) {
    let reqs: Vec<ChanceRequest> = (0..4)
        .map(|position| ChanceRequest::Reveal { deck: 0, position })
        .collect();
    run(cs, &reqs, &[0, 1, 2, 3, 4], step);
}

#[test]
fn a_whisper_reaches_the_card_holder_alone_and_the_whisperer_never_learns_who() {
    let mut cs = clients(5);
    let mut step = 0;
    let (dice, insider) = insider_table(&mut cs, &mut step);
    let mut keys = Vec::new();
    let outs = run_tampered(
        &mut cs,
        &[whisper_req()],
        &[0, 1, 2, 3, 4],
        &mut step,
        |_, b| {
            if let Body::Mailbox { keys: k } = b {
                keys.push(k[0].clone());
            }
        },
    )
    .unwrap();
    // Four mailbox keys, all valid x-only keys, all different: nothing tells the real one.
    assert_eq!(keys.len(), 4);
    assert!(keys.iter().all(|k| whisper::parse_key(k).is_ok()));
    assert_eq!(keys.iter().collect::<BTreeSet<_>>().len(), 4);
    for (c, o) in outs.iter().enumerate() {
        let ChanceOutcome::Whispered { values, to, .. } = &o[0] else {
            panic!("{o:?}")
        };
        assert_eq!(*to, None, "no client is told who holds the card");
        if c == 0 || c == insider as usize {
            assert_eq!(values.as_ref(), Some(&dice), "client {c}");
        } else {
            assert_eq!(*values, None, "client {c} (the spectator is client 5)");
        }
    }
    // What the whisperer holds of the role deck: nothing (it holds no key share of it and
    // was dealt nothing), and its whisper names no holder.
    let d = &cs[0].decks[&0];
    assert!(d.idx(0).is_none() && d.my_secret.is_none());
    // At the end: the roles are shown, the whisper opened, and everyone checks it.
    show_roles(&mut cs, &mut step);
    let opened = run(
        &mut cs,
        &[ChanceRequest::OpenWhisper { owner: 0, roll: 0 }],
        &[0, 1, 2, 3, 4],
        &mut step,
    );
    for o in &opened.outcomes {
        assert_eq!(
            o[0],
            ChanceOutcome::WhisperOpened {
                owner: 0,
                roll: 0,
                values: dice.clone()
            }
        );
    }
    // Only the whisperer and the three Commons owed an opening; the Insider none.
    let again = cs[0].begin(
        vec![ChanceRequest::OpenWhisper { owner: 0, roll: 0 }],
        vec![0, 1, 2, 3, 4],
        false,
    );
    assert!(matches!(again, Err(ChanceError::Protocol(e)) if e.contains("open already")));
}

#[test]
fn a_whisperer_who_seals_another_secret_to_one_mailbox_is_caught_at_the_opening() {
    let mut cs = clients(5);
    let mut step = 0;
    let (_, insider) = insider_table(&mut cs, &mut step);
    // The whisperer's letter secret, as its client derives it.
    let whisperer = Secrets::new(0, Zeroizing::new([40; 32]));
    let letter = whisper::secret_key(&whisperer.derive(&TABLE, "letter", &[0, 0])).unwrap();
    let mut mailboxes: BTreeMap<Seat, PublicKey> = BTreeMap::new();
    // It seals something else to the mailbox of seat 2 (a Common or the Insider): a way to
    // learn the Insider from what each seat goes on to say.
    let outs = run_tampered(
        &mut cs,
        &[whisper_req()],
        &[0, 1, 2, 3, 4],
        &mut step,
        |seat, b| match b {
            Body::Mailbox { keys } => {
                mailboxes.insert(seat, whisper::parse_key(&keys[0]).unwrap());
            }
            Body::Letter { letters } => {
                let mut rng = ChaCha20Rng::seed_from_u64(5);
                letters[0].sealed[1] =
                    whisper::seal(&mut rng, &letter, &mailboxes[&2], b"another word").unwrap();
            }
            _ => {}
        },
    )
    .expect("every client accepts letters it cannot open");
    if insider == 2 {
        // Its holder cannot read a die from it: it learns nothing, and says nothing.
        assert!(matches!(
            &outs[2][0],
            ChanceOutcome::Whispered { values: None, .. }
        ));
    }
    show_roles(&mut cs, &mut step);
    let caught = run_tampered(
        &mut cs,
        &[ChanceRequest::OpenWhisper { owner: 0, roll: 0 }],
        &[0, 1, 2, 3, 4],
        &mut step,
        |_, _| {},
    )
    .unwrap_err();
    assert_eq!(caught.0, 0, "{caught:?}");
    assert!(
        caught
            .1
            .contains("the letter to seat 2's mailbox does not hold seat 0's die"),
        "{caught:?}"
    );
}

#[test]
fn a_candidate_whose_mailbox_was_not_a_decoy_is_caught_at_the_opening() {
    let mut cs = clients(5);
    let mut step = 0;
    let (dice, insider) = insider_table(&mut cs, &mut step);
    let common = (1..5).find(|s| *s != insider).unwrap();
    // A Common publishes a key it holds the secret of instead of its decoy: it reads the
    // letter the whisperer seals to it.
    let cheat = whisper::secret_key(&[77; 32]).unwrap();
    let mut letter_key = None;
    let mut its_letter = None;
    run_tampered(
        &mut cs,
        &[whisper_req()],
        &[0, 1, 2, 3, 4],
        &mut step,
        |seat, b| match b {
            Body::Mailbox { keys } if seat == common => {
                keys[0] = whisper::public_key(&cheat).to_hex();
            }
            Body::Letter { letters } => {
                letter_key = Some(whisper::parse_key(&letters[0].key).unwrap());
                its_letter = Some(letters[0].sealed[usize::from(common) - 1].clone());
            }
            _ => {}
        },
    )
    .unwrap();
    // It can read the Master's die indeed...
    let bytes = whisper::open(&cheat, &letter_key.unwrap(), &its_letter.unwrap()).unwrap();
    assert!(!bytes.is_empty() && !dice.is_empty());
    // ...but at the end its client can show no seed that makes that key.
    show_roles(&mut cs, &mut step);
    let caught = run_tampered(
        &mut cs,
        &[ChanceRequest::OpenWhisper { owner: 0, roll: 0 }],
        &[0, 1, 2, 3, 4],
        &mut step,
        |_, _| {},
    )
    .unwrap_err();
    assert_eq!(caught.0, common, "{caught:?}");
    assert!(caught.1.contains("the key was not a decoy"), "{caught:?}");
}

#[test]
fn a_whisper_is_asked_only_of_dealt_positions_and_private_rolls() {
    let mut cs = clients(5);
    let mut step = 0;
    insider_table(&mut cs, &mut step);
    let refused = |req: ChanceRequest| {
        let mut c = cs[1].clone();
        match c.begin(vec![req], vec![0, 1, 2, 3, 4], false) {
            Err(ChanceError::Protocol(e)) => e,
            x => panic!("{:?}", x.map(|_| ())),
        }
    };
    let w = |owner: Seat, roll: u32, positions: Vec<u16>| ChanceRequest::Whisper {
        owner,
        roll,
        deck: 0,
        card: CardId(0),
        positions,
    };
    assert!(refused(w(0, 1, vec![0])).contains("no private roll 1"));
    assert!(refused(w(1, 0, vec![0])).contains("no private roll"));
    assert!(refused(w(0, 0, vec![])).contains("to nobody"));
    assert!(refused(w(0, 0, vec![0, 0])).contains("twice"));
    assert!(refused(w(0, 0, vec![4])).contains("was not dealt"));
    assert!(refused(ChanceRequest::OpenWhisper { owner: 0, roll: 0 }).contains("whispered no roll"));
}

/// Gathers the jobs `c`'s production asks for, as the page does before a tick, and sends each
/// through text as the page sends it to its worker.
fn jobs_of(c: &mut Chance) -> Vec<ShuffleJob> {
    let list = Arc::default();
    c.collect_jobs(Some(Arc::clone(&list)));
    assert!(c.produce(0).is_err(), "a shuffle gathered is not made");
    c.collect_jobs(None);
    let jobs = std::mem::take(&mut *list.lock().unwrap());
    jobs.iter()
        .map(|j| serde_json::from_str(&serde_json::to_string(j).unwrap()).unwrap())
        .collect()
}

/// `done` with one field changed.
fn altered(done: &ShuffleDone, field: &str, value: String) -> ShuffleDone {
    let mut v = serde_json::to_value(done).unwrap();
    v[field] = serde_json::Value::String(value);
    serde_json::from_value(v).unwrap()
}

#[test]
fn a_shuffle_made_apart_is_published_as_if_made_here_and_a_wrong_one_is_refused() {
    let mut cs = clients(3);
    for c in cs.iter_mut() {
        c.begin(hand(0), vec![0, 1, 2], false).unwrap();
    }
    let setups: Vec<(Seat, Body)> = cs[..3]
        .iter()
        .map(|c| (c.my_seat().unwrap(), c.produce(0).unwrap().unwrap()))
        .collect();
    for (seat, body) in &setups {
        for c in cs.iter_mut() {
            c.accept(*seat, &format!("0/{seat}"), body, 0).unwrap();
        }
    }
    let order = cs[0].batch.as_ref().unwrap().order.clone();
    // The first shuffle builds on the initial deck, the second on the first.
    for (k, seat) in order.iter().take(2).enumerate() {
        let i = *seat as usize;
        // What the seat would publish proving it here, in a copy with a cache of its own.
        let here = cs[i]
            .clone()
            .with_cache(Arc::new(Caches::default()))
            .produce(0)
            .unwrap()
            .unwrap();
        let jobs = jobs_of(&mut cs[i]);
        assert_eq!(jobs.len(), 1);
        assert_eq!(cs[i].own_shuffles_made(), (0, 0));
        let done = jobs[0].run().unwrap();

        // An answer whose deck is not the one its proof is for, or to no job asked for, or
        // unreadable, is refused and leaves nothing behind.
        let mut bytes = fair::from_base64("deck", &cards(&here)).unwrap();
        let card = fair::deck_len(1);
        let (a, b) = bytes.split_at_mut(card);
        a.swap_with_slice(&mut b[..card]);
        let wrong = [
            altered(&done, "cards", fair::to_base64(&bytes)),
            altered(&done, "key", hex::encode([9u8; 32])),
            altered(&done, "proof", "not base64".into()),
        ];
        for w in &wrong {
            let e = cs[i].take_shuffle(w).unwrap_err().to_string();
            assert!(e.starts_with("a shuffle made apart: "), "{e}");
        }
        assert_eq!(cs[i].own_shuffles_taken(), 0);
        assert_eq!(jobs_of(&mut cs[i]).len(), 1, "still to be made");

        // The right one is taken: the seat publishes it, byte for byte what it would have
        // proved itself, without proving anything.
        cs[i].take_shuffle(&done).unwrap();
        assert_eq!(cs[i].own_shuffles_taken(), 1);
        let body = cs[i].produce(0).unwrap().unwrap();
        assert_eq!(body, here);
        assert_eq!(cs[i].own_shuffles_made(), (0, 0));
        assert!(jobs_of_none(&mut cs[i]));
        for c in cs.iter_mut() {
            c.accept(*seat, &format!("{}/{seat}", k + 1), &body, 0)
                .unwrap();
        }
    }
}

/// Nothing left to gather: production goes through with what was taken.
fn jobs_of_none(c: &mut Chance) -> bool {
    let list: Arc<Mutex<Vec<ShuffleJob>>> = Arc::default();
    c.collect_jobs(Some(Arc::clone(&list)));
    let made = c.produce(0);
    c.collect_jobs(None);
    let empty = list.lock().unwrap().is_empty();
    made.is_ok() && empty
}

#[test]
fn a_job_that_does_not_describe_its_shuffle_is_not_run() {
    let mut cs = clients(2);
    for c in cs.iter_mut() {
        c.begin(hand(0), vec![0, 1], false).unwrap();
    }
    let setups: Vec<(Seat, Body)> = cs[..2]
        .iter()
        .map(|c| (c.my_seat().unwrap(), c.produce(0).unwrap().unwrap()))
        .collect();
    for (seat, body) in &setups {
        for c in cs.iter_mut() {
            c.accept(*seat, &format!("0/{seat}"), body, 0).unwrap();
        }
    }
    let first = cs[0].batch.as_ref().unwrap().order[0] as usize;
    let job = jobs_of(&mut cs[first]).remove(0);
    let mut v = serde_json::to_value(&job).unwrap();
    v["index"] = serde_json::json!(1);
    let wrong: ShuffleJob = serde_json::from_value(v).unwrap();
    assert!(wrong.run().is_err());
    // Its debug text names it without its secret.
    let text = format!("{job:?}");
    let secret = serde_json::to_value(&job).unwrap()["secret"].clone();
    assert!(!text.contains(secret.as_str().unwrap()), "{text}");
}

/// A card goes face down only to a key holder of its deck: of a deck of the batch, a
/// participant; of a deck shuffled before, one of the seats that keyed it. A seat that holds no
/// share could not open the card, and every holder together could read it.
#[test]
fn a_card_is_dealt_only_to_a_seat_holding_a_key_share_of_its_deck() {
    let mut cs = clients(3);
    let mut step = 0;
    // Seats 0 and 1 key deck 0; seat 2 takes no part.
    run(&mut cs, &hand(0), &[0, 1], &mut step);
    let refused = |c: &mut Chance, reqs: Vec<ChanceRequest>, parts: Vec<Seat>| {
        let e = c.begin(reqs, parts, false).unwrap_err();
        c.abandon();
        e.to_string()
    };
    let e = refused(
        &mut cs[0],
        vec![ChanceRequest::deal(0, 5, 2)],
        vec![0, 1, 2],
    );
    assert_eq!(
        e,
        "seat 2 is dealt a card of deck 0 but holds no key share of it"
    );
    let sealed = ChanceRequest::DealSealed {
        deck: 0,
        position: 5,
        to: 2,
    };
    assert!(refused(&mut cs[0], vec![sealed], vec![0, 1, 2]).contains("no key share"));
    // A deck of this batch is keyed by its participants only.
    let mut next = hand(1);
    next[2] = ChanceRequest::deal(1, 1, 2);
    assert!(refused(&mut cs[0], next, vec![0, 1]).contains("seat 2 is dealt a card of deck 1"));
    // Its holders are dealt as before.
    let ok = cs[0].begin(vec![ChanceRequest::deal(0, 5, 1)], vec![0, 1], false);
    assert!(ok.is_ok(), "{ok:?}");
}
