//! Owns logging in and out: the login form (its CSRF token is a cookie of its own, as no
//! session exists yet), the password check off the runtime, the limits on failed attempts per
//! account and per client address (each attempt counted before its password is checked, and
//! at most two checks at once), the session cookie, and logging out (this browser, or
//! everywhere).

use maud::html;

use super::layout;
use super::session::{self, Session, COOKIE};
use super::{Form, Visit, WebError};
use crate::http::Reply;
use crate::primitives::{random_hex, unix_now};
use crate::store::{sessions, StoreError};

/// The login form's own CSRF cookie.
pub const LOGIN_COOKIE: &str = "adcab_login";
/// `GET /login`: the form, or the home page for someone already logged in.
pub fn form(visit: &Visit, session: Option<&Session>) -> Result<Reply, WebError> {
    if session.is_some() {
        return Ok(super::redirect("/"));
    }
    let token = form_token(visit);
    let mut reply = page(visit, &token, "", None, hyper::StatusCode::OK);
    reply.headers.push((
        "set-cookie".into(),
        visit.cookie_header(LOGIN_COOKIE, &token, None),
    ));
    Ok(reply)
}

/// The CSRF token of a form shown before a session exists (the login, an invitation link):
/// the one the browser's `adcab_login` cookie holds, else a new one.
pub(super) fn form_token(visit: &Visit) -> String {
    visit
        .cookie(LOGIN_COOKIE)
        .filter(|t| t.len() == 64)
        .map(str::to_string)
        .unwrap_or_else(|| random_hex(32))
}

/// The token a form sent before a session exists, when it matches the browser's cookie.
pub(super) fn sent_form_token<'v>(visit: &'v Visit, form: &Form) -> Result<&'v str, WebError> {
    let expected = visit.cookie(LOGIN_COOKIE).unwrap_or_default();
    if expected.is_empty() || !session::same_secret(expected, form.get("csrf").unwrap_or("")) {
        return Err(WebError::Csrf);
    }
    Ok(expected)
}

fn page(
    visit: &Visit,
    csrf: &str,
    email: &str,
    error: Option<&str>,
    status: hyper::StatusCode,
) -> Reply {
    let body = html! {
        main.login {
            h1 { "adcab" }
            p.muted { (visit.t("login-lead")) }
            form method="post" action="/login" {
                input type="hidden" name="csrf" value=(csrf);
                label { (visit.t("login-email")) input type="email" name="email" value=(email) autocomplete="username" required autofocus; }
                label { (visit.t("login-password")) input type="password" name="password" autocomplete="current-password" required; }
                @if let Some(error) = error { p.error role="alert" { (error) } }
                button.primary type="submit" { (visit.t("login-submit")) }
            }
        }
    };
    layout::bare(visit, &visit.t("login-title"), body).with_status(status)
}

/// `POST /login`.
pub async fn submit(visit: &Visit<'_>, form: &Form) -> Result<Reply, WebError> {
    let expected = sent_form_token(visit, form)?;
    let email = form.get("email").unwrap_or("").trim().to_string();
    let password = form.get("password").unwrap_or("").to_string();
    let config = &visit.state.services.config.panel;
    let limits = (
        config.login_failures_per_account,
        config.login_failures_per_address,
    );
    let now = unix_now();
    let limiter = &visit.state.logins;
    let Some(attempt) = limiter.reserve(limits, &email, visit.client, now) else {
        return Ok(page(
            visit,
            expected,
            &email,
            Some(&visit.t("login-too-many")),
            hyper::StatusCode::TOO_MANY_REQUESTS,
        ));
    };
    let db = visit.state.services.db.clone();
    let lookup = email.clone();
    let found = db
        .read(move |conn| sessions::login_of(conn, &lookup))
        .await?;
    let stored = found.as_ref().and_then(|(_, hash)| hash.clone());
    let matched = match limiter.verify(password, stored).await {
        Ok(matched) => matched,
        Err(_) => {
            attempt.take_back();
            let mut reply = page(
                visit,
                expected,
                &email,
                Some(&visit.t("login-busy")),
                hyper::StatusCode::SERVICE_UNAVAILABLE,
            );
            reply.headers.push(("retry-after".into(), "2".into()));
            return Ok(reply);
        }
    };
    let user = match (matched, found) {
        (true, Some((id, _))) => {
            attempt.take_back();
            id
        }
        _ => {
            return Ok(page(
                visit,
                expected,
                &email,
                Some(&visit.t("login-wrong")),
                hyper::StatusCode::UNAUTHORIZED,
            ));
        }
    };
    signed_in(visit, user, now as i64).await
}

/// Opens a session for `user` at `now` (unix seconds) and sends the browser home with its
/// cookie (and without the login form's).
pub(super) async fn signed_in(visit: &Visit<'_>, user: i64, now: i64) -> Result<Reply, WebError> {
    let config = visit.state.services.config.panel.clone();
    let opened = visit
        .state
        .services
        .db
        .write(move |tx| session::open(tx, &config, user, now))
        .await?;
    let mut reply = super::redirect("/");
    let max_age = i64::from(visit.state.services.config.panel.session_max_days) * 86_400;
    reply.headers.push((
        "set-cookie".into(),
        visit.cookie_header(COOKIE, &opened.token, Some(max_age)),
    ));
    reply.headers.push((
        "set-cookie".into(),
        visit.cookie_header(LOGIN_COOKIE, "", Some(0)),
    ));
    Ok(reply)
}

/// `POST /logout`: ends this session, or with `everywhere=1` every session of the person.
pub async fn logout(visit: &Visit<'_>, session: &Session, form: &Form) -> Result<Reply, WebError> {
    let everywhere = form.get("everywhere") == Some("1");
    let token_hash = session.token_hash.clone();
    let user = session.person.user.id;
    visit
        .state
        .services
        .db
        .write(move |tx| {
            if everywhere {
                sessions::delete_of_user(tx, user)?;
            } else {
                sessions::delete(tx, &token_hash)?;
            }
            Ok::<_, StoreError>(())
        })
        .await?;
    let mut reply = super::redirect("/login");
    reply.headers.push((
        "set-cookie".into(),
        visit.cookie_header(COOKIE, "", Some(0)),
    ));
    Ok(reply)
}
