//! The OpenAPI document (`src/api/openapi.json`, served at `GET /api/v1/openapi.json`): its
//! operations are exactly the routes the router knows, every `$ref` resolves, every response
//! schema compiles, it names every error code of the spec, its schemas refuse answers that
//! break it, and it requires the headers the server always sends exactly where it sends them.
//! (Every answer of the other tests, headers included, is checked against it in
//! `Resp::from_ureq`.)

use std::collections::{BTreeSet, HashMap};

use crate::helpers::openapi::{self, document, TEXT};
use crate::helpers::{printed, spawn_app, spawn_app_with, Camp, Resp};
use adcab::api::router::{self, Endpoint, Handler, ROUTES};
use adcab::domain::campaign::Status;
use adcab::domain::conversion::{EventType, RawEvent, EVENT_NAMES, PARAMS};
use adcab::domain::money::{parse_amount, Money};
use adcab::ops;
use adcab::platform::sim::Fault;
use adcab::ratelimit::Budget;
use hyper::Method;
use serde_json::{json, Value};

/// The routes outside `ROUTES`: answered without a key.
const UNKEYED: [(&str, &str); 12] = [
    ("get", "/healthz"),
    ("head", "/healthz"),
    ("get", "/readyz"),
    ("head", "/readyz"),
    ("get", "/metrics"),
    ("head", "/metrics"),
    ("get", "/api/v1/openapi.json"),
    ("head", "/api/v1/openapi.json"),
    ("get", "/api/docs"),
    ("head", "/api/docs"),
    ("get", "/api/v1/ingest/{token}"),
    ("post", "/api/v1/ingest/{token}"),
];

/// Every error code of the spec's table (api-spec.md, Errors).
const SPEC_CODES: [&str; 33] = [
    "API_KEY_MISSING",
    "API_KEY_INVALID",
    "NO_ACCOUNTS",
    "FORBIDDEN",
    "READ_ONLY_KEY",
    "WRITE_NOT_ALLOWED",
    "VIEW_ONLY_ACCESS",
    "FEATURE_NOT_AVAILABLE",
    "SUBSCRIPTION_REQUIRED",
    "ACCOUNT_INACTIVE",
    "INGEST_DISABLED",
    "ACCOUNT_ID_REQUIRED",
    "ACCOUNT_NOT_FOUND",
    "CAMPAIGN_NOT_FOUND",
    "TASK_NOT_FOUND",
    "NOT_FOUND",
    "UNKNOWN_AD_IDS",
    "VALIDATION_ERROR",
    "UNSUPPORTED_MEDIA",
    "FILE_TOO_LARGE",
    "PLATFORM_REJECTED",
    "BUDGET_UNCHANGED",
    "INSUFFICIENT_AD_BALANCE",
    "CABINET_AUTH_EXPIRED",
    "CABINET_LOCKED",
    "RATE_LIMITED",
    "QUEUE_FULL",
    "IDEMPOTENCY_KEY_REQUIRED",
    "IDEMPOTENCY_KEY_INVALID",
    "IDEMPOTENCY_KEY_REUSED",
    "IDEMPOTENCY_IN_PROGRESS",
    "IDEMPOTENCY_UNAVAILABLE",
    "INTERNAL_ERROR",
];

/// Every (method, path) operation of the document.
fn operations() -> BTreeSet<(String, String)> {
    let mut ops = BTreeSet::new();
    for (path, item) in document()["paths"].as_object().expect("paths") {
        for method in openapi::METHODS {
            if item.get(method).is_some() {
                ops.insert((method.to_string(), path.clone()));
            }
        }
    }
    ops
}

/// A concrete path for a templated one: each `{...}` segment filled in.
fn concrete(template: &str) -> String {
    template
        .split('/')
        .map(|s| if s.starts_with('{') { "17" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

/// Every value of `key` anywhere in `value`.
fn collect<'a>(value: &'a Value, key: &str, out: &mut Vec<&'a Value>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == key {
                    out.push(v);
                }
                collect(v, key, out);
            }
        }
        Value::Array(list) => list.iter().for_each(|v| collect(v, key, out)),
        _ => {}
    }
}

#[test]
fn the_document_holds_exactly_the_routes_the_router_knows() {
    let mut expected: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|d| {
            (
                d.method.as_str().to_ascii_lowercase(),
                format!("{}{}", router::PREFIX, d.pattern),
            )
        })
        .collect();
    expected.extend(UNKEYED.iter().map(|(m, p)| (m.to_string(), p.to_string())));
    // MCP over HTTP, outside /api/v1 (`mcp::http`).
    expected
        .extend(["post", "delete"].map(|m| (m.to_string(), adcab::mcp::http::PATH.to_string())));
    let documented = operations();
    let missing: Vec<_> = expected.difference(&documented).collect();
    let extra: Vec<_> = documented.difference(&expected).collect();
    assert!(
        missing.is_empty(),
        "routes missing from the document: {missing:?}"
    );
    assert!(extra.is_empty(), "operations no route serves: {extra:?}");
    assert_eq!(document()["openapi"], "3.1.0");

    // Every method the router takes on a documented path is documented there.
    for template in documented.iter().map(|(_, p)| p).collect::<BTreeSet<_>>() {
        for method in openapi::METHODS {
            let m = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).unwrap();
            if router::resolve(&m, &concrete(template)).is_ok() {
                assert!(
                    documented.contains(&(method.to_string(), template.clone())),
                    "the router takes {method} {template}; the document does not list it"
                );
            }
        }
    }
    for (method, template) in &documented {
        if template == adcab::mcp::http::PATH {
            continue; // answered before the API's router, by the MCP face (tests/it/mcp.rs)
        }
        let path = concrete(template);
        let m = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).unwrap();
        let resolved = router::resolve(&m, &path)
            .unwrap_or_else(|e| panic!("{method} {path}: the router answers {}", e.code()));
        match resolved {
            Endpoint::Api(route) => assert_eq!(
                format!("{}{}", router::PREFIX, route.def.pattern),
                *template,
                "{method} {path}"
            ),
            Endpoint::Ingest(token) => {
                assert_eq!(template, "/api/v1/ingest/{token}");
                assert_eq!(token, "17");
            }
            _ => assert!(
                UNKEYED.contains(&(method.as_str(), template.as_str())),
                "{method} {template}"
            ),
        }
    }
}

