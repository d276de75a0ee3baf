//! Tokens a move carries (version 9, PROTOCOL.md §5.4): a card its holder shows by its own move
//! (a tile played, a card discarded) needs only the holder's token, the other key holders
//! having given theirs when it was dealt. The holder sends it with the move, so the batch the
//! move leads to has nothing left to wait for and costs no pass.
//!
//! What a move carries is fixed by the log, not chosen, and only where it saves the pass: when
//! the batch the game asks for right after the move holds nothing but reveals of cards on decks
//! already shuffled, and the mover is the only key holder still owing a token for any of them.
//! Then the card opens the moment the move counts, with no stage in between (no setup, no
//! shuffle, nobody else to wait for) that a forfeit could cut short. Anywhere else (a showdown,
//! where the others owe theirs too; a deal) the tokens stay in the reveal stage: a token in an
//! event is public whether or not it counts, and a hand's cards are never exposed ahead of the
//! pass that shows them all. Honest clients compute the list exactly as every other checks it.

use super::*;

impl Chance {
    /// The `(deck, position)` of every card `seat`'s move must carry a token for, when a batch
    /// of `requests` begun now would be made of reveals only, on decks already shuffled and
    /// still live, and `seat` would be the only key holder owing anything in it: in request
    /// order and each once. Empty in every other case.
    pub fn carried_owed(&self, requests: &[ChanceRequest], seat: Seat) -> Vec<(DeckId, u16)> {
        let mut out: Vec<(DeckId, u16)> = Vec::new();
        for r in requests {
            let ChanceRequest::Reveal { deck, position } = r else {
                return Vec::new();
            };
            let Some(lacking) = self.decks.get(deck).and_then(|d| d.lacking(*position)) else {
                return Vec::new();
            };
            if lacking.iter().any(|s| *s != seat) {
                return Vec::new();
            }
            if !lacking.is_empty() && !out.contains(&(*deck, *position)) {
                out.push((*deck, *position));
            }
        }
        out
    }

    /// Of the cards `shown` (a sealed choice's, [`crate::engine::Game::shown_by`]), those `seat`'s
    /// opening must carry a token for: each on a deck already shuffled and still live, where
    /// `seat` is the only key holder still owing a plain token for it; in order and each once.
    pub fn carried_shown(&self, shown: &[(DeckId, u16)], seat: Seat) -> Vec<(DeckId, u16)> {
        let mut out: Vec<(DeckId, u16)> = Vec::new();
        for (deck, position) in shown {
            let lacking = self.decks.get(deck).and_then(|d| d.lacking(*position));
            if lacking.as_deref() == Some(&[seat]) && !out.contains(&(*deck, *position)) {
                out.push((*deck, *position));
            }
        }
        out
    }

    /// This seat's tokens for `owed` ([`Chance::carried_owed`]), to send with its move.
    pub fn carried_tokens(&self, owed: &[(DeckId, u16)]) -> Result<Vec<TokenMsg>, ChanceError> {
        owed.iter()
            .map(|(deck, position)| {
                let t = self.my_token(&self.decks[deck], *deck, *position, None)?;
                Ok(TokenMsg {
                    deck: *deck,
                    position: *position,
                    token: t.to_base64(),
                })
            })
            .collect()
    }

    /// Checks the tokens `seat`'s move carries against `owed` and, when every one is there and
    /// verifies, keeps them as published: the batch that follows owes them no more.
    pub fn accept_carried(
        &mut self,
        seat: Seat,
        owed: &[(DeckId, u16)],
        tokens: &[TokenMsg],
    ) -> Result<(), ChanceError> {
        if tokens.len() != owed.len() {
            return Err(bad(
                seat,
                format!(
                    "its move carries {} tokens; the cards it shows need {}",
                    tokens.len(),
                    owed.len()
                ),
            ));
        }
        let owed: Vec<(DeckId, u16, Option<u16>)> =
            owed.iter().map(|(d, p)| (*d, *p, None)).collect();
        let plain = self.verify_plain(seat, tokens, &owed)?;
        self.stats.tokens_verified += plain.len() as u64;
        for (deck, position, v) in plain {
            let d = self.decks.get_mut(&deck).expect("deck");
            d.tokens.entry(position).or_default().push(v);
        }
        Ok(())
    }
}
