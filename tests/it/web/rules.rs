//! The automation rules in the panel: the list in words, a new rule through the API's own
//! checks, switching and deleting (with CSRF, owners and managers only), a rule's log after
//! it acted, and its preview.

use adcab::ops::{self, TeamAccess};
use serde_json::{json, Value};

use super::logged_in;
use crate::helpers::{spawn_app, Browser, TestApp};

/// A rule over the whole cabinet whose one condition always holds, acting with `action`.
fn always(cabinet: i64, action: Value) -> Value {
    json!({
        "name": "Always on",
        "account_id": cabinet,
        "conditions": [{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}],
        "action": action,
        "cooldown_hours": 0,
        "max_runs_per_day": 24,
    })
}

fn create(app: &TestApp, key: &str, body: Value) -> Value {
    app.write_ok("POST", "/rules", key, Some(&body), 200)["data"].clone()
}

fn rules_of(app: &TestApp, key: &str) -> Vec<Value> {
    app.get_ok("/rules", key)["data"]
        .as_array()
        .unwrap()
        .clone()
}

/// The new-rule form's fields with one condition row and `extra` over them.
fn form<'a>(
    csrf: &'a str,
    cabinet: &'a str,
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut fields = vec![
        ("csrf", csrf),
        ("account_id", cabinet),
        ("name", "Stop expensive leads"),
        ("scope", "cabinet"),
        ("match", "all"),
        ("metric0", "cpa"),
        ("op0", ">"),
        ("value0", "2.50"),
        ("window0", "24"),
        ("metric1", ""),
        ("op1", ">"),
        ("value1", ""),
        ("window1", ""),
        ("action", "pause"),
        ("cooldown_hours", "24"),
        ("max_runs_per_day", "1"),
    ];
    fields.extend_from_slice(extra);
    fields
}

#[test]
fn the_rules_pages_need_a_login() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let rule = create(&app, &key, always(cabinet, json!({"type": "pause"})));
    let id = rule["id"].as_i64().unwrap();
    let anonymous = Browser::new(&app);
    for path in [
        "/rules".to_string(),
        format!("/rules/{id}/log"),
        format!("/rules/{id}/preview"),
    ] {
        let page = anonymous.get(&path);
        assert_eq!(page.status, 303, "{path}");
        assert_eq!(page.location.as_deref(), Some("/login"), "{path}");
    }
    let deleted = anonymous.post(&format!("/rules/{id}/delete"), &[("csrf", "x")]);
    assert_eq!(deleted.location.as_deref(), Some("/login"));
    assert_eq!(rules_of(&app, &key).len(), 1, "nothing deleted");
}

