//! Automation rules over the simulator and the service clock: the rules API and its errors,
//! each action after an hourly sync (with history source `automation`, `status_change` and
//! `alert` webhooks, and the rule's log), dry runs, the guards over a week-long clock jump,
//! and the preview.

use crate::helpers::{Receiver, TestApp};
use adcab::domain::money::Money;
use adcab::ops::NewKey;
use adcab::store::rules;
use serde_json::{json, Value};

const HOUR: i64 = 3600;

/// An owner with a euro cabinet (balance 1000), a manage key whose webhooks go to `rx`, and
/// the clock at two past a whole hour: (cabinet, key, webhook secret).
fn setup(app: &TestApp, rx: &Receiver) -> (i64, String, String) {
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let (_, key, secret) = app.hook_key(user, &rx.url);
    app.align_hour();
    (cabinet, key, secret)
}

fn create(app: &TestApp, key: &str, body: Value) -> Value {
    app.write_ok("POST", "/rules", key, Some(&body), 200)["data"].clone()
}

/// A rule over the whole cabinet whose one condition always holds (views >= 0 in the last
/// hour), acting with `action`.
fn always(cabinet: i64, action: Value, cooldown: i64, runs: i64) -> Value {
    json!({
        "name": "always",
        "account_id": cabinet,
        "conditions": [{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}],
        "action": action,
        "cooldown_hours": cooldown,
        "max_runs_per_day": runs,
    })
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

fn campaign(app: &TestApp, key: &str, ad: i64) -> Value {
    app.get_ok(&format!("/campaigns/{ad}"), key)["data"].clone()
}

#[test]
fn rules_are_created_read_listed_changed_and_deleted() {
    let app = crate::helpers::spawn_app();
    let (user, cabinet, key) = app.manager();
    let other = app.cabinet(user, "stars", "500");
    let ad = app.active_campaign(cabinet);
    let body = json!({
        "name": "Stop expensive leads",
        "account_id": cabinet,
        "scope": {"ad_ids": [ad]},
        "match": "any",
        "conditions": [
            {"metric": "cpa", "op": ">", "value": "2.50", "window_hours": 24},
            {"metric": "status", "op": "=", "value": "Active"}
        ],
        "action": {"type": "change_cpm", "percent": -10, "min_cpm": "1", "max_cpm": 4},
        "cooldown_hours": 6,
        "max_runs_per_day": 3,
        "dry_run": true
    });
    let rule = create(&app, &key, body);
    assert_eq!(rule["name"], "Stop expensive leads");
    assert_eq!(rule["scope"], json!({"ad_ids": [ad]}));
    assert_eq!(rule["match"], "any");
    assert_eq!(
        rule["conditions"],
        json!([
            {"metric": "cpa", "op": ">", "value": "2.5", "window_hours": 24},
            {"metric": "status", "op": "=", "value": "Active", "window_hours": 1}
        ])
    );
    assert_eq!(
        rule["action"],
        json!({"type": "change_cpm", "percent": "-10", "min_cpm": "1.00", "max_cpm": "4.00"})
    );
    assert_eq!(
        (
            rule["cooldown_hours"].clone(),
            rule["max_runs_per_day"].clone()
        ),
        (json!(6), json!(3))
    );
    assert_eq!(
        (rule["enabled"].clone(), rule["dry_run"].clone()),
        (json!(true), json!(true))
    );
    let id = rule["id"].as_i64().unwrap();
    assert_eq!(app.get_ok(&format!("/rules/{id}"), &key)["data"], rule);

    let stars = create(
        &app,
        &key,
        json!({"name": "bid", "account_id": other,
               "conditions": [{"metric": "views", "op": "<", "value": 10}],
               "action": {"type": "set_cpm", "cpm": 3}}),
    );
    assert_eq!(
        stars["action"],
        json!({"type": "set_cpm", "cpm": "3"}),
        "STARS whole"
    );
    assert_eq!(stars["scope"], json!({}), "the whole cabinet by default");
    assert_eq!(
        (
            stars["cooldown_hours"].clone(),
            stars["max_runs_per_day"].clone()
        ),
        (json!(24), json!(1)),
        "defaults"
    );
    let all = app.get_ok("/rules", &key)["data"].clone();
    assert_eq!(all.as_array().unwrap().len(), 2);
    let one = app.get_ok(&format!("/rules?account_id={other}"), &key)["data"].clone();
    assert_eq!(one, json!([stars]));

    let patch = json!({"enabled": false, "name": "Renamed"});
    let changed = app.write_ok("PATCH", &format!("/rules/{id}"), &key, Some(&patch), 200);
    assert_eq!(changed["data"]["enabled"], false);
    assert_eq!(changed["data"]["name"], "Renamed");
    assert_eq!(
        changed["data"]["conditions"], rule["conditions"],
        "the rest kept"
    );

    let gone = app.write_ok("DELETE", &format!("/rules/{id}"), &key, None, 200);
    assert_eq!(
        gone["data"],
        json!({"id": id, "account_id": cabinet, "deleted": true})
    );
    app.get_err(&format!("/rules/{id}"), &key, 404, "RULE_NOT_FOUND");
    app.write_err(
        "DELETE",
        &format!("/rules/{id}"),
        &key,
        None,
        404,
        "RULE_NOT_FOUND",
    );
}

#[test]
fn a_bad_rule_is_refused_naming_the_field_and_others_cannot_reach_one() {
    let app = crate::helpers::spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let good = || always(cabinet, json!({"type": "pause"}), 0, 1);
    let refused = |change: &dyn Fn(&mut Value), param: &str| {
        let mut body = good();
        change(&mut body);
        let err = app.write_err("POST", "/rules", &key, Some(&body), 400, "VALIDATION_ERROR");
        assert_eq!(err["param"], param, "{body}: {err}");
    };
    refused(
        &|b| b["conditions"][0]["metric"] = json!("likes"),
        "conditions[0].metric",
    );
    refused(
        &|b| b["conditions"][0]["op"] = json!("~"),
        "conditions[0].op",
    );
    refused(
        &|b| b["conditions"][0]["value"] = json!("1.5"),
        "conditions[0].value",
    );
    refused(
        &|b| {
            b["conditions"][0] =
                json!({"metric": "budget", "op": "<", "value": 1, "window_hours": 3})
        },
        "conditions[0].window_hours",
    );
    refused(
        &|b| b["conditions"][0] = json!({"metric": "status", "op": ">", "value": "Active"}),
        "conditions[0].op",
    );
    refused(
        &|b| b["conditions"][0]["window_hours"] = json!(169),
        "conditions[0].window_hours",
    );
    refused(&|b| b["conditions"] = json!([]), "conditions");
    refused(
        &|b| b["action"] = json!({"type": "change_cpm", "percent": 10, "min_cpm": 3, "max_cpm": 2}),
        "action.max_cpm",
    );
    refused(
        &|b| b["action"] = json!({"type": "add_budget", "amount": 5, "max_per_day": 2}),
        "action.max_per_day",
    );
    refused(
        &|b| b["action"] = json!({"type": "set_cpm", "cpm": "1.234"}),
        "action.cpm",
    );
    refused(&|b| b["action"]["colour"] = json!("red"), "action.colour");
    refused(
        &|b| b["scope"] = json!({"ad_ids": [ad, 999]}),
        "scope.ad_ids[1]",
    );
    refused(&|b| b["scope"] = json!({"group_id": 77}), "scope.group_id");
    refused(&|b| b["cooldown_hours"] = json!(200), "cooldown_hours");
    refused(&|b| b["when"] = json!("always"), "when");

    let reader = app.key(user);
    app.write_err(
        "POST",
        "/rules",
        &reader,
        Some(&good()),
        403,
        "READ_ONLY_KEY",
    );
    let rule = create(&app, &key, good());
    let stranger = app.key_with(NewKey {
        user: app.manager().0,
        manage: true,
        ..NewKey::default()
    });
    let path = format!("/rules/{}", rule["id"]);
    app.get_err(&path, &stranger, 404, "RULE_NOT_FOUND");
    app.write_err(
        "PATCH",
        &path,
        &stranger,
        Some(&json!({"enabled": false})),
        404,
        "RULE_NOT_FOUND",
    );
    app.write_err(
        "PATCH",
        &path,
        &reader,
        Some(&json!({"enabled": false})),
        403,
        "READ_ONLY_KEY",
    );
    assert_eq!(
        app.get_ok(&path, &reader)["data"]["enabled"],
        true,
        "a read key reads it"
    );
}

#[test]
fn a_pause_rule_acts_after_the_sync_with_history_webhook_and_log() {
    let app = crate::helpers::spawn_app();
    let rx = Receiver::start(200);
    let (cabinet, key, secret) = setup(&app, &rx);
    let ad = app.active_campaign(cabinet);
    let idle = app.active_campaign(cabinet);
    let rule = create(
        &app,
        &key,
        json!({
            "name": "Stop spenders",
            "account_id": cabinet,
            "scope": {"ad_ids": [ad]},
            "conditions": [{"metric": "spent", "op": ">", "value": "0.1", "window_hours": 1}],
            "action": {"type": "pause"}
        }),
    );
    app.settle();
    let before = rx.received().len();
    app.advance(HOUR);

    assert_eq!(campaign(&app, &key, ad)["status"], "On Hold");
    assert_eq!(campaign(&app, &key, ad)["active"], false);
    assert_eq!(
        campaign(&app, &key, idle)["status"],
        "Active",
        "out of scope"
    );
    let history = adcab::ops::history(&app.services, cabinet, ad)
        .unwrap()
        .events;
    let last = history.last().unwrap();
    assert_eq!(
        (last.source.as_str(), last.action.as_str()),
        ("automation", "rule")
    );
    assert_eq!(last.details.as_ref().unwrap()["rule"], rule["id"]);
    assert_eq!(
        (last.rule_id, last.user_id),
        (rule["id"].as_i64(), None),
        "the rule is kept beside the change, and no person: automation acts on its own"
    );

    let changes: Vec<Value> = rx.received()[before..]
        .iter()
        .filter(|r| r.event() == "status_change")
        .map(|r| r.verified(&secret))
        .collect();
    assert_eq!(changes.len(), 1);
    assert_eq!(
        changes[0]["changes"],
        json!([{"ad_id": ad, "tme_path": "alpha_chan", "old_status": "Active", "new_status": "On Hold", "decline_reason": null}])
    );

    let entries = log(&app, &key, &rule);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["outcome"], "acted");
    assert_eq!(entries[0]["ad_id"], ad);
    assert_eq!(entries[0]["action"], json!({"type": "pause"}));
    let spent: f64 = entries[0]["matched"]["spent (1h)"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(spent > 0.1, "{}", entries[0]);

    app.advance(HOUR);
    assert_eq!(
        log(&app, &key, &rule).len(),
        1,
        "a paused campaign is not paused again"
    );
}

#[test]
fn a_dry_run_records_what_it_would_do_and_changes_nothing() {
    let app = crate::helpers::spawn_app();
    let rx = Receiver::start(200);
    let (cabinet, key, _) = setup(&app, &rx);
    let ad = app.active_campaign(cabinet);
    let mut body = always(cabinet, json!({"type": "pause"}), 24, 1);
    body["dry_run"] = json!(true);
    let rule = create(&app, &key, body);
    app.settle();
    let before = rx.received().len();
    app.advance(3 * HOUR);

    assert_eq!(campaign(&app, &key, ad)["status"], "Active");
    let entries = log(&app, &key, &rule);
    assert_eq!(count(&entries, "dry_run", None), 1);
    assert_eq!(
        count(&entries, "skipped", Some("cooldown")),
        2,
        "its guards still apply"
    );
    let history = adcab::ops::history(&app.services, cabinet, ad)
        .unwrap()
        .events;
    assert!(history.iter().all(|e| e.source != "automation"));
    assert!(
        rx.received()[before..]
            .iter()
            .all(|r| r.event() != "status_change"),
        "no status change"
    );
}

#[test]
fn change_cpm_moves_the_bid_in_steps_and_stops_at_its_floor() {
    let app = crate::helpers::spawn_app();
    let rx = Receiver::start(200);
    let (cabinet, key, _) = setup(&app, &rx);
    let ad = app.active_campaign(cabinet);
    let action = json!({"type": "change_cpm", "percent": "-20", "min_cpm": "1.50", "max_cpm": "3"});
    let rule = create(&app, &key, always(cabinet, action, 0, 24));
    app.advance(HOUR);
    assert_eq!(campaign(&app, &key, ad)["cpm"], "1.60");
    app.advance(2 * HOUR);
    assert_eq!(campaign(&app, &key, ad)["cpm"], "1.50");
    let entries = log(&app, &key, &rule);
    let steps: Vec<Value> = entries.iter().rev().map(|e| e["action"].clone()).collect();
    assert_eq!(
        steps,
        vec![
            json!({"type": "cpm", "from": "2.00", "to": "1.60"}),
            json!({"type": "cpm", "from": "1.60", "to": "1.50"}),
        ],
        "nothing logged once the floor is reached"
    );
}

#[test]
fn guards_hold_cooldown_daily_runs_and_money_caps_over_a_week_long_clock_jump() {
    let app = crate::helpers::spawn_app();
    let rx = Receiver::start(200);
    let user = app.user("agency");
    let cabinet = app.cabinet(user, "euro", "1000");
    let capped = app.cabinet(user, "euro", "1000");
    let (_, key, secret) = app.hook_key(user, &rx.url);
    app.align_hour();
    app.funded(cabinet, 100_000_000);
    app.funded(capped, 100_000_000);
    app.services
        .db
        .write_blocking(|tx| {
            rules::set_cabinet_cap(tx, capped, Some(Money::from_micros(3_000_000)))
        })
        .unwrap();
    let add = json!({"type": "add_budget", "amount": "1", "max_per_day": "2"});
    let topped = create(&app, &key, always(cabinet, add.clone(), 0, 24));
    let first = create(&app, &key, always(capped, add.clone(), 0, 24));
    let second = create(&app, &key, always(capped, add, 0, 24));
    let every_six = create(
        &app,
        &key,
        always(cabinet, json!({"type": "notify", "text": "six"}), 6, 24),
    );
    let thrice = create(
        &app,
        &key,
        always(cabinet, json!({"type": "notify", "text": "three"}), 0, 3),
    );
    // The balance as the sync last read it from the platform.
    let balance = |account: i64| -> f64 {
        let info = app.get_ok("/account/info", &key)["data"].clone();
        let cab = info
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == account)
            .unwrap()
            .clone();
        cab["balance"].as_str().unwrap().parse().unwrap()
    };
    app.settle();
    let before = rx.received().len();

    app.advance(7 * 24 * HOUR);

    let entries = log(&app, &key, &topped);
    assert_eq!(count(&entries, "acted", None), 14, "2.00 a day for 7 days");
    assert_eq!(count(&entries, "skipped", Some("max_per_day")), 168 - 14);
    assert_eq!(
        balance(cabinet),
        1000.0 - 100.0 - 14.0,
        "the cabinet paid the campaign's budget and exactly what was moved"
    );
    let (a, b) = (log(&app, &key, &first), log(&app, &key, &second));
    assert_eq!(
        count(&a, "acted", None) + count(&b, "acted", None),
        21,
        "3.00 a day"
    );
    assert_eq!(count(&b, "skipped", Some("cabinet_daily_cap")), 168 - 7);
    assert_eq!(balance(capped), 1000.0 - 100.0 - 21.0);

    let six = log(&app, &key, &every_six);
    assert_eq!(count(&six, "acted", None), 28, "every sixth hour of 168");
    assert_eq!(count(&six, "skipped", Some("cooldown")), 168 - 28);
    let three = log(&app, &key, &thrice);
    assert_eq!(count(&three, "acted", None), 21, "three a day");
    assert_eq!(count(&three, "skipped", Some("max_runs_per_day")), 168 - 21);

    let alerts: Vec<Value> = rx.received()[before..]
        .iter()
        .filter(|r| r.event() == "alert")
        .map(|r| r.verified(&secret))
        .filter(|a| a["kind"] == "rule")
        .collect();
    assert_eq!(alerts.len(), 28 + 21, "one signed alert per notify");
    assert_eq!(alerts[0]["event"], "alert");
    assert_eq!(alerts[0]["account_id"], cabinet);
    assert!(
        alerts[0]["text"].as_str().unwrap().starts_with("six")
            || alerts[0]["text"].as_str().unwrap().starts_with("three")
    );
}

