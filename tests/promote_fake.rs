//! Self-tests of the promote API fake (tests/support/promote_fake): they drive it over HTTP
//! with ureq, as a connector would, and check it keeps the contract in shared/spec/promote-api.md.

#[path = "support/promote_fake/mod.rs"]
mod promote_fake;

use std::time::{Duration, Instant};

use promote_fake::{FakeOptions, FakePromote, Fault, SeedAd};
use serde_json::{json, Value};

struct Reply {
    status: u16,
    json: Value,
    text: String,
    replayed: Option<String>,
    retry_after: Option<String>,
    content_type: String,
}

impl Reply {
    fn result(&self) -> &Value {
        assert_eq!(
            (self.status, &self.json["ok"]),
            (200, &json!(true)),
            "expected success: {}",
            self.text
        );
        &self.json["result"]
    }
    fn error(&self) -> &str {
        assert_eq!(
            self.json["ok"],
            json!(false),
            "expected an error: {}",
            self.text
        );
        self.json["error"].as_str().expect("error code")
    }
}

/// One request on a fresh connection; Err is a transport failure (a dropped connection).
fn send(
    url: &str,
    verb: &str,
    token: Option<&str>,
    key: Option<&str>,
    ct: &str,
    body: &[u8],
) -> Result<Reply, String> {
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(10))
        .build();
    let mut req = agent.request(verb, url).set("Content-Type", ct);
    if let Some(t) = token {
        req = req.set("Authorization", &format!("Bearer {t}"));
    }
    if let Some(k) = key {
        req = req.set("Idempotency-Key", k);
    }
    let resp = match if verb == "GET" {
        req.call()
    } else {
        req.send_bytes(body)
    } {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => return Err(e.to_string()),
    };
    let status = resp.status();
    let replayed = resp.header("Idempotent-Replayed").map(str::to_string);
    let retry_after = resp.header("Retry-After").map(str::to_string);
    let content_type = resp.header("Content-Type").unwrap_or("").to_string();
    let text = resp.into_string().map_err(|e| e.to_string())?;
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    Ok(Reply {
        status,
        json,
        text,
        replayed,
        retry_after,
        content_type,
    })
}

fn call_key(f: &FakePromote, token: &str, key: Option<&str>, method: &str, params: Value) -> Reply {
    let url = format!("{}/{method}", f.url);
    send(
        &url,
        "POST",
        Some(token),
        key,
        "application/json",
        params.to_string().as_bytes(),
    )
    .expect("answered")
}

fn call(f: &FakePromote, token: &str, method: &str, params: Value) -> Reply {
    call_key(f, token, None, method, params)
}

fn ok(f: &FakePromote, token: &str, method: &str, params: Value) -> Value {
    call(f, token, method, params).result().clone()
}

/// The error code of a call that must fail with the envelope on HTTP 200.
fn fails(f: &FakePromote, token: &str, method: &str, params: Value) -> String {
    let r = call(f, token, method, params);
    assert_eq!(r.status, 200, "{}", r.text);
    r.error().to_string()
}

fn chan_ad(title: &str, budget: &str) -> Value {
    json!({
        "title": title,
        "text": "Join the best channel",
        "promote_url": "https://t.me/good_channel",
        "cpm": 2.46,
        "target": {"type": "channels", "channel_ids": ["@good_channel"]},
        "placement": "channel_post",
        "initial_budget": budget.parse::<Value>().unwrap(),
    })
}

/// Creates, funds (with `budget`), and approves an ad; returns its id.
fn running_ad(f: &FakePromote, acct: &promote_fake::FakeAccount, budget: &str) -> i64 {
    let ad = ok(f, &acct.token, "createAd", chan_ad("Running", budget));
    let id = ad["ad_id"].as_i64().unwrap();
    f.approve(&acct.account_id, id);
    id
}

