//! What a person reads when something goes wrong is words, not Rust's Debug output: every error
//! path of the binary a person can reach by a typo, a bad file or a dead relay prints a sentence
//! naming the problem, and exits non-zero.

use crate::common::{home, player, run};
use std::path::Path;

/// Marks of Debug formatting that must never reach a person.
fn debug_marks(text: &str) -> Vec<String> {
    let mut found: Vec<String> = [
        "Some(", "None)", "Ok(", "Err(", "Seat(", "Keys(", "Roll(", "Move(", "([", "\\\"",
    ]
    .iter()
    .filter(|m| text.contains(*m))
    .map(|m| m.to_string())
    .collect();
    // A struct printed with {:?}: "Name { field: value }".
    for (i, _) in text.match_indices(" { ") {
        let rest = &text[i + 3..];
        let field: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if !field.is_empty() && rest[field.len()..].starts_with(": ") {
            found.push(format!(
                "struct debug near '{}'",
                &text[i..(i + 30).min(text.len())]
            ));
        }
    }
    found
}

#[test]
fn the_checker_sees_debug_text() {
    assert!(!debug_marks("waiting for Keys([0, 1])").is_empty());
    assert!(!debug_marks("bad seat Some(3)").is_empty());
    assert!(!debug_marks("Violation { seat: 1 }").is_empty());
    assert!(debug_marks("'nope' is not a game this program plays (games: tolerance)").is_empty());
}

