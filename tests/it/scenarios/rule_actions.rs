//! The rule actions `duplicate`, `set_daily_budget` and `webhook`, written once and run on both
//! platforms: each acts after the hourly sync, once; a preview and a dry run change nothing;
//! a copy's budget counts against the rule's money cap.

use serde_json::{json, Value};

use super::{hours, World};
use crate::helpers::Receiver;

/// A rule of the world's cabinet over `scope` whose one condition holds on every funded
/// campaign (budget > 0), acting with `action`, once a day per campaign.
fn rule(w: &World, scope: Value, action: Value, dry_run: bool) -> Value {
    let body = json!({
        "name": format!("{} rule", action["type"].as_str().unwrap()),
        "account_id": w.cabinet,
        "scope": scope,
        "conditions": [{"metric": "budget", "op": ">", "value": 0}],
        "action": action,
        "cooldown_hours": 168,
        "max_runs_per_day": 1,
        "dry_run": dry_run,
    });
    w.app.write_ok("POST", "/rules", &w.key, Some(&body), 200)["data"].clone()
}

fn log(w: &World, rule: &Value) -> Vec<Value> {
    let path = format!("/rules/{}/log?limit=500", rule["id"]);
    w.app.get_ok(&path, &w.key)["data"]
        .as_array()
        .unwrap()
        .clone()
}

fn with_outcome(entries: &[Value], outcome: &str) -> Vec<Value> {
    entries
        .iter()
        .filter(|e| e["outcome"] == outcome)
        .cloned()
        .collect()
}

fn balance(w: &World) -> f64 {
    w.balance().parse().unwrap()
}

/// A hook key of the cabinet's owner whose webhooks go to a new receiver: (receiver, secret).
fn hooked(w: &World) -> (Receiver, String) {
    let cabinet = w.cabinet;
    let owner = w
        .app
        .services
        .db
        .read_blocking(|c| adcab::store::cabinets::get(c, cabinet))
        .unwrap()
        .unwrap()
        .owner_id;
    let rx = Receiver::start(200);
    let (_, _, secret) = w.app.hook_key(owner, &rx.url);
    (rx, secret)
}

on_both!(
    a_duplicate_rule_copies_once_with_its_bid_and_budget_and_never_copies_its_copy,
    a_daily_budget_rule_sets_the_limit_once,
    a_webhook_rule_sends_one_signed_event_per_run_naming_every_campaign,
    a_preview_and_a_dry_run_of_the_new_actions_change_nothing,
);

fn a_duplicate_rule_copies_once_with_its_bid_and_budget_and_never_copies_its_copy(w: World) {
    let ad = w.delivered();
    let copy_rule = rule(
        &w,
        json!({}),
        json!({"type": "duplicate", "cpm": "6", "budget": "7"}),
        false,
    );
    assert_eq!(
        copy_rule["action"],
        json!({"type": "duplicate", "cpm": "6.00", "budget": "7.00", "max_per_day": null})
    );
    let before = balance(&w);
    hours(&w, 1);
    w.app.run_tasks();

    let entries = log(&w, &copy_rule);
    let acted = with_outcome(&entries, "acted");
    assert_eq!(acted.len(), 1, "{entries:?}");
    assert_eq!(acted[0]["ad_id"], ad);
    assert_eq!(acted[0]["action"]["type"], "duplicate");
    assert_eq!(acted[0]["action"]["budget"], "7.00");
    assert!(acted[0]["action"]["task_id"].is_i64(), "{}", acted[0]);
    let task = format!("/tasks/{}", acted[0]["action"]["task_id"]);
    let task = w.app.get_ok(&task, &w.key)["data"].clone();
    assert_eq!(task["status"], "completed", "{task}");
    let copies: Vec<i64> = serde_json::from_value(task["ad_ids"].clone()).unwrap();
    assert_eq!(copies.len(), 1);
    let copy = w.campaign(copies[0]);
    assert_eq!(
        (copy["cpm"].as_str(), copy["budget"].as_str()),
        (Some("6.00"), Some("7.00"))
    );
    assert_eq!(copy["title"], w.campaign(ad)["title"]);
    assert!(
        (before - balance(&w) - 7.0).abs() < 1e-9,
        "the copy's budget came from the balance: {before} then {}",
        w.balance()
    );

    // The copy is funded and in scope, but the rule made it: it is not copied; the original
    // waits out its cooldown.
    w.approve(copies[0]);
    hours(&w, 1);
    w.app.run_tasks();
    assert_eq!(w.ads().len(), 2, "no copy of the copy");
    assert_eq!(with_outcome(&log(&w, &copy_rule), "acted").len(), 1);
}

