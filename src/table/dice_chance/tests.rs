use super::*;
use crate::bots::dice::{MiaBot, PerudoBot};
use crate::bots::Bot;
use crate::engine::{Game, ToAct};
use crate::games::{mia, perudo};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const TABLE: [u8; 32] = [7; 32];

fn actor(i: u16) -> [u8; 32] {
    [i as u8 + 1; 32]
}

/// Seats with their own secrets and replicas, a spectator, and the public transcript.
struct Table<G: Game> {
    clients: Vec<(DiceClient, G)>,
    spectator: (DiceClient, G),
    transcript: Vec<Public>,
    /// Private rolls planned so far: (roll, opened yet).
    private: Vec<Roll>,
}

impl<G: Game> Table<G> {
    fn new(game: &G, seed: u64) -> Table<G> {
        let seats = game.seats();
        let actors: Vec<[u8; 32]> = (0..seats.len() as u16).map(actor).collect();
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let clients: Vec<(DiceClient, G)> = (0..seats.len() as u16)
            .map(|i| {
                let ctx = DiceClient::context(TABLE, 1, i, actor(i));
                let secret = DiceSecret::generate(&mut rng, &ctx, SLOTS).unwrap();
                let c = DiceClient::new(TABLE, 1, seats.clone(), actors.clone(), Some((i, secret)));
                (c.unwrap(), game.clone())
            })
            .collect();
        let spectator = DiceClient::new(TABLE, 1, seats, actors, None).unwrap();
        let mut t = Table {
            clients,
            spectator: (spectator, game.clone()),
            transcript: Vec::new(),
            private: Vec::new(),
        };
        let commits: Vec<Public> = t.clients.iter().filter_map(|c| c.0.commit()).collect();
        for m in commits {
            t.broadcast(&m);
        }
        t
    }

    fn broadcast(&mut self, m: &Public) {
        for (c, _) in self.clients.iter_mut() {
            c.receive(m).unwrap();
        }
        self.spectator.0.receive(m).unwrap();
        self.transcript.push(m.clone());
    }

    /// Plays until the end or until `stop` says so before a move. `withhold(seat, request)`
    /// keeps a seat's reveal for that request off the wire.
    fn play(
        &mut self,
        bots: &mut [Box<dyn Bot<G>>],
        stop: impl Fn(&G::Action) -> bool,
        withhold: impl Fn(u16, &ChanceRequest) -> bool,
    ) -> Result<(), DiceError> {
        for _ in 0..100_000 {
            let to_act = self.clients[0].1.to_act();
            for (_, g) in self.clients.iter().chain([&self.spectator]) {
                assert_eq!(g.to_act(), to_act, "every client agrees on who acts");
            }
            match to_act {
                ToAct::Terminal => return Ok(()),
                ToAct::Chance(reqs) => {
                    let plan = self.spectator.0.plan(&reqs)?;
                    for (c, _) in &self.clients {
                        assert_eq!(c.plan(&reqs)?, plan, "every client plans the same slots");
                    }
                    self.private.extend(
                        plan.iter()
                            .filter(|p| matches!(p.request, ChanceRequest::RollPrivate { .. }))
                            .map(|p| p.roll),
                    );
                    let mut reveals = Vec::new();
                    for (c, _) in &self.clients {
                        for (m, p) in c.my_reveals(&plan).into_iter().zip(plan.iter().filter(|p| {
                            c.me.as_ref().is_some_and(|(i, _)| p.revealers.contains(i))
                        })) {
                            let Public::Reveal { seat, .. } = &m else {
                                unreachable!()
                            };
                            if !withhold(*seat, &p.request) {
                                reveals.push(m);
                            }
                        }
                    }
                    for m in &reveals {
                        self.broadcast(m);
                    }
                    for (c, g) in self.clients.iter_mut().chain([&mut self.spectator]) {
                        let outs = c.answer(&plan)?;
                        g.apply_chance(&outs).expect("fair outcomes fit the game");
                    }
                }
                ToAct::Seat(s) => {
                    let i = self.clients[0]
                        .1
                        .seats()
                        .iter()
                        .position(|x| *x == s)
                        .unwrap();
                    let own = &self.clients[i].1;
                    let action = bots[i].choose(&own.view(Some(s)), &own.legal_actions(s));
                    if stop(&action) {
                        return Ok(());
                    }
                    for (_, g) in self.clients.iter_mut().chain([&mut self.spectator]) {
                        g.apply(s, &action).unwrap();
                    }
                }
                ToAct::Sealed(_) => unreachable!("dice games have one actor"),
            }
        }
        panic!("no end");
    }

    fn outcomes(&self) -> Vec<Option<crate::engine::Outcome>> {
        self.clients
            .iter()
            .chain([&self.spectator])
            .map(|(_, g)| g.outcome())
            .collect()
    }
}

fn perudo_bots(n: usize) -> Vec<Box<dyn Bot<perudo::Perudo>>> {
    (0..n)
        .map(|i| Box::new(PerudoBot::new(StdRng::seed_from_u64(i as u64))) as Box<_>)
        .collect()
}

fn mia_bots(n: usize) -> Vec<Box<dyn Bot<mia::Mia>>> {
    (0..n)
        .map(|i| Box::new(MiaBot::new(StdRng::seed_from_u64(i as u64))) as Box<_>)
        .collect()
}

