//! Private messages between Nostr keys: NIP-17 chat messages, gift-wrapped (NIP-59) and encrypted
//! (NIP-44) by nostr-sdk.
//!
//! A message is an unsigned kind-14 *rumor* written by the sender, sealed (kind 13, signed by the
//! sender, encrypted to the recipient) and wrapped (kind 1059, signed by a one-time key, `p`-tagged
//! with the recipient). Relays see neither the sender nor the text.
//!
//! What this module decides (and why):
//! - **Where to send.** To the recipient's NIP-17 inbox relays (kind 10050) when they published
//!   some, *and* always to the sender's own relays (for an invitation, the table's relays): a
//!   recipient who never published an inbox list can still find the message on relays the sender
//!   and recipient share, and the sender's relays are where a reply is looked for. Never to their
//!   NIP-65 read relays: NIP-17 says a key without a kind 10050 is not ready to receive private
//!   messages elsewhere, and public relays that serve mentions may refuse or drop gift wraps. At most [`MAX_LISTED_RELAYS`] relays are taken from someone else's list, so a hostile
//!   list cannot make us open hundreds of connections.
//! - **The sender's copy.** The same rumor is also wrapped to the sender and sent to the sender's
//!   inbox relays and own relays, as NIP-17 recommends, so it appears in the sender's history on
//!   any client. Failing to store that copy does not fail the send; it is reported.
//! - **Authenticating the sender.** The seal is signed by the sender and the rumor carries an
//!   author; [`unwrap`] refuses a message whose seal signer differs from the rumor's author
//!   ([`DmError::ForgedSender`]) and one whose rumor id does not match its content. The wrap's
//!   own signer is a throwaway key and says nothing about the sender.
//! - **Lists.** Kinds 10050 and 10002 are replaceable: the newest event wins (ties: lowest id,
//!   NIP-01).
//!
//! To receive live (e.g. table invitations), subscribe with [`inbox_filter`] on a
//! [`RelayPool`] and pass each event to [`unwrap`]; [`fetch_inbox`] does the same for stored ones.

use std::time::Duration;

use nostr_sdk::nips::nip59::{self, UnwrappedGift};
use nostr_sdk::prelude::{
    Event, EventBuilder, EventId, Filter, JsonUtil, Keys, Kind, NostrSigner, PublicKey, RelayUrl,
    Tag, TagStandard, Tags, Timestamp, UnsignedEvent,
};

use super::pool::{pow_to_retry, PublishReport, RelayPool, MAX_POW};
use super::NetError;

pub use crate::wire::feedback::{RelayLists, MAX_LISTED_RELAYS};

/// What went wrong sending or reading a private message.
#[derive(Debug, thiserror::Error)]
pub enum DmError {
    /// Talking to relays failed (unreachable, nothing accepted, …).
    #[error(transparent)]
    Net(#[from] NetError),
    /// The seal or wrap could not be made.
    #[error("cannot build the private message: {0}")]
    Build(String),
    /// The signer (a bunker) did not say whose key it holds.
    #[error("the signer did not give its public key: {0}")]
    Signer(String),
    /// The seal is signed by another key than the one the message claims as its author.
    #[error(
        "gift wrap {wrap}: the seal is signed by {seal_signer} but the message claims to be from \
         {claimed}: refused as a forged sender"
    )]
    ForgedSender {
        /// The kind-1059 event.
        wrap: EventId,
        /// Who actually signed the seal.
        seal_signer: PublicKey,
        /// The rumor's `pubkey`.
        claimed: PublicKey,
    },
    /// The rumor's id is not the hash of its content.
    #[error("gift wrap {wrap}: the message's id does not match its content")]
    BadRumorId {
        /// The kind-1059 event.
        wrap: EventId,
    },
    /// The wrap cannot be opened with this key (addressed to someone else, or malformed).
    #[error("gift wrap {wrap} cannot be opened with this key: {reason}")]
    Unwrap {
        /// The kind-1059 event.
        wrap: EventId,
        /// What failed.
        reason: String,
    },
}

