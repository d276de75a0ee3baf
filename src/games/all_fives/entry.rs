//! All Fives' entry in the game registry: its setup, bots and words.

use super::bot::GreedyBot;
use super::game::{halves, pips, Action, AllFives, AllFivesView, End, Entry, HandEnd, Setup};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::cards::CardId;
use crate::engine::{Game, RuleError, Seat};
use crate::games::dominoes::{self, joined as side, Typed};
use crate::games::registry::{check_players, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

pub fn tile(t: CardId) -> String {
    dominoes::tile_text(halves(t))
}

/// "Ann sets" / "you set"; "Ann and you score".
fn act(who: &str, third: &str, base: &str, plural: bool) -> String {
    let verb = if who == "you" || plural { base } else { third };
    format!("{who} {verb}")
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Hand {
            number,
            leader,
            by_lot,
        } => format!(
            "hand {number}: {}{}",
            if *by_lot { "by lot, " } else { "" },
            act(&n(*leader), "leads", "lead", false)
        ),
        Entry::Played {
            seat,
            tile: t,
            end,
            count,
            scored,
        } => {
            let who = n(*seat);
            let set = match end {
                End::Lead => format!("{} {}", act(&who, "leads", "lead", false), tile(*t)),
                e => format!(
                    "{} {} on the {} end",
                    act(&who, "sets", "set", false),
                    tile(*t),
                    e.word()
                ),
            };
            if *scored > 0 {
                format!("{set}: the ends count {count}, {scored} points")
            } else {
                format!("{set}: the ends count {count}")
            }
        }
        Entry::Drew { seat } => format!(
            "{} a tile from the boneyard",
            act(&n(*seat), "draws", "draw", false)
        ),
        Entry::Passed { seat } => act(&n(*seat), "passes", "pass", false),
        Entry::Ended {
            how: HandEnd::Domino(s),
        } => format!(
            "{}: the hand is over",
            act(&n(*s), "dominoes", "domino", false)
        ),
        Entry::Ended {
            how: HandEnd::Blocked,
        } => "nobody can play: the hand is blocked".into(),
        Entry::Showed { seat, tiles } if tiles.is_empty() => {
            format!("{} no tiles", act(&n(*seat), "holds", "hold", false))
        }
        Entry::Showed { seat, tiles } => format!(
            "{} {} ({} pips)",
            act(&n(*seat), "shows", "show", false),
            tiles.iter().map(|t| tile(*t)).collect::<Vec<_>>().join(" "),
            tiles.iter().map(|t| pips(*t)).sum::<u32>()
        ),
        Entry::HandScored { seats, .. } if seats.is_empty() => {
            "a tie for the fewest pips: nobody scores for the hand".into()
        }
        Entry::HandScored { seats, points } => format!(
            "{} {points} points for the hand",
            act(&side(seats, n), "scores", "score", seats.len() > 1)
        ),
        Entry::Misplayed { seat, tile: t, end } => format!(
            "{} {} on the {} end, where it does not fit, and {} the game",
            act(&n(*seat), "shows", "show", false),
            tile(*t),
            end.word(),
            if n(*seat) == "you" { "lose" } else { "loses" }
        ),
        Entry::Forfeited { seat, reason } => format!(
            "{} ({})",
            act(&n(*seat), "is removed", "are removed", false),
            reason.describe()
        ),
        Entry::Over { winners } if winners.is_empty() => "the game is over: nobody wins".into(),
        Entry::Over { winners } => format!(
            "the game is over: {}",
            act(&side(winners, n), "wins", "win", winners.len() > 1)
        ),
    }
}

