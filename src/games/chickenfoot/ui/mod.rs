//! chickenfoot's ui part.

use crate::engine::{Game, Seat};
use crate::games::chickenfoot::game::{Action, Chickenfoot, ChickenfootView, Spot};
use crate::games::dominoes::ui::{joined as seats, Typed};
use crate::games::dominoes::{self};
use crate::games::registry::TableGame;
use crate::games::ui::words::{agree_many, count};
use std::fmt::Write;

use crate::games::dominoes::ui::tile_text as tile;
use crate::games::script::Replayed;
use crate::games::ui::drawing::{Drawing, Piece, Spot as Place};
use crate::games::ui::GameUi;
use words::{layout_lines, line, scores_line, spot_words, spots_line};

#[cfg(feature = "terminal")]
pub mod panel;
pub mod replay;
pub mod words;

/// The round's header, for its words and its drawing alike.
fn heading(v: &ChickenfootView, n: &dyn Fn(Seat) -> String) -> String {
    format!(
        "round {} of {} · double-{} · points (fewest wins): {}",
        v.round,
        v.rounds,
        v.max_pip,
        scores_line(&v.scores, n)
    )
}

impl GameUi for Chickenfoot {
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        crate::games::ui::words::told(&self.view(viewer).log, names, line)
    }

    fn render(v: &ChickenfootView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = format!("── {}\n", heading(v, n));
        for l in layout_lines(&v.layout) {
            let _ = writeln!(s, "  {l}");
        }
        let _ = writeln!(s, "  {}", spots_line(v));
        let _ = writeln!(
            s,
            "  tiles held: {} · chicken yard {}",
            dominoes::ui::held_line(&v.held, &v.to_act, n),
            v.yard
        );
        if v.viewer.is_some() {
            let mine: Vec<String> = v.tiles.iter().map(|(_, t)| tile(*t)).collect();
            let _ = writeln!(s, "  your tiles: {}", mine.join(" "));
        }
        s
    }

    fn drawing(v: &ChickenfootView, n: &dyn Fn(Seat) -> String) -> Option<Drawing> {
        let title = heading(v, n);
        let own: Vec<(u8, u8)> = v.tiles.iter().map(|(_, t)| *t).collect();
        let seats = dominoes::ui::held_spots(&v.held, &v.to_act, v.viewer, &own, n);
        let l = &v.layout;
        let center = Place::new("centerpiece").pieces([Piece::tile((l.center, l.center))]);
        let lines = l.lines.iter().enumerate().map(|(i, line)| {
            let from = match line.from {
                None => "from the centerpiece".to_string(),
                Some(d) => format!("a toe of line {}", d + 1),
            };
            Place::new(format!("line {}", i + 1))
                .pieces(line.tiles.iter().map(|t| Piece::tile(*t)))
                .note(from)
        });
        let open = Place::new("open").note(spots_line(v));
        let yard = Place::new("chicken yard").note(count(v.yard as u64, "tile", "tiles"));
        Some(
            Drawing::new(title)
                .spots(seats)
                .spot(center)
                .spots(lines)
                .spot(open)
                .spot(yard),
        )
    }

    fn prompt(view: &ChickenfootView, legal: &[Action]) -> String {
        match legal.first() {
            Some(Action::Pass) if view.pass_ends_round() => {
                "no tile fits and the chicken yard is empty: your pass ends the round for \
                 everyone (No Draw). pass? > "
                    .into()
            }
            Some(Action::Draw) => "no tile fits: draw? > ".into(),
            Some(Action::Pass) => "no tile fits: pass? > ".into(),
            _ => "play a tile, and a line number if it fits several (e.g. 3-5 2) > ".into(),
        }
    }

    fn parse_move(input: &str, view: &ChickenfootView, legal: &[Action]) -> Result<Action, String> {
        let words = dominoes::ui::words(input);
        let (position, (lo, hi)) = match dominoes::ui::read_move(&words, &view.tiles)? {
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

    fn move_text(view: &Self::View, action: &Action) -> String {
        match action {
            Action::Draw => "draw".into(),
            Action::Pass => "pass".into(),
            // A tile by its numbers: the deck position a move carries means nothing to a player.
            Action::Play { position, spot } => {
                let t = view
                    .tiles
                    .iter()
                    .find(|(p, _)| p == position)
                    .map(|(_, h)| tile(*h))
                    .unwrap_or_else(|| "a tile".into());
                format!("{t} {}", spot_words(*spot))
            }
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
            agree_many(o.winners.len(), &names(o.winners[0]), "wins"),
            scores_line(&self.scores, names)
        )
    }

    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn crate::games::ui::Panel<Chickenfoot>> {
        Box::<crate::games::chickenfoot::ui::panel::ChickenfootPanel>::default()
    }

    fn replay(script: &str) -> Result<Replayed, String> {
        let out =
            crate::games::chickenfoot::ui::replay::Script::parse(script, Self::TITLE)?.run()?;
        Ok(out.end.replayed(&out))
    }
}
