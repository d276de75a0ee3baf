//! A client's local record of one table, so a crashed client can resume where it stopped.
//!
//! Two rules make a restart safe:
//! - **The secret before anything that depends on it.** The seat's master secret for the table
//!   — every key share, dice seed, box key, proof nonce and sealed-move salt of the table is
//!   derived from it — is written (encrypted, fsynced, atomically renamed) before the first
//!   event is published. A restarted client reloads it, so it can still open its cards, decrypt
//!   tokens for others, reveal its dice and open its sealed moves.
//! - **Never sign twice.** Every event this client signs is appended (fsynced) before it is
//!   published. A restarted session, fed the recorded events, sees its own events for the
//!   steps it already signed and signs nothing for them again; the runner republishes them in
//!   case the crash came before a relay took them.
//!
//! Other players' events are recorded too, so a resumed session replays the table without
//! waiting for the relays. The secret is sealed with ChaCha20-Poly1305 under a key derived
//! (HKDF-SHA256) from the player's Nostr secret key and bound to the table.

use super::error::TableError;
use crate::wire::log::{parse_log, Body, Payload};
use ::hkdf::Hkdf;
use chacha20poly1305::aead::{Aead, KeyInit, Payload as AeadPayload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use nostr_sdk::prelude::*;
use rand::rngs::OsRng;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// What `tolerance resume` needs to rejoin a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableMeta {
    pub table: String,
    /// Host public key, hex.
    pub host: String,
    pub relays: Vec<String>,
    pub naddr: String,
    /// This client's public key, hex: the seat key (the identity, or its table key).
    pub me: String,
    /// The identity that authorized `me` as its table key (PROTOCOL §2.3), hex; the key itself
    /// is in `table_key.json`, sealed to the identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
    /// Whether a bot plays this seat (`--auto`).
    pub auto: bool,
    pub finished: bool,
    /// The game's registry name.
    #[serde(default = "tolerance_game")]
    pub game: String,
    /// The seats' names as this client called them ("you", profile names), by seat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<String>,
}

/// A table this machine joined and did not see finish, for `resume` to list.
#[derive(Debug, Clone)]
pub struct Unfinished {
    pub meta: TableMeta,
    /// When its journal last recorded an event.
    pub last: Option<std::time::SystemTime>,
    /// This seat signed its leave there.
    pub left: bool,
    /// This machine hosts it and kept its lobby: it was not seated yet.
    pub hosting: bool,
}

fn tolerance_game() -> String {
    // Journals written before the registry existed were all Tolerance tables.
    crate::games::registry::DEFAULT_GAME.into()
}

