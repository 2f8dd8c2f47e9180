//! Rule conditions as a tree, over the simulator (hours written into the stored history of a
//! paused campaign, so each reading is known) and the Telegram fake: each compare form (a
//! number, another metric × factor, the previous period, N days back), `all` and `any` nested,
//! the new metrics, the refusals with their paths, the flat shape unchanged, a dry run
//! explaining a tree. Time moves through the service clock.

use adcab::domain::agency::CurrencyCode;
use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use serde_json::{json, Value};

use crate::helpers::TestApp;

const HOUR: i64 = 3600;

fn create(app: &TestApp, key: &str, body: Value) -> Value {
    app.write_ok("POST", "/rules", key, Some(&body), 200)["data"].clone()
}

fn log(app: &TestApp, key: &str, rule: &Value) -> Vec<Value> {
    let path = format!("/rules/{}/log?limit=500", rule["id"]);
    app.get_ok(&path, key)["data"].as_array().unwrap().clone()
}

/// A notify rule on `ad` with `conditions` (a tree or a flat list).
fn notify(cabinet: i64, ad: i64, name: &str, conditions: Value) -> Value {
    json!({
        "name": name,
        "account_id": cabinet,
        "scope": {"ad_ids": [ad]},
        "conditions": conditions,
        "action": {"type": "notify", "text": name},
        "cooldown_hours": 0,
        "max_runs_per_day": 24,
    })
}

/// The end of the hour the next `advance(HOUR)` evaluates rules at.
fn next_end(app: &TestApp) -> DateTime<Utc> {
    adcab::clock::hour_start(app.now()) + Duration::hours(1)
}

/// Writes `ad`'s hour `back` hours before `end` into the stored history: views, clicks,
/// actions and spend in micro-euros.
fn put_hours(app: &TestApp, cabinet: i64, ad: i64, end: DateTime<Utc>, hours: &[(i64, i64)]) {
    let rows: Vec<(String, i64)> = hours
        .iter()
        .map(|(back, spent)| (adcab::clock::iso(end - Duration::hours(*back)), *spent))
        .collect();
    app.services
        .db
        .write_blocking(move |tx| {
            for (hour, spent) in &rows {
                tx.execute(
                    "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks,
                        actions, spent_micros) VALUES (?1, ?2, ?3, 1000, 0, 30, 2, ?4)",
                    rusqlite::params![cabinet, ad, hour, spent],
                )?;
            }
            Ok::<_, adcab::store::StoreError>(())
        })
        .unwrap();
}

/// A manager's euro cabinet with one paused campaign (so the simulator adds nothing to its
/// hours) whose history holds, before the next evaluation: 2 EUR in each of the last two
/// hours, 1 EUR in each of the two before, 0.50 EUR in each of two hours two days back; every
/// hour 1000 views, 30 clicks, 2 actions. (cabinet, ad, key)
fn history(app: &TestApp, postbacks: bool) -> (i64, i64, String) {
    let (_, cabinet, key) = if postbacks {
        app.manager_with_postbacks()
    } else {
        app.manager()
    };
    app.align_hour();
    let bot = crate::helpers::Camp::channel("Bot", "https://t.me/shop_bot?start=r1");
    let ad = app.approved(cabinet, bot);
    app.write_ok("POST", &format!("/campaigns/{ad}/pause"), &key, None, 200);
    let end = next_end(app);
    put_hours(
        app,
        cabinet,
        ad,
        end,
        &[
            (1, 2_000_000),
            (2, 2_000_000),
            (3, 1_000_000),
            (4, 1_000_000),
            (49, 500_000),
            (50, 500_000),
        ],
    );
    (cabinet, ad, key)
}

fn spent_2h(op: &str, compare: Value) -> Value {
    json!({"metric": "spent", "op": op, "window_hours": 2, "compare_to": compare})
}

