//! The writes answered at once: PATCH, pause, resume, budget and DELETE, with the transition
//! table, the platform's refusals, money moved exactly, history and status-change records.

use crate::helpers::{in_one_rate_window, printed, spawn_app, spawn_app_with, Camp, Resp, TestApp};
use adcab::panel::Subscription;
use adcab::panel::TeamAccess;
use adcab::panel::{self, CabinetChange, NewKey};
use adcab::platform::sim::Fault;
use adcab::store::StoreError;
use serde_json::{json, Value};

fn campaign(app: &TestApp, account: i64, ad: i64, key: &str) -> Value {
    app.get_ok(&format!("/campaigns/{ad}?account_id={account}"), key)["data"].clone()
}

fn balance(app: &TestApp, key: &str) -> String {
    app.get_ok("/account/info", key)["data"][0]["balance"]
        .as_str()
        .unwrap()
        .to_string()
}

fn status_events(app: &TestApp) -> Vec<(i64, String, String, String)> {
    app.services
        .db
        .read_blocking(|c| {
            let mut s = c.prepare(
                "SELECT ad_id, old_status, new_status, source FROM status_events ORDER BY id",
            )?;
            let rows = s
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, StoreError>(rows)
        })
        .unwrap()
}

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
    let history = printed(panel::history(&app.services, cabinet, ad).unwrap());
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
    panel::sim_review(&app.services, cabinet, ad, true, None).unwrap();
    assert_eq!(
        campaign(&app, cabinet, ad, &key)["status"],
        "On Hold",
        "the intent applies on approval"
    );
}

#[test]
fn review_fields_resubmit_but_cpm_and_schedule_do_not() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}");
    let cpm = app.write_ok("PATCH", &path, &key, Some(&json!({ "cpm": 3.5 })), 200);
    assert_eq!(
        (cpm["data"]["status"].as_str(), cpm["data"]["cpm"].as_str()),
        (Some("Active"), Some("3.50"))
    );
    let sched = json!({ "schedule": { "days": { "tue": [9, 8] }, "timezone": "UTC+5:30" } });
    let scheduled = app.write_ok("PATCH", &path, &key, Some(&sched), 200);
    assert_eq!(scheduled["data"]["status"], "Active");
    assert_eq!(scheduled["data"]["schedule"]["timezone"], "+05:30");
    assert_eq!(scheduled["data"]["schedule"]["days"]["tue"], json!([8, 9]));
    assert_eq!(scheduled["data"]["schedule"]["days"]["mon"], json!([]));
    let text = app.write_ok(
        "PATCH",
        &path,
        &key,
        Some(&json!({ "text": "New words" })),
        200,
    );
    assert_eq!(text["data"]["status"], "In Review");
    assert_eq!(text["data"]["text"], "New words");
    assert_eq!(
        text["data"]["schedule"]["timezone"], "+05:30",
        "edits keep the schedule"
    );
    panel::sim_review(&app.services, cabinet, ad, false, Some("no")).unwrap();
    assert_eq!(campaign(&app, cabinet, ad, &key)["status"], "Declined");
    let resubmitted = app.write_ok(
        "PATCH",
        &path,
        &key,
        Some(&json!({ "promote_url": "https://t.me/beta_chan" })),
        200,
    );
    assert_eq!(resubmitted["data"]["status"], "In Review");
    let removed = app.write_ok(
        "PATCH",
        &path,
        &key,
        Some(&json!({ "schedule": null })),
        200,
    );
    assert!(removed["data"]["schedule"].is_null());
}

