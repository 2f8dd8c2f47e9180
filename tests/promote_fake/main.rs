//! Self-tests of the promote API fake (tests/support/promote_fake): they drive it over HTTP
//! with ureq, as a connector would, and check it keeps the contract in shared/spec/promote-api.md.

#[path = "../support/fake_server.rs"]
mod fake_server;

#[path = "../support/promote_fake/mod.rs"]
mod promote_fake;

mod idempotency;
mod lifecycle;
mod money;
mod protocol;
mod targets;

use std::time::Duration;

use promote_fake::FakePromote;
use serde_json::{json, Value};

pub struct Reply {
    pub status: u16,
    pub json: Value,
    pub text: String,
    pub replayed: Option<String>,
    pub retry_after: Option<String>,
    pub content_type: String,
}

impl Reply {
    pub fn result(&self) -> &Value {
        assert_eq!(
            (self.status, &self.json["ok"]),
            (200, &json!(true)),
            "expected success: {}",
            self.text
        );
        &self.json["result"]
    }
    pub fn error(&self) -> &str {
        assert_eq!(
            self.json["ok"],
            json!(false),
            "expected an error: {}",
            self.text
        );
        self.json["error"].as_str().expect("error code")
    }
}

/// One request on a fresh connection; Err is a transport failure (a dropped connection).
pub fn send(
    url: &str,
    verb: &str,
    token: Option<&str>,
    key: Option<&str>,
    ct: &str,
    body: &[u8],
) -> Result<Reply, String> {
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(10))
        .build();
    let mut req = agent.request(verb, url).set("Content-Type", ct);
    if let Some(t) = token {
        req = req.set("Authorization", &format!("Bearer {t}"));
    }
    if let Some(k) = key {
        req = req.set("Idempotency-Key", k);
    }
    let resp = match if verb == "GET" {
        req.call()
    } else {
        req.send_bytes(body)
    } {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => return Err(e.to_string()),
    };
    let status = resp.status();
    let replayed = resp.header("Idempotent-Replayed").map(str::to_string);
    let retry_after = resp.header("Retry-After").map(str::to_string);
    let content_type = resp.header("Content-Type").unwrap_or("").to_string();
    let text = resp.into_string().map_err(|e| e.to_string())?;
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    Ok(Reply {
        status,
        json,
        text,
        replayed,
        retry_after,
        content_type,
    })
}

pub fn call_key(
    f: &FakePromote,
    token: &str,
    key: Option<&str>,
    method: &str,
    params: Value,
) -> Reply {
    let url = format!("{}/{method}", f.url);
    send(
        &url,
        "POST",
        Some(token),
        key,
        "application/json",
        params.to_string().as_bytes(),
    )
    .expect("answered")
}

pub fn call(f: &FakePromote, token: &str, method: &str, params: Value) -> Reply {
    call_key(f, token, None, method, params)
}

pub fn ok(f: &FakePromote, token: &str, method: &str, params: Value) -> Value {
    call(f, token, method, params).result().clone()
}

/// The error code of a call that must fail with the envelope on HTTP 200.
pub fn fails(f: &FakePromote, token: &str, method: &str, params: Value) -> String {
    let r = call(f, token, method, params);
    assert_eq!(r.status, 200, "{}", r.text);
    r.error().to_string()
}

pub fn chan_ad(title: &str, budget: &str) -> Value {
    json!({
        "title": title,
        "text": "Join the best channel",
        "promote_url": "https://t.me/good_channel",
        "cpm": 2.46,
        "target": {"type": "channels", "channel_ids": ["@good_channel"]},
        "placement": "channel_post",
        "initial_budget": budget.parse::<Value>().unwrap(),
    })
}

/// Creates, funds (with `budget`), and approves an ad; returns its id.
pub fn running_ad(f: &FakePromote, acct: &promote_fake::FakeAccount, budget: &str) -> i64 {
    let ad = ok(f, &acct.token, "createAd", chan_ad("Running", budget));
    let id = ad["ad_id"].as_i64().unwrap();
    f.approve(&acct.account_id, id);
    id
}

pub fn total(v: &Value) -> rust_decimal::Decimal {
    let d = |k: &str| v[k].to_string().parse::<rust_decimal::Decimal>().unwrap();
    d("remaining_budget") + d("ads_budget") + d("spent_budget")
}

pub fn multipart(
    method: &str,
    f: &FakePromote,
    token: &str,
    bytes: &[u8],
    account: Option<&str>,
) -> Reply {
    let mut body = Vec::new();
    if let Some(acct) = account {
        body.extend_from_slice(
            format!(
                "--XyZ\r\nContent-Disposition: form-data; name=\"account_id\"\r\n\r\n{acct}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n");
    body.extend_from_slice(bytes);
    body.extend_from_slice(b"\r\n--XyZ--\r\n");
    send(
        &format!("{}/{method}", f.url),
        "POST",
        Some(token),
        None,
        "multipart/form-data; boundary=XyZ",
        &body,
    )
    .unwrap()
}