#[test]
fn a_preview_replays_the_last_week_and_changes_nothing() {
    let app = crate::helpers::spawn_app();
    let rx = Receiver::start(200);
    let (cabinet, key, _) = setup(&app, &rx);
    let ad = app.funded(cabinet, 900_000_000);
    app.advance(7 * 24 * HOUR);
    let mut body = always(cabinet, json!({"type": "notify", "text": "busy"}), 24, 1);
    body["conditions"][0] = json!({"metric": "views", "op": ">", "value": 0, "window_hours": 1});
    body["enabled"] = json!(false);
    let rule = create(&app, &key, body);
    let path = format!("/rules/{}/preview", rule["id"]);
    let preview = app.write_ok("POST", &path, &key, None, 200)["data"].clone();
    assert_eq!(preview["would_act"], 7, "once a day: {preview}");
    assert_eq!(preview["skipped"], 168 - 7);
    let evaluations = preview["evaluations"].as_array().unwrap();
    assert_eq!(evaluations[0]["outcome"], "would_act");
    assert_eq!(evaluations[0]["ad_id"], ad);
    assert_eq!(evaluations[1]["reason"], "cooldown");
    assert!(log(&app, &key, &rule).is_empty(), "a preview logs nothing");
    assert_eq!(campaign(&app, &key, ad)["status"], "Active");

    let pause = create(&app, &key, always(cabinet, json!({"type": "pause"}), 0, 24));
    let path = format!("/rules/{}/preview", pause["id"]);
    let preview = app.write_ok("POST", &path, &key, None, 200)["data"].clone();
    assert_eq!(
        preview["would_act"], 1,
        "a campaign it paused is not paused again"
    );
    assert_eq!(campaign(&app, &key, ad)["status"], "Active");
}

