//! Owns pause, resume and DELETE: the transition table, a switch while in review kept as
//! intent, and which campaigns a delete removes and which it keeps.

use super::{balance, campaign, status_events};
use crate::helpers::{printed, spawn_app, Camp};
use adcab::ops;
use serde_json::json;

#[test]
fn pause_and_resume_follow_the_transition_table() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let before = campaign(&app, cabinet, ad, &key);
    assert_eq!(before["status"], "Active");
    let paused = app.write_ok("POST", &format!("/campaigns/{ad}/pause"), &key, None, 200);
    assert_eq!(paused["data"]["status"], "On Hold");
    assert_eq!(paused["data"]["active"], false);
    assert!(paused
        .get("meta")
        .is_none_or(|m| m.get("intent_only").is_none()));
    let again = app.write_ok("POST", &format!("/campaigns/{ad}/pause"), &key, None, 200);
    assert_eq!(again["meta"]["already_set"], true);
    let resumed = app.write_ok(
        "POST",
        &format!("/campaigns/{ad}/resume?account_id={cabinet}"),
        &key,
        None,
        200,
    );
    assert_eq!(resumed["data"]["status"], "Active");
    assert_eq!(resumed["data"]["active"], true);
    let events = status_events(&app);
    assert_eq!(
        events,
        vec![
            (ad, "In Review".into(), "Active".into(), "sync".into()),
            (ad, "Active".into(), "On Hold".into(), "api".into()),
            (ad, "On Hold".into(), "Active".into(), "api".into())
        ]
    );
    let history = printed(ops::history(&app.services, cabinet, ad).unwrap());
    let actions: Vec<(&str, &str)> = history["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["action"].as_str().unwrap(), e["source"].as_str().unwrap()))
        .collect();
    assert_eq!(
        actions,
        [
            ("create", "panel"),
            ("pause", "api"),
            ("pause", "api"),
            ("resume", "api")
        ]
    );
}

#[test]
fn switching_an_ad_in_review_stores_the_intent() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.campaign(cabinet, Camp::channel("Waiting", "https://t.me/alpha_chan"));
    let paused = app.write_ok("POST", &format!("/campaigns/{ad}/pause"), &key, None, 200);
    assert_eq!(paused["meta"]["intent_only"], true);
    assert_eq!(paused["data"]["status"], "In Review");
    assert_eq!(paused["data"]["active"], false);
    ops::sim_review(&app.services, cabinet, ad, true, None).unwrap();
    assert_eq!(
        campaign(&app, cabinet, ad, &key)["status"],
        "On Hold",
        "the intent applies on approval"
    );
}

#[test]
fn delete_removes_a_campaign_that_never_ran_and_keeps_one_that_did() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let fresh = app.campaign(
        cabinet,
        Camp::channel("Never ran", "https://t.me/alpha_chan"),
    );
    let ran = app.active_campaign(cabinet);
    app.sql(&format!(
        "UPDATE sim_ads SET views = 100 WHERE account_id = {cabinet} AND ad_id = {ran}"
    ));
    let gone = app.write_ok("DELETE", &format!("/campaigns/{fresh}"), &key, None, 200);
    assert_eq!(
        gone["data"],
        json!({ "ad_id": fresh, "account_id": cabinet, "deleted": true })
    );
    app.get_err(
        &format!("/campaigns/{fresh}"),
        &key,
        404,
        "CAMPAIGN_NOT_FOUND",
    );
    app.write_err(
        "DELETE",
        &format!("/campaigns/{fresh}"),
        &key,
        None,
        404,
        "CAMPAIGN_NOT_FOUND",
    );
    app.write_ok("DELETE", &format!("/campaigns/{ran}"), &key, None, 200);
    assert_eq!(campaign(&app, cabinet, ran, &key)["status"], "Deleted");
    app.write_err(
        "DELETE",
        &format!("/campaigns/{ran}"),
        &key,
        None,
        404,
        "CAMPAIGN_NOT_FOUND",
    );
    app.write_err(
        "POST",
        &format!("/campaigns/{ran}/pause"),
        &key,
        None,
        404,
        "CAMPAIGN_NOT_FOUND",
    );
    assert_eq!(
        balance(&app, &key),
        "1000.00",
        "both budgets returned to the cabinet"
    );
    let listed = app.get_ok("/campaigns", &key)["data"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(listed, 0);
    assert!(status_events(&app)
        .iter()
        .any(|e| e.0 == ran && e.2 == "Deleted"));
}
