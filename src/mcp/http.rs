//! Owns MCP over HTTP at `/mcp` (the protocol's Streamable HTTP transport, answered with plain
//! JSON, never a stream): `POST` carries one JSON-RPC message, authenticated by `X-API-Key` and
//! rate-limited like an API read before a byte of the body is read, the body bounded in size
//! and time like the API's; `initialize` opens a session (`Mcp-Session-Id` in the answer) that
//! later messages name, bound to the key that opened it; `DELETE` ends one (`204` whether or
//! not it was still open). A session's guards
//! come from the request that opens it: `X-MCP-Read-Only: true` and `X-MCP-Max-Money: DEC`.
//! Sessions live in memory, the least recently used dropped past [`MAX_SESSIONS`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper::http::request::Parts;
use hyper::{Method, StatusCode};
use serde_json::{json, Value};

use super::session::{self, Guards, Session, PROTOCOL_VERSIONS};
use crate::auth::{self, AuthError, AuthFailure, Principal};
use crate::domain::money::Money;
use crate::http::{AppState, BodyError, Reply};
use crate::primitives::unix_now;
use crate::ratelimit::{Budget, Holder};

/// The path of the transport.
pub const PATH: &str = "/mcp";
/// The largest message body, as the API's JSON bodies.
const MAX_BODY: usize = 2 * 1024 * 1024;
/// The most sessions kept at once.
pub const MAX_SESSIONS: usize = 1000;
/// The header naming a session.
const SESSION_HEADER: &str = "mcp-session-id";

struct Kept {
    key: i64,
    used: Instant,
    session: Arc<Mutex<Session>>,
}

/// The open HTTP sessions, by id.
#[derive(Default)]
pub struct Sessions {
    open: Mutex<HashMap<String, Kept>>,
}

impl Sessions {
    fn find(&self, id: &str, key: i64) -> Option<Arc<Mutex<Session>>> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let kept = open.get_mut(id).filter(|k| k.key == key)?;
        kept.used = Instant::now();
        Some(kept.session.clone())
    }

    fn keep(&self, key: i64, session: Session) -> Arc<Mutex<Session>> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if open.len() >= MAX_SESSIONS {
            if let Some(oldest) = open
                .iter()
                .min_by_key(|(_, k)| k.used)
                .map(|(id, _)| id.clone())
            {
                open.remove(&oldest);
            }
        }
        let id = session.id().to_string();
        let session = Arc::new(Mutex::new(session));
        open.insert(
            id,
            Kept {
                key,
                used: Instant::now(),
                session: session.clone(),
            },
        );
        session
    }

    fn end(&self, id: &str, key: i64) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if open.get(id).is_some_and(|k| k.key == key) {
            open.remove(id);
        }
    }
}

/// An answer outside JSON-RPC's own (the transport's refusals), with a JSON-RPC error body.
fn refused(status: StatusCode, code: &str, message: &str) -> Reply {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32001, "message": message, "data": { "code": code } }
    });
    Reply::raw(body.to_string(), "application/json").with_status(status)
}

fn header<'p>(parts: &'p Parts, name: &str) -> Option<&'p str> {
    parts.headers.get(name).and_then(|v| v.to_str().ok())
}

async fn authenticate(state: &AppState, parts: &Parts) -> Result<Arc<Principal>, Reply> {
    let key = header(parts, "x-api-key").map(str::to_string);
    let kept = state.services.principals.clone();
    let found = state
        .services
        .db
        .read(move |c| auth::authenticate(c, &kept, key.as_deref()))
        .await
        .and_then(|p| {
            p.check_access()?;
            Ok(p)
        });
    match found {
        Ok(p) => Ok(p),
        Err(AuthFailure::Refused(e)) => {
            let status = match e {
                AuthError::ApiKeyMissing | AuthError::ApiKeyInvalid => StatusCode::UNAUTHORIZED,
                _ => StatusCode::FORBIDDEN,
            };
            Err(refused(status, e.code(), &e.sentence()))
        }
        Err(AuthFailure::Store(e)) => {
            tracing::error!(error = %e, "MCP key check failed");
            Err(refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "SERVICE_UNAVAILABLE",
                "The service is busy; try again shortly.",
            ))
        }
    }
}

/// The guards the opening request asks for.
fn guards(parts: &Parts) -> Result<Guards, Reply> {
    let read_only = match header(parts, "x-mcp-read-only") {
        None => false,
        Some(v) if v.eq_ignore_ascii_case("true") || v == "1" => true,
        Some(v) if v.eq_ignore_ascii_case("false") || v == "0" => false,
        Some(_) => {
            return Err(refused(
                StatusCode::BAD_REQUEST,
                "VALIDATION_ERROR",
                "X-MCP-Read-Only must be true or false.",
            ))
        }
    };
    let max_money = header(parts, "x-mcp-max-money")
        .map(|v| Money::parse(v.trim(), 6))
        .transpose()
        .map_err(|_| {
            refused(
                StatusCode::BAD_REQUEST,
                "VALIDATION_ERROR",
                "X-MCP-Max-Money must be an amount of at least 0, e.g. 50 or 12.5.",
            )
        })?;
    Ok(Guards {
        read_only,
        max_money,
    })
}

