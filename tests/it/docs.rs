//! The API reference at `GET /api/docs`: served without a key (also while the panel owns
//! every other path) with a validator, it shows a curl example for every operation and
//! every webhook event of the document, every write's example body is one the server
//! accepts, the webhook example signs as the service signs, and the bodies the service
//! really sends meet the document's webhook schemas.

use std::collections::HashMap;

use crate::helpers::openapi::{self, document};
use crate::helpers::{printed, spawn_app, Camp, Receiver, TestApp};
use crate::media::{multipart, PNG};
use adcab::api::docs::curl::{self, Example};
use adcab::ops::{self, NewKey};
use serde_json::{json, Value};

/// The server's origin (`app.base` ends in `/api/v1`).
fn root(app: &TestApp) -> &str {
    app.base.trim_end_matches("/api/v1")
}

/// The page, its status and headers (names in lower case).
fn fetch(app: &TestApp, if_none_match: Option<&str>) -> (u16, HashMap<String, String>, String) {
    let mut req = ureq::get(&format!("{}/api/docs", root(app)));
    if let Some(tag) = if_none_match {
        req = req.set("If-None-Match", tag);
    }
    let r = match req.call() {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("GET /api/docs: {e}"),
    };
    let headers = r
        .headers_names()
        .into_iter()
        .map(|n| {
            (
                n.to_ascii_lowercase(),
                r.header(&n).unwrap_or("").to_string(),
            )
        })
        .collect();
    (r.status(), headers, r.into_string().unwrap())
}

/// Text as the page writes it inside an element.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[test]
fn the_reference_is_served_without_a_key_and_revalidated_by_its_etag() {
    let app = spawn_app();
    assert!(
        app.services.config.panel.enabled,
        "the panel owns the other paths"
    );
    let (status, headers, page) = fetch(&app, None);
    assert_eq!(status, 200, "{page}");
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert_eq!(headers["cache-control"], "no-cache");
    assert!(headers["content-security-policy"].contains("default-src 'none'"));
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(
        !page.contains("src=\"http") && !page.contains("href=\"http"),
        "no external asset"
    );
    openapi::check_headers("/paths/~1api~1docs/get/responses/200", &headers).unwrap();

    let etag = headers["etag"].clone();
    let (again, headers, body) = fetch(&app, Some(&etag));
    assert_eq!(again, 304);
    assert!(body.is_empty());
    assert_eq!(headers["etag"], etag);
    openapi::check_headers("/paths/~1api~1docs/get/responses/304", &headers).unwrap();
    let (stale, _, _) = fetch(&app, Some("\"something-else\""));
    assert_eq!(stale, 200);

    let post = ureq::post(&format!("{}/api/docs", root(&app))).call();
    let Err(ureq::Error::Status(405, r)) = post else {
        panic!("POST /api/docs is not refused");
    };
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
}

#[test]
fn the_page_shows_a_curl_example_for_every_operation_and_webhook_event() {
    let app = spawn_app();
    let (_, _, page) = fetch(&app, None);
    let doc = document();
    let mut seen = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in openapi::METHODS {
            let Some(op) = item.get(method) else { continue };
            let e = curl::operation(doc, path, method)
                .unwrap_or_else(|| panic!("no example for {method} {path}"));
            assert_eq!(e.id, op["operationId"].as_str().unwrap());
            assert!(page.contains(&format!("id=\"{}\"", e.id)), "{}", e.id);
            assert!(
                page.contains(&escaped(&e.curl)),
                "{method} {path}:\n{}",
                e.curl
            );
            assert!(e.curl.starts_with("curl "), "{}", e.curl);
            let verb = method.to_ascii_uppercase();
            if !matches!(method, "get" | "head") {
                assert!(e.curl.contains(&format!("-X {verb}")), "{}", e.curl);
            }
            let key = op.get("security").unwrap_or(&doc["security"]) != &json!([]);
            assert_eq!(e.curl.contains("X-API-Key: $ADCAB_KEY"), key, "{}", e.curl);
            let takes_key = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| p["$ref"] == "#/components/parameters/IdempotencyKey");
            assert_eq!(e.idempotent, takes_key, "{method} {path}");
            assert_eq!(e.curl.contains("Idempotency-Key: $(uuidgen)"), takes_key);
            let json_body = &openapi::deref(&op["requestBody"])["content"]["application/json"];
            if json_body.is_object() {
                let body = e
                    .body
                    .as_ref()
                    .unwrap_or_else(|| panic!("{method} {path} has no example body"));
                assert_eq!(body, &json_body["example"]);
                let validator = openapi::compile(&json_body["schema"]).unwrap();
                assert!(validator.is_valid(body), "{method} {path}: {body}");
            }
            seen += 1;
        }
    }
    assert!(seen > 30, "{seen} operations");
    let events = doc["webhooks"].as_object().expect("a webhooks section");
    for event in ["status_change", "hourly_digest", "ping", "alert"] {
        assert!(events.contains_key(event), "{event}");
    }
    for (event, item) in events {
        let e = curl::webhook(doc, event).unwrap_or_else(|| panic!("no example for {event}"));
        assert!(page.contains(&format!("id=\"{}\"", e.id)), "{event}");
        assert!(page.contains(&escaped(&e.curl)), "{event}:\n{}", e.curl);
        let content = &item["post"]["requestBody"]["content"]["application/json"];
        let validator = openapi::compile(&content["schema"]).unwrap();
        assert!(validator.is_valid(&content["example"]), "{event}");
        assert_eq!(e.body.as_ref(), Some(&content["example"]));
        for header in [
            "X-Service-Event",
            "X-Service-Delivery",
            "X-Service-Timestamp",
            "X-Service-Signature",
            "User-Agent",
        ] {
            assert!(
                e.curl.contains(&format!("-H \"{header}: ")),
                "{event} {header}"
            );
        }
    }
}

