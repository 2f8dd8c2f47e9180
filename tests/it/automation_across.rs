//! Rules across cabinets (`scope.account_ids`): one rule acts on each covered cabinet's
//! campaigns at the hourly run; its `max_per_day` holds per cabinet and `max_total_per_day` over
//! all of them; cabinets of another owner, and cabinets the caller may not write to, are refused
//! by their place in the list; the rule is listed under each cabinet, and read, changed and
//! deleted only by a caller reaching all of them.

use crate::helpers::TestApp;
use adcab::ops::{self, NewKey, TeamAccess};
use serde_json::{json, Value};

const HOUR: i64 = 3600;

/// An owner with two euro cabinets (1000 each) and a key reaching both, the clock aligned to
/// the hour: (owner, first, second, key).
fn two_cabinets(app: &TestApp) -> (i64, i64, i64, String) {
    let user = app.user("pro");
    let first = app.cabinet(user, "euro", "1000");
    let second = app.cabinet(user, "euro", "1000");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    app.align_hour();
    (user, first, second, key)
}

/// A rule over `cabinets` whose one condition always holds, acting with `action`.
fn across(cabinets: &[i64], action: Value) -> Value {
    json!({
        "name": "agency-wide",
        "scope": {"account_ids": cabinets},
        "conditions": [{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}],
        "action": action,
        "cooldown_hours": 0,
        "max_runs_per_day": 24,
    })
}

fn log(app: &TestApp, key: &str, rule: &Value) -> Vec<Value> {
    let path = format!("/rules/{}/log?limit=500", rule["id"]);
    app.get_ok(&path, key)["data"].as_array().unwrap().clone()
}

fn listed(app: &TestApp, key: &str, cabinet: i64) -> Vec<i64> {
    let list = app.get_ok(&format!("/rules?account_id={cabinet}"), key)["data"].clone();
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect()
}

#[test]
fn a_rule_over_two_cabinets_acts_in_both_and_is_listed_read_and_deleted_from_either() {
    let app = crate::helpers::spawn_app();
    let (owner, first, second, key) = two_cabinets(&app);
    let here = app.active_campaign(first);
    let there = app.active_campaign(second);
    let rule = app.write_ok(
        "POST",
        "/rules",
        &key,
        Some(&across(&[first, second], json!({"type": "pause"}))),
        200,
    )["data"]
        .clone();
    assert_eq!(rule["account_id"], first, "the first listed is its home");
    assert_eq!(rule["scope"], json!({"account_ids": [first, second]}));
    assert_eq!(rule["max_total_per_day"], Value::Null);
    let id = rule["id"].as_i64().unwrap();
    assert_eq!(listed(&app, &key, first), vec![id]);
    assert_eq!(listed(&app, &key, second), vec![id]);

    app.settle();
    app.advance(HOUR);
    for (cabinet, ad) in [(first, here), (second, there)] {
        let path = format!("/campaigns/{ad}?account_id={cabinet}");
        assert_eq!(
            app.get_ok(&path, &key)["data"]["active"],
            false,
            "{cabinet}"
        );
    }
    let entries = log(&app, &key, &rule);
    let mut acted: Vec<i64> = entries
        .iter()
        .filter(|e| e["outcome"] == "acted")
        .map(|e| e["ad_id"].as_i64().unwrap())
        .collect();
    acted.sort_unstable();
    let mut both = vec![here, there];
    both.sort_unstable();
    assert_eq!(acted, both, "{entries:?}");
    let history = ops::history(&app.services, second, there).unwrap().events;
    assert_eq!(history.last().unwrap().rule_id, Some(id));

    // A key of the same owner that reaches only one of its cabinets neither sees nor reads it.
    let narrow = app.key_with(NewKey {
        user: owner,
        manage: true,
        cabinets: Some(vec![second]),
        ..NewKey::default()
    });
    assert!(listed(&app, &narrow, second).is_empty());
    app.get_err(&format!("/rules/{id}"), &narrow, 404, "RULE_NOT_FOUND");
    app.write_err(
        "DELETE",
        &format!("/rules/{id}"),
        &narrow,
        None,
        404,
        "RULE_NOT_FOUND",
    );

    app.write_ok("DELETE", &format!("/rules/{id}"), &key, None, 200);
    assert!(listed(&app, &key, first).is_empty());
    assert!(listed(&app, &key, second).is_empty());
}

