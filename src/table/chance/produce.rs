//! What this seat publishes at each stage of a batch: its setup, its shuffles, its tokens,
//! dice values and whisper parts, all derived from its master secret.

use super::*;

impl Chance {
    /// This seat's event for the current stage, if it owes one.
    pub fn produce(&self, setup_step: u32) -> Result<Option<Body>, ChanceError> {
        let (Some(b), Some(me)) = (&self.batch, &self.me) else {
            return Ok(None);
        };
        let seat = me.seat;
        let Some(idx) = b.parts.iter().position(|s| *s == seat) else {
            return Ok(None);
        };
        let local = |e: fair::FairError| ChanceError::Protocol(format!("our own step: {e}"));
        // A speculative copy only prepares shuffles, and so does a state gathering jobs.
        if (self.speculative || self.collect.is_some()) && !matches!(b.stage, Stage::Shuffle(_)) {
            return Ok(None);
        }
        match b.stage {
            Stage::Setup => {
                let mut shares = Vec::new();
                for (j, (deck, _)) in b.keyed().enumerate() {
                    let (_, public) = self
                        .my_keys(deck_hand(setup_step, j), *deck, idx)
                        .map_err(local)?;
                    shares.push(public.to_base64());
                }
                let (dice, boxk) = self.my_epoch_secrets(setup_step, idx)?;
                Ok(Some(Body::Setup {
                    shares,
                    dice: hex::encode(dice.commitment().to_bytes()),
                    box_key: Keys::new(boxk.clone()).public_key().to_hex(),
                    back: Vec::new(),
                }))
            }
            Stage::Shuffle(k) if b.order[k] == seat => {
                let mut decks = Vec::new();
                // While gathering jobs, every deck's shuffle is gathered, not just the first.
                let mut gathered = None;
                for (deck_id, _) in b.keyed() {
                    let d = &self.decks[deck_id];
                    let secret = d.my_secret.as_ref().ok_or_else(|| {
                        ChanceError::Protocol("no key share of our own for this deck".into())
                    })?;
                    let ctx = self
                        .ctx(d.fair_hand, idx, seat)
                        .with_step(FairStep::Shuffle { index: k as u16 });
                    let joint = d.joint.as_ref().expect("setup done");
                    let own = match self.own_shuffle(
                        secret,
                        &ctx,
                        joint,
                        d.size,
                        d.deck.as_ref().map(|(v, _)| v),
                        // From version 10 the batch's chain, this step included, is checked
                        // whole before the deck deals.
                        self.batch_chains,
                    ) {
                        Ok(own) => own,
                        Err(e) if self.collect.is_some() => {
                            gathered = Some(e);
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    decks.push(DeckShuffle {
                        deck: *deck_id,
                        cards: own.cards,
                        proof: own.proof,
                    });
                }
                if let Some(e) = gathered {
                    return Err(e);
                }
                let dice = self.my_dice_reveals(b)?;
                Ok(Some(Body::Shuffle { decks, dice }))
            }
            Stage::Reveal => self.produce_reveal(b, me),
            Stage::Mailbox => {
                let owed = b
                    .owed
                    .get(&seat)
                    .map(|o| o.mailbox.clone())
                    .unwrap_or_default();
                if owed.is_empty() || b.got.contains(&seat) {
                    return Ok(None);
                }
                let mut keys = Vec::new();
                for id in owed {
                    let w = b.whispers.iter().find(|w| w.id() == id).expect("planned");
                    keys.push(self.my_mailbox(w)?.to_hex());
                }
                Ok(Some(Body::Mailbox { keys }))
            }
            Stage::Letter => {
                let owed = b
                    .owed
                    .get(&seat)
                    .map(|o| o.letters.clone())
                    .unwrap_or_default();
                if owed.is_empty() || b.got.contains(&seat) {
                    return Ok(None);
                }
                let mut letters = Vec::new();
                for id in owed {
                    let w = b.whispers.iter().find(|w| w.id() == id).expect("planned");
                    letters.push(self.my_letters(w)?);
                }
                Ok(Some(Body::Letter { letters }))
            }
            Stage::Unseal => {
                let owed = b
                    .owed
                    .get(&seat)
                    .map(|o| o.unseal.clone())
                    .unwrap_or_default();
                if owed.is_empty() || b.got.contains(&seat) {
                    return Ok(None);
                }
                let secrets = owed
                    .into_iter()
                    .map(|(owner, roll)| {
                        let purpose = if owner == seat { "letter" } else { "decoy" };
                        hex::encode(*me.derive(&self.table, purpose, &whisper_params(owner, roll)))
                    })
                    .collect();
                Ok(Some(Body::Unseal { secrets }))
            }
            _ => Ok(None),
        }
    }

    /// This seat's reveal: its tokens for cards shown or dealt, sealed to their recipients
    /// where the rules say so, and its dice values.
    fn produce_reveal(&self, b: &Batch, me: &Secrets) -> Result<Option<Body>, ChanceError> {
        let seat = me.seat;
        let owed = b.owed.get(&seat).cloned().unwrap_or_default();
        if owed.is_empty() {
            return Ok(None);
        }
        let mut tokens = Vec::new();
        for (deck, position, recipient) in &owed.tokens {
            let d = &self.decks[deck];
            let t = self.my_token(d, *deck, *position, *recipient)?;
            tokens.push(TokenMsg {
                deck: *deck,
                position: *position,
                token: t.to_base64(),
            });
        }
        let mut sealed = Vec::new();
        for (deck, position, to) in &owed.sealed {
            let d = &self.decks[deck];
            let ridx = d.idx(*to).expect("a recipient holds a key share") as u16;
            let t = self.my_token(d, *deck, *position, Some(ridx))?;
            let epoch = self.epoch_of_deck(d)?;
            let boxk = epoch
                .my_box
                .as_ref()
                .ok_or_else(|| ChanceError::Protocol("no box key".into()))?;
            let to_key = epoch.boxes[epoch.idx(*to).expect("in epoch")];
            let mut rng = me.rng(
                &self.table,
                "seal-token",
                &[u64::from(*deck), u64::from(*position), u64::from(*to)],
            );
            let text =
                nip44::encrypt_with_rng(&mut rng, boxk, &to_key, t.to_bytes(), nip44::Version::V2)
                    .map_err(|e| ChanceError::Protocol(format!("sealing a token: {e}")))?;
            sealed.push(SealedToken {
                deck: *deck,
                position: *position,
                to: *to,
                sealed: text,
            });
        }
        let mut shown = Vec::new();
        for (deck, position) in &owed.shown {
            shown.push(self.my_showing(*deck, *position)?);
        }
        let dice = self.my_dice_reveals(b)?;
        Ok(Some(Body::Reveal {
            tokens,
            sealed,
            dice,
            shown,
        }))
    }

    // ---- whispers (PROTOCOL.md §5.11) ------------------------------------------------------

    /// This seat's mailbox key for whisper `w`: a key of its own when it holds the whispered
    /// card, else its decoy.
    pub(super) fn my_mailbox(&self, w: &Whisper) -> Result<PublicKey, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let local = |e: String| ChanceError::Protocol(format!("our mailbox: {e}"));
        let position = w
            .cands
            .iter()
            .find(|(_, s)| *s == me.seat)
            .map(|(p, _)| *p)
            .ok_or_else(|| local("not a candidate".into()))?;
        let params = whisper_params(w.owner, w.roll);
        if self.open_mine(w.deck, position)? == w.card {
            let secret =
                whisper::secret_key(&me.derive(&self.table, "mailbox", &params)).map_err(local)?;
            Ok(whisper::public_key(&secret))
        } else {
            let seed = me.derive(&self.table, "decoy", &params);
            whisper::decoy_key(&self.table, w.owner, w.roll, me.seat, &seed).map_err(local)
        }
    }

    /// This seat's letters for its whisper `w`: its die of the roll (value and Merkle path),
    /// sealed to every candidate's mailbox under its one-time letter key.
    pub(super) fn my_letters(&self, w: &Whisper) -> Result<LetterMsg, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let local = |e: String| ChanceError::Protocol(format!("our letters: {e}"));
        let pr = self.private_rolls[&(w.owner, w.roll)];
        let die = self.epochs[&pr.epoch]
            .my_dice
            .as_ref()
            .ok_or_else(|| local("no dice secret of our own".into()))?
            .reveal(pr.slot)
            .map_err(|e| local(e.to_string()))?
            .to_bytes();
        let params = whisper_params(w.owner, w.roll);
        let secret =
            whisper::secret_key(&me.derive(&self.table, "letter", &params)).map_err(local)?;
        let mut sealed = Vec::new();
        for (i, k) in w.keys.iter().enumerate() {
            let k = k.ok_or_else(|| local("a mailbox key is missing".into()))?;
            let mut rng = me.rng(
                &self.table,
                "letter-nonce",
                &[u64::from(w.owner), u64::from(w.roll), i as u64],
            );
            sealed.push(whisper::seal(&mut rng, &secret, &k, &die).map_err(local)?);
        }
        Ok(LetterMsg {
            key: whisper::public_key(&secret).to_hex(),
            sealed,
        })
    }

