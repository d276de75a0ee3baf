//! Tolerance: Reformation on the terminal table: the reign and its prevailing religion; each
//! player's money, piety, pennants, Loans, VP and hand size, with the top card of each of its
//! piles (every card of your own, and of everyone's while a reign is scored); the trick with
//! declared suits; your hand with a cursor and the card under it in full; and the choices of
//! effects, the Royal Execution, repayments, Roles and the first leader as a list to pick from.

use super::words::{card_detail, code, move_words, name, role_name};
use crate::games::reformation::data::{Data, Suit};
use crate::games::reformation::game::{Action, Phase, PileView, ReformView, Reformation};
use crate::games::ui::words::{says, whose};
use crate::games::ui::{seat_box, Ctx, Outcome, Panel};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

#[derive(Default)]
pub struct ReformPanel {
    view: Option<ReformView>,
    legal: Vec<Action>,
    /// The card of the hand, or the option of a list, under the cursor.
    cursor: usize,
    /// A Wild card waits for the suit it is declared as.
    declaring: bool,
    notice: Option<String>,
}

/// "Preacher Gilbert" cut to `n` characters.
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A pile in a few characters: "C Gilbert+2" (its religion, top card, cards under it).
fn pile_text(data: &Data, p: &PileView) -> String {
    let r = match p.faith {
        Some(crate::games::reformation::data::Faith::Catholic) => "C",
        Some(crate::games::reformation::data::Faith::Protestant) => "P",
        None => "N",
    };
    let top = p
        .top
        .map(|t| short(&name(data, t.card), 12))
        .unwrap_or_default();
    if p.count > 1 {
        format!("{r}:{top}+{}", p.count - 1)
    } else {
        format!("{r}:{top}")
    }
}

impl ReformPanel {
    fn hand_positions(&self) -> Vec<u16> {
        self.view
            .as_ref()
            .map(|v| v.hand.iter().map(|(p, _)| *p).collect())
            .unwrap_or_default()
    }

    fn phase(&self) -> Option<Phase> {
        self.view.as_ref().map(|v| v.phase)
    }

    /// Options of a list phase (everything but playing a card).
    fn options(&self) -> Vec<Action> {
        if self.phase() == Some(Phase::Play) {
            return Vec::new();
        }
        self.legal.clone()
    }

    fn play(&mut self, a: Action) -> Outcome<Action> {
        if !self.legal.contains(&a) {
            self.notice = Some(match a {
                Action::Play { .. } => {
                    "that card cannot be played now: follow the suit led or play a Wild card".into()
                }
                _ => "that move is not allowed now".into(),
            });
            return Outcome::None;
        }
        self.legal.clear();
        self.declaring = false;
        self.notice = None;
        Outcome::Play(a)
    }

    /// The Play action for the card under the cursor with `declare`.
    fn play_cursor(&mut self, declare: Option<Suit>) -> Outcome<Action> {
        let Some(&position) = self.hand_positions().get(self.cursor) else {
            return Outcome::None;
        };
        self.play(Action::Play { position, declare })
    }

    fn cursor_is_wild(&self) -> bool {
        let Some(v) = &self.view else { return false };
        v.hand
            .get(self.cursor)
            .and_then(|(_, c)| *c)
            .is_some_and(|c| v.data().cards[usize::from(c.0)].suit == Suit::Wild)
    }

    fn usable(&self, position: u16) -> bool {
        self.legal
            .iter()
            .any(|a| matches!(a, Action::Play { position: p, .. } if *p == position))
    }

    fn keys(&self) -> Vec<(String, String)> {
        let mut k = Vec::new();
        if self.legal.is_empty() {
            return k;
        }
        if self.declaring {
            for s in Suit::DECLARABLE {
                k.push((
                    s.letter().to_ascii_lowercase().to_string(),
                    format!("as {}", s.word()),
                ));
            }
            k.push(("Esc".into(), "back".into()));
            return k;
        }
        match self.phase() {
            Some(Phase::Play) => {
                k.push(("←→".into(), "card".into()));
                k.push(("Enter".into(), "play it".into()));
            }
            _ => {
                k.push(("↑↓".into(), "choose".into()));
                k.push(("Enter".into(), "confirm".into()));
            }
        }
        k
    }
}

impl Panel<Reformation> for ReformPanel {
    fn see(&mut self, view: &ReformView) {
        if self.legal.is_empty() {
            self.view = Some(view.clone());
            self.cursor = self.cursor.min(view.hand.len().saturating_sub(1));
        }
    }

