//! `tolerance games`: what this program plays.

pub fn run(json: bool) -> Result<(), String> {
    let games = crate::games::registry::all();
    if json {
        println!("{}", serde_json::to_string(&games).expect("serialisable"));
        return Ok(());
    }
    // The names in one column, as wide as the longest registered name.
    let width = games.iter().map(|g| g.name.len()).max().unwrap_or(0);
    for g in games {
        println!(
            "{:<width$}  {}, {} to {} players: {}",
            g.name, g.title, g.min_players, g.max_players, g.summary
        );
    }
    Ok(())
}
