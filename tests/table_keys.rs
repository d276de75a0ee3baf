//! Table keys (PROTOCOL.md §2.3): people sit down with a key made for the table, which their
//! identity authorizes once; everyone sees the identity. Over the embedded relay, through the
//! real binary; the attacks are announcements and join requests made by hand, refused by the
//! live host, by the check every client runs on an announcement, and by `verify`.

use crate::common::{home, naddr_of, player, run, short_npub, spawn, tables_listed};
use nostr_sdk::prelude::*;
use std::time::Duration;
use tolerance::net::pool::{PoolConfig, RelayPool};
use tolerance::wire::auth::auth_event;
use tolerance::wire::lobby::{
    lobby_event, seat_commit, seating, LobbyBody, LobbyMsg, LOBBY_VERSION,
};
use tolerance::wire::{
    self, table_event, Deadlines, Lobby, LobbyPlayer, LobbyStatus, TableSpec, VERSION,
};

type Relay = crate::common::relays::ServedRelay;

fn now() -> u64 {
    Timestamp::now().as_secs()
}

fn pool(relay: &Relay, keys: &Keys) -> RelayPool {
    relay
        .rt
        .block_on(RelayPool::connect(
            keys.clone(),
            [relay.url.as_str()],
            PoolConfig::default(),
        ))
        .unwrap()
}

fn publish(relay: &Relay, pool: &RelayPool, ev: &Event) {
    relay.rt.block_on(pool.publish(ev)).unwrap();
}

/// `identity`'s authorization of `key` at `host`'s `table` until `expires`.
fn authorize(identity: &Keys, key: &Keys, host: &PublicKey, table: &str, expires: u64) -> Event {
    auth_event(&key.public_key(), host, table, expires)
        .sign_with_keys(identity)
        .unwrap()
}

/// An authorization in `identity`'s name signed by another key: the thief's event with the
/// identity's key put in, so the signature no longer matches.
fn forged(identity: &Keys, key: &Keys, host: &PublicKey, table: &str) -> Event {
    let thief = Keys::generate();
    let ev = authorize(&thief, key, host, table, now() + 3600);
    let mut json: serde_json::Value = serde_json::from_str(&ev.as_json()).unwrap();
    json["pubkey"] = identity.public_key().to_hex().into();
    Event::from_json(json.to_string()).unwrap()
}

fn join(host: &PublicKey, table: &str, key: &Keys, auth: Option<Event>) -> Event {
    let auth = auth.map(Box::new);
    let msg = LobbyMsg {
        v: LOBBY_VERSION,
        table: table.to_string(),
        body: LobbyBody::Join {
            commit: seat_commit(table, &key.public_key(), &[1u8; 32]),
            auth,
        },
    };
    lobby_event(host, &msg).sign_with_keys(key).unwrap()
}

/// The player of `home` hosts a public two-seat High Card table on the relay, its bot playing
/// (`more`: further host options).
fn hosts_high_card(home: &std::path::Path, r: &Relay, more: &[&str]) -> crate::common::Proc {
    let mut args = vec![
        "host",
        "--relay",
        &r.url,
        "--game",
        "high-card",
        "--seats",
        "2",
        "--public",
        "--auto",
        "--wait",
        "120",
    ];
    args.extend_from_slice(more);
    spawn(home, &args)
}

