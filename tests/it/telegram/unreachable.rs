//! A platform that cannot be reached is said as what it is: a closed port (refused), a name
//! under `.invalid` (does not resolve), `https://` at a server that does not speak TLS, a
//! listener that accepts and never answers (no answer in time), and a connection closed before
//! the answer; in the error `platform check` fails with and its sentence (the binary's too),
//! in the readiness probe, and in the API's message, whose code stays `PLATFORM_UNAVAILABLE`.

use std::net::TcpListener;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use super::{connected, spawn_on, FakePromote, Fault, Tg};
use adcab::cli::Failure;
use adcab::ops::{self, OpsError};
use adcab::platform::{PlatformError, PlatformKind, Unreachable};

use crate::helpers::{spawn_app_with, Resp, TestApp};

/// A deadline short enough for a test, long enough for a loaded machine to connect locally.
const TIMEOUT_MS: u64 = 400;

/// The server on the connector with its base URL at `url`.
fn spawn_at(url: &str) -> TestApp {
    let url = url.to_string();
    spawn_app_with(move |c| {
        c.platform.kind = PlatformKind::Telegram;
        c.telegram.api_url = url;
        c.telegram.calls_per_second = 1000;
        c.telegram.timeout_ms = TIMEOUT_MS;
    })
}

/// A port nothing listens on (bound, then let go).
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// What `platform check` failed with: the cause, and the sentence the command prints.
fn check_fails(app: &TestApp) -> (Unreachable, String) {
    match ops::platform_check(&app.services, "any-token") {
        Err(OpsError::Platform(PlatformError::Unreachable(cause))) => {
            let sentence = Failure::Ops(OpsError::Platform(PlatformError::Unreachable(
                cause.clone(),
            )))
            .to_string();
            (cause, sentence)
        }
        Err(other) => panic!("not an unreachable platform: {other:?}"),
        Ok(found) => panic!("the check passed: {found:?}"),
    }
}

/// `GET /readyz`, checked against the OpenAPI document.
fn readiness(app: &TestApp) -> Resp {
    let root = app.base.trim_end_matches("/api/v1");
    Resp::from_ureq(ureq::get(&format!("{root}/readyz")).call(), "GET /readyz")
}

#[test]
fn a_closed_port_is_a_refused_connection_in_the_check_and_the_readiness_probe() {
    let port = closed_port();
    let app = spawn_at(&format!("http://127.0.0.1:{port}"));
    let before = readiness(&app);
    assert_eq!(
        before.body["platform"]["detail"],
        "not called since the start"
    );
    let (cause, sentence) = check_fails(&app);
    assert_eq!(cause, Unreachable::Refused(format!("127.0.0.1:{port}")));
    assert_eq!(
        sentence,
        format!("the platform refused the connection (127.0.0.1:{port})")
    );
    let r = readiness(&app);
    assert_eq!(r.status, 200, "reported, not counted: {}", r.body);
    assert_eq!(r.body["status"], "ready");
    assert_eq!(r.body["platform"]["ok"], false);
    let detail = r.body["platform"]["detail"].as_str().unwrap();
    assert!(
        detail.ends_with(&format!(
            "failed: the platform refused the connection (127.0.0.1:{port})"
        )),
        "{detail}"
    );
}

#[test]
fn a_listener_that_never_answers_is_a_timeout_in_the_check_and_the_readiness_probe() {
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let app = spawn_at(&format!("http://{}", silent.local_addr().unwrap()));
    let (cause, sentence) = check_fails(&app);
    assert_eq!(cause, Unreachable::Timeout);
    assert_eq!(sentence, "the platform did not answer in time");
    let r = readiness(&app);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["platform"]["ok"], false);
    let detail = r.body["platform"]["detail"].as_str().unwrap();
    assert!(
        detail.ends_with("failed: the platform did not answer in time"),
        "{detail}"
    );
    drop(silent);
}

#[test]
fn a_name_under_invalid_does_not_resolve() {
    let app = spawn_at("https://adcab-connector-test.invalid");
    let (cause, sentence) = check_fails(&app);
    assert_eq!(
        cause,
        Unreachable::Dns("adcab-connector-test.invalid".into())
    );
    assert_eq!(
        sentence,
        "the platform's name did not resolve (adcab-connector-test.invalid)"
    );
}

#[test]
fn https_at_a_plain_http_server_is_a_tls_failure() {
    let fake = FakePromote::start();
    let account = fake.add_account("EUR", "Plain", "10", false);
    let app = spawn_at(&fake.url.replace("http://", "https://"));
    let (cause, sentence) = check_fails(&app);
    assert!(
        matches!(cause, Unreachable::Tls(_)),
        "not a TLS failure: {cause:?}"
    );
    assert!(
        sentence.starts_with("the TLS handshake with the platform failed: "),
        "{sentence}"
    );
    let plain = spawn_on(&fake);
    let found = ops::platform_check(&plain.services, &account.token).unwrap();
    assert_eq!(
        found.account.platform_id, account.account_id,
        "the same server answers over plain HTTP"
    );
}

#[test]
fn a_connection_closed_before_the_answer_is_said_as_such() {
    let fake = FakePromote::start();
    let account = fake.add_account("EUR", "Dropped", "10", false);
    let app = spawn_on(&fake);
    fake.fail_next(Fault::DropBefore, Some("getCurrentAccount"), 3);
    match ops::platform_check(&app.services, &account.token) {
        Err(OpsError::Platform(PlatformError::Unreachable(cause))) => assert!(
            matches!(cause, Unreachable::Closed(_)),
            "not a closed connection: {cause:?}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_api_keeps_its_code_and_names_the_cause_without_the_address() {
    let Tg {
        app,
        fake,
        cabinet,
        key,
        ..
    } = connected(vec![]);
    let ad = app.create_through_api(&key, cabinet, json!({}));
    let port = fake.url.rsplit(':').next().unwrap().to_string();
    drop(fake);
    let body = json!({ "account_id": cabinet, "title": "Renamed" });
    let r = app.send("PATCH", &format!("/campaigns/{ad}"), &key, Some(&body), &[]);
    r.assert_error(503, "PLATFORM_UNAVAILABLE");
    assert_eq!(
        r.body["error"],
        "The ad platform refused the connection; read the campaign, then retry."
    );
    let message = r.body["error"].as_str().unwrap();
    assert!(!message.contains("127.0.0.1"), "{message}");
    let ready = readiness(&app);
    let detail = ready.body["platform"]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!("refused the connection (127.0.0.1:{port})")),
        "the operator's probe has the address: {detail}"
    );
}

#[test]
fn the_binary_prints_the_cause_when_platform_check_cannot_reach_the_platform() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("adcab.toml");
    let port = closed_port();
    std::fs::write(
        &config,
        format!(
            "[storage]\npath = \"{}\"\n[demo]\nbootstrap = false\n[platform]\nkind = \"telegram\"\n[telegram]\napi_url = \"http://127.0.0.1:{port}\"\ntimeout_ms = {TIMEOUT_MS}\n",
            dir.path().join("cli.db").display()
        ),
    )
    .unwrap();
    let adcab = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_adcab"));
        c.arg("--config").arg(&config);
        c
    };
    let init = adcab().arg("init").output().unwrap();
    assert!(init.status.success(), "{init:?}");
    let mut check = adcab()
        .args(["admin", "platform", "check", "--token-stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = check.stdin.take().unwrap();
        stdin.write_all(b"some-token").unwrap();
    }
    let out = check.wait_with_output().unwrap();
    assert!(!out.status.success());
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        printed["error"],
        format!("the platform refused the connection (127.0.0.1:{port})")
    );
}