#[test]
fn four_seat_perudo_and_three_seat_mia_play_to_the_end_on_fair_dice() {
    for seed in 0..3 {
        let g = perudo::Perudo::new(&perudo::Setup::standard(4)).unwrap();
        let mut t = Table::new(&g, seed);
        t.play(&mut perudo_bots(4), |_| false, |_, _| false)
            .unwrap();
        let outs = t.outcomes();
        assert!(outs[0].is_some());
        assert!(outs.iter().all(|o| *o == outs[0]), "{outs:?}");
        // Every round ends with exactly one die lost from the 20.
        let end = &t.clients[0].1;
        assert_eq!(end.round as u16, 20 - end.total_dice());
        for ranking in [mia::Ranking::Traditional, mia::Ranking::Modern] {
            let g = mia::Mia::new(&mia::Setup::standard(3, ranking)).unwrap();
            let mut t = Table::new(&g, seed);
            t.play(&mut mia_bots(3), |_| false, |_, _| false).unwrap();
            let outs = t.outcomes();
            assert!(outs[0].is_some());
            assert!(outs.iter().all(|o| *o == outs[0]), "{outs:?}");
        }
    }
}

#[test]
fn a_spectator_can_compute_no_die_before_a_challenge() {
    let g = perudo::Perudo::new(&perudo::Setup::standard(4)).unwrap();
    let mut t = Table::new(&g, 9);
    t.play(
        &mut perudo_bots(4),
        |a| *a == perudo::Action::Dudo,
        |_, _| false,
    )
    .unwrap();
    assert_eq!(t.private.len(), 4, "the first round's four cups");
    for roll in &t.private {
        let owner = roll.owner.unwrap();
        // The owner's value for its own slot never went on the wire...
        for m in &t.transcript {
            if let Public::Reveal { seat, reveal } = m {
                assert!(
                    !(*seat == owner && reveal.slot == roll.slot),
                    "seat {owner}'s private slot was revealed"
                );
            }
        }
        // ...so the dice cannot be derived from everything public.
        let public = t.spectator.0.values_for(roll.slot);
        assert_eq!(public.len(), 3);
        assert_eq!(missing_seats(roll, &public), Vec::<u16>::new());
        assert!(open_private_roll(roll, &public).is_err());
        // The owner derives them; they are the dice in its own state only.
        let (c, g) = &t.clients[owner as usize];
        let (_, secret) = c.me.as_ref().unwrap();
        let others: Vec<VerifiedValue> = public
            .iter()
            .copied()
            .filter(|v| v.seat() != owner)
            .collect();
        let dice = private_roll(roll, secret, &others).unwrap();
        assert_eq!(g.players[owner as usize].dice.as_ref(), Some(&dice));
        for (j, (_, other)) in t.clients.iter().enumerate() {
            if j != owner as usize {
                assert_eq!(other.players[owner as usize].dice, None);
            }
        }
    }
    assert!(t
        .spectator
        .1
        .view(None)
        .players
        .iter()
        .all(|p| p.dice.is_none()));
    assert!(t.spectator.1.players.iter().all(|p| p.dice.is_none()));
}

#[test]
fn a_roller_who_refuses_to_open_is_named_for_the_forfeit() {
    let g = mia::Mia::new(&mia::Setup::standard(3, mia::Ranking::Traditional)).unwrap();
    let mut t = Table::new(&g, 4);
    let err = t
        .play(
            &mut mia_bots(3),
            |_| false,
            |_, r| matches!(r, ChanceRequest::OpenPrivate { .. }),
        )
        .unwrap_err();
    let roller = t.clients[0].1.cup.as_ref().unwrap().roller;
    assert_eq!(
        err,
        DiceError::Withheld {
            seats: vec![roller as u16]
        }
    );
    // A seat withholding its share of someone's private roll blocks it the same way.
    let g = perudo::Perudo::new(&perudo::Setup::standard(4)).unwrap();
    let mut t = Table::new(&g, 4);
    let err = t
        .play(
            &mut perudo_bots(4),
            |_| false,
            |seat, r| seat == 2 && matches!(r, ChanceRequest::RollPrivate { owner: 0, .. }),
        )
        .unwrap_err();
    assert_eq!(err, DiceError::Withheld { seats: vec![2] });
}

#[test]
fn a_forged_reveal_is_refused_naming_the_seat() {
    let g = mia::Mia::new(&mia::Setup::standard(3, mia::Ranking::Modern)).unwrap();
    let mut t = Table::new(&g, 5);
    let (_, secret) = t.clients[1].0.me.as_ref().unwrap();
    let mut reveal = secret.reveal(3).unwrap();
    reveal.value[0] ^= 1;
    let err = t
        .spectator
        .0
        .receive(&Public::Reveal { seat: 1, reveal })
        .unwrap_err();
    assert!(matches!(err, DiceError::Bad { seat: 1, .. }), "{err}");
    // Someone else's genuine reveal under seat 1's name fails too.
    let (_, other) = t.clients[2].0.me.as_ref().unwrap();
    let reveal = other.reveal(3).unwrap();
    assert!(t
        .spectator
        .0
        .receive(&Public::Reveal { seat: 1, reveal })
        .is_err());
}
