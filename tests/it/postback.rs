//! Inbound conversions: attribution for each link kind, shared refs, 404 and 409, dedupe
//! and update by `txid`, amounts and currencies, the tracker URL and its rotation, batches
//! with partial failure, the conversion budget, concurrent duplicate batches, and the
//! conversions list.

use crate::helpers::{printed, spawn_app, spawn_app_with, Camp, Resp, TestApp};
use adcab::ops::{self, NewKey};
use serde_json::{json, Value};

/// A person with one cabinet and a key that may send postbacks: (user, cabinet, key).
fn sender(app: &TestApp) -> (i64, i64, String) {
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let key = app.key_with(NewKey {
        user,
        postbacks: true,
        ..NewKey::default()
    });
    (user, cabinet, key)
}

fn post(app: &TestApp, key: &str, body: Value) -> Resp {
    app.send("POST", "/postback", key, Some(&body), &[])
}

fn post_ok(app: &TestApp, key: &str, body: Value) -> Value {
    let r = post(app, key, body);
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["data"].clone()
}

fn bot(app: &TestApp, account: i64, start: &'static str) -> i64 {
    app.campaign(account, Camp::channel("Bot", start))
}

#[test]
fn each_link_kind_attributes_and_campaign_reads_show_the_conversions() {
    let app = spawn_app();
    let (_, cabinet, key) = sender(&app);
    let bot_ad = bot(&app, cabinet, "https://t.me/shop_bot?start=promo42");
    let site = app.campaign(
        cabinet,
        Camp::site("Shop", "https://shop.example.com/?subid=s-77"),
    );
    let channel = app.campaign(cabinet, Camp::channel("News", "https://t.me/alpha_chan"));
    let invite = app.get_ok(&format!("/campaigns/{channel}"), &key)["data"]["invite_link"]
        .as_str()
        .expect("a channel campaign has an invite link")
        .to_string();

    let by_start = post_ok(
        &app,
        &key,
        json!({ "ref": "promo42", "event": "signup", "txid": "a1" }),
    );
    assert_eq!(
        (
            by_start["ad_id"].as_i64(),
            by_start["event_type"].as_str(),
            by_start["deduped"].as_bool()
        ),
        (Some(bot_ad), Some("lead"), Some(false))
    );
    assert!(by_start["id"].is_string());
    assert_eq!(by_start["account_id"], cabinet);
    let by_tracker = post_ok(
        &app,
        &key,
        json!({ "clickid": "s-77", "goal": "sale", "order_id": 9, "payout": "19.99" }),
    );
    assert_eq!(by_tracker["ad_id"], site);
    let by_invite = post_ok(
        &app,
        &key,
        json!({ "link": invite, "type": "join", "tid": "j1" }),
    );
    assert_eq!(by_invite["ad_id"], channel);

    let read = app.get_ok(&format!("/campaigns/{site}"), &key)["data"].clone();
    assert_eq!(
        read["conversions"],
        json!({ "lead": 0, "conversion": 0, "purchase": 1 })
    );
    assert_eq!(
        read["revenue"],
        json!({ "USD": "19.99" }),
        "no currency means USD"
    );
    assert_eq!(read["actions"], 0, "platform actions stay apart");
    let listed = app.get_ok("/campaigns", &key)["data"].clone();
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["ad_id"] == bot_ad)
        .unwrap()
        .clone();
    assert_eq!(row["conversions"]["lead"], 1, "the list shows them too");
}