#[test]
fn each_compare_form_acts_on_the_stored_hours_and_an_earlier_period_with_none_does_not() {
    let app = crate::helpers::spawn_app();
    let (cabinet, ad, key) = history(&app, false);
    let rule = |name: &str, cond: Value| {
        create(
            &app,
            &key,
            notify(cabinet, ad, name, json!({"all": [cond]})),
        )
    };
    let value = rule(
        "value",
        json!({"metric": "spent", "op": ">", "value": "3", "window_hours": 2}),
    );
    let metric = rule(
        "metric x factor",
        json!({"metric": "clicks", "op": ">", "window_hours": 2,
               "compare_to": {"metric": "views", "factor": "0.02"}}),
    );
    let previous = rule(
        "previous",
        spent_2h(">", json!({"offset_hours": 2, "factor": "1.5"})),
    );
    let not_enough = rule(
        "previous x 2.5",
        spent_2h(">", json!({"offset_hours": 2, "factor": "2.5"})),
    );
    let days = rule(
        "two days ago",
        spent_2h(">", json!({"offset_hours": 48, "factor": 3})),
    );
    let before = rule("before it ran", spent_2h(">", json!({"offset_hours": 240})));
    app.advance(HOUR);

    let matched = |r: &Value| {
        let entries = log(&app, &key, r);
        assert_eq!(entries.len(), 1, "{}: {entries:?}", r["name"]);
        assert_eq!(entries[0]["outcome"], "acted");
        entries[0]["matched"].clone()
    };
    assert_eq!(matched(&value), json!({"spent (2h)": "4"}));
    assert_eq!(
        matched(&metric),
        json!({"clicks (2h)": "60", "0.02 × views (2h)": "40"})
    );
    assert_eq!(
        matched(&previous),
        json!({"spent (2h)": "4", "1.5 × spent (2h, 2h earlier)": "3"})
    );
    assert_eq!(
        matched(&days),
        json!({"spent (2h)": "4", "3 × spent (2h, 48h earlier)": "3"})
    );
    assert!(log(&app, &key, &not_enough).is_empty(), "4 > 5 fails");
    assert!(
        log(&app, &key, &before).is_empty(),
        "no hour stored 240 hours back: no value, so false"
    );
}

#[test]
fn all_and_any_nested_decide_together_and_a_missing_reading_is_logged_as_null() {
    let app = crate::helpers::spawn_app();
    let (cabinet, ad, key) = history(&app, false);
    let spent =
        |op: &str, v: &str| json!({"metric": "spent", "op": op, "value": v, "window_hours": 2});
    let holds = create(
        &app,
        &key,
        notify(
            cabinet,
            ad,
            "holds",
            json!({"all": [
                spent(">", "3"),
                {"any": [
                    spent("<", "1"),
                    {"all": [
                        {"metric": "ctr", "op": ">=", "value": "3", "window_hours": 2},
                        spent_2h(">", json!({"offset_hours": 240}))
                    ]},
                    {"metric": "actions", "op": "=", "value": 4, "window_hours": 2}
                ]}
            ]}),
        ),
    );
    let fails = create(
        &app,
        &key,
        notify(
            cabinet,
            ad,
            "fails",
            json!({"all": [
                spent(">", "3"),
                {"any": [spent("<", "1"), {"metric": "actions", "op": ">", "value": 4, "window_hours": 2}]}
            ]}),
        ),
    );
    let any_top = create(
        &app,
        &key,
        notify(
            cabinet,
            ad,
            "any",
            json!({"any": [spent("<", "1"), {"all": [spent(">", "3"), spent("<", "5")]}]}),
        ),
    );
    app.advance(HOUR);

    let entries = log(&app, &key, &holds);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(
        entries[0]["matched"],
        json!({
            "spent (2h)": "4",
            "ctr (2h)": "3",
            "spent (2h, 240h earlier)": null,
            "actions (2h)": "4"
        }),
        "every reading of the tree, the one with no value as null"
    );
    assert!(log(&app, &key, &fails).is_empty());
    assert_eq!(log(&app, &key, &any_top).len(), 1);
}

