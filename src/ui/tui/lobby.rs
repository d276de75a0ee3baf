//! The lobby screens of the terminal interface: invitations received and open tables (Enter
//! joins), a form to host a new table from a variant, and a box to send feedback to the game's
//! author. [`LobbyState`] and [`draw_lobby`] are pure; [`run_lobby`] is the terminal loop, which
//! hands slow work (listing, checking a variant, sending) to the caller as [`LobbyRequest`]s and
//! gets the answers back as [`LobbyEvent`]s.

use super::TuiTerminal;
use crate::games::registry::{self, GameInfo};
use crate::table::lobby::Listing;
use crate::wire::{LobbyStatus, Pace};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Duration;

/// A table the person could join, with its host named for people.
#[derive(Debug, Clone)]
pub struct Entry {
    pub listing: Listing,
    /// The host's profile name, else a short npub.
    pub host: String,
    /// Came from an invitation addressed to this person.
    pub invited: bool,
}

/// A table to host, as the form describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTable {
    /// The game's registry name.
    pub game: String,
    /// A built-in name, a variant file path or an `naddr1…`.
    pub variant: String,
    pub seats: u8,
    /// The timing profile's name (`Pace::name`).
    pub pace: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Game,
    Variant,
    Seats,
    Pace,
}

impl Field {
    fn next(self) -> Field {
        match self {
            Field::Game => Field::Variant,
            Field::Variant => Field::Seats,
            Field::Seats => Field::Pace,
            Field::Pace => Field::Game,
        }
    }

