//! Owns the web panel's HTTP surface, served at `/` beside the API: which paths are the
//! panel's (its page table is `routes`), the session a request carries (a page without one
//! sends the browser to `/login`), the refusal of state-changing requests sent cross-site or
//! without the session's CSRF token, and a failure as its page (`WebError`, in `error`). Pages
//! are rendered on the server (maud); forms work without JavaScript.

pub mod assets;
mod chart;
mod error;
pub mod export;
mod format;
mod invite;
mod layout;
pub mod login;
mod multipart;
mod pages;
mod routes;
pub mod session;
pub mod week;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use crate::http::{self, AppState, BodyError, Query, Reply};
use crate::i18n::{Arg, Lang};
use crate::primitives::unix_now;
use crate::ratelimit::{Budget, Holder};
use crate::store::sessions;
use routes::{resolve, Handler};
use session::Session;

pub use error::{WebError, Words};
/// A client report as the table its `?format=csv|xlsx` downloads, for the committed samples'
/// generator (`examples/sample_report.rs`).
pub use pages::reports::table::of as report_table;

/// Largest form body a panel request may send.
const MAX_FORM: usize = 64 * 1024;

/// A form body, decoded like a query string.
pub type Form = Query;

/// One request to the panel, as pages see it.
pub struct Visit<'a> {
    pub state: &'a AppState,
    pub query: Query,
    cookies: String,
    /// The client's address: the connection's, or with the connection from a trusted proxy
    /// the one its `X-Forwarded-For` names.
    pub client: IpAddr,
    pub request_id: String,
    /// The session cookie gets `Secure`: `[panel] public_url` is https, or the proxy in front
    /// says the request came over TLS.
    secure: bool,
    /// The language the page is written in: the person's setting, else the browser's.
    pub lang: Lang,
    /// The time zone times are shown in: the person's setting; `None` leaves them to the
    /// browser's (the page's script rewrites UTC times).
    pub zone: Option<chrono_tz::Tz>,
}

impl<'a> Visit<'a> {
    /// The catalogue's message `key` in the page's language.
    pub fn t(&self, key: &str) -> String {
        self.lang.t(key)
    }

    /// How this page writes numbers, money and times.
    pub fn fmt(&self) -> format::Fmt {
        format::Fmt {
            lang: self.lang,
            zone: self.zone,
        }
    }

    /// The catalogue's message `key` with its arguments, in the page's language.
    pub fn ta(&self, key: &str, args: &[(&str, Arg)]) -> String {
        self.lang.ta(key, args)
    }

    /// The same request written in `lang`: a page for someone other than whoever the visit's
    /// language follows, such as the invited person on their link's page.
    pub fn speaking(&self, lang: Lang) -> Visit<'a> {
        Visit {
            state: self.state,
            query: self.query.clone(),
            cookies: self.cookies.clone(),
            client: self.client,
            request_id: self.request_id.clone(),
            secure: self.secure,
            lang,
            zone: self.zone,
        }
    }

    /// The value of a cookie the browser sent.
    pub fn cookie(&self, name: &str) -> Option<&str> {
        session::cookie(&self.cookies, name)
    }

    /// A `Set-Cookie` value for the panel: `HttpOnly`, `SameSite=Lax`, `Secure` behind TLS;
    /// `max_age` of `None` lasts the browser session, `Some(0)` removes it.
    pub fn cookie_header(&self, name: &str, value: &str, max_age: Option<i64>) -> String {
        let mut header = format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax");
        if let Some(age) = max_age {
            header.push_str(&format!("; Max-Age={age}"));
        }
        if self.secure {
            header.push_str("; Secure");
        }
        header
    }
}

