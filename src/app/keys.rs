//! `tolerance keys`: the player's Nostr identity on this machine, and its public profile.

use super::common::{load_identity, passphrase, runtime};
use crate::net::pool::{PoolConfig, RelayPool};
use clap::Subcommand;
use nostr_sdk::prelude::*;

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Generate a new key and store it (encrypted with a passphrase unless --plain).
    New {
        /// Store the secret unencrypted (owner-only file permissions).
        #[arg(long)]
        plain: bool,
        /// Replace an existing identity.
        #[arg(long)]
        force: bool,
    },
    /// Import a secret key (nsec1… or hex).
    Import {
        secret: String,
        #[arg(long)]
        plain: bool,
        #[arg(long)]
        force: bool,
    },
    /// Show the stored identity's npub (public: no passphrase needed).
    Show {
        /// Unlock the key too, which proves the passphrase.
        #[arg(long)]
        unlock: bool,
    },
    /// Publish the name other players see (a kind-0 profile).
    Profile(ProfileArgs),
    /// Play as an identity held by a NIP-46 remote signer (a bunker): give the bunker://… link
    /// it shows. `join`, `host` and `resume` then hold each seat with a key made for its table,
    /// which the bunker authorizes once (PROTOCOL.md §2.3); the identity's secret stays there.
    Bunker {
        /// The bunker://… link (without it: which bunker is kept, if any).
        uri: Option<String>,
        /// Forget the kept bunker: commands use the identity stored on this machine again.
        #[arg(long, conflicts_with = "uri")]
        forget: bool,
    },
}

#[derive(Debug, Clone, clap::Args)]
pub struct ProfileArgs {
    /// The name other players see.
    #[arg(long)]
    pub name: String,
    /// Relay URL (repeatable); also published as your NIP-17 inbox relays. Default: the
    /// relays listed in config.toml.
    #[arg(long = "relay")]
    pub relays: Vec<String>,
}

pub fn run(command: KeysCommand) -> Result<(), String> {
    use crate::identity;
    use nostr_sdk::prelude::ToBech32;
    let dir = identity::config_dir();
    let show = |k: &nostr_sdk::PublicKey| {
        println!("{}", k.to_bech32().expect("a public key always encodes"));
        println!("stored in {}", identity::identity_path(&dir).display());
    };
    let secure = |plain: bool| -> Result<Option<String>, String> {
        if plain {
            return Ok(None);
        }
        match passphrase(true) {
            Some(p) if !p.is_empty() => Ok(Some(p)),
            _ => Err(format!(
                "a passphrase is needed (set {} or type it), or pass --plain",
                identity::PASSPHRASE_ENV
            )),
        }
    };
    match command {
        KeysCommand::New { plain, force } => {
            let k = nostr_sdk::Keys::generate();
            let p = secure(plain)?;
            let k = identity::store(&dir, k.secret_key(), p.as_deref(), force)
                .map_err(|e| e.to_string())?;
            show(&k.public_key());
        }
        KeysCommand::Import {
            secret,
            plain,
            force,
        } => {
            let sk = identity::parse_secret(&secret).map_err(|e| e.to_string())?;
            let p = secure(plain)?;
            let k = identity::store(&dir, &sk, p.as_deref(), force).map_err(|e| e.to_string())?;
            show(&k.public_key());
        }
        KeysCommand::Show { unlock: true } => {
            let k = identity::load(&dir, || passphrase(false)).map_err(|e| e.to_string())?;
            show(&k.public_key());
        }
        KeysCommand::Show { unlock: false } => {
            let k = identity::load_public(&dir, || passphrase(false)).map_err(|e| e.to_string())?;
            show(&k);
        }
        KeysCommand::Profile(args) => {
            return runtime()?.block_on(profile(args));
        }
        KeysCommand::Bunker { forget: true, .. } => {
            if crate::authority::forget_bunker(&dir)? {
                println!("the bunker is forgotten: commands use the identity on this machine");
            } else {
                println!("no bunker was kept");
            }
        }
        KeysCommand::Bunker {
            uri: Some(uri),
            forget: false,
        } => {
            println!("asking the bunker which identity it holds (approve it there if it asks)…");
            let id = runtime()?.block_on(crate::authority::remember_bunker(&dir, &uri))?;
            println!("{}", id.to_bech32().expect("a public key always encodes"));
            println!(
                "held by your bunker; its link is kept in {}",
                crate::authority::bunker_path(&dir).display()
            );
        }
        KeysCommand::Bunker {
            uri: None,
            forget: false,
        } => match crate::authority::bunker_identity(&dir)? {
            Some(id) => {
                println!("{}", id.to_bech32().expect("a public key always encodes"));
                println!(
                    "held by your bunker; its link is kept in {}",
                    crate::authority::bunker_path(&dir).display()
                );
            }
            None => {
                println!("no bunker is kept: give its link with `tolerance keys bunker bunker://…`")
            }
        },
    }
    Ok(())
}

async fn profile(args: ProfileArgs) -> Result<(), String> {
    let settings = crate::config::Settings::load(&crate::identity::config_dir())?;
    let relays = settings.relays(&args.relays, &[]);
    if relays.is_empty() {
        return Err(format!(
            "no relay to publish your profile on: pass --relay URL, or list relays in {}",
            crate::config::settings_path(&crate::identity::config_dir()).display()
        ));
    }
    let keys = load_identity()?;
    let pool = RelayPool::connect(keys, &relays, PoolConfig::default())
        .await
        .map_err(|e| e.to_string())?;
    let r = crate::net::profiles::publish_name(&pool, &args.name).await?;
    println!(
        "profile name '{}' accepted by {} relay(s)",
        args.name,
        r.accepted.len()
    );
    // NIP-17: invitations and messages find you through your inbox relay list.
    let inbox: Vec<RelayUrl> = pool.relays().to_vec();
    let r = crate::net::dm::publish_inbox_relays(&pool, &inbox)
        .await
        .map_err(|e| e.to_string())?;
    pool.shutdown().await;
    println!(
        "inbox relays for private messages ({}) accepted by {} relay(s)",
        inbox
            .iter()
            .map(|u| u.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        r.accepted.len()
    );
    Ok(())
}