/// Two people, each with a table key, play a table to its end: the host's lobby and table
/// name the joiner by its profile, never by its table key, and `verify --json` gives each
/// seat's identity beside its table key. Before the joiner comes, the live host refuses, in
/// words, join requests with a forged authorization, one for another table, one naming
/// another key and an expired one.
#[test]
fn two_seats_with_table_keys_play_to_the_end_and_verify_shows_their_identities() {
    let r = Relay::start();
    let (ha, hb) = (home("tkeys", "a"), home("tkeys", "b"));
    let a = player(&ha);
    let b = player(&hb);
    let out = run(
        &hb,
        &["keys", "profile", "--name", "Bobbie", "--relay", &r.url],
    );
    assert!(out.status.success(), "{out:?}");
    let host = hosts_high_card(&ha, &r, &["--table-key"]);
    host.wait_line("with a key made for this table", Duration::from_secs(20));
    let naddr = naddr_of(&host.wait_line("tolerance join naddr1", Duration::from_secs(20)));
    let (table, host_key, _) = wire::parse_table_ref(&naddr).unwrap();
    let host_key = host_key.unwrap();
    assert_ne!(
        host_key.to_bech32().unwrap(),
        a,
        "the table's coordinate names the host's table key, not its identity"
    );

    // Attackers' join requests, each from a fresh table key.
    let victim = Keys::generate();
    let attacker = pool(&r, &Keys::generate());
    let bad: Vec<(Event, &str)> = {
        let k: Vec<Keys> = (0..5).map(|_| Keys::generate()).collect();
        let other_table = hex::encode([9u8; 32]);
        vec![
            (
                join(
                    &host_key,
                    &table,
                    &k[0],
                    Some(forged(&victim, &k[0], &host_key, &table)),
                ),
                "is not signed by that key",
            ),
            (
                join(
                    &host_key,
                    &table,
                    &k[1],
                    Some(authorize(
                        &victim,
                        &k[1],
                        &host_key,
                        &other_table,
                        now() + 3600,
                    )),
                ),
                "is for another table",
            ),
            (
                join(
                    &host_key,
                    &table,
                    &k[2],
                    Some(authorize(&victim, &k[3], &host_key, &table, now() + 3600)),
                ),
                "names the key",
            ),
            (
                join(
                    &host_key,
                    &table,
                    &k[3],
                    Some(authorize(&victim, &k[3], &host_key, &table, now() - 10)),
                ),
                "expired at",
            ),
            // Good now, gone before the table could be seated: listed, it would make every
            // client refuse the seated announcement.
            (
                join(
                    &host_key,
                    &table,
                    &k[4],
                    Some(authorize(&victim, &k[4], &host_key, &table, now() + 60)),
                ),
                "before this table could be seated",
            ),
        ]
    };
    for (ev, words) in &bad {
        publish(&r, &attacker, ev);
        let line = host.wait_line(words, Duration::from_secs(20));
        assert!(line.starts_with("refused npub1"), "{line}");
    }
    r.rt.block_on(attacker.shutdown());

    let joiner = spawn(&hb, &["join", &naddr, "--auto", "--table-key"]);
    let (ok, out, err) = host.finish_blocking(Duration::from_secs(180));
    assert!(ok, "host: {out}\n{err}");
    assert!(
        out.contains("Bobbie joined") && out.contains("seated: "),
        "the host names the joiner by its identity's profile:\n{out}"
    );
    let (ok, jout, jerr) = joiner.finish_blocking(Duration::from_secs(60));
    assert!(ok, "joiner: {jout}\n{jerr}");
    assert!(
        jout.contains("joining as Bobbie") && jout.contains("with a key made for this table"),
        "{jout}"
    );
    // The joiner's table names the host by its identity (no profile: its short npub).
    assert!(jout.contains(&short_npub(&a)), "{jout}");
    for o in [&out, &jout] {
        assert!(o.contains("table over:"), "{o}");
    }

    let v = run(&ha, &["verify", &naddr, "--json"]);
    assert!(v.status.success(), "{v:?}");
    let report: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["finished"], true, "{report}");
    let ids: Vec<String> = report["identities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    let seats: Vec<String> = report["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    let mut want = vec![a.clone(), b.clone()];
    want.sort();
    assert_eq!(sorted, want, "{report}");
    assert!(
        seats.iter().all(|s| !ids.contains(s)),
        "the seats are table keys: {report}"
    );
    assert_eq!(report["host_identity"], a.as_str(), "{report}");
    let bob_seat = ids.iter().position(|i| *i == b).unwrap();
    assert_eq!(report["names"][bob_seat], "Bobbie", "{report}");
    // In words: each seat by its identity, with the table key beside it.
    let v = run(&ha, &["verify", &naddr]);
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(v.status.success(), "{text}");
    assert!(
        text.contains(&format!("hosted by {a}"))
            && text.contains(&format!("Bobbie ({b}, by a table key")),
        "{text}"
    );
}

