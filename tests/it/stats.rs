//! The hourly sync and the stats it keeps, moved by the service clock: counters and status of
//! every campaign each hour, the full re-read every third hour, `synced_at` and
//! `status_changed_at`, schedule windows in the schedule's offset, and the stats endpoints
//! for every period.

use crate::helpers::{spawn_app, Camp, TestApp};
use adcab::clock;
use adcab::store::campaigns::{self, CampaignRow};
use chrono::{DateTime, Duration, Timelike, Utc};
use serde_json::{json, Value};

fn stored(app: &TestApp, account: i64, ad: i64) -> CampaignRow {
    app.services
        .db
        .read_blocking(|c| campaigns::get(c, account, ad))
        .unwrap()
        .unwrap()
}

/// A campaign with enough budget to run for days, approved and `Active`.
fn long_runner(app: &TestApp, account: i64) -> i64 {
    app.funded(account, 500_000_000)
}

#[test]
fn each_hour_refreshes_counters_and_every_third_rereads_the_settings() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let ad = long_runner(&app, cabinet);
    let created = stored(&app, cabinet, ad);

    app.advance(3600);
    let one = stored(&app, cabinet, ad);
    assert!(
        one.views > 0 && one.spent.micros() > 0,
        "counters refreshed"
    );
    assert_eq!(one.spent.micros(), one.views * 2_000, "2.00 per 1000 views");
    assert_eq!(one.synced_at, created.synced_at, "settings not re-read yet");
    assert_eq!(
        one.status_changed_at, created.status_changed_at,
        "stats updates do not touch status_changed_at"
    );
    let listed = app.get_ok("/campaigns", &key)["data"][0].clone();
    assert_eq!(listed["views"], one.views, "the list shows the synced copy");

    app.advance(3600);
    let two = stored(&app, cabinet, ad);
    assert!(two.views > one.views);
    assert_eq!(two.synced_at, created.synced_at);

    app.advance(3600);
    let three = stored(&app, cabinet, ad);
    assert!(
        three.synced_at > created.synced_at,
        "a running campaign is re-read in full about every three hours"
    );
    assert_eq!(
        three.synced_at[..13],
        clock::iso(app.now())[..13],
        "re-read at this hour's sync"
    );
}

/// A full re-read comes minutes after the hour it is made at; the counters it finds are ahead
/// of that hour's report, whose figures the stats hold. It leaves them: the copy's counters
/// stay those of the last report, and the lifetime stats equal them.
#[test]
fn a_background_reread_leaves_the_counters_at_the_hours_report() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let ad = long_runner(&app, cabinet);
    let created = stored(&app, cabinet, ad);

    app.advance(3 * 3600 + 20 * 60);
    let row = stored(&app, cabinet, ad);
    assert!(row.synced_at > created.synced_at, "re-read in full");
    let live = app.services.platform.get_ads(cabinet, &[ad]).unwrap();
    assert!(
        live[0].views > row.views,
        "the platform delivered after the hour: {} views, the copy {}",
        live[0].views,
        row.views
    );
    let all = stats(&app, &key, "?period=all");
    assert_eq!(
        all["data"][cabinet.to_string()][ad.to_string()]["views"],
        row.views,
        "the copy's counters are the sum of its hours"
    );
}

/// A setting changed on the platform reaches the copy at its next full re-read (worked out on
/// a reader and written by the sync), and the re-read also keeps the hour's counters.
#[test]
fn a_full_reread_brings_a_title_changed_on_the_platform() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let ad = long_runner(&app, cabinet);
    app.sql(&format!(
        "UPDATE sim_ads SET spec = json_set(spec, '$.title', 'Renamed on the platform')
         WHERE account_id = {cabinet} AND ad_id = {ad}"
    ));
    app.advance(2 * 3600);
    assert_ne!(stored(&app, cabinet, ad).title, "Renamed on the platform");
    app.advance(3600);
    let row = stored(&app, cabinet, ad);
    assert_eq!(row.title, "Renamed on the platform");
    let listed = app.get_ok("/campaigns", &key)["data"][0].clone();
    assert_eq!(listed["title"], "Renamed on the platform");
    assert_eq!(listed["views"], row.views);
}

fn stats(app: &TestApp, key: &str, query: &str) -> Value {
    app.get_ok(&format!("/stats{query}"), key)
}

