//! A Tolerance variant published as a Nostr object: an addressable event of kind
//! [`KIND_VARIANT`], named by an `naddr`. No I/O. Specified in `protocol/PROTOCOL.md` §11.
//!
//! - `content`: the variant as canonical JSON (the fields of [`Variant`] in declaration order,
//!   no blank space), which [`Variant::parse`] reads back and validates;
//! - `d`: a slug of the title (publishing again under the same title replaces the proposal);
//! - `title`, `summary`: what people see in a list;
//! - `p`: the key the proposal is addressed to (the game's author by default);
//! - `alt` (NIP-31): a one-line description for clients that do not know the kind;
//! - `game`: the game of a variant of another game than The Game of Tolerance (absent:
//!   Tolerance), whose `content` is that game's variant file as JSON — an ArtOfFacts deck file,
//!   say — read and checked by the game itself ([`GameVariantPost`]).

use crate::games::tolerance::variant::{Betting, Style, Variant, VariantError};
use nostr_sdk::prelude::*;

use super::MAX_EVENT_BYTES;

/// Addressable kind of a variant proposal (`d` tag = slug).
pub const KIND_VARIANT: u16 = 37768;
/// Longest title and slug kept.
pub const MAX_TITLE: usize = 80;
pub const MAX_SLUG: usize = 48;
/// Longest description kept.
pub const MAX_DESCRIPTION: usize = 4000;

/// A variant event, read and validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantPost {
    pub variant: Variant,
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

/// Why an event is not a usable variant.
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
    /// The content is not a valid variant; the inner error names the field.
    #[error("{0}")]
    Invalid(#[from] VariantError),
    /// A variant of another game (its `game` tag).
    #[error("event {id} is a variant of {game}, not of The Game of Tolerance")]
    OtherGame { id: EventId, game: String },
}

/// The tag naming the game of a variant of another game than Tolerance.
pub const GAME_TAG: &str = "game";

/// The game a variant event is for: its `game` tag, or Tolerance.
pub fn event_game(e: &Event) -> String {
    e.tags
        .iter()
        .find(|t| t.kind() == TagKind::custom(GAME_TAG))
        .and_then(|t| t.content())
        .unwrap_or("tolerance")
        .to_string()
}

/// A variant of another game, as published: the game reads and checks `content` (its variant
/// file as JSON); the wire knows no game's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameVariantPost {
    pub game: String,
    pub content: String,
    pub title: String,
    pub description: String,
    pub publisher: PublicKey,
    pub slug: String,
    pub addressed_to: Vec<PublicKey>,
    pub created_at: Timestamp,
    pub event_id: EventId,
}

impl GameVariantPost {
    pub fn naddr(&self, relays: &[RelayUrl]) -> String {
        Nip19Coordinate::new(
            variant_coordinate(&self.publisher, &self.slug),
            relays.iter().take(3).cloned(),
        )
        .to_bech32()
        .expect("a coordinate always encodes")
    }
}

/// Builds (unsigned) the event proposing a variant of `game` (`content`: its variant file as
/// JSON, already checked by the game) under `title`, addressed to `to`.
pub fn game_variant_event(
    game: &str,
    content: &str,
    title: &str,
    description: &str,
    to: &PublicKey,
) -> (EventBuilder, String) {
    let title = clip(title, MAX_TITLE);
    let title = if title.is_empty() {
        format!("a {game} variant")
    } else {
        title
    };
    let summary = clip(description, MAX_DESCRIPTION);
    let d = slug(&title);
    let builder = EventBuilder::new(Kind::from(KIND_VARIANT), content).tags([
        Tag::identifier(d.clone()),
        Tag::title(title.clone()),
        Tag::from_standardized(TagStandard::Summary(summary)),
        Tag::public_key(*to),
        Tag::hashtag("tolerance"),
        Tag::custom(TagKind::custom(GAME_TAG), [game.to_string()]),
        Tag::alt(format!("A variant of the game {game}: {title}")),
    ]);
    (builder, d)
}

