//! `tolerance race`: open a duplicate race of a solitaire (Scoundrel, The Bogey, Shooting Party) — a table whose entrants
//! all play the same deal, which none of them could choose or foresee — and play your entry.
//! Others join it by naddr (`tolerance join`) or by the invitation sent to their npub. It is
//! `host` with the race's words: which clients must stay online, and what happens if one drops.

use super::host::HostArgs;

/// The games played as races (each entrant alone on the one deal).
pub const RACE_GAMES: &[&str] = &["scoundrel", "the-bogey", "shooting-party"];

#[derive(Debug, Clone, clap::Args)]
pub struct RaceArgs {
    #[command(flatten)]
    pub host: HostArgs,
}

/// Checks the game is a race and opens it as a hosted table.
pub async fn run(args: RaceArgs) -> Result<(), String> {
    let game = args.host.game.as_str();
    if !RACE_GAMES.contains(&game) {
        return Err(format!(
            "'{game}' is not raced: name one of {} with --game (other games: tolerance host)",
            RACE_GAMES.join(", ")
        ));
    }
    let (deck, draws) = match game {
        "the-bogey" => (
            "deck",
            "it draws it (into its hand or for the bogey); an entrant's discards are reshuffled \
             by every entrant when its deck runs out",
        ),
        "shooting-party" => (
            "deck of guests",
            "it draws it; an entrant's draw pile is rebuilt from its discards (twice at most) and \
             shuffled after the joker's search by every entrant",
        ),
        _ => ("dungeon", "it enters that entrant's room"),
    };
    println!(
        "A {game} race: every entrant shuffles the one {deck} before anyone sees a card; each \
         card reaches an entrant only when {draws}; every card drawn is shown at the end, so \
         anyone can verify every score (tolerance verify).\n\
         Keep this program running until the race ends: your client deals the others' cards \
         as they draw them. If an entrant's client stops answering, the race stops for everyone \
         and every game so far is shown, checked and scored (protocol/rules/{game}.md §8)."
    );
    super::host::run(args.host).await
}
