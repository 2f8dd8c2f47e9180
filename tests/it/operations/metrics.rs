//! `GET /metrics`: no key, no rate limit, Prometheus text; each metric moves when its event
//! happens; on `[metrics] listen`'s own listener the main one does not serve it.

use crate::helpers::{printed, spawn_app, spawn_app_with, Receiver, TestApp};
use adcab::ops;

fn scrape_at(root: &str) -> (u16, Option<String>, String) {
    let r = ureq::get(&format!("{root}/metrics")).call();
    let r = match r {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("/metrics: {e}"),
    };
    let status = r.status();
    let limit = r.header("x-ratelimit-limit").map(str::to_string);
    (status, limit, r.into_string().unwrap())
}

fn scrape(app: &TestApp) -> String {
    let (status, limit, text) = scrape_at(app.base.trim_end_matches("/api/v1"));
    assert_eq!(status, 200, "{text}");
    assert!(limit.is_none(), "no rate limit on /metrics");
    text
}

/// The value of the sample whose line starts with `series` (name and labels), 0 when absent.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series).and_then(|v| v.trim().parse().ok()))
        .unwrap_or(0.0)
}

#[test]
fn requests_are_counted_by_route_pattern_and_status_without_a_key() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let series =
        r#"adcab_http_requests_total{method="GET",route="/api/v1/campaigns/{ad}",status="200"}"#;
    let before = sample(&scrape(&app), series);
    app.get_ok(&format!("/campaigns/{ad}"), &key);
    app.get_ok(&format!("/campaigns/{ad}"), &key);
    app.get_err("/campaigns/999999", &key, 404, "CAMPAIGN_NOT_FOUND");
    let text = scrape(&app);
    assert_eq!(sample(&text, series) - before, 2.0, "{text}");
    assert!(
        sample(
            &text,
            r#"adcab_http_requests_total{method="GET",route="/api/v1/campaigns/{ad}",status="404"}"#
        ) >= 1.0
    );
    assert!(
        !text.contains(&format!("/campaigns/{ad}\"")),
        "raw paths never become labels"
    );
    assert!(
        sample(
            &text,
            r#"adcab_http_request_duration_seconds_count{method="GET",route="/api/v1/campaigns/{ad}"}"#
        ) >= 3.0
    );
    assert!(sample(&text, "adcab_database_size_bytes") > 0.0);
    assert!(text.trim_end().ends_with("# EOF"));
}

