//! Checking a table from its public events alone (`tolerance verify`), and following one as a
//! spectator (`tolerance watch`): the same session every player runs, with no seat and no
//! secret.

use super::check::{check_table, name_of};
use super::error::TableError;
use super::runner::{fetch_table, run_client_on, ClientReport, OnUpdate, RunConfig, Watch};
use super::session::{Session, Verdict, Violation};
use crate::engine::Seat;
use crate::games::registry::{self, TableGame, Visit};
use crate::net::pool::{PoolConfig, RelayPool};
use crate::wire::latest;
use crate::wire::{self, TableSpec};
use nostr_sdk::prelude::*;
use serde::Serialize;
use std::time::Duration;

/// What `verify` found.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    pub table: String,
    pub game: String,
    pub host: String,
    pub seats: Vec<String>,
    /// Who holds each seat, by seat (npub): the identity that authorized the seat's table key
    /// (PROTOCOL §2.3), else the seat key itself.
    pub identities: Vec<String>,
    /// Who hosts: the identity behind the key that signed the announcement.
    pub host_identity: String,
    /// How the seats are called for people (profile names, else short npubs, of the
    /// identities), by seat.
    pub names: Vec<String>,
    /// Every event of a seated key checked out, and the game's own checks hold on the state
    /// reached (finished or not: see `finished`).
    pub ok: bool,
    pub finished: bool,
    /// The table's decisions (timeouts, removals, ignored forks, the end), in order.
    pub verdicts: Vec<Verdict>,
    /// Events of seated keys that break a rule, each naming its signer.
    pub violations: Vec<Violation>,
    /// The same, in words.
    pub problems: Vec<String>,
    /// Log events checked (from seated keys).
    pub events: u64,
    /// Events on the table's chain up to its end step: the same for every client that saw the
    /// table end (see `Stats::chain`).
    pub chain_events: u64,
    /// What the game's own invariants say of the final state (points conserved, no card held
    /// twice...): `None` when they hold.
    pub invariants: Option<String>,
    /// Events for this table by keys that hold no seat, seen in one capped look: never judged,
    /// they cannot change the table.
    pub ignored: usize,
    /// Other keys announcing a table with this id: ignored, the host named by the naddr (or
    /// the only seated one) decides.
    pub other_hosts: Vec<String>,
    pub result: String,
    pub report: serde_json::Value,
}

fn npub(pk: &PublicKey) -> String {
    pk.to_bech32().unwrap_or_else(|_| pk.to_hex())
}

