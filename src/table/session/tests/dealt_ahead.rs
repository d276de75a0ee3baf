//! A Tolerance showdown that also deals the next hand (version 11, PROTOCOL §5.8, §9): a seat
//! that signs its reveal there twice, early or late; a seat that floods the table while
//! everyone waits for that reveal; a seat back from sitting out while a hand it does not play
//! reaches such a showdown. The seat withholding the reveal is in mod.rs. Each test checks what
//! every client and a replay of the whole log in other orders conclude, and where the attack
//! should change nothing, compares with the same table played without it.

use super::*;
use crate::bots::BotLevel;
use crate::games::registry::TableGame;
use crate::games::tolerance::game::{is_dealt_ahead, DEALT_AHEAD};
use crate::games::tolerance::{Tolerance, Variant};

/// Seat 1's reveal of a showdown that deals the next hand.
fn deals_ahead(p: &Payload) -> bool {
    matches!(&p.body, Body::Reveal { tokens, .. } if tokens.iter().any(|t| is_dealt_ahead(t.deck)))
}

/// A 3-seat, 6-hand table of Normal bots.
fn table(seed: u64) -> Harness<Tolerance> {
    let t = Tolerance::new(Variant::default(), 3, Some(6)).unwrap();
    let mut h = Harness::new(t, seed, quick());
    h.bots = (0..3)
        .map(|i| Tolerance::bot(BotLevel::Normal, StdRng::seed_from_u64(seed * 10 + i)))
        .collect();
    h
}

/// The table of `seed` played, with no clock moving, until seat 1 has signed its reveal of the
/// first showdown that deals the next hand, which its relays hold back: every other seat waits
/// for it. That event and its payload; `None` when the table ended without such a showdown.
fn at_held_showdown(seed: u64) -> Option<(Harness<Tolerance>, Event, Payload)> {
    let mut h = table(seed);
    h.hold[1] = Some(deals_ahead);
    h.settle();
    h.hold[1] = None;
    let ev = h.held.pop()?;
    assert!(h.held.is_empty(), "one reveal held");
    assert!(
        !h.spectator.is_finished(),
        "the table waits for the held reveal"
    );
    let p = parse_log(&ev, &hex::encode(h.cfg.table)).unwrap();
    Some((h, ev, p))
}

/// Runs `attack` on the first two tables of seeds 80–89 that reach a showdown that deals with
/// seat 1's reveal of it held back ([`at_held_showdown`]).
fn on_two_held_showdowns(mut attack: impl FnMut(u64, Harness<Tolerance>, Event, Payload)) {
    let mut tried = 0;
    for seed in 80..90 {
        let Some((h, ev, p)) = at_held_showdown(seed) else {
            continue;
        };
        attack(seed, h, ev, p);
        tried += 1;
        if tried == 2 {
            return;
        }
    }
    panic!("only {tried} of seeds 80–89 reached a showdown that deals");
}

/// The same table played to its end with nothing held back.
fn clean(seed: u64) -> Harness<Tolerance> {
    let mut h = table(seed);
    h.run_honestly(200);
    h
}

/// Every violation any client saw names seat 1.
fn only_seat_1_blamed(h: &Harness<Tolerance>) {
    for v in honest_violations(h) {
        assert_eq!(v.culprit(), 1, "{v}");
    }
}

/// Seat 1's held reveal `ev` of `p` published, and signed a second time (the same payload at a
/// later time: a second event for the same step and head) while the table can still tell; the
/// table played to its end.
fn forked(
    mut h: Harness<Tolerance>,
    ev: Event,
    p: &Payload,
    twin_late: bool,
) -> Harness<Tolerance> {
    let twin = h.sign(1, p, h.now + 1);
    assert_ne!(twin.id, ev.id);
    h.publish(ev);
    if twin_late {
        // Everyone else's reveals land, the next hand's cards are dealt and opened by their
        // owners, and the table stops at that hand's first decision: only then is the twin seen.
        h.settle_deciding(false);
        assert!(
            h.seats.iter().any(|s| s.my_turn().is_some()),
            "a decision awaited"
        );
        assert!(
            h.spectator.position().0 > p.step,
            "the table went past the showdown"
        );
    }
    h.publish(twin);
    h.run(200);
    h.agree();
    h
}

