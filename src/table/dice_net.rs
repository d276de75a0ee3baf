//! The networked session of a dice-only game (Perudo, Mia) over Nostr relays: every seat runs
//! the same engine on its own replica, moves and dice reveals travel as signed events, and the
//! dice come from [`super::dice_chance`] — no dealer, no server.
//!
//! This is the thin I/O loop around the pure [`DiceSession`]: it signs and publishes what the
//! session owes (journalled first when a journal is given), feeds it every event from the
//! relays, asks the seat's bot or person for moves, and casts a timeout vote when a step stays
//! open past the deadline (`protocol/PROTOCOL.md` §12). Whether a timeout or a fork ends the
//! table is decided by the session from the events alone, so every client agrees.

use super::dice_chance::DiceError;
use super::journal::Journal;
use super::old_session::Violation;
use crate::bots::Bot;
use crate::engine::{ChanceRequest, Game, ToAct};
use crate::fair::dice::DiceSecret;
use crate::net::RelayPool;
use nostr_sdk::prelude::{Event, EventBuilder, Filter, Kind, PublicKey, Tag};
use std::time::{Duration, Instant};

pub use super::dice_session::{
    DiceAwait, DiceBody, DiceEnd, DiceEvent, DiceSession, KIND_DICE_LOG,
};

/// What a finished session reports.
#[derive(Debug)]
pub struct DiceRun<G> {
    pub game: G,
    pub batches: u32,
    pub moves: u32,
    /// Every applied event, in the order of the log.
    pub events: Vec<Event>,
    /// How the table ended: the game's end, or a forfeit naming its seats.
    pub end: DiceEnd,
    /// Events this client rejected, forks included.
    pub violations: Vec<Violation>,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{0}")]
    Dice(#[from] DiceError),
    #[error("network: {0}")]
    Net(String),
    #[error("journal: {0}")]
    Journal(String),
    #[error("no event for {idle:?} while waiting for {waiting:?}")]
    Stalled { idle: Duration, waiting: DiceAwait },
}

pub fn filter(table: &[u8; 32]) -> Filter {
    Filter::new()
        .kind(Kind::from(KIND_DICE_LOG))
        .hashtag(hex::encode(table))
}

/// One participant: a seat (with its secret and a bot choosing its moves) or a spectator.
pub struct Participant<G: Game> {
    pub me: Option<(u16, DiceSecret)>,
    pub bot: Option<Box<dyn Bot<G>>>,
    /// Publish no opening of this seat's own cups: a player caught in a bluff who walks away.
    /// Only for testing the forfeit path; honest clients leave it `false`.
    pub refuse_to_open: bool,
    /// Told what the session does as it goes, for an interface that follows the table live.
    pub observer: Option<Observer<G>>,
}

// ---- Observer hook: the session's only outward report, kept apart from its logic. ----

/// The step a session is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiceStep {
    /// The seats' dice commitments, before the first roll.
    Commit,
    /// Reveals for a chance batch; `opening` when cups are being opened after a challenge.
    Reveals { opening: bool },
    /// The move of the seat to act.
    Move,
}

/// What a session reports to its [`Observer`].
pub enum DiceNews<'a, V> {
    /// The table as this participant sees it (its seat's view, or a spectator's), after every
    /// applied move and chance batch.
    View(&'a V),
    /// Waiting for `step` from these seats (indices), for at most `deadline`.
    Waiting {
        step: DiceStep,
        seats: &'a [u16],
        deadline: Duration,
    },
}

pub type Observer<G> = Box<dyn for<'a> FnMut(DiceNews<'a, <G as Game>::View>) + Send>;

/// Reports the view when the session moved to a new step, and who it waits for whenever that
/// changes (so "waiting for A, B" shrinks as reveals arrive).
struct Reporter<G: Game> {
    observer: Option<Observer<G>>,
    viewer: Option<u16>,
    position: Option<(u32, String)>,
    awaiting: Option<DiceAwait>,
}

