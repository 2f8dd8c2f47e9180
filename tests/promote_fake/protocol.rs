//! Transport, envelope, auth, flood waits and every injectable fault.

use std::time::{Duration, Instant};

use crate::promote_fake::{FakeOptions, FakePromote, Fault};
use crate::*;
use serde_json::{json, Value};

#[test]
fn envelope_transport_forms_and_http_level_errors() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "Shop", "100", false);
    let me = call(&f, &a.token, "getCurrentAccount", json!({}));
    assert_eq!(me.content_type, "application/json");
    let acct = me.result();
    assert_eq!(
        (acct["account_id"].as_str(), acct["currency"].as_str()),
        (Some(a.account_id.as_str()), Some("EUR"))
    );
    assert_eq!(
        (
            acct["remaining_budget"].to_string(),
            acct["ads_budget"].to_string()
        ),
        ("100".into(), "0".into())
    );

    // API errors come on HTTP 200.
    let mut no_title = chan_ad("x", "0");
    no_title.as_object_mut().unwrap().remove("title");
    assert_eq!(
        fails(&f, &a.token, "createAd", no_title),
        "AD_TITLE_REQUIRED"
    );

    let r = call(&f, &a.token, "noSuchMethod", json!({}));
    assert_eq!((r.status, r.error()), (404, "METHOD_NOT_FOUND"));
    let r = send(
        &format!("{}/getAdsList", f.url),
        "POST",
        Some(&a.token),
        None,
        "application/json",
        b"{not json",
    )
    .unwrap();
    assert_eq!((r.status, r.error()), (400, "BAD_REQUEST"));
    let r = send(
        &format!("{}/getAdsList", f.url),
        "PUT",
        Some(&a.token),
        None,
        "application/json",
        b"{}",
    )
    .unwrap();
    assert_eq!((r.status, r.error()), (405, "METHOD_NOT_ALLOWED"));

    // Form bodies and GET query strings, with arrays as JSON text.
    let id = ok(&f, &a.token, "createAd", chan_ad("Formed", "0"))["ad_id"]
        .as_i64()
        .unwrap();
    let form = format!("ad_ids=%5B{id}%2C999999%5D&return_target=true");
    let r = send(
        &format!("{}/getAdsById", f.url),
        "POST",
        Some(&a.token),
        None,
        "application/x-www-form-urlencoded",
        form.as_bytes(),
    )
    .unwrap();
    let ads = r.result().as_array().unwrap().clone();
    assert_eq!(ads.len(), 1, "unknown ids are dropped");
    assert_eq!(ads[0]["target"]["channels"][0]["username"], "good_channel");
    let r = send(
        &format!("{}/getAdsById?ad_ids=[{id}]", f.url),
        "GET",
        Some(&a.token),
        None,
        "",
        b"",
    )
    .unwrap();
    assert_eq!(r.result()[0]["ad_id"], json!(id));
    assert!(
        r.result()[0].get("target").is_none(),
        "target only with return_target"
    );
}

#[test]
fn the_handle_can_be_shared_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<FakePromote>();
    let f = std::sync::Arc::new(FakePromote::start());
    let a = f.add_account("EUR", "S", "10", false);
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (f, token) = (f.clone(), a.token.clone());
            std::thread::spawn(move || ok(&f, &token, "getTargetTopicsList", json!({})))
        })
        .collect();
    for w in workers {
        assert_eq!(w.join().unwrap().as_array().unwrap().len(), 10);
    }
    assert_eq!(f.call_count("getTargetTopicsList"), 4);
}

#[test]
fn auth_errors_and_tokens() {
    let f = FakePromote::start();
    let a = f.add_account("TON", "T", "1", false);
    let r = send(
        &format!("{}/getCurrentAccount", f.url),
        "POST",
        None,
        None,
        "application/json",
        b"{}",
    )
    .unwrap();
    assert_eq!((r.status, r.error()), (200, "ACCESS_TOKEN_REQUIRED"));
    assert_eq!(
        fails(&f, "nope", "getCurrentAccount", json!({})),
        "ACCESS_TOKEN_INVALID"
    );
    let second = f.new_token(&a.account_id);
    ok(&f, &second, "getCurrentAccount", json!({}));
    f.revoke_token(&a.token);
    assert_eq!(
        fails(&f, &a.token, "getCurrentAccount", json!({})),
        "ACCESS_TOKEN_INVALID"
    );
    assert_eq!(
        ok(&f, &second, "getCurrentAccount", json!({}))["account_id"],
        json!(a.account_id)
    );
    let calls = f.calls();
    assert_eq!(calls.len(), 5);
    assert_eq!(
        (calls[0].token.as_str(), calls[1].token.as_str()),
        ("", "nope")
    );
}