/// What a bunker was asked, by method, as its person saw the requests.
#[derive(Clone, Default)]
struct Asked(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl nostr_connect::prelude::NostrConnectSignerActions for Asked {
    fn approve(
        &self,
        _client: &PublicKey,
        req: &nostr_connect::prelude::NostrConnectRequest,
    ) -> bool {
        self.0.lock().unwrap().push(req.method().to_string());
        true
    }
}

impl Asked {
    fn count(&self, method: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|m| *m == method)
            .count()
    }
}

/// A NIP-46 bunker holding `user` on the relay, answering every request (and noting it); its
/// `bunker://` link once it is listening (a request of the test's own answered: NIP-46 events
/// are ephemeral, so a request sent before it listens would be lost).
fn bunker(r: &Relay, user: &Keys, asked: &Asked) -> String {
    use nostr_connect::prelude::*;
    let signer = NostrConnectRemoteSigner::new(
        NostrConnectKeys {
            signer: Keys::generate(),
            user: user.clone(),
        },
        [r.url.as_str()],
        Some("a bunker secret".into()),
        None,
    )
    .unwrap();
    let uri = signer.bunker_uri();
    let actions = asked.clone();
    r.rt.spawn(async move { signer.serve(actions).await });
    r.rt.block_on(async {
        for _ in 0..50 {
            let probe =
                NostrConnect::new(uri.clone(), Keys::generate(), Duration::from_secs(1), None)
                    .unwrap();
            let answered = probe.get_public_key().await.ok();
            probe.shutdown().await;
            if answered == Some(user.public_key()) {
                return;
            }
        }
        panic!("the bunker never answered");
    });
    uri.to_string()
}