#[test]
fn conditions_read_postbacks_state_and_wider_windows_and_resume_and_set_cpm_act() {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager_with_postbacks();
    app.align_hour();
    let bot = crate::helpers::Camp::channel("Bot", "https://t.me/shop_bot?start=r1");
    let converting = app.approved(cabinet, bot);
    let held = app.active_campaign(cabinet);
    app.write_ok("POST", &format!("/campaigns/{held}/pause"), &key, None, 200);
    for (txid, amount) in [("a", "5"), ("b", "5.50")] {
        let event = json!({"ref": "r1", "event": "purchase", "txid": txid, "amount": amount});
        assert_eq!(
            app.send("POST", "/postback", &key, Some(&event), &[])
                .status,
            200
        );
    }
    let bid = create(
        &app,
        &key,
        json!({
            "name": "Converting: bid up", "account_id": cabinet,
            "conditions": [
                {"metric": "conversions", "op": ">=", "value": 2, "window_hours": 24},
                {"metric": "revenue", "op": ">=", "value": "10.5", "currency": "usd"},
                {"metric": "revenue", "op": ">", "value": 0, "currency": "EUR"}
            ],
            "match": "all",
            "action": {"type": "set_cpm", "cpm": "3.10"}
        }),
    );
    let wake = create(
        &app,
        &key,
        json!({
            "name": "Wake held", "account_id": cabinet,
            "conditions": [
                {"metric": "status", "op": "=", "value": "On Hold"},
                {"metric": "views", "op": ">", "value": 1_000_000, "window_hours": 3}
            ],
            "match": "any",
            "action": {"type": "resume"}
        }),
    );
    let wide = create(
        &app,
        &key,
        json!({
            "name": "Three hours", "account_id": cabinet, "scope": {"ad_ids": [converting]},
            "conditions": [{"metric": "views", "op": ">", "value": 0, "window_hours": 3}],
            "action": {"type": "notify", "text": "busy"}, "cooldown_hours": 0, "max_runs_per_day": 24
        }),
    );
    app.advance(HOUR);

    assert_eq!(
        campaign(&app, &key, converting)["cpm"],
        "2.00",
        "no EUR revenue: all fails"
    );
    app.write_ok(
        "PATCH",
        &format!("/rules/{}", bid["id"]),
        &key,
        Some(&json!({"match": "any"})),
        200,
    );
    app.advance(HOUR);
    assert_eq!(campaign(&app, &key, converting)["cpm"], "3.10");
    let entry = log(&app, &key, &bid)[0].clone();
    assert_eq!(entry["matched"]["conversions (24h)"], "2");
    assert_eq!(entry["matched"]["revenue USD (24h)"], "10.5");
    assert_eq!(entry["matched"]["revenue EUR (24h)"], "0");
    assert_eq!(
        entry["action"],
        json!({"type": "cpm", "from": "2.00", "to": "3.10"})
    );

    assert_eq!(campaign(&app, &key, held)["status"], "Active", "resumed");
    let woke = log(&app, &key, &wake);
    assert_eq!(woke.len(), 1);
    assert_eq!(woke[0]["matched"]["status"], "On Hold");
    assert_eq!(woke[0]["action"], json!({"type": "resume"}));

    app.advance(HOUR);
    let entries = log(&app, &key, &wide);
    let end = adcab::clock::hour_start(app.now());
    let three_hours: i64 = app
        .services
        .db
        .read_blocking(move |c| {
            let from = adcab::clock::iso(end - chrono::Duration::hours(3));
            let rows = adcab::store::stats::hours_of_campaign(
                c,
                cabinet,
                converting,
                &from,
                &adcab::clock::iso(end),
            )?;
            Ok::<_, adcab::store::StoreError>(rows.iter().map(|(_, t)| t.views).sum())
        })
        .unwrap();
    assert_eq!(
        entries[0]["matched"]["views (3h)"],
        three_hours.to_string(),
        "the window sums its three hours"
    );
}

