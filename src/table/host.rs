//! The host's side of a table's lobby as a pure state machine: join requests, leaves and
//! seating nonces in; versions of the announcement, lobby messages and news out. Time and the
//! randomness of the host's seating nonces are passed in. The terminal's `tolerance host`
//! ([`super::lobby::host_lobby`]) and the browser page drive the same machine, each over its own
//! relays, so a table hosted from either seats its players by the same rules (PROTOCOL §2).

use crate::wire::auth::{check_auth, expires_at, seated_by};
use crate::wire::lobby::{collect_reveals, parse_lobby, seat_commit, seats_from_reveals};
use crate::wire::names::short_npub;
use crate::wire::{
    Deadlines, Lobby, LobbyBody, LobbyMsg, LobbyPlayer, LobbyStatus, TableSpec, VERSION,
};
use nostr::prelude::*;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// What a table to host is: its game and setup, its seats and who may take them, its pace and
/// how long the lobby waits.
pub struct HostPlan {
    /// The game's registry name.
    pub game: String,
    /// The game's setup, already checked by the game (`TableGame::setup`).
    pub setup: serde_json::Value,
    /// Most players the setup seats.
    pub seats: u8,
    pub relays: Vec<String>,
    pub deadlines: Deadlines,
    pub title: String,
    pub public: bool,
    pub min_players: u8,
    pub max_players: u8,
    pub invite: Vec<PublicKey>,
    /// Start with whoever joined (at least `min_players`) after this long.
    pub start_after: Option<Duration>,
    /// Cancel when the table has not started after this long.
    pub wait: Duration,
    /// Proof of work (NIP-13 difficulty) a join request must carry; `None` asks for none.
    pub join_pow: Option<u8>,
    /// Whether the host can ask to start early with the players there (the lobby then says so
    /// when enough joined).
    pub may_start_early: bool,
    /// The game's setup for fewer players than `max_players`, for a table that starts early
    /// (the same variant and length; only the player count differs).
    pub setup_for: Option<SetupFor>,
    /// The proof of work every event of the table carries: the most its relays ask (NIP-11).
    pub pow: u8,
}

/// The game's setup for a number of players, or why the game cannot be played with that many.
pub type SetupFor = Box<dyn Fn(u8) -> Result<serde_json::Value, String> + Send + Sync>;

impl HostPlan {
    /// Whether the plan can be hosted at all; why not in words.
    pub fn check(&self) -> Result<(), String> {
        if self.min_players < 2 || self.min_players > self.max_players {
            return Err(format!(
                "a table needs at least 2 players and no more than its seats ({}..={} asked)",
                self.min_players, self.max_players
            ));
        }
        if self.max_players > self.seats {
            return Err(format!(
                "this game seats at most {} players, not {}",
                self.seats, self.max_players
            ));
        }
        if !self.public && self.invite.is_empty() {
            return Err(
                "an invite-only table needs at least one invited npub (--invite NPUB)".into(),
            );
        }
        Ok(())
    }

    /// When an open table announced at `now` (Unix seconds) expires (NIP-40): a little after
    /// the host would have cancelled it (a quarter of the wait, 5 s to a minute), so a host that
    /// died leaves nothing listed for long. A table key's authorization is signed for it.
    pub fn expires(&self, now: u64) -> u64 {
        let wait = self.wait.as_secs();
        now + wait + (wait / 4).clamp(5, 60)
    }
}

/// A [`HostPlan`] as a host keeps it beside its lobby ([`LobbyRecord`]) to take it back after a
/// crash: everything but the setup for fewer players, which is made again from the game and
/// how the person named its setup.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeptPlan {
    game: String,
    setup: serde_json::Value,
    seats: u8,
    relays: Vec<String>,
    deadlines: Deadlines,
    title: String,
    public: bool,
    min_players: u8,
    max_players: u8,
    invite: Vec<String>,
    start_after_secs: Option<u64>,
    wait_secs: u64,
    join_pow: Option<u8>,
    may_start_early: bool,
    pow: u8,
    /// How the person named the setup, for the setup with fewer players.
    variant: Option<String>,
    variant_text: Option<(String, String)>,
    hands: Option<u64>,
}

impl HostPlan {
    /// What to keep of this plan, set up from `opts`.
    pub fn kept(&self, opts: &crate::games::registry::SetupOptions) -> KeptPlan {
        KeptPlan {
            game: self.game.clone(),
            setup: self.setup.clone(),
            seats: self.seats,
            relays: self.relays.clone(),
            deadlines: self.deadlines,
            title: self.title.clone(),
            public: self.public,
            min_players: self.min_players,
            max_players: self.max_players,
            invite: self.invite.iter().map(|k| k.to_hex()).collect(),
            start_after_secs: self.start_after.map(|d| d.as_secs()),
            wait_secs: self.wait.as_secs(),
            join_pow: self.join_pow,
            may_start_early: self.may_start_early,
            pow: self.pow,
            variant: opts.variant.clone(),
            variant_text: opts.variant_text.clone(),
            hands: opts.hands,
        }
    }
}

impl KeptPlan {
    /// The plan kept, whole again.
    pub fn plan(self) -> Result<HostPlan, String> {
        let opts = crate::games::registry::SetupOptions {
            variant: self.variant,
            variant_text: self.variant_text,
            hands: self.hands,
            players: self.max_players,
        };
        let invite = self
            .invite
            .iter()
            .map(|h| {
                PublicKey::from_hex(h)
                    .map_err(|_| format!("the kept plan invites '{h}', which is not a key"))
            })
            .collect::<Result<_, _>>()?;
        Ok(HostPlan {
            setup_for: Some(setup_for(&self.game, opts)),
            game: self.game,
            setup: self.setup,
            seats: self.seats,
            relays: self.relays,
            deadlines: self.deadlines,
            title: self.title,
            public: self.public,
            min_players: self.min_players,
            max_players: self.max_players,
            invite,
            start_after: self.start_after_secs.map(Duration::from_secs),
            wait: Duration::from_secs(self.wait_secs),
            join_pow: self.join_pow,
            may_start_early: self.may_start_early,
            pow: self.pow,
        })
    }

    /// The game's registry name.
    pub fn game(&self) -> &str {
        &self.game
    }

    /// The table's relays.
    pub fn relays(&self) -> &[String] {
        &self.relays
    }
}

/// What the lobby is doing, for the person watching it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobbyNews {
    Announced {
        naddr: String,
    },
    /// `name`: the invitee's profile name, else short npub (as for every name below).
    Invited {
        name: String,
        accepted_by: usize,
    },
    InviteFailed {
        name: String,
        reason: String,
    },
    Joined {
        name: String,
        players: usize,
        max: usize,
    },
    /// A join request turned down: the asker is named by short npub only, never looked up
    /// (a flood of strangers' requests must not cost a profile query each).
    Refused {
        npub: String,
        reason: String,
    },
    Left {
        name: String,
    },
    Starting {
        players: usize,
    },
    /// Every seat is taken; we wait in case a listed player never reveals and a seat reopens.
    Full {
        players: usize,
    },
    Revealed {
        npub: String,
    },
    /// The seats in order, by name.
    Seated {
        names: Vec<String>,
    },
    /// Listed players who never revealed their nonce: their seats open again.
    Dropped {
        names: Vec<String>,
    },
    /// Listed players whose authorization of their table key would lapse before the seating
    /// could be announced (the host was away past the lobby's expiry): the table is cancelled.
    Lapsed {
        names: Vec<String>,
    },
    Cancelled {
        reason: String,
    },
    /// The host may start now with the players listed (at least the table's minimum) instead
    /// of waiting for the seats still free.
    MayStart {
        players: usize,
        max: usize,
    },
    /// The host asked to start before the table's minimum joined.
    TooFewToStart {
        players: usize,
        min: usize,
    },
    /// A joiner's place at a table still filling: who is there, how many seats are left.
    /// Names are profile names where one exists, else short npubs.
    Waiting {
        host: String,
        /// The game as people call it ("Perudo").
        game: String,
        /// Players listed since the last news (empty the first time and when one left).
        newcomers: Vec<String>,
        /// Whether this is the first news of the wait (the joiner was just listed).
        first: bool,
        players: usize,
        min: usize,
        max: usize,
    },
}