    fn previous(self) -> Field {
        self.next().next().next()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTableForm {
    /// Index into [`LobbyState::games`].
    pub game: usize,
    pub variant: String,
    pub seats: String,
    /// Index into [`Pace::ALL`].
    pub pace: usize,
    pub field: Field,
    /// Waiting for the variant to be checked (a file read, an naddr fetched).
    pub checking: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedbackStatus {
    Editing,
    Sending,
    /// Which relays took it, in the words of `tolerance feedback`.
    Sent(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedbackForm {
    pub text: String,
    pub status: FeedbackStatus,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobbyMode {
    List,
    NewTable(NewTableForm),
    Feedback(FeedbackForm),
}

/// What the person chose; the lobby screen closes with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobbyChoice {
    /// Join the table with this naddr.
    Join(String),
    /// Host this table (its setup already checked).
    Host(NewTable),
    Quit,
}

/// Slow work the screen asks of its caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobbyRequest {
    /// List invitations and open tables again.
    Refresh,
    /// Check that the game takes this variant for this many seats.
    Check(NewTable),
    /// Send this feedback to the author.
    Feedback(String),
}

/// Answers to [`LobbyRequest`]s.
#[derive(Debug, Clone)]
pub enum LobbyEvent {
    /// Invitations and open tables, or why they could not be listed.
    Listed(Result<Vec<Entry>, String>),
    Checked(Result<NewTable, String>),
    FeedbackSent(Result<Vec<String>, String>),
}

/// What a key asks of the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobbyOutcome {
    None,
    Ask(LobbyRequest),
    Done(LobbyChoice),
}

/// Seats the form offers first: enough for a lively table, clamped to what the game seats.
const DEFAULT_SEATS: u8 = 4;

#[derive(Debug, Clone)]
pub struct LobbyState {
    /// This person: their profile name and short npub, or the short npub alone.
    pub me: String,
    pub relays: Vec<String>,
    /// The games a table may be hosted for (the registry, in its order).
    pub games: Vec<GameInfo>,
    /// Only tables that still take players; `None` until the first listing arrives.
    pub entries: Option<Vec<Entry>>,
    pub selected: usize,
    /// The table chosen when the list was asked for again, to choose it again in the answer.
    pub chosen: Option<String>,
    pub mode: LobbyMode,
    /// A hint for the last key, in words.
    pub notice: Option<String>,
    pub error: Option<String>,
    pub color: bool,
}

impl LobbyState {
    pub fn new(me: String, relays: Vec<String>, color: bool) -> LobbyState {
        LobbyState {
            me,
            relays,
            games: registry::all(),
            entries: None,
            selected: 0,
            chosen: None,
            mode: LobbyMode::List,
            notice: None,
            error: None,
            color,
        }
    }

    /// The chosen table's naddr, if the list has one.
    fn chosen_naddr(&self) -> Option<String> {
        self.entries
            .as_ref()
            .and_then(|e| e.get(self.selected))
            .map(|e| e.listing.naddr.clone())
    }

    /// The game's name for people, from its registry name.
    fn game_title<'a>(&'a self, name: &'a str) -> &'a str {
        self.games
            .iter()
            .find(|g| g.name == name)
            .map_or(name, |g| g.title)
    }

    /// Applies an answer; a checked setup closes the screen with the table to host.
    pub fn apply(&mut self, event: LobbyEvent) -> Option<LobbyChoice> {
        match event {
            LobbyEvent::Listed(Ok(entries)) => {
                // A filled, finished or cancelled table takes nobody: listing it (let alone
                // choosing it first) would only send the person to a join that fails.
                let open = LobbyStatus::Open.name();
                let mut entries: Vec<Entry> = entries
                    .into_iter()
                    .filter(|e| e.listing.status == open)
                    .collect();
                // The list draws invitations first; selection follows the drawn order.
                entries.sort_by_key(|e| !e.invited);
                // A public table we are also invited to is listed once, as the invitation.
                let mut seen = std::collections::HashSet::new();
                entries.retain(|e| seen.insert(e.listing.naddr.clone()));
                // A refresh keeps the table the person had chosen, wherever it moved.
                let chosen = self.chosen.take().or_else(|| self.chosen_naddr());
                self.selected = chosen
                    .and_then(|n| entries.iter().position(|e| e.listing.naddr == n))
                    .unwrap_or(0);
                self.entries = Some(entries);
                self.error = None;
            }
            LobbyEvent::Listed(Err(e)) => {
                self.entries.get_or_insert_with(Vec::new);
                self.error = Some(format!("could not list the tables: {e}"));
            }
            LobbyEvent::Checked(result) => {
                if let LobbyMode::NewTable(form) = &mut self.mode {
                    form.checking = false;
                    match result {
                        Ok(table) => return Some(LobbyChoice::Host(table)),
                        Err(e) => self.error = Some(e),
                    }
                }
            }
            LobbyEvent::FeedbackSent(result) => {
                if let LobbyMode::Feedback(form) = &mut self.mode {
                    match result {
                        Ok(lines) => form.status = FeedbackStatus::Sent(lines),
                        Err(e) => {
                            // The text stays, to try again.
                            form.status = FeedbackStatus::Editing;
                            self.error = Some(e);
                        }
                    }
                }
            }
        }
        None
    }

    pub fn key(&mut self, key: KeyEvent) -> LobbyOutcome {
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d'))
        {
            return LobbyOutcome::Done(LobbyChoice::Quit);
        }
        self.notice = None;
        match self.mode.clone() {
            LobbyMode::List => self.key_list(key),
            LobbyMode::NewTable(form) => self.key_new_table(key, form),
            LobbyMode::Feedback(form) => self.key_feedback(key, form),
        }
    }

    fn key_list(&mut self, key: KeyEvent) -> LobbyOutcome {
        let count = self.entries.as_ref().map_or(0, Vec::len);
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => LobbyOutcome::Done(LobbyChoice::Quit),
            KeyCode::Up | KeyCode::Char('k') => {
                self.selected = self.selected.saturating_sub(1);
                LobbyOutcome::None
            }
            KeyCode::Down | KeyCode::Char('j') => {
                if self.selected + 1 < count {
                    self.selected += 1;
                }
                LobbyOutcome::None
            }
            KeyCode::Enter => match self.entries.as_ref().and_then(|e| e.get(self.selected)) {
                Some(e) => LobbyOutcome::Done(LobbyChoice::Join(e.listing.naddr.clone())),
                None => {
                    self.notice = Some("no table to join: n hosts a new one".into());
                    LobbyOutcome::None
                }
            },
            KeyCode::Char('n') => {
                self.error = None;
                let game = self
                    .games
                    .iter()
                    .position(|g| g.name == registry::DEFAULT_GAME)
                    .unwrap_or(0);
                let mut form = NewTableForm {
                    game,
                    variant: String::new(),
                    seats: String::new(),
                    pace: Pace::ALL
                        .iter()
                        .position(|p| *p == Pace::Normal)
                        .unwrap_or(0),
                    field: Field::Game,
                    checking: false,
                };
                self.fit_to_game(&mut form);
                self.mode = LobbyMode::NewTable(form);
                LobbyOutcome::None
            }
            KeyCode::Char('f') => {
                self.error = None;
                self.mode = LobbyMode::Feedback(FeedbackForm {
                    text: String::new(),
                    status: FeedbackStatus::Editing,
                });
                LobbyOutcome::None
            }
            KeyCode::Char('r') => {
                self.chosen = self.chosen_naddr();
                self.entries = None;
                LobbyOutcome::Ask(LobbyRequest::Refresh)
            }
            _ => {
                self.notice = Some(
                    "↑/↓ choose · Enter join · n new table · f feedback · r refresh · q quit"
                        .into(),
                );
                LobbyOutcome::None
            }
        }
    }

    /// The form's game was just chosen: its first built-in variant, and the seats within what
    /// it seats.
    fn fit_to_game(&self, form: &mut NewTableForm) {
        let Some(g) = self.games.get(form.game) else {
            return;
        };
        form.variant = g.variants.first().copied().unwrap_or_default().into();
        let seats: u8 = form.seats.parse().unwrap_or(DEFAULT_SEATS);
        form.seats = seats.clamp(g.min_players, g.max_players).to_string();
    }

    fn key_new_table(&mut self, key: KeyEvent, mut form: NewTableForm) -> LobbyOutcome {
        if form.checking {
            if key.code == KeyCode::Esc {
                self.mode = LobbyMode::List;
            } else {
                self.notice = Some("checking the variant…".into());
            }
            return LobbyOutcome::None;
        }
        let Some(game) = self.games.get(form.game).cloned() else {
            self.mode = LobbyMode::List;
            return LobbyOutcome::None;
        };
        let builtin = game.variants.contains(&form.variant.as_str());
        let mut outcome = LobbyOutcome::None;
        match (key.code, form.field) {
            (KeyCode::Esc, _) => {
                self.mode = LobbyMode::List;
                self.error = None;
                return LobbyOutcome::None;
            }
            (KeyCode::Tab | KeyCode::Down, _) => form.field = form.field.next(),
            (KeyCode::BackTab | KeyCode::Up, _) => form.field = form.field.previous(),
            (KeyCode::Left | KeyCode::Right, Field::Game) => {
                let n = self.games.len();
                form.game = if key.code == KeyCode::Right {
                    (form.game + 1) % n
                } else {
                    (form.game + n - 1) % n
                };
                self.fit_to_game(&mut form);
            }
            (KeyCode::Left | KeyCode::Right, Field::Variant) => {
                let all = game.variants;
                let n = all.len().max(1);
                let at = all.iter().position(|b| *b == form.variant);
                let next = match (at, key.code) {
                    (Some(i), KeyCode::Right) => (i + 1) % n,
                    (Some(i), _) => (i + n - 1) % n,
                    (None, _) => 0,
                };
                form.variant = all.get(next).copied().unwrap_or_default().into();
            }
            (KeyCode::Left | KeyCode::Right, Field::Seats) => {
                let now: u8 = form.seats.parse().unwrap_or(DEFAULT_SEATS);
                let next = if key.code == KeyCode::Right {
                    now.saturating_add(1)
                } else {
                    now.saturating_sub(1)
                };
                form.seats = next.clamp(game.min_players, game.max_players).to_string();
            }
            (KeyCode::Left | KeyCode::Right, Field::Pace) => {
                let n = Pace::ALL.len();
                form.pace = if key.code == KeyCode::Right {
                    (form.pace + 1) % n
                } else {
                    (form.pace + n - 1) % n
                };
            }
            (KeyCode::Backspace, Field::Variant) => {
                // A built-in name is replaced whole: it was chosen, not typed.
                if builtin {
                    form.variant.clear();
                } else {
                    form.variant.pop();
                }
            }
            (KeyCode::Backspace, Field::Seats) => {
                form.seats.pop();
            }
            (KeyCode::Char(c), Field::Variant) => {
                if builtin {
                    form.variant.clear();
                }
                form.variant.push(c);
            }
            (KeyCode::Char(c @ '0'..='9'), Field::Seats) => {
                if form.seats.len() < 2 {
                    form.seats.push(c);
                }
            }
            (KeyCode::Enter, _) => match check_form(&form, &game) {
                Ok(table) => {
                    self.error = None;
                    form.checking = true;
                    outcome = LobbyOutcome::Ask(LobbyRequest::Check(table));
                }
                Err(e) => self.error = Some(e),
            },
            _ => self.notice = Some(form_help(form.field, game.variant_files).into()),
        }
        self.mode = LobbyMode::NewTable(form);
        outcome
    }

    fn key_feedback(&mut self, key: KeyEvent, mut form: FeedbackForm) -> LobbyOutcome {
        let mut outcome = LobbyOutcome::None;
        match (&form.status, key.code) {
            (FeedbackStatus::Sent(_), _) => {
                self.mode = LobbyMode::List;
                return LobbyOutcome::None;
            }
            (FeedbackStatus::Sending, KeyCode::Esc) => {
                self.notice = Some("still sending: the relays' answers are on their way".into());
            }
            (FeedbackStatus::Sending, _) => self.notice = Some("sending…".into()),
            (FeedbackStatus::Editing, KeyCode::Esc) => {
                self.mode = LobbyMode::List;
                self.error = None;
                return LobbyOutcome::None;
            }
            (FeedbackStatus::Editing, KeyCode::Enter) => {
                match crate::feedback::check_message(&form.text) {
                    Ok(text) => {
                        self.error = None;
                        form.status = FeedbackStatus::Sending;
                        outcome = LobbyOutcome::Ask(LobbyRequest::Feedback(text));
                    }
                    Err(e) => self.error = Some(e),
                }
            }
            (FeedbackStatus::Editing, KeyCode::Backspace) => {
                form.text.pop();
            }
            (FeedbackStatus::Editing, KeyCode::Char(c)) => {
                if form.text.len() + c.len_utf8() <= crate::feedback::MAX_MESSAGE_BYTES {
                    form.text.push(c);
                } else {
                    self.notice = Some("that is as long as a message can be".into());
                }
            }
            (FeedbackStatus::Editing, _) => {
                self.notice = Some("type your message · Enter send · Esc back".into());
            }
        }
        self.mode = LobbyMode::Feedback(form);
        outcome
    }
}

/// The keys of the new-table form's field, in words.
fn form_help(field: Field, files: bool) -> &'static str {
    match field {
        Field::Game => "←/→ game · Tab variant · Enter host it · Esc back",
        Field::Variant if files => {
            "←/→ built-ins or type a path/naddr · Tab seats · Enter host it · Esc back"
        }
        Field::Variant => "←/→ variant · Tab seats · Enter host it · Esc back",
        Field::Seats => "digits or ←/→ seats · Tab pace · Enter host it · Esc back",
        Field::Pace => "←/→ pace · Tab game · Enter host it · Esc back",
    }
}

/// The form's own checks, before the game checks the variant (the caller resolves files and
/// naddrs).
fn check_form(form: &NewTableForm, game: &GameInfo) -> Result<NewTable, String> {
    let variant = form.variant.trim();
    if variant.is_empty() {
        let builtins = game.variants.join(", ");
        return Err(if game.variant_files {
            format!("name a variant: a built-in ({builtins}), a file path or an naddr1…")
        } else {
            format!("name a variant: {builtins}")
        });
    }
    let (min, max) = (game.min_players, game.max_players);
    let seats: u8 = form
        .seats
        .parse()
        .map_err(|_| format!("seats must be a number from {min} to {max}"))?;
    if !(min..=max).contains(&seats) {
        return Err(format!(
            "{} seats {min} to {max} players, not {seats}",
            game.title
        ));
    }
    Ok(NewTable {
        game: game.name.to_string(),
        variant: variant.to_string(),
        seats,
        pace: Pace::ALL
            .get(form.pace)
            .copied()
            .unwrap_or(Pace::Normal)
            .name(),
    })
}

fn fg(color: bool, c: Color) -> Style {
    if color {
        Style::default().fg(c)
    } else {
        Style::default()
    }
}

pub fn draw_lobby(frame: &mut Frame, state: &LobbyState) {
    let accent = fg(state.color, Color::Yellow).add_modifier(Modifier::BOLD);
    let dim = fg(state.color, Color::DarkGray);
    let [title, body, status, help] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(6),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let heading = match &state.mode {
        LobbyMode::List => "lobby",
        LobbyMode::NewTable(_) => "new table",
        LobbyMode::Feedback(_) => "feedback to the author",
    };
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(" Tolerance ", accent.add_modifier(Modifier::REVERSED)),
            Span::raw(format!(" {heading} · you: {}", state.me)),
        ])),
        title,
    );
    match &state.mode {
        LobbyMode::List => draw_list(frame, body, state, accent),
        LobbyMode::NewTable(form) => draw_new_table(frame, body, state, form, accent, dim),
        LobbyMode::Feedback(form) => draw_feedback(frame, body, form, accent),
    }
    let status_text = match (&state.notice, &state.mode) {
        (Some(n), _) => n.clone(),
        (None, LobbyMode::NewTable(f)) if f.checking => "checking the variant…".into(),
        (None, LobbyMode::Feedback(f)) if f.status == FeedbackStatus::Sending => {
            "sending to the relays…".into()
        }
        _ => format!("relays: {}", state.relays.join(", ")),
    };
    frame.render_widget(Paragraph::new(format!(" {status_text}")), status);
    let last = match &state.error {
        Some(e) => Line::styled(
            format!(" error: {e}"),
            fg(state.color, Color::Red).add_modifier(Modifier::BOLD),
        ),
        None => Line::styled(format!(" {}", lobby_help(state)), dim),
    };
    frame.render_widget(Paragraph::new(last), help);
}

