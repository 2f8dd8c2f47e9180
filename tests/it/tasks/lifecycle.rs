//! Owns a task's life in the queue: pause on an empty balance and resume, cancel, who may
//! read a task, an item repeated after a crash acting once, the cap on stored errors, steps
//! driven from several threads at once.

use adcab::store::StoreError;

use super::{channel, post, queue, settle};
use crate::helpers::{printed, spawn_app, Camp};
use adcab::ops::{self, CabinetChange, NewKey};
use serde_json::{json, Value};

#[test]
fn an_empty_balance_pauses_the_task_until_resumed_from_the_panel() {
    let app = spawn_app();
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "15");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let id = queue(
        &app,
        &key,
        "/campaigns",
        &json!({ "campaigns": [channel("1"), channel("2"), channel("3")] }),
    );
    let task = settle(&app, &key, id);
    assert_eq!(task["status"], "paused");
    assert!(task["paused_reason"].as_str().unwrap().contains("balance"));
    assert_eq!(task["progress"], 1);
    // A paused create holds its lane: five more queue, the sixth is refused.
    for n in 0..5 {
        queue(&app, &key, "/campaigns", &channel(&format!("waiting {n}")));
    }
    let full = post(&app, &key, "/campaigns", &channel("sixth"));
    full.assert_error(429, "QUEUE_FULL");
    assert_eq!(full.body["limit"], 5);
    assert!(full.header("retry-after").is_some());
    ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            balance: Some("100".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        printed(ops::task_resume(&app.services, ops::By::Operator, id).unwrap())["status"],
        "pending"
    );
    let done = settle(&app, &key, id);
    assert_eq!(
        (done["status"].as_str(), done["ad_ids"].clone()),
        (Some("completed"), json!([1, 2, 3]))
    );
    let made = format!("SELECT COUNT(*) FROM sim_ads WHERE account_id = {cabinet} AND client_ref LIKE 'task:{id}:%'");
    assert_eq!(
        app.scalar::<i64>(&made, &[]),
        3,
        "each of the task's campaigns created once"
    );
    assert!(
        ops::task_resume(&app.services, ops::By::Operator, id).is_err(),
        "only a paused task resumes"
    );
}

#[test]
fn a_task_can_be_cancelled_from_the_panel() {
    let app = spawn_app();
    let user = app.user("pro");
    app.cabinet(user, "euro", "0");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let id = queue(&app, &key, "/campaigns", &channel("Unfunded"));
    assert_eq!(settle(&app, &key, id)["status"], "paused");
    assert_eq!(
        printed(ops::task_cancel(&app.services, ops::By::Operator, id).unwrap()),
        json!({ "id": id, "status": "cancelled" })
    );
    let task = app.get_ok(&format!("/tasks/{id}"), &key)["data"].clone();
    assert_eq!(task["status"], "cancelled");
    assert!(task["completed_at"].is_string());
    assert!(ops::task_cancel(&app.services, ops::By::Operator, id).is_err());
}

#[test]
fn a_person_cancels_or_resumes_only_their_own_tasks_and_changes_only_their_own_keys() {
    let app = spawn_app();
    let user = app.user("pro");
    app.cabinet(user, "euro", "0");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let key_id: i64 = app.scalar("SELECT MAX(id) FROM api_keys", &[]);
    let id = queue(&app, &key, "/campaigns", &channel("Unfunded"));
    assert_eq!(settle(&app, &key, id)["status"], "paused");
    let stranger = ops::By::Person(app.user("pro"));
    let owner = ops::By::Person(user);
    let not_yours = |e: ops::OpsError, what: ops::Owned| {
        assert!(
            matches!(e, ops::OpsError::NotYours(w) if w == what),
            "{e:?}"
        );
    };
    not_yours(
        ops::task_resume(&app.services, stranger, id).unwrap_err(),
        ops::Owned::Task,
    );
    not_yours(
        ops::task_cancel(&app.services, stranger, id).unwrap_err(),
        ops::Owned::Task,
    );
    not_yours(
        ops::task_cancel(&app.services, owner, id + 1000).unwrap_err(),
        ops::Owned::Task,
    );
    not_yours(
        ops::key_revoke(&app.services, stranger, key_id).unwrap_err(),
        ops::Owned::Key,
    );
    assert_eq!(
        app.get_ok(&format!("/tasks/{id}"), &key)["data"]["status"],
        "paused",
        "a stranger changed nothing"
    );
    ops::task_cancel(&app.services, owner, id).unwrap();
    ops::key_revoke(&app.services, owner, key_id).unwrap();
    not_yours(
        ops::key_rotate_secret(&app.services, owner, key_id).unwrap_err(),
        ops::Owned::Key,
    );
}