    fn ask(&mut self, view: &ReformView, legal: &[Action]) {
        self.view = Some(view.clone());
        self.legal = legal.to_vec();
        self.declaring = false;
        self.notice = None;
        if view.phase == Phase::Play {
            self.cursor = self.cursor.min(view.hand.len().saturating_sub(1));
            let positions = self.hand_positions();
            if !positions.get(self.cursor).is_some_and(|p| self.usable(*p)) {
                if let Some(i) = positions.iter().position(|p| self.usable(*p)) {
                    self.cursor = i;
                }
            }
        } else {
            self.cursor = 0;
        }
    }

    fn withdraw(&mut self) {
        self.legal.clear();
        self.declaring = false;
    }

    fn key(&mut self, key: KeyEvent) -> Outcome<Action> {
        if self.legal.is_empty() {
            return Outcome::None;
        }
        if self.declaring {
            match key.code {
                KeyCode::Esc => self.declaring = false,
                KeyCode::Char(c) => {
                    match Suit::parse(&c.to_string()).filter(|s| *s != Suit::Wild) {
                        Some(s) => return self.play_cursor(Some(s)),
                        None => self.notice = Some(self.help()),
                    }
                }
                _ => self.notice = Some(self.help()),
            }
            return Outcome::None;
        }
        if self.phase() == Some(Phase::Play) {
            let n = self.hand_positions().len();
            match key.code {
                KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
                KeyCode::Right => self.cursor = (self.cursor + 1).min(n.saturating_sub(1)),
                KeyCode::Home => self.cursor = 0,
                KeyCode::End => self.cursor = n.saturating_sub(1),
                KeyCode::Enter | KeyCode::Char(' ') => {
                    if self.cursor_is_wild() {
                        self.declaring = true;
                        self.notice = None;
                    } else {
                        return self.play_cursor(None);
                    }
                }
                _ => self.notice = Some(self.help()),
            }
            return Outcome::None;
        }
        let n = self.options().len();
        match key.code {
            KeyCode::Up | KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Down | KeyCode::Right => {
                self.cursor = (self.cursor + 1).min(n.saturating_sub(1))
            }
            KeyCode::Char(c @ '1'..='9') if (c as usize - '1' as usize) < n => {
                let a = self.options()[c as usize - '1' as usize];
                return self.play(a);
            }
            KeyCode::Enter | KeyCode::Char(' ') => {
                if let Some(a) = self.options().get(self.cursor).copied() {
                    return self.play(a);
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
        let data = v.data();
        let width = area.width.saturating_sub(2) as usize;
        let mut rows = player_rows(v, ctx, width);
        let mut trick = vec![Span::raw(match v.led {
            Some(l) => format!("trick ({} led): ", l.word()),
            None => "trick: ".into(),
        })];
        if v.trick.is_empty() {
            trick.push(Span::styled("no card yet", theme.dim()));
        }
        let mut used = trick
            .iter()
            .map(|s| s.content.chars().count())
            .sum::<usize>();
        for (i, c) in v.trick.iter().enumerate() {
            let mut t = format!(
                "{} {} {}",
                short(&ctx.name(c.seat), 6),
                c.card.map(|x| code(data, x)).unwrap_or_else(|| "??".into()),
                c.card
                    .map(|x| short(&name(data, x), 11))
                    .unwrap_or_default()
            );
            if let Some(d) = c.declared {
                t.push_str(&format!(" as {}", d.letter()));
            }
            let mut style = ratatui::style::Style::default().add_modifier(Modifier::BOLD);
            if !c.alive {
                t.push_str(" †");
                style = theme.dim();
            }
            let sep = if i > 0 { " · " } else { "" };
            // A trick too long for one row goes on to the next.
            if used + sep.len() + t.chars().count() > width {
                rows.push(Line::from(std::mem::take(&mut trick)));
                trick.push(Span::raw("  "));
                used = 2;
            } else if !sep.is_empty() {
                trick.push(Span::raw(sep));
                used += sep.len();
            }
            used += t.chars().count();
            trick.push(Span::styled(t, style));
        }
        rows.push(Line::from(trick));
        let title = format!(
            " Reign {}/{} · {} · {} · trick {}/12 ",
            v.round.max(1),
            v.rounds,
            name(data, v.monarch),
            crate::games::reformation::data::faith_word(v.prevailing),
            (v.tricks + 1).min(12)
        );
        let want = (rows.len() as u16 + 2).min(area.height.saturating_sub(7));
        let [table, lower] =
            Layout::vertical([Constraint::Length(want), Constraint::Min(5)]).areas(area);
        frame.render_widget(
            Paragraph::new(rows).block(theme.panel(&title, false)),
            table,
        );
        let [story, you] =
            Layout::horizontal([Constraint::Percentage(42), Constraint::Percentage(58)])
                .areas(lower);
        ctx.draw_story(frame, story, " Story ");
        let asked = !self.legal.is_empty();
        let mut lines: Vec<Line> = Vec::new();
        if v.viewer.is_some() && !v.hand.is_empty() {
            let mut hand = Vec::new();
            for (i, (p, c)) in v.hand.iter().enumerate() {
                let mut s = Span::styled(
                    c.map(|c| code(data, c)).unwrap_or_else(|| "??".into()),
                    ratatui::style::Style::default().add_modifier(Modifier::BOLD),
                );
                if asked && v.phase == Phase::Play && !self.usable(*p) {
                    s.style = theme.dim();
                }
                if asked && v.phase == Phase::Play && i == self.cursor {
                    s.style = s.style.add_modifier(Modifier::REVERSED);
                }
                hand.push(s);
                hand.push(Span::raw(" "));
            }
            lines.push(Line::from(hand));
            if let Some(c) = v.hand.get(self.cursor).and_then(|(_, c)| *c) {
                lines.push(Line::raw(card_detail(data, c, v.round)));
            }
        }
        if asked && v.phase != Phase::Play {
            if let Some(c) = &v.choice {
                lines.push(Line::styled(
                    format!(
                        "{} chooses a card ({}):",
                        name(data, c.card),
                        match c.kind {
                            crate::games::reformation::effects::ChoiceKind::Kill => "to kill",
                            crate::games::reformation::effects::ChoiceKind::Piety =>
                                "to collect its piety",
                        }
                    ),
                    theme.accent(),
                ));
            }
            for (i, a) in self.options().iter().enumerate() {
                let words = match a {
                    Action::Start { seat } => says(ctx.name(*seat), "leads"),
                    Action::Execute { position } => format!(
                        "execute {} on {} board",
                        v.card_at(*position)
                            .map(|c| name(data, c))
                            .unwrap_or_default(),
                        v.owner_of(*position)
                            .map(|o| whose(ctx.name(o)))
                            .unwrap_or_default()
                    ),
                    _ => move_words(v, a),
                };
                let text = format!("{} {words}", i + 1);
                let mut s = Span::raw(text);
                if i == self.cursor {
                    s.style = s.style.add_modifier(Modifier::REVERSED);
                }
                lines.push(Line::from(s));
            }
        }
        if asked {
            let mut spans = Vec::new();
            for (k, w) in self.keys() {
                spans.extend(theme.key_hint(&k, &w));
            }
            lines.push(Line::from(spans));
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
                    "reign {} · {} · trick {}",
                    v.round.max(1),
                    name(v.data(), v.monarch),
                    (v.tricks + 1).min(12)
                )
            })
            .unwrap_or_default()
    }

    fn editing(&self) -> bool {
        self.declaring
    }
}

/// Two rows a player: its money, piety, pennants, Loans, points, hand and Role; its living and
/// dead piles.
fn player_rows(v: &ReformView, ctx: &Ctx, width: usize) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let data = v.data();
    let mut rows: Vec<Line<'static>> = Vec::new();
    for p in &v.players {
        let arrow = if v.to_act.contains(&p.seat) {
            "▶ "
        } else {
            "  "
        };
        let vp = p.vp.map_or("?".into(), |x| x.to_string());
        let mut first = format!(
            "{:<10} ${:<2} C{:<2} P{:<2} ⚑{}/{}/{} L{} VP {:<3} hand {:<2}",
            short(&ctx.name(p.seat), 10),
            p.money,
            p.catholic,
            p.protestant,
            p.pennants[0],
            p.pennants[1],
            p.pennants[2],
            p.loans,
            vp,
            p.hand
        );
        if let Some(r) = p
            .role
            .filter(|r| *r != crate::games::reformation::data::Role::Bertram)
        {
            first.push(' ');
            first.push_str(&short(&role_name(data, r), 10));
        }
        let mut spans = vec![
            Span::styled(arrow, theme.accent()),
            Span::raw(short(&first, width.saturating_sub(2))),
        ];
        if v.removed.contains(&p.seat) {
            spans.push(Span::styled(" removed", theme.dim()));
        }
        if v.winners.contains(&p.seat) {
            spans.push(Span::styled(" winner", theme.good()));
        }
        rows.push(Line::from(spans));
        let living: Vec<String> = p.piles[..3]
            .iter()
            .filter(|pl| pl.count > 0)
            .map(|pl| pile_text(data, pl))
            .collect();
        let dead: Vec<String> = p.piles[3..]
            .iter()
            .filter(|pl| pl.count > 0)
            .map(|pl| pile_text(data, pl))
            .collect();
        let mut piles = format!(
            "    living {}",
            if living.is_empty() {
                "-".into()
            } else {
                living.join(" ")
            }
        );
        if !dead.is_empty() {
            piles.push_str(&format!("  dead {}", dead.join(" ")));
        }
        rows.push(Line::styled(short(&piles, width), theme.dim()));
    }
    rows
}
