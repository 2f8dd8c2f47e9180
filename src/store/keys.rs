//! Owns `api_keys` and `api_key_cabinets`: keys by the SHA-256 of their text (never the text),
//! their permissions, scope and webhook settings; `tracker_tokens`; and the access generation
//! a key's principal is kept by (schema 75).

use rusqlite::{params, Connection, Row};

use super::optional;
use super::StoreError;

#[derive(Debug, Clone)]
pub struct KeyRow {
    pub id: i64,
    pub user_id: i64,
    pub manage: bool,
    pub postbacks: bool,
    pub partner: bool,
    pub scope_all: bool,
    pub webhook_url: Option<String>,
    pub webhook_secret: String,
    pub revoked: bool,
    pub last_used_at: Option<String>,
}

fn from_row(r: &Row) -> rusqlite::Result<KeyRow> {
    let revoked_at: Option<String> = r.get("revoked_at")?;
    Ok(KeyRow {
        id: r.get("id")?,
        user_id: r.get("user_id")?,
        manage: r.get("manage")?,
        postbacks: r.get("postbacks")?,
        partner: r.get("partner")?,
        scope_all: r.get("scope_all")?,
        webhook_url: r.get("webhook_url")?,
        webhook_secret: r.get("webhook_secret")?,
        revoked: revoked_at.is_some(),
        last_used_at: r.get("last_used_at")?,
    })
}

pub struct NewKey<'a> {
    pub user_id: i64,
    pub key_hash: &'a str,
    pub manage: bool,
    pub postbacks: bool,
    pub partner: bool,
    pub scope_all: bool,
    pub webhook_url: Option<&'a str>,
    pub webhook_secret: &'a str,
}

pub fn insert(conn: &Connection, k: &NewKey, now: &str) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO api_keys (user_id, key_hash, manage, postbacks, partner, scope_all,
            webhook_url, webhook_secret, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            k.user_id,
            k.key_hash,
            k.manage,
            k.postbacks,
            k.partner,
            k.scope_all,
            k.webhook_url,
            k.webhook_secret,
            now
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<KeyRow>, StoreError> {
    optional(
        conn.prepare_cached("SELECT * FROM api_keys WHERE id = ?1")?
            .query_row([id], from_row),
    )
}

pub fn find_by_hash(conn: &Connection, hash: &str) -> Result<Option<KeyRow>, StoreError> {
    optional(
        conn.prepare_cached("SELECT * FROM api_keys WHERE key_hash = ?1")?
            .query_row([hash], from_row),
    )
}

/// The access generation: one more after every write to a table a key's principal is read
/// from (its key, scope, holder, teams, shares and cabinets), made by the schema's triggers
/// in the writing transaction, whichever connection writes.
pub fn access_generation(conn: &Connection) -> Result<i64, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT generation FROM access_generation WHERE id = 1")?;
    Ok(stmt.query_row([], |r| r.get(0))?)
}

pub fn count_active(conn: &Connection, user: i64) -> Result<i64, StoreError> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM api_keys WHERE user_id = ?1 AND revoked_at IS NULL",
        [user],
        |r| r.get(0),
    )?)
}

/// Active keys of the given people, by id.
pub fn list_active(conn: &Connection, users: &[i64]) -> Result<Vec<KeyRow>, StoreError> {
    let ids = super::ids_json(users);
    let mut stmt = conn.prepare_cached(
        "SELECT * FROM api_keys WHERE revoked_at IS NULL
           AND user_id IN (SELECT value FROM json_each(?1)) ORDER BY id",
    )?;
    let rows = stmt.query_map([ids], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Active keys with a webhook URL.
pub fn with_webhook(conn: &Connection) -> Result<Vec<KeyRow>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT * FROM api_keys WHERE revoked_at IS NULL AND webhook_url IS NOT NULL ORDER BY id",
    )?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The ticked cabinets of a key (meaningful when its scope is not "All").
pub fn scope_cabinets(conn: &Connection, key: i64) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT cabinet_id FROM api_key_cabinets WHERE key_id = ?1 ORDER BY cabinet_id",
    )?;
    let rows = stmt.query_map([key], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Sets the scope: `None` is "All", else exactly the listed cabinets.
pub fn set_scope(conn: &Connection, key: i64, cabinets: Option<&[i64]>) -> Result<(), StoreError> {
    conn.execute("DELETE FROM api_key_cabinets WHERE key_id = ?1", [key])?;
    conn.execute(
        "UPDATE api_keys SET scope_all = ?2 WHERE id = ?1",
        params![key, cabinets.is_none()],
    )?;
    for cabinet in cabinets.unwrap_or_default() {
        conn.execute(
            "INSERT OR IGNORE INTO api_key_cabinets (key_id, cabinet_id) VALUES (?1, ?2)",
            params![key, cabinet],
        )?;
    }
    Ok(())
}

pub fn set_manage(conn: &Connection, key: i64, manage: bool) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE api_keys SET manage = ?2 WHERE id = ?1",
        params![key, manage],
    )?;
    Ok(())
}

