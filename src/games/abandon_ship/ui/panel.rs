//! Abandon Ship on the terminal table: the four lifeboats with their suit points, the deck,
//! the fight in progress (who attacks whom with what, what beats it), every player's score to
//! the target, hand size and face-up board; your hand with a cursor, and one key per move:
//! discard, fight (then whom), answer, surrender, Key Card.

use super::AbandonShip;
use crate::cards::Suit;
use crate::engine::Seat;
use crate::games::abandon_ship::game::{card_name, points, AbandonView, Action, Phase};
use crate::games::card_hands::ui::card_row;
use crate::games::ui::words::says;
use crate::games::ui::{seat_box, Ctx, Outcome, Panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::Frame;

#[derive(Default)]
pub struct AbandonPanel {
    view: Option<AbandonView>,
    legal: Vec<Action>,
    /// Index into the hand of the card the cursor is on.
    cursor: usize,
    /// Picking whom to fight with the card under the cursor.
    targeting: bool,
    notice: Option<String>,
}

impl AbandonPanel {
    fn position(&self) -> Option<u16> {
        self.view
            .as_ref()?
            .mine
            .get(self.cursor)
            .map(|h| h.position)
    }

    fn cursor_card(&self) -> Option<String> {
        let v = self.view.as_ref()?;
        v.mine.get(self.cursor)?.card.map(card_name)
    }

    /// The seats the card under the cursor may attack.
    fn targets(&self) -> Vec<Seat> {
        let Some(p) = self.position() else {
            return Vec::new();
        };
        self.legal
            .iter()
            .filter_map(|a| match a {
                Action::Fight { position, target } if *position == p => Some(*target),
                _ => None,
            })
            .collect()
    }

    /// Whether the card at `position` takes part in any legal move now.
    fn usable(&self, position: u16) -> bool {
        self.legal.iter().any(|a| match a {
            Action::Discard { position: p }
            | Action::Fight { position: p, .. }
            | Action::Raise { position: p }
            | Action::Key { position: p } => *p == position,
            Action::Surrender => false,
        })
    }

    fn phase(&self) -> Option<Phase> {
        self.view.as_ref().map(|v| v.phase)
    }

    fn play(&mut self, a: Action) -> Outcome<Action> {
        if !self.legal.contains(&a) {
            self.notice = Some(match a {
                Action::Discard { .. } => "that card cannot be played now".into(),
                Action::Raise { .. } => "that card does not beat the last one".into(),
                _ => "that move is not allowed now".into(),
            });
            return Outcome::None;
        }
        self.legal.clear();
        self.targeting = false;
        self.notice = None;
        Outcome::Play(a)
    }

    /// The keys that work now, as (key, words) pairs.
    fn keys(&self) -> Vec<(String, String)> {
        let card = self.cursor_card().unwrap_or_else(|| "it".into());
        let mut k: Vec<(String, String)> = Vec::new();
        if self.legal.is_empty() {
            return k;
        }
        if self.targeting {
            for t in self.targets() {
                k.push((t.to_string(), format!("fight #{t}")));
            }
            k.push(("Esc".into(), "back".into()));
            return k;
        }
        k.push(("←→".into(), "card".into()));
        match self.phase() {
            Some(Phase::Play) => {
                k.push(("d".into(), format!("discard {card}")));
                if self.legal.iter().any(|a| matches!(a, Action::Fight { .. })) {
                    k.push(("f".into(), format!("fight with {card}")));
                }
            }
            Some(Phase::Fight) => {
                if self.legal.iter().any(|a| matches!(a, Action::Raise { .. })) {
                    k.push(("a".into(), format!("answer with {card}")));
                }
                k.push(("s".into(), "surrender".into()));
            }
            Some(Phase::Key) => k.push(("k".into(), format!("Key Card {card}"))),
            _ => {}
        }
        k
    }
}

impl Panel<AbandonShip> for AbandonPanel {
    fn see(&mut self, view: &AbandonView) {
        if self.legal.is_empty() {
            self.view = Some(view.clone());
            self.cursor = self.cursor.min(view.mine.len().saturating_sub(1));
        }
    }

    fn ask(&mut self, view: &AbandonView, legal: &[Action]) {
        self.view = Some(view.clone());
        self.legal = legal.to_vec();
        self.targeting = false;
        self.notice = None;
        self.cursor = self.cursor.min(view.mine.len().saturating_sub(1));
        // Start on a card that can be played now.
        let usable: Vec<bool> = view.mine.iter().map(|h| self.usable(h.position)).collect();
        if !usable.get(self.cursor).copied().unwrap_or(false) {
            if let Some(i) = usable.iter().position(|u| *u) {
                self.cursor = i;
            }
        }
    }

    fn withdraw(&mut self) {
        self.legal.clear();
        self.targeting = false;
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<Action> {
        if self.legal.is_empty() {
            return Outcome::None;
        }
        let n = self.view.as_ref().map_or(0, |v| v.mine.len());
        if self.targeting {
            match key.code {
                KeyCode::Esc => self.targeting = false,
                KeyCode::Char(c) if c.is_ascii_digit() => {
                    let t = c as u8 - b'0';
                    match self.position() {
                        Some(position) if self.targets().contains(&t) => {
                            return self.play(Action::Fight {
                                position,
                                target: t,
                            });
                        }
                        _ => self.notice = Some(format!("#{t} cannot be attacked")),
                    }
                }
                _ => self.notice = Some(self.help()),
            }
            return Outcome::None;
        }
        let at = self.position();
        match (key.code, self.phase()) {
            (KeyCode::Left, _) => self.cursor = self.cursor.saturating_sub(1),
            (KeyCode::Right, _) => self.cursor = (self.cursor + 1).min(n.saturating_sub(1)),
            (KeyCode::Home, _) => self.cursor = 0,
            (KeyCode::End, _) => self.cursor = n.saturating_sub(1),
            (KeyCode::Char(c @ '1'..='9'), _) if (c as usize - '1' as usize) < n => {
                self.cursor = c as usize - '1' as usize;
            }
            (KeyCode::Char('d'), Some(Phase::Play)) => {
                if let Some(position) = at {
                    return self.play(Action::Discard { position });
                }
            }
            (KeyCode::Char('f'), Some(Phase::Play)) => match self.targets().as_slice() {
                [] => self.notice = Some("nobody can be attacked with that card".into()),
                [t] => {
                    let target = *t;
                    if let Some(position) = at {
                        return self.play(Action::Fight { position, target });
                    }
                }
                _ => {
                    self.targeting = true;
                    self.notice = None;
                }
            },
            (KeyCode::Char('a') | KeyCode::Enter, Some(Phase::Fight)) => {
                if let Some(position) = at {
                    return self.play(Action::Raise { position });
                }
            }
            (KeyCode::Char('s'), Some(Phase::Fight)) => return self.play(Action::Surrender),
            (KeyCode::Char('k') | KeyCode::Enter, Some(Phase::Key)) => {
                if let Some(position) = at {
                    return self.play(Action::Key { position });
                }
            }
            _ => self.notice = Some(self.help()),
        }
        Outcome::None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let theme = ctx.theme;
        let Some(v) = &self.view else {
            seat_box(frame, area, ctx, false, Vec::new(), None);
            return;
        };
        let mut rows: Vec<Line> = Vec::new();
        let mut boats = vec![Span::raw("lifeboats ")];
        for (i, b) in v.lifeboats.iter().enumerate() {
            let p: i64 = b.iter().map(|c| points(*c)).sum();
            let suit = Suit::ALL[i];
            let red = matches!(suit, Suit::Hearts | Suit::Diamonds);
            let style = if red {
                theme.fg(ratatui::style::Color::Red)
            } else {
                ratatui::style::Style::default()
            };
            boats.push(Span::styled(suit.symbol().to_string(), style));
            boats.push(Span::raw(format!(" {p:>3} pts  ")));
        }
        rows.push(Line::from(boats));
        rows.push(Line::raw(format!(
            "deck      {} left · dealer {}",
            v.deck_left,
            ctx.name(v.dealer)
        )));
        if let Some(f) = v.fight.as_ref().filter(|f| f.winner.is_none()) {
            let mut spans = vec![Span::raw(format!(
                "fight     {} {}: ",
                says(ctx.name(f.attacker), "attacks"),
                ctx.name(f.defender)
            ))];
            for (i, p) in f.plays.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::raw(" < "));
                }
                spans.push(theme.card_face(p.card));
            }
            if let Some(top) = f.top() {
                let answer = if v.phase == Phase::Fight && Some(f.to_answer()) == v.viewer {
                    "you".to_string()
                } else {
                    ctx.name(f.to_answer())
                };
                spans.push(Span::styled(
                    format!("  ({answer} must beat {} or surrender)", card_name(top)),
                    theme.accent(),
                ));
            }
            rows.push(Line::from(spans));
        }
        for (seat, held) in &v.hands {
            let arrow = if v.to_act.contains(seat) {
                "▶ "
            } else {
                "  "
            };
            let score = v
                .scores
                .iter()
                .find(|(s, _)| s == seat)
                .map_or(0, |(_, p)| *p);
            let mut spans = vec![
                Span::styled(arrow, theme.accent()),
                Span::raw(format!(
                    "#{seat} {:<12} {score:>3}/{}  hand {}  board ",
                    ctx.name(*seat),
                    v.target,
                    held.len()
                )),
            ];
            let board = v
                .boards
                .iter()
                .find(|(s, _)| s == seat)
                .map(|(_, b)| b.clone())
                .unwrap_or_default();
            if board.is_empty() {
                spans.push(Span::styled("empty", theme.dim()));
            } else {
                spans.extend(card_row(theme, board.into_iter().map(Some)));
            }
            if v.removed.contains(seat) {
                spans.push(Span::styled(" removed", theme.dim()));
            }
            if v.winners.contains(seat) {
                spans.push(Span::styled(" winner", theme.good()));
            }
            rows.push(Line::from(spans));
            // Once shown (the showdown), a player's hand is named.
            if Some(*seat) != v.viewer && !held.is_empty() && held.iter().all(|c| c.is_some()) {
                let mut shown = vec![Span::raw("      shows ")];
                shown.extend(card_row(theme, held.iter().copied()));
                rows.push(Line::from(shown));
            }
        }
        let want = (rows.len() as u16 + 2).min(area.height.saturating_sub(6));
        let mut title = format!(" {} ", super::words::round_words(v));
        title.replace_range(1..2, "R");
        let you = ctx.table_and_story(frame, area, rows, &title, want);
        let asked = !self.legal.is_empty();
        let mut lines = Vec::new();
        if v.viewer.is_some() {
            let mut hand = Vec::new();
            for (i, h) in v.mine.iter().enumerate() {
                let mut s = theme.card_face(h.card);
                if asked && !self.usable(h.position) {
                    s.style = theme.dim();
                }
                if asked && i == self.cursor {
                    s.style = s.style.add_modifier(Modifier::REVERSED);
                }
                hand.push(s);
                hand.push(Span::raw(" "));
            }
            if hand.is_empty() {
                hand.push(Span::styled("no cards", theme.dim()));
            }
            lines.push(Line::from(hand));
        }
        if asked {
            // One key a line: the box is half the screen wide.
            for (k, w) in self.keys() {
                lines.push(Line::from(theme.key_hint(&k, &w)));
            }
            if self.targeting {
                lines.push(Line::styled(
                    "whom? the player's # (hand sizes above)",
                    theme.dim(),
                ));
            }
            if self.phase() == Some(Phase::Key) {
                lines.push(Line::styled(
                    "face down: nobody sees it until everyone chose",
                    theme.dim(),
                ));
            }
        }
        seat_box(frame, you, ctx, asked, lines, self.notice.as_deref());
    }

    fn help(&self) -> String {
        let mut keys: Vec<String> = self
            .keys()
            .into_iter()
            .map(|(k, w)| format!("{k}: {w}"))
            .collect();
        keys.push("q: quit".into());
        keys.join(" · ")
    }

    fn title(&self) -> String {
        self.view
            .as_ref()
            .map(|v| {
                format!(
                    "{} · to {} · deck {}",
                    super::words::round_words(v),
                    v.target,
                    v.deck_left
                )
            })
            .unwrap_or_default()
    }

    fn editing(&self) -> bool {
        self.targeting
    }
}
