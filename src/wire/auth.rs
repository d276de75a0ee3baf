//! Table keys: a person's identity authorizes, once per table, a fresh key to hold its seat
//! (`protocol/PROTOCOL.md` §2.3). The authorization is an ordinary event of kind [`KIND_AUTH`]
//! so that any signer can make it — a NIP-07 extension or a NIP-46 bunker signs events of any
//! kind and nothing else, which rules out NIP-26 delegation tokens. No I/O, no clock: the time
//! an authorization is judged at is the announcement's own `created_at`, passed in.

use super::table_coordinate;
use nostr::prelude::*;

/// Regular kind of an identity's authorization of a table key. Never published on its own: it
/// travels inside a join request and the announcement's lobby players.
pub const KIND_AUTH: u16 = 7770;
/// Largest authorization accepted (NIP-01 JSON): every seat's sits in one announcement.
pub const MAX_AUTH_BYTES: usize = 1024;

/// How long past the lobby's own expiry, beyond the nonce rounds, an authorization must stay
/// good for a host to list it: the seating comes after the last join.
pub const SEATING_MARGIN_SECS: u64 = 300;
/// How long past [`seated_by`] the authorizations this project's clients sign stay good, so a
/// key stolen before its table started is useless soon after.
pub const AUTH_MARGIN_SECS: u64 = 3600;

/// The latest an authorization listed at a lobby expiring at `lobby_expires` (Unix seconds)
/// may need to hold: the host waits up to the table's crypto deadline for each of two rounds of
/// nonces after the last join (§2.3). A host lists no authorization that lapses by then.
pub fn seated_by(lobby_expires: u64, deadlines: &super::Deadlines) -> u64 {
    lobby_expires + SEATING_MARGIN_SECS + 2 * deadlines.crypto_ms.div_ceil(1000)
}

/// The expiry this project's signers put on an authorization at a lobby expiring at
/// `lobby_expires` (the terminal's `join`/`host` and the page alike): [`AUTH_MARGIN_SECS`] past
/// [`seated_by`].
pub fn asked_expiry(lobby_expires: u64, deadlines: &super::Deadlines) -> u64 {
    seated_by(lobby_expires, deadlines) + AUTH_MARGIN_SECS
}

/// Why an authorization does not seat its key, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("the authorization is {0} bytes, over the {MAX_AUTH_BYTES}-byte limit")]
    TooLarge(usize),
    #[error("the authorization is an event of kind {0}, not {KIND_AUTH}")]
    WrongKind(u16),
    #[error(
        "the authorization claiming to be by {0} is not signed by that key (a forgery or a \
         damaged event)"
    )]
    Forged(String),
    #[error("the authorization {0}")]
    Tags(String),
    #[error("the authorization by {by} is for another table ({got}), not this one ({want})")]
    OtherTable {
        by: String,
        got: String,
        want: String,
    },
    #[error("the authorization by {by} names the key {named}, not the key {key} that presents it")]
    OtherKey {
        by: String,
        named: String,
        key: String,
    },
    #[error("the authorization by {by} names its own key: an identity needs no authorization")]
    OwnKey { by: String },
    #[error(
        "the authorization by {by} expired at {expired} (Unix seconds), before the table was \
         announced at {at}"
    )]
    Expired { by: String, expired: u64, at: u64 },
}

fn npub(pk: &PublicKey) -> String {
    pk.to_bech32().unwrap_or_else(|_| pk.to_hex())
}

/// What an authorization says, once read (not yet held against a table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    /// Who authorizes: the person's identity, shown for the seat.
    pub identity: PublicKey,
    /// The key it lets hold the seat.
    pub table_key: PublicKey,
    /// `37767:<host>:<table id>`, as tagged.
    pub coordinate: String,
    /// Unix seconds (NIP-40 `expiration`).
    pub expires: u64,
}

