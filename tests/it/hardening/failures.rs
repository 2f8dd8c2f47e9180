//! Owns what the service does when its own parts fail: an unreadable row, a database error,
//! a lock held by another process, a crash in the middle of a bulk delete, a full disk.

use std::time::{Duration, Instant};

use super::{campaign, post};
use crate::helpers::spawn_app;
use adcab::ops::{self, CabinetChange, NewKey};
use adcab::store::StoreError;
use serde_json::json;

#[test]
fn an_unreadable_row_is_an_internal_error_never_a_default() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    app.sql(&format!(
        "UPDATE campaigns SET status = 'Flying' WHERE account_id = {cabinet} AND ad_id = {ad}"
    ));
    for path in [
        format!("/campaigns/{ad}?account_id={cabinet}"),
        "/campaigns".to_string(),
    ] {
        let body = app.get_err(&path, &key, 500, "INTERNAL_ERROR");
        assert_eq!(body["error"], "Internal server error.");
        assert!(
            !body.to_string().contains("Flying"),
            "no internal text: {body}"
        );
    }
    app.sql(&format!(
        "UPDATE campaigns SET status = 'Active' WHERE account_id = {cabinet} AND ad_id = {ad};
         INSERT INTO tasks (id, owner_id, account_id, type, lane, status, payload, total, created_at)
         VALUES (71, {user}, {cabinet}, 'delete', 'other', 'pending', '{{\"action\":\"delete\"}}', 1, '2026-01-01T00:00:00Z'),
                (72, {user}, {cabinet}, 'explode', 'create', 'pending', '{{}}', 1, '2026-01-01T00:00:00Z');"
    ));
    // Each task fails, with its sentence and nothing run, so the queue goes on.
    let stored = |id: i64| {
        app.services
            .db
            .read_blocking(move |c| {
                Ok::<_, StoreError>(c.query_row(
                    "SELECT status, error, COALESCE(succeeded, 0) FROM tasks WHERE id = ?1",
                    [id],
                    |r| {
                        Ok((
                            r.get::<_, String>(0)?,
                            r.get::<_, Option<String>>(1)?,
                            r.get::<_, i64>(2)?,
                        ))
                    },
                )?)
            })
            .unwrap()
    };
    app.run_tasks();
    for id in [71, 72] {
        let (status, error, succeeded) = stored(id);
        assert_eq!(status, "failed");
        assert_eq!(
            error.as_deref(),
            Some("adcab:unreadable"),
            "stored as a code"
        );
        assert_eq!(succeeded, 0, "nothing ran on made-up values");
    }
    let failed = app.get_ok("/tasks/71", &key)["data"].clone();
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(
        failed["error"],
        "The task's stored data cannot be read, so it was stopped; queue the operation again.",
        "the API answers the sentence"
    );
    app.get_err("/tasks/72", &key, 500, "INTERNAL_ERROR");
    assert_eq!(campaign(&app, cabinet, ad, &key)["status"], "Active");
}

#[test]
fn a_database_error_in_the_bulk_check_is_a_500_not_unknown_ids() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    app.sql("ALTER TABLE campaigns RENAME TO campaigns_gone");
    let body = json!({ "account_id": cabinet, "action": "pause", "ad_ids": [ad] });
    let r = post(&app, &key, "/campaigns/bulk", &body, "bulk-db-error");
    r.assert_error(500, "INTERNAL_ERROR");
}

#[test]
fn a_bulk_delete_resumed_after_a_crash_finishes_without_refusals() {
    let app = spawn_app();
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "100");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let ads = [
        app.funded(cabinet, 10_000_000),
        app.funded(cabinet, 10_000_000),
    ];
    ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            balance: Some("0".into()),
            ..Default::default()
        },
    )
    .unwrap();
    // A paused task holds the lane, so the delete waits while the "crash" is staged.
    let blocker = json!({ "action": "add_budget", "amount": 5, "ad_ids": [ads[0]] });
    let blocker = post(&app, &key, "/campaigns/bulk", &blocker, "blocker-1").body["data"]["id"]
        .as_i64()
        .unwrap();
    app.run_tasks();
    assert_eq!(
        app.get_ok(&format!("/tasks/{blocker}"), &key)["data"]["status"],
        "paused"
    );
    let delete = json!({ "action": "delete", "ad_ids": ads });
    let task = post(&app, &key, "/campaigns/bulk", &delete, "delete-1").body["data"]["id"]
        .as_i64()
        .unwrap();
    // The worker deleted item 0 on the platform, then the process died before recording it.
    app.services
        .platform
        .delete_ad(cabinet, ads[0], &format!("task:{task}:0"))
        .unwrap();
    let app = app.restart();
    ops::task_cancel(&app.services, ops::By::Operator, blocker).unwrap();
    app.run_tasks();
    let done = app.get_ok(&format!("/tasks/{task}"), &key)["data"].clone();
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        (done["succeeded"].as_i64(), done["failed"].as_i64()),
        (Some(2), Some(0)),
        "{done}"
    );
    assert_eq!(done["errors"], json!([]));
    assert_eq!(done["ad_ids"], json!(ads));
}

#[test]
fn a_store_lock_held_elsewhere_is_answered_503_not_a_hang() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let holder = adcab::db::open_connection(app.services.db.path()).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = Instant::now();
    let r = app.send(
        "PATCH",
        &format!("/campaigns/{ad}"),
        &key,
        Some(&json!({ "title": "New" })),
        &[],
    );
    let took = started.elapsed();
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(
        ["SERVICE_UNAVAILABLE", "PLATFORM_UNAVAILABLE"].contains(&r.body["code"].as_str().unwrap()),
        "{}",
        r.body
    );
    assert!(r.header("retry-after").is_some());
    assert!(took < Duration::from_secs(15), "{took:?}");
    let r = app.send(
        "PATCH",
        &format!("/campaigns/{ad}"),
        &key,
        Some(&json!({ "title": "New" })),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn a_full_disk_answers_writes_503_without_internal_text_and_reads_go_on() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}");
    // The database may not grow by a page more: SQLite's "database or disk is full".
    app.services
        .db
        .write_blocking(|tx| {
            let pages: i64 = tx.query_row("PRAGMA page_count", [], |r| r.get(0))?;
            tx.pragma_update(None, "max_page_count", pages)?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let refused = (0..200)
        .map(|n| {
            let title = format!("{n} {}", "long title to fill pages ".repeat(4));
            app.send("PATCH", &path, &key, Some(&json!({ "title": title })), &[])
        })
        .find(|r| r.status != 200)
        .expect("a write past the last page is refused");
    refused.assert_error(503, "SERVICE_UNAVAILABLE");
    assert!(refused.header("retry-after").is_some());
    let text = refused.body.to_string().to_lowercase();
    for internal in ["sqlite", "disk is full", "database or disk"] {
        assert!(!text.contains(internal), "{internal} in {text}");
    }
    app.get_ok(&path, &key);
    app.get_ok("/account/info", &key);
}
