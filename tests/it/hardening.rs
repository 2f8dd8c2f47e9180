//! Regressions of the hardening review, at the HTTP level: nothing is read before the key is
//! checked, bodies and heads have deadlines, connections are capped, limits come before work,
//! money is read strictly and summed safely, unreadable rows are errors, panics and hang-ups
//! leave no key running, deletes survive a crash, and every answer is the spec's envelope.

use adcab::domain::access::Plan;
use adcab::platform::sim::Fault;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::helpers::{
    printed, read_answer, spawn_app, spawn_app_with, wait_for, Camp, RawResp, Resp, TestApp,
};
use adcab::panel::{self, CabinetChange, NewKey};
use adcab::store::StoreError;
use serde_json::{json, Value};

/// A request head (and body) as raw bytes, with `Host` and `Connection: close`.
fn request(method: &str, path: &str, headers: &[(&str, String)], body: &str) -> Vec<u8> {
    let mut text =
        format!("{method} /api/v1{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    text.into_bytes()
}

/// Opens a connection and sends `bytes`, leaving it open.
fn open(app: &TestApp, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(app.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(bytes).unwrap();
    stream
}

/// Waits until the server closes `stream` (a read gives EOF or an error); returns how long.
fn closed_after(mut stream: TcpStream) -> Duration {
    let started = Instant::now();
    let mut sink = [0u8; 1024];
    while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
    started.elapsed()
}

fn post(app: &TestApp, key: &str, path: &str, body: &Value, idem: &str) -> Resp {
    app.send("POST", path, key, Some(body), &[("Idempotency-Key", idem)])
}

/// Checks the answer is a 400 naming `param`.
fn refused(r: &Resp, param: &str) {
    assert_eq!(
        (r.status, &r.body["param"]),
        (400, &json!(param)),
        "{}",
        r.body
    );
}

fn campaign(app: &TestApp, account: i64, ad: i64, key: &str) -> Value {
    app.get_ok(&format!("/campaigns/{ad}?account_id={account}"), key)["data"].clone()
}

#[test]
fn an_upload_is_refused_from_its_head_before_the_body_is_read() {
    let app = spawn_app_with(|c| c.limits.writes_per_minute = 1);
    let (_, cabinet, key) = app.manager();
    let head = |key: Option<&str>| {
        let mut headers = vec![
            (
                "Content-Type",
                "multipart/form-data; boundary=X".to_string(),
            ),
            ("Content-Length", (10 * 1024 * 1024).to_string()),
        ];
        if let Some(key) = key {
            headers.push(("X-API-Key", key.to_string()));
        }
        request(
            "POST",
            &format!("/media?account_id={cabinet}"),
            &headers,
            "",
        )
    };
    for (key, status, code) in [
        (None, 401, "API_KEY_MISSING"),
        (Some("adcab_0000"), 401, "API_KEY_INVALID"),
    ] {
        let started = Instant::now();
        let mut stream = open(&app, &head(key));
        read_answer(&mut stream).unwrap().assert_error(status, code);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "no body awaited"
        );
    }
    let spent = app.send("PATCH", "/campaigns/1", &key, Some(&json!({})), &[]);
    assert_ne!(
        spent.status, 429,
        "the one write of the minute: {}",
        spent.body
    );
    let mut limited = open(&app, &head(Some(&key)));
    read_answer(&mut limited)
        .unwrap()
        .assert_error(429, "RATE_LIMITED");
}

#[test]
fn a_body_that_does_not_arrive_in_time_is_answered_408() {
    let app = spawn_app_with(|c| c.server.body_timeout_ms = 400);
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let bytes = request(
        "PATCH",
        &format!("/campaigns/{ad}?account_id={cabinet}"),
        &[
            ("X-API-Key", key.clone()),
            ("Content-Type", "application/json".into()),
            ("Content-Length", "100".into()),
        ],
        "{\"title\":",
    );
    let started = Instant::now();
    let mut stream = open(&app, &bytes);
    read_answer(&mut stream)
        .unwrap()
        .assert_error(408, "REQUEST_TIMEOUT");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(350) && took < Duration::from_secs(3),
        "{took:?}"
    );
    assert_eq!(campaign(&app, cabinet, ad, &key)["title"], "Running");
}

