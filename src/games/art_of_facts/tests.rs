use super::bot::CountingBot;
use super::game::{first_ante, grown, Entry};
use super::*;
use crate::bots::{Bot, RandomBot};
use crate::engine::sim::{play_out, simulate, Oracle, SimOptions};
use crate::engine::{ForfeitReason, Game, Seat, ToAct};
use rand::{rngs::StdRng, SeedableRng};

fn setup(players: u8, hands: Option<u32>) -> Setup {
    Setup {
        hands,
        ..Setup::new(players)
    }
}

#[test]
fn random_tables_pass_the_generic_simulation() {
    let mut rng = StdRng::seed_from_u64(11);
    for players in 2..=8 {
        for hands in [Some(3), None] {
            let g = ArtOfFacts::new(&setup(players, hands)).unwrap();
            let opts = SimOptions {
                check_moves: players <= 4,
                ..SimOptions::default()
            };
            for _ in 0..3 {
                simulate(&g, &mut rng, &opts).unwrap();
            }
        }
    }
}

#[test]
fn the_ante_is_a_fifth_of_the_stash_and_grows_a_tenth_each_rotation_rounded_up() {
    assert_eq!(first_ante(1000, 20), 200);
    assert_eq!(first_ante(999, 20), 200);
    assert_eq!(grown(200, 10), 220);
    assert_eq!(grown(220, 10), 242);
    assert_eq!(grown(242, 10), 267);
    // Three players, one of whom is out after the first hand: the rotation is over once the two
    // left have both dealt.
    let mut g = ArtOfFacts::new(&setup(3, Some(6))).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(4));
    let mut antes = Vec::new();
    let (o, _) = play_out(&mut g, &mut oracle, 10_000, |_, _, legal| legal[0].clone()).unwrap();
    for e in &g.log {
        if let Entry::Ante { ante, rotation, .. } = e {
            antes.push((*rotation, *ante));
        }
    }
    assert!(!o.winners.is_empty());
    for w in antes.windows(2) {
        let ((r0, a0), (r1, a1)) = (w[0], w[1]);
        if r1 == r0 {
            assert_eq!(a1, a0, "one ante per rotation: {antes:?}");
        } else {
            assert_eq!((r1, a1), (r0 + 1, grown(a0, 10)), "{antes:?}");
        }
    }
}

#[test]
fn a_player_short_of_the_ante_puts_in_what_it_has_and_is_out_at_zero() {
    let mut g = ArtOfFacts::new(&setup(2, None)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(8));
    let (o, _) = play_out(&mut g, &mut oracle, 100_000, |g, seat, legal| {
        // Seat 1 always declares its worst value: it loses everything in the end.
        let _ = g;
        if seat == 1 {
            legal.last().unwrap().clone()
        } else {
            legal[0].clone()
        }
    })
    .unwrap();
    assert_eq!(
        g.active.len(),
        1,
        "the game runs until one player holds every chip"
    );
    assert_eq!(o.winners, g.active);
    assert!(g.log.iter().any(|e| matches!(e, Entry::Out { .. })));
    let total: u64 = g.banks.values().sum();
    assert_eq!(total, 2000);
}

#[test]
fn the_face_down_card_stays_unseen_unless_swapped_and_the_replaced_card_is_never_shown() {
    let mut g = ArtOfFacts::new(&setup(3, Some(1))).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(5));
    loop {
        match g.to_act() {
            ToAct::Chance(r) => {
                let o = crate::engine::sim::fulfil_all(&mut oracle, &r).unwrap();
                g.apply_chance(&o).unwrap();
            }
            ToAct::Seat(s) => {
                let v = g.view(Some(s));
                let a = if v.phase == (Phase::Swap { turn: 0 }) {
                    Action::Swap { slot: 1 }
                } else {
                    g.legal_actions(s)[0].clone()
                };
                g.apply(s, &a).unwrap();
            }
            _ => break,
        }
        if g.declared.len() == 1 {
            break;
        }
    }
    let dealer = g.dealer.unwrap();
    let other = g.order[1];
    let v = g.view(Some(other));
    // The dealer's hand is shown with its face-down card in slot 2; the other's is its own.
    let d = v.player(dealer).unwrap();
    assert!(d.cards.iter().all(Option::is_some));
    assert_eq!(d.swapped, Some(1));
    assert!(!d.face_down);
    let spectator = g.view(None);
    assert!(spectator
        .player(other)
        .unwrap()
        .cards
        .iter()
        .all(Option::is_none));
    assert!(spectator.player(other).unwrap().face_down);
    // Only three of the dealer's four cards were ever opened.
    assert_eq!(
        g.log
            .iter()
            .filter(|e| matches!(e, Entry::Shown { seat, .. } if *seat == dealer))
            .count(),
        1
    );
}

