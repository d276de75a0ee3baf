use super::data::Data;
use super::game::Slot;
use super::*;
use crate::bots::{Bot, RandomBot};
use crate::cards::CardId;
use crate::engine::sim::settle;
use crate::engine::sim::{fulfil_all, play_out, simulate, Oracle, SimOptions};
use crate::engine::{ChanceOutcome, Game, Seat, ToAct};
use rand::{rngs::StdRng, SeedableRng};
use std::collections::BTreeSet;

fn setups(players: u8) -> Vec<Setup> {
    let mut v = Vec::new();
    for name in entry::VARIANTS {
        v.push(entry::builtin(name, players).unwrap());
    }
    v
}

#[test]
fn random_games_pass_the_generic_simulation_at_three_four_and_five() {
    let mut rng = StdRng::seed_from_u64(5);
    for players in 3..=5 {
        for setup in setups(players) {
            let g = Reformation::new(&setup).unwrap();
            for _ in 0..2 {
                simulate(&g, &mut rng, &SimOptions::default())
                    .unwrap_or_else(|e| panic!("{} at {players}: {e}", setup.variant));
            }
        }
    }
}

/// Many whole games with only the invariants checked (every slot in one place, tallies in
/// range), every variant and table size.
#[test]
fn hundreds_of_random_games_keep_every_card_in_one_place() {
    let light = SimOptions {
        check_views: false,
        check_serde: false,
        check_moves: false,
        forfeit_every: None,
        ..SimOptions::default()
    };
    let mut rng = StdRng::seed_from_u64(11);
    let mut games = 0;
    for players in 3..=5 {
        for setup in setups(players) {
            let g = Reformation::new(&setup).unwrap();
            for _ in 0..12 {
                let r = simulate(&g, &mut rng, &light).unwrap();
                assert!(r.outcome.is_some());
                games += 1;
            }
        }
    }
    assert_eq!(games, 3 * 6 * 12);
}

/// Every card id a view shows, wherever it shows it.
fn visible(v: &ReformView) -> BTreeSet<CardId> {
    let mut s = BTreeSet::new();
    s.extend(v.hand.iter().filter_map(|(_, c)| *c));
    s.extend(v.trick.iter().filter_map(|c| c.card));
    if let Some(c) = &v.choice {
        s.insert(c.card);
        s.extend(c.options.iter().map(|o| o.1));
    }
    for p in &v.players {
        for pl in &p.piles {
            s.extend(pl.top.iter().map(|t| t.card));
            s.extend(pl.cards.iter().map(|t| t.card));
        }
    }
    s
}

/// § What each seat sees: below the top of a pile, a card is its owner's to look at until the
/// reign is scored; no view (a spectator's, another player's) shows it, by any field.
#[test]
fn spectators_never_see_a_card_below_a_piles_top_before_scoring() {
    let mut rng = StdRng::seed_from_u64(21);
    let mut checked = 0;
    for players in 3..=5 {
        for setup in setups(players).into_iter().take(3) {
            let mut g = Reformation::new(&setup).unwrap();
            let mut oracle = Oracle::new(StdRng::seed_from_u64(u64::from(players) * 7));
            let mut hidden_seen = 0;
            loop {
                settle(&mut g, &mut oracle).unwrap();
                if g.is_terminal() {
                    break;
                }
                let viewers: Vec<Option<Seat>> = std::iter::once(None)
                    .chain(g.table().into_iter().map(Some))
                    .collect();
                for viewer in viewers {
                    let v = g.view(viewer);
                    let seen = visible(&v);
                    for (owner, p) in &g.players {
                        if Some(*owner) == viewer {
                            continue;
                        }
                        for pile in p.tableau.living.iter().chain(&p.tableau.dead) {
                            let below = pile.len().saturating_sub(1);
                            for c in &pile[..below] {
                                if g.shown {
                                    assert!(seen.contains(&c.card), "scoring shows every card");
                                } else {
                                    hidden_seen += 1;
                                    assert!(
                                        !seen.contains(&c.card),
                                        "viewer {viewer:?} sees {} below the top of seat \
                                         {owner}'s pile",
                                        c.card.0
                                    );
                                }
                            }
                        }
                    }
                    checked += 1;
                }
                let seat = match g.to_act() {
                    ToAct::Seat(s) => s,
                    ToAct::Sealed(v) => v[0],
                    _ => unreachable!(),
                };
                let legal = g.legal_actions(seat);
                let a = legal[rand::Rng::gen_range(&mut rng, 0..legal.len())];
                g.apply(seat, &a).unwrap();
            }
            assert!(
                hidden_seen > 100,
                "piles grew beneath their tops: {hidden_seen}"
            );
        }
    }
    assert!(checked > 1000);
}

