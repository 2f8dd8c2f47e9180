//! Rule templates over the simulator: the library as listed, every template with its defaults
//! a valid rule in a cabinet of each type, each template acting when it should on stored hours
//! (written into the history of a campaign kept quiet until the last minute of the evaluated
//! hour, so each reading is known), and a refusal of a template's rule naming `template` or
//! `params.<name>`. Time moves through the service clock.

use chrono::{DateTime, Duration, Timelike, Utc};
use serde_json::{json, Value};

use crate::helpers::{Camp, TestApp};

const HOUR: i64 = 3600;

/// The end of the hour the next `advance(HOUR)` evaluates rules at.
fn next_end(app: &TestApp) -> DateTime<Utc> {
    adcab::clock::hour_start(app.now()) + Duration::hours(1)
}

/// Writes `ad`'s hours `back` hours before `end`: (back, views, clicks, actions, spent µ).
fn put_hours(app: &TestApp, cabinet: i64, ad: i64, end: DateTime<Utc>, hours: &[[i64; 5]]) {
    let rows: Vec<(String, [i64; 5])> = hours
        .iter()
        .map(|h| (adcab::clock::iso(end - Duration::hours(h[0])), *h))
        .collect();
    app.services
        .db
        .write_blocking(move |tx| {
            for (hour, [_, views, clicks, actions, spent]) in &rows {
                tx.execute(
                    "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks,
                        actions, spent_micros) VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, ?7)",
                    rusqlite::params![cabinet, ad, hour, views, clicks, actions, spent],
                )?;
            }
            Ok::<_, adcab::store::StoreError>(())
        })
        .unwrap();
}

fn from_template(app: &TestApp, key: &str, cabinet: i64, template: &str, params: Value) -> Value {
    let body = json!({"template": template, "account_id": cabinet, "params": params});
    app.write_ok("POST", "/rules", key, Some(&body), 200)["data"].clone()
}

fn log(app: &TestApp, key: &str, rule: &Value) -> Vec<Value> {
    let path = format!("/rules/{}/log?limit=500", rule["id"]);
    app.get_ok(&path, key)["data"].as_array().unwrap().clone()
}

fn campaign(app: &TestApp, key: &str, ad: i64) -> Value {
    app.get_ok(&format!("/campaigns/{ad}"), key)["data"].clone()
}

/// A manager's euro cabinet with an active campaign whose history holds `hours` (2 or more
/// hours back) and which delivers only in the last minute of the hour the next `advance`
/// evaluates (too few views for a click): (cabinet, ad, key). Call [`evaluate`] next.
fn quiet(app: &TestApp, hours: &[[i64; 5]]) -> (i64, i64, String) {
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let ad = app.approved(cabinet, Camp::channel("Quiet", "https://t.me/alpha_chan"));
    app.write_ok("POST", &format!("/campaigns/{ad}/pause"), &key, None, 200);
    put_hours(app, cabinet, ad, next_end(app), hours);
    (cabinet, ad, key)
}

/// Resumes `ad` in the last minute of the hour, then lets the hour close and its rules run.
fn evaluate(app: &TestApp, key: &str, ad: i64) {
    let to_last_minute = (next_end(app) - app.now()).num_seconds() - 60;
    app.advance(to_last_minute);
    app.write_ok("POST", &format!("/campaigns/{ad}/resume"), key, None, 200);
    app.advance(2 * 60);
}

fn acted(app: &TestApp, key: &str, rule: &Value) -> Value {
    let entries = log(app, key, rule);
    assert_eq!(entries.len(), 1, "{}: {entries:?}", rule["name"]);
    assert_eq!(entries[0]["outcome"], "acted", "{entries:?}");
    entries[0].clone()
}

#[test]
fn the_library_lists_each_template_with_its_parameters() {
    let app = crate::helpers::spawn_app();
    let (_, _, key) = app.manager();
    let list = app.get_ok("/rule-templates", &key)["data"].clone();
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    for id in [
        "stop_loss",
        "scale_winners",
        "pause_low_ctr",
        "refill_budget",
        "bid_down_high_cpa",
        "night_pause",
        "morning_resume",
    ] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    let stop = &list[0];
    assert_eq!(stop["params"][0]["name"], "spend");
    assert_eq!(stop["params"][0]["kind"], "money");
    assert_eq!(stop["params"][0]["default"]["stars"], "250");
    assert_eq!(stop["params"][0]["required"], false);
    let winners = list
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "scale_winners");
    assert_eq!(winners.unwrap()["params"][0]["required"], true);
}