impl<G: Game> Reporter<G> {
    fn report(&mut self, session: &DiceSession<G>, deadline: Duration) {
        let Some(o) = self.observer.as_mut() else {
            return;
        };
        let position = session.position();
        if self.position.as_ref() != Some(&position) {
            let game = session.game();
            let seat = self.viewer.map(|i| game.seats()[i as usize]);
            o(DiceNews::View(&game.view(seat)));
            self.position = Some(position);
        }
        let awaiting = session.awaiting();
        if self.awaiting.as_ref() == Some(&awaiting) {
            return;
        }
        let step = match &awaiting {
            DiceAwait::Commits(_) => Some(DiceStep::Commit),
            DiceAwait::Reveals { .. } => Some(DiceStep::Reveals {
                opening: matches!(session.game().to_act(), ToAct::Chance(reqs)
                    if reqs.iter().any(|r| matches!(r, ChanceRequest::OpenPrivate { .. }))),
            }),
            DiceAwait::Move(_) => Some(DiceStep::Move),
            DiceAwait::End(_) | DiceAwait::Nothing => None,
        };
        if let Some(step) = step {
            o(DiceNews::Waiting {
                step,
                seats: &awaiting.seats(),
                deadline,
            });
        }
        self.awaiting = Some(awaiting);
    }
}

// ---- end of the observer hook ----

/// Makes a misbehaving client for tests: given each body this client is about to sign, returns
/// a second, different body to sign and publish too (a fork). Honest clients have none.
pub type Tamper = Box<dyn FnMut(&DiceBody) -> Option<DiceBody> + Send>;

/// How a session runs, beyond who plays.
pub struct RunConfig {
    /// After this long on one step, a seat votes the missing seats out (and again each time
    /// it passes once more).
    pub step_deadline: Duration,
    /// With no event for this long the session gives up: a spectator or `verify` of a table
    /// whose players left. A finished game is reported as such.
    pub idle: Duration,
    /// The table's journal: own events are recorded (fsynced) before they are published, and
    /// a journal holding events resumes the session where it stopped.
    pub journal: Option<Journal>,
    pub tamper: Option<Tamper>,
}

impl RunConfig {
    pub fn new(step_deadline: Duration) -> RunConfig {
        RunConfig {
            step_deadline,
            idle: step_deadline * 4 + Duration::from_secs(60),
            journal: None,
            tamper: None,
        }
    }
}

/// Plays one game to its end over `pool`. `seats` are the players' keys in seat order.
pub async fn run<G: Game + Send + 'static>(
    pool: &RelayPool,
    table: [u8; 32],
    seats: Vec<PublicKey>,
    game: G,
    me: Participant<G>,
    step_deadline: Duration,
) -> Result<DiceRun<G>, SessionError> {
    run_with(pool, table, seats, game, me, RunConfig::new(step_deadline)).await
}

fn sign<G: Game>(
    pool: &RelayPool,
    table: &[u8; 32],
    body: DiceBody,
) -> Result<Event, SessionError> {
    let table_hex = hex::encode(table);
    let content = serde_json::to_string(&DiceEvent {
        v: 1,
        game: G::NAME.into(),
        table: table_hex.clone(),
        body,
    })
    .expect("events serialise");
    pool.sign(
        EventBuilder::new(Kind::from(KIND_DICE_LOG), content).tags([Tag::hashtag(&table_hex)]),
    )
    .map_err(|e| SessionError::Net(e.to_string()))
}

async fn publish(pool: &RelayPool, ev: &Event) -> Result<(), SessionError> {
    super::runner::publish_event(pool, ev, "dice")
        .await
        .map_err(SessionError::Net)
}

