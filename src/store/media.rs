//! Owns the `media` table: uploaded files by token, each belonging to one cabinet, with the
//! platform's reference to the file when it keeps one.

use rusqlite::{params, Connection};

use super::optional;
use super::StoreError;

pub struct Media {
    pub account_id: i64,
    pub media_type: String,
}

pub struct NewMedia<'a> {
    pub token: &'a str,
    pub account_id: i64,
    pub media_type: &'a str,
    pub size: i64,
    pub platform_ref: Option<&'a str>,
}

pub fn insert(conn: &Connection, m: &NewMedia, now: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO media (token, account_id, media_type, size, created_at, platform_ref)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            m.token,
            m.account_id,
            m.media_type,
            m.size,
            now,
            m.platform_ref
        ],
    )?;
    Ok(())
}

/// The platform's reference to a cabinet's file and its type.
pub fn platform_ref(
    conn: &Connection,
    account: i64,
    token: &str,
) -> Result<Option<(String, String)>, StoreError> {
    optional(conn.query_row(
        "SELECT platform_ref, media_type FROM media
         WHERE account_id = ?1 AND token = ?2 AND platform_ref IS NOT NULL",
        params![account, token],
        |r| Ok((r.get(0)?, r.get(1)?)),
    ))
}

/// The token and type of the cabinet's file the platform knows as `platform_ref`.
pub fn by_platform_ref(
    conn: &Connection,
    account: i64,
    platform_ref: &str,
) -> Result<Option<(String, String)>, StoreError> {
    optional(conn.query_row(
        "SELECT token, media_type FROM media WHERE account_id = ?1 AND platform_ref = ?2",
        params![account, platform_ref],
        |r| Ok((r.get(0)?, r.get(1)?)),
    ))
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