fn a_daily_budget_rule_sets_the_limit_once(w: World) {
    let ad = w.delivered();
    let other = w.create(json!({ "cpm": "5", "budget": "50" }));
    let limit = rule(
        &w,
        json!({"ad_ids": [ad]}),
        json!({"type": "set_daily_budget", "amount": "3"}),
        false,
    );
    hours(&w, 1);
    assert_eq!(w.campaign(ad)["daily_budget"], "3.00");
    assert_eq!(
        w.campaign(other)["daily_budget"],
        Value::Null,
        "out of scope"
    );
    let entries = log(&w, &limit);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["outcome"], "acted");
    assert_eq!(
        entries[0]["action"],
        json!({"type": "daily_budget", "from": null, "to": "3.00"})
    );
    let history = adcab::ops::history(&w.app.services, w.cabinet, ad)
        .unwrap()
        .events;
    let last = history.iter().rev().find(|e| e.action == "rule").unwrap();
    assert_eq!(last.source, "automation");

    // Already that limit: nothing planned, nothing logged, even past the cooldown.
    let change = json!({"cooldown_hours": 0, "max_runs_per_day": 24});
    let path = format!("/rules/{}", limit["id"]);
    w.app.write_ok("PATCH", &path, &w.key, Some(&change), 200);
    hours(&w, 1);
    assert_eq!(log(&w, &limit).len(), 1);
}

