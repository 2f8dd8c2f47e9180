//! Owns `status_events`: each status change of a stored campaign, kept for the webhook sender,
//! with the platform's reason when the change is to `Declined`.

use rusqlite::{params, Connection};

use super::StoreError;
use crate::domain::ad::DeclineReason;
use crate::domain::campaign::Source;
use crate::domain::campaign::Status;

pub struct StatusChange<'a> {
    pub account_id: i64,
    pub ad_id: i64,
    pub tme_path: Option<&'a str>,
    pub old: Status,
    pub new: Status,
    /// What caused it: `api`, `panel`, `task` or `sync`.
    pub source: Source,
    /// The platform's reason, kept only when `new` is `Declined`.
    pub decline_reason: Option<&'a DeclineReason>,
}

pub fn record(conn: &Connection, c: &StatusChange, at: &str) -> Result<(), StoreError> {
    let reason = c.decline_reason.filter(|_| c.new == Status::Declined);
    conn.prepare_cached(
        "INSERT INTO status_events (account_id, ad_id, tme_path, old_status, new_status, source, at,
            decline_reason, decline_description)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        c.account_id,
        c.ad_id,
        c.tme_path,
        c.old.as_str(),
        c.new.as_str(),
        c.source.as_str(),
        at,
        reason.map(DeclineReason::text),
        reason.and_then(DeclineReason::description),
    ])?;
    Ok(())
}

/// A recorded status change not yet turned into a webhook.
#[derive(Debug, Clone)]
pub struct Unsent {
    pub id: i64,
    pub account_id: i64,
    pub ad_id: i64,
    pub tme_path: Option<String>,
    pub old_status: String,
    pub new_status: String,
    /// The platform's reason of a change to `Declined`.
    pub decline_reason: Option<DeclineReason>,
}

/// Status changes not yet turned into webhooks, in order.
pub fn unsent(conn: &Connection) -> Result<Vec<Unsent>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, account_id, ad_id, tme_path, old_status, new_status, decline_reason,
            decline_description
         FROM status_events WHERE sent = 0 ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Unsent {
            id: r.get(0)?,
            account_id: r.get(1)?,
            ad_id: r.get(2)?,
            tme_path: r.get(3)?,
            old_status: r.get(4)?,
            new_status: r.get(5)?,
            decline_reason: super::decline_reason(r, 6, 7)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Marks the changes up to `last` as turned into webhooks.
pub fn mark_sent(conn: &Connection, last: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE status_events SET sent = 1 WHERE sent = 0 AND id <= ?1",
        [last],
    )?;
    Ok(())
}

/// Campaigns of a cabinet whose status changed in `[from, to)`.
pub fn changed_between(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT ad_id FROM status_events WHERE account_id = ?1 AND at >= ?2 AND at < ?3
         ORDER BY ad_id",
    )?;
    let rows = stmt.query_map(params![account, from, to], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether any status change waits to be turned into a webhook.
pub fn any_unsent(conn: &Connection) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM status_events WHERE sent = 0)",
        [],
        |r| r.get(0),
    )?)
}
