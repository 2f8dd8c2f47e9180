//! The failure envelope for requests that reach no handler: unknown routes, wrong methods,
//! paths outside the API, bad query values; and the request id on every answer.

use crate::helpers::spawn_app;

#[test]
fn an_unknown_route_is_a_404_envelope_and_outside_the_api_a_panel_page() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    app.expect_err("GET", "/nothing/here", Some(&key), 404, "ROUTE_NOT_FOUND");
    // Outside the API the web panel answers, with a page of its own.
    let page = crate::helpers::Browser::new(&app).get("/v2/x");
    assert_eq!(page.status, 404);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    let app = app.restart_with(|c| c.panel.enabled = false);
    let r = app.call("GET", "/../../v2/x", None);
    r.assert_error(404, "ROUTE_NOT_FOUND");
}

#[test]
fn a_wrong_method_is_a_405_envelope_with_allow() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    let body = app.expect_err(
        "DELETE",
        "/targeting",
        Some(&key),
        405,
        "METHOD_NOT_ALLOWED",
    );
    assert!(body["error"].as_str().unwrap().contains("GET"));
    let r = app.call("PUT", "/account/info", Some(&key));
    assert_eq!(r.header("allow"), Some("GET"));
}

#[test]
fn a_wrong_query_type_names_the_param() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    let body = app.get_err("/campaigns?account_id=abc", &key, 400, "VALIDATION_ERROR");
    assert_eq!(body["param"], "account_id");
    let body = app.get_err("/campaigns?limit=1.5", &key, 400, "VALIDATION_ERROR");
    assert_eq!(body["param"], "limit");
    let body = app.get_err("/campaigns?title=%ZZ", &key, 400, "VALIDATION_ERROR");
    assert_eq!(body["param"], "title");
}

#[test]
fn every_answer_carries_a_fresh_request_id() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    let a = app.get("/targeting", &key);
    let b = app.get("/targeting", &key);
    let (ia, ib) = (
        a.header("x-request-id").unwrap(),
        b.header("x-request-id").unwrap(),
    );
    assert!(ia.starts_with("req_"));
    assert_ne!(ia, ib);
    assert_eq!(a.header("content-type"), Some("application/json"));
}
