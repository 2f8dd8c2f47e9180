//! A create task survives a crash: the real binary is killed with SIGKILL mid-task and started
//! again; the task finishes with no campaign created twice and no money moved twice.

use std::path::{Path, PathBuf};
use std::time::Duration;

use adcab::db::Db;
use adcab::store::StoreError;
use serde_json::{json, Value};

use super::{adcab, admin, agent, call_with, serve};
use crate::helpers::wait_for;

fn scalar(db: &Db, sql: &str) -> i64 {
    let sql = sql.to_string();
    db.read_blocking(move |c| Ok::<_, StoreError>(c.query_row(&sql, [], |r| r.get(0))?))
        .unwrap()
}

/// A config beside `<dir>/crash.db` whose simulator takes `latency_ms` a call, with `more`
/// after it; returns the config's path and the database's.
fn crash_config(dir: &Path, latency_ms: u64, more: &str) -> (PathBuf, PathBuf) {
    let db = dir.join("crash.db");
    let config = dir.join("adcab.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:0\"\n[storage]\npath = \"{}\"\n[sim]\n\
             latency_ms = {latency_ms}\n{more}",
            db.display()
        ),
    )
    .unwrap();
    (config, db)
}

/// One API call with the `Idempotency-Key` `idempotency`: its status and body.
fn send(
    agent: &ureq::Agent,
    idempotency: &str,
    base: &str,
    method: &str,
    path: &str,
    key: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let url = format!("{base}{path}");
    let header = [("Idempotency-Key", idempotency)];
    let (status, _, answer) = call_with(agent, method, &url, key, body, &header).unwrap();
    (status, answer)
}

/// The demo workspace's euro cabinet.
fn demo_euro(agent: &ureq::Agent, base: &str, key: &str) -> i64 {
    let (_, cabinets) = send(agent, "unused", base, "GET", "/account/info", key, None);
    cabinets["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["cabinet_type"] == "euro")
        .unwrap()["id"]
        .as_i64()
        .unwrap()
}

#[test]
fn a_create_task_killed_mid_way_finishes_once_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (config, db_path) = crash_config(dir.path(), 15, "");
    let agent = agent();
    let call = |base: &str, method: &str, path: &str, key: &str, body: Option<&Value>| {
        send(&agent, "crash-test-create", base, method, path, key, body)
    };

    let first = serve(adcab(&config, &["serve"]));
    let key = first.key();
    let euro = demo_euro(&agent, &first.base, &key);
    let db = Db::open(&db_path, adcab::db::Open::Existing).unwrap();
    let balance_before = scalar(
        &db,
        &format!("SELECT balance_micros FROM sim_accounts WHERE id = {euro}"),
    );
    let campaigns: Vec<Value> = (0..30)
        .map(|i| {
            json!({ "title": format!("Crash {i}"), "text": "t", "promote_url": "https://t.me/alpha_chan", "cpm": 2,
                    "budget": 5, "target_type": "channels", "channels": ["@tech_daily"] })
        })
        .collect();
    let body = json!({ "account_id": euro, "campaigns": campaigns });
    let (status, answer) = call(&first.base, "POST", "/campaigns", &key, Some(&body));
    assert_eq!(status, 202, "{answer}");
    let task = answer["data"]["id"].as_i64().unwrap();
    let progress = |db: &Db| scalar(db, &format!("SELECT progress FROM tasks WHERE id = {task}"));
    wait_for(Duration::from_secs(20), "the task to get under way", || {
        (progress(&db) >= 3).then_some(())
    });
    drop(first);
    let at_kill = progress(&db);
    assert!(at_kill < 30, "killed mid-task (progress {at_kill})");

    let mut second = serve(adcab(&config, &["serve"]));
    let unfinished = format!(
        "SELECT COUNT(*) FROM tasks WHERE id = {task} AND status IN ('pending', 'running')"
    );
    wait_for(
        Duration::from_secs(30),
        "the task to end after the restart",
        || (scalar(&db, &unfinished) == 0).then_some(()),
    );
    let (_, t) = call(&second.base, "GET", &format!("/tasks/{task}"), &key, None);
    let done = t["data"].clone();
    assert_eq!(done["status"], "completed", "{done}");
    let (_, replay) = call(&second.base, "POST", "/campaigns", &key, Some(&body));
    assert_eq!(
        replay["data"]["id"], task,
        "the answer survived the crash too"
    );
    second.stop();

    let ads: Vec<i64> = serde_json::from_value(done["ad_ids"].clone()).unwrap();
    let mut unique = ads.clone();
    unique.dedup();
    assert_eq!(
        (ads.len(), unique.len(), done["succeeded"].as_i64()),
        (30, 30, Some(30))
    );
    let made = scalar(
        &db,
        &format!("SELECT COUNT(*) FROM sim_ads WHERE client_ref LIKE 'task:{task}:%'"),
    );
    assert_eq!(made, 30, "no campaign created twice on the platform");
    let copies = scalar(
        &db,
        &format!(
            "SELECT COUNT(*) FROM campaigns WHERE account_id = {euro} AND title LIKE 'Crash %'"
        ),
    );
    assert_eq!(copies, 30, "each stored once");
    let balance_after = scalar(
        &db,
        &format!("SELECT balance_micros FROM sim_accounts WHERE id = {euro}"),
    );
    assert_eq!(
        balance_before - balance_after,
        30 * 5_000_000,
        "each budget moved once"
    );
}

