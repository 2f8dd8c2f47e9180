//! Owns `webhook_deliveries`: the log of every webhook sent, with attempts, status and timing.

use rusqlite::{params, Connection};
use serde::Serialize;

use super::StoreError;
use crate::domain::delivery::Outcome;

/// What was sent: to which key, which event under which delivery id, and the body.
pub struct Sent<'a> {
    pub key: i64,
    pub event: &'a str,
    pub delivery_id: &'a str,
    pub payload: &'a str,
}

pub fn record(
    conn: &Connection,
    sent: &Sent,
    outcome: &Outcome,
    now: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO webhook_deliveries (key_id, event, delivery_id, attempts, status, duration_ms, error, created_at, payload)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            sent.key,
            sent.event,
            sent.delivery_id,
            outcome.attempts,
            outcome.status,
            outcome.duration_ms as i64,
            outcome.error,
            now,
            sent.payload
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

/// One logged delivery, with what `admin webhook resend` needs to send it again.
pub struct Logged {
    pub key_id: i64,
    pub event: String,
    pub status: Option<u16>,
    pub payload: Option<String>,
}

/// The delivery logged under `delivery_id`, if any.
pub fn by_delivery_id(conn: &Connection, delivery_id: &str) -> Result<Option<Logged>, StoreError> {
    let found = conn.query_row(
        "SELECT key_id, event, status, payload FROM webhook_deliveries
             WHERE delivery_id = ?1 ORDER BY id DESC LIMIT 1",
        [delivery_id],
        |r| {
            Ok(Logged {
                key_id: r.get(0)?,
                event: r.get(1)?,
                status: r.get(2)?,
                payload: r.get(3)?,
            })
        },
    );
    super::optional(found)
}
