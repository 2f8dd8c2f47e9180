//! Owns one generated request: a route (or a path the table does not have), a method, a path
//! with mutated segments, a query, key and idempotency headers, a body, and now and then a
//! mangled head.

use super::bodies::{json_body, media_body};
use super::query::query;
use super::values::junk_text;
use super::world::{hex, Rng, World};
use super::Case;

/// What a generated request aims at: each route of the table, and paths it does not have.
const ROUTES: [&str; 20] = [
    "account_info",
    "targeting",
    "groups",
    "list",
    "create",
    "campaign",
    "pause",
    "resume",
    "budget",
    "copy",
    "history",
    "bulk",
    "task",
    "media",
    "stats",
    "stats_total",
    "postback",
    "conversions",
    "ingest",
    "unknown",
];

/// Request targets the route table does not serve.
const UNKNOWN_PATHS: [&str; 18] = [
    "/",
    "/api",
    "/api/v1",
    "/api/v1/",
    "/api/v2/targeting",
    "/API/V1/targeting",
    "/api/v1/nope",
    "/api/v1/campaigns/1/fly",
    "/api/v1/campaigns/1/history/extra",
    "/api/v1//campaigns",
    "/api/v1/ingest/",
    "/api/v1/ingest/a/b",
    "/api/v1/tasks",
    "/api/v1/stats/total/more",
    "/api/v1/../v1/targeting",
    "/%2e%2e/%2e%2e/etc/passwd",
    "*",
    "http://127.0.0.1/api/v1/targeting",
];

/// A path segment: the valid one about half the time, else a mutation of it.
fn segment(rng: &mut Rng, valid: &str) -> String {
    if rng.chance(55) {
        return valid.to_string();
    }
    let long = |c: char, n: usize| std::iter::repeat_n(c, n).collect::<String>();
    match rng.below(16) {
        0 => "0".into(),
        1 => "-1".into(),
        2 => "9223372036854775807".into(),
        3 => "9223372036854775808".into(),
        4 => "-9223372036854775808".into(),
        5 => "99999999999999999999999999".into(),
        6 => "é€".into(),
        7 => "%C3%A9%E2%82%AC".into(),
        8 => "%zz".into(),
        9 => "..".into(),
        10 => String::new(),
        11 => {
            let n = 100 + rng.below(8_000);
            long(rng.pick(&['9', 'a', '%']), n)
        }
        12 => "%00".into(),
        13 => rng
            .pick(&["1e3", "+5", "%205", "0x1F", "1.0", "%2F", "-0", "null"])
            .into(),
        14 => format!("{valid}{valid}"),
        _ => format!("{valid};x=1"),
    }
}

/// The `X-API-Key` header line: mostly a valid key, else a wrong one, two, or none.
fn key_header(rng: &mut Rng, w: &World) -> Option<Vec<u8>> {
    let value: Vec<u8> = match rng.below(100) {
        0..=69 => w.manage.clone().into_bytes(),
        70..=79 => w.read_only.clone().into_bytes(),
        80..=81 => format!("adcab_{}", hex(&junk_text(rng, 24))).into_bytes(),
        82..=83 => {
            let mut k = w.manage.clone().into_bytes();
            k.truncate(rng.below(k.len()));
            k
        }
        84..=85 => w.tracker.clone().into_bytes(),
        86..=87 => Vec::new(),
        88..=89 => b"adcab_\xff\xfe\xc3".to_vec(),
        90..=91 => {
            return Some(
                format!("X-API-Key: {}\r\nX-API-Key: {}\r\n", w.manage, w.read_only).into_bytes(),
            )
        }
        _ => return None,
    };
    let mut line = b"X-API-Key: ".to_vec();
    line.extend_from_slice(&value);
    line.extend_from_slice(b"\r\n");
    Some(line)
}

/// The `Idempotency-Key` header line: mostly fresh, else shared, odd, or none.
fn idempotency_header(rng: &mut Rng, i: usize) -> Option<String> {
    let value = match rng.below(100) {
        0..=74 => format!("fuzz-{i:06}-{:016x}", rng.next()),
        75..=81 => "fuzz-shared-key-0001".to_string(),
        82..=89 => return None,
        90..=94 => "k".repeat(rng.pick(&[0, 1, 7, 8, 255, 256, 300])),
        _ => {
            let n = rng.below(301);
            (0..n)
                .map(|_| rng.pick(&['a', '0', '-', ' ', 'é', '€', '😀', '"', '\t', '~']))
                .collect()
        }
    };
    Some(format!("Idempotency-Key: {value}\r\n"))
}