#[test]
fn the_same_txid_updates_the_event_and_a_new_one_records_another() {
    let app = spawn_app();
    let (_, cabinet, key) = sender(&app);
    let ad = bot(&app, cabinet, "https://t.me/shop_bot?start=p1");
    let first = post_ok(
        &app,
        &key,
        json!({ "ref": "p1", "event": "purchase", "txid": "t1", "amount": "10" }),
    );
    let again = post_ok(
        &app,
        &key,
        json!({ "ref": "p1", "event": "purchase", "txid": "t1", "amount": "15.50", "status": "Approved (manual)" }),
    );
    assert_eq!(again["id"], first["id"], "the same event");
    assert_eq!(again["deduped"], true);
    post_ok(
        &app,
        &key,
        json!({ "ref": "p1", "event": "rebill", "txid": "t2", "amount": -5, "cur": "eur" }),
    );
    let read = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    assert_eq!(
        read["conversions"]["purchase"], 2,
        "t1 counted once, t2 once"
    );
    assert_eq!(
        read["revenue"],
        json!({ "EUR": "-5.00", "USD": "15.50" }),
        "per currency, never mixed"
    );
    let list = app.get_ok("/conversions", &key)["data"].clone();
    let t1 = list
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["txid"] == "t1")
        .unwrap()
        .clone();
    assert_eq!(t1["status"], "Approved (manual)", "stored verbatim");
    assert_eq!(
        (t1["amount"].as_str(), t1["currency"].as_str()),
        (Some("15.50"), Some("USD"))
    );
}

#[test]
fn a_resent_event_takes_its_count_and_revenue_to_its_new_campaign() {
    let app = spawn_app();
    let (_, cabinet, key) = sender(&app);
    let first = bot(&app, cabinet, "https://t.me/shop_bot?start=p1");
    let second = bot(&app, cabinet, "https://t.me/shop_bot?start=p2");
    post_ok(
        &app,
        &key,
        json!({ "ref": "p1", "event": "purchase", "txid": "t1", "amount": "10" }),
    );
    post_ok(
        &app,
        &key,
        json!({ "ref": "p1", "event": "lead", "txid": "t0" }),
    );
    let again = post_ok(
        &app,
        &key,
        json!({ "ref": "p2", "event": "conversion", "txid": "t1", "amount": "3", "cur": "eur" }),
    );
    assert_eq!(again["deduped"], true);
    let read = |ad: i64| app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    let (old, new) = (read(first), read(second));
    assert_eq!(
        (&old["conversions"], &old["revenue"]),
        (
            &json!({ "lead": 1, "conversion": 0, "purchase": 0 }),
            &json!({})
        ),
        "the purchase and its dollars left the first campaign"
    );
    assert_eq!(
        (&new["conversions"], &new["revenue"]),
        (
            &json!({ "lead": 0, "conversion": 1, "purchase": 0 }),
            &json!({ "EUR": "3.00" })
        )
    );
    let listed = app.get_ok("/campaigns", &key)["data"].clone();
    let row = |ad: i64| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["ad_id"] == ad)
            .unwrap()
            .clone()
    };
    assert_eq!(
        row(first)["revenue"],
        json!({}),
        "the list reads the same totals"
    );
    assert_eq!(row(second)["revenue"], json!({ "EUR": "3.00" }));
}