/// The key under which a step's own event is unique (the same key fork detection uses): step,
/// head, type.
pub type SignedKey = (u32, String, &'static str);

/// Which own events are unique per step and head. Votes and evidence may be repeated.
pub fn signed_key(p: &Payload) -> Option<SignedKey> {
    match p.body {
        Body::Vote { .. } | Body::Evidence { .. } => None,
        _ => Some((p.step, p.prev.clone(), p.body.name())),
    }
}

pub struct Journal {
    dir: PathBuf,
    table: String,
    key: Zeroizing<[u8; 32]>,
    log: File,
    events: Vec<Event>,
    seen: HashSet<EventId>,
    /// Own signed events by step key.
    signed: HashMap<SignedKey, Event>,
    me: PublicKey,
    /// Held locked while the journal is open: a second client on this seat and machine is
    /// refused in words, instead of signing its own moves for the same steps.
    _lock: File,
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> TableError + '_ {
    move |e| TableError::Journal(format!("{}: {e}", path.display()))
}

/// Directory holding every table journal.
pub fn tables_dir(home: &Path) -> PathBuf {
    home.join("tables")
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TableError> {
    let tmp = path.with_extension("tmp");
    {
        let mut opts = OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(&tmp).map_err(io_err(&tmp))?;
        f.write_all(bytes).map_err(io_err(&tmp))?;
        f.sync_all().map_err(io_err(&tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(io_err(path))?;
    // The rename itself must survive a crash too.
    if let Some(parent) = path.parent() {
        if let Ok(d) = File::open(parent) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

impl Journal {
    /// Opens (creating if needed) the journal of `table` for `keys`, loading what it holds.
    pub fn open(home: &Path, keys: &Keys, table: &str) -> Result<Journal, TableError> {
        if table.len() != 64 || hex::decode(table).is_err() {
            return Err(TableError::NotFound(format!("'{table}' is not a table id")));
        }
        let dir = tables_dir(home).join(table);
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        let lock_path = dir.join("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_err(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(TableError::Journal(
                    "this seat is already being played by another tolerance program on this \
                     machine: stop that one first (two clients on one seat would each sign \
                     their own moves)"
                        .into(),
                ))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err(&lock_path)(e)),
        }
        let hk = Hkdf::<Sha256>::new(
            Some(b"tolerance/journal/v1"),
            keys.secret_key().as_secret_bytes(),
        );
        let mut key = Zeroizing::new([0u8; 32]);
        hk.expand(table.as_bytes(), &mut *key)
            .expect("32 bytes is a valid HKDF output length");
        let path = dir.join("events.jsonl");
        let mut events = Vec::new();
        let mut seen = HashSet::new();
        let mut signed = HashMap::new();
        let me = keys.public_key();
        if let Ok(f) = File::open(&path) {
            for line in BufReader::new(f).lines() {
                let line = line.map_err(io_err(&path))?;
                // A crash can cut the last line short; everything before it is whole.
                let Ok(ev) = Event::from_json(&line) else {
                    continue;
                };
                if ev.verify().is_err() || !seen.insert(ev.id) {
                    continue;
                }
                if ev.pubkey == me {
                    if let Ok(p) = parse_log(&ev, table) {
                        if let Some(k) = signed_key(&p) {
                            signed.insert(k, ev.clone());
                        }
                    }
                }
                events.push(ev);
            }
        }
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_err(&path))?;
        Ok(Journal {
            dir,
            table: table.to_string(),
            key,
            log,
            events,
            seen,
            signed,
            me,
            _lock: lock,
        })
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every recorded event, in the order this client handled them.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Own events, in order (to republish after a restart).
    pub fn own_events(&self) -> Vec<Event> {
        self.events
            .iter()
            .filter(|e| e.pubkey == self.me)
            .cloned()
            .collect()
    }

    /// The event this client already signed for a step, if any.
    pub fn signed(&self, key: &SignedKey) -> Option<&Event> {
        self.signed.get(key)
    }

    /// Appends an event. Own events are fsynced: they must be on disk before they are
    /// published.
    pub fn record(&mut self, ev: &Event) -> Result<(), TableError> {
        if !self.seen.insert(ev.id) {
            return Ok(());
        }
        let path = self.dir.join("events.jsonl");
        writeln!(self.log, "{}", ev.as_json()).map_err(io_err(&path))?;
        if ev.pubkey == self.me {
            self.log.sync_data().map_err(io_err(&path))?;
            if let Ok(p) = parse_log(ev, &self.table) {
                if let Some(k) = signed_key(&p) {
                    self.signed.entry(k).or_insert_with(|| ev.clone());
                }
            }
        }
        self.events.push(ev.clone());
        Ok(())
    }

    fn aad(&self, label: &[u8]) -> Vec<u8> {
        let mut aad = label.to_vec();
        aad.extend_from_slice(self.table.as_bytes());
        aad
    }

    /// The seat's master secret for this table: the stored one, or a new one from `fresh`
    /// sealed and fsynced before it is returned (nothing may depend on a secret that a crash
    /// could lose).
    pub fn master(
        &self,
        fresh: impl FnOnce() -> [u8; 32],
    ) -> Result<Zeroizing<[u8; 32]>, TableError> {
        self.sealed("master.bin", b"tolerance/master/v2", fresh)
    }

    /// The seed of the seating nonces of a lobby this machine hosts, kept as the master secret
    /// is (under its own label, so neither file opens as the other).
    pub fn lobby_seed(
        &self,
        fresh: impl FnOnce() -> [u8; 32],
    ) -> Result<Zeroizing<[u8; 32]>, TableError> {
        self.sealed("lobby_seed.bin", b"tolerance/lobby-seed/v1", fresh)
    }

    /// The seed [`Self::lobby_seed`] kept; an error when none was.
    pub fn kept_lobby_seed(&self) -> Result<Zeroizing<[u8; 32]>, TableError> {
        if !self.dir.join("lobby_seed.bin").exists() {
            return Err(TableError::Journal(
                "the seed of the host's seating nonces was never kept here".into(),
            ));
        }
        self.lobby_seed(|| [0u8; 32])
    }

    /// The lobby a host keeps (`lobby.json`, written atomically before what it covers is
    /// published); [`kept_lobby`] reads it back.
    pub fn keep_lobby(&self, text: &str) -> Result<(), TableError> {
        write_atomic(&self.dir.join(LOBBY_FILE), text.as_bytes())
    }

    fn sealed(
        &self,
        file: &str,
        label: &[u8],
        fresh: impl FnOnce() -> [u8; 32],
    ) -> Result<Zeroizing<[u8; 32]>, TableError> {
        let path = self.dir.join(file);
        let cipher = ChaCha20Poly1305::new(Key::from_slice(&*self.key));
        if path.exists() {
            let bytes = std::fs::read(&path).map_err(io_err(&path))?;
            if bytes.len() < 12 + 16 {
                return Err(TableError::Journal(format!(
                    "{}: too short to hold a sealed secret",
                    path.display()
                )));
            }
            let pt = cipher
                .decrypt(
                    Nonce::from_slice(&bytes[..12]),
                    AeadPayload {
                        msg: &bytes[12..],
                        aad: &self.aad(label),
                    },
                )
                .map_err(|_| {
                    TableError::Journal(format!(
                        "{} does not open with this identity's key (another key, or damaged)",
                        path.display()
                    ))
                })?;
            let secret: [u8; 32] = pt.as_slice().try_into().map_err(|_| {
                TableError::Journal(format!("{}: not a 32-byte secret", path.display()))
            })?;
            return Ok(Zeroizing::new(secret));
        }
        let secret = Zeroizing::new(fresh());
        let mut nonce = [0u8; 12];
        OsRng.fill_bytes(&mut nonce);
        let ct = cipher
            .encrypt(
                Nonce::from_slice(&nonce),
                AeadPayload {
                    msg: &*secret,
                    aad: &self.aad(label),
                },
            )
            .map_err(|_| TableError::Journal("sealing the table secret failed".into()))?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&ct);
        write_atomic(&path, &out)?;
        Ok(secret)
    }
}

/// A table key as its journal keeps it (`table_key.json`): its public half, and its secret
/// NIP-44 encrypted from the table key to the identity, so that only the identity opens it —
/// on this machine, or in a NIP-46 bunker that never hands its secret over.
#[derive(Serialize, Deserialize)]
pub struct SealedTableKey {
    /// The table key (hex).
    pub key: String,
    /// NIP-44 of `{"table", "secret"}` from the table key to the identity.
    pub sealed: String,
}

#[derive(Serialize, Deserialize)]
struct TableKeyPlain {
    table: String,
    secret: String,
}

fn table_key_path(home: &Path, table: &str) -> PathBuf {
    tables_dir(home).join(table).join("table_key.json")
}

/// Keeps `key`, the table key `identity` authorized at `table`, in the table's journal
/// directory, sealed to the identity (written before the table's first event), so that
/// `resume`, which reaches only the identity, can take the seat back.
pub fn seal_table_key(
    home: &Path,
    identity: &PublicKey,
    table: &str,
    key: &Keys,
) -> Result<(), TableError> {
    let dir = tables_dir(home).join(table);
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let plain = Zeroizing::new(
        serde_json::to_string(&TableKeyPlain {
            table: table.to_string(),
            secret: key.secret_key().to_secret_hex(),
        })
        .expect("serialises"),
    );
    let sealed = nip44::encrypt(
        key.secret_key(),
        identity,
        plain.as_str(),
        nip44::Version::V2,
    )
    .map_err(|_| TableError::Journal("sealing the table key failed".into()))?;
    let kept = SealedTableKey {
        key: key.public_key().to_hex(),
        sealed,
    };
    write_atomic(
        &table_key_path(home, table),
        &serde_json::to_vec(&kept).expect("serialises"),
    )
}

/// The sealed table key kept for `table` ([`seal_table_key`]), to be opened by the identity.
pub fn sealed_table_key(home: &Path, table: &str) -> Result<(PublicKey, String), TableError> {
    let path = table_key_path(home, table);
    let bytes = std::fs::read(&path).map_err(io_err(&path))?;
    let kept: SealedTableKey = serde_json::from_slice(&bytes)
        .map_err(|_| TableError::Journal(format!("{} is damaged", path.display())))?;
    let key = PublicKey::from_hex(&kept.key)
        .map_err(|_| TableError::Journal(format!("{} is damaged", path.display())))?;
    Ok((key, kept.sealed))
}

/// The table key of `table` from what the identity opened of its seal: it must be that key,
/// for that table.
pub fn table_key_from(table: &str, key: &PublicKey, opened: &str) -> Result<Keys, TableError> {
    let damaged = || {
        TableError::Journal(
            "the table key kept for this table does not open with this identity (another \
             identity, or damaged)"
                .into(),
        )
    };
    let plain: TableKeyPlain = serde_json::from_str(opened).map_err(|_| damaged())?;
    let keys = SecretKey::from_hex(&plain.secret)
        .map(Keys::new)
        .map_err(|_| damaged())?;
    if plain.table != table || keys.public_key() != *key {
        return Err(damaged());
    }
    Ok(keys)
}

/// [`sealed_table_key`] opened with a local identity.
pub fn open_table_key(home: &Path, identity: &Keys, table: &str) -> Result<Keys, TableError> {
    let (key, sealed) = sealed_table_key(home, table)?;
    let opened = Zeroizing::new(
        nip44::decrypt(identity.secret_key(), &key, &sealed).map_err(|_| {
            TableError::Journal(
                "the table key kept for this table does not open with this identity's key \
                 (another key, or damaged)"
                    .into(),
            )
        })?,
    );
    table_key_from(table, &key, &opened)
}

const LOBBY_FILE: &str = "lobby.json";

/// The lobby this machine hosts at `table` and kept ([`Journal::keep_lobby`]), if any: a host
/// that stopped before its table was seated.
pub fn kept_lobby(home: &Path, table: &str) -> Option<String> {
    std::fs::read_to_string(tables_dir(home).join(table).join(LOBBY_FILE)).ok()
}

/// The lobby kept at `table` is done with: the table is seated or cancelled.
pub fn drop_lobby(home: &Path, table: &str) {
    let _ = std::fs::remove_file(tables_dir(home).join(table).join(LOBBY_FILE));
}

/// Stores a table's metadata beside its journal (the journal's directory must exist).
pub fn write_meta(home: &Path, meta: &TableMeta) -> Result<(), TableError> {
    let bytes = serde_json::to_vec_pretty(meta).expect("meta serialises");
    write_atomic(
        &tables_dir(home).join(&meta.table).join("meta.json"),
        &bytes,
    )
}

/// The stored metadata of a table, if this machine played it.
pub fn read_meta(home: &Path, table: &str) -> Result<TableMeta, TableError> {
    let path = tables_dir(home).join(table).join("meta.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            TableError::NotFound(format!(
                "no local record of table {table} (looked in {})",
                path.display()
            ))
        } else {
            TableError::Journal(format!("{}: {e}", path.display()))
        }
    })?;
    serde_json::from_str(&text).map_err(|e| TableError::Journal(format!("{}: {e}", path.display())))
}