/// The relay lists `who` published, as found on `pool`'s relays (empty lists when none).
pub async fn lookup_relays(
    pool: &RelayPool,
    who: &PublicKey,
    timeout: Duration,
) -> Result<RelayLists, DmError> {
    let events = pool
        .fetch(
            vec![crate::wire::feedback::relay_lists_filter(&[*who])],
            timeout,
        )
        .await?;
    Ok(RelayLists::from_events(&events, who))
}

/// The kind-10050 event listing `relays` as this key's inbox for private messages (unsigned).
pub fn inbox_relays_event(relays: &[RelayUrl]) -> EventBuilder {
    EventBuilder::new(Kind::InboxRelays, "").tags(relays.iter().cloned().map(Tag::relay))
}

/// Publishes `relays` as the pool's key's NIP-17 inbox (kind 10050) on the pool's relays.
pub async fn publish_inbox_relays(
    pool: &RelayPool,
    relays: &[RelayUrl],
) -> Result<PublishReport, DmError> {
    // With the proof of work the relays ask (a replaced list may be mined again).
    let (_, report) = pool
        .publish_mined(inbox_relays_event(relays), 0, false)
        .await?;
    Ok(report)
}

pub use crate::wire::subject;

/// One message sealed and wrapped twice: for its recipient and for its sender's history.
#[derive(Debug, Clone)]
pub struct Wrapped {
    /// The kind-14 rumor, id set.
    pub rumor: UnsignedEvent,
    /// Kind 1059 addressed to the recipient.
    pub for_recipient: Event,
    /// Kind 1059 addressed to the sender (same rumor).
    pub for_sender: Event,
}

/// The key `signer` holds: a bunker answers once and is not asked again.
async fn owner<S: NostrSigner>(signer: &S) -> Result<PublicKey, DmError> {
    signer
        .get_public_key()
        .await
        .map_err(|e| DmError::Signer(e.to_string()))
}

/// Seals and wraps `content` from `keys`' owner to `to`, with `tags` (e.g. [`subject`], an `a`
/// tag) added to the rumor after the recipient's `p` tag. `keys` is any signer: a bunker is
/// asked to encrypt and sign each of the two seals.
pub async fn wrap_message<S: NostrSigner>(
    keys: &S,
    to: &PublicKey,
    content: &str,
    tags: Vec<Tag>,
) -> Result<Wrapped, DmError> {
    let me = owner(keys).await?;
    let mut rumor = EventBuilder::private_msg_rumor(*to, content)
        .tags(tags)
        .build(me);
    // One id for both copies: the sender's history and the recipient's inbox name the same
    // message.
    rumor.ensure_id();
    let for_recipient = gift_wrap(keys, to, &rumor, 0).await?;
    let for_sender = gift_wrap(keys, &me, &rumor, 0).await?;
    Ok(Wrapped {
        rumor,
        for_recipient,
        for_sender,
    })
}

/// Seals `rumor` from `keys` to `to` and wraps it (NIP-59), the wrap carrying `pow` bits of
/// NIP-13 work. The wrap is signed by a one-time key, so nostr's `gift_wrap` (which signs inside)
/// cannot mine it: this does what it does — a seal signed by the author, encrypted with NIP-44
/// under a fresh key to the recipient, a `p` tag, a time up to two days in the past — and mines
/// the wrap before signing, off the runtime's threads.
pub async fn gift_wrap<S: NostrSigner>(
    keys: &S,
    to: &PublicKey,
    rumor: &UnsignedEvent,
    pow: u8,
) -> Result<Event, DmError> {
    let build = |e: nostr_sdk::event::builder::Error| DmError::Build(e.to_string());
    if pow == 0 {
        return EventBuilder::gift_wrap(keys, to, rumor.clone(), [])
            .await
            .map_err(build);
    }
    let seal = EventBuilder::seal(keys, to, rumor.clone())
        .await
        .map_err(build)?
        .sign(keys)
        .await
        .map_err(build)?;
    let one_time = Keys::generate();
    let content = nostr_sdk::nips::nip44::encrypt(
        one_time.secret_key(),
        to,
        seal.as_json(),
        nostr_sdk::nips::nip44::Version::default(),
    )
    .map_err(|e| DmError::Build(e.to_string()))?;
    let wrap = EventBuilder::new(Kind::GiftWrap, content)
        .tag(Tag::public_key(*to))
        .custom_created_at(Timestamp::tweaked(nip59::RANGE_RANDOM_TIMESTAMP_TWEAK))
        .pow(pow);
    tokio::task::spawn_blocking(move || wrap.sign_with_keys(&one_time))
        .await
        .map_err(|e| DmError::Build(e.to_string()))?
        .map_err(build)
}