#[test]
fn a_rule_made_in_the_form_is_stored_as_the_api_would_store_it_and_listed_in_words() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let page = web.get("/rules");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("No rules in this cabinet yet."));
    assert!(page
        .body
        .contains(r#"<a href="/rules" aria-current="page">Rules</a>"#));
    let (csrf, account, ads) = (page.csrf(), cabinet.to_string(), ad.to_string());

    let sent = web.post(
        "/rules",
        &form(
            &csrf,
            &account,
            &[
                ("scope", "ads"),
                ("ad_ids", &ads),
                ("match", "any"),
                ("metric1", "status"),
                ("op1", "="),
                ("value1", "Active"),
                ("action", "change_cpm"),
                ("percent", "-10"),
                ("min_cpm", "1"),
                ("max_cpm", "4"),
                ("cpm", "9.99"),
                ("cooldown_hours", "6"),
                ("max_runs_per_day", "3"),
                ("dry_run", "1"),
            ],
        ),
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    let stored = rules_of(&app, &key);
    assert_eq!(stored.len(), 1);
    let rule = &stored[0];
    assert_eq!(
        sent.location.as_deref(),
        Some(format!("/rules#rule-{}", rule["id"]).as_str())
    );
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
        json!({"type": "change_cpm", "percent": "-10", "min_cpm": "1.00", "max_cpm": "4.00"}),
        "only the chosen action's fields are read"
    );
    assert_eq!(
        (&rule["cooldown_hours"], &rule["max_runs_per_day"]),
        (&json!(6), &json!(3))
    );
    assert_eq!(
        (&rule["enabled"], &rule["dry_run"]),
        (&json!(true), &json!(true))
    );

    let list = web.get("/rules").body;
    let row = &list[list
        .find(&format!(r#"<tr id="rule-{}""#, rule["id"]))
        .unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    for words in [
        "Stop expensive leads",
        &format!("Campaigns Running ({ad})"),
        "CPA over 24 h &gt; 2.50\u{a0}EUR",
        "or </span>status = Active",
        "Lower the bid by 10%, kept within 1.00\u{a0}EUR – 4.00\u{a0}EUR",
        "Cooldown 6 h · at most 3 runs a day",
        "enabled",
        "dry run",
        &format!(r#"href="/rules/{}/log""#, rule["id"]),
        &format!(r#"action="/rules/{}/disable""#, rule["id"]),
        &format!(r#"action="/rules/{}/delete""#, rule["id"]),
    ] {
        assert!(row.contains(words), "{words:?} missing from {row}");
    }
}

#[test]
fn a_bad_value_is_shown_beside_its_field_in_the_persons_words_and_nothing_is_stored() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let csrf = web.get("/rules").csrf();
    let account = cabinet.to_string();
    let api_message = |body: Value| {
        let err = app.write_err("POST", "/rules", &key, Some(&body), 400, "VALIDATION_ERROR");
        err["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{err}"))
            .to_string()
    };

    let counted = web.post(
        "/rules",
        &form(&csrf, &account, &[("metric0", "views"), ("value0", "1.5")]),
    );
    assert_eq!(counted.status, 422);
    assert!(
        counted.body.contains(r#"data-param="conditions[0].value""#),
        "{}",
        counted.body
    );
    let mut body = always(cabinet, json!({"type": "pause"}));
    body["conditions"][0]["value"] = json!("1.5");
    assert_eq!(
        api_message(body),
        "views is a count: value must be a whole number.",
        "the API's own sentence is unchanged"
    );
    assert!(
        counted.body.contains("“Value” takes a whole number."),
        "the panel words the reason: {}",
        counted.body
    );
    let ru = web.post_with(
        "/rules",
        &form(&csrf, &account, &[("metric0", "views"), ("value0", "1.5")]),
        &[("accept-language", "ru")],
    );
    assert!(
        ru.body.contains("В поле «Значение» нужно целое число."),
        "in Russian: {}",
        ru.body
    );
    assert!(
        counted
            .body
            .contains(r#"name="name" maxlength="100" value="Stop expensive leads""#),
        "the form keeps what was sent"
    );

    let second_row = web.post(
        "/rules",
        &form(&csrf, &account, &[("metric1", "likes"), ("value1", "3")]),
    );
    assert_eq!(second_row.status, 422);
    assert!(second_row
        .body
        .contains(r#"data-param="conditions[1].metric""#));

    let bid = web.post(
        "/rules",
        &form(&csrf, &account, &[("action", "set_cpm"), ("cpm", "1.234")]),
    );
    assert_eq!(bid.status, 422);
    assert!(
        bid.body.contains(r#"data-param="action.cpm""#),
        "{}",
        bid.body
    );

    let missing = web.post(
        "/rules",
        &form(
            &csrf,
            &account,
            &[("scope", "ads"), ("ad_ids", &format!("{ad}, 999"))],
        ),
    );
    assert_eq!(missing.status, 422);
    assert!(missing.body.contains(r#"data-param="scope.ad_ids[1]""#));
    assert!(missing
        .body
        .contains("No live campaign 999 in this cabinet."));

    let cooldown = web.post(
        "/rules",
        &form(&csrf, &account, &[("cooldown_hours", "200")]),
    );
    assert_eq!(cooldown.status, 422);
    assert!(cooldown.body.contains(r#"data-param="cooldown_hours""#));

    assert!(rules_of(&app, &key).is_empty(), "nothing stored");
}

#[test]
fn a_rule_is_disabled_enabled_and_deleted_only_with_the_csrf_token() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let rule = create(&app, &key, always(cabinet, json!({"type": "pause"})));
    let id = rule["id"].as_i64().unwrap();
    let web = logged_in(&app, user);
    let csrf = web.get("/rules").csrf();
    let enabled = || app.get_ok(&format!("/rules/{id}"), &key)["data"]["enabled"].clone();

    let forged = web.post(&format!("/rules/{id}/disable"), &[("csrf", "forged")]);
    assert_eq!(forged.status, 403);
    assert_eq!(enabled(), true);
    let off = web.post(&format!("/rules/{id}/disable"), &[("csrf", &csrf)]);
    assert_eq!(off.status, 303, "{}", off.body);
    assert_eq!(enabled(), false);
    let page = web.get("/rules").body;
    assert!(
        page.contains(&format!(r#"action="/rules/{id}/enable""#)),
        "{page}"
    );
    assert!(page.contains("disabled"));
    let on = web.post(&format!("/rules/{id}/enable"), &[("csrf", &csrf)]);
    assert_eq!(on.status, 303);
    assert_eq!(enabled(), true);
    let kept = app.get_ok(&format!("/rules/{id}"), &key)["data"].clone();
    assert_eq!(kept["conditions"], rule["conditions"], "the rest is kept");

    let forged = web.post(&format!("/rules/{id}/delete"), &[]);
    assert_eq!(forged.status, 403);
    assert_eq!(rules_of(&app, &key).len(), 1);
    let gone = web.post(&format!("/rules/{id}/delete"), &[("csrf", &csrf)]);
    assert_eq!(gone.status, 303);
    assert_eq!(gone.location.as_deref(), Some("/rules"));
    app.get_err(&format!("/rules/{id}"), &key, 404, "RULE_NOT_FOUND");
    assert_eq!(web.get(&format!("/rules/{id}/log")).status, 404);
}

#[test]
fn a_viewer_sees_the_rules_but_cannot_change_them_and_an_outsider_sees_none() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "100");
    let key = app.key_with(ops::NewKey {
        user: agency,
        manage: true,
        ..ops::NewKey::default()
    });
    let rule = create(
        &app,
        &key,
        always(shared, json!({"type": "notify", "text": "hi"})),
    );
    let id = rule["id"].as_i64().unwrap();
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();

    let viewer = logged_in(&app, member);
    let page = viewer.get("/rules");
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains(&format!(r#"<tr id="rule-{id}""#)),
        "{}",
        page.body
    );
    assert!(page.body.contains("Send the alert “hi”"));
    assert!(
        !page.body.contains(&format!("/rules/{id}/disable")),
        "no buttons that change"
    );
    assert!(!page.body.contains(&format!("/rules/{id}/delete")));
    assert!(
        !page.body.contains(r#"id="new-rule""#),
        "no form for a new rule"
    );
    assert!(page
        .body
        .contains("You have Viewer access to this cabinet."));
    let csrf = page.csrf();
    for act in ["disable", "delete"] {
        let refused = viewer.post(&format!("/rules/{id}/{act}"), &[("csrf", &csrf)]);
        assert_eq!(refused.status, 403, "{act}");
        assert!(refused.body.contains("Viewer access"), "{}", refused.body);
    }
    let created = viewer.post("/rules", &form(&csrf, &shared.to_string(), &[]));
    assert_eq!(created.status, 422);
    assert!(created.body.contains(r#"data-param="account_id""#));
    let all = rules_of(&app, &key);
    assert_eq!(all.len(), 1, "nothing created");
    assert_eq!(all[0]["enabled"], true, "nothing switched");
    assert_eq!(
        viewer.get(&format!("/rules/{id}/log")).status,
        200,
        "a viewer reads the log"
    );
    assert_eq!(viewer.get(&format!("/rules/{id}/preview")).status, 200);

    let (outsider, _, _) = app.manager();
    let stranger = logged_in(&app, outsider);
    assert!(!stranger.get("/rules").body.contains(&format!("rule-{id}")));
    for path in [format!("/rules/{id}/log"), format!("/rules/{id}/preview")] {
        assert_eq!(stranger.get(&path).status, 404, "{path}");
    }
    let csrf = stranger.get("/rules").csrf();
    let refused = stranger.post(&format!("/rules/{id}/delete"), &[("csrf", &csrf)]);
    assert_eq!(refused.status, 404);
    assert_eq!(rules_of(&app, &key).len(), 1);
}

#[test]
fn the_log_lists_what_a_rule_did_after_the_sync_and_the_preview_counts_as_the_api() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    app.align_hour();
    let ad = app.active_campaign(cabinet);
    let rule = create(
        &app,
        &key,
        always(cabinet, json!({"type": "notify", "text": "Check the bids"})),
    );
    let id = rule["id"].as_i64().unwrap();
    let web = logged_in(&app, user);
    let before = web.get(&format!("/rules/{id}/log"));
    assert_eq!(before.status, 200);
    assert!(before.body.contains("Nothing logged yet"));

    app.advance(3600);
    let entries = app.get_ok(&format!("/rules/{id}/log"), &key)["data"].clone();
    assert_eq!(entries.as_array().unwrap().len(), 1, "{entries}");
    assert_eq!(entries[0]["outcome"], "acted");
    let log = web.get(&format!("/rules/{id}/log"));
    assert_eq!(log.status, 200);
    let body = &log.body;
    assert!(
        body.contains("Always on") && body.contains("views over 1 h &gt;= 0"),
        "{body}"
    );
    assert_eq!(
        body.matches("<tr>").count(),
        2,
        "the head and one entry: {body}"
    );
    let link = format!(r#"<a href="/campaigns/{cabinet}/{ad}">Running</a>"#);
    assert!(body.contains(&link), "the campaign by its name: {body}");
    assert!(body.contains("views (1h) = "), "the matched value");
    assert!(
        body.contains(&format!("Sent the alert “Check the bids” about {link}")),
        "the change as a sentence"
    );
    assert!(body.contains(r#"<span class="badge active">acted</span>"#));
    let at = entries[0]["at"].as_str().unwrap();
    assert!(body.contains(&format!(r#"datetime="{at}""#)), "its time");

    let replay =
        app.write_ok("POST", &format!("/rules/{id}/preview"), &key, None, 200)["data"].clone();
    let acts = replay["would_act"].as_i64().unwrap();
    assert!(acts > 0, "{replay}");
    let preview = web.get(&format!("/rules/{id}/preview"));
    assert_eq!(preview.status, 200);
    assert!(
        preview.body.contains(&format!(
            "would have acted <strong>{acts}</strong> time{}; its guards would have held back <strong>{}</strong>.",
            if acts == 1 { "" } else { "s" },
            replay["skipped"]
        )),
        "{}",
        preview.body
    );
    assert!(
        preview.body.contains("would act"),
        "the evaluations are listed"
    );
    assert_eq!(
        app.get_ok(&format!("/rules/{id}/log"), &key)["data"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "a preview changes nothing"
    );
}

#[test]
fn a_rule_log_names_the_campaign_and_folds_five_cooldown_skips_into_one_line() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    app.align_hour();
    let ad = app.approved(
        cabinet,
        crate::helpers::Camp::channel("Winter sale", "https://t.me/alpha_chan"),
    );
    let mut body = always(cabinet, json!({"type": "notify", "text": "Look"}));
    body["cooldown_hours"] = json!(24);
    let id = create(&app, &key, body)["id"].as_i64().unwrap();
    for _ in 0..6 {
        app.advance(3600);
    }
    let entries = app.get_ok(&format!("/rules/{id}/log"), &key)["data"].clone();
    let outcomes: Vec<(&str, &str)> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["outcome"].as_str().unwrap(),
                e["reason"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [vec![("skipped", "cooldown"); 5], vec![("acted", "")],].concat(),
        "one run, then five hours held back by the cooldown"
    );

    let web = logged_in(&app, user);
    let page = web.get(&format!("/rules/{id}/log"));
    assert_eq!(page.status, 200);
    let body = &page.body;
    assert_eq!(
        body.matches("<tr>").count(),
        3,
        "the head, the folded skips and the run: {body}"
    );
    assert_eq!(body.matches("×5").count(), 1, "{body}");
    let link = format!(r#"<a href="/campaigns/{cabinet}/{ad}">Winter sale</a>"#);
    assert!(
        body.contains(&format!("Send the alert “Look” about {link}")),
        "{body}"
    );
    assert!(body.contains(&format!("Sent the alert “Look” about {link}")));
    assert!(!body.contains(&format!("#{ad}<")), "no bare number");
    let (newest, oldest) = (&entries[0]["at"], &entries[4]["at"]);
    let fold_at = body.find("×5").unwrap();
    let folded = &body[body[..fold_at].rfind("<tr>").unwrap()..fold_at];
    assert!(
        folded.contains(&format!(r#"datetime={oldest}"#))
            && folded.contains(&format!(r#"datetime={newest}"#)),
        "the span of the skips: {folded}"
    );
    assert!(
        body.contains("<td data-label=\"Reason\">cooldown</td>"),
        "{body}"
    );

    let csv = web.get(&format!("/rules/{id}/log?format=csv"));
    assert_eq!(csv.status, 200);
    let rows: Vec<&str> = csv.body.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(
        rows[0],
        "rule_id,id,at,ad_id,title,outcome,reason,change,matched,action"
    );
    assert_eq!(rows.len(), 7, "every entry, unfolded: {}", csv.body);
    assert!(
        rows[1].contains(&format!(
            ",{ad},Winter sale,skipped,cooldown,Send the alert “Look” about Winter sale,"
        )),
        "{}",
        rows[1]
    );
}

#[test]
fn a_rule_reads_as_russian_sentences_for_a_russian_speaker() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let rule = create(
        &app,
        &key,
        json!({
            "name": "Дорогие лиды",
            "account_id": cabinet,
            "conditions": [
                {"metric": "cpa", "op": ">", "value": "2.5", "window_hours": 24},
                {"metric": "budget", "op": "<", "value": "5"}
            ],
            "action": {"type": "change_cpm", "percent": "-10", "min_cpm": "1", "max_cpm": "4"},
            "cooldown_hours": 6,
            "max_runs_per_day": 3,
        }),
    );
    let web = logged_in(&app, user);
    let page = web.get_with("/rules", &[("accept-language", "ru-RU,ru;q=0.9,en;q=0.5")]);
    assert_eq!(page.status, 200);
    let body = &page.body;
    let row = &body[body
        .find(&format!(r#"<tr id="rule-{}""#, rule["id"]))
        .unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    for words in [
        "Весь кабинет",
        "CPA за 24 ч &gt; 2,50\u{a0}EUR",
        "и </span>бюджет &lt; 5,00\u{a0}EUR",
        "Снизить ставку CPM на 10% в пределах 1,00\u{a0}EUR – 4,00\u{a0}EUR",
        "Перерыв 6 ч · не больше 3 запусков в сутки",
        "включено",
        r#"data-label="Ограничения""#,
    ] {
        assert!(row.contains(words), "{words:?} missing from {row}");
    }
    assert!(
        body.contains("Новое правило") && body.contains("Создать правило"),
        "the form too"
    );
    assert!(!row.contains("Cooldown"), "no English left in the row");
}

#[test]
fn the_rules_download_as_the_apis_rule_objects() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    create(
        &app,
        &key,
        always(cabinet, json!({"type": "set_cpm", "cpm": "2.50"})),
    );
    create(
        &app,
        &key,
        always(
            cabinet,
            json!({"type": "notify", "text": "Look, \"now\", here"}),
        ),
    );
    let web = logged_in(&app, user);
    assert!(
        web.get("/rules").body.contains("/rules?format=csv"),
        "the link"
    );

    let csv = web.get("/rules?format=csv");
    assert_eq!(csv.status, 200, "{}", csv.body);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    let api = rules_of(&app, &key);
    let lines: Vec<&str> = csv.body.lines().collect();
    assert_eq!(lines.len(), api.len() + 1, "a header and a line per rule");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(header[..3], ["id", "account_id", "name"]);
    for rule in &api {
        let line = lines
            .iter()
            .find(|l| l.starts_with(&format!("{},", rule["id"])))
            .unwrap_or_else(|| panic!("rule {} in {lines:?}", rule["id"]));
        let action = rule["action"].to_string().replace('"', "\"\"");
        assert!(
            line.contains(&format!("\"{action}\"")),
            "{line} has {action}"
        );
        assert!(line.contains(&format!(",{cabinet},")), "{line}");
        let enabled = rule["enabled"].as_bool().unwrap().to_string();
        assert!(line.contains(&format!(",{enabled},")), "{line}");
    }
    let xlsx = web.get("/rules?format=xlsx");
    assert_eq!(xlsx.status, 200);
    assert!(xlsx.body.starts_with("PK"), "a zip workbook");
}

#[test]
fn a_tree_of_conditions_reads_as_nested_lists_in_english_and_russian() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let rule = create(
        &app,
        &key,
        json!({
            "name": "Tree",
            "account_id": cabinet,
            "conditions": {"all": [
                {"metric": "spent", "op": ">", "window_hours": 24,
                 "compare_to": {"metric": "daily_budget", "factor": "0.5"}},
                {"any": [
                    {"metric": "cpa", "op": ">", "window_hours": 24,
                     "compare_to": {"window_hours": 168, "factor": "1.3"}},
                    {"metric": "ctr", "op": "<", "window_hours": 24,
                     "compare_to": {"offset_hours": 24}},
                    {"metric": "roas", "op": "<", "value": "1", "window_hours": 72}
                ]}
            ]},
            "action": {"type": "pause"},
        }),
    );
    let web = logged_in(&app, user);
    let row_of = |body: &str| {
        let row = &body[body
            .find(&format!(r#"<tr id="rule-{}""#, rule["id"]))
            .unwrap()..];
        row[..row.find("</tr>").unwrap()].to_string()
    };
    let en = row_of(&web.get("/rules").body);
    for words in [
        "All of these hold:",
        "<li>spend over 24 h &gt; 0.5 × daily budget</li>",
        "At least one of these holds:",
        "CPA over 24 h &gt; 1.3 × CPA over 168 h",
        "CTR over 24 h &lt; CTR over 24 h, 24 h earlier",
        "ROAS over 72 h &lt; 1",
    ] {
        assert!(en.contains(words), "{words:?} missing from {en}");
    }
    assert_eq!(
        en.matches("<ul>").count(),
        2,
        "two groups, one inside the other: {en}"
    );
    let ru = row_of(&web.get_with("/rules", &[("accept-language", "ru")]).body);
    for words in [
        "Выполняются все условия:",
        "расход за 24 ч &gt; 0,5 × дневной бюджет",
        "Выполняется хотя бы одно:",
        "CPA за 24 ч &gt; 1,3 × CPA за 168 ч",
        "CTR за 24 ч &lt; CTR за 24 ч, 24 ч назад",
    ] {
        assert!(ru.contains(words), "{words:?} missing from {ru}");
    }
}

#[test]
fn a_rule_from_a_template_is_made_in_the_panel_and_a_refusal_names_its_parameter() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let web = logged_in(&app, user);
    let rules = web.get("/rules");
    assert!(rules
        .body
        .contains(r#"<a href="/rules/templates">New rule from a template</a>"#));
    let page = web.get("/rules/templates");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Stop-loss on spend without actions"));
    assert!(page.body.contains(r#"name="p_spend""#));
    assert!(page.body.contains("Empty: 5 EUR, 2 TON or 250 Stars"));
    let ru = web.get_with("/rules/templates", &[("accept-language", "ru")]);
    assert!(
        ru.body.contains("Стоп-лосс: расход без действий"),
        "{}",
        ru.body
    );
    assert!(ru.body.contains("Ночная пауза"));
    let (csrf, account) = (page.csrf(), cabinet.to_string());

    let refused = web.post(
        "/rules/templates",
        &[
            ("csrf", &csrf),
            ("template", "scale_winners"),
            ("account_id", &account),
            ("p_max_cpa", ""),
            ("p_percent", "15"),
        ],
    );
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains(r#"data-param="params.max_cpa""#),
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains(r#"name="p_percent" value="15""#),
        "kept as sent"
    );
    assert!(rules_of(&app, &key).is_empty());

    let made = web.post(
        "/rules/templates",
        &[
            ("csrf", &csrf),
            ("template", "stop_loss"),
            ("account_id", &account),
            ("p_spend", "12"),
            ("p_window_hours", ""),
            ("name", ""),
            ("dry_run", "1"),
        ],
    );
    assert_eq!(made.status, 303, "{}", made.body);
    let stored = rules_of(&app, &key);
    assert_eq!(stored.len(), 1);
    let rule = &stored[0];
    assert_eq!(
        made.location.as_deref(),
        Some(format!("/rules#rule-{}", rule["id"]).as_str())
    );
    assert_eq!(rule["name"], "Stop-loss on spend without actions");
    assert_eq!(rule["dry_run"], true);
    assert_eq!(rule["conditions"]["all"][0]["value"], "12");
    assert_eq!(
        rule["conditions"]["all"][0]["window_hours"], 24,
        "the default"
    );
}

#[test]
fn a_refusal_in_a_nested_group_lands_on_its_row_of_the_edit_form_and_nothing_changes() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let tree = json!({"all": [
        {"metric": "spent", "op": ">", "value": "5", "window_hours": 24},
        {"any": [{"metric": "ctr", "op": "<", "value": "1", "window_hours": 24}]}
    ]});
    let mut body = always(cabinet, json!({"type": "pause"}));
    body["conditions"] = tree.clone();
    let rule = create(&app, &key, body);
    let web = logged_in(&app, user);
    let path = format!("/rules/{}/edit", rule["id"]);
    let page = web.get(&path);
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains(r#"name="kind1" value="group""#),
        "{}",
        page.body
    );
    let (csrf, account) = (page.csrf(), cabinet.to_string());
    let mut fields = vec![
        ("csrf", csrf.as_str()),
        ("account_id", account.as_str()),
        ("name", "Always on"),
        ("scope", "cabinet"),
        ("shape", "tree"),
        ("match", "all"),
        ("kind0", "cond"),
        ("depth0", "1"),
        ("metric0", "spent"),
        ("op0", ">"),
        ("value0", "5"),
        ("kind1", "group"),
        ("depth1", "1"),
        ("join1", "any"),
        ("kind2", "cond"),
        ("depth2", "2"),
        ("metric2", "ctr"),
        ("op2", "<"),
        ("value2", "lots"),
        ("action", "pause"),
        ("cooldown_hours", "0"),
        ("max_runs_per_day", "24"),
    ];
    let refused = web.post(&path, &fields);
    assert_eq!(refused.status, 422, "{}", refused.body);
    let error = refused
        .body
        .find(r#"data-param="conditions.all[1].any[0].value""#)
        .expect("the refusal names the nested path");
    let row = refused.body.find(r#"name="value2""#).unwrap();
    assert!(error > row, "the refusal is shown on the row it names");
    assert_eq!(
        rules_of(&app, &key)[0]["conditions"],
        tree,
        "nothing changed"
    );

    fields.retain(|(k, _)| *k != "value2");
    fields.push(("value2", "2"));
    fields.push(("edit", "cond:1"));
    let grown = web.post(&path, &fields);
    assert_eq!(grown.status, 200, "a row's button posts the form back");
    assert!(
        grown.body.contains(r#"name="depth3" value="2""#),
        "a row added in the group"
    );
    assert_eq!(
        rules_of(&app, &key)[0]["conditions"],
        tree,
        "nothing stored yet"
    );
}

#[test]
fn a_rule_checked_every_5_minutes_is_made_in_the_form_and_a_48_hour_window_refused_beside_it() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let web = logged_in(&app, user);
    let page = web.get("/rules");
    assert!(
        page.body
            .contains(r#"<option value="5m">every 5 minutes</option>"#),
        "{}",
        page.body
    );
    let (csrf, account) = (page.csrf(), cabinet.to_string());
    let long = web.post(
        "/rules",
        &form(&csrf, &account, &[("every", "5m"), ("window0", "48")]),
    );
    assert_eq!(long.status, 422);
    assert!(long.body.contains(r#"data-param="every""#), "{}", long.body);
    assert!(rules_of(&app, &key).is_empty(), "nothing stored");
    let sent = web.post("/rules", &form(&csrf, &account, &[("every", "5m")]));
    assert_eq!(sent.status, 303, "{}", sent.body);
    assert_eq!(rules_of(&app, &key)[0]["every"], "5m");
    assert!(web.get("/rules").body.contains("every 5 min"));
    let ru = web.get_with("/rules", &[("accept-language", "ru")]).body;
    assert!(ru.contains("каждые 5 мин"), "{ru}");
}