#[test]
fn a_shared_ref_attributes_to_every_campaign_and_an_unknown_one_is_404() {
    let app = spawn_app();
    let (_, cabinet, key) = sender(&app);
    let a = app.campaign(
        cabinet,
        Camp::site("A", "https://a.example.com/?cid=shared"),
    );
    let b = app.campaign(
        cabinet,
        Camp::site("B", "https://b.example.com/x?utm=1&cid=shared"),
    );
    let both = post_ok(
        &app,
        &key,
        json!({ "ref": "shared", "event": "lead", "txid": "s1" }),
    );
    assert_eq!(both["ad_ids"], json!([a, b]));
    let r = post(
        &app,
        &key,
        json!({ "ref": "nobody", "event": "lead", "txid": "s2" }),
    );
    r.assert_error(404, "REF_NOT_FOUND");
    let total: usize = app.get_ok("/conversions", &key)["data"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(total, 1, "no conversion was invented");
}

#[test]
fn a_ref_in_two_reachable_cabinets_needs_account_id() {
    let app = spawn_app();
    let user = app.user("agency");
    let first = app.cabinet(user, "euro", "1000");
    let second = app.cabinet(user, "ton", "1000");
    let key = app.key_with(NewKey {
        user,
        postbacks: true,
        ..NewKey::default()
    });
    bot(&app, first, "https://t.me/shop_bot?start=dup");
    let in_second = bot(&app, second, "https://t.me/shop_bot?start=dup");
    let r = post(
        &app,
        &key,
        json!({ "ref": "dup", "event": "lead", "txid": "d1" }),
    );
    r.assert_error(409, "AMBIGUOUS_REF");
    let chosen = post_ok(
        &app,
        &key,
        json!({ "ref": "dup", "event": "lead", "txid": "d1", "account_id": second }),
    );
    assert_eq!(
        (chosen["account_id"].as_i64(), chosen["ad_id"].as_i64()),
        (Some(second), Some(in_second))
    );
}

#[test]
fn keys_need_receive_postbacks() {
    let app = spawn_app();
    let (user, cabinet, _) = sender(&app);
    bot(&app, cabinet, "https://t.me/shop_bot?start=k1");
    let plain = app.key(user);
    let r = post(
        &app,
        &plain,
        json!({ "ref": "k1", "event": "lead", "txid": "1" }),
    );
    r.assert_error(403, "INGEST_DISABLED");
}

#[test]
fn the_tracker_url_takes_query_aliases_reads_nothing_and_rotation_ends_it() {
    let app = spawn_app();
    let (user, cabinet, key) = sender(&app);
    let ad = bot(&app, cabinet, "https://t.me/shop_bot?start=trk");
    let token = printed(ops::tracker_rotate(&app.services, user).unwrap())["token"]
        .as_str()
        .unwrap()
        .to_string();
    let fired = app.call(
        "GET",
        &format!("/ingest/{token}?subid=trk&goal=FTD&rdtk_event_id=r%201&sum=2.5&cur=usd&sub9=x"),
        None,
    );
    assert_eq!(fired.status, 200, "{}", fired.body);
    assert_eq!(
        (
            fired.body["data"]["ad_id"].as_i64(),
            fired.body["data"]["event_type"].as_str()
        ),
        (Some(ad), Some("conversion"))
    );
    let list = app.get_ok("/conversions", &key)["data"][0].clone();
    assert_eq!(
        (list["txid"].as_str(), list["amount"].as_str()),
        (Some("r 1"), Some("2.50"))
    );
    let as_key = app.call("GET", "/campaigns", Some(&token));
    assert_eq!(as_key.status, 401, "the token reads nothing");
    ops::tracker_rotate(&app.services, user).unwrap();
    let old = app.call(
        "GET",
        &format!("/ingest/{token}?ref=trk&event=lead&txid=2"),
        None,
    );
    old.assert_error(401, "TOKEN_INVALID");
}

#[test]
fn a_query_string_postback_without_a_body_is_one_event() {
    let app = spawn_app();
    let (_, cabinet, key) = sender(&app);
    let ad = bot(&app, cabinet, "https://t.me/shop_bot?start=q1");
    let r = app.call_with_key(
        "POST",
        "/postback?cnv_id=q1&event_type=reg&transaction_id=77",
        &key,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["data"]["ad_id"], ad);
}

#[test]
fn one_bad_event_in_a_batch_fails_alone() {
    let app = spawn_app();
    let (_, cabinet, key) = sender(&app);
    bot(&app, cabinet, "https://t.me/shop_bot?start=b1");
    let r = post(
        &app,
        &key,
        json!({ "events": [
            { "ref": "b1", "event": "lead", "txid": "1" },
            { "ref": "b1", "event": "lead" },
            { "ref": "unknown", "event": "lead", "txid": "3" },
            { "ref": "b1", "event": "deposit", "txid": "4", "value": "-1.25" },
        ] }),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let data = &r.body["data"];
    assert_eq!(
        (data["accepted"].as_i64(), data["failed"].as_i64()),
        (Some(2), Some(2))
    );
    let results = data["results"].as_array().unwrap();
    assert_eq!(results[0]["ok"], true);
    assert_eq!(
        (
            results[1]["ok"].as_bool(),
            results[1]["code"].as_str(),
            results[1]["param"].as_str()
        ),
        (Some(false), Some("VALIDATION_ERROR"), Some("txid"))
    );
    assert_eq!(results[2]["code"], "REF_NOT_FOUND");
    assert!(results[2]["error"].is_string());
    assert_eq!(
        (
            results[3]["index"].as_i64(),
            results[3]["event_type"].as_str()
        ),
        (Some(3), Some("conversion"))
    );
    let too_many: Vec<Value> = (0..1001)
        .map(|i| json!({ "ref": "b1", "event": "lead", "txid": i }))
        .collect();
    let r = post(&app, &key, json!({ "events": too_many }));
    assert_eq!((r.status, r.body["param"].as_str()), (400, Some("events")));
}

#[test]
fn the_budget_is_charged_per_event_with_a_burst_reserve() {
    let app = spawn_app_with(|c| {
        c.limits.conversions_burst = 5;
        c.limits.conversions_per_second = 1;
    });
    let (_, cabinet, key) = sender(&app);
    bot(&app, cabinet, "https://t.me/shop_bot?start=rl");
    let events: Vec<Value> = (0..8)
        .map(|i| json!({ "ref": "rl", "event": "lead", "txid": i }))
        .collect();
    let r = post(&app, &key, json!({ "events": events }));
    assert_eq!(r.status, 202);
    let results = r.body["data"]["results"].as_array().unwrap();
    let limited: Vec<bool> = results
        .iter()
        .map(|e| e["code"] == "RATE_LIMITED")
        .collect();
    assert_eq!(
        limited,
        [false, false, false, false, false, true, true, true],
        "the first five go ahead"
    );
    assert_eq!(r.header("x-ratelimit-limit"), Some("5"));
    assert_eq!(r.header("x-ratelimit-remaining"), Some("0"));
    assert!(r.header("retry-after").is_some());
    let refused = post(
        &app,
        &key,
        json!({ "ref": "rl", "event": "lead", "txid": "x" }),
    );
    refused.assert_error(429, "RATE_LIMITED");
    assert!(refused.header("retry-after").is_some());
    let reads = app.get("/campaigns", &key);
    assert_eq!(reads.status, 200, "reads have their own budget");
    let resent = post(&app, &key, json!({ "events": events }));
    assert_eq!(resent.status, 429, "nothing left");
}

#[test]
fn the_same_batch_sent_twice_at_once_is_counted_once() {
    let app = spawn_app();
    let (_, cabinet, key) = sender(&app);
    let ad = bot(&app, cabinet, "https://t.me/shop_bot?start=cc");
    let events: Vec<Value> = (0..300)
        .map(|i| json!({ "ref": "cc", "event": "purchase", "txid": format!("c{i}"), "amount": "1.10" }))
        .collect();
    let body = json!({ "events": events });
    let answers: Vec<Resp> = std::thread::scope(|s| {
        let sends: Vec<_> = (0..2)
            .map(|_| s.spawn(|| post(&app, &key, body.clone())))
            .collect();
        sends.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut fresh = 0;
    for answer in &answers {
        assert_eq!(answer.status, 202);
        assert_eq!(answer.body["data"]["accepted"], 300);
        fresh += answer.body["data"]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["deduped"] == false)
            .count();
    }
    assert_eq!(fresh, 300, "each txid recorded once, updated once");
    let read = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    assert_eq!(read["conversions"]["purchase"], 300);
    assert_eq!(read["revenue"]["USD"], "330.00");
}

#[test]
fn conversions_are_listed_in_cursor_pages_with_filters() {
    let app = spawn_app();
    let (_, cabinet, key) = sender(&app);
    let a = bot(&app, cabinet, "https://t.me/shop_bot?start=la");
    bot(&app, cabinet, "https://t.me/shop_bot?start=lb");
    for i in 0..5 {
        post_ok(
            &app,
            &key,
            json!({ "ref": "la", "event": "lead", "txid": format!("a{i}") }),
        );
    }
    post_ok(
        &app,
        &key,
        json!({ "ref": "lb", "event": "sale", "txid": "b0" }),
    );
    let mut seen = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = app.get_ok(&format!("/conversions?limit=2&cursor={cursor}"), &key);
        seen.extend(
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["txid"].clone()),
        );
        match page["meta"]["next_cursor"].as_str() {
            Some(next) => cursor = next.to_string(),
            None => break,
        }
    }
    assert_eq!(seen.len(), 6, "every conversion once, oldest first");
    assert_eq!(seen[0], "a0");
    let of_a = app.get_ok(&format!("/conversions?ad_id={a}"), &key)["data"].clone();
    assert_eq!(of_a.as_array().unwrap().len(), 5);
    let sales = app.get_ok("/conversions?event=purchase", &key)["data"].clone();
    assert_eq!(sales.as_array().unwrap().len(), 1);
    let later = app.get_ok("/conversions?since=2999-01-01", &key)["data"].clone();
    assert!(later.as_array().unwrap().is_empty());
    let r = app.get("/conversions?since=yesterday", &key);
    assert_eq!((r.status, r.body["param"].as_str()), (400, Some("since")));
}

#[test]
fn refs_follow_the_configured_tracker_parameters_after_a_restart() {
    let app = spawn_app();
    let (_, cabinet, key) = sender(&app);
    let ad = app.campaign(
        cabinet,
        Camp::site("Aff", "https://shop.example.com/?aff=p9"),
    );
    let before = post(
        &app,
        &key,
        json!({ "ref": "p9", "event": "lead", "txid": "1" }),
    );
    assert_eq!(
        before.status, 404,
        "aff is not a tracker parameter by default"
    );
    let app = app.restart_with(|c| c.conversions.tracker_params = vec!["aff".into()]);
    let after = post_ok(
        &app,
        &key,
        json!({ "ref": "p9", "event": "lead", "txid": "1" }),
    );
    assert_eq!(after["ad_id"], ad);
}

#[test]
fn conversions_emit_no_webhooks() {
    let app = spawn_app();
    let rx = crate::helpers::Receiver::start(200);
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let key = app.key_with(NewKey {
        user,
        postbacks: true,
        webhook_url: Some(rx.url.clone()),
        ..NewKey::default()
    });
    bot(&app, cabinet, "https://t.me/shop_bot?start=nw");
    post_ok(
        &app,
        &key,
        json!({ "ref": "nw", "event": "purchase", "txid": "1", "amount": 3 }),
    );
    app.settle();
    assert!(rx.received().is_empty(), "{} webhooks", rx.received().len());
}

#[test]
fn an_edited_link_moves_the_campaigns_refs() {
    let app = spawn_app();
    let (user, cabinet, key) = sender(&app);
    let manage = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let ad = app.campaign(
        cabinet,
        Camp::site("Moved", "https://old.example.com/?subid=old1"),
    );
    let patch = json!({ "promote_url": "https://new.example.com/?subid=new1" });
    app.write_ok(
        "PATCH",
        &format!("/campaigns/{ad}"),
        &manage,
        Some(&patch),
        200,
    );
    let read = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    assert_eq!(read["promote_url"], "https://new.example.com/?subid=new1");
    let old = post(
        &app,
        &key,
        json!({ "ref": "old1", "event": "lead", "txid": "1" }),
    );
    assert_eq!(old.status, 404, "the old link's ref no longer names it");
    assert_eq!(
        post_ok(
            &app,
            &key,
            json!({ "ref": "new1", "event": "lead", "txid": "2" })
        )["ad_id"],
        ad
    );
}

#[test]
fn a_campaign_deleted_before_it_ran_names_no_conversion() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager_with_postbacks();
    let gone = app.campaign(
        cabinet,
        Camp {
            budget_micros: 0,
            ..Camp::site("Gone", "https://shop.example.com/?subid=zz1")
        },
    );
    let kept = app.approved(
        cabinet,
        Camp::site("Ran", "https://shop.example.com/?subid=ran1"),
    );
    app.advance(2 * 3600);
    for ad in [gone, kept] {
        app.write_ok("DELETE", &format!("/campaigns/{ad}"), &key, None, 200);
    }
    app.get_err(
        &format!("/campaigns/{gone}"),
        &key,
        404,
        "CAMPAIGN_NOT_FOUND",
    );
    let r = post(
        &app,
        &key,
        json!({ "ref": "zz1", "event": "lead", "txid": "g1" }),
    );
    r.assert_error(404, "REF_NOT_FOUND");
    let late = post_ok(
        &app,
        &key,
        json!({ "ref": "ran1", "event": "lead", "txid": "g2" }),
    );
    assert_eq!(
        late["ad_ids"],
        json!([kept]),
        "a campaign that ran and was deleted still takes its late conversions"
    );
    let listed = app.get_ok("/conversions", &key)["data"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
}
