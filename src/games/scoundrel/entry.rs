//! Scoundrel's entry in the game registry: its setup, bots and words.

use super::bot::DungeonBot;
use super::game::{
    Action, EntrantView, Phase, Places, Scoundrel, ScoundrelView, Setup, Status, Verdict,
    MAX_HEALTH,
};
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::cards::{CardId, PlayingCard};
use crate::engine::{Game, RuleError, Seat};
use crate::games::registry::{check_players, says, whose, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

/// A card as people read it: "7♣", "10♦".
pub fn card(c: CardId) -> String {
    let p = PlayingCard::from_id(c);
    format!("{}{}", p.rank_str(), p.suit.symbol())
}

fn cards(cs: &[CardId]) -> String {
    cs.iter().map(|c| card(*c)).collect::<Vec<_>>().join(" ")
}

/// A turn in words, with the cards where the reader may see them.
pub fn turn_words(a: &Action, room: &[Option<CardId>]) -> String {
    match a {
        Action::Avoid => "avoid the room".into(),
        Action::GiveUp => "give up (scored as fallen)".into(),
        Action::Face { takes, fallen } => {
            let list: Vec<String> = takes
                .iter()
                .map(|t| {
                    let c = room
                        .get(usize::from(t.slot))
                        .copied()
                        .flatten()
                        .map(card)
                        .unwrap_or_else(|| format!("card {}", t.slot + 1));
                    if t.weapon {
                        format!("{c} with the weapon")
                    } else {
                        c
                    }
                })
                .collect();
            format!(
                "face {}{}",
                list.join(", "),
                if *fallen { " — and fall" } else { "" }
            )
        }
    }
}

fn status_word(e: &EntrantView) -> String {
    match (&e.verdict, e.status) {
        (Some(Verdict::Verified { score, .. }), s) if s.finished() => {
            format!("{} · score {score}", s.words())
        }
        (Some(Verdict::Verified { health, .. }), Status::Stopped) => {
            format!("stopped at {health} health")
        }
        (Some(Verdict::Refused { .. }), _) => "REFUSED".into(),
        (_, s) => s.label().to_string(),
    }
}

fn me(v: &ScoundrelView) -> Option<&EntrantView> {
    v.entrants.iter().find(|e| Some(e.seat) == v.viewer)
}

impl TableGame for Scoundrel {
    const TITLE: &'static str = "Scoundrel";
    const SUMMARY: &'static str =
        "the 44-card dungeon solitaire, raced by npub on one deal nobody \
                                   could choose: rooms of four, weapons, potions, escape";
    const SEATS: (u8, u8) = (2, 6);
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        if opts.variant_text.is_some() || opts.variant.as_deref().is_some_and(|v| v != "standard") {
            return Err("Scoundrel has one variant, 'standard'".into());
        }
        // A race is one deal (`--hands` counts nothing here: race again for another deal).
        let s = Setup {
            players: opts.players.max(1),
        };
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<Scoundrel, RuleError> {
        check_players(setup.players.into(), players)?;
        Scoundrel::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Scoundrel>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(DungeonBot::new(rng)),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let mut out = vec!["the dungeon's 44 cards are shuffled face down".into()];
        let rounds = self
            .entrants
            .iter()
            .map(|e| e.moves.len())
            .max()
            .unwrap_or(0);
        let mut places: Vec<Places> = self.entrants.iter().map(|_| Places::new()).collect();
        for r in 0..rounds {
            for (i, e) in self.entrants.iter().enumerate() {
                let Some(a) = e.moves.get(r) else { continue };
                let room: Vec<Option<CardId>> = places[i]
                    .room
                    .iter()
                    .map(|p| self.card_seen(e.seat, viewer, *p))
                    .collect();
                let who = names(e.seat);
                let text = match a {
                    Action::Avoid => format!("{} the room", says(who, "avoids")),
                    Action::GiveUp => format!("{} up", says(who, "gives")),
                    Action::Face { .. } if room.iter().all(Option::is_none) => {
                        format!("{} a turn", says(who, "plays"))
                    }
                    a => format!("{}: {}", who, turn_words(a, &room)),
                };
                out.push(text);
                if let Ok((p, _)) = places[i].after(a) {
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

    fn render(v: &ScoundrelView, n: &dyn Fn(Seat) -> String) -> String {
        let phase = match v.phase {
            Phase::Start => "shuffling the dungeon",
            Phase::Racing => "racing",
            Phase::Showing => "showing every card drawn",
            Phase::Over => "over",
        };
        let mut s = format!(
            "── Scoundrel · {} on one deal · {phase} ──\n",
            v.entrants.len()
        );
        if let Some(e) = me(v) {
            if let Some(l) = &e.life {
                let weapon = match l.weapon {
                    Some(w) if l.slain.is_empty() => format!("{} (unused)", card(w)),
                    Some(w) => format!("{} slew {}", card(w), cards(&l.slain)),
                    None => "none".into(),
                };
                let _ = writeln!(
                    s,
                    "  health {}/{MAX_HEALTH}   weapon {weapon}   dungeon {} left",
                    l.health, e.dungeon_left
                );
            }
            let room: Vec<String> = e
                .room
                .iter()
                .enumerate()
                .map(|(i, c)| format!("[{}] {}", i + 1, c.map(card).unwrap_or("??".into())))
                .collect();
            let _ = writeln!(
                s,
                "  room {}{}",
                room.join("  "),
                if e.avoided_last {
                    "   (avoided the last)"
                } else {
                    ""
                }
            );
        }
        for e in &v.entrants {
            let mut line = format!(
                "  {:<12} {:<28} turn {:>2}, {:>2} left",
                n(e.seat),
                status_word(e),
                e.turns,
                e.dungeon_left
            );
            if Some(e.seat) != v.viewer {
                if let Some(l) = &e.life {
                    let _ = write!(line, ", health {}", l.health);
                }
            }
            let _ = writeln!(s, "{line}");
        }
        if !v.stopped_by.is_empty() {
            let who: Vec<String> = v.stopped_by.iter().map(|x| n(*x)).collect();
            let _ = writeln!(s, "  the race stopped: {} left it", who.join(", "));
        }
        s
    }

    fn prompt(view: &ScoundrelView, legal: &[Action]) -> String {
        let avoid = if legal.contains(&Action::Avoid) {
            "'avoid', "
        } else {
            ""
        };
        let need = me(view).map(|e| e.room.len().min(3)).unwrap_or(3);
        format!(
            "{avoid}'face' and {need} card numbers in order (add w to fight with the weapon, e.g. \
             face 2w 1 3), or 'give up' > "
        )
    }

    fn parse_move(input: &str, _view: &ScoundrelView, legal: &[Action]) -> Result<Action, String> {
        let a = super::replay::parse_turn(input)?;
        // A typed turn does not say whether it kills: the listed move with the same cards does.
        if let Action::Face { takes, .. } = &a {
            if let Some(l) = legal
                .iter()
                .find(|l| matches!(l, Action::Face { takes: t, .. } if t == takes))
            {
                return Ok(l.clone());
            }
        }
        Ok(a)
    }

    fn move_text(view: &ScoundrelView, action: &Action) -> String {
        let room = me(view).map(|e| e.room.clone()).unwrap_or_default();
        turn_words(action, &room)
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        if self.phase != Phase::Over {
            return "the race is not over".into();
        }
        let mut parts = Vec::new();
        let board = self.leaderboard();
        let standings = self.standings();
        for (i, (seat, score, status)) in board.iter().enumerate() {
            // Ties share the place of the first of them.
            let place = crate::games::race::place(&standings, i);
            parts.push(if *status == Status::Stopped {
                format!("{} stopped at {score} health", names(*seat))
            } else {
                format!("{place}. {} {} ({score})", names(*seat), status.words())
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
            .leaderboard()
            .iter()
            .map(|(seat, score, status)| {
                let e = self.entrant(*seat).expect("entrant");
                serde_json::json!({
                    "seat": seat,
                    "score": score,
                    "status": status,
                    "turns": e.moves.len(),
                    "cards_faced": e.places.faced.len(),
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
        // Once every card drawn is shown, each entrant's game turn by turn, as anyone reading
        // the relay can replay it.
        let mut games = serde_json::Map::new();
        if self.phase == Phase::Over {
            for e in &self.entrants {
                let mut places = Places::new();
                let mut turns = Vec::new();
                for a in &e.moves {
                    let room: Vec<Option<CardId>> = places
                        .room
                        .iter()
                        .map(|p| self.card_seen(e.seat, None, *p))
                        .collect();
                    turns.push(turn_words(a, &room));
                    if let Ok((p, _)) = places.after(a) {
                        places = p;
                    }
                }
                games.insert(e.seat.to_string(), serde_json::json!(turns));
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
