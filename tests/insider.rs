//! Insider through the real session and chance layer: every seat its own key, master secret and
//! session, signed events delivered to everyone and a spectator, time a number the test moves.
//! What each client learns (the word, the roles), what a cheating Master or a Common whose
//! mailbox was no decoy costs them, and the timer kept on the log's own time.

use nostr_sdk::prelude::{Event, Keys, PublicKey, SecretKey, Timestamp};
use tolerance::bots::{Bot, BotLevel};
use tolerance::engine::{Game, Seat};
use tolerance::games::insider::game::End;
use tolerance::games::insider::{Action, Insider, Phase, Role, Setup};
use tolerance::games::registry::TableGame;
use tolerance::table::session::{Session, SessionConfig, Turn, Verdict};
use tolerance::wire::log::{log_event, Body, Payload};
use tolerance::wire::Deadlines;
use zeroize::Zeroizing;

const START: u64 = 1_700_000_000;

type Tamper = Box<dyn FnMut(Seat, &mut Payload, &[Session<Insider>])>;
/// What a seat does at its turn: `None` lets its bot decide, `Some(None)` makes it wait.
type Decide = Box<dyn FnMut(Seat, &Turn<Insider>) -> Option<Option<Action>>>;

struct Table {
    keys: Vec<Keys>,
    host: PublicKey,
    seats: Vec<Session<Insider>>,
    spectator: Session<Insider>,
    bots: Vec<Box<dyn Bot<Insider>>>,
    log: Vec<Event>,
    seen: Vec<usize>,
    now: u64,
    tamper: Tamper,
    decide: Decide,
}

fn deadlines() -> Deadlines {
    Deadlines {
        move_ms: 15_000,
        crypto_ms: 20_000,
        bank_ms: 0,
        ..Deadlines::default()
    }
}

impl Table {
    fn new(players: u8, seed: u64) -> Table {
        let setup = Setup::new(players);
        let game = Insider::start(&setup, players).unwrap();
        let keys: Vec<Keys> = (0..players)
            .map(|i| {
                let mut b = [0u8; 32];
                b[0] = 1 + i;
                b[1..9].copy_from_slice(&seed.to_be_bytes());
                Keys::new(SecretKey::from_slice(&b).unwrap())
            })
            .collect();
        let cfg = SessionConfig {
            table: [seed as u8 ^ 0x5a; 32],
            seats: keys.iter().map(|k| k.public_key()).collect(),
            deadlines: deadlines(),
            start: START,
            pow: 0,
            version: tolerance::wire::VERSION,
        };
        let seats = (0..players)
            .map(|i| {
                let mut m = [0u8; 32];
                m[..8].copy_from_slice(&seed.to_be_bytes());
                m[8] = i;
                Session::new(cfg.clone(), game.clone(), Some((i, Zeroizing::new(m)))).unwrap()
            })
            .collect();
        use rand::SeedableRng;
        Table {
            host: keys[0].public_key(),
            seats,
            spectator: Session::new(cfg, game, None).unwrap(),
            bots: (0..players)
                .map(|i| {
                    Insider::bot(
                        BotLevel::Normal,
                        rand::rngs::StdRng::seed_from_u64(seed * 31 + u64::from(i)),
                    )
                })
                .collect(),
            keys,
            log: Vec::new(),
            seen: vec![0; usize::from(players) + 1],
            now: START,
            tamper: Box::new(|_, _, _| {}),
            decide: Box::new(|_, _| None),
        }
    }

    fn deliver(&mut self, client: usize) {
        while self.seen[client] < self.log.len() {
            let ev = self.log[self.seen[client]].clone();
            self.seen[client] += 1;
            if client < self.seats.len() {
                self.seats[client].handle(&ev);
            } else {
                self.spectator.handle(&ev);
            }
        }
    }

    /// Everyone takes in everything and does what it owes, until nothing changes. Each round
    /// of events is one second later in the log.
    fn settle(&mut self) {
        for _ in 0..20_000 {
            let before = self.log.len();
            for i in 0..self.seats.len() {
                self.deliver(i);
                if let Some(turn) = self.seats[i].my_turn() {
                    let a = match (self.decide)(i as Seat, &turn) {
                        None => Some(self.bots[i].choose(&turn.view, &turn.legal)),
                        Some(a) => a,
                    };
                    if let Some(a) = a {
                        self.seats[i].submit(&a).unwrap();
                    }
                }
                for mut p in self.seats[i].take_outbox() {
                    (self.tamper)(i as Seat, &mut p, &self.seats);
                    let ev = log_event(&self.host, &p)
                        .custom_created_at(Timestamp::from(self.now))
                        .sign_with_keys(&self.keys[i])
                        .unwrap();
                    self.seats[i].handle(&ev);
                    self.log.push(ev);
                }
            }
            let n = self.seats.len();
            self.deliver(n);
            if self.log.len() == before {
                return;
            }
            self.now += 1;
        }
        panic!("the table never settled");
    }

