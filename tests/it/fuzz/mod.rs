//! Owns the bounded fuzz of the HTTP surface: a few thousand malformed or half-valid requests
//! (every route, unknown paths, protocol garbage) from a fixed seed, each answer checked to be
//! under 500 and in the spec's envelope. The request generators live in the submodules; this
//! file sends the cases and judges the answers.

mod bodies;
mod generate;
mod protocol;
mod query;
mod values;
mod world;

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use crate::helpers::{read_answer, read_head, spawn_app_with, RawResp, TestApp};
use generate::generate;
use protocol::protocol_cases;
use serde_json::Value;
use world::{world, Rng};

/// The fixed seed: the same requests on every run.
const SEED: u64 = 0x00ad_cab5_eed0_f022;
/// Requests the generator makes (the fixed protocol cases come on top).
const REQUESTS: usize = 3_000;

/// The `method` label values `/metrics` may show.
const KNOWN_METHODS: [&str; 10] = [
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "other",
];
/// The most `/metrics` may weigh after the fuzz: its series are bounded by the route tables,
/// the known methods and the statuses the service answers, whatever the requests were.
const MAX_SCRAPE: usize = 512 * 1024;

/// The distinct values of the `method` label in a scrape.
fn metric_methods(text: &str) -> std::collections::BTreeSet<String> {
    text.split("method=\"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(m, _)| m.to_string()))
        .collect()
}

/// Failures listed when the test fails.
const SHOWN: usize = 20;

/// One request as bytes, and what sending and checking it needs to know.
struct Case {
    bytes: Vec<u8>,
    /// The route it aims at, for the summary.
    route: &'static str,
    /// Closes the write side after the bytes: a body cut short, which may go unanswered.
    cut: bool,
}

impl Case {
    fn new(route: &'static str, bytes: impl Into<Vec<u8>>) -> Case {
        Case {
            bytes: bytes.into(),
            route,
            cut: false,
        }
    }

    /// Whether the request line names a path of the web panel: one outside the API.
    fn for_panel(&self) -> bool {
        let line = self.bytes.split(|b| *b == b'\n').next().unwrap_or_default();
        let target = line.split(|b| *b == b' ').nth(1).unwrap_or_default();
        target.starts_with(b"/") && !target.starts_with(b"/api/v1")
    }

    /// A HEAD request's answer has no body.
    fn head(&self) -> bool {
        self.bytes.starts_with(b"HEAD ")
    }

    /// The request as the failure list shows it: escaped, long runs cut.
    fn shown(&self) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        let escaped: Vec<char> = text.chars().flat_map(char::escape_default).collect();
        if escaped.len() <= 600 {
            return escaped.into_iter().collect();
        }
        let start: String = escaped[..450].iter().collect();
        let end: String = escaped[escaped.len() - 150..].iter().collect();
        format!("{start} …[{} bytes in all]… {end}", self.bytes.len())
    }
}

/// Sends the case on a new connection, writing from a second thread so that an answer sent
/// before the whole body was read is still taken, and reads one answer.
fn exchange(app: &TestApp, case: &Case) -> std::io::Result<RawResp> {
    let mut stream = TcpStream::connect(app.addr())?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut writer = stream.try_clone()?;
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = writer.write_all(&case.bytes);
            if case.cut {
                let _ = writer.shutdown(Shutdown::Write);
            }
        });
        if case.head() {
            read_head(&mut stream)
        } else {
            read_answer(&mut stream)
        }
    })
}

