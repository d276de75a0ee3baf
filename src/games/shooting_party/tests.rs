use super::game::{self as game, card_of, deck_spec, forced, Places, CARDS, JOKER};
use super::*;
use crate::bots::Bot;
use crate::cards::{CardId, Suit};
use crate::engine::sim::{simulate, Oracle, SimOptions};
use crate::engine::Game;
use crate::games::race::testing::{
    a_leaver_stops_the_race, answer_chance,
    every_entrant_gets_the_same_first_cards_and_sees_only_its_own, first_deal, play,
};
use crate::games::race::{replay_entrant, Solitaire, Spot};
use crate::games::registry::TableGame;
use crate::games::ui::GameUi;
use rand::{rngs::StdRng, SeedableRng};
use std::collections::BTreeMap;

fn c(s: &str) -> CardId {
    deck_spec().parse(s).unwrap()
}

/// Places whose spots open to `cards`: deck 0 in this order (the rest of the deck after them).
fn faces(cards: &[&str]) -> BTreeMap<Spot, CardId> {
    let mut order: Vec<CardId> = cards.iter().map(|s| c(s)).collect();
    for x in deck_spec().cards() {
        if !order.contains(&x) {
            order.push(x);
        }
    }
    order
        .into_iter()
        .enumerate()
        .map(|(i, x)| ((0, i as u16), x))
        .collect()
}

#[test]
fn the_deck_is_thirty_three_guests_with_the_joker() {
    let spec = deck_spec();
    assert_eq!(spec.len(), usize::from(CARDS));
    assert_eq!(game::card_name(c("QH")), "Q♥");
    assert_eq!(game::card_name(JOKER), "the joker");
    assert_eq!(card_of(1, Suit::Spades), c("AS"));
    assert!(spec.parse("9H").is_err(), "6 to 10 are out");
    let ranks: Vec<u8> = spec.cards().iter().filter_map(|x| game::rank(*x)).collect();
    assert_eq!(ranks.len(), 32);
    assert!(ranks
        .iter()
        .all(|r| [1, 2, 3, 4, 5, 11, 12, 13].contains(r)));
}

#[test]
fn random_races_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(3);
    for players in 1..=3 {
        let g = ShootingParty::new(&Setup { players }).unwrap();
        for _ in 0..4 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
    }
}

#[test]
fn the_etiquette_forces_in_its_order_of_precedence() {
    let h = |v: &[&str]| v.iter().map(|s| c(s)).collect::<Vec<_>>();
    // An ace drawn goes up before anything else.
    assert_eq!(
        forced(&h(&["QH", "KH", "AS"])),
        vec![Action::AceUp { slot: 2 }]
    );
    // Spouses before the queen rule: both queens held, the hearts' king leads his away.
    assert_eq!(
        forced(&h(&["QH", "KH", "QS", "4C"])),
        vec![Action::Spouses { a: 0, b: 1 }]
    );
    // With his attaché the king may leave with him instead.
    assert_eq!(
        forced(&h(&["JH", "QH", "KH"])),
        vec![
            Action::Spouses { a: 1, b: 2 },
            Action::Spouses { a: 0, b: 2 }
        ]
    );
    // One queen at a time: the one held longest leaves.
    assert_eq!(
        forced(&h(&["3C", "QD", "QS"])),
        vec![Action::Queen { slot: 1 }]
    );
    // The queen rule before two jacks.
    assert_eq!(
        forced(&h(&["JC", "QD", "JS", "QS"])),
        vec![Action::Queen { slot: 1 }]
    );
    assert_eq!(forced(&h(&["JC", "JS", "2D"])), vec![Action::Leave]);
    assert!(forced(&h(&["JC", "QC", "2D", "JOKER"])).is_empty());
}

#[test]
fn a_free_hand_offers_pairs_of_a_suit_sets_of_a_rank_the_joker_and_contact() {
    let f = faces(&["2C", "5C", "2D", "2H", "JOKER", "QS"]);
    let raw = |s: Spot| f.get(&s).copied();
    let p = Places::new(0);
    let moves = p.moves(&|s| p.face(s, &raw)).unwrap();
    for a in [
        Action::Draw,
        Action::Leave,
        Action::Discard { slots: vec![0, 1] },
        Action::Discard { slots: vec![0, 2] },
        Action::Discard {
            slots: vec![0, 2, 3],
        },
        Action::GiveUp,
    ] {
        assert!(moves.contains(&a), "{a:?} missing from {moves:?}");
    }
    assert!(!moves.contains(&Action::Discard { slots: vec![1, 2] }));
    // Draw a pair: the joker and the queen; the joker may go alone, fetch a discard or search.
    let p = p.after(&Action::Draw).unwrap();
    assert_eq!(p.hand.len(), 6);
    let moves = p.moves(&|s| p.face(s, &raw)).unwrap();
    assert!(moves.contains(&Action::Joker { slot: 4 }));
    assert!(moves.contains(&Action::Search { slot: 4 }));
    assert!(!moves.contains(&Action::Draw), "six cards: no pair");
    let e = p.after(&Action::Draw).unwrap_err();
    assert!(e.contains("or fewer"), "{e}");
    // Clear the room down to the queen: contact.
    let p = p
        .after(&Action::Discard {
            slots: vec![0, 2, 3],
        })
        .unwrap();
    let p = p.after(&Action::Joker { slot: 1 }).unwrap();
    let p = p.after(&Action::Discard { slots: vec![0] });
    assert!(p.is_err(), "one card is no discard");
}