/// The fork at a showdown that deals removes its signer for good, wherever the table was when
/// the second event came, as long as the others had not built past the first; the hand is
/// settled by the forfeit rule; the deck dealt with that showdown is spent with the batch and
/// never opened again; the next hand keys its own deck without the forker.
#[test]
fn a_fork_at_a_showdown_that_deals_removes_its_signer_and_the_next_deck_dies() {
    for twin_late in [false, true] {
        on_two_held_showdowns(|seed, h, ev, p| {
            let h = forked(h, ev, &p, twin_late);
            let at = p.step;
            let what = format!("seed {seed}, twin late: {twin_late}");
            assert!(
                h.spectator.verdicts().iter().any(|v| matches!(v,
                    Verdict::Removed { step, seats, reason: ForfeitReason::Equivocated, .. }
                        if seats == &[1] && *step == at)),
                "{what}: {:?}",
                h.spectator.verdicts()
            );
            assert!(
                h.spectator
                    .violations
                    .iter()
                    .any(|v| matches!(v, Violation::Fork { seat: 1, .. })),
                "{what}"
            );
            only_seat_1_blamed(&h);
            let g = h.spectator.game();
            let (k, hand) = g
                .history
                .iter()
                .enumerate()
                .find(|(_, x)| x.forfeits.contains(&(1, ForfeitReason::Equivocated)))
                .unwrap_or_else(|| panic!("{what}: seat 1 forfeited the hand it forked in"));
            let dead = DEALT_AHEAD | (hand.hand + 1) as u32;
            let steps = token_steps(&h).remove(&dead).unwrap_or_default();
            assert_eq!(
                steps.len(),
                1,
                "{what}: deck {dead} opened again: {steps:?}"
            );
            // The forker is gone for good: no later hand deals it in.
            for later in &g.history[k + 1..] {
                assert!(!later.players.contains(&1), "{what}: hand {}", later.hand);
            }
            if let Some(next) = g.history.get(k + 1) {
                assert!(
                    keyed_on_log(&h).contains(&(next.hand as u32)),
                    "{what}: the next hand keys a deck under its own number"
                );
            }
            finality::replays_agree(&h, h.spectator.verdicts(), h.spectator.game());
        });
    }
}

/// The second event arrives only once the table is over: it is recorded as seat 1's fork and
/// the table is the one played without it, verdicts and chips alike.
#[test]
fn a_fork_at_a_showdown_that_deals_seen_after_the_end_changes_nothing() {
    on_two_held_showdowns(|seed, mut h, ev, p| {
        h.publish(ev);
        h.run(200);
        let clean = clean(seed);
        assert_eq!(h.spectator.verdicts(), clean.spectator.verdicts());
        assert_eq!(h.spectator.game(), clean.spectator.game());
        let twin = h.sign(1, &p, h.now + 1);
        h.publish(twin);
        h.settle();
        h.agree();
        assert_eq!(
            h.spectator.verdicts(),
            clean.spectator.verdicts(),
            "seed {seed}"
        );
        assert_eq!(h.spectator.game(), clean.spectator.game(), "seed {seed}");
        assert!(h
            .spectator
            .violations
            .iter()
            .any(|v| matches!(v, Violation::Fork { seat: 1, .. })));
        only_seat_1_blamed(&h);
        finality::replays_agree(&h, h.spectator.verdicts(), h.spectator.game());
    });
}

/// While everyone waits for its reveal of a showdown that deals, seat 1 publishes a thousand
/// 24 KB contributions for steps ahead (of every head) and a thousand votes, then its reveal:
/// the table ends as it ends without the flood, no client holds more than its bounds, and a
/// late verifier fed everything reaches the same table.
#[test]
fn a_flood_while_a_showdown_that_deals_waits_leaves_the_true_table() {
    on_two_held_showdowns(|seed, mut h, ev, _| {
        let (step, head) = h.spectator.position();
        for i in 0..1_000u32 {
            let prev = if i % 3 == 0 {
                head.clone()
            } else {
                hex::encode([i as u8; 32])
            };
            let junk = finality::filler(&h, 1, step + 1 + i % 40, &prev, 24_000, h.now);
            h.publish(junk);
            let vote = h.vote_event(1, step + i % 40, &prev, vec![0, 2], h.now + u64::from(i));
            h.publish(vote);
        }
        h.publish(ev);
        h.run(200);
        h.agree();
        let clean = clean(seed);
        assert_eq!(
            h.spectator.verdicts(),
            clean.spectator.verdicts(),
            "seed {seed}"
        );
        assert_eq!(h.spectator.game(), clean.spectator.game(), "seed {seed}");
        for s in h.seats.iter().chain([&h.spectator]) {
            assert!(s.held_bytes() < 12 << 20, "{} bytes held", s.held_bytes());
            assert!(s.stats().dropped > 0, "seed {seed}: the flood met a bound");
        }
        let mut late = Session::new(h.cfg.clone(), h.spectator.initial.clone(), None).unwrap();
        late.handle_all(&h.log);
        assert!(late.is_finished());
        assert_eq!(late.verdicts(), clean.spectator.verdicts(), "seed {seed}");
        assert_eq!(late.game(), clean.spectator.game(), "seed {seed}");
    });
}

