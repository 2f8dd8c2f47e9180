//! Owns the HTTP server: accepting connections, one request's life (request id, body limit,
//! authentication, rate limit, dispatch, envelope and headers), and graceful shutdown. The route
//! table is in `router`; each resource's handlers are in their own file.

pub mod account;
pub mod bulk;
pub mod campaign_create;
pub mod campaign_edit;
pub mod campaigns;
pub mod conversions;
pub mod groups;
pub mod idempotency;
pub mod input;
pub mod media;
pub mod postback;
pub mod request;
pub mod response;
pub mod router;
pub mod stats;
pub mod targeting;
pub mod tasks;
pub mod write;

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::auth::{self, Principal};
use crate::error::ApiError;
use crate::ingest::Ingest;
use crate::ratelimit::{unix_now, Budget, RateInfo, RateLimiter};
use crate::Services;
use request::Query;
use response::Reply;
use router::Endpoint;

/// How long in-flight requests may take to finish after shutdown starts.
const DRAIN: Duration = Duration::from_secs(10);
/// `last_used_at` of a key is written at most this often.
const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// What every request handler can reach.
pub struct AppState {
    pub services: Services,
    pub limiter: RateLimiter,
    /// Wakes the task worker when a task is queued.
    pub wake: Arc<tokio::sync::Notify>,
    /// Records inbound conversions, grouping concurrent requests into shared transactions.
    pub ingest: Ingest,
    touched: Mutex<HashMap<i64, Instant>>,
}

/// One authenticated request, as handlers see it.
pub struct Ctx {
    pub principal: Principal,
    pub query: Query,
    pub body: Bytes,
    /// The `Idempotency-Key` header, as sent.
    pub idempotency_key: Option<String>,
    pub content_type: Option<String>,
    pub request_id: String,
    /// The rate-limit figures of a handler that charges its own budget (conversions).
    pub rate: Mutex<Option<RateInfo>>,
}

impl AppState {
    pub fn new(services: Services, wake: Arc<tokio::sync::Notify>) -> AppState {
        let limiter = RateLimiter::new(&services.config.limits);
        let ingest = Ingest::start(services.db.clone());
        AppState {
            services,
            limiter,
            wake,
            ingest,
            touched: Mutex::new(HashMap::new()),
        }
    }
}

/// Serves the API on `listener` until `shutdown` resolves, then lets in-flight requests finish.
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        continue;
                    }
                };
                let state = state.clone();
                let service = service_fn(move |req| {
                    let state = state.clone();
                    async move { Ok::<_, Infallible>(handle(&state, req).await) }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service);
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                });
            }
            _ = &mut shutdown => break,
        }
    }
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("in-flight requests did not finish within {DRAIN:?}");
    }
}

async fn handle(state: &AppState, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let request_id = format!("req_{}", uuid::Uuid::new_v4().simple());
    let mut rate = None;
    let result = process(state, req, &request_id, &mut rate).await;
    let reply = result.unwrap_or_else(|e| {
        if let ApiError::Internal(detail) = &e {
            tracing::error!(request_id = %request_id, detail = %detail, "internal error");
        }
        Reply::error(&e, &request_id)
    });
    let mut response = reply.into_response();
    let headers = response.headers_mut();
    headers.insert("x-request-id", header(&request_id));
    if let Some(rate) = rate {
        headers.insert("x-ratelimit-limit", header(&rate.limit.to_string()));
        headers.insert("x-ratelimit-remaining", header(&rate.remaining.to_string()));
        headers.insert("x-ratelimit-reset", header(&rate.reset.to_string()));
    }
    response
}

fn header(value: &str) -> HeaderValue {
    HeaderValue::from_str(value).unwrap_or_else(|_| HeaderValue::from_static(""))
}

async fn process(
    state: &AppState,
    req: Request<Incoming>,
    request_id: &str,
    rate: &mut Option<RateInfo>,
) -> Result<Reply, ApiError> {
    let (parts, body) = req.into_parts();
    let query = Query::parse(parts.uri.query().unwrap_or(""))?;
    let route = match router::resolve(&parts.method, parts.uri.path())? {
        Endpoint::Api(route) => route,
        Endpoint::Ingest(token) => return postback::by_token(state, &token, &query, rate).await,
    };
    let (limit, too_large) = route.body_limit();
    let declared = parts
        .headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large);
    }
    let body = Limited::new(body, limit)
        .collect()
        .await
        .map_err(|_| too_large.clone())?
        .to_bytes();
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
    if route.budget() != Budget::Conversions {
        let now = unix_now();
        let info = state.limiter.check(principal.key.id, route.budget(), now);
        *rate = Some(info);
        if !info.allowed {
            return Err(ApiError::RateLimited {
                retry_after: info.retry_after(now),
            });
        }
    }
    principal.check_access()?;
    if route.budget() == Budget::Write {
        principal.check_write_key()?;
    }
    touch_key(state, principal.key.id);
    let ctx = Ctx {
        principal,
        query,
        body,
        idempotency_key: text_header("idempotency-key"),
        content_type: text_header("content-type"),
        request_id: request_id.to_string(),
        rate: Mutex::new(None),
    };
    let result = router::dispatch(state, route, &ctx).await;
    if let Some(info) = *ctx.rate.lock().unwrap_or_else(|p| p.into_inner()) {
        *rate = Some(info);
    }
    result
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