/// The table a person named: by naddr (its host decides), or by id (the one host whose
/// announcement is seated; other keys claiming the id are noted).
pub async fn find_table(
    pool: &RelayPool,
    table: &str,
) -> Result<(PublicKey, TableSpec, u64, Vec<String>), TableError> {
    let (id, host, _) = wire::parse_table_ref(table).map_err(TableError::NotFound)?;
    if let Some(host) = host {
        let (spec, start) = fetch_table(pool, &host, &id, Duration::from_secs(5)).await?;
        let others = other_hosts(pool, &id, &host).await;
        return Ok((host, spec, start, others));
    }
    let events = pool
        .fetch(
            vec![Filter::new()
                .kind(Kind::from(wire::KIND_TABLE))
                .identifier(&id)],
            Duration::from_secs(5),
        )
        .await?;
    let mut hosts: Vec<PublicKey> = events.iter().map(|e| e.pubkey).collect();
    hosts.sort();
    hosts.dedup();
    let mut seated = Vec::new();
    // Why each host's table was refused: with one host, that is the answer.
    let mut refused = Vec::new();
    for h in &hosts {
        let mine: Vec<Event> = events.iter().filter(|e| e.pubkey == *h).cloned().collect();
        if let Some(ev) = latest(&mine) {
            match wire::parse_table(ev) {
                Ok(spec) if spec.is_seated() => {
                    match super::lobby::check_seated(pool, h, &spec, Duration::ZERO).await {
                        Ok(()) => seated.push((*h, spec, ev.created_at.as_secs())),
                        Err(e) => refused.push(e),
                    }
                }
                Ok(_) => {}
                Err(e) => refused.push(TableError::Setup(e.to_string())),
            }
        }
    }
    match seated.len() {
        0 if hosts.is_empty() => Err(TableError::NotFound(format!(
            "no table {id} on these relays"
        ))),
        0 if hosts.len() == 1 && refused.len() == 1 => Err(refused.remove(0)),
        0 => Err(TableError::NotSeated(format!(
            "table {id} was announced but never seated"
        ))),
        1 => {
            let (h, spec, start) = seated.remove(0);
            let others = hosts.iter().filter(|x| **x != h).map(npub).collect();
            Ok((h, spec, start, others))
        }
        _ => Err(TableError::NotFound(format!(
            "{} different keys announce a seated table {id}: name it by its naddr to say whose \
             ({})",
            seated.len(),
            seated
                .iter()
                .map(|(h, _, _)| npub(h))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// How the seats are called for people: profile names where the relays have them, else short
/// npubs (never "seat 0").
pub async fn seat_names(pool: &RelayPool, spec: &TableSpec) -> Vec<String> {
    let keys = spec.identities();
    let names = crate::net::profiles::fetch_names(pool, &keys, Duration::from_secs(2)).await;
    keys.iter()
        .map(|k| crate::net::profiles::name_or_npub(&names, k))
        .collect()
}

async fn other_hosts(pool: &RelayPool, id: &str, host: &PublicKey) -> Vec<String> {
    let events = pool
        .fetch(
            vec![Filter::new()
                .kind(Kind::from(wire::KIND_TABLE))
                .identifier(id)],
            Duration::from_secs(3),
        )
        .await
        .unwrap_or_default();
    let mut others: Vec<String> = events
        .iter()
        .filter(|e| e.pubkey != *host)
        .map(|e| npub(&e.pubkey))
        .collect();
    others.sort();
    others.dedup();
    others
}

/// Fetches a table's announcement and every event of its seated keys, and checks them all.
pub async fn verify_table(relays: &[String], table: &str) -> Result<VerifyReport, TableError> {
    let pool = RelayPool::connect(Keys::generate(), relays, PoolConfig::default()).await?;
    let (host, spec, start, other_hosts) = find_table(&pool, table).await?;
    let filter = wire::log_filter(&host, &spec.table, &spec.seat_keys());
    let events = pool.fetch_all(filter, 500, Duration::from_secs(10)).await?;
    // One capped look at what else claims to be this table's log.
    let strangers = pool
        .fetch(
            vec![wire::log_filter(&host, &spec.table, &[]).limit(500)],
            Duration::from_secs(5),
        )
        .await
        .unwrap_or_default();
    let names = seat_names(&pool, &spec).await;
    let seat_keys = spec.seat_keys();
    let ignored = strangers
        .iter()
        .filter(|e| !seat_keys.contains(&e.pubkey))
        .count();
    pool.shutdown().await;
    let checked = check_table(&spec, start, &events, &names).map_err(TableError::Setup)?;
    let problems = checked
        .violations
        .iter()
        .map(|v| v.text_named(&|x| name_of(&names, x)))
        .collect();
    Ok(VerifyReport {
        table: spec.table.clone(),
        game: spec.game.clone(),
        host: npub(&host),
        host_identity: npub(&spec.identity_of(&host)),
        seats: seat_keys.iter().map(npub).collect(),
        identities: spec.identities().iter().map(npub).collect(),
        names: names.clone(),
        ok: checked.ok(),
        finished: checked.finished,
        verdicts: checked.verdicts,
        violations: checked.violations,
        problems,
        events: checked.events,
        chain_events: checked.chain_events,
        invariants: checked.invariants,
        ignored,
        other_hosts,
        result: checked.result,
        report: checked.report,
    })
}

pub use super::check::{verdict_text, verdict_text_named, verdict_words};

/// A table found for a spectator, seated, with its players' names: what following it takes.
pub struct Watched {
    pub pool: RelayPool,
    pub spec: TableSpec,
    pub start: u64,
    pub host: PublicKey,
    pub relays: Vec<String>,
    pub names: Vec<String>,
    /// Who hosts it, by name where one is known.
    pub host_name: String,
}

/// Finds `table` on `relays` for a spectator, waiting (and saying so) while it is still in its
/// lobby.
pub async fn find_to_watch(relays: &[String], table: &str) -> Result<Watched, TableError> {
    let pool = RelayPool::connect(Keys::generate(), relays, PoolConfig::default()).await?;
    let (id, host, _) = wire::parse_table_ref(table).map_err(TableError::NotFound)?;
    let host = match host {
        Some(h) => h,
        None => find_table(&pool, table).await?.0,
    };
    // A table still in its lobby: wait for it to be seated.
    let (spec, start) = loop {
        match fetch_table(&pool, &host, &id, Duration::from_secs(10)).await {
            Ok(x) => break x,
            Err(TableError::NotSeated(_)) => {
                eprintln!("waiting for the table to be seated…");
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
            Err(e) => return Err(e),
        }
    };
    let names = seat_names(&pool, &spec).await;
    let host_name = spec
        .seat_keys()
        .iter()
        .position(|k| *k == host)
        .map(|s| names[s].clone())
        .unwrap_or_else(|| crate::net::profiles::short_npub(&host));
    Ok(Watched {
        pool,
        spec,
        start,
        host,
        relays: relays.to_vec(),
        names,
        host_name,
    })
}

/// How a spectator's client follows a watched table: it signs nothing, owes no shuffle, and
/// reports each batch it reads to `on_update`.
pub fn spectator_config<G: TableGame>(w: &Watched, on_update: OnUpdate<G>) -> RunConfig<G> {
    RunConfig::<G> {
        keys: w.pool.keys().clone(),
        relays: w.relays.clone(),
        host: w.host,
        spec: w.spec.clone(),
        start: w.start,
        decider: Box::new(Watch),
        journal: None,
        on_update: Some(on_update),
        idle: Duration::from_millis(w.spec.deadlines.move_ms.max(w.spec.deadlines.crypto_ms) * 3)
            + Duration::from_secs(30),
        #[cfg(any(test, feature = "test-support"))]
        tamper: None,
        pool: PoolConfig::default(),
        names: w.names.clone(),
        speculate: false,
        clock_skew: 0,
    }
}

/// The end line of a watched table.
pub fn watched_over(report: &ClientReport) -> String {
    super::drive::over_line(&report.result, report.stats.events, report.violations.len())
}

/// Follows a table live (or replays a finished one) as a spectator, printing what happens.
pub async fn watch(relays: &[String], table: &str) -> Result<String, TableError> {
    let w = find_to_watch(relays, table).await?;
    println!(
        "watching {} table {} hosted by {}",
        w.spec.game,
        &w.spec.table[..16],
        w.host_name
    );
    for (s, n) in w.names.iter().enumerate() {
        println!("  seat {s}: {n}");
    }
    let (pool, game) = (w.pool.clone(), w.spec.game.clone());
    let out = match registry::with_game(&game, Follow(w)) {
        Ok(followed) => followed.await,
        Err(e) => Err(TableError::Setup(e)),
    };
    pool.shutdown().await;
    out
}

/// Following a table in lines.
struct Follow(Watched);

impl Visit for Follow {
    type Out =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<String, TableError>> + Send>>;
    fn visit<G: TableGame>(self) -> Self::Out {
        Box::pin(async move {
            let w = self.0;
            let mut shown = 0usize;
            let mut verdicts = 0usize;
            let seat_names = w.names.clone();
            let cfg = spectator_config::<G>(
                &w,
                Box::new(move |s: &Session<G>, _| {
                    let names = |x: Seat| name_of(&seat_names, x);
                    let story = s.game().story(None, &names);
                    for line in story.iter().skip(shown) {
                        println!("  · {line}");
                    }
                    shown = story.len();
                    for v in s.verdicts().iter().skip(verdicts) {
                        println!("  ! {}", verdict_words(v, &names));
                    }
                    verdicts = s.verdicts().len();
                }),
            );
            let report = run_client_on(w.pool.clone(), cfg).await?;
            for v in &report.violations {
                println!("  rejected: {}", v.text_named(&|x| name_of(&w.names, x)));
            }
            Ok(watched_over(&report))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ForfeitReason;

    #[test]
    fn the_table_reads_verdicts_in_plain_words_and_verify_keeps_the_terms() {
        let names = |s: Seat| ["you", "Ben", "Cy"][s as usize].to_string();
        let crash = Verdict::Removed {
            step: 40,
            seats: vec![1],
            reason: ForfeitReason::Withheld,
            sitting_out: true,
        };
        assert_eq!(
            verdict_words(&crash, &names),
            "Ben's client stopped answering: Ben sits out until back at the table"
        );
        assert_eq!(
            verdict_text_named(&crash, &names),
            "step 40: Ben: out of the hand, dealt out until back (withheld a protocol step past \
             its deadline)"
        );
        let mine = Verdict::Removed {
            step: 9,
            seats: vec![0],
            reason: ForfeitReason::Left,
            sitting_out: false,
        };
        assert_eq!(
            verdict_words(&mine, &names),
            "you left the table: you are out of the game"
        );
        let late = Verdict::TimedOut {
            step: 3,
            seats: vec![0, 2],
        };
        assert_eq!(
            verdict_words(&late, &names),
            "you and Cy timed out: the default move was played"
        );
        let back = Verdict::Back {
            step: 50,
            seats: vec![0],
        };
        assert_eq!(
            verdict_words(&back, &names),
            "you are back at the table, dealt in from the next hand"
        );
        for v in [crash, mine, late, back, Verdict::Finished { step: 60 }] {
            let w = verdict_words(&v, &names);
            assert!(!w.contains("step") && !w.contains("protocol"), "{w}");
        }
    }
}