fn lobby_help(state: &LobbyState) -> &'static str {
    match &state.mode {
        LobbyMode::List => {
            "↑/↓ choose · Enter join · n new table · f feedback · r refresh · q quit"
        }
        LobbyMode::NewTable(f) => form_help(
            f.field,
            state.games.get(f.game).is_some_and(|g| g.variant_files),
        ),
        LobbyMode::Feedback(f) if matches!(f.status, FeedbackStatus::Sent(_)) => {
            "any key: back to the lobby"
        }
        LobbyMode::Feedback(_) => "type your message · Enter send · Esc back",
    }
}

fn entry_line(state: &LobbyState, e: &Entry, selected: bool, accent: Style) -> Line<'static> {
    let l = &e.listing;
    let title = if l.title.is_empty() {
        "table"
    } else {
        l.title.as_str()
    };
    let who = if e.invited {
        format!("from {}", e.host)
    } else {
        format!("hosted by {}", e.host)
    };
    // The pace's name is enough on a line; the detail is for `tables`.
    let pace = l.pace.split(" (").next().unwrap_or_default();
    let text = format!(
        "{} {title} {who} — {}/{} players · {pace} · {}",
        if selected { "▶" } else { " " },
        l.players,
        l.max_players,
        state.game_title(&l.game)
    );
    if selected {
        Line::styled(text, accent.add_modifier(Modifier::REVERSED))
    } else {
        Line::raw(text)
    }
}

