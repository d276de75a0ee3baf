//! The embedded relay's in-memory event store: each event kept as the JSON the relay sends
//! (deflated), with only the fields that filters and replacement rules look at.
//!
//! Why not nostr-database's `MemoryDatabase` any more (measured in BENCHMARKS.md, "Many tables
//! on one relay"): it keeps each event parsed (content, every tag as a vector of strings,
//! behind an `Arc`, in four indexes), ≈ 1.9 KB for a 1.4 KB Perudo event, and a filter it cannot
//! answer from an index (a tag without authors, as a spectator or the lobby asks) calls
//! `match_event` on *every* stored event, which builds and keeps each event's tag-index cache
//! (≈ 1 KB more per event, for good). A heap profile of the relay at 25 tables put that cache at
//! 28 % of its heap, and the rest of `MemoryDatabase` at most of the remainder. Here an event
//! costs its JSON deflated (a Perudo event's 1.36 KB to 0.73 KB: hex ids and base64 that
//! repeats; the relay sends it as it was stored, without serialising it again) plus ≈ 500 B of
//! fields and index entries, and every filter starts from an index: ids, a tag value, (kind,
//! author) pairs, authors, kinds, whichever holds fewest events.
//!
//! Semantics follow `MemoryDatabase` (nostr-database 0.44) so that clients see no difference,
//! with these exceptions, each NIP-conformant: an expired event (NIP-40) is not returned once
//! its time has passed; a NIP-09 deletion of an address blocks versions of it created up to the
//! deletion's time (nostr-database compares with the current time instead); a deletion that
//! names someone else's event is refused whole (nostr-database still applies part of it); a
//! filter naming an addressable event's `d` tag also has its other tags checked.
//! - duplicates and events ephemeral (20000–29999) or already expired are not stored;
//! - replaceable kinds (0, 3, 10000–19999) keep the newest event per (kind, author) and
//!   addressable kinds (30000–39999) the newest per (kind, author, `d`); an event older than
//!   the one held is refused (one of the same second replaces it); a replaced event counts as
//!   deleted afterwards;
//! - kind 5 deletes its author's events named by `e` tags and, by `a` tags, addresses;
//! - at most `capacity` events: the oldest goes first (an event older than all of a full store
//!   is accepted and dropped at once);
//! - answers are newest first (`created_at` descending, then id ascending), the newest `limit`.

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, RwLock};

use nostr_sdk::prelude::{
    Coordinate, DatabaseEventStatus, Event, EventId, Filter, JsonUtil, Kind, MatchEventOptions,
    PublicKey, RejectedReason, SaveEventStatus, SingleLetterTag, Timestamp,
};

type Slot = u32;

/// Records are allocated this many at a time: a vector of all of them would, doubling, hold up
/// to twice the records in use.
const CHUNK: usize = 1024;

/// Deflate level 1: a few tens of microseconds per event; higher levels gain under 1 % here.
const LEVEL: u8 = 1;

/// The JSON of an event as [`Store::query`] gives it.
pub(super) fn unpack(packed: &[u8]) -> String {
    let bytes = miniz_oxide::inflate::decompress_to_vec(packed)
        .expect("the store inflates only what it deflated");
    String::from_utf8(bytes).expect("the store deflated a string")
}

/// Where an event sits in every index: newest first, then by slot. Ties of `created_at` are put
/// in id order when an answer is cut (see [`Inner::collect`]), so that 12 bytes per entry
/// suffice instead of 40.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    at: Reverse<u64>,
    slot: Slot,
}

impl Key {
    fn first_at(at: u64) -> Key {
        Key {
            at: Reverse(at),
            slot: 0,
        }
    }
    fn last_at(at: u64) -> Key {
        Key {
            at: Reverse(at),
            slot: Slot::MAX,
        }
    }
}

struct Record {
    /// The event's JSON, deflated.
    packed: Box<[u8]>,
    id: EventId,
    author: PublicKey,
    created_at: u64,
    expiration: Option<u64>,
    kind: u16,
    /// The `d` value of an addressable event.
    address: Option<Arc<str>>,
    /// Each single-letter tag's values (first value of the tag), as `Filter::match_event` sees
    /// them; the strings are shared with the tag index.
    tags: Box<[(SingleLetterTag, Arc<str>)]>,
}

impl Record {
    fn key(&self, slot: Slot) -> Key {
        Key {
            at: Reverse(self.created_at),
            slot,
        }
    }

    fn expired(&self, now: u64) -> bool {
        self.expiration.is_some_and(|t| t < now)
    }