/// Tables this machine joined and did not see finish, most recently played first, with
/// whether this seat signed its leave (read from its own events in the journal, unopened).
pub fn unfinished_tables(home: &Path) -> Vec<Unfinished> {
    let mut out: Vec<Unfinished> = unfinished(home)
        .into_iter()
        .map(|meta| {
            let dir = tables_dir(home).join(&meta.table);
            let path = dir.join("events.jsonl");
            let hosting = dir.join(LOBBY_FILE).exists();
            // A lobby kept, and nothing played yet: its last keeping is its last news.
            let last = std::fs::metadata(if hosting {
                dir.join(LOBBY_FILE)
            } else {
                path.clone()
            })
            .and_then(|m| m.modified())
            .ok();
            let left = std::fs::read_to_string(&path).is_ok_and(|text| {
                text.lines()
                    .filter_map(|l| Event::from_json(l).ok())
                    .filter(|e| e.pubkey.to_hex() == meta.me)
                    .filter_map(|e| parse_log(&e, &meta.table).ok())
                    .any(|p| matches!(p.body, Body::Leave {}))
            });
            Unfinished {
                meta,
                last,
                left,
                hosting,
            }
        })
        .collect();
    out.sort_by_key(|u| std::cmp::Reverse(u.last));
    out
}

