use super::*;
use crate::engine::sim::{simulate, SimOptions};
use crate::games::dominoes::testing::{known_hands, shown, you_and_ann};
use rand::{rngs::StdRng, SeedableRng};

#[test]
fn random_games_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(5);
    for (players, partners) in [(2, false), (3, false), (4, false), (4, true)] {
        let mut s = Setup::new(players);
        s.partnerships = partners;
        s.hands = Some(2);
        let g = AllFives::new(&s).unwrap();
        for _ in 0..12 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
        // Whole games to the target, with fewer forfeit probes to keep them quick.
        s.hands = None;
        let g = AllFives::new(&s).unwrap();
        let opts = SimOptions {
            forfeit_every: Some(97),
            ..SimOptions::default()
        };
        for _ in 0..2 {
            let r = simulate(&g, &mut rng, &opts).unwrap();
            let best = r
                .outcome
                .unwrap()
                .payoffs
                .iter()
                .map(|p| p.1)
                .max()
                .unwrap();
            assert!(best >= s.target(), "{best}");
        }
    }
}

use crate::bots::{Bot, RandomBot};
use crate::cards::CardId;
use crate::engine::sim::{fulfil_all, play_out, Oracle, Script};
use crate::engine::{Game, ToAct};
use crate::games::ui::GameUi;
use game::halves;

fn id(a: u8, b: u8) -> CardId {
    (0..28)
        .map(CardId)
        .find(|t| halves(*t) == (a.min(b), a.max(b)))
        .unwrap()
}

/// A layout built from moves, with the score of each.
fn lay(moves: &[((u8, u8), End)]) -> (Layout, Vec<i64>) {
    let mut l = Layout::default();
    let mut scores = Vec::new();
    for (t, e) in moves {
        assert!(l.fits(*t, *e), "{t:?} does not fit {e:?} on {l:?}");
        l.place(*t, *e);
        scores.push(l.score());
    }
    (l, scores)
}

#[test]
fn the_spinner_counts_both_halves_until_both_sides_are_covered() {
    let (l, scores) = lay(&[
        ((5, 5), End::Lead),  // 10: a lone spinner counts both halves
        ((5, 0), End::East),  // 10 + 0: one side covered, the spinner is still an end
        ((5, 3), End::West),  // 3 + 0: both sides covered, the spinner counts no more
        ((5, 2), End::North), // 3 + 0 + 2: the third arm counts
        ((5, 4), End::South), // 3 + 0 + 2 + 4
    ]);
    assert_eq!(scores, vec![10, 10, 0, 5, 0]);
    assert_eq!(l.count(), 9);
    // North and south open only once both sides of the spinner are covered.
    let (l, _) = lay(&[((5, 5), End::Lead), ((5, 0), End::East)]);
    assert_eq!(l.open(End::North), None);
    assert_eq!(l.ends(), vec![(End::West, 5), (End::East, 0)]);
}

#[test]
fn a_double_counts_both_halves_only_while_it_is_on_an_end() {
    let (l, scores) = lay(&[
        ((2, 2), End::Lead),
        ((2, 4), End::East),
        ((4, 4), End::East), // 4 (the spinner's free side) + 8
        ((2, 1), End::West), // 1 + 8
        ((4, 1), End::East), // 1 + 1: the [4|4] is covered
    ]);
    assert_eq!(scores, vec![0, 0, 0, 0, 0]);
    assert_eq!(l.count(), 2);
    let (l, _) = lay(&[
        ((2, 2), End::Lead),
        ((2, 4), End::East),
        ((4, 4), End::East),
    ]);
    assert_eq!(l.count(), 12);
    // Only the first double branches.
    let (l, _) = lay(&[
        ((2, 2), End::Lead),
        ((2, 4), End::East),
        ((4, 4), End::East),
        ((2, 1), End::West),
        ((4, 1), End::East),
    ]);
    assert_eq!(l.open(End::North), Some(2));
}

#[test]
fn the_highest_count_is_thirty_five() {
    let (l, scores) = lay(&[
        ((0, 0), End::Lead),
        ((0, 6), End::West),
        ((0, 5), End::East),
        ((0, 4), End::North),
        ((6, 6), End::West),
        ((5, 5), End::East),
        ((4, 4), End::North),
        ((0, 5), End::South),
    ]);
    assert_eq!(l.count(), 35);
    assert_eq!(scores[7], 35);
}

/// Answers the pending chance batch with what the state already knows (shown hands) or from
/// the script.
fn resolve(g: &mut AllFives, script: &mut Script) {
    while let ToAct::Chance(reqs) = g.to_act() {
        let outs = fulfil_all(script, &reqs).unwrap();
        g.apply_chance(&outs).unwrap();
    }
}