#[test]
fn every_template_with_its_defaults_is_a_valid_rule_in_each_cabinet_type() {
    let app = crate::helpers::spawn_app();
    let (user, euro, key) = app.manager();
    let ton = app.cabinet(user, "ton", "1000");
    let stars = app.cabinet(user, "stars", "100000");
    let list = app.get_ok("/rule-templates", &key)["data"].clone();
    for cabinet in [euro, ton, stars] {
        for t in list.as_array().unwrap() {
            let mut params = json!({});
            for p in t["params"].as_array().unwrap() {
                if p["required"] == true {
                    params[p["name"].as_str().unwrap()] = json!("3");
                }
            }
            let rule = from_template(&app, &key, cabinet, t["id"].as_str().unwrap(), params);
            assert_eq!(rule["name"], t["name"]);
            assert_eq!(rule["account_id"], cabinet);
            assert_eq!(rule["enabled"], true);
        }
    }
}

#[test]
fn a_template_refusal_names_the_template_or_the_parameter() {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager();
    let refused = |body: Value| {
        let e = app.write_err("POST", "/rules", &key, Some(&body), 400, "VALIDATION_ERROR");
        e["param"].as_str().unwrap().to_string()
    };
    let t = |template: &str, params: Value| json!({"template": template, "account_id": cabinet, "params": params});
    assert_eq!(refused(t("growth_hack", json!({}))), "template");
    assert_eq!(refused(t("scale_winners", json!({}))), "params.max_cpa");
    assert_eq!(
        refused(t("stop_loss", json!({"spend": "ten"}))),
        "params.spend"
    );
    assert_eq!(
        refused(t("stop_loss", json!({"spend": "-1"}))),
        "params.spend"
    );
    assert_eq!(
        refused(t("stop_loss", json!({"window_hours": 500}))),
        "params.window_hours"
    );
    assert_eq!(
        refused(t("stop_loss", json!({"colour": "red"}))),
        "params.colour"
    );
    assert_eq!(
        refused(t(
            "refill_budget",
            json!({"amount": "90", "max_per_day": "60"})
        )),
        "params.max_per_day"
    );
    assert_eq!(
        refused(t(
            "scale_winners",
            json!({"max_cpa": "2", "max_cpm": "1.234"})
        )),
        "params.max_cpm"
    );
    assert_eq!(
        refused(t("night_pause", json!({"from_hour": 24}))),
        "params.from_hour"
    );
    let mut extra = t("stop_loss", json!({}));
    extra["action"] = json!({"type": "resume"});
    assert_eq!(refused(extra), "action");
    let mut named = t("stop_loss", json!({}));
    named["name"] = json!("  ");
    assert_eq!(refused(named), "name");

    let mut own = t("stop_loss", json!({"spend": 10, "window_hours": "12"}));
    own["name"] = json!("Mine");
    own["dry_run"] = json!(true);
    let rule = app.write_ok("POST", "/rules", &key, Some(&own), 200)["data"].clone();
    assert_eq!(rule["name"], "Mine");
    assert_eq!(rule["dry_run"], true);
    assert_eq!(rule["conditions"]["all"][0]["value"], "10");
    assert_eq!(rule["conditions"]["all"][0]["window_hours"], 12);
}

#[test]
fn stop_loss_pauses_a_campaign_that_spent_without_actions() {
    let app = crate::helpers::spawn_app();
    let (cabinet, ad, key) = quiet(
        &app,
        &[[2, 500, 5, 0, 3_000_000], [3, 500, 5, 0, 3_000_000]],
    );
    let rule = from_template(&app, &key, cabinet, "stop_loss", json!({}));
    let spared = from_template(&app, &key, cabinet, "stop_loss", json!({"spend": "7"}));
    evaluate(&app, &key, ad);
    acted(&app, &key, &rule);
    assert!(log(&app, &key, &spared).is_empty(), "6 EUR is under 7");
    assert_eq!(campaign(&app, &key, ad)["status"], "On Hold");
}