/// Tables this machine joined and did not see finish.
pub fn unfinished(home: &Path) -> Vec<TableMeta> {
    let Ok(rd) = std::fs::read_dir(tables_dir(home)) else {
        return Vec::new();
    };
    let mut out: Vec<TableMeta> = rd
        .flatten()
        .filter_map(|e| read_meta(home, &e.file_name().to_string_lossy()).ok())
        .filter(|m| !m.finished)
        .collect();
    out.sort_by(|a, b| a.table.cmp(&b.table));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::log::{log_event, LOG_VERSION};

    fn tmp() -> PathBuf {
        let mut b = [0u8; 8];
        OsRng.fill_bytes(&mut b);
        let d = std::env::temp_dir().join(format!("tolerance-journal-{}", hex::encode(b)));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_table_key_opens_only_under_its_identity_and_table() {
        let home = tmp();
        let (identity, key, other) = (Keys::generate(), Keys::generate(), Keys::generate());
        let table = hex::encode([4u8; 32]);
        seal_table_key(&home, &identity.public_key(), &table, &key).unwrap();
        let back = open_table_key(&home, &identity, &table).unwrap();
        assert_eq!(back.public_key(), key.public_key());
        let e = open_table_key(&home, &other, &table)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not open with this identity's key"), "{e}");
        // Opened, but presented for another table (a file moved between tables).
        let (k, sealed) = sealed_table_key(&home, &table).unwrap();
        let opened = nip44::decrypt(identity.secret_key(), &k, &sealed).unwrap();
        let e = table_key_from(&hex::encode([5u8; 32]), &k, &opened).unwrap_err();
        assert!(e.to_string().contains("does not open"), "{e}");
        let _ = std::fs::remove_dir_all(&home);
    }

    #[test]
    fn the_master_secret_opens_only_under_the_same_key_and_table() {
        let home = tmp();
        let keys = Keys::generate();
        let table = hex::encode([5u8; 32]);
        let j = Journal::open(&home, &keys, &table).unwrap();
        let first = j.master(|| [7u8; 32]).unwrap();
        assert_eq!(*first, [7u8; 32]);
        // A second call returns the stored secret, not a new one.
        assert_eq!(*j.master(|| [8u8; 32]).unwrap(), [7u8; 32]);
        let raw = std::fs::read(j.dir().join("master.bin")).unwrap();
        assert!(!raw.windows(8).any(|w| w == [7u8; 8]), "not in the clear");
        let dir = j.dir().to_path_buf();
        drop(j);
        let other = Journal::open(&home, &Keys::generate(), &table).unwrap();
        let e = other.master(|| [9u8; 32]).unwrap_err();
        assert!(
            matches!(&e, TableError::Journal(w) if w.contains("does not open")),
            "{e}"
        );
        // Moved to another table's directory, it fails its binding.
        let t2 = hex::encode([6u8; 32]);
        let j2 = Journal::open(&home, &keys, &t2).unwrap();
        std::fs::copy(dir.join("master.bin"), j2.dir().join("master.bin")).unwrap();
        assert!(j2.master(|| [9u8; 32]).is_err());
        std::fs::remove_dir_all(home).unwrap();
    }

    #[test]
    fn unfinished_tables_leave_out_finished_ones_and_know_where_this_seat_left() {
        let home = tmp();
        let keys = Keys::generate();
        let host = Keys::generate();
        let meta = |table: &str, finished: bool| TableMeta {
            table: table.to_string(),
            host: host.public_key().to_hex(),
            relays: vec!["ws://127.0.0.1:1".into()],
            naddr: format!("naddr-{table}"),
            me: keys.public_key().to_hex(),
            identity: None,
            auto: false,
            finished,
            game: "tolerance".into(),
            players: vec!["you".into(), "Ana".into()],
        };
        let (left, playing, done) = (
            hex::encode([1u8; 32]),
            hex::encode([2u8; 32]),
            hex::encode([3u8; 32]),
        );
        for (t, finished) in [(&left, false), (&playing, false), (&done, true)] {
            let mut j = Journal::open(&home, &keys, t).unwrap();
            write_meta(&home, &meta(t, finished)).unwrap();
            let body = if t == &left {
                Body::Leave {}
            } else {
                Body::End {}
            };
            let p = Payload {
                v: LOG_VERSION,
                table: t.clone(),
                step: 3,
                prev: t.clone(),
                ahead: None,
                body,
            };
            j.record(
                &log_event(&host.public_key(), &p)
                    .sign_with_keys(&keys)
                    .unwrap(),
            )
            .unwrap();
        }
        let found = unfinished_tables(&home);
        let mut seen: Vec<(String, bool)> = found
            .iter()
            .map(|u| (u.meta.table.clone(), u.left))
            .collect();
        seen.sort();
        assert_eq!(seen, vec![(left, true), (playing, false)]);
        assert!(found.iter().all(|u| u.last.is_some()));
        std::fs::remove_dir_all(home).unwrap();
    }

    #[test]
    fn a_second_program_on_the_same_seat_is_refused_in_words_until_the_first_ends() {
        let home = tmp();
        let keys = Keys::generate();
        let table = hex::encode([7u8; 32]);
        let first = Journal::open(&home, &keys, &table).unwrap();
        let e = Journal::open(&home, &keys, &table).err().expect("refused");
        assert!(
            e.to_string()
                .contains("already being played by another tolerance program"),
            "{e}"
        );
        drop(first);
        assert!(
            Journal::open(&home, &keys, &table).is_ok(),
            "free once it ended"
        );
        std::fs::remove_dir_all(home).unwrap();
    }

    #[test]
    fn events_survive_a_reopen_and_a_torn_last_line() {
        let home = tmp();
        let keys = Keys::generate();
        let host = Keys::generate();
        let table = hex::encode([6u8; 32]);
        let mut j = Journal::open(&home, &keys, &table).unwrap();
        let p = Payload {
            v: LOG_VERSION,
            table: table.clone(),
            step: 0,
            prev: table.clone(),
            ahead: None,
            body: Body::End {},
        };
        let own = log_event(&host.public_key(), &p)
            .sign_with_keys(&keys)
            .unwrap();
        let theirs = log_event(&host.public_key(), &p)
            .sign_with_keys(&host)
            .unwrap();
        j.record(&own).unwrap();
        j.record(&theirs).unwrap();
        j.record(&own).unwrap();
        drop(j);
        // Simulate a crash in the middle of writing a third line.
        let mut f = OpenOptions::new()
            .append(true)
            .open(home.join("tables").join(&table).join("events.jsonl"))
            .unwrap();
        f.write_all(b"{\"id\":\"ab").unwrap();
        drop(f);
        let j = Journal::open(&home, &keys, &table).unwrap();
        assert_eq!(j.events().len(), 2);
        assert_eq!(j.own_events(), vec![own.clone()]);
        assert_eq!(j.signed(&(0, table.clone(), "end")), Some(&own));
        std::fs::remove_dir_all(home).unwrap();
    }
}
