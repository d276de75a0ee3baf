use super::game::{dungeon_cards, Life, ALL_MONSTERS};
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
use crate::games::ui::GameUi;

use rand::{rngs::StdRng, SeedableRng};

fn c(s: &str) -> CardId {
    PlayingCard::parse(s).unwrap().id()
}

#[test]
fn the_dungeon_is_44_cards_worth_208_in_monsters() {
    let d = dungeon_cards();
    assert_eq!(d.len(), 44);
    assert_eq!(ALL_MONSTERS, 208);
    assert!(!d.contains(&c("AH")) && !d.contains(&c("KD")) && d.contains(&c("AS")));
}

#[test]
fn random_races_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(3);
    for players in 1..=4 {
        let g = Scoundrel::new(&Setup { players }).unwrap();
        for _ in 0..12 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
    }
}

#[test]
fn every_entrant_draws_the_same_cards_and_sees_only_its_own_until_the_end() {
    // Everyone's first room is the same four cards; seat 1's own client learns its room and
    // nothing of the others'.
    let v = every_entrant_gets_the_same_first_cards_and_sees_only_its_own::<Dungeon>(
        &Setup { players: 3 },
        5,
        |b| &b.room,
    );
    assert!(v.entrants[0].board.life.is_none());
}

#[test]
fn a_turn_that_does_not_follow_from_the_cards_is_refused_at_the_end_naming_the_entrant() {
    // Seat 1's client sees seat 0's turns only in form: a lying seat 0 passes then, and is
    // caught when its cards are shown.
    let (mut god, mut one, mut oracle, _) = first_deal::<Dungeon>(&Setup { players: 2 }, 11);
    // A claim of falling on the first card at full health cannot be true.
    let lie = Action::Face {
        takes: vec![Take {
            slot: 0,
            weapon: false,
        }],
        fallen: true,
    };
    assert!(god.apply(0, &lie).is_err(), "its own client refuses it");
    one.apply(0, &lie).unwrap();
    one.apply(1, &Action::GiveUp).unwrap();
    // The end: every card drawn is shown.
    show_the_end(&mut one, &mut oracle, 1);
    match &one.verdicts[&0] {
        Verdict::Refused { reason } => assert!(reason.contains("says it fell"), "{reason}"),
        v => panic!("{v:?}"),
    }
    let names = |s: u8| ["Ann", "Bob"][usize::from(s)].to_string();
    let line = one.result_line(&names);
    assert!(
        line.contains("Ann's game refused: turn 1: says it fell"),
        "{line}"
    );
    // The honest one is scored: it gave up, so it loses every monster.
    assert_eq!(
        one.verdicts[&1],
        Verdict::Verified(Verified {
            score: -ALL_MONSTERS,
            health: 20
        })
    );
    assert_eq!(one.outcome().unwrap().winners, vec![1]);
}

#[test]
fn an_entrant_who_leaves_stops_the_race_and_the_others_are_still_shown_and_scored() {
    let (mut g, _, mut oracle, _) = first_deal::<Dungeon>(&Setup { players: 3 }, 8);
    let mut bots: Vec<Box<dyn Bot<Scoundrel>>> = (0..3)
        .map(|s| Box::new(DungeonBot::new(StdRng::seed_from_u64(s))) as Box<dyn Bot<Scoundrel>>)
        .collect();
    play(&mut g, &mut oracle, &mut bots, 3);
    a_leaver_stops_the_race(g, &mut oracle);
}

#[test]
fn the_weapon_binds_and_only_fights_what_is_no_stronger_than_its_last_kill() {
    let mut l = Life::default();
    let mut potion = false;
    l.face(c("5D"), false, &mut potion).unwrap();
    l.face(c("QS"), true, &mut potion).unwrap();
    assert_eq!(l.health, 13, "12 - 5 = 7 damage");
    l.face(c("6C"), true, &mut potion).unwrap();
    assert_eq!(l.health, 12, "6 - 5 = 1");
    let e = l.clone().face(c("7C"), true, &mut potion).unwrap_err();
    assert!(e.contains("stronger"), "{e}");
    // A new weapon replaces the old and its kills.
    l.face(c("9D"), false, &mut potion).unwrap();
    assert!(l.slain.is_empty());
    l.face(c("KS"), true, &mut potion).unwrap();
    assert_eq!(l.health, 8);
}

#[test]
fn scores_follow_the_seed() {
    let mut l = Life {
        health: 20,
        last: Some(c("7H")),
        ..Life::default()
    };
    assert_eq!(
        l.score(Status::Ended(End::Escaped)),
        27,
        "full health and a last potion"
    );
    l.health = 19;
    assert_eq!(l.score(Status::Ended(End::Escaped)), 19);
    l.monsters_faced = 100;
    assert_eq!(l.score(Status::Ended(End::Fallen)), -108);
    // A whole replay: no moves, nothing faced.
    let c = replay_entrant::<Dungeon>(&Setup { players: 1 }, 0, &[], &|_| None).unwrap();
    assert_eq!((c.tally.health, c.status), (20, Status::Playing));
}

#[test]
fn the_dungeon_bot_beats_random_on_the_same_deals() {
    let d = super::bot::duplicate(300, 21, Default::default());
    assert!(
        d.bot_mean > d.random_mean + 50.0,
        "bot {:.1} against random {:.1} (escapes {:.3})",
        d.bot_mean,
        d.random_mean,
        d.bot_wins
    );
}

#[test]
fn the_drawing_shows_your_room_face_up_and_the_others_rooms_as_backs() {
    let d = crate::games::race::testing::the_first_deal_drawn::<Dungeon>(&Setup { players: 3 }, 5);
    assert_eq!(d.title, "Scoundrel · 3 on one deal · racing");
    let you = d.spots.iter().find(|s| s.you).unwrap();
    assert_eq!(you.pieces.len(), 4);
    assert!(
        you.notes.contains(&"health 20 of 20".to_string()),
        "{:?}",
        you.notes
    );
    let weapon = d.spots.iter().find(|s| s.name == "your weapon").unwrap();
    assert_eq!(weapon.notes, ["none"]);
}
