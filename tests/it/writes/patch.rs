//! Owns PATCH: which fields resubmit for review, the switch reported in meta, the platform's
//! low-bid refusal, a schedule without budget, and each field's param.

use super::campaign;
use crate::helpers::{spawn_app, Resp};
use adcab::ops;
use serde_json::json;

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
    ops::sim_review(&app.services, cabinet, ad, false, Some("no")).unwrap();
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
fn a_schedule_takes_an_iana_zone_name_as_its_offset_now_and_a_refusal_lists_what_is_accepted() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}");
    let berlin = chrono::Utc::now()
        .with_timezone(&chrono_tz::Europe::Berlin)
        .format("%:z")
        .to_string();
    let sched = json!({ "schedule": { "days": { "mon": [9] }, "timezone": "Europe/Berlin" } });
    let named = app.write_ok("PATCH", &path, &key, Some(&sched), 200);
    assert_eq!(named["data"]["schedule"]["timezone"], berlin.as_str());
    assert_eq!(
        campaign(&app, cabinet, ad, &key)["schedule"]["timezone"],
        berlin.as_str(),
        "the platform was sent the offset"
    );
    let unknown = json!({ "schedule": { "days": { "mon": [9] }, "timezone": "Mars/Olympus" } });
    let err = app.write_err(
        "PATCH",
        &path,
        &key,
        Some(&unknown),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "schedule.timezone");
    let message = err["error"].as_str().unwrap();
    for accepted in ["Europe/Berlin", "+03:00", "viewer"] {
        assert!(message.contains(accepted), "{accepted} in {message}");
    }
}