#[test]
fn pause_low_ctr_pauses_a_campaign_under_the_ctr_with_enough_views() {
    let app = crate::helpers::spawn_app();
    let (cabinet, ad, key) = quiet(&app, &[[2, 3000, 6, 1, 1_000_000]]);
    let rule = from_template(&app, &key, cabinet, "pause_low_ctr", json!({}));
    let more = from_template(
        &app,
        &key,
        cabinet,
        "pause_low_ctr",
        json!({"min_views": 5000}),
    );
    evaluate(&app, &key, ad);
    acted(&app, &key, &rule);
    assert!(log(&app, &key, &more).is_empty(), "3,000 views are too few");
    assert_eq!(campaign(&app, &key, ad)["status"], "On Hold");
}

#[test]
fn scale_winners_raises_the_bid_of_a_campaign_with_a_low_cpa() {
    let app = crate::helpers::spawn_app();
    let (cabinet, ad, key) = quiet(&app, &[[2, 3000, 90, 20, 4_000_000]]);
    let rule = from_template(
        &app,
        &key,
        cabinet,
        "scale_winners",
        json!({"max_cpa": "0.5"}),
    );
    let strict = from_template(
        &app,
        &key,
        cabinet,
        "scale_winners",
        json!({"max_cpa": "0.1"}),
    );
    evaluate(&app, &key, ad);
    let entry = acted(&app, &key, &rule);
    assert_eq!(entry["action"]["to"], "2.20", "{entry}");
    assert!(
        log(&app, &key, &strict).is_empty(),
        "CPA 0.20 is not under 0.10"
    );
    assert_eq!(campaign(&app, &key, ad)["cpm"], "2.20");
}

#[test]
fn bid_down_high_cpa_lowers_the_bid_not_under_its_floor() {
    let app = crate::helpers::spawn_app();
    let (cabinet, ad, key) = quiet(&app, &[[2, 3000, 90, 2, 6_000_000]]);
    let rule = from_template(
        &app,
        &key,
        cabinet,
        "bid_down_high_cpa",
        json!({"max_cpa": "2", "percent": "50", "min_cpm": "1.50"}),
    );
    evaluate(&app, &key, ad);
    let entry = acted(&app, &key, &rule);
    assert_eq!(entry["action"]["to"], "1.50", "{entry}");
    assert_eq!(campaign(&app, &key, ad)["cpm"], "1.50");
}

#[test]
fn refill_budget_adds_to_an_active_campaign_whose_budget_ran_low() {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let low = app.funded(cabinet, 3_000_000);
    let rich = app.funded(cabinet, 9_000_000);
    let rule = from_template(&app, &key, cabinet, "refill_budget", json!({}));
    app.advance(HOUR);
    let entries = log(&app, &key, &rule);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["ad_id"], low);
    assert_eq!(entries[0]["outcome"], "acted");
    let budget: f64 = campaign(&app, &key, low)["budget"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(budget > 20.0, "refilled by 20: {budget}");
    assert!(entries.iter().all(|e| e["ad_id"] != rich));
}

#[test]
fn night_pause_pauses_in_its_hours_of_the_owners_zone_and_morning_resume_brings_campaigns_back() {
    let app = crate::helpers::spawn_app();
    let (user, cabinet, key) = app.manager();
    app.sql(&format!(
        "UPDATE users SET time_zone = 'Asia/Tokyo' WHERE id = {user}"
    ));
    app.align_hour();
    let ad = app.active_campaign(cabinet);
    // Hours of the day are the owner's (Tokyo, UTC+9). The next run is at `hour` there.
    let hour = (next_end(&app) + Duration::hours(9)).hour();
    let later = (hour + 2) % 24;
    let night = from_template(
        &app,
        &key,
        cabinet,
        "night_pause",
        json!({"from_hour": hour, "to_hour": (hour + 1) % 24}),
    );
    let not_yet = from_template(
        &app,
        &key,
        cabinet,
        "night_pause",
        json!({"from_hour": later, "to_hour": (later + 1) % 24}),
    );
    let morning = from_template(
        &app,
        &key,
        cabinet,
        "morning_resume",
        json!({"hour": (hour + 1) % 24}),
    );
    app.advance(HOUR);
    acted(&app, &key, &night);
    assert!(log(&app, &key, &not_yet).is_empty());
    assert!(log(&app, &key, &morning).is_empty());
    assert_eq!(campaign(&app, &key, ad)["status"], "On Hold");
    app.advance(HOUR);
    acted(&app, &key, &morning);
    assert_eq!(campaign(&app, &key, ad)["status"], "Active");
}
