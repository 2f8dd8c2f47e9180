//! Creates, copies and bulk changes through the task queue: field rules, task progress and
//! errors, queue limits, pause on an empty balance and resume, cancel, ownership, and an item
//! repeated after a crash acting once.

use adcab::store::StoreError;
use std::time::Duration;

use crate::helpers::{printed, spawn_app, wait_for, Camp, Resp, TestApp};
use adcab::panel::{self, CabinetChange, NewKey};
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

#[test]
fn a_single_campaign_is_created_by_a_task() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let r = post(&app, &key, "/campaigns", &channel("Solo"));
    assert_eq!(r.status, 202);
    let data = &r.body["data"];
    assert_eq!(
        (data["type"].as_str(), data["total"].as_i64()),
        (Some("create"), Some(1))
    );
    assert_eq!(data["account_id"], cabinet);
    assert!(data["succeeded"].is_null(), "null until known");
    let task = settle(&app, &key, data["id"].as_i64().unwrap());
    assert_eq!(task["status"], "completed");
    assert_eq!(
        (
            task["progress"].as_i64(),
            task["succeeded"].as_i64(),
            task["failed"].as_i64()
        ),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(task["ad_ids"], json!([1]));
    assert!(task["started_at"].is_string() && task["completed_at"].is_string());
    let c = app.get_ok("/campaigns/1", &key)["data"].clone();
    assert_eq!(
        (c["status"].as_str(), c["title"].as_str()),
        (Some("In Review"), Some("Solo"))
    );
    assert_eq!(
        app.get_ok("/account/info", &key)["data"][0]["balance"],
        "990.00"
    );
    let history = printed(panel::history(&app.services, cabinet, 1).unwrap());
    assert_eq!(history["events"][0]["source"], "api");
}

#[test]
fn a_batch_lands_in_a_new_group_that_is_reused_by_name() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let body = json!({ "new_group_name": "Spring", "campaigns": [channel("A"), channel("B"), channel("C")] });
    let task = settle(&app, &key, queue(&app, &key, "/campaigns", &body));
    assert_eq!(task["ad_ids"], json!([1, 2, 3]));
    let group = app.get_ok("/campaigns/2", &key)["data"]["group_id"]
        .as_i64()
        .unwrap();
    let again = settle(
        &app,
        &key,
        queue(
            &app,
            &key,
            "/campaigns",
            &json!({ "new_group_name": "Spring", "campaigns": [channel("D")] }),
        ),
    );
    assert_eq!(
        app.get_ok(&format!("/campaigns/{}", again["ad_ids"][0]), &key)["data"]["group_id"],
        group
    );
    let groups = app.get_ok(&format!("/groups?account_id={cabinet}"), &key)["data"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(groups, 1);
}

