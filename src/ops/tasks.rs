//! Owns changing a task (`adcab admin task` and the web panel's buttons): cancelling one, and
//! resuming a paused one after a top-up.

use super::{bad, now_iso, By, OpsError, Owned, TaskState};
use crate::domain::task::TaskStatus;
use crate::services::Services;
use crate::store::tasks;

/// Task `id` as `by` may change it: any task for the operator (an unknown id is an input
/// error), one of their own for a person ([`OpsError::NotYours`] otherwise).
fn task_of(conn: &rusqlite::Connection, by: By, id: i64) -> Result<tasks::Task, OpsError> {
    match tasks::get(conn, id)? {
        Some(task) if by.may_change(task.owner_id) => Ok(task),
        None if by == By::Operator => Err(bad("id", format!("no such task: {id}"))),
        _ => Err(OpsError::NotYours(Owned::Task)),
    }
}

/// Cancels a task that has not ended; an item already under way still finishes.
pub fn task_cancel(s: &Services, by: By, id: i64) -> Result<TaskState, OpsError> {
    s.db.write_blocking(|tx| {
        let task = task_of(tx, by, id)?;
        if task.status.is_final() {
            return Err(bad(
                "id",
                format!("task {id} is already {}", task.status.as_str()),
            ));
        }
        tasks::cancel(tx, id, &now_iso(tx)?)?;
        Ok(TaskState {
            id,
            status: TaskStatus::Cancelled.as_str(),
        })
    })
}

/// Resumes a paused task (after a top-up): it queues again and continues where it stopped.
pub fn task_resume(s: &Services, by: By, id: i64) -> Result<TaskState, OpsError> {
    s.db.write_blocking(|tx| {
        let task = task_of(tx, by, id)?;
        if task.status != TaskStatus::Paused {
            return Err(bad(
                "id",
                format!("task {id} is {}, not paused", task.status.as_str()),
            ));
        }
        tasks::resume(tx, id)?;
        Ok(TaskState {
            id,
            status: TaskStatus::Pending.as_str(),
        })
    })
}
