//! Owns `webhook_deliveries`: the log of every webhook sent, with attempts, status and timing.

use rusqlite::{params, Connection};
use serde::Serialize;

use super::StoreError;
use crate::domain::delivery::Outcome;

pub fn record(
    conn: &Connection,
    key: i64,
    event: &str,
    delivery_id: &str,
    outcome: &Outcome,
    now: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO webhook_deliveries (key_id, event, delivery_id, attempts, status, duration_ms, error, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            key,
            event,
            delivery_id,
            outcome.attempts,
            outcome.status,
            outcome.duration_ms as i64,
            outcome.error,
            now
        ],
    )?;
    Ok(())
}

/// One logged delivery, as `admin webhook log` lists it.
#[derive(Debug, Clone, Serialize)]
pub struct Delivery {
    pub event: String,
    pub delivery: String,
    pub attempts: i64,
    pub status: Option<i64>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub at: String,
}

/// The key's most recent deliveries, newest first.
pub fn recent(conn: &Connection, key: i64, limit: i64) -> Result<Vec<Delivery>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT event, delivery_id, attempts, status, duration_ms, error, created_at
         FROM webhook_deliveries WHERE key_id = ?1 ORDER BY id DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![key, limit], |r| {
        Ok(Delivery {
            event: r.get(0)?,
            delivery: r.get(1)?,
            attempts: r.get(2)?,
            status: r.get(3)?,
            duration_ms: r.get(4)?,
            error: r.get(5)?,
            at: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
