//! Owns one request's life: request id, route, authentication and rate limit from the head,
//! then the body (bounded in size and time), dispatch, envelope and headers; and what every
//! handler shares (`AppState`, `Ctx`, bounded platform calls). Connections are in `conn`; the
//! route table is in `router`; each resource's handlers are in their own file.

pub mod account;
pub mod bulk;
pub mod campaign_create;
pub mod campaign_edit;
pub mod campaign_object;
pub mod campaigns;
pub mod conn;
pub mod conversions;
pub mod error;
pub mod groups;
pub mod health;
pub mod idempotency;
pub mod input;
pub mod media;
pub mod metrics;
pub mod postback;
pub mod request;
pub mod response;
pub mod router;
pub mod rules;
pub mod stats;
pub mod targeting;
pub mod tasks;
pub mod write;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Request, Response};

use crate::auth::{self, Principal};
use crate::db::Gate;
use crate::jobs::ingest::Ingest;
use crate::primitives::unix_now;
use crate::ratelimit::{Budget, Holder, RateInfo, RateLimiter};
use crate::store::StoreError;
use crate::Services;
use error::ApiError;
use request::Query;
use response::Reply;
use router::{Endpoint, Unkeyed};

/// The OpenAPI 3.1 document of the HTTP API, served at `/api/v1/openapi.json`.
pub const OPENAPI: &str = include_str!("openapi.json");

/// `last_used_at` of a key is written at most this often.
const TOUCH_EVERY: Duration = Duration::from_secs(60);
/// Platform calls made for requests at one time, and how many more may wait for a place.
const PLATFORM_CALLS: usize = 16;
const PLATFORM_QUEUE: usize = 256;
/// Operations the web panel runs on blocking threads at one time (each reads and writes the
/// database itself, and some call out), how many more may wait, and for how long.
const PANEL_OPS: usize = 16;
const PANEL_QUEUE: usize = 256;
const PANEL_WAIT: Duration = Duration::from_secs(10);

/// What every request handler can reach.
pub struct AppState {
    pub services: Services,
    pub limiter: RateLimiter,
    /// Wakes the task worker when a task is queued.
    pub wake: Arc<tokio::sync::Notify>,
    /// Records inbound conversions, grouping concurrent requests into shared transactions.
    pub ingest: Ingest,
    /// Admission to platform calls, so a slow platform cannot pile up blocked threads.
    platform_gate: Gate,
    /// Admission to the web panel's blocking operations, so a burst of clicks cannot take
    /// the threads that database work needs.
    panel_gate: Gate,
    /// Failed web panel logins, per account and per client address.
    pub logins: crate::panel::login::LoginLimiter,
    touched: Mutex<HashMap<i64, Instant>>,
}

/// One authenticated request, as handlers see it.
pub struct Ctx {
    pub principal: Principal,
    pub query: Query,
    /// The body of a route that reads it whole (every route but the media upload).
    pub body: Bytes,
    /// The body of the media upload, still to be received (the handler streams it to disk).
    pub upload: Mutex<Option<Incoming>>,
    /// The `Idempotency-Key` header, as sent (UTF-8).
    pub idempotency_key: Option<String>,
    pub content_type: Option<String>,
    pub request_id: String,
    /// The rate-limit figures of a handler that charges its own budget (conversions).
    pub rate: Mutex<Option<RateInfo>>,
}

impl AppState {
    pub fn new(services: Services, wake: Arc<tokio::sync::Notify>) -> AppState {
        let limiter = RateLimiter::new(&services.config.limits);
        let ingest = Ingest::start(services.db.clone(), services.metrics.clone());
        AppState {
            services,
            limiter,
            wake,
            ingest,
            platform_gate: Gate::new(PLATFORM_CALLS, PLATFORM_QUEUE),
            panel_gate: Gate::new(PANEL_OPS, PANEL_QUEUE),
            logins: Default::default(),
            touched: Mutex::new(HashMap::new()),
        }
    }

    /// Runs `call` (blocking: it talks to the platform) off the runtime and waits at most
    /// `wait` for it, its wait for a place included; `None` when the call ran out of time,
    /// `Busy` when no place freed up in time. The call keeps its place until it ends,
    /// so at most [`PLATFORM_CALLS`] run at once, however slow the platform is. A panic in
    /// the call carries on in the request, as if it had run there.
    pub async fn platform_call<T, F>(&self, wait: Duration, call: F) -> Result<Option<T>, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Services) -> T + Send + 'static,
    {
        let deadline = tokio::time::Instant::now() + wait;
        let permit = self.platform_gate.enter(wait).await?;
        let services = self.services.clone();
        let running = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            call(&services)
        });
        match tokio::time::timeout_at(deadline, running).await {
            Ok(Ok(value)) => Ok(Some(value)),
            Ok(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Ok(Err(e)) => Err(ApiError::internal(format!("platform call ended: {e}"))),
            Err(_) => Ok(None),
        }
    }
}