#[test]
fn flood_wait_from_the_per_token_limit() {
    let f = FakePromote::start_with(FakeOptions {
        calls_per_second: Some(2),
        ..FakeOptions::default()
    });
    let a = f.add_account("EUR", "F", "1", false);
    let b = f.add_account("EUR", "G", "1", false);
    ok(&f, &a.token, "getCurrentAccount", json!({}));
    ok(&f, &a.token, "getCurrentAccount", json!({}));
    let r = call(&f, &a.token, "getCurrentAccount", json!({}));
    assert_eq!((r.status, r.error()), (200, "FLOOD_WAIT_1"));
    ok(&f, &b.token, "getCurrentAccount", json!({}));
    std::thread::sleep(Duration::from_millis(600));
    ok(&f, &a.token, "getCurrentAccount", json!({}));
}

#[test]
fn every_fault_kind() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "X", "100", false);
    f.fail_next(
        Fault::Http429 {
            retry_after: Some(7),
        },
        Some("getAdsList"),
        1,
    );
    f.fail_next(Fault::ApiError("INTERNAL_ERROR".into()), None, 1);
    let r = call(&f, &a.token, "getCurrentAccount", json!({}));
    assert_eq!(
        (r.status, r.error()),
        (200, "INTERNAL_ERROR"),
        "method filter skips the first rule"
    );
    let r = call(&f, &a.token, "getAdsList", json!({}));
    assert_eq!(
        (r.status, r.error(), r.retry_after.as_deref()),
        (429, "TOO_MANY_REQUESTS", Some("7"))
    );
    f.fail_next(Fault::Http429 { retry_after: None }, None, 1);
    assert_eq!(
        call(&f, &a.token, "getAdsList", json!({})).retry_after,
        None
    );
    f.fail_next(Fault::FloodWait(3), None, 2);
    assert_eq!(fails(&f, &a.token, "getAdsList", json!({})), "FLOOD_WAIT_3");
    assert_eq!(fails(&f, &a.token, "getAdsList", json!({})), "FLOOD_WAIT_3");
    ok(&f, &a.token, "getAdsList", json!({}));
    f.fail_next(Fault::Gateway, None, 1);
    let r = call(&f, &a.token, "getAdsList", json!({}));
    assert_eq!((r.status, r.json.clone()), (502, Value::Null));
    assert!(r.text.contains("Bad Gateway") && r.content_type.starts_with("text/html"));
    f.fail_next(Fault::Delay(Duration::from_millis(200)), None, 1);
    let t = Instant::now();
    ok(&f, &a.token, "getAdsList", json!({}));
    assert!(t.elapsed() >= Duration::from_millis(200));

    // DropBefore: nothing happened. Drop: it happened, and a retry with the key replays it.
    let url = format!("{}/createAd", f.url);
    let body = chan_ad("Dropped", "10").to_string();
    f.fail_next(Fault::DropBefore, Some("createAd"), 1);
    assert!(send(
        &url,
        "POST",
        Some(&a.token),
        Some("d1"),
        "application/json",
        body.as_bytes()
    )
    .is_err());
    assert_eq!(f.balance(&a.account_id), "100");
    f.fail_next(Fault::Drop, Some("createAd"), 1);
    assert!(send(
        &url,
        "POST",
        Some(&a.token),
        Some("d1"),
        "application/json",
        body.as_bytes()
    )
    .is_err());
    assert_eq!(f.balance(&a.account_id), "90");
    let retry = call_key(
        &f,
        &a.token,
        Some("d1"),
        "createAd",
        chan_ad("Dropped", "10"),
    );
    assert_eq!(
        (retry.replayed.as_deref(), retry.result()["title"].as_str()),
        (Some("true"), Some("Dropped"))
    );
    assert_eq!(
        (f.balance(&a.account_id), f.money_moves(&a.account_id)),
        ("90".into(), 1)
    );
    assert_eq!(f.call_count("createAd"), 3);
    f.reset_calls();
    assert!(f.calls().is_empty());

    // Hold: it happened, and the answer comes only after the hold; a client that gave up
    // earlier gets the replay when it retries with its key.
    f.fail_next(Fault::Hold(Duration::from_millis(600)), Some("createAd"), 1);
    let impatient = ureq::AgentBuilder::new()
        .timeout(Duration::from_millis(150))
        .build();
    let held = impatient
        .post(&url)
        .set("Authorization", &format!("Bearer {}", a.token))
        .set("Idempotency-Key", "h1")
        .set("Content-Type", "application/json")
        .send_string(&chan_ad("Held", "10").to_string());
    assert!(held.is_err(), "no answer within the hold");
    assert_eq!(f.balance(&a.account_id), "80", "the method ran");
    std::thread::sleep(Duration::from_millis(600));
    let retry = call_key(&f, &a.token, Some("h1"), "createAd", chan_ad("Held", "10"));
    assert_eq!(retry.replayed.as_deref(), Some("true"));
    assert_eq!(f.balance(&a.account_id), "80", "not twice");
}
