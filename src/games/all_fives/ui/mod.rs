//! all_fives's ui part.

use crate::engine::{Game, Seat};
use crate::games::all_fives::game::{halves, Action, AllFives, AllFivesView, End};
use crate::games::dominoes::ui::{joined as side, Typed};
use crate::games::dominoes::{self};
use crate::games::registry::TableGame;
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot};
use crate::games::ui::GameUi;
use std::fmt::Write;
use words::{act, ends_line, layout_lines, line, scores_line, tile};

#[cfg(feature = "terminal")]
pub mod panel;
pub mod replay;
pub mod words;

impl GameUi for AllFives {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        crate::games::ui::words::told(&self.view(viewer).log, names, line)
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
            dominoes::ui::held_line(&v.held, &v.to_act, n),
            v.boneyard
        );
        if v.viewer.is_some() {
            let mine: Vec<String> = v.tiles.iter().map(|(_, t)| tile(*t)).collect();
            let _ = writeln!(s, "  your tiles: {}", mine.join(" "));
        }
        s
    }

    fn drawing(v: &AllFivesView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let title = format!(
            "hand {} · to {} · {}",
            v.hand,
            v.target,
            scores_line(&v.teams, &v.scores, n)
        );
        let own: Vec<(u8, u8)> = v.tiles.iter().map(|(_, t)| halves(*t)).collect();
        let seats = dominoes::ui::held_spots(&v.held, &v.to_act, v.viewer, &own, n);
        let l = &v.layout;
        let mut line = Spot::new("the line").pieces(l.line.iter().map(|t| Piece::tile(*t)));
        if let Some(&(a, b)) = l.spinner.and_then(|i| l.line.get(i)) {
            line = line.note(format!("spinner [{a}|{b}]"));
        }
        if l.is_empty() {
            line = line.note("the table is empty");
        }
        let arms = [("north", &l.north), ("south", &l.south)]
            .into_iter()
            .filter(|(_, arm)| !arm.is_empty())
            .map(|(name, arm)| Spot::new(name).pieces(arm.iter().map(|t| Piece::tile(*t))));
        let ends = Spot::new("open ends").note(ends_line(v));
        let boneyard = Spot::new("boneyard").note(crate::games::ui::words::count(
            v.boneyard as u64,
            "tile",
            "tiles",
        ));
        Some(
            Drawing::new(title)
                .spots(seats)
                .spot(line)
                .spots(arms)
                .spot(ends)
                .spot(boneyard),
        )
    }

    fn prompt(_view: &AllFivesView, legal: &[Action]) -> String {
        match legal.first() {
            Some(Action::Draw) => "no tile fits: draw? > ".into(),
            Some(Action::Pass) => "no tile fits and the boneyard is empty: pass? > ".into(),
            _ => "play a tile and an end (e.g. 3-5 east) > ".into(),
        }
    }

    fn parse_move(input: &str, view: &AllFivesView, legal: &[Action]) -> Result<Action, String> {
        let words = dominoes::ui::words(input);
        let tiles: Vec<(u16, (u8, u8))> =
            view.tiles.iter().map(|(p, t)| (*p, halves(*t))).collect();
        let (position, (lo, hi)) = match dominoes::ui::read_move(&words, &tiles)? {
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

    fn move_text(view: &Self::View, action: &Action) -> String {
        // A tile by its numbers: the deck position a move carries means nothing to a player.
        let named = |position: &u16| {
            view.tiles
                .iter()
                .find(|(p, _)| p == position)
                .map(|(_, t)| words::tile(*t))
                .unwrap_or_else(|| "a tile".into())
        };
        match action {
            Action::Draw => "draw".into(),
            Action::Pass => "pass".into(),
            Action::Play {
                position,
                end: End::Lead,
            } => format!("lead {}", named(position)),
            Action::Play { position, end } => format!("{} {}", named(position), end.word()),
        }
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<AllFives>> {
        Box::<crate::games::all_fives::ui::panel::AllFivesPanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        let Some(o) = self.outcome() else {
            return "the game is not over".into();
        };
        let hands = crate::games::ui::words::count(self.hand + 1, "hand", "hands");
        if o.winners.is_empty() {
            return format!("nobody wins after {hands}");
        }
        let best = self.scores[self.team_of(o.winners[0])];
        format!(
            "{} with {best} points after {hands} ({})",
            act(&side(&o.winners, names), "wins", o.winners.len() > 1),
            scores_line(&self.teams, &self.scores, names)
        )
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out = crate::games::all_fives::ui::replay::Script::parse(script, Self::TITLE)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