    /// Plays to the end, moving the clock past deadlines (and voting) when the table waits.
    fn run(&mut self) {
        for _ in 0..200 {
            self.settle();
            if self.spectator.is_finished() {
                return;
            }
            self.now += 25;
            for s in &mut self.seats {
                s.vote(self.now);
            }
        }
        panic!("the table did not finish: {:?}", self.spectator.awaiting());
    }

    fn game(&self, seat: Seat) -> &Insider {
        self.seats[usize::from(seat)].game()
    }
}

fn master_and_insider(t: &Table) -> (Seat, Seat) {
    let m = t.spectator.game().master.unwrap();
    let i = (0..t.seats.len() as Seat)
        .find(|s| t.game(*s).role_of(*s) == Some(Role::Insider))
        .unwrap();
    (m, i)
}

#[test]
fn only_the_master_and_the_insider_learn_the_word_and_the_master_never_learns_who() {
    for seed in 1..=3 {
        let mut t = Table::new(5, seed);
        // Stop when the questions begin: what does each client know?
        t.decide = Box::new(|_, turn| matches!(turn.view.phase, Phase::Ask { .. }).then_some(None));
        t.settle();
        assert!(matches!(t.spectator.game().phase, Phase::Ask { .. }));
        let (m, insider) = master_and_insider(&t);
        let word = t
            .game(m)
            .view(Some(m))
            .word
            .expect("the Master knows its word");
        for s in 0..5u8 {
            let g = t.game(s);
            let v = g.view(Some(s));
            match s {
                _ if s == m => {
                    assert_eq!(v.role, Some(Role::Master));
                    // It knows no role but its own: not who holds the Insider card.
                    assert_eq!(
                        g.insider(),
                        None,
                        "seed {seed}: the Master learned the Insider"
                    );
                    for x in (0..5).filter(|x| *x != m) {
                        assert_eq!(g.role_of(x), None);
                    }
                }
                _ if s == insider => {
                    assert_eq!(v.role, Some(Role::Insider));
                    assert_eq!(v.word.as_deref(), Some(word.as_str()), "seed {seed}");
                }
                _ => {
                    assert_eq!(v.role, Some(Role::Common));
                    assert_eq!(v.word, None, "seed {seed}: a Common learned the word");
                    assert_eq!(g.insider(), None);
                }
            }
            // Nothing anywhere in a client's state names the Insider but in its own.
            if s != insider {
                let json = serde_json::to_string(g).unwrap();
                assert!(!json.contains("\"insider\""), "{json}");
            }
        }
        let spec = t.spectator.game();
        assert_eq!(spec.view(None).word, None);
        assert_eq!(spec.insider(), None);
        assert!(spec.view(None).role.is_none());
    }
}

#[test]
fn a_table_of_bots_plays_to_a_verified_end_and_everything_is_opened_and_checked() {
    let mut t = Table::new(6, 9);
    t.run();
    let g = t.spectator.game();
    assert!(g.is_terminal());
    for s in &t.seats {
        assert!(s.violations.is_empty(), "{:?}", s.violations);
        assert_eq!(s.verdicts(), t.spectator.verdicts());
        assert_eq!(
            serde_json::to_value(s.game().view(None)).unwrap(),
            serde_json::to_value(g.view(None)).unwrap()
        );
    }
    // At the end everyone knows the word, every role, and that the Master judged honestly.
    let (m, insider) = master_and_insider(&t);
    assert_eq!(g.insider(), Some(insider));
    assert!(g.shown_word.is_some());
    assert!(!g.misjudged);
    assert!(g.outcome().is_some());
    assert_ne!(m, insider);
}