/// A person whose identity lives in a NIP-46 bunker — its secret never on the player's machine,
/// which holds no identity at all — keeps the bunker's link (`keys bunker`), joins, and plays to
/// the end: the bunker is asked to sign exactly once for the table (the authorization), the
/// table key signs every move, and `verify` names the seat by the bunker's identity. Then
/// `resume` takes the finished table's seat back through the bunker (which opens the table key
/// the journal sealed to the identity, a second request and no signature), and a bunker link
/// that is not one is refused in words. The host's NIP-17 invitation to the identity is found
/// by `tables` through the bunker, and the identity's own feedback and invitations, sealed by
/// the bunker, reach their readers from it.
#[test]
fn an_identity_in_a_bunker_authorizes_its_table_key_once_and_verify_names_it() {
    let r = Relay::start();
    let (ha, hb) = (home("tkeys-bunker", "a"), home("tkeys-bunker", "b"));
    let a = player(&ha);
    let user = Keys::generate();
    let asked = Asked::default();
    let uri = bunker(&r, &user, &asked);
    let before = asked.count("sign_event");

    // A client's nostrconnect:// link is not a bunker's, and junk is not a link.
    let client_link = nostr_connect::prelude::NostrConnectURI::client(
        Keys::generate().public_key(),
        [RelayUrl::parse(&r.url).unwrap()],
        "a client",
    )
    .to_string();
    for (link, words) in [
        (
            client_link.as_str(),
            "a nostrconnect:// link, which a client shows",
        ),
        ("bunker://nonsense", "that is not a bunker link"),
    ] {
        let bad = run(&hb, &["keys", "bunker", link]);
        assert!(!bad.status.success());
        let said = String::from_utf8_lossy(&bad.stderr);
        assert!(said.contains(words), "{link}: {said}");
    }
    let kept = run(&hb, &["keys", "bunker", &uri]);
    let out = String::from_utf8_lossy(&kept.stdout);
    assert!(kept.status.success(), "{kept:?}");
    let b = user.public_key().to_bech32().unwrap();
    assert!(out.contains(&b), "{out}");

    let host = hosts_high_card(&ha, &r, &["--invite", &b]);
    let naddr = naddr_of(&host.wait_line("tolerance join naddr1", Duration::from_secs(20)));
    host.wait_line("relays took the invitation", Duration::from_secs(20));

    // The invitation reaches the identity in the bunker: `tables` in a home holding no key at
    // all finds it, the bunker opening the gift wrap and its seal (NIP-59) and signing nothing.
    let decrypts = asked.count("nip44_decrypt");
    let (invitations, _) = tables_listed(&hb, &r.url);
    assert!(invitations.contains(&naddr), "{invitations}");
    assert!(
        invitations.contains(&format!("Invitations for {}", &b[..10])),
        "{invitations}"
    );
    assert_eq!(asked.count("nip44_decrypt") - decrypts, 2, "{invitations}");
    assert_eq!(asked.count("sign_event"), before, "{invitations}");

    let joiner = spawn(&hb, &["join", &naddr, "--auto"]);
    let (ok, out, err) = host.finish_blocking(Duration::from_secs(180));
    assert!(ok, "host: {out}\n{err}");
    let (ok, jout, jerr) = joiner.finish_blocking(Duration::from_secs(60));
    assert!(ok, "joiner: {jout}\n{jerr}");
    assert!(jout.contains("with a key made for this table"), "{jout}");
    assert!(jout.contains("table over:"), "{jout}");
    assert_eq!(
        asked.count("sign_event") - before,
        1,
        "the bunker signs the authorization and nothing else"
    );

    let v = run(&ha, &["verify", &naddr, "--json"]);
    assert!(v.status.success(), "{v:?}");
    let report: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(
        (&report["ok"], &report["finished"]),
        (&true.into(), &true.into()),
        "{report}"
    );
    let ids: Vec<&str> = report["identities"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x.as_str())
        .collect();
    let at = ids
        .iter()
        .position(|i| *i == b)
        .unwrap_or_else(|| panic!("verify does not name the bunker's identity: {report}"));
    assert_ne!(report["seats"][at], b.as_str(), "{report}");
    assert!(ids.contains(&a.as_str()), "{report}");

    // The seat back through the bunker: it opens the sealed table key, and signs nothing.
    let decrypts = asked.count("nip44_decrypt");
    let back = run(&hb, &["resume", &naddr, "--auto"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&back.stdout),
        String::from_utf8_lossy(&back.stderr)
    );
    assert!(back.status.success(), "{text}");
    assert!(text.contains("resuming table"), "{text}");
    assert_eq!(asked.count("nip44_decrypt") - decrypts, 1, "{text}");
    assert_eq!(asked.count("sign_event") - before, 1, "{text}");

    // Feedback comes from the identity too: the bunker seals the message and its sender's copy.
    let (signed, reader) = (asked.count("sign_event"), Keys::generate());
    let to = reader.public_key().to_bech32().unwrap();
    let sent = run(
        &hb,
        &["feedback", "--to", &to, "--relay", &r.url, "from a bunker"],
    );
    assert!(sent.status.success(), "{sent:?}");
    assert_eq!(asked.count("sign_event") - signed, 2, "{sent:?}");
    let inbox = r.rt.block_on(async {
        let pool = RelayPool::connect(reader.clone(), [r.url.as_str()], PoolConfig::default())
            .await
            .unwrap();
        tolerance::net::dm::fetch_inbox(&pool, Duration::from_secs(5))
            .await
            .unwrap()
    });
    assert!(
        inbox
            .messages
            .iter()
            .any(|m| m.sender == user.public_key() && m.content.contains("from a bunker")),
        "{inbox:?}"
    );

    // A table hosted through the bunker invites from the identity, not from its table key:
    // the invitee's `tables` names the person hosting.
    let signed = asked.count("sign_event");
    let host = hosts_high_card(&hb, &r, &["--invite", &a]);
    let naddr = naddr_of(&host.wait_line("tolerance join naddr1", Duration::from_secs(60)));
    host.wait_line("relays took the invitation", Duration::from_secs(60));
    let (invitations, _) = tables_listed(&ha, &r.url);
    assert!(invitations.contains(&naddr), "{invitations}");
    assert!(
        invitations.contains(&format!("from {}", short_npub(&b))),
        "{invitations}"
    );
    // One authorization and the invitation's two seals.
    assert_eq!(asked.count("sign_event") - signed, 3, "{invitations}");
    let joiner = spawn(&ha, &["join", &naddr, "--auto"]);
    let (ok, out, err) = host.finish_blocking(Duration::from_secs(180));
    assert!(ok, "host: {out}\n{err}");
    let (ok, out, err) = joiner.finish_blocking(Duration::from_secs(60));
    assert!(ok && out.contains("table over:"), "joiner: {out}\n{err}");
}

