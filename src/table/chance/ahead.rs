//! The deck prepared ahead (PROTOCOL.md §5.9): its key shares and shuffles ride on the events of
//! steps that happen anyway, and a batch that needs a new deck takes it ready.

use super::*;

impl Chance {
    pub(super) fn start_ahead(&mut self, spec: DeckSpec, parts: Vec<Seat>) {
        let m = self.spares_made;
        self.spares_made += 1;
        self.ahead = Some(AheadDeck {
            id: SPARE_BASE + m,
            deck: Deck::fresh(spec, ahead_hand(m), parts),
            shares: BTreeMap::new(),
            order: Vec::new(),
            unchecked: Vec::new(),
        });
    }

    /// The rules of PROTOCOL.md §5.9 for a batch that asks for `requested` new decks with
    /// `parts`: drops the prepared decks no batch with these participants can use, moves a
    /// finished one under the id of every requested deck it serves, and lets the batch finish
    /// the deck being prepared when its keys are in (no setup). Returns the requested decks
    /// left to the batch and, when it finishes the prepared deck, who shuffled it already.
    pub(super) fn serve_from_spares(
        &mut self,
        requested: Vec<(DeckId, DeckSpec)>,
        parts: &[Seat],
        allowed: bool,
        dice_setup: bool,
    ) -> (Vec<(DeckId, DeckSpec)>, Option<Vec<Seat>>) {
        // A spare is kept only while it can still serve: every key holder still here and the
        // same participants as this batch.
        let spare_ids: Vec<DeckId> = self.decks.range(SPARE_BASE..).map(|(k, _)| *k).collect();
        for id in spare_ids {
            let d = &self.decks[&id];
            if !allowed || d.dead || d.parts != parts || d.shuffles != d.parts.len() {
                self.decks.remove(&id);
            }
        }
        if self
            .ahead
            .as_ref()
            .is_some_and(|a| !allowed || a.deck.parts != parts)
        {
            self.ahead = None;
        }
        if !allowed {
            return (requested, None);
        }
        let current = self
            .current
            .filter(|e| self.epochs[e].parts.as_slice() == parts);
        let mut left = Vec::new();
        for (deck, spec) in requested {
            let spare = self
                .decks
                .range(SPARE_BASE..)
                .find(|(_, d)| d.spec == spec)
                .map(|(k, _)| *k);
            match spare {
                Some(k) => {
                    let mut d = self.decks.remove(&k).expect("held spare");
                    d.epoch = d.epoch.or(current);
                    self.decks.insert(deck, d);
                    self.stats.spares_used += 1;
                }
                None => left.push((deck, spec)),
            }
        }
        // The deck being prepared, keyed but not shuffled by everyone yet: when it is the one
        // deck left and the batch needs no setup for its dice, the batch goes on with the
        // shuffles it lacks instead of keying a new deck.
        let Some(a) = self.ahead.take() else {
            return (left, None);
        };
        let finish = left.len() == 1
            && !dice_setup
            && a.deck.joint.is_some()
            && a.deck.spec == left[0].1
            && current.is_some();
        if !finish {
            // Not ready: it is dropped and the batch keys its own deck.
            return (left, None);
        }
        // Its shuffles so far are checked before the batch builds on them; a bad one drops it.
        let Some(a) = self.check_chain(a) else {
            return (left, None);
        };
        let mut d = a.deck;
        d.epoch = current;
        self.decks.insert(left[0].0, d);
        self.stats.spares_used += 1;
        (left, Some(a.order))
    }

    /// What the deck prepared ahead expects from `seat` on an event of a step whose eligible
    /// seats — those the step waits for, including those already in — are `eligible`: its key
    /// share until every share is in; then a shuffle from the first participant in ascending
    /// order among `eligible` that has not shuffled it yet (one per step: each shuffle builds on
    /// the one before).
    pub(super) fn ahead_due(&self, seat: Seat, eligible: &[Seat]) -> Option<bool> {
        let a = self.ahead.as_ref()?;
        a.deck.idx(seat)?;
        if a.deck.joint.is_none() {
            return (!a.shares.contains_key(&seat)).then_some(true);
        }
        let next = a
            .deck
            .parts
            .iter()
            .find(|p| eligible.contains(p) && !a.order.contains(p))?;
        (*next == seat).then_some(false)
    }