/// Answers a request for the panel; `route` gets the pattern it matched, for the log line.
pub async fn answer(
    state: &AppState,
    parts: Parts,
    body: Incoming,
    peer: IpAddr,
    request_id: &str,
    route: &mut String,
) -> Reply {
    let path = parts.uri.path().to_string();
    let mut visit = Visit {
        state,
        query: Query::parse(parts.uri.query().unwrap_or("")).unwrap_or_default(),
        cookies: parts
            .headers
            .get_all(hyper::header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join("; "),
        client: crate::domain::network::client_address(
            peer,
            parts
                .headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok()),
            &state.services.config.panel.trusted_proxies,
        ),
        request_id: request_id.to_string(),
        secure: state
            .services
            .config
            .panel
            .public_url
            .starts_with("https://")
            || header(&parts, "x-forwarded-proto") == Some("https"),
        lang: Lang::from_accept_language(header(&parts, "accept-language").unwrap_or("")),
        zone: None,
    };
    let answered = if let Some(name) = path.strip_prefix(assets::PREFIX) {
        *route = format!("{}{{name}}", assets::PREFIX);
        assets::answer(name).ok_or(WebError::NotFound)
    } else {
        match current(&visit).await {
            Ok(session) => {
                if let Some(user) = session.as_ref().map(|s| &s.person.user) {
                    visit.lang = user.language.unwrap_or(visit.lang);
                    visit.zone = user.time_zone;
                }
                serve(&visit, &parts, body, &path, route, session).await
            }
            Err(e) => Err(e),
        }
    };
    match answered {
        Ok(reply) => reply,
        Err(e) => {
            if let WebError::Store(detail) = &e {
                tracing::error!(request_id = %request_id, detail = %detail, "panel error");
            }
            let sentence = e.sentence(visit.lang);
            let mut page = layout::error(&visit, e.status(), &e.title(visit.lang), &sentence);
            if let WebError::RateLimited { retry_after } = e {
                page.headers
                    .push(("retry-after".into(), retry_after.to_string()));
            }
            page
        }
    }
}

fn header<'a>(parts: &'a Parts, name: &str) -> Option<&'a str> {
    parts.headers.get(name).and_then(|v| v.to_str().ok())
}

async fn serve(
    visit: &Visit<'_>,
    parts: &Parts,
    body: Incoming,
    path: &str,
    route: &mut String,
    session: Option<Session>,
) -> Result<Reply, WebError> {
    let method = &parts.method;
    match (method.clone(), path) {
        (Method::GET, "/login") => {
            *route = "/login".into();
            return login::form(visit, session.as_ref());
        }
        (Method::POST, "/login") => {
            *route = "/login".into();
            same_site(visit, parts)?;
            let form = read_form(visit, body).await?;
            return login::submit(visit, &form).await;
        }
        (_, "/login") => return Err(WebError::MethodNotAllowed),
        _ => {}
    }
    if let Some(token) = invite::token_of(path) {
        *route = "/invite/{token}".into();
        return match method.clone() {
            Method::GET => invite::form(visit, token).await,
            Method::POST => {
                same_site(visit, parts)?;
                let form = read_form(visit, body).await?;
                invite::submit(visit, token, &form).await
            }
            _ => Err(WebError::MethodNotAllowed),
        };
    }
    if let Some(token) = pages::reports::shared::token_of(path) {
        *route = "/r/{token}".into();
        return Ok(pages::reports::shared::answer(visit, method, token).await);
    }
    let Some((def, args)) = resolve(method, path)? else {
        return Err(WebError::NotFound);
    };
    *route = def.pattern.replace("{}", "{id}");
    let Some(session) = session else {
        return Ok(redirect("/login"));
    };
    match def.handler {
        Handler::View(page) => page(visit, &session, &args).await,
        Handler::Upload(upload) => {
            same_site(visit, parts)?;
            if !session::same_secret(&session.csrf, header(parts, "x-csrf-token").unwrap_or("")) {
                return Err(WebError::Csrf);
            }
            charge_write(visit, &session)?;
            upload(visit, &session, body, &args).await
        }
        Handler::Multipart(limit, act) => {
            same_site(visit, parts)?;
            let Some(sent) = multipart::read(visit, parts, body, limit).await? else {
                return Err(WebError::BadRequest(
                    visit.ta("error-form-too-large", &[("kb", (limit / 1024).into())]),
                ));
            };
            if !session::same_secret(&session.csrf, sent.form.get("csrf").unwrap_or("")) {
                return Err(WebError::Csrf);
            }
            charge_write(visit, &session)?;
            act(visit, &session, &sent, &args).await
        }
        Handler::Act(act) => {
            same_site(visit, parts)?;
            let form = read_form(visit, body).await?;
            if !session::same_secret(&session.csrf, form.get("csrf").unwrap_or("")) {
                return Err(WebError::Csrf);
            }
            if def.pattern != "/logout" {
                charge_write(visit, &session)?;
            }
            act(visit, &session, &form, &args).await
        }
    }
}

