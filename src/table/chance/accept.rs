//! Every other seat's event of a batch, verified against the setup's commitments before it
//! counts; a failure names its signer.

use super::*;

impl Chance {
    /// Checks `seat`'s event for the current stage and keeps what it carries. Returns the new
    /// head for a sequential stage (the shuffle event's id, passed as `id`). `setup_step`: the
    /// table step open now (a setup's names its epoch).
    pub fn accept(
        &mut self,
        seat: Seat,
        id: &str,
        body: &Body,
        setup_step: u32,
    ) -> Result<(), ChanceError> {
        let stage = self
            .batch
            .as_ref()
            .map(|b| b.stage)
            .ok_or_else(|| bad(seat, "no chance step is open"))?;
        match (stage, body) {
            (
                Stage::Setup,
                Body::Setup {
                    shares,
                    dice,
                    box_key,
                    back,
                },
            ) => {
                self.accept_setup(seat, shares, dice, box_key, setup_step)?;
                if let Some(b) = self.batch.as_mut() {
                    b.backs.insert(seat, back.iter().copied().collect());
                }
                Ok(())
            }
            (Stage::Shuffle(k), Body::Shuffle { decks, dice }) => {
                let b = self.batch.as_ref().expect("batch");
                if b.order[k] != seat {
                    return Err(bad(seat, "shuffled out of turn"));
                }
                self.accept_shuffle(seat, k, (id, setup_step), decks, dice)
            }
            (
                Stage::Reveal,
                Body::Reveal {
                    tokens,
                    sealed,
                    dice,
                    shown,
                },
            ) => self.accept_reveal(seat, tokens, sealed, dice, shown),
            (Stage::Mailbox, Body::Mailbox { keys }) => self.accept_mailbox(seat, keys),
            (Stage::Letter, Body::Letter { letters }) => self.accept_letters(seat, letters),
            (Stage::Unseal, Body::Unseal { secrets }) => self.accept_unseal(seat, secrets),
            (_, other) => Err(bad(
                seat,
                format!(
                    "a {} event where the table waits for {}",
                    other.name(),
                    stage_name(stage)
                ),
            )),
        }
    }

    pub(super) fn accept_setup(
        &mut self,
        seat: Seat,
        shares: &[String],
        dice: &str,
        box_key: &str,
        setup_step: u32,
    ) -> Result<(), ChanceError> {
        let b = self.batch.as_ref().expect("batch");
        let idx = b
            .parts
            .iter()
            .position(|s| *s == seat)
            .ok_or_else(|| bad(seat, "not a participant of this setup"))?;
        if b.got.contains(&seat) {
            return Err(bad(seat, "a second setup"));
        }
        let keyed = b.keyed().count();
        if shares.len() != keyed {
            return Err(bad(
                seat,
                format!("{} key shares for {keyed} new decks", shares.len()),
            ));
        }
        let mut verified = Vec::new();
        for (j, text) in shares.iter().enumerate() {
            let ctx = self.ctx(deck_hand(setup_step, j), idx, seat);
            let share = PublicShare::from_base64(text)
                .and_then(|s| fair::verify_public_share(&ctx, &s))
                .map_err(|e| bad(seat, format!("key share: {e}")))?;
            verified.push(share);
        }
        let commit = hex::decode(dice)
            .ok()
            .and_then(|b| DiceCommitment::from_bytes(&b).ok())
            .ok_or_else(|| bad(seat, "malformed dice commitment"))?;
        if commit.slots() < EPOCH_SLOTS {
            return Err(bad(seat, "dice commitment has too few slots"));
        }
        let boxk = PublicKey::from_hex(box_key).map_err(|_| bad(seat, "malformed box key"))?;
        let b = self.batch.as_mut().expect("batch");
        b.setups.insert(seat, (verified, commit, boxk));
        b.got.insert(seat);
        if b.got.len() < b.parts.len() {
            return Ok(());
        }
        self.open_epoch(setup_step)
    }

