//! Owns the typed HTTP client: calls whose names state the answer they expect, answers as
//! `Resp`, and the check that a failure is the spec's envelope.

use std::collections::HashMap;

use super::{openapi, TestApp};
use serde_json::Value;

pub struct Resp {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: Value,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// Checks the answer is the spec's failure envelope with `status` and `code`.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_error_envelope(self.status, &self.headers, &self.body, status, code);
    }

    /// The answer a ureq call got, whatever its status, checked against the OpenAPI document
    /// (the method is the first word of `what` when that is one); panics, naming `what` was
    /// sent, when none came.
    pub fn from_ureq(result: Result<ureq::Response, ureq::Error>, what: &str) -> Resp {
        let r = match result {
            Ok(r) | Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{what}: {e}"),
        };
        let status = r.status();
        let path = url_path(r.get_url()).to_string();
        let headers = r
            .headers_names()
            .into_iter()
            .map(|n| {
                let v = r.header(&n).unwrap_or_default().to_string();
                (n.to_ascii_lowercase(), v)
            })
            .collect();
        let text = r.into_string().expect("body");
        let body =
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("body is not JSON: {text}"));
        let method = what
            .split(' ')
            .next()
            .filter(|m| openapi::METHODS.contains(&m.to_ascii_lowercase().as_str()));
        openapi::assert_documented(method, &path, status, &headers, &body);
        Resp {
            status,
            headers,
            body,
        }
    }
}

/// The path (and query) of a URL.
fn url_path(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme.find('/').map_or("/", |i| &after_scheme[i..])
}

/// Checks an answer (`got`, `headers`, `body`) is the spec's failure envelope: `status`,
/// `success: false`, `code`, a sentence in `error`, the `request_id` of the `X-Request-Id`
/// header, sent as JSON.
#[track_caller]
pub(super) fn assert_error_envelope(
    got: u16,
    headers: &HashMap<String, String>,
    body: &Value,
    status: u16,
    code: &str,
) {
    assert_eq!(got, status, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
    assert_eq!(
        body["request_id"].as_str(),
        headers.get("x-request-id").map(String::as_str),
        "{body}"
    );
    assert_eq!(
        headers.get("content-type").map(String::as_str),
        Some("application/json"),
        "{body}"
    );
}

impl TestApp {
    pub fn call(&self, method: &str, path: &str, key: Option<&str>) -> Resp {
        self.request(method, path, key, None, &[])
    }

    /// A call with a key and no body.
    pub fn call_with_key(&self, method: &str, path: &str, key: &str) -> Resp {
        self.request(method, path, Some(key), None, &[])
    }

    /// A call with a JSON body (or none) and extra headers.
    pub fn send(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Resp {
        self.request(method, path, Some(key), body, headers)
    }

    fn request(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Resp {
        let mut req = ureq::request(method, &format!("{}{path}", self.base));
        if let Some(key) = key {
            req = req.set("X-API-Key", key);
        }
        for (name, value) in headers {
            req = req.set(name, value);
        }
        let result = match body {
            Some(b) => req
                .set("Content-Type", "application/json")
                .send_string(&b.to_string()),
            None => req.call(),
        };
        Resp::from_ureq(result, &format!("{method} {path}"))
    }

    /// A write that must answer `status` with a success envelope; returns the body.
    pub fn write_ok(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<&Value>,
        status: u16,
    ) -> Value {
        let idem = uuid::Uuid::new_v4().to_string();
        let r = self.send(method, path, key, body, &[("Idempotency-Key", &idem)]);
        assert_eq!(r.status, status, "{method} {path}: {}", r.body);
        assert_eq!(r.body["success"], true);
        r.body
    }

    /// A write that must fail with `status` and `code`, in the spec's envelope; returns the
    /// body.
    #[track_caller]
    pub fn write_err(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<&Value>,
        status: u16,
        code: &str,
    ) -> Value {
        let idem = uuid::Uuid::new_v4().to_string();
        let r = self.send(method, path, key, body, &[("Idempotency-Key", &idem)]);
        r.assert_error(status, code);
        r.body
    }

    pub fn get(&self, path: &str, key: &str) -> Resp {
        self.call("GET", path, Some(key))
    }

    /// GET that must answer 200 with a success envelope; returns the body.
    pub fn get_ok(&self, path: &str, key: &str) -> Value {
        let r = self.get(path, key);
        assert_eq!(r.status, 200, "GET {path}: {}", r.body);
        assert_eq!(r.body["success"], true);
        r.body
    }

    /// A call that must fail with `status` and `code`, in the spec's envelope; returns the body.
    #[track_caller]
    pub fn expect_err(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        status: u16,
        code: &str,
    ) -> Value {
        let r = self.call(method, path, key);
        r.assert_error(status, code);
        r.body
    }

    #[track_caller]
    pub fn get_err(&self, path: &str, key: &str, status: u16, code: &str) -> Value {
        self.expect_err("GET", path, Some(key), status, code)
    }
}