/// Counts a change a person sends from the panel against their write budget, the size of an
/// API key's (`[limits] writes_per_minute`): the panel queues no more work than the API would.
pub fn charge_write(visit: &Visit<'_>, session: &Session) -> Result<(), WebError> {
    let now = unix_now();
    let who = Holder::Person(session.person.user.id);
    let info = visit.state.limiter.check(who, Budget::Write, now);
    if info.allowed {
        Ok(())
    } else {
        Err(WebError::RateLimited {
            retry_after: info.retry_after(now),
        })
    }
}

/// The request's live session, if its cookie names one. An expired session is removed, and a
/// live one marked seen about once a minute.
async fn current(visit: &Visit<'_>) -> Result<Option<Session>, WebError> {
    let Some(token) = visit.cookie(session::COOKIE).map(str::to_string) else {
        return Ok(None);
    };
    let config = visit.state.services.config.panel.clone();
    let now = unix_now() as i64;
    let db = &visit.state.services.db;
    let found = db
        .read(move |conn| session::find(conn, &config, &token, now))
        .await?;
    match found {
        session::Found::Unknown => Ok(None),
        session::Found::Expired(hash) => {
            db.write(move |tx| sessions::delete(tx, &hash)).await?;
            Ok(None)
        }
        session::Found::Live { session, stale } => {
            if stale {
                let hash = session.token_hash.clone();
                db.write(move |tx| sessions::touch(tx, &hash, now)).await?;
            }
            Ok(Some(session))
        }
    }
}

/// Refuses a state-changing request a browser says came from another site: `Sec-Fetch-Site`
/// other than `same-origin` (or `none`, typed by the person), or an `Origin` other than the
/// panel's own (`[panel] public_url`, else the `Host` the request was sent to).
fn same_site(visit: &Visit<'_>, parts: &Parts) -> Result<(), WebError> {
    if let Some(site) = header(parts, "sec-fetch-site") {
        if !matches!(site, "same-origin" | "none") {
            return Err(WebError::CrossSite);
        }
    }
    if let Some(origin) = header(parts, "origin") {
        let public = &visit.state.services.config.panel.public_url;
        let ok = if public.is_empty() {
            let host = header(parts, "host").unwrap_or("");
            origin
                .split_once("://")
                .is_some_and(|(_, authority)| !host.is_empty() && authority == host)
        } else {
            origin == public.trim_end_matches('/')
        };
        if !ok {
            return Err(WebError::CrossSite);
        }
    }
    Ok(())
}

async fn read_form(visit: &Visit<'_>, body: Incoming) -> Result<Form, WebError> {
    let deadline = Duration::from_millis(visit.state.services.config.server.body_timeout_ms);
    let bytes: Bytes = http::read_body(body, MAX_FORM, deadline)
        .await
        .map_err(|e| {
            WebError::BadRequest(match e {
                BodyError::TooLarge => {
                    visit.ta("error-form-too-large", &[("kb", (MAX_FORM / 1024).into())])
                }
                BodyError::Timeout => visit.t("error-form-late"),
                BodyError::Unreadable(_) => visit.t("error-form-unreadable"),
            })
        })?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| WebError::BadRequest(visit.t("error-form-not-utf8")))?;
    Query::parse(text).map_err(|_| WebError::BadRequest(visit.t("error-form-encoding")))
}

/// `303 See Other` to `location`.
pub fn redirect(location: &str) -> Reply {
    Reply {
        status: StatusCode::SEE_OTHER,
        body: Bytes::new(),
        headers: vec![("location".into(), location.into())],
    }
}
