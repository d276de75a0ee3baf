//! `tolerance variant`: Tolerance variant files — new, validate, propose, list, show; Tolerance:
//! Reformation's card-set files (`--game reformation`: new, validate); and the variant files of
//! other games that have them (an ArtOfFacts deck file, `--game art-of-facts`: new, validate,
//! propose, show, list).

use super::common::{load_identity, runtime};
use crate::games::reformation::entry as reformation;
use crate::games::tolerance::Variant;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum VariantCommand {
    /// Print a variant file (built-in name, default "standard") to standard output.
    New {
        #[arg(default_value = "standard")]
        builtin: String,
        /// The game: tolerance, or reformation (its card set, Roles and rules as one file).
        #[arg(long, default_value = "tolerance")]
        game: String,
    },
    /// Check a variant file and print the rules it sets, or the error naming the field.
    Validate {
        file: PathBuf,
        /// The game: tolerance, or reformation.
        #[arg(long, default_value = "tolerance")]
        game: String,
    },
    /// Publish a variant file for others to play (a Nostr addressable event, kind 37768) and
    /// send the author its naddr in a private message.
    Propose {
        file: PathBuf,
        /// The game the file is a variant of (Tolerance by default; `art-of-facts` for a deck
        /// file).
        #[arg(long, default_value = "tolerance")]
        game: String,
        /// Shown in lists; also names the proposal (default: the variant's name). Proposing
        /// again under the same title replaces it.
        #[arg(long)]
        title: Option<String>,
        /// What the variant changes and why (default: a line of its rules).
        #[arg(long)]
        description: Option<String>,
        /// Recipient npub (default: the game's author, or `author` in config.toml).
        #[arg(long)]
        to: Option<String>,
        /// Relay URL (repeatable); default: `relays` in config.toml, else a few public relays.
        #[arg(long = "relay")]
        relays: Vec<String>,
    },
    /// The variants published on the relays, the author's included, newest first.
    List {
        /// Whose proposals to mark as the author's (default: the game's author or config.toml).
        #[arg(long)]
        to: Option<String>,
        #[arg(long = "relay")]
        relays: Vec<String>,
    },
    /// Fetch a published variant and print it as a variant file (its metadata in comments).
    Show {
        /// naddr1… of the variant.
        naddr: String,
        /// Relay URL (repeatable), in addition to the naddr's relay hints.
        #[arg(long = "relay")]
        relays: Vec<String>,
    },
}

const REFORMATION: &str = "reformation";