#[test]
fn a_third_exhaustion_ends_the_game_and_two_rebuild_the_pile_with_the_unscored_aces() {
    let mut p = Places::new(0);
    p.pile.clear();
    p.aces = vec![(0, 30)];
    p.discards = vec![(0, 20), (0, 21), (0, 22)];
    let q = p.after(&Action::Draw).unwrap();
    assert_eq!(q.exhausted, 1);
    assert_eq!(q.reshuffles.len(), 1);
    assert_eq!(q.reshuffles[0].1, vec![(0, 20), (0, 21), (0, 22), (0, 30)]);
    assert!(q.aces.is_empty() && q.discards.is_empty());
    assert_eq!(q.pile.len(), 2);
    let mut r = q.clone();
    r.pile.clear();
    r.exhausted = 2;
    let r = r.after(&Action::Leave).unwrap();
    assert!(r.over, "{r:?}");
    assert_eq!(
        Party::status_after(&Action::Leave, &r),
        Status::Ended(End::PileExhausted)
    );
}

#[test]
fn the_joker_searches_the_pile_for_an_ace_which_goes_up_and_the_rest_is_shuffled() {
    let f = faces(&["JOKER", "3C", "4D", "5H", "2S", "AH"]);
    let raw = |s: Spot| f.get(&s).copied();
    let p = Places::new(0);
    let moves = p.moves(&|s| p.face(s, &raw)).unwrap();
    assert!(moves.contains(&Action::Search { slot: 0 }), "{moves:?}");
    let p = p.after(&Action::Search { slot: 0 }).unwrap();
    assert!(p.searching);
    let e = p.after(&Action::Draw).unwrap_err();
    assert!(e.contains("name the ace"), "{e}");
    // The ace of hearts is the pile's second card (the search sees the whole pile).
    let moves = p.moves(&|s| p.face(s, &raw)).unwrap();
    assert!(moves.contains(&Action::TakeAce { at: 1 }), "{moves:?}");
    let wrong = p.check_cards(&Action::TakeAce { at: 0 }, &|s| p.face(s, &raw));
    assert!(wrong.unwrap_err().contains("not an ace"));
    let q = p.after(&Action::TakeAce { at: 1 }).unwrap();
    assert_eq!(q.aces, vec![(0, 5)]);
    assert_eq!(q.reshuffles.len(), 1, "the rest of the pile is shuffled");
    assert_eq!(q.exhausted, 0, "a search is not one of the two reshuffles");
    assert_eq!(q.pile.len() + q.hand.len() + q.discards.len() + 1, 33);
}

/// A race of `players` dealt its first cards from `seed` (see [`first_deal`]).
fn race(seed: u64, players: u8) -> (ShootingParty, ShootingParty, Oracle<StdRng>) {
    let (god, one, oracle, _) = first_deal::<Party>(&Setup { players }, seed);
    (god, one, oracle)
}

#[test]
fn every_entrant_draws_the_same_cards_and_sees_only_its_own_until_the_end() {
    every_entrant_gets_the_same_first_cards_and_sees_only_its_own::<Party>(
        &Setup { players: 3 },
        5,
        |b| &b.hand,
    );
}

#[test]
fn a_move_the_cards_do_not_allow_is_refused_at_the_end_naming_the_entrant() {
    // Seat 1's client sees seat 0's moves only in form: leaving the room passes then (the form
    // allows it), and is checked once the cards are shown. When the etiquette forced another
    // move, seat 0's game is refused.
    for seed in 0..40 {
        let (mut god, mut one, mut oracle) = race(seed, 2);
        let legal = god.legal_actions(0);
        if legal.contains(&Action::Leave) {
            continue;
        }
        // The first room forces something (an ace, spouses, a queen): leaving is refused by
        // seat 0's own client, passes seat 1's in form, and is caught at the end.
        assert!(god.apply(0, &Action::Leave).is_err());
        one.apply(0, &Action::Leave).unwrap();
        one.apply(1, &Action::GiveUp).unwrap();
        answer_chance(&mut one, &mut oracle, 1);
        one.apply(0, &Action::GiveUp).unwrap();
        answer_chance(&mut one, &mut oracle, 1);
        assert!(one.is_terminal());
        match &one.verdicts[&0] {
            Verdict::Refused { reason } => {
                assert!(
                    reason.contains("move 1:") && reason.contains("first"),
                    "{reason}"
                )
            }
            v => panic!("{v:?}"),
        }
        let names = |s: u8| ["Ann", "Bob"][usize::from(s)].to_string();
        let line = one.result_line(&names);
        assert!(line.contains("Ann's game refused: move 1:"), "{line}");
        assert_eq!(one.outcome().unwrap().winners, vec![1]);
        return;
    }
    panic!("no first room among 40 deals forced a move");
}

