//! Owns the `groups` table: a cabinet's campaign groups.

use rusqlite::{params, Connection, Row};

use super::optional;
use super::StoreError;

#[derive(Debug, Clone)]
pub struct Group {
    pub id: i64,
    pub account_id: i64,
    pub name: String,
    pub color: String,
}

fn from_row(r: &Row) -> rusqlite::Result<Group> {
    Ok(Group {
        id: r.get("id")?,
        account_id: r.get("account_id")?,
        name: r.get("name")?,
        color: r.get("color")?,
    })
}

pub fn insert(conn: &Connection, account: i64, name: &str, color: &str) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO groups (account_id, name, color) VALUES (?1, ?2, ?3)",
        params![account, name, color],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<Group>, StoreError> {
    optional(conn.query_row("SELECT * FROM groups WHERE id = ?1", [id], from_row))
}

/// The groups of the given cabinets, by cabinet then id.
pub fn list(conn: &Connection, accounts: &[i64]) -> Result<Vec<Group>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT * FROM groups WHERE account_id IN (SELECT value FROM json_each(?1))
         ORDER BY account_id, id",
    )?;
    let ids = super::ids_json(accounts);
    let rows = stmt.query_map([ids], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn find_by_name(
    conn: &Connection,
    account: i64,
    name: &str,
) -> Result<Option<Group>, StoreError> {
    optional(conn.query_row(
        "SELECT * FROM groups WHERE account_id = ?1 AND name = ?2",
        rusqlite::params![account, name],
        from_row,
    ))
}