impl AppState {
    /// Runs `op` (blocking: it reads and writes the database itself) off the runtime, at most
    /// [`PANEL_OPS`] at once; `Busy` when no place frees up in time. A panic in `op` carries
    /// on in the request.
    pub async fn panel_work<T, F>(&self, op: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Services) -> T + Send + 'static,
    {
        let permit = self.panel_gate.enter(PANEL_WAIT).await?;
        let services = self.services.clone();
        Ok(crate::db::in_request(move || {
            let _permit = permit;
            op(&services)
        })
        .await)
    }
}

/// Which listener a request came in on: the main one, or `[metrics] listen`'s own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    Main,
    Metrics,
}

/// What the request's life found out that its log line and metrics tell: the route pattern
/// (never the raw path, which may carry ids and tokens), the key's id, the rate limit.
struct Seen {
    route: String,
    budget: Option<Budget>,
    key_id: Option<i64>,
    rate: Option<RateInfo>,
}

/// Answers one request. The request runs in a task of its own: once it started it runs to
/// its end and records its outcome even when the client hangs up (hyper then drops this
/// future, never the task), and a panic inside it becomes `500 INTERNAL_ERROR`, logged with
/// the request id, while the service goes on serving. Every request ends with one log line
/// and its metrics.
async fn handle(
    state: Arc<AppState>,
    req: Request<Incoming>,
    surface: Surface,
    peer: IpAddr,
) -> Response<Full<Bytes>> {
    let started = Instant::now();
    let method = req.method().clone();
    let request_id = conn::request_id();
    let id = request_id.clone();
    let inner = state.clone();
    let task = tokio::spawn(async move {
        let mut seen = Seen {
            route: "unmatched".into(),
            budget: None,
            key_id: None,
            rate: None,
        };
        let result = process(&inner, req, &id, surface, peer, &mut seen).await;
        (result, Some(seen))
    });
    let (result, seen) = match task.await {
        Ok(done) => done,
        Err(e) => {
            let why = match e.try_into_panic() {
                Ok(panic) => crate::db::panic_text(panic),
                Err(e) => e.to_string(),
            };
            (
                Err(ApiError::internal(format!("the request panicked: {why}"))),
                None,
            )
        }
    };
    let limited = matches!(result, Err(ApiError::RateLimited { .. }));
    let reply = result.unwrap_or_else(|e| {
        match &e {
            ApiError::Internal(detail) => {
                tracing::error!(request_id = %request_id, detail = %detail, "internal error")
            }
            ApiError::StorageFull => {
                tracing::error!(request_id = %request_id, "the disk is full: a change was refused")
            }
            _ => {}
        }
        Reply::error(&e, &request_id)
    });
    let mut response = reply.into_response();
    let headers = response.headers_mut();
    headers.insert("x-request-id", header(&request_id));
    let (route, budget, key_id, rate) = match seen {
        Some(seen) => (seen.route, seen.budget, seen.key_id, seen.rate),
        None => ("unmatched".into(), None, None, None),
    };
    if let Some(rate) = rate {
        headers.insert("x-ratelimit-limit", header(&rate.limit.to_string()));
        headers.insert("x-ratelimit-remaining", header(&rate.remaining.to_string()));
        headers.insert("x-ratelimit-reset", header(&rate.reset.to_string()));
    }
    let status = response.status().as_u16();
    let elapsed = started.elapsed();
    let metrics = &state.services.metrics;
    metrics.request(method.as_str(), &route, status, elapsed.as_secs_f64());
    if let (true, Some(budget)) = (limited, budget) {
        metrics.rate_limited(budget.name());
    }
    tracing::info!(
        target: "adcab::request",
        method = %method,
        route = %route,
        status,
        duration_ms = elapsed.as_secs_f64() * 1000.0,
        request_id = %request_id,
        key_id,
        "request"
    );
    response
}

