//! Tasks and rule logs in a real browser: a task's sentence, opening its outcome per campaign
//! to read a failed campaign's reason, and a rule's log with its folded skips.

use serde_json::json;

use super::webdriver::Chrome;
use super::{root, screenshot, signed_in};
use crate::helpers::{spawn_app, Camp};

#[test]
fn a_tasks_outcomes_open_to_the_failed_campaigns_reason_and_a_rule_log_folds_its_skips() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    app.align_hour();
    let ads: Vec<i64> = ["Winter sale", "Spring sale"]
        .into_iter()
        .map(|title| app.approved(cabinet, Camp::channel(title, "https://t.me/alpha_chan")))
        .collect();
    // 0.80 is under the channel minimum: the platform refuses both.
    let body = json!({ "action": "set_cpm", "cpm": "0.80", "ad_ids": ads });
    let queued = app.write_ok("POST", "/campaigns/bulk", &key, Some(&body), 202)["data"].clone();
    app.run_tasks();
    let task = app.get_ok(&format!("/tasks/{}", queued["id"]), &key)["data"].clone();
    let reason = task["errors"][0]["error"].as_str().unwrap().to_string();
    let rule = json!({
        "name": "Watch", "account_id": cabinet,
        "conditions": [{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}],
        "action": {"type": "notify", "text": "Look"},
        "cooldown_hours": 24, "max_runs_per_day": 24,
        "scope": {"ad_ids": [ads[0]]},
    });
    let rule = app.write_ok("POST", "/rules", &key, Some(&rule), 200)["data"]["id"].clone();
    for _ in 0..6 {
        app.advance(3600);
    }

    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);
    chrome.goto(&format!("{}/tasks", root(&app)));
    let row = chrome.find(&format!("tr#task-{}", task["id"]));
    assert!(
        row.text()
            .contains("Set the bid to 0.80 EUR on Winter sale and Spring sale"),
        "{}",
        row.text()
    );
    let outcome = row.find_all("details.items li").remove(0);
    assert!(!outcome.is_displayed(), "closed until asked");
    row.find_all("details.items summary").remove(0).click();
    assert!(outcome.is_displayed(), "opened");
    assert!(
        outcome
            .text()
            .contains(&format!("Winter sale: failed: {reason}")),
        "{}",
        outcome.text()
    );
    screenshot(&chrome, "tasks-outcomes");

    chrome.goto(&format!("{}/rules/{rule}/log", root(&app)));
    let lines = chrome.find_all("table.rule-log tbody tr");
    assert_eq!(lines.len(), 2, "the run and the folded skips");
    let folded = lines[0].text();
    assert!(
        folded.contains("×5") && folded.contains("cooldown"),
        "{folded}"
    );
    assert!(
        folded.contains("Send the alert “Look” about Winter sale"),
        "{folded}"
    );
    let href = chrome
        .link("Winter sale")
        .attribute("href")
        .unwrap_or_default();
    assert!(
        href.ends_with(&format!("/campaigns/{cabinet}/{}", ads[0])),
        "the name links to the campaign: {href}"
    );
    screenshot(&chrome, "rule-log");
    chrome.quit().expect("the session ends");
}