/// A bot of each kind in seat `seat`, random bots elsewhere; whole games. Returns the games the
/// measured seat won alone and shared.
fn seat_wins(players: u8, games: u64, seed: u64, smart: bool) -> (u64, u64) {
    let mut oracle = Oracle::new(StdRng::seed_from_u64(seed));
    let (mut alone, mut shared) = (0, 0);
    for k in 0..games {
        let measured = (k % u64::from(players)) as Seat;
        let mut g = Reformation::new(&Setup::new(players)).unwrap();
        let mut bot = ReformBot::new(StdRng::seed_from_u64(seed + k));
        let mut rnd = RandomBot::new(StdRng::seed_from_u64(seed + k + 1_000_000));
        let (outcome, _) = play_out(&mut g, &mut oracle, 100_000, |g, seat, legal| {
            let view = g.view(Some(seat));
            if seat == measured && smart {
                bot.choose(&view, &legal)
            } else {
                Bot::<Reformation>::choose(&mut rnd, &view, &legal)
            }
        })
        .unwrap();
        if outcome.winners == vec![measured] {
            alone += 1;
        } else if outcome.winners.contains(&measured) {
            shared += 1;
        }
    }
    (alone, shared)
}

#[test]
fn the_bot_beats_random() {
    // An even share is a third of 300 games; the bot's measured rate is far above it
    // (BENCHMARKS.md), so this margin does not flake.
    let (alone, shared) = seat_wins(3, 300, 17, true);
    assert!(
        alone + shared > 150,
        "the bot won {alone} (+{shared} shared) of 300"
    );
}

/// The figures of BENCHMARKS.md: `cargo test --release --lib
/// games::reformation::tests::measure_the_bot -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_the_bot() {
    let pct = |won: u64, n: u64| {
        let p = won as f64 / n as f64;
        (100.0 * p, 100.0 * 1.96 * (p * (1.0 - p) / n as f64).sqrt())
    };
    for players in [3, 4, 5] {
        for smart in [true, false] {
            let n = 1000;
            let (alone, shared) = seat_wins(players, n, 77, smart);
            let (p, ci) = pct(alone + shared, n);
            println!(
                "{players} players, {} in the measured seat: won {alone} alone and {shared} \
                 shared of {n} = {p:.1}% ± {ci:.1}%",
                if smart { "the bot" } else { "random" }
            );
        }
    }
}