#[test]
fn a_create_stops_at_the_first_failing_campaign() {
    let app = spawn_app();
    let (_, _, key) = app.manager();
    let mut lost = channel("Lost");
    lost["channels"] = json!(["missing_one", "@missing_two"]);
    let mut search = channel("Search");
    search["target_type"] = json!("search");
    search.as_object_mut().unwrap().remove("channels");
    search["search_keywords"] = json!(["!!!", "   ?"]);
    let task = settle(
        &app,
        &key,
        queue(
            &app,
            &key,
            "/campaigns",
            &json!({ "campaigns": [channel("Fine"), lost, channel("Never")] }),
        ),
    );
    assert_eq!(task["status"], "completed");
    assert_eq!(
        (
            task["progress"].as_i64(),
            task["succeeded"].as_i64(),
            task["failed"].as_i64()
        ),
        (Some(2), Some(1), Some(1))
    );
    assert_eq!(task["ad_ids"], json!([1]));
    let error = &task["errors"][0];
    assert_eq!(
        (error["index"].as_i64(), error["ad_id"].is_null()),
        (Some(1), true)
    );
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .starts_with("No targets found:"),
        "{error}"
    );
    let task = settle(&app, &key, queue(&app, &key, "/campaigns", &search));
    assert!(task["errors"][0]["error"]
        .as_str()
        .unwrap()
        .starts_with("No valid search queries found"));
    assert_eq!(
        app.get_ok("/campaigns", &key)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn create_fields_are_checked_with_their_exact_param() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let other = app.cabinet(app.user("pro"), "euro", "1");
    let foreign_group = printed(panel::group_add(&app.services, other, "Theirs", None).unwrap())
        ["id"]
        .as_i64()
        .unwrap();
    let with = |f: &dyn Fn(&mut Value)| {
        let mut c = channel("X");
        f(&mut c);
        c
    };
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({ "campaigns": [channel("a"), channel("b"), with(&|c| c["channels"] = json!(["@ok_name", "bad name!"]))] }),
            "campaigns[2].channels[1]",
        ),
        (
            json!({ "campaigns": [with(&|c| c["colour"] = json!("red"))] }),
            "campaigns[0].colour",
        ),
        (
            json!({ "campaigns": [channel("a"), with(&|c| c["group_id"] = json!(1))] }),
            "campaigns[1].group_id",
        ),
        (
            json!({ "title": "stray", "campaigns": [channel("a")] }),
            "title",
        ),
        (json!({ "campaigns": [] }), "campaigns"),
        (
            json!({ "campaigns": (0..101).map(|_| channel("n")).collect::<Vec<_>>() }),
            "campaigns",
        ),
        (
            with(&|c| {
                c.as_object_mut().unwrap().remove("title");
            }),
            "title",
        ),
        (with(&|c| c["budget"] = json!(3)), "budget"),
        (with(&|c| c["cpm"] = json!(0)), "cpm"),
        (with(&|c| c["cpm"] = json!("abc")), "cpm"),
        (with(&|c| c["target_type"] = json!("bots")), "channels"),
        (with(&|c| c["target_type"] = json!("radio")), "target_type"),
        (
            with(&|c| {
                c["target_type"] = json!("users");
                c.as_object_mut().unwrap().remove("channels");
            }),
            "countries",
        ),
        (
            with(&|c| {
                c["target_type"] = json!("users");
                c.as_object_mut().unwrap().remove("channels");
                c["countries"] = json!(["DE", "XX"]);
            }),
            "countries[1]",
        ),
        (with(&|c| c["languages"] = json!(["pt"])), "languages[0]"),
        (with(&|c| c["topics"] = json!([3])), "topics[0]"),
        (
            with(&|c| {
                c["target_type"] = json!("search");
                c.as_object_mut().unwrap().remove("channels");
                c["search_keywords"] = json!(["k".repeat(65)]);
            }),
            "search_keywords[0]",
        ),
        (with(&|c| c["views_per_user"] = json!(5)), "views_per_user"),
        (with(&|c| c["button"] = json!("buy")), "button"),
        (
            with(&|c| c["schedule"] = json!({ "days": { "mon": [9] }, "timezone": "viewer" })),
            "schedule.timezone",
        ),
        (with(&|c| c["media"] = json!("med_none")), "media"),
        (with(&|c| c["group_id"] = json!(foreign_group)), "group_id"),
        (
            with(&|c| c["promote_url"] = json!("ftp://x")),
            "promote_url",
        ),
    ];
    for (body, param) in cases {
        let r = post(&app, &key, "/campaigns", &body);
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["param"], param, "{}", r.body);
    }
    assert_eq!(
        count(&app, "SELECT COUNT(*) FROM tasks"),
        0,
        "nothing was queued"
    );
    let _ = (user, cabinet);
}

