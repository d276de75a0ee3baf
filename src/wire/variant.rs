//! A game's variant published as a Nostr object: an addressable event of kind
//! [`KIND_VARIANT`], named by an `naddr`. No I/O, and no game: the event carries a game's name
//! and its variant file as JSON, and that game reads and checks it
//! (`crate::games::registry::TableGame::variant_check`). Specified in `protocol/PROTOCOL.md` §11.
//!
//! - `content`: the variant as the game's JSON (a JSON object; The Game of Tolerance writes its
//!   variant fields in declaration order, no blank space);
//! - `d`: a slug of the title (publishing again under the same title replaces the proposal);
//! - `title`, `summary`: what people see in a list;
//! - `p`: the key the proposal is addressed to (the game's author by default);
//! - `alt` (NIP-31): a one-line description for clients that do not know the kind;
//! - `game`: the game, absent for [`UNTAGGED_GAME`]'s variants (published before the tag
//!   existed, and still published without it so that older clients read them).

use nostr::prelude::*;

use super::MAX_EVENT_BYTES;

/// Addressable kind of a variant proposal (`d` tag = slug).
pub const KIND_VARIANT: u16 = 37768;
/// Longest title and slug kept.
pub const MAX_TITLE: usize = 80;
pub const MAX_SLUG: usize = 48;
/// Longest description kept.
pub const MAX_DESCRIPTION: usize = 4000;

/// The tag naming the game of a variant.
pub const GAME_TAG: &str = "game";

/// The game a variant event without a `game` tag is for. Variant events began before the tag,
/// for the one game there was; that game's variants still go without it, so this name is part
/// of the wire format, not knowledge of the game.
pub const UNTAGGED_GAME: &str = "tolerance";

/// A variant event, read: its game and the game's JSON (unchecked here), its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantPost {
    /// The game (its `game` tag, or [`UNTAGGED_GAME`]).
    pub game: String,
    /// The game's variant file as JSON, for the game to check.
    pub content: String,
    pub title: String,
    pub description: String,
    /// Who published it (the event's signer).
    pub publisher: PublicKey,
    /// The `d` tag.
    pub slug: String,
    /// Keys it is addressed to (`p` tags).
    pub addressed_to: Vec<PublicKey>,
    pub created_at: Timestamp,
    pub event_id: EventId,
}

impl VariantPost {
    pub fn coordinate(&self) -> Coordinate {
        variant_coordinate(&self.publisher, &self.slug)
    }

    /// The proposal as an `naddr` with `relays` as hints.
    pub fn naddr(&self, relays: &[RelayUrl]) -> String {
        Nip19Coordinate::new(self.coordinate(), relays.iter().take(3).cloned())
            .to_bech32()
            .expect("a coordinate always encodes")
    }
}

/// Why an event is not a usable variant event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantPostError {
    #[error("event {id} has kind {kind}, not a variant (kind {KIND_VARIANT})")]
    WrongKind { id: EventId, kind: u16 },
    #[error("event {id} has a bad signature or id")]
    BadSignature { id: EventId },
    #[error("event {id} is {size} bytes, over the {MAX_EVENT_BYTES}-byte limit")]
    TooLarge { id: EventId, size: usize },
    #[error("event {id} has no `d` tag")]
    NoSlug { id: EventId },
    #[error("event {id}: the content is not a JSON object")]
    NotJson { id: EventId },
}

/// The game a variant event is for: its `game` tag, or [`UNTAGGED_GAME`].
pub fn event_game(e: &Event) -> String {
    e.tags
        .iter()
        .find(|t| t.kind() == TagKind::custom(GAME_TAG))
        .and_then(|t| t.content())
        .unwrap_or(UNTAGGED_GAME)
        .to_string()
}

/// What a variant event says, before it is built.
#[derive(Debug, Clone)]
pub struct VariantDraft<'a> {
    /// The game's name; [`UNTAGGED_GAME`] gets no `game` tag.
    pub game: &'a str,
    /// The game's variant file as JSON, already checked by the game.
    pub content: &'a str,
    /// The title; empty: `fallback_title`.
    pub title: &'a str,
    pub fallback_title: &'a str,
    /// The summary; empty: `fallback_summary` (one line of the rules, say).
    pub description: &'a str,
    pub fallback_summary: &'a str,
    /// The game as the `alt` tag names it ("The Game of Tolerance", "the game art-of-facts").
    pub alt_game: &'a str,
    /// The key the proposal is addressed to.
    pub to: &'a PublicKey,
}

