//! Idempotent replay, parameter mismatch, expiry and requests in progress.

use std::time::Duration;

use crate::promote_fake::{FakePromote, Fault};
use crate::*;
use serde_json::json;

#[test]
fn idempotent_replay_mismatch_and_expiry() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "I", "50", false);
    let first = call_key(&f, &a.token, Some("k1"), "createAd", chan_ad("Once", "10"));
    let body = first.result().clone();
    assert_eq!(first.replayed, None);
    f.approve(&a.account_id, body["ad_id"].as_i64().unwrap());
    let again = call_key(
        &f,
        &a.token,
        Some("k1"),
        "createAd",
        chan_ad("Once", "10.00"),
    );
    assert_eq!(
        (again.replayed.as_deref(), again.result()),
        (Some("true"), &body),
        "the original snapshot"
    );
    assert_eq!(
        (f.balance(&a.account_id), f.money_moves(&a.account_id)),
        ("40".into(), 1)
    );
    assert!(f.calls()[1].replayed && !f.calls()[0].replayed);
    assert_eq!(f.calls()[1].idempotency_key.as_deref(), Some("k1"));

    // The same key in the body (header wins), a form body with the same values, other params.
    let mut in_body = chan_ad("Once", "10");
    in_body["idempotency_key"] = json!("k1");
    assert_eq!(
        call(&f, &a.token, "createAd", in_body.clone())
            .replayed
            .as_deref(),
        Some("true")
    );
    assert_eq!(
        call_key(&f, &a.token, Some("k2"), "createAd", in_body).replayed,
        None
    );
    assert_eq!(
        call_key(&f, &a.token, Some("k1"), "createAd", chan_ad("Twice", "10")).error(),
        "IDEMPOTENT_PARAM_MISMATCH"
    );
    assert_eq!(
        call_key(
            &f,
            &a.token,
            Some("k1"),
            "increaseAdBudget",
            json!({"ad_id": 1001, "amount": 1})
        )
        .error(),
        "IDEMPOTENT_PARAM_MISMATCH"
    );
    assert_eq!(
        call_key(
            &f,
            &a.token,
            Some(&"x".repeat(129)),
            "createAd",
            chan_ad("Long", "0")
        )
        .error(),
        "IDEMPOTENCY_KEY_TOO_LONG"
    );

    // Failures are not stored; keys on other methods are ignored; keys expire after 24 h.
    assert_eq!(
        call_key(
            &f,
            &a.token,
            Some("k3"),
            "createAd",
            chan_ad("Poor", "1000")
        )
        .error(),
        "NOT_ENOUGH_BUDGET"
    );
    assert_eq!(
        call_key(&f, &a.token, Some("k3"), "createAd", chan_ad("Rich", "1")).replayed,
        None
    );
    assert_eq!(
        call_key(&f, &a.token, Some("k3"), "getAdsList", json!({})).replayed,
        None
    );
    f.advance(24 * 3600);
    let after = call_key(&f, &a.token, Some("k1"), "createAd", chan_ad("Once", "10"));
    assert_eq!(after.replayed, None);
    assert_ne!(after.result()["ad_id"], body["ad_id"]);
}

#[test]
fn idempotent_request_in_progress_then_replay() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "P", "50", false);
    f.fail_next(
        Fault::Delay(Duration::from_millis(400)),
        Some("createAd"),
        1,
    );
    let (url, token) = (f.url.clone(), a.token.clone());
    let held = std::thread::spawn(move || {
        let body = chan_ad("Slow", "5").to_string();
        send(
            &format!("{url}/createAd"),
            "POST",
            Some(&token),
            Some("slow"),
            "application/json",
            body.as_bytes(),
        )
        .unwrap()
    });
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(
        call_key(&f, &a.token, Some("slow"), "createAd", chan_ad("Slow", "5")).error(),
        "IDEMPOTENT_REQUEST_IN_PROGRESS"
    );
    let first = held.join().unwrap();
    let replay = call_key(&f, &a.token, Some("slow"), "createAd", chan_ad("Slow", "5"));
    assert_eq!(
        (replay.replayed.as_deref(), replay.result()),
        (Some("true"), first.result())
    );
    assert_eq!(f.money_moves(&a.account_id), 1);
}
