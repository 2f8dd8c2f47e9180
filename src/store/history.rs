//! Owns `campaign_history`: each change to a campaign with its source (`api`, `panel`,
//! `automation`).

use rusqlite::{params, Connection};
use serde_json::{json, Value};

use super::StoreError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Api,
    Panel,
    Automation,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Api => "api",
            Source::Panel => "panel",
            Source::Automation => "automation",
        }
    }
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

/// The campaign's history, oldest first, as JSON objects.
pub fn list(conn: &Connection, account: i64, ad: i64) -> Result<Vec<Value>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT at, source, action, details FROM campaign_history
         WHERE account_id = ?1 AND ad_id = ?2 ORDER BY id",
    )?;
    let rows = stmt.query_map([account, ad], |r| {
        let details: Option<Value> = crate::db::json_column(r.get(3)?)?;
        Ok(json!({
            "at": r.get::<_, String>(0)?,
            "source": r.get::<_, String>(1)?,
            "action": r.get::<_, String>(2)?,
            "details": details,
        }))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
