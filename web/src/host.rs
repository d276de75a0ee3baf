//! Hosting a table from the page: the same pure lobby as `tolerance host`
//! ([`tolerance::table::host::HostLobby`]), driven by the page's script. The script hands in the
//! lobby's events and calls [`PageHost::tick`] when one came, when the person asked to start or
//! when the wake-up the last tick asked for is due; each tick answers with the events to
//! publish (signed here by the seat's key), the news in words and how long to sleep. Once the
//! table is seated the host plays its seat like any other ([`crate::seat::PageSeat`]).

use crate::feedback::lists_or_empty;
use crate::private::{private, sealed_by_extension};
use crate::seat::{event_json, now_ms, open_from_self, seal_to_self, sign, unix_now, Unsealed};
use crate::signer;
use nostr::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;
use tolerance::games::registry::{self, SetupOptions};
use tolerance::table::host::{
    invitation_tags, invitation_text, setup_for, HostAction, HostLobby, HostPlan, HostState,
    LobbyNews, LobbyRecord,
};
use tolerance::wire::feedback::relay_lists_filter;
use tolerance::wire::{self, auth, lobby::lobby_event, names, LobbyStatus, Pace};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

/// The host form, as the page sends it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Form {
    game: String,
    #[serde(default)]
    variant: Option<String>,
    seats: u8,
    #[serde(default)]
    title: String,
    pace: String,
    /// Hands or rounds, for games that have them; `None`: the game's own.
    #[serde(default)]
    hands: Option<u64>,
    /// Cancel when not started after this long.
    wait_secs: u64,
    /// The people invited (npubs or hex keys), sent a private message with the table's link.
    #[serde(default)]
    invite: Vec<String>,
    /// Whether only the invited may sit down.
    #[serde(default)]
    invite_only: bool,
}

/// How the person hosting starts early from the page.
const HOW_TO_START: &str = "press Start";

/// A table hosted from this page, from its form to its seating.
#[wasm_bindgen]
pub struct PageHost {
    keys: Keys,
    identity: Option<PublicKey>,
    table: String,
    relays: Vec<String>,
    /// The plan and the lobby's expiry until the lobby opens.
    plan: Option<(HostPlan, u64)>,
    /// When the table was planned (ms): its wait and expiry count from then, however long a
    /// signer extension takes to approve its key.
    planned: u64,
    auth: Option<Box<Event>>,
    lobby: Option<HostLobby>,
    names: HashMap<PublicKey, String>,
    news: Vec<String>,
    /// The last round's events, unsigned, while the page's worker makes their proof of work
    /// (each with its difficulty); signed by [`PageHost::mined`].
    unmined: Vec<(UnsignedEvent, u8)>,
    /// Who is invited, and the invitation's words.
    invite: Vec<PublicKey>,
    invitation: String,
    /// What the person asked for, the work the relays ask, for the record.
    form: Value,
    pow: u8,
    /// The seed of the host's seating nonces, and its sealing to the table key for the record
    /// (sealed once: the record changes only when the lobby does).
    seed: Option<(Zeroizing<[u8; 32]>, String)>,
    /// With a signer extension: the table key sealed to the identity, for the record.
    table_key: Option<Value>,
    /// The bots this page runs at the table (their keys) and their level.
    bots: Vec<PublicKey>,
    bot_level: String,
    /// The same bots as the browser keeps them past the seating (record "bots").
    kept_bots: Vec<KeptBot>,
    /// Bots of the page before a reload, gone with it.
    bots_gone: usize,
}

/// What the browser keeps of a table it hosts until it is seated: enough to take the lobby back
/// after a reload. The seed of the host's nonces is NIP-44 encrypted by the table key to itself;
/// with a signer extension the table key is sealed to the identity, as in a seat's record.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HostRecord {
    v: u32,
    form: Value,
    relays: Vec<String>,
    pow: u8,
    table: String,
    planned: u64,
    seed: String,
    lobby: LobbyRecord,
    #[serde(default)]
    bots: Vec<String>,
    #[serde(default)]
    bot_level: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    table_key: Option<Value>,
    /// Bots gone with a reload whose places the page has not filled with new ones yet: owed
    /// still after a second reload.
    #[serde(default, skip_serializing_if = "wire::is_default")]
    bots_owed: usize,
}

const HOST_RECORD_VERSION: u32 = 1;

/// A bot this page runs at the table: its name, its key and its secret, hex, NIP-44 encrypted
/// by the table key to itself, so that only the key that hosted starts it again.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeptBot {
    name: String,
    key: String,
    sealed: String,
}

/// What the browser keeps of the bots this page runs at a table (record "bots"): kept as each
/// is let in, before it asks for a seat, and kept past the seating (unlike the host's record),
/// so that a reload at the seated table starts each bot again with its key, and the bot takes
/// its seat back from its own record as a person's seat does.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BotsRecord {
    v: u32,
    table: String,
    level: String,
    bots: Vec<KeptBot>,
}

const BOTS_RECORD_VERSION: u32 = 1;

/// The bots this page ran at `table` before a reload, from their record ("bots"), opened by
/// the key that hosted the table (with a signer extension, the table key taken back first):
/// `{level, bots: [{name, key, secret}]}`, each `secret` for its worker's
/// [`crate::key::bot_key`].
#[wasm_bindgen]
pub fn bots_back(table: &str, record: &str) -> Result<String, JsError> {
    bots_opened(table, record).map_err(|e| JsError::new(&e))
}