#[test]
fn keys_and_idempotency_keys_are_documented_where_the_router_asks_for_them() {
    let paths = &document()["paths"];
    for d in &ROUTES {
        let template = format!("{}{}", router::PREFIX, d.pattern);
        let method = d.method.as_str().to_ascii_lowercase();
        let operation = &paths[&template][&method];
        assert!(
            operation.get("security").is_none(),
            "{method} {template} takes the document's X-API-Key"
        );
        let takes_key = operation["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| openapi::deref(p)["name"] == "Idempotency-Key");
        let idempotent = matches!(d.handler, Handler::Idempotent(_));
        assert_eq!(
            takes_key, idempotent,
            "Idempotency-Key on {method} {template}"
        );
        if idempotent {
            let required = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(openapi::deref)
                .any(|p| p["name"] == "Idempotency-Key" && p["required"] == true);
            assert!(required, "{method} {template}: Idempotency-Key is required");
        }
    }
    for (method, template) in UNKEYED {
        assert_eq!(
            paths[template][method]["security"],
            json!([]),
            "{method} {template} takes no key"
        );
    }
    let scheme = &document()["components"]["securitySchemes"]["ApiKey"];
    assert_eq!(
        (&scheme["type"], &scheme["in"], &scheme["name"]),
        (&json!("apiKey"), &json!("header"), &json!("X-API-Key"))
    );
    assert_eq!(document()["security"], json!([{ "ApiKey": [] }]));
}

#[test]
fn every_ref_resolves_and_every_response_schema_compiles() {
    let mut refs = Vec::new();
    collect(document(), "$ref", &mut refs);
    assert!(
        refs.len() > 100,
        "the document shares its parts through $ref"
    );
    for r in refs {
        let pointer = r.as_str().expect("a $ref is a string");
        let target = pointer
            .strip_prefix('#')
            .and_then(|p| document().pointer(p));
        assert!(target.is_some(), "$ref {pointer} resolves to nothing");
    }
    let mut compiled = 0;
    for (method, template) in operations() {
        let responses = document()["paths"][&template][&method]["responses"]
            .as_object()
            .unwrap_or_else(|| panic!("{method} {template} has responses"));
        for (status, response) in responses {
            let schema = &openapi::deref(response)["content"]["application/json"]["schema"];
            if schema.is_object() {
                openapi::compile(schema)
                    .unwrap_or_else(|e| panic!("{method} {template} {status}: {e}"));
                compiled += 1;
            }
        }
    }
    for (name, schema) in document()["components"]["schemas"].as_object().unwrap() {
        openapi::compile(schema).unwrap_or_else(|e| panic!("schema {name}: {e}"));
    }
    assert!(compiled > 100, "{compiled} response schemas");
}

#[test]
fn every_error_code_of_the_spec_is_documented_with_its_status() {
    let mut documented: BTreeSet<(String, String)> = BTreeSet::new();
    for (method, template) in operations() {
        let responses = document()["paths"][&template][&method]["responses"]
            .as_object()
            .unwrap();
        for (status, response) in responses {
            let mut enums = Vec::new();
            collect(
                &openapi::deref(response)["content"]["application/json"]["schema"],
                "code",
                &mut enums,
            );
            for code in enums
                .iter()
                .flat_map(|c| c["enum"].as_array().into_iter().flatten())
            {
                documented.insert((status.clone(), code.as_str().unwrap().to_string()));
            }
        }
    }
    let codes: BTreeSet<&str> = documented.iter().map(|(_, c)| c.as_str()).collect();
    for code in SPEC_CODES {
        assert!(
            codes.contains(code),
            "{code} is on no response of the document"
        );
    }
    for (status, code) in &documented {
        let expected = match code.as_str() {
            "API_KEY_MISSING" | "API_KEY_INVALID" | "NO_ACCOUNTS" | "TOKEN_INVALID" => "401",
            "FORBIDDEN"
            | "READ_ONLY_KEY"
            | "WRITE_NOT_ALLOWED"
            | "VIEW_ONLY_ACCESS"
            | "FEATURE_NOT_AVAILABLE"
            | "SUBSCRIPTION_REQUIRED"
            | "ACCOUNT_INACTIVE"
            | "INGEST_DISABLED"
            | "OWNER_ONLY" => "403",
            "ACCOUNT_NOT_FOUND" | "CAMPAIGN_NOT_FOUND" | "RULE_NOT_FOUND" | "TASK_NOT_FOUND"
            | "NOT_FOUND" | "REF_NOT_FOUND" | "ROUTE_NOT_FOUND" | "PROPOSAL_NOT_FOUND" => "404",
            "FILE_TOO_LARGE" | "BODY_TOO_LARGE" => "413",
            "CABINET_AUTH_EXPIRED"
            | "CABINET_LOCKED"
            | "CAMPAIGN_NOT_DECLINED"
            | "IDEMPOTENCY_IN_PROGRESS"
            | "AMBIGUOUS_REF"
            | "NOT_A_MAIN_ACCOUNT"
            | "NOT_A_CLIENT_CABINET"
            | "MONTHLY_TOPUP_CAP"
            | "PROPOSAL_DECIDED" => "409",
            "RATE_LIMITED" | "QUEUE_FULL" => "429",
            "IDEMPOTENCY_KEY_REUSED" => "422",
            "IDEMPOTENCY_UNAVAILABLE" | "SERVICE_UNAVAILABLE" | "PLATFORM_UNAVAILABLE" => "503",
            "INTERNAL_ERROR" => "500",
            "REQUEST_TIMEOUT" => "408",
            // The transport's codes share `default`.
            "URI_TOO_LONG" | "HEADERS_TOO_LARGE" => "default",
            _ => "400",
        };
        let transport =
            status == "default" && ["BAD_REQUEST", "SERVICE_UNAVAILABLE"].contains(&code.as_str());
        assert!(
            status == expected || transport,
            "{code} is documented under {status}, the service answers it with {expected}"
        );
    }
}

#[test]
fn the_served_document_is_the_file() {
    let app = spawn_app();
    let root = app.base.trim_end_matches("/api/v1");
    let r = ureq::get(&format!("{root}/api/v1/openapi.json"))
        .call()
        .expect("the document is served");
    assert_eq!(r.status(), 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let served = r.into_string().expect("a body");
    assert!(
        served == TEXT,
        "the served document differs from src/api/openapi.json"
    );
}

/// A real campaign as `GET /api/v1/campaigns/{ad}` answers it (checked against the document on
/// the way), then broken in ways the document must refuse.
#[test]
fn the_schemas_refuse_answers_that_break_the_document() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/api/v1/campaigns/{ad}");
    let answer = app.get(&format!("/campaigns/{ad}"), &key);
    let good = answer.body.clone();
    assert_eq!(openapi::check(Some("GET"), &path, 200, &good), Ok(()));
    let check = |headers: &HashMap<String, String>| {
        openapi::check_answer(Some("GET"), &path, 200, headers, &good)
    };
    assert_eq!(check(&answer.headers), Ok(()));
    let mut uncounted = answer.headers.clone();
    uncounted.remove("x-ratelimit-remaining");
    let refused = check(&uncounted).unwrap_err();
    assert!(
        refused.contains("X-RateLimit-Remaining is required"),
        "{refused}"
    );
    let mut wrong_value = answer.headers.clone();
    wrong_value.insert("x-ratelimit-limit".into(), "sixty".into());
    assert!(check(&wrong_value)
        .unwrap_err()
        .contains("X-RateLimit-Limit"));
    let mut wrong_id = answer.headers.clone();
    wrong_id.insert("x-request-id".into(), "17".into());
    assert!(
        check(&wrong_id).is_err(),
        "X-Request-Id is req_ and 32 hex digits"
    );
    let mut undeclared = answer.headers.clone();
    undeclared.insert("retry-after".into(), "2".into());
    let refused = check(&undeclared).unwrap_err();
    assert!(refused.contains("retry-after"), "{refused}");

    let mut numeric_budget = good.clone();
    numeric_budget["data"]["budget"] = json!(12.5);
    let refused = openapi::check(Some("GET"), &path, 200, &numeric_budget).unwrap_err();
    assert!(refused.contains("/data/budget"), "{refused}");

    let mut missing_field = good.clone();
    missing_field["data"]
        .as_object_mut()
        .unwrap()
        .remove("synced_at");
    assert!(openapi::check(Some("GET"), &path, 200, &missing_field).is_err());

    let mut unknown_status = good.clone();
    unknown_status["data"]["status"] = json!("Running");
    assert!(openapi::check(Some("GET"), &path, 200, &unknown_status).is_err());

    let mut undocumented_field = good.clone();
    undocumented_field["data"]["secret"] = json!("x");
    assert!(openapi::check(Some("GET"), &path, 200, &undocumented_field).is_err());

    let failure = app.get_err("/tasks/999999", &key, 404, "TASK_NOT_FOUND");
    let task = "/api/v1/tasks/999999";
    assert_eq!(openapi::check(Some("GET"), task, 404, &failure), Ok(()));
    let mut anonymous = failure.clone();
    anonymous.as_object_mut().unwrap().remove("request_id");
    assert!(
        openapi::check(Some("GET"), task, 404, &anonymous).is_err(),
        "every failure carries its request_id"
    );
    let mut other_code = failure.clone();
    other_code["code"] = json!("CAMPAIGN_NOT_FOUND");
    assert!(
        openapi::check(Some("GET"), task, 404, &other_code).is_err(),
        "a code the operation does not answer"
    );
    assert!(
        openapi::check(Some("GET"), task, 409, &failure).is_err(),
        "a status the operation does not answer"
    );
    assert!(
        openapi::check(Some("GET"), &path, 200, &failure).is_err(),
        "a failure where success is documented"
    );
    let unrouted = app.expect_err("GET", "/nope", Some(&key), 404, "ROUTE_NOT_FOUND");
    assert_eq!(
        openapi::check(Some("GET"), "/api/v1/nope", 404, &unrouted),
        Ok(())
    );
    assert!(openapi::check(Some("GET"), "/api/v1/nope", 404, &good).is_err());
}

/// The rate-limit headers of an answer counted against a budget.
const RATE: [&str; 3] = [
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
];

/// The headers a response of the document marks `required`, in lower case.
fn required_headers(response: &Value) -> BTreeSet<String> {
    let response = openapi::deref(response);
    response["headers"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, h)| openapi::deref(h)["required"] == true)
        .map(|(name, _)| name.to_ascii_lowercase())
        .collect()
}

