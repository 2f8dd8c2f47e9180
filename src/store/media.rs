//! Owns the `media` table: uploaded files by token, each belonging to one cabinet.

use rusqlite::{params, Connection};

use super::optional;
use super::StoreError;

pub struct Media {
    pub account_id: i64,
    pub media_type: String,
}

pub fn insert(
    conn: &Connection,
    token: &str,
    account: i64,
    media_type: &str,
    size: i64,
    now: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO media (token, account_id, media_type, size, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![token, account, media_type, size, now],
    )?;
    Ok(())
}

pub fn get(conn: &Connection, token: &str) -> Result<Option<Media>, StoreError> {
    optional(conn.query_row(
        "SELECT account_id, media_type FROM media WHERE token = ?1",
        [token],
        |r| {
            Ok(Media {
                account_id: r.get(0)?,
                media_type: r.get(1)?,
            })
        },
    ))
}