    /// Every setup is in: the epoch and the batch's decks exist from now on.
    pub(super) fn open_epoch(&mut self, setup_step: u32) -> Result<(), ChanceError> {
        let mut b = self.batch.take().expect("batch");
        let my_idx = self
            .my_seat()
            .and_then(|s| b.parts.iter().position(|x| *x == s));
        let mut epoch = Epoch {
            step: setup_step,
            parts: b.parts.clone(),
            dice: Vec::new(),
            boxes: Vec::new(),
            next_slot: 0,
            my_dice: None,
            my_box: None,
        };
        for s in &b.parts {
            let (_, c, k) = &b.setups[s];
            epoch.dice.push(*c);
            epoch.boxes.push(*k);
        }
        if let Some(idx) = my_idx {
            let (dice, boxk) = self.my_epoch_secrets(setup_step, idx)?;
            epoch.my_dice = Some(Arc::new(dice));
            epoch.my_box = Some(Arc::new(boxk));
        }
        for (j, (deck_id, spec)) in b.keyed().enumerate() {
            let hand = deck_hand(setup_step, j);
            let shares: Vec<VerifiedShare> =
                b.parts.iter().map(|s| b.setups[s].0[j].clone()).collect();
            let joint = JointKey::from_seats(&shares).map_err(|e| {
                // Every share verified on its own: a bad key set (a repeated key) is the
                // doing of whoever copied another's share; the later one is to blame.
                let last = *b.parts.last().expect("participants");
                bad(last, format!("key set rejected: {e}"))
            })?;
            let my_secret = match my_idx {
                Some(idx) => {
                    let (secret, _) = self
                        .my_keys(hand, *deck_id, idx)
                        .map_err(|e| ChanceError::Protocol(format!("our key share: {e}")))?;
                    Some(Arc::new(secret))
                }
                None => None,
            };
            self.decks.insert(
                *deck_id,
                Deck {
                    shares,
                    joint: Some(joint),
                    my_secret,
                    epoch: Some(setup_step),
                    ..Deck::fresh(spec.clone(), hand, b.parts.clone())
                },
            );
        }
        self.epochs.insert(setup_step, epoch);
        self.current = Some(setup_step);
        self.stats.epochs += 1;
        b.got.clear();
        b.setups.clear();
        self.plan(&mut b)?;
        b.stage = if b.keyed().next().is_none() {
            Stage::Reveal
        } else {
            Stage::Shuffle(0)
        };
        self.batch = Some(b);
        self.settle_empty_stage();
        Ok(())
    }

    /// `seat`'s shuffle event `id`, the `k`-th of the batch, counting at table step `at`.
    pub(super) fn accept_shuffle(
        &mut self,
        seat: Seat,
        k: usize,
        (id, at): (&str, u32),
        decks: &[DeckShuffle],
        dice: &[String],
    ) -> Result<(), ChanceError> {
        let b = self.batch.as_ref().expect("batch");
        if decks.len() != b.keyed().count()
            || decks
                .iter()
                .zip(b.keyed())
                .any(|(d, (id, _))| d.deck != *id)
        {
            return Err(bad(
                seat,
                "the shuffle does not cover exactly the batch's new decks, in order",
            ));
        }
        let owed = b.owed.get(&seat).cloned().unwrap_or_default();
        let values = self.check_dice(seat, &owed.dice, dice)?;
        let mut results = Vec::new();
        for msg in decks {
            let d = &self.decks[&msg.deck];
            let what = format!("deck {}", msg.deck);
            let cards = (msg.cards.as_str(), msg.proof.as_str());
            if self.batch_chains {
                // Version 10: well formed and in its place is enough now; the proof is checked
                // with the others' when the last shuffle is in.
                let (placed, step) =
                    self.place_shuffle_of(d, msg.deck, seat, k, id, cards, &what)?;
                results.push((msg.deck, placed, Some(step)));
                continue;
            }
            let (verified, fresh) =
                self.verify_shuffle_of(d, msg.deck, seat, k, id, cards, &what)?;
            if fresh {
                self.stats.shuffles_verified += 1;
            }
            results.push((msg.deck, verified, None));
        }
        for (deck, v, step) in results {
            let d = self.decks.get_mut(&deck).expect("deck");
            if let Some(step) = step {
                if d.pending.is_none() {
                    d.pending = Some(PendingChain {
                        start: d.deck.as_ref().map(|(v, _)| v.clone()),
                        steps: Vec::new(),
                    });
                }
                d.pending
                    .as_mut()
                    .expect("just made")
                    .steps
                    .push(PendingStep {
                        step,
                        placed: v.clone(),
                        event: id.to_string(),
                        seat,
                        at,
                    });
            }
            d.deck = Some((v, id.to_string()));
            d.shuffles = k + 1;
        }
        self.store_values(values);
        let b = self.batch.as_ref().expect("batch");
        if k + 1 == b.parts.len() {
            let keyed: Vec<DeckId> = b.keyed().map(|(d, _)| *d).collect();
            for deck in keyed {
                self.check_pending(deck);
            }
        }
        let b = self.batch.as_mut().expect("batch");
        b.got.insert(seat);
        if k + 1 < b.parts.len() {
            b.stage = Stage::Shuffle(k + 1);
        } else {
            b.stage = Stage::Reveal;
            b.got.clear();
            // Dice went on the shuffles; only tokens are left.
            for o in b.owed.values_mut() {
                o.dice.clear();
            }
        }
        self.settle_empty_stage();
        Ok(())
    }

