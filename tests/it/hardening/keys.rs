//! Owns the idempotency-key regressions: a validation error, a panic and a hang-up each leave
//! no key claimed.

use std::time::Duration;

use super::{campaign, open, post, refused, request};
use crate::helpers::{printed, spawn_app, spawn_app_with, wait_for};
use adcab::ops;
use adcab::platform::sim::Fault;
use serde_json::json;

#[test]
fn a_multibyte_timezone_is_a_validation_error_that_frees_the_key() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let schedule = json!({ "days": { "mon": [9] }, "timezone": "é€" });
    let r = app.send(
        "PATCH",
        &format!("/campaigns/{ad}"),
        &key,
        Some(&json!({ "schedule": schedule })),
        &[],
    );
    refused(&r, "schedule.timezone");
    let bulk = json!({ "action": "set_schedule", "ad_ids": [ad], "schedule": schedule });
    let r = post(&app, &key, "/campaigns/bulk", &bulk, "bulk-tz-key");
    refused(&r, "schedule.timezone");
    let mut create = json!({
        "title": "t", "text": "Read us", "promote_url": "https://t.me/alpha_chan", "cpm": 2,
        "budget": 10, "target_type": "channels", "channels": ["@tech_daily"], "schedule": schedule
    });
    let r = post(&app, &key, "/campaigns", &create, "create-tz-key");
    refused(&r, "schedule.timezone");
    create["schedule"]["timezone"] = json!("UTC+3");
    let r = post(&app, &key, "/campaigns", &create, "create-tz-key");
    assert_eq!(r.status, 202, "the key was not left claimed: {}", r.body);
}

#[test]
fn a_panic_in_a_request_is_a_500_that_leaves_no_key_running() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.held(cabinet, 10_000_000);
    ops::sim_fail(&app.services, cabinet, Fault::Panic, 1).unwrap();
    let add = json!({ "action": "add", "amount": "5" });
    let path = format!("/campaigns/{ad}/budget");
    let first = post(&app, &key, &path, &add, "panic-key-1");
    first.assert_error(500, "INTERNAL_ERROR");
    assert_eq!(first.body["error"], "Internal server error.");
    let replay = wait_for(Duration::from_secs(5), "the claim to end", || {
        let r = post(&app, &key, &path, &add, "panic-key-1");
        (r.body["code"] != "IDEMPOTENCY_IN_PROGRESS").then_some(r)
    });
    // A 5xx is replayed, under the replaying request's id.
    replay.assert_error(500, "INTERNAL_ERROR");
    assert_eq!(
        app.get_ok("/account/info", &key)["success"],
        true,
        "still serving"
    );
    let again = post(&app, &key, &path, &add, "panic-key-2");
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["data"]["budget"], "15.00");
}

#[test]
fn a_client_that_hangs_up_leaves_its_budget_move_finished_and_recorded() {
    let app = spawn_app_with(|c| c.sim.latency_ms = 150);
    let (_, cabinet, key) = app.manager();
    let ad = app.held(cabinet, 10_000_000);
    let body = json!({ "account_id": cabinet, "action": "add", "amount": "5" }).to_string();
    let bytes = request(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        &[
            ("X-API-Key", key.clone()),
            ("Idempotency-Key", "hang-up-key-1".into()),
            ("Content-Type", "application/json".into()),
            ("Content-Length", body.len().to_string()),
        ],
        &body,
    );
    drop(open(&app, &bytes));
    let path = format!("/campaigns/{ad}/budget");
    let same = json!({ "account_id": cabinet, "action": "add", "amount": "5" });
    let replay = wait_for(
        Duration::from_secs(10),
        "the claim of the hung-up request to end",
        || {
            let r = post(&app, &key, &path, &same, "hang-up-key-1");
            (r.body["code"] != "IDEMPOTENCY_IN_PROGRESS").then_some(r)
        },
    );
    assert_eq!(replay.status, 200, "{}", replay.body);
    assert_eq!(replay.body["meta"]["moved"], "5.00");
    assert_eq!(
        campaign(&app, cabinet, ad, &key)["budget"],
        "15.00",
        "moved once"
    );
    let history = printed(ops::history(&app.services, cabinet, ad).unwrap());
    let moves = history["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "budget")
        .count();
    assert_eq!(moves, 1, "recorded once: {history}");
}