/// The headers the response of `status` to `method` on `template` requires.
fn required_on(method: &str, template: &str, status: u16) -> BTreeSet<String> {
    let pointer = openapi::response_at(template, method, status).unwrap_or_else(|e| panic!("{e}"));
    required_headers(document().pointer(&pointer).unwrap())
}

/// Whether every one of `names` is in `set` (compared in lower case).
fn all_in(set: &BTreeSet<String>, names: &[&str]) -> bool {
    names.iter().all(|n| set.contains(&n.to_ascii_lowercase()))
}

/// Whether none of `names` is in `set` (compared in lower case).
fn none_in(set: &BTreeSet<String>, names: &[&str]) -> bool {
    names.iter().all(|n| !set.contains(&n.to_ascii_lowercase()))
}

/// What the server does, read off `http::mod` and `response`: `X-Request-Id` goes on every
/// answer (the transport's own included); a keyed route is counted against its read or write
/// budget before anything but the query string, the key and the declared body size is looked
/// at, so every answer from there on carries the rate-limit headers; a conversion call is
/// counted by its handler, after the event is read; 429 and 503 answers always carry
/// `Retry-After`, and a task's 202 `Location` and `Retry-After`.
#[test]
fn the_document_requires_the_headers_the_server_always_sends() {
    for (method, template) in operations() {
        let responses = document()["paths"][&template][&method]["responses"]
            .as_object()
            .unwrap();
        let api = template.starts_with(router::PREFIX) && template != router::OPENAPI_PATH;
        for (status, response) in responses {
            let required = required_headers(response);
            assert!(
                required.contains("x-request-id"),
                "{method} {template} {status}: X-Request-Id is on every answer"
            );
            if api && (status == "429" || status == "503") {
                assert!(
                    required.contains("retry-after"),
                    "{method} {template} {status}: Retry-After"
                );
            }
        }
    }
    for (name, headers) in [
        ("RouteNotFound", vec!["X-Request-Id"]),
        ("MethodNotAllowed", vec!["X-Request-Id", "Allow"]),
        ("TransportError", vec!["X-Request-Id"]),
    ] {
        let response = &document()["components"]["responses"][name];
        assert!(all_in(&required_headers(response), &headers), "{name}");
    }

    let ingest = format!("{}ingest/{{token}}", router::PREFIX);
    let mut routes: Vec<(String, String, Budget, bool)> = ROUTES
        .iter()
        .map(|d| {
            (
                d.method.as_str().to_ascii_lowercase(),
                format!("{}{}", router::PREFIX, d.pattern),
                d.budget,
                matches!(d.handler, Handler::Idempotent(_)),
            )
        })
        .collect();
    routes.push(("get".into(), ingest.clone(), Budget::Conversions, false));
    routes.push(("post".into(), ingest, Budget::Conversions, false));
    let mut checked = 0;
    for (method, template, budget, idempotent) in routes {
        let responses = document()["paths"][&template][&method]["responses"]
            .as_object()
            .unwrap();
        let (always, sometimes): (&[&str], &[&str]) = if budget == Budget::Conversions {
            (
                &["200", "202", "404", "409", "429"],
                &["400", "401", "403", "408", "413", "500", "503"],
            )
        } else {
            (
                &["200", "202", "403", "404", "408", "409", "422", "429"],
                &["400", "401", "413", "500", "503"],
            )
        };
        for (status, response) in responses {
            let required = required_headers(response);
            if always.contains(&status.as_str()) {
                assert!(
                    all_in(&required, &RATE),
                    "{method} {template} {status}: {required:?}"
                );
                checked += 1;
            } else {
                assert!(
                    sometimes.contains(&status.as_str()) || status == "default",
                    "{method} {template} {status}"
                );
                assert!(
                    none_in(&required, &RATE),
                    "{method} {template} {status}: not always sent"
                );
            }
            if status == "202" && idempotent {
                assert!(
                    all_in(&required, &["Location", "Retry-After"]),
                    "{method} {template}"
                );
            }
        }
    }
    assert!(
        checked > 100,
        "{checked} responses that require the rate-limit headers"
    );
}