/// Every `"event": "NAME"` the code writes into a webhook body.
fn events_in_code(dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            events_in_code(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for marker in ["\"event\": \"", "(\"event\".into(), json!(\""] {
                for (i, _) in text.match_indices(marker) {
                    let rest = &text[i + marker.len()..];
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                        .collect();
                    if !name.is_empty() && rest[name.len()..].starts_with('"') {
                        out.push(name);
                    }
                }
            }
        }
    }
}

#[test]
fn every_event_the_code_sends_is_in_the_webhooks_section() {
    let mut found = Vec::new();
    events_in_code(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut found,
    );
    for event in ["status_change", "hourly_digest", "ping", "alert"] {
        assert!(found.iter().any(|e| e == event), "the scan finds {event}");
    }
    for event in found {
        assert!(
            document()["webhooks"][&event].is_object(),
            "the code sends `{event}`, which the OpenAPI document's webhooks do not describe"
        );
    }
}

/// Sends one example to the test server as its curl would, with the path's variables (and
/// the example ids of a bulk body) replaced by `ids`.
fn send(app: &TestApp, key: &str, e: &Example, ids: &HashMap<&str, String>) -> (u16, Value) {
    let mut path = e.path.clone();
    for (name, value) in ids {
        path = path.replace(&format!("{{{name}}}"), value);
    }
    let query = e
        .curl
        .lines()
        .next()
        .and_then(|l| l.split_once('?'))
        .map(|(_, q)| q.trim_end_matches(['"', ' ', '\\']).to_string());
    let url = match query {
        Some(q) => format!("{}{path}?{q}", root(app)),
        None => format!("{}{path}", root(app)),
    };
    let mut req = ureq::request(&e.method, &url);
    if e.curl.contains("X-API-Key") {
        req = req.set("X-API-Key", key);
    }
    if e.idempotent {
        req = req.set("Idempotency-Key", &uuid::Uuid::new_v4().to_string());
    }
    let result = if let Some(body) = &e.body {
        let mut body = body.clone();
        if let Some(list) = body.get_mut("ad_ids") {
            *list = json!([
                ids["ad"].parse::<i64>().unwrap(),
                ids["ad2"].parse::<i64>().unwrap()
            ]);
        }
        req.set("Content-Type", "application/json")
            .send_string(&body.to_string())
    } else if e.curl.contains("-F \"file=@") {
        let (ct, bytes) = multipart("file", "banner.png", PNG);
        req.set("Content-Type", &ct).send_bytes(&bytes)
    } else {
        req.call()
    };
    let r = match result {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{url}: {e}"),
    };
    let status = r.status();
    (
        status,
        serde_json::from_str(&r.into_string().unwrap()).unwrap_or(Value::Null),
    )
}