pub fn run(command: VariantCommand) -> Result<(), String> {
    use crate::feedback::{self, AUTHOR_NPUB, DEFAULT_RELAYS};
    use crate::variants;
    use nostr_sdk::prelude::ToBech32;
    // Read only by the commands that talk to relays, so a broken config.toml does not stop
    // `variant new` or `validate`.
    let settings = || crate::config::Settings::load(&crate::identity::config_dir());
    match command {
        VariantCommand::New { builtin, game } if game == REFORMATION => {
            print!("{}", reformation::variant_file(&builtin)?);
            Ok(())
        }
        VariantCommand::Validate { file, game } if game == REFORMATION => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let summary = reformation::validate_file(&file.to_string_lossy(), &text)?;
            println!("{}: valid\n{summary}", file.display());
            Ok(())
        }
        VariantCommand::New { game, .. } if game != "tolerance" && template(&game).is_some() => {
            print!("{}", template(&game).unwrap_or_default());
            Ok(())
        }
        VariantCommand::Validate { file, game }
            if game != "tolerance" && template(&game).is_some() =>
        {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let (name, json) = crate::games::registry::with_game(&game, VariantJson(text))?
                .map_err(|e| format!("{}: {e}", file.display()))?;
            let body = crate::games::registry::with_game(&game, VariantFile(json))?;
            println!("{}: valid ({name})\n{body}", file.display());
            Ok(())
        }
        VariantCommand::New { game, .. } | VariantCommand::Validate { game, .. }
            if game != "tolerance" =>
        {
            Err(format!(
                "variant files are for tolerance and reformation, not '{game}' (its variants \
                 are named with --variant)"
            ))
        }
        VariantCommand::New { builtin, .. } => {
            let v = Variant::builtin(&builtin)
                .ok_or_else(|| format!("unknown built-in variant '{builtin}'"))?;
            print!("{}", crate::games::tolerance::variant::commented_toml(&v));
            Ok(())
        }
        VariantCommand::Validate { file, .. } => {
            let v = load_variant(&file.to_string_lossy())?;
            println!("{}: valid\n{}", file.display(), v.to_toml());
            Ok(())
        }
        VariantCommand::Propose {
            file,
            game,
            title,
            description,
            to,
            relays,
        } => {
            let settings = settings()?;
            let to = settings.recipient(to.as_deref(), AUTHOR_NPUB)?;
            let relays = settings.relays(&relays, &DEFAULT_RELAYS);
            // The game checks its own file (Tolerance: a built-in name too) before anything is
            // published.
            let (name, json) = if game == "tolerance" {
                let v = load_variant(&file.to_string_lossy())?;
                (v.name.clone(), v.canonical_json())
            } else {
                let text = std::fs::read_to_string(&file)
                    .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
                crate::games::registry::with_game(&game, VariantJson(text))?
                    .map_err(|e| format!("{}: {e}", file.display()))?
            };
            let keys = load_identity()?;
            runtime()?.block_on(async {
                let pool = feedback::connect(keys, &relays).await?;
                let done = variants::propose(
                    &pool,
                    &game,
                    (&name, &json),
                    title.as_deref().unwrap_or(""),
                    description.as_deref().unwrap_or(""),
                    &to,
                )
                .await;
                pool.shutdown().await;
                print_proposal(&game, done?, &to)
            })
        }
        VariantCommand::List { to, relays } => {
            let settings = settings()?;
            let author = settings.recipient(to.as_deref(), AUTHOR_NPUB)?;
            let relays = settings.relays(&relays, &DEFAULT_RELAYS);
            runtime()?.block_on(async {
                let pool = feedback::connect(nostr_sdk::Keys::generate(), &relays).await?;
                let listing = variants::list(&pool).await;
                let hints = pool.relays().to_vec();
                pool.shutdown().await;
                let listing = listing?;
                if listing.posts.is_empty() {
                    println!("no variants on {}", relays.join(", "));
                }
                for post in &listing.posts {
                    for line in variants::list_lines(post, &hints, &author) {
                        println!("{line}");
                    }
                }
                for (id, by, why) in &listing.invalid {
                    eprintln!(
                        "skipped {} by {}: {why}",
                        id.to_bech32().expect("an event id always encodes"),
                        by.to_bech32().expect("a public key always encodes")
                    );
                }
                Ok(())
            })
        }
        VariantCommand::Show { naddr, relays } => {
            let settings = settings()?;
            let author = settings.recipient(None, AUTHOR_NPUB).ok();
            let relays = if relays.is_empty() {
                settings.relays.clone()
            } else {
                relays
            };
            let (checked, _) = runtime()?.block_on(variants::fetch(&naddr, &relays))?;
            let post = checked.post;
            let body =
                crate::games::registry::with_game(&post.game, VariantFile(post.content.clone()))?;
            print!(
                "{}",
                variants::as_file(&post, naddr.trim(), author.as_ref(), &body)
            );
            Ok(())
        }
    }
}

/// A game's variant file, checked, as its name and JSON.
struct VariantJson(String);

impl crate::games::registry::Visit for VariantJson {
    type Out = Result<(String, String), String>;
    fn visit<G: crate::games::registry::TableGame>(self) -> Self::Out {
        G::variant_json(&self.0)
    }
}

/// A published variant's JSON as the game's variant file.
struct VariantFile(String);

impl crate::games::registry::Visit for VariantFile {
    type Out = String;
    fn visit<G: crate::games::registry::TableGame>(self) -> String {
        G::variant_file(&self.0)
    }
}

/// A game's variant file to start from (`variant new --game NAME`), if it has one.
fn template(game: &str) -> Option<String> {
    struct Template;
    impl crate::games::registry::Visit for Template {
        type Out = Option<String>;
        fn visit<G: crate::games::registry::TableGame>(self) -> Option<String> {
            G::variant_template().map(str::to_string)
        }
    }
    crate::games::registry::with_game(game, Template)
        .ok()
        .flatten()
}

/// A built-in Tolerance variant by name, or a variant file.
fn load_variant(arg: &str) -> Result<Variant, String> {
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

/// What `variant propose` did, for the person: the naddr, the relays, the message.
fn print_proposal(
    game: &str,
    p: crate::variants::Proposal,
    to: &nostr_sdk::PublicKey,
) -> Result<(), String> {
    use crate::feedback;
    use nostr_sdk::prelude::ToBech32;
    println!("{}", p.naddr);
    if game == "tolerance" {
        println!(
            "published \"{}\" (kind 37768, d={})",
            p.post.post.title, p.post.post.slug
        );
    } else {
        println!(
            "published \"{}\" (a variant of {game}; kind 37768, d={})",
            p.post.post.title, p.post.post.slug
        );
    }
    for url in &p.published.accepted {
        println!("  accepted by {url}");
    }
    for (url, why) in &p.published.rejected {
        println!("  NOT accepted by {url}: {why}");
    }
    match p.message {
        Ok(r) => {
            for line in feedback::report_lines(&feedback::Sent::Private(r)) {
                println!("{line}");
            }
            Ok(())
        }
        Err(e) => Err(format!(
            "the variant is published but {} was not told: {e}",
            to.to_bech32().expect("a public key always encodes")
        )),
    }
}
