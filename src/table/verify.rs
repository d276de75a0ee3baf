//! `tolerance verify`: fetch a finished table from relays and re-check everything as a
//! spectator would — signatures, chain, shuffle proofs, tokens, dice, every rule — reporting the
//! first violation.

use super::old_session::{HandSummary, Session, Violation};
use crate::net::pool::{PoolConfig, RelayPool};
use crate::wire;
use nostr_sdk::prelude::*;
use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    pub table: String,
    pub host: String,
    pub ok: bool,
    pub finished: bool,
    pub events: u64,
    pub hands: Vec<HandSummary>,
    pub first_violation: Option<Violation>,
    pub final_stacks: Vec<Option<u64>>,
}

/// Finds table `table`'s announcement by its id (any host; refuses an ambiguous id).
pub async fn find_table(
    pool: &RelayPool,
    relays: &[String],
    table: &str,
    known_host: Option<PublicKey>,
) -> Result<(PublicKey, wire::TableSpec), String> {
    let announcements = pool
        .fetch(
            vec![Filter::new()
                .kind(Kind::from(wire::KIND_TABLE))
                .identifier(table)],
            Duration::from_secs(5),
        )
        .await
        .map_err(|e| e.to_string())?;
    let mut hosts: Vec<PublicKey> = announcements
        .iter()
        .map(|e| e.pubkey)
        .filter(|h| known_host.is_none_or(|k| k == *h))
        .collect();
    hosts.sort();
    hosts.dedup();
    let host = match hosts.as_slice() {
        [h] => *h,
        [] => return Err(format!("no table {table} on {}", relays.join(", "))),
        _ => {
            return Err(format!(
                "{} different hosts announce table {table}",
                hosts.len()
            ))
        }
    };
    let ann = announcements
        .iter()
        .filter(|e| e.pubkey == host)
        .max_by_key(|e| e.created_at)
        .expect("non-empty");
    let spec = wire::parse_table(ann).map_err(|e| e.to_string())?;
    Ok((host, spec))
}

/// Fetches table `table` (any host; refuses an ambiguous id) and replays it.
pub async fn verify_table(relays: &[String], table: &str) -> Result<VerifyReport, String> {
    let pool = RelayPool::connect(Keys::generate(), relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let (host, spec) = find_table(&pool, relays, table, None).await?;
    // A lobby table's seat order must follow from the players' nonces, whoever announced it.
    super::lobby::check_seated(&pool, &host, &spec).await?;
    if spec.game != "tolerance" {
        return Err(format!(
            "table {table} is a {} table; dice tables are replayed by dice_seat::verify",
            spec.game
        ));
    }
    let events = pool
        .fetch(
            vec![wire::log_filter(&host, table)],
            Duration::from_secs(10),
        )
        .await
        .map_err(|e| e.to_string())?;
    pool.shutdown().await;
    let report = tokio::task::spawn_blocking(move || {
        let mut s = Session::new(spec, host, None)?;
        for ev in &events {
            s.handle(ev);
        }
        Ok::<_, String>(VerifyReport {
            table: s.spec.table.clone(),
            host: host.to_hex(),
            ok: s.violations.is_empty() && s.is_finished(),
            finished: s.is_finished(),
            events: s.stats.events,
            hands: s.hands.clone(),
            first_violation: s.violations.first().cloned(),
            final_stacks: s.table.stacks.clone(),
        })
    })
    .await
    .map_err(|e| e.to_string())??;
    Ok(report)
}

/// The table id and relays from what a person typed: `--table` as hex or naddr, `--relay`
/// optional when the naddr carries relay hints.
fn resolve(
    relays: Vec<String>,
    table: &str,
) -> Result<(Vec<String>, String, Option<PublicKey>), String> {
    let (id, host, hints) = wire::parse_table_ref(table)?;
    let relays = if relays.is_empty() { hints } else { relays };
    if relays.is_empty() {
        return Err("name a relay with --relay URL (or give an naddr with relay hints)".into());
    }
    Ok((relays, id, host))
}

pub async fn verify_cli(relays: Vec<String>, table: String, json: bool) -> Result<(), String> {
    let (relays, table, known_host) = resolve(relays, &table)?;
    let pool = RelayPool::connect(Keys::generate(), &relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let found = find_table(&pool, &relays, &table, known_host).await;
    if let Ok((host, spec)) = &found {
        if spec.game != "tolerance" {
            let out = super::dice_seat::verify(&pool, host, spec).await;
            pool.shutdown().await;
            let line = out?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({"table": table, "game": spec.game, "ok": true, "result": line})
                );
            } else {
                println!("{line}");
            }
            return Ok(());
        }
    }
    pool.shutdown().await;
    found?;
    let r = verify_table(&relays, &table).await?;
    if json {
        println!("{}", serde_json::to_string(&r).expect("serialisable"));
    } else {
        println!(
            "table {}: {} events, {} hands, finished: {}",
            r.table,
            r.events,
            r.hands.len(),
            r.finished
        );
        match &r.first_violation {
            Some(v) => println!("FIRST VIOLATION: {v}"),
            None if r.finished => println!("every signature, proof and rule checks out"),
            None => println!("no violation so far, but the table is not finished"),
        }
    }
    if r.ok {
        Ok(())
    } else {
        Err("verification failed".into())
    }
}