#[test]
fn an_unreadable_rule_is_left_out_and_the_others_still_act() {
    let app = crate::helpers::spawn_app();
    let rx = Receiver::start(200);
    let (cabinet, key, _) = setup(&app, &rx);
    let ad = app.active_campaign(cabinet);
    let broken = create(&app, &key, always(cabinet, json!({"type": "pause"}), 0, 24));
    let good = create(
        &app,
        &key,
        always(
            cabinet,
            json!({"type": "notify", "text": "still here"}),
            0,
            24,
        ),
    );
    app.sql(&format!(
        "UPDATE rules SET action = '{{\"type\":\"explode\"}}' WHERE id = {}",
        broken["id"]
    ));
    let listed = app.get_ok("/rules", &key)["data"].clone();
    assert_eq!(
        listed,
        json!([good]),
        "the list still answers, without the unreadable rule"
    );
    app.advance(HOUR);
    assert_eq!(log(&app, &key, &good).len(), 1, "the readable rule acted");
    assert_eq!(
        campaign(&app, &key, ad)["status"],
        "Active",
        "the unreadable one did nothing"
    );
}

#[test]
fn a_preview_is_kept_until_its_rule_or_the_hour_changes_and_a_new_one_costs_a_write() {
    let app = crate::helpers::spawn_app_with(|c| c.limits.writes_per_minute = 3);
    let rx = Receiver::start(200);
    let (cabinet, manage, _) = setup(&app, &rx);
    let user: i64 = app.scalar("SELECT owner_id FROM cabinets WHERE id = ?1", &[cabinet]);
    let read = app.key_with(NewKey {
        user,
        ..NewKey::default()
    });
    let rule = create(
        &app,
        &manage,
        always(cabinet, json!({"type": "pause"}), 1, 1),
    );
    let path = format!("/rules/{}/preview", rule["id"]);
    let preview = |key: &str| app.call_with_key("POST", &path, key);
    // Budgets are per minute of real time: start well inside one.
    crate::helpers::well_inside_a_minute();
    for n in 0..6 {
        let r = preview(&read);
        assert_eq!(
            r.status, 200,
            "preview {n}: kept, so never refused: {}",
            r.body
        );
    }
    app.write_ok(
        "PATCH",
        &format!("/rules/{}", rule["id"]),
        &manage,
        Some(&json!({"cooldown_hours": 2})),
        200,
    );
    assert_eq!(
        preview(&read).status,
        200,
        "the changed rule: a new preview, the 2nd write"
    );
    app.advance(HOUR);
    assert_eq!(
        preview(&read).status,
        200,
        "a new hour: a new preview, the 3rd write"
    );
    app.write_ok(
        "PATCH",
        &format!("/rules/{}", rule["id"]),
        &manage,
        Some(&json!({"cooldown_hours": 3})),
        200,
    );
    let refused = preview(&read);
    refused.assert_error(429, "RATE_LIMITED");
    assert!(refused.header("retry-after").is_some());
    assert_eq!(
        refused.header("x-ratelimit-limit"),
        Some("3"),
        "the write budget's figures"
    );
    assert_eq!(
        app.call_with_key("GET", &format!("/rules/{}", rule["id"]), &read)
            .status,
        200,
        "reads go on"
    );
}

