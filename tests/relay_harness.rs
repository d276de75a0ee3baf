//! The public-relay harness ([`RelayProxy`]) in front of the embedded relay, and what the pool
//! does with each behaviour: rate limits, paced sending, per-relay queues, closed
//! subscriptions, capped queries, rejections, a relay that goes down and comes back.

use std::time::{Duration, Instant};

use nostr_sdk::prelude::*;
use tolerance::net::harness::{RateLimit, RelayProxy, Rules};
use tolerance::net::{EmbeddedRelay, EmbeddedRelayConfig, NetError, PoolConfig, SendRate};

use crate::common::relays::{embedded, embedded_with, from, next, note, pool_with, KIND, WAIT};

async fn proxy(relay: &EmbeddedRelay, rules: Rules) -> RelayProxy {
    RelayProxy::start(relay.url(), rules)
        .await
        .expect("proxy starts")
}

/// A proxy that hides the relay's NIP-11 document (it answers 404).
async fn without_info(relay: &EmbeddedRelay) -> RelayProxy {
    proxy(
        relay,
        Rules {
            no_info: true,
            ..Rules::default()
        },
    )
    .await
}

fn limit(per_minute: u32, burst: u32) -> Rules {
    Rules {
        rate_limit: Some(RateLimit { per_minute, burst }),
        ..Rules::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn over_the_rate_the_relay_says_rate_limited_and_the_pool_backs_off() {
    let relay = embedded().await;
    let proxy = proxy(&relay, limit(30, 5)).await;
    let p = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    for i in 0..5 {
        p.publish(&note(&p, &format!("burst {i}")))
            .await
            .expect("within the burst");
    }
    let err = p
        .publish(&note(&p, "one too many"))
        .await
        .expect_err("over the limit");
    match err {
        NetError::NotAccepted { rejected, .. } => {
            assert!(rejected[0].1.starts_with("rate-limited:"), "{rejected:?}")
        }
        other => panic!("{other}"),
    }
    // Backing off: the next event does not even reach the relay.
    let err = p.publish(&note(&p, "during the pause")).await.unwrap_err();
    assert!(err.to_string().contains("retrying in"), "{err}");
    let stats = proxy.stats();
    assert_eq!((stats.events_forwarded, stats.rate_limited), (5, 1));
    let figures = &p.relay_stats()[0];
    assert_eq!((figures.accepted, figures.rate_limited), (5, 1));
    assert!(figures
        .reasons
        .keys()
        .any(|r| r.starts_with("rate-limited: at most 30")));
    let notes = p.notes();
    assert!(
        notes.iter().any(|n| n.contains("rate-limits us, retrying")),
        "{notes:?}"
    );
    // After the backoff (1 s at first; 30/min refills a token every 2 s) it gets through.
    let deadline = Instant::now() + WAIT;
    loop {
        if p.publish(&note(&p, "later")).await.is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "never accepted again");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(p.notes().is_empty(), "{:?}", p.notes());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_paced_pool_never_meets_the_relays_limit() {
    let relay = embedded().await;
    let proxy = proxy(&relay, limit(30, 5)).await;
    let p = pool_with(
        &[proxy.url()],
        PoolConfig::paced(SendRate {
            per_minute: 30.0,
            burst: 5,
        }),
    )
    .await;
    let mut accepted = 0;
    for i in 0..8 {
        match p.publish(&note(&p, &format!("{i}"))).await {
            Ok(_) => accepted += 1,
            Err(e) => assert!(e.to_string().contains("paced"), "{e}"),
        }
    }
    assert_eq!(accepted, 5);
    assert_eq!(proxy.stats().rate_limited, 0, "{:?}", proxy.stats());
    assert_eq!(p.relay_stats()[0].paced, 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_relay_that_could_not_take_an_event_gets_it_from_its_queue() {
    let a = embedded().await;
    let b = embedded().await;
    let slow = proxy(&b, limit(600, 1)).await;
    let p = pool_with(&[a.url(), slow.url()], PoolConfig::unpaced()).await;
    let first = note(&p, "first");
    let second = note(&p, "second");
    p.publish(&first).await.expect("both take it");
    let report = p.publish(&second).await.expect("a takes it");
    assert_eq!(report.accepted, vec![a.url().clone()]);
    assert!(report.rejected[0].1.starts_with("rate-limited:"));
    // b gets it once its pause is over, without the caller doing anything.
    let reader = pool_with(&[b.url()], PoolConfig::unpaced()).await;
    let deadline = Instant::now() + WAIT;
    loop {
        let got = reader
            .fetch(from(p.public_key()), Duration::from_secs(2))
            .await
            .unwrap();
        if got.len() == 2 {
            break;
        }
        assert!(Instant::now() < deadline, "b has {} event(s)", got.len());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(p.relay_stats()[1].queued, 0);
}

/// Soak tables 79, 137, 208: a table played faster than one relay's per-address limit, and the
/// closing clients gave that relay 12 s, less than its minute: on its own it never showed the
/// table's end. A closing pool now waits for a relay that limits its rate as long as it refuses.
#[tokio::test(flavor = "multi_thread")]
async fn a_closing_pool_waits_out_a_relays_rate_window_for_the_events_it_owes() {
    let a = embedded().await;
    let b = embedded().await;
    let limited = proxy(
        &b,
        Rules {
            ip_window: Some(4),
            ..Rules::default()
        },
    )
    .await;
    let p = pool_with(&[a.url(), limited.url()], PoolConfig::unpaced()).await;
    for i in 0..8 {
        p.publish(&note(&p, &format!("closing {i}")))
            .await
            .expect("a takes every one");
    }
    assert!(p.relay_stats()[1].queued > 0, "{:?}", p.relay_stats()[1]);
    p.shutdown().await;
    let reader = pool_with(&[b.url()], PoolConfig::unpaced()).await;
    let got = reader
        .fetch(from(p.public_key()), Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(got.len(), 8, "the limited relay kept {} of 8", got.len());
    assert_eq!(p.relay_stats()[1].queued, 0);
    assert_eq!(limited.stats().events_forwarded, 8);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_closed_subscription_is_sent_again_and_its_reason_shown() {
    let relay = embedded().await;
    let proxy = proxy(&relay, Rules::default()).await;
    let author = pool_with(&[relay.url()], PoolConfig::unpaced()).await;
    let reader = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    let mut sub = reader.subscribe(from(author.public_key())).await.unwrap();
    author.publish(&note(&author, "before")).await.unwrap();
    assert_eq!(next(&mut sub).await.content, "before");

    assert_eq!(
        proxy.close_subscriptions("error: shutting down idle subscriptions"),
        1
    );
    assert!(
        proxy
            .wait_until(|s| s.closed_sent == 1 && s.reqs >= 2, WAIT)
            .await,
        "the reader asks again: {:?}",
        proxy.stats()
    );
    author.publish(&note(&author, "after")).await.unwrap();
    assert_eq!(next(&mut sub).await.content, "after");
    assert_eq!(reader.relay_stats()[0].subscriptions_closed, 1);
    let notes = reader.notes();
    assert!(
        notes.iter().any(|n| n.contains(
            "closed our subscription (error: shutting down idle subscriptions); subscribing again"
        )),
        "{notes:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn capped_queries_are_paged_through() {
    let relay = embedded().await;
    let proxy = proxy(
        &relay,
        Rules {
            max_stored: Some(10),
            ..Rules::default()
        },
    )
    .await;
    let author = pool_with(&[relay.url()], PoolConfig::unpaced()).await;
    let now = Timestamp::now().as_secs();
    for i in 0..35u64 {
        let ev = author
            .sign(
                EventBuilder::new(KIND, format!("{i}"))
                    .custom_created_at(Timestamp::from_secs(now - 100 + i)),
            )
            .unwrap();
        author.publish(&ev).await.unwrap();
    }
    let reader = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    let capped = reader
        .fetch(from(author.public_key()), Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(capped.len(), 10, "the proxy caps one query");
    // Even asking for pages larger than the relay's cap.
    let all = reader
        .fetch_all(
            Filter::new().kind(KIND).author(author.public_key()),
            500,
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert_eq!(all.len(), 35);
    assert!(proxy.stats().stored_dropped > 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn rejections_are_counted_by_reason_and_shown() {
    let relay = embedded().await;
    let proxy = proxy(
        &relay,
        Rules {
            reject_events: Some("blocked: this relay is for members".into()),
            ..Rules::default()
        },
    )
    .await;
    let p = pool_with(&[relay.url(), proxy.url()], PoolConfig::unpaced()).await;
    let report = p
        .publish(&note(&p, "hello"))
        .await
        .expect("one relay takes it");
    assert_eq!(report.rejected.len(), 1);
    let figures = &p.relay_stats()[1];
    assert_eq!(figures.rejected, 1);
    assert_eq!(
        figures.reasons.get("blocked: this relay is for members"),
        Some(&1)
    );
    // A final refusal is not retried.
    assert_eq!(figures.queued, 0);
    let notes = p.notes();
    assert!(
        notes
            .iter()
            .any(|n| n.ends_with("refuses our events: blocked: this relay is for members")),
        "{notes:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_requests_are_answered_closed() {
    let relay = embedded().await;
    let proxy = proxy(
        &relay,
        Rules {
            refuse_reqs: Some("restricted: no reading here".into()),
            ..Rules::default()
        },
    )
    .await;
    let reader = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    let _sub = reader
        .subscribe(from(Keys::generate().public_key()))
        .await
        .unwrap();
    assert!(proxy.wait_until(|s| s.closed_sent >= 1, WAIT).await);
    let deadline = Instant::now() + WAIT;
    while reader.relay_stats()[0].subscriptions_closed == 0 {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(reader
        .notes()
        .iter()
        .any(|n| n.contains("restricted: no reading here")));
}

#[tokio::test(flavor = "multi_thread")]
async fn down_for_a_while_then_back_with_everything_missed() {
    let relay = embedded().await;
    let proxy = proxy(&relay, Rules::default()).await;
    let author = pool_with(&[relay.url()], PoolConfig::unpaced()).await;
    let reader = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    let mut sub = reader.subscribe(from(author.public_key())).await.unwrap();
    proxy.down_for(Duration::from_secs(2));
    assert!(proxy.is_down());
    author.publish(&note(&author, "while down")).await.unwrap();
    assert_eq!(next(&mut sub).await.content, "while down");
    assert!(!proxy.is_down());
    assert!(proxy.stats().refused >= 1, "{:?}", proxy.stats());
    assert!(reader.relay_stats()[0].reconnects >= 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn events_whose_content_holds_the_mark_are_counted_apart() {
    let relay = embedded().await;
    let proxy = proxy(
        &relay,
        Rules {
            mark: Some("\"deck\":7".into()),
            ..Rules::default()
        },
    )
    .await;
    let p = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    for text in [
        r#"{"deck":7}"#,
        r#"{"deck":8}"#,
        "deck 7",
        r#"[{"deck":71}]"#,
    ] {
        p.publish(&note(&p, text)).await.unwrap();
    }
    let stats = proxy.stats();
    assert_eq!((stats.events_forwarded, stats.marked), (4, 2), "{stats:?}");
    // Without a mark nothing is counted apart.
    proxy.update_rules(|r| r.mark = None);
    p.publish(&note(&p, r#"{"deck":7}"#)).await.unwrap();
    assert_eq!(proxy.stats().marked, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn delay_is_added_each_way() {
    let relay = embedded().await;
    let proxy = proxy(
        &relay,
        Rules {
            delay: Duration::from_millis(150),
            ..Rules::default()
        },
    )
    .await;
    let p = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    let started = Instant::now();
    p.publish(&note(&p, "slow")).await.unwrap();
    // EVENT one way, OK the other: never sooner than both delays.
    assert!(started.elapsed() >= Duration::from_millis(300));
    proxy.set_rules(Rules::default());
    let started = Instant::now();
    p.publish(&note(&p, "fast")).await.unwrap();
    assert!(started.elapsed() < Duration::from_millis(300));
}

#[tokio::test(flavor = "multi_thread")]
async fn nip11_limits_are_read_when_connecting_and_shape_pages_sizes_and_notes() {
    let relay = embedded_with(EmbeddedRelayConfig {
        max_limit: 7,
        max_message_bytes: 3_000,
        max_subscriptions: 2,
        ..EmbeddedRelayConfig::default()
    })
    .await;
    // Through the proxy: the document comes from the relay behind it, over real HTTP.
    let proxy = proxy(&relay, Rules::default()).await;
    let p = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    let info = p.relay_info()[0]
        .1
        .clone()
        .expect("the relay has a document");
    assert_eq!(info.max_limit, Some(7));
    assert_eq!(info.max_message_length, Some(3_000));
    assert_eq!(info.max_subscriptions, Some(2));
    assert_eq!(info.min_pow_difficulty, 0);
    assert_eq!(p.page_size(500), 7);
    assert_eq!(p.relay_stats()[0].info.as_ref(), Some(&info));
    let figures = serde_json::to_value(&p.relay_stats()[0]).unwrap();
    assert_eq!(figures["info"]["max_limit"], 7, "{figures}");

    // Larger than the relay reads: refused before sending, in words, and the connection stays.
    let big = note(&p, &"x".repeat(4_000));
    let err = p.publish(&big).await.expect_err("too large for this relay");
    assert!(!err.is_transient(), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("too large for this relay") && text.contains("at most 3000"),
        "{text}"
    );
    assert_eq!(proxy.stats().events_forwarded, 0);
    p.publish(&note(&p, "small"))
        .await
        .expect("a small event goes");

    // History comes in pages of the relay's max_limit and nothing is lost.
    let now = Timestamp::now().as_secs();
    for i in 0..20u64 {
        let ev = p
            .sign(
                EventBuilder::new(KIND, format!("{i}"))
                    .custom_created_at(Timestamp::from_secs(now - 100 + i / 3)),
            )
            .unwrap();
        p.publish(&ev).await.unwrap();
    }
    let all = p
        .fetch_all(
            Filter::new().kind(KIND).author(p.public_key()),
            500,
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert_eq!(all.len(), 21);

    // More subscriptions than it allows: said in words.
    let _a = p.subscribe(from(p.public_key())).await.unwrap();
    let _b = p.subscribe(from(p.public_key())).await.unwrap();
    assert!(p.notes().iter().all(|n| !n.contains("subscriptions per")));
    let _c = p.subscribe(from(p.public_key())).await.unwrap();
    let notes = p.notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("allows 2 subscriptions per connection and we hold 3")),
        "{notes:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_relay_without_an_information_document_gets_the_defaults() {
    let relay = embedded_with(EmbeddedRelayConfig {
        max_limit: 7,
        ..EmbeddedRelayConfig::default()
    })
    .await;
    let proxy = without_info(&relay).await;
    let p = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    assert_eq!(p.relay_info()[0].1, None);
    assert_eq!(p.page_size(500), 500);
    p.publish(&note(&p, "fine")).await.expect("published");
    // The relay behind does answer: the document was the proxy's 404, not a failed exchange.
    let direct = pool_with(&[relay.url()], PoolConfig::unpaced()).await;
    assert_eq!(direct.page_size(500), 7);
}

#[tokio::test(flavor = "multi_thread")]
async fn paging_gets_past_a_second_with_more_events_than_the_relay_returns() {
    let relay = embedded().await;
    let proxy = proxy(
        &relay,
        Rules {
            max_stored: Some(5),
            ..Rules::default()
        },
    )
    .await;
    // Three seats, four events each in one second, and a few earlier ones: 12 events of one
    // second behind a cap of 5.
    let second = Timestamp::now().as_secs() - 50;
    let mut seats = Vec::new();
    for _ in 0..3 {
        let seat = pool_with(&[relay.url()], PoolConfig::unpaced()).await;
        for i in 0..4u64 {
            let ev = seat
                .sign(
                    EventBuilder::new(KIND, format!("same second {i}"))
                        .custom_created_at(Timestamp::from_secs(second)),
                )
                .unwrap();
            seat.publish(&ev).await.unwrap();
        }
        let earlier = seat
            .sign(
                EventBuilder::new(KIND, "earlier")
                    .custom_created_at(Timestamp::from_secs(second - 10)),
            )
            .unwrap();
        seat.publish(&earlier).await.unwrap();
        seats.push(seat.public_key());
    }
    let reader = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    let all = reader
        .fetch_all(
            Filter::new().kind(KIND).authors(seats.clone()),
            500,
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert_eq!(
        all.len(),
        15,
        "every event of the crowded second and before"
    );
    assert!(proxy.stats().stored_dropped > 0, "the cap was met");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pow_refusal_is_mined_again_outside_the_log_and_named_for_log_events() {
    let relay = embedded_with(EmbeddedRelayConfig {
        min_pow_difficulty: 10,
        ..EmbeddedRelayConfig::default()
    })
    .await;
    // The relay's document is hidden: the pool learns the difficulty from the refusal.
    let proxy = without_info(&relay).await;
    let p = pool_with(&[proxy.url()], PoolConfig::unpaced()).await;
    assert_eq!(p.min_pow_difficulty(), 0);
    let (ev, report) = p
        .publish_mined(EventBuilder::new(KIND, "a lobby message"), 0, false)
        .await
        .expect("mined again and taken");
    assert!(ev.id.check_pow(10), "{}", ev.id);
    assert_eq!(report.accepted.len(), 1);

    // A log event is signed once: refused, and the note says why in words.
    let err = p
        .publish(&note(&p, "a log event"))
        .await
        .expect_err("no work");
    assert!(!err.is_transient(), "{err}");
    let notes = p.notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("needs proof of work the table did not announce")),
        "{notes:?}"
    );
}

/// NIP-17 private messages (invitations, feedback) on a relay that asks for proof of work: the
/// gift wrap, signed by a one-time key, is mined too, both when the relay's NIP-11 document says
/// so and when only its `pow:` refusal does; the recipient opens it.
#[tokio::test(flavor = "multi_thread")]
async fn a_private_message_carries_the_proof_of_work_its_relay_asks_for() {
    use tolerance::net::dm;
    let relay = embedded_with(EmbeddedRelayConfig {
        min_pow_difficulty: 10,
        ..EmbeddedRelayConfig::default()
    })
    .await;
    let hidden = without_info(&relay).await;
    for url in [relay.url(), hidden.url()] {
        let sender = pool_with(&[url], PoolConfig::unpaced()).await;
        let recipient = pool_with(&[url], PoolConfig::unpaced()).await;
        let report = dm::send_private(
            &sender,
            &recipient.public_key(),
            &format!("an invitation through {url}"),
            Vec::new(),
            WAIT,
        )
        .await
        .expect("the relay takes a mined wrap");
        assert_eq!(report.delivered.accepted.len(), 1, "{report:?}");
        assert!(report.own_copy.is_ok(), "{report:?}");
        let inbox = dm::fetch_inbox(&recipient, WAIT).await.expect("inbox");
        assert_eq!(inbox.messages.len(), 1, "{inbox:?}");
        assert_eq!(
            inbox.messages[0].content,
            format!("an invitation through {url}")
        );
        let wraps = recipient
            .fetch(
                vec![Filter::new()
                    .kind(Kind::GiftWrap)
                    .pubkey(recipient.public_key())],
                WAIT,
            )
            .await
            .expect("wraps");
        assert!(!wraps.is_empty());
        for w in &wraps {
            assert!(w.id.check_pow(10), "wrap {} carries too little work", w.id);
            assert!(w.verify().is_ok());
        }
    }
}
