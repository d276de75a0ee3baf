//! ArtOfFacts in the game registry: its setup (a deck file as the variant), bots and words.

use super::bot::CountingBot;
use super::deck::{Card, DeckFile};
use super::game::{Action, ArtOfFacts, ArtView, Entry, Phase, Setup};
use super::value;
use crate::bots::{Bot, BotLevel, RandomBot};
use crate::engine::{Game, RuleError, Seat};
use crate::games::registry::{check_players, count, says, SetupOptions, TableGame};
use rand::rngs::StdRng;
use std::fmt::Write;

fn cards_text(cards: &[Card]) -> String {
    cards.iter().map(Card::name).collect::<Vec<_>>().join(", ")
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Drew { seat, card } => format!("{} {}", says(n(*seat), "draws"), card.name()),
        Entry::Dealer { seat, card } => format!(
            "{} with the highest feather card, {}",
            says(n(*seat), "deals first"),
            card.name()
        ),
        Entry::Ante {
            hand,
            ante,
            rotation,
            pot,
        } => format!(
            "hand {hand}: everyone antes {ante} (rotation {}), pot {pot}",
            rotation + 1
        ),
        Entry::Kept { seat } => format!("{} the three cards", says(n(*seat), "keeps")),
        Entry::Swapped { seat, slot } => format!(
            "{} card {} for the face-down card",
            says(n(*seat), "swaps"),
            slot + 1
        ),
        Entry::Shown { seat, cards } => {
            format!("{} {}", says(n(*seat), "shows"), cards_text(cards))
        }
        Entry::Declared { seat, value, how } => {
            format!("{} {value}: {how}", says(n(*seat), "declares"))
        }
        Entry::TookBack { seat, chips } => format!(
            "{} the dealer and {} {chips} back",
            says(n(*seat), "ties"),
            if n(*seat) == "you" { "take" } else { "takes" }
        ),
        Entry::Won {
            seat,
            pot,
            value,
            dealer_tie,
        } => {
            if *dealer_tie {
                format!(
                    "a tie for the top goes to the dealer: {} the pot of {pot}",
                    says(n(*seat), "takes")
                )
            } else {
                format!("{} the pot of {pot} with {value}", says(n(*seat), "takes"))
            }
        }
        Entry::Out { seat } => format!("{} out of chips", says(n(*seat), "is")),
        Entry::Forfeited { seat, shared } => format!(
            "{} the table; its ante of {shared} is shared",
            says(n(*seat), "leaves")
        ),
    }
}

