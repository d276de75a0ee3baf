//! The batch's outcomes, computed the same by every client once every stage is in: cards
//! dealt and revealed, dice rolled, whispers opened.

use super::*;

impl Chance {
    /// The batch's outcomes once [`Stage::Ready`], as this client may know them; the batch ends.
    pub fn finish(&mut self) -> Result<Vec<ChanceOutcome>, ChanceError> {
        let b = self
            .batch
            .take()
            .ok_or_else(|| ChanceError::Protocol("no chance batch to finish".into()))?;
        if b.stage != Stage::Ready {
            let stage = b.stage;
            self.batch = Some(b);
            return Err(ChanceError::Protocol(format!(
                "the batch is still at {}",
                stage_name(stage)
            )));
        }
        let me = self.my_seat();
        let mut out = Vec::with_capacity(b.requests.len());
        for (i, r) in b.requests.iter().enumerate() {
            out.push(match r {
                ChanceRequest::Shuffle { deck, .. } => ChanceOutcome::Shuffled { deck: *deck },
                ChanceRequest::Deal { .. }
                | ChanceRequest::DealSealed { .. }
                | ChanceRequest::Show { .. }
                | ChanceRequest::Reveal { .. } => self.card_outcome(r, me)?,
                ChanceRequest::Whisper { owner, roll, .. } => {
                    let w = b
                        .whispers
                        .iter()
                        .find(|w| w.id() == (*owner, *roll))
                        .expect("planned");
                    ChanceOutcome::Whispered {
                        owner: *owner,
                        roll: *roll,
                        values: self.whispered_to_me(w),
                        to: None,
                    }
                }
                ChanceRequest::OpenWhisper { owner, roll } => {
                    let id = (*owner, *roll);
                    let die = self.whispers[&id].opened.ok_or_else(|| {
                        ChanceError::Protocol("the whisper was not opened".into())
                    })?;
                    let pr = self.private_rolls[&id];
                    ChanceOutcome::WhisperOpened {
                        owner: *owner,
                        roll: *roll,
                        values: self.dice_with(*owner, pr, die).map_err(|e| {
                            ChanceError::Protocol(format!("opening a whisper: {e}"))
                        })?,
                    }
                }
                ChanceRequest::RollPublic { sides, count, .. } => {
                    let s = b.slots[i].expect("planned");
                    let roll = self.roll(s, None, *sides, *count);
                    let values = self
                        .values
                        .get(&(s.epoch, s.slot))
                        .cloned()
                        .unwrap_or_default();
                    ChanceOutcome::Rolled {
                        values: public_roll(&roll, &values)
                            .map_err(|e| ChanceError::Protocol(format!("a roll: {e}")))?,
                    }
                }
                ChanceRequest::RollPrivate {
                    owner,
                    sides,
                    count,
                } => {
                    let s = b.slots[i].expect("planned");
                    let n = self.rolls_made.entry(*owner).or_default();
                    self.private_rolls.insert(
                        (*owner, *n),
                        PrivateRoll {
                            epoch: s.epoch,
                            slot: s.slot,
                            sides: *sides,
                            count: *count,
                        },
                    );
                    *n += 1;
                    let values = if me == Some(*owner) {
                        let ep = &self.epochs[&s.epoch];
                        let roll = self.roll(s, Some(*owner), *sides, *count);
                        let others = self
                            .values
                            .get(&(s.epoch, s.slot))
                            .cloned()
                            .unwrap_or_default();
                        Some(
                            private_roll(&roll, ep.my_dice.as_ref().expect("own dice"), &others)
                                .map_err(|e| ChanceError::Protocol(format!("our roll: {e}")))?,
                        )
                    } else {
                        None
                    };
                    ChanceOutcome::RolledPrivate {
                        owner: *owner,
                        values,
                    }
                }
                ChanceRequest::OpenPrivate { owner, roll } => {
                    let pr = self.private_rolls[&(*owner, *roll)];
                    let s = Slot {
                        epoch: pr.epoch,
                        slot: pr.slot,
                    };
                    let r = self.roll(s, Some(*owner), pr.sides, pr.count);
                    let values = self
                        .values
                        .get(&(s.epoch, s.slot))
                        .cloned()
                        .unwrap_or_default();
                    ChanceOutcome::Opened {
                        owner: *owner,
                        roll: *roll,
                        values: open_private_roll(&r, &values)
                            .map_err(|e| ChanceError::Protocol(format!("opening dice: {e}")))?,
                    }
                }
            });
        }
        for w in b.whispers {
            self.whispers.insert(w.id(), w);
        }
        Ok(out)
    }