/// [`run`] with a journal, an idle limit or a tamper hook.
pub async fn run_with<G: Game + Send + 'static>(
    pool: &RelayPool,
    table: [u8; 32],
    seats: Vec<PublicKey>,
    game: G,
    me: Participant<G>,
    mut cfg: RunConfig,
) -> Result<DiceRun<G>, SessionError> {
    let net = |e: crate::net::NetError| SessionError::Net(e.to_string());
    let mut bot = me.bot;
    let mut reporter = Reporter {
        observer: me.observer,
        viewer: me.me.as_ref().map(|(i, _)| *i),
        position: None,
        awaiting: None,
    };
    let mut session = DiceSession::new(table, seats, game, me.me, me.refuse_to_open)?;
    let mut sub = pool.subscribe(vec![filter(&table)]).await.map_err(net)?;
    if let Some(j) = cfg.journal.as_ref() {
        // What this client handled before it stopped; its own events among them keep it from
        // signing those steps again.
        for ev in j.events() {
            session.handle(ev);
        }
        // The crash may have come between recording an event and a relay taking it.
        for ev in j.own_events() {
            publish(pool, &ev).await?;
        }
    }
    let mut position = session.position();
    let mut step_opened = Instant::now();
    let mut next_vote: Option<Instant> = None;
    let mut last_event = Instant::now();
    loop {
        for body in session.take_outbox() {
            let extra = cfg.tamper.as_mut().and_then(|t| t(&body));
            for body in std::iter::once(body).chain(extra) {
                let ev = sign::<G>(pool, &table, body)?;
                if let Some(j) = cfg.journal.as_mut() {
                    j.record(&ev).map_err(SessionError::Journal)?;
                }
                publish(pool, &ev).await?;
                session.handle(&ev);
            }
        }
        reporter.report(&session, cfg.step_deadline);
        if session.is_finished() {
            break;
        }
        if let Some((view, legal)) = session.my_turn() {
            let bot = bot.as_mut().ok_or_else(|| {
                SessionError::Net("a seat needs something to choose its moves".into())
            })?;
            let action = bot.choose(&view, &legal);
            session
                .submit(&action)
                .map_err(|e| SessionError::Net(format!("own move refused: {e}")))?;
            continue;
        }
        if session.position() != position {
            position = session.position();
            step_opened = Instant::now();
            next_vote = None;
        }
        let vote_at = next_vote.unwrap_or(step_opened + cfg.step_deadline);
        if Instant::now() >= vote_at {
            next_vote = Some(Instant::now() + cfg.step_deadline);
            if session.vote() {
                continue;
            }
        }
        let idle_left = cfg.idle.saturating_sub(last_event.elapsed());
        if idle_left.is_zero() {
            if session.game().is_terminal() {
                // The game is decided; only end confirmations are missing.
                break;
            }
            return Err(SessionError::Stalled {
                idle: cfg.idle,
                waiting: session.awaiting(),
            });
        }
        let wait = idle_left.min(
            vote_at
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1)),
        );
        let ev = match tokio::time::timeout(wait, sub.recv()).await {
            Ok(Some(ev)) => ev,
            Ok(None) => return Err(SessionError::Net("subscription closed".into())),
            Err(_) => continue,
        };
        last_event = Instant::now();
        let mut batch = vec![ev];
        while let Some(more) = sub.try_recv() {
            batch.push(more);
        }
        for ev in &batch {
            if let Some(j) = cfg.journal.as_mut() {
                j.record(ev).map_err(SessionError::Journal)?;
            }
            session.handle(ev);
        }
    }
    let end = session.end().cloned().unwrap_or_else(|| DiceEnd::Finished {
        unconfirmed: session.awaiting().seats(),
    });
    Ok(DiceRun {
        batches: session.batches(),
        moves: session.moves(),
        events: session.accepted().to_vec(),
        end,
        violations: session.violations.clone(),
        game: session.into_game(),
    })
}

/// Plays a bot as a seat's decider: used by tests, benchmarks and demos.
pub fn bot_participant<G: Game>(
    index: u16,
    secret: DiceSecret,
    bot: Box<dyn Bot<G>>,
) -> Participant<G> {
    Participant {
        me: Some((index, secret)),
        bot: Some(bot),
        refuse_to_open: false,
        observer: None,
    }
}
