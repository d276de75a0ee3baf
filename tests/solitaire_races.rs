//! The solitaires raced by npub (Scoundrel, The Bogey, Shooting Party) through the real session and chance
//! layer: every entrant its own key, master secret and session, signed events delivered to
//! everyone and a spectator, time a number the test moves. What each entrant learns before the
//! end (only its own cards), what happens when an entrant's client stops answering mid-race
//! (rules §8), and a move opened as something else than it was sealed (refused, naming the
//! entrant). One harness, generic over the game.

use nostr_sdk::prelude::{Event, Keys, PublicKey, SecretKey, Timestamp};
use tolerance::bots::{Bot, BotLevel};
use tolerance::engine::{Game, Seat};
use tolerance::games::registry::{SetupOptions, TableGame};
use tolerance::games::scoundrel::{self, Scoundrel};
use tolerance::games::shooting_party::{self, ShootingParty};
use tolerance::games::the_bogey::{self, TheBogey};
use tolerance::table::session::{Session, SessionConfig, Verdict as TableVerdict};
use tolerance::wire::log::{log_event, Body, Payload};
use tolerance::wire::Deadlines;
use zeroize::Zeroizing;

/// What the harness asks of a raced game.
trait Raced: TableGame {
    /// Cards are being drawn and none is shown yet.
    fn racing(&self) -> bool;
    /// Whether `view` shows anything of entrant `seat`'s cards (a card, or what follows from
    /// them).
    fn shows_cards_of(view: &Self::View, seat: Seat) -> bool;
    /// The race is over and judged.
    fn over(&self) -> bool {
        self.is_terminal()
    }
    /// How entrant `seat`'s game was judged, in a word: "verified", "refused", "left" (or
    /// "unjudged").
    fn judged(&self, seat: Seat) -> &'static str {
        let _ = seat;
        "unjudged"
    }
    /// Whether entrant `seat` finished its game or was stopped by the end of the race.
    fn finished_or_stopped(&self, seat: Seat) -> bool {
        let _ = seat;
        false
    }
    /// Who made the race stop early.
    fn stopped_by(&self) -> Vec<Seat> {
        Vec::new()
    }
}

impl Raced for Scoundrel {
    fn racing(&self) -> bool {
        self.phase == scoundrel::game::Phase::Racing
    }
    fn shows_cards_of(view: &Self::View, seat: Seat) -> bool {
        view.entrants
            .iter()
            .filter(|e| e.seat == seat)
            .any(|e| e.board.room.iter().any(Option::is_some) || e.board.life.is_some())
    }
}

impl Raced for TheBogey {
    fn racing(&self) -> bool {
        self.phase == the_bogey::game::Phase::Racing
    }
    fn shows_cards_of(view: &Self::View, seat: Seat) -> bool {
        view.entrants.iter().filter(|e| e.seat == seat).any(|e| {
            let e = &e.board;
            e.hand
                .iter()
                .chain(e.columns.iter().flatten())
                .chain(&e.discards)
                .chain(e.bogey.iter())
                .any(Option::is_some)
        })
    }
}

impl Raced for ShootingParty {
    fn racing(&self) -> bool {
        self.phase == shooting_party::game::Phase::Racing
    }
    fn shows_cards_of(view: &Self::View, seat: Seat) -> bool {
        view.entrants.iter().filter(|e| e.seat == seat).any(|e| {
            let e = &e.board;
            e.hand
                .iter()
                .chain(&e.discards)
                .chain(&e.aces)
                .chain(&e.scored)
                .chain(e.search.iter().flatten())
                .any(Option::is_some)
        })
    }
    fn judged(&self, seat: Seat) -> &'static str {
        use shooting_party::Verdict;
        match self.verdicts.get(&seat) {
            Some(Verdict::Verified(..)) => "verified",
            Some(Verdict::Refused { .. }) => "refused",
            Some(Verdict::Left) => "left",
            None => "unjudged",
        }
    }
    fn finished_or_stopped(&self, seat: Seat) -> bool {
        self.entrant(seat)
            .is_some_and(|e| e.status.finished() || e.status == shooting_party::Status::Stopped)
    }
    fn stopped_by(&self) -> Vec<Seat> {
        self.stopped_by.clone()
    }
}