    /// `Filter::match_event` on the fields kept.
    fn matches(&self, filter: &Filter) -> bool {
        let ids_ok = filter
            .ids
            .as_ref()
            .is_none_or(|s| s.is_empty() || s.contains(&self.id));
        let authors_ok = filter
            .authors
            .as_ref()
            .is_none_or(|s| s.is_empty() || s.contains(&self.author));
        let kinds_ok = filter
            .kinds
            .as_ref()
            .is_none_or(|s| s.is_empty() || s.contains(&Kind::from(self.kind)));
        if !ids_ok
            || !authors_ok
            || !kinds_ok
            || filter.since.is_some_and(|t| self.created_at < t.as_secs())
            || filter.until.is_some_and(|t| self.created_at > t.as_secs())
        {
            return false;
        }
        let tags_match = filter.generic_tags.iter().all(|(letter, wanted)| {
            self.tags
                .iter()
                .any(|(l, v)| l == letter && wanted.contains(v.as_ref()))
        });
        if !tags_match {
            return false;
        }
        match &filter.search {
            // The content is only in the JSON; searches are rare on a game relay.
            Some(_) => Event::from_json(unpack(&self.packed))
                .is_ok_and(|e| filter.match_event(&e, MatchEventOptions::new())),
            None => true,
        }
    }
}

#[derive(Default)]
struct Inner {
    /// Chunks of [`CHUNK`] records; slot `s` is `records[s / CHUNK][s % CHUNK]`.
    records: Vec<Vec<Option<Record>>>,
    free: Vec<Slot>,
    by_id: HashMap<EventId, Slot>,
    all: BTreeSet<Key>,
    by_kind_author: HashMap<(u16, PublicKey), BTreeSet<Key>>,
    by_author: HashMap<PublicKey, BTreeSet<Key>>,
    by_kind: HashMap<u16, BTreeSet<Key>>,
    by_tag: HashMap<SingleLetterTag, HashMap<Arc<str>, BTreeSet<Key>>>,
    by_address: HashMap<(u16, PublicKey, Arc<str>), Slot>,
    deleted_ids: HashSet<EventId>,
    deleted_addresses: HashMap<Coordinate, u64>,
}

/// The relay's in-memory store (module docs).
pub(super) struct Store {
    capacity: usize,
    inner: RwLock<Inner>,
}

impl Store {
    pub fn new(capacity: usize) -> Store {
        Store {
            capacity: capacity.max(1),
            inner: RwLock::new(Inner::default()),
        }
    }

    // A panic while holding the lock cannot leave an index half-edited in a way that breaks
    // the next reader (each index edit is one insert or remove), so keep serving.
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }
    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    pub fn status(&self, id: &EventId) -> DatabaseEventStatus {
        let inner = self.read();
        if inner.deleted_ids.contains(id) {
            DatabaseEventStatus::Deleted
        } else if inner.by_id.contains_key(id) {
            DatabaseEventStatus::Saved
        } else {
            DatabaseEventStatus::NotExistent
        }
    }

    /// Stores a verified `event` whose JSON is `json`.
    pub fn save(&self, event: &Event, json: &str) -> SaveEventStatus {
        self.save_at(event, json, Timestamp::now().as_secs())
    }

    fn save_at(&self, event: &Event, json: &str, now: u64) -> SaveEventStatus {
        let rejected = SaveEventStatus::Rejected;
        if event.kind.is_ephemeral() {
            return rejected(RejectedReason::Ephemeral);
        }
        let mut inner = self.write();
        if inner.by_id.contains_key(&event.id) {
            return rejected(RejectedReason::Duplicate);
        }
        if inner.deleted_ids.contains(&event.id) {
            return rejected(RejectedReason::Deleted);
        }
        if event.is_expired_at(&Timestamp::from(now)) {
            return rejected(RejectedReason::Expired);
        }
        let created_at = event.created_at.as_secs();
        let kind = event.kind.as_u16();
        let author = event.pubkey;
        let mut status = SaveEventStatus::Success;
        let mut discard: Vec<Slot> = Vec::new();
        if event.kind.is_replaceable() {
            for key in inner
                .by_kind_author
                .get(&(kind, author))
                .into_iter()
                .flatten()
            {
                if key.at.0 > created_at {
                    status = rejected(RejectedReason::Replaced);
                } else {
                    discard.push(key.slot);
                }
            }
        } else if event.kind.is_addressable() {
            match event.tags.identifier() {
                None => status = rejected(RejectedReason::Other),
                Some(d) => {
                    let coordinate = Coordinate::new(event.kind, author).identifier(d);
                    if inner
                        .deleted_addresses
                        .get(&coordinate)
                        .is_some_and(|&t| t >= created_at)
                    {
                        status = rejected(RejectedReason::Deleted);
                    } else if let Some(&slot) = inner.by_address.get(&(kind, author, d.into())) {
                        if inner.record(slot).created_at > created_at {
                            status = rejected(RejectedReason::Replaced);
                        } else {
                            discard.push(slot);
                        }
                    }
                }
            }
        } else if event.kind == Kind::EventDeletion {
            let mut invalid = false;
            for id in event.tags.event_ids() {
                if let Some(&slot) = inner.by_id.get(id) {
                    let target = inner.record(slot);
                    if target.author != author {
                        invalid = true;
                        break;
                    }
                    if target.created_at <= created_at {
                        discard.push(slot);
                    }
                }
            }
            if !invalid {
                for coordinate in event.tags.coordinates() {
                    if coordinate.public_key != author {
                        invalid = true;
                        break;
                    }
                    let at = inner
                        .deleted_addresses
                        .entry(coordinate.clone())
                        .or_insert(created_at);
                    *at = (*at).max(created_at);
                    let k = coordinate.kind.as_u16();
                    if coordinate.identifier.is_empty() {
                        let set = inner.by_kind_author.get(&(k, author));
                        discard.extend(
                            set.into_iter()
                                .flatten()
                                .filter_map(|key| (key.at.0 <= created_at).then_some(key.slot)),
                        );
                    } else {
                        let address = (k, author, coordinate.identifier.as_str().into());
                        if let Some(&slot) = inner.by_address.get(&address) {
                            if inner.record(slot).created_at <= created_at {
                                discard.push(slot);
                            }
                        }
                    }
                }
            }
            if invalid {
                // Nothing of a deletion that names someone else's event takes effect.
                discard.clear();
                inner.deleted_ids.insert(event.id);
                status = rejected(RejectedReason::InvalidDelete);
            }
        }
        for slot in discard {
            if let Some(record) = inner.remove(slot) {
                inner.deleted_ids.insert(record.id);
            }
        }
        if status.is_success() {
            // Deflated under the lock: it is a few tens of microseconds, and doing it before
            // would cost as much for every duplicate.
            let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), LEVEL);
            inner.insert(event, packed.into_boxed_slice(), self.capacity);
        }
        status
    }

    /// The stored events matching any of `filters` (their JSON deflated: see [`unpack`]),
    /// newest first; each filter contributes at most its `limit` newest.
    pub fn query(&self, filters: &[Filter]) -> Vec<Box<[u8]>> {
        let now = Timestamp::now().as_secs();
        let inner = self.read();
        let mut keys: Vec<Key> = Vec::new();
        for f in filters {
            keys.extend(inner.matching(f, now));
        }
        if filters.len() > 1 {
            inner.sort(&mut keys);
            keys.dedup();
        }
        keys.iter()
            .map(|k| inner.record(k.slot).packed.clone())
            .collect()
    }

    /// How many stored events `filter` matches (at most its `limit`).
    pub fn count(&self, filter: &Filter) -> usize {
        let now = Timestamp::now().as_secs();
        self.read().matching(filter, now).len()
    }
}