/// A seated two-player table of `host`, its players `(seat key, authorization listed, join
/// request's authorization)`: the announcement, and the lobby messages (joins, reveals).
fn seated_table(
    host: &Keys,
    table: &str,
    players: &[(&Keys, Option<Event>, Option<Event>)],
    at: u64,
) -> (Event, Vec<Event>) {
    let nonces: Vec<(PublicKey, [u8; 32])> = players
        .iter()
        .enumerate()
        .map(|(i, (k, _, _))| (k.public_key(), [i as u8 + 1; 32]))
        .collect();
    let spec = TableSpec {
        v: VERSION,
        game: "high-card".into(),
        table: table.to_string(),
        setup: serde_json::json!({"players": 2}),
        seats: seating(table, &nonces).iter().map(|k| k.to_hex()).collect(),
        deadlines: Deadlines::default(),
        lobby: Some(Lobby {
            status: LobbyStatus::Seated,
            title: String::new(),
            public: true,
            min_players: 2,
            max_players: players.len() as u8,
            relays: Vec::new(),
            players: players
                .iter()
                .zip(&nonces)
                .map(|((k, listed, _), (_, n))| LobbyPlayer {
                    pubkey: k.public_key().to_hex(),
                    commit: seat_commit(table, &k.public_key(), n),
                    auth: listed.clone().map(Box::new),
                })
                .collect(),
            reason: None,
            round: 0,
            join_pow: None,
            expires: None,
        }),
        pow: 0,
    };
    let ev = table_event(&spec)
        .custom_created_at(Timestamp::from(at))
        .sign_with_keys(host)
        .unwrap();
    let mut lobby = Vec::new();
    for ((k, _, joined), (_, n)) in players.iter().zip(&nonces) {
        let msg = |body| LobbyMsg {
            v: LOBBY_VERSION,
            table: table.to_string(),
            body,
        };
        let commit = seat_commit(table, &k.public_key(), n);
        lobby.push(
            lobby_event(
                &host.public_key(),
                &msg(LobbyBody::Join {
                    commit,
                    auth: joined.clone().map(Box::new),
                }),
            )
            .sign_with_keys(k)
            .unwrap(),
        );
        lobby.push(
            lobby_event(
                &host.public_key(),
                &msg(LobbyBody::Reveal {
                    nonce: hex::encode(n),
                }),
            )
            .sign_with_keys(k)
            .unwrap(),
        );
    }
    (ev, lobby)
}

/// The players an attack puts beside the host at `host`'s `table`: `(seat key, authorization
/// listed, join request's authorization)`.
type Attack<'a> = Box<dyn Fn(&Keys, &str) -> Vec<(Keys, Option<Event>, Option<Event>)> + 'a>;

