//! Tokens a move carries (version 9, PROTOCOL.md §5.4): a card its holder shows by its own move
//! costs no pass of its own, and a move whose tokens are not exactly the ones it owes is refused
//! with its move.

use super::*;
use crate::games::abandon_ship::{self, AbandonShip};
use crate::games::all_fives::{self, AllFives};
use crate::wire::log::TokenMsg;

fn all_fives() -> AllFives {
    let mut setup = all_fives::Setup::new(3);
    setup.hands = Some(1);
    AllFives::new(&setup).unwrap()
}

/// The log's events by step, parsed, in step order.
fn by_step<G: Game>(h: &Harness<G>) -> BTreeMap<u32, Vec<(Seat, Payload)>> {
    let table = hex::encode(h.cfg.table);
    let mut steps: BTreeMap<u32, Vec<(Seat, Payload)>> = BTreeMap::new();
    for e in &h.log {
        let p = parse_log(e, &table).unwrap();
        let seat = h
            .keys
            .iter()
            .position(|k| k.public_key() == e.pubkey)
            .unwrap() as Seat;
        steps.entry(p.step).or_default().push((seat, p));
    }
    steps
}

/// Every move on the log, in order: its seat and action.
fn moves<G: Game>(h: &Harness<G>) -> Vec<(Seat, serde_json::Value)> {
    by_step(h)
        .into_values()
        .flatten()
        .filter_map(|(s, p)| match p.body {
            Body::Move { action, .. } => Some((s, action)),
            _ => None,
        })
        .collect()
}

/// Reveal steps that waited for one seat's plain tokens alone, right after that seat's move:
/// the passes a move carrying its tokens saves.
fn solo_reveals_after_own_move<G: Game>(h: &Harness<G>) -> usize {
    let steps = by_step(h);
    steps
        .iter()
        .filter(|(s, evs)| {
            let [(seat, p)] = evs.as_slice() else {
                return false;
            };
            let tokens_only = matches!(&p.body, Body::Reveal { tokens, sealed, dice, shown }
                if !tokens.is_empty() && sealed.is_empty() && dice.is_empty() && shown.is_empty());
            let after_own_move = s.checked_sub(1).and_then(|b| steps.get(&b)).is_some_and(|b| {
                matches!(b.as_slice(), [(m, q)] if m == seat && matches!(q.body, Body::Move { .. }))
            });
            tokens_only && after_own_move
        })
        .count()
}

/// Moves whose event carries tokens, read from the events themselves (a version 8 client drops
/// the field as it reads it).
fn moves_with_tokens<G: Game>(h: &Harness<G>) -> usize {
    h.log
        .iter()
        .filter(|e| {
            let v: serde_json::Value = serde_json::from_str(&e.content).unwrap();
            v["type"] == "move" && v["tokens"].as_array().is_some_and(|t| !t.is_empty())
        })
        .count()
}

/// `game` at versions 8 and 9 from the same seed: the same table up to its first setup after a
/// saved pass (a setup's step number enters its keys and dice, §5.3), so a game with one setup
/// (a hand of All Fives) plays the same moves at both, one pass shorter per card shown by a move.
fn saves_the_holders_reveal_passes<G: Game + 'static>(game: G, seed: u64, same_game: bool) {
    let old = played_through(game.clone(), seed, 8);
    let new = played_through(game, seed, 9);
    let saved = solo_reveals_after_own_move(&old);
    assert!(saved > 0, "seed {seed}: the game shows cards by moves");
    assert_eq!(moves_with_tokens(&old), 0);
    assert!(moves_with_tokens(&new) > 0, "seed {seed}");
    assert_eq!(solo_reveals_after_own_move(&new), 0, "seed {seed}");
    if same_game {
        assert!(moves(&old) == moves(&new), "seed {seed}: the same moves");
        assert_eq!(new.spectator.game(), old.spectator.game(), "seed {seed}");
        assert!(moves_with_tokens(&new) >= saved, "seed {seed}");
        assert_eq!(
            new.spectator.stats().passes + saved as u64,
            old.spectator.stats().passes,
            "seed {seed}: one pass less for each card shown by its holder's move"
        );
    }
}

#[test]
fn a_card_its_holder_shows_by_its_own_move_costs_no_pass_from_version_9() {
    saves_the_holders_reveal_passes(all_fives(), 91, true);
    let ship = AbandonShip::new(&abandon_ship::Setup::new(3)).unwrap();
    saves_the_holders_reveal_passes(ship, 92, false);
}

/// An All Fives table stopped at its first move, which plays a tile: the mover and its honest
/// move, signed.
fn first_play(version: u8, seed: u64) -> (Harness<AllFives>, usize, Payload) {
    let mut h = Harness::at_version(all_fives(), seed, quick(), version);
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0] as usize;
    let ev = h.decide(mover, h.now);
    let p = parse_log(&ev, &hex::encode(h.cfg.table)).unwrap();
    (h, mover, p)
}

