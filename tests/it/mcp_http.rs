//! MCP over HTTP, `POST /mcp`: the key checked before the body, sessions opened by
//! `initialize` and named by `Mcp-Session-Id`, the guards set by the opening request, and a
//! pause made through it as the API then reads it.

use serde_json::{json, Value};

use crate::helpers::{openapi, spawn_app, TestApp};

/// A call to `/mcp`: status, headers we look at, and the JSON body (null when empty).
struct Answer {
    status: u16,
    session: Option<String>,
    body: Value,
}

/// `/mcp` on the test server (its `base` is the API's prefix).
fn mcp_url(app: &TestApp) -> String {
    let origin = app.base.split("/api/").next().unwrap();
    format!("{origin}/mcp")
}

fn post(app: &TestApp, key: Option<&str>, headers: &[(&str, &str)], message: &Value) -> Answer {
    let mut req = ureq::post(&mcp_url(app))
        .set("Content-Type", "application/json")
        .set("Accept", "application/json, text/event-stream");
    if let Some(key) = key {
        req = req.set("X-API-Key", key);
    }
    for (name, value) in headers {
        req = req.set(name, value);
    }
    answer(req.send_string(&message.to_string()))
}

fn answer(result: Result<ureq::Response, ureq::Error>) -> Answer {
    let r = match result {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("/mcp: {e}"),
    };
    let status = r.status();
    let headers: std::collections::HashMap<String, String> = r
        .headers_names()
        .into_iter()
        .map(|n| {
            (
                n.to_ascii_lowercase(),
                r.header(&n).unwrap_or_default().to_string(),
            )
        })
        .collect();
    let session = headers.get("mcp-session-id").cloned();
    let text = r.into_string().unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap()
    };
    if !body.is_null() {
        openapi::assert_documented(Some("post"), "/mcp", status, &headers, &body);
    }
    Answer {
        status,
        session,
        body,
    }
}

fn initialize(app: &TestApp, key: &str, headers: &[(&str, &str)]) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "http-assistant", "version": "2"}}});
    let a = post(app, Some(key), headers, &init);
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["result"]["serverInfo"]["name"], "adcab");
    let session = a.session.expect("Mcp-Session-Id");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let a = post(app, Some(key), &[("Mcp-Session-Id", &session)], &note);
    assert_eq!((a.status, a.body), (202, Value::Null));
    session
}

fn call(app: &TestApp, key: &str, session: &str, id: i64, tool: &str, args: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": args}});
    let a = post(app, Some(key), &[("Mcp-Session-Id", session)], &message);
    assert_eq!(a.status, 200, "{}", a.body);
    a.body["result"].clone()
}

fn error_code(result: &Value) -> Value {
    let text = result["content"][0]["text"].as_str().unwrap();
    serde_json::from_str::<Value>(text).unwrap()["error"]["code"].clone()
}

#[test]
fn post_mcp_pauses_a_campaign_in_a_session_named_by_its_header() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let session = initialize(&app, &key, &[]);
    let listed = post(
        &app,
        Some(&key),
        &[("Mcp-Session-Id", &session)],
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    assert!(listed.body["result"]["tools"].as_array().unwrap().len() >= 10);
    let paused = call(
        &app,
        &key,
        &session,
        3,
        "pause_campaign",
        json!({"ad_id": ad}),
    );
    assert_eq!(paused["isError"], false, "{paused}");
    let read = app.get_ok(&format!("/campaigns/{ad}"), &key);
    assert_eq!(read["data"]["active"], false);
    let history = adcab::ops::history(&app.services, cabinet, ad)
        .unwrap()
        .events;
    assert_eq!(
        history.last().unwrap().client.as_deref(),
        Some("http-assistant")
    );
    // The panel's history names the assistant and the person whose key it used.
    let page = crate::web::logged_in(&app, user).get(&format!("/campaigns/{cabinet}/{ad}"));
    let email = history.last().unwrap().user_email.clone().unwrap();
    assert!(
        page.body
            .contains(&format!("by the AI assistant http-assistant for {email}")),
        "{}",
        page.body
    );

    let without = post(
        &app,
        Some(&key),
        &[],
        &json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
    );
    assert_eq!(
        without.status, 400,
        "a message outside initialize names its session"
    );
    let (_, _, other_key) = app.manager();
    let stolen = post(
        &app,
        Some(&other_key),
        &[("Mcp-Session-Id", &session)],
        &json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
    );
    assert_eq!(
        stolen.status, 404,
        "a session belongs to the key that opened it"
    );
    let ended = answer(
        ureq::delete(&mcp_url(&app))
            .set("X-API-Key", &key)
            .set("Mcp-Session-Id", &session)
            .call(),
    );
    assert_eq!(ended.status, 204);
    let gone = post(
        &app,
        Some(&key),
        &[("Mcp-Session-Id", &session)],
        &json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
    );
    assert_eq!(gone.status, 404);
}

#[test]
fn post_mcp_refuses_a_missing_key_before_reading_the_body_and_a_huge_body() {
    let app = spawn_app();
    let a = post(
        &app,
        None,
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    assert_eq!(a.status, 401);
    assert_eq!(a.body["error"]["data"]["code"], "API_KEY_MISSING");
    let (_, _, key) = app.manager();
    // Declared larger than the bound: refused from the head, the body never read.
    let a = answer(
        ureq::post(&mcp_url(&app))
            .set("X-API-Key", &key)
            .set("Content-Type", "application/json")
            .send_bytes(&vec![b' '; 3 * 1024 * 1024]),
    );
    assert_eq!(a.status, 413);
}

#[test]
fn post_mcp_read_only_and_money_cap_headers_guard_the_session() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.funded(cabinet, 10_000_000);
    let session = initialize(&app, &key, &[("X-MCP-Read-Only", "true")]);
    let refused = call(
        &app,
        &key,
        &session,
        2,
        "pause_campaign",
        json!({"ad_id": ad}),
    );
    assert_eq!(refused["isError"], true);
    assert_eq!(error_code(&refused), "READ_ONLY_SESSION");
    let read = call(
        &app,
        &key,
        &session,
        3,
        "get_campaign",
        json!({"ad_id": ad}),
    );
    assert_eq!(read["isError"], false, "{read}");

    let session = initialize(&app, &key, &[("X-MCP-Max-Money", "2")]);
    let over = call(
        &app,
        &key,
        &session,
        2,
        "move_budget",
        json!({"ad_id": ad, "action": "add", "amount": "2.5"}),
    );
    assert_eq!(error_code(&over), "MONEY_CAP_REACHED");
    let within = call(
        &app,
        &key,
        &session,
        3,
        "move_budget",
        json!({"ad_id": ad, "action": "add", "amount": "2"}),
    );
    assert_eq!(within["isError"], false, "{within}");
}
