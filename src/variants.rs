//! Variants shared over Nostr ([`crate::wire::variant`] has the event format): propose one
//! (publish it, then send the author its `naddr` privately), list those on the relays, and fetch
//! one by `naddr`. A variant is a game's name and its JSON; the game checks it through its
//! registry entry ([`TableGame::variant_check`]), so nothing here knows any game.

use std::time::Duration;

use nostr_sdk::prelude::*;

use crate::feedback;
use crate::games::registry::{with_game, TableGame, Visit};
use crate::net::dm::{self, SendReport};
use crate::net::{PublishReport, RelayPool};
use crate::wire::variant::{self as wv, VariantDraft, VariantPost, KIND_VARIANT, UNTAGGED_GAME};

/// Bound on fetching stored variants.
const FETCH: Duration = Duration::from_secs(5);
/// Page size when listing (relays cap results per request).
const PAGE: usize = 500;

/// A published variant its game has read: the post and one line on what it changes.
#[derive(Debug, Clone)]
pub struct Checked {
    pub post: VariantPost,
    /// What the game says the variant changes (may be empty).
    pub rules: String,
}

/// `post`'s content checked by its game.
pub fn check(post: VariantPost) -> Result<Checked, String> {
    let rules = variant_check(&post.game, &post.content)?;
    Ok(Checked { post, rules })
}

/// `json` checked by `game` ([`TableGame::variant_check`]).
fn variant_check(game: &str, json: &str) -> Result<String, String> {
    struct Check<'a>(&'a str);
    impl Visit for Check<'_> {
        type Out = Result<String, String>;
        fn visit<G: TableGame>(self) -> Self::Out {
            G::variant_check(self.0)
        }
    }
    with_game(game, Check(json))?
}

/// How a game is named around its variants: in the `alt` tag, in the message's subject and
/// in its text. The untagged game's forms are those its events and messages always had.
fn names(game: &str) -> Result<(String, String, String), String> {
    struct Title;
    impl Visit for Title {
        type Out = &'static str;
        fn visit<G: TableGame>(self) -> &'static str {
            G::TITLE
        }
    }
    let title = with_game(game, Title)?;
    Ok(if game == UNTAGGED_GAME {
        (title.into(), "Tolerance".into(), title.into())
    } else {
        (format!("the game {game}"), game.into(), game.into())
    })
}

/// What [`propose`] did.
#[derive(Debug)]
pub struct Proposal {
    pub post: Checked,
    /// The proposal's address, with the relays that took it as hints.
    pub naddr: String,
    pub published: PublishReport,
    /// The private message to the recipient carrying the naddr.
    pub message: Result<SendReport, String>,
}

/// Publishes a variant of `game` (`json`: its variant file as JSON) under `title` (empty: the
/// variant's `name`) addressed to `to`, then sends `to` its naddr in a NIP-17 message. The game
/// checks the variant first: an invalid one is refused before anything is sent. Fails if no
/// relay took the proposal; a failed message is reported in [`Proposal::message`].
pub async fn propose(
    pool: &RelayPool,
    game: &str,
    (name, json): (&str, &str),
    title: &str,
    description: &str,
    to: &PublicKey,
) -> Result<Proposal, String> {
    let rules = variant_check(game, json)?;
    let (alt_game, subject_game, text_game) = names(game)?;
    let fallback_title = if name.trim().is_empty() {
        format!("a {game} variant")
    } else {
        name.to_string()
    };
    let (builder, _) = wv::variant_event(&VariantDraft {
        game,
        content: json,
        title,
        fallback_title: &fallback_title,
        description,
        fallback_summary: &rules,
        alt_game: &alt_game,
        to,
    });
    let event = pool.sign(builder).map_err(|e| e.to_string())?;
    let post = wv::parse_variant_event(&event).map_err(|e| e.to_string())?;
    let (published, naddr, message) = publish_and_tell(
        pool,
        &event,
        post.coordinate(),
        to,
        format!("{subject_game} variant: {}", post.title),
        |naddr| {
            format!(
                "A variant of {text_game} for you to try: {}\n\n{}\n\nnostr:{naddr}",
                post.title, post.description
            )
        },
    )
    .await?;
    Ok(Proposal {
        post: Checked { post, rules },
        naddr,
        published,
        message,
    })
}

