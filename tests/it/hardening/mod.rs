//! Regressions of the hardening review, at the HTTP level: nothing is read before the key is
//! checked, bodies and heads have deadlines, connections are capped, limits come before work,
//! money is read strictly and summed safely, unreadable rows are errors, panics and hang-ups
//! leave no key running, deletes survive a crash, and every answer is the spec's envelope.
//! This file holds what the areas share: raw requests and the checks they repeat.

mod connections;
mod envelope;
mod failures;
mod input;
mod keys;
mod uploads;

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use crate::helpers::{Resp, TestApp};
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