/// Answers a request to `/mcp`.
pub async fn answer(
    state: &AppState,
    sessions: &Sessions,
    parts: Parts,
    body: Incoming,
    seen_key: &mut Option<i64>,
) -> Reply {
    let principal = match authenticate(state, &parts).await {
        Ok(p) => p,
        Err(reply) => return reply,
    };
    let key = principal.key.id;
    *seen_key = Some(key);
    let now = unix_now();
    let rate = state.limiter.check(Holder::Key(key), Budget::Read, now);
    if !rate.allowed {
        let mut reply = refused(
            StatusCode::TOO_MANY_REQUESTS,
            "RATE_LIMITED",
            "Too many requests for this key; retry later.",
        );
        reply
            .headers
            .push(("retry-after".into(), rate.retry_after(now).to_string()));
        return reply;
    }
    if let Some(v) = header(&parts, "mcp-protocol-version") {
        if !PROTOCOL_VERSIONS.contains(&v) {
            return refused(
                StatusCode::BAD_REQUEST,
                "VALIDATION_ERROR",
                "Unsupported MCP-Protocol-Version.",
            );
        }
    }
    let named = header(&parts, SESSION_HEADER).map(str::to_string);
    match parts.method {
        Method::POST => {}
        Method::DELETE => {
            // Ending a session this key does not have leaves nothing open either.
            if let Some(id) = named {
                sessions.end(&id, key);
            }
            return Reply::raw("", "application/json").with_status(StatusCode::NO_CONTENT);
        }
        _ => {
            let mut reply = refused(
                StatusCode::METHOD_NOT_ALLOWED,
                "METHOD_NOT_ALLOWED",
                "Send MCP messages with POST; this server opens no event stream.",
            );
            reply.headers.push(("allow".into(), "POST, DELETE".into()));
            return reply;
        }
    }
    let declared = header(&parts, "content-length").and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY) {
        return too_large();
    }
    let wait = Duration::from_millis(state.services.config.server.body_timeout_ms);
    let bytes = match crate::http::read_body(body, MAX_BODY, wait).await {
        Ok(b) => b,
        Err(BodyError::TooLarge) => return too_large(),
        Err(BodyError::Timeout) => {
            return refused(
                StatusCode::REQUEST_TIMEOUT,
                "REQUEST_TIMEOUT",
                "The body did not arrive in time.",
            )
        }
        Err(BodyError::Unreadable(_)) => {
            return refused(
                StatusCode::BAD_REQUEST,
                "BAD_REQUEST",
                "The body could not be read.",
            )
        }
    };
    let Ok(message) = serde_json::from_slice::<Value>(&bytes) else {
        return json_reply(
            StatusCode::BAD_REQUEST,
            &session::error(Value::Null, session::PARSE_ERROR, "Parse error"),
        );
    };
    let opens = message.get("method").and_then(Value::as_str) == Some("initialize");
    let session = match (opens, named) {
        (true, _) => {
            let guards = match guards(&parts) {
                Ok(g) => g,
                Err(reply) => return reply,
            };
            let id = uuid::Uuid::new_v4().to_string();
            sessions.keep(key, Session::new(id, guards))
        }
        (false, Some(id)) => match sessions.find(&id, key) {
            Some(s) => s,
            None => return refused(StatusCode::NOT_FOUND, "NOT_FOUND", "No such MCP session."),
        },
        (false, None) => {
            return refused(
                StatusCode::BAD_REQUEST,
                "VALIDATION_ERROR",
                "Send the Mcp-Session-Id header that initialize answered.",
            )
        }
    };
    let call_wait = Duration::from_millis(state.services.config.platform.call_timeout_ms);
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let answered = state
        .platform_call(call_wait, move |s| {
            let mut session = session.lock().unwrap_or_else(|p| p.into_inner());
            let answer = session.answer(s, &principal, message);
            (session.id().to_string(), answer)
        })
        .await;
    let (session_id, answer) = match answered {
        Ok(Some(done)) => done,
        Ok(None) => {
            return json_reply(
                StatusCode::OK,
                &session::error(
                    id,
                    -32603,
                    "The platform did not answer in time; the call may still complete. Send the same call again (same id) to learn its outcome.",
                ),
            )
        }
        Err(e) => {
            tracing::warn!(error = %e, "MCP call not admitted");
            return refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "SERVICE_UNAVAILABLE",
                "The service is busy; try again shortly.",
            );
        }
    };
    let mut reply = match answer {
        Some(answer) => json_reply(StatusCode::OK, &answer),
        None => Reply::raw("", "application/json").with_status(StatusCode::ACCEPTED),
    };
    if opens {
        reply.headers.push((SESSION_HEADER.into(), session_id));
    }
    reply
}

fn json_reply(status: StatusCode, value: &Value) -> Reply {
    Reply::raw(value.to_string(), "application/json").with_status(status)
}

fn too_large() -> Reply {
    refused(
        StatusCode::PAYLOAD_TOO_LARGE,
        "BODY_TOO_LARGE",
        "The body is larger than 2 MiB.",
    )
}