fn a_webhook_rule_sends_one_signed_event_per_run_naming_every_campaign(w: World) {
    let (rx, secret) = hooked(&w);
    let first = w.delivered();
    let second = w.delivered();
    let fire = rule(&w, json!({}), json!({"type": "webhook"}), false);
    let before = balance(&w);
    hours(&w, 1);

    let fired: Vec<Value> = rx
        .received()
        .iter()
        .filter(|r| r.event() == "rule_fired")
        .map(|r| r.verified(&secret))
        .collect();
    assert_eq!(fired.len(), 1, "one event for the run: {fired:?}");
    let event = &fired[0];
    assert_eq!(event["event"], "rule_fired");
    assert_eq!(event["account_id"], w.cabinet);
    assert_eq!(
        event["rule"],
        json!({"id": fire["id"], "name": "webhook rule"})
    );
    let mut named: Vec<i64> = event["campaigns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["ad_id"].as_i64().unwrap())
        .collect();
    named.sort_unstable();
    let mut both = vec![first, second];
    both.sort_unstable();
    assert_eq!(named, both);
    assert!(
        event["campaigns"][0]["matched"]["budget"].is_string(),
        "{event}"
    );
    let entries = log(&w, &fire);
    assert_eq!(with_outcome(&entries, "acted").len(), 2);
    assert_eq!(event["at"], entries[0]["at"]);
    assert!((before - balance(&w)).abs() < 1e-9, "no money moves");

    hours(&w, 1);
    let again = rx
        .received()
        .iter()
        .filter(|r| r.event() == "rule_fired")
        .count();
    assert_eq!(again, 1, "the cooldown holds both campaigns back: no event");
}

fn a_preview_and_a_dry_run_of_the_new_actions_change_nothing(w: World) {
    let (rx, _) = hooked(&w);
    let ad = w.delivered();
    let actions = [
        json!({"type": "duplicate", "budget": "7"}),
        json!({"type": "set_daily_budget", "amount": "3"}),
        json!({"type": "webhook"}),
    ];
    let rules: Vec<Value> = actions
        .iter()
        .map(|a| rule(&w, json!({"ad_ids": [ad]}), a.clone(), true))
        .collect();
    for (r, kind) in rules.iter().zip(["duplicate", "daily_budget", "webhook"]) {
        let path = format!("/rules/{}/preview", r["id"]);
        let preview = w.app.write_ok("POST", &path, &w.key, None, 200)["data"].clone();
        let acting = preview["evaluations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["outcome"] == "would_act")
            .cloned()
            .unwrap_or_else(|| panic!("{kind} would act: {preview}"));
        assert_eq!(acting["action"]["type"], kind, "{acting}");
    }
    let before = balance(&w);
    hours(&w, 1);
    w.app.run_tasks();
    for r in &rules {
        let entries = log(&w, r);
        assert_eq!(with_outcome(&entries, "dry_run").len(), 1, "{entries:?}");
        assert!(with_outcome(&entries, "acted").is_empty());
    }
    assert_eq!(w.ads(), vec![ad], "no copy");
    assert_eq!(w.campaign(ad)["daily_budget"], Value::Null);
    assert!((before - balance(&w)).abs() < 1e-9);
    assert!(rx.received().iter().all(|r| r.event() != "rule_fired"));
}

/// A copy's budget counts against the rule's `max_per_day`: of two funded campaigns, one is
/// copied and the other held back; the new actions' fields are read with their paths.
#[test]
fn a_copys_budget_counts_against_the_rules_money_cap_and_bad_fields_are_named() {
    let w = World::sim();
    w.delivered();
    w.delivered();
    let capped = rule(
        &w,
        json!({}),
        json!({"type": "duplicate", "budget": "7", "max_per_day": "10"}),
        false,
    );
    hours(&w, 1);
    w.app.run_tasks();
    let entries = log(&w, &capped);
    assert_eq!(with_outcome(&entries, "acted").len(), 1, "{entries:?}");
    let skipped = with_outcome(&entries, "skipped");
    assert_eq!(skipped.len(), 1, "{entries:?}");
    assert_eq!(skipped[0]["reason"], "max_per_day");
    assert_eq!(w.ads().len(), 3);

    for (action, param) in [
        (json!({"type": "set_daily_budget"}), "action.amount"),
        (
            json!({"type": "set_daily_budget", "amount": "0"}),
            "action.amount",
        ),
        (
            json!({"type": "duplicate", "budget": "7", "max_per_day": "5"}),
            "action.max_per_day",
        ),
        (json!({"type": "duplicate", "cpm": "-1"}), "action.cpm"),
        (json!({"type": "webhook", "url": "x"}), "action.url"),
    ] {
        let body = json!({
            "name": "bad",
            "account_id": w.cabinet,
            "conditions": [{"metric": "budget", "op": ">", "value": 0}],
            "action": action,
        });
        let err = w.app.write_err(
            "POST",
            "/rules",
            &w.key,
            Some(&body),
            400,
            "VALIDATION_ERROR",
        );
        assert_eq!(err["param"], param, "{action}: {err}");
    }
}

/// The act of a copy asked twice for the same rule, campaign and run time (a retry, or a run
/// resumed after a crash) queues one copy: the second finds the first's token.
#[test]
fn a_duplicate_asked_again_for_the_same_run_queues_no_second_copy() {
    use adcab::domain::rule::Planned;
    use adcab::ops::rule::act;
    use adcab::ops::Actor;
    use adcab::store::{cabinets, campaigns, rules, StoreError};

    let w = World::sim();
    let ad = w.delivered();
    let copy_rule = rule(
        &w,
        json!({"ad_ids": [ad]}),
        json!({"type": "duplicate", "budget": "7"}),
        false,
    );
    let (id, cabinet) = (copy_rule["id"].as_i64().unwrap(), w.cabinet);
    let s = &w.app.services;
    let (row, cab, states) =
        s.db.read_blocking(|c| {
            Ok::<_, StoreError>((
                rules::get(c, id)?.unwrap(),
                cabinets::get(c, cabinet)?.unwrap(),
                campaigns::rule_states(c, cabinet)?,
            ))
        })
        .unwrap();
    let kind = cab.cabinet_type;
    let actor = Actor::automation(cab);
    let state = states.iter().find(|st| st.ad_id == ad).unwrap();
    let planned = row.spec.action.plan(state, kind).unwrap();
    assert!(matches!(planned, Planned::Duplicate { .. }));
    let at = w.app.now();
    act::perform(s, &actor, &row, state, &planned, &json!({}), at).unwrap();
    let again = act::perform(s, &actor, &row, state, &planned, &json!({}), at);
    assert!(again.is_err(), "the second ask of the same run is refused");
    w.app.run_tasks();
    assert_eq!(w.ads().len(), 2, "one copy");
    assert_eq!(with_outcome(&log(&w, &copy_rule), "acted").len(), 1);
}
