//! Variants shared over Nostr ([`crate::wire::variant`] has the event format): propose one
//! (publish it, then send the author its `naddr` privately), list those on the relays, fetch one
//! by `naddr`, and turn any `--variant` argument — a built-in name, an `naddr1…` or a file — into
//! validated rules.

use std::time::Duration;

use nostr_sdk::prelude::*;

use crate::feedback;
use crate::games::tolerance::Variant;
use crate::net::dm::{self, SendReport};
use crate::net::{PublishReport, RelayPool};
use crate::wire::variant::{self as wv, GameVariantPost, VariantPost, KIND_VARIANT};

/// Bound on fetching stored variants.
const FETCH: Duration = Duration::from_secs(5);
/// Page size when listing (relays cap results per request).
const PAGE: usize = 500;

/// What [`propose`] did.
#[derive(Debug)]
pub struct Proposal {
    pub post: VariantPost,
    /// The proposal's address, with the relays that took it as hints.
    pub naddr: String,
    pub published: PublishReport,
    /// The private message to the recipient carrying the naddr.
    pub message: Result<SendReport, String>,
}

/// Publishes `v` as a variant proposal addressed to `to`, then sends `to` its naddr in a NIP-17
/// message. An invalid variant is refused before anything is sent. Fails if no relay took the
/// proposal; a failed message is reported in [`Proposal::message`].
pub async fn propose(
    pool: &RelayPool,
    v: &Variant,
    title: &str,
    description: &str,
    to: &PublicKey,
) -> Result<Proposal, String> {
    let (builder, _) = wv::variant_event(v, title, description, to).map_err(|e| e.to_string())?;
    let event = pool.sign(builder).map_err(|e| e.to_string())?;
    let post = wv::parse_variant_event(&event).map_err(|e| e.to_string())?;
    let (published, naddr, message) = publish_and_tell(
        pool,
        &event,
        post.coordinate(),
        to,
        format!("Tolerance variant: {}", post.title),
        |naddr| {
            format!(
                "A variant of The Game of Tolerance for you to try: {}\n\n{}\n\nnostr:{naddr}",
                post.title, post.description
            )
        },
    )
    .await?;
    Ok(Proposal {
        post,
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

/// What [`propose_game`] did.
#[derive(Debug)]
pub struct GameProposal {
    pub post: GameVariantPost,
    pub naddr: String,
    pub published: PublishReport,
    pub message: Result<SendReport, String>,
}

/// Publishes a variant of another game (`json`: its variant file, checked by the game, e.g. an
/// ArtOfFacts deck) addressed to `to`, then sends `to` its naddr privately.
pub async fn propose_game(
    pool: &RelayPool,
    game: &str,
    json: &str,
    title: &str,
    description: &str,
    to: &PublicKey,
) -> Result<GameProposal, String> {
    let (builder, _) = wv::game_variant_event(game, json, title, description, to);
    let event = pool.sign(builder).map_err(|e| e.to_string())?;
    let post = wv::parse_game_variant_event(&event).map_err(|e| e.to_string())?;
    let coordinate = wv::variant_coordinate(&post.publisher, &post.slug);
    let (published, naddr, message) = publish_and_tell(
        pool,
        &event,
        coordinate,
        to,
        format!("{game} variant: {}", post.title),
        |naddr| {
            format!(
                "A variant of {game} for you to try: {}\n\n{}\n\nnostr:{naddr}",
                post.title, post.description
            )
        },
    )
    .await?;
    Ok(GameProposal {
        post,
        naddr,
        published,
        message,
    })
}

/// What [`list`] found.
#[derive(Debug, Default)]
pub struct Listing {
    /// Valid proposals, the newest version of each address, newest first.
    pub posts: Vec<VariantPost>,
    /// Variants of other games (an ArtOfFacts deck...), newest first; their games check them.
    pub games: Vec<GameVariantPost>,
    /// Variant events that could not be used: the event, its signer, why.
    pub invalid: Vec<(EventId, PublicKey, String)>,
}

/// Every variant proposal stored on `pool`'s relays.
pub async fn list(pool: &RelayPool) -> Result<Listing, String> {
    let events = pool
        .fetch_all(Filter::new().kind(Kind::from(KIND_VARIANT)), PAGE, FETCH)
        .await
        .map_err(|e| e.to_string())?;
    let mut listing = Listing::default();
    for e in &events {
        if wv::event_game(e) != "tolerance" {
            match wv::parse_game_variant_event(e) {
                Ok(post) => listing.games.push(post),
                Err(err) => listing.invalid.push((e.id, e.pubkey, err.to_string())),
            }
            continue;
        }
        match wv::parse_variant_event(e) {
            Ok(post) => listing.posts.push(post),
            Err(err) => listing.invalid.push((e.id, e.pubkey, err.to_string())),
        }
    }
    listing.posts = newest_per_address(listing.posts);
    listing.games.sort_by(|a, b| {
        b.created_at
            .cmp(&a.created_at)
            .then(a.event_id.cmp(&b.event_id))
    });
    let mut seen = Vec::new();
    listing.games.retain(|p| {
        let key = (p.publisher, p.slug.clone());
        let fresh = !seen.contains(&key);
        seen.push(key);
        fresh
    });
    listing.posts.sort_by(|a, b| {
        b.created_at
            .cmp(&a.created_at)
            .then(a.event_id.cmp(&b.event_id))
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

/// The variant an `naddr1…` names, fetched from its relay hints and `relays`. Returns it with the
/// relays asked. A stored event that is not a valid variant is an error naming the bad field.
pub async fn fetch(naddr: &str, relays: &[String]) -> Result<(VariantPost, Vec<String>), String> {
    let (newest, urls) = fetch_event(naddr, relays).await?;
    let post =
        wv::parse_variant_event(&newest).map_err(|e| format!("variant {}: {e}", naddr.trim()))?;
    Ok((post, urls))
}

/// A published variant of any game: Tolerance's read and checked, another game's as its game's
/// JSON (for the game to check).
#[derive(Debug, Clone)]
pub enum AnyVariant {
    Tolerance(VariantPost),
    Game(GameVariantPost),
}

/// The variant an `naddr1…` names, whatever its game.
pub async fn fetch_any(naddr: &str, relays: &[String]) -> Result<AnyVariant, String> {
    let (e, _) = fetch_event(naddr, relays).await?;
    let named = |err: wv::VariantPostError| format!("variant {}: {err}", naddr.trim());
    if wv::event_game(&e) == "tolerance" {
        Ok(AnyVariant::Tolerance(
            wv::parse_variant_event(&e).map_err(named)?,
        ))
    } else {
        Ok(AnyVariant::Game(
            wv::parse_game_variant_event(&e).map_err(named)?,
        ))
    }
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

/// Rules from a `--variant` argument: a built-in name, an `naddr1…` of a published variant
/// (fetched from its hints and `relays`), or a variant file.
pub async fn resolve_variant(arg: &str, relays: &[String]) -> Result<Variant, String> {
    if let Some(v) = Variant::builtin(arg) {
        return Ok(v);
    }
    if arg.trim().starts_with("naddr1") {
        return Ok(fetch(arg, relays).await?.0.variant);
    }
    load_variant(arg)
}

/// A built-in variant by name, or a variant file.
pub fn load_variant(arg: &str) -> Result<Variant, String> {
    if let Some(v) = Variant::builtin(arg) {
        return Ok(v);
    }
    let text = std::fs::read_to_string(arg).map_err(|e| {
        format!(
            "'{arg}' is neither a built-in variant ({}) nor a readable file: {e}",
            Variant::BUILTIN.join(", ")
        )
    })?;
    Variant::parse(&text).map_err(|e| format!("{arg}: {e}"))
}

/// A published variant as a variant file: its metadata in comments, then the rules.
pub fn as_file(post: &VariantPost, naddr: &str, author: Option<&PublicKey>) -> String {
    let npub = |k: &PublicKey| k.to_bech32().expect("a public key always encodes");
    let mut out = format!("# {}\n", post.title);
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
    out.push_str(&crate::games::tolerance::variant::commented_toml(
        &post.variant,
    ));
    out
}

/// A published variant of another game as its variant file (`variant file` is the game's own
/// rendering of the JSON), its metadata in comments.
pub fn game_as_file(post: &GameVariantPost, naddr: &str, body: &str) -> String {
    let npub = post
        .publisher
        .to_bech32()
        .expect("a public key always encodes");
    let mut out = format!("# {} (a variant of {})\n", post.title, post.game);
    for line in post.description.lines() {
        out.push_str(&format!("# {line}\n"));
    }
    out.push_str(&format!(
        "# published by {npub} at {} (unix time)\n# {naddr}\n",
        post.created_at.as_secs()
    ));
    out.push_str(body);
    out
}

/// Lines of `tolerance variant list` for one proposal of another game.
pub fn game_list_lines(
    post: &GameVariantPost,
    relays: &[RelayUrl],
    author: &PublicKey,
) -> Vec<String> {
    let npub = post
        .publisher
        .to_bech32()
        .expect("a public key always encodes");
    let whose = if post.publisher == *author {
        " (the author)"
    } else if post.addressed_to.contains(author) {
        " (proposed to the author)"
    } else {
        ""
    };
    vec![
        post.naddr(relays),
        format!(
            "  {} — a variant of {}, by {npub}{whose}",
            post.title, post.game
        ),
    ]
}

/// Lines of `tolerance variant list` for one proposal.
pub fn list_lines(post: &VariantPost, relays: &[RelayUrl], author: &PublicKey) -> Vec<String> {
    let npub = post
        .publisher
        .to_bech32()
        .expect("a public key always encodes");
    let whose = if post.publisher == *author {
        " (the author)"
    } else if post.addressed_to.contains(author) {
        " (proposed to the author)"
    } else {
        ""
    };
    let mut out = vec![
        post.naddr(relays),
        format!("  {} — by {npub}{whose}", post.title),
        format!("  {}", wv::rules_line(&post.variant)),
    ];
    let about = post.description.lines().next().unwrap_or("");
    if !about.is_empty() && about != wv::rules_line(&post.variant) {
        out.push(format!("  {about}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(publisher: PublicKey, slug: &str, at: u64, blind: u64) -> VariantPost {
        VariantPost {
            variant: Variant {
                blind,
                ..Variant::default()
            },
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
        let blinds: Vec<u64> = kept.iter().map(|p| p.variant.blind).collect();
        assert_eq!(blinds, vec![2, 4, 5]);
    }
}
