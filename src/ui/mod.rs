//! User interfaces: they read a seat's view and return a chosen move, never the full state.

#[cfg(feature = "runtime")]
pub mod line;
#[cfg(feature = "terminal")]
pub mod tui;

use crate::engine::Seat;

/// How a seat is called at a table: the runtime names seats in its reports the same way.
pub use crate::table::drive::seat_name;

/// The seats of a game on this machine: the person at seat 0, bots at the others.
pub fn local_names(players: u8) -> Vec<String> {
    (0..players)
        .map(|s| {
            if s == 0 {
                "you".to_string()
            } else {
                format!("bot {s}")
            }
        })
        .collect()
}

/// What the table is doing while it waits, for people: a chance step named by what it deals or
/// rolls ("deal", "roll"…) instead of the session's "chance"; any other step as the session
/// names it.
pub fn awaiting_what<G: crate::engine::Game>(
    a: &crate::table::session::Awaiting,
    game: &G,
) -> &'static str {
    use crate::engine::{ChanceRequest as R, ToAct};
    if a.what != "chance" {
        return a.what;
    }
    let ToAct::Chance(reqs) = game.to_act() else {
        return a.what;
    };
    let any = |f: fn(&R) -> bool| reqs.iter().any(f);
    if any(|r| matches!(r, R::Shuffle { .. })) {
        "shuffle"
    } else if any(|r| matches!(r, R::Deal { .. } | R::DealSealed { .. })) {
        "deal"
    } else if any(|r| matches!(r, R::Reveal { .. } | R::Show { .. })) {
        "reveal"
    } else if any(|r| matches!(r, R::RollPublic { .. } | R::RollPrivate { .. })) {
        "roll"
    } else if any(|r| matches!(r, R::OpenPrivate { .. })) {
        "open-dice"
    } else if any(|r| matches!(r, R::Whisper { .. })) {
        "whisper"
    } else if any(|r| matches!(r, R::OpenWhisper { .. })) {
        "open-whisper"
    } else {
        a.what
    }
}

/// What the table waits for and from whom, in a player's words ("waiting for Ben to move");
/// empty when it waits for nobody.
pub fn waiting_line<G: crate::engine::Game>(
    a: &crate::table::session::Awaiting,
    game: &G,
    name: &dyn Fn(Seat) -> String,
) -> String {
    if a.seats.is_empty() {
        return String::new();
    }
    let who: Vec<String> = a.seats.iter().map(|s| name(*s)).collect();
    waiting_words(awaiting_what(a, game), &who.join(", "))
}

/// "shuffling the cards: waiting for Ben": what the table does and whom it waits for, in the
/// words a player uses (never the protocol's "chance" or "step").
pub fn waiting_words(what: &str, who: &str) -> String {
    match what {
        "move" => format!("waiting for {who} to move"),
        "seal" => format!("waiting for {who} to choose (sealed)"),
        "setup" => format!("setting up: waiting for {who}"),
        // Short: the status line shares 80 columns with the countdown and the relays.
        "shuffle" => format!("shuffling: waiting for {who}"),
        "deal" => format!("dealing the cards: waiting for {who}"),
        "reveal" => format!("showing the cards: waiting for {who}"),
        "roll" => format!("rolling the dice: waiting for {who}"),
        "open-dice" => format!("opening the dice: waiting for {who}"),
        "whisper" => format!("whispering the word: waiting for {who}"),
        "open-whisper" => format!("opening the whispered word: waiting for {who}"),
        "chance" => format!("dealing or rolling: waiting for {who}"),
        "open" => format!("opening the sealed choices: waiting for {who}"),
        "ack" => format!("waiting for {who} to say they are still here"),
        "end" => format!("closing the table: waiting for {who}"),
        "return" => format!("waiting for {who} to come back (tolerance resume)"),
        "over" => "table over".into(),
        _ => format!("waiting for {who}"),
    }
}

/// The story's line once `name`'s time bank is used up, with the seconds a move has from then
/// on ("your time bank is spent: each move now has only its 60 s").
pub fn bank_spent_text(name: String, move_secs: u64) -> String {
    if name == crate::games::ui::words::YOU {
        format!("your time bank is spent: each move now has only its {move_secs} s")
    } else {
        format!(
            "{} time bank is spent: each of {name}'s moves now has only its {move_secs} s",
            crate::games::ui::words::whose(name.clone())
        )
    }
}

/// The seats of `spent` not told yet, each told once: their lines, `told` updated.
pub fn banks_newly_spent(
    spent: &[Seat],
    told: &mut Vec<Seat>,
    name: &dyn Fn(Seat) -> String,
    move_secs: u64,
) -> Vec<String> {
    let mut lines = Vec::new();
    for s in spent {
        if !told.contains(s) {
            told.push(*s);
            lines.push(bank_spent_text(name(*s), move_secs));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{fulfil_all, Oracle};
    use crate::engine::{Game, ToAct};
    use crate::games::mia::Mia;
    use crate::games::registry::{SetupOptions, TableGame};
    use crate::table::session::Awaiting;
    use rand::SeedableRng;

    #[test]
    fn a_chance_step_is_named_by_what_it_deals_or_rolls() {
        let opts = SetupOptions {
            players: 2,
            ..SetupOptions::default()
        };
        let mut g = Mia::start(&Mia::setup(&opts).unwrap(), 2).unwrap();
        let chance = |what| Awaiting {
            step: 3,
            what,
            seats: vec![1],
        };
        let mut oracle = Oracle::new(rand::rngs::StdRng::seed_from_u64(1));
        // Mia's chance is all dice: who starts, the cups, their opening.
        let mut named = Vec::new();
        for _ in 0..20 {
            match g.to_act() {
                ToAct::Chance(reqs) => {
                    named.push(awaiting_what(&chance("chance"), &g));
                    g.apply_chance(&fulfil_all(&mut oracle, &reqs).unwrap())
                        .unwrap();
                }
                ToAct::Seat(s) => {
                    let a = g.legal_actions(s)[0];
                    g.apply(s, &a).unwrap();
                }
                _ => break,
            }
        }
        assert!(named.contains(&"roll"), "{named:?}");
        assert!(
            named.iter().all(|w| ["roll", "open-dice"].contains(w)),
            "{named:?}"
        );
        assert_eq!(awaiting_what(&chance("move"), &g), "move");
        for what in [
            "shuffle",
            "deal",
            "reveal",
            "roll",
            "open-dice",
            "chance",
            "whatever",
        ] {
            let w = waiting_words(what, "Ben");
            assert!(w.contains("Ben") && !w.contains("chance"), "{w}");
        }
        assert_eq!(
            waiting_words("roll", "Ben"),
            "rolling the dice: waiting for Ben"
        );
    }

    #[test]
    fn a_spent_time_bank_is_told_once_to_its_owner_and_to_the_others() {
        let name = |s: Seat| ["you", "Ben"][s as usize].to_string();
        let mut told = Vec::new();
        assert!(banks_newly_spent(&[], &mut told, &name, 60).is_empty());
        assert_eq!(
            banks_newly_spent(&[1], &mut told, &name, 60),
            ["Ben's time bank is spent: each of Ben's moves now has only its 60 s"]
        );
        assert_eq!(
            banks_newly_spent(&[0, 1], &mut told, &name, 15),
            ["your time bank is spent: each move now has only its 15 s"]
        );
        assert!(banks_newly_spent(&[0, 1], &mut told, &name, 15).is_empty());
    }
}