#[test]
fn a_create_task_killed_during_a_platform_call_replays_it_after_restart() {
    use crate::telegram::{FakePromote, Fault};
    let fake = FakePromote::start();
    let account = fake.add_account("EUR", "Crash EUR", "1000", false);
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("crash.db");
    let config = dir.path().join("adcab.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:0\"\n[storage]\npath = \"{}\"\n[platform]\nkind = \"telegram\"\n\
             [telegram]\napi_url = \"{}\"\ncalls_per_second = 1000\ntimeout_ms = 20000\n",
            db_path.display(),
            fake.url
        ),
    )
    .unwrap();
    let status = adcab(&config, &["init"]).status().unwrap();
    assert!(status.success());
    let user = admin(
        &config,
        &[
            "admin",
            "user",
            "add",
            "--email",
            "crash@example.com",
            "--plan",
            "agency",
        ],
        "",
    )["id"]
        .as_i64()
        .unwrap();
    let owner = user.to_string();
    let connected = admin(
        &config,
        &[
            "admin",
            "cabinet",
            "connect",
            "--owner",
            &owner,
            "--token-stdin",
        ],
        &format!("{}\n", account.token),
    );
    let cabinet = connected["cabinets"][0]["id"].as_i64().unwrap();
    let key = admin(
        &config,
        &["admin", "key", "create", "--user", &owner, "--manage"],
        "",
    )["key"]
        .as_str()
        .unwrap()
        .to_string();
    let agent = agent();
    let call = |base: &str, method: &str, path: &str, body: Option<&Value>| {
        let url = format!("{base}{path}");
        let idempotency = [("Idempotency-Key", "tg-crash-create")];
        let (status, _, answer) =
            call_with(&agent, method, &url, &key, body, &idempotency).unwrap();
        (status, answer)
    };

    let first = serve(adcab(&config, &["serve"]));
    let campaigns: Vec<Value> = (0..10)
        .map(|i| {
            json!({ "title": format!("Crash {i}"), "text": "t", "promote_url": "https://t.me/alpha_chan",
                    "cpm": "2", "budget": "5", "target_type": "channels", "channels": ["@tech_daily"] })
        })
        .collect();
    let body = json!({ "account_id": cabinet, "campaigns": campaigns });
    let (status, answer) = call(&first.base, "POST", "/campaigns", Some(&body));
    assert_eq!(status, 202, "{answer}");
    let task = answer["data"]["id"].as_i64().unwrap();
    let db = Db::open(&db_path, adcab::db::Open::Existing).unwrap();
    let progress = |db: &Db| scalar(db, &format!("SELECT progress FROM tasks WHERE id = {task}"));
    wait_for(Duration::from_secs(20), "the task to get under way", || {
        (progress(&db) >= 2).then_some(())
    });
    // The next create runs on the platform, which then holds its answer; the server is
    // killed while it waits, so the item is not recorded though the ad exists.
    let moved = fake.money_moves(&account.account_id);
    fake.fail_next(Fault::Hold(Duration::from_secs(10)), Some("createAd"), 1);
    wait_for(
        Duration::from_secs(20),
        "a create that ran on the platform",
        || (fake.money_moves(&account.account_id) > moved).then_some(()),
    );
    drop(first);
    let at_kill = progress(&db);
    assert!(at_kill < 10, "killed mid-task (progress {at_kill})");
    fake.reset_calls();

    let mut second = serve(adcab(&config, &["serve"]));
    let unfinished = format!(
        "SELECT COUNT(*) FROM tasks WHERE id = {task} AND status IN ('pending', 'running')"
    );
    wait_for(
        Duration::from_secs(30),
        "the task to end after the restart",
        || (scalar(&db, &unfinished) == 0).then_some(()),
    );
    let (_, t) = call(&second.base, "GET", &format!("/tasks/{task}"), None);
    second.stop();
    let done = t["data"].clone();
    assert_eq!(done["status"], "completed", "{done}");
    let mut ads: Vec<i64> = serde_json::from_value(done["ad_ids"].clone()).unwrap();
    ads.sort_unstable();
    ads.dedup();
    assert_eq!(ads.len(), 10, "{done}");
    let replays = fake
        .calls()
        .iter()
        .filter(|c| c.method == "createAd" && c.replayed)
        .count();
    assert_eq!(
        replays, 1,
        "after the restart, the interrupted create was answered from the platform's record"
    );
    let on_platform = ads
        .iter()
        .filter(|ad| fake.ad(&account.account_id, **ad).is_some())
        .count();
    assert_eq!(on_platform, 10);
    assert_eq!(
        fake.money_moves(&account.account_id),
        10,
        "each budget moved once"
    );
    assert_eq!(fake.balance(&account.account_id), "950");
}

