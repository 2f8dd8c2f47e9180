//! Owns changing a task (`adcab admin task` and the web panel's buttons): cancelling one, and
//! resuming a paused one after a top-up.

use super::{bad, now_iso, By, OpsError, Owned, TaskState};
use crate::domain::task::{Outcome, TaskStatus};
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

/// A task's stored outcome (its `error`, `paused_reason` or an item's error) as the API and
/// the command line answer it: the English sentence the service has always given.
pub fn outcome_sentence(stored: &str) -> String {
    use crate::ops::campaigns::Refusal;
    let refused = |code: &str, r: Refusal| format!("{code}{}.", r.sentence());
    match Outcome::read(stored) {
        Outcome::CabinetGone => "The cabinet no longer exists.".into(),
        Outcome::CabinetInactive => "The cabinet is deactivated.".into(),
        Outcome::SessionExpired => {
            "The cabinet's platform session expired; reconnect it in the panel.".into()
        }
        Outcome::PlatformSilent => "The platform did not answer; the task stopped.".into(),
        Outcome::Unreadable => {
            "The task's stored data cannot be read, so it was stopped; queue the operation again."
                .into()
        }
        Outcome::OutOfBalance { item } => format!(
            "The cabinet balance ran out at item {item}; top up the cabinet and resume the task from the panel."
        ),
        Outcome::NoSuchCampaign => "No such campaign in this cabinet, or it is deleted.".into(),
        Outcome::NotDeclined => refused("CAMPAIGN_NOT_DECLINED: ", Refusal::NotDeclined),
        Outcome::AdBalance => refused("INSUFFICIENT_AD_BALANCE: ", Refusal::InsufficientAdBalance),
        Outcome::AutoCpmLocked => refused("CABINET_LOCKED: ", Refusal::AutoCpmLocked),
        Outcome::ViewerZone => refused("", Refusal::ViewerZoneNeedsUsers),
        Outcome::Said(text) => text,
    }
}
