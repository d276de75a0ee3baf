use super::*;
use crate::bots::{Bot, RandomBot};
use crate::engine::sim::{play_out, simulate, Oracle, SimOptions};
use crate::engine::{Game, ToAct};
use rand::{rngs::StdRng, SeedableRng};

#[test]
fn random_games_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(3);
    for players in 2..=6 {
        let g = HighCard::new(&Setup::new(players)).unwrap();
        for _ in 0..60 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
    }
}

#[test]
fn setups_are_checked_in_words() {
    let e = HighCard::new(&Setup::new(7)).unwrap_err().to_string();
    assert!(e.contains("2 to 6 players"), "{e}");
    let mut s = Setup::new(3);
    s.rounds = 0;
    assert!(HighCard::new(&s)
        .unwrap_err()
        .to_string()
        .contains("rounds"));
}

#[test]
fn decisions_stay_hidden_until_everyone_decided() {
    let mut g = HighCard::new(&Setup::new(3)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(1));
    // Play to the decision.
    loop {
        match g.to_act() {
            ToAct::Chance(r) => {
                let o = crate::engine::sim::fulfil_all(&mut oracle, &r).unwrap();
                g.apply_chance(&o).unwrap();
            }
            ToAct::Seat(s) => g.apply(s, &Action::Keep).unwrap(),
            ToAct::Sealed(_) => break,
            ToAct::Terminal => unreachable!(),
        }
    }
    g.apply(0, &Action::Stay).unwrap();
    let v = g.view(Some(1));
    assert!(v.decided.is_empty(), "nobody sees who decided what yet");
    assert!(!v.log.iter().any(|e| matches!(e, Entry::Decided { .. })));
}

#[test]
fn a_lone_stayer_wins_without_showing_and_folded_cards_stay_hidden() {
    let mut g = HighCard::new(&Setup::new(3)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(2));
    loop {
        match g.to_act() {
            ToAct::Chance(r) => {
                let o = crate::engine::sim::fulfil_all(&mut oracle, &r).unwrap();
                g.apply_chance(&o).unwrap();
            }
            ToAct::Seat(s) => g.apply(s, &Action::Keep).unwrap(),
            ToAct::Sealed(v) => {
                for s in v {
                    let a = if s == 1 { Action::Stay } else { Action::Fold };
                    g.apply(s, &a).unwrap();
                }
                break;
            }
            ToAct::Terminal => unreachable!(),
        }
    }
    assert_eq!(g.points[&1], 22);
    assert!(!g.log.iter().any(|e| matches!(e, Entry::Shown { .. })));
    assert_eq!(g.round, 1);
}

#[test]
fn the_threshold_bot_beats_random() {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(9));
    let mut total = 0i64;
    let games = 400;
    for k in 0..games {
        let mut g = HighCard::new(&Setup::new(2)).unwrap();
        let mut smart = ThresholdBot::new(StdRng::seed_from_u64(k));
        let mut random = RandomBot::new(StdRng::seed_from_u64(k + 10_000));
        let (outcome, _) = play_out(&mut g, &mut oracle, 10_000, |g, seat, legal| {
            let view = g.view(Some(seat));
            if seat == 0 {
                smart.choose(&view, &legal)
            } else {
                Bot::<HighCard>::choose(&mut random, &view, &legal)
            }
        })
        .unwrap();
        total += outcome.payoffs.iter().find(|(s, _)| *s == 0).unwrap().1;
    }
    assert!(
        total > 0,
        "the threshold bot should win points on average: {total}"
    );
}

#[test]
fn the_drawing_shows_the_viewer_its_own_card_and_the_others_backs() {
    use crate::games::ui::drawing::Piece;
    use crate::games::ui::GameUi;
    let mut g = HighCard::new(&Setup::new(3)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(4));
    crate::engine::sim::settle(&mut g, &mut oracle).unwrap();
    let names = |s: crate::engine::Seat| {
        if s == 1 {
            "you".to_string()
        } else {
            format!("P{s}")
        }
    };
    let d = HighCard::drawing(&g.view(Some(1)), &names).unwrap();
    assert_eq!(d.title, "round 1 of 3");
    let own = g.hands[&1].card.unwrap();
    let you = d.spots.iter().find(|s| s.you).unwrap();
    assert_eq!(you.pieces, vec![Piece::card(own)]);
    assert!(you.notes.contains(&"20 points".to_string()));
    for other in d.spots.iter().filter(|s| !s.you) {
        assert_eq!(other.pieces, vec![Piece::CardBack], "{}", other.name);
    }
}