/// Money automation moved into the cabinet's campaigns, as the simulator recorded each move
/// by its token.
fn automation_money(db: &Db, account: i64) -> i64 {
    scalar(
        db,
        &format!(
            "SELECT COALESCE(SUM(moved_micros), 0) FROM sim_ops
             WHERE account_id = {account} AND token LIKE 'rule:%'"
        ),
    )
}

#[test]
fn automation_killed_mid_run_keeps_the_cabinets_daily_cap_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (config, db_path) = crash_config(dir.path(), 40, "[limits]\nwrites_per_minute = 1000\n");
    let agent = agent();
    let call = |base: &str, method: &str, path: &str, key: &str, body: Option<&Value>| {
        send(&agent, "crash-test-rules", base, method, path, key, body)
    };
    let first = serve(adcab(&config, &["serve"]));
    let key = first.key();
    let euro = demo_euro(&agent, &first.base, &key);
    let euro_id = euro.to_string();
    admin(
        &config,
        &[
            "admin",
            "cabinet",
            "set",
            "--id",
            &euro_id,
            "--automation-daily-cap",
            "100",
        ],
        "",
    );
    let campaigns: Vec<Value> = (0..40)
        .map(|i| {
            json!({ "title": format!("Low {i}"), "text": "t", "promote_url": "https://t.me/alpha_chan",
                    "cpm": 2, "budget": 5, "target_type": "channels", "channels": ["@tech_daily"] })
        })
        .collect();
    let (status, answer) = call(
        &first.base,
        "POST",
        "/campaigns",
        &key,
        Some(&json!({ "account_id": euro, "campaigns": campaigns })),
    );
    assert_eq!(status, 202, "{answer}");
    let db = Db::open(&db_path, adcab::db::Open::Existing).unwrap();
    let task = answer["data"]["id"].as_i64().unwrap();
    wait_for(Duration::from_secs(60), "the campaigns to be made", || {
        let left = scalar(
            &db,
            &format!(
                "SELECT COUNT(*) FROM tasks WHERE id = {task} AND status IN ('pending', 'running')"
            ),
        );
        (left == 0).then_some(())
    });
    let rule = json!({
        "name": "Top up the low ones", "account_id": euro,
        "conditions": [{"metric": "budget", "op": "<", "value": "10"}],
        "action": {"type": "add_budget", "amount": "10", "max_per_day": "1000"},
        "cooldown_hours": 0, "max_runs_per_day": 24,
    });
    let (status, made) = call(&first.base, "POST", "/rules", &key, Some(&rule));
    assert_eq!(status, 200, "{made}");

    // The next hour closes: its sync, then the rule tops up the campaigns, at most 100.00. A
    // campaign topped up holds more than 10 and no longer matches, so a redone hour that forgot
    // the moves made before the kill would top up others and pass the cap.
    let to_next_hour = 3600 - first_seconds_into_hour(&config) + 90;
    admin(
        &config,
        &["sim", "advance", "--seconds", &to_next_hour.to_string()],
        "",
    );
    wait_for(Duration::from_secs(60), "four moves", || {
        (automation_money(&db, euro) >= 4 * 10_000_000).then_some(())
    });
    drop(first);
    let at_kill = automation_money(&db, euro);
    assert!(
        at_kill < 100_000_000,
        "killed before the run ended ({at_kill} moved)"
    );

    let second = serve(adcab(&config, &["serve"]));
    let hour_done =
        "SELECT COUNT(*) FROM rule_log WHERE outcome = 'skipped' AND reason = 'cabinet_daily_cap'";
    wait_for(
        Duration::from_secs(60),
        "the hour redone to the cap",
        || (scalar(&db, hour_done) > 0).then_some(()),
    );
    wait_for(Duration::from_secs(30), "every move settled", || {
        (scalar(
            &db,
            "SELECT COUNT(*) FROM automation_moves WHERE state = 'planned'",
        ) == 0)
            .then_some(())
    });
    drop(second);
    let moved = automation_money(&db, euro);
    let logged = scalar(
        &db,
        "SELECT COALESCE(SUM(moved_micros), 0) FROM rule_log WHERE outcome = 'acted'",
    );
    let ledger = scalar(
        &db,
        "SELECT COALESCE(SUM(moved_micros), 0) FROM automation_moves WHERE state = 'done'",
    );
    eprintln!(
        "automation killed after {} of the cap moved; after the restart {} moved in all \
         (the log says {}, the ledger {})",
        at_kill as f64 / 1e6,
        moved as f64 / 1e6,
        logged as f64 / 1e6,
        ledger as f64 / 1e6
    );
    assert!(
        moved <= 100_000_000,
        "{} moved against a cap of 100",
        moved as f64 / 1e6
    );
    assert_eq!(moved, logged, "the log shows every move");
    assert_eq!(moved, ledger, "the ledger shows every move");
    assert_eq!(moved, 100_000_000, "the cap was reached, once");
}

/// Seconds past the hour on the service clock (`adcab sim now`).
fn first_seconds_into_hour(config: &std::path::Path) -> i64 {
    let now = admin(config, &["sim", "now"], "")["now"]
        .as_str()
        .unwrap()
        .to_string();
    let t = adcab::clock::parse_iso(&now).unwrap();
    (t - adcab::clock::hour_start(t)).num_seconds()
}
