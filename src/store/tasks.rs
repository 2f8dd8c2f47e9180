//! Owns `tasks` and `task_items`: the persistent queue of background operations, which task a
//! cabinet's lane may run next, and each processed item with what it produced.

use rusqlite::{params, Connection, Row};
use serde_json::Value;

use super::{optional, parsed, StoreError};
use crate::domain::campaign::Source;
use crate::domain::task::{ItemError, Lane, Payload, TaskKind, TaskStatus};

/// Entries kept in a task's `errors`.
pub const MAX_ERRORS: usize = 50;

#[derive(Debug, Clone)]
pub struct Task {
    pub id: i64,
    pub owner_id: i64,
    pub account_id: i64,
    pub kind: TaskKind,
    pub status: TaskStatus,
    pub source: Source,
    /// The stored payload; the worker reads it ([`Payload::from_json`]).
    pub payload: Value,
    pub total: i64,
    pub progress: i64,
    pub succeeded: Option<i64>,
    pub failed: Option<i64>,
    pub ad_ids: Vec<i64>,
    pub errors: Vec<ItemError>,
    pub paused_reason: Option<String>,
    pub error: Option<String>,
    pub timeouts: i64,
    pub created_at: String,
    pub started_at: Option<String>,
    pub completed_at: Option<String>,
}

fn json_text(r: &Row, column: &str) -> rusqlite::Result<Value> {
    Ok(crate::db::json_column(r.get(column)?)?.unwrap_or(Value::Null))
}

/// A JSON array column; NULL is empty, anything but an array of `T` is an error.
fn json_list<T: serde::de::DeserializeOwned>(r: &Row, column: &str) -> rusqlite::Result<Vec<T>> {
    Ok(crate::db::json_column(r.get(column)?)?.unwrap_or_default())
}

fn from_row(r: &Row) -> rusqlite::Result<Task> {
    Ok(Task {
        id: r.get("id")?,
        owner_id: r.get("owner_id")?,
        account_id: r.get("account_id")?,
        kind: parsed(r, "type", "tasks.type", TaskKind::parse)?,
        status: parsed(r, "status", "tasks.status", TaskStatus::parse)?,
        source: parsed(r, "source", "tasks.source", Source::parse)?,
        payload: json_text(r, "payload")?,
        total: r.get("total")?,
        progress: r.get("progress")?,
        succeeded: r.get("succeeded")?,
        failed: r.get("failed")?,
        ad_ids: json_list(r, "ad_ids")?,
        errors: json_list(r, "errors")?,
        paused_reason: r.get("paused_reason")?,
        error: r.get("error")?,
        timeouts: r.get("timeouts")?,
        created_at: r.get("created_at")?,
        started_at: r.get("started_at")?,
        completed_at: r.get("completed_at")?,
    })
}

pub struct NewTask<'a> {
    pub owner_id: i64,
    pub account_id: i64,
    pub kind: TaskKind,
    pub payload: &'a Payload,
    /// Who queued it: the source its changes have in the campaigns' history.
    pub source: Source,
}

pub fn insert(conn: &Connection, t: &NewTask, now: &str) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO tasks (owner_id, account_id, type, lane, status, payload, total, created_at, source)
         VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?8)",
        params![
            t.owner_id,
            t.account_id,
            t.kind.as_str(),
            t.kind.lane().as_str(),
            t.payload.to_json().to_string(),
            t.payload.total() as i64,
            now,
            t.source.as_str()
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<Task>, StoreError> {
    optional(conn.query_row("SELECT * FROM tasks WHERE id = ?1", [id], from_row))
}

/// A person's most recent tasks, newest first.
pub fn of_owner(conn: &Connection, owner: i64, limit: i64) -> Result<Vec<Task>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT * FROM tasks WHERE owner_id = ?1 ORDER BY id DESC LIMIT ?2")?;
    let rows = stmt.query_map(params![owner, limit], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Tasks of the cabinet's lane waiting to start.
pub fn queued(conn: &Connection, account: i64, lane: Lane) -> Result<i64, StoreError> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM tasks WHERE account_id = ?1 AND lane = ?2 AND status = 'pending'",
        params![account, lane.as_str()],
        |r| r.get(0),
    )?)
}

/// The id of the next task with work to do: a running one, else the oldest pending task whose
/// lane in its cabinet has nothing running, paused or queued before it. (Only the id, so a
/// task that cannot be read can still be failed by it.)
pub fn next_runnable(conn: &Connection) -> Result<Option<i64>, StoreError> {
    optional(conn.prepare_cached(
        "SELECT id FROM tasks t WHERE (t.wait_until IS NULL OR t.wait_until <= ?1)
           AND (t.status = 'running'
            OR (t.status = 'pending' AND NOT EXISTS (
                SELECT 1 FROM tasks o WHERE o.account_id = t.account_id AND o.lane = t.lane AND o.id <> t.id
                  AND (o.status IN ('running', 'paused') OR (o.status = 'pending' AND o.id < t.id)))))
         ORDER BY t.status = 'running' DESC, t.id LIMIT 1",
    )?
    .query_row([crate::primitives::unix_now() as i64], |r| r.get(0)))
}