fn play(g: &mut AllFives, script: &mut Script, seat: u8, t: (u8, u8), end: End) -> i64 {
    assert_eq!(g.to_act(), ToAct::Seat(seat));
    let position = g.board.hands[&seat]
        .iter()
        .find(|h| h.tile == Some(id(t.0, t.1)))
        .unwrap_or_else(|| panic!("seat {seat} holds no {t:?}"))
        .position;
    let before = g.scores[g.team_of(seat)];
    g.apply(seat, &Action::Play { position, end }).unwrap();
    resolve(g, script);
    g.scores[g.team_of(seat)] - before
}

/// A deck whose first tiles are these, then every other tile in set order.
fn deck(first: &[(u8, u8)]) -> Vec<CardId> {
    let mut d: Vec<CardId> = first.iter().map(|t| id(t.0, t.1)).collect();
    let rest: Vec<CardId> = (0..28).map(CardId).filter(|t| !d.contains(t)).collect();
    d.extend(rest);
    d
}

/// The seed's example of nine moves. Its diagrams are not in the text, so the tiles are a
/// reconstruction that matches every stated score and remark: [1|1] is the first double and
/// the spinner, [4|4] counts both halves while on an end and never branches.
fn nine_moves() -> (AllFives, Vec<i64>) {
    let seat0 = [
        (1, 4),
        (4, 4),
        (1, 2),
        (5, 5),
        (1, 6),
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
    ];
    let seat1 = [
        (1, 1),
        (3, 4),
        (1, 5),
        (0, 5),
        (2, 2),
        (2, 3),
        (2, 4),
        (2, 5),
        (2, 6),
    ];
    let mut first = seat0.to_vec();
    first.extend(seat1);
    let mut script = Script::new(deck(&first), vec![1]);
    let mut g = AllFives::new(&Setup::new(2)).unwrap();
    resolve(&mut g, &mut script);
    let moves = [
        (0, (1, 4), End::Lead),
        (1, (1, 1), End::West),
        (0, (4, 4), End::East),
        (1, (4, 3), End::East),
        (0, (1, 2), End::West),
        (1, (1, 5), End::North),
        (0, (5, 5), End::North),
        (1, (5, 0), End::North),
        (0, (1, 6), End::South),
    ];
    let mut scores = Vec::new();
    for (k, (seat, t, end)) in moves.into_iter().enumerate() {
        if k == 3 {
            assert_eq!(g.layout.open(End::North), None, "[4|4] is no spinner");
        }
        scores.push(play(&mut g, &mut script, seat, t, end));
    }
    (g, scores)
}

#[test]
fn the_nine_move_example_of_the_rules() {
    let (g, scores) = nine_moves();
    assert_eq!(scores, vec![5, 0, 10, 5, 5, 10, 15, 5, 0]);
    assert_eq!(g.scores, vec![35, 20]);
    assert_eq!(g.layout.count(), 11);
    let words = g.story(Some(1), &you_and_ann);
    assert!(
        words.contains(&"hand 1: by lot, Ann leads".to_string()),
        "{words:?}"
    );
    assert!(
        words.contains(&"you set [1|5] on the north end: the ends count 10, 10 points".to_string()),
        "{words:?}"
    );
    assert!(!words.iter().any(|w| w.contains("Some(")), "{words:?}");
}

/// A hand in play with these tiles held, all known (a full-information state).
fn holding(setup: Setup, hands: &[&[(u8, u8)]]) -> AllFives {
    let mut g = AllFives::new(&setup).unwrap();
    let mut script = Script::new(deck(&[]), vec![1]);
    resolve(&mut g, &mut script);
    g.board.hands.extend(known_hands(hands, |t| id(t.0, t.1)));
    g
}

/// Ends the hand and shows every held tile (the state knows them all).
fn end(g: &mut AllFives, how: HandEnd) {
    g.end_hand(how);
    let ToAct::Chance(reqs) = g.to_act() else {
        panic!("the hands are shown");
    };
    g.apply_chance(&shown(&g.board.hands, &reqs)).unwrap();
}