#[test]
fn the_new_metrics_read_daily_budget_budget_left_roas_and_profit_in_the_cabinets_currency() {
    let app = crate::helpers::spawn_app();
    let (cabinet, ad, key) = history(&app, true);
    let patched = app.send(
        "PATCH",
        &format!("/campaigns/{ad}"),
        &key,
        Some(&json!({"daily_budget": "5"})),
        &[],
    );
    assert_eq!(patched.status, 200, "{:?}", patched.body);
    for (txid, amount) in [("a", "5"), ("b", "5.50")] {
        let event = json!({"ref": "r1", "event": "purchase", "txid": txid, "amount": amount});
        assert_eq!(
            app.send("POST", "/postback", &key, Some(&event), &[])
                .status,
            200
        );
    }
    let budget: Decimal = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"]["budget"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let condition = |metric: &str, op: &str, value: &str| json!({"metric": metric, "op": op, "value": value, "window_hours": 2});
    let tree = json!({"all": [
        {"metric": "daily_budget", "op": "=", "value": "5"},
        condition("budget_left_hours", ">", "0"),
        condition("roas", ">", "2"),
        condition("profit", ">", "5")
    ]});
    let money = create(&app, &key, notify(cabinet, ad, "money", tree));
    // Spend at least half the daily budget over the last two hours.
    let half = create(
        &app,
        &key,
        notify(
            cabinet,
            ad,
            "half the daily budget",
            json!({"all": [spent_2h(">=", json!({"metric": "daily_budget", "factor": "0.5"}))]}),
        ),
    );
    let no_rate = create(
        &app,
        &key,
        notify(
            cabinet,
            ad,
            "no rate",
            json!({"any": [condition("roas", ">", "0"), condition("profit", "<", "1000000")]}),
        ),
    );
    app.advance(HOUR);
    assert!(
        log(&app, &key, &no_rate).is_empty(),
        "USD revenue and no kept rate into EUR: no ROAS, no profit, never guessed"
    );

    let day = app.now().date_naive();
    app.services
        .db
        .write_blocking(move |tx| {
            let rate = adcab::store::rates::Rate {
                base: CurrencyCode::parse("USD").unwrap(),
                quote: CurrencyCode::parse("EUR").unwrap(),
                day,
                rate: "0.9".parse().unwrap(),
                source: "manual".into(),
            };
            adcab::store::rates::set(tx, &rate, "t")
        })
        .unwrap();
    // The next hour's window still holds the postbacks and the last two hours' spend: the
    // newest hour has no spend (the campaign is paused), so write it.
    put_hours(&app, cabinet, ad, next_end(&app), &[(1, 2_000_000)]);
    app.advance(HOUR);

    let entries = log(&app, &key, &money);
    assert_eq!(entries.len(), 1, "{entries:?}");
    let m = &entries[0]["matched"];
    assert_eq!(m["daily_budget"], "5");
    let left = (budget / Decimal::TWO).round_dp(2).normalize().to_string();
    assert_eq!(m["budget_left_hours (2h)"], left, "budget ÷ 2 EUR an hour");
    assert_eq!(
        m["roas (2h)"], "2.36",
        "10.50 USD × 0.9 = 9.45 EUR over 4 EUR"
    );
    assert_eq!(m["profit (2h)"], "5.45");
    assert_eq!(
        log(&app, &key, &half)[0]["matched"],
        json!({"spent (2h)": "4", "0.5 × daily_budget": "2.5"})
    );
    assert!(
        !log(&app, &key, &no_rate).is_empty(),
        "read once a rate is kept"
    );
}

#[test]
fn a_dry_run_explains_a_tree_in_its_log_and_changes_nothing() {
    let app = crate::helpers::spawn_app();
    let (cabinet, ad, key) = history(&app, false);
    let mut body = notify(
        cabinet,
        ad,
        "dry",
        json!({"all": [
            spent_2h(">", json!({"offset_hours": 2, "factor": "1.5"})),
            {"any": [{"metric": "cpa", "op": ">", "value": "0.5", "window_hours": 2}]}
        ]}),
    );
    body["action"] = json!({"type": "pause"});
    body["dry_run"] = json!(true);
    app.write_ok("POST", &format!("/campaigns/{ad}/resume"), &key, None, 200);
    let rule = create(&app, &key, body);
    app.advance(HOUR);
    let entries = log(&app, &key, &rule);
    let dry: Vec<&Value> = entries
        .iter()
        .filter(|e| e["outcome"] == "dry_run")
        .collect();
    assert_eq!(dry.len(), 1, "{entries:?}");
    assert_eq!(dry[0]["action"], json!({"type": "pause"}));
    let m = &dry[0]["matched"];
    assert_eq!(m["1.5 × spent (2h, 2h earlier)"], "3", "{m}");
    assert!(m["cpa (2h)"].is_string(), "{m}");
    let c = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    assert_eq!(c["active"], true, "a dry run changes nothing");
}

