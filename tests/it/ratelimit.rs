//! Per-key read budget with its headers on every answer, and 429 with Retry-After.

use crate::helpers::{in_one_rate_window, spawn_app_with};

#[test]
fn reads_beyond_the_budget_are_rate_limited_with_headers() {
    let app = spawn_app_with(|c| c.limits.reads_per_minute = 3);
    let (_, _, key) = app.owner_with_cabinet("pro");
    let (_, _, other) = app.owner_with_cabinet("pro");
    let answers = in_one_rate_window(|| (0..4).map(|_| app.get("/targeting", &key)).collect());
    let remaining: Vec<&str> = answers
        .iter()
        .map(|r| r.header("x-ratelimit-remaining").unwrap())
        .collect();
    assert_eq!(remaining, ["2", "1", "0", "0"]);
    assert!(answers
        .iter()
        .all(|r| r.header("x-ratelimit-limit") == Some("3")));
    let limited = &answers[3];
    limited.assert_error(429, "RATE_LIMITED");
    let retry: u64 = limited.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    let reset: u64 = limited
        .header("x-ratelimit-reset")
        .unwrap()
        .parse()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(
        reset > now && reset <= now + 60,
        "reset is unix seconds within the minute"
    );
    assert!(
        answers[0].header("retry-after").is_none(),
        "Retry-After only on 429"
    );
    assert_eq!(
        app.get("/targeting", &other).status,
        200,
        "another key has its own budget"
    );
}

#[test]
fn error_answers_carry_the_headers_and_count_against_the_budget() {
    let app = spawn_app_with(|c| c.limits.reads_per_minute = 2);
    let (_, _, key) = app.owner_with_cabinet("pro");
    let answers = in_one_rate_window(|| {
        vec![
            app.get("/campaigns/999", &key),
            app.get("/campaigns?limit=0", &key),
        ]
    });
    assert_eq!(answers[0].status, 404);
    assert_eq!(answers[0].header("x-ratelimit-remaining"), Some("1"));
    assert_eq!(answers[1].status, 400);
    assert_eq!(answers[1].header("x-ratelimit-remaining"), Some("0"));
}