#[test]
fn an_entrant_who_leaves_stops_the_race_and_the_others_are_still_shown_and_scored() {
    let (mut g, _, mut oracle) = race(8, 3);
    let mut bots: Vec<Box<dyn Bot<ShootingParty>>> = (0..3)
        .map(|s| Box::new(AgentBot::new(StdRng::seed_from_u64(s))) as Box<dyn Bot<ShootingParty>>)
        .collect();
    play(&mut g, &mut oracle, &mut bots, 29);
    a_leaver_stops_the_race(g, &mut oracle);
}

#[test]
fn the_score_is_the_queens_and_aces_scored_with_the_authors_grades() {
    let c = replay_entrant::<Party>(&Setup { players: 1 }, 0, &[], &|_| None).unwrap();
    assert_eq!((game::score(&c.places), c.status), (0, Status::Playing));
    assert_eq!(game::contact_grade(4), "spymaster");
    assert_eq!(game::communique_grade(0), "inept");
    assert_eq!(game::communique_grade(2), "competent");
    let mut p = Places::new(0);
    p.scored = vec![(0, 6), (0, 0), (0, 14)];
    p.contacts = 2;
    assert_eq!(game::score(&p), 3);
}

#[test]
fn the_agent_bot_beats_the_random_player_on_the_same_deals() {
    let d = bot::duplicate(300, 21);
    assert!(
        d.margin > 5.0 * d.margin_se && d.margin > 1.0,
        "bot {:.2} against random {:.2} (margin {:.2} ± {:.2}, all four {:.3})",
        d.bot_mean,
        d.random_mean,
        d.margin,
        d.margin_se,
        d.bot_wins
    );
}

#[test]
fn the_setup_has_one_variant() {
    use crate::games::registry::SetupOptions;
    let e = ShootingParty::setup(&SetupOptions {
        players: 2,
        variant: Some("hard".into()),
        ..SetupOptions::default()
    })
    .unwrap_err();
    assert!(e.contains("'standard'"), "{e}");
}

#[test]
fn every_move_reads_back_as_it_is_typed_and_a_forced_one_is_named_in_the_prompt() {
    use super::ui::replay::parse_move;
    use super::ui::words::typed;
    let all = [
        Action::AceUp { slot: 2 },
        Action::Spouses { a: 0, b: 4 },
        Action::Queen { slot: 1 },
        Action::Draw,
        Action::Leave,
        Action::Discard {
            slots: vec![0, 2, 3],
        },
        Action::Joker { slot: 3 },
        Action::Retrieve { slot: 3, card: 7 },
        Action::Search { slot: 0 },
        Action::TakeAce { at: 11 },
        Action::Contact { ace: None },
        Action::Contact { ace: Some(1) },
        Action::GiveUp,
    ];
    for a in all {
        assert_eq!(parse_move(&typed(&a)).unwrap(), a, "{}", typed(&a));
    }
    let e = parse_move("shoot 3").unwrap_err();
    assert!(e.contains("not a move of Shooting Party"), "{e}");
    let (g, _, _) = race(1, 1);
    let v = g.view(Some(0));
    let p = ShootingParty::prompt(&v, &[Action::AceUp { slot: 1 }, Action::GiveUp]);
    assert!(p.contains("'ace 2'"), "{p}");
    let p = ShootingParty::prompt(&v, &[Action::Leave, Action::GiveUp]);
    assert!(p.contains("'leave'"), "{p}");
    let p = ShootingParty::prompt(&v, &g.legal_actions(0));
    assert!(p.contains("'give up'"), "{p}");
}

#[test]
fn the_drawing_shows_your_room_face_up_and_the_others_rooms_as_backs() {
    use crate::games::ui::drawing::Piece;
    let d = crate::games::race::testing::the_first_deal_drawn::<Party>(&Setup { players: 3 }, 7);
    assert_eq!(d.title, "Shooting Party · 3 on one deal · racing");
    let you = d.spots.iter().find(|s| s.you).unwrap();
    assert_eq!(you.pieces.len(), 4);
    // The guests are drawn by rank and suit (the joker by its name), not by a standard deck's
    // numbering of them.
    assert!(you
        .pieces
        .iter()
        .all(|p| matches!(p, Piece::Card { rank, .. } if ["A", "2", "3", "4", "5", "J", "Q", "K"].contains(&rank.as_str()))
            || *p == Piece::named("joker")));
}
