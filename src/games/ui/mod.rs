//! The games' presentation, apart from their rules: what a person reads and types, and what the
//! terminal table draws. Each game's own part lives in its folder's `ui/` ([`GameUi`]: its
//! story, table and moves in words, the moves a person types, its scripts, and its panel);
//! here is what they share:
//!
//! - [`words`]: English helpers every game's words use ("you pass", "Ann's", "3 hands");
//! - [`drawing`]: the table as cards, dice and tiles where they lie, for front ends that draw;
//! - [`panel`], [`theme`], [`generic`]: the terminal table's panel contract, its colours and
//!   layout, and the panel a game without its own gets, drawn from its words.
//!
//! The words ([`GameUi`] without its panel, [`words`]) are for every front end, a browser's as
//! much as the terminal's, and the registry asks each game for them; the panels ([`panel`],
//! [`theme`], [`generic`], each game's `ui/panel`) are the terminal's and are built only with the
//! `terminal` feature. The rules never import this module.

pub mod drawing;
#[cfg(feature = "terminal")]
pub mod generic;
#[cfg(feature = "terminal")]
pub mod panel;
#[cfg(feature = "terminal")]
pub mod theme;
pub mod words;

#[cfg(feature = "terminal")]
pub use panel::{seat_box, Ctx, Outcome, Panel};
#[cfg(feature = "terminal")]
pub use theme::Theme;

use crate::engine::{Game, Seat};
use crate::games::script::Replayed;

/// A game as people see it: its words, the moves a person types, its scripts and its panel.
/// The registry's [`crate::games::registry::TableGame`] asks for it beside the rules.
pub trait GameUi:
    Game<Action: Send + Sync + 'static, View: Send + Sync + 'static> + 'static
{
    /// Everything that happened so far, in words, as `viewer` saw it (`names` calls the
    /// viewer's own seat "you").
    fn story(&self, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Vec<String>;

    /// The table as `view` shows it, a few lines of text ending with a newline.
    fn render(view: &Self::View, names: &dyn Fn(Seat) -> String) -> String;

    /// The table as `view` shows it, as cards, dice and tiles where they lie, for front ends
    /// that draw (the page); `None` for a game drawn in its words alone.
    fn drawing(view: &Self::View, names: &dyn Fn(Seat) -> String) -> Option<drawing::Drawing> {
        let _ = (view, names);
        None
    }

    /// What a person may type for a move now.
    fn prompt(view: &Self::View, legal: &[Self::Action]) -> String;

    /// A typed move (line mode), checked against nothing but its form; the session checks it.
    fn parse_move(
        input: &str,
        view: &Self::View,
        legal: &[Self::Action],
    ) -> Result<Self::Action, String>;

    /// A move in words as `view`'s seat knows it, for lists a person picks from ("raise to
    /// 40", "bid 3 fours", "mark Q♠").
    fn move_text(view: &Self::View, action: &Self::Action) -> String {
        let _ = view;
        words::json_words(&serde_json::to_value(action).unwrap_or_default())
    }

    /// One line on how the game ended.
    fn result_line(&self, names: &dyn Fn(Seat) -> String) -> String;

    /// Plays a game script (`tolerance replay FILE`: fixed cards and dice, then moves) and
    /// reports its outcome.
    fn replay(script: &str) -> Result<Replayed, String> {
        let _ = script;
        Err(format!("{} has no script format yet", Self::NAME))
    }

    /// The game's part of the terminal table; games without one of their own are drawn from
    /// their words.
    #[cfg(feature = "terminal")]
    fn panel() -> Box<dyn Panel<Self>> {
        Box::<generic::GenericPanel<Self>>::default()
    }
}
