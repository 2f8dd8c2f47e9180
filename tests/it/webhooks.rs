//! The ping webhook of `admin key ping`: headers, signature over the exact bytes, secret
//! rotation, retry rules, the address guard at delivery, and the delivery log; and the
//! outbox's lanes, a receiver that does not answer holding only its own key's events, a
//! damaged event dropped instead of holding back its key's later ones, and a delivery that
//! cannot be recorded sent again only after a rest.

use crate::helpers::{printed, spawn_app, spawn_app_with, wait_for, Receiver};
use adcab::ops::WebhookUrl;
use adcab::ops::{self, KeyChange, NewKey};
use adcab::webhooks::sign::signature;
use serde_json::Value;

fn key_with_hook(app: &crate::helpers::TestApp, url: &str) -> (i64, String) {
    let (user, _, _) = app.owner_with_cabinet("pro");
    let created = ops::key_create(
        &app.services,
        &NewKey {
            user,
            webhook_url: Some(url.to_string()),
            ..NewKey::default()
        },
    )
    .unwrap();
    (created.id, created.webhook_secret)
}

/// Puts `ping` events with these bodies into the outbox for `key`, in order, as the store's
/// writers do.
fn queue_events(app: &crate::helpers::TestApp, key: i64, bodies: &[&str]) {
    app.services
        .db
        .write_blocking(|tx| {
            let now = adcab::clock::iso(adcab::clock::now(tx)?);
            bodies.iter().try_for_each(|body| {
                let id = uuid::Uuid::new_v4().to_string();
                adcab::store::outbox::insert(tx, key, "ping", &id, body, &now)
            })
        })
        .unwrap();
}

/// Runs `sql` on the service's writer.
fn execute(app: &crate::helpers::TestApp, sql: &str) {
    app.services
        .db
        .write_blocking(|tx| {
            tx.execute_batch(sql)?;
            Ok::<_, adcab::store::StoreError>(())
        })
        .unwrap();
}

/// Waits until `rx` has `count` requests, and answers the `n` of each body, in arrival order.
fn numbers_received(rx: &Receiver, count: usize, what: &str) -> Vec<Value> {
    let got = wait_for(std::time::Duration::from_secs(5), what, || {
        Some(rx.received()).filter(|got| got.len() == count)
    });
    got.iter()
        .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap()["n"].clone())
        .collect()
}

/// Waits until the outbox is empty.
fn wait_for_an_empty_outbox(app: &crate::helpers::TestApp, what: &str) {
    wait_for(std::time::Duration::from_secs(5), what, || {
        app.services
            .db
            .read_blocking(adcab::store::outbox::is_empty)
            .unwrap()
            .then_some(())
    });
}