/// `mover` signs `p` in place of its honest move and goes silent; the others play on.
fn refused(mut h: Harness<AllFives>, mover: usize, p: &Payload, words: &str) {
    let ev = h.sign(mover, p, h.now);
    h.seats[mover].handle(&ev);
    h.publish(ev.clone());
    h.run(60);
    h.agree();
    let id = ev.id.to_hex();
    for (who, s) in h.seats.iter().chain([&h.spectator]).enumerate() {
        let named = s.violations.iter().find_map(|v| match v {
            Violation::Invalid {
                id: i,
                seat,
                reason,
                ..
            } if *i == id => Some((*seat, reason.clone())),
            _ => None,
        });
        let (seat, reason) = named.unwrap_or_else(|| panic!("client {who} names the event"));
        assert_eq!(seat, mover as Seat);
        assert!(reason.contains(words), "client {who}: {reason}");
        assert!(
            !reason.contains("Some(") && !reason.contains("Seat("),
            "{reason}"
        );
    }
    // The move never counted: its mover is out, and no honest seat is blamed.
    assert!(
        removals(h.spectator.verdicts())
            .iter()
            .any(|v| matches!(v, Verdict::Removed { seats, .. } | Verdict::TimedOut { seats, .. } if seats.contains(&(mover as Seat)))),
        "{:?}",
        h.spectator.verdicts()
    );
    let blamed: Vec<Violation> = honest_violations(&h)
        .into_iter()
        .filter(|v| !matches!(v, Violation::Invalid { seat, .. } if *seat == mover as Seat))
        .collect();
    assert!(blamed.is_empty(), "{blamed:?}");
}

#[test]
fn a_move_whose_tokens_are_not_exactly_the_ones_it_owes_is_refused_with_its_move() {
    let seed = 93;
    let (_, _, honest) = first_play(9, seed);
    let Body::Move { tokens, .. } = &honest.body else {
        panic!("a move");
    };
    assert_eq!(tokens.len(), 1, "a played tile carries its holder's token");
    let with = |tokens: Vec<TokenMsg>| {
        let mut p = honest.clone();
        if let Body::Move { tokens: t, .. } = &mut p.body {
            *t = tokens;
        }
        p
    };
    // Without its token: the holder would keep the table waiting for the pass it saves.
    let (h, mover, _) = first_play(9, seed);
    refused(h, mover, &with(Vec::new()), "carries 0 tokens");
    // Its token and one more, for another tile of its hand: a card the game does not show.
    let mut extra = tokens.clone();
    extra.push(TokenMsg {
        position: tokens[0].position + 1,
        ..tokens[0].clone()
    });
    let (h, mover, _) = first_play(9, seed);
    refused(h, mover, &with(extra), "carries 2 tokens");
    // The token of another position in its place.
    let mut other = tokens.clone();
    other[0].position += 1;
    let (h, mover, _) = first_play(9, seed);
    refused(h, mover, &with(other), "a token for deck");
    // A token that decodes but does not open the card: its proof fails.
    let mut bent = tokens.clone();
    let mut raw = crate::fair::from_base64("token", &bent[0].token).unwrap();
    let last = raw.len() - 1;
    raw[last] ^= 1;
    let tok = crate::fair::RevealToken::from_bytes(&raw).expect("still a token");
    bent[0].token = tok.to_base64();
    let (h, mover, _) = first_play(9, seed);
    refused(h, mover, &with(bent), "token for position");
}

#[test]
fn before_version_9_a_moves_tokens_are_ignored_as_its_clients_ignored_them() {
    // A version 8 client ignored a field it did not know, whatever it held: so does this one at
    // a version 8 table, where the holder's token still comes in the reveal stage.
    let seed = 94;
    let (_, _, honest9) = first_play(9, seed);
    let Body::Move {
        tokens: carried, ..
    } = &honest9.body
    else {
        panic!("a move");
    };
    let mut plain = Harness::at_version(all_fives(), seed, quick(), 8);
    plain.run(60);
    let (mut h, mover, mut p) = first_play(8, seed);
    let Body::Move { tokens, .. } = &mut p.body else {
        panic!("a move");
    };
    assert!(tokens.is_empty(), "a version 8 move carries nothing");
    *tokens = carried.clone();
    let ev = h.sign(mover, &p, h.now);
    assert!(ev.content.contains("\"tokens\""));
    h.seats[mover].handle(&ev);
    h.publish(ev);
    h.run_honestly(60);
    assert_eq!(h.spectator.game(), plain.spectator.game());
    assert_eq!(h.spectator.stats().passes, plain.spectator.stats().passes);
    assert_eq!(
        solo_reveals_after_own_move(&h),
        solo_reveals_after_own_move(&plain)
    );
}

