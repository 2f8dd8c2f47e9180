//! Owns changing a task (`adcab admin task` and the web panel's buttons): cancelling one, and
//! resuming a paused one after a top-up.

use super::{bad, now_iso, OpsError, TaskState};
use crate::domain::task::TaskStatus;
use crate::services::Services;
use crate::store::tasks;

fn require_task(conn: &rusqlite::Connection, id: i64) -> Result<tasks::Task, OpsError> {
    tasks::get(conn, id)?.ok_or_else(|| bad("id", format!("no such task: {id}")))
}

/// Cancels a task that has not ended; an item already under way still finishes.
pub fn task_cancel(s: &Services, id: i64) -> Result<TaskState, OpsError> {
    s.db.write_blocking(|tx| {
        let task = require_task(tx, id)?;
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
pub fn task_resume(s: &Services, id: i64) -> Result<TaskState, OpsError> {
    s.db.write_blocking(|tx| {
        let task = require_task(tx, id)?;
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