/// Money automation moved into the cabinet's campaigns, as the simulator recorded it.
fn automation_money(app: &TestApp, cabinet: i64) -> i64 {
    app.scalar(
        "SELECT COALESCE(SUM(moved_micros), 0) FROM sim_ops
         WHERE account_id = ?1 AND token LIKE 'rule:%'",
        &[cabinet],
    )
}

#[test]
fn deleting_and_recreating_rules_neither_resets_the_cabinets_cap_nor_reuses_their_ids() {
    let app = crate::helpers::spawn_app();
    let rx = Receiver::start(200);
    let (cabinet, key, _) = setup(&app, &rx);
    app.funded(cabinet, 100_000_000);
    app.services
        .db
        .write_blocking(|tx| {
            rules::set_cabinet_cap(tx, cabinet, Some(Money::from_micros(15_000_000)))
        })
        .unwrap();
    let add = json!({"type": "add_budget", "amount": "10", "max_per_day": "100"});
    let make_both = || {
        (0..2)
            .map(|_| {
                create(&app, &key, always(cabinet, add.clone(), 0, 24))["id"]
                    .as_i64()
                    .unwrap()
            })
            .collect::<Vec<i64>>()
    };
    let first = make_both();
    app.advance(HOUR);
    assert_eq!(
        automation_money(&app, cabinet),
        10_000_000,
        "one rule's 10, the cap is 15"
    );
    for id in &first {
        app.write_ok("DELETE", &format!("/rules/{id}"), &key, None, 200);
    }
    let again = make_both();
    assert!(
        again.iter().all(|id| *id > *first.iter().max().unwrap()),
        "new ids: {first:?} then {again:?}"
    );
    app.advance(2 * HOUR);
    assert_eq!(
        automation_money(&app, cabinet),
        10_000_000,
        "the deleted rules' 10 still counts: another 10 would pass 15"
    );
    let held: i64 = app.scalar(
        "SELECT COUNT(*) FROM rule_log WHERE account_id = ?1 AND reason = 'cabinet_daily_cap'",
        &[cabinet],
    );
    assert!(held >= 4, "both new rules held back in both hours: {held}");
}