#[test]
fn a_blocked_hand_goes_to_the_fewest_pips_rounded_to_five() {
    let mut g = holding(Setup::new(2), &[&[(1, 2)], &[(6, 6), (3, 4)]]);
    end(&mut g, HandEnd::Blocked);
    assert_eq!(g.scores, vec![20, 0], "19 pips round up to 20");
    assert_eq!(g.leader, None, "after a block the lead is by lot again");
    let mut g = holding(Setup::new(2), &[&[(1, 2)], &[(0, 3)]]);
    end(&mut g, HandEnd::Blocked);
    assert_eq!(g.scores, vec![0, 0], "a tie at two players scores nothing");
    // Three players: two tie for least and split the third's 17 pips (20 → 10 each).
    let mut g = holding(Setup::new(3), &[&[(1, 2)], &[(0, 3)], &[(6, 6), (1, 4)]]);
    end(&mut g, HandEnd::Blocked);
    assert_eq!(g.scores, vec![10, 10, 0]);
    // [1|1] alone rounds down to nothing.
    let mut g = holding(Setup::new(2), &[&[(0, 0)], &[(1, 1)]]);
    end(&mut g, HandEnd::Blocked);
    assert_eq!(g.scores, vec![0, 0]);
}

#[test]
fn partners_score_together_and_a_partners_tiles_do_not_count() {
    // Seat 1 dominoes: its side scores seats 0 and 2 (5 + 8 = 13 → 15), not its partner's 12.
    let mut g = holding(Setup::new(4), &[&[(2, 3)], &[], &[(4, 4)], &[(6, 6)]]);
    end(&mut g, HandEnd::Domino(1));
    assert_eq!(g.scores, vec![0, 15]);
    assert_eq!(g.leader, Some(1));
    // Blocked: side 0 holds 3 + 4 = 7, side 1 holds 1 + 12 = 13 → side 0 scores 15.
    let mut g = holding(Setup::new(4), &[&[(1, 2)], &[(0, 1)], &[(2, 2)], &[(6, 6)]]);
    end(&mut g, HandEnd::Blocked);
    assert_eq!(g.scores, vec![15, 0]);
    let o = {
        let mut g = g.clone();
        g.forfeit(&[0], crate::engine::ForfeitReason::Absent)
            .unwrap();
        g.outcome().unwrap()
    };
    assert_eq!(o.winners, vec![1, 3], "a removed seat's partner cannot win");
}

#[test]
fn a_tile_that_does_not_fit_loses_the_game_for_its_player() {
    let mut script = Script::new(deck(&[(0, 0), (6, 6), (1, 1)]), vec![1]);
    let mut g = AllFives::new(&Setup::new(2)).unwrap();
    resolve(&mut g, &mut script);
    play(&mut g, &mut script, 0, (0, 0), End::Lead);
    g.board.turn = 0;
    // Another client does not know seat 0's tiles, so it accepts the move until it is shown.
    for h in g.board.hands.get_mut(&0).unwrap() {
        h.tile = None;
    }
    g.apply(
        0,
        &Action::Play {
            position: 1,
            end: End::East,
        },
    )
    .unwrap();
    resolve(&mut g, &mut script);
    assert_eq!(g.board.phase, Phase::Done);
    assert_eq!(g.outcome().unwrap().winners, vec![1]);
    assert!(matches!(
        g.log[g.log.len() - 2],
        Entry::Misplayed { seat: 0, .. }
    ));
}

#[test]
fn the_greedy_bot_outscores_random() {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(11));
    let (mut greedy, mut random) = (0i64, 0i64);
    for k in 0..150 {
        let mut s = Setup::new(2);
        s.hands = Some(1);
        let mut g = AllFives::new(&s).unwrap();
        let mut bot = GreedyBot;
        let mut rnd = RandomBot::new(StdRng::seed_from_u64(k));
        let (o, _) = play_out(&mut g, &mut oracle, 10_000, |g, seat, legal| {
            let v = g.view(Some(seat));
            if seat == (k % 2) as u8 {
                bot.choose(&v, &legal)
            } else {
                Bot::<AllFives>::choose(&mut rnd, &v, &legal)
            }
        })
        .unwrap();
        greedy += o.payoffs[(k % 2) as usize].1;
        random += o.payoffs[1 - (k % 2) as usize].1;
    }
    assert!(greedy > random, "greedy {greedy} vs random {random}");
}

