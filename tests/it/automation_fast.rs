//! Rules checked every 5 minutes (`every: "5m"`), over the simulator and the Telegram fake,
//! with time moved through the service clock: a stop-loss rule pauses a runaway campaign
//! within 10 simulated minutes of its threshold being crossed on both platforms; `5m` is
//! refused for a reach over 24 hours; the fast checks leave hourly rules alone; the guards
//! hold between marks; a jump of the clock is checked at its last mark only.

use serde_json::{json, Value};

use crate::helpers::{Camp, TestApp};
use crate::telegram::{connected, SeedAd};

const MINUTE: i64 = 60;
const MARK: i64 = 300;

fn create(app: &TestApp, key: &str, body: Value) -> Value {
    app.write_ok("POST", "/rules", key, Some(&body), 200)["data"].clone()
}

fn log(app: &TestApp, key: &str, rule: &Value) -> Vec<Value> {
    let path = format!("/rules/{}/log?limit=500", rule["id"]);
    app.get_ok(&path, key)["data"].as_array().unwrap().clone()
}

fn count(entries: &[Value], outcome: &str, reason: Option<&str>) -> usize {
    entries
        .iter()
        .filter(|e| e["outcome"] == outcome && reason.is_none_or(|r| e["reason"] == r))
        .count()
}

/// A stop-loss checked every 5 minutes on `ad`: spent over 24 hours at least `spent`, and
/// `zero` (a counted metric) nothing over 24 hours -> pause.
fn stop_loss(cabinet: i64, ad: i64, spent: &str, zero: &str) -> Value {
    json!({
        "name": "Stop-loss",
        "account_id": cabinet,
        "scope": {"ad_ids": [ad]},
        "conditions": [
            {"metric": "spent", "op": ">=", "value": spent, "window_hours": 24},
            {"metric": zero, "op": "=", "value": 0, "window_hours": 24}
        ],
        "action": {"type": "pause"},
        "every": "5m",
    })
}

/// The ad's lifetime spend as the simulator has it now, in micro-euros.
fn sim_spent(app: &TestApp, cabinet: i64, ad: i64) -> i64 {
    let now = app.now();
    let lines = app.services.platform.report(cabinet, now).unwrap();
    lines
        .iter()
        .find(|l| l.ad_id == ad)
        .map(|l| l.spent.micros())
        .unwrap()
}

#[test]
fn a_stop_loss_checked_every_5_minutes_pauses_a_runaway_campaign_on_the_simulator_within_10_minutes(
) {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let ad = app.approved(
        cabinet,
        Camp {
            cpm_micros: 20_000_000,
            budget_micros: 500_000_000,
            ..Camp::channel("Runaway", "https://t.me/alpha_chan")
        },
    );
    let rule = create(&app, &key, stop_loss(cabinet, ad, "5", "conversions"));
    assert_eq!(rule["every"], "5m");
    app.settle();
    let start = sim_spent(&app, cabinet, ad);
    let mut crossed = None;
    let mut paused = None;
    for minute in 1..=60 {
        app.advance(MINUTE);
        let c = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
        if c["active"] == false {
            paused = Some(minute);
            break;
        }
        if crossed.is_none() && sim_spent(&app, cabinet, ad) - start >= 5_000_000 {
            crossed = Some(minute);
        }
    }
    let (crossed, paused) = (crossed.expect("crossed"), paused.expect("paused"));
    println!("stop-loss on the simulator: crossed at minute {crossed}, paused at minute {paused}: {} minutes", paused - crossed);
    assert!(
        paused - crossed <= 10,
        "crossed at minute {crossed}, paused at minute {paused}"
    );
    let entries = log(&app, &key, &rule);
    assert_eq!(count(&entries, "acted", None), 1, "{entries:?}");
    let at = entries[0]["at"].as_str().unwrap();
    let at = chrono::DateTime::parse_from_rfc3339(at)
        .unwrap()
        .timestamp();
    assert_eq!(at % MARK, 0, "a rule runs at a 5-minute mark: {at}");
}

#[test]
fn a_stop_loss_checked_every_5_minutes_pauses_a_runaway_campaign_on_telegram_within_10_minutes() {
    let runaway = SeedAd {
        cpm: "100".into(),
        budget: "500".into(),
        ..SeedAd::channel("Runaway", "@alpha_chan")
    };
    let tg = connected(vec![runaway]);
    let ad = tg.first_ad();
    let into_mark = tg.fake.now().rem_euclid(MARK);
    tg.advance(MARK - into_mark + 30);
    let rule = create(&tg.app, &tg.key, stop_loss(tg.cabinet, ad, "30", "actions"));
    tg.app.settle();
    // 49 views a minute at 100 EUR CPM: 4.90 EUR, no actions (the fake counts one per 50
    // views of a delivery); the threshold is crossed by the 7th minute's delivery.
    let mut spent = 0;
    let mut crossed = None;
    let mut paused = None;
    for minute in 0..60 {
        tg.fake.deliver(tg.id(), ad, 49);
        spent += 4_900_000;
        if crossed.is_none() && spent >= 30_000_000 {
            crossed = Some(minute);
        }
        tg.advance(MINUTE);
        if tg.campaign(ad)["active"] == false {
            paused = Some(minute + 1);
            break;
        }
    }
    let (crossed, paused) = (crossed.expect("crossed"), paused.expect("paused"));
    println!(
        "stop-loss on Telegram: crossed at minute {crossed}, paused at minute {paused}: {} minutes",
        paused - crossed
    );
    assert!(
        paused - crossed <= 10,
        "crossed at minute {crossed}, paused at minute {paused}"
    );
    let entries = log(&tg.app, &tg.key, &rule);
    assert_eq!(count(&entries, "acted", None), 1, "{entries:?}");
    let matched = &entries[0]["matched"];
    assert!(matched.to_string().contains("spent"), "{matched}");
}