#[test]
fn a_forfeit_mid_hand_gives_back_the_antes_and_shares_the_leaver_s() {
    let mut g = ArtOfFacts::new(&setup(3, None)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(6));
    while !matches!(g.to_act(), ToAct::Seat(_)) {
        let ToAct::Chance(r) = g.to_act() else {
            unreachable!()
        };
        let o = crate::engine::sim::fulfil_all(&mut oracle, &r).unwrap();
        g.apply_chance(&o).unwrap();
    }
    assert_eq!(g.pot, 600);
    let leaver: Seat = g.order[2];
    g.forfeit(&[leaver], ForfeitReason::Withheld).unwrap();
    assert_eq!(g.removed, vec![leaver]);
    assert!(!g.active.contains(&leaver));
    // The two who stay got their 200 back and 100 each of the leaver's; a new hand antes again.
    let stays: Vec<Seat> = g.active.clone();
    g.check_invariants().unwrap();
    assert_eq!(g.pot, 400);
    for s in stays {
        assert_eq!(g.banks[&s], 1100 - 200);
    }
    assert_eq!(g.banks[&leaver], 800);
}

/// The counting bot against random players, seat by seat: its chip margin over many tables.
#[test]
fn the_counting_bot_beats_random_players() {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(21));
    let games = 300;
    let mut margin = 0i64;
    let mut wins = 0;
    for k in 0..games {
        let mut g = ArtOfFacts::new(&setup(3, Some(6))).unwrap();
        let bot_seat = (k % 3) as Seat;
        let mut smart = CountingBot::new(StdRng::seed_from_u64(k));
        let mut random = RandomBot::new(StdRng::seed_from_u64(k + 50_000));
        let (o, _) = play_out(&mut g, &mut oracle, 100_000, |g, seat, legal| {
            let view = g.view(Some(seat));
            if seat == bot_seat {
                smart.choose(&view, &legal)
            } else {
                Bot::<ArtOfFacts>::choose(&mut random, &view, &legal)
            }
        })
        .unwrap();
        margin += o.payoffs.iter().find(|(s, _)| *s == bot_seat).unwrap().1;
        wins += usize::from(o.winners.contains(&bot_seat));
    }
    eprintln!(
        "counting bot vs two random players: {margin} chips over {games} tables, {wins} wins"
    );
    assert!(margin > 0, "{margin}");
    assert!(wins * 3 > games as usize, "{wins} wins of {games}");
}

/// Keeps its cards and declares its highest value: the plain play the counting bot must beat.
struct Plain;

impl Bot<ArtOfFacts> for Plain {
    fn choose(&mut self, view: &ArtView, legal: &[Action]) -> Action {
        let me = view.viewer.expect("seated");
        let cards = super::deck::Cards(view.deck.clone());
        let mut taken = Vec::new();
        for c in view.player(me).unwrap().cards.iter().flatten() {
            taken.push(cards.find(&c.name(), &taken).unwrap());
        }
        legal
            .iter()
            .max_by_key(|a| match a {
                Action::Keep => i64::MAX,
                Action::Declare(d) => super::value::value(&cards, &taken, d).unwrap_or(i64::MIN),
                _ => i64::MIN,
            })
            .unwrap()
            .clone()
    }
    fn name(&self) -> &str {
        "plain"
    }
}

/// The counting bot's swaps and dealer ties against players who keep and declare their best.
#[test]
fn the_counting_bot_beats_plain_play() {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(22));
    let games = 400;
    let mut margin = 0i64;
    let mut wins = 0;
    for k in 0..games {
        let mut g = ArtOfFacts::new(&setup(3, Some(6))).unwrap();
        let bot_seat = (k % 3) as Seat;
        let mut smart = CountingBot::new(StdRng::seed_from_u64(k));
        let (o, _) = play_out(&mut g, &mut oracle, 100_000, |g, seat, legal| {
            let view = g.view(Some(seat));
            if seat == bot_seat {
                smart.choose(&view, &legal)
            } else {
                Plain.choose(&view, &legal)
            }
        })
        .unwrap();
        margin += o.payoffs.iter().find(|(s, _)| *s == bot_seat).unwrap().1;
        wins += usize::from(o.winners.contains(&bot_seat));
    }
    eprintln!("counting bot vs two plain players: {margin} chips over {games} tables, {wins} wins");
    assert!(margin > 0, "{margin}");
}

#[test]
fn the_drawing_shows_the_viewer_its_own_cards_by_name_and_the_others_backs() {
    use crate::games::ui::drawing::Piece;
    use crate::games::ui::GameUi;
    let mut g = ArtOfFacts::new(&setup(3, Some(3))).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(6));
    crate::engine::sim::settle(&mut g, &mut oracle).unwrap();
    assert!(matches!(g.phase, Phase::Swap { .. }), "{:?}", g.phase);
    let names = |s: Seat| {
        if s == 2 {
            "you".to_string()
        } else {
            format!("P{s}")
        }
    };
    let v = g.view(Some(2));
    let d = ArtOfFacts::drawing(&v, &names).unwrap();
    assert!(d.title.starts_with("hand 1 of 3 · ante "), "{}", d.title);
    let own: Vec<Piece> = v.players[2]
        .cards
        .iter()
        .map(|c| Piece::named(c.as_ref().unwrap().name()))
        .chain([Piece::CardBack])
        .collect();
    let you = d.spots.iter().find(|s| s.you).unwrap();
    assert_eq!(you.pieces, own);
    assert!(you
        .notes
        .contains(&"the last card is face down".to_string()));
    for other in d.spots.iter().filter(|s| !s.you) {
        assert_eq!(other.pieces, vec![Piece::CardBack; 4], "{}", other.name);
    }
}
