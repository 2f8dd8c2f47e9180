//! What the benchmarks of the web panel share: logging in over HTTP as a browser does.

use adcab::panel::login::LOGIN_COOKIE;
use adcab::panel::session::COOKIE;

/// Logs in as a browser does: the form (its `csrf` field and the `adcab_login` cookie), then
/// the form sent back with the email and password. The `Cookie` header of the session.
pub fn login(agent: &ureq::Agent, root: &str, email: &str, password: &str) -> String {
    let form = agent
        .get(&format!("{root}/login"))
        .call()
        .expect("GET /login");
    assert_eq!(form.status(), 200, "GET /login");
    let login_cookie = set_cookie(&form, LOGIN_COOKIE);
    let html = form.into_string().expect("the form");
    let csrf = html
        .split_once(r#"name="csrf" value=""#)
        .and_then(|(_, rest)| rest.split_once('"'))
        .expect("the form's csrf field")
        .0
        .to_string();
    let answer = agent
        .post(&format!("{root}/login"))
        .set("Cookie", &format!("{LOGIN_COOKIE}={login_cookie}"))
        .set("Origin", root)
        .set("Sec-Fetch-Site", "same-origin")
        .send_form(&[
            ("csrf", csrf.as_str()),
            ("email", email),
            ("password", password),
        ])
        .expect("POST /login");
    assert_eq!(answer.status(), 303, "POST /login");
    assert_eq!(
        answer.header("location"),
        Some("/"),
        "signing in lands on the home page"
    );
    format!("{COOKIE}={}", set_cookie(&answer, COOKIE))
}

/// The value a response's `Set-Cookie` headers give cookie `name`.
fn set_cookie(response: &ureq::Response, name: &str) -> String {
    response
        .all("set-cookie")
        .into_iter()
        .find_map(|h| h.strip_prefix(&format!("{name}=")))
        .and_then(|rest| rest.split(';').next())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| panic!("a {name} cookie"))
        .to_string()
}
