//! Owns one request's life before and after its face: a request id, the face that answers it
//! (the web panel for its paths, else the API), a task of its own so that a request once begun
//! runs to its end and a panic in it becomes `500 INTERNAL_ERROR`, and then its headers, one
//! log line and its metrics.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Request, Response};

use crate::api::error::ApiError;
use crate::api::response;
use crate::http::{AppState, Reply, Seen, Surface};

/// What the faces answer with: the state they share, and what only one face keeps (the MCP
/// face's open sessions), held here, above the faces, so that the shared layer knows none.
pub struct Faces {
    pub state: Arc<AppState>,
    pub mcp: crate::mcp::http::Sessions,
}

impl Faces {
    pub fn new(state: AppState) -> Faces {
        Faces {
            state: Arc::new(state),
            mcp: Default::default(),
        }
    }
}

/// Answers one request. The request runs in a task of its own: once it started it runs to
/// its end and records its outcome even when the client hangs up (hyper then drops this
/// future, never the task), and a panic inside it becomes `500 INTERNAL_ERROR`, logged with
/// the request id, while the service goes on serving. Every request ends with one log line
/// and its metrics.
pub async fn handle(
    faces: Arc<Faces>,
    req: Request<Incoming>,
    surface: Surface,
    peer: IpAddr,
) -> Response<Full<Bytes>> {
    let started = Instant::now();
    let method = req.method().clone();
    let request_id = crate::http::request_id();
    let id = request_id.clone();
    let inner = faces.clone();
    let task = tokio::spawn(async move {
        let mut seen = Seen::default();
        let result = face(&inner, req, &id, surface, peer, &mut seen).await;
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
        response::error(&e, &request_id)
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
    let metrics = &faces.state.services.metrics;
    metrics.request(method.as_str(), &route, status, elapsed.as_secs_f64());
    if let (true, Some(budget)) = (limited, budget) {
        metrics.rate_limited(budget.name());
    }
    tracing::info!(
        target: "adcab::request",
        method = %method,
        route = %route,
        status,
        duration_ms = millis(elapsed),
        request_id = %request_id,
        key_id,
        "request"
    );
    response
}

/// A duration in milliseconds rounded to hundredths (`5.17`), as the request log prints it.
fn millis(elapsed: std::time::Duration) -> f64 {
    (elapsed.as_secs_f64() * 100_000.0).round() / 100.0
}

fn header(value: &str) -> HeaderValue {
    HeaderValue::from_str(value).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// Whether a path is the web panel's (when `[panel] enabled`): every absolute path outside the
/// API (its reference included), the probes and the metrics.
fn panel_owns(path: &str) -> bool {
    path.starts_with('/')
        && !(path.starts_with(crate::api::router::PREFIX)
            || path == "/api/v1"
            || path == crate::api::docs::DOCS_PATH
            || matches!(path, "/healthz" | "/readyz" | "/metrics"))
}

/// The face that answers: the web panel for its paths (on the main listener, when enabled),
/// else the API.
async fn face(
    faces: &Faces,
    req: Request<Incoming>,
    request_id: &str,
    surface: Surface,
    peer: IpAddr,
    seen: &mut Seen,
) -> Result<Reply, ApiError> {
    let state = &*faces.state;
    let (parts, body) = req.into_parts();
    if surface == Surface::Main && parts.uri.path() == crate::mcp::http::PATH {
        seen.route = crate::mcp::http::PATH.into();
        let mcp = &faces.mcp;
        return Ok(crate::mcp::http::answer(state, mcp, parts, body, &mut seen.key_id).await);
    }
    if surface == Surface::Main && parts.uri.path().starts_with(crate::bot::webhook::PREFIX) {
        seen.route = "/telegram/{secret}".into();
        return Ok(crate::bot::webhook::answer(state, parts, body).await);
    }
    if surface == Surface::Main
        && state.services.config.panel.enabled
        && panel_owns(parts.uri.path())
    {
        return Ok(
            crate::panel::answer(state, parts, body, peer, request_id, &mut seen.route).await,
        );
    }
    crate::api::answer(state, parts, body, request_id, surface, seen).await
}
