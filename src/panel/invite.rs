//! Owns `/invite/{token}`, the page of a one-time link (an invitation or a reset link), served
//! without a session like the login: who the link is for and a new password twice; on success
//! the link is spent, the person signed in and sent to `/`. A link unknown, spent or expired
//! gets one page that does not say which. Every attempt counts against the login's limits per
//! link and per client address (taken back when the link was good), and the form's CSRF token
//! is the login's cookie. The page speaks the invited person's language: their own setting,
//! else the one the inviter chose for the invitation, else the browser's.

use hyper::StatusCode;
use maud::html;

use super::login::{form_token, sent_form_token, LOGIN_COOKIE};
use super::pages::{ops_error, panel_op};
use super::{layout, Form, Visit, WebError};
use crate::auth::logins::Attempt;
use crate::domain::password::{self, PasswordError};
use crate::http::Reply;
use crate::i18n::{Arg, Lang};
use crate::ops::{self, OpsError};
use crate::primitives::{sha256_hex, unix_now};
use crate::store::invites::{Kind, Link};
use crate::store::users::User;

/// The path's prefix; the token follows it.
pub const PREFIX: &str = "/invite/";

/// The token of an `/invite/{token}` path: 64 hex digits, or anything else that reads as one
/// segment (it is then simply unknown).
pub fn token_of(path: &str) -> Option<&str> {
    path.strip_prefix(PREFIX)
        .filter(|t| !t.is_empty() && !t.contains('/'))
}

/// A refusal beside one of the form's fields.
struct Refused {
    field: &'static str,
    message: String,
}

/// Counts this request as an attempt on `token` from the client, as a login would be; `None`
/// when the link's or the address's limit is reached.
fn reserve<'v>(visit: &'v Visit<'_>, token: &str) -> Option<Attempt<'v>> {
    let config = &visit.state.services.config.panel;
    let limits = (
        config.login_failures_per_account,
        config.login_failures_per_address,
    );
    let key = format!("link:{}", &sha256_hex(token)[..16]);
    visit
        .state
        .logins
        .reserve(limits, &key, visit.client, unix_now())
}

/// The live link `token` names and its person, counted against the limits until it is found
/// good; otherwise the page to answer with (limited, or the one page for every bad link).
async fn open(visit: &Visit<'_>, token: &str) -> Result<Result<(Link, User), Reply>, WebError> {
    let Some(attempt) = reserve(visit, token) else {
        return Ok(Err(limited(visit)));
    };
    let lookup = token.to_string();
    let found = visit
        .state
        .services
        .db
        .read(move |conn| ops::people::open_link(conn, &lookup))
        .await?;
    let Some(found) = found else {
        return Ok(Err(invalid(visit)));
    };
    // The link is good: what follows is the person's typing, not a guess.
    attempt.take_back();
    Ok(Ok(found))
}

/// The language the page speaks to the link's person: theirs, else the invitation's, else
/// the visit's (the browser's).
fn language(visit: &Visit, link: &Link, user: &User) -> Lang {
    user.language.or(link.language).unwrap_or(visit.lang)
}

/// `GET /invite/{token}`.
pub async fn form(visit: &Visit<'_>, token: &str) -> Result<Reply, WebError> {
    let (link, user) = match open(visit, token).await? {
        Ok(found) => found,
        Err(page) => return Ok(page),
    };
    let visit = &visit.speaking(language(visit, &link, &user));
    let csrf = form_token(visit);
    let mut reply = page(visit, &csrf, token, link.kind, &user.email, None);
    reply.headers.push((
        "set-cookie".into(),
        visit.cookie_header(LOGIN_COOKIE, &csrf, None),
    ));
    Ok(reply)
}