    /// Checks dice reveals against what `seat` owes: exactly those slots, in order, each
    /// opening its commitment.
    pub(super) fn check_dice(
        &mut self,
        seat: Seat,
        owed: &[(u32, u32)],
        given: &[String],
    ) -> Result<Vec<(SlotKey, VerifiedValue)>, ChanceError> {
        if given.len() != owed.len() {
            return Err(bad(
                seat,
                format!("{} dice values, {} owed", given.len(), owed.len()),
            ));
        }
        let mut out = Vec::new();
        for ((e, slot), text) in owed.iter().zip(given) {
            let ep = &self.epochs[e];
            let idx = ep
                .idx(seat)
                .ok_or_else(|| bad(seat, "not in the dice epoch"))?;
            let commit = &ep.dice[idx];
            let reveal = DiceReveal::from_base64(text, commit.depth)
                .map_err(|err| bad(seat, format!("die: {err}")))?;
            if reveal.slot != *slot {
                return Err(bad(
                    seat,
                    format!("dice value for slot {}, slot {slot} owed", reveal.slot),
                ));
            }
            let ctx = self
                .ctx(ep.dice_hand(), idx, seat)
                .with_step(FairStep::Dice);
            let v = verify_reveal(&ctx, commit, &reveal)
                .map_err(|err| bad(seat, format!("die: {err}")))?;
            self.stats.dice_verified += 1;
            out.push(((*e, *slot), v));
        }
        Ok(out)
    }

