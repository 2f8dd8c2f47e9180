//! A create task survives a crash: the real binary is killed with SIGKILL mid-task and started
//! again; the task finishes with no campaign created twice and no money moved twice.

use adcab::store::StoreError;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::helpers::wait_for;
use adcab::db::Db;
use serde_json::{json, Value};

/// Starts the binary on a port of its own choosing; returns it with the API base URL it
/// logged (every start picks a fresh port, so no other test can take it in between) and the
/// lines it printed before.
fn serve(config: &Path) -> (Child, String, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_adcab"))
        .args(["--config", config.to_str().unwrap(), "serve"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut before = Vec::new();
    let serving = loop {
        let line = out.next().expect("the server logs its address").unwrap();
        if line.contains("adcab serving") {
            break line;
        }
        before.push(line);
    };
    std::thread::spawn(move || out.for_each(drop));
    let at = serving.find("127.0.0.1:").expect("the address is logged");
    let addr: String = serving[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
        .collect();
    (child, format!("http://{addr}/api/v1"), before)
}

fn call(method: &str, url: &str, key: &str, body: Option<&Value>) -> Option<(u16, Value)> {
    let req = ureq::request(method, url)
        .set("X-API-Key", key)
        .set("Idempotency-Key", "crash-test-create");
    let result = match body {
        Some(b) => req.send_string(&b.to_string()),
        None => req.call(),
    };
    let resp = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(_) => return None,
    };
    let status = resp.status();
    Some((
        status,
        serde_json::from_str(&resp.into_string().ok()?).ok()?,
    ))
}

/// Waits until the server answers.
fn ready(base: &str, key: &str) {
    wait_for(Duration::from_secs(20), "the server to come up", || {
        call("GET", &format!("{base}/targeting"), key, None)
    });
}

fn scalar(db: &Db, sql: &str) -> i64 {
    let sql = sql.to_string();
    db.read_blocking(move |c| Ok::<_, StoreError>(c.query_row(&sql, [], |r| r.get(0))?))
        .unwrap()
}

#[test]
fn a_create_task_killed_mid_way_finishes_once_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("crash.db");
    let config = dir.path().join("adcab.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:0\"\n[storage]\npath = \"{}\"\n[sim]\nlatency_ms = 15\n",
            db_path.display()
        ),
    )
    .unwrap();

    let (mut first, base, printed) = serve(&config);
    let key = printed
        .iter()
        .find_map(|l| {
            l.strip_prefix("API key (shown once, keep it): ")
                .map(|k| k.trim().to_string())
        })
        .expect("the demo key is printed");
    ready(&base, &key);
    let (_, cabinets) = call("GET", &format!("{base}/account/info"), &key, None).unwrap();
    let euro = cabinets["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["cabinet_type"] == "euro")
        .unwrap()["id"]
        .as_i64()
        .unwrap();
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
    let (status, answer) = call("POST", &format!("{base}/campaigns"), &key, Some(&body)).unwrap();
    assert_eq!(status, 202, "{answer}");
    let task = answer["data"]["id"].as_i64().unwrap();
    let progress = |db: &Db| scalar(db, &format!("SELECT progress FROM tasks WHERE id = {task}"));
    wait_for(Duration::from_secs(20), "the task to get under way", || {
        (progress(&db) >= 3).then_some(())
    });
    first.kill().unwrap();
    first.wait().unwrap();
    let at_kill = progress(&db);
    assert!(at_kill < 30, "killed mid-task (progress {at_kill})");

    let (mut second, base, _) = serve(&config);
    ready(&base, &key);
    let unfinished = format!(
        "SELECT COUNT(*) FROM tasks WHERE id = {task} AND status IN ('pending', 'running')"
    );
    wait_for(
        Duration::from_secs(30),
        "the task to end after the restart",
        || (scalar(&db, &unfinished) == 0).then_some(()),
    );
    let (_, t) = call("GET", &format!("{base}/tasks/{task}"), &key, None).unwrap();
    let done = t["data"].clone();
    assert_eq!(done["status"], "completed", "{done}");
    let (_, replay) = call("POST", &format!("{base}/campaigns"), &key, Some(&body)).unwrap();
    assert_eq!(
        replay["data"]["id"], task,
        "the answer survived the crash too"
    );
    Command::new("kill")
        .args(["-TERM", &second.id().to_string()])
        .status()
        .unwrap();
    assert!(second.wait().unwrap().success());

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