impl LobbyNews {
    /// The news in words (`None`: nothing worth saying); `how_to_start`: how the person hosting
    /// starts early with the players there ("type start (then Enter)").
    pub fn words(&self, how_to_start: &str) -> Option<String> {
        Some(match self {
            LobbyNews::Announced { naddr } => {
                format!("table announced; others join with:\n  tolerance join {naddr}")
            }
            LobbyNews::Invited { name, accepted_by } => {
                format!("invited {name} ({accepted_by} relays took the invitation)")
            }
            LobbyNews::InviteFailed { name, reason } => {
                format!("could not invite {name}: {reason}")
            }
            LobbyNews::Joined { name, players, max } => {
                if *players > 0 {
                    format!("{name} joined ({players}/{max})")
                } else {
                    format!("{name} asked to join")
                }
            }
            LobbyNews::Refused { npub, reason } => format!("refused {npub}: {reason}"),
            LobbyNews::Left { name } => format!("{name} left"),
            LobbyNews::Starting { players } => {
                format!("starting with {players} players: drawing the seating order")
            }
            LobbyNews::Full { players } => format!(
                "all {players} seats are taken; waiting in case one opens again (a listed player \
             who does not confirm loses the seat)"
            ),
            LobbyNews::Revealed { .. } => return None,
            LobbyNews::Dropped { names } => format!(
                "{} never revealed a seating nonce: the seat{} open again",
                names.join(", "),
                if names.len() == 1 { " is" } else { "s are" }
            ),
            LobbyNews::Lapsed { names } => format!(
                "the authorization of {} lapsed before the table could be seated",
                names.join(", ")
            ),
            LobbyNews::Seated { names } => format!("seated: {}", names.join(", ")),
            LobbyNews::Cancelled { reason } => format!("table cancelled: {reason}"),
            LobbyNews::MayStart { players, max } => {
                let free = max - players;
                format!(
                    "{how_to_start} to start now with the {players} players here, or wait for {}",
                    seats_words(free, "more player")
                )
            }
            LobbyNews::TooFewToStart { players, min } => format!(
                "cannot start yet: this table needs at least {min} players and {players} {} here",
                if *players == 1 { "is" } else { "are" }
            ),
            LobbyNews::Waiting {
                host,
                game,
                newcomers,
                first,
                players,
                min,
                max,
            } => {
                // "Ana's Perudo table"; a title that is a name of its own ("The Game of
                // Tolerance") reads without its article there.
                let game = game.strip_prefix("The ").unwrap_or(game);
                let table = format!("{host}'s {game} table");
                let what = if *first {
                    format!("seated at {table}")
                } else if newcomers.is_empty() {
                    format!("a player left {table}")
                } else {
                    format!("{} sat down at {table}", newcomers.join(", "))
                };
                let mut wait = format!(
                    "waiting for {} ({players}/{max})",
                    seats_words(max - players, "more player")
                );
                if players >= min {
                    wait.push_str(&format!("; {host} may start with the {players} here"));
                }
                format!("{what} — {wait}")
            }
        })
    }
}

/// "1 more player", "2 more players".
fn seats_words(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

/// The invitation a host sends (by NIP-17 private message) to an invited key.
pub fn invitation_text(game: &str, title: &str, naddr: &str) -> String {
    let game = crate::games::registry::all()
        .into_iter()
        .find(|g| g.name == game)
        .map_or(game, |g| g.title);
    format!(
        "You are invited to a table of {game}{}. Join with:\n  tolerance join {naddr}",
        if title.is_empty() {
            String::new()
        } else {
            format!(" ({title})")
        }
    )
}

/// The tags of an invitation's message (NIP-17): its subject, and the table it invites to (a
/// coordinate), by which `tolerance tables` lists it.
pub fn invitation_tags(host: &PublicKey, table: &str) -> Vec<Tag> {
    vec![
        crate::wire::subject(INVITATION_SUBJECT),
        Tag::coordinate(crate::wire::table_coordinate(host, table), None),
    ]
}

/// The subject of an invitation's message.
pub const INVITATION_SUBJECT: &str = "tolerance table invitation";

/// Join requests a key may make at one table: a key whose seat was taken back (it never
/// revealed its nonce) does not get it again.
const JOINS_PER_KEY: usize = 1;

/// How far past the host's clock a seated announcement about to be published may be stamped.
const PUBLISH_SLACK_SECS: u64 = 5;

/// What the host's driver does next, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum HostAction {
    /// Sign and publish this version of the announcement, stamped `at` (Unix seconds; strictly
    /// later than the version before, since relays keep the newest and break ties by id).
    Announce {
        spec: Box<TableSpec>,
        at: u64,
    },
    /// Sign and send this lobby message as the host.
    Lobby(LobbyMsg),
    News(HostNews),
}

/// What the lobby is doing, for the person hosting. Players are named by key; the driver names
/// them as people (profile names, else short npubs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostNews {
    /// `who`: the person (identity) behind the key that joined.
    Joined {
        who: PublicKey,
        players: usize,
        max: usize,
    },
    /// A join request turned down; `npub` is short, never looked up (a flood of strangers'
    /// requests must not cost a profile query each).
    Refused {
        npub: String,
        reason: String,
    },
    Left {
        who: PublicKey,
    },
    Starting {
        players: usize,
    },
    /// `key`: the seat key that opened its nonce.
    Revealed {
        key: PublicKey,
    },
    /// The people in the seats, in seat order.
    Seated {
        who: Vec<PublicKey>,
    },
    /// Listed people who never revealed their nonce: their seats open again.
    Dropped {
        who: Vec<PublicKey>,
    },
    /// Listed people whose authorization would lapse before the seating could be announced,
    /// because the host was away past the lobby's own expiry: the table is cancelled.
    Lapsed {
        who: Vec<PublicKey>,
    },
    MayStart {
        players: usize,
        max: usize,
    },
    TooFewToStart {
        players: usize,
        min: usize,
    },
}

impl HostNews {
    /// The keys the news names (to look their names up first).
    pub fn keys(&self) -> Vec<PublicKey> {
        match self {
            HostNews::Joined { who, .. } | HostNews::Left { who } => vec![*who],
            HostNews::Seated { who } | HostNews::Dropped { who } | HostNews::Lapsed { who } => {
                who.clone()
            }
            _ => Vec::new(),
        }
    }

    /// The news as the person hosting reads it, each key named by `name`.
    pub fn named(self, name: &dyn Fn(&PublicKey) -> String) -> LobbyNews {
        let all = |who: Vec<PublicKey>| who.iter().map(name).collect();
        match self {
            HostNews::Joined { who, players, max } => LobbyNews::Joined {
                name: name(&who),
                players,
                max,
            },
            HostNews::Refused { npub, reason } => LobbyNews::Refused { npub, reason },
            HostNews::Left { who } => LobbyNews::Left { name: name(&who) },
            HostNews::Starting { players } => LobbyNews::Starting { players },
            HostNews::Revealed { key } => LobbyNews::Revealed {
                npub: key.to_bech32().unwrap_or_else(|_| key.to_hex()),
            },
            HostNews::Seated { who } => LobbyNews::Seated { names: all(who) },
            HostNews::Dropped { who } => LobbyNews::Dropped { names: all(who) },
            HostNews::Lapsed { who } => LobbyNews::Lapsed { names: all(who) },
            HostNews::MayStart { players, max } => LobbyNews::MayStart { players, max },
            HostNews::TooFewToStart { players, min } => LobbyNews::TooFewToStart { players, min },
        }
    }
}

/// The setup of `game` for each count of players a table started early seats, from the options
/// the host gave for the full table.
pub fn setup_for(game: &str, opts: crate::games::registry::SetupOptions) -> SetupFor {
    let game = game.to_string();
    Box::new(move |players| {
        let opts = crate::games::registry::SetupOptions {
            players,
            ..opts.clone()
        };
        Ok(crate::games::registry::table_setup(&game, &opts)?.0)
    })
}

/// Where the lobby stands after a [`HostLobby::poll`].
#[derive(Debug, Clone, PartialEq)]
pub enum HostState {
    /// Still open or seating: poll again after this long, or when an event comes.
    Wait(Duration),
    /// The seats are fixed; this is the seated announcement.
    Seated(Box<TableSpec>),
    /// The table was cancelled (the cancellation is among the actions), for this reason.
    Cancelled(String),
}

enum Phase {
    Taking,
    /// The host listed the players and opened its nonce; the seating waits for every other
    /// nonce until `until` (ms), counted from the poll after the driver sent the nonce.
    Revealing {
        until: Option<u64>,
    },
    Seated,
    Cancelled(String),
}

/// One hosted table's lobby, from its first announcement to its seating or cancellation.
pub struct HostLobby {
    plan: HostPlan,
    me: PublicKey,
    spec: TableSpec,
    rng: ChaCha20Rng,
    nonce: zeroize::Zeroizing<[u8; 32]>,
    /// When the lobby opened (ms).
    opened: u64,
    events: Vec<Event>,
    seen: HashSet<EventId>,
    /// Every commitment ever listed, in any round.
    listed: HashSet<String>,
    joins: HashMap<PublicKey, usize>,
    banned: HashSet<String>,
    /// Who committed in the current round (the host always has).
    committed: HashSet<String>,
    /// The host asked to start with whoever is there; kept until every listed player has
    /// committed in this round.
    start_asked: bool,
    phase: Phase,
    last_at: Option<u64>,
    out: Vec<HostAction>,
    /// Events taken before a crash or a reload ([`HostLobby::restore`]): the relays send them
    /// again, and they count for the seating's nonces but are not taken twice.
    taken_before: HashSet<EventId>,
    /// Taken back while the nonces are opened: the players' time starts once the host's own
    /// nonce is out again, as after the closing.
    hold_reveal: bool,
    /// The people whose invitation a relay took ([`Self::invited`]).
    invited: HashSet<PublicKey>,
}

