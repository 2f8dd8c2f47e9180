//! Owns the envelope regressions: a free plan told writes are not in it, and protocol and
//! body errors answered in the spec's envelope.

use super::request;
use crate::helpers::{spawn_app, RawResp};
use adcab::domain::access::Plan;
use adcab::ops;

#[test]
fn a_free_plan_key_is_told_writes_are_not_in_its_plan() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    ops::user_set(&app.services, user, Some(Plan::Free), None, None).unwrap();
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