#[test]
fn ping_is_signed_over_the_exact_body_with_the_keys_secret() {
    let app = spawn_app();
    let rx = Receiver::start(200);
    let (id, secret) = key_with_hook(&app, &rx.url);
    let out = printed(ops::key_ping(&app.services, ops::By::Operator, id).unwrap());
    assert_eq!(out["status"], 200);
    let got = rx.received();
    assert_eq!(got.len(), 1);
    let h = &got[0].headers;
    assert_eq!(h["content-type"], "application/json");
    assert_eq!(
        h["user-agent"],
        concat!("Service-Webhook/1.0 adcab/", env!("CARGO_PKG_VERSION")),
        "the spec's name and the release, no placeholder address"
    );
    assert_eq!(h["x-service-event"], "ping");
    assert_eq!(h["x-service-delivery"], out["delivery"].as_str().unwrap());
    assert!(uuid::Uuid::parse_str(&h["x-service-delivery"]).is_ok());
    let ts: u64 = h["x-service-timestamp"].parse().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(now.abs_diff(ts) < 300);
    assert_eq!(
        h["x-service-signature"],
        signature(&secret, ts, &got[0].body)
    );
    let body: Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(body["event"], "ping");
    assert!(
        body["delivered_at"].as_str().unwrap().contains('.'),
        "milliseconds"
    );

    let rotated = printed(ops::key_rotate_secret(&app.services, ops::By::Operator, id).unwrap())
        ["webhook_secret"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(rotated, secret);
    printed(ops::key_ping(&app.services, ops::By::Operator, id).unwrap());
    let second = &rx.received()[1];
    let ts: u64 = second.headers["x-service-timestamp"].parse().unwrap();
    assert_eq!(
        second.headers["x-service-signature"],
        signature(&rotated, ts, &second.body),
        "rotation is immediate"
    );
}

#[test]
fn a_5xx_is_retried_once_with_the_same_delivery_id_and_a_4xx_is_not() {
    let app = spawn_app();
    let failing = Receiver::start(503);
    let (id, _) = key_with_hook(&app, &failing.url);
    let out = printed(ops::key_ping(&app.services, ops::By::Operator, id).unwrap());
    assert_eq!(out["status"], 503);
    let got = failing.received();
    assert_eq!(got.len(), 2);
    assert_eq!(
        got[0].headers["x-service-delivery"],
        got[1].headers["x-service-delivery"]
    );

    let refusing = Receiver::start(404);
    ops::key_set(
        &app.services,
        ops::By::Operator,
        id,
        &KeyChange {
            webhook_url: Some(WebhookUrl::Url(refusing.url.clone())),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        printed(printed(
            ops::key_ping(&app.services, ops::By::Operator, id).unwrap()
        ))["status"],
        404
    );
    assert_eq!(refusing.received().len(), 1);

    let log = printed(ops::webhook_log(&app.services, id, None).unwrap());
    let entries = log["deliveries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(
        (
            entries[0]["status"].as_i64(),
            entries[0]["attempts"].as_i64()
        ),
        (Some(404), Some(1))
    );
    assert_eq!(
        (
            entries[1]["status"].as_i64(),
            entries[1]["attempts"].as_i64()
        ),
        (Some(503), Some(2))
    );
    assert!(
        entries[1]["duration_ms"].as_i64().unwrap() >= 750,
        "the retry waits 750 ms"
    );
}

#[test]
fn private_targets_are_refused_when_saved_and_at_delivery() {
    let app = spawn_app_with(|c| c.webhooks.allow_private_targets = false);
    let (user, _, _) = app.owner_with_cabinet("pro");
    for url in [
        "http://hooks.example.com/x",
        "https://127.0.0.1/x",
        "https://localhost/x",
        "https://10.0.0.8/x",
    ] {
        let err = ops::key_create(
            &app.services,
            &NewKey {
                user,
                webhook_url: Some(url.to_string()),
                ..NewKey::default()
            },
        );
        assert!(err.is_err(), "{url} must be refused");
    }
    let rx = Receiver::start(200);
    let created = ops::key_create(
        &app.services,
        &NewKey {
            user,
            ..NewKey::default()
        },
    )
    .unwrap();
    let id = created.id;
    // A URL saved under an earlier, looser setting is still checked at delivery.
    app.sql(&format!(
        "UPDATE api_keys SET webhook_url = '{}' WHERE id = {id}",
        rx.url
    ));
    let out = printed(ops::key_ping(&app.services, ops::By::Operator, id).unwrap());
    assert!(out["status"].is_null());
    assert!(rx.received().is_empty(), "nothing was sent");
    let log = printed(ops::webhook_log(&app.services, id, Some(5)).unwrap());
    assert!(log["deliveries"][0]["error"].as_str().is_some());
}

#[test]
fn a_receiver_that_does_not_answer_holds_only_its_own_keys_events() {
    let app = spawn_app();
    // Takes connections into its backlog and never answers them.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("http://{}/hook", silent.local_addr().unwrap());
    let rx = Receiver::start(200);
    let (stuck, _) = key_with_hook(&app, &silent_url);
    let (served, _) = key_with_hook(&app, &rx.url);
    // The stuck key's event is the oldest waiting.
    queue_events(&app, stuck, &[r#"{"n":0}"#]);
    queue_events(&app, served, &[r#"{"n":1}"#, r#"{"n":2}"#, r#"{"n":3}"#]);
    let order = numbers_received(
        &rx,
        3,
        "the answering key's three events while the other key's first waits for its answer",
    );
    assert_eq!(order, [1, 2, 3], "in the order they were queued");
    drop(silent);
}

#[test]
fn an_event_stored_damaged_is_dropped_and_the_keys_later_events_still_go() {
    let app = spawn_app();
    let rx = Receiver::start(200);
    let (key, _) = key_with_hook(&app, &rx.url);
    queue_events(
        &app,
        key,
        &[r#"{"n":1}"#, r#"["not", "an", "object"]"#, r#"{"n":2}"#],
    );
    let order = numbers_received(&rx, 2, "the two whole events delivered");
    assert_eq!(order, [1, 2]);
    wait_for_an_empty_outbox(
        &app,
        "the outbox emptied, the damaged event with the others",
    );
}

#[test]
fn a_delivery_that_cannot_be_recorded_is_sent_again_only_after_a_rest() {
    let app = spawn_app();
    let rx = Receiver::start(200);
    let (key, _) = key_with_hook(&app, &rx.url);
    // The store refuses to log any delivery, as a full disk would.
    execute(
        &app,
        "CREATE TRIGGER refuse_deliveries BEFORE INSERT ON webhook_deliveries
         BEGIN SELECT RAISE(ABORT, 'no room'); END;",
    );
    queue_events(&app, key, &[r#"{"n":1}"#]);
    let sent = wait_for(
        std::time::Duration::from_secs(5),
        "the event sent, then sent again",
        || Some(rx.received()).filter(|got| got.len() >= 2),
    );
    assert_eq!(
        sent[0].headers["x-service-delivery"], sent[1].headers["x-service-delivery"],
        "the same event"
    );
    let gap = sent[1].at - sent[0].at;
    assert!(
        gap >= std::time::Duration::from_millis(900),
        "sent again after {gap:?}, not after a rest"
    );
    execute(&app, "DROP TRIGGER refuse_deliveries");
    wait_for_an_empty_outbox(&app, "the delivery recorded and the outbox emptied");
}