    /// `owner`'s die for its private roll `pr`, read from a letter's bytes and checked against
    /// the dice commitment of its epoch.
    pub(super) fn owner_die(
        &self,
        owner: Seat,
        pr: PrivateRoll,
        bytes: &[u8],
    ) -> Result<VerifiedValue, String> {
        let ep = &self.epochs[&pr.epoch];
        let idx = ep
            .idx(owner)
            .ok_or("the whisperer is not in the roll's epoch")?;
        let commit = &ep.dice[idx];
        let reveal = DiceReveal::from_bytes(bytes, commit.depth).map_err(|e| e.to_string())?;
        if reveal.slot != pr.slot {
            return Err(format!(
                "it holds the die of slot {}, not slot {}",
                reveal.slot, pr.slot
            ));
        }
        let ctx = self
            .ctx(ep.dice_hand(), idx, owner)
            .with_step(FairStep::Dice);
        verify_reveal(&ctx, commit, &reveal).map_err(|e| e.to_string())
    }

    /// The dice of `owner`'s private roll `pr` from every participant's value, `owner`'s
    /// included (`own`).
    pub(super) fn dice_with(
        &self,
        owner: Seat,
        pr: PrivateRoll,
        own: VerifiedValue,
    ) -> Result<Vec<u8>, String> {
        let s = Slot {
            epoch: pr.epoch,
            slot: pr.slot,
        };
        let roll = self.roll(s, Some(owner), pr.sides, pr.count);
        let mut values = self
            .values
            .get(&(s.epoch, s.slot))
            .cloned()
            .unwrap_or_default();
        values.retain(|v| v.seat() != own.seat());
        values.push(own);
        open_private_roll(&roll, &values).map_err(|e| e.to_string())
    }

