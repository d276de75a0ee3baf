//! The card games' panel parts.

use crate::cards::CardId;
use crate::games::ui::Theme;
use ratatui::text::Span;

/// Cards as spans, each followed by a space; `None` face down.
pub fn card_row(
    theme: &Theme,
    cards: impl IntoIterator<Item = Option<CardId>>,
) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    for c in cards {
        out.push(theme.card_face(c));
        out.push(Span::raw(" "));
    }
    out
}