#[test]
fn a_tree_is_answered_as_sent_and_a_flat_rule_keeps_its_shape() {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let tree = json!({"any": [
        {"metric": "cpa", "op": ">", "window_hours": 24,
         "compare_to": {"window_hours": 168, "factor": "1.3"}},
        {"all": [
            {"metric": "spent", "op": ">", "value": "1", "window_hours": 24},
            {"metric": "profit", "op": "<", "value": "-5", "window_hours": 24}
        ]}
    ]});
    let rule = create(&app, &key, notify(cabinet, ad, "tree", tree));
    assert_eq!(
        rule["conditions"],
        json!({"any": [
            {"metric": "cpa", "op": ">", "window_hours": 24,
             "compare_to": {"metric": "cpa", "window_hours": 168, "offset_hours": 0, "factor": "1.3"}},
            {"all": [
                {"metric": "spent", "op": ">", "value": "1", "window_hours": 24},
                {"metric": "profit", "op": "<", "value": "-5", "window_hours": 24}
            ]}
        ]}),
        "the tree as sent, each comparison with its defaults said"
    );
    assert_eq!(rule["match"], "any", "the outer group's word");
    let got = app.get_ok(&format!("/rules/{}", rule["id"]), &key)["data"].clone();
    assert_eq!(got, rule);
    let renamed = app.write_ok(
        "PATCH",
        &format!("/rules/{}", rule["id"]),
        &key,
        Some(&json!({"name": "renamed"})),
        200,
    )["data"]
        .clone();
    assert_eq!(
        renamed["conditions"], rule["conditions"],
        "kept by a change"
    );

    let flat = json!([{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}]);
    let mut body = notify(cabinet, ad, "flat", flat.clone());
    body["match"] = json!("any");
    let old = create(&app, &key, body);
    assert_eq!(old["match"], "any");
    assert_eq!(
        old["conditions"],
        json!([{"metric": "views", "op": ">=", "value": "0", "window_hours": 1}])
    );
    let id = old["id"].as_i64().unwrap();
    let stored: String = app
        .services
        .db
        .read_blocking(move |c| {
            Ok::<_, adcab::store::StoreError>(c.query_row(
                "SELECT conditions FROM rules WHERE id = ?1",
                [id],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(
        stored,
        r#"[{"metric":"views","op":">=","value":{"number":"0"},"window_hours":1,"currency":null}]"#,
        "stored as flat rules always were"
    );
    let patched = app.write_ok(
        "PATCH",
        &format!("/rules/{id}"),
        &key,
        Some(&json!({"match": "all"})),
        200,
    )["data"]
        .clone();
    assert_eq!(patched["match"], "all");
    assert_eq!(patched["conditions"], old["conditions"]);
    let err = app.write_err(
        "PATCH",
        &format!("/rules/{}", rule["id"]),
        &key,
        Some(&json!({"match": "all"})),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "match", "a tree joins in its groups: {err}");
}

#[test]
fn a_bad_tree_is_refused_naming_the_path() {
    let app = crate::helpers::spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let c = || json!({"metric": "spent", "op": ">", "value": "1", "window_hours": 24});
    let refused = |conditions: Value, param: &str| {
        let body = notify(cabinet, ad, "bad", conditions);
        let err = app.write_err("POST", "/rules", &key, Some(&body), 400, "VALIDATION_ERROR");
        assert_eq!(err["param"], param, "{body}: {err}");
        err
    };
    let deep = refused(
        json!({"all": [c(), {"any": [{"all": [{"any": [c()]}]}]}]}),
        "conditions.all[1].any[0].all[0].any",
    );
    assert!(deep.to_string().contains("3 levels"), "{deep}");
    let many: Vec<Value> = (0..21).map(|_| c()).collect();
    refused(
        json!({"all": [{"any": many[..10]}, {"all": many[10..]}]}),
        "conditions.all[1].all[10]",
    );
    let factor = |f: Value| {
        json!({"all": [c(), {"any": [
            {"metric": "cpa", "op": ">", "compare_to": {"window_hours": 168, "factor": f}}
        ]}]})
    };
    for bad in [
        json!(0),
        json!("-1"),
        json!(101),
        json!("1.00001"),
        json!("x"),
    ] {
        refused(factor(bad), "conditions.all[1].any[0].compare_to.factor");
    }
    refused(
        json!({"all": [{"metric": "spent", "op": ">", "value": 1,
                        "compare_to": {"offset_hours": 24}}]}),
        "conditions.all[0].compare_to",
    );
    refused(
        json!({"all": [{"metric": "spent", "op": ">", "window_hours": 168,
                        "compare_to": {"offset_hours": 600}}]}),
        "conditions.all[0].compare_to.offset_hours",
    );
    refused(
        json!({"all": [{"metric": "spent", "op": ">", "compare_to": {"offset_hours": 721}}]}),
        "conditions.all[0].compare_to.offset_hours",
    );
    refused(
        json!({"all": [{"metric": "status", "op": "=", "compare_to": {}}]}),
        "conditions.all[0].compare_to",
    );
    refused(
        json!({"all": [{"metric": "spent", "op": ">",
                        "compare_to": {"metric": "daily_budget", "offset_hours": 24}}]}),
        "conditions.all[0].compare_to.offset_hours",
    );
    refused(
        json!({"all": [{"metric": "spent", "op": ">", "compare_to": {"factr": 2}}]}),
        "conditions.all[0].compare_to.factr",
    );
    refused(json!({"all": []}), "conditions.all");
    refused(json!({"all": [c()], "any": [c()]}), "conditions");
    refused(json!({"most": [c()]}), "conditions");
    let mut with_match = notify(cabinet, ad, "m", json!({"all": [c()]}));
    with_match["match"] = json!("any");
    let err = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&with_match),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "match");
    // The flat list keeps its own bound and paths.
    let eleven: Vec<Value> = (0..11).map(|_| c()).collect();
    refused(json!(eleven), "conditions");
    refused(
        json!([c(), {"metric": "roas", "op": ">", "value": "-1"}]),
        "conditions[1].value",
    );
}

#[test]
fn on_the_telegram_fake_a_spend_jump_over_the_previous_hour_pauses_the_campaign() {
    let tg = crate::telegram::connected(vec![crate::telegram::SeedAd::channel(
        "Jumpy",
        "@jumpy_chan",
    )]);
    let ad = tg.first_ad();
    let rule = create(
        &tg.app,
        &tg.key,
        json!({
            "name": "Spend jumped", "account_id": tg.cabinet,
            "conditions": {"any": [
                {"metric": "spent", "op": ">", "window_hours": 1,
                 "compare_to": {"offset_hours": 1, "factor": 2}},
                {"metric": "views", "op": ">", "value": 1_000_000_000, "window_hours": 1}
            ]},
            "action": {"type": "pause"}
        }),
    );
    tg.fake.deliver(tg.id(), ad, 1000);
    tg.advance(HOUR);
    assert_eq!(tg.campaign(ad)["active"], true, "no hour before: no value");
    tg.fake.deliver(tg.id(), ad, 1000);
    tg.advance(HOUR);
    assert_eq!(
        tg.campaign(ad)["active"],
        true,
        "1 EUR is not over 2 × 1 EUR"
    );
    tg.fake.deliver(tg.id(), ad, 3000);
    tg.advance(HOUR);
    let entries = log(&tg.app, &tg.key, &rule);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["outcome"], "acted", "{entries:?}");
    assert_eq!(
        entries[0]["matched"],
        json!({
            "spent (1h)": "3",
            "2 × spent (1h, 1h earlier)": "2",
            "views (1h)": "3000"
        })
    );
    assert_eq!(tg.campaign(ad)["active"], false);
    let on_platform = tg.fake.ad(tg.id(), ad).unwrap();
    assert_eq!(on_platform["status"], "on_hold", "{on_platform}");
}