fn total(v: &Value) -> rust_decimal::Decimal {
    let d = |k: &str| v[k].to_string().parse::<rust_decimal::Decimal>().unwrap();
    d("remaining_budget") + d("ads_budget") + d("spent_budget")
}

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
fn lifecycle_delivery_and_stats_series() {
    let f = FakePromote::start();
    f.set_now(1_700_000_000 - 1_700_000_000 % 86400 + 3600); // 01:00 UTC
    let a = f.add_account("EUR", "A", "100", false);
    let ad = ok(&f, &a.token, "createAd", chan_ad("Life", "10"));
    let id = ad["ad_id"].as_i64().unwrap();
    assert_eq!(
        (ad["status"].as_str(), ad["remaining_budget"].to_string()),
        (Some("in_review"), "10".into())
    );
    assert_eq!(ad["cpm"].to_string(), "2.46");
    assert_eq!(f.balance(&a.account_id), "90");
    f.approve(&a.account_id, id);
    let start = f.now();
    f.deliver(&a.account_id, id, 1000);
    f.advance(300);
    f.deliver(&a.account_id, id, 501);
    let got = f.ad(&a.account_id, id).unwrap();
    assert_eq!(
        (got["status"].as_str(), got["views"].as_i64()),
        (Some("active"), Some(1501))
    );
    assert_eq!(
        (got["clicks"].as_i64(), got["actions"].as_i64()),
        (Some(150), Some(30))
    );
    assert_eq!(got["spent_budget"].to_string(), "3.69246"); // 2.46 + 501 * 0.00246
    assert_eq!(got["remaining_budget"].to_string(), "6.30754");

    let from = start - start % 300;
    let rows = ok(
        &f,
        &a.token,
        "getAdStats",
        json!({"ad_id": id, "from_time": from + 17, "to_time": from + 1200, "interval": 300}),
    );
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4, "dense rows, from_time rounded down");
    assert_eq!(
        (rows[0]["from_time"].as_i64(), rows[0]["to_time"].as_i64()),
        (Some(from), Some(from + 300))
    );
    assert_eq!(
        (
            rows[0]["views"].as_i64(),
            rows[1]["views"].as_i64(),
            rows[2]["views"].as_i64()
        ),
        (Some(1000), Some(501), Some(0))
    );
    assert_eq!(
        (
            rows[1]["spent_budget"].to_string(),
            rows[1]["currency"].as_str()
        ),
        ("1.23246".into(), Some("EUR"))
    );
    let day = ok(
        &f,
        &a.token,
        "getAccountStats",
        json!({"from_time": from, "to_time": from + 86400, "interval": 86400}),
    );
    assert_eq!(
        (day.as_array().unwrap().len(), day[0]["views"].as_i64()),
        (1, Some(1501))
    );

    let max =
        json!({"ad_id": id, "from_time": from, "to_time": from + 300 * 1000, "interval": 300});
    assert_eq!(
        ok(&f, &a.token, "getAdStats", max)
            .as_array()
            .unwrap()
            .len(),
        1000
    );
    for bad in [
        json!({"to_time": from + 300 * 1001, "interval": 300}),
        json!({"to_time": from, "interval": 300}),
    ] {
        let mut p = bad;
        p["ad_id"] = json!(id);
        p["from_time"] = json!(from);
        assert_eq!(fails(&f, &a.token, "getAdStats", p), "TIME_RANGE_INVALID");
    }
    let p = json!({"ad_id": id, "from_time": from, "to_time": from + 600, "interval": 60});
    assert_eq!(fails(&f, &a.token, "getAdStats", p), "INTERVAL_INVALID");

    // Spending the whole budget stops the ad; a top-up restarts it.
    f.deliver(&a.account_id, id, 1_000_000);
    let got = f.ad(&a.account_id, id).unwrap();
    assert_eq!(
        (got["status"].as_str(), got["remaining_budget"].to_string()),
        (Some("stopped"), "0".into())
    );
    assert_eq!(got["spent_budget"].to_string(), "10");
    let topped = ok(
        &f,
        &a.token,
        "increaseAdBudget",
        json!({"ad_id": id, "amount": "5"}),
    );
    assert_eq!(topped["status"], "active");
    f.decline(&a.account_id, id, "Too loud");
    let got = f.ad(&a.account_id, id).unwrap();
    assert_eq!(
        (
            got["status"].as_str(),
            got["decline_reason"]["text"].as_str()
        ),
        (Some("declined"), Some("Too loud"))
    );
}