fn assert_words(h: &Path, args: &[&str]) {
    let out = run(h, args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let text = format!("{err}{}", String::from_utf8_lossy(&out.stdout));
    assert!(!out.status.success(), "{args:?} should fail: {text}");
    assert!(
        err.trim_start().starts_with("tolerance: ") && err.trim().len() > "tolerance: ".len() + 10,
        "{args:?}: one sentence on standard error, got: {err}"
    );
    let marks = debug_marks(&text);
    assert!(
        marks.is_empty(),
        "{args:?} printed Debug text {marks:?}: {text}"
    );
}

#[test]
fn command_line_mistakes_are_told_in_words() {
    let h = home("words", "cli");
    player(&h);
    let dir = std::env::temp_dir().join(format!("tolerance-words-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().to_string()
    };
    let not_json = file("not-json.json", "{ this is not json");
    let unknown_game = file("unknown-game.json", r#"{"game": "chess"}"#);
    let bad_variant = file("bad.toml", "name = \"x\"\nstarting_stack = -5\n");
    let bad_cards = file("cards.toml", "[[cards]]\nsuit = \"spades\"\n");
    let hex_table = "ab".repeat(32);
    let cases: Vec<Vec<&str>> = vec![
        vec!["play", "--game", "nope"],
        vec!["demo", "--players", "1"],
        vec!["demo", "--game", "mia", "--players", "11"],
        vec!["verify", "naddr1nope"],
        vec!["watch", "npub1xyz"],
        vec!["join", "naddr1qqqqbogus"],
        vec!["history", "show", "99"],
        vec!["replay", "/nonexistent/script.json"],
        vec!["replay", &not_json],
        vec!["replay", &unknown_game],
        vec!["variant", "validate", &bad_variant],
        vec!["variant", "validate", "--game", "reformation", &bad_cards],
        vec!["demo", "--game", "reformation", "--players", "6"],
        vec!["play", "--game", "reformation", "--variant", "nosuch"],
        vec![
            "demo",
            "--game",
            "reformation",
            "--players",
            "3",
            "--hands",
            "4",
        ],
        vec!["play", "--variant", "nosuch"],
        vec![
            "host",
            "--invite",
            "npub1notakey",
            "--relay",
            "ws://127.0.0.1:9",
        ],
        vec!["demo", "--players", "2", "--relay", "ws://127.0.0.1:9"],
        vec![
            "verify",
            "--relay",
            "ws://127.0.0.1:9",
            "--table",
            &hex_table,
        ],
        vec!["feedback", "--to", "npub1notakey", "hello"],
    ];
    for args in &cases {
        assert_words(&h, args);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- Every game's story, as each seat reads it ----

use rand::rngs::StdRng;
use rand::SeedableRng;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::collections::BTreeSet;
use tolerance::bots::BotLevel;
use tolerance::engine::sim::{fulfil_all, Oracle};
use tolerance::engine::{ForfeitReason, Seat, ToAct};
use tolerance::games::registry::{self, SetupOptions, TableGame, Visit};
use tolerance::games::ui::drawing::Drawing;
use tolerance::games::ui::{Ctx, Panel, Theme};

/// The names at a test table; a reader's own seat is "you" instead.
const NAMES: [&str; 8] = ["Ana", "Ben", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"];

/// Words after "you" that end in "s" and are not a verb in the third person.
const NOT_VERBS: [&str; 8] = [
    "as", "plus", "less", "minus", "always", "across", "across:", "thus",
];

/// Verbs a single other player must not take in their base form ("Ben have").
const BASE_VERBS: [&str; 10] = [
    "are", "have", "open", "lose", "win", "pass", "roll", "hold", "draw", "capture",
];

/// Verbs in the third person that a game's words put after a first one ("you play 7♦,
/// captures 9♦").
const THIRD_PERSON: [&str; 24] = [
    "captures", "loses", "holds", "opens", "wins", "takes", "draws", "plays", "passes", "scores",
    "rolls", "bids", "claims", "calls", "raises", "folds", "checks", "shows", "boards", "keeps",
    "declares", "discards", "gets", "leads",
];

/// A third-person verb later in the clause "you" starts, before any other subject: "you play
/// 7♦, captures 9♦" (the second verb belongs to "you" too).
fn second_verb<'a>(rest: &[&'a str]) -> Option<&'a str> {
    for w in rest {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        let subject = NAMES.contains(&bare)
            || [
                "it", "who", "the", "which", "that", "everyone", "nobody", "each",
            ]
            .contains(&bare.to_ascii_lowercase().as_str());
        if subject {
            return None;
        }
        if THIRD_PERSON.contains(&bare) {
            return Some(bare);
        }
        if w.ends_with(['.', ';', ':', '(', ')']) || w.contains('—') || *w == "—" {
            return None;
        }
    }
    None
}

/// What a person must not read in a game's words, each found fault named.
fn word_faults(line: &str) -> Vec<String> {
    let mut found = debug_marks(line);
    let words: Vec<&str> = line.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        let next = words
            .get(i + 1)
            .map(|n| n.trim_matches(|c: char| !c.is_alphanumeric()))
            .unwrap_or("");
        if bare.eq_ignore_ascii_case("you's") {
            found.push("\"you's\"".into());
        }
        if bare.eq_ignore_ascii_case("you")
            && next.len() > 1
            && next.ends_with('s')
            && !next.ends_with("ss")
            && next.chars().all(|c| c.is_ascii_lowercase())
            && !NOT_VERBS.contains(&next)
        {
            found.push(format!("\"you {next}\""));
        }
        let after_and = i > 0 && words[i - 1] == "and";
        // "Ana: draw a pair" is a name before its line, not a subject.
        let subject = !w.ends_with(',') && !w.ends_with(':');
        if NAMES.contains(&bare) && !after_and && subject && BASE_VERBS.contains(&next) {
            found.push(format!("\"{bare} {next}\""));
        }
        // "you" as an object ("a fight with you and plays 10♦") starts no clause.
        let starts_clause = i == 0
            || words[i - 1].ends_with([',', ';', ':', '(', '—'])
            || ["and", "but", "then", "so", "—", "·", "while", "if", "when"]
                .contains(&words[i - 1]);
        if bare.eq_ignore_ascii_case("you") && starts_clause {
            if let Some(v) = second_verb(&words[i + 1..]) {
                found.push(format!("\"you …, {v}\""));
            }
        }
        if bare == "step" && next.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            found.push(format!("\"step {next}\""));
        }
    }
    let hex_run = line
        .split(|c: char| !c.is_ascii_hexdigit())
        .any(|run| run.len() >= 64);
    if hex_run {
        found.push("a 64-character hex id".into());
    }
    if let Some(i) = line.find("npub1") {
        if line[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .count()
            >= 60
        {
            found.push("a full npub".into());
        }
    }
    // "tile #3", "card #12": a deck position, which names nothing a player holds.
    for jargon in ["(chance)", "protocol step", "PUTANA", "tile #", "card #"] {
        if line.contains(jargon) {
            found.push(format!("jargon \"{jargon}\""));
        }
    }
    found
}

#[test]
fn the_words_checker_sees_what_a_person_must_not_read() {
    for bad in [
        "you opens",
        "round 2: you loses a die",
        "you holds 5 in Diamonds",
        "you play 7♦, captures 9♦, and it falls into the pool",
        "you's turn",
        "Ben have 3 lives",
        "! step 40: Ben: out of the hand",
        "waiting for Ben (chance)",
        "PUTANA: ones not wild",
        "you may tile #0 west",
        "joined: npub1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq",
        &format!("table {}", "ab".repeat(32)),
        "bid Some(3)",
    ] {
        assert!(!word_faults(bad).is_empty(), "missed: {bad}");
    }
    for good in [
        "you open",
        "Ana opens; you pass",
        "Ana and Ben have 3 lives",
        "you lose a die",
        "your turn: you hold 5 in Diamonds",
        "the winner takes 3 pots",
        "you as dealer, Ben as small blind",
        "you play 7♦, Ben captures it",
        "Ana: draw a pair of guests",
        "Ben picks a fight with you and plays 10♦",
    ] {
        assert!(
            word_faults(good).is_empty(),
            "{good}: {:?}",
            word_faults(good)
        );
    }
}

/// A seat's terminal table as drawn (panel only, wide enough that no phrase is cut), row by row.
fn screen<G: TableGame>(
    panel: &dyn Panel<G>,
    me: Option<Seat>,
    story: &[String],
    (awaited, what): (&[Seat], &str),
    asked: bool,
) -> String {
    let names: Vec<String> = NAMES.iter().map(|n| n.to_string()).collect();
    let theme = Theme { color: false };
    let ctx = Ctx {
        theme: &theme,
        names: &names,
        me,
        awaited,
        what,
        secs_left: Some(12),
        story,
        asked,
    };
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| panel.draw(f, f.area(), &ctx)).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    format!("{out}{}\n{}\n", panel.help(), panel.title())
}

/// What a seat's drawing of the table must not do: draw what is not its own (other seats'
/// spots, shared places) otherwise than a spectator's drawing does — a hidden card face up, a
/// cup opened — or draw the seat as its own twice. Its own spot and the places marked as its own
/// (`own`: its piles, the cup it rolled, its cards in a fight) are its to see.
fn drawn_faults(d: &Drawing, spectator: Option<&Drawing>, viewer: Option<Seat>) -> Vec<String> {
    let mut found = Vec::new();
    let own = d.spots.iter().filter(|s| s.you).count();
    if own > usize::from(viewer.is_some()) {
        found.push(format!("{own} spots drawn as the viewer's own"));
    }
    let Some(spectator) = spectator else {
        found.push("a drawing for a seat but none for a spectator".into());
        return found;
    };
    if spectator.spots.iter().any(|s| s.you || s.own) {
        found.push("a spectator's drawing has a place of its own".into());
    }
    // Spot for spot, but for places only the viewer has (its word cards, its columns).
    let mut mine: Vec<_> = d.spots.iter().collect();
    if mine.len() != spectator.spots.len() {
        mine.retain(|s| !s.own);
    }
    if mine.len() != spectator.spots.len() {
        found.push(format!(
            "{} places drawn, where a spectator sees {}",
            mine.len(),
            spectator.spots.len()
        ));
        return found;
    }
    for (spot, public) in mine.iter().zip(&spectator.spots) {
        if spot.you || spot.own {
            continue;
        }
        if spot.pieces != public.pieces {
            found.push(format!(
                "{}'s pieces drawn as {:?}, where a spectator sees {:?}",
                spot.name, spot.pieces, public.pieces
            ));
        }
    }
    found
}

/// One bot game, every seat's client holding only what its seat may know (as at a table), and
/// what each of them reads checked line by line.
struct ReadEveryLine {
    players: u8,
    level: BotLevel,
    seed: u64,
    /// A seat removed for this reason after this many moves (as a table removes a seat whose
    /// client stopped answering).
    forfeit: Option<(usize, Seat, ForfeitReason)>,
}

/// A fault: the game, who read it, the fault and the line.
type Fault = (String, String, String, String);

impl Visit for ReadEveryLine {
    type Out = Result<BTreeSet<Fault>, String>;
    fn visit<G: TableGame>(self) -> Self::Out {
        let setup = G::setup(&SetupOptions {
            players: self.players,
            hands: Some(3),
            ..SetupOptions::default()
        })?;
        let mut game = G::start(&setup, self.players).map_err(|e| e.to_string())?;
        let mut rng = StdRng::seed_from_u64(self.seed);
        let mut oracle = Oracle::new(StdRng::seed_from_u64(self.seed ^ 0x5eed));
        let viewers: Vec<Option<Seat>> = (0..self.players)
            .map(Some)
            .chain(std::iter::once(None))
            .collect();
        let mut replicas: Vec<G> = viewers.iter().map(|_| game.clone()).collect();
        let mut shown = vec![0usize; viewers.len()];
        let mut panels: Vec<Box<dyn Panel<G>>> = viewers.iter().map(|_| G::panel()).collect();
        let mut bots: Vec<_> = (0..self.players)
            .map(|_| G::bot(self.level, StdRng::from_rng(&mut rng).unwrap()))
            .collect();
        let names_for = |viewer: Option<Seat>| {
            move |s: Seat| {
                if Some(s) == viewer {
                    "you".to_string()
                } else {
                    NAMES[s as usize].to_string()
                }
            }
        };
        let reader = |v: Option<Seat>| match v {
            Some(s) => format!("seat {s}"),
            None => "a spectator".into(),
        };
        let mut faults = BTreeSet::new();
        let mut check = |who: &str, text: &str| {
            // A screen's boxes and columns are read apart: a cell is a phrase of its own.
            let cells = text
                .lines()
                .flat_map(|l| l.split('│'))
                .flat_map(|l| l.split("  "))
                .filter(|c| !c.trim().is_empty());
            for cell in cells {
                for f in word_faults(cell) {
                    faults.insert((G::NAME.to_string(), who.to_string(), f, cell.to_string()));
                }
            }
        };
        let mut drawn = BTreeSet::new();
        let mut moves = 0usize;
        for _ in 0..20_000 {
            // The table as the page draws it, to every seat and a spectator alike.
            let drawings: Vec<_> = viewers
                .iter()
                .enumerate()
                .map(|(i, v)| G::drawing(&replicas[i].view(*v), &names_for(*v)))
                .collect();
            for (i, v) in viewers.iter().enumerate() {
                if let Some(d) = &drawings[i] {
                    check(&reader(*v), &d.title);
                    for spot in &d.spots {
                        check(&reader(*v), &spot.name);
                        for n in &spot.notes {
                            check(&reader(*v), n);
                        }
                    }
                    for fault in drawn_faults(d, drawings.last().unwrap().as_ref(), *v) {
                        drawn.insert((G::NAME.to_string(), reader(*v), fault, d.title.clone()));
                    }
                }
            }
            for (i, v) in viewers.iter().enumerate() {
                // As the line printer shows them: each line once, when it comes.
                let story = replicas[i].story(*v, &names_for(*v));
                for l in story.iter().skip(shown[i]) {
                    check(&reader(*v), l);
                }
                if story.len() > shown[i] {
                    // The terminal table as it stands once something happened.
                    let waits = match game.to_act() {
                        ToAct::Seat(s) => (vec![s], "move"),
                        ToAct::Sealed(v) => (v, "seal"),
                        ToAct::Chance(_) => (game.participants(), "chance"),
                        ToAct::Terminal => (Vec::new(), "over"),
                    };
                    panels[i].see(&replicas[i].view(*v));
                    let text = screen(&*panels[i], *v, &story, (&waits.0, waits.1), false);
                    check(&reader(*v), &text);
                }
                shown[i] = story.len();
            }
            if let Some((at, seat, reason)) = self.forfeit {
                if moves == at && !game.is_terminal() {
                    game.forfeit(&[seat], reason).map_err(|e| e.to_string())?;
                    for r in &mut replicas {
                        r.forfeit(&[seat], reason).map_err(|e| e.to_string())?;
                    }
                    moves += 1;
                    continue;
                }
            }
            let actors = match game.to_act() {
                ToAct::Terminal => break,
                ToAct::Chance(reqs) => {
                    let outs = fulfil_all(&mut oracle, &reqs)?;
                    game.apply_chance(&outs).map_err(|e| e.to_string())?;
                    for (r, v) in replicas.iter_mut().zip(&viewers) {
                        let masked: Vec<_> = outs
                            .iter()
                            .zip(&reqs)
                            .map(|(o, q)| o.mask_for(q, *v))
                            .collect();
                        r.apply_chance(&masked).map_err(|e| e.to_string())?;
                    }
                    continue;
                }
                ToAct::Seat(s) => vec![s],
                ToAct::Sealed(v) => v,
            };
            let mut chosen = Vec::new();
            for s in actors {
                let mine = &replicas[s as usize];
                let view = mine.view(Some(s));
                let legal = mine.legal_actions(s);
                let name = names_for(Some(s));
                let who = reader(Some(s));
                check(&who, &G::render(&view, &name));
                check(&who, &G::prompt(&view, &legal));
                for a in &legal {
                    check(&who, &G::move_text(&view, a));
                }
                let panel = &mut panels[s as usize];
                panel.ask(&view, &legal);
                let story = mine.story(Some(s), &name);
                check(
                    &who,
                    &screen(&**panel, Some(s), &story, (&[s], "move"), true),
                );
                panel.withdraw();
                chosen.push((s, bots[s as usize].choose(&view, &legal)));
            }
            for (s, a) in chosen {
                game.apply(s, &a).map_err(|e| e.to_string())?;
                for r in &mut replicas {
                    r.apply(s, &a).map_err(|e| e.to_string())?;
                }
                moves += 1;
            }
        }
        if !game.is_terminal() {
            return Err(format!("{} did not end in 20,000 steps", G::NAME));
        }
        for (i, v) in viewers.iter().enumerate() {
            let name = names_for(*v);
            // As the terminal table shows it: the whole story, and how the game ended.
            for l in replicas[i].story(*v, &name) {
                check(&reader(*v), &l);
            }
            check(&reader(*v), &replicas[i].result_line(&name));
        }
        faults.extend(drawn);
        Ok(faults)
    }
}

#[test]
fn every_game_reads_as_words_to_every_seat() {
    let mut faults = BTreeSet::new();
    for g in registry::all() {
        let mut sizes = vec![g.min_players, g.max_players.min(5)];
        sizes.dedup();
        for (k, &players) in sizes.iter().enumerate() {
            for (j, level) in [BotLevel::Easy, BotLevel::Normal].into_iter().enumerate() {
                let seed = 7 + 10 * k as u64 + j as u64;
                let plain = ReadEveryLine {
                    players,
                    level,
                    seed,
                    forfeit: None,
                };
                faults.extend(registry::with_game(g.name, plain).unwrap().unwrap());
            }
            // A seat's client stops answering, then another's player leaves, as at a table.
            for (at, reason) in [(6, ForfeitReason::Withheld), (14, ForfeitReason::Left)] {
                let removed = ReadEveryLine {
                    players,
                    level: BotLevel::Normal,
                    seed: 99 + at as u64,
                    forfeit: Some((at, players - 1, reason)),
                };
                faults.extend(registry::with_game(g.name, removed).unwrap().unwrap());
            }
        }
    }
    // One line per fault and game is enough to find it.
    let mut seen = BTreeSet::new();
    let report: Vec<String> = faults
        .iter()
        .filter(|(game, _, fault, _)| seen.insert((game.clone(), fault.clone())))
        .map(|(game, who, fault, line)| format!("{game}, as {who} reads it: {fault} in \"{line}\""))
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n"));
}
