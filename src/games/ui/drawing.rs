//! A table as the things on it — cards, dice, tiles — for front ends that draw rather than
//! print (the browser page). Each game says what lies where, from the same view its words are
//! made of, so a drawing can show nothing the view hides; how a card or a die looks is the front
//! end's business.
//!
//! A drawing is a title and a list of [`Spot`]s: a seat, or a place every seat shares (the
//! domino line, the pool, the standing bid). Each spot has its pieces and a few notes in words
//! ("stack 980", "bet 20", "folded").

use crate::cards::{CardId, PlayingCard, Suit};
use crate::engine::Seat;
use serde::Serialize;

/// One thing on the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Piece {
    /// A playing card face up: its rank as printed ("10", "K") and its suit's symbol.
    Card { rank: String, suit: char, red: bool },
    /// A card face down: there, but not for this viewer to see.
    CardBack,
    /// A card face up that is no standard deck's (an ArtOfFacts symbol card, an Insider word
    /// or role card, a Reformation card, a joker), shown by its name as the game's words name
    /// it: a suit symbol made up for it would tell a person something the card does not say.
    Named { text: String },
    /// A die showing `face`.
    Die { face: u8 },
    /// A die under its cup.
    DieHidden,
    /// A domino tile, its halves in the order it lies.
    Tile { a: u8, b: u8 },
    /// A tile face down.
    TileBack,
}

impl Piece {
    /// A standard deck's card.
    pub fn card(c: CardId) -> Piece {
        Piece::playing(PlayingCard::from_id(c))
    }

    /// A playing card by its rank and suit, for a game whose deck numbers its cards its own
    /// way (Shooting Party's 33 guests).
    pub fn playing(p: PlayingCard) -> Piece {
        Piece::Card {
            rank: p.rank_str().to_string(),
            suit: p.suit.symbol(),
            red: matches!(p.suit, Suit::Hearts | Suit::Diamonds),
        }
    }

    /// A card this viewer sees, or its back.
    pub fn card_or_back(c: Option<CardId>) -> Piece {
        c.map_or(Piece::CardBack, Piece::card)
    }

    pub fn named(text: impl Into<String>) -> Piece {
        Piece::Named { text: text.into() }
    }

    /// A cup of `count` dice: their faces where this viewer saw them, else hidden.
    pub fn cup(faces: Option<&[u8]>, count: usize) -> Vec<Piece> {
        match faces {
            Some(d) => d.iter().map(|&face| Piece::Die { face }).collect(),
            None => vec![Piece::DieHidden; count],
        }
    }

    pub fn tile((a, b): (u8, u8)) -> Piece {
        Piece::Tile { a, b }
    }
}

/// A seat, or a place the seats share, with what lies there.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Spot {
    /// The seat's name ("you" for the viewer's), or the place's ("the line", "pool").
    pub name: String,
    pub pieces: Vec<Piece>,
    /// Short words beside the pieces: "stack 980", "bet 20", "dealer".
    pub notes: Vec<String>,
    /// The viewer's own seat.
    pub you: bool,
    /// The seat whose move the table waits for.
    pub turn: bool,
    /// Out of the hand or the game (folded, no dice left): drawn faded.
    pub out: bool,
    /// A place that is the viewer's own (its piles, its word cards, the cup it rolled, its
    /// cards in a fight), where it may see what nobody else does.
    pub own: bool,
}

impl Spot {
    pub fn new(name: impl Into<String>) -> Spot {
        Spot {
            name: name.into(),
            ..Spot::default()
        }
    }

    /// A seat's spot, named as the words name it, marked as the viewer's own.
    pub fn seat(seat: Seat, viewer: Option<Seat>, names: &dyn Fn(Seat) -> String) -> Spot {
        Spot {
            name: names(seat),
            you: viewer == Some(seat),
            ..Spot::default()
        }
    }

    pub fn pieces(mut self, pieces: impl IntoIterator<Item = Piece>) -> Spot {
        self.pieces.extend(pieces);
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Spot {
        self.notes.push(note.into());
        self
    }

    /// Adds `note` when `when` holds.
    pub fn note_if(self, when: bool, note: impl Into<String>) -> Spot {
        if when {
            self.note(note)
        } else {
            self
        }
    }

    pub fn turn(mut self, turn: bool) -> Spot {
        self.turn = turn;
        self
    }

    pub fn out(mut self, out: bool) -> Spot {
        self.out = out;
        self
    }

    pub fn own(mut self, own: bool) -> Spot {
        self.own = own;
        self
    }
}

/// The table drawn: a title ("hand 2 · betting round 1 · pot 40") and its spots, seats first
/// in seat order, then the shared places.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Drawing {
    pub title: String,
    pub spots: Vec<Spot>,
}

impl Drawing {
    pub fn new(title: impl Into<String>) -> Drawing {
        Drawing {
            title: title.into(),
            spots: Vec::new(),
        }
    }

    pub fn spot(mut self, spot: Spot) -> Drawing {
        self.spots.push(spot);
        self
    }

    pub fn spots(mut self, spots: impl IntoIterator<Item = Spot>) -> Drawing {
        self.spots.extend(spots);
        self
    }

    /// Every piece drawn, spot by spot (for tests).
    pub fn pieces(&self) -> impl Iterator<Item = &Piece> {
        self.spots.iter().flat_map(|s| s.pieces.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_are_drawn_by_rank_and_suit_symbol_and_hearts_and_diamonds_are_red() {
        let ten_hearts = PlayingCard::parse("10H").unwrap().id();
        let king_spades = PlayingCard::parse("KS").unwrap().id();
        assert_eq!(
            Piece::card(ten_hearts),
            Piece::Card {
                rank: "10".into(),
                suit: '♥',
                red: true
            }
        );
        assert_eq!(
            Piece::card(king_spades),
            Piece::Card {
                rank: "K".into(),
                suit: '♠',
                red: false
            }
        );
        assert_eq!(Piece::card_or_back(None), Piece::CardBack);
        let json = serde_json::to_value(Piece::tile((3, 5))).unwrap();
        assert_eq!(json, serde_json::json!({"kind": "tile", "a": 3, "b": 5}));
        let json = serde_json::to_value(Piece::named("feather 7")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "named", "text": "feather 7"})
        );
    }
}
