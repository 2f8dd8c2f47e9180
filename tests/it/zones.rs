//! Schedules given by zone name follow daylight saving (on the simulator): a campaign
//! scheduled as `Europe/Berlin` in January holds the summer offset once the clock passes the
//! last Sunday of March, made by the system with its history saying why; a fixed offset never
//! moves; the API and the panel answer the name.

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc, Weekday};
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::web::logged_in;
use adcab::store::history;

/// 12:00 UTC on the next 15 January by the service clock: winter in Berlin (UTC+01:00).
pub fn next_january(now: DateTime<Utc>) -> DateTime<Utc> {
    let this_year = Utc.with_ymd_and_hms(now.year(), 1, 15, 12, 0, 0).unwrap();
    if this_year > now {
        this_year
    } else {
        Utc.with_ymd_and_hms(now.year() + 1, 1, 15, 12, 0, 0)
            .unwrap()
    }
}

/// 03:00 UTC on the Monday after the last Sunday of March of `year`: Berlin's clocks went
/// forward at 01:00 UTC that Sunday, so it is at UTC+02:00.
pub fn after_last_sunday_of_march(year: i32) -> DateTime<Utc> {
    let mut day = NaiveDate::from_ymd_opt(year, 3, 31).unwrap();
    while day.weekday() != Weekday::Sun {
        day = day.pred_opt().unwrap();
    }
    let monday = day.succ_opt().unwrap();
    Utc.from_utc_datetime(&monday.and_hms_opt(3, 0, 0).unwrap())
}

/// Seconds from the service clock's now to `at`.
pub fn seconds_until(app: &TestApp, at: DateTime<Utc>) -> i64 {
    (at - app.now()).num_seconds()
}

/// A schedule of weekday office hours in `timezone`.
pub fn office_hours(timezone: &str) -> Value {
    json!({ "days": { "mon": [9, 10, 11], "fri": [17] }, "timezone": timezone })
}

/// The schedule the simulator (the platform) holds for the ad.
fn held_by_platform(app: &TestApp, cabinet: i64, ad: i64) -> Value {
    let text: String = app.scalar(
        "SELECT schedule FROM sim_ads WHERE account_id = ?1 AND ad_id = ?2",
        &[cabinet, ad],
    );
    serde_json::from_str(&text).unwrap()
}

fn entries(app: &TestApp, cabinet: i64, ad: i64) -> Vec<history::Entry> {
    app.services
        .db
        .read_blocking(move |c| history::list(c, cabinet, ad))
        .unwrap()
}

