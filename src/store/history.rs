//! Owns `campaign_history`: each change to a campaign with its source (`api`, `panel`,
//! `automation`, ...).

use rusqlite::{params, Connection};
use serde::Serialize;
use serde_json::Value;

use super::StoreError;
pub use crate::domain::campaign::Source;

/// One change in a campaign's history.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub at: String,
    pub source: String,
    pub action: String,
    pub details: Option<Value>,
}

pub fn record(
    conn: &Connection,
    account: i64,
    ad: i64,
    at: &str,
    source: Source,
    action: &str,
    details: &Value,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO campaign_history (account_id, ad_id, at, source, action, details)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            account,
            ad,
            at,
            source.as_str(),
            action,
            details.to_string()
        ],
    )?;
    Ok(())
}

/// The campaign's history, oldest first.
pub fn list(conn: &Connection, account: i64, ad: i64) -> Result<Vec<Entry>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT at, source, action, details FROM campaign_history
         WHERE account_id = ?1 AND ad_id = ?2 ORDER BY id",
    )?;
    let rows = stmt.query_map([account, ad], |r| {
        Ok(Entry {
            at: r.get(0)?,
            source: r.get(1)?,
            action: r.get(2)?,
            details: crate::db::json_column(r.get(3)?)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The campaign of `account` whose history has an `action` entry made under `token` (its
/// details' `token`), if any: how a step repeated after a crash finds that it was done.
pub fn made_under(
    conn: &Connection,
    account: i64,
    action: &str,
    token: &str,
) -> Result<Option<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id FROM campaign_history
         WHERE account_id = ?1 AND action = ?2 AND json_extract(details, '$.token') = ?3
         ORDER BY id LIMIT 1",
    )?;
    let mut rows = stmt.query_map(params![account, action, token], |r| r.get(0))?;
    Ok(rows.next().transpose()?)
}
