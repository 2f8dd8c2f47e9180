//! Owns `/r/{token}`, a client report's share link, served without a session: the report
//! read-only over the span the link fixes (`?format=csv|xlsx|pdf` for its download), on a bare
//! page with no navigation, no link, no form and no script, marked `noindex` in its head and
//! in `X-Robots-Tag`, the agency's logo inside the page itself. A token unknown, revoked or
//! expired gets one `404` that does not say which; every request counts against the login's
//! limits per link and per client address (taken back when the link was good), so tokens
//! cannot be guessed at speed. Anything but `GET` is refused.

use hyper::{Method, StatusCode};
use maud::{html, Markup, DOCTYPE};

use super::super::super::export::Format;
use super::super::super::{assets, Visit, WebError};
use super::{table, view};
use crate::clock;
use crate::http::Reply;
use crate::ops::reports::{self, links};
use crate::ops::OpsError;
use crate::primitives::{base64, sha256_hex, unix_now};
use crate::store::reports as report_rows;

/// The path's prefix; the token follows it.
pub const PREFIX: &str = "/r/";

/// The token of an `/r/{token}` path (one non-empty segment).
pub fn token_of(path: &str) -> Option<&str> {
    path.strip_prefix(PREFIX)
        .filter(|t| !t.is_empty() && !t.contains('/'))
}

/// Answers a request for a share link; every failure is a bare page without links.
pub async fn answer(visit: &Visit<'_>, method: &Method, token: &str) -> Reply {
    if method != Method::GET && method != Method::HEAD {
        let mut reply = bare(
            visit,
            StatusCode::METHOD_NOT_ALLOWED,
            &visit.t("reports-shared-gone"),
        );
        reply.headers.push(("allow".into(), "GET".into()));
        return reply;
    }
    match serve(visit, token).await {
        Ok(reply) => reply,
        Err(Failure::Gone) => bare(
            visit,
            StatusCode::NOT_FOUND,
            &visit.t("reports-shared-gone"),
        ),
        Err(Failure::Limited) => {
            let mut reply = bare(
                visit,
                StatusCode::TOO_MANY_REQUESTS,
                &visit.t("reports-shared-limited"),
            );
            reply.headers.push((
                "retry-after".into(),
                crate::auth::logins::WINDOW.to_string(),
            ));
            reply
        }
        Err(Failure::Bad(sentence)) => bare(visit, StatusCode::BAD_REQUEST, &sentence),
        Err(Failure::Internal(detail)) => {
            tracing::error!(request_id = %visit.request_id, detail = %detail, "share link");
            bare(
                visit,
                StatusCode::INTERNAL_SERVER_ERROR,
                &visit.t("reports-shared-failed"),
            )
        }
    }
}

enum Failure {
    Gone,
    Limited,
    Bad(String),
    Internal(String),
}

impl From<WebError> for Failure {
    fn from(e: WebError) -> Self {
        match e {
            WebError::NotFound | WebError::Denied(_) | WebError::Forbidden(_) => Failure::Gone,
            WebError::BadRequest(s) | WebError::Conflict(s) => Failure::Bad(s),
            WebError::Invalid(_) | WebError::Refused(_) | WebError::Csrf | WebError::CrossSite => {
                Failure::Bad(String::new())
            }
            WebError::MethodNotAllowed => Failure::Gone,
            WebError::RateLimited { .. } => Failure::Limited,
            WebError::Store(e) => Failure::Internal(e.to_string()),
        }
    }
}

impl From<OpsError> for Failure {
    fn from(e: OpsError) -> Self {
        match e {
            OpsError::Store(e) => Failure::Internal(e.to_string()),
            OpsError::Internal(detail) => Failure::Internal(detail),
            // A link's group gone, or any other refusal: the link shows nothing.
            OpsError::NotFound
            | OpsError::RuleNotFound
            | OpsError::NotYours(_)
            | OpsError::Invalid(_)
            | OpsError::Refused(_)
            | OpsError::Media(_)
            | OpsError::BudgetUnchanged
            | OpsError::UnknownAdIds(_)
            | OpsError::QueueFull { .. }
            | OpsError::Funds(_)
            | OpsError::Platform(_) => Failure::Gone,
        }
    }
}

async fn serve(visit: &Visit<'_>, token: &str) -> Result<Reply, Failure> {
    let as_pdf = visit.query.text("format") == Some("pdf");
    let download = if as_pdf {
        None
    } else {
        Format::requested(visit)?
    };
    let config = &visit.state.services.config.panel;
    let limits = (
        config.login_failures_per_account,
        config.login_failures_per_address,
    );
    let key = format!("report:{}", &sha256_hex(token)[..16]);
    let attempt = visit
        .state
        .logins
        .reserve(limits, &key, visit.client, unix_now())
        .ok_or(Failure::Limited)?;
    let token = token.to_string();
    let found = visit
        .state
        .services
        .db
        .read(move |conn| {
            let now = clock::now(conn)?;
            let Some(opened) = links::open(conn, &token, now)? else {
                return Ok::<_, OpsError>(None);
            };
            let report = reports::build(conn, &opened.reader, opened.span, opened.group)?;
            let logo = if report.agency.has_logo {
                report_rows::logo(conn, report.agency.owner_id)?
            } else {
                None
            };
            Ok(Some((report, logo, opened.link.language)))
        })
        .await?;
    let Some((report, logo, language)) = found else {
        return Err(Failure::Gone);
    };
    let speaking = language.map(|lang| visit.speaking(lang));
    let visit = speaking.as_ref().unwrap_or(visit);
    // The link is good: what follows is the client reading, not a guess.
    attempt.take_back();
    if as_pdf {
        return Ok(super::pdf::reply(report, visit.lang, logo.map(|(_, bytes)| bytes)).await?);
    }
    if let Some(format) = download {
        return Ok(table::of(&report).reply(format)?);
    }
    let logo = logo.map(|(kind, bytes)| format!("data:{kind};base64,{}", base64(&bytes)));
    let title = format!("{} · {}", visit.t("reports-title"), report.cabinet_name);
    let body = html! { main.shared-report { (view::body(visit, &report, logo.as_deref())) } };
    Ok(page(visit, StatusCode::OK, &title, body))
}

/// The bare page of a share link: the stylesheet, nothing else the page could lead to.
fn page(visit: &Visit, status: StatusCode, title: &str, body: Markup) -> Reply {
    let markup = html! {
        (DOCTYPE)
        html lang=(visit.lang.code()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="robots" content="noindex, nofollow";
                title { (title) }
                link rel="stylesheet" href=(assets::url(&assets::CSS));
            }
            body.bare.shared { (body) }
        }
    };
    let mut reply = Reply::html(markup.into_string()).with_status(status);
    reply.headers.retain(|(k, _)| k != "referrer-policy");
    reply.headers.extend([
        ("x-robots-tag".into(), "noindex, nofollow".into()),
        ("referrer-policy".into(), "no-referrer".into()),
    ]);
    reply
}

fn bare(visit: &Visit, status: StatusCode, sentence: &str) -> Reply {
    let body = html! {
        main.login {
            h1 { (status.as_u16()) }
            p { (sentence) }
        }
    };
    page(visit, status, &visit.t("reports-title"), body)
}