/// What is wrong with an answer: a 5xx, no request id, or a body that is not the envelope
/// (the web panel's paths, outside the API, answer pages instead).
fn fault(answer: &RawResp, case: &Case) -> Option<String> {
    if answer.status >= 500 {
        return Some(format!("status {}: {}", answer.status, answer.body));
    }
    let Some(id) = answer.headers.get("x-request-id") else {
        return Some(format!("status {} without x-request-id", answer.status));
    };
    if case.head() {
        return None;
    }
    let html = answer
        .headers
        .get("content-type")
        .is_some_and(|t| t.starts_with("text/html"));
    if case.for_panel() && (html || answer.status == 303) {
        // The web panel answers its paths with pages and redirects, not the API's envelope.
        return None;
    }
    let Ok(body) = serde_json::from_str::<Value>(&answer.body) else {
        return Some(format!(
            "status {}, body not JSON: {:?}",
            answer.status, answer.body
        ));
    };
    let ok = match body["success"] {
        Value::Bool(true) => answer.status < 400 && body.get("data").is_some(),
        Value::Bool(false) => {
            answer.status >= 400
                && body["error"].as_str().is_some_and(|e| !e.is_empty())
                && body["code"].is_string()
                && body["request_id"].as_str() == Some(id.as_str())
        }
        _ => false,
    };
    (!ok).then(|| format!("status {}, not an envelope: {body}", answer.status))
}

/// Every route and unknown paths, bad methods, queries, headers and bodies, and protocol
/// garbage: no answer is a 5xx or outside the envelope, and the service still serves after.
#[test]
fn malformed_requests_never_get_a_5xx_or_a_non_envelope_answer() {
    let app = spawn_app_with(|c| {
        c.limits.reads_per_minute = 1_000_000;
        c.limits.writes_per_minute = 1_000_000;
        c.limits.conversions_burst = 1_000_000;
        c.limits.conversions_per_second = 1_000_000;
    });
    let w = world(&app);
    let mut rng = Rng(SEED);
    let mut cases = protocol_cases(&w);
    let fixed = cases.len();
    cases.extend((0..REQUESTS).map(|i| generate(&mut rng, &w, i)));

    let started = Instant::now();
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    let mut codes: BTreeMap<String, usize> = BTreeMap::new();
    let mut routes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unanswered = 0;
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        *routes.entry(case.route).or_default() += 1;
        match exchange(&app, case) {
            Ok(answer) => {
                *statuses.entry(answer.status).or_default() += 1;
                let code = serde_json::from_str::<Value>(&answer.body)
                    .ok()
                    .and_then(|b| b["code"].as_str().map(str::to_string));
                if let Some(code) = code {
                    *codes.entry(code).or_default() += 1;
                }
                if let Some(why) = fault(&answer, case) {
                    failures.push(format!("case {i}: {why}\n    request: {}", case.shown()));
                }
            }
            Err(_) if case.cut => unanswered += 1,
            Err(e) => failures.push(format!(
                "case {i}: no answer ({e})\n    request: {}",
                case.shown()
            )),
        }
    }
    let took = started.elapsed();
    println!(
        "fuzz: {} requests ({fixed} protocol cases, {REQUESTS} generated) in {took:.1?}; \
         {unanswered} cut-short bodies unanswered",
        cases.len()
    );
    println!("fuzz: per status {statuses:?}");
    println!("fuzz: per error code {codes:?}");
    println!("fuzz: per route {routes:?}");

    app.get_ok("/account/info", &w.manage);
    let scrape = app.raw(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_eq!(scrape.status, 200);
    let methods = metric_methods(&scrape.body);
    println!(
        "fuzz: /metrics {} bytes, methods {methods:?}",
        scrape.body.len()
    );
    assert!(
        methods.iter().all(|m| KNOWN_METHODS.contains(&m.as_str())),
        "a method outside the known ones became a label: {methods:?}"
    );
    assert!(
        scrape.body.len() < MAX_SCRAPE,
        "/metrics grew to {} bytes",
        scrape.body.len()
    );
    let targeting = app.get_ok("/targeting", &w.read_only);
    assert!(targeting["data"]["buttons"].is_array());
    assert!(
        failures.is_empty(),
        "{} of {} requests were answered wrongly; the first {}:\n{}",
        failures.len(),
        cases.len(),
        failures.len().min(SHOWN),
        failures[..failures.len().min(SHOWN)].join("\n")
    );
}