#[test]
fn the_panel_shows_the_line_the_ends_your_tiles_and_the_boneyard_at_80_by_24() {
    use crate::games::ui::{Ctx, Outcome, Panel, Theme};
    use crossterm::event::{KeyCode, KeyEvent};
    use ratatui::{backend::TestBackend, Terminal};
    let (g, _) = nine_moves();
    let view = g.view(Some(1));
    let legal = g.legal_actions(1);
    let mut p = ui::panel::AllFivesPanel::default();
    p.ask(&view, &legal);
    let names = vec!["Ann".to_string(), "Bob".to_string()];
    let story = g.story(Some(1), &you_and_ann);
    let theme = Theme { color: false };
    let ctx = Ctx {
        theme: &theme,
        names: &names,
        me: Some(1),
        awaited: &[1],
        what: "move",
        secs_left: None,
        story: &story,
        asked: true,
    };
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    term.draw(|f| p.draw(f, f.area(), &ctx)).unwrap();
    let screen: String = term
        .backend()
        .buffer()
        .content
        .chunks(80)
        .map(|row| row.iter().map(|c| c.symbol()).collect::<String>() + "\n")
        .collect();
    for want in [
        "line  [2|1]<1|1>[1|4][4|4][4|3]",
        "north [1|5][5|5][5|0]",
        "south [1|6]",
        "open  west 2  east 3  north 0  south 6  count 11",
        "score Ann 35 · you 20 · to 250",
        "held  Ann 4, ▶you 5 · boneyard 10",
        "[2|2] [2|3] [2|4] [2|5] [2|6]",
    ] {
        assert!(screen.contains(want), "{want:?} missing from\n{screen}");
    }
    // The first tile that fits is picked; w sets it west.
    let position = view.tiles[0].0;
    assert_eq!(
        p.key(KeyEvent::from(KeyCode::Char('w'))),
        Outcome::Play(Action::Play {
            position,
            end: End::West
        })
    );
    assert_eq!(
        ui::panel::fit(&["[1|2]".into(), "[2|3]".into(), "[3|4]".into()], 12),
        "[1|2]…[3|4]"
    );
}

#[test]
fn a_player_draws_until_a_tile_fits_and_nobody_else_sees_it() {
    let seat0 = [
        (6, 6),
        (5, 5),
        (5, 6),
        (4, 4),
        (4, 5),
        (4, 6),
        (3, 3),
        (3, 4),
        (3, 5),
    ];
    let seat1 = [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (0, 5),
        (1, 1),
        (1, 2),
        (1, 3),
    ];
    let mut first = seat0.to_vec();
    first.extend(seat1);
    first.extend([(1, 4), (2, 6)]);
    let mut script = Script::new(deck(&first), vec![1]);
    let mut g = AllFives::new(&Setup::new(2)).unwrap();
    resolve(&mut g, &mut script);
    assert_eq!(play(&mut g, &mut script, 0, (6, 6), End::Lead), 0);
    for _ in 0..2 {
        assert_eq!(g.legal_actions(1), vec![Action::Draw]);
        g.apply(1, &Action::Draw).unwrap();
        resolve(&mut g, &mut script);
    }
    // The second draw fits: only it may be set, on either side of the lone spinner.
    let drawn = 19;
    assert_eq!(
        g.legal_actions(1),
        vec![
            Action::Play {
                position: drawn,
                end: End::West
            },
            Action::Play {
                position: drawn,
                end: End::East
            }
        ]
    );
    let theirs = g.view(Some(0));
    assert_eq!(theirs.held, vec![(0, 8), (1, 11)]);
    assert_eq!(theirs.boneyard, 8);
    assert!(
        theirs.tiles.iter().all(|(p, _)| *p < 9),
        "only seat 0's own tiles"
    );
    assert!(g.view(None).tiles.is_empty());
    let words = g.story(Some(0), &|s| format!("seat {s}"));
    assert!(words.contains(&"seat 1 draws a tile from the boneyard".to_string()));
    assert!(!words
        .iter()
        .any(|w| w.contains("[2|6]") || w.contains("[1|4]")));
    // The greedy bot takes the play that scores: [2|6] east makes 12 + 2, west 2 + 12 — both
    // 14, so it keeps the lower move.
    let mine = g.view(Some(1));
    let legal = g.legal_actions(1);
    assert_eq!(GreedyBot.choose(&mine, &legal), legal[0]);
}

#[test]
fn the_greedy_bot_takes_the_biggest_score() {
    let (g, _) = nine_moves();
    // Seat 1 to move on ends 2 (west), 3 (east), 0 (north), 6 (south): count 11.
    let v = g.view(Some(1));
    let legal = g.legal_actions(1);
    let best = GreedyBot.choose(&v, &legal);
    let score = |a: &Action| bot::value(&v, a).map(|x| x.0);
    assert!(legal.iter().all(|a| score(a) <= score(&best)), "{best:?}");
    // [2|6] on the west end: 6 + 3 + 0 + 6 = 15 beats [2|3] east (2 + 2 + 0 + 6 = 10).
    assert_eq!(score(&best), Some(15));
    assert_eq!(
        v.tiles
            .iter()
            .find(
                |(p, _)| matches!(best, Action::Play { position, end: End::West } if position == *p)
            )
            .map(|(_, t)| halves(*t)),
        Some((2, 6))
    );
}
