//! Owns creates and copies through a task: one campaign, a batch into a group, the stop at
//! the first failing campaign, each field's param, one task per idempotency key, copies.

use super::{channel, post, queue, settle};
use crate::helpers::{printed, spawn_app, Resp};
use adcab::ops;
use serde_json::{json, Value};

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
    let history = printed(ops::history(&app.services, cabinet, 1).unwrap());
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
    let foreign_group = printed(ops::group_add(&app.services, other, "Theirs", None).unwrap())
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
        app.scalar::<i64>("SELECT COUNT(*) FROM tasks", &[]),
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
    assert_eq!(app.scalar::<i64>("SELECT COUNT(*) FROM tasks", &[]), 1);
    assert_eq!(app.scalar::<i64>("SELECT COUNT(*) FROM sim_ads", &[]), 1);
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
