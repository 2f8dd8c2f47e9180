//! Owns the web panel's HTTP surface, served at `/` beside the API: which paths are the
//! panel's, its page table, the session a request carries (a page without one sends the
//! browser to `/login`), and the refusal of state-changing requests sent cross-site or without
//! the session's CSRF token. Pages are rendered on the server (maud); forms work without
//! JavaScript.

pub mod assets;
mod chart;
mod format;
mod layout;
pub mod login;
mod pages;
pub mod session;

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use crate::auth::AuthError;
use crate::http::{self, AppState, BodyError, Query, Reply};
use crate::primitives::unix_now;
use crate::ratelimit::{Budget, Holder};
use crate::store::{sessions, StoreError};
use session::Session;

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
}

impl Visit<'_> {
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

/// Why a panel request failed; each is a page of its own.
#[derive(Debug)]
pub enum WebError {
    NotFound,
    /// The person may not see or do this; the sentence says why.
    Forbidden(String),
    /// A state-changing request without the session's CSRF token.
    Csrf,
    /// A state-changing request sent from another site.
    CrossSite,
    BadRequest(String),
    /// The change cannot be made in the state things are in; the sentence says why.
    Conflict(String),
    MethodNotAllowed,
    /// The person's changes passed the write budget a key has; `retry_after` seconds.
    RateLimited {
        retry_after: u64,
    },
    Store(StoreError),
}

impl From<StoreError> for WebError {
    fn from(e: StoreError) -> Self {
        WebError::Store(e)
    }
}

/// A person's change refused by the access rules: the page says why, as the API would.
impl From<AuthError> for WebError {
    fn from(e: AuthError) -> Self {
        WebError::Forbidden(e.sentence())
    }
}

impl WebError {
    fn status(&self) -> StatusCode {
        match self {
            WebError::NotFound => StatusCode::NOT_FOUND,
            WebError::Forbidden(_) | WebError::Csrf | WebError::CrossSite => StatusCode::FORBIDDEN,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::Conflict(_) => StatusCode::CONFLICT,
            WebError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            WebError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            WebError::Store(StoreError::Busy | StoreError::Full) => StatusCode::SERVICE_UNAVAILABLE,
            WebError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn sentence(&self) -> String {
        match self {
            WebError::NotFound => "There is no such page, or it is not yours to see.".into(),
            WebError::Forbidden(why) => why.clone(),
            WebError::Csrf => {
                "This form has expired. Go back, reload the page and send it again.".into()
            }
            WebError::CrossSite => "A change sent from another site was refused.".into(),
            WebError::BadRequest(why) | WebError::Conflict(why) => why.clone(),
            WebError::MethodNotAllowed => "This page does not take that kind of request.".into(),
            WebError::RateLimited { retry_after } => format!(
                "You are making changes faster than adcab takes them. Wait {retry_after} seconds and send it again."
            ),
            WebError::Store(StoreError::Busy) => {
                "adcab is busy right now. Try again in a moment.".into()
            }
            WebError::Store(StoreError::Full) => {
                "adcab cannot store changes right now. Try again later; the operator was told."
                    .into()
            }
            WebError::Store(_) => {
                "Something went wrong on our side. It was logged; try again.".into()
            }
        }
    }
}

type Page<'a> = Pin<Box<dyn Future<Output = Result<Reply, WebError>> + Send + 'a>>;

/// How a page is answered; `args` are the path's `{...}` segments.
#[derive(Clone, Copy)]
enum Handler {
    /// A page for a logged-in person.
    View(for<'a> fn(&'a Visit<'a>, &'a Session, &'a [&'a str]) -> Page<'a>),
    /// A form sent by a logged-in person, its CSRF token checked.
    Act(for<'a> fn(&'a Visit<'a>, &'a Session, &'a Form, &'a [&'a str]) -> Page<'a>),
}

/// One line of the page table.
struct Def {
    method: Method,
    /// Segments; `{}` stands for one non-empty segment.
    pattern: &'static str,
    handler: Handler,
}

macro_rules! view {
    ($f:path) => {{
        fn handler<'a>(v: &'a Visit<'a>, s: &'a Session, args: &'a [&'a str]) -> Page<'a> {
            Box::pin($f(v, s, args))
        }
        Handler::View(handler)
    }};
}

macro_rules! act {
    ($f:path) => {{
        fn handler<'a>(
            v: &'a Visit<'a>,
            s: &'a Session,
            form: &'a Form,
            args: &'a [&'a str],
        ) -> Page<'a> {
            Box::pin($f(v, s, form, args))
        }
        Handler::Act(handler)
    }};
}