    /// Whether the table is preparing a deck ahead (for reports and tests).
    pub fn preparing(&self) -> Option<(usize, usize)> {
        self.ahead.as_ref().map(|a| (a.shares.len(), a.order.len()))
    }

    /// This seat's part of the deck prepared ahead, when one is due on its event of a step
    /// whose eligible seats are `eligible`.
    pub fn produce_ahead(
        &self,
        eligible: &[Seat],
    ) -> Result<Option<crate::wire::log::Ahead>, ChanceError> {
        use crate::wire::log::Ahead;
        let Some(me) = &self.me else {
            return Ok(None);
        };
        let Some(keys) = self.ahead_due(me.seat, eligible) else {
            return Ok(None);
        };
        let a = self.ahead.as_ref().expect("due");
        let d = &a.deck;
        let idx = d.idx(me.seat).expect("a participant");
        if keys {
            let (_, public) = self
                .my_keys(d.fair_hand, a.id, idx)
                .map_err(|e| ChanceError::Protocol(format!("our own step: {e}")))?;
            return Ok(Some(Ahead::Keys(public.to_base64())));
        }
        // Kept when the joint key was formed (`commit_ahead`).
        let secret = d.my_secret.as_ref().ok_or_else(|| {
            ChanceError::Protocol("no key share of our own for the next deck".into())
        })?;
        let k = a.order.len();
        let ctx = self
            .ctx(d.fair_hand, idx, me.seat)
            .with_step(FairStep::Shuffle { index: k as u16 });
        let joint = d.joint.as_ref().expect("keys in");
        // From version 7 every client checks this deck's chain, ours included, before it serves.
        let prev = d.deck.as_ref().map(|(v, _)| v);
        let own = self.own_shuffle(secret, &ctx, joint, d.size, prev, self.defer_chain)?;
        Ok(Some(Ahead::Shuffle {
            cards: own.cards,
            proof: own.proof,
        }))
    }

    /// Checks `seat`'s part of the deck prepared ahead on its event `id`, in the state the
    /// event's step opened in; nothing changes until [`Chance::commit_ahead`].
    pub fn check_ahead(
        &self,
        seat: Seat,
        id: &str,
        part: &crate::wire::log::Ahead,
        eligible: &[Seat],
    ) -> Result<AheadPart, ChanceError> {
        use crate::wire::log::Ahead;
        let due = self.ahead_due(seat, eligible);
        let a = self.ahead.as_ref();
        match (due, a, part) {
            (Some(true), Some(a), Ahead::Keys(text)) => {
                let idx = a.deck.idx(seat).expect("a participant");
                let ctx = self.ctx(a.deck.fair_hand, idx, seat);
                let share = PublicShare::from_base64(text)
                    .and_then(|s| fair::verify_public_share(&ctx, &s))
                    .map_err(|e| bad(seat, format!("key share of the next deck: {e}")))?;
                Ok(AheadPart::Keys(seat, share))
            }
            (Some(false), Some(a), Ahead::Shuffle { cards, proof }) if self.defer_chain => {
                let k = a.order.len();
                let (placed, step) = self.place_shuffle_of(
                    &a.deck,
                    a.id,
                    seat,
                    k,
                    id,
                    (cards, proof),
                    "the next deck",
                )?;
                Ok(AheadPart::Shuffle(
                    seat,
                    placed,
                    id.to_string(),
                    Some(Box::new(step)),
                ))
            }
            (Some(false), Some(a), Ahead::Shuffle { cards, proof }) => {
                let k = a.order.len();
                let (verified, _) = self.verify_shuffle_of(
                    &a.deck,
                    a.id,
                    seat,
                    k,
                    id,
                    (cards, proof),
                    "the next deck",
                )?;
                Ok(AheadPart::Shuffle(seat, verified, id.to_string(), None))
            }
            (_, _, part) => Err(bad(
                seat,
                format!(
                    "a {} for the next deck that the table did not expect from it here",
                    match part {
                        Ahead::Keys(_) => "key share",
                        Ahead::Shuffle { .. } => "shuffle",
                    }
                ),
            )),
        }
    }

