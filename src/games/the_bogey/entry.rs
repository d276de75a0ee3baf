//! The Bogey's entry in the game registry: its setup, bots and words.

use super::bot::{ColumnBot, RandomPlayer};
use super::game::{
    level, Action, Awaits, BogeyView, EntrantView, Phase, Place, Places, Setup, Status, TheBogey,
    Verdict, MAX_COLUMNS,
};
use crate::bots::{Bot, BotLevel};
use crate::cards::{CardId, PlayingCard};
use crate::engine::{Game, RuleError, Seat};
use crate::games::race::place;
use crate::games::registry::{check_players, count, says, whose, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

pub use super::game::card_name as card;

fn card_or(c: Option<CardId>, unseen: &str) -> String {
    c.map(card).unwrap_or_else(|| unseen.to_string())
}

/// One column in a few characters: its suit once, then its ranks top first ("♠ K Q 9 5").
pub fn column_text(col: &[Option<CardId>]) -> String {
    let suit = col
        .first()
        .copied()
        .flatten()
        .map(|c| PlayingCard::from_id(c).suit.symbol().to_string())
        .unwrap_or_else(|| "?".into());
    let ranks: Vec<String> = col
        .iter()
        .map(|c| {
            c.map(|c| PlayingCard::from_id(c).rank_str().to_string())
                .unwrap_or_else(|| "?".into())
        })
        .collect();
    format!("{suit} {}", ranks.join(" "))
}

/// Where a card goes, in words.
fn place_words(to: Place, columns: &[Vec<Option<CardId>>]) -> String {
    match to {
        Place::New => "a new column".into(),
        Place::Column(n) => {
            let under = columns
                .get(usize::from(n))
                .and_then(|c| c.last().copied().flatten())
                .map(|b| format!(" (under {})", card(b)))
                .unwrap_or_default();
            format!("column {}{under}", n + 1)
        }
    }
}

/// A move in words, with the cards where the reader may see them: `e` is the entrant as the
/// reader sees it before the move.
pub fn move_words(a: &Action, e: &EntrantView) -> String {
    let hand = |slot: u8| {
        card_or(
            e.hand.get(usize::from(slot)).copied().flatten(),
            &format!("hand card {}", slot + 1),
        )
    };
    let bogey = e
        .bogey
        .flatten()
        .map(|c| format!("the bogey's {}", card(c)))
        .unwrap_or_else(|| "the bogey's card".into());
    match *a {
        Action::Play { slot, to } => {
            format!("play {} to {}", hand(slot), place_words(to, &e.columns))
        }
        Action::Discard { slot } => format!("discard {}", hand(slot)),
        Action::EndTurn => {
            if e.hand.is_empty() {
                "end the turn: the bogey plays".into()
            } else {
                format!(
                    "end the turn holding {}: the bogey plays",
                    count(e.hand.len() as u64, "card", "cards")
                )
            }
        }
        Action::Place { to } => format!("put {bogey} in {}", place_words(to, &e.columns)),
        Action::Stuck => format!("{bogey} fits nowhere: the game is lost"),
        Action::GiveUp => "give up (scored as lost)".into(),
    }
}

fn status_word(e: &EntrantView) -> String {
    match (&e.verdict, e.status) {
        (Some(Verdict::Verified { score, columns, .. }), Status::Won) => {
            format!("won · {} · {columns} col · score {score}", level(*columns))
        }
        (Some(Verdict::Verified { score, .. }), s) if s.finished() => {
            format!("{} · score {score}", s.label())
        }
        (Some(Verdict::Verified { on_table, .. }), Status::Stopped) => {
            format!("stopped at {on_table} cards")
        }
        (Some(Verdict::Refused { .. }), _) => "REFUSED".into(),
        (_, s) => s.label().to_string(),
    }
}

impl TableGame for TheBogey {
    const TITLE: &'static str = "The Bogey";
    const SUMMARY: &'static str =
        "the columns solitaire against a mischievous bogey, raced by npub on one deal nobody \
                                   could choose: columns by suit going down, at most twelve";
    const SEATS: (u8, u8) = (2, 6);
    const VARIANTS: &'static [&'static str] = &["standard", "hard"];
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("The Bogey has no variant files: name 'standard' or 'hard'".into());
        }
        let hand = match opts.variant.as_deref() {
            None | Some("standard") => 5,
            Some("hard") => 4,
            Some(v) => {
                return Err(format!(
                    "The Bogey has two variants, 'standard' (a hand of five) and 'hard' (a hand \
                     of four), not '{v}'"
                ))
            }
        };
        // A race is one deal (`--hands` counts nothing here: race again for another deal).
        let s = Setup {
            players: opts.players.max(1),
            hand,
        };
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<TheBogey, RuleError> {
        check_players(setup.players.into(), players)?;
        TheBogey::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<TheBogey>> {
        match level {
            BotLevel::Easy => Box::new(RandomPlayer::new(rng)),
            _ => Box::new(ColumnBot::new(rng)),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let mut out = vec![format!(
            "the 52 cards are shuffled face down; hands of {}",
            self.setup.hand
        )];
        let rounds = self
            .entrants
            .iter()
            .map(|e| e.moves.len())
            .max()
            .unwrap_or(0);
        let mut places: Vec<Places> = self
            .entrants
            .iter()
            .map(|e| Places::new(e.seat, self.setup.hand))
            .collect();
        // Every move of every entrant would flood the story: a person follows its own game
        // move by move and the others by their turns.
        for r in 0..rounds {
            for (i, e) in self.entrants.iter().enumerate() {
                let Some(a) = e.moves.get(r) else { continue };
                let before = &places[i];
                let who = names(e.seat);
                let mine = viewer == Some(e.seat) || self.phase == Phase::Over;
                let text = if mine {
                    let ev = entrant_view(self, e.seat, before, viewer);
                    Some(format!("{}: {}", who, move_words(a, &ev)))
                } else {
                    match a {
                        Action::Stuck => Some(format!("{} to the bogey", says(who, "loses"))),
                        Action::GiveUp => Some(format!("{} up", says(who, "gives"))),
                        _ => None,
                    }
                };
                out.extend(text);
                if let Ok(p) = before.after(a) {
                    if p.reshuffles.len() > before.reshuffles.len() {
                        out.push(format!(
                            "{} discards are shuffled into a new deck by every entrant",
                            whose(names(e.seat))
                        ));
                    }
                    if p.complete() {
                        out.push(format!("{} every card", says(names(e.seat), "plays")));
                    }
                    places[i] = p;
                }
            }
        }
        if self.phase == Phase::Over {
            for e in &self.entrants {
                if let Some(Verdict::Refused { reason }) = self.verdicts.get(&e.seat) {
                    out.push(format!(
                        "{} game is refused: {reason}",
                        whose(names(e.seat))
                    ));
                }
            }
            out.push(self.result_line(names));
        }
        out
    }

    fn render(v: &BogeyView, n: &dyn Fn(Seat) -> String) -> String {
        let phase = match v.phase {
            Phase::Start => "shuffling the deck",
            Phase::Racing => "racing",
            Phase::Showing => "showing every card drawn",
            Phase::Over => "over",
        };
        let mut s = String::new();
        if let Some(e) = v.me() {
            // One line at 80 columns: the phase only when it is not the race itself.
            let _ = writeln!(
                s,
                " hand of {} · deck {} · discards {} · {}/{MAX_COLUMNS} columns · {} on the table{}",
                v.hand_size,
                e.deck_left,
                e.discards.len(),
                e.columns.len(),
                e.on_table(),
                if v.phase == Phase::Racing {
                    String::new()
                } else {
                    format!(" · {phase}")
                }
            );
            if e.columns.is_empty() {
                let _ = writeln!(s, "  no columns yet");
            }
            // Two columns a line: twelve columns in six lines, each column with its suit once.
            for pair in e.columns.chunks(2).enumerate() {
                let (row, cols) = pair;
                let mut line = String::new();
                for (k, col) in cols.iter().enumerate() {
                    let cell = format!("{:>2} {}", row * 2 + k + 1, column_text(col));
                    let _ = write!(line, "{cell:<38}");
                }
                let _ = writeln!(s, " {}", line.trim_end());
            }
            let hand: Vec<String> = e
                .hand
                .iter()
                .enumerate()
                .map(|(i, c)| format!("[{}] {}", i + 1, card_or(*c, "??")))
                .collect();
            let mut line = format!(
                " hand {}",
                if hand.is_empty() {
                    "empty".into()
                } else {
                    hand.join("  ")
                }
            );
            if let Some(b) = e.bogey {
                let _ = write!(line, "   the bogey plays {}: place it", card_or(b, "??"));
            }
            let _ = writeln!(s, "{line}");
        } else {
            let _ = writeln!(s, " The Bogey · {} on one deal · {phase}", v.entrants.len());
        }
        for e in &v.entrants {
            if Some(e.seat) == v.viewer && e.status == Status::Playing {
                continue;
            }
            let _ = writeln!(
                s,
                " {:<12} {:<22} turn {:>2} · {:>2} cards · {:>2} col",
                n(e.seat),
                status_word(e),
                e.turn,
                e.on_table(),
                e.columns.len()
            );
        }
        if !v.stopped_by.is_empty() {
            let who: Vec<String> = v.stopped_by.iter().map(|x| n(*x)).collect();
            let _ = writeln!(s, " the race stopped: {} left it", who.join(", "));
        }
        s
    }

    fn prompt(view: &BogeyView, legal: &[Action]) -> String {
        if view.me().is_some_and(|e| e.awaits == Awaits::Bogey) {
            let stuck = if legal.contains(&Action::Stuck) {
                "'stuck' (it fits nowhere), "
            } else {
                ""
            };
            return format!(
                "the bogey's card: 'place' and a column number or 'new' (place 2), {stuck}or \
                 'give up' > "
            );
        }
        "'play' a hand card to a column or 'new' (play 2 3), 'discard' a hand card (discard 4), \
         'end' the turn (the bogey plays), or 'give up' > "
            .into()
    }

    fn parse_move(input: &str, _view: &BogeyView, _legal: &[Action]) -> Result<Action, String> {
        super::replay::parse_move(input.trim())
    }

    fn move_text(view: &BogeyView, action: &Action) -> String {
        match view.me() {
            Some(e) => move_words(action, e),
            None => super::super::panel::generic::json_words(
                &serde_json::to_value(action).unwrap_or_default(),
            ),
        }
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<Self>> {
        // The columns take the table's box; the moves keep a few lines under it.
        Box::new(crate::games::panel::generic::GenericPanel::<Self>::with_room_below(8))
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.phase != Phase::Over {
            return "the race is not over".into();
        }
        let mut parts = Vec::new();
        let board = self.standings();
        for (i, r) in board.iter().enumerate() {
            let e = self.entrant(r.seat).expect("entrant");
            let (on_table, columns) = match self.verdicts.get(&r.seat) {
                Some(Verdict::Verified {
                    on_table, columns, ..
                }) => (*on_table, *columns),
                _ => (0, 0),
            };
            parts.push(match e.status {
                Status::Stopped => format!(
                    "{} stopped with {on_table} cards on the table",
                    names(r.seat)
                ),
                Status::Won => format!(
                    "{}. {} won in {columns} columns, {} ({})",
                    place(&board, i),
                    names(r.seat),
                    level(columns),
                    r.score
                ),
                s => format!(
                    "{}. {} {} with {on_table} cards on the table ({})",
                    place(&board, i),
                    names(r.seat),
                    s.words(),
                    r.score
                ),
            });
        }
        for (seat, v) in &self.verdicts {
            if let Verdict::Refused { reason } = v {
                parts.push(format!(
                    "{} refused: {reason}",
                    whose(names(*seat)).replace("'s", "'s game")
                ));
            }
        }
        if self.setup.players == 1 {
            parts.push("a practice game alone proves nothing".into());
        }
        parts.join("; ")
    }

    fn report(&self) -> serde_json::Value {
        let board: Vec<serde_json::Value> = self
            .standings()
            .iter()
            .map(|r| {
                let e = self.entrant(r.seat).expect("entrant");
                let (on_table, columns) = match self.verdicts.get(&r.seat) {
                    Some(Verdict::Verified {
                        on_table, columns, ..
                    }) => (*on_table, *columns),
                    _ => (0, 0),
                };
                serde_json::json!({
                    "seat": r.seat,
                    "score": r.score,
                    "status": e.status,
                    "on_table": on_table,
                    "columns": columns,
                    "level": (e.status == Status::Won).then(|| level(columns)),
                    "moves": e.moves.len(),
                    "turns": e.places.turn,
                })
            })
            .collect();
        let refused: Vec<serde_json::Value> = self
            .verdicts
            .iter()
            .filter_map(|(seat, v)| match v {
                Verdict::Refused { reason } => {
                    Some(serde_json::json!({"seat": seat, "reason": reason}))
                }
                _ => None,
            })
            .collect();
        // Once every card drawn is shown, each entrant's game move by move and its columns, as
        // anyone reading the relay can replay them.
        let mut games = serde_json::Map::new();
        if self.phase == Phase::Over {
            for e in &self.entrants {
                let mut p = Places::new(e.seat, self.setup.hand);
                let mut moves = Vec::new();
                for a in &e.moves {
                    moves.push(move_words(a, &entrant_view(self, e.seat, &p, None)));
                    match p.after(a) {
                        Ok(next) => p = next,
                        Err(_) => break,
                    }
                }
                let columns: Vec<String> = entrant_view(self, e.seat, &e.places, None)
                    .columns
                    .iter()
                    .map(|c| column_text(c))
                    .collect();
                games.insert(
                    e.seat.to_string(),
                    serde_json::json!({"moves": moves, "columns": columns}),
                );
            }
        }
        serde_json::json!({
            "entrants": self.entrants.len(),
            "hand": self.setup.hand,
            "leaderboard": board,
            "games": games,
            "refused": refused,
            "stopped_by": self.stopped_by,
            "winners": self.outcome().map(|o| o.winners),
        })
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}

/// Entrant `seat` at `places` (a point of its game) as `viewer` sees it: for words about a
/// move made there.
fn entrant_view(g: &TheBogey, seat: Seat, places: &Places, viewer: Option<Seat>) -> EntrantView {
    // A spot names one card for the whole game (reshuffle piles are only ever added), so the
    // game as it is now reads the cards of any earlier point.
    let seen = |s: &crate::games::race::Spot| g.card_seen(seat, viewer, *s);
    EntrantView {
        seat,
        status: Status::Playing,
        awaits: places.awaits(),
        turn: places.turn,
        moves: 0,
        deck_left: places.deck.len(),
        hand: places.hand.iter().map(seen).collect(),
        columns: places
            .columns
            .iter()
            .map(|c| c.iter().map(seen).collect())
            .collect(),
        discards: places.discards.iter().map(seen).collect(),
        bogey: places.bogey.as_ref().map(seen),
        may_end_turn: places.may_end_turn(),
        reshuffles: places.reshuffles.len(),
        verdict: None,
    }
}
