//! Owns tasks over HTTP: the answer to a write that queued one (the 202, stored for its
//! Idempotency-Key in the same transaction) and `GET /v1/tasks/{id}`, which any key of the task's owner reads, with
//! `Retry-After: 2` while it is pending or running.

use hyper::StatusCode;
use rusqlite::Connection;
use serde_json::{json, Value};

use super::error::ApiError;
use super::idempotency::Claim;
use super::Ctx;
use crate::domain::money::CabinetType;
use crate::domain::task::ItemError;
use crate::http::AppState;
use crate::http::Reply;
use crate::ops::{outcome_sentence, OpsError};
use crate::store::tasks::{self, Task};

/// Runs `queue`, an operation that queues a task (in a cabinet of `kind`), in the transaction
/// that also stores its 202 answer under the claim; then wakes the task worker.
pub async fn queue<F>(
    state: &AppState,
    claim: Claim,
    kind: CabinetType,
    queue: F,
) -> Result<(Reply, bool), ApiError>
where
    F: FnOnce(&Connection) -> Result<i64, OpsError> + Send + 'static,
{
    let reply = state
        .services
        .db
        .write(move |tx| {
            let id = queue(tx).map_err(|e| ApiError::of_ops(e, kind))?;
            answer(tx, id, &claim)
        })
        .await?;
    state.wake.notify_one();
    Ok((reply, true))
}

/// The 202 answer to a write that queued task `id`, stored under the claim in the caller's
/// transaction.
fn answer(conn: &Connection, id: i64, claim: &Claim) -> Result<Reply, ApiError> {
    let task = tasks::get(conn, id)?.ok_or_else(|| ApiError::internal("task vanished"))?;
    let reply = accepted(&task)?;
    claim.finish(conn, &reply)?;
    Ok(reply)
}

/// `202` with the task, `Location` and `Retry-After: 2`.
fn accepted(task: &Task) -> Result<Reply, ApiError> {
    let mut reply = Reply::ok_status::<ApiError>(StatusCode::ACCEPTED, task_json(task))?;
    reply.headers = vec![
        ("location".into(), format!("/api/v1/tasks/{}", task.id)),
        ("retry-after".into(), "2".into()),
    ];
    Ok(reply)
}

/// The spec's task object.
fn task_json(task: &Task) -> Value {
    json!({
        "id": task.id,
        "type": task.kind.as_str(),
        "status": task.status.as_str(),
        "account_id": task.account_id,
        "progress": task.progress,
        "total": task.total,
        "succeeded": task.succeeded,
        "failed": task.failed,
        "ad_ids": task.ad_ids,
        "errors": task.errors.iter().map(|e| ItemError {
            error: outcome_sentence(&e.error),
            ..e.clone()
        }).collect::<Vec<_>>(),
        "paused_reason": task.paused_reason.as_deref().map(outcome_sentence),
        "error": task.error.as_deref().map(outcome_sentence),
        "created_at": task.created_at,
        "started_at": task.started_at,
        "completed_at": task.completed_at,
    })
}

pub async fn get(state: &AppState, ctx: &Ctx, id: &str) -> Result<Reply, ApiError> {
    let id = crate::domain::id::parse("id", id)?;
    let owner = ctx.principal.user.id;
    let task = state
        .services
        .db
        .read(move |c| tasks::get(c, id))
        .await?
        .filter(|t| t.owner_id == owner)
        .ok_or(ApiError::TaskNotFound)?;
    let mut reply = Reply::ok::<ApiError>(task_json(&task))?;
    if task.status.is_underway() {
        reply.headers.push(("retry-after".into(), "2".into()));
    }
    Ok(reply)
}