#[test]
fn a_schedule_given_by_name_in_january_holds_the_summer_offset_after_the_last_sunday_of_march() {
    let app = crate::helpers::spawn_app();
    let (user, cabinet, key) = app.manager();
    let january = next_january(app.now());
    app.advance(seconds_until(&app, january));
    let named = app.create_through_api(
        &key,
        cabinet,
        json!({ "schedule": office_hours("Europe/Berlin") }),
    );
    let fixed =
        app.create_through_api(&key, cabinet, json!({ "schedule": office_hours("+03:00") }));
    let read = |ad: i64| {
        app.get_ok(&format!("/campaigns/{ad}?account_id={cabinet}"), &key)["data"]["schedule"]
            .clone()
    };
    let winter = read(named);
    assert_eq!(
        (
            winter["timezone"].as_str(),
            winter["timezone_name"].as_str()
        ),
        (Some("+01:00"), Some("Europe/Berlin")),
        "the API answers the name beside the offset: {winter}"
    );
    assert_eq!(held_by_platform(&app, cabinet, named)["timezone"], "+01:00");
    assert_eq!(read(fixed)["timezone_name"], Value::Null);

    // The clock passes the last Sunday of March; the scheduler's next hour moves the schedule.
    app.advance(seconds_until(
        &app,
        after_last_sunday_of_march(january.year()),
    ));
    let summer = read(named);
    assert_eq!(
        (
            summer["timezone"].as_str(),
            summer["timezone_name"].as_str()
        ),
        (Some("+02:00"), Some("Europe/Berlin")),
        "{summer}"
    );
    assert_eq!(summer["days"], winter["days"], "the hours are kept");
    let held = held_by_platform(&app, cabinet, named);
    assert_eq!(
        held["timezone"], "+02:00",
        "the platform holds the summer offset: {held}"
    );
    assert_eq!(held["days"]["mon"], json!([9, 10, 11]));

    let moved: Vec<_> = entries(&app, cabinet, named)
        .into_iter()
        .filter(|e| e.source == "system")
        .collect();
    assert_eq!(moved.len(), 1, "one move, made by the system: {moved:?}");
    assert_eq!(moved[0].action, "edit");
    assert_eq!(
        moved[0].details.as_ref().unwrap()["zone"],
        json!({ "name": "Europe/Berlin", "from": "+01:00", "to": "+02:00" })
    );
    assert_eq!(moved[0].user_id, None, "no person made it");

    // A fixed offset never moves, and nothing is asked of the platform for it.
    assert_eq!(read(fixed)["timezone"], "+03:00");
    assert_eq!(held_by_platform(&app, cabinet, fixed)["timezone"], "+03:00");
    assert!(entries(&app, cabinet, fixed)
        .iter()
        .all(|e| e.source != "system"));

    // Another pass, and another hour, change nothing: the move is made once.
    let again = adcab::jobs::zones::run(&app.services).unwrap();
    assert_eq!(again, adcab::jobs::zones::Pass::default());
    app.advance(Duration::hours(2).num_seconds());
    let system = entries(&app, cabinet, named)
        .into_iter()
        .filter(|e| e.source == "system")
        .count();
    assert_eq!(system, 1);

    // The panel shows the zone by name and the history says why the schedule moved.
    let web = logged_in(&app, user);
    let page = web.get(&format!("/campaigns/{cabinet}/{named}")).body;
    assert!(page.contains("Europe/Berlin (UTC+02:00)"), "{page}");
    assert!(
        page.contains(
            "The clocks in Europe/Berlin changed: schedule moved from UTC+01:00 to UTC+02:00 by adcab itself"
        ),
        "{page}"
    );
    assert!(
        page.contains(r#"name="schedule.timezone" value="Europe/Berlin""#),
        "the edit form offers the zone by name: {page}"
    );
}

#[test]
fn a_schedule_set_by_name_keeps_the_name_until_an_offset_replaces_it() {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}");
    let set = json!({ "schedule": office_hours("asia/kolkata") });
    let named = app.write_ok("PATCH", &path, &key, Some(&set), 200);
    assert_eq!(
        named["data"]["schedule"]["timezone_name"], "Asia/Kolkata",
        "as the tz database spells it"
    );
    assert_eq!(named["data"]["schedule"]["timezone"], "+05:30");
    // The object as read, sent back with other hours, keeps following the zone.
    let mut echoed = named["data"]["schedule"].clone();
    echoed["days"]["tue"] = json!([8]);
    let kept = app.write_ok(
        "PATCH",
        &path,
        &key,
        Some(&json!({ "schedule": echoed })),
        200,
    );
    assert_eq!(kept["data"]["schedule"]["timezone_name"], "Asia/Kolkata");
    assert_eq!(kept["data"]["schedule"]["days"]["tue"], json!([8]));
    // An offset of its own replaces the zone.
    let mut offset = kept["data"]["schedule"].clone();
    offset["timezone"] = "+03:00".into();
    let fixed = app.write_ok(
        "PATCH",
        &path,
        &key,
        Some(&json!({ "schedule": offset })),
        200,
    );
    assert_eq!(
        (
            fixed["data"]["schedule"]["timezone"].as_str(),
            fixed["data"]["schedule"]["timezone_name"].as_str()
        ),
        (Some("+03:00"), None)
    );
    let zone: Option<String> = app.scalar(
        "SELECT schedule_zone FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        &[cabinet, ad],
    );
    assert_eq!(zone, None);
}

#[test]
fn a_bulk_schedule_and_a_copy_keep_the_zone_and_a_schedule_changed_on_the_platform_stops_following_it(
) {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager();
    let ads = [app.active_campaign(cabinet), app.active_campaign(cabinet)];
    let queued = app.write_ok(
        "POST",
        "/campaigns/bulk",
        &key,
        Some(&json!({
            "account_id": cabinet, "action": "set_schedule", "ad_ids": ads,
            "schedule": office_hours("America/New_York"),
        })),
        202,
    );
    let done = app.finish_task(&queued, &key);
    assert_eq!(done["status"], "completed", "{done}");
    let read = |ad: i64| {
        app.get_ok(&format!("/campaigns/{ad}?account_id={cabinet}"), &key)["data"].clone()
    };
    for ad in ads {
        assert_eq!(read(ad)["schedule"]["timezone_name"], "America/New_York");
    }
    let queued = app.write_ok(
        "POST",
        &format!("/campaigns/{}/copy", ads[0]),
        &key,
        Some(&json!({ "account_id": cabinet })),
        202,
    );
    let copy = app.finish_task(&queued, &key)["ad_ids"][0]
        .as_i64()
        .unwrap();
    assert_eq!(
        read(copy)["schedule"]["timezone_name"],
        "America/New_York",
        "a copy keeps its original's zone"
    );

    // The platform itself now holds an offset New York never takes: the schedule follows
    // that offset, not the zone, and is not moved back.
    app.sql(&format!(
        "UPDATE campaigns SET schedule = json_set(schedule, '$.timezone', '+03:00')
         WHERE account_id = {cabinet} AND ad_id = {}",
        ads[1]
    ));
    let pass = adcab::jobs::zones::run(&app.services).unwrap();
    assert_eq!(pass.moved, 0, "{pass:?}");
    let changed = read(ads[1])["schedule"].clone();
    assert_eq!(
        (
            changed["timezone"].as_str(),
            changed["timezone_name"].as_str()
        ),
        (Some("+03:00"), None)
    );
    assert_eq!(
        read(ads[0])["schedule"]["timezone_name"],
        "America/New_York"
    );
}