fn draw_list(frame: &mut Frame, area: Rect, state: &LobbyState, accent: Style) {
    let Some(entries) = &state.entries else {
        frame.render_widget(
            Paragraph::new("looking for invitations and open tables on the relays…")
                .block(Block::default().borders(Borders::ALL).title(" Tables ")),
            area,
        );
        return;
    };
    let invites = entries.iter().filter(|e| e.invited).count();
    let mut lines = vec![Line::styled(format!("Invitations ({invites})"), accent)];
    // Invitations come first in `entries`, so list order is selection order.
    let mut sel_line = 0;
    for (i, e) in entries.iter().enumerate().filter(|(_, e)| e.invited) {
        if i == state.selected {
            sel_line = lines.len();
        }
        lines.push(entry_line(state, e, i == state.selected, accent));
    }
    if invites == 0 {
        lines.push(Line::raw("  (none)"));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("Open public tables ({})", entries.len() - invites),
        accent,
    ));
    for (i, e) in entries.iter().enumerate().filter(|(_, e)| !e.invited) {
        if i == state.selected {
            sel_line = lines.len();
        }
        lines.push(entry_line(state, e, i == state.selected, accent));
    }
    if invites == entries.len() {
        lines.push(Line::raw("  (none: n hosts a new one)"));
    }
    // Keep the selected line in view on a short terminal.
    let inner_h = area.height.saturating_sub(2) as usize;
    let scroll = sel_line.saturating_sub(inner_h.saturating_sub(1)) as u16;
    frame.render_widget(
        Paragraph::new(lines)
            .block(Block::default().borders(Borders::ALL).title(" Tables "))
            .scroll((scroll, 0)),
        area,
    );
}