/// Publishes a wrap of `rumor` to `to` on `pool`'s relays and `extra`, with the proof of work
/// `pool`'s relays ask in NIP-11; a relay that answers `pow:` gets the message wrapped again
/// with the work it names (at most [`MAX_POW`] bits, three times) — another wrap of the same
/// rumor, which the recipient takes once (by the rumor's id). Reports every relay that took
/// either wrap.
async fn publish_wrapped<S: NostrSigner>(
    pool: &RelayPool,
    sender: &S,
    extra: &[RelayUrl],
    to: &PublicKey,
    rumor: &UnsignedEvent,
    first: Event,
) -> Result<PublishReport, NetError> {
    let mut difficulty = pool.min_pow_difficulty().min(MAX_POW);
    let mut wrap = if difficulty > 0 {
        gift_wrap(sender, to, rumor, difficulty)
            .await
            .map_err(|e| NetError::Sign(e.to_string()))?
    } else {
        first
    };
    let mut merged: Option<PublishReport> = None;
    for _ in 0..4 {
        let outcome = publish_to(pool, extra, &wrap).await;
        let report = match outcome {
            Ok(r) => r,
            Err(NetError::NotAccepted { event_id, rejected }) => PublishReport {
                event_id,
                accepted: Vec::new(),
                rejected,
            },
            Err(e) => return Err(e),
        };
        let asked = pow_to_retry(&report.rejected, difficulty);
        merged = Some(match merged.take() {
            None => report.clone(),
            Some(mut m) => {
                m.accepted.extend(report.accepted.iter().cloned());
                m.accepted.sort();
                m.accepted.dedup();
                m.rejected = report.rejected.clone();
                m
            }
        });
        match asked {
            Some(d) => {
                difficulty = d;
                wrap = gift_wrap(sender, to, rumor, d)
                    .await
                    .map_err(|e| NetError::Sign(e.to_string()))?;
            }
            _ => break,
        }
    }
    let mut m = merged.expect("published at least once");
    m.rejected.retain(|(url, _)| !m.accepted.contains(url));
    if m.accepted.is_empty() {
        return Err(NetError::NotAccepted {
            event_id: m.event_id,
            rejected: m.rejected,
        });
    }
    Ok(m)
}

/// What [`send_private`] did.
#[derive(Debug)]
pub struct SendReport {
    /// The rumor's id (the same in both copies).
    pub message_id: EventId,
    pub recipient: PublicKey,
    /// The recipient's relay lists as found on the sender's relays.
    pub recipient_relays: RelayLists,
    /// Where the recipient's copy was sent and which relays took it.
    pub delivered: PublishReport,
    /// The sender's own copy (for their history); an error here does not fail the send.
    pub own_copy: Result<PublishReport, String>,
}

/// Sends `content` privately from `pool`'s key to `to`: to the recipient's NIP-17 inbox relays
/// found on `pool`'s relays (never its NIP-65 read relays), plus `pool`'s relays; a copy to the
/// sender's own inbox.
/// Fails if no relay took the recipient's copy; the report names every relay and its answer.
pub async fn send_private(
    pool: &RelayPool,
    to: &PublicKey,
    content: &str,
    tags: Vec<Tag>,
    lookup_timeout: Duration,
) -> Result<SendReport, DmError> {
    send_private_as(pool, pool.keys(), to, content, tags, lookup_timeout).await
}