pub fn set_postbacks(conn: &Connection, key: i64, on: bool) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE api_keys SET postbacks = ?2 WHERE id = ?1",
        params![key, on],
    )?;
    Ok(())
}

pub fn set_webhook_url(conn: &Connection, key: i64, url: Option<&str>) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE api_keys SET webhook_url = ?2 WHERE id = ?1",
        params![key, url],
    )?;
    Ok(())
}

pub fn set_webhook_secret(conn: &Connection, key: i64, secret: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE api_keys SET webhook_secret = ?2 WHERE id = ?1",
        params![key, secret],
    )?;
    Ok(())
}

pub fn revoke(conn: &Connection, key: i64, now: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
        params![key, now],
    )?;
    Ok(())
}

pub fn touch(conn: &Connection, key: i64, now: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1",
        params![key, now],
    )?;
    Ok(())
}

/// Replaces the person's tracker token (the old one stops working in the same statement).
pub fn replace_tracker_token(
    conn: &Connection,
    user: i64,
    hash: &str,
    now: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO tracker_tokens (user_id, token_hash, created_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at",
        params![user, hash, now],
    )?;
    Ok(())
}

/// The person whose tracker token has this hash.
pub fn tracker_user(conn: &Connection, hash: &str) -> Result<Option<i64>, StoreError> {
    optional(conn.query_row(
        "SELECT user_id FROM tracker_tokens WHERE token_hash = ?1",
        [hash],
        |r| r.get(0),
    ))
}

/// For unit tests: each column of `table`, and whether updating it to itself in the row
/// `WHERE {row}` moved the access generation.
#[cfg(test)]
pub fn test_columns_moving_access(
    conn: &Connection,
    table: &str,
    row: &str,
) -> Vec<(String, bool)> {
    let mut stmt = conn
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .unwrap();
    let columns: Vec<String> = stmt
        .query_map([table], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    columns
        .into_iter()
        .map(|column| {
            let before = access_generation(conn).unwrap();
            conn.execute(
                &format!("UPDATE {table} SET {column} = {column} WHERE {row}"),
                [],
            )
            .unwrap();
            let moved = access_generation(conn).unwrap() != before;
            (column, moved)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_db;

    #[test]
    fn every_write_to_a_table_a_principal_reads_moves_the_access_generation() {
        let conn = test_db();
        let writes = [
            "INSERT INTO users (id, email, plan, created_at) VALUES (2, 'b@example.com', 'agency', 't')",
            "UPDATE users SET subscription = 'expired' WHERE id = 2",
            "INSERT INTO team_members (agency_id, member_id) VALUES (2, 1)",
            "UPDATE team_members SET agency_id = agency_id",
            "INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_updated_at,
                min_budget, created_at) VALUES (8, 2, 'd', 'euro', 't', 1, 't')",
            "INSERT INTO cabinet_shares (agency_id, member_id, cabinet_id, access)
                VALUES (2, 1, 8, 'viewer')",
            "UPDATE cabinet_shares SET access = 'manager'",
            "INSERT INTO api_keys (id, user_id, key_hash, webhook_secret, created_at)
                VALUES (1, 1, 'h', 's', 't')",
            "UPDATE api_keys SET scope_all = 0",
            "INSERT INTO api_key_cabinets (key_id, cabinet_id) VALUES (1, 7)",
            "UPDATE api_key_cabinets SET cabinet_id = 8",
            "DELETE FROM api_key_cabinets",
            "DELETE FROM api_keys",
            "DELETE FROM cabinet_shares",
            "DELETE FROM team_members",
            "DELETE FROM cabinets WHERE id = 8",
            "DELETE FROM users WHERE id = 2",
        ];
        for sql in writes {
            let before = access_generation(&conn).unwrap();
            assert_eq!(conn.execute(sql, []).unwrap(), 1, "{sql}");
            assert_eq!(access_generation(&conn).unwrap(), before + 1, "{sql}");
        }
    }
}
