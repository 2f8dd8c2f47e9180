//! A rule across cabinets made in the panel: the new-rule form ticks two or more of the
//! person's cabinets, the rule is stored as the API stores one and listed under each cabinet in
//! words; a refusal of the list is shown beside the campaigns' choice.

use adcab::ops::NewKey;
use serde_json::json;

use super::logged_in;
use crate::helpers::spawn_app;

/// The new-rule form: a CTR condition, `action` with its amounts, and the cabinets `ticked`.
fn fields<'a>(
    csrf: &'a str,
    home: &'a str,
    ticked: &[&'a str],
    action: &'a str,
) -> Vec<(&'a str, &'a str)> {
    let mut f = vec![
        ("csrf", csrf),
        ("account_id", home),
        ("name", "Everywhere"),
        ("scope", "cabinet"),
        ("match", "all"),
        ("metric0", "ctr"),
        ("op0", "<"),
        ("value0", "0.5"),
        ("window0", "24"),
        ("action", action),
        ("amount", "5"),
        ("max_per_day", "5"),
        ("max_total_per_day", "8"),
        ("cooldown_hours", "24"),
        ("max_runs_per_day", "1"),
    ];
    f.extend(ticked.iter().map(|t| ("account_ids", *t)));
    f
}

#[test]
fn ticked_cabinets_make_one_rule_across_them_listed_under_each() {
    let app = spawn_app();
    let user = app.user("pro");
    let first = app.cabinet(user, "euro", "1000");
    let second = app.cabinet(user, "euro", "1000");
    let stars = app.cabinet(user, "stars", "1000");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let web = logged_in(&app, user);
    let page = web.get("/rules");
    assert!(
        page.body.contains(r#"name="account_ids""#),
        "the form offers the cabinets"
    );
    let csrf = page.csrf();
    let (a, b, s) = (first.to_string(), second.to_string(), stars.to_string());

    let refused = web.post("/rules", &fields(&csrf, &a, &[&a, &s], "add_budget"));
    assert_eq!(refused.status, 422, "different currencies take no amounts");
    assert!(
        refused.body.contains(r#"data-param="action""#),
        "{}",
        refused.body
    );

    let sent = web.post("/rules", &fields(&csrf, &a, &[&a, &b], "add_budget"));
    assert_eq!(sent.status, 303, "{}", sent.body);
    let rules = app.get_ok(&format!("/rules?account_id={second}"), &key)["data"].clone();
    assert_eq!(rules.as_array().unwrap().len(), 1, "{rules}");
    assert_eq!(rules[0]["scope"], json!({"account_ids": [first, second]}));
    assert_eq!(rules[0]["account_id"], first);
    assert_eq!(rules[0]["max_total_per_day"], "8.00");

    let listed = web.get("/rules").body;
    let words = format!("Every live campaign of cabinets {first}, {second}");
    assert_eq!(listed.matches(&words).count(), 2, "under each cabinet");
}

#[test]
fn the_edit_page_keeps_a_rule_across_cabinets_over_its_cabinets_whatever_the_form_sends() {
    let app = spawn_app();
    let user = app.user("pro");
    let first = app.cabinet(user, "euro", "1000");
    let second = app.cabinet(user, "euro", "1000");
    let elsewhere = app.cabinet(app.user("pro"), "euro", "1000");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let body = json!({
        "name": "Everywhere",
        "scope": {"account_ids": [first, second]},
        "conditions": [{"metric": "ctr", "op": "<", "value": "0.5", "window_hours": 24}],
        "action": {"type": "pause"},
    });
    let rule = app.write_ok("POST", "/rules", &key, Some(&body), 200)["data"].clone();
    let web = logged_in(&app, user);
    let path = format!("/rules/{}/edit", rule["id"]);
    let page = web.get(&path);
    assert_eq!(page.status, 200, "{}", page.body);
    let (csrf, home, other) = (page.csrf(), first.to_string(), elsewhere.to_string());
    let mut sent = fields(&csrf, &home, &[&other], "pause");
    sent.retain(|(k, _)| !matches!(*k, "amount" | "max_per_day" | "max_total_per_day"));
    sent.retain(|(k, _)| *k != "name");
    sent.push(("name", "Renamed"));
    let saved = web.post(&path, &sent);
    assert_eq!(saved.status, 303, "{}", saved.body);
    let stored = app.get_ok(&format!("/rules/{}", rule["id"]), &key)["data"].clone();
    assert_eq!(stored["name"], "Renamed");
    assert_eq!(
        stored["scope"],
        json!({"account_ids": [first, second]}),
        "neither narrowed to its home nor widened to another owner's cabinet"
    );
}