/// Every page and form of the panel but the login, which has no session yet.
fn table() -> &'static [Def] {
    static TABLE: std::sync::OnceLock<Vec<Def>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        vec![
            Def {
                method: Method::GET,
                pattern: "/cabinets",
                handler: view!(pages::cabinets::list),
            },
            Def {
                method: Method::GET,
                pattern: "/campaigns",
                handler: view!(pages::campaigns::list),
            },
            Def {
                method: Method::GET,
                pattern: "/campaigns/{}/{}",
                handler: view!(pages::campaign::show),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/edit",
                handler: act!(pages::campaign::edit),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/auto-cpm",
                handler: act!(pages::campaign::set_auto_cpm),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/bulk",
                handler: act!(pages::campaigns::bulk),
            },
            Def {
                method: Method::GET,
                pattern: "/rules",
                handler: view!(pages::rules::list),
            },
            Def {
                method: Method::POST,
                pattern: "/rules",
                handler: act!(pages::rules::create),
            },
            Def {
                method: Method::POST,
                pattern: "/rules/{}/enable",
                handler: act!(pages::rules::enable),
            },
            Def {
                method: Method::POST,
                pattern: "/rules/{}/disable",
                handler: act!(pages::rules::disable),
            },
            Def {
                method: Method::POST,
                pattern: "/rules/{}/delete",
                handler: act!(pages::rules::delete),
            },
            Def {
                method: Method::GET,
                pattern: "/rules/{}/log",
                handler: view!(pages::rules::log),
            },
            Def {
                method: Method::GET,
                pattern: "/rules/{}/preview",
                handler: view!(pages::rules::preview),
            },
            Def {
                method: Method::GET,
                pattern: "/tasks",
                handler: view!(pages::tasks::list),
            },
            Def {
                method: Method::POST,
                pattern: "/tasks/{}/cancel",
                handler: act!(pages::tasks::cancel),
            },
            Def {
                method: Method::POST,
                pattern: "/tasks/{}/resume",
                handler: act!(pages::tasks::resume),
            },
            Def {
                method: Method::GET,
                pattern: "/keys",
                handler: view!(pages::keys::list),
            },
            Def {
                method: Method::POST,
                pattern: "/keys",
                handler: act!(pages::keys::create),
            },
            Def {
                method: Method::GET,
                pattern: "/keys/{}",
                handler: view!(pages::keys::show),
            },
            Def {
                method: Method::POST,
                pattern: "/keys/{}/webhook",
                handler: act!(pages::keys::webhook),
            },
            Def {
                method: Method::POST,
                pattern: "/keys/{}/test",
                handler: act!(pages::keys::test),
            },
            Def {
                method: Method::POST,
                pattern: "/keys/{}/secret",
                handler: act!(pages::keys::secret),
            },
            Def {
                method: Method::POST,
                pattern: "/keys/{}/revoke",
                handler: act!(pages::keys::revoke),
            },
            Def {
                method: Method::POST,
                pattern: "/tracker/rotate",
                handler: act!(pages::keys::tracker),
            },
            Def {
                method: Method::GET,
                pattern: "/team",
                handler: view!(pages::team::show),
            },
            Def {
                method: Method::POST,
                pattern: "/team/invite",
                handler: act!(pages::team::invite),
            },
            Def {
                method: Method::POST,
                pattern: "/team/{}/access",
                handler: act!(pages::team::access),
            },
            Def {
                method: Method::POST,
                pattern: "/team/{}/remove",
                handler: act!(pages::team::remove),
            },
            Def {
                method: Method::GET,
                pattern: "/sim",
                handler: view!(pages::sim::show),
            },
            Def {
                method: Method::POST,
                pattern: "/sim/advance",
                handler: act!(pages::sim::advance),
            },
            Def {
                method: Method::POST,
                pattern: "/sim/review/{}/{}",
                handler: act!(pages::sim::review),
            },
            Def {
                method: Method::POST,
                pattern: "/logout",
                handler: act!(logout),
            },
        ]
    })
}

async fn logout<'a>(
    v: &'a Visit<'a>,
    s: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    login::logout(v, s, form).await
}

/// The line of the table matching a method and path, with the path's `{}` values; `Err`
/// when the path is known under other methods only.
fn resolve<'p>(
    method: &Method,
    path: &'p str,
) -> Result<Option<(&'static Def, Vec<&'p str>)>, WebError> {
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let mut known = false;
    for def in table() {
        let parts: Vec<&str> = def.pattern.split('/').collect();
        if parts.len() != segments.len() {
            continue;
        }
        let mut args = Vec::new();
        let fits = parts.iter().zip(&segments).all(|(p, s)| {
            if *p == "{}" {
                args.push(*s);
                !s.is_empty()
            } else {
                p == s
            }
        });
        if fits {
            if def.method == *method {
                return Ok(Some((def, args)));
            }
            known = true;
        }
    }
    if known {
        Err(WebError::MethodNotAllowed)
    } else {
        Ok(None)
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
    let visit = Visit {
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
    };
    match serve(&visit, &parts, body, &path, route).await {
        Ok(reply) => reply,
        Err(e) => {
            if let WebError::Store(detail) = &e {
                tracing::error!(request_id = %request_id, detail = %detail, "panel error");
            }
            let mut page = layout::error(&visit, e.status(), &e.sentence());
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
) -> Result<Reply, WebError> {
    let method = &parts.method;
    if let Some(name) = path.strip_prefix(assets::PREFIX) {
        *route = format!("{}{{name}}", assets::PREFIX);
        return assets::answer(name).ok_or(WebError::NotFound);
    }
    let session = current(visit).await?;
    match (method.clone(), path) {
        (Method::GET, "/") => {
            *route = "/".into();
            return Ok(redirect(if session.is_some() {
                "/campaigns"
            } else {
                "/login"
            }));
        }
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
    let Some((def, args)) = resolve(method, path)? else {
        return Err(WebError::NotFound);
    };
    *route = def.pattern.replace("{}", "{id}");
    let Some(session) = session else {
        return Ok(redirect("/login"));
    };
    match def.handler {
        Handler::View(page) => page(visit, &session, &args).await,
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
                BodyError::TooLarge => format!("The form is larger than {} KB.", MAX_FORM / 1024),
                BodyError::Timeout => "The form did not arrive in time.".into(),
                BodyError::Unreadable(why) => format!("The form could not be read: {why}."),
            })
        })?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| WebError::BadRequest("The form is not UTF-8 text.".into()))?;
    Query::parse(text).map_err(|_| WebError::BadRequest("The form is badly encoded.".into()))
}

/// `303 See Other` to `location`.
pub fn redirect(location: &str) -> Reply {
    Reply {
        status: StatusCode::SEE_OTHER,
        body: Bytes::new(),
        headers: vec![("location".into(), location.into())],
    }
}
