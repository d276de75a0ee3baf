//! Tolerance's entry in the game registry: its setup (a variant and a number of hands), its
//! bots at the table, and the table in words.

use super::game::{Tolerance, ToleranceView};
use super::hand::{Action, Hand};
use super::text;
use super::variant::Variant;
use crate::bots::{Bot, BotLevel};
use crate::engine::{RuleError, Seat};
use crate::games::registry::{SetupOptions, TableGame};
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// A Tolerance table's setup, as announced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub variant: Variant,
    /// Hands to play; `None` plays until the variant's style ends the table.
    #[serde(default)]
    pub hands: Option<u64>,
}

/// A hand bot playing a whole table: it decides from the hand in play.
pub struct TableBot(pub Box<dyn Bot<Hand>>);

impl Bot<Tolerance> for TableBot {
    fn choose(&mut self, view: &ToleranceView, legal: &[Action]) -> Action {
        match &view.hand {
            Some(h) => self.0.choose(h, legal),
            None => legal[0],
        }
    }
    fn name(&self) -> &str {
        self.0.name()
    }
}

impl TableGame for Tolerance {
    const TITLE: &'static str = "The Game of Tolerance";
    const SUMMARY: &'static str =
        "two cards, a die and Hold'em betting: roll against your Tolerance number for points";
    const SEATS: (u8, u8) = (2, super::variant::MAX_SEATS);
    const VARIANTS: &'static [&'static str] = &Variant::BUILTIN;
    const VARIANT_FILES: bool = true;
    type Setup = Setup;

    fn setup(opts: &SetupOptions) -> Result<Setup, String> {
        let variant = match (&opts.variant_text, &opts.variant) {
            (Some((origin, text)), _) => {
                Variant::parse(text).map_err(|e| format!("{origin}: {e}"))?
            }
            (None, Some(name)) => Variant::builtin(name).ok_or_else(|| {
                format!(
                    "'{name}' is not a built-in Tolerance variant ({}) nor a variant file",
                    Variant::BUILTIN.join(", ")
                )
            })?,
            (None, None) => Variant::default(),
        };
        if opts.players != 0 && !(2..=variant.seats).contains(&opts.players) {
            return Err(format!(
                "the {} variant seats 2 to {} players, not {}",
                variant.name, variant.seats, opts.players
            ));
        }
        Ok(Setup {
            variant,
            hands: opts.hands,
        })
    }

    fn seats_for(setup: &Setup) -> (u8, u8) {
        (2, setup.variant.seats)
    }

    fn start(setup: &Setup, players: u8) -> Result<Tolerance, RuleError> {
        Tolerance::new(setup.variant.clone(), players, setup.hands)
    }

    fn bot(level: BotLevel, rng: StdRng) -> Box<dyn Bot<Tolerance>> {
        Box::new(TableBot(level.bot(rng)))
    }

    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String> {
        let mut out = Vec::new();
        for h in &self.history {
            out.push(format!("— hand {} —", h.hand + 1));
            for e in &h.log {
                out.push(text::entry_text(e, names));
            }
            for (seat, why) in &h.forfeits {
                out.push(format!("{} forfeited the hand: {why}", names(*seat)));
            }
            // Last, so that the story only ever grows while a hand turns into history.
            if let Some(v) = viewer {
                if let Some(cards) = self.known_cards(h.hand, v) {
                    out.push(format!(
                        "{} held {} (not shown)",
                        names(v),
                        text::cards_text(cards)
                    ));
                }
            }
        }
        if let Some(hand) = &self.hand {
            out.push(format!("— hand {} —", hand.hand_no + 1));
            let v = crate::engine::Game::view(hand, viewer);
            out.extend(text::log_lines(&v, 0, names));
        }
        out
    }

    fn render(view: &ToleranceView, names: &dyn Fn(Seat) -> String) -> String {
        let mut s = String::new();
        match &view.hand {
            Some(h) => s += &text::render(h, names),
            None => {
                let _ = writeln!(s, "── between hands ({} played) ──", view.hands_played);
                for (seat, st) in view.stacks.iter().enumerate() {
                    if let Some(c) = st {
                        let _ = writeln!(s, "  {:<14} stack {c:>6}", names(seat as Seat));
                    }
                }
            }
        }
        s
    }

    fn prompt(view: &ToleranceView, _legal: &[Action]) -> String {
        view.hand.as_ref().map(text::prompt).unwrap_or_default()
    }

    fn parse_move(input: &str, view: &ToleranceView, _legal: &[Action]) -> Result<Action, String> {
        let hand = view.hand.as_ref().ok_or("no hand is being played")?;
        text::parse_move(input, hand)
    }

    fn move_text(_: &Self::View, a: &Action) -> String {
        text::action_text(a)
    }

    fn panel() -> Box<dyn crate::games::panel::Panel<Tolerance>> {
        Box::<super::panel::TolerancePanel>::default()
    }

    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String {
        let finals = self.final_stacks();
        let stacks: Vec<String> = finals
            .iter()
            .map(|(s, c)| format!("{} {c}", names(*s)))
            .collect();
        match self.table.winner() {
            Some(w) => format!(
                "{} the table after {} ({})",
                crate::games::registry::says(names(w), "wins"),
                crate::games::registry::count(self.table.hands_played, "hand", "hands"),
                stacks.join(", ")
            ),
            None => format!(
                "{} played; stacks: {}",
                crate::games::registry::count(self.table.hands_played, "hand", "hands"),
                stacks.join(", ")
            ),
        }
    }

    fn report(&self) -> serde_json::Value {
        let finals = self.final_stacks();
        serde_json::json!({
            "hands": self.table.hands_played,
            "chips_start_total": self.table.chips_in,
            "chips_end_total": finals.iter().map(|(_, c)| c).sum::<u64>(),
            "final_stacks": finals,
            "forfeits": self.history.iter().flat_map(|h| h.forfeits.iter().map(|f| f.0)).collect::<Vec<_>>(),
            // Every hand's public record (blinds, moves, rolls, cards shown), for scripts.
            "history": self.history,
        })
    }

    fn replay(script: &str) -> Result<crate::games::Replayed, String> {
        let out = super::replay::HandScript::parse(script)?.run()?;
        Ok(crate::games::Replayed {
            ok: out.ok,
            error: out.error.clone(),
            at_action: out.at_action,
            json: serde_json::to_value(&out).expect("outputs serialise"),
        })
    }
}