/// Checks or calls and never rolls: every hand it plays reaches a showdown, and no stack runs
/// low enough for an all-in in a few hands.
struct Station;

impl crate::bots::Bot<Tolerance> for Station {
    fn choose(
        &mut self,
        _: &<Tolerance as Game>::View,
        legal: &[crate::games::tolerance::Action],
    ) -> crate::games::tolerance::Action {
        crate::games::tolerance::Action::calm(legal).unwrap_or(legal[0])
    }

    fn name(&self) -> &str {
        "station"
    }
}

/// A seat that comes back while it sits out is named by the next setup, which may come inside a
/// hand whose players are already fixed: the setup of a hand's own deck, after its blind. It is
/// no longer sitting out when that hand reaches its showdown, nobody all-in, and is dealt in
/// from the next hand, which keys and shuffles a deck of its own: the deck the hand's players
/// prepared holds no share of the returning seat's. (Before that rule the showdown dealt the
/// next hand, the returning seat with it, from that deck: its client could not open its cards,
/// and the two key holders together could have.)
#[test]
fn a_seat_back_in_the_setup_of_a_hand_it_sits_out_is_dealt_the_next_one_from_a_deck_it_keyed() {
    for seed in [90, 91] {
        let mut h = table(seed);
        h.bots = (0..3)
            .map(|_| Box::new(Station) as Box<dyn Bot<Tolerance>>)
            .collect();
        h.settle_to_decision();
        let leaver = h.spectator.awaiting().seats[0];
        h.leave(leaver as usize);
        h.settle_to_decision();
        h.come_back(leaver as usize);
        h.run_honestly(60);
        let g = h.spectator.game();
        // The hand it sat out last: the one whose setup named it back.
        let j = (0..g.history.len().saturating_sub(1))
            .find(|&j| {
                !g.history[j].players.contains(&leaver)
                    && g.history[j + 1].players.contains(&leaver)
            })
            .unwrap_or_else(|| panic!("seed {seed}: dealt in again"));
        let (last_out, next) = (&g.history[j], &g.history[j + 1]);
        let setups: BTreeSet<u32> = h
            .payloads()
            .filter(|(_, p)| matches!(&p.body, Body::Setup { back, .. } if back == &[leaver]))
            .map(|(_, p)| p.step)
            .collect();
        let back = h.spectator.verdicts().iter().find_map(|v| match v {
            Verdict::Back { step, seats } if seats == &[leaver] => Some(*step),
            _ => None,
        });
        // Its return counts once the batch of the setups that named it is done.
        assert!(
            back.is_some_and(|at| setups.first().is_some_and(|s| *s <= at)),
            "seed {seed}: named back by setups at {setups:?}, back from {back:?}"
        );
        assert!(
            !last_out.shown.is_empty() && last_out.final_stacks.iter().all(|(_, c)| *c > 0),
            "seed {seed}: hand {} ended at a showdown nobody busted at: {last_out:?}",
            last_out.hand
        );
        assert!(
            keyed_on_log(&h).contains(&(next.hand as u32)),
            "seed {seed}: hand {} keys a deck of its own",
            next.hand
        );
        let steps = token_steps(&h);
        assert!(
            !steps.contains_key(&(DEALT_AHEAD | next.hand as u32)),
            "seed {seed}: no deck was dealt with the showdown of hand {}",
            last_out.hand
        );
        // Every other showdown of the table, between hands with the same players, dealt the
        // next hand: the rule holds back this one alone.
        let dealt_ahead = g
            .history
            .iter()
            .filter(|x| steps.contains_key(&(DEALT_AHEAD | x.hand as u32)))
            .count();
        assert!(
            dealt_ahead > 0,
            "seed {seed}: other hands were dealt with a showdown"
        );
        h.agrees_backwards();
    }
}