impl Inner {
    fn record(&self, slot: Slot) -> &Record {
        let slot = slot as usize;
        self.records[slot / CHUNK][slot % CHUNK]
            .as_ref()
            .expect("indexes name only occupied slots")
    }

    fn insert(&mut self, event: &Event, packed: Box<[u8]>, capacity: usize) {
        let created_at = event.created_at.as_secs();
        if self.all.len() >= capacity {
            let oldest = self.oldest().expect("a full store has events");
            let old = self.record(oldest);
            // The store keeps the newest `capacity` events in answer order.
            if (Reverse(created_at), event.id) > (Reverse(old.created_at), old.id) {
                return;
            }
            self.remove(oldest);
        }
        let mut tags: Vec<(SingleLetterTag, Arc<str>)> = Vec::new();
        for (letter, values) in event.tags.indexes() {
            let by_value = self.by_tag.entry(*letter).or_default();
            for v in values {
                // One allocation per distinct value, shared by the index and every record.
                let shared = match by_value.get_key_value(v.as_str()) {
                    Some((k, _)) => k.clone(),
                    None => Arc::from(v.as_str()),
                };
                tags.push((*letter, shared));
            }
        }
        let address = match event.tags.identifier() {
            Some(d) if event.kind.is_addressable() => Some(
                tags.iter()
                    .find(|(l, v)| l.as_char() == 'd' && v.as_ref() == d)
                    .map_or_else(|| Arc::from(d), |(_, v)| v.clone()),
            ),
            _ => None,
        };
        let record = Record {
            packed,
            address,
            id: event.id,
            author: event.pubkey,
            created_at,
            expiration: event.tags.expiration().map(|t| t.as_secs()),
            kind: event.kind.as_u16(),
            tags: tags.into_boxed_slice(),
        };
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                if self.records.last().is_none_or(|c| c.len() == CHUNK) {
                    self.records.push(Vec::with_capacity(CHUNK));
                }
                let chunks = self.records.len();
                let chunk = self.records.last_mut().expect("a chunk with room");
                chunk.push(None);
                let slot = (chunks - 1) * CHUNK + chunk.len() - 1;
                Slot::try_from(slot).expect("fewer than 2^32 events")
            }
        };
        let key = record.key(slot);
        self.by_id.insert(record.id, slot);
        self.all.insert(key);
        self.by_kind_author
            .entry((record.kind, record.author))
            .or_default()
            .insert(key);
        self.by_author.entry(record.author).or_default().insert(key);
        self.by_kind.entry(record.kind).or_default().insert(key);
        for (letter, value) in record.tags.iter() {
            self.by_tag
                .entry(*letter)
                .or_default()
                .entry(value.clone())
                .or_default()
                .insert(key);
        }
        if let Some(d) = &record.address {
            self.by_address
                .insert((record.kind, record.author, d.clone()), slot);
        }
        self.records[slot as usize / CHUNK][slot as usize % CHUNK] = Some(record);
    }

    /// The event a full store drops first: the oldest, the greatest id among equals.
    fn oldest(&self) -> Option<Slot> {
        let last = self.all.last()?;
        self.all
            .range(Key::first_at(last.at.0)..=Key::last_at(last.at.0))
            .max_by_key(|k| self.record(k.slot).id)
            .map(|k| k.slot)
    }

    fn remove(&mut self, slot: Slot) -> Option<Record> {
        let slot_at = slot as usize;
        let record = self
            .records
            .get_mut(slot_at / CHUNK)?
            .get_mut(slot_at % CHUNK)?
            .take()?;
        let key = record.key(slot);
        self.by_id.remove(&record.id);
        self.all.remove(&key);
        fn unfile<K: std::hash::Hash + Eq>(map: &mut HashMap<K, BTreeSet<Key>>, k: K, key: &Key) {
            if let Some(set) = map.get_mut(&k) {
                set.remove(key);
                if set.is_empty() {
                    map.remove(&k);
                }
            }
        }
        unfile(&mut self.by_kind_author, (record.kind, record.author), &key);
        unfile(&mut self.by_author, record.author, &key);
        unfile(&mut self.by_kind, record.kind, &key);
        for (letter, value) in record.tags.iter() {
            if let Some(by_value) = self.by_tag.get_mut(letter) {
                unfile(by_value, value.clone(), &key);
                if by_value.is_empty() {
                    self.by_tag.remove(letter);
                }
            }
        }
        if let Some(d) = &record.address {
            let address = (record.kind, record.author, d.clone());
            if self.by_address.get(&address) == Some(&slot) {
                self.by_address.remove(&address);
            }
        }
        self.free.push(slot);
        Some(record)
    }

    /// Answer order: newest first, then id ascending.
    fn sort(&self, keys: &mut [Key]) {
        keys.sort_by_cached_key(|k| (k.at, self.record(k.slot).id));
    }

    /// The keys of the events `filter` matches, in answer order, at most its limit.
    fn matching(&self, filter: &Filter, now: u64) -> Vec<Key> {
        let all_of = |set: &BTreeSet<Key>| -> Vec<Key> {
            set.iter()
                .filter(|k| !self.record(k.slot).expired(now))
                .copied()
                .collect()
        };
        if filter.is_empty() {
            let mut keys = all_of(&self.all);
            self.sort(&mut keys);
            return keys;
        }
        let limit = filter.limit.unwrap_or(usize::MAX);
        if limit == 0 {
            return Vec::new();
        }
        if let (Some(since), Some(until)) = (filter.since, filter.until) {
            if since > until {
                return Vec::new();
            }
        }
        if let Some(ids) = filter.ids.as_ref().filter(|s| !s.is_empty()) {
            let mut keys: Vec<Key> = ids
                .iter()
                .filter_map(|id| self.by_id.get(id))
                .map(|&slot| self.record(slot).key(slot))
                .collect();
            keys.sort();
            return self.collect(keys.into_iter(), filter, limit, now);
        }
        let sources = self.sources(filter);
        let range = Key::first_at(filter.until.map_or(u64::MAX, |t| t.as_secs()))
            ..=Key::last_at(filter.since.map_or(0, |t| t.as_secs()));
        match sources.as_slice() {
            [one] => self.collect(one.range(range).copied(), filter, limit, now),
            many => {
                let mut keys: Vec<Key> = many
                    .iter()
                    .flat_map(|set| set.range(range.clone()).copied())
                    .collect();
                keys.sort();
                keys.dedup();
                self.collect(keys.into_iter(), filter, limit, now)
            }
        }
    }

    /// The index sets whose union holds every event `filter` can match: the smallest of those
    /// its fields offer.
    fn sources(&self, filter: &Filter) -> Vec<&BTreeSet<Key>> {
        fn size(sets: &[&BTreeSet<Key>]) -> usize {
            sets.iter().map(|s| s.len()).sum()
        }
        fn consider<'a>(sets: Vec<&'a BTreeSet<Key>>, best: &mut Vec<&'a BTreeSet<Key>>) {
            if size(&sets) < size(best) {
                *best = sets;
            }
        }
        let mut best: Vec<&BTreeSet<Key>> = vec![&self.all];
        for (letter, values) in &filter.generic_tags {
            let by_value = self.by_tag.get(letter);
            let sets: Vec<_> = values
                .iter()
                .filter_map(|v| by_value.and_then(|m| m.get(v.as_str())))
                .collect();
            consider(sets, &mut best);
        }
        let kinds = filter.kinds.as_ref().filter(|s| !s.is_empty());
        let authors = filter.authors.as_ref().filter(|s| !s.is_empty());
        if let (Some(kinds), Some(authors)) = (kinds, authors) {
            let mut sets = Vec::new();
            for kind in kinds {
                for author in authors {
                    if let Some(set) = self.by_kind_author.get(&(kind.as_u16(), *author)) {
                        sets.push(set);
                    }
                }
            }
            consider(sets, &mut best);
        }
        if let Some(authors) = authors {
            consider(
                authors
                    .iter()
                    .filter_map(|a| self.by_author.get(a))
                    .collect(),
                &mut best,
            );
        }
        if let Some(kinds) = kinds {
            consider(
                kinds
                    .iter()
                    .filter_map(|k| self.by_kind.get(&k.as_u16()))
                    .collect(),
                &mut best,
            );
        }
        best
    }

    /// The first `limit` matching keys of `ordered` (newest first) in answer order. Events of
    /// the same second as the last one taken are all looked at, since the id decides among them.
    fn collect(
        &self,
        ordered: impl Iterator<Item = Key>,
        filter: &Filter,
        limit: usize,
        now: u64,
    ) -> Vec<Key> {
        let mut out: Vec<Key> = Vec::new();
        let mut boundary: Option<Reverse<u64>> = None;
        for key in ordered {
            if boundary.is_some_and(|b| key.at != b) {
                break;
            }
            let record = self.record(key.slot);
            if record.expired(now) || !record.matches(filter) {
                continue;
            }
            out.push(key);
            if out.len() >= limit && boundary.is_none() {
                boundary = Some(key.at);
            }
        }
        self.sort(&mut out);
        out.truncate(limit);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr_sdk::prelude::{
        EventBuilder, Keys, MemoryDatabase, MemoryDatabaseOptions, NostrDatabase, Tag,
    };
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const T0: u64 = 1_700_000_000;

    fn event(keys: &Keys, kind: u16, at: u64, tags: &[&[&str]], content: &str) -> Event {
        EventBuilder::new(Kind::from(kind), content)
            .tags(
                tags.iter()
                    .map(|t| Tag::parse(t.iter().copied()).expect("a tag")),
            )
            .custom_created_at(Timestamp::from(at))
            .sign_with_keys(keys)
            .expect("signs")
    }

    fn save(store: &Store, e: &Event) -> SaveEventStatus {
        store.save(e, &e.as_json())
    }

    /// The ids of an answer, in its order; every event comes back as it was stored.
    fn ids(found: Vec<Box<[u8]>>) -> Vec<EventId> {
        found
            .iter()
            .map(|p| {
                let json = unpack(p);
                let e = Event::from_json(&json).expect("stored JSON parses");
                assert_eq!(json, e.as_json());
                e.id
            })
            .collect()
    }

    /// `events` in answer order: newest first, then id ascending.
    fn answer_order(mut events: Vec<&Event>) -> Vec<EventId> {
        events.sort_by_key(|e| (Reverse(e.created_at), e.id));
        events.iter().map(|e| e.id).collect()
    }

    #[test]
    fn limit_takes_the_newest_and_breaks_ties_by_id() {
        let keys = Keys::generate();
        let store = Store::new(100);
        // Five events in one second and one later: a limit of 3 cuts inside the second.
        let mut events: Vec<Event> = (0..5)
            .map(|i| event(&keys, 1, T0, &[], &format!("{i}")))
            .collect();
        events.push(event(&keys, 1, T0 + 1, &[], "later"));
        // Stored in reverse id order, so that slot order is not id order.
        let mut by_id: Vec<&Event> = events.iter().collect();
        by_id.sort_by_key(|e| Reverse(e.id));
        for e in by_id {
            assert_eq!(save(&store, e), SaveEventStatus::Success);
        }
        let all = answer_order(events.iter().collect());
        let got = ids(store.query(&[Filter::new().kind(Kind::from(1)).limit(3)]));
        assert_eq!(got, all[..3]);
        assert_eq!(got[0], events[5].id);
        let got = ids(store.query(&[Filter::new().author(keys.public_key()).limit(10)]));
        assert_eq!(got, all);
        assert_eq!(store.count(&Filter::new().kind(Kind::from(1)).limit(4)), 4);
        assert!(store
            .query(&[Filter::new().kind(Kind::from(1)).limit(0)])
            .is_empty());
    }

    #[test]
    fn since_until_and_tags_select_like_match_event() {
        let (a, b) = (Keys::generate(), Keys::generate());
        let store = Store::new(100);
        let e1 = event(&a, 7767, T0, &[&["a", "t1"], &["p", "x"]], "one");
        let e2 = event(&a, 7767, T0 + 5, &[&["a", "t1"]], "two");
        let e3 = event(&b, 7767, T0 + 10, &[&["a", "t2"]], "Three");
        let e4 = event(&b, 1, T0 + 10, &[], "four");
        for e in [&e1, &e2, &e3, &e4] {
            assert_eq!(save(&store, e), SaveEventStatus::Success);
        }
        let q = |f: Filter| ids(store.query(&[f]));
        let a_tag = |v: &str| {
            Filter::new().custom_tag(SingleLetterTag::lowercase(nostr_sdk::Alphabet::A), v)
        };
        assert_eq!(q(a_tag("t1")), vec![e2.id, e1.id]);
        assert_eq!(q(a_tag("t1").since(Timestamp::from(T0 + 1))), vec![e2.id]);
        assert_eq!(q(a_tag("t1").until(Timestamp::from(T0 + 4))), vec![e1.id]);
        assert_eq!(
            q(a_tag("t1")
                .since(Timestamp::from(T0 + 6))
                .until(Timestamp::from(T0))),
            vec![]
        );
        // Two letters: both must be there.
        let both = a_tag("t1").custom_tag(SingleLetterTag::lowercase(nostr_sdk::Alphabet::P), "x");
        assert_eq!(q(both), vec![e1.id]);
        // A tag with no value wanted matches nothing; empty ids, authors or kinds restrict
        // nothing.
        let mut none = Filter::new().kind(Kind::from(7767));
        none.generic_tags.insert(
            SingleLetterTag::lowercase(nostr_sdk::Alphabet::A),
            BTreeSet::new(),
        );
        assert_eq!(q(none), vec![]);
        let mut open = Filter::new().author(b.public_key());
        open.kinds = Some(BTreeSet::new());
        open.ids = Some(BTreeSet::new());
        assert_eq!(q(open), answer_order(vec![&e3, &e4]));
        assert_eq!(
            q(Filter::new()
                .kinds([Kind::from(7767)])
                .authors([b.public_key()])),
            vec![e3.id]
        );
        assert_eq!(
            q(Filter::new().id(e2.id).id(e4.id)),
            answer_order(vec![&e2, &e4])
        );
        assert_eq!(q(Filter::new().id(e2.id).kind(Kind::from(1))), vec![]);
        // NIP-50 search reads the content from the JSON, case-insensitively.
        assert_eq!(q(Filter::new().search("three")), vec![e3.id]);
        // Several filters: the union, each with its own limit.
        let got = ids(store.query(&[
            Filter::new().author(a.public_key()).limit(1),
            Filter::new().author(b.public_key()).limit(1),
            Filter::new().id(e2.id),
        ]));
        let newest_b = answer_order(vec![&e3, &e4])[0];
        let want = if newest_b == e3.id {
            vec![&e2, &e3]
        } else {
            vec![&e2, &e4]
        };
        assert_eq!(got, answer_order(want));
    }

    #[test]
    fn replaceable_and_addressable_keep_the_newest() {
        let keys = Keys::generate();
        let store = Store::new(100);
        let old = event(&keys, 10002, T0, &[], "old");
        let new = event(&keys, 10002, T0 + 1, &[], "new");
        assert_eq!(save(&store, &old), SaveEventStatus::Success);
        assert_eq!(save(&store, &new), SaveEventStatus::Success);
        assert_eq!(store.status(&old.id), DatabaseEventStatus::Deleted);
        let older = event(&keys, 10002, T0 - 1, &[], "older");
        assert_eq!(
            save(&store, &older),
            SaveEventStatus::Rejected(RejectedReason::Replaced)
        );
        assert_eq!(
            ids(store.query(&[Filter::new().kind(Kind::from(10002))])),
            vec![new.id]
        );

        let t1 = event(&keys, 37767, T0, &[&["d", "one"]], "v1");
        let t2 = event(&keys, 37767, T0, &[&["d", "two"]], "v1");
        let t1b = event(&keys, 37767, T0 + 3, &[&["d", "one"]], "v2");
        let no_d = event(&keys, 37767, T0, &[], "no d");
        for e in [&t1, &t2, &t1b] {
            assert_eq!(save(&store, e), SaveEventStatus::Success);
        }
        assert_eq!(
            save(&store, &no_d),
            SaveEventStatus::Rejected(RejectedReason::Other)
        );
        let stale = event(&keys, 37767, T0 + 1, &[&["d", "one"]], "v1.5");
        assert_eq!(
            save(&store, &stale),
            SaveEventStatus::Rejected(RejectedReason::Replaced)
        );
        let d = |v: &str| {
            Filter::new()
                .kind(Kind::from(37767))
                .author(keys.public_key())
                .identifier(v)
        };
        assert_eq!(ids(store.query(&[d("one")])), vec![t1b.id]);
        assert_eq!(ids(store.query(&[d("two")])), vec![t2.id]);
        // The `d` value does not excuse the filter's other tags.
        let other = d("one").custom_tag(SingleLetterTag::lowercase(nostr_sdk::Alphabet::T), "x");
        assert_eq!(ids(store.query(&[other])), vec![]);
        assert_eq!(
            save(&store, &t1b),
            SaveEventStatus::Rejected(RejectedReason::Duplicate)
        );
    }

    #[test]
    fn deletions_remove_only_their_authors_events() {
        let (me, other) = (Keys::generate(), Keys::generate());
        let store = Store::new(100);
        let mine = event(&me, 1, T0, &[], "mine");
        let theirs = event(&other, 1, T0, &[], "theirs");
        let table = event(&me, 37767, T0, &[&["d", "t"]], "table");
        for e in [&mine, &theirs, &table] {
            assert_eq!(save(&store, e), SaveEventStatus::Success);
        }
        let foreign = event(&me, 5, T0 + 1, &[&["e", &theirs.id.to_hex()]], "");
        assert_eq!(
            save(&store, &foreign),
            SaveEventStatus::Rejected(RejectedReason::InvalidDelete)
        );
        assert_eq!(store.status(&theirs.id), DatabaseEventStatus::Saved);
        assert_eq!(store.status(&foreign.id), DatabaseEventStatus::Deleted);

        let address = format!("37767:{}:t", me.public_key().to_hex());
        let delete = event(
            &me,
            5,
            T0 + 2,
            &[&["e", &mine.id.to_hex()], &["a", &address]],
            "",
        );
        assert_eq!(save(&store, &delete), SaveEventStatus::Success);
        assert_eq!(store.status(&mine.id), DatabaseEventStatus::Deleted);
        assert_eq!(store.status(&table.id), DatabaseEventStatus::Deleted);
        assert_eq!(
            save(&store, &mine),
            SaveEventStatus::Rejected(RejectedReason::Deleted)
        );
        // The address stays deleted up to the deletion's time, not after.
        let before = event(&me, 37767, T0 + 1, &[&["d", "t"]], "again");
        assert_eq!(
            save(&store, &before),
            SaveEventStatus::Rejected(RejectedReason::Deleted)
        );
        let after = event(&me, 37767, T0 + 3, &[&["d", "t"]], "again");
        assert_eq!(save(&store, &after), SaveEventStatus::Success);
        assert_eq!(
            ids(store.query(&[Filter::new().kind(Kind::from(37767))])),
            vec![after.id]
        );
        assert_eq!(
            ids(store.query(&[Filter::new().kind(Kind::from(1))])),
            vec![theirs.id]
        );
    }

    #[test]
    fn ephemeral_and_expired_events_are_not_kept() {
        let keys = Keys::generate();
        let store = Store::new(100);
        let now = Timestamp::now().as_secs();
        let ephemeral = event(&keys, 27767, now, &[], "");
        assert_eq!(
            save(&store, &ephemeral),
            SaveEventStatus::Rejected(RejectedReason::Ephemeral)
        );
        let expired = event(
            &keys,
            1,
            now - 10,
            &[&["expiration", &(now - 5).to_string()]],
            "",
        );
        assert_eq!(
            save(&store, &expired),
            SaveEventStatus::Rejected(RejectedReason::Expired)
        );
        // Stored before its expiration, then no longer answered once it has passed.
        let lapsing = event(
            &keys,
            1,
            now - 10,
            &[&["expiration", &(now - 1).to_string()]],
            "",
        );
        assert_eq!(
            store.save_at(&lapsing, &lapsing.as_json(), now - 5),
            SaveEventStatus::Success
        );
        let lasting = event(
            &keys,
            1,
            now - 10,
            &[&["expiration", &(now + 3600).to_string()]],
            "",
        );
        assert_eq!(save(&store, &lasting), SaveEventStatus::Success);
        assert_eq!(
            ids(store.query(&[Filter::new().kind(Kind::from(1))])),
            vec![lasting.id]
        );
        assert_eq!(store.count(&Filter::new()), 1);
    }

    #[test]
    fn a_full_store_drops_its_oldest() {
        let keys = Keys::generate();
        let store = Store::new(3);
        let events: Vec<Event> = (0..5)
            .map(|i| event(&keys, 1, T0 + 10 + i, &[&["a", "x"]], ""))
            .collect();
        for e in &events {
            assert_eq!(save(&store, e), SaveEventStatus::Success);
        }
        let newest3 = answer_order(events[2..].iter().collect());
        assert_eq!(ids(store.query(&[Filter::new()])), newest3);
        // Older than everything held: accepted and dropped at once, as nostr-database does.
        let ancient = event(&keys, 1, T0, &[], "");
        assert_eq!(save(&store, &ancient), SaveEventStatus::Success);
        assert_eq!(store.status(&ancient.id), DatabaseEventStatus::NotExistent);
        // Dropped events leave no index entry behind.
        let tagged =
            Filter::new().custom_tag(SingleLetterTag::lowercase(nostr_sdk::Alphabet::A), "x");
        assert_eq!(ids(store.query(&[tagged])), newest3);
        let inner = store.read();
        assert_eq!(inner.by_id.len(), 3);
        assert_eq!(
            inner.by_author.values().map(BTreeSet::len).sum::<usize>(),
            3
        );
        assert_eq!(inner.records.iter().flatten().flatten().count(), 3);
    }

    /// Random events and filters: every save status, every answer (in order) and every id's
    /// status agree with nostr-database's `MemoryDatabase`, except where the module docs say
    /// otherwise (so: no deletions or expirations here, and a `d` filter alone among tags).
    #[tokio::test]
    async fn agrees_with_memory_database() {
        let authors: Vec<Keys> = (0..3).map(|_| Keys::generate()).collect();
        let kinds: [u16; 6] = [1, 7767, 7768, 0, 10002, 37767];
        let values = ["x", "y", "z"];
        // How many answers had events, and how many were cut by their limit: the comparison
        // must have had something to compare.
        let (mut answered, mut cut) = (0, 0);
        for seed in 0..6u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let capacity = if seed % 2 == 0 { 40 } else { 1_000 };
            let ours = Store::new(capacity);
            let theirs = MemoryDatabase::with_opts(MemoryDatabaseOptions {
                events: true,
                max_events: Some(capacity),
            });
            let mut sent: Vec<Event> = Vec::new();
            for i in 0..150 {
                let keys = &authors[rng.gen_range(0..authors.len())];
                let kind = kinds[rng.gen_range(0..kinds.len())];
                let at = T0 + rng.gen_range(0..25);
                let mut tags: Vec<Vec<String>> = Vec::new();
                for letter in ["a", "t", "d"] {
                    if rng.gen_bool(0.5) {
                        let v = values[rng.gen_range(0..values.len())];
                        tags.push(vec![letter.into(), v.into()]);
                    }
                }
                let tags: Vec<Vec<&str>> = tags
                    .iter()
                    .map(|t| t.iter().map(String::as_str).collect())
                    .collect();
                let tags: Vec<&[&str]> = tags.iter().map(Vec::as_slice).collect();
                // Now and then the same event again.
                let e = match sent.last() {
                    Some(prev) if rng.gen_bool(0.05) => prev.clone(),
                    _ => event(keys, kind, at, &tags, &format!("{i}")),
                };
                let want = theirs.save_event(&e).await.expect("saves");
                assert_eq!(save(&ours, &e), want, "seed {seed}, event {i}");
                sent.push(e);
            }
            for e in &sent {
                let want = theirs.check_id(&e.id).await.expect("checks");
                assert_eq!(ours.status(&e.id), want, "seed {seed}");
            }
            for q in 0..300 {
                let mut f = Filter::new();
                if rng.gen_bool(0.1) {
                    for _ in 0..rng.gen_range(0..4) {
                        f = f.id(sent[rng.gen_range(0..sent.len())].id);
                    }
                }
                if rng.gen_bool(0.4) {
                    for _ in 0..rng.gen_range(1..3) {
                        f = f.author(authors[rng.gen_range(0..authors.len())].public_key());
                    }
                }
                if rng.gen_bool(0.5) {
                    for _ in 0..rng.gen_range(1..3) {
                        f = f.kind(Kind::from(kinds[rng.gen_range(0..kinds.len())]));
                    }
                }
                if rng.gen_bool(0.15) {
                    f = f.identifier(values[rng.gen_range(0..values.len())]);
                } else {
                    for letter in [nostr_sdk::Alphabet::A, nostr_sdk::Alphabet::T] {
                        if rng.gen_bool(0.3) {
                            for _ in 0..rng.gen_range(1..3) {
                                let v = values[rng.gen_range(0..values.len())];
                                f = f.custom_tag(SingleLetterTag::lowercase(letter), v);
                            }
                        }
                    }
                }
                if rng.gen_bool(0.3) {
                    f = f.since(Timestamp::from(T0 + rng.gen_range(0..25)));
                }
                if rng.gen_bool(0.3) {
                    f = f.until(Timestamp::from(T0 + rng.gen_range(0..25)));
                }
                if rng.gen_bool(0.6) {
                    f = f.limit(rng.gen_range(0..12));
                }
                let want: Vec<EventId> = theirs
                    .query(f.clone())
                    .await
                    .expect("queries")
                    .into_iter()
                    .map(|e| e.id)
                    .collect();
                let got = ids(ours.query(std::slice::from_ref(&f)));
                assert_eq!(got, want, "seed {seed}, query {q}: {}", f.as_json());
                answered += usize::from(!got.is_empty());
                if let Some(limit) = f.limit.filter(|&l| l > 0 && got.len() == l) {
                    let mut unlimited = f.clone();
                    unlimited.limit = None;
                    cut += usize::from(ours.count(&unlimited) > limit);
                }
                assert_eq!(
                    ours.count(&f),
                    theirs.count(f.clone()).await.expect("counts"),
                    "seed {seed}, query {q}"
                );
            }
        }
        assert!(answered > 300 && cut > 50, "answered {answered}, cut {cut}");
    }
}