fn draw_new_table(
    frame: &mut Frame,
    area: Rect,
    state: &LobbyState,
    form: &NewTableForm,
    accent: Style,
    dim: Style,
) {
    let field = |label: &str, value: String, on: bool| {
        let style = if on {
            accent.add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        };
        Line::from(vec![
            Span::raw(format!("{label:>9}: ")),
            Span::styled(value, style),
        ])
    };
    let Some(game) = state.games.get(form.game) else {
        return;
    };
    let variant = if game.variants.contains(&form.variant.as_str()) {
        format!("◀ {} ▶", form.variant)
    } else {
        format!("{}▏", form.variant)
    };
    // Hints sit under their field's value, wrapped to stay there.
    let hint_width = area.width.saturating_sub(2 + HINT_INDENT as u16) as usize;
    let hint = |text: &str| -> Vec<Line<'static>> {
        wrap_words(text, hint_width)
            .into_iter()
            .map(|l| Line::styled(format!("{}{l}", " ".repeat(HINT_INDENT)), dim))
            .collect()
    };
    let builtins = format!("built-ins: {}", game.variants.join(", "));
    let mut lines = vec![field(
        "game",
        format!("◀ {} ▶", game.title),
        form.field == Field::Game,
    )];
    lines.extend(hint(game.summary));
    lines.push(Line::raw(""));
    lines.push(field("variant", variant, form.field == Field::Variant));
    lines.extend(hint(&if game.variant_files {
        format!("{builtins} · or a variant file path · or an naddr1…")
    } else {
        builtins
    }));
    lines.push(Line::raw(""));
    lines.push(field(
        "seats",
        form.seats.clone(),
        form.field == Field::Seats,
    ));
    lines.extend(hint(&format!(
        "the most players, you included ({}–{})",
        game.min_players, game.max_players
    )));
    let pace = Pace::ALL.get(form.pace).copied().unwrap_or(Pace::Normal);
    lines.push(Line::raw(""));
    lines.push(field(
        "pace",
        format!("◀ {} ▶", pace.name()),
        form.field == Field::Pace,
    ));
    lines.extend(hint(&pace.deadlines().words()));
    lines.push(Line::raw(""));
    lines.push(Line::raw(
        "A public table on these relays: anyone may sit. It starts when it fills.",
    ));
    frame.render_widget(
        Paragraph::new(lines)
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(" Host a table "),
            )
            .wrap(Wrap { trim: false }),
        area,
    );
}