/// Builds (unsigned) the event proposing a variant, and its `d` tag.
pub fn variant_event(draft: &VariantDraft) -> (EventBuilder, String) {
    let title = clip(draft.title, MAX_TITLE);
    let title = if title.is_empty() {
        clip(draft.fallback_title, MAX_TITLE)
    } else {
        title
    };
    let summary = clip(draft.description, MAX_DESCRIPTION);
    let summary = if summary.is_empty() {
        clip(draft.fallback_summary, MAX_DESCRIPTION)
    } else {
        summary
    };
    let d = slug(&title);
    let mut tags = vec![
        Tag::identifier(d.clone()),
        Tag::title(title.clone()),
        Tag::from_standardized(TagStandard::Summary(summary)),
        Tag::public_key(*draft.to),
        Tag::hashtag("tolerance"),
    ];
    if draft.game != UNTAGGED_GAME {
        tags.push(Tag::custom(
            TagKind::custom(GAME_TAG),
            [draft.game.to_string()],
        ));
    }
    tags.push(Tag::alt(format!(
        "A variant of {}: {title}",
        draft.alt_game
    )));
    (
        EventBuilder::new(Kind::from(KIND_VARIANT), draft.content).tags(tags),
        d,
    )
}

/// Reads a variant event: kind, signature, size, `d` tag, a JSON object as content, and its
/// game. The game checks the content.
pub fn parse_variant_event(e: &Event) -> Result<VariantPost, VariantPostError> {
    check_variant_event(e)?;
    // Only JSON is published; a TOML content would be another client's invention.
    if !e.content.trim_start().starts_with('{') {
        return Err(VariantPostError::NotJson { id: e.id });
    }
    let text = |kind: TagKind| {
        e.tags
            .find(kind)
            .and_then(|t| t.content())
            .map(|s| s.to_string())
    };
    Ok(VariantPost {
        game: event_game(e),
        content: e.content.clone(),
        title: clip(&text(TagKind::Title).unwrap_or_default(), MAX_TITLE),
        description: clip(&text(TagKind::Summary).unwrap_or_default(), MAX_DESCRIPTION),
        publisher: e.pubkey,
        slug: e
            .tags
            .identifier()
            .ok_or(VariantPostError::NoSlug { id: e.id })?
            .to_string(),
        addressed_to: e.tags.public_keys().copied().collect(),
        created_at: e.created_at,
        event_id: e.id,
    })
}

/// What every variant event must be: the kind, within the size limit, signed, with a `d` tag.
fn check_variant_event(e: &Event) -> Result<(), VariantPostError> {
    if e.kind != Kind::from(KIND_VARIANT) {
        return Err(VariantPostError::WrongKind {
            id: e.id,
            kind: e.kind.as_u16(),
        });
    }
    let size = e.as_json().len();
    if size > MAX_EVENT_BYTES {
        return Err(VariantPostError::TooLarge { id: e.id, size });
    }
    if e.verify().is_err() {
        return Err(VariantPostError::BadSignature { id: e.id });
    }
    if e.tags.identifier().is_none() {
        return Err(VariantPostError::NoSlug { id: e.id });
    }
    Ok(())
}

/// `title` made into a `d` tag: lower-case letters, digits and single dashes.
pub fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= MAX_SLUG {
            break;
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "variant".into()
    } else {
        out.to_string()
    }
}

/// The coordinate of `publisher`'s variant `slug`.
pub fn variant_coordinate(publisher: &PublicKey, slug: &str) -> Coordinate {
    Coordinate::new(Kind::from(KIND_VARIANT), *publisher).identifier(slug)
}

fn clip(s: &str, max: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(max) {
        Some((at, _)) => s[..at].to_string(),
        None => s.to_string(),
    }
}

