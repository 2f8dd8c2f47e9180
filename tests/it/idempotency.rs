//! Idempotency-Key on a budget move: replay, reuse, in progress, 4xx not consumed, 5xx
//! replayed, expiry, per holder, store unavailable, concurrent duplicates, restart.

use crate::helpers::{spawn_app, TestApp};
use adcab::ops;
use adcab::platform::sim::Fault;
use serde_json::{json, Value};

fn budget(app: &TestApp, key: &str, ad: i64, idem: &str, body: &Value) -> crate::helpers::Resp {
    app.send(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        key,
        Some(body),
        &[("Idempotency-Key", idem)],
    )
}

fn cabinet_balance(app: &TestApp, cabinet: i64) -> i64 {
    app.scalar(
        "SELECT balance_micros FROM sim_accounts WHERE id = ?1",
        &[cabinet],
    )
}

#[test]
fn the_key_is_required_and_must_be_8_to_255_characters() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let body = json!({ "action": "add", "amount": 5 });
    let r = app.send(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        &key,
        Some(&body),
        &[],
    );
    r.assert_error(400, "IDEMPOTENCY_KEY_REQUIRED");
    for bad in ["1234567".to_string(), "k".repeat(256)] {
        budget(&app, &key, ad, &bad, &body).assert_error(400, "IDEMPOTENCY_KEY_INVALID");
    }
    assert_eq!(budget(&app, &key, ad, &"k".repeat(255), &body).status, 200);
    assert_eq!(budget(&app, &key, ad, "12345678", &body).status, 200);
}

#[test]
fn the_same_key_and_request_replays_without_moving_money_again() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let body = json!({ "action": "add", "amount": "5.00" });
    let before = cabinet_balance(&app, cabinet);
    let first = budget(&app, &key, ad, "replay-key-1", &body);
    assert_eq!(first.status, 200);
    let reordered = json!({ "amount": "5.00", "action": "add" });
    let second = budget(&app, &key, ad, "replay-key-1", &reordered);
    assert_eq!(second.status, 200);
    assert_eq!(second.body, first.body, "the first answer, replayed");
    assert_eq!(
        cabinet_balance(&app, cabinet),
        before - 5_000_000,
        "moved once"
    );
    let other = budget(
        &app,
        &key,
        ad,
        "replay-key-1",
        &json!({ "action": "add", "amount": 6 }),
    );
    other.assert_error(422, "IDEMPOTENCY_KEY_REUSED");
}

#[test]
fn a_4xx_never_consumes_the_key() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let bad = budget(
        &app,
        &key,
        ad,
        "fix-and-retry",
        &json!({ "action": "add", "amount": "1.234" }),
    );
    assert_eq!(bad.status, 400);
    let fixed = budget(
        &app,
        &key,
        ad,
        "fix-and-retry",
        &json!({ "action": "add", "amount": "5" }),
    );
    assert_eq!(fixed.status, 200, "{}", fixed.body);
    assert_eq!(fixed.body["data"]["budget"], "15.00");
}

#[test]
fn a_5xx_is_replayed_as_the_same_5xx() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let body = json!({ "action": "add", "amount": 5 });
    ops::sim_fail(&app.services, cabinet, Fault::Timeout, 1).unwrap();
    let first = budget(&app, &key, ad, "five-hundred", &body);
    first.assert_error(503, "PLATFORM_UNAVAILABLE");
    assert!(first.header("retry-after").is_some());
    // The replay is the stored answer under this request's id (envelope and header agree).
    let again = budget(&app, &key, ad, "five-hundred", &body);
    again.assert_error(503, "PLATFORM_UNAVAILABLE");
    assert_ne!(again.body["request_id"], first.body["request_id"]);
    let fresh = budget(&app, &key, ad, "five-hundred-new", &body);
    assert_eq!(fresh.status, 200);
}

#[test]
fn a_running_first_request_is_in_progress() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    app.sql(&format!(
        "INSERT INTO idempotency_keys (holder_id, key, fingerprint, state, created_at)
         VALUES ({user}, 'still-running', 'x', 'running', '2999-01-01T00:00:00Z')"
    ));
    let r = budget(
        &app,
        &key,
        ad,
        "still-running",
        &json!({ "action": "add", "amount": 5 }),
    );
    r.assert_error(409, "IDEMPOTENCY_IN_PROGRESS");
    let app = app.restart();
    let r = budget(
        &app,
        &key,
        ad,
        "still-running",
        &json!({ "action": "add", "amount": 5 }),
    );
    assert_eq!(
        r.status, 200,
        "a restart drops claims of requests that died with the process"
    );
}

#[test]
fn records_expire_after_24_hours_and_are_per_key_holder() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    assert_eq!(
        budget(
            &app,
            &key,
            ad,
            "day-old-key",
            &json!({ "action": "add", "amount": 5 })
        )
        .status,
        200
    );
    let (_, other_cabinet, other_key) = app.manager();
    let other_ad = app.active_campaign(other_cabinet);
    let mine = budget(
        &app,
        &other_key,
        other_ad,
        "day-old-key",
        &json!({ "action": "add", "amount": 7 }),
    );
    assert_eq!(mine.status, 200, "another holder's key space");
    // On Hold spends nothing while the day passes.
    app.write_ok("POST", &format!("/campaigns/{ad}/pause"), &key, None, 200);
    ops::sim_advance(&app.services, 24 * 3600).unwrap();
    let later = budget(
        &app,
        &key,
        ad,
        "day-old-key",
        &json!({ "action": "add", "amount": 6 }),
    );
    assert_eq!(later.status, 200, "{}", later.body);
    assert_eq!(later.body["data"]["budget"], "21.00");
}

#[test]
fn when_the_store_is_unreachable_nothing_is_done() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let before = cabinet_balance(&app, cabinet);
    app.sql("DROP TABLE idempotency_keys");
    let r = budget(
        &app,
        &key,
        ad,
        "no-store-here",
        &json!({ "action": "add", "amount": 5 }),
    );
    r.assert_error(503, "IDEMPOTENCY_UNAVAILABLE");
    assert_eq!(r.header("retry-after"), Some("2"));
    assert_eq!(cabinet_balance(&app, cabinet), before);
}

#[test]
fn concurrent_duplicates_move_money_once() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let before = cabinet_balance(&app, cabinet);
    let body = json!({ "action": "add", "amount": "5.00" });
    let answers: Vec<(u16, Value)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    let r = budget(&app, &key, ad, "same-time-key", &body);
                    (r.status, r.body)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        cabinet_balance(&app, cabinet),
        before - 5_000_000,
        "exactly one move"
    );
    let ok: Vec<&Value> = answers
        .iter()
        .filter(|(s, _)| *s == 200)
        .map(|(_, b)| b)
        .collect();
    assert!(!ok.is_empty());
    assert!(
        ok.iter().all(|b| **b == *ok[0]),
        "every 200 is the same answer"
    );
    assert!(answers
        .iter()
        .all(|(s, b)| *s == 200 || (*s == 409 && b["code"] == "IDEMPOTENCY_IN_PROGRESS")));
}