/// The unsigned authorization for `table_key` at `host`'s `table` until `expires`: what the
/// identity signs (locally, or through a NIP-07/NIP-46 signer, which shows it the content).
pub fn auth_event(
    table_key: &PublicKey,
    host: &PublicKey,
    table: &str,
    expires: u64,
) -> EventBuilder {
    let until = chrono_free_utc(expires);
    let content = format!(
        "tolerance: {} (a key made for this table) plays my seat at table {} until {until}",
        npub(table_key),
        &table[..table.len().min(16)]
    );
    EventBuilder::new(Kind::from(KIND_AUTH), content).tags([
        Tag::coordinate(table_coordinate(host, table), None),
        Tag::public_key(*table_key),
        Tag::expiration(Timestamp::from(expires)),
    ])
}

/// "2026-12-01 00:51 UTC" from Unix seconds, for the words a signer shows its person.
fn chrono_free_utc(secs: u64) -> String {
    // Civil-from-days (Howard Hinnant's algorithm): no calendar crate for one line of words.
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// Reads an authorization: size, kind, signature and its three tags, each exactly once.
pub fn parse_auth(ev: &Event) -> Result<Authorization, AuthError> {
    let size = ev.as_json().len();
    if size > MAX_AUTH_BYTES {
        return Err(AuthError::TooLarge(size));
    }
    if ev.kind.as_u16() != KIND_AUTH {
        return Err(AuthError::WrongKind(ev.kind.as_u16()));
    }
    ev.verify()
        .map_err(|_| AuthError::Forged(npub(&ev.pubkey)))?;
    let one = |name: &str| -> Result<String, AuthError> {
        let vals: Vec<&Tag> = ev
            .tags
            .iter()
            .filter(|t| t.as_slice().first().map(String::as_str) == Some(name))
            .collect();
        match vals.as_slice() {
            [t] => t
                .content()
                .map(str::to_string)
                .ok_or_else(|| AuthError::Tags(format!("has an empty {name} tag"))),
            [] => Err(AuthError::Tags(format!("has no {name} tag"))),
            _ => Err(AuthError::Tags(format!("has more than one {name} tag"))),
        }
    };
    let coordinate = one("a")?;
    let p = one("p")?;
    let table_key = PublicKey::from_hex(&p)
        .map_err(|_| AuthError::Tags(format!("names '{p}', which is not a public key")))?;
    let exp = one("expiration")?;
    let expires: u64 = exp
        .parse()
        .map_err(|_| AuthError::Tags(format!("expires at '{exp}', which is not a time")))?;
    if table_key == ev.pubkey {
        return Err(AuthError::OwnKey {
            by: npub(&ev.pubkey),
        });
    }
    Ok(Authorization {
        identity: ev.pubkey,
        table_key,
        coordinate,
        expires,
    })
}

/// When `ev` stops authorizing its key (Unix seconds); 0 for an event that is not an
/// authorization, which holds at no time.
pub fn expires_at(ev: &Event) -> u64 {
    parse_auth(ev).map_or(0, |a| a.expires)
}

/// Checks that `ev` lets `key` hold a seat at `host`'s `table`, judged at `at` (the Unix
/// seconds of the announcement that lists it, or the host's clock when it takes the join).
/// The identity it authorizes for.
pub fn check_auth(
    ev: &Event,
    host: &PublicKey,
    table: &str,
    key: &PublicKey,
    at: u64,
) -> Result<PublicKey, AuthError> {
    let a = parse_auth(ev)?;
    let by = npub(&a.identity);
    let want = table_coordinate(host, table).to_string();
    if a.coordinate != want {
        return Err(AuthError::OtherTable {
            by,
            got: a.coordinate,
            want,
        });
    }
    if a.table_key != *key {
        return Err(AuthError::OtherKey {
            by,
            named: npub(&a.table_key),
            key: npub(key),
        });
    }
    if a.expires <= at {
        return Err(AuthError::Expired {
            by,
            expired: a.expires,
            at,
        });
    }
    Ok(a.identity)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> String {
        hex::encode([5u8; 32])
    }

    #[test]
    fn an_authorization_seats_its_key_at_its_table_until_it_expires() {
        let (identity, key, host) = (Keys::generate(), Keys::generate(), Keys::generate());
        let ev = auth_event(&key.public_key(), &host.public_key(), &table(), 2_000)
            .sign_with_keys(&identity)
            .unwrap();
        // Every seat's sits in the announcement (PROTOCOL §2.3 counts on about this size).
        assert!(ev.as_json().len() < 800, "{}", ev.as_json().len());
        assert!(
            ev.content.contains("1970-01-01 00:33 UTC"),
            "{}",
            ev.content
        );
        let at = |t: u64| check_auth(&ev, &host.public_key(), &table(), &key.public_key(), t);
        assert_eq!(at(1_999), Ok(identity.public_key()));
        let e = at(2_000).unwrap_err().to_string();
        assert!(e.contains("expired at 2000"), "{e}");
        // Another table, another host, another key.
        let e = check_auth(
            &ev,
            &host.public_key(),
            &hex::encode([6u8; 32]),
            &key.public_key(),
            1,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("for another table"), "{e}");
        let e = check_auth(&ev, &key.public_key(), &table(), &key.public_key(), 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("for another table"), "{e}");
        let other = Keys::generate().public_key();
        let e = check_auth(&ev, &host.public_key(), &table(), &other, 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("names the key") && e.contains("not the key"),
            "{e}"
        );
    }

    #[test]
    fn forged_and_malformed_authorizations_are_refused_in_words() {
        let (identity, key, host, thief) = (
            Keys::generate(),
            Keys::generate(),
            Keys::generate(),
            Keys::generate(),
        );
        let good = auth_event(&key.public_key(), &host.public_key(), &table(), 9_999)
            .sign_with_keys(&thief)
            .unwrap();
        // The thief's signature under the identity's name: the id and signature no longer match.
        let mut json: serde_json::Value = serde_json::from_str(&good.as_json()).unwrap();
        json["pubkey"] = identity.public_key().to_hex().into();
        let forged = Event::from_json(json.to_string()).unwrap();
        let e = check_auth(&forged, &host.public_key(), &table(), &key.public_key(), 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not signed by that key"), "{e}");
        assert!(!e.contains("Forged"), "{e}");
        // A signature of the right key over an event of another kind.
        let note = EventBuilder::text_note("hi")
            .sign_with_keys(&identity)
            .unwrap();
        assert!(parse_auth(&note)
            .unwrap_err()
            .to_string()
            .contains("kind 1"));
        // Tags missing or twice; an identity authorizing itself.
        let bare = EventBuilder::new(Kind::from(KIND_AUTH), "")
            .tags([Tag::public_key(key.public_key())])
            .sign_with_keys(&identity)
            .unwrap();
        assert!(parse_auth(&bare)
            .unwrap_err()
            .to_string()
            .contains("no a tag"));
        let twice = auth_event(&key.public_key(), &host.public_key(), &table(), 9_999)
            .tag(Tag::public_key(thief.public_key()))
            .sign_with_keys(&identity)
            .unwrap();
        let e = parse_auth(&twice).unwrap_err().to_string();
        assert!(e.contains("more than one p tag"), "{e}");
        let own = auth_event(&identity.public_key(), &host.public_key(), &table(), 9_999)
            .allow_self_tagging()
            .sign_with_keys(&identity)
            .unwrap();
        assert!(parse_auth(&own)
            .unwrap_err()
            .to_string()
            .contains("its own key"));
        let big = auth_event(&key.public_key(), &host.public_key(), &table(), 9_999)
            .tag(Tag::custom(TagKind::custom("x"), ["y".repeat(2000)]))
            .sign_with_keys(&identity)
            .unwrap();
        assert!(parse_auth(&big).unwrap_err().to_string().contains("bytes"));
    }
}