#[test]
fn tasks_are_read_by_any_key_of_their_owner_only() {
    let app = spawn_app();
    let (user, _, key) = app.manager();
    let id = queue(&app, &key, "/campaigns", &channel("Mine"));
    let second = app.key(user);
    assert_eq!(
        app.get_ok(&format!("/tasks/{id}"), &second)["data"]["id"],
        id
    );
    let (_, _, stranger) = app.owner_with_cabinet("pro");
    app.get_err(&format!("/tasks/{id}"), &stranger, 404, "TASK_NOT_FOUND");
    app.get_err("/tasks/999", &key, 404, "TASK_NOT_FOUND");
    app.get_err("/tasks/x", &key, 400, "VALIDATION_ERROR");
}

#[test]
fn a_create_repeated_after_a_crash_makes_one_campaign() {
    let app = spawn_app();
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "0");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    // A paused task holds the lane, so the next task waits while the "crash" is staged.
    let blocker = queue(&app, &key, "/campaigns", &channel("Blocker"));
    assert_eq!(settle(&app, &key, blocker)["status"], "paused");
    let id = queue(
        &app,
        &key,
        "/campaigns",
        &json!({ "campaigns": [channel("One"), channel("Two")] }),
    );
    ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            balance: Some("100".into()),
            ..Default::default()
        },
    )
    .unwrap();
    // The worker created item 0 on the platform, then the process died before recording it.
    let mut draft: adcab::platform::AdDraft = app
        .services
        .db
        .read_blocking(move |c| {
            Ok::<_, StoreError>(
                adcab::store::tasks::get(c, id)?.unwrap().payload["campaigns"][0].clone(),
            )
        })
        .map(|v| serde_json::from_value(v).unwrap())
        .unwrap();
    draft.client_ref = Some(format!("task:{id}:0"));
    let early = app.services.platform.create_ad(cabinet, &draft).unwrap();
    let app = app.restart();
    ops::task_cancel(&app.services, ops::By::Operator, blocker).unwrap();
    let task = settle(&app, &key, id);
    assert_eq!(task["status"], "completed");
    assert_eq!(task["ad_ids"], json!([early.ad_id, early.ad_id + 1]));
    assert_eq!(
        app.scalar::<i64>(
            "SELECT COUNT(*) FROM sim_ads WHERE account_id = ?1",
            &[cabinet]
        ),
        2
    );
    assert_eq!(
        app.scalar::<i64>(
            "SELECT COUNT(*) FROM campaigns WHERE account_id = ?1",
            &[cabinet]
        ),
        2
    );
    assert_eq!(
        app.scalar::<i64>(
            "SELECT balance_micros FROM sim_accounts WHERE id = ?1",
            &[cabinet]
        ),
        80_000_000,
        "charged once each"
    );
}

#[test]
fn a_task_keeps_at_most_50_errors_but_counts_every_failure() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ads: Vec<i64> = (0..60)
        .map(|_| app.campaign(cabinet, Camp::channel("Many", "https://t.me/alpha_chan")))
        .collect();
    let task = settle(
        &app,
        &key,
        queue(
            &app,
            &key,
            "/campaigns/bulk",
            &json!({ "action": "set_cpm", "cpm": "0.10", "ad_ids": ads }),
        ),
    );
    assert_eq!(
        (task["failed"].as_i64(), task["succeeded"].as_i64()),
        (Some(60), Some(0))
    );
    assert_eq!(task["errors"].as_array().unwrap().len(), 50);
    assert_eq!(task["progress"], 60);
    assert_eq!(task["ad_ids"], json!([]));
}

#[test]
fn task_steps_driven_from_several_threads_run_each_item_once() {
    let app = spawn_app();
    let (_, _, key) = app.manager();
    let campaigns: Vec<Value> = (0..12).map(|i| channel(&format!("C{i}"))).collect();
    let id = queue(&app, &key, "/campaigns", &json!({ "campaigns": campaigns }));
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| app.run_tasks());
        }
    });
    let task = settle(&app, &key, id);
    assert_eq!(
        (
            task["status"].as_str(),
            task["progress"].as_i64(),
            task["succeeded"].as_i64()
        ),
        (Some("completed"), Some(12), Some(12))
    );
    assert_eq!(task["ad_ids"], json!((1..=12).collect::<Vec<i64>>()));
    assert_eq!(app.scalar::<i64>("SELECT COUNT(*) FROM campaigns", &[]), 12);
}