#[test]
fn a_game_with_a_timer_carries_no_tokens_and_refuses_a_move_that_does() {
    use crate::games::insider::{self, Insider};
    let seed = 95;
    let game = Insider::new(&insider::Setup::new(4)).unwrap();
    let mut h = Harness::at_version(game, seed, quick(), 9);
    h.settle_to_decision();
    let mover = h.spectator.awaiting().seats[0] as usize;
    let ev = h.decide(mover, h.now);
    let mut p = parse_log(&ev, &hex::encode(h.cfg.table)).unwrap();
    let Body::Move { tokens, .. } = &mut p.body else {
        panic!("a move");
    };
    assert!(tokens.is_empty());
    tokens.push(TokenMsg {
        deck: 0,
        position: 0,
        token: "AAAA".into(),
    });
    let bad = h.sign(mover, &p, h.now);
    let before = h.spectator.position();
    h.spectator.handle(&bad);
    assert_eq!(h.spectator.position(), before, "the move did not count");
    let words: Vec<String> = h
        .spectator
        .violations
        .iter()
        .map(|v| v.to_string())
        .collect();
    assert!(
        words.iter().any(|w| w.contains("a game with a timer")),
        "{words:?}"
    );
}

#[test]
fn a_showdown_or_a_deal_carries_nothing_only_a_reveal_its_mover_alone_owes_does() {
    use crate::games::tolerance::{Tolerance, Variant};
    // Tolerance's moves lead to deals, rolls, board cards and showdowns: batches others owe in
    // too, where a carried token would show a card ahead of the pass that shows them all.
    let t = Tolerance::new(Variant::default(), 3, Some(3)).unwrap();
    let h = played_through(t, 96, 9);
    assert_eq!(moves_with_tokens(&h), 0);
}

/// Reveal steps right after an `open` step that show only cards the openings marked: the marks
/// shown once every mark is open.
fn marks_reveals<G: Game>(h: &Harness<G>) -> usize {
    let steps = by_step(h);
    steps
        .iter()
        .filter(|(s, evs)| {
            let Some(opens) = s.checked_sub(1).and_then(|b| steps.get(&b)) else {
                return false;
            };
            let marked: Vec<u64> = opens
                .iter()
                .filter_map(|(_, p)| match &p.body {
                    Body::Open { action, .. } => action["mark"]["position"].as_u64(),
                    _ => None,
                })
                .collect();
            !marked.is_empty()
                && evs.iter().all(|(_, p)| {
                    matches!(&p.body, Body::Reveal { tokens, sealed, dice, shown }
                        if sealed.is_empty() && dice.is_empty() && shown.is_empty()
                            && tokens.iter().all(|t| marked.contains(&u64::from(t.position))))
                })
        })
        .count()
}

#[test]
fn a_mark_opened_carries_its_token_and_the_marks_show_with_the_openings_from_version_9() {
    use crate::games::lamarckian_poker::{self, LamarckianPoker};
    let game = LamarckianPoker::new(&lamarckian_poker::Setup::new(3)).unwrap();
    let seed = 97;
    // One deck for the whole game: the same deals and the same game at both versions.
    let old = played_through(game.clone(), seed, 8);
    let new = played_through(game, seed, 9);
    assert!(moves(&old) == moves(&new));
    assert_eq!(new.spectator.game(), old.spectator.game());
    let saved = marks_reveals(&old);
    assert!(saved > 0, "marks were shown");
    assert_eq!(marks_reveals(&new), 0);
    assert_eq!(
        new.spectator.stats().passes + saved as u64,
        old.spectator.stats().passes,
        "one pass less for each turn's marks"
    );
    // An opening without the token of its face-down mark is refused with it.
    let mut h = Harness::at_version(
        LamarckianPoker::new(&lamarckian_poker::Setup::new(3)).unwrap(),
        seed,
        quick(),
        9,
    );
    let table = hex::encode(h.cfg.table);
    let z = 1usize;
    h.hold[z] =
        Some(|p: &Payload| matches!(&p.body, Body::Open { tokens, .. } if !tokens.is_empty()));
    h.settle();
    let honest = h
        .held
        .first()
        .cloned()
        .expect("an opening that carries a token");
    let mut p = parse_log(&honest, &table).unwrap();
    if let Body::Open { tokens, .. } = &mut p.body {
        tokens.clear();
    }
    let bare = h.sign(z, &p, h.now);
    h.held.clear();
    h.hold[z] = None;
    // Its own client took its honest opening: from here it is the cheat, and silent.
    h.modes[z] = Mode::Dead;
    h.publish(bare.clone());
    h.run(60);
    h.agree();
    let id = bare.id.to_hex();
    let named = h.spectator.violations.iter().any(|v| {
        matches!(v, Violation::Invalid { id: i, seat, reason, .. }
            if *i == id && *seat == z as Seat && reason.contains("carries 0 tokens"))
    });
    assert!(named, "{:?}", h.spectator.violations);
}