/// What a host keeps of its lobby to take it back after a crash or a reload
/// ([`HostLobby::record`], [`HostLobby::restore`]): the announcement as it stands and what the
/// lobby remembers beside it. Not in it: the seed of the host's seating nonces, secret until
/// each is revealed (the driver keeps it sealed to the host's key), and the plan, which the
/// driver makes again from what the person asked for; nor the lobby's events, which the relays
/// hold and send again.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LobbyRecord {
    pub v: u32,
    pub spec: TableSpec,
    opened: u64,
    last_at: Option<u64>,
    listed: Vec<String>,
    joins: Vec<(String, usize)>,
    banned: Vec<String>,
    committed: Vec<String>,
    start_asked: bool,
    phase: RecordPhase,
    /// Who may sit down at an invite-only table: the invited and the keys let in since.
    invite: Vec<String>,
    /// The lobby events taken (ids, hex).
    taken: Vec<String>,
    /// The people whose invitation a relay took (keys, hex): a lobby taken back invites only
    /// the others.
    #[serde(default)]
    invited: Vec<String>,
}

const LOBBY_RECORD_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum RecordPhase {
    Taking,
    Revealing,
    Seated,
    Cancelled { reason: String },
}

impl HostLobby {
    /// Opens the lobby of table `table` hosted by `me` at `now` (ms since the Unix epoch):
    /// `expires` is [`HostPlan::expires`] of the same moment, `auth` the identity's
    /// authorization of `me` as its table key (§2.3) if any, and `seed` the randomness of the
    /// host's seating nonces (secret, fresh). The first announcement is in [`Self::take`].
    pub fn open(
        plan: HostPlan,
        me: PublicKey,
        table: String,
        (expires, auth): (u64, Option<Box<Event>>),
        seed: [u8; 32],
        now: u64,
    ) -> Result<Self, String> {
        plan.check()?;
        let mut rng = ChaCha20Rng::from_seed(seed);
        let nonce = fresh(&mut rng);
        let spec = TableSpec {
            v: VERSION,
            game: plan.game.clone(),
            table: table.clone(),
            setup: plan.setup.clone(),
            seats: Vec::new(),
            deadlines: plan.deadlines,
            lobby: Some(Lobby {
                status: LobbyStatus::Open,
                title: plan.title.clone(),
                public: plan.public,
                min_players: plan.min_players,
                max_players: plan.max_players,
                relays: plan.relays.clone(),
                players: vec![LobbyPlayer {
                    pubkey: me.to_hex(),
                    commit: seat_commit(&table, &me, &nonce),
                    auth,
                }],
                reason: None,
                round: 0,
                join_pow: plan.join_pow,
                expires: Some(expires),
            }),
            pow: plan.pow,
        };
        let mut lobby = HostLobby {
            plan,
            me,
            spec,
            rng,
            nonce,
            opened: now,
            events: Vec::new(),
            seen: HashSet::new(),
            listed: HashSet::new(),
            joins: HashMap::new(),
            banned: HashSet::new(),
            committed: [me.to_hex()].into(),
            start_asked: false,
            phase: Phase::Taking,
            last_at: None,
            out: Vec::new(),
            taken_before: HashSet::new(),
            hold_reveal: false,
            invited: HashSet::new(),
        };
        lobby.announce(now);
        Ok(lobby)
    }

    /// What to keep to take this lobby back ([`Self::restore`]); kept before the actions taken
    /// since are carried out, so that nothing published is missing from it.
    pub fn record(&self) -> LobbyRecord {
        let hexes = |set: &HashSet<String>| {
            let mut v: Vec<String> = set.iter().cloned().collect();
            v.sort();
            v
        };
        let mut joins: Vec<(String, usize)> =
            self.joins.iter().map(|(k, n)| (k.to_hex(), *n)).collect();
        joins.sort();
        let mut taken: Vec<String> = self
            .seen
            .iter()
            .chain(&self.taken_before)
            .map(|id| id.to_hex())
            .collect();
        taken.sort();
        taken.dedup();
        LobbyRecord {
            v: LOBBY_RECORD_VERSION,
            spec: self.spec.clone(),
            opened: self.opened,
            last_at: self.last_at,
            listed: hexes(&self.listed),
            joins,
            banned: hexes(&self.banned),
            committed: hexes(&self.committed),
            start_asked: self.start_asked,
            phase: match &self.phase {
                Phase::Taking => RecordPhase::Taking,
                Phase::Revealing { .. } => RecordPhase::Revealing,
                Phase::Seated => RecordPhase::Seated,
                Phase::Cancelled(reason) => RecordPhase::Cancelled {
                    reason: reason.clone(),
                },
            },
            invite: self.plan.invite.iter().map(|k| k.to_hex()).collect(),
            taken,
            invited: {
                let mut v: Vec<String> = self.invited.iter().map(|k| k.to_hex()).collect();
                v.sort();
                v
            },
        }
    }

    /// The plan the lobby was opened with (the invited and those let in since among its
    /// `invite`).
    pub fn plan(&self) -> &HostPlan {
        &self.plan
    }

    /// The key that hosts the table (its seat key).
    pub fn host(&self) -> PublicKey {
        self.me
    }

    /// A relay took the invitation sent to `key`: kept with the lobby, so that a lobby taken
    /// back does not invite the same person twice.
    pub fn invited(&mut self, key: PublicKey) {
        self.invited.insert(key);
    }

    /// Of `invitees`, those whose invitation no relay has taken yet: every one in a lobby just
    /// opened; in a lobby taken back, those the host had not reached before it stopped.
    pub fn invitations_owed(&self, invitees: &[PublicKey]) -> Vec<PublicKey> {
        invitees
            .iter()
            .filter(|k| !self.invited.contains(k))
            .copied()
            .collect()
    }

    /// Takes back the lobby `record` kept, after a crash or a reload: `plan` and `me` as it was
    /// opened with, `seed` its seed. The relays' lobby events are then handed in again as they
    /// come ([`Self::on_event`]); those taken before count for the seating without being taken
    /// twice. While the nonces are being opened the host's own goes out again (its first
    /// sending may not have reached a relay), and the lobby as it stands is announced again at
    /// `now` (ms). In words when the record is not this lobby's.
    ///
    /// `latest`: the newest announcement of the table the relays hold, if any. A record older
    /// than it is refused: everything published was kept first, so the relays holding something
    /// newer means this record is not the last one kept (storage that failed to keep, or a copy
    /// from elsewhere), and going on from it could list players for a round whose nonces are
    /// already open.
    pub fn restore(
        plan: HostPlan,
        me: PublicKey,
        record: LobbyRecord,
        seed: [u8; 32],
        (latest, now): (Option<(&TableSpec, u64)>, u64),
    ) -> Result<Self, String> {
        let damaged = |what: &str| format!("the kept record of the table you host {what}");
        if record.v != LOBBY_RECORD_VERSION {
            return Err(damaged(&format!(
                "is of version {}, which this program does not read",
                record.v
            )));
        }
        plan.check()?;
        let l = record
            .spec
            .lobby
            .as_ref()
            .ok_or_else(|| damaged("has no lobby"))?;
        let host = l
            .players
            .first()
            .filter(|p| p.pubkey == me.to_hex())
            .ok_or_else(|| damaged("does not list you as its host"))?;
        // Each round drew one nonce from the seed: the last is the one listed now.
        let mut rng = ChaCha20Rng::from_seed(seed);
        let mut nonce = fresh(&mut rng);
        for _ in 0..l.round {
            nonce = fresh(&mut rng);
        }
        if seat_commit(&record.spec.table, &me, &nonce) != host.commit {
            return Err(damaged(
                "does not open the commitment it lists for you: it is another table's or damaged",
            ));
        }
        if let Some((spec, at)) = latest {
            let kept_at = record.last_at.unwrap_or(0);
            if at > kept_at || (at == kept_at && *spec != record.spec) {
                return Err(damaged(
                    "is older than the table the relays hold (it was not kept when the table \
                     last changed): the table cannot be taken back from it",
                ));
            }
        }
        let key =
            |h: &String| PublicKey::from_hex(h).map_err(|_| damaged("names a key that is not one"));
        let mut plan = plan;
        plan.invite = record.invite.iter().map(key).collect::<Result<_, _>>()?;
        let joins = record
            .joins
            .iter()
            .map(|(k, n)| Ok((key(k)?, *n)))
            .collect::<Result<HashMap<_, _>, String>>()?;
        let taken_before = record
            .taken
            .iter()
            .map(|h| EventId::from_hex(h).map_err(|_| damaged("names an event id that is not one")))
            .collect::<Result<HashSet<_>, String>>()?;
        let invited = record
            .invited
            .iter()
            .map(key)
            .collect::<Result<HashSet<_>, String>>()?;
        let phase = match record.phase {
            RecordPhase::Taking => Phase::Taking,
            // The players' time to open their nonces starts again once the host's own is out
            // again: it may never have reached a relay before the crash.
            RecordPhase::Revealing => Phase::Revealing { until: None },
            RecordPhase::Seated => Phase::Seated,
            RecordPhase::Cancelled { reason } => Phase::Cancelled(reason),
        };
        let mut lobby = HostLobby {
            plan,
            me,
            spec: record.spec,
            rng,
            nonce,
            opened: record.opened,
            events: Vec::new(),
            seen: HashSet::new(),
            listed: record.listed.into_iter().collect(),
            joins,
            banned: record.banned.into_iter().collect(),
            committed: record.committed.into_iter().collect(),
            start_asked: record.start_asked,
            phase,
            last_at: record.last_at,
            out: Vec::new(),
            taken_before,
            hold_reveal: false,
            invited,
        };
        // What was kept may not have gone out, and the lobby may have changed since without an
        // announcement (a fresh commitment in a later round): announced as it stands.
        match lobby.phase {
            Phase::Taking => lobby.announce(now),
            Phase::Revealing { .. } => {
                lobby.announce(now);
                lobby.out.push(lobby.own_reveal());
                lobby.hold_reveal = true;
            }
            // The seated announcement's time is when the game's first step opened: sent again
            // as it was, never at another time.
            Phase::Seated | Phase::Cancelled(_) => {
                if let Some(at) = lobby.last_at {
                    lobby.out.push(HostAction::Announce {
                        spec: Box::new(lobby.spec.clone()),
                        at,
                    });
                }
            }
        }
        Ok(lobby)
    }