#[test]
fn stats_cover_each_period_and_all_is_the_lifetime() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let ad = long_runner(&app, cabinet);
    app.advance(36 * 3600);

    let (acc, id) = (cabinet.to_string(), ad.to_string());
    let day = stats(&app, &key, "?period=1d");
    let week = stats(&app, &key, "?period=7d");
    let month = stats(&app, &key, "?period=30d");
    let all = stats(&app, &key, "?period=all");
    let views = |v: &Value| v["data"][&acc][&id]["views"].as_i64().unwrap();
    assert!(views(&day) > 0);
    assert!(
        views(&day) < views(&week),
        "36 hours of delivery: the last 24 are fewer"
    );
    assert_eq!(views(&week), views(&month));
    assert!(views(&all) >= views(&week), "all is the lifetime counter");
    assert_eq!(
        all["data"][&acc][&id]["views"],
        stored(&app, cabinet, ad).views
    );

    let figures = &day["data"][&acc][&id];
    assert!(figures["spent"].is_number() && figures["actions"].is_number());
    let spent = figures["spent"].as_f64().unwrap();
    assert!(
        (spent - views(&day) as f64 * 0.002).abs() < 1e-9,
        "spend is views x cpm / 1000"
    );
    assert_eq!(day["meta"]["period"], "1d");
    assert_eq!(day["meta"]["currencies"][&acc], "EUR");
    assert_eq!(
        stats(&app, &key, "?period=fortnight")["data"],
        day["data"],
        "unknown reads as 24h"
    );
    assert_eq!(stats(&app, &key, "")["data"], day["data"]);

    let total = app.get_ok("/stats/total?period=7d", &key);
    let sum = &total["data"][&acc];
    assert_eq!(sum["views"], week["data"][&acc][&id]["views"]);
    assert_eq!(sum["spent"], week["data"][&acc][&id]["spent"]);
    assert_eq!(
        (sum["campaigns"].as_i64(), sum["currency"].as_str()),
        (Some(1), Some("EUR"))
    );
}

/// `GET /v1/stats/total`, read from the cabinet's kept rows and its campaigns with a row in
/// the span, is each period's `GET /v1/stats` summed: a campaign paused a day ago counts in
/// 7d and 30d, not in 1d.
#[test]
fn a_cabinets_total_is_its_campaigns_stats_summed_in_every_period() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let (running, paused) = (long_runner(&app, cabinet), long_runner(&app, cabinet));
    app.advance(3 * 3600);
    app.write_ok(
        "POST",
        &format!("/campaigns/{paused}/pause"),
        &key,
        None,
        200,
    );
    app.advance(26 * 3600);
    let acc = cabinet.to_string();
    let micros = |v: &Value| (v.as_f64().unwrap() * 1e6).round() as i64;
    for (period, counted) in [("1d", 1), ("7d", 2), ("30d", 2), ("all", 2)] {
        let each = stats(&app, &key, &format!("?period={period}"));
        let campaigns = each["data"][&acc].as_object().unwrap();
        let total = app.get_ok(&format!("/stats/total?period={period}"), &key);
        let total = &total["data"][&acc];
        for field in ["views", "opens", "clicks", "actions"] {
            let sum: i64 = campaigns.values().map(|c| c[field].as_i64().unwrap()).sum();
            assert_eq!(total[field].as_i64(), Some(sum), "{period} {field}");
        }
        let spent: i64 = campaigns.values().map(|c| micros(&c["spent"])).sum();
        assert_eq!(micros(&total["spent"]), spent, "{period} spent");
        assert_eq!(campaigns.len(), counted, "{period}");
        assert_eq!(total["campaigns"], counted, "{period}");
    }
    let day = stats(&app, &key, "?period=1d");
    assert!(day["data"][&acc][running.to_string()]["views"].as_i64() > Some(0));
}

#[test]
fn stats_are_keyed_by_account_then_ad_and_idle_cabinets_total_zero() {
    let app = spawn_app();
    let user = app.user("agency");
    let busy = app.cabinet(user, "euro", "1000");
    let idle = app.cabinet(user, "ton", "1000");
    let key = app.key(user);
    app.align_hour();
    let ad = long_runner(&app, busy);
    app.advance(2 * 3600);
    let by_ad = stats(&app, &key, "?period=1d");
    assert!(
        by_ad["data"][busy.to_string()][ad.to_string()]["views"]
            .as_i64()
            .unwrap()
            > 0
    );
    assert_eq!(by_ad["data"][idle.to_string()], json!({}));
    let total = app.get_ok("/stats/total", &key);
    assert_eq!(total["data"][idle.to_string()]["views"], 0);
    assert_eq!(total["data"][idle.to_string()]["currency"], "TON");
    let one = stats(&app, &key, &format!("?account_id={idle}"));
    assert_eq!(
        one["data"].as_object().unwrap().len(),
        1,
        "account_id narrows it"
    );
}

