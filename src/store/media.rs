//! Owns the `media` table: uploaded files by token, each belonging to one cabinet.

use rusqlite::{params, Connection};

use super::optional;
use crate::error::ApiError;

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
) -> Result<(), ApiError> {
    conn.execute(
        "INSERT INTO media (token, account_id, media_type, size, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![token, account, media_type, size, now],
    )?;
    Ok(())
}

pub fn get(conn: &Connection, token: &str) -> Result<Option<Media>, ApiError> {
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
