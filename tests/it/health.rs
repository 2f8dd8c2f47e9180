//! `GET /healthz` and `GET /readyz`: answered without a key, outside the rate limits and the
//! envelope; readiness names each check, the quick check of the database at start among them.

use crate::helpers::{spawn_app, Resp};

fn probe(base: &str, method: &str, path: &str) -> Resp {
    let root = base.trim_end_matches("/api/v1");
    Resp::from_ureq(ureq::request(method, &format!("{root}{path}")).call(), path)
}

#[test]
fn liveness_answers_without_a_key_or_a_rate_limit() {
    let app = spawn_app();
    for _ in 0..70 {
        let r = probe(&app.base, "GET", "/healthz");
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["status"], "ok");
        assert!(r.header("x-ratelimit-limit").is_none());
    }
    let post = probe(&app.base, "POST", "/healthz");
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
}

#[test]
fn readiness_names_each_check() {
    let app = spawn_app();
    let r = probe(&app.base, "GET", "/readyz");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "ready");
    for check in ["database", "migrations", "scheduler"] {
        assert_eq!(r.body[check]["ok"], true, "{check}: {}", r.body);
    }
    let schema = adcab::db::schema::version();
    assert_eq!(r.body["migrations"]["detail"], format!("schema {schema}"));
    assert_eq!(r.body["platform"]["ok"], true, "{}", r.body);
    assert_eq!(
        r.body["platform"]["detail"], "the built-in simulator, in adcab's own database",
        "the simulator has no way to it that can fail"
    );
    let database = r.body["database"]["detail"].as_str().unwrap();
    assert!(
        database.starts_with("takes writes; no damaged page at start (quick check, "),
        "the quick check at start is reported: {database}"
    );
}
