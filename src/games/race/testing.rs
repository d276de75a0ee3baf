//! What the raced solitaires' tests share: a race dealt its first cards to an all-knowing state
//! and to one entrant's client, bots playing a race on, the end shown, and the checks every
//! race must pass when an entrant leaves.

use super::{Phase, Race, RaceView, Solitaire, Verdict};
use crate::bots::Bot;
use crate::cards::CardId;
use crate::engine::sim::{fulfil_all, masked_for as masked, Oracle};
use crate::engine::{ChanceRequest, ForfeitReason, Game, Seat, ToAct};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// A race's first chance answered from `seed`: the state that knows every card, and seat 1's
/// client (only its own cards), with the oracle and the first requests.
pub fn first_deal<R: Solitaire>(
    setup: &R::Setup,
    seed: u64,
) -> (Race<R>, Race<R>, Oracle<StdRng>, Vec<ChanceRequest>) {
    let mut god = Race::<R>::new(setup).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed));
    let ToAct::Chance(reqs) = god.to_act() else {
        panic!("a race starts with its shuffle and deals")
    };
    let outs = fulfil_all(&mut oracle, &reqs).unwrap();
    let mut one = god.clone();
    one.apply_chance(&masked(&outs, &reqs, Some(1))).unwrap();
    god.apply_chance(&outs).unwrap();
    (god, one, oracle, reqs)
}

/// The first cards of a race of three dealt from `seed`, seen through `cards` (a part of an
/// entrant's board): seat 1's client sees its own and nothing of seat 0's, nobody sees any
/// as a spectator, every entrant got the same ones, and nothing was shown. Returns seat 1's
/// view for the game's own checks.
pub fn every_entrant_gets_the_same_first_cards_and_sees_only_its_own<R: Solitaire>(
    setup: &R::Setup,
    seed: u64,
    cards: impl Fn(&R::Board) -> &[Option<CardId>],
) -> RaceView<R> {
    let (g, one, _, reqs) = first_deal::<R>(setup, seed);
    let v = one.view(Some(1));
    assert!(cards(&v.entrants[1].board).iter().all(Option::is_some));
    assert!(cards(&v.entrants[0].board).iter().all(Option::is_none));
    assert!(cards(&g.view(None).entrants[0].board)
        .iter()
        .all(Option::is_none));
    let first: Vec<Vec<Option<CardId>>> = (0..3)
        .map(|s| cards(&g.view(Some(s)).entrants[usize::from(s)].board).to_vec())
        .collect();
    assert!(first.windows(2).all(|w| w[0] == w[1]), "{first:?}");
    assert!(only_sealed(&reqs));
    v
}

/// The end of a race nobody races any more: every card drawn is shown, batch after batch (as
/// `viewer` receives them), and the race is over.
pub fn show_the_end<R: Solitaire>(g: &mut Race<R>, oracle: &mut Oracle<StdRng>, viewer: Seat) {
    let mut batches = 0;
    while let ToAct::Chance(show) = g.to_act() {
        assert!(show.iter().all(|r| matches!(r, ChanceRequest::Show { .. })));
        let o = fulfil_all(oracle, &show).unwrap();
        g.apply_chance(&masked(&o, &show, Some(viewer))).unwrap();
        batches += 1;
    }
    assert!(batches >= 1, "{:?}", g.to_act());
    assert!(g.is_terminal());
}

/// Nothing is shown before a race ends: its first requests shuffle and deal sealed.
pub fn only_sealed(reqs: &[ChanceRequest]) -> bool {
    reqs.iter().all(|r| {
        matches!(
            r,
            ChanceRequest::Shuffle { .. } | ChanceRequest::DealSealed { .. }
        )
    })
}

/// Answers every chance `g` asks (as `viewer` receives it) until it waits for a move or ends.
pub fn answer_chance<R: Solitaire>(g: &mut Race<R>, oracle: &mut Oracle<StdRng>, viewer: Seat) {
    while let ToAct::Chance(r) = g.to_act() {
        let o = fulfil_all(oracle, &r).unwrap();
        g.apply_chance(&masked(&o, &r, Some(viewer))).unwrap();
    }
}

/// Plays `steps` steps of `g`, every seat by its bot and every chance from `oracle`.
pub fn play<R: Solitaire>(
    g: &mut Race<R>,
    oracle: &mut Oracle<StdRng>,
    bots: &mut [Box<dyn Bot<Race<R>>>],
    steps: usize,
) {
    for _ in 0..steps {
        match g.to_act() {
            ToAct::Chance(r) => {
                let o = fulfil_all(oracle, &r).unwrap();
                g.apply_chance(&o).unwrap();
            }
            ToAct::Sealed(seats) => {
                for s in seats {
                    let a = bots[usize::from(s)].choose(&g.view(Some(s)), &g.legal_actions(s));
                    g.apply(s, &a).unwrap();
                }
            }
            _ => break,
        }
    }
}

/// Entrant 2 of a race of three leaves mid-race: the race stops, every card the others drew is
/// shown (by them, in batches of at most 16 per holder), their games are verified and entrant 2
/// can win nothing.
pub fn a_leaver_stops_the_race<R: Solitaire>(mut g: Race<R>, oracle: &mut Oracle<StdRng>) {
    g.forfeit(&[2], ForfeitReason::Withheld).unwrap();
    let mut batches = 0;
    while let ToAct::Chance(show) = g.to_act() {
        assert!(show
            .iter()
            .all(|r| matches!(r, ChanceRequest::Show { holder, .. } if *holder != 2)));
        let o = fulfil_all(oracle, &show).unwrap();
        g.apply_chance(&o).unwrap();
        batches += 1;
    }
    assert!(batches >= 1);
    assert_eq!(g.phase, Phase::Over);
    assert_eq!(g.verdicts[&2], Verdict::Left);
    for s in [0, 1] {
        assert!(matches!(g.verdicts[&s], Verdict::Verified(..)), "{s}");
    }
    assert!(!g.outcome().unwrap().winners.contains(&2));
}

/// The first deal of a race of three drawn by seat 1's client: its own cards face up, the other
/// entrants' as backs, each as a spectator's drawing shows them. Returns seat 1's drawing for
/// the game's own checks.
pub fn the_first_deal_drawn<R: super::ui::RaceUi>(
    setup: &R::Setup,
    seed: u64,
) -> crate::games::ui::drawing::Drawing {
    use crate::games::ui::drawing::Piece;
    use crate::games::ui::GameUi;
    let (_, one, _, _) = first_deal::<R>(setup, seed);
    let names = |s: Seat| {
        if s == 1 {
            "you".to_string()
        } else {
            format!("P{s}")
        }
    };
    let d = Race::<R>::drawing(&one.view(Some(1)), &names).unwrap();
    let spectator = Race::<R>::drawing(&one.view(None), &names).unwrap();
    let you = d.spots.iter().find(|s| s.you).unwrap();
    assert_eq!(you.name, "you");
    assert!(!you.pieces.is_empty());
    assert!(!you.pieces.contains(&Piece::CardBack), "{:?}", you.pieces);
    for s in [0, 2] {
        let theirs = d.spots.iter().find(|x| x.name == names(s)).unwrap();
        assert_eq!(theirs.pieces, vec![Piece::CardBack; you.pieces.len()]);
        let seen = spectator.spots.iter().find(|x| x.name == names(s)).unwrap();
        assert_eq!(theirs.pieces, seen.pieces);
    }
    d
}