/// `tolerance watch`: follows a table live as a spectator (its own throwaway key, no seat),
/// printing each move as it is verified; a finished table replays to its end. A spectator sees
/// only public events, so it never learns a card that was not shown, nor a die before its cup
/// is opened (dice tables: [`super::dice_seat::watch`]).
pub async fn watch_cli(relays: Vec<String>, table: String) -> Result<(), String> {
    use super::runner::{run_client, ClientConfig, Decider};
    let (relays, table, known_host) = resolve(relays, &table)?;
    let pool = RelayPool::connect(Keys::generate(), &relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let (host, spec) = find_table(&pool, &relays, &table, known_host).await?;
    if spec.game != "tolerance" {
        let out = super::dice_seat::watch(&pool, &relays, &host, spec).await;
        pool.shutdown().await;
        return out;
    }
    pool.shutdown().await;
    // Lines already printed for (hand, log length): live views print as moves arrive; a hand's
    // summary prints whatever a batch of events skipped past.
    let printed = std::sync::Arc::new(std::sync::Mutex::new((u64::MAX, 0usize)));
    let printed2 = printed.clone();
    let print_from = |hand: u64,
                      log: &[crate::games::tolerance::hand::LogEntry],
                      printed: &std::sync::Mutex<(u64, usize)>| {
        let mut p = printed.lock().expect("not poisoned");
        let from = if p.0 == hand { p.1 } else { 0 };
        for e in log.iter().skip(from) {
            println!(
                "  · {}",
                crate::ui::line::entry_text(e, &|s| format!("seat {s}"))
            );
        }
        *p = (hand, log.len().max(from));
    };
    let report = run_client(ClientConfig {
        keys: Keys::generate(),
        relays,
        host,
        table,
        decider: Decider::Watch,
        idle_timeout: std::time::Duration::from_secs(3600),
        tamper: None,
        on_progress: None,
        on_hand: Some(Box::new(move |h: &HandSummary| {
            print_from(h.hand, &h.log, &printed);
            println!("hand {} over: stacks {:?}", h.hand + 1, h.final_stacks);
            for (seat, cards) in &h.shown {
                let c: Vec<String> = cards
                    .iter()
                    .map(|c| crate::cards::PlayingCard::from_id(*c).to_string())
                    .collect();
                println!("  seat {seat} showed {}", c.join(" "));
            }
        })),
        on_view: Some(Box::new(move |v: &crate::games::tolerance::HandView| {
            print_from(v.hand_no, &v.log, &printed2);
        })),
        journal: None,
    })
    .await?;
    println!(
        "table over: {} hands, {} events checked, {} violations",
        report.hands.len(),
        report.stats.events,
        report.violations.len()
    );
    for v in &report.violations {
        println!("  violation: {v}");
    }
    Ok(())
}