#[test]
fn many_notify_rules_over_many_campaigns_make_one_alert_per_rule_and_run_within_the_hours_cap() {
    let app = crate::helpers::spawn_app_with(|c| c.notify.alerts_per_cabinet_hour = 5);
    let rx = Receiver::start(200);
    let (cabinet, key, secret) = setup(&app, &rx);
    let ads: Vec<i64> = (0..40).map(|_| app.active_campaign(cabinet)).collect();
    for n in 0..8 {
        create(
            &app,
            &key,
            always(
                cabinet,
                json!({"type": "notify", "text": format!("notice {n}")}),
                0,
                24,
            ),
        );
    }
    app.settle();
    let before = rx.received().len();
    app.advance(HOUR);
    app.settle();
    let alerts: Vec<Value> = rx.received()[before..]
        .iter()
        .filter(|r| r.event() == "alert")
        .map(|r| r.verified(&secret))
        .collect();
    let rule_alerts: Vec<&Value> = alerts.iter().filter(|a| a["kind"] == "rule").collect();
    assert_eq!(rule_alerts.len(), 5, "8 rules' notices, 5 sent an hour");
    let text = rule_alerts[0]["text"].as_str().unwrap();
    assert!(
        text.contains("40 campaigns of Cabinet") && text.contains("and 30 more"),
        "one notice names the first campaigns and counts the rest: {text}"
    );
    assert!(text.contains(&format!("{} “Running”", ads[0])), "{text}");
    let held: Vec<&Value> = alerts
        .iter()
        .filter(|a| a["kind"] == "alerts_held")
        .collect();
    assert_eq!(held.len(), 1, "{alerts:?}");
    assert!(
        held[0]["text"]
            .as_str()
            .unwrap()
            .contains("3 more alerts of this hour were held back"),
        "{}",
        held[0]["text"]
    );
    let stored: i64 = app.scalar(
        "SELECT COUNT(*) FROM alerts WHERE account_id = ?1",
        &[cabinet],
    );
    assert_eq!(stored, 6, "5 notices and the note, not 320 alerts");
    let logged: i64 = app.scalar(
        "SELECT COUNT(*) FROM rule_log WHERE account_id = ?1 AND outcome = 'acted'",
        &[cabinet],
    );
    assert_eq!(
        logged,
        8 * 40,
        "each campaign's notice is still in its rule's log"
    );
}
