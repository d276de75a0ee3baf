use super::game::{self as game, fits, Places, CARDS, MAX_COLUMNS};
use super::*;
use crate::bots::Bot;
use crate::cards::{CardId, PlayingCard};
use crate::engine::sim::{simulate, SimOptions};
use crate::engine::Game;
use crate::games::race::replay_entrant;
use crate::games::race::testing::{
    a_leaver_stops_the_race, every_entrant_gets_the_same_first_cards_and_sees_only_its_own,
    first_deal, play, show_the_end,
};
use crate::games::registry::{SetupOptions, TableGame};
use crate::games::ui::GameUi;
use rand::{rngs::StdRng, SeedableRng};

fn c(s: &str) -> CardId {
    PlayingCard::parse(s).unwrap().id()
}

#[test]
fn random_races_pass_the_generic_simulation_with_both_hand_sizes() {
    let mut rng = StdRng::seed_from_u64(3);
    for hand in [5, 4] {
        for players in 1..=3 {
            let g = TheBogey::new(&Setup { players, hand }).unwrap();
            for _ in 0..4 {
                simulate(&g, &mut rng, &SimOptions::default()).unwrap();
            }
        }
    }
}

#[test]
fn columns_take_the_same_suit_going_down_and_may_skip() {
    assert!(fits(&[c("KS")], c("9S")));
    assert!(fits(&[c("KS"), c("9S")], c("AS")));
    assert!(!fits(&[c("KS"), c("9S")], c("10S")), "not above the bottom");
    assert!(!fits(&[c("KS"), c("9S")], c("9S")), "not equal");
    assert!(!fits(&[c("KS")], c("QH")), "not another suit");
    assert!(!fits(&[], c("QH")));
}

#[test]
fn a_pass_lets_the_bogey_play_again_and_an_empty_deck_brings_the_discards_back() {
    let mut p = Places::new(0, 5);
    assert_eq!(p.hand.len(), 5);
    p = p.after(&Action::EndTurn).unwrap();
    assert_eq!(p.bogey, Some((0, 5)));
    p = p.after(&Action::Place { to: Place::New }).unwrap();
    // A pass: nothing drawn, the bogey plays the next card.
    p = p.after(&Action::EndTurn).unwrap();
    assert_eq!(p.bogey, Some((0, 6)));
    assert_eq!(p.hand.len(), 5);
    // Discards come back as a new deck of indices once the deck runs out.
    let mut q = Places::new(0, 5);
    q.deck.clear();
    q.discards = vec![(0, 40), (0, 41), (0, 42)];
    q = q.after(&Action::EndTurn).unwrap();
    assert_eq!(q.reshuffles.len(), 1);
    let d = q.reshuffles[0].0;
    assert_eq!(q.bogey, Some((d, 0)));
    assert_eq!(q.deck, vec![(d, 1), (d, 2)]);
    // With nothing left to draw a pass changes nothing, and is refused.
    let mut r = Places::new(0, 5);
    r.deck.clear();
    let e = r.after(&Action::EndTurn).unwrap_err();
    assert!(e.contains("no card to play"), "{e}");
    r = r.after(&Action::Discard { slot: 0 }).unwrap();
    r = r.after(&Action::EndTurn).unwrap();
    assert_eq!(
        r.bogey,
        Some((0, 0)),
        "a single discard is drawn where it is"
    );
}

#[test]
fn a_thirteenth_column_is_refused_and_stuck_is_only_possible_with_twelve() {
    let mut p = Places::new(0, 5);
    p.bogey = Some((0, 51));
    let e = p.after(&Action::Stuck).unwrap_err();
    assert!(e.contains("new one"), "{e}");
    p.columns = (0..MAX_COLUMNS as u16).map(|i| vec![(0, 20 + i)]).collect();
    let e = p.after(&Action::Place { to: Place::New }).unwrap_err();
    assert!(e.contains("12 columns"), "{e}");
    assert!(p.after(&Action::Stuck).is_ok());
}

#[test]
fn every_entrant_draws_the_same_cards_and_sees_only_its_own_until_the_end() {
    let setup = Setup {
        players: 3,
        hand: 5,
    };
    every_entrant_gets_the_same_first_cards_and_sees_only_its_own::<Bogey>(&setup, 5, |b| &b.hand);
}

/// A race of `players` dealt its first cards from `seed` (see [`first_deal`]).
fn race(seed: u64, players: u8) -> (TheBogey, TheBogey, crate::engine::sim::Oracle<StdRng>) {
    let (god, one, oracle, _) = first_deal::<Bogey>(&Setup { players, hand: 5 }, seed);
    (god, one, oracle)
}