fn scores_line(teams: &[Vec<Seat>], scores: &[i64], n: &dyn Fn(Seat) -> String) -> String {
    teams
        .iter()
        .zip(scores)
        .map(|(t, s)| format!("{} {s}", side(t, n)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The layout in one line per arm.
pub fn layout_lines(v: &AllFivesView) -> Vec<String> {
    let l = &v.layout;
    if l.is_empty() {
        return vec!["the table is empty".into()];
    }
    let mut line = String::new();
    for (i, (a, b)) in l.line.iter().enumerate() {
        let mark = if l.spinner == Some(i) { "*" } else { "" };
        let _ = write!(line, "{mark}[{a}|{b}]{mark}");
    }
    let mut out = vec![format!("line  {line}")];
    for (name, arm) in [("north", &l.north), ("south", &l.south)] {
        if !arm.is_empty() {
            let s: String = arm.iter().map(|(a, b)| format!("[{a}|{b}]")).collect();
            out.push(format!("{name} {s}"));
        }
    }
    out
}

pub fn ends_line(v: &AllFivesView) -> String {
    if v.ends.is_empty() {
        return "no open ends yet".into();
    }
    let ends: Vec<String> = v
        .ends
        .iter()
        .map(|(e, p)| format!("{} {p}", e.word()))
        .collect();
    format!("open: {} — the ends count {}", ends.join(", "), v.count)
}

impl TableGame for AllFives {
    const TITLE: &'static str = "All Fives";
    const SUMMARY: &'static str =
        "dominoes with a spinner: score when the open ends add up to a multiple of five";
    const SEATS: (u8, u8) = (2, 4);
    const VARIANTS: &'static [&'static str] = &["standard", "cutthroat"];
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("All Fives has no variant files: 'standard' or 'cutthroat'".into());
        }
        let mut s = Setup::new(opts.players.max(2));
        match opts.variant.as_deref() {
            None | Some("standard") => {}
            Some("cutthroat") => s.partnerships = false,
            Some(v) => {
                return Err(format!(
                    "All Fives has no variant '{v}': 'standard' (partners at 4) or 'cutthroat'"
                ))
            }
        }
        if let Some(h) = opts.hands {
            s.hands = Some(u32::try_from(h).map_err(|_| format!("{h} hands is too many"))?);
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<AllFives, RuleError> {
        check_players(setup.players.into(), players)?;
        AllFives::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<AllFives>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(GreedyBot),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &AllFivesView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!(
            "── hand {} · to {} ── {}\n",
            v.hand,
            v.target,
            scores_line(&v.teams, &v.scores, n)
        );
        for l in layout_lines(v) {
            let _ = writeln!(s, "  {l}");
        }
        let _ = writeln!(s, "  {}", ends_line(v));
        let _ = writeln!(
            s,
            "  tiles held: {} · boneyard {}",
            dominoes::held_line(&v.held, &v.to_act, n),
            v.boneyard
        );
        if v.viewer.is_some() {
            let mine: Vec<String> = v.tiles.iter().map(|(_, t)| tile(*t)).collect();
            let _ = writeln!(s, "  your tiles: {}", mine.join(" "));
        }
        s
    }

    fn prompt(_view: &AllFivesView, legal: &[Action]) -> String {
        match legal.first() {
            Some(Action::Draw) => "no tile fits: draw? > ".into(),
            Some(Action::Pass) => "no tile fits and the boneyard is empty: pass? > ".into(),
            _ => "play a tile and an end (e.g. 3-5 east) > ".into(),
        }
    }

    fn parse_move(input: &str, view: &AllFivesView, legal: &[Action]) -> Result<Action, String> {
        let words = dominoes::words(input);
        let tiles: Vec<(u16, (u8, u8))> =
            view.tiles.iter().map(|(p, t)| (*p, halves(*t))).collect();
        let (position, (lo, hi)) = match dominoes::read_move(&words, &tiles)? {
            Typed::Draw => return Ok(Action::Draw),
            Typed::Pass => return Ok(Action::Pass),
            Typed::Tile { position, halves } => (position, halves),
        };
        let end = match words.get(1).map(String::as_str) {
            None => {
                let ends: Vec<End> = legal
                    .iter()
                    .filter_map(|a| match a {
                        Action::Play { position: p, end } if *p == position => Some(*end),
                        _ => None,
                    })
                    .collect();
                match ends[..] {
                    [e] => e,
                    [] => return Err(format!("[{lo}|{hi}] fits no open end")),
                    _ => {
                        let w: Vec<&str> = ends.iter().map(|e| e.word()).collect();
                        return Err(format!("name the end: {}", w.join(" or ")));
                    }
                }
            }
            Some("w" | "west") => End::West,
            Some("e" | "east") => End::East,
            Some("n" | "north") => End::North,
            Some("s" | "south") => End::South,
            Some("l" | "lead") => End::Lead,
            Some(w) => return Err(format!("'{w}' is not an end: west, east, north or south")),
        };
        Ok(Action::Play { position, end })
    }

    fn move_text(_: &Self::View, action: &Action) -> String {
        match action {
            Action::Draw => "draw".into(),
            Action::Pass => "pass".into(),
            Action::Play {
                position,
                end: End::Lead,
            } => format!("lead tile #{position}"),
            Action::Play { position, end } => format!("tile #{position} {}", end.word()),
        }
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<AllFives>> {
        Box::<super::panel::AllFivesPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        let Some(o) = self.outcome() else {
            return "the game is not over".into();
        };
        let hands = crate::games::registry::count(self.hand + 1, "hand", "hands");
        if o.winners.is_empty() {
            return format!("nobody wins after {hands}");
        }
        let best = self.scores[self.team_of(o.winners[0])];
        format!(
            "{} with {best} points after {hands} ({})",
            act(&side(&o.winners, names), "wins", "win", o.winners.len() > 1),
            scores_line(&self.teams, &self.scores, names)
        )
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::Script::parse(script, Self::TITLE)?.run()?;
        Ok(out.end.replayed(&out))
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "hands": self.hand + 1,
            "target": self.setup.target(),
            "partnerships": self.setup.partnerships,
            "teams": self.teams,
            "scores": self.scores,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