fn header(value: &str) -> HeaderValue {
    HeaderValue::from_str(value).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// One request's life. Everything decided from the request head (route, declared size, key,
/// rate limit, access) is checked before a byte of the body is read; the body is then read
/// within `server.body_timeout_ms`.
async fn process(
    state: &AppState,
    req: Request<Incoming>,
    request_id: &str,
    surface: Surface,
    peer: IpAddr,
    seen: &mut Seen,
) -> Result<Reply, ApiError> {
    let (parts, body) = req.into_parts();
    if surface == Surface::Main
        && state.services.config.panel.enabled
        && crate::panel::owns(parts.uri.path())
    {
        return Ok(
            crate::panel::answer(state, parts, body, peer, request_id, &mut seen.route).await,
        );
    }
    let query = Query::parse(parts.uri.query().unwrap_or(""))?;
    let endpoint = router::resolve(&parts.method, parts.uri.path())?;
    let metrics_here = match surface {
        Surface::Main => state.services.config.metrics.listen.is_empty(),
        Surface::Metrics => true,
    };
    let route = match endpoint {
        Endpoint::Unkeyed(Unkeyed::Metrics) if metrics_here => {
            seen.route = "/metrics".into();
            return metrics::answer(state).await;
        }
        _ if surface == Surface::Metrics => return Err(ApiError::RouteNotFound),
        Endpoint::Unkeyed(Unkeyed::Metrics) => return Err(ApiError::RouteNotFound),
        Endpoint::Api(route) => route,
        Endpoint::Ingest(token) => {
            seen.route = format!("{}ingest/{{token}}", router::PREFIX);
            seen.budget = Some(Budget::Conversions);
            return postback::by_token(state, &token, &query, &mut seen.rate).await;
        }
        Endpoint::Unkeyed(Unkeyed::Probe(probe)) => {
            seen.route = parts.uri.path().to_string();
            return health::answer(state, probe).await;
        }
        Endpoint::Unkeyed(Unkeyed::OpenApi) => {
            seen.route = router::OPENAPI_PATH.into();
            return Ok(Reply::raw(OPENAPI, "application/json"));
        }
    };
    seen.route = format!("{}{}", router::PREFIX, route.def.pattern);
    seen.budget = Some(route.def.budget);
    let (limit, too_large) = route.def.body.limit();
    let declared = parts
        .headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large);
    }
    let text_header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let key = parts
        .headers
        .get("x-api-key")
        .map(|v| {
            v.to_str()
                .map(str::to_string)
                .map_err(|_| ApiError::ApiKeyInvalid)
        })
        .transpose()?;
    let principal = state
        .services
        .db
        .read(move |conn| auth::authenticate(conn, key.as_deref()))
        .await?;
    seen.key_id = Some(principal.key.id);
    let budget = route.def.budget;
    if budget != Budget::Conversions {
        let now = unix_now();
        let info = state
            .limiter
            .check(Holder::Key(principal.key.id), budget, now);
        seen.rate = Some(info);
        if !info.allowed {
            return Err(ApiError::RateLimited {
                retry_after: info.retry_after(now),
            });
        }
    }
    if budget == Budget::Write {
        principal.check_write_key()?;
    }
    principal.check_access()?;
    touch_key(state, principal.key.id);
    let deadline = Duration::from_millis(state.services.config.server.body_timeout_ms);
    let (body, upload) = if route.def.body == router::Body::Upload {
        (Bytes::new(), Some(body))
    } else {
        (read_body(body, limit, too_large, deadline).await?, None)
    };
    let ctx = Ctx {
        principal,
        query,
        body,
        upload: Mutex::new(upload),
        // Read as UTF-8 text; a value that is not reads as empty, which the idempotency rules
        // refuse as invalid (not as missing).
        idempotency_key: parts
            .headers
            .get("idempotency-key")
            .map(|v| String::from_utf8(v.as_bytes().to_vec()).unwrap_or_default()),
        content_type: text_header("content-type"),
        request_id: request_id.to_string(),
        rate: Mutex::new(None),
    };
    let result = router::dispatch(state, &route, &ctx).await;
    if let Some(info) = *ctx.rate.lock().unwrap_or_else(|p| p.into_inner()) {
        seen.rate = Some(info);
    }
    result
}

/// Reads a whole body of at most `limit` bytes within `deadline`: `too_large` past the limit,
/// `REQUEST_TIMEOUT` past the deadline, `BAD_REQUEST` when it cannot be read (a broken chunk).
pub(crate) async fn read_body(
    body: Incoming,
    limit: usize,
    too_large: ApiError,
    deadline: Duration,
) -> Result<Bytes, ApiError> {
    match tokio::time::timeout(deadline, Limited::new(body, limit).collect()).await {
        Err(_) => Err(ApiError::RequestTimeout),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large),
        Ok(Err(e)) => Err(ApiError::BadRequest {
            why: format!("the body could not be read ({e})"),
        }),
    }
}

/// Records the key's last use, at most once a minute per key, without delaying the answer.
fn touch_key(state: &AppState, key: i64) {
    let mut touched = state.touched.lock().unwrap_or_else(|p| p.into_inner());
    let due = touched.get(&key).is_none_or(|t| t.elapsed() >= TOUCH_EVERY);
    if !due {
        return;
    }
    touched.insert(key, Instant::now());
    let db = state.services.db.clone();
    tokio::spawn(async move {
        let result = db
            .write(move |tx| {
                let now = crate::clock::iso(crate::clock::now(tx)?);
                crate::store::keys::touch(tx, key, &now)
            })
            .await;
        if let Err(e) = result {
            tracing::warn!(error = %e, key, "could not record key use");
        }
    });
}