#[test]
fn a_card_played_where_it_does_not_fit_is_refused_at_the_end_naming_the_entrant() {
    // Seat 1's client sees seat 0's moves only in form: a card played under a column passes
    // then, and is checked when the cards are shown.
    let (mut god, mut one, mut oracle) = race(11, 2);
    // Seat 0 starts a column with its first card, then plays its second card under it: the
    // cards decide whether that fits.
    let first = Action::Play {
        slot: 0,
        to: Place::New,
    };
    let hand = god.view(Some(0)).entrants[0].board.hand.clone();
    let (a, b) = (hand[0].unwrap(), hand[1].unwrap());
    let second = Action::Play {
        slot: 0,
        to: Place::Column(0),
    };
    god.apply(0, &first).unwrap();
    one.apply(0, &first).unwrap();
    god.apply(1, &Action::GiveUp).unwrap();
    one.apply(1, &Action::GiveUp).unwrap();
    let honest = fits(&[a], b);
    assert_eq!(
        god.apply(0, &second).is_ok(),
        honest,
        "its own client checks the cards"
    );
    one.apply(0, &second).unwrap();
    one.apply(0, &Action::GiveUp).unwrap();
    show_the_end(&mut one, &mut oracle, 1);
    let names = |s: u8| ["Ann", "Bob"][usize::from(s)].to_string();
    let line = one.result_line(&names);
    if honest {
        assert!(matches!(one.verdicts[&0], Verdict::Verified(..)), "{line}");
    } else {
        match &one.verdicts[&0] {
            Verdict::Refused { reason } => assert!(reason.contains("does not fit"), "{reason}"),
            v => panic!("{v:?}"),
        }
        assert!(line.contains("Ann's game refused: move 2:"), "{line}");
        assert_eq!(one.outcome().unwrap().winners, vec![1]);
    }
}

#[test]
fn an_entrant_who_leaves_stops_the_race_and_the_others_are_still_shown_and_scored() {
    let (mut g, _, mut oracle) = race(8, 3);
    let mut bots: Vec<Box<dyn Bot<TheBogey>>> = (0..3)
        .map(|s| Box::new(ColumnBot::new(StdRng::seed_from_u64(s))) as Box<dyn Bot<TheBogey>>)
        .collect();
    play(&mut g, &mut oracle, &mut bots, 29);
    a_leaver_stops_the_race(g, &mut oracle);
}

#[test]
fn a_won_game_scores_its_cards_and_thirteen_less_its_columns() {
    let mut p = Places::new(0, 5);
    p.columns = vec![(0..CARDS).map(|i| (0, i)).collect()];
    assert_eq!(game::score(&p, Status::Ended(End::Won)), 52 + 12);
    assert_eq!(game::score(&p, Status::Ended(End::Lost)), 52);
    p.columns = (0..MAX_COLUMNS as u16)
        .map(|k| (0..CARDS).filter(|i| i % 12 == k).map(|i| (0, i)).collect())
        .collect();
    assert_eq!(game::score(&p, Status::Ended(End::Won)), 53, "a novice win");
    assert_eq!(game::level(12), "novice");
    assert_eq!(game::level(8), "epic");
    assert_eq!(game::level(5), "epic");
    // Nothing played yet: a replay of no moves stands at the start.
    let c = replay_entrant::<Bogey>(
        &Setup {
            players: 1,
            hand: 5,
        },
        0,
        &[],
        &|_| None,
    )
    .unwrap();
    assert_eq!((c.places.on_table(), c.status), (0, Status::Playing));
}

#[test]
fn the_hard_variant_deals_hands_of_four() {
    let s = TheBogey::setup(&SetupOptions {
        players: 2,
        variant: Some("hard".into()),
        ..SetupOptions::default()
    })
    .unwrap();
    assert_eq!(s.hand, 4);
    let g = TheBogey::start(&s, 2).unwrap();
    assert_eq!(g.entrants[0].places.hand.len(), 4);
    let e = TheBogey::setup(&SetupOptions {
        players: 2,
        variant: Some("easy".into()),
        ..SetupOptions::default()
    })
    .unwrap_err();
    assert!(e.contains("'standard'") && e.contains("'hard'"), "{e}");
}

#[test]
fn the_column_bot_beats_the_random_player_on_the_same_deals() {
    let d = bot::duplicate(200, 21, 5, Default::default());
    assert!(
        d.margin > 5.0 * d.margin_se && d.margin > 5.0,
        "bot {:.1} against random {:.1} (margin {:.1} ± {:.1}, wins {:.3})",
        d.bot_mean,
        d.random_mean,
        d.margin,
        d.margin_se,
        d.bot_wins
    );
}

#[test]
fn the_drawing_shows_your_hand_face_up_and_the_others_hands_as_backs() {
    let d = crate::games::race::testing::the_first_deal_drawn::<Bogey>(
        &Setup {
            players: 3,
            hand: 5,
        },
        4,
    );
    assert_eq!(d.title, "The Bogey · 3 on one deal · racing");
    let you = d.spots.iter().find(|s| s.you).unwrap();
    assert_eq!(you.pieces.len(), 5);
    assert!(d.spots.iter().any(|s| s.notes == ["no columns yet"]));
}