/// Reads a variant event of another game: kind, signature, size, `d` and `game` tags, a JSON
/// object as content. The game checks the content.
pub fn parse_game_variant_event(e: &Event) -> Result<GameVariantPost, VariantPostError> {
    check_variant_event(e)?;
    let game = event_game(e);
    if !e.content.trim_start().starts_with('{') {
        return Err(VariantError::Syntax("the content is not a JSON object".into()).into());
    }
    let text = |kind: TagKind| {
        e.tags
            .find(kind)
            .and_then(|t| t.content())
            .map(|s| s.to_string())
    };
    Ok(GameVariantPost {
        game,
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

/// The canonical content of a variant event.
pub fn canonical_json(v: &Variant) -> String {
    serde_json::to_string(v).expect("a variant always serialises")
}

/// One line naming what a variant changes, for summaries and lists.
pub fn rules_line(v: &Variant) -> String {
    let mut parts = vec![
        format!("d{}", v.die_sides),
        format!("blind {}", v.blind),
        format!("stacks {}", v.starting_stack),
        format!("up to {} seats", v.seats),
        match v.betting {
            Betting::NoLimit => "no-limit".into(),
            Betting::PotLimit => "pot-limit".into(),
            Betting::FixedLimit { cap } => format!("fixed-limit (cap {cap})"),
        },
    ];
    if v.super_ace {
        parts.push("Super Ace".into());
    }
    if v.card_again {
        parts.push("Card Again".into());
    }
    parts.push(match &v.style {
        Style::Tournament { blind_schedule } if blind_schedule.is_empty() => "tournament".into(),
        Style::Tournament { blind_schedule } => {
            format!("tournament, {} blind levels", blind_schedule.len())
        }
        Style::Cash {
            min_buy_in,
            max_buy_in,
        } => format!("cash {min_buy_in}-{max_buy_in}"),
    });
    parts.join(", ")
}

fn clip(s: &str, max: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(max) {
        Some((at, _)) => s[..at].to_string(),
        None => s.to_string(),
    }
}

/// Builds (unsigned) the event proposing `v` under `title`, addressed to `to`. The variant is
/// validated first: an invalid one is never published.
pub fn variant_event(
    v: &Variant,
    title: &str,
    description: &str,
    to: &PublicKey,
) -> Result<(EventBuilder, String), VariantError> {
    v.validate()?;
    let title = clip(title, MAX_TITLE);
    let title = if title.is_empty() {
        v.name.clone()
    } else {
        title
    };
    let description = clip(description, MAX_DESCRIPTION);
    let summary = if description.is_empty() {
        rules_line(v)
    } else {
        description
    };
    let d = slug(&title);
    let builder = EventBuilder::new(Kind::from(KIND_VARIANT), canonical_json(v)).tags([
        Tag::identifier(d.clone()),
        Tag::title(title.clone()),
        Tag::from_standardized(TagStandard::Summary(summary)),
        Tag::public_key(*to),
        Tag::hashtag("tolerance"),
        Tag::alt(format!("A variant of The Game of Tolerance: {title}")),
    ]);
    Ok((builder, d))
}

/// Reads a variant event: kind, signature, size, `d` tag, then the variant itself with the
/// same validation (and errors naming the field) as a variant file.
pub fn parse_variant_event(e: &Event) -> Result<VariantPost, VariantPostError> {
    check_variant_event(e)?;
    let game = event_game(e);
    if game != "tolerance" {
        return Err(VariantPostError::OtherGame { id: e.id, game });
    }
    let slug = e
        .tags
        .identifier()
        .ok_or(VariantPostError::NoSlug { id: e.id })?
        .to_string();
    // Only JSON is published; a TOML content would be another client's invention.
    if !e.content.trim_start().starts_with('{') {
        return Err(VariantError::Syntax("the content is not a JSON object".into()).into());
    }
    let variant = Variant::parse(&e.content)?;
    let text = |kind: TagKind| {
        e.tags
            .find(kind)
            .and_then(|t| t.content())
            .map(|s| s.to_string())
    };
    Ok(VariantPost {
        variant,
        title: clip(&text(TagKind::Title).unwrap_or_default(), MAX_TITLE),
        description: clip(&text(TagKind::Summary).unwrap_or_default(), MAX_DESCRIPTION),
        publisher: e.pubkey,
        slug,
        addressed_to: e.tags.public_keys().copied().collect(),
        created_at: e.created_at,
        event_id: e.id,
    })
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

    #[test]
    fn a_variant_of_another_game_round_trips_and_is_not_read_as_tolerance() {
        let keys = Keys::generate();
        let author = Keys::generate().public_key();
        let content = r#"{"name":"real deck","feather":"feather","cards":[]}"#;
        let (b, d) = game_variant_event("art-of-facts", content, "The real deck", "", &author);
        assert_eq!(d, "the-real-deck");
        let e = b.sign_with_keys(&keys).unwrap();
        assert_eq!(event_game(&e), "art-of-facts");
        let post = parse_game_variant_event(&e).unwrap();
        assert_eq!(post.game, "art-of-facts");
        assert_eq!(post.content, content);
        assert_eq!(post.addressed_to, vec![author]);
        let err = parse_variant_event(&e).unwrap_err().to_string();
        assert!(err.contains("a variant of art-of-facts"), "{err}");
    }

    #[test]
    fn slugs_are_tame() {
        assert_eq!(slug("Super Ace, d12!"), "super-ace-d12");
        assert_eq!(slug("  --  "), "variant");
        assert_eq!(slug("Écarté"), "cart");
        assert!(slug(&"x".repeat(500)).len() <= MAX_SLUG);
    }

    #[test]
    fn a_variant_event_round_trips_and_names_bad_fields() {
        let keys = Keys::generate();
        let author = Keys::generate().public_key();
        let v = Variant {
            name: "big blinds".into(),
            blind: 25,
            starting_stack: 700,
            die_sides: 12,
            ..Variant::builtin("super-ace").unwrap()
        };
        let (b, d) = variant_event(&v, "Big blinds", "", &author).unwrap();
        assert_eq!(d, "big-blinds");
        let e = b.sign_with_keys(&keys).unwrap();
        let post = parse_variant_event(&e).unwrap();
        assert_eq!(post.variant, v);
        assert_eq!(post.title, "Big blinds");
        assert_eq!(post.description, rules_line(&v));
        assert_eq!(post.addressed_to, vec![author]);
        assert_eq!(post.publisher, keys.public_key());
        let naddr = post.naddr(&[RelayUrl::parse("ws://127.0.0.1:7447").unwrap()]);
        let c = parse_variant_naddr(&naddr).unwrap();
        assert_eq!(c.coordinate, post.coordinate());
        assert_eq!(c.relays.len(), 1);

        let bad = Variant {
            seats: 30,
            ..v.clone()
        };
        assert!(matches!(
            variant_event(&bad, "x", "", &author),
            Err(VariantError::Field { field: "seats", .. })
        ));
        // Someone else's client publishes an invalid one: reading it names the field.
        let mut json: serde_json::Value = serde_json::from_str(&canonical_json(&v)).unwrap();
        json["die_sides"] = 1.into();
        let forged = EventBuilder::new(Kind::from(KIND_VARIANT), json.to_string())
            .tag(Tag::identifier("x"))
            .sign_with_keys(&keys)
            .unwrap();
        let err = parse_variant_event(&forged).unwrap_err().to_string();
        assert!(err.starts_with("variant field `die_sides`"), "{err}");

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