/// Replaces the letter to the first mailbox with one from another key: it opens for nobody.
fn forged_letter() -> String {
    let a = Keys::generate();
    let b = Keys::generate();
    nostr_sdk::prelude::nip44::encrypt(
        a.secret_key(),
        &b.public_key(),
        [7u8; 356],
        nostr_sdk::prelude::nip44::Version::V2,
    )
    .unwrap()
}

#[test]
fn a_master_whose_letters_do_not_all_hold_its_word_is_caught_and_removed_at_the_end() {
    let mut t = Table::new(5, 4);
    t.tamper = Box::new(|_, p, _| {
        if let Body::Letter { letters } = &mut p.body {
            letters[0].sealed[0] = forged_letter();
        }
    });
    t.run();
    let m = t.spectator.game().master.unwrap();
    let removed: Vec<&Verdict> = t
        .spectator
        .verdicts()
        .iter()
        .filter(|v| matches!(v, Verdict::Removed { .. }))
        .collect();
    assert!(
        matches!(removed.as_slice(), [Verdict::Removed { seats, .. }] if seats == &vec![m]),
        "{removed:?}"
    );
    // Every client named it, with the reason.
    let named = t
        .spectator
        .violations
        .iter()
        .find(|v| v.culprit() == m)
        .map(|v| v.to_string())
        .unwrap();
    assert!(
        named.contains("does not hold seat") && named.contains("die of roll 0"),
        "{named}"
    );
    let g = t.spectator.game();
    assert_eq!(g.end, Some(End::Removed { seats: vec![m] }));
    let o = g.outcome().unwrap();
    assert!(o.winners.is_empty());
    assert!(o.payoffs.iter().all(|(s, p)| (*s == m) == (*p < 0)));
}

#[test]
fn a_common_whose_mailbox_was_not_a_decoy_is_caught_and_removed_at_the_end() {
    let mut t = Table::new(5, 6);
    let cheat = Keys::generate();
    let cheat_key = cheat.public_key().to_hex();
    let mut which = None;
    t.tamper = Box::new(move |seat, p, sessions| {
        if let Body::Mailbox { keys } = &mut p.body {
            // A Common (its own client knows it is one) publishes a key it holds.
            let own = sessions[usize::from(seat)].game().role_of(seat);
            if own == Some(Role::Common) && which.is_none() {
                which = Some(seat);
                keys[0] = cheat_key.clone();
            }
        }
    });
    t.run();
    let removed: Vec<Seat> = t
        .spectator
        .verdicts()
        .iter()
        .filter_map(|v| match v {
            Verdict::Removed { seats, .. } => Some(seats.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(removed.len(), 1, "{:?}", t.spectator.verdicts());
    let cheater = removed[0];
    assert_eq!(
        t.spectator.game().role_of(cheater),
        Some(Role::Common),
        "the roles were shown before the openings"
    );
    assert!(t
        .spectator
        .violations
        .iter()
        .any(|v| v.culprit() == cheater && v.to_string().contains("the key was not a decoy")));
    assert!(t.spectator.game().outcome().unwrap().winners.is_empty());
}

#[test]
fn the_timer_runs_on_the_log_s_time_and_everyone_loses_when_it_runs_out() {
    use std::cell::Cell;
    use std::rc::Rc;
    let mut t = Table::new(4, 8);
    // Nobody asks anything: every asking turn passes, each ten seconds after the last in the
    // log's time (the signed `created_at` of the events).
    let tokens = Rc::new(Cell::new(0u32));
    let spend = tokens.clone();
    t.decide = Box::new(move |_, turn| {
        if !matches!(turn.view.phase, Phase::Ask { .. }) {
            return None;
        }
        if spend.get() == 0 || !turn.legal.contains(&Action::Pass) {
            return Some(None);
        }
        spend.set(spend.get() - 1);
        Some(Some(Action::Pass))
    });
    let mut passes = 0;
    for _ in 0..200 {
        t.settle();
        if !matches!(t.spectator.game().phase, Phase::Ask { .. }) {
            break;
        }
        passes += 1;
        t.now += 10;
        tokens.set(1);
    }
    t.run();
    let g = t.spectator.game();
    assert_eq!(g.end, Some(End::TimeUp), "{:?}", g.log);
    let o = g.outcome().unwrap();
    assert!(o.winners.is_empty());
    // Five minutes at ten seconds a turn: about thirty turns, not the engine's backstop.
    assert!((25..=40).contains(&passes), "{passes}");
    let started = g.started.unwrap();
    assert!(g.now >= started + 300);
}
