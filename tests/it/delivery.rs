//! The simulated platform over time, moved by the service clock: auto review, delivery while
//! `Active`, and a budget spent down to zero.

use crate::helpers::{spawn_app_with, Camp, TestApp};
use adcab::ops;
use serde_json::json;

/// Two new campaigns of `cabinet` waiting for review: "Fine", and "Risky", whose text holds a
/// decline word.
fn fine_and_risky(app: &TestApp, cabinet: i64, key: &str) -> (i64, i64) {
    let fine = app.campaign(cabinet, Camp::channel("Fine", "https://t.me/alpha_chan"));
    let risky = app.campaign(cabinet, Camp::channel("Risky", "https://t.me/alpha_chan"));
    let casino = json!({ "text": "Win big at our Casino tonight" });
    app.write_ok(
        "PATCH",
        &format!("/campaigns/{risky}"),
        key,
        Some(&casino),
        200,
    );
    (fine, risky)
}

#[test]
fn auto_review_approves_or_declines_and_approved_ads_deliver() {
    let app = spawn_app_with(|c| c.sim.auto_review_seconds = 60);
    let (_, cabinet, key) = app.manager();
    let (fine, risky) = fine_and_risky(&app, cabinet, &key);
    ops::sim_advance(&app.services, 301).unwrap();
    let approved = app.get_ok(&format!("/campaigns/{fine}"), &key)["data"].clone();
    assert_eq!(approved["status"], "Active");
    assert_eq!(approved["decline_reason"], serde_json::Value::Null);
    assert!(
        approved["views"].as_i64().unwrap() > 0,
        "delivering since approval"
    );
    let declined = app.get_ok(&format!("/campaigns/{risky}"), &key)["data"].clone();
    assert_eq!(
        declined["status"], "Declined",
        "the text holds a decline word"
    );
    assert_eq!(declined["views"], 0);
    let reason = declined["decline_reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("Prohibited product or service — ")
            && reason.ends_with("The text mentions “casino”."),
        "the reason a decline word earns, naming the word: {declined}"
    );
}

#[test]
fn a_budget_is_spent_to_exactly_zero_then_a_top_up_runs_again() {
    let app = spawn_app_with(|_| {});
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let before = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    // The scheduler catches up the 72 hours, so the stopped state below is the synced one.
    app.advance(3 * 24 * 3600);
    let spent = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    assert_eq!(spent["status"], "Stopped");
    assert_eq!(
        (spent["budget"].as_str(), spent["spent"].as_str()),
        (Some("0.00"), Some("10.000000"))
    );
    assert_eq!(spent["views"], 5000, "10.00 at 2.00 per 1000 views");
    let stopped_at = spent["status_changed_at"].as_str().unwrap();
    assert!(stopped_at > before["status_changed_at"].as_str().unwrap());
    assert!(
        stopped_at < spent["synced_at"].as_str().unwrap(),
        "the minute it stopped, not the minute it was read"
    );
    let topped = app.write_ok(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        &key,
        Some(&json!({ "action": "add", "amount": 5 })),
        200,
    );
    assert_eq!(
        topped["data"]["status"], "Active",
        "Stopped with active true runs again once funded"
    );
}