/// `POST /invite/{token}`: `password` and `password_again`.
pub async fn submit(visit: &Visit<'_>, token: &str, form: &Form) -> Result<Reply, WebError> {
    let expected = sent_form_token(visit, form)?;
    let (link, user) = match open(visit, token).await? {
        Ok(found) => found,
        Err(page) => return Ok(page),
    };
    let visit = &visit.speaking(language(visit, &link, &user));
    let password = form.get("password").unwrap_or("").to_string();
    let refused = if let Err(why) = password::check(&password) {
        Some(Refused {
            field: "password",
            message: password_refusal(visit, why),
        })
    } else if form.get("password_again") != Some(password.as_str()) {
        Some(Refused {
            field: "password_again",
            message: visit.t("people-password-mismatch"),
        })
    } else {
        None
    };
    if let Some(refused) = refused {
        return Ok(page(
            visit,
            expected,
            token,
            link.kind,
            &user.email,
            Some(&refused),
        ));
    }
    let spend = token.to_string();
    let user_id = match panel_op(visit, move |s| ops::people::redeem(s, &spend, &password)).await {
        Ok(id) => id,
        Err(OpsError::Invalid(e)) if e.param == "token" => return Ok(invalid(visit)),
        Err(e) => return Err(ops_error(e)),
    };
    super::login::signed_in(visit, user_id, unix_now() as i64).await
}

/// A password the rules refuse, as the person reads it.
pub fn password_refusal(visit: &Visit, why: PasswordError) -> String {
    match why {
        PasswordError::TooShort => visit.ta(
            "people-password-short",
            &[("min", Arg::from(password::MIN_LEN))],
        ),
        PasswordError::TooLong => visit.ta(
            "people-password-long",
            &[("max", Arg::from(password::MAX_LEN))],
        ),
    }
}

fn page(
    visit: &Visit,
    csrf: &str,
    token: &str,
    kind: Kind,
    email: &str,
    refused: Option<&Refused>,
) -> Reply {
    let title = visit.t(match kind {
        Kind::Invite => "people-link-invite-title",
        Kind::Reset => "people-link-reset-title",
    });
    let beside = |field: &str| {
        refused
            .filter(|r| r.field == field)
            .map(|r| html! { p.error role="alert" data-param=(r.field) { (r.message) } })
    };
    let body = html! {
        main.login {
            h1 { (title) }
            p { (visit.ta("people-link-for", &[("email", Arg::from(email))])) }
            p.muted { (visit.ta("people-link-lead", &[("min", Arg::from(password::MIN_LEN))])) }
            form method="post" action={ (PREFIX) (token) } {
                input type="hidden" name="csrf" value=(csrf);
                input type="email" name="email" value=(email) autocomplete="username" hidden;
                label { (visit.t("people-password-new")) input type="password" name="password" autocomplete="new-password" minlength=(password::MIN_LEN) required autofocus; }
                @if let Some(e) = beside("password") { (e) }
                label { (visit.t("people-password-again")) input type="password" name="password_again" autocomplete="new-password" minlength=(password::MIN_LEN) required; }
                @if let Some(e) = beside("password_again") { (e) }
                button.primary type="submit" { (visit.t("people-link-submit")) }
            }
        }
    };
    let status = if refused.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    layout::bare(visit, &title, body).with_status(status)
}

/// The one page of a link unknown, spent or expired.
fn invalid(visit: &Visit) -> Reply {
    let title = visit.t("people-link-invalid-title");
    let body = html! {
        main.login {
            h1 { (title) }
            p { (visit.t("people-link-invalid")) }
        }
    };
    layout::bare(visit, &title, body).with_status(StatusCode::NOT_FOUND)
}

fn limited(visit: &Visit) -> Reply {
    let title = visit.t("people-link-invalid-title");
    let body = html! {
        main.login {
            h1 { (title) }
            p.error role="alert" { (visit.t("people-link-limited")) }
        }
    };
    let mut reply = layout::bare(visit, &title, body).with_status(StatusCode::TOO_MANY_REQUESTS);
    reply.headers.push((
        "retry-after".into(),
        crate::auth::logins::WINDOW.to_string(),
    ));
    reply
}