/// An answer counted against its budget, of a status always answered after the count.
const COUNTED: (bool, bool) = (true, true);
/// An answer given before the request was counted.
const UNCOUNTED: (bool, bool) = (false, false);

/// Real answers of each kind carry the headers their response requires (the check of every
/// answer in `Resp::from_ureq` fails on a missing one) and the document does require them
/// there; answers given before the request is counted carry no rate-limit headers, and the
/// document does not require them of those (nor of a status, such as 503, that is sometimes
/// answered before the count).
#[test]
fn answers_of_each_kind_carry_the_headers_their_response_requires() {
    let app = spawn_app_with(|c| c.limits.reads_per_minute = 5);
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let expect =
        |r: &Resp, method: &str, template: &str, (counted, always): (bool, bool), also: &[&str]| {
            let required = required_on(method, template, r.status);
            assert!(
                required.contains("x-request-id"),
                "{method} {template} {}",
                r.status
            );
            let id = r.header("x-request-id").unwrap_or_default();
            assert!(id.starts_with("req_") && id.len() == 36, "{id}");
            for h in RATE {
                assert_eq!(
                    r.header(h).is_some(),
                    counted,
                    "{h} on {method} {template} {}",
                    r.status
                );
            }
            if always {
                assert!(
                    all_in(&required, &RATE),
                    "{method} {template} {}: {required:?}",
                    r.status
                );
            } else {
                assert!(
                    none_in(&required, &RATE),
                    "{method} {template} {}: {required:?}",
                    r.status
                );
            }
            for h in also {
                assert!(
                    r.header(h).is_some(),
                    "{h} on {method} {template} {}",
                    r.status
                );
                assert!(
                    required.contains(&h.to_ascii_lowercase()),
                    "{method} {template} {}",
                    r.status
                );
            }
        };
    let campaign = "/api/v1/campaigns/{ad}";

    let read = app.get(&format!("/campaigns/{ad}"), &key);
    assert_eq!(read.status, 200);
    expect(&read, "get", campaign, COUNTED, &[]);

    ops::sim_fail(&app.services, cabinet, Fault::Timeout, 1).unwrap();
    let unavailable = app.send("POST", &format!("/campaigns/{ad}/pause"), &key, None, &[]);
    unavailable.assert_error(503, "PLATFORM_UNAVAILABLE");
    expect(
        &unavailable,
        "post",
        "/api/v1/campaigns/{ad}/pause",
        (true, false),
        &["Retry-After"],
    );

    let body = json!({ "action": "pause", "ad_ids": [ad] });
    let idem = uuid::Uuid::new_v4().to_string();
    let accepted = app.send(
        "POST",
        "/campaigns/bulk",
        &key,
        Some(&body),
        &[("Idempotency-Key", &idem)],
    );
    assert_eq!(accepted.status, 202, "{}", accepted.body);
    expect(
        &accepted,
        "post",
        "/api/v1/campaigns/bulk",
        COUNTED,
        &["Location", "Retry-After"],
    );
    let task = accepted.body["data"]["id"].as_i64().unwrap();
    assert_eq!(
        accepted.header("location"),
        Some(format!("/api/v1/tasks/{task}").as_str())
    );
    assert_eq!(accepted.header("retry-after"), Some("2"));

    let polled = app.get(&format!("/tasks/{task}"), &key);
    assert_eq!(polled.status, 200);
    expect(&polled, "get", "/api/v1/tasks/{id}", COUNTED, &[]);
    let underway =
        ["pending", "running"].contains(&polled.body["data"]["status"].as_str().unwrap());
    assert_eq!(
        polled.header("retry-after").is_some(),
        underway,
        "{}",
        polled.body
    );

    let missing = app.get("/tasks/999999", &key);
    missing.assert_error(404, "TASK_NOT_FOUND");
    expect(&missing, "get", "/api/v1/tasks/{id}", COUNTED, &[]);

    let keyless = app.call("GET", &format!("/campaigns/{ad}"), None);
    keyless.assert_error(401, "API_KEY_MISSING");
    expect(&keyless, "get", campaign, UNCOUNTED, &[]);

    let bad_query = app.get("/account/info?%zz=1", &key);
    bad_query.assert_error(400, "VALIDATION_ERROR");
    expect(&bad_query, "get", "/api/v1/account/info", UNCOUNTED, &[]);

    let limited = (0..12)
        .map(|_| app.get("/targeting", &key))
        .find(|r| r.status == 429)
        .expect("the read budget of 5 a minute runs out");
    limited.assert_error(429, "RATE_LIMITED");
    expect(
        &limited,
        "get",
        "/api/v1/targeting",
        COUNTED,
        &["Retry-After"],
    );
}

