//! Chickenfoot's entry in the game registry: its setup, bots and words.

use super::bot::GreedyBot;
use super::game::{Action, Chickenfoot, ChickenfootView, Entry, Layout, RoundEnd, Setup, Spot};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError, Seat};
use crate::games::dominoes::{self, joined as seats, Typed};
use crate::games::registry::{check_players, count, says, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

pub use crate::games::dominoes::tile_text as tile;

/// A spot in words, as the layout names it: lines are numbered from 1 in the order they began.
pub fn spot_words(spot: Spot) -> String {
    match spot {
        Spot::Center => "on the centerpiece".into(),
        Spot::Toe(l) => format!("as a toe of the double ending line {}", l + 1),
        Spot::End(l) => format!("on line {}", l + 1),
    }
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Round {
            number,
            center,
            first,
            by_lot,
        } => format!(
            "round {number}: the [{center}|{center}] is the centerpiece; {}{}",
            if *by_lot { "by lot, " } else { "" },
            says(n(*first), "plays") + " first"
        ),
        Entry::Played {
            seat, halves, spot, ..
        } => format!(
            "{} {} {}{}",
            says(n(*seat), "sets"),
            tile(*halves),
            spot_words(*spot),
            if halves.0 == halves.1 && !matches!(spot, Spot::Center) {
                ": a chickenfoot, the next three tiles go on it"
            } else {
                ""
            }
        ),
        Entry::LastTile { seat } => format!("{} bok bok: one tile left", says(n(*seat), "calls")),
        Entry::Drew { seat } => format!("{} a tile from the chicken yard", says(n(*seat), "draws")),
        Entry::Passed { seat } => says(n(*seat), "passes"),
        Entry::Ended {
            how: RoundEnd::Out(s),
        } => format!("{} out: the round is over", says(n(*s), "goes")),
        Entry::Ended {
            how: RoundEnd::NoDraw(s),
        } => format!(
            "{} and the chicken yard is empty: no draw, the round is over",
            says(n(*s), "cannot play")
        ),
        Entry::Showed { seat, tiles, .. } if tiles.is_empty() => {
            format!("{} no tiles: 0 points", says(n(*seat), "holds"))
        }
        Entry::Showed {
            seat,
            tiles,
            points,
        } => format!(
            "{} {}: {points} points",
            says(n(*seat), "shows"),
            tiles.iter().map(|t| tile(*t)).collect::<Vec<_>>().join(" ")
        ),
        Entry::Misplayed { seat, spot, .. } => format!(
            "{} a tile that does not match {} and {} the game",
            says(n(*seat), "shows"),
            spot_words(*spot),
            if n(*seat) == "you" { "lose" } else { "loses" }
        ),
        Entry::Forfeited { seat, reason } => {
            format!("{} ({})", says(n(*seat), "is removed"), reason.describe())
        }
        Entry::Over { winners } if winners.is_empty() => "the game is over: nobody wins".into(),
        Entry::Over { winners } => format!(
            "the game is over: {} {}",
            seats(winners, n),
            if winners.len() > 1 || n(winners[0]) == "you" {
                "win"
            } else {
                "wins"
            }
        ),
    }
}