const START: u64 = 1_700_000_000;

/// What a cheating entrant's client does to its own payloads before signing them.
type Tamper = Box<dyn FnMut(Seat, &mut Payload)>;

struct Race<G: Raced> {
    keys: Vec<Keys>,
    host: PublicKey,
    seats: Vec<Session<G>>,
    spectator: Session<G>,
    bots: Vec<Box<dyn Bot<G>>>,
    log: Vec<Event>,
    seen: Vec<usize>,
    now: u64,
    /// An entrant whose client stops once the log holds this many events.
    drop: Option<(usize, usize)>,
    /// Spectator checks made while the race ran.
    peeks: usize,
    /// What a cheating entrant's client does to its own payloads before signing them.
    tamper: Tamper,
}

impl<G: Raced> Race<G> {
    fn new(players: u8, seed: u64) -> Race<G> {
        let setup = G::setup(&SetupOptions {
            players,
            ..SetupOptions::default()
        })
        .unwrap();
        let game = G::start(&setup, players).unwrap();
        let keys: Vec<Keys> = (0..players)
            .map(|i| {
                let mut b = [0u8; 32];
                b[0] = 1 + i;
                b[1..9].copy_from_slice(&seed.to_be_bytes());
                Keys::new(SecretKey::from_slice(&b).unwrap())
            })
            .collect();
        let cfg = SessionConfig {
            table: [seed as u8 ^ 0x3c; 32],
            seats: keys.iter().map(|k| k.public_key()).collect(),
            deadlines: Deadlines {
                move_ms: 15_000,
                crypto_ms: 20_000,
                bank_ms: 0,
                ..Deadlines::default()
            },
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
        Race {
            host: keys[0].public_key(),
            seats,
            spectator: Session::new(cfg, game, None).unwrap(),
            bots: (0..players)
                .map(|i| {
                    G::bot(
                        BotLevel::Normal,
                        rand::rngs::StdRng::seed_from_u64(seed * 31 + u64::from(i)),
                    )
                })
                .collect(),
            keys,
            log: Vec::new(),
            seen: vec![0; usize::from(players) + 1],
            now: START,
            drop: None,
            peeks: 0,
            tamper: Box::new(|_, _| {}),
        }
    }

    fn gone(&self, i: usize) -> bool {
        self.drop
            .is_some_and(|(s, at)| s == i && self.log.len() >= at)
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

    /// While racing, the spectator (as anyone reading the relay) knows no card, and each
    /// entrant knows only its own.
    fn check_privacy(&mut self) {
        let g = self.spectator.game();
        if !g.racing() {
            return;
        }
        self.peeks += 1;
        let v = g.view(None);
        for seat in 0..self.seats.len() as Seat {
            assert!(
                !G::shows_cards_of(&v, seat),
                "the spectator sees {seat}'s cards"
            );
        }
        for (i, s) in self.seats.iter().enumerate() {
            if self.gone(i) {
                continue;
            }
            let v = s.game().view(Some(i as Seat));
            for other in (0..self.seats.len() as Seat).filter(|o| *o != i as Seat) {
                assert!(
                    !G::shows_cards_of(&v, other),
                    "seat {i} sees {other}'s cards"
                );
            }
        }
    }

    fn settle(&mut self) {
        for _ in 0..20_000 {
            let before = self.log.len();
            for i in 0..self.seats.len() {
                if self.gone(i) {
                    continue;
                }
                self.deliver(i);
                if let Some(turn) = self.seats[i].my_turn() {
                    let a = self.bots[i].choose(&turn.view, &turn.legal);
                    self.seats[i].submit(&a).unwrap();
                }
                for mut p in self.seats[i].take_outbox() {
                    (self.tamper)(i as Seat, &mut p);
                    let ev = log_event(&self.host, &p)
                        .custom_created_at(Timestamp::from(self.now))
                        .sign_with_keys(&self.keys[i])
                        .unwrap();
                    // Every event must fit a relay: a race's shows come in batches.
                    let size = nostr_sdk::prelude::JsonUtil::as_json(&ev).len();
                    assert!(
                        size <= tolerance::wire::MAX_EVENT_BYTES,
                        "seat {i} signed an event of {size} bytes"
                    );
                    self.seats[i].handle(&ev);
                    self.log.push(ev);
                }
            }
            let n = self.seats.len();
            self.deliver(n);
            self.check_privacy();
            if self.log.len() == before {
                return;
            }
            self.now += 1;
        }
        panic!("the race never settled");
    }

    fn run(&mut self) {
        for _ in 0..2_000 {
            self.settle();
            if self.spectator.is_finished() {
                return;
            }
            self.now += 25;
            for (i, s) in self.seats.iter_mut().enumerate() {
                if !self
                    .drop
                    .is_some_and(|(d, at)| d == i && self.log.len() >= at)
                {
                    s.vote(self.now);
                }
            }
        }
        panic!("the race did not finish: {:?}", self.spectator.awaiting());
    }
}

#[test]
fn a_scoundrel_race_of_three_plays_to_a_verified_end_and_every_game_is_checked_from_the_log() {
    use scoundrel::game::Phase;
    use scoundrel::Verdict;
    let mut r = Race::<Scoundrel>::new(3, 7);
    r.run();
    assert!(
        r.peeks > 10,
        "the privacy checks ran while racing ({})",
        r.peeks
    );
    let g = r.spectator.game();
    assert_eq!(g.phase, Phase::Over);
    for s in &r.seats {
        assert!(s.violations.is_empty(), "{:?}", s.violations);
        assert_eq!(s.verdicts(), r.spectator.verdicts());
        assert_eq!(s.game().verdicts, g.verdicts);
    }
    // The spectator, from the signed log alone, verified every entrant's game.
    for e in &g.entrants {
        assert!(e.status.finished(), "{:?}", e.status);
        assert!(
            matches!(g.verdicts[&e.seat], Verdict::Verified(..)),
            "{:?}",
            g.verdicts
        );
    }
    assert_eq!(g.standings().len(), 3);
}

#[test]
fn a_scoundrel_entrant_who_drops_mid_race_stops_it_and_the_others_are_still_shown_checked_and_scored(
) {
    use scoundrel::game::Phase;
    use scoundrel::{Status, Verdict};
    let mut r = Race::<Scoundrel>::new(3, 12);
    // Entrant 1's client stops answering after a few rounds.
    r.drop = Some((1, 60));
    r.run();
    let removed: Vec<&TableVerdict> = r
        .spectator
        .verdicts()
        .iter()
        .filter(|v| matches!(v, TableVerdict::Removed { .. }))
        .collect();
    assert!(
        matches!(removed.as_slice(), [TableVerdict::Removed { seats, .. }] if seats == &vec![1]),
        "{removed:?}"
    );
    let g = r.spectator.game();
    assert_eq!(g.phase, Phase::Over);
    assert_eq!(g.verdicts[&1], Verdict::Left);
    assert_eq!(g.stopped_by, vec![1]);
    for s in [0u8, 2] {
        let e = g.entrant(s).unwrap();
        assert!(matches!(e.status, Status::Stopped) || e.status.finished());
        assert!(
            matches!(g.verdicts[&s], Verdict::Verified(..)),
            "{:?}",
            g.verdicts
        );
        // The entrant's own client agrees with the spectator.
        assert_eq!(r.seats[usize::from(s)].game().verdicts, g.verdicts);
    }
    assert!(!g.outcome().unwrap().winners.contains(&1));
}

#[test]
fn a_scoundrel_turn_changed_after_it_was_sealed_is_refused_naming_the_entrant_and_the_others_are_scored(
) {
    use scoundrel::game::Phase;
    use scoundrel::Verdict;
    let mut r = Race::<Scoundrel>::new(3, 5);
    // Entrant 2 opens its third turn as something else than it sealed (a give-up instead).
    let mut opened = 0;
    r.tamper = Box::new(move |seat, p| {
        if seat == 2 {
            if let Body::Open { action, .. } = &mut p.body {
                opened += 1;
                if opened == 3 {
                    *action = serde_json::json!("give_up");
                }
            }
        }
    });
    r.run();
    let names = |s: Seat| ["Ann", "Bob", "Cy"][usize::from(s)].to_string();
    let told: Vec<String> = r
        .spectator
        .violations
        .iter()
        .filter(|v| v.culprit() == 2)
        .map(|v| v.text_named(&names))
        .collect();
    assert!(
        told.iter()
            .any(|t| t.contains("by Cy") && t.contains("does not match its commitment")),
        "{told:?}"
    );
    assert!(r.spectator.violations.iter().all(|v| v.culprit() == 2));
    let g = r.spectator.game();
    assert_eq!(g.phase, Phase::Over);
    assert_eq!(g.verdicts[&2], Verdict::Left);
    for s in [0u8, 1] {
        assert!(
            matches!(g.verdicts[&s], Verdict::Verified(..)),
            "{:?}",
            g.verdicts
        );
    }
}

/// Discards its whole hand on its first turns (so that its deck runs out and its discards are
/// reshuffled by everyone), then plays as the column bot.
struct Discarder(Box<dyn Bot<TheBogey>>);

impl Bot<TheBogey> for Discarder {
    fn choose(
        &mut self,
        view: &the_bogey::BogeyView,
        legal: &[the_bogey::Action],
    ) -> the_bogey::Action {
        use the_bogey::Action;
        let early = view.me().is_some_and(|e| e.board.turn <= 9);
        for a in [Action::Discard { slot: 0 }, Action::EndTurn] {
            if early && legal.contains(&a) {
                return a;
            }
        }
        self.0.choose(view, legal)
    }
    fn name(&self) -> &str {
        "discarder"
    }
}

#[test]
fn a_bogey_race_with_a_reshuffle_plays_to_a_verified_end_and_every_game_is_checked_from_the_log() {
    use the_bogey::game::Phase;
    use the_bogey::Verdict;
    let mut r = Race::<TheBogey>::new(3, 7);
    let normal = std::mem::replace(
        &mut r.bots[1],
        Box::new(Discarder(TheBogey::bot(
            BotLevel::Normal,
            <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(99),
        ))),
    );
    drop(normal);
    r.run();
    assert!(
        r.peeks > 10,
        "the privacy checks ran while racing ({})",
        r.peeks
    );
    let g = r.spectator.game();
    assert_eq!(g.phase, Phase::Over);
    for s in &r.seats {
        assert!(s.violations.is_empty(), "{:?}", s.violations);
        assert_eq!(s.verdicts(), r.spectator.verdicts());
        assert_eq!(s.game().verdicts, g.verdicts);
    }
    // Entrant 1's discards became a new deck that everyone shuffled; it drew from it.
    let one = g.entrant(1).unwrap();
    assert!(!one.places.reshuffles.is_empty(), "{:?}", one.places);
    // The spectator, from the signed log alone, verified every entrant's game and its score.
    for e in &g.entrants {
        assert!(e.status.finished(), "{:?}", e.status);
        match &g.verdicts[&e.seat] {
            Verdict::Verified(v) => {
                assert_eq!(v.on_table, e.places.on_table())
            }
            v => panic!("{v:?}"),
        }
    }
    assert_eq!(g.standings().len(), 3);
}

#[test]
fn a_bogey_entrant_who_drops_mid_race_stops_it_and_the_others_are_still_shown_checked_and_scored() {
    use the_bogey::game::Phase;
    use the_bogey::{Status, Verdict};
    let mut r = Race::<TheBogey>::new(3, 12);
    r.drop = Some((1, 150));
    r.run();
    let removed: Vec<&TableVerdict> = r
        .spectator
        .verdicts()
        .iter()
        .filter(|v| matches!(v, TableVerdict::Removed { .. }))
        .collect();
    assert!(
        matches!(removed.as_slice(), [TableVerdict::Removed { seats, .. }] if seats == &vec![1]),
        "{removed:?}"
    );
    let g = r.spectator.game();
    assert_eq!(g.phase, Phase::Over);
    assert_eq!(g.verdicts[&1], Verdict::Left);
    assert_eq!(g.stopped_by, vec![1]);
    for s in [0u8, 2] {
        let e = g.entrant(s).unwrap();
        assert!(matches!(e.status, Status::Stopped) || e.status.finished());
        assert!(
            matches!(g.verdicts[&s], Verdict::Verified(..)),
            "{:?}",
            g.verdicts
        );
        assert_eq!(r.seats[usize::from(s)].game().verdicts, g.verdicts);
    }
    assert!(!g.outcome().unwrap().winners.contains(&1));
}

#[test]
fn a_bogey_move_changed_after_it_was_sealed_is_refused_naming_the_entrant_and_the_others_are_scored(
) {
    use the_bogey::game::Phase;
    use the_bogey::Verdict;
    let mut r = Race::<TheBogey>::new(3, 5);
    // Entrant 2 opens its third move as something else than it sealed (a give-up instead).
    let mut opened = 0;
    r.tamper = Box::new(move |seat, p| {
        if seat == 2 {
            if let Body::Open { action, .. } = &mut p.body {
                opened += 1;
                if opened == 3 {
                    *action = serde_json::json!("give_up");
                }
            }
        }
    });
    r.run();
    let names = |s: Seat| ["Ann", "Bob", "Cy"][usize::from(s)].to_string();
    let told: Vec<String> = r
        .spectator
        .violations
        .iter()
        .filter(|v| v.culprit() == 2)
        .map(|v| v.text_named(&names))
        .collect();
    assert!(
        told.iter()
            .any(|t| t.contains("by Cy") && t.contains("does not match its commitment")),
        "{told:?}"
    );
    assert!(r.spectator.violations.iter().all(|v| v.culprit() == 2));
    let g = r.spectator.game();
    assert_eq!(g.phase, Phase::Over);
    assert_eq!(g.verdicts[&2], Verdict::Left);
    for s in [0u8, 1] {
        assert!(
            matches!(g.verdicts[&s], Verdict::Verified(..)),
            "{:?}",
            g.verdicts
        );
    }
}

/// `tolerance demo --game the-bogey --players 2 --json` over a relay, then `tolerance verify`
/// of that table from the relay alone: the race ends verified with its leaderboard, and the
/// reader who was not there computes every entrant's score again, the same.
#[tokio::test(flavor = "multi_thread")]
async fn a_bogey_demo_ends_verified_and_a_verify_from_the_relay_gives_every_score_again() {
    use std::process::Stdio;
    use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig};
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    let home = std::env::temp_dir().join(format!("tolerance-bogey-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let run = |args: Vec<String>| {
        let home = home.clone();
        async move {
            let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
                .args(&args)
                .env("TOLERANCE_HOME", &home)
                .stdin(Stdio::null())
                .output()
                .await
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            serde_json::from_str::<serde_json::Value>(text.trim()).unwrap_or_else(|e| {
                panic!(
                    "{args:?} printed no JSON ({e}): {text}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })
        }
    };
    let demo = run([
        "demo",
        "--game",
        "the-bogey",
        "--players",
        "2",
        "--relay",
        &url,
        "--json",
    ]
    .map(String::from)
    .to_vec())
    .await;
    assert_eq!(demo["verified"], true, "{demo}");
    assert_eq!(demo["game"], "the-bogey");
    let board = demo["report"]["leaderboard"].as_array().unwrap().clone();
    assert_eq!(board.len(), 2, "{demo}");
    for row in &board {
        assert!(row["score"].as_i64().unwrap() >= row["on_table"].as_i64().unwrap());
    }
    let naddr = demo["naddr"].as_str().unwrap().to_string();
    let verify = run(["verify", &naddr, "--json"].map(String::from).to_vec()).await;
    assert_eq!(verify["ok"], true, "{verify}");
    assert_eq!(verify["finished"], true, "{verify}");
    assert_eq!(
        verify["report"]["leaderboard"],
        demo["report"]["leaderboard"]
    );
    assert_eq!(verify["report"]["games"], demo["report"]["games"]);
    let _ = std::fs::remove_dir_all(&home);
}

/// A race of three plays to its end: every client agrees, the spectator saw no card while it
/// ran, and from the signed log alone it verified every entrant's game.
fn plays_to_a_verified_end<G: Raced>(r: &mut Race<G>) {
    r.run();
    assert!(
        r.peeks > 10,
        "the privacy checks ran while racing ({})",
        r.peeks
    );
    let g = r.spectator.game();
    assert!(g.over());
    for s in &r.seats {
        assert!(s.violations.is_empty(), "{:?}", s.violations);
        assert_eq!(s.verdicts(), r.spectator.verdicts());
        for seat in 0..r.seats.len() as Seat {
            assert_eq!(s.game().judged(seat), g.judged(seat));
        }
        assert_eq!(
            s.game().outcome(),
            g.outcome(),
            "every client ends with the same race"
        );
    }
    for seat in 0..r.seats.len() as Seat {
        assert!(g.finished_or_stopped(seat), "{seat}");
        assert_eq!(g.judged(seat), "verified", "{seat}");
    }
}

/// Entrant 1's client stops answering once the log holds `at` events: it is removed, the race
/// stops, and the others are still shown, checked and scored.
fn a_drop_stops_the_race_and_the_others_are_scored<G: Raced>(r: &mut Race<G>, at: usize) {
    r.drop = Some((1, at));
    r.run();
    let removed: Vec<&TableVerdict> = r
        .spectator
        .verdicts()
        .iter()
        .filter(|v| matches!(v, TableVerdict::Removed { .. }))
        .collect();
    assert!(
        matches!(removed.as_slice(), [TableVerdict::Removed { seats, .. }] if seats == &vec![1]),
        "{removed:?}"
    );
    let g = r.spectator.game();
    assert!(g.over());
    assert_eq!(g.judged(1), "left");
    assert_eq!(g.stopped_by(), vec![1]);
    for s in [0u8, 2] {
        assert!(g.finished_or_stopped(s), "{s}");
        assert_eq!(g.judged(s), "verified", "{s}");
        assert_eq!(r.seats[usize::from(s)].game().outcome(), g.outcome());
    }
    assert!(!g.outcome().unwrap().winners.contains(&1));
}

/// Entrant 2 opens its third move as something else than it sealed (a give-up): refused,
/// naming the entrant; the others are scored.
fn a_move_changed_after_it_was_sealed_is_refused_naming_the_entrant<G: Raced>(r: &mut Race<G>) {
    let mut opened = 0;
    r.tamper = Box::new(move |seat, p| {
        if seat == 2 {
            if let Body::Open { action, .. } = &mut p.body {
                opened += 1;
                if opened == 3 {
                    *action = serde_json::json!("give_up");
                }
            }
        }
    });
    r.run();
    let names = |s: Seat| ["Ann", "Bob", "Cy"][usize::from(s)].to_string();
    let told: Vec<String> = r
        .spectator
        .violations
        .iter()
        .filter(|v| v.culprit() == 2)
        .map(|v| v.text_named(&names))
        .collect();
    assert!(
        told.iter()
            .any(|t| t.contains("by Cy") && t.contains("does not match its commitment")),
        "{told:?}"
    );
    assert!(r.spectator.violations.iter().all(|v| v.culprit() == 2));
    let g = r.spectator.game();
    assert!(g.over());
    assert_eq!(g.judged(2), "left");
    for s in [0u8, 1] {
        assert_eq!(g.judged(s), "verified", "{s}");
    }
}

#[test]
fn a_shooting_party_race_of_three_plays_to_a_verified_end_and_every_game_is_checked_from_the_log() {
    let mut r = Race::<ShootingParty>::new(3, 7);
    plays_to_a_verified_end(&mut r);
    let g = r.spectator.game();
    // Each verified score is the score pile its moves built.
    for e in &g.entrants {
        match &g.verdicts[&e.seat] {
            shooting_party::Verdict::Verified(v) => {
                assert_eq!(v.score as usize, e.places.scored.len());
                assert_eq!(v.contacts, e.places.contacts);
            }
            v => panic!("{v:?}"),
        }
    }
    assert_eq!(g.standings().len(), 3);
}

#[test]
fn a_shooting_party_entrant_who_drops_mid_race_stops_it_and_the_others_are_still_shown_checked_and_scored(
) {
    let mut r = Race::<ShootingParty>::new(3, 12);
    a_drop_stops_the_race_and_the_others_are_scored(&mut r, 120);
}

#[test]
fn a_shooting_party_move_changed_after_it_was_sealed_is_refused_naming_the_entrant_and_the_others_are_scored(
) {
    let mut r = Race::<ShootingParty>::new(3, 5);
    a_move_changed_after_it_was_sealed_is_refused_naming_the_entrant(&mut r);
}

/// `tolerance demo --game GAME --players N --json` over a relay, then `tolerance verify` of that
/// table from the relay alone: the race ends verified with its leaderboard of N, and the reader
/// who was not there computes every entrant's score again, the same.
async fn a_demo_ends_verified_and_a_verify_from_the_relay_gives_every_score_again(
    game: &str,
    players: usize,
) -> serde_json::Value {
    use std::process::Stdio;
    use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig};
    let relay = EmbeddedRelay::start(EmbeddedRelayConfig::default())
        .await
        .unwrap();
    let url = relay.url().to_string();
    let home = std::env::temp_dir().join(format!("tolerance-{game}-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let run = |args: Vec<String>| {
        let home = home.clone();
        async move {
            let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_tolerance"))
                .args(&args)
                .env("TOLERANCE_HOME", &home)
                .stdin(Stdio::null())
                .output()
                .await
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            serde_json::from_str::<serde_json::Value>(text.trim()).unwrap_or_else(|e| {
                panic!(
                    "{args:?} printed no JSON ({e}): {text}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })
        }
    };
    let n = players.to_string();
    let demo = run([
        "demo",
        "--game",
        game,
        "--players",
        &n,
        "--relay",
        &url,
        "--json",
    ]
    .map(String::from)
    .to_vec())
    .await;
    assert_eq!(demo["verified"], true, "{demo}");
    assert_eq!(demo["game"], game);
    let board = demo["report"]["leaderboard"].as_array().unwrap().clone();
    assert_eq!(board.len(), players, "{demo}");
    let naddr = demo["naddr"].as_str().unwrap().to_string();
    let verify = run(["verify", &naddr, "--json"].map(String::from).to_vec()).await;
    assert_eq!(verify["ok"], true, "{verify}");
    assert_eq!(verify["finished"], true, "{verify}");
    assert_eq!(
        verify["report"]["leaderboard"],
        demo["report"]["leaderboard"]
    );
    assert_eq!(verify["report"]["games"], demo["report"]["games"]);
    let _ = std::fs::remove_dir_all(&home);
    demo
}

#[tokio::test(flavor = "multi_thread")]
async fn a_shooting_party_demo_of_three_ends_verified_and_a_verify_from_the_relay_gives_every_score_again(
) {
    let demo = a_demo_ends_verified_and_a_verify_from_the_relay_gives_every_score_again(
        "shooting-party",
        3,
    )
    .await;
    for row in demo["report"]["leaderboard"].as_array().unwrap() {
        let score = row["score"].as_i64().unwrap();
        let contacts = row["contacts"].as_i64().unwrap();
        let communiques = row["communiques"].as_i64().unwrap();
        assert_eq!(score, contacts + communiques, "{row}");
        assert!(communiques <= contacts, "{row}");
    }
}
