//! Owns `GET /v1/tasks/{id}`: any key of the task's owner reads it; `Retry-After: 2` while it
//! is pending or running.

use super::response::Reply;
use super::{AppState, Ctx};
use crate::error::ApiError;
use crate::store::tasks;

pub async fn get(state: &AppState, ctx: &Ctx, id: &str) -> Result<Reply, ApiError> {
    let id = id
        .parse::<i64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| ApiError::validation("id", "The task id must be a positive integer."))?;
    let owner = ctx.principal.user.id;
    let task = state
        .services
        .db
        .read(move |c| tasks::get(c, id))
        .await?
        .filter(|t| t.owner_id == owner)
        .ok_or(ApiError::TaskNotFound)?;
    let mut reply = Reply::ok(task.to_json());
    if matches!(task.status.as_str(), "pending" | "running") {
        reply.headers.push(("retry-after".into(), "2".into()));
    }
    Ok(reply)
}