#[test]
fn paging_250_ads_newest_first() {
    let f = FakePromote::start();
    let a = f.add_account("XTR", "Many", "0", false);
    let ids: Vec<i64> = (0..250)
        .map(|i| {
            f.seed_ad(
                &a.account_id,
                SeedAd {
                    budget: "0".into(),
                    ..SeedAd::channel(&format!("Ad {i}"), "@many_chan")
                },
            )
        })
        .collect();
    assert_eq!(ids[0], 1001);
    let (mut seen, mut offset, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let mut p = json!({"limit": 100});
        if let Some(o) = &offset {
            p["offset"] = json!(o);
        }
        let page = ok(&f, &a.token, "getAdsList", p);
        assert_eq!(page["total_count"], json!(250));
        seen.extend(
            page["ads"]
                .as_array()
                .unwrap()
                .iter()
                .map(|ad| ad["ad_id"].as_i64().unwrap()),
        );
        pages += 1;
        match page.get("next_offset").and_then(Value::as_str) {
            Some(n) => {
                assert_eq!(n, format!("a:{}", seen.last().unwrap()));
                offset = Some(n.to_string());
            }
            None => break,
        }
    }
    let mut want = ids.clone();
    want.reverse();
    assert_eq!((pages, seen), (3, want));
    assert_eq!(
        fails(&f, &a.token, "getAdsList", json!({"limit": 101})),
        "LIMIT_INVALID"
    );
    assert_eq!(
        fails(&f, &a.token, "getAdsList", json!({"offset": "zz"})),
        "OFFSET_INVALID"
    );
    let other = f.add_account("XTR", "Other", "0", false);
    assert_eq!(
        ok(&f, &other.token, "getAdsList", json!({}))["total_count"],
        json!(0)
    );
    assert_eq!(
        ok(&f, &other.token, "getAdsById", json!({"ad_ids": [ids[0]]})),
        json!([])
    );
}

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

#[test]
fn ten_minute_rule_and_budget_not_empty() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "Q", "100", false);
    let fresh = ok(&f, &a.token, "createAd", chan_ad("Fresh", "0"))["ad_id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        fails(&f, &a.token, "deleteAd", json!({"ad_id": fresh})),
        "AD_RECENTLY_ACTIVE",
        "counts from created_date"
    );
    let id = running_ad(&f, &a, "10");
    f.deliver(&a.account_id, id, 1000);
    let dec = json!({"ad_id": id, "amount": 1});
    assert_eq!(
        fails(&f, &a.token, "decreaseAdBudget", dec.clone()),
        "AD_RECENTLY_ACTIVE"
    );
    let paused = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "is_paused": true}),
    );
    assert_eq!(
        (paused["status"].as_str(), paused["is_paused"].as_bool()),
        (Some("on_hold"), Some(true))
    );
    f.advance(599);
    assert_eq!(
        fails(&f, &a.token, "decreaseAdBudget", dec.clone()),
        "AD_RECENTLY_ACTIVE"
    );
    f.advance(1);
    assert_eq!(
        ok(&f, &a.token, "deleteAd", json!({"ad_id": fresh})),
        json!(true)
    );
    assert_eq!(
        fails(&f, &a.token, "deleteAd", json!({"ad_id": id})),
        "AD_BUDGET_NOT_EMPTY"
    );
    let left = ok(&f, &a.token, "decreaseAdBudget", dec);
    assert_eq!(left["remaining_budget"].to_string(), "6.54"); // 10 - 2.46 - 1
    let too_much = json!({"ad_id": id, "amount": 7});
    assert_eq!(
        fails(&f, &a.token, "decreaseAdBudget", too_much),
        "NOT_ENOUGH_BUDGET"
    );
    ok(
        &f,
        &a.token,
        "decreaseAdBudget",
        json!({"ad_id": id, "amount": 6.54}),
    );
    assert_eq!(
        ok(&f, &a.token, "deleteAd", json!({"ad_id": id})),
        json!(true)
    );
    assert!(f.ad(&a.account_id, id).is_none());
    assert_eq!(
        fails(&f, &a.token, "editAd", json!({"ad_id": id, "title": "x"})),
        "AD_ID_INVALID"
    );
    let month = chrono::DateTime::from_timestamp(f.now(), 0).unwrap();
    let report = ok(
        &f,
        &a.token,
        "getAccountReport",
        json!({"year": chrono::Datelike::year(&month), "month": chrono::Datelike::month(&month)}),
    );
    let line = report
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["ad_id"] == json!(id))
        .unwrap()
        .clone();
    assert_eq!(
        (line["ad_is_deleted"].as_bool(), line["views"].as_i64()),
        (Some(true), Some(1000))
    );
    assert_eq!(f.balance(&a.account_id), "97.54");

    // With refunds on, a quiet ad with money left is deleted and refunded.
    let g = FakePromote::start_with(FakeOptions {
        delete_with_budget_refunds: true,
        ..FakeOptions::default()
    });
    let b = g.add_account("TON", "R", "20", false);
    let bid = ok(&g, &b.token, "createAd", chan_ad("Refund", "5"))["ad_id"]
        .as_i64()
        .unwrap();
    g.advance(600);
    assert_eq!(
        ok(&g, &b.token, "deleteAd", json!({"ad_id": bid})),
        json!(true)
    );
    assert_eq!(g.balance(&b.account_id), "20");
}