/// Plays to the first decision of `seat` in the play phase with every earlier move the first
/// legal one.
fn to_play(g: &mut Reformation, oracle: &mut Oracle<StdRng>) -> Seat {
    loop {
        settle(g, oracle).unwrap();
        match g.to_act() {
            ToAct::Seat(s) if g.phase == Phase::Play => return s,
            ToAct::Seat(s) => {
                let a = g.legal_actions(s)[0];
                g.apply(s, &a).unwrap();
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_timeout_shows_the_hand_and_plays_its_lowest_legal_card() {
    let mut g = Reformation::new(&Setup::new(3)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(3));
    let s = to_play(&mut g, &mut oracle);
    assert_eq!(g.timeout_action(s), Some(Action::Auto));
    assert!(!g.legal_actions(s).contains(&Action::Auto));
    let legal: Vec<u16> = g
        .legal_actions(s)
        .iter()
        .filter_map(|a| match a {
            Action::Play { position, .. } => Some(*position),
            _ => None,
        })
        .collect();
    let before = g.held(s).len();
    g.apply(s, &Action::Auto).unwrap();
    match g.to_act() {
        ToAct::Chance(reqs) => {
            assert_eq!(reqs.len(), 2 * before, "every slot of the hand is shown")
        }
        other => panic!("{other:?}"),
    }
    settle(&mut g, &mut oracle).unwrap();
    let played = g
        .log
        .iter()
        .find_map(|e| match e {
            Entry::Played {
                seat,
                card,
                auto: true,
                ..
            } if *seat == s => Some(*card),
            _ => None,
        })
        .expect("the timeout played a card");
    let slot = g.hands[&s]
        .iter()
        .find(|x| x.played && x.card(g.monarch()) == Some(played))
        .unwrap();
    assert!(legal.contains(&slot.position), "the card played was legal");
    // Everyone now knows the rest of that hand: a second timeout needs nothing shown.
    assert!(g.hands[&s].iter().filter(|x| !x.played).all(|x| x.shown));
    loop {
        let next = to_play(&mut g, &mut oracle);
        if next == s {
            break;
        }
        let a = g.legal_actions(next)[0];
        g.apply(next, &a).unwrap();
    }
    let held = g.held(s).len();
    g.apply(s, &Action::Auto).unwrap();
    assert_eq!(g.held(s).len(), held - 1);
    assert!(
        !matches!(g.to_act(), ToAct::Chance(reqs) if reqs.iter().any(|r| matches!(r, crate::engine::ChanceRequest::Reveal { .. })))
    );
}

/// A client that cannot see a hand accepts any card of it and checks it when shown: a card
/// of a suit its player showed it had none of is a revoke, and the player is removed.
#[test]
fn a_revoke_is_caught_when_the_card_is_shown_and_removes_the_player() {
    let setup = Setup::new(3);
    let mut rng = StdRng::seed_from_u64(8);
    for _ in 0..200 {
        let mut god = Reformation::new(&setup).unwrap();
        let mut spectator = god.clone();
        let mut oracle = Oracle::new(StdRng::seed_from_u64(rand::Rng::gen(&mut rng)));
        // Play until a follower holds the suit led and a card of another suit.
        let found = loop {
            match god.to_act() {
                ToAct::Chance(reqs) => {
                    let outs = fulfil_all(&mut oracle, &reqs).unwrap();
                    let masked: Vec<ChanceOutcome> = outs
                        .iter()
                        .zip(&reqs)
                        .map(|(o, r)| o.mask_for(r, None))
                        .collect();
                    god.apply_chance(&outs).unwrap();
                    spectator.apply_chance(&masked).unwrap();
                }
                ToAct::Terminal => break None,
                ToAct::Seat(s) => {
                    if god.phase == Phase::Play {
                        if let Some(led) = god.led() {
                            let data = Data::builtin();
                            let held = god.held(s);
                            let suit = |c: CardId| data.cards[usize::from(c.0)].suit;
                            let has_led = held.iter().any(|(_, c)| suit(c.unwrap()) == led);
                            let off = held.iter().find(|(_, c)| {
                                let x = suit(c.unwrap());
                                x != led && x != data::Suit::Wild
                            });
                            if let (true, Some((p, _))) = (has_led, off) {
                                break Some((s, *p, led));
                            }
                        }
                    }
                    let a = god.legal_actions(s)[0];
                    god.apply(s, &a).unwrap();
                    spectator.apply(s, &a).unwrap();
                }
                ToAct::Sealed(_) => unreachable!(),
            }
        };
        let Some((cheat, position, led)) = found else {
            continue;
        };
        let bad = Action::Play {
            position,
            declare: None,
        };
        // The cheat's own client (the full state) refuses; a client that cannot see accepts.
        assert!(god.clone().apply(cheat, &bad).is_err());
        spectator.apply(cheat, &bad).unwrap();
        // The cheat's client would tell the truth when its card is shown; play on, with the
        // cheat's own cards known, until it shows the suit it claimed to lack.
        let mut oracle2 = oracle.clone();
        let reqs = match spectator.to_act() {
            ToAct::Chance(r) => r,
            other => panic!("{other:?}"),
        };
        let outs = fulfil_all(&mut oracle2, &reqs).unwrap();
        spectator.apply_chance(&outs).unwrap();
        assert!(
            spectator.voids[&cheat].contains(&led),
            "the off-suit card shows a void"
        );
        // Its next card of the suit led is a revoke: find it in the oracle's deck and play it.
        let led_card = god
            .held(cheat)
            .into_iter()
            .find(|(p, c)| {
                *p != position && Data::builtin().cards[usize::from(c.unwrap().0)].suit == led
            })
            .map(|(p, _)| p)
            .unwrap();
        let mut steps = 0;
        while spectator.phase != Phase::Done && steps < 200 {
            steps += 1;
            match spectator.to_act() {
                ToAct::Chance(r) => {
                    let outs = fulfil_all(&mut oracle2, &r).unwrap();
                    spectator.apply_chance(&outs).unwrap();
                }
                ToAct::Seat(s) if s == cheat && spectator.phase == Phase::Play => {
                    spectator
                        .apply(
                            s,
                            &Action::Play {
                                position: led_card,
                                declare: None,
                            },
                        )
                        .unwrap();
                }
                ToAct::Seat(s) => {
                    // Others' moves as their clients would make them (the spectator cannot
                    // list them): the timeout move plays a legal card from a shown hand.
                    let a = spectator
                        .legal_actions(s)
                        .first()
                        .copied()
                        .unwrap_or(Action::Auto);
                    spectator.apply(s, &a).unwrap();
                }
                _ => break,
            }
        }
        assert_eq!(spectator.phase, Phase::Done);
        assert_eq!(spectator.removed, vec![cheat]);
        assert!(spectator
            .log
            .iter()
            .any(|e| matches!(e, Entry::Misplayed { seat, why, .. } if *seat == cheat && why.contains("did not follow"))));
        assert_eq!(spectator.outcome().unwrap().winners, Vec::<Seat>::new());
        return;
    }
    panic!("no game gave a chance to revoke");
}

#[test]
fn a_forfeit_ends_the_game_without_a_winner() {
    let mut g = Reformation::new(&Setup::new(4)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(4));
    let s = to_play(&mut g, &mut oracle);
    g.forfeit(&[s], crate::engine::ForfeitReason::Absent)
        .unwrap();
    assert!(g.is_terminal());
    let o = g.outcome().unwrap();
    assert!(o.winners.is_empty());
    assert_eq!(o.payoffs.iter().map(|p| p.1).sum::<i64>(), 0);
    assert!(o.payoffs.iter().any(|(x, p)| *x == s && *p < 0));
    assert!(g.participants().is_empty());
}

#[test]
fn setups_and_variant_files_are_checked_in_words() {
    use crate::games::registry::{SetupOptions, TableGame};
    let opts = |players, variant: Option<&str>, text: Option<&str>, hands| SetupOptions {
        players,
        hands,
        variant: variant.map(str::to_string),
        variant_text: text.map(|t| ("my.toml".to_string(), t.to_string())),
    };
    let e = Reformation::setup(&opts(6, None, None, None)).unwrap_err();
    assert!(e.contains("3 to 5 players"), "{e}");
    let e = Reformation::setup(&opts(4, Some("chess"), None, None)).unwrap_err();
    assert!(e.contains("hidden-agendas"), "{e}");
    let e = Reformation::setup(&opts(4, None, None, Some(4))).unwrap_err();
    assert!(e.contains("1 to 3"), "{e}");
    let e = Reformation::setup(&opts(
        4,
        None,
        Some("[table]\nroles = \"bertram\"\nhidden_agendas = true"),
        None,
    ))
    .unwrap_err();
    assert!(e.contains("Hidden Agendas"), "{e}");
    let e = Reformation::setup(&opts(4, None, Some("[rules]\nstart_money = 5"), None)).unwrap_err();
    assert!(
        e.starts_with("my.toml: ") && e.contains("missing field"),
        "{e}"
    );
    // A corrected card travels with the table.
    let mut cards = Data::builtin().cards.clone();
    cards[7].money = 2;
    let text = toml::to_string(&data::VariantFile {
        name: Some("the author's knight".into()),
        cards: Some(cards.clone()),
        ..data::VariantFile::default()
    })
    .unwrap();
    let s = Reformation::setup(&opts(4, None, Some(&text), Some(2))).unwrap();
    assert_eq!(s.rounds, 2);
    assert_eq!(s.variant, "the author's knight");
    assert_eq!(s.data.as_ref().unwrap().cards, cards);
    let g = Reformation::new(&s).unwrap();
    assert_eq!(g.data().cards[7].money, 2);
    // The announced setup reads back the same and stays far under an event's 64 KiB.
    let json = serde_json::to_string(&s).unwrap();
    eprintln!(
        "a setup carrying the whole data: {} bytes of JSON",
        json.len()
    );
    assert!(json.len() < 40_000, "{}", json.len());
    assert_eq!(serde_json::from_str::<Setup>(&json).unwrap(), s);
    for v in entry::VARIANTS {
        Reformation::setup(&opts(5, Some(v), None, None)).unwrap();
    }
}

#[test]
fn the_panel_shows_piles_trick_and_hand_at_80_by_24() {
    use crate::games::ui::GameUi;
    use crate::games::ui::{Ctx, Panel, Theme};
    use ratatui::{backend::TestBackend, Terminal};
    for players in [3u8, 5] {
        let mut g = Reformation::new(&Setup::new(players)).unwrap();
        let mut oracle = Oracle::new(StdRng::seed_from_u64(12));
        // Well into the first reign: some tricks on the boards, a trick under way.
        let mut plays = 0;
        let me = loop {
            let s = to_play(&mut g, &mut oracle);
            if plays > 3 * usize::from(players) {
                break s;
            }
            let a = g.legal_actions(s)[0];
            g.apply(s, &a).unwrap();
            plays += 1;
        };
        let mut p = ui::panel::ReformPanel::default();
        p.ask(&g.view(Some(me)), &g.legal_actions(me));
        let names: Vec<String> = ["Ana", "Bo", "Cy", "Di", "Ed"][..usize::from(players)]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let name = |s: Seat| {
            if s == me {
                "you".to_string()
            } else {
                names[usize::from(s)].clone()
            }
        };
        let story = g.story(Some(me), &name);
        let theme = Theme { color: false };
        let ctx = Ctx {
            theme: &theme,
            names: &names,
            me: Some(me),
            awaited: &[me],
            what: "move",
            secs_left: None,
            story: &story,
            asked: true,
        };
        let mut term = Terminal::new(TestBackend::new(80, 21)).unwrap();
        term.draw(|f| p.draw(f, f.area(), &ctx)).unwrap();
        let screen: String = term
            .backend()
            .buffer()
            .content()
            .chunks(80)
            .map(|row| row.iter().map(|c| c.symbol()).collect::<String>() + "\n")
            .collect();
        assert!(screen.contains("Reign 1/3 · Mary I · Catholic"), "{screen}");
        assert!(screen.contains("trick ("), "{screen}");
        assert!(screen.contains("living"), "{screen}");
        assert!(screen.contains("Your move"), "{screen}");
        assert!(screen.contains("Enter"), "{screen}");
        for n in &names {
            if *n != names[usize::from(me)] {
                assert!(screen.contains(n.as_str()), "{n} missing:\n{screen}");
            }
        }
        // The card under the cursor is told in full (suit code, name, money, piety).
        assert!(screen.contains(" · money "), "{screen}");
        eprintln!("{screen}");
    }
}

/// "you play", "Ana plays": the story agrees with its subject.
#[test]
fn the_story_says_you_play_and_ana_plays() {
    use crate::games::ui::GameUi;
    let mut g = Reformation::new(&Setup::new(3)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(2));
    let mut rng = StdRng::seed_from_u64(2);
    play_out(&mut g, &mut oracle, 100_000, |_, _, legal| {
        legal[rand::Rng::gen_range(&mut rng, 0..legal.len())]
    })
    .unwrap();
    let name = |s: Seat| {
        if s == 0 {
            "you".to_string()
        } else {
            ["", "Ana", "Bo"][usize::from(s)].to_string()
        }
    };
    let story = g.story(Some(0), &name);
    let text = story.join("\n");
    for bad in [
        "you plays",
        "you wins",
        "you leads",
        "you collects",
        "you gains",
        "you chooses",
        "you has",
        "you scores",
        "you falls",
        "you earns",
        "you pays",
        "you loses",
        "you repays",
        "you takes",
        "Ana play ",
        "Ana win ",
    ] {
        assert!(!text.contains(bad), "'{bad}' in:\n{text}");
    }
    assert!(text.contains("you ") && text.contains("Ana "), "{text}");
    assert!(!text.contains("Some(") && !text.contains("None"), "{text}");
}

/// Slot cards: a known Monarch slot names the Monarch whatever its Suit card.
#[test]
fn a_slot_holding_the_monarch_is_the_monarch() {
    let slot = Slot {
        position: 3,
        suit_card: Some(CardId(5)),
        slot_card: Some(CardId(0)),
        played: false,
        shown: false,
    };
    assert_eq!(slot.card(CardId(70)), Some(CardId(70)));
    let other = Slot {
        slot_card: Some(CardId(4)),
        ..slot
    };
    assert_eq!(other.card(CardId(70)), Some(CardId(5)));
}

/// A trick of these cards (by name), played by seats 0, 1, … in reign `round`, each declared as
/// given (Wild cards).
fn trick(round: u8, cards: &[(&str, Option<data::Suit>)]) -> Vec<effects::TrickCard> {
    let d = Data::builtin();
    cards
        .iter()
        .enumerate()
        .map(|(i, (name, declared))| {
            let c = d.find(name).unwrap_or_else(|| panic!("{name}"));
            effects::TrickCard {
                seat: i as Seat,
                position: i as u16,
                card: Some(CardId(c as u16)),
                declared: *declared,
                alive: true,
                faith: d.cards[c].religion.in_round(round),
                converted: false,
            }
        })
        .collect()
}

/// Resolves every effect in order, taking the first option of any choice.
fn resolve(round: u8, t: &mut [effects::TrickCard]) -> (effects::Gains, Vec<effects::Did>) {
    let d = Data::builtin();
    let mut gains = effects::Gains::default();
    let mut did = Vec::new();
    for i in effects::order(d, t) {
        if !t[i].alive {
            continue;
        }
        match effects::act(d, round, t, i, &mut gains) {
            effects::Acted::Done(v) => did.extend(v),
            effects::Acted::Choose { kind, options } => {
                did.push(effects::chosen(d, t, kind, options[0], &mut gains))
            }
        }
    }
    (gains, did)
}

#[test]
fn effects_follow_the_rule_book() {
    use data::Faith;
    use effects::{Did, Quiet};
    let d = Data::builtin();
    let id = |n: &str| CardId(d.find(n).unwrap() as u16);
    // Order: rank from 14 down; equal ranks Nobles, Clergy, Townsfolk, Peasants, Wild.
    let t = trick(
        1,
        &[
            ("Bailiff 10", Some(data::Suit::Nobles)),
            ("Earl Cecil", None),
            ("Preacher Gilbert", None),
            ("Innkeeper", None),
        ],
    );
    let names: Vec<String> = effects::order(d, &t)
        .into_iter()
        .map(|i| d.label(usize::from(t[i].card.unwrap().0)))
        .collect();
    assert_eq!(
        names,
        ["Earl Cecil", "Preacher Gilbert", "Innkeeper", "Bailiff 10"]
    );
    // A condemnation needs a lower piety: Father Highhall (5) against Preacher Lamb (6).
    let mut t = trick(1, &[("Father Highhall", None), ("Preacher Lamb", None)]);
    let (_, did) = resolve(1, &mut t);
    assert!(did.contains(&Did::Nothing {
        why: Quiet::NotLower
    }));
    assert!(t.iter().all(|c| c.alive));
    // The Lawyer taxes the monarch's religion: the prevailing cards under Mary (Catholic), the
    // cards of no religion under Elizabeth (the prevailing ones again), Protestants under James.
    for (round, want) in [(1, 2 + 1), (2, 2 + 1), (3, 2 + 1)] {
        let mut t = trick(round, &[("Lawyer", None), ("Executioner", None)]);
        let (g, _) = resolve(round, &mut t);
        assert_eq!(g.money, want, "reign {round}");
    }
    let mut t = trick(2, &[("Lawyer", None), ("Francis II", None)]);
    assert_eq!(
        resolve(2, &mut t).0.money,
        2,
        "a Catholic is not Elizabeth's"
    );
    // The Satyr kills every other card tied for the highest rank, never itself.
    let mut t = trick(
        1,
        &[
            ("Mary I", Some(data::Suit::Nobles)),
            ("Henry of France", None),
            ("Satyr", Some(data::Suit::Clergy)),
        ],
    );
    resolve(1, &mut t);
    assert_eq!(
        t.iter().map(|c| c.alive).collect::<Vec<_>>(),
        [false, false, true]
    );
    // Equal ranks of the suit led: the card played first wins (Henry of France, led).
    let t = trick(
        1,
        &[
            ("Henry of France", None),
            ("Mary I", Some(data::Suit::Nobles)),
        ],
    );
    assert_eq!(effects::winner(d, &t), 0);
    // Preacher Lamb: a choice among the living cards with a religion.
    let mut t = trick(1, &[("Preacher Lamb", None), ("Cardinal Charles", None)]);
    let mut gains = effects::Gains::default();
    match effects::act(d, 1, &mut t, 0, &mut gains) {
        effects::Acted::Choose { options, .. } => assert_eq!(options, [0, 1]),
        other => panic!("{other:?}"),
    }
    let did = effects::chosen(d, &mut t, effects::ChoiceKind::Piety, 1, &mut gains);
    assert_eq!((gains.catholic, gains.protestant), (7, 0));
    assert!(matches!(did, Did::Piety { from, .. } if from == [id("Cardinal Charles")]));
    // A conversion overrules the prevailing religion.
    let mut t = trick(3, &[("Preacher Gilbert", None), ("Valiant Knight", None)]);
    resolve(3, &mut t);
    assert_eq!(t[1].faith, Some(Faith::Catholic));
    assert!(t[1].converted);
}

#[test]
fn the_drawing_shows_the_viewer_its_own_hand_by_name_and_the_others_backs() {
    use crate::games::ui::drawing::Piece;
    use crate::games::ui::GameUi;
    let mut g = Reformation::new(&Setup::new(3)).unwrap();
    let mut oracle = Oracle::new(StdRng::seed_from_u64(3));
    let s = to_play(&mut g, &mut oracle);
    let names = |x: Seat| {
        if x == s {
            "you".to_string()
        } else {
            format!("P{x}")
        }
    };
    let v = g.view(Some(s));
    let d = Reformation::drawing(&v, &names).unwrap();
    assert!(d.title.starts_with("reign 1 of "), "{}", d.title);
    let data = v.data();
    let own: Vec<Piece> = g
        .held(s)
        .iter()
        .map(|(_, c)| Piece::named(ui::words::card(data, c.unwrap())))
        .collect();
    assert!(!own.is_empty());
    let you = d.spots.iter().find(|x| x.you).unwrap();
    assert_eq!(you.name, "you");
    assert_eq!(you.pieces, own);
    for p in v.players.iter().filter(|p| p.seat != s) {
        let spot = d.spots.iter().find(|x| x.name == names(p.seat)).unwrap();
        assert_eq!(spot.pieces, vec![Piece::CardBack; p.hand]);
    }
}