/// Where a form's hints start: under the values, past the labels.
const HINT_INDENT: usize = 11;

/// `text` in lines of at most `width` characters, broken between words (a word longer than a
/// line gets a line of its own).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && needed > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn draw_feedback(frame: &mut Frame, area: Rect, form: &FeedbackForm, accent: Style) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Feedback or a variant idea, privately to the author (NIP-17) ");
    let lines: Vec<Line> = match &form.status {
        FeedbackStatus::Sent(report) => report
            .iter()
            .map(|l| Line::styled(l.clone(), accent))
            .collect(),
        _ => {
            let cursor = if form.status == FeedbackStatus::Editing {
                "▏"
            } else {
                ""
            };
            vec![Line::raw(format!("{}{cursor}", form.text))]
        }
    };
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}

/// Runs the lobby screens until the person chooses. Blocking; run it on its own thread. The
/// terminal is given back before it returns, so whatever comes next (a join's or a host's
/// lines, then the table) starts on a clean screen.
pub fn run_lobby(
    mut state: LobbyState,
    events: Receiver<LobbyEvent>,
    requests: tokio::sync::mpsc::UnboundedSender<LobbyRequest>,
) -> Result<LobbyChoice, String> {
    let mut tui = TuiTerminal::enter()?;
    let stopped = || Err("the lobby stopped answering".to_string());
    loop {
        loop {
            match events.try_recv() {
                Ok(e) => {
                    if let Some(choice) = state.apply(e) {
                        return Ok(choice);
                    }
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return stopped(),
            }
        }
        tui.terminal
            .draw(|f| draw_lobby(f, &state))
            .map_err(|e| format!("cannot draw: {e}"))?;
        // A short wait, so the relays' answers are drawn without a key.
        match tui
            .next_key(Duration::from_millis(150))?
            .map(|k| state.key(k))
        {
            Some(LobbyOutcome::Done(choice)) => return Ok(choice),
            Some(LobbyOutcome::Ask(r)) => {
                if requests.send(r).is_err() {
                    return stopped();
                }
            }
            Some(LobbyOutcome::None) | None => {}
        }
    }
}