#[test]
fn related_accounts_scope_and_transfers() {
    let f = FakePromote::start();
    let main = f.add_account("EUR", "Agency", "100", true);
    let rel = f.add_related(&main.account_id, "EUR", "Client", "0");
    let plain = f.add_account("EUR", "Plain", "10", false);
    let list = ok(&f, &main.token, "getRelatedAccountsList", json!({}));
    assert_eq!(
        (
            list["total_count"].as_i64(),
            list["accounts"][0]["account_id"].as_str()
        ),
        (Some(1), Some(rel.as_str()))
    );
    for m in [
        "getRelatedAccountsList",
        "getTransactionStatus",
        "createAccount",
    ] {
        assert_eq!(
            fails(&f, &plain.token, m, json!({})),
            "MAIN_ACCOUNT_REQUIRED"
        );
    }
    assert_eq!(
        fails(&f, &plain.token, "getAdsList", json!({"account_id": rel})),
        "ACCOUNT_ID_INVALID"
    );

    let tx = ok(
        &f,
        &main.token,
        "increaseAccountBudget",
        json!({"account_id": rel, "amount": 30.123456}),
    );
    assert_eq!(
        (tx["status"].as_str(), tx["amount"].to_string()),
        (Some("completed"), "30.12346".into())
    );
    let status = ok(
        &f,
        &main.token,
        "getTransactionStatus",
        json!({"transaction_id": tx["transaction_id"]}),
    );
    assert_eq!(
        status["related_account"]["remaining_budget"].to_string(),
        "30.12346"
    );
    let over = json!({"account_id": rel, "amount": 31});
    assert_eq!(
        fails(&f, &main.token, "decreaseAccountBudget", over),
        "NOT_ENOUGH_BUDGET"
    );
    let back = ok(
        &f,
        &main.token,
        "decreaseAccountBudget",
        json!({"account_id": rel, "amount": 0.12346}),
    );
    assert_eq!(back["amount"].to_string(), "-0.12346");
    assert_eq!(
        fails(
            &f,
            &main.token,
            "increaseAccountBudget",
            json!({"account_id": plain.account_id, "amount": 1})
        ),
        "ACCOUNT_ID_INVALID"
    );

    // The main's token acts on the related account through account_id.
    let mut p = chan_ad("For client", "20");
    p["account_id"] = json!(rel);
    let ad = ok(&f, &main.token, "createAd", p)["ad_id"]
        .as_i64()
        .unwrap();
    assert!(f.ad(&rel, ad).is_some() && f.ad(&main.account_id, ad).is_none());
    assert_eq!(
        ok(&f, &main.token, "getAdsList", json!({}))["total_count"],
        json!(0)
    );
    assert_eq!(
        ok(&f, &main.token, "getAdsList", json!({"account_id": rel}))["total_count"],
        json!(1)
    );
    let accts = ok(
        &f,
        &main.token,
        "getAccountsById",
        json!({"account_ids": [rel, plain.account_id, main.account_id]}),
    );
    assert_eq!(accts.as_array().unwrap().len(), 2, "foreign ids omitted");
    assert_eq!(
        (
            accts[0]["remaining_budget"].to_string(),
            accts[0]["ads_budget"].to_string()
        ),
        ("10".into(), "20".into())
    );
    let created = call_key(
        &f,
        &main.token,
        Some("acct-1"),
        "createAccount",
        json!({
            "title": "New", "full_name": "N N", "email": "n@example.com", "phone_number": "+1", "country": "US", "city": "NYC"
        }),
    );
    assert_eq!(created.result()["title"], "New");
    assert_eq!(
        ok(
            &f,
            &main.token,
            "getRelatedAccountsList",
            json!({"offset": 1, "limit": 5})
        )["accounts"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        (f.money_moves(&main.account_id), f.money_moves(&rel)),
        (2, 3)
    );
    let txs = ok(
        &f,
        &main.token,
        "getAccountTransactionsList",
        json!({"account_id": rel}),
    );
    assert_eq!(txs["transactions"][0]["peer"]["type"], "ad");
    assert_eq!(txs["transactions"][2]["peer"]["type"], "main_account");
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

#[test]
fn money_invariant_holds_through_every_flow() {
    let f = FakePromote::start();
    let a = f.add_account("TON", "M", "200", false);
    let acct = |f: &FakePromote| ok(f, &a.token, "getCurrentAccount", json!({}));
    let before = total(&acct(&f));
    assert_eq!(before.to_string(), "200");
    let id = running_ad(&f, &a, "50");
    let other = ok(&f, &a.token, "createAd", chan_ad("Idle", "0"))["ad_id"]
        .as_i64()
        .unwrap();
    let topped = ok(
        &f,
        &a.token,
        "increaseAdBudget",
        json!({"ad_id": other, "amount": 12.345}),
    );
    assert_eq!(
        topped["remaining_budget"].to_string(),
        "12.35",
        "ad budgets round to 2 decimals"
    );
    for _ in 0..5 {
        f.deliver(&a.account_id, id, 3333);
        f.advance(300);
        assert_eq!(total(&acct(&f)), before);
    }
    ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "is_paused": true}),
    );
    f.advance(600);
    // Sending exactly the remaining budget (5 decimals after delivery) withdraws all of it.
    let left = f.ad(&a.account_id, id).unwrap()["remaining_budget"].clone();
    assert_eq!(left.to_string(), "9.0041"); // 50 - 5 * 3333 * 0.00246
    let out = ok(
        &f,
        &a.token,
        "decreaseAdBudget",
        json!({"ad_id": id, "amount": left}),
    );
    assert_eq!(out["remaining_budget"].to_string(), "0");
    // A remainder below 0.01 cannot be withdrawn; it does not block deleting and is refunded.
    ok(&f, &a.token, "submitAdForReview", json!({"ad_id": other}));
    f.approve(&a.account_id, other);
    f.deliver(&a.account_id, other, 2);
    ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": other, "is_paused": true}),
    );
    f.advance(600);
    let part = json!({"ad_id": other, "amount": 12.34});
    assert_eq!(
        ok(&f, &a.token, "decreaseAdBudget", part)["remaining_budget"].to_string(),
        "0.00508"
    );
    ok(&f, &a.token, "deleteAd", json!({"ad_id": other}));
    ok(&f, &a.token, "deleteAd", json!({"ad_id": id}));
    let now = acct(&f);
    assert_eq!(
        (total(&now), f.total_money(&a.account_id)),
        (before, "200".into())
    );
    assert_eq!(now["ads_budget"].to_string(), "0");
    assert_eq!(now["spent_budget"].to_string(), "41.00082");
}

