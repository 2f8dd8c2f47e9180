//! Owns `status_events`: each status change of a stored campaign, kept for the webhook sender.

use rusqlite::{params, Connection};

use crate::domain::campaign::Status;
use crate::error::ApiError;

pub struct StatusChange<'a> {
    pub account_id: i64,
    pub ad_id: i64,
    pub tme_path: Option<&'a str>,
    pub old: Status,
    pub new: Status,
    /// What caused it: `api`, `panel`, `task` or `sync`.
    pub source: &'a str,
}

pub fn record(conn: &Connection, c: &StatusChange, at: &str) -> Result<(), ApiError> {
    conn.execute(
        "INSERT INTO status_events (account_id, ad_id, tme_path, old_status, new_status, source, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![c.account_id, c.ad_id, c.tme_path, c.old.as_str(), c.new.as_str(), c.source, at],
    )?;
    Ok(())
}
