//! Owns the HTTP API under `/api/v1` (and the probes, the metrics and the OpenAPI document):
//! an API request's route, authentication and rate limit from the head, then the body
//! (bounded in size and time) and dispatch to its handler; what its handlers share (`Ctx`).
//! The route table is in `router`; each resource's handlers are in their own file.

pub mod account;
pub mod bulk;
pub mod campaign_create;
pub mod campaign_edit;
pub mod campaign_object;
pub mod campaigns;
pub mod conversions;
pub mod docs;
pub mod error;
pub mod funds;
mod funds_error;
pub mod groups;
pub mod health;
pub mod idempotency;
pub mod media;
pub mod metrics;
pub mod postback;
mod proposals;
pub mod request;
pub mod response;
pub mod router;
pub mod rules;
pub mod statement;
pub mod stats;
pub mod targeting;
pub mod tasks;
pub mod write;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::http::request::Parts;

use crate::auth::{self, Principal};
use crate::http::{self, AppState, BodyError, Query, Reply, Seen, Surface};
use crate::primitives::unix_now;
use crate::ratelimit::{Budget, Holder, RateInfo};
use error::ApiError;
use router::{Endpoint, Unkeyed};

/// The OpenAPI 3.1 document of the HTTP API, served at `/api/v1/openapi.json`.
pub const OPENAPI: &str = include_str!("openapi.json");

/// `last_used_at` of a key is written at most this often.
const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// One authenticated request, as handlers see it.
pub struct Ctx {
    pub principal: Arc<Principal>,
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

/// Answers an API request. Everything decided from the request head (route, declared size, key,
/// rate limit, access) is checked before a byte of the body is read; the body is then read
/// within `server.body_timeout_ms`.
pub async fn answer(
    state: &AppState,
    parts: Parts,
    body: Incoming,
    request_id: &str,
    surface: Surface,
    seen: &mut Seen,
) -> Result<Reply, ApiError> {
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
        Endpoint::Unkeyed(Unkeyed::Docs) => {
            seen.route = docs::DOCS_PATH.into();
            return Ok(docs::answer(state, &parts.headers));
        }
        Endpoint::Unkeyed(Unkeyed::OpenApi) => {
            seen.route = router::OPENAPI_PATH.into();
            return Ok(Reply::raw(OPENAPI, "application/json"));
        }
    };
    seen.route = format!("{}{}", router::PREFIX, route.def.pattern);
    seen.budget = Some(route.def.budget);
    let (limit, too_large) = route
        .def
        .body
        .limit(state.services.platform.capabilities().largest_media());
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
                .map_err(|_| ApiError::Auth(auth::AuthError::ApiKeyInvalid))
        })
        .transpose()?;
    let kept = state.services.principals.clone();
    let principal = state
        .services
        .db
        .read(move |conn| auth::authenticate(conn, &kept, key.as_deref()))
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

/// Reads a whole body of at most `limit` bytes within the configured time: `too_large` past
/// the limit, `REQUEST_TIMEOUT` past the deadline, `BAD_REQUEST` when it cannot be read.
pub(crate) async fn read_body(
    body: Incoming,
    limit: usize,
    too_large: ApiError,
    deadline: Duration,
) -> Result<Bytes, ApiError> {
    http::read_body(body, limit, deadline)
        .await
        .map_err(|e| match e {
            BodyError::TooLarge => too_large,
            BodyError::Timeout => ApiError::RequestTimeout,
            BodyError::Unreadable(why) => ApiError::BadRequest { why },
        })
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