/// Holds a task until `until` (unix seconds, real time): the platform asked to wait.
pub fn wait(conn: &Connection, id: i64, until: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE tasks SET wait_until = ?2 WHERE id = ?1",
        params![id, until],
    )?;
    Ok(())
}

pub fn start(conn: &Connection, id: i64, now: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE tasks SET status = 'running', started_at = COALESCE(started_at, ?2),
            succeeded = COALESCE(succeeded, 0), failed = COALESCE(failed, 0)
         WHERE id = ?1 AND status = 'pending'",
        params![id, now],
    )?;
    Ok(())
}

/// The items already processed, by position.
pub fn done_items(conn: &Connection, task: i64) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare("SELECT idx FROM task_items WHERE task_id = ?1 ORDER BY idx")?;
    let rows = stmt.query_map([task], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Records one processed item and the task's counts, in the caller's transaction.
pub fn record_item(
    conn: &Connection,
    task: &Task,
    idx: i64,
    ad_id: Option<i64>,
    error: Option<&str>,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO task_items (task_id, idx, ad_id, error) VALUES (?1, ?2, ?3, ?4)",
        params![task.id, idx, ad_id, error],
    )?;
    let mut errors = task.errors.clone();
    if let Some(error) = error {
        if errors.len() < MAX_ERRORS {
            errors.push(ItemError {
                ad_id,
                index: idx,
                error: error.to_string(),
            });
        }
    }
    conn.execute(
        "UPDATE tasks SET progress = progress + 1, timeouts = 0,
            succeeded = COALESCE(succeeded, 0) + ?2, failed = COALESCE(failed, 0) + ?3, errors = ?4
         WHERE id = ?1",
        params![
            task.id,
            i64::from(error.is_none()),
            i64::from(error.is_some()),
            serde_json::to_string(&errors).map_err(|e| StoreError::Failed(e.to_string()))?
        ],
    )?;
    Ok(())
}

/// Ends a task as `completed`; `ad_ids` are the items that produced or changed a campaign.
pub fn complete(conn: &Connection, id: i64, now: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE tasks SET status = 'completed', completed_at = ?2,
            ad_ids = (SELECT COALESCE(json_group_array(ad_id), '[]') FROM
                        (SELECT ad_id FROM task_items WHERE task_id = ?1 AND error IS NULL AND ad_id IS NOT NULL ORDER BY idx))
         WHERE id = ?1 AND status = 'running'",
        params![id, now],
    )?;
    Ok(())
}

/// Ends a running or pending task as `failed` with `error`.
pub fn fail(conn: &Connection, id: i64, error: &str, now: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE tasks SET status = 'failed', error = ?2, completed_at = ?3
         WHERE id = ?1 AND status IN ('running', 'pending')",
        params![id, error, now],
    )?;
    Ok(())
}

pub fn pause(conn: &Connection, id: i64, reason: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE tasks SET status = 'paused', paused_reason = ?2 WHERE id = ?1 AND status = 'running'",
        params![id, reason],
    )?;
    Ok(())
}

/// Counts a platform timeout on the current item; returns how many in a row.
pub fn count_timeout(conn: &Connection, id: i64) -> Result<i64, StoreError> {
    Ok(conn.query_row(
        "UPDATE tasks SET timeouts = timeouts + 1 WHERE id = ?1 RETURNING timeouts",
        [id],
        |r| r.get(0),
    )?)
}

pub fn cancel(conn: &Connection, id: i64, now: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE tasks SET status = 'cancelled', completed_at = ?2 WHERE id = ?1",
        params![id, now],
    )?;
    Ok(())
}

pub fn resume(conn: &Connection, id: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE tasks SET status = 'pending', paused_reason = NULL WHERE id = ?1",
        [id],
    )?;
    Ok(())
}

/// One processed item of a task: its position, the campaign it made or changed, and the
/// platform's refusal when it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub idx: i64,
    pub ad_id: Option<i64>,
    pub error: Option<String>,
}

/// The processed items of the tasks `ids`, by task and position.
pub fn items(conn: &Connection, ids: &[i64]) -> Result<Vec<(i64, Item)>, StoreError> {
    let list = serde_json::to_string(ids).map_err(|e| StoreError::Failed(e.to_string()))?;
    let mut stmt = conn.prepare_cached(
        "SELECT task_id, idx, ad_id, error FROM task_items
         WHERE task_id IN (SELECT value FROM json_each(?1)) ORDER BY task_id, idx",
    )?;
    let rows = stmt.query_map([list], |r| {
        Ok((
            r.get(0)?,
            Item {
                idx: r.get(1)?,
                ad_id: r.get(2)?,
                error: r.get(3)?,
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
