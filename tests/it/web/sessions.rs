//! Logging in and out, session expiry, CSRF and cross-site refusal, the login rate limit.

use super::{with_login, PASSWORD};
use crate::helpers::{spawn_app, spawn_app_with, Browser};

#[test]
fn pages_send_a_visitor_without_a_session_to_the_login() {
    let app = spawn_app();
    let b = Browser::new(&app);
    for path in ["/", "/cabinets", "/campaigns", "/campaigns/1/1"] {
        let page = b.get(path);
        assert_eq!(page.status, 303, "{path}");
        assert_eq!(page.location.as_deref(), Some("/login"), "{path}");
    }
    let form = b.get("/login");
    assert_eq!(form.status, 200);
    assert!(form.body.contains(r#"name="email""#) && form.body.contains(r#"name="password""#));
}

#[test]
fn a_good_login_answers_303_with_a_hardened_session_cookie() {
    let app = spawn_app();
    let user = app.user("pro");
    let email = with_login(&app, user);
    let b = Browser::new(&app);

    let wrong = b.login(&email, "not the password");
    assert_eq!(wrong.status, 401);
    assert!(wrong.body.contains("Wrong email or password."));
    assert!(b.cookie("adcab_session").is_none());
    let unknown = b.login("nobody@example.com", PASSWORD);
    assert_eq!(
        unknown.status, 401,
        "an unknown email reads the same as a wrong password"
    );
    assert!(unknown.body.contains("Wrong email or password."));

    let good = b.login(&email.to_uppercase(), PASSWORD);
    assert_eq!(good.status, 303, "{}", good.body);
    assert_eq!(good.location.as_deref(), Some("/"));
    let cookie = good
        .set_cookies
        .iter()
        .find(|c| c.starts_with("adcab_session="))
        .expect("a session cookie");
    for part in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    assert!(
        !cookie.contains("Secure"),
        "plain http without a public https URL: {cookie}"
    );
    let token = b.cookie("adcab_session").unwrap();
    // Only the token's SHA-256 is stored.
    let rows: i64 = app.scalar("SELECT COUNT(*) FROM sessions", &[]);
    assert_eq!(rows, 1);
    let kept: String = app.scalar("SELECT token_hash FROM sessions", &[]);
    assert_ne!(kept, token);
    assert_eq!(kept, adcab::primitives::sha256_hex(&token));
    assert_eq!(b.get("/campaigns").status, 200);
    assert_eq!(b.get("/login").location.as_deref(), Some("/"));
}

#[test]
fn behind_https_the_session_cookie_is_secure() {
    let app = spawn_app_with(|c| c.panel.public_url = "https://ads.example.com".into());
    let user = app.user("pro");
    let email = with_login(&app, user);
    let b = Browser::new(&app);
    let form = b.get("/login");
    let good = b.post_with(
        "/login",
        &[
            ("csrf", &form.csrf()),
            ("email", &email),
            ("password", PASSWORD),
        ],
        &[("origin", "https://ads.example.com")],
    );
    assert_eq!(good.status, 303);
    assert!(good
        .set_cookies
        .iter()
        .any(|c| c.starts_with("adcab_session=") && c.contains("Secure")));
}

#[test]
fn a_form_without_its_csrf_token_or_sent_cross_site_is_refused() {
    let app = spawn_app();
    let user = app.user("pro");
    let email = with_login(&app, user);
    let b = Browser::new(&app);
    assert_eq!(b.login(&email, PASSWORD).status, 303);
    let csrf = b.get("/campaigns").csrf();

    assert_eq!(b.post("/logout", &[]).status, 403, "no token");
    assert_eq!(
        b.post("/logout", &[("csrf", "0".repeat(64).as_str())])
            .status,
        403,
        "a wrong token"
    );
    let cross = b.post_with(
        "/logout",
        &[("csrf", &csrf)],
        &[("sec-fetch-site", "cross-site")],
    );
    assert_eq!(cross.status, 403, "Sec-Fetch-Site");
    let origin = b.post_with(
        "/logout",
        &[("csrf", &csrf)],
        &[("origin", "https://evil.example")],
    );
    assert_eq!(origin.status, 403, "Origin");
    assert_eq!(
        b.get("/campaigns").status,
        200,
        "nothing refused ended the session"
    );

    let login_form = Browser::new(&app);
    assert_eq!(login_form.get("/login").status, 200);
    let forged = login_form.post(
        "/login",
        &[
            ("csrf", "f".repeat(64).as_str()),
            ("email", &email),
            ("password", PASSWORD),
        ],
    );
    assert_eq!(forged.status, 403, "the login form checks its own token");

    let out = b.post_with(
        "/logout",
        &[("csrf", &csrf)],
        &[("sec-fetch-site", "same-origin")],
    );
    assert_eq!(out.status, 303);
    assert_eq!(out.location.as_deref(), Some("/login"));
    assert_eq!(b.get("/campaigns").status, 303, "the session ended");
}

#[test]
fn sessions_end_when_idle_at_their_age_limit_and_everywhere_on_request() {
    let app = spawn_app_with(|c| {
        c.panel.session_idle_minutes = 30;
        c.panel.session_max_days = 2;
    });
    let user = app.user("pro");
    let email = with_login(&app, user);
    let now = adcab::primitives::unix_now() as i64;

    let idle = Browser::new(&app);
    assert_eq!(idle.login(&email, PASSWORD).status, 303);
    app.sql(&format!("UPDATE sessions SET seen_at = {}", now - 31 * 60));
    assert_eq!(idle.get("/campaigns").status, 303, "idle past 30 minutes");
    let left: i64 = app.scalar("SELECT COUNT(*) FROM sessions", &[]);
    assert_eq!(left, 0, "the expired session is removed");

    let old = Browser::new(&app);
    assert_eq!(old.login(&email, PASSWORD).status, 303);
    app.sql(&format!(
        "UPDATE sessions SET created_at = {}, seen_at = {now}",
        now - 2 * 86_400 - 1
    ));
    assert_eq!(
        old.get("/campaigns").status,
        303,
        "older than two days, though active"
    );

    let (first, second) = (Browser::new(&app), Browser::new(&app));
    assert_eq!(first.login(&email, PASSWORD).status, 303);
    assert_eq!(second.login(&email, PASSWORD).status, 303);
    let csrf = first.get("/campaigns").csrf();
    let out = first.post("/logout", &[("csrf", &csrf), ("everywhere", "1")]);
    assert_eq!(out.status, 303);
    assert_eq!(
        second.get("/campaigns").status,
        303,
        "the other browser is logged out too"
    );

    assert_eq!(second.login(&email, PASSWORD).status, 303);
    adcab::ops::user_set(
        &app.services,
        user,
        None,
        None,
        Some("a brand new password"),
    )
    .unwrap();
    assert_eq!(
        second.get("/campaigns").status,
        303,
        "a new password ends the sessions"
    );
    assert_eq!(second.login(&email, PASSWORD).status, 401);
    assert_eq!(second.login(&email, "a brand new password").status, 303);
}

#[test]
fn failed_logins_are_limited_per_account_and_per_address() {
    let app = spawn_app_with(|c| {
        c.panel.login_failures_per_account = 3;
        c.panel.login_failures_per_address = 5;
    });
    let (a, b_user) = (app.user("pro"), app.user("pro"));
    let (email_a, email_b) = (with_login(&app, a), with_login(&app, b_user));
    let b = Browser::new(&app);
    for _ in 0..3 {
        assert_eq!(b.login(&email_a, "wrong password!").status, 401);
    }
    let limited = b.login(&email_a, PASSWORD);
    assert_eq!(
        limited.status, 429,
        "the right password is not even checked now"
    );
    assert!(limited.body.contains("Too many failed sign-ins"));
    assert!(b.cookie("adcab_session").is_none());

    assert_eq!(b.login(&email_b, "wrong password!").status, 401);
    assert_eq!(
        b.login(&email_b, PASSWORD).status,
        303,
        "another account, under the address limit"
    );
    let c = Browser::new(&app);
    assert_eq!(
        c.login(&email_b, "wrong password!").status,
        401,
        "the fifth failure from this address"
    );
    assert_eq!(
        c.login(&email_b, PASSWORD).status,
        429,
        "the address is limited for every account"
    );
}

/// Opens the login form in each of `n` browsers, then sends every form at once, each with
/// the password `password(i)`; returns the statuses in order, with the browsers.
fn login_burst(
    app: &crate::helpers::TestApp,
    email: &str,
    n: usize,
    password: impl Fn(usize) -> String + Sync,
    headers: impl Fn(usize) -> Vec<(String, String)> + Sync,
) -> Vec<(u16, Browser)> {
    let ready: Vec<(Browser, String)> = (0..n)
        .map(|_| {
            let b = Browser::new(app);
            let csrf = b.get("/login").csrf();
            (b, csrf)
        })
        .collect();
    let gate = std::sync::Barrier::new(n);
    std::thread::scope(|s| {
        let sent: Vec<_> = ready
            .into_iter()
            .enumerate()
            .map(|(i, (b, csrf))| {
                let (gate, password, headers) = (&gate, &password, &headers);
                s.spawn(move || {
                    let pass = password(i);
                    let extra = headers(i);
                    let extra: Vec<(&str, &str)> = extra
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.as_str()))
                        .collect();
                    gate.wait();
                    let page = b.post_with(
                        "/login",
                        &[("csrf", &csrf), ("email", email), ("password", &pass)],
                        &extra,
                    );
                    (page.status, b)
                })
            })
            .collect();
        sent.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn concurrent_guesses_are_counted_before_their_passwords_are_checked() {
    let app = spawn_app();
    let user = app.user("pro");
    let email = with_login(&app, user);
    let answers = login_burst(&app, &email, 40, |_| "wrong password!".into(), |_| vec![]);
    let checked = answers.iter().filter(|(s, _)| *s == 401).count();
    let limited = answers.iter().filter(|(s, _)| *s == 429).count();
    assert_eq!(
        checked,
        5,
        "the account's limit of 5: {answers:?}",
        answers = statuses(&answers)
    );
    assert_eq!(checked + limited, 40, "{:?}", statuses(&answers));

    // A burst with the right password 25th: the limit is reached before it is checked.
    let other = app.user("pro");
    let email = with_login(&app, other);
    let answers = login_burst(
        &app,
        &email,
        30,
        |i| {
            if i == 24 {
                PASSWORD.into()
            } else {
                "wrong password!".into()
            }
        },
        |_| vec![],
    );
    let (status, browser) = &answers[24];
    assert!(matches!(status, 303 | 429), "{status}");
    // A right password gives its reserved slot back, so one more wrong guess may be checked
    // when that happens before the rest of the burst is refused; never a sixth.
    let wrong = answers.iter().filter(|(s, _)| *s == 401).count();
    let signed_in = *status == 303;
    assert!(
        wrong == 5 || (signed_in && wrong == 4),
        "only the 5 attempts reserved first were checked: {:?}",
        statuses(&answers)
    );
    assert_eq!(
        answers.iter().filter(|(s, _)| *s == 429).count(),
        30 - wrong - usize::from(signed_in),
        "{:?}",
        statuses(&answers)
    );
    assert_eq!(
        browser.cookie("adcab_session").is_some(),
        *status == 303,
        "the right password signs in only when it was among the 5 checked"
    );
}

/// A wrong password for `email` sent with `X-Forwarded-For: forwarded`; the status.
fn wrong_login_from(b: &Browser, email: &str, forwarded: &str) -> u16 {
    let csrf = b.get("/login").csrf();
    b.post_with(
        "/login",
        &[
            ("csrf", &csrf),
            ("email", email),
            ("password", "wrong password!"),
        ],
        &[("x-forwarded-for", forwarded)],
    )
    .status
}

fn statuses(answers: &[(u16, Browser)]) -> Vec<u16> {
    answers.iter().map(|(s, _)| *s).collect()
}

#[test]
fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_address_limit() {
    let app = spawn_app_with(|c| {
        c.panel.login_failures_per_address = 2;
        c.panel.trusted_proxies =
            vec![adcab::domain::network::Network::parse("127.0.0.1").unwrap()];
    });
    let b = Browser::new(&app);
    let wrong_from =
        |client: &str, email: &str| wrong_login_from(&b, email, &format!("{client}, 127.0.0.1"));
    for n in 0..2 {
        assert_eq!(wrong_from("203.0.113.1", &format!("a{n}@x.org")), 401);
    }
    assert_eq!(
        wrong_from("203.0.113.1", "a9@x.org"),
        429,
        "the first client reached its limit"
    );
    assert_eq!(
        wrong_from("203.0.113.2", "b@x.org"),
        401,
        "another client behind the same proxy is not locked out"
    );

    let untrusted = spawn_app_with(|c| c.panel.login_failures_per_address = 2);
    let b = Browser::new(&untrusted);
    let wrong_from = |client: &str, email: &str| wrong_login_from(&b, email, client);
    assert_eq!(wrong_from("203.0.113.1", "a@x.org"), 401);
    assert_eq!(wrong_from("203.0.113.2", "b@x.org"), 401);
    assert_eq!(
        wrong_from("203.0.113.3", "c@x.org"),
        429,
        "without a trusted proxy the header is ignored: one address"
    );
}