#[test]
fn targets_peers_placement_and_review_rules() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "T", "100", false);
    let b = f.add_account("EUR", "U", "100", false);
    let mut p = chan_ad("Numeric", "0");
    let id = json!({"channel_id": "@news_daily"});
    let chan = ok(&f, &b.token, "getTargetChannel", id.clone());
    let num = chan["channel_id"].as_i64().unwrap();
    assert!(num > 0 && num < 1 << 52);
    assert_eq!(
        ok(&f, &a.token, "getTargetChannel", id)["channel_id"],
        json!(num),
        "stable id"
    );
    p["target"] = json!({"type": "channels", "channel_ids": [num]});
    let c = f.add_account("EUR", "V", "100", false);
    assert_eq!(
        fails(&f, &c.token, "createAd", p.clone()),
        "CHANNEL_ID_UNKNOWN"
    );
    p["return_target"] = json!(true);
    let ad = ok(&f, &a.token, "createAd", p);
    assert_eq!(
        ad["target"]["channels"][0],
        json!({"channel_id": num, "title": "News Daily", "username": "news_daily", "photo_url": format!("https://promote-fake.invalid/peer/{num}.jpg")})
    );
    assert_eq!(
        fails(
            &f,
            &a.token,
            "getTargetBot",
            json!({"bot_id": "@missing_bot"})
        ),
        "BOT_ID_UNKNOWN"
    );
    assert_eq!(
        fails(
            &f,
            &a.token,
            "getTargetChannel",
            json!({"channel_id": "@ab"})
        ),
        "CHANNEL_ID_UNKNOWN"
    );

    let cases = [
        (
            json!({"type": "channels", "language_codes": ["en", "ru", "es", "de", "fr", "it", "pt", "uk", "ar"]}),
            "TARGET_INVALID",
        ),
        (
            json!({"type": "channels", "topic_ids": [1], "language_codes": ["en", "ru"]}),
            "TARGET_INVALID",
        ),
        (
            json!({"type": "channels", "language_codes": ["xx"]}),
            "LANGUAGE_CODE_INVALID",
        ),
        (
            json!({"type": "users", "country_codes": ["US", "GB"], "location_ids": [101]}),
            "TARGET_INVALID",
        ),
        (
            json!({"type": "users", "country_codes": ["GB"], "location_ids": [101]}),
            "LOCATION_ID_INVALID",
        ),
        (
            json!({"type": "users", "country_codes": [], "device": "fridge"}),
            "DEVICE_INVALID",
        ),
        (
            json!({"type": "users", "country_codes": [], "audience_ids": [1]}),
            "RETARGETING_DISABLED",
        ),
        (json!({"type": "bots", "bot_ids": []}), "TARGET_INVALID"),
        (json!({"type": "planets"}), "TARGET_INVALID"),
    ];
    for (target, code) in cases {
        let mut q = chan_ad("Bad target", "0");
        q["target"] = target;
        q.as_object_mut().unwrap().remove("placement");
        assert_eq!(fails(&f, &a.token, "createAd", q), code);
    }
    let mut bots = chan_ad("Bot", "0");
    bots["target"] = json!({"type": "bots", "bot_ids": ["@helper_bot"]});
    assert_eq!(
        fails(&f, &a.token, "createAd", bots.clone()),
        "PLACEMENT_INVALID"
    );
    bots.as_object_mut().unwrap().remove("placement");
    assert_eq!(
        ok(&f, &a.token, "createAd", bots)["placement"],
        "bot_banner"
    );
    let mut low = chan_ad("Cheap", "0");
    low["cpm"] = json!(0.09);
    assert_eq!(fails(&f, &a.token, "createAd", low), "CPM_TOO_LOW");

    // Review rule: title/pause/schedule/cap edits keep an approved ad running; cpm re-reviews.
    let id = running_ad(&f, &a, "10");
    let sched = json!({"week_hours_mask": [0, 0, 0, 0, 0, 0, 0], "timezone": 7200});
    let e = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "title": "Renamed", "schedule": sched, "daily_budget_limit": 3, "impression_frequency": 2}),
    );
    assert_eq!(
        (
            e["status"].as_str(),
            e["daily_budget_limit"].to_string(),
            e["impression_frequency"].as_i64()
        ),
        (Some("active"), "3".into(), Some(2))
    );
    assert_eq!(e["daily_spent_budget"].to_string(), "0");
    let e = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "schedule": false, "daily_budget_limit": 0}),
    );
    assert!(
        e.get("schedule").is_none()
            && e.get("daily_budget_limit").is_none()
            && e.get("daily_spent_budget").is_none()
    );
    let bad_tz = json!({"ad_id": id, "schedule": {"week_hours_mask": [1, 1, 1, 1, 1, 1, 1], "timezone": 1800}});
    assert_eq!(fails(&f, &a.token, "editAd", bad_tz), "SCHEDULE_INVALID");
    let e = ok(&f, &a.token, "editAd", json!({"ad_id": id, "cpm": 3}));
    assert_eq!(e["status"], "in_review");
    f.approve(&a.account_id, id);
    assert_eq!(
        ok(
            &f,
            &a.token,
            "editAd",
            json!({"ad_id": id, "is_paused": false})
        )["status"],
        "active"
    );

    // Unfunded ads wait in ready_for_review: a top-up does not submit, submit does.
    let r = ok(&f, &a.token, "createAd", chan_ad("Ready", "0"))["ad_id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        fails(&f, &a.token, "submitAdForReview", json!({"ad_id": r})),
        "AD_BUDGET_EMPTY"
    );
    assert_eq!(
        ok(
            &f,
            &a.token,
            "increaseAdBudget",
            json!({"ad_id": r, "amount": 1})
        )["status"],
        "ready_for_review"
    );
    assert_eq!(
        ok(&f, &a.token, "submitAdForReview", json!({"ad_id": r}))["status"],
        "in_review"
    );
    assert_eq!(
        fails(&f, &a.token, "submitAdForReview", json!({"ad_id": r})),
        "AD_STATUS_INVALID"
    );
    assert_eq!(
        fails(&f, &a.token, "createAudience", json!({"title": "x"})),
        "RETARGETING_DISABLED"
    );
    assert_eq!(fails(&f, &a.token, "getPixel", json!({})), "ACCESS_DENIED");
}

