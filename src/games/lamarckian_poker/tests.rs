use super::*;
use crate::engine::sim::settle;
use crate::engine::sim::{simulate, SimOptions};
use rand::{rngs::StdRng, SeedableRng};

/// Two thousand whole games keep every card in one place.
#[test]
fn thousands_of_random_games_keep_every_card_and_point() {
    crate::engine::sim::light_games(2..=8, 300, 11, 20, |players| {
        LamarckianPoker::new(&Setup::new(players)).unwrap()
    });
}

#[test]
fn random_games_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(3);
    for players in 2..=8 {
        let g = LamarckianPoker::new(&Setup::new(players)).unwrap();
        for _ in 0..40 {
            simulate(&g, &mut rng, &SimOptions::default()).unwrap();
        }
    }
}

use super::game::Held;
use super::hand::{best, Kind};
use crate::bots::{Bot, RandomBot};
use crate::cards::{CardId, PlayingCard};
use crate::engine::sim::{fulfil_all, play_out, Oracle, Script};
use crate::engine::{ForfeitReason, Game, Seat, ToAct};

fn c(name: &str) -> CardId {
    PlayingCard::parse(name).unwrap().id()
}

fn cs(names: &str) -> Vec<CardId> {
    names.split_whitespace().map(c).collect()
}

/// A whole deck: these cards at the first positions, the rest after them in id order.
fn deck(first: &[CardId]) -> Vec<CardId> {
    let mut d = first.to_vec();
    d.extend((0..52).map(CardId).filter(|x| !first.contains(x)));
    d
}

/// The deck that deals `hands[i]` to the i-th seat (round the table) and then `rest`.
fn deal(hands: &[Vec<CardId>], rest: &[CardId]) -> Vec<CardId> {
    let mut d = Vec::new();
    for j in 0..hands[0].len() {
        for h in hands {
            d.push(h[j]);
        }
    }
    d.extend(rest);
    deck(&d)
}

fn mark(g: &mut LamarckianPoker, seat: Seat, card: &str) {
    let position = g.hands[&seat]
        .iter()
        .find(|h| h.card == Some(c(card)))
        .unwrap_or_else(|| panic!("seat {seat} holds no {card}"))
        .position;
    g.apply(seat, &Action::Mark { position }).unwrap();
}

fn held(g: &LamarckianPoker, seat: Seat) -> Vec<CardId> {
    let mut v: Vec<CardId> = g.hands[&seat].iter().map(|h| h.card.unwrap()).collect();
    v.sort();
    v
}

fn sorted(mut v: Vec<CardId>) -> Vec<CardId> {
    v.sort();
    v
}

