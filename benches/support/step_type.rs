//! The type of the log events that closed a step, as seat 0 saw them: the label the table and
//! passes benches sort relay passes by.

use nostr_sdk::prelude::Event;

/// The `type` of the newest of `applied` whose payload is of `step`, if any.
pub fn step_type(applied: &[&Event], step: u32) -> Option<String> {
    applied.iter().rev().find_map(|e| {
        let v: serde_json::Value = serde_json::from_str(&e.content).ok()?;
        (v["step"].as_u64()? == u64::from(step))
            .then(|| v["type"].as_str().map(str::to_owned))
            .flatten()
    })
}
