//! Owns bulk changes: unknown ids refused with nothing queued, each action applied per
//! campaign with its refusals listed.

use super::{post, queue, settle};
use crate::helpers::{spawn_app, Camp};
use adcab::ops;
use serde_json::{json, Value};

#[test]
fn bulk_refuses_unknown_ids_with_nothing_queued() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let a = app.active_campaign(cabinet);
    let r = post(
        &app,
        &key,
        "/campaigns/bulk",
        &json!({ "action": "pause", "ad_ids": [a, 99, 98] }),
    );
    r.assert_error(400, "UNKNOWN_AD_IDS");
    assert_eq!(r.body["missing"], json!([99, 98]));
    assert_eq!(app.scalar::<i64>("SELECT COUNT(*) FROM tasks", &[]), 0);
    for (body, param) in [
        (json!({ "action": "explode", "ad_ids": [a] }), "action"),
        (json!({ "action": "pause", "ad_ids": [] }), "ad_ids"),
        (
            json!({ "action": "pause", "ad_ids": (1..=1001).collect::<Vec<i64>>() }),
            "ad_ids",
        ),
        (
            json!({ "action": "pause", "ad_ids": [a], "amount": 5 }),
            "amount",
        ),
        (json!({ "action": "add_budget", "ad_ids": [a] }), "amount"),
        (json!({ "action": "set_cpm", "ad_ids": [a] }), "cpm"),
        (
            json!({ "action": "set_schedule", "ad_ids": [a] }),
            "schedule",
        ),
    ] {
        let r = post(&app, &key, "/campaigns/bulk", &body);
        assert_eq!(
            (r.status, r.body["param"].as_str()),
            (400, Some(param)),
            "{body}"
        );
    }
}

#[test]
fn bulk_actions_change_each_campaign_and_list_refusals() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ads: Vec<i64> = (0..3).map(|_| app.active_campaign(cabinet)).collect();
    let site = app.campaign(cabinet, Camp::site("Audience", "https://shop.example.com"));
    ops::sim_review(&app.services, cabinet, site, true, None).unwrap();
    let bulk = |body: Value| settle(&app, &key, queue(&app, &key, "/campaigns/bulk", &body));
    let paused = bulk(json!({ "action": "pause", "ad_ids": [ads[0], ads[1], ads[0]] }));
    assert_eq!(
        (paused["type"].as_str(), paused["total"].as_i64()),
        (Some("status"), Some(2)),
        "duplicates ignored"
    );
    assert_eq!(paused["ad_ids"], json!([ads[0], ads[1]]));
    assert_eq!(
        app.get_ok(&format!("/campaigns/{}", ads[1]), &key)["data"]["status"],
        "On Hold"
    );
    let funded = bulk(json!({ "action": "add_budget", "amount": "2.50", "ad_ids": ads }));
    assert_eq!(funded["succeeded"], 3);
    assert_eq!(
        app.get_ok(&format!("/campaigns/{}", ads[2]), &key)["data"]["budget"],
        "12.50"
    );
    let cpm = bulk(json!({ "action": "set_cpm", "cpm": "0.80", "ad_ids": [ads[0], site] }));
    assert_eq!(
        (cpm["succeeded"].as_i64(), cpm["failed"].as_i64()),
        (Some(1), Some(1)),
        "0.80 is under the 1.00 channel minimum"
    );
    assert_eq!(cpm["errors"][0]["ad_id"], ads[0]);
    app.write_ok(
        "POST",
        &format!("/campaigns/{}/budget", ads[2]),
        &key,
        Some(&json!({ "action": "withdraw_all" })),
        200,
    );
    let sched = bulk(json!({
        "action": "set_schedule", "ad_ids": [ads[1], ads[2], site],
        "schedule": { "days": { "sat": [10] }, "timezone": "viewer" }
    }));
    assert_eq!(sched["type"], "schedule");
    let refused: Vec<i64> = sched["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["ad_id"].as_i64().unwrap())
        .collect();
    assert_eq!(
        refused,
        vec![ads[1], ads[2]],
        "viewer needs users targeting; the empty campaign has no budget either"
    );
    assert_eq!(sched["ad_ids"], json!([site]));
    let withdrawn = bulk(json!({ "action": "withdraw_budget", "amount": 20, "ad_ids": [ads[0]] }));
    assert!(withdrawn["errors"][0]["error"]
        .as_str()
        .unwrap()
        .contains("INSUFFICIENT_AD_BALANCE"));
    let deleted = bulk(json!({ "action": "delete", "ad_ids": ads }));
    assert_eq!(deleted["succeeded"], 3);
    let left = app.get_ok("/campaigns", &key)["data"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(left, 1);
}