/// [`send_private`] from `sender`'s owner rather than `pool`'s key: an identity in a bunker
/// whose relay connection uses another key (`Authority::connection_key`).
pub async fn send_private_as<S: NostrSigner>(
    pool: &RelayPool,
    sender: &S,
    to: &PublicKey,
    content: &str,
    tags: Vec<Tag>,
    lookup_timeout: Duration,
) -> Result<SendReport, DmError> {
    let me = owner(sender).await?;
    let recipient_relays = lookup_relays(pool, to, lookup_timeout).await?;
    let mine = if me == *to {
        recipient_relays.clone()
    } else {
        lookup_relays(pool, &me, lookup_timeout).await?
    };
    let wrapped = wrap_message(sender, to, content, tags).await?;
    let delivered = publish_wrapped(
        pool,
        sender,
        recipient_relays.for_messages(),
        to,
        &wrapped.rumor,
        wrapped.for_recipient.clone(),
    )
    .await
    .map_err(DmError::Net)?;
    let own_copy = publish_wrapped(
        pool,
        sender,
        mine.for_messages(),
        &me,
        &wrapped.rumor,
        wrapped.for_sender.clone(),
    )
    .await
    .map_err(|e| e.to_string());
    Ok(SendReport {
        message_id: wrapped.rumor.id.expect("ensure_id set it"),
        recipient: *to,
        recipient_relays,
        delivered,
        own_copy,
    })
}

/// Publishes `event` on `pool`'s relays and on `extra` relays outside the pool (connected for
/// this event only). An unreachable extra relay is reported as rejected, not an error. Fails
/// with [`NetError::NotAccepted`] if no relay at all took the event.
pub async fn publish_to(
    pool: &RelayPool,
    extra: &[RelayUrl],
    event: &Event,
) -> Result<PublishReport, NetError> {
    let mut report = PublishReport {
        event_id: event.id,
        accepted: Vec::new(),
        rejected: Vec::new(),
    };
    merge(&mut report, pool.publish(event).await)?;
    let outside: Vec<RelayUrl> = extra
        .iter()
        .filter(|u| !pool.relays().contains(u))
        .cloned()
        .collect();
    if !outside.is_empty() {
        match RelayPool::connect(
            pool.keys().clone(),
            outside.iter().map(|u| u.as_str()),
            pool.config().clone(),
        )
        .await
        {
            Ok(side) => {
                let result = side.publish(event).await;
                side.shutdown().await;
                merge(&mut report, result)?;
            }
            Err(e) => merge(&mut report, Err(e))?,
        }
    }
    if report.accepted.is_empty() {
        return Err(NetError::NotAccepted {
            event_id: report.event_id,
            rejected: report.rejected,
        });
    }
    Ok(report)
}

/// Folds one publish attempt into `report`; per-relay failures become rejections, anything
/// else is an error.
fn merge(
    report: &mut PublishReport,
    result: Result<PublishReport, NetError>,
) -> Result<(), NetError> {
    match result {
        Ok(r) => {
            report.accepted.extend(r.accepted);
            report.rejected.extend(r.rejected);
        }
        Err(NetError::NotAccepted { rejected, .. }) => report.rejected.extend(rejected),
        Err(NetError::Unreachable { relays }) => report.rejected.extend(relays),
        Err(e) => return Err(e),
    }
    Ok(())
}

/// A private message, opened and authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivateMessage {
    /// The kind-1059 event it came in.
    pub wrap_id: EventId,
    /// The rumor's id, the same in the recipient's and the sender's copy.
    pub id: EventId,
    /// The author, authenticated: the seal's signer, equal to the rumor's author.
    pub sender: PublicKey,
    /// The rumor's kind (14 for a NIP-17 chat message).
    pub kind: Kind,
    /// When the sender wrote it (the wrap's own time is randomised).
    pub created_at: Timestamp,
    pub content: String,
    /// The rumor's tags (`p` recipients, `subject`, `a`, …).
    pub tags: Tags,
}

impl PrivateMessage {
    /// The keys the message is addressed to (its `p` tags).
    pub fn recipients(&self) -> Vec<PublicKey> {
        self.tags.public_keys().copied().collect()
    }

    /// The NIP-14 subject, if any.
    pub fn subject(&self) -> Option<&str> {
        self.tags.iter().find_map(|t| match t.as_standardized() {
            Some(TagStandard::Subject(s)) => Some(s.as_str()),
            _ => None,
        })
    }
}

