//! What the domino panels share on the terminal table: the picked tile among yours (←/→),
//! draw (d) and pass (p), the "your tiles" box with the tiles that fit lit, the key help, and
//! the chain of tiles cut in the middle to fit.

use crate::games::ui::{seat_box, Ctx, Outcome};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::Frame;

/// A chain of tiles, cut in the middle with "…" to fit `width` characters: the ends are what
/// matters.
pub fn fit(tiles: &[String], width: usize) -> String {
    let full: String = tiles.concat();
    if full.chars().count() <= width {
        return full;
    }
    let (mut head, mut tail, mut used) = (0, tiles.len(), 1);
    let mut from_tail = true;
    while head < tail {
        let next = if from_tail { tail - 1 } else { head };
        let w = tiles[next].chars().count();
        if used + w > width {
            break;
        }
        used += w;
        if from_tail {
            tail -= 1;
        } else {
            head += 1;
        }
        from_tail = !from_tail;
    }
    format!("{}…{}", tiles[..head].concat(), tiles[tail..].concat())
}

/// A domino game's view as the picker reads it: the viewer's tiles.
pub trait TileView: Clone {
    /// The viewer's tiles: deck position and halves.
    fn hand(&self) -> Vec<(u16, (u8, u8))>;
    /// Whether a seat (not a spectator) is looking.
    fn seated(&self) -> bool;
}

/// A domino game's move as the picker reads it: draw, pass, or a tile set somewhere.
pub trait TileMove: Copy + PartialEq {
    /// Where a tile goes (an end, a spot).
    type Where: Copy;
    const DRAW: Self;
    const PASS: Self;
    /// The deck position of the tile a play sets, and where.
    fn placed(&self) -> Option<(u16, Self::Where)>;
}

/// Implements [`TileMove`] for a domino game's `Action` with `Draw`, `Pass` and
/// `Play { position, <where>: <Where> }`.
macro_rules! tile_move {
    ($action:ident, $at:ident: $where:ty) => {
        impl $crate::games::dominoes::ui::panel::TileMove for $action {
            type Where = $where;
            const DRAW: $action = $action::Draw;
            const PASS: $action = $action::Pass;

            fn placed(&self) -> Option<(u16, $where)> {
                match self {
                    $action::Play { position, $at } => Some((*position, *$at)),
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use tile_move;

/// What a domino panel keeps between frames: the last view, the legal moves while this seat is
/// asked, the picked tile (an index into the view's tiles) and a notice.
pub struct Picker<V, A> {
    pub view: Option<V>,
    pub legal: Vec<A>,
    pub cursor: usize,
    pub notice: Option<String>,
}

impl<V, A> Default for Picker<V, A> {
    fn default() -> Self {
        Picker {
            view: None,
            legal: Vec::new(),
            cursor: 0,
            notice: None,
        }
    }
}

impl<V: TileView, A: TileMove> Picker<V, A> {
    pub fn see(&mut self, view: &V) {
        if self.legal.is_empty() {
            self.view = Some(view.clone());
        }
    }

    /// Asked for a move: the first tile that fits is picked.
    pub fn ask(&mut self, view: &V, legal: &[A]) {
        self.view = Some(view.clone());
        self.legal = legal.to_vec();
        self.notice = None;
        self.cursor = view
            .hand()
            .iter()
            .position(|(p, _)| !self.places(*p).is_empty())
            .unwrap_or(0);
    }

    pub fn withdraw(&mut self) {
        self.legal.clear();
    }

    /// Where the tile at `position` may go now.
    pub fn places(&self, position: u16) -> Vec<A::Where> {
        self.legal
            .iter()
            .filter_map(|a| a.placed())
            .filter(|(p, _)| *p == position)
            .map(|(_, w)| w)
            .collect()
    }

    /// The picked tile's deck position.
    pub fn selected(&self) -> Option<u16> {
        self.view
            .as_ref()
            .and_then(|v| v.hand().get(self.cursor).map(|(p, _)| *p))
    }

    pub fn play(&mut self, a: A) -> Outcome<A> {
        self.legal.clear();
        self.notice = None;
        Outcome::Play(a)
    }

    /// The keys every domino panel reads alike: ←/→ pick a tile, d draws and p passes when
    /// that is the move. `None`: the key is the panel's own (or nobody is asked).
    pub fn common_key(&mut self, key: KeyEvent) -> Option<Outcome<A>> {
        if self.legal.is_empty() {
            return Some(Outcome::None);
        }
        let n = self.view.as_ref().map_or(0, |v| v.hand().len()).max(1);
        match key.code {
            KeyCode::Left => self.cursor = (self.cursor + n - 1) % n,
            KeyCode::Right => self.cursor = (self.cursor + 1) % n,
            KeyCode::Char('d') if self.legal.contains(&A::DRAW) => return Some(self.play(A::DRAW)),
            KeyCode::Char('p') if self.legal.contains(&A::PASS) => return Some(self.play(A::PASS)),
            _ => return None,
        }
        Some(Outcome::None)
    }

    /// The key help: draw or pass when that is the move, else `play`'s keys; then q.
    pub fn help(&self, play: &[&str]) -> String {
        let mut keys: Vec<&str> = Vec::new();
        if self.legal.contains(&A::DRAW) {
            keys.push("d: draw");
        } else if self.legal.contains(&A::PASS) {
            keys.push("p: pass");
        } else if !self.legal.is_empty() {
            keys.extend(play);
        }
        keys.push("q: quit");
        keys.join(" · ")
    }

    /// The seat's box: your tiles (those that fit lit, the picked one reversed), then `extra`
    /// lines, then the keys (`play`'s hints unless drawing or passing is the move).
    pub fn draw_hand(
        &self,
        frame: &mut Frame,
        area: Rect,
        ctx: &Ctx,
        extra: Vec<Line<'static>>,
        play: &[(&str, &str)],
    ) {
        let theme = ctx.theme;
        let Some(v) = &self.view else {
            seat_box(frame, area, ctx, false, Vec::new(), None);
            return;
        };
        let asked = !self.legal.is_empty();
        let hand = v.hand();
        let mut spans = Vec::new();
        for (i, (p, t)) in hand.iter().enumerate() {
            let fits = !self.places(*p).is_empty();
            let mut style = if fits { theme.accent() } else { theme.dim() };
            if i == self.cursor && asked {
                style = style.add_modifier(Modifier::REVERSED);
            }
            spans.push(Span::styled(super::tile_text(*t), style));
            spans.push(Span::raw(" "));
        }
        if hand.is_empty() && v.seated() {
            spans.push(Span::styled("no tiles", theme.dim()));
        }
        let mut lines = vec![Line::from(spans)];
        if asked {
            lines.extend(extra);
            let mut keys = Vec::new();
            if self.legal.contains(&A::DRAW) {
                keys.extend(theme.key_hint("d", "draw"));
            } else if self.legal.contains(&A::PASS) {
                keys.extend(theme.key_hint("p", "pass"));
            } else {
                for (k, what) in play {
                    keys.extend(theme.key_hint(k, what));
                }
            }
            lines.push(Line::from(keys));
        }
        seat_box(frame, area, ctx, asked, lines, self.notice.as_deref());
    }
}
