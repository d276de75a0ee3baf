//! User interfaces: they read a seat's view and return a chosen move, never the full state.

#[cfg(feature = "runtime")]
pub mod line;
#[cfg(feature = "terminal")]
pub mod tui;

use crate::engine::Seat;

/// How seat `s` is called at a table whose seats are named `names` ("you", a profile name, a
/// short npub, "bot 2"); a seat past the list is "seat N".
pub fn seat_name(names: &[String], s: Seat) -> String {
    names
        .get(s as usize)
        .cloned()
        .unwrap_or_else(|| format!("seat {s}"))
}

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
