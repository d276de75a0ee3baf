//! The plain line interface for every game: what happens, printed as sentences; a prompt when
//! it is your turn; moves typed as words. For scripts, screen readers and terminals without
//! the table screen. The table runner keeps serving the table while the person types.

use crate::engine::Seat;
use crate::games::registry::TableGame;
use crate::table::runner::{Ask, OnUpdate, PersonDecider, RelayHealth};
use crate::table::session::Session;
use crate::table::verify::verdict_words;
use std::io::{BufRead, Write};
use tokio::sync::mpsc;

/// Seat names as a person reads them: "you" for the reader's own seat.
pub fn namer(names: &[String], me: Option<Seat>) -> impl Fn(Seat) -> String + Clone + '_ {
    move |s: Seat| {
        if Some(s) == me {
            "you".to_string()
        } else {
            super::seat_name(names, s)
        }
    }
}

/// Prints what happens at the table: new lines of the game's story, the table's decisions,
/// what the protocol waits for (when it changes) and relay trouble.
pub fn printer<G: TableGame>(names: Vec<String>, me: Option<Seat>) -> OnUpdate<G> {
    let mut shown = 0usize;
    let mut verdicts = 0usize;
    let mut last_wait = String::new();
    let mut last_error: Option<String> = None;
    let mut notes: Vec<String> = Vec::new();
    let mut banks_told: Vec<Seat> = Vec::new();
    Box::new(move |s: &Session<G>, health: &RelayHealth| {
        let name = namer(&names, me);
        let story = s.game().story(me, &name);
        for line in story.iter().skip(shown) {
            println!("  · {line}");
        }
        shown = story.len();
        for v in s.verdicts().iter().skip(verdicts) {
            println!("  ! {}", verdict_words(v, &name));
        }
        verdicts = s.verdicts().len();
        for line in
            super::banks_newly_spent(&s.banks_spent(), &mut banks_told, &name, s.move_secs())
        {
            println!("  ! {line}");
        }
        let a = s.awaiting();
        let waiting = if s.is_finished() {
            String::new()
        } else {
            super::waiting_line(&a, s.game(), &name)
        };
        if waiting != last_wait
            && !waiting.is_empty()
            && std::env::var_os("TOLERANCE_VERBOSE").is_some()
        {
            println!("    {waiting}");
        }
        last_wait = waiting;
        if health.last_error != last_error {
            if let Some(e) = &health.last_error {
                println!("  relay trouble: {e} (retrying)");
            }
            last_error = health.last_error.clone();
        }
        for note in &health.notes {
            if !notes.contains(note) {
                println!("  relay: {note}");
            }
        }
        notes = health.notes.clone();
    })
}

/// A person deciding by typing: each turn is shown and read on a thread of its own. Lines are
/// read on another, so a turn that timed out while the person was still typing is given up at
/// once (the next line goes to the next prompt, not to a question nobody waits for).
pub fn person<G: TableGame>(names: Vec<String>, me: Seat) -> PersonDecider<G> {
    let (line_tx, line_rx) = std::sync::mpsc::channel::<String>();
    let typed = typed_lines();
    std::thread::spawn(move || loop {
        let line = match typed.lock() {
            Ok(lines) => lines.recv(),
            Err(_) => break,
        };
        let Ok(line) = line else { break };
        if line_tx.send(line).is_err() {
            break;
        }
    });
    person_reading(names, me, line_rx, Box::new(std::io::stdout()))
}

/// The lines typed on standard input, read by one thread for the whole program: whoever reads
/// them next (the host's `start` while a table fills, then the table's prompts) gets the next
/// line, and no reader left behind swallows a line meant for another.
pub fn typed_lines() -> &'static std::sync::Mutex<std::sync::mpsc::Receiver<String>> {
    static LINES: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Receiver<String>>> =
        std::sync::OnceLock::new();
    LINES.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        std::sync::Mutex::new(rx)
    })
}