fn bots_opened(table: &str, record: &str) -> Result<String, String> {
    let lost = "this browser's record of the bots at this table is damaged: they cannot be \
                started again";
    let r: BotsRecord = serde_json::from_str(record).map_err(|_| lost.to_string())?;
    if r.v != BOTS_RECORD_VERSION || r.table != table {
        return Err(lost.into());
    }
    let (keys, _) = signer::seat_key(table)?;
    let mut bots = Vec::new();
    for b in &r.bots {
        let secret = open_from_self(&keys, &b.sealed).map_err(|e| match e {
            Unsealed::OtherKey => "this browser's record of the bots at this table was kept by \
                                   another key: the key that hosted the table starts them again"
                .to_string(),
            Unsealed::Damaged => lost.to_string(),
        })?;
        let bot = Keys::new(SecretKey::from_slice(&*secret).map_err(|_| lost.to_string())?);
        if bot.public_key().to_hex() != b.key {
            return Err(lost.into());
        }
        bots.push(json!({"name": b.name, "key": b.key, "secret": hex::encode(*secret)}));
    }
    Ok(json!({"level": r.level, "bots": bots}).to_string())
}

#[wasm_bindgen]
impl PageHost {
    /// Plans a table from the host form (`{game, variant, seats, title, pace, hands,
    /// wait_secs}`) on `relays` (a JSON list), whose events carry `pow` bits of work (the most
    /// any of them asks, NIP-11). In words when the game cannot be set up so.
    #[wasm_bindgen(constructor)]
    pub fn new(form: &str, relays: &str, pow: u8) -> Result<PageHost, JsError> {
        Self::plan(form, relays, pow).map_err(|e| JsError::new(&e))
    }

    fn plan(form: &str, relays: &str, pow: u8) -> Result<PageHost, String> {
        let form: Value =
            serde_json::from_str(form).map_err(|e| format!("the host form is not whole: {e}"))?;
        let relays = serde_json::from_str(relays).unwrap_or_default();
        let mut table = [0u8; 32];
        use rand::RngCore;
        rand::rngs::OsRng.fill_bytes(&mut table);
        let table = hex::encode(table);
        let (keys, identity) = signer::seat_key(&table)?;
        Self::planned(form, relays, pow, table, (keys, identity), now_ms())
    }

    /// The table `table` planned at `planned` (ms) from `form_value`, hosted by `keys` (for
    /// `identity` when a signer extension holds it).
    fn planned(
        form_value: Value,
        relays: Vec<String>,
        pow: u8,
        table: String,
        (keys, identity): (Keys, Option<PublicKey>),
        planned: u64,
    ) -> Result<PageHost, String> {
        let form: Form = serde_json::from_value(form_value.clone())
            .map_err(|e| format!("the host form is not whole: {e}"))?;
        let relays = crate::checked_relays(relays)?;
        if pow > wire::MAX_TABLE_POW {
            return Err(format!(
                "these relays ask for proof of work of {pow} bits on every event, and a table \
                 signs hundreds; tolerance mines at most {} bits: host on other relays",
                wire::MAX_TABLE_POW
            ));
        }
        let opts = SetupOptions {
            variant: form.variant.clone().filter(|v| !v.is_empty()),
            variant_text: None,
            hands: form.hands,
            players: form.seats,
        };
        let (setup, fewest, most) = registry::table_setup(&form.game, &opts)?;
        // More players than the setup seats: refused by the plan's own check below.
        let setup_for = setup_for(&form.game, opts);
        let mut invite: Vec<PublicKey> = Vec::new();
        for text in form
            .invite
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
        {
            let key = PublicKey::parse(text)
                .map_err(|_| format!("'{text}' is not a Nostr key (npub1… or hex) to invite"))?;
            if key == identity.unwrap_or(keys.public_key()) {
                return Err("you cannot invite yourself: you hold the host's seat already".into());
            }
            if !invite.contains(&key) {
                invite.push(key);
            }
        }
        let plan = HostPlan {
            game: form.game,
            setup,
            seats: most,
            relays: relays.clone(),
            deadlines: Pace::parse(&form.pace)?.deadlines(),
            title: form.title.trim().to_string(),
            public: !form.invite_only,
            // Starting early is only ever with a count the game plays.
            min_players: fewest.max(2).min(form.seats),
            max_players: form.seats,
            invite,
            start_after: None,
            wait: Duration::from_secs(form.wait_secs.clamp(60, 24 * 3600)),
            join_pow: None,
            may_start_early: true,
            setup_for: Some(setup_for),
            pow,
        };
        plan.check()?;
        let expires = plan.expires(planned / 1000);
        let me = keys.public_key();
        let invitation = invitation_text(
            &plan.game,
            &plan.title,
            &wire::table_naddr(&me, &table, &relays),
        );
        Ok(PageHost {
            planned,
            invite: plan.invite.clone(),
            invitation,
            keys,
            identity,
            table,
            relays,
            plan: Some((plan, expires)),
            auth: None,
            lobby: None,
            names: HashMap::new(),
            news: Vec::new(),
            unmined: Vec::new(),
            form: form_value,
            pow,
            seed: None,
            table_key: None,
            bots: Vec::new(),
            bot_level: String::new(),
            kept_bots: Vec::new(),
            bots_gone: 0,
        })
    }