    /// Checks the cards `seat` shows by itself against what it owes (§5.12): the owed
    /// positions in order, one token per key holder, each verified under the context naming
    /// `seat` as its recipient.
    #[allow(clippy::type_complexity)]
    pub(super) fn check_showings(
        &self,
        seat: Seat,
        shown: &[ShownCard],
        owed: &[(DeckId, u16)],
    ) -> Result<Vec<(DeckId, u16, Vec<VerifiedToken>)>, ChanceError> {
        let mut out = Vec::with_capacity(shown.len());
        for (c, (deck, position)) in shown.iter().zip(owed) {
            if c.deck != *deck || c.position != *position {
                return Err(bad(
                    seat,
                    format!(
                        "shows deck {} position {}, deck {deck} position {position} owed",
                        c.deck, c.position
                    ),
                ));
            }
            let d = &self.decks[deck];
            let ridx = d
                .idx(seat)
                .ok_or_else(|| bad(seat, "holds no share of the deck"))?;
            if c.tokens.len() != d.parts.len() {
                return Err(bad(
                    seat,
                    format!(
                        "shows position {position} with {} tokens; the deck has {} key holders",
                        c.tokens.len(),
                        d.parts.len()
                    ),
                ));
            }
            let deck_now = d.verified()?;
            let toks = c
                .tokens
                .iter()
                .map(|t| {
                    RevealToken::from_base64(t)
                        .map_err(|e| bad(seat, format!("a token of position {position}: {e}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let checks: Vec<TokenCheck<'_>> = toks
                .iter()
                .enumerate()
                .map(|(i, tok)| TokenCheck {
                    ctx: self
                        .ctx(d.fair_hand, i, d.parts[i])
                        .with_step(FairStep::Reveal {
                            position: *position,
                            recipient: Some(ridx as u16),
                        }),
                    share: &d.shares[i],
                    token: tok,
                })
                .collect();
            let mut verified = Vec::with_capacity(toks.len());
            for (i, r) in fair::verify_tokens_each(deck_now, &checks)
                .into_iter()
                .enumerate()
            {
                verified.push(r.map_err(|e| {
                    bad(
                        seat,
                        format!(
                            "the token of seat {} for position {position}, shown by its holder: {e}",
                            d.parts[i]
                        ),
                    )
                })?);
            }
            out.push((*deck, *position, verified));
        }
        Ok(out)
    }

    pub(super) fn store_values(&mut self, values: Vec<(SlotKey, VerifiedValue)>) {
        for (k, v) in values {
            self.values.entry(k).or_default().push(v);
        }
    }

    pub(super) fn accept_reveal(
        &mut self,
        seat: Seat,
        tokens: &[TokenMsg],
        sealed: &[SealedToken],
        dice: &[String],
        shown: &[ShownCard],
    ) -> Result<(), ChanceError> {
        let b = self.batch.as_ref().expect("batch");
        if b.got.contains(&seat) {
            return Err(bad(seat, "a second reveal"));
        }
        let owed = b
            .owed
            .get(&seat)
            .cloned()
            .filter(|o| !o.is_empty())
            .ok_or_else(|| bad(seat, "revealed though it owed nothing"))?;
        if tokens.len() != owed.tokens.len()
            || sealed.len() != owed.sealed.len()
            || shown.len() != owed.shown.len()
        {
            return Err(bad(
                seat,
                format!(
                    "{} tokens, {} sealed tokens and {} cards shown; {}, {} and {} owed",
                    tokens.len(),
                    sealed.len(),
                    shown.len(),
                    owed.tokens.len(),
                    owed.sealed.len(),
                    owed.shown.len()
                ),
            ));
        }
        let showings = self.check_showings(seat, shown, &owed.shown)?;
        let plain = self.verify_plain(seat, tokens, &owed.tokens)?;
        let mut mine = Vec::new();
        for (t, (deck, position, to)) in sealed.iter().zip(&owed.sealed) {
            if t.deck != *deck || t.position != *position || t.to != *to {
                return Err(bad(seat, "sealed tokens out of order"));
            }
            // Only the recipient can read and check it (see PROTOCOL.md §5.5 on complaints).
            if self.my_seat() == Some(*to) {
                let d = &self.decks[deck];
                let idx = d
                    .idx(seat)
                    .ok_or_else(|| bad(seat, "holds no share of the deck"))?;
                let ridx = d.idx(*to).expect("recipient") as u16;
                let epoch = self.epoch_of_deck(d)?;
                let boxk = epoch.my_box.as_ref().expect("own box key");
                let from = epoch.boxes[epoch.idx(seat).expect("in epoch")];
                let bytes = nip44::decrypt_to_bytes(boxk, &from, &t.sealed)
                    .map_err(|e| bad(seat, format!("sealed token: {e}")))?;
                let ctx = self
                    .ctx(d.fair_hand, idx, seat)
                    .with_step(FairStep::Reveal {
                        position: *position,
                        recipient: Some(ridx),
                    });
                let deck_now = d.verified()?;
                let v = RevealToken::from_bytes(&bytes)
                    .and_then(|tok| fair::verify_token(&ctx, &d.shares[idx], deck_now, &tok))
                    .map_err(|e| bad(seat, format!("sealed token for position {position}: {e}")))?;
                mine.push((*deck, *position, v, (idx as u16, bytes)));
            }
        }
        let values = self.check_dice(seat, &owed.dice, dice)?;
        self.stats.tokens_verified += plain.len() as u64 + mine.len() as u64;
        for (deck, position, v) in plain {
            let d = self.decks.get_mut(&deck).expect("deck");
            d.tokens.entry(position).or_default().push(v);
        }
        for (deck, position, v, raw) in mine {
            let d = self.decks.get_mut(&deck).expect("deck");
            d.sealed_to_me.entry(position).or_default().push(v);
            d.sealed_raw.entry(position).or_default().push(raw);
        }
        for (deck, position, toks) in showings {
            let d = self.decks.get_mut(&deck).expect("deck");
            d.shown.insert(position, toks);
        }
        self.store_values(values);
        let b = self.batch.as_mut().expect("batch");
        b.got.insert(seat);
        let done = b
            .owed
            .iter()
            .all(|(s, o)| o.is_empty() || b.got.contains(s));
        if done {
            b.got.clear();
            b.stage = b.next_stage(Stage::Reveal);
        }
        Ok(())
    }

    /// `seat`'s plain tokens checked against what it owes (`(deck, position, recipient index)`,
    /// in order). A token event may carry dozens of tokens (a showdown, a board); they are
    /// checked per deck as one random linear combination (FAIR.md §9.5), and only a failing
    /// batch is re-checked token by token to name the bad one.
    pub(super) fn verify_plain(
        &self,
        seat: Seat,
        tokens: &[TokenMsg],
        owed: &[(DeckId, u16, Option<u16>)],
    ) -> Result<Vec<(DeckId, u16, VerifiedToken)>, ChanceError> {
        let mut parsed: BTreeMap<DeckId, Vec<(u16, Option<u16>, RevealToken)>> = BTreeMap::new();
        for (t, (deck, position, recipient)) in tokens.iter().zip(owed) {
            if t.deck != *deck || t.position != *position {
                return Err(bad(
                    seat,
                    format!(
                        "a token for deck {} position {}, deck {deck} position {position} owed",
                        t.deck, t.position
                    ),
                ));
            }
            let tok = RevealToken::from_base64(&t.token)
                .map_err(|e| bad(seat, format!("token for position {position}: {e}")))?;
            parsed
                .entry(*deck)
                .or_default()
                .push((*position, *recipient, tok));
        }
        let mut plain = Vec::new();
        for (deck, toks) in &parsed {
            let d = &self.decks[deck];
            let idx = d
                .idx(seat)
                .ok_or_else(|| bad(seat, "holds no share of the deck"))?;
            let deck_now = d.verified()?;
            let checks: Vec<TokenCheck<'_>> = toks
                .iter()
                .map(|(position, recipient, tok)| TokenCheck {
                    ctx: self
                        .ctx(d.fair_hand, idx, seat)
                        .with_step(FairStep::Reveal {
                            position: *position,
                            recipient: *recipient,
                        }),
                    share: &d.shares[idx],
                    token: tok,
                })
                .collect();
            for (r, (position, _, _)) in fair::verify_tokens_each(deck_now, &checks)
                .into_iter()
                .zip(toks)
            {
                let v = r.map_err(|e| bad(seat, format!("token for position {position}: {e}")))?;
                plain.push((*deck, *position, v));
            }
        }
        Ok(plain)
    }

    /// What `seat` owes in the whisper stage under way, checked against what it sent: the
    /// number of items, and that it did not send twice.
    pub(super) fn whisper_owed(
        &self,
        seat: Seat,
        sent: usize,
        pick: impl Fn(&Owed) -> &Vec<WhisperId>,
    ) -> Result<Vec<WhisperId>, ChanceError> {
        let b = self.batch.as_ref().expect("batch");
        if b.got.contains(&seat) {
            return Err(bad(
                seat,
                format!("a second event for {}", stage_name(b.stage)),
            ));
        }
        let owed = b
            .owed
            .get(&seat)
            .map(|o| pick(o).clone())
            .unwrap_or_default();
        if owed.is_empty() {
            return Err(bad(
                seat,
                format!("sent {} though it owed nothing", stage_name(b.stage)),
            ));
        }
        if sent != owed.len() {
            return Err(bad(seat, format!("{sent} items for {} owed", owed.len())));
        }
        Ok(owed)
    }

    /// `seat` is in for the whisper stage under way: the next stage opens once all are.
    pub(super) fn whisper_got(&mut self, seat: Seat) {
        let b = self.batch.as_mut().expect("batch");
        b.got.insert(seat);
        let stage = b.stage;
        if b.owed
            .iter()
            .all(|(s, o)| !o.owes(stage) || b.got.contains(s))
        {
            b.got.clear();
            b.stage = b.next_stage(stage);
        }
    }

    pub(super) fn accept_mailbox(
        &mut self,
        seat: Seat,
        keys: &[String],
    ) -> Result<(), ChanceError> {
        let owed = self.whisper_owed(seat, keys.len(), |o| &o.mailbox)?;
        let parsed: Vec<PublicKey> = keys
            .iter()
            .map(|k| whisper::parse_key(k).map_err(|e| bad(seat, format!("mailbox key: {e}"))))
            .collect::<Result<_, _>>()?;
        let b = self.batch.as_mut().expect("batch");
        for (id, k) in owed.into_iter().zip(parsed) {
            let w = b.whisper_mut(id).expect("planned");
            let i = w
                .cands
                .iter()
                .position(|(_, s)| *s == seat)
                .expect("a candidate");
            w.keys[i] = Some(k);
        }
        self.whisper_got(seat);
        Ok(())
    }

    /// Only the form of the letters can be checked now: a valid letter key, one NIP-44 v2
    /// payload per candidate. What they hold is checked by the holder as it opens its own, and
    /// by everyone at the opening.
    pub(super) fn accept_letters(
        &mut self,
        seat: Seat,
        letters: &[LetterMsg],
    ) -> Result<(), ChanceError> {
        let owed = self.whisper_owed(seat, letters.len(), |o| &o.letters)?;
        let mut checked = Vec::new();
        for (id, l) in owed.iter().zip(letters) {
            let key =
                whisper::parse_key(&l.key).map_err(|e| bad(seat, format!("letter key: {e}")))?;
            let b = self.batch.as_ref().expect("batch");
            let w = b.whispers.iter().find(|w| w.id() == *id).expect("planned");
            if l.sealed.len() != w.cands.len() {
                return Err(bad(
                    seat,
                    format!("{} letters for {} mailboxes", l.sealed.len(), w.cands.len()),
                ));
            }
            for x in &l.sealed {
                whisper::check_form(x).map_err(|e| bad(seat, e))?;
            }
            checked.push((*id, key, l.sealed.clone()));
        }
        let b = self.batch.as_mut().expect("batch");
        for (id, key, sealed) in checked {
            b.whisper_mut(id).expect("planned").letter = Some((key, sealed));
        }
        self.whisper_got(seat);
        Ok(())
    }

    /// The openings: the whisperer's letter secret must be its letter key's and open every
    /// letter to its committed die for the roll; a decoy's seed must make its mailbox key.
    /// Either failing names the seat, which cannot repair it (a second event is a fork) and is
    /// removed when the others vote it out.
    pub(super) fn accept_unseal(
        &mut self,
        seat: Seat,
        secrets: &[String],
    ) -> Result<(), ChanceError> {
        let owed = self.whisper_owed(seat, secrets.len(), |o| &o.unseal)?;
        let mut opened = Vec::new();
        for (id, text) in owed.iter().zip(secrets) {
            let bytes: [u8; 32] = hex::decode(text)
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| bad(seat, "an opening is not 32 bytes of hex"))?;
            let w = &self.whispers[id];
            let (owner, roll) = *id;
            if seat == owner {
                let (key, letters) = w.letter.as_ref().expect("a sent whisper");
                let secret = whisper::secret_key(&bytes).map_err(|e| bad(seat, e))?;
                if whisper::public_key(&secret) != *key {
                    return Err(bad(seat, "the letter secret is not the letter key's"));
                }
                let pr = self.private_rolls[id];
                let mut die = None;
                for (i, (_, to)) in w.cands.iter().enumerate() {
                    let mailbox = w.keys[i].expect("a sent whisper has every key");
                    let v = whisper::open(&secret, &mailbox, &letters[i])
                        .and_then(|b| self.owner_die(owner, pr, &b))
                        .map_err(|e| {
                            bad(
                                seat,
                                format!(
                                    "the letter to seat {to}'s mailbox does not hold seat \
                                     {owner}'s die of roll {roll}: {e}"
                                ),
                            )
                        })?;
                    die = Some(v);
                }
                opened.push((*id, die));
            } else {
                let i = w
                    .cands
                    .iter()
                    .position(|(_, s)| *s == seat)
                    .expect("a candidate");
                let k = whisper::decoy_key(&self.table, owner, roll, seat, &bytes)
                    .map_err(|e| bad(seat, e))?;
                if Some(k) != w.keys[i] {
                    return Err(bad(
                        seat,
                        format!(
                            "its seed does not make its mailbox key for seat {owner}'s whisper: \
                             the key was not a decoy"
                        ),
                    ));
                }
            }
        }
        for (id, die) in opened {
            if let Some(w) = self.whispers.get_mut(&id) {
                w.opened = die;
            }
        }
        self.whisper_got(seat);
        Ok(())
    }

    pub(super) fn epoch_of_deck(&self, d: &Deck) -> Result<&Epoch, ChanceError> {
        d.epoch
            .and_then(|e| self.epochs.get(&e))
            .ok_or_else(|| ChanceError::Protocol("the deck's epoch is gone".into()))
    }

    // ---- outcomes --------------------------------------------------------------------------
}