/// Publishes a variant event, then sends `to` a private message (subject, text made from the
/// naddr) pointing at it. Fails if no relay took the event.
async fn publish_and_tell(
    pool: &RelayPool,
    event: &Event,
    coordinate: Coordinate,
    to: &PublicKey,
    subject: String,
    text: impl FnOnce(&str) -> String,
) -> Result<(PublishReport, String, Result<SendReport, String>), String> {
    let published = pool
        .publish(event)
        .await
        .map_err(|e| format!("the variant was not published: {e}"))?;
    let naddr = Nip19Coordinate::new(
        coordinate.clone(),
        published.accepted.iter().take(3).cloned(),
    )
    .to_bech32()
    .expect("a coordinate always encodes");
    let tags = vec![
        dm::subject(subject),
        Tag::coordinate(coordinate, published.accepted.first().cloned()),
    ];
    let message = feedback::send(pool, to, &text(&naddr), false, tags)
        .await
        .and_then(|sent| match sent {
            feedback::Sent::Private(r) => Ok(r),
            feedback::Sent::Public { .. } => Err("sent publicly instead of privately".into()),
        });
    Ok((published, naddr, message))
}

/// What [`list`] found.
#[derive(Debug, Default)]
pub struct Listing {
    /// Valid proposals of every game, the newest version of each address; the untagged game's
    /// first, then the others', each newest first.
    pub posts: Vec<Checked>,
    /// Variant events that could not be used: the event, its signer, why.
    pub invalid: Vec<(EventId, PublicKey, String)>,
}

/// Every variant proposal stored on `pool`'s relays, each checked by its game.
pub async fn list(pool: &RelayPool) -> Result<Listing, String> {
    let events = pool
        .fetch_all(Filter::new().kind(Kind::from(KIND_VARIANT)), PAGE, FETCH)
        .await
        .map_err(|e| e.to_string())?;
    let mut posts = Vec::new();
    let mut invalid = Vec::new();
    for e in &events {
        match wv::parse_variant_event(e) {
            Ok(post) => posts.push(post),
            Err(err) => invalid.push((e.id, e.pubkey, err.to_string())),
        }
    }
    let mut listing = Listing {
        posts: Vec::new(),
        invalid,
    };
    for post in newest_per_address(posts) {
        let (id, by) = (post.event_id, post.publisher);
        match check(post) {
            Ok(c) => listing.posts.push(c),
            Err(err) => listing.invalid.push((id, by, err)),
        }
    }
    listing.posts.sort_by(|a, b| {
        (a.post.game != UNTAGGED_GAME)
            .cmp(&(b.post.game != UNTAGGED_GAME))
            .then(b.post.created_at.cmp(&a.post.created_at))
            .then(a.post.event_id.cmp(&b.post.event_id))
    });
    Ok(listing)
}

/// Addressable events replace each other: newest `created_at` wins, ties by lowest id (NIP-01).
fn newest_per_address(posts: Vec<VariantPost>) -> Vec<VariantPost> {
    let mut out: Vec<VariantPost> = Vec::new();
    for p in posts {
        match out
            .iter_mut()
            .find(|q| q.publisher == p.publisher && q.slug == p.slug)
        {
            Some(q) => {
                if (p.created_at, std::cmp::Reverse(p.event_id))
                    > (q.created_at, std::cmp::Reverse(q.event_id))
                {
                    *q = p;
                }
            }
            None => out.push(p),
        }
    }
    out
}

/// The variant an `naddr1…` names, fetched from its relay hints and `relays` and checked by its
/// game. Returns it with the relays asked. A stored event that is not a valid variant is an
/// error naming the bad field.
pub async fn fetch(naddr: &str, relays: &[String]) -> Result<(Checked, Vec<String>), String> {
    let (newest, urls) = fetch_event(naddr, relays).await?;
    let named = |err: String| format!("variant {}: {err}", naddr.trim());
    let post = wv::parse_variant_event(&newest).map_err(|e| named(e.to_string()))?;
    Ok((check(post).map_err(named)?, urls))
}

/// The newest event at the address an `naddr1…` names, from its relay hints and `relays`.
async fn fetch_event(naddr: &str, relays: &[String]) -> Result<(Event, Vec<String>), String> {
    let c = wv::parse_variant_naddr(naddr)?;
    let mut urls: Vec<String> = relays.to_vec();
    for hint in &c.relays {
        if !urls.iter().any(|u| u == hint.as_str()) {
            urls.push(hint.to_string());
        }
    }
    if urls.is_empty() {
        return Err(format!(
            "{} carries no relay hint: pass --relay URL",
            naddr.trim()
        ));
    }
    // Reading needs no identity: a throwaway key signs nothing but a possible NIP-42 AUTH.
    let pool = feedback::connect(Keys::generate(), &urls).await?;
    let events = pool
        .fetch(
            vec![Filter::new()
                .kind(Kind::from(KIND_VARIANT))
                .author(c.public_key)
                .identifier(c.identifier.clone())],
            FETCH,
        )
        .await
        .map_err(|e| e.to_string());
    pool.shutdown().await;
    let newest = events?
        .into_iter()
        .filter(|e| e.pubkey == c.public_key && e.tags.identifier() == Some(&c.identifier))
        .max_by(|a, b| a.created_at.cmp(&b.created_at).then(b.id.cmp(&a.id)))
        .ok_or_else(|| format!("variant {} not found on {}", naddr.trim(), urls.join(", ")))?;
    Ok((newest, urls))
}