fn multipart(
    method: &str,
    f: &FakePromote,
    token: &str,
    bytes: &[u8],
    account: Option<&str>,
) -> Reply {
    let mut body = Vec::new();
    if let Some(acct) = account {
        body.extend_from_slice(
            format!(
                "--XyZ\r\nContent-Disposition: form-data; name=\"account_id\"\r\n\r\n{acct}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n");
    body.extend_from_slice(bytes);
    body.extend_from_slice(b"\r\n--XyZ--\r\n");
    send(
        &format!("{}/{method}", f.url),
        "POST",
        Some(token),
        None,
        "multipart/form-data; boundary=XyZ",
        &body,
    )
    .unwrap()
}

#[test]
fn uploads_and_http_controls() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "Media", "100", false);
    let b = f.add_account("EUR", "Other", "100", false);
    let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3];
    let photo = multipart("uploadAdPhoto", &f, &a.token, &jpeg, Some(&a.account_id))
        .result()
        .clone();
    let photo_id = photo["photo_id"].as_str().unwrap().to_string();
    assert!(photo["photo_url"].as_str().unwrap().starts_with("https://"));
    assert_eq!(
        multipart("uploadAdPhoto", &f, &a.token, b"GIF89a....", None).error(),
        "FILE_TYPE_INVALID"
    );
    assert_eq!(
        multipart("uploadAdVideo", &f, &a.token, &jpeg, None).error(),
        "FILE_TYPE_INVALID"
    );
    assert_eq!(
        multipart("uploadAdPhoto", &f, &a.token, b"", None).error(),
        "FILE_EMPTY"
    );
    let big = vec![0xFFu8; (1 << 20) + 1];
    assert_eq!(
        multipart("uploadWebsitePhoto", &f, &a.token, &big, None).error(),
        "FILE_SIZE_INVALID"
    );
    let video = multipart(
        "uploadAdVideo",
        &f,
        &a.token,
        b"\0\0\0\x18ftypmp42rest",
        None,
    )
    .result()
    .clone();
    assert!(video["video_id"].is_string());
    let mut p = chan_ad("Pic", "0");
    p["photo_id"] = json!(photo_id);
    assert_eq!(
        ok(&f, &a.token, "createAd", p.clone())["photo"]["photo_id"],
        json!(photo_id)
    );
    assert_eq!(fails(&f, &b.token, "createAd", p), "PHOTO_ID_INVALID");

    // The same controls over HTTP under /_fake/.
    let ctl = |name: &str, args: Value| {
        send(
            &format!("{}/_fake/{name}", f.url),
            "POST",
            None,
            None,
            "application/json",
            args.to_string().as_bytes(),
        )
        .unwrap()
    };
    let id = ok(&f, &a.token, "createAd", chan_ad("Ctl", "10"))["ad_id"]
        .as_i64()
        .unwrap();
    ctl("approve", json!({"account_id": a.account_id, "ad_id": id})).result();
    let served = ctl(
        "deliver",
        json!({"account_id": a.account_id, "ad_id": id, "views": 100}),
    );
    assert_eq!(served.result()["served"], json!(100));
    let now = f.now();
    assert_eq!(
        ctl("advance", json!({"seconds": 60})).result()["now"],
        json!(now + 60)
    );
    let acct = ctl(
        "add_account",
        json!({"currency": "XTR", "title": "Stars", "balance": "500"}),
    )
    .result()
    .clone();
    assert_eq!(f.balance(acct["account_id"].as_str().unwrap()), "500");
    assert_eq!(
        ctl("approve", json!({"account_id": a.account_id, "ad_id": 1})).status,
        400
    );
    assert!(
        f.calls().iter().all(|c| !c.method.starts_with('_')),
        "controls are not recorded"
    );
    assert_eq!(f.ad(&a.account_id, id).unwrap()["views"], json!(100));
}

