//! Creates, copies and bulk changes through the task queue: field rules, task progress and
//! errors, queue limits, pause on an empty balance and resume, cancel, ownership, and an item
//! repeated after a crash acting once. This file holds what the areas share: a campaign's
//! fields, queueing a task and reading it until it settles.

mod bulk;
mod create;
mod lifecycle;

use adcab::store::StoreError;
use std::time::Duration;

use crate::helpers::{wait_for, Resp, TestApp};
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
    wait_for(
        Duration::from_secs(20),
        &format!("task {id} to settle"),
        || {
            let r = app.get(&format!("/tasks/{id}"), key);
            assert_eq!(r.status, 200, "{}", r.body);
            let status = r.body["data"]["status"].as_str().unwrap();
            if status == "pending" || status == "running" {
                assert_eq!(r.header("retry-after"), Some("2"));
                return None;
            }
            assert!(
                r.header("retry-after").is_none(),
                "no Retry-After once settled"
            );
            Some(r.body["data"].clone())
        },
    )
}

fn count(app: &TestApp, sql: &str) -> i64 {
    let sql = sql.to_string();
    app.services
        .db
        .read_blocking(move |c| Ok::<_, StoreError>(c.query_row(&sql, [], |r| r.get(0))?))
        .unwrap()
}