/// [`person`] reading typed lines from `lines` and writing to `out`.
fn person_reading<G: TableGame>(
    names: Vec<String>,
    me: Seat,
    lines: std::sync::mpsc::Receiver<String>,
    mut out: Box<dyn Write + Send>,
) -> PersonDecider<G> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Ask<G>>();
    std::thread::spawn(move || {
        // A terminal that went away must not stop the table: what cannot be written is lost.
        while let Some(ask) = rx.blocking_recv() {
            if ask.answer.is_closed() {
                // Timed out before it was even shown.
                continue;
            }
            let name = namer(&names, Some(me));
            let _ = write!(out, "{}", G::render(&ask.turn.view, &name));
            if ask.turn.sealed {
                let _ = writeln!(
                    out,
                    "  (a sealed choice: nobody sees it until everyone chose)"
                );
            }
            let answer = loop {
                let _ = write!(out, "{}", G::prompt(&ask.turn.view, &ask.turn.legal));
                let _ = out.flush();
                let input = loop {
                    match lines.recv_timeout(std::time::Duration::from_millis(200)) {
                        Ok(line) => break Ok(line),
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                            if ask.answer.is_closed() {
                                break Err(true);
                            }
                        }
                        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break Err(false),
                    }
                };
                let input = match input {
                    Ok(line) => line,
                    // The table went on without this move (its deadline passed).
                    Err(true) => break None,
                    // End of input: leave, as before.
                    Err(false) => {
                        let _ = writeln!(out);
                        break None;
                    }
                };
                let input = input.trim();
                if matches!(input, "q" | "quit" | "leave") {
                    break None;
                }
                match G::parse_move(input, &ask.turn.view, &ask.turn.legal) {
                    Ok(a) if offered(&ask.turn.legal, &a) => break Some(a),
                    Ok(_) => {
                        let _ = writeln!(out, "  that move is not allowed now");
                    }
                    Err(e) => {
                        let _ = writeln!(out, "  {e}");
                    }
                }
            };
            if ask.answer.is_closed() {
                let _ = writeln!(out, "\n  too late: the table went on without that move");
                let _ = out.flush();
                continue;
            }
            let leaving = answer.is_none();
            let _ = ask.answer.send(answer);
            if leaving {
                break;
            }
        }
    });
    PersonDecider {
        asks: tx,
        quit: None,
    }
}

/// Whether a typed move is one the seat is offered: one of `legal`, or a move with an amount
/// (a no-limit raise) of a kind listed there by a few representative amounts — the rules check
/// any other amount when it is made. Every typed move goes through this before the rules: the
/// rules accept some moves only each seat's own client can refuse (a draw while holding a tile
/// that fits, which nobody else can see).
pub fn offered<A: PartialEq + serde::Serialize>(legal: &[A], a: &A) -> bool {
    if legal.contains(a) {
        return true;
    }
    let json = serde_json::to_value(a).unwrap_or_default();
    legal.iter().any(|l| {
        let lj = serde_json::to_value(l).unwrap_or_default();
        match (lj.as_object(), json.as_object()) {
            (Some(x), Some(y)) => x.keys().eq(y.keys()),
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::high_card::{Action, HighCard, Setup};
    use crate::table::session::Turn;
    use tokio::sync::oneshot;

    /// What the person's thread writes, for the test to wait on.
    struct Screen(std::sync::mpsc::Sender<String>);

    impl Write for Screen {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let _ = self.0.send(String::from_utf8_lossy(buf).into_owned());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Reads the screen until `what` appears (the thread's own order of events, no timing).
    fn until(screen: &std::sync::mpsc::Receiver<String>, what: &str) {
        let mut seen = String::new();
        while !seen.contains(what) {
            seen.push_str(&screen.recv().expect("the person's thread writes on"));
        }
    }

    #[test]
    fn a_line_typed_after_a_turn_timed_out_answers_the_next_turn() {
        let (line_tx, lines) = std::sync::mpsc::channel();
        let (screen_tx, screen) = std::sync::mpsc::channel();
        let d = person_reading::<HighCard>(
            vec!["Ana".into(), "Ben".into()],
            0,
            lines,
            Box::new(Screen(screen_tx)),
        );
        let game = HighCard::new(&Setup::new(2)).unwrap();
        let turn = || Turn::<HighCard> {
            step: 1,
            view: crate::engine::Game::view(&game, Some(0)),
            legal: vec![Action::Keep, Action::Swap],
            sealed: false,
        };
        let (first, first_rx) = oneshot::channel();
        d.asks
            .send(Ask {
                turn: turn(),
                answer: first,
            })
            .unwrap();
        until(&screen, "? > ");
        // The table goes on without this move: its deadline passed while the person thought.
        drop(first_rx);
        until(&screen, "too late");
        let (second, second_rx) = oneshot::channel();
        d.asks
            .send(Ask {
                turn: turn(),
                answer: second,
            })
            .unwrap();
        until(&screen, "? > ");
        line_tx.send("swap".into()).unwrap();
        assert_eq!(second_rx.blocking_recv().unwrap(), Some(Action::Swap));
    }
}