    /// Verifies `seat`'s shuffle (`cards`, `proof` in base64) as the `k`-th of deck `d` (id
    /// `deck`), carried by event `id`, on top of the deck as it stands; through the cache, so a
    /// re-derivation does not prove it again. Returns the deck and whether it was verified now
    /// (not cached). Errors name the deck as `what`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn verify_shuffle_of(
        &self,
        d: &Deck,
        deck: DeckId,
        seat: Seat,
        k: usize,
        id: &str,
        (cards, proof): (&str, &str),
        what: &str,
    ) -> Result<(VerifiedDeck, bool), ChanceError> {
        let joint = d.joint.as_ref().expect("keys in");
        let ctx = self.shuffle_ctx_of(d, seat, k)?;
        let prev = d.deck.as_ref().map(|(v, _)| v);
        let key = (
            sha(&[id.as_bytes()]),
            deck,
            joint.digest(),
            prev.map_or([0u8; 32], |v| v.id),
        );
        if let Some(v) = self
            .cache
            .verified
            .lock()
            .expect("cache")
            .get(&key)
            .cloned()
        {
            return Ok((v, false));
        }
        // Our own event, exactly as we made and checked it from this input: nothing to check.
        if self.my_seat() == Some(seat) {
            let own_slot = self
                .cache
                .own
                .lock()
                .expect("cache")
                .get(&own_key(&ctx, joint, d.size, prev))
                .cloned();
            if let Some(Ok(own)) = own_slot.as_deref().and_then(OnceLock::get) {
                if own.checked && own.cards == cards && own.proof == proof {
                    return Ok((own.deck.clone(), false));
                }
            }
        }
        let fail = |e: fair::FairError| bad(seat, format!("{what}: {e}"));
        let decoded = self.decoded_of(d, deck, id, &ctx, cards).map_err(fail)?;
        if self.speculative {
            // Taken on trust, and not remembered as verified (see `speculative`).
            let v = fair::unchecked_shuffle(&ctx, joint, d.size, prev, &decoded).map_err(fail)?;
            return Ok((v, false));
        }
        let proof = fair::from_base64("proof", proof).map_err(fail)?;
        let v = fair::verify_shuffle_decoded(&ctx, joint, d.size, prev, &decoded, &proof)
            .map_err(fail)?;
        self.cache
            .verified
            .lock()
            .expect("cache")
            .insert(key, v.clone());
        Ok((v, true))
    }

    /// The context of `seat`'s shuffle as the `k`-th of deck `d`.
    fn shuffle_ctx_of(&self, d: &Deck, seat: Seat, k: usize) -> Result<Context, ChanceError> {
        let idx = d
            .idx(seat)
            .ok_or_else(|| bad(seat, "not a participant of this deck"))?;
        Ok(self
            .ctx(d.fair_hand, idx, seat)
            .with_step(FairStep::Shuffle { index: k as u16 }))
    }

    /// The deck (`cards`, base64) of the shuffle in context `ctx` of deck `d` (id `deck`)
    /// carried by event `id`, strictly decoded once per client (shared with its speculative
    /// copies).
    fn decoded_of(
        &self,
        d: &Deck,
        deck: DeckId,
        id: &str,
        ctx: &Context,
        cards: &str,
    ) -> Result<fair::Deck, fair::FairError> {
        self.cache.decoded_deck((sha(&[id.as_bytes()]), deck), || {
            let cards = fair::from_base64("deck", cards)?;
            fair::decode_shuffle_deck(ctx, d.size, &cards)
        })
    }

    /// `seat`'s shuffle as the `k`-th of deck `d` (id `deck`), carried by event `id`, decoded
    /// strictly and placed in the chain on top of the deck as it stands, its proof not checked
    /// (version 7: [`Chance::check_chain`] checks the chain before the deck serves). A
    /// malformed deck or proof, or a step out of place, is the event's fault now.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn place_shuffle_of(
        &self,
        d: &Deck,
        deck: DeckId,
        seat: Seat,
        k: usize,
        id: &str,
        (cards, proof): (&str, &str),
        what: &str,
    ) -> Result<(VerifiedDeck, fair::ShuffleStep), ChanceError> {
        let joint = d.joint.as_ref().expect("keys in");
        let ctx = self.shuffle_ctx_of(d, seat, k)?;
        let prev = d.deck.as_ref().map(|(v, _)| v);
        let fail = |e: fair::FairError| bad(seat, format!("{what}: {e}"));
        let decoded = self.decoded_of(d, deck, id, &ctx, cards).map_err(fail)?;
        let proof = fair::from_base64("proof", proof)
            .and_then(|p| fair::decode_shuffle_proof(&ctx, d.size, &p))
            .map_err(fail)?;
        let placed = fair::unchecked_shuffle(&ctx, joint, d.size, prev, &decoded).map_err(fail)?;
        Ok((
            placed,
            fair::ShuffleStep {
                ctx,
                deck: decoded,
                proof,
            },
        ))
    }

    /// Applies the parts of the deck prepared ahead that a closed step carried. Once every
    /// share is in the deck has its joint key; once everyone shuffled it, it is a spare that
    /// the next batch with the same participants takes.
    pub fn commit_ahead(&mut self, parts: Vec<AheadPart>) {
        let Some(a) = self.ahead.as_mut() else {
            return;
        };
        for part in parts {
            match part {
                AheadPart::Keys(seat, share) => {
                    a.shares.insert(seat, share);
                }
                AheadPart::Shuffle(seat, v, id, step) => {
                    match step {
                        Some(step) => a.unchecked.push((*step, id.clone())),
                        None => self.stats.shuffles_verified += 1,
                    }
                    a.order.push(seat);
                    a.deck.deck = Some((v, id));
                    a.deck.shuffles = a.order.len();
                }
            }
        }
        if a.deck.joint.is_none() && a.shares.len() == a.deck.parts.len() {
            let shares: Vec<VerifiedShare> =
                a.deck.parts.iter().map(|p| a.shares[p].clone()).collect();
            let Ok(joint) = JointKey::from_seats(&shares) else {
                // A repeated key (someone copied another's share): nobody is blamed here, the
                // deck is not prepared and the next hand keys its own, where a bad key set is.
                self.ahead = None;
                return;
            };
            a.deck.shares = shares;
            a.deck.joint = Some(joint);
            // Our own key share, kept for the shuffle and the tokens.
            let (hand, id) = (a.deck.fair_hand, a.id);
            let idx = self.me.as_ref().and_then(|m| a.deck.idx(m.seat));
            let secret = idx
                .and_then(|idx| self.my_keys(hand, id, idx).ok())
                .map(|(secret, _)| Arc::new(secret));
            self.ahead.as_mut().expect("ahead").deck.my_secret = secret;
        }
        if self
            .ahead
            .as_ref()
            .is_some_and(|a| a.deck.joint.is_some() && a.order.len() == a.deck.parts.len())
        {
            let a = self.ahead.take().expect("ahead");
            if let Some(a) = self.check_chain(a) {
                self.decks.insert(a.id, a.deck);
            }
        }
    }

    /// The deck prepared ahead with the shuffles placed so far checked together (version 7),
    /// or `None` when one fails: the deck is dropped, the first bad shuffle's seat noted, and
    /// the next hand keys a deck of its own (PROTOCOL.md §5.9). A speculative copy takes the
    /// chain on trust, as it takes every shuffle (it never deals).
    fn check_chain(&mut self, mut a: AheadDeck) -> Option<AheadDeck> {
        if a.unchecked.is_empty() || self.speculative {
            return Some(a);
        }
        let joint = a.deck.joint.as_ref().expect("shuffled under its joint key");
        let steps: Vec<(&fair::ShuffleStep, &str)> =
            a.unchecked.iter().map(|(s, e)| (s, e.as_str())).collect();
        let verdict = chain_verdict(
            &self.cache,
            &mut self.stats,
            b"chain",
            (a.id, joint, a.deck.size),
            None,
            &steps,
        );
        match verdict {
            Ok(v) => {
                let (_, last) = a.unchecked.last().expect("not empty").clone();
                a.deck.deck = Some((v, last));
                a.unchecked.clear();
                Some(a)
            }
            Err(e) => {
                // Placement already checked every step's index, key and size, so the failure
                // is a step's proof, and it names that step's participant.
                let (bad, reason) = match &e {
                    fair::FairError::BadShuffle { seat, reason } => {
                        (Some(*seat), reason.to_string())
                    }
                    other => (None, other.to_string()),
                };
                let (step, event) = a
                    .unchecked
                    .iter()
                    .find(|(s, _)| Some(s.ctx.seat) == bad)
                    .or(a.unchecked.first())
                    .expect("not empty");
                let seat = a.deck.parts[usize::from(step.ctx.seat)];
                if self.batch_chains {
                    // From version 10 the seat is removed too, as for the hand's own deck.
                    self.disproved.push(DisprovedShuffle {
                        seat,
                        event: event.clone(),
                        step: None,
                        reason: reason.clone(),
                    });
                }
                self.refused.push(RefusedChain {
                    seat,
                    event: event.clone(),
                    reason,
                });
                None
            }
        }
    }

    /// Checks the shuffles of a batch's deck `id` placed since the last check together
    /// (version 10): the deck becomes the chain's verified result, or, when a shuffle fails, is
    /// dead and every seat whose shuffle fails on the deck it was placed on is noted for
    /// removal (PROTOCOL.md §5.9). A speculative copy takes the chain on trust.
    pub(super) fn check_pending(&mut self, id: DeckId) {
        let Some(d) = self.decks.get_mut(&id) else {
            return;
        };
        let Some(p) = d.pending.take() else {
            return;
        };
        if self.speculative || p.steps.is_empty() {
            return;
        }
        let d = &self.decks[&id];
        let joint = d.joint.as_ref().expect("shuffled under its joint key");
        let size = d.size;
        let steps: Vec<(&fair::ShuffleStep, &str)> = p
            .steps
            .iter()
            .map(|s| (&s.step, s.event.as_str()))
            .collect();
        let verdict = chain_verdict(
            &self.cache,
            &mut self.stats,
            b"batch chain",
            (id, joint, size),
            p.start.as_ref(),
            &steps,
        );
        if let Ok(v) = verdict {
            let last = p.steps.last().expect("not empty").event.clone();
            self.decks.get_mut(&id).expect("deck").deck = Some((v, last));
            return;
        }
        // Only a cheat (or a broken client) comes here: each step is checked alone on the deck
        // it was placed on, so every bad one is named, not only the first.
        let mut input = p.start.clone();
        let mut found = Vec::new();
        let mut last = None;
        for s in &p.steps {
            match fair::verify_chain(joint, size, input.as_ref(), std::slice::from_ref(&s.step)) {
                Ok(v) => last = v,
                Err(e) => found.push(DisprovedShuffle {
                    seat: s.seat,
                    event: s.event.clone(),
                    step: Some(s.at),
                    reason: format!("deck {id}: {e}"),
                }),
            }
            input = Some(s.placed.clone());
        }
        if found.is_empty() {
            // Every step holds alone, so the chain holds: nobody is named on a disagreement
            // between the two checks.
            let event = p.steps.last().expect("not empty").event.clone();
            let v = last.expect("a step was checked");
            self.decks.get_mut(&id).expect("deck").deck = Some((v, event));
            return;
        }
        self.decks.get_mut(&id).expect("deck").dead = true;
        for f in found {
            if !self
                .disproved
                .iter()
                .any(|x| x.event == f.event && x.seat == f.seat)
            {
                self.disproved.push(f);
            }
        }
    }

    // ---- producing this seat's contributions -----------------------------------------------
}

