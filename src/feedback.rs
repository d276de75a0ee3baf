//! Feedback to the author of The Game of Tolerance: a private NIP-17 message (the default) or a
//! public kind-1 note that mentions them. `tolerance feedback` and `tolerance variant propose`
//! use it.

use std::time::Duration;

use nostr_sdk::prelude::{EventId, Keys, PublicKey, RelayUrl, Tag, ToBech32};

use crate::net::dm::{self, SendReport};
use crate::net::{PoolConfig, PublishReport, RelayPool};

pub use crate::wire::feedback::{
    check_message, public_note, AUTHOR_NPUB, DEFAULT_RELAYS, MAX_MESSAGE_BYTES, SUBJECT,
};

/// How long to wait for relays' stored relay lists.
const LOOKUP: Duration = Duration::from_secs(5);

/// What sending feedback did.
#[derive(Debug)]
pub enum Sent {
    /// A gift-wrapped private message.
    Private(SendReport),
    /// A public note, sent to our relays and the recipient's NIP-65 read relays.
    Public {
        note: EventId,
        report: PublishReport,
        /// The recipient's read relays found (empty: only ours).
        their_relays: Vec<RelayUrl>,
    },
}

/// Connects `keys` to `relays` for one command, with a context for the error.
pub async fn connect(keys: Keys, relays: &[String]) -> Result<RelayPool, String> {
    RelayPool::connect(keys, relays, PoolConfig::default())
        .await
        .map_err(|e| format!("cannot reach the relays: {e}"))
}

/// Sends `message` from `pool`'s key to `to`: privately unless `public`.
pub async fn send(
    pool: &RelayPool,
    to: &PublicKey,
    message: &str,
    public: bool,
    tags: Vec<Tag>,
) -> Result<Sent, String> {
    let me = crate::authority::Authority::local(pool.keys().clone());
    send_as(pool, &me, to, message, public, tags).await
}

/// [`send`] from `who`, which may be an identity in a bunker whose connection uses another key:
/// the bunker signs the note, or the message's two seals.
pub async fn send_as(
    pool: &RelayPool,
    who: &crate::authority::Authority,
    to: &PublicKey,
    message: &str,
    public: bool,
    tags: Vec<Tag>,
) -> Result<Sent, String> {
    let message = check_message(message)?;
    if public {
        let lists = dm::lookup_relays(pool, to, LOOKUP)
            .await
            .map_err(|e| e.to_string())?;
        let event = who.sign(public_note(to, &message).tags(tags)).await?;
        let report = dm::publish_to(pool, lists.for_mentions(), &event)
            .await
            .map_err(|e| format!("the note was not published: {e}"))?;
        return Ok(Sent::Public {
            note: event.id,
            report,
            their_relays: lists.read,
        });
    }
    dm::send_private_as(pool, who.signer(), to, &message, tags, LOOKUP)
        .await
        .map(Sent::Private)
        .map_err(|e| format!("the message was not delivered: {e}"))
}

/// Sends `text` from `who` to `to` over `relays` as `tolerance feedback` does (a private
/// message with a feedback subject unless `public`), and words the outcome for the person.
pub async fn send_feedback(
    who: &crate::authority::Authority,
    to: &PublicKey,
    relays: &[String],
    text: &str,
    public: bool,
) -> Result<Vec<String>, String> {
    let pool = connect(who.connection_key(), relays).await?;
    let tags = if public {
        Vec::new()
    } else {
        vec![dm::subject(SUBJECT)]
    };
    let sent = send_as(&pool, who, to, text, public, tags).await;
    pool.shutdown().await;
    Ok(report_lines(&sent?))
}

/// Text written in `editor` (a shell command line such as `vi` or `code -w`, given the file as
/// its last argument), without the lines starting with `#`.
pub fn compose_in_editor(editor: &str) -> Result<String, String> {
    let path = std::env::temp_dir().join(format!(
        "tolerance-feedback-{}-{}.txt",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::write(
        &path,
        "\n# Write your feedback or variant idea above. Lines starting with # are left out.\n\
         # It goes to the author as a private Nostr message; an empty message sends nothing.\n",
    )
    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status();
    let text = std::fs::read_to_string(&path);
    let _ = std::fs::remove_file(&path);
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            return Err(format!(
                "the editor `{editor}` exited with {s}: nothing sent"
            ))
        }
        Err(e) => return Err(format!("cannot run the editor `{editor}`: {e}")),
    }
    let text = text.map_err(|e| format!("cannot read back {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Lines for the person: which relays took it, which did not and why.
pub fn report_lines(sent: &Sent) -> Vec<String> {
    let npub = |k: &PublicKey| k.to_bech32().expect("a public key always encodes");
    let mut out = Vec::new();
    let relays = |out: &mut Vec<String>, r: &PublishReport| {
        for url in &r.accepted {
            out.push(format!("  accepted by {url}"));
        }
        for (url, why) in &r.rejected {
            out.push(format!("  NOT accepted by {url}: {why}"));
        }
    };
    match sent {
        Sent::Private(r) => {
            out.push(format!(
                "sent privately (NIP-17 gift wrap) to {}",
                npub(&r.recipient)
            ));
            let theirs = r.recipient_relays.for_messages();
            if theirs.is_empty() {
                out.push(
                    "  they published no inbox relays (kind 10050/10002) on these relays: \
                     sent to yours"
                        .into(),
                );
            } else {
                let list: Vec<String> = theirs.iter().map(|u| u.to_string()).collect();
                out.push(format!("  their inbox relays: {}", list.join(", ")));
            }
            relays(&mut out, &r.delivered);
            match &r.own_copy {
                Ok(c) => out.push(format!(
                    "  your copy (for your history) kept by {} relay(s)",
                    c.accepted.len()
                )),
                Err(e) => out.push(format!("  your own copy was not stored: {e}")),
            }
        }
        Sent::Public {
            note,
            report,
            their_relays,
        } => {
            out.push(format!(
                "published a public note {} mentioning {}",
                note.to_bech32().expect("an event id always encodes"),
                report_mention(their_relays)
            ));
            relays(&mut out, report);
        }
    }
    out
}

fn report_mention(their_relays: &[RelayUrl]) -> String {
    if their_relays.is_empty() {
        "the recipient".into()
    } else {
        format!(
            "the recipient (also sent to their {} read relay(s))",
            their_relays.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editor_text_comes_back_without_comments() {
        let text = compose_in_editor("printf 'more blinds please\\n# not this\\n' >>").unwrap();
        assert_eq!(check_message(&text).unwrap(), "more blinds please");
        let e = compose_in_editor("false").unwrap_err();
        assert!(e.contains("exited"), "{e}");
    }
}