#[test]
fn refusals_deliveries_ingest_and_queue_each_move_their_metric() {
    let app = spawn_app_with(|c| c.limits.reads_per_minute = 2);
    let (user, cabinet, key) = app.manager();
    for _ in 0..3 {
        app.call_with_key("GET", "/account/info", &key);
    }
    let text = scrape(&app);
    assert_eq!(
        sample(&text, r#"adcab_rate_limited_total{budget="read"}"#),
        1.0,
        "{text}"
    );

    let hook = Receiver::start(200);
    let (id, _, _) = app.hook_key(user, &hook.url);
    printed(ops::key_ping(&app.services, ops::By::Operator, id).unwrap());
    let failing = Receiver::start(404);
    let (bad, _, _) = app.hook_key(user, &failing.url);
    printed(ops::key_ping(&app.services, ops::By::Operator, bad).unwrap());
    let text = scrape(&app);
    assert_eq!(
        sample(
            &text,
            r#"adcab_webhook_deliveries_total{outcome="delivered"}"#
        ),
        1.0
    );
    assert_eq!(
        sample(&text, r#"adcab_webhook_deliveries_total{outcome="failed"}"#),
        1.0
    );

    let token = printed(ops::tracker_rotate(&app.services, user).unwrap())["token"]
        .as_str()
        .unwrap()
        .to_string();
    app.campaign(
        cabinet,
        crate::helpers::Camp::channel("Bot", "https://t.me/shop_bot?start=m1"),
    );
    let r = app.call(
        "GET",
        &format!("/ingest/{token}?ref=m1&event=lead&txid=x1"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        sample(
            &scrape(&app),
            r#"adcab_ingest_events_total{outcome="recorded"}"#
        ),
        1.0
    );

    assert_eq!(sample(&scrape(&app), "adcab_tasks_waiting"), 0.0);
    let created = adcab::clock::iso(app.now() - chrono::Duration::hours(2));
    app.sql(&format!(
        "INSERT INTO tasks (owner_id, account_id, type, lane, status, payload, total, created_at, wait_until)
         VALUES ({user}, {cabinet}, 'bulk', 'other', 'pending', '{{}}', 1, '{created}', 4102444800)"
    ));
    let waiting = scrape(&app);
    assert_eq!(sample(&waiting, "adcab_tasks_waiting"), 1.0, "{waiting}");
    let age = sample(&waiting, "adcab_task_oldest_age_seconds");
    assert!((7200.0..7300.0).contains(&age), "oldest task age {age}");
}

#[test]
fn events_waiting_for_a_slow_receiver_are_the_outbox_backlog() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    // A receiver that takes connections and never answers: the sender waits on it, and the
    // events stay in the outbox until their delivery is logged.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", silent.local_addr().unwrap());
    let (key, _, _) = app.hook_key(user, &url);
    assert_eq!(sample(&scrape(&app), "adcab_webhook_outbox_backlog"), 0.0);
    let now = adcab::clock::iso(app.now());
    for n in 0..3 {
        app.sql(&format!(
            "INSERT INTO webhook_outbox (key_id, event, delivery_id, payload, created_at)
             VALUES ({key}, 'status_change', 'backlog-{n}', '{{}}', '{now}')"
        ));
    }
    assert_eq!(sample(&scrape(&app), "adcab_webhook_outbox_backlog"), 3.0);
    drop(silent);
}

#[test]
fn a_metrics_listener_of_its_own_takes_metrics_off_the_main_one() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = free.local_addr().unwrap().to_string();
    drop(free);
    let listen = addr.clone();
    let app = spawn_app_with(move |c| c.metrics.listen = listen);
    let (status, _, _) = scrape_at(app.base.trim_end_matches("/api/v1"));
    assert_eq!(status, 404, "the main listener no longer serves /metrics");
    let (status, _, text) = scrape_at(&format!("http://{addr}"));
    assert_eq!(status, 200);
    assert!(text.contains("adcab_http_requests_total"), "{text}");
    let r = ureq::get(&format!("http://{addr}/api/v1/account/info")).call();
    assert!(
        matches!(r, Err(ureq::Error::Status(404, _))),
        "the metrics listener serves nothing else"
    );
}

#[test]
fn unknown_methods_and_paths_add_no_series_to_the_scrape() {
    let app = spawn_app();
    // Warm up every series the probe requests below make, so only what the flood adds is
    // measured.
    let paths = [
        "/healthz",
        "/api/v1/campaigns",
        "/campaigns",
        "/no/such/path",
    ];
    let flood = |round: usize| {
        for n in 0..100 {
            let method: String = format!("X{round}Q{n}ZZ").chars().take(64).collect();
            let path = format!("{}/{round}-{n}", paths[n % paths.len()]);
            let answer = app.raw(
                format!("{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .as_bytes(),
            );
            assert!(answer.status < 500, "{method} {path}: {}", answer.status);
        }
    };
    flood(0);
    scrape(&app);
    let before = scrape(&app);
    flood(1);
    flood(2);
    let after = scrape(&app);
    assert!(
        after.contains(r#"method="other""#),
        "unknown methods count as other: {after}"
    );
    assert!(!after.contains("X1Q"), "a raw method became a label");
    assert!(!after.contains("/1-"), "a raw path became a label");
    let series = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.rsplit_once(' ').map(|(name, _)| name.to_string()))
            .collect()
    };
    let (before, after) = (series(&before), series(&after));
    let added: Vec<&String> = after.iter().filter(|s| !before.contains(s)).collect();
    assert!(
        added.is_empty(),
        "200 more requests of new methods and paths added series: {added:?}"
    );
}
