//! The rule form's tree of conditions in a real browser, at a phone's width and in Russian:
//! a rule made by the API with nested groups and a comparison opens in the form and saves
//! unchanged; groups are added by the form's own buttons (posted back, no script) and the
//! rule made from them is the tree the rows show.

use serde_json::{json, Value};

use super::webdriver::Chrome;
use super::{root, screenshot, signed_in};
use crate::helpers::{spawn_app, TestApp};

const PHONE: (i64, i64) = (390, 844);

fn rule(app: &TestApp, key: &str, id: &Value) -> Value {
    app.get_ok(&format!("/rules/{id}"), key)["data"].clone()
}

fn fits(chrome: &Chrome, page: &str) {
    let width = chrome.script("return [document.documentElement.scrollWidth, window.innerWidth];");
    assert!(
        width[0].as_i64() <= width[1].as_i64(),
        "{page} is wider than the phone: {width}"
    );
}

/// Clicks the form's visible submit button that saves.
fn save(chrome: &Chrome) {
    chrome
        .find("form#new-rule > button.primary:not([hidden])")
        .click();
}

#[test]
fn a_tree_rule_opens_in_the_form_and_saves_unchanged_and_buttons_build_groups_on_a_phone_in_russian(
) {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let body = json!({
        "name": "Дерево",
        "account_id": cabinet,
        "scope": {"ad_ids": [ad]},
        "conditions": {"all": [
            {"metric": "spent", "op": ">", "value": "5", "window_hours": 24},
            {"any": [
                {"metric": "ctr", "op": "<", "value": "0.8", "window_hours": 12},
                {"metric": "cpa", "op": ">", "window_hours": 24,
                 "compare_to": {"window_hours": 168, "factor": "1.3"}},
                {"all": [
                    {"metric": "status", "op": "=", "value": "Active"},
                    {"metric": "spent", "op": ">", "window_hours": 24,
                     "compare_to": {"metric": "daily_budget", "factor": "0.5"}}
                ]}
            ]}
        ]},
        "action": {"type": "change_cpm", "percent": "-15", "min_cpm": "1", "max_cpm": "3"},
        "cooldown_hours": 6,
        "max_runs_per_day": 2,
        "dry_run": true,
    });
    let made = app.write_ok("POST", "/rules", &key, Some(&body), 200)["data"].clone();
    let id = made["id"].clone();
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));

    let chrome = Chrome::start();
    chrome.set_viewport(PHONE.0, PHONE.1);
    signed_in(&chrome, &app, user);
    chrome.goto(&format!("{}/rules/{id}/edit", root(&app)));
    fits(&chrome, "the edit form");
    assert_eq!(
        chrome
            .find("form#new-rule > button.primary:not([hidden])")
            .text(),
        "Сохранить правило"
    );
    assert_eq!(
        chrome.find_all(".tree-row.depth-3").len(),
        2,
        "the third level"
    );
    assert_eq!(
        chrome.find("input[name=cmp_factor3]").attribute("value"),
        Some("1.3".into())
    );
    screenshot(&chrome, "phone-ru-rule-edit-tree");
    save(&chrome);
    chrome.wait_for("the rules page after saving", |c| {
        c.url()
            .ends_with(&format!("/rules#rule-{id}"))
            .then_some(())
    });
    let saved = rule(&app, &key, &id);
    for field in [
        "name",
        "scope",
        "conditions",
        "action",
        "cooldown_hours",
        "max_runs_per_day",
        "enabled",
        "dry_run",
    ] {
        assert_eq!(saved[field], made[field], "{field} saved unchanged");
    }

    // A new rule: the outer group gets a group of its own by the form's button.
    chrome.goto(&format!("{}/rules", root(&app)));
    chrome.find("button[name=edit][value='group:root']").click();
    chrome.wait_for("the form with a group", |c| {
        c.try_find("select[name=join3]").map(|_| ())
    });
    fits(&chrome, "the form with a group");
    chrome.find("input[name=name]").send_keys("Группы");
    chrome
        .find("select[name=metric0] option[value=spent]")
        .click();
    chrome.find("input[name=value0]").send_keys("5");
    chrome.find("select[name=join3] option[value=any]").click();
    chrome
        .find("select[name=metric4] option[value=ctr]")
        .click();
    chrome.find("select[name=op4] option[value='<']").click();
    chrome.find("input[name=value4]").send_keys("1");
    chrome.find("button[name=edit][value='cond:3']").click();
    chrome.wait_for("a second row in the group", |c| {
        c.try_find("select[name=metric5]").map(|_| ())
    });
    assert_eq!(
        chrome.find("input[name=value4]").attribute("value"),
        Some("1".into()),
        "the rows keep what was typed"
    );
    chrome
        .find("select[name=metric5] option[value=cpa]")
        .click();
    chrome.find("input[name=value5]").send_keys("2");
    screenshot(&chrome, "phone-ru-rule-new-tree");
    save(&chrome);
    chrome.wait_for("the rules page after creating", |c| {
        c.url().contains("/rules#rule-").then_some(())
    });
    let list = app.get_ok("/rules", &key)["data"].clone();
    let grouped = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Группы")
        .expect("the rule made from the rows")
        .clone();
    assert_eq!(
        grouped["conditions"],
        json!({"all": [
            {"metric": "spent", "op": ">", "value": "5", "window_hours": 24},
            {"any": [
                {"metric": "ctr", "op": "<", "value": "1", "window_hours": 24},
                {"metric": "cpa", "op": ">", "value": "2", "window_hours": 24}
            ]}
        ]})
    );
    chrome.quit().expect("the session ends");
}