    /// The host's lobby message opening its nonce.
    fn own_reveal(&self) -> HostAction {
        HostAction::Lobby(LobbyMsg {
            v: crate::wire::lobby::LOBBY_VERSION,
            table: self.spec.table.clone(),
            body: LobbyBody::Reveal {
                nonce: hex::encode(*self.nonce),
            },
        })
    }

    /// `key` will not sit down after all (a bot that ran in the page that reloaded): its place
    /// opens again while the lobby takes players. Once the players are listed for the seating it
    /// stays, and the seating drops it for never opening its nonce.
    pub fn forget(&mut self, key: &PublicKey, now: u64) {
        if !matches!(self.phase, Phase::Taking) || *key == self.me {
            return;
        }
        let identity = self.lobby().identity_of(key);
        let l = self.lobby_mut();
        let before = l.players.len();
        l.players.retain(|p| p.pubkey != key.to_hex());
        if l.players.len() < before {
            self.committed.remove(&key.to_hex());
            self.news(HostNews::Left { who: identity });
            self.announce(now);
        }
    }

    /// Whether actions are due ([`Self::take`]): what a driver keeps before carrying them out.
    pub fn pending(&self) -> bool {
        !self.out.is_empty()
    }

    /// Whether the seats are fixed (the table is the players' now, not the lobby's).
    pub fn is_seated(&self) -> bool {
        matches!(self.phase, Phase::Seated)
    }

    /// The table as announced last.
    pub fn spec(&self) -> &TableSpec {
        &self.spec
    }

    /// The actions due, in order, since the last call.
    pub fn take(&mut self) -> Vec<HostAction> {
        std::mem::take(&mut self.out)
    }

    fn lobby(&self) -> &Lobby {
        self.spec
            .lobby
            .as_ref()
            .expect("a hosted table has a lobby")
    }

    fn lobby_mut(&mut self) -> &mut Lobby {
        self.spec
            .lobby
            .as_mut()
            .expect("a hosted table has a lobby")
    }

    fn announce(&mut self, now: u64) {
        let now = now / 1000;
        let at = match self.last_at {
            Some(t) if now <= t => t + 1,
            _ => now,
        };
        self.last_at = Some(at);
        self.out.push(HostAction::Announce {
            spec: Box::new(self.spec.clone()),
            at,
        });
    }

    fn news(&mut self, n: HostNews) {
        self.out.push(HostAction::News(n));
    }

    /// Lets `key` sit down at an invite-only table without an invitation (a bot the person
    /// hosting runs).
    pub fn admit_key(&mut self, key: PublicKey) {
        if !self.plan.invite.contains(&key) {
            self.plan.invite.push(key);
        }
    }

    /// The host asks to start now with the players listed (at least the table's minimum).
    pub fn start_now(&mut self) {
        if !matches!(self.phase, Phase::Taking) {
            return;
        }
        let (players, min) = (self.lobby().players.len(), self.plan.min_players as usize);
        if players >= min {
            self.start_asked = true;
        } else {
            self.news(HostNews::TooFewToStart { players, min });
        }
    }

    /// Cancels the table for `reason` (a failure of the driver's, such as relays that refused
    /// the announcement): the cancellation is announced.
    pub fn cancel(&mut self, reason: String, now: u64) {
        if matches!(self.phase, Phase::Cancelled(_)) {
            return;
        }
        let l = self.lobby_mut();
        l.status = LobbyStatus::Cancelled;
        l.reason = Some(reason.clone());
        self.spec.seats.clear();
        self.announce(now);
        self.phase = Phase::Cancelled(reason);
    }

    /// An event of the lobby's subscription (anything else is ignored).
    pub fn on_event(&mut self, ev: Event, now: u64) {
        // Checked (signature included) before its id counts as seen: a forged copy under a
        // genuine id must not shut the real event out.
        let Ok(msg) = parse_lobby(&ev, &self.spec.table) else {
            return;
        };
        // Each relay sends its own copy, and again after a reconnection: taken once.
        if !self.seen.insert(ev.id) {
            return;
        }
        self.events.push(ev.clone());
        if self.taken_before.contains(&ev.id) {
            return;
        }
        match self.phase {
            Phase::Taking => self.take_request(&ev, msg.body, now),
            Phase::Revealing { .. } => {
                if let LobbyBody::Reveal { .. } = msg.body {
                    self.news(HostNews::Revealed { key: ev.pubkey });
                }
            }
            Phase::Seated | Phase::Cancelled(_) => {}
        }
    }

    fn take_request(&mut self, ev: &Event, body: LobbyBody, now: u64) {
        let who = ev.pubkey;
        let me = self.me;
        let max = self.plan.max_players as usize;
        let players = self.lobby().players.len();
        // Whether the listed players changed: the announcement then says so, so that anyone
        // listing the table or waiting at it sees the count as it is.
        let mut changed = false;
        match body {
            LobbyBody::Join { commit, auth } => {
                if who == me {
                    return;
                }
                if let Some(d) = self.lobby().join_pow {
                    if !ev.check_pow(d) {
                        self.news(HostNews::Refused {
                            npub: short_npub(&who),
                            reason: format!("its join request lacks the proof of work ({d} bits)"),
                        });
                        return;
                    }
                }
                let fresh_round = self.lobby().round > 0;
                if let Some(p) = self
                    .spec
                    .lobby
                    .as_mut()
                    .expect("lobby")
                    .players
                    .iter_mut()
                    .find(|p| p.pubkey == who.to_hex())
                {
                    // A listed player's fresh commitment for a new round: never one listed in an
                    // earlier round, whose nonce may have been revealed.
                    if fresh_round
                        && !self.committed.contains(&p.pubkey)
                        && !self.listed.contains(&commit)
                    {
                        self.listed.insert(commit.clone());
                        p.commit = commit;
                        self.committed.insert(p.pubkey.clone());
                    }
                    return;
                }
                let identity = match self.admit(&who, auth.as_deref(), players >= max, now) {
                    Ok(identity) => identity,
                    Err(None) => return,
                    Err(Some(reason)) => {
                        self.news(HostNews::Refused {
                            npub: short_npub(&who),
                            reason,
                        });
                        return;
                    }
                };
                self.listed.insert(commit.clone());
                self.lobby_mut().players.push(LobbyPlayer {
                    pubkey: who.to_hex(),
                    commit,
                    auth,
                });
                self.committed.insert(who.to_hex());
                changed = true;
                let players = self.lobby().players.len();
                self.news(HostNews::Joined {
                    who: identity,
                    players,
                    max,
                });
            }
            LobbyBody::Leave {} => {
                let identity = self.lobby().identity_of(&who);
                let l = self.lobby_mut();
                let before = l.players.len();
                l.players.retain(|p| p.pubkey != who.to_hex() || who == me);
                if l.players.len() < before {
                    changed = true;
                    self.news(HostNews::Left { who: identity });
                }
            }
            LobbyBody::Reveal { .. } => {}
        }
        if changed {
            let listed = self.lobby().players.len();
            // Full: the next poll closes the lobby, and that announcement says it.
            if listed < max {
                self.announce(now);
                if listed >= self.plan.min_players as usize && self.plan.may_start_early {
                    self.news(HostNews::MayStart {
                        players: listed,
                        max,
                    });
                }
            }
        }
    }

