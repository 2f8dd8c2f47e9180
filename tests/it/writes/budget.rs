//! Owns budget moves: exact money between campaign and cabinet, a withdraw after spending,
//! a top-up the platform ignores.

use super::{balance, campaign};
use crate::helpers::spawn_app;
use adcab::ops;
use adcab::platform::sim::Fault;
use serde_json::json;

#[test]
fn budget_moves_exact_money_between_campaign_and_cabinet() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}/budget");
    let added = app.write_ok(
        "POST",
        &path,
        &key,
        Some(&json!({ "action": "add", "amount": "0.10" })),
        200,
    );
    assert_eq!(added["data"]["budget"], "10.10");
    assert_eq!(added["meta"], json!({ "moved": "0.10", "partial": false }));
    assert_eq!(
        balance(&app, &key),
        "989.90",
        "the balance is the platform's after the move"
    );
    let more = app.write_ok(
        "POST",
        &path,
        &key,
        Some(&json!({ "action": "add", "amount": 0.2 })),
        200,
    );
    assert_eq!(more["data"]["budget"], "10.30", "0.1 + 0.2 is exactly 0.3");
    assert_eq!(balance(&app, &key), "989.70");
    let err = app.write_err(
        "POST",
        &path,
        &key,
        Some(&json!({ "action": "withdraw", "amount": "10.31" })),
        400,
        "INSUFFICIENT_AD_BALANCE",
    );
    assert!(err["error"].is_string());
    let err = app.write_err(
        "POST",
        &path,
        &key,
        Some(&json!({ "action": "withdraw", "amount": "7" })),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(
        err["param"], "amount",
        "3.30 left would be under min_budget 5"
    );
    let out = app.write_ok(
        "POST",
        &path,
        &key,
        Some(&json!({ "action": "withdraw", "amount": "5.30" })),
        200,
    );
    assert_eq!(
        (
            out["data"]["budget"].as_str(),
            out["meta"]["moved"].as_str()
        ),
        (Some("5.00"), Some("5.30"))
    );
    let all = app.write_ok(
        "POST",
        &path,
        &key,
        Some(&json!({ "action": "withdraw_all" })),
        200,
    );
    assert_eq!(all["data"]["budget"], "0.00");
    assert_eq!(all["data"]["status"], "Stopped");
    assert_eq!(balance(&app, &key), "1000.00", "every cent came back");
    let err = app.write_err(
        "POST",
        &path,
        &key,
        Some(&json!({ "action": "add", "amount": 1 })),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(
        err["param"], "amount",
        "1.00 on an empty campaign is under min_budget 5"
    );
    let back = app.write_ok(
        "POST",
        &path,
        &key,
        Some(&json!({ "action": "add", "amount": 5 })),
        200,
    );
    assert_eq!(
        back["data"]["status"], "Active",
        "Stopped with active true runs again once funded"
    );
    let err = app.write_err(
        "POST",
        &path,
        &key,
        Some(&json!({ "action": "add", "amount": 5000 })),
        400,
        "PLATFORM_REJECTED",
    );
    assert!(err["error"].as_str().unwrap().contains("balance"));
    for (body, param) in [
        (json!({ "action": "give" }), "action"),
        (json!({ "action": "add" }), "amount"),
        (json!({ "action": "withdraw_all", "amount": 1 }), "amount"),
        (json!({ "action": "add", "amount": -1 }), "amount"),
    ] {
        let err = app.write_err("POST", &path, &key, Some(&body), 400, "VALIDATION_ERROR");
        assert_eq!(err["param"], param, "{body}");
    }
}

#[test]
fn a_withdraw_moves_less_when_the_ad_spent_meanwhile() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    // The platform spent 6.50 since the copy was taken: it holds 3.50, the copy says 10.00.
    app.sql(&format!("UPDATE sim_ads SET budget_micros = 3500000, spent_micros = 6500000 WHERE account_id = {cabinet} AND ad_id = {ad}"));
    let out = app.write_ok(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        &key,
        Some(&json!({ "action": "withdraw", "amount": "5" })),
        200,
    );
    assert_eq!(out["meta"], json!({ "moved": "3.50", "partial": true }));
    assert_eq!(out["data"]["budget"], "0.00");
}

#[test]
fn a_top_up_the_platform_ignores_is_budget_unchanged() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    ops::sim_fail(&app.services, cabinet, Fault::Ignore, 1).unwrap();
    app.write_err(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        &key,
        Some(&json!({ "action": "add", "amount": 5 })),
        400,
        "BUDGET_UNCHANGED",
    );
    assert_eq!(campaign(&app, cabinet, ad, &key)["budget"], "10.00");
    assert_eq!(balance(&app, &key), "990.00");
}
