//! Owns the `Idempotency-Key` rules of create, copy, bulk and budget: the key is 8-255
//! characters and scoped to the key holder; the same key and request replays the first answer
//! without running anything; a different request is `IDEMPOTENCY_KEY_REUSED`; a running first
//! request is `IDEMPOTENCY_IN_PROGRESS`; a 4xx never consumes the key; a 5xx is replayed;
//! records expire after 24 hours of the service clock; when the store cannot be reached the
//! answer is `IDEMPOTENCY_UNAVAILABLE` and nothing is done. A claim never outlives its request:
//! should the work panic, its `500` is stored for replay like any other 5xx.

use std::future::Future;

use chrono::Duration;
use rusqlite::Connection;
use serde_json::{json, Value};

use super::error::ApiError;
use super::Ctx;
use crate::clock;
use crate::http::AppState;
use crate::http::Reply;
use crate::primitives::sha256_hex;
use crate::store::idempotency as store;
use crate::store::StoreError;

const MIN_LEN: usize = 8;
const MAX_LEN: usize = 255;
const LIFETIME: Duration = Duration::hours(24);

/// The claim a request holds on its key while it runs.
#[derive(Debug, Clone)]
pub struct Claim {
    pub holder: i64,
    pub key: String,
}

impl Claim {
    /// Stores the answer in the caller's transaction, so that work and answer commit together.
    pub fn finish(&self, conn: &Connection, reply: &Reply) -> Result<(), StoreError> {
        store::finish(
            conn,
            self.holder,
            &self.key,
            reply.status.as_u16(),
            &stored(reply).to_string(),
        )
    }
}

enum Found {
    Fresh,
    Replay(Reply),
    Reused,
    InProgress,
}

/// Runs `work` under the request's `Idempotency-Key`. `work` may finish the claim itself in
/// the transaction that does its work (tasks do); otherwise the answer is stored here.
pub async fn guarded<F, Fut>(
    state: &AppState,
    ctx: &Ctx,
    method: &str,
    path: &str,
    work: F,
) -> Result<Reply, ApiError>
where
    F: FnOnce(Claim) -> Fut,
    Fut: Future<Output = Result<(Reply, bool), ApiError>>,
{
    let key = ctx
        .idempotency_key
        .clone()
        .ok_or(ApiError::IdempotencyKeyRequired)?;
    if !(MIN_LEN..=MAX_LEN).contains(&key.chars().count()) {
        return Err(ApiError::IdempotencyKeyInvalid);
    }
    let claim = Claim {
        holder: ctx.principal.user.id,
        key,
    };
    let fingerprint = fingerprint(method, path, ctx);
    let (c, request_id) = (claim.clone(), ctx.request_id.clone());
    let found = state
        .services
        .db
        .write(move |tx| claim_key(tx, &c, &fingerprint, &request_id))
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "idempotency store unavailable");
            ApiError::IdempotencyUnavailable
        })?;
    match found {
        Found::Replay(reply) => return Ok(reply),
        Found::Reused => return Err(ApiError::IdempotencyKeyReused),
        Found::InProgress => return Err(ApiError::IdempotencyInProgress),
        Found::Fresh => {}
    }
    let db = state.services.db.clone();
    let unfinished = Unfinished {
        db: db.clone(),
        claim: Some(claim.clone()),
        request_id: ctx.request_id.clone(),
    };
    let outcome = work(claim.clone()).await;
    unfinished.done();
    match outcome {
        Ok((reply, true)) => Ok(reply),
        Ok((reply, false)) => {
            let (c, r) = (claim, stored(&reply));
            let status = reply.status.as_u16();
            db.write(move |tx| store::finish(tx, c.holder, &c.key, status, &r.to_string()))
                .await?;
            Ok(reply)
        }
        Err(e) if e.status().is_server_error() => {
            let reply = super::response::error(&e, &ctx.request_id);
            let (c, r, status) = (claim, stored(&reply), reply.status.as_u16());
            if let Err(store_err) = db
                .write(move |tx| store::finish(tx, c.holder, &c.key, status, &r.to_string()))
                .await
            {
                tracing::error!(error = %store_err, "could not store a 5xx answer for replay");
            }
            Err(e)
        }
        Err(e) => {
            db.write(move |tx| store::forget(tx, claim.holder, &claim.key))
                .await?;
            Err(e)
        }
    }
}

