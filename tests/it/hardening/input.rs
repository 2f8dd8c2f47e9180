//! Owns the input regressions: huge lists refused before any work, stored amounts summed
//! safely, money read in one strict grammar, amounts past the largest refused by field.

use std::time::{Duration, Instant};

use super::{campaign, post, refused};
use crate::helpers::{spawn_app, Camp};
use adcab::ops::{self, CabinetChange, NewKey};
use serde_json::{json, Value};

#[test]
fn huge_lists_are_refused_before_any_work() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ids: Vec<i64> = (1..=300_000).collect();
    let body = json!({ "account_id": cabinet, "action": "pause", "ad_ids": ids });
    assert!(body.to_string().len() < 2 * 1024 * 1024);
    let started = Instant::now();
    let r = post(&app, &key, "/campaigns/bulk", &body, "huge-ids-1");
    refused(&r, "ad_ids");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    let countries: Vec<&str> = std::iter::repeat_n("DE", 200_000).collect();
    let create = json!({
        "account_id": cabinet, "title": "t", "text": "t", "promote_url": "https://example.com",
        "cpm": 2, "budget": 0, "target_type": "users", "countries": countries
    });
    let started = Instant::now();
    let r = post(&app, &key, "/campaigns", &create, "huge-countries-1");
    refused(&r, "countries");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    let pairs: String = (0..300).map(|i| format!("p{i}=1&")).collect();
    let r = app.get(&format!("/campaigns?{pairs}"), &key);
    refused(&r, "query");
}

#[test]
fn no_stored_amounts_can_break_a_campaign_read() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let max = i64::MAX;
    app.sql(&format!(
        "INSERT INTO conversions (id, holder_id, txid, event_type, ref, amount_micros, currency, account_id, received_at, updated_at)
         VALUES (901, {user}, 'a', 'purchase', 'r', {max}, 'USD', {cabinet}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
                (902, {user}, 'b', 'purchase', 'r', {max}, 'USD', {cabinet}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
                (903, {user}, 'c', 'lead', 'r', {max}, 'USD', {cabinet}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
                (904, {user}, 'd', 'lead', 'r', -5, 'EUR', {cabinet}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
         INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
         VALUES (901, {cabinet}, {ad}), (902, {cabinet}, {ad}), (903, {cabinet}, {ad}), (904, {cabinet}, {ad});
         INSERT INTO conversion_totals (account_id, ad_id, event_type, currency, count, amount_high, amount_low)
         VALUES ({cabinet}, {ad}, 'purchase', 'USD', 2, 2 * ({max} / 1000000000), 2 * ({max} % 1000000000)),
                ({cabinet}, {ad}, 'lead', 'USD', 1, {max} / 1000000000, {max} % 1000000000),
                ({cabinet}, {ad}, 'lead', 'EUR', 1, 0, -5);"
    ));
    let one = campaign(&app, cabinet, ad, &key);
    assert_eq!(
        one["revenue"]["USD"], "27670116110564.327421",
        "3 x i64::MAX micro-units, exactly"
    );
    assert_eq!(one["revenue"]["EUR"], "-0.000005");
    assert_eq!(
        one["conversions"],
        json!({ "lead": 2, "conversion": 0, "purchase": 2 })
    );
    let list = app.get_ok("/campaigns", &key);
    assert_eq!(list["data"][0]["revenue"]["USD"], "27670116110564.327421");
}

#[test]
fn amounts_are_read_in_one_strict_grammar_and_bounded() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager_with_postbacks();
    let ad = app.approved(
        cabinet,
        Camp::site("Shop", "https://shop.example.com/?subid=s1"),
    );
    let postback = |amount: Value| {
        let body = json!({ "subid": "s1", "event": "sale", "txid": uuid::Uuid::new_v4().to_string(), "amount": amount });
        app.send("POST", "/postback", &key, Some(&body), &[])
    };
    for bad in [
        json!("1_0"),
        json!("1e5"),
        json!("+5"),
        json!(" 5"),
        json!("1."),
        json!(".5"),
        json!("1000000000.01"),
        serde_json::from_str::<Value>("9223372036854.775807").unwrap(),
        serde_json::from_str::<Value>("1e2").unwrap(),
    ] {
        let r = postback(bad.clone());
        refused(&r, "amount");
    }
    let exact = serde_json::from_str::<Value>("123456.654321").unwrap();
    assert_eq!(postback(exact).status, 200);
    assert_eq!(postback(json!("1000000000")).status, 200);
    assert_eq!(postback(json!("1000000000")).status, 200);
    let read = campaign(&app, cabinet, ad, &key);
    assert_eq!(read["revenue"]["USD"], "2000123456.654321");

    let budget = |amount: Value| {
        let body = json!({ "action": "add", "amount": amount });
        post(
            &app,
            &key,
            &format!("/campaigns/{ad}/budget"),
            &body,
            &uuid::Uuid::new_v4().to_string(),
        )
    };
    for bad in [
        json!("1e1"),
        json!("5 "),
        serde_json::from_str::<Value>("5e0").unwrap(),
    ] {
        let r = budget(bad.clone());
        refused(&r, "amount");
    }
}

#[test]
fn money_past_the_largest_amount_is_refused_by_field_not_wrapped() {
    let app = spawn_app();
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000000000");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let ad = app.funded(cabinet, 999_999_999_000_000);
    let add = json!({ "action": "add", "amount": "2" });
    let r = post(
        &app,
        &key,
        &format!("/campaigns/{ad}/budget"),
        &add,
        "near-max-1",
    );
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["param"], "amount");
    assert_eq!(campaign(&app, cabinet, ad, &key)["budget"], "999999999.00");
    let over = ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            balance: Some("1000000000.01".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(over.param(), Some("balance"));
    let far = ops::sim_advance(&app.services, i64::MAX).unwrap_err();
    assert_eq!(far.param(), Some("seconds"));
    assert!(app.get_ok("/account/info", &key)["data"][0]["balance"].is_string());
}