/// Whether a property or parameter of the document names an id (or a list of ids).
fn names_an_id(name: &str) -> bool {
    name == "id"
        || name.ends_with("_id")
        || name.ends_with("Id")
        || [
            "ad",
            "ad_ids",
            "missing",
            "before",
            "next_before",
            "topics",
            "exclude_topics",
        ]
        .contains(&name)
}

/// The integer schemas `schema` allows: itself, its items, the branches of its `allOf`,
/// `oneOf` and `anyOf`, each `$ref` followed.
fn integer_schemas<'a>(schema: &'a Value, out: &mut Vec<&'a Value>) {
    let schema = openapi::deref(schema);
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.contains(&"integer") {
        out.push(schema);
    }
    if types.contains(&"array") {
        integer_schemas(&schema["items"], out);
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        for branch in schema[key].as_array().into_iter().flatten() {
            integer_schemas(branch, out);
        }
    }
}

/// Every id-named property and parameter of the document (`at` its JSON pointer), with its
/// schema.
fn ids<'a>(value: &'a Value, at: &str, out: &mut Vec<(String, String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            if let Some(properties) = map.get("properties").and_then(Value::as_object) {
                for (name, schema) in properties.iter().filter(|(n, _)| names_an_id(n)) {
                    out.push((name.clone(), format!("{at}/properties/{name}"), schema));
                }
            }
            if let (Some(name), Some(_)) = (map.get("name").and_then(Value::as_str), map.get("in"))
            {
                if names_an_id(name) {
                    out.push((name.to_string(), at.to_string(), &map["schema"]));
                }
            }
            for (k, v) in map {
                ids(
                    v,
                    &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(list) => {
            for (i, v) in list.iter().enumerate() {
                ids(v, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Every id the document names (account, ad, task, rule, group, log entry and topic ids; path
/// and query parameters, body fields, answer fields, lists of ids) is a 64-bit integer from 1
/// (the server refuses 0 and negative ids, and answers none) to 2^63-1; `missing` echoes the
/// client's own `ad_ids`, whatever they are.
#[test]
fn every_id_is_a_positive_64_bit_integer() {
    let mut found = Vec::new();
    ids(document(), "", &mut found);
    let mut checked = 0;
    let mut parameters = BTreeSet::new();
    for (name, at, schema) in &found {
        let mut integers = Vec::new();
        integer_schemas(schema, &mut integers);
        for integer in integers {
            let bounds = (
                &integer["format"],
                integer["minimum"].as_i64(),
                integer["maximum"].as_i64(),
            );
            let lowest = if name == "missing" { i64::MIN } else { 1 };
            assert_eq!(
                bounds,
                (&json!("int64"), Some(lowest), Some(i64::MAX)),
                "{name} at {at}: {integer}"
            );
            checked += 1;
            if at.contains("/parameters/") {
                parameters.insert(name.clone());
            }
        }
    }
    assert!(checked > 60, "{checked} ids");
    for name in ["ad", "id", "account_id", "accountId", "ad_id", "before"] {
        assert!(
            parameters.contains(name),
            "the parameter {name}: {parameters:?}"
        );
    }
}

/// Where the document says an id is at least 1, the server refuses 0: the document is not
/// stricter than the server.
#[test]
fn the_server_refuses_the_ids_below_one_that_the_document_refuses() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let rule = any_rule(&app, &key);
    let parameter = |template: &str, method: &str, name: &str| -> Value {
        let operation = &document()["paths"][template][method];
        operation["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(openapi::deref)
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{method} {template} has {name}"))["schema"]
            .clone()
    };
    let refuses_zero = |schema: &Value| !openapi::compile(schema).unwrap().is_valid(&json!(0));
    for (template, name, path, status) in [
        (
            "/api/v1/campaigns/{ad}",
            "ad",
            "/campaigns/0".to_string(),
            400,
        ),
        ("/api/v1/tasks/{id}", "id", "/tasks/0".to_string(), 400),
        ("/api/v1/rules/{id}", "id", "/rules/0".to_string(), 400),
        (
            "/api/v1/conversions",
            "ad_id",
            "/conversions?ad_id=0".to_string(),
            400,
        ),
        (
            "/api/v1/campaigns",
            "account_id",
            "/campaigns?account_id=0".to_string(),
            400,
        ),
        (
            "/api/v1/rules/{id}/log",
            "before",
            format!("/rules/{rule}/log?before=0"),
            400,
        ),
    ] {
        assert!(
            refuses_zero(&parameter(template, "get", name)),
            "{template} {name}"
        );
        let r = app.get(&path, &key);
        assert_eq!(r.status, status, "GET {path}: {}", r.body);
    }
    let bulk = |ids: Value| json!({ "action": "pause", "ad_ids": ids });
    let schema = &document()["components"]["schemas"]["BulkRequest"];
    let validator = openapi::compile(schema).unwrap();
    assert!(validator.is_valid(&bulk(json!([ad]))));
    assert!(!validator.is_valid(&bulk(json!([0]))));
    let refused = app.write_err(
        "POST",
        "/campaigns/bulk",
        &key,
        Some(&bulk(json!([ad, 0]))),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(refused["param"], "ad_ids[1]");
}

/// An id past the 64-bit range is refused the same way wherever it is sent (a path, a query
/// string, a body): `400 VALIDATION_ERROR` naming the field, saying it is too large, as the
/// document's `Id` maximum says.
#[test]
fn an_id_past_the_64_bit_range_is_too_large_on_every_endpoint() {
    let app = spawn_app();
    let (_, cabinet, postbacks) = app.manager_with_postbacks();
    let key = postbacks.clone();
    let big = "9223372036854775808";
    let huge = "123456789012345678901234567890";
    assert!(
        !openapi::compile(&document()["components"]["schemas"]["Id"])
            .unwrap()
            .is_valid(&serde_json::from_str::<Value>(big).unwrap())
    );
    let reads = [
        (format!("/campaigns/{big}"), "ad_id"),
        (format!("/campaigns/{huge}?account_id={cabinet}"), "ad_id"),
        (format!("/campaigns/{big}/history"), "ad_id"),
        (format!("/tasks/{big}"), "id"),
        (format!("/rules/{big}"), "id"),
        (format!("/rules/{big}/log"), "id"),
        (format!("/campaigns?account_id={big}"), "account_id"),
        (format!("/groups?accountId={big}"), "account_id"),
        (format!("/conversions?ad_id={big}"), "ad_id"),
    ];
    for (path, param) in reads {
        let r = app.get(&path, &key);
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["param"], param, "GET {path}");
        assert!(
            r.body["error"].as_str().unwrap().contains("too large"),
            "GET {path}: {}",
            r.body
        );
    }
    let raw = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    let writes = [
        (
            "POST",
            "/campaigns/bulk".to_string(),
            json!({ "account_id": cabinet, "action": "pause", "ad_ids": [raw(big)] }),
            "ad_ids[0]",
        ),
        (
            "PATCH",
            format!("/campaigns/{big}?account_id={cabinet}"),
            json!({ "title": "x" }),
            "ad_id",
        ),
        (
            "POST",
            "/rules".to_string(),
            json!({ "name": "n", "account_id": raw(huge), "conditions": [], "action": {"type": "pause"} }),
            "account_id",
        ),
        (
            "POST",
            "/postback".to_string(),
            json!({ "ref": "r", "event": "lead", "txid": "t", "account_id": big }),
            "account_id",
        ),
    ];
    for (method, path, body, param) in writes {
        let r = app.send(
            method,
            &path,
            &postbacks,
            Some(&body),
            &[("Idempotency-Key", "too-large-ids-1")],
        );
        assert_eq!(r.status, 400, "{method} {path}: {}", r.body);
        assert_eq!(r.body["param"], param, "{method} {path}: {}", r.body);
        assert!(
            r.body["error"].as_str().unwrap().contains("too large"),
            "{method} {path}: {}",
            r.body
        );
    }
}

/// Creates a rule in the key's one cabinet; its id.
fn any_rule(app: &crate::helpers::TestApp, key: &str) -> i64 {
    app.write_ok(
        "POST",
        "/rules",
        key,
        Some(&json!({
            "name": "r",
            "conditions": [{ "metric": "views", "op": ">", "value": 1 }],
            "action": { "type": "pause" }
        })),
        200,
    )["data"]["id"]
        .as_i64()
        .unwrap()
}

/// The schema at `components/schemas/{name}`, compiled.
fn component(name: &str) -> jsonschema::Validator {
    openapi::compile(&document()["components"]["schemas"][name])
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The names and aliases the server reads an event type under, from `EVENT_NAMES`.
fn event_names() -> Vec<&'static str> {
    EVENT_NAMES
        .iter()
        .flat_map(|(_, names)| names.iter().copied())
        .collect()
}

/// The document's event names are the server's (`EVENT_NAMES`), everywhere an event type is
/// sent (the conversions filter, the postback and tracker event); `EventName` takes exactly
/// the spellings the server reads (any letter case, spaces around); answers name the three
/// types as the server writes them.
#[test]
fn the_event_names_are_the_servers() {
    let schemas = &document()["components"]["schemas"];
    let listed: Vec<&str> = schemas["EventName"]["anyOf"][0]["enum"]
        .as_array()
        .expect("EventName lists the names in an enum")
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(listed, event_names());
    let by_name = json!({ "$ref": "#/components/schemas/EventName" });
    let filter = document()["paths"]["/api/v1/conversions"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "event")
        .expect("GET /conversions takes event");
    assert_eq!(filter["schema"], by_name);
    let sent = &schemas["ConversionEvent"]["properties"]["event"]["anyOf"];
    assert!(sent.as_array().unwrap().contains(&by_name), "{sent}");
    let written: Vec<&str> = EVENT_NAMES.iter().map(|(kind, _)| kind.as_str()).collect();
    for answer in ["StoredConversionFields", "Conversion"] {
        assert_eq!(
            schemas[answer]["properties"]["event_type"]["enum"],
            json!(written),
            "{answer}"
        );
    }

    let schema = component("EventName");
    let mut spellings: Vec<String> = vec![
        "".into(),
        " ".into(),
        "click".into(),
        "lead,sale".into(),
        "le ad".into(),
        "lead\u{0}".into(),
    ];
    for name in event_names() {
        let mut capital = name.to_string();
        capital[..1].make_ascii_uppercase();
        spellings.extend([
            name.to_string(),
            name.to_uppercase(),
            format!("  {capital}\t"),
            format!("{name}s"),
            name[1..].to_string(),
            format!("x{name}"),
        ]);
    }
    for spelling in &spellings {
        assert_eq!(
            schema.is_valid(&json!(spelling)),
            EventType::parse(spelling).is_some(),
            "{spelling:?}"
        );
    }

    let app = spawn_app();
    let (_, _, key) = app.manager();
    for (sent, status) in [
        ("lead", 200),
        ("  Sale ", 200),
        ("FTD", 200),
        ("click", 400),
    ] {
        let path = format!("/conversions?event={}", sent.replace(' ', "%20"));
        let r = app.get(&path, &key);
        assert_eq!(r.status, status, "{path}: {}", r.body);
        assert_eq!(schema.is_valid(&json!(sent)), status == 200, "{sent:?}");
    }
}

/// `ConversionEvent` holds every parameter and alias the server reads (`PARAMS`), requires
/// what the server requires of an event (`ref` or `invite_link`, `event`, `txid`, each under
/// any of its names, sent as a number or a non-blank string), and takes what the server takes:
/// checked against the server's own parsing of a set of events, and against real answers to a
/// single event, a batch and the tracker URL.
#[test]
fn the_conversion_event_requires_what_the_server_requires() {
    let event = &document()["components"]["schemas"]["ConversionEvent"];
    let names_of = |param: &str| -> BTreeSet<String> {
        let (name, aliases) = PARAMS.iter().find(|(p, _)| *p == param).unwrap();
        std::iter::once(name)
            .chain(aliases.iter())
            .map(|n| n.to_string())
            .collect()
    };
    for (param, _) in PARAMS {
        for name in names_of(param) {
            assert!(event["properties"].get(&name).is_some(), "{name}");
        }
    }
    let groups: Vec<BTreeSet<String>> = event["allOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            g["anyOf"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["required"][0].as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    let target: BTreeSet<String> = names_of("ref")
        .union(&names_of("invite_link"))
        .cloned()
        .collect();
    assert_eq!(groups, [target, names_of("event"), names_of("txid")]);

    let schema = component("ConversionEvent");
    let base = json!({ "ref": "r1", "event": "lead", "txid": "t1" });
    let with = |changes: Value| {
        let mut e = base.clone();
        for (k, v) in changes.as_object().unwrap() {
            match v {
                Value::String(s) if s == "<gone>" => {
                    e.as_object_mut().unwrap().remove(k);
                }
                _ => e[k] = v.clone(),
            }
        }
        e
    };
    let cases = [
        base.clone(),
        with(json!({ "ref": "<gone>" })),
        with(json!({ "ref": "<gone>", "cid": 77 })),
        with(json!({ "ref": null, "subid": "s" })),
        with(json!({ "ref": " ", "clickid": "c" })),
        with(json!({ "ref": "" })),
        with(json!({ "ref": "<gone>", "link": "https://t.me/+AbC_12" })),
        with(json!({ "event": "<gone>" })),
        with(json!({ "event": "<gone>", "goal": "sale" })),
        with(json!({ "event": null, "type": "Deposit" })),
        with(json!({ "event": "click" })),
        with(json!({ "event": " PURCHASE " })),
        with(json!({ "event": 5 })),
        with(json!({ "event": "", "event_type": "reg" })),
        with(json!({ "txid": "<gone>" })),
        with(json!({ "txid": "<gone>", "order_id": 1234 })),
        with(json!({ "txid": "<gone>", "rdtk_event_id": "  " })),
        with(json!({ "txid": "x".repeat(256) })),
        with(json!({ "txid": ["t"] })),
        with(json!({ "amount": "12.5" })),
        with(json!({ "amount": -3 })),
        with(json!({ "amount": "1e5" })),
        with(json!({ "amount": "1.1234567" })),
        with(json!({ "amount": "1.5000000" })),
        with(json!({ "currency": "usdt" })),
        with(json!({ "currency": "$" })),
        with(json!({ "account_id": 5 })),
        with(json!({ "account_id": "0" })),
        with(json!({ "account_id": " 12 " })),
        with(json!({ "account_id": "abc" })),
        with(json!({ "sub5": { "x": 1 } })),
    ];
    for case in &cases {
        let server = RawEvent::from_json(case.clone()).and_then(|r| r.parse());
        assert_eq!(
            schema.is_valid(case),
            server.is_ok(),
            "{case}: the server says {server:?}"
        );
    }

    let app = spawn_app();
    let (user, cabinet, key) = app.manager_with_postbacks();
    app.campaign(
        cabinet,
        Camp::channel("Bot", "https://t.me/shop_bot?start=r1"),
    );
    let single = |body: &Value| app.send("POST", "/postback", &key, Some(body), &[]);
    assert_eq!(single(&base).status, 200);
    let without_txid = with(json!({ "txid": "<gone>" }));
    assert!(!schema.is_valid(&without_txid));
    let refused = single(&without_txid);
    refused.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(refused.body["param"], "txid");
    let batch = single(&json!({ "events": [with(json!({ "txid": "t2" })), without_txid] }));
    assert_eq!(batch.status, 202, "{}", batch.body);
    let results = &batch.body["data"]["results"];
    assert_eq!(
        (&results[0]["ok"], &results[1]["ok"]),
        (&json!(true), &json!(false))
    );
    assert_eq!(results[1]["code"], "VALIDATION_ERROR");

    let token = printed(ops::tracker_rotate(&app.services, user).unwrap())["token"]
        .as_str()
        .unwrap()
        .to_string();
    let as_query = |query: &str| -> Value {
        let pairs: serde_json::Map<String, Value> = query
            .split('&')
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.to_string(), json!(v.replace("%20", " "))))
            .collect();
        Value::Object(pairs)
    };
    for (query, status) in [
        ("subid=r1&goal=FTD&tid=q1", 200),
        ("ref=r1&event=lead", 400),
        ("ref=r1&event=click&txid=q2", 400),
        ("link=%20&ref=r1&type=sale&txid=q3", 200),
    ] {
        let r = app.call("GET", &format!("/ingest/{token}?{query}"), None);
        assert_eq!(r.status, status, "{query}: {}", r.body);
        assert_eq!(schema.is_valid(&as_query(query)), status == 200, "{query}");
    }
}

/// `PATCH /campaigns/{ad}` with nothing to change (`{}`, or `account_id` alone) is refused by
/// the schema as by the server; every other field of the body changes something, and a body of
/// one of them is taken by both. `PATCH /rules/{id}` takes `{}` (the rule is saved as it is),
/// and so does its schema.
#[test]
fn an_edit_that_changes_nothing_is_refused_by_the_schema_and_the_server() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let edit = &document()["components"]["schemas"]["EditCampaignRequest"];
    let schema = component("EditCampaignRequest");
    let patch =
        |body: &Value| app.send("PATCH", &format!("/campaigns/{ad}"), &key, Some(body), &[]);
    for body in [
        json!({}),
        json!({ "account_id": cabinet }),
        json!({ "accountId": cabinet }),
    ] {
        assert!(!schema.is_valid(&body), "{body}");
        let r = patch(&body);
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["param"], "body");
    }
    let changes: BTreeSet<&str> = edit["anyOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["required"][0].as_str().unwrap())
        .collect();
    let fields: BTreeSet<&str> = edit["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .filter(|f| !["account_id", "accountId"].contains(f))
        .collect();
    assert_eq!(
        changes, fields,
        "every field but the cabinet's changes something"
    );
    for body in [
        json!({ "title": "Renamed" }),
        json!({ "active": false }),
        json!({ "schedule": null }),
        json!({ "website_name": null }),
        json!({ "daily_budget": null, "account_id": cabinet }),
    ] {
        assert!(schema.is_valid(&body), "{body}");
        let r = patch(&body);
        assert_eq!(r.status, 200, "{body}: {}", r.body);
    }

    let rule = any_rule(&app, &key);
    assert!(component("EditRuleRequest").is_valid(&json!({})));
    let r = app.send(
        "PATCH",
        &format!("/rules/{rule}"),
        &key,
        Some(&json!({})),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

/// Blank names and list entries, and a group named both ways, are refused by the schemas as
/// by the server.
#[test]
fn blank_names_and_two_groups_are_refused_by_the_schemas_and_the_server() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let create = component("CreateCampaignsRequest");
    let body = |extra: Value| crate::helpers::campaign_body(cabinet, extra);
    assert!(create.is_valid(&body(json!({}))));
    for (extra, param) in [
        (json!({ "title": "  " }), "title"),
        (json!({ "new_group_name": " " }), "new_group_name"),
        (
            json!({ "group_id": 1, "new_group_name": "G" }),
            "new_group_name",
        ),
        (json!({ "channels": ["@tech_daily", "  "] }), "channels[1]"),
    ] {
        let sent = body(extra);
        assert!(!create.is_valid(&sent), "{sent}");
        let refused = app.write_err(
            "POST",
            "/campaigns",
            &key,
            Some(&sent),
            400,
            "VALIDATION_ERROR",
        );
        assert_eq!(refused["param"], param, "{sent}");
    }
    let rule = json!({
        "name": "   ",
        "conditions": [{ "metric": "views", "op": ">", "value": 1 }],
        "action": { "type": "notify", "text": "x" }
    });
    let rules = component("RuleRequest");
    assert!(!rules.is_valid(&rule));
    let refused = app.write_err("POST", "/rules", &key, Some(&rule), 400, "VALIDATION_ERROR");
    assert_eq!(refused["param"], "name");
    let mut blank_text = rule.clone();
    blank_text["name"] = json!("r");
    blank_text["action"]["text"] = json!(" ");
    assert!(!rules.is_valid(&blank_text));
    let refused = app.write_err(
        "POST",
        "/rules",
        &key,
        Some(&blank_text),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(refused["param"], "action.text");
}

/// The campaign list's `status` (a comma-separated list of statuses in any letter case) and
/// `sortOrder` (in any letter case) take what the server takes.
#[test]
fn the_campaign_list_filters_take_what_the_server_takes() {
    let parameter = |name: &str| {
        let p = document()["paths"]["/api/v1/campaigns"]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap();
        openapi::compile(&p["schema"]).unwrap()
    };
    let written: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(
        document()["components"]["schemas"]["CampaignStatus"]["enum"],
        json!(written)
    );
    let status = parameter("status");
    let server_takes = |list: &str| {
        list.split(',')
            .filter(|s| !s.trim().is_empty())
            .all(|s| Status::parse(s).is_some())
    };
    let mut lists: Vec<String> = vec![
        "Active,On Hold".into(),
        " in review , PAUSED".into(),
        "Active,,Stopped,".into(),
        "Active Stopped".into(),
        "In  Review".into(),
        "Running".into(),
        "Active;Paused".into(),
    ];
    for s in written.iter() {
        lists.extend([
            s.to_string(),
            s.to_lowercase(),
            format!("{s}x"),
            format!("x,{s}"),
        ]);
    }
    for list in &lists {
        assert_eq!(
            status.is_valid(&json!(list)),
            server_takes(list),
            "{list:?}"
        );
    }
    let order = parameter("sortOrder");
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    for (query, valid) in [
        ("status=Active,on%20hold", true),
        ("status=active,Running", false),
        ("sortOrder=DESC", true),
        ("sortOrder=Asc", true),
        ("sortOrder=up", false),
    ] {
        let r = app.get(&format!("/campaigns?account_id={cabinet}&{query}"), &key);
        assert_eq!(r.status == 200, valid, "{query}: {}", r.body);
        let (name, value) = query.split_once('=').unwrap();
        let value = json!(value.replace("%20", " "));
        let schema = if name == "status" { &status } else { &order };
        assert_eq!(schema.is_valid(&value), valid, "{query}");
    }
}

/// An amount sent as a string is read in the server's one grammar of money
/// (`domain::money::parse_amount`) at the cabinet's scale (2 decimals, or 0 for STARS): the
/// document takes every string the server reads, and refuses the malformed ones it refuses.
/// Every amount the server writes has at most six decimals.
#[test]
fn amounts_are_the_strings_the_server_reads_and_writes() {
    let schema = component("AmountInput");
    for text in [
        "0",
        "5",
        "2.5",
        "2.50",
        "2.500000",
        "007.10",
        "1000000000",
        "1000000000.00",
        "1.",
        ".5",
        "1e2",
        "+5",
        " 5",
        "5 ",
        "-1",
        "1.005",
        "1.001",
        "1,5",
        "1.5.0",
        "abc",
        "",
        "0x10",
    ] {
        let at_two = parse_amount(text, 2, false).is_ok();
        assert_eq!(schema.is_valid(&json!(text)), at_two, "{text:?}");
        if parse_amount(text, 0, false).is_ok() {
            assert!(schema.is_valid(&json!(text)), "{text:?} in STARS");
        }
    }
    let written = component("Money");
    for micros in [0, 1, 1_500_000, 123_456_789, 1_000_000_000_000_000] {
        let money = Money::from_micros(micros);
        for text in [money.render(0), money.render(2), money.render6()] {
            assert!(written.is_valid(&json!(text)), "{text}");
        }
    }
    assert!(!written.is_valid(&json!("1.1234567")));
}
