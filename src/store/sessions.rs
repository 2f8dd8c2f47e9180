//! Owns the `sessions` table (web panel logins, by the SHA-256 of their token) and the
//! `users.password_hash` column.

use rusqlite::{params, Connection};

use super::optional;
use super::StoreError;

/// A live session as read back.
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub user_id: i64,
    pub csrf: String,
    pub created_at: i64,
    pub seen_at: i64,
}

pub fn insert(
    conn: &Connection,
    token_hash: &str,
    user_id: i64,
    csrf: &str,
    now: i64,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO sessions (token_hash, user_id, csrf, created_at, seen_at)
         VALUES (?1, ?2, ?3, ?4, ?4)",
    )?
    .execute(params![token_hash, user_id, csrf, now])?;
    Ok(())
}

pub fn get(conn: &Connection, token_hash: &str) -> Result<Option<SessionRow>, StoreError> {
    optional(
        conn.prepare_cached(
            "SELECT user_id, csrf, created_at, seen_at FROM sessions WHERE token_hash = ?1",
        )?
        .query_row([token_hash], |r| {
            Ok(SessionRow {
                user_id: r.get(0)?,
                csrf: r.get(1)?,
                created_at: r.get(2)?,
                seen_at: r.get(3)?,
            })
        }),
    )
}

/// Marks the session seen at `now`.
pub fn touch(conn: &Connection, token_hash: &str, now: i64) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE sessions SET seen_at = ?2 WHERE token_hash = ?1")?
        .execute(params![token_hash, now])?;
    Ok(())
}

pub fn delete(conn: &Connection, token_hash: &str) -> Result<(), StoreError> {
    conn.prepare_cached("DELETE FROM sessions WHERE token_hash = ?1")?
        .execute([token_hash])?;
    Ok(())
}

/// Ends every session of a person; returns how many there were.
pub fn delete_of_user(conn: &Connection, user_id: i64) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached("DELETE FROM sessions WHERE user_id = ?1")?
        .execute([user_id])?)
}

/// Ends every session of a person but the one whose token hashes to `keep`; returns how
/// many ended.
pub fn delete_others_of_user(
    conn: &Connection,
    user_id: i64,
    keep: &str,
) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached("DELETE FROM sessions WHERE user_id = ?1 AND token_hash <> ?2")?
        .execute(params![user_id, keep])?)
}

/// Removes sessions last seen before `idle_before` or begun before `begun_before`.
pub fn delete_expired(
    conn: &Connection,
    idle_before: i64,
    begun_before: i64,
) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached("DELETE FROM sessions WHERE seen_at < ?1 OR created_at < ?2")?
        .execute(params![idle_before, begun_before])?)
}

/// A person's stored password hash and id, by email (compared without case).
pub fn login_of(
    conn: &Connection,
    email: &str,
) -> Result<Option<(i64, Option<String>)>, StoreError> {
    optional(
        conn.prepare_cached("SELECT id, password_hash FROM users WHERE email = ?1 COLLATE NOCASE")?
            .query_row([email], |r| Ok((r.get(0)?, r.get(1)?))),
    )
}

/// A person's stored password hash, by id; `None` when they have none (or no such person).
pub fn password_of(conn: &Connection, user_id: i64) -> Result<Option<String>, StoreError> {
    Ok(optional(
        conn.prepare_cached("SELECT password_hash FROM users WHERE id = ?1")?
            .query_row([user_id], |r| r.get::<_, Option<String>>(0)),
    )?
    .flatten())
}

pub fn set_password_hash(conn: &Connection, user_id: i64, hash: &str) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE users SET password_hash = ?2 WHERE id = ?1")?
        .execute(params![user_id, hash])?;
    Ok(())
}
