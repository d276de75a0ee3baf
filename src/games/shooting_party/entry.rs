//! Shooting Party's entry in the game registry: its setup, bots and words.

use super::bot::{AgentBot, RandomPlayer};
use super::game::{
    card_name, card_short, communique_grade, contact_grade, entrant_view, rank, Action,
    EntrantView, PartyView, Phase, Places, Setup, ShootingParty, Status, Verdict, JACK, RESHUFFLES,
};
use crate::bots::{Bot, BotLevel};
use crate::cards::CardId;
use crate::engine::{Game, RuleError, Seat};
use crate::games::race::place;
use crate::games::registry::{check_players, count, says, whose, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

fn card_or(c: Option<CardId>, unseen: &str) -> String {
    c.map(card_name).unwrap_or_else(|| unseen.to_string())
}

/// Cards in a row, each by its short name ("Q♥ A♥ 4♣"), "none" for none.
pub fn row(cards: &[Option<CardId>]) -> String {
    if cards.is_empty() {
        return "none".into();
    }
    let v: Vec<String> = cards
        .iter()
        .map(|c| c.map(card_short).unwrap_or_else(|| "??".into()))
        .collect();
    v.join(" ")
}

/// A move in words, with the cards where the reader may see them: `e` is the entrant as the
/// reader sees it before the move.
pub fn move_words(a: &Action, e: &EntrantView) -> String {
    let hand = |slot: &u8| {
        card_or(
            e.hand.get(usize::from(*slot)).copied().flatten(),
            &format!("hand card {}", slot + 1),
        )
    };
    match a {
        Action::AceUp { slot } => {
            format!("{} goes up on the table; a card replaces it", hand(slot))
        }
        Action::Spouses { a, b } => {
            format!(
                "{} and {} leave together (the spouse rule)",
                hand(a),
                hand(b)
            )
        }
        Action::Queen { slot } => format!(
            "{} leaves: she was in the room longest (one queen at a time)",
            hand(slot)
        ),
        Action::Draw => "draw a pair of guests".into(),
        Action::Leave => {
            let jacks = e
                .hand
                .iter()
                .filter(|c| c.and_then(rank) == Some(JACK))
                .count();
            if jacks >= 2 {
                "two jacks are in the room: leave it and draw four".into()
            } else {
                format!(
                    "leave the room ({} discarded) and draw four",
                    count(e.hand.len() as u64, "card", "cards")
                )
            }
        }
        Action::Discard { slots } => {
            let v: Vec<String> = slots.iter().map(hand).collect();
            format!("{} leave the room", v.join(" and "))
        }
        Action::Joker { .. } => "the joker leaves on his own".into(),
        Action::Retrieve { card, .. } => format!(
            "the joker leaves and brings back {}",
            card_or(
                e.discards.get(usize::from(*card)).copied().flatten(),
                &format!("discard {}", card + 1)
            )
        ),
        Action::Search { .. } => "the joker leaves to look through the draw pile for an ace".into(),
        Action::TakeAce { at } => format!(
            "the joker finds {} in the draw pile; it goes up and the pile is shuffled",
            card_or(
                e.search
                    .as_ref()
                    .and_then(|p| p.get(usize::from(*at)).copied().flatten()),
                "an ace"
            )
        ),
        Action::Contact { ace } => {
            let q = card_or(e.hand.first().copied().flatten(), "the queen");
            match ace {
                Some(i) => format!(
                    "contact with {q}, who hands over her communique {}",
                    card_or(e.aces.get(usize::from(*i)).copied().flatten(), "(her ace)")
                ),
                None => format!("contact with {q}"),
            }
        }
        Action::GiveUp => "give up (the score pile stands)".into(),
    }
}

/// A move as it is typed (hand places from 1): the inverse of `replay::parse_move`.
pub fn typed(a: &Action) -> String {
    let n = |x: &u8| x + 1;
    match a {
        Action::AceUp { slot } => format!("ace {}", n(slot)),
        Action::Spouses { a, b } => format!("spouses {} {}", n(a), n(b)),
        Action::Queen { slot } => format!("queen {}", n(slot)),
        Action::Draw => "draw".into(),
        Action::Leave => "leave".into(),
        Action::Discard { slots } => {
            let v: Vec<String> = slots.iter().map(|s| n(s).to_string()).collect();
            format!("discard {}", v.join(" "))
        }
        Action::Joker { slot } => format!("joker {}", n(slot)),
        Action::Retrieve { slot, card } => format!("retrieve {} {}", n(slot), n(card)),
        Action::Search { slot } => format!("search {}", n(slot)),
        Action::TakeAce { at } => format!("take {}", n(at)),
        Action::Contact { ace: None } => "contact".into(),
        Action::Contact { ace: Some(i) } => format!("contact {}", n(i)),
        Action::GiveUp => "give up".into(),
    }
}

/// Jacks in the viewer's room.
fn jacks(view: &PartyView) -> usize {
    view.me().map_or(0, |e| {
        e.hand
            .iter()
            .filter(|c| c.and_then(rank) == Some(JACK))
            .count()
    })
}

fn grade(e: &EntrantView) -> String {
    let aces = e.scored.len() - usize::from(e.contacts);
    format!(
        "{} {}",
        communique_grade(aces),
        contact_grade(usize::from(e.contacts))
    )
}

fn status_word(e: &EntrantView) -> String {
    match (&e.verdict, e.status) {
        (Some(Verdict::Verified { score, .. }), s) if s.finished() => {
            format!("{} · score {score}", s.label())
        }
        (Some(Verdict::Verified { score, .. }), Status::Stopped) => {
            format!("stopped · score {score}")
        }
        (Some(Verdict::Refused { .. }), _) => "REFUSED".into(),
        (_, s) => s.label().to_string(),
    }
}

impl TableGame for ShootingParty {
    const TITLE: &'static str = "Shooting Party";
    const SUMMARY: &'static str =
        "the spy's solitaire of etiquette at a hunting party, raced by npub on one deal nobody \
         could choose: contact four sources alone, with their communiques";
    const SEATS: (u8, u8) = (2, 6);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() {
            return Err("Shooting Party has no variant files".into());
        }
        if let Some(v) = opts.variant.as_deref().filter(|v| *v != "standard") {
            return Err(format!(
                "Shooting Party has one variant, 'standard', not '{v}'"
            ));
        }
        // A race is one deal (`--hands` counts nothing here: race again for another deal).
        let s = Setup {
            players: opts.players.max(1),
        };
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<ShootingParty, RuleError> {
        check_players(setup.players.into(), players)?;
        ShootingParty::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<ShootingParty>> {
        match level {
            BotLevel::Easy => Box::new(RandomPlayer::new(rng)),
            _ => Box::new(AgentBot::new(rng)),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let mut out = vec!["the 33 guests are shuffled face down; rooms of four".to_string()];
        let rounds = self
            .entrants
            .iter()
            .map(|e| e.moves.len())
            .max()
            .unwrap_or(0);
        let mut places: Vec<Places> = self.entrants.iter().map(|e| Places::new(e.seat)).collect();
        // Every move of every entrant would flood the story: a person follows its own game
        // move by move and the others by their contacts.
        for r in 0..rounds {
            for (i, e) in self.entrants.iter().enumerate() {
                let Some(a) = e.moves.get(r) else { continue };
                let before = &places[i];
                let who = names(e.seat);
                let mine = viewer == Some(e.seat) || self.phase == Phase::Over;
                let text = if mine {
                    let ev = entrant_view(self, e, before, viewer);
                    Some(format!("{}: {}", who, move_words(a, &ev)))
                } else {
                    match a {
                        Action::Contact { .. } => Some(format!(
                            "{} contact ({})",
                            says(who, "makes"),
                            count(u64::from(before.contacts) + 1, "source", "sources")
                        )),
                        Action::GiveUp => Some(format!("{} up", says(who, "gives"))),
                        _ => None,
                    }
                };
                out.extend(text);
                if let Ok(p) = before.after(a) {
                    if p.exhausted > before.exhausted {
                        out.push(if p.over {
                            format!(
                                "{} draw pile runs out a third time: the game ends",
                                whose(names(e.seat))
                            )
                        } else {
                            format!(
                                "{} draw pile runs out: the discards and unscored aces are \
                                 shuffled by every entrant into a new one ({} of {RESHUFFLES})",
                                whose(names(e.seat)),
                                p.rebuilt()
                            )
                        });
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

    fn render(v: &PartyView, n: &dyn Fn(Seat) -> String) -> String {
        let phase = match v.phase {
            Phase::Start => "shuffling the deck",
            Phase::Racing => "racing",
            Phase::Showing => "showing every card drawn",
            Phase::Over => "over",
        };
        let mut s = String::new();
        if let Some(e) = v.me() {
            let _ = writeln!(
                s,
                " pile {} · rebuilt {}/{RESHUFFLES} · discards {} · score {} ({}){}",
                e.pile_left,
                e.exhausted.min(RESHUFFLES),
                e.discards.len(),
                e.scored.len(),
                grade(e),
                if v.phase == Phase::Racing {
                    String::new()
                } else {
                    format!(" · {phase}")
                }
            );
            let hand: Vec<String> = e
                .hand
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    format!(
                        "[{}] {}",
                        i + 1,
                        c.map(card_short).unwrap_or_else(|| "??".into())
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                " room  {}",
                if hand.is_empty() {
                    "empty".into()
                } else {
                    hand.join("  ")
                }
            );
            let _ = writeln!(s, " aces up     {}", row(&e.aces));
            let _ = writeln!(s, " score pile  {}", row(&e.scored));
            let last: Vec<Option<CardId>> =
                e.discards.iter().rev().take(6).rev().copied().collect();
            let _ = writeln!(
                s,
                " discarded   {}{}",
                if e.discards.len() > last.len() {
                    "… "
                } else {
                    ""
                },
                row(&last)
            );
            if let Some(pile) = &e.search {
                // The whole pile, numbered, in lines of twelve.
                let cells: Vec<String> = pile
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        format!(
                            "{}:{}",
                            i + 1,
                            c.map(card_short).unwrap_or_else(|| "??".into())
                        )
                    })
                    .collect();
                let _ = writeln!(s, " the joker searches the draw pile for an ace:");
                for chunk in cells.chunks(12) {
                    let _ = writeln!(s, "  {}", chunk.join(" "));
                }
            }
        } else {
            let _ = writeln!(
                s,
                " Shooting Party · {} on one deal · {phase}",
                v.entrants.len()
            );
        }
        for e in &v.entrants {
            if Some(e.seat) == v.viewer && e.status == Status::Playing {
                continue;
            }
            let _ = writeln!(
                s,
                " {:<12} {:<22} {} · score {}",
                n(e.seat),
                status_word(e),
                count(u64::from(e.contacts), "contact", "contacts"),
                e.scored.len()
            );
        }
        if !v.stopped_by.is_empty() {
            let who: Vec<String> = v.stopped_by.iter().map(|x| n(*x)).collect();
            let _ = writeln!(s, " the race stopped: {} left it", who.join(", "));
        }
        s
    }

    fn prompt(view: &PartyView, legal: &[Action]) -> String {
        if view.me().is_some_and(|e| e.search.is_some()) {
            return "the joker's ace: 'take' and its place in the pile (take 5), or 'give up' > "
                .into();
        }
        // A forced move (an ace, the spouse rule, one queen, two jacks) is offered alone, or
        // with the spouse rule's choice: name it as it is typed.
        let forced = legal.iter().any(|a| {
            matches!(
                a,
                Action::AceUp { .. } | Action::Spouses { .. } | Action::Queen { .. }
            )
        });
        let free = legal.iter().any(|a| {
            matches!(
                a,
                Action::Discard { .. } | Action::Draw | Action::Joker { .. }
            )
        }) || (!forced && legal.len() > 2);
        if !free {
            let typed: Vec<String> = legal
                .iter()
                .filter(|a| **a != Action::GiveUp)
                .map(|a| format!("'{}'", typed(a)))
                .collect();
            // Two jacks force the room to be left; so does a full room with nothing to discard.
            let why = if forced || jacks(view) >= 2 {
                "etiquette first"
            } else {
                "the only move"
            };
            return format!("{why}: {} (or 'give up') > ", typed.join(" or "));
        }
        let mut parts = vec![];
        if legal.contains(&Action::Draw) {
            parts.push("'draw' a pair");
        }
        parts.push("'leave' the room");
        parts.push("'discard' cards (discard 2 4)");
        if legal
            .iter()
            .any(|a| matches!(a, Action::Joker { .. } | Action::Retrieve { .. }))
        {
            parts.push("'joker' N, 'retrieve' N D or 'search' N");
        }
        if legal.iter().any(|a| matches!(a, Action::Contact { .. })) {
            parts.push("'contact' (with her ace: contact A)");
        }
        parts.push("'give up'");
        format!("{} > ", parts.join(", "))
    }

    fn parse_move(input: &str, _view: &PartyView, _legal: &[Action]) -> Result<Action, String> {
        super::replay::parse_move(input.trim())
    }

    fn move_text(view: &PartyView, action: &Action) -> String {
        match view.me() {
            Some(e) => move_words(action, e),
            None => super::super::panel::generic::json_words(
                &serde_json::to_value(action).unwrap_or_default(),
            ),
        }
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<Self>> {
        // The room, the aces and the score pile take the table's box; the moves keep a few
        // lines under it.
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
            let (contacts, communiques) = match self.verdicts.get(&r.seat) {
                Some(Verdict::Verified {
                    contacts,
                    communiques,
                    ..
                }) => (*contacts, *communiques),
                _ => (0, 0),
            };
            let what = format!(
                "{} and {} ({} {})",
                count(u64::from(contacts), "contact", "contacts"),
                count(u64::from(communiques), "communique", "communiques"),
                communique_grade(usize::from(communiques)),
                contact_grade(usize::from(contacts))
            );
            parts.push(match e.status {
                Status::Stopped => format!("{} stopped with {what}", names(r.seat)),
                s => format!(
                    "{}. {} {}: {what}, score {}",
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
                let (contacts, communiques) = match self.verdicts.get(&r.seat) {
                    Some(Verdict::Verified {
                        contacts,
                        communiques,
                        ..
                    }) => (*contacts, *communiques),
                    _ => (0, 0),
                };
                serde_json::json!({
                    "seat": r.seat,
                    "score": r.score,
                    "status": e.status,
                    "contacts": contacts,
                    "communiques": communiques,
                    "grade": format!(
                        "{} {}",
                        communique_grade(usize::from(communiques)),
                        contact_grade(usize::from(contacts))
                    ),
                    "moves": e.moves.len(),
                    "exhausted": e.places.exhausted,
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
        // Once every card drawn is shown, each entrant's game move by move and its score pile,
        // as anyone reading the relay can replay them.
        let mut games = serde_json::Map::new();
        if self.phase == Phase::Over {
            for e in &self.entrants {
                let mut p = Places::new(e.seat);
                let mut moves = Vec::new();
                for a in &e.moves {
                    moves.push(move_words(a, &entrant_view(self, e, &p, None)));
                    match p.after(a) {
                        Ok(next) => p = next,
                        Err(_) => break,
                    }
                }
                let scored = row(&entrant_view(self, e, &e.places, None).scored);
                games.insert(
                    e.seat.to_string(),
                    serde_json::json!({"moves": moves, "score_pile": scored}),
                );
            }
        }
        serde_json::json!({
            "entrants": self.entrants.len(),
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
