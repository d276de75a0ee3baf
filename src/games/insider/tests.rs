use super::bot::InsiderBot;
use super::game::{End, Entry};
use super::*;
use crate::bots::{Bot, RandomBot};
use crate::engine::sim::{play_out, simulate, Oracle, SimOptions};
use crate::engine::{Game, Seat};
use rand::{rngs::StdRng, SeedableRng};

#[test]
fn random_tables_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(17);
    for players in 4..=8 {
        let g = Insider::new(&Setup::new(players)).unwrap();
        for _ in 0..6 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
    }
}

/// Tallies of bot tables: how often the word was guessed, and how the votes went.
#[derive(Debug, Default)]
struct Tally {
    games: u32,
    time_up: u32,
    found: u32,
    insider_won: u32,
    questions: usize,
}

fn bot_tables(games: u32, players: u8, random_votes: bool, seed: u64) -> Tally {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed));
    let mut t = Tally::default();
    for k in 0..u64::from(games) {
        let mut g = Insider::new(&Setup::new(players)).unwrap();
        let mut bots: Vec<InsiderBot<StdRng>> = (0..players)
            .map(|s| InsiderBot::new(StdRng::seed_from_u64(seed * 1000 + k * 10 + u64::from(s))))
            .collect();
        let mut random = RandomBot::new(StdRng::seed_from_u64(seed + k));
        let (o, _) = play_out(&mut g, &mut oracle, 100_000, |g, seat, legal| {
            let view = g.view(Some(seat));
            let voting = matches!(view.phase, Phase::Vote1 | Phase::Vote2 | Phase::TieBreak);
            if random_votes && voting {
                Bot::<Insider>::choose(&mut random, &view, &legal)
            } else {
                bots[usize::from(seat)].choose(&view, &legal)
            }
        })
        .unwrap();
        t.games += 1;
        t.questions += g.qa.len();
        match &g.end {
            Some(End::TimeUp) => t.time_up += 1,
            Some(End::FirstVote { .. } | End::SecondVote { .. }) => {
                if o.winners == vec![g.insider().unwrap()] {
                    t.insider_won += 1;
                } else {
                    t.found += 1;
                }
            }
            e => panic!("{e:?}"),
        }
        assert!(!g.misjudged, "an honest bot Master never misjudges");
        assert!(g.log.iter().any(|e| matches!(e, Entry::WordShown { .. })));
    }
    t
}

/// The bots guess the word well inside the turns a timer allows, and their votes find the
/// Insider far more often than votes at random.
#[test]
fn the_bots_guess_the_word_and_their_votes_find_the_insider_more_than_chance() {
    let games = 300;
    let bots = bot_tables(games, 5, false, 1);
    let random = bot_tables(games, 5, true, 1);
    eprintln!("5 bots, {games} tables: {bots:?}");
    eprintln!("5 bots voting at random, {games} tables: {random:?}");
    assert_eq!(bots.time_up, 0, "{bots:?}");
    // Lines of questions and guesses per table: a few dozen, far below the backstop.
    assert!(bots.questions / games as usize <= 60, "{bots:?}");
    assert!(
        bots.found > random.found + games / 10,
        "heuristic votes {bots:?} against random votes {random:?}"
    );
}

#[test]
fn setups_are_checked_in_words() {
    let bad = |s: Setup, want: &str| {
        let e = Insider::new(&s).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    };
    bad(Setup::new(3), "4 to 8 players");
    bad(
        Setup {
            words: "nouns-9".into(),
            ..Setup::new(5)
        },
        "not a word list",
    );
    bad(
        Setup {
            seconds: 5,
            ..Setup::new(5)
        },
        "10 to 3600 seconds",
    );
}

/// The first vote needs a majority: a tie does not accuse (four voters, two yes).
#[test]
fn a_tied_first_vote_accuses_nobody() {
    let mut g = Insider::new(&Setup::new(4)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(3));
    // Play to the first vote with the Insider guessing at once.
    loop {
        match g.to_act() {
            crate::engine::ToAct::Chance(r) => {
                let o = crate::engine::sim::fulfil_all(&mut oracle, &r).unwrap();
                g.apply_chance(&o).unwrap();
            }
            crate::engine::ToAct::Seat(s) => {
                let legal = g.legal_actions(s);
                let a = match g.view(Some(s)).phase {
                    Phase::Ask { .. } if g.role_of(s) == Some(Role::Insider) => {
                        Action::Guess(g.word().unwrap().to_string())
                    }
                    Phase::Ask { .. } if legal.contains(&Action::Pass) => Action::Pass,
                    _ => legal[0].clone(),
                };
                g.apply(s, &a).unwrap();
            }
            crate::engine::ToAct::Sealed(_) => break,
            crate::engine::ToAct::Terminal => unreachable!(),
        }
    }
    assert_eq!(g.phase, Phase::Vote1);
    for (k, s) in (0..4u8).enumerate() {
        g.apply(s, &Action::Accuse(k % 2 == 0)).unwrap();
    }
    assert_eq!(g.phase, Phase::Vote2, "two of four is no majority");
    let _: Seat = g.guesser.unwrap();
}

#[test]
fn the_drawing_shows_each_seat_its_own_role_card_and_the_others_backs() {
    use crate::games::ui::drawing::Piece;
    use crate::games::ui::GameUi;
    let mut g = Insider::new(&Setup::new(4)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(8));
    crate::engine::sim::settle(&mut g, &mut oracle).unwrap();
    assert_eq!(g.phase, Phase::Pick);
    let master = g.master.unwrap();
    let other = (0..4).find(|s| *s != master).unwrap();
    let names = |s: Seat| format!("P{s}");
    let d = Insider::drawing(&g.view(Some(other)), &names).unwrap();
    let own = match g.view(Some(other)).role.unwrap() {
        Role::Insider => "Insider",
        _ => "Common",
    };
    for spot in d.spots.iter().take(4) {
        let want = if spot.you {
            Piece::named(own)
        } else if spot.name == names(master) {
            Piece::named("Master")
        } else {
            Piece::CardBack
        };
        assert_eq!(spot.pieces, vec![want], "{}", spot.name);
    }
    assert!(d.spots.iter().all(|s| s.name != "your word cards"));
    // The Master sees its word cards by name, and the others do not.
    let d = Insider::drawing(&g.view(Some(master)), &names).unwrap();
    let words = d
        .spots
        .iter()
        .find(|s| s.name == "your word cards")
        .unwrap();
    assert_eq!(words.pieces.len(), usize::from(g.setup.choices));
    assert!(words
        .pieces
        .iter()
        .all(|p| matches!(p, Piece::Named { .. })));
}