    /// What this client learns from whisper `w`: the dice when it whispered them, or when it
    /// holds the card and its letter opens to the whisperer's committed die. A letter that does
    /// not open gives nothing here (its holder cannot complain without showing who it is); the
    /// opening catches the whisperer.
    pub(super) fn whispered_to_me(&self, w: &Whisper) -> Option<Vec<u8>> {
        let me = self.me.as_ref()?;
        let pr = *self.private_rolls.get(&(w.owner, w.roll))?;
        if me.seat == w.owner {
            let s = Slot {
                epoch: pr.epoch,
                slot: pr.slot,
            };
            let roll = self.roll(s, Some(w.owner), pr.sides, pr.count);
            let others = self
                .values
                .get(&(s.epoch, s.slot))
                .cloned()
                .unwrap_or_default();
            let ep = &self.epochs[&pr.epoch];
            return private_roll(&roll, ep.my_dice.as_ref()?, &others).ok();
        }
        let i = w.cands.iter().position(|(_, s)| *s == me.seat)?;
        if self.open_mine(w.deck, w.cands[i].0).ok()? != w.card {
            return None;
        }
        let params = whisper_params(w.owner, w.roll);
        let secret = whisper::secret_key(&me.derive(&self.table, "mailbox", &params)).ok()?;
        let (key, letters) = w.letter.as_ref()?;
        let bytes = whisper::open(&secret, key, letters.get(i)?).ok()?;
        let own = self.owner_die(w.owner, pr, &bytes).ok()?;
        self.dice_with(w.owner, pr, own).ok()
    }

