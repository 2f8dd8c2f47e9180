//! The real binary under a service manager and a log collector: one JSON line per request
//! (route pattern, status, request id, key id; never the key), and the `sd_notify` protocol
//! (`READY=1` once it answers, `WATCHDOG=1` while it lives, `STOPPING=1` on SIGTERM).

use std::os::unix::net::UnixDatagram;
use std::time::Duration;

use serde_json::Value;

use super::{adcab, agent, call, config, serve};

#[test]
fn json_logs_carry_one_line_per_request_and_never_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "[log]\nformat = \"json\"\nlevel = \"info\"");
    let mut server = serve(adcab(&config, &["serve"]));
    let key = server.key();
    let (status, _, body) = call(
        &agent(),
        "GET",
        &format!("{}/campaigns/77", server.base),
        &key,
        None,
    )
    .unwrap();
    assert_eq!(status, 404, "{body}");
    let later = server.stop();
    let text = String::from_utf8_lossy(&later);
    assert!(!text.contains(&key), "the key is never logged");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not a JSON line: {l}")))
        .collect();
    let request = lines
        .iter()
        .find(|l| l["route"] == "/api/v1/campaigns/{ad}")
        .unwrap_or_else(|| panic!("no request line in {text}"));
    assert_eq!(request["method"], "GET");
    assert_eq!(request["status"], 404);
    assert!(request["request_id"].as_str().unwrap().starts_with("req_"));
    assert!(request["key_id"].as_i64().is_some(), "{request}");
    assert!(request["duration_ms"].as_f64().is_some());
    assert_eq!(request["level"], "INFO");
    assert!(lines.iter().any(|l| l["message"] == "adcab stopped"));
}

#[test]
fn systemd_hears_ready_watchdog_and_stopping() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("notify");
    let manager = UnixDatagram::bind(&socket).unwrap();
    manager
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut cmd = adcab(&config(dir.path(), ""), &["serve"]);
    cmd.env("NOTIFY_SOCKET", &socket)
        .env("WATCHDOG_USEC", "200000");
    let mut server = serve(cmd);
    let heard = |want: &str| {
        let mut buf = [0u8; 256];
        loop {
            let n = manager.recv(&mut buf).expect("a notification in time");
            let said = String::from_utf8_lossy(&buf[..n]).to_string();
            if said == want {
                return;
            }
            assert!(
                ["READY=1", "WATCHDOG=1"].contains(&said.as_str()),
                "unexpected {said:?} while waiting for {want}"
            );
        }
    };
    heard("READY=1");
    heard("WATCHDOG=1");
    heard("WATCHDOG=1");
    server.stop();
    heard("STOPPING=1");
}

#[test]
fn a_failed_delivery_never_logs_the_webhooks_password_or_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(
        dir.path(),
        "[log]\nformat = \"json\"\nlevel = \"info\"\n[webhooks]\nallow_private_targets = true",
    );
    let mut server = serve(adcab(&config, &["serve"]));
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://hook-user:hunter2@{}/in?token=s3cret-token&x=1",
        closed.local_addr().unwrap()
    );
    drop(closed);
    super::admin(
        &config,
        &["admin", "key", "set", "--id", "1", "--webhook-url", &url],
        "",
    );
    // The demo's campaigns leave review and the hour's sync sees it: their status changes go
    // to the webhook, and fail.
    super::admin(&config, &["sim", "advance", "--seconds", "3720"], "");
    let log = crate::helpers::wait_for(Duration::from_secs(20), "a failed delivery", || {
        let log = super::admin(&config, &["admin", "webhook", "log", "--key", "1"], "");
        let failed = log["deliveries"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["error"].is_string()));
        failed.then_some(log)
    });
    let later = server.stop();
    let text = String::from_utf8_lossy(&later);
    assert!(text.contains("webhook not delivered"), "{text}");
    for secret in ["hunter2", "s3cret-token", "hook-user"] {
        assert!(
            !text.contains(secret),
            "the server log shows {secret}: {text}"
        );
        assert!(
            !log.to_string().contains(secret),
            "admin webhook log shows {secret}: {log}"
        );
    }
    assert!(
        log.to_string().contains("/in?token=***&x=***"),
        "the log still names the receiver: {log}"
    );
}