/// `naddr1…` text naming a variant: its coordinate and relay hints.
pub fn parse_variant_naddr(text: &str) -> Result<Nip19Coordinate, String> {
    let t = text.trim();
    let c = Nip19Coordinate::from_bech32(t)
        .map_err(|_| format!("'{t}' is not an naddr1… of a variant"))?;
    if c.kind != Kind::from(KIND_VARIANT) {
        return Err(format!(
            "'{t}' names a kind {} event, not a variant (kind {KIND_VARIANT})",
            c.kind.as_u16()
        ));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft<'a>(game: &'a str, content: &'a str, to: &'a PublicKey) -> VariantDraft<'a> {
        VariantDraft {
            game,
            content,
            title: "",
            fallback_title: "a fallback",
            description: "",
            fallback_summary: "one line of rules",
            alt_game: "the game x",
            to,
        }
    }

    #[test]
    fn a_variant_of_a_tagged_game_round_trips() {
        let keys = Keys::generate();
        let author = Keys::generate().public_key();
        let content = r#"{"name":"real deck","feather":"feather","cards":[]}"#;
        let (b, d) = variant_event(&VariantDraft {
            title: "The real deck",
            alt_game: "the game art-of-facts",
            ..draft("art-of-facts", content, &author)
        });
        assert_eq!(d, "the-real-deck");
        let e = b.sign_with_keys(&keys).unwrap();
        assert_eq!(event_game(&e), "art-of-facts");
        let post = parse_variant_event(&e).unwrap();
        assert_eq!(post.game, "art-of-facts");
        assert_eq!(post.content, content);
        assert_eq!(post.title, "The real deck");
        assert_eq!(post.description, "one line of rules");
        assert_eq!(post.addressed_to, vec![author]);
        assert_eq!(post.publisher, keys.public_key());
        let naddr = post.naddr(&[RelayUrl::parse("ws://127.0.0.1:7447").unwrap()]);
        let c = parse_variant_naddr(&naddr).unwrap();
        assert_eq!(c.coordinate, post.coordinate());
        assert_eq!(c.relays.len(), 1);
    }

    /// The untagged game's events carry exactly the tags they always did, in the same order:
    /// older clients read them, and their ids do not change.
    #[test]
    fn the_untagged_games_events_keep_their_tags() {
        let keys = Keys::generate();
        let author = Keys::generate().public_key();
        let (b, d) = variant_event(&VariantDraft {
            title: "Big blinds",
            alt_game: "The Game of Tolerance",
            ..draft(UNTAGGED_GAME, "{}", &author)
        });
        let e = b.sign_with_keys(&keys).unwrap();
        let tags: Vec<Vec<String>> = e.tags.iter().map(|t| t.clone().to_vec()).collect();
        assert_eq!(
            tags,
            vec![
                vec!["d".to_string(), d.clone()],
                vec!["title".into(), "Big blinds".into()],
                vec!["summary".into(), "one line of rules".into()],
                vec!["p".into(), author.to_hex()],
                vec!["t".into(), "tolerance".into()],
                vec![
                    "alt".into(),
                    "A variant of The Game of Tolerance: Big blinds".into()
                ],
            ]
        );
        assert_eq!(event_game(&e), UNTAGGED_GAME);
        assert_eq!(parse_variant_event(&e).unwrap().game, UNTAGGED_GAME);
    }

    #[test]
    fn events_that_are_not_variants_are_refused_in_words() {
        let keys = Keys::generate();
        let note = EventBuilder::text_note("hi").sign_with_keys(&keys).unwrap();
        let err = parse_variant_event(&note).unwrap_err().to_string();
        assert!(err.contains("not a variant (kind 37768)"), "{err}");
        let toml = EventBuilder::new(Kind::from(KIND_VARIANT), "blind = 3")
            .tag(Tag::identifier("x"))
            .sign_with_keys(&keys)
            .unwrap();
        let err = parse_variant_event(&toml).unwrap_err().to_string();
        assert!(err.contains("not a JSON object"), "{err}");
        let no_d = EventBuilder::new(Kind::from(KIND_VARIANT), "{}")
            .sign_with_keys(&keys)
            .unwrap();
        let err = parse_variant_event(&no_d).unwrap_err().to_string();
        assert!(err.contains("no `d` tag"), "{err}");
    }

    #[test]
    fn slugs_are_tame() {
        assert_eq!(slug("Super Ace, d12!"), "super-ace-d12");
        assert_eq!(slug("  --  "), "variant");
        assert_eq!(slug("Écarté"), "cart");
        assert!(slug(&"x".repeat(500)).len() <= MAX_SLUG);
    }

    #[test]
    fn naddrs_of_other_kinds_are_not_variants() {
        let keys = Keys::generate();
        let table = Nip19Coordinate::new(
            Coordinate::new(Kind::from(super::super::KIND_TABLE), keys.public_key())
                .identifier("t"),
            Vec::<RelayUrl>::new(),
        )
        .to_bech32()
        .unwrap();
        assert!(parse_variant_naddr(&table)
            .unwrap_err()
            .contains("not a variant"));
        assert!(parse_variant_naddr("naddr1zzz")
            .unwrap_err()
            .contains("is not an naddr1"));
    }
}