#[test]
fn the_same_idempotency_key_queues_one_task() {
    let app = spawn_app();
    let (_, _, key) = app.manager();
    let body = channel("Once");
    let missing = app.send("POST", "/campaigns", &key, Some(&body), &[]);
    missing.assert_error(400, "IDEMPOTENCY_KEY_REQUIRED");
    let answers: Vec<Resp> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..6)
            .map(|_| {
                s.spawn(|| {
                    app.send(
                        "POST",
                        "/campaigns",
                        &key,
                        Some(&body),
                        &[("Idempotency-Key", "create-once-1")],
                    )
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ids: Vec<i64> = answers
        .iter()
        .filter(|r| r.status == 202)
        .map(|r| r.body["data"]["id"].as_i64().unwrap())
        .collect();
    assert!(!ids.is_empty() && ids.iter().all(|i| *i == ids[0]));
    assert!(answers
        .iter()
        .all(|r| r.status == 202 || r.body["code"] == "IDEMPOTENCY_IN_PROGRESS"));
    let replay = app.send(
        "POST",
        "/campaigns",
        &key,
        Some(&body),
        &[("Idempotency-Key", "create-once-1")],
    );
    assert_eq!(
        (replay.status, replay.body["data"]["id"].as_i64()),
        (202, Some(ids[0]))
    );
    assert_eq!(
        replay.header("location"),
        Some(format!("/api/v1/tasks/{}", ids[0]).as_str())
    );
    settle(&app, &key, ids[0]);
    assert_eq!(count(&app, "SELECT COUNT(*) FROM tasks"), 1);
    assert_eq!(count(&app, "SELECT COUNT(*) FROM sim_ads"), 1);
}

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
    panel::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            balance: Some("100".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        printed(panel::task_resume(&app.services, id).unwrap())["status"],
        "pending"
    );
    let done = settle(&app, &key, id);
    assert_eq!(
        (done["status"].as_str(), done["ad_ids"].clone()),
        (Some("completed"), json!([1, 2, 3]))
    );
    let made = format!("SELECT COUNT(*) FROM sim_ads WHERE account_id = {cabinet} AND client_ref LIKE 'task:{id}:%'");
    assert_eq!(
        count(&app, &made),
        3,
        "each of the task's campaigns created once"
    );
    assert!(
        panel::task_resume(&app.services, id).is_err(),
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
        printed(panel::task_cancel(&app.services, id).unwrap()),
        json!({ "id": id, "status": "cancelled" })
    );
    let task = app.get_ok(&format!("/tasks/{id}"), &key)["data"].clone();
    assert_eq!(task["status"], "cancelled");
    assert!(task["completed_at"].is_string());
    assert!(panel::task_cancel(&app.services, id).is_err());
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
fn copies_keep_targeting_and_schedule_and_take_overrides() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let mut original = channel("Original");
    original["schedule"] = json!({ "days": { "fri": [18, 19] }, "timezone": "+02:00" });
    original["channels"] = json!(["@tech_daily", "@news_room"]);
    original["new_group_name"] = json!("Originals");
    settle(&app, &key, queue(&app, &key, "/campaigns", &original));
    let body = json!({ "account_id": cabinet, "copies": 3, "title": "Copy", "cpm": "2.50" });
    let task = settle(&app, &key, queue(&app, &key, "/campaigns/1/copy", &body));
    assert_eq!(
        (task["type"].as_str(), task["ad_ids"].clone()),
        (Some("copy"), json!([2, 3, 4]))
    );
    let source = app.get_ok("/campaigns/1", &key)["data"].clone();
    for ad in 2..=4 {
        let c = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
        assert_eq!(
            (c["title"].as_str(), c["cpm"].as_str()),
            (Some("Copy"), Some("2.50"))
        );
        assert_eq!(c["targets"], source["targets"]);
        assert_eq!(
            c["schedule"], source["schedule"],
            "copies inherit the schedule"
        );
        assert_eq!(c["group_id"], source["group_id"]);
        assert_eq!(c["budget"], "10.00");
    }
    let none = settle(
        &app,
        &key,
        queue(
            &app,
            &key,
            "/campaigns/1/copy",
            &json!({ "schedule": null, "budget": 0 }),
        ),
    );
    let c = app.get_ok(&format!("/campaigns/{}", none["ad_ids"][0]), &key)["data"].clone();
    assert!(c["schedule"].is_null());
    assert_eq!(c["budget"], "0.00");
    let err = post(&app, &key, "/campaigns/1/copy", &json!({ "copies": 101 }));
    assert_eq!(err.body["param"], "copies");
    let err = post(
        &app,
        &key,
        "/campaigns/1/copy",
        &json!({ "channels": ["@x_other"] }),
    );
    assert_eq!(
        err.body["param"], "channels",
        "targeting cannot change on a copy"
    );
}

#[test]
fn bulk_refuses_unknown_ids_with_nothing_queued() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let a = app.active_campaign(cabinet);
    let r = post(
        &app,
        &key,
        "/campaigns/bulk",
        &json!({ "action": "pause", "ad_ids": [a, 99, 98] }),
    );
    r.assert_error(400, "UNKNOWN_AD_IDS");
    assert_eq!(r.body["missing"], json!([99, 98]));
    assert_eq!(count(&app, "SELECT COUNT(*) FROM tasks"), 0);
    for (body, param) in [
        (json!({ "action": "explode", "ad_ids": [a] }), "action"),
        (json!({ "action": "pause", "ad_ids": [] }), "ad_ids"),
        (
            json!({ "action": "pause", "ad_ids": (1..=1001).collect::<Vec<i64>>() }),
            "ad_ids",
        ),
        (
            json!({ "action": "pause", "ad_ids": [a], "amount": 5 }),
            "amount",
        ),
        (json!({ "action": "add_budget", "ad_ids": [a] }), "amount"),
        (json!({ "action": "set_cpm", "ad_ids": [a] }), "cpm"),
        (
            json!({ "action": "set_schedule", "ad_ids": [a] }),
            "schedule",
        ),
    ] {
        let r = post(&app, &key, "/campaigns/bulk", &body);
        assert_eq!(
            (r.status, r.body["param"].as_str()),
            (400, Some(param)),
            "{body}"
        );
    }
}

#[test]
fn bulk_actions_change_each_campaign_and_list_refusals() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ads: Vec<i64> = (0..3).map(|_| app.active_campaign(cabinet)).collect();
    let site = app.campaign(cabinet, Camp::site("Audience", "https://shop.example.com"));
    panel::sim_review(&app.services, cabinet, site, true, None).unwrap();
    let bulk = |body: Value| settle(&app, &key, queue(&app, &key, "/campaigns/bulk", &body));
    let paused = bulk(json!({ "action": "pause", "ad_ids": [ads[0], ads[1], ads[0]] }));
    assert_eq!(
        (paused["type"].as_str(), paused["total"].as_i64()),
        (Some("status"), Some(2)),
        "duplicates ignored"
    );
    assert_eq!(paused["ad_ids"], json!([ads[0], ads[1]]));
    assert_eq!(
        app.get_ok(&format!("/campaigns/{}", ads[1]), &key)["data"]["status"],
        "On Hold"
    );
    let funded = bulk(json!({ "action": "add_budget", "amount": "2.50", "ad_ids": ads }));
    assert_eq!(funded["succeeded"], 3);
    assert_eq!(
        app.get_ok(&format!("/campaigns/{}", ads[2]), &key)["data"]["budget"],
        "12.50"
    );
    let cpm = bulk(json!({ "action": "set_cpm", "cpm": "0.80", "ad_ids": [ads[0], site] }));
    assert_eq!(
        (cpm["succeeded"].as_i64(), cpm["failed"].as_i64()),
        (Some(1), Some(1)),
        "0.80 is under the 1.00 channel minimum"
    );
    assert_eq!(cpm["errors"][0]["ad_id"], ads[0]);
    app.write_ok(
        "POST",
        &format!("/campaigns/{}/budget", ads[2]),
        &key,
        Some(&json!({ "action": "withdraw_all" })),
        200,
    );
    let sched = bulk(json!({
        "action": "set_schedule", "ad_ids": [ads[1], ads[2], site],
        "schedule": { "days": { "sat": [10] }, "timezone": "viewer" }
    }));
    assert_eq!(sched["type"], "schedule");
    let refused: Vec<i64> = sched["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["ad_id"].as_i64().unwrap())
        .collect();
    assert_eq!(
        refused,
        vec![ads[1], ads[2]],
        "viewer needs users targeting; the empty campaign has no budget either"
    );
    assert_eq!(sched["ad_ids"], json!([site]));
    let withdrawn = bulk(json!({ "action": "withdraw_budget", "amount": 20, "ad_ids": [ads[0]] }));
    assert!(withdrawn["errors"][0]["error"]
        .as_str()
        .unwrap()
        .contains("INSUFFICIENT_AD_BALANCE"));
    let deleted = bulk(json!({ "action": "delete", "ad_ids": ads }));
    assert_eq!(deleted["succeeded"], 3);
    let left = app.get_ok("/campaigns", &key)["data"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(left, 1);
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
    panel::cabinet_set(
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
    panel::task_cancel(&app.services, blocker).unwrap();
    let task = settle(&app, &key, id);
    assert_eq!(task["status"], "completed");
    assert_eq!(task["ad_ids"], json!([early.ad_id, early.ad_id + 1]));
    assert_eq!(
        count(
            &app,
            &format!("SELECT COUNT(*) FROM sim_ads WHERE account_id = {cabinet}")
        ),
        2
    );
    assert_eq!(
        count(
            &app,
            &format!("SELECT COUNT(*) FROM campaigns WHERE account_id = {cabinet}")
        ),
        2
    );
    assert_eq!(
        count(
            &app,
            &format!("SELECT balance_micros FROM sim_accounts WHERE id = {cabinet}")
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