/// Opens a gift wrap addressed to `keys`' owner, checking that the seal's signer wrote the
/// rumor. `keys` is any signer that can open NIP-44: a local key, or a bunker whose person
/// then opens both layers (the wrap and the seal).
pub async fn unwrap<S: NostrSigner>(keys: &S, wrap: &Event) -> Result<PrivateMessage, DmError> {
    let gift = match UnwrappedGift::from_gift_wrap(keys, wrap).await {
        Ok(gift) => gift,
        Err(nip59::Error::SenderMismatch) => return Err(forged(keys, wrap).await),
        Err(e) => {
            return Err(DmError::Unwrap {
                wrap: wrap.id,
                reason: e.to_string(),
            })
        }
    };
    let rumor = gift.rumor;
    if rumor.verify_id().is_err() {
        return Err(DmError::BadRumorId { wrap: wrap.id });
    }
    let mut id_source = rumor.clone();
    Ok(PrivateMessage {
        wrap_id: wrap.id,
        id: id_source.id(),
        sender: gift.sender,
        kind: rumor.kind,
        created_at: rumor.created_at,
        content: rumor.content,
        tags: rumor.tags,
    })
}

/// The error for a seal whose signer is not the rumor's author, naming both keys. nostr-sdk
/// reports only that they differ; the two layers are opened again (with its NIP-44) to name them.
async fn forged<S: NostrSigner>(keys: &S, wrap: &Event) -> DmError {
    async fn open<S: NostrSigner>(keys: &S, wrap: &Event) -> Option<(PublicKey, PublicKey)> {
        let seal = keys.nip44_decrypt(&wrap.pubkey, &wrap.content).await.ok()?;
        let seal = Event::from_json(seal).ok()?;
        let rumor = keys.nip44_decrypt(&seal.pubkey, &seal.content).await.ok()?;
        let rumor = UnsignedEvent::from_json(rumor).ok()?;
        Some((seal.pubkey, rumor.pubkey))
    }
    match open(keys, wrap).await {
        Some((seal_signer, claimed)) => DmError::ForgedSender {
            wrap: wrap.id,
            seal_signer,
            claimed,
        },
        None => DmError::Unwrap {
            wrap: wrap.id,
            reason: "sender public key mismatch".into(),
        },
    }
}

/// Filter for gift wraps addressed to `me`.
pub fn inbox_filter(me: &PublicKey) -> Filter {
    Filter::new().kind(Kind::GiftWrap).pubkey(*me)
}

/// What [`fetch_inbox`] found.
#[derive(Debug, Default)]
pub struct Inbox {
    /// Opened and authenticated messages, each once (by rumor id), oldest first.
    pub messages: Vec<PrivateMessage>,
    /// Wraps addressed to us that were refused, and why.
    pub refused: Vec<DmError>,
}

/// Every private message addressed to `pool`'s key stored on its relays (including the copies
/// of messages it sent).
pub async fn fetch_inbox(pool: &RelayPool, timeout: Duration) -> Result<Inbox, DmError> {
    fetch_inbox_of(pool, pool.keys(), timeout).await
}