    /// What a card request of the batch came to, as this client may know it (`me`: its seat).
    fn card_outcome(
        &mut self,
        r: &ChanceRequest,
        me: Option<Seat>,
    ) -> Result<ChanceOutcome, ChanceError> {
        Ok(match r {
            ChanceRequest::Deal { deck, position, to } => {
                let d = self.decks.get_mut(deck).expect("deck");
                d.holders.insert(*position, to.clone());
                let card = match me {
                    Some(m) if to.contains(&m) => Some(self.open_mine(*deck, *position)?),
                    _ => None,
                };
                ChanceOutcome::Dealt {
                    deck: *deck,
                    position: *position,
                    card,
                }
            }
            ChanceRequest::DealSealed { deck, position, to } => {
                let d = self.decks.get_mut(deck).expect("deck");
                d.drawn.entry(*position).or_default().insert(*to);
                let card = match me {
                    Some(m) if m == *to => Some(self.open_mine(*deck, *position)?),
                    _ => None,
                };
                ChanceOutcome::Dealt {
                    deck: *deck,
                    position: *position,
                    card,
                }
            }
            ChanceRequest::Show { deck, position, .. } => {
                let d = &self.decks[deck];
                let joint = d.joint.as_ref().expect("keys");
                let all = d.shown.get(position).cloned().unwrap_or_default();
                let index = fair::open_card(joint, d.verified()?, *position, &all)
                    .map_err(|e| ChanceError::Protocol(format!("opening a shown card: {e}")))?;
                let card = card_of(&d.spec, index)?;
                if let Some(d) = self.decks.get_mut(deck) {
                    d.revealed.insert(*position, card);
                }
                ChanceOutcome::Revealed {
                    deck: *deck,
                    position: *position,
                    card,
                }
            }
            ChanceRequest::Reveal { deck, position } => {
                let d = &self.decks[deck];
                let joint = d.joint.as_ref().expect("keys");
                let all = d.tokens.get(position).cloned().unwrap_or_default();
                let index = fair::open_card(joint, d.verified()?, *position, &all)
                    .map_err(|e| ChanceError::Protocol(format!("opening a card: {e}")))?;
                let card = card_of(&d.spec, index)?;
                if let Some(d) = self.decks.get_mut(deck) {
                    d.revealed.insert(*position, card);
                }
                ChanceOutcome::Revealed {
                    deck: *deck,
                    position: *position,
                    card,
                }
            }
            _ => unreachable!("only card requests"),
        })
    }

    pub(super) fn roll(&self, s: Slot, owner: Option<Seat>, sides: u8, count: u8) -> Roll {
        let ep = &self.epochs[&s.epoch];
        Roll {
            table: self.table,
            hand: ep.dice_hand(),
            slot: s.slot,
            seats: ep.parts.len() as u16,
            owner: owner.and_then(|o| ep.idx(o)).map(|i| i as u16),
            sides,
            count,
        }
    }

    /// Opens a card dealt to this client: the published tokens, the ones sealed to it, and its
    /// own, which it never publishes.
    pub(super) fn open_mine(&self, deck: DeckId, position: u16) -> Result<CardId, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let d = &self.decks[&deck];
        let idx = d.idx(me.seat).expect("participant") as u16;
        let ctx = self
            .ctx(d.fair_hand, idx as usize, me.seat)
            .with_step(FairStep::Reveal {
                position,
                recipient: Some(idx),
            });
        let joint = d.joint.as_ref().expect("keys");
        let mut rng = me.rng(
            &self.table,
            "own-token",
            &[d.fair_hand, u64::from(position)],
        );
        let own = fair::own_token(
            &mut rng,
            d.my_secret.as_ref().expect("own share"),
            joint,
            &ctx,
            d.verified()?,
        )
        .map_err(|e| ChanceError::Protocol(format!("our own token: {e}")))?;
        let mut all: Vec<VerifiedToken> = d.tokens.get(&position).cloned().unwrap_or_default();
        all.extend(d.sealed_to_me.get(&position).cloned().unwrap_or_default());
        all.push(own);
        // A key holder's token may be both published and sealed to us (a position dealt in
        // several ways): one per key holder opens the card.
        let mut seen = BTreeSet::new();
        all.retain(|t| seen.insert(t.seat()));
        let index = fair::open_card(joint, d.verified()?, position, &all)
            .map_err(|e| ChanceError::Protocol(format!("opening our card: {e}")))?;
        card_of(&d.spec, index)
    }
}