#[test]
fn patch_reports_the_switch_in_meta() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}");
    let on = app.write_ok("PATCH", &path, &key, Some(&json!({ "active": true })), 200);
    assert_eq!(on["meta"]["status_already_set"], true);
    app.write_ok(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        &key,
        Some(&json!({ "action": "withdraw_all" })),
        200,
    );
    assert_eq!(campaign(&app, cabinet, ad, &key)["status"], "Stopped");
    let off = app.write_ok("PATCH", &path, &key, Some(&json!({ "active": false })), 200);
    assert_eq!(off["meta"]["status_intent_only"], true);
    assert!(
        off["meta"]["status_warning"].is_string(),
        "no budget: {}",
        off["meta"]
    );
    assert_eq!(off["data"]["active"], false);
}

#[test]
fn a_low_bid_is_platform_rejected_with_the_minimum() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let err = app.write_err(
        "PATCH",
        &format!("/campaigns/{ad}"),
        &key,
        Some(&json!({ "cpm": "0.50" })),
        400,
        "PLATFORM_REJECTED",
    );
    assert_eq!(err["param"], "cpm");
    assert_eq!(err["min_cpm"], "1.00");
    assert_eq!(err["currency"], "EUR");
    assert_eq!(
        campaign(&app, cabinet, ad, &key)["cpm"],
        "2.00",
        "nothing changed"
    );
}

#[test]
fn a_schedule_on_a_campaign_without_budget_is_refused_unless_on_hold() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}");
    app.write_ok(
        "POST",
        &format!("{path}/budget"),
        &key,
        Some(&json!({ "action": "withdraw_all" })),
        200,
    );
    let sched = json!({ "schedule": { "days": { "mon": [1] }, "timezone": "+00:00" } });
    let err = app.write_err("PATCH", &path, &key, Some(&sched), 400, "PLATFORM_REJECTED");
    assert_eq!(err["param"], "schedule");
    assert!(
        campaign(&app, cabinet, ad, &key)["schedule"].is_null(),
        "nothing changed"
    );
    let other = app.active_campaign(cabinet);
    app.write_ok(
        "POST",
        &format!("/campaigns/{other}/pause"),
        &key,
        None,
        200,
    );
    let held = app.write_ok(
        "PATCH",
        &format!("/campaigns/{other}"),
        &key,
        Some(&sched),
        200,
    );
    assert_eq!(
        held["data"]["status"], "On Hold",
        "setting a schedule changes neither status nor active"
    );
    assert_eq!(held["data"]["active"], false);
}

#[test]
fn patch_validates_every_field_with_its_param() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}");
    for (body, param) in [
        (json!({ "colour": "red" }), "colour"),
        (json!({ "cpm": 0 }), "cpm"),
        (json!({ "cpm": "1.234" }), "cpm"),
        (json!({ "views_per_user": 5 }), "views_per_user"),
        (json!({ "active": "yes" }), "active"),
        (json!({ "title": 7 }), "title"),
        (json!({ "promote_url": "not a link" }), "promote_url"),
        (json!({ "button": "buy" }), "button"),
        (json!({ "media": "med_unknown" }), "media"),
        (
            json!({ "schedule": { "days": { "mon": [25] }, "timezone": "+00:00" } }),
            "schedule.days.mon",
        ),
        (
            json!({ "schedule": { "days": { "mon": [1] }, "timezone": "viewer" } }),
            "schedule.timezone",
        ),
        (json!({ "account_id": "x" }), "account_id"),
        (json!({}), "body"),
    ] {
        let err = app.write_err("PATCH", &path, &key, Some(&body), 400, "VALIDATION_ERROR");
        assert_eq!(err["param"], param, "{body}");
    }
    let r = app.send("PATCH", &path, &key, None, &[]);
    assert_eq!((r.status, r.body["param"].as_str()), (400, Some("body")));
    let raw = ureq::request("PATCH", &format!("{}{path}", app.base))
        .set("X-API-Key", &key)
        .send_string("{\"text\": ");
    let malformed = Resp::from_ureq(raw, "PATCH with malformed JSON");
    malformed.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(malformed.body["param"], "body");
}

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
    panel::sim_fail(&app.services, cabinet, Fault::Ignore, 1).unwrap();
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