/// Turns a method natural for the route into a wrong or junk one now and then.
fn method(rng: &mut Rng, natural: &str) -> String {
    match rng.below(100) {
        0..=79 => natural.to_string(),
        80..=89 => rng
            .pick(&["GET", "POST", "PATCH", "DELETE", "PUT", "HEAD"])
            .to_string(),
        90..=92 => (0..1 + rng.below(64))
            .map(|_| char::from(b'A' + rng.below(26) as u8))
            .collect(),
        93..=95 => rng
            .pick(&[
                "OPTIONS", "TRACE", "get", "Post", "PROPFIND", "M-SEARCH", "X", "CONNECT",
            ])
            .to_string(),
        _ => (0..1 + rng.below(40))
            .map(|_| rng.pick(&['A', 'z', '!', '#', '$', '~', '|', '\'', '@', '(', 'é']))
            .collect(),
    }
}

/// Flips, drops or inserts a few bytes of a request head.
fn mangle(rng: &mut Rng, head: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(3) {
        if head.is_empty() {
            return;
        }
        let at = rng.below(head.len());
        match rng.below(3) {
            0 => head[at] = rng.next() as u8,
            1 => {
                head.remove(at);
            }
            _ => head.insert(
                at,
                rng.pick(&[0u8, 1, b'\r', b'\n', 0x7f, 0xff, b' ', b':']),
            ),
        }
    }
}

/// One generated request.
pub(super) fn generate(rng: &mut Rng, w: &World, i: usize) -> Case {
    let route = rng.pick(&ROUTES);
    let ad = rng.pick(&w.ads).to_string();
    let (natural, path) = match route {
        "account_info" => ("GET", "/api/v1/account/info".to_string()),
        "targeting" => ("GET", "/api/v1/targeting".into()),
        "groups" => ("GET", "/api/v1/groups".into()),
        "list" => ("GET", "/api/v1/campaigns".into()),
        "create" => ("POST", "/api/v1/campaigns".into()),
        "campaign" => (rng.pick(&["GET", "PATCH", "DELETE"]), String::new()),
        "pause" | "resume" | "budget" | "copy" | "history" => {
            let m = if route == "history" { "GET" } else { "POST" };
            (
                m,
                format!("/api/v1/campaigns/{}/{route}", segment(rng, &ad)),
            )
        }
        "bulk" => ("POST", "/api/v1/campaigns/bulk".into()),
        "task" => (
            "GET",
            format!("/api/v1/tasks/{}", segment(rng, &w.task.to_string())),
        ),
        "media" => ("POST", "/api/v1/media".into()),
        "stats" => ("GET", "/api/v1/stats".into()),
        "stats_total" => ("GET", "/api/v1/stats/total".into()),
        "postback" => ("POST", "/api/v1/postback".into()),
        "conversions" => ("GET", "/api/v1/conversions".into()),
        "ingest" => {
            let token = match rng.below(4) {
                0 => format!("trk_{}", hex(&junk_text(rng, 24))),
                _ => w.tracker.clone(),
            };
            (
                rng.pick(&["GET", "POST"]),
                format!("/api/v1/ingest/{}", segment(rng, &token)),
            )
        }
        _ => ("GET", rng.pick(&UNKNOWN_PATHS).to_string()),
    };
    let method = method(rng, natural);
    let mut target = if route == "campaign" {
        // Chosen once the method is: a DELETE only names a campaign the fuzz may lose.
        let ad = rng.pick(if method == "DELETE" {
            &w.doomed
        } else {
            &w.ads
        });
        format!("/api/v1/campaigns/{}", segment(rng, &ad.to_string()))
    } else {
        path
    };
    let q = query(rng, w, route);
    if !q.is_empty() || rng.chance(5) {
        target = format!("{target}?{q}");
    }
    let (body, content_type) = match route {
        "media" => {
            let (body, ct) = media_body(rng);
            (body, Some(ct))
        }
        "create" | "budget" | "copy" | "bulk" | "postback" => (
            json_body(rng, w, route),
            Some("application/json".to_string()),
        ),
        "campaign" if method == "PATCH" || rng.chance(15) => (
            json_body(rng, w, route),
            Some("application/json".to_string()),
        ),
        _ if rng.chance(12) => (
            json_body(rng, w, route),
            Some("application/json".to_string()),
        ),
        _ => (Vec::new(), None),
    };
    let content_type = match rng.below(100) {
        0..=79 => content_type,
        80..=84 => None,
        _ => Some(
            rng.pick(&[
                "application/json; charset=utf-8",
                "text/plain",
                "multipart/form-data; boundary=fuzzBoundary7",
                "multipart/form-data",
                "application/x-www-form-urlencoded",
                "é€/ü",
                "",
                "application/json, application/json",
            ])
            .to_string(),
        ),
    };
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n").into_bytes();
    if let Some(line) = key_header(rng, w) {
        head.extend_from_slice(&line);
    }
    if let Some(line) = idempotency_header(rng, i) {
        head.extend_from_slice(line.as_bytes());
    }
    if let Some(ct) = content_type {
        head.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
    }
    if rng.chance(4) {
        mangle(rng, &mut head);
    }
    head.extend_from_slice(
        format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    head.extend_from_slice(&body);
    Case::new(route, head)
}