    /// Takes back, after a reload, the table this browser hosted and kept a `record` of (what
    /// [`Self::tick`] answered as `record`). With a signer extension its table key must be taken
    /// back first (`signer_restore`). The lobby's events are then handed in again
    /// ([`Self::feed`]) before the first tick. In words when the record is damaged or kept by
    /// another key.
    ///
    /// `table_events`: the table's announcements the relays hold (a JSON array): a record older
    /// than the newest of them is refused in words (it was not the last one kept).
    pub fn restore(record: &str, table_events: &str) -> Result<PageHost, JsError> {
        Self::restored(record, table_events, now_ms()).map_err(|e| JsError::new(&e))
    }

    fn restored(record: &str, table_events: &str, now: u64) -> Result<PageHost, String> {
        let lost = "this browser's record of the table you host is damaged: host it again";
        let r: HostRecord = serde_json::from_str(record).map_err(|_| lost.to_string())?;
        if r.v != HOST_RECORD_VERSION || r.lobby.spec.table != r.table {
            return Err(lost.into());
        }
        let (keys, identity) = signer::seat_key(&r.table)?;
        let other = || {
            if r.table_key.is_some() {
                "this browser's record of the table you host was kept by another key: use the \
                 signer extension you hosted it with"
            } else {
                "this browser's record of the table you host was kept by another key: unlock \
                 the key you hosted it with"
            }
            .to_string()
        };
        let seed = open_from_self(&keys, &r.seed).map_err(|e| match e {
            Unsealed::OtherKey => other(),
            Unsealed::Damaged => lost.to_string(),
        })?;
        let bots = r
            .bots
            .iter()
            .map(|h| PublicKey::from_hex(h).map_err(|_| lost.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let me = keys.public_key();
        let mut host = Self::planned(
            r.form,
            r.relays,
            r.pow,
            r.table,
            (keys, identity),
            r.planned,
        )?;
        let (plan, _) = host.plan.take().expect("just planned");
        let held = crate::parse_events(table_events);
        let latest = tolerance::table::host::newest_of(&held, &me, &host.table);
        let mut lobby = HostLobby::restore(
            plan,
            me,
            r.lobby,
            *seed,
            (latest.as_ref().map(|(s, at)| (s, *at)), now),
        )?;
        // The page's bots ran in its workers, gone with the reload: their places open again
        // (the page starts new ones once the lobby takes players).
        for bot in &bots {
            lobby.forget(bot, now);
        }
        host.bots_gone = bots.len() + r.bots_owed;
        host.bot_level = r.bot_level;
        host.table_key = r.table_key;
        host.seed = Some((seed, r.seed));
        host.lobby = Some(lobby);
        Ok(host)
    }

    /// How many bots this page ran at the table before the reload it was taken back from.
    pub fn bots_gone(&self) -> usize {
        self.bots_gone
    }

    /// Whether the table taken back was seated already (its bots' seats are then gone for good).
    pub fn seated(&self) -> bool {
        self.lobby.as_ref().is_some_and(HostLobby::is_seated)
    }

    /// The level of the page's bots at this table (for the ones started again after a reload).
    pub fn bot_level(&self) -> String {
        self.bot_level.clone()
    }

    /// The record as it stands now (each tick answers it too), for the page to keep after an
    /// invitation went out; `None` before the lobby opens.
    pub fn record_now(&self) -> Option<String> {
        self.record()
    }

    /// The record a reload takes the lobby back from ([`Self::restore`]), or `None` before the
    /// lobby opens.
    fn record(&self) -> Option<String> {
        let (lobby, (_, seed)) = (self.lobby.as_ref()?, self.seed.as_ref()?);
        let record = HostRecord {
            v: HOST_RECORD_VERSION,
            form: self.form.clone(),
            relays: self.relays.clone(),
            pow: self.pow,
            table: self.table.clone(),
            planned: self.planned,
            seed: seed.clone(),
            lobby: lobby.record(),
            bots: self.bots.iter().map(|k| k.to_hex()).collect(),
            bot_level: self.bot_level.clone(),
            table_key: self.table_key.clone(),
            bots_owed: self.bots_gone,
        };
        Some(serde_json::to_string(&record).expect("a host record serializes"))
    }

    /// With a signer extension: the authorization of the key this page made for the table,
    /// for the extension to sign (one approval per table); `None` with the page's own key.
    pub fn request(&self) -> Option<String> {
        let identity = self.identity.as_ref()?;
        let (plan, expires) = self.plan.as_ref()?;
        let me = self.keys.public_key();
        let until = auth::asked_expiry(*expires, &plan.deadlines);
        Some(signer::request(identity, &me, &me, &self.table, unix_now(), until).to_string())
    }

    /// The extension's answer to [`Self::request`], checked before the table is announced.
    pub fn authorize(&mut self, signed: &str) -> Result<(), JsError> {
        let identity = self
            .identity
            .ok_or_else(|| JsError::new("no signer extension is in use on this page"))?;
        let me = self.keys.public_key();
        let auth = signer::accept(signed, &identity, &me, &me, &self.table, unix_now())
            .map_err(|e| JsError::new(&e))?;
        self.auth = Some(Box::new(auth));
        Ok(())
    }

    /// Opens the lobby: the first announcement is in the next [`Self::tick`].
    pub fn open(&mut self) -> Result<(), JsError> {
        let Some((plan, expires)) = self.plan.take() else {
            return Err(JsError::new("this table is announced already"));
        };
        if self.identity.is_some() && self.auth.is_none() {
            self.plan = Some((plan, expires));
            return Err(JsError::new(
                "your signer extension has not approved this table's key yet",
            ));
        }
        let mut seed = Zeroizing::new([0u8; 32]);
        use rand::RngCore;
        rand::rngs::OsRng.fill_bytes(seed.as_mut());
        let kept = |e: String| JsError::new(&format!("this table could not be kept: {e}"));
        let sealed = seal_to_self(&self.keys, &seed).map_err(|e| kept(e.to_string()))?;
        if let Some(id) = &self.identity {
            self.table_key = Some(signer::seal(&self.keys, id).map_err(kept)?);
        }
        let lobby = HostLobby::open(
            plan,
            self.keys.public_key(),
            self.table.clone(),
            (expires, self.auth.take()),
            *seed,
            self.planned,
        )
        .map_err(|e| JsError::new(&e))?;
        self.seed = Some((seed, sealed));
        self.lobby = Some(lobby);
        Ok(())
    }

    /// The table's link (naddr), for the people to invite.
    pub fn naddr(&self) -> String {
        wire::table_naddr(&self.keys.public_key(), &self.table, &self.relays)
    }

    /// What sending the invitations needs first: `{filter, invited}`, the relay lists of the
    /// invited and of the one inviting, and the invited keys (hex, to name them); `null` when
    /// nobody is invited.
    pub fn invite_plan(&self) -> Option<String> {
        let owed = self.owed();
        if owed.is_empty() {
            return None;
        }
        let mut who = owed.clone();
        who.push(self.inviter().0);
        let invited: Vec<String> = owed.iter().map(|k| k.to_hex()).collect();
        Some(json!({ "filter": relay_lists_filter(&who), "invited": invited }).to_string())
    }

    /// The invited whose invitation no relay took yet: every one at a table just hosted; after
    /// a reload, those the page had not reached.
    fn owed(&self) -> Vec<PublicKey> {
        match &self.lobby {
            Some(l) => l.invitations_owed(&self.invite),
            None => self.invite.clone(),
        }
    }

    /// Who invites: the person's identity (a signer extension's), else the page's key.
    fn inviter(&self) -> (PublicKey, Option<Keys>) {
        match self.identity {
            Some(id) => (id, None),
            None => (self.keys.public_key(), Some(self.keys.clone())),
        }
    }

    /// The invitations, routed by the relay lists `lists` (events) over the table's relays:
    /// `[{to, publish}]` signed by the page's key, or `[{to, encrypt, seal}]` for a signer
    /// extension to encrypt and sign (then [`Self::invitation_signed`]). `to`: the invited key
    /// (hex).
    pub fn invitations(&self, lists: &str) -> Result<String, JsError> {
        let me = self.keys.public_key();
        let sender = self.inviter();
        let out = self
            .owed()
            .iter()
            .map(|to| {
                let mut v = private(
                    &sender,
                    to,
                    &self.invitation,
                    invitation_tags(&me, &self.table),
                    lists_or_empty(lists),
                    &self.relays,
                    "invitation",
                )?;
                v["to"] = json!(to.to_hex());
                Ok(v)
            })
            .collect::<Result<Vec<Value>, String>>()
            .map_err(|e| JsError::new(&e))?;
        Ok(json!(out).to_string())
    }

    /// The signer extension's seal of the invitation to `to_hex`, checked and wrapped:
    /// `{publish}`.
    pub fn invitation_signed(
        &self,
        signed: &str,
        to_hex: &str,
        lists: &str,
    ) -> Result<String, JsError> {
        let finish = || -> Result<Value, String> {
            let identity = self.identity.ok_or("no signer extension is in use")?;
            let to = PublicKey::from_hex(to_hex)
                .ok()
                .filter(|k| self.invite.contains(k))
                .ok_or("that key is not invited to this table")?;
            let ev = signer::signed_by(signed, &identity)?;
            let theirs = crate::private::lists(lists_or_empty(lists), &to);
            sealed_by_extension(&ev, &to, &theirs, &self.relays, "invitation")
        };
        finish()
            .map(|v| v.to_string())
            .map_err(|e| JsError::new(&e))
    }

    /// The news of the invitation to `to_hex`: how many relays took it, else why it failed.
    /// One a relay took is not sent again after a reload once the record
    /// ([`Self::record_now`]) is kept.
    pub fn invite_news(&mut self, to_hex: &str, took: usize, why: &str) -> String {
        let key = PublicKey::from_hex(to_hex).ok();
        if let (Some(k), Some(l), true) = (key, self.lobby.as_mut(), took > 0) {
            l.invited(k);
        }
        let name = key.map_or_else(
            || to_hex.to_string(),
            |k| names::name_or_npub(&self.names, &k),
        );
        let news = if took > 0 {
            LobbyNews::Invited {
                name,
                accepted_by: took,
            }
        } else {
            LobbyNews::InviteFailed {
                name,
                reason: why.to_string(),
            }
        };
        news.words(HOW_TO_START).unwrap_or_default()
    }

    /// The filter of the table's lobby messages (JSON).
    pub fn filter(&self) -> String {
        json!(wire::lobby::lobby_filter(
            &self.keys.public_key(),
            &self.table
        ))
        .to_string()
    }

    /// Lobby events the relays sent (a JSON array); forged ones are dropped unread.
    pub fn feed(&mut self, events: &str) {
        let Some(lobby) = self.lobby.as_mut() else {
            return;
        };
        for ev in crate::parse_events(events) {
            if ev.verify().is_ok() {
                lobby.on_event(ev, now_ms());
            }
        }
    }

    /// Names of the people who joined, as `names_of` gives them (`[{key, name, named}]`, keys
    /// in hex): the news names them from now on.
    pub fn learn(&mut self, named: &str) {
        #[derive(Deserialize)]
        struct Named {
            key: String,
            name: String,
            named: bool,
        }
        let list: Vec<Named> = serde_json::from_str(named).unwrap_or_default();
        for n in list.into_iter().filter(|n| n.named) {
            if let Ok(k) = PublicKey::from_hex(&n.key) {
                self.names.insert(k, n.name);
            }
        }
    }

    /// A bot this page runs, `name`, its key's `secret` (hex, as its worker made it), at
    /// `level`: it may sit down even at an invite-only table. Answers the record of the page's
    /// bots at this table ([`bots_back`]), for the page to keep before the bot asks for a seat.
    pub fn admit_bot(&mut self, name: &str, secret: &str, level: &str) -> Result<String, JsError> {
        self.admitted(name, secret, level)
            .map_err(|e| JsError::new(&e))
    }

    fn admitted(&mut self, name: &str, secret: &str, level: &str) -> Result<String, String> {
        let bot = Keys::parse(secret).map_err(|_| "the bot's key is not a key".to_string())?;
        let key = bot.public_key();
        let secret = Zeroizing::new(bot.secret_key().secret_bytes());
        let sealed = seal_to_self(&self.keys, &secret)
            .map_err(|e| format!("the table's key could not keep the bot's: {e}"))?;
        if let Some(l) = self.lobby.as_mut() {
            l.admit_key(key);
        }
        self.bots.push(key);
        // In the place of one gone with a reload, if one is owed.
        self.bots_gone = self.bots_gone.saturating_sub(1);
        self.bot_level = level.to_string();
        self.kept_bots.push(KeptBot {
            name: name.to_string(),
            key: key.to_hex(),
            sealed,
        });
        let record = BotsRecord {
            v: BOTS_RECORD_VERSION,
            table: self.table.clone(),
            level: self.bot_level.clone(),
            bots: self.kept_bots.clone(),
        };
        Ok(serde_json::to_string(&record).expect("a bots record serializes"))
    }

    /// The worker's answers (a JSON list of `{nonce}`, one per job of the last tick's `mine`, in
    /// order): `{publish, cancelled}`, that round's events signed, in order, to publish as a
    /// tick's `publish`. An answer that does not give its event the difficulty is made again
    /// here. An event the key cannot sign cancels the table as a tick does: what is signed still
    /// goes out, the cancellation (signed here) follows it, and `cancelled` says why in words.
    pub fn mined(&mut self, answers: &str) -> String {
        let answers: Vec<String> = serde_json::from_str(answers).unwrap_or_default();
        let mut answers = answers.into_iter();
        let mut publish = Vec::new();
        let mut failed = None;
        for (unsigned, pow) in std::mem::take(&mut self.unmined) {
            let from_worker = answers
                .next()
                .and_then(|a| crate::mine::signed_with(unsigned.clone(), pow, &a, &self.keys).ok());
            match from_worker
                .map_or_else(|| crate::mine::signed_here(unsigned, pow, &self.keys), Ok)
            {
                Ok(ev) => publish.push(event_json(&ev)),
                Err(e) => failed = failed.or(Some(e)),
            }
        }
        let cancelled = failed.map(|e| {
            self.cancel_unsigned(&e, &mut publish);
            format!("table cancelled: {e}")
        });
        json!({ "publish": publish, "cancelled": cancelled }).to_string()
    }

    /// Cancels the table for `reason` (an event its key could not sign) and adds the
    /// cancellation, signed here, to `publish`; should it not sign either, the table expires.
    fn cancel_unsigned(&mut self, reason: &str, publish: &mut Vec<Value>) {
        let Some(lobby) = self.lobby.as_mut() else {
            return;
        };
        lobby.cancel(reason.to_string(), now_ms());
        let me = self.keys.public_key();
        let pow = lobby.spec().pow;
        let names = &self.names;
        let name = |k: &PublicKey| names::name_or_npub(names, k);
        for action in lobby.take() {
            let Some((builder, pow)) = host_event(action, &me, pow, &mut self.news, &name) else {
                continue;
            };
            if let Ok(ev) = sign(builder, &self.keys, pow) {
                publish.push(event_json(&ev));
            }
        }
    }

    /// The person hosting asks to start with the players there now.
    pub fn start_now(&mut self) {
        if let Some(l) = self.lobby.as_mut() {
            l.start_now();
        }
    }

    /// The table is cancelled before it is seated (`reason` in words: the person closed it, or
    /// no relay took its announcement): the cancellation is in the next tick. A seated table is
    /// its players' and is not cancelled.
    pub fn cancel(&mut self, reason: &str) {
        if let Some(l) = self.lobby.as_mut().filter(|l| !l.is_seated()) {
            l.cancel(reason.to_string(), now_ms());
        }
    }

    /// One round of the lobby: `{state, words, news, publish, record, wake_ms, players, min,
    /// max, people}` — `state` is `open`, `starting`, `seated` or `cancelled`; `news` the lines
    /// since the last tick; `record` what to keep before publishing (for [`Self::restore`]);
    /// `people` the keys (hex) of those listed, to learn their names.
    pub fn tick(&mut self) -> Result<String, JsError> {
        self.round().map_err(|e| JsError::new(&e))
    }

    fn round(&mut self) -> Result<String, String> {
        let lobby = self
            .lobby
            .as_mut()
            .ok_or("the table is not announced yet")?;
        let names = &self.names;
        let name = |k: &PublicKey| names::name_or_npub(names, k);
        let mut state = lobby.poll(now_ms(), &name);
        let me = self.keys.public_key();
        // Lobby messages carry the work the table's events do.
        let pow = lobby.spec().pow;
        let mut publish = Vec::new();
        // With proof of work to make and a worker to make it in, the round's events go to the
        // worker unsigned, in order (the answer's `mine`), and are signed by `mined`.
        let elsewhere = crate::mine::elsewhere(pow);
        let mut mine = Vec::new();
        let mut actions = lobby.take();
        // A failure to sign cancels the table, and the cancellation is signed in its place.
        let mut failed = false;
        while !actions.is_empty() {
            for action in actions {
                let Some((builder, pow)) = host_event(action, &me, pow, &mut self.news, &name)
                else {
                    continue;
                };
                if elsewhere {
                    let unsigned = builder.build(me);
                    mine.push(crate::mine::job(&unsigned, pow));
                    self.unmined.push((unsigned, pow));
                    continue;
                }
                let signed = sign(builder, &self.keys, pow);
                match signed {
                    Ok(ev) => publish.push(event_json(&ev)),
                    // What is signed still goes out; the cancellation follows it.
                    Err(e) if !failed => {
                        failed = true;
                        lobby.cancel(e.clone(), now_ms());
                        state = HostState::Cancelled(e);
                    }
                    // The cancellation itself could not be signed: the table expires.
                    Err(_) => {}
                }
            }
            actions = lobby.take();
        }
        let spec = lobby.spec();
        let l = spec.lobby.as_ref().expect("a hosted table has a lobby");
        let (state, words, wake) = match &state {
            HostState::Wait(d) => {
                let words = match l.status {
                    LobbyStatus::Starting => "waiting for every player's seating nonce".into(),
                    _ => format!(
                        "waiting for players: {} of {} seats taken",
                        l.players.len(),
                        l.max_players
                    ),
                };
                let state = if l.status == LobbyStatus::Starting {
                    "starting"
                } else {
                    "open"
                };
                (state, words, d.as_millis().min(60_000) as u64)
            }
            HostState::Seated(_) => ("seated", "the seats are fixed".into(), 0),
            HostState::Cancelled(reason) => ("cancelled", format!("table cancelled: {reason}"), 0),
        };
        let people: Vec<String> = l
            .players
            .iter()
            .filter_map(|p| p.identity().map(|k| k.to_hex()))
            .collect();
        let (players, min, max) = (l.players.len(), l.min_players, l.max_players);
        let record = self.record();
        Ok(json!({
            "state": state,
            "words": words,
            "news": std::mem::take(&mut self.news),
            "publish": publish,
            "mine": mine,
            "record": record,
            "wake_ms": wake,
            "players": players,
            "min": min,
            "max": max,
            "people": people,
        })
        .to_string())
    }
}

/// The event a lobby action asks for and the proof of work it carries (a table's
/// announcement its own, a lobby message `pow`); news goes to `news`, in words.
fn host_event(
    action: HostAction,
    me: &PublicKey,
    pow: u8,
    news: &mut Vec<String>,
    name: &dyn Fn(&PublicKey) -> String,
) -> Option<(EventBuilder, u8)> {
    match action {
        HostAction::Announce { spec, at } => Some((
            wire::table_event(&spec).custom_created_at(Timestamp::from(at)),
            spec.pow,
        )),
        HostAction::Lobby(msg) => Some((lobby_event(me, &msg), pow)),
        HostAction::News(n) => {
            news.extend(n.named(name).words(HOW_TO_START));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(game: &str, seats: u8) -> String {
        json!({"game": game, "seats": seats, "pace": "fast", "wait_secs": 600}).to_string()
    }

    #[test]
    fn a_form_the_game_cannot_seat_is_said_in_words() {
        crate::key::set_unlocked(Some(Keys::generate()));
        let relays = r#"["ws://127.0.0.1:7777"]"#;
        let err = |f: &str, pow: u8| PageHost::plan(f, relays, pow).err().expect("refused");
        assert!(err(&form("chess", 2), 0).contains("not a game this program plays"));
        assert!(err(&form("perudo", 40), 0).contains("40"));
        assert!(err(&form("perudo", 2), 30).contains("proof of work of 30 bits"));
        let f = json!({"game": "perudo", "seats": 2, "pace": "slowly", "wait_secs": 600});
        assert!(err(&f.to_string(), 0).contains("is not a pace"));
        assert!(PageHost::plan(&form("perudo", 2), "[]", 0).is_err());
        assert!(PageHost::plan(&form("perudo", 2), relays, 0).is_ok());
    }

    /// Relays that ask proof of work, and a page with a worker: a round's events are handed out
    /// unsigned, in order, and nothing is published until the worker's answers are in; then
    /// each is signed with the difficulty, an answer that does not give it made again here.
    #[test]
    fn with_a_worker_the_hosts_events_wait_for_their_proof_of_work() {
        crate::key::set_unlocked(Some(Keys::generate()));
        let relays = r#"["ws://127.0.0.1:7777"]"#;
        let mut host = PageHost::plan(&form("perudo", 2), relays, 8).expect("plans");
        host.open().map_err(|_| "opens").unwrap();
        crate::mine::mine_elsewhere(true);
        let out: Value = serde_json::from_str(&host.round().unwrap()).unwrap();
        crate::mine::mine_elsewhere(false);
        assert_eq!(out["publish"], json!([]), "{out}");
        let jobs = out["mine"].as_array().unwrap();
        assert!(!jobs.is_empty(), "{out}");
        let mut answers: Vec<String> = jobs
            .iter()
            .map(|j| {
                crate::mine::mine(j.as_str().unwrap())
                    .map_err(|_| "mines")
                    .unwrap()
            })
            .collect();
        answers[0] = "{}".into();
        let signed = host.mined(&serde_json::to_string(&answers).unwrap());
        let signed: Value = serde_json::from_str(&signed).unwrap();
        assert_eq!(signed["cancelled"], Value::Null, "{signed}");
        let signed = signed["publish"].as_array().unwrap();
        assert_eq!(signed.len(), jobs.len());
        for ev in signed {
            let ev = Event::from_json(ev.to_string()).unwrap();
            assert!(ev.verify().is_ok() && ev.check_pow(8), "{ev:?}");
        }
        let none: Value = serde_json::from_str(&host.mined("[]")).unwrap();
        assert_eq!(none, json!({ "publish": [], "cancelled": null }));
    }

    /// A page that reloads while its table takes players takes the lobby back from its record:
    /// the same table, the same players, the join it had taken not taken twice; its bot, gone
    /// with the reload, gives its place back. The record keeps the seed of the host's nonces
    /// sealed, and opens only for the key that hosted.
    #[test]
    fn a_reloaded_page_takes_back_the_table_it_hosts() {
        let host_keys = Keys::generate();
        crate::key::set_unlocked(Some(host_keys.clone()));
        let relays = r#"["ws://127.0.0.1:7777"]"#;
        let mut host = PageHost::plan(&form("perudo", 4), relays, 0).expect("plans");
        host.open().map_err(|_| "opens").unwrap();
        let tick =
            |h: &mut PageHost| -> Value { serde_json::from_str(&h.round().unwrap()).unwrap() };
        let first = tick(&mut host);
        let table = host.table.clone();
        let says = |keys: &Keys, body| {
            let msg = wire::LobbyMsg {
                v: wire::lobby::LOBBY_VERSION,
                table: table.clone(),
                body,
            };
            let ev = lobby_event(&host_keys.public_key(), &msg)
                .sign_with_keys(keys)
                .unwrap();
            json!([serde_json::from_str::<Value>(&ev.as_json()).unwrap()]).to_string()
        };
        let join = |keys: &Keys| {
            let commit = wire::lobby::seat_commit(&table, &keys.public_key(), &[3; 32]);
            says(keys, wire::LobbyBody::Join { commit, auth: None })
        };
        let (guest, bot) = (Keys::generate(), Keys::generate());
        let bot_secret = bot.secret_key().to_secret_hex();
        let bots = host.admitted("bot 1", &bot_secret, "easy").expect("let in");
        assert!(!bots.contains(&bot_secret), "the bot's key is kept sealed");
        host.feed(&join(&guest));
        host.feed(&join(&bot));
        let out = tick(&mut host);
        assert_eq!(out["players"], 3, "{out}");
        let record = out["record"].as_str().expect("a record").to_string();
        let seed = hex::encode(*host.seed.as_ref().unwrap().0);
        assert!(!record.contains(&seed), "the seed is kept sealed");
        assert_ne!(first["record"], out["record"]);

        // A record older than the announcements the relays hold is refused.
        let held = json!(out["publish"]).to_string();
        let stale = first["record"].as_str().unwrap();
        let err = PageHost::restored(stale, &held, now_ms())
            .err()
            .expect("an older record");
        assert!(
            err.contains("older than the table the relays hold"),
            "{err}"
        );
        let mut back = PageHost::restored(&record, &held, now_ms()).expect("taken back");
        assert_eq!(back.naddr(), host.naddr());
        assert_eq!(back.bots_gone(), 1);
        assert_eq!(back.bot_level(), "easy");
        // The relays send the guest's join again: not taken twice.
        back.feed(&join(&guest));
        let out = tick(&mut back);
        assert_eq!(
            (out["state"].as_str(), out["players"].as_u64()),
            (Some("open"), Some(2))
        );
        let news = out["news"].to_string();
        assert!(news.contains("left") && !news.contains("joined"), "{news}");
        // Reloaded again before a new bot took the place: the place is still owed, once; and
        // once a new bot is let in, only that one is.
        let (again, held) = (
            out["record"].as_str().unwrap(),
            json!(out["publish"]).to_string(),
        );
        let mut twice = PageHost::restored(again, &held, now_ms()).expect("taken back twice");
        assert_eq!(twice.bots_gone(), 1);
        let new_bot = Keys::generate().secret_key().to_secret_hex();
        twice.admitted("bot 1", &new_bot, "easy").expect("let in");
        let out2 = tick(&mut twice);
        let thrice = PageHost::restored(
            out2["record"].as_str().unwrap(),
            &json!(out2["publish"]).to_string(),
            now_ms(),
        )
        .expect("taken back a third time");
        assert_eq!(
            thrice.bots_gone(),
            1,
            "the new bot, and no place still owed"
        );
        assert!(out["publish"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == json!(wire::KIND_TABLE)));
        // The bots' record gives the bot's key back to the key that hosted, past the seating.
        let opened: Value = serde_json::from_str(&bots_opened(&table, &bots).unwrap()).unwrap();
        assert_eq!(
            opened,
            json!({"level": "easy", "bots": [
                {"name": "bot 1", "key": bot.public_key().to_hex(), "secret": bot_secret}
            ]})
        );
        assert!(bots_opened(&"0".repeat(64), &bots)
            .unwrap_err()
            .contains("damaged"));
        // Another key, or a damaged record, is said in words.
        crate::key::set_unlocked(Some(Keys::generate()));
        let err = PageHost::restored(&record, "[]", now_ms())
            .err()
            .expect("another key");
        assert!(err.contains("kept by another key"), "{err}");
        let err = bots_opened(&table, &bots).unwrap_err();
        assert!(err.contains("kept by another key"), "{err}");
        crate::key::set_unlocked(Some(host_keys));
        let err = PageHost::restored(&record.replace("\"v\":1", "\"v\":9"), "[]", now_ms())
            .err()
            .expect("damaged");
        assert!(err.contains("damaged"), "{err}");
        crate::key::set_unlocked(None);
    }

    /// The invitations a relay took are kept in the table's record: the table taken back after
    /// a reload invites only the people the page had not reached (one refused by every relay
    /// included).
    #[test]
    fn a_reloaded_page_invites_only_those_it_had_not_reached() {
        crate::key::set_unlocked(Some(Keys::generate()));
        let (ana, bo) = (Keys::generate().public_key(), Keys::generate().public_key());
        let form = json!({"game": "perudo", "seats": 3, "pace": "fast", "wait_secs": 600,
                          "invite": [ana.to_hex(), bo.to_hex()]});
        let relays = r#"["ws://127.0.0.1:7777"]"#;
        let mut host = PageHost::plan(&form.to_string(), relays, 0).expect("plans");
        host.open().map_err(|_| "opens").unwrap();
        host.round().unwrap();
        let owed = |h: &PageHost| -> Value {
            h.invite_plan().map_or(Value::Null, |p| {
                serde_json::from_str::<Value>(&p).unwrap()["invited"].clone()
            })
        };
        assert_eq!(owed(&host), json!([ana.to_hex(), bo.to_hex()]));
        host.invite_news(&ana.to_hex(), 0, "every relay refused it");
        host.invite_news(&bo.to_hex(), 1, "");
        let record = host.record_now().expect("a record");
        let back = PageHost::restored(&record, "[]", now_ms()).expect("taken back");
        assert_eq!(owed(&back), json!([ana.to_hex()]));
        crate::key::set_unlocked(None);
    }

    /// The page's host announces the table, lists a player who asks, seats the table once both
    /// nonces are open, and every event it publishes is signed by its key with the work asked.
    #[test]
    fn the_page_hosts_a_table_a_player_joins_and_it_is_seated() {
        let host_keys = Keys::generate();
        crate::key::set_unlocked(Some(host_keys.clone()));
        let relays = r#"["ws://127.0.0.1:7777"]"#;
        let mut host = PageHost::plan(&form("perudo", 2), relays, 0).expect("plans");
        assert!(
            host.request().is_none(),
            "the page's own key needs no approval"
        );
        host.open().map_err(|_| "opens").unwrap();
        let out: Value = serde_json::from_str(&host.round().unwrap()).unwrap();
        assert_eq!(out["state"], "open");
        let first = Event::from_json(out["publish"][0].to_string()).unwrap();
        assert_eq!(first.pubkey, host_keys.public_key());
        let spec = wire::parse_table(&first).unwrap();
        let guest = Keys::generate();
        let nonce = [5u8; 32];
        let msg = |body| wire::LobbyMsg {
            v: wire::lobby::LOBBY_VERSION,
            table: spec.table.clone(),
            body,
        };
        let join = lobby_event(
            &host_keys.public_key(),
            &msg(wire::LobbyBody::Join {
                commit: wire::lobby::seat_commit(&spec.table, &guest.public_key(), &nonce),
                auth: None,
            }),
        )
        .sign_with_keys(&guest)
        .unwrap();
        // A forged copy (another key's signature under the guest's name) is dropped unread.
        let mut forged: Value = serde_json::from_str(&join.as_json()).unwrap();
        forged["sig"] = json!("00".repeat(64));
        host.feed(&json!([forged]).to_string());
        let out: Value = serde_json::from_str(&host.round().unwrap()).unwrap();
        assert_eq!(out["players"], 1);
        host.feed(&json!([serde_json::from_str::<Value>(&join.as_json()).unwrap()]).to_string());
        let out: Value = serde_json::from_str(&host.round().unwrap()).unwrap();
        assert_eq!(out["state"], "starting", "{out}");
        assert!(out["news"][0].as_str().unwrap().contains("joined (2/2)"));
        let mut lobby_events: Vec<Event> = out["publish"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| Event::from_json(v.to_string()).unwrap())
            .filter(|e| e.kind == Kind::from(wire::lobby::KIND_LOBBY))
            .collect();
        let reveal = lobby_event(
            &host_keys.public_key(),
            &msg(wire::LobbyBody::Reveal {
                nonce: hex::encode(nonce),
            }),
        )
        .sign_with_keys(&guest)
        .unwrap();
        lobby_events.push(reveal.clone());
        // The relays send the host's own nonce back with the guest's.
        let back: Vec<Value> = lobby_events
            .iter()
            .map(|e| serde_json::from_str(&e.as_json()).unwrap())
            .collect();
        host.feed(&json!(back).to_string());
        let out: Value = serde_json::from_str(&host.round().unwrap()).unwrap();
        assert_eq!(out["state"], "seated", "{out}");
        let seated = Event::from_json(out["publish"][0].to_string()).unwrap();
        let spec = wire::parse_table(&seated).unwrap();
        assert_eq!(spec.seats.len(), 2);
        lobby_events.push(join);
        assert_eq!(wire::lobby::check_seating(&spec, &lobby_events), Ok(()));
        crate::key::set_unlocked(None);
    }
}