/// The hourly sync reads the platform's report before it writes it: a top-up stored in
/// between is newer than the report, and the report's stopped state and empty budget must not
/// be written over it. The report's counters still are, and the next report is taken whole.
#[test]
fn a_top_up_stored_while_the_hourly_report_is_read_is_not_written_over() {
    use adcab::jobs::hourly_sync::{read_reports, store_report};
    use chrono::{DurationRound, TimeDelta};

    let app = spawn_app_with(|_| {});
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    app.advance(3 * 24 * 3600);
    let path = format!("/campaigns/{ad}");
    assert_eq!(app.get_ok(&path, &key)["data"]["status"], "Stopped");
    let s = &app.services;
    let now = s.db.read_blocking(adcab::clock::now).unwrap();
    let hour = now.duration_trunc(TimeDelta::hours(1)).unwrap() - TimeDelta::hours(1);
    let [report] = &read_reports(s, cabinet, hour).unwrap().unwrap()[..] else {
        panic!("one report for an hour already synced");
    };
    app.write_ok(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        &key,
        Some(&json!({ "action": "add", "amount": 5 })),
        200,
    );
    let balance = || app.get_ok("/account/info", &key)["data"][0]["balance"].clone();
    let topped_up = balance();
    store_report(s, report).unwrap();
    let kept = app.get_ok(&path, &key)["data"].clone();
    assert_eq!(
        (&kept["status"], &kept["active"], &kept["budget"]),
        (&json!("Active"), &json!(true), &json!("5.00")),
        "the top-up stays"
    );
    assert_eq!(
        kept["spent"], "10.000000",
        "the report's counters are stored"
    );
    assert_eq!(balance(), topped_up, "the balance after the top-up stays");

    app.write_ok("POST", &format!("/campaigns/{ad}/pause"), &key, None, 200);
    for fresh in read_reports(s, cabinet, hour).unwrap().unwrap() {
        store_report(s, &fresh).unwrap();
    }
    let paused = app.get_ok(&path, &key)["data"].clone();
    assert_eq!(
        paused["active"], false,
        "a report read after the change is taken whole"
    );
}

#[test]
fn reading_ads_stores_only_a_status_that_moved_and_agrees_with_the_next_report() {
    let app = spawn_app_with(|c| c.sim.auto_review_seconds = 60);
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let (fine, risky) = fine_and_risky(&app, cabinet, &key);
    let stored = || {
        app.scalar::<String>(
            "SELECT group_concat(ad_id || ' ' || status || ' ' || views || ' ' || spent_micros
                 || ' ' || IFNULL(accrued_until, '-') || ' ' || IFNULL(decline_reason, '-'), '; ')
             FROM sim_ads WHERE account_id = ?1",
            &[cabinet],
        )
    };
    let platform = &app.services.platform;
    // Ten minutes on, inside the hour: both reviews are due, no report has been read. A read
    // stores both, as their status moved.
    app.advance_to_a_minute(10 * 60);
    assert_eq!(stored().matches("In Review").count(), 2);
    let first = platform.get_ads(cabinet, &[fine, risky]).unwrap();
    assert_eq!(first[0].status, adcab::domain::campaign::Status::Active);
    assert_eq!(first[1].status, adcab::domain::campaign::Status::Declined);
    assert!(first[1].decline_reason.is_some());
    let decided = stored();
    assert!(
        decided.contains("Active") && decided.contains("Declined"),
        "{decided}"
    );
    // Ten more minutes: the approved ad only delivered. Reading it writes nothing.
    app.advance_to_a_minute(10 * 60);
    let read = platform.get_ads(cabinet, &[fine, risky]).unwrap();
    assert!(
        read[0].views > first[0].views,
        "delivering since its approval"
    );
    assert_eq!(
        format!("{:?}", platform.get_ads(cabinet, &[fine, risky]).unwrap()),
        format!("{read:?}"),
        "read again, the same"
    );
    assert_eq!(stored(), decided, "reading the ads wrote nothing");
    // The report works the same figures out.
    let lines = platform.report(cabinet, app.now()).unwrap();
    for ad in &read {
        let line = lines.iter().find(|l| l.ad_id == ad.ad_id).unwrap();
        assert_eq!(
            (
                line.status,
                line.views,
                line.clicks,
                line.spent,
                line.budget
            ),
            (ad.status, ad.views, ad.clicks, ad.spent, ad.budget),
            "ad {}",
            ad.ad_id
        );
        assert_eq!(line.status_changed_at, ad.status_changed_at);
        assert_eq!(line.decline_reason, ad.decline_reason);
    }
}