#[test]
fn dates_schedule_decline_and_stars_precision() {
    let f = FakePromote::start();
    let t0 = 1_800_000_000 - 1_800_000_000 % 86400; // a Friday, 00:00 UTC
    f.set_now(t0);
    let a = f.add_account("XTR", "Stars", "1000", false);
    let mut p = chan_ad("Dated", "10.6");
    p["cpm"] = json!(1.5);
    p["activate_date"] = json!(t0 + 3600);
    p["deactivate_date"] = json!(t0 + 7200);
    p["is_paused"] = json!(true);
    let ad = ok(&f, &a.token, "createAd", p.clone());
    let id = ad["ad_id"].as_i64().unwrap();
    assert_eq!(
        (ad["cpm"].to_string(), ad["remaining_budget"].to_string()),
        ("2".into(), "11".into())
    );
    assert_eq!(ad["is_paused"], json!(false), "a date wins over is_paused");
    f.approve(&a.account_id, id);
    assert_eq!(f.ad(&a.account_id, id).unwrap()["status"], "on_hold");
    f.deliver(&a.account_id, id, 1000);
    assert_eq!(f.ad(&a.account_id, id).unwrap()["views"], json!(0));
    f.advance(3600);
    f.deliver(&a.account_id, id, 1000);
    let got = f.ad(&a.account_id, id).unwrap();
    assert_eq!(
        (got["status"].as_str(), got["spent_budget"].to_string()),
        (Some("active"), "2".into())
    );
    f.advance(4000); // past deactivate_date, which ended activity at t0 + 7200
    assert_eq!(f.ad(&a.account_id, id).unwrap()["status"], "stopped");
    let dec = json!({"ad_id": id, "amount": 1});
    assert_eq!(
        fails(&f, &a.token, "decreaseAdBudget", dec.clone()),
        "AD_RECENTLY_ACTIVE"
    );
    f.advance(200);
    assert_eq!(
        ok(&f, &a.token, "decreaseAdBudget", dec)["remaining_budget"].to_string(),
        "8"
    );
    p["activate_date"] = json!(f.now() - 1);
    assert_eq!(fails(&f, &a.token, "createAd", p), "ACTIVATE_DATE_INVALID");

    // A schedule that allows only Friday 00:00-01:00 UTC+2 (Thursday 22:00 UTC) serves nothing now.
    let mut s = chan_ad("Scheduled", "5");
    s["schedule"] = json!({"week_hours_mask": [0, 0, 0, 0, 1, 0, 0], "timezone": 7200});
    let sid = ok(&f, &a.token, "createAd", s)["ad_id"].as_i64().unwrap();
    f.approve(&a.account_id, sid);
    f.deliver(&a.account_id, sid, 500);
    assert_eq!(f.ad(&a.account_id, sid).unwrap()["views"], json!(0));
    f.set_now(t0 + 7 * 86400 - 7200 + 60); // the next Friday 00:01 at UTC+2
    f.deliver(&a.account_id, sid, 500);
    assert_eq!(f.ad(&a.account_id, sid).unwrap()["views"], json!(500));

    // A declined, funded ad goes back to review when its copy changes.
    f.decline(&a.account_id, sid, "Misleading");
    let e = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": sid, "text": "Honest text"}),
    );
    assert_eq!(
        (e["status"].as_str(), e.get("decline_reason")),
        (Some("in_review"), None)
    );
}