#[test]
fn a_change_may_widen_the_list_but_keeps_its_home_first() {
    let app = crate::helpers::spawn_app();
    let (owner, first, second, key) = two_cabinets(&app);
    let third = app.cabinet(owner, "euro", "1000");
    let rule = app.write_ok(
        "POST",
        "/rules",
        &key,
        Some(&across(&[first, second], json!({"type": "pause"}))),
        200,
    )["data"]
        .clone();
    let path = format!("/rules/{}", rule["id"]);
    let wider = json!({"scope": {"account_ids": [first, second, third]}});
    let changed = app.write_ok("PATCH", &path, &key, Some(&wider), 200)["data"].clone();
    assert_eq!(
        changed["scope"],
        json!({"account_ids": [first, second, third]})
    );
    assert_eq!(
        listed(&app, &key, third),
        vec![rule["id"].as_i64().unwrap()]
    );

    let moved = json!({"scope": {"account_ids": [second, first]}});
    let err = app.write_err("PATCH", &path, &key, Some(&moved), 400, "VALIDATION_ERROR");
    assert_eq!(err["param"], "scope.account_ids[0]", "{err}");

    let one = json!({"scope": {}});
    let single = app.write_ok("PATCH", &path, &key, Some(&one), 200)["data"].clone();
    assert_eq!(single["scope"], json!({}));
    assert_eq!(single["account_id"], first);
    assert!(
        listed(&app, &key, third).is_empty(),
        "back to its home cabinet only"
    );
}

#[test]
fn the_rules_cap_holds_per_cabinet_and_its_total_cap_over_all_of_them() {
    let app = crate::helpers::spawn_app();
    let (_, first, second, key) = two_cabinets(&app);
    app.active_campaign(first);
    app.active_campaign(second);
    let mut body = across(
        &[first, second],
        json!({"type": "add_budget", "amount": "1", "max_per_day": "1"}),
    );
    body["max_total_per_day"] = json!("1.5");
    let rule = app.write_ok("POST", "/rules", &key, Some(&body), 200)["data"].clone();
    assert_eq!(rule["max_total_per_day"], "1.50");
    app.settle();

    let outcomes = |app: &TestApp| {
        let mut got: Vec<(i64, String, String)> = log(app, &key, &rule)
            .iter()
            .map(|e| {
                (
                    e["id"].as_i64().unwrap(),
                    e["outcome"].as_str().unwrap().to_string(),
                    e["reason"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        got.sort();
        got.into_iter().map(|(_, o, r)| (o, r)).collect::<Vec<_>>()
    };
    app.advance(HOUR);
    let first_run = outcomes(&app);
    assert_eq!(
        first_run,
        vec![
            ("acted".to_string(), String::new()),
            ("skipped".to_string(), "max_total_per_day".to_string())
        ],
        "one cabinet gets 1; a second 1 would pass 1.5 over both"
    );

    let path = format!("/rules/{}", rule["id"]);
    let raised = json!({"max_total_per_day": "10"});
    app.write_ok("PATCH", &path, &key, Some(&raised), 200);
    app.advance(HOUR);
    let second_run = outcomes(&app)[2..].to_vec();
    let mut reasons: Vec<String> = second_run.iter().map(|(o, r)| format!("{o}:{r}")).collect();
    reasons.sort();
    assert_eq!(
        reasons,
        vec!["acted:", "skipped:max_per_day"],
        "the cabinet already given 1 is at its own cap; the other now gets its 1"
    );
}

#[test]
fn cabinets_of_another_owner_or_out_of_the_keys_reach_are_refused_by_their_place() {
    let app = crate::helpers::spawn_app();
    let (owner, first, second, key) = two_cabinets(&app);
    let pause = json!({"type": "pause"});

    // A manager of an agency's cabinet who also owns one: both writable, two owners.
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "100");
    ops::member_add(&app.services, agency, owner, shared, TeamAccess::Manager).unwrap();
    let err = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&across(&[first, shared], pause.clone())),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "scope.account_ids[1]", "{err}");

    let narrow = app.key_with(NewKey {
        user: owner,
        manage: true,
        cabinets: Some(vec![first]),
        ..NewKey::default()
    });
    let err = app.write_err(
        "POST",
        "/rules",
        &narrow,
        Some(&across(&[first, second], pause.clone())),
        404,
        "ACCOUNT_NOT_FOUND",
    );
    assert_eq!(err["param"], "scope.account_ids[1]", "{err}");

    let mut with_home = across(&[first, second], pause.clone());
    with_home["account_id"] = json!(first);
    let err = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&with_home),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "account_id");
    let err = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&across(&[first], pause.clone())),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "scope.account_ids");
    let err = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&across(&[first, first], pause.clone())),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "scope.account_ids[1]");
    let mut single = json!({
        "name": "one cabinet",
        "account_id": first,
        "conditions": [{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}],
        "action": pause,
    });
    single["max_total_per_day"] = json!("5");
    let err = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&single),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "max_total_per_day");

    // Cabinets of different currencies: no amounts, no money compared with a number.
    let stars = app.cabinet(owner, "stars", "1000");
    let err = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&across(
            &[first, stars],
            json!({"type": "set_cpm", "cpm": "2"}),
        )),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "action");
    let mut spent = across(&[first, stars], json!({"type": "pause"}));
    spent["conditions"] = json!([{"metric": "spent", "op": ">", "value": 5, "window_hours": 1}]);
    let err = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&spent),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "conditions");
    app.write_ok(
        "POST",
        "/rules",
        &key,
        Some(&across(&[first, stars], json!({"type": "pause"}))),
        200,
    );
}

