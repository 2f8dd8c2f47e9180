//! Owns `idempotency_keys`: per key holder, the request fingerprint, whether the first request
//! is still running, and the answer to replay.

use rusqlite::{params, Connection};

use super::optional;
use super::StoreError;

pub struct Record {
    pub fingerprint: String,
    pub running: bool,
    pub status: Option<u16>,
    pub response: Option<String>,
    pub created_at: String,
}

pub fn get(conn: &Connection, holder: i64, key: &str) -> Result<Option<Record>, StoreError> {
    optional(
        conn.prepare_cached(
            "SELECT fingerprint, state, status, response, created_at FROM idempotency_keys
         WHERE holder_id = ?1 AND key = ?2",
        )?
        .query_row(params![holder, key], |r| {
            Ok(Record {
                fingerprint: r.get(0)?,
                running: r.get::<_, String>(1)? == "running",
                status: r.get(2)?,
                response: r.get(3)?,
                created_at: r.get(4)?,
            })
        }),
    )
}

pub fn start(
    conn: &Connection,
    holder: i64,
    key: &str,
    fingerprint: &str,
    now: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO idempotency_keys (holder_id, key, fingerprint, state, created_at)
         VALUES (?1, ?2, ?3, 'running', ?4)",
        params![holder, key, fingerprint, now],
    )?;
    Ok(())
}

/// Stores the answer of a claim that is still running (never over an answer stored already).
pub fn finish(
    conn: &Connection,
    holder: i64,
    key: &str,
    status: u16,
    response: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE idempotency_keys SET state = 'done', status = ?3, response = ?4
         WHERE holder_id = ?1 AND key = ?2 AND state = 'running'",
        params![holder, key, status, response],
    )?;
    Ok(())
}

pub fn forget(conn: &Connection, holder: i64, key: &str) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM idempotency_keys WHERE holder_id = ?1 AND key = ?2",
        params![holder, key],
    )?;
    Ok(())
}

/// Drops claims left `running` by a process that stopped mid-request.
pub fn forget_running(conn: &Connection) -> Result<usize, StoreError> {
    Ok(conn.execute("DELETE FROM idempotency_keys WHERE state = 'running'", [])?)
}
