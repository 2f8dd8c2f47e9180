//! Owns `webhook_outbox`: webhook events waiting to be sent, one row per receiving key.

use rusqlite::{params, Connection, OptionalExtension};

use super::StoreError;

#[derive(Debug, Clone)]
pub struct Pending {
    pub id: i64,
    pub key_id: i64,
    pub event: String,
    pub delivery_id: String,
    pub payload: String,
}

pub fn insert(
    conn: &Connection,
    key: i64,
    event: &str,
    delivery_id: &str,
    payload: &str,
    now: &str,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO webhook_outbox (key_id, event, delivery_id, payload, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![key, event, delivery_id, payload, now])?;
    Ok(())
}

/// The oldest waiting event of each key (a key's events go out in order), oldest first.
pub fn next_per_key(conn: &Connection) -> Result<Vec<Pending>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, key_id, event, delivery_id, payload FROM webhook_outbox
         WHERE id IN (SELECT MIN(id) FROM webhook_outbox GROUP BY key_id)
         ORDER BY id",
    )?;
    let rows = stmt.query_map([], pending)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The oldest waiting event of one key.
pub fn oldest_of_key(conn: &Connection, key: i64) -> Result<Option<Pending>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT id, key_id, event, delivery_id, payload FROM webhook_outbox
             WHERE key_id = ?1 ORDER BY id LIMIT 1",
        )?
        .query_row([key], pending)
        .optional()?)
}

fn pending(r: &rusqlite::Row) -> rusqlite::Result<Pending> {
    Ok(Pending {
        id: r.get(0)?,
        key_id: r.get(1)?,
        event: r.get(2)?,
        delivery_id: r.get(3)?,
        payload: r.get(4)?,
    })
}

pub fn remove(conn: &Connection, id: i64) -> Result<(), StoreError> {
    conn.execute("DELETE FROM webhook_outbox WHERE id = ?1", [id])?;
    Ok(())
}

pub fn is_empty(conn: &Connection) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT NOT EXISTS (SELECT 1 FROM webhook_outbox)",
        [],
        |r| r.get(0),
    )?)
}
