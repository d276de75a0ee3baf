//! abandon_ship: the words of its record and table.

use crate::cards::{CardId, PlayingCard, Suit};
use crate::engine::Seat;
use crate::games::abandon_ship::game::{card_name, suit_name, AbandonView, Entry};
use crate::games::card_hands;
use crate::games::ui::words::{agree, count, gone, people, says, whose};
use std::fmt::Write;

pub fn cards(cs: &[CardId]) -> String {
    if cs.is_empty() {
        return "nothing".into();
    }
    card_hands::names(cs)
}

/// "the Hearts lifeboat".
pub fn boat(s: Suit) -> String {
    format!("the {} lifeboat", suit_name(s))
}

/// A record entry in words.
pub fn line(e: &Entry, n: &dyn Fn(Seat) -> String) -> String {
    match e {
        Entry::Round { number, dealer } => {
            format!("round {number}: {} the dealer", says(n(*dealer), "is"))
        }
        Entry::Drew { seat, count: k } => {
            format!("{} {}", says(n(*seat), "draws"), count(*k, "card", "cards"))
        }
        Entry::Discarded { seat, card } => format!(
            "{} {} into {}",
            says(n(*seat), "discards"),
            card_name(*card),
            boat(crate::games::abandon_ship::game::suit(*card))
        ),
        Entry::Attacked { seat, target, card } => format!(
            "{} a fight with {} and {} {}",
            says(n(*seat), "picks"),
            n(*target),
            agree(&n(*seat), "plays"),
            card_name(*card)
        ),
        Entry::Raised { seat, card } => {
            format!("{} with {}", says(n(*seat), "answers"), card_name(*card))
        }
        Entry::Surrendered { seat } => format!("{} the fight", says(n(*seat), "surrenders")),
        Entry::Unanswerable { seat } => {
            format!("nothing beats a King: {} the fight", says(n(*seat), "wins"))
        }
        Entry::Took {
            winner,
            loser,
            card,
        } => format!(
            "{} {} at random from {} hand onto {} board; the fight cards go to their lifeboats",
            says(n(*winner), "draws"),
            card_name(*card),
            whose(n(*loser)),
            whose(n(*winner))
        ),
        Entry::Sank { by } => format!(
            "{} the last card: the ship sinks! Everyone picks a Key Card face down",
            says(n(*by), "draws")
        ),
        Entry::Keys { keys, drowned } => {
            let mut s = format!(
                "Key Cards: {}",
                keys.iter()
                    .map(|(seat, c)| format!("{} {}", n(*seat), card_name(*c)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if !drowned.is_empty() {
                let _ = write!(
                    s,
                    "; {} no cards and {} down with the ship",
                    if drowned.len() == 1 {
                        says(n(drowned[0]), "has")
                    } else {
                        format!("{} have", people(drowned, n))
                    },
                    if drowned.len() == 1 && n(drowned[0]) != "you" {
                        "goes"
                    } else {
                        "go"
                    }
                );
            }
            s
        }
        Entry::Hands { hands } => format!(
            "hands shown: {}",
            hands
                .iter()
                .map(|(s, h)| format!("{} {}", n(*s), cards(h)))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Entry::Boarded {
            suit,
            points: p,
            claims,
            seat,
        } => {
            let suit = &Suit::ALL[usize::from(*suit)];
            let contest = if claims.len() > 1 {
                let top = claims.iter().map(|c| c.held).max().unwrap_or(0);
                let tied = claims.iter().filter(|c| c.held == top).count() > 1;
                format!(
                    " ({}{})",
                    claims
                        .iter()
                        .map(|c| {
                            let who = says(n(c.seat), "holds");
                            format!("{who} {} in {}", c.held, suit_name(*suit))
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    if tied {
                        "; equal points, so the highest card decides"
                    } else {
                        ""
                    }
                )
            } else {
                String::new()
            };
            match seat {
                Some(s) => format!(
                    "{} {} for {}{contest}",
                    says(n(*s), "boards"),
                    boat(*suit),
                    count(*p as u64, "point", "points")
                ),
                None => format!(
                    "{} tie exactly for {}: nobody boards it{contest}",
                    people(&claims.iter().map(|c| c.seat).collect::<Vec<_>>(), n),
                    boat(*suit)
                ),
            }
        }
        Entry::Scores { scores } => format!(
            "scores: {}",
            scores
                .iter()
                .map(|(s, p)| format!("{} {p}", n(*s)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Entry::Misplayed { seat, card, why } => format!(
            "{} {}, which breaks the rules ({why}): the table removes {} and the game ends",
            says(n(*seat), "plays"),
            card_name(*card),
            n(*seat)
        ),
        Entry::Won { seats } => match seats.len() {
            0 => "nobody wins".into(),
            1 => format!("{} the game", says(n(seats[0]), "wins")),
            _ => format!("{} share the win", people(seats, n)),
        },
        Entry::Forfeited { seat, reason } => format!(
            "{}: the game ends without a winner",
            gone(n(*seat), *reason)
        ),
    }
}

/// "round 2 of 3" when the table caps the rounds, else "round 2".
pub fn round_words(v: &AbandonView) -> String {
    let r = v.round.max(1);
    match v.rounds {
        Some(n) => format!("round {r} of {n}"),
        None => format!("round {r}"),
    }
}

/// The held card named `word` ("QS", "10h"), by its deck position.
pub fn held_card(view: &AbandonView, word: &str) -> Result<u16, String> {
    let want = PlayingCard::parse(word).map_err(|e| e.to_string())?;
    view.mine
        .iter()
        .find(|h| {
            h.card.is_some_and(|c| {
                let p = PlayingCard::from_id(c);
                (p.rank, p.suit) == (want.rank, want.suit)
            })
        })
        .map(|h| h.position)
        .ok_or_else(|| format!("{} is not in your hand", card_name(want.id())))
}

pub fn named(view: &AbandonView, position: u16) -> String {
    match view
        .mine
        .iter()
        .find(|h| h.position == position)
        .and_then(|h| h.card)
    {
        Some(c) => card_name(c),
        None => format!("the card dealt at position {position}"),
    }
}
