//! The networked session of a dice-only game (Perudo, Mia) over Nostr relays: every seat runs
//! the same engine on its own replica, moves and dice reveals travel as signed events, and the
//! dice come from [`super::dice_chance`] — no dealer, no server.
//!
//! Events are kind [`KIND_DICE_LOG`], tagged `#t` with the table id, with a [`DiceEvent`] as
//! content (`protocol/PROTOCOL.md`, §Dice games). Per game: one commit per seat (parallel); per
//! chance batch: one reveals event per seat that owes reveals (parallel, one relay hop); per
//! move: one move event by the seat to act (sequential, numbered). A client acts on an event
//! only if its author is the seat's key and its signature verifies; a step that a seat does not
//! answer before the deadline ends the session naming that seat (its forfeit).

use super::dice_chance::{DiceClient, DiceError, Public};
use crate::bots::Bot;
use crate::engine::{Game, ToAct};
use crate::fair::dice::{DiceCommitment, DiceReveal, DiceSecret};
use crate::fair::{from_base64, to_base64};
use crate::net::RelayPool;
use nostr_sdk::prelude::{Event, EventBuilder, Filter, Kind, PublicKey, Tag};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Event kind of a dice-game log (regular, stored).
pub const KIND_DICE_LOG: u16 = 7769;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiceEvent {
    pub v: u8,
    /// The engine's game name ("perudo", "mia").
    pub game: String,
    /// Table id, hex.
    pub table: String,
    #[serde(flatten)]
    pub body: DiceBody,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum DiceBody {
    /// The sender's dice commitment for the game (base64 of depth ‖ digest).
    Commit { commitment: String },
    /// The sender's reveals owed for chance batch `batch`, base64 each.
    Reveals { batch: u32, reveals: Vec<String> },
    /// Move number `n` of the game, chained to the previous move's event id (the table id for
    /// the first), the engine's action as JSON.
    Move {
        n: u32,
        prev: String,
        action: serde_json::Value,
    },
}

/// What a finished session reports.
#[derive(Debug)]
pub struct DiceRun<G> {
    pub game: G,
    pub batches: u32,
    pub moves: u32,
    /// Every accepted event, in the order this client applied them.
    pub events: Vec<Event>,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("seats {seats:?} did not answer in time: their forfeit")]
    Forfeit { seats: Vec<u16> },
    #[error("{0}")]
    Dice(#[from] DiceError),
    #[error("network: {0}")]
    Net(String),
    #[error("seat {seat} broke the rules: {reason}")]
    Rule { seat: u16, reason: String },
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

fn tell<G: Game>(observer: &mut Option<Observer<G>>, news: DiceNews<'_, G::View>) {
    if let Some(o) = observer {
        o(news);
    }
}

fn tell_view<G: Game>(observer: &mut Option<Observer<G>>, game: &G, viewer: Option<u16>) {
    if observer.is_some() {
        let seat = viewer.map(|i| game.seats()[i as usize]);
        tell::<G>(observer, DiceNews::View(&game.view(seat)));
    }
}

// ---- end of the observer hook ----

struct Inbox {
    commits: BTreeMap<u16, Event>,
    reveals: BTreeMap<(u32, u16), Event>,
    moves: BTreeMap<u32, (u16, Event)>,
}

/// Plays one game to its end over `pool`. `seats` are the players' keys in seat order.
pub async fn run<G: Game + Send + 'static>(
    pool: &RelayPool,
    table: [u8; 32],
    seats: Vec<PublicKey>,
    mut game: G,
    me: Participant<G>,
    step_deadline: Duration,
) -> Result<DiceRun<G>, SessionError> {
    let net = |e: crate::net::NetError| SessionError::Net(e.to_string());
    let table_hex = hex::encode(table);
    let actors: Vec<[u8; 32]> = seats.iter().map(|k| k.to_bytes()).collect();
    let my_index = me.me.as_ref().map(|(i, _)| *i);
    let mut bot = me.bot;
    let refuse_to_open = me.refuse_to_open;
    let mut observer = me.observer;
    let mut dice = DiceClient::new(table, 1, game.seats(), actors, me.me)?;
    let mut sub = pool.subscribe(vec![filter(&table)]).await.map_err(net)?;
    let publish = |body: DiceBody| {
        let content = serde_json::to_string(&DiceEvent {
            v: 1,
            game: G::NAME.into(),
            table: table_hex.clone(),
            body,
        })
        .expect("events serialise");
        EventBuilder::new(Kind::from(KIND_DICE_LOG), content).tags([Tag::hashtag(&table_hex)])
    };
    let mut inbox = Inbox {
        commits: BTreeMap::new(),
        reveals: BTreeMap::new(),
        moves: BTreeMap::new(),
    };
    let mut accepted = Vec::new();

    if let Some(Public::Commit { commitment, .. }) = dice.commit() {
        let ev = pool
            .sign(publish(DiceBody::Commit {
                commitment: to_base64(&commitment.to_bytes()),
            }))
            .map_err(net)?;
        pool.publish(&ev).await.map_err(net)?;
    }
    // Waits until `ready` holds on the inbox, filing events as they come.
    macro_rules! wait_for {
        ($missing:expr) => {{
            let deadline = Instant::now() + step_deadline;
            loop {
                let missing: Vec<u16> = $missing(&inbox);
                if missing.is_empty() {
                    break;
                }
                let left = deadline.saturating_duration_since(Instant::now());
                match tokio::time::timeout(left, sub.recv()).await {
                    Ok(Some(ev)) => file(&mut inbox, &seats, &table_hex, G::NAME, ev),
                    Ok(None) => return Err(SessionError::Net("subscription closed".into())),
                    Err(_) => return Err(SessionError::Forfeit { seats: missing }),
                }
            }
        }};
    }
    let n = seats.len() as u16;
    tell_view(&mut observer, &game, my_index);
    tell::<G>(
        &mut observer,
        DiceNews::Waiting {
            step: DiceStep::Commit,
            seats: &(0..n).collect::<Vec<_>>(),
            deadline: step_deadline,
        },
    );
    wait_for!(|i: &Inbox| (0..n).filter(|s| !i.commits.contains_key(s)).collect());
    for s in 0..n {
        let ev = inbox.commits[&s].clone();
        let DiceBody::Commit { commitment } = body_of(&ev).expect("filed").body else {
            unreachable!("filed as a commit")
        };
        let commitment = from_base64("dice commitment", &commitment)
            .and_then(|b| DiceCommitment::from_bytes(&b))
            .map_err(|e| SessionError::Rule {
                seat: s,
                reason: e.to_string(),
            })?;
        dice.receive(&Public::Commit {
            seat: s,
            commitment,
        })?;
        accepted.push(ev);
    }

    let (mut batch, mut moves) = (0u32, 0u32);
    let mut head = table_hex.clone();
    loop {
        match game.to_act() {
            ToAct::Terminal => break,
            ToAct::Chance(reqs) => {
                let plan = dice.plan(&reqs)?;
                let opening = reqs
                    .iter()
                    .any(|r| matches!(r, crate::engine::ChanceRequest::OpenPrivate { .. }));
                let withheld = opening && refuse_to_open;
                let mine = dice.my_reveals(&plan);
                if !mine.is_empty() && !withheld {
                    let reveals = mine
                        .iter()
                        .map(|m| match m {
                            Public::Reveal { reveal, .. } => reveal.to_base64(),
                            Public::Commit { .. } => unreachable!("reveals only"),
                        })
                        .collect();
                    let ev = pool
                        .sign(publish(DiceBody::Reveals { batch, reveals }))
                        .map_err(net)?;
                    pool.publish(&ev).await.map_err(net)?;
                }
                let owing: Vec<u16> = {
                    let mut v: Vec<u16> = plan.iter().flat_map(|p| p.revealers.clone()).collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                };
                tell::<G>(
                    &mut observer,
                    DiceNews::Waiting {
                        step: DiceStep::Reveals { opening },
                        seats: &owing,
                        deadline: step_deadline,
                    },
                );
                wait_for!(|i: &Inbox| owing
                    .iter()
                    .copied()
                    .filter(|s| !i.reveals.contains_key(&(batch, *s)))
                    .collect());
                for s in &owing {
                    let ev = inbox.reveals.remove(&(batch, *s)).expect("waited");
                    let DiceBody::Reveals { reveals, .. } = body_of(&ev).expect("filed").body
                    else {
                        unreachable!("filed as reveals")
                    };
                    let depth = dice.depth(*s);
                    for r in reveals {
                        let reveal =
                            DiceReveal::from_base64(&r, depth).map_err(|e| SessionError::Rule {
                                seat: *s,
                                reason: e.to_string(),
                            })?;
                        dice.receive(&Public::Reveal { seat: *s, reveal })?;
                    }
                    accepted.push(ev);
                }
                let outs = dice.answer(&plan)?;
                game.apply_chance(&outs).map_err(|e| SessionError::Rule {
                    seat: owing.first().copied().unwrap_or(0),
                    reason: e.to_string(),
                })?;
                tell_view(&mut observer, &game, my_index);
                batch += 1;
            }
            ToAct::Seat(s) => {
                let idx = game.seats().iter().position(|x| *x == s).expect("seated") as u16;
                if Some(idx) == my_index {
                    let legal = game.legal_actions(s);
                    let bot = bot.as_mut().ok_or_else(|| {
                        SessionError::Net("a seat needs something to choose its moves".into())
                    })?;
                    let action = bot.choose(&game.view(Some(s)), &legal);
                    let ev = pool
                        .sign(publish(DiceBody::Move {
                            n: moves,
                            prev: head.clone(),
                            action: serde_json::to_value(&action).expect("actions serialise"),
                        }))
                        .map_err(net)?;
                    pool.publish(&ev).await.map_err(net)?;
                }
                tell::<G>(
                    &mut observer,
                    DiceNews::Waiting {
                        step: DiceStep::Move,
                        seats: &[idx],
                        deadline: step_deadline,
                    },
                );
                wait_for!(|i: &Inbox| if i.moves.contains_key(&moves) {
                    Vec::new()
                } else {
                    vec![idx]
                });
                let (author, ev) = inbox.moves.remove(&moves).expect("waited");
                if author != idx {
                    return Err(SessionError::Rule {
                        seat: author,
                        reason: format!("moved out of turn (seat {idx} to act)"),
                    });
                }
                let DiceBody::Move { action, prev, .. } = body_of(&ev).expect("filed").body else {
                    unreachable!("filed as a move")
                };
                if prev != head {
                    return Err(SessionError::Rule {
                        seat: idx,
                        reason: format!("move {moves} builds on {prev}, not the head {head}"),
                    });
                }
                let action: G::Action =
                    serde_json::from_value(action).map_err(|e| SessionError::Rule {
                        seat: idx,
                        reason: format!("unreadable move: {e}"),
                    })?;
                game.apply(s, &action).map_err(|e| SessionError::Rule {
                    seat: idx,
                    reason: e.to_string(),
                })?;
                head = ev.id.to_hex();
                accepted.push(ev);
                tell_view(&mut observer, &game, my_index);
                moves += 1;
            }
            ToAct::Seats(_) => {
                return Err(SessionError::Net(
                    "dice sessions carry one actor at a time".into(),
                ))
            }
        }
    }
    Ok(DiceRun {
        game,
        batches: batch,
        moves,
        events: accepted,
    })
}

fn body_of(ev: &Event) -> Option<DiceEvent> {
    serde_json::from_str(&ev.content).ok()
}

/// Files a received event if it is a well-formed, correctly signed event of a seated key for this
/// table; anything else is dropped (relays carry strangers' events too).
fn file(inbox: &mut Inbox, seats: &[PublicKey], table: &str, game: &str, ev: Event) {
    if ev.verify().is_err() {
        return;
    }
    let Some(author) = seats.iter().position(|k| *k == ev.pubkey) else {
        return;
    };
    let Some(body) = body_of(&ev) else {
        return;
    };
    if body.v != 1 || body.table != table || body.game != game {
        return;
    }
    let author = author as u16;
    // The first event a seat sends for a step counts; a second one is a fork and is ignored
    // here (the verifier reports it).
    match body.body {
        DiceBody::Commit { .. } => {
            inbox.commits.entry(author).or_insert(ev);
        }
        DiceBody::Reveals { batch, .. } => {
            inbox.reveals.entry((batch, author)).or_insert(ev);
        }
        DiceBody::Move { n, .. } => {
            inbox.moves.entry(n).or_insert((author, ev));
        }
    }
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