#[test]
fn an_oversized_upload_is_refused_and_leaves_no_file() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let mut body = b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\r\n\x89PNG\r\n\x1a\n".to_vec();
    body.resize(body.len() + 10 * 1024 * 1024, b'x');
    body.extend_from_slice(b"\r\n--B--\r\n");
    let chunked = {
        let mut out = format!(
            "POST /api/v1/media?account_id={cabinet} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: {key}\r\nContent-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        .into_bytes();
        for chunk in body.chunks(64 * 1024) {
            out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            out.extend_from_slice(chunk);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    };
    app.raw(&chunked).assert_error(413, "FILE_TOO_LARGE");
    let media = app.dir.path().join("media");
    let left: Vec<_> = std::fs::read_dir(&media)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn silent_slow_and_idle_connections_are_closed() {
    let app = spawn_app_with(|c| c.server.header_timeout_ms = 300);
    let silent = TcpStream::connect(app.addr()).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    assert!(closed_after(silent) < Duration::from_secs(2));

    let mut slow = TcpStream::connect(app.addr()).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let started = Instant::now();
    for byte in b"GET /api/v1/targeting HTTP/1.1\r\nX-Slow: ".iter().cycle() {
        if slow.write_all(&[*byte]).is_err() || started.elapsed() > Duration::from_secs(3) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "a head trickling in is cut off"
    );

    let mut idle = TcpStream::connect(app.addr()).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    idle.write_all(b"GET /api/v1/targeting HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    read_answer(&mut idle)
        .unwrap()
        .assert_error(401, "API_KEY_MISSING");
    assert!(
        closed_after(idle) < Duration::from_secs(2),
        "keep-alive idles out"
    );
}

#[test]
fn connections_over_the_cap_are_told_busy_and_served_again_after() {
    let app = spawn_app_with(|c| {
        c.server.max_connections = 2;
        c.server.header_timeout_ms = 20_000;
    });
    let (_, _, key) = app.manager();
    let held: Vec<TcpStream> = (0..2)
        .map(|_| TcpStream::connect(app.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let mut third = TcpStream::connect(app.addr()).unwrap();
    third
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let busy = read_answer(&mut third).unwrap();
    busy.assert_error(503, "SERVICE_UNAVAILABLE");
    assert_eq!(
        busy.headers.get("retry-after").map(String::as_str),
        Some("2")
    );
    drop(held);
    wait_for(
        Duration::from_secs(5),
        "a place to free up and serve again",
        || {
            let mut s = TcpStream::connect(app.addr()).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            s.write_all(&request(
                "GET",
                "/targeting",
                &[("X-API-Key", key.clone())],
                "",
            ))
            .unwrap();
            (read_answer(&mut s).map(|r| r.status).ok() == Some(200)).then_some(())
        },
    );
}

#[test]
fn an_answer_the_client_does_not_take_closes_its_connection() {
    let app = spawn_app_with(|c| {
        c.server.max_connections = 1;
        c.server.write_timeout_ms = 500;
        c.limits.reads_per_minute = 1_000_000;
    });
    let (_, _, key) = app.manager();
    let one = request("GET", "/targeting", &[("X-API-Key", key.clone())], "");
    let keep_alive = String::from_utf8(one)
        .unwrap()
        .replace("Connection: close\r\n", "");
    // The greedy client sends thousands of requests and reads only the first answer, once it
    // holds the one place (the start-up probe's connection may still hold it for a moment).
    let greedy = wait_for(
        Duration::from_secs(10),
        "the greedy client to hold the one place",
        || {
            let mut greedy = TcpStream::connect(app.addr()).unwrap();
            greedy
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            greedy
                .write_all(keep_alive.repeat(3_000).as_bytes())
                .unwrap();
            (read_answer(&mut greedy).map(|r| r.status).ok() == Some(200)).then_some(greedy)
        },
    );
    let started = Instant::now();
    let served = wait_for(
        Duration::from_secs(10),
        "the stalled connection to lose its place",
        || {
            let mut other = TcpStream::connect(app.addr()).unwrap();
            other
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            other
                .write_all(&request(
                    "GET",
                    "/targeting",
                    &[("X-API-Key", key.clone())],
                    "",
                ))
                .unwrap();
            match read_answer(&mut other) {
                Ok(r) if r.status == 200 => return Some(started.elapsed()),
                Ok(r) => assert_eq!(r.status, 503, "{}", r.body),
                Err(_) => {}
            }
            None
        },
    );
    assert!(
        served > Duration::from_millis(300),
        "the greedy client held the place first: {served:?}"
    );
    drop(greedy);
}

#[test]
fn huge_lists_are_refused_before_any_work() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ids: Vec<i64> = (1..=300_000).collect();
    let body = json!({ "account_id": cabinet, "action": "pause", "ad_ids": ids });
    assert!(body.to_string().len() < 2 * 1024 * 1024);
    let started = Instant::now();
    let r = post(&app, &key, "/campaigns/bulk", &body, "huge-ids-1");
    refused(&r, "ad_ids");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    let countries: Vec<&str> = std::iter::repeat_n("DE", 200_000).collect();
    let create = json!({
        "account_id": cabinet, "title": "t", "text": "t", "promote_url": "https://example.com",
        "cpm": 2, "budget": 0, "target_type": "users", "countries": countries
    });
    let started = Instant::now();
    let r = post(&app, &key, "/campaigns", &create, "huge-countries-1");
    refused(&r, "countries");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    let pairs: String = (0..300).map(|i| format!("p{i}=1&")).collect();
    let r = app.get(&format!("/campaigns?{pairs}"), &key);
    refused(&r, "query");
}

#[test]
fn no_stored_amounts_can_break_a_campaign_read() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let max = i64::MAX;
    app.sql(&format!(
        "INSERT INTO conversions (id, holder_id, txid, event_type, ref, amount_micros, currency, account_id, received_at, updated_at)
         VALUES (901, {user}, 'a', 'purchase', 'r', {max}, 'USD', {cabinet}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
                (902, {user}, 'b', 'purchase', 'r', {max}, 'USD', {cabinet}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
                (903, {user}, 'c', 'lead', 'r', {max}, 'USD', {cabinet}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
                (904, {user}, 'd', 'lead', 'r', -5, 'EUR', {cabinet}, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
         INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
         VALUES (901, {cabinet}, {ad}), (902, {cabinet}, {ad}), (903, {cabinet}, {ad}), (904, {cabinet}, {ad});"
    ));
    let one = campaign(&app, cabinet, ad, &key);
    assert_eq!(
        one["revenue"]["USD"], "27670116110564.327421",
        "3 x i64::MAX micro-units, exactly"
    );
    assert_eq!(one["revenue"]["EUR"], "-0.000005");
    assert_eq!(
        one["conversions"],
        json!({ "lead": 2, "conversion": 0, "purchase": 2 })
    );
    let list = app.get_ok("/campaigns", &key);
    assert_eq!(list["data"][0]["revenue"]["USD"], "27670116110564.327421");
}

#[test]
fn amounts_are_read_in_one_strict_grammar_and_bounded() {
    let app = spawn_app();
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        postbacks: true,
        ..NewKey::default()
    });
    let ad = app.approved(
        cabinet,
        Camp::site("Shop", "https://shop.example.com/?subid=s1"),
    );
    let postback = |amount: Value| {
        let body = json!({ "subid": "s1", "event": "sale", "txid": uuid::Uuid::new_v4().to_string(), "amount": amount });
        app.send("POST", "/postback", &key, Some(&body), &[])
    };
    for bad in [
        json!("1_0"),
        json!("1e5"),
        json!("+5"),
        json!(" 5"),
        json!("1."),
        json!(".5"),
        json!("1000000000.01"),
        serde_json::from_str::<Value>("9223372036854.775807").unwrap(),
        serde_json::from_str::<Value>("1e2").unwrap(),
    ] {
        let r = postback(bad.clone());
        refused(&r, "amount");
    }
    let exact = serde_json::from_str::<Value>("123456.654321").unwrap();
    assert_eq!(postback(exact).status, 200);
    assert_eq!(postback(json!("1000000000")).status, 200);
    assert_eq!(postback(json!("1000000000")).status, 200);
    let read = campaign(&app, cabinet, ad, &key);
    assert_eq!(read["revenue"]["USD"], "2000123456.654321");

    let budget = |amount: Value| {
        let body = json!({ "action": "add", "amount": amount });
        post(
            &app,
            &key,
            &format!("/campaigns/{ad}/budget"),
            &body,
            &uuid::Uuid::new_v4().to_string(),
        )
    };
    for bad in [
        json!("1e1"),
        json!("5 "),
        serde_json::from_str::<Value>("5e0").unwrap(),
    ] {
        let r = budget(bad.clone());
        refused(&r, "amount");
    }
}

#[test]
fn money_past_the_largest_amount_is_refused_by_field_not_wrapped() {
    let app = spawn_app();
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000000000");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let ad = app.funded(cabinet, 999_999_999_000_000);
    let add = json!({ "action": "add", "amount": "2" });
    let r = post(
        &app,
        &key,
        &format!("/campaigns/{ad}/budget"),
        &add,
        "near-max-1",
    );
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["param"], "amount");
    assert_eq!(campaign(&app, cabinet, ad, &key)["budget"], "999999999.00");
    let over = panel::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            balance: Some("1000000000.01".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(over.param(), Some("balance"));
    let far = panel::sim_advance(&app.services, i64::MAX).unwrap_err();
    assert_eq!(far.param(), Some("seconds"));
    assert!(app.get_ok("/account/info", &key)["data"][0]["balance"].is_string());
}

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
    app.wait_for_tasks();
    for id in [71, 72] {
        let (status, error, succeeded) = stored(id);
        assert_eq!(status, "failed");
        assert!(error.unwrap_or_default().contains("cannot be read"));
        assert_eq!(succeeded, 0, "nothing ran on made-up values");
    }
    let failed = app.get_ok("/tasks/71", &key)["data"].clone();
    assert_eq!(failed["status"], "failed", "{failed}");
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
fn a_multibyte_timezone_is_a_validation_error_that_frees_the_key() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let schedule = json!({ "days": { "mon": [9] }, "timezone": "é€" });
    let r = app.send(
        "PATCH",
        &format!("/campaigns/{ad}"),
        &key,
        Some(&json!({ "schedule": schedule })),
        &[],
    );
    refused(&r, "schedule.timezone");
    let bulk = json!({ "action": "set_schedule", "ad_ids": [ad], "schedule": schedule });
    let r = post(&app, &key, "/campaigns/bulk", &bulk, "bulk-tz-key");
    refused(&r, "schedule.timezone");
    let mut create = json!({
        "title": "t", "text": "Read us", "promote_url": "https://t.me/alpha_chan", "cpm": 2,
        "budget": 10, "target_type": "channels", "channels": ["@tech_daily"], "schedule": schedule
    });
    let r = post(&app, &key, "/campaigns", &create, "create-tz-key");
    refused(&r, "schedule.timezone");
    create["schedule"]["timezone"] = json!("UTC+3");
    let r = post(&app, &key, "/campaigns", &create, "create-tz-key");
    assert_eq!(r.status, 202, "the key was not left claimed: {}", r.body);
}

#[test]
fn a_panic_in_a_request_is_a_500_that_leaves_no_key_running() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.funded(cabinet, 10_000_000);
    panel::sim_fail(&app.services, cabinet, Fault::Panic, 1).unwrap();
    let add = json!({ "action": "add", "amount": "5" });
    let path = format!("/campaigns/{ad}/budget");
    let first = post(&app, &key, &path, &add, "panic-key-1");
    first.assert_error(500, "INTERNAL_ERROR");
    assert_eq!(first.body["error"], "Internal server error.");
    let replay = wait_for(Duration::from_secs(5), "the claim to end", || {
        let r = post(&app, &key, &path, &add, "panic-key-1");
        (r.body["code"] != "IDEMPOTENCY_IN_PROGRESS").then_some(r)
    });
    // A replay is the stored answer: its request_id is the first request's, not this one's
    // X-Request-Id, so `assert_error` does not apply.
    assert_eq!(
        (replay.status, &replay.body["code"]),
        (500, &json!("INTERNAL_ERROR")),
        "a 5xx is replayed"
    );
    assert_eq!(
        app.get_ok("/account/info", &key)["success"],
        true,
        "still serving"
    );
    let again = post(&app, &key, &path, &add, "panic-key-2");
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["data"]["budget"], "15.00");
}

#[test]
fn a_client_that_hangs_up_leaves_its_budget_move_finished_and_recorded() {
    let app = spawn_app_with(|c| c.sim.latency_ms = 150);
    let (_, cabinet, key) = app.manager();
    let ad = app.funded(cabinet, 10_000_000);
    let body = json!({ "account_id": cabinet, "action": "add", "amount": "5" }).to_string();
    let bytes = request(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        &[
            ("X-API-Key", key.clone()),
            ("Idempotency-Key", "hang-up-key-1".into()),
            ("Content-Type", "application/json".into()),
            ("Content-Length", body.len().to_string()),
        ],
        &body,
    );
    drop(open(&app, &bytes));
    let path = format!("/campaigns/{ad}/budget");
    let same = json!({ "account_id": cabinet, "action": "add", "amount": "5" });
    let replay = wait_for(
        Duration::from_secs(10),
        "the claim of the hung-up request to end",
        || {
            let r = post(&app, &key, &path, &same, "hang-up-key-1");
            (r.body["code"] != "IDEMPOTENCY_IN_PROGRESS").then_some(r)
        },
    );
    assert_eq!(replay.status, 200, "{}", replay.body);
    assert_eq!(replay.body["meta"]["moved"], "5.00");
    assert_eq!(
        campaign(&app, cabinet, ad, &key)["budget"],
        "15.00",
        "moved once"
    );
    let history = printed(panel::history(&app.services, cabinet, ad).unwrap());
    let moves = history["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "budget")
        .count();
    assert_eq!(moves, 1, "recorded once: {history}");
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
    panel::cabinet_set(
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
    app.wait_for_tasks();
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
    panel::task_cancel(&app.services, blocker).unwrap();
    app.wait_for_tasks();
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
fn a_free_plan_key_is_told_writes_are_not_in_its_plan() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    panel::user_set(&app.services, user, Some(Plan::Free), None).unwrap();
    let r = app.send("POST", &format!("/campaigns/{ad}/pause"), &key, None, &[]);
    r.assert_error(403, "FEATURE_NOT_AVAILABLE");
    assert_eq!(r.body["feature"], "manage_campaigns");
    app.get_err("/account/info", &key, 403, "FORBIDDEN");
}

#[test]
fn protocol_and_body_errors_are_answered_in_the_envelope() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    app.raw(b"GARBAGE\r\n\r\n").assert_error(400, "BAD_REQUEST");
    app.raw(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .assert_error(400, "BAD_REQUEST");
    app.raw(b"GET /api/v1/targeting HTTP/9.9\r\n\r\n")
        .assert_error(400, "BAD_REQUEST");
    let long = format!(
        "GET /api/v1/targeting?x={} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(70_000)
    );
    app.raw(long.as_bytes()).assert_error(414, "URI_TOO_LONG");
    let big_header = format!(
        "GET /api/v1/targeting HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(500_000)
    );
    let answer: RawResp = app.raw(big_header.as_bytes());
    answer.assert_error(431, "HEADERS_TOO_LARGE");
    let many: String = (0..150).map(|i| format!("X-H{i}: 1\r\n")).collect();
    app.raw(format!("GET /api/v1/targeting HTTP/1.1\r\nHost: x\r\n{many}\r\n").as_bytes())
        .assert_error(431, "HEADERS_TOO_LARGE");
    let chunked = format!(
        "PATCH /api/v1/campaigns/{ad}?account_id={cabinet} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: {key}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n"
    );
    app.raw(chunked.as_bytes()).assert_error(400, "BAD_REQUEST");
    let over = request(
        "PATCH",
        &format!("/campaigns/{ad}?account_id={cabinet}"),
        &[
            ("X-API-Key", key.clone()),
            ("Content-Length", (3 * 1024 * 1024).to_string()),
        ],
        "",
    );
    app.raw(&over).assert_error(413, "BODY_TOO_LARGE");
    let mut binary_key = format!(
        "POST /api/v1/campaigns/{ad}/budget?account_id={cabinet} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: {key}\r\nContent-Length: 25\r\nIdempotency-Key: "
    )
    .into_bytes();
    binary_key.extend_from_slice(
        b"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\r\n\r\n{\"action\":\"withdraw_all\"}",
    );
    app.raw(&binary_key)
        .assert_error(400, "IDEMPOTENCY_KEY_INVALID");
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
fn stale_uploads_of_a_stopped_process_are_removed_at_start() {
    let app = spawn_app();
    let media = app.dir.path().join("media");
    std::fs::create_dir_all(&media).unwrap();
    std::fs::write(media.join(".upload-deadbeef"), b"partial").unwrap();
    std::fs::write(media.join("med_kept"), b"kept").unwrap();
    let app = app.restart();
    assert!(!media.join(".upload-deadbeef").exists());
    assert!(media.join("med_kept").exists());
    drop(app);
}