impl TableGame for ArtOfFacts {
    const TITLE: &'static str = "ArtOfFacts!";
    const SUMMARY: &'static str =
        "symbol cards and operations: ante, three cards and one face down, declare the highest value";
    const SEATS: (u8, u8) = (2, 8);
    const VARIANT_FILES: bool = true;
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        let deck = match (&opts.variant_text, opts.variant.as_deref()) {
            (Some((origin, text)), _) => {
                DeckFile::parse(text).map_err(|e| format!("{origin}: {e}"))?
            }
            (None, None | Some("standard")) => DeckFile::default_deck(),
            (None, Some(other)) => {
                return Err(format!(
                    "'{other}' is neither ArtOfFacts' built-in deck ('standard') nor a deck file"
                ))
            }
        };
        let hands = opts
            .hands
            .map(|h| u32::try_from(h).map_err(|_| format!("{h} hands is too many")))
            .transpose()?;
        let s = Setup {
            players: opts.players.max(2),
            hands,
            deck,
        };
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }

    fn start(setup: &Setup, players: u8) -> Result<ArtOfFacts, RuleError> {
        check_players(setup.players.into(), players)?;
        ArtOfFacts::new(setup)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<ArtOfFacts>> {
        match level {
            BotLevel::Easy => Box::new(RandomBot::new(rng)),
            _ => Box::new(CountingBot::new(rng)),
        }
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        self.view(viewer)
            .log
            .iter()
            .map(|e| line(e, names))
            .collect()
    }

    fn render(v: &ArtView, n: &dyn Fn(Seat) -> String) -> String {
        let mut s = match v.phase {
            Phase::Draw => "── drawing for the first deal: highest feather deals ──\n".to_string(),
            Phase::Done => format!("── over after {} ──\n", count(v.hand_no, "hand", "hands")),
            _ => format!(
                "── hand {}{} · ante {} · pot {} ──\n",
                v.hand_no + 1,
                v.hands.map(|h| format!(" of {h}")).unwrap_or_default(),
                v.ante,
                v.pot
            ),
        };
        for p in &v.players {
            let cards = if p.cards.is_empty() {
                v.draws
                    .iter()
                    .find(|(x, _)| *x == p.seat)
                    .map(|(_, c)| format!("drew {}", cards_text(c)))
                    .unwrap_or_default()
            } else {
                let mut t: Vec<String> = p
                    .cards
                    .iter()
                    .map(|c| c.as_ref().map(Card::name).unwrap_or_else(|| "??".into()))
                    .collect();
                if p.face_down {
                    t.push("[face down]".into());
                }
                t.join(" · ")
            };
            let _ = writeln!(
                s,
                "  {:<12} {:>6} chips{}{}  {cards}{}{}",
                n(p.seat),
                p.bank,
                if v.dealer == Some(p.seat) { " (D)" } else { "" },
                if p.status == "playing" {
                    String::new()
                } else {
                    format!(" [{}]", p.status)
                },
                p.declared.map(|d| format!("  = {d}")).unwrap_or_default(),
                if v.to_act == Some(p.seat) { " ◀" } else { "" },
            );
        }
        s
    }

    fn prompt(view: &ArtView, _legal: &[Action]) -> String {
        match view.phase {
            Phase::Swap { .. } => {
                "keep, or swap 1/2/3 for your face-down card (unseen; final)? > ".into()
            }
            Phase::Declare { .. } => {
                "declare: pick a line, or type e.g. '+1 -2 ops 3' (slots 1-3) > ".into()
            }
            _ => "> ".into(),
        }
    }

    fn parse_move(input: &str, view: &ArtView, legal: &[Action]) -> Result<Action, String> {
        let t = input.trim().to_ascii_lowercase();
        if t == "best" {
            // The highest value on offer.
            let me = view.viewer.ok_or("you are not seated")?;
            return legal
                .iter()
                .filter_map(|a| match a {
                    Action::Declare(d) => Some((Self::value_of(view, me, d)?, a.clone())),
                    _ => None,
                })
                .max_by_key(|(v, _)| *v)
                .map(|(_, a)| a)
                .ok_or_else(|| "there is nothing to declare now".into());
        }
        super::replay::parse_action(&format!("0 {t}"), true).map(|(_, a)| a)
    }

    fn move_text(view: &ArtView, action: &Action) -> String {
        match action {
            Action::Keep => "keep the three cards".into(),
            Action::Swap { slot } => {
                let me = view.viewer.and_then(|s| view.player(s));
                let card = me
                    .and_then(|p| p.cards.get(usize::from(*slot)).cloned().flatten())
                    .map(|c| c.name())
                    .unwrap_or_else(|| format!("card {}", slot + 1));
                format!("swap {card} for the face-down card")
            }
            Action::Declare(d) => {
                let Some(me) = view.viewer else {
                    return "declare".into();
                };
                let (ids, cards) = Self::shown_hand(view, me);
                value::words(&cards, &ids, d)
            }
        }
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        match self.outcome() {
            Some(o) => {
                let w: Vec<String> = o.winners.iter().map(|s| names(*s)).collect();
                let who = if w.len() == 1 {
                    says(w[0].clone(), "wins")
                } else {
                    format!("{} share the win", w.join(" and "))
                };
                format!(
                    "{who} with the most chips after {}",
                    count(self.hand_no, "hand", "hands")
                )
            }
            None => "the game is not over".into(),
        }
    }

    fn report(&self) -> serde_json::Value {
        serde_json::json!({
            "hands": self.hand_no,
            "banks": self.banks,
            "ante": self.ante,
            "rotation": self.rotation,
            "deck": self.setup.deck.name,
            "winners": self.outcome().map(|o| o.winners),
        })
    }

    fn variant_json(text: &str) -> Result<(String, String), String> {
        let deck = DeckFile::parse(text)?;
        let json = serde_json::to_string(&deck).map_err(|e| e.to_string())?;
        Ok((deck.name, json))
    }

    fn variant_template() -> Option<&'static str> {
        Some(super::deck::DEFAULT_DECK)
    }

    fn variant_file(json: &str) -> String {
        match DeckFile::parse(json) {
            Ok(d) => d.to_toml(),
            Err(e) => format!("# not a valid deck file: {e}\n{json}\n"),
        }
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::Script::parse(script)?.run()?;
        Ok(out.end.replayed(&out))
    }
}

impl ArtOfFacts {
    /// A seat's shown (or own) hand from a view, as ids into the view's deck list.
    fn shown_hand(view: &ArtView, seat: Seat) -> (Vec<crate::cards::CardId>, super::deck::Cards) {
        let cards = super::deck::Cards(view.deck.clone());
        let mut taken = Vec::new();
        if let Some(p) = view.player(seat) {
            for c in p.cards.iter().flatten() {
                if let Some(id) = cards.find(&c.name(), &taken) {
                    taken.push(id);
                }
            }
        }
        (taken, cards)
    }

    fn value_of(view: &ArtView, seat: Seat, d: &value::Declaration) -> Option<i64> {
        let (ids, cards) = Self::shown_hand(view, seat);
        value::value(&cards, &ids, d).ok()
    }
}
