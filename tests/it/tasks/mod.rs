//! Creates, copies and bulk changes through the task queue: field rules, task progress and
//! errors, queue limits, pause on an empty balance and resume, cancel, ownership, and an item
//! repeated after a crash acting once. This file holds what the areas share: a campaign's
//! fields, queueing a task and reading it until it settles.

mod bulk;
mod create;
mod lifecycle;

use crate::helpers::{Resp, TestApp};
use serde_json::{json, Value};

fn channel(title: &str) -> Value {
    json!({
        "title": title, "text": "Read us daily", "promote_url": "https://t.me/alpha_chan",
        "cpm": 2, "budget": 10, "target_type": "channels", "channels": ["@tech_daily"]
    })
}

fn post(app: &TestApp, key: &str, path: &str, body: &Value) -> Resp {
    let idem = uuid::Uuid::new_v4().to_string();
    app.send("POST", path, key, Some(body), &[("Idempotency-Key", &idem)])
}

/// Queues a task and returns its id, checking the 202 answer's headers.
fn queue(app: &TestApp, key: &str, path: &str, body: &Value) -> i64 {
    let r = post(app, key, path, body);
    assert_eq!(r.status, 202, "{}", r.body);
    let id = r.body["data"]["id"].as_i64().unwrap();
    assert_eq!(
        r.header("location"),
        Some(format!("/api/v1/tasks/{id}").as_str())
    );
    assert_eq!(r.header("retry-after"), Some("2"));
    id
}

/// Reads the task until it is no longer pending or running (`Retry-After: 2` until then, none
/// after) and returns it.
fn settle(app: &TestApp, key: &str, id: i64) -> Value {
    let path = format!("/tasks/{id}");
    let first = app.get(&path, key);
    assert_eq!(first.status, 200, "{}", first.body);
    if underway(&first) {
        assert_eq!(first.header("retry-after"), Some("2"));
    }
    app.run_tasks();
    let settled = app.get(&path, key);
    assert_eq!(settled.status, 200, "{}", settled.body);
    assert!(!underway(&settled), "task {id} settles: {}", settled.body);
    assert!(
        settled.header("retry-after").is_none(),
        "no Retry-After once settled"
    );
    settled.body["data"].clone()
}

/// The task read is pending or running.
fn underway(r: &Resp) -> bool {
    matches!(
        r.body["data"]["status"].as_str(),
        Some("pending" | "running")
    )
}
