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

/// The keys with events waiting, the key of the oldest event first (a covering read of
/// `webhook_outbox_key`: no payload is read).
pub fn waiting_keys(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT key_id FROM webhook_outbox GROUP BY key_id ORDER BY MIN(id)")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The oldest waiting event of one key.
pub fn oldest_of_key(conn: &Connection, key: i64) -> Result<Option<Pending>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT id, key_id, event, delivery_id, payload FROM webhook_outbox
             WHERE key_id = ?1 ORDER BY id LIMIT 1",
        )?
        .query_row([key], |r| {
            Ok(Pending {
                id: r.get(0)?,
                key_id: r.get(1)?,
                event: r.get(2)?,
                delivery_id: r.get(3)?,
                payload: r.get(4)?,
            })
        })
        .optional()?)
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