#[test]
fn every_write_example_is_accepted_by_the_server() {
    let app = spawn_app();
    let user = app.user("agency");
    let cabinet = app.cabinet(user, "euro", "1000");
    // The agency's main account, and a client cabinet under it for the money examples.
    app.sql(&format!(
        "UPDATE cabinets SET is_main = 1 WHERE id = {cabinet}"
    ));
    let key = app.key_with(NewKey {
        user,
        manage: true,
        postbacks: true,
        ..NewKey::default()
    });
    let token = ops::tracker_rotate(&app.services, user).unwrap().token;
    let ad = app.active_campaign(cabinet);
    let ad2 = app.active_campaign(cabinet);
    let declined = app.campaign(
        cabinet,
        Camp::channel("Declined", "https://t.me/alpha_chan"),
    );
    ops::sim_review(
        &app.services,
        cabinet,
        declined,
        false,
        Some("Text formatting"),
    )
    .unwrap();
    // The campaign whose link carries the examples' conversion ref.
    app.campaign(
        cabinet,
        Camp::channel("Bot", "https://t.me/shop_bot?start=u42"),
    );
    // A client cabinet for the money examples, opened once the examples that expect the key's
    // one cabinet are done.
    let open_client = || {
        printed(
            ops::funds::create_related(
                &app.services,
                &ops::funds::NewRelated {
                    main: cabinet,
                    title: "Client".into(),
                    full_name: "Ann Lee".into(),
                    email: "ann@example.com".into(),
                    phone: "+44 20 7946 0000".into(),
                    country: "GB".into(),
                    city: "London".into(),
                    legal_name: None,
                },
            )
            .unwrap(),
        )["id"]
            .as_i64()
            .unwrap()
    };
    let mut client: Option<i64> = None;
    let doc = document();
    let rule = curl::operation(doc, "/api/v1/rules", "post").unwrap();
    let (status, created) = send(&app, &key, &rule, &HashMap::new());
    assert_eq!(status, 200, "{created}");
    let rule_id = created["data"]["id"].to_string();

    let mut writes = 0;
    // Deletions last, so every other write finds its campaign and rule; the client cabinets'
    // after all, so the others find the key's one cabinet.
    let mut examples: Vec<Example> = curl::operations(doc)
        .into_iter()
        .filter(|e| !matches!(e.method.as_str(), "GET" | "HEAD"))
        .collect();
    examples.sort_by_key(|e| (e.path.starts_with("/api/v1/cabinets"), e.method == "DELETE"));
    for e in examples {
        let on = if e.path.ends_with("/recreate") {
            declined
        } else {
            ad
        };
        if e.path.starts_with("/api/v1/cabinets") && client.is_none() {
            client = Some(open_client());
        }
        // A proposal's decision needs one pending: one of the example rule, stored as a run
        // of a rule that asks first would store it.
        let id = if e.path.starts_with("/api/v1/proposals/") {
            pending_proposal(&app, &rule_id, cabinet, on)
        } else {
            rule_id.clone()
        };
        let ids = HashMap::from([
            ("ad", on.to_string()),
            ("ad2", ad2.to_string()),
            ("id", id),
            ("token", token.clone()),
            ("account_id", client.unwrap_or(0).to_string()),
        ]);
        let (status, body) = send(&app, &key, &e, &ids);
        assert!(
            (200..300).contains(&status),
            "{} {} with its example answered {status}: {body}\n{}",
            e.method,
            e.path,
            e.curl
        );
        writes += 1;
    }
    assert!(writes >= 15, "{writes} writes");
}

/// A pending proposal of rule `rule` for campaign `ad`, as a run of a rule that asks first
/// stores it; its id.
fn pending_proposal(app: &TestApp, rule: &str, cabinet: i64, ad: i64) -> String {
    let rule: i64 = rule.parse().unwrap();
    let made = app
        .services
        .db
        .write_blocking(move |tx| {
            let now = adcab::clock::now(tx)?;
            adcab::store::proposals::create(
                tx,
                &adcab::store::proposals::NewProposal {
                    rule_id: rule,
                    account_id: cabinet,
                    ad_id: ad,
                    change: &json!({"type": "pause"}),
                    matched: &json!({}),
                    created_at: &adcab::clock::iso(now),
                    expires_at: &adcab::clock::iso(now + chrono::Duration::hours(1)),
                },
            )
        })
        .unwrap();
    made.expect("no other proposal pending").to_string()
}

#[test]
fn the_webhook_example_script_signs_as_the_service_signs() {
    let rx = Receiver::start(200);
    let secret = "whsec_example";
    let e = curl::webhook(document(), "ping").unwrap();
    let script = format!(
        "uuidgen() {{ cat /proc/sys/kernel/random/uuid; }}\nWEBHOOK_URL={}\nWEBHOOK_SECRET={secret}\n{}\n",
        rx.url, e.curl
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = rx.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].verified(secret), e.body.unwrap());
    assert_eq!(got[0].event(), "ping");
    assert!(uuid::Uuid::parse_str(&got[0].headers["x-service-delivery"]).is_ok());
}

#[test]
fn the_events_the_service_sends_meet_their_webhook_schemas() {
    let app = spawn_app();
    let rx = Receiver::start(200);
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let (id, _, secret) = app.hook_key(user, &rx.url);
    app.align_hour();
    app.funded(cabinet, 500_000);
    app.settle();
    // The hour closes, and its digest goes at five past.
    app.advance(3600);
    app.advance(5 * 60);
    ops::key_ping(&app.services, ops::By::Operator, id).unwrap();
    let mut kinds = Vec::new();
    for got in rx.received() {
        let body = got.verified(&secret);
        let event = got.event().to_string();
        let schema = &document()["webhooks"][&event]["post"]["requestBody"]["content"]
            ["application/json"]["schema"];
        let validator = openapi::compile(schema).unwrap();
        let problems: Vec<String> = validator
            .iter_errors(&body)
            .map(|e| e.to_string())
            .collect();
        assert!(problems.is_empty(), "{event}: {body}\n{problems:?}");
        kinds.push(event);
    }
    for event in ["status_change", "hourly_digest", "ping"] {
        assert!(kinds.iter().any(|k| k == event), "{event} among {kinds:?}");
    }
}