fn scores_line(scores: &[i64], n: &dyn Fn(Seat) -> String) -> String {
    scores
        .iter()
        .enumerate()
        .map(|(s, p)| format!("{} {p}", n(s as Seat)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The layout, one line of text per line of tiles.
pub fn layout_lines(l: &Layout) -> Vec<String> {
    let mut out = vec![format!("centerpiece [{}|{}]", l.center, l.center)];
    for (i, line) in l.lines.iter().enumerate() {
        let from = match line.from {
            None => "center".to_string(),
            Some(d) => format!("toe of {}", d + 1),
        };
        let tiles: String = line.tiles.iter().map(|t| tile(*t)).collect();
        out.push(format!("{:>2} ({from}) {tiles}", i + 1));
    }
    out
}

pub fn spots_line(v: &ChickenfootView) -> String {
    let l = &v.layout;
    if l.arms() < 4 {
        return format!(
            "the centerpiece needs {} more arm(s): play a {}",
            4 - l.arms(),
            l.center
        );
    }
    if let (Some((line, k)), Some((_, p))) = (l.foot, v.spots.first()) {
        return format!(
            "chickenfoot on line {}: {k} more toe(s), each a {p}",
            line + 1
        );
    }
    let ends: Vec<String> = v
        .spots
        .iter()
        .map(|(s, p)| match s {
            Spot::End(i) => format!("line {} {p}", i + 1),
            _ => format!("{p}"),
        })
        .collect();
    format!("open: {}", ends.join(", "))
}

impl TableGame for Chickenfoot {
    const TITLE: &'static str = "Chickenfoot";
    const SUMMARY: &'static str =
        "branching dominoes: fill the centerpiece, chickenfoot every double, keep few pips";
    const SEATS: (u8, u8) = (2, 12);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("Chickenfoot has no variant files".into());
        }
        let mut s = Setup::new(opts.players.max(2));
        match opts.variant.as_deref() {
            None | Some("standard") => {}
            Some(v) => return Err(format!("Chickenfoot has no variant '{v}': 'standard'")),
        }
        if let Some(h) = opts.hands {
            s.rounds = Some(u32::try_from(h).map_err(|_| format!("{h} rounds is too many"))?);
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<Chickenfoot, RuleError> {
        check_players(setup.players.into(), players)?;
        Chickenfoot::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Chickenfoot>> {
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

    fn render(v: &ChickenfootView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!(
            "── round {} of {} · double-{} · points (fewest wins): {}\n",
            v.round,
            v.rounds,
            v.max_pip,
            scores_line(&v.scores, n)
        );
        for l in layout_lines(&v.layout) {
            let _ = writeln!(s, "  {l}");
        }
        let _ = writeln!(s, "  {}", spots_line(v));
        let _ = writeln!(
            s,
            "  tiles held: {} · chicken yard {}",
            dominoes::held_line(&v.held, &v.to_act, n),
            v.yard
        );
        if v.viewer.is_some() {
            let mine: Vec<String> = v.tiles.iter().map(|(_, t)| tile(*t)).collect();
            let _ = writeln!(s, "  your tiles: {}", mine.join(" "));
        }
        s
    }

    fn prompt(_view: &ChickenfootView, legal: &[Action]) -> String {
        match legal.first() {
            Some(Action::Draw) => "no tile fits: draw? > ".into(),
            Some(Action::Pass) => "no tile fits: pass? > ".into(),
            _ => "play a tile, and a line number if it fits several (e.g. 3-5 2) > ".into(),
        }
    }

    fn parse_move(input: &str, view: &ChickenfootView, legal: &[Action]) -> Result<Action, String> {
        let words = dominoes::words(input);
        let (position, (lo, hi)) = match dominoes::read_move(&words, &view.tiles)? {
            Typed::Draw => return Ok(Action::Draw),
            Typed::Pass => return Ok(Action::Pass),
            Typed::Tile { position, halves } => (position, halves),
        };
        let spots: Vec<Spot> = legal
            .iter()
            .filter_map(|a| match a {
                Action::Play { position: p, spot } if *p == position => Some(*spot),
                _ => None,
            })
            .collect();
        let spot = match (words.get(1), &spots[..]) {
            (_, []) => return Err(format!("[{lo}|{hi}] fits nowhere now")),
            (None, [s]) => *s,
            (None, _) => return Err("it fits several lines: add the line number".into()),
            (Some(w), _) => {
                let line: u16 = w
                    .parse()
                    .map_err(|_| format!("'{w}' is not a line number"))?;
                *spots
                    .iter()
                    .find(|s| matches!(s, Spot::End(l) | Spot::Toe(l) if *l + 1 == line))
                    .ok_or_else(|| format!("[{lo}|{hi}] does not fit line {line}"))?
            }
        };
        Ok(Action::Play { position, spot })
    }

    fn move_text(_: &Self::View, action: &Action) -> String {
        match action {
            Action::Draw => "draw".into(),
            Action::Pass => "pass".into(),
            Action::Play { position, spot } => format!("tile #{position} {}", spot_words(*spot)),
        }
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        let Some(o) = self.outcome() else {
            return "the game is not over".into();
        };
        let rounds = count(self.round + 1, "round", "rounds");
        if o.winners.is_empty() {
            return format!("nobody wins after {rounds}");
        }
        let best = self.scores[usize::from(o.winners[0])];
        format!(
            "{} {} with {best} points after {rounds} ({})",
            seats(&o.winners, names),
            if o.winners.len() > 1 || names(o.winners[0]) == "you" {
                "win"
            } else {
                "wins"
            },
            scores_line(&self.scores, names)
        )
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<Chickenfoot>> {
        Box::<super::panel::ChickenfootPanel>::default()
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::Script::parse(script, Self::TITLE)?.run()?;
        Ok(out.end.replayed(&out))
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "rounds": self.round + 1,
            "set": self.setup.max_pip(),
            "hand_size": self.setup.hand_size(),
            "scores": self.scores,
            "winners": self.outcome().map(|o| o.winners),
        })
    }
}