#[test]
fn writes_check_the_key_the_access_and_the_cabinet() {
    let app = spawn_app();
    let (user, cabinet, read_only) = app.owner_with_cabinet("pro");
    let ad = app.active_campaign(cabinet);
    let pause = format!("/campaigns/{ad}/pause");
    app.write_err("POST", &pause, &read_only, None, 403, "READ_ONLY_KEY");
    let partner = app.key_with(NewKey {
        user,
        manage: true,
        partner: true,
        ..NewKey::default()
    });
    app.write_err("POST", &pause, &partner, None, 403, "WRITE_NOT_ALLOWED");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    panel::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            auth_expired: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    app.write_err("POST", &pause, &key, None, 409, "CABINET_AUTH_EXPIRED");
    panel::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            auth_expired: Some(false),
            locked: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    app.write_err("POST", &pause, &key, None, 409, "CABINET_LOCKED");
    panel::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            locked: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    panel::user_set(&app.services, user, None, Some(Subscription::Expired)).unwrap();
    let err = app.write_err("POST", &pause, &key, None, 403, "FEATURE_NOT_AVAILABLE");
    assert_eq!(err["feature"], "manage_campaigns");
    panel::user_set(&app.services, user, None, Some(Subscription::Active)).unwrap();
    let second = app.cabinet(user, "euro", "10");
    app.write_err("POST", &pause, &key, None, 400, "ACCOUNT_ID_REQUIRED");
    app.write_err(
        "POST",
        &format!("{pause}?account_id=42"),
        &key,
        None,
        404,
        "ACCOUNT_NOT_FOUND",
    );
    app.write_err(
        "POST",
        &format!("/campaigns/{ad}/pause?account_id={second}"),
        &key,
        None,
        404,
        "CAMPAIGN_NOT_FOUND",
    );
    panel::cabinet_set(
        &app.services,
        second,
        &CabinetChange {
            active: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    app.write_err(
        "POST",
        &format!("/campaigns/1/pause?account_id={second}"),
        &key,
        None,
        403,
        "ACCOUNT_INACTIVE",
    );
    app.write_ok("POST", &pause, &key, None, 200);
}

#[test]
fn viewers_and_lapsed_owners_cannot_write_through_a_team_key() {
    let app = spawn_app();
    let agency = app.user("agency");
    let cabinet = app.cabinet(agency, "euro", "100");
    let ad = app.active_campaign(cabinet);
    let member = app.user("pro");
    panel::member_add(&app.services, agency, member, cabinet, TeamAccess::Viewer).unwrap();
    let key = app.key_with(NewKey {
        user: member,
        manage: true,
        ..NewKey::default()
    });
    let pause = format!("/campaigns/{ad}/pause");
    app.write_err("POST", &pause, &key, None, 403, "VIEW_ONLY_ACCESS");
    panel::member_add(&app.services, agency, member, cabinet, TeamAccess::Manager).unwrap();
    panel::user_set(&app.services, agency, None, Some(Subscription::Expired)).unwrap();
    app.write_err("POST", &pause, &key, None, 403, "SUBSCRIPTION_REQUIRED");
    panel::user_set(&app.services, agency, None, Some(Subscription::Active)).unwrap();
    app.write_ok("POST", &pause, &key, None, 200);
}

#[test]
fn writes_have_their_own_budget_apart_from_reads() {
    let app = spawn_app_with(|c| {
        c.limits.writes_per_minute = 2;
        c.limits.reads_per_minute = 100;
    });
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}/pause");
    let answers = in_one_rate_window(|| {
        (0..3)
            .map(|_| app.send("POST", &path, &key, None, &[]))
            .collect()
    });
    assert_eq!(answers[0].header("x-ratelimit-limit"), Some("2"));
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200, 429]);
    let read = app.get(&format!("/campaigns/{ad}"), &key);
    assert_eq!(
        (read.status, read.header("x-ratelimit-limit")),
        (200, Some("100"))
    );
}