/// The verdict on a chain of shuffles checked together (`steps` with their events, on `start`,
/// or on the initial deck), of deck `id` under `joint` with `size` cards: computed once per
/// client, kept by label, deck, key, start and events, since a roll-back re-applies the step
/// that completes a chain. The deck prepared ahead (version 7) and a batch's own decks
/// (version 10) are checked by it alike.
fn chain_verdict(
    cache: &Caches,
    stats: &mut ChanceStats,
    label: &[u8],
    (id, joint, size): (DeckId, &JointKey, usize),
    start: Option<&VerifiedDeck>,
    steps: &[(&fair::ShuffleStep, &str)],
) -> Result<VerifiedDeck, fair::FairError> {
    let deck_id = u64::from(id).to_be_bytes();
    let digest = joint.digest();
    let from = start.map_or([0u8; 32], |v| v.id);
    let mut parts: Vec<&[u8]> = vec![label, &deck_id, &digest, &from];
    parts.extend(steps.iter().map(|(_, e)| e.as_bytes()));
    slot(&cache.chains, sha(&parts), CHAINS_KEPT)
        .get_or_init(|| {
            let steps: Vec<fair::ShuffleStep> = steps.iter().map(|(s, _)| (*s).clone()).collect();
            stats.chains_checked += 1;
            stats.chained_shuffles += steps.len() as u64;
            stats.shuffles_verified += steps.len() as u64;
            fair::verify_chain(joint, size, start, &steps)
                .map(|d| d.expect("a chain of at least one step"))
        })
        .clone()
}