#[test]
fn five_minutes_is_refused_for_a_window_or_comparison_reaching_back_over_24_hours() {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let mut body = stop_loss(cabinet, ad, "5", "actions");
    body["conditions"][0]["window_hours"] = json!(48);
    let err = app.write_err("POST", "/rules", &key, Some(&body), 400, "VALIDATION_ERROR");
    assert_eq!(err["param"], "every", "{err}");
    assert_eq!(
        err["error"],
        "every is 1h or 5m; 5m needs every condition's window, and a comparison's window plus offset, to be at most 24 hours (the 5-minute figures are kept 25 hours).",
        "{err}"
    );
    body["every"] = json!("1h");
    let hourly = create(&app, &key, body.clone());
    assert_eq!(hourly["every"], "1h");
    let path = format!("/rules/{}", hourly["id"]);
    let change = json!({"every": "5m"});
    let err = app.write_err("PATCH", &path, &key, Some(&change), 400, "VALIDATION_ERROR");
    assert_eq!(
        err["param"], "every",
        "a change is checked against the stored windows"
    );
    body["conditions"][0]["window_hours"] = json!(12);
    body["conditions"][1] = json!({"metric": "spent", "op": ">", "window_hours": 12,
        "compare_to": {"offset_hours": 13}});
    body["every"] = json!("5m");
    let err = app.write_err("POST", "/rules", &key, Some(&body), 400, "VALIDATION_ERROR");
    assert_eq!(err["param"], "every", "12 h, 13 h back reaches 25 h: {err}");
    body["conditions"][1]["compare_to"]["offset_hours"] = json!(12);
    assert_eq!(create(&app, &key, body)["every"], "5m");
    body = stop_loss(cabinet, ad, "5", "actions");
    body["every"] = json!("15m");
    let err = app.write_err("POST", "/rules", &key, Some(&body), 400, "VALIDATION_ERROR");
    assert_eq!(
        (err["param"].as_str(), err["error"].as_str()),
        (Some("every"), Some("every is 1h or 5m."))
    );
    body.as_object_mut().unwrap().remove("every");
    assert_eq!(create(&app, &key, body)["every"], "1h", "the default");
}

/// A notify rule over `ad` whose condition always holds, checked `every`.
fn always(cabinet: i64, ad: i64, every: &str, cooldown: i64) -> Value {
    json!({
        "name": format!("always {every}"),
        "account_id": cabinet,
        "scope": {"ad_ids": [ad]},
        "conditions": [{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}],
        "action": {"type": "notify", "text": every},
        "cooldown_hours": cooldown,
        "max_runs_per_day": 24,
        "every": every,
    })
}

#[test]
fn the_fast_checks_leave_hourly_rules_alone_and_guards_hold_between_marks() {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let ad = app.active_campaign(cabinet);
    let hourly = create(&app, &key, always(cabinet, ad, "1h", 0));
    let fast = create(&app, &key, always(cabinet, ad, "5m", 1));
    let fast_free = create(&app, &key, always(cabinet, ad, "5m", 0));
    app.settle();
    // The clock stands at two past the hour: the first check ran at the hour's mark, ten
    // more follow (to :50).
    for _ in 0..10 {
        app.advance(MARK);
    }
    assert!(log(&app, &key, &hourly).is_empty(), "no hourly run yet");
    let entries = log(&app, &key, &fast);
    assert_eq!(count(&entries, "acted", None), 1, "{entries:?}");
    assert_eq!(
        count(&entries, "skipped", Some("cooldown")),
        10,
        "{entries:?}"
    );
    let free = log(&app, &key, &fast_free);
    assert_eq!(
        count(&free, "acted", None),
        11,
        "once a mark, each mark once"
    );
    // Ten minutes in one jump: the hour's sync and its hourly run, and the fast checks at
    // the jump's last mark only (:55 is passed over).
    app.advance(2 * MARK);
    let entries = log(&app, &key, &hourly);
    assert_eq!(
        count(&entries, "acted", None),
        1,
        "the hourly run: {entries:?}"
    );
    let entries = log(&app, &key, &fast);
    assert_eq!(
        count(&entries, "acted", None),
        2,
        "an hour after it acted, at the next hour's mark: {entries:?}"
    );
    assert_eq!(count(&log(&app, &key, &fast_free), "acted", None), 12);
}
