//! Who authorizes a table key (PROTOCOL.md §2.3): the person's identity, held either on this
//! machine ([`crate::identity`], NIP-49) or by a NIP-46 remote signer — a "bunker" that asks its
//! person to approve each request. A bunker is why table keys exist: it answers once per table
//! (the authorization), and the table key signs the rest.
//!
//! `tolerance keys bunker bunker://…` keeps the bunker's link and this machine's client key for
//! talking to it in `bunker.json` (owner-only); `join`, `host` and `resume` then take seats with
//! table keys the bunker authorizes. The identity's secret never reaches this machine.

use nostr_connect::prelude::{NostrConnect, NostrConnectURI};
use nostr_sdk::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long a bunker's person has to approve a request before the command gives up.
pub const BUNKER_PATIENCE: Duration = Duration::from_secs(120);

/// The identity that authorizes table keys: something that signs events and opens what was
/// sealed to it, with its public key known.
#[derive(Clone)]
pub struct Authority {
    signer: Arc<dyn NostrSigner>,
    public: PublicKey,
    /// The local key, when the identity lives on this machine (it may then hold seats itself).
    local: Option<Keys>,
    /// Words for where the identity lives, for messages.
    held_by: String,
}

impl std::fmt::Debug for Authority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authority")
            .field("public", &self.public)
            .field("held_by", &self.held_by)
            .finish()
    }
}

impl Authority {
    /// An identity whose key is on this machine.
    pub fn local(keys: Keys) -> Self {
        Authority {
            public: keys.public_key(),
            signer: Arc::new(keys.clone()),
            local: Some(keys),
            held_by: "this machine".into(),
        }
    }

    pub fn public_key(&self) -> PublicKey {
        self.public
    }

    /// The identity's own key when it is on this machine; `None` for a bunker, whose seats are
    /// always held by table keys.
    pub fn local_keys(&self) -> Option<&Keys> {
        self.local.as_ref()
    }

    /// The key that holds a seat, and whether it is a table key this identity must authorize:
    /// a fresh table key when `table_key` asks for one, and always for a bunker's identity;
    /// else the identity's own key.
    pub fn seat_key(&self, table_key: bool) -> (Keys, bool) {
        match &self.local {
            Some(k) if !table_key => (k.clone(), false),
            _ => (Keys::generate(), true),
        }
    }

    /// The identity's signer, for what takes any signer (opening NIP-17 invitations).
    pub fn signer(&self) -> &Arc<dyn NostrSigner> {
        &self.signer
    }

    /// The key a command's relay connection uses: the identity's own when it is on this
    /// machine; for a bunker a fresh one, since a connection signs without asking anyone (NIP-42,
    /// proof of work) and the bunker would ask its person for each.
    pub fn connection_key(&self) -> Keys {
        self.local.clone().unwrap_or_else(Keys::generate)
    }

    /// Signs `builder` as the identity (a bunker asks its person).
    pub async fn sign(&self, builder: EventBuilder) -> Result<Event, String> {
        let ev = builder
            .sign(&self.signer)
            .await
            .map_err(|e| format!("{} did not sign: {e}", self.held_by))?;
        if ev.pubkey != self.public || ev.verify().is_err() {
            return Err(format!(
                "{} answered with an event that is not signed by your identity",
                self.held_by
            ));
        }
        Ok(ev)
    }

    /// Opens what `from` sealed to the identity (NIP-44).
    pub async fn open(&self, from: &PublicKey, sealed: &str) -> Result<String, String> {
        self.signer
            .nip44_decrypt(from, sealed)
            .await
            .map_err(|e| format!("{} could not open it: {e}", self.held_by))
    }
}

/// Where a bunker's link is kept.
pub fn bunker_path(dir: &Path) -> PathBuf {
    dir.join("bunker.json")
}

#[derive(Serialize, Deserialize)]
struct Kept {
    /// The `bunker://` link, with the secret it carried.
    uri: String,
    /// This machine's client key for talking to the bunker (nsec), which the bunker came to
    /// know when it first connected.
    client: String,
    /// The identity the bunker said it holds (npub).
    identity: String,
}