    /// Whether a new join request by `who` (with its authorization, if any) gets a place: the
    /// identity it seats, else why not in words (`None`: ignored without a word — the table is
    /// full, or the key asked too often).
    fn admit(
        &mut self,
        who: &PublicKey,
        auth: Option<&Event>,
        full: bool,
        now: u64,
    ) -> Result<PublicKey, Option<String>> {
        if full {
            return Err(None);
        }
        if self.banned.contains(&who.to_hex()) {
            return Err(Some(
                "it held a seat before and never revealed its nonce".into(),
            ));
        }
        let n = self.joins.entry(*who).or_default();
        *n += 1;
        if *n > JOINS_PER_KEY {
            return Err(None);
        }
        // The person behind a table key: checked here, at the host's clock, so a join that
        // every client would refuse in the announcement is never listed (§2.3).
        let now = now / 1000;
        let lobby = self.lobby();
        let identity = match auth {
            None => *who,
            Some(a) => {
                let identity = check_auth(a, &self.me, &self.spec.table, who, now)
                    .map_err(|e| Some(e.to_string()))?;
                // Listed, it must still hold when the table is seated, or every client would
                // refuse the seated announcement and the table with it: good past the lobby's
                // own expiry.
                let expires = expires_at(a);
                let seated_by = seated_by(lobby.expires.unwrap_or(now), &self.plan.deadlines);
                if expires <= seated_by {
                    return Err(Some(format!(
                        "its authorization expires at {expires} (Unix seconds), before this \
                         table could be seated (by {seated_by})"
                    )));
                }
                identity
            }
        };
        let invited = &self.plan.invite;
        if !lobby.public && !invited.contains(who) && !invited.contains(&identity) {
            return Err(Some("not invited".into()));
        }
        if lobby.players.iter().any(|p| p.identity() == Some(identity)) {
            return Err(Some(format!(
                "{} holds a place at this table already",
                short_npub(&identity)
            )));
        }
        Ok(identity)
    }

    /// Moves the lobby on at `now` (ms): closes it when the seats are full or it is time to
    /// start, seats the table when every nonce is in, reopens seats whose players never
    /// revealed, cancels when the wait is over. `name` names a key for the cancellation's words.
    pub fn poll(&mut self, now: u64, name: &dyn Fn(&PublicKey) -> String) -> HostState {
        loop {
            match self.phase {
                Phase::Seated => return HostState::Seated(Box::new(self.spec.clone())),
                Phase::Cancelled(ref reason) => return HostState::Cancelled(reason.clone()),
                Phase::Taking => {
                    if let Some(wait) = self.taking(now, name) {
                        return HostState::Wait(wait);
                    }
                    if matches!(self.phase, Phase::Revealing { until: None }) {
                        // The players' time to reveal starts once the driver has published the
                        // closing and the host's nonce, not while it mines and sends them.
                        return HostState::Wait(Duration::ZERO);
                    }
                }
                Phase::Revealing { until: None } if self.hold_reveal => {
                    self.hold_reveal = false;
                    return HostState::Wait(Duration::ZERO);
                }
                Phase::Revealing { until: None } => {
                    self.phase = Phase::Revealing {
                        until: Some(now + self.spec.deadlines.crypto_ms),
                    };
                }
                Phase::Revealing { until: Some(until) } => {
                    if let Some(wait) = self.revealing(until, now) {
                        return HostState::Wait(wait);
                    }
                }
            }
        }
    }

    /// Taking join requests: how long to wait for the next, or `None` when the phase changed.
    fn taking(&mut self, now: u64, name: &dyn Fn(&PublicKey) -> String) -> Option<Duration> {
        let l = self.lobby();
        let players = l.players.len();
        let (min, max) = (
            self.plan.min_players as usize,
            self.plan.max_players as usize,
        );
        let all_committed = l.players.iter().all(|p| self.committed.contains(&p.pubkey));
        let start_due = self
            .plan
            .start_after
            .map(|d| self.opened + d.as_millis() as u64);
        let start_now = self.start_asked || start_due.is_some_and(|t| now >= t);
        if all_committed && (players >= max || (players >= min && start_now)) {
            self.close(now);
            return None;
        }
        let cancel_at = self.opened + self.plan.wait.as_millis() as u64;
        if now >= cancel_at {
            let reason = self.unstarted_reason(name);
            self.cancel(reason, now);
            return None;
        }
        let next = start_due
            .filter(|t| *t > now)
            .map_or(cancel_at, |t| t.min(cancel_at));
        Some(Duration::from_millis(next - now))
    }

    /// Closing: the players and their commitments are fixed before anyone reveals.
    fn close(&mut self, now: u64) {
        let listed = self.lobby().players.len();
        // Started early: most games' setups name their player count, so the table plays the
        // same setup for the players there (PROTOCOL §2.1).
        let setup = if listed < self.plan.max_players as usize {
            match &self.plan.setup_for {
                Some(setup_for) => setup_for(listed as u8),
                None => Ok(self.plan.setup.clone()),
            }
        } else {
            Ok(self.plan.setup.clone())
        };
        let setup = match setup {
            Ok(s) => s,
            Err(reason) => return self.cancel(reason, now),
        };
        self.spec.setup = setup;
        self.lobby_mut().status = LobbyStatus::Starting;
        self.news(HostNews::Starting { players: listed });
        self.announce(now);
        let reveal = self.own_reveal();
        self.out.push(reveal);
        self.phase = Phase::Revealing { until: None };
    }

    /// Waiting for the nonces: how long still, or `None` when the phase changed.
    fn revealing(&mut self, until: u64, now: u64) -> Option<Duration> {
        let (reveals, _) = collect_reveals(&self.spec, &self.events);
        let missing = match seats_from_reveals(&self.spec, &reveals) {
            Ok(seats) => {
                // Every client judges the listed authorizations at the seated announcement's
                // own time (§2.3): one lapsed by then would make them all refuse the seating,
                // so the table is not seated with it.
                let at = now / 1000 + PUBLISH_SLACK_SECS;
                let gone = lapsed(self.lobby(), at);
                if !gone.is_empty() {
                    self.cancel_lapsed(&gone, now);
                    return None;
                }
                let who = self.identities(&seats);
                self.spec.seats = seats;
                let l = self.lobby_mut();
                l.status = LobbyStatus::Seated;
                l.expires = None;
                self.announce(now);
                self.news(HostNews::Seated { who });
                self.phase = Phase::Seated;
                return None;
            }
            Err(_) if now < until => return Some(Duration::from_millis(until - now)),
            Err(missing) => missing,
        };
        if missing.contains(&self.me.to_hex()) {
            self.cancel("the host's own nonce did not reach the relays".into(), now);
            return None;
        }
        // Their seats open again; everyone left commits afresh so nobody chooses a nonce
        // knowing the others' revealed ones.
        let who = self.identities(&missing);
        self.banned.extend(missing.iter().cloned());
        self.news(HostNews::Dropped { who });
        self.nonce = fresh(&mut self.rng);
        let commit = seat_commit(&self.spec.table, &self.me, &self.nonce);
        let l = self.lobby_mut();
        l.players.retain(|p| !missing.contains(&p.pubkey));
        l.players[0].commit = commit;
        l.round += 1;
        l.status = LobbyStatus::Open;
        self.committed = [self.me.to_hex()].into();
        self.start_asked = false;
        self.announce(now);
        self.phase = Phase::Taking;
        None
    }

    /// The listed authorizations in `gone` (seat keys in hex) lapse before the seating could be
    /// announced. An authorization is listed only if it outlasts the lobby's own expiry by the
    /// margin of §2.3, so the host was away well past that expiry: the relays have dropped the
    /// lobby (NIP-40) and no new round could be found there. The table is cancelled in words.
    fn cancel_lapsed(&mut self, gone: &[String], now: u64) {
        let me = self.me.to_hex();
        let others: Vec<String> = gone.iter().filter(|k| **k != me).cloned().collect();
        if !others.is_empty() {
            let who = self.identities(&others);
            self.news(HostNews::Lapsed { who });
        }
        let reason = if gone.contains(&me) {
            "the host's own authorization of its table key lapsed before the table could be \
             seated: host it again"
        } else {
            "the host was away past the lobby's own expiry, and a listed player's authorization \
             lapsed meanwhile: host the table again"
        };
        self.cancel(reason.into(), now);
    }

    /// The people behind listed seat keys (hex), in their order (§2.3).
    fn identities(&self, hexes: &[String]) -> Vec<PublicKey> {
        hexes
            .iter()
            .filter_map(|h| PublicKey::from_hex(h).ok())
            .map(|k| self.lobby().identity_of(&k))
            .collect()
    }

    /// Why a table that never started is cancelled, in words: nobody came, too few came, or
    /// enough came and the host neither started nor filled the table.
    fn unstarted_reason(&self, name: &dyn Fn(&PublicKey) -> String) -> String {
        let listed = &self.lobby().players;
        let players = listed.len();
        let (min, max) = (
            self.plan.min_players as usize,
            self.plan.max_players as usize,
        );
        let within = duration_words(self.plan.wait);
        let missing: Vec<String> = self
            .plan
            .invite
            .iter()
            .filter(|k| !listed.iter().any(|p| p.pubkey == k.to_hex()))
            .map(name)
            .collect();
        let never = if missing.is_empty() {
            String::new()
        } else {
            format!("; never joined: {}", missing.join(", "))
        };
        if players <= 1 {
            format!("nobody else came within {within}{never}")
        } else if players < min {
            format!(
                "only {players} of the {min} players this table needs came within \
                 {within}{never}"
            )
        } else {
            format!(
                "{players} of {max} seats were taken within {within} and the host did not \
                 start with fewer{never}"
            )
        }
    }
}

