//! Owns `scheduler_state`: the start of the next hour to sync and of the next hour to digest.

use rusqlite::{params, Connection};

use super::StoreError;

/// `(next_sync_hour, next_digest_hour)`, both `None` before the first start.
pub fn get(conn: &Connection) -> Result<(Option<String>, Option<String>), StoreError> {
    Ok(conn.query_row(
        "SELECT next_sync_hour, next_digest_hour FROM scheduler_state WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

pub fn set(conn: &Connection, next_sync: &str, next_digest: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE scheduler_state SET next_sync_hour = ?1, next_digest_hour = ?2 WHERE id = 1",
        params![next_sync, next_digest],
    )?;
    Ok(())
}