/// Reads a `bunker://` link, in words when it is something else.
pub fn parse_uri(text: &str) -> Result<NostrConnectURI, String> {
    let uri = NostrConnectURI::parse(text.trim()).map_err(|_| {
        "that is not a bunker link: give the bunker://… link your remote signer shows".to_string()
    })?;
    if !uri.is_bunker() {
        return Err(
            "that is a nostrconnect:// link, which a client shows to a signer; give the \
                    bunker://… link your remote signer shows"
                .into(),
        );
    }
    Ok(uri)
}

async fn connect(uri: NostrConnectURI, client: Keys) -> Result<(NostrConnect, PublicKey), String> {
    let signer = NostrConnect::new(uri, client, BUNKER_PATIENCE, None)
        .map_err(|e| format!("the bunker link cannot be used: {e}"))?;
    let identity = signer.get_public_key().await.map_err(|e| {
        format!(
            "the bunker did not answer within {} s (is it running, and on one of the link's \
             relays?): {e}",
            BUNKER_PATIENCE.as_secs()
        )
    })?;
    Ok((signer, identity))
}

/// Connects to the bunker `text` names with a fresh client key, asks it which identity it
/// holds, and keeps the link in `dir`. The identity.
pub async fn remember_bunker(dir: &Path, text: &str) -> Result<PublicKey, String> {
    let uri = parse_uri(text)?;
    let client = Keys::generate();
    let (signer, identity) = connect(uri.clone(), client.clone()).await?;
    signer.shutdown().await;
    let kept = Kept {
        uri: uri.to_string(),
        client: client
            .secret_key()
            .to_bech32()
            .expect("a secret key encodes"),
        identity: identity.to_bech32().expect("a public key encodes"),
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = bunker_path(dir);
    let bytes = serde_json::to_vec_pretty(&kept).expect("serialises");
    crate::identity::write_owner_only(&path, &bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(identity)
}

/// Forgets the bunker kept in `dir`; whether there was one.
pub fn forget_bunker(dir: &Path) -> Result<bool, String> {
    let path = bunker_path(dir);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The identity of the bunker kept in `dir`, without connecting (`None`: no bunker kept).
pub fn bunker_identity(dir: &Path) -> Result<Option<PublicKey>, String> {
    Ok(read_kept(dir)?.map(|(_, _, id)| id))
}

fn read_kept(dir: &Path) -> Result<Option<(NostrConnectURI, Keys, PublicKey)>, String> {
    let path = bunker_path(dir);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let damaged = || {
        format!(
            "{} is damaged: give the bunker link again with `tolerance keys bunker bunker://…`",
            path.display()
        )
    };
    let kept: Kept = serde_json::from_slice(&bytes).map_err(|_| damaged())?;
    let uri = parse_uri(&kept.uri).map_err(|_| damaged())?;
    let client = SecretKey::parse(&kept.client)
        .map(Keys::new)
        .map_err(|_| damaged())?;
    let identity = PublicKey::parse(&kept.identity).map_err(|_| damaged())?;
    Ok(Some((uri, client, identity)))
}

/// The bunker kept in `dir`, connected, as the identity it held when it was kept (`None`: no
/// bunker kept). A bunker that now answers for another identity is refused.
pub async fn bunker(dir: &Path) -> Result<Option<Authority>, String> {
    let Some((uri, client, kept)) = read_kept(dir)? else {
        return Ok(None);
    };
    let (signer, identity) = connect(uri, client).await?;
    if identity != kept {
        return Err(format!(
            "the bunker now holds {}, not {}, the identity it held when its link was kept: give \
             its link again with `tolerance keys bunker`",
            identity.to_bech32().unwrap_or_default(),
            kept.to_bech32().unwrap_or_default()
        ));
    }
    Ok(Some(Authority {
        signer: Arc::new(signer),
        public: identity,
        local: None,
        held_by: "your bunker (NIP-46 remote signer)".into(),
    }))
}

/// The identity a command acts as: the bunker kept in `dir` when there is one, else the
/// identity stored on this machine (unlocked with `unlock`).
pub async fn load(
    dir: &Path,
    unlock: impl FnOnce() -> Result<Keys, String>,
) -> Result<Authority, String> {
    match bunker(dir).await? {
        Some(b) => Ok(b),
        None => unlock().map(Authority::local),
    }
}