#[test]
fn money_compared_with_a_number_in_a_named_currency_converts_each_cabinets_figure_at_the_kept_rate()
{
    let app = crate::helpers::spawn_app();
    let user = app.user("pro");
    let euro = app.cabinet(user, "euro", "1000");
    let ton = app.cabinet(user, "ton", "1000");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    app.align_hour();
    let in_euro = app.active_campaign(euro);
    let in_ton = app.active_campaign(ton);
    app.settle();
    app.advance(HOUR);
    let spent = |cabinet: i64, ad: i64| -> f64 {
        let path = format!("/campaigns/{ad}?account_id={cabinet}");
        let data = app.get_ok(&path, &key)["data"].clone();
        data["spent"].as_str().unwrap().parse().unwrap()
    };
    let (euro_hour, ton_hour) = (spent(euro, in_euro), spent(ton, in_ton));
    assert!(euro_hour > 0.0 && ton_hour > 0.0, "{euro_hour} {ton_hour}");
    // One TON is worth 1,000 EUR here: the TON campaign's hour is far over a threshold ten
    // times the euro campaign's hour, which the euro campaign does not reach.
    let code = |c: &str| c.parse().unwrap();
    ops::rate_set(
        &app.services,
        &code("TON"),
        &code("EUR"),
        "1000".parse().unwrap(),
        None,
    )
    .unwrap();
    let threshold = format!("{:.2}", euro_hour * 10.0 + 1.0);
    assert!(ton_hour * 1000.0 > euro_hour * 10.0 + 1.0);
    let mut body = across(&[euro, ton], json!({"type": "pause"}));
    body["conditions"] = json!([{"metric": "spent", "op": ">", "value": threshold,
        "window_hours": 1, "currency": "EUR"}]);
    let rule = app.write_ok("POST", "/rules", &key, Some(&body), 200)["data"].clone();
    assert_eq!(rule["conditions"][0]["currency"], "EUR");

    app.advance(HOUR);
    let active = |cabinet: i64, ad: i64| {
        let path = format!("/campaigns/{ad}?account_id={cabinet}");
        app.get_ok(&path, &key)["data"]["active"].clone()
    };
    assert_eq!(active(ton, in_ton), false, "over the threshold once in EUR");
    assert_eq!(active(euro, in_euro), true, "under it");
    let entries = log(&app, &key, &rule);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["ad_id"], in_ton);
    let reading: f64 = entries[0]["matched"]["spent EUR (1h)"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(reading > euro_hour * 10.0, "{entries:?}");

    // A currency named on a metric that is not money is refused where it stands.
    let mut views = body.clone();
    views["conditions"][0]["metric"] = json!("views");
    views["conditions"][0]["value"] = json!(10);
    let err = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&views),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "conditions[0].currency", "{err}");
}

#[test]
fn an_approved_proposal_of_a_rule_across_cabinets_keeps_its_cap_over_all_of_them() {
    let app = crate::helpers::spawn_app();
    let (_, first, second, key) = two_cabinets(&app);
    let ads = [app.active_campaign(first), app.active_campaign(second)];
    let mut body = across(
        &[first, second],
        json!({"type": "add_budget", "amount": "5", "max_per_day": "10"}),
    );
    body["max_total_per_day"] = json!("5");
    body["approval"] = json!(true);
    app.write_ok("POST", "/rules", &key, Some(&body), 200);
    app.settle();
    app.advance(HOUR);
    let pending = app.get_ok("/proposals", &key)["data"].clone();
    let ids: Vec<i64> = pending
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "one proposal in each cabinet: {pending}");
    let decide = |id: i64| {
        let path = format!("/proposals/{id}/approve");
        app.write_ok("POST", &path, &key, None, 200)["data"].clone()
    };
    let made = decide(ids[0]);
    assert_eq!(made["state"], "approved", "{made}");
    // The first approval moved the 5 the rule may move over both cabinets in a day.
    let held = decide(ids[1]);
    assert_eq!(held["state"], "failed", "{held}");
    assert!(
        held["outcome"]
            .as_str()
            .unwrap()
            .contains("max_total_per_day"),
        "{held}"
    );
    let budgets: Vec<String> = [(first, ads[0]), (second, ads[1])]
        .iter()
        .map(|(cabinet, ad)| {
            let path = format!("/campaigns/{ad}?account_id={cabinet}");
            app.get_ok(&path, &key)["data"]["budget"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_ne!(
        budgets[0], budgets[1],
        "only one campaign was given 5: {budgets:?}"
    );
}
