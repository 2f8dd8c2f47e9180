//! The platform's failures: a flood wait answers a synchronous write 503 at once and holds a
//! task (other cabinets' tasks run meanwhile) instead of failing it; gateway errors are retried where safe, then answered 503;
//! calls are paced per token so that a sync does not trip the platform's flood control.

use std::time::{Duration, Instant};

use serde_json::json;

use super::promote_fake::FakeOptions;
use super::{advance_service, connected, FakePromote, Fault, SeedAd};
use adcab::ops;

use crate::helpers::campaign_body;

#[test]
fn a_long_flood_wait_answers_a_write_503_and_holds_the_token() {
    let tg = connected(vec![]);
    let ad = tg.create(json!({}));
    tg.fake.fail_next(Fault::FloodWait(30), Some("editAd"), 1);
    let body = json!({ "account_id": tg.cabinet, "cpm": "3" });
    let r = tg.patch(ad, &body);
    r.assert_error(503, "PLATFORM_UNAVAILABLE");
    let edits = tg.fake.call_count("editAd");
    let again = tg.patch(ad, &body);
    again.assert_error(503, "PLATFORM_UNAVAILABLE");
    assert_eq!(
        tg.fake.call_count("editAd"),
        edits,
        "while the wait lasts, no call is sent with the token"
    );
}

#[test]
fn a_flood_wait_holds_its_task_while_other_cabinets_tasks_run() {
    let tg = connected(vec![]);
    let ad = tg.create(json!({}));
    let other = tg.fake.add_account("EUR", "Other client", "1000", false);
    let second = ops::cabinet_connect(&tg.app.services, tg.user, &other.token, false)
        .unwrap()
        .cabinets[0]
        .id;
    tg.fake
        .fail_next(Fault::FloodWait(60), Some("getAdsById"), 1);
    let body = json!({ "account_id": tg.cabinet, "action": "pause", "ad_ids": [ad] });
    let held = tg
        .app
        .write_ok("POST", "/campaigns/bulk", &tg.key, Some(&body), 202);
    let held = held["data"]["id"].as_i64().unwrap();
    tg.app.run_tasks();
    let state = tg.app.get_ok(&format!("/tasks/{held}"), &tg.key)["data"].clone();
    assert_eq!(state["status"], "running", "not failed: {state}");
    assert_eq!(state["progress"], 0);
    let until: i64 = tg
        .app
        .scalar("SELECT wait_until FROM tasks WHERE id = ?1", &[held]);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!(
        until - now > 30,
        "held for about the minute asked ({})",
        until - now
    );

    let body = campaign_body(
        second,
        json!({ "title": "Meanwhile", "cpm": "2", "budget": "10" }),
    );
    let queued = tg
        .app
        .write_ok("POST", "/campaigns", &tg.key, Some(&body), 202);
    let done = tg.finish_task(&queued);
    assert_eq!(
        done["status"], "completed",
        "another cabinet's task ran: {done}"
    );
    let state = tg.app.get_ok(&format!("/tasks/{held}"), &tg.key)["data"].clone();
    assert_eq!(state["progress"], 0, "the held task still waits");
}

#[test]
fn gateway_errors_on_a_safe_call_are_retried_then_answered_503() {
    let tg = connected(vec![]);
    let ad = tg.create(json!({}));
    tg.fake.fail_next(Fault::Gateway, Some("editAd"), 2);
    let body = json!({ "account_id": tg.cabinet, "title": "Renamed" });
    let ok = tg.patch(ad, &body);
    assert_eq!(ok.status, 200, "two failures then a success: {}", ok.body);
    assert_eq!(tg.fake.ad(tg.id(), ad).unwrap()["title"], "Renamed");
    tg.fake.fail_next(Fault::Gateway, Some("editAd"), 3);
    let body = json!({ "account_id": tg.cabinet, "title": "Again" });
    let r = tg.patch(ad, &body);
    r.assert_error(503, "PLATFORM_UNAVAILABLE");
}

#[test]
fn a_sync_paced_below_the_platforms_limit_never_meets_a_flood_wait() {
    let fake = FakePromote::start_with(FakeOptions {
        calls_per_second: Some(20),
        ..FakeOptions::default()
    });
    let account = fake.add_account("EUR", "Paced", "1000", false);
    let ads: Vec<i64> = (0..30)
        .map(|i| {
            fake.seed_ad(
                &account.account_id,
                SeedAd::channel(&format!("Ad {i}"), "@pace_chan"),
            )
        })
        .collect();
    let url = fake.url.clone();
    let app = crate::helpers::spawn_app_with(move |c| {
        c.platform.kind = adcab::platform::PlatformKind::Telegram;
        c.telegram.api_url = url;
        c.telegram.calls_per_second = 15;
    });
    let user = app.user("agency");
    let made = ops::cabinet_connect(&app.services, user, &account.token, false).unwrap();
    let cabinet = made.cabinets[0].id;
    for ad in &ads {
        fake.deliver(&account.account_id, *ad, 100);
    }
    fake.reset_calls();
    let into_hour = fake.now().rem_euclid(3600);
    fake.advance(3600 - into_hour + 60);
    advance_service(&app.services, 3600 - into_hour + 60);
    app.settle();
    assert_eq!(
        fake.call_count("getAdStats"),
        30,
        "one stats call per moved ad, none repeated after a flood wait"
    );
    let views: i64 = app.scalar(
        "SELECT COALESCE(SUM(views), 0) FROM hourly_stats WHERE account_id = ?1",
        &[cabinet],
    );
    assert_eq!(views, 3_000);
}

#[test]
fn a_city_look_up_waits_no_longer_than_the_read_deadline() {
    let tg = connected(vec![]);
    let path = format!(
        "/targeting/cities?account_id={}&country=DE&q=Ber",
        tg.cabinet
    );
    let found = tg.app.get(&path, &tg.key);
    assert_eq!(found.status, 200, "{}", found.body);
    // The platform answers after 2.9 s; the read deadline (`read_timeout_ms`) is 2 s.
    tg.fake.fail_next(
        Fault::Delay(Duration::from_millis(2900)),
        Some("getTargetLocationsList"),
        1,
    );
    let asked = Instant::now();
    let late = tg.app.get(&path, &tg.key);
    let waited = asked.elapsed();
    late.assert_error(503, "PLATFORM_UNAVAILABLE");
    assert!(
        waited < Duration::from_millis(2800),
        "answered after {waited:?}, not at the deadline"
    );
}