fn fresh(rng: &mut ChaCha20Rng) -> zeroize::Zeroizing<[u8; 32]> {
    let mut n = zeroize::Zeroizing::new([0u8; 32]);
    rng.fill_bytes(n.as_mut());
    n
}

/// The newest announcement of `host`'s `table` among `events` (checked), with its time: what a
/// lobby taken back ([`HostLobby::restore`]) is held against.
pub fn newest_of(events: &[Event], host: &PublicKey, table: &str) -> Option<(TableSpec, u64)> {
    crate::wire::lobby::newest_announcements(events)
        .into_iter()
        .find(|(ev, spec)| ev.pubkey == *host && spec.table == table)
        .map(|(ev, spec)| (spec, ev.created_at.as_secs()))
}

/// The listed players whose authorization does not hold at `at` (Unix seconds).
pub(crate) fn lapsed(lobby: &Lobby, at: u64) -> Vec<String> {
    lobby
        .players
        .iter()
        .filter(|p| p.auth.as_ref().is_some_and(|a| expires_at(a) <= at))
        .map(|p| p.pubkey.clone())
        .collect()
}

/// A time as people say it: "10 minutes", "1 minute", "90 s", "2 hours", "2 minutes 30 s",
/// "400 ms".
pub fn duration_words(d: Duration) -> String {
    let s = d.as_secs();
    let plural = |n: u64, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    if s == 0 {
        format!("{} ms", d.as_millis())
    } else if s >= 3600 && s.is_multiple_of(3600) {
        plural(s / 3600, "hour")
    } else if s >= 60 && s.is_multiple_of(60) {
        plural(s / 60, "minute")
    } else if s >= 120 {
        format!("{} {} s", plural(s / 60, "minute"), s % 60)
    } else {
        format!("{s} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::lobby::{check_seating, lobby_event, SeatingFault, LOBBY_VERSION};

    const T0: u64 = 1_800_000_000_000;

    fn plan(max: u8) -> HostPlan {
        HostPlan {
            game: "perudo".into(),
            setup: serde_json::json!({"players": max}),
            seats: 6,
            relays: vec!["ws://127.0.0.1:1".into()],
            deadlines: Deadlines::default(),
            title: String::new(),
            public: true,
            min_players: 2,
            max_players: max,
            invite: Vec::new(),
            start_after: None,
            wait: Duration::from_secs(600),
            join_pow: None,
            may_start_early: true,
            setup_for: Some(Box::new(|n| Ok(serde_json::json!({ "players": n })))),
            pow: 0,
        }
    }

    struct Player {
        keys: Keys,
        nonce: [u8; 32],
    }

    impl Player {
        fn new(n: u8) -> Self {
            Player {
                keys: Keys::generate(),
                nonce: [n; 32],
            }
        }

        fn says(&self, host: &HostLobby, body: LobbyBody) -> Event {
            let msg = LobbyMsg {
                v: LOBBY_VERSION,
                table: host.spec().table.clone(),
                body,
            };
            lobby_event(&host.me, &msg)
                .sign_with_keys(&self.keys)
                .expect("signs")
        }

        fn join(&self, host: &HostLobby) -> Event {
            let commit = seat_commit(&host.spec().table, &self.keys.public_key(), &self.nonce);
            self.says(host, LobbyBody::Join { commit, auth: None })
        }

        /// The same join request as a new event (another time), not a copy of the first.
        fn join_again(&self, host: &HostLobby) -> Event {
            let commit = seat_commit(&host.spec().table, &self.keys.public_key(), &self.nonce);
            let msg = LobbyMsg {
                v: LOBBY_VERSION,
                table: host.spec().table.clone(),
                body: LobbyBody::Join { commit, auth: None },
            };
            lobby_event(&host.me, &msg)
                .custom_created_at(Timestamp::from(1))
                .sign_with_keys(&self.keys)
                .expect("signs")
        }

        fn reveal(&self, host: &HostLobby) -> Event {
            self.says(
                host,
                LobbyBody::Reveal {
                    nonce: hex::encode(self.nonce),
                },
            )
        }
    }

    fn hosted(max: u8) -> (HostLobby, Keys) {
        let keys = Keys::generate();
        let p = plan(max);
        let expires = p.expires(T0 / 1000);
        let lobby = HostLobby::open(
            p,
            keys.public_key(),
            "ab".repeat(32),
            (expires, None),
            [7; 32],
            T0,
        )
        .expect("opens");
        (lobby, keys)
    }

    fn no_names(k: &PublicKey) -> String {
        short_npub(k)
    }

    fn announced(actions: &[HostAction]) -> Vec<(LobbyStatus, usize, u64)> {
        actions
            .iter()
            .filter_map(|a| match a {
                HostAction::Announce { spec, at } => {
                    let l = spec.lobby.as_ref().expect("lobby");
                    Some((l.status, l.players.len(), *at))
                }
                _ => None,
            })
            .collect()
    }

    fn news(actions: &[HostAction]) -> Vec<HostNews> {
        actions
            .iter()
            .filter_map(|a| match a {
                HostAction::News(n) => Some(n.clone()),
                _ => None,
            })
            .collect()
    }

    /// The host's own reveal, as its driver would sign and send it.
    fn host_reveal(actions: &[HostAction], host: &HostLobby, keys: &Keys) -> Event {
        let msg = actions
            .iter()
            .find_map(|a| match a {
                HostAction::Lobby(m) => Some(m.clone()),
                _ => None,
            })
            .expect("the host opens its nonce");
        lobby_event(&host.me, &msg)
            .sign_with_keys(keys)
            .expect("signs")
    }

    #[test]
    fn a_full_table_is_seated_by_every_nonce_and_every_client_accepts_the_seating() {
        let (mut host, keys) = hosted(3);
        let first = host.take();
        assert_eq!(announced(&first), vec![(LobbyStatus::Open, 1, T0 / 1000)]);
        let (ana, bo) = (Player::new(1), Player::new(2));
        host.on_event(ana.join(&host), T0 + 10);
        // The same key asking again is not listed twice.
        host.on_event(ana.join(&host), T0 + 20);
        assert!(matches!(host.poll(T0 + 30, &no_names), HostState::Wait(_)));
        let joined = host.take();
        assert_eq!(
            announced(&joined),
            vec![(LobbyStatus::Open, 2, T0 / 1000 + 1)]
        );
        assert_eq!(
            news(&joined),
            vec![
                HostNews::Joined {
                    who: ana.keys.public_key(),
                    players: 2,
                    max: 3
                },
                HostNews::MayStart { players: 2, max: 3 }
            ]
        );
        host.on_event(bo.join(&host), T0 + 40);
        assert!(matches!(host.poll(T0 + 50, &no_names), HostState::Wait(_)));
        let closing = host.take();
        assert_eq!(
            announced(&closing),
            vec![(LobbyStatus::Starting, 3, T0 / 1000 + 2)]
        );
        let mine = host_reveal(&closing, &host, &keys);
        let mut lobby_events = vec![mine.clone(), ana.reveal(&host), bo.reveal(&host)];
        // Every relay sends its copy: each event counts once.
        for ev in lobby_events.iter().chain(&lobby_events) {
            host.on_event(ev.clone(), T0 + 60);
        }
        let revealed = news(&host.take());
        assert_eq!(revealed.len(), 3, "one news per nonce: {revealed:?}");
        let HostState::Seated(spec) = host.poll(T0 + 70, &no_names) else {
            panic!("every nonce is in: the table is seated");
        };
        assert_eq!(spec.seats.len(), 3);
        assert_eq!(check_seating(&spec, &lobby_events), Ok(()));
        // A seating the host would rather have is refused by every client.
        let mut bent = spec.clone();
        bent.seats.reverse();
        assert!(check_seating(&bent, &lobby_events).is_err());
        lobby_events.pop();
        assert!(matches!(
            check_seating(&spec, &lobby_events),
            Err(SeatingFault::Missing(_))
        ));
        let seated = host.take();
        assert_eq!(
            announced(&seated),
            vec![(LobbyStatus::Seated, 3, T0 / 1000 + 3)]
        );
        assert!(matches!(news(&seated).last(), Some(HostNews::Seated { who }) if who.len() == 3));
    }

    #[test]
    fn a_player_who_never_reveals_loses_the_seat_for_good_and_the_rest_commit_afresh() {
        let (mut host, keys) = hosted(3);
        host.take();
        let (ana, bo) = (Player::new(1), Player::new(2));
        let ana_join = ana.join(&host);
        host.on_event(ana_join.clone(), T0);
        host.on_event(bo.join(&host), T0);
        assert_eq!(
            host.poll(T0, &no_names),
            HostState::Wait(Duration::ZERO),
            "closed: the drivers publish before the players' time to reveal starts"
        );
        let closing = host.take();
        let old_commit = host.spec().lobby.as_ref().unwrap().players[0]
            .commit
            .clone();
        host.on_event(host_reveal(&closing, &host, &keys), T0 + 1);
        host.on_event(ana.reveal(&host), T0 + 2);
        // Bo never reveals: within the crypto deadline the host waits.
        let crypto = host.spec().deadlines.crypto_ms;
        assert_eq!(
            host.poll(T0 + 100, &no_names),
            HostState::Wait(Duration::from_millis(crypto))
        );
        assert_eq!(
            host.poll(T0 + 99 + crypto, &no_names),
            HostState::Wait(Duration::from_millis(1))
        );
        let crypto = crypto + 100;
        assert!(matches!(
            host.poll(T0 + crypto, &no_names),
            HostState::Wait(_)
        ));
        let reopened = host.take();
        let said = news(&reopened);
        assert_eq!(
            said[2..],
            [HostNews::Dropped {
                who: vec![bo.keys.public_key()]
            }]
        );
        assert!(said[..2]
            .iter()
            .all(|n| matches!(n, HostNews::Revealed { .. })));
        let l = host.spec().lobby.clone().unwrap();
        assert_eq!(
            (l.status, l.round, l.players.len()),
            (LobbyStatus::Open, 1, 2)
        );
        assert_ne!(l.players[0].commit, old_commit, "the host commits afresh");
        // Bo may not come back; Ana's fresh commitment is taken.
        host.on_event(bo.join_again(&host), T0 + crypto + 1);
        assert!(matches!(
            news(&host.take()).as_slice(),
            [HostNews::Refused { reason, .. }] if reason.contains("never revealed")
        ));
        // Ana's first join again (a relay's copy, or sent again after a reconnection), and the
        // same commitment under a new event: neither is a fresh commitment, so the table cannot
        // start on a nonce that may be known.
        host.on_event(ana_join, T0 + crypto + 1);
        let again = ana.join_again(&host);
        host.on_event(again, T0 + crypto + 1);
        host.start_now();
        assert!(matches!(
            host.poll(T0 + crypto + 1, &no_names),
            HostState::Wait(_)
        ));
        assert_eq!(
            host.spec().lobby.as_ref().unwrap().status,
            LobbyStatus::Open,
            "the table waits for Ana's fresh commitment"
        );
        let ana2 = Player {
            keys: ana.keys.clone(),
            nonce: [9; 32],
        };
        host.on_event(ana2.join(&host), T0 + crypto + 2);
        host.start_now();
        host.poll(T0 + crypto + 3, &no_names);
        let closing = host.take();
        let l = host.spec().lobby.clone().unwrap();
        assert_eq!(l.status, LobbyStatus::Starting);
        let fresh = seat_commit(&host.spec().table, &ana.keys.public_key(), &[9; 32]);
        assert_eq!(
            l.players[1].commit, fresh,
            "the listed player's new commitment"
        );
        // Started early with two: the setup is the game's for two.
        assert_eq!(host.spec().setup, serde_json::json!({"players": 2}));
        host.on_event(host_reveal(&closing, &host, &keys), T0 + crypto + 4);
        host.on_event(ana2.reveal(&host), T0 + crypto + 5);
        assert!(matches!(
            host.poll(T0 + crypto + 6, &no_names),
            HostState::Seated(s) if s.seats.len() == 2
        ));
    }

    /// PROTOCOL §2.3: a host stalled past the margin an authorization was checked against at
    /// the join re-checks it against the time its seated announcement will carry. By then the
    /// lobby's own expiry is long past (the relays have dropped it), so no new round can be
    /// announced: the host names the person whose authorization lapsed and cancels the table
    /// in words, and never announces a seating every client would refuse. The page's host runs
    /// this same lobby.
    #[test]
    fn a_host_stalled_past_an_authorization_names_it_and_cancels_instead_of_seating() {
        let (mut host, keys) = hosted(3);
        host.take();
        let (ana, bo, identity) = (Player::new(1), Player::new(2), Keys::generate());
        let table = host.spec().table.clone();
        let lobby_expires = host.spec().lobby.as_ref().unwrap().expires.unwrap();
        let deadlines = host.spec().deadlines;
        // Good for exactly as long as the join check asks: one second past `seated_by`.
        let expires = seated_by(lobby_expires, &deadlines) + 1;
        let auth = crate::wire::auth::auth_event(&ana.keys.public_key(), &host.me, &table, expires)
            .sign_with_keys(&identity)
            .expect("signs");
        let commit = seat_commit(&table, &ana.keys.public_key(), &ana.nonce);
        let join = ana.says(
            &host,
            LobbyBody::Join {
                commit,
                auth: Some(Box::new(auth)),
            },
        );
        host.on_event(join, T0);
        let said = news(&host.take());
        assert!(
            said.iter().any(|n| matches!(n, HostNews::Joined { who, .. }
                if *who == identity.public_key())),
            "{said:?}"
        );
        host.on_event(bo.join(&host), T0);
        host.poll(T0, &no_names);
        let closing = host.take();
        host.on_event(host_reveal(&closing, &host, &keys), T0 + 1);
        host.on_event(ana.reveal(&host), T0 + 2);
        host.on_event(bo.reveal(&host), T0 + 3);

        // Every nonce is in, but the host comes back to it only when the authorization would
        // have lapsed by the seated announcement's time (its clock plus the publishing slack).
        let stalled = (expires - PUBLISH_SLACK_SECS) * 1000;
        let state = host.poll(stalled, &no_names);
        let HostState::Cancelled(reason) = state else {
            panic!("{state:?}");
        };
        assert!(
            reason.contains("away past the lobby's own expiry"),
            "{reason}"
        );
        let ended = host.take();
        assert!(
            news(&ended).contains(&HostNews::Lapsed {
                who: vec![identity.public_key()]
            }),
            "{:?}",
            news(&ended)
        );
        assert_eq!(
            announced(&ended),
            vec![(LobbyStatus::Cancelled, 3, stalled / 1000)],
            "nothing seated is announced with a lapsed authorization"
        );
        let words = LobbyNews::Lapsed {
            names: vec!["Ana".into()],
        }
        .words("");
        assert_eq!(
            words.as_deref(),
            Some("the authorization of Ana lapsed before the table could be seated")
        );
    }

    #[test]
    fn starting_early_needs_the_minimum_and_an_unstarted_table_is_cancelled_in_words() {
        let (mut host, _) = hosted(4);
        host.take();
        host.start_now();
        assert_eq!(
            news(&host.take()),
            vec![HostNews::TooFewToStart { players: 1, min: 2 }]
        );
        let wait = Duration::from_secs(600).as_millis() as u64;
        assert_eq!(
            host.poll(T0 + 1000, &no_names),
            HostState::Wait(Duration::from_millis(wait - 1000))
        );
        let HostState::Cancelled(reason) = host.poll(T0 + wait, &no_names) else {
            panic!("the wait is over");
        };
        assert_eq!(reason, "nobody else came within 10 minutes");
        let cancelled = host.take();
        assert_eq!(
            announced(&cancelled),
            vec![(LobbyStatus::Cancelled, 1, T0 / 1000 + wait / 1000)]
        );
        // Nothing moves a cancelled table.
        host.on_event(Player::new(3).join(&host), T0 + wait + 1);
        assert!(host.take().is_empty());
    }

    /// The invitations a relay took are kept with the lobby: a host taken back after a crash
    /// invites only those it had not reached, and a record from before the field existed
    /// invites everyone again.
    #[test]
    fn a_lobby_taken_back_invites_only_those_it_had_not_reached() {
        let (mut host, keys) = hosted(3);
        let (ana, bo) = (Keys::generate().public_key(), Keys::generate().public_key());
        assert_eq!(host.invitations_owed(&[ana, bo]), vec![ana, bo]);
        host.invited(ana);
        let text = serde_json::to_string(&host.record()).expect("serializes");
        let back = HostLobby::restore(
            plan(3),
            keys.public_key(),
            serde_json::from_str(&text).expect("reads back"),
            [7u8; 32],
            (None, T0 + 1_000),
        )
        .expect("restores");
        assert_eq!(back.invitations_owed(&[ana, bo]), vec![bo]);
        let mut older: serde_json::Value = serde_json::from_str(&text).unwrap();
        older.as_object_mut().unwrap().remove("invited");
        let back = HostLobby::restore(
            plan(3),
            keys.public_key(),
            serde_json::from_value(older).expect("an older record reads"),
            [7u8; 32],
            (None, T0 + 1_000),
        )
        .expect("restores");
        assert_eq!(back.invitations_owed(&[ana, bo]), vec![ana, bo]);
    }

    /// A host that crashes (or a page that reloads) takes its lobby back from its record, its
    /// seed and the relays' events sent again: once while taking players, once after its own
    /// nonce went out and once in a later round. It seats the same players in the same seats
    /// as a twin that never stopped, takes no event twice, and refuses a seed that is not the
    /// record's.
    #[test]
    fn a_host_taken_back_from_its_record_seats_the_table_its_twin_seats() {
        let (mut twin, keys) = hosted(3);
        let plan_again = || plan(3);
        let me = keys.public_key();
        let seed = [7u8; 32];
        // Through serde, as a driver keeps it.
        let kept = |h: &HostLobby| -> LobbyRecord {
            let text = serde_json::to_string(&h.record()).expect("serializes");
            serde_json::from_str(&text).expect("reads back")
        };
        let mut host = HostLobby::restore(plan_again(), me, kept(&twin), seed, (None, T0 + 5_000))
            .expect("restores");
        let again = announced(&host.take());
        assert_eq!(
            again,
            vec![(LobbyStatus::Open, 1, T0 / 1000 + 5)],
            "the lobby is announced again as it stands"
        );
        twin.take();
        let (ana, bo, cy) = (Player::new(1), Player::new(2), Player::new(3));
        let ana_join = ana.join(&twin);
        for h in [&mut twin, &mut host] {
            h.on_event(ana_join.clone(), T0 + 10);
            h.poll(T0 + 20, &no_names);
        }
        assert_eq!(host.record().spec, twin.record().spec);
        let early = kept(&host);
        // The host stops; the relays send Ana's join again, which is not taken twice.
        host =
            HostLobby::restore(plan_again(), me, kept(&host), seed, (None, T0)).expect("restores");
        host.on_event(ana_join.clone(), T0 + 30);
        assert!(
            news(&host.take()).is_empty(),
            "Ana's join was taken before the crash"
        );
        host.on_event(bo.join(&host), T0 + 40);
        twin.on_event(bo.join(&twin), T0 + 40);
        host.poll(T0 + 50, &no_names);
        twin.poll(T0 + 50, &no_names);
        let closing = host.take();
        twin.take();
        let closed_at = match announced(&closing).as_slice() {
            [(LobbyStatus::Starting, 3, at)] => *at,
            other => panic!("the lobby closes full: {other:?}"),
        };
        // A record older than what the relays hold is refused: going on from it would list
        // players again for a round whose nonces are being opened.
        let err = HostLobby::restore(
            plan_again(),
            me,
            early,
            seed,
            (Some((host.spec(), closed_at)), T0),
        )
        .err()
        .expect("a stale record");
        assert!(
            err.contains("older than the table the relays hold"),
            "{err}"
        );
        let host_nonce = host_reveal(&closing, &host, &keys);
        // The host stops again once its nonce is out: taken back, it sends the same nonce again.
        let record = kept(&host);
        assert!(
            !serde_json::to_string(&record)
                .unwrap()
                .contains(&hex::encode(*host.nonce)),
            "the host's nonce is not in its record"
        );
        let latest = host.spec().clone();
        host = HostLobby::restore(
            plan_again(),
            me,
            record,
            seed,
            (Some((&latest, closed_at)), T0),
        )
        .expect("restores");
        let again = host_reveal(&host.take(), &host, &keys);
        assert_eq!(
            host.poll(T0 + 55, &no_names),
            HostState::Wait(Duration::ZERO),
            "the players' time to reveal starts once the host's nonce is out again"
        );
        assert_eq!(
            parse_lobby(&again, &host.spec().table).unwrap().body,
            parse_lobby(&host_nonce, &host.spec().table).unwrap().body
        );
        // Bo never opens his nonce; the round after, Cy takes his place.
        let lobby_events = [ana_join, bo.join(&twin), again, ana.reveal(&twin)];
        let crypto = twin.spec().deadlines.crypto_ms;
        for h in [&mut twin, &mut host] {
            for ev in &lobby_events {
                h.on_event(ev.clone(), T0 + 60);
            }
            h.poll(T0 + 70, &no_names);
            h.poll(T0 + 80 + crypto, &no_names);
            h.take();
        }
        let round = |h: &HostLobby| h.spec().lobby.as_ref().unwrap().round;
        assert_eq!((round(&host), round(&twin)), (1, 1));
        assert_eq!(host.record().spec, twin.record().spec);
        // Bo asks again and is refused once, not again for the same request after a crash.
        let bo_again = bo.join_again(&host);
        host.on_event(bo_again.clone(), T0 + 85 + crypto);
        assert!(matches!(
            news(&host.take()).as_slice(),
            [HostNews::Refused { .. }]
        ));
        host =
            HostLobby::restore(plan_again(), me, kept(&host), seed, (None, T0)).expect("restores");
        host.take();
        host.on_event(bo_again, T0 + 86 + crypto);
        assert_eq!(news(&host.take()), vec![], "the refusal is not said twice");
        // In the new round: the seed gives the round's nonce back, and no other seed does.
        assert!(
            HostLobby::restore(plan_again(), me, kept(&host), [8; 32], (None, T0))
                .err()
                .expect("another seed")
                .contains("does not open the commitment")
        );
        host =
            HostLobby::restore(plan_again(), me, kept(&host), seed, (None, T0)).expect("restores");
        let ana2 = Player {
            keys: ana.keys.clone(),
            nonce: [9; 32],
        };
        for h in [&mut twin, &mut host] {
            for ev in [ana2.join(h), cy.join(h)] {
                h.on_event(ev, T0 + 90 + crypto);
            }
            h.poll(T0 + 100 + crypto, &no_names);
            let closing = h.take();
            h.on_event(host_reveal(&closing, h, &keys), T0 + 110 + crypto);
            h.on_event(ana2.reveal(h), T0 + 110 + crypto);
            h.on_event(cy.reveal(h), T0 + 110 + crypto);
            h.poll(T0 + 120 + crypto, &no_names);
        }
        let (HostState::Seated(a), HostState::Seated(b)) = (
            host.poll(T0 + 130 + crypto, &no_names),
            twin.poll(T0 + 130 + crypto, &no_names),
        ) else {
            panic!("both seat the table");
        };
        assert_eq!(a.seats, b.seats);
        assert_eq!(a.seats.len(), 3);
        // A seated lobby taken back is seated at once.
        let seated =
            HostLobby::restore(plan_again(), me, kept(&host), seed, (None, T0)).expect("restores");
        assert!(seated.is_seated());
    }

    /// A bot of the page that reloaded is gone: its place opens again while players are taken.
    #[test]
    fn a_forgotten_key_gives_its_place_back_while_the_lobby_takes_players() {
        let (mut host, _) = hosted(3);
        host.take();
        let bot = Player::new(4);
        host.on_event(bot.join(&host), T0 + 10);
        host.take();
        host.forget(&bot.keys.public_key(), T0 + 20);
        let after = host.take();
        assert_eq!(
            announced(&after),
            vec![(LobbyStatus::Open, 1, T0 / 1000 + 2)]
        );
        assert!(matches!(news(&after).as_slice(), [HostNews::Left { .. }]));
        host.forget(&host.me.clone(), T0 + 30);
        assert_eq!(host.spec().lobby.as_ref().unwrap().players.len(), 1);
    }

    #[test]
    fn join_requests_without_the_work_asked_or_from_strangers_at_an_invited_table_are_refused() {
        let invited = Player::new(1);
        let keys = Keys::generate();
        let mut p = plan(3);
        p.public = false;
        p.invite = vec![invited.keys.public_key()];
        p.join_pow = Some(8);
        let mut host = HostLobby::open(
            p,
            keys.public_key(),
            "cd".repeat(32),
            (0, None),
            [1; 32],
            T0,
        )
        .expect("opens");
        host.take();
        host.on_event(invited.join(&host), T0);
        let stranger = Player::new(2);
        let mined = |p: &Player, host: &HostLobby| {
            let commit = seat_commit(&host.spec().table, &p.keys.public_key(), &p.nonce);
            let msg = LobbyMsg {
                v: LOBBY_VERSION,
                table: host.spec().table.clone(),
                body: LobbyBody::Join { commit, auth: None },
            };
            lobby_event(&host.me, &msg)
                .pow(8)
                .sign_with_keys(&p.keys)
                .expect("signs")
        };
        host.on_event(mined(&stranger, &host), T0);
        host.on_event(mined(&invited, &host), T0);
        let said = news(&host.take());
        assert!(
            matches!(&said[0], HostNews::Refused { reason, .. } if reason.contains("proof of work"))
        );
        assert!(matches!(&said[1], HostNews::Refused { reason, .. } if reason == "not invited"));
        assert!(
            matches!(&said[2], HostNews::Joined { who, .. } if *who == invited.keys.public_key())
        );
        // A bot the person hosting runs is let in without an invitation.
        let bot = Player::new(4);
        host.admit_key(bot.keys.public_key());
        host.on_event(mined(&bot, &host), T0);
        assert!(matches!(
            news(&host.take()).as_slice(),
            [HostNews::Joined { who, .. }, ..] if *who == bot.keys.public_key()
        ));
        // A listed player who leaves frees the seat, and the announcement says so.
        host.on_event(invited.says(&host, LobbyBody::Leave {}), T0 + 5);
        let left = host.take();
        assert_eq!(
            news(&left)[0],
            HostNews::Left {
                who: invited.keys.public_key()
            }
        );
        assert_eq!(announced(&left).len(), 1);
    }

    #[test]
    fn a_plan_that_cannot_seat_is_refused_in_words() {
        let mut p = plan(3);
        p.min_players = 4;
        assert!(p.check().unwrap_err().contains("at least 2 players"));
        let mut p = plan(7);
        p.max_players = 7;
        assert_eq!(
            p.check().unwrap_err(),
            "this game seats at most 6 players, not 7"
        );
        let mut p = plan(3);
        p.public = false;
        assert!(p.check().unwrap_err().contains("invite-only"));
    }
}
