//! `tolerance replay`: a game script with fixed cards and dice, through the engine.

use std::path::PathBuf;

pub fn run(file: PathBuf) -> Result<(), String> {
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| e.to_string())?
    } else {
        std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?
    };
    let out = crate::games::registry::replay_script(&text)?;
    println!(
        "{}",
        serde_json::to_string_pretty(&out.json).expect("serialisable")
    );
    if out.ok {
        Ok(())
    } else {
        Err(format!(
            "rule error{}: {}",
            out.at_action
                .map(|i| format!(" at move {}", i + 1))
                .unwrap_or_default(),
            out.error.unwrap_or_default()
        ))
    }
}