/// Seatings a host could announce to pass a table key off as someone: a forged authorization,
/// one for another table, one naming another key, one expired before the table was
/// announced, a table key (and its public authorization) taken from the table it was made for
/// to a second table, and a joiner's authorization left out of the seating. Each is refused,
/// in words, by the check every client runs on the announcement and by `verify`.
#[test]
fn forged_foreign_expired_reused_and_dropped_authorizations_are_refused_by_every_client_and_verify()
{
    let r = Relay::start();
    let hv = home("tkeys-attacks", "v");
    player(&hv);
    let publisher = pool(&r, &Keys::generate());
    let t = now();
    // The victim's honest authorization at its own table A.
    let victim = Keys::generate();
    let victim_key = Keys::generate();
    let host_a = Keys::generate();
    let table_a = hex::encode([0xa0u8; 32]);
    let honest_at_a = authorize(
        &victim,
        &victim_key,
        &host_a.public_key(),
        &table_a,
        t + 3600,
    );

    let cases: Vec<(&str, Attack)> = vec![
        (
            "is not signed by that key",
            Box::new(|host, table| {
                let k = Keys::generate();
                let a = forged(&victim, &k, &host.public_key(), table);
                vec![(k, Some(a.clone()), Some(a))]
            }),
        ),
        (
            "is for another table",
            Box::new(|host, _| {
                let k = Keys::generate();
                let a = authorize(
                    &victim,
                    &k,
                    &host.public_key(),
                    &hex::encode([3u8; 32]),
                    t + 3600,
                );
                vec![(k, Some(a.clone()), Some(a))]
            }),
        ),
        (
            "names the key",
            Box::new(|host, table| {
                let k = Keys::generate();
                let a = authorize(
                    &victim,
                    &Keys::generate(),
                    &host.public_key(),
                    table,
                    t + 3600,
                );
                vec![(k, Some(a.clone()), Some(a))]
            }),
        ),
        (
            "expired at",
            Box::new(|host, table| {
                let k = Keys::generate();
                let a = authorize(&victim, &k, &host.public_key(), table, t - 5);
                vec![(k, Some(a.clone()), Some(a))]
            }),
        ),
        (
            // The victim's table key with its authorization for table A, at another table.
            "is for another table",
            Box::new(|_, _| vec![(victim_key.clone(), Some(honest_at_a.clone()), None)]),
        ),
        (
            // A player who asked with its own key, listed with an authorization by an identity
            // the host made up: its seat would be named after someone it never claimed to be.
            "that none of its join requests carried",
            Box::new(|host, table| {
                let k = Keys::generate();
                let made_up = Keys::generate();
                let a = authorize(&made_up, &k, &host.public_key(), table, t + 3600);
                vec![(k, Some(a), None)]
            }),
        ),
        (
            // An honest joiner's authorization, left out by the host.
            "without the authorization its join request carried",
            Box::new(|host, table| {
                let k = Keys::generate();
                let a = authorize(&victim, &k, &host.public_key(), table, t + 3600);
                vec![(k, None, Some(a))]
            }),
        ),
    ];
    for (i, (words, attack)) in cases.iter().enumerate() {
        let host = Keys::generate();
        let table = hex::encode([0x10 + i as u8; 32]);
        let mut players = vec![(host.clone(), None, None)];
        players.extend(attack(&host, &table));
        let listed: Vec<(&Keys, Option<Event>, Option<Event>)> = players
            .iter()
            .map(|(k, l, j)| (k, l.clone(), j.clone()))
            .collect();
        let (ann, lobby) = seated_table(&host, &table, &listed, t);
        // What every client (terminal, page, watch, verify) runs on an announcement and its
        // seating: the announcement's own check, then the seating against the lobby messages.
        let refused = match wire::parse_table(&ann) {
            Err(e) => e.to_string(),
            Ok(spec) => wire::lobby::check_seating(&spec, &lobby)
                .expect_err(words)
                .words()
                .to_string(),
        };
        assert!(refused.contains(words), "case {i}: {refused}");
        assert!(
            !refused.contains("Some(") && !refused.contains("Forged("),
            "{refused}"
        );
        publish(&r, &publisher, &ann);
        for ev in &lobby {
            publish(&r, &publisher, ev);
        }
        let naddr = wire::table_naddr(&host.public_key(), &table, std::slice::from_ref(&r.url));
        let v = run(&hv, &["verify", &naddr]);
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&v.stdout),
            String::from_utf8_lossy(&v.stderr)
        );
        assert!(!v.status.success(), "case {i}: {said}");
        assert!(said.contains(words), "case {i}: {said}");
        // Named by its id alone, `verify` says the same of the only host announcing it.
        let v = run(&hv, &["verify", &table, "--relay", &r.url]);
        let said = String::from_utf8_lossy(&v.stderr);
        assert!(
            !v.status.success() && said.contains(words),
            "case {i}: {said}"
        );
    }
    // One person, two seats: refused as well.
    let host = Keys::generate();
    let table = hex::encode([0x30u8; 32]);
    let (k1, k2) = (Keys::generate(), Keys::generate());
    let a1 = authorize(&victim, &k1, &host.public_key(), &table, t + 3600);
    let a2 = authorize(&victim, &k2, &host.public_key(), &table, t + 3600);
    let (ann, _) = seated_table(
        &host,
        &table,
        &[
            (&host, None, None),
            (&k1, Some(a1), None),
            (&k2, Some(a2), None),
        ],
        t,
    );
    let e = wire::parse_table(&ann).unwrap_err().to_string();
    assert!(e.contains("holds two places at the table"), "{e}");
    r.rt.block_on(publisher.shutdown());
}