#[test]
fn the_rule_books_example_captures_by_suit_or_rank_highest_mark_first() {
    // Pool A♥ Q♣ 9♠ 5♥; marks A♠, 10♣, 9♥ (§ A turn, 4).
    let hands = [cs("AS 2D 3D 4D"), cs("10C 2H 3H 4H"), cs("9H 6D 7D 8D")];
    let mut script = Script::new(deal(&hands, &cs("AH QC 9S 5H")), vec![]);
    let mut g = LamarckianPoker::new(&Setup::new(3)).unwrap();
    settle(&mut g, &mut script).unwrap();
    assert_eq!(
        g.pool.iter().map(|f| f.card).collect::<Vec<_>>(),
        cs("AH QC 9S 5H")
    );
    // Played in seat order; resolved in card order.
    mark(&mut g, 0, "AS");
    mark(&mut g, 1, "10C");
    mark(&mut g, 2, "9H");
    settle(&mut g, &mut script).unwrap();
    let played: Vec<(Seat, CardId, Vec<CardId>)> = g
        .log
        .iter()
        .filter_map(|e| match e {
            Entry::Played {
                seat,
                mark,
                captured,
            } => Some((*seat, *mark, captured.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        played,
        vec![
            (0, c("AS"), cs("AH 9S")),
            (1, c("10C"), cs("QC")),
            (2, c("9H"), cs("5H")),
        ]
    );
    assert_eq!(held(&g, 0), sorted(cs("2D 3D 4D AH 9S")));
    assert_eq!(held(&g, 1), sorted(cs("2H 3H 4H QC")));
    assert_eq!(held(&g, 2), sorted(cs("6D 7D 8D 5H")));
    assert!(g.log.contains(&Entry::Discarded {
        cards: cs("AS 10C 9H")
    }));
    // Captured cards are public; the rest of a hand stays hidden from the others.
    let v = g.view(Some(1));
    let zero = &v.hands.iter().find(|(s, _)| *s == 0).unwrap().1;
    assert_eq!(zero.iter().flatten().count(), 2);
    assert_eq!(g.turn, 2, "the next pool is dealt");
}

#[test]
fn suit_breaks_a_rank_tie_and_a_fallen_mark_can_be_captured() {
    let hands = [cs("7C 2D"), cs("7S 3D")];
    let mut script = Script::new(deal(&hands, &cs("7H 2S 2C KD")), vec![]);
    let mut g = LamarckianPoker::new(&Setup {
        players: 2,
        hand: 2,
        pool: 4,
    })
    .unwrap();
    settle(&mut g, &mut script).unwrap();
    mark(&mut g, 0, "7C");
    mark(&mut g, 1, "7S");
    settle(&mut g, &mut script).unwrap();
    // 7♠ goes before 7♣: it takes 7♥ and 2♠; then 7♣ takes 2♣ and the fallen 7♠.
    assert_eq!(held(&g, 1), sorted(cs("3D 7H 2S")));
    assert_eq!(held(&g, 0), sorted(cs("2D 2C 7S")));
    assert!(g.log.contains(&Entry::Discarded { cards: cs("KD 7C") }));
}

#[test]
fn an_empty_hand_goes_extinct_and_the_last_survivor_wins_without_showing() {
    let setup = Setup {
        players: 4,
        hand: 1,
        pool: 4,
    };
    // Seats 2 and 3 mark first and capture nothing; seats 0 and 1 capture.
    let hands = [cs("JS"), cs("10H"), cs("KD"), cs("QC")];
    let pools = cs("9S 4H 5S 8S 2S 7C 8C 9C");
    let mut script = Script::new(deal(&hands, &pools), vec![]);
    let mut g = LamarckianPoker::new(&setup).unwrap();
    settle(&mut g, &mut script).unwrap();
    for (s, m) in [(0, "JS"), (1, "10H"), (2, "KD"), (3, "QC")] {
        mark(&mut g, s, m);
    }
    settle(&mut g, &mut script).unwrap();
    assert_eq!(g.alive, vec![0, 1]);
    assert!(g.log.contains(&Entry::Extinct { seat: 2 }));
    assert!(g.log.contains(&Entry::Extinct { seat: 3 }));
    assert_eq!(held(&g, 0), sorted(cs("9S 5S 8S")));
    assert_eq!(held(&g, 1), cs("4H"));
    assert_eq!(g.to_act(), ToAct::Sealed(vec![0, 1]), "only survivors mark");
    assert!(g.legal_actions(2).is_empty());
    // Captured marks are public already: nothing to open. 4♥ takes nothing from 2♠ 7♣ 8♣ 9♣
    // once 9♠ has taken 2♠ and 9♣.
    mark(&mut g, 0, "9S");
    mark(&mut g, 1, "4H");
    assert_eq!(g.alive, vec![0]);
    assert_eq!(g.to_act(), ToAct::Terminal);
    assert_eq!(g.winners, vec![0]);
    assert!(!g.log.iter().any(|e| matches!(e, Entry::Shown { .. })));
    let o = g.outcome().unwrap();
    assert_eq!(o.payoffs, vec![(0, 3), (1, -1), (2, -1), (3, -1)]);
    assert!(g.deck_left() > 0, "the game ends before the deck does");
}

#[test]
fn players_going_extinct_together_share_the_win() {
    let setup = Setup {
        players: 2,
        hand: 1,
        pool: 4,
    };
    let hands = [cs("KS"), cs("QH")];
    let mut script = Script::new(deal(&hands, &cs("2C 3C 4D 5D")), vec![]);
    let mut g = LamarckianPoker::new(&setup).unwrap();
    settle(&mut g, &mut script).unwrap();
    mark(&mut g, 0, "KS");
    mark(&mut g, 1, "QH");
    settle(&mut g, &mut script).unwrap();
    assert!(g.alive.is_empty());
    assert_eq!(g.to_act(), ToAct::Terminal);
    assert_eq!(g.outcome().unwrap().winners, vec![0, 1]);
}

#[test]
fn a_short_deck_deals_a_short_last_pool_then_the_showdown_ties_on_more_than_five_cards() {
    // Five hands of ten leave a pool of two (§ A turn, 7): one turn, then the showdown.
    let setup = Setup {
        players: 5,
        hand: 10,
        pool: 10,
    };
    let mut hands = vec![
        cs("5S 6S 7S 8S 9S 2C 3C 4C 2D 3D"),
        cs("5H 6H 7H 8H 9H 4D 6D 7D 8D 2H"),
    ];
    let pool = cs("KC KD");
    let used: Vec<CardId> = hands.iter().flatten().chain(&pool).copied().collect();
    // The rest spread so that nobody else holds a straight flush.
    let rest: Vec<CardId> = (0..52).map(CardId).filter(|x| !used.contains(x)).collect();
    for k in 0..3 {
        hands.push(rest.iter().skip(k).step_by(3).copied().collect());
    }
    let mut script = Script::new(deal(&hands, &pool), vec![]);
    let mut g = LamarckianPoker::new(&setup).unwrap();
    settle(&mut g, &mut script).unwrap();
    assert_eq!(g.pool.len(), 2);
    assert_eq!(g.deck_left(), 0);
    mark(&mut g, 0, "2C");
    mark(&mut g, 1, "4D");
    for s in 2..5 {
        let a = g.legal_actions(s)[0];
        g.apply(s, &a).unwrap();
    }
    settle(&mut g, &mut script).unwrap();
    assert_eq!(g.to_act(), ToAct::Terminal);
    let shown: Vec<(Seat, Kind, Vec<u8>)> = g
        .log
        .iter()
        .filter_map(|e| match e {
            Entry::Shown { seat, hand } => Some((*seat, hand.kind, hand.ranks.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(shown.len(), 5, "every survivor shows");
    assert_eq!(shown[0], (0, Kind::StraightFlush, vec![9]));
    assert_eq!(shown[1], (1, Kind::StraightFlush, vec![9]));
    assert!(g.hands[&0].len() > 5 && g.hands[&1].len() > 5);
    let o = g.outcome().unwrap();
    assert_eq!(o.winners, vec![0, 1], "suits never break a tie");
    assert_eq!(o.payoffs.iter().map(|(_, p)| p).sum::<i64>(), 0);
    assert_eq!(o.payoffs[0], (0, 3));
    assert_eq!(o.payoffs[4], (4, -2));
    // Everyone sees every survivor's cards now.
    let v = g.view(None);
    assert!(v.hands.iter().all(|(_, h)| h.iter().all(Option::is_some)));
}

#[test]
fn the_best_five_of_a_large_hand_decide() {
    let k = |s: &str| {
        let r = best(&cs(s));
        (r.kind, r.ranks)
    };
    assert_eq!(k("2H 3H 4H 5H 6H KS KD"), (Kind::StraightFlush, vec![6]));
    assert_eq!(
        k("AS KS QS JS 9S 9D 9H"),
        (Kind::Flush, vec![14, 13, 12, 11, 9])
    );
    assert_eq!(k("QS QD QH 3C 3D 3H 2S"), (Kind::FullHouse, vec![12, 3]));
    assert_eq!(k("AH 2C 3D 4S 5H KD"), (Kind::Straight, vec![5]));
    assert_eq!(k("10H JC QD KS AH 9D"), (Kind::Straight, vec![14]));
    assert_eq!(k("7C 7D 7H 7S 2C KD 3H"), (Kind::FourOfAKind, vec![7, 13]));
    assert_eq!(k("KC KD 5H 5S 2C 2D AH"), (Kind::TwoPair, vec![13, 5, 14]));
    assert_eq!(k("KC KD"), (Kind::OnePair, vec![13]));
    assert_eq!(k("9C 9D 9H 2S"), (Kind::ThreeOfAKind, vec![9, 2]));
    assert_eq!(
        best(&cs("AS KS QS JS 10S 2D")).words(),
        "a royal flush (A♠ K♠ Q♠ J♠ 10♠)"
    );
    // Fewer than five cards: a missing kicker loses to any kicker.
    assert!(best(&cs("KH KC 2D")).beats(&best(&cs("KS KD"))).is_gt());
    // Equal best fives tie whatever the suits and the unused cards.
    assert!(best(&cs("AS KS QD JD 9C 2H"))
        .beats(&best(&cs("AH KH QC JC 9D 3S")))
        .is_eq());
    assert!(best(&cs("4C 4D"))
        .beats(&best(&cs("AS KD QH JC 9S")))
        .is_gt());
}

#[test]
fn sealed_marks_stay_hidden_until_all_are_in() {
    let mut g = LamarckianPoker::new(&Setup::new(3)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(5));
    while let ToAct::Chance(r) = g.to_act() {
        let o = fulfil_all(&mut oracle, &r).unwrap();
        g.apply_chance(&o).unwrap();
    }
    let before: Vec<_> = [None, Some(1), Some(2)].map(|v| g.view(v)).to_vec();
    let a = g.legal_actions(0)[1];
    g.apply(0, &a).unwrap();
    let after: Vec<_> = [None, Some(1), Some(2)].map(|v| g.view(v)).to_vec();
    assert_eq!(before, after, "nobody sees a mark, nor that one was made");
    assert_eq!(g.to_act(), ToAct::Sealed(vec![1, 2]));
    assert!(g.legal_actions(0).is_empty(), "one mark a turn");
    let a = g.legal_actions(1)[0];
    g.apply(1, &a).unwrap();
    let a = g.legal_actions(2)[0];
    g.apply(2, &a).unwrap();
    // Now every mark still face down is opened for everyone, in one batch.
    match g.to_act() {
        ToAct::Chance(r) => assert_eq!(r.len(), 3),
        other => panic!("expected the marks to be opened, not {other:?}"),
    }
}

#[test]
fn a_mark_must_be_ones_own_card_and_a_refusal_changes_nothing() {
    let mut g = LamarckianPoker::new(&Setup::new(2)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(6));
    while let ToAct::Chance(r) = g.to_act() {
        let o = fulfil_all(&mut oracle, &r).unwrap();
        g.apply_chance(&o).unwrap();
    }
    let other: Held = g.hands[&1][0];
    let copy = g.clone();
    assert!(g
        .apply(
            0,
            &Action::Mark {
                position: other.position
            }
        )
        .is_err());
    assert_eq!(g, copy);
}

#[test]
fn a_forfeit_ends_the_game_without_a_winner() {
    let mut g = LamarckianPoker::new(&Setup::new(3)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(7));
    while let ToAct::Chance(r) = g.to_act() {
        let o = fulfil_all(&mut oracle, &r).unwrap();
        g.apply_chance(&o).unwrap();
    }
    g.forfeit(&[1], ForfeitReason::Absent).unwrap();
    assert_eq!(g.to_act(), ToAct::Terminal);
    assert!(g.participants().is_empty());
    let o = g.outcome().unwrap();
    assert!(o.winners.is_empty());
    assert_eq!(o.payoffs, vec![(0, 1), (1, -2), (2, 1)]);
}

#[test]
fn the_capture_bot_beats_random() {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(9));
    let (mut won, mut lost) = (0, 0);
    for k in 0..300 {
        let mut g = LamarckianPoker::new(&Setup::new(2)).unwrap();
        let mut smart = CaptureBot::new(StdRng::seed_from_u64(k));
        let mut random = RandomBot::new(StdRng::seed_from_u64(k + 10_000));
        let (o, _) = play_out(&mut g, &mut oracle, 10_000, |g, seat, legal| {
            let view = g.view(Some(seat));
            if seat == 0 {
                smart.choose(&view, &legal)
            } else {
                Bot::<LamarckianPoker>::choose(&mut random, &view, &legal)
            }
        })
        .unwrap();
        if o.winners == vec![0] {
            won += 1;
        } else if o.winners == vec![1] {
            lost += 1;
        }
    }
    assert!(won > lost, "the capture bot won {won}, random {lost}");
}

/// Whole games with one seat (`k % players`, moving round the table) played by the capture bot
/// (`smart`) or by a random bot (`!smart`: the baseline), every other seat random. Returns the
/// games that seat won alone and those it shared, out of `games`.
fn seat_wins(players: u8, games: u64, seed: u64, smart: bool) -> (u64, u64, u64) {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed));
    let (mut alone, mut shared) = (0, 0);
    for k in 0..games {
        let me = (k % u64::from(players)) as Seat;
        let mut g = LamarckianPoker::new(&Setup::new(players)).unwrap();
        let mut capture = CaptureBot::new(StdRng::seed_from_u64(seed + k));
        let mut mine = RandomBot::new(StdRng::seed_from_u64(seed + k));
        let mut random = RandomBot::new(StdRng::seed_from_u64(seed + k + 100_000));
        let (o, _) = play_out(&mut g, &mut oracle, 10_000, |g, seat, legal| {
            let view = g.view(Some(seat));
            if seat == me && smart {
                capture.choose(&view, &legal)
            } else if seat == me {
                Bot::<LamarckianPoker>::choose(&mut mine, &view, &legal)
            } else {
                Bot::<LamarckianPoker>::choose(&mut random, &view, &legal)
            }
        })
        .unwrap();
        if o.winners == vec![me] {
            alone += 1;
        } else if o.winners.contains(&me) {
            shared += 1;
        }
    }
    (alone, shared, games)
}

/// The measured margin for BENCHMARKS.md:
/// `cargo test --release --lib games::lamarckian_poker::tests::measure_the_capture_bot -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_the_capture_bot() {
    let pct = |won: u64, n: u64| {
        let p = won as f64 / n as f64;
        (100.0 * p, 100.0 * 1.96 * (p * (1.0 - p) / n as f64).sqrt())
    };
    for players in [2, 3, 4] {
        for smart in [true, false] {
            let (alone, shared, n) = seat_wins(players, 1000, 77, smart);
            let (p, ci) = pct(alone, n);
            let (q, qci) = pct(alone + shared, n);
            println!(
                "{players} players, {} in the measured seat: won alone {alone} of {n} = {p:.1}% ± {ci:.1}%, \
                 won or shared {} = {q:.1}% ± {qci:.1}%",
                if smart { "capture bot" } else { "random" },
                alone + shared
            );
        }
    }
}

#[test]
fn the_panel_shows_the_pool_counts_captures_and_picks_the_mark_at_80_by_24() {
    use crate::games::ui::GameUi;
    use crate::games::ui::{Ctx, Outcome, Panel, Theme};
    use crossterm::event::{KeyCode, KeyEvent};
    // The rule book's turn (pool A♥ Q♣ 9♠ 5♥; marks A♠ 10♣ 9♥), seen by seat 1 at turn 2.
    let hands = [cs("AS 2D 3D 4D"), cs("10C 2H 3H 4H"), cs("9H 6D 7D 8D")];
    let mut script = Script::new(deal(&hands, &cs("AH QC 9S 5H KS KH KD KC")), vec![]);
    let mut g = LamarckianPoker::new(&Setup::new(3)).unwrap();
    settle(&mut g, &mut script).unwrap();
    mark(&mut g, 0, "AS");
    mark(&mut g, 1, "10C");
    mark(&mut g, 2, "9H");
    settle(&mut g, &mut script).unwrap();
    let mut p = ui::panel::LamarckianPanel::default();
    p.ask(&g.view(Some(1)), &g.legal_actions(1));
    let names = vec!["Ann".to_string(), "Bob".to_string(), "Cy".to_string()];
    let name = |s: Seat| {
        if s == 1 {
            "you".into()
        } else {
            names[s as usize].clone()
        }
    };
    let story = g.story(Some(1), &name);
    let theme = Theme { color: false };
    let ctx = Ctx {
        theme: &theme,
        names: &names,
        me: Some(1),
        awaited: &[0, 1, 2],
        what: "move",
        secs_left: None,
        story: &story,
        asked: true,
    };
    let draw = |p: &ui::panel::LamarckianPanel| {
        crate::games::ui::panel::screen_80x24::<LamarckianPoker>(p, &ctx)
    };
    let screen = draw(&p);
    for want in [
        "pool     K♠ K♥ K♦ K♣",
        "deck     32 left · 3 discarded (last A♠ 10♣ 9♥)",
        "▶ Ann               5 cards  face up A♥ 9♠",
        "▶ you               4 cards  your hand below",
        "▶ Cy                4 cards  face up 5♥",
        "2♥ 3♥ 4♥ Q♣",
        "seen by all: Q♣",
        "[Enter] mark 2♥",
    ] {
        assert!(screen.contains(want), "{want:?} missing from\n{screen}");
    }
    for hidden in ["2♦", "6♦"] {
        assert!(!screen.contains(hidden), "{hidden} shown:\n{screen}");
    }
    // A spectator's panel: counts and captures, no hand.
    let mut watching = ui::panel::LamarckianPanel::default();
    watching.see(&g.view(None));
    let seen = draw(&watching);
    assert!(seen.contains("face up A♥ 9♠"), "{seen}");
    for hidden in ["2♦", "2♥", "6♦", "your hand below", "[Enter]"] {
        assert!(
            !seen.contains(hidden),
            "{hidden} shown to a spectator:\n{seen}"
        );
    }
    // → moves to 3♥; Enter marks it.
    assert_eq!(p.key(KeyEvent::from(KeyCode::Right)), Outcome::None);
    assert!(p.help().contains("Enter: mark 3♥"), "{}", p.help());
    let three = g.hands[&1][1].position;
    assert_eq!(
        p.key(KeyEvent::from(KeyCode::Enter)),
        Outcome::Play(Action::Mark { position: three })
    );
    assert_eq!(
        p.key(KeyEvent::from(KeyCode::Enter)),
        Outcome::None,
        "asked once"
    );
}
