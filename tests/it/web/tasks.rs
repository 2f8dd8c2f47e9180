//! The tasks page: each task said with its campaigns' names and its amount, each campaign's
//! outcome with the platform's reason for a failure, in English and Russian, and the list as
//! a CSV download.

use serde_json::{json, Value};

use super::logged_in;
use crate::helpers::{spawn_app, Camp, TestApp};

/// Five approved channel campaigns with these titles, in order.
fn five(app: &TestApp, cabinet: i64) -> Vec<i64> {
    [
        "Winter sale",
        "Spring sale",
        "Summer",
        "Autumn",
        "Black Friday",
    ]
    .into_iter()
    .map(|title| app.approved(cabinet, Camp::channel(title, "https://t.me/alpha_chan")))
    .collect()
}

/// Queues a bulk action through the API, runs it, and returns the finished task.
fn bulk(app: &TestApp, key: &str, body: Value) -> Value {
    let queued = app.write_ok("POST", "/campaigns/bulk", key, Some(&body), 202)["data"].clone();
    app.run_tasks();
    let id = queued["id"].as_i64().unwrap_or_else(|| panic!("{queued}"));
    app.get_ok(&format!("/tasks/{id}"), key)["data"].clone()
}

/// The row of task `id` on a tasks page.
fn row(body: &str, id: &Value) -> String {
    let start = body
        .find(&format!(r#"<tr id="task-{id}""#))
        .unwrap_or_else(|| panic!("no row of task {id}: {body}"));
    let rest = &body[start..];
    rest[..rest.find("</tr>").unwrap()].to_string()
}

#[test]
fn a_task_row_names_its_campaigns_and_its_amount_and_each_campaigns_outcome() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ads = five(&app, cabinet);
    let task = bulk(
        &app,
        &key,
        json!({ "action": "add_budget", "amount": "10", "ad_ids": ads }),
    );
    assert_eq!(task["succeeded"], 5, "{task}");
    let web = logged_in(&app, user);
    let page = web.get("/tasks");
    assert_eq!(page.status, 200);
    let line = row(&page.body, &task["id"]);
    assert!(
        line.contains("Add 10.00\u{a0}EUR to the budget of Winter sale, Spring sale and 3 more"),
        "{line}"
    );
    assert!(
        !line.contains("add_budget"),
        "not the action's code: {line}"
    );
    assert!(
        line.contains("You, through the API"),
        "who started it: {line}"
    );
    assert!(
        page.body.contains(r#"<table class="cards tasks">"#),
        "cards on phones"
    );
    assert!(line.contains(r#"data-label="Status""#), "a card's labels");
    for (ad, title) in ads
        .iter()
        .zip(["Winter sale", "Spring sale", "Summer", "Autumn"])
    {
        assert!(
            line.contains(&format!(
                r#"<a href="/campaigns/{cabinet}/{ad}">{title}</a>: <span class="ok">done</span>"#
            )),
            "{title} done: {line}"
        );
    }
    let created = task["created_at"].as_str().unwrap();
    assert!(
        line.contains(&format!(r#"datetime="{created}""#)),
        "its time"
    );

    let russian = web.get_with("/tasks", &[("accept-language", "ru-RU,ru;q=0.9")]);
    let line = row(&russian.body, &task["id"]);
    assert!(
        line.contains("Пополнить бюджет на 10,00\u{a0}EUR: Winter sale, Spring sale и ещё 3"),
        "{line}"
    );
    assert!(line.contains("выполнена"), "{line}");
}

#[test]
fn a_failed_item_shows_the_platforms_reason_beside_its_campaign() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ads = five(&app, cabinet);
    // 0.80 is under the channel minimum of 1.00: the platform refuses each.
    let task = bulk(
        &app,
        &key,
        json!({ "action": "set_cpm", "cpm": "0.80", "ad_ids": [ads[0], ads[1]] }),
    );
    assert_eq!(task["failed"], 2, "{task}");
    let reason = task["errors"][0]["error"].as_str().unwrap().to_string();
    assert_eq!(task["errors"][0]["ad_id"], ads[0]);
    let web = logged_in(&app, user);
    let line = row(&web.get("/tasks").body, &task["id"]);
    assert!(
        line.contains("Set the bid to 0.80\u{a0}EUR on Winter sale and Spring sale"),
        "{line}"
    );
    let escaped = maud::html! { (reason) }.into_string();
    assert!(
        line.contains(&format!(
            r#"Winter sale: <span class="error">failed: {escaped}</span>"#
        )),
        "the platform's reason beside the campaign: {line}"
    );
    assert!(line.contains(r#"<span class="error">failed: "#), "{line}");
}

#[test]
fn the_tasks_list_downloads_as_csv_with_the_api_fields_and_the_sentence() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ads = five(&app, cabinet);
    let paused = bulk(&app, &key, json!({ "action": "pause", "ad_ids": [ads[2]] }));
    let funded = bulk(
        &app,
        &key,
        json!({ "action": "add_budget", "amount": "2.5", "ad_ids": [ads[0], ads[1]] }),
    );
    let web = logged_in(&app, user);
    let page = web.get("/tasks");
    assert!(
        page.body.contains(r#"href="/tasks?format=csv""#),
        "a download link"
    );
    let csv = web.get("/tasks?format=csv");
    assert_eq!(csv.status, 200);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    assert!(csv
        .header("content-disposition")
        .is_some_and(|d| d.contains("tasks.csv")));
    let lines: Vec<&str> = csv.body.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines[0],
        "id,type,action,status,account_id,summary,total,progress,succeeded,failed,source,created_at,completed_at"
    );
    assert_eq!(
        lines.len(),
        3,
        "a header and one row per task: {}",
        csv.body
    );
    assert_eq!(
        lines[1],
        format!(
            "{},budget,add_budget,completed,{cabinet},Add 2.50\u{a0}EUR to the budget of Winter sale and Spring sale,2,2,2,0,api,{},{}",
            funded["id"], funded["created_at"].as_str().unwrap(), funded["completed_at"].as_str().unwrap()
        ),
        "newest first"
    );
    assert!(
        lines[2].starts_with(&format!(
            "{},status,pause,completed,{cabinet},Pause Summer,1,1,1,0,api,",
            paused["id"]
        )),
        "{}",
        lines[2]
    );
    let xlsx = web.get("/tasks?format=xlsx");
    assert_eq!(xlsx.status, 200);
    assert!(xlsx.body.starts_with("PK"), "a workbook");
}