/// Stands for a claim whose work has not come back: dropped without `done` (the work
/// panicked), it stores the `500` answer so the key is never left running.
struct Unfinished {
    db: crate::db::Db,
    claim: Option<Claim>,
    request_id: String,
}

impl Unfinished {
    fn done(mut self) {
        self.claim = None;
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        let Some(claim) = self.claim.take() else {
            return;
        };
        let reply =
            super::response::error(&ApiError::internal("the work panicked"), &self.request_id);
        let (status, answer) = (reply.status.as_u16(), stored(&reply).to_string());
        let db = self.db.clone();
        let store = async move {
            let finished = db
                .write(move |tx| store::finish(tx, claim.holder, &claim.key, status, &answer))
                .await;
            if let Err(e) = finished {
                tracing::error!(error = %e, "could not close the claim of a request that panicked");
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(store)),
            Err(_) => tracing::error!("a claim was left running outside the runtime"),
        }
    }
}

fn claim_key(
    conn: &Connection,
    claim: &Claim,
    fingerprint: &str,
    request_id: &str,
) -> Result<Found, ApiError> {
    let now = clock::now(conn)?;
    if let Some(record) = store::get(conn, claim.holder, &claim.key)? {
        let created = clock::parse_iso(&record.created_at).ok_or_else(|| {
            ApiError::internal(format!(
                "idempotency record of holder {}: bad created_at {:?}",
                claim.holder, record.created_at
            ))
        })?;
        let expired = now - created >= LIFETIME;
        if !expired {
            if record.running {
                return Ok(Found::InProgress);
            }
            if record.fingerprint != fingerprint {
                return Ok(Found::Reused);
            }
            return Ok(Found::Replay(replay(&record, request_id)?));
        }
        store::forget(conn, claim.holder, &claim.key)?;
    }
    store::start(
        conn,
        claim.holder,
        &claim.key,
        fingerprint,
        &clock::iso(now),
    )?;
    Ok(Found::Fresh)
}

/// What identifies "the same request": method, path, query and the body's JSON (key order
/// and spacing do not matter).
fn fingerprint(method: &str, path: &str, ctx: &Ctx) -> String {
    let body = serde_json::from_slice::<Value>(&ctx.body)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| String::from_utf8_lossy(&ctx.body).into_owned());
    sha256_hex(&format!(
        "{method}\n{path}\n{}\n{body}",
        ctx.query.canonical()
    ))
}

fn stored(reply: &Reply) -> Value {
    // The body is this service's own JSON; it is embedded as a value, as stored answers were.
    let body: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
    json!({ "body": body, "headers": reply.headers })
}

/// The stored answer again; a failure's `request_id` becomes this request's, as the envelope
/// always matches its `X-Request-Id`.
fn replay(record: &store::Record, request_id: &str) -> Result<Reply, ApiError> {
    let text = record.response.as_deref().unwrap_or("{}");
    let mut stored: Value = serde_json::from_str(text)
        .map_err(|e| ApiError::internal(format!("stored answer: {e}")))?;
    if let Some(id) = stored["body"].get_mut("request_id") {
        *id = Value::from(request_id);
    }
    let status = record
        .status
        .and_then(|s| hyper::StatusCode::from_u16(s).ok())
        .ok_or_else(|| ApiError::internal("stored answer without status"))?;
    let headers = serde_json::from_value(stored["headers"].clone())
        .map_err(|e| ApiError::internal(format!("stored answer headers: {e}")))?;
    Ok(Reply {
        status,
        body: bytes::Bytes::from(stored["body"].to_string()),
        headers,
    })
}