/// `startDate`, `startHour`, `endDate`, `endHour` covering the one hour starting at `hour`.
fn one_hour(hour: DateTime<Utc>) -> String {
    let date = hour.format("%Y-%m-%d");
    let h = hour.hour();
    format!("period=custom&startDate={date}&endDate={date}&startHour={h}&endHour={h}")
}

#[test]
fn history_answers_each_period_and_404_without_data() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let first_hour = clock::hour_start(app.now());
    let ad = long_runner(&app, cabinet);
    let waiting = app.campaign(cabinet, Camp::channel("Waiting", "https://t.me/alpha_chan"));
    app.advance(2 * 3600);

    let day = app.get_ok(&format!("/campaigns/{ad}/history"), &key);
    assert_eq!(
        day["meta"],
        json!({ "adId": ad, "accountId": cabinet, "period": "24h",
                "from": day["meta"]["from"], "to": day["meta"]["to"] })
    );
    for field in ["views", "clicks", "spent", "ctr", "cpm", "cpa"] {
        assert!(day["data"][field].is_number(), "{field} is a number");
    }
    assert!(
        (day["data"]["cpm"].as_f64().unwrap() - 2.0).abs() < 1e-9,
        "paid 2.00 per 1000"
    );
    for period in ["7d", "30d"] {
        let longer = app.get_ok(&format!("/campaigns/{ad}/history?period={period}"), &key);
        assert_eq!(
            longer["data"], day["data"],
            "{period}: everything is within it"
        );
        assert_eq!(longer["meta"]["period"], period);
    }
    let hours: Vec<i64> = [first_hour, first_hour + Duration::hours(1)]
        .iter()
        .map(|h| {
            app.get_ok(&format!("/campaigns/{ad}/history?{}", one_hour(*h)), &key)["data"]["views"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(hours[0] + hours[1], day["data"]["views"].as_i64().unwrap());

    let long_ago = first_hour - Duration::days(40);
    app.get_err(
        &format!("/campaigns/{ad}/history?{}", one_hour(long_ago)),
        &key,
        404,
        "NOT_FOUND",
    );
    app.get_err(
        &format!("/campaigns/{waiting}/history"),
        &key,
        404,
        "NOT_FOUND",
    );
    app.get_err("/campaigns/999/history", &key, 404, "CAMPAIGN_NOT_FOUND");
    let bad = |query: &str, param: &str| {
        let body = app.get_err(
            &format!("/campaigns/{ad}/history?{query}"),
            &key,
            400,
            "VALIDATION_ERROR",
        );
        assert_eq!(body["param"], param, "{query}");
    };
    bad("period=fortnight", "period");
    bad("period=custom&endDate=2026-01-01", "startDate");
    bad(
        "period=custom&startDate=2026-01-01&endDate=2026-01-01&startHour=24",
        "startHour",
    );
    bad(
        "period=custom&startDate=2026-01-02&endDate=2026-01-01",
        "endDate",
    );
}

#[test]
fn a_schedule_limits_delivery_to_its_hours_in_its_offset() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let ad = long_runner(&app, cabinet);
    let target = clock::hour_start(app.now()) + Duration::hours(2);
    let local = (target.hour() + 3) % 24;
    let days: serde_json::Map<String, Value> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        .iter()
        .map(|d| (d.to_string(), json!([local])))
        .collect();
    app.write_ok(
        "PATCH",
        &format!("/campaigns/{ad}"),
        &key,
        Some(&json!({ "schedule": { "days": days, "timezone": "+03:00" } })),
        200,
    );
    app.advance(6 * 3600);
    let history =
        |hour: DateTime<Utc>| app.get(&format!("/campaigns/{ad}/history?{}", one_hour(hour)), &key);
    let inside = history(target);
    assert_eq!(inside.status, 200, "{}", inside.body);
    assert!(inside.body["data"]["views"].as_i64().unwrap() > 0);
    for off in [-1, 1, 2] {
        let outside = history(target + Duration::hours(off));
        assert_eq!(
            outside.status, 404,
            "hour {off} from the window: {}",
            outside.body
        );
    }
}

/// The simulator keeps no monthly account report (its figures are adcab's own): a
/// reconciliation there says so instead of comparing adcab with itself.
#[test]
fn the_simulator_has_no_month_report_to_reconcile_with() {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, _) = app.manager();
    let month: adcab::domain::time::Month = app.now().format("%Y-%m").to_string().parse().unwrap();
    let err = adcab::ops::cabinet_reconcile(&app.services, cabinet, month, false).unwrap_err();
    assert!(
        matches!(
            err,
            adcab::ops::OpsError::Platform(adcab::platform::PlatformError::Unsupported(_))
        ),
        "{err:?}"
    );
}
