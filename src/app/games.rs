//! `tolerance games`: what this program plays.

pub fn run(json: bool) -> Result<(), String> {
    let games = crate::games::registry::all();
    if json {
        println!("{}", serde_json::to_string(&games).expect("serialisable"));
        return Ok(());
    }
    for g in games {
        println!(
            "{:<11} {}, {} to {} players: {}",
            g.name, g.title, g.min_players, g.max_players, g.summary
        );
    }
    Ok(())
}