/// Every private message addressed to `signer`'s owner stored on `pool`'s relays, opened by
/// `signer`: the pool's own key, or a bunker when the pool connects with another key.
pub async fn fetch_inbox_of<S: NostrSigner>(
    pool: &RelayPool,
    signer: &S,
    timeout: Duration,
) -> Result<Inbox, DmError> {
    let me = owner(signer).await?;
    // Paged: an inbox outgrows a relay's cap on one answer.
    let wraps = pool.fetch_all(inbox_filter(&me), 500, timeout).await?;
    let mut inbox = Inbox::default();
    for wrap in &wraps {
        match unwrap(signer, wrap).await {
            Ok(m) => {
                if !inbox.messages.iter().any(|known| known.id == m.id) {
                    inbox.messages.push(m);
                }
            }
            Err(e) => inbox.refused.push(e),
        }
    }
    inbox.messages.sort_by_key(|m| (m.created_at, m.id));
    Ok(inbox)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{EmbeddedRelay, EmbeddedRelayConfig, PoolConfig};
    use nostr_sdk::prelude::RelayMetadata;

    const WAIT: Duration = Duration::from_secs(5);

    async fn relay() -> EmbeddedRelay {
        EmbeddedRelay::start(EmbeddedRelayConfig::default())
            .await
            .expect("embedded relay starts")
    }

    async fn pool(keys: &Keys, relays: &[&EmbeddedRelay]) -> RelayPool {
        RelayPool::connect(
            keys.clone(),
            relays.iter().map(|r| r.url().to_string()),
            PoolConfig::default(),
        )
        .await
        .expect("pool connects")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_message_reaches_the_inbox_relay_and_the_sender_keeps_a_copy() {
        let shared = relay().await;
        let inbox = relay().await;
        let author = Keys::generate();
        let player = Keys::generate();

        // The recipient announces, on a relay both use, that it reads messages elsewhere.
        let author_on_shared = pool(&author, &[&shared]).await;
        publish_inbox_relays(&author_on_shared, std::slice::from_ref(inbox.url()))
            .await
            .unwrap();

        let player_pool = pool(&player, &[&shared]).await;
        let report = send_private(
            &player_pool,
            &author.public_key(),
            "Super Ace should also work with a d12",
            vec![subject("variant idea")],
            WAIT,
        )
        .await
        .unwrap();
        assert_eq!(report.recipient_relays.inbox, vec![inbox.url().clone()]);
        assert!(report.delivered.accepted.contains(inbox.url()));
        assert!(report.delivered.accepted.contains(shared.url()));
        assert!(report.delivered.rejected.is_empty(), "{report:?}");
        assert!(report.own_copy.is_ok(), "{report:?}");

        // The recipient reads its inbox relay only: the message is there, its sender proven.
        let author_on_inbox = pool(&author, &[&inbox]).await;
        let got = fetch_inbox(&author_on_inbox, WAIT).await.unwrap();
        assert!(got.refused.is_empty(), "{:?}", got.refused);
        assert_eq!(got.messages.len(), 1);
        let m = &got.messages[0];
        assert_eq!(m.sender, player.public_key());
        assert_eq!(m.kind, Kind::PrivateDirectMessage);
        assert_eq!(m.content, "Super Ace should also work with a d12");
        assert_eq!(m.subject(), Some("variant idea"));
        assert_eq!(m.recipients(), vec![author.public_key()]);
        assert_eq!(m.id, report.message_id);

        // The sender's own copy names the same message and its recipient.
        let mine = fetch_inbox(&player_pool, WAIT).await.unwrap();
        assert_eq!(mine.messages.len(), 1);
        assert_eq!(mine.messages[0].id, report.message_id);
        assert_eq!(mine.messages[0].sender, player.public_key());
        assert_eq!(mine.messages[0].recipients(), vec![author.public_key()]);

        // Relays see a throwaway signer and a randomised time, not the sender.
        let wraps = author_on_inbox
            .fetch(vec![inbox_filter(&author.public_key())], WAIT)
            .await
            .unwrap();
        assert_eq!(wraps.len(), 1);
        assert_ne!(wraps[0].pubkey, player.public_key());
        // The whole message, not a fragment: three characters turn up in random base64 about
        // once in 250 wraps.
        assert!(!wraps[0]
            .content
            .contains("Super Ace should also work with a d12"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn private_messages_go_to_inbox_relays_only_and_the_newest_list_wins() {
        let shared = relay().await;
        let someone = Keys::generate();
        let p = pool(&someone, &[&shared]).await;
        let read = RelayUrl::parse("wss://read.example.org").unwrap();
        let write = RelayUrl::parse("wss://write.example.org").unwrap();
        let both = RelayUrl::parse("wss://both.example.org").unwrap();
        let list = EventBuilder::relay_list([
            (read.clone(), Some(RelayMetadata::Read)),
            (write, Some(RelayMetadata::Write)),
            (both.clone(), None),
        ]);
        p.publish(&p.sign(list).unwrap()).await.unwrap();

        let lists = lookup_relays(&p, &someone.public_key(), WAIT)
            .await
            .unwrap();
        assert!(lists.inbox.is_empty());
        assert_eq!(lists.read, vec![read.clone(), both.clone()]);
        // No kind 10050: no private message goes to the NIP-65 read relays (NIP-17); public
        // mentions do (NIP-65).
        assert!(lists.for_messages().is_empty());
        assert_eq!(lists.for_mentions(), &[read.clone(), both][..]);

        // A newer inbox list replaces an older one.
        let old = RelayUrl::parse("wss://old.example.org").unwrap();
        let new = RelayUrl::parse("wss://new.example.org").unwrap();
        let older = inbox_relays_event(std::slice::from_ref(&old))
            .custom_created_at(Timestamp::from_secs(Timestamp::now().as_secs() - 100));
        p.publish(&p.sign(older).unwrap()).await.unwrap();
        p.publish(
            &p.sign(inbox_relays_event(std::slice::from_ref(&new)))
                .unwrap(),
        )
        .await
        .unwrap();
        let lists = lookup_relays(&p, &someone.public_key(), WAIT)
            .await
            .unwrap();
        assert_eq!(lists.inbox, vec![new.clone()]);
        assert_eq!(lists.for_messages(), &[new][..]);

        // Nobody's lists: nothing found, no error.
        let none = lookup_relays(&p, &Keys::generate().public_key(), WAIT)
            .await
            .unwrap();
        assert_eq!(none, RelayLists::default());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dead_inbox_relay_is_reported_and_the_shared_relay_still_takes_the_message() {
        let shared = relay().await;
        let author = Keys::generate();
        let dead = RelayUrl::parse("ws://127.0.0.1:9").unwrap();
        let a = pool(&author, &[&shared]).await;
        publish_inbox_relays(&a, std::slice::from_ref(&dead))
            .await
            .unwrap();
        let player = pool(&Keys::generate(), &[&shared]).await;
        let report = send_private(&player, &author.public_key(), "hello", Vec::new(), WAIT)
            .await
            .unwrap();
        assert_eq!(report.delivered.accepted, vec![shared.url().clone()]);
        assert_eq!(report.delivered.rejected.len(), 1);
        assert_eq!(report.delivered.rejected[0].0, dead);
        let got = fetch_inbox(&a, WAIT).await.unwrap();
        assert_eq!(got.messages.len(), 1);
        assert_eq!(got.messages[0].content, "hello");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_forged_sender_and_a_wrap_for_someone_else_are_refused() {
        let shared = relay().await;
        let author = Keys::generate();
        let impostor = Keys::generate();
        let victim = Keys::generate();

        // The rumor claims the victim wrote it, but the impostor signs the seal.
        let rumor = EventBuilder::private_msg_rumor(author.public_key(), "I concede the pot")
            .build(victim.public_key());
        let seal = nip59::make_seal(&impostor, &author.public_key(), rumor)
            .await
            .unwrap()
            .sign_with_keys(&impostor)
            .unwrap();
        let forged_wrap =
            EventBuilder::gift_wrap_from_seal(&author.public_key(), &seal, []).unwrap();
        match unwrap(&author, &forged_wrap).await {
            Err(DmError::ForgedSender {
                seal_signer,
                claimed,
                ..
            }) => {
                assert_eq!(seal_signer, impostor.public_key());
                assert_eq!(claimed, victim.public_key());
            }
            other => panic!("forged sender accepted or misreported: {other:?}"),
        }

        // A genuine message opens only with its recipient's key.
        let genuine = wrap_message(&victim, &author.public_key(), "hi", Vec::new())
            .await
            .unwrap();
        assert!(matches!(
            unwrap(&impostor, &genuine.for_recipient).await,
            Err(DmError::Unwrap { .. })
        ));
        assert_eq!(
            unwrap(&author, &genuine.for_recipient)
                .await
                .unwrap()
                .sender,
            victim.public_key()
        );

        // Fetched together, the forged one is listed as refused and the genuine one read.
        let p = pool(&author, &[&shared]).await;
        p.publish(&forged_wrap).await.unwrap();
        p.publish(&genuine.for_recipient).await.unwrap();
        let got = fetch_inbox(&p, WAIT).await.unwrap();
        assert_eq!(got.messages.len(), 1);
        assert_eq!(got.messages[0].content, "hi");
        assert_eq!(got.refused.len(), 1);
        let why = got.refused[0].to_string();
        assert!(why.contains("forged sender"), "{why}");
    }
}