fn npub(k: &PublicKey) -> String {
    k.to_bech32().expect("a public key always encodes")
}

/// A published variant as a variant file (`body`: its game's rendering of the JSON), its
/// metadata in comments.
pub fn as_file(post: &VariantPost, naddr: &str, author: Option<&PublicKey>, body: &str) -> String {
    let mut out = if post.game == UNTAGGED_GAME {
        format!("# {}\n", post.title)
    } else {
        format!("# {} (a variant of {})\n", post.title, post.game)
    };
    for line in post.description.lines() {
        out.push_str(&format!("# {line}\n"));
    }
    let mark = |k: &PublicKey| {
        if Some(k) == author {
            format!("{} (the author)", npub(k))
        } else {
            npub(k)
        }
    };
    out.push_str(&format!(
        "# published by {} at {} (unix time)\n",
        mark(&post.publisher),
        post.created_at.as_secs()
    ));
    for to in &post.addressed_to {
        out.push_str(&format!("# proposed to {}\n", mark(to)));
    }
    out.push_str(&format!("# {naddr}\n"));
    out.push_str(body);
    out
}

/// Lines of `tolerance variant list` for one proposal.
pub fn list_lines(listed: &Checked, relays: &[RelayUrl], author: &PublicKey) -> Vec<String> {
    let post = &listed.post;
    let whose = if post.publisher == *author {
        " (the author)"
    } else if post.addressed_to.contains(author) {
        " (proposed to the author)"
    } else {
        ""
    };
    let of = if post.game == UNTAGGED_GAME {
        String::new()
    } else {
        format!("a variant of {}, ", post.game)
    };
    let mut out = vec![
        post.naddr(relays),
        format!("  {} — {of}by {}{whose}", post.title, npub(&post.publisher)),
    ];
    if !listed.rules.is_empty() {
        out.push(format!("  {}", listed.rules));
    }
    let about = post.description.lines().next().unwrap_or("");
    if !about.is_empty() && about != listed.rules {
        out.push(format!("  {about}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tolerance::Variant;

    fn post(publisher: PublicKey, slug: &str, at: u64, blind: u64) -> VariantPost {
        VariantPost {
            game: UNTAGGED_GAME.into(),
            content: Variant {
                blind,
                ..Variant::default()
            }
            .canonical_json(),
            title: slug.into(),
            description: String::new(),
            publisher,
            slug: slug.into(),
            addressed_to: Vec::new(),
            created_at: Timestamp::from_secs(at),
            event_id: EventId::all_zeros(),
        }
    }

    #[test]
    fn the_newest_version_of_each_address_is_kept() {
        let a = Keys::generate().public_key();
        let b = Keys::generate().public_key();
        let kept = newest_per_address(vec![
            post(a, "x", 10, 1),
            post(a, "x", 20, 2),
            post(a, "x", 15, 3),
            post(b, "x", 5, 4),
            post(a, "y", 1, 5),
        ]);
        let blinds: Vec<u64> = kept
            .iter()
            .map(|p| Variant::parse(&p.content).unwrap().blind)
            .collect();
        assert_eq!(blinds, vec![2, 4, 5]);
    }

    #[test]
    fn a_post_is_checked_by_its_game_and_the_error_names_the_field() {
        let a = Keys::generate().public_key();
        let ok = check(post(a, "x", 1, 40)).unwrap();
        assert!(ok.rules.contains("blind 40"), "{}", ok.rules);
        let mut json: serde_json::Value =
            serde_json::from_str(&post(a, "x", 1, 2).content).unwrap();
        json["seats"] = 30.into();
        let bad = VariantPost {
            content: json.to_string(),
            ..post(a, "x", 1, 2)
        };
        let err = check(bad).unwrap_err();
        assert!(err.starts_with("variant field `seats`"), "{err}");
        let unknown = VariantPost {
            game: "tiddlywinks".into(),
            ..post(a, "x", 1, 2)
        };
        assert!(check(unknown)
            .unwrap_err()
            .contains("not a game this program plays"));
        // A game without variant files refuses a published one in words.
        let mia = VariantPost {
            game: "mia".into(),
            ..post(a, "x", 1, 2)
        };
        assert!(check(mia).unwrap_err().contains("cannot be proposed"));
    }
}