    /// This seat's dice secret and box key of the epoch opened at `setup_step`.
    pub(super) fn my_epoch_secrets(
        &self,
        setup_step: u32,
        idx: usize,
    ) -> Result<(DiceSecret, SecretKey), ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let hand = (u64::from(setup_step) << 8) | 0xff;
        let ctx = self.ctx(hand, idx, me.seat).with_step(FairStep::Dice);
        let seed = me.derive(&self.table, "dice", &[hand]);
        let dice = DiceSecret::from_seed(&ctx, &seed, EPOCH_SLOTS)
            .map_err(|e| ChanceError::Protocol(format!("our dice: {e}")))?;
        let box_seed = me.derive(&self.table, "box", &[hand]);
        let boxk = SecretKey::from_slice(&*box_seed)
            .map_err(|e| ChanceError::Protocol(format!("our box key: {e}")))?;
        Ok((dice, boxk))
    }

    pub(super) fn my_token(
        &self,
        d: &Deck,
        deck: DeckId,
        position: u16,
        recipient: Option<u16>,
    ) -> Result<RevealToken, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let idx = d.idx(me.seat).expect("a participant of the deck");
        let ctx = self
            .ctx(d.fair_hand, idx, me.seat)
            .with_step(FairStep::Reveal {
                position,
                recipient,
            });
        let mut rng = me.rng(
            &self.table,
            "token",
            &[
                d.fair_hand,
                u64::from(deck),
                u64::from(position),
                recipient.map_or(u64::MAX, u64::from),
            ],
        );
        fair::reveal_token(
            &mut rng,
            d.my_secret.as_ref().expect("own share"),
            &ctx,
            d.verified()?,
        )
        .map_err(|e| ChanceError::Protocol(format!("our token: {e}")))
    }

    /// Every key holder's token for a card this seat was dealt sealed, to show it to everyone
    /// (PROTOCOL.md §5.12): its own, made now, and the ones sealed to it, as they were sent.
    fn my_showing(&self, deck: DeckId, position: u16) -> Result<ShownCard, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let d = &self.decks[&deck];
        let my_idx = d
            .idx(me.seat)
            .ok_or_else(|| ChanceError::Protocol("we hold no key share of the deck".into()))?;
        let got = d.sealed_raw.get(&position).cloned().unwrap_or_default();
        let mut tokens = Vec::with_capacity(d.parts.len());
        for i in 0..d.parts.len() {
            if i == my_idx {
                let t = self.my_token(d, deck, position, Some(my_idx as u16))?;
                tokens.push(t.to_base64());
                continue;
            }
            let (_, bytes) = got
                .iter()
                .find(|(k, _)| usize::from(*k) == i)
                .ok_or_else(|| {
                    ChanceError::Protocol(format!(
                    "position {position} of deck {deck}: no token of key holder {i} was sealed \
                     to us"
                ))
                })?;
            tokens.push(fair::to_base64(bytes));
        }
        Ok(ShownCard {
            deck,
            position,
            tokens,
        })
    }

    pub(super) fn my_dice_reveals(&self, b: &Batch) -> Result<Vec<String>, ChanceError> {
        let me = self.me.as_ref().expect("seated");
        let owed = b.owed.get(&me.seat).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for (e, slot) in owed.dice {
            let ep = &self.epochs[&e];
            let secret = ep
                .my_dice
                .as_ref()
                .ok_or_else(|| ChanceError::Protocol("no dice secret of our own".into()))?;
            let r = secret
                .reveal(slot)
                .map_err(|e| ChanceError::Protocol(format!("our die: {e}")))?;
            out.push(r.to_base64());
        }
        Ok(out)
    }

    // ---- accepting contributions -----------------------------------------------------------
}
